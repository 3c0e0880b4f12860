//! The search's screens: quick figures with bounds, so that `ops::tune` computes the exact
//! figures only of the candidates that may be on the frontier or be recommended.
//!
//! **The p99** (`--p99`, the frontier's third objective) is the steady Monte Carlo's on
//! [`super::P99_SEED`] with [`super::P99_REQUESTS`] = N requests: the midpoint of the bin of
//! the ⌈0.99·N⌉-th smallest latency. Its first [`P99_SCREEN_REQUESTS`] = S requests are the
//! same draws in any longer run (one generator per chunk), so the screen times those S and
//! bounds what the N-request run can print ([`P99Ranks`]): with m of the S latencies above a
//! bin, the share p above it is below p⁺ = (m + z√m + z²)/S and above p⁻ = (m − z√m)/S
//! (z = [`Z`] standard errors of the binomial count), and the other N − S requests put at
//! most R·p⁺ + z√(R·p⁺) + 1 and at least R·p⁻ − z√(R·p⁻) − 1 of theirs above it (R = N − S).
//! The N-run's p99 is at or below the bin where the S latencies above it plus that most stay
//! within the N − ⌈0.99·N⌉ the rank allows, and at or above the bin below which the least
//! already exceeds it. For S = 4,000 of N = 20,000 the bounds are the S latencies' 97.85th
//! and 99.9th percentiles.
//!
//! **The survivors** ([`survivors`]): a candidate stays unless another is at least as good
//! beyond both their bounds in cost, availability and p99, and better in one; and every
//! candidate that may be feasible and may be cheaper than the second-cheapest surely feasible
//! one stays (the recommendation and the runner-up are among them). Exact figures have
//! bounds equal to themselves. A candidate is dropped wrongly only when a figure falls outside
//! its 4.5-standard-error bounds; `tests/tune.rs` checks the frontier against brute force.

use crate::sim::histogram::Histogram;
use crate::sim::stats::Sum;

use super::frontier::{moving_parts, violations};
use super::{Goals, Point};

/// Requests of the p99 screen: the first of the [`super::P99_REQUESTS`] the exact p99 runs.
pub const P99_SCREEN_REQUESTS: u64 = 4_000;

/// Standard errors of the screens' bounds.
pub const Z: f64 = 4.5;

/// The ranks among the screen's S latencies whose bins bound the N-request p99 (see the
/// module doc): `lo` and `hi` are 1-based ranks, `None` where the screen bounds nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct P99Ranks {
    /// The rank whose bin the N-run's p99 is at or above.
    pub lo: Option<u64>,
    /// The rank whose bin the N-run's p99 is at or below.
    pub hi: Option<u64>,
}

impl P99Ranks {
    /// The ranks for a screen of `s` requests of a run of `n` (s < n).
    pub fn new(s: u64, n: u64) -> P99Ranks {
        let r = (n - s) as f64;
        let sf = s as f64;
        // how many of the n latencies may lie above the p99's bin
        let allowed = n - ((0.99 * n as f64).ceil() as u64).clamp(1, n);
        let most_above = |m: u64| {
            let m = m as f64;
            let p = ((m + Z * m.sqrt() + Z * Z) / sf).min(1.0);
            m + r * p + Z * (r * p).sqrt() + 1.0
        };
        let least_above = |m: u64| {
            let m = m as f64;
            let p = ((m - Z * m.sqrt()) / sf).max(0.0);
            m + r * p - Z * (r * p).sqrt() - 1.0
        };
        // hi: the most screen latencies above a bin for which the whole run stays within
        let hi = (0..=s)
            .take_while(|&m| most_above(m) <= allowed as f64)
            .last()
            .map(|m| s - m);
        // lo: the fewest screen latencies above a bin for which the whole run exceeds it
        let lo = (0..=s)
            .find(|&m| least_above(m) >= (allowed + 1) as f64)
            .map(|m| s - m + 1);
        P99Ranks { lo, hi }
    }

    /// The bounds `[lo, hi]` (seconds) on the N-run's p99 from the screen's `hist`.
    pub fn bounds(&self, hist: &Histogram) -> [f64; 2] {
        [
            self.lo.and_then(|k| hist.at_rank(k)).unwrap_or(0.0),
            self.hi
                .and_then(|k| hist.at_rank(k))
                .unwrap_or(f64::INFINITY),
        ]
    }
}

/// A candidate's figures as bounds, each `[optimistic, pessimistic]`: cost `[lo, hi]`,
/// availability `[hi, lo]`, p99 `[lo, hi]`. Exact figures are equal bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// USD per 1,000 requests (the objective).
    pub cost: [f64; 2],
    /// Share of the year's requests answered.
    pub availability: [f64; 2],
    /// Steady p99, seconds.
    pub p99_s: [f64; 2],
    /// The most its final cost's tie tolerance can be ([`super::frontier::TIE_RULE`]), USD per
    /// 1,000 requests: a point more than this (and the others') cheaper than another is not
    /// tied with it.
    pub tie: f64,
}

impl Bounds {
    /// The exact figures of `p`.
    pub fn exact(p: &Point) -> Bounds {
        Bounds {
            cost: [p.cost_per_1k_usd; 2],
            availability: [p.availability; 2],
            p99_s: [p.raw.p99_s; 2],
            tie: super::frontier::cost_tolerance(p),
        }
    }

    /// The figures at side `k` (0 optimistic, 1 pessimistic).
    #[cfg(test)]
    fn at(&self, k: usize) -> [f64; 3] {
        [self.cost[k], -self.availability[k], self.p99_s[k]]
    }
}

/// `p` with its figures at side `k` of `b`, to check the constraints on.
fn at_side(p: &Point, b: &Bounds, k: usize) -> Point {
    let mut q = p.clone();
    if p.cost_per_1k_usd != 0.0 {
        q.monthly_usd = p.monthly_usd * b.cost[k] / p.cost_per_1k_usd;
    }
    q.cost_per_1k_usd = b.cost[k];
    q.availability = b.availability[k];
    q.raw.p99_s = b.p99_s[k];
    q
}

/// Whether `a` is at least as good as `b` in every figure (lower is better) and better in one.
#[cfg(test)]
fn beats(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y) && a.iter().zip(b).any(|(x, y)| x < y)
}

/// Bounds on the difference of two candidates' final figures (the first's minus the
/// second's): cost `[lo, hi]` (USD per 1,000 requests), availability `[lo, hi]`, and whether
/// their p99s are the same (timed on the same settings' draws: equal, whatever the bounds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diff {
    /// The cost difference's bounds.
    pub cost: [f64; 2],
    /// The availability difference's bounds.
    pub availability: [f64; 2],
    /// Whether the two p99s are equal.
    pub same_p99: bool,
}

impl Diff {
    /// The difference's bounds from each candidate's own bounds (independent figures).
    pub fn of_bounds(a: &Bounds, b: &Bounds, same_p99: bool) -> Diff {
        Diff {
            cost: [a.cost[0] - b.cost[1], a.cost[1] - b.cost[0]],
            availability: [
                a.availability[1] - b.availability[0],
                a.availability[0] - b.availability[1],
            ],
            same_p99,
        }
    }

    /// The tighter of two valid bounds on the same difference.
    pub fn within(self, other: Diff) -> Diff {
        let meet = |a: [f64; 2], b: [f64; 2]| [a[0].max(b[0]), a[1].min(b[1])];
        Diff {
            cost: meet(self.cost, other.cost),
            availability: meet(self.availability, other.availability),
            same_p99: self.same_p99 || other.same_p99,
        }
    }
}

/// A screened candidate's simulated windows (the first of its stopping rule, in window order),
/// to bound its difference from another's on the same windows ([`paired`]).
#[derive(Debug, Clone, Copy)]
pub struct Paired<'a> {
    /// Per window: its bill (USD) and its failed requests.
    pub windows: &'a [[f64; 2]],
    /// The fewest windows its final figures will rest on (its next check, or all it ran once
    /// its rule has finished).
    pub least: u64,
    /// Whether its rule has finished: `windows` are all its final figures rest on.
    pub finished: bool,
    /// Per figure, the mean of `windows` and their spread (sample standard deviation):
    /// computed once here, read by every pair the candidate is in.
    mean: [f64; 2],
    spread: [f64; 2],
}

impl<'a> Paired<'a> {
    /// A candidate's `windows`, the `least` windows its figures will rest on, and whether its
    /// rule has `finished`.
    pub fn new(windows: &'a [[f64; 2]], least: u64, finished: bool) -> Paired<'a> {
        let n = windows.len() as f64;
        let mean = [0, 1].map(|k| windows.iter().map(|x| x[k]).sum::<f64>() / n);
        let spread = [0, 1].map(|k| sum_of(windows.iter().map(|x| x[k])).std_dev());
        Paired {
            windows,
            least,
            finished,
            mean,
            spread,
        }
    }
}

/// The running statistics of `x`.
fn sum_of(x: impl Iterator<Item = f64>) -> Sum {
    let mut s = Sum::default();
    x.for_each(|v| s.add(v));
    s
}

/// The most windows of two candidates [`paired`] reads: a bound from fewer windows is still a
/// bound, and this keeps a space of a thousand candidates' pairs to a fraction of a second.
pub const PAIR_WINDOWS: usize = 1024;

/// Student's t over the normal's at [`Z`]'s coverage for 7 degrees of freedom (the first
/// screen's 8 windows): a spread from fewer than [`crate::sim::expected::MIN_WINDOWS`] windows
/// is widened by this much.
pub const FEW_WINDOWS_T: f64 = 2.64;

/// Bounds on the difference of two candidates' final figures, `a` minus `b`, per window:
/// `[[bill lo, bill hi], [failed lo, failed hi]]`, from their windows paired (common random
/// numbers: window k of every candidate draws from the same generator, so what the two share
/// cancels in the difference); `None` from fewer than 2 paired windows, and a figure unbounded
/// where its differences show no spread over fewer than [`crate::sim::expected::MIN_WINDOWS`]
/// windows.
///
/// With d̄ and s the mean and spread of the first w paired differences, the final figures
/// are means over W_a and W_b windows of which W' = min(W_a, W_b) are paired: their
/// difference is the paired mean over W' plus, for the longer one, its own extra windows'
/// share. The paired mean over W' lies within Z·s·√(1/w − 1/W') of d̄ (the later pairs are
/// fresh draws; W' unknown: √(1/w)), the extra windows' share within Z·σ·√(1/W' − 1/W) ≤
/// Z·σ/√W₀ (σ the longer one's own spread, W₀ ≤ W' the least windows either rests on). Two
/// finished rules: the exact difference of their figures.
pub fn paired(a: &Paired, b: &Paired) -> Option<[[f64; 2]; 2]> {
    if a.finished && b.finished && !a.windows.is_empty() && !b.windows.is_empty() {
        let d = [0, 1].map(|k| a.mean[k] - b.mean[k]);
        return Some(d.map(|d| [d, d]));
    }
    let w = a.windows.len().min(b.windows.len()).min(PAIR_WINDOWS);
    if w < 2 {
        return None;
    }
    let few = (w as u64) < crate::sim::expected::MIN_WINDOWS;
    let z = if few { Z * FEW_WINDOWS_T } else { Z };
    // W' where it is known: one finished no later than the other's least windows
    let (la, lb) = (a.windows.len() as u64, b.windows.len() as u64);
    let known = if a.finished && la <= b.least {
        Some((la, false, true))
    } else if b.finished && lb <= a.least {
        Some((lb, true, false))
    } else {
        None
    };
    let least = a.least.min(b.least).max(w as u64) as f64;
    let mut out = [[0.0; 2]; 2];
    for (k, slot) in out.iter_mut().enumerate() {
        let diffs = sum_of((0..w).map(|t| a.windows[t][k] - b.windows[t][k]));
        let (d, s) = (diffs.mean(), diffs.std_dev());
        if s == 0.0 && few {
            // a rare event the few windows have not shown may yet move this figure
            *slot = [f64::NEG_INFINITY, f64::INFINITY];
            continue;
        }
        let (sa, sb) = (a.spread[k], b.spread[k]);
        let (pair, tail) = match known {
            Some((wp, a_longer, b_longer)) => {
                let pair = (1.0 / w as f64 - 1.0 / wp as f64).max(0.0).sqrt();
                let tail = match (a_longer, b_longer) {
                    (true, _) => sa,
                    (_, true) => sb,
                    _ => 0.0,
                };
                (pair, tail)
            }
            None => ((1.0 / w as f64).sqrt(), sa.max(sb)),
        };
        let half = z * (s * pair + tail / least.sqrt());
        *slot = [d - half, d + half];
    }
    Some(out)
}

/// Whether `a` is surely at least as good as `b` in every figure and surely better in one,
/// given the bounds on their difference `d` and each one's p99 bounds.
fn surely_beats(d: &Diff, a: &Bounds, b: &Bounds) -> bool {
    let p99_ok = d.same_p99 || a.p99_s[1] <= b.p99_s[0];
    let p99_better = !d.same_p99 && a.p99_s[1] < b.p99_s[0];
    d.cost[1] <= 0.0
        && d.availability[0] >= 0.0
        && p99_ok
        && (d.cost[1] < 0.0 || d.availability[0] > 0.0 || p99_better)
}

/// The indices of `points` to compute exactly (see the module doc), in order.
pub fn survivors(points: &[(Point, Bounds)], goals: &Goals) -> Vec<usize> {
    survivors_with(points, goals, &|a, b| {
        Diff::of_bounds(&points[a].1, &points[b].1, false)
    })
}

/// [`survivors`] with the bounds on two candidates' differences from `diff(a, b)` (at least
/// as tight as [`Diff::of_bounds`]: paired windows, p99s known equal): a candidate stays unless
/// another surely beats it, or while it may be feasible and fewer than two surely feasible
/// candidates with distinct costs and no more moving parts are surely cheaper than it beyond
/// any tie ([`Bounds::tie`]: the recommendation and the runner-up are among those kept).
pub fn survivors_with(
    points: &[(Point, Bounds)],
    goals: &Goals,
    diff: &dyn Fn(usize, usize) -> Diff,
) -> Vec<usize> {
    let maybe: Vec<bool> = points
        .iter()
        .map(|(p, b)| violations(&at_side(p, b, 0), goals).is_empty())
        .collect();
    let sure: Vec<bool> = points
        .iter()
        .map(|(p, b)| violations(&at_side(p, b, 1), goals).is_empty())
        .collect();
    let parts: Vec<u32> = points.iter().map(|(p, _)| moving_parts(p)).collect();
    // The widest tie tolerance of a point that may be the cheapest feasible one once the
    // recommendation or the runner-up is taken out (its optimistic cost at most the second
    // lowest pessimistic cost of the surely feasible): a point tied with it may win by moving
    // parts. A point surely infeasible or surely dearer is no such point.
    let mut sure_costs: Vec<f64> = (0..points.len())
        .filter(|&i| sure[i])
        .map(|i| points[i].1.cost[1])
        .collect();
    sure_costs.sort_by(f64::total_cmp);
    sure_costs.dedup();
    let second = sure_costs.get(1).copied().unwrap_or(f64::INFINITY);
    let tie = (0..points.len())
        .filter(|&i| maybe[i] && points[i].1.cost[0] <= second)
        .map(|i| points[i].1.tie)
        .fold(0.0, f64::max);
    (0..points.len())
        .filter(|&j| {
            let bj = &points[j].1;
            let mut cheaper: Vec<f64> = Vec::new();
            let mut beaten = false;
            for (i, (_, bi)) in points.iter().enumerate() {
                if i == j || bi.cost[0] > bj.cost[1] {
                    continue;
                }
                let d = diff(i, j);
                if surely_beats(&d, bi, bj) {
                    beaten = true;
                }
                // a cheaper point with more moving parts may lose a tie to this one
                // ([`super::frontier::TIE_RULE`]): it does not count
                if sure[i]
                    && d.cost[1] + bj.tie + tie < 0.0
                    && parts[i] <= parts[j]
                    && !cheaper.contains(&bi.cost[1])
                {
                    cheaper.push(bi.cost[1]);
                }
                if beaten && cheaper.len() >= 2 {
                    break;
                }
            }
            (maybe[j] && cheaper.len() < 2) || !beaten
        })
        .collect()
}

/// The indices of `points` to compute exactly (see the module doc), in order, as the search
/// screened them before candidates were paired (kept to check [`survivors_with`] against).
#[cfg(test)]
fn survivors_by_front(points: &[(Point, Bounds)], goals: &Goals) -> Vec<usize> {
    let maybe: Vec<bool> = points
        .iter()
        .map(|(p, b)| violations(&at_side(p, b, 0), goals).is_empty())
        .collect();
    // the second-cheapest pessimistic cost of the surely feasible points
    let mut sure: Vec<f64> = points
        .iter()
        .filter(|(p, b)| violations(&at_side(p, b, 1), goals).is_empty())
        .map(|(_, b)| b.cost[1])
        .collect();
    sure.sort_by(f64::total_cmp);
    sure.dedup();
    let cheap = sure.get(1).copied().unwrap_or(f64::INFINITY);
    // the pessimistic figures no other pessimistic figures beat: every beaten candidate is
    // beaten by one of them too
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].1.cost[1].total_cmp(&points[b].1.cost[1]));
    let mut front: Vec<usize> = Vec::new();
    for i in order {
        let w = points[i].1.at(1);
        if !front.iter().any(|&j| {
            let v = points[j].1.at(1);
            v == w || beats(&v, &w)
        }) {
            front.push(i);
        }
    }
    (0..points.len())
        .filter(|&i| {
            let b = &points[i].1;
            if maybe[i] && b.cost[0] <= cheap {
                return true;
            }
            let best = b.at(0);
            !front
                .iter()
                .any(|&j| j != i && beats(&points[j].1.at(1), &best))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Pattern;
    use crate::tune::Raw;

    fn point(cost: f64, availability: f64, p99: f64) -> Point {
        Point {
            chain: "c".into(),
            models: vec!["m".into()],
            pattern: Pattern::Sequential,
            set: Vec::new(),
            cost_per_1k_usd: cost,
            incident_premium_per_1k_usd: 0.0,
            incident_bill_per_1k_usd: 0.0,
            monthly_usd: cost,
            availability,
            steady_availability: availability,
            incident_availability: None,
            feasible: true,
            violations: Vec::new(),
            raw: Raw {
                steady_cost_per_1k_usd: cost,
                steady_failed_per_1k: 0.0,
                dead_time_mean_s: 0.0,
                p99_s: p99,
                max_ratio: 1.0,
                traffic_share: 1.0,
                incident: None,
            },
        }
    }

    /// With each candidate's own bounds, the pairwise survivors are the front's: 2,000 random
    /// sets of 12 candidates (a fixed linear congruential walk), with and without goals.
    #[test]
    fn pairwise_survivors_equal_the_fronts_on_independent_bounds() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut dropped = 0;
        for case in 0..2000 {
            let points: Vec<(Point, Bounds)> = (0..12)
                .map(|_| {
                    // coarse values so that ties and equal bounds happen
                    let c = (next() * 8.0).floor() + 10.0;
                    let w = (next() * 3.0).floor() * 0.5;
                    let a = 0.99 + (next() * 5.0).floor() * 0.002;
                    let aw = (next() * 2.0).floor() * 0.002;
                    let p = 2.0 + (next() * 4.0).floor();
                    let pw = (next() * 2.0).floor();
                    let b = Bounds {
                        cost: [c - w, c + w],
                        availability: [a + aw, a - aw],
                        p99_s: [p - pw, p + pw],
                        tie: 0.0,
                    };
                    (point(c, a, p), b)
                })
                .collect();
            let goals = if case % 2 == 0 {
                Goals::default()
            } else {
                Goals {
                    availability: Some(0.994),
                    ..Goals::default()
                }
            };
            let pairwise = survivors(&points, &goals);
            assert_eq!(pairwise, survivors_by_front(&points, &goals), "case {case}");
            dropped += points.len() - pairwise.len();
        }
        // the check is not vacuous: the screens drop candidates
        assert!(dropped > 2000, "{dropped}");
    }

    /// Two candidates that share most of their noise: window k bills 10 + eₖ and 9.5 + eₖ
    /// (eₖ up to ±3.9, the same in both), the second fails one request in every window.
    /// Apart, each bill is known to ±1.31 at 4.5 standard errors of 64 windows (σ = 2.33), no
    /// order between them; paired, the difference is 0.5 exactly in every window, known to the
    /// share the windows after the 64th may add: 4.5 · σ/√W₀ with W₀ = 4,096 windows, ±0.164.
    #[test]
    fn paired_windows_bound_a_difference_their_own_spreads_cannot() {
        let e = |k: usize| ((k * 37 % 64) as f64 - 31.5) / 8.0;
        let a: Vec<[f64; 2]> = (0..64).map(|k| [10.0 + e(k), 0.0]).collect();
        let b: Vec<[f64; 2]> = (0..64).map(|k| [9.5 + e(k), 1.0]).collect();
        let pa = Paired::new(&a, 4096, false);
        let pb = Paired::new(&b, 8192, false);
        let [bill, failed] = paired(&pa, &pb).unwrap();
        let sigma = {
            let m = a.iter().map(|x| x[0]).sum::<f64>() / 64.0;
            (a.iter().map(|x| (x[0] - m).powi(2)).sum::<f64>() / 63.0).sqrt()
        };
        let half = 4.5 * sigma / 4096f64.sqrt();
        assert!((bill[0] - (0.5 - half)).abs() < 1e-12, "{bill:?}");
        assert!((bill[1] - (0.5 + half)).abs() < 1e-12, "{bill:?}");
        assert!((half - 0.1636).abs() < 1e-4, "{half}");
        // the failed requests never vary: only the unpaired share could move them, and it is 0
        assert_eq!(failed, [-1.0, -1.0]);
        // two finished rules: their figures' exact difference, whatever their lengths
        let fa = Paired::new(&a[..32], 32, true);
        let fb = Paired::new(&b, 64, true);
        let mean = |w: &[[f64; 2]]| w.iter().map(|x| x[0]).sum::<f64>() / w.len() as f64;
        let exact = mean(&a[..32]) - mean(&b);
        assert_eq!(paired(&fa, &fb).unwrap()[0], [exact, exact]);
        // 8 windows that agree on a difference show no spread: no bound yet (a rare event);
        // where the bills' differences vary (0.5 and 0.25 in turn), they are bounded
        let c: Vec<[f64; 2]> = a[..8].iter().map(|x| [x[0] - 1.0, x[1]]).collect();
        let d: Vec<[f64; 2]> = a[..8]
            .iter()
            .enumerate()
            .map(|(k, x)| [x[0] - 0.5 + 0.25 * (k % 2) as f64, x[1]])
            .collect();
        let few = |w| Paired::new(w, 32, false);
        let unbounded = [f64::NEG_INFINITY, f64::INFINITY];
        assert_eq!(paired(&few(&a[..8]), &few(&c)), Some([unbounded; 2]));
        let [bill, failed] = paired(&few(&a[..8]), &few(&d)).unwrap();
        assert_eq!(failed, unbounded);
        assert!(
            bill[0] < 0.375 && 0.375 < bill[1] && bill[1].is_finite(),
            "{bill:?}"
        );
    }

    /// The ranks of the shipped screen: S = 4,000 of N = 20,000 (200 latencies above the
    /// p99's bin allowed). hi: m screen latencies above with m + 16,000·p⁺ + 4.5√(16,000·p⁺) +
    /// 1 ≤ 200; lo: the fewest m with m + 16,000·p⁻ − 4.5√(16,000·p⁻) − 1 ≥ 201.
    #[test]
    fn the_shipped_screen_bounds_the_p99_between_its_97_85th_and_99_9th_percentiles() {
        let r = P99Ranks::new(4_000, 20_000);
        let (lo, hi) = (r.lo.unwrap(), r.hi.unwrap());
        let m_hi = 4_000 - hi;
        let m_lo = 4_000 - lo + 1;
        let most = |m: f64| {
            let p = (m + 4.5 * m.sqrt() + 20.25) / 4000.0;
            m + 16_000.0 * p + 4.5 * (16_000.0 * p).sqrt() + 1.0
        };
        let least = |m: f64| {
            let p = (m - 4.5 * m.sqrt()) / 4000.0;
            m + 16_000.0 * p - 4.5 * (16_000.0 * p).sqrt() - 1.0
        };
        assert!(most(m_hi as f64) <= 200.0 && most(m_hi as f64 + 1.0) > 200.0);
        assert!(least(m_lo as f64) >= 201.0 && least(m_lo as f64 - 1.0) < 201.0);
        // the screen's 99.9th and 97.85th percentiles
        assert_eq!((m_hi, m_lo), (4, 86));
    }

    /// Bounds from the first 4,000 of 20,000 known latencies hold the 20,000's p99, the
    /// 97.85th to the 99.9th percentile apart (here 1 ms to 20 s, uniform: 19.57 to 19.98 s).
    #[test]
    fn bounds_hold_the_exact_p99_of_a_sample_that_grows() {
        // 20,000 latencies 1..=20,000 ms, in a shuffled order (a fixed multiplicative walk)
        let n = 20_000u64;
        let lat = |i: u64| ((i * 7_919) % n + 1) as f64 / 1000.0;
        let mut screen = Histogram::default();
        let mut full = Histogram::default();
        for i in 0..n {
            if i < 4_000 {
                screen.add_seconds(lat(i));
            }
            full.add_seconds(lat(i));
        }
        let [lo, hi] = P99Ranks::new(4_000, n).bounds(&screen);
        let p99 = full.quantile(0.99).unwrap();
        assert!(lo <= p99 && p99 <= hi, "{lo} {p99} {hi}");
        assert!(hi / lo < 1.1, "{lo} {hi}");
    }
}
