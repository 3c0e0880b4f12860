//! `cargo bench --bench tune`: how long `fallcost::ops::tune::run` takes (issue 26's targets:
//! 10,000 candidate configurations in under 5 s on two cores, the frontier of a shipped
//! scenario in under a second), best of 3, on rayon's default pool.
//!
//! 1. `scenarios/sept3.toml`'s price-matched chain over a closed-form space: the chain's order
//!    and length among its two models and GPT-6 Luna (15 chains), timeouts 2–60 s, 0–2
//!    retries, no hedge delay or 2, 4 or 7 s (breaker off, warm policy as shipped): more than
//!    10,000 candidates (combination × pattern), each priced by the analytic engine, with a
//!    fixed-seed steady Monte Carlo per distinct latency setting for the p99 (screened on its
//!    first requests, timed whole for the survivors).
//! 2. The default space on each chain of `scenarios/sept3.toml` and of
//!    `scenarios/failover-cache.toml` (fast outages with no steady failures: every breaker
//!    setting is inert, priced analytically), and with `TUNE_BENCH_GRAY=1` on the medium chain
//!    of `scenarios/policies.toml` (a gray outage: its breaker settings screened and
//!    recomputed by simulation, minutes).
//!
//! None confirms by Monte Carlo (`--confirm 0`); `TUNE_BENCH_CONFIRM=10` adds it.

use std::path::PathBuf;
use std::time::Instant;

use fallcost::ops::inputs::Source;
use fallcost::ops::tune::{Ask, run};
use fallcost::tune::space::Dim;

fn source(path: &str) -> Source {
    Source {
        label: path.into(),
        text: std::fs::read_to_string(path).unwrap(),
        base: PathBuf::from("scenarios"),
        overrides: Vec::new(),
        provenance: Vec::new(),
        prices: Vec::new(),
        warnings: Vec::new(),
        skipped: Vec::new(),
    }
}

fn dim(key: &str, values: Vec<String>) -> Dim {
    Dim {
        key: key.into(),
        values,
    }
}

fn best_of_3(label: &str, src: &Source, ask: &Ask) {
    let mut best = f64::INFINITY;
    let mut summary = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let tune = run(src, ask).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        let candidates: usize = tune.chains.iter().map(|c| c.candidates).sum();
        let frontier: usize = tune.chains.iter().map(|c| c.frontier.len()).sum();
        let screened: usize = tune.chains.iter().map(|c| c.screened).sum();
        let timed: usize = tune.chains.iter().map(|c| c.p99_exact).sum();
        summary = format!(
            "{candidates} candidates, {screened} screened, {timed} p99 timed whole, frontier {frontier}"
        );
    }
    println!("  {label:44} {:8.1} ms  ({summary})", best * 1e3);
}

fn main() {
    let confirm = std::env::var("TUNE_BENCH_CONFIRM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    println!(
        "tune bench: {} threads, best of 3",
        rayon::current_num_threads()
    );
    let sept3 = source("scenarios/sept3.toml");
    let closed = Ask {
        chains: vec!["price-matched".into()],
        candidates: vec!["openai/gpt-6-luna".into()],
        vary: vec![
            dim(
                "policy.timeout_s",
                (1..=30).map(|i| (2 * i).to_string()).collect(),
            ),
            dim("policy.retries", ["0", "1", "2"].map(String::from).to_vec()),
            dim(
                "policy.hedge_delay_s",
                ["none", "2", "4", "7"].map(String::from).to_vec(),
            ),
            dim("policy.breaker.threshold", vec!["none".into()]),
        ],
        incidents_per_year: 1.0,
        confirm_batches: confirm,
        ..Ask::default()
    };
    best_of_3("sept3 price-matched, closed-form space", &sept3, &closed);
    let defaults = Ask {
        incidents_per_year: 1.0,
        confirm_batches: confirm,
        ..Ask::default()
    };
    best_of_3("sept3, default space (both chains)", &sept3, &defaults);
    let cache = source("scenarios/failover-cache.toml");
    best_of_3(
        "failover-cache, default space (both chains)",
        &cache,
        &defaults,
    );
    if std::env::var_os("TUNE_BENCH_GRAY").is_some() {
        let policies = source("scenarios/policies.toml");
        let medium = Ask {
            chains: vec!["medium".into()],
            ..defaults.clone()
        };
        best_of_3("policies medium, default space", &policies, &medium);
    }
}
