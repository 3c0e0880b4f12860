//! A parsed TOML input file that remembers where every value came from.
//!
//! Price tables and scenarios are deserialized through [`Document`], so that every error, from
//! the TOML parser, from serde (unknown field, wrong type) or from our own validation after
//! deserializing, names the file, line, column and field path.

use crate::error::ValueError;
use serde::de::DeserializeOwned;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::error::{InputError, InputErrorKind, Location};

/// One segment of a field path: a table key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// A key in a table, e.g. `steady`.
    Key(String),
    /// An index into an array, e.g. the `1` of `chain[1]`.
    Index(usize),
}

/// Render a path as `chain[1].models[0]`, with TOML's quoting where a key is not a bare key
/// (`latency."openai/gpt-5.6-sol".p50_s`), so that a path can be pasted back into `--set`.
pub fn path_string(path: &[PathSegment]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            PathSegment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                let bare = k
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if k.is_empty() || !bare {
                    out.push_str(&quoted_key(k));
                } else {
                    out.push_str(k);
                }
            }
            PathSegment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// `key` as a TOML basic string: `"…"`, with `"` and `\` escaped and control characters as
/// `\uXXXX`.
fn quoted_key(key: &str) -> String {
    let mut out = String::from('"');
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Split a dotted key the way TOML reads one: segments separated by dots (whitespace around a
/// dot is ignored); a quoted segment, `"…"` (with TOML's escapes) or `'…'` (literal), is one
/// key whatever it holds, dots included: `latency."openai/gpt-5.6-sol".p50_s` is `latency`,
/// `openai/gpt-5.6-sol`, `p50_s`. An unquoted segment is everything up to the next dot, so
/// `latency.openai/gpt-4o.p50_s` needs no quotes (a model id without a dot).
///
/// Errors: an empty unquoted segment (`a..b`), an unterminated quote or a bad escape, text
/// between a closing quote and the next dot, a quote inside an unquoted segment.
pub fn split_dotted_key(key: &str) -> Result<Vec<String>, ValueError> {
    let wrong = |why: String| {
        ValueError::Invalid(format!(
            "expected a dotted key such as `steady.failure_rate` or `latency.\"openai/gpt-5.6-sol\".p50_s`{why}"
        ))
    };
    let mut parts = Vec::new();
    let mut rest = key.trim_start();
    loop {
        let (part, after) = if let Some(q @ ('"' | '\'')) = rest.chars().next() {
            // The closing quote: the first one not escaped by a backslash (in a basic string).
            let mut escaped = false;
            let close = rest[1..].char_indices().find_map(|(i, c)| {
                let found = c == q && !escaped;
                escaped = q == '"' && c == '\\' && !escaped;
                found.then_some(i + 2)
            });
            let Some(close) = close else {
                return Err(wrong(format!("; `{key}` has an unterminated quote")));
            };
            let quoted = &rest[..close];
            match DeValue::parse(quoted).map(Spanned::into_inner) {
                Ok(DeValue::String(s)) => (s.into_owned(), rest[close..].trim_start()),
                _ => return Err(wrong(format!("; {quoted} is not a TOML string"))),
            }
        } else {
            let end = rest.find('.').unwrap_or(rest.len());
            let part = rest[..end].trim();
            if part.is_empty() {
                return Err(wrong(format!("; `{key}` has an empty key")));
            }
            if part.contains(['"', '\'']) {
                return Err(wrong(format!(
                    "; in `{key}`, quote a whole key, from dot to dot"
                )));
            }
            (part.to_string(), &rest[end..])
        };
        parts.push(part);
        if after.is_empty() {
            return Ok(parts);
        }
        rest = after
            .strip_prefix('.')
            .ok_or_else(|| {
                wrong(format!(
                    "; in `{key}`, a quoted key must be followed by a dot or the end"
                ))
            })?
            .trim_start();
    }
}

/// For a `--set` key written without quotes that splits a model id at its dots
/// (`latency.openai/gpt-5.6-sol.p50_s`: `parts` are `latency`, `openai/gpt-5`, `6-sol`,
/// `p50_s`), a hint giving the setting with the id, from its first segment holding a `/` to the
/// field, quoted as one key: `quote a key holding a dot: latency."openai/gpt-5.6-sol".p50_s`.
fn quoted_id_hint(key: &str, parts: &[String]) -> Option<String> {
    if key.contains(['"', '\'']) {
        return None;
    }
    let id = parts.iter().position(|p| p.contains('/'))?;
    let field = parts.len() - 1;
    if field <= id + 1 {
        return None;
    }
    let mut path: Vec<PathSegment> = parts[..id].iter().cloned().map(PathSegment::Key).collect();
    path.push(PathSegment::Key(parts[id..field].join(".")));
    path.push(PathSegment::Key(parts[field].clone()));
    Some(format!("quote a key holding a dot: {}", path_string(&path)))
}

/// A TOML file parsed with spans. `'a` is the lifetime of the file's text.
pub struct Document<'a> {
    file: String,
    text: &'a str,
    root: Spanned<DeTable<'a>>,
    /// Values set by [`Document::set`]; errors about them name `--set KEY=VALUE`, not the file.
    overridden: Vec<Override>,
}

/// One value set by [`Document::set`] (`--set KEY=VALUE`).
struct Override {
    /// The key path.
    path: Vec<PathSegment>,
    /// `KEY=VALUE` as given, for messages.
    given: String,
    /// How many leading tables of `path` were in the file before the override; the others
    /// were created by it.
    in_file: usize,
    /// For an unquoted key that split a model id at its dots, the same setting with the id
    /// quoted ([`quoted_id_hint`]), for errors about it.
    hint: Option<String>,
}

/// Who an error about a field path is about.
enum Blame<'o> {
    /// An override: the path is the overridden value, inside it, or in a table it created.
    Set(&'o Override),
    /// A table of the file that holds an override (e.g. `policy.backoff` when `--set` gave its
    /// `base_s`): the override, with the table's line in the file.
    FileWith(&'o Override),
    /// The file alone.
    File,
}

/// What `Document::deserialize` puts in a table to learn the fields it takes: a key no
/// scenario can have, so serde answers with its list of allowed fields.
const PROBE: &str = "\u{1}fallcost-probe";

impl<'a> Document<'a> {
    /// Parse `text` (the contents of `file`, which is only used in messages).
    ///
    /// Errors: [`InputErrorKind::Syntax`] with the parser's line and column.
    pub fn parse(file: &str, text: &'a str) -> Result<Self, InputError> {
        let root = DeTable::parse(text).map_err(|e| {
            let location = e.span().map(|s| Location::of_offset(text, s.start));
            let mut message = format!("invalid TOML: {}", one_line(e.message()));
            // "duplicate key" alone: name the key, which starts where the parser points.
            if message.ends_with("duplicate key")
                && let Some(span) = e.span()
                && let Some(rest) = text.get(span.start..)
            {
                let key: String = rest
                    .chars()
                    .take_while(|c| !matches!(c, '=' | ']' | '\n' | '\r') && !c.is_whitespace())
                    .collect();
                if !key.is_empty() {
                    message = format!("{message} `{key}`; each key may appear once in a table");
                }
            }
            InputError {
                file: file.to_string(),
                location,
                field: None,
                message,
                kind: InputErrorKind::Syntax,
            }
        })?;
        Ok(Document {
            file: file.to_string(),
            text,
            root,
            overridden: Vec::new(),
        })
    }

    /// The file name used in messages.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Deserialize the whole document into `T`.
    ///
    /// Errors: [`InputErrorKind::Schema`] naming the field path (for an unknown field, the
    /// misspelled key itself) and its line and column.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, InputError> {
        let de = toml::de::Deserializer::from(self.root.clone());
        serde_path_to_error::deserialize(de).map_err(|err| {
            let mut path: Vec<PathSegment> = err
                .path()
                .iter()
                .filter_map(|s| match s {
                    serde_path_to_error::Segment::Seq { index } => Some(PathSegment::Index(*index)),
                    serde_path_to_error::Segment::Map { key } => {
                        Some(PathSegment::Key(key.clone()))
                    }
                    serde_path_to_error::Segment::Enum { variant } => {
                        Some(PathSegment::Key(variant.clone()))
                    }
                    serde_path_to_error::Segment::Unknown => None,
                })
                .collect();
            let inner = err.inner();
            let raw = plain_types(&one_line(inner.message()));
            let (message, top_level_missing) = self.schema_message::<T>(&raw, &mut path);
            let mut e = self.error_at(InputErrorKind::Schema, &path, message);
            // A missing top-level table or key has no line of its own: point at the file's
            // start, so every error reads FILE:LINE:COL.
            if top_level_missing && e.location.is_none() && e.file == self.file {
                e.location = Some(Location { line: 1, col: 1 });
            }
            if e.location.is_some()
                && let Some(span) = inner.span()
                && matches!(self.blame(&path), Blame::File)
            {
                e.location = Some(Location::of_offset(self.text, span.start));
            }
            e
        })
    }

    /// The message of a deserialization error `raw` at `path` (which it may extend with the
    /// missing or unknown key), and whether a top-level key is missing: a `--set` that names a
    /// table or gives a number for a text said so, a missing field named, an unknown field or
    /// variant with the likely one.
    fn schema_message<T: DeserializeOwned>(
        &self,
        raw: &str,
        path: &mut Vec<PathSegment>,
    ) -> (String, bool) {
        let mut top_level_missing = false;
        let message = if raw.starts_with("invalid type:")
            && raw.ends_with("expected a table")
            && let Blame::Set(o) = self.blame(path)
            && o.path == *path
        {
            // `--set request=3`: the key names a table, and --set sets one value
            let key = path_string(path);
            match self.table_fields::<T>(path) {
                Some(fields) => format!(
                    "`{key}` is a table, not a value: set one field at a time, as --set {key}.FIELD=VALUE, FIELD one of: {}",
                    fields.join(", ")
                ),
                None => format!(
                    "`{key}` is a table, not a value: set one entry at a time, as --set {key}.NAME=VALUE"
                ),
            }
        } else if raw.starts_with("invalid type:")
            && raw.ends_with("expected a string")
            && let Blame::Set(o) = self.blame(path)
            && o.path == *path
            && let Some((key, value)) = o.given.split_once('=')
        {
            // `--set name=3`: TOML reads 3 as a number
            format!(
                "{raw}; for the text {}, quote it: --set '{key}=\"{}\"'",
                value.trim(),
                value.trim()
            )
        } else if let Some(name) = missing_field(raw) {
            path.push(PathSegment::Key(name.to_string()));
            top_level_missing = path.len() == 1;
            "required field is missing".to_string()
        } else if let Some((name, rest)) = unknown_field(raw) {
            let key = PathSegment::Key(name.to_string());
            if path.last() != Some(&key) {
                path.push(key);
            }
            unknown_field_message(name, rest)
        } else if let Some((name, rest)) = raw
            .strip_prefix("unknown variant `")
            .and_then(|r| r.split_once('`'))
        {
            // "unknown variant `grey`, expected `fast` or `gray`": add the likely one
            let allowed: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
            match crate::suggest::nearest(name, allowed.iter().copied()) {
                Some(near) => format!("{raw} (did you mean `{near}`?)"),
                None => raw.to_string(),
            }
        } else {
            raw.to_string()
        };
        (message, top_level_missing)
    }

    /// The fields the table at `path` takes in `T`, learnt by deserializing a copy of the
    /// document with a [`PROBE`] key in that table: serde refuses it and lists the allowed
    /// fields. `None` when the path runs through an array, or serde answers otherwise (a table
    /// of free-form keys, or an earlier error elsewhere in the document).
    fn table_fields<T: DeserializeOwned>(&self, path: &[PathSegment]) -> Option<Vec<String>> {
        let mut root = self.root.clone();
        let (last, parents) = path.split_last()?;
        let mut table: &mut DeTable<'a> = root.get_mut();
        for seg in parents {
            let PathSegment::Key(k) = seg else {
                return None;
            };
            table = match table.get_mut(k.as_str()).map(|v| v.get_mut()) {
                Some(DeValue::Table(t)) => t,
                _ => return None,
            };
        }
        let PathSegment::Key(last) = last else {
            return None;
        };
        let span = self.root.span();
        let mut probe = DeTable::new();
        probe.insert(
            Spanned::new(span.clone(), std::borrow::Cow::Borrowed(PROBE)),
            Spanned::new(span.clone(), DeValue::Boolean(true)),
        );
        table.insert(
            Spanned::new(span.clone(), std::borrow::Cow::Owned(last.clone())),
            Spanned::new(span, DeValue::Table(probe)),
        );
        let de = toml::de::Deserializer::from(root);
        let err = serde_path_to_error::deserialize::<_, T>(de).err()?;
        let raw = one_line(err.inner().message());
        match unknown_field(&raw) {
            Some((name, rest)) if name == PROBE => {
                let fields: Vec<String> = rest
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(String::from)
                    .collect();
                (!fields.is_empty()).then_some(fields)
            }
            _ => None,
        }
    }

    /// An [`InputErrorKind::Invalid`] (or other `kind`) error about the field at `path`, with the
    /// line and column of its value when the field is in the file. An error about a value set
    /// by [`Document::set`], inside it, in a table it created or in a table holding it names
    /// `--set KEY=VALUE` instead of the file's line (`--set KEY=VALUE: [field: ]message (in
    /// FILE[:LINE:COL])`).
    pub fn error_at(
        &self,
        kind: InputErrorKind,
        path: &[PathSegment],
        message: impl Into<String>,
    ) -> InputError {
        let message = message.into();
        let field = (!path.is_empty()).then(|| path_string(path));
        match self.blame(path) {
            Blame::Set(o) => InputError {
                file: format!("--set {}", o.given),
                location: None,
                field: field.filter(|_| path != o.path.as_slice()),
                message: match &o.hint {
                    Some(hint) => format!("{message}; {hint} (in {})", self.file),
                    None => format!("{message} (in {})", self.file),
                },
                kind,
            },
            Blame::FileWith(o) => {
                let at = self
                    .locate(path)
                    .map_or(String::new(), |l| format!(":{}:{}", l.line, l.col));
                InputError {
                    file: format!("--set {}", o.given),
                    location: None,
                    field,
                    message: format!("{message} (in {}{at})", self.file),
                    kind,
                }
            }
            Blame::File => InputError {
                file: self.file.clone(),
                location: self.locate(path),
                field,
                message,
                kind,
            },
        }
    }

    /// Who an error about the field at `path` is about: the latest override whose value holds
    /// it, or that created a table holding it; else a table of the file holding an override;
    /// else the file.
    fn blame(&self, path: &[PathSegment]) -> Blame<'_> {
        for o in self.overridden.iter().rev() {
            let common = path.iter().zip(&o.path).take_while(|(a, b)| a == b).count();
            if common > o.in_file {
                return Blame::Set(o);
            }
            if common == path.len() && !path.is_empty() {
                return Blame::FileWith(o);
            }
        }
        Blame::File
    }

    /// The location of the value at `path`, or of its nearest ancestor that is in the file.
    pub fn locate(&self, path: &[PathSegment]) -> Option<Location> {
        let mut span = None;
        let mut value: Option<&DeValue<'a>> = None;
        let mut table: Option<&DeTable<'a>> = Some(self.root.get_ref());
        for seg in path {
            let next: Option<&Spanned<DeValue<'a>>> = match (seg, table, value) {
                (PathSegment::Key(k), Some(t), _) => t.get(k.as_str()),
                (PathSegment::Index(i), _, Some(DeValue::Array(a))) => a.get(*i),
                _ => None,
            };
            let Some(next) = next else { break };
            span = Some(next.span());
            value = Some(next.get_ref());
            table = match next.get_ref() {
                DeValue::Table(t) => Some(t),
                _ => None,
            };
        }
        span.map(|s| Location::of_offset(self.text, s.start))
    }

    /// Override the value at a dotted key path (`steady.failure_rate`, `incident.failure`), as
    /// `--set KEY=VALUE` does, creating missing tables on the way. `value` is read as a TOML
    /// value (`0.01`, `"3h"`, `[0.1, 0]`); a bare word that is not TOML is taken as a string.
    ///
    /// Errors: [`InputErrorKind::Schema`], named `--set KEY=VALUE`, when the key is not a
    /// dotted key, the value is a whole table, or the path runs through a value that is not a
    /// table or through an array of tables (`chain`).
    pub fn set(&mut self, key: &str, value: &'a str) -> Result<(), InputError> {
        let given = format!("{key}={value}");
        let bad = |message: String| InputError {
            file: format!("--set {given}"),
            location: None,
            field: None,
            message: format!("{message} (in {})", self.file),
            kind: InputErrorKind::Schema,
        };
        let parts = split_dotted_key(key).map_err(|e| bad(e.to_string()))?;
        let mut path: Vec<PathSegment> = parts.iter().cloned().map(PathSegment::Key).collect();
        let parsed = set_value(value);
        if let DeValue::Table(_) = parsed {
            return Err(bad(format!(
                "takes one value, not a table (it would replace the whole table); set its fields one at a time, e.g. --set {key}.FIELD=VALUE"
            )));
        }
        let (last, parents) = parts.split_last().expect("non-empty");
        let file = self.file.clone();
        let mut anchor = self.root.span();
        let mut in_file = 0;
        let mut table: &mut DeTable<'a> = self.root.get_mut();
        let mut named = None;
        for (i, p) in parents.iter().enumerate() {
            // `chain.NAME.FIELD`: the element of `[[chain]]` whose `name` is NAME.
            if named.take() == Some(i) {
                continue;
            }
            let element = match parents.get(i + 1) {
                Some(_) => named_element(table, p, &parts[i + 1]),
                None => None,
            };
            if let Some(at) = element {
                let found = match table.get_mut(p.as_str()).map(|v| v.get_mut()) {
                    Some(DeValue::Array(a)) => a.get_mut(at).map(|e| e.get_mut()),
                    _ => None,
                };
                let Some(DeValue::Table(t)) = found else {
                    return Err(bad(format!("`{p}` changed while it was read")));
                };
                table = t;
                named = Some(i + 1);
                in_file = i + 2;
                // errors name the element by its index (`chain[0].models`): so does the path
                // they are blamed by ([`Document::blame`])
                path[i + 1] = PathSegment::Index(at);
                continue;
            }
            let owned: Spanned<std::borrow::Cow<'a, str>> =
                Spanned::new(anchor.clone(), std::borrow::Cow::Owned(p.clone()));
            if table.get(p.as_str()).is_some() && in_file == i {
                in_file = i + 1;
            }
            let entry = table
                .entry(owned)
                .or_insert_with(|| Spanned::new(anchor.clone(), DeValue::Table(DeTable::new())));
            anchor = entry.span();
            table = match entry.get_mut() {
                DeValue::Table(t) => t,
                other => {
                    let array = matches!(other, DeValue::Array(_));
                    return Err(InputError {
                        message: not_a_table(&path_string(&path[..=i]), array, &file),
                        ..bad(String::new())
                    });
                }
            };
        }
        let span = table.get(last.as_str()).map_or(anchor, |v| v.span());
        self.overridden.push(Override {
            hint: quoted_id_hint(key, &parts),
            path,
            given,
            in_file,
        });
        table.insert(
            Spanned::new(span.clone(), std::borrow::Cow::Owned(last.clone())),
            Spanned::new(span, parsed),
        );
        Ok(())
    }
}

/// A `--set` value as TOML reads it; text that is no TOML value is the text itself (trimmed).
fn set_value(value: &str) -> DeValue<'_> {
    match DeValue::parse(value) {
        Ok(v) => v.into_inner(),
        Err(_) => DeValue::String(value.trim().into()),
    }
}

/// The element of the array of tables `key` in `table` whose `name` is `name` (`--set
/// chain.NAME.FIELD`); `None` when `key` holds no array or no such element.
fn named_element(table: &DeTable<'_>, key: &str, name: &str) -> Option<usize> {
    match table.get(key).map(|v| v.get_ref()) {
        Some(DeValue::Array(a)) => a.iter().position(|e| {
            matches!(e.get_ref(), DeValue::Table(t) if t
                .get("name")
                .is_some_and(|n| n.get_ref().as_str() == Some(name)))
        }),
        _ => None,
    }
}

/// Why `--set` cannot go through `here` of `file`: an array of tables (`array`) is reached by
/// an element's name, a value is set as itself.
fn not_a_table(here: &str, array: bool, file: &str) -> String {
    if array {
        format!(
            "`{here}` is an array of tables ([[{here}]]): --set reaches one element by its name, as {here}.NAME.FIELD (e.g. chain.NAME.models=[\"a\", \"b\"]), or edit {file} (and pick chains with --chain)"
        )
    } else {
        format!(
            "`{here}` is a value, not a table: set it as --set {here}=VALUE; --set takes a dotted key of the file, such as steady.failure_rate (in {file})"
        )
    }
}

impl<'a> Document<'a> {
    /// Remove the value at a key path (`["steady", "failure_rates"]`), if it is there (used
    /// when an override replaces a setting that has an alternative spelling, e.g. a scalar and
    /// its per-link list).
    pub fn remove(&mut self, path: &[String]) {
        if let Some((last, parents)) = path.split_last()
            && let Some(table) = self.table_at(parents)
        {
            table.remove(last.as_str());
        }
    }

    /// Remove the value at a key path if it is a plain value, not a table (used when an
    /// override sets a field of a setting that the file gives as one word, e.g.
    /// `warm_fallback = "always"` overridden by `policy.warm_fallback.after=3`).
    pub fn remove_value(&mut self, path: &[String]) {
        if let Some((last, parents)) = path.split_last()
            && let Some(table) = self.table_at(parents)
            && table
                .get(last.as_str())
                .is_some_and(|v| !matches!(v.get_ref(), DeValue::Table(_)))
        {
            table.remove(last.as_str());
        }
    }

    /// The table at a key path, an array of tables entered by its element's `name`
    /// (`chain.NAME`), if it is there.
    fn table_at(&mut self, path: &[String]) -> Option<&mut DeTable<'a>> {
        let mut table = self.root.get_mut();
        let mut rest = path;
        while let Some((p, tail)) = rest.split_first() {
            rest = tail;
            table = match table.get_mut(p.as_str()).map(|v| v.get_mut())? {
                DeValue::Table(t) => t,
                DeValue::Array(a) => {
                    let (name, tail) = rest.split_first()?;
                    rest = tail;
                    a.iter_mut().find_map(|e| match e.get_mut() {
                        DeValue::Table(t) => t
                            .get("name")
                            .is_some_and(|n| n.get_ref().as_str() == Some(name.as_str()))
                            .then_some(t),
                        _ => None,
                    })?
                }
                _ => return None,
            };
        }
        Some(table)
    }
}

/// The field named by serde's "missing field `x`".
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

/// serde's type names in words a user knows (our own struct names, `expected struct
/// RequestSpec`, are tables to the user), and a float it quotes in full (`1e300` as 301 digits)
/// written compactly.
fn plain_types(message: &str) -> String {
    let mut out = message
        .replace("expected u64", "expected a whole number >= 0")
        .replace(
            "expected u32",
            &format!("expected a whole number >= 0 (at most {})", u32::MAX),
        )
        .replace("expected i64", "expected a whole number")
        .replace("expected f64", "expected a number")
        .replace("a sequence", "an array")
        .replace("type: sequence", "type: an array")
        .replace("type: map", "type: a table")
        .replace(
            "floating-point number overflowed",
            "number too large for a float; allowed: a finite number (at most about 1.8e308)",
        )
        .replace("expected a map", "expected a table");
    while let Some(at) = out.find("expected struct ") {
        let name = &out[at + "expected struct ".len()..];
        let len = name
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(name.len());
        out.replace_range(at..at + "expected struct ".len() + len, "expected a table");
    }
    const FLOAT: &str = "floating point `";
    if let Some(at) = out.find(FLOAT).map(|i| i + FLOAT.len())
        && let Some(len) = out[at..].find('`')
        && let Ok(x) = out[at..at + len].parse::<f64>()
    {
        out.replace_range(at..at + len, &super::show(x));
    }
    out
}

/// Split `unknown field `x`, expected ...` into (`x`, `, expected ...`).
fn unknown_field(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("unknown field `")?;
    let end = rest.find('`')?;
    Some((&rest[..end], &rest[end + 1..]))
}

/// "unknown field; did you mean `x`? allowed: a, b" from serde's "expected one of `a`, `b`".
fn unknown_field_message(name: &str, expected: &str) -> String {
    let allowed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if allowed.is_empty() {
        return "unknown field; this table takes no fields".to_string();
    }
    let hint = match crate::suggest::nearest(name, allowed.iter().copied()) {
        Some(near) => format!(" (did you mean `{near}`?)"),
        None => String::new(),
    };
    format!("unknown field{hint}; allowed: {}", allowed.join(", "))
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        steady: Steady,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Steady {
        failure_rate: f64,
    }

    #[test]
    fn unknown_field_names_the_key_and_its_line() {
        let text = "[steady]\nfailure_rate = 0.1\nfailur_rate = 0.2\n";
        let doc = Document::parse("s.toml", text).unwrap();
        let err = doc.deserialize::<Doc>().unwrap_err();
        assert_eq!(err.field.as_deref(), Some("steady.failur_rate"));
        assert_eq!(err.location, Some(Location { line: 3, col: 1 }));
        assert_eq!(
            err.message,
            "unknown field (did you mean `failure_rate`?); allowed: failure_rate"
        );
    }

    #[test]
    fn syntax_error_has_a_line() {
        let err = Document::parse("s.toml", "[steady\n").err().unwrap();
        assert_eq!(err.kind, InputErrorKind::Syntax);
        assert_eq!(err.location.map(|l| l.line), Some(1));
    }

    #[test]
    fn wrong_type_names_the_field() {
        let doc = Document::parse("s.toml", "[steady]\nfailure_rate = \"x\"\n").unwrap();
        let err = doc.deserialize::<Doc>().unwrap_err();
        assert_eq!(err.field.as_deref(), Some("steady.failure_rate"));
        assert_eq!(err.location.map(|l| l.line), Some(2));
    }

    #[test]
    fn set_overrides_and_creates_values() {
        let text = "[steady]\nfailure_rate = 0.1\n";
        let mut doc = Document::parse("s.toml", text).unwrap();
        doc.set("steady.failure_rate", "0").unwrap();
        let d: Doc = doc.deserialize().unwrap();
        assert_eq!(d.steady.failure_rate, 0.0);

        let mut doc = Document::parse("s.toml", "").unwrap();
        doc.set("steady.failure_rate", "0.25").unwrap();
        let d: Doc = doc.deserialize().unwrap();
        assert_eq!(d.steady.failure_rate, 0.25);
    }

    #[test]
    fn dotted_keys_split_as_toml_reads_them() {
        let ok = |k: &str| split_dotted_key(k).unwrap();
        assert_eq!(ok("steady.failure_rate"), ["steady", "failure_rate"]);
        assert_eq!(
            ok(r#"latency."openai/gpt-5.6-sol".p50_s"#),
            ["latency", "openai/gpt-5.6-sol", "p50_s"]
        );
        assert_eq!(
            ok("latency.'openai/gpt-5.6-sol'.p50_s"),
            ["latency", "openai/gpt-5.6-sol", "p50_s"]
        );
        assert_eq!(
            ok(r#" latency . "openai/gpt-5.6-sol" . p50_s "#),
            ["latency", "openai/gpt-5.6-sol", "p50_s"]
        );
        // an id without a dot needs no quotes; TOML's escapes work in double quotes only
        assert_eq!(
            ok("latency.openai/gpt-4o.p50_s"),
            ["latency", "openai/gpt-4o", "p50_s"]
        );
        assert_eq!(ok(r#""a\"b.c""#), [r#"a"b.c"#]);
        assert_eq!(ok(r"'a\b'"), [r"a\b"]);
        assert_eq!(ok(r#""""#), [""]);
        let expected = "expected a dotted key such as `steady.failure_rate` or `latency.\"openai/gpt-5.6-sol\".p50_s`";
        for (bad, why) in [
            ("", "; `` has an empty key"),
            ("a..b", "; `a..b` has an empty key"),
            ("a.", "; `a.` has an empty key"),
            (r#"a."b"#, r#"; `a."b` has an unterminated quote"#),
            (
                r#"a."b"c.d"#,
                r#"; in `a."b"c.d`, a quoted key must be followed by a dot or the end"#,
            ),
            (
                r#"a.b"c".d"#,
                r#"; in `a.b"c".d`, quote a whole key, from dot to dot"#,
            ),
            (r#""\q""#, r#"; "\q" is not a TOML string"#),
        ] {
            assert_eq!(
                split_dotted_key(bad),
                Err(ValueError::Invalid(format!("{expected}{why}"))),
                "{bad}"
            );
        }
    }

    #[test]
    fn paths_quote_keys_that_are_not_bare() {
        let path: Vec<PathSegment> = ["latency", "openai/gpt-5.6-sol", "p50_s", "a\"b\\c\u{7}", ""]
            .map(|k| PathSegment::Key(k.into()))
            .into();
        let s = path_string(&path);
        assert_eq!(
            s,
            r#"latency."openai/gpt-5.6-sol".p50_s."a\"b\\c\u0007"."""#
        );
        // what path_string prints, split_dotted_key reads back
        let back: Vec<PathSegment> = split_dotted_key(&s)
            .unwrap()
            .into_iter()
            .map(PathSegment::Key)
            .collect();
        assert_eq!(back, path);
    }

    #[test]
    fn set_reaches_keys_holding_dots() {
        #[derive(Debug, Deserialize)]
        struct Lat {
            latency: std::collections::BTreeMap<String, Steady>,
        }
        let text = "[latency.\"openai/gpt-5.6-sol\"]\nfailure_rate = 0.1\n";
        let mut doc = Document::parse("s.toml", text).unwrap();
        doc.set(r#"latency."openai/gpt-5.6-sol".failure_rate"#, "0.5")
            .unwrap();
        let d: Lat = doc.deserialize().unwrap();
        assert_eq!(d.latency.len(), 1);
        assert_eq!(d.latency["openai/gpt-5.6-sol"].failure_rate, 0.5);
        // unquoted, the id splits at its dot: the error says how to quote it
        let mut doc = Document::parse("s.toml", text).unwrap();
        doc.set("latency.openai/gpt-5.6-sol.failure_rate", "0.5")
            .unwrap();
        let e = doc.deserialize::<Lat>().unwrap_err();
        assert_eq!(e.file, "--set latency.openai/gpt-5.6-sol.failure_rate=0.5");
        assert_eq!(e.field.as_deref(), Some(r#"latency."openai/gpt-5".6-sol"#));
        assert!(
            e.message.ends_with(
                r#"; quote a key holding a dot: latency."openai/gpt-5.6-sol".failure_rate (in s.toml)"#
            ),
            "{}",
            e.message
        );
    }

    /// An error about a chain's value that `--set chain.NAME.FIELD` gave names that `--set`,
    /// not the file's line (the error's path has the element's index, the override its name).
    #[test]
    fn an_error_in_a_named_chains_set_value_names_the_set() {
        let text = "# a comment\n[[chain]]\nname = \"a\"\nmodels = [\"x\"]\n\n[[chain]]\nname = \"b\"\nmodels = [\"y\"]\n";
        let mut doc = Document::parse("s.toml", text).unwrap();
        doc.set("chain.b.models", r#"["y", "nope"]"#).unwrap();
        let at = [
            PathSegment::Key("chain".into()),
            PathSegment::Index(1),
            PathSegment::Key("models".into()),
            PathSegment::Index(1),
        ];
        let e = doc.error_at(InputErrorKind::Invalid, &at, "unknown model `nope`");
        assert_eq!(e.file, r#"--set chain.b.models=["y", "nope"]"#);
        assert_eq!(e.location, None);
        assert_eq!(e.field.as_deref(), Some("chain[1].models[1]"));
        assert_eq!(e.message, "unknown model `nope` (in s.toml)");
        // chain a, untouched, is still the file's
        let a = [
            PathSegment::Key("chain".into()),
            PathSegment::Index(0),
            PathSegment::Key("models".into()),
        ];
        let e = doc.error_at(InputErrorKind::Invalid, &a, "bad");
        assert_eq!(e.file, "s.toml");
        assert_eq!(e.location.map(|l| l.line), Some(4));
    }

    #[test]
    fn locate_finds_array_elements() {
        let text = "[[chain]]\nmodels = [\"a\", \"b\"]\n";
        let doc = Document::parse("s.toml", text).unwrap();
        let path = [
            PathSegment::Key("chain".into()),
            PathSegment::Index(0),
            PathSegment::Key("models".into()),
            PathSegment::Index(1),
        ];
        assert_eq!(doc.locate(&path), Some(Location { line: 2, col: 16 }));
        assert_eq!(path_string(&path), "chain[0].models[1]");
    }
}
