//! Where the closed forms hold and how far they can be off: the incidents they do not price
//! ([`no_closed_form`]: the rows are then simulated) and the bound of a timeline's figures
//! ([`timeline_bound`], MODEL.md §6, "Timelines").

use crate::model::cost::Request;
use crate::model::{Chain, Incident, Pattern};

use super::piecewise;

/// How far the analytic figures of one pattern on a timeline may be off the process in time
/// (MODEL.md §6, "Timelines"). Each request is priced in the segment it arrives in; its
/// attempts after a failure start later (by its dead time) and in time may find the next
/// segment's states: per figure, at most `requests` requests' worth (1 failed request, one
/// attempt per link, one request's dearest USD each). Cache figures are exact expectations over
/// where sessions fall, but where a cache can expire within a session (λ·TTL not ≫ L): then
/// `sessions` per cut and model.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimelineBound {
    /// Expected requests whose attempts after their first reach past a cut: Σ over the
    /// segments but the last of λ × the segment's mean dead time per request (requests).
    pub requests: f64,
    /// Sessions the cache figures may be off by in all: cuts × links where a cache can expire
    /// within a session, else 0 (sessions).
    pub sessions: f64,
}

impl TimelineBound {
    /// Whether the figures are exact (nothing to bound).
    pub fn exact(&self) -> bool {
        self.requests <= 0.0 && self.sessions <= 0.0
    }
}

/// The [`TimelineBound`] of `pattern` on `chain` over `incident`: `None` without a timeline
/// with cuts, or where [`evaluate`](super::evaluate) has no figures.
pub fn timeline_bound(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
) -> Option<TimelineBound> {
    let timeline = incident.timeline.as_ref().filter(|t| t.cuts() > 0)?;
    if pattern.is_hedged() && chain.links.len() < 2 {
        return None;
    }
    let (_, requests) = piecewise::priced(request, chain, incident, timeline, pattern)?;
    let sessions = if piecewise::expiry_negligible(chain, incident) {
        0.0
    } else {
        (timeline.cuts() * chain.links.len()) as f64
    };
    Some(TimelineBound { requests, sessions })
}

/// Why the closed forms do not price `chain`'s incident rows over `incident`, when they don't:
/// the rows are then the incident simulator's, labelled simulated ([`crate::sim::expected`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoClosedForm {
    /// A circuit breaker: its state depends on the order of every request's attempts (MODEL.md
    /// §8).
    Breaker,
    /// Retries where a session's cache can expire between its requests (λ·TTL not ≫ L): a
    /// retried request can end after its session's next request, so a model answers the
    /// session's requests out of their order, which the cache law (MODEL.md §6, "Sparse
    /// traffic") does not follow.
    RetriesInSparseTraffic,
    /// A link with a rate limit (`[capacity]`): the refused share of a fixed one-minute window
    /// is exact (MODEL.md §11), but its refusals fall at each minute's end, together, so which
    /// requests of a session a link answers, and what the next link receives, are not the
    /// independent draws the closed forms price.
    Capacity,
}

impl NoClosedForm {
    /// Why, as the output's notes say it (no full stop).
    pub fn reason(self) -> &'static str {
        match self {
            NoClosedForm::Breaker => "a circuit breaker has no exact closed form",
            NoClosedForm::RetriesInSparseTraffic => {
                "with retries, a session's retried request can end after its next one, which the cache law of sparse traffic does not follow: docs/MODEL.md §6"
            }
            NoClosedForm::Capacity => {
                "a rate-limited link refuses the requests at each minute's end together, which the closed forms' independent draws do not follow: docs/MODEL.md §11"
            }
        }
    }
}

/// Whether `chain`'s incident rows over `incident` have no closed form, and why (`None`: the
/// closed forms of [`evaluate`](super::evaluate) price them).
pub fn no_closed_form(chain: &Chain, incident: &Incident) -> Option<NoClosedForm> {
    if chain.policy.breaker.is_some() {
        Some(NoClosedForm::Breaker)
    } else if chain.links.iter().any(|l| l.capacity.is_some()) {
        Some(NoClosedForm::Capacity)
    } else if chain.policy.has_retries() && !piecewise::expiry_negligible(chain, incident) {
        Some(NoClosedForm::RetriesInSparseTraffic)
    } else {
        None
    }
}
