//! The plain CSV, for a bill from anything else: one row per model, day, service tier and
//! context window, with a header naming the columns (any order; an unknown column is an error,
//! this being fallcost's own format):
//!
//! | column | required | meaning |
//! |---|---|---|
//! | `date` | yes | the UTC day, `YYYY-MM-DD` |
//! | `model` | yes | `provider/model`, as the price table names it |
//! | `service_tier` | no | `standard` (default), `batch`, `flex`, `priority` |
//! | `context_window` | no | `0-200k` (default) or `200k-1M`: prompts above 200,000 tokens |
//! | `requests` | no | requests answered |
//! | `uncached_input_tokens` | yes | input tokens billed at the input price |
//! | `cache_read_input_tokens` | no | input tokens read from the cache |
//! | `cache_write_5m_input_tokens` | no | input tokens written to the cache, 5-minute TTL |
//! | `cache_write_1h_input_tokens` | no | input tokens written to the cache, 1-hour TTL |
//! | `output_tokens` | yes | output tokens |
//! | `billed_usd` | no | what the provider billed for the row, USD (empty: not known) |
//!
//! An empty optional cell is its default (0 tokens, no billed amount).

use super::{Bill, CostLine, UsageLine, check_day};
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::ServiceTier;

/// The plain CSV's columns, in the documented order.
pub const COLUMNS: [&str; 11] = [
    "date",
    "model",
    "service_tier",
    "context_window",
    "requests",
    "uncached_input_tokens",
    "cache_read_input_tokens",
    "cache_write_5m_input_tokens",
    "cache_write_1h_input_tokens",
    "output_tokens",
    "billed_usd",
];

const REQUIRED: [&str; 4] = ["date", "model", "uncached_input_tokens", "output_tokens"];

/// Read a plain CSV into `bill`.
///
/// Errors: a header without a required column or with an unknown one; a cell that is not what
/// its column allows (file, line, column name).
pub fn parse(file: &str, text: &str, bill: &mut Bill) -> Result<(), InputError> {
    let mut reader = ::csv::ReaderBuilder::new()
        .trim(::csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| InputError::file(InputErrorKind::Syntax, file, format!("invalid CSV: {e}")))?
        .clone();
    check_header(file, &headers)?;
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            at(file, line, "", format!("invalid CSV: {e}"))
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let (usage, cost) = row(file, line, &headers, &record)?;
        bill.usage.push(usage);
        bill.costs.extend(cost);
    }
    Ok(())
}

/// An error at `line` of `file`, in column `field`.
fn at(file: &str, line: u64, field: &str, message: String) -> InputError {
    InputError {
        file: file.to_string(),
        location: Some(Location {
            line: line as usize,
            col: 1,
        }),
        field: Some(field.to_string()),
        message,
        kind: InputErrorKind::Invalid,
    }
}

/// Check the header: every column known, every required one there.
///
/// Errors: the first unknown column (with the nearest known name), else the first missing
/// required one.
fn check_header(file: &str, headers: &::csv::StringRecord) -> Result<(), InputError> {
    for h in headers.iter() {
        if !COLUMNS.contains(&h) {
            let mut e = at(
                file,
                1,
                h,
                format!(
                    "unknown column{}; allowed: {}",
                    crate::suggest::nearest(h, COLUMNS.iter().copied())
                        .map_or(String::new(), |s| format!(" (did you mean `{s}`?)")),
                    COLUMNS.join(", ")
                ),
            );
            e.kind = InputErrorKind::Schema;
            return Err(e);
        }
    }
    for r in REQUIRED {
        if !headers.iter().any(|h| h == r) {
            let mut e = at(
                file,
                1,
                r,
                format!("missing column; required: {}", REQUIRED.join(", ")),
            );
            e.kind = InputErrorKind::Schema;
            return Err(e);
        }
    }
    Ok(())
}

/// The usage line of `record` at `line` (under `headers`), and its billed amount when the row
/// has one.
///
/// Errors: a cell that is not what its column allows.
fn row(
    file: &str,
    line: u64,
    headers: &::csv::StringRecord,
    record: &::csv::StringRecord,
) -> Result<(UsageLine, Option<CostLine>), InputError> {
    let col = |name: &str| headers.iter().position(|h| h == name);
    let cell = |name: &str| col(name).and_then(|i| record.get(i)).unwrap_or("");
    let count = |name: &str| -> Result<f64, InputError> {
        let c = cell(name);
        if c.is_empty() {
            return if REQUIRED.contains(&name) {
                Err(at(
                    file,
                    line,
                    name,
                    "empty; a whole number of tokens is required".into(),
                ))
            } else {
                Ok(0.0)
            };
        }
        c.parse::<u64>().map(|n| n as f64).map_err(|_| {
            at(
                file,
                line,
                name,
                format!("{c:?} is not a whole number >= 0"),
            )
        })
    };
    let day = check_day(cell("date")).map_err(|m| at(file, line, "date", m.to_string()))?;
    let model = cell("model").to_string();
    if !model.contains('/') {
        return Err(at(
            file,
            line,
            "model",
            format!(
                "{model:?} has no `provider/` prefix; write it as the price table names it, e.g. openai/gpt-6-sol"
            ),
        ));
    }
    let (service_tier, long_context) =
        tier_and_window(file, line, cell("service_tier"), cell("context_window"))?;
    let requests = match cell("requests") {
        "" => None,
        _ => Some(count("requests")?),
    };
    let source = format!("{file}:{line}");
    let usage = UsageLine {
        source: source.clone(),
        day: day.clone(),
        model: model.clone(),
        service_tier,
        long_context,
        requests,
        uncached_input: count("uncached_input_tokens")?,
        cache_read: count("cache_read_input_tokens")?,
        cache_write_5m: count("cache_write_5m_input_tokens")?,
        cache_write_1h: count("cache_write_1h_input_tokens")?,
        output: count("output_tokens")?,
        cache_split: true,
    };
    let cost = billed(file, line, cell("billed_usd"))?.map(|usd| CostLine {
        source,
        day,
        model,
        usd,
    });
    Ok((usage, cost))
}

/// A row's billed amount, USD, from its `billed_usd` cell `billed` (empty: not known).
///
/// Errors: not a finite amount >= 0.
fn billed(file: &str, line: u64, billed: &str) -> Result<Option<f64>, InputError> {
    if billed.is_empty() {
        return Ok(None);
    }
    let usd = billed
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            at(
                file,
                line,
                "billed_usd",
                format!("{billed:?} is not an amount in USD >= 0"),
            )
        })?;
    Ok(Some(usd))
}

/// The record's service tier and whether its prompts are above 200,000 tokens, from its
/// `service_tier` and `context_window` cells (empty: standard, not).
///
/// Errors: a value the column does not allow.
fn tier_and_window(
    file: &str,
    line: u64,
    tier: &str,
    window: &str,
) -> Result<(ServiceTier, bool), InputError> {
    let service_tier = match tier {
        "" | "standard" => ServiceTier::Standard,
        "batch" => ServiceTier::Batch,
        "flex" => ServiceTier::Flex,
        "priority" => ServiceTier::Priority,
        other => {
            return Err(at(
                file,
                line,
                "service_tier",
                format!("{other:?}; allowed: standard, batch, flex, priority"),
            ));
        }
    };
    let long_context = match window {
        "" | "0-200k" => false,
        "200k-1M" => true,
        other => {
            return Err(at(
                file,
                line,
                "context_window",
                format!("{other:?}; allowed: 0-200k, 200k-1M"),
            ));
        }
    };
    Ok((service_tier, long_context))
}
