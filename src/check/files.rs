//! Finding the files to check and telling what each one is.
//!
//! A PATH is a file or a folder searched recursively. In a folder, hidden files and folders
//! (`.git`, `.github`), `target` and `node_modules` are not read, and symbolic links to folders
//! are not followed; a file named on the command line is always read. Files are
//! recognised by extension and content:
//!
//! | file | read as | otherwise |
//! |---|---|---|
//! | `.toml` with a `[[chain]]` line | fallcost scenario | skipped (price tables, Cargo.toml) |
//! | `.yaml`/`.yml` with `model_list`, or fallbacks under `router_settings`/`litellm_settings` | LiteLLM proxy config | skipped |
//! | `.json` with top-level `strategy` or `targets` | Portkey config | skipped with the reason (LiteLLM's price file, other JSON) |
//! | anything else | | skipped |
//!
//! A file that looks like one of these but does not parse is an input error, not a skip, so a
//! broken config cannot pass the gate unnoticed.

use std::path::{Path, PathBuf};

use super::{
    CheckReport, Checked, FileKind, Finding, Options, PricedChain, Side, Skipped, judge, per_1k,
};
use crate::error::{InputError, InputErrorKind};
use crate::input::document::{Document, Segment};
use crate::input::gateway::{self, litellm, portkey};
use crate::input::{litellm_prices, read_text, scenario};

/// Files larger than this are skipped: no gateway config is this large.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Folders never entered when searching a folder.
const SKIP_DIRS: &[&str] = &["target", "node_modules"];

/// Check every file under `paths` (a file or a folder each; `.` when empty).
pub fn check_paths(paths: &[PathBuf], opts: &Options) -> CheckReport {
    let mut report = CheckReport {
        max_ratio: opts.max_ratio,
        profile: opts.profile,
        pricing: opts.prices.name.clone(),
        checked: vec![],
        skipped: vec![],
        findings: vec![],
        errors: vec![],
    };
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut files);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            report.errors.push(InputError::file(
                InputErrorKind::Read,
                p.display().to_string(),
                "no such file or folder",
            ));
        }
    }
    files.sort();
    files.dedup();
    for f in &files {
        check_file(f, opts, &mut report);
    }
    // Stable: within a line, notices before price findings, as they were found.
    report
        .findings
        .sort_by(|a, b| (a.file(), a.line()).cmp(&(b.file(), b.line())));
    report
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if kind.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) {
                walk(&path, out);
            }
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            out.push(path);
        }
    }
}

/// The path as shown: without a leading `./`.
fn label(path: &Path) -> String {
    let s = path.display().to_string();
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

fn skip(report: &mut CheckReport, file: &str, reason: impl Into<String>) {
    report.skipped.push(Skipped {
        path: file.to_string(),
        reason: reason.into(),
    });
}

/// Check one file, adding what it holds to `report`.
pub fn check_file(path: &Path, opts: &Options, report: &mut CheckReport) {
    let file = label(path);
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if !matches!(ext.as_str(), "toml" | "yaml" | "yml" | "json") {
        skip(report, &file, "not .toml, .yaml, .yml or .json");
        return;
    }
    if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_BYTES) {
        skip(report, &file, "larger than 16 MiB: not a config");
        return;
    }
    let text = match read_text(path) {
        Ok(t) => t,
        Err(mut e) => {
            e.file = file;
            report.errors.push(e);
            return;
        }
    };
    match ext.as_str() {
        "toml" => check_scenario(path, &file, &text, report),
        "json" => check_json(&file, &text, opts, report),
        _ => check_yaml(&file, &text, opts, report),
    }
}

/// Check a gateway config given as text: `json` (Portkey) or `yaml` (LiteLLM), as
/// [`check_file`] does for a file with that extension (used by the fuzz target).
pub fn check_text(file: &str, json: bool, text: &str, opts: &Options, report: &mut CheckReport) {
    if json {
        check_json(file, text, opts, report);
    } else {
        check_yaml(file, text, opts, report);
    }
}

fn record_chains(
    report: &mut CheckReport,
    file: &str,
    format: FileKind,
    chains: &[PricedChain],
    max_ratio: f64,
) {
    report.checked.push(Checked {
        path: file.to_string(),
        format,
        chains: chains.len(),
        links: chains.iter().map(|c| c.links.len()).sum(),
    });
    for c in chains {
        report.findings.extend(judge(c, max_ratio));
    }
}

fn check_scenario(path: &Path, file: &str, text: &str, report: &mut CheckReport) {
    if !text
        .lines()
        .any(|l| l.trim_start().starts_with("[[chain]]"))
    {
        skip(report, file, "TOML without [[chain]]: not a scenario");
        return;
    }
    let scenario = match scenario::load(path, &[]) {
        Ok(s) => s,
        Err(mut e) => {
            if e.file == path.display().to_string() {
                e.file = file.to_string();
            }
            report.errors.push(e);
            return;
        }
    };
    // The scenario parsed, so its document does: locate each model for file:line.
    let doc = Document::parse(file, text).ok();
    let line = |ci: usize, mi: Option<usize>| -> usize {
        let mut p = vec![
            Segment::Key("chain".into()),
            Segment::Index(ci),
            Segment::Key(if mi.is_some() { "models" } else { "name" }.into()),
        ];
        if let Some(mi) = mi {
            p.push(Segment::Index(mi));
        }
        doc.as_ref()
            .and_then(|d| d.locate(&p))
            .map_or(1, |l| l.line)
    };
    let priced = |ci: usize, mi: usize| {
        let m = &scenario.chains[ci].links[mi];
        Side::new(
            m.id.clone(),
            vec![super::PricedModel {
                model: m.id.clone(),
                priced_as: m.id.clone(),
                provider: m.provider.clone(),
                per_1k_usd: per_1k(&scenario.request, m),
            }],
        )
    };
    let chains: Vec<PricedChain> = scenario
        .chains
        .iter()
        .enumerate()
        .map(|(ci, c)| {
            let mut links = Vec::new();
            for mi in 1..c.links.len() {
                if c.links[mi].id == c.links[0].id {
                    report.findings.push(Finding::Config {
                        file: file.to_string(),
                        line: line(ci, Some(mi)),
                        notice: gateway::Notice::SelfFallback {
                            group: c.links[0].id.clone(),
                        },
                    });
                    continue;
                }
                links.push((priced(ci, mi), line(ci, Some(mi)), vec![]));
            }
            PricedChain {
                file: file.to_string(),
                name: c.name.clone(),
                line: line(ci, None),
                primary: priced(ci, 0),
                links,
            }
        })
        .collect();
    let max_ratio = report.max_ratio;
    record_chains(report, file, FileKind::Scenario, &chains, max_ratio);
}

fn gateway_chains(
    file: &str,
    format: FileKind,
    config: gateway::Config,
    opts: &Options,
    report: &mut CheckReport,
) {
    for (line, notice) in config.notices.iter().cloned() {
        report.findings.push(Finding::Config {
            file: file.to_string(),
            line,
            notice,
        });
    }
    let (chains, notes, errors) = super::price_config(file, &config, &opts.prices, &opts.profile);
    report.findings.extend(notes);
    report.errors.extend(errors);
    record_chains(report, file, format, &chains, opts.max_ratio);
}

fn check_yaml(file: &str, text: &str, opts: &Options, report: &mut CheckReport) {
    let mentions = ["model_list", "router_settings", "litellm_settings"]
        .iter()
        .any(|k| text.contains(k));
    if mentions && let Err(e) = litellm::python_syntax(file, text) {
        report.errors.push(e);
        return;
    }
    let docs = match gateway::parse_yaml_documents(file, text) {
        Ok(docs) => docs,
        Err(e) if mentions => {
            report.errors.push(e);
            return;
        }
        Err(e) => {
            skip(report, file, format!("not valid YAML ({})", e.message));
            return;
        }
    };
    // The first document that is a LiteLLM config (a file may hold several `---` documents).
    let Some(root) = docs.into_iter().find(litellm::recognise) else {
        skip(
            report,
            file,
            "YAML, not a LiteLLM proxy config (no model_list, no fallbacks under router_settings or litellm_settings)",
        );
        return;
    };
    match litellm::read(file, &root, &opts.prices) {
        Ok(config) => gateway_chains(file, FileKind::Litellm, config, opts, report),
        Err(e) => report.errors.push(e),
    }
}

fn check_json(file: &str, text: &str, opts: &Options, report: &mut CheckReport) {
    let root = match gateway::parse_json(file, text) {
        Ok(root) => root,
        Err(e) if text.contains("\"targets\"") || text.contains("\"strategy\"") => {
            report.errors.push(e);
            return;
        }
        Err(e) => {
            skip(report, file, format!("not valid JSON ({})", e.message));
            return;
        }
    };
    if !portkey::recognise(&root) {
        let is_price_file = serde_json::from_str::<serde_json::Value>(text)
            .is_ok_and(|v| litellm_prices::looks_like(&v));
        let reason = if is_price_file {
            "LiteLLM's price file: a price table, not a config (use it with --pricing)"
        } else {
            "JSON, but not a Portkey config (no top-level strategy or targets); not guessed at"
        };
        skip(report, file, reason);
        return;
    }
    match portkey::read(file, &root) {
        Ok(config) => gateway_chains(file, FileKind::Portkey, config, opts, report),
        Err(e) => report.errors.push(e),
    }
}
