//! OpenAI's organization Usage API (completions) and Costs API pages.
//!
//! Usage (<https://platform.openai.com/docs/api-reference/usage/completions>): `data[]` buckets
//! with `start_time`/`end_time` (Unix seconds) and `results[]` of
//! `organization.usage.completions.result`: `input_tokens` (cached ones included),
//! `input_cached_tokens`, `output_tokens`, `num_model_requests`, and, grouped by them, `model`,
//! `batch`, `service_tier`, `project_id`... The export must be grouped by model
//! (`group_by=model`); `batch: true` is the batch tier.
//!
//! Costs (<https://platform.openai.com/docs/api-reference/usage/costs>): buckets of
//! `organization.costs.result` with `amount.value` (USD) and `amount.currency`, and, with
//! `group_by=line_item`, `line_item`. The API does not define the line item's text; the
//! dashboard's is `MODEL, KIND` (`gpt-6-sol, input`), so the model is the text before the first
//! comma (a line item without one, such as a tool's, is a line of its own).

use crate::error::ValueError;
use serde::Deserialize;

use super::{Bill, CostLine, UsageLine, day_of_unix, more_pages_note, pages, tokens};
use crate::error::InputError;
use crate::model::ServiceTier;

#[derive(Deserialize)]
struct Page<R> {
    data: Vec<Bucket<R>>,
    #[serde(default)]
    has_more: bool,
    next_page: Option<String>,
}

#[derive(Deserialize)]
struct Bucket<R> {
    start_time: i64,
    results: Vec<R>,
}

#[derive(Deserialize)]
#[serde(try_from = "RawUsage")]
struct UsageResult {
    model: String,
    tier: ServiceTier,
    requests: Option<u64>,
    input: u64,
    cached: u64,
    output: u64,
}

#[derive(Deserialize)]
struct RawUsage {
    input_tokens: u64,
    #[serde(default)]
    input_cached_tokens: Option<u64>,
    output_tokens: u64,
    num_model_requests: Option<u64>,
    model: Option<String>,
    batch: Option<bool>,
    service_tier: Option<String>,
}

impl TryFrom<RawUsage> for UsageResult {
    type Error = ValueError;
    fn try_from(r: RawUsage) -> Result<Self, ValueError> {
        let model = r.model.ok_or_else(|| ValueError::Bill(
            "`model` is null: export the usage grouped by model (group_by=model), or fallcost cannot price it".into(),
        ))?;
        let tier = match (r.batch, r.service_tier.as_deref()) {
            (Some(true), _) => ServiceTier::Batch,
            (_, None | Some("default" | "auto" | "standard")) => ServiceTier::Standard,
            (_, Some("flex")) => ServiceTier::Flex,
            (_, Some("priority")) => ServiceTier::Priority,
            (_, Some(other)) => {
                return Err(ValueError::Bill(format!(
                    "service_tier {other:?} is not one fallcost prices; allowed: default, auto, standard, flex, priority (or batch: true)"
                )));
            }
        };
        let cached = r.input_cached_tokens.unwrap_or(0);
        if cached > r.input_tokens {
            return Err(ValueError::Bill(format!(
                "input_cached_tokens ({cached}) above input_tokens ({}), which include them",
                r.input_tokens
            )));
        }
        Ok(UsageResult {
            model,
            tier,
            requests: r.num_model_requests,
            input: r.input_tokens,
            cached,
            output: r.output_tokens,
        })
    }
}

/// Read Usage API completions pages into `bill`: per result, uncached input = `input_tokens` −
/// `input_cached_tokens`, cache reads = `input_cached_tokens`; OpenAI bills no cache writes.
///
/// Errors: a missing or mistyped field; `model` null (not grouped by model); an unknown
/// `service_tier`; cached tokens above input tokens (file, line, column, field).
pub fn usage(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let pages: Vec<Page<UsageResult>> = pages(file, text)?;
    for (p, page) in pages.iter().enumerate() {
        for (b, bucket) in page.data.iter().enumerate() {
            for (i, r) in bucket.results.iter().enumerate() {
                bill.usage.push(UsageLine {
                    source: format!("{file} page {}, data[{b}].results[{i}]", p + 1),
                    day: day_of_unix(bucket.start_time as f64),
                    model: format!("openai/{}", r.model),
                    service_tier: r.tier,
                    long_context: false,
                    requests: r.requests.map(tokens),
                    uncached_input: tokens(r.input - r.cached),
                    cache_read: tokens(r.cached),
                    cache_write_5m: 0.0,
                    cache_write_1h: 0.0,
                    output: tokens(r.output),
                    cache_split: true,
                });
            }
        }
    }
    if let Some(last) = pages.last() {
        bill.notes.extend(more_pages_note(
            file,
            last.has_more,
            last.next_page.as_deref(),
        ));
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(try_from = "RawCost")]
struct CostResult {
    item: String,
    usd: f64,
}

#[derive(Deserialize)]
struct RawCost {
    amount: Amount,
    line_item: Option<String>,
}

#[derive(Deserialize)]
struct Amount {
    value: Decimal,
    currency: String,
}

/// `amount.value`: a JSON number, or the same number as a decimal string (`"0.0643"`), which
/// some exports and client libraries write to keep its precision.
#[derive(Deserialize)]
#[serde(untagged)]
enum Decimal {
    Number(f64),
    Text(String),
}

impl TryFrom<RawCost> for CostResult {
    type Error = ValueError;
    fn try_from(r: RawCost) -> Result<Self, ValueError> {
        if !r.amount.currency.eq_ignore_ascii_case("usd") {
            return Err(ValueError::Bill(format!(
                "amount.currency {:?}: fallcost prices in USD only",
                r.amount.currency
            )));
        }
        let usd = match r.amount.value {
            Decimal::Number(v) => v,
            Decimal::Text(t) => t.trim().parse::<f64>().map_err(|_| {
                ValueError::Bill(format!("amount.value {t:?} is not a decimal number"))
            })?,
        };
        if !usd.is_finite() {
            return Err(ValueError::Bill(
                "amount.value is not a finite number".into(),
            ));
        }
        let item = r.line_item.ok_or_else(|| ValueError::Bill(
            "`line_item` is null: export the costs grouped by line item (group_by=line_item), or fallcost cannot tell the models apart".into(),
        ))?;
        Ok(CostResult { item, usd })
    }
}

/// The model a costs line item names: the text before its first comma (`gpt-6-sol, input` →
/// `gpt-6-sol`), else `(ITEM)` for a line that names no model.
pub fn line_item_model(item: &str) -> String {
    match item.split_once(',') {
        Some((model, _)) if !model.trim().is_empty() && !model.contains(' ') => {
            model.trim().to_string()
        }
        _ => format!("({})", item.trim()),
    }
}

/// Read Costs API pages into `bill`, one cost line per result.
///
/// Errors: a missing or mistyped field; a currency other than USD; `line_item` null (not
/// grouped by line item) (file, line, column, field).
pub fn costs(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let pages: Vec<Page<CostResult>> = pages(file, text)?;
    for (p, page) in pages.iter().enumerate() {
        for (b, bucket) in page.data.iter().enumerate() {
            for (i, r) in bucket.results.iter().enumerate() {
                bill.costs.push(CostLine {
                    source: format!("{file} page {}, data[{b}].results[{i}]", p + 1),
                    day: day_of_unix(bucket.start_time as f64),
                    model: format!("openai/{}", line_item_model(&r.item)),
                    usd: r.usd,
                });
            }
        }
    }
    if let Some(last) = pages.last() {
        bill.notes.extend(more_pages_note(
            file,
            last.has_more,
            last.next_page.as_deref(),
        ));
    }
    Ok(())
}
