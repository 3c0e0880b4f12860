//! `fallcost reconcile`: the price table held against the providers' own usage and cost
//! exports ([`crate::input::bill`]), model by model and day by day, with the residual put down
//! to what `fallcost.toml`'s `[pricing]` says (discounts, dated prices) or to what the table
//! lacks; and, with a scenario, its prediction against the chain's bill ([`scenario`]).

pub mod scenario;

use std::collections::BTreeMap;

use crate::input::bill::{Bill, UsageLine};
use crate::input::settings::BillPricing;
use crate::model::{ModelError, ModelPrice, PriceTable, Rate};
use crate::report::reconcile::{BillRow, BillTotals, ReadFile, ReconcileReport};

/// The prompt size a long-context bucket is priced at: just above Anthropic's 200,000-token
/// `context_window` boundary, so the table's tier above 200k applies.
pub const LONG_CONTEXT_PROMPT: f64 = 200_001.0;

/// The entry of `model` in `table`: the exact id (as [`PriceTable::get`] resolves it), else
/// the id without a dated snapshot suffix (`claude-sonnet-5-20260301`, `gpt-6-sol-2026-03-01`).
pub fn lookup<'t>(table: &'t PriceTable, model: &str) -> Option<&'t ModelPrice> {
    table.get(model).or_else(|| {
        let undated = strip_date(model)?;
        table.get(undated)
    })
}

/// `model` without a trailing `-YYYYMMDD` or `-YYYY-MM-DD`, when it has one.
fn strip_date(model: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, tail)) = model.rsplit_once('-')
        && tail.len() == 8
        && digits(tail)
    {
        return Some(head);
    }
    let b = model.len();
    if b > 11 {
        let (head, tail) = model.split_at(b - 11);
        let t = tail.as_bytes();
        if t[0] == b'-'
            && t[5] == b'-'
            && t[8] == b'-'
            && digits(&tail[1..5])
            && digits(&tail[6..8])
            && digits(&tail[9..11])
        {
            return Some(head);
        }
    }
    None
}

/// `price` with a dated change applied: each price the change gives replaces the base one, and
/// that rate's long-context and service-tier prices keep their ratio to the base price.
pub fn changed(price: &ModelPrice, change: &crate::input::settings::PriceChange) -> ModelPrice {
    let mut p = price.clone();
    let scale = |rate: Rate, new: Option<f64>, p: &mut ModelPrice| {
        let Some(new) = new else { return };
        let old = p.base(rate);
        for t in p.tiers.iter_mut().filter(|t| t.rate == rate) {
            t.price = match old {
                Some(o) if o > 0.0 => t.price * new / o,
                _ => new,
            };
        }
        match rate {
            Rate::Input => p.input = new,
            Rate::Output => p.output = new,
            Rate::CacheRead => p.cached_input = Some(new),
            Rate::CacheWrite => p.cache_write = Some(new),
            Rate::CacheWrite1h => p.cache_write_1h = Some(new),
        }
    };
    scale(Rate::Input, change.input, &mut p);
    scale(Rate::Output, change.output, &mut p);
    scale(Rate::CacheRead, change.cached_input, &mut p);
    scale(Rate::CacheWrite, change.cache_write, &mut p);
    scale(Rate::CacheWrite1h, change.cache_write_1h, &mut p);
    p
}

/// The USD `price` bills for `u`'s tokens in its service tier and context window: uncached
/// input at the input price, cache reads at the cache-read price (the input price when the
/// table gives none: no discount), 5-minute writes at the write price (the input price when
/// none), 1-hour writes at the 1-hour write price, output at the output price.
///
/// Errors: the table does not price the tier, the long context, or a 1-hour write the line
/// has (the message says which): an unknown price is never borrowed.
pub fn price_line(price: &ModelPrice, u: &UsageLine) -> Result<f64, ModelError> {
    let tier = u.service_tier;
    if !price.has_service(tier) {
        return Err(ModelError::TableLacks {
            what: tier.as_str().to_string(),
            model: price.id.clone(),
            note: "",
        });
    }
    let prompt = if u.long_context {
        if !price.context_tiers().iter().any(|t| *t as f64 <= 200_000.0) {
            return Err(ModelError::TableLacks {
                what: "long-context (above 200k tokens)".into(),
                model: price.id.clone(),
                note: "",
            });
        }
        LONG_CONTEXT_PROMPT
    } else {
        0.0
    };
    let rate = |r: Rate| price.rate_for(r, prompt, tier);
    let missing = |rate| ModelError::NoRate {
        rate,
        model: price.id.clone(),
    };
    let input = rate(Rate::Input).ok_or_else(|| missing("input"))?;
    let output = rate(Rate::Output).ok_or_else(|| missing("output"))?;
    let read = rate(Rate::CacheRead).unwrap_or(input);
    let write = rate(Rate::CacheWrite).unwrap_or(input);
    let write_1h = if u.cache_write_1h > 0.0 {
        rate(Rate::CacheWrite1h).ok_or_else(|| ModelError::TableLacks {
            what: "1-hour cache-write".into(),
            model: price.id.clone(),
            note: " (cache_write_1h)",
        })?
    } else {
        0.0
    };
    Ok((u.uncached_input * input
        + u.cache_read * read
        + u.cache_write_5m * write
        + u.cache_write_1h * write_1h
        + u.output * output)
        / 1e6)
}

/// What `reconcile` is given.
pub struct ReconcileInputs<'a> {
    /// The exports, read.
    pub bill: &'a Bill,
    /// The price table.
    pub table: &'a PriceTable,
    /// fallcost.toml's `[pricing]`.
    pub pricing: &'a BillPricing,
    /// The band a row must be within to count as explained (0.02 is ±2%).
    pub band: f64,
}

#[derive(Default)]
struct Acc {
    priced_as: Option<String>,
    requests: Option<f64>,
    tokens: [f64; 5],
    table: f64,
    discount: f64,
    change: f64,
    unpriced: Vec<String>,
    billed: Option<f64>,
    has_usage: bool,
    attribution: Vec<String>,
}

fn push_once(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// Price every usage line with the table (and `[pricing]`), add the billed amounts, and
/// compare them per model and day.
///
/// Errors: none of the exports has a billed amount (there is nothing to reconcile against).
pub fn reconcile(inputs: &ReconcileInputs) -> crate::ops::OpsResult<ReconcileReport> {
    let ReconcileInputs {
        bill,
        table,
        pricing,
        band,
    } = *inputs;
    if bill.costs.is_empty() {
        return Err(crate::ops::OpsError::NoBilledAmount {
            files: bill
                .files
                .iter()
                .map(|(f, _)| f.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let mut acc: BTreeMap<(String, String), Acc> = BTreeMap::new();
    for u in &bill.usage {
        let a = acc.entry((u.day.clone(), u.model.clone())).or_default();
        add_usage(a, u, table, pricing);
    }
    for c in &bill.costs {
        let a = acc.entry((c.day.clone(), c.model.clone())).or_default();
        *a.billed.get_or_insert(0.0) += c.usd;
    }
    let no_bill = acc.values().filter(|a| a.billed.is_none()).count();
    let rows: Vec<BillRow> = acc
        .into_iter()
        .map(|((day, model), a)| bill_row(day, model, a, band))
        .collect();
    let totals = totals(&rows);
    let mut notes = bill.notes.clone();
    if no_bill > 0 {
        notes.push(format!(
            "{no_bill} model-day rows have usage but no billed amount (no cost export covers them): left out of the totals"
        ));
    }
    Ok(ReconcileReport {
        fallcost_version: env!("CARGO_PKG_VERSION"),
        pricing: table.name.clone(),
        settings: (!pricing.file.is_empty()).then(|| pricing.file.clone()),
        band,
        files: bill
            .files
            .iter()
            .map(|(file, f)| ReadFile {
                file: file.clone(),
                format: f.as_str(),
                source: f.source(),
            })
            .collect(),
        rows,
        totals,
        scenario: None,
        notes,
    })
}

/// Add usage line `u` to its model-day `a`: its requests and tokens, and its USD at the table
/// (with a dated price change and a discount from `[pricing]`), or why it is unpriced.
fn add_usage(a: &mut Acc, u: &UsageLine, table: &PriceTable, pricing: &BillPricing) {
    a.has_usage = true;
    if let Some(r) = u.requests {
        *a.requests.get_or_insert(0.0) += r;
    }
    for (slot, v) in a.tokens.iter_mut().zip([
        u.uncached_input,
        u.cache_read,
        u.cache_write_5m,
        u.cache_write_1h,
        u.output,
    ]) {
        *slot += v;
    }
    if !u.cache_split {
        push_once(
            &mut a.attribution,
            "the export does not split cached from uncached prompt tokens (OpenRouter activity): all priced at the input price, so a cache discount shows as a residual".into(),
        );
    }
    let Some(base) = lookup(table, &u.model) else {
        push_once(
            &mut a.unpriced,
            format!(
                "{} is not in the price table {}{}",
                u.model,
                table.name,
                table.lookup_hint(&u.model)
            ),
        );
        return;
    };
    a.priced_as = Some(base.id.clone());
    let at_table = match price_line(base, u) {
        Ok(v) => v,
        Err(m) => {
            push_once(&mut a.unpriced, m.to_string());
            return;
        }
    };
    a.table += at_table;
    let now = add_price_change(a, base, u, pricing, at_table);
    if let Some((d, key)) = pricing.discount_of(&u.model) {
        a.discount -= now * d;
        push_once(
            &mut a.attribution,
            format!(
                "discount {}% ({key} in {} [pricing.discounts])",
                crate::number::trim(d * 100.0, 2),
                pricing.file
            ),
        );
    }
}

/// Apply `[pricing]`'s dated price change for `u`'s model and day, if any, to `a`: returns the
/// line's USD at the price of the day (`at_table` without a change, or when the changed
/// price cannot price the line: then `a` says why).
fn add_price_change(
    a: &mut Acc,
    base: &ModelPrice,
    u: &UsageLine,
    pricing: &BillPricing,
    at_table: f64,
) -> f64 {
    let Some(c) = pricing.change_on(&u.model, &u.day) else {
        return at_table;
    };
    match price_line(&changed(base, c), u) {
        Ok(v) => {
            a.change += v - at_table;
            push_once(
                &mut a.attribution,
                format!(
                    "dated price from {} ({} [[pricing.change]])",
                    c.from, c.source
                ),
            );
            v
        }
        Err(m) => {
            push_once(&mut a.unpriced, m.to_string());
            at_table
        }
    }
}

/// One model-day's row: expected against billed, the residual, whether it is within `band`,
/// and what explains it.
fn bill_row(day: String, model: String, a: Acc, band: f64) -> BillRow {
    let priced = a.has_usage && a.unpriced.is_empty();
    let expected = priced.then_some(a.table + a.discount + a.change);
    let mut attribution = a.attribution;
    attribution.extend(a.unpriced.iter().cloned());
    if !a.has_usage {
        attribution.push(if model.contains("/(") {
            "a cost that is not a model's tokens: no usage to price it by".into()
        } else {
            "billed with no usage in the exports".into()
        });
    }
    let residual = match (a.billed, expected) {
        // float noise of adding many lines (1e-12) is no residual
        (Some(b), Some(e)) if (b - e).abs() < 1e-9 * b.abs().max(1.0) => Some(0.0),
        (Some(b), Some(e)) => Some(b - e),
        (Some(b), None) => Some(b),
        _ => None,
    };
    let residual_share = match (residual, a.billed) {
        (Some(r), Some(b)) if b > 0.0 => Some(r / b),
        _ => None,
    };
    let within = match (a.billed, residual) {
        (Some(b), Some(r)) if expected.is_some() => r.abs() <= band * b + 1e-12,
        _ => false,
    };
    if let (Some(b), Some(e), false) = (a.billed, expected, within)
        && e > 0.0
    {
        attribution.push(unexplained(b / e));
    }
    BillRow {
        day,
        model,
        priced_as: if priced { a.priced_as } else { None },
        requests: a.requests,
        uncached_input_tokens: a.tokens[0],
        cache_read_input_tokens: a.tokens[1],
        cache_write_5m_input_tokens: a.tokens[2],
        cache_write_1h_input_tokens: a.tokens[3],
        output_tokens: a.tokens[4],
        table_usd: priced.then_some(a.table),
        discount_usd: if priced { a.discount } else { 0.0 },
        price_change_usd: if priced { a.change } else { 0.0 },
        expected_usd: expected,
        billed_usd: a.billed,
        residual_usd: residual,
        residual_share,
        within,
        attribution,
    }
}

/// The hint for a residual outside the band, billed `ratio` times expected.
fn unexplained(ratio: f64) -> String {
    if ratio < 1.0 {
        format!(
            "unexplained: billed {:.4}x expected; a {}% discount or commitment would explain it ([pricing.discounts]), or a price cut ([[pricing.change]])",
            ratio,
            crate::number::trim((1.0 - ratio) * 100.0, 1)
        )
    } else {
        format!(
            "unexplained: billed {ratio:.4}x expected; a price rise ([[pricing.change]]) or usage the exports leave out"
        )
    }
}

/// The period's totals over `rows` (see [`BillTotals`]).
fn totals(rows: &[BillRow]) -> BillTotals {
    let mut t = BillTotals {
        first_day: rows.first().map_or_else(String::new, |r| r.day.clone()),
        last_day: rows
            .iter()
            .map(|r| r.day.as_str())
            .max()
            .unwrap_or("")
            .to_string(),
        billed_usd: 0.0,
        expected_usd: 0.0,
        residual_usd: 0.0,
        residual_share: None,
        explained_usd: 0.0,
        explained_share: None,
        unpriced_billed_usd: 0.0,
        discount_usd: 0.0,
        price_change_usd: 0.0,
    };
    let mut both_billed = 0.0;
    for r in rows {
        let Some(b) = r.billed_usd else { continue };
        t.billed_usd += b;
        match r.expected_usd {
            Some(e) => {
                t.expected_usd += e;
                t.residual_usd += b - e;
                both_billed += b;
                t.discount_usd += r.discount_usd;
                t.price_change_usd += r.price_change_usd;
            }
            None => t.unpriced_billed_usd += b,
        }
        if r.within {
            t.explained_usd += b;
        }
    }
    if t.residual_usd.abs() < 1e-9 * t.billed_usd.max(1.0) {
        t.residual_usd = 0.0;
    }
    t.residual_share = (both_billed > 0.0).then(|| t.residual_usd / both_billed);
    t.explained_share = (t.billed_usd > 0.0).then(|| t.explained_usd / t.billed_usd);
    t
}

/// Whether the period's residual share (and, with a scenario, its period error) is above
/// `limit` (a fraction): `fallcost reconcile --fail-above`.
pub fn over(report: &ReconcileReport, limit: f64) -> bool {
    let table = report
        .totals
        .residual_share
        .is_some_and(|s| s.abs() > limit)
        || report.totals.unpriced_billed_usd > limit * report.totals.billed_usd;
    let scenario = report
        .scenario
        .as_ref()
        .and_then(|s| s.error_share)
        .is_some_and(|e| e.abs() > limit);
    table || scenario
}

#[cfg(test)]
mod tests;
