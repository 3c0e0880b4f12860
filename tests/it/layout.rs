//! The architecture rules of README's "Architecture" table as a test: no file in `src/` over
//! 800 lines of code, and no back edges between the layers.
//!
//! Every line of a file is read but its `#[cfg(test)]` items (a `mod tests { … }` wherever it
//! sits, with the code after it read too; a `#[cfg(test)] mod tests;` leaves its file out).
//! Lines of code: the non-blank lines that are not comments (`//`, `///`, `//!`, `/* … */`).
//!
//! Dependencies: the module paths a file names through `crate::…` (plain, `crate::{a, b::c}`
//! groups, `use crate::m::{self, …}` then `m::x`) and `super::…` (resolved from the file's
//! place): comments and string literals are skipped. Every module of `src/` has a rule (a
//! file no rule covers is reported), one per row of the table:
//!
//! - the leaves (`number.rs`, `suggest.rs`, `error.rs`, `figures.rs`) use none of the layers;
//! - `src/model/**` uses the leaves only;
//! - `src/report*` (`report.rs` or `report/`) and `src/sweep.rs` (result types) use the leaves,
//!   `model`, `input::gateway::Notice` and of `crate::sim` only `stats`, `histogram` and `rng`
//!   (result types and the generator's name), nothing else of `input` or `sim`;
//! - `src/sim/**` uses `model`, `report`, `sweep` and the leaves;
//! - `src/input/**` uses `model` and the leaves;
//! - `src/check/**` uses `input`, `model`, `report` and the leaves;
//! - `src/calibrate/**` uses `input`, `model` and the leaves;
//! - `src/ops/**` uses everything above but `output` (it returns results; `cmd` renders them);
//! - `src/output/**` uses the result types (`report`, `sweep`), `model` and the leaves: not
//!   `input`, `sim`, `cli`, `ops` (the sweep operation is `ops::sweep`; `crate::sweep` holds its
//!   result types, as `crate::report` does compare's and check's);
//! - `src/cmd/**`, `cli.rs`, `lib.rs` and `main.rs` use everything.
//! - `src/tune/**` (the search's space, frontier and result types) uses `model`, `sim`,
//!   `input`, `report`, `sweep` and the leaves; `output` may use its result types.
//!
//! [`ALLOWED_TODAY`] is empty: any violation fails the test.

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
    /// Paths under a forbidden one that are allowed all the same (exactly these).
    except: &'static [&'static str],
}

/// Every top-level module of `src/` (for the leaves' rule: none of them may be used).
const MODULES: &[&str] = &[
    "calibrate",
    "check",
    "cli",
    "cmd",
    "error",
    "figures",
    "input",
    "model",
    "number",
    "ops",
    "output",
    "report",
    "sim",
    "suggest",
    "sweep",
    "tune",
];

fn rules(src: &Path) -> Vec<Rule> {
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // every module but `allowed` (each `a` allowing `crate::a` and everything under it)
    let all_but = |allowed: &[&str]| {
        MODULES
            .iter()
            .filter(|m| !allowed.contains(m))
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
    };
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
    let leaves = ["error", "figures", "number", "suggest"];
    let with_leaves = |more: &[&'static str]| {
        let mut v = leaves.to_vec();
        v.extend_from_slice(more);
        v
    };
    // the result types: the leaves, model, input's notice type, sim's result types
    let mut report = all_but(&with_leaves(&["model", "report", "sweep", "sim"]));
    report.extend(simulators);
    vec![
        Rule {
            layer: "leaves",
            prefixes: &["figures.rs", "number.rs", "suggest.rs", "error.rs"],
            forbidden: all_but(&leaves),
            except: &[],
        },
        Rule {
            layer: "model",
            prefixes: &["model/"],
            forbidden: all_but(&with_leaves(&["model"])),
            except: &[],
        },
        Rule {
            layer: "report",
            prefixes: &["report.rs", "report/", "sweep.rs"],
            forbidden: report,
            except: &["input::gateway::Notice"],
        },
        Rule {
            layer: "sim",
            prefixes: &["sim/"],
            forbidden: all_but(&with_leaves(&["sim", "model", "report", "sweep"])),
            except: &[],
        },
        Rule {
            layer: "input",
            prefixes: &["input/"],
            forbidden: all_but(&with_leaves(&["input", "model"])),
            except: &[],
        },
        Rule {
            layer: "check",
            prefixes: &["check/"],
            forbidden: all_but(&with_leaves(&["check", "input", "model", "report"])),
            except: &[],
        },
        Rule {
            layer: "calibrate",
            prefixes: &["calibrate/"],
            forbidden: all_but(&with_leaves(&["calibrate", "input", "model"])),
            except: &[],
        },
        Rule {
            layer: "ops",
            prefixes: &["ops/"],
            forbidden: own(&["output", "cmd", "cli"]),
            except: &[],
        },
        Rule {
            layer: "output",
            prefixes: &["output/"],
            forbidden: all_but(&with_leaves(&[
                "output", "report", "sweep", "model", "tune",
            ])),
            except: &[],
        },
        Rule {
            layer: "cmd",
            prefixes: &["cmd/", "cli.rs", "lib.rs", "main.rs"],
            forbidden: Vec::new(),
            except: &[],
        },
        Rule {
            layer: "tune",
            prefixes: &["tune/"],
            forbidden: all_but(&with_leaves(&[
                "tune", "model", "sim", "input", "report", "sweep",
            ])),
            except: &[],
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

/// `code` (after [`code_only`]: no comments or literals) without its `#[cfg(test)]` items:
/// each attribute with the attributes after it and the item up to its `;` or its block's
/// closing brace, wherever in the file it is; the code after a test module stays. Also the
/// names of the modules declared as `#[cfg(test)] mod NAME;` (their files are test code).
fn without_tests(code: &str) -> (String, Vec<String>) {
    const ATTR: &str = "#[cfg(test)]";
    let c: Vec<char> = code.chars().collect();
    let attr: Vec<char> = ATTR.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if !c[i..].starts_with(&attr) {
            out.push(c[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += attr.len();
        // further attributes, then the item: up to `;` or the block's end
        let mut depth = 0usize;
        let mut brackets = 0usize;
        while i < c.len() {
            match c[i] {
                '[' => brackets += 1,
                ']' => brackets = brackets.saturating_sub(1),
                ';' if depth == 0 && brackets == 0 => {
                    i += 1;
                    break;
                }
                '{' if brackets == 0 => depth += 1,
                '}' if brackets == 0 => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let item: String = c[start + attr.len()..i].iter().collect();
        let words: Vec<&str> = item
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ';'))
            .filter(|w| !w.is_empty())
            .collect();
        if let [.., "mod", name] = words.as_slice()
            && let Some(name) = name.strip_suffix(';')
        {
            test_mods.push(name.to_string());
        }
        // keep the lines: a removed item leaves its newlines
        out.extend(c[start..i].iter().filter(|&&ch| ch == '\n'));
    }
    (out, test_mods)
}

/// A file's code: its text without comments, literals and `#[cfg(test)]` items
/// ([`without_tests`]).
fn code_of(text: &str) -> String {
    without_tests(&code_only(text)).0
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

/// Lines of code of a file's text: non-blank, non-comment lines outside its tests.
fn lines_of_code(text: &str) -> usize {
    code_of(text)
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
    let code = code_of(text);
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

/// The files under `src/` that hold test code only: declared `#[cfg(test)] mod NAME;` by a
/// file of `files` (`a/b.rs` declares `a/b/NAME.rs`, `a/mod.rs` declares `a/NAME.rs`; or
/// `NAME/mod.rs` in either).
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let (_, mods) = without_tests(&code_only(&text));
        let stem = f.file_stem().unwrap().to_string_lossy();
        let dir = if ["mod", "lib", "main"].contains(&stem.as_ref()) {
            f.parent().unwrap().to_path_buf()
        } else {
            f.with_extension("")
        };
        for m in mods {
            out.insert(dir.join(format!("{m}.rs")));
            out.insert(dir.join(&m).join("mod.rs"));
        }
    }
    out
}

/// The rule that does not cover a file: every file of `src/` is in one layer.
const NO_LAYER: &str = "in no layer: give its module a row in README's architecture table and a rule in tests/it/layout.rs";

/// Every violation in `src/`, as (file, rule), sorted.
fn violations(root: &Path) -> BTreeSet<(String, String)> {
    let src = root.join("src");
    let rules = rules(&src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 30, "{} files in src/", files.len());
    let tests_only = test_only_files(&files);
    let mut out = BTreeSet::new();
    for f in files.iter().filter(|f| !tests_only.contains(*f)) {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let name = format!("src/{rel}");
        let text = std::fs::read_to_string(f).unwrap();
        if lines_of_code(&text) > MAX_LINES {
            out.insert((name.clone(), TOO_LONG.to_string()));
        }
        let used = used_paths(&rel, &text);
        let mut covered = false;
        for rule in rules
            .iter()
            .filter(|r| r.prefixes.iter().any(|p| rel.starts_with(p)))
        {
            covered = true;
            for bad in &rule.forbidden {
                if used.iter().any(|u| {
                    (u == bad || u.starts_with(&format!("{bad}::")))
                        && !rule.except.contains(&u.as_str())
                }) {
                    out.insert((name.clone(), format!("{} uses crate::{bad}", rule.layer)));
                }
            }
        }
        if !covered {
            out.insert((name, NO_LAYER.to_string()));
        }
    }
    out
}

#[test]
fn layout_rules_hold_but_for_the_listed_violations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = violations(root);
    // every top-level module has its rule: src/'s modules are MODULES
    let mut modules: Vec<String> = std::fs::read_dir(root.join("src"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            (p.is_dir() || p.extension().is_some_and(|e| e == "rs")).then_some(stem)
        })
        .filter(|m| m != "lib" && m != "main")
        .collect();
    modules.sort();
    modules.dedup();
    assert_eq!(
        modules, MODULES,
        "src/'s top-level modules: give a new one its rule in tests/it/layout.rs and its row in README's architecture table"
    );
    // the largest files, for the record (`cargo test --test it layout:: -- --nocapture`)
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
            "architecture rules broken (see tests/it/layout.rs's docs):\n{}\n",
            new.join("\n")
        );
    }
    if !fixed.is_empty() {
        msg += &format!(
            "fixed, remove from ALLOWED_TODAY in tests/it/layout.rs:\n{}\n",
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
    // a test module in the middle: skipped, the code after it read and counted
    let middle = "use crate::model;\n#[cfg(test)]\n#[allow(unused)]\nmod tests {\n    use crate::cli;\n    \
                  fn f() { let _ = '}'; }\n}\n\nuse crate::output::x;\n#[cfg(test)]\nmod more;\nfn g() {}\n";
    assert_eq!(lines_of_code(middle), 3);
    let used: Vec<String> = used_paths("input/a.rs", middle).into_iter().collect();
    assert_eq!(used, ["model", "output::x"]);
    assert_eq!(without_tests(&code_only(middle)).1, ["more"]);
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
    std::fs::create_dir_all(dir.join("src/cmd")).unwrap();
    for i in 0..31 {
        std::fs::write(dir.join(format!("src/cmd/f{i}.rs")), "").unwrap();
    }
    // a module in no layer; a test-only file (declared by input/mod.rs) uses what it likes
    std::fs::write(dir.join("src/extra.rs"), "").unwrap();
    std::fs::write(
        dir.join("src/input/mod.rs"),
        "#[cfg(test)]\nmod tests;\nfn f() {}\n#[cfg(test)]\nmod inline { use crate::cmd; }\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/input/tests.rs"), "use crate::cmd::x;\n").unwrap();
    std::fs::write(dir.join("src/sim/steady.rs"), "").unwrap();
    std::fs::write(
        dir.join("src/model/mod.rs"),
        "use crate::sim::stats::Estimate;\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/output/json.rs"), "use crate::model;\n").unwrap();
    std::fs::write(
        dir.join("src/input/long.rs"),
        "fn x() {}\n".repeat(400)
            + "#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n"
            + &"fn y() {}\n".repeat(401)
            + "use crate::output::table;\n",
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
            format!("src/extra.rs: {NO_LAYER}"),
            "src/input/long.rs: input uses crate::output".to_string(),
            "src/input/long.rs: over 800 lines of code".to_string(),
            "src/model/mod.rs: model uses crate::sim".to_string(),
            "src/report.rs: report uses crate::sim::steady".to_string(),
        ]
    );
}
