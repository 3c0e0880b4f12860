//! The breaker screen's rounds of a tuned chain (module docs of [`super`]): the candidates
//! weighed, their bounds, the survivors walked along `compare`'s stopping rule, and the kept
//! combinations with `compare`'s figures.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::{
    Ctx, LatencyKey, Priced, SCREEN_WINDOWS, Weighed, latency_key, price_of, screened_incident,
    weigh_priced,
};
use crate::model::Pattern;
use crate::sim::{
    self,
    expected::{Rule, Simulated},
};
use crate::tune::Point;
use crate::tune::screen::{self, Bounds, Diff, Paired};

/// Student's t over the normal's 4.5 at the same two-sided coverage (6.8·10⁻⁶) for the first
/// screen's [`SCREEN_WINDOWS`] − 1 = 7 degrees of freedom: t₇ = 11.9. Its precision, a 4.5
/// standard-error half-width from 8 windows' spread, is widened by this much.
const FIRST_SCREEN_T: f64 = 2.64;

/// Every candidate of `priced` weighed with the p99s `latency` (the screen's or exact),
/// those of `only` if given.
pub(super) fn weigh_all(
    priced: &[Priced],
    latency: &BTreeMap<LatencyKey, BTreeMap<Pattern, (f64, [f64; 2])>>,
    ctx: &Ctx,
    only: Option<&BTreeSet<(usize, Pattern)>>,
) -> Vec<Weighed> {
    priced
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            weigh_priced(
                i,
                p,
                &latency[&latency_key(p)],
                ctx.usage,
                &ctx.goals,
                ctx.name,
            )
        })
        .filter(|w| only.is_none_or(|o| o.contains(&(w.combo, w.point.pattern))))
        .collect()
}

/// The screen's rounds: the candidates no other beats beyond the bounds ([`screen::survivors`])
/// stay, and those of them whose breaker figures are still screened take the next step of
/// `compare`'s stopping rule ([`Rule::advance`] to [`Rule::next_check`]: the same windows, so
/// nothing is simulated twice), until every one left has `compare`'s own figures (its rule
/// finished; they are remembered for `compare`'s memo, [`sim::expected::remember`]) or the
/// budget is spent. Returns the candidates kept, as (combination, pattern).
pub(super) fn screen_rounds(
    ctx: &Ctx,
    priced: &mut [Priced],
    quick: &BTreeMap<LatencyKey, BTreeMap<Pattern, (f64, [f64; 2])>>,
) -> crate::ops::OpsResult<BTreeSet<(usize, Pattern)>> {
    let mut alive: Option<BTreeSet<(usize, Pattern)>> = None;
    loop {
        let weighed = weigh_all(priced, quick, ctx, alive.as_ref());
        let bounded: Vec<(Point, Bounds)> = weighed
            .iter()
            .map(|w| (w.point.clone(), bounds(w)))
            .collect();
        let kept: BTreeSet<(usize, Pattern)> = {
            let diff = differences(priced, &weighed, &bounded, ctx);
            screen::survivors_with(&bounded, &ctx.goals, &diff)
                .into_iter()
                .map(|k| (weighed[k].combo, weighed[k].point.pattern))
                .collect()
        };
        let mut step: Vec<(usize, Pattern, Rule, Option<Simulated>)> = Vec::new();
        for &(i, pattern) in &kept {
            if let Some(r) = priced[i]
                .rules
                .iter()
                .find(|r| r.0 == pattern && r.1.finished.is_none())
            {
                step.push((i, pattern, r.1.clone(), None));
            }
        }
        alive = Some(kept);
        if step.is_empty() || ctx.deadline.passed() {
            break;
        }
        ctx.progress.add_total(step.len() as u64);
        let snapshot: &[Priced] = priced;
        // Candidates whose simulations are one ([`sim::unread`]: they differ only in settings
        // the simulator does not read) and stand at the same window advance once: the first
        // of each group, its rule and figures then copied to the others.
        let groups = one_simulation(snapshot, &step);
        let mut leaders: Vec<&mut (usize, Pattern, Rule, Option<Simulated>)> = step
            .iter_mut()
            .enumerate()
            .filter(|(k, _)| groups[*k] == *k)
            .map(|(_, x)| x)
            .collect();
        leaders.par_iter_mut().for_each(|(i, pattern, rule, out)| {
            if !ctx.deadline.passed() {
                let s = &snapshot[*i].scenario;
                let chain = &s.chains[0];
                let inc = s.incident.as_ref().expect("screened").for_chain(chain);
                let to = rule.next_check();
                *out = rule.advance(&s.request, chain, &inc, *pattern, to);
            }
            ctx.progress.step();
        });
        for k in 0..step.len() {
            let lead = groups[k];
            if lead != k {
                step[k].2 = step[lead].2.clone();
                step[k].3 = step[lead].3.clone();
                ctx.progress.step();
            }
        }
        for (i, pattern, rule, figures) in step {
            if let Some(f) = figures {
                update_screened(&mut priced[i], pattern, rule, f);
            }
        }
    }
    Ok(alive.unwrap_or_default())
}

/// Per candidate of `step`, the first candidate of `step` whose simulation it shares: the
/// same [`sim::unread::key`] (the same simulation whatever the settings it does not read) and
/// the same windows run (so the same rule state). Itself for the first of each group, and for
/// a candidate whose breaker is inert: its rule's finished bill is the closed forms'
/// ([`sim::expected::inert_bill`]), which read the retries and the timeout (`price_of` screens
/// none such today; this keeps the copy exact if it ever does).
fn one_simulation(
    priced: &[Priced],
    step: &[(usize, Pattern, Rule, Option<Simulated>)],
) -> Vec<usize> {
    let mut first: BTreeMap<(String, u64), usize> = BTreeMap::new();
    step.iter()
        .enumerate()
        .map(|(k, (i, pattern, rule, _))| {
            let s = &priced[*i].scenario;
            let chain = &s.chains[0];
            let inc = s.incident.as_ref().expect("screened").for_chain(chain);
            if crate::model::incident::inert_breaker(chain, &inc).is_some() {
                return k;
            }
            let key = sim::unread::key(&s.request, chain, &inc, *pattern);
            *first.entry((key, rule.windows())).or_insert(k)
        })
        .collect()
}

/// The bounds on two weighed candidates' differences ([`screen::survivors_with`]): each one's
/// own bounds, their p99s equal where they are timed on the same settings and pattern, and
/// where both incidents are screened their windows paired ([`screen::paired`], common random
/// numbers) and weighed into the year as [`crate::tune::frontier::weigh`] does: with N the
/// year's requests, r incidents of n requests, k = 1000·r/N,
/// Δcost = Δsteady·(1 − r·n/N) + k·Δbill and Δavailability = −((N − r·n)·Δf + r·Δfailed)/N
/// (f the steady failed share per request).
fn differences<'a>(
    priced: &'a [Priced],
    weighed: &'a [Weighed],
    bounded: &'a [(Point, Bounds)],
    ctx: &'a Ctx,
) -> impl Fn(usize, usize) -> Diff + 'a {
    let keys: Vec<(LatencyKey, Pattern)> = weighed
        .iter()
        .map(|w| (latency_key(&priced[w.combo]), w.point.pattern))
        .collect();
    let series: Vec<Option<Paired<'a>>> = weighed
        .iter()
        .map(|w| {
            w.screened?;
            let (_, rule) = priced[w.combo]
                .rules
                .iter()
                .find(|r| r.0 == w.point.pattern)?;
            Some(Paired::new(
                rule.per_window(),
                rule.least_windows(),
                rule.finished.is_some(),
            ))
        })
        .collect();
    move |a: usize, b: usize| {
        let same_p99 = keys[a] == keys[b];
        let own = Diff::of_bounds(&bounded[a].1, &bounded[b].1, same_p99);
        let (Some(sa), Some(sb)) = (&series[a], &series[b]) else {
            return own;
        };
        let Some([bill, failed]) = screen::paired(sa, sb) else {
            return own;
        };
        let (ra, rb) = (&weighed[a].point.raw, &weighed[b].point.raw);
        let year = 12.0 * ctx.usage.requests_per_month * ra.traffic_share;
        let r = ctx.usage.incidents_per_year;
        let n = ra.incident.as_ref().map_or(0.0, |i| i.requests);
        if year <= 0.0 || ra.traffic_share != rb.traffic_share {
            return own;
        }
        let k = 1000.0 * r / year;
        let steady = (ra.steady_cost_per_1k_usd - rb.steady_cost_per_1k_usd) * (1.0 - r * n / year);
        let df = (ra.steady_failed_per_1k - rb.steady_failed_per_1k) / 1000.0;
        let steady_failed = (year - r * n).max(0.0) * df;
        let paired = Diff {
            cost: [steady + k * bill[0], steady + k * bill[1]],
            availability: [
                -(steady_failed + r * failed[1]) / year,
                -(steady_failed + r * failed[0]) / year,
            ],
            same_p99,
        };
        own.within(paired)
    }
}

/// `p`'s screened row of `pattern` from `figures`, `rule`'s so far (or `compare`'s, which are
/// remembered for its memo when the rule has finished).
fn update_screened(p: &mut Priced, pattern: Pattern, rule: Rule, figures: Simulated) {
    let s = &p.scenario;
    let chain = &s.chains[0];
    let inc = s.incident.as_ref().expect("screened").for_chain(chain);
    if let Some(f) = &rule.finished {
        sim::expected::remember(&s.request, chain, &inc, pattern, f.clone());
    }
    if let Some(row) = p.rows.iter_mut().find(|r| r.0 == pattern) {
        row.1.incident = Some(screened_incident(&figures, &inc));
        row.2 = Some(figures.windows);
    }
    if let Some(r) = p.rules.iter_mut().find(|r| r.0 == pattern) {
        r.1 = rule;
    }
}

/// The kept combinations with `compare`'s figures for their kept patterns: a screened one
/// priced again ([`price_of`], its rules' figures now in `compare`'s memo), the others as
/// priced; a screened one the budget left unfinished is left out. And how many were priced
/// again.
pub(super) fn exact_of(
    ctx: &Ctx,
    priced: &[Priced],
    kept: &BTreeSet<(usize, Pattern)>,
) -> crate::ops::OpsResult<(Vec<(usize, Priced)>, usize)> {
    let combos_kept: BTreeSet<usize> = kept.iter().map(|k| k.0).collect();
    let patterns =
        |i: usize| -> Vec<Pattern> { kept.iter().filter(|k| k.0 == i).map(|k| k.1).collect() };
    let again: Vec<usize> = combos_kept
        .iter()
        .copied()
        .filter(|&i| priced[i].rows.iter().any(|r| r.2.is_some()))
        .collect();
    ctx.progress.add_total(again.len() as u64);
    let recomputed: BTreeMap<usize, Option<Priced>> = again
        .par_iter()
        .map(|&i| {
            let done = priced[i]
                .rules
                .iter()
                .filter(|r| patterns(i).contains(&r.0))
                .all(|r| r.1.finished.is_some());
            let p = if done {
                Some(price_of(
                    ctx.source,
                    ctx.name,
                    &priced[i].combo,
                    false,
                    ctx.ask.history.as_ref(),
                    &patterns(i),
                )?)
            } else {
                None
            };
            ctx.progress.step();
            Ok((i, p))
        })
        .collect::<crate::ops::OpsResult<Vec<_>>>()?
        .into_iter()
        .collect();
    let mut recomputed = recomputed;
    let exact = combos_kept
        .iter()
        .filter_map(|&i| match recomputed.remove(&i) {
            Some(p) => p.map(|p| (i, p)),
            None => Some((i, priced[i].clone())),
        })
        .collect();
    Ok((exact, again.len()))
}

/// The bounds of a weighed candidate: its p99's from the screen, and with a screened
/// incident the cost and availability within the screen's 4.5-standard-error precision.
fn bounds(w: &Weighed) -> Bounds {
    let p = &w.point;
    let mut b = Bounds::exact(p);
    b.p99_s = w.p99;
    if let Some(i) = p.raw.incident.as_ref().filter(|i| i.method == "screened") {
        let windows = w.screened.unwrap_or(SCREEN_WINDOWS).max(2);
        // fewer windows than the rule's first step: Student's t for their spread, and no
        // bound at all where they show none (a rare event not seen yet)
        let first = windows < sim::expected::MIN_WINDOWS;
        let widen = |precision: Option<f64>| {
            match precision {
                Some(r) if first && r > 0.0 => r * FIRST_SCREEN_T,
                Some(r) if !first => r,
                _ => f64::INFINITY,
            }
            .min(1e6)
        };
        // failures by their own bound, not the bill's
        let rel = widen(i.failed_precision.or(i.precision));
        // the cost moves with the window's total alone: its own bound, not the rule's (the
        // larger of the total's and the window's)
        let bill = widen(i.total_precision.or(i.precision));
        // the premium moves with the window's whole bill; failures by their own count's noise
        let cost = bill * p.incident_bill_per_1k_usd.abs() + 1e-9 * p.cost_per_1k_usd.abs();
        let failed =
            rel * i.failed_requests + 4.5 * (i.failed_requests.max(1.0) / windows as f64).sqrt();
        let avail = ((1.0 - p.availability) * failed / i.failed_requests.max(1.0)).max(1e-12);
        b.cost = [p.cost_per_1k_usd - cost, p.cost_per_1k_usd + cost];
        b.availability = [p.availability + avail, p.availability - avail];
        // the final precision is the rule's 1% or, stopped by its budget, at most today's
        let final_precision = i.precision.map_or(f64::INFINITY, |r| r.max(0.01));
        b.tie = 1e-9 * (p.cost_per_1k_usd.abs() + cost)
            + final_precision * (p.incident_bill_per_1k_usd.abs() + cost);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::frontier::weigh;
    use crate::tune::{Goals, Raw, RawIncident, Usage};

    /// A screened incident billing $419.35 over 11,160 requests at $34.80 per 1,000 steady
    /// (premium $31.00), its total's own precision 0.19% and the rule's 4% (the larger of the
    /// total's and the window's), on 128 windows: the cost's bound is 0.19% of the whole bill per 1,000 requests
    /// of the year (2,628,000 a month, one incident a year), not 4% of it, nor of the premium.
    #[test]
    fn the_screens_cost_bound_is_the_bills_own_precision_of_the_whole_bill() {
        let usage = Usage {
            requests_per_month: 2_628_000.0,
            incidents_per_year: 1.0,
            source: "test".into(),
            history: Vec::new(),
        };
        let raw = Raw {
            steady_cost_per_1k_usd: 34.8,
            steady_failed_per_1k: 0.0,
            dead_time_mean_s: 0.0,
            p99_s: 5.0,
            max_ratio: 1.0,
            traffic_share: 1.0,
            incident: Some(RawIncident {
                total_usd: 419.35,
                requests: 11_160.0,
                failed_requests: 2053.0,
                method: "screened",
                precision: Some(0.04),
                total_precision: Some(0.0019),
                failed_precision: Some(0.04),
            }),
        };
        let point = weigh(
            raw,
            &usage,
            &Goals::default(),
            "c",
            vec![],
            Pattern::Sequential,
            vec![],
        );
        let w = Weighed {
            point,
            combo: 0,
            screened: Some(128),
            p99: [5.0, 5.0],
        };
        let b = bounds(&w);
        let bill_per_1k = 1000.0 * 419.35 / (12.0 * 2_628_000.0);
        let half = 0.0019 * bill_per_1k + 1e-9 * w.point.cost_per_1k_usd;
        assert!((b.cost[1] - w.point.cost_per_1k_usd - half).abs() < 1e-12);
        assert!((w.point.cost_per_1k_usd - b.cost[0] - half).abs() < 1e-12);
        // on the first screen's 8 windows, widened by Student's t
        let w8 = Weighed {
            screened: Some(8),
            ..w
        };
        let b8 = bounds(&w8);
        let half8 = 0.0019 * FIRST_SCREEN_T * bill_per_1k + 1e-9 * w8.point.cost_per_1k_usd;
        assert!((b8.cost[1] - w8.point.cost_per_1k_usd - half8).abs() < 1e-12);
    }
}
