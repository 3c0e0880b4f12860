//! `compare --config` and `sweep --config`: a gateway config's chains priced with the policy
//! values it sets (tests/fixtures/compare/proxy.yaml, a LiteLLM proxy config), the rest from a
//! scenario without `[[chain]]` (tests/fixtures/compare/steady.toml: 1% failures, all fast,
//! tests/fixtures/check/routing/prices.json). Prices at 2,000 in / 500 out, USD per 1,000:
//! gpt-4o 10.00, gpt-4o-mini 0.60, claude-sonnet-4 13.50, gpt-4.1 8.00.

use crate::common;

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

/// Every value taken for `chain`: its own (`config`) and those it shares with the other chains
/// of its config (`config_shared`), as (value, line).
fn values_of(doc: &Value, chain: &str) -> Vec<(String, u64)> {
    doc["config"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["chain"] == chain)
        .chain(
            doc["config_shared"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|v| v["chains"].as_array().unwrap().iter().any(|c| c == chain)),
        )
        .map(|v| {
            (
                v["value"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Whether `doc` lists `value` from `line` for any chain.
/// The rule every per-class retry line of LiteLLM's `retry_policy` ends with.
const RULE: &str = "; a request's first failure on a link chooses its retries there, as LiteLLM's get_num_retries_from_retry_policy)";

fn lists(doc: &Value, value: &str, line: u64) -> bool {
    ["config", "config_shared"].iter().any(|k| {
        doc[*k]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["value"] == value && v["line"] == line)
    })
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
    // A chain's values: its own (`config`) and those every chain of the config shares, listed
    // once (`config_shared`).
    let chain = "chat (router_settings.fallbacks) [gpt-4o, 75%]";
    let shared = doc["config_shared"].as_array().unwrap();
    assert_eq!(
        shared.iter().filter(|v| v["value"] == "retries 2").count(),
        1,
        "{shared:?}"
    );
    assert!(
        !doc["config"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["value"] == "retries 2")
    );
    let config_values: Vec<(String, u64)> = doc["config"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["chain"] == chain)
        .chain(shared.iter().filter(|v| {
            v["config"] == "tests/fixtures/compare/proxy.yaml"
                && v["chains"].as_array().unwrap().iter().any(|c| c == chain)
        }))
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
    // each entry wraps at the terminal's width (80 here), continuing with four spaces
    let text = text.replace("\n    ", " ");
    assert!(text.starts_with("Taken from the config:\n  chain \"chat (router_settings.fallbacks) [gpt-4o, 75%]\": primary `chat` = `gpt-4o` (tests/fixtures/compare/proxy.yaml:5)"), "{text}");
    assert!(text.contains("retries 2 (tests/fixtures/compare/proxy.yaml:13), timeout 30 s (tests/fixtures/compare/proxy.yaml:14)"));
    // Listed once, for both chains.
    assert_eq!(text.matches("retries 2 (").count(), 1, "{text}");
    assert!(text.contains("\n  every chain of tests/fixtures/compare/proxy.yaml (2): fallback `backup` = `claude-sonnet-4` (tests/fixtures/compare/proxy.yaml:19), "));
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
    // 3 points x (2 chains + their blend by traffic share) x 4 patterns.
    assert_eq!(doc["rows"].as_array().unwrap().len(), 36);
    assert!(
        doc["config_shared"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["value"] == "retries 2" && v["chains"].as_array().unwrap().len() == 2)
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
    // check's advice, which compare takes too (config prices, --pricing), and the scenario's.
    assert!(
        err.contains("; set its prices in the config (LiteLLM model_info input_cost_per_token and output_cost_per_token, or base_model), or pass --pricing with a table that has it (or name one in the scenario's `pricing`)"),
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

/// LiteLLM's `retry_policy` (tests/fixtures/compare/retry-policy.yaml: TimeoutErrorRetries 1,
/// RateLimitErrorRetries 4, num_retries 2), a deployment's own timeout (gpt-4o 10 s over the
/// router's 30 s) and a fallback group `backup` of claude-sonnet-4 and gpt-4.1 at weights 1:3,
/// priced as one chain per fallback deployment with its share of the traffic.
#[test]
fn retry_policy_deployment_timeout_and_a_fallback_group_as_its_traffic_mix() {
    let config = format!("{DIR}/retry-policy.yaml");
    // Gray failures (timeouts): TimeoutErrorRetries 1 replaces num_retries 2.
    let doc = json(&[
        "compare",
        "--config",
        &config,
        "-s",
        &format!("{DIR}/steady-gray.toml"),
        "--format",
        "json",
    ]);
    let rows = doc["steady"].as_array().unwrap();
    let claude = "chat (router_settings.fallbacks) -> backup [claude-sonnet-4, 25%]";
    let gpt41 = "chat (router_settings.fallbacks) -> backup [gpt-4.1, 75%]";
    let row = |chain: &str, pattern: &str| -> &Value {
        rows.iter()
            .find(|r| r["chain"] == chain && r["pattern"] == pattern)
            .unwrap_or_else(|| panic!("no {chain} {pattern}"))
    };
    // Per request: gpt-4o $0.01, a gray failure bills input + half the output, $0.0075.
    // Retries 1: 0.99 x 0.01 + 0.01 x (0.0075 + 0.99 x 0.01 + 0.01 x 0.0075) = $0.01007475,
    // and 0.01^2 of requests fail (0.1 per 1,000; retries 2 would fail 0.001).
    let r = row(claude, "no-fallback");
    assert_eq!(r["attempts_max"], 2);
    assert!((r["cost_per_1k_usd"].as_f64().unwrap() - 10.07475).abs() < 1e-9);
    assert!((r["failed_per_1k"].as_f64().unwrap() - 0.1).abs() < 1e-12);
    // Sequential: 1e-4 of requests reach the fallback, which also retries once. claude
    // ($0.0135, gray $0.00975): 0.99 x 0.0135 + 0.01 x (0.00975 + 0.99 x 0.0135 + 0.01 x
    // 0.00975) = $0.013597125; gpt-4.1 ($0.008, gray $0.006): $0.0080598.
    let seq_claude = row(claude, "sequential")["cost_per_1k_usd"]
        .as_f64()
        .unwrap();
    let seq_41 = row(gpt41, "sequential")["cost_per_1k_usd"]
        .as_f64()
        .unwrap();
    assert!((seq_claude - (10.07475 + 0.1 * 0.013597125)).abs() < 1e-9);
    assert!((seq_41 - (10.07475 + 0.1 * 0.0080598)).abs() < 1e-9);
    assert_eq!(row(gpt41, "sequential")["attempts_max"], 4);
    // The group's traffic mix, 1:3: $10.075694413125 per 1,000, not its largest-share
    // deployment's $10.07555598.
    assert!((0.25 * seq_claude + 0.75 * seq_41 - 10.075694413125).abs() < 1e-9);
    let v = values_of(&doc, gpt41);
    let at = |prefix: &str| {
        v.iter()
            .find(|(s, _)| s.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix}: {v:?}"))
            .1
    };
    // Each class at its own count (retries_by_class), not the dominant class's for all.
    assert_eq!(
        at(
            "retries 1 for timeout failures (retry_policy.TimeoutErrorRetries; a request's first failure on a link chooses its retries there"
        ),
        15
    );
    assert_eq!(
        at("retries 4 for rate_limit failures (retry_policy.RateLimitErrorRetries;"),
        16
    );
    assert_eq!(
        at("timeout 10 s (`gpt-4o`'s litellm_params.timeout, over the router's timeout 30 s)"),
        6
    );
    assert_eq!(
        at("fallback `backup` = `gpt-4.1`, 75% of its traffic (litellm_params.weight 1:3)"),
        18
    );
    assert_eq!(at("75% of the requests for `chat`"), 18);
    // Each link its own timeout (issue 13): gpt-4.1's own 5 s, claude-sonnet-4's the router's
    // 30 s (it has none of its own), gpt-4o's own 10 s as the policy's.
    assert_eq!(
        at("fallback `backup` (`gpt-4.1`): timeout 5 s (litellm_params.timeout), on that link"),
        10
    );
    assert!(values_of(&doc, claude).contains(&(
        "fallback `backup` (`claude-sonnet-4`): the router's timeout 30 s, on that link (it has no timeout of its own)".to_string(),
        13
    )));
    // Dead time, sequential, by hand (gray failures take the link's timeout; a retry waits
    // the full-jitter backoff's mean 0.25 s first): gpt-4o 0.01 x (10 + 0.25) + 0.01^2 x 10 =
    // 0.1035 s, then 0.01^2 of requests reach the fallback: x (0.01 x (T1 + 0.25) + 0.01^2 x
    // T1), with T1 = 5 s: 0.1035053 s; 30 s: 0.10353055 s (at gpt-4o's 10 s both would be
    // 0.10351035).
    for (chain, want) in [(gpt41, 0.1035053), (claude, 0.10353055)] {
        let d = row(chain, "sequential")["dead_time_mean_s"]
            .as_f64()
            .unwrap();
        assert!((d - want).abs() < 1e-12, "{chain}: {d}");
    }
    // Fast failures (server_error): the policy sets no count for them, num_retries 2 holds.
    let doc = json(&[
        "compare",
        "--config",
        &config,
        "-s",
        &format!("{DIR}/steady.toml"),
        "--format",
        "json",
    ]);
    let r = doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["chain"] == claude && r["pattern"] == "no-fallback")
        .unwrap();
    assert_eq!(r["attempts_max"], 3);
    assert!(lists(
        &doc,
        "retries 2 for overload, server_error failures (num_retries: retry_policy sets no count for them)",
        12
    ));
    // Under another routing_strategy the group is equal shares, and the provenance says so.
    let doc = json(&[
        "compare",
        "--config",
        &format!("{DIR}/least-busy.yaml"),
        "-s",
        &format!("{DIR}/steady-gray.toml"),
        "--format",
        "json",
    ]);
    let chain = "chat (router_settings.fallbacks) -> backup [gpt-4.1, 50%]";
    assert!(values_of(&doc, chain).contains(&(
        "routing_strategy `least-busy`: groups priced as equal shares of their deployments (assumed: `least-busy` picks by live state, not weights)".to_string(),
        12
    )));
}

#[test]
fn a_bad_retry_policy_count_is_an_input_error() {
    let dir = std::env::temp_dir().join(format!("fallcost-rp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.yaml");
    let text = std::fs::read_to_string(format!("{DIR}/retry-policy.yaml"))
        .unwrap()
        .replace("TimeoutErrorRetries: 1", "TimeoutErrorRetries: -1");
    std::fs::write(&path, text).unwrap();
    let err = fails(&["compare", "--config", path.to_str().unwrap()]);
    assert!(
        err.contains(":15:26: router_settings.retry_policy.TimeoutErrorRetries: expected a whole number of retries, 0 to 100; got -1"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A Portkey config (tests/fixtures/compare/portkey.json): `retry.attempts 3` with Portkey's
/// default `on_status_codes` [429, 500, 502, 503, 504], a fallback strategy that fails over on
/// [429, 503] only, a `cb_config`, a fallback target with its own retry and timeout, and
/// `override_params` besides the model. gpt-4o's `override_params.max_tokens` 300 caps the
/// 500 output tokens it bills: $0.005 + 300 x $10/MTok = $0.008 per request (not $0.01), a gray
/// failure (input + half the capped output) $0.0065.
#[test]
fn portkey_retries_only_its_status_codes_fails_over_on_its_list_and_prices_cb_config() {
    let config = format!("{DIR}/portkey.json");
    let run = |scenario: &str| {
        json(&[
            "compare",
            "--config",
            &config,
            "-s",
            &format!("{DIR}/{scenario}"),
            "--format",
            "json",
        ])
    };
    let row = |doc: &Value, pattern: &str| -> Value {
        doc["steady"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["chain"] == "config (fallback)" && r["pattern"] == pattern)
            .unwrap()
            .clone()
    };
    let has = |doc: &Value, value: &str, line: u64| {
        assert!(
            lists(doc, value, line),
            "no {value:?} at line {line}: {doc:#}"
        );
    };
    // Fast failures (500s) are retried: 3 retries, 4 attempts, 0.01^4 of requests fail.
    let fast = run("steady.toml");
    let r = row(&fast, "no-fallback");
    assert_eq!(r["attempts_max"], 4);
    assert!((r["cost_per_1k_usd"].as_f64().unwrap() - 8.0 * (1.0 - 1e-8)).abs() < 1e-9);
    assert!((r["baseline_per_1k_usd"].as_f64().unwrap() - 8.0).abs() < 1e-9);
    assert!((r["failed_per_1k"].as_f64().unwrap() - 1e-5).abs() < 1e-15);
    // server_error is in [429, 503]: a sequential request fails over, 4 + 4 attempts.
    assert_eq!(row(&fast, "sequential")["attempts_max"], 8);
    // Per class (issue 13): the classes whose statuses the list has get the attempts.
    has(
        &fast,
        "retries 3 for rate_limit ([429]), server_error ([500, 502, 503, 504]) failures, 0 for overload ([529]), timeout ([408]) (retry.attempts; Portkey's default on_status_codes [429, 500, 502, 503, 504]: Portkey retries a listed status only)",
        2,
    );
    has(&fast, "timeout 20 s (request_timeout)", 3);
    has(
        &fast,
        "fail over on rate_limit, server_error (strategy.on_status_codes [429, 503]); fallcost's server_error is every 5xx, Portkey fails over on the listed ones only",
        4,
    );
    let breaker = fast["config"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["value"].as_str().unwrap().starts_with("breaker: "))
        .unwrap();
    assert_eq!(breaker["line"], 5);
    assert!(breaker["value"].as_str().unwrap().starts_with(
        "breaker: 4 failures (cb_config.failure_threshold), cooldown 30 s (cb_config.cooldown_interval 10000 ms, raised to Portkey's minimum of 30 s); Portkey opens one target of this strategy"
    ));
    assert!(breaker["value"].as_str().unwrap().ends_with(
        "failure_status_codes [500, 503] not priced: fallcost's breaker counts every failed attempt"
    ));
    has(
        &fast,
        "fallback targets[1]'s retry (retry.attempts 1 on [429]) not priced: a fallcost chain retries every link alike, as its primary",
        8,
    );
    has(
        &fast,
        "fallback `anthropic/claude-sonnet-4 (config.targets[1])` (`claude-sonnet-4`): timeout 5 s (targets[1]'s request_timeout), on that link",
        9,
    );
    has(
        &fast,
        "primary `openai/gpt-4o (config.targets[0])` (`gpt-4o`): at most 300 output tokens billed (targets[0] override_params.max_tokens)",
        7,
    );
    // Gray failures end in Portkey's 408: not retried (408 is not in the default list) and not
    // failed over ([429, 503]): 0.99 x $0.008 + 0.01 x $0.0065 = $0.007985 per request, 1% fail.
    let gray = run("steady-gray.toml");
    for pattern in ["no-fallback", "sequential"] {
        let r = row(&gray, pattern);
        assert_eq!(r["attempts_max"], 1, "{pattern}");
        assert!((r["cost_per_1k_usd"].as_f64().unwrap() - 7.985).abs() < 1e-9);
        assert!((r["failed_per_1k"].as_f64().unwrap() - 10.0).abs() < 1e-9);
        // a gray failure hangs for the primary's 20 s
        assert!((r["dead_time_mean_s"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    }
    // Mixed failures (tests/fixtures/compare/steady-mixed.toml: f = 1%, half timeout, half
    // 5xx), priced per class: a request whose first failure is a 5xx (0.005) gets 3 retries,
    // one whose first is a timeout (0.005) none. By hand (F = 0.01), no-fallback:
    // - attempts 1 + 0.005 x (1 - F^3) / (1 - F) = 1.0050505;
    // - failed 0.005 + 0.005 x F^3 = 0.005000005 (5.000005 per 1,000);
    // - cost 0.99 x 0.008 + 0.005 x 0.0065 + 0.005 x (0.99 x 0.008 + 0.005 x 0.0065)
    //   x (1 + F + F^2) = $0.00799266410125 per request.
    // The old dominant class (a tie: server_error) retried timeouts too, failing 5e-9.
    let mixed = run("steady-mixed.toml");
    let r = row(&mixed, "no-fallback");
    assert_eq!(r["attempts_max"], 4);
    assert!((r["attempts_per_request"].as_f64().unwrap() - 1.0050505).abs() < 1e-12);
    assert!((r["failed_per_1k"].as_f64().unwrap() - 5.000005).abs() < 1e-9);
    assert!((r["cost_per_1k_usd"].as_f64().unwrap() - 7.99266410125).abs() < 1e-9);
}

/// `sweep` reads fallcost.toml's `[compare]` too (config and scenario when the command line
/// names neither), and says what is missing as compare does.
#[test]
fn sweep_reads_project_settings() {
    let doc = json(&[
        "sweep",
        "--config-file",
        "tests/fixtures/check/settings/fallcost.toml",
        "--param",
        "steady.failure_rate=0:0.01:0.01",
        "--format",
        "json",
    ]);
    // 2 points x (2 chains (proxy.yaml's chat split 3:1) + their blend) x 4 patterns.
    assert_eq!(doc["rows"].as_array().unwrap().len(), 24);
    assert_eq!(
        doc["config"][0]["file"],
        "tests/fixtures/compare/proxy.yaml"
    );
    assert_eq!(doc["config"][0]["line"], 5);
    let err = fails(&[
        "sweep",
        "--config-file",
        "tests/fixtures/compare/steady.toml",
        "--param",
        "steady.failure_rate=0:0.01:0.01",
    ]);
    assert!(
        err.starts_with("error: tests/fixtures/compare/steady.toml:"),
        "{err}"
    );
    let err = fails(&["sweep", "--param", "steady.failure_rate=0:0.01:0.01"]);
    assert!(
        err.starts_with("error: the following required arguments were not provided: --scenario <PATH> or --config <FILE>"),
        "{err}"
    );
    let err = fails(&[
        "sweep",
        "-s",
        "scenarios/sept3.toml",
        "--profile",
        "100/10",
        "--param",
        "steady.failure_rate=0:0.01:0.01",
    ]);
    assert!(
        err.contains("--profile prices a gateway config: it needs --config"),
        "{err}"
    );
}

/// A config's real models with no `pricing` anywhere (no scenario at all) are priced from the
/// bundled LiteLLM snapshot, as `check` prices them: gpt-4o at 2,000 in / 500 out is
/// 2,000 × $2.50 + 500 × $10 per MTok = $10.00 per 1,000 requests, claude-sonnet-4-5
/// 2,000 × $3 + 500 × $15 = $13.50.
#[test]
fn a_config_without_pricing_gets_the_broad_table() {
    let dir = std::env::temp_dir().join(format!("fallcost-broad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.yaml"),
        "model_list:\n  - model_name: chat\n    litellm_params: {model: openai/gpt-4o}\n  - model_name: backup\n    litellm_params: {model: anthropic/claude-sonnet-4-5}\nrouter_settings:\n  fallbacks: [{\"chat\": [\"backup\"]}]\n",
    )
    .unwrap();
    let out = common::fallcost_in(&dir, &["compare", "--config", "config.yaml", "-f", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["pricing"], "litellm-1.110.2");
    let row = doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pattern"] == "no-fallback")
        .unwrap();
    assert!(
        (row["cost_per_1k_usd"].as_f64().unwrap() - 10.0).abs() < 1e-9,
        "{row}"
    );
    let take_first = doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pattern"] == "hedged-no-cancel")
        .unwrap();
    assert!((take_first["cost_per_1k_usd"].as_f64().unwrap() - 23.5).abs() < 1e-9);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every model of a config with no price is reported, in one error, in line order: the route
/// `chat-b` (read first) starts at `anthropic/claude-9-opus` on line 12, but the fallback
/// `backup`'s `openai/gpt-9000-preview` on line 6 comes first; `backup` is reached by two routes
/// and named once.
#[test]
fn every_unknown_model_of_a_config_in_one_error_in_line_order() {
    let config = format!("{DIR}/errors/unknown-models.yaml");
    let err = fails(&[
        "compare",
        "--config",
        &config,
        "-s",
        &format!("{DIR}/steady.toml"),
    ]);
    assert!(
        err.starts_with(&format!(
            "error: {config}:6:14: unknown model `openai/gpt-9000-preview`: price table"
        )),
        "{err}"
    );
    assert!(
        err.trim_end().ends_with(&format!(
            "; 2 models in the config have no price, in line order: `openai/gpt-9000-preview` ({config}:6:14), `anthropic/claude-9-opus` ({config}:12:14)"
        )),
        "{err}"
    );
    // One unknown model: the error as before, without the list.
    let err = fails(&[
        "compare",
        "--config",
        "tests/fixtures/check/errors/unknown-model/config.yaml",
    ]);
    assert!(!err.contains("in line order"), "{err}");
}

/// LiteLLM's `model_group_retry_policy` (tests/fixtures/compare/retry/group-retry-policy.yaml):
/// the group `chat` retries by its own policy instead of `retry_policy`, as
/// `get_num_retries_from_retry_policy` (litellm/router_utils/get_retry_from_policy.py) replaces
/// the router's policy with the group's; a class the group's policy has no count for gets
/// `num_retries`, not `retry_policy`'s count.
#[test]
fn model_group_retry_policy_replaces_retry_policy_for_its_group() {
    let config = format!("{DIR}/retry/group-retry-policy.yaml");
    let chain = "chat (router_settings.fallbacks)";
    let no_fallback = |doc: &Value| -> Value {
        doc["steady"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["chain"] == chain && r["pattern"] == "no-fallback")
            .unwrap()
            .clone()
    };
    // Gray failures (timeouts): model_group_retry_policy.chat.TimeoutErrorRetries 1, not
    // retry_policy's 3: gpt-4o $0.01 a request, a gray failure $0.0075, 1% failures:
    // 0.99 x 0.01 + 0.01 x (0.0075 + 0.99 x 0.01 + 0.01 x 0.0075) = $0.01007475, and 0.01^2 of
    // requests fail (0.1 per 1,000; 3 retries would leave 0.01^4).
    let doc = json(&[
        "compare",
        "--config",
        &config,
        "-s",
        &format!("{DIR}/steady-gray.toml"),
        "--format",
        "json",
    ]);
    let r = no_fallback(&doc);
    assert_eq!(r["attempts_max"], 2);
    assert!((r["cost_per_1k_usd"].as_f64().unwrap() - 10.07475).abs() < 1e-9);
    assert!((r["failed_per_1k"].as_f64().unwrap() - 0.1).abs() < 1e-12);
    let v = values_of(&doc, chain);
    for (what, line) in [
        (
            "retries 1 for timeout failures (model_group_retry_policy.chat.TimeoutErrorRetries",
            17,
        ),
        (
            "retries 4 for rate_limit failures (model_group_retry_policy.chat.RateLimitErrorRetries",
            18,
        ),
    ] {
        assert!(v.contains(&(format!("{what}{RULE}"), line)), "{v:?}");
    }
    assert!(v.contains(&(
        "`chat`'s retries from model_group_retry_policy.chat (LiteLLM's policy for the group, instead of retry_policy, not merged with it)".to_string(),
        16
    )));
    assert!(v.contains(&(
        "fallback `backup`'s model_group_retry_policy.backup not priced: a fallcost chain retries every link alike, as its primary".to_string(),
        19
    )));
    // Fast failures (server_error): the group's policy has no count for them, so num_retries 2
    // (3 attempts), not retry_policy's InternalServerErrorRetries 5 (6 attempts).
    let doc = json(&[
        "compare",
        "--config",
        &config,
        "-s",
        &format!("{DIR}/steady.toml"),
        "--format",
        "json",
    ]);
    assert_eq!(no_fallback(&doc)["attempts_max"], 3);
    assert!(lists(
        &doc,
        "retries 2 for overload, server_error failures (num_retries: model_group_retry_policy.chat sets no count for them)",
        11
    ));
    // A group whose policy is not a mapping is an input error at its line.
    let dir = std::env::temp_dir().join(format!("fallcost-group-retry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("config.yaml");
    std::fs::write(
        &bad,
        "model_list:\n  - model_name: chat\n    litellm_params: {model: openai/gpt-4o}\n  - model_name: backup\n    litellm_params: {model: openai/gpt-4.1}\nrouter_settings:\n  model_group_retry_policy:\n    chat: {TimeoutErrorRetries: 1.5}\n  fallbacks: [{chat: [backup]}]\n",
    )
    .unwrap();
    let err = fails(&["compare", "--config", bad.to_str().unwrap()]);
    assert!(
        err.contains(":8:33: router_settings.model_group_retry_policy.chat.TimeoutErrorRetries: expected a whole number of retries, 0 to 100; got 1.5"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A route split into one chain per deployment combination carries each chain's share as
/// `traffic_share`, so the report has the blended row of the route's traffic mix; with two
/// routes the configs do not say how the traffic splits between them: no blend, and the listing
/// says why.
#[test]
fn a_split_route_carries_traffic_shares_and_the_blended_row() {
    const BLENDED: &str = "all chains (by traffic_share)";
    let row = |doc: &Value, chain: &str, pattern: &str| -> Option<Value> {
        doc["steady"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["chain"] == chain && r["pattern"] == pattern)
            .cloned()
    };
    // proxy.yaml: `chat` is gpt-4o and gpt-4o-mini at 3:1, fast failures of 1%, 2 retries, one
    // fallback (claude-sonnet-4, $0.0135) under max_fallbacks 1; failed attempts bill nothing.
    // gpt-4o: 0.01 x (1 - 1e-6) + 1e-6 x 0.0135 = $0.0100000035 a request; gpt-4o-mini:
    // 0.0006 x (1 - 1e-6) + 1e-6 x 0.0135 = $0.0006000129. Blended 3:1: $7.65000585 per 1,000.
    let doc = json(&[
        "compare",
        "--config",
        &format!("{DIR}/proxy.yaml"),
        "-s",
        &format!("{DIR}/steady.toml"),
        "--format",
        "json",
    ]);
    let cost = |chain: &str| {
        row(&doc, chain, "sequential").unwrap()["cost_per_1k_usd"]
            .as_f64()
            .unwrap()
    };
    assert!((cost("chat (router_settings.fallbacks) [gpt-4o, 75%]") - 10.0000035).abs() < 1e-9);
    assert!((cost("chat (router_settings.fallbacks) [gpt-4o-mini, 25%]") - 0.6000129).abs() < 1e-9);
    assert!((cost(BLENDED) - 7.65000585).abs() < 1e-9);
    // retry-policy.yaml: one primary, a fallback group of two (claude-sonnet-4 1 : gpt-4.1 3),
    // gray failures, 1 retry: the blend is the group's mix, $10.075694413125 per 1,000
    // sequential (retry_policy_deployment_timeout_and_a_fallback_group_as_its_traffic_mix
    // computes each chain), and the primary's $10.07475 without fallback.
    let doc = json(&[
        "compare",
        "--config",
        &format!("{DIR}/retry-policy.yaml"),
        "-s",
        &format!("{DIR}/steady-gray.toml"),
        "--format",
        "json",
    ]);
    let blended = |pattern: &str| {
        row(&doc, BLENDED, pattern).unwrap()["cost_per_1k_usd"]
            .as_f64()
            .unwrap()
    };
    assert!((blended("sequential") - 10.075694413125).abs() < 1e-9);
    assert!((blended("no-fallback") - 10.07475).abs() < 1e-9);
    // Two routes: no traffic_share, no blended row; the split route's chains say why.
    let doc = json(&[
        "compare",
        "--config",
        &format!("{DIR}/shares/two-routes.yaml"),
        "-s",
        &format!("{DIR}/steady.toml"),
        "--format",
        "json",
    ]);
    assert!(row(&doc, BLENDED, "sequential").is_none());
    let why = "no traffic_share, no blended row: the scenario has 2 routes and the configs do not say how the traffic splits between them";
    // At each chain's first line (its primary deployment's).
    for (chain, line) in [
        ("chat (router_settings.fallbacks) [gpt-4o, 75%]", 6),
        ("chat (router_settings.fallbacks) [gpt-4o-mini, 25%]", 8),
    ] {
        assert!(
            values_of(&doc, chain).contains(&(why.to_string(), line)),
            "{chain}"
        );
    }
    assert!(
        !values_of(&doc, "draft (router_settings.fallbacks)")
            .iter()
            .any(|(v, _)| v == why)
    );
}

/// LiteLLM's `retry_policy` with mixed error classes (tests/fixtures/compare/retry-policy.yaml:
/// TimeoutErrorRetries 1, num_retries 2 for 5xx; tests/fixtures/compare/steady-mixed.toml:
/// 1% failures, half timeouts, half 5xx) is priced exactly, each class at its count, the first
/// failure's class choosing the budget (get_num_retries_from_retry_policy,
/// litellm/router_utils/get_retry_from_policy.py). Per attempt F = 0.01, p_timeout = p_5xx =
/// 0.005. gpt-4o: $0.01 a request, a hung attempt $0.0075, a 5xx $0. No fallback:
/// attempts 1 + 0.005 x 1 + 0.005 x (1 + 0.01) = 1.01005; failed 0.005 x 0.01 + 0.005 x
/// 0.01^2 = 5.05e-5 (0.0505 per 1,000); cost 1.01005 x (0.99 x 0.01 + 0.005 x 0.0075) =
/// $0.010037371875. The dominant class (a tie, server_error first) would price 2 retries for
/// both: 1.0101 attempts and 0.001 failed per 1,000.
#[test]
fn a_mixed_retry_policy_is_priced_per_class() {
    let doc = json(&[
        "compare",
        "--config",
        &format!("{DIR}/retry-policy.yaml"),
        "-s",
        &format!("{DIR}/steady-mixed.toml"),
        "--format",
        "json",
    ]);
    let claude = "chat (router_settings.fallbacks) -> backup [claude-sonnet-4, 25%]";
    let r = doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["chain"] == claude && r["pattern"] == "no-fallback")
        .unwrap();
    assert_eq!(r["attempts_max"], 3);
    let cost = r["cost_per_1k_usd"].as_f64().unwrap();
    assert!((cost - 10.037371875).abs() < 1e-9, "{cost}");
    let failed = r["failed_per_1k"].as_f64().unwrap();
    assert!((failed - 0.0505).abs() < 1e-12, "{failed}");
    assert!(lists(
        &doc,
        &format!("retries 1 for timeout failures (retry_policy.TimeoutErrorRetries{RULE}"),
        15
    ));
    assert!(lists(
        &doc,
        "retries 2 for overload, server_error failures (num_retries: retry_policy sets no count for them)",
        12
    ));
}

/// Issue 13 in a scenario file: `link_timeouts_s` and `max_output_tokens` per chain, keyed by
/// model. GPT-5.6 Sol (p50 2 s, p99 12 s, f = 10%) at its own 12 s, then Claude Sonnet 5 (p50
/// 4 s, p99 24 s, f = 20%) at its own 24 s, each tripping 1% (its p99), every failure gray;
/// Sonnet's output capped at 300 of the 500 tokens. Per 1,000 on 2,000 in: Sol C0 = 25, W0 =
/// 17.5; Sonnet C1 = (4,000 + 300 x 10) / 1,000 = 7, W1 = 4 + 1.5 = 5.5.
/// q0 = 0.109, q1 = 0.208: sequential 0.891 x 25 + 0.109 x 17.5 + 0.109 x (0.792 x 7 + 0.208 x
/// 5.5) = 24.911492; dead time 0.109 x 12 + 0.109 x 0.208 x 24 = 1.852128 s. In a gray outage
/// of Sol's provider every request hangs Sol's 12 s, then Sonnet fails 20.8% of the time after
/// its 24 s: 12 + 0.208 x 24 = 16.992 s sequential, 12 s no-fallback.
#[test]
fn a_scenario_gives_links_their_own_timeouts_and_output_caps() {
    let dir = std::env::temp_dir().join(format!("fallcost-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("links.toml");
    let text = r#"pricing = "2026-07"

[request]
input_tokens = 2000
output_tokens = 500

[[chain]]
name = "own"
models = ["openai/gpt-5.6-sol", "anthropic/claude-sonnet-5"]
link_timeouts_s = { "openai/gpt-5.6-sol" = 12, "anthropic/claude-sonnet-5" = 24 }
max_output_tokens = { "anthropic/claude-sonnet-5" = 300 }

[steady]
failure_rates = [0.1, 0.2]

[latency."openai/gpt-5.6-sol"]
p50_s = 2
p99_s = 12

[latency."anthropic/claude-sonnet-5"]
p50_s = 4
p99_s = 24

[incident]
duration = "1h"
requests_per_second = 1
session_length = 1
failure = "gray"
"#;
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let doc = json(&["compare", "-s", p, "--format", "json"]);
    let row = |section: &str, pattern: &str| -> Value {
        doc[section]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["pattern"] == pattern)
            .unwrap()
            .clone()
    };
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    let seq = row("steady", "sequential");
    assert!((f(&seq, "cost_per_1k_usd") - 24.911492).abs() < 1e-9);
    assert!((f(&seq, "dead_time_mean_s") - 1.852128).abs() < 1e-9);
    assert!((f(&seq, "failed_per_1k") - 22.672).abs() < 1e-9);
    let inc = |pattern: &str| f(&row("incident", pattern), "dead_time_mean_s");
    assert!(
        (inc("sequential") - 16.992).abs() < 1e-9,
        "{}",
        inc("sequential")
    );
    assert!((inc("no-fallback") - 12.0).abs() < 1e-9);
    // The Monte Carlo agrees on the steady cost (its 99.9% interval holds the analytic value).
    let mc = json(&[
        "compare", "-s", p, "--mc", "200000", "--seed", "3", "--format", "json",
    ]);
    let m = mc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pattern"] == "sequential")
        .unwrap()["mc"]
        .clone();
    let ci = m["cost_per_1k_usd_ci95"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    let half = (hi - lo) / 2.0 * 3.29 / 1.96;
    let mid = (hi + lo) / 2.0;
    assert!((mid - 24.911492).abs() <= half, "{lo}..{hi}");

    // Strict: a key that is no model of the chain, a bad timeout, a zero cap.
    for (from, to, want) in [
        (
            r#""anthropic/claude-sonnet-5" = 24 }"#,
            r#""anthropic/claude-sonet-5" = 24 }"#,
            "links.toml:10:77: chain[0].link_timeouts_s.\"anthropic/claude-sonet-5\": `anthropic/claude-sonet-5` is not one of this chain's models (`openai/gpt-5.6-sol`, `anthropic/claude-sonnet-5`); key link_timeouts_s by a model as written in `models`",
        ),
        (
            r#""openai/gpt-5.6-sol" = 12,"#,
            r#""openai/gpt-5.6-sol" = -1,"#,
            "chain[0].link_timeouts_s.\"openai/gpt-5.6-sol\": must be a number of seconds > 0 and at most 1e6; got -1",
        ),
        (
            r#""anthropic/claude-sonnet-5" = 300 }"#,
            r#""anthropic/claude-sonnet-5" = 0 }"#,
            "chain[0].max_output_tokens.\"anthropic/claude-sonnet-5\": must be a number of output tokens >= 1; got 0",
        ),
        (
            "link_timeouts_s =",
            "link_timeout_s =",
            "links.toml:10:1: chain[0].link_timeout_s: unknown field (did you mean `link_timeouts_s`?)",
        ),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text);
        std::fs::write(&path, bad).unwrap();
        let err = fails(&["compare", "-s", p]);
        assert!(err.contains(want), "{want}\n{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// LiteLLM's per-deployment `litellm_params.max_tokens` / `max_completion_tokens` (the smaller
/// when both) and `timeout`, priced per link (issue 13). gpt-4o capped at 200 of the 500
/// output tokens: 2,000 x $2.50 + 200 x $10 = $7.00 per 1,000; claude-sonnet-4 at 400 (its
/// max_completion_tokens, under its max_tokens 450): 2,000 x $3 + 400 x $15 = $12.00. With 1%
/// fast failures (billed 0) on each: sequential 0.99 x 7 + 0.01 x 0.99 x 12 = $7.0488 per
/// 1,000, 0.01^2 failed.
#[test]
fn litellm_max_tokens_cap_each_link_and_fallback_timeouts_are_priced() {
    let dir = std::env::temp_dir().join(format!("fallcost-caps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.yaml");
    let text = "model_list:
  - model_name: chat
    litellm_params: {model: openai/gpt-4o, max_tokens: 200}
  - model_name: backup
    litellm_params: {model: anthropic/claude-sonnet-4, max_completion_tokens: 400, max_tokens: 450, timeout: 12}
router_settings:
  timeout: 30
  fallbacks:
    - chat: [backup]
";
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let scenario = std::fs::canonicalize(format!("{DIR}/steady.toml")).unwrap();
    let doc = json(&[
        "compare",
        "--config",
        p,
        "-s",
        scenario.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let rows = doc["steady"].as_array().unwrap();
    let row = |pattern: &str| rows.iter().find(|r| r["pattern"] == pattern).unwrap();
    let seq = row("sequential");
    assert!((seq["cost_per_1k_usd"].as_f64().unwrap() - 7.0488).abs() < 1e-9);
    assert!((seq["baseline_per_1k_usd"].as_f64().unwrap() - 7.0).abs() < 1e-9);
    assert!((seq["failed_per_1k"].as_f64().unwrap() - 0.1).abs() < 1e-12);
    let rule = " (a deployment's litellm_params are its calls' defaults: a request's own max_tokens wins, as Router._completion passes the request's kwargs last)";
    for (value, line) in [
        (
            format!(
                "primary `chat` (`gpt-4o`): at most 200 output tokens billed (litellm_params.max_tokens){rule}"
            ),
            3,
        ),
        (
            format!(
                "fallback `backup` (`claude-sonnet-4`): at most 400 output tokens billed (litellm_params.max_completion_tokens){rule}"
            ),
            5,
        ),
        (
            "fallback `backup` (`claude-sonnet-4`): timeout 12 s (litellm_params.timeout), on that link".to_string(),
            5,
        ),
    ] {
        assert!(lists(&doc, &value, line), "no {value:?} at {line}: {doc:#}");
    }
    // A cap that is not a whole number of tokens is an input error at its place.
    std::fs::write(&path, text.replace("max_tokens: 200", "max_tokens: 0.5")).unwrap();
    let err = fails(&["compare", "--config", p]);
    assert!(
        err.contains(":3:56: model_list[0].litellm_params.max_tokens: expected a whole number of output tokens, 1 to 1e9; got 0.5"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A chain that lists one model twice with different timeouts (the same model behind two
/// deployments) cannot key them by model: listed, priced at the primary's, never silently
/// merged. Here gpt-4o (own 10 s) falls back to a second gpt-4o deployment (own 60 s).
#[test]
fn one_model_twice_with_two_timeouts_is_listed_not_merged() {
    let dir = std::env::temp_dir().join(format!("fallcost-twice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.yaml");
    std::fs::write(
        &path,
        "model_list:
  - model_name: chat
    litellm_params: {model: openai/gpt-4o, timeout: 10}
  - model_name: spare
    litellm_params: {model: openai/gpt-4o, api_base: https://spare.example.com/v1, timeout: 60}
router_settings:
  fallbacks:
    - chat: [spare]
",
    )
    .unwrap();
    let scenario = std::fs::canonicalize(format!("{DIR}/steady.toml")).unwrap();
    let doc = json(&[
        "compare",
        "--config",
        path.to_str().unwrap(),
        "-s",
        scenario.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let listed = ["config", "config_shared"].iter().any(|k| {
        doc[*k].as_array().unwrap().iter().any(|v| {
            v["value"].as_str().unwrap().starts_with(
                "`gpt-4o`'s timeouts not priced per link: the chain lists it more than once with different timeouts",
            )
        })
    });
    assert!(listed, "{doc:#}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The USD per 1,000 requests of `pattern` on the first chain of a `compare --format json`
/// document.
fn per_1k(doc: &Value, pattern: &str) -> f64 {
    doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pattern"] == pattern)
        .unwrap_or_else(|| panic!("no {pattern} row: {doc}"))["cost_per_1k_usd"]
        .as_f64()
        .unwrap()
}

/// A model priced by the config itself (model_info input/output_cost_per_token) is priced by
/// compare as check prices it: $3 / $12 per MTok at 2,000 in / 500 out is $6.00 + $6.00 =
/// $12.00 per 1,000 requests; hedged-no-cancel bills both links on every request, $0.60 +
/// $12.00 = $12.60. Before, compare refused it ("priced by the config itself").
#[test]
fn compare_prices_a_models_own_prices_as_check_does() {
    let config = format!("{DIR}/own-prices/config.yaml");
    let out = fallcost(&["check", &config]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "fallback `mine` costs $12.00 per 1,000 requests, 20.00x its primary `cheap` at $0.60"
        ),
        "{text}"
    );
    let doc = json(&["compare", "--config", &config, "--format", "json"]);
    assert!((per_1k(&doc, "no-fallback") - 0.6).abs() < 1e-9, "{doc}");
    assert!(
        (per_1k(&doc, "hedged-no-cancel") - 12.6).abs() < 1e-9,
        "{doc}"
    );
    assert!(
        lists(
            &doc,
            "fallback `mine` = `openai/my-finetune` (the config's own prices: $3 input, $12 output per MTok)",
            15
        ),
        "{doc}"
    );
    // sweep --config reads them through the same path: at 10% fast failures hedged-no-cancel
    // still bills both links, 0.9 x 12.60 + 0.1 x (the failed primary's nothing + 12.00).
    let out = fallcost(&[
        "sweep",
        "--config",
        &config,
        "--param",
        "steady.failure_rate=0:0.1:0.1",
        "--format",
        "csv",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(
        csv.lines()
            .any(|l| l.starts_with("0,cheap (router_settings.fallbacks),hedged-no-cancel,12.6,")),
        "{csv}"
    );
}

/// `compare --config` and `sweep --config` take `--pricing` as check does (the same help
/// text): a table that has the fallback (`acme/big`, $5 / $20 per MTok: $20.00 per 1,000
/// requests) prices it; without it the model is unknown (exit 2); without --config it is an
/// error, a scenario naming its own `pricing`.
#[test]
fn compare_and_sweep_take_pricing_as_check_does() {
    let config = format!("{DIR}/own-prices/table.yaml");
    let table = format!("{DIR}/own-prices/table.toml");
    let err = fails(&["compare", "--config", &config]);
    assert!(err.contains("unknown model `acme/big`"), "{err}");
    let doc = json(&[
        "compare",
        "--config",
        &config,
        "--pricing",
        &table,
        "--format",
        "json",
    ]);
    assert!(
        (per_1k(&doc, "hedged-no-cancel") - 20.6).abs() < 1e-9,
        "{doc}"
    );
    assert_eq!(doc["pricing"], table.as_str(), "{doc}");
    let out = fallcost(&[
        "sweep",
        "--config",
        &config,
        "-p",
        &table,
        "--param",
        "request.output_tokens=500:1000:500",
        "--format",
        "csv",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    // 1,000 output tokens: gpt-4o-mini $0.90, acme/big $30.00 per 1,000 requests.
    assert!(
        csv.lines().any(|l| l.starts_with("1000,cheap (router_settings.fallbacks),hedged-no-cancel,30.9,")),
        "{csv}"
    );
    let err = fails(&[
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--pricing",
        "2026-07",
    ]);
    assert!(
        err.contains("--pricing prices a gateway config: it needs --config"),
        "{err}"
    );
    // The same flag, the same help.
    let help = |cmd: &str| {
        let out = fallcost(&[cmd, "--help"]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let at = text
            .find("  -p, --pricing")
            .unwrap_or_else(|| panic!("{cmd}: {text}"));
        let rest = &text[at..];
        let end = rest.find("\n\n").unwrap_or(rest.len());
        rest[..end].to_string()
    };
    assert_eq!(help("compare"), help("check"));
    assert_eq!(help("sweep"), help("check"));
}

/// A dangling fallback (a target no model_name group serves) is priced as LiteLLM's router
/// treats it: no deployment, no call billed, on to the next fallback. `cheap: [ghost, dear]`
/// is the chain gpt-4o-mini → gpt-4o (hedged-no-cancel $0.60 + $10.00 = $10.60), `dear:
/// [nowhere]` is gpt-4o alone ($10.00); each dangling target is one warning naming its file,
/// line and group, and the one-link chain says it is one.
#[test]
fn a_dangling_fallback_is_skipped_as_the_router_skips_it_and_warned_about() {
    let config = format!("{DIR}/dangling/config.yaml");
    let out = fallcost(&["compare", "--config", &config, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let models: Vec<&Value> = doc["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["models"])
        .collect();
    assert_eq!(
        models,
        [
            &serde_json::json!(["gpt-4o-mini", "gpt-4o"]),
            &serde_json::json!(["gpt-4o"])
        ]
    );
    let cost = |chain: &str, pattern: &str| {
        doc["steady"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["chain"] == chain && r["pattern"] == pattern)
            .unwrap()["cost_per_1k_usd"]
            .as_f64()
            .unwrap()
    };
    assert!((cost("cheap (router_settings.fallbacks)", "hedged-no-cancel") - 10.6).abs() < 1e-9);
    assert!((cost("dear (router_settings.fallbacks)", "no-fallback") - 10.0).abs() < 1e-9);
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("fallcost: warning:"))
        .collect();
    assert_eq!(
        warnings,
        [
            "fallcost: warning: tests/fixtures/compare/dangling/config.yaml:15: fallback `ghost` of `cheap` is not a model_name group in model_list: LiteLLM never fires it (its router finds no deployment for it, BadRequestError, no call billed, and goes on to the next fallback); priced without it",
            "fallcost: warning: tests/fixtures/compare/dangling/config.yaml:16: fallback `nowhere` of `dear` is not a model_name group in model_list: LiteLLM never fires it (its router finds no deployment for it, BadRequestError, no call billed, and goes on to the next fallback); `dear` has no other fallback: priced as its primary alone",
        ],
        "{err}"
    );
    // sweep says it too
    let out = fallcost(&[
        "sweep",
        "--config",
        &config,
        "--param",
        "steady.failure_rate=0:0.01:0.01",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("fallcost: warning:").count(), 2, "{err}");
}

/// A folder given to `compare --config` lists every file it skipped, with why (as `check
/// --verbose` does), and prices the configs it holds (own-prices: hedged-no-cancel $12.60).
#[test]
fn a_config_folder_lists_the_files_it_skipped_and_why() {
    let out = fallcost(&[
        "compare",
        "--config",
        &format!("{DIR}/dangling/folder"),
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        (per_1k(&doc, "hedged-no-cancel") - 12.6).abs() < 1e-9,
        "{doc}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let skipped: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("--config: skipped"))
        .collect();
    assert_eq!(
        skipped,
        [
            "fallcost: note: --config: skipped tests/fixtures/compare/dangling/folder/notes.txt: not .yaml, .yml or .json",
            "fallcost: note: --config: skipped tests/fixtures/compare/dangling/folder/other.yaml: YAML, but not a gateway config fallcost reads (no model_list, no fallbacks under router_settings or litellm_settings)",
            "fallcost: note: --config: skipped tests/fixtures/compare/dangling/folder/package.json: JSON, but not a Portkey config or an OpenRouter request",
        ],
        "{err}"
    );
}

/// `--env VAR=value` gives the proxy's environment to every command that reads a config: the
/// model ids tests/fixtures/check/litellm/env-models.yaml reads from it (`os.environ/PRIMARY_MODEL`,
/// `${BACKUP_MODEL}`) are priced as the values given, GPT-5.6 Sol at $25.00 per 1,000 requests
/// (2,000 in / 500 out, 2026-07). Without them, `compare` is exit 2 naming the variable and
/// the flag; with a scenario and no config, `--env` is refused.
#[test]
fn env_flag_gives_every_command_the_proxy_environment() {
    let f = "tests/fixtures/check/litellm/env-models.yaml";
    let env = [
        "--env",
        "PRIMARY_MODEL=openai/gpt-5.6-sol",
        "--env",
        "BACKUP_MODEL=anthropic/claude-sonnet-5",
    ];
    let with = |args: &[&str]| -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["--pricing", "2026-07"].map(String::from));
        all.extend(env.map(String::from));
        all.extend(["-f", "json"].map(String::from));
        all
    };
    let run = |args: Vec<String>| json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let doc = run(with(&["compare", "--config", f]));
    let chains: Vec<&Value> = doc["chains"].as_array().unwrap().iter().collect();
    assert_eq!(chains.len(), 3, "{doc:#}");
    assert_eq!(
        chains[0]["models"],
        serde_json::json!([
            "openai/gpt-5.6-sol",
            "anthropic/claude-sonnet-5",
            "anthropic/claude-haiku-4-5"
        ])
    );
    assert_eq!(doc["steady"][0]["cost_per_1k_usd"], 25.0);
    let doc = run(with(&[
        "sweep",
        "--config",
        f,
        "--param",
        "steady.failure_rate=0:0.1:0.1",
    ]));
    assert_eq!(doc["rows"][0]["baseline_per_1k_usd"], 25.0, "{doc:#}");
    let doc = run(with(&["tune", "--config", f]));
    assert_eq!(doc["chains"][0]["shipped"]["cost_per_1k_usd"], 25.0);
    assert_eq!(
        doc["chains"][0]["shipped"]["models"][0],
        "openai/gpt-5.6-sol"
    );
    let doc = run(with(&["diff", f, f]));
    assert_eq!(doc["unchanged"].as_array().unwrap().len(), 3, "{doc:#}");
    // Not given (nor set where fallcost runs): compare says which variable and how.
    let err = fails(&["compare", "--config", f, "--pricing", "2026-07"]);
    assert!(
        err.contains(
            "unknown model `os.environ/PRIMARY_MODEL`: read from the environment when the proxy starts, and it is not set here: set PRIMARY_MODEL or pass --env PRIMARY_MODEL=value"
        ),
        "{err}"
    );
    let err = fails(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--env",
        "A=b",
    ]);
    assert!(
        err.contains("--env gives a gateway proxy's environment"),
        "{err}"
    );
}
