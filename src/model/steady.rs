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
use super::policy::{self, Entry, PolicyOutcome};
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
        let qw = f * steady.gray_share() * gray + (1.0 - f) * t * abandoned;
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

/// How a hedge's requests reach the links after its two legs.
const LEGS: Entry = Entry {
    attempts: 2,
    bad: false,
};

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
    if pattern.is_hedged()
        && let Some(d) = chain.policy.hedge_delay_s
    {
        return delayed_hedge(
            request,
            chain,
            &allowed,
            d,
            pattern == Pattern::HedgedTakeFirst,
        );
    }
    match pattern {
        Pattern::NoFallback => Some(policy::evaluate(
            request,
            chain,
            &[0],
            true,
            Entry::FRESH,
            None,
        )),
        Pattern::Sequential => Some(policy::evaluate(
            request,
            chain,
            &allowed,
            true,
            Entry::FRESH,
            None,
        )),
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
            if allowed.len() < 2 || chain.policy.max_attempts.is_some_and(|a| a < 2) {
                return None;
            }
            let s = &chain.steady;
            let p = allowed[1];
            let warm = |i: usize| super::cost::warm_state(&chain.links[i]);
            let l0 = Leg::steady(request, &chain.links[0], warm(0), s, 0);
            let l1 = Leg::steady(request, &chain.links[p], warm(p), s, p);
            let tail = policy::evaluate(request, chain, &allowed[2..], false, LEGS, Some(p));
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

/// A delayed hedge (MODEL.md §8, `hedge_delay_s` = d): the primary is sent alone; if it
/// answers within d, that is all. If it fails fast within d, the backup (the first fallback
/// the cost cap allows, warm) is sent at once, as a sequential failover. If it is still running
/// at d (slow, hung, or about to trip), the backup is sent and the two race as in a hedge, the
/// primary winning with w_d = P(L₀ < d + L₁ | d < L₀ ≤ T, L₁ ≤ T)
/// ([`latency::delayed_win_rate`]). When both fail, the remaining links follow the policy.
/// Latencies come from the links' latency models (or the defaults), as in the Monte Carlo.
fn delayed_hedge(
    request: &Request,
    chain: &Chain,
    allowed: &[usize],
    d: f64,
    cancel: bool,
) -> Option<PolicyOutcome> {
    if allowed.len() < 2 || chain.policy.max_attempts.is_some_and(|a| a < 2) {
        return None;
    }
    let s = &chain.steady;
    let p = allowed[1];
    let warm = |i: usize| super::cost::warm_state(&chain.links[i]);
    let l0 = Leg::steady(request, &chain.links[0], warm(0), s, 0);
    let l1 = Leg::steady(request, &chain.links[p], warm(p), s, p);
    let tail = policy::evaluate(request, chain, &allowed[2..], false, LEGS, Some(p));
    let t_s = chain.policy.timeout_s;
    let fs = s.fast_fail_s;
    // The primary: ok, slow failure (hang or trip, takes T), fast failure (takes fs).
    let f0 = s.failure_rates.first().copied().unwrap_or(0.0);
    let t0 = s.trip_rates.first().copied().unwrap_or(0.0);
    let p_ok = (1.0 - f0) * (1.0 - t0);
    let p_slow = (1.0 - f0) * t0 + f0 * s.gray_share();
    let p_fast = f0 * (1.0 - s.gray_share());
    let slow_cost = l0.q * l0.w; // fast failures bill 0
    let lat0 = chain.latency(0);
    let done_by_d = if lat0.cdf(t_s) > 0.0 {
        (lat0.cdf(d) / lat0.cdf(t_s)).min(1.0)
    } else {
        0.0
    };
    let wd = latency::delayed_win_rate(&lat0, &chain.latency(p), d, t_s);
    let p_a = p_ok * done_by_d;
    let (p_b, p_c_fail) = if fs <= d {
        (p_fast, p_slow)
    } else {
        (0.0, p_slow + p_fast)
    };
    let p_c_ok = p_ok * (1.0 - done_by_d);
    let q1 = l1.q;
    let backup_then_tail = (1.0 - q1) * l1.c + q1 * (l1.w + tail.cost);
    let race_both_ok = if cancel {
        wd * (l0.c + l1.x) + (1.0 - wd) * (l1.c + l0.x)
    } else {
        l0.c + l1.c
    };
    let race_wasted = if cancel {
        wd * l1.x + (1.0 - wd) * l0.x
    } else {
        wd * l1.c + (1.0 - wd) * l0.c
    };
    let cost = p_a * l0.c
        + p_b * backup_then_tail
        + p_c_ok * ((1.0 - q1) * race_both_ok + q1 * (l0.c + l1.w_lost))
        + slow_cost
        + p_c_fail * backup_then_tail;
    let reach_tail = (p_b + p_c_fail) * q1;
    let mut answered_by: Vec<f64> = tail.answered_by.iter().map(|a| reach_tail * a).collect();
    answered_by[0] += p_a + p_c_ok * ((1.0 - q1) * wd + q1);
    answered_by[p] += (p_b + p_c_fail) * (1.0 - q1) + p_c_ok * (1.0 - q1) * (1.0 - wd);
    let wasted_cost = p_c_ok * ((1.0 - q1) * race_wasted + q1 * l1.w_lost)
        + slow_cost
        + (p_b + p_c_fail) * q1 * (l1.w + tail.wasted_cost);
    // Dead time: the failed primary's time before the backup is sent (fs), and, when the
    // backup fails too, the slower failure of the two and the tail.
    let l1_slow = {
        let f1 = s.failure_rates.get(p).copied().unwrap_or(0.0);
        let t1 = s.trip_rates.get(p).copied().unwrap_or(0.0);
        if q1 > 0.0 {
            ((1.0 - f1) * t1 + f1 * s.gray_share()) / q1
        } else {
            0.0
        }
    };
    let backup_fail_s = l1_slow * t_s + (1.0 - l1_slow) * fs;
    let c_fail_slow = if p_c_fail > 0.0 {
        p_slow / p_c_fail
    } else {
        0.0
    };
    let both_c = c_fail_slow * (l1_slow * (d + t_s).max(t_s) + (1.0 - l1_slow) * (d + fs).max(t_s))
        + (1.0 - c_fail_slow) * (l1_slow * (d + t_s).max(fs) + (1.0 - l1_slow) * (d + fs).max(fs));
    let dead_time_s = p_b * (fs + q1 * (backup_fail_s + tail.dead_time_s))
        + p_c_fail * q1 * (both_c + tail.dead_time_s);
    let failed = reach_tail * tail.failed;
    let attempts = p_a + (p_b + p_c_fail) * (2.0 + q1 * tail.attempts) + p_c_ok * 2.0;
    Some(PolicyOutcome {
        cost,
        failed,
        attempts,
        attempts_max: if reach_tail > 0.0 && allowed.len() > 2 {
            tail.attempts_max.max(2)
        } else {
            2
        },
        wasted_cost,
        dead_time_s,
        answered_by,
        call_cap_hits: reach_tail * tail.call_cap_hits,
        cost_cap_hits: if p != 1 {
            1.0
        } else {
            reach_tail * tail.cost_cap_hits
        },
        failed_attempts: {
            let mut v: Vec<f64> = tail
                .failed_attempts
                .iter()
                .map(|a| reach_tail * a)
                .collect();
            v[0] += l0.q;
            v[p] += (p_b + p_c_fail + p_c_ok) * q1;
            v
        },
        failed_cost: {
            let mut v: Vec<f64> = tail.failed_cost.iter().map(|a| reach_tail * a).collect();
            v[0] += slow_cost;
            v[p] += (p_b + p_c_fail) * q1 * l1.w + p_c_ok * q1 * l1.w_lost;
            v
        },
    })
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

    fn fixed(seconds: f64) -> crate::model::latency::Latency {
        crate::model::latency::Latency {
            p50_s: seconds,
            p99_s: seconds,
            ..Default::default()
        }
    }

    /// A delayed hedge with fixed latencies: Sol takes 3 s, Sonnet 0.5 s. Sent at 2 s, Sonnet
    /// answers at 2.5 s and wins (take-first pays Sonnet and Sol's input side: 9 + 10 = 19 per
    /// 1k); sent at 2.8 s it would answer at 3.3 s, after Sol (25 + Sonnet's input side 4).
    /// Sent at 3.5 s Sol has answered: Sol alone, 25.
    #[test]
    fn delayed_hedge_with_fixed_latencies() {
        let mut c = chain(&[SOL, SONNET], &[0.0, 0.0], 0.0);
        c.latency = vec![fixed(3.0), fixed(0.5)];
        c.policy.timeout_s = 30.0;
        for (d, want) in [(2.0, 19.0), (2.8, 29.0), (3.5, 25.0)] {
            c.policy.hedge_delay_s = Some(d);
            assert_close(per_1k(Pattern::HedgedTakeFirst, &c).cost, want);
        }
        // no-cancel: both run to the end once the backup is sent
        c.policy.hedge_delay_s = Some(2.0);
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).cost, 34.0);
    }

    /// A primary that always fails fast, before the delay: the backup is sent at once, a plain
    /// failover to a warm Sonnet (9 per 1k), with the fast failure's 0.5 s of dead time.
    #[test]
    fn delayed_hedge_fails_over_on_fast_errors() {
        let mut c = chain(&[SOL, SONNET], &[1.0, 0.0], 0.0);
        c.steady.gray_fraction = 0.0;
        c.policy.hedge_delay_s = Some(2.0);
        let d = detailed(&req(2000.0, 500.0, 0.0, 0.0), &c, Pattern::HedgedTakeFirst).unwrap();
        assert_close(d.cost * 1000.0, 9.0);
        assert_close(d.dead_time_s, 0.5);
        assert_close(d.attempts, 2.0);
        assert_eq!(d.answered_by, vec![0.0, 1.0]);
    }

    /// With no delay, the delayed hedge is the simultaneous hedge (w from the latency model).
    #[test]
    fn zero_delay_is_the_simultaneous_hedge() {
        let mut c = chain(
            &[SOL, SONNET, "anthropic/claude-haiku-4-5"],
            &[0.02, 0.05, 0.1],
            0.01,
        );
        c.latency = vec![
            crate::model::latency::Latency {
                p50_s: 2.0,
                p99_s: 9.0,
                ..Default::default()
            },
            crate::model::latency::Latency {
                p50_s: 1.5,
                p99_s: 6.0,
                ..Default::default()
            },
        ];
        c.policy.timeout_s = 10.0;
        c.steady.primary_win_rate =
            crate::model::latency::primary_win_rate(&c.latency[0], &c.latency[1], 10.0);
        let r = req(2000.0, 500.0, 0.0, 0.0);
        for pattern in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            let at_once = detailed(&r, &c, pattern).unwrap();
            c.policy.hedge_delay_s = Some(0.0);
            let delayed = detailed(&r, &c, pattern).unwrap();
            c.policy.hedge_delay_s = None;
            assert!((at_once.cost - delayed.cost).abs() < 1e-12, "{pattern:?}");
            assert!((at_once.failed - delayed.failed).abs() < 1e-15);
            assert!((at_once.wasted_cost - delayed.wasted_cost).abs() < 1e-12);
            for (a, b) in at_once.answered_by.iter().zip(&delayed.answered_by) {
                assert!((a - b).abs() < 1e-12);
            }
        }
    }
}
