//! `cargo bench --bench years`: how long `fallcost::sim::years::simulate` takes for 1e5
//! simulated years (issue 14's target: under a second), best of 3, on rayon's default pool.
//! The history: three providers at 30, 24 and 12 incidents a year, 40 durations each (10
//! minutes to 6 hours), priced for 4 chains by a closed-form stand-in for the incident engine
//! (the engine is called once per chain and distinct duration, before any year is drawn, so
//! its cost does not scale with the years). `YEARS_BENCH_YEARS` sets the years (default 1e5).

use std::time::Instant;

use fallcost::sim::years::{IncidentPrice, ProviderHistory, YEAR_S, YearsOptions, simulate};

fn main() {
    let years: u64 = std::env::var("YEARS_BENCH_YEARS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
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
        let mut best = f64::INFINITY;
        let mut check = 0.0;
        for _ in 0..3 {
            let t = Instant::now();
            let f = simulate(
                &providers,
                &chains,
                &price,
                YearsOptions {
                    years,
                    seed: 1,
                    year_factor_shape: shape,
                },
            );
            best = best.min(t.elapsed().as_secs_f64());
            check = f[0].premium_mean_usd;
        }
        println!(
            "  {label:14} {:8.1} ms  ({:.0} years/s; chain 0 mean premium ${check:.2}/year)",
            best * 1e3,
            years as f64 / best
        );
    }
}
