//! Report defects: blended incident figures marked `sim`, the failover-cache note naming the
//! fallback the table names, "answered by" labels and share precision, service tier and cache
//! TTL shown, and `compare --config` with a scenario `[policy]`.

use crate::common;

use common::*;

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn tmp(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "fallcost-report-fixes-{tag}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every chain of policies.toml has a circuit breaker, so every blended incident figure blends
/// simulated ones: the blended table marks them `sim`, as JSON marks them "simulated".
#[test]
fn blended_incident_figures_are_marked_sim() {
    let text = ok_cols(200, &["compare", "--scenario", "scenarios/policies.toml"]);
    let blended = text
        .split("All chains, weighted by traffic share")
        .nth(1)
        .unwrap();
    for pattern in [
        "no-fallback",
        "sequential",
        "hedged-take-first",
        "hedged-no-cancel",
    ] {
        let line = blended.lines().find(|l| l.contains(pattern)).unwrap();
        assert!(line.contains("sim "), "{line}");
    }
    assert!(blended.contains("sim 265.70"), "{blended}");
    let md = ok(&[
        "compare",
        "--scenario",
        "scenarios/policies.toml",
        "--format",
        "markdown",
    ]);
    let md_blended = md
        .split("All chains, weighted by traffic share")
        .nth(1)
        .unwrap();
    assert!(md_blended.contains("sim 265.70"), "{md_blended}");
}

/// The complex chain's cost cap skips Astra: the table and the note both name Sol.
#[test]
fn failover_cache_note_names_the_fallback_reached_after_the_cost_cap() {
    let text = ok_cols(300, &["compare", "--scenario", "scenarios/policies.toml"]);
    let complex = text.split("Chain complex:").nth(1).unwrap();
    let cache = complex.split("Failover cache").nth(1).unwrap();
    let cache = cache.split("All chains").next().unwrap();
    assert!(
        cache.contains("first failover, cold, no write (openai/gpt-6-sol)"),
        "{cache}"
    );
    assert!(
        cache.contains("No break-even: openai/gpt-6-sol caches automatically"),
        "{cache}"
    );
    assert!(!cache.contains("gpt-6-astra"), "{cache}");
}

/// Two links with the same short name keep their full ids; shares print with up to three
/// significant digits and no trailing zeros.
#[test]
fn answered_by_labels_are_unambiguous_and_shares_consistent() {
    let dir = tmp("dup");
    let s = write(
        &dir,
        "dup.toml",
        r#"name = "dup"
pricing = "litellm"
[request]
input_tokens = 1000
output_tokens = 100
[steady]
failure_rate = 0.02
[policy]
retries = 0
max_attempts = 2
[[chain]]
name = "c"
models = ["anthropic/claude-sonnet-4-5", "vertex_ai/claude-sonnet-4-5"]
"#,
    );
    let text = ok_cols(200, &["compare", "--scenario", &s]);
    let line = text
        .lines()
        .find(|l| l.contains("│ sequential") && l.contains("claude"))
        .unwrap();
    // Sequential: the primary answers 98%, the fallback 2% of 98% = 1.96%.
    assert!(
        line.contains("claude-sonnet-4-5 98%, vertex_ai/claude-sonnet-4-5 1.96%"),
        "{line}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("│ no-fallback") && l.contains("claude"))
        .unwrap();
    assert!(line.contains("claude-sonnet-4-5 98%"), "{line}");
    assert!(!line.contains("98.00%"), "{line}");
}

/// With --config the config sets the policy: a scenario's own [policy] is refused (exit 2, at
/// its line), never overridden in silence.
#[test]
fn config_refuses_a_scenario_policy() {
    let dir = tmp("policy");
    let s = write(
        &dir,
        "s.toml",
        "[request]\ninput_tokens = 2000\noutput_tokens = 500\n\n[policy]\nretries = 5\n",
    );
    for cmd in ["compare", "sweep"] {
        let mut args = vec![
            cmd,
            "--config",
            "tests/fixtures/compare/proxy.yaml",
            "-s",
            &s,
        ];
        if cmd == "sweep" {
            args.extend(["--param", "steady.failure_rate=0:0.02:0.01"]);
        }
        let err = fails(&args);
        assert!(
            err.contains("s.toml:5:1: policy: with --config the config sets the policy"),
            "{err}"
        );
    }
}

/// Service tiers and the cache TTL/miss rule show in the text header and in JSON.
#[test]
fn service_tiers_and_cache_ttl_are_shown() {
    let dir = tmp("tiers");
    let s = write(
        &dir,
        "t.toml",
        r#"name = "tiers"
pricing = "litellm"
[request]
input_tokens = 1000
output_tokens = 100
prefix_tokens = 5000
cache_hit_rate = 0.9
cache_ttl = "1h"
cache_miss = "input"
[[chain]]
name = "c"
models = ["claude-sonnet-4-5", "gpt-5"]
service_tiers = ["batch", "batch"]
[[chain]]
name = "p"
models = ["gpt-5", "claude-sonnet-4-5"]
service_tiers = ["priority", "standard"]
[[chain]]
name = "s"
models = ["claude-sonnet-4-5", "gpt-5"]
"#,
    );
    let text = ok_cols(200, &["compare", "--scenario", &s]);
    assert!(
        text.contains("+ 100 output tokens, cache TTL 1h\n"),
        "{text}"
    );
    assert!(
        text.contains("\nChain c (batch): claude-sonnet-4-5 → gpt-5\n"),
        "{text}"
    );
    assert!(
        text.contains("\nChain p: gpt-5 (priority) → claude-sonnet-4-5\n"),
        "{text}"
    );
    assert!(
        text.contains("\nChain s: claude-sonnet-4-5 → gpt-5\n"),
        "{text}"
    );
    let doc = json(&["compare", "--scenario", &s]);
    assert_eq!(doc["request"]["cache_ttl"], "1h");
    assert_eq!(doc["request"]["cache_miss"], "input");
    let tiers: Vec<_> = doc["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["service_tiers"].clone())
        .collect();
    assert_eq!(
        tiers,
        vec![
            serde_json::json!(["batch", "batch"]),
            serde_json::json!(["priority", "standard"]),
            serde_json::json!(["standard", "standard"])
        ]
    );
    // Unset, the keys are null and every link is standard.
    let doc = json(&[
        "compare",
        "--scenario",
        &write(
            &dir,
            "plain.toml",
            "[request]\ninput_tokens = 10\noutput_tokens = 10\n[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\"]\n",
        ),
    ]);
    assert!(doc["request"]["cache_ttl"].is_null());
    assert!(doc["request"]["cache_miss"].is_null());
    assert_eq!(
        doc["chains"][0]["service_tiers"],
        serde_json::json!(["standard"])
    );
}
