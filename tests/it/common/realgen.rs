//! The same known traffic ([`super::loggen`]'s requests) written the way real instrumentation
//! writes it: OTel GenAI semconv after and before 1.37, OpenLLMetry, OpenInference, LiteLLM's
//! OTel callback, Langfuse observations (an API page and an array), and LiteLLM spend logs
//! with embedding rows and response-cache hits. Each dialect also writes the records that are
//! not LLM calls but name a model (an agent span over the whole request, an embedding call),
//! which calibrate must leave out. Every record carries [`SECRET`] in its prompt fields.

#![allow(dead_code)]

use std::io::Write;

use super::loggen::{Fail, Req, SECRET, Truth, each_request};

/// An OTLP dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OTel GenAI semconv 1.37 and later: `gen_ai.provider.name`, `gen_ai.operation.name`,
    /// `gen_ai.usage.input_tokens` (cache included), `gen_ai.usage.cache_read.input_tokens`,
    /// `gen_ai.usage.cache_creation.input_tokens`, `gen_ai.conversation.id`; an `invoke_agent`
    /// span with the model over each request and an `embeddings` span.
    Semconv,
    /// Before 1.37: `gen_ai.system`, `gen_ai.usage.prompt_tokens` / `completion_tokens`, no
    /// cache attributes, no conversation id.
    SemconvOld,
    /// OpenLLMetry (traceloop): `gen_ai.system` capitalised (`Anthropic`), `llm.request.type`,
    /// `gen_ai.usage.cache_read_input_tokens` / `cache_creation_input_tokens`, the session as
    /// the association property `traceloop.association.properties.session_id`; a workflow span
    /// without a model, and an `embedding` request type with one.
    OpenLlmetry,
    /// OpenInference: `openinference.span.kind`, `llm.provider`, `llm.model_name`,
    /// `llm.token_count.prompt` (cache included), `llm.token_count.prompt_details.cache_read`
    /// / `cache_write`, `llm.token_count.completion`, `session.id`; an AGENT span with the
    /// model. Errors carry only the span status (no status code or error type).
    OpenInference,
    /// LiteLLM's OTel callback: `gen_ai.system`, `gen_ai.request.model`,
    /// `gen_ai.usage.prompt_tokens`, no cache attributes, no session.
    LiteLlmOtel,
}

impl Dialect {
    /// Whether the dialect carries the cache counts.
    pub fn has_cache(self) -> bool {
        matches!(
            self,
            Dialect::Semconv | Dialect::OpenLlmetry | Dialect::OpenInference
        )
    }

    /// Whether it carries a session id.
    pub fn has_sessions(self) -> bool {
        matches!(
            self,
            Dialect::Semconv | Dialect::OpenLlmetry | Dialect::OpenInference
        )
    }

    /// Whether its errors carry a status code or error type (the class mix is recoverable).
    pub fn has_classes(self) -> bool {
        !matches!(self, Dialect::OpenInference)
    }
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

fn kv_s(k: &str, v: &str) -> String {
    format!(r#"{{"key":"{k}","value":{{"stringValue":"{v}"}}}}"#)
}

fn kv_i(k: &str, v: u64) -> String {
    format!(r#"{{"key":"{k}","value":{{"intValue":"{v}"}}}}"#)
}

fn code_of(f: Fail) -> (u16, &'static str) {
    match f {
        Fail::Gray => (0, "timeout"),
        Fail::RateLimit => (429, "RateLimitError"),
        Fail::Overload => (529, "overloaded_error"),
        Fail::Server => (500, "InternalServerError"),
    }
}

/// One OTLP/JSON export line holding one request's spans in `dialect`.
pub fn otlp_line(truth: &Truth, r: &Req, dialect: Dialect) -> String {
    let trace = format!("{:032x}", r.id + 1);
    let first = &r.attempts[0];
    let last = r.attempts.last().unwrap();
    let (t0, t1) = (first.start_s, last.start_s + last.duration_s);
    let (provider0, name0) = truth.models[0].split_once('/').unwrap();
    let mut spans = Vec::new();
    let span = |id: u64, name: &str, start: f64, end: f64, attrs: &[String], status: &str| {
        format!(
            r#"{{"traceId":"{trace}","spanId":"{id:016x}","name":"{name}","kind":3,"startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{}],"events":[{{"timeUnixNano":"{}","name":"gen_ai.content.prompt","attributes":[{}]}}],"status":{status}}}"#,
            ns(start),
            ns(end),
            attrs.join(","),
            ns(start),
            kv_s("gen_ai.prompt", SECRET)
        )
    };
    let ok_status = r#"{"code":1}"#;
    let outcome = if last.fail.is_none() {
        ok_status.to_string()
    } else {
        r#"{"code":2}"#.to_string()
    };
    // The records that are not calls but name a model.
    match dialect {
        Dialect::Semconv | Dialect::SemconvOld => {
            let sys = if dialect == Dialect::Semconv {
                "gen_ai.provider.name"
            } else {
                "gen_ai.system"
            };
            spans.push(span(
                r.id * 16 + 1,
                "invoke_agent helper",
                t0,
                t1,
                &[
                    kv_s("gen_ai.operation.name", "invoke_agent"),
                    kv_s(sys, provider0),
                    kv_s("gen_ai.request.model", name0),
                    kv_i("gen_ai.usage.input_tokens", 99_999),
                ],
                &outcome,
            ));
            spans.push(span(
                r.id * 16 + 2,
                "embeddings text-embedding-4",
                t0 - 0.2,
                t0 - 0.1,
                &[
                    kv_s("gen_ai.operation.name", "embeddings"),
                    kv_s(sys, "openai"),
                    kv_s("gen_ai.request.model", "text-embedding-4"),
                ],
                ok_status,
            ));
        }
        Dialect::OpenLlmetry => {
            spans.push(span(
                r.id * 16 + 1,
                "chat_workflow.workflow",
                t0,
                t1,
                &[
                    kv_s("traceloop.span.kind", "workflow"),
                    kv_s("traceloop.entity.input", SECRET),
                ],
                &outcome,
            ));
            spans.push(span(
                r.id * 16 + 2,
                "openai.embeddings",
                t0 - 0.2,
                t0 - 0.1,
                &[
                    kv_s("llm.request.type", "embedding"),
                    kv_s("gen_ai.system", "openai"),
                    kv_s("gen_ai.request.model", "text-embedding-4"),
                ],
                ok_status,
            ));
        }
        Dialect::OpenInference => {
            spans.push(span(
                r.id * 16 + 1,
                "Agent",
                t0,
                t1,
                &[
                    kv_s("openinference.span.kind", "AGENT"),
                    kv_s("llm.model_name", name0),
                    kv_s("llm.provider", provider0),
                    kv_s("input.value", SECRET),
                ],
                &outcome,
            ));
            spans.push(span(
                r.id * 16 + 2,
                "CreateEmbeddings",
                t0 - 0.2,
                t0 - 0.1,
                &[
                    kv_s("openinference.span.kind", "EMBEDDING"),
                    kv_s("embedding.model_name", "text-embedding-4"),
                    kv_s("llm.model_name", "text-embedding-4"),
                ],
                ok_status,
            ));
        }
        Dialect::LiteLlmOtel => {
            // The proxy's request span: no model.
            spans.push(span(
                r.id * 16 + 1,
                "Received Proxy Server Request",
                t0,
                t1,
                &[kv_s("http.request.method", "POST")],
                &outcome,
            ));
        }
    }
    for (k, a) in r.attempts.iter().enumerate() {
        let (provider, name) = truth.models[a.link].split_once('/').unwrap();
        let input = a.fresh + a.cache_read + a.cache_write;
        let mut attrs = Vec::new();
        match dialect {
            Dialect::Semconv => {
                attrs.push(kv_s("gen_ai.operation.name", "chat"));
                attrs.push(kv_s("gen_ai.provider.name", provider));
                attrs.push(kv_s("gen_ai.request.model", name));
                attrs.push(kv_s(
                    "gen_ai.conversation.id",
                    &format!("conv-{}", r.session),
                ));
            }
            Dialect::SemconvOld => {
                attrs.push(kv_s("gen_ai.operation.name", "chat"));
                attrs.push(kv_s("gen_ai.system", provider));
                attrs.push(kv_s("gen_ai.request.model", name));
            }
            Dialect::OpenLlmetry => {
                let cap = match provider {
                    "anthropic" => "Anthropic",
                    "openai" => "OpenAI",
                    p => p,
                };
                attrs.push(kv_s("llm.request.type", "chat"));
                attrs.push(kv_s("gen_ai.system", cap));
                attrs.push(kv_s("gen_ai.request.model", name));
                attrs.push(kv_s(
                    "traceloop.association.properties.session_id",
                    &format!("s-{}", r.session),
                ));
            }
            Dialect::OpenInference => {
                attrs.push(kv_s("openinference.span.kind", "LLM"));
                attrs.push(kv_s("llm.provider", provider));
                attrs.push(kv_s("llm.system", provider));
                attrs.push(kv_s("llm.model_name", name));
                attrs.push(kv_s("session.id", &format!("s-{}", r.session)));
            }
            Dialect::LiteLlmOtel => {
                attrs.push(kv_s("gen_ai.system", provider));
                attrs.push(kv_s("gen_ai.request.model", name));
                attrs.push(kv_s("llm.is_streaming", "False"));
            }
        }
        attrs.push(kv_s("gen_ai.prompt.0.content", SECRET));
        let status = match a.fail {
            None => {
                match dialect {
                    Dialect::Semconv => {
                        attrs.push(kv_i("gen_ai.usage.input_tokens", input));
                        attrs.push(kv_i("gen_ai.usage.cache_read.input_tokens", a.cache_read));
                        attrs.push(kv_i(
                            "gen_ai.usage.cache_creation.input_tokens",
                            a.cache_write,
                        ));
                        attrs.push(kv_i("gen_ai.usage.output_tokens", a.output));
                    }
                    Dialect::SemconvOld | Dialect::LiteLlmOtel => {
                        attrs.push(kv_i("gen_ai.usage.prompt_tokens", input));
                        attrs.push(kv_i("gen_ai.usage.completion_tokens", a.output));
                    }
                    Dialect::OpenLlmetry => {
                        attrs.push(kv_i("gen_ai.usage.input_tokens", input));
                        attrs.push(kv_i("gen_ai.usage.cache_read_input_tokens", a.cache_read));
                        attrs.push(kv_i(
                            "gen_ai.usage.cache_creation_input_tokens",
                            a.cache_write,
                        ));
                        attrs.push(kv_i("gen_ai.usage.output_tokens", a.output));
                    }
                    Dialect::OpenInference => {
                        attrs.push(kv_i("llm.token_count.prompt", input));
                        attrs.push(kv_i(
                            "llm.token_count.prompt_details.cache_read",
                            a.cache_read,
                        ));
                        attrs.push(kv_i(
                            "llm.token_count.prompt_details.cache_write",
                            a.cache_write,
                        ));
                        attrs.push(kv_i("llm.token_count.completion", a.output));
                    }
                }
                ok_status.to_string()
            }
            Some(f) => {
                let (code, ty) = code_of(f);
                if dialect.has_classes() {
                    if code > 0 {
                        attrs.push(kv_s("error.type", &code.to_string()));
                        attrs.push(kv_i("http.response.status_code", u64::from(code)));
                    } else {
                        attrs.push(kv_s("error.type", ty));
                    }
                }
                format!(r#"{{"code":2,"message":"{SECRET}"}}"#)
            }
        };
        spans.push(span(
            r.id * 16 + 4 + k as u64,
            &format!("chat {name}"),
            a.start_s,
            a.start_s + a.duration_s,
            &attrs,
            &status,
        ));
    }
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[{}]}},"scopeSpans":[{{"scope":{{"name":"gen","version":"1"}},"spans":[{}]}}]}}]}}"#,
        kv_s("service.name", "chat-api"),
        spans.join(",")
    )
}

/// Write `n` requests in `dialect` as OTLP/JSON lines; `drop_errors` leaves out every failed
/// call's span (an instrumentation that ends no span when the call raises).
pub fn write_otlp(
    truth: &Truth,
    n: u64,
    seed: u64,
    dialect: Dialect,
    drop_errors: bool,
    w: &mut impl Write,
) {
    each_request(truth, n, seed, |mut r| {
        if drop_errors {
            r.attempts.retain(|a| a.fail.is_none());
            if r.attempts.is_empty() {
                return;
            }
        }
        writeln!(w, "{}", otlp_line(truth, &r, dialect)).unwrap();
    });
}

fn iso(s: f64) -> String {
    super::loggen::iso_time(s)
}

/// One request's Langfuse observations: a SPAN over the request (no model), an EMBEDDING with
/// a model, and one GENERATION per attempt (`usageDetails.input` without the cached tokens).
pub fn langfuse_observations(truth: &Truth, r: &Req) -> Vec<String> {
    let trace = format!("t-{}", r.id);
    let first = &r.attempts[0];
    let last = r.attempts.last().unwrap();
    let mut out = vec![
        format!(
            r#"{{"id":"o-{}-root","traceId":"{trace}","type":"SPAN","name":"handler","startTime":"{}","endTime":"{}","input":"{SECRET}","output":"{SECRET}","level":"DEFAULT","sessionId":"s-{}"}}"#,
            r.id,
            iso(first.start_s),
            iso(last.start_s + last.duration_s),
            r.session
        ),
        format!(
            r#"{{"id":"o-{}-emb","traceId":"{trace}","type":"EMBEDDING","name":"embed","startTime":"{}","endTime":"{}","model":"text-embedding-4","usageDetails":{{"input":12}},"level":"DEFAULT"}}"#,
            r.id,
            iso(first.start_s - 0.2),
            iso(first.start_s - 0.1)
        ),
    ];
    for (k, a) in r.attempts.iter().enumerate() {
        let name = truth.models[a.link].split_once('/').unwrap().1;
        let (level, message, usage) = match a.fail {
            None => (
                "DEFAULT",
                String::from("null"),
                format!(
                    r#"{{"input":{},"output":{},"total":{},"cache_read_input_tokens":{},"cache_creation_input_tokens":{}}}"#,
                    a.fresh,
                    a.output,
                    a.fresh + a.cache_read + a.cache_write + a.output,
                    a.cache_read,
                    a.cache_write
                ),
            ),
            Some(f) => {
                let msg = match f {
                    Fail::Gray => format!("Request timed out. {SECRET}"),
                    f => format!("Error code: {} - {SECRET}", code_of(f).0),
                };
                ("ERROR", format!("\"{msg}\""), String::from("{}"))
            }
        };
        out.push(format!(
            r#"{{"id":"o-{}-{k}","traceId":"{trace}","type":"GENERATION","name":"chat","startTime":"{}","endTime":"{}","model":"{name}","modelParameters":{{"temperature":"0"}},"input":[{{"role":"user","content":"{SECRET}"}}],"output":{{"content":"{SECRET}"}},"usageDetails":{usage},"level":"{level}","statusMessage":{message},"sessionId":"s-{}"}}"#,
            r.id,
            iso(a.start_s),
            iso(a.start_s + a.duration_s),
            r.session
        ));
    }
    out
}

/// Write `n` requests as Langfuse observations: `"page"` (`{"data": [...], "meta": ...}`) or
/// `"array"`.
pub fn write_langfuse(truth: &Truth, n: u64, seed: u64, form: &str, w: &mut impl Write) {
    let mut all = Vec::new();
    each_request(truth, n, seed, |r| {
        all.extend(langfuse_observations(truth, &r))
    });
    let body = all.join(",\n  ");
    match form {
        "page" => write!(
            w,
            "{{\"data\": [\n  {body}\n], \"meta\": {{\"page\": 1, \"limit\": {}, \"totalItems\": {}, \"totalPages\": 1}}}}\n",
            all.len(),
            all.len()
        )
        .unwrap(),
        _ => write!(w, "[\n  {body}\n]\n").unwrap(),
    }
}

/// LiteLLM spend-log rows (JSON lines) of `n` requests, with an embedding row before every
/// request and a response-cache hit after every tenth (neither is a provider call); as a
/// `/spend/logs` page when `page`.
pub fn write_litellm_with_extras(truth: &Truth, n: u64, seed: u64, page: bool, w: &mut impl Write) {
    let mut rows = Vec::new();
    each_request(truth, n, seed, |r| {
        let start = r.attempts[0].start_s;
        rows.push(format!(
            r#"{{"request_id":"emb-{}","call_type":"aembedding","startTime":"{}","endTime":"{}","model":"text-embedding-4","model_group":"text-embedding-4","custom_llm_provider":"openai","prompt_tokens":12,"completion_tokens":0,"status":"success","metadata":{{}},"cache_hit":"False","messages":"{SECRET}"}}"#,
            r.id,
            iso(start - 0.2),
            iso(start - 0.1)
        ));
        rows.extend(super::loggen::litellm_rows(truth, &r));
        if r.id % 10 == 0 {
            rows.push(format!(
                r#"{{"request_id":"hit-{}","call_type":"acompletion","startTime":"{}","endTime":"{}","model":"claude-sonnet-5","model_group":"claude-sonnet-5","custom_llm_provider":"anthropic","prompt_tokens":5000,"completion_tokens":300,"status":"success","metadata":{{}},"cache_hit":"True","session_id":"sess-{}","messages":"{SECRET}"}}"#,
                r.id,
                iso(start + 0.01),
                iso(start + 0.02),
                r.session
            ));
        }
    });
    if page {
        write!(
            w,
            "{{\"data\": [\n{}\n], \"total\": {}, \"page\": 1, \"page_size\": {}, \"total_pages\": 1}}\n",
            rows.join(",\n"),
            rows.len(),
            rows.len()
        )
        .unwrap();
    } else {
        for row in rows {
            writeln!(w, "{row}").unwrap();
        }
    }
}
