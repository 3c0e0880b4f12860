//! `fallcost bench`: how fast the Monte Carlo engine simulates, against the floor of drawing
//! its random numbers ([`crate::sim::bench`]).

use crate::cli::BenchArgs;
use crate::error::ExitStatus;
use crate::input::pricing::bundled;
use crate::sim::bench::{chain, time_floor, time_model};

/// Time the floor and the model `args.repeat` times each, alternating, and print the best
/// rate of each, their ratio and the thread count.
///
/// Errors: writing to standard output fails.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitStatus> {
    let prices =
        bundled("2026-07").ok_or_else(|| anyhow::anyhow!("no bundled price table 2026-07"))?;
    let (request, chain) = chain(&prices)?;
    let n = args.requests;
    let (mut floor, mut model) = (f64::INFINITY, f64::INFINITY);
    for r in 0..args.repeat {
        floor = floor.min(time_floor(n, u64::from(r)));
        model = model.min(time_model(&request, &chain, n, u64::from(r)));
    }
    let (f, m) = (n as f64 / floor, n as f64 / model);
    let threads = rayon::current_num_threads();
    let text = format!(
        "fallcost bench: {} requests per loop, best of {}, {threads} thread(s)\n\
         floor (draws only: 2 uniforms + 2 normals per request): {:>7.1} M requests/s\n\
         steady-state model, all four patterns:                  {:>7.1} M requests/s\n\
         model / floor time ratio: {:.2}x\n",
        crate::output::number::group(&n.to_string()),
        args.repeat,
        f / 1e6,
        m / 1e6,
        floor_ratio(floor, model),
    );
    crate::output::write(&crate::output::Target::Stdout, text.as_bytes())?;
    Ok(ExitStatus::Success)
}

fn floor_ratio(floor_s: f64, model_s: f64) -> f64 {
    model_s / floor_s
}
