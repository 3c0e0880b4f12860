//! `fallcost check --format sarif`: SARIF 2.1.0 for code scanning (GitHub's
//! `upload-sarif`, GitLab, Azure DevOps).
//!
//! One run, the tool `fallcost` with one rule per finding kind ([`RULES`]: `above-ratio`,
//! `same-provider`, …, and `input-error` for a file fallcost could not read), one result per
//! finding with its file and line. File paths are relative URIs against `%SRCROOT%` (the folder
//! `check` ran in), absolute paths `file://` URIs. Input errors are results too (so they show
//! on the pull request) and make the invocation unsuccessful.

use serde_json::{Value, json};

use crate::check::{CheckReport, Severity};
use crate::error::printable_line;

/// The rules: id, a short description, and the default level (`error`, `warning`, `note`).
pub const RULES: &[(&str, &str, &str)] = &[
    (
        "above-ratio",
        "A fallback is priced above --max-ratio times its primary (like-for-like, per request).",
        "error",
    ),
    (
        "same-provider",
        "Every model of the chain runs on one provider: it survives a deprecation, not an outage.",
        "warning",
    ),
    (
        "no-chains",
        "No fallback chain was found under the paths checked: the gate judged nothing.",
        "warning",
    ),
    (
        "price-source",
        "A price was taken from another provider's entry or another api_base.",
        "note",
    ),
    (
        "not-a-group",
        "A fallback names something that is not a model group: the gateway never fires it.",
        "warning",
    ),
    (
        "loop",
        "Fallback declarations lead back to where they started.",
        "note",
    ),
    (
        "self-fallback",
        "A fallback points at its own primary.",
        "warning",
    ),
    ("empty-fallbacks", "A fallback list is empty.", "warning"),
    (
        "no-model",
        "A target has no model of its own: its chain cannot be judged there.",
        "warning",
    ),
    (
        "ignored",
        "A declaration the gateway never acts on: not judged.",
        "warning",
    ),
    (
        "wildcard",
        "A wildcard route is not a model, so it is not priced.",
        "note",
    ),
    (
        "input-error",
        "A file fallcost could not read: invalid syntax or schema, or a model with no known price.",
        "error",
    ),
];

/// The index of rule `id` in [`RULES`] (an unknown kind is added by [`to_sarif`] at the end).
fn rule_index(rules: &[(String, String, String)], id: &str) -> Option<usize> {
    rules.iter().position(|(r, _, _)| r == id)
}

/// A path as a SARIF artifact URI: relative paths percent-encoded and without a leading
/// `./`, absolute paths as `file://` URIs.
pub fn artifact_uri(path: &str) -> (String, bool) {
    let absolute = path.starts_with('/');
    let trimmed = path.trim_start_matches("./");
    let mut out = String::new();
    for b in trimmed.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    if absolute {
        (format!("file://{out}"), true)
    } else {
        (out, false)
    }
}

fn location(file: &str, line: Option<usize>, column: Option<usize>) -> Value {
    let (uri, absolute) = artifact_uri(file);
    let mut artifact = json!({ "uri": uri });
    if !absolute {
        artifact["uriBaseId"] = json!("%SRCROOT%");
    }
    let mut physical = json!({ "artifactLocation": artifact });
    if let Some(l) = line.filter(|l| *l > 0) {
        let mut region = json!({ "startLine": l });
        if let Some(c) = column.filter(|c| *c > 0) {
            region["startColumn"] = json!(c);
        }
        physical["region"] = region;
    }
    json!({ "physicalLocation": physical })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The SARIF 2.1.0 log of `report`.
pub fn to_sarif(report: &CheckReport) -> Value {
    let mut rules: Vec<(String, String, String)> = RULES
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    let mut results = Vec::new();
    for f in &report.findings {
        let id = f.kind();
        if rule_index(&rules, id).is_none() {
            rules.push((
                id.to_string(),
                id.to_string(),
                level(f.severity()).to_string(),
            ));
        }
        let mut r = json!({
            "ruleId": id,
            "ruleIndex": rule_index(&rules, id),
            "level": level(f.severity()),
            "message": { "text": printable_line(&f.to_string()) },
        });
        if !f.file().is_empty() {
            r["locations"] = json!([location(f.file(), Some(f.line()), None)]);
        }
        results.push(r);
    }
    let mut notifications = Vec::new();
    for e in &report.errors {
        let mut text = String::new();
        if let Some(field) = &e.field {
            text.push_str(&format!("{field}: "));
        }
        text.push_str(&e.message);
        let text = printable_line(&text).into_owned();
        let mut r = json!({
            "ruleId": "input-error",
            "ruleIndex": rule_index(&rules, "input-error"),
            "level": "error",
            "message": { "text": text },
        });
        let mut n = json!({ "level": "error", "message": { "text": text } });
        if !e.file.is_empty() {
            let loc = location(
                &e.file,
                e.location.map(|l| l.line),
                e.location.map(|l| l.col),
            );
            r["locations"] = json!([loc.clone()]);
            n["locations"] = json!([loc]);
        }
        results.push(r);
        notifications.push(n);
    }
    let artifacts: Vec<Value> = report
        .checked
        .iter()
        .map(|c| {
            let (uri, absolute) = artifact_uri(&c.path);
            let mut loc = json!({ "uri": uri });
            if !absolute {
                loc["uriBaseId"] = json!("%SRCROOT%");
            }
            json!({ "location": loc })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "fallcost",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://crates.io/crates/fallcost",
                    "rules": rules.iter().map(|(id, text, lvl)| json!({
                        "id": id,
                        "name": id,
                        "shortDescription": { "text": text },
                        "defaultConfiguration": { "level": lvl },
                    })).collect::<Vec<_>>(),
                }
            },
            "invocations": [{
                "executionSuccessful": report.errors.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "artifacts": artifacts,
            "results": results,
            "properties": {
                "max_ratio": report.max_ratio,
                "pricing": report.pricing,
                "summary": super::summary(report),
            },
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_relative_or_file_uris() {
        assert_eq!(
            artifact_uri("./scenarios/a b.toml"),
            ("scenarios/a%20b.toml".into(), false)
        );
        assert_eq!(
            artifact_uri("/tmp/x,y.yaml"),
            ("file:///tmp/x%2Cy.yaml".into(), true)
        );
        assert_eq!(artifact_uri("café.json").0, "caf%C3%A9.json");
    }

    #[test]
    fn rule_ids_are_unique() {
        for (i, (id, _, _)) in RULES.iter().enumerate() {
            assert!(!RULES[..i].iter().any(|(j, _, _)| j == id), "{id}");
        }
    }
}
