//! Write a large generated log for `fallcost calibrate`'s memory and throughput measurements
//! (README, "Calibrate"): the seeded generator of `tests/it/common/loggen.rs`, or one of the two
//! memory cases (a plain CSV, written as it is generated: pipe it or write it to a file).
//!
//! ```console
//! $ cargo run --release --example calibrate_logs -- otlp 400000 /tmp/big.jsonl
//! $ /usr/bin/time -v ./target/release/fallcost calibrate /tmp/big.jsonl -o /tmp/big.toml
//! $ cargo run --release --example calibrate_logs -- models 10000 1000 /tmp/models.csv
//! $ cargo run --release --example calibrate_logs -- sessions 10000000 /tmp/sessions.csv
//! ```
//!
//! Formats: `otlp`, `litellm-csv`, `litellm-json`, `litellm-lines`, `csv` (REQUESTS requests of
//! the test generator's truth), and the memory cases:
//! - `models MODELS PER`: MODELS distinct models, PER requests on each as primary (interleaved,
//!   so every model is live to the end). A request fails on its primary 20% of the time, in
//!   one of the six error classes (timeouts at 30 s, the rest lognormal around 2 s), and falls
//!   back to the next model; every success reports a wide lognormal latency, input, a cache
//!   read half the time (OpenAI's reads-only shape) and output. Every histogram a model has
//!   (per class, latency, input, output, the cache's zero reads, its links on two chains) fills.
//! - `sessions N`: N requests on one model, each in its own session (N distinct session ids).

#[path = "../tests/it/common/loggen.rs"]
mod loggen;

use std::io::{BufWriter, Write};

use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, LogNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Unix seconds of the first generated start (2026-07-18 10:00 UTC).
const T0: f64 = 1_784_368_800.0;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!(
            "usage: calibrate_logs FORMAT REQUESTS PATH | models MODELS PER PATH | sessions N PATH"
        );
        std::process::exit(2);
    };
    let num = |s: &str| -> u64 { s.parse().unwrap_or_else(|_| usage()) };
    let path = args.last().cloned().unwrap_or_else(|| usage());
    let file = std::fs::File::create(&path).expect("PATH can be created");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let t = loggen::Truth::default();
    match (args.get(1).map(String::as_str), args.len()) {
        (Some("models"), 5) => write_models(num(&args[2]), num(&args[3]), &mut w),
        (Some("sessions"), 4) => write_sessions(num(&args[2]), &mut w),
        (Some(format), 4) => {
            let n = num(&args[2]);
            match format {
                "otlp" => loggen::write_otlp(&t, n, 1, &mut w),
                "litellm-csv" => loggen::write_litellm(&t, n, 1, "csv", &mut w),
                "litellm-json" => loggen::write_litellm(&t, n, 1, "array", &mut w),
                "litellm-lines" => loggen::write_litellm(&t, n, 1, "lines", &mut w),
                "csv" => loggen::write_plain(&t, n, 1, &mut w),
                other => {
                    eprintln!("unknown format {other}");
                    std::process::exit(2);
                }
            }
        }
        _ => usage(),
    }
    w.flush().expect("the file is written");
}

/// The `models` case: `models` × `per` requests (see the module's doc).
fn write_models(models: u64, per: u64, w: &mut impl Write) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(24);
    let latency = LogNormal::new(1.5f64.ln(), 1.0).unwrap();
    let fast = LogNormal::new(2.0f64.ln(), 1.2).unwrap();
    let input = LogNormal::new(3000f64.ln(), 1.0).unwrap();
    let output = LogNormal::new(400f64.ln(), 1.0).unwrap();
    let failures = [
        ("429", ""),
        ("529", ""),
        ("500", ""),
        ("error", "timeout"),
        ("400", ""),
        ("402", ""),
    ];
    writeln!(w, "request_id,model,start,duration_s,status,error_type,input_tokens,cache_read_tokens,output_tokens").unwrap();
    for r in 0..models * per {
        let m = r % models;
        let start = T0 + r as f64 * 0.001;
        let mut link = m;
        let mut at = start;
        if rng.random::<f64>() < 0.2 {
            let (status, ty) = failures[rng.random_range(0..6)];
            let d = if ty == "timeout" {
                30.0 + rng.random::<f64>() * 0.01
            } else {
                fast.sample(&mut rng).min(600.0)
            };
            writeln!(w, "r{r},m{m:05}/model-{m},{at:.6},{d:.6},{status},{ty},,,").unwrap();
            at += d;
            link = (m + 1) % models;
        }
        let d = latency.sample(&mut rng).min(3000.0);
        let inp = input.sample(&mut rng).round() as u64 + 1;
        let read = if rng.random::<bool>() { inp * 2 / 3 } else { 0 };
        let out = output.sample(&mut rng).round() as u64 + 1;
        writeln!(
            w,
            "r{r},m{link:05}/model-{link},{at:.6},{d:.6},ok,,{inp},{read},{out}"
        )
        .unwrap();
    }
}

/// The `sessions` case: `n` one-attempt requests, each in a session of its own.
fn write_sessions(n: u64, w: &mut impl Write) {
    writeln!(
        w,
        "model,start,duration_s,status,input_tokens,output_tokens,session_id"
    )
    .unwrap();
    for i in 0..n {
        let start = T0 + i as f64 * 0.01;
        let d = 0.5 + (i % 997) as f64 * 0.003;
        writeln!(
            w,
            "anthropic/claude-sonnet-5,{start:.3},{d:.3},ok,{},{},s{i}",
            1000 + i % 5000,
            100 + i % 900
        )
        .unwrap();
    }
}
