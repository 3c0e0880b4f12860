//! An incident timeline (issue 14): several outages on one window, segmented.
//!
//! MODEL.md §6 prices one provider down for the whole window. A [`Timeline`] holds any number
//! of [`Outage`]s over a window of D seconds, each on a provider (every model of it, the failure
//! domain of MODEL.md §1) or on one model, with its own start offset, duration, failure mode
//! (`fast`, `gray`, or a `drill`: the primary's breaker opened by hand), error rate (a partial
//! outage fails that share of requests, drawn per request) and optional latency factor (a
//! slow-but-up provider).
//!
//! [`Timeline::segments`] cuts the window at every outage start and end; inside a segment every
//! provider and model is in one [`LinkState`]. [`Timeline::chain_segments`] gives, per segment,
//! each link's failure probability p_k (0 up, the error rate when failing, 1 in a drill), and
//! [`piecewise`] the analytic figures without a breaker: per segment, with independent per-link
//! failures, a request is answered by link k with probability Π_{j<k} p_j · (1 − p_k), fails
//! with Π_k p_k, and makes Σ_k Π_{j<k} p_j · a_k attempts (a_k = 0 for a drilled link: the open
//! breaker refuses it, no attempt is made); over the window each is λ·len times that, summed
//! over segments.
//!
//! Cache effects (cold starts per link, fail-back writes) follow where each session's requests
//! fall on the segments: [`sessions::placements`] gives that law exactly, and the analytic
//! engine (`model::incident::piecewise`) prices by it.
//!
//! The chain is given as plain [`LinkRef`]s (provider, model id) so this module stands on its
//! own; the engines will map their chain links onto it.

use std::fmt;

pub use super::error::ModelError;

pub mod sessions;

/// What an outage takes down.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutageTarget {
    /// Every model of this provider (e.g. `anthropic`).
    Provider(String),
    /// One model, by its id `provider/model` (e.g. `openai/gpt-6-sol`).
    Model(String),
}

impl OutageTarget {
    /// The provider this target belongs to: the provider itself, or a model id's part before
    /// its first `/` (MODEL.md §10's default).
    pub fn provider(&self) -> &str {
        match self {
            OutageTarget::Provider(p) => p,
            OutageTarget::Model(m) => m.split_once('/').map_or(m.as_str(), |(p, _)| p),
        }
    }

    /// Whether this target takes down `link`.
    pub fn covers(&self, link: &LinkRef) -> bool {
        match self {
            OutageTarget::Provider(p) => *p == link.provider,
            OutageTarget::Model(m) => *m == link.model,
        }
    }

    /// Whether two targets can take down the same model: the same provider, the same model,
    /// or a provider and one of its models.
    fn intersects(&self, other: &OutageTarget) -> bool {
        match (self, other) {
            (OutageTarget::Model(a), OutageTarget::Model(b)) => a == b,
            _ => self.provider() == other.provider(),
        }
    }
}

impl fmt::Display for OutageTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutageTarget::Provider(p) => write!(f, "provider {p:?}"),
            OutageTarget::Model(m) => write!(f, "model {m:?}"),
        }
    }
}

/// How an outage fails requests (`failure = "fast" | "gray" | "drill"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutageFailure {
    /// Errors before inference (5xx, 429, 529): billed 0, `fast_fail_s` each (MODEL.md §3).
    Fast,
    /// Hangs until the client timeout T and bills the input side (MODEL.md §3).
    Gray,
    /// A scheduled drill (the three-down post, step 4): the breaker of the target is opened by
    /// hand, so no attempt is made on it and every request goes to the next link. The target
    /// answers nothing; the error rate is ignored.
    Drill,
}

impl OutageFailure {
    /// The identifier in scenario and history files: `fast`, `gray`, `drill`.
    pub fn as_str(self) -> &'static str {
        match self {
            OutageFailure::Fast => "fast",
            OutageFailure::Gray => "gray",
            OutageFailure::Drill => "drill",
        }
    }

    /// Parse `fast`, `gray` or `drill`.
    pub fn parse(text: &str) -> Option<OutageFailure> {
        match text {
            "fast" => Some(OutageFailure::Fast),
            "gray" => Some(OutageFailure::Gray),
            "drill" => Some(OutageFailure::Drill),
            _ => None,
        }
    }
}

/// One outage on the timeline (`[[incident.outage]]`). Times in seconds from the window's start.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Outage {
    /// What is down.
    pub target: OutageTarget,
    /// Offset of the start from the window's start, seconds (default 0).
    pub start_s: f64,
    /// How long it lasts, seconds; `None`: the rest of the window.
    pub duration_s: Option<f64>,
    /// How it fails.
    pub failure: OutageFailure,
    /// The share of requests that fail, drawn per request, in [0, 1] (default 1.0: down).
    pub error_rate: f64,
    /// A slow-but-up target: its latency is multiplied by this factor (> 0), `None`: unchanged.
    pub latency_factor: Option<f64>,
}

impl Outage {
    /// A full (error rate 1) outage of `target` from `start_s` for `duration_s` (`None`: the
    /// rest of the window), failing `failure`.
    pub fn new(
        target: OutageTarget,
        start_s: f64,
        duration_s: Option<f64>,
        failure: OutageFailure,
    ) -> Outage {
        Outage {
            target,
            start_s,
            duration_s,
            failure,
            error_rate: 1.0,
            latency_factor: None,
        }
    }

    /// The same outage with error rate `rate`.
    pub fn with_error_rate(mut self, rate: f64) -> Outage {
        self.error_rate = rate;
        self
    }

    /// The end offset in a window of `window_s` seconds.
    pub fn end_s(&self, window_s: f64) -> f64 {
        self.duration_s.map_or(window_s, |d| self.start_s + d)
    }
}

/// A validated timeline: a window of D seconds and its outages.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Timeline {
    window_s: f64,
    outages: Vec<Outage>,
}

/// The state of one provider or model inside a segment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LinkState {
    /// Healthy (its steady-state failure rate applies; this module counts it as 0).
    Up,
    /// Failing `error_rate` of requests, fast or gray; `latency_factor` 1 when not given.
    Failing {
        /// `fast` or `gray`.
        failure: OutageFailure,
        /// The share of requests that fail, in [0, 1].
        error_rate: f64,
        /// The latency multiplier of its answers.
        latency_factor: f64,
    },
    /// Drilled: the breaker is open by hand, no attempt is made.
    Drill,
}

impl LinkState {
    /// The probability that an attempt on the link does not produce the answer: 0 up, the
    /// error rate when failing, 1 in a drill.
    pub fn failure_probability(self) -> f64 {
        match self {
            LinkState::Up => 0.0,
            LinkState::Failing { error_rate, .. } => error_rate,
            LinkState::Drill => 1.0,
        }
    }

    /// Whether a request that reaches the link makes an attempt there (not in a drill).
    pub fn attempted(self) -> bool {
        !matches!(self, LinkState::Drill)
    }
}

/// One segment of the window: [start_s, end_s) with the outages active in it.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineSegment {
    /// Start offset, seconds.
    pub start_s: f64,
    /// End offset, seconds (> start).
    pub end_s: f64,
    /// Indices (into [`Timeline::outages`]) of the outages active throughout the segment.
    pub active: Vec<usize>,
}

impl TimelineSegment {
    /// The segment's length, seconds.
    pub fn len_s(&self) -> f64 {
        self.end_s - self.start_s
    }
}

/// A chain link as the timeline sees it: its provider and model id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRef {
    /// The provider (the failure domain).
    pub provider: String,
    /// The model id, `provider/model`.
    pub model: String,
}

impl LinkRef {
    /// A link from a model id `provider/model` (the provider is the part before the first `/`).
    pub fn of(model: &str) -> LinkRef {
        LinkRef {
            provider: model.split_once('/').map_or(model, |(p, _)| p).to_string(),
            model: model.to_string(),
        }
    }
}

/// One segment as a chain sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainSegment {
    /// Start offset, seconds.
    pub start_s: f64,
    /// End offset, seconds.
    pub end_s: f64,
    /// Each link's state, in chain order.
    pub states: Vec<LinkState>,
    /// Each link's failure probability p_k ([`LinkState::failure_probability`]).
    pub p: Vec<f64>,
}

impl ChainSegment {
    /// The segment's length, seconds.
    pub fn len_s(&self) -> f64 {
        self.end_s - self.start_s
    }
}

impl Timeline {
    /// Validate `outages` on a window of `window_s` seconds.
    ///
    /// Errors (the first found, in outage order): a window that is not finite and > 0; a start
    /// or duration that is not finite, a negative start, a duration ≤ 0; an outage starting or
    /// ending outside [0, D]; an error rate outside [0, 1]; a latency factor that is not a
    /// finite number above 0; two outages of one failure domain (one provider, or a model and its provider) that
    /// overlap (touching, one ending where the next starts, is allowed).
    pub fn new(window_s: f64, outages: Vec<Outage>) -> Result<Timeline, ModelError> {
        if !(window_s.is_finite() && window_s > 0.0) {
            return Err(ModelError::Window(window_s));
        }
        for (i, o) in outages.iter().enumerate() {
            if !o.start_s.is_finite() || o.start_s < 0.0 {
                return Err(ModelError::Field {
                    outage: i,
                    field: "start",
                    message: format!("must be a finite offset >= 0s; got {}s", o.start_s),
                });
            }
            if let Some(d) = o.duration_s
                && !(d.is_finite() && d > 0.0)
            {
                return Err(ModelError::Field {
                    outage: i,
                    field: "duration",
                    message: format!(
                        "must be a finite duration > 0 (or absent: the rest of the window); got {d}s"
                    ),
                });
            }
            let end = o.end_s(window_s);
            if o.start_s >= window_s {
                return Err(ModelError::StartsAfterWindow {
                    outage: i,
                    start_s: o.start_s,
                    window_s,
                });
            }
            if end > window_s {
                return Err(ModelError::OutsideWindow {
                    outage: i,
                    field: "duration",
                    start_s: o.start_s,
                    end_s: end,
                    window_s,
                });
            }
            if !(o.error_rate.is_finite() && (0.0..=1.0).contains(&o.error_rate)) {
                return Err(ModelError::ErrorRate {
                    outage: i,
                    value: o.error_rate,
                });
            }
            if let Some(f) = o.latency_factor
                && !(f.is_finite() && f > 0.0)
            {
                return Err(ModelError::Field {
                    outage: i,
                    field: "latency_factor",
                    message: format!("must be a finite number > 0; got {f}"),
                });
            }
        }
        for (j, b) in outages.iter().enumerate() {
            for (i, a) in outages.iter().enumerate().take(j) {
                let (a_end, b_end) = (a.end_s(window_s), b.end_s(window_s));
                if a.target.intersects(&b.target) && a.start_s < b_end && b.start_s < a_end {
                    // Name the one that starts later (file order on a tie) as the culprit.
                    let (first, second) = if b.start_s >= a.start_s {
                        (i, j)
                    } else {
                        (j, i)
                    };
                    let f = &outages[first];
                    return Err(ModelError::Overlap {
                        first,
                        second,
                        target: f.target.to_string(),
                        first_end_s: f.end_s(window_s),
                    });
                }
            }
        }
        Ok(Timeline { window_s, outages })
    }

    /// The old one-provider form (MODEL.md §6): `provider` down for the whole window.
    pub fn whole_window(
        window_s: f64,
        provider: &str,
        failure: OutageFailure,
    ) -> Result<Timeline, ModelError> {
        Timeline::new(
            window_s,
            vec![Outage::new(
                OutageTarget::Provider(provider.to_string()),
                0.0,
                None,
                failure,
            )],
        )
    }

    /// D, seconds.
    pub fn window_s(&self) -> f64 {
        self.window_s
    }

    /// The outages, in the order given.
    pub fn outages(&self) -> &[Outage] {
        &self.outages
    }

    /// The cuts inside the window (segments − 1): where sessions straddle segments and a
    /// request's later attempts may see other states than its arrival's (docs/MODEL.md §6,
    /// "Timelines").
    pub fn cuts(&self) -> usize {
        self.segments().len() - 1
    }

    /// The window cut at every outage start and end: consecutive segments covering [0, D],
    /// each with the outages active in it (a segment with none is all up).
    pub fn segments(&self) -> Vec<TimelineSegment> {
        let mut cuts = vec![0.0, self.window_s];
        for o in &self.outages {
            cuts.push(o.start_s);
            cuts.push(o.end_s(self.window_s));
        }
        cuts.sort_by(f64::total_cmp);
        cuts.dedup();
        cuts.windows(2)
            .map(|w| {
                let (start_s, end_s) = (w[0], w[1]);
                let active = self
                    .outages
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.start_s <= start_s && o.end_s(self.window_s) >= end_s)
                    .map(|(i, _)| i)
                    .collect();
                TimelineSegment {
                    start_s,
                    end_s,
                    active,
                }
            })
            .collect()
    }

    /// The state of `link` in `segment`: the active outage covering it (validation allows at
    /// most one), or up.
    pub fn state_in(&self, segment: &TimelineSegment, link: &LinkRef) -> LinkState {
        segment
            .active
            .iter()
            .map(|&i| &self.outages[i])
            .find(|o| o.target.covers(link))
            .map_or(LinkState::Up, |o| match o.failure {
                OutageFailure::Drill => LinkState::Drill,
                failure => LinkState::Failing {
                    failure,
                    error_rate: o.error_rate,
                    latency_factor: o.latency_factor.unwrap_or(1.0),
                },
            })
    }

    /// Per segment, each link's state and failure probability, for a chain of `links`
    /// (primary first).
    pub fn chain_segments(&self, links: &[LinkRef]) -> Vec<ChainSegment> {
        self.segments()
            .iter()
            .map(|s| {
                let states: Vec<LinkState> = links.iter().map(|l| self.state_in(s, l)).collect();
                ChainSegment {
                    start_s: s.start_s,
                    end_s: s.end_s,
                    p: states.iter().map(|st| st.failure_probability()).collect(),
                    states,
                }
            })
            .collect()
    }
}

/// One request's outcome shares in one segment (sequential, no retries, no breaker).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestShares {
    /// Per link, P(answered by link k) = Π_{j<k} p_j · (1 − p_k).
    pub answered_by: Vec<f64>,
    /// P(every link failed) = Π_k p_k.
    pub failed: f64,
    /// Expected attempts = Σ_k Π_{j<k} p_j · a_k (a_k = 0 on a drilled link).
    pub attempts: f64,
}

/// The per-request shares for failure probabilities `p` and attempt flags `attempted`.
pub fn request_shares(p: &[f64], attempted: &[bool]) -> RequestShares {
    let mut reach = 1.0;
    let mut answered_by = Vec::with_capacity(p.len());
    let mut attempts = 0.0;
    for (k, &pk) in p.iter().enumerate() {
        if attempted.get(k).copied().unwrap_or(true) {
            attempts += reach;
        }
        answered_by.push(reach * (1.0 - pk));
        reach *= pk;
    }
    RequestShares {
        answered_by,
        failed: reach,
        attempts,
    }
}

/// The analytic figures of a window over a timeline, without a breaker (cache effects aside).
/// Counts are expected requests or attempts over the window.
#[derive(Debug, Clone, PartialEq)]
pub struct PiecewiseFigures {
    /// N = λ·D: requests in the window.
    pub requests: f64,
    /// Per link, expected requests it answered: Σ_segments λ·len·Π_{j<k} p_j·(1 − p_k).
    pub answered_by: Vec<f64>,
    /// Expected requests that failed on every link: Σ_segments λ·len·Π_k p_k.
    pub failed: f64,
    /// Expected attempts: Σ_segments λ·len·Σ_k Π_{j<k} p_j·a_k.
    pub attempts: f64,
    /// Expected attempts that failed (attempts − answered requests).
    pub failed_attempts: f64,
    /// Per segment: (start_s, end_s, the per-request shares).
    pub segments: Vec<(f64, f64, RequestShares)>,
}

/// The window's piecewise figures for a chain of `links` at `requests_per_second` (λ) requests
/// per second: each segment contributes λ·len times its [`request_shares`].
pub fn piecewise(
    timeline: &Timeline,
    links: &[LinkRef],
    requests_per_second: f64,
) -> PiecewiseFigures {
    let mut out = PiecewiseFigures {
        requests: requests_per_second * timeline.window_s(),
        answered_by: vec![0.0; links.len()],
        failed: 0.0,
        attempts: 0.0,
        failed_attempts: 0.0,
        segments: Vec::new(),
    };
    for seg in timeline.chain_segments(links) {
        let attempted: Vec<bool> = seg.states.iter().map(|s| s.attempted()).collect();
        let shares = request_shares(&seg.p, &attempted);
        let n = requests_per_second * seg.len_s();
        for (a, s) in out.answered_by.iter_mut().zip(&shares.answered_by) {
            *a += n * s;
        }
        out.failed += n * shares.failed;
        out.attempts += n * shares.attempts;
        out.segments.push((seg.start_s, seg.end_s, shares));
    }
    out.failed_attempts = out.attempts - out.answered_by.iter().sum::<f64>();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: f64 = 3.0 * 3600.0 + 6.0 * 60.0; // 3h6m = 11,160 s

    fn provider(p: &str) -> OutageTarget {
        OutageTarget::Provider(p.into())
    }

    /// September 3, 2026 on one timeline. Facts (the three-down post): Claude's outage lasted
    /// 3h6m and was resolved at 16:16 UTC, so the window is 13:10-16:16 UTC; ChatGPT was down
    /// about 34 minutes. Assumptions: OpenAI from 14:10 (offset 1h) to 14:44; Grok (xAI) from
    /// 14:30 (offset 1h20m) for 1 hour. All fast, error rate 1.
    fn sept3() -> Timeline {
        Timeline::new(
            D,
            vec![
                Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Fast),
                Outage::new(
                    provider("openai"),
                    3600.0,
                    Some(34.0 * 60.0),
                    OutageFailure::Fast,
                ),
                Outage::new(provider("xai"), 4800.0, Some(3600.0), OutageFailure::Fast),
            ],
        )
        .unwrap()
    }

    fn chain(models: &[&str]) -> Vec<LinkRef> {
        models.iter().map(|m| LinkRef::of(m)).collect()
    }

    #[test]
    fn sept3_cuts_into_five_segments_by_hand() {
        // Cuts: 0, 3600 (OpenAI starts), 4800 (xAI starts), 5640 (OpenAI ends), 8400 (xAI
        // ends), 11160.
        let segs = sept3().segments();
        let got: Vec<(f64, f64, Vec<usize>)> = segs
            .iter()
            .map(|s| (s.start_s, s.end_s, s.active.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0.0, 3600.0, vec![0]),
                (3600.0, 4800.0, vec![0, 1]),
                (4800.0, 5640.0, vec![0, 1, 2]),
                (5640.0, 8400.0, vec![0, 2]),
                (8400.0, 11160.0, vec![0]),
            ]
        );
    }

    #[test]
    fn sonnet_to_sol_fails_the_34_minutes_and_grok_saves_all_but_14() {
        let t = sept3();
        let two = piecewise(
            &t,
            &chain(&["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]),
            1.0,
        );
        // 11,160 requests; Sol answers all but the 2,040 of OpenAI's 34 minutes.
        assert_eq!(two.requests, 11_160.0);
        assert_eq!(two.answered_by, vec![0.0, 9_120.0]);
        assert_eq!(two.failed, 2_040.0);
        // every request tries both links: 22,320 attempts, 13,200 of them failed
        assert_eq!(two.attempts, 22_320.0);
        assert_eq!(two.failed_attempts, 13_200.0);

        let three = piecewise(
            &t,
            &chain(&[
                "anthropic/claude-sonnet-5",
                "openai/gpt-6-sol",
                "xai/grok-4",
            ]),
            1.0,
        );
        // Grok answers OpenAI's minutes except the 840 s all three were down (4800..5640).
        assert_eq!(three.answered_by, vec![0.0, 9_120.0, 1_200.0]);
        assert_eq!(three.failed, 840.0);
        // 11,160 × 2 + 2,040 third attempts
        assert_eq!(three.attempts, 24_360.0);
    }

    #[test]
    fn a_partial_primary_splits_its_requests() {
        // Claude's outage was partial: say half its requests fail (assumption), OpenAI full.
        let t = Timeline::new(
            D,
            vec![
                Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Fast)
                    .with_error_rate(0.5),
                Outage::new(
                    provider("openai"),
                    3600.0,
                    Some(2040.0),
                    OutageFailure::Fast,
                ),
            ],
        )
        .unwrap();
        let f = piecewise(
            &t,
            &chain(&["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]),
            1.0,
        );
        // Sonnet answers half of everything: 5,580; Sol the other half outside OpenAI's
        // 2,040 s: 0.5 × 9,120 = 4,560; failed: 0.5 × 2,040 = 1,020.
        assert_eq!(f.answered_by, vec![5_580.0, 4_560.0]);
        assert_eq!(f.failed, 1_020.0);
        // attempts: 11,160 on Sonnet + 5,580 reach Sol
        assert_eq!(f.attempts, 16_740.0);
    }

    #[test]
    fn a_drill_makes_no_attempt_on_the_primary() {
        // The post's drill: 30 minutes, the primary's breaker open by hand, at 0.2 req/s.
        let t = Timeline::new(
            1800.0,
            vec![Outage::new(
                provider("anthropic"),
                0.0,
                None,
                OutageFailure::Drill,
            )],
        )
        .unwrap();
        let f = piecewise(
            &t,
            &chain(&["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]),
            0.2,
        );
        assert_eq!(f.answered_by, vec![0.0, 360.0]);
        assert_eq!(f.attempts, 360.0);
        assert_eq!(f.failed_attempts, 0.0);
    }

    #[test]
    fn a_model_outage_takes_down_that_model_only() {
        let t = Timeline::new(
            100.0,
            vec![Outage::new(
                OutageTarget::Model("openai/gpt-6-sol".into()),
                0.0,
                None,
                OutageFailure::Gray,
            )],
        )
        .unwrap();
        let segs = t.chain_segments(&chain(&["openai/gpt-6-sol", "openai/gpt-6-luna"]));
        assert_eq!(segs.len(), 1);
        assert_eq!(segs[0].p, vec![1.0, 0.0]);
        assert_eq!(
            segs[0].states[0],
            LinkState::Failing {
                failure: OutageFailure::Gray,
                error_rate: 1.0,
                latency_factor: 1.0
            }
        );
    }

    #[test]
    fn bad_timelines_name_the_field() {
        let o = |start, dur| Outage::new(provider("openai"), start, dur, OutageFailure::Fast);
        let e = Timeline::new(100.0, vec![o(90.0, Some(20.0))]).unwrap_err();
        assert_eq!(e.field().as_deref(), Some("outage[0].duration"));
        assert_eq!(
            e.to_string(),
            "outage[0].duration: the outage runs from 90s to 110s, outside the window [0s, 100s]; start and start + duration must lie in the window"
        );
        let e = Timeline::new(100.0, vec![o(100.0, None)]).unwrap_err();
        assert_eq!(e.field().as_deref(), Some("outage[0].start"));
        let e = Timeline::new(100.0, vec![o(0.0, None).with_error_rate(1.5)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "outage[0].error_rate: must be in [0, 1]; got 1.5"
        );
        let e = Timeline::new(100.0, vec![o(0.0, Some(50.0)), o(40.0, Some(10.0))]).unwrap_err();
        assert_eq!(
            e,
            ModelError::Overlap {
                first: 0,
                second: 1,
                target: "provider \"openai\"".into(),
                first_end_s: 50.0
            }
        );
        // a model and its provider overlap too; touching outages are fine
        let m = Outage::new(
            OutageTarget::Model("openai/gpt-6-sol".into()),
            10.0,
            Some(5.0),
            OutageFailure::Fast,
        );
        assert!(Timeline::new(100.0, vec![o(0.0, Some(50.0)), m]).is_err());
        assert!(Timeline::new(100.0, vec![o(0.0, Some(50.0)), o(50.0, None)]).is_ok());
        let e = Timeline::new(100.0, vec![o(-1.0, None)]).unwrap_err();
        assert_eq!(e.field().as_deref(), Some("outage[0].start"));
        assert!(matches!(
            Timeline::new(0.0, vec![]),
            Err(ModelError::Window(_))
        ));
    }

    #[test]
    fn the_one_provider_form_is_one_segment() {
        let t = Timeline::whole_window(D, "anthropic", OutageFailure::Fast).unwrap();
        let f = piecewise(
            &t,
            &chain(&["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]),
            1.0,
        );
        assert_eq!(f.segments.len(), 1);
        assert_eq!(f.answered_by, vec![0.0, 11_160.0]);
        assert_eq!(f.failed, 0.0);
    }
}
