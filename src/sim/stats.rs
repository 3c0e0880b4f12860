//! Mergeable sample statistics: counts, sums and sums of squares, merged in a fixed order.

use serde::Serialize;

/// z₀.₉₇₅: a 95% two-sided normal interval is mean ± 1.959964·SE.
pub const Z95: f64 = 1.959_963_984_540_054;
/// z₀.₉₉₅: a 99% two-sided normal interval is mean ± 2.575829·SE.
pub const Z99: f64 = 2.575_829_303_548_901;

/// z₀.₉₉₉₅: a 99.9% two-sided normal interval is mean ± 3.290527·SE.
pub const Z999: f64 = 3.290_526_731_491_926;

/// Whether the analytic value `exact` agrees with the Monte Carlo estimate `e`: inside its
/// interval, or within 1e-9 relative of its mean. The second clause covers figures whose
/// variation is too rare to be seen in the sample (a zero-width interval around a mean that
/// differs from the exact value by a 1e-10 probability event).
pub fn agrees(e: &Estimate, exact: f64) -> bool {
    e.contains(exact) || (e.mean - exact).abs() <= 1e-9 * exact.abs().max(e.mean.abs())
}

/// Whether a figure the Monte Carlo found constant is consistent with its analytic value
/// through rare events it never saw: all `sum.n` samples were equal, and the figure moves by
/// about `per_event` per event (1 for a count; the mean USD of one event for a cost), so the
/// gap to `exact` is `n · |mean − exact| / per_event` events over the whole sample. A normal
/// interval says nothing here (its width is 0); by Poisson, seeing none of them has
/// probability e^(−events), at least 0.1% while the gap is at most ln 1000 ≈ 6.9 events.
/// Examples: 150 windows without a failed request when 0.0079 are expected per window; 38
/// cold starts in every window when 37.965 are expected (a session that rarely never reaches
/// the fallback). Returns false for a non-positive `per_event`.
pub fn rare_events_unseen(sum: &Sum, exact: f64, per_event: f64) -> bool {
    let events = sum.n as f64 * (sum.mean() - exact).abs() / per_event;
    sum.std_error() == 0.0 && per_event > 0.0 && events <= 1000f64.ln()
}

/// A running sum of many small amounts that keeps the low-order bits a plain `+=` drops
/// (Neumaier's compensated summation): a year-long incident window adds 31.5 million request
/// bills, and a plain sum drifts by about a billionth of the total (7 cents in $28.8 million),
/// enough to put an analytic figure outside an interval that is exactly 0 wide. Add with
/// `+=`, read with [`Compensated::value`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Compensated {
    sum: f64,
    carry: f64,
}

impl Compensated {
    /// The sum.
    pub fn value(&self) -> f64 {
        self.sum + self.carry
    }
}

impl std::ops::AddAssign<f64> for Compensated {
    #[inline]
    fn add_assign(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.carry += (self.sum - t) + x;
        } else {
            self.carry += (x - t) + self.sum;
        }
        self.sum = t;
    }
}

/// Running statistics of one per-sample quantity (USD, counts…): the count, the mean and the
/// sum of squared deviations M₂, updated with Welford's method and merged with Chan et al.'s
/// formula. Unlike Σx and Σx², this keeps M₂ exactly 0 for a constant quantity and loses no
/// precision to cancellation, so an interval is never float noise.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sum {
    /// Samples.
    pub n: u64,
    /// Their mean.
    mean: f64,
    /// Σ (x − mean)².
    m2: f64,
}

impl Sum {
    /// Add one sample.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Add `count` samples all equal to `x` (the counted common outcomes).
    pub fn add_many(&mut self, x: f64, count: u64) {
        self.merge(&Sum {
            n: count,
            mean: x,
            m2: 0.0,
        });
    }

    /// Merge `other` into `self`. Float addition is not associative: merge in a fixed order.
    pub fn merge(&mut self, other: &Sum) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let (na, nb) = (self.n as f64, other.n as f64);
        let n = na + nb;
        let d = other.mean - self.mean;
        self.mean += d * nb / n;
        self.m2 += other.m2 + d * d * na * nb / n;
        self.n += other.n;
    }

    /// The sample mean (0 without samples).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The statistics of `n` samples with this `mean` and sum of squared deviations `m2`.
    pub fn from_moments(n: u64, mean: f64, m2: f64) -> Sum {
        Sum {
            n,
            mean,
            m2: m2.max(0.0),
        }
    }

    /// The sample standard deviation, √(M₂ / (n − 1)) (0 below 2 samples).
    pub fn std_dev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        (self.m2 / (self.n as f64 - 1.0)).sqrt()
    }

    /// The standard error of the mean, √(s² / n) with the unbiased sample variance s².
    pub fn std_error(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        ((self.m2 / (n - 1.0)).max(0.0) / n).sqrt()
    }

    /// The mean with its two-sided normal interval at `z` standard errors, scaled by `scale`
    /// (e.g. 1,000 for per-1k figures).
    pub fn estimate(&self, z: f64, scale: f64) -> Estimate {
        Estimate::normal(self.mean(), self.std_error(), z, scale)
    }
}

impl crate::figures::Accumulate for Sum {
    #[inline]
    fn add(&mut self, x: f64) {
        Sum::add(self, x);
    }
}

impl crate::figures::Merge for Sum {
    fn add_many(&mut self, x: f64, n: u64) {
        Sum::add_many(self, x, n);
    }

    fn merge(&mut self, other: &Sum) {
        Sum::merge(self, other);
    }
}

/// The estimate of a weighted sum Σ wᵢ·μᵢ of the means of independent samples (chains
/// simulated on streams of their own): mean Σ wᵢ·x̄ᵢ, standard error √(Σ wᵢ²·SEᵢ²), its
/// two-sided normal interval at `z` standard errors, scaled by `scale` as in [`Sum::estimate`].
/// Blended traffic-share rows weight each chain's per-request figure by its share, and add the
/// chains' incident windows with weight 1. With one part of weight 1 it is exactly
/// `sum.estimate(z, scale)` (√(SE²) = SE in binary floating point).
pub fn weighted_estimate<'a>(
    parts: impl IntoIterator<Item = (f64, &'a Sum)>,
    z: f64,
    scale: f64,
) -> Estimate {
    let (mut mean, mut var) = (0.0, 0.0);
    for (w, s) in parts {
        let se = w * s.std_error();
        mean += w * s.mean();
        var += se * se;
    }
    Estimate::normal(mean, var.sqrt(), z, scale)
}

/// The running total of Σ(x − K) in a [`Shifted`]: a plain `f64`, or [`Compensated`].
pub trait Total: Copy + Default + PartialEq + std::fmt::Debug + std::ops::AddAssign<f64> {
    /// The total.
    fn total(&self) -> f64;
}

impl Total for f64 {
    #[inline]
    fn total(&self) -> f64 {
        *self
    }
}

impl Total for Compensated {
    #[inline]
    fn total(&self) -> f64 {
        self.value()
    }
}

/// Cheap running sums for a hot loop: Σ(x − K) and Σ(x − K)² around the first sample K, so a
/// constant quantity sums to exactly 0 spread (no division per sample, unlike [`Sum::add`]).
/// Convert with [`Shifted::to_sum`] once per chunk. `T` keeps Σ(x − K): a plain `f64` (the
/// steady fast path), or [`Compensated`] ([`ShiftedExact`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Shifted<T: Total = f64> {
    n: u64,
    k: f64,
    s1: T,
    s2: f64,
}

/// [`Shifted`] with Σ(x − K) compensated ([`Compensated`], Neumaier): for the policy
/// simulator, whose every figure of every request is summed (250,000 a chunk). A figure that is
/// mostly one value other than K (a wasted cost mostly 0 in a chunk whose first request wasted
/// something) adds the same inexact d = x − K again and again, and a plain sum rounds the
/// same way each time: the mean drifts by ~1e-11 relative, where [`Sum::add`]'s Welford
/// update stayed within ~1e-13. Compensated, the sum keeps its low-order bits; still no
/// division per sample.
pub type ShiftedExact = Shifted<Compensated>;

impl<T: Total> crate::figures::Accumulate for Shifted<T> {
    #[inline]
    fn add(&mut self, x: f64) {
        Shifted::add(self, x);
    }
}

impl<T: Total> Shifted<T> {
    /// Add one sample.
    #[inline]
    pub fn add(&mut self, x: f64) {
        if self.n == 0 {
            self.k = x;
        }
        self.n += 1;
        let d = x - self.k;
        self.s1 += d;
        self.s2 += d * d;
    }

    /// Whether no sample was added.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The same samples as a [`Sum`].
    pub fn to_sum(&self) -> Sum {
        if self.n == 0 {
            return Sum::default();
        }
        let (n, s1) = (self.n as f64, self.s1.total());
        Sum::from_moments(self.n, self.k + s1 / n, self.s2 - s1 * s1 / n)
    }
}

/// A Monte Carlo mean and its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The sample mean.
    pub mean: f64,
    /// Lower end of the interval.
    pub lo: f64,
    /// Upper end of the interval.
    pub hi: f64,
}

impl Estimate {
    /// `mean` ± `z`·`se`, every figure multiplied by `scale` (e.g. 1,000 for per-1k figures),
    /// in the unit of the samples times `scale`.
    pub fn normal(mean: f64, se: f64, z: f64, scale: f64) -> Estimate {
        let h = z * se;
        Estimate {
            mean: mean * scale,
            lo: (mean - h) * scale,
            hi: (mean + h) * scale,
        }
    }

    /// Whether `x` lies in [lo, hi], allowing for float rounding (1e-12 relative) so that a
    /// zero-variance estimate contains its exact value.
    pub fn contains(&self, x: f64) -> bool {
        let slack = 1e-12 * x.abs().max(self.mean.abs()).max(1e-300);
        x >= self.lo - slack && x <= self.hi + slack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 31.5 million bills of $0.9146 (a year at 1 req/s): the compensated sum is exact to
    /// the float's last bits where a plain one is cents off.
    #[test]
    fn compensated_sums_keep_the_cents() {
        let (n, x) = (31_536_000u64, 0.9146);
        let mut plain = 0.0;
        let mut kept = Compensated::default();
        for _ in 0..n {
            plain += x;
            kept += x;
        }
        let exact = n as f64 * x;
        assert!(
            (kept.value() - exact).abs() <= exact * 1e-15,
            "{}",
            kept.value()
        );
        assert!(
            (plain - exact).abs() > 1e-3,
            "the plain sum drifts: {plain}"
        );
    }

    /// A chunk of 250,000 samples, one in 20 a wasted $0.015 and the rest 0, whose first
    /// sample is the $0.015: every 0 adds d = −0.015 around K. The compensated shifted sum
    /// gives the mean of the exact sum (12,500 × 0.015 / 250,000 = 0.00075) to 1e-14 (K + Σ/n
    /// cancels 20 to 1: 1.4e-15 measured), and the standard error of the spread by hand,
    /// 0.015² · 0.05 · 0.95 · n / (n − 1), to 1e-10 (Σd² is not compensated: 1.5e-11
    /// measured, a few units in the 12th digit of an interval's half-width); the plain sum's
    /// mean is off by 3.6e-11 (what moved the policy simulator's means before it was
    /// compensated).
    #[test]
    fn compensated_shifted_sums_keep_a_mostly_zero_mean() {
        let n = 250_000u64;
        let mut exact = ShiftedExact::default();
        let mut plain: Shifted = Shifted::default();
        for i in 0..n {
            let x = if i % 20 == 0 { 0.015 } else { 0.0 };
            exact.add(x);
            plain.add(x);
        }
        let (e, p) = (exact.to_sum(), plain.to_sum());
        assert_eq!(e.n, n);
        assert!((e.mean() / 0.00075 - 1.0).abs() < 1e-14, "{}", e.mean());
        let var = 0.015 * 0.015 * 0.05 * 0.95 * n as f64 / (n - 1) as f64;
        assert!((e.std_error() / (var / n as f64).sqrt() - 1.0).abs() < 1e-10);
        assert!((p.mean() / 0.00075 - 1.0).abs() > 1e-13, "{}", p.mean());
        assert!(ShiftedExact::default().is_empty() && !exact.is_empty());
    }

    #[test]
    fn mean_and_standard_error_by_hand() {
        let mut s = Sum::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            s.add(x);
        }
        assert_eq!(s.mean(), 2.5);
        // s² = 5/3, SE = √(5/12)
        assert!((s.std_error() - (5.0f64 / 12.0).sqrt()).abs() < 1e-15);
        let mut t = Sum::default();
        t.add_many(2.5, 4);
        s.merge(&t);
        // a constant quantity has no spread at all
        let mut c = Sum::default();
        for _ in 0..1000 {
            c.add(0.025);
        }
        c.add_many(0.025, 1_000_000);
        assert_eq!(c.std_error(), 0.0);
        assert_eq!(c.mean(), 0.025);
        // shifted sums give the same moments
        let mut sh: Shifted = Shifted::default();
        let mut w = Sum::default();
        for x in [3.0, 1.0, 4.0, 1.0, 5.0] {
            sh.add(x);
            w.add(x);
        }
        let t = sh.to_sum();
        assert_eq!(t.n, 5);
        assert!((t.mean() - w.mean()).abs() < 1e-15);
        assert!((t.std_error() - w.std_error()).abs() < 1e-15);
        assert_eq!(s.n, 8);
        // 150 windows without a failure: 0.0079 expected failures a window is 1.2 in all
        // (P(none) = 30%); 0.05 a window is 7.5 (P(none) = 0.06%)
        let mut none = Sum::default();
        none.add_many(0.0, 150);
        assert!(rare_events_unseen(&none, 0.0079, 1.0));
        assert!(!rare_events_unseen(&none, 0.05, 1.0));
        // 0.05 USD a window in events of 2 USD each: 3.75 events expected in all
        assert!(rare_events_unseen(&none, 0.05, 2.0));
        assert!(!rare_events_unseen(&none, 0.05, 0.5));
        let mut always = Sum::default();
        always.add_many(38.0, 150);
        assert!(rare_events_unseen(&always, 37.965, 1.0));
        assert!(!rare_events_unseen(&always, 37.9, 1.0));
        let mut seen = Sum::default();
        seen.add(1.0);
        seen.add_many(0.0, 149);
        assert!(!rare_events_unseen(&seen, 0.0079, 1.0));
        assert_eq!(s.mean(), 2.5);
        let e = s.estimate(Z95, 1000.0);
        assert_eq!(e.mean, 2500.0);
        assert!(e.lo < 2500.0 && e.hi > 2500.0);
        assert!(e.contains(2500.0) && !e.contains(5000.0));
    }

    #[test]
    fn weighted_estimates_add_independent_variances() {
        // a: mean 2.5, SE √(5/12); b: mean 10, SE √(5/12)·2 (the same spread, doubled)
        let (mut a, mut b) = (Sum::default(), Sum::default());
        for x in [1.0, 2.0, 3.0, 4.0] {
            a.add(x);
            b.add(2.0 * x + 5.0);
        }
        let e = weighted_estimate([(0.75, &a), (0.25, &b)], Z95, 1000.0);
        assert!((e.mean - (0.75 * 2500.0 + 0.25 * 10_000.0)).abs() < 1e-9);
        // SE² = 0.75²·(5/12) + 0.25²·4·(5/12) = (0.5625 + 0.25)·5/12
        let se = ((0.5625 + 0.25) * 5.0 / 12.0f64).sqrt();
        assert!((e.hi - e.mean - Z95 * se * 1000.0).abs() < 1e-9, "{e:?}");
        assert!((e.mean - e.lo - Z95 * se * 1000.0).abs() < 1e-9, "{e:?}");
        // one part of weight 1 is the part's own estimate, to the bit
        for s in [a, b] {
            assert_eq!(
                weighted_estimate([(1.0, &s)], Z95, 1000.0),
                s.estimate(Z95, 1000.0)
            );
        }
    }
}
