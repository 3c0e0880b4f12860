//! Finding the files to check and telling what each one is.
//!
//! A PATH is a file or a folder searched recursively. In a folder, hidden files and folders
//! (`.git`, `.github`), `target` and `node_modules` are not read, symbolic links to folders are
//! not followed, and anything that is not a regular file (a broken link, a FIFO) is not read:
//! each is listed with the reason under `--verbose`. A file named on the command line is always
//! read, and is an input error when it is none of the files below (a file in a folder that is
//! none of them is skipped); a folder that cannot be read is an input error. A file reached twice (`check . gateway/`)
//! is checked once. A run that finds no fallback chain at all warns, so a gate pointed at the
//! wrong folder does not pass forever. Files are recognised by extension and content:
//!
//! | file | read as | otherwise |
//! |---|---|---|
//! | `.toml` with a `chain` key, or a scenario's other keys (`request`, `steady`, `incident`, `policy`, `latency`) or a near miss of `chain` | fallcost scenario | skipped (price tables, Cargo.toml) |
//! | `.yaml`/`.yml` with `model_list`, or fallbacks under `router_settings`/`litellm_settings` (after following LiteLLM's `include`) | LiteLLM proxy config | skipped |
//! | `.json` with a `strategy` object with a `mode`, or a `targets` list of objects | Portkey config | skipped with the reason (LiteLLM's price file, an Nx `project.json`, other JSON) |
//! | anything else | | skipped |
//!
//! A file that looks like one of these but does not parse is an input error, not a skip, so a
//! broken config cannot pass the gate unnoticed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{CheckOptions, PricedChain, PricedLink, judge_limits};
use crate::error::{InputError, InputErrorKind};
use crate::input::document::{Document, PathSegment};
use crate::input::gateway::env::{is_templated, template_vars};
use crate::input::gateway::{self, litellm, openrouter, portkey};
use crate::input::{litellm_prices, read_text, scenario, shown_path};
use crate::model::Scenario;
use crate::report::check::{CheckReport, Checked, FileKind, Finding, PricedModel, Side, Skipped};

/// Files larger than this are skipped: no gateway config is this large.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// What `check` reads, for the error about a file named on the command line that is none of them.
const RECOGNISED: &str = "fallcost scenarios (.toml with `[[chain]]`), LiteLLM proxy configs (.yaml/.yml with `model_list`), Portkey configs (.json with `strategy` and `targets`) and OpenRouter request bodies (.json with a `models` list)";

/// Folders never entered when searching a folder.
const SKIP_DIRS: &[&str] = &["target", "node_modules"];

/// Check every file under `paths` (a file or a folder each; `.` when empty).
pub fn check_paths(paths: &[PathBuf], opts: &CheckOptions) -> CheckReport {
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
    // Files named on the command line: one that is not a config fallcost reads is an error.
    let mut named = HashSet::new();
    for p in paths {
        let shown = shown_path(p);
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(p, &mut files, &mut report),
            Ok(m) if m.is_file() => {
                named.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()));
                files.push(p.clone());
            }
            Ok(_) => report.errors.push(InputError::file(
                InputErrorKind::Read,
                shown,
                "not a regular file or a folder (a FIFO, socket or device); name a file or a folder",
            )),
            Err(e) => {
                let message = if p.symlink_metadata().is_ok() {
                    format!("a symbolic link that cannot be followed ({e})")
                } else {
                    "no such file or folder".to_string()
                };
                report
                    .errors
                    .push(InputError::file(InputErrorKind::Read, shown, message));
            }
        }
    }
    // In label order, each file once however many paths reach it.
    files.sort_by_cached_key(|f| shown_path(f));
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    for f in &files {
        let skipped = report.skipped.len();
        check_file(f, opts, &mut report);
        if report.skipped.len() > skipped
            && named.contains(&std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        {
            let reason = report.skipped.pop().map(|s| s.reason).unwrap_or_default();
            report.errors.push(InputError::file(
                InputErrorKind::Schema,
                shown_path(f),
                format!("not a file fallcost check reads ({reason}); it reads {RECOGNISED}"),
            ));
        }
    }
    report.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    if report.checked.iter().all(|c| c.chains == 0) && report.errors.is_empty() {
        let unjudged = report
            .findings
            .iter()
            .any(|f| matches!(f, Finding::PriceSource { .. } | Finding::Unpriced { .. }));
        report.findings.push(Finding::NoChains {
            paths: paths.iter().map(|p| shown_path(p)).collect(),
            unjudged,
        });
    }
    // Stable: within a line, notices before price findings, as they were found.
    report
        .findings
        .sort_by(|a, b| (a.file(), a.line()).cmp(&(b.file(), b.line())));
    report
}

/// Add the files under `dir` to `out`, and what is not read to `report` (skipped, with the
/// reason; a folder that cannot be read is an input error).
fn walk(dir: &Path, out: &mut Vec<PathBuf>, report: &mut CheckReport) {
    let unreadable = |report: &mut CheckReport, path: &Path, e: std::io::Error| {
        report.errors.push(InputError::file(
            InputErrorKind::Read,
            shown_path(path),
            format!(
                "cannot read this folder ({e}); fix its permissions or leave it out of the paths"
            ),
        ));
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return unreadable(report, dir, e),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                unreadable(report, dir, e);
                continue;
            }
        };
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let why = match entry.file_type() {
            Err(e) => Some(format!("cannot tell what it is ({e})")),
            Ok(_) if name.starts_with('.') => Some("hidden: not searched".to_string()),
            Ok(kind) if kind.is_dir() => {
                if SKIP_DIRS.contains(&name.as_str()) {
                    Some("build output or dependencies: not searched".to_string())
                } else {
                    walk(&path, out, report);
                    None
                }
            }
            Ok(kind) if kind.is_file() => {
                out.push(path.clone());
                None
            }
            Ok(kind) if kind.is_symlink() => match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => {
                    out.push(path.clone());
                    None
                }
                Ok(m) if m.is_dir() => Some("symbolic link to a folder: not followed".to_string()),
                Ok(_) => Some("symbolic link to a FIFO, socket or device: not read".to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    Some("broken symbolic link (its target does not exist): not read".to_string())
                }
                Err(e) => Some(format!(
                    "symbolic link that cannot be followed ({e}): not read"
                )),
            },
            Ok(_) => Some("not a regular file (a FIFO, socket or device): not read".to_string()),
        };
        if let Some(reason) = why {
            skip(report, &shown_path(&path), reason);
        }
    }
}

fn skip(report: &mut CheckReport, file: &str, reason: impl Into<String>) {
    report.skipped.push(Skipped {
        path: file.to_string(),
        reason: reason.into(),
    });
}

/// Check one file, adding what it holds to `report`.
pub fn check_file(path: &Path, opts: &CheckOptions, report: &mut CheckReport) {
    let file = shown_path(path);
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
        "toml" => check_scenario(path, &file, &text, opts, report),
        "json" => check_json(&file, &text, opts, report),
        _ => check_yaml(&file, &text, opts, report),
    }
}

/// Check a gateway config given as text: `json` (Portkey) or `yaml` (LiteLLM), as
/// [`check_file`] does for a file with that extension (used by the fuzz target).
pub fn check_text(
    file: &str,
    json: bool,
    text: &str,
    opts: &CheckOptions,
    report: &mut CheckReport,
) {
    if json {
        check_json(file, text, opts, report);
    } else {
        check_yaml(file, text, opts, report);
    }
}

/// Judge `chains` of `file` with `opts` and record them: each link by its price (a conditional
/// chain's by the share of requests it takes, [`super::judge_conditional`]), under
/// `--incident` by what an outage bills (conditional chains aside: an outage does not send
/// requests to them), and each fallback's fit ([`super::fit::judge_fit`]) for the request
/// `profile` (a config's `--profile`, a scenario's own `[request]`).
fn record_chains(
    report: &mut CheckReport,
    file: &str,
    format: FileKind,
    chains: &[PricedChain],
    opts: &CheckOptions,
    (profile, requires): (
        &crate::model::cost::Request,
        &[crate::model::fit::Capability],
    ),
) {
    // a scenario's own `[request] requires` joins `--requires`
    let mut rules = std::borrow::Cow::Borrowed(&opts.fit);
    for c in requires {
        if !rules.requires.contains(c) {
            rules.to_mut().requires.push(*c);
        }
    }
    report.checked.push(Checked {
        path: file.to_string(),
        format,
        chains: chains.len(),
        links: chains.iter().map(|c| c.links.len()).sum(),
    });
    let first = report.findings.len();
    let (max_ratio, allow) = (opts.max_ratio, &opts.allow);
    let mut fits = Vec::new();
    for c in chains {
        if c.condition.is_some() {
            let found = super::judge_conditional(c, max_ratio, allow, &opts.shares);
            report.findings.extend(found);
            continue;
        }
        let found = judge_limits(c, max_ratio, Some(opts.max_usd_per_1k), allow);
        report.findings.extend(found);
        if let Some(incident) = opts.incident.as_ref() {
            let found = super::judge_incident(c, max_ratio, allow, incident);
            report.findings.extend(found);
        }
        let incident = opts.incident.as_ref();
        fits.extend(super::fit::judge_fit(c, profile, &rules, incident));
    }
    report.findings.extend(super::fit::once_per_place(fits));
    // Say where an allow-list entry came from (a settings file, or the flag).
    for f in &mut report.findings[first..] {
        if let Finding::AboveRatio {
            allowed: Some(_),
            allowed_from,
            ..
        }
        | Finding::IncidentCost {
            allowed: Some(_),
            allowed_from,
            ..
        }
        | Finding::Conditional {
            allowed: Some(_),
            allowed_from,
            ..
        } = f
        {
            *allowed_from = opts.allow_from.clone();
        }
    }
}

/// The top-level keys of a scenario besides `chain`: a TOML with one of them, or with a near miss
/// of `chain` (`chains`, `chian`), is read as a scenario so its mistake is reported.
const SCENARIO_KEYS: &[&str] = &["request", "steady", "incident", "policy", "latency"];

/// What a `.toml` is, by its top-level keys: `Ok(())` for a scenario (it has `chain`, or keys
/// only a scenario has, so the scenario reader says what is wrong), else why it is skipped (a
/// price table, Cargo.toml, pyproject.toml). TOML that does not parse is read as a scenario
/// when it mentions `chain` or `[request]`, for the reader's syntax error.
fn scenario_kind(text: &str) -> Result<(), &'static str> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return if text.contains("chain") || text.contains("[request]") {
            Ok(())
        } else {
            Err("not valid TOML, and nothing in it names a scenario's `chain` or `[request]`")
        };
    };
    if table.contains_key("chain") {
        Ok(())
    } else if table.contains_key("models") {
        Err("TOML price table (`models`): not a scenario")
    } else if table.keys().any(|k| {
        SCENARIO_KEYS.contains(&k.as_str())
            || crate::suggest::near_miss(k, &["chain"], 2, 2).is_some()
    }) {
        Ok(())
    } else {
        Err("TOML without `chain` or other scenario keys: not a scenario")
    }
}

fn check_scenario(
    path: &Path,
    file: &str,
    text: &str,
    opts: &CheckOptions,
    report: &mut CheckReport,
) {
    if let Err(reason) = scenario_kind(text) {
        skip(report, file, reason);
        return;
    }
    // fallcost.toml [prices] over the scenario's own table, as over a config's.
    let base = match path.parent() {
        Some(b) if !b.as_os_str().is_empty() => b,
        _ => Path::new("."),
    };
    let label = path.display().to_string();
    let scenario = match scenario::parse_priced(&label, text, base, &[], &opts.own_prices) {
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
    let chains = scenario_chains(&scenario, doc.as_ref(), file, &mut report.findings);
    // a scenario's fallbacks are judged for the request it prices, not the configs' profile
    record_chains(
        report,
        file,
        FileKind::Scenario,
        &chains,
        opts,
        (&scenario.request, &scenario.requires),
    );
}

/// The line of chain `ci`'s model `mi` (its name when `mi` is `None`) in the scenario's
/// document, 1 when it cannot be located.
fn model_line(doc: Option<&Document>, ci: usize, mi: Option<usize>) -> usize {
    let mut p = vec![
        PathSegment::Key("chain".into()),
        PathSegment::Index(ci),
        PathSegment::Key(if mi.is_some() { "models" } else { "name" }.into()),
    ];
    if let Some(mi) = mi {
        p.push(PathSegment::Index(mi));
    }
    doc.and_then(|d| d.locate(&p)).map_or(1, |l| l.line)
}

/// Chain `ci`'s link `mi` of `scenario` as a priced side of one model.
fn scenario_side(scenario: &Scenario, ci: usize, mi: usize) -> Side {
    let link = &scenario.chains[ci].links[mi];
    let m = &link.price;
    let mut priced = PricedModel::priced(
        m.id.clone(),
        m.id.clone(),
        m.provider.clone(),
        &scenario.request,
        m,
    );
    // what the price table says the model can serve (LiteLLM's table), for the fit findings
    priced.fit = link.fit.clone();
    Side::new(m.id.clone(), vec![priced])
}

/// The scenario's chains as `check` judges them, each model at its line in `file`; a fallback
/// to the chain's own primary is a finding (pushed to `findings`), not a link.
fn scenario_chains(
    scenario: &Scenario,
    doc: Option<&Document>,
    file: &str,
    findings: &mut Vec<Finding>,
) -> Vec<PricedChain> {
    let line = |ci: usize, mi: Option<usize>| model_line(doc, ci, mi);
    scenario
        .chains
        .iter()
        .enumerate()
        .map(|(ci, c)| {
            let mut links = Vec::new();
            for mi in 1..c.links.len() {
                if c.links[mi].price.id == c.links[0].price.id {
                    findings.push(Finding::Config {
                        file: file.to_string(),
                        line: line(ci, Some(mi)),
                        notice: gateway::Notice::SelfFallback {
                            group: c.links[0].price.id.clone(),
                        },
                    });
                    continue;
                }
                links.push(PricedLink {
                    fallback: scenario_side(scenario, ci, mi),
                    file: file.to_string(),
                    line: line(ci, Some(mi)),
                    via: vec![],
                });
            }
            PricedChain {
                file: file.to_string(),
                name: c.name.clone(),
                line: line(ci, None),
                primary: scenario_side(scenario, ci, 0),
                links,
                condition: None,
            }
        })
        .collect()
}

fn gateway_chains(
    file: &str,
    format: FileKind,
    config: gateway::Config,
    opts: &CheckOptions,
    report: &mut CheckReport,
) {
    for (at, notice) in config.notices.iter().cloned() {
        report.findings.push(Finding::Config {
            file: at.file_or(file).to_string(),
            line: at.line,
            notice,
        });
    }
    let (chains, notes, errors) = super::price_config(file, &config, &opts.prices, &opts.profile);
    report.findings.extend(notes);
    // Model ids read from the environment: one note per file, at the first, naming them all.
    let (templated, errors): (Vec<InputError>, Vec<InputError>) =
        errors.into_iter().partition(|e| {
            e.kind == InputErrorKind::UnknownModel && unknown_model(e).is_some_and(is_templated)
        });
    report.findings.extend(templated_note(&templated));
    for e in errors {
        match unpriced(e) {
            Ok(f) => report.findings.push(f),
            Err(e) => report.errors.push(e),
        }
    }
    record_chains(report, file, format, &chains, opts, (&opts.profile, &[]));
}

/// The model id an unknown-model error names (`unknown model `ID`…`).
fn unknown_model(e: &InputError) -> Option<&str> {
    e.message
        .strip_prefix("unknown model `")
        .and_then(|m| m.split_once('`'))
        .map(|(model, _)| model)
}

/// One note for a file's model ids read from the environment (`errors`: their unknown-model
/// errors, in the file's order), at the first one's line, naming each id and its variables
/// once, and how to give them (`set VAR or pass --env VAR=value`); `None` when there are none.
fn templated_note(errors: &[InputError]) -> Option<Finding> {
    let first = errors.first()?;
    let mut ids: Vec<&str> = Vec::new();
    for id in errors.iter().filter_map(unknown_model) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let mut vars: Vec<String> = Vec::new();
    for v in ids.iter().flat_map(|id| template_vars(id)) {
        if !vars.contains(&v) {
            vars.push(v);
        }
    }
    let listed: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
    let flags: Vec<String> = vars.iter().map(|v| format!("--env {v}=value")).collect();
    let one = ids.len() == 1;
    let (these, holds) = if one {
        ("the model id it holds", "is")
    } else {
        ("the model ids they hold", "are")
    };
    Some(Finding::PriceSource {
        line: first.location.map_or(0, |l| l.line),
        file: first.file.clone(),
        message: format!(
            "{} {holds} read from the environment when the proxy starts ({}): set {} or pass {} as the proxy's environment does, write {these} in the config, or declare {} price in fallcost.toml, to price {}; the chains through {} are not judged",
            listed.join(", "),
            vars.join(", "),
            vars.join(", "),
            flags.join(" "),
            if one { "its" } else { "their" },
            if one { "it" } else { "them" },
            if one { "it" } else { "them" },
        ),
    })
}

/// A model with no price as the finding it is in a gateway config (LiteLLM serves it; only its
/// chains cannot be judged there), naming how to declare its price; any other error as is.
fn unpriced(e: InputError) -> Result<Finding, InputError> {
    if e.kind != InputErrorKind::UnknownModel {
        return Err(e);
    }
    let Some((model, rest)) = e
        .message
        .strip_prefix("unknown model `")
        .and_then(|m| m.split_once('`'))
    else {
        return Err(e);
    };
    let (model, rest) = (model.to_string(), rest.to_string());
    Ok(Finding::Unpriced {
        line: e.location.map_or(0, |l| l.line),
        file: e.file,
        message: format!(
            "not priced: `{model}`{rest}, or declare it in fallcost.toml (`[prices.\"{model}\"]` input and output in USD per 1M tokens); the chains through it are not judged there"
        ),
        model,
    })
}

fn check_yaml(file: &str, text: &str, opts: &CheckOptions, report: &mut CheckReport) {
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
    // The first document that is a LiteLLM config (a file may hold several `---` documents),
    // with the files its `include` names merged in.
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut found = None;
    for doc in docs {
        let doc = if litellm::includes_files(&doc) {
            match litellm::resolve_includes(file, dir, doc) {
                Ok(doc) => doc,
                Err(e) => {
                    report.errors.push(e);
                    return;
                }
            }
        } else {
            doc
        };
        if litellm::recognise(&doc) {
            found = Some(doc);
            break;
        }
    }
    let Some(root) = found else {
        skip(
            report,
            file,
            "YAML, not a LiteLLM proxy config (no model_list, no fallbacks under router_settings or litellm_settings)",
        );
        return;
    };
    if let Some((line, _, key)) = gateway::duplicate_key(text) {
        report.findings.push(Finding::Config {
            file: file.to_string(),
            line,
            notice: gateway::Notice::Ignored {
                what: format!("an earlier `{key}` in the same mapping"),
                why: format!(
                    "`{key}` is given twice; LiteLLM reads its config with PyYAML, which keeps the last one (this one), so fallcost reads that one too"
                ),
            },
        });
    }
    match litellm::read_in(file, &root, &opts.prices, &opts.env) {
        Ok(config) => gateway_chains(file, FileKind::Litellm, config, opts, report),
        Err(e) => report.errors.push(e),
    }
}

fn check_json(file: &str, text: &str, opts: &CheckOptions, report: &mut CheckReport) {
    // One parse decides what the file is (a large JSON that is not a config is skipped after it);
    // only a Portkey config is read again, for the lines.
    let value: serde_json::Value = match serde_json::from_str(gateway::strip_bom(text)) {
        Ok(value) => value,
        Err(e) => {
            if text.contains("\"targets\"") || text.contains("\"strategy\"") {
                if let Err(e) = gateway::parse_json(file, text) {
                    report.errors.push(e);
                }
            } else {
                skip(report, file, format!("not valid JSON ({e})"));
            }
            return;
        }
    };
    if !portkey::recognise(&value) && openrouter::recognise(&value) {
        drop(value);
        let result = gateway::parse_json(file, text)
            .and_then(|root| openrouter::read_priced(file, &root, Some(&opts.prices)));
        match result {
            Ok(config) => gateway_chains(file, FileKind::Openrouter, config, opts, report),
            Err(e) => report.errors.push(e),
        }
        return;
    }
    if !portkey::recognise(&value) {
        if let Some(why) = openrouter::near_miss(&value) {
            // Looks like a request body: say so in every run, not only under --verbose.
            report.findings.push(Finding::Config {
                file: file.to_string(),
                line: 1,
                notice: gateway::Notice::NotRead { why: why.into() },
            });
            skip(report, file, why);
            return;
        }
        let reason = if litellm_prices::looks_like(&value) {
            "LiteLLM's price file: a price table, not a config (use it with --pricing)"
        } else {
            "JSON, but not a Portkey config (no `strategy` object with a `mode`, no `targets` list of objects); not guessed at"
        };
        skip(report, file, reason);
        return;
    }
    drop(value);
    let result = gateway::parse_json(file, text).and_then(|root| portkey::read(file, &root));
    match result {
        Ok(config) => gateway_chains(file, FileKind::Portkey, config, opts, report),
        Err(e) => report.errors.push(e),
    }
}
