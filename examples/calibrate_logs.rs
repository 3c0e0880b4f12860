//! Write a large generated log for `fallcost calibrate`'s memory and throughput measurements
//! (README, "Calibrate"): the seeded generator of `tests/it/common/loggen.rs`.
//!
//! ```console
//! $ cargo run --release --example calibrate_logs -- otlp 400000 /tmp/big.jsonl
//! $ /usr/bin/time -v ./target/release/fallcost calibrate /tmp/big.jsonl -o /tmp/big.toml
//! ```
//!
//! Formats: `otlp`, `litellm-csv`, `litellm-json`, `litellm-lines`, `csv`.

#[path = "../tests/it/common/loggen.rs"]
mod loggen;

use std::io::{BufWriter, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: calibrate_logs FORMAT REQUESTS PATH");
        std::process::exit(2);
    }
    let n: u64 = args[2].parse().expect("REQUESTS is a whole number");
    let file = std::fs::File::create(&args[3]).expect("PATH can be created");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let t = loggen::Truth::default();
    match args[1].as_str() {
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
    w.flush().expect("the file is written");
}
