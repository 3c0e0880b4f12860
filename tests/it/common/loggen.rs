//! A seeded generator of request logs from known parameters, in each format `fallcost
//! calibrate` reads: OTLP/JSON GenAI spans, LiteLLM spend logs (CSV, JSON array, JSON lines)
//! and the plain CSV. Every record also carries prompt and completion text holding
//! [`SECRET`], which must never reach an output.

#![allow(dead_code)]

use std::io::Write;

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, LogNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Text in every prompt, completion and message of the generated logs.
pub const SECRET: &str = "SECRET-PROMPT-7f3a";

/// The generator's truth.
#[derive(Debug, Clone)]
pub struct Truth {
    /// Primary and fallback model ids (provider/model).
    pub models: [&'static str; 2],
    /// Failure rate of each link's attempts.
    pub failure_rates: [f64; 2],
    /// Share of the primary's failures that hang until the timeout (the fallback's never do).
    pub gray_share: f64,
    /// The client timeout, seconds.
    pub timeout_s: f64,
    /// Fast failures: median seconds (lognormal, sigma 0.5).
    pub fast_fail_s: f64,
    /// Shares of the primary's fast failures: rate limit (429), overload (529), server (500).
    pub fast_mix: [f64; 3],
    /// Success latency per link: (p50, p99) seconds, lognormal.
    pub latency: [(f64, f64); 2],
    /// Fresh input tokens: uniform on [lo, hi].
    pub fresh: (u64, u64),
    /// Prefix tokens per request.
    pub prefix: u64,
    /// Probability that the prefix is read from the cache (else written).
    pub hit: f64,
    /// Output tokens: uniform on [lo, hi].
    pub output: (u64, u64),
    /// Requests per session.
    pub session_length: u64,
    /// Poisson arrival rate, requests per second.
    pub rps: f64,
    /// How the usage reports the cache.
    pub usage: Usage,
    /// Added to every trace, request and session id (two logs with distinct ids).
    pub id_offset: u64,
}

/// How a provider's usage reports the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// Reads and writes (Anthropic: `cache_read_input_tokens`, `cache_creation_input_tokens`).
    Anthropic,
    /// Reads only, a miss reading 0 (OpenAI: `prompt_tokens_details.cached_tokens`).
    OpenAi,
    /// Reads only, the field left out on a miss (Gemini's `cached_content_token_count`, as
    /// instrumentations that omit a zero attribute write it).
    Gemini,
}

impl Usage {
    /// The cache read and write fields to write for an attempt: `None` is left out.
    pub fn fields(self, read: u64, write: u64) -> (Option<u64>, Option<u64>) {
        match self {
            Usage::Anthropic => (Some(read), Some(write)),
            Usage::OpenAi => (Some(read), None),
            Usage::Gemini => ((read > 0).then_some(read), None),
        }
    }
}

impl Default for Truth {
    fn default() -> Self {
        Truth {
            models: ["anthropic/claude-sonnet-5", "openai/gpt-6-sol"],
            failure_rates: [0.08, 0.02],
            gray_share: 0.4,
            timeout_s: 30.0,
            fast_fail_s: 0.4,
            fast_mix: [0.5, 0.3, 0.2],
            latency: [(2.0, 8.0), (1.5, 6.0)],
            fresh: (1000, 3000),
            prefix: 10_000,
            hit: 0.9,
            output: (200, 600),
            session_length: 8,
            rps: 5.0,
            usage: Usage::Anthropic,
            id_offset: 0,
        }
    }
}

/// Why an attempt failed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fail {
    /// Hung until the timeout.
    Gray,
    /// 429.
    RateLimit,
    /// 529.
    Overload,
    /// 500.
    Server,
}

/// One generated attempt.
#[derive(Debug, Clone)]
pub struct Att {
    pub link: usize,
    pub start_s: f64,
    pub duration_s: f64,
    pub fail: Option<Fail>,
    pub fresh: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output: u64,
}

/// One generated request.
#[derive(Debug, Clone)]
pub struct Req {
    pub id: u64,
    pub session: u64,
    pub attempts: Vec<Att>,
}

/// The requests, from `seed`.
pub fn requests(truth: &Truth, n: u64, seed: u64) -> Vec<Req> {
    let mut out = Vec::with_capacity(n as usize);
    each_request(truth, n, seed, |r| out.push(r));
    out
}

/// Call `f` with each of `n` requests from `seed`, without keeping them.
pub fn each_request(truth: &Truth, n: u64, seed: u64, mut f: impl FnMut(Req)) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let gaps = Exp::new(truth.rps).unwrap();
    let lat: Vec<LogNormal<f64>> = truth
        .latency
        .iter()
        .map(|(p50, p99)| LogNormal::new(p50.ln(), (p99 / p50).ln() / 2.326_347_874).unwrap())
        .collect();
    let fast = LogNormal::new(truth.fast_fail_s.ln(), 0.5).unwrap();
    let mut t = 1_784_368_800.0; // 2026-07-18T10:00:00Z
    for id in 0..n {
        t += gaps.sample(&mut rng);
        let mut attempts = Vec::new();
        let mut start = t;
        for (link, dist) in lat.iter().enumerate() {
            let fails = unif(&mut rng) < truth.failure_rates[link];
            let fail = fails.then(|| {
                if link == 0 && unif(&mut rng) < truth.gray_share {
                    Fail::Gray
                } else if link == 1 {
                    Fail::Server
                } else {
                    let u = unif(&mut rng);
                    if u < truth.fast_mix[0] {
                        Fail::RateLimit
                    } else if u < truth.fast_mix[0] + truth.fast_mix[1] {
                        Fail::Overload
                    } else {
                        Fail::Server
                    }
                }
            });
            let duration_s = match fail {
                None => dist.sample(&mut rng).min(truth.timeout_s * 0.95),
                Some(Fail::Gray) => truth.timeout_s + unif(&mut rng) * 0.05,
                Some(_) => fast.sample(&mut rng),
            };
            let fresh = between(&mut rng, truth.fresh);
            let hit = unif(&mut rng) < truth.hit;
            let output = between(&mut rng, truth.output);
            attempts.push(Att {
                link,
                start_s: start,
                duration_s,
                fail,
                fresh,
                cache_read: if hit { truth.prefix } else { 0 },
                cache_write: if hit { 0 } else { truth.prefix },
                output,
            });
            start += duration_s + 0.001;
            if fail.is_none() {
                break;
            }
        }
        f(Req {
            id: id + truth.id_offset,
            session: id / truth.session_length + truth.id_offset,
            attempts,
        });
    }
}

fn unif(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A whole number uniform on [lo, hi].
fn between(rng: &mut Xoshiro256PlusPlus, (lo, hi): (u64, u64)) -> u64 {
    lo + rng.next_u64() % (hi - lo + 1)
}

fn ns(s: f64) -> u64 {
    (s * 1e9).round() as u64
}

fn status_of(f: Fail) -> (u16, &'static str) {
    match f {
        Fail::Gray => (0, "timeout"),
        Fail::RateLimit => (429, "RateLimitError"),
        Fail::Overload => (529, "overloaded_error"),
        Fail::Server => (500, "InternalServerError"),
    }
}

/// One OTLP/JSON `ExportTraceServiceRequest` line holding one request's spans (an HTTP parent
/// span without GenAI attributes, then one `chat` span per attempt, each with prompt and
/// completion attributes and events carrying [`SECRET`]).
pub fn otlp_line(truth: &Truth, r: &Req) -> String {
    let trace = format!("{:032x}", r.id + 1);
    let mut spans = Vec::new();
    let first = &r.attempts[0];
    let last = r.attempts.last().unwrap();
    spans.push(format!(
        r#"{{"traceId":"{trace}","spanId":"{:016x}","name":"POST /chat","kind":2,"startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{{"key":"http.request.method","value":{{"stringValue":"POST"}}}},{{"key":"user.prompt","value":{{"stringValue":"{SECRET}"}}}}],"status":{{}}}}"#,
        r.id * 8 + 1,
        ns(first.start_s),
        ns(last.start_s + last.duration_s),
    ));
    for (k, a) in r.attempts.iter().enumerate() {
        let model = truth.models[a.link];
        let (provider, name) = model.split_once('/').unwrap();
        let mut attrs = vec![
            format!(r#"{{"key":"gen_ai.operation.name","value":{{"stringValue":"chat"}}}}"#),
            format!(r#"{{"key":"gen_ai.provider.name","value":{{"stringValue":"{provider}"}}}}"#),
            format!(r#"{{"key":"gen_ai.request.model","value":{{"stringValue":"{name}"}}}}"#),
            format!(
                r#"{{"key":"gen_ai.conversation.id","value":{{"stringValue":"conv-{}"}}}}"#,
                r.session
            ),
            format!(
                r#"{{"key":"gen_ai.prompt","value":{{"stringValue":"[{{\"role\":\"user\",\"content\":\"{SECRET}\"}}]"}}}}"#
            ),
            format!(
                r#"{{"key":"gen_ai.input.messages","value":{{"stringValue":"[{{\"role\":\"user\",\"parts\":[{{\"type\":\"text\",\"content\":\"{SECRET}\"}}]}}]"}}}}"#
            ),
            format!(
                r#"{{"key":"gen_ai.system_instructions","value":{{"arrayValue":{{"values":[{{"stringValue":"{SECRET}"}}]}}}}}}"#
            ),
        ];
        let status = match a.fail {
            None => {
                attrs.push(format!(
                    r#"{{"key":"gen_ai.response.model","value":{{"stringValue":"{name}-2026"}}}}"#
                ));
                attrs.push(format!(
                    r#"{{"key":"gen_ai.usage.input_tokens","value":{{"intValue":"{}"}}}}"#,
                    a.fresh + a.cache_read + a.cache_write
                ));
                let (read, write) = truth.usage.fields(a.cache_read, a.cache_write);
                if let Some(read) = read {
                    attrs.push(format!(
                        r#"{{"key":"gen_ai.usage.cache_read.input_tokens","value":{{"intValue":{read}}}}}"#
                    ));
                }
                if let Some(write) = write {
                    attrs.push(format!(r#"{{"key":"gen_ai.usage.cache_creation.input_tokens","value":{{"intValue":"{write}"}}}}"#));
                }
                attrs.push(format!(
                    r#"{{"key":"gen_ai.usage.output_tokens","value":{{"intValue":"{}"}}}}"#,
                    a.output
                ));
                attrs.push(format!(
                    r#"{{"key":"gen_ai.output.messages","value":{{"stringValue":"{SECRET}"}}}}"#
                ));
                String::from(r#"{"code":1}"#)
            }
            Some(f) => {
                let (code, ty) = status_of(f);
                if code > 0 {
                    attrs.push(format!(
                        r#"{{"key":"error.type","value":{{"stringValue":"{code}"}}}}"#
                    ));
                    attrs.push(format!(
                        r#"{{"key":"http.response.status_code","value":{{"intValue":"{code}"}}}}"#
                    ));
                } else {
                    attrs.push(format!(
                        r#"{{"key":"error.type","value":{{"stringValue":"{ty}"}}}}"#
                    ));
                }
                format!(r#"{{"code":2,"message":"{SECRET}"}}"#)
            }
        };
        spans.push(format!(
            r#"{{"traceId":"{trace}","spanId":"{:016x}","parentSpanId":"{:016x}","name":"chat {name}","kind":3,"startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{}],"events":[{{"timeUnixNano":"{}","name":"gen_ai.client.inference.operation.details","attributes":[{{"key":"gen_ai.input.messages","value":{{"stringValue":"{SECRET}"}}}}]}}],"status":{status}}}"#,
            r.id * 8 + 2 + k as u64,
            r.id * 8 + 1,
            ns(a.start_s),
            ns(a.start_s + a.duration_s),
            attrs.join(","),
            ns(a.start_s),
        ));
    }
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"chat-api"}}}}]}},"scopeSpans":[{{"scope":{{"name":"opentelemetry.instrumentation.genai","version":"0.1"}},"spans":[{}]}}]}}]}}"#,
        spans.join(",")
    )
}

/// Write `n` requests as OTLP/JSON lines.
pub fn write_otlp(truth: &Truth, n: u64, seed: u64, w: &mut impl Write) {
    each_request(truth, n, seed, |r| {
        writeln!(w, "{}", otlp_line(truth, &r)).unwrap();
    });
}

fn iso(s: f64) -> String {
    let secs = s.floor() as i64;
    let micros = ((s - s.floor()) * 1e6).round() as i64;
    let (secs, micros) = if micros >= 1_000_000 {
        (secs + 1, 0)
    } else {
        (secs, micros)
    };
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// One LiteLLM spend-log row per attempt, as a JSON object (the `SpendLogs` columns, with
/// `messages` and `response` holding [`SECRET`]).
pub fn litellm_rows(truth: &Truth, r: &Req) -> Vec<String> {
    let groups = ["claude-sonnet-5", "gpt-6-sol"];
    r.attempts
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let (provider, name) = truth.models[a.link].split_once('/').unwrap();
            let (status, error) = match a.fail {
                None => ("success", String::from("null")),
                Some(f) => {
                    let (code, ty) = status_of(f);
                    let code = if code == 0 { "408".to_string() } else { code.to_string() };
                    (
                        "failure",
                        format!(
                            r#"{{"error_code":"{code}","error_class":"{ty}","llm_provider":"{provider}","error_message":"{SECRET}","traceback":"{SECRET}"}}"#
                        ),
                    )
                }
            };
            let fallback = if k > 0 {
                format!(r#","attempted_fallbacks":{k},"original_model_group":"{}""#, groups[0])
            } else {
                String::new()
            };
            let (prompt, completion) = if a.fail.is_none() {
                (a.fresh + a.cache_read + a.cache_write, a.output)
            } else {
                (0, 0)
            };
            let usage = if a.fail.is_none() {
                let cache = match truth.usage.fields(a.cache_read, a.cache_write) {
                    (Some(r), Some(w)) => format!(
                        r#","cache_read_input_tokens":{r},"cache_creation_input_tokens":{w}"#
                    ),
                    (Some(r), None) => format!(r#","prompt_tokens_details":{{"cached_tokens":{r}}}"#),
                    _ => String::new(),
                };
                format!(r#"{{"prompt_tokens":{prompt},"completion_tokens":{completion}{cache}}}"#)
            } else {
                String::from("null")
            };
            format!(
                r#"{{"request_id":"req-{}-{k}","call_type":"acompletion","api_key":"hashed","spend":0.01,"total_tokens":{},"prompt_tokens":{prompt},"completion_tokens":{completion},"startTime":"{}","endTime":"{}","model":"{name}","model_id":"m{}","model_group":"{}","custom_llm_provider":"{provider}","api_base":"","user":"","metadata":{{"user_api_key":"x","status":"{status}","usage_object":{usage},"error_information":{error},"requester_metadata":{{"note":"{SECRET}"}}{fallback}}},"cache_hit":"False","cache_key":"","request_tags":[],"messages":[{{"role":"user","content":"{SECRET}"}}],"response":{{"content":"{SECRET}"}},"session_id":"sess-{}","status":"{status}","proxy_server_request":{{"body":"{SECRET}"}}}}"#,
                r.id,
                prompt + completion,
                iso(a.start_s),
                iso(a.start_s + a.duration_s),
                a.link,
                groups[a.link],
                r.session,
            )
        })
        .collect()
}

/// Write `n` requests as LiteLLM spend logs: `"array"`, `"lines"` or `"csv"`.
pub fn write_litellm(truth: &Truth, n: u64, seed: u64, form: &str, w: &mut impl Write) {
    let mut first = true;
    if form == "array" {
        writeln!(w, "[").unwrap();
    }
    let mut csv = (form == "csv").then(|| {
        let mut c = csv::Writer::from_writer(Vec::new());
        c.write_record([
            "request_id",
            "call_type",
            "spend",
            "total_tokens",
            "prompt_tokens",
            "completion_tokens",
            "startTime",
            "endTime",
            "model",
            "model_group",
            "custom_llm_provider",
            "metadata",
            "messages",
            "response",
            "session_id",
            "status",
        ])
        .unwrap();
        c
    });
    each_request(truth, n, seed, |r| {
        for row in litellm_rows(truth, &r) {
            match form {
                "array" => {
                    if !first {
                        writeln!(w, ",").unwrap();
                    }
                    write!(w, "  {row}").unwrap();
                }
                "lines" => writeln!(w, "{row}").unwrap(),
                _ => {
                    let v: serde_json::Value = serde_json::from_str(&row).unwrap();
                    let s = |k: &str| match &v[k] {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let c = csv.as_mut().unwrap();
                    c.write_record([
                        s("request_id"),
                        s("call_type"),
                        s("spend"),
                        s("total_tokens"),
                        s("prompt_tokens"),
                        s("completion_tokens"),
                        s("startTime"),
                        s("endTime"),
                        s("model"),
                        s("model_group"),
                        s("custom_llm_provider"),
                        s("metadata"),
                        s("messages"),
                        s("response"),
                        s("session_id"),
                        s("status"),
                    ])
                    .unwrap();
                }
            }
            first = false;
        }
    });
    if form == "array" {
        writeln!(w, "\n]").unwrap();
    }
    if let Some(c) = csv {
        w.write_all(&c.into_inner().unwrap()).unwrap();
    }
}

/// Write `n` requests as the plain CSV (with an extra `prompt` column holding [`SECRET`]).
pub fn write_plain(truth: &Truth, n: u64, seed: u64, w: &mut impl Write) {
    writeln!(w, "request_id,model,start,duration_s,status,error_type,input_tokens,cache_read_tokens,cache_write_tokens,output_tokens,session_id,prompt").unwrap();
    each_request(truth, n, seed, |r| {
        for a in &r.attempts {
            let (status, ty) = match a.fail {
                None => ("ok".to_string(), ""),
                Some(Fail::Gray) => ("error".to_string(), "timeout"),
                Some(f) => (status_of(f).0.to_string(), status_of(f).1),
            };
            let tokens = if a.fail.is_none() {
                let (read, write) = truth.usage.fields(a.cache_read, a.cache_write);
                let opt = |x: Option<u64>| x.map_or(String::new(), |x| x.to_string());
                format!(
                    "{},{},{},{}",
                    a.fresh + a.cache_read + a.cache_write,
                    opt(read),
                    opt(write),
                    a.output
                )
            } else {
                ",,,".to_string()
            };
            writeln!(
                w,
                "r{},{},{:.6},{:.6},{status},{ty},{tokens},s{},\"{SECRET}, with a comma\"",
                r.id, truth.models[a.link], a.start_s, a.duration_s, r.session
            )
            .unwrap();
        }
    });
}

/// `s` seconds since the Unix epoch as ISO 8601 UTC with microseconds.
pub fn iso_time(s: f64) -> String {
    iso(s)
}
