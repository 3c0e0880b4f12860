//! `fallcost calibrate` on logs shaped as real instrumentation writes them (issue 34): the
//! same known traffic (`common::loggen`'s truth) in every dialect of `common::realgen`, each
//! with the records that name a model but are no LLM call; the figures fall within their
//! intervals of the truth (`calibrate::check_with`, 4 standard errors), what was left out is
//! one summary line, and missing evidence (no failures, no cache counts, per-request session
//! ids) is stated, never read as zero.

use std::path::{Path, PathBuf};

use crate::calibrate::{Expect, check_with};
use crate::common::fallcost;
use crate::common::loggen::{self, Truth};
use crate::common::realgen::{self, Dialect};

const N: u64 = 8000;

fn generate(name: &str, file: &str, write: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("calibrate-real")
        .join(name);
    std::fs::create_dir_all(&d).unwrap();
    let path = d.join(file);
    let mut buf = Vec::new();
    write(&mut buf);
    std::fs::write(&path, buf).unwrap();
    path
}

/// calibrate `log` into a scenario beside it: (exit code, scenario path, text, stderr).
fn run(log: &Path, extra: &[&str]) -> (i32, PathBuf, String, String) {
    let out = log.with_extension("scenario.toml");
    let _ = std::fs::remove_file(&out);
    let mut args = vec![
        "calibrate",
        log.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let r = fallcost(&args);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    (
        r.status.code().unwrap_or(-1),
        out,
        text,
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

fn dialect_case(dialect: Dialect, seed: u64) -> (String, String) {
    let t = Truth::default();
    let name = format!("{dialect:?}").to_lowercase();
    let log = generate(&name, "traces.jsonl", |w| {
        realgen::write_otlp(&t, N, seed, dialect, false, w)
    });
    let (code, scenario, text, stderr) = run(&log, &[]);
    assert_eq!(code, 0, "{dialect:?}: {stderr}");
    check_with(
        &t,
        &scenario,
        &text,
        &stderr,
        Expect {
            requests: N,
            cache: dialect.has_cache(),
            sessions: dialect.has_sessions(),
            classes: dialect.has_classes(),
        },
    );
    (text, stderr)
}

#[test]
fn semconv_after_1_37_leaves_out_the_agent_and_embedding_spans() {
    let (text, stderr) = dialect_case(Dialect::Semconv, 21);
    let line = format!(
        "{} records that name a model are not LLM calls and are left out: {N} embeddings, {N} invoke_agent",
        2 * N
    );
    assert!(text.contains(&line), "{text}");
    assert!(stderr.contains(&line), "{stderr}");
}

#[test]
fn semconv_before_1_37_reads_gen_ai_system_and_prompt_tokens() {
    let (text, _) = dialect_case(Dialect::SemconvOld, 22);
    assert!(
        text.contains("left out: 8000 embeddings, 8000 invoke_agent"),
        "{text}"
    );
}

#[test]
fn openllmetry_cache_fields_and_capitalised_systems() {
    let (text, _) = dialect_case(Dialect::OpenLlmetry, 23);
    assert!(text.contains("left out: 8000 embeddings"), "{text}");
}

#[test]
fn openinference_llm_spans_only() {
    let (text, _) = dialect_case(Dialect::OpenInference, 24);
    assert!(
        text.contains("left out: 8000 embeddings, 8000 invoke_agent"),
        "{text}"
    );
}

#[test]
fn litellm_otel_callback_has_no_cache_counts_and_says_so() {
    let (text, _) = dialect_case(Dialect::LiteLlmOtel, 25);
    assert!(
        text.contains("# WARNING: no record carried cache read or write counts"),
        "{text}"
    );
}

#[test]
fn langfuse_observations_as_a_page_and_an_array() {
    let t = Truth::default();
    for (form, seed) in [("page", 26), ("array", 27)] {
        let log = generate(&format!("langfuse-{form}"), "observations.json", |w| {
            realgen::write_langfuse(&t, N, seed, form, w)
        });
        let (code, scenario, text, stderr) = run(&log, &[]);
        assert_eq!(code, 0, "{form}: {stderr}");
        assert!(text.contains("(langfuse)"), "{text}");
        assert!(text.contains("left out: 8000 embeddings"), "{text}");
        assert!(
            text.contains("input-token convention, anthropic: input tokens include"),
            "the reader adds the cache to Langfuse's input: {text}"
        );
        check_with(&t, &scenario, &text, &stderr, Expect::all(N));
    }
}

#[test]
fn litellm_embedding_rows_and_response_cache_hits_are_left_out() {
    let t = Truth::default();
    for (page, seed) in [(false, 28), (true, 29)] {
        let log = generate(&format!("litellm-extras-{page}"), "spend.json", |w| {
            realgen::write_litellm_with_extras(&t, N, seed, page, w)
        });
        let (code, scenario, text, stderr) = run(&log, &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            text.contains(&format!(
                "left out: {} LiteLLM response-cache hits (cache_hit = True), {N} embeddings",
                N / 10
            )),
            "{text}"
        );
        check_with(&t, &scenario, &text, &stderr, Expect::all(N));
    }
}

/// An instrumentation that ends no span when the call raises: no failure is in the log, and
/// the rates are the rule-of-three bound with a warning, never 0.
#[test]
fn no_error_spans_is_stated_with_the_rule_of_three_bound() {
    let t = Truth::default();
    let log = generate("no-errors", "traces.jsonl", |w| {
        realgen::write_otlp(&t, 2000, 30, Dialect::Semconv, true, w)
    });
    let (code, _, text, stderr) = run(&log, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains("# WARNING: no failure recorded in the whole log"),
        "{text}"
    );
    assert!(
        stderr.contains("check that your instrumentation records errors"),
        "{stderr}"
    );
    let v: toml::Value = toml::from_str(&text).unwrap();
    let rates = v["chain"][0]["steady"]["failure_rates"].as_array().unwrap();
    let r0 = rates[0].as_float().unwrap();
    // About 2,000 primary attempts (the failed ones are gone): 3/n.
    let n = text
        .lines()
        .find(|l| l.starts_with("# anthropic/claude-sonnet-5: 0 failed of "))
        .and_then(|l| l.split("0 failed of ").nth(1))
        .and_then(|l| l.split(' ').next())
        .map(|s| s.replace(',', "").parse::<f64>().unwrap())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((r0 - 3.0 / n).abs() < 1e-6, "{r0} for 3/{n}");
    assert!(r0 > 0.0);
}

/// A model that only failed keeps its traffic share, and the scenario runs.
#[test]
fn a_dead_model_keeps_its_share_and_the_scenario_runs() {
    let mut rows = String::new();
    for i in 0..200 {
        let (group, provider, status, meta) = if i % 4 == 0 {
            (
                "gpt-6-sol",
                "openai",
                "failure",
                r#"{"error_information":{"error_code":"503","error_class":"ServiceUnavailableError"}}"#,
            )
        } else {
            (
                "claude-sonnet-5",
                "anthropic",
                "success",
                r#"{"usage_object":{"prompt_tokens":1000,"completion_tokens":100}}"#,
            )
        };
        rows.push_str(&format!(
            r#"{{"request_id":"r{i}","call_type":"acompletion","startTime":"{}","endTime":"{}","model":"{group}","model_group":"{group}","custom_llm_provider":"{provider}","prompt_tokens":1000,"completion_tokens":100,"status":"{status}","metadata":{meta}}}"#,
            loggen::iso_time(1_784_368_800.0 + i as f64),
            loggen::iso_time(1_784_368_800.5 + i as f64),
        ));
        rows.push('\n');
    }
    let log = generate("dead", "spend.jsonl", |w| {
        w.extend_from_slice(rows.as_bytes())
    });
    let (code, scenario, text, stderr) = run(&log, &[]);
    assert_eq!(code, 0, "{stderr}");
    let v: toml::Value = toml::from_str(&text).unwrap();
    let chains = v["chain"].as_array().unwrap();
    assert_eq!(chains.len(), 2, "{text}");
    let dead = chains
        .iter()
        .find(|c| c["name"].as_str() == Some("openai/gpt-6-sol"))
        .unwrap();
    assert_eq!(dead["traffic_share"].as_float(), Some(0.25), "{text}");
    let r0 = &dead["steady"]["failure_rates"].as_array().unwrap()[0];
    assert_eq!(
        r0.as_float().or(r0.as_integer().map(|i| i as f64)),
        Some(1.0),
        "{text}"
    );
    let r = fallcost(&["compare", "--scenario", scenario.to_str().unwrap()]);
    assert!(
        r.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&r.stderr)
    );
}

/// LiteLLM's default session_id is one per request: detected and named, and the session
/// length is the documented default, labelled.
#[test]
fn a_session_id_per_request_is_detected() {
    let t = Truth {
        session_length: 1,
        ..Truth::default()
    };
    let log = generate("per-request-sessions", "spend.jsonl", |w| {
        loggen::write_litellm(&t, 2000, 31, "lines", w)
    });
    let (code, _, text, stderr) = run(&log, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains("session ids is unique to its request"),
        "{text}"
    );
    assert!(text.contains("session_length = 20"), "{text}");
    assert!(
        text.contains("# not measured (the ids are per request)"),
        "{text}"
    );
}

/// One stray millisecond start is one unreadable span; a file of them is refused.
#[test]
fn one_stray_millisecond_start_is_one_warning() {
    let t = Truth::default();
    let mut v = Vec::new();
    loggen::write_otlp(&t, 300, 32, &mut v);
    let text = String::from_utf8(v).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Line 5's times lose 6 digits (nanoseconds to milliseconds).
    let ms = |s: &str| {
        let mut out = String::new();
        for (i, part) in s.split("UnixNano\":\"").enumerate() {
            if i > 0 {
                let d = part.find('"').unwrap();
                out.push_str("UnixNano\":\"");
                out.push_str(&part[..d - 6]);
                out.push_str(&part[d..]);
            } else {
                out.push_str(part);
            }
        }
        out
    };
    lines[4] = ms(&lines[4]);
    let log = generate("stray-ms", "traces.jsonl", |w| {
        w.extend_from_slice(lines.join("\n").as_bytes())
    });
    let (code, _, text, stderr) = run(&log, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains("traces.jsonl:5: startTimeUnixNano reads as January 1970"),
        "{text}"
    );
    let all: Vec<String> = lines.iter().map(|l| ms(l)).collect();
    let log = generate("all-ms", "traces.jsonl", |w| {
        w.extend_from_slice(all.join("\n").as_bytes())
    });
    let (code, _, _, stderr) = run(&log, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("another unit"), "{stderr}");
}

/// Formats fallcost does not read are refused by name, with what to export instead.
#[test]
fn unsupported_formats_are_refused_by_name() {
    let cases: [(&str, &[u8], &str); 4] = [
        (
            "traces.jsonl.zst",
            &[0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0],
            "zstd",
        ),
        (
            "jaeger.json",
            br#"{"data":[{"traceID":"ab","spans":[],"processes":{}}]}"#,
            "Jaeger",
        ),
        (
            "logs.jsonl",
            br#"{"resourceLogs":[{"scopeLogs":[]}]}"#,
            "OTLP logs",
        ),
        ("spans.parquet", b"PAR1\x00\x00", "Parquet"),
    ];
    for (file, bytes, name) in cases {
        let log = generate("refused", file, |w| w.extend_from_slice(bytes));
        let (code, _, _, stderr) = run(&log, &[]);
        assert_eq!(code, 2, "{file}: {stderr}");
        assert!(stderr.contains(name), "{file}: {stderr}");
    }
    // Forced to a format, zstd is still refused by name.
    let log = generate("refused", "forced.zst", |w| {
        w.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD, 1, 2])
    });
    let (code, _, _, stderr) = run(&log, &["--input-format", "otlp"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("zstd"), "{stderr}");
}

/// Provider names as instrumentations write them resolve in the price table.
#[test]
fn provider_names_are_normalised() {
    let line = |provider: &str, model: &str, i: u64| {
        format!(
            r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{{"traceId":"{i:032x}","spanId":"{i:016x}","startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{{"key":"gen_ai.operation.name","value":{{"stringValue":"chat"}}}},{{"key":"gen_ai.system","value":{{"stringValue":"{provider}"}}}},{{"key":"gen_ai.request.model","value":{{"stringValue":"{model}"}}}}],"status":{{"code":1}}}}]}}]}}]}}"#,
            1_784_368_800_000_000_000u64 + i * 1_000_000_000,
            1_784_368_801_000_000_000u64 + i * 1_000_000_000,
        )
    };
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&line("OpenAI", "gpt-6-sol", i));
        text.push('\n');
        text.push_str(&line("Anthropic", "claude-sonnet-5", 100 + i));
        text.push('\n');
    }
    let log = generate("providers", "traces.jsonl", |w| {
        w.extend_from_slice(text.as_bytes())
    });
    let (code, _, out, stderr) = run(&log, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("\"openai/gpt-6-sol\""), "{out}");
    assert!(out.contains("\"anthropic/claude-sonnet-5\""), "{out}");
    assert!(!out.contains("# TODO: price table"), "{out}");
}

/// `-q` prints one line for all the warnings; the scenario still lists them.
#[test]
fn quiet_summarises_the_warnings_in_one_line() {
    let t = Truth::default();
    let log = generate("quiet", "traces.jsonl", |w| {
        realgen::write_otlp(&t, 300, 33, Dialect::SemconvOld, false, w)
    });
    let (code, _, text, stderr) = run(&log, &["-q"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("# WARNING"), "{text}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines.len() <= 2, "{stderr}");
    assert!(stderr.contains("warning(s)"), "{stderr}");
}
