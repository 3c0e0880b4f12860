//! The statistics `fallcost calibrate` writes: streaming means with their standard errors,
//! log-binned histograms for percentiles, Wilson intervals for rates, and the timeout cluster.
//! Nothing here stores a value per record: memory is flat in the number of records.

/// 95% two-sided normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Bins per octave of [`LogHist`]: each bin is 2^(1/64) − 1 ≈ 1.09% wide.
const PER_OCTAVE: f64 = 64.0;
/// Smallest value binned (smaller values, zero included, go to bin 0).
const LO: f64 = 1e-3;
/// Bins: 64 per octave from 1e-3 up to about 1.1e9 (40 octaves).
pub const BINS: usize = 2560;

/// A histogram of positive values in bins equal in log scale (1.09% wide), from 1e-3 to about
/// 1e9 (seconds or tokens); a percentile is read as its bin's geometric midpoint, within 0.55%
/// of the exact sample percentile. Zero and values below 1e-3 share the first bin and read as 0.
#[derive(Debug, Clone)]
pub struct LogHist {
    counts: Vec<u64>,
    /// Values counted.
    pub n: u64,
}

impl Default for LogHist {
    fn default() -> Self {
        LogHist {
            counts: vec![0; BINS],
            n: 0,
        }
    }
}

impl LogHist {
    /// The bin of `x`.
    pub fn bin(x: f64) -> usize {
        if x.is_nan() || x < LO {
            return 0;
        }
        let b = ((x / LO).log2() * PER_OCTAVE) as usize + 1;
        b.min(BINS - 1)
    }

    /// The value a bin reads as: its geometric midpoint (0 for bin 0).
    pub fn value(bin: usize) -> f64 {
        if bin == 0 {
            0.0
        } else {
            LO * ((bin as f64 - 0.5) / PER_OCTAVE).exp2()
        }
    }

    /// The lower edge of a bin.
    pub fn lower_edge(bin: usize) -> f64 {
        if bin == 0 {
            0.0
        } else {
            LO * ((bin as f64 - 1.0) / PER_OCTAVE).exp2()
        }
    }

    /// Count `x`.
    pub fn add(&mut self, x: f64) {
        self.counts[Self::bin(x)] += 1;
        self.n += 1;
    }

    /// Count `k` values in bin `bin`.
    pub fn add_bin(&mut self, bin: usize, k: u64) {
        self.counts[bin] += k;
        self.n += k;
    }

    /// Add every count of `other`.
    pub fn merge(&mut self, other: &LogHist) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
    }

    /// The count in `bin`.
    pub fn count(&self, bin: usize) -> u64 {
        self.counts[bin]
    }

    /// Values counted in bins `from..` (at or above that bin's lower edge).
    pub fn count_from(&self, from: usize) -> u64 {
        self.counts[from.min(BINS)..].iter().sum()
    }

    /// The value at 0-based rank `rank` (clamped to the sample).
    fn at_rank(&self, rank: u64) -> f64 {
        let rank = rank.min(self.n.saturating_sub(1));
        let mut seen = 0;
        for (b, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen > rank {
                return Self::value(b);
            }
        }
        0.0
    }

    /// The `p`-quantile (0 < p < 1) and its 95% interval from the binomial distribution of the
    /// rank (distribution-free), or `None` for an empty histogram.
    pub fn quantile(&self, p: f64) -> Option<Quantile> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let mid = (p * n).floor() as u64;
        let half = Z95 * (n * p * (1.0 - p)).sqrt();
        let lo = (p * n - half).floor().max(0.0) as u64;
        let hi = (p * n + half).ceil() as u64;
        Some(Quantile {
            value: self.at_rank(mid),
            lo: self.at_rank(lo),
            hi: self.at_rank(hi),
            n: self.n,
        })
    }

    /// The timeout cluster: the 3-bin window (about ±1.1%) holding the most values, if it is
    /// sharp (at least 4 times as dense as the 40 bins around it, and at least 3 values), as
    /// failures that all ran to one client timeout are. Returns the first bin of the window.
    pub fn sharp_peak(&self) -> Option<usize> {
        if self.n == 0 {
            return None;
        }
        let window = |b: usize| self.counts[b] + self.counts[b + 1] + self.counts[b + 2];
        let best = (1..BINS - 2).max_by_key(|&b| (window(b), std::cmp::Reverse(b)))?;
        let w = window(best);
        if w < 3 {
            return None;
        }
        let lo = best.saturating_sub(20).max(1);
        let hi = (best + 23).min(BINS);
        let around: u64 = self.counts[lo..hi].iter().sum::<u64>() - w;
        let around_bins = (hi - lo - 3).max(1) as f64;
        let density = w as f64 / 3.0;
        (density >= 4.0 * around as f64 / around_bins).then_some(best)
    }
}

/// A quantile with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantile {
    /// The estimate.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Values behind it.
    pub n: u64,
}

/// A streaming mean with its standard error (sums of x and x²).
#[derive(Debug, Clone, Copy, Default)]
pub struct Mean {
    /// Values counted.
    pub n: u64,
    sum: f64,
    sum_sq: f64,
}

impl Mean {
    /// Count `x`.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// A mean from its sums: `n` values, their sum and the sum of their squares.
    pub fn from_sums(n: u64, sum: f64, sum_sq: f64) -> Mean {
        Mean { n, sum, sum_sq }
    }

    /// Add every value of `other`.
    pub fn merge(&mut self, other: &Mean) {
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    /// The mean (0 for no values).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    /// The standard error of the mean (0 with fewer than 2 values).
    pub fn se(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let var = ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
        (var / n).sqrt()
    }

    /// The 95% interval of the mean, mean ± 1.96 SE.
    pub fn ci95(&self) -> (f64, f64) {
        let (m, h) = (self.mean(), Z95 * self.se());
        (m - h, m + h)
    }
}

/// The Wilson 95% interval of a rate of `k` events in `n` trials (`(0, 1)` for no trials).
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A ratio of sums Σr / Σd over units (attempts), with the delta-method standard error:
/// the cache hit rate as a share of prefix tokens.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ratio {
    /// Units counted.
    pub n: u64,
    r: f64,
    d: f64,
    rr: f64,
    dd: f64,
    rd: f64,
}

impl Ratio {
    /// Count one unit with numerator `r` and denominator `d`.
    pub fn add(&mut self, r: f64, d: f64) {
        self.n += 1;
        self.r += r;
        self.d += d;
        self.rr += r * r;
        self.dd += d * d;
        self.rd += r * d;
    }

    /// Add every unit of `other`.
    pub fn merge(&mut self, o: &Ratio) {
        self.n += o.n;
        self.r += o.r;
        self.d += o.d;
        self.rr += o.rr;
        self.dd += o.dd;
        self.rd += o.rd;
    }

    /// Σr / Σd (0 when Σd is 0).
    pub fn value(&self) -> f64 {
        if self.d > 0.0 { self.r / self.d } else { 0.0 }
    }

    /// The 95% interval, clamped to [0, 1].
    pub fn ci95(&self) -> (f64, f64) {
        let q = self.value();
        if self.n < 2 || self.d <= 0.0 {
            return (0.0, 1.0);
        }
        let n = self.n as f64;
        let dbar = self.d / n;
        // Var of (r_i - q d_i), the linearised ratio.
        let s = (self.rr - 2.0 * q * self.rd + q * q * self.dd) / (n - 1.0);
        let se = (s.max(0.0) / n).sqrt() / dbar;
        ((q - Z95 * se).max(0.0), (q + Z95 * se).min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_hand_computed_interval() {
        // 10 of 100: centre (0.1 + 1.9208/100) / 1.038415 = 0.114798, half-width 0.0575.
        let (lo, hi) = wilson(10, 100);
        assert!((lo - 0.05523).abs() < 1e-4, "{lo}");
        assert!((hi - 0.17437).abs() < 1e-4, "{hi}");
    }

    #[test]
    fn histogram_quantiles_are_within_a_bin() {
        let mut h = LogHist::default();
        for i in 1..=1000 {
            h.add(i as f64 / 100.0);
        }
        let q = h.quantile(0.5).unwrap();
        assert!((q.value / 5.0 - 1.0).abs() < 0.011, "{q:?}");
        let q = h.quantile(0.99).unwrap();
        assert!((q.value / 9.9 - 1.0).abs() < 0.011, "{q:?}");
        assert!(q.lo <= q.value && q.value <= q.hi);
    }

    #[test]
    fn a_timeout_cluster_is_a_sharp_peak_and_a_lognormal_is_not() {
        let mut h = LogHist::default();
        for i in 0..1000 {
            h.add(0.2 + i as f64 * 0.0006); // 0.2 .. 0.8 s, spread
        }
        assert_eq!(h.sharp_peak(), None);
        for _ in 0..50 {
            h.add(10.0);
        }
        let b = h.sharp_peak().unwrap();
        assert!(LogHist::lower_edge(b) <= 10.0 && 10.0 < LogHist::lower_edge(b + 3));
    }

    #[test]
    fn mean_and_ratio() {
        let mut m = Mean::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            m.add(x);
        }
        assert_eq!(m.mean(), 2.5);
        // sd = 1.29099, se = 0.645497
        assert!((m.se() - 0.645_497).abs() < 1e-6);
        let mut r = Ratio::default();
        r.add(9.0, 10.0);
        r.add(0.0, 10.0);
        assert_eq!(r.value(), 0.45);
    }
}
