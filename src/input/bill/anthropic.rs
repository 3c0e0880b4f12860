//! Anthropic's Admin API usage report (messages) and cost report pages.
//!
//! Usage (<https://platform.claude.com/docs/en/api/admin-api/usage-cost/get-messages-usage-report>):
//! `data[]` buckets with `starting_at`/`ending_at` (RFC 3339) and `results[]` with
//! `uncached_input_tokens`, `cache_read_input_tokens`, `cache_creation` (
//! `ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`), `output_tokens`, and, grouped by
//! them (`group_by[]=model`, `service_tier`, `context_window`), `model`, `service_tier`
//! (`standard`, `batch`, `priority`) and `context_window` (`0-200k`, `200k-1M`). The report
//! counts no requests.
//!
//! Costs (<https://platform.claude.com/docs/en/api/admin-api/usage-cost/get-cost-report>): buckets of
//! results with `amount` (a decimal string in the currency's lowest unit: `"123.45"` USD is
//! $1.2345), `currency`, `cost_type` (`tokens`, `web_search`, `code_execution`...), and, grouped
//! by `description`, `model`, `service_tier`, `token_type`, `context_window`. The cost report
//! leaves out Priority Tier costs (Anthropic's usage and cost API guide).

use crate::error::ValueError;
use serde::Deserialize;

use super::{Bill, CostLine, UsageLine, day_of_rfc3339, more_pages_note, pages, tokens};
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
#[serde(try_from = "RawBucket<R>")]
struct Bucket<R> {
    day: String,
    results: Vec<R>,
}

#[derive(Deserialize)]
struct RawBucket<R> {
    starting_at: String,
    results: Vec<R>,
}

impl<R> TryFrom<RawBucket<R>> for Bucket<R> {
    type Error = ValueError;
    fn try_from(b: RawBucket<R>) -> Result<Self, ValueError> {
        Ok(Bucket {
            day: day_of_rfc3339(&b.starting_at)
                .map_err(|m| ValueError::Bill(format!("starting_at: {m}")))?,
            results: b.results,
        })
    }
}

#[derive(Deserialize)]
#[serde(try_from = "RawUsage")]
struct UsageResult {
    model: String,
    tier: ServiceTier,
    long_context: bool,
    uncached: u64,
    read: u64,
    write_5m: u64,
    write_1h: u64,
    output: u64,
}

#[derive(Deserialize)]
struct RawUsage {
    uncached_input_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
    output_tokens: u64,
    model: Option<String>,
    service_tier: Option<String>,
    context_window: Option<String>,
}

#[derive(Deserialize)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: u64,
    #[serde(default)]
    ephemeral_1h_input_tokens: u64,
}

/// The service tier of a usage or cost result (`null`: not grouped by it, the standard tier).
fn tier(s: Option<&str>) -> Result<ServiceTier, ValueError> {
    match s {
        None | Some("standard") => Ok(ServiceTier::Standard),
        Some("batch") => Ok(ServiceTier::Batch),
        Some("priority") => Ok(ServiceTier::Priority),
        Some(other) => Err(ValueError::Bill(format!(
            "service_tier {other:?} is not one fallcost prices; allowed: standard, batch, priority"
        ))),
    }
}

/// Whether a `context_window` is the long one (`200k-1M`).
fn long(s: Option<&str>) -> Result<bool, ValueError> {
    match s {
        None | Some("0-200k") => Ok(false),
        Some("200k-1M") => Ok(true),
        Some(other) => Err(ValueError::Bill(format!(
            "context_window {other:?} is not one fallcost knows; allowed: 0-200k, 200k-1M"
        ))),
    }
}

impl TryFrom<RawUsage> for UsageResult {
    type Error = ValueError;
    fn try_from(r: RawUsage) -> Result<Self, ValueError> {
        let model = r.model.ok_or_else(|| ValueError::Bill(
            "`model` is null: export the usage grouped by model (group_by[]=model), or fallcost cannot price it".into(),
        ))?;
        let c = r.cache_creation.unwrap_or(CacheCreation {
            ephemeral_5m_input_tokens: 0,
            ephemeral_1h_input_tokens: 0,
        });
        Ok(UsageResult {
            model,
            tier: tier(r.service_tier.as_deref())?,
            long_context: long(r.context_window.as_deref())?,
            uncached: r.uncached_input_tokens,
            read: r.cache_read_input_tokens,
            write_5m: c.ephemeral_5m_input_tokens,
            write_1h: c.ephemeral_1h_input_tokens,
            output: r.output_tokens,
        })
    }
}

/// Read usage report pages into `bill`, one usage line per result.
///
/// Errors: a missing or mistyped field; `starting_at` not RFC 3339; `model` null (not grouped
/// by model); an unknown `service_tier` or `context_window` (file, line, column, field).
pub fn usage(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let pages: Vec<Page<UsageResult>> = pages(file, text)?;
    for (p, page) in pages.iter().enumerate() {
        for (b, bucket) in page.data.iter().enumerate() {
            for (i, r) in bucket.results.iter().enumerate() {
                bill.usage.push(UsageLine {
                    source: format!("{file} page {}, data[{b}].results[{i}]", p + 1),
                    day: bucket.day.clone(),
                    model: format!("anthropic/{}", r.model),
                    service_tier: r.tier,
                    long_context: r.long_context,
                    requests: None,
                    uncached_input: tokens(r.uncached),
                    cache_read: tokens(r.read),
                    cache_write_5m: tokens(r.write_5m),
                    cache_write_1h: tokens(r.write_1h),
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
    model: String,
    usd: f64,
}

#[derive(Deserialize)]
struct RawCost {
    amount: String,
    currency: String,
    cost_type: Option<String>,
    model: Option<String>,
}

impl TryFrom<RawCost> for CostResult {
    type Error = ValueError;
    fn try_from(r: RawCost) -> Result<Self, ValueError> {
        if !r.currency.eq_ignore_ascii_case("usd") {
            return Err(ValueError::Bill(format!(
                "currency {:?}: fallcost prices in USD only",
                r.currency
            )));
        }
        let cents: f64 = r
            .amount
            .trim()
            .parse()
            .ok()
            .filter(|c: &f64| c.is_finite())
            .ok_or_else(|| {
                ValueError::Bill(format!(
                    "amount {:?} is not a decimal string of cents (\"123.45\" is $1.2345)",
                    r.amount
                ))
            })?;
        let model = match (r.cost_type.as_deref(), r.model) {
            (Some("tokens") | None, Some(m)) => m,
            (Some("tokens") | None, None) => {
                return Err(ValueError::Bill(
                    "`model` is null: export the costs grouped by description (group_by[]=description), or fallcost cannot tell the models apart"
                        .into(),
                ));
            }
            (Some(kind), _) => format!("({kind})"),
        };
        Ok(CostResult {
            model,
            usd: cents / 100.0,
        })
    }
}

/// Read cost report pages into `bill`, one cost line per result (`amount` in cents → USD).
///
/// Errors: a missing or mistyped field; `starting_at` not RFC 3339; a currency other than USD;
/// an `amount` that is no decimal string; a token cost without `model` (file, line, column,
/// field).
pub fn costs(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let pages: Vec<Page<CostResult>> = pages(file, text)?;
    for (p, page) in pages.iter().enumerate() {
        for (b, bucket) in page.data.iter().enumerate() {
            for (i, r) in bucket.results.iter().enumerate() {
                bill.costs.push(CostLine {
                    source: format!("{file} page {}, data[{b}].results[{i}]", p + 1),
                    day: bucket.day.clone(),
                    model: format!("anthropic/{}", r.model),
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
