//! Issue 38: `tune --candidate` on a scenario whose `[steady]` gives per-link lists
//! (`failure_rates = [0.005, 0.0, 0.0]` in `scenarios/timeout.toml`) exited 2 with "has 3
//! values for a chain of 2 models" at its first candidate chain. A per-link rate is its link's
//! model's: a `--set chain.NAME.models=[..]` (how tune builds its chains) reads the file's list
//! by model, and a model not on the chain as written has no stated rate, which tune says up
//! front, once, naming the candidate. Every other per-link setting follows its model too: a
//! chain's `service_tiers`, and its `link_timeouts_s` and `max_output_tokens` (whose entries
//! for a model the chain drops apply to nothing).

use crate::common::{fails, json, num, root, row};

const TIMEOUT: &str = "scenarios/timeout.toml";
const CHAIN: &str = "sol-sonnet-haiku";
const OWN: [&str; 3] = [
    "openai/gpt-5.6-sol",
    "anthropic/claude-sonnet-5",
    "anthropic/claude-haiku-4-5",
];
/// timeout.toml's `failure_rates`, one per model of the chain as written.
const RATES: [f64; 3] = [0.005, 0.0, 0.0];

/// The strings of a JSON array.
fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// What a printed reproduce line (`fallcost compare …`) prints as JSON, run in a shell from the
/// repository root.
fn reproduce(line: &str) -> serde_json::Value {
    crate::common::reproduce_in(&root(), line)
}

/// The printed reproduce `line`, run in a shell ([`reproduce`]), prints the recommended point
/// `rec`'s steady bill, failures and p99 on `chain`; its JSON.
fn reproduces(line: &str, chain: &str, rec: &serde_json::Value) -> serde_json::Value {
    let doc = reproduce(line);
    let steady = row(&doc, "steady", chain, rec["pattern"].as_str().unwrap());
    assert_eq!(
        steady["cost_per_1k_usd"],
        rec["raw"]["steady_cost_per_1k_usd"]
    );
    assert_eq!(steady["failed_per_1k"], rec["raw"]["steady_failed_per_1k"]);
    assert_eq!(
        steady["mc"]["latency_p99_s"], rec["raw"]["p99_s"],
        "{steady}"
    );
    doc
}

/// `compare -s timeout.toml --chain CHAIN` with `set` (each `KEY=VALUE`), as JSON.
fn compare(set: &[String]) -> serde_json::Value {
    let mut args = vec!["compare", "-s", TIMEOUT, "--chain", CHAIN];
    for s in set {
        args.extend(["--set", s.as_str()]);
    }
    json(&args)
}

/// With one of the chain's own models as the candidate, tune searches every order of its
/// models and exits 0; the printed reproduce line, run in a shell, prints the recommended
/// point's bill, failures and p99; and a frontier point that reorders the models prices each
/// link at its model's rate: `compare` with its `--set`s prints the rows of the same chain with
/// the by-model list stated for it (and not those of the list read by position).
#[test]
fn tune_with_an_own_model_candidate_reads_the_lists_by_model_and_reproduces() {
    let v = json(&[
        "tune",
        "-s",
        TIMEOUT,
        "--candidate",
        "openai/gpt-5.6-sol",
        "--confirm",
        "0",
    ]);
    let c = &v["chains"][0];
    assert_eq!(c["chain"], CHAIN);
    let rec = &c["recommended"];
    assert!(rec.is_object(), "{c}");

    // the reproduce line, as printed, in a shell from the repository root
    let line = c["reproduce"].as_str().unwrap();
    assert!(
        line.contains("--set 'chain.sol-sonnet-haiku.models=["),
        "{line}"
    );
    reproduces(line, CHAIN, rec);

    // a frontier point of two or more links, not in the chain's own order
    let point = c["frontier"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            let m = strings(&p["models"]);
            m.len() >= 2 && m[..] != OWN[..m.len()]
        })
        .unwrap_or_else(|| panic!("no reordered chain on the frontier: {c}"));
    let models = strings(&point["models"]);
    let set = strings(&point["set"]);
    let got = compare(&set);
    let pattern = point["pattern"].as_str().unwrap();
    let r = row(&got, "steady", CHAIN, pattern);
    assert_eq!(r["cost_per_1k_usd"], point["raw"]["steady_cost_per_1k_usd"]);
    assert_eq!(r["failed_per_1k"], point["raw"]["steady_failed_per_1k"]);
    // each link at its model's rate as written, stated by the user's own --set
    let by_model: Vec<String> = models
        .iter()
        .map(|m| RATES[OWN.iter().position(|o| o == m).unwrap()].to_string())
        .collect();
    let mut stated = set.clone();
    stated.push(format!("steady.failure_rates=[{}]", by_model.join(", ")));
    let want = compare(&stated);
    // by position instead: Sol's 0.005 on the new primary
    let mut positional = set.clone();
    let first: Vec<String> = RATES[..models.len()]
        .iter()
        .map(|r| r.to_string())
        .collect();
    positional.push(format!("steady.failure_rates=[{}]", first.join(", ")));
    let wrong = compare(&positional);
    for p in ["sequential", "no-fallback"] {
        for key in ["cost_per_1k_usd", "failed_per_1k"] {
            assert_eq!(
                row(&got, "steady", CHAIN, p)[key],
                row(&want, "steady", CHAIN, p)[key],
                "{p} {key}: {models:?}"
            );
        }
    }
    assert_ne!(
        num(row(&got, "steady", CHAIN, "sequential"), "cost_per_1k_usd"),
        num(
            row(&wrong, "steady", CHAIN, "sequential"),
            "cost_per_1k_usd"
        ),
        "{models:?}"
    );
}

/// A candidate not on the chain as written has no rate in timeout.toml's list: tune stops
/// before the search (exit 2, one line, nothing on stdout) naming the list's line and key, the
/// candidate, the chain and what to state instead. An unpriced candidate (GPT-4o is not in
/// the 2026-07 table) and a priced one alike; a chain's own list (failover-chains.toml) is
/// named at its own line.
#[test]
fn tune_with_a_candidate_off_the_chain_says_so_up_front() {
    for model in ["openai/gpt-4o", "openai/gpt-6-luna"] {
        let e = fails(&["tune", "-s", TIMEOUT, "--candidate", model]);
        for part in [
            "error: scenarios/timeout.toml:21:17: steady.failure_rates: ".to_string(),
            format!(
                "`{model}` is not on chain `sol-sonnet-haiku` as written (`openai/gpt-5.6-sol`, `anthropic/claude-sonnet-5`, `anthropic/claude-haiku-4-5`)"
            ),
            format!(
                "state one `steady.failure_rate` for every link instead of the list, or put `{model}` on the chain with its rate"
            ),
            format!(
                "(tune --candidate {model} on chain `sol-sonnet-haiku`, checked before the search"
            ),
            "nothing was priced)".to_string(),
        ] {
            assert!(e.contains(&part), "{part}\nin: {e}");
        }
        assert!(!e.contains("has 3 values"), "{e}");
    }
    let e = fails(&[
        "tune",
        "-s",
        "scenarios/failover-chains.toml",
        "--chain",
        "timeout-4s-partial",
        "--candidate",
        "xai/grok-4.7",
    ]);
    assert!(
        e.starts_with(
            "error: scenarios/failover-chains.toml:46:28: chain[2].steady.failure_rates: `xai/grok-4.7` is not on chain `timeout-4s-partial` as written"
        ),
        "{e}"
    );
    assert!(
        e.contains("(tune --candidate xai/grok-4.7 on chain `timeout-4s-partial`"),
        "{e}"
    );
}

/// A scenario whose chain gives its links their own service tier, timeout and output cap, by
/// model (the LiteLLM table, which prices GPT-5.6 Sol, GPT-6 Sol and GPT-6 Luna in every tier;
/// the file writes `openai/…`, tune's chains the ids `gpt-…`).
const TIERED: &str = r#"name = "tiers"
pricing = "litellm"

[request]
input_tokens = 2000
output_tokens = 500

[[chain]]
name = "x"
models = ["openai/gpt-5.6-sol", "openai/gpt-6-sol", "openai/gpt-6-luna"]
service_tiers = ["priority", "standard", "flex"]
link_timeouts_s = { "openai/gpt-6-luna" = 5 }
max_output_tokens = { "openai/gpt-6-sol" = 300 }

[steady]
failure_rates = [0.01, 0.02, 0.05]

[latency."openai/gpt-6-luna"]
p50_s = 1.0
p99_s = 8.0
"#;

/// Each model of TIERED's chain (by id) with its tier and failure rate as written.
const TIERED_OWN: [(&str, &str, f64); 3] = [
    ("gpt-5.6-sol", "priority", 0.01),
    ("gpt-6-sol", "standard", 0.02),
    ("gpt-6-luna", "flex", 0.05),
];

/// Every per-link setting follows its model (issue 38, the second part): `tune --candidate`
/// with one of the chain's own models on a chain with `service_tiers`, `link_timeouts_s` and
/// `max_output_tokens` exited 2 at its first chain ("gives 3 service tiers for 2 models", then
/// the map keyed by a dropped model, then a hedge that never races Luna's own 5 s timeout once
/// Luna leads). Now it exits 0: 15 chains × hedge none or 7 s, less the 5 chains Luna leads at
/// 7 s (skipped, as a hedge delay not below the timeout is) = 25 combinations; the printed
/// reproduce line, run in a shell, prints the recommended point's figures; and the recommended
/// chain (reordered) is priced with each link's tier and rate its model's: as the same chain
/// with both lists stated by model, not as the lists read by position.
#[test]
fn tune_on_per_link_tiers_timeouts_and_caps_follows_each_model() {
    let dir = std::env::temp_dir().join(format!("fallcost-issue38-tiers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiers.toml");
    std::fs::write(&path, TIERED).unwrap();
    let s = path.to_str().unwrap();
    let v = json(&[
        "tune",
        "-s",
        s,
        "--candidate",
        "gpt-6-luna",
        "--vary",
        "policy.timeout_s=30",
        "--vary",
        "policy.retries=0",
        "--confirm",
        "0",
    ]);
    let c = &v["chains"][0];
    assert_eq!(c["combinations"], 25, "{c}");
    assert_eq!(c["priced"], 25, "{c}");
    let rec = &c["recommended"];
    let models = strings(&rec["models"]);
    assert_eq!(models.len(), 3, "{rec}");
    assert_ne!(models[0], TIERED_OWN[0].0, "{rec}");

    // the reproduce line, as printed, in a shell
    let line = c["reproduce"].as_str().unwrap();
    let doc = reproduces(line, "x", rec);

    // each link at its model's tier and rate: the lists stated by model for the new chain give
    // the same rows, the lists read by position others
    let own = |m: &String| TIERED_OWN.iter().find(|o| o.0 == m).unwrap();
    let tiers: Vec<&str> = models.iter().map(|m| own(m).1).collect();
    assert_eq!(strings(&doc["chains"][0]["service_tiers"]), tiers);
    let compare = |extra: &[String]| {
        let mut args = vec!["compare", "-s", s, "--chain", "x"];
        let set = strings(&rec["set"]);
        for kv in set.iter().chain(extra) {
            args.extend(["--set", kv.as_str()]);
        }
        json(&args)
    };
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    let by_model = compare(&[
        format!(
            "chain.x.service_tiers={}",
            list(tiers.iter().map(|t| format!("\"{t}\"")).collect())
        ),
        format!(
            "steady.failure_rates={}",
            list(models.iter().map(|m| own(m).2.to_string()).collect())
        ),
    ]);
    let positional = compare(&[
        "chain.x.service_tiers=[\"priority\", \"standard\", \"flex\"]".into(),
        "steady.failure_rates=[0.01, 0.02, 0.05]".into(),
    ]);
    for p in ["sequential", "no-fallback"] {
        let cost = |d: &serde_json::Value| num(row(d, "steady", "x", p), "cost_per_1k_usd");
        assert_eq!(cost(&doc), cost(&by_model), "{p}");
        assert_ne!(cost(&doc), cost(&positional), "{p}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A LiteLLM config whose fallback deployment has its own timeout and output cap.
const GATEWAY: &str = "model_list:
  - model_name: chat
    litellm_params: {model: anthropic/claude-sonnet-5}
  - model_name: chat-backup
    litellm_params: {model: openai/gpt-6-sol, timeout: 20, max_tokens: 300}
router_settings:
  fallbacks:
    - chat: [chat-backup]
";

/// `tune --config --candidate` on a config's chain, whose name (`chat
/// (router_settings.fallbacks)`) is no bare key: the space's `chain.NAME.models` key quotes it,
/// as `--set` reads it (it exited 2 at its first chain: "`chain` is an array of tables"). The
/// deployment's own timeout and cap (the chain's `link_timeouts_s` and `max_output_tokens`)
/// stay GPT-6 Sol's on every chain: 15 chains × hedge none or 7 s (below Sol's 20 s) = 30
/// combinations, and the printed reproduce line prints the recommended point's figures.
#[test]
fn tune_with_a_candidate_on_a_gateway_chain_quotes_its_name() {
    let dir = std::env::temp_dir().join(format!("fallcost-issue38-gw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("litellm.yaml");
    std::fs::write(&path, GATEWAY).unwrap();
    let v = json(&[
        "tune",
        "--config",
        path.to_str().unwrap(),
        "--candidate",
        "openai/gpt-6-luna",
        "--vary",
        "policy.timeout_s=30",
        "--vary",
        "policy.retries=0",
        "--confirm",
        "0",
    ]);
    let c = &v["chains"][0];
    assert_eq!(c["chain"], "chat (router_settings.fallbacks)");
    assert_eq!(c["combinations"], 30, "{c}");
    let rec = &c["recommended"];
    let set = strings(&rec["set"]);
    assert!(
        set[0].starts_with("chain.\"chat (router_settings.fallbacks)\".models=["),
        "{set:?}"
    );
    let doc = reproduce(c["reproduce"].as_str().unwrap());
    let pattern = rec["pattern"].as_str().unwrap();
    let steady = row(&doc, "steady", "chat (router_settings.fallbacks)", pattern);
    assert_eq!(
        steady["cost_per_1k_usd"],
        rec["raw"]["steady_cost_per_1k_usd"]
    );
    assert_eq!(
        steady["mc"]["latency_p99_s"], rec["raw"]["p99_s"],
        "{steady}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--budget-s` spent on an earlier chain leaves a later one unpriced: its section says so
/// and how to search it, not "No point meets every constraint" beside a best availability of
/// -inf% (hedge-latency's second chain at half a second).
#[test]
fn a_chain_the_budget_never_reached_says_so() {
    let out = crate::common::fallcost(&[
        "tune",
        "--scenario",
        "scenarios/hedge-latency.toml",
        "--budget-s",
        "0.2",
    ]);
    let text = String::from_utf8_lossy(&out.stdout).replace("\n  ", " ");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("(0 priced within --budget-s)"), "{text}");
    assert!(
        text.contains("No point priced within --budget-s: the budget ran out before this chain's search began; raise --budget-s, or tune this chain alone with --chain NAME."),
        "{text}"
    );
    assert!(!text.contains("-inf"), "{text}");
}
