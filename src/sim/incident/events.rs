//! An outage window under a client policy, simulated in time, with the circuit breaker
//! (MODEL.md §6, §8, §9).
//!
//! As [`crate::sim::incident::fast`]: N = round(λ·D) requests arrive as a Poisson process conditioned on
//! N arrivals in [0, D] ([`crate::sim::incident::fast::Arrivals`]), in sessions of L consecutive
//! arrivals; the primary's provider is down (fast: server_error, billed 0, takes
//! `fast_fail_s`; gray: timeout, billed gray in the link's state, takes T); other links keep
//! their steady rates and error mix. Unlike the default-policy simulator, every attempt is an
//! event in time: a request's attempts follow the policy ([`crate::sim::steady::policy::PolicySim`]: retries
//! after a jittered backoff, error classes, `failover_on`, the call cap, the cost cap's allowed
//! links), each taking its time (T, the fast failure time, or the drawn latency), so later
//! requests keep arriving while earlier ones hang.
//!
//! The breaker: one per provider (MODEL.md §8), shared by every link of the chain on that
//! provider, fallbacks included. It records an attempt's result when the attempt ENDS (a
//! success after its latency, a failure after its time): a provider-side failure (rate_limit,
//! overload, server_error, timeout) counts, anything else (a success, a client or quota error:
//! the provider answered) resets the count. It opens after `threshold` consecutive failures,
//! stays open `cooldown_s`, then lets exactly one half-open probe through (the next attempt
//! that wants the provider); the probe's failure reopens it, its success closes it (the dead
//! provider's probes always fail). Results recorded while it is open (attempts that started
//! before it opened) are ignored. Every attempt consults its provider's breaker, retries
//! included: an attempt it refuses skips the link (the request fails over at once, no time
//! spent, whatever `failover_on` says; the backoff already waited before a refused retry is
//! dead time). `open_s` is the time in the open state: `cooldown_s` per opening, clipped to
//! [0, D] (not the half-open wait for a request, nor the probe's own time). The figures
//! reported (`dead_attempts`, `probes`, `open_s`) are the dead provider's breaker's.
//!
//! Hedged patterns: the dead leg fires only if the breaker admits it (its failure is recorded
//! d seconds later even when a take-first hedge cancels it earlier); a refused leg is no
//! attempt. A delayed hedge (`hedge_delay_s`) sends the backup, as an event of its own, when
//! the primary fails (or is refused) if that is before the delay, else at the delay; its wait
//! is dead time when the backup answers. Client and quota errors follow
//! [`crate::model::hedge`]: a client error on a live leg makes the request bad (a live other
//! leg returns it too; the dead one is settled as when the backup answers), a quota error
//! stops the request after the race. When both legs fail otherwise the remaining allowed links
//! run after the slower failure.
//!
//! Cache state per session and live fallback, by `warm_fallback` (explicit caching only;
//! other caching modes always behave as `always`): `always`: billed in the first-request state
//! (write or cold) until its first success, warm after (expiring after the TTL as in
//! [`crate::sim::incident::fast`]); `never`: always cold; `after = n`: cold for the session's first n
//! successes, the (n+1)-th is billed a write, warm after. Successes before warm add their
//! premium over warm to `cold_start`; a session's first success on a link is a cold start.
//!
//! **On a timeline** (issue 14, `incident.timeline = Some`; every chain's windows run here,
//! [`crate::sim::IncidentEngine::simulator`]) no link is down throughout: each attempt looks its
//! link's state up at its own time (`clock`, the segments of
//! [`crate::model::timeline::Timeline::chain_segments`]):
//!
//! - up: the link's steady rates and error mix, as above;
//! - failing (an outage of its provider or model at error rate e): the request finds the link
//!   down with probability e, drawn once per request and link (its retries there share the
//!   draw, as in the analytic engine), and the attempt fails by the outage, with its class (`fast`: a
//!   server error, billed 0, `fast_fail_s`; `gray`: a timeout, the input side billed in the
//!   link's cache state, T); otherwise it is drawn as up (the steady failure is an independent
//!   cause: p = 1 − (1 − q)(1 − e)). A latency factor draws the link's latency multiplied by it
//!   (so a trip rate derived from latency follows). Attempts on a link in an outage with e > 0
//!   are `dead_attempts`;
//! - drilled: no attempt, the request goes to the next link at once (the breaker is open by
//!   hand; the automatic breaker is not asked and records nothing).
//!
//! Requests fail when no link answers. The breaker runs in time as above, one per provider;
//! a partial outage closes and opens it repeatedly, and `opens` counts the openings from
//! closed (all providers' breakers, as `probes` and `open_s` on a timeline). Cold starts on
//! fallbacks emerge as above; a fallback down for every request (error rate 1) and not warm
//! books its failed attempts' premium over warm as a cold-start cost (MODEL.md §6), as the
//! shorthand's dead provider does. The primary's model keeps a per-session cache too: a session
//! comes warm (its last answer there is the session's start, or the start of the primary's
//! silent run it starts in), and an answer after a gap over the TTL that crosses no silent run
//! and does not follow an answer to the session's previous request rewrites it as a cold start
//! on the primary (a partial outage's gaps). Every cache is kept between consecutive requests
//! a model answers (MODEL.md §6: a normal day's expiry is in the stated hit rate). Fail-back writes
//! (MODEL.md §6, "Fail-back writes"): a session writes once per outage run of the primary
//! (every link of the primary's model failing at some rate, or drilled) longer than the TTL
//! in which one of its requests, by its arrival, was answered by another model and none by the
//! primary's; a session none of whose requests there were answered writes nothing. With one outage of the primary's provider over the whole window
//! and a healthy fallback this is every session once when D > TTL: the shorthand's ⌈N/L⌉
//! writes. No-fallback patterns and one-link chains write nothing (as the
//! shorthand). Hedged patterns: the legs' outages, drills and breaker follow the timeline and a
//! primary leg's answer keeps the primary's cache; the second leg stays warm throughout (its
//! cache expiring while its provider is down is not modelled, as in the analytic engine).

use crate::model::cost::{Request, warm_state};
use crate::model::policy::{self, ErrorClass, WarmPolicy};
use crate::model::{Chain, FailureMode, Incident, Pattern};

use crate::model::timeline::{LinkRef, LinkState, OutageFailure};
use crate::sim::incident::circuit::Circuit;
use crate::sim::incident::clock::Clock;
use crate::sim::incident::drawn::{self, Drawn};
use crate::sim::incident::fast::{IncidentLink, IncidentSums, Placement};
use crate::sim::rng::{SimRng, Stream, chunk_rng, uniform};
use crate::sim::stats::Sum;
use crate::sim::steady::fast::Prices;
use crate::sim::steady::policy::{AttemptResult, PolicySim};
use crate::sim::{McOptions, ordered};

mod hedge;
mod quota;
mod refusal;
mod sched;
use hedge::LegEnd;
use sched::{SCRATCH, Sched, Scratch};

/// A request in flight.
#[derive(Debug, Clone, Copy, Default)]
struct Flight {
    session: usize,
    /// The request's number in the window (arrival order).
    index: u32,
    pos: usize,
    k: u32,
    /// The retry budget on the current link, chosen by the class of its first failure there
    /// (`None` before it).
    budget: Option<u32>,
    n: u32,
    bad: bool,
    dead_s: f64,
    /// Where a hedged request is: its legs, its backup, or the links after them.
    phase: Phase,
    /// A hedged request's arrival time (its clock for the backup and the race).
    start: f64,
    /// A hedge's primary leg, once sent (or refused).
    leg0: Option<LegEnd>,
    /// Its route has passed over a fallback that cannot serve it (counted once).
    passed: bool,
    /// The backup races the primary (rather than following its failure).
    racing: bool,
    /// The request's outage draw on the link it is on: (its position, u ~ U(0, 1)); the link
    /// is found down while u is below its error rate. Drawn once per request and link, at the
    /// first attempt there in a partial outage, so the link's retries share it (MODEL.md §6,
    /// "Timelines").
    outage_u: Option<(usize, f64)>,
}

/// What a hedged request's next step is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    /// Its arrival: the primary goes out (and the backup, unless delayed).
    #[default]
    Legs,
    /// A delayed backup goes out.
    Backup,
    /// The links after the legs, in sequence (every step of the sequential patterns).
    Chain,
}

/// A session's cache on one link: successes so far and when it last answered.
#[derive(Debug, Clone, Copy, Default)]
struct Cache {
    successes: u32,
    last: f64,
    /// The number in the window of the request it last answered (or the session's first, on
    /// the primary): a cache is kept between consecutive answers (MODEL.md §6).
    last_req: u32,
}

impl Cache {
    /// Whether request `index` follows the last answer here at once: the cache is then kept
    /// whatever the gap (MODEL.md §6: a normal day's expiry is in the stated hit rate).
    fn next_to(&self, index: u32) -> bool {
        index <= self.last_req.saturating_add(1)
    }
}

/// Per-run totals.
#[derive(Debug, Clone, Default)]
struct Run {
    /// The figures every incident simulation keeps.
    base: crate::sim::incident::fast::Run,
    dead_time: f64,
    dead_attempts: f64,
    probes: f64,
    open_s: f64,
    opens: f64,
    /// Openings of every provider's breaker, on a timeline or not (the stopping rule's
    /// rare-event guard, [`crate::sim::expected`]).
    every_opens: f64,
    /// Attempts a rate limit refused, per link of the chain (in chain order; empty until one is).
    rate_limited_by: Vec<f64>,
    /// On a timeline: the fail-back premium USD and writes of this window (they emerge from
    /// the simulation; the shorthand's are deterministic).
    failback: f64,
    failback_writes: f64,
    /// On a timeline, per (session, outage run of the primary), at `session · runs + run`:
    /// [`WRITTEN`] once a request of the session that arrived in the run (one longer than the
    /// primary's TTL) was answered by another model than the primary's, [`KEPT`] once one
    /// was answered by the primary's model (the session kept its cache there). Each pair
    /// marked written and not kept is one fail-back write (MODEL.md §6, "Fail-back writes").
    failback_marks: Vec<u8>,
}

/// [`Run::failback_marks`]: answered elsewhere in the run.
const WRITTEN: u8 = 1;
/// [`Run::failback_marks`]: answered by the primary's model in the run.
const KEPT: u8 = 2;

const STEP: u8 = 1;
const RECORD: u8 = 0;

struct Window<'a> {
    sim: PolicySim,
    links: Vec<IncidentLink>,
    incident: &'a Incident,
    pattern: Pattern,
    warm_policy: WarmPolicy,
    /// Seconds an attempt on the dead provider takes, by chain link (its own timeout if gray).
    dead_s: Vec<f64>,
    dead_class: ErrorClass,
    breaker: Option<policy::Breaker>,
    /// The timeline, looked up by time (`None`: the shorthand, `dead` links down throughout).
    clock: Option<Clock>,
    /// The draws of slow links: per latency factor of the timeline, the chain slowed by it.
    slow: Vec<(f64, PolicySim)>,
    /// Whether returning to the primary after its cache expired is a fail-back write (a
    /// pattern with a fallback, as [`crate::model::incident::failback`]).
    failback_counts: bool,
    /// Per cache slot (one per model), the link's quota in a fresh window: `[capacity]`'s
    /// limit for this request's tokens (MODEL.md §11); `None`: unlimited.
    quotas: Vec<Option<crate::sim::limiter::Quota>>,
    /// Per window position (and one past the last), whether a request sent there has passed
    /// over a fallback that cannot serve it, counted as the closed forms count
    /// ([`crate::model::policy::PolicyOutcome::refused_hits`]).
    passes_refusal: Vec<bool>,
}

/// The mutable state of one window's run, which every step of a request changes: the
/// sessions' caches (session × link slot), the providers' breakers, the event queue, the
/// run's totals and its random stream.
struct Live<'r> {
    caches: Vec<Cache>,
    breakers: Vec<Circuit>,
    /// Per cache slot, the link's quota ([`Window::quotas`]).
    quotas: Vec<Option<crate::sim::limiter::Quota>>,
    sched: Sched,
    run: Run,
    rng: &'r mut SimRng,
}

/// An attempt that failed: its class, what it bills (USD), the seconds it took, and whether
/// it was on a link down for every request and not warm (its premium over warm is then a
/// cold-start cost).
struct Failed {
    class: ErrorClass,
    usd: f64,
    secs: f64,
    down_cold: bool,
}

impl Flight {
    /// Go on to the next link: no retries made there, no budget chosen.
    fn next_link(&mut self) {
        self.pos += 1;
        self.k = 0;
        self.budget = None;
    }
}

/// Whether the breaker of `l`'s provider lets an attempt at `t` through (`Some(true)`: as the
/// half-open probe); always without breakers.
fn admit(breakers: &mut [Circuit], l: &IncidentLink, t: f64) -> Option<bool> {
    match breakers.get_mut(l.provider) {
        Some(b) => b.admit(t),
        None => Some(false),
    }
}

/// Schedule the result of an attempt on `l`'s provider for its breaker at `end`, when the
/// attempt ends (nothing without breakers).
fn record(
    breakers: &[Circuit],
    sched: &mut Sched,
    l: &IncidentLink,
    end: f64,
    probe: bool,
    ok: bool,
) {
    if !breakers.is_empty() {
        let payload = (l.provider as u32) << 2 | u32::from(probe) << 1 | u32::from(ok);
        sched.push(end, RECORD, payload);
    }
}

/// Whether an error of `class` is the provider's answer, for its breaker: client and quota
/// errors come from a provider that is up (they fail the request, not the provider); every
/// other class is a provider-side failure.
fn answers(class: ErrorClass) -> bool {
    matches!(class, ErrorClass::Client | ErrorClass::Quota)
}

/// `failed`'s bill on link `l` booked in `run`: on the dead provider, or on a link down for
/// every request and not warm, the premium over warm is a cold-start cost.
fn bill_failure(l: &IncidentLink, failed: &Failed, run: &mut Run) {
    let usd = failed.usd;
    if l.role.dead {
        run.base.window += l.dead_warm;
        run.base.cold_start += usd - l.dead_warm;
    } else if failed.down_cold {
        let warm = if usd > 0.0 { l.warm.gray } else { 0.0 };
        run.base.window += warm;
        run.base.cold_start += usd - warm;
    } else {
        run.base.window += usd;
    }
    run.base.wasted += usd;
}

impl Window<'_> {
    /// The state of window link `pos` at `t` on the timeline (`None`: the shorthand).
    fn state(&self, pos: usize, t: f64) -> Option<LinkState> {
        self.clock.as_ref().map(|c| c.state(pos, t))
    }

    /// The draws of a live attempt in `state`: slowed when an outage makes the link slow.
    fn sim_for(&self, state: Option<LinkState>) -> &PolicySim {
        if let Some(LinkState::Failing { latency_factor, .. }) = state
            && let Some((_, sim)) = self.slow.iter().find(|(f, _)| *f == latency_factor)
        {
            return sim;
        }
        &self.sim
    }

    /// Whether an attempt on link `pos` in `state` fails by its outage: the request finds the
    /// link down when its draw for the link (`drawn`, made at its first attempt there and kept
    /// for its retries) is below the outage's error rate; independent of the link's steady
    /// failures, drawn after. An attempt on a link in an outage (error rate > 0) counts in
    /// `dead_attempts`.
    fn outage_hit(
        &self,
        pos: usize,
        state: Option<LinkState>,
        drawn: &mut Option<(usize, f64)>,
        run: &mut Run,
        rng: &mut SimRng,
    ) -> Option<OutageFailure> {
        match state {
            Some(LinkState::Failing {
                failure,
                error_rate,
                ..
            }) if error_rate > 0.0 => {
                run.dead_attempts += 1.0;
                if error_rate >= 1.0 {
                    return Some(failure);
                }
                let u = match *drawn {
                    Some((p, u)) if p == pos => u,
                    _ => {
                        let u = uniform(rng);
                        *drawn = Some((pos, u));
                        u
                    }
                };
                (u < error_rate).then_some(failure)
            }
            _ => None,
        }
    }

    /// The attempt an outage failed: `gray` hangs until T and bills the input side at
    /// `prices`; `fast` errors at once, billed 0.
    fn outage_failure(&self, l: usize, failure: OutageFailure, prices: &Prices) -> AttemptResult {
        match failure {
            OutageFailure::Gray => AttemptResult::Fail(
                ErrorClass::Timeout,
                prices.gray,
                self.sim.links[l].timeout_s,
            ),
            _ => AttemptResult::Fail(ErrorClass::ServerError, 0.0, self.sim.fast_fail_s),
        }
    }

    /// On a timeline, the primary's model answered session cache `c` at `t`: a cache expired
    /// since its last answer (a gap over the TTL) is rewritten. Across a run of the primary's
    /// silence that is the fail-back write, counted by what the session saw in the run
    /// ([`Window::answered_in_run`]); otherwise a cold start on the primary (the gaps of a
    /// partial outage).
    fn primary_answered(
        &self,
        l: &IncidentLink,
        c: &mut Cache,
        (index, t): (u32, f64),
        run: &mut Run,
    ) {
        let Some(clock) = &self.clock else {
            return;
        };
        if t - c.last > l.ttl_s && !c.next_to(index) && !clock.crosses_run(c.last, t) {
            run.base.cold_start += l.first.success - l.warm.success;
            run.base.cold_starts += 1.0;
        }
        if index >= c.last_req {
            (c.last, c.last_req) = (t, index);
        }
    }

    /// On a timeline, request `f` was answered by another model than the primary's
    /// (`elsewhere`) or by the primary's: if it arrived in an outage run of the primary longer
    /// than its TTL, its session rewrites the primary's cache once for that run unless the
    /// primary's model answered one of its requests there (MODEL.md §6, "Fail-back writes").
    fn answered_in_run(&self, f: &Flight, elsewhere: bool, run: &mut Run) {
        if let Some(clock) = &self.clock
            && self.failback_counts
            && let Some(id) = clock.long_outage_at(f.start, self.links[0].ttl_s)
        {
            let mark = f.session * clock.outage_runs() + id;
            if let Some(m) = run.failback_marks.get_mut(mark) {
                *m |= if elsewhere { WRITTEN } else { KEPT };
            }
        }
    }

    /// The prices of live link `l` for the request at `t`: (a success, a failed attempt).
    fn live_prices<'l>(
        &self,
        l: &'l IncidentLink,
        c: &Cache,
        (index, t): (u32, f64),
    ) -> (&'l Prices, &'l Prices) {
        if l.role.starts_warm {
            return (&l.warm, &l.warm);
        }
        match (l.explicit, self.warm_policy) {
            (true, WarmPolicy::Never) => (&l.cold, &l.cold),
            (true, WarmPolicy::After(n)) => {
                if c.successes < n {
                    (&l.cold, &l.cold)
                } else if c.successes == n {
                    (&l.write, &l.cold)
                } else {
                    (&l.warm, &l.warm)
                }
            }
            _ => {
                if c.successes > 0 && (t - c.last <= l.ttl_s || c.next_to(index)) {
                    (&l.warm, &l.warm)
                } else {
                    (&l.first, &l.first)
                }
            }
        }
    }

    /// The next attempt of request `r` at `t` in sequence.
    fn step(&self, r: usize, t: f64, f: &mut Flight, live: &mut Live) {
        let p = &self.sim.policy;
        loop {
            self.reach(f.pos, f, &mut live.run);
            if f.pos >= self.links.len() || p.max_attempts.is_some_and(|a| f.n >= a) {
                return self.fail(f, &mut live.run);
            }
            let l = &self.links[f.pos];
            // A drilled link (its breaker opened by hand) gets no attempt: the next link.
            let state = self.state(f.pos, t);
            if state == Some(LinkState::Drill) {
                f.next_link();
                continue;
            }
            if f.bad {
                f.n += 1;
                f.dead_s += self.sim.fast_fail_s;
                if p.failover_on.contains(&ErrorClass::Client) {
                    f.pos += 1;
                    continue;
                }
                return self.fail(f, &mut live.run);
            }
            // Every attempt asks its provider's breaker, retries included; a refused one skips
            // the link at once.
            let Some(probe) = admit(&mut live.breakers, l, t) else {
                f.next_link();
                continue;
            };
            let failed = if let Some(failed) = self.over_quota(l, t, probe, live) {
                failed
            } else if l.role.dead {
                self.dead_attempt(l, t, probe, live)
            } else {
                match self.live_attempt(l, state, t, probe, f, live) {
                    Some(failed) => failed,
                    None => return,
                }
            };
            f.n += 1;
            bill_failure(l, &failed, &mut live.run);
            f.dead_s += failed.secs;
            return self.after_failure(r, t, &failed, f, live);
        }
    }

    /// An attempt at `t` on link `l` of the provider that is down throughout (the
    /// shorthand), its failure recorded for the breaker when it ends.
    fn dead_attempt(&self, l: &IncidentLink, t: f64, probe: bool, live: &mut Live) -> Failed {
        live.run.dead_attempts += 1.0;
        let secs = self.dead_s[l.role.index];
        record(&live.breakers, &mut live.sched, l, t + secs, probe, false);
        Failed {
            class: self.dead_class,
            usd: l.dead_cost,
            secs,
            down_cold: false,
        }
    }

    /// An attempt at `t` on live link `l` in `state`, billed in the session's cache state
    /// there and recorded for the breaker when it ends; `None` when it answered (request `f`
    /// is then done and booked).
    fn live_attempt(
        &self,
        l: &IncidentLink,
        state: Option<LinkState>,
        t: f64,
        probe: bool,
        f: &mut Flight,
        live: &mut Live,
    ) -> Option<Failed> {
        let nl = self.links.len();
        let cache = &mut live.caches[f.session * nl + l.slot];
        let (prices, fail_prices) = self.live_prices(l, cache, (f.index, f.start));
        // On a timeline, a link down for every request (error rate 1) that is not warm:
        // its failed attempts' premium over warm is a cold-start cost, as on the
        // shorthand's dead provider (MODEL.md §6).
        let mut down_cold = false;
        let outcome = match self.outage_hit(f.pos, state, &mut f.outage_u, &mut live.run, live.rng)
        {
            Some(failure) => {
                down_cold = !std::ptr::eq(fail_prices, &l.warm)
                    && state.is_some_and(|s| s.failure_probability() >= 1.0);
                self.outage_failure(l.role.index, failure, fail_prices)
            }
            None => self
                .sim_for(state)
                .draw(l.role.index, fail_prices, live.rng),
        };
        let (breakers, sched) = (&live.breakers, &mut live.sched);
        match outcome {
            AttemptResult::Ok(ln_l) => record(breakers, sched, l, t + ln_l.exp(), probe, true),
            AttemptResult::Fail(class, _, secs) => {
                record(breakers, sched, l, t + secs, probe, answers(class))
            }
        }
        match outcome {
            AttemptResult::Ok(_) => {
                self.answered(l, prices, cache, f, &mut live.run);
                None
            }
            AttemptResult::Fail(class, usd, secs) => Some(Failed {
                class,
                usd,
                secs,
                down_cold,
            }),
        }
    }

    /// Request `f` answered on live link `l`, billed at `prices`: its cost, cold start and
    /// wasted attempts booked, the session's cache on the link updated (at its arrival).
    fn answered(
        &self,
        l: &IncidentLink,
        prices: &Prices,
        cache: &mut Cache,
        f: &mut Flight,
        run: &mut Run,
    ) {
        f.n += 1;
        if l.slot == 0 && l.role.starts_warm {
            self.primary_answered(l, cache, (f.index, f.start), run);
        }
        self.answered_in_run(f, l.slot != 0, run);
        run.base.window += l.warm.success;
        let premium = prices.success - l.warm.success;
        if !l.role.starts_warm && !std::ptr::eq(prices, &l.warm) {
            run.base.cold_start += premium;
            if cache.successes == 0 || !self.within_ttl(l, cache, (f.index, f.start)) {
                run.base.cold_starts += 1.0;
            }
        }
        if !self.within_ttl(l, cache, (f.index, f.start)) {
            cache.successes = 0;
        }
        cache.successes += 1;
        // Gaps are counted between the requests' arrivals, as in the analytic engine and the
        // default-policy simulator (MODEL.md §6: neither dead time nor latency is part of it).
        // An earlier request answered after a later one (its retries took longer) refreshes
        // nothing: the cache is as fresh as the latest arrival answered there.
        if f.index >= cache.last_req || cache.successes == 1 {
            (cache.last, cache.last_req) = (f.start, f.index);
        }
        run.base.wasted_attempts += f64::from(f.n) - 1.0;
        run.dead_time += f.dead_s;
    }

    /// What request `r` does after `failed` at `t`: stop (quota, or a class it may not fail
    /// over on), retry after a backoff within the link's budget, or fail over to the next
    /// link; the next step is scheduled when the attempt (and the backoff) ends.
    fn after_failure(&self, r: usize, t: f64, failed: &Failed, f: &mut Flight, live: &mut Live) {
        let p = &self.sim.policy;
        let (class, secs) = (failed.class, failed.secs);
        match class {
            ErrorClass::Quota => self.fail(f, &mut live.run),
            ErrorClass::Client => {
                if p.failover_on.contains(&ErrorClass::Client) {
                    f.bad = true;
                    f.next_link();
                    live.sched.push(t + secs, STEP, r as u32);
                    return;
                }
                self.fail(f, &mut live.run)
            }
            _ if f.k < *f.budget.get_or_insert_with(|| p.retries_for(class)) => {
                let wait = self.sim.backoff(f.k, live.rng);
                f.dead_s += wait;
                f.k += 1;
                live.sched.push(t + secs + wait, STEP, r as u32);
            }
            _ if p.failover_on.contains(&class) => {
                f.next_link();
                live.sched.push(t + secs, STEP, r as u32);
            }
            _ => self.fail(f, &mut live.run),
        }
    }

    /// Whether a session's cache on `l` (Always policy) is still warm for request `index` at
    /// `t`: kept after an answer to the session's previous request, else within the TTL;
    /// other warm policies keep no expiry.
    fn within_ttl(&self, l: &IncidentLink, c: &Cache, (index, t): (u32, f64)) -> bool {
        match (l.explicit, self.warm_policy) {
            (true, WarmPolicy::Never | WarmPolicy::After(_)) => true,
            _ => c.successes == 0 || t - c.last <= l.ttl_s || c.next_to(index),
        }
    }

    fn fail(&self, f: &Flight, run: &mut Run) {
        run.base.failed += 1.0;
        run.base.wasted_attempts += f64::from(f.n);
        run.dead_time += f.dead_s;
    }

    /// One window: its requests' arrivals (`drawn`, the window's first draws), then every
    /// event in time order, drawing from the window's generator where `drawn` left it.
    fn run(&self, drawn: &Drawn) -> Run {
        let mut rng = drawn.rng.clone();
        let rng = &mut rng;
        let n = self.incident.requests() as usize;
        let length = self.incident.session_length.max(1) as usize;
        let sessions = n.div_ceil(length);
        let nl = self.links.len();
        let providers = self.links.iter().map(|l| l.provider + 1).max().unwrap_or(0);
        let mut scratch = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        let mut caches = std::mem::take(&mut scratch.caches);
        caches.clear();
        caches.resize(sessions * nl, Cache::default());
        let mut flights = std::mem::take(&mut scratch.flights);
        flights.clear();
        flights.resize(n, Flight::default());
        let mut live = Live {
            caches,
            breakers: match self.breaker {
                Some(b) => vec![Circuit::new(&b, self.incident.duration_s); providers],
                None => Vec::new(),
            },
            quotas: self.quotas.clone(),
            sched: Sched::reusing(n, &mut scratch),
            run: Run {
                failback_marks: match &self.clock {
                    Some(clock) if self.failback_counts => vec![0; sessions * clock.outage_runs()],
                    _ => Vec::new(),
                },
                ..Run::default()
            },
            rng,
        };
        for (k, (f, &t)) in flights.iter_mut().zip(&drawn.times).enumerate() {
            f.session = k / length;
            f.index = k as u32;
            f.start = t;
            live.sched.push_arrival(t, STEP, k as u32);
            if let Some(clock) = &self.clock {
                // The session comes warm on the primary: it last answered at the session's
                // start, or when the primary fell silent if the session starts in silence.
                if k % length == 0 && nl > 0 {
                    let c = &mut live.caches[f.session * nl];
                    c.last = clock.run_at(t).map_or(t, |(a, _)| a);
                    c.last_req = f.index;
                }
            }
        }
        while let Some((bits, _, kind, payload)) = live.sched.pop() {
            let now = f64::from_bits(bits);
            if kind == RECORD {
                if let Some(b) = live.breakers.get_mut((payload >> 2) as usize) {
                    b.record(now, payload & 2 != 0, payload & 1 != 0);
                }
                continue;
            }
            let r = payload as usize;
            let f = &mut flights[r];
            if self.pattern.is_hedged() && f.phase == Phase::Legs {
                self.hedge(r, now, f, &mut live);
            } else if f.phase == Phase::Backup {
                self.backup(r, now, f, &mut live);
            } else {
                self.step(r, now, f, &mut live);
            }
        }
        let Live {
            caches,
            breakers,
            sched,
            run,
            ..
        } = live;
        SCRATCH.with(|s| {
            *s.borrow_mut() = Scratch {
                flights,
                caches,
                arrivals: sched.arrivals,
                queue: sched.queue.into_vec(),
            }
        });
        self.finish(run, &breakers)
    }

    /// `run`'s breaker figures and, on a timeline, its fail-back writes (one per session and
    /// silent run it was answered elsewhere in), from what the run recorded.
    fn finish(&self, mut run: Run, breakers: &[Circuit]) -> Run {
        if self.clock.is_some() {
            // One fail-back write per session and outage run it was answered elsewhere in
            // and never by the primary's model.
            let writes = run.failback_marks.iter().filter(|&&m| m == WRITTEN).count();
            let l0 = &self.links[0];
            run.failback_writes = writes as f64;
            run.failback = run.failback_writes * (l0.first.success - l0.warm.success);
            // Every provider's breaker: on a timeline any of them may open.
            run.probes = breakers.iter().map(Circuit::probes).sum();
            run.open_s = breakers.iter().map(Circuit::open_s).sum();
            run.opens = breakers.iter().map(Circuit::opens).sum();
        } else if let Some(b) = breakers.first() {
            // The dead provider's breaker (slot 0, the primary's provider).
            run.probes = b.probes();
            run.open_s = b.open_s();
            run.opens = b.opens();
        }
        run.every_opens = breakers.iter().map(Circuit::opens).sum();
        // whole counts: the sum is exact in any order
        run.base.rate_limited = run.rate_limited_by.iter().sum();
        run
    }
}

/// The simulated figures of one pattern under a policy over K windows.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyIncidentMc {
    /// The figures the default-policy simulator gives.
    pub base: IncidentSums,
    /// Mean dead seconds per request, per window.
    pub dead_time_mean: Sum,
    /// Attempts sent to the dead provider, per window.
    pub dead_attempts: Sum,
    /// With a breaker: half-open probes per window.
    pub probes: Sum,
    /// With a breaker: seconds open per window.
    pub open_s: Sum,
    /// With a breaker: times it opened from closed per window (a failed probe keeping it open
    /// is not an opening: a provider down throughout opens it once; a partial outage makes it
    /// flap, closing and opening again and again). On a timeline every provider's breaker counts; in the shorthand the
    /// dead provider's, as `probes` and `open_s`.
    pub opens: Sum,
    /// Per link of the chain, attempts its rate limit refused per window (empty where no link
    /// has a limit).
    pub rate_limited_by: Vec<Sum>,
    /// Windows by how many times every provider's breaker opened in them (openings → windows):
    /// [`crate::sim::expected`]'s guard against a rare opening the windows have not yet shown.
    pub every_opens: std::collections::BTreeMap<u64, u64>,
    /// Whether the windows followed an incident timeline (not the shorthand).
    pub timeline: bool,
    /// Per window, in window order: its bill (USD, `base.figures.total_usd`'s terms) and its
    /// failed requests. Every simulation of the same seed and stream draws window k from the
    /// same generator, so two candidates' k-th windows pair up (common random numbers):
    /// `fallcost tune` bounds their difference by the pairs' spread
    /// ([`crate::tune::screen::Paired`]).
    pub per_window: Vec<[f64; 2]>,
}

impl PolicyIncidentMc {
    /// These sums as the report's incident policy figure set (per window; the dead time per
    /// request). The breaker's figures only when `breaker` (a chain's own row simulated with
    /// a breaker: the report's to say), `breaker_opens` on a timeline only.
    pub fn sums(&self, breaker: bool) -> crate::figures::IncidentPolicyFigures<&Sum> {
        crate::figures::IncidentPolicyFigures {
            dead_time_mean_s: &self.dead_time_mean,
            dead_provider_attempts: &self.dead_attempts,
            breaker_probes: breaker.then_some(&self.probes),
            breaker_open_s: breaker.then_some(&self.open_s),
            breaker_opens: (breaker && self.timeline).then_some(&self.opens),
        }
    }
}

/// Simulate `opts.runs` windows of `pattern` on chain number `index` under its policy. `None`
/// when the pattern does not exist on the chain (a hedge needs two allowed links and a call
/// cap of at least 2).
pub fn simulate(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
    index: u64,
    opts: &McOptions,
    tick: &mut dyn FnMut(u64),
) -> Option<PolicyIncidentMc> {
    let mut sim = Resumable::new(request, chain, incident, pattern, index, opts.seed)?;
    sim.run_to(opts.runs, tick);
    Some(sim.sums)
}

/// [`simulate`]'s windows, run in steps: windows `0..k` first, then `k..m` added to the same
/// sums in window order, which are exactly [`simulate`]'s for `m` windows (each window has its
/// own stream, and the sums take the windows in index order). `crate::sim::expected`'s
/// stopping rule resumes where its last step stopped instead of starting again.
pub struct Resumable<'a> {
    window: Window<'a>,
    /// Requests per window.
    n: u64,
    /// The shorthand's fail-back (USD, writes), added to every window off a timeline.
    failback: (f64, f64),
    stream: u64,
    seed: u64,
    /// The windows run so far: `0..done`.
    done: u64,
    /// Whether each window's arrivals come from [`drawn::shared`] (the same figures; for the
    /// fixed-seed figures that many candidates draw, [`Resumable::sharing_arrivals`]).
    share_arrivals: bool,
    /// Their sums.
    pub sums: PolicyIncidentMc,
}

impl<'a> Resumable<'a> {
    /// No window run yet, on `seed` and chain number `index`'s stream for `pattern`; `None`
    /// where the pattern does not exist on the chain.
    pub fn new(
        request: &'a Request,
        chain: &'a Chain,
        incident: &'a Incident,
        pattern: Pattern,
        index: u64,
        seed: u64,
    ) -> Option<Resumable<'a>> {
        let window = Window::new(request, chain, incident, pattern)?;
        let n = incident.requests();
        let normal = crate::model::incident::normal_bill(request, chain, incident);
        // Fail-back: each session resumes on the primary D seconds after it last used it.
        let failback = crate::model::incident::failback(request, chain, incident, pattern);
        let stream = Stream::IncidentPolicy {
            chain: index,
            pattern,
        }
        .id();
        let sums = PolicyIncidentMc {
            base: IncidentSums::new(pattern, normal, n),
            dead_time_mean: Sum::default(),
            dead_attempts: Sum::default(),
            probes: Sum::default(),
            open_s: Sum::default(),
            opens: Sum::default(),
            rate_limited_by: if chain.links.iter().any(|l| l.capacity.is_some()) {
                vec![Sum::default(); chain.links.len()]
            } else {
                Vec::new()
            },
            every_opens: Default::default(),
            timeline: incident.timeline.is_some(),
            per_window: Vec::new(),
        };
        Some(Resumable {
            window,
            n,
            failback,
            stream,
            seed,
            done: 0,
            share_arrivals: false,
            sums,
        })
    }

    /// This simulation with each window's arrivals drawn once per window key and shared with
    /// every other simulation that draws it (`sim::incident::drawn`, a memo of at most 64
    /// MiB): the same figures, the arrivals' time spent once. For a stream many simulations
    /// draw (the fixed-seed figures, [`crate::sim::expected`]); a `--mc` run's streams are
    /// drawn once each.
    pub fn sharing_arrivals(mut self) -> Resumable<'a> {
        self.share_arrivals = true;
        self
    }

    /// The windows run so far and their sums, for [`Resumable::resume`].
    pub fn into_state(self) -> (u64, PolicyIncidentMc) {
        (self.done, self.sums)
    }

    /// This simulation as if windows `0..done` had run, with their `sums`: the state
    /// [`Resumable::into_state`] took from a simulation of the same inputs, seed and stream.
    pub fn resume(mut self, done: u64, sums: PolicyIncidentMc) -> Resumable<'a> {
        self.done = done;
        self.sums = sums;
        self
    }

    /// Run windows `done..windows` (none when `windows` ≤ `done`). `tick(n)`: n more windows.
    pub fn run_to(&mut self, windows: u64, tick: &mut dyn FnMut(u64)) {
        let from = self.done;
        if windows <= from {
            return;
        }
        let (window, seed, stream) = (&self.window, self.seed, self.stream);
        let (sums, n, failback) = (&mut self.sums, self.n, self.failback);
        let (share, duration_s) = (self.share_arrivals, window.incident.duration_s);
        ordered(
            windows - from,
            |r| {
                if share {
                    window.run(&drawn::shared(seed, stream, from + r, n, duration_s))
                } else {
                    window.run(&drawn::draw(
                        n,
                        duration_s,
                        chunk_rng(seed, stream, from + r),
                    ))
                }
            },
            |run| sums.add_run(&run, n, failback),
            tick,
        );
        self.done = windows;
    }
}

impl PolicyIncidentMc {
    /// One window's `run` of `n` requests added; off a timeline its fail-back (USD, writes)
    /// is the shorthand's `failback`.
    fn add_run(&mut self, run: &Run, n: u64, failback: (f64, f64)) {
        let pair = if self.timeline {
            self.base
                .add_run(&run.base, run.failback, run.failback_writes)
        } else {
            self.base.add_run(&run.base, failback.0, failback.1)
        };
        self.per_window.push(pair);
        self.dead_time_mean
            .add(if n > 0 { run.dead_time / n as f64 } else { 0.0 });
        self.dead_attempts.add(run.dead_attempts);
        self.probes.add(run.probes);
        self.open_s.add(run.open_s);
        self.opens.add(run.opens);
        for (k, s) in self.rate_limited_by.iter_mut().enumerate() {
            s.add(run.rate_limited_by.get(k).copied().unwrap_or(0.0));
        }
        *self.every_opens.entry(run.every_opens as u64).or_default() += 1;
    }
}

impl<'a> Window<'a> {
    /// The window of `pattern` on `chain` in `incident`, under the chain's policy; `None`
    /// when the pattern does not exist on the chain.
    fn new(
        request: &Request,
        chain: &Chain,
        incident: &'a Incident,
        pattern: Pattern,
    ) -> Option<Window<'a>> {
        let sim = PolicySim::new(request, chain);
        if pattern.is_hedged() && !sim.hedges() {
            return None;
        }
        let allowed: Vec<usize> = if pattern == Pattern::NoFallback {
            vec![0]
        } else {
            sim.allowed.clone()
        };
        let mut links = window_links(request, chain, incident, pattern, &allowed);
        // A timeline: every link's state follows the outages in time (no link is down
        // throughout).
        let clock = incident
            .timeline
            .as_ref()
            .map(|timeline| timeline_clock(timeline, chain, &links));
        if clock.is_some() {
            for l in &mut links {
                l.role.dead = false;
            }
        }
        let slow = clock.as_ref().map_or_else(Vec::new, |c| {
            c.factors().iter().map(|&f| (f, sim.slowed(f))).collect()
        });
        let failback_counts = pattern != Pattern::NoFallback && links.len() > 1;
        let (dead_s, dead_class) = match incident.failure {
            FailureMode::Fast => (
                vec![chain.steady.fast_fail_s; chain.links.len()],
                ErrorClass::ServerError,
            ),
            FailureMode::Gray => (
                (0..chain.links.len()).map(|i| chain.timeout_s(i)).collect(),
                ErrorClass::Timeout,
            ),
        };
        let quotas = quota::quotas(request, chain, &links);
        let passes_refusal = refusal::passes_refusal(chain, pattern, &links);
        Some(Window {
            quotas,
            passes_refusal,
            links,
            incident,
            pattern,
            warm_policy: chain.policy.warm_fallback,
            dead_s,
            dead_class,
            breaker: chain.policy.breaker,
            clock,
            slow,
            failback_counts,
            sim,
        })
    }
}

/// The window's links: the `allowed` links of `chain` (chain indices, in order), each with
/// its provider's breaker slot, its cache slot (one cache per model), whether it starts warm
/// and the state its dead attempts are billed in.
fn window_links(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
    allowed: &[usize],
) -> Vec<IncidentLink> {
    let mut providers: Vec<&str> = Vec::new();
    allowed
        .iter()
        .enumerate()
        .map(|(pos, &i)| {
            let price = &chain.links[i].price;
            let provider = providers
                .iter()
                .position(|p| *p == price.provider.as_str())
                .unwrap_or_else(|| {
                    providers.push(price.provider.as_str());
                    providers.len() - 1
                });
            // One cache per model: the first link's model (and the second leg's) is warm
            // wherever it is listed.
            let starts_warm = price.id == chain.links[allowed[0]].price.id
                || (pattern.is_hedged()
                    && allowed.len() > 1
                    && price.id == chain.links[allowed[1]].price.id);
            let slot = allowed
                .iter()
                .position(|&j| chain.links[j].price.id == price.id)
                .unwrap_or(pos);
            // A dead link not warm is billed as a success there would have been (a write for
            // an explicit fallback warmed at once), its premium over warm a cold-start cost.
            let dead_state = if starts_warm {
                warm_state(price)
            } else {
                policy::unwarmed_state(price, chain.policy.warm_fallback)
            };
            let at = Placement {
                index: i,
                slot,
                provider,
                starts_warm,
                dead_state,
            };
            IncidentLink::new(request, chain, incident, at)
        })
        .collect()
}

/// The clock of `timeline` for the window's `links`: each link's state looked up by time.
fn timeline_clock(
    timeline: &crate::model::timeline::Timeline,
    chain: &Chain,
    links: &[IncidentLink],
) -> Clock {
    let refs: Vec<LinkRef> = links
        .iter()
        .map(|l| {
            let p = &chain.links[l.role.index].price;
            LinkRef {
                provider: p.provider.clone(),
                model: p.id.clone(),
            }
        })
        .collect();
    let primary: Vec<bool> = links.iter().map(|l| l.slot == 0).collect();
    Clock::new(timeline, &refs, &primary)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use crate::model::Link;
    use crate::model::cost::tests::{july, req, set_failure_rates, set_trip_rates};
    use crate::model::incident::{breaker_bound, evaluate};
    use crate::model::policy::{Backoff, Breaker as BreakerPolicy, ErrorMix, Jitter};
    use crate::model::{Policy, Steady};
    use crate::sim::stats::{Z99, Z999, agrees, rare_events_unseen};

    /// The 2026-09-03 window (3h6m at 1 req/s, sessions of 20, the post's agent request) on a
    /// chain of bundled 2026-07 models with `policy`.
    pub(crate) fn sept3(
        models: &[&str],
        policy: Policy,
        failure: FailureMode,
    ) -> (Request, Chain, Incident) {
        let chain = Chain {
            name: "c".into(),
            links: models.iter().map(|m| Link::new(july(m))).collect(),
            steady: Steady::default(),
            policy,
            traffic_share: None,
        };
        let incident = Incident {
            duration_s: 3.0 * 3600.0 + 6.0 * 60.0,
            requests_per_second: 1.0,
            session_length: 20,
            failure,
            timeline: None,
        };
        (req(0.0, 1200.0, 60000.0, 0.9), chain, incident)
    }

    fn opts(runs: u64, seed: u64) -> McOptions {
        McOptions {
            requests: 0,
            runs,
            seed,
        }
    }

    const SONNET: &str = "anthropic/claude-sonnet-5";
    const G6SOL: &str = "openai/gpt-6-sol";

    fn breaker_policy() -> Policy {
        Policy {
            breaker: Some(BreakerPolicy {
                threshold: 5,
                cooldown_s: 60.0,
            }),
            ..Policy::default()
        }
    }

    /// Issue 5: a breaker with threshold 5 during sept3's three-down outage (3h06m at 1 req/s,
    /// no retries) sends a bounded number of attempts to the dead provider. The closed form
    /// ([`breaker_bound`]): t_open = m/λ + d, R = λ·t_open, probes = (D − t_open)/(cooldown +
    /// d + 1/λ) (a probe waits for the next request after the cooldown), attempts = R + probes:
    /// 5.5 + 181.4 = 186.9 fast (d = 0.5 s), 35 + 122.3 = 157.3 gray (d = 30 s). The MC, which
    /// runs the breaker in time, must lie within 3 standard errors + 1 attempt of it (the
    /// closed form takes the arrival of the 5th request and the probes' waits at their means).
    #[test]
    fn breaker_bounds_attempts_on_the_dead_provider() {
        for (failure, d) in [(FailureMode::Fast, 0.5), (FailureMode::Gray, 30.0)] {
            let (r, c, i) = sept3(&[SONNET, G6SOL], breaker_policy(), failure);
            let (_, b) = breaker_bound(&c, &i).unwrap();
            let t_open = 5.0 + d;
            let probes = (i.duration_s - t_open) / (60.0 + d + 1.0);
            assert!((b.dead_attempts - (t_open + probes)).abs() < 1e-9);
            assert!((b.probes - probes).abs() < 1e-9);
            let m = simulate(
                &r,
                &c,
                &i,
                Pattern::Sequential,
                0,
                &opts(60, 1),
                &mut |_| {},
            )
            .unwrap();
            let mc = m.dead_attempts.mean();
            assert!(
                (mc - b.dead_attempts).abs() <= 3.0 * m.dead_attempts.std_error() + 1.0,
                "{failure:?}: MC {mc}, closed form {}",
                b.dead_attempts
            );
            assert!((m.probes.mean() - probes).abs() <= 3.0 * m.probes.std_error() + 1.0);
            // open most of the window: all but the probes' own time and the time to open
            assert!((m.open_s.mean() / b.open_s - 1.0).abs() < 0.02);
            // far fewer dead attempts than without a breaker: one per request
            assert!(mc < 0.02 * i.requests() as f64);
        }
    }

    /// With retries (3 tries at d = 30 s, no backoff): the hanging first attempts of 5
    /// different requests reach the threshold at t_open = 5/λ + d = 35 s; the 5 requests whose
    /// first hang ended before that retry once more, and every later retry finds the breaker
    /// open: 35 + 5 + (D − 35)/91 = 162.3 attempts, not 3 per request. The MC must lie within
    /// 5% of the closed form (the arrival of the 5th request and the retry cut-off are taken
    /// at their means).
    #[test]
    fn breaker_with_retries_opens_on_first_attempts() {
        let policy = Policy {
            retries: 2,
            backoff: Backoff {
                base_s: 0.0,
                cap_s: 0.0,
                jitter: Jitter::None,
            },
            ..breaker_policy()
        };
        let (r, c, i) = sept3(&[SONNET, G6SOL], policy, FailureMode::Gray);
        let (_, b) = breaker_bound(&c, &i).unwrap();
        let refined = 35.0 + 5.0 + (i.duration_s - 35.0) / 91.0;
        assert!((b.dead_attempts - refined).abs() < 1e-9);
        let m = simulate(
            &r,
            &c,
            &i,
            Pattern::Sequential,
            0,
            &opts(60, 2),
            &mut |_| {},
        )
        .unwrap();
        let mc = m.dead_attempts.mean();
        assert!(
            (mc / refined - 1.0).abs() < 0.05,
            "MC {mc}, closed form {refined}"
        );
    }

    fn assert_agrees(r: &Request, c: &Chain, i: &Incident, runs: u64) {
        assert_agrees_at(r, c, i, runs, Z99, Z999)
    }

    fn assert_agrees_at(r: &Request, c: &Chain, i: &Incident, runs: u64, z1: f64, z2: f64) {
        for pattern in Pattern::ALL {
            let Some(mc) = simulate(r, c, i, pattern, 0, &opts(runs, 5), &mut |_| {}) else {
                assert!(evaluate(r, c, i, pattern).is_none());
                continue;
            };
            let a = evaluate(r, c, i, pattern).unwrap();
            let b = &mc.base.figures;
            // USD per event of each figure, for figures the sample may never have seen: a
            // cold start's mean premium; for a wasted attempt the dearest one (its mean
            // counts the free fast failures too)
            let per = |usd: f64, events: f64| if events > 0.0 { usd / events } else { 0.0 };
            let dearest = PolicySim::new(r, c)
                .links
                .iter()
                .flat_map(|l| [l.warm.success, l.cold.success, l.warm.gray, l.cold.gray])
                .fold(0.0, f64::max);
            let checks = vec![
                ("total", &b.total_usd, a.total, 0.0),
                ("window", &b.window_usd, a.window, 0.0),
                (
                    "cold_start",
                    &b.cold_start_usd,
                    a.cold_start,
                    per(a.cold_start, a.cold_starts),
                ),
                ("failed", &b.failed_requests, a.failed_requests, 1.0),
                (
                    "wasted_attempts",
                    &b.wasted_attempts,
                    a.wasted_attempts,
                    1.0,
                ),
                ("wasted", &b.wasted_usd, a.wasted, dearest),
                ("cold_starts", &b.cold_starts, a.cold_starts, 1.0),
                ("dead_time", &mc.dead_time_mean, a.dead_time_mean_s, 0.0),
                ("refused", &b.refused_requests, a.refused, 1.0),
            ];
            for (name, sum, want, per_event) in checks {
                let z = if name == "total" { z1 } else { z2 };
                let e = sum.estimate(z, 1.0);
                // A figure constant over all K simulated windows varies, if at all, in fewer
                // than about 3/K of windows (95%), and then by about one session's share of it
                // (a session that never reaches a fallback): allow 3/(K·S) relative.
                let sessions = i.requests().div_ceil(i.session_length.max(1)).max(1) as f64;
                let rel = 3.0 / (runs as f64 * sessions);
                let constant = sum.std_error() == 0.0
                    && (e.mean - want).abs() <= rel * want.abs().max(e.mean.abs());
                assert!(
                    agrees(&e, want) || constant || rare_events_unseen(sum, want, per_event),
                    "{} {name}: analytic {want} outside MC [{}, {}]",
                    pattern.as_str(),
                    e.lo,
                    e.hi
                );
            }
        }
    }

    /// Without a breaker the window is the policy engine's: retries on the dead provider,
    /// a failing fallback, an error mix, the call cap, warm after 3 for an explicit fallback.
    #[test]
    fn agrees_with_the_analytic_window() {
        let mut policy = Policy {
            retries: 2,
            backoff: Backoff {
                base_s: 0.5,
                cap_s: 4.0,
                jitter: Jitter::Full,
            },
            max_attempts: Some(5),
            warm_fallback: WarmPolicy::After(3),
            ..Policy::default()
        };
        let (r, mut c, mut i) = sept3(
            &["openai/gpt-5.6-sol", SONNET, "anthropic/claude-haiku-4-5"],
            policy.clone(),
            FailureMode::Gray,
        );
        set_failure_rates(&mut c, &[0.0, 0.2, 0.1]);
        set_trip_rates(&mut c, &[0.0, 0.0, 0.0]);
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.4, 0.1, 0.2, 0.2, 0.05, 0.05],
        });
        i.duration_s = 600.0;
        i.session_length = 10;
        assert_agrees(&r, &c, &i, 300);
        i.failure = FailureMode::Fast;
        policy.warm_fallback = WarmPolicy::Never;
        c.policy = policy;
        assert_agrees(&r, &c, &i, 300);
    }

    /// Issue 5 in the incident engine: 3 tries at 30 s against the hanging provider before the
    /// fallback, no backoff: exactly 90 s of dead time per request, 3 dead attempts each.
    #[test]
    fn ninety_seconds_per_request_in_the_window() {
        let policy = Policy {
            retries: 2,
            backoff: Backoff {
                base_s: 0.0,
                cap_s: 0.0,
                jitter: Jitter::None,
            },
            ..Policy::default()
        };
        let (r, c, mut i) = sept3(&[SONNET, G6SOL], policy, FailureMode::Gray);
        i.duration_s = 300.0;
        let m = simulate(&r, &c, &i, Pattern::Sequential, 0, &opts(5, 1), &mut |_| {}).unwrap();
        assert_eq!(m.dead_time_mean.mean(), 90.0);
        assert_eq!(m.dead_attempts.mean(), 3.0 * i.requests() as f64);
        assert_eq!(m.base.figures.failed_requests.mean(), 0.0);
    }

    /// Sonnet's warm input side (X, a cancelled leg) and its gray attempt (W) on the sept3
    /// request, USD.
    const X0: f64 = 60000.0 * 0.38 / 1e6;
    const W0: f64 = X0 + 0.5 * 1200.0 * 10.0 / 1e6;
    const HEDGES: [Pattern; 2] = [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel];

    /// A delayed hedge in time: the backup waits for d = 7 s on every request while the dead
    /// primary hangs; for the primary's 0.5 s fast failure when that comes before d; for d =
    /// 0.2 s when it comes after. Every request alike: the analytic window's dead time
    /// (`model::incident`'s test) exactly, and its bill.
    #[test]
    fn a_delayed_hedge_waits_in_the_window() {
        let (r, mut c, mut i) = sept3(&[SONNET, G6SOL], Policy::default(), FailureMode::Gray);
        i.duration_s = 300.0;
        for (failure, d, dead) in [
            (FailureMode::Gray, 7.0, 7.0),
            (FailureMode::Fast, 7.0, 0.5),
            (FailureMode::Fast, 0.2, 0.2),
        ] {
            i.failure = failure;
            c.policy.hedge_delay_s = Some(d);
            for pattern in HEDGES {
                let m = simulate(&r, &c, &i, pattern, 0, &opts(4, 1), &mut |_| {}).unwrap();
                let a = evaluate(&r, &c, &i, pattern).unwrap();
                assert!(
                    (m.dead_time_mean.mean() - dead).abs() < 1e-12,
                    "{failure:?} {d}"
                );
                assert!((a.dead_time_mean_s - dead).abs() < 1e-12);
                assert!((m.base.figures.window_usd.mean() / a.window - 1.0).abs() < 1e-12);
                assert_eq!(m.base.figures.failed_requests.mean(), 0.0);
                assert_eq!(m.dead_attempts.mean(), 300.0);
            }
        }
    }

    /// Client and quota errors on the live backup in time, on every request (f = 1). A 400
    /// fails the request at 0.5 s: take-first cancels the hung primary (X), no-cancel lets it
    /// hang (W); with `client` failing over, GPT-6 Astra is tried once more, fast. A quota
    /// error fails it once the primary's 30 s hang ends, Astra never tried.
    #[test]
    fn client_and_quota_errors_on_the_backup_in_the_window() {
        let models = [SONNET, G6SOL, "openai/gpt-6-astra"];
        let (r, mut c, mut i) = sept3(&models, Policy::default(), FailureMode::Gray);
        i.duration_s = 300.0;
        set_failure_rates(&mut c, &[0.0, 1.0, 0.0]);
        set_trip_rates(&mut c, &[0.0; 3]);
        let run =
            |c: &Chain, pattern| simulate(&r, c, &i, pattern, 0, &opts(4, 2), &mut |_| {}).unwrap();
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        });
        for (pattern, usd) in [
            (Pattern::HedgedTakeFirst, X0),
            (Pattern::HedgedNoCancel, W0),
        ] {
            let m = run(&c, pattern);
            assert!((m.base.figures.window_usd.mean() - 300.0 * usd).abs() < 1e-9);
            assert_eq!(m.base.figures.failed_requests.mean(), 300.0);
            assert_eq!(m.base.figures.wasted_attempts.mean(), 600.0);
            assert!((m.dead_time_mean.mean() - 0.5).abs() < 1e-12);
        }
        c.policy.failover_on.push(ErrorClass::Client);
        let m = run(&c, Pattern::HedgedTakeFirst);
        assert_eq!(m.base.figures.wasted_attempts.mean(), 900.0);
        assert!((m.dead_time_mean.mean() - 1.0).abs() < 1e-12);
        assert_eq!(m.base.figures.cold_starts.mean(), 0.0);
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        });
        for pattern in HEDGES {
            let m = run(&c, pattern);
            assert!((m.base.figures.window_usd.mean() - 300.0 * W0).abs() < 1e-9);
            assert_eq!(m.base.figures.failed_requests.mean(), 300.0);
            assert_eq!(m.base.figures.wasted_attempts.mean(), 600.0);
            assert!((m.dead_time_mean.mean() - 30.0).abs() < 1e-12);
            let a = evaluate(&r, &c, &i, pattern).unwrap();
            assert!((a.window - 300.0 * W0).abs() < 1e-9);
            assert!((a.dead_time_mean_s - 30.0).abs() < 1e-12);
        }
    }

    /// The same seed gives the same windows on one or two threads.
    #[test]
    fn same_seed_same_result_on_one_or_two_threads() {
        let (r, c, mut i) = sept3(&[SONNET, G6SOL], breaker_policy(), FailureMode::Gray);
        i.duration_s = 900.0;
        let go = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    simulate(
                        &r,
                        &c,
                        &i,
                        Pattern::Sequential,
                        0,
                        &opts(40, 3),
                        &mut |_| {},
                    )
                })
        };
        assert_eq!(go(1), go(2));
    }

    mod random {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            // A fixed seed: CI runs the same cases every time (change it to explore others).
            #![proptest_config(ProptestConfig {
                cases: 8,
                rng_seed: proptest::test_runner::RngSeed::Fixed(20261130),
                failure_persistence: None,
                ..ProptestConfig::default()
            })]
            /// Random policies without a breaker (where the analytic window is exact), error
            /// mixes with client and quota shares, simultaneous and delayed hedges: every
            /// pattern's figures, dead time included, within 4.5 standard errors (about
            /// 8 × 4 × 9 checks a run), or constant within 1e-6.

            #[test]
            fn random_policies_agree_in_the_window(
                // no rates or error shares so small that the 150 windows see only a few such
                // failures: there a normal interval is no guide (see `rare_events_unseen`)
                f in proptest::collection::vec(prop_oneof![Just(0.0), 0.02f64..0.5], 3),
                w in proptest::collection::vec(0.1f64..1.0, 6),
                retries in 0u32..3,
                by_class in proptest::option::of(proptest::array::uniform6(0u32..3)),
                client in any::<bool>(),
                cap in proptest::option::of(2u32..7),
                mult in proptest::option::of(prop_oneof![Just(1.5), Just(3.0)]),
                warm in prop_oneof![Just(WarmPolicy::Always), Just(WarmPolicy::Never), Just(WarmPolicy::After(2))],
                gray in any::<bool>(),
                explicit_fallback in any::<bool>(),
                // a delay of 0 (the simultaneous hedge by another road) or one by which the
                // primary has answered often enough to be seen (P(L ≤ 0.5 s) = 3.6%)
                delay in proptest::option::of(prop_oneof![Just(0.0), 0.5f64..10.0]),
            ) {
                let models: &[&str] = if explicit_fallback {
                    &["openai/gpt-5.6-sol", SONNET, "anthropic/claude-haiku-4-5"]
                } else {
                    &["anthropic/claude-opus-5", "openai/gpt-6-astra", G6SOL]
                };
                let mut policy = Policy {
                    retries,
                    retries_by_class: by_class,
                    max_attempts: cap,
                    max_multiplier: mult,
                    warm_fallback: warm,
                    hedge_delay_s: delay,
                    ..Policy::default()
                };
                if client {
                    policy.failover_on.push(ErrorClass::Client);
                }
                let failure = if gray { FailureMode::Gray } else { FailureMode::Fast };
                let (r, mut c, mut i) = sept3(models, policy, failure);
                set_failure_rates(&mut c, &f);
                set_trip_rates(&mut c, &[0.0; 3]);
                let sum: f64 = w.iter().sum();
                let mut shares = [0.0; 6];
                for (s, x) in shares.iter_mut().zip(&w) {
                    *s = x / sum;
                }
                c.steady.error_mix = Some(ErrorMix { shares });
                i.duration_s = 300.0;
                i.session_length = 8;
                // about half the cases with a fallback that cannot serve the request (passed
                // over, MODEL.md §11), link 1 or 2, chosen by a drawn share
                crate::model::fit::Refusal::mark_by_seed(&mut c, (w[0] * 1000.0) as u64);
                assert_agrees_at(&r, &c, &i, 150, 4.5, 4.5);
            }
        }
    }
}
