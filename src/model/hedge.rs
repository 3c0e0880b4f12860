//! The two legs of a hedge (MODEL.md §4, §6, §8), shared by the steady-state engine
//! ([`super::steady`]) and the incident window ([`super::incident`]).
//!
//! The primary and the first fallback the cost cap allows (the backup) are each tried once,
//! warm, without retries. A simultaneous hedge sends both at once. A delayed hedge
//! (`hedge_delay_s` = d) sends the primary alone: if it answers by d, that is all; if it fails
//! (or a circuit breaker refuses it) before d, the backup goes out at once, as a sequential
//! failover; if it is still running at d, the backup goes out at d and the two race.
//!
//! Each leg ends in one of the ways of [`HedgeLeg`]: an answer, a client error (4xx), a quota or
//! billing error, another fast failure (rate limit, overload, 5xx; a dead provider failing
//! fast), a slow failure (a hang or a timeout trip, which takes the timeout T), or no attempt
//! (refused by a circuit breaker). The error classes follow the sequential chain's rules
//! (MODEL.md §8, [`super::policy`]):
//!
//! - a client error is the request's fault and fails on every link: when either leg draws one,
//!   the request is bad. A live provider on the other leg returns the same error (billed 0,
//!   whatever that leg would have done); a provider that is down fails as the outage makes it
//!   fail, and its hung take-first leg is cancelled (billed X) as when the other leg answers.
//!   The race ends at the first client error; the links after the legs are then tried once
//!   each (failing fast, billed 0) only with `client` in `failover_on`, else the request fails;
//! - a quota or billing error is a stop sign: the other leg, already in flight, may still
//!   answer, but no later link is tried. In a delayed hedge a quota error before d stops the
//!   request there: the backup is never sent;
//! - any other failure of both legs sends the request on to the links after them, under the
//!   policy, with the legs' attempts counted against `max_attempts`.
//!
//! Dead time, here as in the sequential chain, is the time from the request's start until the
//! answering attempt starts (for a request that fails, until its final error): 0 when the
//! primary answers or a simultaneous backup does, d when a delayed backup sent at d answers,
//! the primary's failure time when the backup went out after it; when both legs fail, the end
//! of the slower one (of the first client error for a bad request), then the links after them.
//!
//! [`Hedge::race`] sums over the joint outcomes of the two legs, so its expectations are exact.

use super::cost::{CacheState, Request};
use super::latency;
use super::policy::{ErrorClass, ErrorMix, PlanEntry, PolicyOutcome};
use super::{AbandonedBilling, Chain, Pattern};

/// How one hedge leg can end: probabilities per attempt (summing to 1) and USD per attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HedgeLeg {
    /// The link's index in the chain.
    pub index: usize,
    /// Probability the attempt answers.
    pub ok: f64,
    /// USD of an answer (C).
    pub c: f64,
    /// USD of an answer cancelled because the other leg answered first (a take-first loser, X).
    pub x: f64,
    /// Probability of a client error (400/401/403/404/422): billed 0, takes `fast_fail_s`.
    pub client: f64,
    /// Probability of a quota or billing error: billed 0, takes `fast_fail_s`.
    pub quota: f64,
    /// Probability of another fast failure (429, 529, 5xx; a dead provider failing fast):
    /// billed 0, takes `fast_fail_s`.
    pub fast: f64,
    /// Probability of a slow failure (a hang or a timeout trip): takes the timeout T.
    pub slow: f64,
    /// USD of a slow failure (expected over hangs, billed gray, and trips, billed per
    /// `abandoned_billing`; MODEL.md §3).
    pub w: f64,
    /// USD of a slow failure when the race is settled before it ends (the other leg answered,
    /// or returned a client error): W in steady state (MODEL.md §4's formula), X for a dead
    /// provider's hung take-first leg (MODEL.md §6).
    pub w_lost: f64,
    /// Probability the leg is not sent (a circuit breaker refuses it): no attempt, no time.
    pub refused: f64,
    /// On the provider that is down: it fails whatever the request, so another leg's client
    /// error does not replace its outcome.
    pub dead: bool,
}

impl HedgeLeg {
    /// Link `index` of `chain` billed in `state`, under its steady-state failure rate, trip
    /// rate and error mix (MODEL.md §3, §4, §8): what [`super::policy`] draws for one attempt.
    pub fn steady(request: &Request, chain: &Chain, index: usize, state: CacheState) -> HedgeLeg {
        let s = &chain.steady;
        let link = &chain.links[index];
        let (price, f, t) = (&link.price, link.failure_rate, link.trip_rate);
        let mix = s
            .error_mix
            .unwrap_or(ErrorMix::from_gray_fraction(s.gray_fraction));
        let success = request.success_cost(price, state);
        let gray = request.partial_cost(price, state, s.gray_output_fraction);
        let abandoned = match s.abandoned_billing {
            AbandonedBilling::Partial => gray,
            AbandonedBilling::Full => success,
        };
        let hang = f * mix.share(ErrorClass::Timeout);
        let trip = (1.0 - f) * t;
        let slow = hang + trip;
        let w = if slow > 0.0 {
            (hang * gray + trip * abandoned) / slow
        } else {
            0.0
        };
        let fast: f64 = [
            ErrorClass::RateLimit,
            ErrorClass::Overload,
            ErrorClass::ServerError,
        ]
        .iter()
        .map(|&c| f * mix.share(c))
        .sum();
        HedgeLeg {
            index,
            ok: (1.0 - f) * (1.0 - t),
            c: success,
            x: request.partial_cost(price, state, s.cancel_output_fraction),
            client: f * mix.share(ErrorClass::Client),
            quota: f * mix.share(ErrorClass::Quota),
            fast,
            slow,
            w,
            w_lost: w,
            refused: 0.0,
            dead: false,
        }
    }

    /// Link `index` on the provider that is down (MODEL.md §6): every attempt fails, fast
    /// (billed 0, `slow` false) or hanging until the timeout; `w` USD when it runs to its end,
    /// `w_lost` USD when the race is settled first (a take-first leg cancelled: X; no-cancel:
    /// W); a share `1 − tried` is refused by a circuit breaker.
    pub fn dead(index: usize, slow: bool, w: f64, w_lost: f64, tried: f64) -> HedgeLeg {
        HedgeLeg {
            index,
            ok: 0.0,
            c: 0.0,
            x: 0.0,
            client: 0.0,
            quota: 0.0,
            fast: if slow { 0.0 } else { tried },
            slow: if slow { tried } else { 0.0 },
            w,
            w_lost,
            refused: 1.0 - tried,
            dead: true,
        }
    }

    fn ends(&self) -> [(End, f64); 6] {
        [
            (End::Ok, self.ok),
            (End::Client, self.client),
            (End::Quota, self.quota),
            (End::Fast, self.fast),
            (End::Slow, self.slow),
            (End::Refused, self.refused),
        ]
    }

    /// USD of a failed attempt ending in `end`: in full (`settled` false) or cut short by the
    /// other leg settling the race (`settled` true).
    fn failed_usd(&self, end: End, settled: bool) -> f64 {
        match (end, settled) {
            (End::Slow, false) => self.w,
            (End::Slow, true) => self.w_lost,
            _ => 0.0,
        }
    }
}

/// How one leg ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Ok,
    Client,
    Quota,
    Fast,
    Slow,
    Refused,
}

/// When a hedge's backup goes out and who wins a race of two answers. Seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// `Some(d)`: a delayed hedge (`hedge_delay_s`); `None`: both legs at once.
    pub delay_s: Option<f64>,
    /// P(the primary's answer comes by d | it answers): no backup then. 0 without a delay.
    pub answered_by_delay: f64,
    /// P(the primary answers first | both legs answer in the race): w (MODEL.md §4), or w_d
    /// for a delayed hedge ([`latency::delayed_win_rate`]).
    pub win: f64,
    /// T₀ and T₁: each leg's client timeout ([`Chain::timeout_s`]), which its slow failure
    /// takes, seconds: the primary's, then the backup's.
    pub timeouts_s: [f64; 2],
    /// The time a fast failure (client, quota and other fast errors) takes.
    pub fast_fail_s: f64,
}

impl Timing {
    /// The timing of a hedge of the primary and link `backup` of `chain`: w as given (or, for a
    /// backup the cost cap moved past link 1, from the latency models when w came from them);
    /// with a delay, P(L₀ ≤ d | L₀ ≤ T) and w_d from the latency models (or their defaults).
    pub fn new(chain: &Chain, backup: usize) -> Timing {
        let s = &chain.steady;
        let (t, t1) = (chain.timeout_s(0), chain.timeout_s(backup));
        let (lat0, lat1) = (chain.links[0].latency, chain.links[backup].latency);
        let (answered_by_delay, win) = match chain.policy.hedge_delay_s {
            None => {
                let w = if backup != 1 && s.win_from_latency {
                    latency::primary_win_rate_each(&lat0, &lat1, t, t1)
                } else {
                    s.primary_win_rate
                };
                (0.0, w)
            }
            Some(d) => {
                let by_d = if lat0.cdf(t) > 0.0 {
                    (lat0.cdf(d) / lat0.cdf(t)).min(1.0)
                } else {
                    0.0
                };
                (by_d, latency::delayed_win_rate_each(&lat0, &lat1, d, t, t1))
            }
        };
        Timing {
            delay_s: chain.policy.hedge_delay_s,
            answered_by_delay,
            win,
            timeouts_s: [t, t1],
            fast_fail_s: s.fast_fail_s,
        }
    }

    /// Seconds an attempt of leg `leg` (0: the primary, 1: the backup) ending in `end` takes.
    fn end_s(&self, leg: usize, end: End) -> f64 {
        match end {
            End::Client | End::Quota | End::Fast => self.fast_fail_s,
            End::Slow => self.timeouts_s[leg],
            End::Ok | End::Refused => 0.0,
        }
    }
}

/// A hedge: its two legs, their timing, and the client's rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hedge {
    /// The primary (link 0).
    pub primary: HedgeLeg,
    /// The backup: the first fallback the cost cap allows.
    pub backup: HedgeLeg,
    /// When the backup goes out.
    pub timing: Timing,
    /// Take-first (the loser is cancelled) rather than no-cancel.
    pub cancel: bool,
    /// `client` is in `failover_on`: a bad request goes on to the links after the legs.
    pub client_fails_over: bool,
    /// The links between the legs the route passes over (the backup is a later link than
    /// link 1): by the cost cap, or because they cannot serve the request.
    pub skipped: super::policy::Skipped,
}

/// The legs of a hedge, up to the moment the request answers, fails, or goes on.
#[derive(Debug, Clone, PartialEq)]
pub struct Race {
    /// The legs' expected figures per request (vectors indexed by chain link): USD, attempts,
    /// dead time up to the answer, the failure or the moment the request goes on (seconds),
    /// the share answered by each leg and, in `failed`, the share that fails in the race; in
    /// `cost_cap_hits`, when the cost cap skipped link 1 (the backup is a later link), the
    /// share whose backup is sent or that goes on past the legs. Call-cap hits are the
    /// caller's (the legs are within any cap), as are the cost-cap hits of the links after
    /// the legs when link 1 is the backup.
    pub head: PolicyOutcome,
    /// The shares of requests that go on to the links after the legs, by how they enter them.
    pub tail: Vec<(PlanEntry, f64)>,
}

/// What happens after a path through the legs.
#[derive(Debug, Clone, Copy)]
enum Then {
    Answer(usize),
    Fail,
    Tail(bool),
}

/// Expectations summed path by path.
struct Paths {
    out: PolicyOutcome,
    tail: Vec<(PlanEntry, f64)>,
    index: [usize; 2],
    /// The links before the backup the route passes over (the backup is a later link).
    skipped: super::policy::Skipped,
}

impl Paths {
    /// Leg `leg` made a failed attempt billed `usd`, on a path of probability `m`.
    fn failed(&mut self, leg: usize, m: f64, usd: f64) {
        let i = self.index[leg];
        self.out.failed_attempts[i] += m;
        self.out.failed_cost[i] += m * usd;
        self.out.cost += m * usd;
        self.out.wasted_cost += m * usd;
    }

    /// An answer of `usd`, and a losing answer of `lost` (0 when there is no loser).
    fn answer(&mut self, m: f64, usd: f64, lost: f64) {
        self.out.cost += m * (usd + lost);
        self.out.wasted_cost += m * lost;
    }

    /// The path ends after `attempts` attempts and `dead_s` seconds of dead time; `sent1`:
    /// the backup was sent on it.
    fn end(&mut self, m: f64, attempts: u32, dead_s: f64, sent1: bool, then: Then) {
        if m <= 0.0 {
            return;
        }
        if sent1 || matches!(then, Then::Tail(_)) {
            if self.skipped.cost_cap {
                self.out.cost_cap_hits += m;
            }
            if self.skipped.refused {
                self.out.refused_hits += m;
            }
        }
        self.out.attempts += m * f64::from(attempts);
        self.out.attempts_max = self.out.attempts_max.max(attempts);
        self.out.dead_time_s += m * dead_s;
        match then {
            Then::Answer(i) => self.out.answered_by[i] += m,
            Then::Fail => self.out.failed += m,
            Then::Tail(bad) => {
                let entry = PlanEntry { attempts, bad };
                match self.tail.iter_mut().find(|(e, _)| *e == entry) {
                    Some((_, r)) => *r += m,
                    None => self.tail.push((entry, m)),
                }
            }
        }
    }
}

impl Hedge {
    /// A `pattern` hedge of `primary` and `backup` on `chain` serving `request`: timed by
    /// [`Timing::new`], its loser cancelled under take-first, bad requests going on when
    /// `client` is in `failover_on`, the links between the legs counted as the walk skips them
    /// ([`super::policy::Skipped::among`]).
    pub fn new(
        request: &Request,
        chain: &Chain,
        pattern: Pattern,
        primary: HedgeLeg,
        backup: HedgeLeg,
    ) -> Hedge {
        Hedge {
            timing: Timing::new(chain, backup.index),
            primary,
            backup,
            cancel: pattern == Pattern::HedgedTakeFirst,
            client_fails_over: chain.policy.failover_on.contains(&ErrorClass::Client),
            // every link between the legs is one the walk passes over
            skipped: super::policy::Skipped::among(request, chain, 1..backup.index),
        }
    }

    /// The expected figures of the legs over every joint outcome, for a chain of `links`
    /// links (MODEL.md §4's hedged formulas when no error is a client or quota error and
    /// nothing is delayed or refused).
    pub fn race(&self, links: usize) -> Race {
        let mut paths = Paths {
            out: PolicyOutcome {
                answered_by: vec![0.0; links],
                failed_attempts: vec![0.0; links],
                failed_cost: vec![0.0; links],
                ..PolicyOutcome::default()
            },
            tail: Vec::new(),
            index: [self.primary.index, self.backup.index],
            skipped: self.skipped,
        };
        for (e0, p0) in self.primary.ends() {
            if p0 <= 0.0 {
                continue;
            }
            if e0 == End::Ok {
                // Answered by d: the backup never goes out.
                let early = p0 * self.timing.answered_by_delay;
                paths.answer(early, self.primary.c, 0.0);
                paths.end(early, 1, 0.0, false, Then::Answer(self.primary.index));
                self.racing(p0 - early, e0, &mut paths);
                continue;
            }
            let before = e0 == End::Refused
                || self
                    .timing
                    .delay_s
                    .is_some_and(|d| self.timing.end_s(0, e0) <= d);
            if before {
                self.failover(p0, e0, &mut paths);
            } else {
                self.racing(p0, e0, &mut paths);
            }
        }
        Race {
            head: paths.out,
            tail: paths.tail,
        }
    }

    /// The primary ended in `e0` (a failure, or refused) before the backup went out: the
    /// backup follows as a sequential failover.
    fn failover(&self, m: f64, e0: End, paths: &mut Paths) {
        let (l0, l1, t) = (&self.primary, &self.backup, &self.timing);
        let sent0 = u32::from(e0 != End::Refused);
        let at0 = t.end_s(0, e0);
        if sent0 == 1 {
            paths.failed(0, m, l0.failed_usd(e0, false));
        }
        match e0 {
            End::Quota => paths.end(m, sent0, at0, false, Then::Fail),
            End::Client if self.client_fails_over => {
                // A bad request: the backup is tried once and fails the same way.
                paths.failed(1, m, 0.0);
                paths.end(m, sent0 + 1, at0 + t.fast_fail_s, true, Then::Tail(true));
            }
            End::Client => paths.end(m, sent0, at0, false, Then::Fail),
            _ => {
                for (e1, p1) in l1.ends() {
                    let mm = m * p1;
                    if mm <= 0.0 {
                        continue;
                    }
                    let sent = sent0 + u32::from(e1 != End::Refused);
                    let then = match e1 {
                        End::Ok => {
                            paths.answer(mm, l1.c, 0.0);
                            paths.end(mm, sent, at0, true, Then::Answer(l1.index));
                            continue;
                        }
                        End::Refused => Then::Tail(false),
                        End::Quota => Then::Fail,
                        End::Client if self.client_fails_over => Then::Tail(true),
                        End::Client => Then::Fail,
                        End::Fast | End::Slow => Then::Tail(false),
                    };
                    if e1 != End::Refused {
                        paths.failed(1, mm, l1.failed_usd(e1, false));
                    }
                    paths.end(mm, sent, at0 + t.end_s(1, e1), e1 != End::Refused, then);
                }
            }
        }
    }

    /// The primary is still in flight (answering late, or failing after d) when the backup
    /// goes out: the two race.
    fn racing(&self, m: f64, e0: End, paths: &mut Paths) {
        if m <= 0.0 {
            return;
        }
        let (l0, l1, t) = (&self.primary, &self.backup, &self.timing);
        let s1 = t.delay_s.unwrap_or(0.0);
        let at0 = t.end_s(0, e0);
        for (e1, p1) in l1.ends() {
            let mm = m * p1;
            if mm <= 0.0 {
                continue;
            }
            let sent1 = e1 != End::Refused;
            let sent = 1 + u32::from(sent1);
            let at1 = s1 + t.end_s(1, e1);
            if e0 == End::Client || e1 == End::Client {
                // A bad request: the race ends at the first client error.
                let first = match (e0 == End::Client, e1 == End::Client) {
                    (true, true) => at0.min(at1),
                    (true, false) => at0,
                    _ => at1,
                };
                for (leg, l, e) in [(0, l0, e0), (1, l1, e1)] {
                    if e != End::Refused {
                        let usd = if l.dead { l.failed_usd(e, true) } else { 0.0 };
                        paths.failed(leg, mm, usd);
                    }
                }
                let then = if self.client_fails_over {
                    Then::Tail(true)
                } else {
                    Then::Fail
                };
                paths.end(mm, sent, first, sent1, then);
                continue;
            }
            match (e0 == End::Ok, e1 == End::Ok) {
                (true, true) => {
                    let (first, second) = (mm * t.win, mm * (1.0 - t.win));
                    let lost = |l: &HedgeLeg| if self.cancel { l.x } else { l.c };
                    paths.answer(first, l0.c, lost(l1));
                    paths.end(first, 2, 0.0, true, Then::Answer(l0.index));
                    paths.answer(second, l1.c, lost(l0));
                    paths.end(second, 2, s1, true, Then::Answer(l1.index));
                }
                (true, false) => {
                    if sent1 {
                        paths.failed(1, mm, l1.failed_usd(e1, true));
                    }
                    paths.answer(mm, l0.c, 0.0);
                    paths.end(mm, sent, 0.0, sent1, Then::Answer(l0.index));
                }
                (false, true) => {
                    paths.failed(0, mm, l0.failed_usd(e0, true));
                    paths.answer(mm, l1.c, 0.0);
                    paths.end(mm, sent, s1, true, Then::Answer(l1.index));
                }
                (false, false) => {
                    paths.failed(0, mm, l0.failed_usd(e0, false));
                    if sent1 {
                        paths.failed(1, mm, l1.failed_usd(e1, false));
                    }
                    let at = if sent1 { at0.max(at1) } else { at0 };
                    let then = if e0 == End::Quota || e1 == End::Quota {
                        Then::Fail
                    } else {
                        Then::Tail(false)
                    };
                    paths.end(mm, sent, at, sent1, then);
                }
            }
        }
    }
}
