//! An incident timeline as the event simulator ([`super::events`]) reads it in time (issue 14):
//! each window link's state at a request's time t, the runs in which the primary's model
//! answers nothing (where its cache expires) and the runs of its outages (where fail-back
//! writes come from).
//!
//! [`crate::model::timeline::Timeline::chain_segments`] cuts the window; this looks a time up in
//! those segments (a binary search over their starts). A link is in one
//! [`LinkState`] per segment: up (its steady failure rate), failing (the outage's error rate,
//! drawn per request, with the outage's failure class; a latency factor for a slow provider),
//! or drilled (the breaker opened by hand: no attempt).

use crate::model::timeline::{LinkRef, LinkState, Timeline};

/// A timeline over a window's links, looked up by time.
#[derive(Debug, Clone)]
pub(super) struct Clock {
    /// The segments' starts, ascending (the first is 0).
    starts: Vec<f64>,
    /// Per segment, each window link's state (in the window's link order).
    states: Vec<Vec<LinkState>>,
    /// The maximal runs [start, end) of consecutive segments in which every link of the
    /// primary's model has failure probability 1 (down at error rate 1, or drilled).
    runs: Vec<(f64, f64)>,
    /// The maximal runs [start, end) of consecutive segments in which every link of the
    /// primary's model is in an outage (failing at any rate, or drilled): the runs fail-back
    /// writes are counted over (MODEL.md §6, "Fail-back writes").
    outages: Vec<(f64, f64)>,
    /// The latency factors other than 1 the outages use (each gets a slowed draw).
    factors: Vec<f64>,
}

impl Clock {
    /// `timeline` over the window links `links` (chain order, the allowed links); `primary[k]`:
    /// whether link k is the primary's model.
    pub(super) fn new(timeline: &Timeline, links: &[LinkRef], primary: &[bool]) -> Clock {
        let segs = timeline.chain_segments(links);
        let mut runs: Vec<(f64, f64)> = Vec::new();
        let mut outages: Vec<(f64, f64)> = Vec::new();
        let mut factors: Vec<f64> = Vec::new();
        for s in &segs {
            let out = s
                .states
                .iter()
                .zip(primary)
                .filter(|(_, is)| **is)
                .all(|(st, _)| *st != LinkState::Up);
            if out {
                match outages.last_mut() {
                    Some(r) if r.1 == s.start_s => r.1 = s.end_s,
                    _ => outages.push((s.start_s, s.end_s)),
                }
            }
            let silent =
                s.p.iter()
                    .zip(primary)
                    .filter(|(_, is)| **is)
                    .all(|(p, _)| *p >= 1.0);
            if silent {
                match runs.last_mut() {
                    Some(r) if r.1 == s.start_s => r.1 = s.end_s,
                    _ => runs.push((s.start_s, s.end_s)),
                }
            }
            for st in &s.states {
                if let LinkState::Failing { latency_factor, .. } = *st
                    && latency_factor != 1.0
                    && !factors.contains(&latency_factor)
                {
                    factors.push(latency_factor);
                }
            }
        }
        Clock {
            starts: segs.iter().map(|s| s.start_s).collect(),
            states: segs.into_iter().map(|s| s.states).collect(),
            runs,
            outages,
            factors,
        }
    }

    /// The state of window link `pos` at time `t` (seconds from the window's start; a time
    /// at or past the end reads the last segment).
    pub(super) fn state(&self, pos: usize, t: f64) -> LinkState {
        let seg = self.starts.partition_point(|&s| s <= t).saturating_sub(1);
        self.states[seg][pos]
    }

    /// The run of the primary's silence containing `t`, if any.
    pub(super) fn run_at(&self, t: f64) -> Option<(f64, f64)> {
        self.runs.iter().copied().find(|&(a, b)| a <= t && t < b)
    }

    /// The index of the outage run of the primary containing `t` if it is longer than
    /// `ttl_s` (the runs after which a session that failed over, and was not answered by the
    /// primary's model in the run, rewrites the primary's cache).
    pub(super) fn long_outage_at(&self, t: f64, ttl_s: f64) -> Option<usize> {
        self.outages
            .iter()
            .position(|&(a, b)| a <= t && t < b)
            .filter(|&i| self.outages[i].1 - self.outages[i].0 > ttl_s)
    }

    /// How many outage runs of the primary there are: [`Clock::long_outage_at`]'s indices are
    /// below it.
    pub(super) fn outage_runs(&self) -> usize {
        self.outages.len()
    }

    /// Whether a run of the primary's silence lies between `from` and `to` (overlaps the open
    /// interval): a session's cache on the primary that expired across it is a fail-back
    /// write, not a cold start.
    pub(super) fn crosses_run(&self, from: f64, to: f64) -> bool {
        self.runs.iter().any(|&(a, b)| a < to && b > from)
    }

    /// The latency factors (other than 1) in use, in first-use order.
    pub(super) fn factors(&self) -> &[f64] {
        &self.factors
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timeline::{Outage, OutageFailure, OutageTarget};

    #[test]
    fn states_follow_the_cuts_and_runs_join_segments() {
        // Anthropic down [0, 100) then at half [100, 200); OpenAI drilled [50, 150), slow x3
        // never. Sonnet → Sol.
        let p = |x: &str| OutageTarget::Provider(x.into());
        let t = Timeline::new(
            300.0,
            vec![
                Outage::new(p("anthropic"), 0.0, Some(100.0), OutageFailure::Fast),
                Outage::new(p("anthropic"), 100.0, Some(100.0), OutageFailure::Gray)
                    .with_error_rate(0.5),
                Outage::new(p("openai"), 50.0, Some(100.0), OutageFailure::Drill),
            ],
        )
        .unwrap();
        let links = [
            LinkRef::of("anthropic/claude-sonnet-5"),
            LinkRef::of("openai/gpt-6-sol"),
        ];
        let c = Clock::new(&t, &links, &[true, false]);
        assert_eq!(c.state(1, 49.9), LinkState::Up);
        assert_eq!(c.state(1, 50.0), LinkState::Drill);
        assert_eq!(c.state(0, 99.0).failure_probability(), 1.0);
        assert_eq!(c.state(0, 100.0).failure_probability(), 0.5);
        assert_eq!(c.state(0, 250.0), LinkState::Up);
        // [0, 50) and [50, 100) join into one silent run; the partial outage is not one,
        // but it is part of the outage run
        assert_eq!(c.runs, vec![(0.0, 100.0)]);
        assert_eq!(c.outages, vec![(0.0, 200.0)]);
        assert_eq!(c.long_outage_at(150.0, 150.0), Some(0));
        assert_eq!(c.long_outage_at(150.0, 200.0), None);
        assert_eq!(c.long_outage_at(200.0, 10.0), None);
        assert_eq!(c.run_at(99.0), Some((0.0, 100.0)));
        assert_eq!(c.run_at(100.0), None);
        assert!(c.crosses_run(-1.0, 120.0));
        assert!(!c.crosses_run(100.0, 300.0));
        assert!(c.factors().is_empty());
    }
}
