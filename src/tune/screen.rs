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

use super::frontier::violations;
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
}

impl Bounds {
    /// The exact figures of `p`.
    pub fn exact(p: &Point) -> Bounds {
        Bounds {
            cost: [p.cost_per_1k_usd; 2],
            availability: [p.availability; 2],
            p99_s: [p.raw.p99_s; 2],
        }
    }

    /// The figures at side `k` (0 optimistic, 1 pessimistic).
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
fn beats(a: &[f64; 3], b: &[f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y) && a.iter().zip(b).any(|(x, y)| x < y)
}

/// The indices of `points` to compute exactly (see the module doc), in order.
pub fn survivors(points: &[(Point, Bounds)], goals: &Goals) -> Vec<usize> {
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
