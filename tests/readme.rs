//! The README's examples stay true: the `compare` and `fallcost check` output it prints is what
//! the binary prints, and its scenario table lists every shipped scenario.

mod common;

use common::{fallcost, root};

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The README's sample under "What you get" is the real start of the main job's output, line
/// for line (it shows the first of sept3's two chains).
#[test]
fn compare_sample_is_real() {
    let readme = readme();
    let shown = readme
        .split("```text\n")
        .find(|block| block.starts_with("Three providers down at once"))
        .expect("the README shows the sept3 output")
        .split("```")
        .next()
        .unwrap();
    let out = fallcost(&["compare", "--scenario", "scenarios/sept3.toml"]);
    assert_eq!(out.status.code(), Some(0));
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(shown.lines().count() > 30, "{shown}");
    assert!(
        out.starts_with(shown),
        "README sample:\n{shown}\nreal output:\n{out}"
    );
}

/// The README's `$ fallcost check scenarios/` block is the real output, line for line, and
/// its exit code (1: a finding) is the documented one.
#[test]
fn check_example_output_is_real() {
    let readme = readme();
    let shown: String = readme
        .split("$ fallcost check scenarios/\n")
        .nth(1)
        .expect("the README shows `$ fallcost check scenarios/`")
        .lines()
        .take_while(|l| !l.starts_with("```"))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = fallcost(&["check", "scenarios/"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown);
}

/// Every file in `scenarios/` has a line in the README's scenario table, and the table names
/// no file that is not there.
#[test]
fn scenario_table_lists_every_scenario() {
    let readme = readme();
    let mut listed: Vec<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `scenarios/"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect();
    listed.sort();
    let mut files: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    assert_eq!(listed, files);
}
