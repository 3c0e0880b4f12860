//! Steady state: the expected cost of one request under each pattern (MODEL.md §4).
//!
//! Chain links i = 0..k fail with probability q_i = f_i + (1 − f_i)·t_i (a real failure, or a
//! healthy attempt tripped by the timeout). C_i is the cost of a success, W_i the expected cost
//! of a failed attempt, X_i the cost of a cancelled hedge loser:
//!
//! ```text
//! no-fallback       = (1−q0)·C0 + q0·W0
//! sequential        = Σ_i (Π_{j<i} q_j)·((1−q_i)·C_i + q_i·W_i)
//! hedged-take-first = (1−q0)(1−q1)·[w·(C0+X1) + (1−w)·(C1+X0)]
//!                     + (1−q0)q1·(C0+W1) + q0(1−q1)·(W0+C1) + q0q1·(W0+W1+tail)
//! hedged-no-cancel  = the same, with C0+C1 when both succeed
//! ```
//!
//! Cache state: the primary is warm. In `no-fallback` and `sequential` fallbacks are reached by
//! rare single failovers, so they are cold (prefix at base input, no write). In the hedged
//! patterns the second link receives every request and is warm; links after it are cold.

use serde::Serialize;

use super::cost::{CacheState, Request};
use super::latency;
use super::policy::{self, PolicyOutcome};
use super::{AbandonedBilling, Chain, ModelPrice, Pattern, Steady};

/// The billing terms of one link in one cache state, all in USD per attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leg {
    /// q: probability the attempt fails (failure or timeout trip).
    pub q: f64,
    /// C: cost of a success.
    pub c: f64,
    /// W: expected cost of a failed attempt (0 for fast failures).
    pub w: f64,
    /// The cost of a failed hedge leg when the other leg answered. MODEL.md §4 bills it as W.
    pub w_lost: f64,
    /// X: cost of a successful hedge leg cancelled because the other answered first.
    pub x: f64,
}

impl Leg {
    /// The terms of `price` in `state` under the steady parameters of link `index`.
    pub fn steady(
        request: &Request,
        price: &ModelPrice,
        state: CacheState,
        steady: &Steady,
        index: usize,
    ) -> Leg {
        let f = steady.failure_rates.get(index).copied().unwrap_or(0.0);
        let t = steady.trip_rates.get(index).copied().unwrap_or(0.0);
        let success = request.success_cost(price, state);
        let gray = request.partial_cost(price, state, steady.gray_output_fraction);
        let abandoned = match steady.abandoned_billing {
            AbandonedBilling::Partial => gray,
            AbandonedBilling::Full => success,
        };
        let q = f + (1.0 - f) * t;
        // The share of failures that hang: the error mix's `timeout` share when there is one.
        let g = steady.error_mix.map_or(steady.gray_fraction, |m| {
            m.share(policy::ErrorClass::Timeout)
        });
        let qw = f * g * gray + (1.0 - f) * t * abandoned;
        let w = if q > 0.0 { qw / q } else { 0.0 };
        Leg {
            q,
            c: success,
            w,
            w_lost: w,
            x: request.partial_cost(price, state, steady.cancel_output_fraction),
        }
    }
}

/// Expected figures per request for one pattern.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Outcome {
    /// Expected USD per request.
    pub cost: f64,
    /// Share of requests that fail on every link tried, in [0, 1].
    pub failed: f64,
    /// Expected attempts per request that did not produce the answer (failed attempts and
    /// hedge losers).
    pub wasted_attempts: f64,
    /// Expected USD per request spent on those attempts.
    pub wasted_cost: f64,
}

/// Sequential failover over `legs` (MODEL.md §4).
pub fn sequential(legs: &[Leg]) -> Outcome {
    let mut out = Outcome::default();
    let mut reach = 1.0;
    for leg in legs {
        out.cost += reach * ((1.0 - leg.q) * leg.c + leg.q * leg.w);
        out.wasted_cost += reach * leg.q * leg.w;
        out.wasted_attempts += reach * leg.q;
        reach *= leg.q;
    }
    out.failed = reach;
    out
}

/// A hedge of `l0` and `l1` with `tail` tried in sequence when both fail (MODEL.md §4).
/// `w` is the probability the primary answers first when both succeed.
pub fn hedged(l0: &Leg, l1: &Leg, tail: &Outcome, w: f64, cancel: bool) -> Outcome {
    let both_ok = (1.0 - l0.q) * (1.0 - l1.q);
    let only0 = (1.0 - l0.q) * l1.q;
    let only1 = l0.q * (1.0 - l1.q);
    let none = l0.q * l1.q;
    let (both_cost, both_wasted) = if cancel {
        (
            w * (l0.c + l1.x) + (1.0 - w) * (l1.c + l0.x),
            w * l1.x + (1.0 - w) * l0.x,
        )
    } else {
        (l0.c + l1.c, w * l1.c + (1.0 - w) * l0.c)
    };
    Outcome {
        cost: both_ok * both_cost
            + only0 * (l0.c + l1.w_lost)
            + only1 * (l0.w_lost + l1.c)
            + none * (l0.w + l1.w + tail.cost),
        failed: none * tail.failed,
        wasted_attempts: both_ok + only0 + only1 + none * (2.0 + tail.wasted_attempts),
        wasted_cost: both_ok * both_wasted
            + only0 * l1.w_lost
            + only1 * l0.w_lost
            + none * (l0.w + l1.w + tail.wasted_cost),
    }
}

/// The steady-state figures of one pattern on one chain, per request.
///
/// A hedged pattern needs two links; on a one-link chain it returns `None`.
pub fn evaluate(request: &Request, chain: &Chain, pattern: Pattern) -> Option<Outcome> {
    detailed(request, chain, pattern).map(|o| o.summary())
}

/// The steady-state figures of one pattern on one chain under the chain's policy (MODEL.md
/// §4, §8): cost, attempts, dead time, attribution and cap hits, per request.
///
/// `no-fallback` and `sequential` follow the policy exactly ([`policy::evaluate`]). The hedged
/// patterns fire the primary and the first fallback the cost cap allows once each (retries do
/// not apply to hedge legs; a call cap below 2 leaves no hedge, `None`), then the remaining
/// links in sequence under the policy with two attempts already spent.
pub fn detailed(request: &Request, chain: &Chain, pattern: Pattern) -> Option<PolicyOutcome> {
    let allowed = policy::allowed_links(request, chain);
    match pattern {
        Pattern::NoFallback => Some(policy::evaluate(request, chain, &[0], true, 0, None)),
        Pattern::Sequential => Some(policy::evaluate(request, chain, &allowed, true, 0, None)),
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
            if allowed.len() < 2 || chain.policy.max_attempts.is_some_and(|a| a < 2) {
                return None;
            }
            let s = &chain.steady;
            let p = allowed[1];
            let warm = |i: usize| super::cost::warm_state(&chain.links[i]);
            let l0 = Leg::steady(request, &chain.links[0], warm(0), s, 0);
            let l1 = Leg::steady(request, &chain.links[p], warm(p), s, p);
            let tail = policy::evaluate(request, chain, &allowed[2..], false, 2, Some(p));
            let tail_outcome = tail.summary();
            let w = if p != 1 && s.win_from_latency {
                latency::primary_win_rate(
                    &chain.latency(0),
                    &chain.latency(p),
                    chain.policy.timeout_s,
                )
            } else {
                s.primary_win_rate
            };
            let cancel = pattern == Pattern::HedgedTakeFirst;
            let h = hedged(&l0, &l1, &tail_outcome, w, cancel);
            let both_ok = (1.0 - l0.q) * (1.0 - l1.q);
            let none = l0.q * l1.q;
            let mut answered_by: Vec<f64> = tail.answered_by.iter().map(|a| none * a).collect();
            answered_by[0] += both_ok * w + (1.0 - l0.q) * l1.q;
            answered_by[p] += both_ok * (1.0 - w) + l0.q * (1.0 - l1.q);
            // When both legs fail, the answer (or the tail) waits for the slower failure: T
            // unless both failed fast.
            let long = |i: usize, q: f64| {
                if q <= 0.0 {
                    return 0.0;
                }
                let f = s.failure_rates.get(i).copied().unwrap_or(0.0);
                let t = s.trip_rates.get(i).copied().unwrap_or(0.0);
                let timeout_share = s
                    .error_mix
                    .map_or(s.gray_fraction, |m| m.share(policy::ErrorClass::Timeout));
                ((1.0 - f) * t + f * timeout_share) / q
            };
            let (t_s, fast_s) = (chain.policy.timeout_s, s.fast_fail_s);
            let slower = t_s - (t_s - fast_s) * (1.0 - long(0, l0.q)) * (1.0 - long(p, l1.q));
            Some(PolicyOutcome {
                cost: h.cost,
                failed: h.failed,
                attempts: 2.0 + none * tail.attempts,
                attempts_max: if none > 0.0 && allowed.len() > 2 {
                    tail.attempts_max.max(2)
                } else {
                    2
                },
                wasted_cost: h.wasted_cost,
                dead_time_s: none * (slower + tail.dead_time_s),
                answered_by,
                call_cap_hits: none * tail.call_cap_hits,
                cost_cap_hits: if p != 1 {
                    1.0
                } else {
                    none * tail.cost_cap_hits
                },
                failed_attempts: {
                    let mut v: Vec<f64> = tail.failed_attempts.iter().map(|a| none * a).collect();
                    v[0] += l0.q;
                    v[p] += l1.q;
                    v
                },
                failed_cost: {
                    let mut v: Vec<f64> = tail.failed_cost.iter().map(|a| none * a).collect();
                    v[0] += (1.0 - l1.q) * l0.q * l0.w_lost + none * l0.w;
                    v[p] += (1.0 - l0.q) * l1.q * l1.w_lost + none * l1.w;
                    v
                },
            })
        }
    }
}

/// The baseline: the primary alone, healthy and warm, USD per request.
pub fn baseline(request: &Request, chain: &Chain) -> f64 {
    let primary = &chain.links[0];
    request.success_cost(primary, super::cost::warm_state(primary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cost::tests::{july, req};

    fn chain(models: &[&str], failure_rates: &[f64], trip: f64) -> Chain {
        Chain {
            name: "c".into(),
            links: models.iter().map(|m| july(m)).collect(),
            steady: Steady {
                failure_rates: failure_rates.to_vec(),
                trip_rates: vec![trip],
                ..Steady::default()
            },
            policy: Default::default(),
            latency: Vec::new(),
            traffic_share: None,
        }
    }

    fn per_1k(pattern: Pattern, c: &Chain) -> Outcome {
        let o = evaluate(&req(2000.0, 500.0, 0.0, 0.0), c, pattern).unwrap();
        Outcome {
            cost: o.cost * 1000.0,
            failed: o.failed * 1000.0,
            wasted_attempts: o.wasted_attempts * 1000.0,
            wasted_cost: o.wasted_cost * 1000.0,
        }
    }

    fn assert_close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-9, "got {got}, want {want}");
    }

    const SOL: &str = "openai/gpt-5.6-sol";
    const SONNET: &str = "anthropic/claude-sonnet-5";

    /// MODEL.md §4: sequential at q0 = 0.5% all gray is 25.0075 per 1k, +0.03%, and the wasted
    /// gray attempts cost 0.0875 per 1k.
    #[test]
    fn sequential_half_percent_gray() {
        let c = chain(&[SOL, SONNET], &[0.005, 0.0], 0.0);
        let o = per_1k(Pattern::Sequential, &c);
        assert_close(o.cost, 25.0075);
        assert_close(o.wasted_cost, 0.0875);
        assert_close(o.failed, 0.0);
        assert_close(o.wasted_attempts, 5.0);
        let base = baseline(&req(2000.0, 500.0, 0.0, 0.0), &c) * 1000.0;
        assert_close(base, 25.0);
        assert_eq!(format!("{:.2}%", (o.cost / base - 1.0) * 100.0), "0.03%");
        let nf = per_1k(Pattern::NoFallback, &c);
        assert_close(nf.cost, 0.995 * 25.0 + 0.0875);
        assert_close(nf.failed, 5.0);
    }

    /// MODEL.md §4: hedged take-first / no-cancel with no failures: 29.00 / 34.00.
    #[test]
    fn hedged_without_failures() {
        let c = chain(&[SOL, SONNET], &[0.0, 0.0], 0.0);
        assert_close(per_1k(Pattern::HedgedTakeFirst, &c).cost, 29.0);
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).cost, 34.0);
        // take-first wastes the cancelled Sonnet input side, $4 per 1k, on every request
        assert_close(per_1k(Pattern::HedgedTakeFirst, &c).wasted_cost, 4.0);
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).wasted_cost, 9.0);
    }

    /// MODEL.md §4: the same at q0 = 0.5% gray: 28.9875 / 33.9625.
    #[test]
    fn hedged_at_half_percent_gray() {
        let c = chain(&[SOL, SONNET], &[0.005, 0.0], 0.0);
        assert_close(per_1k(Pattern::HedgedTakeFirst, &c).cost, 28.9875);
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).cost, 33.9625);
    }

    /// MODEL.md §4: a gray outage (every primary attempt hangs) costs 26.50 per 1k
    /// sequentially; a fast outage 9.00.
    #[test]
    fn outage_rows() {
        let mut c = chain(&[SOL, SONNET], &[1.0, 0.0], 0.0);
        assert_close(per_1k(Pattern::Sequential, &c).cost, 26.50);
        c.steady.gray_fraction = 0.0;
        assert_close(per_1k(Pattern::Sequential, &c).cost, 9.00);
    }

    /// The failover-chains post's "4 s timeout trips 5% of healthy requests": the post adds
    /// 5% × ($17.50 + $9.00) = +$1.33 on top of a primary bill it no longer pays in full.
    /// Replacing the tripped primary attempts instead: +$0.075 (partial billing), +$0.45 (full).
    #[test]
    fn timeout_trips_partial_and_full() {
        let mut c = chain(&[SOL, SONNET], &[0.0, 0.0], 0.05);
        assert_close(per_1k(Pattern::Sequential, &c).cost - 25.0, 0.075);
        c.steady.abandoned_billing = AbandonedBilling::Full;
        assert_close(per_1k(Pattern::Sequential, &c).cost - 25.0, 0.45);
    }

    /// A hand-computed three-link chain: q = 0.1 on every link, all fast.
    #[test]
    fn three_links_fast_failures() {
        let mut c = chain(
            &[SOL, SONNET, "anthropic/claude-haiku-4-5"],
            &[0.1, 0.1, 0.1],
            0.0,
        );
        c.steady.gray_fraction = 0.0;
        let o = per_1k(Pattern::Sequential, &c);
        assert_close(o.cost, 0.9 * 25.0 + 0.1 * 0.9 * 9.0 + 0.01 * 0.9 * 4.5);
        assert_close(o.failed, 1.0);
        assert_close(o.wasted_attempts, 100.0 + 10.0 + 1.0);
        // hedge: both fail with 0.01, then Haiku
        let h = per_1k(Pattern::HedgedTakeFirst, &c);
        let want = 0.81 * 29.0 + 0.09 * 25.0 + 0.09 * 9.0 + 0.01 * (0.9 * 4.5);
        assert_close(h.cost, want);
        assert_close(h.failed, 1.0);
    }

    #[test]
    fn hedged_needs_two_links() {
        let c = chain(&[SOL], &[0.0], 0.0);
        assert!(evaluate(&req(1.0, 1.0, 0.0, 0.0), &c, Pattern::HedgedNoCancel).is_none());
    }

    /// w < 1: when the fallback wins, take-first pays C1 + X0 instead of C0 + X1.
    #[test]
    fn primary_win_rate_weights_the_winner() {
        let mut c = chain(&[SOL, SONNET], &[0.0, 0.0], 0.0);
        c.steady.primary_win_rate = 0.25;
        // C0+X1 = 29, C1+X0 = 9 + 10 = 19
        assert_close(
            per_1k(Pattern::HedgedTakeFirst, &c).cost,
            0.25 * 29.0 + 0.75 * 19.0,
        );
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).cost, 34.0);
    }
}
