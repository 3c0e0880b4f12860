//! The plain CSV, for logs from anything else: one row per attempt, with a header naming the
//! columns (any order; unknown columns are ignored):
//!
//! | column | required | meaning |
//! |---|---|---|
//! | `model` | yes | `provider/model`, as the price table names it |
//! | `start` | yes | start time: Unix seconds (`1784368800.25`) or ISO 8601 |
//! | `duration_s` | yes | seconds until the answer or the error |
//! | `status` | yes | `ok` / `success` / `200`; or a failure: an HTTP status >= 400, `error`, or a class name (`rate_limit`, `overload`, `server_error`, `timeout`, `client`, `quota`) |
//! | `error_type` | no | the error's type (`RateLimitError`, `timeout`, `529`), classified as `error.type` is |
//! | `request_id` | no | attempts with the same id are one request, their start order its chain |
//! | `input_tokens` | no | input tokens, cached ones included |
//! | `cache_read_tokens`, `cache_write_tokens` | no | input tokens read from / written to the cache |
//! | `output_tokens` | no | output tokens |
//! | `session_id` | no | a conversation or session id |
//!
//! Errors about a row name its line and column, never its values (a shifted prompt column
//! could land in any of them).

use crate::error::ValueError;
use std::io::BufRead;

use super::lines::LineCounter;
use super::{Aggregator, LoggedAttempt, classify, hash_id, looks_like_ms, parse_time_ns};
use crate::error::{InputError, InputErrorKind};
use crate::model::policy::ErrorClass;

/// The columns' positions in the header.
struct Columns {
    model: usize,
    start: usize,
    duration: usize,
    status: usize,
    /// error_type, request_id, input_tokens, cache_read_tokens, cache_write_tokens,
    /// output_tokens, session_id.
    optional: [Option<usize>; 7],
}

impl Columns {
    fn of(label: &str, headers: &csv::StringRecord) -> Result<Columns, InputError> {
        let col = |name: &str| headers.iter().position(|h| h == name);
        let need = |name: &str| {
            col(name).ok_or_else(|| {
                InputError::file(
                    InputErrorKind::Schema,
                    label,
                    format!("the plain CSV needs a `{name}` column; required: model, start, duration_s, status"),
                )
            })
        };
        Ok(Columns {
            model: need("model")?,
            start: need("start")?,
            duration: need("duration_s")?,
            status: need("status")?,
            optional: [
                "error_type",
                "request_id",
                "input_tokens",
                "cache_read_tokens",
                "cache_write_tokens",
                "output_tokens",
                "session_id",
            ]
            .map(col),
        })
    }
}

/// One row, read: the attempt, its request id and session id (hashed).
type Row = (LoggedAttempt, Option<u64>, Option<u64>);

/// The failure a `status` (and `error_type`) names; `None` for a success.
fn failure(status: &str, error_type: Option<&str>) -> Result<Option<ErrorClass>, ValueError> {
    Ok(match status.to_ascii_lowercase().as_str() {
        "ok" | "success" => None,
        "error" | "failure" | "failed" => Some(classify(None, error_type)),
        s => match s.parse::<i64>() {
            Ok(c) if c < 400 => None,
            Ok(c) => Some(classify(Some(c), error_type)),
            Err(_) => Some(
                ErrorClass::ALL
                    .into_iter()
                    .find(|c| c.as_str() == s)
                    .ok_or_else(|| ValueError::Invalid("`status` is not ok, success, an HTTP status, error or an error class (rate_limit, overload, server_error, timeout, client, quota)".to_string()))?,
            ),
        },
    })
}

/// Read one record: Err(message) for an unreadable row. A token count that is not a whole
/// number is dropped (read as absent) and named in `dropped`; the row is kept.
fn parse_row(
    rec: &csv::StringRecord,
    c: &Columns,
    agg: &mut Aggregator,
    dropped: &mut Vec<&'static str>,
) -> Result<Row, ValueError> {
    let get = |i: Option<usize>| i.and_then(|i| rec.get(i)).filter(|s| !s.is_empty());
    let mut tokens = |i: Option<usize>, what: &'static str| -> Result<Option<u64>, ValueError> {
        Ok(get(i).and_then(|s| {
            let n = s.parse::<u64>().ok();
            if n.is_none() {
                dropped.push(what);
            }
            n
        }))
    };
    let [c_err, c_req, c_in, c_read, c_write, c_out, c_sess] = c.optional;
    let invalid = |m: &str| ValueError::Invalid(m.to_string());
    let model = get(Some(c.model)).ok_or_else(|| invalid("empty `model`"))?;
    let start = get(Some(c.start)).and_then(parse_time_ns).ok_or_else(|| {
        invalid(
            "`start` is not Unix seconds (before the year 5138) or an ISO 8601 time before 2262",
        )
    })?;
    let duration_s = get(Some(c.duration))
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d >= 0.0)
        .ok_or_else(|| invalid("`duration_s` is not a number of seconds >= 0"))?;
    let status = get(Some(c.status)).ok_or_else(|| invalid("empty `status`"))?;
    let failure = failure(status, get(c_err))?;
    let attempt = LoggedAttempt {
        model: 0,
        start_ns: start,
        duration_s,
        failure,
        input_tokens: tokens(c_in, "input_tokens")?,
        cache_read: tokens(c_read, "cache_read_tokens")?,
        cache_write: tokens(c_write, "cache_write_tokens")?,
        output_tokens: tokens(c_out, "output_tokens")?,
    };
    let m = agg.model(None, model);
    Ok((
        LoggedAttempt {
            model: m,
            ..attempt
        },
        get(c_req).map(hash_id),
        get(c_sess).map(hash_id),
    ))
}

/// A hash of a record's fields: a row repeated whole is counted once.
fn row_id(rec: &csv::StringRecord) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in rec {
        f.hash(&mut h);
    }
    h.finish()
}

/// Read the record `rec` at `line` into `agg` (an unreadable one counted there); `false` when
/// its `start` looks like milliseconds or microseconds (left out as unreadable).
fn one_record(
    label: &str,
    line: u64,
    rec: &csv::StringRecord,
    cols: &Columns,
    agg: &mut Aggregator,
) -> bool {
    if let Some(s) = rec.get(cols.start)
        && looks_like_ms(s)
    {
        agg.bad(
            label,
            line,
            "`start` is a Unix time after the year 5138 in seconds (milliseconds or microseconds?): left out",
        );
        return false;
    }
    let mut dropped = Vec::new();
    let parsed = parse_row(rec, cols, agg, &mut dropped);
    if !dropped.is_empty() && parsed.is_ok() {
        agg.bad_field(
            label,
            line,
            format!(
                "{} not a whole number of tokens (>= 0): the field is dropped",
                dropped.join(", ")
            ),
        );
    }
    match parsed {
        Ok((a, req, session)) => {
            if agg.accept(label, line, &a, Some(row_id(rec))) {
                let key = req.unwrap_or_else(|| hash_id(&format!("{label}:{line}")));
                agg.open_attempt(key, &a, session);
            }
        }
        Err(m) => agg.bad(label, line, m),
    }
    true
}

/// Read the plain CSV into `agg`.
///
/// Errors: an I/O failure, no header, or a header without the required columns; every
/// `start` in milliseconds (unreadable rows, one stray such start among them, are counted).
pub fn read<R: BufRead>(
    label: &str,
    reader: &mut R,
    agg: &mut Aggregator,
) -> Result<(), InputError> {
    let mut csv = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(LineCounter::new(reader));
    let headers = csv
        .headers()
        .map_err(|e| InputError::file(InputErrorKind::Syntax, label, format!("CSV header: {e}")))?
        .clone();
    let cols = Columns::of(label, &headers)?;
    let mut rec = csv::StringRecord::new();
    let mut starts = super::RecordLines::default();
    let (mut suspect, mut first_suspect) = (0u64, 0u64);
    let records0 = agg.records;
    loop {
        match csv.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                let line = rec
                    .position()
                    .map_or(0, |p| csv.get_mut().line_at(p.byte()));
                starts.record(line);
                if !one_record(label, line, &rec, &cols, agg) {
                    // One stray time is one unreadable row; a file of them is refused below.
                    if suspect == 0 {
                        first_suspect = line;
                    }
                    suspect += 1;
                }
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| csv.get_mut().line_at(p.byte()));
                agg.bad(label, line, super::csv_problem(&e));
                if !matches!(
                    e.kind(),
                    csv::ErrorKind::UnequalLengths { .. } | csv::ErrorKind::Utf8 { .. }
                ) {
                    break;
                }
            }
        }
    }
    super::quote_check(label, csv.get_ref(), &starts, agg);
    if suspect > 0 && suspect >= agg.records - records0 {
        return Err(super::error_at(
            label,
            first_suspect,
            "start",
            &format!(
                "{suspect} rows start after the year 5138 in Unix seconds (as many as the rows read): the log's times look like milliseconds or microseconds; give seconds (`1784368800.25`) or ISO 8601"
            ),
        ));
    }
    Ok(())
}
