//! `cargo bench --bench calibrate`: how fast `fallcost calibrate` reads each log format, in
//! MB/s on one thread (the reader is single-threaded), best of 3 passes over a file written
//! by the seeded generator of `tests/it/common/loggen.rs`. The target for OTLP/JSON is 200 MB/s
//! per core (issue 24, item 7). `CALIBRATE_BENCH_REQUESTS` sets the requests per file (default 50,000: about
//! 108 MB of OTLP/JSON).

#[path = "../tests/it/common/loggen.rs"]
mod loggen;

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use fallcost::calibrate::{Aggregator, ReadOptions, read_files};

fn main() {
    let n: u64 = std::env::var("CALIBRATE_BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000);
    let dir = std::env::temp_dir().join(format!("fallcost-calibrate-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let truth = loggen::Truth::default();
    println!("calibrate bench: {n} generated requests per file, best of 3, one thread");
    for (name, ext) in [
        ("otlp", "jsonl"),
        ("litellm-csv", "csv"),
        ("litellm-json", "json"),
        ("plain-csv", "csv"),
    ] {
        let path = dir.join(format!("{name}.{ext}"));
        {
            let file = std::fs::File::create(&path).expect("the log file");
            let mut w = BufWriter::with_capacity(1 << 20, file);
            match name {
                "otlp" => loggen::write_otlp(&truth, n, 1, &mut w),
                "litellm-csv" => loggen::write_litellm(&truth, n, 1, "csv", &mut w),
                "litellm-json" => loggen::write_litellm(&truth, n, 1, "array", &mut w),
                _ => loggen::write_plain(&truth, n, 1, &mut w),
            }
            w.flush().expect("the log is written");
        }
        let bytes = std::fs::metadata(&path).expect("the log's size").len() as f64;
        let best = (0..3)
            .map(|_| time_read(&path))
            .fold(f64::INFINITY, f64::min);
        println!(
            "{name:>13}: {:>7.1} MB in {:>6.3} s = {:>6.1} MB/s",
            bytes / 1e6,
            best,
            bytes / 1e6 / best
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Seconds to read and aggregate one file (the page cache warm after the first pass).
fn time_read(path: &Path) -> f64 {
    let mut agg = Aggregator::default();
    let options = ReadOptions {
        format: None,
        progress: false,
    };
    let started = Instant::now();
    let files = read_files(&[path], &options, &mut agg).expect("the generated log reads");
    let secs = started.elapsed().as_secs_f64();
    assert!(files[0].records > 0);
    secs
}
