//! `fallcost check --format sarif`: SARIF 2.1.0 for code scanning (GitHub's
//! `upload-sarif`, GitLab, Azure DevOps).
//!
//! One run, the tool `fallcost` with one rule per finding kind ([`RULES`]: `above-ratio`,
//! `same-provider`, …, and `input-error` for a file fallcost could not read), one result per
//! finding with its file and line. File paths are relative URIs against `%SRCROOT%` (the folder
//! `check` ran in), absolute paths `file://` URIs. Input errors are results too (so they show
//! on the pull request) and make the invocation unsuccessful.

use serde::Serialize;

use crate::error::printable_line;
use crate::report::check::{CheckReport, Severity};

/// The rules: id, a short description, and the default level (`error`, `warning`, `note`).
pub const RULES: &[(&str, &str, &str)] = &[
    (
        "above-ratio",
        "A fallback is priced above --max-ratio times its primary (like-for-like, per request).",
        "error",
    ),
    (
        "conditional-fallback",
        "A fallback above --max-ratio that takes only the requests that overflow the context window or are refused: judged by their share of requests.",
        "warning",
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
        "retired",
        "A fallback's model is past its retirement date (the price table's deprecation_date): the requests that fail over to it fail.",
        "error",
    ),
    (
        "retiring",
        "A fallback's model retires within --deprecation-days (the price table's deprecation_date).",
        "warning",
    ),
    (
        "context-window",
        "The request profile's prompt or answer is above a fallback's max_input_tokens or max_output_tokens: failed-over requests are refused.",
        "error",
    ),
    (
        "capability",
        "A fallback lacks a capability --requires names (tools, vision, json), or the price table does not state it (a note).",
        "error",
    ),
    (
        "capacity",
        "A fallback's rpm/tpm limit refuses part of the traffic an outage of the primary's provider sends it (--incident).",
        "error",
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

/// A SARIF text: `{ "text": … }`.
#[derive(Serialize)]
struct Text {
    text: String,
}

/// An artifact's location: its URI, relative ones against `%SRCROOT%`.
#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
    #[serde(rename = "uriBaseId", skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

impl ArtifactLocation {
    fn of(path: &str) -> ArtifactLocation {
        let (uri, absolute) = artifact_uri(path);
        ArtifactLocation {
            uri,
            uri_base_id: (!absolute).then_some("%SRCROOT%"),
        }
    }
}

/// A line and column in an artifact (1-based; 0 is left out).
#[derive(Serialize)]
struct Region {
    #[serde(rename = "startLine")]
    start_line: usize,
    #[serde(rename = "startColumn", skip_serializing_if = "Option::is_none")]
    start_column: Option<usize>,
}

#[derive(Serialize)]
struct PhysicalLocation {
    #[serde(rename = "artifactLocation")]
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

/// A location: `{ "physicalLocation": … }`.
#[derive(Serialize)]
struct Location {
    #[serde(rename = "physicalLocation")]
    physical_location: PhysicalLocation,
}

fn location(file: &str, line: Option<usize>, column: Option<usize>) -> Location {
    Location {
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation::of(file),
            region: line.filter(|l| *l > 0).map(|l| Region {
                start_line: l,
                start_column: column.filter(|c| *c > 0),
            }),
        },
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// One result: a finding, or an input error (rule `input-error`).
#[derive(Serialize)]
struct SarifResult {
    #[serde(rename = "ruleId")]
    rule_id: String,
    #[serde(rename = "ruleIndex")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    locations: Option<[Location; 1]>,
}

/// A tool execution notification (an input error).
#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    locations: Option<[Location; 1]>,
}

#[derive(Serialize)]
struct Rule {
    id: String,
    name: String,
    #[serde(rename = "shortDescription")]
    short_description: Text,
    #[serde(rename = "defaultConfiguration")]
    default_configuration: RuleLevel,
}

#[derive(Serialize)]
struct RuleLevel {
    level: String,
}

#[derive(Serialize)]
struct Driver {
    name: &'static str,
    version: &'static str,
    #[serde(rename = "semanticVersion")]
    semantic_version: &'static str,
    #[serde(rename = "informationUri")]
    information_uri: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
struct Invocation {
    #[serde(rename = "executionSuccessful")]
    execution_successful: bool,
    #[serde(rename = "toolExecutionNotifications")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Artifact {
    location: ArtifactLocation,
}

/// The run's own properties: the limit, the price table and the summary line.
#[derive(Serialize)]
struct Properties<'a> {
    max_ratio: f64,
    pricing: &'a str,
    summary: String,
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool,
    invocations: [Invocation; 1],
    artifacts: Vec<Artifact>,
    results: Vec<SarifResult>,
    properties: Properties<'a>,
}

/// A SARIF 2.1.0 log of one run.
#[derive(Serialize)]
pub struct SarifLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

/// A rule as the log lists it: id, short description, default level.
type RuleText = (String, String, String);

/// The SARIF 2.1.0 log of `report`.
pub fn to_sarif(report: &CheckReport) -> SarifLog<'_> {
    let mut rules: Vec<RuleText> = RULES
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    let mut results = finding_results(report, &mut rules);
    let mut notifications = Vec::new();
    for e in &report.errors {
        let (result, notification) = error_result(e, &rules);
        results.push(result);
        notifications.push(notification);
    }
    let artifacts = report
        .checked
        .iter()
        .map(|c| Artifact {
            location: ArtifactLocation::of(&c.path),
        })
        .collect();
    SarifLog {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: driver(rules),
            },
            invocations: [Invocation {
                execution_successful: report.errors.is_empty(),
                tool_execution_notifications: notifications,
            }],
            artifacts,
            results,
            properties: Properties {
                max_ratio: report.max_ratio,
                pricing: &report.pricing,
                summary: super::summary(report),
            },
        }],
    }
}

/// One result per finding of `report`, adding to `rules` a finding kind [`RULES`] lacks.
fn finding_results(report: &CheckReport, rules: &mut Vec<RuleText>) -> Vec<SarifResult> {
    let mut results = Vec::new();
    for f in &report.findings {
        let id = f.kind();
        if rule_index(rules, id).is_none() {
            rules.push((
                id.to_string(),
                id.to_string(),
                level(f.severity()).to_string(),
            ));
        }
        results.push(SarifResult {
            rule_id: id.to_string(),
            rule_index: rule_index(rules, id),
            level: level(f.severity()),
            message: Text {
                text: printable_line(&f.to_string()).into_owned(),
            },
            locations: (!f.file().is_empty()).then(|| [location(f.file(), Some(f.line()), None)]),
        });
    }
    results
}

/// An input error as a result (rule `input-error`) and as the invocation's notification.
fn error_result(e: &crate::error::InputError, rules: &[RuleText]) -> (SarifResult, Notification) {
    let mut text = String::new();
    if let Some(field) = &e.field {
        text.push_str(&format!("{field}: "));
    }
    text.push_str(&e.message);
    let text = printable_line(&text).into_owned();
    let loc = || {
        (!e.file.is_empty()).then(|| {
            [location(
                &e.file,
                e.location.map(|l| l.line),
                e.location.map(|l| l.col),
            )]
        })
    };
    let result = SarifResult {
        rule_id: "input-error".into(),
        rule_index: rule_index(rules, "input-error"),
        level: "error",
        message: Text { text: text.clone() },
        locations: loc(),
    };
    let notification = Notification {
        level: "error",
        message: Text { text },
        locations: loc(),
    };
    (result, notification)
}

/// The tool's description: fallcost and its `rules`.
fn driver(rules: Vec<RuleText>) -> Driver {
    Driver {
        name: "fallcost",
        version: env!("CARGO_PKG_VERSION"),
        semantic_version: env!("CARGO_PKG_VERSION"),
        information_uri: "https://crates.io/crates/fallcost",
        rules: rules
            .into_iter()
            .map(|(id, text, level)| Rule {
                name: id.clone(),
                id,
                short_description: Text { text },
                default_configuration: RuleLevel { level },
            })
            .collect(),
    }
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
