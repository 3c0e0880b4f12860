//! The result of `fallcost sweep` ([`crate::ops::sweep`] computes it; [`crate::output::sweep`]
//! and [`crate::output::plot`] render it): one row per grid point, chain and pattern.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Pattern;
use crate::report::SteadyMc;

/// One row of a sweep: one grid point, one chain, one pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    /// The grid point: parameter key to value (seconds for durations).
    pub point: BTreeMap<String, f64>,
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// Steady state, USD per 1,000 requests.
    pub cost_per_1k_usd: f64,
    /// Steady state, cost / baseline − 1.
    pub vs_baseline: Option<f64>,
    /// Steady state, failed requests per 1,000.
    pub failed_per_1k: f64,
    /// Incident total, USD (when the scenario has an incident).
    pub incident_total_usd: Option<f64>,
    /// Incident total / normal.
    pub incident_multiplier: Option<f64>,
    /// How the incident figures were computed: absent for the closed forms, `"simulated"`
    /// with a circuit breaker (the incident simulator, fixed seed; see `compare`'s `method`).
    #[serde(skip_serializing_if = "analytic")]
    pub incident_method: Option<crate::report::Method>,
    /// Whether the incident figures are approximate, as `compare` says of the same point
    /// (`approximate`): analytic figures of a timeline with cuts count cold starts and
    /// fail-back writes per segment (docs/MODEL.md §6). Absent without an incident.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incident_approximate: Option<bool>,
    /// With `--mc`: the steady-state Monte Carlo figures, as in `compare`'s rows (means with
    /// their 95% intervals as `KEY_ci95`, latency percentiles, policy figures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<SteadyMc>,
}

/// Whether a row's incident figures are absent or analytic (the JSON leaves the method out).
fn analytic(m: &Option<crate::report::Method>) -> bool {
    m.is_none_or(|m| m.is_analytic())
}

/// The Monte Carlo settings of a sweep, for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct McOptionsOut {
    /// Simulated requests per chain at each grid point.
    pub requests: u64,
    /// The seed (each grid point uses it as is: the same seed gives the same sweep).
    pub seed: u64,
}

/// A whole sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    /// The fallcost version.
    pub fallcost_version: &'static str,
    /// The scenario's name.
    pub scenario: String,
    /// The swept keys, in the order given.
    pub params: Vec<String>,
    /// With `--mc`: simulated requests per chain and grid point, and the seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<McOptionsOut>,
    /// Rows, grid point by grid point (the last parameter varies fastest).
    pub rows: Vec<SweepRow>,
    /// Why the blended traffic-share rows are left out, when `--chain` kept only some of a
    /// traffic-share scenario's chains (for standard error; not part of the output).
    #[serde(skip)]
    pub note: Option<String>,
}
