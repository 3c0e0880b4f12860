//! End to end: exit codes, error messages, output files and formats.

use crate::common;

use common::{close, fails, fallcost, json, num, ok, root, row};

#[test]
fn hand_checked_fixture_scenario() {
    // Primary $2.00/1k, fallback $4.00/1k, 10% fast primary failures:
    // sequential = 0.9·2 + 0.1·4 = 2.20; no-fallback = 1.80 with 100 failed per 1,000.
    let r = json(&[
        "compare",
        "--scenario",
        "tests/fixtures/scenarios/tiny.toml",
    ]);
    assert!(r["pricing"].as_str().unwrap().ends_with("tiny-prices.toml"));
    close(
        num(row(&r, "steady", "a-b", "sequential"), "cost_per_1k_usd"),
        2.2,
        1e-12,
    );
    let nf = row(&r, "steady", "a-b", "no-fallback");
    close(num(nf, "cost_per_1k_usd"), 1.8, 1e-12);
    close(num(nf, "failed_per_1k"), 100.0, 1e-9);
    close(num(nf, "vs_baseline"), -0.1, 1e-12);
    // Hedged take-first: both legs answer 90% of the time: C0 + X1 = 2 + 2 = 4 (X1 is b's input
    // side, $2 per 1k); primary fails 10%: C1 = 4 (fast failure billed 0).
    close(
        num(
            row(&r, "steady", "a-b", "hedged-take-first"),
            "cost_per_1k_usd",
        ),
        0.9 * 4.0 + 0.1 * 4.0,
        1e-12,
    );
    assert!(r["incident"].as_array().unwrap().is_empty());
}

#[test]
fn missing_scenario_file() {
    let e = fails(&["compare", "--scenario", "no/such/scenario.toml"]);
    assert!(e.contains("no/such/scenario.toml: no such file"), "{e}");
}

#[test]
fn directory_instead_of_a_file() {
    let e = fails(&["compare", "--scenario", "scenarios"]);
    assert!(e.contains("scenarios: is a directory"), "{e}");
}

#[test]
fn toml_syntax_error_names_the_line() {
    let e = fails(&["compare", "--scenario", "tests/fixtures/bad/syntax.toml"]);
    assert!(e.contains("tests/fixtures/bad/syntax.toml:2:"), "{e}");
    assert!(e.contains("invalid TOML"), "{e}");
}

#[test]
fn unknown_field_names_the_key_and_suggests_the_right_one() {
    let e = fails(&[
        "compare",
        "--scenario",
        "tests/fixtures/bad/unknown-field.toml",
    ]);
    assert!(
        e.contains("unknown-field.toml:8:1: steady.failur_rate: unknown field"),
        "{e}"
    );
    assert!(e.contains("did you mean `failure_rate`?"), "{e}");
}

#[test]
fn unknown_model_is_never_priced_as_zero() {
    let e = fails(&[
        "compare",
        "--scenario",
        "tests/fixtures/bad/unknown-model.toml",
    ]);
    assert!(e.contains("unknown-model.toml:9:"), "{e}");
    assert!(
        e.contains("chain[0].models[1]: unknown model `openai/gpt-7-ultra`"),
        "{e}"
    );
}

#[test]
fn out_of_range_rate() {
    let e = fails(&[
        "compare",
        "--scenario",
        "tests/fixtures/bad/rate-out-of-range.toml",
    ]);
    assert!(
        e.contains("rate-out-of-range.toml:7:16: steady.failure_rate: must be in [0, 1]; got 1.5"),
        "{e}"
    );
}

#[test]
fn missing_price_table_file() {
    let e = fails(&[
        "compare",
        "--scenario",
        "tests/fixtures/bad/missing-pricing.toml",
    ]);
    assert!(e.contains("no-such-prices.toml: no such file"), "{e}");
}

#[test]
fn negative_token_count() {
    let e = fails(&[
        "compare",
        "--scenario",
        "tests/fixtures/bad/negative-tokens.toml",
    ]);
    assert!(e.contains("request.output_tokens"), "{e}");
}

#[test]
fn scenario_without_chains() {
    let e = fails(&["compare", "--scenario", "tests/fixtures/bad/no-chain.toml"]);
    assert!(e.contains("chain"), "{e}");
}

#[test]
fn invalid_price_table() {
    let e = fails(&[
        "prices",
        "--pricing",
        "tests/fixtures/bad/prices-negative.toml",
    ]);
    assert!(
        e.contains("prices-negative.toml:2:9: models.\"a/b\".input"),
        "{e}"
    );
}

#[test]
fn unknown_bundled_table_lists_the_bundled_ones() {
    let e = fails(&["prices", "--pricing", "2019-01"]);
    assert!(e.contains("bundled: 2026-07"), "{e}");
}

#[test]
fn bad_set_override() {
    let e = fails(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--set",
        "incident.failure=slow",
    ]);
    assert!(e.contains("incident.failure"), "{e}");
    assert!(e.contains("fast") && e.contains("gray"), "{e}");
}

#[test]
fn usage_errors_exit_2() {
    let out = fallcost(&["compare"]);
    assert_eq!(out.status.code(), Some(2));
    let out = fallcost(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--format",
        "xml",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn prices_lists_the_bundled_table() {
    let out = ok(&["prices", "--pricing", "2026-07"]);
    for id in [
        "openai/gpt-5.6-sol",
        "anthropic/claude-sonnet-5",
        "anthropic/claude-haiku-4-5",
        "anthropic/claude-opus-5",
        "deepseek/deepseek-v4-flash",
        "openai/gpt-6-luna",
        "openai/gpt-6-sol",
        "openai/gpt-6-astra",
    ] {
        assert!(out.contains(id), "{id} missing:\n{out}");
    }
    assert!(out.contains("2026-07-18"));
    let csv = ok(&["prices", "--pricing", "2026-07", "--format", "csv"]);
    assert!(
        csv.starts_with(
            "model,provider,input,cached_input,cache_write,output,caching,cache_ttl_s,cache_write_1h,min_cache_prefix,context_tiers_above_tokens,service_tiers\n"
        )
    );
    assert!(
        csv.contains("anthropic/claude-sonnet-5,anthropic,2,0.2,2.5,10,explicit,300,,,,\n"),
        "{csv}"
    );
}

/// The bundled table is compiled in: a scenario outside the repository, naming `2026-07`, works
/// from any directory.
#[test]
fn bundled_prices_work_from_any_directory() {
    let dir = std::env::temp_dir().join(format!("fallcost-anywhere-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("scenarios/sept3.toml"), dir.join("s.toml")).unwrap();
    let out = common::fallcost_in(
        &dir,
        &["compare", "--scenario", "s.toml", "--format", "json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("513.5832"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_file_is_written_whole() {
    let dir = std::env::temp_dir().join(format!("fallcost-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sept3.csv");
    let p = path.to_str().unwrap();
    let stdout = ok(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "-f",
        "csv",
        "-o",
        p,
    ]);
    assert!(stdout.is_empty());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "scenario");
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(
        rows.len(),
        22,
        "8 steady + 8 incident rows + 6 failover-cache rows (3 request states, 2 chains)"
    );
    let idx = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let pm = rows
        .iter()
        .find(|r| {
            &r[idx("section")] == "incident"
                && &r[idx("chain")] == "price-matched"
                && &r[idx("pattern")] == "sequential"
        })
        .unwrap();
    assert_eq!(&pm[idx("total_usd")], "513.5832");
    // No leftover temporary files.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // A failing run leaves an existing output untouched.
    let out = fallcost(&[
        "compare",
        "--scenario",
        "tests/fixtures/bad/syntax.toml",
        "-o",
        p,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn markdown_output_is_pipe_tables() {
    let md = ok(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--format",
        "markdown",
    ]);
    assert!(md.starts_with("# Three providers down at once"), "{md}");
    assert!(md.contains("| sequential        |    513.58 |"), "{md}");
}

/// A closed pipe (`fallcost … | head -1`) is not an error: exit 0, nothing on stderr.
#[test]
fn closed_pipe_exits_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("fallcost-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 400 chains: far more output than a pipe buffers.
    let mut text = String::from("[request]\noutput_tokens = 500\ninput_tokens = 2000\n");
    for i in 0..400 {
        text.push_str(&format!(
            "[[chain]]\nname = \"c{i}\"\nmodels = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n"
        ));
    }
    std::fs::write(dir.join("big.toml"), text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(["compare", "--scenario", "big.toml"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // the reader is dropped here: the pipe is closed after one line
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with("big"), "{first}");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Names with commas, quotes and newlines survive a CSV round trip; a name a spreadsheet would
/// run as a formula is neutralised with a leading `'`.
#[test]
fn csv_names_round_trip_and_formulas_are_neutralised() {
    let dir = std::env::temp_dir().join(format!("fallcost-csvnames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "name = \"=HYPERLINK(\\\"http://x\\\")\"\n[request]\noutput_tokens = 5\n\
                [[chain]]\nname = \"a, \\\"quoted\\\"\\nname\"\nmodels = [\"openai/gpt-6-sol\"]\n\
                [[chain]]\nname = \"@SUM(1)\"\nmodels = [\"openai/gpt-6-sol\"]\n";
    std::fs::write(dir.join("names.toml"), text).unwrap();
    let out = common::fallcost_in(&dir, &["compare", "--scenario", "names.toml", "-f", "csv"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(&rows[0][0], "'=HYPERLINK(\"http://x\")");
    assert_eq!(&rows[0][2], "a, \"quoted\"\nname");
    assert!(rows.iter().any(|r| &r[2] == "'@SUM(1)"));
    // numbers are not guarded: a negative change stays a number
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--output` through a symbolic link replaces the link's target and keeps the link; a device
/// such as /dev/null is written straight through, never replaced by a regular file.
#[test]
fn output_follows_links_and_writes_through_devices() {
    let dir = std::env::temp_dir().join(format!("fallcost-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("target.txt");
    let link = dir.join("link.txt");
    std::fs::write(&target, "old").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(&["prices", "-f", "csv", "-o", link.to_str().unwrap()]);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .starts_with("model,provider")
    );
    ok(&["prices", "-o", "/dev/null"]);
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-o /dev/stdout` writes to the stream the shell opened: a log the shell redirected stdout
/// into keeps what came before (it was replaced by the CSV alone), and a pipe works (it was "a
/// link to nothing"). A replaced file keeps its permissions.
#[test]
fn output_to_dev_stdout_keeps_the_shell_redirection() {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("fallcost-stdout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.txt");
    let mut file = std::fs::File::create(&log).unwrap();
    file.write_all(b"HEADER\n").unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(["prices", "-f", "csv", "-o", "/dev/stdout"])
        .current_dir(root())
        .stdout(file)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("HEADER\nmodel,provider"), "{text}");
    let piped = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(["prices", "-f", "csv", "-o", "/dev/stdout"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert!(String::from_utf8_lossy(&piped.stdout).starts_with("model,provider"));

    let private = dir.join("private.csv");
    std::fs::write(&private, "old").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    ok(&["prices", "-f", "csv", "-o", private.to_str().unwrap()]);
    let mode = std::fs::metadata(&private).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The incident table's printed parts add up to its printed total in every row of every
/// shipped scenario, and at window lengths where a part sits on a half cent (18.235 printed as
/// 18.23 beside a total of 18.24) or the bill is under $1 (0.175: more digits, as everywhere).
#[test]
fn incident_rows_add_up_as_printed() {
    let mut runs: Vec<Vec<String>> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            vec!["compare".into(), "-s".into(), path.to_str().unwrap().into()]
        })
        .collect();
    for set in [
        vec!["incident.duration=1042s"],
        vec!["incident.duration=1090s"],
        vec!["request.input_tokens=20", "request.output_tokens=5"],
    ] {
        let mut args: Vec<String> = ["compare", "-s", "scenarios/failover-chains.toml"]
            .map(String::from)
            .to_vec();
        for s in set {
            args.extend(["--set".into(), s.into()]);
        }
        runs.push(args);
    }
    let units = |cell: &str| -> i64 {
        // Every cell of one row has the same number of decimals or fewer: count in 1e-6 USD.
        let cell = cell.trim().trim_start_matches("sim ").replace(',', "");
        let (int, frac) = cell.split_once('.').unwrap_or((&cell, ""));
        assert!(frac.len() <= 6, "{cell}");
        int.parse::<i64>().unwrap() * 1_000_000 + format!("{frac:0<6}").parse::<i64>().unwrap()
    };
    let mut rows = 0;
    for args in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ok(&args);
        let mut in_incident = false;
        for line in out.lines() {
            if line.starts_with("Incident") {
                in_incident = true;
            } else if line.is_empty() {
                in_incident = false;
            }
            let cells: Vec<&str> = line.split('┆').collect();
            // (a header wrapped onto two lines at 80 columns: `total` over `USD`)
            if !in_incident
                || cells.len() < 7
                || cells[1].contains("total")
                || cells[1].trim() == "USD"
            {
                continue;
            }
            let total = units(cells[1]);
            let parts: i64 = cells[3..6].iter().map(|c| units(c)).sum();
            assert_eq!(total, parts, "{} :: {line}", args.join(" "));
            rows += 1;
        }
    }
    assert!(rows >= 40, "only {rows} incident rows found");
    let small = ok(&[
        "compare",
        "-s",
        "scenarios/failover-chains.toml",
        "--chain",
        "sol-sonnet-haiku",
        "--set",
        "request.input_tokens=20",
        "--set",
        "request.output_tokens=5",
    ]);
    let no_fallback = small
        .lines()
        .find(|l| l.contains("no-fallback") && l.contains("0.70x"))
        .unwrap();
    assert!(no_fallback.contains("0.175 ┆"), "{no_fallback}");
}

/// `--set` takes one value: a whole table would silently drop the fields it does not name.
#[test]
fn set_refuses_a_table_value() {
    let e = fails(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--set",
        "request={output_tokens=5}",
    ]);
    assert!(
        e.contains("--set request={output_tokens=5}: takes one value, not a table"),
        "{e}"
    );
}

/// A `--set` that fails names the flag and the KEY=VALUE given, never a line of the file, and
/// says what is allowed; exit code 2.
#[test]
fn set_errors_name_the_flag_and_what_is_allowed() {
    let cases = [
        (
            "request=3",
            "`request` is a table, not a value: set one field at a time, as --set request.FIELD=VALUE, FIELD one of: input_tokens, output_tokens, prefix_tokens, cache_hit_rate, cache_ttl, cache_miss, requires (in scenarios/sept3.toml)",
        ),
        (
            "policy.breaker=1",
            "`policy.breaker` is a table, not a value: set one field at a time, as --set policy.breaker.FIELD=VALUE, FIELD one of: threshold, cooldown_s (in scenarios/sept3.toml)",
        ),
        (
            "nosuch.key=1",
            "nosuch: unknown field; allowed: name, description, pricing, service_tier, request, chain, steady, incident, policy, latency, capacity (in scenarios/sept3.toml)",
        ),
        (
            "steady.failur_rate=0",
            "unknown field (did you mean `failure_rate`?); allowed: failure_rate,",
        ),
        (
            "chain.name=x",
            "`chain` is an array of tables ([[chain]]): --set reaches one element by its name, as chain.NAME.FIELD",
        ),
        (
            "request.output_tokens.x=1",
            "`request.output_tokens` is a value, not a table: set it as --set request.output_tokens=VALUE",
        ),
        (
            "policy.breaker.threshold=0",
            "policy.breaker.cooldown_s: required field is missing",
        ),
        (
            "policy.failover_on=[\"quota\"]",
            "policy.failover_on[0]: `quota`: quota and billing errors stop the chain, they never fail over; allowed: rate_limit, overload, server_error, timeout, client (in",
        ),
        (
            "incident.duration=soon",
            "`soon` is not a duration; expected a duration with units",
        ),
    ];
    for (set, want) in cases {
        let e = fails(&[
            "compare",
            "--scenario",
            "scenarios/sept3.toml",
            "--set",
            set,
        ]);
        assert!(e.starts_with(&format!("error: --set {set}: ")), "{e}");
        assert!(e.contains(want), "--set {set}: want `{want}`\n got {e}");
        assert!(
            !e.contains("sept3.toml:"),
            "a file line for --set {set}: {e}"
        );
    }
    // A table of the file holding the override: the override first, the table's line after.
    let e = fails(&[
        "compare",
        "--scenario",
        "scenarios/policies.toml",
        "--set",
        "policy.backoff.base_s=100",
    ]);
    assert!(
        e.starts_with(
            "error: --set policy.backoff.base_s=100: policy.backoff: base_s (100) is above cap_s (8)"
        ),
        "{e}"
    );
    assert!(e.contains("(in scenarios/policies.toml:40:11)"), "{e}");
}

/// `failover_on`'s error lists exactly the classes the loader accepts: each listed one loads,
/// every other class (`quota`: quota errors stop the chain) is refused.
#[test]
fn failover_on_error_lists_exactly_what_the_loader_accepts() {
    let set = |classes: &str| format!("policy.failover_on=[{classes}]");
    let e = fails(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--set",
        &set("\"nope\""),
    ]);
    let listed: Vec<String> = e
        .split("allowed: ")
        .nth(1)
        .and_then(|rest| rest.split(" (in ").next())
        .unwrap_or_else(|| panic!("no allowed list: {e}"))
        .split(", ")
        .map(String::from)
        .collect();
    assert_eq!(
        listed,
        [
            "rate_limit",
            "overload",
            "server_error",
            "timeout",
            "client"
        ]
    );
    for class in fallcost::model::policy::ErrorClass::ALL {
        let args = [
            "compare",
            "--scenario",
            "scenarios/sept3.toml",
            "--set",
            &set(&format!("\"{}\"", class.as_str())),
        ];
        if listed.iter().any(|l| l == class.as_str()) {
            ok(&args);
        } else {
            let e = fails(&args);
            assert!(
                e.contains("allowed: rate_limit, overload, server_error, timeout, client"),
                "{e}"
            );
        }
    }
}

/// `--mc-runs` beyond what the incident simulation takes on (2e9 simulated requests) is an
/// error naming the flag and the allowed range, from the scenario's window (every chain's
/// requests, split by traffic share where chains have one); the default that does not fit
/// skips the incident windows with a warning. `--help` gives the same limit.
#[test]
fn mc_runs_that_cannot_run_are_an_error_with_the_allowed_range() {
    use fallcost::report::MAX_INCIDENT_WORK;
    let load = |path: &str| {
        fallcost::ops::compare::analytic(
            &fallcost::input::scenario::load(&root().join(path), &[]).unwrap(),
        )
    };
    // sept3: two chains of 11,160 requests, 4 patterns; policies: three chains sharing them
    let sept3 = load("scenarios/sept3.toml").max_incident_runs().unwrap();
    assert_eq!(
        sept3,
        (MAX_INCIDENT_WORK / (4.0 * 2.0 * 11160.0)).floor() as u64
    );
    assert_eq!(sept3, 22401);
    let policies = load("scenarios/policies.toml").max_incident_runs().unwrap();
    assert_eq!(policies, 44802);
    for (scenario, max) in [("sept3", sept3), ("policies", policies)] {
        let runs = (max + 1).to_string();
        let e = fails(&[
            "compare",
            "--scenario",
            &format!("scenarios/{scenario}.toml"),
            "--mc",
            "1000",
            "--seed",
            "1",
            "--mc-runs",
            &runs,
        ]);
        assert!(
            e.starts_with(&format!(
                "error: --mc-runs {runs} is too many for this scenario: each incident window is"
            )),
            "{e}"
        );
        assert!(
            e.contains(&format!("at most 2e9 in all; allowed: 2 to {max}\n")),
            "{e}"
        );
    }
    let e = fails(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--mc",
        "1000",
        "--mc-runs",
        "1e19",
    ]);
    assert!(e.contains("allowed: 2 to 22401"), "{e}");
    // the default, too many for a long busy outage: priced analytically, with a warning
    let args = [
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--set",
        "incident.requests_per_second=1000",
        "--set",
        "incident.duration=2d",
        "--mc",
        "1000",
        "--seed",
        "1",
        "--format",
        "json",
    ];
    let out = fallcost(&args);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("incident windows not simulated: --mc-runs 200 is too many")
            && stderr.contains("not even 2 windows fit"),
        "{stderr}"
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["incident"][0].get("mc").is_none());
    assert!(
        r["mc"]["incident_skipped"]
            .as_str()
            .unwrap()
            .contains("too many")
    );
    // --help states the limit the code applies
    let help = ok(&["compare", "--help"]);
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("at most {MAX_INCIDENT_WORK:e} simulated requests")),
        "{flat}"
    );
    assert!(flat.contains("22,401 for scenarios/sept3.toml"), "{flat}");
}

/// Usage errors from the argument parser are one line too.
#[test]
fn usage_errors_are_one_line() {
    let e = fails(&[
        "compare",
        "--scenario",
        "scenarios/sept3.toml",
        "--format",
        "xml",
    ]);
    assert!(
        e.contains("invalid value 'xml' for '--format <FORMAT>'"),
        "{e}"
    );
    let e = fails(&["compare"]);
    assert!(e.contains("--scenario <PATH>"), "{e}");
    // The pointer names the subcommand's help, where the flags are.
    let e = fails(&["compare", "-s", "scenarios/sept3.toml", "--bogus"]);
    assert!(e.ends_with("(see `fallcost compare --help`)\n"), "{e}");
    // A negative ratio is a value to refuse, not a flag (clap suggested `-- -1`).
    let e = fails(&["check", "--max-ratio", "-1", "scenarios"]);
    assert!(e.contains("expected a number > 0"), "{e}");
    assert!(e.ends_with("(see `fallcost check --help`)\n"), "{e}");
}

/// `--set request.prefix_tokens=1e12`: a whole number written with an exponent sets a token
/// count (it was refused as a float), and stays a number where any number is taken.
#[test]
fn set_takes_whole_numbers_written_with_an_exponent() {
    let baseline = |prefix: &str, rate: &str| {
        let r = json(&[
            "compare",
            "-s",
            "scenarios/failover-cache.toml",
            "--set",
            &format!("request.prefix_tokens={prefix}"),
            "--set",
            &format!("steady.failure_rate={rate}"),
        ]);
        num(
            row(&r, "steady", "sol-sonnet", "sequential"),
            "cost_per_1k_usd",
        )
    };
    let exponent = baseline("1e6", "5e-1");
    assert_eq!(exponent, baseline("1000000", "0.5"));
    assert!(exponent > baseline("15000", "0.5"));
    let e = fails(&[
        "compare",
        "-s",
        "scenarios/failover-cache.toml",
        "--set",
        "request.prefix_tokens=1.5e0",
    ]);
    assert!(e.contains("prefix_tokens"), "{e}");
}

/// `--chain` keeping some of a traffic-share scenario's chains leaves out the blended rows in
/// every format (they weight every chain by its share: 10% of one chain is no blend) and says
/// why, once, on standard error; the chains' own rows are unchanged. Keeping every chain keeps
/// the blend.
#[test]
fn chain_subset_of_a_traffic_share_scenario_drops_the_blend() {
    let scenario = "scenarios/policies.toml";
    let note = |selected: usize| {
        format!(
            "fallcost: note: the blended rows (all chains, weighted by traffic share) are left out: the blend needs every chain's traffic_share, and --chain selected {selected} of the 3 chains\n"
        )
    };
    for (chains, selected) in [(&["complex"][..], 1), (&["medium", "complex"][..], 2)] {
        let mut json_out = String::new();
        for format in ["table", "csv", "json", "markdown"] {
            let mut args = vec!["compare", "--scenario", scenario, "--format", format];
            for c in chains {
                args.extend(["--chain", c]);
            }
            let out = fallcost(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let stdout = String::from_utf8(out.stdout).unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(stderr, note(selected), "{args:?}");
            for blended in ["All chains, weighted by traffic share", "all chains (by"] {
                assert!(!stdout.contains(blended), "{args:?}: {blended}\n{stdout}");
            }
            assert!(stdout.contains("complex"), "{args:?}");
            if format == "json" {
                json_out = stdout;
            }
        }
        // the JSON of the run above (one simulation of the breaker's figures less)
        let r: serde_json::Value = serde_json::from_str(&json_out).expect("valid JSON");
        // the complex chain's own figures: Opus 5 at $87.00 per 1,000 less its failures
        close(
            num(
                row(&r, "steady", "complex", "no-fallback"),
                "cost_per_1k_usd",
            ),
            86.984800362,
            1e-9,
        );
        close(
            num(row(&r, "incident", "complex", "sequential"), "total_usd"),
            // simulated (a breaker): the fixed-seed figure over 128 windows (its bill within
            // 0.3%); the MC gives 70.887 ± 0.025
            70.86714375,
            1e-9,
        );
        let steady = r["steady"].as_array().unwrap();
        assert_eq!(steady.len(), 4 * selected);
        assert_eq!(r["incident"].as_array().unwrap().len(), 4 * selected);
    }
    // With --mc: no blended rows to simulate, the chain's own rows simulated.
    let out = fallcost(&[
        "compare",
        "-s",
        scenario,
        "--chain",
        "complex",
        "--mc",
        "1000",
        "--mc-runs",
        "2",
        "--seed",
        "1",
        "-f",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), note(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["steady"].as_array().unwrap().len(), 4);
    assert!(row(&r, "steady", "complex", "sequential")["mc"].is_object());
    // Every chain named: the blend, weighted 60/30/10, and no note.
    let out = fallcost(&[
        "compare", "-s", scenario, "--chain", "simple", "--chain", "medium", "--chain", "complex",
        "-f", "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    close(
        num(
            row(&r, "steady", "all chains (by traffic_share)", "no-fallback"),
            "cost_per_1k_usd",
        ),
        0.6 * 17.3969600724 + 0.3 * 34.7939201448 + 0.1 * 86.984800362,
        1e-8,
    );
    // A scenario without traffic shares has no blend to leave out: no note.
    let out = fallcost(&[
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--chain",
        "price-matched",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--mc N` takes at most 1e12 requests per chain (hours of simulation), in compare and sweep
/// (and `bench --requests`): a larger N, even one beyond u64, is refused at once (exit 2) with
/// the flag, the value and the allowed range; `--help` states the limit.
#[test]
fn mc_requests_have_a_documented_maximum() {
    let range = "is out of range; allowed: 2 to 1e12 requests per chain (2 for a confidence interval; 1e12 is hours of simulation)";
    for n in ["1e18", "1e20", "100000000000000000000", "1000000000001"] {
        for args in [
            &["compare", "-s", "scenarios/sept3.toml", "--mc", n][..],
            &[
                "sweep",
                "-s",
                "scenarios/sept3.toml",
                "--param",
                "steady.failure_rate=0:0.1:0.1",
                "--mc",
                n,
            ][..],
        ] {
            let e = fails(args);
            assert_eq!(
                e,
                format!(
                    "error: invalid value '{n}' for '--mc [<N>]': `{n}` {range} (see `fallcost {} --help`)\n",
                    args[0]
                ),
                "{args:?}"
            );
        }
    }
    let e = fails(&["bench", "--requests", "1e13"]);
    assert!(
        e.contains(
            "invalid value '1e13' for '--requests <N>': `1e13` is out of range; allowed: 2 to 1e12"
        ),
        "{e}"
    );
    for cmd in ["compare", "sweep"] {
        let help = ok(&[cmd, "--help"]);
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("at most 1e12, hours of simulation"),
            "{cmd}: {flat}"
        );
    }
}

/// `--set` KEY follows TOML's dotted keys: a double-quoted key holding dots reaches
/// `[latency."openai/gpt-5.6-sol"]` exactly as editing the file does; a key without dots works
/// quoted or not; an unquoted id with a dot is split, and the error says how to quote it.
#[test]
fn set_reaches_latency_entries_of_models_with_dots() {
    let scenario = "scenarios/hedge-latency.toml";
    let text = std::fs::read_to_string(root().join(scenario)).unwrap();
    let edited = text.replace(
        "[latency.\"openai/gpt-5.6-sol\"]\np50_s = 2.0",
        "[latency.\"openai/gpt-5.6-sol\"]\np50_s = 1.0",
    );
    assert_ne!(edited, text);
    let dir = std::env::temp_dir().join(format!("fallcost-dotted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("hedge-latency.toml");
    std::fs::write(&copy, edited).unwrap();
    let want = ok(&["compare", "-s", copy.to_str().unwrap(), "-f", "json"]);
    std::fs::remove_dir_all(&dir).unwrap();
    for set in [
        r#"latency."openai/gpt-5.6-sol".p50_s=1"#,
        "latency.'openai/gpt-5.6-sol'.p50_s=1",
        r#"latency . "openai/gpt-5.6-sol" . p50_s=1"#,
    ] {
        let got = ok(&["compare", "-s", scenario, "--set", set, "-f", "json"]);
        assert_eq!(got, want, "--set {set}");
    }
    assert_ne!(ok(&["compare", "-s", scenario, "-f", "json"]), want);
    // the primary's p50 drops from 2 s to 1 s: fewer healthy requests trip the 10 s timeout
    let r: serde_json::Value = serde_json::from_str(&want).unwrap();
    let base = json(&["compare", "-s", scenario]);
    let seq = |r: &serde_json::Value| {
        num(
            row(r, "steady", "sol-sonnet-haiku", "sequential"),
            "cost_per_1k_usd",
        )
    };
    assert!(seq(&r) < seq(&base), "{} vs {}", seq(&r), seq(&base));
    // a model id without a dot: quoted or not, the same setting
    assert_eq!(
        ok(&[
            "compare",
            "-s",
            scenario,
            "--set",
            "latency.anthropic/claude-sonnet-5.p50_s=1"
        ]),
        ok(&[
            "compare",
            "-s",
            scenario,
            "--set",
            r#"latency."anthropic/claude-sonnet-5".p50_s=1"#
        ])
    );
    let e = fails(&[
        "compare",
        "-s",
        scenario,
        "--set",
        "latency.openai/gpt-5.6-sol.p50_s=1",
    ]);
    assert_eq!(
        e,
        "error: --set latency.openai/gpt-5.6-sol.p50_s=1: latency.\"openai/gpt-5\".6-sol: unknown field; allowed: p50_s, p99_s; quote a key holding a dot: latency.\"openai/gpt-5.6-sol\".p50_s (in scenarios/hedge-latency.toml)\n"
    );
    let e = fails(&[
        "compare",
        "-s",
        scenario,
        "--set",
        r#"latency."openai/gpt-5.6-sol.p50_s=1"#,
    ]);
    assert!(
        e.contains(r#"`latency."openai/gpt-5.6-sol.p50_s` has an unterminated quote"#),
        "{e}"
    );
    // errors print a key with quotes where TOML needs them
    let e = fails(&[
        "compare",
        "-s",
        scenario,
        "--set",
        r#"latency."openai/gpt-5.6-sol".p50_s="x""#,
    ]);
    assert!(
        e.starts_with(r#"error: --set latency."openai/gpt-5.6-sol".p50_s="x": invalid type: string "x", expected a number"#),
        "{e}"
    );
    // --help says how
    let help = ok(&["compare", "--help"]);
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(r#"KEY is a TOML dotted key: a key holding a dot is double-quoted, as in the file, `--set 'latency."openai/gpt-5.6-sol".p50_s=1.5'`"#),
        "{flat}"
    );
}

/// Type errors in words: a negative count is "a whole number >= 0" (not serde's `u32`), a huge
/// float prints compactly (`1e300`, not 301 digits), and a `--set` value TOML reads as a
/// number or boolean where text is wanted gets the quoting that makes it text.
#[test]
fn set_type_errors_speak_plainly() {
    for (set, want) in [
        (
            "policy.retries=-1",
            "invalid value: integer `-1`, expected a whole number >= 0 (at most 4294967295)",
        ),
        (
            "request.output_tokens=1e300",
            "invalid type: floating point `1e300`, expected a whole number >= 0",
        ),
        (
            "name=3",
            "invalid type: integer `3`, expected a string; for the text 3, quote it: --set 'name=\"3\"'",
        ),
        (
            "pricing=true",
            "invalid type: boolean `true`, expected a string; for the text true, quote it: --set 'pricing=\"true\"'",
        ),
    ] {
        let e = fails(&["compare", "-s", "scenarios/sept3.toml", "--set", set]);
        assert_eq!(
            e,
            format!("error: --set {set}: {want} (in scenarios/sept3.toml)\n")
        );
    }
    // the quoting the hint gives works
    let r = json(&[
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--set",
        "name=\"3\"",
    ]);
    assert_eq!(r["scenario"], "3");
}

/// A scenario given as a price table, or a price table as a scenario, is refused with a hint
/// naming the kind of file it looks like and the command that reads it.
#[test]
fn the_wrong_kind_of_file_says_what_it_looks_like() {
    let e = fails(&["prices", "--pricing", "scenarios/sept3.toml"]);
    assert!(e.starts_with("error: scenarios/sept3.toml:"), "{e}");
    assert!(e.contains("this looks like a scenario"), "{e}");
    assert!(e.contains("fallcost compare --scenario"), "{e}");
    let e = fails(&["compare", "-s", "pricing/2026-07.toml"]);
    assert!(e.contains("models: unknown field"), "{e}");
    assert!(e.contains("this looks like a price table"), "{e}");
}

/// An endless input (`/dev/zero`) or one past 64 MiB is refused with its size limit instead of
/// being read until memory runs out; a gateway config's `include` of it too.
#[test]
fn endless_inputs_are_refused_by_size() {
    let e = fails(&["compare", "-s", "/dev/zero"]);
    assert!(e.contains("/dev/zero: larger than 64 MiB"), "{e}");
    let e = fails(&["prices", "--pricing", "/dev/zero"]);
    assert!(e.contains("larger than 64 MiB"), "{e}");
    let dir = std::env::temp_dir().join(format!("fallcost-endless-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        "include:\n  - /dev/zero\nmodel_list:\n  - {model_name: a, litellm_params: {model: anthropic/claude-sonnet-5}}\n",
    )
    .unwrap();
    let e = fails(&["check", config.to_str().unwrap()]);
    assert!(e.contains("larger than 64 MiB"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `fallcost check` on an ordinary LiteLLM proxy config needs no `--pricing`: the bundled
/// LiteLLM snapshot prices gpt-4o, claude-sonnet-4-5, gemini-2.5-pro, deepseek-chat and
/// mistral-large-latest. At 2,000 in / 500 out per 1,000 requests: deepseek-chat 0.56 + 0.21 =
/// $0.77, mistral-large-latest 1.00 + 0.75 = $1.75, 2.27x: the one finding.
#[test]
fn check_defaults_to_the_litellm_snapshot() {
    let out = fallcost(&[
        "check",
        "tests/fixtures/check/real/proxy.yaml",
        "--format",
        "json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["pricing"], "litellm-1.110.2");
    assert_eq!(doc["errors"].as_array().unwrap().len(), 0);
    let f = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "above-ratio")
        .unwrap();
    assert_eq!(f["fallback"]["min_per_1k_usd"], 1.75);
    assert_eq!(f["primary"]["min_per_1k_usd"], 0.77);
    assert_eq!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "above-ratio")
            .count(),
        1
    );
}

#[test]
fn prices_filter_list_and_columns() {
    let out = ok(&[
        "prices",
        "gemini-2.5-pro",
        "--provider",
        "vertex_ai",
        "-f",
        "csv",
    ]);
    assert!(
        out.contains("gemini-2.5-pro,vertex_ai-language-models,1.25,0.125,,10,automatic,600,,2048,200000,batch;flex;priority\n"),
        "{out}"
    );
    let table = ok(&["prices", "claude-sonnet-4-5", "--provider", "anthropic"]);
    // too wide for a boxed table with whole ids at 80 columns: one line per model, the header
    // wrapped (`write` over `1h`, right-aligned over the prices)
    let lines: Vec<&str> = table.lines().collect();
    let at = |l: &str, word: &str| l.find(word).map(|i| i + word.len());
    let header: Vec<&&str> = lines
        .iter()
        .skip_while(|l| !l.starts_with("USD per"))
        .skip(1)
        .take_while(|l| !l.starts_with('─'))
        .collect();
    let write_ends = header.iter().find_map(|l| at(l, " write"));
    assert!(write_ends.is_some(), "{table}");
    assert_eq!(
        write_ends,
        header.iter().find_map(|l| at(l, "    1h")),
        "{table}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("claude-sonnet-4-5-20250929 ") && l.ends_with(" anthropic")),
        "{table}"
    );
    assert!(table.contains("2 of 3,683 models shown"), "{table}");
    let list = ok(&["prices", "--list"]);
    assert!(
        list.contains("  2026-07  2026-07-18\n    default for "),
        "{list}"
    );
    assert!(
        list.contains("litellm-1.110.2 (also: litellm)  2026-12-01"),
        "{list}"
    );
}

/// `--update` downloads into the cache directory through a temporary file, from a server on
/// 127.0.0.1; a failed download leaves the cache as it was; `--pricing latest` reads it.
#[test]
fn prices_update_from_a_local_server() {
    use std::io::{Read, Write};
    let dir = std::env::temp_dir().join(format!("fallcost-update-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let body = r#"{"x/m": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "litellm_provider": "x"}}"#;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        for (i, stream) in listener.incoming().take(2).enumerate() {
            let mut s = stream.unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let reply = if i == 0 {
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            } else {
                "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{\"x/m\": {"
                    .to_string()
            };
            s.write_all(reply.as_bytes()).unwrap();
        }
    });
    let url = format!("http://127.0.0.1:{port}/prices.json");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
            .args(args)
            .env("FALLCOST_CACHE_DIR", &dir)
            .output()
            .unwrap()
    };
    let out = run(&["prices", "--update", &url]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cached = dir.join("model_prices_and_context_window.json");
    assert_eq!(std::fs::read_to_string(&cached).unwrap(), body);
    // A truncated answer is refused and the cache keeps the good file, with no temporary left.
    let out = run(&["prices", "--update", &url]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("the cache is unchanged"));
    assert_eq!(std::fs::read_to_string(&cached).unwrap(), body);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    server.join().unwrap();
    let out = run(&["prices", "--pricing", "latest", "-f", "csv"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("x/m,x,1,,,2,none,0,,,,\n"));
    // Nothing listening: a clear error, exit 2.
    let out = run(&["prices", "--update", "http://127.0.0.1:9/none.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot download http://127.0.0.1:9/none.json")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `groq/gpt-6-sol` is not OpenAI's gpt-6-sol: with a table that has no Groq price it is an
/// unknown model (exit 2), never OpenAI's price with a note.
#[test]
fn check_never_borrows_another_providers_price() {
    let out = fallcost(&[
        "check",
        "tests/fixtures/check/real/groq.yaml",
        "--pricing",
        "2026-07",
    ]);
    // LiteLLM serves the config: an `unpriced` error finding (exit 1), not an input error.
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("groq.yaml:5: error: not priced: `groq/gpt-6-sol`"),
        "{text}"
    );
}
