//! Every JSON document fallcost writes is held to its JSON Schema in `schemas/`: the compare
//! report (each shipped scenario, with and without Monte Carlo), the sweep, the price table and
//! the check findings. The schemas are strict (`additionalProperties: false`, every row key
//! required), so a key that goes missing in one row, or appears unwritten down, fails here.

use crate::common;

use common::{fallcost, root};
use serde_json::Value;

pub(crate) fn validator(name: &str) -> jsonschema::Validator {
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

pub(crate) fn assert_valid(v: &jsonschema::Validator, doc: &Value, what: &str) {
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

/// The figure keys each strict row of the schemas holds, from the figures' declaration
/// (`fallcost::figures`): every figure the analytic engine fills, as `KEY`.
fn declared_rows() -> Vec<(
    &'static str,
    &'static str,
    Vec<&'static fallcost::figures::Figure>,
)> {
    use fallcost::figures::{INCIDENT_FIGURES, STEADY_FIGURES, STEADY_POLICY_FIGURES};
    let analytic = |sets: &[&'static [fallcost::figures::Figure]]| {
        sets.iter()
            .flat_map(|s| s.iter())
            .filter(|f| f.analytic)
            .collect::<Vec<_>>()
    };
    vec![
        (
            "compare.schema.json",
            "steady_row",
            analytic(&[STEADY_FIGURES, STEADY_POLICY_FIGURES]),
        ),
        (
            "compare.schema.json",
            "incident_row",
            analytic(&[INCIDENT_FIGURES]),
        ),
        (
            "history.schema.json",
            "replay_row",
            analytic(&[INCIDENT_FIGURES]),
        ),
    ]
}

/// A declared figure's property as `UPDATE_SCHEMAS=1` writes it: its type (a list: an array;
/// a count that is not estimated: an integer; else a number), its meaning and unit. Nullable
/// figures (`opt`) need `"null"` added by hand: the validation tests above say so.
fn generated_property(f: &fallcost::figures::Figure, indent: &str) -> String {
    let ty = if f.list {
        "array"
    } else if f.count && !f.estimated {
        "integer"
    } else {
        "number"
    };
    let description =
        serde_json::to_string(&format!("{} Unit: {}.", f.meaning.trim(), f.unit)).unwrap();
    format!(
        "{indent}\"{}\": {{\n{indent}  \"type\": \"{ty}\",\n{indent}  \"description\": {description}\n{indent}}},\n",
        f.key
    )
}

/// Insert the missing figure keys of `def` into the schema text `text` (formatted as the
/// files are: two-space indents, `$defs` at the top level): each at the head of the def's
/// `properties` and `required`.
fn insert_missing(text: &str, def: &str, missing: &[&fallcost::figures::Figure]) -> String {
    let start = text
        .find(&format!("\n    \"{def}\": {{\n"))
        .unwrap_or_else(|| panic!("{def}: not a $defs entry"));
    let end = start + text[start + 1..].find("\n    }").unwrap() + 1;
    let mut body = text[start..end].to_string();
    let props = "\n      \"properties\": {\n";
    let at = body.find(props).expect("properties") + props.len();
    let added: String = missing
        .iter()
        .map(|f| generated_property(f, "        "))
        .collect();
    body.insert_str(at, &added);
    let req = "\n      \"required\": [\n";
    let at = body.find(req).expect("required") + req.len();
    let added: String = missing
        .iter()
        .map(|f| format!("        \"{}\",\n", f.key))
        .collect();
    body.insert_str(at, &added);
    format!("{}{}{}", &text[..start], body, &text[end..])
}

/// The strict rows of the schemas (`additionalProperties: false`) list and require every
/// figure the declaration gives them, so a new figure cannot go unwritten in the schema. To
/// add a new figure's keys: `UPDATE_SCHEMAS=1 cargo test --test it schemas::` (then review the
/// diff, as `cargo insta review`: the type and description are generated from the
/// declaration; a nullable figure needs `"null"` added to its type by hand).
#[test]
fn schema_rows_hold_every_declared_figure() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut missing_all = Vec::new();
    for (file, def, figures) in declared_rows() {
        let path = root().join("schemas").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        let row = &schema["$defs"][def];
        assert_eq!(row["additionalProperties"], false, "{file} {def}: strict");
        let required: Vec<&str> = row["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        let missing: Vec<&fallcost::figures::Figure> = figures
            .into_iter()
            .filter(|f| row["properties"].get(f.key).is_none() || !required.contains(&f.key))
            .collect();
        if missing.is_empty() {
            continue;
        }
        if update {
            // only keys missing from both: a key listed in one but not the other is a hand edit
            let absent: Vec<&fallcost::figures::Figure> = missing
                .iter()
                .copied()
                .filter(|f| row["properties"].get(f.key).is_none() && !required.contains(&f.key))
                .collect();
            let text = insert_missing(&text, def, &absent);
            let _: Value = serde_json::from_str(&text).expect("still JSON");
            std::fs::write(&path, text).unwrap();
        }
        missing_all.extend(
            missing
                .iter()
                .map(|f| format!("{file} $defs/{def}: {}", f.key)),
        );
    }
    assert!(
        update || missing_all.is_empty(),
        "figures declared in src/figures.rs but not in the schema (properties and required):\n{}\n\
         run `UPDATE_SCHEMAS=1 cargo test --test it schemas::` and review the diff",
        missing_all.join("\n")
    );
}

/// The regeneration writes what the check wants, in the files' format: a figure removed from
/// a row comes back, listed and required.
#[test]
fn update_schemas_restores_a_missing_figure() {
    let path = root().join("schemas").join("compare.schema.json");
    let text = std::fs::read_to_string(path).unwrap();
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    let row = schema["$defs"]["incident_row"].as_object_mut().unwrap();
    row["properties"]
        .as_object_mut()
        .unwrap()
        .remove("cold_starts");
    row["required"]
        .as_array_mut()
        .unwrap()
        .retain(|k| k != "cold_starts");
    // the files are serde_json's pretty format, keys sorted as serde_json sorts them here
    let stripped = serde_json::to_string_pretty(&schema).unwrap() + "\n";
    let fig = fallcost::figures::INCIDENT_FIGURES
        .iter()
        .find(|f| f.key == "cold_starts")
        .unwrap();
    let restored: Value =
        serde_json::from_str(&insert_missing(&stripped, "incident_row", &[fig])).unwrap();
    let row = &restored["$defs"]["incident_row"];
    // an expected count is a number (whole ones print as integers: `Figure::count`)
    assert_eq!(row["properties"]["cold_starts"]["type"], "number");
    assert_eq!(
        row["properties"]["cold_starts"]["description"],
        "Sessions that started cold on a fallback (expected count). Unit: sessions."
    );
    assert_eq!(row["required"][0], "cold_starts");
}

/// `fallcost tune --format json` on the small brute-force space (a breaker among its settings,
/// so screened, recomputed and simulated points all appear), feasible and infeasible.
#[test]
fn tune_json_follows_its_schema() {
    let v = validator("tune.schema.json");
    let base = [
        "tune",
        "-s",
        "tests/fixtures/tune/small.toml",
        "--vary",
        "policy.timeout_s=20",
        "--vary",
        "policy.retries=0",
        "--vary",
        "policy.warm_fallback=always,never",
        "--vary",
        "policy.breaker.threshold=none,2",
        "--vary",
        "policy.breaker.cooldown_s=30",
        "--vary",
        "policy.hedge_delay_s=none,3",
        "--confirm",
        "2",
        "-f",
        "json",
    ];
    let mut loose = base.to_vec();
    loose.extend(["--availability", "99.9%"]);
    let doc = output(&loose);
    assert_valid(&v, &doc, "tune");
    assert!(doc["chains"][0]["recommended"].is_object(), "{doc}");
    let mut strict = base.to_vec();
    strict.extend(["--availability", "99.99999%"]);
    let doc = output(&strict);
    assert_valid(&v, &doc, "tune, infeasible");
    assert!(doc["chains"][0]["infeasible"].is_object(), "{doc}");
}

#[test]
fn reconcile_json_follows_its_schema() {
    let v = validator("reconcile.schema.json");
    let d = "tests/fixtures/reconcile";
    for args in [
        vec![
            format!("{d}/openai-usage.json"),
            format!("{d}/openai-costs.json"),
        ],
        vec![
            format!("{d}/anthropic-usage.json"),
            format!("{d}/anthropic-costs.json"),
            "--config-file".into(),
            format!("{d}/fallcost.toml"),
        ],
        vec![
            format!("{d}/openrouter-activity.json"),
            format!("{d}/bill.csv"),
        ],
        vec![
            "examples/reconcile/anthropic-usage.json".into(),
            "examples/reconcile/anthropic-costs.json".into(),
            "examples/reconcile/openai-usage.json".into(),
            "examples/reconcile/openai-costs.json".into(),
            "--scenario".into(),
            "examples/reconcile/team.toml".into(),
            "--incidents".into(),
            "examples/reconcile/incidents.csv".into(),
        ],
    ] {
        let mut all = vec!["reconcile", "--pricing", "2026-07", "-f", "json"];
        all.extend(args.iter().map(String::as_str));
        let mut doc = output(&all);
        assert_valid(&v, &doc, &args.join(" "));
        // not a rubber stamp: a row without `within` fails
        doc["rows"][0].as_object_mut().unwrap().remove("within");
        assert!(!v.is_valid(&doc));
    }
}
