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
