//! Issue 33 item 6: the long history `cargo bench --bench years` replays (two made-up
//! Statuspage pages of 10,000 incidents each over ten years, one line each as the API serves
//! them: `benches/support/history_pages.rs`), read from disk. Not timed (the bench times it):
//! what the reader gives on it, against what the generator wrote.

#[allow(dead_code)] // the bench's helpers
#[path = "../../benches/support/history_pages.rs"]
mod history_pages;

use fallcost::input::history::{StatuspageOptions, load};

/// Every incident written is read, at its own times and impact: `none` is a notice (skipped),
/// `minor` 0.5, `major` and `critical` 1; the counts and the total downtime are the written
/// ones to the second.
#[test]
fn the_bench_pages_read_as_written() {
    let dir = std::env::temp_dir().join(format!("fallcost-long-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let paths = history_pages::write_pages(&dir, 20_000);
    let pages = history_pages::pages(20_000);
    let history = load(&paths, &StatuspageOptions::default()).expect("the pages load");
    let rate = |impact: &str| match impact {
        "minor" => 0.5,
        _ => 1.0,
    };
    let mut written: Vec<(f64, f64, f64, &str)> = Vec::new();
    for ((file, _, incidents), path) in pages.iter().zip(&paths) {
        assert!(path.ends_with(file));
        let provider = file.trim_end_matches(".json");
        written.extend(
            incidents
                .iter()
                .filter(|w| w.impact != "none")
                .map(|w| (w.start_s, w.end_s, rate(w.impact), provider)),
        );
    }
    written.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.3.cmp(b.3)));
    let mut read: Vec<(f64, f64, f64, &str)> = history
        .incidents
        .iter()
        .map(|i| (i.start_s, i.end_s, i.error_rate, i.provider.as_str()))
        .collect();
    read.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.3.cmp(b.3)));
    assert_eq!(read.len(), written.len());
    assert!(
        read == written,
        "the incidents read are not the ones written"
    );
    // the figures themselves, so that a change of the generator shows here too
    let notices = 20_000 - written.len();
    assert_eq!(
        (written.len(), notices, history.skipped_none),
        (19_022, 978, 978)
    );
    // each file's period: its earliest incident written (notices included) to the page's
    // `updated_at`, the later of ten years and the latest update it lists (the arrivals may run
    // past the ten years: one page ends 2026-01-19T19:16:34Z, 1768850194, not 2025-12-31T12:00Z)
    for ((file, _, incidents), path) in pages.iter().zip(&paths) {
        let c = history
            .coverage
            .iter()
            .find(|c| std::path::Path::new(&c.file).file_name() == path.file_name())
            .unwrap_or_else(|| panic!("{file}: no period in {:?}", history.coverage));
        let first = incidents
            .iter()
            .map(|w| w.start_s)
            .fold(f64::INFINITY, f64::min);
        let last = incidents
            .iter()
            .map(|w| w.end_s + 30.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let ten_years = 1_451_606_400.0 + 10.0 * 365.25 * 86_400.0;
        assert_eq!((c.start_s, c.end_s), (first, last.max(ten_years)), "{file}");
    }
    let down: f64 = read.iter().map(|r| r.1 - r.0).sum();
    // about 6,432 hours over ten years
    assert_eq!(down, 23_156_000.0, "total downtime, seconds");
    let _ = std::fs::remove_dir_all(&dir);
}
