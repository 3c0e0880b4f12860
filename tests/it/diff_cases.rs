//! `fallcost diff` regression cases (`tests/fixtures/diff/`, its README.md): each a BASE and
//! HEAD pair with the truth computed by hand, and the property that every route's priced
//! requests add up to the usage stated, on every shipped and recorded gateway config.
//!
//! By hand (2,000 in / 500 out, 2026-07 prices, every link failing 1% fast, billed 0), USD per
//! 1,000 requests: Sonnet 5 9.00, GPT-6 Sol 9.00, GPT-6 Luna 0.45, Haiku 4.5 4.50; sequential
//! = 0.99·c₀ + 0.01·0.99·c₁, a primary alone 0.99·c₀. chat 2,628,000 requests a month (1 req/s:
//! 10,800 in the 3-hour outage), every other chain 1,000,000 (0.3805 req/s: 4,110).

use crate::common;

use std::path::{Path, PathBuf};

use common::{fallcost_in, root};
use serde_json::Value;

fn cases() -> PathBuf {
    root().join("tests/fixtures/diff")
}

fn run(dir: &Path, args: &[&str]) -> (Value, Option<i32>, String) {
    let out = fallcost_in(dir, args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let doc = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (doc, out.status.code(), stdout)
}

fn json(head: &str, extra: &[&str]) -> (Value, Option<i32>) {
    let mut args = vec!["diff", "base.yaml", head, "-f", "json"];
    args.extend_from_slice(extra);
    let (d, code, out) = run(&cases(), &args);
    assert!(!d.is_null(), "{args:?}: {out}");
    (d, code)
}

fn close(a: &Value, b: f64, tol: f64) {
    let a = a.as_f64().unwrap_or_else(|| panic!("not a number: {a}"));
    assert!((a - b).abs() <= tol, "{a} != {b}");
}

/// Removing summarize's only fallback: the group still serves its 1,000,000 requests, on Luna
/// alone. Per 1,000: 0.49005 → 0.4455, −$44.55 a month. In OpenAI's outage its 4,110 requests
/// went to Haiku (41.10 failed, 4,110 × 0.99 × $0.0045 = $18.31) and now all fail: +4,068.90.
#[test]
fn a_lost_fallback_is_a_changed_chain_that_fails_more() {
    let (d, code) = json("lost-fallback.yaml", &[]);
    assert_eq!(code, Some(0));
    let c = &d["chains"][0];
    assert_eq!(d["chains"].as_array().unwrap().len(), 1, "{d}");
    assert_eq!(c["chain"], "summarize (router_settings.fallbacks)");
    assert_eq!(c["status"], "changed");
    assert_eq!(c["head_models"], serde_json::json!(["openai/gpt-6-luna"]));
    assert!(
        c["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["what"] == "fallbacks"),
        "{c}"
    );
    close(&c["diff"]["per_month_usd"], -44.55, 1e-6);
    close(&c["base"]["incident_usd"], 18.31, 0.005);
    close(&c["head"]["incident_usd"], 0.0, 1e-9);
    close(&c["diff"]["incident_failed"], 4068.9, 1e-6);
    close(&d["head_total"]["requests_per_month"], 3_628_000.0, 1e-6);
    close(&d["diff_total"]["per_month_usd"], -44.55, 1e-6);
    // the headline says it fails more and is no saving; --only-increases prints it
    let (_, _, table) = run(&cases(), &["diff", "base.yaml", "lost-fallback.yaml"]);
    let head = table.lines().next().unwrap();
    assert_eq!(
        head,
        "-$44.55/month (-0.18%) on a normal day; -$18.31 per 3h outage; +4,068.90 failed requests per 3h outage (fewer requests answered: an availability loss, not a saving)"
    );
    let (_, code, md) = run(
        &cases(),
        &[
            "diff",
            "base.yaml",
            "lost-fallback.yaml",
            "--only-increases",
            "-f",
            "markdown",
        ],
    );
    assert_eq!(code, Some(0));
    assert!(
        md.contains("| `summarize (router_settings.fallbacks)` | changed |"),
        "{md}"
    );
    assert!(md.contains("41.10 → 4,110 (+4,068.90, +9900.00%)"), "{md}");
    // the annotation is a warning at the group's line
    let (_, _, gh) = run(
        &cases(),
        &["diff", "base.yaml", "lost-fallback.yaml", "-f", "github"],
    );
    assert!(
        gh.starts_with("::warning file=lost-fallback.yaml,line=7,title=fallcost diff::chain `summarize (router_settings.fallbacks)` changed: -$44.55/month, -$18.31 per reference incident, +4,068.90 failed requests per reference incident"),
        "{gh}"
    );
}

/// chat's fallback moved onto Anthropic (Sonnet 5 again): the same price, 8.9991 per 1,000 on
/// both sides, $0.00 a month; in Anthropic's outage the 10,800 requests that Sol answered
/// ($96.23, 108 failed) all fail: +10,692 failed, −$96.23.
#[test]
fn a_fallback_on_the_primarys_provider_is_an_increase_in_risk() {
    let (d, code) = json("same-provider.yaml", &[]);
    assert_eq!(code, Some(0));
    let c = &d["chains"][0];
    assert_eq!(c["status"], "changed");
    close(&c["diff"]["per_month_usd"], 0.0, 1e-9);
    close(&c["diff"]["incident_usd"], -96.228, 1e-6);
    close(&c["diff"]["incident_failed"], 10_692.0, 1e-6);
    let (_, code, out) = run(
        &cases(),
        &[
            "diff",
            "base.yaml",
            "same-provider.yaml",
            "--only-increases",
        ],
    );
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("$0.00/month (+0.00%) on a normal day; -$96.23 per 3h outage; +10,692 failed requests per 3h outage (fewer requests answered: an availability loss, not a saving)\n"),
        "{out}"
    );
    // a failed-requests threshold: crossed at 100, not at 20,000
    let (d, code) = json(
        "same-provider.yaml",
        &["--fail-above", "+100failed/incident"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(d["crossed"][0]["kind"], "failed_per_incident");
    close(&d["crossed"][0]["value"], 10_692.0, 1e-6);
    let (_, code) = json(
        "same-provider.yaml",
        &["--fail-above", "+20000failed/incident"],
    );
    assert_eq!(code, Some(0));
}

/// A pure rename (`chat` → `assistant`): the same traffic, so the same chain with a real
/// difference of 0; `[usage.chains] chat` names BASE's chain only, and HEAD keeps its traffic
/// with a warning.
#[test]
fn a_rename_is_a_rename_with_no_difference() {
    let (d, code) = json("renamed.yaml", &[]);
    assert_eq!(code, Some(0));
    let c = &d["chains"][0];
    assert_eq!(c["status"], "renamed");
    assert_eq!(c["chain"], "assistant (router_settings.fallbacks)");
    assert_eq!(c["base_chain"], "chat (router_settings.fallbacks)");
    close(&c["head"]["requests_per_month"], 2_628_000.0, 1e-6);
    for k in ["per_month_usd", "incident_usd", "incident_failed"] {
        close(&d["diff_total"][k], 0.0, 1e-9);
    }
    let w = d["warnings"][0].as_str().unwrap();
    assert!(w.contains("[usage.chains] \"chat\""), "{w}");
}

/// chat's group with a second deployment (Luna, equal shares): the group's 2,628,000 requests
/// split 1,314,000 / 1,314,000, not 2,628,000 each. HEAD's month: 8.9991 × 1,314 + 0.5346 ×
/// 1,314 + 490.05 = $13,017.33, −$11,122.35 against BASE's $24,139.68.
#[test]
fn a_groups_deployments_split_its_traffic() {
    let (d, code) = json("two-deployments.yaml", &[]);
    assert_eq!(code, Some(0));
    close(&d["head_total"]["requests_per_month"], 3_628_000.0, 1e-6);
    close(&d["base_total"]["requests_per_month"], 3_628_000.0, 1e-6);
    for c in d["chains"].as_array().unwrap() {
        close(&c["head"]["requests_per_month"], 1_314_000.0, 1e-6);
    }
    close(&d["head_total"]["per_month_usd"], 13_017.33, 0.005);
    close(&d["diff_total"]["per_month_usd"], -11_122.35, 0.005);
    // the header gives the rates the chains run at: 1 req/s split, summarize's 0.3805
    let inc = d["incident"].as_str().unwrap();
    assert!(inc.contains("0.3805 to 1 req/s"), "{inc}");
}

/// Every gateway config fallcost ships or records, priced against an empty BASE: each route's
/// chains (one per deployment combination) add up to the route's requests per month.
#[test]
fn every_routes_priced_requests_add_up_to_its_usage() {
    let dirs = [
        "examples/diff",
        "tests/fixtures/diff",
        "tests/fixtures/parity",
        "tests/fixtures/real-configs",
    ];
    let empty = std::env::temp_dir().join(format!("fallcost-diff-cases-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let scenario = empty.join("usage.toml");
    std::fs::write(
        &scenario,
        "[request]\ninput_tokens = 2000\noutput_tokens = 500\n[incident]\nduration = \"1h\"\nrequests_per_second = 1\nsession_length = 20\n",
    )
    .unwrap();
    let settings = empty.join("fallcost.toml");
    // the retired models the parity configs name, at Anthropic's list prices ($/MTok)
    std::fs::write(
        &settings,
        "[prices.\"anthropic/claude-3-5-haiku-20241022\"]\ninput = 0.8\noutput = 4\n[prices.\"anthropic/claude-3-5-sonnet-20241022\"]\ninput = 3\noutput = 15\n[prices.\"anthropic/claude-3-opus-20240229\"]\ninput = 15\noutput = 75\n",
    )
    .unwrap();
    let mut unpriced = Vec::new();
    let mut checked = 0;
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
            // the parity folder's recorded walks, not a config
            .filter(|p| !p.ends_with("parity/walks.json"))
            .collect();
        files.sort();
        for f in files {
            let req = fallcost::ops::diff::DiffRequest {
                base: vec![empty.clone()],
                head: vec![f.clone()],
                base_ref: None,
                source: &fallcost::ops::inputs::SourceArgs {
                    scenario: Some(scenario.clone()),
                    config_file: Some(settings.clone()),
                    ..Default::default()
                },
                pattern: fallcost::model::Pattern::Sequential,
                requests_per_month: Some(1_000_000.0),
                budget: None,
                incidents: Vec::new(),
                years: 10,
                seed: 1,
                thresholds: Vec::new(),
                mc: None,
                hold_usage: false,
            };
            let report = match fallcost::ops::diff::diff(&req) {
                Ok(r) => r,
                // not a gateway config with chains (a walks list, an incident history)
                Err(e) if format!("{e:#}").contains("no fallback chain") => continue,
                // a real config naming a model no table prices is refused, never priced at 0
                Err(e)
                    if dir.ends_with("real-configs")
                        && format!("{e:#}").contains("has no price") =>
                {
                    unpriced.push(f.display().to_string());
                    continue;
                }
                Err(e) => panic!("{}: {e:#}", f.display()),
            };
            let usage = fallcost::input::settings::usage_settings(Some(&settings)).unwrap();
            let (_, head) = fallcost::ops::diff::sides::resolve(&req, &usage, &usage).unwrap();
            let mut by_route: std::collections::BTreeMap<String, f64> = Default::default();
            for c in &report.chains {
                let route = head
                    .served(&c.chain)
                    .map_or(c.chain.clone(), |s| format!("{} {}", s.config, s.route));
                let n = c.head.as_ref().and_then(|h| h.requests_per_month).unwrap();
                *by_route.entry(route).or_default() += n;
            }
            assert!(!by_route.is_empty(), "{}", f.display());
            for (route, n) in by_route {
                assert!(
                    (n - 1_000_000.0).abs() < 1e-3,
                    "{}: route {route} priced at {n} requests a month, not 1,000,000",
                    f.display()
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 15,
        "only {checked} configs priced; unpriced: {unpriced:?}"
    );
}

/// A throwaway git repository in `dir`: `git(args)` runs there and returns stdout.
fn git_in(dir: &Path) -> impl Fn(&[&str]) -> String + '_ {
    move |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

fn repo(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fallcost-diff-cases-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["usage.toml", "fallcost.toml"] {
        std::fs::copy(cases().join(f), dir.join(f)).unwrap();
    }
    {
        let git = git_in(&dir);
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-qm", "usage"]);
    }
    dir
}

/// A new config (nothing at the base ref): BASE serves no traffic, so every threshold
/// applies from zero. HEAD's month is the worked example's v1, $24,139.68, its incidents
/// $96.23 + $18.31 = $114.54; `--only-increases` prints what made it exit 1.
#[test]
fn an_empty_base_is_zero_traffic_and_every_threshold_applies() {
    let dir = repo("empty-base");
    std::fs::copy(cases().join("base.yaml"), dir.join("gateway.yaml")).unwrap();
    let d = |extra: &[&str]| {
        let mut a = vec!["diff", "--base-ref", "HEAD", "gateway.yaml", "-f", "json"];
        a.extend_from_slice(extra);
        let (d, code, out) = run(&dir, &a);
        assert!(!d.is_null(), "{out}");
        (d, code)
    };
    let (r, code) = d(&["--fail-above", "10%"]);
    assert_eq!(code, Some(1));
    assert_eq!(r["crossed"][0]["kind"], "percent_from_zero");
    close(&r["crossed"][0]["value"], 24_139.68, 0.005);
    close(&r["base_total"]["per_month_usd"], 0.0, 1e-9);
    close(&r["base_total"]["incident_usd"], 0.0, 1e-9);
    let (r, code) = d(&["--fail-above", "$100/incident"]);
    assert_eq!(code, Some(1), "{r}");
    close(&r["crossed"][0]["value"], 114.54, 0.005);
    let (_, code) = d(&["--fail-above", "$200/incident"]);
    assert_eq!(code, Some(0));
    // --only-increases with a crossed budget prints the report and exits 1
    let (_, code, out) = run(
        &dir,
        &[
            "diff",
            "--base-ref",
            "HEAD",
            "gateway.yaml",
            "--budget",
            "1000",
            "--only-increases",
            "-f",
            "markdown",
        ],
    );
    assert_eq!(code, Some(1));
    assert!(out.contains("threshold crossed: chain `chat (router_settings.fallbacks)`: a month with the reference incident costs $23,649.63, above the budget of $1,000.00/month"), "{out}");
}

/// Traffic changed in fallcost.toml between the refs (summarize 1,000,000 → 2,000,000): each
/// side is priced with its own `[usage]`, so summarize's month doubles, +$490.05, and the
/// headline says so; `--usage head` holds HEAD's: no change.
#[test]
fn a_usage_change_between_the_refs_is_a_change() {
    let dir = repo("usage");
    std::fs::copy(cases().join("base.yaml"), dir.join("gateway.yaml")).unwrap();
    let git = git_in(&dir);
    git(&["add", "."]);
    git(&["commit", "-qm", "config"]);
    let settings = std::fs::read_to_string(dir.join("fallcost.toml")).unwrap();
    std::fs::write(
        dir.join("fallcost.toml"),
        settings.replace(
            "requests_per_month = 1_000_000",
            "requests_per_month = 2_000_000",
        ),
    )
    .unwrap();
    let (d, code, out) = run(
        &dir,
        &["diff", "--base-ref", "HEAD", "gateway.yaml", "-f", "json"],
    );
    assert_eq!(code, Some(0), "{out}");
    close(&d["diff_total"]["per_month_usd"], 490.05, 1e-6);
    assert_eq!(d["usage_changes"][0]["what"], "usage.requests_per_month");
    assert_eq!(d["usage_changes"][0]["base"], "1,000,000");
    assert_eq!(d["usage_changes"][0]["head"], "2,000,000");
    let (_, _, table) = run(&dir, &["diff", "--base-ref", "HEAD", "gateway.yaml"]);
    assert!(
        table.starts_with("+$490.05/month (+2.03%) on a normal day; +$18.31 per 3h outage; +41.09 failed requests per 3h outage; the usage assumptions changed too (usage.requests_per_month), and each side is priced with its own (--usage head holds HEAD's)\n"),
        "{table}"
    );
    let (d, _, _) = run(
        &dir,
        &[
            "diff",
            "--base-ref",
            "HEAD",
            "gateway.yaml",
            "--usage",
            "head",
            "-f",
            "json",
        ],
    );
    close(&d["diff_total"]["per_month_usd"], 0.0, 1e-9);
    assert_eq!(d["usage_changes"], serde_json::json!([]));
}

/// The whole group's last fallback removed (no fallback left in the config): still the same
/// traffic, on the primaries alone.
#[test]
fn a_config_with_no_fallback_left_still_serves_its_groups() {
    let dir = repo("no-fallback-left");
    std::fs::copy(cases().join("base.yaml"), dir.join("gateway.yaml")).unwrap();
    let git = git_in(&dir);
    git(&["add", "."]);
    git(&["commit", "-qm", "config"]);
    std::fs::write(
        dir.join("gateway.yaml"),
        "model_list:\n  - model_name: chat\n    litellm_params: {model: anthropic/claude-sonnet-5}\n  - model_name: summarize\n    litellm_params: {model: openai/gpt-6-luna}\n",
    )
    .unwrap();
    let (d, code, out) = run(
        &dir,
        &["diff", "--base-ref", "HEAD", "gateway.yaml", "-f", "json"],
    );
    assert_eq!(code, Some(0), "{out}");
    let chains = d["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 2, "{d}");
    for c in chains {
        assert_eq!(c["status"], "changed", "{c}");
    }
    // chat: 8.9991 → 8.91 per 1,000 at 2,628,000 (−$234.1548); summarize −$44.55
    close(&d["diff_total"]["per_month_usd"], -278.7048, 1e-6);
    close(&d["head_total"]["requests_per_month"], 3_628_000.0, 1e-6);
    // every request of both outages fails: 10,800 + 4,110, against 108 + 41.10
    close(&d["diff_total"]["incident_failed"], 14_760.9, 1e-6);
}

/// chat moved from LiteLLM into a Portkey config: matched by its primary (the only unmatched
/// chain on Sonnet 5 on each side), a rename with its real difference: $0.00 (the same links
/// and traffic; Portkey also fails over on client errors, listed as a policy change).
#[test]
fn a_chain_moved_between_formats_is_a_rename() {
    let (d, code) = json("moved-to-portkey", &[]);
    assert_eq!(code, Some(0));
    let chains = d["chains"].as_array().unwrap();
    assert_eq!(chains.len(), 1, "{d}");
    assert_eq!(chains[0]["base_chain"], "chat (router_settings.fallbacks)");
    assert_eq!(chains[0]["status"], "changed");
    assert_eq!(chains[0]["changes"][0]["what"], "policy.failover_on");
    for k in [
        "per_month_usd",
        "incident_usd",
        "incident_failed",
        "requests_per_month",
    ] {
        close(&d["diff_total"][k], 0.0, 1e-9);
    }
    assert_eq!(
        d["unchanged"],
        serde_json::json!(["summarize (router_settings.fallbacks)"])
    );
}

/// An annotation points at the line the pull request changed: a group that kept its name and
/// changed its model at its deployment's line (5), a fallbacks entry that names a new group at
/// that entry (14), not at the chain's first line.
#[test]
fn annotations_point_at_the_changed_line() {
    for (head, line) in [("swapped-model.yaml", 5), ("new-group.yaml", 14)] {
        let (_, code, out) = run(&cases(), &["diff", "base.yaml", head, "-f", "github"]);
        assert_eq!(code, Some(0), "{out}");
        let want = format!(
            "::warning file={head},line={line},title=fallcost diff::chain `chat (router_settings.fallbacks)` changed: +$936.62/month"
        );
        assert!(out.starts_with(&want), "{head}: {out}");
    }
}

/// `git mv gw/gateway.yaml gw/litellm.yaml`: with `--base-ref`, BASE is the ref's
/// gw/gateway.yaml (git's rename detection), so the chains are the same: no change, not
/// +$24,139.68 of new chains. The same from a subfolder with an absolute path, where BASE's
/// fallcost.toml (one folder up) is read at the ref and found unchanged.
#[test]
fn a_git_mv_is_a_rename_with_no_difference() {
    let dir = repo("git-mv");
    std::fs::create_dir_all(dir.join("gw")).unwrap();
    std::fs::copy(cases().join("base.yaml"), dir.join("gw/gateway.yaml")).unwrap();
    let git = git_in(&dir);
    git(&["add", "."]);
    git(&["commit", "-qm", "gateway"]);
    git(&["mv", "gw/gateway.yaml", "gw/litellm.yaml"]);
    let check = |cwd: &Path, path: &str| {
        let (d, code, out) = run(cwd, &["diff", "--base-ref", "HEAD", path, "-f", "json"]);
        assert_eq!(code, Some(0), "{out}");
        assert!(d["chains"].as_array().unwrap().is_empty(), "{d}");
        assert_eq!(d["unchanged"].as_array().unwrap().len(), 2, "{d}");
        close(&d["base_total"]["per_month_usd"], 24_139.68, 0.005);
        close(&d["diff_total"]["per_month_usd"], 0.0, 1e-9);
        assert!(
            d["usage_changes"].as_array().is_none_or(|c| c.is_empty()),
            "{d}"
        );
        let (_, _, text) = run(cwd, &["diff", "--base-ref", "HEAD", path]);
        assert!(text.contains("gateway.yaml (renamed "), "{text}");
    };
    check(&dir, "gw/litellm.yaml");
    let abs = dir.join("gw/litellm.yaml");
    check(&dir.join("gw"), abs.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chain of local and free models (ollama, vLLM, LM Studio, an OpenRouter `:free` model)
/// ending on a paid fallback: `diff` and `compare --config` read it as `check` does, every
/// local link at $0, no exit 2, and the free primary called out with its paid fallback. By
/// hand, GPT-4o alone: 2,000 × $2.50 + 500 × $10.00 per MTok = $10.00 per 1,000 requests.
#[test]
fn local_and_free_models_diff_and_compare_as_check_reads_them() {
    // no fallcost.toml: the broad built-in table, which has GPT-4o and GPT-4o mini
    let dir = std::env::temp_dir().join(format!("fallcost-local-free-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let base = "model_list:\n  - model_name: chat\n    litellm_params: {model: ollama/llama3, api_base: \"http://localhost:11434\"}\n  - model_name: chat-vllm\n    litellm_params: {model: hosted_vllm/meta-llama/Llama-3-8B, api_base: \"http://vllm:8000\"}\n  - model_name: chat-lms\n    litellm_params: {model: lm_studio/qwen2.5, api_base: \"http://localhost:1234/v1\"}\n  - model_name: chat-free\n    litellm_params: {model: openrouter/meta-llama/llama-3.3-70b-instruct:free}\n  - model_name: chat-paid\n    litellm_params: {model: openai/gpt-4o}\nrouter_settings:\n  fallbacks:\n    - chat: [chat-vllm, chat-lms, chat-free, chat-paid]\n";
    std::fs::write(dir.join("a.yaml"), base).unwrap();
    std::fs::write(
        dir.join("b.yaml"),
        base.replace("openai/gpt-4o}", "openai/gpt-4o-mini}"),
    )
    .unwrap();
    let (d, code, out) = run(&dir, &["diff", "a.yaml", "b.yaml", "-f", "json"]);
    assert_eq!(code, Some(0), "{out}");
    let f = &d["free_primaries"][0];
    assert_eq!(f["primary"], "ollama/llama3", "{d}");
    assert_eq!(f["fallback"], "gpt-4o-mini", "{d}");
    assert_eq!(d["chains"][0]["status"], "changed", "{d}");
    let out = fallcost_in(&dir, &["compare", "--config", "a.yaml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("each link alone: $0.00 → $0.00 → $0.00 → $0.00 → $10.00"),
        "{text}"
    );
}
