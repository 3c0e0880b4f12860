//! `fallcost calibrate`: measure a scenario from request logs.
//!
//! Four input formats, recognised by content ([`detect`]; others refused by name):
//! - OpenTelemetry GenAI spans as OTLP/JSON ([`otlp`]): one `ExportTraceServiceRequest` per
//!   line (the collector's file exporter) or one document, in the attribute names of the
//!   GenAI semconv before and after 1.37, OpenLLMetry, OpenInference and LiteLLM's OTel
//!   callback; the spans of a trace, in start order, are one request up to the first that
//!   succeeds (the rest of the trace, as in an agent's, are further requests), and their
//!   order is its chain. Only LLM calls are attempts ([`fields::left_out_span`]);
//! - LiteLLM spend logs (`LiteLLM_SpendLogs` rows) as CSV, a JSON array, a `/spend/logs` page
//!   or JSON lines ([`litellm`]);
//! - Langfuse observations as an API page, a JSON array or JSON lines ([`langfuse`]);
//! - a plain CSV with documented columns ([`plain`]).
//!
//! Every reader streams its file and hands each attempt to an [`Aggregator`], which keeps only
//! sums and fixed-size histograms per model ([`stats`]), plus a bounded buffer of the requests
//! still open (spans of one trace arriving in different lines) and one counter per session id.
//! [`mod@write`] turns the result into a scenario TOML that `fallcost compare` runs as is, every
//! figure commented with its count and 95% interval.
//!
//! Private by construction: the readers declare only the fields they measure. Prompt,
//! completion and message attributes (`gen_ai.prompt`, `gen_ai.input.messages`, span events,
//! LiteLLM's `messages` and `response` columns) are skipped by the JSON and CSV parsers without
//! being decoded into a value, so they cannot reach an output.

pub mod agg;
pub mod array;
pub mod cache;
pub mod fields;
pub mod langfuse;
pub mod lines;
pub mod litellm;
pub mod otlp;
pub mod plain;
pub mod stats;
pub mod write;

use crate::error::ValueError;
use std::io::{BufRead, Read};
use std::path::Path;

pub use agg::{
    Aggregator, BAD_SHOWN, BadRecord, ChainStats, LinkStats, LoggedAttempt, ModelStats, class_index,
};
pub use fields::{classify, classify_word, hash_id, looks_like_ms, parse_time_ns, provider_prefix};

/// The format of a request log, as recognised by its content or named by `--input-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// OTLP/JSON trace export with GenAI attributes.
    Otlp,
    /// LiteLLM spend logs exported as CSV.
    LiteLlmCsv,
    /// LiteLLM spend logs as a JSON array or JSON lines.
    LiteLlmJson,
    /// The plain CSV of [`plain`].
    Plain,
    /// Langfuse observations ([`langfuse`]): an API page, a JSON array or JSON lines.
    Langfuse,
}

impl LogFormat {
    /// The name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::Otlp => "otlp",
            LogFormat::LiteLlmCsv => "litellm (csv)",
            LogFormat::LiteLlmJson => "litellm (json)",
            LogFormat::Plain => "csv",
            LogFormat::Langfuse => "langfuse",
        }
    }
}

/// Formats recognised by their first bytes and refused by name, with what to export instead.
const REFUSED_MAGIC: &[(&[u8], &str)] = &[
    (
        &[0x28, 0xB5, 0x2F, 0xFD],
        "this is zstd-compressed; fallcost reads plain or gzip files: decompress it (`zstd -d FILE`) or recompress it with gzip",
    ),
    (
        b"PAR1",
        "this looks like Parquet; export the rows as CSV or JSON lines",
    ),
    (
        b"BZh",
        "this is bzip2-compressed; fallcost reads plain or gzip files: decompress it (`bunzip2`)",
    ),
    (
        &[0xFD, b'7', b'z', b'X', b'Z', 0x00],
        "this is xz-compressed; fallcost reads plain or gzip files: decompress it (`xz -d`)",
    ),
    (
        b"PK\x03\x04",
        "this is a zip archive; unzip it and give the log files inside",
    ),
];

/// Recognise the format of a file from its first bytes (`head`, up to 64 KiB).
///
/// Errors: a text that is none of the formats read, with what each starts with; a format that
/// is not read, by name, with what to export instead (zstd, Parquet, OTLP protobuf, OTLP logs
/// or metrics, Jaeger or Zipkin JSON).
pub fn detect(head: &[u8]) -> Result<LogFormat, ValueError> {
    for (magic, why) in REFUSED_MAGIC {
        if head.starts_with(magic) {
            return Err(ValueError::Invalid((*why).into()));
        }
    }
    let text = String::from_utf8_lossy(head);
    if std::str::from_utf8(head).is_err()
        && text.matches('\u{fffd}').count() * 10 > text.len().min(4096) / 4
    {
        return Err(ValueError::Invalid("this is binary, not text (OTLP protobuf?); export OTLP as JSON (the collector's file exporter writes OTLP/JSON lines)".into()));
    }
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        if t.contains("\"resourceSpans\"") {
            return Ok(LogFormat::Otlp);
        }
        if t.contains("\"resourceLogs\"") || t.contains("\"resourceMetrics\"") {
            return Err(ValueError::Invalid("this looks like OTLP logs or metrics, not traces; export the traces (resourceSpans) as OTLP/JSON".into()));
        }
        if t.contains("\"traceID\"") && t.contains("\"processes\"") {
            return Err(ValueError::Invalid("this looks like Jaeger's JSON (traceID, spans, processes); export the spans as OTLP/JSON (Jaeger's /api/v3 or the collector's file exporter)".into()));
        }
        if t.contains("\"localEndpoint\"") && t.contains("\"traceId\"") {
            return Err(ValueError::Invalid("this looks like Zipkin v2 JSON; export the spans as OTLP/JSON (the collector's zipkin receiver and file exporter)".into()));
        }
        if t.contains("\"GENERATION\"")
            || (t.contains("\"traceId\"") && t.contains("\"usageDetails\""))
        {
            return Ok(LogFormat::Langfuse);
        }
        if t.contains("\"startTime\"") || t.contains("\"request_id\"") {
            return Ok(LogFormat::LiteLlmJson);
        }
        return Err(ValueError::Invalid(
            "JSON without `resourceSpans` (OTLP), `startTime`/`request_id` (LiteLLM spend logs) or `type: GENERATION` (Langfuse observations)"
                .into(),
        ));
    }
    let header = t.lines().next().unwrap_or("");
    let cols: Vec<&str> = header
        .split(',')
        .map(|c| c.trim().trim_matches('"'))
        .collect();
    let has = |c: &str| cols.contains(&c);
    if has("startTime") || (has("request_id") && has("call_type")) {
        return Ok(LogFormat::LiteLlmCsv);
    }
    if has("model") && has("duration_s") && has("status") {
        return Ok(LogFormat::Plain);
    }
    Err(ValueError::Invalid("not OTLP/JSON (`resourceSpans`), LiteLLM spend logs (a `startTime` column or key), Langfuse observations (`type: GENERATION`) or the plain CSV (columns model, start, duration_s, status)".into()))
}

/// How a run reads its files.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Force this format instead of recognising it.
    pub format: Option<LogFormat>,
    /// Show a progress bar (the caller decides: standard error is a terminal).
    pub progress: bool,
}

/// One file's result.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The file as given.
    pub file: String,
    /// Its format.
    pub format: LogFormat,
    /// Records read.
    pub records: u64,
    /// Unreadable records.
    pub bad: u64,
    /// Bytes read (compressed bytes for a gzip file).
    pub bytes: u64,
    /// Whether the file is gzip-compressed.
    pub gzip: bool,
    /// The earlier file this one repeats (same size and first MiB): then it is not read.
    pub duplicate_of: Option<String>,
}

/// A reader over a file that counts the bytes it hands out (for the progress bar and the
/// throughput line).
pub struct Counting<R> {
    inner: R,
    /// Bytes read so far.
    pub bytes: u64,
    bar: Option<indicatif::ProgressBar>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        if let Some(b) = &self.bar {
            b.inc(n as u64);
        }
        Ok(n)
    }
}

use crate::error::{InputError, InputErrorKind};

/// An error at line `line` of `file` in field `field` (exit 2).
pub fn error_at(file: &str, line: u64, field: &str, message: &str) -> InputError {
    InputError {
        file: file.to_string(),
        location: Some(crate::error::Location {
            line: usize::try_from(line).unwrap_or(usize::MAX),
            col: 1,
        }),
        field: Some(field.to_string()),
        message: message.to_string(),
        kind: InputErrorKind::Invalid,
    }
}

fn read_error(label: &str, e: &std::io::Error) -> InputError {
    let message = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => format!("cannot read: {e}"),
    };
    InputError::file(InputErrorKind::Read, label, message)
}

/// The gzip magic bytes (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Open `path`, decompressing it when it starts with the gzip magic bytes (flate2's
/// `MultiGzDecoder`, which reads concatenated members as `gzip -c a b` writes them).
fn open_source(
    path: &Path,
    label: &str,
    bar: Option<indicatif::ProgressBar>,
) -> Result<(Box<dyn Read>, bool), InputError> {
    if path.is_dir() {
        return Err(InputError::file(
            InputErrorKind::Read,
            label,
            "is a directory; expected a log file",
        ));
    }
    let mut magic = [0u8; 2];
    let gzip = std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == GZIP_MAGIC;
    let file = std::fs::File::open(path).map_err(|e| read_error(label, &e))?;
    let counting = Counting {
        inner: file,
        bytes: 0,
        bar,
    };
    Ok(if gzip {
        (Box::new(flate2::read::MultiGzDecoder::new(counting)), true)
    } else {
        (Box::new(counting), false)
    })
}

/// The first `n` bytes of the (decompressed) file.
fn head(path: &Path, label: &str, n: u64) -> Result<Vec<u8>, InputError> {
    let (src, gzip) = open_source(path, label, None)?;
    let mut head = Vec::with_capacity(n as usize);
    match src.take(n).read_to_end(&mut head) {
        Ok(_) => Ok(head),
        // A gzip file cut short still has a head to recognise.
        Err(_) if gzip && !head.is_empty() => Ok(head),
        Err(e) => Err(InputError::file(
            InputErrorKind::Read,
            label,
            format!("cannot read{}: {e}", if gzip { " (gzip)" } else { "" }),
        )),
    }
}

/// The format of `path`: `forced`, or recognised by content ([`detect`]).
fn format_of(path: &Path, label: &str, forced: Option<LogFormat>) -> Result<LogFormat, InputError> {
    // A compressed or binary format fallcost does not read is refused by name, forced or not.
    let magic = head(path, label, 8)?;
    if let Some((_, why)) = REFUSED_MAGIC.iter().find(|(m, _)| magic.starts_with(m)) {
        return Err(InputError::file(InputErrorKind::Schema, label, *why));
    }
    match forced {
        Some(LogFormat::LiteLlmCsv | LogFormat::LiteLlmJson) => {
            // LiteLLM's exports come as CSV or JSON: told apart by the first character.
            let head = head(path, label, 4096)?;
            let t = String::from_utf8_lossy(&head);
            let t = t.trim_start_matches('\u{feff}').trim_start();
            Ok(if t.starts_with('{') || t.starts_with('[') {
                LogFormat::LiteLlmJson
            } else {
                LogFormat::LiteLlmCsv
            })
        }
        Some(f) => Ok(f),
        None => detect(&head(path, label, 65_536)?).map_err(|m| {
            InputError::file(
                InputErrorKind::Schema,
                label,
                format!("{m}; name the format with --input-format otlp|litellm|langfuse|csv"),
            )
        }),
    }
}

/// A file's identity for finding a file given twice: its size and a hash of its first MiB.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::hash::{Hash, Hasher};
    let f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut first = Vec::new();
    f.take(1 << 20).read_to_end(&mut first).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    first.hash(&mut h);
    Some((len, h.finish()))
}

fn progress_bar(path: &Path, label: &str) -> indicatif::ProgressBar {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let b = indicatif::ProgressBar::new(len);
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    b.set_message(label.to_string());
    b
}

/// Counts the bytes read through it, for the throughput line (`Counting` sits under the
/// gzip decoder, where it cannot be reached).
struct Tally<R> {
    inner: R,
    bytes: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Tally<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }
}

/// Read one file into `agg`; its report.
fn read_one(
    path: &Path,
    label: &str,
    options: &ReadOptions,
    agg: &mut Aggregator,
) -> Result<FileReport, InputError> {
    let format = format_of(path, label, options.format)?;
    let bar = options.progress.then(|| progress_bar(path, label));
    let (src, gzip) = open_source(path, label, bar.clone())?;
    let bytes = std::rc::Rc::new(std::cell::Cell::new(0));
    let tally = Tally {
        inner: src,
        bytes: bytes.clone(),
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, tally);
    let (records0, bad0) = (agg.records, agg.bad_count);
    match format {
        LogFormat::Otlp => otlp::read(label, &mut reader, agg)?,
        LogFormat::LiteLlmCsv => litellm::read_csv(label, &mut reader, agg)?,
        LogFormat::LiteLlmJson => litellm::read_json(label, &mut reader, agg)?,
        LogFormat::Plain => plain::read(label, &mut reader, agg)?,
        LogFormat::Langfuse => langfuse::read(label, &mut reader, agg)?,
    }
    agg.close_all();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let on_disk = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok(FileReport {
        file: label.to_string(),
        format,
        records: agg.records - records0,
        bad: agg.bad_count - bad0,
        bytes: if gzip { on_disk } else { bytes.get() },
        gzip,
        duplicate_of: None,
    })
}

/// Read every file into `agg` (a file given twice, or two files of the same size and first
/// MiB, is read once and reported).
///
/// Errors (exit 2): a file that cannot be opened, whose format is not recognised, or of which
/// no record is readable (its bad records are named).
pub fn read_files(
    paths: &[&Path],
    options: &ReadOptions,
    agg: &mut Aggregator,
) -> Result<Vec<FileReport>, InputError> {
    let mut reports: Vec<FileReport> = Vec::new();
    let mut seen: Vec<((u64, u64), String)> = Vec::new();
    for path in paths {
        let label = path.display().to_string();
        let id = identity(path);
        if let Some((_, first)) = id.and_then(|id| seen.iter().find(|(i, _)| *i == id)) {
            let format = format_of(path, &label, options.format)?;
            reports.push(FileReport {
                file: label,
                format,
                records: 0,
                bad: 0,
                bytes: 0,
                gzip: false,
                duplicate_of: Some(first.clone()),
            });
            continue;
        }
        let report = read_one(path, &label, options, agg)?;
        if report.records == 0 {
            let first = agg
                .bad
                .iter()
                .find(|b| b.file == label)
                .map(|b| format!("; line {}: {}", b.line, b.message))
                .unwrap_or_default();
            return Err(InputError::file(
                InputErrorKind::Schema,
                label,
                format!(
                    "no readable {} record ({} unreadable){first}",
                    report.format.as_str(),
                    report.bad
                ),
            ));
        }
        if let Some(id) = id {
            seen.push((id, label));
        }
        reports.push(report);
    }
    agg.end_input();
    Ok(reports)
}

/// Read `reader` line by line, calling `each(line_number, bytes)` with the line's bytes
/// (without the newline). Lines are read into one reused buffer.
pub fn for_each_line<R: BufRead>(
    reader: &mut R,
    each: impl FnMut(u64, &[u8]),
) -> std::io::Result<()> {
    for_each_line_from(reader, 1, each)
}

/// [`for_each_line`] of a reader whose next line is line `first` of the file.
///
/// Errors: an I/O failure.
pub fn for_each_line_from<R: BufRead>(
    reader: &mut R,
    first: u64,
    mut each: impl FnMut(u64, &[u8]),
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    let mut line = first.saturating_sub(1);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        line += 1;
        let mut s: &[u8] = &buf;
        if line == 1 {
            s = s.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(s);
        }
        while let [rest @ .., b'\n' | b'\r'] = s {
            s = rest;
        }
        each(line, s);
    }
}

/// What is wrong with a CSV record, without its text.
pub fn csv_problem(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "CSV: a field that is not UTF-8".into(),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("CSV: {len} fields where the header has {expected_len}")
        }
        _ => format!("CSV: {e}"),
    }
}

/// Where a CSV file's records started: for [`quote_check`].
#[derive(Debug, Default)]
pub struct RecordLines {
    /// Records read (the header not counted).
    pub records: u64,
    last: u64,
    /// The first record that ran over several lines.
    pub first_multiline: Option<u64>,
}

impl RecordLines {
    /// Note a record starting on `line`.
    pub fn record(&mut self, line: u64) {
        if self.records > 0 && line > self.last + 1 && self.first_multiline.is_none() {
            self.first_multiline = Some(self.last);
        }
        self.records += 1;
        self.last = line;
    }
}

/// After a CSV file: an odd number of `"` is a quote left open, which swallows the lines
/// after it into one field. The lines that started no record (read inside quoted fields) are
/// counted as unreadable, named by the first record that ran over several lines.
pub fn quote_check<R>(
    label: &str,
    lines: &lines::LineCounter<R>,
    records: &RecordLines,
    agg: &mut Aggregator,
) {
    if !lines.unbalanced_quote() {
        return;
    }
    let inside = lines
        .lines_read()
        .saturating_sub(1 + records.records)
        .max(1);
    let at = records.first_multiline.unwrap_or(records.last);
    agg.bad(
        label,
        at,
        format!(
            "an unbalanced quote: a quoted field opened here or later is not closed; {inside} line(s) were read inside quoted fields instead of as rows (close the quote)"
        ),
    );
    agg.bad_count += inside - 1;
}

/// What is wrong with a JSON record, without any of its text: serde_json's messages quote
/// the values they reject (`invalid type: string "…"`), which could be a prompt.
pub fn json_problem(e: &serde_json::Error) -> String {
    let what = match e.classify() {
        serde_json::error::Category::Syntax => "JSON syntax error",
        serde_json::error::Category::Eof => "truncated JSON",
        serde_json::error::Category::Data => "a field of an unexpected type",
        serde_json::error::Category::Io => "read error",
    };
    format!("{what} at column {}", e.column())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::ErrorClass;

    #[test]
    fn classes_from_codes_and_types() {
        assert_eq!(classify(Some(429), None), ErrorClass::RateLimit);
        assert_eq!(classify(Some(529), None), ErrorClass::Overload);
        assert_eq!(
            classify(Some(503), Some("overloaded_error")),
            ErrorClass::Overload
        );
        assert_eq!(classify(Some(502), None), ErrorClass::ServerError);
        assert_eq!(classify(Some(401), None), ErrorClass::Client);
        assert_eq!(classify(Some(402), None), ErrorClass::Quota);
        assert_eq!(classify(None, Some("429")), ErrorClass::RateLimit);
        assert_eq!(classify(None, Some("timeout")), ErrorClass::Timeout);
        assert_eq!(
            classify(None, Some("openai.APITimeoutError")),
            ErrorClass::Timeout
        );
        assert_eq!(
            classify(None, Some("RateLimitError")),
            ErrorClass::RateLimit
        );
        assert_eq!(
            classify(None, Some("insufficient_quota")),
            ErrorClass::Quota
        );
        assert_eq!(classify(None, Some("BadRequestError")), ErrorClass::Client);
        assert_eq!(classify(None, Some("_OTHER")), ErrorClass::ServerError);
    }

    #[test]
    fn iso_times() {
        assert_eq!(parse_time_ns("1970-01-01T00:00:01Z"), Some(1_000_000_000));
        assert_eq!(
            parse_time_ns("2026-07-18T10:00:00.5Z"),
            Some(1_784_368_800_500_000_000)
        );
        assert_eq!(
            parse_time_ns("2026-07-18 12:00:00.5+02:00"),
            parse_time_ns("2026-07-18T10:00:00.5Z")
        );
        assert_eq!(parse_time_ns("1.5"), Some(1_500_000_000));
        assert_eq!(parse_time_ns("yesterday"), None);
        // Past 2262 a time does not fit i64 nanoseconds: unreadable, never wrapped.
        assert_eq!(
            parse_time_ns("2262-04-11T23:47:16Z"),
            Some(9_223_372_036_000_000_000)
        );
        assert_eq!(parse_time_ns("2263-01-01T00:00:00Z"), None);
        assert_eq!(parse_time_ns("9999-12-31T23:59:59Z"), None);
        assert_eq!(parse_time_ns("2026-07-18T10:00:00+99:00"), None);
        assert_eq!(parse_time_ns("2026-07-18T10:00:00+1\u{e9}2"), None);
        assert!(looks_like_ms("1784368800250"));
        assert!(!looks_like_ms("1784368800.25"));
    }

    #[test]
    fn formats_by_content() {
        assert_eq!(detect(br#"{"resourceSpans":[]}"#), Ok(LogFormat::Otlp));
        assert_eq!(
            detect(br#"[{"request_id":"a","startTime":"x"}]"#),
            Ok(LogFormat::LiteLlmJson)
        );
        assert_eq!(
            detect(b"request_id,call_type,startTime\n"),
            Ok(LogFormat::LiteLlmCsv)
        );
        assert_eq!(
            detect(b"request_id,model,start,duration_s,status\n"),
            Ok(LogFormat::Plain)
        );
        assert!(detect(b"hello").is_err());
    }
}
