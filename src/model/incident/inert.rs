//! When a circuit breaker cannot change what an incident window bills or fails
//! (docs/MODEL.md §8, "An inert breaker", which proves it).
//!
//! A breaker acts only by refusing attempts, and a refused attempt skips its link as a failed
//! one fails over. Each breaker has a scope, the links whose attempts ask it: here one breaker
//! per provider (every link of the chain on that provider, fallbacks included;
//! `sim::incident::events` keys them so). The rule, each condition needed
//! (`sim::expected`'s tests compare the engines on random chains and policies):
//!
//! - the policy: server errors fail over (`failover_on`), as a refused attempt always does;
//!   no per-request call cap (`max_attempts`: a refused attempt is no attempt, a failed one
//!   counts);
//! - every link keeps one state for the whole window (no outage starts or ends inside it);
//! - every link that can receive an attempt ([`reachable`]) is *dead* (a fast outage at
//!   error rate 1: a server error, billed 0, taking `fast_fail_s`, below the link's
//!   timeout), *drilled* (no attempt; the breaker is not asked), or *quiet* (up, steady
//!   failure rate 0, no timeout trips, no rate limit: a `[capacity]` quota's 429s would open
//!   its provider's breaker, which then refuses attempts the quota admits);
//! - no breaker's scope holds both a dead and a quiet link that can receive an attempt: the
//!   dead one's failures would open it and it would refuse the quiet one, which answers
//!   (Sonnet 5 down, Haiku 4.5 up, one Anthropic breaker: every request fails);
//! - the answers it brings forward cannot move a session's cache expiry
//!   ([`InertBreaker::flip_probability`] at most [`MAX_FLIP_PROBABILITY`]).
//!
//! Then every breaker either never sees a failure (it never opens) or refuses only attempts
//! that would have failed fast and billed 0, and the window's bill and failed requests are
//! the breaker-free chain's, which the analytic engine prices.

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
    /// per dead link that can receive an attempt, its fast failures (`(1 + retries) ·
    /// fast_fail_s`) and the backoff before each retry (at most `cap_s`).
    pub shift_s: f64,
    /// An upper bound on the chance that, in one window, some gap between two of a session's
    /// answers lies within `shift_s` of a model's cache TTL (so that the earlier answer could
    /// find the cache warm where it would have expired, or the reverse): N · (1 − (TTL −
    /// shift)/D)^N for N requests placed uniformly on [0, D], with the shortest TTL of the
    /// chain's caching models. At most [`MAX_FLIP_PROBABILITY`].
    pub flip_probability: f64,
}

/// How a link stands for the whole window, as its breaker sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stand {
    /// Down on a fast outage at error rate 1: every attempt a server error, billed 0.
    Dead,
    /// Drilled: no attempt, its breaker not asked.
    Drilled,
    /// Up and never failing: every attempt answers.
    Quiet,
    /// Anything else (gray, partial, slow, failing at its steady rate, tripping).
    Other,
}

/// Whether `chain`'s circuit breakers are inert over `incident` (the module doc's
/// conditions): `Some` with the bound on what they could still move, `None` when the chain
/// has no breaker or a condition fails (its figures are then the incident simulator's,
/// `crate::sim::expected`). `incident` is the chain's own ([`Incident::for_chain`]).
pub fn inert_breaker(chain: &Chain, incident: &Incident) -> Option<InertBreaker> {
    chain.policy.breaker?;
    let policy = &chain.policy;
    if policy.max_attempts.is_some() || !policy.failover_on.contains(&ErrorClass::ServerError) {
        return None;
    }
    let states = window_states(chain, incident)?;
    let stands: Vec<Stand> = chain
        .links
        .iter()
        .zip(&states)
        .map(|(link, state)| match state {
            // a rate limit refuses what is over it (a 429 the breaker counts): never quiet
            LinkState::Up
                if link.failure_rate == 0.0 && link.trip_rate == 0.0 && link.capacity.is_none() =>
            {
                Stand::Quiet
            }
            LinkState::Failing {
                failure: OutageFailure::Fast,
                error_rate,
                ..
            } if *error_rate == 1.0 => Stand::Dead,
            LinkState::Drill => Stand::Drilled,
            _ => Stand::Other,
        })
        .collect();
    let reached = reachable(
        &stands,
        policy.max_multiplier.is_some() || chain.passes_over_refusals(),
    );
    let fast_s = chain.steady.fast_fail_s;
    let retries = f64::from(policy.retries_for(ErrorClass::ServerError));
    let mut shift_s = 0.0;
    for (i, stand) in stands.iter().enumerate().filter(|(i, _)| reached[*i]) {
        match stand {
            Stand::Other => return None,
            Stand::Dead => {
                if fast_s >= chain.timeout_s(i) {
                    return None;
                }
                shift_s += (1.0 + retries) * fast_s + retries * policy.backoff.cap_s;
            }
            Stand::Drilled | Stand::Quiet => {}
        }
    }
    // one breaker per provider: its reachable links all dead, or all quiet (drills aside)
    let provider = |i: usize| chain.links[i].price.provider.as_str();
    let mixed = (0..stands.len()).any(|i| {
        reached[i]
            && stands[i] == Stand::Dead
            && (0..stands.len())
                .any(|j| reached[j] && stands[j] == Stand::Quiet && provider(j) == provider(i))
    });
    if mixed {
        return None;
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

/// Per link, whether some pattern of the chain can send it an attempt while every link keeps
/// its stand: the primary (every pattern), the second link (a hedge's backup leg), and a link
/// after them only if no link before it answers every request that reaches it (a quiet one).
/// Under a cost cap (`capped`) the hedge's backup may be a later link and a quiet link may be
/// skipped, so every link counts as reachable.
fn reachable(stands: &[Stand], capped: bool) -> Vec<bool> {
    (0..stands.len())
        .map(|i| capped || i < 2 || !stands[..i].contains(&Stand::Quiet))
        .collect()
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
