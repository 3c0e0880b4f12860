//! The year a candidate buys, its constraints, the Pareto frontier and the recommendation.
//!
//! A year of a chain's traffic is N = 12 · requests per month · traffic share requests, of
//! which r · n fall in the reference incident (r incidents a year of n requests each). With
//! the steady cost c and failed share f per request and the incident's bill B and failed
//! requests F:
//!
//! ```text
//! premium      = B − n · c                       the incident's bill over the same requests' steady bill
//! cost per 1k  = 1000 · (c + r · premium / N)
//! availability = 1 − ((N − r·n) · f + r · F) / N
//! ```
//!
//! The frontier is the non-dominated set of (cost ↓, availability ↑, p99 ↓): a point is on it
//! when no other point is at least as good in all three and better in one; of points equal in
//! all three the first tried stands for them. The recommendation is the cheapest point that
//! meets every constraint, with ties within the figures' intervals broken by [`TIE_RULE`]
//! ([`recommend_tied`]).

use crate::number::{Digits, percent};
use serde::Serialize;

use super::{Goals, Point, Raw, Usage};
use crate::model::Pattern;
use crate::number::round_noise;

/// Weigh `raw` (one pattern on one chain) into a [`Point`] and check `goals`.
pub fn weigh(
    raw: Raw,
    usage: &Usage,
    goals: &Goals,
    chain: &str,
    models: Vec<String>,
    pattern: Pattern,
    set: Vec<String>,
) -> Point {
    let year = 12.0 * usage.requests_per_month * raw.traffic_share;
    let c = raw.steady_cost_per_1k_usd / 1000.0;
    let f = raw.steady_failed_per_1k / 1000.0;
    let r = usage.incidents_per_year;
    let (bill, premium, failed_in_year, incident_availability) = match &raw.incident {
        Some(i) => (
            i.total_usd,
            i.total_usd - i.requests * c,
            (year - r * i.requests).max(0.0) * f + r * i.failed_requests,
            Some(1.0 - i.failed_requests / i.requests.max(1.0)),
        ),
        None => (0.0, 0.0, year * f, None),
    };
    let per_1k = |usd: f64| {
        if year > 0.0 {
            1000.0 * r * usd / year
        } else {
            0.0
        }
    };
    let (bill_per_1k, per_1k) = (per_1k(bill), per_1k(premium));
    let cost = raw.steady_cost_per_1k_usd + per_1k;
    let availability = if year > 0.0 {
        1.0 - failed_in_year / year
    } else {
        1.0 - f
    };
    let mut p = Point {
        chain: chain.to_string(),
        models,
        pattern,
        set,
        cost_per_1k_usd: round_noise(cost),
        incident_premium_per_1k_usd: round_noise(per_1k),
        incident_bill_per_1k_usd: bill_per_1k,
        monthly_usd: round_noise(cost * year / 12.0 / 1000.0),
        availability: round_noise(availability),
        steady_availability: round_noise(1.0 - f),
        incident_availability: incident_availability.map(round_noise),
        feasible: true,
        violations: Vec::new(),
        raw,
    };
    p.violations = violations(&p, goals);
    p.feasible = p.violations.is_empty();
    p
}

/// The constraints `p` breaks, each as `name value vs limit`.
pub fn violations(p: &Point, goals: &Goals) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(a) = goals.availability
        && p.availability < a
    {
        v.push(format!(
            "availability {} < {}",
            percent(p.availability, Digits::AtMost(4), false),
            percent(a, Digits::AtMost(4), false)
        ));
    }
    if let Some(t) = goals.p99_s
        && p.raw.p99_s > t
    {
        v.push(format!("p99 {:.2} s > {t} s", p.raw.p99_s));
    }
    if let Some(m) = goals.max_ratio
        && p.raw.max_ratio > m * (1.0 + 1e-9)
    {
        v.push(format!("max-ratio {:.2}x > {m}x", p.raw.max_ratio));
    }
    if let Some(b) = goals.budget_usd_month
        && p.monthly_usd > b
    {
        v.push(format!("budget ${:.2}/month > ${b}/month", p.monthly_usd));
    }
    v
}

/// Whether `a` dominates `b`: at least as good in cost, availability and p99, better in one.
pub fn dominates(a: &Point, b: &Point) -> bool {
    let ge = a.cost_per_1k_usd <= b.cost_per_1k_usd
        && a.availability >= b.availability
        && a.raw.p99_s <= b.raw.p99_s;
    ge && (a.cost_per_1k_usd < b.cost_per_1k_usd
        || a.availability > b.availability
        || a.raw.p99_s < b.raw.p99_s)
}

/// Whether `a` and `b` are equal in all three objectives.
fn same(a: &Point, b: &Point) -> bool {
    a.cost_per_1k_usd == b.cost_per_1k_usd
        && a.availability == b.availability
        && a.raw.p99_s == b.raw.p99_s
}

/// How [`recommend_tied`] breaks ties, as the output states it.
pub const TIE_RULE: &str = "points whose cost and availability are within each other's intervals (exact analytic figures: equal to 1e-9; a simulated incident: the 4.5-standard-error precision of its bill, of the whole window's bill, and of its failed requests, of the unanswered share) and whose p99 95% intervals overlap are a tie; a tie goes to the fewest moving parts (a breaker, each retry, a hedge delay on a hedged pattern, a hedged pattern, a warm policy other than always, each fallback used), then the lowest cost, then the first tried";

/// The moving parts of a point, for [`TIE_RULE`]: a breaker, each retry, a hedge delay on a
/// hedged pattern, a hedged pattern, a warm policy other than `always`, each fallback the
/// pattern uses.
pub fn moving_parts(p: &Point) -> u32 {
    let value = |key: &str| {
        p.set
            .iter()
            .find_map(|s| s.strip_prefix(key)?.strip_prefix('='))
    };
    let mut n = 0;
    if value(super::space::THRESHOLD).is_some_and(|v| v != "none") {
        n += 1;
    }
    n += value(super::space::RETRIES)
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(0);
    if p.pattern.is_hedged() {
        n += 1;
        if value(super::space::HEDGE_DELAY).is_some_and(|v| v != "none") {
            n += 1;
        }
    }
    if value(super::space::WARM).is_some_and(|v| v != "always")
        || value(&format!("{}.after", super::space::WARM)).is_some()
    {
        n += 1;
    }
    if p.pattern != Pattern::NoFallback {
        n += p.models.len().saturating_sub(1) as u32;
    }
    n
}

/// A point's incident figures where they are simulated (`None` when exact).
fn simulated(p: &Point) -> Option<&crate::tune::RawIncident> {
    p.raw.incident.as_ref().filter(|i| i.method != "analytic")
}

/// The relative precision of a point's simulated incident bill (`compare`'s
/// `simulated_precision`; 0 when exact).
fn precision(p: &Point) -> f64 {
    simulated(p).and_then(|i| i.precision).unwrap_or(0.0)
}

/// The relative precision of a point's simulated failed requests
/// ([`crate::sim::expected::Simulated::failed_precision`]), else the bill's; 0 when exact.
fn failed_precision(p: &Point) -> f64 {
    simulated(p)
        .and_then(|i| i.failed_precision.or(i.precision))
        .unwrap_or(0.0)
}

/// A point's share of a cost tie's tolerance, USD per 1,000 requests: 1e-9 of its cost, and a
/// simulated incident's precision of its whole bill (of which the premium is what is left
/// over the steady bill of its requests, often a small part).
pub fn cost_tolerance(p: &Point) -> f64 {
    1e-9 * p.cost_per_1k_usd.abs() + precision(p) * p.incident_bill_per_1k_usd.abs()
}

/// Whether `a` and `b` cost the same within their intervals.
fn cost_tie(a: &Point, b: &Point) -> bool {
    (a.cost_per_1k_usd - b.cost_per_1k_usd).abs() <= cost_tolerance(a) + cost_tolerance(b)
}

/// Whether `a` and `b` answer the same share within their intervals (a simulated incident's:
/// its failed requests' precision of the unanswered share).
fn availability_tie(a: &Point, b: &Point) -> bool {
    let tol = |p: &Point| 1e-12 + failed_precision(p) * (1.0 - p.availability);
    (a.availability - b.availability).abs() <= tol(a) + tol(b)
}

/// Whether the p99 intervals `a` and `b` overlap.
fn p99_tie(a: [f64; 2], b: [f64; 2]) -> bool {
    a[0] <= b[1] && b[0] <= a[1]
}

/// The recommendation and the runner-up by [`TIE_RULE`], and the points tied with the
/// recommendation (itself excluded). `p99_ci[i]`: the 95% interval of `points[i]`'s p99.
///
/// Of the feasible points, cheapest first: those tied in cost with the cheapest, of them those
/// tied in availability with the most available, of them those whose p99 interval overlaps
/// the lowest p99's; the fewest moving parts among these, then the lowest cost, then the
/// first tried. The runner-up is the same choice among the rest, less the points equal to
/// the recommendation in all three figures (a setting that changes nothing is no
/// alternative).
pub fn recommend_tied(
    points: &[Point],
    p99_ci: &[[f64; 2]],
) -> (Option<usize>, Option<usize>, Vec<usize>) {
    let mut feasible: Vec<usize> = (0..points.len()).filter(|&i| points[i].feasible).collect();
    feasible.sort_by(|&a, &b| {
        let (p, q) = (&points[a], &points[b]);
        p.cost_per_1k_usd
            .total_cmp(&q.cost_per_1k_usd)
            .then(q.availability.total_cmp(&p.availability))
            .then(p.raw.p99_s.total_cmp(&q.raw.p99_s))
            .then(a.cmp(&b))
    });
    let ci = |i: usize| p99_ci.get(i).copied().unwrap_or([points[i].raw.p99_s; 2]);
    let choose = |among: &[usize]| -> Option<(usize, Vec<usize>)> {
        let &c0 = among.first()?;
        let t1: Vec<usize> = among
            .iter()
            .copied()
            .filter(|&i| cost_tie(&points[i], &points[c0]))
            .collect();
        let a0 = *t1
            .iter()
            .max_by(|&&a, &&b| {
                points[a]
                    .availability
                    .total_cmp(&points[b].availability)
                    .then(b.cmp(&a))
            })
            .expect("c0 is tied with itself");
        let t2: Vec<usize> = t1
            .into_iter()
            .filter(|&i| availability_tie(&points[i], &points[a0]))
            .collect();
        let p0 = *t2
            .iter()
            .min_by(|&&a, &&b| {
                points[a]
                    .raw
                    .p99_s
                    .total_cmp(&points[b].raw.p99_s)
                    .then(a.cmp(&b))
            })
            .expect("a0 is tied with itself");
        let t3: Vec<usize> = t2.into_iter().filter(|&i| p99_tie(ci(i), ci(p0))).collect();
        let best = *t3
            .iter()
            .min_by(|&&a, &&b| {
                moving_parts(&points[a])
                    .cmp(&moving_parts(&points[b]))
                    .then(
                        points[a]
                            .cost_per_1k_usd
                            .total_cmp(&points[b].cost_per_1k_usd),
                    )
                    .then(a.cmp(&b))
            })
            .expect("p0 is tied with itself");
        Some((best, t3.into_iter().filter(|&i| i != best).collect()))
    };
    let Some((best, tied)) = choose(&feasible) else {
        return (None, None, Vec::new());
    };
    let rest: Vec<usize> = feasible
        .iter()
        .copied()
        .filter(|&i| i != best && !same(&points[i], &points[best]))
        .collect();
    let runner = choose(&rest).map(|r| r.0);
    (Some(best), runner, tied)
}

/// The indices of the frontier of `points` (see the module doc), cheapest first (ties in
/// the order tried). Sorting by cost first makes this O(n·h) for a frontier of h points.
pub fn pareto(points: &[Point]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        let (p, q) = (&points[a], &points[b]);
        p.cost_per_1k_usd
            .total_cmp(&q.cost_per_1k_usd)
            .then(q.availability.total_cmp(&p.availability))
            .then(p.raw.p99_s.total_cmp(&q.raw.p99_s))
            .then(a.cmp(&b))
    });
    let mut front: Vec<usize> = Vec::new();
    for i in order {
        let p = &points[i];
        // every point that could dominate p is cheaper or as cheap: already considered
        if front
            .iter()
            .any(|&j| dominates(&points[j], p) || same(&points[j], p))
        {
            continue;
        }
        front.push(i);
    }
    front
}

/// The index of the cheapest feasible point (ties: higher availability, lower p99, the first
/// tried), and of the next such point whose figures differ (the runner-up).
pub fn recommend(points: &[Point]) -> (Option<usize>, Option<usize>) {
    let mut feasible: Vec<usize> = (0..points.len()).filter(|&i| points[i].feasible).collect();
    feasible.sort_by(|&a, &b| {
        let (p, q) = (&points[a], &points[b]);
        p.cost_per_1k_usd
            .total_cmp(&q.cost_per_1k_usd)
            .then(q.availability.total_cmp(&p.availability))
            .then(p.raw.p99_s.total_cmp(&q.raw.p99_s))
            .then(a.cmp(&b))
    });
    let best = feasible.first().copied();
    // the runner-up differs in its figures: a setting that changes nothing is no alternative
    let runner = best.and_then(|b| {
        feasible
            .iter()
            .copied()
            .find(|&i| i != b && !same(&points[i], &points[b]))
    });
    (best, runner)
}

/// Why no point is feasible: each constraint with the best any point reaches, which bind, and
/// the point closest to meeting them all.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Infeasible {
    /// Per constraint: its name, the limit, the best value any point reaches, and whether it
    /// binds (no point meets it together with the other constraints).
    pub constraints: Vec<ConstraintBound>,
    /// The point that misses the constraints by the least (the largest relative shortfall
    /// over them, smallest), index into the weighed points.
    pub closest: Option<Point>,
}

/// One constraint's limit and the best value reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstraintBound {
    /// `availability`, `p99`, `max-ratio` or `budget`.
    pub name: &'static str,
    /// The limit asked for.
    pub limit: f64,
    /// The best value any point reaches.
    pub best: f64,
    /// Whether it binds: no point meets it together with every other constraint.
    pub binds: bool,
}

/// The constraints as (name, limit, value of a point, whether larger is better).
type Check = (&'static str, f64, fn(&Point) -> f64, bool);

fn checks(goals: &Goals) -> Vec<Check> {
    let mut c: Vec<Check> = Vec::new();
    if let Some(a) = goals.availability {
        c.push(("availability", a, |p| p.availability, true));
    }
    if let Some(t) = goals.p99_s {
        c.push(("p99", t, |p| p.raw.p99_s, false));
    }
    if let Some(m) = goals.max_ratio {
        c.push(("max-ratio", m * (1.0 + 1e-9), |p| p.raw.max_ratio, false));
    }
    if let Some(b) = goals.budget_usd_month {
        c.push(("budget", b, |p| p.monthly_usd, false));
    }
    c
}

fn meets(p: &Point, (_, limit, value, larger): &Check) -> bool {
    if *larger {
        value(p) >= *limit
    } else {
        value(p) <= *limit
    }
}

/// What binds when no point of `points` meets `goals`.
pub fn infeasible(points: &[Point], goals: &Goals) -> Infeasible {
    let checks = checks(goals);
    let constraints = checks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let values = points.iter().map(|p| (c.2)(p));
            let best = if c.3 {
                values.fold(f64::NEG_INFINITY, f64::max)
            } else {
                values.fold(f64::INFINITY, f64::min)
            };
            let binds = !points.iter().any(|p| {
                checks
                    .iter()
                    .enumerate()
                    .all(|(j, d)| j == i || meets(p, d))
                    && meets(p, c)
            });
            ConstraintBound {
                name: c.0,
                limit: c.1,
                best,
                binds,
            }
        })
        .collect();
    let shortfall = |p: &Point| {
        checks
            .iter()
            .map(|c| {
                let v = (c.2)(p);
                let gap = if c.3 { c.1 - v } else { v - c.1 };
                gap.max(0.0) / c.1.abs().max(1e-12)
            })
            .fold(0.0, f64::max)
    };
    let closest = points
        .iter()
        .min_by(|a, b| {
            shortfall(a)
                .total_cmp(&shortfall(b))
                .then(a.cost_per_1k_usd.total_cmp(&b.cost_per_1k_usd))
        })
        .cloned();
    Infeasible {
        constraints,
        closest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::RawIncident;

    fn raw(cost: f64, failed: f64, p99: f64) -> Raw {
        Raw {
            steady_cost_per_1k_usd: cost,
            steady_failed_per_1k: failed,
            dead_time_mean_s: 0.0,
            p99_s: p99,
            max_ratio: 1.0,
            traffic_share: 1.0,
            incident: None,
        }
    }

    fn usage() -> Usage {
        Usage {
            requests_per_month: 1e6,
            incidents_per_year: 2.0,
            source: "test".into(),
            history: Vec::new(),
        }
    }

    /// 12e6 requests a year, two incidents of 1,000 requests billing $50 and failing 100 each,
    /// at $30 per 1,000 steady with 1 failure per 1,000: premium 50 − 30 = $20 per incident,
    /// $40 a year = $0.00333 per 1,000; failed (12e6 − 2,000)·0.001 + 200 = 12,198.
    #[test]
    fn a_year_weighs_the_incident_at_its_rate() {
        let mut r = raw(30.0, 1.0, 5.0);
        r.incident = Some(RawIncident {
            total_usd: 50.0,
            requests: 1000.0,
            failed_requests: 100.0,
            method: "analytic",
            precision: None,
            total_precision: None,
            failed_precision: None,
        });
        let goals = Goals {
            availability: Some(0.999),
            ..Goals::default()
        };
        let p = weigh(
            r,
            &usage(),
            &goals,
            "c",
            vec![],
            Pattern::Sequential,
            vec![],
        );
        assert!((p.incident_premium_per_1k_usd - 40.0 / 12e6 * 1000.0).abs() < 1e-12);
        assert!((p.cost_per_1k_usd - (30.0 + 40.0 / 12e3)).abs() < 1e-9);
        assert!((p.availability - (1.0 - 12_198.0 / 12e6)).abs() < 1e-12);
        assert_eq!(p.incident_availability, Some(0.9));
        assert!((p.monthly_usd - p.cost_per_1k_usd * 1000.0).abs() < 1e-6);
        // 1 − 12,198 / 12e6 = 99.89835% answered: below 99.9%
        assert!(!p.feasible);
        assert_eq!(p.violations, ["availability 99.8984% < 99.9%"]);
    }

    /// Two simulated incidents at 1% precision billing $400 and $404 over 1,000 requests at $399
    /// steady: premiums $1 and $5 (a year of 12e6 requests, 2 incidents: 1,000·2/12e6 per $).
    /// Their bills' intervals (1% of $400 and of $404) overlap, so they tie in cost, though 1%
    /// of their premiums ($0.01 and $0.05) would call the $4 apart a difference.
    #[test]
    fn a_simulated_incident_ties_within_its_precision_of_the_whole_bill() {
        let point = |total: f64, parts: &str| {
            let mut r = raw(399.0, 0.0, 5.0);
            r.incident = Some(RawIncident {
                total_usd: total,
                requests: 1000.0,
                failed_requests: 0.0,
                method: "simulated",
                precision: Some(0.01),
                total_precision: None,
                failed_precision: None,
            });
            let set = vec![parts.to_string()];
            weigh(
                r,
                &usage(),
                &Goals::default(),
                "c",
                vec![],
                Pattern::NoFallback,
                set,
            )
        };
        let scale = 1000.0 * 2.0 / 12e6;
        let (a, b) = (
            point(404.0, "policy.retries=0"),
            point(400.0, "policy.retries=2"),
        );
        assert!((a.incident_bill_per_1k_usd - 404.0 * scale).abs() < 1e-12);
        assert!((a.incident_premium_per_1k_usd - 5.0 * scale).abs() < 1e-12);
        assert!(cost_tie(&a, &b));
        // the tie goes to the fewer moving parts (no retries), though it costs $4 more
        let (best, _, tied) = recommend_tied(&[a.clone(), b.clone()], &[[5.0; 2], [5.0; 2]]);
        assert_eq!((best, tied), (Some(0), vec![1]));
        // 3% apart is beyond 1% + 1% of the bills
        let c = point(412.0, "policy.retries=0");
        assert!(!cost_tie(&c, &b));
    }

    #[test]
    fn the_frontier_is_the_non_dominated_set_and_ties_keep_the_first() {
        let goals = Goals::default();
        let pts: Vec<Point> = [
            (10.0, 1.0, 5.0), // 0: cheapest, worst availability
            (12.0, 0.0, 5.0), // 1: dearer, better availability
            (12.0, 0.0, 6.0), // 2: dominated by 1
            (12.0, 0.0, 5.0), // 3: equal to 1: not listed again
            (11.0, 1.0, 4.0), // 4: faster than 0
            (13.0, 1.0, 4.0), // 5: dominated by 4
        ]
        .iter()
        .map(|&(c, f, t)| {
            weigh(
                raw(c, f, t),
                &usage(),
                &goals,
                "c",
                vec![],
                Pattern::Sequential,
                vec![],
            )
        })
        .collect();
        assert_eq!(pareto(&pts), vec![0, 4, 1]);
        assert_eq!(recommend(&pts), (Some(0), Some(4)));
        let strict = Goals {
            availability: Some(0.9999),
            p99_s: Some(4.5),
            ..Goals::default()
        };
        let pts: Vec<Point> = pts
            .into_iter()
            .map(|p| weigh(p.raw, &usage(), &strict, "c", vec![], p.pattern, vec![]))
            .collect();
        assert_eq!(recommend(&pts), (None, None));
        let why = infeasible(&pts, &strict);
        // availability alone is met (points 1–3), p99 alone too (4, 5), never both
        assert!(why.constraints.iter().all(|b| b.binds));
        assert_eq!(why.constraints[0].best, 1.0);
        assert_eq!(why.constraints[1].best, 4.0);
    }
}
