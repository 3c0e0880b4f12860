//! `[prices]` of `fallcost.toml`: a project's own prices for the models no price table has
//! (a fine-tune, a private deployment, a provider the table lacks), read by `check`, `compare`,
//! `sweep`, `tune` and `diff` over the price table they use: for gateway configs and scenarios
//! (over the scenario's own `pricing`) alike.
//!
//! ```toml
//! [prices."acme/big-model"]
//! input = 5.00          # USD per 1M input tokens ($/MTok)
//! output = 20.00        # USD per 1M output tokens
//! cache_read = 0.50     # optional: a cache read, $/MTok (<= input)
//! cache_write = 6.25    # optional: a cache write, $/MTok (>= input; explicit caching)
//! provider = "acme"     # optional: the failure domain; default the part before '/'
//! ```
//!
//! `fallcost check` prints a block of these to fill in, one per model no table or config
//! prices. Unknown fields, prices that are negative, not finite or above $1,000,000 per MTok,
//! a cache read above input or a cache write below it are errors naming the line (exit 2).

use std::path::Path;

use serde::Deserialize;

use crate::error::{InputError, InputErrorKind};
use crate::input::document::{Document, PathSegment};
use crate::input::pricing::MAX_PRICE;
use crate::input::{check_name, check_range};
use crate::model::{Caching, ModelPrice, PriceTable};

/// One `[prices."ID"]` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PriceEntry {
    input: f64,
    output: f64,
    cache_read: Option<f64>,
    cache_write: Option<f64>,
    provider: Option<String>,
}

/// The `[prices]` of a `fallcost.toml`, validated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OwnPrices {
    /// The settings file, as shown in messages (empty when there is none).
    pub file: String,
    /// The prices, $/MTok, in id order.
    pub prices: Vec<ModelPrice>,
}

impl OwnPrices {
    /// `table` with these prices added (each by its id, over the table's entry), named `NAME +
    /// FILE [prices]`; `table` unchanged when there are none.
    pub fn over(&self, mut table: PriceTable) -> PriceTable {
        if self.prices.is_empty() {
            return table;
        }
        table.name = format!("{} + {} [prices]", table.name, self.file);
        for p in &self.prices {
            table.models.insert(p.id.clone(), p.clone());
        }
        table
    }
}

/// The `[prices]` of the nearest `fallcost.toml` from the current folder (or of `path`);
/// empty when there is none.
///
/// Errors: an unreadable file, TOML syntax, unknown or mistyped fields, a price out of range
/// (each naming the file, line and field).
pub fn price_settings(path: Option<&Path>) -> Result<OwnPrices, InputError> {
    let Some(path) = super::locate(path) else {
        return Ok(OwnPrices::default());
    };
    let (shown, text) = super::read(&path)?;
    let doc = Document::parse(&shown, &text)?;
    let file: super::SettingsFile = doc.deserialize()?;
    let mut prices = Vec::new();
    for (id, e) in file.prices.unwrap_or_default() {
        prices.push(entry(&doc, id, e)?);
    }
    Ok(OwnPrices {
        file: shown,
        prices,
    })
}

/// One entry, validated as a price table's (`crate::input::pricing`) are.
fn entry(doc: &Document, id: String, e: PriceEntry) -> Result<ModelPrice, InputError> {
    let at = |field: &str| -> Vec<PathSegment> {
        let mut p = vec![
            PathSegment::Key("prices".into()),
            PathSegment::Key(id.clone()),
        ];
        if !field.is_empty() {
            p.push(PathSegment::Key(field.into()));
        }
        p
    };
    let invalid = |field: &str, msg: String| doc.error_at(InputErrorKind::Invalid, &at(field), msg);
    for (field, value) in [
        ("input", Some(e.input)),
        ("output", Some(e.output)),
        ("cache_read", e.cache_read),
        ("cache_write", e.cache_write),
    ] {
        if let Some(v) = value {
            check_range(v, 0.0, MAX_PRICE)
                .map_err(|m| invalid(field, format!("price in $/MTok {m}")))?;
        }
    }
    if let Some(read) = e.cache_read
        && read > e.input
    {
        return Err(invalid(
            "cache_read",
            format!(
                "a cache read ({read}) above the input price ({}) is not a discount; cache_read must be <= input",
                e.input
            ),
        ));
    }
    if let Some(write) = e.cache_write
        && write < e.input
    {
        return Err(invalid(
            "cache_write",
            format!(
                "a cache write ({write}) below the input price ({}) is not how providers bill; cache_write must be >= input",
                e.input
            ),
        ));
    }
    check_name(&id).map_err(|m| invalid("", format!("model id {m}")))?;
    let provider = match (e.provider, id.split_once('/')) {
        (Some(p), _) => p,
        (None, Some((p, _))) if !p.is_empty() => p.to_string(),
        _ => {
            return Err(invalid(
                "",
                format!(
                    "`{id}` has no `provider/` prefix; set `provider` (the failure domain, e.g. \"openai\")"
                ),
            ));
        }
    };
    check_name(&provider).map_err(|m| invalid("provider", m.to_string()))?;
    let caching = Caching::implied(e.cache_write, e.cache_read);
    Ok(ModelPrice {
        id,
        provider,
        input: e.input,
        output: e.output,
        cached_input: e.cache_read,
        cache_write: e.cache_write,
        caching,
        cache_ttl_s: caching.default_ttl_s(),
        cache_write_1h: None,
        min_cache_prefix: None,
        miss_writes: false,
        tiers: Vec::new(),
    })
}
