//! The hedged patterns in the event simulator (split from [`super`] for length): the two legs,
//! a delayed backup, the race and what follows it (the process is described in [`super`]).

use crate::model::Pattern;
use crate::model::policy::ErrorClass;
use crate::model::timeline::LinkState;
use crate::sim::incident::fast::IncidentLink;
use crate::sim::rng::uniform;
use crate::sim::steady::policy::AttemptResult;

use super::{Failed, Flight, Live, Phase, Run, STEP, Sched, Window, admit, answers, record};

/// How one hedge leg ends.
#[derive(Debug, Clone, Copy)]
pub(super) enum LegEnd {
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

    /// What a failed leg bills when the race is settled first (`settled`: its `lost`) or not
    /// (its `usd`); 0 for a leg that answered or was not sent.
    fn billed(self, settled: bool) -> f64 {
        match self {
            LegEnd::Fail { usd, lost, .. } => {
                if settled {
                    lost
                } else {
                    usd
                }
            }
            _ => 0.0,
        }
    }

    /// What a leg on the provider that is down bills when a client error settles the race
    /// (its `lost`); 0 for any other leg.
    fn dead_lost(self) -> f64 {
        match self {
            LegEnd::Fail {
                dead: true, lost, ..
            } => lost,
            _ => 0.0,
        }
    }

    /// When a failed leg sent at `at` ends, seconds; 0 for any other leg.
    fn end(self, at: f64) -> f64 {
        match self {
            LegEnd::Fail { secs, .. } => at + secs,
            _ => 0.0,
        }
    }

    /// Whether the leg failed with a quota error (which stops the request).
    fn is_quota(self) -> bool {
        matches!(
            self,
            LegEnd::Fail {
                class: ErrorClass::Quota,
                ..
            }
        )
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

impl Window<'_> {
    /// One hedge leg on `l`, sent at `t`: a dead one only if the breaker admits it (its
    /// failure is recorded when it would end, even when a take-first hedge cancels it
    /// earlier); a live one drawn warm.
    fn leg(&self, pos: usize, t: f64, live: &mut Live) -> LegEnd {
        let l = &self.links[pos];
        let state = self.state(pos, t);
        if state == Some(LinkState::Drill) {
            return LegEnd::Refused;
        }
        let Some(probe) = admit(&mut live.breakers, l, t) else {
            return LegEnd::Refused;
        };
        if let Some(Failed { class, secs, .. }) = self.over_quota(l, t, probe, live) {
            return LegEnd::Fail {
                class,
                usd: 0.0,
                lost: 0.0,
                secs,
                dead: false,
            };
        }
        let (breakers, sched, run) = (&mut live.breakers, &mut live.sched, &mut live.run);
        if l.role.dead {
            run.dead_attempts += 1.0;
            record(
                breakers,
                sched,
                l,
                t + self.dead_s[l.role.index],
                probe,
                false,
            );
            let cancel = self.pattern == Pattern::HedgedTakeFirst;
            return LegEnd::Fail {
                class: self.dead_class,
                usd: l.dead_cost,
                lost: if cancel { l.dead_lost } else { l.dead_cost },
                secs: self.dead_s[l.role.index],
                dead: true,
            };
        }
        // A leg is one attempt: its own draw.
        let outcome = match self.outage_hit(l.role.index, state, &mut None, run, live.rng) {
            Some(failure) => {
                let a = self.outage_failure(l.role.index, failure, &l.warm);
                if let AttemptResult::Fail(class, usd, secs) = a {
                    record(breakers, sched, l, t + secs, probe, false);
                    let cancel = self.pattern == Pattern::HedgedTakeFirst;
                    let lost = if cancel && usd > 0.0 {
                        l.warm.cancel
                    } else {
                        usd
                    };
                    return LegEnd::Fail {
                        class,
                        usd,
                        lost,
                        secs,
                        dead: true,
                    };
                }
                a
            }
            None => self.sim_for(state).draw(l.role.index, &l.warm, live.rng),
        };
        match outcome {
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
        self.answered_in_run(f, self.links[leg].slot != 0, run);
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
    pub(super) fn hedge(&self, r: usize, t: f64, f: &mut Flight, live: &mut Live) {
        let a0 = self.leg(0, t, live);
        if let LegEnd::Ok(_) = a0 {
            let nl = self.links.len();
            let cache = &mut live.caches[f.session * nl];
            self.primary_answered(&self.links[0], cache, (f.index, t), &mut live.run);
        }
        f.start = t;
        f.leg0 = Some(a0);
        f.n = a0.sent();
        let delay = self.sim.policy.hedge_delay_s;
        let run = &mut live.run;
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
                        live.sched.push(t + secs, STEP, r as u32);
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
            live.sched.push(t + s1, STEP, r as u32);
        } else {
            self.backup(r, t, f, live);
        }
    }

    /// A hedge's backup going out at `t`, and the outcome of the legs.
    pub(super) fn backup(&self, r: usize, t: f64, f: &mut Flight, live: &mut Live) {
        let a1 = self.leg(1, t, live);
        self.reach(1, f, &mut live.run);
        f.n += a1.sent();
        if !f.racing {
            return self.backup_after_failure(r, t, a1, f, live);
        }
        // In a race the backup went out at d (a delayed hedge) or with the primary.
        let s1 = self.sim.policy.hedge_delay_s.unwrap_or(0.0);
        let a0 = f.leg0.unwrap_or(LegEnd::Refused);
        let (c0, c1) = (a0.client_at(0.0), a1.client_at(s1));
        if c0.is_some() || c1.is_some() {
            return self.bad_race(r, (a0, a1), c0, c1, f, live);
        }
        self.settle_race(r, s1, (a0, a1), f, live);
    }

    /// A backup `a1` sent as a failover (the primary failed before the delay, or was refused):
    /// the primary's failure is billed and timed already.
    fn backup_after_failure(&self, r: usize, t: f64, a1: LegEnd, f: &mut Flight, live: &mut Live) {
        let fails_over = self.sim.policy.failover_on.contains(&ErrorClass::Client);
        let (run, sched) = (&mut live.run, &mut live.sched);
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
    }

    /// A race with a client error on a leg (`c0`, `c1`: when each leg's came back, seconds
    /// after the arrival): a bad request. A live leg returns the same client error (billed 0);
    /// a dead one fails as the outage makes it fail, settled by the first client error.
    fn bad_race(
        &self,
        r: usize,
        (a0, a1): (LegEnd, LegEnd),
        c0: Option<f64>,
        c1: Option<f64>,
        f: &mut Flight,
        live: &mut Live,
    ) {
        let usd = a0.dead_lost() + a1.dead_lost();
        live.run.base.window += usd;
        live.run.base.wasted += usd;
        f.dead_s = c0.unwrap_or(f64::INFINITY).min(c1.unwrap_or(f64::INFINITY));
        if self.sim.policy.failover_on.contains(&ErrorClass::Client) {
            self.after_legs(r, f.start + f.dead_s, true, f, &mut live.sched);
        } else {
            self.fail(f, &mut live.run);
        }
    }

    /// The race of legs `a0` (sent at the arrival) and `a1` (sent `s1` seconds after) with no
    /// client error: the first answer wins, the other leg billed as cancelled or in full; when
    /// both fail, the request stops (quota) or goes on to the links after the legs.
    fn settle_race(
        &self,
        r: usize,
        s1: f64,
        (a0, a1): (LegEnd, LegEnd),
        f: &mut Flight,
        live: &mut Live,
    ) {
        let run = &mut live.run;
        match (a0, a1) {
            (LegEnd::Ok(ln0), LegEnd::Ok(ln1)) => {
                let primary_wins = match self.sim.policy.hedge_delay_s {
                    Some(_) => ln0.exp() <= s1 + ln1.exp(),
                    None if self.sim.win_by_latency() => ln0 <= ln1,
                    None => uniform(live.rng) < self.sim.win_rate(),
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
            (LegEnd::Ok(_), other) => self.hedge_answered(0, other.billed(true), 0.0, f, run),
            (other, LegEnd::Ok(_)) => self.hedge_answered(1, other.billed(true), s1, f, run),
            (a0, a1) => {
                let usd = a0.billed(false) + a1.billed(false);
                run.base.window += usd;
                run.base.wasted += usd;
                f.dead_s = a0.end(0.0).max(a1.end(s1));
                if a0.is_quota() || a1.is_quota() {
                    self.fail(f, run);
                } else {
                    self.after_legs(r, f.start + f.dead_s, false, f, &mut live.sched);
                }
            }
        }
    }
}
