//! The policy simulator's tally ([`PolicyTally`]): per pattern, the requests' figures summed
//! as shifted, compensated sums merged once per chunk, its usual requests counted by their bill
//! ([`BillKey`]) rather than summed, and recognised from their first draws
//! ([`PolicyTally::simulate`]).

use crate::figures::SteadyFigures;
use crate::model::Pattern;
use crate::sim::histogram::{Histogram, bin};
use crate::sim::rng::{SimRng, uniform};
use crate::sim::stats::{ShiftedExact, Sum};

use super::{PolicySim, ReqOut};

/// What a request adds to a [`PolicyTally`]'s sums and counts: every field of its
/// [`ReqOut`] but the latency (binned per request). Requests with equal keys add the same.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BillKey {
    /// USD billed.
    pub cost: f64,
    /// USD of attempts that did not produce the answer.
    pub wasted_cost: f64,
    /// Attempts made.
    pub attempts: u32,
    /// Dead time, seconds.
    pub dead_s: f64,
    /// The link that answered.
    pub answered: Option<usize>,
    /// Stopped by `max_attempts`.
    pub call_cap: bool,
    /// A cost-cap hit.
    pub cost_cap: bool,
    /// Its route passed over a fallback that cannot serve it.
    pub refused: bool,
}

impl BillKey {
    /// A request with this key (its latency 0).
    fn request(&self) -> ReqOut {
        ReqOut {
            cost: self.cost,
            wasted_cost: self.wasted_cost,
            attempts: self.attempts,
            dead_s: self.dead_s,
            answered: self.answered,
            call_cap: self.call_cap,
            cost_cap: self.cost_cap,
            refused: self.refused,
            ..ReqOut::default()
        }
    }
}

/// The usual requests [`PolicyTally::simulate`] recognises from their first draws, with the
/// positions of their keys in the tally's `common` list: the position [`PolicyTally::add`]
/// would find for the request, so a counted request lands where the general path puts it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum Shortcut {
    /// Every request runs through [`PolicySim::request`].
    #[default]
    None,
    /// `no-fallback` and `sequential` (the primary first in the route and at least one
    /// attempt allowed): the primary answers its first attempt at once.
    Alone {
        /// Position of the key.
        key: usize,
    },
    /// A hedge without a delay: both legs (links 0 and `p`) answer at once; the faster, or a
    /// drawn, leg wins.
    Race {
        /// The backup leg's link (the first allowed fallback).
        p: usize,
        /// Position of the primary-wins key.
        first: usize,
        /// Position of the backup-wins key.
        second: usize,
    },
}

impl Shortcut {
    /// The shortcut for `pattern` on `sim`, with the keys the general path gives those
    /// requests looked up in `common` (none when a key is missing: nothing to count it in).
    fn new(sim: &PolicySim, pattern: Pattern, common: &[(BillKey, u64)]) -> Shortcut {
        let at = |key: BillKey| common.iter().position(|(k, _)| *k == key);
        if sim.policy.max_attempts == Some(0)
            || sim.allowed.first() != Some(&0)
            || (pattern.is_hedged() && !sim.hedges())
        {
            return Shortcut::None;
        }
        if !pattern.is_hedged() {
            return at(sim.alone_key()).map_or(Shortcut::None, |key| Shortcut::Alone { key });
        }
        if sim.policy.hedge_delay_s.is_some() {
            return Shortcut::None;
        }
        let p = sim.allowed[1];
        let (first, second) = sim.race_keys(pattern);
        match (at(first), at(second)) {
            (Some(first), Some(second)) => Shortcut::Race { p, first, second },
            _ => Shortcut::None,
        }
    }

    /// A usual request's ln latency (seconds) and the position of its key, when the next
    /// draws make one; `None` as soon as they don't (the generator has then moved on: the
    /// caller rolls it back). The same draws in the same order as [`PolicySim::request`].
    #[inline(always)]
    pub(super) fn usual(self, sim: &PolicySim, rng: &mut SimRng) -> Option<(f64, usize)> {
        match self {
            Shortcut::None => None,
            Shortcut::Alone { key } => sim.answered_at_once(0, rng).map(|ln| (ln, key)),
            Shortcut::Race { p, first, second } => {
                let l0 = sim.answered_at_once(0, rng)?;
                let l1 = sim.answered_at_once(p, rng)?;
                let primary_wins = if sim.win_by_latency {
                    l0 <= l1
                } else {
                    uniform(rng) < sim.win_rate
                };
                Some(if primary_wins {
                    (l0, first)
                } else {
                    (l1, second)
                })
            }
        }
    }
}

/// Per-pattern sums of a chunk (or a run).
#[derive(Debug, Clone, Default)]
pub struct PolicyTally {
    /// The steady figures, per request.
    pub steady: SteadyFigures<Sum>,
    /// Attempts per request.
    pub attempts: Sum,
    /// The most attempts of any request.
    pub attempts_max: u32,
    /// Dead seconds per request.
    pub dead: Sum,
    /// Positive dead times (seconds).
    pub dead_hist: Histogram,
    /// Requests with no dead time.
    pub dead_zero: u64,
    /// Latency to the answer or the error.
    pub latency: Histogram,
    /// Requests answered per link.
    pub answered: Vec<u64>,
    /// Requests stopped by the call cap.
    pub call_cap: u64,
    /// Cost-cap hits (0/1 per request).
    pub cost_cap: Sum,
    /// Requests whose route passed over a fallback that cannot serve them.
    pub refused: u64,
    /// The requests added since the last [`PolicyTally::settle`], as shifted sums (no
    /// division per request and figure, unlike [`Sum::add`]).
    raw: RawSums,
    /// How [`PolicyTally::simulate`] recognises a usual request from its first draws.
    pub(super) shortcut: Shortcut,
    /// The usual requests' keys ([`PolicySim::common_outcomes`]) and how many requests since
    /// the last [`PolicyTally::settle`] had each: counted, not summed.
    pub(super) common: Vec<(BillKey, u64)>,
}

/// A chunk's running sums of the figures a [`PolicyTally`] holds as [`Sum`]s
/// ([`ShiftedExact`]: Σ(x − K), compensated, and Σ(x − K)² around the first sample K), moved
/// into them once per chunk.
#[derive(Debug, Clone, Default)]
struct RawSums {
    steady: SteadyFigures<ShiftedExact>,
    attempts: ShiftedExact,
    dead: ShiftedExact,
    cost_cap: ShiftedExact,
}

impl PolicyTally {
    /// An empty tally for a chain of `links` links.
    pub(crate) fn new(links: usize) -> Self {
        PolicyTally {
            answered: vec![0; links],
            ..PolicyTally::default()
        }
    }

    /// An empty tally for `pattern` on `sim` that counts its usual requests
    /// ([`PolicySim::common_outcomes`]) rather than summing them.
    pub fn for_pattern(sim: &PolicySim, pattern: Pattern) -> Self {
        let common: Vec<(BillKey, u64)> = (sim.common_outcomes(pattern).into_iter())
            .map(|k| (k, 0))
            .collect();
        PolicyTally {
            shortcut: Shortcut::new(sim, pattern, &common),
            common,
            ..PolicyTally::new(sim.links.len())
        }
    }

    /// Simulate one request under `pattern` (the pattern this tally was made for,
    /// [`PolicyTally::for_pattern`]) and count it: the same draws, figures and tally as
    /// `self.add(&sim.request(pattern, rng))`, bit for bit. A usual request (the primary, or
    /// each hedge leg, answering its first attempt at once) is recognised from its first draws
    /// and counted on the spot; any other is rolled back to its first draw (a copy of the
    /// generator) and run through [`PolicySim::request`].
    #[inline(always)]
    pub fn simulate(&mut self, sim: &PolicySim, pattern: Pattern, rng: &mut SimRng) {
        // The generator stays in registers on the usual path; the rare path gets a copy
        // (rolled back to this request's first draw) and hands it back.
        let start = rng.clone();
        let mut r = start.clone();
        if let Some((ln, key)) = self.shortcut.usual(sim, &mut r) {
            self.latency.add_ln(ln);
            self.common[key].1 += 1;
            *rng = r;
        } else {
            let mut spilled = start;
            self.simulate_rare(sim, pattern, &mut spilled);
            *rng = spilled;
        }
    }

    /// A request off the shortcut ([`PolicyTally::simulate`]): the general path, out of line.
    #[cold]
    #[inline(never)]
    fn simulate_rare(&mut self, sim: &PolicySim, pattern: Pattern, rng: &mut SimRng) {
        self.add(&sim.request(pattern, rng));
    }

    /// Count one request: its latency binned from its log ([`ReqOut::ln_latency`]); a usual
    /// request ([`PolicyTally::for_pattern`]) counted, any other summed; both wait until
    /// [`PolicyTally::settle`] (call it at the end of a chunk).
    #[inline]
    pub fn add(&mut self, r: &ReqOut) {
        self.latency.add_ln(r.ln_latency());
        let key = r.key();
        for (k, n) in &mut self.common {
            if *k == key {
                *n += 1;
                return;
            }
        }
        self.add_figures(r);
    }

    /// Sum one request's figures (not its latency).
    fn add_figures(&mut self, r: &ReqOut) {
        let raw = &mut self.raw;
        raw.steady.add(&r.bill());
        raw.attempts.add(f64::from(r.attempts));
        self.attempts_max = self.attempts_max.max(r.attempts);
        raw.dead.add(r.dead_s);
        if r.dead_s > 0.0 {
            self.dead_hist.add_seconds(r.dead_s);
        } else {
            self.dead_zero += 1;
        }
        if let Some(i) = r.answered {
            self.answered[i] += 1;
        }
        self.call_cap += u64::from(r.call_cap);
        self.refused += u64::from(r.refused);
        raw.cost_cap.add(f64::from(u8::from(r.cost_cap)));
    }

    /// Move the requests added since the last call into the [`Sum`]s (Chan et al.'s merge of
    /// the chunk's shifted sums): call once per chunk, before [`PolicyTally::merge`] and
    /// before reading the sums.
    pub fn settle(&mut self) {
        let raw = std::mem::take(&mut self.raw);
        self.steady.merge(&raw.steady.map(ShiftedExact::to_sum));
        self.attempts.merge(&raw.attempts.to_sum());
        self.dead.merge(&raw.dead.to_sum());
        self.cost_cap.merge(&raw.cost_cap.to_sum());
        let mut common = std::mem::take(&mut self.common);
        for (key, n) in &mut common {
            if *n > 0 {
                self.add_counted(&key.request(), *n);
            }
            *n = 0;
        }
        self.common = common;
    }

    /// Add `n` requests all equal to `r` (latencies aside).
    fn add_counted(&mut self, r: &ReqOut, n: u64) {
        self.steady.add_many(&r.bill(), n);
        self.attempts.add_many(f64::from(r.attempts), n);
        self.attempts_max = self.attempts_max.max(r.attempts);
        self.dead.add_many(r.dead_s, n);
        if r.dead_s > 0.0 {
            self.dead_hist.add_bin(bin(r.dead_s.ln()), n);
        } else {
            self.dead_zero += n;
        }
        if let Some(i) = r.answered {
            self.answered[i] += n;
        }
        self.call_cap += u64::from(r.call_cap) * n;
        self.refused += u64::from(r.refused) * n;
        self.cost_cap.add_many(f64::from(u8::from(r.cost_cap)), n);
    }

    /// Merge `other` (in chunk order; both settled, [`PolicyTally::settle`]).
    pub fn merge(&mut self, other: &PolicyTally) {
        debug_assert!(
            other.raw.attempts.is_empty() && other.common.iter().all(|c| c.1 == 0),
            "merge a settled tally"
        );
        self.steady.merge(&other.steady);
        self.attempts.merge(&other.attempts);
        self.attempts_max = self.attempts_max.max(other.attempts_max);
        self.dead.merge(&other.dead);
        self.dead_hist.merge(&other.dead_hist);
        self.dead_zero += other.dead_zero;
        self.latency.merge(&other.latency);
        if self.answered.len() < other.answered.len() {
            self.answered.resize(other.answered.len(), 0);
        }
        for (a, b) in self.answered.iter_mut().zip(&other.answered) {
            *a += b;
        }
        self.call_cap += other.call_cap;
        self.refused += other.refused;
        self.cost_cap.merge(&other.cost_cap);
    }
}

/// A share as a [`Sum`] of 0/1 samples.
pub fn share_sum(count: u64, n: u64) -> Sum {
    let mut s = Sum::default();
    s.add_many(1.0, count);
    s.add_many(0.0, n - count);
    s
}
