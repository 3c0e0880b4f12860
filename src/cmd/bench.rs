//! `fallcost bench`: how fast the Monte Carlo engine simulates, against the floor of drawing
//! its random numbers ([`crate::sim::bench`]).

use crate::cli::BenchArgs;
use crate::error::ExitStatus;
use crate::input::pricing::bundled;
use crate::model::Pattern;
use crate::sim::bench::{Workload, chain, run as time_workload, run_policy};

/// Time each loop of the steady-state fast path against its floor ([`Workload`]),
/// `args.repeat` times each in turn, and print per loop the best rate of each, their ratio,
/// and the thread count; then the price-table and sweep timings ([`prices_bench`]).
///
/// Errors: writing to standard output fails.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitStatus> {
    let prices =
        bundled("2026-07").ok_or_else(|| anyhow::anyhow!("no bundled price table 2026-07"))?;
    let (request, chain) = chain(&prices)?;
    let n = args.requests;
    let threads = rayon::current_num_threads();
    let mut text = format!(
        "fallcost bench: {} requests per loop, best of {}, {threads} thread(s)\n\
         floor: the same random draws, nothing else; ratio: the loop's time over its floor's\n\
         {:<43} {:>11} {:>11} {:>7}\n",
        crate::number::group(&n.to_string()),
        args.repeat,
        "steady-state loop (patterns it gives)",
        "floor M/s",
        "loop M/s",
        "ratio",
    );
    for w in Workload::ALL {
        let b = time_workload(&request, &chain, w, n, args.repeat);
        text.push_str(&format!(
            "{:<43} {:>11.1} {:>11.1} {:>6.2}x\n",
            w.patterns(),
            b.floor_per_s / 1e6,
            b.model_per_s / 1e6,
            b.ratio(),
        ));
    }
    text.push_str(&format!(
        "policy simulator (2 retries, full-jitter backoff), one pattern at a time; floor: a uniform and a normal per attempt\n\
         {:<43} {:>11} {:>11} {:>7}\n",
        "pattern (attempts per request)", "floor M/s", "loop M/s", "ratio",
    ));
    for p in Pattern::ALL {
        let b = run_policy(&request, &chain, p, n, args.repeat);
        text.push_str(&format!(
            "{:<43} {:>11.1} {:>11.1} {:>6.2}x\n",
            format!("{} ({:.3})", p.as_str(), b.attempts_per_request),
            b.floor_per_s / 1e6,
            b.model_per_s / 1e6,
            b.ratio(),
        ));
    }
    let text = format!("{text}{}", prices_bench(args.repeat)?);
    crate::output::write(&crate::output::OutputTarget::Stdout, text.as_bytes())?;
    Ok(ExitStatus::Success)
}

/// The 10,001-point analytic sweep [`prices_bench`] times: gemini-2.5-pro → gpt-4o on the
/// bundled LiteLLM snapshot, the prompt swept across gemini's 200k long-context tier.
pub const SWEEP_SCENARIO: &str = r#"
pricing = "litellm"
[request]
input_tokens = 0
output_tokens = 1000
[[chain]]
name = "gemini"
models = ["gemini-2.5-pro", "gpt-4o"]
"#;

/// Time reading LiteLLM price files (the bundled snapshot, and the full file named by the
/// environment variable `FALLCOST_BENCH_LITELLM` when set) and a 10,001-point analytic sweep on
/// the snapshot, best of `repeat`; the lines `fallcost bench` prints after the Monte Carlo ones.
///
/// Errors: an unreadable `FALLCOST_BENCH_LITELLM` file; a sweep that fails.
pub fn prices_bench(repeat: u32) -> anyhow::Result<String> {
    use std::time::Instant;
    let best = |f: &mut dyn FnMut() -> anyhow::Result<()>| -> anyhow::Result<f64> {
        let mut t = f64::INFINITY;
        for _ in 0..repeat {
            let start = Instant::now();
            f()?;
            t = t.min(start.elapsed().as_secs_f64());
        }
        Ok(t)
    };
    let snap = crate::input::pricing::bundled_entry(crate::input::pricing::LITELLM_SNAPSHOT)
        .expect("the snapshot is bundled");
    let mut out = String::new();
    let t = best(&mut || {
        crate::input::litellm_prices::parse(snap.name, snap.text)?;
        Ok(())
    })?;
    out.push_str(&format!(
        "read the bundled LiteLLM snapshot ({} KB):             {:>7.2} ms\n",
        snap.text.len() / 1000,
        t * 1e3
    ));
    if let Some(path) = std::env::var_os("FALLCOST_BENCH_LITELLM") {
        let text = crate::input::read_text(std::path::Path::new(&path))?;
        let t = best(&mut || {
            crate::input::litellm_prices::parse("bench.json", &text)?;
            Ok(())
        })?;
        out.push_str(&format!(
            "read {} ({} KB):  {:>7.2} ms\n",
            std::path::Path::new(&path).display(),
            text.len() / 1000,
            t * 1e3
        ));
    }
    let params = [
        crate::ops::sweep::Param::parse("request.input_tokens=0:1000000:100")
            .map_err(|e| anyhow::anyhow!(e))?,
    ];
    let t = best(&mut || {
        crate::ops::sweep::run(
            "bench.toml",
            SWEEP_SCENARIO,
            std::path::Path::new("."),
            &[],
            &[],
            &params,
            &[],
            None,
        )?;
        Ok(())
    })?;
    out.push_str(&format!(
        "analytic sweep, 10,001 points on the LiteLLM snapshot:  {t:>7.2} s\n"
    ));
    Ok(out)
}
