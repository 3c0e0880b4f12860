//! The GitHub Action (`action.yml`, its run script `action/check.sh`) and the pre-commit hook
//! (`.pre-commit-hooks.yaml`): their declarations are checked field by field, and the action's
//! script is run here as the runner would run it, with its `INPUT_*` variables.

use crate::common;

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
fn the_action_declares_a_composite_that_caches_the_binary_and_passes_every_input() {
    let action = yaml("action.yml");
    assert_eq!(string(get(&action, "name")), "fallcost check");
    let runs = get(&action, "runs");
    assert_eq!(string(get(runs, "using")), "composite");
    let steps = get(runs, "steps").as_sequence().unwrap();
    let names: Vec<String> = steps.iter().map(|s| string(get(s, "name"))).collect();
    assert_eq!(
        names,
        [
            "fallcost cache key",
            "Restore fallcost",
            "Build fallcost (once per version and source)",
            "Save fallcost (before the thresholds can fail the job)",
            "fallcost check",
            "fallcost diff"
        ]
    );
    // the binary is cached, keyed on the OS, the architecture and the source's version and hash
    assert_eq!(
        string(get(&steps[0], "run")),
        "echo \"key=${{ runner.os }}-${{ runner.arch }}-$(bash \"$GITHUB_ACTION_PATH/action/source-key.sh\")\" >> \"$GITHUB_OUTPUT\""
    );
    assert_eq!(string(get(&steps[1], "uses")), "actions/cache/restore@v4");
    let with = get(&steps[1], "with");
    assert_eq!(string(get(with, "path")), "${{ runner.temp }}/fallcost");
    assert_eq!(string(get(with, "key")), "${{ steps.key.outputs.key }}");
    // built only on a cache miss
    assert_eq!(
        string(get(&steps[2], "if")),
        "steps.cache.outputs.cache-hit != 'true'"
    );
    assert_eq!(
        string(get(&steps[2], "run")),
        "cargo install --locked --path \"$GITHUB_ACTION_PATH\" --root \"$RUNNER_TEMP/fallcost\""
    );
    let (check, diff) = (&steps[4], &steps[5]);
    assert_eq!(string(get(check, "if")), "inputs.mode != 'diff'");
    assert_eq!(string(get(diff, "if")), "inputs.mode != 'check'");
    assert_eq!(
        string(get(check, "run")),
        "bash \"$GITHUB_ACTION_PATH/action/check.sh\""
    );
    assert_eq!(
        string(get(diff, "run")),
        "bash \"$GITHUB_ACTION_PATH/action/diff.sh\""
    );
    for step in steps.iter().filter(|s| s.as_mapping_get("run").is_some()) {
        assert_eq!(string(get(step, "shell")), "bash");
    }
    for step in [check, diff] {
        assert_eq!(
            string(get(get(step, "env"), "FALLCOST")),
            "${{ runner.temp }}/fallcost/bin/fallcost",
            "the binary the cache or the build step put there"
        );
    }
    let inputs = get(&action, "inputs").as_mapping().unwrap();
    let mut names = Vec::new();
    for (name, spec) in inputs {
        let name = string(name);
        assert!(!string(get(spec, "description")).is_empty(), "{name}");
        assert!(
            spec.as_mapping_get("default").is_some(),
            "{name} has no default"
        );
        // each input reaches a script as INPUT_NAME
        let var = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        let passed = [check, diff]
            .iter()
            .filter_map(|s| {
                get(s, "env")
                    .as_mapping()
                    .unwrap()
                    .iter()
                    .find(|(k, _)| string(k) == var)
                    .map(|(_, v)| string(v))
            })
            .collect::<Vec<_>>();
        assert!(!passed.is_empty(), "{name} is not passed to a script");
        for p in passed {
            assert_eq!(p, format!("${{{{ inputs.{name} }}}}"));
        }
        names.push(name);
    }
    for want in [
        "mode",
        "paths",
        "max-ratio",
        "format",
        "allow",
        "incident",
        "config-file",
        "base-ref",
        "scenario",
        "requests-per-month",
        "budget",
        "fail-above",
        "incidents",
        "only-increases",
        "mc",
        "comment",
        "github-token",
    ] {
        assert!(names.iter().any(|n| n == want), "no input {want}");
    }
    assert_eq!(
        string(get(get(inputs_of(&action), "format"), "default")),
        "github"
    );
    assert_eq!(
        string(get(get(inputs_of(&action), "mode"), "default")),
        "check"
    );
    assert_eq!(
        string(get(get(inputs_of(&action), "max-ratio"), "default")),
        "2"
    );
    // every INPUT_ the scripts read is declared
    for script in ["action/check.sh", "action/diff.sh"] {
        let script = std::fs::read_to_string(root().join(script)).unwrap();
        for var in script.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if let Some(input) = var.strip_prefix("INPUT_").filter(|i| !i.is_empty()) {
                let name = input.to_lowercase().replace('_', "-");
                assert!(names.contains(&name), "the script reads undeclared {var}");
            }
        }
    }
    // the cache key names the version and changes with the source
    let out = Command::new("bash")
        .arg("action/source-key.sh")
        .arg(".")
        .current_dir(root())
        .output()
        .unwrap();
    let key = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        key.starts_with(&format!("fallcost-{}-", env!("CARGO_PKG_VERSION"))) && key.len() > 20,
        "{key}"
    );
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

/// A git repository holding the worked example's usage settings and `gw/config.yaml` at
/// version 1 (committed: the pull request's base), then version 2 in the working tree (the
/// head); its base commit.
fn pr_repository(tag: &str) -> (PathBuf, String) {
    let dir = tmp(&format!("repo-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("gw")).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["init", "-q"]);
    let ex = root().join("examples/diff");
    for f in ["usage.toml", "fallcost.toml"] {
        std::fs::copy(ex.join(f), dir.join(f)).unwrap();
    }
    std::fs::copy(ex.join("gateway-v1.yaml"), dir.join("gw/config.yaml")).unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "base"]);
    let sha = git(&["rev-parse", "HEAD"]);
    std::fs::copy(ex.join("gateway-v2.yaml"), dir.join("gw/config.yaml")).unwrap();
    (dir, sha)
}

/// Run `action/diff.sh` in `repo` as the runner runs it on a pull_request event: the recorded
/// event (tests/fixtures/action/pull_request.json, its base commit set to `base`), the fake
/// `gh` first on PATH, `GITHUB_OUTPUT`, `RUNNER_TEMP`. Offline: no call leaves the machine.
fn run_diff(repo: &Path, base: &str, inputs: &[(&str, &str)], gh: &Path) -> (Output, String) {
    run_diff_in(repo, base, inputs, gh, Runner::default())
}

/// How [`run_diff_in`] runs the script: from a fork (the event's head repository is another
/// one), and on a macOS-style PATH (only the tools a macOS runner has: no GNU `sha256sum`, a
/// `shasum` instead).
#[derive(Default, Clone, Copy)]
struct Runner {
    fork: bool,
    macos: bool,
    /// The token GitHub refuses writes with (the fake `gh` refuses without one).
    read_only: bool,
}

/// A folder holding only the tools `action/*.sh` and the fake `gh` may use on a macOS runner
/// (links to this machine's), with `shasum -a 256` standing in for GNU `sha256sum`.
fn macos_path(bin: &Path) -> String {
    for tool in [
        "bash", "git", "jq", "sed", "find", "sort", "cut", "head", "tail", "cat", "ls", "cp",
        "mkdir", "env", "rm",
    ] {
        let which = Command::new("bash")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let at = String::from_utf8_lossy(&which.stdout).trim().to_string();
        assert!(!at.is_empty(), "no {tool} on this machine");
        let _ = std::fs::remove_file(bin.join(tool));
        std::os::unix::fs::symlink(&at, bin.join(tool)).unwrap();
    }
    let sha = Command::new("bash")
        .args(["-c", "command -v sha256sum"])
        .output()
        .unwrap();
    let sha = String::from_utf8_lossy(&sha.stdout).trim().to_string();
    std::fs::write(
        bin.join("shasum"),
        format!(
            "#!/bin/sh
# macOS's shasum, as this test's stand-in
[ \"$1 $2\" = \"-a 256\" ] || {{ echo \"shasum: only -a 256\" >&2; exit 1; }}
shift 2
exec {sha} \"$@\"
"
        ),
    )
    .unwrap();
    let _ = Command::new("chmod")
        .arg("+x")
        .arg(bin.join("shasum"))
        .status();
    bin.display().to_string()
}

fn run_diff_in(
    repo: &Path,
    base: &str,
    inputs: &[(&str, &str)],
    gh: &Path,
    runner: Runner,
) -> (Output, String) {
    let work = tmp(&format!(
        "work-{}",
        gh.file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&work).unwrap();
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(root().join("tests/fixtures/action/fake-gh"), bin.join("gh")).unwrap();
    let mut event = std::fs::read_to_string(root().join("tests/fixtures/action/pull_request.json"))
        .unwrap()
        .replace("BASE_SHA", base);
    if runner.fork {
        event = event.replace(
            "\"sha\": \"HEAD_SHA\", \"repo\": {\"full_name\": \"octo/gateway\"}",
            "\"sha\": \"HEAD_SHA\", \"repo\": {\"full_name\": \"contributor/gateway\"}",
        );
        assert!(event.contains("contributor/gateway"));
    }
    std::fs::write(work.join("event.json"), event).unwrap();
    let output = work.join("github-output");
    let _ = std::fs::remove_file(&output);
    let summary = work.join("step-summary");
    let _ = std::fs::remove_file(&summary);
    let path = match runner.macos {
        true => macos_path(&bin),
        false => format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    };
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("action/diff.sh"))
        .current_dir(repo)
        .env("PATH", path)
        .env("FALLCOST", env!("CARGO_BIN_EXE_fallcost"))
        .env("FAKE_GH_DIR", gh)
        .env("GH_TOKEN", if runner.read_only { "" } else { "fake-token" })
        .env("GITHUB_EVENT_PATH", work.join("event.json"))
        .env("GITHUB_REPOSITORY", "octo/gateway")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", &work)
        .env("INPUT_PATHS", "gw/config.yaml");
    for (k, v) in inputs {
        cmd.env(format!("INPUT_{}", k.to_uppercase().replace('-', "_")), v);
    }
    let out = cmd.output().unwrap();
    let written = std::fs::read_to_string(&output).unwrap_or_default();
    let summary = std::fs::read_to_string(&summary).unwrap_or_default();
    (out, format!("{written}{summary}"))
}

use std::path::Path;

#[test]
fn the_diff_script_posts_one_sticky_comment_and_updates_it_on_every_push() {
    let (repo, base) = pr_repository("sticky");
    let gh = tmp("gh-sticky");
    let _ = std::fs::remove_dir_all(&gh);
    std::fs::create_dir_all(&gh).unwrap();
    let calls = || std::fs::read_to_string(gh.join("calls")).unwrap_or_default();
    let comment = |id: &str| std::fs::read_to_string(gh.join("comments").join(id)).unwrap();

    // first push: a new comment, marker first, headline next; annotations in the log
    let (out, written) = run_diff(&repo, &base, &[], &gh);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("::warning file=gw/config.yaml,line=8,title=fallcost diff::chain `chat (router_settings.fallbacks)` changed: +$936.62/month"),
        "{stdout}"
    );
    assert!(
        stdout.contains("commented on pull request #42 (comment 1001)"),
        "{stdout}"
    );
    assert_eq!(
        calls(),
        "GET repos/octo/gateway/issues/42/comments\nPOST repos/octo/gateway/issues/42/comments\n"
    );
    let body = comment("1001");
    assert!(
        body.starts_with("<!-- fallcost-diff -->\n### fallcost diff\n\n**+$936.62/month (+3.88%) on a normal day; +$384.91 per 3h outage**\n"),
        "{body}"
    );
    assert!(
        body.contains(&format!("`{}:gw/config.yaml` → `gw/config.yaml`", base)),
        "{body}"
    );
    assert!(
        written.contains("diff-exit-code=0\n") && written.contains("comment-id=1001\n"),
        "{written}"
    );

    // second push, now with a threshold the change crosses: the same comment, updated; exit 1
    let (out, written) = run_diff(&repo, &base, &[("fail-above", "3% $2000/month")], &gh);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("updated comment 1001 on pull request #42")
    );
    assert_eq!(
        calls().lines().skip(2).collect::<Vec<_>>(),
        [
            "GET repos/octo/gateway/issues/42/comments",
            "PATCH repos/octo/gateway/issues/comments/1001"
        ]
    );
    assert!(
        comment("1001").contains(
            "threshold crossed: the steady monthly bill rises 3.88%, above --fail-above 3%"
        )
    );
    assert!(written.contains("diff-exit-code=1\n"), "{written}");
    // the other bot's comment is untouched, and no second comment was made
    assert_eq!(comment("900"), "Thanks for the pull request! (a bot)\n");
    assert_eq!(std::fs::read_dir(gh.join("comments")).unwrap().count(), 2);

    // third push reverts the change: with only-increases, the comment says nothing costs more
    std::fs::copy(
        root().join("examples/diff/gateway-v1.yaml"),
        repo.join("gw/config.yaml"),
    )
    .unwrap();
    let (out, _) = run_diff(&repo, &base, &[("only-increases", "true")], &gh);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        comment("1001"),
        "<!-- fallcost-diff -->\n### fallcost diff\n\nNo chain costs or fails more than on the base branch.\n"
    );
}

#[test]
fn the_diff_script_refuses_bad_inputs_and_a_missing_base() {
    let (repo, base) = pr_repository("bad");
    let gh = tmp("gh-bad");
    let (out, _) = run_diff(&repo, &base, &[("comment", "yes")], &gh);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("comment must be true or false; got 'yes'")
    );
    let (out, _) = run_diff(&repo, "0123456789abcdef0123456789abcdef01234567", &[], &gh);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("cannot fetch the base commit"));
    // comment: false runs the diff and posts nothing
    let (out, written) = run_diff(&repo, &base, &[("comment", "false")], &gh);
    assert_eq!(out.status.code(), Some(0));
    assert!(!gh.join("calls").exists());
    assert!(written.contains("comment-id=\n"), "{written}");
}

/// A pull request from a fork: the job's token cannot write, so no `gh` call is made, a notice
/// says why, the job summary and outputs still appear, and the exit code is the thresholds'.
#[test]
fn the_diff_script_on_a_fork_skips_the_comment_and_keeps_summary_outputs_and_exit_code() {
    let (repo, base) = pr_repository("fork");
    let gh = tmp("gh-fork");
    let _ = std::fs::remove_dir_all(&gh);
    std::fs::create_dir_all(&gh).unwrap();
    let fork = Runner {
        fork: true,
        ..Runner::default()
    };
    let (out, written) = run_diff_in(&repo, &base, &[], &gh, fork);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("::notice title=fallcost diff::pull request #42 comes from a fork"),
        "{stdout}"
    );
    assert!(!gh.join("calls").exists(), "gh was called on a fork");
    assert!(written.contains("diff-exit-code=0\n"), "{written}");
    assert!(written.contains("comment-id=\n"), "{written}");
    // the job summary is the comment's Markdown
    assert!(
        written.contains("### fallcost diff\n\n**+$936.62/month (+3.88%) on a normal day; +$384.91 per 3h outage**"),
        "{written}"
    );
    // a threshold crossed: exit 1, from the thresholds, not from the comment
    let (out, written) = run_diff_in(&repo, &base, &[("fail-above", "3%")], &gh, fork);
    assert_eq!(out.status.code(), Some(1));
    assert!(written.contains("diff-exit-code=1\n"), "{written}");
    assert!(!gh.join("calls").exists());
}

/// A token that cannot comment (GitHub refuses it; the fake `gh` refuses an empty one): a
/// warning, the summary and outputs, and the thresholds' exit code.
#[test]
fn the_diff_script_warns_when_the_comment_cannot_be_posted() {
    let (repo, base) = pr_repository("readonly");
    let gh = tmp("gh-readonly");
    let _ = std::fs::remove_dir_all(&gh);
    std::fs::create_dir_all(&gh).unwrap();
    let ro = Runner {
        read_only: true,
        ..Runner::default()
    };
    let (out, written) = run_diff_in(&repo, &base, &[("fail-above", "3%")], &gh, ro);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "::warning title=fallcost diff::cannot read the comments of pull request #42"
        ),
        "{stdout}"
    );
    assert!(written.contains("diff-exit-code=1\n"), "{written}");
    assert!(written.contains("comment-id=\n"), "{written}");
    assert!(written.contains("threshold crossed: the steady monthly bill rises 3.88%"));
}

/// On a macOS-style PATH (no GNU sha256sum; shasum instead) the cache key is the same as on
/// Linux, and the diff script runs, comments and exits as on Linux.
#[test]
fn the_action_scripts_run_with_macos_tools() {
    let bin = tmp("macos-bin");
    let _ = std::fs::remove_dir_all(&bin);
    std::fs::create_dir_all(&bin).unwrap();
    let path = macos_path(&bin);
    assert!(!bin.join("sha256sum").exists());
    let key = |path: Option<&str>| {
        let mut cmd = Command::new("bash");
        cmd.arg("action/source-key.sh").arg(".").current_dir(root());
        if let Some(p) = path {
            cmd.env("PATH", p);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let (linux, macos) = (key(None), key(Some(&path)));
    assert_eq!(linux, macos);
    assert!(linux.starts_with(&format!("fallcost-{}-", env!("CARGO_PKG_VERSION"))));

    let (repo, base) = pr_repository("macos");
    let gh = tmp("gh-macos");
    let _ = std::fs::remove_dir_all(&gh);
    std::fs::create_dir_all(&gh).unwrap();
    let mac = Runner {
        macos: true,
        ..Runner::default()
    };
    // no input for fail-above or incidents: empty arrays under set -u (bash 3.2 refuses a bare
    // "${a[@]}" of an empty array; the scripts guard every one)
    let (out, written) = run_diff_in(&repo, &base, &[], &gh, mac);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(written.contains("comment-id=1001\n"), "{written}");
    // no bash 4 features in the scripts: associative arrays, case conversion, mapfile,
    // readarray, |&, &>>, ;;& and unguarded array expansions
    for script in ["action/check.sh", "action/diff.sh", "action/source-key.sh"] {
        let text = std::fs::read_to_string(root().join(script)).unwrap();
        for bad in [
            "declare -A",
            "local -A",
            ",,}",
            "^^}",
            "mapfile",
            "readarray",
            "|&",
            "&>>",
            ";;&",
            "xargs sha256sum",
        ] {
            assert!(!text.contains(bad), "{script} uses `{bad}`");
        }
        // sha256sum is GNU only: a script calls it through a `sha` that falls back to
        // `shasum -a 256`, and only that definition names it
        for line in text.lines().filter(|l| l.contains("sha256sum \"")) {
            assert!(
                line.trim_start().starts_with('#') || line.contains("shasum -a 256"),
                "{script} calls sha256sum without the shasum fallback: {line}"
            );
        }
        for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
            for arr in ["limits", "incidents", "allow"] {
                if line.contains(&format!("\"${{{arr}[@]}}\"")) {
                    assert!(
                        line.contains(&format!("${{{arr}[@]+")),
                        "{script}: unguarded ${{{arr}[@]}}: {line}"
                    );
                }
            }
        }
    }
}

/// The binary's cache: restored by key (the version, the source and the runner), built only
/// on a miss and saved right after the build, before the check and diff steps can fail the
/// job; and the action's default profile is empty, so the team's `[usage]` profile is used.
#[test]
fn the_cache_is_saved_before_the_thresholds_and_the_default_profile_is_the_teams() {
    let action = yaml("action.yml");
    let steps = get(get(&action, "runs"), "steps").as_sequence().unwrap();
    let names: Vec<String> = steps.iter().map(|s| string(get(s, "name"))).collect();
    let at = |n: &str| names.iter().position(|x| x.starts_with(n)).unwrap();
    let (restore, build, save) = (
        &steps[at("Restore fallcost")],
        &steps[at("Build fallcost")],
        &steps[at("Save fallcost")],
    );
    assert_eq!(string(get(restore, "uses")), "actions/cache/restore@v4");
    assert_eq!(string(get(save, "uses")), "actions/cache/save@v4");
    for s in [build, save] {
        assert_eq!(
            string(get(s, "if")),
            "steps.cache.outputs.cache-hit != 'true'",
            "a miss builds and saves; a hit does neither"
        );
    }
    assert_eq!(
        string(get(get(save, "with"), "key")),
        string(get(get(restore, "with"), "key"))
    );
    assert!(
        at("Save fallcost") < at("fallcost check") && at("Save fallcost") < at("fallcost diff")
    );
    assert_eq!(
        string(get(get(inputs_of(&action), "profile"), "default")),
        ""
    );
    // a cache miss then a hit, as the steps' conditions run them: the key is the same on the
    // second run (same source), so the restore hits and neither build nor save runs
    let key = || {
        let out = Command::new("bash")
            .arg("action/source-key.sh")
            .arg(".")
            .current_dir(root())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(key(), key());
}
