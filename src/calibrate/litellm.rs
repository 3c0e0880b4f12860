//! LiteLLM spend logs: rows of `LiteLLM_SpendLogs` (LiteLLM `schema.prisma`; the row LiteLLM
//! writes is `SpendLogsPayload` and its `metadata` is `SpendLogsMetadata`, both in
//! `litellm/proxy/_types.py`), exported as CSV (one column per field, `metadata` a JSON
//! string), a JSON array of rows or JSON lines.
//!
//! Columns read: `model`, `model_group`, `custom_llm_provider`, `startTime`, `endTime`,
//! `prompt_tokens`, `completion_tokens`, `status` (`success` | `failure`), `session_id`, and in
//! `metadata`: `usage_object` (the provider's usage: `prompt_tokens`, `completion_tokens`,
//! `cache_read_input_tokens`, `cache_creation_input_tokens`, `prompt_tokens_details.
//! cached_tokens`), `additional_usage_values` (the same cache fields, older rows),
//! `error_information` (`error_code`, `error_class`), and the router's fallback stamps
//! `attempted_fallbacks` and `original_model_group` (`litellm/router_utils/
//! fallback_event_handlers.py`, `run_async_fallback`). `messages`, `response`,
//! `proxy_server_request` and every other column are skipped unread.
//!
//! `prompt_tokens` includes the cached tokens (OpenAI usage semantics, which LiteLLM follows).
//! A row with `attempted_fallbacks` = k and `original_model_group` G was answered by link k of
//! a chain that starts at group G; a row without them is a first attempt (one request).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, Read};

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::{Aggregator, Attempt, classify, for_each_line, hash_id, parse_time_ns};
use crate::error::{InputError, InputErrorKind};

/// A number that may be written as a string (CSV, or JSON from a text column).
#[derive(Clone, Copy, Default)]
struct Num(Option<f64>);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(Some(v as f64)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(Some(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Ok(Num(v.trim().parse().ok()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Num, E> {
                Ok(Num(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl Num {
    fn tokens(self) -> Option<u64> {
        self.0
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|x| x as u64)
    }
}

/// A string field (a number is taken as its text: `error_code` comes both ways).
#[derive(Default)]
struct Str<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Str<'de>, E> {
                Ok(Str(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Str<'de>, E> {
                Ok(Str(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl Str<'_> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

#[derive(Deserialize, Default)]
struct Usage {
    #[serde(default)]
    prompt_tokens: Num,
    #[serde(default)]
    completion_tokens: Num,
    #[serde(default)]
    cache_read_input_tokens: Num,
    #[serde(default)]
    cache_creation_input_tokens: Num,
    #[serde(default)]
    prompt_tokens_details: Option<Details>,
}

#[derive(Deserialize, Default)]
struct Details {
    #[serde(default)]
    cached_tokens: Num,
}

#[derive(Deserialize, Default)]
struct ErrorInfo<'a> {
    #[serde(borrow, default)]
    error_code: Str<'a>,
    #[serde(borrow, default)]
    error_class: Str<'a>,
}

/// The `metadata` fields read.
#[derive(Deserialize, Default)]
struct Meta<'a> {
    #[serde(default)]
    usage_object: Option<Usage>,
    #[serde(default)]
    additional_usage_values: Option<Usage>,
    #[serde(borrow, default)]
    error_information: Option<ErrorInfo<'a>>,
    #[serde(default)]
    attempted_fallbacks: Num,
    #[serde(borrow, default)]
    original_model_group: Str<'a>,
    #[serde(borrow, default)]
    status: Str<'a>,
}

/// `metadata`: an object, or the JSON text of one (CSV exports, `SpendLogsPayload`).
#[derive(Default)]
struct MetaField(Option<Meta<'static>>);

impl<'de> Deserialize<'de> for MetaField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetaField;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object or its JSON text")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MetaField, E> {
                Ok(MetaField(parse_meta(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<MetaField, E> {
                Ok(MetaField(None))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<MetaField, A::Error> {
                let m: OwnedMeta =
                    Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(MetaField(Some(m.0)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A [`Meta`] whose strings are owned (from a reader that cannot lend them).
struct OwnedMeta(Meta<'static>);

impl<'de> Deserialize<'de> for OwnedMeta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m: Meta<'de> = Meta::deserialize(d)?;
        Ok(OwnedMeta(own(m)))
    }
}

fn own_str(s: Str<'_>) -> Str<'static> {
    Str(s.0.map(|c| Cow::Owned(c.into_owned())))
}

fn own(m: Meta<'_>) -> Meta<'static> {
    Meta {
        usage_object: m.usage_object,
        additional_usage_values: m.additional_usage_values,
        error_information: m.error_information.map(|e| ErrorInfo {
            error_code: own_str(e.error_code),
            error_class: own_str(e.error_class),
        }),
        attempted_fallbacks: m.attempted_fallbacks,
        original_model_group: own_str(m.original_model_group),
        status: own_str(m.status),
    }
}

fn parse_meta(text: &str) -> Option<Meta<'static>> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    serde_json::from_str::<Meta>(t).ok().map(own)
}

/// One spend-log row: only the fields read.
#[derive(Deserialize, Default)]
struct Row<'a> {
    #[serde(borrow, default)]
    model: Str<'a>,
    #[serde(borrow, default)]
    model_group: Str<'a>,
    #[serde(borrow, default)]
    custom_llm_provider: Str<'a>,
    #[serde(borrow, default, rename = "startTime", alias = "start_time")]
    start_time: Str<'a>,
    #[serde(borrow, default, rename = "endTime", alias = "end_time")]
    end_time: Str<'a>,
    #[serde(default)]
    request_duration_ms: Num,
    #[serde(default)]
    prompt_tokens: Num,
    #[serde(default)]
    completion_tokens: Num,
    #[serde(borrow, default)]
    status: Str<'a>,
    #[serde(borrow, default)]
    session_id: Str<'a>,
    #[serde(default)]
    metadata: MetaField,
}

/// Routes waiting for their groups' models: (primary group, answering position, model).
#[derive(Default)]
struct Routes {
    counts: HashMap<(String, usize, usize), u64>,
    /// Requests per model_group and model index, to name a group's model.
    group_models: HashMap<String, HashMap<usize, u64>>,
}

fn row(label: &str, line: u64, r: Row, agg: &mut Aggregator, routes: &mut Routes) {
    let Some(model) = r.model.get().or(r.model_group.get()) else {
        agg.bad(label, line, "no `model`");
        return;
    };
    let Some(start) = r.start_time.get().and_then(parse_time_ns) else {
        agg.bad(label, line, "no readable `startTime` (ISO 8601)");
        return;
    };
    let duration_s = match r.end_time.get().and_then(parse_time_ns) {
        Some(end) if end >= start => (end - start) as f64 * 1e-9,
        _ => match r.request_duration_ms.0 {
            Some(ms) if ms >= 0.0 => ms / 1e3,
            _ => {
                agg.bad(
                    label,
                    line,
                    "no readable `endTime` or `request_duration_ms`",
                );
                return;
            }
        },
    };
    let meta = r.metadata.0.unwrap_or_default();
    let status = r.status.get().or(meta.status.get()).unwrap_or("success");
    let failed = status.eq_ignore_ascii_case("failure") || status.eq_ignore_ascii_case("error");
    let m = agg.model(r.custom_llm_provider.get(), model);
    let failure = failed.then(|| {
        let (code, class) = meta
            .error_information
            .as_ref()
            .map(|e| (e.error_code.get(), e.error_class.get()))
            .unwrap_or((None, None));
        let code_n = code.and_then(|c| c.trim().parse::<i64>().ok());
        if code_n.is_none() && class.and_then(super::classify_word).is_none() {
            agg.unclassified += 1;
        }
        classify(code_n, class)
    });
    let usage = meta.usage_object.as_ref();
    let extra = meta.additional_usage_values.as_ref();
    let pick = |f: fn(&Usage) -> Num| {
        usage
            .and_then(|u| f(u).tokens())
            .or_else(|| extra.and_then(|u| f(u).tokens()))
    };
    let cache_read = pick(|u| u.cache_read_input_tokens).or_else(|| {
        usage
            .and_then(|u| u.prompt_tokens_details.as_ref())
            .and_then(|d| d.cached_tokens.tokens())
    });
    let cache_write = pick(|u| u.cache_creation_input_tokens);
    let attempt = Attempt {
        model: m,
        start_ns: start,
        duration_s,
        failure,
        input_tokens: r
            .prompt_tokens
            .tokens()
            .or_else(|| pick(|u| u.prompt_tokens)),
        cache_read: cache_read.unwrap_or(0),
        cache_write: cache_write.unwrap_or(0),
        output_tokens: r
            .completion_tokens
            .tokens()
            .or_else(|| pick(|u| u.completion_tokens)),
    };
    agg.attempt(&attempt);
    let group = r.model_group.get().unwrap_or(model).to_string();
    *routes
        .group_models
        .entry(group.clone())
        .or_default()
        .entry(m)
        .or_insert(0) += 1;
    let depth = meta.attempted_fallbacks.tokens().unwrap_or(0) as usize;
    if depth == 0 {
        agg.request(start, r.session_id.get().map(hash_id), 1);
    }
    if failure.is_none() {
        let primary = meta
            .original_model_group
            .get()
            .map(str::to_string)
            .unwrap_or(group);
        *routes.counts.entry((primary, depth, m)).or_insert(0) += 1;
    }
}

fn finish(routes: Routes, agg: &mut Aggregator) {
    let mut counts: Vec<_> = routes.counts.into_iter().collect();
    counts.sort();
    for ((group, depth, m), n) in counts {
        // The group's model: the one that served most of its rows.
        let primary = routes.group_models.get(&group).and_then(|ms| {
            ms.iter()
                .max_by_key(|(i, c)| (**c, std::cmp::Reverse(**i)))
                .map(|(i, _)| *i)
        });
        let Some(primary) = primary else { continue };
        let mut path = vec![None; depth + 1];
        path[0] = Some(primary);
        path[depth] = Some(m);
        agg.route(&path, Some(depth), true, n);
    }
}

/// Read LiteLLM spend logs as CSV.
///
/// Errors: an I/O failure or a CSV without a header (unreadable rows are counted).
pub fn read_csv<R: BufRead>(
    label: &str,
    reader: &mut R,
    agg: &mut Aggregator,
) -> Result<(), InputError> {
    let mut csv = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(super::lines::LineCounter::new(reader));
    let headers = csv
        .headers()
        .map_err(|e| InputError::file(InputErrorKind::Syntax, label, format!("CSV header: {e}")))?
        .clone();
    let col = |names: &[&str]| headers.iter().position(|h| names.contains(&h.trim()));
    let cols = [
        col(&["model"]),
        col(&["model_group"]),
        col(&["custom_llm_provider"]),
        col(&["startTime", "start_time"]),
        col(&["endTime", "end_time"]),
        col(&["request_duration_ms"]),
        col(&["prompt_tokens"]),
        col(&["completion_tokens"]),
        col(&["status"]),
        col(&["session_id"]),
        col(&["metadata"]),
    ];
    let mut routes = Routes::default();
    let mut rec = csv::ByteRecord::new();
    loop {
        match csv.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                let line = rec
                    .position()
                    .map_or(0, |p| csv.get_mut().line_at(p.byte()));
                let get = |i: Option<usize>| -> Str {
                    Str(i
                        .and_then(|i| rec.get(i))
                        .and_then(|b| std::str::from_utf8(b).ok())
                        .map(Cow::Borrowed))
                };
                let num = |i: Option<usize>| Num(get(i).get().and_then(|s| s.trim().parse().ok()));
                let r = Row {
                    model: get(cols[0]),
                    model_group: get(cols[1]),
                    custom_llm_provider: get(cols[2]),
                    start_time: get(cols[3]),
                    end_time: get(cols[4]),
                    request_duration_ms: num(cols[5]),
                    prompt_tokens: num(cols[6]),
                    completion_tokens: num(cols[7]),
                    status: get(cols[8]),
                    session_id: get(cols[9]),
                    metadata: MetaField(get(cols[10]).get().and_then(parse_meta)),
                };
                row(label, line, r, agg, &mut routes);
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| csv.get_mut().line_at(p.byte()));
                agg.bad(label, line, format!("CSV: {e}"));
                if !matches!(
                    e.kind(),
                    csv::ErrorKind::UnequalLengths { .. } | csv::ErrorKind::Utf8 { .. }
                ) {
                    break;
                }
            }
        }
    }
    finish(routes, agg);
    Ok(())
}

/// Counts the newlines read through it, for the line of a JSON array's element.
struct Lines<R> {
    inner: R,
    line: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let k = buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
        self.line.set(self.line.get() + k);
        Ok(n)
    }
}

/// Read LiteLLM spend logs as a JSON array of rows (streamed element by element) or JSON lines.
///
/// Errors: an I/O failure (unreadable rows, and a syntax error that ends the array early, are
/// counted with their line).
pub fn read_json<R: BufRead>(
    label: &str,
    reader: &mut R,
    agg: &mut Aggregator,
) -> Result<(), InputError> {
    let io = |e: std::io::Error| {
        InputError::file(InputErrorKind::Read, label, format!("cannot read: {e}"))
    };
    let starts_array = loop {
        let buf = reader.fill_buf().map_err(io)?;
        match buf
            .iter()
            .position(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF)
        {
            Some(i) => {
                let c = buf[i];
                break c == b'[';
            }
            None if buf.is_empty() => return Ok(()),
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    };
    let mut routes = Routes::default();
    if starts_array {
        let line = std::rc::Rc::new(std::cell::Cell::new(1u64));
        // Lines are counted from 1: the count after k newlines is line k + 1.
        let lines = Lines {
            inner: reader,
            line: line.clone(),
        };
        struct Rows<'x> {
            label: &'x str,
            agg: &'x mut Aggregator,
            routes: &'x mut Routes,
            line: std::rc::Rc<std::cell::Cell<u64>>,
        }
        impl<'de> Visitor<'de> for Rows<'_> {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of spend-log rows")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                loop {
                    match seq.next_element::<OwnedRow>() {
                        // The line the element ends on: its line, for one row per line.
                        Ok(Some(r)) => row(self.label, self.line.get(), r.0, self.agg, self.routes),
                        Ok(None) => return Ok(()),
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        // No second buffer: serde_json reads byte by byte, so the count is where it is.
        let mut de = serde_json::Deserializer::from_reader(lines);
        let visitor = Rows {
            label,
            agg,
            routes: &mut routes,
            line: line.clone(),
        };
        if let Err(e) = de.deserialize_seq(visitor) {
            if e.is_io() {
                return Err(InputError::file(
                    InputErrorKind::Read,
                    label,
                    format!("cannot read: {e}"),
                ));
            }
            agg.bad(label, e.line() as u64, super::json_problem(&e));
        }
    } else {
        for_each_line(reader, |line, bytes| {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            match serde_json::from_slice::<Row>(bytes) {
                Ok(r) => row(label, line, r, agg, &mut routes),
                Err(e) => agg.bad(
                    label,
                    line,
                    format!("not a spend-log row: {}", super::json_problem(&e)),
                ),
            }
        })
        .map_err(io)?;
    }
    finish(routes, agg);
    Ok(())
}

/// A [`Row`] read from a reader that cannot lend strings.
struct OwnedRow(Row<'static>);

impl<'de> Deserialize<'de> for OwnedRow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r: Row<'de> = Row::deserialize(d)?;
        Ok(OwnedRow(Row {
            model: own_str(r.model),
            model_group: own_str(r.model_group),
            custom_llm_provider: own_str(r.custom_llm_provider),
            start_time: own_str(r.start_time),
            end_time: own_str(r.end_time),
            request_duration_ms: r.request_duration_ms,
            prompt_tokens: r.prompt_tokens,
            completion_tokens: r.completion_tokens,
            status: own_str(r.status),
            session_id: own_str(r.session_id),
            metadata: r.metadata,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_as_json_text_is_read_like_an_object() {
        // SpendLogsPayload writes `metadata` as a JSON string; a database export as an object.
        let text = concat!(
            r#"{"startTime":"2026-07-18T10:00:00Z","endTime":"2026-07-18T10:00:02Z","model":"claude-sonnet-5","custom_llm_provider":"anthropic","prompt_tokens":1500,"completion_tokens":200,"status":"success","metadata":"{\"usage_object\":{\"cache_read_input_tokens\":1000,\"cache_creation_input_tokens\":0}}"}"#,
            "\n",
            r#"{"startTime":"2026-07-18T10:00:01Z","endTime":"2026-07-18T10:00:01.5Z","model":"claude-sonnet-5","custom_llm_provider":"anthropic","status":"failure","metadata":{"error_information":{"error_code":429,"error_class":"RateLimitError"}}}"#,
            "\n"
        );
        let mut agg = Aggregator::default();
        read_json("t.jsonl", &mut std::io::Cursor::new(text), &mut agg).unwrap();
        assert_eq!(agg.model_ids, ["anthropic/claude-sonnet-5"]);
        let m = &agg.models[0];
        assert_eq!((m.attempts, m.successes), (2, 1));
        assert_eq!(m.fresh.mean(), 500.0);
        assert_eq!(m.prefix.mean(), 1000.0);
        assert_eq!(m.cache.value(), 1.0);
        assert_eq!(m.failures[0].n, 1, "429 is a rate limit");
        assert_eq!(m.latency.quantile(0.5).unwrap().n, 1);
    }
}
