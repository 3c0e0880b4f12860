//! A fixed-size log-binned histogram for latency percentiles: memory flat in the sample count.
//!
//! Bins are equal in log-seconds: 64 per octave (factor 2), each 2^(1/64) − 1 = 1.09% wide,
//! from 2⁻¹⁰ s (≈ 1 ms) to 2²⁰ s (≈ 12 days), 1,920 bins. A latency is binned from its natural
//! log, which the simulation already has (latencies are drawn in the log domain), so binning
//! is a multiply and a truncation. A percentile is reported as the bin's geometric midpoint,
//! within 2^(1/128) − 1 = 0.55% of the exact sample percentile. Values outside the range land
//! in the end bins (and the result is then only a bound).

/// Bins per octave.
pub const PER_OCTAVE: usize = 64;
/// ln of the lower edge of the first bin (2⁻¹⁰ s).
pub const LN_LO: f64 = -10.0 * std::f64::consts::LN_2;
/// Number of bins: 30 octaves.
pub const BINS: usize = 30 * PER_OCTAVE;
/// Bin width in log-seconds.
pub const WIDTH: f64 = std::f64::consts::LN_2 / PER_OCTAVE as f64;
const INV_WIDTH: f64 = PER_OCTAVE as f64 / std::f64::consts::LN_2;

/// The largest relative error of a reported percentile against the exact sample percentile
/// (half a bin in log terms): 2^(1/128) − 1.
pub fn relative_error_bound() -> f64 {
    (WIDTH / 2.0).exp() - 1.0
}

/// Counts of latencies per log bin.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    counts: Box<[u64; BINS]>,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: Box::new([0; BINS]),
        }
    }
}

/// The bin of a latency whose natural log (log-seconds) is `ln_s`.
#[inline(always)]
pub fn bin(ln_s: f64) -> usize {
    // A saturating float-to-int cast (NaN and negatives give 0, too large gives u32::MAX), then
    // an integer clamp the compiler can see, so indexing a `[_; BINS]` needs no bounds check.
    (((ln_s - LN_LO) * INV_WIDTH) as u32 as usize).min(BINS - 1)
}

/// Bins straight from a standard normal draw z of a lognormal latency, ln L = μ + σ·z, for the
/// simulation's hot loop. The position x = (ln L − [`LN_LO`]) / [`WIDTH`] − ½ = a + b·z is one
/// multiply and one add; latencies compare by x as they do by ln L (x ≤ [`LogScale::at`] of
/// ln T means L ≤ T, up to float rounding); and the bin is x rounded to the nearest integer
/// ([`bin_at`]), which is ⌊(ln L − LN_LO)/WIDTH⌋: the same bin as [`bin`] except, up to float
/// rounding, at a bin's very edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogScale {
    a: f64,
    b: f64,
}

impl LogScale {
    /// The scale of ln L = `mu` + `sigma`·z (`mu` in log-seconds).
    pub fn new(mu: f64, sigma: f64) -> LogScale {
        LogScale {
            a: LogScale::at(mu),
            b: sigma * INV_WIDTH,
        }
    }

    /// The position x of the draw `z`.
    #[inline(always)]
    pub fn x(&self, z: f64) -> f64 {
        self.a + self.b * z
    }

    /// The position x of a latency whose natural log is `ln_s` (e.g. the timeout's).
    pub fn at(ln_s: f64) -> f64 {
        (ln_s - LN_LO) * INV_WIDTH - 0.5
    }
}

/// 1.5·2⁵²: adding it to an f64 x with |x| < 2⁵¹ rounds x to the nearest integer (ties to
/// even), which then sits in the low bits of the sum.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// The bin at position `x` ([`LogScale`]): x rounded to the nearest integer by adding 1.5·2⁵²
/// and reading the bits (no float-to-int conversion), clamped to the range. Exact for
/// |x| < 2⁵¹ (latencies within e^±10¹³ s); beyond, some bin in the range, never a panic.
#[inline(always)]
pub fn bin_at(x: f64) -> usize {
    let k = (x + ROUND).to_bits() as i64 - ROUND.to_bits() as i64;
    k.clamp(0, BINS as i64 - 1) as usize
}

impl Histogram {
    /// Count a latency given as its natural log (log-seconds).
    #[inline(always)]
    pub fn add_ln(&mut self, ln_s: f64) {
        self.counts[bin(ln_s)] += 1;
    }

    /// Count a latency in seconds.
    pub fn add_seconds(&mut self, s: f64) {
        self.add_ln(s.ln());
    }

    /// Count `n` samples in bin `i`.
    #[inline(always)]
    pub fn add_bin(&mut self, i: usize, n: u64) {
        self.counts[i] += n;
    }

    /// Add every count of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// Samples counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The `p`-quantile (p in (0, 1]) in seconds: the geometric midpoint of the bin holding the
    /// ⌈p·n⌉-th smallest sample. `None` without samples.
    pub fn quantile(&self, p: f64) -> Option<f64> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let rank = ((p * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(midpoint(i));
            }
        }
        None
    }
}

impl Histogram {
    /// The geometric midpoint of the bin holding the `rank`-th smallest sample (1-based),
    /// seconds: [`Histogram::quantile`] at an exact rank. `None` when `rank` is 0 or above
    /// the samples counted.
    pub fn at_rank(&self, rank: u64) -> Option<f64> {
        if rank == 0 {
            return None;
        }
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(midpoint(i));
            }
        }
        None
    }
}

/// The geometric midpoint of bin `i`, seconds: what a percentile in that bin is reported as.
fn midpoint(i: usize) -> f64 {
    (LN_LO + (i as f64 + 0.5) * WIDTH).exp()
}

/// The `p`-quantile (p in (0, 1]) in seconds of a mixture of samples: a request drawn from
/// histogram `h` with probability `w / Σw` for each `(h, w)` of `parts` (e.g. chains weighted by
/// their traffic shares). The mixture's distribution function is Σ wᵢ·Fᵢ / Σ wᵢ, each Fᵢ the
/// share of its histogram's samples at or below a bin; the quantile is the geometric midpoint
/// of the first bin where it reaches p, so the bound of [`relative_error_bound`] holds as for
/// one histogram. A mixture's percentile is not the weighted mean of the parts' percentiles.
/// One part is exactly [`Histogram::quantile`]. `None` when no part with a positive weight has
/// samples.
pub fn mixture_quantile(parts: &[(&Histogram, f64)], p: f64) -> Option<f64> {
    if let [(h, _)] = parts {
        return h.quantile(p);
    }
    // (counts, weight per sample) of the parts that carry any mass
    let parts: Vec<(&[u64; BINS], f64)> = parts
        .iter()
        .filter_map(|(h, w)| {
            let n = h.total();
            (n > 0 && *w > 0.0).then(|| (&*h.counts, *w / n as f64))
        })
        .collect();
    let total: f64 = parts
        .iter()
        .map(|(c, w)| w * c.iter().sum::<u64>() as f64)
        .sum();
    if parts.is_empty() || total <= 0.0 {
        return None;
    }
    let target = p.clamp(0.0, 1.0) * total;
    let mut seen = 0.0;
    let mut last = None;
    for i in 0..BINS {
        let mass: f64 = parts.iter().map(|(c, w)| w * c[i] as f64).sum();
        if mass == 0.0 {
            continue;
        }
        seen += mass;
        last = Some(i);
        // a relative slack for the rounding of the running sum, so p = 1 ends in the last
        // occupied bin and not past it
        if seen >= target * (1.0 - 1e-12) {
            return Some(midpoint(i));
        }
    }
    last.map(midpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Binning from a normal draw agrees with binning its log, away from the bins' edges, and
    /// clamps out-of-range latencies to the end bins.
    #[test]
    fn scaled_bins_match_log_bins() {
        let s = LogScale::new(0.7, 0.8);
        let mut checked = 0;
        for i in -4000..4000 {
            let z = i as f64 * 0.002_7;
            let ln = 0.7 + 0.8 * z;
            let pos = (ln - LN_LO) * INV_WIDTH;
            if (pos - pos.round()).abs() < 1e-9 {
                continue;
            }
            assert_eq!(bin_at(s.x(z)), bin(ln), "z {z}");
            checked += 1;
        }
        assert!(checked > 7900);
        assert_eq!(bin_at(LogScale::at(-100.0)), 0);
        assert_eq!(bin_at(LogScale::at(100.0)), BINS - 1);
        assert!(bin_at(f64::NAN) < BINS && bin_at(f64::INFINITY) < BINS);
        // comparing positions is comparing latencies
        assert!(s.x(1.0) <= LogScale::at(0.7 + 0.8 * 1.0 + 1e-12));
        assert!(s.x(1.0) > LogScale::at(0.7 + 0.8 * 1.0 - 1e-12));
    }

    #[test]
    fn quantiles_are_within_the_bound() {
        let mut h = Histogram::default();
        // 1..=1000 seconds / 100: 0.01 s to 10 s
        for i in 1..=1000 {
            h.add_seconds(i as f64 / 100.0);
        }
        assert_eq!(h.total(), 1000);
        let bound = relative_error_bound();
        assert!((bound - 0.005430).abs() < 1e-5, "{bound}");
        for (p, exact) in [(0.5, 5.0), (0.95, 9.5), (0.99, 9.9), (0.001, 0.01)] {
            let q = h.quantile(p).unwrap();
            assert!((q / exact - 1.0).abs() <= bound, "p{p}: {q} vs {exact}");
        }
        assert_eq!(Histogram::default().quantile(0.5), None);
    }

    #[test]
    fn mixture_quantiles_weight_the_parts_distributions() {
        // a: 1,000 samples at 1 s; b: 10 samples at 100 s. Weighted 0.9 / 0.1, 10% of the
        // mixture is at 100 s, so its p95 is 100 s, while the weighted p95s give 10.9 s and
        // the pooled samples (b under 1%) give 1 s.
        let (mut a, mut b) = (Histogram::default(), Histogram::default());
        for _ in 0..1000 {
            a.add_seconds(1.0);
        }
        for _ in 0..10 {
            b.add_seconds(100.0);
        }
        let bound = relative_error_bound();
        let q = |p: f64| mixture_quantile(&[(&a, 0.9), (&b, 0.1)], p).unwrap();
        assert!((q(0.5) - 1.0).abs() <= bound, "{}", q(0.5));
        assert!((q(0.89) - 1.0).abs() <= bound, "{}", q(0.89));
        assert!((q(0.95) / 100.0 - 1.0).abs() <= bound, "{}", q(0.95));
        assert!((q(1.0) / 100.0 - 1.0).abs() <= bound, "{}", q(1.0));
        // weights need not add up to 1; zero weights and empty parts carry no mass
        let empty = Histogram::default();
        assert_eq!(
            mixture_quantile(&[(&a, 9.0), (&b, 1.0), (&empty, 5.0)], 0.95),
            Some(q(0.95))
        );
        assert_eq!(
            mixture_quantile(&[(&a, 1.0), (&b, 0.0)], 0.99),
            a.quantile(0.99)
        );
        assert_eq!(mixture_quantile(&[(&empty, 1.0), (&empty, 1.0)], 0.5), None);
        // one part is the histogram's own quantile
        for p in [0.001, 0.5, 0.99, 1.0] {
            assert_eq!(mixture_quantile(&[(&b, 0.3)], p), b.quantile(p));
        }
    }

    #[test]
    fn out_of_range_values_land_in_the_end_bins() {
        assert_eq!(bin(f64::NEG_INFINITY), 0);
        assert_eq!(bin(-100.0), 0);
        assert_eq!(bin(100.0), BINS - 1);
        assert_eq!(bin(f64::NAN), 0);
    }
}
