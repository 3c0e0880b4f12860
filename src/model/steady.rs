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
//! rare single failovers, so each failover is the first of its session there: cold (prefix at
//! base input), or a cache write for an `explicit` fallback under `warm_fallback = "always"`
//! ([`policy::unwarmed_state`]). In the hedged patterns the second link receives every request
//! and is warm; links after it are billed as a first failover too.
//! The hedged legs under the policy (client and quota errors, a delayed backup, their timing)
//! are [`super::hedge`]'s, shared with the incident window.

use super::cost::{Request, warm_state};
use super::hedge::{Hedge, HedgeLeg};
use super::policy::{self, CapCount, PlanEntry, PolicyOutcome};
use super::{Chain, Pattern};

/// The steady-state figures of one pattern on one chain, per request.
///
/// A hedged pattern needs two links; on a one-link chain it returns `None`.
pub fn evaluate(
    request: &Request,
    chain: &Chain,
    pattern: Pattern,
) -> Option<crate::figures::SteadyFigures<f64>> {
    detailed(request, chain, pattern).map(|o| o.summary())
}

/// The steady-state figures of one pattern on one chain under the chain's policy (MODEL.md
/// §4, §8): cost, attempts, dead time, attribution and cap hits, per request.
///
/// `no-fallback` and `sequential` follow the policy exactly ([`policy::evaluate`]). The hedged
/// patterns fire the primary and the first fallback the cost cap allows once each, both warm
/// (retries do not apply to hedge legs; a call cap below 2 leaves no hedge, `None`), at once or
/// after `hedge_delay_s`, with the error classes of MODEL.md §8 ([`super::hedge`]); requests
/// that go on try the remaining links in sequence (cold) under the policy, with the legs'
/// attempts already spent.
pub fn detailed(request: &Request, chain: &Chain, pattern: Pattern) -> Option<PolicyOutcome> {
    let allowed = policy::allowed_links(request, chain);
    match pattern {
        Pattern::NoFallback => Some(policy::evaluate(
            request,
            chain,
            &[0],
            true,
            PlanEntry::FRESH,
            CapCount::Off,
        )),
        Pattern::Sequential => Some(policy::evaluate(
            request,
            chain,
            &allowed,
            true,
            PlanEntry::FRESH,
            CapCount::After(None),
        )),
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
            if allowed.len() < 2 || chain.policy.max_attempts.is_some_and(|a| a < 2) {
                return None;
            }
            let p = allowed[1];
            let leg =
                |i: usize| HedgeLeg::steady(request, chain, i, warm_state(&chain.links[i].price));
            let race = Hedge::new(request, chain, pattern, leg(0), leg(p)).race(chain.links.len());
            // Past a skipped first fallback, the race has counted every request that goes on.
            let cap = if p == 1 {
                CapCount::After(Some(p))
            } else {
                CapCount::Off
            };
            let tails: Vec<PolicyOutcome> = race
                .tail
                .iter()
                .map(|&(entry, _)| {
                    // The legs' models are warm (one cache per model) wherever listed.
                    let warm = [
                        chain.links[0].price.id.as_str(),
                        chain.links[p].price.id.as_str(),
                    ];
                    policy::evaluate_warm(request, chain, &allowed[2..], &warm, entry, cap)
                })
                .collect();
            let mut parts = vec![(1.0, &race.head)];
            parts.extend(race.tail.iter().zip(&tails).map(|(&(_, r), t)| (r, t)));
            Some(policy::mix(&parts))
        }
    }
}

/// The baseline: the primary alone, healthy and warm, USD per request.
pub fn baseline(request: &Request, chain: &Chain) -> f64 {
    let primary = &chain.links[0].price;
    request.success_cost(primary, warm_state(primary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Link;
    use crate::model::cost::tests::{july, req, set_failure_rates, set_latency, set_trip_rates};
    use crate::model::policy::ErrorClass;
    use crate::model::{AbandonedBilling, Steady};

    fn chain(models: &[&str], failure_rates: &[f64], trip: f64) -> Chain {
        let mut c = Chain {
            name: "c".into(),
            links: models.iter().map(|m| Link::new(july(m))).collect(),
            steady: Steady::default(),
            policy: Default::default(),
            traffic_share: None,
        };
        set_failure_rates(&mut c, failure_rates);
        set_trip_rates(&mut c, &[trip]);
        c
    }

    /// The four steady figures per 1,000 requests.
    struct Per1k {
        cost: f64,
        failed: f64,
        wasted_attempts: f64,
        wasted_cost: f64,
        fallback_answers: f64,
    }

    fn per_1k(pattern: Pattern, c: &Chain) -> Per1k {
        let o = evaluate(&req(2000.0, 500.0, 0.0, 0.0), c, pattern).unwrap();
        Per1k {
            cost: o.cost_per_1k_usd * 1000.0,
            failed: o.failed_per_1k * 1000.0,
            wasted_attempts: o.wasted_attempts_per_1k * 1000.0,
            wasted_cost: o.wasted_per_1k_usd * 1000.0,
            fallback_answers: o.fallback_answers_per_1k * 1000.0,
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
        // the 5 requests per 1,000 whose primary hung are answered by Sonnet
        assert_close(o.fallback_answers, 5.0);
        let base = baseline(&req(2000.0, 500.0, 0.0, 0.0), &c) * 1000.0;
        assert_close(base, 25.0);
        assert_eq!(format!("{:.2}%", (o.cost / base - 1.0) * 100.0), "0.03%");
        let nf = per_1k(Pattern::NoFallback, &c);
        assert_close(nf.cost, 0.995 * 25.0 + 0.0875);
        assert_close(nf.failed, 5.0);
        assert_close(nf.fallback_answers, 0.0);
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
        // w = 1: Sonnet answers only the 5 per 1,000 whose primary leg hung
        assert_close(per_1k(Pattern::HedgedTakeFirst, &c).fallback_answers, 5.0);
        let c = chain(&[SOL, SONNET], &[0.0, 0.0], 0.0);
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).fallback_answers, 0.0);
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
        set_latency(&mut c, &[fixed(3.0), fixed(0.5)]);
        c.policy.timeout_s = 30.0;
        let r = req(2000.0, 500.0, 0.0, 0.0);
        // dead time: until the answering attempt starts, Sonnet's at d when it wins
        for (d, want, dead) in [(2.0, 19.0, 2.0), (2.8, 29.0, 0.0), (3.5, 25.0, 0.0)] {
            c.policy.hedge_delay_s = Some(d);
            assert_close(per_1k(Pattern::HedgedTakeFirst, &c).cost, want);
            assert_close(
                detailed(&r, &c, Pattern::HedgedTakeFirst)
                    .unwrap()
                    .dead_time_s,
                dead,
            );
        }
        // no-cancel: both run to the end once the backup is sent
        c.policy.hedge_delay_s = Some(2.0);
        assert_close(per_1k(Pattern::HedgedNoCancel, &c).cost, 34.0);
    }

    /// Issue 10 item 10: `warm_fallback` in steady state. Failovers are rare, so a failover is
    /// the first of its session: under `always` an explicit-caching fallback writes its cache
    /// (Sonnet 5 at $46.50 per 1k on the 15,000-token prefix, MODEL.md §5), under `never` and
    /// `after = N` it reads the prefix cold ($39.00). Sol warm is $32.50; f = 1% fast on Sol.
    /// (Both printed 0.99 × 32.50 + 0.01 × 39.00 = 32.565 before.)
    #[test]
    fn warm_fallback_prices_the_steady_failover() {
        use crate::model::policy::WarmPolicy;
        let r = req(2000.0, 500.0, 15000.0, 1.0);
        let mut c = chain(
            &[SOL, SONNET, "anthropic/claude-haiku-4-5"],
            &[0.01, 0.0, 0.0],
            0.0,
        );
        c.steady.gray_fraction = 0.0;
        let cost = |c: &Chain, p| evaluate(&r, c, p).unwrap().cost_per_1k_usd * 1000.0;
        assert_close(cost(&c, Pattern::Sequential), 0.99 * 32.5 + 0.01 * 46.5);
        for w in [WarmPolicy::Never, WarmPolicy::After(1)] {
            c.policy.warm_fallback = w;
            assert_close(cost(&c, Pattern::Sequential), 0.99 * 32.5 + 0.01 * 39.0);
        }
        // Hedged, the second leg is warm either way; the third link is reached cold or written.
        set_failure_rates(&mut c, &[1.0, 1.0, 0.0]);
        let haiku_write = (2000.0 * 1.0 + 15000.0 * 1.25 + 500.0 * 5.0) / 1000.0;
        let haiku_cold = (2000.0 * 1.0 + 15000.0 * 1.0 + 500.0 * 5.0) / 1000.0;
        c.policy.warm_fallback = WarmPolicy::Always;
        assert_close(cost(&c, Pattern::HedgedNoCancel), haiku_write);
        c.policy.warm_fallback = WarmPolicy::Never;
        assert_close(cost(&c, Pattern::HedgedNoCancel), haiku_cold);
    }

    /// Issue 10 item 5 in steady state: one cache per model. Sol → Sonnet → Sol with Sol and
    /// Sonnet failing fast 50%: the third link is the primary's model, warm ($32.50 per 1k on
    /// the 15,000-token prefix, not $60.00 cold), and Sonnet's failover writes ($46.50).
    #[test]
    fn the_primary_listed_again_is_warm() {
        let r = req(2000.0, 500.0, 15000.0, 1.0);
        let mut c = chain(&[SOL, SONNET, SOL], &[0.5, 0.5, 0.0], 0.0);
        c.steady.gray_fraction = 0.0;
        let cost = evaluate(&r, &c, Pattern::Sequential)
            .unwrap()
            .cost_per_1k_usd
            * 1000.0;
        assert_close(cost, 0.5 * 32.5 + 0.25 * 46.5 + 0.25 * 32.5);
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

    fn mixed(models: &[&str], f: &[f64], shares: [f64; 6]) -> Chain {
        let mut c = chain(models, f, 0.0);
        c.steady.error_mix = Some(policy::ErrorMix { shares });
        c
    }

    /// Every failure a client error (400) / a quota error.
    const CLIENT: [f64; 6] = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    const QUOTA: [f64; 6] = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    const HAIKU: &str = "anthropic/claude-haiku-4-5";

    /// MODEL.md §8 in a hedge: a client error is the request's fault. Sol → Sonnet hedged,
    /// Haiku after them, every failure a 400, f = 20% on Sol and 10% on Sonnet: a request is bad
    /// when either leg draws the 400 (1 − 0.8·0.9 = 28%), and then both legs return it, billed
    /// 0, after 0.5 s; the other 72% are answered by Sol (w = 1): 0.72 × (25 + 4) = 20.88 per
    /// 1k take-first, 0.72 × (25 + 9) = 24.48 no-cancel. Only with `client` in `failover_on`
    /// does a bad request go on to Haiku, once: 0.28 more attempts and 0.5 s more dead time.
    #[test]
    fn a_client_error_on_either_hedge_leg_fails_the_request() {
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let mut c = mixed(&[SOL, SONNET, HAIKU], &[0.2, 0.1, 0.3], CLIENT);
        for (pattern, cost) in [
            (Pattern::HedgedTakeFirst, 20.88),
            (Pattern::HedgedNoCancel, 24.48),
        ] {
            let d = detailed(&r, &c, pattern).unwrap();
            assert_close(d.cost * 1000.0, cost);
            assert_close(d.failed, 0.28);
            assert_close(d.attempts, 2.0);
            assert_eq!(d.attempts_max, 2);
            assert_close(d.dead_time_s, 0.28 * 0.5);
            assert_close(d.answered_by[0], 0.72);
            assert_eq!(&d.answered_by[1..], &[0.0, 0.0]);
            assert_close(d.failed_attempts[0], 0.28);
            assert_close(d.failed_attempts[1], 0.28);
        }
        c.policy.failover_on.push(ErrorClass::Client);
        let d = detailed(&r, &c, Pattern::HedgedTakeFirst).unwrap();
        assert_close(d.cost * 1000.0, 20.88);
        assert_close(d.failed, 0.28);
        assert_close(d.attempts, 2.28);
        assert_eq!(d.attempts_max, 3);
        assert_close(d.dead_time_s, 0.28 * 1.0);
        assert_close(d.failed_attempts[2], 0.28);
        assert_close(d.answered_by[2], 0.0);
    }

    /// A quota error stops the chain after the race. Sol always out of quota: Sonnet, in
    /// flight, still answers (9 per 1k, nothing failed, 2 attempts). Both legs failing, half of
    /// their failures quota and half 5xx: only the 25% with two 5xx go on to Haiku (cold, 4.5
    /// per 1k); the 75% with a quota error fail after 0.5 s without trying it.
    #[test]
    fn a_quota_error_on_a_hedge_leg_stops_the_chain() {
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let c = mixed(&[SOL, SONNET, HAIKU], &[1.0, 0.0, 0.0], QUOTA);
        for pattern in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            let d = detailed(&r, &c, pattern).unwrap();
            assert_close(d.cost * 1000.0, 9.0);
            assert_close(d.failed, 0.0);
            assert_close(d.attempts, 2.0);
            assert_eq!(d.answered_by, vec![0.0, 1.0, 0.0]);
            assert_close(d.dead_time_s, 0.0);
        }
        let c = mixed(
            &[SOL, SONNET, HAIKU],
            &[1.0, 1.0, 0.0],
            [0.0, 0.0, 0.5, 0.0, 0.0, 0.5],
        );
        let d = detailed(&r, &c, Pattern::HedgedTakeFirst).unwrap();
        assert_close(d.cost * 1000.0, 0.25 * 4.5);
        assert_close(d.failed, 0.75);
        assert_close(d.attempts, 2.25);
        assert_eq!(d.attempts_max, 3);
        assert_eq!(d.answered_by, vec![0.0, 0.0, 0.25]);
        // every request waits for both legs' fast failures; Haiku then answers at once
        assert_close(d.dead_time_s, 0.5);
    }

    /// A delayed hedge (d = 2 s) whose primary fails fast (0.5 s) before d follows the
    /// sequential rules: a quota error stops the request there, the backup never sent (1
    /// attempt); so does a 400, unless `client` fails over: then Sonnet and Haiku are tried
    /// once each, failing the same way (3 attempts, 1.5 s).
    #[test]
    fn a_delayed_hedge_stops_on_quota_and_client_errors_before_the_delay() {
        let r = req(2000.0, 500.0, 0.0, 0.0);
        for shares in [QUOTA, CLIENT] {
            let mut c = mixed(&[SOL, SONNET, HAIKU], &[1.0, 0.0, 0.0], shares);
            c.policy.hedge_delay_s = Some(2.0);
            let d = detailed(&r, &c, Pattern::HedgedTakeFirst).unwrap();
            assert_eq!(
                (d.cost, d.failed, d.attempts, d.attempts_max),
                (0.0, 1.0, 1.0, 1)
            );
            assert_close(d.dead_time_s, 0.5);
            assert_eq!(d.answered_by, vec![0.0; 3]);
        }
        let mut c = mixed(&[SOL, SONNET, HAIKU], &[1.0, 0.0, 0.0], CLIENT);
        c.policy.hedge_delay_s = Some(2.0);
        c.policy.failover_on.push(ErrorClass::Client);
        let d = detailed(&r, &c, Pattern::HedgedTakeFirst).unwrap();
        assert_eq!(
            (d.cost, d.failed, d.attempts, d.attempts_max),
            (0.0, 1.0, 3.0, 3)
        );
        assert_close(d.dead_time_s, 1.5);
    }

    /// In a delayed race a 400 on the backup makes the request bad: Sol (3 s, still running
    /// at d = 2 s) returns the same error and bills 0; the request fails when the backup's
    /// error comes back, at 2.5 s.
    #[test]
    fn a_client_error_on_a_delayed_backup_fails_both_legs() {
        let mut c = mixed(&[SOL, SONNET], &[0.0, 1.0], CLIENT);
        set_latency(&mut c, &[fixed(3.0), fixed(0.5)]);
        c.policy.hedge_delay_s = Some(2.0);
        let d = detailed(&req(2000.0, 500.0, 0.0, 0.0), &c, Pattern::HedgedNoCancel).unwrap();
        assert_eq!((d.cost, d.failed, d.attempts), (0.0, 1.0, 2.0));
        assert_close(d.dead_time_s, 2.5);
    }

    /// With no delay, the delayed hedge is the simultaneous hedge (w from the latency model).
    #[test]
    fn zero_delay_is_the_simultaneous_hedge() {
        let mut c = chain(
            &[SOL, SONNET, "anthropic/claude-haiku-4-5"],
            &[0.02, 0.05, 0.1],
            0.01,
        );
        set_latency(
            &mut c,
            &[
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
            ],
        );
        c.policy.timeout_s = 10.0;
        c.steady.primary_win_rate =
            crate::model::latency::primary_win_rate(&c.links[0].latency, &c.links[1].latency, 10.0);
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

    const OPUS: &str = "anthropic/claude-opus-5";
    const ASTRA: &str = "openai/gpt-6-astra";
    const G6SOL: &str = "openai/gpt-6-sol";

    /// The three-down post's complex tier, Opus 5 → GPT-6 Astra → GPT-6 Sol, at
    /// max_multiplier 1.5 (Astra, exactly 2× Opus, is skipped), f = 10% on Opus: a cost-cap hit
    /// is a request whose route the cap changed. `no-fallback` never fails over: 0.
    /// `sequential`: the 10% that fail over from Opus go to Sol past Astra: 0.1. A simultaneous
    /// hedge sends every backup to Sol instead of Astra: 1. A delayed hedge only the requests
    /// whose backup is sent: with Opus fixed at 3 s, all of them at d = 2 s (Opus is still
    /// running); at d = 3.5 s only the 10% that fail (fast ones at 0.5 s, before d; gray ones
    /// still hanging at d). With Opus lognormal (p50 2 s, p99 10 s, σ = ln 5 / 2.3263 =
    /// 0.69183), T = 30 s and d = 6 s: P(answered by d | healthy) = Φ(ln 3 / σ) / Φ(ln 15 / σ)
    /// = 0.943855 / 0.999955, so 1 − 0.9 × 0.943897 = 0.150492 of requests send the backup.
    /// MODEL.md §11: a fallback that cannot serve the request is passed over. Opus 5 → GPT-6
    /// Astra (refusing) → GPT-6 Sol, f = 10% on Opus (half gray): every pattern's figures are
    /// those of Opus 5 → GPT-6 Sol, and the refusals count as the cost cap's hits do: 0, 0.1
    /// (the failovers), 1 (every backup) and, with Opus fixed at 3 s and d = 3.5 s, 0.1.
    #[test]
    fn a_fallback_that_cannot_serve_the_request_is_passed_over() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[OPUS, ASTRA, G6SOL], &[0.1, 0.0, 0.0], 0.0);
        c.steady.gray_fraction = 0.5;
        c.links[1].refusal = Some(crate::model::fit::Refusal {
            overflow: None,
            lacks: vec![crate::model::fit::Capability::Vision],
        });
        let mut two = chain(&[OPUS, G6SOL], &[0.1, 0.0], 0.0);
        two.steady.gray_fraction = 0.5;
        assert_eq!(policy::allowed_links(&r, &c), vec![0, 2]);
        assert!(!c.has_default_policy() && two.has_default_policy());
        let want = [
            (Pattern::NoFallback, 0.0),
            (Pattern::Sequential, 0.1),
            (Pattern::HedgedTakeFirst, 1.0),
            (Pattern::HedgedNoCancel, 1.0),
        ];
        for (p, refused) in want {
            let (a, b) = (detailed(&r, &c, p).unwrap(), detailed(&r, &two, p).unwrap());
            assert_close(a.cost, b.cost);
            assert_close(a.failed, b.failed);
            assert_close(a.attempts, b.attempts);
            assert_close(a.dead_time_s, b.dead_time_s);
            assert_close(a.answered_by[2], b.answered_by[1]);
            assert_eq!((a.answered_by[1], a.cost_cap_hits), (0.0, 0.0), "{p:?}");
            assert_close(a.refused_hits, refused);
            assert_eq!(b.refused_hits, 0.0);
        }
        set_latency(&mut c, &[fixed(3.0), fixed(1.0), fixed(0.5)]);
        c.policy.hedge_delay_s = Some(3.5);
        for p in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            assert_close(detailed(&r, &c, p).unwrap().refused_hits, 0.1);
        }
    }

    #[test]
    fn cost_cap_hits_are_the_requests_the_cap_moved() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[OPUS, ASTRA, G6SOL], &[0.1, 0.0, 0.0], 0.0);
        c.steady.gray_fraction = 0.5;
        c.policy.max_multiplier = Some(1.5);
        c.policy.timeout_s = 30.0;
        assert_eq!(policy::allowed_links(&r, &c), vec![0, 2]);
        let hits = |c: &Chain, p: Pattern| detailed(&r, c, p).unwrap().cost_cap_hits;
        assert_eq!(hits(&c, Pattern::NoFallback), 0.0);
        assert_close(hits(&c, Pattern::Sequential), 0.1);
        for p in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            assert_close(hits(&c, p), 1.0);
        }
        set_latency(&mut c, &[fixed(3.0), fixed(1.0), fixed(0.5)]);
        for (d, want) in [(2.0, 1.0), (3.5, 0.1)] {
            c.policy.hedge_delay_s = Some(d);
            for p in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
                assert_close(hits(&c, p), want);
            }
            // the delay changes nothing for the sequential patterns
            assert_eq!(hits(&c, Pattern::NoFallback), 0.0);
            assert_close(hits(&c, Pattern::Sequential), 0.1);
        }
        c.links[0].latency = crate::model::latency::Latency {
            p50_s: 2.0,
            p99_s: 10.0,
            ..Default::default()
        };
        c.policy.hedge_delay_s = Some(6.0);
        for p in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
            assert!((hits(&c, p) - 0.150492).abs() < 5e-7, "{}", hits(&c, p));
        }
    }

    /// Issue 13: each link its own timeout ([`crate::model::chain::tests::two_timeouts`]): Sol
    /// at T₀ = 12 s, Sonnet at T₁ = 24 s, both tripping 1% of healthy attempts, f = 10% and
    /// 20% gray. q₀ = 0.1 + 0.9 × 0.01 = 0.109, q₁ = 0.2 + 0.8 × 0.01 = 0.208. On 2,000 in +
    /// 500 out, per 1k: Sol C₀ = 25, W₀ (input + half the output, gray and trips alike) 17.5;
    /// Sonnet C₁ = 9, W₁ = 6.5.
    /// - sequential: 0.891 × 25 + 0.109 × 17.5 + 0.109 × (0.792 × 9 + 0.208 × 6.5) = 25.10682;
    ///   dead time 0.109 × 12 + 0.109 × 0.208 × 24 = 1.308 + 0.544128 = 1.852128 s (the
    ///   policy's 30 s on every link would make each failure cost 30 s);
    /// - no-fallback: 0.891 × 25 + 0.109 × 17.5 = 24.1825, dead time 1.308 s;
    /// - failed 0.109 × 0.208 = 0.022672; attempts 1 + 0.109; wasted attempts (the failed
    ///   ones) 0.109 + 0.022672 = 0.131672.
    #[test]
    fn each_link_its_own_timeout_by_hand() {
        let c = crate::model::chain::tests::two_timeouts();
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let seq = detailed(&r, &c, Pattern::Sequential).unwrap();
        assert_close(seq.cost * 1000.0, 25.10682);
        assert_close(seq.dead_time_s, 1.852128);
        assert_close(seq.failed, 0.022672);
        assert_close(seq.attempts, 1.109);
        assert_close(seq.summary().wasted_attempts_per_1k, 0.131672);
        let nf = detailed(&r, &c, Pattern::NoFallback).unwrap();
        assert_close(nf.cost * 1000.0, 24.1825);
        assert_close(nf.dead_time_s, 1.308);
        assert_close(nf.failed, 0.109);
        // Hedged: both legs fail with q₀q₁, the slower failure (Sonnet's 24 s) ending the race.
        let h = detailed(&r, &c, Pattern::HedgedNoCancel).unwrap();
        assert_close(h.failed, 0.022672);
        let w = c.steady.primary_win_rate;
        // both answer: the loser's start is 0 (both at once); Sol failed, Sonnet answered: 0;
        // both failed: max(12, 24) = 24 s of dead time.
        assert_close(h.dead_time_s, 0.022672 * 24.0);
        // no-cancel bills both answers when both succeed: 0.891 × 0.792 × (25 + 9) + …
        let want = 0.891 * 0.792 * 34.0
            + 0.891 * 0.208 * (25.0 + 6.5)
            + 0.109 * 0.792 * (17.5 + 9.0)
            + 0.109 * 0.208 * (17.5 + 6.5);
        assert_close(h.cost * 1000.0, want);
        assert!(w > 0.5 && w < 1.0, "{w}");
    }

    /// Without a cost cap, or with one that skips nothing, no pattern has cost-cap hits.
    #[test]
    fn no_cost_cap_hits_without_a_skip() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[OPUS, ASTRA, G6SOL], &[0.1, 0.2, 0.0], 0.0);
        for m in [None, Some(2.0)] {
            c.policy.max_multiplier = m;
            for p in Pattern::ALL {
                assert_eq!(detailed(&r, &c, p).unwrap().cost_cap_hits, 0.0, "{p:?}");
            }
        }
    }
}
