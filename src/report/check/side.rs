//! A chain step as `fallcost check` prices and reports it: a [`Side`] (a model, a LiteLLM
//! group, a Portkey target) of [`PricedModel`]s, with its range and its traffic mix, USD per
//! 1,000 like-for-like requests (MODEL.md §3).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::cost::per_1k;
use crate::model::prices::provider_family;
use crate::model::{Caching, ModelPrice, Request};

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
    /// What the model can serve, where the price table says (`check`'s fit findings).
    #[serde(skip)]
    pub fit: Option<crate::model::fit::ModelFit>,
    /// The deployment's rate limit, where the config states one.
    #[serde(skip)]
    pub limit: crate::model::fit::RateLimit,
    /// Line of the model in its file (0: not known).
    #[serde(skip)]
    pub line: usize,
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
            fit: None,
            limit: Default::default(),
            line: 0,
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
    pub fn first(&self, as_fallback: bool) -> f64 {
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
    pub fn is_mix(&self) -> bool {
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
    pub fn families(&self) -> BTreeSet<&str> {
        self.models
            .iter()
            .map(|m| provider_family(&m.provider))
            .collect()
    }
}
