//! Per-model prices and caching behaviour (MODEL.md §2).
//!
//! This is the in-memory form every input format (fallcost TOML, LiteLLM JSON) is turned into.
//! Prices are USD per 1,000,000 tokens ($/MTok), the unit every provider's price page uses.

mod hint;

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
    /// The caching a price implies when no `caching` is stated: `explicit` with a cache-write
    /// price, `automatic` with only a cache-read price, `none` with neither.
    pub fn implied(cache_write: Option<f64>, cached_input: Option<f64>) -> Caching {
        if cache_write.is_some() {
            Caching::Explicit
        } else if cached_input.is_some() {
            Caching::Automatic
        } else {
            Caching::None
        }
    }

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
    /// Cache writes with the 1-hour TTL, $/MTok (LiteLLM's
    /// `cache_creation_input_token_cost_above_1hr`); `None` when the table gives none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<f64>,
    /// The shortest prefix the provider caches, in tokens (LiteLLM's `prompt_cache_min_tokens`);
    /// a shorter prefix is never cached. `None` when the table gives none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cache_prefix: Option<u64>,
    /// Whether the missed share of a warm prefix is billed as a cache write (an explicit-caching
    /// request that carries a breakpoint writes what it misses) rather than at `input`. Set on
    /// the per-request price [`Request::billed`](super::Request::billed) returns; `false` in a
    /// table.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub miss_writes: bool,
    /// Long-context and service-tier prices beside the base ones above (empty for a table
    /// without them, and on the per-request price [`Request::billed`](super::Request::billed)
    /// returns, which has them applied).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<TierPrice>,
}

/// A provider's service tier: the price list a request is billed from.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ServiceTier {
    /// The ordinary price list.
    #[default]
    Standard,
    /// Batch APIs (LiteLLM's `*_batches` fields), typically half price, answered within hours.
    Batch,
    /// Flex processing (`*_flex`): cheaper, slower, may be refused under load.
    Flex,
    /// Priority processing (`*_priority`): dearer, faster.
    Priority,
}

impl ServiceTier {
    /// Every tier, in file order.
    pub const ALL: [ServiceTier; 4] = [
        ServiceTier::Standard,
        ServiceTier::Batch,
        ServiceTier::Flex,
        ServiceTier::Priority,
    ];

    /// The identifier used in scenarios and output: `standard`, `batch`, `flex`, `priority`.
    pub fn as_str(self) -> &'static str {
        match self {
            ServiceTier::Standard => "standard",
            ServiceTier::Batch => "batch",
            ServiceTier::Flex => "flex",
            ServiceTier::Priority => "priority",
        }
    }

    /// The suffix of LiteLLM's field names for this tier (`_batches`, `_flex`, `_priority`;
    /// empty for standard).
    pub fn litellm_suffix(self) -> &'static str {
        match self {
            ServiceTier::Standard => "",
            ServiceTier::Batch => "_batches",
            ServiceTier::Flex => "_flex",
            ServiceTier::Priority => "_priority",
        }
    }
}

/// Which of a model's prices a [`TierPrice`] replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rate {
    /// Fresh input (`input`).
    Input,
    /// Output (`output`).
    Output,
    /// Cache reads (`cached_input`).
    CacheRead,
    /// Cache writes with the 5-minute TTL (`cache_write`).
    CacheWrite,
    /// Cache writes with the 1-hour TTL (`cache_write_1h`).
    CacheWrite1h,
}

/// One long-context or service-tier price: `rate` costs `price` $/MTok for a request whose
/// prompt (fresh input plus prefix) is above `above_tokens` tokens, in `service`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TierPrice {
    /// The price this replaces.
    pub rate: Rate,
    /// The prompt size above which it applies, in tokens (0: every prompt).
    pub above_tokens: u64,
    /// The service tier it belongs to.
    pub service: ServiceTier,
    /// USD per 1,000,000 tokens.
    pub price: f64,
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

    /// The base price of `rate` in the standard tier, $/MTok, when the table gives one.
    pub fn base(&self, rate: Rate) -> Option<f64> {
        match rate {
            Rate::Input => Some(self.input),
            Rate::Output => Some(self.output),
            Rate::CacheRead => self.cached_input,
            Rate::CacheWrite => self.cache_write,
            Rate::CacheWrite1h => self.cache_write_1h,
        }
    }

    /// The price of `rate` for a prompt of `prompt_tokens` in `service`, $/MTok: the
    /// highest long-context tier below the prompt in that service tier, else that service
    /// tier's base price, else (as LiteLLM's own cost calculator falls back) the standard
    /// tier's price for that prompt. `None` when the table has no such price at all.
    pub fn rate_for(&self, rate: Rate, prompt_tokens: f64, service: ServiceTier) -> Option<f64> {
        let tier = |s: ServiceTier| {
            self.tiers
                .iter()
                .filter(|t| {
                    t.rate == rate
                        && t.service == s
                        && (t.above_tokens as f64) < prompt_tokens.max(0.5)
                })
                .max_by_key(|t| t.above_tokens)
                .map(|t| t.price)
        };
        let standard = || tier(ServiceTier::Standard).or(self.base(rate));
        if service == ServiceTier::Standard {
            standard()
        } else {
            tier(service).or_else(standard)
        }
    }

    /// Whether the table prices `service` for this model (its own input and output prices).
    pub fn has_service(&self, service: ServiceTier) -> bool {
        service == ServiceTier::Standard
            || [Rate::Input, Rate::Output].iter().all(|r| {
                self.tiers
                    .iter()
                    .any(|t| t.rate == *r && t.service == service && t.above_tokens == 0)
            })
    }

    /// The long-context thresholds the table gives, in tokens, ascending (for display).
    pub fn context_tiers(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .tiers
            .iter()
            .filter(|t| t.above_tokens > 0 && t.service == ServiceTier::Standard)
            .map(|t| t.above_tokens)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The service tiers other than standard the table prices, in [`ServiceTier::ALL`] order.
    pub fn services(&self) -> Vec<ServiceTier> {
        ServiceTier::ALL
            .into_iter()
            .filter(|s| *s != ServiceTier::Standard && self.has_service(*s))
            .collect()
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
    /// What each model can serve (context window, capabilities, retirement), by the same ids,
    /// where the table says ([`super::fit::ModelFit`]; LiteLLM's table only).
    /// Not in `fallcost prices`' output (its JSON contract lists prices).
    #[serde(skip)]
    pub fit: BTreeMap<String, super::fit::ModelFit>,
}

impl PriceTable {
    /// The prices of `id`, looked up as LiteLLM looks models up, never borrowing another
    /// provider's price: the exact key; for `provider/model`, the bare key `model` when that
    /// entry is the provider's own (its provider is `provider` or `provider-…`, as LiteLLM's
    /// `vertex_ai-language-models` is Vertex AI's); for a bare id, the one `provider/id` key
    /// when exactly one provider has it. `None` when the model is unknown or a bare id is
    /// ambiguous ([`PriceTable::lookup_hint`] says which): an unknown price is never zero.
    pub fn get(&self, id: &str) -> Option<&ModelPrice> {
        self.key_of(id).and_then(|k| self.models.get(k))
    }

    /// What the model `id` can serve, looked up as [`PriceTable::get`] looks up its price;
    /// `None` where the table says nothing about it.
    pub fn fit_of(&self, id: &str) -> Option<&super::fit::ModelFit> {
        self.key_of(id).and_then(|k| self.fit.get(k))
    }

    /// The key [`PriceTable::get`] resolves `id` to.
    fn key_of(&self, id: &str) -> Option<&str> {
        if let Some((k, _)) = self.models.get_key_value(id) {
            return Some(k);
        }
        if let Some((provider, bare)) = id.split_once('/') {
            return self
                .models
                .get_key_value(bare)
                .filter(|(_, p)| same_provider(&p.provider, provider))
                .map(|(k, _)| k.as_str());
        }
        let mut suffixed = self.suffixed_keys(id);
        match (suffixed.next(), suffixed.next()) {
            (Some(k), None) => Some(k),
            _ => None,
        }
    }

    /// The keys `provider/id` for a bare `id`.
    fn suffixed_keys<'a, 'b>(&'a self, id: &'b str) -> impl Iterator<Item = &'a str> + use<'a, 'b> {
        self.models
            .keys()
            .filter(move |k| k.rsplit_once('/').is_some_and(|(_, m)| m == id))
            .map(String::as_str)
    }

    /// The entries `provider/id` for a bare `id`.
    fn suffixed<'a, 'b>(
        &'a self,
        id: &'b str,
    ) -> impl Iterator<Item = &'a ModelPrice> + use<'a, 'b> {
        self.models
            .iter()
            .filter(move |(k, _)| k.rsplit_once('/').is_some_and(|(_, m)| m == id))
            .map(|(_, p)| p)
    }
}

/// Whether an entry whose provider is `entry` belongs to `provider` as a model id names it:
/// the same name, or LiteLLM's family names (`vertex_ai-language-models` for `vertex_ai`).
pub fn same_provider(entry: &str, provider: &str) -> bool {
    entry == provider
        || entry
            .strip_prefix(provider)
            .is_some_and(|rest| rest.starts_with('-'))
}

/// The failure domain a provider name belongs to, for the same-provider check. LiteLLM's price
/// file names one provider several ways: `vertex_ai-language-models` and
/// `vertex_ai-anthropic_models` are `vertex_ai`, `bedrock_converse` and `bedrock_mantle` are
/// `bedrock`, `text-completion-openai` is `openai`, `cohere_chat` is `cohere`, `azure_text` is
/// `azure`, `fireworks_ai-embedding-models` is `fireworks_ai`. Other names are their own family.
pub fn provider_family(provider: &str) -> &str {
    let p = provider
        .strip_prefix("text-completion-")
        .unwrap_or(provider);
    // `vertex_ai-language-models`, `fireworks_ai-embedding-models`: a suffix naming a model set.
    let p = match p.split_once('-') {
        Some((base, rest)) if rest.ends_with("models") => base,
        _ => p,
    };
    match p {
        "bedrock_converse" | "bedrock_mantle" => "bedrock",
        "cohere_chat" => "cohere",
        "azure_text" => "azure",
        _ => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn price(id: &str) -> ModelPrice {
        ModelPrice {
            id: id.into(),
            provider: id.split('/').next().unwrap().into(),
            input: 1.0,
            output: 2.0,
            cached_input: None,
            cache_write: None,
            caching: Caching::None,
            cache_ttl_s: 0.0,
            cache_write_1h: None,
            min_cache_prefix: None,
            miss_writes: false,
            tiers: Vec::new(),
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
            fit: BTreeMap::new(),
        };
        assert_eq!(t.get("openai/gpt-6-sol").unwrap().id, "openai/gpt-6-sol");
        assert_eq!(t.get("gpt-6-sol").unwrap().id, "openai/gpt-6-sol");
        // `gpt-4o` belongs to provider `gpt-4o` here (no prefix): `openai/gpt-4o` is not it.
        assert!(
            t.get("openai/gpt-4o").is_none(),
            "never another provider's price"
        );
        assert!(t.get("x").is_none(), "ambiguous bare id must not resolve");
        assert_eq!(
            t.lookup_hint("x"),
            " (several providers have it: a/x, b/x; name one)"
        );
        assert!(t.get("nope/none").is_none());
        assert_eq!(
            t.lookup_hint("openai/gpt-6-soll"),
            " (did you mean `openai/gpt-6-sol`?)"
        );
    }

    #[test]
    fn absent_cache_prices_mean_no_discount() {
        let p = price("a/b");
        assert_eq!(p.read_price(), 1.0);
        assert_eq!(p.write_price(), 1.0);
    }
}
