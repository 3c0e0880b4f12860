//! `fallcost reconcile` end to end: one recorded export per format (tests/fixtures/reconcile/,
//! shaped as the providers' documentation shows them) with residuals checked by hand, the
//! `[pricing]` attribution, bad input, `--fail-above`, and README's worked example.

use crate::common;

use common::fallcost;
use serde_json::Value;

const DIR: &str = "tests/fixtures/reconcile";

fn json(args: &[&str]) -> (Value, i32) {
    let mut all = vec!["reconcile"];
    all.extend_from_slice(args);
    all.extend(["--pricing", "2026-07", "-f", "json"]);
    let out = fallcost(&all);
    let code = out.status.code().unwrap();
    assert!(
        code < 2,
        "{all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&out.stdout).unwrap(), code)
}

fn f(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn row<'a>(doc: &'a Value, day: &str, model: &str) -> &'a Value {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["day"] == day && r["model"] == model)
        .unwrap_or_else(|| panic!("no row {day} {model}: {doc}"))
}

fn close(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"));
    assert!((got - want).abs() < 1e-9, "got {got}, want {want}");
}

/// OpenAI usage (two pages) and costs: Sol's 1,000,000 uncached x $2 + 200,000 cached x $0.20 +
/// 100,000 output x $10 = $3.04 against $2.99 billed: −$0.05, −1.67% of the bill, within ±2%.
/// gpt-9-nova is no model of the table: its $0.50 is unpriced, never priced at zero.
#[test]
fn openai_usage_and_costs() {
    let (d, code) = json(&[&f("openai-usage.json"), &f("openai-costs.json")]);
    assert_eq!(code, 0);
    let sol = row(&d, "2026-11-05", "openai/gpt-6-sol");
    close(&sol["uncached_input_tokens"], 1_000_000.0);
    close(&sol["cache_read_input_tokens"], 200_000.0);
    close(&sol["table_usd"], 3.04);
    close(&sol["billed_usd"], 2.99);
    close(&sol["residual_usd"], -0.05);
    close(&sol["residual_share"], -0.05 / 2.99);
    assert_eq!(sol["within"], true);
    let nova = row(&d, "2026-11-05", "openai/gpt-9-nova");
    assert_eq!(nova["expected_usd"], Value::Null);
    close(&nova["residual_usd"], 0.5);
    assert!(
        nova["attribution"][0]
            .as_str()
            .unwrap()
            .contains("not in the price table"),
        "{nova}"
    );
    close(&d["totals"]["billed_usd"], 3.49);
    close(&d["totals"]["explained_share"], 2.99 / 3.49);
    close(&d["totals"]["unpriced_billed_usd"], 0.5);
    assert_eq!(d["files"][0]["format"], "openai-usage");
}

/// Anthropic's usage and cost reports: Sonnet 5's 1M uncached x $2 + 2M reads x $0.20 + 400k
/// 5-minute writes x $2.50 + 200k output x $10 = $5.40 at the table; billed 486 cents, $4.86: a
/// residual of −$0.54 (−11.1%), which a 10% discount explains. With fallcost.toml's
/// `anthropic = 0.10` it is expected $4.86, residual 0. Haiku's batch tokens: the 2026-07 table
/// has no batch price (unpriced, not the standard price); the web search is a line of its own.
#[test]
fn anthropic_usage_and_cost_reports_with_a_discount() {
    let files = [f("anthropic-usage.json"), f("anthropic-costs.json")];
    let (d, _) = json(&[&files[0], &files[1]]);
    let sonnet = row(&d, "2026-11-02", "anthropic/claude-sonnet-5");
    close(&sonnet["cache_write_5m_input_tokens"], 400_000.0);
    close(&sonnet["table_usd"], 5.40);
    close(&sonnet["billed_usd"], 4.86);
    close(&sonnet["residual_usd"], -0.54);
    assert_eq!(sonnet["within"], false);
    let hint = sonnet["attribution"][0].as_str().unwrap();
    assert!(hint.contains("a 10% discount"), "{hint}");
    let haiku = row(&d, "2026-11-02", "anthropic/claude-haiku-4-5");
    assert!(
        haiku["attribution"][0]
            .as_str()
            .unwrap()
            .contains("no batch price for anthropic/claude-haiku-4-5"),
        "{haiku}"
    );
    close(&haiku["billed_usd"], 0.5);
    let search = row(&d, "2026-11-02", "anthropic/(web_search)");
    close(&search["billed_usd"], 0.25);

    let toml = f("fallcost.toml");
    let (d, _) = json(&[&files[0], &files[1], "--config-file", &toml]);
    let sonnet = row(&d, "2026-11-02", "anthropic/claude-sonnet-5");
    close(&sonnet["discount_usd"], -0.54);
    close(&sonnet["expected_usd"], 4.86);
    close(&sonnet["residual_usd"], 0.0);
    assert_eq!(sonnet["within"], true);
    assert_eq!(d["settings"], toml.as_str());
}

/// OpenRouter's activity: usage and bill in one record. 2026-11-15: 1M prompt x $2 + 100k
/// completion x $10 = $3.00, billed $3.00. 2026-11-16: billed $2.00 + $0.50 BYOK = $2.50, −$0.50
/// (−20%) at the table; fallcost.toml's price change (input $1.50 from 2026-11-16) makes it
/// $1.50 + $1.00 = $2.50, residual 0, the change −$0.50.
#[test]
fn openrouter_activity_with_a_dated_price() {
    let file = f("openrouter-activity.json");
    let (d, _) = json(&[&file]);
    close(
        &row(&d, "2026-11-15", "openai/gpt-6-sol")["residual_usd"],
        0.0,
    );
    let day2 = row(&d, "2026-11-16", "openai/gpt-6-sol");
    close(&day2["billed_usd"], 2.5);
    close(&day2["residual_usd"], -0.5);
    close(&day2["residual_share"], -0.2);
    assert!(
        day2["attribution"][0]
            .as_str()
            .unwrap()
            .contains("does not split cached from uncached"),
        "{day2}"
    );
    let (d, _) = json(&[&file, "--config-file", &f("fallcost.toml")]);
    let day2 = row(&d, "2026-11-16", "openai/gpt-6-sol");
    close(&day2["price_change_usd"], -0.5);
    close(&day2["expected_usd"], 2.5);
    close(&day2["residual_usd"], 0.0);
    close(&d["totals"]["explained_share"], 1.0);
    close(
        &row(&d, "2026-11-15", "openai/gpt-6-sol")["price_change_usd"],
        0.0,
    );
}

/// The plain CSV: DeepSeek's 1M input x $0.14 + 500k output x $0.28 = $0.28 against $0.29, +$0.01
/// (+3.45%), outside ±2%; Opus 5's 1-hour writes have no price in the 2026-07 table: unpriced.
/// `--fail-above 2%` then exits 1 (residual 3.45% and the unpriced $4.40 are both over it).
#[test]
fn plain_csv_and_fail_above() {
    let file = f("bill.csv");
    let (d, code) = json(&[&file]);
    assert_eq!(code, 0);
    let ds = row(&d, "2026-11-02", "deepseek/deepseek-v4-flash");
    close(&ds["expected_usd"], 0.28);
    close(&ds["residual_usd"], 0.01);
    close(&ds["residual_share"], 0.01 / 0.29);
    assert_eq!(ds["within"], false);
    let opus = row(&d, "2026-11-02", "anthropic/claude-opus-5");
    assert!(
        opus["attribution"][0]
            .as_str()
            .unwrap()
            .contains("no 1-hour cache-write price"),
        "{opus}"
    );
    let (_, code) = json(&[&file, "--fail-above", "2%"]);
    assert_eq!(code, 1);
    let (_, code) = json(&[
        &f("openrouter-activity.json"),
        "--config-file",
        &f("fallcost.toml"),
        "--fail-above",
        "2%",
    ]);
    assert_eq!(code, 0);
}

/// Bad exports: one line naming the file, line and field, exit 2.
#[test]
fn bad_exports_name_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("fallcost-reconcile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "bad.csv",
            "date,model,uncached_input_tokens,output_tokens,billed\n2026-11-02,openai/gpt-6-sol,1,1,1\n",
            "bad.csv:1:1: billed: unknown column (did you mean `billed_usd`?)",
        ),
        (
            "day.csv",
            "date,model,uncached_input_tokens,output_tokens\n2026-13-02,openai/gpt-6-sol,1,1\n",
            "day.csv:2:1: date: \"2026-13-02\" is not a day",
        ),
        (
            "null-model.json",
            "{\"data\": [{\"object\": \"bucket\", \"start_time\": 0, \"end_time\": 86400, \"results\": [\n{\"object\": \"organization.usage.completions.result\", \"input_tokens\": 1, \"output_tokens\": 1, \"model\": null}]}], \"has_more\": false, \"next_page\": null}\n",
            "null-model.json:2:",
        ),
        (
            "cents.json",
            "{\"data\": [{\"starting_at\": \"2026-11-02T00:00:00Z\", \"ending_at\": \"2026-11-03T00:00:00Z\", \"results\": [\n{\"currency\": \"USD\", \"amount\": 12, \"cost_type\": \"tokens\", \"model\": \"claude-sonnet-5\"}]}], \"has_more\": false, \"next_page\": null}\n",
            "cents.json:2:",
        ),
    ];
    for (name, text, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let out = common::fallcost_in(&dir, &["reconcile", name, "--pricing", "2026-07"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
    }
    let out = common::fallcost_in(
        &dir,
        &["reconcile", "null-model.json", "--pricing", "2026-07"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("group_by=model"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// README's worked example: a Sonnet 5 → Sol chain through Anthropic's two-hour outage of
/// 2026-11-12. Every billed dollar is explained by the 2026-07 table, and the billed incident
/// excess (the day's bill less its requests at the other days' cost per request) is within 5%
/// of the premium fallcost predicts for the window ($9.54288: the window's 7,185.6 answered at
/// Sol's warm $0.0098, the 360 cold starts at $0.0162 and 360 fail-back writes at $0.0207, less
/// the 7,200 requests at Sonnet's $0.0103).
#[test]
fn worked_example_incident_excess_within_five_percent() {
    let (d, code) = json(&[
        "examples/reconcile/anthropic-usage.json",
        "examples/reconcile/anthropic-costs.json",
        "examples/reconcile/openai-usage.json",
        "examples/reconcile/openai-costs.json",
        "--scenario",
        "examples/reconcile/team.toml",
        "--incidents",
        "examples/reconcile/incidents.csv",
        "--fail-above",
        "2%",
    ]);
    assert_eq!(code, 0);
    close(&d["totals"]["explained_share"], 1.0);
    let s = &d["scenario"];
    close(&s["predicted_premium_usd"], 9.54288);
    let excess = s["billed_excess_usd"].as_f64().unwrap();
    let err = s["premium_error_share"].as_f64().unwrap();
    assert!((err - (9.54288 - excess) / excess).abs() < 1e-12);
    assert!(err.abs() < 0.05, "{err}");
    let day = s["days"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["day"] == "2026-11-12")
        .unwrap();
    // 79,200 − 158 on Sonnet (its output tokens / 400) + 158 + 7,186 on Sol
    close(&day["requests"], 86_386.0);
}

/// Rows with the same attribution share one footnote, numbered from 1 (OpenAI's usage against
/// Anthropic's costs: seven days of Sonnet 5 billed with no usage, one note, marked [1] seven
/// times; the numbers were the rows' own, [1], [3] … [13], the note repeated seven times).
#[test]
fn rows_with_the_same_attribution_share_one_footnote() {
    let out = fallcost(&[
        "reconcile",
        "examples/reconcile/openai-usage.json",
        "examples/reconcile/anthropic-costs.json",
        "--pricing",
        "2026-07",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8(out.stdout).unwrap();
    let notes: Vec<&str> = t.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(notes, ["[1] billed with no usage in the exports"], "{t}");
    assert_eq!(t.matches("[1]").count(), 8, "{t}");
    assert!(!t.contains("[2]") && !t.contains("[3]"), "{t}");
}
