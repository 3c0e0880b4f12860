//! `fallcost check` output: text for people, GitHub workflow annotations, and a stable JSON
//! document for tooling.
//!
//! Findings go to standard output in every format. Input errors go to standard error as
//! `error: FILE:LINE:COL: field: message` lines (the caller prints them); `github` also emits them
//! as `::error` annotations on standard output so they show on the pull request, and `json` lists
//! them under `errors`.
//!
//! NOTE: the JSON keys are a contract (README, "fallcost check in CI"); add keys, never rename.

pub mod sarif;

use serde_json::{Value, json};

use crate::check::{CheckReport, Finding, Severity, Side};
use crate::error::{InputError, printable_line};
use crate::report::clean;

/// The output formats of `fallcost check` (`--format`; the variants' comments are its `--help`
/// text). SARIF is written by [`sarif`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// `FILE:LINE: severity: message` lines and a summary line.
    Text,
    /// One JSON document for tooling.
    Json,
    /// GitHub Actions workflow annotations (`::error file=F,line=L::message`).
    Github,
    /// SARIF 2.1.0, for code scanning (`github/codeql-action/upload-sarif`).
    Sarif,
}

/// `1 chain`, `2 chains`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        crate::output::number::group(&n.to_string()),
        if n == 1 { one } else { many }
    )
}

/// The one-line summary: files, chains, links, and counts by severity.
pub fn summary(report: &CheckReport) -> String {
    let chains: usize = report.checked.iter().map(|c| c.chains).sum();
    let links: usize = report.checked.iter().map(|c| c.links).sum();
    let mut s = format!(
        "fallcost check: {}, {}, {} at --max-ratio {}: {}, {}, {}",
        plural(report.checked.len(), "file", "files"),
        plural(chains, "chain", "chains"),
        plural(links, "fallback link", "fallback links"),
        crate::check::format_limit(report.max_ratio),
        plural(report.count(Severity::Error), "error", "errors"),
        plural(report.count(Severity::Warning), "warning", "warnings"),
        plural(report.count(Severity::Note), "note", "notes"),
    );
    if !report.errors.is_empty() {
        s.push_str(&format!(
            ", {}",
            plural(report.errors.len(), "input error", "input errors")
        ));
    }
    if !report.skipped.is_empty() {
        s.push_str(&format!(
            "; {} skipped (--verbose lists them)",
            plural(report.skipped.len(), "path", "paths")
        ));
    }
    s
}

/// Render `report`. `verbose` lists skipped files (text and github; json always lists them).
pub fn render(report: &CheckReport, format: CheckFormat, verbose: bool) -> String {
    match format {
        CheckFormat::Text => text(report, verbose),
        CheckFormat::Github => github(report, verbose),
        CheckFormat::Json => {
            let mut s = serde_json::to_string_pretty(&to_json(report)).expect("JSON values");
            s.push('\n');
            s
        }
        CheckFormat::Sarif => {
            let mut s =
                serde_json::to_string_pretty(&sarif::to_sarif(report)).expect("JSON values");
            s.push('\n');
            s
        }
    }
}

/// Print `report` in `format`: the findings on standard output (the text format wrapped to a
/// terminal's width and coloured as `ui` says), and each input error on standard error, one
/// line each.
///
/// Errors: standard output or standard error cannot be written.
pub fn print(report: &CheckReport, format: CheckFormat, ui: crate::output::ui::Ui) -> std::io::Result<()> {
    use std::io::Write;
    let out = render(report, format, ui.verbose);
    let out = if format == CheckFormat::Text {
        // On a terminal each finding wraps to its width (continuing indented); in a pipe or a
        // file it stays one line, for grep and problem matchers.
        let out = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            crate::output::table::wrap(&out, crate::output::ui::width(), 2)
        } else {
            out
        };
        colorize_text(&out, ui.color_stdout)
    } else {
        out
    };
    {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
    }
    let mut stderr = std::io::stderr().lock();
    for e in &report.errors {
        // One line each, whatever a config's names hold (newlines, terminal escapes).
        writeln!(
            stderr,
            "{}",
            crate::output::color::paint_stderr(
                crate::output::color::Role::Error,
                "error:",
                &crate::error::printable_line(&e.to_string())
            )
        )?;
    }
    Ok(())
}

/// The text format with its severities coloured when `on`: `error` red, `warning` yellow,
/// `note` cyan, in each `FILE:LINE: severity: message` line (and a line starting with the
/// severity), and the summary's non-zero error and warning counts.
pub fn colorize_text(text: &str, on: bool) -> String {
    use crate::output::color::{Role, paint};
    if !on {
        return text.to_string();
    }
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let mut done = false;
        for (word, role) in [
            ("error", Role::Error),
            ("warning", Role::Warning),
            ("note", Role::Note),
        ] {
            let tagged = format!("{word}: ");
            if let Some(rest) = line.strip_prefix(&tagged) {
                out.push_str(&format!("{}: {rest}", paint(true, role, word)));
                done = true;
                break;
            }
            let infix = format!(": {word}: ");
            if let Some(at) = line.find(&infix)
                && !line.starts_with("fallcost check: ")
            {
                out.push_str(&format!(
                    "{}: {}: {}",
                    &line[..at],
                    paint(true, role, word),
                    &line[at + infix.len()..]
                ));
                done = true;
                break;
            }
        }
        if !done {
            out.push_str(line);
        }
    }
    out
}

fn text(report: &CheckReport, verbose: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let message = f.to_string();
        let message = printable_line(&message);
        if f.file().is_empty() {
            out.push_str(&format!("{}: {message}\n", f.severity().as_str()));
        } else {
            out.push_str(&format!(
                "{}:{}: {}: {message}\n",
                printable_line(f.file()),
                f.line(),
                f.severity().as_str()
            ));
        }
    }
    if verbose {
        for c in &report.checked {
            out.push_str(&format!(
                "checked {} ({}): {}, {}\n",
                printable_line(&c.path),
                serde_json::to_value(c.format)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                plural(c.chains, "chain", "chains"),
                plural(c.links, "fallback link", "fallback links"),
            ));
        }
        for s in &report.skipped {
            out.push_str(&format!(
                "skipped {}: {}\n",
                printable_line(&s.path),
                printable_line(&s.reason)
            ));
        }
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

/// Escape workflow-command data (`%`, CR, LF) per GitHub's toolkit.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property value (also `:` and `,`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow annotation; control characters in `file` and `message` are escaped first
/// ([`printable_line`]), then the workflow-command characters.
fn annotation(level: &str, file: &str, line: Option<usize>, message: &str) -> String {
    let (file, message) = (printable_line(file), printable_line(message));
    let mut props = String::new();
    if !file.is_empty() {
        props.push_str(&format!("file={},", escape_property(&file)));
    }
    if let Some(l) = line.filter(|_| !file.is_empty()) {
        props.push_str(&format!("line={l},"));
    }
    format!(
        "::{level} {props}title=fallcost check::{}\n",
        escape_data(&message)
    )
}

fn github(report: &CheckReport, verbose: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let level = match f.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        out.push_str(&annotation(level, f.file(), Some(f.line()), &f.to_string()));
    }
    for e in &report.errors {
        let mut message = String::new();
        if let Some(field) = &e.field {
            message.push_str(&format!("{field}: "));
        }
        message.push_str(&e.message);
        out.push_str(&annotation(
            "error",
            &e.file,
            e.location.map(|l| l.line),
            &message,
        ));
    }
    if verbose {
        for s in &report.skipped {
            out.push_str(&format!(
                "skipped {}: {}\n",
                printable_line(&s.path),
                printable_line(&s.reason)
            ));
        }
    }
    out.push_str(&summary(report));
    out.push('\n');
    out
}

fn side(s: &Side) -> Value {
    json!({
        "name": s.name,
        "min_per_1k_usd": clean(s.min_per_1k_usd),
        "max_per_1k_usd": clean(s.max_per_1k_usd),
        "mix_per_1k_usd": s.mix_per_1k_usd.map(clean),
        "mix": s.mix,
        "models": s.models.iter().map(|m| json!({
            "model": m.model,
            "priced_as": m.priced_as,
            "provider": m.provider,
            "per_1k_usd": clean(m.per_1k_usd),
            "first_per_1k_usd": clean(m.first_per_1k_usd),
            "share": m.share.map(clean),
        })).collect::<Vec<_>>(),
    })
}

fn finding(f: &Finding) -> Value {
    let located = !f.file().is_empty();
    let mut v = json!({
        "severity": f.severity().as_str(),
        "kind": f.kind(),
        "file": located.then(|| f.file()),
        "line": located.then(|| f.line()),
        "message": f.to_string(),
    });
    let obj = v.as_object_mut().expect("an object");
    match f {
        Finding::AboveRatio {
            chain,
            primary,
            fallback,
            ratio,
            max_ratio,
            via,
            allowed,
            allowed_from,
            ..
        } => {
            obj.insert("chain".into(), json!(chain));
            obj.insert("allowed".into(), json!(allowed));
            obj.insert("allowed_from".into(), json!(allowed_from));
            obj.insert("primary".into(), side(primary));
            obj.insert("fallback".into(), side(fallback));
            obj.insert("ratio".into(), json!(ratio.map(clean)));
            obj.insert("max_ratio".into(), json!(max_ratio));
            obj.insert("via".into(), json!(via));
        }
        Finding::IncidentCost {
            chain,
            primary,
            fallback,
            warm_ratio,
            figures,
            incident,
            max_ratio,
            allowed,
            allowed_from,
            ..
        } => {
            obj.insert("chain".into(), json!(chain));
            obj.insert("primary".into(), side(primary));
            obj.insert("fallback".into(), side(fallback));
            obj.insert("warm_ratio".into(), json!(warm_ratio.map(clean)));
            obj.insert(
                "first_failover_ratio".into(),
                json!(figures.first_ratio.map(clean)),
            );
            obj.insert(
                "incident".into(),
                json!({
                    "duration_s": incident.duration_s,
                    "requests_per_second": incident.requests_per_second,
                    "session_length": incident.session_length,
                    "requests": figures.requests,
                    "sessions": figures.sessions,
                    "normal_usd": clean(figures.normal),
                    "total_usd": clean(figures.total),
                    "multiplier": figures.multiplier.map(clean),
                }),
            );
            obj.insert("max_ratio".into(), json!(max_ratio));
            obj.insert("allowed".into(), json!(allowed));
            obj.insert("allowed_from".into(), json!(allowed_from));
        }
        Finding::SameProvider {
            chain, providers, ..
        } => {
            obj.insert("chain".into(), json!(chain));
            obj.insert("providers".into(), json!(providers));
        }
        Finding::NoChains { paths } => {
            obj.insert("paths".into(), json!(paths));
        }
        Finding::Config { .. } | Finding::PriceSource { .. } => {}
    }
    v
}

/// `rows` with the union of their keys each, `null` where a row had none: every finding has
/// every key (`chain` is `null` on a config notice).
fn same_keys(mut rows: Vec<Value>) -> Vec<Value> {
    let mut keys: Vec<String> = Vec::new();
    for r in &rows {
        for k in r.as_object().into_iter().flat_map(|m| m.keys()) {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    for r in &mut rows {
        if let Some(m) = r.as_object_mut() {
            for k in &keys {
                m.entry(k.clone()).or_insert(Value::Null);
            }
        }
    }
    rows
}

/// One input error as JSON: `file`, `line`, `column`, `field`, `message`, `kind`.
pub fn error_json(e: &InputError) -> Value {
    json!({
        "file": e.file,
        "line": e.location.map(|l| l.line),
        "column": e.location.map(|l| l.col),
        "field": e.field,
        "message": e.message,
        "kind": e.kind.as_str(),
        "text": e.to_string(),
    })
}

/// The JSON document: `fallcost_version`, `max_ratio`, `profile`, `pricing`, `files`,
/// `skipped`, `findings`, `errors`, `summary`.
pub fn to_json(report: &CheckReport) -> Value {
    let chains: usize = report.checked.iter().map(|c| c.chains).sum();
    let links: usize = report.checked.iter().map(|c| c.links).sum();
    json!({
        "fallcost_version": env!("CARGO_PKG_VERSION"),
        "max_ratio": report.max_ratio,
        "profile": {
            "input_tokens": report.profile.input_tokens as u64,
            "output_tokens": report.profile.output_tokens as u64,
        },
        "pricing": report.pricing,
        "files": report.checked,
        "skipped": report.skipped,
        "findings": same_keys(report.findings.iter().map(finding).collect()),
        "errors": report.errors.iter().map(error_json).collect::<Vec<_>>(),
        "summary": {
            "files": report.checked.len(),
            "chains": chains,
            "links": links,
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "notes": report.count(Severity::Note),
            "input_errors": report.errors.len(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped() {
        assert_eq!(plural(1, "file", "files"), "1 file");
        assert_eq!(plural(12_345, "chain", "chains"), "12,345 chains");
    }

    #[test]
    fn json_numbers_drop_float_noise() {
        assert_eq!(clean(0.45000000000000007), 0.45);
        assert_eq!(clean(174.00000000000003), 174.0);
        assert_eq!(clean(0.0), 0.0);
        assert_eq!(clean(2.0 / 3.0), 0.666666666667);
    }

    #[test]
    fn annotations_escape_their_data_and_properties() {
        assert_eq!(
            annotation("error", "a,b:c.yaml", Some(3), "50% more than"),
            "::error file=a%2Cb%3Ac.yaml,line=3,title=fallcost check::50%25 more than\n"
        );
        assert_eq!(
            annotation("error", "c.yaml", Some(3), "`m\u{1b}[31m`\nx\r"),
            "::error file=c.yaml,line=3,title=fallcost check::`m\\u{1b}[31m`\\nx\\r\n"
        );
    }

    #[test]
    fn control_characters_are_escaped_and_other_text_kept() {
        assert_eq!(
            printable_line("a\u{1b}[2J\r\nb\tc"),
            "a\\u{1b}[2J\\r\\nb\\tc"
        );
        assert!(matches!(
            printable_line("gpt-6 é ✓"),
            std::borrow::Cow::Borrowed("gpt-6 é ✓")
        ));
    }
}
