//! Errors a user can act on, and the exit codes they map to.
//!
//! Every problem with an input file becomes one [`InputError`] that names the file, the line and
//! column where TOML (or JSON/YAML) gives one, the field, what is wrong and what is allowed. The
//! binary prints it as a single line, `error: FILE:LINE:COL: field: message`, and exits with
//! [`ExitStatus::Error`] (2).

/// How `fallcost` ends. The numeric values are the process exit codes and part of the CLI
/// contract (README, "Exit codes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: the command did what was asked; `check` found nothing above the limits.
    Success,
    /// 1: `check` ran and found at least one finding (or a warning under `--deny-warnings`).
    Findings,
    /// 2: bad input or usage: an unreadable or invalid file, an unknown model, a bad flag.
    Error,
}

impl ExitStatus {
    /// The process exit code: 0, 1 or 2.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
        }
    }
}

/// What kind of input problem an [`InputError`] is, for callers and tests that match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputErrorKind {
    /// The file could not be read (missing, a directory, not UTF-8, permissions).
    Read,
    /// The file is not valid TOML/JSON/YAML.
    Syntax,
    /// A field is unknown, missing, or of the wrong type.
    Schema,
    /// A value is out of its allowed range or inconsistent with another.
    Invalid,
    /// A model has no price in the table in use (unknown prices fail closed, never priced as 0).
    UnknownModel,
}

impl InputErrorKind {
    /// The identifier used in JSON output: `read`, `syntax`, `schema`, `invalid`,
    /// `unknown-model`.
    pub fn as_str(self) -> &'static str {
        match self {
            InputErrorKind::Read => "read",
            InputErrorKind::Syntax => "syntax",
            InputErrorKind::Schema => "schema",
            InputErrorKind::Invalid => "invalid",
            InputErrorKind::UnknownModel => "unknown-model",
        }
    }
}

/// A 1-based line and column in an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Line, counting from 1.
    pub line: usize,
    /// Column in characters, counting from 1.
    pub col: usize,
}

impl Location {
    /// The line and column of byte `offset` in `text` (clamped to the end of the text).
    pub fn of_offset(text: &str, offset: usize) -> Location {
        let offset = offset.min(text.len());
        let before = &text[..floor_char_boundary(text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        Location { line, col }
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One problem with one input file, printed as `FILE:LINE:COL: field: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {}{message}", at(.location), field_prefix(.field))]
pub struct InputError {
    /// The file as the user named it (or `<bundled NAME>` for a bundled price table).
    pub file: String,
    /// Where in the file, when the parser or the field lookup could tell.
    pub location: Option<Location>,
    /// The field path, e.g. `chain[1].models[0]` or `steady.failure_rate`.
    pub field: Option<String>,
    /// What is wrong and what is allowed.
    pub message: String,
    /// The kind of problem.
    pub kind: InputErrorKind,
}

impl InputError {
    /// An error about the whole file (no line, no field).
    pub fn file(kind: InputErrorKind, file: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            file: file.into(),
            location: None,
            field: None,
            message: message.into(),
            kind,
        }
    }
}

impl InputError {
    /// An unknown top-level field that belongs to the other kind of fallcost file (a scenario's
    /// `chain` in a price table, a price table's `models` in a scenario): the error gains a hint
    /// saying which file this looks like and what reads it. `foreign` lists those fields,
    /// `hint` is the sentence to add. Other errors pass unchanged.
    pub fn with_file_kind_hint(mut self, foreign: &[&str], hint: &str) -> Self {
        if self.kind == InputErrorKind::Schema
            && self.message.starts_with("unknown field")
            && self.field.as_deref().is_some_and(|f| foreign.contains(&f))
        {
            self.message = format!("{}; {hint}", self.message);
        }
        self
    }
}

/// What is wrong with one value (a number, a name, a duration, a time, a bill's field, a key
/// or a flag's text), before its caller places it: the input layer (and the readers beside it,
/// `calibrate` and `tune`'s space) return it, and the caller wraps it into an [`InputError`]
/// naming the file, line and field, or into a flag's message. Each variant holds the message
/// as printed (what is wrong and what is allowed); `Display` prints it alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A number outside its allowed range.
    #[error("{0}")]
    Range(String),
    /// A name (scenario, chain, model id, provider) that is empty, padded or not printable.
    #[error("{0}")]
    Name(String),
    /// A duration or offset that does not parse, or is not allowed here.
    #[error("{0}")]
    Duration(String),
    /// A time or day that does not parse, or a period that cannot be completed.
    #[error("{0}")]
    Time(String),
    /// A field of a provider's bill export (a tier, an amount, a token count) that is not
    /// what the export allows.
    #[error("{0}")]
    Bill(String),
    /// A selection that names what is not there (a chain, a model, a key of the document).
    #[error("{0}")]
    Unknown(String),
    /// Any other value that is not allowed where it stands.
    #[error("{0}")]
    Invalid(String),
}

impl From<ValueError> for String {
    /// The message, for callers that build an [`InputError`] or a flag's message from it.
    fn from(e: ValueError) -> String {
        e.to_string()
    }
}

/// `text` made safe to print as one terminal line: control characters (newlines, carriage
/// returns, escape sequences from a name in a config) are written as escapes (`\n`, `\r`,
/// `\u{1b}`), so an error stays on one line and nothing in an input file can drive the terminal.
pub fn printable_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn at(location: &Option<Location>) -> String {
    location.map_or(String::new(), |l| format!(":{}:{}", l.line, l.col))
}

fn field_prefix(field: &Option<String>) -> String {
    field.as_ref().map_or(String::new(), |f| format!("{f}: "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_lines_escape_control_characters() {
        assert_eq!(
            printable_line("a\nb\r\u{1b}[31mred\tx é"),
            "a\\nb\\r\\u{1b}[31mred\\tx é"
        );
    }

    #[test]
    fn exit_codes_are_the_documented_ones() {
        assert_eq!(ExitStatus::Success.code(), 0);
        assert_eq!(ExitStatus::Findings.code(), 1);
        assert_eq!(ExitStatus::Error.code(), 2);
    }

    #[test]
    fn location_counts_lines_and_characters_from_one() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(Location::of_offset(text, 0), Location { line: 1, col: 1 });
        assert_eq!(Location::of_offset(text, 6), Location { line: 2, col: 1 });
        // byte 9 is the space after "bé" (é is two bytes): the third character
        assert_eq!(Location::of_offset(text, 9), Location { line: 2, col: 3 });
        assert_eq!(Location::of_offset(text, 999), Location { line: 3, col: 1 });
    }

    #[test]
    fn display_is_one_line_with_file_location_and_field() {
        let e = InputError {
            file: "s.toml".into(),
            location: Some(Location { line: 3, col: 5 }),
            field: Some("steady.failure_rate".into()),
            message: "must be in [0, 1]; got 1.5".into(),
            kind: InputErrorKind::Invalid,
        };
        assert_eq!(
            e.to_string(),
            "s.toml:3:5: steady.failure_rate: must be in [0, 1]; got 1.5"
        );
    }
}
