//! Provider usage and cost exports, read for `fallcost reconcile`: each is turned into
//! [`UsageLine`]s (tokens per model, day, service tier and context window) and [`CostLine`]s
//! (billed USD per model and day).
//!
//! The formats, told apart by content (docs/guide/reconcile.md):
//!
//! - OpenAI's organization Usage API, completions (`openai`):
//!   <https://platform.openai.com/docs/api-reference/usage/completions>;
//! - OpenAI's Costs API (`openai`): <https://platform.openai.com/docs/api-reference/usage/costs>;
//! - Anthropic's Admin API usage report (`anthropic`):
//!   <https://platform.claude.com/docs/en/api/admin-api/usage-cost/get-messages-usage-report>;
//! - Anthropic's Admin API cost report (`anthropic`):
//!   <https://platform.claude.com/docs/en/api/admin-api/usage-cost/get-cost-report>;
//! - OpenRouter's activity (`openrouter`):
//!   <https://openrouter.ai/docs/api/api-reference/analytics/get-user-activity>;
//! - the plain CSV of [`csv`].
//!
//! A JSON file holds one response page (`data`, `has_more`, `next_page`) or a JSON array of
//! pages, as fetched one after another. Fields the providers add are tolerated (the exports are
//! theirs); a missing or mistyped field we read is an error naming the file, line, column and
//! field path.

pub mod anthropic;
pub mod csv;
pub mod openai;
pub mod openrouter;

use crate::error::ValueError;
use serde::de::DeserializeOwned;

use crate::error::{InputError, InputErrorKind, Location};
use crate::model::ServiceTier;

/// The export formats `reconcile` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BillFormat {
    /// OpenAI `GET /v1/organization/usage/completions`.
    OpenaiUsage,
    /// OpenAI `GET /v1/organization/costs`.
    OpenaiCosts,
    /// Anthropic `GET /v1/organizations/usage_report/messages`.
    AnthropicUsage,
    /// Anthropic `GET /v1/organizations/cost_report`.
    AnthropicCosts,
    /// OpenRouter `GET /api/v1/activity`.
    Openrouter,
    /// The plain CSV ([`csv`]).
    Csv,
}

impl BillFormat {
    /// The identifier used in output: `openai-usage`, `openai-costs`, `anthropic-usage`,
    /// `anthropic-costs`, `openrouter-activity`, `csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            BillFormat::OpenaiUsage => "openai-usage",
            BillFormat::OpenaiCosts => "openai-costs",
            BillFormat::AnthropicUsage => "anthropic-usage",
            BillFormat::AnthropicCosts => "anthropic-costs",
            BillFormat::Openrouter => "openrouter-activity",
            BillFormat::Csv => "csv",
        }
    }

    /// The provider's documentation of the format (the plain CSV: this project's docs/guide/reconcile.md).
    pub fn source(self) -> &'static str {
        match self {
            BillFormat::OpenaiUsage => {
                "https://platform.openai.com/docs/api-reference/usage/completions"
            }
            BillFormat::OpenaiCosts => "https://platform.openai.com/docs/api-reference/usage/costs",
            BillFormat::AnthropicUsage => {
                "https://platform.claude.com/docs/en/api/admin-api/usage-cost/get-messages-usage-report"
            }
            BillFormat::AnthropicCosts => {
                "https://platform.claude.com/docs/en/api/admin-api/usage-cost/get-cost-report"
            }
            BillFormat::Openrouter => {
                "https://openrouter.ai/docs/api/api-reference/analytics/get-user-activity"
            }
            BillFormat::Csv => "docs/guide/reconcile.md",
        }
    }
}

/// Tokens of one model on one UTC day in one service tier and context window, as an export
/// states them. Token counts are whole tokens (f64 to add up without overflow).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageLine {
    /// `FILE:LINE` (CSV) or `FILE data[i].results[j]` (JSON): where it was read.
    pub source: String,
    /// The UTC day, `YYYY-MM-DD`.
    pub day: String,
    /// `provider/model`, the export's model name under its provider (`openai/gpt-6-sol`).
    pub model: String,
    /// The service tier the export states (batch for OpenAI's `batch: true`).
    pub service_tier: ServiceTier,
    /// Whether the export puts the requests above 200,000 prompt tokens (Anthropic's
    /// `context_window: "200k-1M"`; the plain CSV's `context_window`).
    pub long_context: bool,
    /// Requests, when the export counts them.
    pub requests: Option<f64>,
    /// Input tokens billed at the input price (not read from or written to a cache).
    pub uncached_input: f64,
    /// Input tokens read from the cache.
    pub cache_read: f64,
    /// Input tokens written to the cache with the 5-minute TTL.
    pub cache_write_5m: f64,
    /// Input tokens written to the cache with the 1-hour TTL.
    pub cache_write_1h: f64,
    /// Output tokens.
    pub output: f64,
    /// Whether the export splits cached from uncached input (OpenRouter's activity does not).
    pub cache_split: bool,
}

/// A billed amount for one model (or one non-token line) on one UTC day.
#[derive(Debug, Clone, PartialEq)]
pub struct CostLine {
    /// Where it was read, as [`UsageLine::source`].
    pub source: String,
    /// The UTC day, `YYYY-MM-DD`.
    pub day: String,
    /// `provider/model`; for a cost that is not a model's tokens, `provider/(what)`
    /// (`anthropic/(web_search)`).
    pub model: String,
    /// USD.
    pub usd: f64,
}

/// Everything read from the exports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bill {
    /// The files read, as shown, with their formats.
    pub files: Vec<(String, BillFormat)>,
    /// Token usage.
    pub usage: Vec<UsageLine>,
    /// Billed amounts.
    pub costs: Vec<CostLine>,
    /// What a reader of the result should know (an export that says more pages follow).
    pub notes: Vec<String>,
}

/// Read every export in `paths`, each told apart by its content ([`detect`]).
///
/// Errors: a file that cannot be read; a format none of the readers knows; any reader's error
/// (file, line, column, field).
pub fn load(paths: &[std::path::PathBuf]) -> Result<Bill, InputError> {
    let mut bill = Bill::default();
    for path in paths {
        let file = super::shown_path(path);
        let text = super::read_text(path).map_err(|mut e| {
            e.file = file.clone();
            e
        })?;
        parse_into(&file, &text, &mut bill)?;
    }
    Ok(bill)
}

/// Read one export's `text` (named `file` in errors) into `bill`.
///
/// Errors: as [`load`].
pub fn parse_into(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let format = detect(file, text)?;
    bill.files.push((file.to_string(), format));
    match format {
        BillFormat::OpenaiUsage => openai::usage(file, text, bill),
        BillFormat::OpenaiCosts => openai::costs(file, text, bill),
        BillFormat::AnthropicUsage => anthropic::usage(file, text, bill),
        BillFormat::AnthropicCosts => anthropic::costs(file, text, bill),
        BillFormat::Openrouter => openrouter::activity(file, text, bill),
        BillFormat::Csv => csv::parse(file, text, bill),
    }
}

/// Which export `text` is: JSON by its first result's keys (`object` of OpenAI's results,
/// `uncached_input_tokens` or `amount` of Anthropic's, `prompt_tokens` of OpenRouter's), else a
/// CSV by its header's `date` and `model` columns.
///
/// Errors: JSON syntax (line, column); a JSON document or CSV header none of the formats has.
pub fn detect(file: &str, text: &str) -> Result<BillFormat, InputError> {
    let trimmed = text.trim_start();
    let formats = "OpenAI usage/completions or costs pages, Anthropic usage_report/messages or cost_report pages, OpenRouter activity, or the plain CSV (docs/guide/reconcile.md)";
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        let header = text.lines().next().unwrap_or("");
        let cols: Vec<&str> = header.split(',').map(str::trim).collect();
        if cols.contains(&"date") && cols.contains(&"model") {
            return Ok(BillFormat::Csv);
        }
        return Err(InputError::file(
            InputErrorKind::Schema,
            file,
            format!("not an export fallcost reads: expected {formats}"),
        ));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| super::json_syntax_error(file, &e))?;
    let page = match &value {
        serde_json::Value::Array(pages) => pages.first().cloned().unwrap_or_default(),
        v => v.clone(),
    };
    let data = page.get("data").and_then(|d| d.as_array());
    let first = data.and_then(|d| d.first());
    let result = first
        .and_then(|b| b.get("results"))
        .and_then(|r| r.as_array())
        .and_then(|r| r.first());
    let object = result
        .and_then(|r| r.get("object"))
        .and_then(|o| o.as_str());
    let has = |v: Option<&serde_json::Value>, k: &str| v.is_some_and(|v| v.get(k).is_some());
    let format = match object {
        Some("organization.usage.completions.result") => Some(BillFormat::OpenaiUsage),
        Some("organization.costs.result") => Some(BillFormat::OpenaiCosts),
        _ if has(result, "uncached_input_tokens") => Some(BillFormat::AnthropicUsage),
        _ if has(result, "amount") && has(first, "starting_at") => Some(BillFormat::AnthropicCosts),
        _ if has(first, "prompt_tokens") && has(first, "date") => Some(BillFormat::Openrouter),
        _ => None,
    };
    format.ok_or_else(|| {
        let why = if data.is_some_and(|d| d.is_empty()) {
            "its `data` is empty, so nothing says which export it is (and it bills nothing): leave it out"
        } else {
            "no `data[0]` (with `results[0]`) of a known shape"
        };
        InputError::file(
            InputErrorKind::Schema,
            file,
            format!("not an export fallcost reads ({why}): expected {formats}"),
        )
    })
}

/// Deserialize a JSON export as one page `P` or an array of pages; the pages in file order.
///
/// Errors: a missing or mistyped field, or a value a page's `try_from` refuses, with serde's
/// line and column and the field path (`[1].data[0].results[2].model`).
pub(crate) fn pages<P: DeserializeOwned>(file: &str, text: &str) -> Result<Vec<P>, InputError> {
    let many = text.trim_start().starts_with('[');
    let de = &mut serde_json::Deserializer::from_str(text);
    if many {
        let v: Vec<P> = serde_path_to_error::deserialize(de).map_err(|e| json_error(file, e))?;
        Ok(v)
    } else {
        let v: P = serde_path_to_error::deserialize(de).map_err(|e| json_error(file, e))?;
        Ok(vec![v])
    }
}

/// A serde error in a JSON export as one [`InputError`]: its line and column, the field path
/// and the message without the position serde repeats.
fn json_error(file: &str, e: serde_path_to_error::Error<serde_json::Error>) -> InputError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let text = inner.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    InputError {
        file: file.to_string(),
        location: Some(Location {
            line: inner.line().max(1),
            col: inner.column().max(1),
        }),
        field: (!path.is_empty() && path != ".").then_some(path),
        message,
        kind: if inner.is_syntax() || inner.is_eof() {
            InputErrorKind::Syntax
        } else {
            InputErrorKind::Schema
        },
    }
}

/// The note for an export whose last page says more pages follow.
pub(crate) fn more_pages_note(
    file: &str,
    has_more: bool,
    next_page: Option<&str>,
) -> Option<String> {
    has_more.then(|| {
        format!(
            "{file}: its last page says more follow (has_more: true, next_page {}): fetch them, or the period's figures are short",
            next_page.map_or_else(|| "null".to_string(), |p| format!("{p:?}"))
        )
    })
}

/// The UTC day (`YYYY-MM-DD`) of Unix seconds.
pub fn day_of_unix(unix_s: f64) -> String {
    crate::input::history::format_rfc3339(unix_s)[..10].to_string()
}

/// The UTC day (`YYYY-MM-DD`) of an RFC 3339 time.
///
/// Errors: not an RFC 3339 time (the message says what is allowed).
pub fn day_of_rfc3339(text: &str) -> Result<String, ValueError> {
    crate::input::history::parse_rfc3339(text).map(day_of_unix)
}

/// Check a `YYYY-MM-DD` day.
///
/// Errors: any other shape, or no such date.
pub fn check_day(text: &str) -> Result<String, ValueError> {
    day_of_rfc3339(&format!("{text}T00:00:00Z"))
        .ok()
        .filter(|d| d == text)
        .ok_or_else(|| {
            ValueError::Time(format!(
                "{text:?} is not a day: expected YYYY-MM-DD, e.g. 2026-11-02"
            ))
        })
}

/// A whole, non-negative token count from JSON (`u64`), as f64.
pub(crate) fn tokens(n: u64) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests;
