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

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::model::cost::{Request, warm_state};
use crate::model::policy::{self, ErrorClass, WarmPolicy};
use crate::model::{Chain, FailureMode, Incident, Pattern};

use crate::sim::incident::circuit::Circuit;
use crate::sim::incident::fast::{Arrivals, IncidentLink, IncidentSums, Placement};
use crate::sim::rng::{SimRng, Stream, chunk_rng, uniform};
use crate::sim::stats::Sum;
use crate::sim::steady::fast::Prices;
use crate::sim::steady::policy::{AttemptResult, PolicySim};
use crate::sim::{McOptions, ordered};

/// A request in flight.
#[derive(Debug, Clone, Copy, Default)]
struct Flight {
    session: usize,
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
    /// The backup races the primary (rather than following its failure).
    racing: bool,
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

/// How one hedge leg ends.
#[derive(Debug, Clone, Copy)]
enum LegEnd {
    /// Not sent: the breaker refused it.
    Refused,
    /// Answered, with ln of its latency.
    Ok(f64),
    /// Failed with a class after `secs` seconds: `usd` if it runs to its end, `lost` if the
    /// race is settled first; `dead`: on the provider that is down.
    Fail {
        class: ErrorClass,
        usd: f64,
        lost: f64,
        secs: f64,
        dead: bool,
    },
}

impl LegEnd {
    fn sent(self) -> u32 {
        u32::from(!matches!(self, LegEnd::Refused))
    }

    /// When a client error comes back, seconds after `at`.
    fn client_at(self, at: f64) -> Option<f64> {
        match self {
            LegEnd::Fail {
                class: ErrorClass::Client,
                secs,
                ..
            } => Some(at + secs),
            _ => None,
        }
    }
}

/// A session's cache on one link: successes so far and when it last answered.
#[derive(Debug, Clone, Copy, Default)]
struct Cache {
    successes: u32,
    last: f64,
}

/// Per-run totals.
#[derive(Debug, Clone, Copy, Default)]
struct Run {
    /// The figures every incident simulation keeps.
    base: crate::sim::incident::fast::Run,
    dead_time: f64,
    dead_attempts: f64,
    probes: f64,
    open_s: f64,
}

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
}

/// The event queue: (time bits, sequence, kind, payload), earliest first; at equal times a
/// failure is recorded before a step. Times are non-negative, so their bits order like them.
type Queue = BinaryHeap<Reverse<(u64, u64, u8, u32)>>;

struct Sched {
    queue: Queue,
    seq: u64,
}

impl Sched {
    fn push(&mut self, t: f64, kind: u8, payload: u32) {
        self.seq += 1;
        self.queue
            .push(Reverse((t.max(0.0).to_bits(), self.seq, kind, payload)));
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

impl Window<'_> {
    /// The prices of live link `l` for the request at `t`: (a success, a failed attempt).
    fn live_prices<'l>(&self, l: &'l IncidentLink, c: &Cache, t: f64) -> (&'l Prices, &'l Prices) {
        if l.starts_warm {
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
                if c.successes > 0 && t - c.last <= l.ttl_s {
                    (&l.warm, &l.warm)
                } else {
                    (&l.first, &l.first)
                }
            }
        }
    }

    /// The next attempt of request `r` at `t` in sequence.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        r: usize,
        t: f64,
        f: &mut Flight,
        caches: &mut [Cache],
        breakers: &mut [Circuit],
        sched: &mut Sched,
        run: &mut Run,
        rng: &mut SimRng,
    ) {
        let p = &self.sim.policy;
        let nl = self.links.len();
        loop {
            if f.pos >= self.links.len() {
                return self.fail(f, run);
            }
            if p.max_attempts.is_some_and(|a| f.n >= a) {
                return self.fail(f, run);
            }
            let l = &self.links[f.pos];
            if f.bad {
                f.n += 1;
                f.dead_s += self.sim.fast_fail_s;
                if p.failover_on.contains(&ErrorClass::Client) {
                    f.pos += 1;
                    continue;
                }
                return self.fail(f, run);
            }
            // Every attempt asks its provider's breaker, retries included; a refused one skips
            // the link at once.
            let Some(probe) = admit(breakers, l, t) else {
                f.pos += 1;
                f.k = 0;
                f.budget = None;
                continue;
            };
            let (class, usd, secs) = if l.dead {
                run.dead_attempts += 1.0;
                record(breakers, sched, l, t + self.dead_s[l.index], probe, false);
                (self.dead_class, l.dead_cost, self.dead_s[l.index])
            } else {
                let cache = &mut caches[f.session * nl + l.slot];
                let (prices, fail_prices) = self.live_prices(l, cache, t);
                let outcome = self.sim.draw(l.index, fail_prices, rng);
                match outcome {
                    AttemptResult::Ok(ln_l) => {
                        record(breakers, sched, l, t + ln_l.exp(), probe, true)
                    }
                    AttemptResult::Fail(class, _, secs) => {
                        record(breakers, sched, l, t + secs, probe, answers(class))
                    }
                }
                match outcome {
                    AttemptResult::Ok(_) => {
                        f.n += 1;
                        run.base.window += l.warm.success;
                        let premium = prices.success - l.warm.success;
                        if !l.starts_warm && !std::ptr::eq(prices, &l.warm) {
                            run.base.cold_start += premium;
                            if cache.successes == 0 || !self.within_ttl(l, cache, t) {
                                run.base.cold_starts += 1.0;
                            }
                        }
                        if !self.within_ttl(l, cache, t) {
                            cache.successes = 0;
                        }
                        cache.successes += 1;
                        // The TTL runs from the answering attempt's start, as in the
                        // default-policy simulator (the latency is not part of the gap).
                        cache.last = t;
                        run.base.wasted_attempts += f64::from(f.n) - 1.0;
                        run.dead_time += f.dead_s;
                        return;
                    }
                    AttemptResult::Fail(class, usd, secs) => (class, usd, secs),
                }
            };
            f.n += 1;
            if l.dead {
                run.base.window += l.dead_warm;
                run.base.cold_start += usd - l.dead_warm;
            } else {
                run.base.window += usd;
            }
            run.base.wasted += usd;
            f.dead_s += secs;
            match class {
                ErrorClass::Quota => return self.fail(f, run),
                ErrorClass::Client => {
                    if p.failover_on.contains(&ErrorClass::Client) {
                        f.bad = true;
                        f.pos += 1;
                        f.k = 0;
                        f.budget = None;
                        sched.push(t + secs, STEP, r as u32);
                        return;
                    }
                    return self.fail(f, run);
                }
                _ if f.k < *f.budget.get_or_insert_with(|| p.retries_for(class)) => {
                    let wait = self.sim.backoff(f.k, rng);
                    f.dead_s += wait;
                    f.k += 1;
                    sched.push(t + secs + wait, STEP, r as u32);
                    return;
                }
                _ if p.failover_on.contains(&class) => {
                    f.pos += 1;
                    f.k = 0;
                    f.budget = None;
                    sched.push(t + secs, STEP, r as u32);
                    return;
                }
                _ => return self.fail(f, run),
            }
        }
    }

    /// Whether a session's cache on `l` (Always policy) is still warm at `t`; other warm
    /// policies keep no expiry.
    fn within_ttl(&self, l: &IncidentLink, c: &Cache, t: f64) -> bool {
        match (l.explicit, self.warm_policy) {
            (true, WarmPolicy::Never | WarmPolicy::After(_)) => true,
            _ => c.successes == 0 || t - c.last <= l.ttl_s,
        }
    }

    fn fail(&self, f: &Flight, run: &mut Run) {
        run.base.failed += 1.0;
        run.base.wasted_attempts += f64::from(f.n);
        run.dead_time += f.dead_s;
    }

    /// One hedge leg on `l`, sent at `t`: a dead one only if the breaker admits it (its
    /// failure is recorded when it would end, even when a take-first hedge cancels it
    /// earlier); a live one drawn warm.
    fn leg(
        &self,
        l: &IncidentLink,
        t: f64,
        breakers: &mut [Circuit],
        sched: &mut Sched,
        run: &mut Run,
        rng: &mut SimRng,
    ) -> LegEnd {
        let Some(probe) = admit(breakers, l, t) else {
            return LegEnd::Refused;
        };
        if l.dead {
            run.dead_attempts += 1.0;
            record(breakers, sched, l, t + self.dead_s[l.index], probe, false);
            let cancel = self.pattern == Pattern::HedgedTakeFirst;
            return LegEnd::Fail {
                class: self.dead_class,
                usd: l.dead_cost,
                lost: if cancel { l.dead_lost } else { l.dead_cost },
                secs: self.dead_s[l.index],
                dead: true,
            };
        }
        match self.sim.draw(l.index, &l.warm, rng) {
            AttemptResult::Ok(ln) => {
                record(breakers, sched, l, t + ln.exp(), probe, true);
                LegEnd::Ok(ln)
            }
            AttemptResult::Fail(class, usd, secs) => {
                record(breakers, sched, l, t + secs, probe, answers(class));
                LegEnd::Fail {
                    class,
                    usd,
                    lost: usd,
                    secs,
                    dead: false,
                }
            }
        }
    }

    /// The request answered on hedge leg `leg` after `dead_s` seconds of dead time, the other
    /// leg costing `lost` USD.
    fn hedge_answered(&self, leg: usize, lost: f64, dead_s: f64, f: &Flight, run: &mut Run) {
        run.base.window += self.links[leg].warm.success + lost;
        run.base.wasted += lost;
        run.base.wasted_attempts += f64::from(f.n) - 1.0;
        run.dead_time += dead_s;
    }

    /// Go on to the links after the legs at `at`.
    fn after_legs(&self, r: usize, at: f64, bad: bool, f: &mut Flight, sched: &mut Sched) {
        f.phase = Phase::Chain;
        f.pos = 2;
        f.k = 0;
        f.budget = None;
        f.bad = bad;
        sched.push(at, STEP, r as u32);
    }

    /// A hedged request arriving at `t` (the same process as [`crate::sim::steady::policy`]'s hedges and
    /// [`crate::model::hedge`]): the primary goes out; the backup at once, or with
    /// `hedge_delay_s` = d when the primary fails (or is refused) if that is before d, else at
    /// d.
    #[allow(clippy::too_many_arguments)]
    fn hedge(
        &self,
        r: usize,
        t: f64,
        f: &mut Flight,
        breakers: &mut [Circuit],
        sched: &mut Sched,
        run: &mut Run,
        rng: &mut SimRng,
    ) {
        let a0 = self.leg(&self.links[0], t, breakers, sched, run, rng);
        f.start = t;
        f.leg0 = Some(a0);
        f.n = a0.sent();
        let delay = self.sim.policy.hedge_delay_s;
        let (s1, racing) = match (delay, a0) {
            (Some(d), LegEnd::Ok(ln)) if ln.exp() <= d => {
                return self.hedge_answered(0, 0.0, 0.0, f, run);
            }
            (_, LegEnd::Refused) => (0.0, false),
            (
                Some(d),
                LegEnd::Fail {
                    class, usd, secs, ..
                },
            ) if secs <= d => {
                // Failed before the delay: billed in full; the backup follows as a failover.
                run.base.window += usd;
                run.base.wasted += usd;
                f.dead_s = secs;
                let fails_over = self.sim.policy.failover_on.contains(&ErrorClass::Client);
                match class {
                    ErrorClass::Quota => return self.fail(f, run),
                    ErrorClass::Client if fails_over => {
                        // The backup is the bad request's next link, tried once.
                        f.phase = Phase::Chain;
                        f.pos = 1;
                        f.bad = true;
                        sched.push(t + secs, STEP, r as u32);
                        return;
                    }
                    ErrorClass::Client => return self.fail(f, run),
                    _ => (secs, false),
                }
            }
            (Some(d), _) => (d, true),
            (None, _) => (0.0, true),
        };
        f.racing = racing;
        if s1 > 0.0 {
            f.phase = Phase::Backup;
            sched.push(t + s1, STEP, r as u32);
        } else {
            self.backup(r, t, f, breakers, sched, run, rng);
        }
    }

    /// A hedge's backup going out at `t`, and the outcome of the legs.
    #[allow(clippy::too_many_arguments)]
    fn backup(
        &self,
        r: usize,
        t: f64,
        f: &mut Flight,
        breakers: &mut [Circuit],
        sched: &mut Sched,
        run: &mut Run,
        rng: &mut SimRng,
    ) {
        let a1 = self.leg(&self.links[1], t, breakers, sched, run, rng);
        f.n += a1.sent();
        let fails_over = self.sim.policy.failover_on.contains(&ErrorClass::Client);
        if !f.racing {
            // A failover: the primary's failure is billed and timed already.
            match a1 {
                LegEnd::Ok(_) => self.hedge_answered(1, 0.0, f.dead_s, f, run),
                LegEnd::Refused => self.after_legs(r, t, false, f, sched),
                LegEnd::Fail {
                    class, usd, secs, ..
                } => {
                    run.base.window += usd;
                    run.base.wasted += usd;
                    f.dead_s += secs;
                    match class {
                        ErrorClass::Quota => self.fail(f, run),
                        ErrorClass::Client if !fails_over => self.fail(f, run),
                        _ => self.after_legs(r, t + secs, class == ErrorClass::Client, f, sched),
                    }
                }
            }
            return;
        }
        // In a race the backup went out at d (a delayed hedge) or with the primary.
        let s1 = self.sim.policy.hedge_delay_s.unwrap_or(0.0);
        let a0 = f.leg0.unwrap_or(LegEnd::Refused);
        // What a failed leg bills when the race is settled first (`settled`) or not.
        let bill = |a: LegEnd, settled: bool| match a {
            LegEnd::Fail { usd, lost, .. } => {
                if settled {
                    lost
                } else {
                    usd
                }
            }
            _ => 0.0,
        };
        let (c0, c1) = (a0.client_at(0.0), a1.client_at(s1));
        if c0.is_some() || c1.is_some() {
            // A bad request: a live leg returns the same client error (billed 0); a dead one
            // fails as the outage makes it fail, settled by the first client error.
            let dead_bill = |a: LegEnd| match a {
                LegEnd::Fail {
                    dead: true, lost, ..
                } => lost,
                _ => 0.0,
            };
            let usd = dead_bill(a0) + dead_bill(a1);
            run.base.window += usd;
            run.base.wasted += usd;
            f.dead_s = c0.unwrap_or(f64::INFINITY).min(c1.unwrap_or(f64::INFINITY));
            if fails_over {
                self.after_legs(r, f.start + f.dead_s, true, f, sched);
            } else {
                self.fail(f, run);
            }
            return;
        }
        match (a0, a1) {
            (LegEnd::Ok(ln0), LegEnd::Ok(ln1)) => {
                let primary_wins = match self.sim.policy.hedge_delay_s {
                    Some(_) => ln0.exp() <= s1 + ln1.exp(),
                    None if self.sim.win_by_latency() => ln0 <= ln1,
                    None => uniform(rng) < self.sim.win_rate(),
                };
                let cancel = self.pattern == Pattern::HedgedTakeFirst;
                let lost = |l: &IncidentLink| {
                    if cancel {
                        l.warm.cancel
                    } else {
                        l.warm.success
                    }
                };
                if primary_wins {
                    self.hedge_answered(0, lost(&self.links[1]), 0.0, f, run);
                } else {
                    self.hedge_answered(1, lost(&self.links[0]), s1, f, run);
                }
            }
            (LegEnd::Ok(_), other) => self.hedge_answered(0, bill(other, true), 0.0, f, run),
            (other, LegEnd::Ok(_)) => self.hedge_answered(1, bill(other, true), s1, f, run),
            (a0, a1) => {
                let usd = bill(a0, false) + bill(a1, false);
                run.base.window += usd;
                run.base.wasted += usd;
                let end = |a: LegEnd, at: f64| match a {
                    LegEnd::Fail { secs, .. } => at + secs,
                    _ => 0.0,
                };
                f.dead_s = end(a0, 0.0).max(end(a1, s1));
                let quota = |a: LegEnd| {
                    matches!(
                        a,
                        LegEnd::Fail {
                            class: ErrorClass::Quota,
                            ..
                        }
                    )
                };
                if quota(a0) || quota(a1) {
                    self.fail(f, run);
                } else {
                    self.after_legs(r, f.start + f.dead_s, false, f, sched);
                }
            }
        }
    }

    fn run(&self, rng: &mut SimRng) -> Run {
        let n = self.incident.requests() as usize;
        let length = self.incident.session_length.max(1) as usize;
        let sessions = n.div_ceil(length);
        let nl = self.links.len();
        let mut caches = vec![Cache::default(); sessions * nl];
        let mut flights = vec![Flight::default(); n];
        let providers = self.links.iter().map(|l| l.provider + 1).max().unwrap_or(0);
        let mut breakers: Vec<Circuit> = match self.breaker {
            Some(b) => vec![Circuit::new(&b, self.incident.duration_s); providers],
            None => Vec::new(),
        };
        let mut sched = Sched {
            queue: BinaryHeap::with_capacity(n + 16),
            seq: 0,
        };
        let mut arrivals = Arrivals::new(n as u64, self.incident.duration_s);
        for (k, f) in flights.iter_mut().enumerate() {
            let t = arrivals.next(rng);
            f.session = k / length;
            sched.push(t, STEP, k as u32);
        }
        let mut run = Run::default();
        while let Some(Reverse((bits, _, kind, payload))) = sched.queue.pop() {
            let now = f64::from_bits(bits);
            if kind == RECORD {
                if let Some(b) = breakers.get_mut((payload >> 2) as usize) {
                    b.record(now, payload & 2 != 0, payload & 1 != 0);
                }
                continue;
            }
            let r = payload as usize;
            let mut f = flights[r];
            if self.pattern.is_hedged() && f.phase == Phase::Legs {
                self.hedge(r, now, &mut f, &mut breakers, &mut sched, &mut run, rng);
            } else if f.phase == Phase::Backup {
                self.backup(r, now, &mut f, &mut breakers, &mut sched, &mut run, rng);
            } else {
                self.step(
                    r,
                    now,
                    &mut f,
                    &mut caches,
                    &mut breakers,
                    &mut sched,
                    &mut run,
                    rng,
                );
            }
            flights[r] = f;
        }
        // The dead provider's breaker (slot 0, the primary's provider).
        if let Some(b) = breakers.first() {
            run.probes = b.probes();
            run.open_s = b.open_s();
        }
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
    let sim = PolicySim::new(request, chain);
    if pattern.is_hedged() && !sim.hedges() {
        return None;
    }
    let s = &chain.steady;
    let allowed: Vec<usize> = if pattern == Pattern::NoFallback {
        vec![0]
    } else {
        sim.allowed.clone()
    };
    let mut providers: Vec<&str> = Vec::new();
    let links: Vec<IncidentLink> = allowed
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
        .collect();
    let (dead_s, dead_class) = match incident.failure {
        FailureMode::Fast => (
            vec![s.fast_fail_s; chain.links.len()],
            ErrorClass::ServerError,
        ),
        FailureMode::Gray => (
            (0..chain.links.len()).map(|i| chain.timeout_s(i)).collect(),
            ErrorClass::Timeout,
        ),
    };
    let window = Window {
        links,
        incident,
        pattern,
        warm_policy: chain.policy.warm_fallback,
        dead_s,
        dead_class,
        breaker: chain.policy.breaker,
        sim,
    };

    let n = incident.requests();
    let normal = crate::model::incident::normal_bill(request, chain, incident);
    // Fail-back: each session resumes on the primary D seconds after it last used it.
    let (failback, failback_writes) =
        crate::model::incident::failback(request, chain, incident, pattern);
    let stream = Stream::IncidentPolicy {
        chain: index,
        pattern,
    }
    .id();
    let mut out = PolicyIncidentMc {
        base: IncidentSums::new(pattern, normal),
        dead_time_mean: Sum::default(),
        dead_attempts: Sum::default(),
        probes: Sum::default(),
        open_s: Sum::default(),
    };
    ordered(
        opts.runs,
        |r| window.run(&mut chunk_rng(opts.seed, stream, r)),
        |run| {
            out.base.add_run(&run.base, failback, failback_writes);
            out.dead_time_mean
                .add(if n > 0 { run.dead_time / n as f64 } else { 0.0 });
            out.dead_attempts.add(run.dead_attempts);
            out.probes.add(run.probes);
            out.open_s.add(run.open_s);
        },
        tick,
    );
    Some(out)
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
            let b = &mc.base;
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
                ("total", &b.total, a.total, 0.0),
                ("window", &b.window, a.window, 0.0),
                (
                    "cold_start",
                    &b.cold_start,
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
                ("wasted", &b.wasted, a.wasted, dearest),
                ("cold_starts", &b.cold_starts, a.cold_starts, 1.0),
                ("dead_time", &mc.dead_time_mean, a.dead_time_mean_s, 0.0),
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
        assert_eq!(m.base.failed_requests.mean(), 0.0);
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
                assert!((m.base.window.mean() / a.window - 1.0).abs() < 1e-12);
                assert_eq!(m.base.failed_requests.mean(), 0.0);
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
            assert!((m.base.window.mean() - 300.0 * usd).abs() < 1e-9);
            assert_eq!(m.base.failed_requests.mean(), 300.0);
            assert_eq!(m.base.wasted_attempts.mean(), 600.0);
            assert!((m.dead_time_mean.mean() - 0.5).abs() < 1e-12);
        }
        c.policy.failover_on.push(ErrorClass::Client);
        let m = run(&c, Pattern::HedgedTakeFirst);
        assert_eq!(m.base.wasted_attempts.mean(), 900.0);
        assert!((m.dead_time_mean.mean() - 1.0).abs() < 1e-12);
        assert_eq!(m.base.cold_starts.mean(), 0.0);
        c.steady.error_mix = Some(ErrorMix {
            shares: [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        });
        for pattern in HEDGES {
            let m = run(&c, pattern);
            assert!((m.base.window.mean() - 300.0 * W0).abs() < 1e-9);
            assert_eq!(m.base.failed_requests.mean(), 300.0);
            assert_eq!(m.base.wasted_attempts.mean(), 600.0);
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
                assert_agrees_at(&r, &c, &i, 150, 4.5, 4.5);
            }
        }
    }
}
