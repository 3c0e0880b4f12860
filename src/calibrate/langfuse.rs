//! Langfuse observations (the public API's `GET /api/public/observations`,
//! <https://api.reference.langfuse.com/#tag/observations>): one page as
//! `{"data": [...], "meta": {...}}`, a JSON array of observations, or JSON lines.
//!
//! Fields read: `id` (a duplicate is counted once), `traceId` (the observations of a trace are
//! one request up to the first that succeeds, as OTLP spans are), `type` (`GENERATION` is one
//! LLM call; `SPAN`, `EVENT`, `AGENT`, `TOOL`, `CHAIN`, `EMBEDDING`, ... are left out and
//! counted), `startTime`, `endTime` (ISO 8601), `model`, `usageDetails` (`input`, `output`;
//! the cache as `cache_read_input_tokens` / `input_cached_tokens` / `input_cache_read` and
//! `cache_creation_input_tokens` / `cache_write_input_tokens` / `input_cache_creation`), the
//! older `usage` (`input`/`output`, or `promptTokens`/`completionTokens`), `level` (`ERROR` is
//! a failure), `statusMessage` (only to classify an error: a status code 400 to 599 in it, or
//! a class word; never kept or quoted) and `sessionId` when the export carries it.
//!
//! Langfuse's usage types add up to the total
//! (<https://langfuse.com/docs/observability/features/token-and-cost-tracking>): `input`
//! excludes the cached tokens, so the input handed on is `input` + cache reads + cache
//! writes. The observation's own `input` and `output` (the messages) are skipped unread. A
//! model without a provider prefix gets one inferred from its name
//! ([`super::fields::infer_provider`]).

use std::io::BufRead;

use serde::Deserialize;

use super::litellm::{Num, Str};
use super::{Aggregator, LoggedAttempt, classify, hash_id, parse_time_ns};
use crate::error::{InputError, InputErrorKind};

/// `usageDetails` / `usage`: the keys read.
#[derive(Deserialize, Default)]
struct Usage {
    #[serde(default)]
    input: Num,
    #[serde(default)]
    output: Num,
    #[serde(default, rename = "promptTokens")]
    prompt_tokens: Num,
    #[serde(default, rename = "completionTokens")]
    completion_tokens: Num,
    #[serde(default, alias = "input_cached_tokens", alias = "input_cache_read")]
    cache_read_input_tokens: Num,
    #[serde(
        default,
        alias = "cache_write_input_tokens",
        alias = "input_cache_creation",
        alias = "input_cache_write"
    )]
    cache_creation_input_tokens: Num,
}

/// One observation: only the fields read.
#[derive(Deserialize, Default)]
struct Observation<'a> {
    #[serde(borrow, default)]
    id: Str<'a>,
    #[serde(borrow, default, rename = "traceId")]
    trace_id: Str<'a>,
    #[serde(borrow, default, rename = "type")]
    kind: Str<'a>,
    #[serde(borrow, default, rename = "startTime")]
    start_time: Str<'a>,
    #[serde(borrow, default, rename = "endTime")]
    end_time: Str<'a>,
    #[serde(borrow, default)]
    model: Str<'a>,
    #[serde(default, rename = "usageDetails")]
    usage_details: Option<Usage>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(borrow, default)]
    level: Str<'a>,
    #[serde(borrow, default, rename = "statusMessage")]
    status_message: Str<'a>,
    #[serde(borrow, default, rename = "sessionId")]
    session_id: Str<'a>,
}

/// What a non-GENERATION observation with a model is, for the summary of left-out records.
fn left_out(kind: &str) -> Option<&'static str> {
    match kind.to_ascii_uppercase().as_str() {
        "GENERATION" => None,
        "EMBEDDING" => Some("embeddings"),
        "AGENT" => Some("invoke_agent"),
        "TOOL" => Some("execute_tool"),
        _ => Some("another Langfuse observation type"),
    }
}

/// A status code (400 to 599) written in an error message, as SDK errors print one.
fn code_in(message: &str) -> Option<i64> {
    let b = message.as_bytes();
    (0..b.len().saturating_sub(2)).find_map(|i| {
        let w = &b[i..i + 3];
        let alone = (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 3).is_none_or(|c| !c.is_ascii_digit());
        if alone && w.iter().all(u8::is_ascii_digit) {
            let c =
                i64::from(w[0] - b'0') * 100 + i64::from(w[1] - b'0') * 10 + i64::from(w[2] - b'0');
            (400..=599).contains(&c).then_some(c)
        } else {
            None
        }
    })
}

fn one(label: &str, line: u64, o: Observation, agg: &mut Aggregator) {
    let Some(model) = o.model.get() else {
        return;
    };
    if let Some(what) = o.kind.get().and_then(left_out) {
        agg.left_out(what);
        return;
    }
    let Some(start) = o.start_time.get().and_then(parse_time_ns) else {
        agg.bad(
            label,
            line,
            "no readable `startTime` (ISO 8601, before 2262)",
        );
        return;
    };
    let Some(end) = o
        .end_time
        .get()
        .and_then(parse_time_ns)
        .filter(|e| *e >= start)
    else {
        agg.bad(
            label,
            line,
            "no readable `endTime` at or after `startTime` (an observation never ended?)",
        );
        return;
    };
    let failed = o
        .level
        .get()
        .is_some_and(|l| l.eq_ignore_ascii_case("ERROR"));
    let u = o.usage_details.as_ref().or(o.usage.as_ref());
    let [input, read, write, output] = tokens(label, line, u, agg);
    let provider = super::fields::infer_provider(model);
    if provider.is_some() && !model.contains('/') {
        agg.provider_inferred += 1;
    }
    let m = agg.model(provider, model);
    let failure = failed.then(|| {
        let msg = o.status_message.get().unwrap_or("");
        let code = code_in(msg);
        if code.is_none() && super::classify_word(msg).is_none() {
            agg.unclassified += 1;
        }
        classify(code, Some(msg))
    });
    let attempt = LoggedAttempt {
        model: m,
        start_ns: start,
        duration_s: (end - start) as f64 * 1e-9,
        failure,
        input_tokens: input,
        cache_read: read,
        cache_write: write,
        output_tokens: output,
    };
    if !agg.accept(label, line, &attempt, o.id.get().map(hash_id)) {
        return;
    }
    let session = o.session_id.get().map(hash_id);
    let key = match o.trace_id.get() {
        Some(t) => hash_id(t),
        None => hash_id(&format!("{label}:{line}:{start}")),
    };
    agg.open_attempt(key, &attempt, session);
}

/// An observation's token counts from its usage `u`: input (the cached tokens included), cache
/// read, cache write, output; a negative or fractional count dropped (and reported on `agg`).
fn tokens(label: &str, line: u64, u: Option<&Usage>, agg: &mut Aggregator) -> [Option<u64>; 4] {
    let mut dropped = Vec::new();
    let mut tok = |n: Option<Num>, name: &'static str| match n.map(Num::tokens) {
        Some(Ok(x)) => x,
        Some(Err(())) => {
            dropped.push(name);
            None
        }
        None => None,
    };
    let fresh = tok(u.map(|u| u.input), "input").or(tok(u.map(|u| u.prompt_tokens), "input"));
    let output =
        tok(u.map(|u| u.output), "output").or(tok(u.map(|u| u.completion_tokens), "output"));
    let read = tok(u.map(|u| u.cache_read_input_tokens), "cache read");
    let write = tok(u.map(|u| u.cache_creation_input_tokens), "cache write");
    agg.dropped_tokens(label, line, &dropped);
    // Langfuse's `input` excludes the cache: the input with the cached tokens.
    let input = fresh.map(|f| {
        f.saturating_add(read.unwrap_or(0))
            .saturating_add(write.unwrap_or(0))
    });
    [input, read, write, output]
}

/// Read Langfuse observations: a `{"data": [...]}` page, a JSON array or JSON lines, each
/// element one observation ([`super::array`]: a bad element is one unreadable record).
///
/// Errors: an I/O failure; a page whose first key is not `data`.
pub fn read<R: BufRead>(
    label: &str,
    reader: &mut R,
    agg: &mut Aggregator,
) -> Result<(), InputError> {
    let io = |e: std::io::Error| {
        InputError::file(InputErrorKind::Read, label, format!("cannot read: {e}"))
    };
    let each = |line: u64, bytes: &[u8], agg: &mut Aggregator| {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        match serde_json::from_slice::<Observation>(bytes) {
            Ok(o) => one(label, line, o, agg),
            Err(e) => agg.bad(
                label,
                line,
                format!("not a Langfuse observation: {}", super::json_problem(&e)),
            ),
        }
    };
    match super::array::open(reader).map_err(io)? {
        super::array::Opening::Array(first_line) => {
            super::array::elements_from(reader, first_line, |l, b| each(l, b, agg)).map_err(io)?;
        }
        super::array::Opening::Lines(first) => {
            super::for_each_line_from(reader, first, |l, b| each(l, b, agg)).map_err(io)?;
        }
        super::array::Opening::OtherKey => {
            return Err(InputError::file(
                InputErrorKind::Schema,
                label,
                "a JSON object whose first key is not `data`: expected a Langfuse API page {\"data\": [observations], \"meta\": ...}, an array of observations, or one per line",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_in_messages() {
        assert_eq!(code_in("Error code: 429 - rate limited"), Some(429));
        assert_eq!(code_in("529"), Some(529));
        assert_eq!(code_in("took 4290 ms"), None);
        assert_eq!(code_in("200 OK"), None);
        assert_eq!(code_in(""), None);
    }

    #[test]
    fn a_page_is_read_and_input_excludes_the_cache() {
        let text = r#"{"data": [
 {"id":"a","traceId":"t1","type":"GENERATION","startTime":"2026-07-18T10:00:00Z","endTime":"2026-07-18T10:00:02Z","model":"claude-sonnet-5","usageDetails":{"input":500,"output":200,"cache_read_input_tokens":1000,"cache_creation_input_tokens":0},"level":"DEFAULT","input":"secret"},
 {"id":"b","traceId":"t2","type":"SPAN","model":"claude-sonnet-5","startTime":"2026-07-18T10:00:00Z","endTime":"2026-07-18T10:00:09Z"},
 {"id":"c","traceId":"t3","type":"GENERATION","startTime":"2026-07-18T10:00:01Z","endTime":"2026-07-18T10:00:01.5Z","model":"claude-sonnet-5","level":"ERROR","statusMessage":"Error code: 429"}
], "meta": {"page": 1, "limit": 50, "totalItems": 3, "totalPages": 1}}"#;
        let mut agg = Aggregator::default();
        read("o.json", &mut std::io::Cursor::new(text), &mut agg).unwrap();
        agg.end_input();
        assert_eq!(agg.model_ids, ["anthropic/claude-sonnet-5"]);
        let m = &agg.models[0];
        assert_eq!((m.attempts, m.successes), (2, 1));
        let p = m.cache.profile();
        assert_eq!(p.fresh.mean(), 500.0);
        assert_eq!(p.prefix.mean(), 1000.0);
        assert_eq!(m.class_failures[0], 1, "429 is a rate limit");
        assert_eq!(agg.left_out.values().sum::<u64>(), 1);
    }
}
