//! The prices operation: load a price table, keep the models a pattern and a provider name,
//! sort them; the result is rendered by [`crate::output::prices`].

use crate::input::pricing::{PricingRef, broad_name};
use crate::model::{ModelPrice, PriceTable, prices::same_provider};

/// Whether `id` matches `pattern`: case-insensitive, anywhere in the id, `*` matching any run
/// of characters (`claude*4-5` matches `anthropic/claude-sonnet-4-5`).
pub fn matches(pattern: &str, id: &str) -> bool {
    let id = id.to_lowercase();
    let mut rest = id.as_str();
    for part in pattern.to_lowercase().split('*').filter(|p| !p.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// How `fallcost prices` sorts its rows (`--sort`; the variants' comments are its `--help`
/// text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PriceSort {
    /// By model id.
    Model,
    /// By input price, cheapest first.
    Input,
    /// By output price, cheapest first.
    Output,
}

/// A price table as `fallcost prices` shows it: the models kept, in the order shown.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The table, with only the models kept, every price at 12 significant digits.
    pub table: PriceTable,
    /// The ids of the kept models, in the order shown (`--sort`).
    pub order: Vec<String>,
    /// How many models the whole table has.
    pub total: usize,
}

impl Selection {
    /// The kept models, in the order shown.
    pub fn shown(&self) -> Vec<&ModelPrice> {
        self.order.iter().map(|id| &self.table.models[id]).collect()
    }
}

/// Load the table `spec` (bundled name or path, relative to the working directory; the
/// broadest bundled table without one), keep the models whose id matches `pattern`
/// ([`matches()`]) and whose provider is `provider`, sorted by `sort`.
///
/// Errors: an unreadable or invalid table; no model left.
pub fn select(
    spec: Option<&str>,
    pattern: Option<&str>,
    provider: Option<&str>,
    sort: PriceSort,
) -> crate::ops::OpsResult<Selection> {
    let spec = spec.unwrap_or(broad_name());
    let mut prices = PricingRef::parse(spec, None).load()?;
    let total = prices.models.len();
    prices.models.retain(|id, m| {
        pattern.is_none_or(|p| matches(p, id))
            && provider.is_none_or(|p| same_provider(&m.provider, p))
    });
    if prices.models.is_empty() {
        return Err(crate::ops::OpsError::NoMatchingModel {
            spec: spec.to_string(),
            pattern: pattern.map(str::to_string),
            provider: provider.map(str::to_string),
        });
    }
    // LiteLLM's USD per token times a million carries float noise (15.000020000000003): show
    // every price at 12 significant digits, in every format.
    for (key, m) in prices.models.iter_mut() {
        // a rolling alias is shown under its own id (its price is the entry's it names)
        m.id.clone_from(key);
        for p in [&mut m.input, &mut m.output, &mut m.cache_ttl_s]
            .into_iter()
            .chain(m.cached_input.as_mut())
            .chain(m.cache_write.as_mut())
            .chain(m.cache_write_1h.as_mut())
            .chain(m.tiers.iter_mut().map(|t| &mut t.price))
        {
            *p = crate::number::round_noise(*p);
        }
    }
    // by the table's key: a rolling alias (`alias_of`) holds the price of the entry it names,
    // whose id may be filtered out
    let mut sorted: Vec<(&String, &ModelPrice)> = prices.models.iter().collect();
    match sort {
        PriceSort::Model => {}
        PriceSort::Input => sorted.sort_by(|a, b| a.1.input.total_cmp(&b.1.input)),
        PriceSort::Output => sorted.sort_by(|a, b| a.1.output.total_cmp(&b.1.output)),
    }
    let order = sorted.iter().map(|(id, _)| (*id).clone()).collect();
    Ok(Selection {
        table: prices,
        order,
        total,
    })
}
