//! `fallcost calibrate`: measure a scenario from request logs.
//!
//! Three input formats, recognised by content ([`detect`]):
//! - OpenTelemetry GenAI spans as OTLP/JSON ([`otlp`]): one `ExportTraceServiceRequest` per
//!   line (the collector's file exporter) or one document; the spans of a trace, in start
//!   order, are one request up to the first that succeeds (the rest of the trace, as in an
//!   agent's, are further requests), and their order is its chain;
//! - LiteLLM spend logs (`LiteLLM_SpendLogs` rows) as CSV, a JSON array or JSON lines
//!   ([`litellm`]);
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

pub mod lines;
pub mod litellm;
pub mod otlp;
pub mod plain;
pub mod stats;
pub mod write;

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::io::{BufRead, Read};
use std::path::Path;

use crate::model::policy::ErrorClass;
use stats::{LogHist, Mean, Ratio};

/// How many unreadable records are listed by file and line; the rest are only counted.
pub const BAD_SHOWN: usize = 5;

/// Requests kept open waiting for more of their spans; past this the oldest is closed.
const OPEN_REQUESTS: usize = 1 << 16;

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
}

impl LogFormat {
    /// The name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::Otlp => "otlp",
            LogFormat::LiteLlmCsv => "litellm (csv)",
            LogFormat::LiteLlmJson => "litellm (json)",
            LogFormat::Plain => "csv",
        }
    }
}

/// Recognise the format of a file from its first bytes (`head`, up to 64 KiB).
///
/// Errors: a text that is none of the three, with what each starts with.
pub fn detect(head: &[u8]) -> Result<LogFormat, String> {
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        if t.contains("\"resourceSpans\"") {
            return Ok(LogFormat::Otlp);
        }
        if t.contains("\"startTime\"") || t.contains("\"request_id\"") {
            return Ok(LogFormat::LiteLlmJson);
        }
        return Err(
            "JSON without `resourceSpans` (OTLP) or `startTime`/`request_id` (LiteLLM spend logs)"
                .into(),
        );
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
    Err("not OTLP/JSON (`resourceSpans`), LiteLLM spend logs (a `startTime` column or key) or the plain CSV (columns model, start, duration_s, status)".into())
}

/// Map a status code and an `error.type` (or LiteLLM `error_class`) onto the error classes
/// of `failover_on` (MODEL.md §8). Codes first: 429 rate limit; 529 overload; 408 timeout;
/// 402 quota; other 4xx client; 5xx server error. Then words in the type, case-insensitively:
/// `timeout`/`deadline` timeout, `rate`+`limit` or `throttl` rate limit, `overload` overload,
/// `quota`/`billing`/`budget`/`insufficient` quota, `badrequest`/`invalid`/`auth`/`permission`/
/// `notfound`/`unprocessable`/`contextwindow`/`contentpolicy` client. Anything else
/// (`_OTHER`, an exception name) is a server error, as the provider's fault.
pub fn classify(code: Option<i64>, error_type: Option<&str>) -> ErrorClass {
    let code = code.or_else(|| {
        error_type
            .and_then(|t| t.trim().parse::<i64>().ok())
            .filter(|c| (100..=599).contains(c))
    });
    if let Some(c) = code {
        match c {
            429 => return ErrorClass::RateLimit,
            529 => return ErrorClass::Overload,
            408 => return ErrorClass::Timeout,
            402 => return ErrorClass::Quota,
            400..=499 => return ErrorClass::Client,
            500..=599 => {
                // A 5xx with a more specific type (503 "overloaded") keeps the type's class.
                if let Some(t) = error_type
                    && let Some(class) = classify_word(t)
                {
                    return class;
                }
                return ErrorClass::ServerError;
            }
            _ => {}
        }
    }
    error_type
        .and_then(classify_word)
        .unwrap_or(ErrorClass::ServerError)
}

fn classify_word(t: &str) -> Option<ErrorClass> {
    let w: String = t
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let any = |words: &[&str]| words.iter().any(|x| w.contains(x));
    if any(&["timeout", "timedout", "deadline"]) {
        Some(ErrorClass::Timeout)
    } else if any(&["ratelimit", "throttl", "toomanyrequests"]) {
        Some(ErrorClass::RateLimit)
    } else if any(&["overload"]) {
        Some(ErrorClass::Overload)
    } else if any(&["quota", "billing", "budget", "insufficient"]) {
        Some(ErrorClass::Quota)
    } else if any(&[
        "badrequest",
        "invalid",
        "auth",
        "permission",
        "notfound",
        "unprocessable",
        "contextwindow",
        "contentpolicy",
    ]) {
        Some(ErrorClass::Client)
    } else if any(&["servererror", "internal", "unavailable", "badgateway"]) {
        Some(ErrorClass::ServerError)
    } else {
        None
    }
}

/// The price-table provider for an OpenTelemetry `gen_ai.provider.name` (or `gen_ai.system`)
/// value: the LiteLLM-style prefix (`aws.bedrock` → `bedrock`, `gcp.vertex_ai` → `vertex_ai`,
/// `azure.ai.openai` → `azure`, `mistral_ai` → `mistral`, `x_ai` → `xai`); others as given.
pub fn provider_prefix(name: &str) -> &str {
    match name {
        "aws.bedrock" => "bedrock",
        "gcp.vertex_ai" => "vertex_ai",
        "gcp.gemini" | "gcp.gen_ai" => "gemini",
        "azure.ai.openai" | "az.ai.openai" => "azure",
        "azure.ai.inference" | "az.ai.inference" => "azure_ai",
        "mistral_ai" => "mistral",
        "x_ai" => "xai",
        "ibm.watsonx.ai" => "watsonx",
        other => other,
    }
}

/// A stable 64-bit hash of an id (trace, request or session id); ids themselves are not kept.
pub fn hash_id(id: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// Seconds since the Unix epoch of an ISO 8601 time (`2026-07-18T10:00:00.123Z`,
/// `2026-07-18 10:00:00.123456+00:00`, no offset meaning UTC), or of a plain number of
/// seconds, in nanoseconds.
pub fn parse_time_ns(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(x) = t.parse::<f64>() {
        return (x.is_finite() && x.abs() < 1e11).then(|| (x * 1e9).round() as i64);
    }
    let b = t.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { t.get(r)?.parse::<i64>().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut rest = &t[19..];
    let mut frac_ns = 0i64;
    if let Some(r) = rest.strip_prefix('.') {
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let mut scale = 100_000_000i64;
        for c in r[..digits].bytes().take(9) {
            frac_ns += i64::from(c - b'0') * scale;
            scale /= 10;
        }
        rest = &r[digits..];
    }
    let offset_s = match rest {
        "" | "Z" | "z" => 0,
        o if (o.starts_with('+') || o.starts_with('-')) && o.len() >= 3 => {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            let o = &o[1..];
            let (hh, mm) = match o.split_once(':') {
                Some((a, b)) => (a.parse::<i64>().ok()?, b.parse::<i64>().ok()?),
                None if o.len() == 4 => (o[..2].parse().ok()?, o[2..].parse().ok()?),
                None => (o.parse().ok()?, 0),
            };
            sign * (hh * 3600 + mm * 60)
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + s - offset_s;
    Some(secs * 1_000_000_000 + frac_ns)
}

/// One attempt (one call to one model), as a reader hands it over.
#[derive(Debug, Clone, Copy, Default)]
pub struct Attempt {
    /// The model's index in the aggregator ([`Aggregator::model`]).
    pub model: usize,
    /// Start, nanoseconds since the Unix epoch.
    pub start_ns: i64,
    /// Duration, seconds.
    pub duration_s: f64,
    /// The error class of a failed attempt; `None` for a success.
    pub failure: Option<ErrorClass>,
    /// Input tokens, the cached ones included (`gen_ai.usage.input_tokens`).
    pub input_tokens: Option<u64>,
    /// Input tokens read from the provider's cache.
    pub cache_read: u64,
    /// Input tokens written to the provider's cache.
    pub cache_write: u64,
    /// Output tokens.
    pub output_tokens: Option<u64>,
}

/// What is measured of one model.
#[derive(Debug, Clone, Default)]
pub struct ModelStats {
    /// Attempts.
    pub attempts: u64,
    /// Successful attempts.
    pub successes: u64,
    /// Durations of failed attempts, seconds, per class in [`ErrorClass::ALL`] order.
    pub failures: [LogHist; 6],
    /// Durations of successful attempts, seconds.
    pub latency: LogHist,
    /// Fresh (uncached) input tokens per successful attempt.
    pub fresh: Mean,
    /// Their distribution.
    pub fresh_hist: LogHist,
    /// Cacheable prefix tokens (read + written) per successful attempt.
    pub prefix: Mean,
    /// Their distribution.
    pub prefix_hist: LogHist,
    /// Output tokens per successful attempt.
    pub output: Mean,
    /// Their distribution.
    pub output_hist: LogHist,
    /// Cache hit rate: prefix tokens read over prefix tokens (read + written).
    pub cache: Ratio,
    /// Successful attempts that reported cache read or write counts (a 0 counts).
    pub cache_reported: u64,
}

impl ModelStats {
    /// Failed attempts.
    pub fn failed(&self) -> u64 {
        self.failures.iter().map(|h| h.n).sum()
    }
}

/// How the requests that start on one primary went.
#[derive(Debug, Clone, Default)]
pub struct ChainStats {
    /// Requests.
    pub requests: u64,
    /// Per position in the chain: how often each model was tried there.
    pub reached: Vec<HashMap<usize, u64>>,
    /// Per position: requests answered there.
    pub answered: Vec<u64>,
    /// Requests with a known outcome (answered, or every attempt failed).
    pub with_outcome: u64,
    /// Whether failed requests are seen (whole traces); LiteLLM's rows only show the answered.
    pub sees_failures: bool,
}

/// An unreadable record: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    /// The file as given.
    pub file: String,
    /// 1-based line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// The bounded buffer of requests whose spans may still arrive.
#[derive(Debug, Default)]
struct Open {
    map: HashMap<u64, OpenRequest>,
    order: VecDeque<u64>,
}

#[derive(Debug, Default)]
struct OpenRequest {
    attempts: Vec<(i64, usize, bool)>,
    session: Option<u64>,
}

/// Everything measured so far, over all files.
#[derive(Debug, Default)]
pub struct Aggregator {
    /// Model ids in first-seen order.
    pub model_ids: Vec<String>,
    index: HashMap<String, usize>,
    /// Per model, by index.
    pub models: Vec<ModelStats>,
    /// Per primary model index.
    pub chains: HashMap<usize, ChainStats>,
    /// Requests (traces, request ids, LiteLLM first attempts).
    pub requests: u64,
    /// Earliest and latest request start, nanoseconds.
    pub first_ns: Option<i64>,
    /// Latest request start, nanoseconds.
    pub last_ns: Option<i64>,
    /// Requests per session id.
    pub sessions: HashMap<u64, u32>,
    /// Requests that carried a session id.
    pub requests_with_session: u64,
    /// Records read.
    pub records: u64,
    /// Unreadable records: the first [`BAD_SHOWN`], and the count.
    pub bad: Vec<BadRecord>,
    /// Unreadable records in all.
    pub bad_count: u64,
    /// Attempts that failed with an error type no rule knows (counted as server errors).
    pub unclassified: u64,
    /// Sum and sum of squares of failure durations (seconds) per [`LogHist`] bin, over every
    /// model: the timeout is the exact mean of the cluster's bins.
    pub fail_sums: Vec<(f64, f64)>,
    open: Open,
    scratch: String,
}

impl Aggregator {
    /// The index of model `provider/model` (`model` alone when it already has a provider
    /// prefix or there is no provider), adding it on first sight.
    pub fn model(&mut self, provider: Option<&str>, model: &str) -> usize {
        self.scratch.clear();
        match provider {
            Some(p) if !p.is_empty() && !model.contains('/') => {
                self.scratch.push_str(p);
                self.scratch.push('/');
                self.scratch.push_str(model);
            }
            _ => self.scratch.push_str(model),
        }
        if let Some(&i) = self.index.get(self.scratch.as_str()) {
            return i;
        }
        let i = self.model_ids.len();
        self.model_ids.push(self.scratch.clone());
        self.index.insert(self.scratch.clone(), i);
        self.models.push(ModelStats::default());
        i
    }

    /// Record an unreadable record.
    pub fn bad(&mut self, file: &str, line: u64, message: impl Into<String>) {
        self.bad_count += 1;
        if self.bad.len() < BAD_SHOWN {
            self.bad.push(BadRecord {
                file: file.to_string(),
                line,
                message: message.into(),
            });
        }
    }

    /// Count one attempt in its model's figures.
    pub fn attempt(&mut self, a: &Attempt) {
        self.records += 1;
        let m = &mut self.models[a.model];
        m.attempts += 1;
        match a.failure {
            Some(class) => {
                if self.fail_sums.is_empty() {
                    self.fail_sums = vec![(0.0, 0.0); stats::BINS];
                }
                let s = &mut self.fail_sums[LogHist::bin(a.duration_s)];
                s.0 += a.duration_s;
                s.1 += a.duration_s * a.duration_s;
                let i = ErrorClass::ALL
                    .iter()
                    .position(|c| *c == class)
                    .unwrap_or(2);
                m.failures[i].add(a.duration_s);
            }
            None => {
                m.successes += 1;
                m.latency.add(a.duration_s);
                let prefix = a.cache_read + a.cache_write;
                if let Some(input) = a.input_tokens {
                    let fresh = input.saturating_sub(prefix) as f64;
                    m.fresh.add(fresh);
                    m.fresh_hist.add(fresh);
                    m.prefix.add(prefix as f64);
                    m.prefix_hist.add(prefix as f64);
                    if prefix > 0 {
                        m.cache.add(a.cache_read as f64, prefix as f64);
                    }
                }
                if let Some(out) = a.output_tokens {
                    m.output.add(out as f64);
                    m.output_hist.add(out as f64);
                }
                if a.cache_read + a.cache_write > 0 || a.input_tokens.is_some() {
                    m.cache_reported += 1;
                }
            }
        }
    }

    /// Count one request: its start, its session.
    pub fn request(&mut self, start_ns: i64, session: Option<u64>, weight: u64) {
        self.requests += weight;
        self.first_ns = Some(self.first_ns.map_or(start_ns, |f| f.min(start_ns)));
        self.last_ns = Some(self.last_ns.map_or(start_ns, |l| l.max(start_ns)));
        if let Some(s) = session {
            *self.sessions.entry(s).or_insert(0) += weight as u32;
            self.requests_with_session += weight;
        }
    }

    /// Count the route of one request: the models tried at each position (`None` where a
    /// position's model is not known), and the position that answered (`None`: the request
    /// failed; `Some(None)`-like unknown outcomes are passed as `known = false`).
    pub fn route(
        &mut self,
        path: &[Option<usize>],
        answered: Option<usize>,
        known: bool,
        weight: u64,
    ) {
        let Some(Some(primary)) = path.first().copied() else {
            return;
        };
        let c = self.chains.entry(primary).or_default();
        c.requests += weight;
        if c.reached.len() < path.len() {
            c.reached.resize_with(path.len(), HashMap::new);
            c.answered.resize(path.len(), 0);
        }
        for (k, m) in path.iter().enumerate() {
            if let Some(m) = m {
                *c.reached[k].entry(*m).or_insert(0) += weight;
            }
        }
        if known {
            c.with_outcome += weight;
            if let Some(k) = answered {
                c.answered[k] += weight;
            }
        }
    }

    /// Add an attempt to the open request `key` (a hashed trace or request id), to be closed
    /// when the buffer is full or the input ends ([`Aggregator::close_all`]).
    pub fn open_attempt(&mut self, key: u64, a: &Attempt, session: Option<u64>) {
        if !self.open.map.contains_key(&key) {
            if self.open.map.len() >= OPEN_REQUESTS
                && let Some(old) = self.open.order.pop_front()
                && let Some(r) = self.open.map.remove(&old)
            {
                self.close(r);
            }
            self.open.order.push_back(key);
        }
        let r = self.open.map.entry(key).or_default();
        r.attempts.push((a.start_ns, a.model, a.failure.is_none()));
        if r.session.is_none() {
            r.session = session;
        }
    }

    /// Turn a closed trace into requests: its attempts in start order, a request ending at
    /// each success (a trace with several answered calls, an agent's, is several requests)
    /// or at the trace's end (a request that failed on every link). Retries on one model are
    /// one link.
    fn close(&mut self, mut r: OpenRequest) {
        r.attempts.sort_by_key(|a| a.0);
        let mut path: Vec<Option<usize>> = Vec::new();
        let mut start = 0;
        for &(t, m, ok) in &r.attempts {
            if path.is_empty() {
                start = t;
            }
            if path.last() != Some(&Some(m)) {
                path.push(Some(m));
            }
            if ok {
                self.finish_request(start, r.session, &path, Some(path.len() - 1));
                path.clear();
            }
        }
        if !path.is_empty() {
            self.finish_request(start, r.session, &path, None);
        }
    }

    fn finish_request(
        &mut self,
        start: i64,
        session: Option<u64>,
        path: &[Option<usize>],
        answered: Option<usize>,
    ) {
        self.request(start, session, 1);
        self.route(path, answered, true, 1);
        if let Some(Some(p)) = path.first()
            && let Some(c) = self.chains.get_mut(p)
        {
            c.sees_failures = true;
        }
    }

    /// Close every open request.
    pub fn close_all(&mut self) {
        let open = std::mem::take(&mut self.open);
        let mut order = open.order;
        let mut map = open.map;
        while let Some(k) = order.pop_front() {
            if let Some(r) = map.remove(&k) {
                self.close(r);
            }
        }
    }
}

/// How a run reads its files.
#[derive(Debug, Clone, Default)]
pub struct Options {
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
    /// Bytes read.
    pub bytes: u64,
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

/// Read every file into `agg`.
///
/// Errors (exit 2): a file that cannot be opened, whose format is not recognised, or of which
/// no record is readable (its bad records are named).
pub fn read_files(
    paths: &[&Path],
    options: &Options,
    agg: &mut Aggregator,
) -> Result<Vec<FileReport>, crate::error::InputError> {
    use crate::error::{InputError, InputErrorKind};
    let mut reports = Vec::new();
    for path in paths {
        let label = path.display().to_string();
        let open = || {
            std::fs::File::open(path).map_err(|e| {
                let message = match e.kind() {
                    std::io::ErrorKind::NotFound => "no such file".to_string(),
                    std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                    _ => format!("cannot read: {e}"),
                };
                InputError::file(InputErrorKind::Read, label.clone(), message)
            })
        };
        if path.is_dir() {
            return Err(InputError::file(
                InputErrorKind::Read,
                label,
                "is a directory; expected a log file",
            ));
        }
        let format = match options.format {
            Some(LogFormat::LiteLlmCsv | LogFormat::LiteLlmJson) => {
                // LiteLLM's exports come as CSV or JSON: told apart by the first character.
                let mut head = Vec::with_capacity(4096);
                open()?.take(4096).read_to_end(&mut head).map_err(|e| {
                    InputError::file(
                        InputErrorKind::Read,
                        label.clone(),
                        format!("cannot read: {e}"),
                    )
                })?;
                let t = String::from_utf8_lossy(&head);
                let t = t.trim_start_matches('\u{feff}').trim_start();
                if t.starts_with('{') || t.starts_with('[') {
                    LogFormat::LiteLlmJson
                } else {
                    LogFormat::LiteLlmCsv
                }
            }
            Some(f) => f,
            None => {
                let mut head = Vec::with_capacity(65_536);
                open()?.take(65_536).read_to_end(&mut head).map_err(|e| {
                    InputError::file(
                        InputErrorKind::Read,
                        label.clone(),
                        format!("cannot read: {e}"),
                    )
                })?;
                detect(&head).map_err(|m| {
                    InputError::file(
                        InputErrorKind::Schema,
                        label.clone(),
                        format!("{m}; name the format with --input-format otlp|litellm|csv"),
                    )
                })?
            }
        };
        let file = open()?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let bar = options.progress.then(|| {
            let b = indicatif::ProgressBar::new(len);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            b.set_message(label.clone());
            b
        });
        let mut reader = std::io::BufReader::with_capacity(
            1 << 20,
            Counting {
                inner: file,
                bytes: 0,
                bar: bar.clone(),
            },
        );
        let (records0, bad0) = (agg.records, agg.bad_count);
        match format {
            LogFormat::Otlp => otlp::read(&label, &mut reader, agg)?,
            LogFormat::LiteLlmCsv => litellm::read_csv(&label, &mut reader, agg)?,
            LogFormat::LiteLlmJson => litellm::read_json(&label, &mut reader, agg)?,
            LogFormat::Plain => plain::read(&label, &mut reader, agg)?,
        }
        agg.close_all();
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let (records, bad) = (agg.records - records0, agg.bad_count - bad0);
        if records == 0 {
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
                    "no readable {} record ({bad} unreadable){first}",
                    format.as_str()
                ),
            ));
        }
        reports.push(FileReport {
            file: label,
            format,
            records,
            bad,
            bytes: reader.get_ref().bytes,
        });
    }
    Ok(reports)
}

/// Read `reader` line by line, calling `each(line_number, bytes)` with the line's bytes
/// (without the newline). Lines are read into one reused buffer.
pub fn for_each_line<R: BufRead>(
    reader: &mut R,
    mut each: impl FnMut(u64, &[u8]),
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    let mut line = 0u64;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        line += 1;
        let mut s: &[u8] = &buf;
        while let [rest @ .., b'\n' | b'\r'] = s {
            s = rest;
        }
        each(line, s);
    }
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
