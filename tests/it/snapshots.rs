//! Snapshot tests of the human and CSV outputs on the shipped scenarios. A change to the
//! output format shows up here as a diff to review (`tests/it/snapshots/*.snap`).

use crate::common;

use common::ok;

/// The main job: the three-down post's incident, as a terminal table.
#[test]
fn sept3_table() {
    insta::assert_snapshot!(ok(&["compare", "--scenario", "scenarios/sept3.toml"]));
}

/// The same as CSV: one header line, plain numbers, one row per section, chain and pattern.
#[test]
fn sept3_csv() {
    insta::assert_snapshot!(ok(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "-f",
        "csv"
    ]));
}

/// The failover cache table with its break-even, as Markdown.
#[test]
fn failover_cache_markdown() {
    insta::assert_snapshot!(ok(&[
        "compare",
        "--scenario",
        "scenarios/failover-cache.toml",
        "-f",
        "markdown"
    ]));
}

/// The failover-chains post: steady state with gray failures and timeout trips, as CSV.
#[test]
fn failover_chains_csv() {
    insta::assert_snapshot!(ok(&[
        "compare",
        "--scenario",
        "scenarios/failover-chains.toml",
        "-f",
        "csv"
    ]));
}

/// The bundled posts' price table.
#[test]
fn prices_table() {
    insta::assert_snapshot!(ok(&["prices", "--pricing", "2026-07"]));
}

/// The CSV header with `--mc`: the analytic columns, then the Monte Carlo columns in a stable
/// order (new ones are appended). Only the header: the simulated values move with the engine.
#[test]
fn mc_csv_header() {
    let out = ok(&[
        "compare",
        "--scenario",
        "tests/fixtures/scenarios/tiny.toml",
        "--mc",
        "1000",
        "--seed",
        "1",
        "-f",
        "csv",
    ]);
    let header = out.lines().next().unwrap_or_default().replace(',', "\n");
    insta::assert_snapshot!(header);
}

/// The CSV header of `sweep --mc`: the parameter, the analytic columns, then the Monte Carlo
/// columns named as in `compare`'s CSV (seed and requests, each mean with its 95% interval,
/// `mc_latency_*`). Only the header: the simulated values move with the engine.
#[test]
fn sweep_mc_csv_header() {
    let out = ok(&[
        "sweep",
        "--scenario",
        "tests/fixtures/scenarios/tiny.toml",
        "--param",
        "steady.failure_rate=0:0.1:0.1",
        "--mc",
        "1000",
        "--seed",
        "1",
        "-f",
        "csv",
    ]);
    let header = out.lines().next().unwrap_or_default().replace(',', "\n");
    insta::assert_snapshot!(header);
}
