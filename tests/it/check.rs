//! End to end: `fallcost check` over the shipped scenarios and the hand-written fixtures in
//! `tests/fixtures/check/` (a LiteLLM config in block and in flow YAML, Portkey configs with
//! nested targets and camelCase keys, a scenario, configs that must fail with exit 2).
//!
//! Prices at the default profile (2,000 input / 500 output tokens), bundled 2026-07 table, USD per
//! 1,000 requests: Sonnet 5 9.00, GPT-6 Sol 9.00, GPT-6 Astra 45.00, Opus 5 22.50, Haiku 4.5 4.50,
//! GPT-6 Luna 0.45.

use crate::common;

use common::{fails, fallcost, json, ok, root};
use serde_json::Value;

const FIX: &str = "tests/fixtures/check";

/// Run `fallcost check ARGS --format json`, expecting exit `code`; the parsed document. These
/// fixtures name the posts' models, so without a `--pricing` the run gets `--pricing 2026-07`
/// (check's own default is the bundled LiteLLM snapshot; `check_defaults_to_litellm` tests it).
pub(crate) fn check_json(args: &[&str], code: i32) -> Value {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    // A fallcost.toml (--config-file) names its own pricing.
    if !args
        .iter()
        .any(|a| *a == "--pricing" || *a == "-p" || *a == "--config-file")
    {
        all.extend(["--pricing", "2026-07"]);
    }
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

/// The findings of `kind` in a check document.
pub(crate) fn findings<'a>(doc: &'a Value, kind: &str) -> Vec<&'a Value> {
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
/// GPT-6 Astra, 5x at the post's agent request: $34.80 against $174.00 per 1,000), in
/// sept3.toml and in sept3-timeline.toml (which sorts first).
#[test]
fn shipped_scenarios_flag_only_best_available() {
    let doc = check_json(&["scenarios/"], 1);
    let errors: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 2, "{doc:#}");
    assert_eq!(errors[0]["file"], "scenarios/sept3-timeline.toml");
    assert_eq!(errors[0]["chain"], "best-available");
    assert_eq!(errors[0]["line"], 43);
    let f = errors[1];
    assert_eq!(f["kind"], "above-ratio");
    assert_eq!(f["file"], "scenarios/sept3.toml");
    assert_eq!(f["chain"], "best-available");
    assert_eq!(f["line"], 30);
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
        text.contains("\nscenarios/sept3.toml:30: error: chain `best-available`: fallback `openai/gpt-6-astra` costs $174.00 per 1,000 requests, 5.00x its primary `anthropic/claude-sonnet-5` at $34.80; above --max-ratio 2\n"),
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
    // A group of two deployments without weights: LiteLLM's simple-shuffle splits its traffic
    // equally, so it is judged by its mix (0.45 + 4.50) / 2 = 2.475: 9.00 / 2.475 = 3.64x (the
    // worst case, 9.00 / 0.45 = 20x, is not what it sends), its range shown beside.
    let f = by("mixed ", "sonnet");
    assert!((num(&f["primary"]["min_per_1k_usd"]) - 0.45).abs() < 1e-12);
    assert!((num(&f["primary"]["max_per_1k_usd"]) - 4.5).abs() < 1e-12);
    assert!((num(&f["primary"]["mix_per_1k_usd"]) - 2.475).abs() < 1e-12);
    assert_eq!(f["primary"]["models"][0]["share"], 0.5);
    assert!((num(&f["ratio"]) - 9.0 / 2.475).abs() < 1e-9);
    assert!(
        f["message"].as_str().unwrap().contains(
            "3.64x its primary `mixed` at $2.48 (traffic mix, equal shares; $0.45–$4.50); above"
        ),
        "{f:#}"
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
    // astra -> `openai/gpt-6-sol` is a deployment's litellm model name: LiteLLM's router sends
    // it to both deployments of that model (sol, proxied-sol), so it fires and is judged;
    // mixed reaches it via sonnet and astra: 9.00 / 2.475.
    let f = by("mixed ", "openai/gpt-6-sol");
    assert_eq!(f["via"], serde_json::json!(["sonnet", "astra"]));
    assert_eq!(f["line"], 51);
    assert_eq!(f["fallback"]["models"].as_array().unwrap().len(), 2);
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("costs $9.00 per 1,000"),
        "{f:#}"
    );
    assert_eq!(above.len(), 6, "{doc:#}");
    let resolved = findings(&doc, "resolved-name");
    assert_eq!(resolved.len(), 1);
    assert_eq!(
        (&resolved[0]["line"], &resolved[0]["severity"]),
        (&Value::from(51), &Value::from("note"))
    );
    assert!(
        resolved[0]["message"].as_str().unwrap().contains(
            "whose litellm_params.model is `openai/gpt-6-sol` (groups `sol`, `proxied-sol`)"
        ),
        "{:#}",
        resolved[0]
    );

    // A missing group as a fallback: a warning naming it; never priced.
    let not_group = findings(&doc, "not-a-group");
    assert_eq!(not_group.len(), 1);
    assert_eq!(not_group[0]["line"], 52);
    assert!(
        not_group[0]["message"]
            .as_str()
            .unwrap()
            .contains("`gpt-6-ultra`")
    );
    assert_eq!(not_group[0]["severity"], "warning");
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
    assert_eq!(doc["summary"]["errors"], 6);
    assert_eq!(doc["summary"]["warnings"], 2);
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
    // The slug `@anthropic-prod` is Portkey's provider `anthropic`.
    assert_eq!(f["fallback"]["models"][0]["provider"], "anthropic");
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
    let out = fallcost(&["check", &format!("{FIX}/errors/azure-no-base")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("tests/fixtures/check/errors/azure-no-base/config.yaml:4: error: not priced: `azure/acme-prod-sol`"),
        "{text}"
    );
    assert!(text.contains("base_model"), "{text}");
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
    let first = text.lines().nth(1).unwrap();
    assert!(
        first.starts_with("::error file=scenarios/sept3.toml,line=30,title=fallcost check::chain `best-available`: fallback `openai/gpt-6-astra` costs $174.00"),
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
    // LiteLLM serves the config: an error finding (exit 1), not an input error (issue 39).
    let out = fallcost(&["check", &format!("{FIX}/errors/unknown-model")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("tests/fixtures/check/errors/unknown-model/config.yaml:7: error: not priced: `openai/gpt-9000-preview`"),
        "{text}"
    );
    assert!(text.contains("never taken as zero"), "{text}");
    // The same in the JSON document, and as a github annotation.
    let doc = check_json(&[&format!("{FIX}/errors/unknown-model")], 1);
    let f = &findings(&doc, "unpriced")[0];
    assert_eq!(f["line"], 7);
    assert_eq!(f["severity"], "error");
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
    // The loadbalance splits 0.5 / 0.5 (its weights): (9.00 + 45.00) / 2 = 27.00 against sol's
    // 9.00, 3x (its worst case, astra alone, would be 5x).
    assert!((num(&f["ratio"]) - 3.0).abs() < 1e-9);
    assert!((num(&f["fallback"]["mix_per_1k_usd"]) - 27.0).abs() < 1e-9);
    assert_eq!(f["fallback"]["models"][0]["share"], 0.5);
    assert_eq!(doc["pricing"], "tests/fixtures/pricing/litellm-small.json");
}

/// The real LiteLLM file (4,878 entries, LiteLLM 1.110.2's `model_prices_and_context_window.json`,
/// MIT) loads: a committed copy, so a fresh clone checks it too.
#[test]
fn real_litellm_price_file_loads() {
    let path = root().join("tests/fixtures/pricing/litellm-model-prices-1.110.2.json");
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
        source.contains("4029 models with per-token prices"),
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
fn a_link_is_reported_where_the_routers_walk_reaches_it() {
    let doc = check_json(&[&format!("{FIX}/litellm/shortest.yaml")], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 2);
    // LiteLLM tries sol's own fallbacks before sonnet's next one: astra is reached through sol
    // (line 15), and sonnet's own `astra` (line 13) is skipped as already tried.
    assert_eq!(above[0]["chain"], "sonnet (router_settings.fallbacks)");
    assert_eq!(above[0]["line"], 15);
    assert_eq!(above[0]["via"], serde_json::json!(["sol"]));
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
        "tests/fixtures/check/errors/scenario-typo/chains.toml:8:3: chians: unknown field (did you mean `chain`?); allowed: name, description, pricing, service_tier, request, chain, steady, incident, policy, latency, capacity"
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
                "error: {path}: not a file fallcost check reads ({why}); it reads fallcost scenarios (.toml with `[[chain]]`), LiteLLM proxy configs (.yaml/.yml with `model_list`), Portkey configs (.json with `strategy` and `targets`) and OpenRouter request bodies (.json with a `models` list)\n"
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
        assert_eq!(out.status.code(), Some(1));
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
        // the link, its provider warning and the two unpriced models, then the summary
        assert_eq!(stdout.lines().count(), 4 + 1, "{format}: {stdout}");
        assert!(
            stdout.contains("chain `m\\u{1b}[31mRED (router_settings.fallbacks)`: fallback `b\\r\\nfake: line` costs $45.00"),
            "{stdout}"
        );
        // no input error, the [prices] block to paste (escaped as the findings are)
        let errors = stderr.lines().filter(|l| l.starts_with("error: ")).count();
        assert_eq!(errors, 0, "{format}: {stderr}");
        assert!(
            stderr.contains("[prices.\"openai/gpt-6-luna\\u{1b}[2J\\r\"]"),
            "{stderr}"
        );
        assert!(
            stdout.contains("portkey.json,line=3,title=fallcost check::not priced: `anthropic/claude-opus-5\\nerror: forged`")
                || stdout.contains("portkey.json:3: error: not priced: `anthropic/claude-opus-5\\nerror: forged`"),
            "{stdout}"
        );
    }
    let doc = check_json(&[&dir], 1);
    assert_eq!(
        doc["findings"][0]["primary"]["name"], "m\u{1b}[31mRED",
        "{doc:#}"
    );
}

/// Run `fallcost check FILE --pricing tests/fixtures/check/routing/prices.json --format json`.
fn routing(file: &str, code: i32) -> Value {
    check_json(
        &[
            &format!("{FIX}/routing/{file}"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
        ],
        code,
    )
}

/// LiteLLM's router (`Router._common_checks_available_deployment`, litellm/router.py) resolves
/// a name by `model_info.id`, then `model_group_alias`, then the group, then the deployments
/// whose `litellm_params.model` is the name: a fallback named any of these ways fires. Prices
/// (routing/prices.json, 2,000 in / 500 out): gpt-4o 10.00, gpt-4o-mini 0.60, sonnet-4 13.50.
#[test]
fn fallbacks_named_by_model_id_alias_or_deployment_id_fire() {
    let doc = routing("model-id.yaml", 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1, "{doc:#}");
    // cheap -> `openai/gpt-4o` (smart's litellm model): 10.00 / 0.60 = 16.67x, at its line.
    let f = above[0];
    assert_eq!(
        (&f["line"], &f["fallback"]["name"]),
        (&Value::from(24), &Value::from("openai/gpt-4o"))
    );
    assert!((num(&f["ratio"]) - 10.0 / 0.6).abs() < 1e-9);
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("16.67x its primary `cheap` at $0.60")
    );
    assert!(findings(&doc, "not-a-group").is_empty(), "{doc:#}");
    let resolved: Vec<(u64, &str)> = findings(&doc, "resolved-name")
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(resolved.len(), 4, "{resolved:?}");
    assert!(
        resolved[0]
            .1
            .contains("litellm_params.model is `openai/gpt-4o` (group `smart`)")
    );
    assert_eq!(resolved[1].0, 25);
    assert!(
        resolved[1]
            .1
            .contains("group `smart`, through model_group_alias `gpt-4` -> `smart` (line 21")
    );
    // `best` (an alias of claude, `{model: claude, hidden: true}`) has fallbacks of its own: a
    // chain, to `smart-east` (a model_info.id): 10.00 against 13.50, fine.
    assert!(
        resolved[2].1.starts_with("`best` has fallbacks"),
        "{}",
        resolved[2].1
    );
    assert!(
        resolved[3]
            .1
            .contains("model_info.id `smart-east` (in group `smart`)")
    );
    assert_eq!(doc["summary"]["chains"], 3);
    assert_eq!(doc["summary"]["links"], 3);
}

/// Model ids read from the environment (`os.environ/NAME`, `${NAME}`, one of them on two
/// deployments) are one note for the file at the first one's line, naming each id and variable
/// once; their chains are not judged and the run exits 0.
#[test]
fn environment_model_ids_are_one_note_per_file() {
    let doc = check_json(&[&format!("{FIX}/litellm/env-models.yaml")], 0);
    let notes = findings(&doc, "price-source");
    assert_eq!(notes.len(), 1, "{doc:#}");
    assert_eq!(notes[0]["line"], 6);
    assert_eq!(
        notes[0]["message"],
        "`os.environ/PRIMARY_MODEL`, `${BACKUP_MODEL}` are read from the environment when the proxy starts (PRIMARY_MODEL, BACKUP_MODEL): set PRIMARY_MODEL, BACKUP_MODEL or pass --env PRIMARY_MODEL=value --env BACKUP_MODEL=value as the proxy's environment does, write the model ids they hold in the config, or declare their price in fallcost.toml, to price them; the chains through them are not judged"
    );
    assert!(findings(&doc, "unpriced").is_empty(), "{doc:#}");
    assert_eq!(doc["summary"]["errors"], 0);
    // nothing was judged: the warning says why (not "is the path right?"), so that
    // --deny-warnings fails a gate that judged nothing
    let none = findings(&doc, "no-chains");
    assert_eq!(none.len(), 1, "{doc:#}");
    assert_eq!(
        none[0]["message"],
        format!(
            "no fallback chain under {FIX}/litellm/env-models.yaml could be judged: the chains found go through models with no price or read from the environment (the notes say how to give them)"
        )
    );
    // set as the proxy's environment sets them, the chains are priced: Sol -> Sonnet 5 -> Haiku
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "check",
            &format!("{FIX}/litellm/env-models.yaml"),
            "--pricing",
            "2026-07",
        ])
        .args(["--format", "json"])
        .env("PRIMARY_MODEL", "openai/gpt-5.6-sol")
        .env("BACKUP_MODEL", "anthropic/claude-sonnet-5")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        findings(&doc, "price-source")
            .iter()
            .all(|f| !f["message"].as_str().unwrap().contains("environment")),
        "{doc:#}"
    );
    assert_eq!(doc["summary"]["chains"], 2, "{doc:#}");
    assert_eq!(doc["summary"]["links"], 3, "{doc:#}");
    // --env gives them as the proxy's environment does, over fallcost's own: the same chains.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "check",
            &format!("{FIX}/litellm/env-models.yaml"),
            "--pricing",
            "2026-07",
            "--env",
            "PRIMARY_MODEL=openai/gpt-5.6-sol",
            "--env",
            "BACKUP_MODEL=anthropic/claude-sonnet-5",
        ])
        .args(["--format", "json"])
        .env("PRIMARY_MODEL", "not/a-model")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{doc:#}");
    assert_eq!(doc["summary"]["chains"], 2, "{doc:#}");
    assert_eq!(doc["summary"]["links"], 3, "{doc:#}");
    // One of the two given: the other one's note names its variable and flag only.
    let doc = check_json(
        &[
            &format!("{FIX}/litellm/env-models.yaml"),
            "--env",
            "PRIMARY_MODEL=openai/gpt-5.6-sol",
        ],
        0,
    );
    let notes = findings(&doc, "price-source");
    let env_note: Vec<&str> = notes
        .iter()
        .map(|n| n["message"].as_str().unwrap())
        .filter(|m| m.contains("environment"))
        .collect();
    assert_eq!(
        env_note,
        [
            "`${BACKUP_MODEL}` is read from the environment when the proxy starts (BACKUP_MODEL): set BACKUP_MODEL or pass --env BACKUP_MODEL=value as the proxy's environment does, write the model id it holds in the config, or declare its price in fallcost.toml, to price it; the chains through it are not judged"
        ],
        "{doc:#}"
    );
    assert_eq!(doc["summary"]["chains"], 1, "{doc:#}");
}

/// A real config's LM Studio models (`openai/qwen2.5-coder-…` with `api_base:
/// os.environ/LMSTUDIO_URL`): not priced until the proxy's environment says where the api_base
/// points (the finding names the flag); with `--env LMSTUDIO_URL=` a local address, each is the
/// team's own server at $0, a note, and no longer unpriced.
#[test]
fn an_environment_api_base_given_by_env_prices_a_local_server_at_zero() {
    let file = "tests/fixtures/real-configs-2/orchestrator-ai.yaml";
    let qwen = |doc: &Value, kind: &str| -> Vec<String> {
        findings(doc, kind)
            .iter()
            .map(|f| f["message"].as_str().unwrap().to_string())
            .filter(|m| m.contains("qwen2.5-coder"))
            .collect()
    };
    let doc = check_json(&[file], 1);
    let unpriced = qwen(&doc, "unpriced");
    assert_eq!(unpriced.len(), 3, "{doc:#}");
    assert!(
        unpriced.iter().all(|m| m.contains(
            "(its api_base is read from LMSTUDIO_URL when the proxy starts: pass --env LMSTUDIO_URL=URL; a local or private address is your own server, $0 per token)"
        )),
        "{unpriced:#?}"
    );
    let doc = check_json(
        &[
            file,
            "--env",
            "LMSTUDIO_URL=http://host.docker.internal:1234/v1",
        ],
        1,
    );
    assert!(qwen(&doc, "unpriced").is_empty(), "{doc:#}");
    let local = qwen(&doc, "price-source");
    assert_eq!(local.len(), 3, "{doc:#}");
    assert!(
        local.iter().all(|m| m.contains(
            "is served from a local or private address (host.docker.internal:1234): $0 per token"
        )),
        "{local:#?}"
    );
    // A public address is not the team's own server: still unpriced, judged as that host.
    let doc = check_json(
        &[file, "--env", "LMSTUDIO_URL=https://llm.example.com/v1"],
        1,
    );
    assert_eq!(qwen(&doc, "unpriced").len(), 3, "{doc:#}");
}

/// `api_base: os.environ/NAME` is read from the environment: the model's own provider is the
/// failure domain, with a note, not a provider named after the variable.
#[test]
fn an_environment_api_base_is_not_a_provider() {
    let doc = routing("env-base.yaml", 1);
    assert!(findings(&doc, "same-provider").is_empty(), "{doc:#}");
    let above = findings(&doc, "above-ratio");
    let f = above
        .iter()
        .find(|f| f["fallback"]["name"] == "chat")
        .unwrap();
    assert_eq!(f["primary"]["models"][0]["provider"], "openai");
    assert_eq!(f["fallback"]["models"][0]["provider"], "openai");
    let notes = findings(&doc, "price-source");
    assert_eq!(notes.len(), 2);
    assert!(
        notes[0]["message"]
            .as_str()
            .unwrap()
            .contains("takes its api_base from the environment (os.environ/OPENAI_BASE_A): judged as provider `openai`")
    );
    // mini -> chat is openai -> openai through two variables; chat -> backup leaves openai, so
    // the chain survives an outage.
    let doc = check_json(
        &[
            &format!("{FIX}/routing/env-base.yaml"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
            "--max-ratio",
            "100",
            "--deny-warnings",
        ],
        0,
    );
    assert_eq!(doc["summary"]["warnings"], 0);
}

/// A group of several deployments is judged by its traffic mix (LiteLLM's simple_shuffle:
/// `weight`, else `rpm`, else `tpm`, else equal shares); the same deployment under two group
/// names is a retry, not a failover.
#[test]
fn load_balanced_groups_are_judged_by_their_mix() {
    let doc = routing("mix.yaml", 1);
    let above = findings(&doc, "above-ratio");
    // chat (4o + mini, equal shares: 5.30) -> gpt-4.1 8.00 = 1.51x passes; the worst case
    // (8.00 / 0.60 = 13.33x) is not what it sends.
    assert_eq!(above.len(), 1, "{doc:#}");
    let f = above[0];
    assert_eq!(f["chain"], "weighted (router_settings.fallbacks)");
    // weight 1:3: (10.00 + 3 x 0.60) / 4 = 2.95; 8.00 / 2.95 = 2.71x.
    assert!((num(&f["primary"]["mix_per_1k_usd"]) - 2.95).abs() < 1e-12);
    assert!((num(&f["ratio"]) - 8.0 / 2.95).abs() < 1e-9);
    assert_eq!(f["primary"]["models"][1]["share"], 0.75);
    assert_eq!(f["primary"]["mix"], "litellm_params.weight 1:3");
    assert!(
        f["message"].as_str().unwrap().contains(
            "2.71x its primary `weighted` at $2.95 (traffic mix, litellm_params.weight 1:3; $0.60–$10.00)"
        ),
        "{f:#}"
    );
    let same = findings(&doc, "same-deployment");
    assert_eq!(same.len(), 1);
    assert_eq!(
        (&same[0]["line"], &same[0]["severity"]),
        (&Value::from(24), &Value::from("warning"))
    );
    assert!(
        same[0]["message"]
            .as_str()
            .unwrap()
            .contains("`backup` of `primary`")
    );
    // At --max-ratio 1.5 the equal-share group fails at its mix, 1.51x.
    let doc = check_json(
        &[
            &format!("{FIX}/routing/mix.yaml"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
            "--max-ratio",
            "1.5",
        ],
        1,
    );
    let f = findings(&doc, "above-ratio")
        .into_iter()
        .find(|f| f["chain"] == "chat (router_settings.fallbacks)")
        .unwrap();
    assert!((num(&f["ratio"]) - 8.0 / 5.3).abs() < 1e-9);
    assert!(
        f["message"].as_str().unwrap().contains(
            "1.51x its primary `chat` at $5.30 (traffic mix, equal shares; $0.60–$10.00)"
        )
    );
}

/// Portkey `@slug/model` (Model Catalog providers, virtual keys): the slug resolves to the
/// Portkey provider it starts with (`openai-prod` is `openai`), a `provider` field naming one
/// wins; two slugs of one provider serving one model are a retry on another key, not a failover.
#[test]
fn portkey_slugs_resolve_to_their_provider() {
    let doc = check_json(
        &[
            &format!("{FIX}/portkey/slugs.json"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
        ],
        0,
    );
    let same = findings(&doc, "same-model");
    assert_eq!(same.len(), 1, "{doc:#}");
    assert_eq!(
        (&same[0]["line"], &same[0]["severity"]),
        (&Value::from(5), &Value::from("warning"))
    );
    assert!(same[0]["message"].as_str().unwrap().contains(
        "serves the same model (`gpt-4o`) on the same provider (`openai`) through another key"
    ));
    // `@team-key` names no provider: its own failure domain, priced from anthropic's entry
    // with a note; `provider: "anthropic"` wins over the slug `prod-key`: no note.
    let notes = findings(&doc, "price-source");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["line"], 6);
    // Gpt-4o 10.00 -> sonnet-4 13.50 is 1.35x: passes at 2, fails at 1.3.
    let doc = check_json(
        &[
            &format!("{FIX}/portkey/slugs.json"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
            "--max-ratio",
            "1.3",
            "--deny-warnings",
        ],
        1,
    );
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 2);
    assert!((num(&above[0]["ratio"]) - 1.35).abs() < 1e-9);
}

/// `--allow MODEL_OR_PROVIDER`: a local-first setup (a free ollama primary, a paid cloud
/// fallback) can pass; the allowed link is a note that says so, other links are still judged.
#[test]
fn allow_lets_a_local_primary_pass() {
    let file = format!("{FIX}/routing/local-first.yaml");
    let pricing = format!("{FIX}/routing/prices.json");
    let doc = check_json(&[&file, "--pricing", &pricing], 1);
    assert_eq!(doc["summary"]["errors"], 2);
    let doc = check_json(&[&file, "--pricing", &pricing, "--allow", "ollama"], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 2);
    assert_eq!(
        (&above[0]["severity"], &above[0]["allowed"]),
        (&Value::from("note"), &Value::from("ollama"))
    );
    assert!(
        above[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("; allowed by --allow ollama")
    );
    assert_eq!(
        (&above[1]["severity"], &above[1]["allowed"]),
        (&Value::from("error"), &Value::Null)
    );
    // Allowing the fallback's model (or the whole provider of both) passes the other link too.
    let doc = check_json(
        &[
            &file,
            "--pricing",
            &pricing,
            "--allow",
            "ollama/llama3",
            "--allow",
            "openai/gpt-4o",
        ],
        0,
    );
    assert_eq!(doc["summary"]["errors"], 0);
    assert_eq!(doc["summary"]["notes"], 2);
    // An entry matches every model of a step, not a prefix of a name: `olla` allows nothing.
    let doc = check_json(&[&file, "--pricing", &pricing, "--allow", "olla"], 1);
    assert_eq!(doc["summary"]["errors"], 2);
}

/// Unknown models are input errors in the order of the file, not the order chains reach them.
#[test]
fn unknown_models_come_in_line_order() {
    let doc = check_json(
        &[
            &format!("{FIX}/routing/unknown-order.yaml"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
        ],
        1,
    );
    let lines: Vec<u64> = findings(&doc, "unpriced")
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![6, 8]);
}

/// OpenRouter request bodies: `model` then the `models` fallback list is the chain OpenRouter
/// runs, `provider.order` makes each model a chain across the listed providers that serve it,
/// each priced at that provider's price (this table has no Azure prices: the Azure steps are
/// `unpriced` error findings naming them, never OpenAI's price with a note); a request body with one model
/// is not silently dropped from a folder run: a note says which file and why.
#[test]
fn openrouter_models_lists_are_chains() {
    let doc = check_json(
        &[
            &format!("{FIX}/openrouter/"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
        ],
        1,
    );
    assert_eq!(doc["files"][0]["format"], "openrouter");
    // gpt-4o-mini on openai -> (on azure: unpriced) -> sonnet-4 -> gpt-4.1 on openai -> (azure)
    assert_eq!(doc["files"][0]["links"], 2);
    let errors: Vec<&str> = findings(&doc, "unpriced")
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(errors.len(), 2, "{doc:#}");
    assert!(errors[0].starts_with("not priced: `azure/gpt-4o-mini` (not priced for azure; `gpt-4o-mini` is openai's price, not azure's)"), "{}", errors[0]);
    assert!(
        errors[1].starts_with("not priced: `azure/gpt-4.1`"),
        "{}",
        errors[1]
    );
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 2);
    // gpt-4o-mini 0.60 -> sonnet-4 13.50 = 22.50x; -> gpt-4.1 8.00 = 13.33x.
    assert_eq!(above[0]["fallback"]["name"], "anthropic/claude-sonnet-4");
    assert!((num(&above[0]["ratio"]) - 22.5).abs() < 1e-9);
    assert_eq!(above[1]["fallback"]["name"], "openai/gpt-4.1 on openai");
    assert!((num(&above[1]["ratio"]) - 8.0 / 0.6).abs() < 1e-9);
    let primary = &above[0]["primary"];
    assert_eq!(primary["name"], "openai/gpt-4o-mini on openai");
    assert_eq!(primary["models"][0]["provider"], "openai");
    // Anthropic's model is served by neither listed provider: the price table's provider.
    assert_eq!(above[0]["fallback"]["models"][0]["provider"], "anthropic");
    assert!(findings(&doc, "same-provider").is_empty());
    // allow_fallbacks true: other providers after the listed ones are not priced (a note).
    assert_eq!(findings(&doc, "other-providers").len(), 2);
    let not_read = findings(&doc, "not-read");
    assert_eq!(not_read.len(), 1);
    assert_eq!(
        not_read[0]["file"],
        "tests/fixtures/check/openrouter/single.json"
    );
    assert_eq!(
        not_read[0]["message"],
        "skipped: a request body with one `model` and no `models` fallback list: no chain"
    );
    assert_eq!(
        doc["skipped"][0]["path"],
        "tests/fixtures/check/openrouter/single.json"
    );
}

/// Project settings: `fallcost.toml` (the nearest one up to the repository's root, or
/// `--config-file`) sets max_ratio, allow, paths, pricing and profile; flags win; the file is
/// strict.
#[test]
fn project_settings_are_read_and_flags_win() {
    let settings = format!("{FIX}/settings/fallcost.toml");
    // max_ratio 20, allow ollama, the local-first fixture, routing/prices.json, from the file.
    let doc = check_json(&["--config-file", &settings], 0);
    assert_eq!(doc["max_ratio"], 20.0);
    assert_eq!(
        doc["files"][0]["path"],
        "tests/fixtures/check/routing/local-first.yaml"
    );
    assert_eq!(doc["pricing"], "tests/fixtures/check/routing/prices.json");
    let allowed = &findings(&doc, "above-ratio")[0];
    assert_eq!(allowed["allowed"], "ollama");
    // The note says the entry came from the settings file, not from --allow.
    assert_eq!(allowed["allowed_from"], settings.as_str());
    assert!(
        allowed["message"].as_str().unwrap().ends_with(
            "; allowed by `ollama` in tests/fixtures/check/settings/fallcost.toml [check] allow"
        ),
        "{allowed}"
    );
    // The flag's entry is the flag's.
    let doc = check_json(&["--config-file", &settings, "--allow", "ollama"], 0);
    let allowed = &findings(&doc, "above-ratio")[0];
    assert_eq!(allowed["allowed_from"], Value::Null);
    assert!(
        allowed["message"]
            .as_str()
            .unwrap()
            .ends_with("; allowed by --allow ollama")
    );
    // Flags win: --max-ratio 2 fails cheap -> cloud (16.67x); --allow replaces the list.
    let doc = check_json(&["--config-file", &settings, "--max-ratio", "2"], 1);
    assert_eq!(doc["summary"]["errors"], 1);
    let doc = check_json(&["--config-file", &settings, "--allow", "lm_studio"], 1);
    assert_eq!(doc["summary"]["errors"], 1);
    let err = fails(&[
        "check",
        "--config-file",
        &format!("{FIX}/settings/bad.toml"),
    ]);
    assert!(
        err.starts_with("error: tests/fixtures/check/settings/bad.toml:3:1: check.alow: unknown field (did you mean `allow`?)"),
        "{err}"
    );
    // Found without the flag: the nearest fallcost.toml up to the repository's root.
    let dir = std::env::temp_dir().join(format!("fallcost-project-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("gateway/sub")).unwrap();
    for f in ["local-first.yaml", "prices.json"] {
        std::fs::copy(
            root().join(FIX).join("routing").join(f),
            dir.join("gateway").join(f),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("fallcost.toml"),
        "[check]\npaths = [\"gateway/local-first.yaml\"]\npricing = \"gateway/prices.json\"\nallow = [\"ollama\"]\nmax_ratio = 17\n",
    )
    .unwrap();
    let out = common::fallcost_in(&dir.join("gateway/sub"), &["check", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["max_ratio"], 17.0);
    assert_eq!(doc["files"][0]["path"], "../../gateway/local-first.yaml");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `check --incident DURATION`: a caching fallback about as cheap as its primary warm
/// (56.70 against 48.60, 1.17x: its cache misses are written, "Real prices") whose first failover of a session writes its 60,000-token cache
/// (243.00, 5.00x) is a finding there; the window's multiplier is MODEL.md §6's: N = 10,800,
/// S = 540, normal 524.88, window 10,800 x 0.0567 = 612.36 + cold 540 x (0.243 - 0.0567) +
/// fail-back 540 x (0.1296 - 0.0486) = 756.702, 1.442x.
#[test]
fn incident_judges_the_first_failover() {
    let base = [
        &format!("{FIX}/routing/caching.yaml") as &str,
        "--pricing",
        &format!("{FIX}/routing/prices.json"),
        "--profile",
        "0/1200",
        "--prefix",
        "60000",
        "--hit-rate",
        "0.9",
    ];
    let doc = check_json(&base, 0);
    assert_eq!(doc["summary"]["errors"], 0);
    let mut args = base.to_vec();
    args.extend(["--incident", "3h"]);
    // The outage as a whole costs 1.44x, within the limit: a warning (the first failover's
    // 5.00x is above it), so the gate fails only under --deny-warnings.
    let doc = check_json(&args, 0);
    let f = findings(&doc, "incident-cost");
    assert_eq!(f.len(), 1, "{doc:#}");
    let f = f[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["line"], 11);
    assert!((num(&f["warm_ratio"]) - 56.7 / 48.6).abs() < 1e-9);
    assert!((num(&f["first_failover_ratio"]) - 243.0 / 48.6).abs() < 1e-9);
    assert!((num(&f["fallback"]["models"][0]["first_per_1k_usd"]) - 243.0).abs() < 1e-9);
    let i = &f["incident"];
    assert_eq!(
        (&i["requests"], &i["sessions"]),
        (&Value::from(10800), &Value::from(540))
    );
    assert!((num(&i["normal_usd"]) - 524.88).abs() < 1e-6);
    assert!((num(&i["total_usd"]) - 756.702).abs() < 1e-6);
    assert!((num(&i["multiplier"]) - 756.702 / 524.88).abs() < 1e-9);
    assert!(
        f["message"].as_str().unwrap().ends_with(
            "is 1.17x its primary `main` at warm prices and a 3h outage (10,800 requests in 540 sessions, 1 req/s) costs 1.44x the primary's normal bill, within --max-ratio 2; only a session's first failover (cold cache or write) is above it: $243.00 per 1,000 requests, 5.00x"
        ),
        "{f:#}"
    );
    // Without a cached prefix the first failover costs what a warm one does: nothing to flag.
    let doc = check_json(
        &[
            &format!("{FIX}/routing/caching.yaml"),
            "--pricing",
            &format!("{FIX}/routing/prices.json"),
            "--incident",
            "3h",
        ],
        0,
    );
    assert!(findings(&doc, "incident-cost").is_empty());
    let err = fails(&[
        "check",
        &format!("{FIX}/routing/caching.yaml"),
        "--incident",
        "soon",
    ]);
    assert!(
        err.starts_with("error: --incident: `soon` is not a duration"),
        "{err}"
    );
}

/// `check --incident`'s severity follows the outage's bill (issue 39 item 5): the caching
/// fallback of [`incident_judges_the_first_failover`] is a warning (the outage costs 1.44x,
/// within the limit; only a session's first failover, 5.00x, is above it), so only
/// `--deny-warnings` fails on it; with sessions of one request the outage itself costs 6.67x,
/// an error; and a fallback far cheaper warm whose first failover writes its cache is a note
/// in an outage that costs less than normal, never an error.
#[test]
fn incident_severity_follows_the_outage_bill() {
    let (config, prices) = (
        format!("{FIX}/routing/caching.yaml"),
        format!("{FIX}/routing/prices.json"),
    );
    let args = [
        config.as_str(),
        "--pricing",
        &prices,
        "--profile",
        "0/1200",
        "--prefix",
        "60000",
        "--hit-rate",
        "0.9",
        "--incident",
        "3h",
    ]
    .to_vec();
    let mut deny = args.clone();
    deny.push("--deny-warnings");
    check_json(&deny, 1);
    // Sessions of one request: every request is a first failover, the outage costs 6.67x
    // (10,800 x 0.243 + fail-back 10,800 x 0.081 over 524.88): an error, said above the limit.
    let mut one = args.clone();
    one.extend(["--session-length", "1"]);
    let doc = check_json(&one, 1);
    let f = findings(&doc, "incident-cost")[0];
    assert_eq!(f["severity"], "error");
    assert!(
        (num(&f["incident"]["multiplier"]) - 3499.2 / 524.88).abs() < 1e-9,
        "{f:#}"
    );
    assert!(
        f["message"].as_str().unwrap().ends_with(
            "but a session's first failover (cold cache or write) costs $243.00 per 1,000 requests, 5.00x, and a 3h outage (10,800 requests in 10,800 sessions, 1 req/s) costs 6.67x the primary's normal bill; above --max-ratio 2"
        ),
        "{f:#}"
    );
    // A fallback far cheaper warm (0.48x) whose first failover writes its cache (2.59x): the
    // outage costs 0.67x normal (10,800 x 0.0234 + 540 x (0.126 - 0.0234) + fail-back
    // 540 x 0.081 = 351.864 over 524.88), never an error: a note that says so.
    let doc = check_json(
        &[
            &format!("{FIX}/routing/cheap-cold.yaml"),
            "--pricing",
            &format!("{FIX}/routing/cheap-cold.json"),
            "--profile",
            "0/1200",
            "--prefix",
            "60000",
            "--hit-rate",
            "0.9",
            "--incident",
            "3h",
            "--deny-warnings",
        ],
        0,
    );
    let f = findings(&doc, "incident-cost")[0];
    assert_eq!(f["severity"], "note");
    assert!((num(&f["incident"]["total_usd"]) - 351.864).abs() < 1e-6);
    assert!(
        f["message"].as_str().unwrap().contains(
            "costs 0.67x the primary's normal bill, no more than normal, within --max-ratio 2; only a session's first failover (cold cache or write) is above it: $126.00 per 1,000 requests, 2.59x"
        ),
        "{f:#}"
    );
}

/// A first run over a folder of real public LiteLLM configs (tests/fixtures/real-configs,
/// sources in its README) gives findings or a pass, never input errors: local ollama models
/// are $0, and their paid GitHub Models fallback ($10.00 per 1,000 requests) is above the
/// default --max-usd-per-1k 5.
#[test]
fn real_configs_give_findings_not_input_errors() {
    let out = fallcost(&["check", "tests/fixtures/real-configs", "--format", "json"]);
    let code = out.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "exit {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["input_errors"], 0);
    // 11 LiteLLM configs and 3 Portkey configs (tests/fixtures/real-configs/README.md).
    assert_eq!(doc["summary"]["files"], 14);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 4);
    for f in &above {
        assert_eq!(f["fallback"]["mix_per_1k_usd"], 10.0, "{f}");
        assert_eq!(f["primary"]["mix_per_1k_usd"], 0.0, "{f}");
    }
    // With a limit above $10.00 per 1,000 requests, the same folder's one error is a fallback
    // the price table says was retired on 2026-11-30 (issue 35): Claude Sonnet 4.5 in
    // shadow-optic-production.json; it passes once that is a warning.
    let limit = [
        "check",
        "tests/fixtures/real-configs",
        "--max-usd-per-1k",
        "10",
    ];
    let out = fallcost(&[&limit[..], &["--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{doc:#}");
    assert_eq!(errors[0]["kind"], "retired");
    assert_eq!(errors[0]["model"], "anthropic/claude-sonnet-4.5");
    let out = fallcost(&[&limit[..], &["--severity", "retired=warning"]].concat());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The second folder of real configs (issue 39, item 6; tests/fixtures/real-configs-2/README.md):
/// 17 LiteLLM configs fallcost had not seen, first run: exit 1, no input error.
/// `unified-ai-gateway.yaml` falls back from DeepSeek's reasoner ($0.28 / $0.42 per MTok:
/// $0.77 per 1,000 requests at 2,000 in / 500 out) to Gemini 2.5 Flash ($0.30 / $2.50: $1.85,
/// 2.40x) and GPT-4o ($2.50 / $10.00: $10.00, 12.99x); 8 models no table prices are error findings; a top-level key
/// given twice is read as PyYAML reads it (the last wins), with a warning.
#[test]
fn second_real_folder_gives_findings_not_input_errors() {
    let out = fallcost(&["check", "tests/fixtures/real-configs-2", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["input_errors"], 0);
    assert_eq!(doc["summary"]["files"], 17);
    let above = findings(&doc, "above-ratio");
    let shown: Vec<(&str, f64)> = above
        .iter()
        .map(|f| {
            (
                f["fallback"]["name"].as_str().unwrap(),
                f["fallback"]["mix_per_1k_usd"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![("gemini/gemini-2.5-flash", 1.85), ("openai/gpt-4o", 10.0)],
        "{above:?}"
    );
    assert_eq!(findings(&doc, "unpriced").len(), 8);
    let dup = findings(&doc, "ignored");
    assert_eq!(dup.len(), 1);
    assert_eq!(dup[0]["line"], 37);
    assert!(
        dup[0]["message"]
            .as_str()
            .unwrap()
            .contains("`litellm_settings` is given twice")
    );
}

/// A top-level `fallbacks:` LiteLLM never reads (it starts and serves without it) is a warning
/// naming where it belongs, not an input error (issue 39, item 4).
#[test]
fn a_top_level_fallbacks_is_a_warning() {
    let out = fallcost(&[
        "check",
        &format!("{FIX}/misplaced/top-level-fallbacks.yaml"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("top-level-fallbacks.yaml:6: warning: a top-level `fallbacks` never fires: LiteLLM reads fallback settings only under router_settings (or litellm_settings)"),
        "{text}"
    );
}

/// The two real configs LiteLLM refuses to load (tests/fixtures/real-configs-2-refused/README.md)
/// are the only input errors: a routing_strategy its Router refuses (recorded in refused.json)
/// and an `include` of a file the project writes at run time.
#[test]
fn refused_real_configs_are_the_only_input_errors() {
    let dir = "tests/fixtures/real-configs-2-refused";
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/refused.json")).unwrap())
            .unwrap();
    assert!(
        recorded["refused"]["llm-router-config.yaml"]
            .as_str()
            .unwrap()
            .starts_with("ValueError: Invalid routing_strategy: 'llmrouter-knn'")
    );
    let out = fallcost(&["check", dir]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 2, "{err}");
    assert!(errors[0].starts_with(&format!("error: {dir}/frugallm.yaml:7:3: include[0]: cannot read included file `dynamic_models.yaml`")), "{}", errors[0]);
    assert!(errors[1].starts_with(&format!("error: {dir}/llm-router-config.yaml:53:21: router_settings.routing_strategy: LiteLLM refuses to start with routing_strategy `llmrouter-knn`")), "{}", errors[1]);
}

/// Real configs naming models that no bundled table prices: LiteLLM serves them, so each is an
/// error finding (`unpriced`: its chains are not judged there; exit 1), never an input error
/// (issue 39, item 6).
#[test]
fn real_configs_unpriced_list_only_unknown_models() {
    let out = fallcost(&["check", "tests/fixtures/real-configs-unpriced"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("error: "), "{err}");
    let unpriced: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": error: not priced: `"))
        .collect();
    // One warning per model, at its first line, naming the others, and how to declare it.
    assert_eq!(unpriced.len(), 4, "{text}");
    assert!(
        unpriced[0].contains("(also named at line 15)")
            && unpriced[0].contains(
                "[prices.\"together_ai/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8\"]"
            ),
        "{}",
        unpriced[0]
    );
    // Then (by default) every one of them once, as a fallcost.toml [prices] entry to fill in
    // (the `…` refuses to be read until it is).
    let stub: Vec<&str> = err.lines().collect();
    assert_eq!(stub.len(), 1 + 3 * 4, "{err}");
    assert!(
        stub[0].starts_with("# 4 models with no price"),
        "{}",
        stub[0]
    );
    assert_eq!(
        stub[1],
        "[prices.\"together_ai/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8\"]"
    );
    assert!(stub[2].starts_with("input = …"));
}

/// The block check prints for the unpriced models, pasted into a fallcost.toml with its `…`
/// filled in, prices them: the rerun has no input error, and the figures are those prices. The
/// primary `together_ai/...Maverick...` at $1 / $4 per MTok is $4.00 per 1,000 requests at
/// 2,000 in / 500 out; each other model at $10 / $40 is $40.00, 10.00x. `compare --config`
/// reads the same [prices]: the primary alone is $4.00.
#[test]
fn the_printed_prices_block_pasted_into_fallcost_toml_prices_the_models() {
    let dir = std::env::temp_dir().join(format!("fallcost-paste-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("cirisproxy.yaml");
    std::fs::copy(
        "tests/fixtures/real-configs-unpriced/cirisproxy.yaml",
        &config,
    )
    .unwrap();
    let cfg = config.to_str().unwrap();
    let out = fallcost(&["check", cfg]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let block = &err[err.find("# 4 models with no price").expect(&err)..];
    let mut filled = String::new();
    let mut first = true;
    for line in block.lines() {
        let line = if line.starts_with("[prices.") {
            filled.push_str(line);
            filled.push('\n');
            continue;
        } else if line.starts_with("input = …") {
            line.replacen('…', if first { "1.00" } else { "10.00" }, 1)
        } else if line.starts_with("output = …") {
            let l = line.replacen('…', if first { "4.00" } else { "40.00" }, 1);
            first = false;
            l
        } else {
            line.to_string()
        };
        filled.push_str(&line);
        filled.push('\n');
    }
    assert!(filled.starts_with("# 4 models with no price"), "{filled}");
    assert!(filled.contains("[prices.\"together_ai/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8\"]\ninput = 1.00"), "{filled}");
    let settings = dir.join("fallcost.toml");
    std::fs::write(&settings, &filled).unwrap();
    let st = settings.to_str().unwrap();
    let out = fallcost(&["check", cfg, "--config-file", st]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("error:"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    assert!(
        text.contains("fallback `groq/llama-4-maverick` costs $40.00 per 1,000 requests, 10.00x its primary `llama-4-maverick` at $4.00"),
        "{text}"
    );
    let out = fallcost(&[
        "compare",
        "--config",
        cfg,
        "--config-file",
        st,
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
    let row = doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["chain"] == "llama-4-maverick (router_settings.fallbacks)"
                && r["pattern"] == "no-fallback"
        })
        .unwrap();
    assert!(
        (row["cost_per_1k_usd"].as_f64().unwrap() - 4.0).abs() < 1e-9,
        "{row}"
    );
    assert!(
        doc["pricing"].as_str().unwrap().ends_with("+ own prices"),
        "{doc}"
    );
    // An unknown field of an entry is refused, naming the file and line.
    std::fs::write(
        &settings,
        "[prices.\"acme/x\"]\ninput = 1\noutput = 2\ncache_hit = 3\n",
    )
    .unwrap();
    let err = fails(&["check", cfg, "--config-file", st]);
    assert!(err.contains("fallcost.toml:4"), "{err}");
    assert!(err.contains("cache_hit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Portkey targets whose `@slug` names no Portkey provider are judged on the model's own
/// provider (no false cross-provider pass: two keys of one OpenAI account are one provider), with
/// a note; LiteLLM's `explicit_cache_read_input_token_cost` is named as not read.
#[test]
fn unknown_slugs_are_not_providers_and_unread_cache_prices_are_named() {
    let dir = "tests/fixtures/check/portkey-slugs";
    let doc = check_json(
        &[
            &format!("{dir}/unknown-slugs.json"),
            "--pricing",
            "litellm-1.110.2",
        ],
        0,
    );
    let same = findings(&doc, "same-provider");
    assert_eq!(same.len(), 1, "{doc}");
    assert!(same[0]["message"].as_str().unwrap().contains("(openai)"));
    let notes = findings(&doc, "price-source");
    assert_eq!(notes.len(), 2);
    assert!(
        notes[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("the slug `@prod-key` names no Portkey provider")
    );
    let doc = check_json(
        &[
            &format!("{dir}/explicit-cache.yaml"),
            "--pricing",
            "litellm-1.110.2",
        ],
        0,
    );
    let notes = findings(&doc, "price-source");
    assert_eq!(notes.len(), 1, "{doc}");
    assert!(
        notes[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("explicit_cache_read_input_token_cost (line 4) is not read")
    );
}

/// The router's walk, priced (tests/fixtures/check/router-walk; the walks themselves are
/// checked against LiteLLM's Router in tests/it/parity.rs). At 2,000 in / 500 out: GPT-4o mini
/// $0.60, Claude Haiku 4.5 $4.50, GPT-4o $10.00, Claude Sonnet 4.5 $13.50 per 1,000 requests.
#[test]
fn the_routers_walk_is_what_is_priced() {
    let dir = "tests/fixtures/check/router-walk";
    let run = |f: &str, code| {
        check_json(
            &[&format!("{dir}/{f}"), "--pricing", "litellm-1.110.2"],
            code,
        )
    };
    // A fallback only a wildcard route serves fires: $10.00 / $0.60 = 16.67x.
    let doc = run("wildcard.yaml", 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1);
    assert!((above[0]["ratio"].as_f64().unwrap() - 10.0 / 0.6).abs() < 1e-9);
    // Only the second deployment sets a weight: all of mix's traffic goes to GPT-4o mini, so
    // Haiku is 7.50x the mix (not 0.45x a GPT-4o-heavy mix).
    let doc = run("traffic.yaml", 1);
    let above = findings(&doc, "above-ratio");
    assert!((above[0]["ratio"].as_f64().unwrap() - 7.5).abs() < 1e-9);
    assert_eq!(above[0]["primary"]["mix"], "litellm_params.weight 0:1");
    // q's fallback p is already tried: not counted, so t is reached from p at max_fallbacks 3.
    let doc = run("depth.yaml", 1);
    let p_t: Vec<&Value> = findings(&doc, "above-ratio")
        .into_iter()
        .filter(|f| f["chain"] == "p (router_settings.fallbacks)")
        .collect();
    assert_eq!(p_t.len(), 1);
    assert_eq!(p_t[0]["via"], serde_json::json!(["q", "s"]));
    assert!((p_t[0]["ratio"].as_f64().unwrap() - 10.0 / 4.5).abs() < 1e-9);
    // b is a's GPT-4o deployment: a retry for the half of a's traffic that went there.
    let doc = run("same-deployment.yaml", 0);
    let same = findings(&doc, "same-deployment");
    assert_eq!(same.len(), 1);
    assert!(
        same[0]["message"]
            .as_str()
            .unwrap()
            .contains("sends 50% of `a`'s requests back")
    );
    // b has no chain of its own: its hop resumes a's chain, so `*`'s dear never fires from a.
    let doc = run("resume-root.yaml", 1);
    let from_a: Vec<&Value> = findings(&doc, "above-ratio")
        .into_iter()
        .filter(|f| f["chain"] == "a (router_settings.fallbacks)")
        .collect();
    assert_eq!(from_a.len(), 1);
    assert_eq!(from_a[0]["fallback"]["name"], "b");
}

/// fallcost.toml's `[prices]` apply to scenarios as they do to gateway configs (the guide's
/// promise, issue 39 item 5): tests/fixtures/check/own-prices/scenario.toml falls back from
/// Claude Sonnet 5 ($9.00 per 1,000 requests, 2026-07) to `acme/big-model`, which only the
/// settings price ($5/$20 per MTok: $20.00, 2.22x). `check` judges the link, `compare`,
/// `sweep`, `tune` and `diff` price it (sequential at 10% failures: 0.9 x 9.00 + 0.1 x 6.50
/// gray + 0.09 x 20.00 + 0.01 x 15.00 = $10.70); without the settings it is an unknown model
/// whose error says how to declare it.
#[test]
fn own_prices_apply_to_scenarios_in_every_command() {
    let dir = format!("{FIX}/own-prices");
    let (s, settings) = (
        format!("{dir}/scenario.toml"),
        format!("{dir}/fallcost.toml"),
    );
    let doc = check_json(&[&s, "--config-file", &settings], 1);
    let above = findings(&doc, "above-ratio");
    assert_eq!(above.len(), 1, "{doc:#}");
    assert!(
        (num(&above[0]["fallback"]["min_per_1k_usd"]) - 20.0).abs() < 1e-9,
        "{doc:#}"
    );
    assert!((num(&above[0]["ratio"]) - 20.0 / 9.0).abs() < 1e-9);
    let run = |args: &[&str]| -> Value {
        let mut all = args.to_vec();
        all.extend(["--config-file", &settings, "-f", "json"]);
        let out = fallcost(&all);
        assert_eq!(out.status.code(), Some(0), "{all:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = run(&["compare", "-s", &s]);
    assert_eq!(doc["pricing"], "2026-07 + own prices");
    let seq = |rows: &Value| -> f64 {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["pattern"] == "sequential")
            .map(|r| num(&r["cost_per_1k_usd"]))
            .unwrap()
    };
    assert!((seq(&doc["steady"]) - 10.70).abs() < 1e-9, "{doc:#}");
    let doc = run(&[
        "sweep",
        "-s",
        &s,
        "--param",
        "steady.failure_rate=0.1:0.1:0.1",
    ]);
    assert!((seq(&doc["rows"]) - 10.70).abs() < 1e-9, "{doc:#}");
    let doc = run(&["tune", "-s", &s]);
    assert!((num(&doc["chains"][0]["shipped"]["cost_per_1k_usd"]) - 10.70).abs() < 1e-9);
    let doc = run(&["diff", &s, &s]);
    assert_eq!(doc["base"]["pricing"], "2026-07 + own prices");
    assert_eq!(doc["unchanged"][0], "to-acme");
    // Without the settings: an unknown model, and the error says how to declare it.
    let err = crate::common::fails(&["compare", "-s", &s]);
    assert!(
        err.contains("unknown model `acme/big-model`: price table 2026-07 has no price for it, and an unknown price is never taken as zero; declare it in fallcost.toml (`[prices.\"acme/big-model\"]` input and output in USD per 1M tokens)"),
        "{err}"
    );
}

/// `context_window_fallbacks` and `content_policy_fallbacks` take only the requests that
/// overflow the primary's context window or that it refuses (LiteLLM's router sends only a
/// `ContextWindowExceededError` / `ContentPolicyViolationError` there, not retried on the
/// primary), so such a link is judged by the share of requests it takes, where fallcost.toml's
/// `[usage]` states it (issue 39 item 5): before, GPT-4o mini -> Claude Opus 4.6 was a 37.50x
/// general-fallback error. Without a share: a warning that says it is conditional and gives the
/// ratio. With one: the chain's cost over its primary alone, `(1 - s) + s x ratio`: 2% of
/// requests at 37.50x is 1.73x (a note), 90% at 2.8125x is 2.63x (an error).
#[test]
fn conditional_fallbacks_are_judged_by_the_share_they_take() {
    let dir = format!("{FIX}/conditional");
    let config = format!("{dir}/config.yaml");
    let doc = check_json(&[&config, "--pricing", "litellm-1.110.2"], 0);
    let f = findings(&doc, "conditional-fallback");
    assert_eq!(f.len(), 2, "{doc:#}");
    assert!(findings(&doc, "above-ratio").is_empty());
    assert!(findings(&doc, "same-provider").is_empty());
    assert_eq!(f[0]["severity"], "warning");
    assert_eq!(f[0]["line"], 15);
    assert_eq!(f[0]["condition"], "context_window_fallbacks");
    assert_eq!(f[0]["share"], Value::Null);
    assert!((num(&f[0]["ratio"]) - 37.5).abs() < 1e-9);
    assert_eq!(
        f[0]["message"],
        "chain `small (router_settings.context_window_fallbacks)`: fallback `claude` costs $22.50 per 1,000 requests, 37.50x its primary `small` at $0.60, but a context_window_fallbacks link takes only the requests that overflow the primary's context window (LiteLLM's ContextWindowExceededError), not every failure; its share of requests is not stated, so it is not judged as a general fallback: state it as fallcost.toml [usage] context_window_share (0 to 1) to judge it"
    );
    check_json(
        &[&config, "--pricing", "litellm-1.110.2", "--deny-warnings"],
        1,
    );
    let settings = format!("{dir}/fallcost.toml");
    let args = [
        config.as_str(),
        "--pricing",
        "litellm-1.110.2",
        "--config-file",
        &settings,
    ];
    let doc = check_json(&args, 1);
    let f = findings(&doc, "conditional-fallback");
    assert_eq!(f.len(), 2, "{doc:#}");
    assert_eq!(f[0]["severity"], "note");
    assert_eq!(f[0]["share"], 0.02);
    assert_eq!(
        f[0]["share_from"],
        format!("{settings} [usage] context_window_share")
    );
    assert!((num(&f[0]["chain_ratio"]) - (0.98 + 0.02 * 37.5)).abs() < 1e-9);
    assert!(
        f[0]["message"].as_str().unwrap().ends_with(
            "at 2% of requests (tests/fixtures/check/conditional/fallcost.toml [usage] context_window_share) the chain costs 1.73x its primary alone; within --max-ratio 2"
        ),
        "{doc:#}"
    );
    assert_eq!(f[1]["severity"], "error");
    assert_eq!(f[1]["condition"], "content_policy_fallbacks");
    assert!((num(&f[1]["chain_ratio"]) - (0.1 + 0.9 * 22.5 / 8.0)).abs() < 1e-9);
    assert!(
        f[1]["message"]
            .as_str()
            .unwrap()
            .ends_with("the chain costs 2.63x its primary alone; above --max-ratio 2"),
        "{doc:#}"
    );
    // compare --config says the chains are conditional, and how check judges them.
    let out = fallcost(&["compare", "--config", &config]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("fallcost: warning: {config}:15: chain `small (router_settings.context_window_fallbacks)` is conditional: LiteLLM sends it only the requests that overflow the primary's context window")),
        "{err}"
    );
}
