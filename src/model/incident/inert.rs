//! When a circuit breaker cannot change what an incident window bills or fails
//! (docs/MODEL.md §8, "An inert breaker").
//!
//! A breaker acts only by refusing attempts, and a refused attempt skips its link as a failed
//! one fails over. When every attempt it could refuse would have failed fast and billed 0
//! anyway, and nothing else in the window can fail, the refusal changes no request's route or
//! bill: only when its answer comes (earlier, by the fast failures and backoff it skips). So
//! the window's bill and failed requests are the breaker-free chain's, which the analytic
//! engine prices exactly, and the breaker's own figures (attempts on the dead provider,
//! probes, open time, dead time) are all it changes. The one way an earlier answer can move
//! the bill is a session's cache expiring between two answers on a model (a gap near the
//! cache TTL): [`InertBreaker::flip_probability`] bounds that, and a window where it is not
//! negligible is not inert.
//!
//! The conditions, each needed (`sim::expected`'s tests compare both engines on random
//! chains and policies that meet them):
//!
//! - every link is, for the whole window, either down on a fast outage at error rate 1
//!   (`fast`: a server error, billed 0, taking `fast_fail_s`), drilled, or up and never
//!   failing (steady failure rate 0 and no timeout trips), so no live provider's breaker sees
//!   a failure and no outage ends inside the window;
//! - server errors fail over (`failover_on`), as a refused attempt always does;
//! - no per-request call cap (`max_attempts`: a refused attempt is no attempt, a failed one
//!   counts);
//! - a fast failure ends before every dead link's timeout (`fast_fail_s` < T).

use super::{Chain, FailureMode, Incident, cache_ttl_s};
use crate::model::policy::ErrorClass;
use crate::model::timeline::{LinkRef, LinkState, OutageFailure};

/// The largest chance, per window, that the breaker moves one cache expiry
/// ([`InertBreaker::flip_probability`]) for a window to count as inert.
pub const MAX_FLIP_PROBABILITY: f64 = 1e-12;

/// A breaker that changes no bill and no failure in a window ([`inert_breaker`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InertBreaker {
    /// The most a request's answer can come earlier with the breaker than without, seconds:
    /// per dead link, its fast failures (`(1 + retries) · fast_fail_s`) and the backoff before
    /// each retry (at most `cap_s`).
    pub shift_s: f64,
    /// An upper bound on the chance that, in one window, some gap between two of a session's
    /// answers lies within `shift_s` of a model's cache TTL (so that the earlier answer could
    /// find the cache warm where it would have expired, or the reverse): N · (1 − (TTL −
    /// shift)/D)^N for N requests placed uniformly on [0, D], with the shortest TTL of the
    /// chain's caching models. At most [`MAX_FLIP_PROBABILITY`].
    pub flip_probability: f64,
}

/// Whether `chain`'s circuit breaker is inert over `incident` (the module doc's conditions):
/// `Some` with the bound on what it could still move, `None` when the chain has no breaker or
/// a condition fails (its figures are then the incident simulator's, `crate::sim::expected`).
/// `incident` is the chain's own ([`Incident::for_chain`]).
pub fn inert_breaker(chain: &Chain, incident: &Incident) -> Option<InertBreaker> {
    chain.policy.breaker?;
    let policy = &chain.policy;
    if policy.max_attempts.is_some() || !policy.failover_on.contains(&ErrorClass::ServerError) {
        return None;
    }
    let states = window_states(chain, incident)?;
    let fast_s = chain.steady.fast_fail_s;
    let retries = f64::from(policy.retries_for(ErrorClass::ServerError));
    let mut shift_s = 0.0;
    for (i, (link, state)) in chain.links.iter().zip(&states).enumerate() {
        match state {
            LinkState::Up => {
                if link.failure_rate != 0.0 || link.trip_rate != 0.0 {
                    return None;
                }
            }
            LinkState::Failing {
                failure: OutageFailure::Fast,
                error_rate,
                ..
            } if *error_rate == 1.0 => {
                if fast_s >= chain.timeout_s(i) {
                    return None;
                }
                shift_s += (1.0 + retries) * fast_s + retries * policy.backoff.cap_s;
            }
            LinkState::Drill => {}
            LinkState::Failing { .. } => return None,
        }
    }
    let n = incident.requests() as f64;
    let ttl = chain
        .links
        .iter()
        .map(|l| cache_ttl_s(&l.price))
        .fold(f64::INFINITY, f64::min);
    let flip_probability = if ttl.is_infinite() || n < 2.0 {
        0.0
    } else if ttl <= shift_s || incident.duration_s <= 0.0 {
        1.0
    } else {
        let share = ((ttl - shift_s) / incident.duration_s).min(1.0);
        (n * (n * (-share).ln_1p()).exp()).min(1.0)
    };
    (flip_probability <= MAX_FLIP_PROBABILITY).then_some(InertBreaker {
        shift_s,
        flip_probability,
    })
}

/// Each link's state, the same for the whole window; `None` when some link's state changes
/// inside it (an outage starting or ending there).
fn window_states(chain: &Chain, incident: &Incident) -> Option<Vec<LinkState>> {
    let Some(timeline) = &incident.timeline else {
        // the shorthand: the primary's provider down for the whole window
        let down = chain.links[0].price.provider.as_str();
        if incident.failure != FailureMode::Fast {
            return None;
        }
        return Some(
            chain
                .links
                .iter()
                .map(|l| {
                    if l.price.provider == down {
                        LinkState::Failing {
                            failure: OutageFailure::Fast,
                            error_rate: 1.0,
                            latency_factor: 1.0,
                        }
                    } else {
                        LinkState::Up
                    }
                })
                .collect(),
        );
    };
    let refs: Vec<LinkRef> = chain
        .prices()
        .map(|p| LinkRef {
            provider: p.provider.clone(),
            model: p.id.clone(),
        })
        .collect();
    let segments = timeline.chain_segments(&refs);
    let first = segments.first()?;
    segments
        .iter()
        .all(|s| s.states == first.states)
        .then(|| first.states.clone())
}
