//! The result of `fallcost compare`: one shape that every output format renders.
//!
//! Keys follow MODEL.md §10 (`cost_per_1k_usd`, `vs_baseline`, `total_usd`, …); new keys may be
//! added, none renamed. Every figure is declared once in [`crate::figures`]; the JSON keys, CSV
//! columns and the finite check follow that declaration.
//!
//! This module holds the result types only (a leaf: it runs no engine); the pipeline that fills
//! them is [`crate::ops::compare`].

use serde::Serialize;

use crate::model::cache::FailoverCache;
use crate::model::{FailureMode, Pattern, Scenario};

pub mod check;
pub mod diff;
pub mod history;
mod incident;
pub mod reconcile;
mod steady;

pub use crate::figures::{
    Ci, Extra, Figure, FigureEntry, INCIDENT_FIGURES, INCIDENT_POLICY_FIGURES, IncidentFigures,
    IncidentPolicyFigures, MeanCi, STEADY_FIGURES, STEADY_POLICY_FIGURES, SteadyFigures,
    SteadyPolicyFigures, Value,
};
pub use incident::{IncidentMc, IncidentRow, Method, RateLimited};
pub use steady::{Answered, SteadyMc, SteadyRow};

/// How the Monte Carlo figures of a report were made: enough to repeat them exactly.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McMeta {
    /// The seed (`--seed`, or drawn and printed).
    pub seed: u64,
    /// Requests simulated per chain in steady state.
    pub requests: u64,
    /// Incident windows simulated per chain and pattern.
    pub runs: u64,
    /// The random number generator and how it is seeded.
    pub rng: &'static str,
    /// Largest relative error of a latency percentile from the histogram's bins.
    pub percentile_relative_error: f64,
    /// Why incident windows were not simulated, if they were not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incident_skipped: Option<String>,
}

/// Largest number of simulated requests the incident simulation takes on: the requests of a
/// window (every chain's, each with its traffic share) × 4 patterns × `--mc-runs` windows.
pub const MAX_INCIDENT_WORK: f64 = 2e9;

/// The outage a report's incident rows price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentWindow {
    /// D, seconds.
    pub duration_s: f64,
    /// λ, requests per second.
    pub requests_per_second: f64,
    /// N = λ·D, rounded.
    pub requests: u64,
    /// S = ⌈N / L⌉.
    pub sessions: u64,
    /// L.
    pub session_length: u64,
    /// How the dead provider fails.
    pub failure: FailureMode,
}

/// Everything `fallcost compare` computed for one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The fallcost version that computed it.
    pub fallcost_version: &'static str,
    /// The scenario's name.
    pub scenario: String,
    /// The price table used: bundled name or path.
    pub pricing: String,
    /// The validated scenario: request, chains with prices and steady parameters, incident.
    #[serde(skip)]
    pub input: Scenario,
    /// Steady-state rows, chain by chain, patterns in [`Pattern::ALL`] order.
    pub steady: Vec<SteadyRow>,
    /// The incident window, if the scenario has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incident_window: Option<IncidentWindow>,
    /// Incident rows (empty without an `[incident]`).
    pub incident: Vec<IncidentRow>,
    /// The failover cache table per chain (MODEL.md §5), when the request has a prefix.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failover_cache: Vec<FailoverCache>,
    /// With `--mc`: how the Monte Carlo figures were made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<McMeta>,
}

/// The chain name of the rows that blend tier-matched chains by their traffic shares.
pub const BLENDED: &str = "all chains (by traffic_share)";

impl Report {
    /// Leave out the blended traffic-share rows ([`BLENDED`]): for a report on some of a
    /// scenario's chains, whose shares do not add up to the whole traffic
    /// ([`select_chains`](crate::input::scenario::select_chains)). The Monte Carlo engine
    /// ([`crate::ops::compare::simulate`]) then has no blended rows to fill either.
    pub fn omit_blended(&mut self) {
        self.steady.retain(|r| r.chain != BLENDED);
        self.incident.retain(|r| r.chain != BLENDED);
    }

    /// Simulated requests in one incident window across every chain and pattern
    /// ([`incident_window_work`]).
    pub fn incident_window_work(&self) -> Option<u64> {
        incident_window_work(&self.input)
    }

    /// The most incident windows (`--mc-runs`) the simulation takes on for this scenario
    /// ([`max_incident_runs`]).
    pub fn max_incident_runs(&self) -> Option<u64> {
        max_incident_runs(&self.input)
    }

    /// Why `runs` incident windows are more than the simulation takes on ([`too_many_runs`]).
    pub fn too_many_runs(&self, runs: u64) -> String {
        too_many_runs(&self.input, runs)
    }
}

/// Simulated requests in one incident window of `scenario` across every chain and pattern:
/// each chain's requests (its traffic share of N = λ·D) × 4 patterns. `None` without an
/// incident.
pub fn incident_window_work(scenario: &Scenario) -> Option<u64> {
    let incident = scenario.incident.as_ref()?;
    let requests: u64 = scenario
        .chains
        .iter()
        .map(|c| incident.for_chain(c).requests())
        .sum();
    Some(requests.saturating_mul(Pattern::ALL.len() as u64))
}

/// The most incident windows (`--mc-runs`) the simulation takes on for `scenario`,
/// [`MAX_INCIDENT_WORK`] / [`incident_window_work`]; `None` without an incident (any number
/// will do: nothing is simulated). Known from the scenario alone, so `compare` refuses too
/// many before it prices anything.
pub fn max_incident_runs(scenario: &Scenario) -> Option<u64> {
    incident_window_work(scenario).map(|w| (MAX_INCIDENT_WORK / w.max(1) as f64).floor() as u64)
}

/// Why `runs` incident windows (`--mc-runs`) are more than the simulation takes on for
/// `scenario`, and what is allowed.
pub fn too_many_runs(scenario: &Scenario, runs: u64) -> String {
    let window = incident_window_work(scenario).unwrap_or(0);
    let max = max_incident_runs(scenario).unwrap_or(u64::MAX);
    let allowed = if max >= 2 {
        format!("allowed: 2 to {max}")
    } else {
        "not even 2 windows fit (a shorter incident or less traffic would)".to_string()
    };
    format!(
        "--mc-runs {runs} is too many for this scenario: each incident window is {window} simulated requests (the window's requests on every chain, 4 patterns) and the simulation takes at most {MAX_INCIDENT_WORK:e} in all; {allowed}"
    )
}

impl Report {
    /// The first number in the report that is not finite, named `section/chain/pattern/field`;
    /// `None` when every number is finite. Inputs are bounded so this never happens; `compare`
    /// refuses to print a report for which it would.
    pub fn first_non_finite(&self) -> Option<String> {
        let mut bad = None;
        let mut check = |section: &str, chain: &str, what: &str, field: &str, v: Option<f64>| {
            if bad.is_none() && v.is_some_and(|x| !x.is_finite()) {
                bad = Some(format!("{section}/{chain}/{what}/{field}"));
            }
        };
        // Every figure of the analytic rows, from the figure sets' declarations.
        for r in &self.steady {
            let p = r.pattern.as_str();
            r.analytic
                .visit(|fig, e| check("steady", &r.chain, p, fig.key, entry_value(e)));
        }
        for r in &self.incident {
            let p = r.pattern.as_str();
            r.analytic
                .visit(|fig, e| check("incident", &r.chain, p, fig.key, entry_value(e)));
        }
        for c in &self.failover_cache {
            for r in &c.rows {
                check(
                    "failover_cache",
                    &c.chain,
                    r.request,
                    "cost_per_1k_usd",
                    Some(r.cost_per_1k_usd),
                );
                check(
                    "failover_cache",
                    &c.chain,
                    r.request,
                    "vs_primary",
                    r.vs_primary,
                );
            }
        }
        bad
    }
}

/// [`Report::first_non_finite`] of incident rows alone: the first figure of `rows` that is not
/// finite, named `incident/chain/pattern/field`.
pub fn first_non_finite_incident(rows: &[IncidentRow]) -> Option<String> {
    rows.iter().find_map(|r| {
        let mut bad = None;
        r.analytic.visit(|fig, e| {
            if bad.is_none() && entry_value(e).is_some_and(|x| !x.is_finite()) {
                bad = Some(format!(
                    "incident/{}/{}/{}",
                    r.chain,
                    r.pattern.as_str(),
                    fig.key
                ));
            }
        });
        bad
    })
}

/// The number of an analytic entry (`None` where it does not apply).
fn entry_value(e: FigureEntry<'_, f64>) -> Option<f64> {
    match e {
        FigureEntry::Figure(v) => v.copied(),
        FigureEntry::Exact(v) => v,
        FigureEntry::Text(_) => None,
    }
}
