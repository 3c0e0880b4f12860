//! A gateway endpoint priced from a price table: the table's entry for the model the config
//! names (never another provider's), with the config's own prices winning field by field.
//! `check` judges the result ([`crate::check::price_endpoint`]); `compare --config` takes the
//! table id ([`super::price`]).

use super::Endpoint;
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::prices::provider_family;
use crate::model::{Caching, ModelPrice, PriceTable};

/// One endpoint's price and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointPrice {
    /// The price, USD per token (list prices; the request's tier is applied by the caller).
    pub price: ModelPrice,
    /// The price table's key, `config` for prices the config sets itself, or `KEY + config`
    /// for a table entry with some fields set by the config.
    pub priced_as: String,
    /// The failure domain (provider) the endpoint belongs to: the config's provider, else the
    /// entry's.
    pub provider: String,
    /// When the price may not be what the config's provider bills: where it came from.
    pub note: Option<String>,
}

/// Price one gateway endpoint: the table's entry for its model, with the config's own prices
/// winning field by field (USD per token, as the table holds them), and, when the price may not
/// be what the config's provider bills, a note saying where it came from.
///
/// Errors: [`InputErrorKind::UnknownModel`] when the table has no price for the model and the
/// config does not set both input and output prices (an unknown price is never taken as zero).
pub fn price(file: &str, ep: &Endpoint, table: &PriceTable) -> Result<EndpointPrice, InputError> {
    let o = &ep.price_override;
    // `provider/model` resolves only to that provider's own entry (never another provider's
    // price for the same model name); a bare id only when one provider has it.
    // A config that names the provider apart from the model (a Portkey virtual key
    // `@openai-prod/gpt-4o` with provider `openai`) is priced as `provider/model`.
    let entry = table
        .get(&ep.model)
        .or_else(|| {
            let provider = ep.provider.as_deref()?;
            let bare = ep
                .model
                .split_once('/')
                .map_or(ep.model.as_str(), |(_, b)| b);
            table.get(&format!("{provider}/{bare}"))
        })
        .or_else(|| {
            // A prefix that is no provider of the table (a Portkey virtual key `@openai-prod`, an
            // alias) says nothing of whose model it is: the bare id, when one provider has it,
            // with a note naming the entry. A real provider's prefix (`groq/…`) never borrows
            // another provider's price.
            let (prefix, bare) = ep.model.split_once('/')?;
            let is_provider = |t: &PriceTable| {
                t.models
                    .values()
                    .any(|m| crate::model::prices::same_provider(&m.provider, prefix))
            };
            // A provider of this table or of LiteLLM's: so `groq/…` is never borrowed, even
            // with a table that has no Groq model.
            let known = is_provider(table)
                || crate::input::pricing::bundled_shared(crate::input::pricing::LITELLM_SNAPSHOT)
                    .is_some_and(|t| is_provider(&t));
            (!known).then(|| table.get(bare)).flatten()
        });
    let (price, priced_as) = match (entry, o.input, o.output) {
        (_, Some(input), Some(output)) => {
            let base = entry.cloned();
            let cached_input = o
                .cached_input
                .or(base.as_ref().and_then(|b| b.cached_input));
            let cache_write = o.cache_write.or(base.as_ref().and_then(|b| b.cache_write));
            let caching = Caching::implied(cache_write, cached_input);
            (
                ModelPrice {
                    id: ep.model.clone(),
                    provider: base.as_ref().map_or_else(
                        || {
                            ep.provider.clone().unwrap_or_else(|| {
                                ep.model.split('/').next().unwrap_or("unknown").to_string()
                            })
                        },
                        |b| b.provider.clone(),
                    ),
                    input,
                    output,
                    cached_input,
                    cache_write,
                    caching,
                    cache_ttl_s: caching.default_ttl_s(),
                    cache_write_1h: None,
                    min_cache_prefix: base.as_ref().and_then(|b| b.min_cache_prefix),
                    miss_writes: false,
                    tiers: Vec::new(),
                },
                "config".to_string(),
            )
        }
        (Some(e), _, _) => {
            let mut p = e.clone();
            p.input = o.input.unwrap_or(p.input);
            p.output = o.output.unwrap_or(p.output);
            p.cached_input = o.cached_input.or(p.cached_input);
            p.cache_write = o.cache_write.or(p.cache_write);
            let label = if o.is_empty() {
                e.id.clone()
            } else {
                format!("{} + config", e.id)
            };
            (p, label)
        }
        (None, input, output) => {
            let missing = match (input, output) {
                (Some(_), None) => {
                    " (the config sets input_cost_per_token but not output_cost_per_token)"
                }
                (None, Some(_)) => {
                    " (the config sets output_cost_per_token but not input_cost_per_token)"
                }
                _ => "",
            };
            return Err(InputError {
                file: ep.file.as_deref().unwrap_or(file).to_string(),
                location: Some(Location {
                    line: ep.line,
                    col: ep.col,
                }),
                field: None,
                message: format!(
                    "unknown model `{}`{}{missing}: price table {} has no price for it, and an unknown price is never taken as zero; set its prices in the config (LiteLLM model_info input_cost_per_token and output_cost_per_token, or base_model), or pass --pricing with a table that has it",
                    ep.model,
                    table.lookup_hint(&ep.model),
                    table.name
                ),
                kind: InputErrorKind::UnknownModel,
            });
        }
    };
    let provider = ep
        .provider
        .clone()
        .unwrap_or_else(|| price.provider.clone());
    let source = if priced_as == "config" {
        "the config's own prices".to_string()
    } else {
        format!(
            "{}'s entry `{}` in {}",
            entry.map_or("?", |e| e.provider.as_str()),
            entry.map_or("?", |e| e.id.as_str()),
            table.name
        )
    };
    let note = match (&ep.note, entry) {
        (Some(n), _) => Some(format!("{n}; priced from {source}")),
        (None, Some(e))
            if priced_as != "config"
                && provider_family(&provider) != provider_family(&e.provider)
                && !provider.starts_with(e.provider.as_str())
                && !e.provider.starts_with(provider.as_str()) =>
        {
            Some(format!(
                "`{}` on provider `{provider}` is priced from {source}",
                ep.model
            ))
        }
        _ => None,
    };
    Ok(EndpointPrice {
        price,
        priced_as,
        provider,
        note,
    })
}
