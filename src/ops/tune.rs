//! The tune operation: price every combination of a [`Space`] on each chain, weigh it into a
//! year, and return the frontier and the recommendation ([`crate::tune::Tune`]).
//!
//! Every combination is the scenario with its `--set` pairs applied, validated and priced by
//! [`compare::analytic`], exactly as `compare --set … --chain CHAIN` prices it, so a point's
//! `set` reproduces its figures. Two figures have no closed form:
//!
//! - the p99 latency: the steady-state Monte Carlo with one seed for every candidate
//!   ([`P99_SEED`], [`P99_REQUESTS`] requests: common random numbers), once per distinct
//!   latency setting (the breaker and warm-fallback policy do not change steady latency);
//! - the incident figures of a chain with a circuit breaker, which `compare` simulates with a
//!   fixed seed ([`sim::expected`]). The search screens them first on [`SCREEN_WINDOWS`] windows
//!   of the same seed ([`sim::expected::screened`], common random numbers); a screened
//!   candidate that another dominates beyond both screens' 4.5-standard-error bounds is
//!   dropped, and every other is recomputed with `compare`'s own figures before the frontier
//!   and the recommendation are taken.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::compare;
use super::inputs::Source;
use crate::input::scenario;
use crate::model::{Pattern, Scenario};
use crate::report::Report;
use crate::sim::{self, McOptions};
use crate::tune::frontier::{self, weigh};
use crate::tune::space::{self, Combo, Dim, Space};
use crate::tune::{
    ChainTune, Confirmation, Goals, P99_REQUESTS, P99_SEED, Point, Raw, RawIncident,
    SECONDS_PER_MONTH, Tune, Usage, gateway,
};

/// Windows of the breaker screen: the first step of [`sim::expected::expected`]'s rule.
pub const SCREEN_WINDOWS: u64 = sim::expected::MIN_WINDOWS;

/// The seed of the first confirmation batch (batch b runs on `CONFIRM_SEED + b`).
pub const CONFIRM_SEED: u64 = 0xC0F1_2026;

/// What `fallcost tune` was asked (built from its flags by [`crate::cmd::tune`]).
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// The chains to tune (empty: every chain).
    pub chains: Vec<String>,
    /// `--candidate`: models the chain may be built from.
    pub candidates: Vec<String>,
    /// `--space FILE`'s keys and whether the defaults stay for keys it leaves out.
    pub space_file: Option<(Vec<Dim>, bool)>,
    /// `--vary`: keys whose values replace (or join) the space's.
    pub vary: Vec<Dim>,
    /// `--requests-per-month` (or fallcost.toml's `[usage]`).
    pub requests_per_month: Option<(f64, String)>,
    /// `--incidents-per-year`.
    pub incidents_per_year: f64,
    /// The constraints.
    pub goals: Goals,
    /// Paired Monte Carlo batches confirming the recommendation (0: none).
    pub confirm_batches: u64,
}

/// Run the search on `source` (the scenario as `compare` reads it).
///
/// Errors (exit 2): an invalid scenario or combination (naming the `--set` pairs), a
/// `--chain` the scenario lacks, a space over [`space::MAX_COMBINATIONS`], more incident
/// requests a year than the year has, `--budget` without traffic to weigh it by.
pub fn run(source: &Source, ask: &Ask) -> anyhow::Result<Tune> {
    let base = source.parse()?;
    let usage = usage(&base, ask)?;
    let names: Vec<String> = if ask.chains.is_empty() {
        base.chains.iter().map(|c| c.name.clone()).collect()
    } else {
        let mut s = base.clone();
        scenario::select_chains(&mut s, &ask.chains).map_err(anyhow::Error::msg)?;
        ask.chains.clone()
    };
    let mut chains = Vec::new();
    let mut dims = Vec::new();
    for name in &names {
        let chain = base
            .chains
            .iter()
            .find(|c| &c.name == name)
            .expect("selected above");
        let space = space_for(chain, &base, ask);
        let combos = space
            .combos(chain.policy.timeout_s)
            .map_err(anyhow::Error::msg)?;
        chains.push(tune_chain(source, name, &combos, &usage, ask)?);
        dims = space.dims;
    }
    Ok(Tune {
        fallcost_version: env!("CARGO_PKG_VERSION"),
        scenario: base.name.clone(),
        usage,
        goals: ask.goals,
        space: dims,
        chains,
    })
}

/// The year's traffic: `--requests-per-month`, else the incident's rate around the clock.
fn usage(base: &Scenario, ask: &Ask) -> anyhow::Result<Usage> {
    let (requests_per_month, source) = match (&ask.requests_per_month, &base.incident) {
        (Some((r, s)), _) => (*r, s.clone()),
        (None, Some(i)) => (
            i.requests_per_second * SECONDS_PER_MONTH,
            "the incident's requests_per_second around the clock".to_string(),
        ),
        (None, None) => {
            if ask.goals.budget_usd_month.is_some() {
                anyhow::bail!(
                    "--budget needs the monthly traffic: give --requests-per-month N (the scenario has no [incident] whose rate would stand for it)"
                );
            }
            (
                1e6,
                "not needed (no incident; per-1,000 figures)".to_string(),
            )
        }
    };
    if let Some(i) = &base.incident {
        let year = 12.0 * requests_per_month;
        let in_incidents = ask.incidents_per_year * i.requests() as f64;
        if in_incidents > year {
            anyhow::bail!(
                "{} incidents a year of {} requests each are more requests than the year's {year} ({source}); lower --incidents-per-year or raise --requests-per-month",
                ask.incidents_per_year,
                i.requests()
            );
        }
    }
    Ok(Usage {
        requests_per_month,
        incidents_per_year: ask.incidents_per_year,
        source,
    })
}

/// The space for `chain`: the defaults (or `--space`), then `--vary`.
fn space_for(chain: &crate::model::Chain, base: &Scenario, ask: &Ask) -> Space {
    let defaults = space::defaults(
        chain,
        base.incident.is_some(),
        base.request.prefix_tokens > 0.0,
        &ask.candidates,
    );
    let mut s = match &ask.space_file {
        None => defaults,
        Some((dims, keep)) => {
            let mut s = if *keep { defaults } else { Space::default() };
            for d in dims {
                s = s.with(d.clone());
            }
            s
        }
    };
    for d in &ask.vary {
        s = s.with(d.clone());
    }
    s
}

/// One combination, parsed and priced on the chain alone.
struct Priced {
    combo: Combo,
    scenario: Scenario,
    /// Per pattern the chain has: the raw figures without p99, and whether they were screened.
    rows: Vec<(Pattern, Raw, bool)>,
}

/// The scenario of `set` applied to `source`, with only chain `name`.
fn scenario_of(source: &Source, name: &str, set: &[(String, String)]) -> anyhow::Result<Scenario> {
    let mut overrides = source.overrides.clone();
    overrides.extend(set.iter().cloned());
    let mut s = source.parse_with(&overrides).map_err(|e| {
        let at: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        anyhow::anyhow!("{e} (tune at --set {})", at.join(" --set "))
    })?;
    scenario::select_chains(&mut s, &[name.to_string()]).map_err(anyhow::Error::msg)?;
    Ok(s)
}

/// The raw figures of every pattern of a one-chain `report` (p99 left 0).
fn raws(report: &Report, scenario: &Scenario) -> Vec<(Pattern, Raw)> {
    let chain = &scenario.chains[0];
    let req = &scenario.request;
    let base = req.like_for_like(&chain.links[0].price);
    let max_ratio = chain
        .links
        .iter()
        .map(|l| req.like_for_like(&l.price) / base)
        .fold(1.0, f64::max);
    let n = scenario
        .incident
        .as_ref()
        .map(|i| i.for_chain(chain).requests() as f64);
    report
        .steady
        .iter()
        .map(|s| {
            let incident = report
                .incident
                .iter()
                .find(|i| i.pattern == s.pattern)
                .map(|i| RawIncident {
                    total_usd: i.analytic.total_usd,
                    requests: n.unwrap_or(0.0),
                    failed_requests: i.analytic.failed_requests,
                    method: i.method.as_str(),
                    precision: i.simulated_precision,
                });
            (
                s.pattern,
                Raw {
                    steady_cost_per_1k_usd: s.analytic.cost_per_1k_usd,
                    steady_failed_per_1k: s.analytic.failed_per_1k,
                    dead_time_mean_s: s.policy.dead_time_mean_s,
                    p99_s: 0.0,
                    max_ratio,
                    traffic_share: chain.traffic_share.unwrap_or(1.0),
                    incident,
                },
            )
        })
        .collect()
}

/// Price `combo` on chain `name`: exactly with `compare`'s figures, or with the breaker's
/// incident figures screened when `screen` and the chain has a breaker.
fn price(source: &Source, name: &str, combo: &Combo, screen: bool) -> anyhow::Result<Priced> {
    let s = scenario_of(source, name, &combo.set)?;
    let chain = &s.chains[0];
    let breaker = chain.policy.breaker.is_some() && s.incident.is_some();
    let rows = if screen && breaker {
        let steady_only = Scenario {
            incident: None,
            ..s.clone()
        };
        let report = compare::analytic(&steady_only);
        let inc = s.incident.as_ref().expect("breaker").for_chain(chain);
        raws(&report, &s)
            .into_iter()
            .map(|(p, mut raw)| {
                raw.incident = sim::expected::screened(&s.request, chain, &inc, p, SCREEN_WINDOWS)
                    .map(|m| RawIncident {
                        total_usd: m.outcome.total,
                        requests: inc.requests() as f64,
                        failed_requests: m.outcome.failed_requests,
                        method: "screened",
                        precision: Some(m.precision),
                    });
                (p, raw, true)
            })
            .collect()
    } else {
        let mut report = compare::analytic(&s);
        report.omit_blended();
        raws(&report, &s)
            .into_iter()
            .map(|(p, r)| (p, r, false))
            .collect()
    };
    Ok(Priced {
        combo: combo.clone(),
        scenario: s,
        rows,
    })
}

/// The steady p99 of every pattern of a one-chain scenario, from the fixed-seed Monte Carlo.
fn p99s(s: &Scenario) -> BTreeMap<Pattern, f64> {
    let steady_only = Scenario {
        incident: None,
        ..s.clone()
    };
    let mut report = compare::analytic(&steady_only);
    report.omit_blended();
    let opts = McOptions {
        requests: P99_REQUESTS,
        runs: 0,
        seed: P99_SEED,
    };
    compare::simulate(&mut report, &opts, &mut |_| {});
    report
        .steady
        .iter()
        .filter_map(|r| Some((r.pattern, r.mc.as_ref()?.latency_p99_s)))
        .collect()
}

/// The settings that change steady latency (the breaker and the warm policy do not), and
/// whether the chain's policy is the default one (which picks the steady simulator, and so
/// its draws).
type LatencyKey = (Vec<(String, String)>, bool);

fn latency_key(p: &Priced) -> LatencyKey {
    let set = p
        .combo
        .set
        .iter()
        .filter(|(k, _)| !k.starts_with("policy.breaker") && !k.starts_with(space::WARM))
        .cloned()
        .collect();
    (set, p.scenario.chains[0].has_default_policy())
}

/// The `KEY=VALUE` strings of a combination.
fn set_strings(set: &[(String, String)]) -> Vec<String> {
    set.iter().map(|(k, v)| format!("{k}={v}")).collect()
}

/// Price and weigh every combination on chain `name`, keep the frontier, recommend.
fn tune_chain(
    source: &Source,
    name: &str,
    combos: &[Combo],
    usage: &Usage,
    ask: &Ask,
) -> anyhow::Result<ChainTune> {
    let priced: Vec<Priced> = combos
        .par_iter()
        .map(|c| price(source, name, c, true))
        .collect::<anyhow::Result<_>>()?;
    let latency = latencies(&priced);
    let shipped = shipped(source, name, usage, &ask.goals)?;
    // Without --availability, a point must answer at least as many requests as the shipped
    // settings: the cheapest setting that answers fewer is rarely the question.
    let goals = Goals {
        availability: ask
            .goals
            .availability
            .or(shipped.as_ref().map(|s| s.availability)),
        ..ask.goals
    };
    let shipped = shipped.map(|s| {
        let mut s = s;
        s.violations = frontier::violations(&s, &goals);
        s.feasible = s.violations.is_empty();
        s
    });
    let weigh_all = |priced: &[Priced]| -> Vec<(Point, bool)> {
        priced
            .iter()
            .flat_map(|p| {
                let key = latency_key(p);
                let models: Vec<String> = p.scenario.chains[0]
                    .links
                    .iter()
                    .map(|l| l.price.id.clone())
                    .collect();
                let latency = &latency[&key];
                p.rows
                    .iter()
                    .filter(|(pattern, _, _)| pattern.is_hedged() || p.combo.first_hedge)
                    .map(move |(pattern, raw, screened)| {
                        let mut raw = raw.clone();
                        raw.p99_s = latency.get(pattern).copied().unwrap_or(f64::NAN);
                        let point = weigh(
                            raw,
                            usage,
                            &goals,
                            name,
                            models.clone(),
                            *pattern,
                            set_strings(&p.combo.set),
                        );
                        (point, *screened)
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let weighed = weigh_all(&priced);
    let candidates = weighed.len();
    let screened = weighed.iter().filter(|(_, s)| *s).count();
    let keep = survivors(&weighed);
    // recompute the surviving screened combinations with compare's figures
    let again: Vec<usize> = (0..priced.len())
        .filter(|&i| {
            priced[i].rows.iter().any(|r| r.2)
                && keep
                    .iter()
                    .any(|&k| weighed[k].0.set == set_strings(&priced[i].combo.set))
        })
        .collect();
    let recomputed: Vec<Priced> = again
        .par_iter()
        .map(|&i| price(source, name, &priced[i].combo, false))
        .collect::<anyhow::Result<_>>()?;
    let mut points: Vec<Point> = keep
        .iter()
        .filter(|&&k| !weighed[k].1)
        .map(|&k| weighed[k].0.clone())
        .collect();
    points.extend(weigh_all(&recomputed).into_iter().map(|(p, _)| p));
    let ctx = Ctx {
        source,
        ask,
        usage,
        name,
        goals,
    };
    let counts = [combos.len(), candidates, screened, again.len()];
    finish(&ctx, points, counts, shipped)
}

/// What every step of one chain's search reads.
struct Ctx<'a> {
    source: &'a Source,
    ask: &'a Ask,
    usage: &'a Usage,
    name: &'a str,
    goals: Goals,
}

/// The p99 of every distinct latency setting of `priced`, computed once each.
fn latencies(priced: &[Priced]) -> BTreeMap<LatencyKey, BTreeMap<Pattern, f64>> {
    let mut first: BTreeMap<LatencyKey, usize> = BTreeMap::new();
    for (i, p) in priced.iter().enumerate() {
        first.entry(latency_key(p)).or_insert(i);
    }
    let keys: Vec<(LatencyKey, usize)> = first.into_iter().collect();
    keys.par_iter()
        .map(|(k, i)| (k.clone(), p99s(&priced[*i].scenario)))
        .collect()
}

/// The indices of `weighed` to keep: every exact point, and every screened point that no
/// point dominates beyond the screens' bounds, or that may be the cheapest feasible one.
fn survivors(weighed: &[(Point, bool)]) -> Vec<usize> {
    // (cost, availability) bounds: optimistic and pessimistic
    let margin = |p: &Point| -> (f64, f64) {
        let Some(i) = p.raw.incident.as_ref().filter(|i| i.method == "screened") else {
            return (0.0, 0.0);
        };
        let per_incident = p.cost_per_1k_usd - p.raw.steady_cost_per_1k_usd;
        let rel = i.precision.unwrap_or(f64::INFINITY).min(1e6);
        let total_share = if i.total_usd != 0.0 { 1.0 } else { 0.0 };
        // the premium moves with the window's bill; failures by their own count's noise
        let cost = rel * (per_incident.abs() + total_share * p.incident_premium_per_1k_usd.abs())
            + 1e-9 * p.cost_per_1k_usd.abs();
        let failed = rel * i.failed_requests
            + 4.5 * (i.failed_requests.max(1.0) / SCREEN_WINDOWS as f64).sqrt();
        let avail = (1.0 - p.availability) * failed / i.failed_requests.max(1.0);
        (cost, avail.max(1e-12))
    };
    let bounds: Vec<((f64, f64), (f64, f64))> = weighed
        .iter()
        .map(|(p, _)| {
            let (mc, ma) = margin(p);
            (
                (p.cost_per_1k_usd - mc, p.availability + ma),
                (p.cost_per_1k_usd + mc, p.availability - ma),
            )
        })
        .collect();
    let best_feasible = weighed
        .iter()
        .zip(&bounds)
        .filter(|((p, _), _)| p.feasible)
        .map(|(_, b)| b.1.0)
        .fold(f64::INFINITY, f64::min);
    (0..weighed.len())
        .filter(|&i| {
            let (p, screened) = &weighed[i];
            if !screened {
                return true;
            }
            let (opt_c, opt_a) = bounds[i].0;
            if p.feasible && opt_c <= best_feasible {
                return true;
            }
            !weighed.iter().zip(&bounds).any(|((q, _), b)| {
                let (pc, pa) = b.1;
                pc <= opt_c
                    && pa >= opt_a
                    && q.raw.p99_s <= p.raw.p99_s
                    && (pc < opt_c || pa > opt_a || q.raw.p99_s < p.raw.p99_s)
            })
        })
        .collect()
}

/// The scenario as given, on its first pattern with a fallback (sequential; no-fallback for
/// one model), weighed.
fn shipped(
    source: &Source,
    name: &str,
    usage: &Usage,
    goals: &Goals,
) -> anyhow::Result<Option<Point>> {
    let combo = Combo {
        set: Vec::new(),
        first_hedge: true,
    };
    let p = price(source, name, &combo, false)?;
    let models: Vec<String> = p.scenario.chains[0]
        .links
        .iter()
        .map(|l| l.price.id.clone())
        .collect();
    let want = if models.len() > 1 {
        Pattern::Sequential
    } else {
        Pattern::NoFallback
    };
    let latency = p99s(&p.scenario);
    Ok(p.rows
        .into_iter()
        .find(|r| r.0 == want)
        .map(|(pattern, mut raw, _)| {
            raw.p99_s = latency.get(&pattern).copied().unwrap_or(f64::NAN);
            weigh(raw, usage, goals, name, models, pattern, Vec::new())
        }))
}

/// The frontier, recommendation, runner-up, confirmation and snippets of one chain.
/// `counts`: combinations, candidates, screened and recomputed.
fn finish(
    ctx: &Ctx,
    points: Vec<Point>,
    counts: [usize; 4],
    shipped: Option<Point>,
) -> anyhow::Result<ChainTune> {
    let (source, ask, name) = (ctx.source, ctx.ask, ctx.name);
    let [combinations, candidates, screened, recomputed] = counts;
    let front = frontier::pareto(&points);
    let (best, runner) = frontier::recommend(&points);
    let recommended = best.map(|i| points[i].clone());
    let runner_up = runner.map(|i| points[i].clone());
    let infeasible = best
        .is_none()
        .then(|| frontier::infeasible(&points, &ctx.goals));
    let confirmation = match (&recommended, &runner_up) {
        (Some(r), Some(u)) if ask.confirm_batches >= 2 => Some(confirm(ctx, r, u)?),
        _ => None,
    };
    let gateway = match &recommended {
        Some(r) => {
            let own = source.parse()?;
            let chain = own.chains.iter().find(|c| c.name == name).expect("tuned");
            Some(gateway::snippets(
                r,
                chain.policy.timeout_s,
                chain.policy.retries,
            ))
        }
        None => None,
    };
    Ok(ChainTune {
        chain: name.to_string(),
        goals: ctx.goals,
        combinations,
        candidates,
        screened,
        recomputed,
        shipped,
        frontier: front.into_iter().map(|i| points[i].clone()).collect(),
        recommended,
        runner_up,
        infeasible,
        confirmation,
        gateway,
    })
}

/// Student's t at 97.5% for `df` degrees of freedom (2 to 30; the normal's 1.96 beyond).
fn t975(df: u64) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.saturating_sub(1) as usize)
        .copied()
        .unwrap_or(1.96)
}

/// The recommendation against the runner-up: `ask.confirm_batches` paired Monte Carlo
/// batches, each on its own seed shared by both (common random numbers).
fn confirm(ctx: &Ctx, rec: &Point, runner: &Point) -> anyhow::Result<Confirmation> {
    let (source, ask, usage) = (ctx.source, ctx.ask, ctx.usage);
    let scenario = |p: &Point| -> anyhow::Result<Scenario> {
        let set: Vec<(String, String)> = p
            .set
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        scenario_of(source, &p.chain, &set)
    };
    let (a, b) = (scenario(rec)?, scenario(runner)?);
    let windows = if a.incident.is_some() { 4 } else { 0 };
    let requests = 50_000;
    let cost = |s: &Scenario, p: &Point, seed: u64| -> f64 {
        let mut report = compare::analytic(s);
        report.omit_blended();
        let opts = McOptions {
            requests,
            runs: windows,
            seed,
        };
        compare::simulate(&mut report, &opts, &mut |_| {});
        let mut raw = p.raw.clone();
        if let Some(m) = report
            .steady
            .iter()
            .find(|r| r.pattern == p.pattern)
            .and_then(|r| r.mc.as_ref())
        {
            raw.steady_cost_per_1k_usd = m.figures.cost_per_1k_usd.mean;
            raw.steady_failed_per_1k = m.figures.failed_per_1k.mean;
        }
        if let (Some(inc), Some(m)) = (
            raw.incident.as_mut(),
            report
                .incident
                .iter()
                .find(|r| r.pattern == p.pattern)
                .and_then(|r| r.mc.as_ref()),
        ) {
            inc.total_usd = m.figures.total_usd.mean;
            inc.failed_requests = m.figures.failed_requests.mean;
        }
        weigh(raw, usage, &Goals::default(), "", vec![], p.pattern, vec![]).cost_per_1k_usd
    };
    let d: Vec<f64> = (0..ask.confirm_batches)
        .into_par_iter()
        .map(|k| cost(&b, runner, CONFIRM_SEED + k) - cost(&a, rec, CONFIRM_SEED + k))
        .collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = t975(ask.confirm_batches - 1) * (var / n).sqrt();
    let ci95 = [mean - half, mean + half];
    Ok(Confirmation {
        batches: ask.confirm_batches,
        requests,
        windows,
        saving_per_1k_usd: mean,
        ci95,
        beyond_noise: ci95[0] > 0.0 || ci95[1] < 0.0,
    })
}
