//! `fallcost calibrate` on dirty logs (issue 24, items 4 to 6): every figure is right, or the
//! record that would make it wrong is counted, named and left out, or the run refuses (exit 2,
//! naming file and line). Logs come from the seeded generator (`tests/it/common/loggen.rs`) with
//! one defect planted in each.

use crate::common;
use crate::common::loggen;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use common::fallcost;
use loggen::Truth;

const N: u64 = 2000;

fn path(name: &str, file: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("calibrate-dirty")
        .join(name);
    std::fs::create_dir_all(&d).unwrap();
    d.join(file)
}

fn write(name: &str, file: &str, bytes: &[u8]) -> PathBuf {
    let p = path(name, file);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn otlp(t: &Truth, n: u64, seed: u64) -> Vec<u8> {
    let mut v = Vec::new();
    loggen::write_otlp(t, n, seed, &mut v);
    v
}

/// Calibrate `logs` with `extra`: (exit code, scenario text, standard error).
fn run(logs: &[&Path], extra: &[&str]) -> (i32, String, String) {
    let out = logs[0].with_extension("scenario.toml");
    let _ = std::fs::remove_file(&out);
    let mut args = vec!["calibrate"];
    args.extend(logs.iter().map(|p| p.to_str().unwrap()));
    args.extend_from_slice(&["-o", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let r = fallcost(&args);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&r.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    if r.status.success() {
        let parsed: Result<toml::Value, _> = toml::from_str(&text);
        assert!(
            parsed.is_ok(),
            "the scenario must parse: {parsed:?}\n{text}"
        );
        // calibrate → compare with no edit, whenever every model has a price.
        if !text.contains("# TODO: price table") {
            let c = fallcost(&["compare", "--scenario", out.to_str().unwrap()]);
            assert!(
                c.status.success(),
                "compare refused the calibrated scenario: {}\n{text}",
                String::from_utf8_lossy(&c.stderr)
            );
        }
    }
    (r.status.code().unwrap_or(-1), text, stderr)
}

fn value(text: &str, path: &[&str]) -> f64 {
    let v: toml::Value = toml::from_str(text).unwrap();
    let mut v = &v;
    for k in path {
        v = &v[*k];
    }
    v.as_float()
        .or_else(|| v.as_integer().map(|i| i as f64))
        .unwrap()
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Item 4: one failure lasting 3,600 s does not move the timeout (a location: the cluster's
/// own window); one stray timestamp does not move the request rate; one span with 1e12 output
/// tokens is impossible, counted and left out.
#[test]
fn one_outlier_moves_no_figure() {
    let t = Truth {
        timeout_s: 20.0,
        ..Truth::default()
    };
    let mut l = lines(&otlp(&t, N, 51));
    let (_, clean, _) = run(
        &[&write("outliers", "clean.jsonl", l.join("\n").as_bytes())],
        &[],
    );
    // A 3,600 s failure, a request in 2001 and one with 1e12 output tokens.
    let long = l[5]
        .replace("\"code\":1}", "\"code\":2}")
        .replace("\"endTimeUnixNano\":\"", "\"endTimeUnixNano\":\"3");
    let stray = l[6].replace(
        "\"startTimeUnixNano\":\"1784",
        "\"startTimeUnixNano\":\"1000",
    );
    let huge = l[7].replace(
        "\"gen_ai.usage.output_tokens\",\"value\":{\"intValue\":\"",
        "\"gen_ai.usage.output_tokens\",\"value\":{\"intValue\":\"1000000000000",
    );
    assert!(long != l[5] && stray != l[6] && huge != l[7]);
    (l[5], l[6], l[7]) = (long, stray, huge);
    let log = write("outliers", "dirty.jsonl", l.join("\n").as_bytes());
    let (code, text, stderr) = run(&[&log], &[]);
    assert_eq!(code, 0, "{stderr}");
    let timeout = value(&text, &["policy", "timeout_s"]);
    assert!(
        (timeout - 20.025).abs() < 0.05,
        "timeout_s {timeout}: {text}"
    );
    let rps = value(&text, &["incident", "requests_per_second"]);
    let rps0 = value(&clean, &["incident", "requests_per_second"]);
    assert!(
        (rps / rps0 - 1.0).abs() < 0.01,
        "rate {rps} vs {rps0} clean"
    );
    let out = value(&text, &["request", "output_tokens"]);
    assert!((200.0..=600.0).contains(&out), "output_tokens {out}");
    assert!(
        text.contains(":8: impossible output token count (above 100,000,000)"),
        "{text}"
    );
}

/// Item 4: times in milliseconds where OTLP requires nanoseconds are refused, by the first
/// line (issue 34: a file of them; one stray span is one unreadable record, in
/// `calibrate_real.rs`).
#[test]
fn otlp_times_in_milliseconds_are_refused_with_the_line() {
    let mut l = lines(&otlp(&Truth::default(), 20, 52));
    /// Cut 6 digits off each time: nanoseconds to milliseconds.
    fn ms(s: &str) -> String {
        let mut out = String::new();
        for (i, part) in s.split("UnixNano\":\"").enumerate() {
            if i == 0 {
                out.push_str(part);
                continue;
            }
            let digits = part.find('"').unwrap();
            out.push_str("UnixNano\":\"");
            out.push_str(&part[..digits - 6]);
            out.push_str(&part[digits..]);
        }
        out
    }
    for line in l.iter_mut().skip(4) {
        *line = ms(line);
    }
    // Lines 1 to 4 are gone (one request each): every span left is in milliseconds.
    let log = write("ms", "ms.jsonl", l[4..].join("\n").as_bytes());
    let (code, _, stderr) = run(&[&log], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("ms.jsonl:1:1: startTimeUnixNano: ") && stderr.contains("another unit"),
        "{stderr}"
    );
}

/// Item 4: below about 100 successes a p99's interval does not collapse to a point.
#[test]
fn a_p99_from_few_successes_has_no_upper_end_in_words() {
    let log = write("few", "few.jsonl", &otlp(&Truth::default(), 40, 53));
    let (code, text, _) = run(&[&log], &[]);
    assert_eq!(code, 0);
    assert!(
        text.contains("p99 95% CI [") && text.contains("too few values to bound above] s"),
        "{text}"
    );
}

/// Item 5: a span given twice, and a file given twice, are counted once and reported.
#[test]
fn duplicate_spans_and_files_are_counted_once() {
    let base = otlp(&Truth::default(), N, 54);
    let one = write("dups", "one.jsonl", &base);
    let (_, clean, _) = run(&[&one], &[]);
    let mut l = lines(&base);
    l.insert(10, l[9].clone());
    let log = write("dups", "twice.jsonl", l.join("\n").as_bytes());
    let copy = write("dups", "copy.jsonl", l.join("\n").as_bytes());
    let (code, text, stderr) = run(&[&log, &copy], &[]);
    assert_eq!(code, 0, "{stderr}");
    let attempts = |t: &str| {
        let s = t.split(" attempts in ").next().unwrap();
        s.rsplit("# ").next().unwrap().replace(',', "")
    };
    assert_eq!(attempts(&text), attempts(&clean), "{text}");
    assert!(text.contains("counted once (first at "), "{text}");
    assert!(text.contains("copy.jsonl: the same as "), "{text}");
    assert!(stderr.contains("the same file as"), "{stderr}");
}

/// Item 5: LiteLLM rows in an OTLP file are unreadable lines; a bad element of a LiteLLM
/// array does not drop the rest; a truncated first OTLP line is one unreadable line.
#[test]
fn foreign_lines_bad_elements_and_a_truncated_first_line_are_one_record_each() {
    let t = Truth::default();
    let mut l = lines(&otlp(&t, 100, 55));
    let row = &loggen::litellm_rows(&t, &loggen::requests(&t, 1, 1)[0])[0];
    l.insert(3, row.clone());
    l[0].truncate(200);
    let log = write("foreign", "mixed.jsonl", l.join("\n").as_bytes());
    let (code, text, _) = run(&[&log], &[]);
    assert_eq!(code, 0);
    assert!(text.contains("(otlp): "), "{text}");
    assert!(text.contains(", 2 unreadable"), "{text}");
    assert!(
        text.contains("mixed.jsonl:1: not an OTLP/JSON export"),
        "{text}"
    );
    assert!(
        text.contains("mixed.jsonl:4: not an OTLP/JSON export (no `resourceSpans`"),
        "{text}"
    );
    let mut arr = Vec::new();
    loggen::write_litellm(&t, 300, 56, "array", &mut arr);
    let text_arr = String::from_utf8(arr).unwrap();
    let rows = text_arr.matches("\"request_id\"").count();
    let bad = text_arr.replacen(
        "\"startTime\":\"2026",
        "\"startTime\":[1,2],\"x\":\"2026",
        1,
    );
    let log = write("foreign", "spend.json", bad.as_bytes());
    let (code, text, stderr) = run(&[&log], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains(&format!("{} records, 1 unreadable", rows - 1)),
        "{rows} rows: {text}"
    );
}

/// Item 5: an unbalanced quote in a CSV swallows the rows after it: they are counted as
/// unreadable, named by the record's line.
#[test]
fn an_unbalanced_csv_quote_is_named_with_the_rows_it_swallowed() {
    let mut v = Vec::new();
    loggen::write_plain(&Truth::default(), 50, 57, &mut v);
    let mut l = lines(&v);
    l[20] = l[20].replacen(",\"", ",\"\"\"", 1);
    l[20] = l[20].replace("with a comma\"", "with a comma");
    let log = write("quote", "rows.csv", l.join("\n").as_bytes());
    let (code, text, _) = run(&[&log], &[]);
    assert_eq!(code, 0);
    assert!(
        text.contains(
            "rows.csv:21: an unbalanced quote: a quoted field opened here or later is not closed; "
        ),
        "{text}"
    );
    assert!(!text.contains(", 0 unreadable"), "{text}");
}

/// Item 5: unparseable metadata is counted; negative token counts are unreadable in every
/// reader; a UTF-8 byte-order mark is accepted; gzip is read.
#[test]
fn metadata_negative_tokens_bom_and_gzip() {
    let t = Truth::default();
    let mut v = Vec::new();
    loggen::write_litellm(&t, 200, 58, "csv", &mut v);
    let csv_text = String::from_utf8(v).unwrap();
    let bad_meta = csv_text.replacen("\"{\"\"error_information", "\"{]\"\"error_information", 1);
    assert_ne!(bad_meta, csv_text);
    let log = write(
        "meta",
        "spend.csv",
        format!("\u{feff}{bad_meta}").as_bytes(),
    );
    let (code, text, stderr) = run(&[&log], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains("# 1 rows have a `metadata` that is not JSON"),
        "{text}"
    );
    // Negative tokens.
    let mut l = lines(&otlp(&t, 50, 59));
    l[2] = l[2].replace(
        "\"gen_ai.usage.output_tokens\",\"value\":{\"intValue\":\"",
        "\"gen_ai.usage.output_tokens\",\"value\":{\"intValue\":\"-",
    );
    let log = write(
        "neg",
        "neg.jsonl",
        format!("\u{feff}{}", l.join("\n")).as_bytes(),
    );
    let (_, text, _) = run(&[&log], &[]);
    assert!(
        text.contains("neg.jsonl:3: a negative token count"),
        "{text}"
    );
    let mut lite = Vec::new();
    loggen::write_litellm(&t, 50, 60, "lines", &mut lite);
    let lite =
        String::from_utf8(lite)
            .unwrap()
            .replacen("\"prompt_tokens\":", "\"prompt_tokens\":-", 1);
    let log = write(
        "neg",
        "neg-spend.jsonl",
        format!("\u{feff}{lite}").as_bytes(),
    );
    let (_, text, _) = run(&[&log], &[]);
    assert!(
        text.contains("neg-spend.jsonl:1: a negative or fractional token count"),
        "{text}"
    );
    // gzip.
    let raw = otlp(&t, 300, 61);
    let plain = write("gzip", "traces.jsonl", &raw);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&raw).unwrap();
    let gzipped = write("gzip", "traces.jsonl.gz", &gz.finish().unwrap());
    let (_, a, _) = run(&[&plain], &[]);
    let (code, b, stderr) = run(&[&gzipped], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(b.contains("(otlp, gzip)"), "{b}");
    let body = |s: &str| s.split_once("name = ").unwrap().1.to_string();
    assert_eq!(body(&a), body(&b));
}

/// Item 5: a log of successes only (LiteLLM without failure logging) writes failure rates
/// inferred from where the requests were answered, with a warning, not rates of 0.
#[test]
fn a_successes_only_litellm_log_infers_the_failure_rates() {
    let t = Truth::default();
    let mut v = Vec::new();
    loggen::write_litellm(&t, N, 62, "lines", &mut v);
    let ok: Vec<String> = lines(&v)
        .into_iter()
        .filter(|l| l.contains("\"status\":\"success\""))
        .collect();
    let log = write("successes", "spend.jsonl", ok.join("\n").as_bytes());
    let (code, text, _) = run(&[&log], &[]);
    assert_eq!(code, 0);
    assert!(
        text.contains("the logs hold no failed attempt, yet fallbacks answered"),
        "{text}"
    );
    let v: toml::Value = toml::from_str(&text).unwrap();
    let r0 = v["chain"][0]["steady"]["failure_rates"][0]
        .as_float()
        .unwrap();
    // The primary's 8% failures, less the 2% × 8% that failed on both (not logged).
    let want = 0.08 * 0.98 / (1.0 - 0.08 * 0.02);
    assert!(
        (r0 - want).abs() < 4.0 * (want * (1.0 - want) / N as f64).sqrt(),
        "{r0}"
    );
}

/// Item 5: `--strict` refuses any unreadable record.
#[test]
fn strict_refuses_an_unreadable_record() {
    let mut l = lines(&otlp(&Truth::default(), 400, 63));
    l[7] = "{not json".into();
    let log = write("strict", "t.jsonl", l.join("\n").as_bytes());
    let (code, _, stderr) = run(&[&log], &["--strict", "--min-events", "1"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("t.jsonl:8:1: --strict: 1 unreadable record(s)"),
        "{stderr}"
    );
}

/// Item 6: the scenario parses whatever the log holds (a model name with a newline and
/// quotes); a 1e300 duration is impossible; `--timeout-s 1e308` is refused by the flag.
#[test]
fn the_written_scenario_always_parses() {
    let csv = "model,start,duration_s,status\n\
               \"acme/we\"\"ird\nname\",1.0,2.0,ok\n\
               \"acme/we\"\"ird\nname\",2.0,3.0,ok\n\
               acme/x,3.0,1e300,ok\n";
    let log = write("weird", "rows.csv", csv.as_bytes());
    let (code, text, _) = run(&[&log], &[]);
    assert_eq!(code, 0);
    let v: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(
        v["chain"][0]["models"][0].as_str(),
        Some("acme/we\"ird\nname")
    );
    assert!(text.contains("rows.csv:6: impossible duration"), "{text}");
    let (code, _, stderr) = run(&[&log], &["--timeout-s", "1e308"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("at most 86400"), "{stderr}");
}
