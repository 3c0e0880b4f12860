//! `cargo bench --bench years`: how long the years simulation and a long history's replay take
//! (issue 14: 1e5 years under a second; issue 21 item 9: 20,000 incidents replayed in under
//! 2 s, and `--years 100000` on them in under 2 s), best of 3, on rayon's default pool.
//!
//! 1. `fallcost::sim::years::simulate` alone: three providers at 30, 24 and 12 incidents a
//!    year, 40 durations each (10 minutes to 6 hours), priced for 4 chains by a closed-form
//!    stand-in for the incident engine. `YEARS_BENCH_YEARS` sets the years (default 1e5).
//! 2. `ops::history::replay`, then `ops::history::years` (both rate models; timed alone, on a
//!    copy of the replay's report made before the clock starts) on
//!    `scenarios/sept3.toml` (2 chains × 4 patterns) with a made-up status-page history of
//!    `HISTORY_BENCH_INCIDENTS` incidents (default 20,000) of Anthropic and OpenAI over 25
//!    years (800 a year; times to the minute as a status page gives them: durations 5 minutes
//!    to 6 hours, a fifth of them `minor`, 1 in 25 overlapping the other provider's).
//!
//! Last measured (issue 21 item 9, 2 cores shared with other builds): the replay 495 ms (0.53 s
//! of CPU time); `--years 100000` 855 ms, 2.1 s of CPU time a run (before: 3.6 s of CPU time,
//! 5.5 s of wall time at a load of ~7).

use std::time::Instant;

use fallcost::input::history::{History, HistoryIncident};
use fallcost::model::timeline::OutageFailure;
use fallcost::ops::history::{ReplayInputs, YearsRequest, replay, years};
use fallcost::sim::years::{
    IncidentPrice, ProviderHistory, RateModel, YEAR_S, YearsOptions, simulate,
};

/// This process's CPU seconds so far (user + system, all threads; Linux's /proc/self/stat at
/// 100 ticks a second), or `None` elsewhere: on a shared machine the wall clock counts the
/// other processes' turns too, the CPU time only this one's work.
fn cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit(')').next()?;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// " (CPU X s)" for the CPU seconds spent since `from`, per run of `runs`.
fn cpu_note(from: Option<f64>, runs: f64) -> String {
    match (from, cpu_s()) {
        (Some(a), Some(b)) => format!(" (CPU {:.2} s a run)", (b - a) / runs),
        _ => String::new(),
    }
}

fn best_of_3<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.expect("ran"))
}

fn simulate_alone(years: u64) {
    let durations: Vec<f64> = (0..40).map(|i| 600.0 + 540.0 * f64::from(i)).collect();
    let providers: Vec<ProviderHistory> = [("anthropic", 30.0), ("openai", 24.0), ("xai", 12.0)]
        .into_iter()
        .map(|(p, r)| ProviderHistory {
            provider: p.to_string(),
            incidents_per_year: r,
            samples: durations.clone(),
        })
        .collect();
    let price = |c: usize, p: usize, d: &f64| IncidentPrice {
        premium_usd: d * 0.01 * (c + 1) as f64,
        failed_requests: if p == c % 3 { *d } else { 0.0 },
    };
    let chains = [YEAR_S; 4];
    println!(
        "years bench: {years} simulated years, 3 providers, 4 chains, {} threads, best of 3",
        rayon::current_num_threads()
    );
    for (label, shape) in [("poisson", None), ("clustered k=2", Some(2.0))] {
        let (best, f) = best_of_3(|| {
            simulate(
                &providers,
                &chains,
                &price,
                YearsOptions {
                    years,
                    seed: 1,
                    year_factor_shape: shape,
                    rate: RateModel::Uncertain,
                },
            )
        });
        println!(
            "  {label:14} {:8.1} ms  ({:.0} years/s; chain 0 mean premium ${:.2}/year)",
            best * 1e3,
            years as f64 / best,
            f[0].premium_mean_usd
        );
    }
}

/// `n` incidents over 25 years: a deterministic made-up status page (a linear congruential
/// generator), to the minute.
fn long_history(n: usize) -> History {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let t0 = 1_577_836_800.0; // 2020-01-01T00:00:00Z
    let step = 25.0 * YEAR_S / n as f64;
    let minute = |x: f64| (x / 60.0).round() * 60.0;
    let mut incidents = Vec::with_capacity(n);
    for k in 0..n {
        let start = minute(t0 + step * k as f64 + 0.5 * step * next());
        // 5 minutes to 6 hours, long-tailed
        let duration = minute(300.0 * (72.0f64).powf(next() * next()));
        let openai = k % 2 == 1;
        // 1 in 25 overlaps the previous (another provider's) incident
        let start = if k % 25 == 0 && k > 0 {
            start - 0.5 * step
        } else {
            start
        };
        incidents.push(HistoryIncident {
            provider: if openai { "openai" } else { "anthropic" }.into(),
            name: format!("incident {k}"),
            start_s: minute(start),
            end_s: minute(start) + duration.max(300.0),
            failure: OutageFailure::Fast,
            error_rate: if k % 5 == 0 { 0.5 } else { 1.0 },
            file: "bench".into(),
            line: k + 1,
        });
    }
    let parts = History {
        incidents,
        coverage: vec![fallcost::input::history::Coverage {
            file: "bench".into(),
            start_s: t0,
            end_s: t0 + 25.0 * YEAR_S + 86_400.0,
            source: fallcost::input::history::PeriodSource::Stated,
        }],
        ..History::default()
    };
    History::merge(vec![parts])
}

fn history_replay(n: usize, years_n: u64) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sept3.toml");
    let scenario = fallcost::input::scenario::load(&path, &[]).expect("sept3 loads");
    let history = long_history(n);
    let inputs = ReplayInputs {
        files: vec!["bench".into()],
        minor_error_rate: 0.5,
    };
    let cpu = cpu_s();
    let (t_replay, report) = best_of_3(|| replay(&scenario, &history, &inputs).expect("replays"));
    let replay_cpu = cpu_note(cpu, 3.0);
    println!(
        "history bench: {n} incidents ({} windows) on sept3 (2 chains × 4 patterns), {} threads, best of 3",
        report.incidents.len(),
        rayon::current_num_threads()
    );
    println!("  replay         {:8.1} ms{replay_cpu}", t_replay * 1e3);
    let request = YearsRequest {
        years: years_n,
        seed: 1,
        cluster: None,
    };
    // `--years` alone: each run gets its own copy of the replay's report, made before the clock
    // starts (the command runs it on the report the replay made; the copy is the bench's)
    let mut t_years = f64::INFINITY;
    let mut out = None;
    let mut cpu_years = 0.0;
    for _ in 0..3 {
        let mut r = report.clone();
        let (t, cpu) = (Instant::now(), cpu_s());
        years(&scenario, request, &mut r).expect("years");
        t_years = t_years.min(t.elapsed().as_secs_f64());
        cpu_years += cpu_s().zip(cpu).map_or(0.0, |(b, a)| b - a) / 3.0;
        out = Some(r);
    }
    let report = out.expect("ran");
    let y = report.years.expect("years ran");
    println!(
        "  --years {years_n:<6} {:8.1} ms (CPU {cpu_years:.2} s a run)  (both rate models; {:.0} windows a year drawn; price-matched sequential ${:.2}/year)",
        t_years * 1e3,
        y.rows[1].incidents_per_year,
        y.rows[1].premium_mean_usd
    );
}

fn main() {
    let years: u64 = std::env::var("YEARS_BENCH_YEARS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let incidents: usize = std::env::var("HISTORY_BENCH_INCIDENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    simulate_alone(years);
    history_replay(incidents, years);
}
