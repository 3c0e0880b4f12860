//! `fallcost compare` as an operation: run the analytic engine over a scenario
//! ([`analytic`]), then, with `--mc`, the Monte Carlo engine ([`simulate`]), into a
//! [`Report`] that every output format renders.

use crate::model::cache::failover_cache;
use crate::model::{Pattern, Scenario, incident, steady};
use crate::number::round_noise;
use crate::report::{
    Answered, BLENDED, Ci, Figure, IncidentFigures, IncidentMc, IncidentPolicyFigures, IncidentRow,
    IncidentWindow, McMeta, MeanCi, Method, RateLimited, Report, SteadyFigures, SteadyMc,
    SteadyPolicyFigures, SteadyRow,
};
use crate::sim::histogram::{Histogram, mixture_quantile, relative_error_bound};
use crate::sim::stats::{Estimate, Sum, Z95, weighted_estimate};
use crate::sim::{self, Engine, IncidentEngine, IncidentRun, McOptions, SteadyRun};

fn ci(e: &Estimate) -> Ci {
    [round_noise(e.lo), round_noise(e.hi)]
}

/// A simulator's estimate as the report prints it: mean and interval, cleaned.
fn mean_ci(e: &Estimate) -> MeanCi {
    MeanCi {
        mean: round_noise(e.mean),
        ci95: ci(e),
    }
}

/// The analytic rule for combining a figure of several parts: Σ weightᵢ·valueᵢ, times `scale`
/// (the figure's [`Figure::scale`] from an engine's per-request value; 1 from rows already in
/// the figure's unit), cleaned.
fn weighted_sum(parts: &[(f64, &f64)], scale: f64) -> f64 {
    round_noise(parts.iter().map(|(w, x)| w * **x).sum::<f64>() * scale)
}

/// The same for an exact (not random) number.
fn weighted_exact(parts: &[(f64, f64)], scale: f64) -> Option<f64> {
    Some(round_noise(
        parts.iter().map(|(w, x)| w * x).sum::<f64>() * scale,
    ))
}

/// The Monte Carlo rule for combining a figure of several parts: the weighted estimate over
/// the parts' sums (independent streams, so variances add; [`weighted_estimate`]).
fn weighted_mean_ci(fig: &Figure, parts: &[(f64, &Sum)]) -> MeanCi {
    mean_ci(&weighted_estimate(
        parts.iter().map(|(w, s)| (*w, *s)),
        Z95,
        fig.scale,
    ))
}

/// A chain's own analytic policy figures from the engine's per-request ones
/// ([`crate::model::policy::PolicyOutcome::figures`]): scaled and cleaned as the steady
/// figures, `attempts_max` as is, the attribution's shares cleaned.
fn own_policy(f: &SteadyPolicyFigures<f64>) -> SteadyPolicyFigures<f64> {
    let mut p = SteadyPolicyFigures::combine(
        &[(1.0, f)],
        |fig, xs| weighted_sum(xs, fig.scale),
        |fig, xs| weighted_exact(xs, fig.scale),
    );
    p.attempts_max = f.attempts_max;
    p.answered_by = f
        .answered_by
        .iter()
        .map(|a| Answered {
            model: a.model.clone(),
            share: round_noise(a.share),
        })
        .collect();
    p
}

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
        a.share = round_noise(a.share);
    }
    answered
}

/// The incident rows of [`analytic_of`]`(scenario, patterns)` with `incident` as the
/// scenario's `[incident]`, blended rows included (the steady-state figures, which do not
/// depend on the incident, left out): what `compare --incidents` prices per window shape,
/// without a copy of the scenario per shape.
pub fn incident_rows_of(
    scenario: &Scenario,
    incident: &crate::model::Incident,
    patterns: &[Pattern],
) -> Vec<IncidentRow> {
    let req = &scenario.request;
    let mut rows = Vec::new();
    for chain in &scenario.chains {
        let own = incident.for_chain(chain);
        for pattern in Pattern::ALL.into_iter().filter(|p| patterns.contains(p)) {
            if let Some((o, sim)) = incident_figures(req, chain, &own, pattern) {
                rows.push(incident_row(chain, pattern, &o, sim));
            }
        }
    }
    if scenario.chains.iter().all(|c| c.traffic_share.is_some()) {
        blend_incident_rows(scenario, incident, &mut rows);
    }
    rows
}

/// A chain's traffic share in `scenario` (0 for a chain it does not name).
fn share_of(scenario: &Scenario, name: &str) -> f64 {
    scenario
        .chains
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.traffic_share)
        .unwrap_or(0.0)
}

/// Add, per pattern, a steady-state row weighting every chain by its traffic share.
fn blend_steady_rows(scenario: &Scenario, steady_rows: &mut Vec<SteadyRow>) {
    let share = |name: &str| share_of(scenario, name);
    let chains = scenario.chains.len();
    for pattern in Pattern::ALL {
        let rows: Vec<&SteadyRow> = steady_rows
            .iter()
            .filter(|r| r.pattern == pattern)
            .collect();
        if rows.len() == chains {
            let row = blend_steady(pattern, &rows, &share);
            steady_rows.push(row);
        }
    }
}

/// Add, per pattern, an incident row summing every chain's incident window (each chain sees
/// its traffic share of the requests).
fn blend_incident_rows(
    scenario: &Scenario,
    incident: &crate::model::Incident,
    incident_rows: &mut Vec<IncidentRow>,
) {
    let share = |name: &str| share_of(scenario, name);
    let chains = scenario.chains.len();
    for pattern in Pattern::ALL {
        let rows: Vec<&IncidentRow> = incident_rows
            .iter()
            .filter(|r| r.pattern == pattern)
            .collect();
        if rows.len() == chains {
            let row = blend_incident(incident, pattern, &rows, &share);
            incident_rows.push(row);
        }
    }
}

/// The blended steady row of one pattern's `rows` (one per chain), weighted by `share`.
fn blend_steady(pattern: Pattern, rows: &[&SteadyRow], share: &dyn Fn(&str) -> f64) -> SteadyRow {
    let sum =
        |f: &dyn Fn(&SteadyRow) -> f64| rows.iter().map(|r| share(&r.chain) * f(r)).sum::<f64>();
    let cost = sum(&|r| r.analytic.cost_per_1k_usd);
    let base = sum(&|r| r.analytic.baseline_per_1k_usd.unwrap_or(0.0));
    let parts: Vec<(f64, &SteadyFigures<f64>)> = rows
        .iter()
        .map(|r| (share(&r.chain), &r.analytic))
        .collect();
    let mut analytic = SteadyFigures::combine(
        &parts,
        |_, xs| weighted_sum(xs, 1.0),
        |_, xs| weighted_exact(xs, 1.0),
    );
    analytic.vs_baseline = (base > 0.0).then(|| round_noise(cost / base - 1.0));
    let parts: Vec<(f64, &SteadyPolicyFigures<f64>)> =
        rows.iter().map(|r| (share(&r.chain), &r.policy)).collect();
    // No dead-time percentile: a mixture's is not the weighted mean of the chains'.
    let mut policy =
        SteadyPolicyFigures::combine(&parts, |_, xs| weighted_sum(xs, 1.0), |_, _| None);
    policy.attempts_max = rows
        .iter()
        .map(|r| r.policy.attempts_max)
        .max()
        .unwrap_or(0);
    policy.answered_by = blend_answered(
        rows.iter()
            .map(|r| (share(&r.chain), r.policy.answered_by.as_slice())),
    );
    SteadyRow {
        chain: BLENDED.to_string(),
        pattern,
        analytic,
        policy,
        latency_defaults: Vec::new(),
        mc: None,
    }
}

/// The blended incident row of one pattern's `rows` (one per chain): the chains' windows
/// added up, the dead time per request weighted by `share`.
fn blend_incident(
    incident: &crate::model::Incident,
    pattern: Pattern,
    rows: &[&IncidentRow],
    share: &dyn Fn(&str) -> f64,
) -> IncidentRow {
    let sum = |f: &dyn Fn(&IncidentRow) -> f64| rows.iter().map(|r| f(r)).sum::<f64>();
    let total = sum(&|r| r.analytic.total_usd);
    let normal = sum(&|r| r.analytic.normal_usd.unwrap_or(0.0));
    let requests = incident.requests() as f64;
    // The chains' windows add up (each holds its share of the requests): weight 1.
    let parts: Vec<(f64, &IncidentFigures<f64>)> =
        rows.iter().map(|r| (1.0, &r.analytic)).collect();
    let mut analytic = IncidentFigures::combine(
        &parts,
        |_, xs| weighted_sum(xs, 1.0),
        |_, xs| weighted_exact(xs, 1.0),
    );
    analytic.multiplier = (normal > 0.0).then(|| round_noise(total / normal));
    IncidentRow {
        chain: BLENDED.to_string(),
        pattern,
        analytic,
        dead_time_mean_s: if requests > 0.0 {
            round_noise(
                rows.iter()
                    .map(|r| r.dead_time_mean_s * share(&r.chain))
                    .sum(),
            )
        } else {
            0.0
        },
        breaker: None,
        rate_limits: None,
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
        simulated_counts_precision: rows
            .iter()
            .filter_map(|r| r.simulated_counts_precision)
            .reduce(f64::max),
        mc: None,
    }
}

/// How a simulated incident row was computed: the windows, the bill's precision and the
/// counts' ([`sim::expected::Simulated`]'s `windows`, `precision`, `counts_precision`).
pub type SimulatedBy = (u64, f64, f64);

/// The incident figures of `pattern` on `chain`: the analytic engine's closed forms, or where
/// they have none ([`incident::no_closed_form`]: a circuit breaker, retries in sparse traffic)
/// the incident simulator's fixed-seed figures ([`sim::expected`]) and the windows and
/// precisions (the bill's, the counts') they took.
pub fn incident_figures(
    req: &crate::model::cost::Request,
    chain: &crate::model::Chain,
    inc: &crate::model::Incident,
    pattern: Pattern,
) -> Option<(incident::IncidentOutcome, Option<SimulatedBy>)> {
    if incident::no_closed_form(chain, inc).is_some() {
        sim::expected::expected(req, chain, inc, pattern).map(|s| {
            (
                s.outcome,
                Some((s.windows, s.precision, s.counts_precision)),
            )
        })
    } else {
        incident::evaluate(req, chain, inc, pattern).map(|o| (o, None))
    }
}

/// Run the analytic engine over every chain and pattern of `scenario`.
pub fn analytic(scenario: &Scenario) -> Report {
    analytic_of(scenario, &Pattern::ALL)
}

/// [`analytic`]'s report with the rows of `patterns` only (in `Pattern::ALL`'s order): each
/// row is the one [`analytic`] prints, and a pattern left out is not priced (`fallcost tune`
/// skips the simulated incident figures of patterns it does not weigh).
pub fn analytic_of(scenario: &Scenario, patterns: &[Pattern]) -> Report {
    let req = &scenario.request;
    let mut steady_rows = Vec::new();
    let mut caches = Vec::new();
    for chain in &scenario.chains {
        let base = steady::baseline(req, chain);
        for pattern in Pattern::ALL.into_iter().filter(|p| patterns.contains(p)) {
            if let Some(d) = steady::detailed(req, chain, pattern) {
                steady_rows.push(steady_row(chain, pattern, base, &d));
            }
        }
        if let Some(mut c) = failover_cache(req, chain) {
            for r in &mut c.rows {
                r.cost_per_1k_usd = round_noise(r.cost_per_1k_usd);
                r.vs_primary = r.vs_primary.map(round_noise);
            }
            caches.push(c);
        }
    }
    if scenario.chains.iter().all(|c| c.traffic_share.is_some()) {
        blend_steady_rows(scenario, &mut steady_rows);
    }
    let incident_rows = scenario
        .incident
        .as_ref()
        .map_or_else(Vec::new, |i| incident_rows_of(scenario, i, patterns));
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

/// One steady-state row of `chain` under `pattern`: the analytic figures of `d`, against the
/// primary alone (`base`, USD per request).
fn steady_row(
    chain: &crate::model::Chain,
    pattern: Pattern,
    base: f64,
    d: &crate::model::policy::PolicyOutcome,
) -> SteadyRow {
    let o = d.summary();
    SteadyRow {
        chain: chain.name.clone(),
        pattern,
        analytic: {
            let mut f = SteadyFigures::combine(
                &[(1.0, &o)],
                |fig, xs| weighted_sum(xs, fig.scale),
                |fig, xs| weighted_exact(xs, fig.scale),
            );
            f.baseline_per_1k_usd = Some(round_noise(base * 1000.0));
            f.vs_baseline = (base > 0.0).then(|| round_noise(o.cost_per_1k_usd / base - 1.0));
            f
        },
        policy: own_policy(&d.figures(chain)),
        latency_defaults: chain
            .latency_defaults()
            .into_iter()
            .map(String::from)
            .collect(),
        mc: None,
    }
}

/// One incident row of `chain` under `pattern`: its outcome `o`, simulated (`sim`: windows and
/// the bill's and the counts' precision) when no closed form prices it.
fn incident_row(
    chain: &crate::model::Chain,
    pattern: Pattern,
    o: &incident::IncidentOutcome,
    sim: Option<SimulatedBy>,
) -> IncidentRow {
    IncidentRow {
        chain: chain.name.clone(),
        pattern,
        analytic: IncidentFigures::combine(
            &[(1.0, &o.figures())],
            |fig, xs| weighted_sum(xs, fig.scale),
            |fig, xs| weighted_exact(xs, fig.scale),
        ),
        dead_time_mean_s: round_noise(o.dead_time_mean_s),
        method: if sim.is_some() {
            Method::Simulated
        } else {
            Method::Analytic
        },
        simulated_windows: sim.map(|(w, _, _)| w),
        simulated_precision: sim.map(|(_, p, _)| round_noise(p)),
        simulated_counts_precision: sim.map(|(_, _, c)| round_noise(c)),
        breaker: o.breaker.map(|b| incident::BreakerFigures {
            dead_attempts: round_noise(b.dead_attempts),
            probes: round_noise(b.probes),
            open_s: round_noise(b.open_s),
        }),
        rate_limits: (!o.rate_limited_by.is_empty()).then(|| {
            chain
                .links
                .iter()
                .zip(&o.rate_limited_by)
                .map(|(l, &n)| RateLimited {
                    model: l.price.id.clone(),
                    capacity: l.capacity,
                    refused_attempts: round_noise(n),
                })
                .collect()
        }),
        mc: None,
    }
}

/// Simulated work [`simulate`] will do, in simulated requests (for a progress
/// bar), and whether the incident windows are within [`crate::report::MAX_INCIDENT_WORK`]
/// ([`Report::max_incident_runs`]).
pub fn mc_work(report: &Report, opts: &McOptions) -> (u64, bool) {
    let chains = report.input.chains.len() as u64;
    let steady = chains.saturating_mul(opts.requests);
    match (report.incident_window_work(), report.max_incident_runs()) {
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
pub fn simulate(report: &mut Report, opts: &McOptions, tick: &mut dyn FnMut(u64)) {
    let scenario = report.input.clone();
    let (_, incident_ok) = mc_work(report, opts);
    // Per chain, in chain order: the simulated patterns, steady state and incident.
    let mut steady_sims: Vec<Vec<SteadyRun>> = Vec::new();
    let mut incident_sims: Vec<Vec<IncidentRun>> = Vec::new();
    for (index, chain) in scenario.chains.iter().enumerate() {
        let (steady, incident) = simulate_chain(&scenario, chain, index, incident_ok, opts, tick);
        steady_sims.push(steady);
        incident_sims.push(incident);
    }
    fill_own_rows(report, &scenario, &steady_sims, &incident_sims);
    fill_blended_rows(report, &scenario, &steady_sims, &incident_sims);
    report.mc = Some(McMeta {
        seed: opts.seed,
        requests: opts.requests,
        runs: opts.runs,
        rng: sim::rng::ALGORITHM,
        percentile_relative_error: round_noise(relative_error_bound()),
        incident_skipped: (!incident_ok && scenario.incident.is_some())
            .then(|| report.too_many_runs(opts.runs)),
    });
}

/// Chain number `index`'s simulated patterns, by the engines [`Engine::for_chain`] selects:
/// steady state, and its incident windows when the scenario has one within the work limit
/// (`incident_ok`).
fn simulate_chain(
    scenario: &Scenario,
    chain: &crate::model::Chain,
    index: usize,
    incident_ok: bool,
    opts: &McOptions,
    tick: &mut dyn FnMut(u64),
) -> (Vec<SteadyRun>, Vec<IncidentRun>) {
    let req = &scenario.request;
    let engine = Engine::for_chain(chain);
    let steady = engine.simulate_steady(req, chain, index as u64, opts, tick);
    let mut incident_runs = Vec::new();
    if let Some(incident) = scenario
        .incident
        .as_ref()
        .filter(|_| incident_ok)
        .map(|i| i.for_chain(chain))
    {
        let n = incident.requests();
        for pattern in Pattern::ALL {
            let ticks = &mut |k| tick(k * n);
            incident_runs.extend(engine.simulate_incident(
                req,
                chain,
                &incident,
                pattern,
                index as u64,
                opts,
                ticks,
            ));
        }
    }
    (steady, incident_runs)
}

/// Each chain's own rows' Monte Carlo figures: one part of weight 1.
fn fill_own_rows(
    report: &mut Report,
    scenario: &Scenario,
    steady_sims: &[Vec<SteadyRun>],
    incident_sims: &[Vec<IncidentRun>],
) {
    for (index, chain) in scenario.chains.iter().enumerate() {
        let base = steady::baseline(&scenario.request, chain);
        for m in &steady_sims[index] {
            let parts = [ChainShare::own(chain, m)];
            if let Some(row) = report
                .steady
                .iter_mut()
                .find(|r| r.chain == chain.name && r.pattern == m.base().pattern)
            {
                row.mc = Some(steady_mc(&parts, base));
            }
        }
        for m in &incident_sims[index] {
            let parts = [ChainShare::own(chain, m)];
            if let Some(row) = report
                .incident
                .iter_mut()
                .find(|r| r.chain == chain.name && r.pattern == m.base().pattern)
            {
                row.mc = Some(incident_mc(&parts));
            }
        }
    }
}

/// Every chain's part of `pattern` weighted by its traffic share, when every chain has the
/// pattern (as for the analytic blend); `pattern_of` names a simulation's pattern.
fn blend_parts<'a, T>(
    scenario: &'a Scenario,
    sims: &'a [Vec<T>],
    pattern: Pattern,
    pattern_of: impl Fn(&T) -> Pattern,
) -> Option<Vec<ChainShare<'a, T>>> {
    scenario
        .chains
        .iter()
        .zip(sims)
        .map(|(chain, sims)| {
            sims.iter()
                .find(|m| pattern_of(m) == pattern)
                .map(|sim| ChainShare {
                    chain,
                    share: chain.traffic_share.unwrap_or(0.0),
                    sim,
                })
        })
        .collect()
}

/// The blended rows' Monte Carlo figures: every chain's part, weighted by its traffic share.
fn fill_blended_rows(
    report: &mut Report,
    scenario: &Scenario,
    steady_sims: &[Vec<SteadyRun>],
    incident_sims: &[Vec<IncidentRun>],
) {
    for pattern in Pattern::ALL {
        let steady_parts = blend_parts(scenario, steady_sims, pattern, |m| m.base().pattern);
        if let (Some(parts), Some(row)) = (
            steady_parts,
            report
                .steady
                .iter_mut()
                .find(|r| r.chain == BLENDED && r.pattern == pattern),
        ) {
            let base = parts
                .iter()
                .map(|p| p.share * steady::baseline(&scenario.request, p.chain))
                .sum();
            row.mc = Some(steady_mc(&parts, base));
        }
        let incident_parts = blend_parts(scenario, incident_sims, pattern, |m| m.base().pattern);
        if let (Some(parts), Some(row)) = (
            incident_parts,
            report
                .incident
                .iter_mut()
                .find(|r| r.chain == BLENDED && r.pattern == pattern),
        ) {
            row.mc = Some(incident_mc(&parts));
        }
    }
}

/// One chain's part in a row's Monte Carlo figures: its own row (share 1), or a blended row
/// (its traffic share). Chains are simulated on streams of their own, so parts are
/// independent and their variances add ([`weighted_estimate`]).
struct ChainShare<'a, T> {
    chain: &'a crate::model::Chain,
    /// Weight of the chain's per-request figures: 1 for its own row, its traffic share in a
    /// blend. Incident windows are added with weight 1 whatever the share (each chain's window
    /// already holds its share of the requests).
    share: f64,
    sim: &'a T,
}

impl<'a, T> ChainShare<'a, T> {
    fn own(chain: &'a crate::model::Chain, sim: &'a T) -> Self {
        ChainShare {
            chain,
            share: 1.0,
            sim,
        }
    }
}

/// The steady-state Monte Carlo figures of `parts` (one chain, or the chains of a blend)
/// against `base`, the (blended) healthy-primary baseline in USD per request.
fn steady_mc(parts: &[ChainShare<'_, SteadyRun>], base: f64) -> SteadyMc {
    let weighted: Vec<(f64, &SteadyFigures<Sum>)> = parts
        .iter()
        .map(|p| (p.share, &p.sim.base().figures))
        .collect();
    let mut figures = SteadyFigures::combine(&weighted, weighted_mean_ci, |_, _| None);
    figures.vs_baseline = (base > 0.0).then(|| {
        let e = weighted_estimate(
            weighted.iter().map(|(w, f)| (*w, &f.cost_per_1k_usd)),
            Z95,
            1.0,
        );
        mean_ci(&Estimate {
            mean: e.mean / base - 1.0,
            lo: e.lo / base - 1.0,
            hi: e.hi / base - 1.0,
        })
    });
    let latency: Vec<(&Histogram, f64)> = parts
        .iter()
        .map(|p| (&p.sim.base().latency, p.share))
        .collect();
    let q = |x: f64| round_noise(mixture_quantile(&latency, x).unwrap_or(0.0));
    let policy: Option<Vec<(&ChainShare<'_, SteadyRun>, &sim::steady::policy::PolicyMc)>> = parts
        .iter()
        .map(|p| p.sim.policy().map(|m| (p, m)))
        .collect();
    SteadyMc {
        requests: parts.iter().map(|p| p.sim.base().requests()).sum(),
        figures,
        latency_p50_s: q(0.50),
        latency_p95_s: q(0.95),
        latency_p99_s: q(0.99),
        policy: policy.map(|ps| policy_figures(&ps)),
    }
}

/// The policy figures of `parts` simulated under their policies (every part has them): the
/// declared figures combined as the steady ones ([`weighted_mean_ci`]); `attempts_max` the
/// largest of the parts'; a chain's own attribution list and dead-time percentile, and on a
/// blend the attribution merged by model and no percentile (the simulators keep the dead-time
/// histograms to themselves).
fn policy_figures(
    parts: &[(&ChainShare<'_, SteadyRun>, &sim::steady::policy::PolicyMc)],
) -> SteadyPolicyFigures<MeanCi> {
    let sums: Vec<SteadyPolicyFigures<Sum>> = parts.iter().map(|(_, m)| m.figures()).collect();
    let weighted: Vec<(f64, &SteadyPolicyFigures<Sum>)> = parts
        .iter()
        .zip(&sums)
        .map(|((p, _), s)| (p.share, s))
        .collect();
    let own = parts.len() == 1;
    let mut figures = SteadyPolicyFigures::combine(&weighted, weighted_mean_ci, |_, xs| {
        own.then(|| round_noise(xs[0].1))
    });
    let answered =
        |p: &ChainShare<'_, SteadyRun>, m: &sim::steady::policy::PolicyMc| -> Vec<Answered> {
            p.chain
                .prices()
                .zip(&m.answered_by)
                .map(|(l, a)| Answered {
                    model: l.id.clone(),
                    share: round_noise(a.mean()),
                })
                .collect()
        };
    figures.attempts_max = parts.iter().map(|(_, m)| m.attempts_max).max().unwrap_or(0);
    figures.answered_by = match parts {
        [(p, m)] => answered(p, m),
        _ => {
            let lists: Vec<(f64, Vec<Answered>)> = parts
                .iter()
                .map(|(p, m)| (p.share, answered(p, m)))
                .collect();
            blend_answered(lists.iter().map(|(w, l)| (*w, l.as_slice())))
        }
    };
    figures
}

/// The incident Monte Carlo figures of `parts` (one chain, or the chains of a blend): the
/// chains' windows added up.
fn incident_mc(parts: &[ChainShare<'_, IncidentRun>]) -> IncidentMc {
    // The chains' windows add up: weight 1 each.
    let weighted: Vec<(f64, &IncidentFigures<Sum>)> =
        parts.iter().map(|p| (1.0, &p.sim.base().figures)).collect();
    let mut figures =
        IncidentFigures::combine(&weighted, weighted_mean_ci, |_, xs| weighted_exact(xs, 1.0));
    let normal: f64 = parts.iter().map(|p| p.sim.base().normal).sum();
    // Σ totalᵢ / Σ normalᵢ: each chain adds its total / Σ normal, taken from its own
    // multiplier where it has one (weight normalᵢ / Σ normal; exactly 1 for a chain's own row).
    let mult = (normal > 0.0).then(|| {
        weighted_estimate(
            parts.iter().map(|p| {
                let m = p.sim.base();
                match &m.figures.multiplier {
                    Some(multiplier) if m.normal > 0.0 => (m.normal / normal, multiplier),
                    _ => (1.0 / normal, &m.figures.total_usd),
                }
            }),
            Z95,
            1.0,
        )
    });
    figures.multiplier = mult.as_ref().map(mean_ci);
    let policy: Option<
        Vec<(
            &ChainShare<'_, IncidentRun>,
            &sim::incident::events::PolicyIncidentMc,
        )>,
    > = parts
        .iter()
        .map(|p| p.sim.policy().map(|m| (p, m)))
        .collect();
    IncidentMc {
        runs: parts
            .iter()
            .map(|p| p.sim.base().figures.total_usd.n)
            .min()
            .unwrap_or(0),
        figures,
        policy: policy.map(|ps| incident_policy_figures(&ps)),
    }
}

/// The incident policy figures of `parts` (every part has them): attempts on the dead provider
/// added up, dead time per request weighted by traffic share, and the breaker's probes and time
/// open for a chain's own row only (each chain's breaker is simulated apart, so their sum would
/// describe no breaker).
fn incident_policy_figures(
    parts: &[(
        &ChainShare<'_, IncidentRun>,
        &sim::incident::events::PolicyIncidentMc,
    )],
) -> IncidentPolicyFigures<MeanCi> {
    let own = parts.len() == 1;
    let sums: Vec<IncidentPolicyFigures<Sum>> = parts
        .iter()
        .map(|(p, m)| {
            m.sums(own && Engine::for_chain(p.chain).incident == IncidentEngine::Events)
                .map(|s| **s)
        })
        .collect();
    // The windows add up (weight 1 each) ...
    let windows: Vec<(f64, &IncidentPolicyFigures<Sum>)> = sums.iter().map(|s| (1.0, s)).collect();
    let mut figures = IncidentPolicyFigures::combine(&windows, weighted_mean_ci, |_, _| None);
    // ... but the dead time is per request: weighted by traffic share.
    figures.dead_time_mean_s = mean_ci(&weighted_estimate(
        parts.iter().map(|(p, m)| (p.share, &m.dead_time_mean)),
        Z95,
        1.0,
    ));
    figures
}

/// The links of `scenario` whose model cannot take its request profile, one warning per model
/// and kind naming its chains (`fallcost check` judges the same fallbacks: `context-window`,
/// `capability`, `retired`; docs/MODEL.md §11):
///
/// - a fallback whose context window the request overflows, or that lacks a capability the
///   request `requires` ([`crate::model::Link::refusal`]): the engines pass it over, and the
///   warning says so;
/// - the same of a chain's primary, or a model whose `deprecation_date` is on or before
///   `today` (`YYYY-MM-DD`): the provider refuses every request reaching it (a client error,
///   billed 0), which the engines do not price: the figures count its answers as served, and
///   the warning says so.
pub fn fit_warnings(scenario: &Scenario, today: &str) -> Vec<String> {
    // (model, why, passed over, chains)
    let mut by_model: Vec<(String, String, bool, Vec<String>)> = Vec::new();
    let mut note = |model: &str, why: String, passed: bool, chain: &str| match by_model
        .iter_mut()
        .find(|(m, _, p, _)| m == model && *p == passed)
    {
        Some((_, _, _, chains)) if !chains.iter().any(|c| c == chain) => {
            chains.push(chain.to_string())
        }
        Some(_) => {}
        None => by_model.push((model.to_string(), why, passed, vec![chain.to_string()])),
    };
    for chain in &scenario.chains {
        for (i, l) in chain.links.iter().enumerate() {
            let retired = l.fit.as_ref().and_then(|f| {
                let date = f.deprecation_date.as_ref()?;
                crate::model::fit::days_from(today, date)
                    .is_some_and(|d| d <= 0)
                    .then(|| format!("retired on {date}"))
            });
            let refused = l.refusal.as_ref().map(|r| r.describe());
            match (i, refused, retired) {
                (0, refused, retired) => {
                    let why: Vec<String> = refused.into_iter().chain(retired).collect();
                    if !why.is_empty() {
                        note(&l.price.id, why.join("; "), false, &chain.name);
                    }
                }
                // a fallback passed over answers nothing, retired or not
                (_, Some(refused), retired) => {
                    let why: Vec<String> = std::iter::once(refused).chain(retired).collect();
                    note(&l.price.id, why.join("; "), true, &chain.name);
                }
                (_, None, Some(retired)) => note(&l.price.id, retired, false, &chain.name),
                (_, None, None) => {}
            }
        }
    }
    by_model
        .into_iter()
        .map(|(model, why, passed, chains)| {
            let s = if chains.len() == 1 { "" } else { "s" };
            let chains = chains.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
            if passed {
                format!(
                    "{model} cannot take this request ({why}, as the price table states): the provider refuses every request that reaches it (a client error, billed 0), so these figures pass it over: the next link that can serve the request takes its place (refused/1k, refused_requests); chain{s} {chains}"
                )
            } else {
                format!(
                    "{model} cannot take this request ({why}, as the price table states): the provider refuses every request that reaches it (a client error, billed 0), but these figures price it as answering (not modelled for a primary or a retirement); chain{s} {chains}"
                )
            }
        })
        .collect()
}
