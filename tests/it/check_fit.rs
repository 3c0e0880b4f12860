//! `fallcost check`'s fit findings (issue 35 item 3; docs/MODEL.md §11): can each fallback
//! take a failover's load and serve its requests? Retired and retiring models, prompts above
//! a context window, capabilities the requests need, a first fallback's rate limit against
//! the failover's traffic; their severities, JSON (held to the schema), SARIF rules and
//! fallcost.toml settings.

use crate::common;

use common::{fallcost, fallcost_in, root};
use serde_json::Value;

const CONFIG: &str = "tests/fixtures/check/fit/litellm-fit.yaml";

/// A fresh scratch folder for `name` under the test target's temporary folder.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("check-fit-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(args: &[&str]) -> (Value, i32) {
    let out = fallcost(args);
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (doc, out.status.code().unwrap())
}

fn fit_findings(doc: &Value) -> Vec<&Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["fit"].is_null())
        .collect()
}

fn kinds(doc: &Value) -> Vec<(String, String, u64)> {
    fit_findings(doc)
        .into_iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_fit_problem_of_the_fixture_with_its_figures() {
    let (doc, code) = json(&[
        "check",
        CONFIG,
        "--today",
        "2026-12-06",
        "--requires",
        "tools",
        "--profile",
        "6000/500",
        "--incident",
        "1h",
        "--rate",
        "4",
        "-f",
        "json",
    ]);
    assert_eq!(code, 1);
    let k = kinds(&doc);
    let s = |a: &str, b: &str, l: u64| (a.to_string(), b.to_string(), l);
    assert_eq!(
        k,
        vec![
            s("retired", "error", 9),
            s("retiring", "warning", 12),
            s("context-window", "error", 15),
            s("capability", "error", 15),
            s("capacity", "error", 18),
            s("capacity", "error", 22),
        ],
        "one finding per model and place, whichever chains reach it"
    );
    let f = fit_findings(&doc);
    // the LiteLLM table: claude-sonnet-4-5 retires 2026-11-30, successor claude-sonnet-5-5
    assert_eq!(f[0]["fit"]["deprecation_date"], "2026-11-30");
    assert_eq!(f[0]["fit"]["days_ago"], 6);
    assert_eq!(f[0]["fit"]["successor"], "claude-sonnet-5-5");
    // gpt-4o: 2027-01-14 is 39 days after 2026-12-06 (25 in December, 14 in January)
    assert_eq!(f[1]["fit"]["days_left"], 39);
    assert_eq!(f[1]["fit"]["deprecation_days"], 90);
    // 6,000 prompt tokens against the 4,096 the Fireworks model takes; the answer fits
    assert_eq!(f[2]["fit"]["prompt_tokens"], 6000);
    assert_eq!(f[2]["fit"]["max_input_tokens"], 4096);
    assert!(f[2]["fit"]["max_output_tokens"].is_null());
    assert_eq!(f[3]["fit"]["lacks"], serde_json::json!(["tools"]));
    // the pool's two deployments share the step 50:150 by rpm; 4 req/s = 240 a minute:
    // 60 against 50 and 180 against 150. By hand (Python, the Poisson terms summed):
    // E[(N − 50)⁺]/60 = 0.171991551091283, E[(N − 150)⁺]/180 = 0.166928329996595.
    let cap = |i: usize| &f[i]["fit"];
    assert_eq!(cap(4)["limit_per_minute"], 50);
    assert_eq!(cap(4)["arrivals_per_minute"], 60.0);
    assert_eq!(cap(4)["share"], 0.25);
    assert!((cap(4)["refused_share"].as_f64().unwrap() - 0.171_991_551_091_283).abs() < 1e-12);
    assert_eq!(cap(5)["limit_per_minute"], 150);
    assert!((cap(5)["refused_share"].as_f64().unwrap() - 0.166_928_329_996_595).abs() < 1e-12);
    assert_eq!(cap(5)["binds"], "rpm");
    // the schema holds the document, fit keys included
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/check.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn the_date_decides_retired_retiring_or_nothing() {
    let at = |today: &str, days: &str| {
        let (doc, _) = json(&[
            "check",
            CONFIG,
            "--today",
            today,
            "--deprecation-days",
            days,
            "-f",
            "json",
        ]);
        kinds(&doc)
            .into_iter()
            .map(|(k, _, line)| format!("{k}@{line}"))
            .collect::<Vec<_>>()
    };
    // a year earlier, 90 days: nothing retires within the window
    assert!(at("2025-12-06", "90").is_empty());
    // the day before Sonnet 4.5's date: retiring in 1 day; on the day: retired (0 days ago)
    assert_eq!(at("2026-11-29", "30"), vec!["retiring@9"]);
    assert_eq!(at("2026-11-30", "30"), vec!["retired@9"]);
    // after both dates, any window: both retired
    assert_eq!(at("2027-02-01", "0"), vec!["retired@9", "retired@12"]);
    // without --incident no capacity finding; without --requires no capability finding
    let (doc, _) = json(&["check", CONFIG, "--today", "2027-02-01", "-f", "json"]);
    assert!(
        kinds(&doc)
            .iter()
            .all(|(k, _, _)| k != "capacity" && k != "capability")
    );
}

#[test]
fn severities_can_be_set_by_flag_or_settings_and_change_the_exit_code() {
    // only the retiring warning (gpt-4o in 39 days) and the retired error: make the error a
    // note and the run passes unless warnings are denied
    let args = [
        "check",
        CONFIG,
        "--today",
        "2026-12-06",
        "--severity",
        "retired=note",
    ];
    let out = fallcost(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut deny = args.to_vec();
    deny.push("--deny-warnings");
    assert_eq!(fallcost(&deny).status.code(), Some(1));
    let mut warn = args.to_vec();
    warn.extend(["--severity", "retiring=note"]);
    let (doc, code) = json(&[warn.as_slice(), &["--deny-warnings", "-f", "json"]].concat());
    assert_eq!(code, 0);
    assert!(kinds(&doc).iter().all(|(_, s, _)| s == "note"));
    // fallcost.toml [check]: requires, deprecation_days and severity
    let dir = scratch("settings");
    std::fs::copy(root().join(CONFIG), dir.join("proxy.yaml")).unwrap();
    std::fs::write(
        dir.join("fallcost.toml"),
        "[check]\nrequires = [\"tools\"]\ndeprecation_days = 10\nseverity = { capability = \"warning\" }\n",
    )
    .unwrap();
    let out = fallcost_in(
        &dir,
        &["check", "proxy.yaml", "--today", "2026-12-06", "-f", "json"],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let k: Vec<(String, String)> = kinds(&doc).into_iter().map(|(k, s, _)| (k, s)).collect();
    // gpt-4o's 39 days are outside 10; the Fireworks model lacks tools, a warning here
    assert_eq!(
        k,
        vec![
            ("retired".into(), "error".into()),
            ("capability".into(), "warning".into())
        ]
    );
}

#[test]
fn bad_fit_flags_and_settings_are_input_errors() {
    for (args, says) in [
        (
            vec!["--severity", "capacity=fatal"],
            "`error`, `warning` or `note`",
        ),
        (
            vec!["--severity", "above-ratio=note"],
            "one of: retired, retiring",
        ),
        (vec!["--requires", "audio"], "`tools`, `vision` or `json`"),
        (vec!["--today", "2026-02-30"], "YYYY-MM-DD"),
        (vec!["--max-refused", "2"], "share from 0 to 1"),
    ] {
        let out = fallcost(&[&["check", CONFIG][..], &args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let dir = scratch("bad-settings");
    std::fs::write(
        dir.join("fallcost.toml"),
        "[check]\nrequires = [\"tools\", \"smell\"]\n",
    )
    .unwrap();
    let out = fallcost_in(&dir, &["check", "."]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fallcost.toml:2") && err.contains("check.requires[1]"),
        "{err}"
    );
}

#[test]
fn sarif_has_a_rule_for_every_fit_kind() {
    let out = fallcost(&[
        "check",
        CONFIG,
        "--today",
        "2026-12-06",
        "--requires",
        "tools",
        "--incident",
        "1h",
        "--rate",
        "4",
        "-f",
        "sarif",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = doc["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for kind in [
        "retired",
        "retiring",
        "context-window",
        "capability",
        "capacity",
    ] {
        assert!(rules.contains(&kind), "{kind} not in {rules:?}");
    }
    let results: Vec<&str> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(results.contains(&"capacity") && results.contains(&"retired"));
}
