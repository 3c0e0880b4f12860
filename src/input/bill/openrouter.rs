//! OpenRouter's activity (<https://openrouter.ai/docs/api/api-reference/analytics/get-user-activity>):
//! `{"data": [...]}` with one item per UTC `date`, `model` (`openai/gpt-4.1`), endpoint and
//! provider: `usage` (USD of OpenRouter credits), `byok_usage_inference` (USD billed on your own
//! provider key), `requests`, `prompt_tokens`, `completion_tokens`, `reasoning_tokens`. The
//! usage and the bill are one record: the billed amount is `usage + byok_usage_inference`.
//!
//! The activity does not split cached from uncached prompt tokens: every prompt token is
//! priced at the input price, so a cache discount shows as a residual (the report says so on
//! each such row). Reasoning tokens are counted in `completion_tokens` and bill as output.

use crate::error::ValueError;
use serde::Deserialize;

use super::{Bill, CostLine, UsageLine, check_day, pages, tokens};
use crate::error::InputError;
use crate::model::ServiceTier;

#[derive(Deserialize)]
struct Activity {
    data: Vec<Item>,
}

#[derive(Deserialize)]
#[serde(try_from = "RawItem")]
struct Item {
    day: String,
    model: String,
    usd: f64,
    requests: u64,
    prompt: u64,
    completion: u64,
}

#[derive(Deserialize)]
struct RawItem {
    date: String,
    model: String,
    usage: f64,
    #[serde(default)]
    byok_usage_inference: f64,
    requests: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
}

impl TryFrom<RawItem> for Item {
    type Error = ValueError;
    fn try_from(r: RawItem) -> Result<Self, ValueError> {
        let day = check_day(&r.date).map_err(|m| ValueError::Bill(format!("date: {m}")))?;
        if !r.model.contains('/') {
            return Err(ValueError::Bill(format!(
                "model {:?} has no `provider/` prefix; OpenRouter's slugs are `provider/model`",
                r.model
            )));
        }
        let usd = r.usage + r.byok_usage_inference;
        if !usd.is_finite() || r.usage < 0.0 || r.byok_usage_inference < 0.0 {
            return Err(ValueError::Bill(
                "usage and byok_usage_inference must be finite USD amounts >= 0".into(),
            ));
        }
        Ok(Item {
            day,
            model: r.model,
            usd,
            requests: r.requests,
            prompt: r.prompt_tokens,
            completion: r.completion_tokens,
        })
    }
}

/// Read OpenRouter activity into `bill`: a usage line (prompt tokens as uncached input, no
/// cache split) and a cost line per item.
///
/// Errors: a missing or mistyped field; a `date` not `YYYY-MM-DD`; a model without a provider;
/// a negative amount (file, line, column, field).
pub fn activity(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let pages: Vec<Activity> = pages(file, text)?;
    for (p, page) in pages.iter().enumerate() {
        for (i, r) in page.data.iter().enumerate() {
            let source = format!("{file} page {}, data[{i}]", p + 1);
            bill.usage.push(UsageLine {
                source: source.clone(),
                day: r.day.clone(),
                model: r.model.clone(),
                service_tier: ServiceTier::Standard,
                long_context: false,
                requests: Some(tokens(r.requests)),
                uncached_input: tokens(r.prompt),
                cache_read: 0.0,
                cache_write_5m: 0.0,
                cache_write_1h: 0.0,
                output: tokens(r.completion),
                cache_split: false,
            });
            bill.costs.push(CostLine {
                source,
                day: r.day.clone(),
                model: r.model.clone(),
                usd: r.usd,
            });
        }
    }
    Ok(())
}
