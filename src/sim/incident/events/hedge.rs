//! The hedged patterns in the event simulator (split from [`super`] for length): the two legs,
//! a delayed backup, the race and what follows it (the process is described in [`super`]).

use crate::model::Pattern;
use crate::model::policy::ErrorClass;
use crate::model::timeline::LinkState;
use crate::sim::incident::circuit::Circuit;
use crate::sim::incident::fast::IncidentLink;
use crate::sim::rng::{SimRng, uniform};
use crate::sim::steady::policy::AttemptResult;

use super::{Cache, Flight, Phase, Run, STEP, Sched, Window, admit, answers, record};

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
    fn leg(
        &self,
        pos: usize,
        t: f64,
        breakers: &mut [Circuit],
        sched: &mut Sched,
        run: &mut Run,
        rng: &mut SimRng,
    ) -> LegEnd {
        let l = &self.links[pos];
        let state = self.state(pos, t);
        if state == Some(LinkState::Drill) {
            return LegEnd::Refused;
        }
        let Some(probe) = admit(breakers, l, t) else {
            return LegEnd::Refused;
        };
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
        let outcome = match self.outage_hit(l.role.index, state, &mut None, run, rng) {
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
            None => self.sim_for(state).draw(l.role.index, &l.warm, rng),
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
        if self.links[leg].slot != 0 {
            self.answered_elsewhere(f, run);
        }
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
    pub(super) fn hedge(
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
        let a0 = self.leg(0, t, breakers, sched, run, rng);
        if let LegEnd::Ok(_) = a0 {
            let nl = self.links.len();
            self.primary_answered(&self.links[0], &mut caches[f.session * nl], t, run);
        }
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
    pub(super) fn backup(
        &self,
        r: usize,
        t: f64,
        f: &mut Flight,
        breakers: &mut [Circuit],
        sched: &mut Sched,
        run: &mut Run,
        rng: &mut SimRng,
    ) {
        let a1 = self.leg(1, t, breakers, sched, run, rng);
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
}
