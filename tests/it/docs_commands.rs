//! Every command the documentation shows runs: each `fallcost …` line of a `sh`/`console` block
//! and each `$ fallcost …` line of a `text` block, in README.md and every page of docs/guide/,
//! is run from the repository's root (or the folder a trailing `# in DIR/` names) and ends with
//! exit code 0 or 1 (1 is a verdict: a finding, a threshold, an infeasible SLO). A `$ fallcost`
//! line followed by an `error:` line is an example of bad input: it must exit 2 and print that
//! error. Files the command writes (`-o`, `--output`, `--plot`, a `>` redirect) go to a temporary
//! folder. The few commands not run are listed in [`NOT_RUN`], each with its reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{doc_pages, root};

/// Commands shown but not run here (matched by prefix), and why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "fallcost bench",
        "a benchmark: it times the machine for tens of seconds (cargo bench and the Monte Carlo page measure it)",
    ),
    (
        "./target/release/fallcost bench",
        "a benchmark: it times the machine for tens of seconds",
    ),
    (
        "fallcost check scenarios/ gateway/",
        "a user's CI step: `gateway/` is the user's folder of configs",
    ),
    (
        "fallcost compare --config gateway/config.yaml",
        "a user's config: tests/it/compare_config.rs runs the same listing on its fixtures",
    ),
];

/// One command found in a page.
#[derive(Debug)]
struct Shown {
    page: String,
    line: String,
    /// The words after `fallcost`.
    args: Vec<String>,
    /// `NAME=VALUE` words before `fallcost`.
    env: Vec<(String, String)>,
    /// The folder a trailing `# in DIR/` names, else the root.
    dir: PathBuf,
    /// `Some(start)` when the page shows it failing with an `error:` line.
    error: Option<String>,
}

/// Split a shell line into words: single and double quotes group, a `#` word starts a comment,
/// and `>`, `>>`, `|`, `||`, `&&` end the command.
fn words(line: &str) -> (Vec<String>, Option<String>) {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = line.chars().peekable();
    let mut comment = None;
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                has = true;
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                    cur.push(d);
                }
            }
            ' ' | '\t' => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            '#' if !has => {
                comment = Some(chars.collect::<String>().trim().to_string());
                break;
            }
            _ => {
                cur.push(c);
                has = true;
            }
        }
    }
    if has {
        out.push(cur);
    }
    if let Some(end) = out
        .iter()
        .position(|w| matches!(w.as_str(), ">" | ">>" | "|" | "||" | "&&"))
    {
        out.truncate(end);
    }
    (out, comment)
}

/// Every command of every page.
fn shown() -> Vec<Shown> {
    let mut all = Vec::new();
    for (page, text) in doc_pages() {
        let mut kind: Option<String> = None;
        let lines: Vec<&str> = text.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let l = lines[i];
            if let Some(rest) = l.trim_start().strip_prefix("```") {
                kind = if kind.is_some() {
                    None
                } else {
                    Some(rest.trim().to_string())
                };
                i += 1;
                continue;
            }
            let Some(k) = kind.as_deref() else {
                i += 1;
                continue;
            };
            // continued lines joined
            let mut line = l.trim().to_string();
            while line.ends_with('\\') && i + 1 < lines.len() {
                line.pop();
                i += 1;
                line.push(' ');
                line.push_str(lines[i].trim());
            }
            i += 1;
            let command = match k {
                "sh" | "console" | "bash" => line.strip_prefix("$ ").unwrap_or(&line).to_string(),
                "text" => match line.strip_prefix("$ ") {
                    Some(c) => c.to_string(),
                    None => continue,
                },
                _ => continue,
            };
            let (mut w, comment) = words(&command);
            let mut env = Vec::new();
            while let Some(first) = w.first() {
                match first.split_once('=') {
                    Some((k, v)) if k.chars().all(|c| c.is_ascii_uppercase() || c == '_') => {
                        env.push((k.to_string(), v.to_string()));
                        w.remove(0);
                    }
                    _ => break,
                }
            }
            if !matches!(
                w.first().map(String::as_str),
                Some("fallcost" | "./target/release/fallcost")
            ) {
                continue;
            }
            let dir = match comment.as_deref().and_then(|c| c.strip_prefix("in ")) {
                Some(d) => root().join(d.trim()),
                None => root(),
            };
            let error = (k == "text")
                .then(|| lines.get(i).copied())
                .flatten()
                .filter(|next| next.starts_with("error:"))
                .map(|next| next.split("...").next().unwrap().to_string());
            all.push(Shown {
                page: page.clone(),
                line: command.clone(),
                args: w[1..].to_vec(),
                env,
                dir,
                error,
            });
        }
    }
    all
}

/// `dir/a*.json` expanded to the files it matches, in name order (a word without `*` as is).
fn glob(word: &str, dir: &Path) -> Vec<String> {
    let Some((folder, pattern)) = word.rsplit_once('/').filter(|_| word.contains('*')) else {
        return vec![word.to_string()];
    };
    let (pre, post) = pattern.split_once('*').unwrap();
    let mut found: Vec<String> = std::fs::read_dir(dir.join(folder))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(pre) && n.ends_with(post))
        .map(|n| format!("{folder}/{n}"))
        .collect();
    found.sort();
    found
}

#[test]
fn the_command_reader_joins_quotes_and_stops_at_redirects() {
    let (w, c) = words("fallcost prices 'claude*sonnet' > out.txt  # in examples/diff/");
    assert_eq!(w, ["fallcost", "prices", "claude*sonnet"]);
    assert_eq!(c.as_deref(), Some("in examples/diff/"));
    let (w, _) = words("fallcost check a/ || exit $?");
    assert_eq!(w, ["fallcost", "check", "a/"]);
}

#[test]
fn every_command_shown_in_the_docs_runs() {
    let all = shown();
    // README's one example of each command, the guide's examples: a floor that catches a
    // reader that finds nothing.
    assert!(all.len() >= 30, "found only {} commands", all.len());
    for page in ["README.md", "docs/guide/compare.md", "docs/guide/tune.md"] {
        assert!(
            all.iter().any(|s| s.page == page),
            "no command found in {page}"
        );
    }
    let tmp = std::env::temp_dir().join(format!("fallcost-docs-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bin = env!("CARGO_BIN_EXE_fallcost");
    let mut failures = Vec::new();
    // the files earlier commands wrote, by the name the page gives them
    let mut written: Vec<String> = Vec::new();
    for s in &all {
        if NOT_RUN.iter().any(|(p, _)| s.line.starts_with(p)) {
            continue;
        }
        let mut args: Vec<String> = Vec::new();
        let mut it = s.args.iter();
        while let Some(a) = it.next() {
            if matches!(a.as_str(), "-o" | "--output" | "--plot") {
                let target = it.next().expect("a value after -o");
                let name = target.rsplit('/').next().unwrap();
                args.push(a.clone());
                args.push(tmp.join(name).to_string_lossy().into_owned());
                written.push(target.clone());
            } else if written.contains(a) {
                // a file an earlier command of the page wrote (`calibrate -o x.toml`, then
                // `compare --scenario x.toml`)
                let name = a.rsplit('/').next().unwrap();
                args.push(tmp.join(name).to_string_lossy().into_owned());
            } else {
                args.extend(glob(a, &s.dir));
            }
        }
        let out = Command::new(bin)
            .args(&args)
            .current_dir(&s.dir)
            .envs(s.env.iter().map(|(k, v)| (k, v)))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let code = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ok = match &s.error {
            Some(start) => code == Some(2) && stderr.contains(start.trim_end()),
            None => matches!(code, Some(0 | 1)),
        };
        if !ok {
            failures.push(format!(
                "{}: `{}` exited {code:?}{}: {}",
                s.page,
                s.line,
                s.error
                    .as_ref()
                    .map(|e| format!(" (the page shows `{e}`)"))
                    .unwrap_or_default(),
                stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
            ));
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
