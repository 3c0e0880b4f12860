//! Agreement of the engines (MODEL.md §9): for every shipped scenario and for randomised
//! scenarios, each pattern's Monte Carlo mean lies within its 99% interval of the analytic
//! value (other figures within 99.9%; see `fallcost::sim::agree`).
//!
//! Seeds are fixed (the MC seed and proptest's), so the tests are reproducible: a 99% interval
//! misses 1% of the time by design, and a fixed seed keeps such a miss from flickering.

use std::path::Path;

use fallcost::input::pricing::bundled;
use fallcost::input::scenario;
use fallcost::model::latency::Latency;
use fallcost::model::{
    AbandonedBilling, ChainDraft, FailureMode, Incident, LinkDraft, Policy, Request, Scenario,
    Steady,
};
use fallcost::sim::McOptions;
use fallcost::sim::agree;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn assert_all_agree(name: &str, s: &Scenario, opts: &McOptions) -> usize {
    let checks = agree::scenario(s, opts);
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| !c.ok())
        .map(|c| c.to_string())
        .collect();
    assert!(bad.is_empty(), "{name}:\n{}", bad.join("\n"));
    checks.len()
}

/// Every scenario in `scenarios/`: 400,000 requests per chain, 200 windows.
#[test]
fn shipped_scenarios_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    let opts = McOptions {
        requests: 400_000,
        runs: 200,
        seed: 2026,
    };
    for f in files {
        let s = scenario::load(&f, &[]).unwrap();
        let n = assert_all_agree(&f.display().to_string(), &s, &opts);
        assert!(n >= 16, "{}: only {n} checks", f.display());
    }
}

/// The checks can fail: an analytic value off by a few standard errors is caught.
#[test]
fn a_wrong_analytic_value_is_caught() {
    let s = scenario::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/hedge-latency.toml"),
        &[],
    )
    .unwrap();
    let mut wrong = s.clone();
    // Pretend the primary always wins hedges: the analytic take-first cost moves, the MC
    // (which lets the faster leg win) does not.
    wrong.chains[0].steady.primary_win_rate = 1.0;
    let opts = McOptions {
        requests: 200_000,
        runs: 20,
        seed: 1,
    };
    let checks = agree::scenario(&wrong, &opts);
    assert!(
        checks
            .iter()
            .any(|c| !c.ok() && c.figure == "cost" && c.chain == "sol-sonnet-haiku"),
        "a wrong w went unnoticed"
    );
}

const MODELS: [&str; 8] = [
    "openai/gpt-5.6-sol",
    "anthropic/claude-sonnet-5",
    "anthropic/claude-haiku-4-5",
    "anthropic/claude-opus-5",
    "deepseek/deepseek-v4-flash",
    "openai/gpt-6-luna",
    "openai/gpt-6-sol",
    "openai/gpt-6-astra",
];

#[derive(Debug, Clone)]
struct LinkSpec {
    model: usize,
    failure: f64,
    trip: f64,
    latency: Option<(f64, f64)>,
}

prop_compose! {
    fn link()(
        model in 0..MODELS.len(),
        failure in prop_oneof![Just(0.0), 0.0..0.5f64],
        trip in 0.0..0.3f64,
        latency in prop::option::of((0.3..5.0f64, 1.0..8.0f64)),
    ) -> LinkSpec {
        LinkSpec { model, failure, trip, latency }
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    links: &[LinkSpec],
    tokens: (f64, f64, f64, f64),
    gray: f64,
    gray_out: f64,
    cancel_out: f64,
    full: bool,
    timeout_s: f64,
    win: Option<f64>,
    incident: (f64, f64, u64, bool),
) -> Scenario {
    let prices = bundled("2026-07").unwrap();
    // A link with a latency model derives its trip rate from it (ChainDraft::build), as a
    // scenario's does; the others keep their given trip rate.
    let links = links
        .iter()
        .map(|l| {
            let latency = match l.latency {
                Some((p50, ratio)) => Latency {
                    p50_s: p50,
                    p99_s: p50 * ratio,
                    given: true,
                },
                None => Latency::default(),
            };
            LinkDraft {
                price: prices.get(MODELS[l.model]).unwrap().clone(),
                failure_rate: l.failure,
                trip_rate: (!latency.given).then_some(l.trip),
                latency,
            }
        })
        .collect();
    let chain = ChainDraft {
        name: "random".into(),
        links,
        steady: Steady {
            gray_fraction: gray,
            gray_output_fraction: gray_out,
            cancel_output_fraction: cancel_out,
            abandoned_billing: if full {
                AbandonedBilling::Full
            } else {
                AbandonedBilling::Partial
            },
            fast_fail_s: 0.5,
            error_mix: None,
            ..Steady::default()
        },
        primary_win_rate: win,
        policy: Policy {
            timeout_s,
            ..Policy::default()
        },
        traffic_share: None,
    }
    .build();
    Scenario {
        name: "random".into(),
        pricing: "2026-07".into(),
        request: Request {
            input_tokens: tokens.0,
            output_tokens: tokens.1,
            prefix_tokens: tokens.2,
            cache_hit_rate: tokens.3,
        },
        chains: vec![chain],
        billing: Default::default(),
        incident: Some(Incident {
            duration_s: incident.0,
            // λ·TTL ≥ 0.3·300: a session's gap exceeds a cache TTL with probability < e⁻⁹⁰,
            // the regime the analytic engine assumes (sim::incident docs).
            requests_per_second: incident.1,
            session_length: incident.2,
            failure: if incident.3 {
                FailureMode::Gray
            } else {
                FailureMode::Fast
            },
        }),
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 24,
        rng_seed: RngSeed::Fixed(20260718),
        failure_persistence: None,
        ..Config::default()
    })]

    /// Random chains of one to three models, random failure, trip, billing and latency
    /// parameters, random request profiles and outages: every figure agrees.
    #[test]
    fn random_scenarios_agree(
        links in prop::collection::vec(link(), 1..=3),
        tokens in (0.0..5000.0f64, 1.0..3000.0f64, prop_oneof![Just(0.0), 0.0..60000.0f64], 0.0..=1.0f64),
        gray in 0.0..=1.0f64,
        gray_out in 0.0..=1.0f64,
        cancel_out in prop_oneof![Just(0.0), 0.0..=1.0f64],
        full in any::<bool>(),
        timeout_s in 1.0..60.0f64,
        win in prop::option::of(0.0..=1.0f64),
        incident in (30.0..1200.0f64, 0.3..3.0f64, 1..30u64, any::<bool>()),
        seed in any::<u64>(),
    ) {
        let s = build(&links, tokens, gray, gray_out, cancel_out, full, timeout_s, win, incident);
        let opts = McOptions { requests: 150_000, runs: 60, seed };
        let checks = agree::scenario(&s, &opts);
        let bad: Vec<String> = checks.iter().filter(|c| !c.ok()).map(|c| c.to_string()).collect();
        prop_assert!(bad.is_empty(), "{:#?}\n{}", s.chains[0], bad.join("\n"));
    }
}
