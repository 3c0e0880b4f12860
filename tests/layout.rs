//! The architecture rules of issue 11 (item 6) as a test: no file in `src/` over 800 lines of
//! code, and no back edges between the layers.
//!
//! Lines of code: the non-blank lines that are not comments (`//`, `///`, `//!`, `/* … */`),
//! before the file's first `#[cfg(test)]` (tests aside).
//!
//! Dependencies: the module paths a file names through `crate::…` (plain, `crate::{a, b::c}`
//! groups, `use crate::m::{self, …}` then `m::x`) and `super::…` (resolved from the file's
//! place), in its code before the first `#[cfg(test)]`: comments and string literals are
//! skipped. The rules:
//!
//! - `src/input/**` does not use `crate::output`, `crate::check`, `crate::cmd`, `crate::sim`;
//! - `src/output/**` does not use `crate::check`, `crate::cmd`, `crate::ops` (the sweep
//!   operation is `ops::sweep`; `crate::sweep` holds its result types, as `crate::report` does
//!   compare's and check's, and may be used);
//! - `src/report*` (`report.rs` or `report/`) does not use `crate::output`, `crate::cmd`,
//!   `crate::ops`, `crate::check` or a simulator of `crate::sim` (every module of `src/sim/` but
//!   `stats`, `histogram` and `rng`, which hold result types and the generator's name);
//! - `src/model/**` does not use `crate::input`, `crate::output`, `crate::sim`, `crate::cmd`,
//!   `crate::report`, `crate::ops`, `crate::check`;
//! - the leaves (`figures.rs`, `number.rs`, `suggest.rs`) use none of the layers;
//! - `src/sim/**` does not use `crate::input`, `crate::output`, `crate::cmd`, `crate::ops`,
//!   `crate::check`;
//! - `src/check/**` and `src/calibrate/**` do not use `crate::output`, `crate::cmd`,
//!   `crate::ops`, `crate::sim`;
//! - `src/ops/**` does not use `crate::output` or `crate::cmd` (it returns results; `cmd`
//!   renders them);
//! - `src/tune/**` (the search's space, frontier and result types) does not use
//!   `crate::output`, `crate::cmd`, `crate::ops`, `crate::check`.
//!
//! [`ALLOWED_TODAY`] is empty: issue 11's back edges are all fixed, so any violation fails the
//! test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most lines of code a file in `src/` may have.
const MAX_LINES: usize = 800;

/// The rule name of a file over [`MAX_LINES`].
const TOO_LONG: &str = "over 800 lines of code";

/// Violations allowed for now (file, rule), named as [`violations`] prints them: `over 800
/// lines of code` or `LAYER uses crate::MODULE`. Empty since issue 11's last back edges
/// (`output::check` on `check`'s result types, now `report::check`) were fixed: a new
/// violation is to be fixed, not listed. The test also fails on an entry that is no longer a
/// violation.
const ALLOWED_TODAY: &[(&str, &str)] = &[];

/// A layer: the files it covers (a path prefix under `src/`) and the module paths they may not
/// use (a forbidden `a` matches `crate::a` and everything under it; `a::b` matches `crate::a::b`).
struct Rule {
    layer: &'static str,
    prefixes: &'static [&'static str],
    forbidden: Vec<String>,
}

fn rules(src: &Path) -> Vec<Rule> {
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // the simulators: every module of src/sim but the result types and the generator
    let mut simulators: Vec<String> = std::fs::read_dir(src.join("sim"))
        .expect("src/sim exists")
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            (p.is_dir() || p.extension().is_some_and(|e| e == "rs")).then_some(stem)
        })
        .filter(|m| !["mod", "stats", "histogram", "rng"].contains(&m.as_str()))
        .map(|m| format!("sim::{m}"))
        .collect();
    simulators.sort();
    assert!(
        simulators.iter().any(|m| m == "sim::steady"),
        "{simulators:?}"
    );
    let mut report = own(&["output", "cmd", "ops", "check"]);
    report.extend(simulators);
    vec![
        Rule {
            layer: "input",
            prefixes: &["input/"],
            forbidden: own(&["output", "check", "cmd", "sim"]),
        },
        Rule {
            layer: "output",
            prefixes: &["output/"],
            forbidden: own(&["check", "cmd", "ops"]),
        },
        Rule {
            layer: "report",
            prefixes: &["report.rs", "report/"],
            forbidden: report,
        },
        Rule {
            layer: "model",
            prefixes: &["model/"],
            forbidden: own(&["input", "output", "sim", "cmd", "report", "ops", "check"]),
        },
        Rule {
            layer: "figures",
            prefixes: &["figures.rs", "number.rs", "suggest.rs"],
            forbidden: own(&[
                "input", "output", "sim", "cmd", "report", "ops", "check", "model",
            ]),
        },
        Rule {
            layer: "sim",
            prefixes: &["sim/"],
            forbidden: own(&["input", "output", "cmd", "ops", "check"]),
        },
        Rule {
            layer: "check",
            prefixes: &["check/"],
            forbidden: own(&["output", "cmd", "ops", "sim"]),
        },
        Rule {
            layer: "calibrate",
            prefixes: &["calibrate/"],
            forbidden: own(&["output", "cmd", "ops", "sim"]),
        },
        Rule {
            layer: "ops",
            prefixes: &["ops/"],
            forbidden: own(&["output", "cmd"]),
        },
        Rule {
            layer: "tune",
            prefixes: &["tune/"],
            forbidden: own(&["output", "cmd", "ops", "check"]),
        },
    ]
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out.sort();
}

/// The text before the first `#[cfg(test)]` line.
fn before_tests(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("#[cfg(test)]") {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

/// `text` with comments replaced by spaces and string and char literals by `""` / `' '`;
/// newlines are kept, so lines stay lines.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && !(i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // a raw string r"…" or r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if c[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if c.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c[i] == '\'' {
            // a char literal ('x', '\n', '\''), else a lifetime
            let close = if next == Some('\\') {
                (i + 3..c.len().min(i + 12)).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(j) => {
                    out.push_str("' '");
                    i = j + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Lines of code of a file's text: non-blank, non-comment lines before its tests.
fn lines_of_code(text: &str) -> usize {
    code_only(before_tests(text))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The path tree at `c[*i..]` (after `prefix::`): `a`, `a::b::c`, `{a, b::{c, self}}`, `*`,
/// each leaf pushed as its full path (`self` and `*` as the prefix itself).
fn parse_tree(c: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let skip_ws = |i: &mut usize| {
        while *i < c.len() && c[*i].is_whitespace() {
            *i += 1;
        }
    };
    skip_ws(i);
    if *i >= c.len() {
        return;
    }
    if c[*i] == '{' {
        *i += 1;
        loop {
            skip_ws(i);
            if *i >= c.len() {
                return;
            }
            if c[*i] == '}' {
                *i += 1;
                return;
            }
            if c[*i] == ',' {
                *i += 1;
                continue;
            }
            let before = *i;
            parse_tree(c, i, prefix, out);
            if *i == before {
                *i += 1; // not a path: step over it
            }
        }
    } else if c[*i] == '*' {
        *i += 1;
        out.push(prefix.to_vec());
    } else if is_ident(c[*i]) {
        let start = *i;
        while *i < c.len() && is_ident(c[*i]) {
            *i += 1;
        }
        let name: String = c[start..*i].iter().collect();
        let mut path = prefix.to_vec();
        if name != "self" {
            path.push(name);
        }
        if c.get(*i) == Some(&':') && c.get(*i + 1) == Some(&':') {
            *i += 2;
            parse_tree(c, i, &path, out);
        } else {
            // `a as b`: the rename does not change the path
            skip_ws(i);
            if c[*i..].starts_with(&['a', 's', ' ']) {
                *i += 3;
                skip_ws(i);
                while *i < c.len() && is_ident(c[*i]) {
                    *i += 1;
                }
            }
            out.push(path);
        }
    }
}

/// Where `word::` starts a path in `c` (not after `::` or inside an identifier).
fn path_starts(c: &[char], word: &str) -> Vec<usize> {
    let w: Vec<char> = word.chars().chain("::".chars()).collect();
    (0..c.len())
        .filter(|&i| {
            c[i..].starts_with(&w)
                && !(i > 0 && is_ident(c[i - 1]))
                && !(i > 1 && c[i - 1] == ':' && c[i - 2] == ':')
        })
        .collect()
}

/// The crate module path of a file under `src/` (`input/gateway/mod.rs` → `[input, gateway]`).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// The crate paths (without `crate::`) that a file's code names.
fn used_paths(rel: &str, text: &str) -> BTreeSet<String> {
    let code = code_only(before_tests(text));
    let c: Vec<char> = code.chars().collect();
    let mut paths: Vec<Vec<String>> = Vec::new();
    for at in path_starts(&c, "crate") {
        let mut i = at + "crate::".len();
        parse_tree(&c, &mut i, &[], &mut paths);
    }
    // super::…, from the file's module
    let here = module_of(rel);
    for at in path_starts(&c, "super") {
        let mut i = at;
        let mut base = here.clone();
        while c[i..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
            base.pop();
            i += "super::".len();
        }
        parse_tree(&c, &mut i, &base, &mut paths);
    }
    // `use crate::m::{self, …}` or `use crate::m;`: `m::x` names `crate::m::x`
    let top: BTreeSet<String> = paths
        .iter()
        .filter(|p| p.len() == 1)
        .map(|p| p[0].clone())
        .collect();
    for m in top {
        for at in path_starts(&c, &m) {
            let mut i = at + m.len() + 2;
            parse_tree(&c, &mut i, std::slice::from_ref(&m), &mut paths);
        }
    }
    paths
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(|p| p.join("::"))
        .collect()
}

/// Every violation in `src/`, as (file, rule), sorted.
fn violations(root: &Path) -> BTreeSet<(String, String)> {
    let src = root.join("src");
    let rules = rules(&src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 30, "{} files in src/", files.len());
    let mut out = BTreeSet::new();
    for f in files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let name = format!("src/{rel}");
        let text = std::fs::read_to_string(&f).unwrap();
        if lines_of_code(&text) > MAX_LINES {
            out.insert((name.clone(), TOO_LONG.to_string()));
        }
        let used = used_paths(&rel, &text);
        for rule in rules
            .iter()
            .filter(|r| r.prefixes.iter().any(|p| rel.starts_with(p)))
        {
            for bad in &rule.forbidden {
                if used
                    .iter()
                    .any(|u| u == bad || u.starts_with(&format!("{bad}::")))
                {
                    out.insert((name.clone(), format!("{} uses crate::{bad}", rule.layer)));
                }
            }
        }
    }
    out
}

#[test]
fn layout_rules_hold_but_for_the_listed_violations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = violations(root);
    // the largest files, for the record (`cargo test --test layout -- --nocapture`)
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut sizes: Vec<(usize, String)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            (
                lines_of_code(&text),
                f.strip_prefix(root).unwrap().display().to_string(),
            )
        })
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    for (n, f) in sizes.iter().take(12) {
        println!("{n:5} lines of code  {f}");
    }
    let allowed: BTreeSet<(String, String)> = ALLOWED_TODAY
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect();
    let new: Vec<String> = found
        .difference(&allowed)
        .map(|(f, r)| format!("  {f}: {r}"))
        .collect();
    let fixed: Vec<String> = allowed
        .difference(&found)
        .map(|(f, r)| format!("  (\"{f}\", \"{r}\")"))
        .collect();
    let mut msg = String::new();
    if !new.is_empty() {
        msg += &format!(
            "architecture rules broken (see tests/layout.rs's docs):\n{}\n",
            new.join("\n")
        );
    }
    if !fixed.is_empty() {
        msg += &format!(
            "fixed, remove from ALLOWED_TODAY in tests/layout.rs:\n{}\n",
            fixed.join("\n")
        );
    }
    assert!(msg.is_empty(), "{msg}");
}

/// The line counter and the path reader on hand-written code: the rules cannot pass by
/// reading nothing.
#[test]
fn the_scanner_reads_paths_and_counts_lines() {
    let text = "//! doc\nuse crate::{output::number::trim, model};\n\n/* block\n crate::cmd */\n\
                use crate::sim::{self, stats::Sum};\nfn f<'a>(x: &'a str) -> char {\n    \
                let _ = \"crate::check\";\n    sim::steady::simulate(); super::super::ops::run();\n    \
                '\"'\n}\n#[cfg(test)]\nmod tests { use crate::cli; }\n";
    assert_eq!(lines_of_code(text), 7);
    let used: Vec<String> = used_paths("input/gateway/litellm.rs", text)
        .into_iter()
        .collect();
    assert_eq!(
        used,
        [
            "input::ops::run",
            "model",
            "output::number::trim",
            "sim",
            "sim::stats::Sum",
            "sim::steady::simulate"
        ]
    );
    // super from a mod.rs goes one level less deep
    let used: Vec<String> = used_paths("input/gateway/mod.rs", "use super::super::output::x;")
        .into_iter()
        .collect();
    assert_eq!(used, ["output::x"]);
}

/// The rules on a made-up source tree: a long file and two back edges are reported, an allowed
/// edge (`output` → `model`) is not.
#[test]
fn a_back_edge_is_reported() {
    let dir = std::env::temp_dir().join(format!("fallcost-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src/input", "src/sim", "src/model", "src/output"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for i in 0..31 {
        std::fs::write(dir.join(format!("src/f{i}.rs")), "").unwrap();
    }
    std::fs::write(dir.join("src/sim/steady.rs"), "").unwrap();
    std::fs::write(
        dir.join("src/model/mod.rs"),
        "use crate::sim::stats::Estimate;\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/output/json.rs"), "use crate::model;\n").unwrap();
    std::fs::write(
        dir.join("src/input/long.rs"),
        "fn x() {}\n".repeat(801) + "#[cfg(test)]\nmod tests {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/report.rs"),
        "use crate::sim::{self};\nfn f() { sim::steady::simulate() }\n",
    )
    .unwrap();
    let found: Vec<String> = violations(&dir)
        .into_iter()
        .map(|(f, r)| format!("{f}: {r}"))
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            "src/input/long.rs: over 800 lines of code",
            "src/model/mod.rs: model uses crate::sim",
            "src/report.rs: report uses crate::sim::steady",
        ]
    );
}
