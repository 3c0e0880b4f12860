//! CSV columns stay put (issue 40, item 2): the header of every CSV fallcost writes, stored in
//! `tests/fixtures/csv-headers/KIND.csv` as the binary of commit 6473534 printed it, is a
//! prefix of today's header. Columns may only be appended: a new figure declares the next CSV
//! generation (`csv(N)` in `src/figures.rs`) and its columns go after every existing one.
//!
//! `check`, `calibrate` and `diff` write no CSV (`calibrate` writes a scenario TOML), so they
//! have no header here.

use crate::common::{ok, root};

const SEPT3: &str = "scenarios/sept3.toml";
const HISTORY: &str = "tests/fixtures/history/anthropic-half-year.csv";

/// The columns of the first line of `csv`.
fn header(csv: &str) -> Vec<String> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    r.headers()
        .expect("a CSV header")
        .iter()
        .map(String::from)
        .collect()
}

/// The stored header of `kind`.
fn stored(kind: &str) -> Vec<String> {
    let path = root().join(format!("tests/fixtures/csv-headers/{kind}.csv"));
    header(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
}

/// Today's header of `fallcost ARGS` starts with the stored header of `kind`, column for
/// column, and has at least `columns` columns stored.
fn stays_put(kind: &str, columns: usize, args: &[&str]) {
    let before = stored(kind);
    assert_eq!(before.len(), columns, "{kind}: the stored header's columns");
    let now = header(&ok(args));
    assert!(now.len() >= before.len(), "{kind}: columns were removed");
    for (i, (b, n)) in before.iter().zip(&now).enumerate() {
        assert_eq!(
            b,
            n,
            "{kind}: column {} moved (stored `{b}`, now `{n}`); new columns go at the end",
            i + 1
        );
    }
}

#[test]
fn compare_columns_stay_put() {
    stays_put("compare", 36, &["compare", "-s", SEPT3, "--format", "csv"]);
}

#[test]
fn compare_mc_columns_stay_put() {
    let args = ["compare", "-s", SEPT3, "--format", "csv", "--mc", "2000"];
    stays_put("compare-mc", 123, &[&args[..], &["--seed", "7"]].concat());
}

#[test]
fn sweep_columns_stay_put() {
    let grid = "incident.duration=30m:1h:30m";
    let args = ["sweep", "-s", SEPT3, "--param", grid, "--format", "csv"];
    stays_put("sweep", 25, &args);
    let mc = [&args[..], &["--mc", "2000", "--seed", "7"]].concat();
    stays_put("sweep-mc", 48, &mc);
}

#[test]
fn history_columns_stay_put() {
    let args = [
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        HISTORY,
        "--format",
        "csv",
    ];
    stays_put("history", 44, &args);
    // the same columns with the simulated years
    let years = [&args[..], &["--years", "20", "--seed", "1"]].concat();
    stays_put("history", 44, &years);
}

#[test]
fn tune_reconcile_and_prices_columns_stay_put() {
    stays_put("tune", 20, &["tune", "-s", SEPT3, "--format", "csv"]);
    let bill = "tests/fixtures/reconcile/bill.csv";
    stays_put("reconcile", 25, &["reconcile", bill, "--format", "csv"]);
    stays_put("prices", 12, &["prices", "--format", "csv"]);
}
