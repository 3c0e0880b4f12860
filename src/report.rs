//! The result of `fallcost compare`: one shape that every output format renders.
//!
//! Keys follow MODEL.md §10 (`cost_per_1k_usd`, `vs_baseline`, `total_usd`, …); new keys may be
//! added, none renamed. NOTE: the CSV columns in `output/csv.rs` list these fields explicitly;
//! keep the two in step.

use serde::Serialize;

use crate::model::cache::{FailoverCache, failover_cache};
use crate::model::{FailureMode, Pattern, Scenario, incident, steady};

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
}

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
                if let Some(o) = steady::evaluate(req, chain, pattern) {
                    steady_rows.push(SteadyRow {
                        chain: chain.name.clone(),
                        pattern,
                        cost_per_1k_usd: clean(o.cost * 1000.0),
                        baseline_per_1k_usd: clean(base * 1000.0),
                        vs_baseline: (base > 0.0).then(|| clean(o.cost / base - 1.0)),
                        failed_per_1k: clean(o.failed * 1000.0),
                        wasted_attempts_per_1k: clean(o.wasted_attempts * 1000.0),
                        wasted_per_1k_usd: clean(o.wasted_cost * 1000.0),
                    });
                }
                if let Some(i) = &scenario.incident
                    && let Some(o) = incident::evaluate(req, chain, i, pattern)
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
        }
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
