//! Every JSON document fallcost writes is held to its JSON Schema in `schemas/`: the compare
//! report (each shipped scenario, with and without Monte Carlo), the sweep, the price table and
//! the check findings. The schemas are strict (`additionalProperties: false`, every row key
//! required), so a key that goes missing in one row, or appears unwritten down, fails here.

mod common;

use common::{fallcost, root};
use serde_json::Value;

fn validator(name: &str) -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schemas").join(name)).unwrap())
            .unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn output(args: &[&str]) -> Value {
    let out = fallcost(args);
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(doc)
        .take(10)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}:\n{}", errors.join("\n"));
}

fn scenarios() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| format!("scenarios/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".toml"))
        .collect();
    v.sort();
    v.push("tests/fixtures/scenarios/tiers-shares.toml".into());
    v
}

#[test]
fn compare_json_follows_its_schema() {
    let v = validator("compare.schema.json");
    // the schema is not a rubber stamp: a row without `blended` fails
    let mut doc = output(&["compare", "-s", "scenarios/sept3.toml", "-f", "json"]);
    assert_valid(&v, &doc, "sept3");
    doc["steady"][0].as_object_mut().unwrap().remove("blended");
    assert!(!v.is_valid(&doc));
    for s in scenarios() {
        let doc = output(&["compare", "-s", &s, "-f", "json"]);
        assert_valid(&v, &doc, &s);
        let mc = output(&[
            "compare",
            "-s",
            &s,
            "-f",
            "json",
            "--mc",
            "2000",
            "--mc-runs",
            "2",
            "--seed",
            "3",
        ]);
        assert_valid(&v, &mc, &format!("{s} --mc"));
    }
}

#[test]
fn compare_json_names_the_request_the_chains_and_blended_rows() {
    let doc = output(&[
        "compare",
        "-s",
        "tests/fixtures/scenarios/tiers-shares.toml",
        "-f",
        "json",
    ]);
    assert_eq!(doc["request"]["prefix_tokens"], 60000);
    assert_eq!(doc["chains"][0]["name"], "simple");
    assert_eq!(doc["chains"][0]["models"][0], "anthropic/claude-haiku-4-5");
    assert_eq!(doc["chains"][0]["traffic_share"], 0.6);
    let steady = doc["steady"].as_array().unwrap();
    let blended: Vec<&Value> = steady.iter().filter(|r| r["blended"] == true).collect();
    assert_eq!(blended.len(), 4, "one blended row per pattern");
    assert!(
        blended
            .iter()
            .all(|r| r["chain"] == "all chains (by traffic_share)")
    );
    // every incident row has `breaker`, null where no breaker ran; counts are integers
    let inc = doc["incident"].as_array().unwrap();
    assert!(
        inc.iter()
            .all(|r| r.as_object().unwrap().contains_key("breaker"))
    );
    let sept3 = output(&["compare", "-s", "scenarios/sept3.toml", "-f", "json"]);
    assert_eq!(sept3["incident"][0]["failed_requests"].to_string(), "11160");
    assert_eq!(sept3["incident_window"]["requests"].to_string(), "11160");
}

#[test]
fn sweep_prices_and_check_json_follow_their_schemas() {
    let v = validator("sweep.schema.json");
    for (s, p) in [
        (
            "scenarios/failover-chains.toml",
            "steady.failure_rate=0:0.1:0.05",
        ),
        (
            "scenarios/failover-cache.toml",
            "incident.duration=30s:1h:30m",
        ),
        (
            "scenarios/hedge-latency.toml",
            "request.output_tokens=100:300:100",
        ),
    ] {
        let doc = output(&["sweep", "-s", s, "--param", p, "-f", "json"]);
        assert_valid(&v, &doc, s);
        let mc = output(&[
            "sweep", "-s", s, "--param", p, "-f", "json", "--mc", "2000", "--seed", "1",
        ]);
        assert_valid(&v, &mc, &format!("{s} --mc"));
    }
    let v = validator("prices.schema.json");
    assert_valid(&v, &output(&["prices", "-f", "json"]), "bundled");
    assert_valid(
        &v,
        &output(&[
            "prices",
            "-p",
            "tests/fixtures/pricing/litellm-small.json",
            "-f",
            "json",
        ]),
        "litellm",
    );
    let v = validator("check.schema.json");
    for dir in ["scenarios", "tests/fixtures/check"] {
        let doc = output(&["check", dir, "-f", "json"]);
        assert_valid(&v, &doc, dir);
        // every finding has every key
        let findings = doc["findings"].as_array().unwrap();
        let n = findings[0].as_object().unwrap().len();
        assert!(findings.iter().all(|f| f.as_object().unwrap().len() == n));
    }
}

/// `compare --config`: the gateway config's provenance (`config`) is written down too.
#[test]
fn compare_config_json_follows_its_schema() {
    let v = validator("compare.schema.json");
    let doc = output(&[
        "compare",
        "--config",
        "tests/fixtures/compare/proxy.yaml",
        "--scenario",
        "tests/fixtures/compare/steady.toml",
        "-f",
        "json",
    ]);
    assert!(!doc["config"].as_array().unwrap().is_empty());
    assert_valid(&v, &doc, "compare --config");
}
