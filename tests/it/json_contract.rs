//! The JSON key contract of `compare`, `sweep`, `check` and `prices` (issue 11, item 7): for
//! each command on shipped inputs, the snapshot holds every key path with its JSON types, not
//! the values (`tests/it/common/contract.rs`). A renamed, dropped or retyped key fails here; the
//! figures may move. New keys show up as a diff to accept (`cargo insta review`).

use crate::common;
use crate::common::contract;

use common::fallcost;
use contract::key_contract_of;

/// Standard output of `fallcost ARGS`, which must exit with `code` (`check` exits 1 when it
/// flags a chain, 2 on input errors, and still prints its document).
fn json_of(code: i32, args: &[&str]) -> String {
    let out = fallcost(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "fallcost {}\nstderr:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The key contract of `fallcost ARGS` (exit `code`), `maps` as in [`contract::key_contract`].
fn contract(code: i32, args: &[&str], maps: &[&str]) -> String {
    key_contract_of(&args.join(" "), &json_of(code, args), maps)
}

/// The shipped scenarios, sorted, by file stem.
fn scenarios() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The helper itself: paths, merged array elements, scalar arrays, maps and type unions.
#[test]
fn the_contract_helper_lists_paths_and_types() {
    let doc = r#"{"a": 1, "rows": [{"x": null, "ci": [1.0, 2]}, {"x": 2.5, "ci": []}],
                  "m": {"k1": {"v": "s"}, "k2": {"v": true}}, "e": []}"#;
    assert_eq!(
        key_contract_of("doc", doc, &["m"]),
        ".: object\n\
         a: number\n\
         e: array<>\n\
         m: object\n\
         m.{}: object\n\
         m.{}.v: bool|string\n\
         rows: array<object>\n\
         rows[]: object\n\
         rows[].ci: array<>|array<number>\n\
         rows[].x: null|number\n"
    );
    // A renamed key changes the contract.
    let renamed = doc.replace("\"x\"", "\"y\"");
    assert_ne!(
        key_contract_of("doc", doc, &["m"]),
        key_contract_of("renamed", &renamed, &["m"])
    );
}

/// `compare` on every shipped scenario, analytic only.
#[test]
fn compare_key_contract() {
    let names = scenarios();
    assert!(names.len() >= 7, "{names:?}");
    for name in names {
        let path = format!("scenarios/{name}.toml");
        let c = contract(0, &["compare", "--scenario", &path, "-f", "json"], &[]);
        insta::assert_snapshot!(format!("compare_{name}"), c);
    }
}

/// `compare --mc N --seed S` on every shipped scenario: the `mc` objects and their `_ci95`
/// intervals, the run's metadata.
#[test]
fn compare_mc_key_contract() {
    for name in scenarios() {
        let path = format!("scenarios/{name}.toml");
        let args = [
            "compare",
            "--scenario",
            &path,
            "--mc",
            "2000",
            "--mc-runs",
            "8",
            "--seed",
            "3",
            "-f",
            "json",
        ];
        let c = contract(0, &args, &[]);
        insta::assert_snapshot!(format!("compare_mc_{name}"), c);
    }
}

/// `sweep` over a steady-state, an incident and a policy parameter, with and without `--mc`.
#[test]
fn sweep_key_contract() {
    let cases: [(&str, &str, &str); 3] = [
        (
            "failover_chains",
            "scenarios/failover-chains.toml",
            "steady.failure_rate=0:0.1:0.05",
        ),
        (
            "sept3",
            "scenarios/sept3.toml",
            "incident.duration=30m:2h:30m",
        ),
        (
            "timeout",
            "scenarios/timeout.toml",
            "policy.timeout_s=2:6:2",
        ),
    ];
    for (name, path, param) in cases {
        let base = ["sweep", "--scenario", path, "--param", param, "-f", "json"];
        insta::assert_snapshot!(format!("sweep_{name}"), contract(0, &base, &[]));
        let mc = [&base[..], &["--mc", "1000", "--seed", "5"]].concat();
        insta::assert_snapshot!(format!("sweep_mc_{name}"), contract(0, &mc, &[]));
    }
}

/// `check` on the shipped scenarios (flags chains: exit 1), on a folder of LiteLLM configs and
/// on the folder of input errors (exit 2: the `errors` objects).
#[test]
fn check_key_contract() {
    let cases = [
        ("scenarios", "scenarios/", 1),
        ("litellm", "tests/fixtures/check/litellm", 1),
        ("errors", "tests/fixtures/check/errors", 2),
    ];
    for (name, path, code) in cases {
        let c = contract(code, &["check", path, "-f", "json"], &[]);
        insta::assert_snapshot!(format!("check_{name}"), c);
    }
}

/// `prices` on the bundled LiteLLM snapshot and on the posts' table: `models` is keyed by
/// model id.
#[test]
fn prices_key_contract() {
    let c = contract(0, &["prices", "-f", "json"], &["models"]);
    insta::assert_snapshot!("prices_litellm", c);
    let c = contract(
        0,
        &["prices", "--pricing", "2026-07", "-f", "json"],
        &["models"],
    );
    insta::assert_snapshot!("prices_2026_07", c);
}
