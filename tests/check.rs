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

/// Flow-style YAML: each loop reported once, default_fallbacks applied to groups without their
/// own, same-provider chains warned about (and failing under --deny-warnings).
#[test]
fn litellm_flow_config_loops_defaults_and_providers() {
    let path = format!("{FIX}/litellm/flow.yaml");
    let doc = check_json(&[&path], 1);
    let loops = findings(&doc, "loop");
    // haiku <-> sonnet, and luna -> sol (default_fallbacks, luna has none of its own) -> luna.
    let cycles: Vec<&str> = loops
        .iter()
        .map(|l| l["message"].as_str().unwrap())
        .collect();
    assert_eq!(loops.len(), 2, "{doc:#}");
    assert!(
        cycles[0].contains("fallbacks loop: `luna` -> `sol` -> `luna`;"),
        "{cycles:?}"
    );
    assert!(
        cycles[1].contains("fallbacks loop: `haiku` -> `sonnet` -> `haiku`;"),
        "{cycles:?}"
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
    assert_eq!(doc["profile"]["output_tokens"], 1000);
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
        text.contains("3 paths skipped (--verbose lists them)"),
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

/// Run `fallcost check ARGS` (text), expecting exit `code`; standard output.
fn check_text(args: &[&str], code: i32) -> String {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let out = fallcost(&all);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "fallcost {}\nstdout:\n{stdout}\nstderr:\n{}",
        all.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The (chain, fallback, line) of every above-ratio finding.
fn above_links(doc: &Value) -> Vec<(String, String, u64)> {
    findings(doc, "above-ratio")
        .iter()
        .map(|f| {
            (
                f["chain"].as_str().unwrap().to_string(),
                f["fallback"]["name"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `callbacks`, `success_callback`, `num_retries` and LiteLLM's other real settings pass
/// silently; `fallback`, `fallbaks` and `default_fallback` are refused with the suggestion.
#[test]
fn real_litellm_settings_pass_and_near_misses_of_fallback_settings_fail() {
    let doc = check_json(&[&format!("{FIX}/litellm/settings-keys.yaml")], 0);
    assert_eq!(doc["summary"]["chains"], 1);
    assert_eq!(doc["summary"]["links"], 1);
    for (key, near) in [
        ("fallback", "fallbacks"),
        ("fallbaks", "fallbacks"),
        ("default_fallback", "default_fallbacks"),
    ] {
        let err = fails(&["check", &format!("{FIX}/errors/near-miss/{key}.yaml")]);
        assert!(
            err.starts_with(&format!(
                "error: tests/fixtures/check/errors/near-miss/{key}.yaml:8:3: router_settings.{key}: unknown field (did you mean `{near}`?); fallcost reads: fallbacks, "
            )),
            "{err}"
        );
    }
}

/// JSON with a `targets` mapping (an Nx project.json) is not a Portkey config: skipped with the
/// reason, exit 0.
#[test]
fn json_with_a_targets_mapping_is_skipped_not_an_error() {
    // Found in a folder, it is skipped (named on the command line it would be an input error).
    let path = format!("{FIX}/skipped/project.json");
    let doc = check_json(&[&format!("{FIX}/skipped")], 0);
    assert_eq!(doc["summary"]["files"], 0);
    let skipped = doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == path.as_str())
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(
        skipped["reason"],
        "JSON, but not a Portkey config (no `strategy` object with a `mode`, no `targets` list of objects); not guessed at"
    );
}

/// Portkey merges a parent's override_params (and the config's own) into its targets: the
/// load-balanced Sonnet 5 primary is priced, and the Astra fallback flagged at 5x. A target that
/// still has no model is a warning (it cannot be judged), failing --deny-warnings.
#[test]
fn portkey_override_params_are_inherited() {
    let path = format!("{FIX}/portkey/inherit.json");
    let doc = check_json(&[&path], 1);
    assert_eq!(doc["summary"]["chains"], 1);
    assert_eq!(doc["summary"]["links"], 2);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1, "{doc:#}");
    let f = above[0];
    assert_eq!(f["line"], 10);
    assert_eq!(f["primary"]["models"].as_array().unwrap().len(), 2);
    assert_eq!(
        f["primary"]["models"][0]["priced_as"],
        "anthropic/claude-sonnet-5"
    );
    assert!((num(&f["primary"]["max_per_1k_usd"]) - 9.0).abs() < 1e-9);
    assert!((num(&f["ratio"]) - 5.0).abs() < 1e-9);
    // The third target inherits the config's own override_params: GPT-6 Luna, cheaper, fine.
    assert_eq!(doc["summary"]["warnings"], 0);

    // nested.json's last target sets no model anywhere: a warning, failing --deny-warnings.
    let nested = format!("{FIX}/portkey/nested.json");
    let doc = check_json(&[&nested, "--max-ratio", "10"], 0);
    let no_model = findings(&doc, "no-model");
    assert_eq!(no_model.len(), 1);
    assert_eq!(no_model[0]["severity"], "warning");
    assert_eq!(no_model[0]["line"], 13);
    check_json(&[&nested, "--max-ratio", "10", "--deny-warnings"], 1);
}

/// YAML merge keys (`<<: *anchor`), as LiteLLM's PyYAML loader honours them: fallbacks merged
/// into router_settings, a discount merged into model_info, litellm_params merged whole. The
/// finding is at the line that merges the fallbacks in.
#[test]
fn yaml_merge_keys_are_followed() {
    let doc = check_json(&[&format!("{FIX}/litellm/merge.yaml")], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1, "{doc:#}");
    let f = above[0];
    assert_eq!(f["line"], 22);
    assert_eq!(f["primary"]["name"], "main");
    assert_eq!(f["primary"]["models"][0]["priced_as"], "config");
    assert!((num(&f["primary"]["min_per_1k_usd"]) - 0.45).abs() < 1e-9);
    assert_eq!(f["fallback"]["models"][0]["model"], "openai/gpt-6-astra");
    assert!((num(&f["ratio"]) - 100.0).abs() < 1e-9);
}

/// A finding reached through a YAML alias names the alias's line, not the anchor's.
#[test]
fn findings_through_an_alias_name_the_alias_line() {
    let doc = check_json(&[&format!("{FIX}/litellm/alias.yaml")], 1);
    assert_eq!(
        above_links(&doc),
        vec![(
            "sonnet (router_settings.fallbacks)".into(),
            "astra".into(),
            10
        )]
    );
}

/// LiteLLM's `include`: the included file's groups are fallbacks like any other, and findings
/// about what it declares name it. A missing included file is an input error at the include.
#[test]
fn litellm_include_is_followed() {
    let doc = check_json(&[&format!("{FIX}/include/config.yaml")], 1);
    assert_eq!(
        above_links(&doc),
        vec![(
            "sonnet (router_settings.fallbacks)".into(),
            "astra".into(),
            8
        )]
    );
    assert_eq!(
        findings(&doc, "above-ratio")[0]["file"],
        "tests/fixtures/check/include/config.yaml"
    );
    let src = findings(&doc, "price-source");
    assert_eq!(src.len(), 1);
    assert_eq!(src[0]["file"], "tests/fixtures/check/include/models.yaml");
    assert_eq!(src[0]["line"], 4);
    let err = fails(&["check", &format!("{FIX}/errors/include-missing")]);
    assert_eq!(
        err.trim_end(),
        "error: tests/fixtures/check/errors/include-missing/config.yaml:5:5: include[0]: cannot read included file `models.yaml` (tests/fixtures/check/errors/include-missing/models.yaml): no such file; LiteLLM refuses to start without it"
    );
}

/// A folder that cannot be read is an input error naming it, not a silent skip. (Built from a
/// path too long to open, which even root cannot read.)
#[test]
fn unreadable_folders_are_input_errors() {
    let dir = std::env::temp_dir().join(format!("fallcost-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let name = "d".repeat(200);
    let script = format!(
        "cd '{}' && for i in $(seq 1 30); do mkdir {name} && cd -P {name} || exit 1; done",
        dir.display()
    );
    let made = std::process::Command::new("sh")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(made.success());
    let out = fallcost(&["check", &dir.to_string_lossy()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: {}/{name}/", dir.display())),
        "{stderr}"
    );
    assert!(stderr.contains(": cannot read this folder ("), "{stderr}");
}

/// max_fallbacks bounds the walk as LiteLLM bounds it: a group's own fallbacks are tried only
/// while its fallback depth is below max_fallbacks, siblings adding one each.
#[test]
fn max_fallbacks_bounds_the_walk() {
    let doc = check_json(&[&format!("{FIX}/litellm/max-fallbacks.yaml")], 1);
    let mut links = above_links(&doc);
    links.sort();
    assert_eq!(
        links,
        vec![
            ("b (router_settings.fallbacks)".into(), "g".into(), 17),
            ("c (router_settings.fallbacks)".into(), "f".into(), 16),
            ("e (router_settings.fallbacks)".into(), "g".into(), 17),
        ]
    );
    // a reaches b, c, d and e, never f or g.
    assert_eq!(doc["files"][0]["links"], 8);
}

/// A 2,000-group chain (LiteLLM's default max_fallbacks of 5): each group reaches the next five.
/// Luna ($0.45) and Sonnet 5 ($9.00) alternate: each Luna primary has three Sonnet 5 fallbacks
/// within five, 20x each (fewer at the end of the chain).
#[test]
fn a_2000_group_chain_is_walked_to_max_fallbacks() {
    let n = 2000;
    let mut yaml = String::from("model_list:\n");
    for i in 0..n {
        let model = if i % 2 == 0 {
            "openai/gpt-6-luna"
        } else {
            "anthropic/claude-sonnet-5"
        };
        yaml.push_str(&format!(
            "  - {{model_name: g{i}, litellm_params: {{model: {model}}}}}\n"
        ));
    }
    yaml.push_str("router_settings:\n  fallbacks:\n");
    for i in 0..n - 1 {
        yaml.push_str(&format!("    - g{i}: [g{}]\n", i + 1));
    }
    let dir = std::env::temp_dir().join(format!("fallcost-chain2000-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.yaml");
    std::fs::write(&path, yaml).unwrap();
    let doc = check_json(&[&path.to_string_lossy()], 1);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(doc["summary"]["chains"], 1999);
    // min(5, groups after it) links per chain: 5 x 1995 + 4 + 3 + 2 + 1.
    assert_eq!(doc["summary"]["links"], 9985);
    // 998 Luna primaries with three Sonnet 5 within five, then 2 and 1.
    assert_eq!(doc["summary"]["errors"], 2997);
    assert_eq!(doc["summary"]["warnings"], 0);
}

/// default_fallbacks apply to every group without its own, and LiteLLM goes on through the
/// fallbacks of what they reach: sonnet -> sol -> opus -> astra.
#[test]
fn default_fallbacks_are_followed_transitively() {
    let doc = check_json(&[&format!("{FIX}/litellm/defaults.yaml")], 1);
    let sonnet: Vec<&Value> = findings(&doc, "above-ratio")
        .into_iter()
        .filter(|f| f["chain"] == "sonnet (router_settings.default_fallbacks)")
        .collect();
    assert_eq!(sonnet.len(), 2, "{doc:#}");
    assert_eq!(sonnet[0]["fallback"]["name"], "opus");
    assert_eq!(sonnet[0]["line"], 15);
    assert_eq!(sonnet[0]["via"], serde_json::json!(["sol"]));
    assert!((num(&sonnet[0]["ratio"]) - 2.5).abs() < 1e-9);
    assert_eq!(sonnet[1]["fallback"]["name"], "astra");
    assert_eq!(sonnet[1]["via"], serde_json::json!(["sol", "opus"]));
    assert!((num(&sonnet[1]["ratio"]) - 5.0).abs() < 1e-9);
    assert_eq!(doc["summary"]["errors"], 4);
}

/// What LiteLLM never acts on is a warning and never judged: a second entry for a group, a second
/// key of a context_window_fallbacks entry, litellm_settings.fallbacks when router_settings has
/// them. A second key in a fallbacks entry makes LiteLLM's router refuse the config: exit 2.
#[test]
fn what_litellm_ignores_is_warned_about_not_judged() {
    let path = format!("{FIX}/litellm/ignored.yaml");
    let doc = check_json(&[&path], 0);
    assert_eq!(doc["summary"]["errors"], 0, "{doc:#}");
    let ignored: Vec<(u64, &str)> = findings(&doc, "ignored")
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ignored,
        vec![
            (
                14,
                "this router_settings.fallbacks entry for `sonnet` never fires: LiteLLM uses the first entry for a group (line 13); merge the two"
            ),
            (
                17,
                "`sol` in router_settings.context_window_fallbacks[0] never fires: LiteLLM reads only the first key of each entry; give `sol` its own `- sol: [...]` item"
            ),
            (
                19,
                "litellm_settings.fallbacks never fires: LiteLLM uses router_settings.fallbacks (router_settings win over litellm_settings)"
            ),
        ]
    );
    check_json(&[&path, "--deny-warnings"], 1);
    let err = fails(&["check", &format!("{FIX}/errors/multi-key")]);
    assert_eq!(
        err.trim_end(),
        "error: tests/fixtures/check/errors/multi-key/config.yaml:11:7: router_settings.fallbacks[0]: a router_settings.fallbacks entry has exactly one key; this one also has `haiku` (LiteLLM's router refuses the config: \"must have exactly one key\"); give `haiku` its own `- haiku: [...]` item"
    );
}

/// A group `anthropic/claude-sonnet-5` takes the fallbacks declared for `claude-sonnet-5`.
#[test]
fn provider_stripped_fallback_keys_apply() {
    let doc = check_json(&[&format!("{FIX}/litellm/stripped.yaml")], 1);
    assert_eq!(
        above_links(&doc),
        vec![(
            "anthropic/claude-sonnet-5 (router_settings.fallbacks)".into(),
            "astra".into(),
            9
        )]
    );
    assert_eq!(doc["summary"]["warnings"], 0);
}

/// A fallback reached both directly and through another group is reported at its direct link.
#[test]
fn direct_links_are_reported_at_their_own_line() {
    let doc = check_json(&[&format!("{FIX}/litellm/shortest.yaml")], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 2);
    assert_eq!(above[0]["chain"], "sonnet (router_settings.fallbacks)");
    assert_eq!(above[0]["line"], 13);
    assert_eq!(above[0]["via"], serde_json::json!([]));
    assert_eq!(above[1]["chain"], "sol (router_settings.fallbacks)");
    assert_eq!(above[1]["line"], 15);
}

/// A wildcard route (`openai/*`) is not a model: not priced, and a warning when default
/// fallbacks make it a chain that cannot be judged. The rest is judged.
#[test]
fn wildcard_routes_are_not_priced() {
    let doc = check_json(&[&format!("{FIX}/litellm/wildcard.yaml")], 0);
    assert_eq!(doc["summary"]["input_errors"], 0);
    let wild = findings(&doc, "wildcard");
    assert_eq!(wild.len(), 1);
    assert_eq!(wild[0]["severity"], "warning");
    assert_eq!(wild[0]["line"], 10);
    assert_eq!(
        wild[0]["message"],
        "`openai/*` is a wildcard route, not a model: its price depends on the model requested, so it is not priced; its fallbacks cannot be judged"
    );
    // sonnet -> sol ($9.00 each) is judged.
    assert_eq!(doc["summary"]["chains"], 1);
    assert_eq!(doc["summary"]["links"], 1);
}

/// LiteLLM's price file names one cloud several ways (`vertex_ai-language-models`,
/// `vertex_ai-anthropic_models`; `bedrock`, `bedrock_converse`): a chain within one is warned.
#[test]
fn provider_families_are_one_provider() {
    let doc = check_json(
        &[
            &format!("{FIX}/families/config.yaml"),
            "--pricing",
            &format!("{FIX}/families/prices.json"),
        ],
        1,
    );
    let same: Vec<(u64, &Value)> = findings(&doc, "same-provider")
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), &f["providers"]))
        .collect();
    assert_eq!(
        same,
        vec![
            (14, &serde_json::json!(["vertex_ai"])),
            (15, &serde_json::json!(["bedrock"])),
        ]
    );
}

/// The ratio shown is above the limit shown: 2.004x is not rounded to 2.00x, the limit is
/// printed as given, 1.9999999999 fails an exact 2x link (and 2 still passes it).
#[test]
fn ratio_and_limit_are_shown_so_they_agree() {
    let path = format!("{FIX}/litellm/ratios.yaml");
    let text = check_text(&[&path], 1);
    assert!(
        text.starts_with("tests/fixtures/check/litellm/ratios.yaml:17: error: chain `base (router_settings.fallbacks)`: fallback `over` costs $4.01 per 1,000 requests, 2.004x its primary `base` at $2.00; above --max-ratio 2\n"),
        "{text}"
    );
    let text = check_text(&[&path, "--max-ratio", "1.99999999"], 1);
    assert!(
        text.starts_with("tests/fixtures/check/litellm/ratios.yaml:16: error: chain `base (router_settings.fallbacks)`: fallback `double` costs $4.00 per 1,000 requests, 2.00x its primary `base` at $2.00; above --max-ratio 1.99999999\n"),
        "{text}"
    );
    let doc = check_json(&[&path, "--max-ratio", "1.9999999999"], 1);
    assert_eq!(doc["summary"]["errors"], 2, "exactly 2x fails 1.9999999999");
    let text = check_text(&[&path, "--max-ratio", "1e308"], 0);
    assert!(
        text.ends_with("fallcost check: 1 file, 1 chain, 2 fallback links at --max-ratio 1e308: 0 errors, 0 warnings, 0 notes\n"),
        "{text}"
    );
}

/// Overlapping paths check each file once.
#[test]
fn overlapping_paths_check_each_file_once() {
    let doc = check_json(
        &[
            &format!("{FIX}/clean"),
            &format!("{FIX}/clean/litellm.yml"),
            &format!("./{FIX}/clean/litellm.yml"),
        ],
        0,
    );
    assert_eq!(doc["summary"]["files"], 2);
    assert_eq!(doc["summary"]["links"], 2);
}

/// A UTF-8 byte order mark does not make a Portkey config invalid, and a duplicate key keeps the
/// lines of every finding (the last value wins, as in JSON.parse).
#[test]
fn portkey_json_with_a_bom_or_a_duplicate_key() {
    let doc = check_json(&[&format!("{FIX}/portkey/bom.json")], 1);
    assert_eq!(above_links(&doc)[0].2, 3);
    let doc = check_json(&[&format!("{FIX}/portkey/dupkey.json")], 1);
    let f = findings(&doc, "above-ratio")[0];
    assert_eq!(f["line"], 6);
    assert_eq!(f["fallback"]["models"][0]["model"], "openai/gpt-6-astra");
}

/// Everything a folder search leaves out is listed under --verbose with the reason, and a run
/// that finds no chain warns (failing --deny-warnings).
#[cfg(unix)]
#[test]
fn dropped_paths_are_listed_and_no_chains_warns() {
    let dir = std::env::temp_dir().join(format!("fallcost-dropped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::fs::write(dir.join("notes.yaml"), "a: 1\n").unwrap();
    let link = std::os::unix::fs::symlink;
    link("nowhere.yaml", dir.join("broken.yaml")).unwrap();
    link("loop-b.yaml", dir.join("loop-a.yaml")).unwrap();
    link("loop-a.yaml", dir.join("loop-b.yaml")).unwrap();
    link("real", dir.join("linked")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe.yaml"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let d = dir.to_string_lossy().into_owned();
    let text = check_text(&[&d, "--verbose"], 0);
    let deny = fallcost(&["check", &d, "--deny-warnings"]);
    let _ = std::fs::remove_dir_all(&dir);
    for line in [
        format!(
            "skipped {d}/broken.yaml: broken symbolic link (its target does not exist): not read"
        ),
        format!("skipped {d}/linked: symbolic link to a folder: not followed"),
        format!("skipped {d}/loop-a.yaml: symbolic link that cannot be followed ("),
        format!("skipped {d}/pipe.yaml: not a regular file (a FIFO, socket or device): not read"),
        format!("skipped {d}/notes.yaml: YAML, not a LiteLLM proxy config"),
        format!("warning: no fallback chains found under {d}: no fallback was judged"),
    ] {
        assert!(text.contains(&line), "{line}\n{text}");
    }
    assert_eq!(deny.status.code(), Some(1));
}

/// A scenario is recognised by its TOML keys, not by a `[[chain]]` line: `[[ chain ]]`,
/// `[["chain"]]` and an inline `chain = [...]` are all checked (each 5x), a misspelled chain
/// in a folder is an input error, and a price table or pyproject.toml in a folder is skipped.
#[test]
fn scenarios_are_recognised_by_their_keys() {
    let doc = check_json(&[&format!("{FIX}/scenario-forms")], 1);
    assert_eq!(doc["summary"]["files"], 3, "{doc:#}");
    let mut chains: Vec<(&str, u64)> = findings(&doc, "above-ratio")
        .iter()
        .map(|f| (f["chain"].as_str().unwrap(), f["line"].as_u64().unwrap()))
        .collect();
    chains.sort();
    assert_eq!(chains, [("inline", 3), ("quoted", 10), ("spaced", 10)]);
    let doc = check_json(&[&format!("{FIX}/errors/scenario-typo")], 2);
    assert_eq!(
        doc["errors"][0]["text"],
        "tests/fixtures/check/errors/scenario-typo/chains.toml:8:3: chians: unknown field (did you mean `chain`?); allowed: name, description, pricing, request, chain, steady, incident, policy, latency"
    );
    let verbose = ok(&["check", &format!("{FIX}/skipped"), "--verbose"]);
    for line in [
        "skipped tests/fixtures/check/skipped/prices.toml: TOML price table (`models`): not a scenario",
        "skipped tests/fixtures/check/skipped/pyproject.toml: TOML without `chain` or other scenario keys: not a scenario",
    ] {
        assert!(verbose.contains(line), "{line}\n{verbose}");
    }
}

/// A file named on the command line that is no config fallcost reads is an input error (exit 2)
/// saying what check reads; the same file found in a folder is skipped.
#[test]
fn a_named_file_that_is_not_a_config_is_an_error() {
    for (file, why) in [
        (
            "skipped/pyproject.toml",
            "TOML without `chain` or other scenario keys: not a scenario",
        ),
        ("clean/README.md", "not .toml, .yaml, .yml or .json"),
        (
            "skipped/project.json",
            "JSON, but not a Portkey config (no `strategy` object with a `mode`, no `targets` list of objects); not guessed at",
        ),
    ] {
        let path = format!("{FIX}/{file}");
        let err = fails(&["check", &path]);
        assert_eq!(
            err,
            format!(
                "error: {path}: not a file fallcost check reads ({why}); it reads fallcost scenarios (.toml with `[[chain]]`), LiteLLM proxy configs (.yaml/.yml with `model_list`) and Portkey configs (.json with `strategy` and `targets`)\n"
            )
        );
    }
    // Named together with a folder that holds it, it is still named.
    let out = fallcost(&[
        "check",
        &format!("{FIX}/skipped"),
        &format!("{FIX}/skipped/prices.toml"),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// The real keys of Portkey configs and LiteLLM deployments next to the ones fallcost reads
/// (`models` beside `model`, `mode`, `api_key`, `api_version`, strategy `default`) are not taken
/// for typos: both configs are read, one link each.
#[test]
fn real_gateway_keys_near_the_read_ones_are_accepted() {
    let doc = check_json(&[&format!("{FIX}/real-keys")], 0);
    assert_eq!(doc["summary"]["files"], 2, "{doc:#}");
    assert_eq!(doc["summary"]["chains"], 2, "{doc:#}");
    assert_eq!(doc["summary"]["links"], 2, "{doc:#}");
}

/// Names from a config with control characters (a terminal escape, CR, LF) are printed escaped
/// (`\u{1b}`, `\r`, `\n`) in text and github output, findings and input errors alike: each stays
/// one line and no escape sequence reaches the terminal. JSON keeps the names as they are.
#[test]
fn control_characters_in_config_names_are_escaped() {
    let dir = format!("{FIX}/control");
    for format in ["text", "github"] {
        let out = fallcost(&["check", &dir, "--format", format]);
        assert_eq!(out.status.code(), Some(2));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        for text in [&stdout, &stderr] {
            assert!(
                !text.contains(['\u{1b}', '\r'])
                    && !text.contains("\nfake")
                    && !text.contains("\nerror: forged"),
                "{format}: {text:?}"
            );
        }
        let findings = if format == "text" { 2 } else { 4 };
        assert_eq!(stdout.lines().count(), findings + 1, "{format}: {stdout}");
        assert!(
            stdout.contains("chain `m\\u{1b}[31mRED (router_settings.fallbacks)`: fallback `b\\r\\nfake: line` costs $45.00"),
            "{stdout}"
        );
        assert_eq!(stderr.lines().count(), 2, "{format}: {stderr}");
        assert!(
            stderr.contains(
                "portkey.json:3:69: unknown model `anthropic/claude-opus-5\\nerror: forged`"
            ),
            "{stderr}"
        );
    }
    let doc = check_json(&[&dir], 2);
    assert_eq!(
        doc["findings"][0]["primary"]["name"], "m\u{1b}[31mRED",
        "{doc:#}"
    );
}
