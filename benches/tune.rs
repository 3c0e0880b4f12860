//! `cargo bench --bench tune`: how long `fallcost::ops::tune::run` takes on two cores (issue
//! 38's target: every shipped scenario's frontier in under 5 s), as the median of up to 3
//! runs (one when a run takes over 20 s), on rayon's default pool.
//!
//! 1. Every shipped scenario (`scenarios/*.toml`, in name order), its default space on every
//!    chain: what `fallcost tune --scenario S` searches. A timeout is tried only
//!    where its trips are priced (the scenario's `[latency]` models); elsewhere it is held.
//! 2. `scenarios/timeout.toml`'s chain over a closed-form space: the chain's order and length
//!    among its three models (15 chains), timeouts 2–60 s, 0–2 retries, no hedge delay or 2,
//!    4 or 7 s (no incident): more than 10,000 candidates (combination × pattern), each priced
//!    by the analytic engine, with a fixed-seed steady Monte Carlo per distinct latency
//!    setting for the p99 (screened on its first requests, timed whole for the survivors).
//!
//! `TUNE_BENCH_ONLY=NAME` runs the scenarios whose file name contains NAME (and skips case 2
//! unless NAME is in `closed-form`). Each confirms its recommendation as `fallcost tune` does
//! by default (`--confirm 10`); `TUNE_BENCH_CONFIRM=0` leaves that out.

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
        served: Vec::new(),
        prices: Vec::new(),
        warnings: Vec::new(),
        skipped: Vec::new(),
        groups: Vec::new(),
    }
}

fn dim(key: &str, values: Vec<String>) -> Dim {
    Dim {
        key: key.into(),
        values,
    }
}

fn median_of_3(label: &str, src: &Source, ask: &Ask) {
    let mut times = Vec::new();
    let mut summary = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let tune = run(src, ask).unwrap();
        let took = t.elapsed().as_secs_f64();
        times.push(took);
        let candidates: usize = tune.chains.iter().map(|c| c.candidates).sum();
        let frontier: usize = tune.chains.iter().map(|c| c.frontier.len()).sum();
        let screened: usize = tune.chains.iter().map(|c| c.screened).sum();
        let inert: usize = tune.chains.iter().map(|c| c.inert_breakers).sum();
        let timed: usize = tune.chains.iter().map(|c| c.p99_exact).sum();
        let held = tune.chains.iter().any(|c| !c.held.is_empty());
        summary = format!(
            "{candidates} candidates, {inert} inert breakers, {screened} screened, {timed} p99 timed whole, frontier {frontier}{}",
            if held { ", timeout held" } else { "" }
        );
        if took > 20.0 {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!(
        "  {label:44} {:9.1} ms median of {}  ({summary})",
        median * 1e3,
        times.len()
    );
}

fn main() {
    let confirm = std::env::var("TUNE_BENCH_CONFIRM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let only = std::env::var("TUNE_BENCH_ONLY").unwrap_or_default();
    println!(
        "tune bench: {} threads, median of up to 3",
        rayon::current_num_threads()
    );
    let defaults = Ask {
        incidents_per_year: 1.0,
        confirm_batches: confirm,
        ..Ask::default()
    };
    let mut shipped: Vec<PathBuf> = std::fs::read_dir("scenarios")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    shipped.sort();
    for path in shipped {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if !name.contains(&only) {
            continue;
        }
        let src = source(&path.display().to_string());
        median_of_3(&format!("{name}, default space"), &src, &defaults);
    }
    if !"closed-form".contains(&only) {
        return;
    }
    let timeout = source("scenarios/timeout.toml");
    let closed = Ask {
        candidates: vec!["anthropic/claude-haiku-4-5".into()],
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
        ],
        incidents_per_year: 1.0,
        confirm_batches: confirm,
        ..Ask::default()
    };
    median_of_3("timeout, closed-form space", &timeout, &closed);
}
