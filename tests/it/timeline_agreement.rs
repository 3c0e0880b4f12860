//! Random incident timelines: the analytic engine (`model::incident::evaluate`, piecewise with
//! sessions placed exactly across cuts) and the incident simulator in time
//! (`sim::incident::events`) agree on every figure within the agreement rule
//! (`sim::agree`: the MC interval, widened by the engine's own stated bound,
//! `model::incident::timeline_bound`). Issue 21's items on timelines: fail-back writes by one
//! rule (1), cache figures across cuts (2), a hedge with a drilled leg (3), retries that
//! outlive an outage (5), a down fallback's failed attempts booked as the analytic engine does
//! (6). `--nocapture` prints the number of checks and the worst z.

use std::path::Path;

use fallcost::input::pricing::bundled;
use fallcost::input::scenario;
use fallcost::model::policy::{Backoff, Jitter, WarmPolicy};
use fallcost::model::timeline::{Outage, OutageFailure, OutageTarget, Timeline};
use fallcost::model::{Link, Scenario};
use fallcost::sim::McOptions;
use fallcost::sim::agree;
use fallcost::sim::rng::{SimRng, chunk_rng, uniform};

use crate::common::z;

const MODELS: [&str; 5] = [
    "anthropic/claude-sonnet-5",
    "openai/gpt-6-sol",
    "deepseek/deepseek-v4-flash",
    "anthropic/claude-haiku-4-5",
    "openai/gpt-6-luna",
];
const PROVIDERS: [&str; 3] = ["anthropic", "openai", "deepseek"];

fn pick(rng: &mut SimRng, n: usize) -> usize {
    ((uniform(rng) * n as f64) as usize).min(n - 1)
}

/// One to three outages on random providers (fast, gray or drilled; down or partially
/// failing), cut anywhere in the window, tried until they make a valid timeline.
fn random_timeline(rng: &mut SimRng, window_s: f64) -> Timeline {
    loop {
        let count = 1 + pick(rng, 3);
        let outages: Vec<Outage> = (0..count)
            .map(|_| {
                let start = if uniform(rng) < 0.3 {
                    0.0
                } else {
                    (uniform(rng) * 0.9 * window_s).floor()
                };
                let rest = window_s - start;
                let duration = if uniform(rng) < 0.3 {
                    None
                } else {
                    Some((uniform(rng) * rest).max(1.0).min(rest))
                };
                let failure = [
                    OutageFailure::Fast,
                    OutageFailure::Gray,
                    OutageFailure::Drill,
                ][pick(rng, 3)];
                let rate = if uniform(rng) < 0.5 {
                    1.0
                } else {
                    0.2 + 0.7 * uniform(rng)
                };
                let target = OutageTarget::Provider(PROVIDERS[pick(rng, 3)].into());
                Outage::new(target, start, duration, failure).with_error_rate(rate)
            })
            .collect();
        if let Ok(t) = Timeline::new(window_s, outages) {
            return t;
        }
    }
}

/// sept3.toml's request on a random chain of two or three models (steady failures up to 5%,
/// retries 0 to 2 with a backoff of up to 20 s, a random `warm_fallback`) over a random
/// timeline of 10 to 40 minutes at 0.3 to 1.5 requests per second, sessions of 1 to 25.
fn random_scenario(rng: &mut SimRng) -> Scenario {
    let mut s = scenario::load(Path::new("scenarios/sept3.toml"), &[]).unwrap();
    let prices = bundled("2026-07").unwrap();
    let mut chain = s.chains[0].clone();
    let len = 2 + pick(rng, 2);
    chain.links = (0..len)
        .map(|_| {
            let mut l = Link::new(prices.get(MODELS[pick(rng, MODELS.len())]).unwrap().clone());
            l.failure_rate = 0.05 * uniform(rng);
            l.trip_rate = 0.0;
            l
        })
        .collect();
    chain.steady.gray_fraction = uniform(rng);
    chain.policy.retries = pick(rng, 3) as u32;
    chain.policy.backoff = Backoff {
        base_s: 10.0 * uniform(rng),
        cap_s: 20.0,
        jitter: [Jitter::None, Jitter::Full, Jitter::Equal][pick(rng, 3)],
    };
    chain.policy.warm_fallback =
        [WarmPolicy::Always, WarmPolicy::Never, WarmPolicy::After(1)][pick(rng, 3)];
    s.chains = vec![chain];
    let inc = s.incident.as_mut().unwrap();
    inc.duration_s = (600.0 + 1800.0 * uniform(rng)).floor();
    inc.requests_per_second = 0.3 + 1.2 * uniform(rng);
    inc.session_length = 1 + pick(rng, 25) as u64;
    inc.timeline = Some(random_timeline(rng, inc.duration_s));
    s
}

/// 24 random timelines, every pattern: every check agrees. Where the engine states no bound
/// (`timeline_bound` exact: drills, or no failure before a later attempt) the z statistic is
/// printed; elsewhere the share of the interval (the MC's, widened by the bound) the
/// difference uses.
#[test]
fn random_timelines_agree() {
    let cases = 24;
    let (mut exact, mut bounded) = (0usize, 0usize);
    let (mut worst_z, mut worst_use) = ((0.0f64, String::new()), (0.0f64, String::new()));
    // the z of the bounded checks without their bound: how far in standard errors the
    // labelled approximation moves a figure
    let mut worst_raw = (0.0f64, String::new());
    for case in 0..cases {
        let mut rng = chunk_rng(21, 2026, case);
        let s = random_scenario(&mut rng);
        let opts = McOptions {
            requests: 20_000,
            runs: 40,
            seed: case,
        };
        let all = agree::scenario(&s, &opts);
        let bad: Vec<String> = all
            .iter()
            .filter(|c| !c.ok())
            .map(|c| c.to_string())
            .collect();
        assert!(
            bad.is_empty(),
            "case {case}: {:?}\n{:?}\n{}",
            s.incident.as_ref().unwrap().timeline,
            s.chains[0]
                .links
                .iter()
                .map(|l| &l.price.id)
                .collect::<Vec<_>>(),
            bad.join("\n")
        );
        let inc = s.incident.as_ref().unwrap();
        for c in all.iter().filter(|c| c.section == "incident") {
            let b =
                fallcost::model::incident::timeline_bound(&s.request, &s.chains[0], inc, c.pattern);
            if b.is_none_or(|b| b.exact()) {
                exact += 1;
                let zc = z(c);
                if zc > worst_z.0 {
                    worst_z = (zc, format!("case {case}: {c}"));
                }
            } else {
                bounded += 1;
                if z(c) > worst_raw.0 {
                    worst_raw = (z(c), format!("case {case}: {c}"));
                }
                let used = (c.analytic - c.mc.mean).abs() / ((c.mc.hi - c.mc.lo) / 2.0);
                if used > worst_use.0 {
                    worst_use = (used, format!("case {case}: {c}"));
                }
            }
        }
    }
    println!(
        "{cases} random timelines: {exact} checks without a stated bound, worst z {:.2} ({}); {bounded} within a stated bound, the largest difference {:.0}% of its widened interval ({}); without the bound, worst z {:.1} ({})",
        worst_z.0,
        worst_z.1,
        100.0 * worst_use.0,
        worst_use.1,
        worst_raw.0,
        worst_raw.1
    );
    assert!(exact + bounded > cases as usize * 20);
}
