//! The latency model and its closed forms (MODEL.md §7), shared by both engines.
//!
//! Each model's latency L (seconds, healthy attempt, time to the full answer) is lognormal,
//! fixed by its median and 99th percentile: ln L ~ Normal(μ, σ²) with μ = ln p50 and
//! σ = ln(p99 / p50) / z₀.₉₉ (z₀.₉₉ = 2.3263…). A client timeout T abandons a healthy attempt
//! with probability P(L > T) (the timeout trip rate of MODEL.md §3), and a hedge of two healthy
//! legs is won by the primary with probability w = P(L₀ < L₁ | L₀ ≤ T, L₁ ≤ T) (MODEL.md §4).
//! The analytic engine uses these closed forms; the Monte Carlo engine draws the latencies, so
//! its trip and win shares converge to them.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Serialize;

/// z₀.₉₉: the standard normal's 99th percentile.
pub const Z99: f64 = 2.326_347_874_040_841;

/// Default median latency (seconds) of a model with no `[latency]` entry.
pub const DEFAULT_P50_S: f64 = 2.0;
/// Default 99th-percentile latency (seconds) of a model with no `[latency]` entry.
pub const DEFAULT_P99_S: f64 = 12.0;

/// One model's latency distribution: lognormal from a median and a 99th percentile, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Latency {
    /// Median latency of a healthy attempt, seconds (> 0).
    pub p50_s: f64,
    /// 99th-percentile latency of a healthy attempt, seconds (≥ `p50_s`).
    pub p99_s: f64,
    /// Whether the scenario gave it (`[latency."provider/model"]`) rather than the defaults.
    /// Only a given latency drives timeout trips and the hedge winner; defaults only time the
    /// simulated requests.
    pub given: bool,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            p50_s: DEFAULT_P50_S,
            p99_s: DEFAULT_P99_S,
            given: false,
        }
    }
}

impl Latency {
    /// μ = ln p50 (log-seconds).
    pub fn mu(&self) -> f64 {
        self.p50_s.ln()
    }

    /// σ = ln(p99 / p50) / z₀.₉₉ (0 when p99 = p50: a fixed latency).
    pub fn sigma(&self) -> f64 {
        (self.p99_s / self.p50_s).ln() / Z99
    }

    /// P(L ≤ t) for t in seconds.
    pub fn cdf(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        let s = self.sigma();
        let x = t.ln() - self.mu();
        if s == 0.0 {
            return if x >= 0.0 { 1.0 } else { 0.0 };
        }
        normal_cdf(x / s)
    }

    /// The timeout trip rate P(L > T) for a timeout of `timeout_s` seconds (MODEL.md §3, §7).
    pub fn trip_rate(&self, timeout_s: f64) -> f64 {
        if timeout_s <= 0.0 {
            return 1.0;
        }
        let s = self.sigma();
        let x = timeout_s.ln() - self.mu();
        if s == 0.0 {
            return if x >= 0.0 { 0.0 } else { 1.0 };
        }
        normal_cdf(-x / s)
    }
}

/// w = P(L₀ < L₁ | L₀ ≤ T, L₁ ≤ T): the share of hedges of two healthy legs that the primary
/// (`l0`) answers first, for a timeout of `timeout_s` seconds (MODEL.md §4, §7).
///
/// In log-seconds, with y = ln T: w = ∫_{−∞}^{y} φ₀(x)·(F₁(y) − F₁(x)) dx / (F₀(y)·F₁(y)),
/// integrated with Simpson's rule over 4,096 panels from μ₀ − 12σ₀ (error far below 1e-9).
/// Returns 1 when neither leg can finish before the timeout (no hedge is ever won).
/// Memoised per thread (by the bits of its arguments: the very value the integral returns).
pub fn primary_win_rate(l0: &Latency, l1: &Latency, timeout_s: f64) -> f64 {
    memo(
        [
            0.0, l0.p50_s, l0.p99_s, l1.p50_s, l1.p99_s, timeout_s, 0.0, 0.0,
        ],
        || primary_win_rate_integral(l0, l1, timeout_s),
    )
}

fn primary_win_rate_integral(l0: &Latency, l1: &Latency, timeout_s: f64) -> f64 {
    let (f0, f1) = (l0.cdf(timeout_s), l1.cdf(timeout_s));
    if f0 <= 0.0 || f1 <= 0.0 {
        return 1.0;
    }
    let (m0, s0, m1, s1) = (l0.mu(), l0.sigma(), l1.mu(), l1.sigma());
    let y = timeout_s.ln();
    let cdf1 = |x: f64| {
        if s1 == 0.0 {
            if x >= m1 { 1.0 } else { 0.0 }
        } else {
            normal_cdf((x - m1) / s1)
        }
    };
    let f1y = cdf1(y);
    if s0 == 0.0 {
        // The primary always takes exactly p50: it wins when the fallback is slower.
        return (f1y - cdf1(m0)) / f1y;
    }
    let lo = m0 - 12.0 * s0;
    if y <= lo {
        return 1.0;
    }
    let integral = simpson_normal(m0, s0, (lo, y), |x| f1y - cdf1(x));
    (integral / (f0 * f1y)).clamp(0.0, 1.0)
}

/// ∫_{lo}^{hi} φ(x)·tail(x) dx, φ the normal density of mean `m` and deviation `s` (> 0), by
/// Simpson's rule over 4,096 panels: the one integration every win rate above uses.
fn simpson_normal(m: f64, s: f64, (lo, hi): (f64, f64), tail: impl Fn(f64) -> f64) -> f64 {
    let n = 4096;
    let h = (hi - lo) / n as f64;
    let g = |x: f64| {
        let z = (x - m) / s;
        (-0.5 * z * z).exp() / (s * (2.0 * std::f64::consts::PI).sqrt()) * tail(x)
    };
    let mut sum = g(lo) + g(hi);
    for i in 1..n {
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * g(lo + i as f64 * h);
    }
    sum * h / 3.0
}

/// w = P(L₀ < L₁ | L₀ ≤ T₀, L₁ ≤ T₁): [`primary_win_rate`] with each leg abandoned at its own
/// timeout (a link's own `timeout_s`, MODEL.md §3), seconds. In log-seconds, with y_k = ln T_k:
/// w = ∫_{−∞}^{min(y₀, y₁)} φ₀(x)·(F₁(y₁) − F₁(x)) dx / (F₀(y₀)·F₁(y₁)) (a primary slower than
/// T₁ never wins: the backup has answered by then), by Simpson's rule over 4,096 panels.
/// Equal timeouts give [`primary_win_rate`] exactly. Memoised per thread (by the bits of its
/// arguments: the very value the integral returns).
pub fn primary_win_rate_each(l0: &Latency, l1: &Latency, t0_s: f64, t1_s: f64) -> f64 {
    if t0_s == t1_s {
        return primary_win_rate(l0, l1, t0_s);
    }
    memo(
        [1.0, l0.p50_s, l0.p99_s, l1.p50_s, l1.p99_s, t0_s, t1_s, 0.0],
        || primary_win_rate_each_integral(l0, l1, t0_s, t1_s),
    )
}

fn primary_win_rate_each_integral(l0: &Latency, l1: &Latency, t0_s: f64, t1_s: f64) -> f64 {
    let (f0, f1) = (l0.cdf(t0_s), l1.cdf(t1_s));
    if f0 <= 0.0 || f1 <= 0.0 {
        return 1.0;
    }
    let (m0, s0) = (l0.mu(), l0.sigma());
    if s0 == 0.0 {
        // The primary always takes exactly p50 (≤ T₀ here): it wins when the fallback is slower.
        return ((f1 - l1.cdf(l0.p50_s)) / f1).clamp(0.0, 1.0);
    }
    let lo = m0 - 12.0 * s0;
    let hi = t0_s.min(t1_s).ln();
    if hi <= lo {
        return if t1_s < t0_s { 0.0 } else { 1.0 };
    }
    let integral = simpson_normal(m0, s0, (lo, hi), |x| (f1 - l1.cdf(x.exp())).max(0.0));
    (integral / (f0 * f1)).clamp(0.0, 1.0)
}

/// w_d = P(L₀ < d + L₁ | d < L₀ ≤ T₀, L₁ ≤ T₁): [`delayed_win_rate`] with each leg abandoned
/// at its own timeout, seconds; the integrand's F₁(T) − F₁(eˣ − d) becomes
/// max(0, F₁(T₁) − F₁(eˣ − d)) over ln d < x ≤ ln T₀ (with equal timeouts the max is never
/// taken: eˣ − d < T there, so this is [`delayed_win_rate`], which calls it).
/// Memoised per thread (by the bits of its arguments: the very value the integral returns).
pub fn delayed_win_rate_each(
    l0: &Latency,
    l1: &Latency,
    delay_s: f64,
    t0_s: f64,
    t1_s: f64,
) -> f64 {
    if delay_s <= 0.0 {
        return primary_win_rate_each(l0, l1, t0_s, t1_s);
    }
    memo(
        [
            2.0, l0.p50_s, l0.p99_s, l1.p50_s, l1.p99_s, delay_s, t0_s, t1_s,
        ],
        || delayed_win_rate_integral(l0, l1, delay_s, t0_s, t1_s),
    )
}

fn delayed_win_rate_integral(
    l0: &Latency,
    l1: &Latency,
    delay_s: f64,
    t0_s: f64,
    t1_s: f64,
) -> f64 {
    let pending = l0.cdf(t0_s) - l0.cdf(delay_s);
    let f1t = l1.cdf(t1_s);
    if pending <= 0.0 || f1t <= 0.0 || delay_s >= t0_s {
        return 1.0;
    }
    let (m0, s0) = (l0.mu(), l0.sigma());
    if s0 == 0.0 {
        return ((f1t - l1.cdf(l0.p50_s - delay_s)) / f1t).clamp(0.0, 1.0);
    }
    let (lo, hi) = (delay_s.ln().max(m0 - 12.0 * s0), t0_s.ln());
    if hi <= lo {
        return 1.0;
    }
    let integral = simpson_normal(m0, s0, (lo, hi), |x| {
        (f1t - l1.cdf(x.exp() - delay_s)).max(0.0)
    });
    (integral / (pending * f1t)).clamp(0.0, 1.0)
}

/// w_d = P(L₀ < d + L₁ | d < L₀ ≤ T, L₁ ≤ T): with the backup sent `delay_s` seconds after the
/// primary (a delayed hedge, MODEL.md §8), the share of races between two healthy legs that
/// the primary wins. In log-seconds x = ln L₀:
/// w_d = ∫_{ln d}^{ln T} φ₀(x)·(F₁(T) − F₁(eˣ − d)) dx / ((F₀(T) − F₀(d))·F₁(T)), by Simpson's
/// rule over 4,096 panels. Returns 1 when the primary cannot still be running at d.
pub fn delayed_win_rate(l0: &Latency, l1: &Latency, delay_s: f64, timeout_s: f64) -> f64 {
    delayed_win_rate_each(l0, l1, delay_s, timeout_s, timeout_s)
}

/// The most win rates one thread keeps ([`memo`] forgets them all when it would hold more).
const MEMO_ENTRIES: usize = 65_536;

thread_local! {
    static WIN_RATES: RefCell<HashMap<[u64; 8], f64>> = RefCell::new(HashMap::new());
}

/// `f()`, remembered per thread by the bits of `key` (which function, then every argument it
/// reads): the win rates are pure functions of their arguments, so a remembered value is the
/// very value `f` returns (the same bits on any thread, in any order), and `fallcost tune`'s
/// candidates that share a latency, timeout and hedge-delay setting (but not retries, prices or
/// the breaker) integrate it once (each integral is 4,096 panels of exponentials and
/// logarithms).
fn memo(key: [f64; 8], f: impl FnOnce() -> f64) -> f64 {
    let bits = key.map(f64::to_bits);
    if let Some(w) = WIN_RATES.with(|m| m.borrow().get(&bits).copied()) {
        return w;
    }
    let w = f();
    WIN_RATES.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= MEMO_ENTRIES {
            m.clear();
        }
        m.insert(bits, w);
    });
    w
}

/// Φ(x), the standard normal CDF (Hart's 1968 rational approximation as given by G. West,
/// "Better approximations to cumulative normal functions", 2005): absolute error below 1e-15,
/// relative error below 1e-8 in the far tails (checked against Python's `math.erfc`).
pub fn normal_cdf(x: f64) -> f64 {
    let a = x.abs();
    let tail = if a > 37.0 {
        0.0
    } else {
        let e = (-a * a / 2.0).exp();
        if a < 7.071_067_811_865_47 {
            let num = (((((0.035_262_496_599_891_1 * a + 0.700_383_064_443_688) * a
                + 6.373_962_203_531_65)
                * a
                + 33.912_866_078_383)
                * a
                + 112.079_291_497_871)
                * a
                + 221.213_596_169_931)
                * a
                + 220.206_867_912_376;
            let den = ((((((0.088_388_347_648_318_4 * a + 1.755_667_163_182_64) * a
                + 16.064_177_579_207)
                * a
                + 86.780_732_202_946_1)
                * a
                + 296.564_248_779_674)
                * a
                + 637.333_633_378_831)
                * a
                + 793.826_512_519_948)
                * a
                + 440.413_735_824_752;
            e * num / den
        } else {
            let b = a + 0.65;
            let b = a + 4.0 / b;
            let b = a + 3.0 / b;
            let b = a + 2.0 / b;
            let b = a + 1.0 / b;
            e / b / 2.506_628_274_631
        }
    };
    if x > 0.0 { 1.0 - tail } else { tail }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// Reference values of Φ (Python's `math.erfc`, accurate to about one ulp).
    #[test]
    fn normal_cdf_matches_reference_values() {
        assert!(rel(normal_cdf(1.0), 0.841_344_746_068_542_9) < 1e-14);
        assert!(rel(normal_cdf(-2.0), 0.022_750_131_948_179_22) < 1e-13);
        assert!(rel(normal_cdf(-5.0), 2.866_515_718_791_946e-7) < 1e-8);
        assert!(rel(normal_cdf(-10.0), 7.619_853_024_160_593e-24) < 1e-8);
        assert!((normal_cdf(0.7) - 0.758_036_347_776_926_8).abs() < 1e-15);
        assert!(rel(normal_cdf(Z99), 0.99) < 1e-14);
        assert_eq!(normal_cdf(0.0), 0.5);
    }

    /// The p50 and p99 fix the distribution: P(L > p99) = 1%, P(L > p50) = 50%.
    #[test]
    fn trip_rate_at_the_given_percentiles() {
        let l = Latency {
            p50_s: 3.0,
            p99_s: 15.0,
            given: true,
        };
        assert!((l.trip_rate(15.0) - 0.01).abs() < 1e-13);
        assert!((l.trip_rate(3.0) - 0.5).abs() < 1e-15);
        assert!((l.sigma() - 5f64.ln() / Z99).abs() < 1e-15);
        assert_eq!(l.trip_rate(0.0), 1.0);
    }

    /// Two identical legs: each wins half the hedges, whatever the timeout.
    #[test]
    fn identical_legs_split_the_wins() {
        let l = Latency {
            p50_s: 2.0,
            p99_s: 9.0,
            given: true,
        };
        for t in [1.0, 4.0, 30.0, 1e6] {
            let w = primary_win_rate(&l, &l, t);
            assert!((w - 0.5).abs() < 1e-9, "T = {t}: w = {w}");
        }
    }

    /// Without a binding timeout, ln L₀ − ln L₁ ~ Normal(μ₀ − μ₁, σ₀² + σ₁²), so
    /// w = Φ((μ₁ − μ₀) / √(σ₀² + σ₁²)).
    #[test]
    fn win_rate_matches_the_difference_of_normals() {
        let a = Latency {
            p50_s: 2.0,
            p99_s: 9.0,
            given: true,
        };
        let b = Latency {
            p50_s: 3.0,
            p99_s: 20.0,
            given: true,
        };
        let want = normal_cdf((b.mu() - a.mu()) / (a.sigma().powi(2) + b.sigma().powi(2)).sqrt());
        let got = primary_win_rate(&a, &b, 1e9);
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        // A timeout cuts off the slow tail, where the faster primary wins less often.
        assert!(primary_win_rate(&a, &b, 5.0) < got);
    }

    /// The memo returns the integral's very bits, first call and later, for each function and
    /// on another thread (which integrates it afresh).
    #[test]
    fn remembered_win_rates_are_the_integrals() {
        let a = Latency {
            p50_s: 2.0,
            p99_s: 9.0,
            given: true,
        };
        let b = Latency {
            p50_s: 3.0,
            p99_s: 20.0,
            given: true,
        };
        let want = [
            primary_win_rate_integral(&a, &b, 7.0),
            primary_win_rate_each_integral(&a, &b, 7.0, 11.0),
            delayed_win_rate_integral(&a, &b, 2.0, 7.0, 11.0),
        ];
        let got = move || {
            [
                primary_win_rate(&a, &b, 7.0),
                primary_win_rate_each(&a, &b, 7.0, 11.0),
                delayed_win_rate_each(&a, &b, 2.0, 7.0, 11.0),
            ]
        };
        assert!(want.iter().all(|w| *w > 0.0 && *w < 1.0), "{want:?}");
        assert_eq!(want.map(f64::to_bits), got().map(f64::to_bits));
        assert_eq!(want.map(f64::to_bits), got().map(f64::to_bits));
        let other = std::thread::spawn(move || got().map(f64::to_bits))
            .join()
            .unwrap();
        assert_eq!(want.map(f64::to_bits), other);
        // a different delay is its own integral
        assert_ne!(
            delayed_win_rate_each(&a, &b, 3.0, 7.0, 11.0).to_bits(),
            want[2].to_bits()
        );
    }
}
