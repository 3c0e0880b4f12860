//! The result of `fallcost compare`: one shape that every output format renders.
//!
//! Keys follow MODEL.md §10 (`cost_per_1k_usd`, `vs_baseline`, `total_usd`, …); new keys may be
//! added, none renamed. NOTE: the CSV columns in `output/csv.rs` list these fields explicitly;
//! keep the two in step.

use serde::Serialize;

use crate::model::cache::{FailoverCache, failover_cache};
use crate::model::{FailureMode, Pattern, Scenario, incident, steady};
use crate::sim::histogram::{Histogram, mixture_quantile, relative_error_bound};
use crate::sim::stats::{Estimate, Sum, Z95, weighted_estimate};
use crate::sim::{self, McOptions};

/// Round to 12 significant digits: far below a cent on any bill, and free of binary float
/// noise, so 25.0075 prints as `25.0075` and not `25.007499999999997`.
pub fn clean(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { 0.0 } else { x };
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// One steady-state row: one pattern on one chain, per 1,000 requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SteadyRow {
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// Expected USD per 1,000 requests.
    pub cost_per_1k_usd: f64,
    /// The healthy, warm primary alone, USD per 1,000 requests.
    pub baseline_per_1k_usd: f64,
    /// cost / baseline − 1, a ratio (0.0003 for +0.03%); `null` for a free primary.
    pub vs_baseline: Option<f64>,
    /// Requests per 1,000 that fail on every link tried.
    pub failed_per_1k: f64,
    /// Attempts per 1,000 requests that did not produce the answer (failures, hedge losers).
    pub wasted_attempts_per_1k: f64,
    /// USD per 1,000 requests spent on those attempts.
    pub wasted_per_1k_usd: f64,
    /// Expected attempts per request (retries, failovers and hedge legs included).
    pub attempts_per_request: f64,
    /// The most attempts any request can make.
    pub attempts_max: u32,
    /// Expected seconds per request spent in failed attempts and backoff before the answer
    /// (or the final error).
    pub dead_time_mean_s: f64,
    /// Share of requests answered by each model of the chain, in chain order (attribution).
    pub answered_by: Vec<Answered>,
    /// Requests per 1,000 stopped by the call cap (`max_attempts`).
    pub call_cap_hits_per_1k: f64,
    /// Requests per 1,000 that reached a fallback the cost cap (`max_multiplier`) skipped.
    pub cost_cap_hits_per_1k: f64,
    /// The chain's models timed with the default latency model (p50 2 s, p99 12 s: no
    /// `[latency]` entry; [`crate::model::Chain::latency_defaults`]); absent when every model
    /// has an entry, and on blended rows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency_defaults: Vec<String>,
    /// The Monte Carlo figures, with `--mc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<SteadyMc>,
}

/// The share of requests one model answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answered {
    /// The model, `provider/model`.
    pub model: String,
    /// Share of all requests, in [0, 1].
    pub share: f64,
}

/// A 95% confidence interval `[lo, hi]`, in the unit of its figure.
pub type Ci = [f64; 2];

fn ci(e: &Estimate) -> Ci {
    [clean(e.lo), clean(e.hi)]
}

/// The Monte Carlo figures of a steady-state row: the row's keys with simulated means, each with
/// its 95% interval as `KEY_ci95`, and the latency percentiles (MODEL.md §9, §10).
///
/// On a blended traffic-share row ([`BLENDED`]) every mean is Σ shareᵢ·meanᵢ over the chains'
/// own Monte Carlo figures, and its interval comes from the combined standard error
/// √(Σ shareᵢ²·SEᵢ²) (the chains are simulated on independent streams); the latency
/// percentiles are those of the mixture (the chains' latency histograms weighted by share).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SteadyMc {
    /// Requests simulated (a blended row: summed over its chains).
    pub requests: u64,
    /// Mean USD per 1,000 requests.
    pub cost_per_1k_usd: f64,
    /// Its 95% interval.
    pub cost_per_1k_usd_ci95: Ci,
    /// Mean cost / baseline − 1, a ratio; `null` for a free primary.
    pub vs_baseline: Option<f64>,
    /// Its 95% interval.
    pub vs_baseline_ci95: Option<Ci>,
    /// Failed requests per 1,000.
    pub failed_per_1k: f64,
    /// Its 95% interval.
    pub failed_per_1k_ci95: Ci,
    /// Wasted attempts per 1,000 requests.
    pub wasted_attempts_per_1k: f64,
    /// Its 95% interval.
    pub wasted_attempts_per_1k_ci95: Ci,
    /// USD per 1,000 requests spent on wasted attempts.
    pub wasted_per_1k_usd: f64,
    /// Its 95% interval.
    pub wasted_per_1k_usd_ci95: Ci,
    /// Median latency the user sees (to the answer, or to the error of a failed request), s.
    pub latency_p50_s: f64,
    /// 95th-percentile latency, seconds.
    pub latency_p95_s: f64,
    /// 99th-percentile latency, seconds.
    pub latency_p99_s: f64,
    /// Under a non-default policy: attempts, dead time, attribution and cap hits, simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyMcFigures>,
}

/// The Monte Carlo figures of a steady-state row under a policy (MODEL.md §8), each with its 95%
/// interval as `KEY_ci95`. A blended row has them when every chain has a policy: means and
/// intervals as in [`SteadyMc`], `attempts_max` the largest of the chains', `answered_by`
/// merged by model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyMcFigures {
    /// Mean attempts per request.
    pub attempts_per_request: f64,
    /// Its 95% interval.
    pub attempts_per_request_ci95: Ci,
    /// The most attempts any simulated request made.
    pub attempts_max: u32,
    /// Mean seconds per request in failed attempts and backoff before the answer (or error).
    pub dead_time_mean_s: f64,
    /// Its 95% interval.
    pub dead_time_mean_s_ci95: Ci,
    /// 99th-percentile dead time, seconds (0 when fewer than 1% of requests wait at all).
    /// `None` (absent in JSON) on the blended traffic-share rows: the policy simulator keeps
    /// its dead-time histograms to itself, and a mixture's percentile is not the weighted mean
    /// of the chains' percentiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dead_time_p99_s: Option<f64>,
    /// Share of requests answered by each model of the chain, in chain order.
    pub answered_by: Vec<Answered>,
    /// Requests per 1,000 stopped by the call cap.
    pub call_cap_hits_per_1k: f64,
    /// Its 95% interval.
    pub call_cap_hits_per_1k_ci95: Ci,
    /// Requests per 1,000 that reached a fallback after one the cost cap skipped.
    pub cost_cap_hits_per_1k: f64,
    /// Its 95% interval.
    pub cost_cap_hits_per_1k_ci95: Ci,
}

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
    /// a fixed seed ([`sim::expected`]). Marked `sim` in tables.
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
    /// The incident simulator with a fixed seed ([`sim::expected`]): means over its windows.
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

/// The share of all requests each model answered across chains weighted by their traffic
/// shares: Σ shareᵢ · (share of chain i's requests the model answered), one entry per model in
/// first-seen order (a model in several chains is added up).
fn blend_answered<'a>(parts: impl IntoIterator<Item = (f64, &'a [Answered])>) -> Vec<Answered> {
    let mut answered: Vec<Answered> = Vec::new();
    for (weight, list) in parts {
        for a in list {
            let w = weight * a.share;
            match answered.iter_mut().find(|x| x.model == a.model) {
                Some(x) => x.share += w,
                None => answered.push(Answered {
                    model: a.model.clone(),
                    share: w,
                }),
            }
        }
    }
    for a in &mut answered {
        a.share = clean(a.share);
    }
    answered
}

/// Add, per pattern, a row weighting every chain by its traffic share (steady state) and
/// summing their incident windows (each chain sees its share of the requests).
fn blend(
    scenario: &Scenario,
    steady_rows: &mut Vec<SteadyRow>,
    incident_rows: &mut Vec<IncidentRow>,
) {
    let share = |name: &str| {
        scenario
            .chains
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.traffic_share)
            .unwrap_or(0.0)
    };
    let chains = scenario.chains.len();
    for pattern in Pattern::ALL {
        let rows: Vec<&SteadyRow> = steady_rows
            .iter()
            .filter(|r| r.pattern == pattern)
            .collect();
        if rows.len() == chains {
            let sum = |f: &dyn Fn(&SteadyRow) -> f64| {
                rows.iter().map(|r| share(&r.chain) * f(r)).sum::<f64>()
            };
            let cost = sum(&|r| r.cost_per_1k_usd);
            let base = sum(&|r| r.baseline_per_1k_usd);
            let answered = blend_answered(
                rows.iter()
                    .map(|r| (share(&r.chain), r.answered_by.as_slice())),
            );
            let row = SteadyRow {
                chain: BLENDED.to_string(),
                pattern,
                cost_per_1k_usd: clean(cost),
                baseline_per_1k_usd: clean(base),
                vs_baseline: (base > 0.0).then(|| clean(cost / base - 1.0)),
                failed_per_1k: clean(sum(&|r| r.failed_per_1k)),
                wasted_attempts_per_1k: clean(sum(&|r| r.wasted_attempts_per_1k)),
                wasted_per_1k_usd: clean(sum(&|r| r.wasted_per_1k_usd)),
                attempts_per_request: clean(sum(&|r| r.attempts_per_request)),
                attempts_max: rows.iter().map(|r| r.attempts_max).max().unwrap_or(0),
                dead_time_mean_s: clean(sum(&|r| r.dead_time_mean_s)),
                answered_by: answered,
                call_cap_hits_per_1k: clean(sum(&|r| r.call_cap_hits_per_1k)),
                cost_cap_hits_per_1k: clean(sum(&|r| r.cost_cap_hits_per_1k)),
                latency_defaults: Vec::new(),
                mc: None,
            };
            steady_rows.push(row);
        }
        let rows: Vec<&IncidentRow> = incident_rows
            .iter()
            .filter(|r| r.pattern == pattern)
            .collect();
        if rows.len() == chains {
            let sum = |f: &dyn Fn(&IncidentRow) -> f64| rows.iter().map(|r| f(r)).sum::<f64>();
            let total = sum(&|r| r.total_usd);
            let normal = sum(&|r| r.normal_usd);
            let requests: f64 = scenario
                .incident
                .as_ref()
                .map(|i| i.requests() as f64)
                .unwrap_or(0.0);
            let row = IncidentRow {
                chain: BLENDED.to_string(),
                pattern,
                total_usd: clean(total),
                normal_usd: clean(normal),
                multiplier: (normal > 0.0).then(|| clean(total / normal)),
                window_usd: clean(sum(&|r| r.window_usd)),
                cold_start_usd: clean(sum(&|r| r.cold_start_usd)),
                failback_usd: clean(sum(&|r| r.failback_usd)),
                failed_requests: clean(sum(&|r| r.failed_requests)),
                wasted_attempts: clean(sum(&|r| r.wasted_attempts)),
                wasted_usd: clean(sum(&|r| r.wasted_usd)),
                cold_starts: clean(sum(&|r| r.cold_starts)),
                failback_writes: clean(sum(&|r| r.failback_writes)),
                dead_time_mean_s: if requests > 0.0 {
                    clean(
                        rows.iter()
                            .map(|r| r.dead_time_mean_s * share(&r.chain))
                            .sum(),
                    )
                } else {
                    0.0
                },
                breaker: None,
                method: if rows.iter().any(|r| r.method == Method::Simulated) {
                    Method::Simulated
                } else {
                    Method::Analytic
                },
                simulated_windows: rows.iter().filter_map(|r| r.simulated_windows).max(),
                simulated_precision: rows
                    .iter()
                    .filter_map(|r| r.simulated_precision)
                    .reduce(f64::max),
                mc: None,
            };
            incident_rows.push(row);
        }
    }
}

/// The incident figures of `pattern` on `chain`: the analytic engine's closed forms, or with a
/// circuit breaker the incident simulator's fixed-seed figures ([`sim::expected`]) and the
/// windows and precision they took.
pub fn incident_figures(
    req: &crate::model::cost::Request,
    chain: &crate::model::Chain,
    inc: &crate::model::Incident,
    pattern: Pattern,
) -> Option<(incident::IncidentOutcome, Option<(u64, f64)>)> {
    if chain.policy.breaker.is_some() {
        sim::expected::expected(req, chain, inc, pattern)
            .map(|s| (s.outcome, Some((s.windows, s.precision))))
    } else {
        incident::evaluate(req, chain, inc, pattern).map(|o| (o, None))
    }
}

impl Report {
    /// Run the analytic engine over every chain and pattern of `scenario`.
    pub fn analytic(scenario: &Scenario) -> Report {
        let req = &scenario.request;
        let mut steady_rows = Vec::new();
        let mut incident_rows = Vec::new();
        let mut caches = Vec::new();
        for chain in &scenario.chains {
            let base = steady::baseline(req, chain);
            for pattern in Pattern::ALL {
                if let Some(d) = steady::detailed(req, chain, pattern) {
                    let o = d.summary();
                    steady_rows.push(SteadyRow {
                        chain: chain.name.clone(),
                        pattern,
                        cost_per_1k_usd: clean(o.cost * 1000.0),
                        baseline_per_1k_usd: clean(base * 1000.0),
                        vs_baseline: (base > 0.0).then(|| clean(o.cost / base - 1.0)),
                        failed_per_1k: clean(o.failed * 1000.0),
                        wasted_attempts_per_1k: clean(o.wasted_attempts * 1000.0),
                        wasted_per_1k_usd: clean(o.wasted_cost * 1000.0),
                        attempts_per_request: clean(d.attempts),
                        attempts_max: d.attempts_max,
                        dead_time_mean_s: clean(d.dead_time_s),
                        answered_by: chain
                            .prices()
                            .zip(&d.answered_by)
                            .map(|(l, a)| Answered {
                                model: l.id.clone(),
                                share: clean(*a),
                            })
                            .collect(),
                        call_cap_hits_per_1k: clean(d.call_cap_hits * 1000.0),
                        cost_cap_hits_per_1k: clean(d.cost_cap_hits * 1000.0),
                        latency_defaults: chain
                            .latency_defaults()
                            .into_iter()
                            .map(String::from)
                            .collect(),
                        mc: None,
                    });
                }
                if let Some(i) = &scenario.incident
                    && let Some((o, sim)) =
                        incident_figures(req, chain, &i.for_chain(chain), pattern)
                {
                    incident_rows.push(IncidentRow {
                        chain: chain.name.clone(),
                        pattern,
                        total_usd: clean(o.total),
                        normal_usd: clean(o.normal),
                        multiplier: o.multiplier.map(clean),
                        window_usd: clean(o.window),
                        cold_start_usd: clean(o.cold_start),
                        failback_usd: clean(o.failback),
                        failed_requests: clean(o.failed_requests),
                        wasted_attempts: clean(o.wasted_attempts),
                        wasted_usd: clean(o.wasted),
                        cold_starts: clean(o.cold_starts),
                        failback_writes: clean(o.failback_writes),
                        dead_time_mean_s: clean(o.dead_time_mean_s),
                        method: if sim.is_some() {
                            Method::Simulated
                        } else {
                            Method::Analytic
                        },
                        simulated_windows: sim.map(|(w, _)| w),
                        simulated_precision: sim.map(|(_, p)| clean(p)),
                        breaker: o.breaker.map(|b| incident::BreakerFigures {
                            dead_attempts: clean(b.dead_attempts),
                            probes: clean(b.probes),
                            open_s: clean(b.open_s),
                        }),
                        mc: None,
                    });
                }
            }
            if let Some(mut c) = failover_cache(req, chain) {
                for r in &mut c.rows {
                    r.cost_per_1k_usd = clean(r.cost_per_1k_usd);
                    r.vs_primary = r.vs_primary.map(clean);
                }
                caches.push(c);
            }
        }
        if scenario.chains.iter().all(|c| c.traffic_share.is_some()) {
            blend(scenario, &mut steady_rows, &mut incident_rows);
        }
        let incident_window = scenario.incident.as_ref().map(|i| {
            let n = i.requests();
            IncidentWindow {
                duration_s: i.duration_s,
                requests_per_second: i.requests_per_second,
                requests: n,
                sessions: n.div_ceil(i.session_length.max(1)),
                session_length: i.session_length,
                failure: i.failure,
            }
        });
        Report {
            fallcost_version: env!("CARGO_PKG_VERSION"),
            scenario: scenario.name.clone(),
            pricing: scenario.pricing.clone(),
            input: scenario.clone(),
            steady: steady_rows,
            incident_window,
            incident: incident_rows,
            failover_cache: caches,
            mc: None,
        }
    }

    /// Leave out the blended traffic-share rows ([`BLENDED`]): for a report on some of a
    /// scenario's chains, whose shares do not add up to the whole traffic
    /// ([`select_chains`](crate::input::scenario::select_chains)). The Monte Carlo engine
    /// ([`Report::simulate`]) then has no blended rows to fill either.
    pub fn omit_blended(&mut self) {
        self.steady.retain(|r| r.chain != BLENDED);
        self.incident.retain(|r| r.chain != BLENDED);
    }

    /// Simulated requests in one incident window across every chain and pattern: each chain's
    /// requests (its traffic share of N = λ·D) × 4 patterns. `None` without an incident.
    pub fn incident_window_work(&self) -> Option<u64> {
        let incident = self.input.incident.as_ref()?;
        let requests: u64 = self
            .input
            .chains
            .iter()
            .map(|c| incident.for_chain(c).requests())
            .sum();
        Some(requests.saturating_mul(Pattern::ALL.len() as u64))
    }

    /// The most incident windows (`--mc-runs`) the simulation takes on for this scenario,
    /// [`MAX_INCIDENT_WORK`] / [`Report::incident_window_work`]; `None` without an incident
    /// (any number will do: nothing is simulated).
    pub fn max_incident_runs(&self) -> Option<u64> {
        self.incident_window_work()
            .map(|w| (MAX_INCIDENT_WORK / w.max(1) as f64).floor() as u64)
    }

    /// Simulated work [`Report::simulate`] will do, in simulated requests (for a progress
    /// bar), and whether the incident windows are within [`MAX_INCIDENT_WORK`]
    /// ([`Report::max_incident_runs`]).
    pub fn mc_work(&self, opts: &McOptions) -> (u64, bool) {
        let chains = self.input.chains.len() as u64;
        let steady = chains.saturating_mul(opts.requests);
        match (self.incident_window_work(), self.max_incident_runs()) {
            (Some(window), Some(max)) => {
                if opts.runs > max {
                    return (steady, false);
                }
                (
                    steady.saturating_add(window.saturating_mul(opts.runs)),
                    true,
                )
            }
            _ => (steady, true),
        }
    }

    /// Run the Monte Carlo engine and add its figures to every row (MODEL.md §9), the blended
    /// traffic-share rows included ([`BLENDED`]: the chains' figures combined, see
    /// [`SteadyMc`] and [`IncidentMc`]). `tick(n)` reports n more simulated requests done.
    pub fn simulate(&mut self, opts: &McOptions, tick: &mut dyn FnMut(u64)) {
        let scenario = self.input.clone();
        let req = &scenario.request;
        let (_, incident_ok) = self.mc_work(opts);
        // Per chain, in chain order: the simulated patterns, steady state and incident.
        let mut steady_sims: Vec<Vec<SteadySim>> = Vec::new();
        let mut incident_sims: Vec<Vec<IncidentSim>> = Vec::new();
        for (ci_, chain) in scenario.chains.iter().enumerate() {
            steady_sims.push(if chain.has_default_policy() {
                sim::steady::simulate(req, chain, ci_ as u64, opts, tick)
                    .into_iter()
                    .map(SteadySim::Plain)
                    .collect()
            } else {
                sim::policy::simulate(req, chain, ci_ as u64, opts, tick)
                    .into_iter()
                    .map(SteadySim::Policy)
                    .collect()
            });
            let mut sims = Vec::new();
            if let Some(incident) = scenario
                .incident
                .as_ref()
                .filter(|_| incident_ok)
                .map(|i| i.for_chain(chain))
            {
                let n = incident.requests();
                for pattern in Pattern::ALL {
                    let ticks = &mut |k| tick(k * n);
                    let i_ = ci_ as u64;
                    let simulated = if chain.has_default_policy() {
                        sim::incident::simulate(req, chain, &incident, pattern, i_, opts, ticks)
                            .map(IncidentSim::Plain)
                    } else {
                        sim::breaker::simulate(req, chain, &incident, pattern, i_, opts, ticks)
                            .map(IncidentSim::Policy)
                    };
                    sims.extend(simulated);
                }
            }
            incident_sims.push(sims);
        }
        // Each chain's own rows: one part of weight 1.
        for (ci_, chain) in scenario.chains.iter().enumerate() {
            let base = steady::baseline(req, chain);
            for m in &steady_sims[ci_] {
                let parts = [Part::own(chain, m)];
                if let Some(row) = self
                    .steady
                    .iter_mut()
                    .find(|r| r.chain == chain.name && r.pattern == m.base().pattern)
                {
                    row.mc = Some(steady_mc(&parts, base));
                }
            }
            for m in &incident_sims[ci_] {
                let parts = [Part::own(chain, m)];
                if let Some(row) = self
                    .incident
                    .iter_mut()
                    .find(|r| r.chain == chain.name && r.pattern == m.base().pattern)
                {
                    row.mc = Some(incident_mc(&parts));
                }
            }
        }
        // The blended rows: every chain's part, weighted by its traffic share, when every
        // chain has the pattern (as for the analytic blend).
        let shares: Vec<f64> = scenario
            .chains
            .iter()
            .map(|c| c.traffic_share.unwrap_or(0.0))
            .collect();
        for pattern in Pattern::ALL {
            let steady_parts: Option<Vec<Part<'_, SteadySim>>> = scenario
                .chains
                .iter()
                .zip(&steady_sims)
                .zip(&shares)
                .map(|((chain, sims), &share)| {
                    sims.iter()
                        .find(|m| m.base().pattern == pattern)
                        .map(|sim| Part { chain, share, sim })
                })
                .collect();
            if let (Some(parts), Some(row)) = (
                steady_parts,
                self.steady
                    .iter_mut()
                    .find(|r| r.chain == BLENDED && r.pattern == pattern),
            ) {
                let base = parts
                    .iter()
                    .map(|p| p.share * steady::baseline(req, p.chain))
                    .sum();
                row.mc = Some(steady_mc(&parts, base));
            }
            let incident_parts: Option<Vec<Part<'_, IncidentSim>>> = scenario
                .chains
                .iter()
                .zip(&incident_sims)
                .zip(&shares)
                .map(|((chain, sims), &share)| {
                    sims.iter()
                        .find(|m| m.base().pattern == pattern)
                        .map(|sim| Part { chain, share, sim })
                })
                .collect();
            if let (Some(parts), Some(row)) = (
                incident_parts,
                self.incident
                    .iter_mut()
                    .find(|r| r.chain == BLENDED && r.pattern == pattern),
            ) {
                row.mc = Some(incident_mc(&parts));
            }
        }
        self.mc = Some(McMeta {
            seed: opts.seed,
            requests: opts.requests,
            runs: opts.runs,
            rng: sim::rng::ALGORITHM,
            percentile_relative_error: clean(relative_error_bound()),
            incident_skipped: (!incident_ok && scenario.incident.is_some())
                .then(|| self.too_many_runs(opts.runs)),
        });
    }
}

impl Report {
    /// Why `runs` incident windows (`--mc-runs`) are more than the simulation takes on for this
    /// scenario, and what is allowed.
    pub fn too_many_runs(&self, runs: u64) -> String {
        let window = self.incident_window_work().unwrap_or(0);
        let max = self.max_incident_runs().unwrap_or(u64::MAX);
        let allowed = if max >= 2 {
            format!("allowed: 2 to {max}")
        } else {
            "not even 2 windows fit (a shorter incident or less traffic would)".to_string()
        };
        format!(
            "--mc-runs {runs} is too many for this scenario: each incident window is {window} simulated requests (the window's requests on every chain, 4 patterns) and the simulation takes at most {MAX_INCIDENT_WORK:e} in all; {allowed}"
        )
    }
}

/// One chain's simulated steady-state figures of one pattern.
enum SteadySim {
    /// From the default-policy engine ([`sim::steady`]).
    Plain(sim::steady::PatternMc),
    /// From the policy engine ([`sim::policy`]), with attempts, dead time and attribution.
    Policy(sim::policy::PolicyMc),
}

impl SteadySim {
    fn base(&self) -> &sim::steady::PatternMc {
        match self {
            SteadySim::Plain(m) => m,
            SteadySim::Policy(m) => &m.base,
        }
    }

    fn policy(&self) -> Option<&sim::policy::PolicyMc> {
        match self {
            SteadySim::Plain(_) => None,
            SteadySim::Policy(m) => Some(m),
        }
    }
}

/// One chain's simulated incident windows of one pattern.
enum IncidentSim {
    /// From the default-policy engine ([`sim::incident`]).
    Plain(sim::incident::IncidentMc),
    /// From the policy engine ([`sim::breaker`]), with dead time and the breaker.
    Policy(sim::breaker::PolicyIncidentMc),
}

impl IncidentSim {
    fn base(&self) -> &sim::incident::IncidentMc {
        match self {
            IncidentSim::Plain(m) => m,
            IncidentSim::Policy(m) => &m.base,
        }
    }

    fn policy(&self) -> Option<&sim::breaker::PolicyIncidentMc> {
        match self {
            IncidentSim::Plain(_) => None,
            IncidentSim::Policy(m) => Some(m),
        }
    }
}

/// One chain's part in a row's Monte Carlo figures: its own row (share 1), or a blended row
/// (its traffic share). Chains are simulated on streams of their own, so parts are
/// independent and their variances add ([`weighted_estimate`]).
struct Part<'a, T> {
    chain: &'a crate::model::Chain,
    /// Weight of the chain's per-request figures: 1 for its own row, its traffic share in a
    /// blend. Incident windows are added with weight 1 whatever the share (each chain's window
    /// already holds its share of the requests).
    share: f64,
    sim: &'a T,
}

impl<'a, T> Part<'a, T> {
    fn own(chain: &'a crate::model::Chain, sim: &'a T) -> Self {
        Part {
            chain,
            share: 1.0,
            sim,
        }
    }
}

/// The steady-state Monte Carlo figures of `parts` (one chain, or the chains of a blend)
/// against `base`, the (blended) healthy-primary baseline in USD per request.
fn steady_mc(parts: &[Part<'_, SteadySim>], base: f64) -> SteadyMc {
    let est = |f: fn(&sim::steady::PatternMc) -> &Sum, scale: f64| {
        weighted_estimate(parts.iter().map(|p| (p.share, f(p.sim.base()))), Z95, scale)
    };
    let cost = est(|m| &m.cost, 1000.0);
    let vs = (base > 0.0).then(|| {
        let e = est(|m| &m.cost, 1.0);
        Estimate {
            mean: e.mean / base - 1.0,
            lo: e.lo / base - 1.0,
            hi: e.hi / base - 1.0,
        }
    });
    let (failed, wa, wc) = (
        est(|m| &m.failed, 1000.0),
        est(|m| &m.wasted_attempts, 1000.0),
        est(|m| &m.wasted_cost, 1000.0),
    );
    let latency: Vec<(&Histogram, f64)> = parts
        .iter()
        .map(|p| (&p.sim.base().latency, p.share))
        .collect();
    let q = |x: f64| clean(mixture_quantile(&latency, x).unwrap_or(0.0));
    let policy: Option<Vec<(&Part<'_, SteadySim>, &sim::policy::PolicyMc)>> = parts
        .iter()
        .map(|p| p.sim.policy().map(|m| (p, m)))
        .collect();
    SteadyMc {
        requests: parts.iter().map(|p| p.sim.base().cost.n).sum(),
        cost_per_1k_usd: clean(cost.mean),
        cost_per_1k_usd_ci95: ci(&cost),
        vs_baseline: vs.map(|e| clean(e.mean)),
        vs_baseline_ci95: vs.as_ref().map(ci),
        failed_per_1k: clean(failed.mean),
        failed_per_1k_ci95: ci(&failed),
        wasted_attempts_per_1k: clean(wa.mean),
        wasted_attempts_per_1k_ci95: ci(&wa),
        wasted_per_1k_usd: clean(wc.mean),
        wasted_per_1k_usd_ci95: ci(&wc),
        latency_p50_s: q(0.50),
        latency_p95_s: q(0.95),
        latency_p99_s: q(0.99),
        policy: policy.map(|ps| policy_figures(&ps)),
    }
}

/// The policy figures of `parts` simulated under their policies (every part has them).
fn policy_figures(parts: &[(&Part<'_, SteadySim>, &sim::policy::PolicyMc)]) -> PolicyMcFigures {
    let est = |f: fn(&sim::policy::PolicyMc) -> &Sum, scale: f64| {
        weighted_estimate(parts.iter().map(|(p, m)| (p.share, f(m))), Z95, scale)
    };
    let (attempts, dead) = (est(|m| &m.attempts, 1.0), est(|m| &m.dead_time, 1.0));
    let (call, cost) = (
        est(|m| &m.call_cap_hits, 1000.0),
        est(|m| &m.cost_cap_hits, 1000.0),
    );
    let answered = |p: &Part<'_, SteadySim>, m: &sim::policy::PolicyMc| -> Vec<Answered> {
        p.chain
            .prices()
            .zip(&m.answered_by)
            .map(|(l, a)| Answered {
                model: l.id.clone(),
                share: clean(a.mean()),
            })
            .collect()
    };
    // A percentile of dead time and the chain's own attribution list are a chain's own; a
    // blend merges the attribution by model and has no dead-time percentile (the simulators
    // keep the dead-time histograms to themselves).
    let (dead_time_p99_s, answered_by) = match parts {
        [(p, m)] => (Some(clean(m.dead_time_p99_s)), answered(p, m)),
        _ => {
            let lists: Vec<(f64, Vec<Answered>)> = parts
                .iter()
                .map(|(p, m)| (p.share, answered(p, m)))
                .collect();
            (
                None,
                blend_answered(lists.iter().map(|(w, l)| (*w, l.as_slice()))),
            )
        }
    };
    PolicyMcFigures {
        attempts_per_request: clean(attempts.mean),
        attempts_per_request_ci95: ci(&attempts),
        attempts_max: parts.iter().map(|(_, m)| m.attempts_max).max().unwrap_or(0),
        dead_time_mean_s: clean(dead.mean),
        dead_time_mean_s_ci95: ci(&dead),
        dead_time_p99_s,
        answered_by,
        call_cap_hits_per_1k: clean(call.mean),
        call_cap_hits_per_1k_ci95: ci(&call),
        cost_cap_hits_per_1k: clean(cost.mean),
        cost_cap_hits_per_1k_ci95: ci(&cost),
    }
}

/// The incident Monte Carlo figures of `parts` (one chain, or the chains of a blend): the
/// chains' windows added up.
fn incident_mc(parts: &[Part<'_, IncidentSim>]) -> IncidentMc {
    let e = |f: fn(&sim::incident::IncidentMc) -> &Sum| {
        weighted_estimate(parts.iter().map(|p| (1.0, f(p.sim.base()))), Z95, 1.0)
    };
    let (total, window, cold, fb) = (
        e(|m| &m.total),
        e(|m| &m.window),
        e(|m| &m.cold_start),
        e(|m| &m.failback),
    );
    let (failed, wa, wu, cs, fw) = (
        e(|m| &m.failed_requests),
        e(|m| &m.wasted_attempts),
        e(|m| &m.wasted),
        e(|m| &m.cold_starts),
        e(|m| &m.failback_writes),
    );
    let normal: f64 = parts.iter().map(|p| p.sim.base().normal).sum();
    // Σ totalᵢ / Σ normalᵢ: each chain adds its total / Σ normal, taken from its own
    // multiplier where it has one (weight normalᵢ / Σ normal; exactly 1 for a chain's own row).
    let mult = (normal > 0.0).then(|| {
        weighted_estimate(
            parts.iter().map(|p| {
                let m = p.sim.base();
                if m.normal > 0.0 {
                    (m.normal / normal, &m.multiplier)
                } else {
                    (1.0 / normal, &m.total)
                }
            }),
            Z95,
            1.0,
        )
    });
    let policy: Option<Vec<(&Part<'_, IncidentSim>, &sim::breaker::PolicyIncidentMc)>> = parts
        .iter()
        .map(|p| p.sim.policy().map(|m| (p, m)))
        .collect();
    IncidentMc {
        runs: parts
            .iter()
            .map(|p| p.sim.base().total.n)
            .min()
            .unwrap_or(0),
        total_usd: clean(total.mean),
        total_usd_ci95: ci(&total),
        normal_usd: clean(normal),
        multiplier: mult.map(|x| clean(x.mean)),
        multiplier_ci95: mult.as_ref().map(ci),
        window_usd: clean(window.mean),
        window_usd_ci95: ci(&window),
        cold_start_usd: clean(cold.mean),
        cold_start_usd_ci95: ci(&cold),
        failback_usd: clean(fb.mean),
        failback_usd_ci95: ci(&fb),
        failed_requests: clean(failed.mean),
        failed_requests_ci95: ci(&failed),
        wasted_attempts: clean(wa.mean),
        wasted_attempts_ci95: ci(&wa),
        wasted_usd: clean(wu.mean),
        wasted_usd_ci95: ci(&wu),
        cold_starts: clean(cs.mean),
        cold_starts_ci95: ci(&cs),
        failback_writes: clean(fw.mean),
        failback_writes_ci95: ci(&fw),
        policy: policy.map(|ps| incident_policy_figures(&ps)),
    }
}

/// The incident policy figures of `parts` (every part has them): dead time per request
/// weighted by traffic share, attempts on the dead provider added up, and the breaker's probes
/// and time open for a chain's own row only (each chain's breaker is simulated apart, so their
/// sum would describe no breaker).
fn incident_policy_figures(
    parts: &[(&Part<'_, IncidentSim>, &sim::breaker::PolicyIncidentMc)],
) -> IncidentPolicyMc {
    let dead = weighted_estimate(
        parts.iter().map(|(p, m)| (p.share, &m.dead_time_mean)),
        Z95,
        1.0,
    );
    let attempts = weighted_estimate(parts.iter().map(|(_, m)| (1.0, &m.dead_attempts)), Z95, 1.0);
    let breaker = match parts {
        [(p, m)] if p.chain.policy.breaker.is_some() => {
            Some((m.probes.estimate(Z95, 1.0), m.open_s.estimate(Z95, 1.0)))
        }
        _ => None,
    };
    IncidentPolicyMc {
        dead_time_mean_s: clean(dead.mean),
        dead_time_mean_s_ci95: ci(&dead),
        dead_provider_attempts: clean(attempts.mean),
        dead_provider_attempts_ci95: ci(&attempts),
        breaker_probes: breaker.map(|(probes, _)| clean(probes.mean)),
        breaker_probes_ci95: breaker.map(|(probes, _)| ci(&probes)),
        breaker_open_s: breaker.map(|(_, open)| clean(open.mean)),
        breaker_open_s_ci95: breaker.map(|(_, open)| ci(&open)),
    }
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
        for r in &self.steady {
            let p = r.pattern.as_str();
            for (field, v) in [
                ("cost_per_1k_usd", Some(r.cost_per_1k_usd)),
                ("baseline_per_1k_usd", Some(r.baseline_per_1k_usd)),
                ("vs_baseline", r.vs_baseline),
                ("failed_per_1k", Some(r.failed_per_1k)),
                ("wasted_attempts_per_1k", Some(r.wasted_attempts_per_1k)),
                ("wasted_per_1k_usd", Some(r.wasted_per_1k_usd)),
            ] {
                check("steady", &r.chain, p, field, v);
            }
        }
        for r in &self.incident {
            let p = r.pattern.as_str();
            for (field, v) in [
                ("total_usd", Some(r.total_usd)),
                ("normal_usd", Some(r.normal_usd)),
                ("multiplier", r.multiplier),
                ("window_usd", Some(r.window_usd)),
                ("cold_start_usd", Some(r.cold_start_usd)),
                ("failback_usd", Some(r.failback_usd)),
                ("failed_requests", Some(r.failed_requests)),
                ("wasted_attempts", Some(r.wasted_attempts)),
                ("wasted_usd", Some(r.wasted_usd)),
                ("cold_starts", Some(r.cold_starts)),
                ("failback_writes", Some(r.failback_writes)),
            ] {
                check("incident", &r.chain, p, field, v);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_float_noise_only() {
        assert_eq!(clean(0.0016150000000000001), 0.001615);
        assert_eq!(clean(25.007499999999997), 25.0075);
        assert_eq!(clean(513.5832), 513.5832);
        assert_eq!(clean(-0.0015), -0.0015);
        assert_eq!(clean(1e-9 * 3.0), 3e-9);
        assert_eq!(clean(0.0), 0.0);
    }
}
