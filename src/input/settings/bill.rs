//! `[pricing]` of `fallcost.toml`: what `fallcost reconcile` knows of a bill that no price
//! table says.
//!
//! ```toml
//! [pricing.discounts]              # a share off the table's price, like LiteLLM's
//! openai = 0.10                    # cost_discount_config: 10% off every OpenAI model
//! "anthropic/claude-sonnet-5" = 0.15   # a model's own entry wins over its provider's
//!
//! [[pricing.change]]               # a price change inside the period
//! model = "openai/gpt-6-sol"
//! from = "2026-11-16"              # the UTC day the new prices apply from
//! input = 1.75                     # $/MTok; a price not given keeps the table's
//! output = 9.00
//! cached_input = 0.175
//! # cache_write, cache_write_1h
//! ```
//!
//! Discounts are shares in [0, 1); prices are $/MTok in [0, 1,000,000]. Unknown keys, values
//! out of range, a day that is not `YYYY-MM-DD` and two changes of one model on one day are
//! errors naming the line (exit 2).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{InputError, InputErrorKind};
use crate::input::check_range;
use crate::input::document::{Document, PathSegment};
use crate::input::pricing::MAX_PRICE;

/// `[pricing]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PricingSection {
    #[serde(default)]
    discounts: BTreeMap<String, f64>,
    #[serde(default)]
    change: Vec<ChangeEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangeEntry {
    model: String,
    from: String,
    input: Option<f64>,
    output: Option<f64>,
    cached_input: Option<f64>,
    cache_write: Option<f64>,
    cache_write_1h: Option<f64>,
}

/// A price change: from `from` on, `model`'s given prices replace the table's ($/MTok).
#[derive(Debug, Clone, PartialEq)]
pub struct PriceChange {
    /// `provider/model`, as the exports name it.
    pub model: String,
    /// The first UTC day it applies, `YYYY-MM-DD`.
    pub from: String,
    /// Input, $/MTok.
    pub input: Option<f64>,
    /// Output, $/MTok.
    pub output: Option<f64>,
    /// Cache reads, $/MTok.
    pub cached_input: Option<f64>,
    /// Cache writes (5-minute TTL), $/MTok.
    pub cache_write: Option<f64>,
    /// Cache writes (1-hour TTL), $/MTok.
    pub cache_write_1h: Option<f64>,
    /// Where it is written: `FILE:LINE`.
    pub source: String,
}

/// `[pricing]` of a `fallcost.toml`, validated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BillPricing {
    /// The settings file, as shown (empty when there is none).
    pub file: String,
    /// Discounts by provider or `provider/model`: shares in [0, 1).
    pub discounts: BTreeMap<String, f64>,
    /// Price changes, by model then day.
    pub changes: Vec<PriceChange>,
}

impl BillPricing {
    /// The discount of `model` (its own entry, else its provider's) with the key it came
    /// from; `None` without one.
    pub fn discount_of(&self, model: &str) -> Option<(f64, &str)> {
        if let Some((k, d)) = self.discounts.get_key_value(model) {
            return Some((*d, k.as_str()));
        }
        let provider = model.split_once('/').map_or(model, |(p, _)| p);
        self.discounts
            .get_key_value(provider)
            .map(|(k, d)| (*d, k.as_str()))
    }

    /// The latest change of `model` in force on `day` (`YYYY-MM-DD`, compared as text).
    pub fn change_on(&self, model: &str, day: &str) -> Option<&PriceChange> {
        self.changes
            .iter()
            .filter(|c| c.model == model && c.from.as_str() <= day)
            .max_by(|a, b| a.from.cmp(&b.from))
    }
}

/// The `[pricing]` of the nearest `fallcost.toml` from the current folder (or of `path`);
/// empty when there is none.
///
/// Errors: an unreadable file, TOML syntax, unknown or mistyped keys, a discount outside
/// [0, 1), a price out of range, a bad day, a duplicate change (file, line, field).
pub fn bill_pricing(path: Option<&Path>) -> Result<BillPricing, InputError> {
    let Some(path) = super::locate(path) else {
        return Ok(BillPricing::default());
    };
    let (shown, text) = super::read(&path)?;
    let doc = Document::parse(&shown, &text)?;
    let file: super::SettingsFile = doc.deserialize()?;
    let Some(section) = file.pricing else {
        return Ok(BillPricing {
            file: shown,
            ..BillPricing::default()
        });
    };
    check_discounts(&doc, &section.discounts)?;
    let mut changes = Vec::new();
    for (i, c) in section.change.into_iter().enumerate() {
        let change = price_change(&doc, &shown, i, c, &changes)?;
        changes.push(change);
    }
    Ok(BillPricing {
        file: shown,
        discounts: section.discounts,
        changes,
    })
}

/// `[pricing]`'s path to `parts`.
fn pricing_key(parts: &[PathSegment]) -> Vec<PathSegment> {
    let mut p = vec![PathSegment::Key("pricing".into())];
    p.extend_from_slice(parts);
    p
}

/// `[pricing.discounts]`: each a share in [0, 1) of a valid model or provider name.
///
/// Errors: the first that is not, at its line.
fn check_discounts(doc: &Document, discounts: &BTreeMap<String, f64>) -> Result<(), InputError> {
    for (k, d) in discounts {
        let at = pricing_key(&[
            PathSegment::Key("discounts".into()),
            PathSegment::Key(k.clone()),
        ]);
        if !(d.is_finite() && (0.0..1.0).contains(d)) {
            return Err(doc.error_at(
                InputErrorKind::Invalid,
                &at,
                format!("a discount is a share in [0, 1) (0.10 is 10% off); got {d}"),
            ));
        }
        crate::input::check_name(k).map_err(|m| doc.error_at(InputErrorKind::Invalid, &at, m))?;
    }
    Ok(())
}

/// The `i`th `[[pricing.change]]` of the file shown as `shown`, validated against the changes
/// before it (`earlier`).
///
/// Errors: a bad day, a model without `provider/`, a price out of range, a second change of
/// one model on one day; each at its line and field.
fn price_change(
    doc: &Document,
    shown: &str,
    i: usize,
    c: ChangeEntry,
    earlier: &[PriceChange],
) -> Result<PriceChange, InputError> {
    let at = |field: &str| {
        pricing_key(&[
            PathSegment::Key("change".into()),
            PathSegment::Index(i),
            PathSegment::Key(field.into()),
        ])
    };
    let from = crate::input::bill::check_day(&c.from)
        .map_err(|m| doc.error_at(InputErrorKind::Invalid, &at("from"), m))?;
    if !c.model.contains('/') {
        return Err(doc.error_at(
            InputErrorKind::Invalid,
            &at("model"),
            format!(
                "{:?} has no `provider/` prefix; name it as the exports do (openai/gpt-6-sol)",
                c.model
            ),
        ));
    }
    for (field, v) in [
        ("input", c.input),
        ("output", c.output),
        ("cached_input", c.cached_input),
        ("cache_write", c.cache_write),
        ("cache_write_1h", c.cache_write_1h),
    ] {
        if let Some(v) = v {
            check_range(v, 0.0, MAX_PRICE).map_err(|m| {
                doc.error_at(
                    InputErrorKind::Invalid,
                    &at(field),
                    format!("price in $/MTok {m}"),
                )
            })?;
        }
    }
    if earlier.iter().any(|p| p.model == c.model && p.from == from) {
        return Err(doc.error_at(
            InputErrorKind::Invalid,
            &at("from"),
            format!(
                "{} already changes price on {from}; give one change per model and day",
                c.model
            ),
        ));
    }
    let line = doc.locate(&at("model")).map_or(0, |l| l.line);
    Ok(PriceChange {
        model: c.model,
        from,
        input: c.input,
        output: c.output,
        cached_input: c.cached_input,
        cache_write: c.cache_write,
        cache_write_1h: c.cache_write_1h,
        source: format!("{shown}:{line}"),
    })
}
