//! `fallcost calibrate` end to end: logs generated from known parameters (a seeded generator,
//! `tests/it/common/loggen.rs`) in each input format are calibrated, and the recovered figures are
//! checked against the generator's truth within 4 standard errors of their sampling error (plus
//! the histogram's 1.1% bin where a figure is read from one); the written scenario runs in
//! `compare` as is; no prompt or completion text reaches any output.

use crate::common;
use crate::common::loggen;

use std::path::{Path, PathBuf};

use common::fallcost;
use loggen::{SECRET, Truth};

const N: u64 = 8000;

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("calibrate")
        .join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn generate(name: &str, file: &str, write: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let path = dir(name).join(file);
    let mut buf = Vec::new();
    write(&mut buf);
    std::fs::write(&path, buf).unwrap();
    path
}

/// Run calibrate on `log`, returning the scenario path, its text and standard error.
fn calibrate(log: &Path, extra: &[&str]) -> (PathBuf, String, String) {
    let out = log.with_extension("scenario.toml");
    let _ = std::fs::remove_file(&out);
    let mut args = vec![
        "calibrate",
        log.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = fallcost(&args);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "calibrate failed: {stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    (out, text, stderr)
}

fn within(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: recovered {got}, truth {want}, allowed ±{tol}"
    );
}

fn num(v: &toml::Value, path: &[&str]) -> f64 {
    let mut v = v;
    for k in path {
        v = v
            .get(k)
            .unwrap_or_else(|| panic!("no {path:?} in the scenario"));
    }
    v.as_float()
        .or_else(|| v.as_integer().map(|i| i as f64))
        .unwrap_or_else(|| panic!("{path:?} is not a number: {v}"))
}

/// What a log carries, so what [`check_with`] can hold it to.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    /// Requests generated.
    pub requests: u64,
    /// Cache read and write counts (else every input token is fresh, and a warning says the
    /// prefix is unknown).
    pub cache: bool,
    /// Session ids (else the session length is the documented default, 20).
    pub sessions: bool,
    /// Status codes or error types (else every fast failure is a server error).
    pub classes: bool,
}

impl Expect {
    /// A log that carries everything.
    pub fn all(requests: u64) -> Expect {
        Expect {
            requests,
            cache: true,
            sessions: true,
            classes: true,
        }
    }
}

/// Check every recovered figure against the truth, and that compare runs the scenario.
fn check(t: &Truth, scenario: &Path, text: &str, stderr: &str) {
    check_with(t, scenario, text, stderr, Expect::all(N));
}

/// Check every figure the log carries against the truth (within 4 standard errors), and that
/// compare runs the scenario.
pub fn check_with(t: &Truth, scenario: &Path, text: &str, stderr: &str, e: Expect) {
    assert!(
        !text.contains(SECRET) && !stderr.contains(SECRET),
        "a prompt leaked:\n{text}\n{stderr}"
    );
    let v: toml::Value = toml::from_str(text).unwrap();
    let chain = &v["chain"].as_array().unwrap()[0];
    let models: Vec<&str> = chain["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(models, t.models);
    let n = e.requests as f64;
    let [f0, f1] = t.failure_rates;
    let rates = chain["steady"]["failure_rates"].as_array().unwrap();
    let rate = |i: usize| rates[i].as_float().unwrap();
    within(
        "primary failure rate",
        rate(0),
        f0,
        4.0 * (f0 * (1.0 - f0) / n).sqrt(),
    );
    let n1 = n * f0;
    within(
        "fallback failure rate",
        rate(1),
        f1,
        4.0 * (f1 * (1.0 - f1) / n1).sqrt(),
    );
    // Error classes pooled over both links: the fallback's failures are all server errors.
    let failures = n * f0 * (1.0 + f1);
    let se = |p: f64| 4.0 * (p * (1.0 - p) / failures).sqrt();
    let g = t.gray_share;
    let want_timeout = g / (1.0 + f1);
    let want_rl = (1.0 - g) * t.fast_mix[0] / (1.0 + f1);
    let want_ov = (1.0 - g) * t.fast_mix[1] / (1.0 + f1);
    let want_se = ((1.0 - g) * t.fast_mix[2] + f1) / (1.0 + f1);
    let errors = &chain["steady"]["errors"];
    within(
        "gray (timeout) share",
        num(errors, &["timeout"]),
        want_timeout,
        se(want_timeout),
    );
    if e.classes {
        within(
            "rate_limit share",
            num(errors, &["rate_limit"]),
            want_rl,
            se(want_rl),
        );
        within(
            "overload share",
            num(errors, &["overload"]),
            want_ov,
            se(want_ov),
        );
        within(
            "server_error share",
            num(errors, &["server_error"]),
            want_se,
            se(want_se),
        );
    } else {
        let fast = want_rl + want_ov + want_se;
        within(
            "server_error share (no classes logged)",
            num(errors, &["server_error"]),
            fast,
            se(fast),
        );
    }
    assert_eq!(num(errors, &["client"]), 0.0);
    assert_eq!(num(errors, &["quota"]), 0.0);
    // The timeout: the gray durations are T + U(0, 0.05), whose mean has SE 0.0144 / √n
    // (and the written figure has 5 significant digits).
    let gray_n = n * f0 * g;
    within(
        "timeout_s",
        num(&v, &["policy", "timeout_s"]),
        t.timeout_s + 0.025,
        4.0 * 0.0144 / gray_n.sqrt() + 5e-3,
    );
    // Fast failures: lognormal, sigma 0.5; the median's SE in log space is 1.2533 σ / √n.
    let fast_n = n * f0 * (1.0 - g) + n1 * f1;
    let tol = 4.0 * 1.2533 * 0.5 / fast_n.sqrt() + 0.011;
    within(
        "fast_fail_s (log)",
        num(chain, &["steady", "fast_fail_s"]).ln(),
        t.fast_fail_s.ln(),
        tol,
    );
    assert_eq!(num(chain, &["steady", "timeout_trip_rate"]), 0.0);
    // Latency of successes, per link, in log space.
    for (i, m) in t.models.iter().enumerate() {
        let (p50, p99) = t.latency[i];
        let sigma = (p99 / p50).ln() / 2.326_347_874;
        let succ = if i == 0 {
            n * (1.0 - f0)
        } else {
            n1 * (1.0 - f1)
        };
        let lat = &v["latency"][*m];
        let tol50 = 4.0 * 1.2533 * sigma / succ.sqrt() + 0.011;
        within(
            &format!("{m} p50 (log)"),
            num(lat, &["p50_s"]).ln(),
            p50.ln(),
            tol50,
        );
        // p99: SE of a quantile, sqrt(p(1-p)/n) / φ(z), times σ in log space.
        let tol99 = 4.0 * (0.0099 / succ).sqrt() / 0.026_652 * sigma + 0.011;
        within(
            &format!("{m} p99 (log)"),
            num(lat, &["p99_s"]).ln(),
            p99.ln(),
            tol99,
        );
    }
    // Tokens, over the successful attempts (about N of them).
    let succ = n * (1.0 - f0 * f1);
    let uniform_sd = |(lo, hi): (u64, u64)| ((hi - lo + 1) as f64).powi(2).sqrt() / 12f64.sqrt();
    let fresh_mean = (t.fresh.0 + t.fresh.1) as f64 / 2.0;
    // Without cache counts every input token is fresh (the prefix included), as logged.
    let fresh_logged = if e.cache {
        fresh_mean
    } else {
        fresh_mean + t.prefix as f64
    };
    within(
        "input_tokens",
        num(&v, &["request", "input_tokens"]),
        fresh_logged,
        4.0 * uniform_sd(t.fresh) / succ.sqrt() + 0.5,
    );
    if e.cache {
        assert_eq!(num(&v, &["request", "prefix_tokens"]), t.prefix as f64);
    } else {
        assert_eq!(num(&v, &["request", "prefix_tokens"]), 0.0);
        assert!(
            text.contains("# WARNING: no record carried cache read or write counts"),
            "{text}"
        );
    }
    let out_mean = (t.output.0 + t.output.1) as f64 / 2.0;
    within(
        "output_tokens",
        num(&v, &["request", "output_tokens"]),
        out_mean,
        4.0 * uniform_sd(t.output) / succ.sqrt() + 0.5,
    );
    if e.cache {
        within(
            "cache_hit_rate",
            num(&v, &["request", "cache_hit_rate"]),
            t.hit,
            4.0 * (t.hit * (1.0 - t.hit) / succ).sqrt(),
        );
    }
    // Traffic.
    let sessions = if e.sessions {
        t.session_length
    } else {
        assert!(text.contains("# not measured"), "{text}");
        20
    };
    assert_eq!(num(&v, &["incident", "session_length"]), sessions as f64);
    within(
        "requests_per_second",
        num(&v, &["incident", "requests_per_second"]),
        t.rps,
        4.0 * t.rps / n.sqrt(),
    );
    assert_eq!(
        v["incident"]["failure"].as_str(),
        Some("fast"),
        "the primary's gray share is 40%"
    );
    // Every figure has its count and interval.
    assert!(text.contains("95% CI"), "{text}");
    // Too few fallback failures (about 13): a warning, in the file and on standard error.
    assert!(
        text.contains("# WARNING: openai/gpt-6-sol: failure rate from"),
        "{text}"
    );
    assert!(
        stderr.contains("warning: openai/gpt-6-sol: failure rate from"),
        "{stderr}"
    );
    // The round trip: compare runs the scenario as written.
    let run = fallcost(&["compare", "--scenario", scenario.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "compare refused the calibrated scenario: {}\n{text}",
        String::from_utf8_lossy(&run.stderr)
    );
    let shown = String::from_utf8_lossy(&run.stdout);
    assert!(
        shown.contains("anthropic/claude-sonnet-5 → openai/gpt-6-sol"),
        "{shown}"
    );
}

#[test]
fn otlp_spans_recover_the_generators_parameters() {
    let t = Truth::default();
    let log = generate("otlp", "traces.jsonl", |w| loggen::write_otlp(&t, N, 11, w));
    let (scenario, text, stderr) = calibrate(&log, &[]);
    assert!(
        text.contains(&format!("{}", N)) || text.contains("8,000 requests"),
        "{text}"
    );
    check(&t, &scenario, &text, &stderr);
}

#[test]
fn otlp_as_one_pretty_printed_document_is_read_too() {
    let t = Truth::default();
    let reqs = loggen::requests(&t, 3, 5);
    let line = loggen::otlp_line(&t, &reqs[1]);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let log = generate("otlp-doc", "one.json", |w| {
        w.extend_from_slice(serde_json::to_string_pretty(&v).unwrap().as_bytes())
    });
    let (_, text, _) = calibrate(&log, &[]);
    assert!(
        text.contains(&format!(
            "{} attempts in 1 requests",
            reqs[1].attempts.len()
        )),
        "{text}"
    );
}

#[test]
fn litellm_spend_logs_recover_the_parameters_as_json_array_lines_and_csv() {
    let t = Truth::default();
    for (form, file) in [
        ("array", "spend.json"),
        ("lines", "spend.jsonl"),
        ("csv", "spend.csv"),
    ] {
        let log = generate(&format!("litellm-{form}"), file, |w| {
            loggen::write_litellm(&t, N, 12, form, w)
        });
        let (scenario, text, stderr) = calibrate(&log, &[]);
        assert!(text.contains("litellm"), "{form}: {text}");
        check(&t, &scenario, &text, &stderr);
    }
}

#[test]
fn the_plain_csv_recovers_the_parameters() {
    let t = Truth::default();
    let log = generate("plain", "requests.csv", |w| {
        loggen::write_plain(&t, N, 13, w)
    });
    let (scenario, text, stderr) = calibrate(&log, &[]);
    check(&t, &scenario, &text, &stderr);
}

#[test]
fn strict_makes_a_figure_from_too_few_events_an_error() {
    let t = Truth::default();
    let log = generate("strict", "requests.csv", |w| {
        loggen::write_plain(&t, 2000, 14, w)
    });
    let out = log.with_extension("scenario.toml");
    let _ = std::fs::remove_file(&out);
    let run = fallcost(&[
        "calibrate",
        log.to_str().unwrap(),
        "--strict",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("--strict:") && stderr.contains("fewer than 30"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written under --strict");
}

#[test]
fn unreadable_records_are_counted_and_named_and_a_file_with_none_is_exit_2() {
    let t = Truth::default();
    let reqs = loggen::requests(&t, 20, 3);
    let log = generate("bad", "mixed.jsonl", |w| {
        for (i, r) in reqs.iter().enumerate() {
            if i == 3 || i == 7 {
                w.extend_from_slice(
                    format!("{{\"resourceSpans\": [{{\"scopeSpans\": \"{SECRET}\"}}]}}\n")
                        .as_bytes(),
                );
            }
            w.extend_from_slice(loggen::otlp_line(&t, r).as_bytes());
            w.push(b'\n');
        }
        w.extend_from_slice(b"{\"resourceSpans\": [\n");
    });
    let (_, text, stderr) = calibrate(&log, &[]);
    // Lines 4 and 9 hold a bad shape; line 23 is cut short.
    for line in [4, 9, 23] {
        assert!(
            stderr.contains(&format!("mixed.jsonl:{line}: unreadable record")),
            "{stderr}"
        );
        assert!(text.contains(&format!("mixed.jsonl:{line}: ")), "{text}");
    }
    assert!(text.contains("Unreadable records: 3"), "{text}");
    assert!(!text.contains(SECRET) && !stderr.contains(SECRET));

    let none = generate("bad", "none.jsonl", |w| {
        w.extend_from_slice(b"{\"resourceSpans\": 3}\n{\"resourceSpans\": [}\n")
    });
    let run = fallcost(&["calibrate", none.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("none.jsonl: no readable otlp record (2 unreadable); line 1:"),
        "{stderr}"
    );

    let unknown = generate("bad", "notes.txt", |w| w.extend_from_slice(b"hello\n"));
    let run = fallcost(&["calibrate", unknown.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--input-format"));
}

#[test]
fn models_missing_from_the_price_table_are_named() {
    let t = Truth {
        models: ["anthropic/claude-sonnet-5", "acme/llm-9"],
        ..Truth::default()
    };
    let log = generate("unknown-model", "requests.csv", |w| {
        loggen::write_plain(&t, 500, 15, w)
    });
    let (_, text, stderr) = calibrate(&log, &[]);
    assert!(
        text.contains("\"acme/llm-9\""),
        "still written, for the user to price: {text}"
    );
    assert!(
        stderr.contains("model `acme/llm-9` is not in price table 2026-07"),
        "{stderr}"
    );
}

#[test]
fn several_primaries_are_several_chains_with_traffic_shares() {
    let a = Truth::default();
    let b = Truth {
        models: ["openai/gpt-6-luna", "anthropic/claude-haiku-4-5"],
        ..Truth::default()
    };
    let fa = generate("two-chains", "a.csv", |w| {
        loggen::write_plain(&a, 3000, 21, w)
    });
    let fb = generate("two-chains", "b.csv", |w| {
        loggen::write_plain(&b, 1000, 22, w)
    });
    let out = fa.with_extension("scenario.toml");
    let run = fallcost(&[
        "calibrate",
        fa.to_str().unwrap(),
        fb.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let v: toml::Value = toml::from_str(&text).unwrap();
    let chains = v["chain"].as_array().unwrap();
    assert_eq!(chains.len(), 2);
    assert_eq!(
        chains[0]["name"].as_str(),
        Some("anthropic/claude-sonnet-5")
    );
    assert_eq!(chains[1]["name"].as_str(), Some("openai/gpt-6-luna"));
    let share = |i: usize| chains[i]["traffic_share"].as_float().unwrap();
    // Exactly the requests' shares, in millionths, adding up to 1.
    assert_eq!(share(0), 0.75);
    assert_eq!(share(1), 0.25);
    let run = fallcost(&["compare", "--scenario", out.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).contains("All chains, weighted by traffic share"));
}

#[test]
fn an_attribute_value_before_its_key_and_span_events_are_never_decoded() {
    // A value written before its key cannot be judged by the key: it is skipped unread, so a
    // prompt there cannot leak (and the span still counts, from its other attributes).
    let line = format!(
        r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"ab","startTimeUnixNano":"1000000000","endTimeUnixNano":"3000000000","attributes":[{{"value":{{"stringValue":"{SECRET}"}},"key":"gen_ai.prompt"}},{{"key":"gen_ai.request.model","value":{{"stringValue":"claude-sonnet-5"}}}},{{"key":"gen_ai.provider.name","value":{{"stringValue":"anthropic"}}}},{{"key":"gen_ai.usage.output_tokens","value":{{"intValue":"321"}}}},{{"key":"gen_ai.usage.input_tokens","value":{{"intValue":"1000"}}}}],"events":[{{"name":"gen_ai.user.message","attributes":[{{"key":"content","value":{{"stringValue":"{SECRET}"}}}}],"body":{{"content":"{SECRET}"}}}}],"status":{{"code":1}}}}]}}]}}]}}"#
    );
    let log = generate("order", "one.jsonl", |w| {
        w.extend_from_slice(line.as_bytes())
    });
    let (_, text, stderr) = calibrate(&log, &[]);
    assert!(!text.contains(SECRET) && !stderr.contains(SECRET));
    assert!(text.contains("output_tokens = 321"), "{text}");
    assert!(text.contains("input_tokens = 1000"), "{text}");
    assert!(
        text.contains("p50_s = 2\n"),
        "a 2 s success, exact (fewer than 128 values are kept exactly): {text}"
    );
}

#[test]
fn input_format_and_pricing_flags() {
    let t = Truth::default();
    let log = generate("flags", "requests.log", |w| {
        loggen::write_plain(&t, 400, 31, w)
    });
    // A price table file: the scenario names it by its absolute path, and compare reads it.
    let (scenario, text, _) = calibrate(
        &log,
        &[
            "--input-format",
            "csv",
            "--pricing",
            "pricing/2026-07.toml",
            "--timeout-s",
            "30",
        ],
    );
    let v: toml::Value = toml::from_str(&text).unwrap();
    let pricing = v["pricing"].as_str().unwrap();
    assert!(
        Path::new(pricing).is_absolute() && pricing.ends_with("2026-07.toml"),
        "{pricing}"
    );
    assert_eq!(num(&v, &["policy", "timeout_s"]), 30.0);
    assert!(text.contains("# given with --timeout-s"), "{text}");
    let run = fallcost(&["compare", "--scenario", scenario.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Forcing the wrong format finds nothing readable: exit 2, naming the file.
    let run = fallcost(&["calibrate", log.to_str().unwrap(), "--input-format", "otlp"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("requests.log: no readable otlp record"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // LiteLLM forced: CSV or JSON told apart by content.
    let json = generate("flags", "spend.txt", |w| {
        loggen::write_litellm(&t, 50, 32, "lines", w)
    });
    let (_, text, _) = calibrate(&json, &["--input-format", "litellm"]);
    assert!(text.contains("(litellm (json))"), "{text}");
}

#[test]
fn an_agent_trace_with_several_answered_calls_is_several_requests() {
    let span = |id: u64, start_s: u64, model: &str, ok: bool| {
        format!(
            r#"{{"traceId":"aa","spanId":"{id:016x}","startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{{"key":"gen_ai.provider.name","value":{{"stringValue":"{}"}}}},{{"key":"gen_ai.request.model","value":{{"stringValue":"{}"}}}}],"status":{{"code":{}}}}}"#,
            start_s * 1_000_000_000,
            (start_s + 1) * 1_000_000_000,
            model.split_once('/').unwrap().0,
            model.split_once('/').unwrap().1,
            if ok { 1 } else { 2 }
        )
    };
    let (s, o) = ("anthropic/claude-sonnet-5", "openai/gpt-6-sol");
    // Call 1 answered by Sonnet; call 2 fails on Sonnet and is answered by Sol; call 3 fails
    // on both (the spans arrive out of order, in two lines).
    let line1 = format!(
        r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{},{},{}]}}]}}]}}"#,
        span(3, 20, o, true),
        span(1, 0, s, true),
        span(2, 10, s, false)
    );
    let line2 = format!(
        r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{},{}]}}]}}]}}"#,
        span(4, 30, s, false),
        span(5, 40, o, false)
    );
    let log = generate("agent", "agent.jsonl", |w| {
        w.extend_from_slice(format!("{line1}\n{line2}\n").as_bytes())
    });
    let (_, text, _) = calibrate(&log, &[]);
    assert!(text.contains("5 attempts in 3 requests"), "{text}");
    assert!(
        text.contains("#   link 0 anthropic/claude-sonnet-5: tried in 3 requests, answered 1 "),
        "{text}"
    );
    assert!(
        text.contains("#   link 1 openai/gpt-6-sol: tried in 2 requests, answered 1 "),
        "{text}"
    );
    assert!(
        text.contains("#   failed on every link: 1 requests"),
        "{text}"
    );
}

#[test]
fn an_unreadable_csv_row_is_named_without_its_values() {
    let log = generate("csv-bad", "rows.csv", |w| {
        w.extend_from_slice(
            format!(
                "model,start,duration_s,status,input_tokens\n\
                 anthropic/claude-sonnet-5,1.0,2.0,ok,100\n\
                 anthropic/claude-sonnet-5,2.0,2.0,{SECRET},100\n\
                 anthropic/claude-sonnet-5,3.0,2.0,ok,{SECRET}\n"
            )
            .as_bytes(),
        )
    });
    let (_, text, stderr) = calibrate(&log, &[]);
    assert!(
        stderr.contains("rows.csv:3: unreadable record: `status` is not ok"),
        "{stderr}"
    );
    // A bad token count drops the field, not the row (issue 34).
    assert!(
        stderr.contains("rows.csv:4: input_tokens not a whole number of tokens"),
        "{stderr}"
    );
    assert!(text.contains("# 2 attempts in"), "{text}");
    assert!(!text.contains(SECRET) && !stderr.contains(SECRET));
}

#[test]
fn a_litellm_row_without_a_start_time_is_named_by_its_line_in_an_array() {
    let t = Truth::default();
    let rows: Vec<String> = loggen::requests(&t, 4, 41)
        .iter()
        .flat_map(|r| loggen::litellm_rows(&t, r))
        .collect();
    let mut bad: serde_json::Value = serde_json::from_str(&rows[1]).unwrap();
    bad.as_object_mut().unwrap().remove("startTime");
    let log = generate("litellm-bad", "spend.json", |w| {
        let mut text = String::from("[\n");
        text.push_str(&rows[0]);
        text.push_str(",\n");
        text.push_str(&bad.to_string());
        for r in &rows[2..] {
            text.push_str(",\n");
            text.push_str(r);
        }
        text.push_str("\n]\n");
        w.extend_from_slice(text.as_bytes());
    });
    let (_, _, stderr) = calibrate(&log, &[]);
    assert!(
        stderr.contains("spend.json:3: unreadable record: no readable `startTime`"),
        "{stderr}"
    );
}

/// Python's csv module and Excel end lines with CRLF: a bad row is still named by its line.
#[test]
fn crlf_line_endings_name_a_bad_row_by_its_line_in_every_reader() {
    let plain = generate("crlf", "rows.csv", |w| {
        w.extend_from_slice(
            b"model,start,duration_s,status,input_tokens\r\n\
              anthropic/claude-sonnet-5,1.0,2.0,ok,100\r\n\
              anthropic/claude-sonnet-5,2.0,2.0,bogus,100\r\n\
              anthropic/claude-sonnet-5,3.0,2.0,ok,100\r\n\
              \r\n\
              anthropic/claude-sonnet-5,4.0,2.0,ok,x\r\n",
        )
    });
    let (_, _, stderr) = calibrate(&plain, &[]);
    assert!(
        stderr.contains("rows.csv:3: unreadable record: `status` is not ok"),
        "{stderr}"
    );
    assert!(
        stderr.contains("rows.csv:6: input_tokens not a whole number"),
        "after an empty line: {stderr}"
    );

    let litellm = generate("crlf", "spend.csv", |w| {
        w.extend_from_slice(
            b"model,custom_llm_provider,startTime,endTime,status\r\n\
              claude-sonnet-5,anthropic,2026-07-18T10:00:00Z,2026-07-18T10:00:02Z,success\r\n\
              claude-sonnet-5,anthropic,2026-07-18T10:00:01Z,2026-07-18T10:00:03Z,success\r\n\
              claude-sonnet-5,anthropic,,2026-07-18T10:00:04Z,success\r\n",
        )
    });
    let (_, _, stderr) = calibrate(&litellm, &["--input-format", "litellm"]);
    assert!(
        stderr.contains("spend.csv:4: unreadable record: no readable `startTime`"),
        "{stderr}"
    );

    let jsonl = generate("crlf", "spend.jsonl", |w| {
        w.extend_from_slice(
            b"{\"model\":\"claude-sonnet-5\",\"custom_llm_provider\":\"anthropic\",\"startTime\":\"2026-07-18T10:00:00Z\",\"endTime\":\"2026-07-18T10:00:02Z\"}\r\n\
              {\"model\":\"claude-sonnet-5\",\"custom_llm_provider\":\"anthropic\",\"endTime\":\"2026-07-18T10:00:02Z\"}\r\n\
              {\"model\":\"claude-sonnet-5\",\"custom_llm_provider\":\"anthropic\",\"startTime\":\"2026-07-18T10:00:01Z\",\"endTime\":\"2026-07-18T10:00:03Z\"}\r\n",
        )
    });
    let (_, _, stderr) = calibrate(&jsonl, &["--input-format", "litellm"]);
    assert!(
        stderr.contains("spend.jsonl:2: unreadable record: no readable `startTime`"),
        "{stderr}"
    );
}

/// A plain CSV without token columns: 0 is written (compare needs a figure) with a warning,
/// and `--strict` refuses it.
#[test]
fn no_token_counts_is_a_warning_and_under_strict_an_error() {
    let log = generate("no-tokens", "requests.csv", |w| {
        w.extend_from_slice(
            b"model,start,duration_s,status\n\
              anthropic/claude-sonnet-5,1.0,2.0,ok\n\
              anthropic/claude-sonnet-5,2.0,2.5,ok\n",
        )
    });
    let (_, text, stderr) = calibrate(&log, &[]);
    for (which, key) in [("input", "input_tokens"), ("output", "output_tokens")] {
        let warning = format!(
            "no record carried {which} token counts (0 of 2 successful attempts): the request profile is unknown and {key} is written as 0"
        );
        assert!(
            stderr.contains(&format!("fallcost calibrate: warning: {warning}")),
            "{stderr}"
        );
        assert!(text.contains(&format!("# WARNING: {warning}")), "{text}");
    }
    assert!(
        text.contains(
            "# output tokens: 0 of 2 successful attempts carried token counts\noutput_tokens = 0\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("input minus the prefix): 0 of 2 successful attempts carried token counts\ninput_tokens = 0\n"),
        "{text}"
    );
    assert!(!text.contains("mean of 0"), "{text}");

    let out = log.with_extension("strict.toml");
    let _ = std::fs::remove_file(&out);
    let run = fallcost(&[
        "calibrate",
        log.to_str().unwrap(),
        "--strict",
        "--min-events",
        "1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        // The first warning is the log's: no failure recorded at all (issue 34).
        stderr.contains("--strict: ")
            && stderr.contains("first: no failure recorded in the whole log"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written under --strict");
}

/// Item 1 of issue 24: reads without writes (OpenAI's usage; Gemini's, with the zero left
/// out) give the same prefix, fresh input and hit rate as reads and writes (Anthropic's), in
/// every format; and calibrate → compare runs with no edit on each.
#[test]
fn every_providers_usage_shape_recovers_the_prefix_fresh_input_and_hit_rate() {
    for usage in [loggen::Usage::OpenAi, loggen::Usage::Gemini] {
        let t = Truth {
            usage,
            ..Truth::default()
        };
        let name = format!("usage-{usage:?}");
        let logs = [
            generate(&name, "traces.jsonl", |w| loggen::write_otlp(&t, N, 41, w)),
            generate(&name, "spend.jsonl", |w| {
                loggen::write_litellm(&t, N, 42, "lines", w)
            }),
            generate(&name, "spend.csv", |w| {
                loggen::write_litellm(&t, N, 43, "csv", w)
            }),
            generate(&name, "requests.csv", |w| loggen::write_plain(&t, N, 44, w)),
        ];
        for log in logs {
            let (scenario, text, stderr) = calibrate(&log, &[]);
            assert!(
                text.contains("# reads without writes (as OpenAI and Gemini report usage)"),
                "{usage:?} {}: {text}",
                log.display()
            );
            check(&t, &scenario, &text, &stderr);
        }
    }
}

/// The issue's case: 800 fresh + 6,000 prefix at 80% hits, reads only. Before: 2,114 fresh +
/// 4,686 prefix at a hit rate of 1.
#[test]
fn reads_only_the_issues_case_800_fresh_6000_prefix_80_percent_hits() {
    let t = Truth {
        usage: loggen::Usage::OpenAi,
        fresh: (800, 800),
        prefix: 6000,
        hit: 0.8,
        ..Truth::default()
    };
    let log = generate("usage-issue", "traces.jsonl", |w| {
        loggen::write_otlp(&t, N, 45, w)
    });
    let (_, text, _) = calibrate(&log, &[]);
    let v: toml::Value = toml::from_str(&text).unwrap();
    assert_eq!(num(&v, &["request", "input_tokens"]), 800.0, "{text}");
    assert_eq!(num(&v, &["request", "prefix_tokens"]), 6000.0, "{text}");
    let n = N as f64;
    within(
        "cache_hit_rate",
        num(&v, &["request", "cache_hit_rate"]),
        0.8,
        4.0 * (0.8f64 * 0.2 / n).sqrt(),
    );
}

/// Item 3: two chains share a model (Sol is chain A's fallback and chain B's primary); each
/// chain's error classes and failure rates are of its own requests only.
#[test]
fn a_model_two_chains_share_is_measured_per_chain() {
    let a = Truth::default();
    let b = Truth {
        models: ["openai/gpt-6-sol", "anthropic/claude-haiku-4-5"],
        failure_rates: [0.3, 0.02],
        gray_share: 0.9,
        id_offset: 1_000_000,
        ..Truth::default()
    };
    let fa = generate("shared-model", "a.jsonl", |w| {
        loggen::write_otlp(&a, N, 46, w)
    });
    let fb = generate("shared-model", "b.jsonl", |w| {
        loggen::write_otlp(&b, N, 47, w)
    });
    let out = fa.with_extension("scenario.toml");
    let run = fallcost(&[
        "calibrate",
        fa.to_str().unwrap(),
        fb.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let v: toml::Value = toml::from_str(&text).unwrap();
    let chain = v["chain"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str() == Some("anthropic/claude-sonnet-5"))
        .unwrap();
    let n = N as f64;
    let [f0, f1] = a.failure_rates;
    // Chain A's Sol: its own 2% (server errors only), not chain B's 30%.
    let rate1 = chain["steady"]["failure_rates"][1].as_float().unwrap();
    within(
        "chain A's fallback rate",
        rate1,
        f1,
        4.0 * (f1 * (1.0 - f1) / (n * f0)).sqrt(),
    );
    // Chain A's timeout share: the primary's gray ones only (chain B's are 90% gray).
    let want = a.gray_share / (1.0 + f1);
    let failures = n * f0 * (1.0 + f1);
    within(
        "chain A's timeout share",
        num(&chain["steady"]["errors"], &["timeout"]),
        want,
        4.0 * (want * (1.0 - want) / failures).sqrt(),
    );
    let run = fallcost(&["compare", "--scenario", out.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// The 95% intervals written in the comments, on 40 seeded replicates of 2,000 requests:
/// how often each covers the generator's truth (at least 34 of 40 each; the counts are
/// printed with `--nocapture`).
#[test]
fn the_intervals_cover_the_truth_on_40_seeded_replicates() {
    let t = Truth::default();
    /// The interval `[a, b]` on the first line holding `marker` (after it), percent signs
    /// taken as percent.
    fn ci(text: &str, marker: &str, which: usize) -> (f64, f64) {
        let line = text
            .lines()
            .find(|l| l.contains(marker))
            .unwrap_or_else(|| panic!("no {marker} in {text}"));
        let part = line.split("95% CI [").nth(which + 1).unwrap();
        let inner = part.split(']').next().unwrap();
        let (a, b) = inner.split_once(", ").unwrap();
        let v = |s: &str| {
            let s = s.trim();
            match s.strip_suffix('%') {
                Some(p) => p.parse::<f64>().unwrap() / 100.0,
                None => s.parse::<f64>().unwrap(),
            }
        };
        (v(a), v(b))
    }
    let truths: [(&str, &str, usize, f64); 6] = [
        (
            "primary failure rate",
            "# anthropic/claude-sonnet-5: ",
            0,
            0.08,
        ),
        ("primary p50", "# successful attempts: ", 0, 2.0),
        ("primary p99", "# successful attempts: ", 1, 8.0),
        ("fresh input mean", "# fresh input tokens", 0, 2000.0),
        ("cache hit rate", "# share of prefix tokens read", 0, 0.9),
        ("requests per second", "(Poisson)", 0, 5.0),
    ];
    let mut covered = [0; 6];
    let reps = 40;
    for seed in 0..reps {
        let log = generate("coverage", &format!("r{seed}.jsonl"), |w| {
            loggen::write_otlp(&t, 2000, 1000 + seed, w)
        });
        let (_, text, _) = calibrate(&log, &[]);
        for (k, (_, marker, which, truth)) in truths.iter().enumerate() {
            let (lo, hi) = ci(&text, marker, *which);
            covered[k] += usize::from(lo <= *truth && *truth <= hi);
        }
    }
    for (k, (what, ..)) in truths.iter().enumerate() {
        println!("coverage: {what}: {} of {reps}", covered[k]);
        assert!(covered[k] >= 34, "{what}: covered {} of {reps}", covered[k]);
    }
}
