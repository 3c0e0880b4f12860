//! Steady state, simulated (MODEL.md §3, §4, §7, §9): every request draws each link's outcome
//! and latency, and all four patterns are evaluated on the same draws.
//!
//! Per attempt on link i, one uniform u and one standard normal z:
//! - u < f·g: a gray failure (billed the input side and `gray_output_fraction` of the output,
//!   takes the timeout T); u < f: a fast failure (billed 0, takes `fast_fail_s`);
//! - otherwise healthy, with latency ln L = μ + σ·z (log domain: ln L is compared with ln T
//!   and binned directly; `exp` only where seconds are added). When the trip rate comes from
//!   the latency model, the attempt trips exactly when ln L > ln T. When it is given, the
//!   attempt trips when u < f + (1 − f)·t, and an attempt that does not trip redraws its
//!   latency below T (the lognormal truncated at T), so latency and trips stay consistent.
//! - A trip is billed per `abandoned_billing` and takes T.
//!
//! Patterns: `no-fallback` is link 0 alone; `sequential` adds the times and costs of failed
//! attempts until a success (links after the primary priced cold); the hedged patterns fire
//! links 0 and 1 (both warm): when both succeed the winner is the faster one (w from the
//! latency model) or drawn with probability w (a given w); take-first bills the loser's input
//! side (X), no-cancel bills both in full; a failed leg is billed as its failure; when both
//! fail, the links after them run in sequence, after the slower of the two failures.
//! The user's latency is the time to the answer, or to the final error for a failed request.
//!
//! Speed: the common outcome (links 0 and 1 both succeed) costs the same every time, so it is
//! only counted (by winner) and its latency binned into two shared histograms (the hedge's is
//! the minimum of the two legs'); in the latency-driven loop, latencies are compared and binned
//! as positions on the histogram's scale ([`LogScale`](crate::sim::histogram::LogScale): one multiply-add, no float-to-int
//! conversion). A request where exactly one of links 0 and 1 answered also has a bill fixed by
//! the two outcomes: it is counted per outcome pair ([`SteadyTally::single`]) and only its latencies
//! are binned. Only requests where both failed are summed one by one.

use crate::figures::SteadyFigures;
use crate::model::cost::{CacheState, Request, warm_state};
use crate::model::{AbandonedBilling, Chain, Pattern};

use crate::sim::histogram::{BINS, Histogram, bin};
use crate::sim::rng::{SimRng, Stream, chunk_rng, normal, uniform};
use crate::sim::stats::{Shifted, Sum};
use crate::sim::{CHUNK, McOptions, ordered};

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// Answered.
    Ok,
    /// Failed before inference: billed 0, took `fast_fail_s`.
    Fast,
    /// Hung until the timeout: billed as a gray failure, took T.
    Gray,
    /// Healthy but slower than T: abandoned, billed per `abandoned_billing`, took T.
    Trip,
}

impl AttemptOutcome {
    /// Every outcome, in index order.
    pub const ALL: [AttemptOutcome; 4] = [
        AttemptOutcome::Ok,
        AttemptOutcome::Fast,
        AttemptOutcome::Gray,
        AttemptOutcome::Trip,
    ];

    /// Its index in [`AttemptOutcome::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// USD of one attempt's outcomes on one link in one cache state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Prices {
    /// A success.
    pub success: f64,
    /// A gray failure.
    pub gray: f64,
    /// A timeout trip.
    pub abandoned: f64,
    /// A cancelled hedge loser.
    pub cancel: f64,
}

impl Prices {
    /// The prices of link `i` of `chain` in `state`, under the chain's steady billing terms.
    pub fn new(request: &Request, chain: &Chain, i: usize, state: CacheState) -> Prices {
        let price = &chain.links[i].price;
        let s = &chain.steady;
        let success = request.success_cost(price, state);
        let gray = request.partial_cost(price, state, s.gray_output_fraction);
        Prices {
            success,
            gray,
            abandoned: match s.abandoned_billing {
                AbandonedBilling::Partial => gray,
                AbandonedBilling::Full => success,
            },
            cancel: request.partial_cost(price, state, s.cancel_output_fraction),
        }
    }

    /// USD of a failed attempt.
    #[inline]
    pub fn failed(&self, a: AttemptOutcome) -> f64 {
        match a {
            AttemptOutcome::Ok | AttemptOutcome::Fast => 0.0,
            AttemptOutcome::Gray => self.gray,
            AttemptOutcome::Trip => self.abandoned,
        }
    }
}

/// One link as the simulation draws it.
#[derive(Debug, Clone)]
pub struct LinkSim {
    /// u below this: gray failure.
    pub gray_below: f64,
    /// u below this (and not gray): fast failure.
    pub fail_below: f64,
    /// Given trip rate: u below this (and not failed) trips.
    pub trip_below: f64,
    /// Trips decided by the latency draw (ln L > ln T) rather than by u.
    pub trip_by_latency: bool,
    /// μ of ln L.
    pub mu: f64,
    /// σ of ln L.
    pub sigma: f64,
    /// ln T_k: the log of this link's timeout ([`Chain::timeout_s`]).
    pub ln_t: f64,
    /// T_k, seconds: a gray failure or a trip here takes it.
    pub timeout_s: f64,
    /// Prices in `sequential`/`no-fallback` (primary warm, fallbacks cold).
    pub seq: Prices,
    /// Prices in the hedged patterns (links 0 and 1 warm, later links cold).
    pub hedge: Prices,
}

/// A chain prepared for simulation.
#[derive(Debug, Clone)]
pub struct ChainSim {
    /// The links, primary first (each with its own timeout).
    pub links: Vec<LinkSim>,
    /// Seconds a fast failure takes.
    pub fast_fail_s: f64,
    /// Its ln.
    pub ln_fast_fail: f64,
    /// w when drawn (not decided by latency).
    pub win_rate: f64,
    /// Whether the faster leg wins (w from the latency model).
    pub win_by_latency: bool,
}

impl ChainSim {
    /// Prepare `chain` serving `request`.
    pub fn new(request: &Request, chain: &Chain) -> ChainSim {
        let s = &chain.steady;
        let links = (0..chain.links.len())
            .map(|i| {
                let t = chain.timeout_s(i);
                let f = chain.links[i].failure_rate;
                let trip = chain.links[i].trip_rate;
                let lat = chain.links[i].latency;
                let (id, primary_id) = (&chain.links[i].price.id, &chain.links[0].price.id);
                let state = |warm: bool| {
                    if warm {
                        warm_state(&chain.links[i].price)
                    } else {
                        crate::model::policy::unwarmed_state(
                            &chain.links[i].price,
                            chain.policy.warm_fallback,
                        )
                    }
                };
                LinkSim {
                    gray_below: f * s.gray_fraction,
                    fail_below: f,
                    trip_below: f + (1.0 - f) * trip,
                    trip_by_latency: chain.links[i].trip_from_latency,
                    mu: lat.mu(),
                    sigma: lat.sigma(),
                    ln_t: t.ln(),
                    timeout_s: t,
                    // One cache per model: the primary's (and a hedge's second leg's) model
                    // is warm wherever it is listed.
                    seq: Prices::new(request, chain, i, state(id == primary_id)),
                    hedge: Prices::new(
                        request,
                        chain,
                        i,
                        state(
                            id == primary_id
                                || chain.links.get(1).is_some_and(|l| &l.price.id == id),
                        ),
                    ),
                }
            })
            .collect();
        ChainSim {
            links,
            fast_fail_s: s.fast_fail_s,
            ln_fast_fail: s.fast_fail_s.ln(),
            win_rate: s.primary_win_rate,
            win_by_latency: s.win_from_latency,
        }
    }

    /// One attempt on link `i` from the uniform `u` and normal `z` already drawn; returns the
    /// outcome and ln L (meaningful for `Ok`).
    #[inline(always)]
    fn attempt(&self, i: usize, u: f64, z: f64, rng: &mut SimRng) -> (AttemptOutcome, f64) {
        let l = &self.links[i];
        let ln_l = l.mu + l.sigma * z;
        if u < l.fail_below {
            let a = if u < l.gray_below {
                AttemptOutcome::Gray
            } else {
                AttemptOutcome::Fast
            };
            return (a, ln_l);
        }
        if l.trip_by_latency {
            if ln_l > l.ln_t {
                (AttemptOutcome::Trip, ln_l)
            } else {
                (AttemptOutcome::Ok, ln_l)
            }
        } else if u < l.trip_below {
            (AttemptOutcome::Trip, ln_l)
        } else if ln_l > l.ln_t {
            (AttemptOutcome::Ok, self.redraw_below_timeout(l, rng))
        } else {
            (AttemptOutcome::Ok, ln_l)
        }
    }

    /// A latency of a healthy attempt that did not trip when trips are given as a rate: the
    /// lognormal truncated at the link's T, by rejection (64 tries, then T itself).
    #[cold]
    fn redraw_below_timeout(&self, l: &LinkSim, rng: &mut SimRng) -> f64 {
        for _ in 0..64 {
            let ln_l = l.mu + l.sigma * normal(rng);
            if ln_l <= l.ln_t {
                return ln_l;
            }
        }
        l.ln_t
    }

    /// A fresh attempt on link `i`.
    fn draw(&self, i: usize, rng: &mut SimRng) -> (AttemptOutcome, f64) {
        let u = uniform(rng);
        let z = normal(rng);
        self.attempt(i, u, z, rng)
    }

    /// ln of the seconds an attempt on link `i` took (no `exp`/`ln` calls).
    #[inline]
    fn ln_seconds(&self, i: usize, a: AttemptOutcome, ln_l: f64) -> f64 {
        match a {
            AttemptOutcome::Ok => ln_l,
            AttemptOutcome::Fast => self.ln_fast_fail,
            AttemptOutcome::Gray | AttemptOutcome::Trip => self.links[i].ln_t,
        }
    }

    /// Seconds an attempt on link `i` took.
    #[inline]
    fn seconds(&self, i: usize, a: AttemptOutcome, ln_l: f64) -> f64 {
        match a {
            AttemptOutcome::Ok => ln_l.exp(),
            AttemptOutcome::Fast => self.fast_fail_s,
            AttemptOutcome::Gray | AttemptOutcome::Trip => self.links[i].timeout_s,
        }
    }
}

/// Which link answered a request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Answer {
    /// None: the request failed on every link tried.
    #[default]
    Failed,
    /// The primary (link 0).
    Primary,
    /// A later link (a failover, or the hedge's second leg).
    Fallback,
}

/// One request's outcome under one pattern: what it spent, who answered, how long it took.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    cost: f64,
    answer: Answer,
    wasted_attempts: f64,
    wasted_cost: f64,
    /// ln of the latency in seconds.
    ln_seconds: f64,
}

impl Sample {
    /// The request's bill: its steady figures per request, the one place this simulator says
    /// them ([`SteadyFigures`]; the baseline and the ratio to it are the report's).
    #[inline]
    fn bill(&self) -> SteadyFigures<f64> {
        SteadyFigures {
            cost_per_1k_usd: self.cost,
            baseline_per_1k_usd: None,
            vs_baseline: None,
            failed_per_1k: f64::from(u8::from(self.answer == Answer::Failed)),
            wasted_attempts_per_1k: self.wasted_attempts,
            wasted_per_1k_usd: self.wasted_cost,
            fallback_answers_per_1k: f64::from(u8::from(self.answer == Answer::Fallback)),
        }
    }
}

/// Where a request off the common path is summed and its latency binned ([`rare`],
/// [`off_common`]): patterns that agree on it share one slot, so it is summed once per
/// distinct figure, not once per pattern.
mod slot {
    /// `no-fallback` alone (its primary failed).
    pub const NO_FALLBACK: usize = 0;
    /// `sequential` alone (its primary failed).
    pub const SEQUENTIAL: usize = 1;
    /// `no-fallback` and `sequential` alike (the primary answered, or the only link).
    pub const PRIMARY: usize = 2;
    /// Both hedged patterns: they differ only when both legs answer, the common outcome.
    pub const HEDGED: usize = 3;
    /// The slots of each pattern, in [`crate::model::Pattern::ALL`] order.
    pub const OF_PATTERN: [&[usize]; 4] = [
        &[NO_FALLBACK, PRIMARY],
        &[SEQUENTIAL, PRIMARY],
        &[HEDGED],
        &[HEDGED],
    ];
}

/// Per-pattern sums of one chunk (or of a whole run, once merged).
#[derive(Debug, Clone, Default)]
pub struct SteadyTally {
    /// Requests where links 0 and 1 (or the only link) both succeeded, by hedge winner
    /// (0: primary, 1: second link).
    pub common: [u64; 2],
    /// Requests where exactly one of links 0 and 1 answered, by the two outcomes
    /// (`[a₀][a₁]`, [`AttemptOutcome::index`]): every pattern's bill is fixed by them, so they are
    /// counted, and summed per outcome pair by [`finish`] (their latencies are binned as they
    /// come).
    pub single: [[u64; 4]; 4],
    /// Per pattern ([`Pattern::ALL`] order): the steady figures of the other requests.
    pub sums: [SteadyFigures<Sum>; 4],
    /// Per pattern: latencies of the other requests.
    pub hist: [Histogram; 4],
    /// Latencies of the common requests under `no-fallback` and `sequential` (link 0's).
    pub common_seq: Histogram,
    /// Latencies of the common requests under the hedged patterns (the winner's).
    pub common_hedge: Histogram,
    /// The other requests' figures as they come, per [`slot`], moved into `sums` and `hist`
    /// by [`SteadyTally::settle`].
    raw: [SteadyFigures<Shifted>; 4],
    /// Their latencies, per [`slot`].
    raw_hist: [Histogram; 4],
}

impl SteadyTally {
    /// Merge `other` into `self` (call in chunk order).
    pub fn merge(&mut self, other: &SteadyTally) {
        self.common[0] += other.common[0];
        self.common[1] += other.common[1];
        for (mine, theirs) in self.single.iter_mut().zip(&other.single) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        for p in 0..4 {
            self.sums[p].merge(&other.sums[p]);
            self.hist[p].merge(&other.hist[p]);
        }
        self.common_seq.merge(&other.common_seq);
        self.common_hedge.merge(&other.common_hedge);
    }

    /// Sum one request's figures in `slot`.
    fn add(&mut self, slot: usize, s: Sample) {
        self.raw[slot].add(&s.bill());
        self.raw_hist[slot].add_ln(s.ln_seconds);
    }

    /// Move the chunk's running sums into each pattern's `sums` and `hist`.
    fn settle(&mut self) {
        for (p, slots) in slot::OF_PATTERN.iter().enumerate() {
            for &k in *slots {
                self.sums[p].merge(&self.raw[k].map(Shifted::to_sum));
                self.hist[p].merge(&self.raw_hist[k]);
            }
        }
        self.raw = Default::default();
        self.raw_hist = Default::default();
    }
}

mod loops;
use loops::{alone_by_latency, buffered, by_latency};

/// Requests whose draws are made in one go before they are evaluated: the draw loop and the
/// evaluation loop each stay small and tight (8 KiB of buffers).
const BUFFER: usize = 256;

/// Simulate `count` requests of chunk `chunk` on `sim`.
///
/// Per request the draws are, in order: u₀, z₀ (and u₁, z₁ for chains of two or more links);
/// draws needed only by rare outcomes (later links, a drawn winner, a latency redrawn below T)
/// follow from the same stream. When the faster leg wins (the common, latency-driven case) the
/// draws and the evaluation share one loop; otherwise draws are made 256 requests at a time,
/// then evaluated.
pub fn chunk(sim: &ChainSim, seed: u64, stream: u64, chunk: u64, count: u64) -> SteadyTally {
    let mut rng = chunk_rng(seed, stream, chunk);
    let mut acc = SteadyTally::default();
    let two = sim.links.len() >= 2;
    // The common outcome's latencies, counted in small local bins (a chunk fits in u32), then
    // added to the accumulator's histograms.
    let mut common = [0u64; 2];
    let mut seq_bins = [0u32; BINS];
    let mut hedge_bins = [0u32; BINS];
    let bins = (&mut common, &mut seq_bins, &mut hedge_bins);
    if two && sim.win_by_latency {
        by_latency(sim, &mut rng, &mut acc, count, bins);
    } else if !two && sim.links[0].trip_by_latency {
        alone_by_latency(sim, &mut rng, &mut acc, count, (bins.0, bins.1));
    } else {
        buffered(sim, &mut rng, &mut acc, count, bins);
    }
    acc.common = common;
    acc.settle();
    for i in 0..BINS {
        acc.common_seq.add_bin(i, u64::from(seq_bins[i]));
        acc.common_hedge.add_bin(i, u64::from(hedge_bins[i]));
    }
    acc
}

/// A request off the common path of [`by_latency`] or [`evaluate_two`] (a failure or a trip
/// on link 0 or 1, or a latency redrawn below T): see [`off_common`].
#[cold]
#[inline(never)]
fn uncommon(
    sim: &ChainSim,
    acc: &mut SteadyTally,
    [u0, z0, u1, z1]: [f64; 4],
    common: &mut [u64; 2],
    seq_bins: &mut [u32; BINS],
    hedge_bins: &mut [u32; BINS],
    rng: &mut SimRng,
) {
    let first = sim.attempt(0, u0, z0, rng);
    let second = sim.attempt(1, u1, z1, rng);
    if first.0 == AttemptOutcome::Ok && second.0 == AttemptOutcome::Ok {
        // healthy legs whose latencies were redrawn below T (given trip rates): the faster
        // leg wins (the minimum of the logs), or a drawn winner
        let (ln0, ln1) = (first.1, second.1);
        let (second_wins, ln_win) = if sim.win_by_latency {
            (ln1 < ln0, ln0.min(ln1))
        } else {
            let second = uniform(rng) >= sim.win_rate;
            (second, if second { ln1 } else { ln0 })
        };
        common[usize::from(second_wins)] += 1;
        seq_bins[bin(ln0)] += 1;
        hedge_bins[bin(ln_win)] += 1;
    } else {
        off_common(sim, acc, first, second, rng);
    }
}

/// A request on a chain of two or more links where link 0 or link 1 failed. When exactly one
/// of them answered, every pattern's bill is fixed by the two outcomes: the request is counted
/// in [`SteadyTally::single`] and only its latencies are binned. When both failed, [`rare`].
#[inline]
fn off_common(
    sim: &ChainSim,
    acc: &mut SteadyTally,
    first: (AttemptOutcome, f64),
    second: (AttemptOutcome, f64),
    rng: &mut SimRng,
) {
    let (a0, a1) = (first.0, second.0);
    if a0 != AttemptOutcome::Ok && a1 != AttemptOutcome::Ok {
        rare(sim, acc, first, Some(second), rng);
        return;
    }
    acc.single[a0.index()][a1.index()] += 1;
    let [nf, seq, hedged] = latencies(sim, first, second, 0.0);
    if a0 == AttemptOutcome::Ok {
        acc.raw_hist[slot::PRIMARY].add_ln(nf);
    } else {
        acc.raw_hist[slot::NO_FALLBACK].add_ln(nf);
        acc.raw_hist[slot::SEQUENTIAL].add_ln(seq);
    }
    acc.raw_hist[slot::HEDGED].add_ln(hedged);
}

/// The user's latency (ln seconds) under no-fallback, sequential and the hedged patterns, from
/// the outcomes of links 0 and 1 and the seconds `tail_s` spent on later links (when both
/// failed). `exp` and `ln` are called only where seconds are added.
#[inline]
fn latencies(
    sim: &ChainSim,
    first: (AttemptOutcome, f64),
    second: (AttemptOutcome, f64),
    tail_s: f64,
) -> [f64; 3] {
    let ((a0, ln0), (a1, ln1)) = (first, second);
    let lt0 = sim.ln_seconds(0, a0, ln0);
    let lt1 = sim.ln_seconds(1, a1, ln1);
    let seq = if a0 == AttemptOutcome::Ok {
        lt0
    } else if a1 == AttemptOutcome::Ok {
        (sim.seconds(0, a0, ln0) + sim.seconds(1, a1, ln1)).ln()
    } else {
        (sim.seconds(0, a0, ln0) + sim.seconds(1, a1, ln1) + tail_s).ln()
    };
    // the answering leg's, or, when both failed, the slower failure's and the later links'
    let hedged = match (a0 == AttemptOutcome::Ok, a1 == AttemptOutcome::Ok) {
        (true, _) => lt0,
        (false, true) => lt1,
        (false, false) if tail_s > 0.0 => {
            (sim.seconds(0, a0, ln0).max(sim.seconds(1, a1, ln1)) + tail_s).ln()
        }
        (false, false) => lt0.max(lt1),
    };
    [lt0, seq, hedged]
}

/// The no-fallback bill of a request whose primary attempt ended `a0` (latency left 0).
fn primary_bill(sim: &ChainSim, a0: AttemptOutcome) -> Sample {
    let l = &sim.links[0];
    if a0 == AttemptOutcome::Ok {
        return Sample {
            cost: l.seq.success,
            answer: Answer::Primary,
            ..Sample::default()
        };
    }
    let w = l.seq.failed(a0);
    Sample {
        cost: w,
        answer: Answer::Failed,
        wasted_attempts: 1.0,
        wasted_cost: w,
        ln_seconds: 0.0,
    }
}

/// Each pattern's bill (no-fallback, sequential, hedged) of a request where link 0 or link 1
/// failed, from their outcomes and, when both failed, the later links' figures `tail` (its
/// `answer` is [`Answer::Failed`] if none of them answered). Latencies are left 0 (see [`latencies`]).
/// `htail` is the same tail priced for the hedges (a later link of the second leg's model is
/// warm there: one cache per model).
fn bills(
    sim: &ChainSim,
    a0: AttemptOutcome,
    a1: AttemptOutcome,
    tail: Sample,
    htail: Sample,
) -> [Sample; 3] {
    let l = &sim.links;
    let nf = primary_bill(sim, a0);
    // sequential: the same as no-fallback when the primary answered
    let seq = if a0 == AttemptOutcome::Ok {
        nf
    } else {
        let w0 = l[0].seq.failed(a0);
        let mut s = Sample {
            cost: w0,
            wasted_attempts: 1.0,
            wasted_cost: w0,
            ..Sample::default()
        };
        if a1 == AttemptOutcome::Ok {
            s.cost += l[1].seq.success;
            s.answer = Answer::Fallback;
        } else {
            let w1 = l[1].seq.failed(a1);
            s.cost += w1 + tail.cost;
            s.wasted_cost += w1 + tail.wasted_cost;
            s.wasted_attempts += 1.0 + tail.wasted_attempts;
            s.answer = tail.answer;
        }
        s
    };
    // hedged: links 0 and 1 at once; here at most one of them succeeded, and take-first and
    // no-cancel differ only when both do
    let (h0, h1) = (&l[0].hedge, &l[1].hedge);
    let hedged = match (a0 == AttemptOutcome::Ok, a1 == AttemptOutcome::Ok) {
        (true, _) => Sample {
            cost: h0.success + h1.failed(a1),
            answer: Answer::Primary,
            wasted_attempts: 1.0,
            wasted_cost: h1.failed(a1),
            ..Sample::default()
        },
        (false, true) => Sample {
            cost: h0.failed(a0) + h1.success,
            answer: Answer::Fallback,
            wasted_attempts: 1.0,
            wasted_cost: h0.failed(a0),
            ..Sample::default()
        },
        (false, false) => {
            let w = h0.failed(a0) + h1.failed(a1);
            Sample {
                cost: w + htail.cost,
                answer: htail.answer,
                wasted_attempts: 2.0 + htail.wasted_attempts,
                wasted_cost: w + htail.wasted_cost,
                ln_seconds: 0.0,
            }
        }
    };
    [nf, seq, hedged]
}

/// A request summed one by one: on a one-link chain, a failed primary; on longer chains, links
/// 0 and 1 both failed, and the later links are tried in sequence (drawn once for sequential
/// and the hedges alike, priced as a first failover unless the model is warm for the pattern).
#[cold]
fn rare(
    sim: &ChainSim,
    acc: &mut SteadyTally,
    first: (AttemptOutcome, f64),
    second: Option<(AttemptOutcome, f64)>,
    rng: &mut SimRng,
) {
    let (a0, ln0) = first;
    let Some(second) = second else {
        let nf = Sample {
            ln_seconds: sim.ln_seconds(0, a0, ln0),
            ..primary_bill(sim, a0)
        };
        acc.add(slot::PRIMARY, nf);
        return;
    };
    let mut tail = Sample {
        answer: Answer::Failed,
        ..Sample::default()
    };
    // seconds spent in the links after the first two
    let mut tail_s = 0.0;
    let mut htail = tail;
    for (i, link) in sim.links.iter().enumerate().skip(2) {
        let (a, ln) = sim.draw(i, rng);
        tail_s += sim.seconds(i, a, ln);
        if a == AttemptOutcome::Ok {
            tail.cost += link.seq.success;
            htail.cost += link.hedge.success;
            tail.answer = Answer::Fallback;
            htail.answer = Answer::Fallback;
            break;
        }
        let (w, hw) = (link.seq.failed(a), link.hedge.failed(a));
        tail.cost += w;
        tail.wasted_cost += w;
        tail.wasted_attempts += 1.0;
        htail.cost += hw;
        htail.wasted_cost += hw;
        htail.wasted_attempts += 1.0;
    }
    let [mut nf, mut seq, mut hedged] = bills(sim, a0, second.0, tail, htail);
    [nf.ln_seconds, seq.ln_seconds, hedged.ln_seconds] = latencies(sim, first, second, tail_s);
    acc.add(slot::NO_FALLBACK, nf);
    acc.add(slot::SEQUENTIAL, seq);
    acc.add(slot::HEDGED, hedged);
}

/// The simulated figures of one pattern on one chain.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternMc {
    /// The pattern.
    pub pattern: Pattern,
    /// The steady figures' sums, per request (no baseline and no ratio to it: the report's to
    /// fill).
    pub figures: SteadyFigures<Sum>,
    /// The user's latency, seconds.
    pub latency: Histogram,
}

impl PatternMc {
    /// Requests simulated.
    pub fn requests(&self) -> u64 {
        self.figures.cost_per_1k_usd.n
    }
}

/// The common outcome's two requests by hedge winner (0: primary, 1: second link) under
/// `pattern`: links 0 and 1 both answered (latency left 0).
fn common_samples(sim: &ChainSim, pattern: Pattern) -> [Sample; 2] {
    let l = &sim.links;
    let won = |answer, cost, wasted_cost| Sample {
        cost,
        answer,
        wasted_attempts: 1.0,
        wasted_cost,
        ln_seconds: 0.0,
    };
    match pattern {
        Pattern::NoFallback | Pattern::Sequential => {
            let primary = Sample {
                cost: l[0].seq.success,
                answer: Answer::Primary,
                ..Sample::default()
            };
            [primary, primary]
        }
        Pattern::HedgedTakeFirst => {
            let (h0, h1) = (&l[0].hedge, &l[1].hedge);
            [
                won(Answer::Primary, h0.success + h1.cancel, h1.cancel),
                won(Answer::Fallback, h1.success + h0.cancel, h0.cancel),
            ]
        }
        Pattern::HedgedNoCancel => {
            let (h0, h1) = (&l[0].hedge, &l[1].hedge);
            let both = h0.success + h1.success;
            [
                won(Answer::Primary, both, h1.success),
                won(Answer::Fallback, both, h0.success),
            ]
        }
    }
}

/// Turn a merged accumulator into per-pattern results (hedged ones only for 2+ links).
pub fn finish(sim: &ChainSim, acc: &SteadyTally) -> Vec<PatternMc> {
    let mut out = Vec::new();
    for (p, pattern) in Pattern::ALL.into_iter().enumerate() {
        if pattern.is_hedged() && sim.links.len() < 2 {
            continue;
        }
        let mut figures = acc.sums[p].clone();
        for (w, s) in common_samples(sim, pattern).iter().enumerate() {
            figures.add_many(&s.bill(), acc.common[w]);
        }
        // the requests where exactly one of links 0 and 1 answered, by outcome pair
        for (i0, row) in acc.single.iter().enumerate() {
            for (i1, &n) in row.iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let b = bills(
                    sim,
                    AttemptOutcome::ALL[i0],
                    AttemptOutcome::ALL[i1],
                    Sample::default(),
                    Sample::default(),
                );
                figures.add_many(&b[p.min(2)].bill(), n);
            }
        }
        let mut latency = acc.hist[p].clone();
        latency.merge(if pattern.is_hedged() {
            &acc.common_hedge
        } else {
            &acc.common_seq
        });
        out.push(PatternMc {
            pattern,
            figures,
            latency,
        });
    }
    out
}

/// Simulate `opts.requests` requests of chain number `index` (its stream) of a scenario.
/// `tick(n)` is called as chunks of n requests finish.
pub fn simulate(
    request: &Request,
    chain: &Chain,
    index: u64,
    opts: &McOptions,
    tick: &mut dyn FnMut(u64),
) -> Vec<PatternMc> {
    let sim = ChainSim::new(request, chain);
    let n = opts.requests;
    let chunks = n.div_ceil(CHUNK);
    let mut total = SteadyTally::default();
    ordered(
        chunks,
        |c| {
            let count = CHUNK.min(n - c * CHUNK);
            chunk(
                &sim,
                opts.seed,
                Stream::SteadyFast { chain: index }.id(),
                c,
                count,
            )
        },
        |a| total.merge(&a),
        &mut |k| tick(k * CHUNK),
    );
    finish(&sim, &total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Link;
    use crate::model::cost::tests::{july, req, set_latency};
    use crate::model::latency::{Latency, primary_win_rate};
    use crate::model::steady::evaluate;
    use crate::model::{Policy, Steady};
    use crate::sim::stats::{Z99, Z999, agrees};

    fn lat(p50: f64, p99: f64) -> Latency {
        Latency {
            p50_s: p50,
            p99_s: p99,
            given: true,
        }
    }

    /// Every pattern's MC mean cost lies within its 99% interval of the analytic value, and
    /// its failed share, wasted attempts and wasted cost within their 99.9% intervals.
    pub(crate) fn assert_agrees(request: &Request, chain: &Chain, n: u64, seed: u64) {
        let opts = McOptions {
            requests: n,
            runs: 0,
            seed,
        };
        let mc = simulate(request, chain, 0, &opts, &mut |_| {});
        for p in &mc {
            let a = evaluate(request, chain, p.pattern).unwrap();
            let f = &p.figures;
            for (name, sum, want) in [
                ("cost", &f.cost_per_1k_usd, a.cost_per_1k_usd),
                ("failed", &f.failed_per_1k, a.failed_per_1k),
                (
                    "wasted_attempts",
                    &f.wasted_attempts_per_1k,
                    a.wasted_attempts_per_1k,
                ),
                ("wasted_cost", &f.wasted_per_1k_usd, a.wasted_per_1k_usd),
                (
                    "fallback_answers",
                    &f.fallback_answers_per_1k,
                    a.fallback_answers_per_1k,
                ),
            ] {
                assert_eq!(sum.n, n);
                let z = if name == "cost" { Z99 } else { Z999 };
                let e = sum.estimate(z, 1.0);
                assert!(
                    agrees(&e, want),
                    "{} {name}: analytic {want} outside MC 99% [{}, {}] (mean {})",
                    p.pattern.as_str(),
                    e.lo,
                    e.hi,
                    e.mean
                );
            }
        }
    }

    /// A chain of `models` with per-link (failure, trip) rates `rates`, `steady`, latency
    /// models `latency` (the defaults past its end) and timeout `timeout_s`.
    fn chain(
        models: &[&str],
        rates: &[(f64, f64)],
        steady: Steady,
        latency: Vec<Latency>,
        timeout_s: f64,
    ) -> Chain {
        let mut c = Chain {
            name: "c".into(),
            links: models.iter().map(|m| Link::new(july(m))).collect(),
            steady,
            policy: Policy {
                timeout_s,
                ..Policy::default()
            },
            traffic_share: None,
        };
        for (l, &(f, t)) in c.links.iter_mut().zip(rates) {
            l.failure_rate = f;
            l.trip_rate = t;
        }
        set_latency(&mut c, &latency);
        c
    }

    const SOL: &str = "openai/gpt-5.6-sol";
    const SONNET: &str = "anthropic/claude-sonnet-5";
    const HAIKU: &str = "anthropic/claude-haiku-4-5";

    /// Heavy failures on every link (so the rare paths are exercised), given trips and w.
    #[test]
    fn agrees_with_given_rates() {
        let s = Steady {
            gray_fraction: 0.6,
            primary_win_rate: 0.7,
            cancel_output_fraction: 0.2,
            ..Steady::default()
        };
        let rates = [(0.2, 0.1), (0.3, 0.05), (0.1, 0.0)];
        let c = chain(&[SOL, SONNET, HAIKU], &rates, s, vec![], 30.0);
        assert_agrees(&req(2000.0, 500.0, 1000.0, 0.5), &c, 200_000, 1);
    }

    /// Trips and the winner decided by latency, against the closed forms of MODEL.md §7.
    #[test]
    fn agrees_with_the_latency_model() {
        let latency = vec![lat(2.0, 9.0), lat(1.5, 15.0), lat(3.0, 5.0)];
        let t = 6.0;
        let s = Steady {
            primary_win_rate: primary_win_rate(&latency[0], &latency[1], t),
            win_from_latency: true,
            gray_fraction: 0.5,
            abandoned_billing: AbandonedBilling::Full,
            ..Steady::default()
        };
        let rates: Vec<(f64, f64)> = latency.iter().map(|l| (0.05, l.trip_rate(t))).collect();
        let mut c = chain(&[SOL, SONNET, HAIKU], &rates, s, latency, t);
        for l in &mut c.links {
            l.trip_from_latency = true;
        }
        assert_agrees(&req(2000.0, 500.0, 0.0, 0.0), &c, 300_000, 2);
    }

    /// Issue 13: each link its own timeout (Sol at 12 s, Sonnet at 24 s, trips and the hedge
    /// winner decided by each leg's own T): the fast path agrees with the analytic figures,
    /// the hand-computed sequential 25.10682 per 1k among them.
    #[test]
    fn agrees_with_per_link_timeouts() {
        let c = crate::model::chain::tests::two_timeouts();
        let sim = ChainSim::new(&req(2000.0, 500.0, 0.0, 0.0), &c);
        assert_eq!(
            (sim.links[0].timeout_s, sim.links[1].timeout_s),
            (12.0, 24.0)
        );
        assert_agrees(&req(2000.0, 500.0, 0.0, 0.0), &c, 300_000, 3);
    }

    #[test]
    fn one_link_chain_has_no_hedges() {
        let s = Steady {
            ..Steady::default()
        };
        let c = chain(&[SOL], &[(0.1, 0.0)], s, vec![], 30.0);
        let opts = McOptions {
            requests: 10_000,
            runs: 0,
            seed: 3,
        };
        let mc = simulate(&req(2000.0, 500.0, 0.0, 0.0), &c, 0, &opts, &mut |_| {});
        assert_eq!(mc.len(), 2);
        assert_agrees(&req(2000.0, 500.0, 0.0, 0.0), &c, 10_000, 3);
    }

    /// The one-link loop with trips from the latency model ([`alone_by_latency`]) gives what
    /// the buffered loop gives on the same draws: every figure and latency bin, and the
    /// generator's final state.
    #[test]
    fn one_link_loop_is_the_buffered_loop() {
        let s = Steady {
            gray_fraction: 0.5,
            ..Steady::default()
        };
        let mut c = chain(&[SOL], &[(0.03, 0.0)], s, vec![lat(2.0, 12.0)], 6.0);
        c.links[0].trip_from_latency = true;
        let sim = ChainSim::new(&req(2000.0, 500.0, 0.0, 0.0), &c);
        let run = |fused: bool| {
            let mut rng = chunk_rng(5, 0, 0);
            let mut acc = SteadyTally::default();
            let mut common = [0u64; 2];
            let (mut seq, mut hedge) = ([0u32; BINS], [0u32; BINS]);
            if fused {
                alone_by_latency(&sim, &mut rng, &mut acc, 300_000, (&mut common, &mut seq));
            } else {
                buffered(
                    &sim,
                    &mut rng,
                    &mut acc,
                    300_000,
                    (&mut common, &mut seq, &mut hedge),
                );
            }
            acc.common = common;
            acc.settle();
            (rng, finish(&sim, &acc), seq)
        };
        let (fused, buffered) = (run(true), run(false));
        assert_eq!(fused.0, buffered.0);
        assert_eq!(fused.1, buffered.1);
        assert_eq!(fused.2, buffered.2);
        // a few percent of the requests took the rare path
        assert!(fused.1[0].figures.failed_per_1k.mean() > 0.02);
    }

    /// Latency percentiles of a healthy primary alone are the lognormal's own: p50 and p99
    /// within the histogram's bound plus sampling error.
    #[test]
    fn percentiles_follow_the_lognormal() {
        let s = Steady {
            primary_win_rate: 0.5,
            win_from_latency: true,
            ..Steady::default()
        };
        let latency = vec![lat(2.0, 12.0), lat(2.0, 12.0)];
        let c = chain(&[SOL, SONNET], &[], s, latency, 1e5);
        let opts = McOptions {
            requests: 400_000,
            runs: 0,
            seed: 4,
        };
        let mc = simulate(&req(2000.0, 500.0, 0.0, 0.0), &c, 0, &opts, &mut |_| {});
        let seq = &mc[1].latency;
        assert!((seq.quantile(0.5).unwrap() / 2.0 - 1.0).abs() < 0.012);
        assert!((seq.quantile(0.99).unwrap() / 12.0 - 1.0).abs() < 0.03);
        // the hedge takes the faster of two: its median is below either leg's
        assert!(mc[2].latency.quantile(0.5).unwrap() < 1.7);
    }

    /// The same seed gives the same sums, whatever the number of threads.
    #[test]
    fn same_seed_same_result_on_one_or_two_threads() {
        let s = Steady {
            ..Steady::default()
        };
        let c = chain(&[SOL, SONNET], &[(0.05, 0.0), (0.05, 0.0)], s, vec![], 30.0);
        let opts = McOptions {
            requests: 3 * CHUNK + 17,
            runs: 0,
            seed: 9,
        };
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| simulate(&req(2000.0, 500.0, 0.0, 0.0), &c, 0, &opts, &mut |_| {}))
        };
        assert_eq!(run(1), run(2));
    }
}
