//! The circuit breaker's state machine (MODEL.md §8), as the incident event simulator
//! ([`crate::sim::incident::events`]) runs one per provider. [`crate::model::policy::Breaker`] is its
//! configuration (threshold, cooldown); this is its state in time.
//!
//! Closed, it counts consecutive provider-side failures and opens at the `threshold`-th. Open,
//! it refuses every attempt for `cooldown_s`; the first attempt after that is the half-open
//! probe (the only one let through): the probe's success closes the circuit, its failure
//! reopens it for another cooldown. Results are recorded when an attempt ENDS; one recorded
//! while open (an attempt sent before it opened) changes nothing, and so does a non-probe
//! result while half-open.

use crate::model::policy::Breaker;

/// Where a circuit is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CircuitState {
    /// Letting attempts through, after this many consecutive provider-side failures.
    Closed {
        /// Consecutive failures recorded since the last success (or since it closed).
        failures: u32,
    },
    /// Refusing attempts until `until` (seconds into the window).
    Open {
        /// When the cooldown ends, seconds.
        until: f64,
    },
    /// The probe is out: every other attempt is refused until its result is recorded.
    HalfOpen,
}

/// One provider's circuit breaker in an outage window of `end_s` seconds.
#[derive(Debug, Clone)]
pub struct Circuit {
    /// Consecutive failures that open the circuit (at least 1).
    threshold: u32,
    /// Seconds the circuit stays open before the half-open probe.
    cooldown_s: f64,
    /// The window's end, seconds: time open after it is not counted in `open_s`.
    end_s: f64,
    state: CircuitState,
    probes: f64,
    open_s: f64,
    opens: f64,
}

impl Circuit {
    /// A closed circuit configured by `config` (a threshold of 0 acts as 1) for a window of
    /// `end_s` seconds.
    pub fn new(config: &Breaker, end_s: f64) -> Circuit {
        Circuit {
            threshold: config.threshold.max(1),
            cooldown_s: config.cooldown_s,
            end_s,
            state: CircuitState::Closed { failures: 0 },
            probes: 0.0,
            open_s: 0.0,
            opens: 0.0,
        }
    }

    /// Where the circuit is now.
    pub fn state(&self) -> CircuitState {
        self.state
    }

    /// Half-open probes let through so far.
    pub fn probes(&self) -> f64 {
        self.probes
    }

    /// Times it opened from closed so far (a failed probe keeping it open does not count): a
    /// provider down throughout opens it once; a partial outage closes and opens it again and
    /// again (it flaps).
    pub fn opens(&self) -> f64 {
        self.opens
    }

    /// Seconds spent open within [0, `end_s`]: `cooldown_s` per opening, clipped to the window.
    pub fn open_s(&self) -> f64 {
        self.open_s
    }

    /// Open at `t` for the cooldown; the time open within the window is booked now.
    fn open(&mut self, t: f64) {
        let until = t + self.cooldown_s;
        self.open_s += (until.min(self.end_s) - t.min(self.end_s)).max(0.0);
        self.state = CircuitState::Open { until };
    }

    /// An attempt on the provider ended at `t`: `ok` when the provider answered (a success, or
    /// a client or quota error: the provider's answer), a failure otherwise; `probe` when it
    /// was the half-open probe. A result recorded while open (an attempt sent before it
    /// opened) changes nothing.
    pub fn record(&mut self, t: f64, probe: bool, ok: bool) {
        match self.state {
            CircuitState::Closed { .. } if ok => {
                self.state = CircuitState::Closed { failures: 0 };
            }
            CircuitState::Closed { failures } if failures + 1 >= self.threshold => {
                self.opens += 1.0;
                self.open(t)
            }
            CircuitState::Closed { failures } => {
                self.state = CircuitState::Closed {
                    failures: failures + 1,
                };
            }
            CircuitState::HalfOpen if probe && ok => {
                self.state = CircuitState::Closed { failures: 0 };
            }
            CircuitState::HalfOpen if probe => self.open(t),
            _ => {}
        }
    }

    /// Whether an attempt at `t` may go through (`Some`), and whether it is the half-open
    /// probe (`Some(true)`); `None`: refused.
    pub fn admit(&mut self, t: f64) -> Option<bool> {
        match self.state {
            CircuitState::Closed { .. } => Some(false),
            CircuitState::Open { until } if t >= until => {
                self.state = CircuitState::HalfOpen;
                self.probes += 1.0;
                Some(true)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Threshold 3, cooldown 60 s, in a 100 s window.
    fn circuit() -> Circuit {
        Circuit::new(
            &Breaker {
                threshold: 3,
                cooldown_s: 60.0,
            },
            100.0,
        )
    }

    fn fail(c: &mut Circuit, t: f64) {
        c.record(t, false, false);
    }

    #[test]
    fn closed_opens_after_threshold_consecutive_failures() {
        let mut c = circuit();
        fail(&mut c, 1.0);
        fail(&mut c, 2.0);
        assert_eq!(c.state(), CircuitState::Closed { failures: 2 });
        assert_eq!(c.admit(2.5), Some(false));
        fail(&mut c, 3.0);
        assert_eq!(c.state(), CircuitState::Open { until: 63.0 });
        assert_eq!(c.admit(10.0), None);
        // 60 s open, all inside the window.
        assert_eq!(c.open_s(), 60.0);
    }

    #[test]
    fn a_success_resets_the_count() {
        let mut c = circuit();
        fail(&mut c, 1.0);
        fail(&mut c, 2.0);
        c.record(3.0, false, true);
        assert_eq!(c.state(), CircuitState::Closed { failures: 0 });
        fail(&mut c, 4.0);
        fail(&mut c, 5.0);
        assert_eq!(c.state(), CircuitState::Closed { failures: 2 });
    }

    #[test]
    fn open_lets_one_probe_through_after_the_cooldown() {
        let mut c = circuit();
        for t in [1.0, 2.0, 3.0] {
            fail(&mut c, t);
        }
        assert_eq!(c.admit(62.9), None);
        assert_eq!(c.probes(), 0.0);
        assert_eq!(c.admit(63.0), Some(true));
        assert_eq!(c.state(), CircuitState::HalfOpen);
        assert_eq!(c.probes(), 1.0);
        // Only the probe: the next attempt is refused until its result is in.
        assert_eq!(c.admit(63.5), None);
        // A late result of an attempt sent before it opened changes nothing.
        c.record(64.0, false, true);
        assert_eq!(c.state(), CircuitState::HalfOpen);
    }

    #[test]
    fn probe_success_closes() {
        let mut c = circuit();
        for t in [1.0, 2.0, 3.0] {
            fail(&mut c, t);
        }
        assert_eq!(c.admit(70.0), Some(true));
        c.record(72.0, true, true);
        assert_eq!(c.state(), CircuitState::Closed { failures: 0 });
        assert_eq!(c.admit(73.0), Some(false));
        // Closed again, three more failures open it a second time: it flaps.
        for t in [74.0, 75.0, 76.0] {
            fail(&mut c, t);
        }
        assert_eq!(c.opens(), 2.0);
    }

    #[test]
    fn probe_failure_reopens_and_open_time_is_clipped_to_the_window() {
        let mut c = circuit();
        for t in [1.0, 2.0, 3.0] {
            fail(&mut c, t);
        }
        assert_eq!(c.admit(70.0), Some(true));
        c.record(80.0, true, false);
        assert_eq!(c.state(), CircuitState::Open { until: 140.0 });
        // 60 s for the first opening, then 80 s .. the window's end at 100 s: 20 s.
        assert_eq!(c.open_s(), 80.0);
        // One opening from closed: the probe's failure keeps it open.
        assert_eq!(c.opens(), 1.0);
        // Failures recorded while open change nothing.
        fail(&mut c, 90.0);
        assert_eq!(c.state(), CircuitState::Open { until: 140.0 });
        assert_eq!(c.opens(), 1.0);
    }

    #[test]
    fn threshold_zero_acts_as_one() {
        let mut c = Circuit::new(
            &Breaker {
                threshold: 0,
                cooldown_s: 5.0,
            },
            100.0,
        );
        fail(&mut c, 1.0);
        assert_eq!(c.state(), CircuitState::Open { until: 6.0 });
    }
}
