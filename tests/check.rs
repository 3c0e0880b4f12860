//! End to end: `fallcost check` over the shipped scenarios and the hand-written fixtures in
//! `tests/fixtures/check/` (a LiteLLM config in block and in flow YAML, Portkey configs with
//! nested targets and camelCase keys, a scenario, configs that must fail with exit 2).
//!
//! Prices at the default profile (2,000 input / 500 output tokens), bundled 2026-07 table, USD per
//! 1,000 requests: Sonnet 5 9.00, GPT-6 Sol 9.00, GPT-6 Astra 45.00, Opus 5 22.50, Haiku 4.5 4.50,
//! GPT-6 Luna 0.45.

mod common;

use common::{fails, fallcost, json, ok, root};
use serde_json::Value;

const FIX: &str = "tests/fixtures/check";

/// Run `fallcost check ARGS --format json`, expecting exit `code`; the parsed document.
fn check_json(args: &[&str], code: i32) -> Value {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let out = fallcost(&all);
    assert_eq!(
        out.status.code(),
        Some(code),
        "fallcost {}\nstdout:\n{}\nstderr:\n{}",
        all.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn findings<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == kind)
        .collect()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The shipped scenarios pass except the three-down post's best-available chain (Sonnet 5 ->
/// GPT-6 Astra, 5x at the post's agent request: $34.80 against $174.00 per 1,000).
#[test]
fn shipped_scenarios_flag_only_best_available() {
    let doc = check_json(&["scenarios/"], 1);
    let errors: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{doc:#}");
    let f = errors[0];
    assert_eq!(f["kind"], "above-ratio");
    assert_eq!(f["file"], "scenarios/sept3.toml");
    assert_eq!(f["chain"], "best-available");
    assert_eq!(f["line"], 29);
    assert_eq!(f["primary"]["name"], "anthropic/claude-sonnet-5");
    assert_eq!(f["fallback"]["name"], "openai/gpt-6-astra");
    assert!((num(&f["primary"]["min_per_1k_usd"]) - 34.8).abs() < 1e-9);
    assert!((num(&f["fallback"]["max_per_1k_usd"]) - 174.0).abs() < 1e-9);
    assert!((num(&f["ratio"]) - 5.0).abs() < 1e-12);
    assert_eq!(doc["summary"]["warnings"], 0);
    let scenario_files = std::fs::read_dir(common::root().join("scenarios"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "toml")
        })
        .count();
    assert_eq!(doc["summary"]["files"], scenario_files as u64);

    // Text: file:line, both prices per 1,000 requests and the ratio.
    let out = fallcost(&["check", "scenarios/"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("scenarios/sept3.toml:29: error: chain `best-available`: fallback `openai/gpt-6-astra` costs $174.00 per 1,000 requests, 5.00x its primary `anthropic/claude-sonnet-5` at $34.80; above --max-ratio 2\n"),
        "{text}"
    );
}

/// Opus 5 -> GPT-6 Astra is exactly 2x on every price: it passes at --max-ratio 2 and fails at
/// 1.5, in a scenario (tiers.toml, the agent request), a LiteLLM config and a Portkey config.
#[test]
fn exactly_2x_passes_at_2_and_fails_at_1_5() {
    let doc = check_json(&["scenarios/tiers.toml"], 0);
    assert_eq!(doc["summary"]["errors"], 0);
    let doc = check_json(&["scenarios/tiers.toml", "--max-ratio", "1.5"], 1);
    let f = &findings(&doc, "above-ratio")[0];
    assert_eq!(f["chain"], "complex");
    assert!((num(&f["ratio"]) - 2.0).abs() < 1e-12);
    assert!((num(&f["primary"]["min_per_1k_usd"]) - 87.0).abs() < 1e-9);

    let doc = check_json(&[&format!("{FIX}/portkey/camel.json")], 0);
    assert_eq!(doc["summary"]["links"], 1);
    let doc = check_json(
        &[&format!("{FIX}/portkey/camel.json"), "--max-ratio", "1.5"],
        1,
    );
    let f = &findings(&doc, "above-ratio")[0];
    assert!((num(&f["primary"]["min_per_1k_usd"]) - 22.5).abs() < 1e-9);
    assert!((num(&f["fallback"]["max_per_1k_usd"]) - 45.0).abs() < 1e-9);

    let opus: Vec<String> = findings(
        &check_json(
            &[&format!("{FIX}/litellm/block.yaml"), "--max-ratio", "1.5"],
            1,
        ),
        "above-ratio",
    )
    .iter()
    .map(|f| f["chain"].as_str().unwrap().to_string())
    .collect();
    assert!(opus.iter().any(|c| c.starts_with("opus ")), "{opus:?}");
    let at_2 = check_json(&[&format!("{FIX}/litellm/block.yaml")], 1);
    assert!(
        !findings(&at_2, "above-ratio")
            .iter()
            .any(|f| f["chain"].as_str().unwrap().starts_with("opus ")),
        "exactly 2x must pass at 2"
    );
}

/// The block-YAML LiteLLM fixture: every messy case with its defined answer.
#[test]
fn litellm_block_config_messy_cases() {
    let doc = check_json(&[&format!("{FIX}/litellm/block.yaml")], 1);
    let file = format!("{FIX}/litellm/block.yaml");
    let above = findings(&doc, "above-ratio");
    let by = |chain: &str, fallback: &str| -> &Value {
        above
            .iter()
            .find(|f| {
                f["chain"].as_str().unwrap().starts_with(chain) && f["fallback"]["name"] == fallback
            })
            .unwrap_or_else(|| panic!("no finding {chain} -> {fallback}: {doc:#}"))
    };
    // sonnet -> astra: $9.00 -> $45.00, 5x, at the line of the fallback list.
    let f = by("sonnet ", "astra");
    assert_eq!(f["file"], file.as_str());
    assert_eq!(f["line"], 44);
    assert!((num(&f["ratio"]) - 5.0).abs() < 1e-12);
    // A free local primary with a paid fallback: flagged, ratio null (no division by zero).
    let f = by("local ", "sol");
    assert_eq!(f["ratio"], Value::Null);
    assert_eq!(num(&f["primary"]["max_per_1k_usd"]), 0.0);
    assert!(f["message"].as_str().unwrap().contains("is free ($0.00)"));
    // A group of two deployments: a range, judged worst case (9.00 / 0.45 = 20x).
    let f = by("mixed ", "sonnet");
    assert!((num(&f["primary"]["min_per_1k_usd"]) - 0.45).abs() < 1e-12);
    assert!((num(&f["primary"]["max_per_1k_usd"]) - 4.5).abs() < 1e-12);
    assert!((num(&f["ratio"]) - 20.0).abs() < 1e-9);
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("$0.45–$4.50 (worst case")
    );
    // LiteLLM applies sonnet's own fallbacks after mixed -> sonnet: judged against mixed.
    let f = by("mixed ", "astra");
    assert_eq!(f["via"], serde_json::json!(["sonnet"]));
    // tuned ($18.00 from model_info, which wins over litellm_params) -> proxied-sol ($9.00): fine.
    assert!(
        !above
            .iter()
            .any(|f| f["chain"].as_str().unwrap().starts_with("tuned "))
    );
    assert_eq!(above.len(), 5, "{doc:#}");

    // A model id and a missing group as fallbacks: warnings naming them; never priced.
    let not_group = findings(&doc, "not-a-group");
    assert_eq!(not_group.len(), 2);
    assert_eq!(not_group[0]["line"], 51);
    assert!(
        not_group[0]["message"]
            .as_str()
            .unwrap()
            .contains("`openai/gpt-6-sol` of `astra` is a model id")
    );
    assert!(
        not_group[1]["message"]
            .as_str()
            .unwrap()
            .contains("`gpt-6-ultra`")
    );
    assert_eq!(not_group[1]["severity"], "warning");
    // A self-fallback: a warning. `content_policy_fallbacks: []`: a note. The fallback that is
    // only in a comment: nothing (no `sol -> opus` chain).
    let selfs = findings(&doc, "self-fallback");
    assert_eq!((selfs.len(), &selfs[0]["line"]), (1, &Value::from(56)));
    let empty = findings(&doc, "empty-fallbacks");
    assert_eq!(
        (empty.len(), &empty[0]["severity"]),
        (1, &Value::from("note"))
    );
    assert!(!doc.to_string().contains("opus (litellm_settings"));
    // An openai/ model served through another api_base: a note saying whose price was used.
    let src = findings(&doc, "price-source");
    assert_eq!(src.len(), 1);
    assert_eq!(src[0]["line"], 32);
    let msg = src[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("api_base https://llm-proxy.internal.example/v1")
            && msg.contains("priced from openai's entry `openai/gpt-6-sol` in 2026-07"),
        "{msg}"
    );
    assert_eq!(doc["summary"]["chains"], 7);
    assert_eq!(doc["summary"]["errors"], 5);
    assert_eq!(doc["summary"]["warnings"], 3);
}

/// Flow-style YAML: a loop reported once, default_fallbacks applied to groups without their own,
/// same-provider chains warned about (and failing under --deny-warnings).
#[test]
fn litellm_flow_config_loops_defaults_and_providers() {
    let path = format!("{FIX}/litellm/flow.yaml");
    let doc = check_json(&[&path], 1);
    let loops = findings(&doc, "loop");
    assert_eq!(loops.len(), 1, "{doc:#}");
    assert!(
        loops[0]["message"]
            .as_str()
            .unwrap()
            .contains("`haiku` -> `sonnet` -> `haiku`")
    );
    assert_eq!(loops[0]["severity"], "note");
    // haiku -> sonnet is exactly 2x ($4.50 -> $9.00): not above 2.
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1);
    assert_eq!(
        above[0]["chain"],
        "luna (router_settings.default_fallbacks)"
    );
    assert!((num(&above[0]["ratio"]) - 20.0).abs() < 1e-9);
    let same = findings(&doc, "same-provider");
    assert_eq!(same.len(), 4);
    assert_eq!(same[0]["providers"], serde_json::json!(["openai"]));
}

/// Portkey: nested load-balanced targets are one step priced as a range; a target without a model
/// is a note; camelCase keys read like snake_case ones.
#[test]
fn portkey_nested_targets() {
    let doc = check_json(&[&format!("{FIX}/portkey/nested.json")], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1);
    let f = above[0];
    assert_eq!(f["line"], 6);
    assert!((num(&f["fallback"]["min_per_1k_usd"]) - 9.0).abs() < 1e-9);
    assert!((num(&f["fallback"]["max_per_1k_usd"]) - 45.0).abs() < 1e-9);
    assert_eq!(f["fallback"]["models"][0]["provider"], "anthropic-prod");
    assert_eq!(
        f["fallback"]["models"][0]["priced_as"],
        "anthropic/claude-sonnet-5"
    );
    let notes = findings(&doc, "no-model");
    assert_eq!((notes.len(), &notes[0]["line"]), (1, &Value::from(13)));
    assert_eq!(doc["files"][0]["format"], "portkey");
}

/// Azure deployments: `model_info.base_model` prices them (with a note saying whose list price
/// was used); without it, or prices in the config, the deployment name is unknown: exit 2.
#[test]
fn azure_deployments_and_base_model() {
    let doc = check_json(&[&format!("{FIX}/azure")], 0);
    let src = findings(&doc, "price-source");
    assert_eq!(src.len(), 1);
    assert_eq!(src[0]["line"], 5);
    assert_eq!(
        src[0]["message"],
        "`gpt-6-sol` on provider `azure` is priced from openai's entry `openai/gpt-6-sol` in 2026-07"
    );
    // Mutual fallbacks: one loop note, both links judged (Sol and Sonnet 5 both $9.00).
    assert_eq!(findings(&doc, "loop").len(), 1);
    assert_eq!(doc["summary"]["links"], 2);
    assert_eq!(doc["summary"]["warnings"], 0);
    let err = fails(&["check", &format!("{FIX}/errors/azure-no-base")]);
    assert!(
        err.starts_with("error: tests/fixtures/check/errors/azure-no-base/config.yaml:4:14: unknown model `azure/acme-prod-sol`"),
        "{err}"
    );
    assert!(err.contains("base_model"), "{err}");
}

/// The profile changes gateway prices: at 0 in / 1,000 out, Sonnet 5 costs $10.00 and GPT-6 Astra
/// $50.00 per 1,000 requests (still 5x); scenarios keep their own request.
#[test]
fn profile_prices_gateway_configs() {
    let doc = check_json(
        &[&format!("{FIX}/clean/portkey.json"), "--profile", "0/1000"],
        0,
    );
    assert_eq!(doc["profile"]["output_tokens"], 1000.0);
    let doc = check_json(
        &[
            &format!("{FIX}/litellm/block.yaml"),
            "--profile",
            "0/1000",
            "--max-ratio",
            "100",
        ],
        1,
    );
    let f = findings(&doc, "above-ratio");
    assert_eq!(f.len(), 1, "only the free primary is above 100x: {doc:#}");
    assert!((num(&f[0]["fallback"]["max_per_1k_usd"]) - 10.0).abs() < 1e-9);
}

/// Clean configs exit 0; JSON that is not a Portkey config and YAML that is not a LiteLLM config
/// are skipped with a reason, listed with --verbose.
#[test]
fn clean_configs_pass_and_other_files_are_skipped() {
    let doc = check_json(&[&format!("{FIX}/clean")], 0);
    assert_eq!(doc["summary"]["files"], 2);
    assert_eq!(doc["summary"]["links"], 2);
    let skipped: Vec<&str> = doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    let text = ok(&["check", &format!("{FIX}/clean")]);
    assert!(!text.contains("package.json"), "{text}");
    assert!(
        text.contains("3 files skipped (--verbose lists them)"),
        "{text}"
    );
    let verbose = ok(&["check", &format!("{FIX}/skipped"), "--verbose"]);
    assert!(
        verbose.contains(
            "skipped tests/fixtures/check/skipped/not-portkey.json: JSON, but not a Portkey config"
        ),
        "{verbose}"
    );
}

/// Warnings fail the run only under --deny-warnings.
#[test]
fn deny_warnings_makes_warnings_fail() {
    let path = format!("{FIX}/scenario/chains.toml");
    let doc = check_json(&[&path, "--max-ratio", "10"], 0);
    assert_eq!(doc["summary"]["warnings"], 2);
    let out = fallcost(&["check", &path, "--max-ratio", "10", "--deny-warnings"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A fallcost scenario: the 5x link, the exact-2x link that passes, the same-provider warning.
#[test]
fn scenario_fixture() {
    let doc = check_json(&[&format!("{FIX}/scenario/chains.toml")], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1);
    assert_eq!(above[0]["chain"], "over");
    assert_eq!(above[0]["line"], 12);
    assert!((num(&above[0]["primary"]["max_per_1k_usd"]) - 9.0).abs() < 1e-9);
    assert!((num(&above[0]["fallback"]["max_per_1k_usd"]) - 45.0).abs() < 1e-9);
    let same = findings(&doc, "same-provider");
    assert_eq!(
        same.len(),
        1,
        "a self-fallback is not judged as a link: {doc:#}"
    );
    assert_eq!(same[0]["chain"], "same-provider");
    assert_eq!(same[0]["line"], 19);
    let selfs = findings(&doc, "self-fallback");
    assert_eq!(selfs.len(), 1);
    assert_eq!(selfs[0]["line"], 24);
    assert!(
        selfs[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("`openai/gpt-6-sol` falls back to itself")
    );
    assert_eq!(doc["files"][0]["chains"], 4);
    assert_eq!(doc["files"][0]["links"], 4);
}

/// `--format github`: workflow annotations with file and line.
#[test]
fn github_annotations() {
    let out = fallcost(&["check", "scenarios/", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("::error file=scenarios/sept3.toml,line=29,title=fallcost check::chain `best-available`: fallback `openai/gpt-6-astra` costs $174.00"),
        "{first}"
    );
    let out = fallcost(&[
        "check",
        &format!("{FIX}/litellm/flow.yaml"),
        "--format",
        "github",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("::warning file=tests/fixtures/check/litellm/flow.yaml,line=10,"),
        "{text}"
    );
}

/// LiteLLM's docs show `content_policy_fallbacks=[...]`: a clear error naming the line, exit 2.
#[test]
fn python_syntax_in_yaml_is_an_error_at_its_line() {
    let err = fails(&["check", &format!("{FIX}/errors/python-syntax")]);
    assert_eq!(
        err.trim_end(),
        "error: tests/fixtures/check/errors/python-syntax/config.yaml:9:3: content_policy_fallbacks: `content_policy_fallbacks=[...]` is Python keyword syntax (as in LiteLLM's Router(...) examples), not YAML; write `content_policy_fallbacks: [...]`"
    );
}

/// A model with no known price fails closed: exit 2, naming file, line and model.
#[test]
fn unknown_models_fail_closed() {
    let err = fails(&["check", &format!("{FIX}/errors/unknown-model")]);
    assert!(
        err.starts_with("error: tests/fixtures/check/errors/unknown-model/config.yaml:7:14: unknown model `openai/gpt-9000-preview`"),
        "{err}"
    );
    assert!(err.contains("never taken as zero"), "{err}");
    // The same in the JSON document, and as a github annotation.
    let doc = check_json(&[&format!("{FIX}/errors/unknown-model")], 2);
    assert_eq!(doc["errors"][0]["line"], 7);
    assert_eq!(doc["errors"][0]["kind"], "unknown-model");
    let out = fallcost(&[
        "check",
        &format!("{FIX}/errors/unknown-model"),
        "--format",
        "github",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("::error file=tests/fixtures/check/errors/unknown-model/config.yaml,line=7,"),
        "{text}"
    );
    // A missing path and a bad flag are input errors too.
    fails(&["check", "no/such/dir"]);
    let out = fallcost(&["check", "--max-ratio", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = fallcost(&["check", "--profile", "2000"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--pricing` with a LiteLLM price file prices gateway configs from it, and `fallcost prices`
/// shows what was read: $/MTok, providers, the entries left out.
#[test]
fn litellm_price_file() {
    let table = ok(&[
        "prices",
        "--pricing",
        "tests/fixtures/pricing/litellm-small.json",
    ]);
    assert!(
        table.contains("4 models with per-token prices; 1 entries"),
        "{table}"
    );
    assert!(!table.contains("sample_spec"), "{table}");
    assert!(!table.contains("gpt-image-2"), "{table}");
    let j = json(&[
        "prices",
        "--pricing",
        "tests/fixtures/pricing/litellm-small.json",
    ]);
    let sol = &j["models"]["azure/gpt-6-sol"];
    assert_eq!(sol["input"], 2.2);
    assert_eq!(sol["output"], 11.0);
    assert_eq!(sol["provider"], "azure");
    assert_eq!(j["models"]["claude-sonnet-5"]["cache_write"], 2.5);

    let doc = check_json(
        &[
            &format!("{FIX}/portkey/nested.json"),
            "--pricing",
            "tests/fixtures/pricing/litellm-small.json",
        ],
        1,
    );
    let f = &findings(&doc, "above-ratio")[0];
    assert_eq!(f["fallback"]["models"][1]["priced_as"], "gpt-6-astra");
    assert!((num(&f["ratio"]) - 5.0).abs() < 1e-9);
    assert_eq!(doc["pricing"], "tests/fixtures/pricing/litellm-small.json");
}

/// The real LiteLLM file (4,878 entries) loads, when `../shared/data` is there (it is not in a
/// fresh checkout: then this test passes without checking anything).
#[test]
fn real_litellm_price_file_loads_when_present() {
    let path = root()
        .join("..")
        .join("shared/data/litellm-model-prices-1.110.2.json");
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return;
    }
    let p = path.to_string_lossy().into_owned();
    let j = json(&["prices", "--pricing", &p]);
    let models = j["models"].as_object().unwrap();
    assert!(models.len() > 3000, "{}", models.len());
    assert!(!models.contains_key("sample_spec"));
    let gpt4o = &j["models"]["gpt-4o"];
    assert_eq!(gpt4o["input"], 2.5);
    assert_eq!(gpt4o["output"], 10.0);
    assert_eq!(gpt4o["cached_input"], 1.25);
    assert_eq!(gpt4o["provider"], "openai");
    let source = j["source"].as_str().unwrap();
    assert!(
        source.contains("3882 models with per-token prices"),
        "{source}"
    );
    // A clean fixture priced from it still passes (every model it names is priced there).
    let doc = check_json(&[&format!("{FIX}/clean/litellm.yml"), "--pricing", &p], 0);
    assert_eq!(doc["summary"]["links"], 1);
}
