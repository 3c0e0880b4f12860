//! The incident rows of a report: one pattern on one chain over the outage window, in USD.

use serde::Serialize;

use crate::model::{Pattern, incident};

use crate::figures::{IncidentFigures, IncidentPolicyFigures, MeanCi};

/// One incident row: one pattern on one chain over the outage window, in USD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentRow {
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The analytic engine's figures (with a circuit breaker: the incident simulator's,
    /// `method` says).
    #[serde(flatten)]
    pub analytic: IncidentFigures<f64>,
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
    /// With `method` simulated: the larger relative half-width, at 4.5 standard errors, of the
    /// row's total and window (a fraction: 0.01 is 1%; the stopping rule holds it to 1%,
    /// [`crate::sim::expected`]); a blended row: the largest of its chains'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_precision: Option<f64>,
    /// With `method` simulated: the largest relative half-width, at 4.5 standard errors, of the
    /// row's failed requests, wasted attempts, attempts on the dead provider and dead time (a
    /// fraction; not held
    /// to 1%: [`crate::sim::expected::Simulated::counts_precision`]); a blended row: the
    /// largest of its chains'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_counts_precision: Option<f64>,
    /// With a circuit breaker: attempts on the dead provider, half-open probes and the
    /// seconds its breaker was open (in the open state: `cooldown_s` per opening, within the
    /// window), simulated as the rest of the row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker: Option<incident::BreakerFigures>,
    /// With a rate-limited link (`[capacity]`, MODEL.md §11): per link of the chain, the
    /// attempts its limit refused over the window (429s, billed 0), simulated as the rest of
    /// the row; their sum is `rate_limited_attempts`. Absent on a blended row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<Vec<RateLimited>>,
    /// The Monte Carlo figures, with `--mc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<IncidentMc>,
}

/// One link's refusals by its rate limit over an incident window ([`IncidentRow::rate_limits`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateLimited {
    /// The link's model id.
    pub model: String,
    /// Its limit (`rpm`, `tpm`; absent where the link has none) and the other traffic it
    /// takes, requests a minute (`background_rpm`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<crate::model::fit::Capacity>,
    /// Expected attempts refused over the window (a mean over the simulated windows).
    pub refused_attempts: f64,
}

impl IncidentRow {
    /// The primary-alone bill for the same requests, healthy and warm, USD (0 where a row has
    /// none).
    pub fn normal(&self) -> f64 {
        self.analytic.normal_usd.unwrap_or(0.0)
    }
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
/// On a blended traffic-share row ([`BLENDED`](super::BLENDED)) the chains' windows (each holding its share of
/// the requests) are added up: every mean is Σ meanᵢ, with the standard error √(Σ SEᵢ²), and the
/// multiplier is Σ totalᵢ / Σ normalᵢ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentMc {
    /// Windows simulated (per chain, on a blended row).
    pub runs: u64,
    /// The simulated figures, each with its 95% interval as `KEY_ci95` (the normal bill is
    /// not random: a plain number).
    #[serde(flatten)]
    pub figures: IncidentFigures<MeanCi>,
    /// Under a non-default policy: dead time, attempts on the dead provider and the breaker,
    /// simulated in time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<IncidentPolicyFigures<MeanCi>>,
}
