//! The cost model of MODEL.md: what a fallback chain costs, in steady state and in an outage.
//!
//! The types here are the resolved, validated form of a scenario (the file format lives in
//! [`crate::input`]); the engines are pure functions over them:
//!
//! - [`chain`]: a chain and its links, with the trip rates and w derived from the latency
//!   models when the chain is built;
//! - [`cost`]: the cost of one attempt in a cache state (§3);
//! - [`steady`]: the four patterns per request in steady state (§4);
//! - [`hedge`]: the two legs of a hedge under a policy (§4, §8), shared by [`steady`] and
//!   [`incident`];
//! - [`cache`]: the failover cache table and its break-even (§5);
//! - [`incident`]: an outage window with sessions, cold starts and fail-back writes (§6);
//! - [`latency`]: the lognormal latency model and its closed forms (trip rate, hedge win
//!   share) (§7), used by both engines.

pub mod cache;
pub mod chain;
pub mod condition;
pub mod cost;
pub mod error;
pub mod fit;
pub mod hedge;
pub mod incident;
pub mod latency;
pub mod policy;
pub mod prices;
pub mod provenance;
pub mod steady;
pub mod timeline;

use serde::Serialize;

pub use chain::{Chain, ChainDraft, Link, LinkDraft};
pub use cost::{Billing, CacheMiss, CacheState, Request};
pub use error::ModelError;
pub use latency::Latency;
pub use prices::{Caching, ModelPrice, PriceTable, Rate, ServiceTier, TierPrice};

/// The four resilience patterns (MODEL.md §1). The identifiers are stable CSV/JSON values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// The primary alone: a failure is a failed request.
    NoFallback,
    /// Try each link in turn; a fallback is called only when the one before it failed.
    Sequential,
    /// Call the first two links at once, answer with the first success, cancel the loser.
    HedgedTakeFirst,
    /// Call the first two links at once and let both run to completion (both billed in full).
    HedgedNoCancel,
}

impl Pattern {
    /// Every pattern, in table order.
    pub const ALL: [Pattern; 4] = [
        Pattern::NoFallback,
        Pattern::Sequential,
        Pattern::HedgedTakeFirst,
        Pattern::HedgedNoCancel,
    ];

    /// The stable identifier: `no-fallback`, `sequential`, `hedged-take-first`,
    /// `hedged-no-cancel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::NoFallback => "no-fallback",
            Pattern::Sequential => "sequential",
            Pattern::HedgedTakeFirst => "hedged-take-first",
            Pattern::HedgedNoCancel => "hedged-no-cancel",
        }
    }

    /// Whether the pattern fires two legs at once (needs a chain of two or more links).
    pub fn is_hedged(self) -> bool {
        matches!(self, Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel)
    }
}

/// How a healthy attempt abandoned at the client timeout is billed (MODEL.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AbandonedBilling {
    /// Like a gray failure: the input side plus `gray_output_fraction` of the output (default).
    Partial,
    /// The provider finishes the request and bills all of it.
    Full,
}

/// How the primary's provider fails during an incident (MODEL.md §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureMode {
    /// Errors before inference (5xx, 429, 529): billed 0, detected at once.
    Fast,
    /// Hangs until the client timeout: billed like a gray failure (MODEL.md §3).
    Gray,
}

/// Steady-state failure and billing parameters every link of a chain shares (MODEL.md §3, §4);
/// the per-link ones (failure and trip rates, latency) are on each [`Link`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Steady {
    /// Share of failures that are gray (hang until the timeout, billed), in [0, 1].
    pub gray_fraction: f64,
    /// Share of the output billed for a gray failure or a partially billed trip, in [0, 1].
    pub gray_output_fraction: f64,
    /// Share of the output billed for a cancelled hedge loser, in [0, 1] (default 0).
    pub cancel_output_fraction: f64,
    /// How a timeout trip is billed.
    pub abandoned_billing: AbandonedBilling,
    /// w: the probability the primary answers first when both hedge legs succeed, in [0, 1].
    pub primary_win_rate: f64,
    /// Seconds a fast failure takes before the client sees it (MODEL.md §3; default 0.5 s).
    pub fast_fail_s: f64,
    /// Whether `primary_win_rate` was derived from the first two links' latency models. The
    /// Monte Carlo engine then lets the faster leg win; otherwise it draws the winner with
    /// probability w.
    pub win_from_latency: bool,
    /// The classes failures fall into (MODEL.md §8); `None`: `timeout` (gray) with the gray
    /// fraction and `server_error` (fast) otherwise.
    pub error_mix: Option<policy::ErrorMix>,
}

impl Steady {
    /// The share of failures that hang until the timeout and bill (gray): the error mix's
    /// `timeout` share when the scenario gives a mix, else `gray_fraction`.
    pub fn gray_share(&self) -> f64 {
        self.error_mix
            .map_or(self.gray_fraction, |m| m.share(policy::ErrorClass::Timeout))
    }
}

impl Default for Steady {
    fn default() -> Self {
        Steady {
            gray_fraction: 1.0,
            gray_output_fraction: 0.5,
            cancel_output_fraction: 0.0,
            abandoned_billing: AbandonedBilling::Partial,
            primary_win_rate: 1.0,
            fast_fail_s: 0.5,
            win_from_latency: false,
            error_mix: None,
        }
    }
}

/// Client policy of one chain: the scenario's `[policy]` with the chain's `policy = {..}`
/// overrides. Other policies of MODEL.md §8 will join it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Policy {
    /// T: the client timeout per attempt, seconds (default 30 s). A gray failure takes T; a
    /// healthy attempt slower than T is abandoned (a timeout trip).
    pub timeout_s: f64,
    /// Attempts after the first on the same link before failing over (LiteLLM's
    /// `num_retries`, the OpenAI SDK's `max_retries`).
    pub retries: u32,
    /// Retries per error class, in [`policy::ErrorClass::ALL`] order (LiteLLM's
    /// `retry_policy`): the class of a request's *first* failure on a link chooses how many
    /// retries it gets there, whatever the classes of the retries' own failures
    /// (`get_num_retries_from_retry_policy`, `litellm/router_utils/get_retry_from_policy.py`).
    /// `None`: every class gets `retries`. Only the retryable classes' counts are used.
    pub retries_by_class: Option<[u32; 6]>,
    /// The wait between retries on one link.
    pub backoff: policy::Backoff,
    /// The error classes that fail over to the next link (default: the provider-side ones).
    pub failover_on: Vec<policy::ErrorClass>,
    /// At most this many attempts per request, whatever the chain length and retries.
    pub max_attempts: Option<u32>,
    /// Skip a fallback whose like-for-like price is above this multiple of the primary's.
    pub max_multiplier: Option<f64>,
    /// When an explicit-caching fallback's cache is written in a session.
    pub warm_fallback: policy::WarmPolicy,
    /// A circuit breaker per provider, if the client has one.
    pub breaker: Option<policy::Breaker>,
    /// A delayed hedge: send the hedge's second leg only if the primary has not answered (or
    /// failed) after this many seconds, e.g. its p95; `None` sends both legs at once.
    pub hedge_delay_s: Option<f64>,
}

impl Policy {
    /// The retries on one link of a request whose first failure there has class `class`:
    /// its `retries_by_class` count, else `retries`.
    pub fn retries_for(&self, class: policy::ErrorClass) -> u32 {
        self.retries_by_class
            .map_or(self.retries, |r| r[class as usize])
    }

    /// Whether some retryable class gets a retry.
    pub fn has_retries(&self) -> bool {
        policy::ErrorClass::PROVIDER
            .iter()
            .any(|&c| self.retries_for(c) > 0)
    }

    /// Whether `failover_on` holds exactly the default classes ([`policy::ErrorClass::PROVIDER`]),
    /// in any order, repeats ignored: `failover_on` is a set.
    pub fn fails_over_by_default(&self) -> bool {
        let mut on = self.failover_on.clone();
        on.sort();
        on.dedup();
        let mut want = policy::ErrorClass::PROVIDER.to_vec();
        want.sort();
        on == want
    }
}

/// The default client timeout, seconds (the three-down post's client).
pub const DEFAULT_TIMEOUT_S: f64 = 30.0;

impl Default for Policy {
    fn default() -> Self {
        Policy {
            timeout_s: DEFAULT_TIMEOUT_S,
            retries: 0,
            retries_by_class: None,
            backoff: policy::Backoff::default(),
            failover_on: policy::ErrorClass::PROVIDER.to_vec(),
            max_attempts: None,
            max_multiplier: None,
            warm_fallback: policy::WarmPolicy::Always,
            breaker: None,
            hedge_delay_s: None,
        }
    }
}

/// An outage of the primary's provider (MODEL.md §6).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Incident {
    /// D: how long the provider is down, in seconds.
    pub duration_s: f64,
    /// λ: requests per second.
    pub requests_per_second: f64,
    /// L: requests per session (each session has its own cache state per model).
    pub session_length: u64,
    /// How the dead provider fails.
    pub failure: FailureMode,
    /// The window's outages (`[[incident.outage]]`, issue 14). `None`: the shorthand above, the
    /// primary's provider down for the whole window with `failure`, which every engine prices
    /// as MODEL.md §6. `Some`: the engines price this timeline instead (its window is
    /// `duration_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<timeline::Timeline>,
}

impl Incident {
    /// The incident as one chain sees it: with a `traffic_share`, the chain gets that share of
    /// the requests (tier-matched chains split the traffic).
    pub fn for_chain(&self, chain: &Chain) -> Incident {
        Incident {
            requests_per_second: self.requests_per_second * chain.traffic_share.unwrap_or(1.0),
            ..self.clone()
        }
    }

    /// N = λ·D rounded to whole requests.
    pub fn requests(&self) -> u64 {
        (self.requests_per_second * self.duration_s).round() as u64
    }
}

/// A validated scenario: the request, the chains and the optional incident.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    /// A human name for the scenario.
    pub name: String,
    /// The price table in use: bundled name or path.
    pub pricing: String,
    /// The request profile every chain serves.
    pub request: Request,
    /// `[request] requires`: the capabilities every request needs of the model (MODEL.md §11;
    /// a fallback that lacks one is passed over, [`Link::refusal`]); empty: none stated.
    pub requires: Vec<fit::Capability>,
    /// The chains to compare.
    pub chains: Vec<Chain>,
    /// The outage to price, if the scenario has an `[incident]`.
    pub incident: Option<Incident>,
    /// The billing terms beyond the price table (service tiers, cache TTL, cache-miss rule), as
    /// the scenario gave them, for the reports to show; the prices of `chains` already apply them.
    pub billing: ScenarioBilling,
}

/// The billing terms a scenario asked for, as written ([`Scenario::billing`]): the chains'
/// links are already priced by them ([`Request::billed`]); the reports show them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ScenarioBilling {
    /// `[request] cache_ttl`, in seconds (300 or 3,600); `None`: each model's own TTL.
    pub cache_ttl_s: Option<f64>,
    /// `[request] cache_miss`; `None`: the default ([`CacheMiss::Write`]).
    pub cache_miss: Option<CacheMiss>,
    /// Each chain's service tier per link, primary first, by chain name.
    pub service_tiers: Vec<(String, Vec<ServiceTier>)>,
}

impl ScenarioBilling {
    /// The service tiers of chain `name`'s links, primary first; all `standard` for a chain the
    /// scenario did not list (`links` of them).
    pub fn tiers_of(&self, name: &str, links: usize) -> Vec<ServiceTier> {
        self.service_tiers
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| vec![ServiceTier::Standard; links], |(_, t)| t.clone())
    }
}
