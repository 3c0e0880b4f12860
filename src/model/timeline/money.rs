//! What a timeline costs a chain (sequential, no breaker, no retries): MODEL.md §6's window,
//! cold-start and fail-back figures, piecewise over the timeline's segments.
//!
//! Per link k the caller gives the §3 prices of one request as plain USD ([`LinkCosts`]), so
//! this stands apart from the chain types being restructured (issue 11):
//!
//! ```text
//! normal   = N · warm_0                                         N = λ·D
//! window   = Σ_σ λ·len_σ · Σ_k [answered_k·warm_k + reach_k·p_k·a_k·failed_k(σ)]
//! cold     = Σ_k cold_starts_k · (first_k − warm_k)             (super::cache_figures)
//! failback = failback_writes · (first_0 − warm_0)
//! total    = window + cold + failback;   multiplier = total / normal
//! ```
//!
//! reach_k = Π_{j<k} p_j, a_k = 0 on a drilled link, failed_k(σ) = 0 for a fast failure and the
//! gray cost W_k for a gray one (billed warm: a gray attempt on a cold fallback is billed warm
//! here, where MODEL.md §6 bills it in its cold state; the difference is a cold-start premium
//! on gray fallbacks, left to the engines). With one provider down for the whole window this is
//! §6 exactly, except that sessions are λ·D/L rather than ⌈N/L⌉ (the same when L divides N, as
//! in sept3: 558).

use super::{LinkRef, Timeline, cache_figures, request_shares};
use super::{LinkState, OutageFailure};

/// One link's prices for one request, USD (MODEL.md §3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkCosts {
    /// A success with the session's cache warm.
    pub warm_usd: f64,
    /// A session's first success there when cold: a cache write (`explicit` caching warmed at
    /// once) or cold (the prefix at input).
    pub first_usd: f64,
    /// A gray failed attempt (the input side plus the gray output share), billed warm.
    pub gray_usd: f64,
    /// The cache TTL of the link's model, seconds (infinite: no expiry).
    pub ttl_s: f64,
}

/// A window's figures, USD and expected requests.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineCost {
    /// The primary-alone bill for the same requests, healthy and warm.
    pub normal: f64,
    /// Spend on the window's requests at warm prices, failed attempts included.
    pub window: f64,
    /// Premium of sessions' cold first answers on fallbacks (and on a partial primary).
    pub cold_start: f64,
    /// Premium of rewriting the primary's cache on the way back.
    pub failback: f64,
    /// window + cold_start + failback.
    pub total: f64,
    /// total / normal; `None` when normal is 0.
    pub multiplier: Option<f64>,
    /// Expected requests failed on every link.
    pub failed_requests: f64,
    /// Expected cold starts per link.
    pub cold_starts: Vec<f64>,
    /// Expected fail-back writes.
    pub failback_writes: f64,
}

/// The cost of `timeline` to a chain of `links` with prices `costs` (one per link), at λ =
/// `requests_per_second`, sessions of `session_length` requests.
pub fn timeline_cost(
    timeline: &Timeline,
    links: &[LinkRef],
    costs: &[LinkCosts],
    requests_per_second: f64,
    session_length: usize,
) -> TimelineCost {
    let n = requests_per_second * timeline.window_s();
    let normal = n * costs[0].warm_usd;
    let mut window = 0.0;
    let mut failed_requests = 0.0;
    for seg in timeline.chain_segments(links) {
        let attempted: Vec<bool> = seg.states.iter().map(|s| s.attempted()).collect();
        let shares = request_shares(&seg.p, &attempted);
        let m = requests_per_second * seg.len_s();
        let mut reach = 1.0;
        let mut per_request = 0.0;
        for (k, state) in seg.states.iter().enumerate() {
            per_request += shares.answered_by[k] * costs[k].warm_usd;
            if let LinkState::Failing {
                failure: OutageFailure::Gray,
                error_rate,
                ..
            } = state
            {
                per_request += reach * error_rate * costs[k].gray_usd;
            }
            reach *= seg.p[k];
        }
        window += m * per_request;
        failed_requests += m * shares.failed;
    }
    let ttl: Vec<f64> = costs.iter().map(|c| c.ttl_s).collect();
    let cache = cache_figures(timeline, links, &ttl, requests_per_second, session_length);
    let cold_start: f64 = cache
        .cold_starts
        .iter()
        .zip(costs)
        .map(|(c, k)| c * (k.first_usd - k.warm_usd))
        .sum();
    let failback = cache.failback_writes * (costs[0].first_usd - costs[0].warm_usd);
    let total = window + cold_start + failback;
    TimelineCost {
        normal,
        window,
        cold_start,
        failback,
        total,
        multiplier: (normal > 0.0).then(|| total / normal),
        failed_requests,
        cold_starts: cache.cold_starts,
        failback_writes: cache.failback_writes,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Outage, Target};
    use super::*;

    const D: f64 = 11_160.0;

    /// The three-down post's request (60,000-token prefix at h = 0.9, billed at input on a
    /// miss; 1,200 output): Sonnet 5 and GPT-6 Sol have the same list prices (2 / 0.20 / 10),
    /// so warm = (60,000·(0.9·0.20 + 0.1·2) + 1,200·10)/1e6 = 0.0348 on both; Sol's cold first
    /// = (60,000·2 + 12,000)/1e6 = 0.132; Sonnet's write = (60,000·2.5 + 12,000)/1e6 = 0.162.
    fn sonnet() -> LinkCosts {
        LinkCosts {
            warm_usd: 0.0348,
            first_usd: 0.162,
            gray_usd: 0.0,
            ttl_s: 300.0,
        }
    }
    fn sol() -> LinkCosts {
        LinkCosts {
            warm_usd: 0.0348,
            first_usd: 0.132,
            gray_usd: 0.0,
            ttl_s: 600.0,
        }
    }

    fn links() -> Vec<LinkRef> {
        vec![
            LinkRef::of("anthropic/claude-sonnet-5"),
            LinkRef::of("openai/gpt-6-sol"),
        ]
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn the_one_provider_form_gives_the_posts_514() {
        let t = Timeline::whole_window(D, "anthropic", OutageFailure::Fast).unwrap();
        let c = timeline_cost(&t, &links(), &[sonnet(), sol()], 1.0, 20);
        // MODEL.md §6: 388.37 + 54.24 + 70.98 = 513.58, 1.32x
        assert!(close(c.normal, 388.368), "{c:?}");
        assert!(close(c.window, 388.368));
        assert!(close(c.cold_start, 558.0 * 0.0972));
        assert!(close(c.failback, 558.0 * 0.1272));
        assert!(close(c.total, 513.5832), "{c:?}");
        assert_eq!(format!("{:.2}", c.multiplier.unwrap()), "1.32");
    }

    #[test]
    fn sept3_with_openai_down_34_minutes_inside() {
        // OpenAI down 2,040 s from offset 3,600 (assumed): Sol answers 9,120 requests (window
        // 9,120 × 0.0348 = 317.376), 456 cold starts (44.3232), 558 fail-back writes (70.9776),
        // total 432.6768; 2,040 requests failed.
        let t = Timeline::new(
            D,
            vec![
                Outage::new(
                    Target::Provider("anthropic".into()),
                    0.0,
                    None,
                    OutageFailure::Fast,
                ),
                Outage::new(
                    Target::Provider("openai".into()),
                    3600.0,
                    Some(2040.0),
                    OutageFailure::Fast,
                ),
            ],
        )
        .unwrap();
        let c = timeline_cost(&t, &links(), &[sonnet(), sol()], 1.0, 20);
        assert!(close(c.window, 317.376), "{c:?}");
        assert!(close(c.cold_start, 44.3232), "{c:?}");
        assert!(close(c.failback, 70.9776));
        assert!(close(c.total, 432.6768), "{c:?}");
        assert!(close(c.failed_requests, 2040.0));
    }

    #[test]
    fn gray_failures_bill_every_dead_attempt() {
        // Anthropic gray for the whole window, gray cost W = 0.0288 per attempt (say):
        // + 11,160 × 0.0288 = 321.408 on top of the fast window.
        let t = Timeline::whole_window(D, "anthropic", OutageFailure::Gray).unwrap();
        let gray = LinkCosts {
            gray_usd: 0.0288,
            ..sonnet()
        };
        let c = timeline_cost(&t, &links(), &[gray, sol()], 1.0, 20);
        assert!(close(c.window, 388.368 + 321.408), "{c:?}");
    }
}
