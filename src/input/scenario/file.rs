//! The scenario file as written: the raw `serde` structs of every table, each field optional
//! where a chain may override it. Validation and defaults are in the sibling modules.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::super::duration::DurationText;
use crate::model::policy::{ErrorClass, Jitter};
use crate::model::timeline::OutageFailure;
use crate::model::{AbandonedBilling, CacheMiss, FailureMode, ServiceTier};
use crate::suggest;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScenarioFile {
    pub(super) name: Option<String>,
    pub(super) description: Option<String>,
    pub(super) pricing: Option<String>,
    pub(super) service_tier: Option<ServiceTier>,
    pub(super) request: RequestSpec,
    #[serde(rename = "chain")]
    pub(super) chains: Vec<ChainSpec>,
    #[serde(default)]
    pub(super) steady: SteadySpec,
    pub(super) incident: Option<IncidentSpec>,
    #[serde(default)]
    pub(super) policy: PolicySpec,
    #[serde(default)]
    pub(super) latency: BTreeMap<String, LatencySpec>,
    #[serde(default)]
    pub(super) capacity: BTreeMap<String, super::capacity::CapacitySpec>,
    /// Whether a `--set` replaced a chain's `models` (not a key of the file): the `[latency]`
    /// and `[capacity]` entries it leaves without a chain are then the variation's doing
    /// (`tune --candidate`, a sweep of chains), not stale entries of the file.
    #[serde(skip)]
    pub(super) models_overridden: bool,
    /// The chains' models as the file writes them and the keys `--set` gave (not keys of the
    /// file): a chain whose models a `--set` replaced reads the file's per-link lists by model
    /// (`super::steady`).
    #[serde(skip)]
    pub(super) as_written: AsWritten,
}

/// What the file says before `--set` applies, for the per-link lists of a chain whose models a
/// `--set` replaced: each link's rate is its model's, as the file states it for the chain as
/// written.
#[derive(Debug, Default)]
pub(super) struct AsWritten {
    /// Per chain, in file order, its `models` as the file writes them (`None`: not a list of
    /// names, which the file's own validation refuses).
    pub(super) models: Vec<Option<Vec<String>>>,
    /// The keys `--set` gave, split at their dots (`["steady", "failure_rates"]`).
    pub(super) set_keys: Vec<Vec<String>>,
}

/// The chains' `models` alone, read from the file before `--set` applies (every other field
/// is left to [`ScenarioFile`]).
#[derive(Debug, Deserialize)]
pub(super) struct WrittenChains {
    #[serde(default, rename = "chain")]
    pub(super) chains: Vec<WrittenChain>,
}

/// One `[[chain]]`'s `models` as written.
#[derive(Debug, Deserialize)]
pub(super) struct WrittenChain {
    pub(super) models: Option<Vec<String>>,
}

/// `[policy]`: client policy, every field optional so a chain can override any of them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PolicySpec {
    pub(super) timeout_s: Option<f64>,
    pub(super) retries: Option<u32>,
    pub(super) retries_by_class: Option<RetriesByClassSpec>,
    pub(super) backoff: Option<BackoffSpec>,
    pub(super) failover_on: Option<Vec<FailoverClass>>,
    pub(super) max_attempts: Option<u32>,
    pub(super) max_multiplier: Option<f64>,
    pub(super) warm_fallback: Option<WarmSpec>,
    pub(super) breaker: Option<BreakerSpec>,
    pub(super) hedge_delay_s: Option<f64>,
}

/// `retries_by_class = { timeout = 2, rate_limit = 4 }`: retries per retryable class (LiteLLM's
/// `retry_policy`); a class left out gets `retries`. Client and quota errors are never
/// retried, so only the four provider-side classes are accepted.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RetriesByClassSpec {
    pub(super) rate_limit: Option<u32>,
    pub(super) overload: Option<u32>,
    pub(super) server_error: Option<u32>,
    pub(super) timeout: Option<u32>,
}

/// One entry of `failover_on`: an error class that fails over to the next link. Quota and
/// billing errors stop the chain (MODEL.md §8), so `quota` is refused here, and the error
/// lists exactly the classes [`FailoverClass::accepts`].
#[derive(Debug, Clone, Copy)]
pub(super) struct FailoverClass(pub(super) ErrorClass);

impl FailoverClass {
    /// Whether `failover_on` may list `class`: every class but `quota`.
    fn accepts(class: ErrorClass) -> bool {
        class != ErrorClass::Quota
    }

    /// The identifiers `failover_on` accepts, in [`ErrorClass::ALL`] order.
    fn allowed() -> Vec<&'static str> {
        ErrorClass::ALL
            .into_iter()
            .filter(|c| Self::accepts(*c))
            .map(ErrorClass::as_str)
            .collect()
    }
}

impl<'de> Deserialize<'de> for FailoverClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let word = String::deserialize(d)?;
        let allowed = Self::allowed();
        match ErrorClass::ALL.into_iter().find(|c| c.as_str() == word) {
            Some(c) if Self::accepts(c) => Ok(FailoverClass(c)),
            Some(_) => Err(D::Error::custom(format!(
                "`{word}`: quota and billing errors stop the chain, they never fail over; allowed: {}",
                allowed.join(", ")
            ))),
            None => {
                let hint = suggest::nearest(&word, allowed.iter().copied())
                    .map_or(String::new(), |n| format!(" (did you mean `{n}`?)"));
                Err(D::Error::custom(format!(
                    "unknown error class `{word}`{hint}; allowed: {}",
                    allowed.join(", ")
                )))
            }
        }
    }
}

/// `backoff = { base_s = 0.5, cap_s = 8, jitter = "full" }`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BackoffSpec {
    pub(super) base_s: Option<f64>,
    pub(super) cap_s: Option<f64>,
    pub(super) jitter: Option<Jitter>,
}

/// `breaker = { threshold = 5, cooldown_s = 60 }`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BreakerSpec {
    pub(super) threshold: u32,
    pub(super) cooldown_s: f64,
}

/// `warm_fallback = "always"`, `"never"` or `{ after = 3 }`. Read by hand rather than as an
/// untagged enum, which would accept `{ after = 3, afterr = 1 }` and could not say which word
/// or key was misspelt.
#[derive(Debug, Clone, Copy)]
pub(super) enum WarmSpec {
    /// `"always"` or `"never"`.
    Word(WarmWord),
    /// `{ after = N }`.
    After {
        /// Warm the fallback's cache after this many failovers in a session.
        after: u32,
    },
}

#[derive(Debug, Clone, Copy)]
pub(super) enum WarmWord {
    /// `"always"`.
    Always,
    /// `"never"`.
    Never,
}

impl<'de> Deserialize<'de> for WarmSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = WarmSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"always\", \"never\" or { after = N }")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<WarmSpec, E> {
                match v {
                    "always" => Ok(WarmSpec::Word(WarmWord::Always)),
                    "never" => Ok(WarmSpec::Word(WarmWord::Never)),
                    _ => Err(E::unknown_variant(v, &["always", "never"])),
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<WarmSpec, A::Error> {
                let mut after = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "after" {
                        return Err(serde::de::Error::unknown_field(&key, &["after"]));
                    }
                    if after.is_some() {
                        return Err(serde::de::Error::duplicate_field("after"));
                    }
                    after = Some(map.next_value::<u32>()?);
                }
                after
                    .map(|after| WarmSpec::After { after })
                    .ok_or_else(|| serde::de::Error::missing_field("after"))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `[steady] errors = { rate_limit = 0.4, ... }`: the share of failures in each class.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ErrorsSpec {
    #[serde(default)]
    pub(super) rate_limit: f64,
    #[serde(default)]
    pub(super) overload: f64,
    #[serde(default)]
    pub(super) server_error: f64,
    #[serde(default)]
    pub(super) timeout: f64,
    #[serde(default)]
    pub(super) client: f64,
    #[serde(default)]
    pub(super) quota: f64,
}

/// `[latency."provider/model"]`: a lognormal from a median and a 99th percentile, seconds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LatencySpec {
    pub(super) p50_s: f64,
    pub(super) p99_s: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RequestSpec {
    #[serde(default)]
    pub(super) input_tokens: u64,
    pub(super) output_tokens: u64,
    #[serde(default)]
    pub(super) prefix_tokens: u64,
    pub(super) cache_hit_rate: Option<f64>,
    pub(super) cache_ttl: Option<DurationText>,
    pub(super) cache_miss: Option<CacheMiss>,
    /// `requires = ["tools", "vision", "json"]`: what every request needs of the model; a
    /// fallback the price table says lacks one cannot serve it (MODEL.md §11).
    pub(super) requires: Option<Vec<crate::model::fit::Capability>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChainSpec {
    pub(super) name: String,
    pub(super) models: Vec<String>,
    #[serde(default)]
    pub(super) steady: SteadySpec,
    #[serde(default)]
    pub(super) policy: PolicySpec,
    pub(super) traffic_share: Option<f64>,
    pub(super) service_tier: Option<ServiceTier>,
    pub(super) service_tiers: Option<Vec<ServiceTier>>,
    /// `link_timeouts_s = { "provider/model" = 60 }`: a link's own timeout, seconds, by model
    /// as written in `models` (every link of that model); the others use `policy.timeout_s`.
    pub(super) link_timeouts_s: Option<BTreeMap<String, f64>>,
    /// `max_output_tokens = { "provider/model" = 1000 }`: the output tokens a link bills at
    /// most, by model as written in `models`.
    pub(super) max_output_tokens: Option<BTreeMap<String, u64>>,
}

/// The `[steady]` fields, all optional, so a chain can override any of them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SteadySpec {
    pub(super) failure_rate: Option<f64>,
    pub(super) failure_rates: Option<Vec<f64>>,
    pub(super) gray_fraction: Option<f64>,
    pub(super) gray_output_fraction: Option<f64>,
    pub(super) cancel_output_fraction: Option<f64>,
    pub(super) timeout_trip_rate: Option<f64>,
    pub(super) timeout_trip_rates: Option<Vec<f64>>,
    pub(super) abandoned_billing: Option<AbandonedBilling>,
    pub(super) primary_win_rate: Option<f64>,
    pub(super) fast_fail_s: Option<f64>,
    pub(super) errors: Option<ErrorsSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IncidentSpec {
    pub(super) duration: DurationText,
    pub(super) requests_per_second: f64,
    pub(super) session_length: u64,
    #[serde(default = "fast")]
    pub(super) failure: FailureMode,
    /// `[[incident.outage]]`, in file order; empty: the shorthand (the primary's provider down
    /// for the whole window with `failure`).
    #[serde(default, rename = "outage")]
    pub(super) outages: Vec<OutageSpec>,
}

/// One `[[incident.outage]]`: `provider` or `model` (exactly one), `start` (default `0s`),
/// `duration` (default: the rest of the window), `failure` (default: `[incident] failure`),
/// `error_rate` (default 1.0), `latency_factor` (optional). Validated in `super::timeline`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OutageSpec {
    pub(super) provider: Option<String>,
    pub(super) model: Option<String>,
    pub(super) start: Option<DurationText>,
    pub(super) duration: Option<DurationText>,
    pub(super) failure: Option<OutageFailureSpec>,
    pub(super) error_rate: Option<f64>,
    pub(super) latency_factor: Option<f64>,
}

/// `failure = "fast" | "gray" | "drill"` of an outage.
#[derive(Debug, Clone, Copy)]
pub(super) struct OutageFailureSpec(pub(super) OutageFailure);

impl<'de> Deserialize<'de> for OutageFailureSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &[&str] = &["fast", "gray", "drill"];
        let word = String::deserialize(d)?;
        OutageFailure::parse(&word)
            .map(OutageFailureSpec)
            .ok_or_else(|| serde::de::Error::unknown_variant(&word, ALLOWED))
    }
}

pub(super) fn fast() -> FailureMode {
    FailureMode::Fast
}
