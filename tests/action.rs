//! The GitHub Action (`action.yml`, its run script `action/check.sh`) and the pre-commit hook
//! (`.pre-commit-hooks.yaml`): their declarations are checked field by field, and the action's
//! script is run here as the runner would run it, with its `INPUT_*` variables.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::root;
use saphyr::{LoadableYamlNode, Yaml};

fn yaml(path: &str) -> Yaml<'static> {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let text: &'static str = Box::leak(text.into_boxed_str());
    Yaml::load_from_str(text).unwrap().remove(0)
}

fn get<'a>(y: &'a Yaml<'static>, key: &str) -> &'a Yaml<'static> {
    y.as_mapping_get(key)
        .unwrap_or_else(|| panic!("no key {key} in {y:?}"))
}

fn string(y: &Yaml<'_>) -> String {
    y.as_str()
        .map(str::to_string)
        .or_else(|| y.as_integer().map(|i| i.to_string()))
        .or_else(|| y.as_bool().map(|b| b.to_string()))
        .unwrap_or_else(|| panic!("not a scalar: {y:?}"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fallcost-action-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Run `action/check.sh` from the repository root with these inputs (`paths` → `INPUT_PATHS`,
/// `max-ratio` → `INPUT_MAX_RATIO`, …), the built fallcost as `FALLCOST`, and a
/// `GITHUB_OUTPUT` file; the output and what was written to `GITHUB_OUTPUT`.
fn run_action(inputs: &[(&str, &str)], tag: &str) -> (Output, String) {
    let github_output = tmp(&format!("github-output-{tag}"));
    let _ = std::fs::remove_file(&github_output);
    let mut cmd = Command::new("bash");
    cmd.arg("action/check.sh")
        .current_dir(root())
        .env("FALLCOST", env!("CARGO_BIN_EXE_fallcost"))
        .env("GITHUB_OUTPUT", &github_output);
    for (k, v) in inputs {
        cmd.env(format!("INPUT_{}", k.to_uppercase().replace('-', "_")), v);
    }
    let out = cmd.output().expect("bash runs");
    let written = std::fs::read_to_string(&github_output).unwrap_or_default();
    (out, written)
}

#[test]
fn the_action_declares_a_composite_that_installs_and_passes_every_input() {
    let action = yaml("action.yml");
    assert_eq!(string(get(&action, "name")), "fallcost check");
    let runs = get(&action, "runs");
    assert_eq!(string(get(runs, "using")), "composite");
    let steps = get(runs, "steps").as_sequence().unwrap();
    assert_eq!(steps.len(), 2);
    let install = string(get(&steps[0], "run"));
    assert_eq!(
        install,
        "cargo install --locked --path \"$GITHUB_ACTION_PATH\" --root \"$RUNNER_TEMP/fallcost\""
    );
    let check = &steps[1];
    assert_eq!(
        string(get(check, "run")),
        "bash \"$GITHUB_ACTION_PATH/action/check.sh\""
    );
    for step in steps {
        assert_eq!(string(get(step, "shell")), "bash");
    }
    let env = get(check, "env").as_mapping().unwrap();
    assert_eq!(
        string(get(get(check, "env"), "FALLCOST")),
        "${{ runner.temp }}/fallcost/bin/fallcost",
        "the binary the install step put there"
    );
    let inputs = get(&action, "inputs").as_mapping().unwrap();
    let mut names = Vec::new();
    for (name, spec) in inputs {
        let name = string(name);
        assert!(!string(get(spec, "description")).is_empty(), "{name}");
        assert!(
            spec.as_mapping_get("default").is_some(),
            "{name} has no default"
        );
        // each input reaches the script as INPUT_NAME
        let var = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        let passed = env
            .iter()
            .find(|(k, _)| string(k) == var)
            .unwrap_or_else(|| panic!("{name} is not passed to the script"));
        assert_eq!(string(passed.1), format!("${{{{ inputs.{name} }}}}"));
        names.push(name);
    }
    for want in ["paths", "max-ratio", "format"] {
        assert!(names.iter().any(|n| n == want), "no input {want}");
    }
    assert_eq!(
        string(get(get(inputs_of(&action), "format"), "default")),
        "github"
    );
    assert_eq!(
        string(get(get(inputs_of(&action), "max-ratio"), "default")),
        "2"
    );
    // every INPUT_ the script reads is declared
    let script = std::fs::read_to_string(root().join("action/check.sh")).unwrap();
    for var in script.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if let Some(input) = var.strip_prefix("INPUT_").filter(|i| !i.is_empty()) {
            let name = input.to_lowercase().replace('_', "-");
            assert!(names.contains(&name), "the script reads undeclared {var}");
        }
    }
}

fn inputs_of<'a>(action: &'a Yaml<'static>) -> &'a Yaml<'static> {
    get(action, "inputs")
}

#[test]
fn the_action_script_annotates_by_default_and_fails_on_a_finding() {
    let (out, written) = run_action(
        &[("paths", "tests/fixtures/check/litellm/ratios.yaml")],
        "default",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(
            "::error file=tests/fixtures/check/litellm/ratios.yaml,line=17,title=fallcost check::"
        ),
        "{stdout}"
    );
    assert_eq!(written, "exit-code=1\nreport=\n");

    // max-ratio lifts the bar: 2.004x passes at 2.01; newline-separated paths
    let (out, written) = run_action(
        &[
            (
                "paths",
                "tests/fixtures/check/litellm/ratios.yaml\ntests/fixtures/check/clean",
            ),
            ("max-ratio", "2.01"),
            ("format", "text"),
        ],
        "ratio",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(
        stdout,
        "fallcost check: 3 files, 3 chains, 4 fallback links at --max-ratio 2.01: 0 errors, 0 warnings, 0 notes; 3 paths skipped (--verbose lists them)\n"
    );
    assert_eq!(written, "exit-code=0\nreport=\n");
}

#[test]
fn the_action_script_writes_sarif_for_upload() {
    let sarif = tmp("out.sarif");
    let (out, written) = run_action(
        &[
            ("paths", "tests/fixtures/check/litellm/ratios.yaml"),
            ("format", "sarif"),
            ("output", sarif.to_str().unwrap()),
        ],
        "sarif",
    );
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&sarif).unwrap()).expect("a SARIF file");
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(doc["runs"][0]["results"][0]["ruleId"], "above-ratio");
    assert_eq!(
        written,
        format!("exit-code=1\nreport={}\n", sarif.display())
    );
}

#[test]
fn the_action_script_refuses_bad_inputs() {
    let (out, _) = run_action(&[("format", "xml")], "bad-format");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "::error title=fallcost check::format must be github, text, json or sarif; got 'xml'"
    ));
    let (out, _) = run_action(&[("deny-warnings", "yes")], "bad-deny");
    assert_eq!(out.status.code(), Some(2));
    // a bad max-ratio is fallcost's own usage error, exit 2
    let (out, written) = run_action(
        &[("paths", "tests/fixtures/check/clean"), ("max-ratio", "-1")],
        "bad-ratio",
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(written, "exit-code=2\nreport=\n");
}

#[test]
fn the_pre_commit_hook_runs_fallcost_check() {
    let hooks = yaml(".pre-commit-hooks.yaml");
    let hooks = hooks.as_sequence().expect("a list of hooks");
    assert_eq!(hooks.len(), 1);
    let hook = &hooks[0];
    assert_eq!(string(get(hook, "id")), "fallcost-check");
    assert_eq!(string(get(hook, "name")), "fallcost check");
    assert!(!string(get(hook, "description")).is_empty());
    // pre-commit builds the repository's binary with cargo for `language: rust`
    assert_eq!(string(get(hook, "language")), "rust");
    let entry = string(get(hook, "entry"));
    assert_eq!(entry, "fallcost check");
    assert_eq!(string(get(hook, "pass_filenames")), "false");
    let files = string(get(hook, "files"));
    assert_eq!(files, "\\.(toml|ya?ml|json)$");
    // the fields pre-commit knows, and no other
    let known = [
        "id",
        "name",
        "entry",
        "language",
        "files",
        "exclude",
        "types",
        "types_or",
        "exclude_types",
        "always_run",
        "fail_fast",
        "verbose",
        "pass_filenames",
        "require_serial",
        "description",
        "language_version",
        "minimum_pre_commit_version",
        "args",
        "stages",
    ];
    for (k, _) in hook.as_mapping().unwrap() {
        assert!(
            known.contains(&string(k).as_str()),
            "unknown hook field {k:?}"
        );
    }
    // the entry is a command line fallcost accepts, and the binary is the package's
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("name = \"fallcost\""));
    let out = Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(entry.split_whitespace().skip(1))
        .arg("tests/fixtures/check/clean")
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
