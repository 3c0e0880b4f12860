//! Input formats: price tables and scenarios, read strictly.
//!
//! Every loader returns a validated model type or one [`InputError`] naming the file, line,
//! column and field. Unknown fields are errors (with the nearest valid name), and an unknown
//! price is unknown, never zero.

pub mod bill;
pub mod document;
pub mod duration;
pub mod gateway;
pub mod history;
pub mod litellm_prices;
pub mod pricing;
pub mod scenario;
pub mod settings;
pub mod source;
pub mod update;

use crate::error::ValueError;
use std::path::Path;

use crate::error::{InputError, InputErrorKind};

/// A path as shown in messages: as given, without a leading `./`.
pub fn shown_path(path: &Path) -> String {
    let s = path.display().to_string();
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

/// The largest input file fallcost reads: 64 MiB, 19 times LiteLLM's whole price table (3.4 MB).
/// A larger one is not a config (and `/dev/zero` or an endless pipe would never end).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Read a whole input file as UTF-8 text.
///
/// Errors: [`InputErrorKind::Read`] for a missing file, a directory, a file over
/// [`MAX_INPUT_BYTES`], a file that is not UTF-8 text, or any other I/O failure, with the path
/// as given.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let label = path.display().to_string();
    if path.is_dir() {
        return Err(InputError::file(
            InputErrorKind::Read,
            label,
            "is a directory; expected a file",
        ));
    }
    let bytes = std::fs::File::open(path)
        .and_then(|f| {
            use std::io::Read;
            let mut bytes = Vec::new();
            f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
            Ok(bytes)
        })
        .map_err(|e| {
            let message = match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                _ => format!("cannot read: {e}"),
            };
            InputError::file(InputErrorKind::Read, label.clone(), message)
        })?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(InputError::file(
            InputErrorKind::Read,
            label,
            format!(
                "larger than {} MiB; fallcost reads scenarios, price tables and gateway configs up to that size",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        InputError::file(
            InputErrorKind::Read,
            label,
            format!(
                "not UTF-8 text (invalid byte at offset {}); expected a text file",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// A JSON syntax error as one [`InputError`]: serde_json's line and column (a column of 0,
/// which it gives at the end of a line, counts as 1) and its message without the position it
/// repeats (`invalid JSON: EOF while parsing a list`).
pub fn json_syntax_error(file: &str, e: &serde_json::Error) -> InputError {
    let text = e.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    InputError {
        file: file.to_string(),
        location: Some(crate::error::Location {
            line: e.line().max(1),
            col: e.column().max(1),
        }),
        field: None,
        message: format!("invalid JSON: {message}"),
        kind: InputErrorKind::Syntax,
    }
}

/// Check a name (scenario, chain, model id, provider): not empty, no leading or trailing
/// spaces, and no control characters other than newline and tab (escape sequences, bells and
/// carriage returns would corrupt terminals; newlines survive CSV and are flattened in
/// Markdown).
pub(crate) fn check_name(name: &str) -> Result<(), ValueError> {
    if name.trim().is_empty() {
        Err(ValueError::Name("must not be empty".into()))
    } else if name.trim() != name {
        Err(ValueError::Name(format!(
            "{name:?} has leading or trailing spaces; remove them"
        )))
    } else if name
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        Err(ValueError::Name(format!(
            "{name:?} contains a control character (escape, bell, carriage return…); use printable text"
        )))
    } else {
        Ok(())
    }
}

/// Check that `value` is a finite number in `[lo, hi]`; the error says what is allowed.
pub(crate) fn check_range(value: f64, lo: f64, hi: f64) -> Result<(), ValueError> {
    let got = show(value);
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else if hi.is_infinite() {
        Err(ValueError::Range(format!(
            "must be a finite number >= {}; got {got}",
            show(lo)
        )))
    } else {
        Err(ValueError::Range(format!(
            "must be in [{}, {}]; got {got}",
            show(lo),
            show(hi)
        )))
    }
}

/// A number for an error message: plain, or in exponent form when very large or small.
pub(crate) fn show(value: f64) -> String {
    if value != 0.0 && value.is_finite() && !(1e-6..1e9).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}
