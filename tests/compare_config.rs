//! `compare --config` and `sweep --config`: a gateway config's chains priced with the policy
//! values it sets (tests/fixtures/compare/proxy.yaml, a LiteLLM proxy config), the rest from a
//! scenario without `[[chain]]` (tests/fixtures/compare/steady.toml: 1% failures, all fast,
//! tests/fixtures/check/routing/prices.json). Prices at 2,000 in / 500 out, USD per 1,000:
//! gpt-4o 10.00, gpt-4o-mini 0.60, claude-sonnet-4 13.50, gpt-4.1 8.00.

mod common;

use common::{fails, fallcost};
use serde_json::Value;

const DIR: &str = "tests/fixtures/compare";

fn json(args: &[&str]) -> Value {
    let out = fallcost(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "fallcost {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn compare_prices_the_config_with_its_policy_and_says_where_each_value_came_from() {
    let config = format!("{DIR}/proxy.yaml");
    let scenario = format!("{DIR}/steady.toml");
    let doc = json(&[
        "compare", "--config", &config, "-s", &scenario, "--format", "json",
    ]);
    // `chat` splits 3:1 by weight: one chain per deployment, named with its share.
    let rows = doc["steady"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["chain"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"chat (router_settings.fallbacks) [gpt-4o, 75%]"),
        "{names:?}"
    );
    assert!(names.contains(&"chat (router_settings.fallbacks) [gpt-4o-mini, 25%]"));
    let row = |chain: &str, pattern: &str| -> &Value {
        rows.iter()
            .find(|r| r["chain"].as_str().unwrap().contains(chain) && r["pattern"] == pattern)
            .unwrap()
    };
    // num_retries 2: at most 3 attempts without a fallback; 1 + 0.01 + 0.0001 expected, and
    // 0.01^3 of requests fail: 0.001 per 1,000.
    let r = row("[gpt-4o,", "no-fallback");
    assert_eq!(r["attempts_max"], 3);
    assert!((r["attempts_per_request"].as_f64().unwrap() - 1.0101).abs() < 1e-9);
    assert!((r["failed_per_1k"].as_f64().unwrap() - 0.001).abs() < 1e-12);
    assert_eq!(r["baseline_per_1k_usd"], 10.0);
    // max_fallbacks 1 caps a sequential request at (1 + 2) x (1 + 1) = 6 attempts.
    assert_eq!(row("[gpt-4o,", "sequential")["attempts_max"], 6);
    assert_eq!(
        row("[gpt-4o-mini,", "no-fallback")["baseline_per_1k_usd"],
        0.6
    );
    let config_values: Vec<(String, u64)> = doc["config"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["chain"] == "chat (router_settings.fallbacks) [gpt-4o, 75%]")
        .map(|v| {
            (
                v["value"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let at = |prefix: &str| {
        config_values
            .iter()
            .find(|(v, _)| v.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix}: {config_values:?}"))
            .1
    };
    assert_eq!(at("retries 2"), 13);
    assert_eq!(at("timeout 30 s"), 14);
    assert_eq!(
        at("breaker: 2 failures (allowed_fails + 1), cooldown 60 s"),
        15
    );
    assert_eq!(at("call cap 6 attempts"), 17);
    assert_eq!(at("75% of `chat`'s traffic (litellm_params.weight 3:1)"), 5);
    assert_eq!(at("fallback `backup` = `claude-sonnet-4`"), 19);
    // The text lists the same values before the tables.
    let out = fallcost(&["compare", "--config", &config, "-s", &scenario]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Taken from the config:\n  chain \"chat (router_settings.fallbacks) [gpt-4o, 75%]\": primary `chat` = `gpt-4o` (tests/fixtures/compare/proxy.yaml:5)"), "{text}");
    assert!(text.contains("retries 2 (tests/fixtures/compare/proxy.yaml:13), timeout 30 s (tests/fixtures/compare/proxy.yaml:14)"));
}

#[test]
fn sweep_takes_the_config_too() {
    let doc = json(&[
        "sweep",
        "--config",
        &format!("{DIR}/proxy.yaml"),
        "-s",
        &format!("{DIR}/steady.toml"),
        "--param",
        "steady.failure_rate=0:0.02:0.01",
        "--format",
        "json",
    ]);
    // 3 points x 2 chains x 4 patterns.
    assert_eq!(doc["rows"].as_array().unwrap().len(), 24);
    assert!(
        doc["config"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["value"] == "retries 2")
    );
}

#[test]
fn bad_configs_and_scenarios_with_chains_are_input_errors() {
    let err = fails(&["compare", "--config", "scenarios/sept3.toml"]);
    assert!(
        err.contains("--config expects a LiteLLM proxy config"),
        "{err}"
    );
    let err = fails(&[
        "compare",
        "--config",
        &format!("{DIR}/proxy.yaml"),
        "-s",
        "scenarios/sept3.toml",
    ]);
    assert!(
        err.contains("with --config the chains come from the config"),
        "{err}"
    );
    // A chain with an unknown model fails closed, at the config's line.
    let err = fails(&[
        "compare",
        "--config",
        "tests/fixtures/check/errors/unknown-model/config.yaml",
    ]);
    assert!(
        err.starts_with(
            "error: tests/fixtures/check/errors/unknown-model/config.yaml:7:14: unknown model"
        ),
        "{err}"
    );
    let err = fails(&[
        "compare",
        "--config",
        "tests/fixtures/check/skipped/not-portkey.json",
    ]);
    assert!(
        err.contains("not a Portkey config or an OpenRouter request"),
        "{err}"
    );
}

/// fallcost.toml's `[compare]`: `config` and `scenario` when the command line names neither.
#[test]
fn compare_reads_project_settings() {
    let doc = json(&[
        "compare",
        "--config-file",
        "tests/fixtures/check/settings/fallcost.toml",
        "--format",
        "json",
    ]);
    assert_eq!(
        doc["config"][0]["file"],
        "tests/fixtures/compare/proxy.yaml"
    );
    assert_eq!(doc["config"][0]["line"], 5);
    let err = fails(&["compare"]);
    assert!(
        err.starts_with("error: the following required arguments were not provided: --scenario <PATH> or --config <FILE>"),
        "{err}"
    );
}
