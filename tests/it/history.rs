//! `fallcost compare --incidents FILE [--years N --seed S]` end to end (issue 14, items 3, 4, 6):
//! the replay against single-incident runs, the totals and per-year figures, the years'
//! reproducibility, the documents' keys, and bad inputs.

use crate::common;

use common::{fallcost, ok, root};
use serde_json::Value;

const SEPT3: &str = "scenarios/sept3.toml";
/// Three Anthropic incidents (1 h, 3h6m, 20 min) spanning exactly half a Julian year: first
/// start 2026-01-01T00:00Z, last end 2026-07-02T15:00Z = 181 + 1 days + 15 h = 182.625 days
/// = 15,778,800 s = 365.25 × 86,400 / 2.
const HALF_YEAR: &str = "tests/fixtures/history/anthropic-half-year.csv";

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).expect("JSON")
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// The incident rows of `compare` on sept3 with the shorthand outage (Anthropic down for the
/// whole window) lasting `duration`.
fn single(duration: &str) -> Vec<Value> {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--set",
        &format!("incident.duration={duration}"),
        "--format",
        "json",
    ]);
    doc["incident"].as_array().unwrap().clone()
}

#[test]
fn each_replayed_incident_is_compare_on_that_one_outage() {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        HALF_YEAR,
        "--format",
        "json",
    ]);
    let rows = doc["rows"].as_array().unwrap();
    // 3 windows × 2 chains × 4 patterns
    assert_eq!(rows.len(), 24);
    for (id, duration) in [(1, "1h"), (2, "3h6m"), (3, "20m")] {
        let expected = single(duration);
        let got: Vec<&Value> = rows
            .iter()
            .filter(|r| r["incident"].as_u64() == Some(id))
            .collect();
        assert_eq!(got.len(), expected.len(), "incident {id}");
        for (g, e) in got.iter().zip(&expected) {
            // every key of compare's incident row, the same value
            for (k, v) in e.as_object().unwrap() {
                assert_eq!(
                    &g[k], v,
                    "incident {id} ({duration}), {} {}: {k}",
                    e["chain"], e["pattern"]
                );
            }
            assert_eq!(g["providers"], serde_json::json!(["anthropic"]));
        }
    }
    // the post's figure: the 3h6m window on the price-matched chain, sequential
    let sept3 = rows
        .iter()
        .find(|r| {
            r["incident"] == 2 && r["chain"] == "price-matched" && r["pattern"] == "sequential"
        })
        .unwrap();
    assert_eq!(f(sept3, "total_usd"), 513.5832);
    assert_eq!(sept3["start"], "2026-03-10T13:10:00Z");
    assert_eq!(f(sept3, "duration_s"), 11_160.0);
}

#[test]
fn totals_add_the_rows_and_per_year_divides_by_the_span() {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        HALF_YEAR,
        "--format",
        "json",
    ]);
    assert_eq!(f(&doc["history"], "span_s"), 15_778_800.0);
    assert_eq!(f(&doc["history"], "span_years"), 0.5);
    let rows = doc["rows"].as_array().unwrap();
    let totals = doc["totals"].as_array().unwrap();
    let per_year = doc["per_year"].as_array().unwrap();
    assert_eq!(totals.len(), 8);
    for (t, y) in totals.iter().zip(per_year) {
        assert_eq!((&t["chain"], &t["pattern"]), (&y["chain"], &y["pattern"]));
        let of: Vec<&Value> = rows
            .iter()
            .filter(|r| r["chain"] == t["chain"] && r["pattern"] == t["pattern"])
            .collect();
        assert_eq!(t["incidents"], 3);
        for key in [
            "total_usd",
            "window_usd",
            "excess_usd",
            "failed_requests",
            "cold_starts",
        ] {
            let sum: f64 = of.iter().map(|r| f(r, key)).sum();
            assert!(
                (f(t, key) - sum).abs() < 1e-9 * sum.abs().max(1.0),
                "{key}: {t}"
            );
            // per year = total / 0.5 years
            assert!(
                (f(y, key) - 2.0 * f(t, key)).abs() < 1e-9 * sum.abs().max(1.0),
                "{key}: {y}"
            );
        }
    }
    // by hand, price-matched sequential: the windows are 3,600 + 11,160 + 1,200 = 15,960
    // requests; each fails over (every request pays Sol's 0.0348 warm price: 555.408), one
    // cold start per session (798 sessions, 0.0972 each: 77.5656) and one fail-back write
    // per session (0.1272 each: 101.5056): 734.4792 over the history, 1,468.9584 a year.
    let t = &totals[1];
    assert_eq!(
        (t["chain"].as_str(), t["pattern"].as_str()),
        (Some("price-matched"), Some("sequential"))
    );
    assert_eq!(f(t, "total_usd"), 734.4792);
    assert_eq!(f(t, "cold_starts"), 798.0);
    assert_eq!(f(&per_year[1], "total_usd"), 1468.9584);
    // no fallback fails every request of the three windows
    assert_eq!(f(&totals[0], "failed_requests"), 15_960.0);
}

fn years(seed: &str, threads: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "compare",
            "--scenario",
            SEPT3,
            "--incidents",
            HALF_YEAR,
            "--years",
            "20000",
            "--seed",
            seed,
            "--format",
            "json",
        ])
        .current_dir(root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn years_are_reproducible_by_seed_on_any_thread_count() {
    let one = years("7", "1");
    assert_eq!(one, years("7", "2"));
    assert_ne!(one, years("8", "1"));
    let doc: Value = serde_json::from_str(&one).unwrap();
    let y = &doc["years"];
    assert_eq!(y["model"], "poisson");
    assert_eq!(y["years"], 20_000);
    // 3 incidents in half a year: 6 a year
    assert_eq!(f(&y["rates"][0], "incidents_per_year"), 6.0);
    // price-matched sequential: E[premium] = 6 × the mean excess of the three incidents
    // (40.392 + 125.2152 + 13.464) / 3 = 59.6904 → 358.1424 a year; its 95% interval holds it.
    // The rate is drawn from Gamma(3, 6/3) each year: the variance of a year is
    // 6 × mean(x²) + Var(rate) × mean(x)² = 6 × 5,830.5 + 12 × 3,563 = 77,739 (sd 279), so the
    // half-width is 1.96 × 279 / √20,000 ≈ 3.9 (at the known rate: sd 187, ≈ 2.6)
    let row = y["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["chain"] == "price-matched" && r["pattern"] == "sequential")
        .unwrap();
    let ci = row["premium_mean_usd_ci95"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo < 358.1424 && 358.1424 < hi, "{row}");
    assert!((hi - lo - 2.0 * 3.86).abs() < 0.6, "{row}");
    let known = f(&row["rate_known"], "premium_mean_usd");
    assert!((known - 358.1424).abs() < 3.0 * 1.3, "{row}");
    assert_eq!(f(row, "availability"), 1.0);
    // no fallback: 6 a year × 5,320 requests (mean of 3,600, 11,160, 1,200) = 31,920 failed
    // of 31,557,600 requests a year
    let none = &y["rows"][0];
    assert_eq!(none["pattern"], "no-fallback");
    let failed = f(none, "failed_per_year");
    assert!((failed - 31_920.0).abs() < 31_920.0 * 0.03, "{none}");
    assert!((f(none, "availability") - (1.0 - failed / 31_557_600.0)).abs() < 1e-12);
}

#[test]
fn the_documents_have_stable_keys() {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        HALF_YEAR,
        "--years",
        "100",
        "--seed",
        "1",
        "--format",
        "json",
    ]);
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "fallcost_version",
            "history",
            "incidents",
            "notes",
            "per_year",
            "pricing",
            "rows",
            "scenario",
            "totals",
            "years"
        ]
    );
    let csv = ok(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        HALF_YEAR,
        "--format",
        "csv",
    ]);
    assert_eq!(
        csv.lines().next().unwrap(),
        "section,incident,name,providers,start,duration_s,chain,pattern,total_usd,normal_usd,multiplier,window_usd,cold_start_usd,failback_usd,failed_requests,wasted_attempts,wasted_usd,cold_starts,failback_writes,excess_usd,answered_requests,dead_time_mean_s,method,incidents,requests_per_year,premium_mean_usd,premium_mean_usd_ci95_lo,premium_mean_usd_ci95_hi,premium_p50_usd,premium_p95_usd,premium_p99_usd,failed_per_year,availability,nines,incidents_per_year,years_seed,approximate,simulated_precision,overlap_share,rate_known_premium_mean_usd,rate_known_premium_p50_usd,rate_known_premium_p95_usd,rate_known_premium_p99_usd,rate_known_availability,rate_limited_attempts,refused_requests"
    );
    // 24 incident rows, 8 totals, 8 per year
    assert_eq!(csv.lines().count(), 1 + 24 + 8 + 8);
    let row = csv
        .lines()
        .find(|l| l.starts_with("incident,2,") && l.contains(",price-matched,sequential,"))
        .unwrap();
    assert!(row.contains(",513.5832,388.368,"), "{row}");
}

#[test]
fn the_statuspage_example_reads() {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        "examples/history/anthropic-incidents.json",
        "--component",
        "Claude API",
        "--format",
        "json",
    ]);
    let inc = doc["incidents"].as_array().unwrap();
    // four incidents, one (claude.ai only) not on the Claude API component
    assert_eq!(inc.len(), 3);
    assert_eq!(
        inc[1]["name"],
        "Elevated errors on Claude API and claude.ai"
    );
    assert_eq!(inc[1]["start"], "2026-09-03T13:10:00Z");
    assert_eq!(f(&inc[1], "duration_s"), 11_160.0);
    // a minor incident: error rate 0.5 by default, settable
    assert_eq!(f(&inc[0]["outages"][0], "error_rate"), 0.5);
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        "examples/history/anthropic-incidents.json",
        "--component",
        "Claude API",
        "--minor-error-rate",
        "0.2",
        "--format",
        "json",
    ]);
    assert_eq!(f(&doc["incidents"][0]["outages"][0], "error_rate"), 0.2);
}

/// Exit 2 and the one-line error on standard error.
fn fails(args: &[&str]) -> String {
    let out = fallcost(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn bad_histories_exit_2_naming_file_line_and_field() {
    let e = fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        "tests/fixtures/history/typo.csv",
    ]);
    assert!(
        e.contains("tests/fixtures/history/typo.csv:3:1: provider: \"opneai\" is not the provider of any model of the scenario's chains (did you mean \"openai\"?)"),
        "{e}"
    );
    let e = fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        "examples/history/anthropic-incidents.json",
        "--component",
        "Claude APi",
    ]);
    assert!(e.contains("--component: no incident lists a component \"Claude APi\" (did you mean \"Claude API\"?)"), "{e}");
    let e = fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        "tests/fixtures/history/openai-open.json",
    ]);
    assert!(
        e.contains(
            "tests/fixtures/history/openai-open.json:15:7: resolved_at: 1 incident(s) still open"
        ),
        "{e}"
    );
    assert!(e.contains("--skip-open"), "{e}");
    // skipped when asked, and said so
    let doc = json(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        "tests/fixtures/history/openai-open.json",
        "--skip-open",
        "--format",
        "json",
    ]);
    assert_eq!(
        doc["history"]["skipped_open"],
        serde_json::json!(["Increased latency"])
    );
    let e = fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        "tests/fixtures/history/neither.txt",
    ]);
    assert!(
        e.contains("tests/fixtures/history/neither.txt:1:1: neither an incident history format"),
        "{e}"
    );
    let e = fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        "tests/fixtures/history/missing.csv",
    ]);
    assert!(e.contains("missing.csv"), "{e}");
    // a scenario without [incident] has no requests per second to replay at
    let e = fails(&[
        "compare",
        "-s",
        "scenarios/timeout.toml",
        "--incidents",
        HALF_YEAR,
    ]);
    assert!(e.contains("needs its [incident]"), "{e}");
    // --years needs --incidents; --seed needs --mc or --years
    fails(&["compare", "-s", SEPT3, "--years", "10"]);
    fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        HALF_YEAR,
        "--seed",
        "1",
    ]);
}

/// The README's "Reading an incident history" output is what the binary prints, line for line.
#[test]
fn readme_history_example_is_real() {
    let readme = crate::common::docs();
    let block = readme
        .split("$ fallcost compare --scenario scenarios/sept3.toml --chain price-matched \\\n")
        .nth(1)
        .expect("the README shows the history example");
    // the command's continuation lines, then the output up to the fence
    let shown: String = block
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with("```"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = ok(&[
        "compare",
        "--scenario",
        SEPT3,
        "--chain",
        "price-matched",
        "--incidents",
        "examples/history/anthropic-incidents.json",
        "--incidents",
        "examples/history/openai-monitoring.csv",
        "--component",
        "Claude API",
        "--years",
        "100000",
        "--seed",
        "1",
    ]);
    assert!(shown.lines().count() > 100, "{shown}");
    assert_eq!(shown, out);
}

/// The example's September 3 window: OpenAI's 34 minutes (the CSV) inside Anthropic's 3h6m (the
/// page) are one window, priced as one timeline; an OpenAI-only incident costs a chain whose
/// primary is up nothing beyond its normal bill.
#[test]
fn overlapping_incidents_are_one_window() {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--incidents",
        "examples/history/anthropic-incidents.json",
        "--incidents",
        "examples/history/openai-monitoring.csv",
        "--component",
        "Claude API",
        "--format",
        "json",
    ]);
    let w = &doc["incidents"][1];
    assert_eq!(w["providers"], serde_json::json!(["anthropic", "openai"]));
    assert_eq!(f(w, "duration_s"), 11_160.0);
    // OpenAI from 14:10: 3,600 s into the window, for 2,040 s
    assert_eq!(f(&w["outages"][1], "start_s"), 3600.0);
    assert_eq!(f(&w["outages"][1], "duration_s"), 2040.0);
    let row = |id: u64, pattern: &str| -> Value {
        doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["incident"] == id && r["chain"] == "price-matched" && r["pattern"] == pattern
            })
            .unwrap()
            .clone()
    };
    // by hand (docs/MODEL.md §6, "Timelines"): Sol answers 11,160 − 2,040 = 9,120 requests at
    // 0.0348 = 317.376; 558 − (2,040 − 19)/20 = 456.95 sessions have a request Sol answers: as
    // many cold starts at 0.0972 = 44.41554 and fail-back writes at 0.1272 = 58.12404:
    // 419.91558, 2,040 failed
    let seq = row(2, "sequential");
    assert!((f(&seq, "total_usd") - 419.91558).abs() < 1e-6, "{seq}");
    assert_eq!(f(&seq, "failed_requests"), 2040.0);
    assert!((f(&seq, "cold_starts") - 456.95).abs() < 1e-6, "{seq}");
    // OpenAI alone for 25 min (gray, 30%): Sonnet answers all 1,500 requests at 0.0348 = 52.2
    let openai = row(3, "sequential");
    assert_eq!(
        doc["incidents"][2]["providers"],
        serde_json::json!(["openai"])
    );
    assert_eq!(f(&openai, "total_usd"), 52.2);
    assert_eq!(f(&openai, "excess_usd"), 0.0);
    assert_eq!(f(&openai, "failed_requests"), 0.0);
}

/// The document follows `schemas/history.schema.json` (strict: every row key required, no key
/// unwritten), with and without `--years`, and the schema is not a rubber stamp.
#[test]
fn the_json_follows_its_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/history.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    for extra in [
        &[][..],
        &["--years", "50", "--seed", "3", "--cluster", "2"][..],
    ] {
        let mut args = vec![
            "compare",
            "--scenario",
            SEPT3,
            "--incidents",
            "examples/history/anthropic-incidents.json",
            "--incidents",
            "examples/history/openai-monitoring.csv",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let doc = json(&args);
        let errors: Vec<String> = v
            .iter_errors(&doc)
            .take(5)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{extra:?}:\n{}", errors.join("\n"));
        let mut bad = doc.clone();
        bad["rows"][0].as_object_mut().unwrap().remove("providers");
        assert!(!v.is_valid(&bad));
    }
}

/// The years resample the replay's windows whole, overlaps included: their mean failed requests
/// and premium per year are the replay's per-year figures (rate × mean over the windows = total
/// / span), so a two-provider chain's failures while both were down (September 3's 2,040) are
/// in its availability, not lost. 1e5 years: the standard error of failed/yr is about 28
/// (2,040 × √(3.9 + 3.9²) / √1e5: the rate of a set seen once is drawn from Gamma(1)),
/// against a 2% tolerance of 160.
#[test]
fn the_years_keep_the_historys_overlaps() {
    let doc = json(&[
        "compare",
        "--scenario",
        SEPT3,
        "--chain",
        "price-matched",
        "--incidents",
        "examples/history/anthropic-incidents.json",
        "--incidents",
        "examples/history/openai-monitoring.csv",
        "--component",
        "Claude API",
        "--years",
        "100000",
        "--seed",
        "7",
        "--format",
        "json",
    ]);
    let pick = |rows: &Value| -> Value {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["chain"] == "price-matched" && r["pattern"] == "sequential")
            .unwrap()
            .clone()
    };
    let per_year = pick(&doc["per_year"]);
    let years = pick(&doc["years"]["rows"]);
    let (want, got) = (
        f(&per_year, "failed_requests"),
        f(&years, "failed_per_year"),
    );
    // September 3's 2,040 (a window of both providers) over the time both files cover:
    // the Anthropic page's 2026-07-14 09:50 to 2026-10-02 09:30 (79.986 days), inside the
    // CSV's 2026-07-01 to 2026-10-02 09:30, not the union's 93.396 days
    assert!(
        (want - 2040.0 * 365.25 / (80.0 - 20.0 / 1440.0)).abs() < 0.01,
        "{want}"
    );
    assert!((got / want - 1.0).abs() < 0.02, "failed/yr {got} vs {want}");
    let (want, got) = (f(&per_year, "excess_usd"), f(&years, "premium_mean_usd"));
    assert!(
        (got / want - 1.0).abs() < 0.02,
        "premium/yr {got} vs {want}"
    );
    assert!(f(&years, "availability") < 1.0);
}

/// A scratch directory of this test binary, emptied.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fallcost-history-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rows_of<'a>(doc: &'a Value, section: &str) -> &'a Vec<Value> {
    doc[section].as_array().unwrap()
}

/// Issue 21 item 7: a window where two providers' incidents overlap is a timeline with cuts;
/// `compare` on a scenario with that timeline labels its analytic rows approximate, and so
/// must the replay (it said `false`), its totals and per-year rows, and its CSV.
#[test]
fn replayed_rows_are_labelled_as_compare_labels_the_same_window() {
    let dir = scratch("labels");
    let csv = dir.join("h.csv");
    std::fs::write(
        &csv,
        "provider,start,end,failure,error_rate\n\
         anthropic,2026-09-03T13:10:00Z,2026-09-03T16:16:00Z,fast,\n\
         openai,2026-09-03T14:10:00Z,2026-09-03T14:44:00Z,fast,\n",
    )
    .unwrap();
    let scenario = dir.join("window.toml");
    let sept3 = std::fs::read_to_string(root().join(SEPT3)).unwrap();
    std::fs::write(
        &scenario,
        format!(
            "{sept3}\n[[incident.outage]]\nprovider = \"anthropic\"\n\n[[incident.outage]]\nprovider = \"openai\"\nstart = \"1h\"\nduration = \"34m\"\n"
        ),
    )
    .unwrap();
    let single = json(&[
        "compare",
        "-s",
        scenario.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let doc = json(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        csv.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let rows = rows_of(&doc, "rows");
    let expected = rows_of(&single, "incident");
    assert_eq!(rows.len(), expected.len());
    for (r, e) in rows.iter().zip(expected) {
        assert_eq!((&r["chain"], &r["pattern"]), (&e["chain"], &e["pattern"]));
        assert_eq!(e["approximate"], true, "{e}");
        assert_eq!(r["approximate"], e["approximate"], "{r}");
        assert_eq!(r["total_usd"], e["total_usd"], "{r}");
    }
    for section in ["totals", "per_year"] {
        for t in rows_of(&doc, section) {
            assert_eq!(t["approximate"], true, "{section}: {t}");
            assert_eq!(t["method"], "analytic", "{section}: {t}");
        }
    }
    let out = ok(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        csv.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let header: Vec<&str> = out.lines().next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "approximate").unwrap();
    assert!(at > header.iter().position(|h| *h == "years_seed").unwrap());
    for line in out.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[at], "true", "{line}");
    }
    let table = ok(&["compare", "-s", SEPT3, "--incidents", csv.to_str().unwrap()]);
    assert!(table.contains("≈ 419.92"), "{table}");
}

/// Issue 21 item 7: with a circuit breaker the figures are the incident simulator's; every
/// row, total, per-year and years row says so, with its precision, and the table prints it.
#[test]
fn a_breakers_figures_are_labelled_simulated_everywhere() {
    let dir = scratch("breaker");
    let csv = dir.join("h.csv");
    std::fs::write(
        &csv,
        "# period: 2026-01-01T00:00:00Z/2027-01-01T00:00:00Z\n\
         provider,start,end,failure,error_rate\n\
         anthropic,2026-09-03T13:10:00Z,2026-09-03T13:40:00Z,fast,\n",
    )
    .unwrap();
    let args = [
        "compare",
        "-s",
        "scenarios/policies.toml",
        "--chain",
        "simple",
        "--incidents",
        csv.to_str().unwrap(),
        "--years",
        "200",
        "--seed",
        "1",
    ];
    let mut j = args.to_vec();
    j.extend(["--format", "json"]);
    let doc = json(&j);
    let rows = rows_of(&doc, "rows");
    let precision = |v: &Value| v["simulated_precision"].as_f64().unwrap();
    let largest = rows.iter().map(precision).fold(0.0, f64::max);
    assert!(largest > 0.0);
    for r in rows {
        assert_eq!(r["method"], "simulated", "{r}");
    }
    for section in ["totals", "per_year"] {
        for t in rows_of(&doc, section) {
            assert_eq!(t["method"], "simulated", "{section}: {t}");
            // one window: its precision
            let own = rows
                .iter()
                .find(|r| r["pattern"] == t["pattern"])
                .map(precision)
                .unwrap();
            assert_eq!(precision(t), own, "{section}: {t}");
        }
    }
    for y in rows_of(&doc["years"], "rows") {
        assert_eq!(y["method"], "simulated", "{y}");
        // the bill's precision: 0 where every window bills the same (no-fallback here)
        let p = precision(y);
        assert!((0.0..=0.01).contains(&p), "{y}");
    }
    let table = ok(&args);
    // every figure row of the per-incident, totals and per-year tables: `sim 12.34 ±0.81%`
    let marked = table
        .lines()
        .filter(|l| l.contains("sim ") && l.contains('±') && l.contains('%'))
        .count();
    assert!(marked >= 3 * 4, "{table}");
    assert!(table.contains("(4.5 standard errors"), "{table}");
}

/// A Statuspage page whose `--component` keeps two incidents 22 days apart, and which covers
/// 2026-01-05 (its earliest incident) to its `updated_at`, 2026-12-31: 360 days.
const TWO_IN_A_YEAR: &str = r#"{"page": {"name": "Anthropic", "url": "https://status.anthropic.com",
  "updated_at": "2026-12-31T00:00:00Z"},
 "incidents": [
  {"name": "c", "impact": "major", "created_at": "2026-03-23T10:00:00Z",
   "resolved_at": "2026-03-23T11:00:00Z", "components": [{"name": "Claude API"}]},
  {"name": "b", "impact": "major", "created_at": "2026-03-01T10:00:00Z",
   "resolved_at": "2026-03-01T11:00:00Z", "components": [{"name": "Claude API"}]},
  {"name": "a", "impact": "minor", "created_at": "2026-01-05T00:00:00Z",
   "resolved_at": "2026-01-05T02:00:00Z", "components": [{"name": "claude.ai"}]}
 ]}"#;

/// Issue 21 item 8: the period is the page's coverage, not first-to-last kept incident (which
/// read 2 incidents in 22 days + 1 h as 33.14 a year); the rate carries its exact interval,
/// and so few incidents are said to be few.
#[test]
fn the_period_is_what_the_page_covers_and_the_rate_has_its_interval() {
    let dir = scratch("period");
    let page = dir.join("a.json");
    std::fs::write(&page, TWO_IN_A_YEAR).unwrap();
    let page = page.to_str().unwrap();
    let base = [
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        page,
        "--component",
        "Claude API",
    ];
    let mut args = base.to_vec();
    args.extend(["--format", "json"]);
    let doc = json(&args);
    let h = &doc["history"];
    assert_eq!(h["start"], "2026-01-05T00:00:00Z");
    assert_eq!(h["end"], "2026-12-31T00:00:00Z");
    assert_eq!(f(h, "span_s"), 360.0 * 86_400.0);
    assert_eq!(h["coverage"][0]["source"], "page updated_at");
    let rate = &h["rates"][0];
    // 2 / (360 / 365.25) = 2.0292; Gamma(2, 1)'s 95% [0.24217, 5.5716] × 365.25 / 360
    assert!(
        (f(rate, "incidents_per_year") - 2.029_167).abs() < 1e-6,
        "{rate}"
    );
    let ci = rate["incidents_per_year_ci95"].as_array().unwrap();
    assert!((ci[0].as_f64().unwrap() - 0.245_70).abs() < 1e-4, "{rate}");
    assert!((ci[1].as_f64().unwrap() - 5.6528).abs() < 1e-3, "{rate}");
    // per year = totals × 365.25 / 360 (not × 365.25 / 22.04)
    for (t, y) in rows_of(&doc, "totals")
        .iter()
        .zip(rows_of(&doc, "per_year"))
    {
        let want = f(t, "excess_usd") * 365.25 / 360.0;
        assert!(
            (f(y, "excess_usd") - want).abs() < 1e-6 * want.abs().max(1.0),
            "{y}"
        );
    }
    let notes = doc["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().starts_with(
                "anthropic: only 2 incidents in the history, too few to estimate a rate"
            )),
        "{notes:?}"
    );
    // --since/--until set the period; an incident outside it is left out
    let mut args = base.to_vec();
    args.extend([
        "--since",
        "2026-03-10T00:00:00Z",
        "--until",
        "2026-04-09T00:00:00Z",
        "--format",
        "json",
    ]);
    let doc = json(&args);
    assert_eq!(f(&doc["history"], "span_s"), 30.0 * 86_400.0);
    assert_eq!(doc["history"]["coverage"][0]["source"], "since-until");
    assert_eq!(doc["incidents"].as_array().unwrap().len(), 1);
}

/// Issue 21 item 8: one incident in a CSV that states a year is 1 a year (it read 8,766 a
/// year, the period of the incident itself), and the years' availability is never below 0:
/// even without a stated period (two one-hour incidents in three hours: 5,844 one-hour windows
/// a year), drawn windows that overlap merge, so a year fails at most its own requests. (One
/// incident without a period is refused: issue 33 item 2, below.)
#[test]
fn one_incident_is_one_a_year_and_availability_stays_in_range() {
    let dir = scratch("one");
    let stated = dir.join("stated.csv");
    std::fs::write(
        &stated,
        "# period: 2026-01-01T00:00:00Z/2027-01-01T00:00:00Z\n\
         provider,start,end,failure,error_rate\n\
         anthropic,2026-09-03T13:00:00Z,2026-09-03T14:00:00Z,fast,\n",
    )
    .unwrap();
    let bare = dir.join("bare.csv");
    std::fs::write(
        &bare,
        "provider,start,end,failure,error_rate\n\
         anthropic,2026-09-03T13:00:00Z,2026-09-03T14:00:00Z,fast,\n\
         anthropic,2026-09-03T15:00:00Z,2026-09-03T16:00:00Z,fast,\n",
    )
    .unwrap();
    let run = |file: &std::path::Path| {
        json(&[
            "compare",
            "-s",
            SEPT3,
            "--incidents",
            file.to_str().unwrap(),
            "--years",
            "2000",
            "--seed",
            "5",
            "--format",
            "json",
        ])
    };
    let doc = run(&stated);
    let rate = &doc["history"]["rates"][0];
    // 1 incident in 365 days: 1.00068 a year, Gamma(1, 1)'s 95% [0.025318, 3.6889] × 365.25/365
    assert!(
        (f(rate, "incidents_per_year") - 365.25 / 365.0).abs() < 1e-9,
        "{rate}"
    );
    let none = &doc["years"]["rows"][0];
    assert_eq!(none["pattern"], "no-fallback");
    // about one hour of 8,766 fails: availability ≈ 1 − 1/8,766
    let a = f(none, "availability");
    assert!(a > 0.999 && a < 1.0, "{none}");
    let doc = run(&bare);
    assert_eq!(doc["history"]["coverage"][0]["source"], "incidents");
    assert!(
        doc["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("states no period")),
        "{}",
        doc["notes"]
    );
    for y in rows_of(&doc["years"], "rows") {
        for a in [f(y, "availability"), f(&y["rate_known"], "availability")] {
            assert!((0.0..=1.0).contains(&a), "{y}");
        }
    }
    // at a known 5,844 one-hour windows a year (2/3 of a year's hours, drawn at random),
    // 1 − e^{−2/3} of the year is down: no-fallback availability ≈ e^{−2/3}
    let none = &rows_of(&doc["years"], "rows")[0];
    let a = f(&none["rate_known"], "availability");
    assert!((a - (-2.0f64 / 3.0).exp()).abs() < 0.01, "{none}");
}

/// Issue 21 item 10: Anthropic's page is status.claude.com (named "Claude"), which read as a
/// provider "claude" and exited 2; its incidents may give `started_at` alone.
#[test]
fn claudes_status_page_is_anthropics() {
    let dir = scratch("claude");
    let page = dir.join("claude.json");
    std::fs::write(
        &page,
        r#"{"page": {"name": "Claude", "url": "https://status.claude.com", "updated_at": "2026-12-01T00:00:00Z"},
 "incidents": [
  {"name": "Elevated errors", "impact": "major", "started_at": "2026-09-03T13:10:00Z",
   "resolved_at": "2026-09-03T16:16:00Z", "components": [{"name": "Claude API"}]}
 ]}"#,
    )
    .unwrap();
    let doc = json(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        page.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(
        doc["history"]["providers"],
        serde_json::json!(["anthropic"])
    );
    let sept3 = rows_of(&doc, "rows")
        .iter()
        .find(|r| r["chain"] == "price-matched" && r["pattern"] == "sequential")
        .unwrap();
    assert_eq!(f(sept3, "total_usd"), 513.5832);
}

/// Issue 21 item 7: a sweep of a timeline scenario says its incident figures are
/// approximate, as `compare` says of each point (it carried no flag).
#[test]
fn a_sweep_of_a_timeline_says_approximate() {
    let args = [
        "sweep",
        "-s",
        "scenarios/sept3-timeline.toml",
        "--param",
        "steady.failure_rate=0:0.1:0.1",
    ];
    let mut j = args.to_vec();
    j.extend(["--format", "json"]);
    let doc = json(&j);
    let single = json(&[
        "compare",
        "-s",
        "scenarios/sept3-timeline.toml",
        "--format",
        "json",
    ]);
    let rows = rows_of(&doc, "rows");
    assert!(!rows.is_empty());
    for r in rows {
        let c = rows_of(&single, "incident")
            .iter()
            .find(|c| c["chain"] == r["chain"] && c["pattern"] == r["pattern"])
            .unwrap();
        assert_eq!(r["incident_approximate"], c["approximate"], "{r}");
        assert_eq!(r["incident_approximate"], true, "{r}");
    }
    let mut c = args.to_vec();
    c.extend(["--format", "csv"]);
    let csv = ok(&c);
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with(
            ",incident_approximate,incident_rate_limited_attempts,incident_refused_requests"
        ),
        "{header}"
    );
    assert!(
        csv.lines().skip(1).all(|l| l.ends_with(",true,0,0")),
        "{csv}"
    );
    assert!(ok(&args).contains("≈ approximate incident figures"));
}

/// Issue 33 item 2: with `--incidents anthropic.json --incidents openai-year.csv`, each
/// provider's rate is over its own file's period, not the union of both (2026-01-01 to
/// 2027-01-01, which read Anthropic's 3 incidents of 20.7 days as 3.0 a year, its interval
/// [0.62, 8.77] far from the 52.87 its page alone gives). The page covers 2026-08-20T09:00 to
/// 2026-09-10T02:25 = 1,790,700 s; the CSV states 365 days = 31,536,000 s.
#[test]
fn each_file_keeps_its_own_period() {
    const PAGE: &str = "tests/fixtures/history/anthropic.json";
    const CSV: &str = "tests/fixtures/history/openai-year.csv";
    let (year, t_a, t_o) = (31_557_600.0, 1_790_700.0, 31_536_000.0);
    let run = |files: &[&str], years: bool| {
        let mut args = vec!["compare", "-s", SEPT3];
        for file in files {
            args.extend(["--incidents", file]);
        }
        if years {
            args.extend(["--years", "20000", "--seed", "4"]);
        }
        args.extend(["--format", "json"]);
        json(&args)
    };
    let rate = |doc: &Value, p: &str| -> Value {
        rows_of(&doc["history"], "rates")
            .iter()
            .find(|r| r["provider"] == p)
            .unwrap_or_else(|| panic!("{p} in {}", doc["history"]))
            .clone()
    };
    let both = run(&[PAGE, CSV], true);
    let page = run(&[PAGE], false);
    let csv = run(&[CSV], false);
    for (p, alone, n, period) in [("anthropic", &page, 3.0, t_a), ("openai", &csv, 2.0, t_o)] {
        let r = rate(&both, p);
        // hand-computed: 3 × 31,557,600 / 1,790,700 = 52.869; 2 × 365.25 / 365 = 2.0014
        let want = n * year / period;
        assert!(
            (f(&r, "incidents_per_year") - want).abs() < 1e-9 * want,
            "{r}"
        );
        assert!((f(&r, "period_years") - period / year).abs() < 1e-11, "{r}");
        // what the file alone gives, to the digit, and its printed interval holds it
        assert_eq!(r, rate(alone, p), "{p}");
        let ci = r["incidents_per_year_ci95"].as_array().unwrap();
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!(lo < want && want < hi, "{r}");
    }
    assert!((f(&rate(&both, "anthropic"), "incidents_per_year") - 52.869157).abs() < 1e-6);
    // per year: each window over the period its providers were observed: Aug 20, Sept 3
    // (with OpenAI's 14:10-14:44: both files cover it, the page's period is the overlap) and
    // Sept 10 over the page's; Nov 20 (OpenAI alone) over the CSV's year
    let windows = rows_of(&both, "incidents");
    assert_eq!(windows.len(), 4);
    let providers: Vec<&Value> = windows.iter().map(|w| &w["providers"]).collect();
    assert_eq!(
        providers,
        [
            &serde_json::json!(["anthropic"]),
            &serde_json::json!(["anthropic", "openai"]),
            &serde_json::json!(["anthropic"]),
            &serde_json::json!(["openai"]),
        ]
    );
    let over = [t_a, t_a, t_a, t_o];
    let rows = rows_of(&both, "rows");
    for y in rows_of(&both, "per_year") {
        let of = rows
            .iter()
            .filter(|r| r["chain"] == y["chain"] && r["pattern"] == y["pattern"]);
        let want: f64 = of
            .map(|r| f(r, "total_usd") * year / over[r["incident"].as_u64().unwrap() as usize - 1])
            .sum();
        assert!(
            (f(y, "total_usd") - want).abs() < 1e-9 * want.max(1.0),
            "{y}"
        );
    }
    // the years: each set of providers at its windows over its period
    let years = rows_of(&both["years"], "rates");
    let got: Vec<(&str, u64, f64)> = years
        .iter()
        .map(|r| {
            (
                r["provider"].as_str().unwrap(),
                r["incidents"].as_u64().unwrap(),
                f(r, "incidents_per_year"),
            )
        })
        .collect();
    let want = [
        ("anthropic", 2, 2.0 * year / t_a),
        ("anthropic + openai", 1, year / t_a),
        ("openai", 1, year / t_o),
    ];
    assert_eq!(got.len(), 3, "{got:?}");
    for ((p, n, r), (wp, wn, wr)) in got.iter().zip(want) {
        assert_eq!((*p, *n), (wp, wn));
        assert!((r - wr).abs() < 1e-9 * wr, "{p}: {r} against {wr}");
    }
    // the note says so
    assert!(
        rows_of(&both, "notes").iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("divided by the period of the files they came from")),
        "{}",
        both["notes"]
    );
}

/// Issue 33 item 2: one incident in a file that states no period was its own period (one
/// 3h6m incident, 2,828 a year); refused, saying how to state it, for a CSV and for a page
/// without `updated_at`. With a period it reads.
#[test]
fn one_incident_without_a_period_is_refused_saying_how_to_state_it() {
    let dir = scratch("lone");
    let csv = dir.join("lone.csv");
    std::fs::write(
        &csv,
        "provider,start,end,failure,error_rate\n\
         anthropic,2026-09-03T13:10:00Z,2026-09-03T16:16:00Z,fast,\n",
    )
    .unwrap();
    let e = fails(&["compare", "-s", SEPT3, "--incidents", csv.to_str().unwrap()]);
    assert!(
        e.contains("lone.csv:2:1: period: the file holds one incident and states no period, so its period would be the incident's own 3h6m (2026-09-03T13:10:00Z to 2026-09-03T16:16:00Z) and its rate 2,828 a year; add a first line `# period: START/END`"),
        "{e}"
    );
    assert!(e.contains("or give --since and --until"), "{e}");
    let page = dir.join("lone.json");
    std::fs::write(
        &page,
        r#"{"page": {"name": "Anthropic", "url": "https://status.anthropic.com"},
 "incidents": [
  {"name": "a", "impact": "major", "started_at": "2026-09-03T13:10:00Z",
   "resolved_at": "2026-09-03T16:16:00Z", "components": []}
 ]}"#,
    )
    .unwrap();
    let e = fails(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        page.to_str().unwrap(),
    ]);
    assert!(
        e.contains("lone.json:3:1: period: the file holds one incident and states no period")
            && e.contains("the page has no updated_at to end its period: give --since and --until"),
        "{e}"
    );
    // the period given: one incident in 30 days, 12.175 a year
    let doc = json(&[
        "compare",
        "-s",
        SEPT3,
        "--incidents",
        csv.to_str().unwrap(),
        "--since",
        "2026-09-01T00:00:00Z",
        "--until",
        "2026-10-01T00:00:00Z",
        "--format",
        "json",
    ]);
    let r = &doc["history"]["rates"][0];
    assert!(
        (f(r, "incidents_per_year") - 365.25 / 30.0).abs() < 1e-9,
        "{r}"
    );
}
