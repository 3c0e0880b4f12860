//! The incident simulation in time on a timeline (issue 14): the event simulator
//! (`sim::incident::events`) looks each link's state up at each attempt's time.
//!
//! - Without a breaker its request counts agree with the analytic piecewise figures
//!   (`model::timeline::piecewise`, exact): failed requests, wasted attempts (attempts − answered),
//!   attempts on links in an outage. The hand-computed values are docs/timeline-notes.md's.
//! - The one-outage timeline gives the shorthand's figures (sept3: 513.58 USD, 558 cold starts,
//!   558 fail-back writes).
//! - A partial outage with a breaker flaps (it opens from closed many times); a full one opens
//!   it once.
//! - Cold starts and fail-back writes against the analytic engine, exact over where sessions
//!   fall (`model::timeline::sessions`): within 4 standard errors.
//! - The same seed gives the same windows on one or two threads.

use std::path::Path;

use fallcost::input::pricing::bundled;
use fallcost::input::scenario;
use fallcost::model::cost::Request;
use fallcost::model::policy::Breaker;
use fallcost::model::timeline::{
    self, LinkRef, Outage, OutageFailure, OutageTarget, Timeline, request_shares,
};
use fallcost::model::{Chain, Incident, Link, Pattern};
use fallcost::sim::McOptions;
use fallcost::sim::incident::events::{PolicyIncidentMc, simulate};
use fallcost::sim::stats::{Sum, Z999};

/// 3h6m, the September 3 window, seconds.
const D: f64 = 11_160.0;

/// sept3.toml's request and its price-matched chain (Sonnet 5 → GPT-6 Sol), no steady
/// failures; `third`: a third link, DeepSeek V4 Flash (the 2026-07 table has no Grok: DeepSeek
/// stands in for the third provider).
fn sept3(third: bool) -> (Request, Chain, Incident) {
    let s = scenario::load(Path::new("scenarios/sept3.toml"), &[]).unwrap();
    let mut chain = s.chains[0].clone();
    for l in &mut chain.links {
        l.failure_rate = 0.0;
        l.trip_rate = 0.0;
    }
    if third {
        let prices = bundled("2026-07").unwrap();
        let flash = prices.get("deepseek/deepseek-v4-flash").unwrap().clone();
        chain.links.push(Link::new(flash));
    }
    (s.request, chain, s.incident.unwrap())
}

fn provider(p: &str) -> OutageTarget {
    OutageTarget::Provider(p.into())
}

fn refs(chain: &Chain) -> Vec<LinkRef> {
    chain
        .links
        .iter()
        .map(|l| LinkRef {
            provider: l.price.provider.clone(),
            model: l.price.id.clone(),
        })
        .collect()
}

/// The timeline of docs/timeline-notes.md: Anthropic down all window, OpenAI 14:10-14:44
/// (offset 1 h, 34 min), the third provider 14:30-15:30 (offset 1h20m, 1 h). All fast.
fn three_down(anthropic_rate: f64) -> Timeline {
    Timeline::new(
        D,
        vec![
            Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Fast)
                .with_error_rate(anthropic_rate),
            Outage::new(
                provider("openai"),
                3600.0,
                Some(2040.0),
                OutageFailure::Fast,
            ),
            Outage::new(
                provider("deepseek"),
                4800.0,
                Some(3600.0),
                OutageFailure::Fast,
            ),
        ],
    )
    .unwrap()
}

fn run(
    r: &Request,
    c: &Chain,
    i: &Incident,
    pattern: Pattern,
    runs: u64,
    seed: u64,
) -> PolicyIncidentMc {
    let opts = McOptions {
        requests: 0,
        runs,
        seed,
    };
    simulate(r, c, i, pattern, 0, &opts, &mut |_| {}).unwrap()
}

/// The MC mean lies within its 99.9% interval of `want` (or is exactly it, for a figure the
/// same in every window).
fn assert_within(name: &str, sum: &Sum, want: f64) {
    let e = sum.estimate(Z999, 1.0);
    assert!(
        (e.lo <= want && want <= e.hi) || (sum.std_error() == 0.0 && (e.mean - want).abs() < 1e-9),
        "{name}: analytic {want} outside MC [{}, {}] (mean {})",
        e.lo,
        e.hi,
        e.mean
    );
}

/// Attempts on links in an outage (error rate > 0), analytic: Σ_σ λ·len·Σ_{k failing} reach_k.
fn outage_attempts(t: &Timeline, links: &[LinkRef], rate: f64) -> f64 {
    t.chain_segments(links)
        .iter()
        .map(|s| {
            let attempted: Vec<bool> = s.states.iter().map(|x| x.attempted()).collect();
            let mut reach = 1.0;
            let mut n = 0.0;
            for (k, p) in s.p.iter().enumerate() {
                if attempted[k] && *p > 0.0 {
                    n += reach;
                }
                reach *= p;
            }
            rate * s.len_s() * n
        })
        .sum()
}

/// Failed requests, wasted attempts and attempts on down links of the sequential pattern,
/// simulated on `t`, against `model::timeline::piecewise`; returns the analytic failed count.
fn assert_counts_agree(r: &Request, c: &Chain, i: &Incident, t: &Timeline, runs: u64) -> f64 {
    let inc = Incident {
        timeline: Some(t.clone()),
        ..i.clone()
    };
    let links = refs(c);
    let a = timeline::piecewise(t, &links, inc.requests_per_second);
    let m = run(r, c, &inc, Pattern::Sequential, runs, 3);
    assert_within("failed requests", &m.base.figures.failed_requests, a.failed);
    assert_within(
        "wasted attempts",
        &m.base.figures.wasted_attempts,
        a.failed_attempts,
    );
    assert_within(
        "attempts on down links",
        &m.dead_attempts,
        outage_attempts(t, &links, inc.requests_per_second),
    );
    a.failed
}

/// Sonnet → Sol with OpenAI down 34 minutes inside Anthropic's 3h6m at 1 req/s: the 2,040
/// requests of OpenAI's minutes fail (11,160 × 2,040/11,160), every request tries both links
/// (22,320 attempts, 9,120 answered: 13,200 wasted); 11,160 attempts on Anthropic + 2,040 on
/// OpenAI while down = 13,200 on down links. With a third provider (down 4800-8400 s) only the
/// 840 s all three were down fail (4,800..5,640).
#[test]
fn two_and_three_providers_down_agree_with_the_piecewise_counts() {
    let (r, c, i) = sept3(false);
    let failed = assert_counts_agree(&r, &c, &i, &three_down(1.0), 40);
    assert_eq!(failed, 2040.0);
    let (r, c3, i) = sept3(true);
    let failed = assert_counts_agree(&r, &c3, &i, &three_down(1.0), 40);
    assert_eq!(failed, 840.0);
}

/// Claude's outage was partial: at e = 0.5 Sonnet answers 5,580, Sol 0.5 × 9,120 = 4,560,
/// failed 0.5 × 2,040 = 1,020; attempts 11,160 + 5,580 = 16,740, wasted 16,740 − 10,140 =
/// 6,600.
#[test]
fn a_partial_outage_agrees_with_the_piecewise_counts() {
    let (r, c, i) = sept3(false);
    let t = three_down(0.5);
    let failed = assert_counts_agree(&r, &c, &i, &t, 40);
    assert_eq!(failed, 1020.0);
    let a = timeline::piecewise(&t, &refs(&c), 1.0);
    assert_eq!(a.failed_attempts, 6600.0);
}

/// Steady failure rates combine with the outage's as independent causes: Sol failing 10% in
/// steady state, OpenAI down at e = 0.5 for the window's second half, Anthropic down
/// throughout. Per request in the second half Sol fails with 1 − 0.9 × 0.5 = 0.55.
#[test]
fn steady_and_outage_failures_are_independent_causes() {
    let (r, mut c, mut i) = sept3(false);
    c.links[1].failure_rate = 0.1;
    i.duration_s = 2000.0;
    let t = Timeline::new(
        2000.0,
        vec![
            Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Fast),
            Outage::new(provider("openai"), 1000.0, None, OutageFailure::Gray).with_error_rate(0.5),
        ],
    )
    .unwrap();
    // failed = 1,000 × 0.1 + 1,000 × 0.55 = 650 (the piecewise shares with p_Sol = 0.1, 0.55)
    let want: f64 = [0.1, 0.55]
        .iter()
        .map(|&p| 1000.0 * request_shares(&[1.0, p], &[true, true]).failed)
        .sum();
    assert!((want - 650.0).abs() < 1e-9);
    let inc = Incident {
        timeline: Some(t),
        ..i
    };
    let m = run(&r, &c, &inc, Pattern::Sequential, 60, 5);
    assert_within("failed requests", &m.base.figures.failed_requests, want);
    // attempts on down links: 2,000 on Anthropic + 1,000 on OpenAI in its half
    assert_within("attempts on down links", &m.dead_attempts, 3000.0);
}

/// The post's drill: 30 minutes at 0.2 req/s with the primary's breaker opened by hand: no
/// attempt on Sonnet, every one of the 360 requests answered by Sol at its first attempt.
#[test]
fn a_drill_sends_no_attempt_to_the_primary() {
    let (r, c, mut i) = sept3(false);
    i.duration_s = 1800.0;
    i.requests_per_second = 0.2;
    i.timeline = Some(
        Timeline::new(
            1800.0,
            vec![Outage::new(
                provider("anthropic"),
                0.0,
                None,
                OutageFailure::Drill,
            )],
        )
        .unwrap(),
    );
    let m = run(&r, &c, &i, Pattern::Sequential, 5, 1);
    assert_eq!(m.base.figures.failed_requests.mean(), 0.0);
    assert_eq!(m.base.figures.wasted_attempts.mean(), 0.0);
    assert_eq!(m.dead_attempts.mean(), 0.0);
    // 18 sessions of 20: one cold start on Sol each; 1,800 s > Sonnet's 300 s TTL: 18
    // fail-back writes.
    assert_eq!(m.base.figures.cold_starts.mean(), 18.0);
    assert_eq!(m.base.figures.failback_writes.mean(), 18.0);
}

/// A timeline of one outage, Anthropic down the whole window, is the shorthand: the event
/// simulator on it gives MODEL.md §6's figures, which no longer come from the closed form's
/// fail-back rule but from the simulated sessions: 558 cold starts on Sol, 558 fail-back
/// writes, 513.58 USD (1.32x), nothing failed.
#[test]
fn the_one_outage_timeline_gives_the_shorthands_figures() {
    let (r, c, i) = sept3(false);
    let inc = Incident {
        timeline: Some(Timeline::whole_window(D, "anthropic", OutageFailure::Fast).unwrap()),
        ..i.clone()
    };
    let m = run(&r, &c, &inc, Pattern::Sequential, 4, 2);
    assert_eq!(m.base.figures.cold_starts.mean(), 558.0);
    assert_eq!(m.base.figures.failback_writes.mean(), 558.0);
    assert_eq!(m.base.figures.failed_requests.mean(), 0.0);
    assert!(
        (m.base.figures.total_usd.mean() - 513.5832).abs() < 1e-6,
        "{}",
        m.base.figures.total_usd.mean()
    );
    assert!((m.base.figures.multiplier.unwrap().mean() - 1.3224).abs() < 1e-4);
    // and the shorthand itself, on the same simulator
    let s = run(&r, &c, &i, Pattern::Sequential, 4, 2);
    assert!((s.base.figures.total_usd.mean() - m.base.figures.total_usd.mean()).abs() < 1e-9);
}

fn breaker(c: &mut Chain) {
    c.policy.breaker = Some(Breaker {
        threshold: 5,
        cooldown_s: 60.0,
    });
}

/// A breaker (5 consecutive failures, 60 s cooldown) on Sonnet → Sol for an hour at 1 req/s.
/// At e = 1 it opens once and every probe fails: it stays open. At e = 0.5 a probe succeeds
/// half the time and closes it; closed, 5 failures in a row come about every 62 requests
/// ((2⁵⁺¹ − 2) for a fair coin), so it flaps: open 60 s + probe, closed ~62 s, about
/// 3,600 / 120 ≈ 30 openings; the test asks for more than 10.
#[test]
fn a_partial_outage_makes_the_breaker_flap() {
    let (r, mut c, mut i) = sept3(false);
    breaker(&mut c);
    i.duration_s = 3600.0;
    let at = |e: f64| Incident {
        timeline: Some(
            Timeline::new(
                3600.0,
                vec![
                    Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Fast)
                        .with_error_rate(e),
                ],
            )
            .unwrap(),
        ),
        ..i.clone()
    };
    let full = run(&r, &c, &at(1.0), Pattern::Sequential, 10, 4);
    assert_eq!(full.opens.mean(), 1.0);
    assert!(full.probes.mean() > 50.0);
    let half = run(&r, &c, &at(0.5), Pattern::Sequential, 10, 4);
    let opens = half.opens.mean();
    assert!(opens > 10.0, "{opens} openings at e = 0.5");
    // each opening is followed by a cooldown: open at least 60 s per opening (clipped at D)
    assert!(half.open_s.mean() > 60.0 * (opens - 1.0));
    // the shorthand's breaker: down throughout, one opening
    let short = run(&r, &c, &i, Pattern::Sequential, 10, 4);
    assert_eq!(short.opens.mean(), 1.0);
}

/// Cold starts on the fallback and fail-back writes, simulated (sessions of 20 placed by the
/// arrivals, across cuts) against the analytic engine (exact over the sessions' placements).
/// Returns (simulated mean, its standard error, analytic) and the engine's bound
/// (`timeline_bound`: requests whose attempts cross a cut, sessions where caches expire).
fn cache_gap(r: &Request, c: &Chain, i: &Incident, t: &Timeline) -> ([(f64, f64, f64); 2], f64) {
    let inc = Incident {
        timeline: Some(t.clone()),
        ..i.clone()
    };
    let a = fallcost::model::incident::evaluate(r, c, &inc, Pattern::Sequential).unwrap();
    let m = run(r, c, &inc, Pattern::Sequential, 40, 9);
    let b = fallcost::model::incident::timeline_bound(r, c, &inc, Pattern::Sequential).unwrap();
    let figures = [
        (
            m.base.figures.cold_starts.mean(),
            m.base.figures.cold_starts.std_error(),
            a.cold_starts,
        ),
        (
            m.base.figures.failback_writes.mean(),
            m.base.figures.failback_writes.std_error(),
            a.failback_writes,
        ),
    ];
    (figures, b.requests + b.sessions)
}

/// Three timelines (numbers in the test output with `--nocapture`): the Sept 3 timeline (two
/// cuts that matter for Sol), two Anthropic outages of 600 s and 200 s (TTL 300 s) in 2,000 s,
/// and a partial primary (e = 0.5) with OpenAI down 34 minutes. Before issue 21 the analytic
/// engine counted sessions per segment (456 cold starts on Sept 3 against 456.95 exact) and
/// charged every session of a silent run a fail-back write (558).
#[test]
fn cold_starts_and_failback_writes_agree_with_the_exact_placement() {
    let (r, c, i) = sept3(false);
    let two_runs = Timeline::new(
        2000.0,
        vec![
            Outage::new(
                provider("anthropic"),
                100.0,
                Some(600.0),
                OutageFailure::Fast,
            ),
            Outage::new(
                provider("anthropic"),
                1000.0,
                Some(200.0),
                OutageFailure::Fast,
            ),
        ],
    )
    .unwrap();
    let short = Incident {
        duration_s: 2000.0,
        ..i.clone()
    };
    let cases = [
        ("sept3 timeline", three_down(1.0), &i),
        ("two anthropic runs", two_runs, &short),
        ("partial primary e=0.5", three_down(0.5), &i),
    ];
    for (name, t, inc) in cases {
        let ([cold, fw], slack) = cache_gap(&r, &c, inc, &t);
        println!(
            "{name}: cold starts MC {:.3} ± {:.3} vs analytic {:.3}; fail-back writes MC {:.3} ± {:.3} vs {:.3}",
            cold.0, cold.1, cold.2, fw.0, fw.1, fw.2
        );
        for (what, (mc, se, a)) in [("cold starts", cold), ("fail-back writes", fw)] {
            // a fast failure delays the fallback's attempt by 0.5 s: ~0.5 request per cut
            assert!(
                (mc - a).abs() <= 4.0 * se + slack,
                "{name} {what}: MC {mc} ± {se}, analytic {a}"
            );
        }
    }
}

/// The same seed gives the same windows on one or two threads, on a timeline with a breaker.
#[test]
fn same_seed_same_windows_on_any_thread_count() {
    let (r, mut c, mut i) = sept3(false);
    breaker(&mut c);
    i.duration_s = 1200.0;
    i.timeline = Some(
        Timeline::new(
            1200.0,
            vec![
                Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Gray)
                    .with_error_rate(0.5),
                Outage::new(provider("openai"), 300.0, Some(300.0), OutageFailure::Fast),
            ],
        )
        .unwrap(),
    );
    let go = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&r, &c, &i, Pattern::HedgedTakeFirst, 40, 8))
    };
    assert_eq!(go(1), go(2));
}

/// `compare --mc` on a timeline (ops::compare, the library half of the command): every chain's
/// incident rows get Monte Carlo figures from the event simulator, the breaker's openings
/// appear on the breaker chain's own rows (`breaker_opens`, flapping at e = 0.5), and the report
/// is the same on one or two threads.
#[test]
fn compare_mc_prints_timeline_rows_the_same_on_any_thread_count() {
    let mut s = scenario::load(Path::new("scenarios/sept3.toml"), &[]).unwrap();
    breaker(&mut s.chains[0]);
    let inc = s.incident.as_mut().unwrap();
    inc.duration_s = 3600.0;
    inc.timeline = Some(
        Timeline::new(
            3600.0,
            vec![
                Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Fast)
                    .with_error_rate(0.5),
                Outage::new(provider("openai"), 600.0, Some(600.0), OutageFailure::Fast),
            ],
        )
        .unwrap(),
    );
    let opts = McOptions {
        requests: 20_000,
        runs: 8,
        seed: 7,
    };
    // The rows' figures (the breaker chain's simulated with a fixed seed: `sim::expected`)
    // once; the Monte Carlo on one and on two threads.
    let rows = fallcost::ops::compare::analytic(&s);
    let go = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut report = rows.clone();
                fallcost::ops::compare::simulate(&mut report, &opts, &mut |_| {});
                serde_json::to_value(&report).unwrap()
            })
    };
    let one = go(1);
    assert_eq!(one, go(2));
    let rows = one["incident"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        assert!(row["mc"]["total_usd"].is_number(), "{row}");
    }
    let own = rows
        .iter()
        .find(|r| r["chain"] == "price-matched" && r["pattern"] == "sequential")
        .unwrap();
    let opens = own["mc"]["policy"]["breaker_opens"].as_f64().unwrap();
    assert!(opens > 10.0, "{own}");
    // the chain without a breaker has no breaker figures
    let other = rows
        .iter()
        .find(|r| r["chain"] == "best-available" && r["pattern"] == "sequential")
        .unwrap();
    assert!(
        other["mc"]["policy"].get("breaker_opens").is_none(),
        "{other}"
    );
}

/// Against the analytic engine on a timeline (`model::incident::evaluate`, tl-analytic's
/// piecewise engine), every pattern, no breaker: the request counts and the window bill agree
/// within the MC's 99.9% interval; cold starts and fail-back writes within 4 standard errors
/// and the engine's own bound (`timeline_bound`: the requests whose later attempts cross a cut).
#[test]
fn the_simulation_agrees_with_the_analytic_timeline_engine() {
    let (r, c2, i) = sept3(false);
    let (_, c3, _) = sept3(true);
    // Gray: Anthropic hanging on 70% of requests, OpenAI down fast for 34 min, DeepSeek slow
    // (latency x3) then down gray.
    let gray = Timeline::new(
        D,
        vec![
            Outage::new(provider("anthropic"), 0.0, None, OutageFailure::Gray).with_error_rate(0.7),
            Outage::new(
                provider("openai"),
                3600.0,
                Some(2040.0),
                OutageFailure::Fast,
            ),
            Outage::new(
                provider("deepseek"),
                4800.0,
                Some(3600.0),
                OutageFailure::Gray,
            ),
        ],
    )
    .unwrap();
    for (name, c, t) in [
        ("sept3", &c2, three_down(1.0)),
        ("partial e=0.5", &c2, three_down(0.5)),
        ("three links", &c3, three_down(1.0)),
        ("gray three links", &c3, gray),
    ] {
        let cuts = t.chain_segments(&refs(c)).len() as f64 - 1.0;
        let inc = Incident {
            timeline: Some(t),
            ..i.clone()
        };
        for pattern in Pattern::ALL {
            let Some(a) = fallcost::model::incident::evaluate(&r, c, &inc, pattern) else {
                continue;
            };
            let m = run(&r, c, &inc, pattern, 30, 12);
            let b = &m.base.figures;
            let bound = fallcost::model::incident::timeline_bound(&r, c, &inc, pattern).unwrap();
            let p = pattern.as_str();
            if name.starts_with("gray") {
                // In time a request reaches a later link when the hanging one times out, T =
                // 30 s after it arrived, and sees that link's state then; the analytic engine
                // gives all of a request's attempts its arrival segment. Where the delay moves
                // an attempt across a cut the two differ: at most λ·T requests per cut.
                let slack = bound.requests;
                assert!(slack <= inc.requests_per_second * c.policy.timeout_s * 3.0 * cuts);
                for (what, sum, want) in [
                    ("failed", &b.failed_requests, a.failed_requests),
                    ("wasted attempts", &b.wasted_attempts, a.wasted_attempts),
                ] {
                    let e = sum.estimate(Z999, 1.0);
                    println!(
                        "{name} {p} {what}: MC {:.1} [{:.1}, {:.1}], analytic {want:.1}",
                        e.mean, e.lo, e.hi
                    );
                    assert!(
                        want >= e.lo - slack && want <= e.hi + slack,
                        "{name} {p} {what}: analytic {want} outside MC [{}, {}] ± {slack}",
                        e.lo,
                        e.hi
                    );
                }
                let e = b.window_usd.estimate(Z999, 1.0);
                println!(
                    "{name} {p} window: MC {:.2} [{:.2}, {:.2}], analytic {:.2}",
                    e.mean, e.lo, e.hi, a.window
                );
                assert!((e.mean / a.window - 1.0).abs() < 0.02, "{name} {p} window");
            } else {
                assert_within(
                    &format!("{name} {p} failed"),
                    &b.failed_requests,
                    a.failed_requests,
                );
                assert_within(
                    &format!("{name} {p} wasted attempts"),
                    &b.wasted_attempts,
                    a.wasted_attempts,
                );
                assert_within(&format!("{name} {p} window"), &b.window_usd, a.window);
            }
            for (what, sum, want) in [
                ("cold starts", &b.cold_starts, a.cold_starts),
                ("fail-back writes", &b.failback_writes, a.failback_writes),
            ] {
                let (mc, se) = (sum.mean(), sum.std_error());
                println!("{name} {p} {what}: MC {mc:.3} ± {se:.3}, analytic {want:.3}");
                assert!(
                    (mc - want).abs() <= bound.requests + bound.sessions + 4.0 * se + 1e-9,
                    "{name} {p} {what}: MC {mc} ± {se}, analytic {want}"
                );
            }
        }
    }
}

/// A partial outage's draw is per request and link (MODEL.md §6, "Timelines"): a request that
/// finds Sonnet down (e = 0.5) fails its 2 retries there too and goes on to Sol. Anthropic at
/// e = 0.5 for the whole window, OpenAI down 3,600–5,640 s, retries 2, fast failures: of
/// 11,160 requests half find Sonnet down, making 3 attempts there; in OpenAI's 2,040 s those
/// also fail on Sol (3 attempts more): failed 0.5 × 2,040 = 1,020, wasted attempts
/// 0.5 × 11,160 × 3 + 1,020 × 3 = 19,800. Drawn per attempt, only 0.5³ would leave Sonnet
/// (failed 255): the simulation must agree with the analytic engine's 1,020.
#[test]
fn a_partial_outage_is_drawn_once_per_request_and_link() {
    let (r, mut c, i) = sept3(false);
    c.policy.retries = 2;
    let inc = Incident {
        timeline: Some(three_down(0.5)),
        ..i
    };
    let a = fallcost::model::incident::evaluate(&r, &c, &inc, Pattern::Sequential).unwrap();
    assert!(
        (a.failed_requests - 1020.0).abs() < 1e-6,
        "{}",
        a.failed_requests
    );
    assert!(
        (a.wasted_attempts - 19_800.0).abs() < 1e-6,
        "{}",
        a.wasted_attempts
    );
    let m = run(&r, &c, &inc, Pattern::Sequential, 30, 5);
    assert_within("failed", &m.base.figures.failed_requests, a.failed_requests);
    assert_within(
        "wasted attempts",
        &m.base.figures.wasted_attempts,
        a.wasted_attempts,
    );
}

/// Issue 21, item 3: a hedge whose primary leg is drilled sends the other leg alone, once,
/// without retries (every hedge leg is one attempt, `model::hedge`; a drilled leg is a leg the
/// breaker refuses), then the links after it under the policy. Anthropic drilled 1,200 s at
/// λ = 1, Sonnet 5 ⇢ Sol (failing 20%, fast) → Luna, 2 retries, no backoff: Sol answers 0.8,
/// its failures go on to Luna, which answers: 0.2 × 1,200 = 240 wasted attempts, none failed.
/// Before, the analytic engine retried Sol as in sequence: 1,200 × (0.2 + 0.04 + 0.008) = 297.6.
#[test]
fn a_drilled_hedge_leg_is_not_retried() {
    let (r, mut c, i) = sept3(false);
    let prices = bundled("2026-07").unwrap();
    c.links
        .push(Link::new(prices.get("openai/gpt-6-luna").unwrap().clone()));
    c.links[1].failure_rate = 0.2;
    c.steady.gray_fraction = 0.0;
    c.policy.retries = 2;
    c.policy.backoff.base_s = 0.0;
    c.policy.backoff.cap_s = 0.0;
    let inc = Incident {
        duration_s: 1200.0,
        timeline: Some(
            Timeline::new(
                1200.0,
                vec![Outage::new(
                    provider("anthropic"),
                    0.0,
                    None,
                    OutageFailure::Drill,
                )],
            )
            .unwrap(),
        ),
        ..i
    };
    for pattern in [Pattern::HedgedTakeFirst, Pattern::HedgedNoCancel] {
        let a = fallcost::model::incident::evaluate(&r, &c, &inc, pattern).unwrap();
        assert!((a.wasted_attempts - 240.0).abs() < 1e-9, "{a:?}");
        assert_eq!(a.failed_requests, 0.0);
        let m = run(&r, &c, &inc, pattern, 40, 3);
        assert_within(
            "wasted attempts",
            &m.base.figures.wasted_attempts,
            a.wasted_attempts,
        );
        assert_within("window", &m.base.figures.window_usd, a.window);
    }
    // in sequence Sol is retried: 297.6
    let s = fallcost::model::incident::evaluate(&r, &c, &inc, Pattern::Sequential).unwrap();
    assert!((s.wasted_attempts - 297.6).abs() < 1e-9, "{s:?}");
}

/// Issue 21, item 6: a dead explicit-caching fallback on a timeline, its failed attempts booked
/// as in the analytic engine. GPT-6 Sol → Sonnet 5, both providers hanging (gray) all 600 s at
/// λ = 1: every Sonnet attempt is billed as a write would be (`always`), 0.156, of which the
/// premium over its warm gray price 0.0288, 0.1272, is a cold-start cost: 600 × 0.1272 =
/// 76.32; the window holds Sol's warm gray attempts (also 0.0288: 60,000 × 0.38 + 600 × 10,
/// per 1e6) and Sonnet's at warm: 600 × 0.0576 = 34.56. Before, the simulation put the premium in the window (cold 0 against
/// 76.32; the total agreed).
#[test]
fn a_dead_fallbacks_premium_is_a_cold_start_in_both_engines() {
    let (r, mut c, i) = sept3(false);
    c.links.swap(0, 1);
    let gray = |p: &str| Outage::new(provider(p), 0.0, None, OutageFailure::Gray);
    let inc = Incident {
        duration_s: 600.0,
        timeline: Some(Timeline::new(600.0, vec![gray("openai"), gray("anthropic")]).unwrap()),
        ..i
    };
    let a = fallcost::model::incident::evaluate(&r, &c, &inc, Pattern::Sequential).unwrap();
    assert!((a.cold_start - 76.32).abs() < 1e-9, "{a:?}");
    assert!((a.window - 34.56).abs() < 1e-9, "{a:?}");
    let m = run(&r, &c, &inc, Pattern::Sequential, 20, 4);
    assert_within("cold start", &m.base.figures.cold_start_usd, a.cold_start);
    assert_within("window", &m.base.figures.window_usd, a.window);
}

/// Issue 21, item 5: retries that outlive a fast outage. Anthropic down [0, 300 s) of 900 s at
/// λ = 1, Sonnet 5 → Sol, 2 retries 20 s apart (no jitter): in time a request arriving in the
/// last 41 s retries after the outage ended and Sonnet answers it; the analytic engine prices
/// every request in its arrival segment (3 failed attempts, then Sol: 900 wasted). The
/// simulation's 900 − 2 × 20.5 − 20.5 = 838.5 is within the stated bound: λ × the segment's
/// dead time, 3 × 0.5 s + 2 × 20 s = 41.5 requests (× 2 links in attempts), which the JSON row
/// labels approximate and the table's note states. Before, the fast timeline's request
/// figures were called exact.
#[test]
fn retries_that_outlive_an_outage_are_within_the_stated_bound() {
    let (r, mut c, i) = sept3(false);
    c.policy.retries = 2;
    c.policy.backoff = fallcost::model::policy::Backoff {
        base_s: 20.0,
        cap_s: 20.0,
        jitter: fallcost::model::policy::Jitter::None,
    };
    let inc = Incident {
        duration_s: 900.0,
        timeline: Some(
            Timeline::new(
                900.0,
                vec![Outage::new(
                    provider("anthropic"),
                    0.0,
                    Some(300.0),
                    OutageFailure::Fast,
                )],
            )
            .unwrap(),
        ),
        ..i
    };
    let a = fallcost::model::incident::evaluate(&r, &c, &inc, Pattern::Sequential).unwrap();
    assert!((a.wasted_attempts - 900.0).abs() < 1e-9, "{a:?}");
    let b = fallcost::model::incident::timeline_bound(&r, &c, &inc, Pattern::Sequential).unwrap();
    assert!((b.requests - 41.5).abs() < 1e-9, "{b:?}");
    assert_eq!(b.sessions, 0.0);
    let m = run(&r, &c, &inc, Pattern::Sequential, 30, 6);
    let mc = m.base.figures.wasted_attempts.mean();
    println!(
        "wasted attempts: analytic {}, MC {mc:.1} ± {:.1}",
        a.wasted_attempts,
        m.base.figures.wasted_attempts.std_error()
    );
    assert!(
        (mc - 838.5).abs() < 4.0 * m.base.figures.wasted_attempts.std_error() + 1.0,
        "{mc}"
    );
    assert!((a.wasted_attempts - mc).abs() <= 2.0 * b.requests);
}
