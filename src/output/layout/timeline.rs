//! The notes of an incident section whose incident is a timeline (issue 14): its outages, and
//! where the analytic figures are not exact (the segment-local session count).

use crate::model::timeline::{OutageFailure, Target, Timeline};
use crate::number::format_seconds;

/// `timeline: anthropic down 0s-3h6m (fast); openai 50% failing 1h-1h34m (gray); …`: each
/// outage with its failure, error rate, latency factor and span.
pub(super) fn outages(t: &Timeline) -> String {
    let parts: Vec<String> = t
        .outages()
        .iter()
        .map(|o| {
            let what = match &o.target {
                Target::Provider(p) | Target::Model(p) => p.as_str(),
            };
            let how = match o.failure {
                OutageFailure::Drill => "drilled (no attempts)".to_string(),
                _ if o.error_rate >= 1.0 => "down".to_string(),
                _ => format!("{}% failing", crate::number::trim(o.error_rate * 100.0, 3)),
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

/// The note on the cold starts and fail-back writes of analytic rows on a timeline with cuts:
/// counted per segment, so low by up to a session per cut and model; with a gray outage also
/// the request figures, off by up to λ·T requests per cut (`None` without cuts).
pub(super) fn segment_local(t: &Timeline) -> Option<String> {
    let cuts = t.cuts();
    (cuts > 0).then(|| {
        let rest = if t
            .outages()
            .iter()
            .any(|o| o.failure == OutageFailure::Gray)
        {
            "; with a gray outage a request's attempts after a hang are priced in the segment it arrived in, where in time they come T s later: off by at most λ·T requests per cut (docs/MODEL.md §6); the other figures are exact"
        } else {
            "; the other figures are exact"
        };
        format!(
            "≈ cold starts and fail-back writes: each session counted in the segment where it starts, so a session straddling one of the {cuts} cuts is missed: low by up to one session per cut and model (measured 0.9 to 1.0 per cut where a model starts answering; docs/MODEL.md §6){rest}"
        )
    })
}
