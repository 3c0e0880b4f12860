//! A tuned chain's verdict: the frontier, the recommendation and its runner-up, the
//! confirmation run, what a recommended breaker buys, and the reproduce lines and snippets
//! (module docs of [`super`]).

use rayon::prelude::*;

use super::{CONFIRM_SEED, Counts, Ctx, compare, scenario_of, steady_only, without_inert_breakers};
use crate::model::Scenario;
use crate::ops::inputs::Source;
use crate::sim::McOptions;
use crate::tune::frontier::{self, weigh};
use crate::tune::space;
use crate::tune::{
    BreakerBuys, ChainTune, Confirmation, Goals, IncidentEffect, P99_REQUESTS, P99_SEED, Point,
    QuotaRefusals, Usage, gateway,
};

/// The frontier, recommendation (ties by [`frontier::TIE_RULE`]), runner-up, confirmation,
/// what a recommended breaker buys, the reproduce lines and the snippets of one chain.
/// `p99_ci[i]`: the 95% interval of `points[i]`'s p99.
pub(super) fn finish(
    ctx: &Ctx,
    points: Vec<Point>,
    p99_ci: &[[f64; 2]],
    counts: Counts,
    shipped: Option<Point>,
    held: Vec<String>,
) -> crate::ops::OpsResult<ChainTune> {
    let (source, ask, name) = (ctx.source, ctx.ask, ctx.name);
    let front = frontier::pareto(&points);
    let (best, runner, tied) = frontier::recommend_tied(&points, p99_ci);
    let recommended = best.map(|i| points[i].clone());
    let runner_up = runner.map(|i| points[i].clone());
    let infeasible = best
        .is_none()
        .then(|| frontier::infeasible(&points, &ctx.goals));
    let reason = best.map(|b| reason(&points, b, &tied));
    let confirmation = match (&recommended, &runner_up) {
        (Some(r), Some(u)) if ask.confirm_batches >= 2 && !ctx.deadline.passed() => {
            Some(confirm(ctx, r, u)?)
        }
        _ => None,
    };
    let breaker_buys = match &recommended {
        Some(r) if ask.history.is_none() => breaker_buys(ctx, r)?,
        _ => None,
    };
    let quota_refusals = match &recommended {
        Some(r) if ask.history.is_none() => quota_refusals(ctx, shipped.as_ref(), r)?,
        _ => None,
    };
    let own = source.parse()?;
    let chain = own.chains.iter().find(|c| c.name == name).expect("tuned");
    let gateway = recommended.as_ref().map(|r| {
        gateway::snippets(
            r,
            chain.policy.timeout_s,
            chain.policy.retries,
            source.groups.iter().find(|g| g.chain == name),
        )
    });
    let (reproduce, reproduce_p99) = match &recommended {
        Some(r) => {
            let (a, b) = reproduce(ctx, r)?;
            (Some(a), b)
        }
        None => (None, None),
    };
    Ok(ChainTune {
        chain: name.to_string(),
        goals: ctx.goals,
        combinations: counts.combinations,
        priced: counts.priced,
        held,
        candidates: counts.candidates,
        screened: counts.screened,
        inert_breakers: counts.inert,
        recomputed: counts.recomputed,
        p99_exact: counts.p99_exact,
        shipped,
        frontier: front.into_iter().map(|i| points[i].clone()).collect(),
        recommended,
        reason,
        breaker_buys,
        quota_refusals,
        reproduce,
        reproduce_p99,
        runner_up,
        infeasible,
        confirmation,
        gateway,
    })
}

/// Why `points[best]` is the recommendation: alone beyond the intervals, or a tie won by
/// [`frontier::TIE_RULE`] (naming the tied settings, at most three).
fn reason(points: &[Point], best: usize, tied: &[usize]) -> String {
    let b = &points[best];
    if tied.is_empty() {
        return "the cheapest point that meets every constraint; no other is within its cost, availability and p99 intervals".into();
    }
    let names: Vec<String> = tied
        .iter()
        .take(3)
        .map(|&i| {
            let p = &points[i];
            format!(
                "{} {} ({} moving parts)",
                p.pattern.as_str(),
                if p.set.is_empty() {
                    "as shipped".to_string()
                } else {
                    p.set.join(" ")
                },
                frontier::moving_parts(p)
            )
        })
        .collect();
    format!(
        "tied within the intervals with {} other point{} ({}{}): the fewest moving parts wins ({}), then the lowest cost, then the first tried",
        tied.len(),
        if tied.len() == 1 { "" } else { "s" },
        names.join("; "),
        if tied.len() > 3 { "; ..." } else { "" },
        frontier::moving_parts(b)
    )
}

/// The `(KEY, VALUE)` pairs of a point's `set`.
fn pairs(set: &[String]) -> Vec<(String, String)> {
    set.iter()
        .filter_map(|s| s.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The shell lines that reproduce a point: `fallcost compare` on the same inputs, the
/// point's `--set`s, and the p99's Monte Carlo (`--mc` [`P99_REQUESTS`] `--seed`
/// [`P99_SEED`]); and, when the point has a breaker on an otherwise default policy (compare
/// then times it on the generic simulator, other draws), the line that prints its p99: the
/// same without the breaker, which the steady simulation does not see ([`steady_only`]).
///
/// Errors: the point's scenario fails to parse (not expected: it was priced).
fn reproduce(ctx: &Ctx, p: &Point) -> crate::ops::OpsResult<(String, Option<String>)> {
    let ask = ctx.ask;
    let line = |set: &[String]| {
        let mut w: Vec<String> = vec!["fallcost".into(), "compare".into()];
        w.extend(ask.inputs.iter().cloned());
        w.push("--chain".into());
        w.push(p.chain.clone());
        for s in set {
            w.push("--set".into());
            w.push(s.clone());
        }
        w.extend([
            "--mc".to_string(),
            P99_REQUESTS.to_string(),
            "--seed".to_string(),
            P99_SEED.to_string(),
        ]);
        crate::tune::shell_line(&w)
    };
    let mut without: Vec<String> = p
        .set
        .iter()
        .filter(|s| !s.starts_with("policy.breaker"))
        .cloned()
        .collect();
    without.push("policy.breaker=none".into());
    // compare's steady engine for the point: the generic one with a breaker; the fast path
    // for the same settings without it when they are the default policy
    let s = scenario_of(ctx.source, ctx.name, &pairs(&p.set))?;
    let differs =
        s.chains[0].policy.breaker.is_some() && steady_only(&s).chains[0].has_default_policy();
    Ok((line(&p.set), differs.then(|| line(&without))))
}

/// What the recommended point's circuit breaker buys in the reference incident, when it has
/// one: its figures against the same settings without it, both as `compare` computes them
/// (the breaker's by the fixed-seed event simulation, [`sim::expected`]; without it the
/// closed forms).
///
/// Errors: the scenario fails to parse (not expected: it was priced).
fn breaker_buys(ctx: &Ctx, p: &Point) -> crate::ops::OpsResult<Option<BreakerBuys>> {
    let with = pairs(&p.set);
    if !with
        .iter()
        .any(|(k, v)| k == space::THRESHOLD && v != "none")
    {
        return Ok(None);
    }
    let s = scenario_of(ctx.source, ctx.name, &with)?;
    if s.incident.is_none() {
        return Ok(None);
    }
    let free = steady_only(&s);
    let effect = |s: &Scenario| -> Option<IncidentEffect> {
        let report = compare::analytic_of(s, &[p.pattern]);
        let row = report.incident.iter().find(|r| r.pattern == p.pattern)?;
        Some(IncidentEffect {
            dead_time_mean_s: row.dead_time_mean_s,
            failed_attempts: row.analytic.wasted_attempts,
            dead_provider_attempts: row.breaker.as_ref().map(|b| b.dead_attempts),
            probes: row.breaker.as_ref().map(|b| b.probes),
            total_usd: row.analytic.total_usd,
            failed_requests: row.analytic.failed_requests,
            method: row.method.as_str(),
            counts_precision: row.simulated_counts_precision,
        })
    };
    Ok(effect(&s)
        .zip(effect(&free))
        .map(|(with, without)| BreakerBuys { with, without }))
}

/// What the quotas of the shipped chain and of the recommendation refuse in the reference
/// incident, each on its own point's pattern, as `compare` computes it; `None` when neither
/// has a rate-limited link or there is no incident.
///
/// Errors: the scenario fails to parse (not expected: it was priced).
fn quota_refusals(
    ctx: &Ctx,
    shipped: Option<&Point>,
    rec: &Point,
) -> crate::ops::OpsResult<Option<QuotaRefusals>> {
    let limited = |p: &Point| -> crate::ops::OpsResult<Vec<crate::report::RateLimited>> {
        let s = scenario_of(ctx.source, ctx.name, &pairs(&p.set))?;
        let chain = s.chains.iter().find(|c| c.name == ctx.name);
        if s.incident.is_none()
            || !chain.is_some_and(|c| c.links.iter().any(|l| l.capacity.is_some()))
        {
            return Ok(Vec::new());
        }
        let report = compare::analytic_of(&s, &[p.pattern]);
        Ok(report
            .incident
            .into_iter()
            .find(|r| r.chain == ctx.name && r.pattern == p.pattern)
            .and_then(|r| r.rate_limits)
            .unwrap_or_default()
            .into_iter()
            .filter(|l| l.capacity.is_some())
            .collect())
    };
    let recommended = limited(rec)?;
    let shipped = match shipped {
        Some(s) => limited(s)?,
        None => Vec::new(),
    };
    Ok(
        (!shipped.is_empty() || !recommended.is_empty()).then_some(QuotaRefusals {
            shipped,
            recommended,
        }),
    )
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
fn confirm(ctx: &Ctx, rec: &Point, runner: &Point) -> crate::ops::OpsResult<Confirmation> {
    let (source, ask, usage) = (ctx.source, ctx.ask, ctx.usage);
    let (a, b) = (
        point_scenario(source, rec)?,
        point_scenario(source, runner)?,
    );
    let (report_a, report_b) = (confirm_rows(&a, rec), confirm_rows(&b, runner));
    // With a history the incident figures stay the replay's: the batches pair the steady state.
    let windows = if a.incident.is_some() && ask.history.is_none() {
        4
    } else {
        0
    };
    let requests = 50_000;
    let cost = |analytic: &crate::report::Report, p: &Point, seed: u64| -> f64 {
        let opts = McOptions {
            requests,
            runs: windows,
            seed,
        };
        batch_cost(analytic, p, &opts, usage)
    };
    let d: Vec<f64> = (0..ask.confirm_batches)
        .into_par_iter()
        .map(|k| cost(&report_b, runner, CONFIRM_SEED + k) - cost(&report_a, rec, CONFIRM_SEED + k))
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

/// The scenario of tuned point `p`: its chain with its `--set` values.
fn point_scenario(source: &Source, p: &Point) -> crate::ops::OpsResult<Scenario> {
    let set: Vec<(String, String)> = p
        .set
        .iter()
        .filter_map(|s| s.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    scenario_of(source, &p.chain, &set)
}

/// The rows the confirmation batches fill, priced once per side, of the point's pattern only:
/// only their Monte Carlo figures are read. An inert breaker's analytic rows are the chain's
/// without it (the same bill; its own simulated figures, the longest step, are not needed
/// here); the batches simulate the scenario as it is, breaker included.
fn confirm_rows(s: &Scenario, p: &Point) -> crate::report::Report {
    let mut report = compare::analytic_of(&without_inert_breakers(s), &[p.pattern]);
    report.input = s.clone();
    report.omit_blended();
    report
}

/// One confirmation batch's cost per 1k requests of point `p` (USD), on `opts`' seed: the
/// steady state on common random numbers (both sides' steady simulation without the breaker,
/// which it does not see; with one, an otherwise default policy would take the generic
/// simulator and other draws), the incident windows with it.
fn batch_cost(analytic: &crate::report::Report, p: &Point, opts: &McOptions, usage: &Usage) -> f64 {
    let mut steady = analytic.clone();
    steady.input = steady_only(&analytic.input);
    compare::simulate(&mut steady, opts, &mut |_| {});
    let breaker = analytic
        .input
        .chains
        .iter()
        .any(|c| c.policy.breaker.is_some());
    let report = if breaker && opts.runs > 0 {
        let mut r = analytic.clone();
        let opts = McOptions {
            requests: 1_000,
            ..*opts
        };
        compare::simulate(&mut r, &opts, &mut |_| {});
        r
    } else {
        steady.clone()
    };
    let mut raw = p.raw.clone();
    if let Some(m) = steady
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
}
