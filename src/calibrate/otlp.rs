//! OpenTelemetry GenAI spans as OTLP/JSON (opentelemetry-proto `docs/specification.md`, "JSON
//! Protobuf Encoding"; `opentelemetry/proto/trace/v1/trace.proto`): `resourceSpans[].
//! scopeSpans[].spans[]`, each span with `traceId` (hex), `startTimeUnixNano` and
//! `endTimeUnixNano` (64-bit integers, written as decimal strings; numbers accepted), `status.
//! code` (2 = STATUS_CODE_ERROR) and `attributes`, a list of `{ "key": K, "value": { "stringValue"
//! | "intValue" | "doubleValue" | ...: V } }`.
//!
//! The GenAI attributes read (semantic-conventions `model/gen-ai/`, now kept in the
//! semantic-conventions-genai repository): `gen_ai.provider.name` (or the older
//! `gen_ai.system`), `gen_ai.request.model`, `gen_ai.response.model`,
//! `gen_ai.usage.input_tokens` (which includes the cached tokens),
//! `gen_ai.usage.cache_read.input_tokens`, `gen_ai.usage.cache_creation.input_tokens`,
//! `gen_ai.usage.output_tokens` (and the deprecated `gen_ai.usage.prompt_tokens` /
//! `completion_tokens`), `gen_ai.conversation.id`, `gen_ai.operation.name`; `error.type`
//! (semantic-conventions `model/error/registry.yaml`) and `http.response.status_code`.
//!
//! Other instrumentations' names for the same fields: OpenLLMetry (traceloop
//! `opentelemetry-semantic-conventions-ai`: `llm.request.type`,
//! `gen_ai.usage.cache_read_input_tokens`, `gen_ai.usage.cache_creation_input_tokens`,
//! `llm.usage.prompt_tokens` / `completion_tokens`, the association property
//! `traceloop.association.properties.session_id`); OpenInference
//! (<https://arize-ai.github.io/openinference/spec/semantic_conventions.html>:
//! `openinference.span.kind`, `llm.model_name`, `llm.provider`, `llm.system`,
//! `llm.token_count.prompt` / `completion`, `llm.token_count.prompt_details.cache_read` /
//! `cache_write`, `session.id`); the newer semconv's `gen_ai.usage.cache_write.input_tokens`.
//! A span is an attempt when it has a model (`gen_ai.request.model`, `gen_ai.response.model`,
//! `llm.model_name`) and is an LLM call by its operation ([`super::fields::left_out_span`]);
//! a span with a model that is not (an agent, a tool, an embedding) is counted as left out.
//!
//! Nothing else is decoded: an attribute whose key is not one of these has its value skipped
//! by the parser unread, and span events (where prompts and completions travel as event bodies)
//! are not a declared field. One line is one `ExportTraceServiceRequest`, as the collector's file
//! exporter writes; a file whose first line is not a whole document is read as one document
//! (that form is held in memory whole).

use std::borrow::Cow;
use std::fmt;
use std::io::BufRead;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::{Aggregator, LoggedAttempt, classify, for_each_line, hash_id, provider_prefix};
use crate::error::{InputError, InputErrorKind};

#[derive(Deserialize)]
struct Export<'a> {
    #[serde(borrow, default, rename = "resourceSpans")]
    resource_spans: Option<Vec<ResourceSpans<'a>>>,
}

#[derive(Deserialize)]
struct ResourceSpans<'a> {
    #[serde(borrow, default, rename = "scopeSpans")]
    scope_spans: Vec<ScopeSpans<'a>>,
}

#[derive(Deserialize)]
struct ScopeSpans<'a> {
    #[serde(borrow, default)]
    spans: Vec<Span<'a>>,
}

#[derive(Deserialize)]
struct Span<'a> {
    #[serde(borrow, default, rename = "traceId")]
    trace_id: Option<Text<'a>>,
    #[serde(borrow, default, rename = "spanId")]
    span_id: Option<Text<'a>>,
    #[serde(default, rename = "startTimeUnixNano")]
    start: Option<Nanos>,
    #[serde(default, rename = "endTimeUnixNano")]
    end: Option<Nanos>,
    #[serde(borrow, default)]
    attributes: Attrs<'a>,
    #[serde(default)]
    status: Option<Status>,
}

#[derive(Deserialize)]
struct Status {
    #[serde(default)]
    code: Option<Code>,
}

/// A string borrowed from the line when it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A 64-bit integer written as a decimal string (proto3 JSON) or a number.
#[derive(Clone, Copy)]
struct Nanos(i64);

impl<'de> Deserialize<'de> for Nanos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Nanos;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer, or a decimal string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Nanos, E> {
                i64::try_from(v)
                    .map(Nanos)
                    .map_err(|_| E::custom("out of range"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Nanos, E> {
                Ok(Nanos(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Nanos, E> {
                Ok(Nanos(v as i64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Nanos, E> {
                v.trim()
                    .parse::<i64>()
                    .map(Nanos)
                    .map_err(|_| E::custom("a time or count that is not an integer"))
            }
        }
        d.deserialize_any(V)
    }
}

/// A status code: the integer OTLP/JSON requires, or an enum name some exporters write.
struct Code(i64);

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Code;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a status code")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Code, E> {
                Ok(Code(v as i64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Code, E> {
                Ok(Code(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Code, E> {
                Ok(Code(match v {
                    "STATUS_CODE_ERROR" | "ERROR" | "Error" => 2,
                    "STATUS_CODE_OK" | "OK" | "Ok" => 1,
                    _ => v.parse().unwrap_or(0),
                }))
            }
        }
        d.deserialize_any(V)
    }
}

/// The attributes fallcost reads; every other key's value is skipped unread.
#[derive(Default)]
struct Attrs<'a> {
    provider: Option<Cow<'a, str>>,
    system: Option<Cow<'a, str>>,
    request_model: Option<Cow<'a, str>>,
    response_model: Option<Cow<'a, str>>,
    conversation: Option<Cow<'a, str>>,
    error_type: Option<Cow<'a, str>>,
    http_status: Option<i64>,
    input: Option<i64>,
    output: Option<i64>,
    cache_read: Option<i64>,
    cache_write: Option<i64>,
    /// `gen_ai.operation.name` (OTel GenAI), `llm.request.type` (OpenLLMetry before it took
    /// up the operation name) or `openinference.span.kind` (OpenInference).
    operation: Option<Cow<'a, str>>,
    request_type: Option<Cow<'a, str>>,
    oi_kind: Option<Cow<'a, str>>,
}

#[derive(Clone, Copy)]
enum Field {
    Provider,
    System,
    RequestModel,
    ResponseModel,
    Conversation,
    ErrorType,
    HttpStatus,
    Input,
    Output,
    CacheRead,
    CacheWrite,
    Operation,
    RequestType,
    OiKind,
}

impl Field {
    fn of(key: &str) -> Option<Field> {
        Some(match key {
            "gen_ai.provider.name" => Field::Provider,
            "gen_ai.system" => Field::System,
            // OpenInference names the system and the hosting provider apart; the provider
            // (`azure`) is the one that bills.
            "llm.provider" => Field::Provider,
            "llm.system" => Field::System,
            "gen_ai.request.model" | "llm.request.model_name" => Field::RequestModel,
            "gen_ai.response.model" | "llm.model_name" | "llm.response.model_name" => {
                Field::ResponseModel
            }
            "gen_ai.conversation.id"
            | "session.id"
            | "traceloop.association.properties.session_id" => Field::Conversation,
            "error.type" => Field::ErrorType,
            "http.response.status_code" | "http.status_code" => Field::HttpStatus,
            "gen_ai.usage.input_tokens"
            | "gen_ai.usage.prompt_tokens"
            | "llm.usage.prompt_tokens"
            | "llm.token_count.prompt" => Field::Input,
            "gen_ai.usage.output_tokens"
            | "gen_ai.usage.completion_tokens"
            | "llm.usage.completion_tokens"
            | "llm.token_count.completion" => Field::Output,
            "gen_ai.usage.cache_read.input_tokens"
            | "gen_ai.usage.cache_read_input_tokens"
            | "llm.token_count.prompt_details.cache_read" => Field::CacheRead,
            "gen_ai.usage.cache_creation.input_tokens"
            | "gen_ai.usage.cache_write.input_tokens"
            | "gen_ai.usage.cache_creation_input_tokens"
            | "llm.token_count.prompt_details.cache_write" => Field::CacheWrite,
            "gen_ai.operation.name" => Field::Operation,
            "llm.request.type" => Field::RequestType,
            "openinference.span.kind" => Field::OiKind,
            _ => return None,
        })
    }
}

/// An `AnyValue` of a wanted attribute: its string or number.
enum AnyValue<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Other,
}

impl<'de> Deserialize<'de> for AnyValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an AnyValue object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyValue<'de>, A::Error> {
                let mut out = AnyValue::Other;
                while let Some(k) = map.next_key::<Text<'de>>()? {
                    match k.0.as_ref() {
                        "stringValue" => out = AnyValue::Str(map.next_value::<Text<'de>>()?.0),
                        "intValue" => out = AnyValue::Int(map.next_value::<Nanos>()?.0),
                        "doubleValue" => {
                            let x = map.next_value::<f64>()?;
                            out = AnyValue::Int(x as i64);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

/// One `{ "key": K, "value": V }`, written into the attributes: V is decoded only for a key
/// fallcost reads (a value written before its key is skipped unread).
struct KeyValueSeed<'s, 'a>(&'s mut Attrs<'a>);

impl<'de> DeserializeSeed<'de> for KeyValueSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for KeyValueSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an attribute { key, value }")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut field = None;
        while let Some(k) = map.next_key::<Text<'de>>()? {
            match k.0.as_ref() {
                "key" => field = Field::of(&map.next_value::<Text<'de>>()?.0),
                "value" => match field {
                    Some(f) => {
                        let v = map.next_value::<AnyValue<'de>>()?;
                        let a = &mut *self.0;
                        let int = |v: &AnyValue| match v {
                            AnyValue::Int(i) => Some(*i),
                            AnyValue::Str(s) => s.trim().parse().ok(),
                            AnyValue::Other => None,
                        };
                        let text = |v: AnyValue<'de>| match v {
                            AnyValue::Str(s) => Some(s),
                            AnyValue::Int(i) => Some(Cow::Owned(i.to_string())),
                            AnyValue::Other => None,
                        };
                        match f {
                            Field::Provider => a.provider = text(v),
                            Field::System => a.system = text(v),
                            Field::RequestModel => a.request_model = text(v),
                            Field::ResponseModel => a.response_model = text(v),
                            Field::Conversation => a.conversation = text(v),
                            Field::ErrorType => a.error_type = text(v),
                            Field::HttpStatus => a.http_status = int(&v),
                            Field::Input => a.input = int(&v),
                            Field::Output => a.output = int(&v),
                            Field::CacheRead => a.cache_read = int(&v),
                            Field::CacheWrite => a.cache_write = int(&v),
                            Field::Operation => a.operation = text(v),
                            Field::RequestType => a.request_type = text(v),
                            Field::OiKind => a.oi_kind = text(v),
                        }
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                },
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Attrs<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Attrs<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of attributes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Attrs<'de>, A::Error> {
                let mut attrs = Attrs::default();
                while seq.next_element_seed(KeyValueSeed(&mut attrs))?.is_some() {}
                Ok(attrs)
            }
        }
        d.deserialize_seq(V)
    }
}

/// `startTimeUnixNano` values that are a date from 2001 to 2286 in milliseconds or
/// microseconds (1e12 to 1e16) and, read as nanoseconds, 17 minutes to 4 months after
/// 1970-01-01: another unit, refused (a log of relative times from 0 in nanoseconds stays
/// below 1e12 for its first 16 minutes).
const MS_OR_US: std::ops::Range<i64> = 1_000_000_000_000..10_000_000_000_000_000;

/// The state of a line-by-line read.
struct LineRead<'x> {
    label: &'x str,
    /// The first line, when it was not a whole document: held until the next line says
    /// whether the file is one pretty-printed document or one export per line.
    pending: Option<Vec<u8>>,
    /// Set once the file is read as one document (held whole).
    whole: Option<Vec<u8>>,
    /// A refused unit: the read stops.
    fatal: Option<InputError>,
    seen_line: bool,
}

impl LineRead<'_> {
    fn line(&mut self, line: u64, bytes: &[u8], agg: &mut Aggregator) {
        if self.fatal.is_some() {
            return;
        }
        if let Some(w) = self.whole.as_mut() {
            w.extend_from_slice(bytes);
            w.push(b'\n');
            return;
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let first = !self.seen_line;
        self.seen_line = true;
        match serde_json::from_slice::<Export>(bytes) {
            Ok(export) => {
                if let Some(p) = self.pending.take() {
                    // One export per line after all: the first was a truncated line.
                    let e = serde_json::from_slice::<Export>(&p).err();
                    agg.bad(self.label, 1, problem(e.as_ref()));
                }
                if let Err(e) = spans(self.label, line, export, agg) {
                    self.fatal = Some(e);
                }
            }
            Err(e) if first && e.is_eof() => self.pending = Some(bytes.to_vec()),
            Err(e) => match self.pending.take() {
                // Neither line is a document alone: one pretty-printed document.
                Some(mut w) => {
                    w.push(b'\n');
                    w.extend_from_slice(bytes);
                    w.push(b'\n');
                    self.whole = Some(w);
                }
                None => agg.bad(self.label, line, problem(Some(&e))),
            },
        }
    }
}

fn problem(e: Option<&serde_json::Error>) -> String {
    match e {
        Some(e) => format!("not an OTLP/JSON export: {}", super::json_problem(e)),
        None => "not an OTLP/JSON export".into(),
    }
}

/// Read an OTLP/JSON file into `agg`: line by line, or as one document when neither of the
/// first two lines is a document alone (a truncated first line of a file with one export
/// per line is one unreadable line).
///
/// Errors: an I/O failure; a span time in another unit than nanoseconds (the file's
/// unreadable lines are counted, not errors).
pub fn read<R: BufRead>(
    label: &str,
    reader: &mut R,
    agg: &mut Aggregator,
) -> Result<(), InputError> {
    let io = |e: std::io::Error| {
        InputError::file(InputErrorKind::Read, label, format!("cannot read: {e}"))
    };
    agg.unit_suspect = (0, 0);
    let records0 = agg.records;
    let mut state = LineRead {
        label,
        pending: None,
        whole: None,
        fatal: None,
        seen_line: false,
    };
    for_each_line(reader, |line, bytes| state.line(line, bytes, agg)).map_err(io)?;
    if let Some(e) = state.fatal {
        return Err(e);
    }
    let whole = state.whole.or(state.pending);
    if let Some(w) = whole {
        match serde_json::from_slice::<Export>(&w) {
            Ok(export) => spans(label, 1, export, agg)?,
            Err(e) => agg.bad(label, e.line() as u64, problem(Some(&e))),
        }
    }
    let (suspect, first) = agg.unit_suspect;
    if suspect > 0 && suspect >= agg.records - records0 {
        return Err(super::error_at(
            label,
            first,
            "startTimeUnixNano",
            &format!(
                "{suspect} GenAI spans start in January 1970 as nanoseconds, a date since 2001 as milliseconds or microseconds (as many as the spans read): the log's times are in another unit; OTLP requires nanoseconds since the Unix epoch"
            ),
        ));
    }
    Ok(())
}

/// The attributes' token counts; a negative one is dropped (read as absent, the span kept)
/// and reported with its line.
fn tokens(label: &str, line: u64, a: &Attrs, agg: &mut Aggregator) -> [Option<u64>; 4] {
    let mut out = [None; 4];
    let names = ["input", "cache read", "cache write", "output"];
    for ((o, v), name) in out
        .iter_mut()
        .zip([a.input, a.cache_read, a.cache_write, a.output])
        .zip(names)
    {
        *o = match v.map(u64::try_from) {
            Some(Ok(x)) => Some(x),
            Some(Err(_)) => {
                agg.bad_field(
                    label,
                    line,
                    format!("a negative token count ({name}): the field is dropped"),
                );
                None
            }
            None => None,
        };
    }
    out
}

fn spans(label: &str, line: u64, export: Export, agg: &mut Aggregator) -> Result<(), InputError> {
    let Some(resource_spans) = export.resource_spans else {
        agg.bad(
            label,
            line,
            "not an OTLP/JSON export (no `resourceSpans`; a LiteLLM spend-log row belongs in a file of its own)",
        );
        return Ok(());
    };
    for rs in resource_spans {
        for ss in rs.scope_spans {
            for span in ss.spans {
                one_span(label, line, span, agg)?;
            }
        }
    }
    Ok(())
}

fn one_span(label: &str, line: u64, span: Span, agg: &mut Aggregator) -> Result<(), InputError> {
    let a = &span.attributes;
    let Some(model) = a.request_model.as_ref().or(a.response_model.as_ref()) else {
        return Ok(());
    };
    if let Some(what) = super::fields::left_out_span(
        a.operation.as_deref(),
        a.request_type.as_deref(),
        a.oi_kind.as_deref(),
    ) {
        agg.left_out(what);
        return Ok(());
    }
    let Some((start, dur_ns)) = times(label, line, &span, agg) else {
        return Ok(());
    };
    let [input, cache_read, cache_write, output] = tokens(label, line, a, agg);
    let provider = a
        .provider
        .as_deref()
        .or(a.system.as_deref())
        .map(provider_prefix);
    let provider = provider.or_else(|| {
        let p = super::fields::infer_provider(model).map(std::borrow::Cow::Borrowed);
        if p.is_some() {
            agg.provider_inferred += 1;
        }
        p
    });
    let m = agg.model(provider.as_deref(), model);
    let error = span
        .status
        .as_ref()
        .and_then(|s| s.code.as_ref())
        .is_some_and(|c| c.0 == 2)
        || a.error_type.is_some()
        || a.http_status.is_some_and(|c| c >= 400);
    let failure = error.then(|| failure_class(a, agg));
    let attempt = LoggedAttempt {
        model: m,
        start_ns: start,
        duration_s: dur_ns as f64 * 1e-9,
        failure,
        input_tokens: input,
        cache_read,
        cache_write,
        output_tokens: output,
    };
    let trace = span.trace_id.as_ref().filter(|t| !t.0.is_empty());
    let id = span
        .span_id
        .as_ref()
        .filter(|s| !s.0.is_empty())
        .map(|s| hash_id(&format!("{}/{}", trace.map_or("", |t| &t.0), s.0)));
    if !agg.accept(label, line, &attempt, id) {
        return Ok(());
    }
    let session = a.conversation.as_deref().map(hash_id);
    let key = match trace {
        Some(t) => hash_id(&t.0),
        // A span without a trace is a request of its own.
        None => hash_id(&format!("{label}:{line}:{start}")),
    };
    agg.open_attempt(key, &attempt, session);
    Ok(())
}

/// A span's start (nanoseconds since the Unix epoch) and duration (nanoseconds); `None`, the
/// span counted unreadable on `agg`, without both times, with a start that reads as
/// milliseconds or microseconds (counted as such), or ending before it starts.
fn times(label: &str, line: u64, span: &Span, agg: &mut Aggregator) -> Option<(i64, i64)> {
    let (Some(start), Some(end)) = (span.start, span.end) else {
        agg.bad(
            label,
            line,
            "GenAI span without startTimeUnixNano/endTimeUnixNano",
        );
        return None;
    };
    if MS_OR_US.contains(&start.0) {
        // One stray time is one unreadable span; a file mostly so is refused once read.
        if agg.unit_suspect.0 == 0 {
            agg.unit_suspect.1 = line;
        }
        agg.unit_suspect.0 += 1;
        agg.bad(
            label,
            line,
            "startTimeUnixNano reads as January 1970 in nanoseconds (a date since 2001 in milliseconds or microseconds?): left out",
        );
        return None;
    }
    let Some(dur_ns) = end.0.checked_sub(start.0).filter(|d| *d >= 0) else {
        agg.bad(label, line, "GenAI span ends before it starts");
        return None;
    };
    Some((start.0, dur_ns))
}

fn failure_class(a: &Attrs, agg: &mut Aggregator) -> crate::model::policy::ErrorClass {
    let class = classify(a.http_status.filter(|c| *c >= 400), a.error_type.as_deref());
    if a.http_status.is_none_or(|c| c < 400)
        && a.error_type
            .as_deref()
            .is_none_or(|t| super::classify_word(t).is_none() && t.parse::<i64>().is_err())
    {
        agg.unclassified += 1;
    }
    class
}
