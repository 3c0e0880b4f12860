//! Property tests of parsing and evaluation: no input makes fallcost panic, and every accepted
//! input prices to finite, non-negative numbers.

use std::path::Path;

use fallcost::input::scenario;
use fallcost::model::Pattern;
use proptest::prelude::*;

const MODELS: &[&str] = &[
    "openai/gpt-5.6-sol",
    "anthropic/claude-sonnet-5",
    "anthropic/claude-haiku-4-5",
    "anthropic/claude-opus-5",
    "deepseek/deepseek-v4-flash",
    "openai/gpt-6-luna",
    "openai/gpt-6-sol",
    "openai/gpt-6-astra",
];

fn parse(text: &str) -> Result<fallcost::model::Scenario, fallcost::error::InputError> {
    scenario::parse("prop.toml", text, Path::new("."), &[])
}

/// A rate: mostly in [0, 1] (its ends included), now and then out of range, NaN or infinite.
/// Five rates go into each scenario, so each is invalid about 1 time in 20: most scenarios
/// parse and are priced (the never-panic tests above cover malformed input).
fn wild_rate() -> impl Strategy<Value = String> {
    prop_oneof![
        36 => (0.0f64..=1.0).prop_map(|v| format!("{v:?}")),
        2 => prop_oneof![Just("0.0".to_string()), Just("1.0".to_string())],
        1 => prop_oneof![Just("nan".to_string()), Just("inf".to_string()), Just("-inf".to_string())],
        1 => (-10.0f64..10.0).prop_map(|v| format!("{v:?}")),
    ]
}

/// A duration: mostly valid, now and then zero or without a unit (rejected).
fn duration() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (1u64..=3600).prop_map(|s| format!("{s}s")),
        6 => (1u64..=365).prop_map(|d| format!("{d}d")),
        6 => (1u64..=48, 0u64..60).prop_map(|(h, m)| format!("{h}h{m}m")),
        1 => Just("0s".to_string()),
        1 => Just("90".to_string()),
    ]
}

prop_compose! {
    fn scenario_text()(
        input in 0u64..=1_000_000_000_000,
        output in 0u64..=1_000_000_000_000,
        prefix in 0u64..=1_000_000_000_000,
        hit in wild_rate(),
        chains in prop::collection::vec(prop::collection::vec(0..MODELS.len(), 1..4), 1..4),
        rates in prop::collection::vec(wild_rate(), 4),
        abandoned in prop_oneof![Just("partial"), Just("full")],
        incident in prop::option::of((duration(), 1e-3f64..1e6, 1u64..1_000_000, prop_oneof![Just("fast"), Just("gray")])),
    ) -> String {
        let mut t = format!(
            "pricing = \"2026-07\"\n[request]\ninput_tokens = {input}\noutput_tokens = {output}\nprefix_tokens = {prefix}\ncache_hit_rate = {hit}\n\
             [steady]\nfailure_rate = {}\ngray_fraction = {}\ngray_output_fraction = {}\ntimeout_trip_rate = {}\nabandoned_billing = \"{abandoned}\"\n",
            rates[0], rates[1], rates[2], rates[3]
        );
        for (i, links) in chains.iter().enumerate() {
            let models: Vec<String> = links.iter().map(|m| format!("\"{}\"", MODELS[*m])).collect();
            t.push_str(&format!("[[chain]]\nname = \"c{i}\"\nmodels = [{}]\n", models.join(", ")));
        }
        if let Some((d, rps, len, failure)) = incident {
            t.push_str(&format!(
                "[incident]\nduration = \"{d}\"\nrequests_per_second = {rps:?}\nsession_length = {len}\nfailure = \"{failure}\"\n"
            ));
        }
        t
    }
}

proptest! {
    // A fixed seed: CI runs the same cases every time (change it to explore others).
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261130),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any text at all: an error or a scenario, never a panic.
    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        let _ = parse(&text);
    }

    /// TOML-shaped noise: keys and values from the real format, shuffled.
    #[test]
    fn toml_shaped_noise_never_panics(lines in prop::collection::vec(
        prop_oneof![
            Just("[request]".to_string()), Just("[steady]".to_string()), Just("[incident]".to_string()),
            Just("[[chain]]".to_string()), Just("name = \"a\"".to_string()),
            Just("models = [\"openai/gpt-6-sol\"]".to_string()),
            Just("output_tokens = 5".to_string()), Just("failure_rate = 0.5".to_string()),
            Just("duration = \"1h\"".to_string()), Just("session_length = 3".to_string()),
            Just("requests_per_second = 2".to_string()), "[a-z_]{1,12} = [0-9.e+-]{1,8}",
        ], 0..20)) {
        let _ = parse(&lines.join("\n"));
    }
}

/// Generated scenarios, how many of them parse, and the least share that must: a generator
/// whose cases mostly fail to parse tests the pricing of almost nothing while looking busy.
const SCENARIO_CASES: u32 = 400;
const MIN_ACCEPTED_SHARE: f64 = 0.6;

/// Every accepted scenario prices to finite numbers; money is never negative; a fallback
/// never fails more requests than no fallback. Counts the generated scenarios that parse and
/// fails if fewer than [`MIN_ACCEPTED_SHARE`] do.
#[test]
fn accepted_scenarios_price_finite_and_non_negative() {
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    use std::cell::Cell;
    let mut runner = TestRunner::new(Config {
        cases: SCENARIO_CASES,
        rng_seed: RngSeed::Fixed(20261130),
        failure_persistence: None,
        ..Config::default()
    });
    let (generated, accepted) = (Cell::new(0u32), Cell::new(0u32));
    let result = runner.run(&scenario_text(), |text| {
        generated.set(generated.get() + 1);
        let Ok(s) = parse(&text) else {
            return Ok(());
        };
        accepted.set(accepted.get() + 1);
        let r = fallcost::ops::compare::analytic(&s);
        prop_assert_eq!(r.first_non_finite(), None, "{}", text);
        for row in &r.steady {
            prop_assert!(
                row.analytic.cost_per_1k_usd >= 0.0 && row.analytic.wasted_per_1k_usd >= 0.0
            );
            prop_assert!((0.0..=1000.0 + 1e-9).contains(&row.analytic.failed_per_1k));
        }
        for row in &r.incident {
            for v in [
                row.analytic.total_usd,
                row.normal(),
                row.analytic.window_usd,
                row.analytic.cold_start_usd,
                row.analytic.failback_usd,
                row.analytic.failed_requests,
            ] {
                prop_assert!(v >= 0.0, "{} in {:?}", v, row);
            }
        }
        for chain in &s.chains {
            let failed = |p: Pattern| {
                r.steady
                    .iter()
                    .find(|x| x.chain == chain.name && x.pattern == p)
                    .unwrap()
                    .analytic
                    .failed_per_1k
            };
            prop_assert!(failed(Pattern::Sequential) <= failed(Pattern::NoFallback) + 1e-9);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (generated, accepted) = (generated.get(), accepted.get());
    let share = f64::from(accepted) / f64::from(generated);
    println!(
        "generated scenarios: {generated}, accepted: {accepted} ({:.0}%)",
        share * 100.0
    );
    // Shrinking reruns cases, so at least the configured number ran.
    assert!(generated >= SCENARIO_CASES, "only {generated} cases ran");
    assert!(
        share >= MIN_ACCEPTED_SHARE,
        "only {accepted} of {generated} generated scenarios parse ({:.0}%, want at least {:.0}%): the generator wastes its cases",
        share * 100.0,
        MIN_ACCEPTED_SHARE * 100.0
    );
}

/// MODEL.md's numeric range: 1e12 tokens, 1e6 requests per second, a year-long outage and
/// 1e-9 $/MTok prices evaluate to exact, finite values.
#[test]
fn extreme_but_valid_values_price_exactly() {
    let dir = std::env::temp_dir().join(format!("fallcost-range-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("p.toml"),
        "[models.\"a/tiny\"]\ninput = 1e-9\noutput = 1e-9\ncaching = \"none\"\n\
         [models.\"b/big\"]\ninput = 1000\noutput = 1000\ncaching = \"none\"\n",
    )
    .unwrap();
    let text = "pricing = \"p.toml\"\n[request]\ninput_tokens = 1000000000000\noutput_tokens = 1000000000000\n\
                [[chain]]\nname = \"x\"\nmodels = [\"a/tiny\", \"b/big\"]\n\
                [incident]\nduration = \"365d\"\nrequests_per_second = 1000000\nsession_length = 1000\n";
    let s = scenario::parse("range.toml", text, &dir, &[]).unwrap();
    let r = fallcost::ops::compare::analytic(&s);
    assert_eq!(r.first_non_finite(), None);
    // Per request: 2e12 tokens at 1e-9 $/MTok = 2e-3 USD; per 1,000: 2.0.
    let seq = r
        .steady
        .iter()
        .find(|x| x.pattern == Pattern::Sequential)
        .unwrap();
    assert!((seq.analytic.cost_per_1k_usd - 2e-3 * 1000.0).abs() < 1e-12);
    // A year at 1e6 req/s: 3.1536e13 requests; the fallback bills 2e12·1000/1e6 = 2e9 USD each.
    let inc = r
        .incident
        .iter()
        .find(|x| x.pattern == Pattern::Sequential)
        .unwrap();
    let n = 365.0 * 86400.0 * 1e6;
    assert_eq!(
        r.incident_window.as_ref().unwrap().requests,
        31_536_000_000_000
    );
    assert!(
        (inc.analytic.total_usd / (n * 2e9) - 1.0).abs() < 1e-12,
        "{}",
        inc.analytic.total_usd
    );
    assert!((inc.normal() / (n * 2e-3) - 1.0).abs() < 1e-12);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One continuous input of a timeline incident moved a little (issue 33 item 3); the outage
/// moves apply to the case's chosen outage.
#[derive(Debug, Clone, Copy)]
enum Move {
    /// An outage's error rate, down by 1e-6 (1.0 → 0.999999 among them).
    ErrorRate,
    /// An outage's start, 1 ms later.
    Start,
    /// An outage's duration, 1 ms shorter.
    Duration,
    /// The traffic, × (1 + 1e-6).
    Rate,
    /// The window, 1 ms longer.
    Window,
    /// A link's input and output prices, × (1 + 1e-6).
    Price(usize),
    /// The cache hit rate, less 1e-6.
    HitRate,
    /// A link's steady failure rate, plus 1e-6.
    FailureRate(usize),
}

/// Every figure of `a` against `b` (the same incident with one input moved): within 1e-4 of
/// its size plus a hundredth of its unit (one request's dearest USD, one request, the most
/// attempts a request makes), plus 3 units per request the move added to or took from the
/// window (N = λ·D rounds to whole requests). `split`: also the window and cold-start USD
/// apart (their sum always).
fn moved_a_little(
    a: &fallcost::model::incident::IncidentOutcome,
    b: &fallcost::model::incident::IncidentOutcome,
    usd: f64,
    attempts: f64,
    split: bool,
) -> Result<(), String> {
    let dn = (a.requests as f64 - b.requests as f64).abs();
    let mut figures = vec![
        ("total", a.total, b.total, usd),
        ("normal", a.normal, b.normal, usd),
        (
            "window + cold_start",
            a.window + a.cold_start,
            b.window + b.cold_start,
            usd,
        ),
        ("failback", a.failback, b.failback, usd),
        ("failed_requests", a.failed_requests, b.failed_requests, 1.0),
        (
            "wasted_attempts",
            a.wasted_attempts,
            b.wasted_attempts,
            attempts,
        ),
        ("wasted", a.wasted, b.wasted, usd),
        ("cold_starts", a.cold_starts, b.cold_starts, 1.0),
        ("failback_writes", a.failback_writes, b.failback_writes, 1.0),
    ];
    if split {
        figures.push(("window", a.window, b.window, usd));
        figures.push(("cold_start", a.cold_start, b.cold_start, usd));
    }
    for (name, x, y, unit) in figures {
        let bound = 1e-4 * x.abs().max(y.abs()) + 0.01 * unit + 3.0 * unit * dn;
        if (x - y).abs() > bound {
            return Err(format!("{name}: {x} then {y} (bound {bound})"));
        }
    }
    Ok(())
}

/// Continuous where the documentation says continuous (issue 33 item 3; MODEL.md §6,
/// "Fail-back writes"): on 64 random timelines over the three chains of
/// `scenarios/sept3-timeline.toml` (Anthropic, OpenAI and xAI outages, fast or gray, error
/// rates 1, near 1 or anywhere, random windows, traffic, sessions and steady failures), a
/// small move of one continuous input (an error rate by 1e-6, an outage's start or duration
/// by 1 ms, the traffic or a price by a millionth, the hit rate or a failure rate by 1e-6)
/// moves every incident figure of every pattern by at most 1e-4 of it plus a hundredth of its
/// unit (and 3 units per request the move adds to N). The window and cold-start USD are
/// checked apart except when a gray outage's error rate leaves 1: a failed attempt's premium
/// over warm on a fallback that never answers is a cold-start cost, on one that answers some
/// requests window spend (MODEL.md §6), so that share moves from one to the other while
/// their sum does not. Before, 1.0 → 0.999999 on Anthropic's outage took $70.97 of fail-back
/// writes off the Sept 3 bill ($513.58 → $442.61).
#[test]
fn a_small_move_of_a_continuous_input_moves_every_figure_a_little() {
    use fallcost::model::cost::CacheState;
    use fallcost::model::incident::evaluate;
    use fallcost::model::timeline::{Outage, OutageFailure, OutageTarget, Timeline};
    use proptest::test_runner::{Config, RngSeed, TestRunner};
    let base = scenario::load(Path::new("scenarios/sept3-timeline.toml"), &[]).unwrap();
    // the worked example first: the shorthand's Sept 3 as a timeline, error rate 1 and 0.999999
    let sept3 = |e: f64| {
        let mut i = base.incident.clone().unwrap();
        let o = Outage::new(
            OutageTarget::Provider("anthropic".into()),
            0.0,
            None,
            OutageFailure::Fast,
        )
        .with_error_rate(e);
        i.timeline = Some(Timeline::new(i.duration_s, vec![o]).unwrap());
        evaluate(&base.request, &base.chains[0], &i, Pattern::Sequential).unwrap()
    };
    let (one, near) = (sept3(1.0), sept3(0.999_999));
    assert!((one.total - 513.58).abs() < 0.005, "{one:?}");
    assert!(
        (near.total - one.total).abs() < 1e-5 * one.total,
        "{near:?}"
    );
    let providers = ["anthropic", "openai", "xai"];
    let outage = (
        prop::bool::weighted(0.7),
        0.0f64..0.6,
        0.05f64..1.0,
        prop::bool::ANY,
        prop_oneof![3 => Just(1.0f64), 1 => Just(0.999_99f64), 3 => 0.0f64..1.0],
    );
    let strategy = (
        prop::collection::vec(outage, 3),
        600.0f64..12_000.0,
        0.2f64..2.0,
        1u64..30,
        prop::collection::vec(prop_oneof![3 => Just(0.0f64), 1 => 0.001f64..0.05], 3),
        0usize..8,
        0usize..3,
    );
    let mut runner = TestRunner::new(Config {
        cases: 64,
        rng_seed: RngSeed::Fixed(20261203),
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(
        &strategy,
        |(outages, window, rps, session, rates, kind, which)| {
            let mut list: Vec<(usize, f64, f64, OutageFailure, f64)> = Vec::new();
            for (p, (on, start, len, gray, e)) in outages.into_iter().enumerate() {
                if on || (p == 0 && list.is_empty()) {
                    let start = start * window;
                    let len = len * (window - start) - 0.01;
                    let failure = if gray {
                        OutageFailure::Gray
                    } else {
                        OutageFailure::Fast
                    };
                    list.push((p, start, len, failure, e));
                }
            }
            let k = which % list.len();
            let mv = match kind {
                0 => Move::ErrorRate,
                1 => Move::Start,
                2 => Move::Duration,
                3 => Move::Rate,
                4 => Move::Window,
                5 => Move::Price(which),
                6 => Move::HitRate,
                _ => Move::FailureRate(which),
            };
            let build = |moved: bool| {
                let mut s = base.clone();
                let mut i = s.incident.clone().unwrap();
                i.duration_s = window
                    + if moved && matches!(mv, Move::Window) {
                        1e-3
                    } else {
                        0.0
                    };
                i.requests_per_second = rps
                    * if moved && matches!(mv, Move::Rate) {
                        1.0 + 1e-6
                    } else {
                        1.0
                    };
                i.session_length = session;
                let outages: Vec<Outage> = list
                    .iter()
                    .enumerate()
                    .map(|(j, &(p, start, len, failure, e))| {
                        let here = moved && j == k;
                        let start = start
                            + if here && matches!(mv, Move::Start) {
                                1e-3
                            } else {
                                0.0
                            };
                        let len = len
                            - if here && matches!(mv, Move::Duration) {
                                1e-3
                            } else {
                                0.0
                            };
                        let e = if here && matches!(mv, Move::ErrorRate) {
                            (e - 1e-6).max(0.0)
                        } else {
                            e
                        };
                        Outage::new(
                            OutageTarget::Provider(providers[p].into()),
                            start,
                            Some(len),
                            failure,
                        )
                        .with_error_rate(e)
                    })
                    .collect();
                i.timeline = Some(Timeline::new(i.duration_s, outages).unwrap());
                if moved && matches!(mv, Move::HitRate) {
                    s.request.cache_hit_rate -= 1e-6;
                }
                for c in &mut s.chains {
                    for (l, r) in c.links.iter_mut().zip(&rates) {
                        l.failure_rate = *r;
                    }
                    if moved {
                        if let Move::Price(at) = mv {
                            let n = c.links.len();
                            let l = &mut c.links[at % n];
                            l.price.input *= 1.0 + 1e-6;
                            l.price.output *= 1.0 + 1e-6;
                        }
                        if let Move::FailureRate(at) = mv {
                            let n = c.links.len();
                            c.links[at % n].failure_rate += 1e-6;
                        }
                    }
                }
                (s, i)
            };
            let ((s0, i0), (s1, i1)) = (build(false), build(true));
            // a gray outage's error rate leaving 1 moves failed attempts' premium from cold
            // start to window (their sum is checked)
            let split = !(matches!(mv, Move::ErrorRate)
                && list[k].3 == OutageFailure::Gray
                && list[k].4 == 1.0);
            for (c0, c1) in s0.chains.iter().zip(&s1.chains) {
                let usd = 3.0
                    * c0.links
                        .iter()
                        .flat_map(|l| {
                            [CacheState::Write, CacheState::Cold]
                                .map(|st| s0.request.success_cost(&l.price, st))
                        })
                        .fold(0.0, f64::max);
                let attempts = c0.links.len() as f64;
                for p in Pattern::ALL {
                    let (Some(a), Some(b)) = (
                        evaluate(&s0.request, c0, &i0, p),
                        evaluate(&s1.request, c1, &i1, p),
                    ) else {
                        continue;
                    };
                    moved_a_little(&a, &b, usd, attempts, split).map_err(|e| {
                        TestCaseError::fail(format!("{} {p:?}, {mv:?} of {list:?}: {e}", c0.name))
                    })?;
                }
            }
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
