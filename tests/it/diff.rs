//! `fallcost diff`: the worked example of README "Cost diff in pull requests" checked against
//! figures computed by hand, the exit codes of the thresholds and the budget, added and removed
//! chains, `--base-ref` on a throwaway git repository, every format (the JSON against
//! `schemas/diff.schema.json`), and the common-random-numbers property of `--mc`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{fallcost, fallcost_in, root};
use serde_json::Value;

fn examples() -> PathBuf {
    root().join("examples/diff")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_in(dir: &Path, args: &[&str]) -> (Value, Option<i32>) {
    let out = fallcost_in(dir, args);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}\n{}\n{}",
            text(&out),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (doc, out.status.code())
}

fn worked(extra: &[&str]) -> (Value, Option<i32>) {
    let mut args = vec!["diff", "gateway-v1.yaml", "gateway-v2.yaml", "-f", "json"];
    args.extend_from_slice(extra);
    json_in(&examples(), &args)
}

fn close(a: &Value, b: f64) {
    let a = a.as_f64().unwrap_or_else(|| panic!("not a number: {a}"));
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fallcost-diff-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// By hand (2,000 in / 500 out, 2026-07 prices, every link failing 1% fast, billed 0):
/// Sonnet 5 $9.00, GPT-6 Sol $9.00, GPT-6 Astra $45.00, GPT-6 Luna $0.45, Haiku 4.5 $4.50 per
/// 1,000; sequential = 0.99·c₀ + 0.01·0.99·c₁. chat at 2,628,000 requests a month (1 req/s),
/// summarize at 1,000,000; the 3-hour outage of Anthropic sends chat's 10,800 requests to the
/// fallback, 1% of which fail.
#[test]
fn the_worked_example_is_the_hand_computed_figures() {
    let (d, code) = worked(&[]);
    assert_eq!(code, Some(0));
    assert_eq!(d["version"], 1);
    let chat = &d["chains"][0];
    assert_eq!(chat["chain"], "chat (router_settings.fallbacks)");
    assert_eq!(chat["status"], "changed");
    let base_1k = 0.99 * 9.0 + 0.01 * 0.99 * 9.0; // 8.9991
    let head_1k = 0.99 * 9.0 + 0.01 * 0.99 * 45.0; // 9.3555
    close(&chat["base"]["per_1k_usd"], base_1k);
    close(&chat["head"]["per_1k_usd"], head_1k);
    close(&chat["base"]["per_month_usd"], base_1k * 2628.0); // 23,649.63
    close(&chat["head"]["per_month_usd"], head_1k * 2628.0); // 24,586.25
    close(&chat["diff"]["per_month_usd"], (head_1k - base_1k) * 2628.0); // +936.62
    close(&chat["base"]["incident_usd"], 10_800.0 * 0.99 * 0.009); // 96.23
    close(&chat["head"]["incident_usd"], 10_800.0 * 0.99 * 0.045); // 481.14
    close(&chat["head"]["incident_failed"], 108.0);
    close(&chat["base"]["worst_ratio"], 1.0);
    close(&chat["head"]["worst_ratio"], 5.0);
    let changes: Vec<&str> = chat["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["what"].as_str().unwrap())
        .collect();
    assert_eq!(
        changes,
        [
            "links",
            "link 2.price.cached_input",
            "link 2.price.input",
            "link 2.price.output"
        ]
    );
    assert_eq!(chat["at"]["file"], "gateway-v2.yaml");
    // summarize is unchanged: named, not listed
    assert_eq!(d["chains"].as_array().unwrap().len(), 1);
    assert_eq!(d["unchanged"][0], "summarize (router_settings.fallbacks)");
    let summarize_month = (0.99 * 0.45 + 0.01 * 0.99 * 4.5) * 1000.0;
    let base_month = base_1k * 2628.0 + summarize_month;
    close(&d["base_total"]["per_month_usd"], base_month);
    close(
        &d["diff_month_ratio"],
        ((head_1k - base_1k) * 2628.0 / base_month * 1e12).round() / 1e12,
    );
    // every figure names its assumption
    let a = &chat["assumptions"][0];
    assert_eq!(a["key"], "requests_per_month");
    assert_eq!(a["source"], "fallcost.toml [usage.chains] \"chat\" × 1");
    let keys: Vec<&str> = d["assumptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["pattern", "request", "incident", "month"]);

    let md = text(&fallcost_in(
        &examples(),
        &[
            "diff",
            "gateway-v1.yaml",
            "gateway-v2.yaml",
            "-f",
            "markdown",
        ],
    ));
    assert!(
        md.starts_with(
            "### fallcost diff\n\n**+$936.62/month (+3.88%) on a normal day; +$384.91 per 3h outage**\n"
        ),
        "{md}"
    );
    assert!(md.contains("<details>") && md.trim_end().ends_with("</details>"));
    let table = text(&fallcost_in(
        &examples(),
        &["diff", "gateway-v1.yaml", "gateway-v2.yaml"],
    ));
    assert!(
        table.starts_with("+$936.62/month (+3.88%) on a normal day"),
        "{table}"
    );
    assert!(
        table.contains("│ $/month            ┆ 23,649.63 ┆ 24,586.25 ┆   +936.62 (+3.96%) │"),
        "{table}"
    );
}

#[test]
fn identical_sides_change_nothing() {
    let out = fallcost(&["diff", "scenarios/sept3.toml", "scenarios/sept3.toml"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out).starts_with("No change to the bill: 2 chains unchanged\n"),
        "{}",
        text(&out)
    );
    let (d, _) = json_in(
        &root(),
        &[
            "diff",
            "scenarios/sept3.toml",
            "scenarios/sept3.toml",
            "-f",
            "json",
        ],
    );
    assert_eq!(d["chains"], serde_json::json!([]));
    close(&d["diff_total"]["incident_usd"], 0.0);
}

#[test]
fn thresholds_and_the_budget_exit_1_and_bad_ones_exit_2() {
    let code = |args: &[&str]| {
        let mut a = vec!["diff", "gateway-v1.yaml", "gateway-v2.yaml", "-f", "github"];
        a.extend_from_slice(args);
        fallcost_in(&examples(), &a).status.code()
    };
    assert_eq!(code(&["--fail-above", "3%"]), Some(1)); // +3.88%
    assert_eq!(code(&["--fail-above", "4%"]), Some(0));
    assert_eq!(code(&["--fail-above", "$900/month"]), Some(1)); // +936.62
    assert_eq!(code(&["--fail-above", "$1000/month"]), Some(0));
    assert_eq!(code(&["--fail-above", "$300/incident"]), Some(1)); // +384.91
    assert_eq!(code(&["--fail-above", "$400/incident"]), Some(0));
    assert_eq!(code(&["--fail-above", "4x"]), Some(1)); // 1x -> 5x
    assert_eq!(code(&["--fail-above", "5x"]), Some(0));
    // month with the incident on chat: 24,586.25 + its premium 383.94 = 24,970.19
    assert_eq!(code(&["--budget", "24970"]), Some(1));
    assert_eq!(code(&["--budget", "24971"]), Some(0));
    assert_eq!(code(&["--fail-above", "10"]), Some(2));
    let (d, c) = worked(&["--budget", "24970"]);
    assert_eq!(c, Some(1));
    assert_eq!(d["crossed"][0]["kind"], "budget");
    close(
        &d["crossed"][0]["value"],
        24_586.254 + 10_800.0 * (0.99 * 0.045 - 0.009),
    );
    // a percent threshold without traffic is an input error that says what is missing
    let out = fallcost(&[
        "diff",
        "scenarios/sept3.toml",
        "scenarios/sept3.toml",
        "--fail-above",
        "5%",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs every chain's traffic"));
    let out = fallcost(&["diff", "scenarios/sept3.toml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_renamed_chain_is_listed_and_only_increases_stays_quiet_on_a_saving() {
    let dir = tmp("added");
    let s = std::fs::read_to_string(root().join("scenarios/sept3.toml")).unwrap();
    let s = s.replace("name = \"best-available\"", "name = \"best-available-2\"");
    std::fs::write(dir.join("head.toml"), s).unwrap();
    let base = root().join("scenarios/sept3.toml");
    let (d, _) = json_in(
        &dir,
        &["diff", base.to_str().unwrap(), "head.toml", "-f", "json"],
    );
    let status: Vec<(&str, &str)> = d["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["chain"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    // the same primary and links under a new name: a rename (chains are matched by the
    // traffic they serve, then by name), with no difference
    assert_eq!(status, [("best-available-2", "renamed")]);
    assert_eq!(d["chains"][0]["base_chain"], "best-available");
    assert_eq!(d["chains"][0]["diff"]["per_1k_usd"], 0.0);
    assert_eq!(d["unchanged"][0], "price-matched");
    assert_eq!(d["chains"][0]["at"]["line"], 29);
    // HEAD → BASE of the worked example saves money: quiet with --only-increases
    let out = fallcost_in(
        &examples(),
        &[
            "diff",
            "gateway-v2.yaml",
            "gateway-v1.yaml",
            "--only-increases",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out), "");
    let out = fallcost_in(
        &examples(),
        &[
            "diff",
            "gateway-v1.yaml",
            "gateway-v2.yaml",
            "--only-increases",
        ],
    );
    assert!(!text(&out).is_empty());
}

#[test]
fn base_ref_reads_the_same_paths_at_a_git_ref_without_a_checkout() {
    let dir = tmp("git");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
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
    };
    git(&["init", "-q"]);
    for f in ["usage.toml", "fallcost.toml"] {
        std::fs::copy(examples().join(f), dir.join(f)).unwrap();
    }
    std::fs::create_dir_all(dir.join("gw")).unwrap();
    std::fs::copy(
        examples().join("gateway-v1.yaml"),
        dir.join("gw/config.yaml"),
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "v1"]);
    std::fs::copy(
        examples().join("gateway-v2.yaml"),
        dir.join("gw/config.yaml"),
    )
    .unwrap();
    let (d, code) = json_in(
        &dir,
        &["diff", "--base-ref", "HEAD", "gw/config.yaml", "-f", "json"],
    );
    assert_eq!(code, Some(0));
    assert_eq!(d["base"]["label"], "HEAD:gw/config.yaml");
    let (w, _) = worked(&[]);
    assert_eq!(d["diff_total"], w["diff_total"]);
    assert_eq!(d["chains"][0]["changes"], w["chains"][0]["changes"]);
    // a folder works the same way
    let (f, _) = json_in(&dir, &["diff", "--base-ref", "HEAD", "gw", "-f", "json"]);
    assert_eq!(f["diff_total"], w["diff_total"]);
    // a ref git does not know is exit 2, naming it
    let out = fallcost_in(&dir, &["diff", "--base-ref", "nope", "gw/config.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--base-ref nope"));
}

#[test]
fn a_free_primary_is_called_out_with_its_outage_cost() {
    let dir = tmp("free");
    std::fs::write(
        dir.join("prices.toml"),
        "verified = \"2026-07-18\"\nsource = \"test\"\n[models.\"ollama/llama3\"]\ninput = 0.0\noutput = 0.0\n[models.\"openai/gpt-6-sol\"]\ninput = 2.00\noutput = 10.00\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("a.toml"),
        "pricing = \"prices.toml\"\n[request]\ninput_tokens = 2000\noutput_tokens = 500\n[[chain]]\nname = \"local-first\"\nmodels = [\"ollama/llama3\", \"openai/gpt-6-sol\"]\n[incident]\nduration = \"1h\"\nrequests_per_second = 1.0\nsession_length = 20\nfailure = \"fast\"\n",
    )
    .unwrap();
    let (d, code) = json_in(
        &dir,
        &[
            "diff",
            "a.toml",
            "a.toml",
            "--requests-per-month",
            "2628000",
            "--budget",
            "30",
            "-f",
            "json",
        ],
    );
    // 1 request per second for an hour, all on Sol at $9.00 per 1,000: $32.40, over the budget
    let f = &d["free_primaries"][0];
    assert_eq!(f["primary"], "ollama/llama3");
    assert_eq!(f["fallback"], "openai/gpt-6-sol");
    close(&f["outage_usd"], 32.4);
    assert_eq!(code, Some(1));
    assert_eq!(d["crossed"][0]["kind"], "budget");
}

#[test]
fn the_json_follows_its_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/diff.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let check = |doc: &Value, what: &str| {
        let errors: Vec<String> = v
            .iter_errors(doc)
            .take(5)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{what}: {}", errors.join("\n"));
    };
    let (mut d, _) = worked(&["--budget", "1", "--fail-above", "1x"]);
    check(&d, "worked");
    let (h, _) = worked(&[
        "--incidents",
        "../history/anthropic-incidents.json",
        "--years",
        "200",
    ]);
    check(&h, "history");
    assert!(h["chains"][0]["head"]["premium_p95_usd"].is_number());
    let (s, _) = json_in(
        &root(),
        &[
            "diff",
            "scenarios/sept3.toml",
            "scenarios/tiers.toml",
            "-f",
            "json",
        ],
    );
    check(&s, "scenarios");
    // not a rubber stamp
    d["chains"][0].as_object_mut().unwrap().remove("at");
    assert!(!v.is_valid(&d));
}

/// Common random numbers on the shipped timeline scenario and a one-link change (the
/// price-matched chain's fallback capped at 1,000 output tokens: $2 less per 1,000 answered
/// requests): the difference's interval is far narrower than two independent runs' at the same
/// budget, and it holds the analytic difference.
#[test]
fn crn_differences_are_narrower_than_independent_runs() {
    let (d, _) = json_in(
        &root(),
        &[
            "diff",
            "scenarios/sept3-timeline.toml",
            "examples/diff/sept3-timeline-v2.toml",
            "--mc",
            "20000",
            "--mc-runs",
            "50",
            "--seed",
            "3",
            "-f",
            "json",
        ],
    );
    let c = &d["chains"][0];
    assert_eq!(c["chain"], "price-matched");
    let m = &c["mc"]["incident_usd"];
    let width = |k: &str| m[k][1].as_f64().unwrap() - m[k][0].as_f64().unwrap();
    let ratio = width("independent_ci95") / width("ci95");
    assert!(ratio >= 10.0, "CRN only {ratio:.1}x narrower: {m}");
    let exact = c["diff"]["incident_usd"].as_f64().unwrap();
    assert!(
        m["ci95"][0].as_f64().unwrap() <= exact && exact <= m["ci95"][1].as_f64().unwrap(),
        "{exact} outside {m}"
    );
    // steady state: no failures, every request bills alike: an exact 0 on both sides' draws
    assert_eq!(c["mc"]["per_1k_usd"]["ci95"], serde_json::json!([0.0, 0.0]));
    assert_eq!(d["mc"]["batches"], 50);
}

/// README "Cost diff in pull requests": its worked example is the real output, and the
/// comment it shows rendered is the real Markdown.
#[test]
fn the_readme_example_and_comment_are_real() {
    let readme = crate::common::docs();
    let shown: String = readme
        .split("$ fallcost diff gateway-v1.yaml gateway-v2.yaml     # in examples/diff/\n")
        .nth(1)
        .expect("the README shows the worked example")
        .lines()
        .take_while(|l| !l.starts_with("```"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = fallcost_in(&examples(), &["diff", "gateway-v1.yaml", "gateway-v2.yaml"]);
    assert_eq!(text(&out), shown);
    let md = text(&fallcost_in(
        &examples(),
        &[
            "diff",
            "gateway-v1.yaml",
            "gateway-v2.yaml",
            "-f",
            "markdown",
        ],
    ));
    let quoted: String = md
        .lines()
        .map(|l| format!("{}\n", format!("> {l}").trim_end()))
        .collect();
    assert!(
        readme.contains(&quoted),
        "the README's rendered comment is stale:\n{quoted}"
    );
}

/// `fallcost diff --help` fits 80 columns and its first example runs as written.
#[test]
fn help_fits_and_its_example_runs() {
    let help = text(&fallcost(&["diff", "--help"]));
    let wide: Vec<&str> = help.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(wide.is_empty(), "{wide:?}");
    assert!(help.contains("  fallcost diff examples/diff/gateway-v1.yaml examples/diff/gateway-v2.yaml \\\n    --scenario examples/diff/usage.toml --requests-per-month 3e6\n"), "{help}");
    let out = fallcost(&[
        "diff",
        "examples/diff/gateway-v1.yaml",
        "examples/diff/gateway-v2.yaml",
        "--scenario",
        "examples/diff/usage.toml",
        "--requests-per-month",
        "3e6",
    ]);
    assert_eq!(out.status.code(), Some(0));
    // 3,000,000 requests a month on each chain: chat +0.3564 × 3,000
    assert!(text(&out).starts_with("+$1,069.20/month"), "{}", text(&out));
}
