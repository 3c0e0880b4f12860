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

/// The widest [`LogHist::coarsen`] shift: bins of 2^6 = 64 fine bins, one octave.
pub const MAX_SHIFT: u8 = 6;

/// The bin that holds fine bin `bin` at `shift` (bins of 2^shift fine bins, from bin 1; bin 0,
/// zero and values below 1e-3, stays alone): the group's first fine bin.
pub fn coarse(bin: usize, shift: u8) -> usize {
    if bin == 0 || shift == 0 {
        bin
    } else {
        (((bin - 1) >> shift) << shift) + 1
    }
}

/// How wide a bin is at `shift`, as a fraction of the value: 2^(2^shift / 64) − 1 (1.09% at
/// 0, 2.19% at 1, 4.43% at 2, 9.05% at 3, 18.9% at 4).
pub fn bin_width(shift: u8) -> f64 {
    (f64::from(1u32 << shift) / PER_OCTAVE).exp2() - 1.0
}

/// How far a value read from a bin at `shift` (its geometric midpoint) can be from a value in
/// it, as a fraction: 2^(2^shift / 128) − 1 (0.54% at 0, 1.09% at 1, 2.19% at 2, 4.43% at 3).
pub fn bin_error(shift: u8) -> f64 {
    (f64::from(1u32 << shift) / (2.0 * PER_OCTAVE)).exp2() - 1.0
}

/// Values kept exactly before a [`LogHist`] bins them: up to this many, percentiles and their
/// intervals are exact order statistics.
pub const EXACT: usize = 128;

/// A histogram of positive values in bins equal in log scale (1.09% wide), from 1e-3 to about
/// 1e9 (seconds or tokens). The first [`EXACT`] values are kept exactly (percentiles are then
/// order statistics; [`LogHist::bins_only`] skips this for histograms read only by bin); past
/// that they are binned, sparsely (memory grows with the bins in use: 6 bytes a bin, 10 once a
/// bin holds more than 4,294,967,295 values, at most 2,560 bins), and a percentile reads as its
/// bin's geometric midpoint, within 0.55% of the exact sample percentile, with the interval's
/// ends at the outer bin edges. Zero and values below 1e-3 share the first bin and read as 0.
/// Once [`LogHist::coarsen`]ed (the models' histograms, when many share the memory budget),
/// a bin is 2^shift of these ([`bin_width`]) and a percentile reads within [`bin_error`].
#[derive(Debug, Clone, Default)]
pub struct LogHist {
    /// The values while there are at most [`EXACT`]; empty once binned.
    exact: Vec<f64>,
    /// Occupied bins, ascending, and their counts (binned mode).
    bins: Vec<u16>,
    counts: Counts,
    /// Whether values go to bins from the first ([`LogHist::bins_only`]).
    bins_only: bool,
    /// The bins hold 2^shift fine bins each ([`LogHist::coarsen`]; 0: the 1.09% bins).
    shift: u8,
    /// Values counted.
    pub n: u64,
}

/// The counts of a [`LogHist`]'s occupied bins: 4 bytes each until one would pass
/// `u32::MAX`, then 8 bytes each.
#[derive(Debug, Clone)]
enum Counts {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Counts {
    fn default() -> Counts {
        Counts::Narrow(Vec::new())
    }
}

/// Grow a vector that is full by a quarter (not double): the bins of a histogram are found
/// once and kept, so the spare room is at most a quarter of the bins in use.
pub(crate) fn room<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len() / 4 + 4);
    }
}

/// Add `k` to the count of `key` in the sorted `keys` and their parallel `counts`, inserting
/// it in order when new.
fn add_sorted(keys: &mut Vec<u16>, counts: &mut Counts, key: u16, k: u64) {
    match keys.binary_search(&key) {
        Ok(i) => counts.add(i, k),
        Err(i) => {
            room(keys);
            keys.insert(i, key);
            counts.insert(i, k);
        }
    }
}

impl Counts {
    fn get(&self, i: usize) -> u64 {
        match self {
            Counts::Narrow(v) => u64::from(v[i]),
            Counts::Wide(v) => v[i],
        }
    }

    /// Set the count at `i` to `k`.
    fn set(&mut self, i: usize, k: u64) {
        if let Counts::Narrow(v) = self {
            match u32::try_from(k) {
                Ok(c) => {
                    v[i] = c;
                    return;
                }
                Err(_) => self.widen(),
            }
        }
        if let Counts::Wide(v) = self {
            v[i] = k;
        }
    }

    /// Keep the first `n` counts and give back the rest of the room.
    fn truncate(&mut self, n: usize) {
        match self {
            Counts::Narrow(v) => {
                v.truncate(n);
                v.shrink_to_fit();
            }
            Counts::Wide(v) => {
                v.truncate(n);
                v.shrink_to_fit();
            }
        }
    }

    /// Every count as 8 bytes from now on.
    fn widen(&mut self) {
        if let Counts::Narrow(v) = self {
            *self = Counts::Wide(v.iter().map(|c| u64::from(*c)).collect());
        }
    }

    /// Add `k` to the count at `i`.
    fn add(&mut self, i: usize, k: u64) {
        if let Counts::Narrow(v) = self {
            match u32::try_from(u64::from(v[i]) + k) {
                Ok(c) => {
                    v[i] = c;
                    return;
                }
                Err(_) => self.widen(),
            }
        }
        if let Counts::Wide(v) = self {
            v[i] = v[i].saturating_add(k);
        }
    }

    /// Insert a new count `k` at `i`.
    fn insert(&mut self, i: usize, k: u64) {
        if let Counts::Narrow(v) = self {
            match u32::try_from(k) {
                Ok(c) => {
                    room(v);
                    v.insert(i, c);
                    return;
                }
                Err(_) => self.widen(),
            }
        }
        if let Counts::Wide(v) = self {
            room(v);
            v.insert(i, k);
        }
    }
}

impl LogHist {
    /// A histogram that bins every value from the first (no exact values): for durations read
    /// only by bin (failures: the timeout cluster, the gray and fast ones).
    pub fn bins_only() -> LogHist {
        LogHist {
            bins_only: true,
            ..LogHist::default()
        }
    }

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

    /// The upper edge of a bin (the last bin has none: infinity).
    pub fn upper_edge(bin: usize) -> f64 {
        if bin + 1 >= BINS {
            f64::INFINITY
        } else {
            Self::lower_edge(bin + 1)
        }
    }

    /// The value a bin of this histogram reads as: the geometric midpoint of its 2^shift fine
    /// bins (0 for bin 0).
    fn mid(&self, bin: usize) -> f64 {
        if bin == 0 || self.shift == 0 {
            Self::value(bin)
        } else {
            let half = f64::from(1u32 << self.shift) / 2.0;
            LO * ((bin as f64 - 1.0 + half) / PER_OCTAVE).exp2()
        }
    }

    /// The upper edge of a bin of this histogram (of the last of its fine bins).
    fn upper(&self, bin: usize) -> f64 {
        if bin == 0 {
            Self::upper_edge(0)
        } else {
            Self::upper_edge(bin + (1usize << self.shift) - 1)
        }
    }

    /// The bins hold 2^shift fine bins each ([`bin_width`] wide), from now on: adjacent bins
    /// are merged (counts add) and the memory they no longer need is given back. Exact values
    /// stay exact. A shift at or below the current one changes nothing.
    pub fn coarsen(&mut self, shift: u8) {
        let shift = shift.min(MAX_SHIFT);
        if shift <= self.shift {
            return;
        }
        self.shift = shift;
        if !self.binned() {
            return;
        }
        // In place: the merged bins are written over the first ones, then the vectors shrink
        // where they are (no new allocation, so nothing is left in pieces).
        let mut w = 0;
        for r in 0..self.bins.len() {
            let c = coarse(usize::from(self.bins[r]), shift) as u16;
            let k = self.counts.get(r);
            if w > 0 && self.bins[w - 1] == c {
                self.counts.add(w - 1, k);
            } else {
                self.bins[w] = c;
                self.counts.set(w, k);
                w += 1;
            }
        }
        self.bins.truncate(w);
        self.bins.shrink_to_fit();
        self.counts.truncate(w);
    }

    /// The shift of [`LogHist::coarsen`] (0: the 1.09% bins).
    pub fn shift(&self) -> u8 {
        self.shift
    }

    /// Bytes the bins in use take (2 for the bin, 4 or 8 for its count), exact values not
    /// counted.
    pub fn bin_bytes(&self) -> usize {
        let count = match self.counts {
            Counts::Narrow(_) => 4,
            Counts::Wide(_) => 8,
        };
        self.bins.len() * (2 + count)
    }

    fn binned(&self) -> bool {
        self.exact.is_empty() && self.n > 0
    }

    /// Count `x`.
    pub fn add(&mut self, x: f64) {
        if self.bins_only {
            self.add_bin(Self::bin(x), 1);
            return;
        }
        if !self.binned() && self.exact.len() < EXACT {
            self.exact.push(x);
            self.n += 1;
            return;
        }
        if !self.exact.is_empty() {
            self.bin_values();
        }
        self.add_bin(Self::bin(x), 1);
    }

    /// Move the exact values into bins.
    fn bin_values(&mut self) {
        let values = std::mem::take(&mut self.exact);
        self.n -= values.len() as u64;
        for x in values {
            self.add_bin(Self::bin(x), 1);
        }
    }

    /// Count `k` values in bin `bin` (the histogram is binned from then on).
    pub fn add_bin(&mut self, bin: usize, k: u64) {
        if k == 0 {
            return;
        }
        if !self.exact.is_empty() {
            self.bin_values();
        }
        let b = coarse(bin.min(BINS - 1), self.shift) as u16;
        add_sorted(&mut self.bins, &mut self.counts, b, k);
        self.n += k;
    }

    /// Add every value of `other` (exactly while both together hold at most [`EXACT`]).
    pub fn merge(&mut self, other: &LogHist) {
        if other.binned() {
            for (b, c) in other.occupied() {
                self.add_bin(b, c);
            }
        } else {
            for x in &other.exact {
                self.add(*x);
            }
        }
    }

    /// The occupied bins and their counts, ascending.
    pub fn occupied(&self) -> Vec<(usize, u64)> {
        if self.binned() {
            self.bins
                .iter()
                .enumerate()
                .map(|(i, b)| (usize::from(*b), self.counts.get(i)))
                .collect()
        } else {
            let mut v: Vec<usize> = self.exact.iter().map(|x| Self::bin(*x)).collect();
            v.sort_unstable();
            let mut out: Vec<(usize, u64)> = Vec::new();
            for b in v {
                match out.last_mut() {
                    Some((lb, c)) if *lb == b => *c += 1,
                    _ => out.push((b, 1)),
                }
            }
            out
        }
    }

    /// The count in `bin`.
    pub fn count(&self, bin: usize) -> u64 {
        self.occupied()
            .iter()
            .find(|(b, _)| *b == bin)
            .map_or(0, |(_, c)| *c)
    }

    /// Values counted in bins `from..` (at or above that bin's lower edge).
    pub fn count_from(&self, from: usize) -> u64 {
        self.occupied()
            .iter()
            .filter(|(b, _)| *b >= from)
            .map(|(_, c)| *c)
            .sum()
    }

    /// Values counted in bins `from..to`.
    pub fn count_between(&self, from: usize, to: usize) -> u64 {
        self.occupied()
            .iter()
            .filter(|(b, _)| (from..to).contains(b))
            .map(|(_, c)| *c)
            .sum()
    }

    /// The bin holding the value at 0-based rank `rank` (clamped to the sample).
    fn bin_at_rank(occupied: &[(usize, u64)], rank: u64) -> usize {
        let mut seen = 0;
        for (b, c) in occupied {
            seen += c;
            if seen > rank {
                return *b;
            }
        }
        occupied.last().map_or(0, |(b, _)| *b)
    }

    /// The `p`-quantile (0 < p < 1) and its 95% interval, or `None` for an empty histogram.
    ///
    /// The interval is distribution-free: the order statistics X(l) and X(u) with
    /// P(l ≤ B < u) ≥ 95% for B ~ Binomial(n, p) (the count below the true quantile), l and u
    /// from the exact binomial distribution up to 100,000 values and its normal approximation
    /// past that. With too few values for an end (a p99 from fewer than 299 values has no upper
    /// end) that end is `None`. Exact values give exact ends; binned values give the outer
    /// edges of the ends' bins (never a midpoint), so the interval still covers.
    pub fn quantile(&self, p: f64) -> Option<Quantile> {
        if self.n == 0 {
            return None;
        }
        let n = self.n;
        let (l, u) = rank_interval(n, p);
        // The point estimate: the order statistic of rank ceil(p n) (1-based).
        let mid = ((p * n as f64).ceil() as u64).clamp(1, n) - 1;
        if self.binned() {
            let occ = self.occupied();
            let at = |r: u64| Self::bin_at_rank(&occ, r);
            Some(Quantile {
                value: self.mid(at(mid)),
                lo: l.map(|l| Self::lower_edge(at(l - 1))),
                hi: u.map(|u| self.upper(at(u - 1))),
                n,
            })
        } else {
            let mut v = self.exact.clone();
            v.sort_by(f64::total_cmp);
            Some(Quantile {
                value: v[mid as usize],
                lo: l.map(|l| v[l as usize - 1]),
                hi: u.map(|u| v[u as usize - 1]),
                n,
            })
        }
    }

    /// The timeout cluster: the 3-bin window (about ±1.1%) holding the most values, if it is
    /// sharp (at least 4 times as dense as the 40 bins around it, and at least 3 values), as
    /// failures that all ran to one client timeout are. Returns the first bin of the window.
    pub fn sharp_peak(&self) -> Option<usize> {
        if self.n == 0 {
            return None;
        }
        let mut counts = vec![0u64; BINS];
        for (b, c) in self.occupied() {
            counts[b] = c;
        }
        let window = |b: usize| counts[b] + counts[b + 1] + counts[b + 2];
        let best = (1..BINS - 2).max_by_key(|&b| (window(b), std::cmp::Reverse(b)))?;
        let w = window(best);
        if w < 3 {
            return None;
        }
        let lo = best.saturating_sub(20).max(1);
        let hi = (best + 23).min(BINS);
        let around: u64 = counts[lo..hi].iter().sum::<u64>() - w;
        let around_bins = (hi - lo - 3).max(1) as f64;
        let density = w as f64 / 3.0;
        (density >= 4.0 * around as f64 / around_bins).then_some(best)
    }
}

/// Failure durations per error class in one sparse list: the [`LogHist`] bins of class `c`
/// are keys `c × 2,560 + bin`, only those in use, ascending (6 bytes a bin in use, 10 once a
/// count passes 4,294,967,295): a chain link's failures in two allocations, not twelve.
#[derive(Debug, Clone, Default)]
pub struct ClassHist {
    keys: Vec<u16>,
    counts: Counts,
}

impl ClassHist {
    /// Classes kept (the error classes).
    pub const CLASSES: usize = 6;

    /// Count a duration `x`, seconds, of class `class` (< [`ClassHist::CLASSES`]).
    pub fn add(&mut self, class: usize, x: f64) {
        self.add_key(class * BINS + LogHist::bin(x), 1);
    }

    /// Count `k` values of class `class` in bin `bin`.
    pub fn add_bin(&mut self, class: usize, bin: usize, k: u64) {
        if k > 0 {
            self.add_key(class * BINS + bin.min(BINS - 1), k);
        }
    }

    fn add_key(&mut self, key: usize, k: u64) {
        add_sorted(&mut self.keys, &mut self.counts, key as u16, k);
    }

    /// Add every value of `other`.
    pub fn merge(&mut self, other: &ClassHist) {
        for (i, key) in other.keys.iter().enumerate() {
            self.add_key(usize::from(*key), other.counts.get(i));
        }
    }

    /// Values counted, over every class.
    pub fn total(&self) -> u64 {
        (0..self.keys.len()).map(|i| self.counts.get(i)).sum()
    }

    /// Class `class`'s durations as a bins-only [`LogHist`].
    pub fn class(&self, class: usize) -> LogHist {
        let mut h = LogHist::bins_only();
        for (i, key) in self.keys.iter().enumerate() {
            let key = usize::from(*key);
            if key / BINS == class {
                h.add_bin(key % BINS, self.counts.get(i));
            }
        }
        h
    }
}

/// The 1-based ranks (l, u) of the distribution-free 95% interval of the `p`-quantile of `n`
/// values: l the largest with P(B ≤ l − 1) ≤ 2.5%, u the smallest with P(B ≤ u − 1) ≥ 97.5%,
/// B ~ Binomial(n, p); `None` for an end the sample cannot give (l < 1 or u > n).
pub fn rank_interval(n: u64, p: f64) -> (Option<u64>, Option<u64>) {
    if n > 100_000 {
        let nf = n as f64;
        let half = Z95 * (nf * p * (1.0 - p)).sqrt();
        let l = (nf * p - half).floor();
        let u = (nf * p + half).ceil() + 1.0;
        let l = (l >= 1.0).then_some(l as u64);
        let u = (u <= nf).then_some(u as u64);
        return (l, u);
    }
    // The binomial CDF, term by term in log space (the first terms underflow harmlessly).
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let mut log_pmf = n as f64 * lq;
    let mut cdf = 0.0;
    let (mut l, mut u) = (None, None);
    for k in 0..=n {
        if k > 0 {
            log_pmf += ((n - k + 1) as f64).ln() - (k as f64).ln() + lp - lq;
        }
        cdf += log_pmf.exp();
        // cdf = P(B <= k): l - 1 = k is allowed while it is <= 2.5%.
        if cdf <= 0.025 {
            l = Some(k + 1);
        }
        if u.is_none() && cdf >= 0.975 {
            u = Some(k + 1);
            break;
        }
    }
    (l.filter(|l| *l >= 1), u.filter(|u| *u <= n))
}

/// A quantile with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantile {
    /// The estimate.
    pub value: f64,
    /// Lower end of the 95% interval; `None` when too few values give one.
    pub lo: Option<f64>,
    /// Upper end of the 95% interval; `None` when too few values give one (a p99 from fewer
    /// than 299).
    pub hi: Option<f64>,
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

    /// The sums: (n, Σx, Σx²).
    pub fn sums(&self) -> (u64, f64, f64) {
        (self.n, self.sum, self.sum_sq)
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

    /// A ratio from its sums over `n` units: Σr, Σd, Σr², Σd², Σrd.
    pub fn from_sums(n: u64, r: f64, d: f64, rr: f64, dd: f64, rd: f64) -> Ratio {
        Ratio {
            n,
            r,
            d,
            rr,
            dd,
            rd,
        }
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
        let (lo, hi) = (q.lo.unwrap(), q.hi.unwrap());
        assert!(lo <= q.value && q.value <= hi);
        // Binned: the ends are the outer edges of their bins.
        assert_eq!(LogHist::bin(lo), LogHist::bin(lo * 1.000_001));
        assert_ne!(LogHist::bin(lo), LogHist::bin(lo * 0.999_999));
    }

    /// The median of 10 values: (X(2), X(9)), P = 1 - 2 x 11/1024 = 97.9% (hand-computed).
    #[test]
    fn order_statistic_intervals_from_the_binomial() {
        assert_eq!(rank_interval(10, 0.5), (Some(2), Some(9)));
        // A p99 of 100 values: P(B <= 99) = 1 - 0.99^100 = 63% < 97.5%, so no upper end.
        assert_eq!(rank_interval(100, 0.99).1, None);
        let (_, u) = rank_interval(473, 0.99);
        assert!(u.is_some_and(|u| u <= 473), "{u:?}");
        let mut h = LogHist::default();
        for i in 1..=10 {
            h.add(f64::from(i));
        }
        let q = h.quantile(0.5).unwrap();
        assert_eq!((q.value, q.lo, q.hi), (5.0, Some(2.0), Some(9.0)));
        let q = h.quantile(0.99).unwrap();
        assert_eq!(
            (q.value, q.hi),
            (10.0, None),
            "too few for a p99's upper end"
        );
    }

    /// Coverage: the 95% interval of a p99 covers the true quantile about 95% of the time or
    /// more (distribution-free), on 400 seeded samples of 1,000 exponential values.
    #[test]
    fn a_p99_interval_covers_the_truth() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let truth = -(0.01f64).ln();
        let mut covered = 0;
        for _ in 0..400 {
            let mut h = LogHist::default();
            for _ in 0..1000 {
                let u: f64 = rng.random();
                h.add(-(1.0 - u).ln());
            }
            let q = h.quantile(0.99).unwrap();
            if q.lo.unwrap() <= truth && truth <= q.hi.unwrap() {
                covered += 1;
            }
        }
        assert!(covered >= 372, "covered {covered} of 400");
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

    /// A bin's count passes `u32::MAX`: the counts widen to 8 bytes and stay exact.
    #[test]
    fn a_bin_past_four_billion_values_counts_exactly() {
        let mut h = LogHist::default();
        h.add_bin(5, u64::from(u32::MAX));
        h.add_bin(9, 2);
        assert!(matches!(h.counts, Counts::Narrow(_)));
        h.add_bin(5, 10);
        assert!(matches!(h.counts, Counts::Wide(_)));
        assert_eq!(h.occupied(), vec![(5, 4_294_967_305), (9, 2)]);
        h.add_bin(7, 1u64 << 40);
        assert_eq!(h.count(7), 1u64 << 40);
        assert_eq!(h.n, 4_294_967_307 + (1u64 << 40));
        let mut fresh = LogHist::default();
        fresh.add_bin(3, 1u64 << 33);
        assert_eq!(fresh.occupied(), vec![(3, 1u64 << 33)]);
    }

    /// A bins-only histogram reads as the default one does wherever bins are read (the
    /// failure durations), without keeping the values.
    #[test]
    fn a_bins_only_histogram_counts_as_the_default_one() {
        let mut exact = LogHist::default();
        let mut bins = LogHist::bins_only();
        for i in 0..50 {
            let x = 0.5 + f64::from(i) * 0.37;
            exact.add(x);
            bins.add(x);
        }
        assert!(bins.exact.is_empty());
        assert_eq!(exact.occupied(), bins.occupied());
        assert_eq!(
            exact.count_from(LogHist::bin(5.0)),
            bins.count_from(LogHist::bin(5.0))
        );
        let mut merged = LogHist::bins_only();
        merged.merge(&exact);
        assert_eq!(merged.occupied(), bins.occupied());
    }

    /// Widening keeps every count, reads a percentile within the stated error of the
    /// sample's, and its interval still covers the exact one.
    #[test]
    fn coarsened_bins_keep_counts_and_the_stated_error() {
        let mut fine = LogHist::default();
        for i in 1..=5000 {
            fine.add(0.1 * 1.001f64.powi(i));
        }
        let mut wide = fine.clone();
        wide.coarsen(3);
        assert_eq!(wide.shift(), 3);
        assert_eq!(wide.n, 5000);
        let total: u64 = wide.occupied().iter().map(|(_, c)| c).sum();
        assert_eq!(total, 5000);
        assert!(wide.occupied().len() * 7 < fine.occupied().len());
        assert!((bin_width(3) - 0.0905).abs() < 1e-4, "{}", bin_width(3));
        assert!((bin_error(3) - 0.0443).abs() < 1e-4, "{}", bin_error(3));
        for p in [0.5, 0.99] {
            let (f, w) = (fine.quantile(p).unwrap(), wide.quantile(p).unwrap());
            // The fine bins read within 0.55% of the sample: the wide ones within 4.43% more.
            let err = (w.value / f.value - 1.0).abs();
            assert!(err <= bin_error(3) + bin_error(0), "p{p}: {err}");
            assert!(w.lo.unwrap() <= f.lo.unwrap() && f.hi.unwrap() <= w.hi.unwrap());
        }
        // Values added after widening go to the wide bins; a narrower shift changes nothing.
        wide.add(1.0);
        wide.coarsen(1);
        assert_eq!((wide.shift(), wide.n), (3, 5001));
        assert_eq!(coarse(0, 3), 0);
        assert_eq!((coarse(1, 3), coarse(8, 3), coarse(9, 3)), (1, 1, 9));
    }

    /// One sparse list per link reads as six bins-only histograms, one per class.
    #[test]
    fn a_class_list_reads_as_one_histogram_a_class() {
        let mut list = ClassHist::default();
        let mut hists: [LogHist; 6] = std::array::from_fn(|_| LogHist::bins_only());
        for i in 0..600 {
            let (c, x) = (i % 6, 0.01 * 1.03f64.powi(i as i32 / 3));
            list.add(c, x);
            hists[c].add(x);
        }
        list.add_bin(5, BINS + 7, 3);
        hists[5].add_bin(BINS - 1, 3);
        let mut merged = ClassHist::default();
        merged.merge(&list);
        for (c, h) in hists.iter().enumerate() {
            assert_eq!(merged.class(c).occupied(), h.occupied(), "class {c}");
            assert_eq!(merged.class(c).n, h.n);
        }
        assert_eq!(merged.total(), 603);
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
