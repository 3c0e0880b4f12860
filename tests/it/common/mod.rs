//! Shared helpers for the end-to-end tests: run the built binary from the repository root.

#![allow(dead_code)]

pub mod contract;
pub mod loggen;
pub mod realgen;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (where `scenarios/` and `pricing/` are).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documentation's pages: README.md first, then every `docs/guide/*.md` in name order, as
/// (path relative to the root, text).
pub fn doc_pages() -> Vec<(String, String)> {
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root().join("docs/guide"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guide.sort();
    let mut pages = vec![("README.md".to_string(), root().join("README.md"))];
    for p in guide {
        let rel = p
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        pages.push((rel, p));
    }
    pages
        .into_iter()
        .map(|(rel, p)| (rel, std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// The whole documentation as one text (README.md and the guide's pages, each followed by a
/// blank line): a test that finds an example by its content finds it on whichever page holds it.
pub fn docs() -> String {
    doc_pages()
        .into_iter()
        .map(|(_, text)| text + "\n")
        .collect()
}

/// The day every test runs `fallcost` on (`SOURCE_DATE_EPOCH`): 2026-12-06 00:00 UTC.
pub const TODAY_EPOCH_S: &str = "1796515200";

/// Run `fallcost ARGS` from the repository root.
pub fn fallcost(args: &[&str]) -> Output {
    fallcost_in(&root(), args)
}

/// Run `fallcost ARGS` from `dir`.
pub fn fallcost_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(args)
        .current_dir(dir)
        .env_remove("RAYON_NUM_THREADS")
        // tables and prose fit an 80-column terminal when stdout is not one
        .env("COLUMNS", "80")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        // `check`'s retirements are judged on one day, whatever day the tests run
        // (2026-12-06: the LiteLLM snapshot's dates as the fixtures' expectations read them)
        .env("SOURCE_DATE_EPOCH", TODAY_EPOCH_S)
        .output()
        .expect("the fallcost binary runs")
}

/// What a printed reproduce line (`fallcost compare …`, as `tune` prints it) prints as JSON,
/// run as written by `sh -c` from `dir` with this build's binary; the run must succeed.
pub fn reproduce_in(dir: &Path, line: &str) -> serde_json::Value {
    let cmd = format!(
        "{} {} --format json",
        fallcost::tune::shell_word(env!("CARGO_BIN_EXE_fallcost")),
        line.strip_prefix("fallcost ").unwrap()
    );
    let out = Command::new("sh")
        .args(["-c", &cmd])
        .current_dir(dir)
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{cmd}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Standard output of a run that must succeed; on failure, show the command and both streams.
pub fn ok(args: &[&str]) -> String {
    let out = fallcost(args);
    assert!(
        out.status.success(),
        "fallcost {} exited {:?}\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Standard output of a run that must succeed, laid out for a terminal `columns` wide.
pub fn ok_cols(columns: usize, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(args)
        .current_dir(root())
        .env_remove("RAYON_NUM_THREADS")
        .env("COLUMNS", columns.to_string())
        .output()
        .expect("the fallcost binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Standard error of a run that must fail with exit code 2, checked to be one line with no
/// panic text.
pub fn fails(args: &[&str]) -> String {
    fails_in(&root(), args)
}

/// As [`fails`], from `dir`.
pub fn fails_in(dir: &Path, args: &[&str]) -> String {
    let out = fallcost_in(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(2),
        "fallcost {} should exit 2\nstdout:\n{}\nstderr:\n{stderr}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    // `check` follows its unknown-model errors with the fallcost.toml [prices] block to paste.
    let error = match stderr
        .find("\n# ")
        .filter(|&i| stderr[i..].contains(" with no price: "))
    {
        Some(i) => stderr[..=i].to_string(),
        None => stderr.clone(),
    };
    assert_eq!(error.trim_end().lines().count(), 1, "one line: {stderr}");
    stderr
}

/// JSON output of a run that must succeed.
pub fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&ok(&all)).expect("valid JSON")
}

/// The row of `section` (`steady` or `incident`) for `chain` and `pattern`.
pub fn row<'a>(
    report: &'a serde_json::Value,
    section: &str,
    chain: &str,
    pattern: &str,
) -> &'a serde_json::Value {
    report[section]
        .as_array()
        .unwrap_or_else(|| panic!("no {section} rows"))
        .iter()
        .find(|r| r["chain"] == chain && r["pattern"] == pattern)
        .unwrap_or_else(|| panic!("no {section} row for {chain} / {pattern}"))
}

/// The number at `key` of a row.
pub fn num(row: &serde_json::Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {row}"))
}

/// Assert `got` is within `tol` of `want`.
pub fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
}

/// The z of an agreement check (`sim::agree`): |analytic − MC mean| over the MC's standard
/// error (the interval's half-width before widening, over its z); 0 where the MC saw no spread
/// or the two agree to 1e-9.
pub fn z(c: &fallcost::sim::agree::Check) -> f64 {
    let zl = if c.level > 0.995 { 3.2905 } else { 2.5758 };
    let se = ((c.mc.hi - c.mc.lo) / 2.0 - c.widened) / zl;
    if se > 0.0 && (c.analytic - c.mc.mean).abs() > 1e-9 {
        (c.analytic - c.mc.mean).abs() / se
    } else {
        0.0
    }
}
