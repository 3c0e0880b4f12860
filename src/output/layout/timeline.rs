//! The notes of an incident section whose incident is a timeline (issue 14): its outages, and
//! where the analytic figures are not exact and by how much.

use crate::model::incident;
use crate::model::timeline::{OutageFailure, OutageTarget, Timeline};
use crate::model::{Chain, Incident, Pattern, Request};
use crate::number::format_seconds;

/// `timeline: anthropic down 0s-3h6m (fast); openai 50% failing 1h-1h34m (gray); …`: each
/// outage with its failure, error rate, latency factor and span.
pub(super) fn outages(t: &Timeline) -> String {
    let parts: Vec<String> = t
        .outages()
        .iter()
        .map(|o| {
            let what = match &o.target {
                OutageTarget::Provider(p) | OutageTarget::Model(p) => p.as_str(),
            };
            let how = match o.failure {
                OutageFailure::Drill => "drilled (no attempts)".to_string(),
                _ if o.error_rate >= 1.0 => "down".to_string(),
                _ => format!(
                    "{} failing",
                    crate::number::percent(o.error_rate, crate::number::Digits::AtMost(3), false)
                ),
            };
            let slow = o
                .latency_factor
                .map(|f| format!(", latency ×{}", crate::number::trim(f, 3)))
                .unwrap_or_default();
            let failure = match o.failure {
                OutageFailure::Drill => String::new(),
                f => format!(" ({})", f.as_str()),
            };
            format!(
                "{what} {how} {}-{}{failure}{slow}",
                format_seconds(o.start_s),
                format_seconds(o.end_s(t.window_s()))
            )
        })
        .collect();
    format!("timeline: {}", parts.join("; "))
}

/// The note on the analytic rows of `chain` over `incident` on a timeline with cuts (`None`
/// without cuts, or where every figure is exact): each request is priced in the segment it
/// arrives in, its later attempts may cross a cut (at most the largest
/// [`incident::TimelineBound::requests`] of the chain's patterns), cold starts and fail-back
/// writes included; beyond that the cache figures are exact but where a cache can expire
/// within a session (docs/MODEL.md §6, "Timelines").
pub(super) fn approximation(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
) -> Option<String> {
    let cuts = incident.timeline.as_ref()?.cuts();
    let bounds: Vec<incident::TimelineBound> = Pattern::ALL
        .iter()
        .filter_map(|&p| incident::timeline_bound(request, chain, incident, p))
        .collect();
    let requests = bounds.iter().map(|b| b.requests).fold(0.0, f64::max);
    let sessions = bounds.iter().map(|b| b.sessions).fold(0.0, f64::max);
    if requests <= 0.0 && sessions <= 0.0 {
        return None;
    }
    let cache = if sessions > 0.0 {
        "; cold starts and fail-back writes within that bound (one per such request and model), and further off by up to one session per cut and model, since a cache can expire within a session here (λ·TTL not ≫ L)"
    } else {
        "; cold starts and fail-back writes within that bound (one per such request and model), otherwise exact over where the sessions fall (they straddle the cuts as the arrivals place them)"
    };
    Some(format!(
        "≈ each request is priced in the segment it arrives in, but its attempts after a failure start later (its dead time) and may find the next segment's states: every figure off by at most {} requests' worth over the {cuts} cuts (λ × the mean dead time before each cut, docs/MODEL.md §6){cache}",
        crate::number::trim(requests, 2)
    ))
}
