//! The incident rows of a report: one pattern on one chain over the outage window, in USD.

use serde::Serialize;

use crate::model::{Pattern, incident};

use super::Ci;

/// One incident row: one pattern on one chain over the outage window, in USD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentRow {
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// window + cold starts + fail-back writes, USD.
    pub total_usd: f64,
    /// The primary-alone bill for the same requests, healthy and warm, USD.
    pub normal_usd: f64,
    /// total / normal; `null` for a free primary.
    pub multiplier: Option<f64>,
    /// The window's requests at warm prices, failed attempts included, USD.
    pub window_usd: f64,
    /// Premium of sessions' first requests on a cold fallback, USD.
    pub cold_start_usd: f64,
    /// Premium of rewriting the primary's cache on the way back, USD.
    pub failback_usd: f64,
    /// Requests that failed on every link (expected count).
    pub failed_requests: f64,
    /// Attempts that did not produce the answer (expected count).
    pub wasted_attempts: f64,
    /// USD spent on those attempts (included in `window_usd`).
    pub wasted_usd: f64,
    /// Sessions that started cold on a fallback (expected count).
    pub cold_starts: f64,
    /// Sessions that rewrite the primary's cache on the way back.
    pub failback_writes: f64,
    /// Mean seconds per request spent in failed attempts and backoff.
    pub dead_time_mean_s: f64,
    /// How the figures were computed: absent for the analytic engine's closed forms (exact);
    /// `"simulated"` with a circuit breaker, where they come from the incident simulator with
    /// a fixed seed ([`crate::sim::expected`]). Marked `sim` in tables.
    #[serde(skip_serializing_if = "Method::is_analytic")]
    pub method: Method,
    /// With `method` simulated: the windows simulated (a blended row: the most of its chains').
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_windows: Option<u64>,
    /// With `method` simulated: the largest relative half-width, at 4.5 standard errors, of the
    /// row's total, window, wasted attempts, attempts on the dead provider and dead time (a
    /// fraction: 0.01 is 1%); a blended row: the largest of its chains'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_precision: Option<f64>,
    /// With a circuit breaker: attempts on the dead provider, half-open probes and the
    /// seconds its breaker was open (in the open state: `cooldown_s` per opening, within the
    /// window), simulated as the rest of the row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker: Option<incident::BreakerFigures>,
    /// The Monte Carlo figures, with `--mc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<IncidentMc>,
}

/// How an incident row's figures were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// The analytic engine's closed forms (exact expectations).
    #[default]
    Analytic,
    /// The incident simulator with a fixed seed ([`crate::sim::expected`]): means over its windows.
    Simulated,
}

impl Method {
    /// Whether this is [`Method::Analytic`] (the JSON leaves the field out then).
    pub fn is_analytic(&self) -> bool {
        *self == Method::Analytic
    }

    /// The name printed in CSV and JSON: `analytic` or `simulated`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Analytic => "analytic",
            Method::Simulated => "simulated",
        }
    }
}

/// The Monte Carlo figures of an incident row: means over the simulated windows with their
/// 95% intervals as `KEY_ci95` (MODEL.md §9, §10). USD per window unless stated.
///
/// On a blended traffic-share row ([`BLENDED`]) the chains' windows (each holding its share of
/// the requests) are added up: every mean is Σ meanᵢ, with the standard error √(Σ SEᵢ²), and the
/// multiplier is Σ totalᵢ / Σ normalᵢ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentMc {
    /// Windows simulated (per chain, on a blended row).
    pub runs: u64,
    /// Mean total USD.
    pub total_usd: f64,
    /// Its 95% interval.
    pub total_usd_ci95: Ci,
    /// The primary-alone bill (not random).
    pub normal_usd: f64,
    /// Mean total / normal; `null` for a free primary.
    pub multiplier: Option<f64>,
    /// Its 95% interval.
    pub multiplier_ci95: Option<Ci>,
    /// Mean window USD.
    pub window_usd: f64,
    /// Its 95% interval.
    pub window_usd_ci95: Ci,
    /// Mean cold-start premium USD.
    pub cold_start_usd: f64,
    /// Its 95% interval.
    pub cold_start_usd_ci95: Ci,
    /// Mean fail-back premium USD.
    pub failback_usd: f64,
    /// Its 95% interval.
    pub failback_usd_ci95: Ci,
    /// Mean failed requests.
    pub failed_requests: f64,
    /// Its 95% interval.
    pub failed_requests_ci95: Ci,
    /// Mean wasted attempts.
    pub wasted_attempts: f64,
    /// Its 95% interval.
    pub wasted_attempts_ci95: Ci,
    /// Mean USD of wasted attempts.
    pub wasted_usd: f64,
    /// Its 95% interval.
    pub wasted_usd_ci95: Ci,
    /// Mean cold starts.
    pub cold_starts: f64,
    /// Its 95% interval.
    pub cold_starts_ci95: Ci,
    /// Mean fail-back writes.
    pub failback_writes: f64,
    /// Its 95% interval.
    pub failback_writes_ci95: Ci,
    /// Under a non-default policy: dead time, attempts on the dead provider and the breaker,
    /// simulated in time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<IncidentPolicyMc>,
}

/// The Monte Carlo figures of an incident row under a policy, each with its 95% interval as
/// `KEY_ci95`: per window unless stated. A blended row weights the dead time per request by
/// traffic share, adds up the attempts on the dead provider, and has no breaker figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentPolicyMc {
    /// Mean seconds per request in failed attempts and backoff (hedges: the slower failed leg
    /// included).
    pub dead_time_mean_s: f64,
    /// Its 95% interval.
    pub dead_time_mean_s_ci95: Ci,
    /// Attempts sent to the dead provider.
    pub dead_provider_attempts: f64,
    /// Its 95% interval.
    pub dead_provider_attempts_ci95: Ci,
    /// With a circuit breaker: half-open probes sent. `None` on a blended row: each chain's
    /// breaker is simulated apart, so their sum would describe no breaker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_probes: Option<f64>,
    /// Its 95% interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_probes_ci95: Option<Ci>,
    /// With a circuit breaker: seconds it was open within the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_open_s: Option<f64>,
    /// Its 95% interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker_open_s_ci95: Option<Ci>,
}
