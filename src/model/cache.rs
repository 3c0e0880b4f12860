//! The failover cache table and its break-even (MODEL.md §5).
//!
//! A fallback has never seen the primary's prefix. Its first request in a session is cold (the
//! prefix at base input), or, for an `explicit`-caching fallback warmed on the first failover,
//! a cache write (at `cache_write`, which replaces the input charge). Later failovers in the
//! session read the prefix warm.

use serde::Serialize;

use super::cost::{CacheState, Request, warm_state};
use super::policy::WarmPolicy;
use super::{Caching, Chain};

/// One row of the failover cache table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheRow {
    /// `primary-warm`, `failover-cold`, `failover-write` or `failover-warm`.
    pub request: &'static str,
    /// The model that serves the request.
    pub model: String,
    /// USD per 1,000 requests, like the steady-state table.
    pub cost_per_1k_usd: f64,
    /// The cost over the warm primary's, a ratio (1.2 for 1.2x); `None` for a free primary.
    pub vs_primary: Option<f64>,
}

/// The failover cache table of one chain's first fallback.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailoverCache {
    /// The chain's name.
    pub chain: String,
    /// The rows, in the order of MODEL.md §5.
    pub rows: Vec<CacheRow>,
    /// For an `explicit`-caching fallback: the number of failover requests in a session after
    /// which writing the cache has paid for itself (the smallest n with
    /// write + (n−1)·warm ≤ n·cold). `None` when the fallback has no write, or when a warm read
    /// is no cheaper than a cold one, so a write never pays.
    pub break_even_requests: Option<u64>,
    /// The chain's `warm_fallback` policy.
    pub warm_policy: WarmPolicy,
    /// Under that policy: the number of failover requests in a session from which its cache
    /// writes have paid for themselves against never writing. `always`: the break-even above;
    /// `after = N`: N more (the first N failovers are cold, the (N+1)-th writes); `never`: none.
    pub policy_break_even_requests: Option<u64>,
}

/// The table for `chain`'s first fallback (the first the cost cap allows), or `None` when there
/// is none or the request has no cacheable prefix.
pub fn failover_cache(request: &Request, chain: &Chain) -> Option<FailoverCache> {
    // The first fallback the cost cap allows (MODEL.md §8): the one failovers really reach.
    let allowed = super::policy::allowed_links(request, chain);
    if !request.has_prefix() || allowed.len() < 2 {
        return None;
    }
    let primary = &chain.links[0].price;
    let fallback = &chain.links[allowed[1]].price;
    let base = request.success_cost(primary, warm_state(primary));
    let row = |request_kind: &'static str, model: &str, cost: f64| CacheRow {
        request: request_kind,
        model: model.to_string(),
        cost_per_1k_usd: cost * 1000.0,
        vs_primary: (base > 0.0).then(|| cost / base),
    };
    let cold = request.success_cost(fallback, CacheState::Cold);
    let warm = request.success_cost(fallback, warm_state(fallback));
    let mut rows = vec![
        row("primary-warm", &primary.id, base),
        row("failover-cold", &fallback.id, cold),
    ];
    let mut break_even_requests = None;
    if fallback.caching == Caching::Explicit {
        let write = request.success_cost(fallback, CacheState::Write);
        rows.push(row("failover-write", &fallback.id, write));
        break_even_requests = break_even(write, cold, warm);
    }
    rows.push(row("failover-warm", &fallback.id, warm));
    let warm_policy = chain.policy.warm_fallback;
    let policy_break_even_requests = match warm_policy {
        WarmPolicy::Always => break_even_requests,
        WarmPolicy::Never => None,
        WarmPolicy::After(n) => break_even_requests.map(|b| b + u64::from(n)),
    };
    Some(FailoverCache {
        chain: chain.name.clone(),
        rows,
        break_even_requests,
        warm_policy,
        policy_break_even_requests,
    })
}

/// The smallest n ≥ 1 with `write + (n−1)·warm ≤ n·cold`: after n failover requests in a
/// session, writing the cache on the first has cost no more than never writing it.
pub fn break_even(write: f64, cold: f64, warm: f64) -> Option<u64> {
    if write <= cold {
        return Some(1);
    }
    let saving = cold - warm;
    if saving <= 0.0 {
        return None;
    }
    // n ≥ (write − warm) / (cold − warm); the ratio is > 1 here.
    let n = ((write - warm) / saving).ceil();
    // Guard the boundary against rounding: step back if n−1 already satisfies it.
    let n = if write + (n - 2.0) * warm <= (n - 1.0) * cold {
        n - 1.0
    } else {
        n
    };
    (n.is_finite() && n < u64::MAX as f64).then_some(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Link;
    use crate::model::Steady;
    use crate::model::cost::tests::{july, req};

    /// MODEL.md §5: 32.50 warm Sol, 39.00 cold Sonnet, 46.50 writing Sonnet, 12.00 warm Sonnet.
    /// Writing costs 7.50 more on the first failover and saves 27.00 on each later one, so it
    /// has paid for itself by the second failover request of a session.
    #[test]
    fn failover_cache_post_table() {
        let chain = Chain {
            name: "c".into(),
            links: vec![
                Link::new(july("openai/gpt-5.6-sol")),
                Link::new(july("anthropic/claude-sonnet-5")),
            ],
            steady: Steady::default(),
            policy: Default::default(),
            traffic_share: None,
        };
        let t = failover_cache(&req(2000.0, 500.0, 15000.0, 1.0), &chain).unwrap();
        let got: Vec<(&str, f64, Option<f64>)> = t
            .rows
            .iter()
            .map(|r| (r.request, r.cost_per_1k_usd, r.vs_primary))
            .collect();
        let want = [
            ("primary-warm", 32.50, Some(1.0)),
            ("failover-cold", 39.00, Some(39.0 / 32.5)),
            ("failover-write", 46.50, Some(46.5 / 32.5)),
            ("failover-warm", 12.00, Some(12.0 / 32.5)),
        ];
        assert_eq!(got.len(), want.len());
        for ((gk, gc, gr), (wk, wc, wr)) in got.iter().zip(want) {
            assert_eq!(*gk, wk);
            assert!((gc - wc).abs() < 1e-9, "{gk}: {gc} != {wc}");
            assert!((gr.unwrap() - wr.unwrap()).abs() < 1e-12);
        }
        assert_eq!(format!("{:.1}x", t.rows[1].vs_primary.unwrap()), "1.2x");
        assert_eq!(t.break_even_requests, Some(2));
    }

    #[test]
    fn break_even_boundaries() {
        assert_eq!(break_even(5.0, 10.0, 1.0), Some(1));
        // write 19, cold 10, warm 1: n = (19−1)/9 = 2 exactly: 19 + 1 = 20 = 2·10
        assert_eq!(break_even(19.0, 10.0, 1.0), Some(2));
        assert_eq!(break_even(19.5, 10.0, 1.0), Some(3));
        assert_eq!(break_even(12.0, 10.0, 10.0), None);
    }

    #[test]
    fn no_table_without_a_prefix_or_a_fallback() {
        let chain = Chain {
            name: "c".into(),
            links: vec![Link::new(july("openai/gpt-5.6-sol"))],
            steady: Steady::default(),
            policy: Default::default(),
            traffic_share: None,
        };
        assert!(failover_cache(&req(1.0, 1.0, 100.0, 1.0), &chain).is_none());
    }

    /// Issue 5: warming after N failovers on the failover-cache scenario. Sessions cost
    /// k·39.00 never writing; after = 3 they cost 3·39.00 + 46.50 + (k − 4)·12.00, which is no
    /// more from k = 5 on: the break-even of `always` (2) plus the 3 cold failovers.
    #[test]
    fn warm_after_n_break_even() {
        use crate::model::Policy;
        let mut chain = Chain {
            name: "c".into(),
            links: vec![
                Link::new(july("openai/gpt-5.6-sol")),
                Link::new(july("anthropic/claude-sonnet-5")),
            ],
            steady: Steady::default(),
            policy: Policy {
                warm_fallback: WarmPolicy::After(3),
                ..Policy::default()
            },
            traffic_share: None,
        };
        let r = req(2000.0, 500.0, 15000.0, 1.0);
        let t = failover_cache(&r, &chain).unwrap();
        assert_eq!(t.policy_break_even_requests, Some(5));
        let session = |k: f64| 3.0 * 39.0 + 46.5 + (k - 4.0) * 12.0;
        assert!(session(5.0) <= 5.0 * 39.0 && session(4.0) > 4.0 * 39.0);
        chain.policy.warm_fallback = WarmPolicy::Never;
        assert_eq!(
            failover_cache(&r, &chain)
                .unwrap()
                .policy_break_even_requests,
            None
        );
    }
}
