//! No tracked text file holds a merge-conflict marker: a half-merged README (three markers
//! around the timeline, drill and history sections were once committed) fails here.

use std::path::Path;
use std::process::Command;

/// The marker lines git writes: `<<<<<<< ours`, `=======`, `>>>>>>> theirs` (and `|||||||` for
/// diff3). A line that only starts with `=======` and goes on (a Markdown rule) is not one.
fn is_marker(line: &str) -> bool {
    let line = line.trim_end_matches('\r');
    ["<<<<<<<", ">>>>>>>", "|||||||"]
        .iter()
        .any(|m| line == *m || line.starts_with(&format!("{m} ")))
        || line == "======="
}

#[test]
fn the_marker_rule_finds_all_three_markers() {
    assert!(is_marker("<<<<<<< HEAD"));
    assert!(is_marker("======="));
    assert!(is_marker(">>>>>>> tl-history"));
    assert!(!is_marker("========"));
    assert!(!is_marker("<<<<<<<<"));
    assert!(!is_marker("a <<<<<<< b"));
}

#[test]
fn no_tracked_file_holds_a_conflict_marker() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .expect("git runs (the tests run in a clone)");
    assert!(out.status.success(), "git ls-files failed");
    let mut found = Vec::new();
    for path in out.stdout.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let path = root.join(String::from_utf8_lossy(path).as_ref());
        // Binary or unreadable (a deleted, uncommitted file): not text, nothing to check.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if is_marker(line) {
                found.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "conflict markers:\n{}", found.join("\n"));
}
