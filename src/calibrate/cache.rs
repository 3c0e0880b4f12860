//! The request profile from what providers log about the cache: the cacheable prefix, the
//! fresh input and the cache hit rate (MODEL.md §5, "prompt caching").
//!
//! Providers report the cache differently, and every reader passes on what the record holds
//! (input tokens include the cached ones, as OpenTelemetry's `gen_ai.usage.input_tokens` and
//! LiteLLM's `prompt_tokens` do):
//! - **reads and writes** (Anthropic: `cache_read_input_tokens` and
//!   `cache_creation_input_tokens`): the prefix is read + written, fresh input is input − read
//!   − written, and the hit rate the share of prefix tokens read;
//! - **reads only** (OpenAI: `prompt_tokens_details.cached_tokens`; Gemini:
//!   `cached_content_token_count`): a write is not reported, so a miss looks like fresh input.
//!   The prefix P is the mean read of the attempts that read the cache (the hits); an attempt
//!   that read nothing but whose input is at least P (to the 1.09% bin of the input's
//!   histogram) is a miss: it carried the prefix, written or not cached, and its fresh input is
//!   input − P; a shorter one had no prefix (fresh input = input). The hit rate is then the
//!   share of prefix tokens read: Σ reads / (Σ reads + misses × P);
//! - **nothing** about the cache: every input token is fresh and no prefix is measured.
//!
//! An attempt with no cache field at all, of a model whose other attempts report reads, is
//! taken as a zero read (instrumentations leave a zero attribute out).

use super::stats::{LogHist, MAX_SHIFT, Mean, Ratio, coarse, room};

/// Per input-token bin: count, Σ input, Σ input² of the attempts that read nothing (only the
/// bins in use, ascending: 26 bytes a bin). The bins are [`LogHist`]'s, 1.09% wide, or 2^shift
/// of them merged once [`SumHist::coarsen`]ed.
#[derive(Debug, Clone, Default)]
pub struct SumHist {
    bins: Vec<u16>,
    sums: Vec<(u64, f64, f64)>,
    shift: u8,
}

impl SumHist {
    /// Bytes the bins in use take (26 a bin).
    pub fn bin_bytes(&self) -> usize {
        self.bins.len() * 26
    }

    /// The shift of [`SumHist::coarsen`] (0: the 1.09% bins).
    pub fn shift(&self) -> u8 {
        self.shift
    }

    /// The bins hold 2^shift fine bins each from now on: adjacent bins are merged (counts and
    /// sums add) and the memory they no longer need is given back. A shift at or below the
    /// current one changes nothing.
    pub fn coarsen(&mut self, shift: u8) {
        let shift = shift.min(MAX_SHIFT);
        if shift <= self.shift {
            return;
        }
        self.shift = shift;
        // In place: the merged bins are written over the first ones, then the vectors shrink
        // where they are.
        let mut w = 0;
        for r in 0..self.bins.len() {
            let c = coarse(usize::from(self.bins[r]), shift) as u16;
            let e = self.sums[r];
            if w > 0 && self.bins[w - 1] == c {
                let t = &mut self.sums[w - 1];
                t.0 += e.0;
                t.1 += e.1;
                t.2 += e.2;
            } else {
                self.bins[w] = c;
                self.sums[w] = e;
                w += 1;
            }
        }
        self.bins.truncate(w);
        self.sums.truncate(w);
        self.bins.shrink_to_fit();
        self.sums.shrink_to_fit();
    }

    fn add(&mut self, x: f64) {
        let b = coarse(LogHist::bin(x), self.shift) as u16;
        let i = match self.bins.binary_search(&b) {
            Ok(i) => i,
            Err(i) => {
                room(&mut self.bins);
                room(&mut self.sums);
                self.bins.insert(i, b);
                self.sums.insert(i, (0, 0.0, 0.0));
                i
            }
        };
        let e = &mut self.sums[i];
        e.0 += 1;
        e.1 += x;
        e.2 += x * x;
    }

    /// (count, Σx, Σx²) over the bins at or above `from` (`above`) or below it; once
    /// coarsened, the bin holding `from` counts as above (values down to one bin, 2^shift fine
    /// bins, below `from` are above).
    fn sums(&self, from: usize, above: bool) -> (u64, f64, f64) {
        let from = coarse(from, self.shift);
        self.bins
            .iter()
            .zip(&self.sums)
            .filter(|(b, _)| (usize::from(**b) >= from) == above)
            .fold((0, 0.0, 0.0), |(n, s, q), (_, e)| {
                (n + e.0, s + e.1, q + e.2)
            })
    }
}

/// The cache counts of one model's successful attempts.
#[derive(Debug, Clone, Default)]
pub struct CacheStats {
    /// Attempts reporting a write (Anthropic): fresh input tokens (input − read − written).
    pub both_fresh: Mean,
    /// Their prefix (read + written).
    pub both_prefix: Mean,
    /// Their hit rate (tokens read over prefix tokens), over attempts with a prefix.
    pub both_hits: Ratio,
    /// Attempts that read the cache without reporting a write: their read tokens.
    pub hit_read: Mean,
    /// Their fresh input (input − read).
    pub hit_fresh: Mean,
    /// Attempts that read nothing and report no write: their input tokens, binned with sums.
    pub zero_read: SumHist,
    /// Attempts whose cache tokens exceed their input (impossible when input includes them):
    /// the evidence that the model's input excludes the cache ([`CacheStats::excludes_cache`]).
    pub over_input: u64,
    /// Attempts that read or wrote the cache.
    pub with_cache: u64,
    /// The fresh input of the attempts with a write, and of the reads-only hits, were their
    /// input to exclude the cache (Anthropic's native usage: fresh = input).
    pub excl_fresh: Mean,
}

impl CacheStats {
    /// Count one successful attempt's input (cached tokens included) and cache counts.
    pub fn add(&mut self, input: u64, read: Option<u64>, write: Option<u64>) {
        let r = read.unwrap_or(0);
        match write {
            Some(w) => {
                let prefix = r.saturating_add(w);
                if prefix > input {
                    self.over_input += 1;
                }
                if prefix > 0 {
                    self.with_cache += 1;
                }
                self.excl_fresh.add(input as f64);
                self.both_fresh.add(input.saturating_sub(prefix) as f64);
                self.both_prefix.add(prefix as f64);
                if prefix > 0 {
                    self.both_hits.add(r as f64, prefix as f64);
                }
            }
            None if r > 0 => {
                if r > input {
                    self.over_input += 1;
                }
                self.with_cache += 1;
                self.excl_fresh.add(input as f64);
                self.hit_read.add(r as f64);
                self.hit_fresh.add(input.saturating_sub(r) as f64);
            }
            None => self.zero_read.add(input as f64),
        }
    }

    /// Whether this model's input tokens exclude the cached ones (Anthropic's native
    /// `input_tokens`, Langfuse's `input`), decided from the records: at least 1% of the
    /// attempts that read or wrote the cache (and at least one) report more cache tokens than
    /// input, which cannot happen when input includes them (the OTel GenAI semconv's
    /// `gen_ai.usage.input_tokens`, OpenAI's and LiteLLM's `prompt_tokens`). Then every
    /// attempt's input is taken as fresh input, the cache tokens on top.
    pub fn excludes_cache(&self) -> bool {
        self.over_input > 0 && self.over_input * 100 >= self.with_cache
    }

    /// The request profile these counts give ([`Profile`]).
    pub fn profile(&self) -> Profile {
        let excl = self.excludes_cache();
        let mut p = Profile {
            fresh: if excl {
                self.excl_fresh
            } else {
                self.both_fresh
            },
            prefix: self.both_prefix,
            hits: self.both_hits,
            reads_only_hits: self.hit_read.n,
            ..Profile::default()
        };
        if !excl {
            p.fresh.merge(&self.hit_fresh);
        }
        p.prefix.merge(&self.hit_read);
        let (n0, s0, q0) = self.hit_read.sums();
        if n0 == 0 {
            // No read without a write: the attempts that read nothing had no prefix.
            let (n, s, q) = self.zero_read.sums(0, true);
            p.fresh.merge(&Mean::from_sums(n, s, q));
            p.prefix.merge(&Mean::from_sums(n, 0.0, 0.0));
            return p;
        }
        let big = self.hit_read.mean();
        let from = LogHist::bin(big);
        let (nm, sm, qm) = self.zero_read.sums(from, true);
        let (ns, ss, qs) = self.zero_read.sums(from, false);
        p.misses = nm;
        p.prefix_estimate = big;
        // Misses: fresh input − P, prefix P.
        let nmf = nm as f64;
        p.fresh.merge(&Mean::from_sums(
            nm,
            sm - nmf * big,
            qm - 2.0 * big * sm + nmf * big * big,
        ));
        p.prefix
            .merge(&Mean::from_sums(nm, nmf * big, nmf * big * big));
        // Shorter than the prefix: no prefix.
        p.fresh.merge(&Mean::from_sums(ns, ss, qs));
        p.prefix.merge(&Mean::from_sums(ns, 0.0, 0.0));
        // Hits read r of prefix r; misses read 0 of P.
        p.hits.merge(&Ratio::from_sums(
            n0 + nm,
            s0,
            s0 + nmf * big,
            q0,
            q0 + nmf * big * big,
            q0,
        ));
        p
    }
}

/// One model's (or every model's) request profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Profile {
    /// Fresh (uncached) input tokens per successful attempt that reported input.
    pub fresh: Mean,
    /// Cacheable prefix tokens per such attempt (0 for one without a prefix).
    pub prefix: Mean,
    /// Prefix tokens read over prefix tokens.
    pub hits: Ratio,
    /// Attempts that read the cache without reporting a write (the reads-only inference).
    pub reads_only_hits: u64,
    /// Attempts that read nothing with an input at least the prefix: the inferred misses.
    pub misses: u64,
    /// The prefix the misses were measured against (the hits' mean read), tokens.
    pub prefix_estimate: f64,
}

impl Profile {
    /// Add another model's profile.
    pub fn merge(&mut self, o: &Profile) {
        self.fresh.merge(&o.fresh);
        self.prefix.merge(&o.prefix);
        self.hits.merge(&o.hits);
        self.reads_only_hits += o.reads_only_hits;
        self.misses += o.misses;
        if o.reads_only_hits > 0 {
            self.prefix_estimate = o.prefix_estimate.max(self.prefix_estimate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The case: 800 fresh + 6,000 prefix at 80% hits, reads only (OpenAI's usage).
    #[test]
    fn reads_only_a_zero_read_as_long_as_the_prefix_is_a_miss() {
        let mut c = CacheStats::default();
        for i in 0..100 {
            let hit = i % 5 != 0;
            c.add(6800, Some(if hit { 6000 } else { 0 }), None);
        }
        // 20 short requests with no prefix at all.
        for _ in 0..20 {
            c.add(500, Some(0), None);
        }
        let p = c.profile();
        assert_eq!(p.misses, 20);
        // (100 × 800 + 20 × 500) / 120 = 750.
        assert!((p.fresh.mean() - 750.0).abs() < 1e-9, "{}", p.fresh.mean());
        // (100 × 6000) / 120 = 5000.
        assert!((p.prefix.mean() - 5000.0).abs() < 1e-9);
        assert!((p.hits.value() - 0.8).abs() < 1e-12, "{}", p.hits.value());
    }

    /// Widened zero-read bins keep every count and sum; a zero read within one wide bin below
    /// the prefix counts as a miss (the stated error), one further below does not.
    #[test]
    fn widened_zero_read_bins_keep_the_sums() {
        let mut c = CacheStats::default();
        for _ in 0..10 {
            c.add(6800, Some(6000), None);
        }
        for x in [500, 5800, 5950, 6800, 9000] {
            c.add(x, Some(0), None);
        }
        let exact = c.profile();
        // 5,950 is 0.8% short of the 6,000-token prefix (bin 1,441 of 1,442): no prefix in the
        // fine bins; 5,800 (bin 1,438) neither.
        assert_eq!(exact.misses, 2);
        c.zero_read.coarsen(3);
        assert_eq!(c.zero_read.sums(0, true), (5, 28050.0, 196_532_500.0));
        let wide = c.profile();
        // Bins of 8: 1,441..1,448 holds 5,950 and 6,000, not 5,800 (in 1,433..1,440).
        assert!(5950.0 >= 6000.0 / (1.0 + crate::calibrate::stats::bin_width(3)));
        assert_eq!(wide.misses, 3, "within 9.05% of the prefix: a miss");
        assert_eq!(wide.fresh.n, exact.fresh.n);
    }

    /// Anthropic reports reads and writes: the prefix is both, the hit rate the share read.
    #[test]
    fn reads_and_writes_give_the_prefix_directly() {
        let mut c = CacheStats::default();
        for i in 0..10 {
            let hit = i % 5 != 0;
            let (r, w) = if hit { (6000, 0) } else { (0, 6000) };
            c.add(6800, Some(r), Some(w));
        }
        let p = c.profile();
        assert_eq!(p.fresh.mean(), 800.0);
        assert_eq!(p.prefix.mean(), 6000.0);
        assert!((p.hits.value() - 0.8).abs() < 1e-12);
        assert_eq!(p.misses, 0);
    }

    /// Input that excludes the cache (Anthropic's native usage): read from the records that
    /// report more cache tokens than input, and then every attempt's input is fresh.
    #[test]
    fn input_without_the_cache_is_recognised() {
        let mut c = CacheStats::default();
        for i in 0..100 {
            // 800 fresh, 6,000 prefix; a few prompts with a long fresh part (9,000 > 6,000).
            let fresh = if i % 10 == 0 { 9000 } else { 800 };
            let (r, w) = if i % 5 != 0 { (6000, 0) } else { (0, 6000) };
            c.add(fresh, Some(r), Some(w));
        }
        assert!(c.excludes_cache());
        let p = c.profile();
        assert!((p.fresh.mean() - 1620.0).abs() < 1e-9, "{}", p.fresh.mean());
        assert_eq!(p.prefix.mean(), 6000.0);
        let mut inclusive = CacheStats::default();
        inclusive.add(6800, Some(6000), Some(0));
        assert!(!inclusive.excludes_cache());
    }

    /// No cache field at all: every input token is fresh.
    #[test]
    fn no_cache_fields_is_all_fresh() {
        let mut c = CacheStats::default();
        c.add(1000, None, None);
        c.add(3000, None, None);
        let p = c.profile();
        assert_eq!(p.fresh.mean(), 2000.0);
        assert_eq!(p.prefix.mean(), 0.0);
        assert_eq!(p.hits.n, 0);
    }
}
