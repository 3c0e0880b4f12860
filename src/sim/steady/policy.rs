//! Steady state under a client policy (MODEL.md §8), simulated request by request: the same
//! process as [`crate::model::policy`]'s Markov chain, one draw at a time.
//!
//! Per attempt on link i, one uniform u: u < f is a failure whose class is drawn from the error
//! mix (u / f against the cumulative shares; without a mix, `timeout` with the gray fraction,
//! else `server_error`): a `timeout` failure hangs (billed gray, takes T), every other class is
//! fast (billed 0, takes `fast_fail_s`). A healthy attempt draws its latency ln L = μ + σ·z;
//! it trips (class timeout, billed per `abandoned_billing`, takes T) when ln L > ln T if the
//! trip rate comes from the latency model, else with the given trip rate t (a second uniform),
//! and an attempt that does not trip then has its latency redrawn below T.
//!
//! Retryable classes retry on the same link up to `retries` times after a backoff drawn with
//! its jitter, then fail over if the class is in `failover_on`, else the request fails. A client
//! error marks the request bad: never retried; with `client` in `failover_on` one fast failing
//! attempt per remaining link, else it stops. Quota stops the request. A request whose next
//! attempt would exceed `max_attempts` fails (a call-cap hit). The cost cap removes fallbacks
//! ([`policy::allowed_links`]); a request whose route the cap changed is a cost-cap hit
//! ([`policy::PolicyOutcome::cost_cap_hits`]): it goes on to a link with a skipped one before
//! it, or fails over past the last link with skipped ones after it, or (a hedge past a skipped
//! first fallback) its backup is sent or it goes on past the legs. `no-fallback` has none.
//!
//! Hedged patterns: the primary and the first allowed fallback fire once each (both warm, no
//! retries), at once or, with `hedge_delay_s`, the backup only if the primary is still running
//! then (at once if it failed before); a client error on either leg fails both (the request is
//! bad), a quota error stops the request after the race; when both fail otherwise, the answer
//! waits for the slower failure, then the remaining allowed links run in sequence (cold) with
//! the legs' attempts already spent. The winner when both answer is the faster (w from the
//! latency model) or drawn with probability w.
//!
//! This path is generic rather than fast (no counted common outcome): it runs only for chains
//! whose policy is not the default ([`is_default`]); the default policy keeps
//! [`crate::sim::steady::fast`]'s fast path.

use crate::model::cost::{Request, warm_state};
use crate::model::policy::{self, CapCount, ErrorClass, ErrorMix, Jitter};
use crate::model::{Chain, Pattern, Policy};

use crate::figures::{SteadyFigures, SteadyPolicyFigures};
use crate::sim::histogram::Histogram;
use crate::sim::rng::{SimRng, Stream, chunk_rng, normal, uniform};
use crate::sim::stats::Sum;
use crate::sim::steady::fast::{PatternMc, Prices};
use crate::sim::{CHUNK, McOptions, ordered};

mod tally;
use tally::Shortcut;
pub use tally::{BillKey, PolicyTally, share_sum};

/// Whether `chain` runs under the default policy (no retries, provider errors fail over, no
/// caps, no error mix, warm fallbacks at once, no breaker): the fast paths then apply.
pub fn is_default(chain: &Chain) -> bool {
    chain.has_default_policy()
}

/// How one attempt ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AttemptResult {
    /// Answered, with ln of its latency.
    Ok(f64),
    /// Failed with a class, billing USD and taking seconds.
    Fail(ErrorClass, f64, f64),
}

/// How a request's attempts on one link ended ([`PolicySim::on_link`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinkEnd {
    /// The link answered.
    Answered,
    /// The request goes on to the next link.
    FailedOver,
    /// The request ends here, failed.
    Stopped,
}

/// One link prepared for drawing.
#[derive(Debug, Clone)]
pub struct LinkDraw {
    f: f64,
    /// Cumulative class shares in [`ErrorClass::ALL`] order.
    cum: [f64; 6],
    trip: f64,
    trip_by_latency: bool,
    mu: f64,
    sigma: f64,
    /// ln T_k: the log of this link's timeout ([`Chain::timeout_s`]).
    ln_t: f64,
    /// T_k, seconds: a gray failure or a trip on this link takes it.
    pub timeout_s: f64,
    /// Prices warm (the primary, hedge legs).
    pub warm: Prices,
    /// Whether this link's model is the primary's (its cache is warm in steady state).
    primary_model: bool,
    /// Whether this link's model is a hedge's second leg's (warm after the legs).
    backup_model: bool,
    /// Prices of a session's first failover here (fallbacks in sequence: cold, or a cache
    /// write for an explicit fallback under `warm_fallback = "always"`).
    pub cold: Prices,
}

/// A chain prepared for simulation under its policy.
#[derive(Debug, Clone)]
pub struct PolicySim {
    /// The links, primary first.
    pub links: Vec<LinkDraw>,
    /// The chain's policy.
    pub policy: Policy,
    /// Per chain link, why the walk passes over it ([`policy::skip_reason`]).
    pub skips: Vec<Option<policy::Skip>>,
    /// The links the walk uses ([`policy::allowed_links`]), in order.
    pub allowed: Vec<usize>,
    /// Seconds a fast failure takes.
    pub fast_fail_s: f64,
    win_rate: f64,
    win_by_latency: bool,
}

/// The figures of one request. Money in USD, time in seconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReqOut {
    /// USD billed.
    pub cost: f64,
    /// USD of attempts that did not produce the answer.
    pub wasted_cost: f64,
    /// Attempts made.
    pub attempts: u32,
    /// Dead time: seconds from the start until the answering attempt starts (or until the
    /// final error): failed attempts, backoff, a hedge's wait for its legs.
    pub dead_s: f64,
    /// ln of the answering attempt's latency L, seconds (0 when none answered).
    pub answer_ln: f64,
    /// Seconds from the start until the answering attempt started (0 when none answered):
    /// the answer came at `answer_at + e^answer_ln` ([`ReqOut::latency_s`]).
    pub answer_at: f64,
    /// The link that answered.
    pub answered: Option<usize>,
    /// Stopped by `max_attempts`.
    pub call_cap: bool,
    /// A cost-cap hit: the cost cap changed where the request went
    /// ([`policy::PolicyOutcome::cost_cap_hits`]).
    pub cost_cap: bool,
    /// Its route passed over a fallback that cannot serve it
    /// ([`policy::PolicyOutcome::refused_hits`]).
    pub refused: bool,
}

impl ReqOut {
    /// The route passed over the links `skipped` says.
    #[inline(always)]
    fn mark(&mut self, skipped: policy::Skipped) {
        self.cost_cap |= skipped.cost_cap;
        self.refused |= skipped.refused;
    }
}

impl PolicySim {
    /// Prepare `chain` serving `request`.
    pub fn new(request: &Request, chain: &Chain) -> PolicySim {
        let s = &chain.steady;
        let mix = s
            .error_mix
            .unwrap_or(ErrorMix::from_gray_fraction(s.gray_fraction));
        let mut cum = [0.0; 6];
        let mut acc = 0.0;
        for (k, c) in cum.iter_mut().enumerate() {
            acc += mix.shares[k];
            *c = acc;
        }
        cum[5] = f64::INFINITY;
        let allowed = policy::allowed_links(request, chain);
        let links = (0..chain.links.len())
            .map(|i| {
                let lat = chain.links[i].latency;
                let t = chain.timeout_s(i);
                LinkDraw {
                    f: chain.links[i].failure_rate,
                    cum,
                    trip: chain.links[i].trip_rate,
                    trip_by_latency: chain.links[i].trip_from_latency,
                    mu: lat.mu(),
                    sigma: lat.sigma(),
                    ln_t: t.ln(),
                    timeout_s: t,
                    primary_model: chain.links[i].price.id == chain.links[0].price.id,
                    backup_model: allowed
                        .get(1)
                        .is_some_and(|&b| chain.links[i].price.id == chain.links[b].price.id),
                    warm: Prices::new(request, chain, i, warm_state(&chain.links[i].price)),
                    cold: Prices::new(
                        request,
                        chain,
                        i,
                        policy::unwarmed_state(&chain.links[i].price, chain.policy.warm_fallback),
                    ),
                }
            })
            .collect();
        PolicySim {
            links,
            policy: chain.policy.clone(),
            skips: (0..chain.links.len())
                .map(|i| policy::skip_reason(request, chain, i))
                .collect(),
            allowed,
            fast_fail_s: s.fast_fail_s,
            win_rate: s.primary_win_rate,
            win_by_latency: s.win_from_latency,
        }
    }

    /// The same chain with every link's latency multiplied by `factor` (> 0): ln L shifts by
    /// ln `factor`, so a trip rate derived from the latency model follows (a given trip rate
    /// does not). Used for a slow-but-up provider on an incident timeline.
    pub fn slowed(&self, factor: f64) -> PolicySim {
        let mut sim = self.clone();
        for l in &mut sim.links {
            l.mu += factor.ln();
        }
        sim
    }

    /// One attempt on link `i` billed at `prices`. Inlined: returned through memory, the
    /// result's two f64s were read back as one 16-byte load, which the store buffer cannot
    /// forward from two 8-byte stores (a stall per attempt).
    #[inline(always)]
    pub fn draw(&self, i: usize, prices: &Prices, rng: &mut SimRng) -> AttemptResult {
        let l = &self.links[i];
        let u = uniform(rng);
        if u < l.f {
            let v = u / l.f;
            let k = l.cum.iter().position(|&c| v < c).unwrap_or(5);
            let class = ErrorClass::ALL[k];
            return match class {
                ErrorClass::Timeout => AttemptResult::Fail(class, prices.gray, l.timeout_s),
                _ => AttemptResult::Fail(class, 0.0, self.fast_fail_s),
            };
        }
        let ln_l = l.mu + l.sigma * normal(rng);
        let trips = if l.trip_by_latency {
            ln_l > l.ln_t
        } else {
            l.trip > 0.0 && uniform(rng) < l.trip
        };
        if trips {
            return AttemptResult::Fail(ErrorClass::Timeout, prices.abandoned, l.timeout_s);
        }
        if ln_l > l.ln_t {
            for _ in 0..64 {
                let ln_l = l.mu + l.sigma * normal(rng);
                if ln_l <= l.ln_t {
                    return AttemptResult::Ok(ln_l);
                }
            }
            return AttemptResult::Ok(l.ln_t);
        }
        AttemptResult::Ok(ln_l)
    }

    /// The draws of [`PolicySim::draw`] on link `i` as far as they show an attempt that
    /// answered at once (no failure, no trip, no latency redrawn below T): its ln L, or `None`
    /// as soon as the draws show otherwise (the generator then moved on: roll it back).
    #[inline(always)]
    fn answered_at_once(&self, i: usize, rng: &mut SimRng) -> Option<f64> {
        let l = &self.links[i];
        if uniform(rng) < l.f {
            return None;
        }
        let ln_l = l.mu + l.sigma * normal(rng);
        let trips = !l.trip_by_latency && l.trip > 0.0 && uniform(rng) < l.trip;
        (!trips && ln_l <= l.ln_t).then_some(ln_l)
    }

    /// The backoff before retry `k`, jittered, seconds.
    pub fn backoff(&self, k: u32, rng: &mut SimRng) -> f64 {
        let b = &self.policy.backoff;
        let d = b.delay_s(k);
        match b.jitter {
            Jitter::None => d,
            Jitter::Full => uniform(rng) * d,
            Jitter::Equal => d / 2.0 + uniform(rng) * d / 2.0,
        }
    }

    fn fails_over(&self, c: ErrorClass) -> bool {
        self.policy.failover_on.contains(&c)
    }

    /// The kinds of skipped link among chain links `between` ([`policy::skip_reason`]).
    fn skipped(&self, between: std::ops::Range<usize>) -> policy::Skipped {
        policy::Skipped::of(between.map(|j| self.skips[j]))
    }

    /// `links` tried in sequence under the policy (the first warm if `first_warm`, the rest
    /// cold), with `out.attempts` already made, cost-cap hits counted as `cap` says, and `bad`
    /// if a client error has already shown the request is bad. Adds to `out`; returns whether
    /// a link answered (and sets `out.answered`, `out.answer_at`, `out.answer_ln`).
    #[inline(always)]
    pub fn sequence(
        &self,
        links: &[usize],
        first_warm: bool,
        cap: CapCount,
        bad: bool,
        out: &mut ReqOut,
        rng: &mut SimRng,
    ) -> bool {
        let mut bad = bad;
        let (counting, mut prev) = match cap {
            CapCount::Off => (false, None),
            CapCount::After(after) => (true, after),
        };
        for (pos, &i) in links.iter().enumerate() {
            if counting && let Some(p) = prev {
                out.mark(self.skipped(p + 1..i));
            }
            prev = Some(i);
            // One cache per model: the primary's model is warm wherever it is listed, and
            // after a hedge's legs the backup's too.
            let warm = (pos == 0 && first_warm)
                || self.links[i].primary_model
                || (!first_warm && self.links[i].backup_model);
            let prices = if warm {
                &self.links[i].warm
            } else {
                &self.links[i].cold
            };
            match self.on_link(i, prices, &mut bad, out, rng) {
                LinkEnd::Answered => return true,
                LinkEnd::Stopped => return false,
                LinkEnd::FailedOver => {}
            }
        }
        // Failed over past the last link, with fallbacks passed over after it.
        if counting && let Some(p) = prev {
            out.mark(self.skipped(p + 1..self.links.len()));
        }
        false
    }

    /// The attempts of one request on link `i` billed at `prices` ([`PolicySim::sequence`]'s
    /// step): retries within the budget the first failure's class chooses, until an answer, a
    /// failover or the request's end; `bad` as in `sequence` (set by a client error that fails
    /// over).
    #[inline(always)]
    fn on_link(
        &self,
        i: usize,
        prices: &Prices,
        bad: &mut bool,
        out: &mut ReqOut,
        rng: &mut SimRng,
    ) -> LinkEnd {
        let p = &self.policy;
        let mut k = 0;
        // The retry budget here, chosen by the class of the first failure on this link.
        let mut budget = None;
        loop {
            if p.max_attempts.is_some_and(|a| out.attempts >= a) {
                out.call_cap = true;
                return LinkEnd::Stopped;
            }
            out.attempts += 1;
            if *bad {
                out.dead_s += self.fast_fail_s;
                if self.fails_over(ErrorClass::Client) {
                    return LinkEnd::FailedOver;
                }
                return LinkEnd::Stopped;
            }
            match self.draw(i, prices, rng) {
                AttemptResult::Ok(ln_l) => {
                    out.cost += prices.success;
                    out.answered = Some(i);
                    (out.answer_at, out.answer_ln) = (out.dead_s, ln_l);
                    return LinkEnd::Answered;
                }
                AttemptResult::Fail(class, usd, secs) => {
                    out.cost += usd;
                    out.wasted_cost += usd;
                    out.dead_s += secs;
                    match class {
                        ErrorClass::Quota => return LinkEnd::Stopped,
                        ErrorClass::Client => {
                            if self.fails_over(ErrorClass::Client) {
                                *bad = true;
                                return LinkEnd::FailedOver;
                            }
                            return LinkEnd::Stopped;
                        }
                        _ if k < *budget.get_or_insert_with(|| p.retries_for(class)) => {
                            out.dead_s += self.backoff(k, rng);
                            k += 1;
                        }
                        _ if self.fails_over(class) => return LinkEnd::FailedOver,
                        _ => return LinkEnd::Stopped,
                    }
                }
            }
        }
    }

    /// Whether the faster hedge leg wins (w from the latency model).
    pub fn win_by_latency(&self) -> bool {
        self.win_by_latency
    }

    /// w, when drawn.
    pub fn win_rate(&self) -> f64 {
        self.win_rate
    }

    /// The usual requests' keys under `pattern` ([`BillKey`]), most frequent first: the
    /// primary answering its first attempt; in a hedge, each leg winning the race and (with a
    /// delay) the primary answering before it. A [`PolicyTally`] counts the requests that
    /// match one instead of summing them; a key no request matches costs only the compare.
    pub fn common_outcomes(&self, pattern: Pattern) -> Vec<BillKey> {
        if !pattern.is_hedged() || !self.hedges() {
            return vec![self.alone_key()];
        }
        let (first, second) = self.race_keys(pattern);
        if self.policy.hedge_delay_s.is_some() {
            vec![self.alone_key(), first, second]
        } else {
            vec![first, second]
        }
    }

    /// The key of a request the primary answered at its first attempt, alone.
    fn alone_key(&self) -> BillKey {
        BillKey {
            cost: self.links[0].warm.success,
            attempts: 1,
            answered: Some(0),
            ..BillKey::default()
        }
    }

    /// The keys of a hedge under `pattern` (on a chain that [`PolicySim::hedges`]) whose legs
    /// both answered: (the primary won, the backup won).
    fn race_keys(&self, pattern: Pattern) -> (BillKey, BillKey) {
        let p = self.allowed[1];
        let (w0, w1) = (&self.links[0].warm, &self.links[p].warm);
        let lost = |l: &Prices| {
            if pattern == Pattern::HedgedTakeFirst {
                l.cancel
            } else {
                l.success
            }
        };
        let skipped = self.skipped(1..p);
        let race = BillKey {
            attempts: 2,
            cost_cap: skipped.cost_cap,
            refused: skipped.refused,
            ..BillKey::default()
        };
        (
            BillKey {
                cost: w0.success + lost(w1),
                wasted_cost: lost(w1),
                answered: Some(0),
                ..race
            },
            BillKey {
                cost: w1.success + lost(w0),
                wasted_cost: lost(w0),
                answered: Some(p),
                dead_s: self.policy.hedge_delay_s.unwrap_or(0.0),
                ..race
            },
        )
    }

    /// Whether the hedged patterns exist on this chain under its policy.
    pub fn hedges(&self) -> bool {
        self.allowed.len() >= 2 && self.policy.max_attempts.is_none_or(|a| a >= 2)
    }

    /// One request under `pattern`. Inlined into the chunk loops, so the request's figures
    /// are built where the tally reads them (returned through memory, they were copied with
    /// 16-byte loads over 8-byte stores: a store-forwarding stall per request and pattern).
    #[inline(always)]
    pub fn request(&self, pattern: Pattern, rng: &mut SimRng) -> ReqOut {
        let mut out = ReqOut::default();
        match pattern {
            Pattern::NoFallback => {
                self.sequence(&[0], true, CapCount::Off, false, &mut out, rng);
            }
            Pattern::Sequential => {
                let cap = CapCount::After(None);
                self.sequence(&self.allowed, true, cap, false, &mut out, rng);
            }
            Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
                self.hedged(pattern == Pattern::HedgedTakeFirst, &mut out, rng)
            }
        }
        out
    }

    /// The links after a hedge's legs, in sequence (cold), `bad` if a client error showed the
    /// request is bad. Past a skipped first fallback the request is a cost-cap hit already
    /// (its backup was sent); otherwise the links after the backup count as in sequence.
    #[inline(always)]
    fn after_legs(&self, bad: bool, out: &mut ReqOut, rng: &mut SimRng) {
        let p = self.allowed[1];
        let cap = if p == 1 {
            CapCount::After(Some(p))
        } else {
            out.mark(self.skipped(1..p));
            CapCount::Off
        };
        self.sequence(&self.allowed[2..], false, cap, bad, out, rng);
    }

    /// A hedge (the same process as [`crate::model::hedge`]'s closed form): the primary and the
    /// first allowed fallback, warm, once each. Without a delay both go at once. With
    /// `hedge_delay_s` = d the primary goes alone: answered by d, that is all; failed before d,
    /// the backup follows as a sequential failover (a quota error stops there, a client error
    /// goes on only if `client` fails over); still running at d, the backup races it from d.
    /// In a race a client error on either leg makes the request bad: both legs return it
    /// (billed 0) and the race ends at the first; a quota error lets the other leg answer but
    /// stops the request if it does not. When both legs fail otherwise, the remaining links
    /// follow after the slower failure.
    #[inline(always)]
    fn hedged(&self, cancel: bool, out: &mut ReqOut, rng: &mut SimRng) {
        let p = self.allowed[1];
        let w0 = &self.links[0].warm;
        // Past a skipped first fallback, a request whose backup is sent is a cost-cap hit (or
        // passed over a link that cannot serve it).
        let capped = self.skipped(1..p);
        let a0 = self.draw(0, w0, rng);
        out.attempts = 1;
        if let Some(d) = self.policy.hedge_delay_s
            && self.before_delay(d, a0, capped, out, rng)
        {
            return;
        }
        self.race(cancel, a0, capped, out, rng);
    }

    /// A delayed hedge whose primary attempt `a0` ended before the delay `d`: answered, that is
    /// all; failed, the backup follows as a sequential failover (`capped`: a cost-cap hit when
    /// sent). Returns whether the request is done (else the backup races the primary from d).
    #[inline(always)]
    fn before_delay(
        &self,
        d: f64,
        a0: AttemptResult,
        capped: policy::Skipped,
        out: &mut ReqOut,
        rng: &mut SimRng,
    ) -> bool {
        let p = self.allowed[1];
        let (w0, w1) = (&self.links[0].warm, &self.links[p].warm);
        let fs = self.fast_fail_s;
        let client_fails_over = self.fails_over(ErrorClass::Client);
        match a0 {
            AttemptResult::Ok(l0) if l0.exp() <= d => {
                out.cost = w0.success;
                out.answered = Some(0);
                out.answer_ln = l0;
                true
            }
            AttemptResult::Fail(class, u0, s0) if s0 <= d => {
                // Failed before the delay: the backup follows as a failover.
                out.cost = u0;
                out.wasted_cost = u0;
                out.dead_s = s0;
                match class {
                    ErrorClass::Quota => return true,
                    ErrorClass::Client => {
                        if client_fails_over {
                            // the backup, once, fails the same way
                            out.mark(capped);
                            out.attempts = 2;
                            out.dead_s += fs;
                            self.after_legs(true, out, rng);
                        }
                        return true;
                    }
                    _ => {}
                }
                out.attempts = 2;
                out.mark(capped);
                match self.draw(p, w1, rng) {
                    AttemptResult::Ok(l1) => {
                        out.cost += w1.success;
                        out.answered = Some(p);
                        (out.answer_at, out.answer_ln) = (s0, l1);
                    }
                    AttemptResult::Fail(class, u1, s1) => {
                        out.cost += u1;
                        out.wasted_cost += u1;
                        out.dead_s += s1;
                        match class {
                            ErrorClass::Quota => {}
                            ErrorClass::Client if !client_fails_over => {}
                            ErrorClass::Client => self.after_legs(true, out, rng),
                            _ => self.after_legs(false, out, rng),
                        }
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// The race of a hedge's legs: the primary's attempt `a0` in flight, the backup sent at
    /// once or at the delay (`capped`: a cost-cap hit), then the links after them.
    #[inline(always)]
    fn race(
        &self,
        cancel: bool,
        a0: AttemptResult,
        capped: policy::Skipped,
        out: &mut ReqOut,
        rng: &mut SimRng,
    ) {
        let p = self.allowed[1];
        let (w0, w1) = (&self.links[0].warm, &self.links[p].warm);
        let delay = self.policy.hedge_delay_s;
        let client_fails_over = self.fails_over(ErrorClass::Client);
        // The race: the backup goes out at `s1` while the primary is in flight.
        let s1 = delay.unwrap_or(0.0);
        let a1 = self.draw(p, w1, rng);
        out.attempts = 2;
        out.mark(capped);
        let client_at = |a: AttemptResult, at: f64| match a {
            AttemptResult::Fail(ErrorClass::Client, _, secs) => Some(at + secs),
            _ => None,
        };
        match (client_at(a0, 0.0), client_at(a1, s1)) {
            (None, None) => {}
            (c0, c1) => {
                // A bad request: both legs return the client error, billed 0.
                out.dead_s = c0.unwrap_or(f64::INFINITY).min(c1.unwrap_or(f64::INFINITY));
                if client_fails_over {
                    self.after_legs(true, out, rng);
                }
                return;
            }
        }
        match (a0, a1) {
            (AttemptResult::Ok(l0), AttemptResult::Ok(l1)) => {
                let primary_wins = match delay {
                    Some(_) => l0.exp() <= s1 + l1.exp(),
                    None if self.win_by_latency => l0 <= l1,
                    None => uniform(rng) < self.win_rate,
                };
                let lost = |l: &Prices| if cancel { l.cancel } else { l.success };
                if primary_wins {
                    out.cost = w0.success + lost(w1);
                    out.wasted_cost = lost(w1);
                    out.answered = Some(0);
                    out.answer_ln = l0;
                } else {
                    out.cost = w1.success + lost(w0);
                    out.wasted_cost = lost(w0);
                    out.answered = Some(p);
                    out.dead_s = s1;
                    (out.answer_at, out.answer_ln) = (s1, l1);
                }
            }
            (AttemptResult::Ok(l0), AttemptResult::Fail(_, u1, _)) => {
                out.cost = w0.success + u1;
                out.wasted_cost = u1;
                out.answered = Some(0);
                out.answer_ln = l0;
            }
            (AttemptResult::Fail(_, u0, _), AttemptResult::Ok(l1)) => {
                out.cost = u0 + w1.success;
                out.wasted_cost = u0;
                out.answered = Some(p);
                out.dead_s = s1;
                (out.answer_at, out.answer_ln) = (s1, l1);
            }
            (AttemptResult::Fail(c0, u0, e0), AttemptResult::Fail(c1, u1, e1)) => {
                out.cost = u0 + u1;
                out.wasted_cost = u0 + u1;
                out.dead_s = e0.max(s1 + e1);
                if c0 != ErrorClass::Quota && c1 != ErrorClass::Quota {
                    self.after_legs(false, out, rng);
                }
            }
        }
    }
}

impl ReqOut {
    /// Its [`BillKey`].
    #[inline]
    pub fn key(&self) -> BillKey {
        BillKey {
            cost: self.cost,
            wasted_cost: self.wasted_cost,
            attempts: self.attempts,
            dead_s: self.dead_s,
            answered: self.answered,
            call_cap: self.call_cap,
            cost_cap: self.cost_cap,
            refused: self.refused,
        }
    }

    /// Seconds to the answer (`answer_at` + L) or, when no link answered, to the final error
    /// (the dead time).
    pub fn latency_s(&self) -> f64 {
        match self.answered {
            Some(_) => self.answer_at + self.answer_ln.exp(),
            None => self.dead_s,
        }
    }

    /// ln of [`ReqOut::latency_s`], what the latency histograms bin: the answering attempt's
    /// ln L itself when it started at once (the common request: no `exp` and `ln`), else the
    /// log of the seconds. The same number as `latency_s().ln()` but for the rounding of
    /// ln(e^x) against x (an ulp or two, which moves a bin only at its very edge).
    #[inline]
    pub fn ln_latency(&self) -> f64 {
        match self.answered {
            Some(_) if self.answer_at == 0.0 => self.answer_ln,
            _ => self.latency_s().ln(),
        }
    }

    /// The request's bill: its steady figures, the one place this simulator says them
    /// ([`SteadyFigures`], per request; the baseline and the ratio to it are the report's).
    fn bill(&self) -> SteadyFigures<f64> {
        let ok = self.answered.is_some();
        SteadyFigures {
            cost_per_1k_usd: self.cost,
            baseline_per_1k_usd: None,
            vs_baseline: None,
            failed_per_1k: if ok { 0.0 } else { 1.0 },
            wasted_attempts_per_1k: f64::from(self.attempts) - if ok { 1.0 } else { 0.0 },
            wasted_per_1k_usd: self.wasted_cost,
            fallback_answers_per_1k: f64::from(u8::from(self.answered.is_some_and(|i| i > 0))),
        }
    }
}

/// The policy figures of one pattern, simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyMc {
    /// Cost, failed, wasted and latency, as the default-policy engine gives them.
    pub base: PatternMc,
    /// Attempts per request.
    pub attempts: Sum,
    /// The most attempts any simulated request made.
    pub attempts_max: u32,
    /// Dead seconds per request.
    pub dead_time: Sum,
    /// Dead time p99, seconds (0 when fewer than 1% of requests had any).
    pub dead_time_p99_s: f64,
    /// Per link, the share of requests it answered (0/1 samples).
    pub answered_by: Vec<Sum>,
    /// Call-cap hits (0/1 per request).
    pub call_cap_hits: Sum,
    /// Cost-cap hits (0/1 per request): requests whose route the cost cap changed. They went
    /// on to a link after a link the cap skipped (a hedge: their backup was sent past a skipped
    /// first fallback, or they went on past the legs), or failed over past the last link with
    /// skipped links after it. `no-fallback` has none. The same definition as
    /// [`policy::PolicyOutcome::cost_cap_hits`].
    pub cost_cap_hits: Sum,
    /// Requests whose route passed over a fallback that cannot serve them (0/1 per request;
    /// as [`policy::PolicyOutcome::refused_hits`]).
    pub refused: Sum,
}

impl PolicyMc {
    /// These sums as the report's policy figure set (per request: the report scales them,
    /// [`crate::figures::Figure::scale`]), with this chain's dead-time percentile (seconds).
    /// `answered_by` is left empty: its entries need the chain's model ids (the report's to
    /// fill, from [`PolicyMc::answered_by`]).
    pub fn figures(&self) -> SteadyPolicyFigures<Sum> {
        SteadyPolicyFigures {
            attempts_per_request: self.attempts,
            attempts_max: self.attempts_max,
            dead_time_mean_s: self.dead_time,
            dead_time_p99_s: Some(self.dead_time_p99_s),
            answered_by: Vec::new(),
            call_cap_hits_per_1k: self.call_cap_hits,
            cost_cap_hits_per_1k: self.cost_cap_hits,
            refused_per_1k: self.refused,
        }
    }
}

/// The p-quantile of dead time: 0 while the rank falls among the requests without any.
pub fn dead_quantile(zero: u64, hist: &Histogram, p: f64) -> f64 {
    let n = zero + hist.total();
    if n == 0 {
        return 0.0;
    }
    let rank = ((p * n as f64).ceil() as u64).clamp(1, n);
    if rank <= zero {
        return 0.0;
    }
    let pos = hist.total();
    hist.quantile((rank - zero) as f64 / pos as f64)
        .unwrap_or(0.0)
}

fn finish(pattern: Pattern, acc: &PolicyTally) -> PolicyMc {
    let n = acc.steady.cost_per_1k_usd.n;
    PolicyMc {
        base: PatternMc {
            pattern,
            figures: acc.steady.clone(),
            latency: acc.latency.clone(),
        },
        attempts: acc.attempts,
        attempts_max: acc.attempts_max,
        dead_time: acc.dead,
        dead_time_p99_s: dead_quantile(acc.dead_zero, &acc.dead_hist, 0.99),
        answered_by: acc.answered.iter().map(|&c| share_sum(c, n)).collect(),
        call_cap_hits: share_sum(acc.call_cap, n),
        cost_cap_hits: acc.cost_cap,
        refused: share_sum(acc.refused, n),
    }
}

/// Simulate `opts.requests` requests of chain number `index` under its policy, every pattern
/// that exists on it (hedges need two allowed links and a call cap of at least 2).
pub fn simulate(
    request: &Request,
    chain: &Chain,
    index: u64,
    opts: &McOptions,
    tick: &mut dyn FnMut(u64),
) -> Vec<PolicyMc> {
    let sim = PolicySim::new(request, chain);
    let patterns: Vec<Pattern> = Pattern::ALL
        .into_iter()
        .filter(|p| !p.is_hedged() || sim.hedges())
        .collect();
    let n = opts.requests;
    let chunks = n.div_ceil(CHUNK);
    let links = chain.links.len();
    let mut total: Vec<PolicyTally> = patterns.iter().map(|_| PolicyTally::new(links)).collect();
    // A stream of its own, apart from the default-policy engine's.
    let stream = Stream::SteadyPolicy { chain: index }.id();
    ordered(
        chunks,
        |c| {
            let count = CHUNK.min(n - c * CHUNK);
            let mut rng = chunk_rng(opts.seed, stream, c);
            let mut accs: Vec<PolicyTally> = (patterns.iter())
                .map(|p| PolicyTally::for_pattern(&sim, *p))
                .collect();
            for _ in 0..count {
                for (p, acc) in patterns.iter().zip(accs.iter_mut()) {
                    acc.simulate(&sim, *p, &mut rng);
                }
            }
            accs.iter_mut().for_each(PolicyTally::settle);
            accs
        },
        |accs| {
            for (t, a) in total.iter_mut().zip(&accs) {
                t.merge(a);
            }
        },
        &mut |k| tick(k * CHUNK),
    );
    patterns
        .iter()
        .zip(&total)
        .map(|(p, acc)| finish(*p, acc))
        .collect()
}

/// The latency histogram of every pattern [`simulate`] simulates, from the same draws (the
/// same stream, chunks and request order, so every latency and hence every percentile is
/// identical to its), without the other tallies: what `fallcost tune` times each candidate's
/// p99 with (`ops::tune`). The first n requests of a run are the first n of any longer run on
/// the same seed (one generator per [`CHUNK`]), so a short run is a prefix of a long one.
pub fn latencies(
    request: &Request,
    chain: &Chain,
    index: u64,
    opts: &McOptions,
) -> Vec<(Pattern, Histogram)> {
    let sim = PolicySim::new(request, chain);
    let patterns: Vec<Pattern> = Pattern::ALL
        .into_iter()
        .filter(|p| !p.is_hedged() || sim.hedges())
        .collect();
    let n = opts.requests;
    let stream = Stream::SteadyPolicy { chain: index }.id();
    // the usual requests, recognised from their first draws as `simulate` does
    let shortcuts: Vec<Shortcut> = (patterns.iter())
        .map(|p| PolicyTally::for_pattern(&sim, *p).shortcut)
        .collect();
    let mut total: Vec<Histogram> = patterns.iter().map(|_| Histogram::default()).collect();
    ordered(
        n.div_ceil(CHUNK),
        |c| {
            let count = CHUNK.min(n - c * CHUNK);
            let mut rng = chunk_rng(opts.seed, stream, c);
            let mut hists: Vec<Histogram> = patterns.iter().map(|_| Histogram::default()).collect();
            for _ in 0..count {
                for ((p, h), shortcut) in patterns.iter().zip(hists.iter_mut()).zip(&shortcuts) {
                    let start = rng.clone();
                    if let Some((ln, _)) = shortcut.usual(&sim, &mut rng) {
                        h.add_ln(ln);
                        continue;
                    }
                    rng = start;
                    h.add_ln(sim.request(*p, &mut rng).ln_latency());
                }
            }
            hists
        },
        |hists| {
            for (t, h) in total.iter_mut().zip(&hists) {
                t.merge(h);
            }
        },
        &mut |_| {},
    );
    patterns.into_iter().zip(total).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::Link;
    use crate::model::cost::tests::{july, req, set_failure_rates, set_latency, set_trip_rates};
    use crate::model::policy::Backoff;
    use crate::model::steady::detailed;
    use crate::model::{AbandonedBilling, Steady};
    use crate::sim::stats::{Z99, Z999, rare_events_unseen};

    pub(crate) fn chain(models: &[&str], f: &[f64], policy: Policy) -> Chain {
        let mut c = Chain {
            name: "c".into(),
            links: models.iter().map(|m| Link::new(july(m))).collect(),
            steady: Steady::default(),
            policy,
            traffic_share: None,
        };
        set_failure_rates(&mut c, f);
        c
    }

    fn run(r: &Request, c: &Chain, n: u64, seed: u64) -> Vec<PolicyMc> {
        let opts = McOptions {
            requests: n,
            runs: 0,
            seed,
        };
        simulate(r, c, 0, &opts, &mut |_| {})
    }

    /// Whether the exact value lies within z standard errors of the MC mean. A figure that is
    /// 0 on the common path and at most `unit` elsewhere is, in the rare regime (fewer than
    /// 100 expected `unit`-sized events, events = exact·n / unit), a Poisson count: there the
    /// tolerance adds unit·(z·√events + 1) / n, so a path a finite sample may not see at all
    /// (a 4-attempt call-cap hit at f = 1%) does not fail the check. `unit` 0: no widening.
    /// A figure the whole sample saw constant, off by a few `unit`-sized events too rare to
    /// have been seen (a path of 1e-5 per request moving attempts from 1), passes as
    /// [`rare_events_unseen`] (the incident checks' rule).
    fn close(sum: &Sum, exact: f64, z: f64, unit: f64) -> bool {
        if rare_events_unseen(sum, exact, unit) {
            return true;
        }
        let n = sum.n.max(1) as f64;
        let mut tol = z * sum.std_error() + 1e-9 * exact.abs().max(sum.mean().abs());
        if unit > 0.0 {
            let events = exact.abs() * n / unit;
            if events < 100.0 {
                tol += unit * (z * events.sqrt() + 1.0) / n;
            }
        }
        (sum.mean() - exact).abs() <= tol
    }

    /// Every figure of every pattern against [`detailed`]: cost within z₁ standard errors,
    /// the rest within z₂ (many are checked at once).
    pub(crate) fn assert_agrees(r: &Request, c: &Chain, n: u64, seed: u64, z1: f64, z2: f64) {
        let mc = run(r, c, n, seed);
        let sim = PolicySim::new(r, c);
        let exists = Pattern::ALL
            .iter()
            .filter(|p| detailed(r, c, **p).is_some())
            .count();
        assert_eq!(mc.len(), exists);
        for m in &mc {
            let p = m.base.pattern;
            let a = detailed(r, c, p).unwrap();
            let s = a.summary();
            let amax = f64::from(a.attempts_max.max(1));
            let price = sim
                .links
                .iter()
                .flat_map(|l| [l.warm.success, l.cold.success, l.warm.gray, l.cold.gray])
                .fold(0.0, f64::max);
            let backoff = c.policy.backoff.cap_s.max(c.policy.backoff.base_s);
            let slowest = (0..c.links.len())
                .map(|i| c.timeout_s(i))
                .fold(0.0, f64::max);
            let secs = (slowest.max(c.steady.fast_fail_s) + backoff) * amax;
            let mut checks = vec![
                (
                    "cost",
                    m.base.figures.cost_per_1k_usd,
                    s.cost_per_1k_usd,
                    0.0,
                    z1,
                ),
                (
                    "failed",
                    m.base.figures.failed_per_1k,
                    s.failed_per_1k,
                    1.0,
                    z2,
                ),
                (
                    "wasted_attempts",
                    m.base.figures.wasted_attempts_per_1k,
                    s.wasted_attempts_per_1k,
                    amax,
                    z2,
                ),
                (
                    "wasted_cost",
                    m.base.figures.wasted_per_1k_usd,
                    s.wasted_per_1k_usd,
                    price * amax,
                    z2,
                ),
                (
                    "fallback_answers",
                    m.base.figures.fallback_answers_per_1k,
                    s.fallback_answers_per_1k,
                    1.0,
                    z2,
                ),
                ("attempts", m.attempts, a.attempts, amax, z2),
                ("dead_time", m.dead_time, a.dead_time_s, secs, z2),
                ("call_cap", m.call_cap_hits, a.call_cap_hits, 1.0, z2),
                ("cost_cap", m.cost_cap_hits, a.cost_cap_hits, 1.0, z2),
                ("refused", m.refused, a.refused_hits, 1.0, z2),
            ];
            for (i, sh) in m.answered_by.iter().enumerate() {
                checks.push(("answered_by", *sh, a.answered_by[i], 1.0, z2));
            }
            for (name, sum, want, unit, z) in checks {
                assert!(
                    close(&sum, want, z, unit),
                    "{} {name}: analytic {want}, MC {} ± {} (n {})",
                    p.as_str(),
                    sum.mean(),
                    z * sum.std_error(),
                    sum.n
                );
            }
            assert!(m.attempts_max <= a.attempts_max, "{}", p.as_str());
        }
    }

    const SOL: &str = "openai/gpt-5.6-sol";
    const SONNET: &str = "anthropic/claude-sonnet-5";
    const HAIKU: &str = "anthropic/claude-haiku-4-5";
    const G6SOL: &str = "openai/gpt-6-sol";

    fn seq(mc: &[PolicyMc]) -> &PolicyMc {
        mc.iter()
            .find(|m| m.base.pattern == Pattern::Sequential)
            .unwrap()
    }

    /// The shortcut of [`PolicyTally::simulate`] is bit for bit the general path
    /// (`add(&request(..))`): the same figures, histograms and final generator state, on
    /// chains that take each shortcut (trips from the latency model or given, the winner by
    /// latency or drawn, a cost cap that skips the first fallback) and on ones that take none
    /// (a hedge delay, a call cap of 0).
    #[test]
    fn the_usual_request_shortcut_changes_nothing() {
        let cases = shortcut_cases();
        let r = req(2000.0, 500.0, 0.0, 0.0);
        for (n, c) in cases.iter().enumerate() {
            let sim = PolicySim::new(&r, c);
            for p in Pattern::ALL {
                if p.is_hedged() && !sim.hedges() {
                    continue;
                }
                let (mut fast, mut general) = (
                    PolicyTally::for_pattern(&sim, p),
                    PolicyTally::for_pattern(&sim, p),
                );
                let (mut r1, mut r2) = (chunk_rng(9, 0, n as u64), chunk_rng(9, 0, n as u64));
                for _ in 0..20_000 {
                    fast.simulate(&sim, p, &mut r1);
                    general.add(&sim.request(p, &mut r2));
                }
                assert_eq!(r1, r2, "case {n} {p:?}: the generators drifted apart");
                fast.settle();
                general.settle();
                assert_eq!(finish(p, &fast), finish(p, &general), "case {n} {p:?}");
            }
        }
        // the shortcuts taken: both legs' on the latency-driven chain, none with a delay
        let sim = PolicySim::new(&r, &cases[0]);
        let race = PolicyTally::for_pattern(&sim, Pattern::HedgedNoCancel).shortcut;
        assert!(matches!(race, Shortcut::Race { p: 1, .. }), "{race:?}");
        let sim = PolicySim::new(&r, &cases[2]);
        let none = PolicyTally::for_pattern(&sim, Pattern::HedgedTakeFirst).shortcut;
        assert!(matches!(none, Shortcut::None), "{none:?}");
        let sim = PolicySim::new(&r, &cases[4]);
        let skip = PolicyTally::for_pattern(&sim, Pattern::HedgedTakeFirst).shortcut;
        assert!(matches!(skip, Shortcut::Race { p: 2, .. }), "{skip:?}");
    }

    /// The chains [`the_usual_request_shortcut_changes_nothing`] runs: trips and the winner from
    /// the latency model; trips and w given; a hedge delay; a call cap of 0; a cost cap that
    /// skips the first fallback (all with 2 retries).
    fn shortcut_cases() -> Vec<Chain> {
        let lat = |p50: f64, p99: f64| crate::model::Latency {
            p50_s: p50,
            p99_s: p99,
            given: true,
        };
        let retries = Policy {
            retries: 2,
            timeout_s: 6.0,
            backoff: Backoff {
                base_s: 0.5,
                cap_s: 8.0,
                jitter: Jitter::Full,
            },
            ..Policy::default()
        };
        let mut cases: Vec<Chain> = Vec::new();
        let base = chain(&[SOL, SONNET, HAIKU], &[0.1, 0.2, 0.05], retries.clone());
        let mut by_latency = base.clone();
        set_latency(
            &mut by_latency,
            &[lat(2.0, 12.0), lat(1.5, 10.0), lat(0.8, 5.0)],
        );
        for l in &mut by_latency.links {
            l.trip_from_latency = true;
        }
        by_latency.steady.win_from_latency = true;
        cases.push(by_latency.clone());
        let mut given = base.clone();
        set_trip_rates(&mut given, &[0.05, 0.1, 0.0]);
        given.steady.primary_win_rate = 0.6;
        cases.push(given);
        let mut delayed = by_latency.clone();
        delayed.policy.hedge_delay_s = Some(1.0);
        cases.push(delayed);
        let mut no_call = base.clone();
        no_call.policy.max_attempts = Some(0);
        cases.push(no_call);
        let capped = chain(
            &[
                "anthropic/claude-opus-5",
                "openai/gpt-6-astra",
                "openai/gpt-6-sol",
            ],
            &[0.1, 0.0, 0.0],
            Policy {
                max_multiplier: Some(1.5),
                ..retries
            },
        );
        cases.push(capped);
        cases
    }

    /// Issue 5: 3 tries at a 30 s timeout against a hanging primary: exactly 90 s of dead time
    /// before the fallback answers (no backoff), on every simulated request.
    #[test]
    fn ninety_seconds_of_dead_time() {
        let policy = Policy {
            retries: 2,
            backoff: Backoff {
                base_s: 0.0,
                cap_s: 0.0,
                jitter: Jitter::None,
            },
            ..Policy::default()
        };
        let c = chain(&[SONNET, G6SOL], &[1.0, 0.0], policy);
        let mc = run(&req(0.0, 1200.0, 0.0, 0.0), &c, 2000, 1);
        let s = seq(&mc);
        assert_eq!(s.dead_time.mean(), 90.0);
        assert_eq!(s.dead_time.std_error(), 0.0);
        assert!((s.dead_time_p99_s / 90.0 - 1.0).abs() < 0.006);
        assert_eq!((s.attempts.mean(), s.attempts_max), (4.0, 4));
        assert_eq!(s.answered_by[1].mean(), 1.0);
        // every request's latency is 90 s plus GPT-6 Sol's answer
        assert!(s.base.latency.quantile(0.01).unwrap() > 90.0);
    }

    /// Issue 5: chain [A, B], 2 retries, every attempt a 429: exactly 6 attempts, all failed.
    #[test]
    fn six_attempts() {
        let mut c = chain(
            &[SOL, SONNET],
            &[1.0, 1.0],
            Policy {
                retries: 2,
                ..Policy::default()
            },
        );
        c.steady.error_mix = Some(ErrorMix {
            shares: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        });
        let mc = run(&req(2000.0, 500.0, 0.0, 0.0), &c, 1000, 2);
        let s = seq(&mc);
        assert_eq!((s.attempts.mean(), s.attempts_max), (6.0, 6));
        assert_eq!(s.attempts.std_error(), 0.0);
        assert_eq!(s.base.figures.failed_per_1k.mean(), 1.0);
        assert_eq!(s.base.figures.cost_per_1k_usd.mean(), 0.0);
        // six fast failures and five backoffs (full jitter, mean 0.25, 0.5 per link)
        assert!(s.dead_time.mean() > 3.0 && s.dead_time.mean() < 3.0 + 2.0 * 1.5);
    }

    /// Issue 5: a 400 costs one attempt when only provider errors fail over; one per link
    /// when client errors fail over too.
    #[test]
    fn a_client_error_costs_one_attempt_or_one_per_link() {
        let mut c = chain(
            &[SOL, SONNET, HAIKU],
            &[1.0, 0.0, 0.0],
            Policy {
                retries: 3,
                ..Policy::default()
            },
        );
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        });
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let s = run(&r, &c, 1000, 3);
        let s = seq(&s);
        assert_eq!((s.attempts.mean(), s.attempts_max), (1.0, 1));
        assert_eq!(s.base.figures.failed_per_1k.mean(), 1.0);
        c.policy.failover_on.push(ErrorClass::Client);
        let s = run(&r, &c, 1000, 3);
        let s = seq(&s);
        assert_eq!((s.attempts.mean(), s.attempts_max), (3.0, 3));
        assert_eq!(
            (
                s.base.figures.failed_per_1k.mean(),
                s.base.figures.cost_per_1k_usd.mean()
            ),
            (1.0, 0.0)
        );
        // three fast failures, no backoff (client errors are not retried)
        assert_eq!(s.dead_time.mean(), 1.5);
    }

    fn pattern(mc: &[PolicyMc], p: Pattern) -> &PolicyMc {
        mc.iter().find(|m| m.base.pattern == p).unwrap()
    }

    /// Every failure a client error (400) / a quota error.
    const CLIENT: [f64; 6] = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    const QUOTA: [f64; 6] = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0];

    /// Hedges under client and quota errors (MODEL.md §8), simulated where every request takes
    /// the same path, with the figures `model::steady`'s tests compute by hand: both legs out
    /// of quota: 2 attempts, failed after 0.5 s, Haiku never tried; a delayed hedge (d = 2 s)
    /// whose primary returns a 400 at 0.5 s, `client` failing over: Sonnet and Haiku once each
    /// (3 attempts, 1.5 s); a 400 on the backup racing a 3 s primary from d: both legs fail,
    /// billed 0, when it comes back at 2.5 s.
    #[test]
    fn hedges_under_client_and_quota_errors() {
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let hedges = [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel];
        let mut c = chain(&[SOL, SONNET, HAIKU], &[1.0, 1.0, 0.0], Policy::default());
        c.steady.error_mix = Some(ErrorMix { shares: QUOTA });
        let mc = run(&r, &c, 1000, 11);
        for p in hedges {
            let h = pattern(&mc, p);
            assert_eq!((h.attempts.mean(), h.attempts_max), (2.0, 2));
            assert_eq!(
                (
                    h.base.figures.failed_per_1k.mean(),
                    h.base.figures.cost_per_1k_usd.mean()
                ),
                (1.0, 0.0)
            );
            assert_eq!(h.dead_time.mean(), 0.5);
            assert_eq!(h.answered_by[2].mean(), 0.0);
        }
        let mut policy = Policy {
            hedge_delay_s: Some(2.0),
            ..Policy::default()
        };
        policy.failover_on.push(ErrorClass::Client);
        let mut c = chain(&[SOL, SONNET, HAIKU], &[1.0, 0.0, 0.0], policy);
        c.steady.error_mix = Some(ErrorMix { shares: CLIENT });
        let mc = run(&r, &c, 1000, 12);
        for p in hedges {
            let h = pattern(&mc, p);
            assert_eq!((h.attempts.mean(), h.attempts_max), (3.0, 3));
            assert_eq!(
                (
                    h.base.figures.failed_per_1k.mean(),
                    h.base.figures.cost_per_1k_usd.mean()
                ),
                (1.0, 0.0)
            );
            assert_eq!(h.dead_time.mean(), 1.5);
        }
        let mut c = chain(
            &[SOL, SONNET],
            &[0.0, 1.0],
            Policy {
                hedge_delay_s: Some(2.0),
                ..Policy::default()
            },
        );
        c.steady.error_mix = Some(ErrorMix { shares: CLIENT });
        let fixed = |s: f64| crate::model::Latency {
            p50_s: s,
            p99_s: s,
            ..Default::default()
        };
        set_latency(&mut c, &[fixed(3.0), fixed(0.5)]);
        let mc = run(&r, &c, 1000, 13);
        for p in hedges {
            let h = pattern(&mc, p);
            assert_eq!((h.attempts.mean(), h.attempts_max), (2.0, 2));
            assert_eq!(
                (
                    h.base.figures.failed_per_1k.mean(),
                    h.base.figures.cost_per_1k_usd.mean()
                ),
                (1.0, 0.0)
            );
            assert_eq!(h.dead_time.mean(), 2.5);
        }
    }

    /// Issue 5: the complex tier with max_multiplier = 1.5 skips GPT-6 Astra and lands on
    /// GPT-6 Sol.
    #[test]
    fn cost_cap_lands_on_sol() {
        let c = chain(
            &[
                "anthropic/claude-opus-5",
                "openai/gpt-6-astra",
                "openai/gpt-6-sol",
            ],
            &[1.0, 0.0, 0.0],
            Policy {
                max_multiplier: Some(1.5),
                ..Policy::default()
            },
        );
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mc = run(&r, &c, 1000, 4);
        let s = seq(&mc);
        let shares: Vec<f64> = s.answered_by.iter().map(|a| a.mean()).collect();
        assert_eq!(shares, vec![0.0, 0.0, 1.0]);
        assert_eq!(s.cost_cap_hits.mean(), 1.0);
        // the hedge pairs Opus with Sol, so every hedged request counts a cost-cap hit
        let h = &mc[2];
        assert_eq!(h.base.pattern, Pattern::HedgedTakeFirst);
        assert_eq!(h.answered_by[1].mean(), 0.0);
        assert_eq!(h.answered_by[2].mean(), 1.0);
        assert_eq!(h.cost_cap_hits.mean(), 1.0);
        assert_agrees(&r, &c, 2000, 4, Z99, Z999);
    }

    /// `model::steady`'s hand-computed cost-cap hits, simulated: Opus 5 → GPT-6 Astra → GPT-6
    /// Sol at max_multiplier 1.5 (Astra skipped), f = 10% on Opus, half of it gray. No-fallback
    /// never fails over: exactly 0. Sequential: the 10% that fail over to Sol. A simultaneous
    /// hedge: every request. A delayed hedge at d = 6 s with Opus lognormal (p50 2 s, p99 10 s,
    /// T = 30 s): the requests whose backup is sent, 1 − 0.9·Φ(ln 3/σ)/Φ(ln 15/σ) = 0.150492.
    #[test]
    fn cost_cap_hits_are_the_requests_the_cap_moved() {
        let mut c = chain(
            &["anthropic/claude-opus-5", "openai/gpt-6-astra", G6SOL],
            &[0.1, 0.0, 0.0],
            Policy {
                max_multiplier: Some(1.5),
                timeout_s: 30.0,
                ..Policy::default()
            },
        );
        c.steady.gray_fraction = 0.5;
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let n = 40_000;
        let mc = run(&r, &c, n, 21);
        assert_eq!(pattern(&mc, Pattern::NoFallback).cost_cap_hits.mean(), 0.0);
        let s = seq(&mc).cost_cap_hits;
        assert!(close(&s, 0.1, Z999, 1.0), "{}", s.mean());
        for p in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            assert_eq!(pattern(&mc, p).cost_cap_hits.mean(), 1.0);
        }
        assert_agrees(&r, &c, n, 21, Z999, Z999);
        set_latency(
            &mut c,
            &[
                crate::model::latency::Latency {
                    p50_s: 2.0,
                    p99_s: 10.0,
                    ..Default::default()
                },
                Default::default(),
                Default::default(),
            ],
        );
        c.policy.hedge_delay_s = Some(6.0);
        let mc = run(&r, &c, n, 22);
        assert_eq!(pattern(&mc, Pattern::NoFallback).cost_cap_hits.mean(), 0.0);
        for p in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            let h = &pattern(&mc, p).cost_cap_hits;
            assert!(close(h, 0.150492, Z999, 1.0), "{p:?}: {}", h.mean());
            let a = detailed(&r, &c, p).unwrap().cost_cap_hits;
            assert!((a - 0.150492).abs() < 5e-7, "{a}");
        }
        assert_agrees(&r, &c, n, 22, Z999, Z999);
    }

    /// The call cap bounds attempts.
    #[test]
    fn call_cap_bounds_attempts() {
        let mut c = chain(
            &[SOL, SONNET, HAIKU],
            &[1.0, 1.0, 1.0],
            Policy {
                retries: 2,
                max_attempts: Some(4),
                ..Policy::default()
            },
        );
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        });
        let s = run(&req(2000.0, 500.0, 0.0, 0.0), &c, 1000, 5);
        let s = seq(&s);
        assert_eq!((s.attempts.mean(), s.attempts_max), (4.0, 4));
        assert_eq!(s.call_cap_hits.mean(), 1.0);
    }

    /// A heavy mix of every class and every policy knob, against the Markov chain.
    #[test]
    fn agrees_with_the_markov_chain() {
        let mut c = chain(
            &[SOL, SONNET, HAIKU],
            &[0.3, 0.4, 0.2],
            Policy {
                retries: 2,
                backoff: Backoff {
                    base_s: 0.5,
                    cap_s: 1.5,
                    jitter: Jitter::Equal,
                },
                max_attempts: Some(5),
                ..Policy::default()
            },
        );
        set_trip_rates(&mut c, &[0.1, 0.05, 0.0]);
        c.steady.abandoned_billing = AbandonedBilling::Full;
        c.steady.primary_win_rate = 0.7;
        c.steady.cancel_output_fraction = 0.2;
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.3, 0.1, 0.2, 0.2, 0.1, 0.1],
        });
        c.policy.failover_on = vec![ErrorClass::RateLimit, ErrorClass::Timeout];
        let r = req(2000.0, 500.0, 1000.0, 0.5);
        assert_agrees(&r, &c, 100_000, 6, Z99, Z999);
        c.policy.failover_on.push(ErrorClass::Client);
        c.policy.failover_on.push(ErrorClass::ServerError);
        c.policy.max_attempts = None;
        c.policy.backoff.jitter = Jitter::Full;
        assert_agrees(&r, &c, 100_000, 7, Z99, Z999);
    }

    /// Issue 13: each link its own timeout. The two-timeout chain (Sol at 12 s, Sonnet at
    /// 24 s, 1% trips each, f = 10% / 20% gray) under the policy simulator: sequential's dead
    /// time is 0.109 × 12 + 0.109 × 0.208 × 24 = 1.852128 s by hand (MC within its interval),
    /// and every figure of every pattern agrees with the Markov chain, with retries and a
    /// delayed hedge too (the delay races each leg against its own timeout).
    #[test]
    fn per_link_timeouts_agree_with_the_markov_chain() {
        let mut c = crate::model::chain::tests::two_timeouts();
        c.policy.max_attempts = Some(4);
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let mc = run(&r, &c, 200_000, 11);
        let s = seq(&mc);
        let e = s.dead_time.estimate(Z99, 1.0);
        assert!(e.lo <= 1.852128 && 1.852128 <= e.hi, "{e:?}");
        assert_agrees(&r, &c, 200_000, 12, Z99, Z999);
        c.policy.retries = 1;
        c.policy.hedge_delay_s = Some(5.0);
        assert_agrees(&r, &c, 200_000, 13, Z99, Z999);
    }

    /// Retries per class (LiteLLM's `retry_policy`): the first failure's class chooses the
    /// budget on each link; the Monte Carlo draws agree with the Markov chain, and the
    /// hand-computed case (f = 0.1, half timeout / half 5xx, 5xx retried twice, timeouts not)
    /// makes 1.055 + 0.0505 attempts.
    #[test]
    fn retries_by_class_agree_with_the_markov_chain() {
        let mut r_by = [1u32; 6];
        r_by[ErrorClass::ServerError as usize] = 2;
        r_by[ErrorClass::Timeout as usize] = 0;
        r_by[ErrorClass::RateLimit as usize] = 3;
        let mut c = chain(
            &[SOL, SONNET, HAIKU],
            &[0.3, 0.4, 0.2],
            Policy {
                retries: 1,
                retries_by_class: Some(r_by),
                max_attempts: Some(6),
                ..Policy::default()
            },
        );
        set_trip_rates(&mut c, &[0.1, 0.05, 0.0]);
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.3, 0.1, 0.3, 0.2, 0.05, 0.05],
        });
        let r = req(2000.0, 500.0, 1000.0, 0.5);
        assert_agrees(&r, &c, 100_000, 23, Z99, Z999);
        let mut r_by = [0u32; 6];
        r_by[ErrorClass::ServerError as usize] = 2;
        let mut c = chain(
            &[SOL, SONNET],
            &[0.1, 0.0],
            Policy {
                retries_by_class: Some(r_by),
                ..Policy::default()
            },
        );
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.0, 0.0, 0.5, 0.5, 0.0, 0.0],
        });
        let s = run(&req(2000.0, 500.0, 0.0, 0.0), &c, 200_000, 24);
        let a = &seq(&s).attempts;
        assert!(close(a, 1.1055, Z999, 1.0), "{}", a.mean());
    }

    /// The same seed gives the same sums on one or two threads.
    #[test]
    fn same_seed_same_result_on_one_or_two_threads() {
        let c = chain(
            &[SOL, SONNET],
            &[0.2, 0.2],
            Policy {
                retries: 1,
                ..Policy::default()
            },
        );
        let opts = McOptions {
            requests: 2 * CHUNK + 17,
            runs: 0,
            seed: 9,
        };
        let go = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| simulate(&req(2000.0, 500.0, 0.0, 0.0), &c, 0, &opts, &mut |_| {}))
        };
        assert_eq!(go(1), go(2));
    }

    /// The chunk's figures, the usual requests counted and the rest summed as shifted,
    /// compensated sums, settled once ([`PolicyTally::settle`]), against Welford's update on
    /// every request (what the
    /// simulator did before; `compare --mc` moved only in the last of its 12 digits): the
    /// same means to 1e-12 relative, the same standard errors to 1e-9 (a figure constant in
    /// the chunk, exactly), on a chunk of a chain failing often (retries, backoff, failovers,
    /// a call cap).
    /// Each request's latency is binned from its log ([`ReqOut::ln_latency`]): the same bins
    /// as the seconds' log.
    #[test]
    fn chunk_sums_agree_with_welford() {
        let policy = Policy {
            retries: 1,
            max_attempts: Some(3),
            backoff: Backoff {
                base_s: 0.5,
                cap_s: 4.0,
                jitter: Jitter::Full,
            },
            ..Policy::default()
        };
        let c = chain(&[SOL, SONNET, HAIKU], &[0.1, 0.2, 0.05], policy);
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let sim = PolicySim::new(&r, &c);
        let mut rng = chunk_rng(3, 0, 0);
        for p in Pattern::ALL {
            let mut tally = PolicyTally::for_pattern(&sim, p);
            let mut welford = SteadyFigures::<Sum>::default();
            let (mut attempts, mut dead) = (Sum::default(), Sum::default());
            let mut latency = Histogram::default();
            for _ in 0..CHUNK {
                let out = sim.request(p, &mut rng);
                tally.add(&out);
                welford.add(&out.bill());
                attempts.add(f64::from(out.attempts));
                dead.add(out.dead_s);
                latency.add_seconds(out.latency_s());
            }
            // most requests were the usual ones, counted rather than summed
            let counted: u64 = tally.common.iter().map(|c| c.1).sum();
            assert!(counted > CHUNK / 2, "{p:?}: {counted}");
            tally.settle();
            let f = &tally.steady;
            let pairs = [
                ("cost", f.cost_per_1k_usd, welford.cost_per_1k_usd),
                ("failed", f.failed_per_1k, welford.failed_per_1k),
                ("wasted", f.wasted_per_1k_usd, welford.wasted_per_1k_usd),
                (
                    "wasted attempts",
                    f.wasted_attempts_per_1k,
                    welford.wasted_attempts_per_1k,
                ),
                (
                    "fallback",
                    f.fallback_answers_per_1k,
                    welford.fallback_answers_per_1k,
                ),
                ("attempts", tally.attempts, attempts),
                ("dead", tally.dead, dead),
            ];
            for (name, got, want) in pairs {
                let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-300);
                assert_eq!(got.n, CHUNK, "{name}");
                assert!(rel(got.mean(), want.mean()) < 1e-12, "{p:?} {name}");
                assert!(
                    rel(got.std_error(), want.std_error()) < 1e-9,
                    "{p:?} {name}"
                );
            }
            assert_eq!(tally.latency, latency, "{p:?}");
        }
    }

    mod random {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            // A fixed seed: CI runs the same cases every time (change it to explore others).
            #![proptest_config(ProptestConfig {
                cases: 12,
                rng_seed: proptest::test_runner::RngSeed::Fixed(20261130),
                failure_persistence: None,
                ..ProptestConfig::default()
            })]
            /// Random policies, rates and mixes (client and quota shares included, `client`
            /// failing over or not), simultaneous and delayed hedges: every figure of every
            /// pattern within 4.5 standard errors (about 12 × 4 × 12 checks per run; at 4.5 SE a
            /// false alarm has probability 7e-6 each).
            #[test]
            fn random_policies_agree(
                f in proptest::collection::vec(0.0f64..0.7, 3),
                t in proptest::collection::vec(0.0f64..0.2, 3),
                w in proptest::collection::vec(0.0f64..1.0, 6),
                retries in 0u32..3,
                on in proptest::collection::vec(any::<bool>(), 6),
                cap in proptest::option::of(1u32..7),
                mult in proptest::option::of(prop_oneof![Just(1.5), Just(3.0)]),
                jitter in prop_oneof![Just(Jitter::None), Just(Jitter::Full), Just(Jitter::Equal)],
                seed in 0u64..1000,
                opus in any::<bool>(),
                // a delay of 0 (the simultaneous hedge by another road) or one by which the
                // primary has answered often enough to be seen (P(L ≤ 0.5 s) = 3.6%)
                delay in proptest::option::of(prop_oneof![Just(0.0), 0.5f64..10.0]),
            ) {
                let models: &[&str] = if opus {
                    &["anthropic/claude-opus-5", "openai/gpt-6-astra", G6SOL]
                } else {
                    &[SONNET, SOL, HAIKU]
                };
                let failover_on: Vec<ErrorClass> = ErrorClass::ALL
                    .into_iter()
                    .zip(&on)
                    .filter(|(_, b)| **b)
                    .map(|(c, _)| c)
                    .collect();
                let mut c = chain(models, &f, Policy {
                    retries,
                    backoff: Backoff { base_s: 0.3, cap_s: 2.0, jitter },
                    failover_on,
                    max_attempts: cap,
                    max_multiplier: mult,
                    hedge_delay_s: delay,
                    ..Policy::default()
                });
                set_trip_rates(&mut c, &t);
                let sum: f64 = w.iter().sum::<f64>().max(1e-9);
                let mut shares = [0.0; 6];
                for (s, x) in shares.iter_mut().zip(&w) {
                    *s = x / sum;
                }
                c.steady.error_mix = Some(ErrorMix { shares });
                // half the cases with a fallback that cannot serve the request (passed over,
                // MODEL.md §11): link 1 or link 2, by the seed
                crate::model::fit::Refusal::mark_by_seed(&mut c, seed);
                assert_agrees(&req(0.0, 1200.0, 60000.0, 0.9), &c, 20_000, seed, 4.5, 4.5);
            }
        }
    }
}
