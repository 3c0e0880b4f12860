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
use std::io::BufRead;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use super::{Aggregator, LinkStats, LoggedAttempt, classify, hash_id, parse_time_ns};
use crate::error::{InputError, InputErrorKind};

/// A number that may be written as a string (CSV, or JSON from a text column).
#[derive(Clone, Copy, Default)]
pub(super) struct Num(Option<f64>);

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
    /// A token count: `Err` for a negative or fractional one (unreadable, never dropped).
    pub(super) fn tokens(self) -> Result<Option<u64>, ()> {
        match self.0 {
            None => Ok(None),
            Some(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 => Ok(Some(x as u64)),
            Some(_) => Err(()),
        }
    }

    /// A count where a bad value means none (the router's `attempted_fallbacks`).
    fn count(self) -> Option<u64> {
        self.tokens().ok().flatten()
    }
}

/// A string field (a number is taken as its text: `error_code` comes both ways).
#[derive(Default)]
pub(super) struct Str<'a>(Option<Cow<'a, str>>);

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
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Borrowed(if v { "true" } else { "false" }))))
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
    pub(super) fn get(&self) -> Option<&str> {
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

/// `metadata`: an object, or the JSON text of one (CSV exports, `SpendLogsPayload`); `bad`
/// when the text is not JSON of that shape (the row is read without it, and counted).
#[derive(Default)]
struct MetaField(Option<Meta<'static>>, bool);

impl<'de> Deserialize<'de> for MetaField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetaField;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object or its JSON text")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MetaField, E> {
                Ok(parse_meta(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<MetaField, E> {
                Ok(MetaField(None, false))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<MetaField, A::Error> {
                let m: OwnedMeta =
                    Deserialize::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(MetaField(Some(m.0), false))
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

fn parse_meta(text: &str) -> MetaField {
    let t = text.trim();
    if t.is_empty() || t == "{}" || t == "null" {
        return MetaField(None, false);
    }
    match serde_json::from_str::<Meta>(t) {
        Ok(m) => MetaField(Some(own(m)), false),
        Err(_) => MetaField(None, true),
    }
}

/// One spend-log row: only the fields read.
#[derive(Deserialize, Default)]
struct Row<'a> {
    #[serde(borrow, default)]
    request_id: Str<'a>,
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
    #[serde(borrow, default)]
    call_type: Str<'a>,
    #[serde(borrow, default)]
    cache_hit: Str<'a>,
}

/// Routes waiting for their groups' models: (primary group, answering position, model).
#[derive(Default)]
struct Routes {
    counts: HashMap<(String, usize, usize), u64>,
    /// Per (primary group, model): the attempts and failures on that chain.
    links: HashMap<(String, usize), LinkStats>,
    /// Requests per model_group and model index, to name a group's model.
    group_models: HashMap<String, HashMap<usize, u64>>,
    /// First attempts (rows without `attempted_fallbacks`) per group: the requests that
    /// start there, answered or not (a model that only failed keeps its traffic).
    first_attempts: HashMap<String, u64>,
}

/// A row's start and duration, or why they are unreadable.
fn times(r: &Row) -> Result<(i64, f64), &'static str> {
    let start = r
        .start_time
        .get()
        .and_then(parse_time_ns)
        .ok_or("no readable `startTime` (ISO 8601, before 2262)")?;
    match r.end_time.get().and_then(parse_time_ns) {
        Some(end) if end >= start => Ok((start, (end - start) as f64 * 1e-9)),
        _ => match r.request_duration_ms.0 {
            Some(ms) if ms >= 0.0 => Ok((start, ms / 1e3)),
            _ => Err("no readable `endTime` or `request_duration_ms`"),
        },
    }
}

/// The row's token counts (input, cache read, cache write, output): the row's columns first,
/// then `metadata.usage_object`, then `additional_usage_values`. A negative or fractional
/// count is dropped (read as absent, the row kept) and named in `dropped`.
fn usage(r: &Row, meta: &Meta, dropped: &mut Vec<&'static str>) -> [Option<u64>; 4] {
    let mut ok = |n: Num, name: &'static str| match n.tokens() {
        Ok(x) => x,
        Err(()) => {
            if !dropped.contains(&name) {
                dropped.push(name);
            }
            None
        }
    };
    let usage = meta.usage_object.as_ref();
    let extra = meta.additional_usage_values.as_ref();
    let mut pick = |f: fn(&Usage) -> Num, name: &'static str| -> Option<u64> {
        usage
            .and_then(|u| ok(f(u), name))
            .or_else(|| extra.and_then(|u| ok(f(u), name)))
    };
    let cache_read = pick(|u| u.cache_read_input_tokens, "cache read");
    let cache_write = pick(|u| u.cache_creation_input_tokens, "cache write");
    let input_u = pick(|u| u.prompt_tokens, "prompt_tokens");
    let output_u = pick(|u| u.completion_tokens, "completion_tokens");
    let cached = usage
        .and_then(|u| u.prompt_tokens_details.as_ref())
        .and_then(|d| ok(d.cached_tokens, "cached_tokens"));
    let input = ok(r.prompt_tokens, "prompt_tokens").or(input_u);
    let output = ok(r.completion_tokens, "completion_tokens").or(output_u);
    [input, cache_read.or(cached), cache_write, output]
}

fn row(label: &str, line: u64, mut r: Row, agg: &mut Aggregator, routes: &mut Routes) {
    let Some(model) = r.model.get().or(r.model_group.get()) else {
        agg.bad(label, line, "no `model`");
        return;
    };
    if let Some(what) = r
        .call_type
        .get()
        .and_then(super::fields::left_out_call_type)
    {
        agg.left_out(what);
        return;
    }
    // LiteLLM's own response cache answered: no provider was called.
    if r.cache_hit
        .get()
        .is_some_and(|c| c.eq_ignore_ascii_case("true"))
    {
        agg.left_out("LiteLLM response-cache hits (cache_hit = True)");
        return;
    }
    let (start, duration_s) = match times(&r) {
        Ok(t) => t,
        Err(m) => return agg.bad(label, line, m),
    };
    if r.metadata.1 {
        agg.bad_metadata(label, line);
    }
    let meta = r.metadata.0.take().unwrap_or_default();
    let mut dropped = Vec::new();
    let [input_tokens, cache_read, cache_write, output_tokens] = usage(&r, &meta, &mut dropped);
    agg.dropped_tokens(label, line, &dropped);
    let status = r.status.get().or(meta.status.get()).unwrap_or("success");
    let failed = status.eq_ignore_ascii_case("failure") || status.eq_ignore_ascii_case("error");
    let provider = r.custom_llm_provider.get().map(super::provider_prefix);
    let m = agg.model(provider.as_deref(), model);
    let failure = failed.then(|| failure_class(&meta, agg));
    let attempt = LoggedAttempt {
        model: m,
        start_ns: start,
        duration_s,
        failure,
        input_tokens,
        cache_read,
        cache_write,
        output_tokens,
    };
    if !agg.accept(label, line, &attempt, r.request_id.get().map(hash_id)) {
        return;
    }
    let group = r.model_group.get().unwrap_or(model).to_string();
    route(&attempt, group, r.session_id.get(), &meta, agg, routes);
}

/// Why a failed row failed, from its metadata's error code and class (counted as
/// unclassified when neither says).
fn failure_class(meta: &Meta, agg: &mut Aggregator) -> crate::model::policy::ErrorClass {
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
}

/// Record an accepted `attempt` of model group `group` on the routes: the group's model, a
/// request when it is a first attempt (of `session`), and the link and fallback depth under
/// the group the request started on.
fn route(
    attempt: &LoggedAttempt,
    group: String,
    session: Option<&str>,
    meta: &Meta,
    agg: &mut Aggregator,
    routes: &mut Routes,
) {
    let (m, start, failure, duration_s) = (
        attempt.model,
        attempt.start_ns,
        attempt.failure,
        attempt.duration_s,
    );
    *routes
        .group_models
        .entry(group.clone())
        .or_default()
        .entry(m)
        .or_insert(0) += 1;
    let depth = meta.attempted_fallbacks.count().unwrap_or(0) as usize;
    if depth == 0 {
        agg.request(start, session.map(hash_id), 1);
        *routes.first_attempts.entry(group.clone()).or_insert(0) += 1;
    }
    let primary = meta
        .original_model_group
        .get()
        .map(str::to_string)
        .unwrap_or(group);
    routes
        .links
        .entry((primary.clone(), m))
        .or_default()
        .add(failure, duration_s);
    if failure.is_none() {
        *routes.counts.entry((primary, depth, m)).or_insert(0) += 1;
    }
}

/// The model that served most of a group's rows.
fn group_model(routes: &Routes, group: &str) -> Option<usize> {
    routes.group_models.get(group).and_then(|ms| {
        ms.iter()
            .max_by_key(|(i, c)| (**c, std::cmp::Reverse(**i)))
            .map(|(i, _)| *i)
    })
}

fn finish(routes: Routes, agg: &mut Aggregator) {
    let mut counts: Vec<_> = routes.counts.iter().collect();
    counts.sort();
    for ((group, depth, m), n) in counts {
        let Some(primary) = group_model(&routes, group) else {
            continue;
        };
        let mut path = vec![None; depth + 1];
        path[0] = Some(primary);
        path[*depth] = Some(*m);
        agg.route(&path, Some(*depth), true, *n);
    }
    let mut links: Vec<_> = routes.links.iter().collect();
    links.sort_by(|a, b| a.0.cmp(b.0));
    for ((group, m), stats) in links {
        let Some(primary) = group_model(&routes, group) else {
            continue;
        };
        let chain = agg.chains.entry(primary).or_default();
        chain.links.entry(*m).or_default().merge(stats);
    }
    // The requests that start on a group: its first attempts, answered or not. Those not
    // answered on any logged link have no known outcome (the answer shares stay of the
    // answered), but they are the chain's traffic: a model that only failed keeps its share.
    let mut firsts: Vec<_> = routes.first_attempts.iter().collect();
    firsts.sort();
    for (group, n) in firsts {
        let Some(primary) = group_model(&routes, group) else {
            continue;
        };
        let chain = agg.chains.entry(primary).or_default();
        if chain.reached.is_empty() {
            chain.reached.push(HashMap::new());
            chain.answered.push(0);
        }
        if *n > chain.requests {
            *chain.reached[0].entry(primary).or_insert(0) += n - chain.requests;
            chain.requests = *n;
        }
    }
}

/// The columns read, by position in the header.
struct CsvColumns([Option<usize>; 14]);

impl CsvColumns {
    fn of(headers: &csv::ByteRecord) -> CsvColumns {
        let col = |names: &[&str]| {
            headers.iter().position(|h| {
                std::str::from_utf8(h)
                    .is_ok_and(|h| names.contains(&h.trim().trim_start_matches('\u{feff}')))
            })
        };
        CsvColumns([
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
            col(&["request_id"]),
            col(&["call_type"]),
            col(&["cache_hit"]),
        ])
    }

    fn row<'r>(&self, rec: &'r csv::ByteRecord) -> Row<'r> {
        let c = &self.0;
        let get = |i: Option<usize>| -> Str<'r> {
            Str(i
                .and_then(|i| rec.get(i))
                .and_then(|b| std::str::from_utf8(b).ok())
                .map(Cow::Borrowed))
        };
        let num = |i: Option<usize>| {
            let s = get(i);
            Num(s.get().and_then(|s| s.trim().parse().ok()))
        };
        Row {
            request_id: get(c[11]),
            model: get(c[0]),
            model_group: get(c[1]),
            custom_llm_provider: get(c[2]),
            start_time: get(c[3]),
            end_time: get(c[4]),
            request_duration_ms: num(c[5]),
            prompt_tokens: num(c[6]),
            completion_tokens: num(c[7]),
            status: get(c[8]),
            session_id: get(c[9]),
            metadata: get(c[10]).get().map(parse_meta).unwrap_or_default(),
            call_type: get(c[12]),
            cache_hit: get(c[13]),
        }
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
        .byte_headers()
        .map_err(|e| InputError::file(InputErrorKind::Syntax, label, format!("CSV header: {e}")))?
        .clone();
    let cols = CsvColumns::of(&headers);
    let mut routes = Routes::default();
    let mut rec = csv::ByteRecord::new();
    let mut starts = super::RecordLines::default();
    loop {
        match csv.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                let line = rec
                    .position()
                    .map_or(0, |p| csv.get_mut().line_at(p.byte()));
                starts.record(line);
                // A token column that is there but not a number is dropped (the row kept).
                let bad_num: Vec<&str> = [(6, "prompt_tokens"), (7, "completion_tokens")]
                    .iter()
                    .filter(|(k, _)| {
                        cols.0[*k]
                            .and_then(|i| rec.get(i))
                            .and_then(|b| std::str::from_utf8(b).ok())
                            .is_some_and(|s| {
                                !s.trim().is_empty() && s.trim().parse::<f64>().is_err()
                            })
                    })
                    .map(|(_, n)| *n)
                    .collect();
                if !bad_num.is_empty() {
                    agg.bad_field(
                        label,
                        line,
                        format!(
                            "a token count that is not a number ({}): the field is dropped",
                            bad_num.join(", ")
                        ),
                    );
                }
                row(label, line, cols.row(&rec), agg, &mut routes);
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
    finish(routes, agg);
    Ok(())
}

/// Read LiteLLM spend logs as a JSON array of rows (element by element, [`super::array`]), a
/// `/spend/logs` page `{"data": [rows], ...}`, or JSON lines.
///
/// Errors: an I/O failure (unreadable rows, and an array cut short, are counted with their
/// line).
pub fn read_json<R: BufRead>(
    label: &str,
    reader: &mut R,
    agg: &mut Aggregator,
) -> Result<(), InputError> {
    let io = |e: std::io::Error| {
        InputError::file(InputErrorKind::Read, label, format!("cannot read: {e}"))
    };
    let opening = super::array::open(reader).map_err(io)?;
    let mut routes = Routes::default();
    let mut one = |line: u64, bytes: &[u8], agg: &mut Aggregator| {
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
    };
    match opening {
        // An array cut short: its last, partial element is an unreadable row. A page of
        // `/spend/logs/v2` (`{"data": [...], "total": ...}`) is read as its array.
        super::array::Opening::Array(first) => {
            super::array::elements_from(reader, first, |line, bytes| one(line, bytes, agg))
                .map_err(io)?;
        }
        super::array::Opening::Lines(first) => {
            super::for_each_line_from(reader, first, |line, bytes| one(line, bytes, agg))
                .map_err(io)?;
        }
        super::array::Opening::OtherKey => {
            return Err(InputError::file(
                InputErrorKind::Schema,
                label,
                "a JSON object whose first key is not `data`: expected spend-log rows as a JSON array, one per line, or a /spend/logs page {\"data\": [rows], ...}",
            ));
        }
    }
    finish(routes, agg);
    Ok(())
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
        let p = m.cache.profile();
        assert_eq!(p.fresh.mean(), 500.0);
        assert_eq!(p.prefix.mean(), 1000.0);
        assert_eq!(p.hits.value(), 1.0);
        assert_eq!(m.class_failures[0], 1, "429 is a rate limit");
        assert_eq!(m.latency.quantile(0.5).unwrap().n, 1);
    }
}
