//! Per-model prices and caching behaviour (MODEL.md §2).
//!
//! This is the in-memory form every input format (fallcost TOML, LiteLLM JSON) is turned into.
//! Prices are USD per 1,000,000 tokens ($/MTok), the unit every provider's price page uses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How a provider caches a stable prompt prefix (MODEL.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Caching {
    /// OpenAI-style: the first request of a session pays the prefix at `input`, later ones read
    /// it at `cached_input`; no write fee.
    Automatic,
    /// Anthropic-style: caching needs an explicit write at `cache_write` (1.25x input for the
    /// 5-minute TTL), which replaces the input charge; without it the prefix pays `input`.
    Explicit,
    /// No prompt caching: the prefix always pays `input`.
    None,
}

impl Caching {
    /// The identifier used in files and output: `automatic`, `explicit` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Caching::Automatic => "automatic",
            Caching::Explicit => "explicit",
            Caching::None => "none",
        }
    }

    /// The default cache TTL in seconds: 300 for `explicit` (Anthropic's 5-minute cache), 600 for
    /// `automatic` (OpenAI keeps prefixes 5 to 10 minutes), 0 for `none`.
    pub fn default_ttl_s(self) -> f64 {
        match self {
            Caching::Automatic => 600.0,
            Caching::Explicit => 300.0,
            Caching::None => 0.0,
        }
    }
}

/// The prices of one model, in $/MTok.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelPrice {
    /// `provider/model`, e.g. `anthropic/claude-sonnet-5`.
    pub id: String,
    /// The failure domain: an outage takes out every model of a provider.
    pub provider: String,
    /// Fresh input tokens, $/MTok.
    pub input: f64,
    /// Output tokens, $/MTok.
    pub output: f64,
    /// Cache reads, $/MTok; `None` means no discount (reads bill at `input`).
    pub cached_input: Option<f64>,
    /// Cache writes, $/MTok; `None` means writes bill at `input`.
    pub cache_write: Option<f64>,
    /// The provider's caching mode.
    pub caching: Caching,
    /// How long a written or read prefix stays cached, in seconds.
    pub cache_ttl_s: f64,
}

impl ModelPrice {
    /// Cache-read price in $/MTok (`input` when the table gives none).
    pub fn read_price(&self) -> f64 {
        self.cached_input.unwrap_or(self.input)
    }

    /// Cache-write price in $/MTok (`input` when the table gives none).
    pub fn write_price(&self) -> f64 {
        self.cache_write.unwrap_or(self.input)
    }
}

/// A price table: model id to prices, with where the prices came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceTable {
    /// The bundled name (`2026-07`) or the path the table was read from.
    pub name: String,
    /// The date the prices were checked against the providers' pages, when the file says.
    pub verified: Option<String>,
    /// Where the prices come from, when the file says.
    pub source: Option<String>,
    /// Prices by model id (`provider/model`), in id order.
    pub models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// The prices of `id`. An id also resolves without its provider prefix, and a bare id
    /// resolves to `provider/id` when exactly one provider has it (LiteLLM ids come both ways).
    /// `None` when the model is unknown: an unknown price is never taken as zero.
    pub fn get(&self, id: &str) -> Option<&ModelPrice> {
        if let Some(p) = self.models.get(id) {
            return Some(p);
        }
        if let Some((_, bare)) = id.split_once('/')
            && let Some(p) = self.models.get(bare)
        {
            return Some(p);
        }
        let mut suffixed = self
            .models
            .iter()
            .filter(|(k, _)| k.split_once('/').is_some_and(|(_, m)| m == id));
        match (suffixed.next(), suffixed.next()) {
            (Some((_, p)), None) => Some(p),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(id: &str) -> ModelPrice {
        ModelPrice {
            id: id.into(),
            provider: id.split('/').next().unwrap().into(),
            input: 1.0,
            output: 2.0,
            cached_input: None,
            cache_write: None,
            caching: Caching::None,
            cache_ttl_s: 0.0,
        }
    }

    #[test]
    fn ids_resolve_with_and_without_provider_prefix() {
        let mut models = BTreeMap::new();
        for id in ["openai/gpt-6-sol", "gpt-4o", "a/x", "b/x"] {
            models.insert(id.to_string(), price(id));
        }
        let t = PriceTable {
            name: "t".into(),
            verified: None,
            source: None,
            models,
        };
        assert_eq!(t.get("openai/gpt-6-sol").unwrap().id, "openai/gpt-6-sol");
        assert_eq!(t.get("gpt-6-sol").unwrap().id, "openai/gpt-6-sol");
        assert_eq!(t.get("openai/gpt-4o").unwrap().id, "gpt-4o");
        assert!(t.get("x").is_none(), "ambiguous bare id must not resolve");
        assert!(t.get("nope/none").is_none());
    }

    #[test]
    fn absent_cache_prices_mean_no_discount() {
        let p = price("a/b");
        assert_eq!(p.read_price(), 1.0);
        assert_eq!(p.write_price(), 1.0);
    }
}
