//! The fields every reader shares: error classes from status codes and types, provider
//! prefixes, id hashes and times.

use std::hash::{Hash, Hasher};

use crate::model::policy::ErrorClass;

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

/// The error class a type's words name, if any (see [`classify`]).
pub fn classify_word(t: &str) -> Option<ErrorClass> {
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
///
/// Names are matched case-insensitively (`OpenAI`, `Anthropic`), and the other spellings in
/// use are mapped too: OpenInference's `llm.provider` / `llm.system` values (`aws`, `google`,
/// `vertexai`, `mistralai`; <https://arize-ai.github.io/openinference/spec/semantic_conventions.html>)
/// and OpenLLMetry's `gen_ai.system` values (`Anthropic`, `OpenAI`, `AWS`, `Google`).
pub fn provider_prefix(name: &str) -> std::borrow::Cow<'_, str> {
    let lower = name.trim().to_ascii_lowercase();
    std::borrow::Cow::Borrowed(match lower.as_str() {
        "aws.bedrock" | "aws" | "bedrock" | "aws_bedrock" | "amazon_bedrock" => "bedrock",
        "gcp.vertex_ai" | "vertexai" | "vertex_ai" | "vertex" | "google_vertex" => "vertex_ai",
        "gcp.gemini" | "gcp.gen_ai" | "google" | "gemini" | "google_genai" => "gemini",
        "azure.ai.openai" | "az.ai.openai" | "azure" | "azure_openai" => "azure",
        "azure.ai.inference" | "az.ai.inference" => "azure_ai",
        "mistral_ai" | "mistralai" | "mistral" => "mistral",
        "x_ai" | "xai" => "xai",
        "ibm.watsonx.ai" => "watsonx",
        "openai" => "openai",
        "anthropic" => "anthropic",
        "deepseek" => "deepseek",
        "cohere" => "cohere",
        "groq" => "groq",
        _ if lower == name => return std::borrow::Cow::Borrowed(name),
        _ => return std::borrow::Cow::Owned(lower),
    })
}

/// The provider of a model id that names none (Langfuse records no provider): `gpt-*`,
/// `o1`/`o3`/`o4*`, `chatgpt-*` → `openai`; `claude-*` → `anthropic`; `gemini-*` →
/// `gemini`; a Bedrock id (`anthropic.claude-…`, `us.anthropic.…`, `eu.`/`apac.` inference
/// profiles, `amazon.`, `meta.`, `mistral.`, `cohere.`) → `bedrock`; else none (the id is kept as
/// given, and the price table decides). An id with a `/` already names its provider.
pub fn infer_provider(model: &str) -> Option<&'static str> {
    if model.contains('/') {
        return None;
    }
    let m = model.trim().to_ascii_lowercase();
    let region = ["us.", "eu.", "apac.", "global."]
        .iter()
        .find_map(|r| m.strip_prefix(r))
        .unwrap_or(&m);
    let bedrock = [
        "anthropic.",
        "amazon.",
        "meta.",
        "mistral.",
        "cohere.",
        "ai21.",
    ];
    if bedrock.iter().any(|p| region.starts_with(p)) {
        Some("bedrock")
    } else if m.starts_with("gpt-")
        || m.starts_with("chatgpt-")
        || ["o1", "o3", "o4"]
            .iter()
            .any(|p| m == *p || m.starts_with(&format!("{p}-")))
    {
        Some("openai")
    } else if m.starts_with("claude-") {
        Some("anthropic")
    } else if m.starts_with("gemini-") {
        Some("gemini")
    } else {
        None
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
                None if o.len() == 4 => (o.get(..2)?.parse().ok()?, o.get(2..)?.parse().ok()?),
                None => (o.parse().ok()?, 0),
            };
            if !(0..=23).contains(&hh) || !(0..=59).contains(&mm) {
                return None;
            }
            sign * (hh * 3600 + mm * 60)
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm); checked, so that a year past
    // 2262 (beyond i64 nanoseconds) is unreadable, never wrapped.
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + s - offset_s;
    secs.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

/// Whether a number given as a time in seconds looks like milliseconds or microseconds (a
/// Unix time in seconds before the year 5138 is below 1e11): the unit is refused rather than
/// read 1,000 times too far in the future.
pub fn looks_like_ms(text: &str) -> bool {
    text.trim()
        .parse::<f64>()
        .is_ok_and(|x| x.is_finite() && (1e11..1e17).contains(&x.abs()))
}

/// Whether a span or row is one LLM call, from its operation: `None` when it is, else what
/// it is instead (the label the summary of left-out records counts it under).
///
/// - `gen_ai.operation.name` (OTel GenAI semconv, `model/gen-ai/registry.yaml`,
///   <https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/>): `chat`,
///   `text_completion` and `generate_content` are calls; `invoke_agent`, `create_agent`,
///   `execute_tool`, `embeddings` and any other name are not (an agent span carries the model
///   it drives, but its time and outcome are the agent's, not one call's);
/// - `llm.request.type` (OpenLLMetry, `opentelemetry-semantic-conventions-ai`
///   `LLMRequestTypeValues`): `chat` and `completion` are calls; `embedding`, `rerank` and
///   `unknown` are not;
/// - `openinference.span.kind` (OpenInference,
///   <https://arize-ai.github.io/openinference/spec/semantic_conventions.html>): `LLM` is a
///   call; `EMBEDDING`, `CHAIN`, `AGENT`, `TOOL`, `RETRIEVER`, ... are not.
///
/// With none of the three a span with a model is a call (instrumentations before the
/// operation name).
pub fn left_out_span(
    operation: Option<&str>,
    request_type: Option<&str>,
    oi_kind: Option<&str>,
) -> Option<&'static str> {
    if let Some(op) = operation {
        return match op.trim() {
            "chat" | "text_completion" | "generate_content" => None,
            "invoke_agent" => Some("invoke_agent"),
            "create_agent" => Some("create_agent"),
            "execute_tool" => Some("execute_tool"),
            "embeddings" => Some("embeddings"),
            _ => Some("another gen_ai.operation.name"),
        };
    }
    if let Some(kind) = oi_kind {
        return match kind.trim().to_ascii_uppercase().as_str() {
            "LLM" => None,
            "EMBEDDING" => Some("embeddings"),
            "AGENT" => Some("invoke_agent"),
            "TOOL" => Some("execute_tool"),
            "CHAIN" => Some("chain (OpenInference)"),
            _ => Some("another openinference.span.kind"),
        };
    }
    if let Some(t) = request_type {
        return match t.trim() {
            "chat" | "completion" => None,
            "embedding" => Some("embeddings"),
            "rerank" => Some("rerank"),
            _ => Some("another llm.request.type"),
        };
    }
    None
}

/// Whether a LiteLLM spend-log row is one LLM call, from its `call_type` (LiteLLM
/// `litellm/types/utils.py` `CallTypes`): `None` when it is, else what it is instead.
/// `completion`, `acompletion`, `text_completion`, `atext_completion`, `responses`,
/// `aresponses`, `generate_content`, `agenerate_content`, `anthropic_messages` and
/// `aanthropic_messages` are calls (an empty or absent `call_type` too); `embedding`,
/// `aembedding`, images, audio, moderation, rerank, pass-through and any other type are not.
pub fn left_out_call_type(call_type: &str) -> Option<&'static str> {
    match call_type.trim() {
        ""
        | "completion"
        | "acompletion"
        | "text_completion"
        | "atext_completion"
        | "responses"
        | "aresponses"
        | "generate_content"
        | "agenerate_content"
        | "anthropic_messages"
        | "aanthropic_messages" => None,
        "embedding" | "aembedding" => Some("embeddings"),
        "rerank" | "arerank" => Some("rerank"),
        "image_generation" | "aimage_generation" | "image_edit" | "aimage_edit" => {
            Some("image generation")
        }
        "transcription" | "atranscription" | "speech" | "aspeech" => Some("audio"),
        "moderation" | "amoderation" => Some("moderation"),
        _ => Some("another call_type"),
    }
}
