//! Pricing the chains `fallcost check` judges: a gateway endpoint priced from the table and
//! the config's own prices ([`price_endpoint`]), a chain step as a [`Side`] (its models, their
//! traffic shares, the mix), a whole config's chains ([`price_config`]).

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::{Finding, per_1k};
use crate::error::InputError;
use crate::input::gateway::endpoint::EndpointPrice;
use crate::input::gateway::{Config, Endpoint, Group};
use crate::model::prices::provider_family;
use crate::model::{Caching, ModelPrice, PriceTable, Request};

/// One model of one chain step, priced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PricedModel {
    /// The model as the file names it.
    pub model: String,
    /// Where the price comes from: the price table's key, or `config` for prices the gateway
    /// config sets itself.
    pub priced_as: String,
    /// The failure domain (provider) the chain check uses.
    pub provider: String,
    /// Like-for-like price, USD per 1,000 requests.
    pub per_1k_usd: f64,
    /// The share of its step's traffic this model gets (0 to 1), when the gateway's routing
    /// says (see [`Side::mix_per_1k_usd`]).
    pub share: Option<f64>,
    /// The price of a session's first request on this model while its cache is cold (cold, or
    /// a cache write for `explicit` caching: [`crate::model::cost::first_state`]), USD per 1,000
    /// requests. Equal to [`PricedModel::per_1k_usd`] without a cached prefix.
    pub first_per_1k_usd: f64,
    /// How long the model's cache lives, seconds; `None` when it does not cache.
    pub cache_ttl_s: Option<f64>,
}

impl PricedModel {
    /// `model` priced for `request`: warm, and a session's first request.
    pub fn priced(
        model: String,
        priced_as: String,
        provider: String,
        request: &Request,
        price: &ModelPrice,
    ) -> PricedModel {
        PricedModel {
            model,
            priced_as,
            provider,
            per_1k_usd: per_1k(request, price),
            share: None,
            first_per_1k_usd: 1000.0
                * request.success_cost(price, crate::model::cost::first_state(price)),
            cache_ttl_s: (price.caching != Caching::None).then_some(price.cache_ttl_s),
        }
    }
}

/// One step of a chain (a model, a LiteLLM group, a Portkey target), priced: a range when it has
/// several models.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// The step's name: a model id, a group name, a target.
    pub name: String,
    /// The cheapest model's price, USD per 1,000 requests.
    pub min_per_1k_usd: f64,
    /// The dearest model's price, USD per 1,000 requests.
    pub max_per_1k_usd: f64,
    /// Every model, priced.
    pub models: Vec<PricedModel>,
    /// The price of the traffic the step really sends, USD per 1,000 requests: each model's
    /// price times its share ([`PricedModel::share`]). `None` when the shares are not known
    /// (the step is then judged by its range, worst case).
    pub mix_per_1k_usd: Option<f64>,
    /// How the shares were set (`equal shares`, `litellm_params.weight 3:1`).
    pub mix: Option<String>,
}

impl Side {
    /// A step of `models` (at least one).
    pub fn new(name: impl Into<String>, models: Vec<PricedModel>) -> Side {
        let min = models
            .iter()
            .map(|m| m.per_1k_usd)
            .fold(f64::INFINITY, f64::min);
        let max = models
            .iter()
            .map(|m| m.per_1k_usd)
            .fold(f64::NEG_INFINITY, f64::max);
        Side {
            name: name.into(),
            min_per_1k_usd: min,
            max_per_1k_usd: max,
            models,
            mix_per_1k_usd: None,
            mix: None,
        }
    }

    /// A step of `models` (at least one) that splits its traffic by `shares` (one per model,
    /// summing to 1), set as `basis` says: judged by the mix, its range shown beside.
    pub fn mixed(
        name: impl Into<String>,
        mut models: Vec<PricedModel>,
        shares: &[f64],
        basis: impl Into<String>,
    ) -> Side {
        let mix = models
            .iter()
            .zip(shares)
            .map(|(m, s)| m.per_1k_usd * s)
            .sum();
        for (m, s) in models.iter_mut().zip(shares) {
            m.share = Some(*s);
        }
        let mut side = Side::new(name, models);
        side.mix_per_1k_usd = Some(mix);
        side.mix = Some(basis.into());
        side
    }

    /// The price the step is judged by as a primary: its traffic mix, else its cheapest model.
    pub fn judged_as_primary(&self) -> f64 {
        self.mix_per_1k_usd.unwrap_or(self.min_per_1k_usd)
    }

    /// The price the step is judged by as a fallback: its traffic mix, else its dearest model.
    pub fn judged_as_fallback(&self) -> f64 {
        self.mix_per_1k_usd.unwrap_or(self.max_per_1k_usd)
    }

    /// A session's first request on the step while its cache is cold, USD per 1,000 requests:
    /// the mix of its models' first-request prices, else its dearest (as a fallback) or cheapest
    /// (as a primary).
    pub(super) fn first(&self, as_fallback: bool) -> f64 {
        match self.mix_per_1k_usd {
            Some(_) => self
                .models
                .iter()
                .map(|m| m.first_per_1k_usd * m.share.unwrap_or(0.0))
                .sum(),
            None => {
                let it = self.models.iter().map(|m| m.first_per_1k_usd);
                if as_fallback {
                    it.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    it.fold(f64::INFINITY, f64::min)
                }
            }
        }
    }

    /// Whether the step is judged by its traffic mix (several models with known shares).
    pub(super) fn is_mix(&self) -> bool {
        self.models.len() > 1 && self.mix_per_1k_usd.is_some()
    }

    /// The price as shown: `$9.00`, or `$4.50–$25.00` for a range, or for a traffic mix
    /// `$5.30 (traffic mix, equal shares; $0.60–$10.00)`.
    pub fn price(&self) -> String {
        use crate::number::money;
        if let (true, Some(mix), false) = (
            self.is_mix(),
            self.mix_per_1k_usd,
            self.min_per_1k_usd == self.max_per_1k_usd,
        ) {
            return format!(
                "${} (traffic mix, {}; ${}–${})",
                money(mix),
                self.mix.as_deref().unwrap_or("shares"),
                money(self.min_per_1k_usd),
                money(self.max_per_1k_usd)
            );
        }
        if self.min_per_1k_usd == self.max_per_1k_usd {
            format!("${}", money(self.min_per_1k_usd))
        } else {
            format!(
                "${}–${}",
                money(self.min_per_1k_usd),
                money(self.max_per_1k_usd)
            )
        }
    }

    /// The failure domains of the step's models ([`provider_family`]).
    pub(super) fn families(&self) -> BTreeSet<&str> {
        self.models
            .iter()
            .map(|m| provider_family(&m.provider))
            .collect()
    }
}

/// A fallback of a chain ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedLink {
    /// The fallback, priced.
    pub fallback: Side,
    /// The file the link is declared in.
    pub file: String,
    /// Line of the link.
    pub line: usize,
    /// The steps passed through to reach it (empty for a direct link).
    pub via: Vec<String>,
}

/// A chain ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedChain {
    /// The file the chain is declared in, as named on the command line (or as a LiteLLM
    /// `include` names it).
    pub file: String,
    /// The chain's name.
    pub name: String,
    /// Line of the chain's declaration.
    pub line: usize,
    /// The primary.
    pub primary: Side,
    /// The fallbacks.
    pub links: Vec<PricedLink>,
}

/// Price one gateway endpoint for `request` ([`crate::input::gateway::endpoint::price`]), at
/// the long-context tier the request's prompt falls in, standard service tier. Returns the
/// priced model and the note on its price source, if any.
///
/// Errors: [`crate::error::InputErrorKind::UnknownModel`] when the table has no price for the
/// model and the config does not set both input and output prices (an unknown price is never
/// taken as zero).
pub fn price_endpoint(
    file: &str,
    ep: &Endpoint,
    table: &PriceTable,
    request: &Request,
) -> Result<(PricedModel, Option<String>), InputError> {
    let EndpointPrice {
        price,
        priced_as,
        provider,
        note,
    } = crate::input::gateway::endpoint::price(file, ep, table)?;
    let billed = request
        .billed(&price, &crate::model::Billing::default())
        .unwrap_or(price);
    Ok((
        PricedModel::priced(ep.model.clone(), priced_as, provider, request, &billed),
        note,
    ))
}

/// Price a gateway config's chains with `table` and `request`.
///
/// Returns the chains that could be priced, the notes on price sources, and an input error for
/// every model with no known price (a step that cannot be fully priced is left out of its chain,
/// and the run exits 2). Each group is priced once, however many chains reach it.
pub fn price_config(
    file: &str,
    config: &Config,
    table: &PriceTable,
    request: &Request,
) -> (Vec<PricedChain>, Vec<Finding>, Vec<InputError>) {
    let mut notes = Vec::new();
    let mut errors: Vec<InputError> = Vec::new();
    let mut noted = BTreeSet::new();
    // A group is its label and where its models are named.
    type Key = (String, Vec<(Option<String>, usize, usize)>);
    let mut priced: HashMap<Key, Option<Side>> = HashMap::new();
    let mut side = |group: &Group| -> Option<Side> {
        if group.endpoints.is_empty() {
            return None;
        }
        let key: Key = (
            group.label.clone(),
            group
                .endpoints
                .iter()
                .map(|e| (e.file.clone(), e.line, e.col))
                .collect(),
        );
        if let Some(s) = priced.get(&key) {
            return s.clone();
        }
        let mut models = Vec::new();
        let mut ok = true;
        for ep in &group.endpoints {
            match price_endpoint(file, ep, table, request) {
                Ok((m, note)) => {
                    let at = (ep.file.clone(), ep.line);
                    if let Some(message) = note
                        && noted.insert(at)
                    {
                        notes.push(Finding::PriceSource {
                            file: ep.file.as_deref().unwrap_or(file).to_string(),
                            line: ep.line,
                            message,
                        });
                    }
                    models.push(m);
                }
                Err(e) => {
                    if !errors.contains(&e) {
                        errors.push(e);
                    }
                    ok = false;
                }
            }
        }
        let s = ok.then(|| match (&group.shares, &group.mix) {
            (Some(shares), Some(basis)) if shares.len() == models.len() => {
                Side::mixed(group.label.clone(), models, shares, basis.clone())
            }
            _ => Side::new(group.label.clone(), models),
        });
        priced.insert(key, s.clone());
        s
    };
    let mut chains = Vec::new();
    for chain in &config.chains {
        let primary = side(&chain.primary);
        let links: Vec<PricedLink> = chain
            .links
            .iter()
            .filter_map(|l| {
                side(&l.fallback).map(|s| PricedLink {
                    fallback: s,
                    file: l.at.file_or(file).to_string(),
                    line: l.at.line,
                    via: l.via.clone(),
                })
            })
            .collect();
        if let Some(primary) = primary {
            chains.push(PricedChain {
                file: chain.at.file_or(file).to_string(),
                name: chain.name.clone(),
                line: chain.at.line,
                primary,
                links,
            });
        }
    }
    // In the order of the file, whatever order the chains reached the models in.
    errors.sort_by_key(|e| (e.file.clone(), e.location.map(|l| (l.line, l.col))));
    (chains, notes, errors)
}
