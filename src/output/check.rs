//! `fallcost check` output: text for people, GitHub workflow annotations, and a stable JSON
//! document for tooling.
//!
//! Findings go to standard output in every format. Input errors go to standard error as
//! `error: FILE:LINE:COL: field: message` lines (the caller prints them); `github` also emits them
//! as `::error` annotations on standard output so they show on the pull request, and `json` lists
//! them under `errors`.
//!
//! NOTE: the JSON keys are a contract (docs/guide/check-in-ci.md); add keys, never rename.

pub mod sarif;

use serde::Serialize;

use crate::error::{InputError, printable_line};
use crate::number::round_noise;
use crate::output::workflow::{escape_data, escape_property};
use crate::report::check::{CheckReport, Checked, Finding, Severity, Side, Skipped, format_limit};

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
        crate::number::group(&n.to_string()),
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
        format_limit(report.max_ratio),
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
        CheckFormat::Json => pretty(&CheckJson::of(report)),
        CheckFormat::Sarif => pretty(&sarif::to_sarif(report)),
    }
}

/// Print `report` in `format`: the findings on standard output (the text format wrapped to a
/// terminal's width and coloured as `ui` says), and each input error on standard error, one
/// line each.
///
/// Errors: standard output or standard error cannot be written.
pub fn print(
    report: &CheckReport,
    format: CheckFormat,
    ui: crate::output::ui::Ui,
) -> std::io::Result<()> {
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
            crate::output::ui::paint_stderr(
                crate::output::color::Role::Error,
                "error:",
                &crate::error::printable_line(&e.to_string())
            )
        )?;
    }
    // After the errors, every unpriced model once, as fallcost.toml [prices] entries to fill in.
    if let Some(stub) = price_stub(report) {
        write!(stderr, "{stub}")?;
    }
    Ok(())
}

/// For a run with models no table or config prices: every one of them, once, as a
/// fallcost.toml `[prices."ID"]` entry to fill in and paste ($/MTok,
/// [`crate::input::settings::prices`]), each `…` left to fill so that an unfilled entry is
/// refused rather than read as free. `None` when every model is priced.
pub fn price_stub(report: &CheckReport) -> Option<String> {
    let mut ids: Vec<String> = Vec::new();
    let unpriced = report.findings.iter().filter_map(|f| match f {
        Finding::Unpriced { model, .. } => Some(model.clone()),
        _ => None,
    });
    let unknown = report.errors.iter().filter_map(|e| {
        (e.kind == crate::error::InputErrorKind::UnknownModel)
            .then(|| {
                e.message
                    .strip_prefix("unknown model `")
                    .and_then(|m| m.split_once('`'))
                    .map(|(id, _)| id.to_string())
            })
            .flatten()
    });
    for id in unpriced.chain(unknown) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        return None;
    }
    let mut out = format!(
        "# {} with no price: fill in USD per 1M tokens from the provider's price page and paste into fallcost.toml (or set input_cost_per_token/output_cost_per_token in the config)\n",
        if ids.len() == 1 {
            "1 model".to_string()
        } else {
            format!("{} models", ids.len())
        }
    );
    for id in ids {
        let id = crate::error::printable_line(&id).replace('"', "\\\"");
        out.push_str(&format!(
            "[prices.\"{id}\"]\ninput = …     # USD per 1M input tokens\noutput = …    # USD per 1M output tokens\n"
        ));
    }
    Some(out)
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

/// The JSON of a chain step ([`Side`]), prices cleaned of float noise.
#[derive(Serialize)]
struct SideJson<'a> {
    name: &'a str,
    min_per_1k_usd: f64,
    max_per_1k_usd: f64,
    mix_per_1k_usd: Option<f64>,
    mix: Option<&'a str>,
    models: Vec<ModelJson<'a>>,
}

/// The JSON of one model of a step.
#[derive(Serialize)]
struct ModelJson<'a> {
    model: &'a str,
    priced_as: &'a str,
    provider: &'a str,
    per_1k_usd: f64,
    first_per_1k_usd: f64,
    share: Option<f64>,
}

impl<'a> SideJson<'a> {
    fn of(s: &'a Side) -> SideJson<'a> {
        SideJson {
            name: &s.name,
            min_per_1k_usd: round_noise(s.min_per_1k_usd),
            max_per_1k_usd: round_noise(s.max_per_1k_usd),
            mix_per_1k_usd: s.mix_per_1k_usd.map(round_noise),
            mix: s.mix.as_deref(),
            models: s
                .models
                .iter()
                .map(|m| ModelJson {
                    model: &m.model,
                    priced_as: &m.priced_as,
                    provider: &m.provider,
                    per_1k_usd: round_noise(m.per_1k_usd),
                    first_per_1k_usd: round_noise(m.first_per_1k_usd),
                    share: m.share.map(round_noise),
                })
                .collect(),
        }
    }
}

/// The incident a finding prices, and its figures.
#[derive(Serialize)]
struct IncidentJson {
    duration_s: f64,
    requests_per_second: f64,
    session_length: u64,
    requests: u64,
    sessions: u64,
    normal_usd: f64,
    total_usd: f64,
    multiplier: Option<f64>,
}

impl IncidentJson {
    /// The `incident` a finding prices and its `figures`, rounded to 12 significant digits.
    fn of(
        incident: &crate::report::check::IncidentCheck,
        figures: &crate::report::check::IncidentBill,
    ) -> IncidentJson {
        IncidentJson {
            duration_s: incident.duration_s,
            requests_per_second: incident.requests_per_second,
            session_length: incident.session_length,
            requests: figures.requests,
            sessions: figures.sessions,
            normal_usd: round_noise(figures.normal),
            total_usd: round_noise(figures.total),
            multiplier: figures.multiplier.map(round_noise),
        }
    }
}

/// A key a finding of one kind has and others may not: `None` leaves it out, `Some(None)` is
/// `null`. [`FindingJson::same_keys`] gives every finding of a document the same keys.
type Slot<T> = Option<Option<T>>;

/// One finding as JSON: the keys every finding has, then each kind's own.
#[derive(Serialize)]
struct FindingJson<'a> {
    severity: &'static str,
    kind: &'static str,
    file: Option<&'a str>,
    line: Option<usize>,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    chain: Slot<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed: Slot<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_from: Slot<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    primary: Slot<SideJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback: Slot<SideJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ratio: Slot<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    warm_ratio: Slot<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_failover_ratio: Slot<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    incident: Slot<IncidentJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_ratio: Slot<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Slot<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    share: Slot<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    share_from: Slot<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chain_ratio: Slot<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Slot<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    providers: Slot<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paths: Slot<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Slot<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fit: Slot<&'a crate::report::check::fit::FitProblem>,
}

impl<'a> FindingJson<'a> {
    fn of(f: &'a Finding) -> FindingJson<'a> {
        let mut j = FindingJson::common(f);
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
                j.chain = Some(Some(chain));
                j.allowed = Some(allowed.as_deref());
                j.allowed_from = Some(allowed_from.as_deref());
                j.primary = Some(Some(SideJson::of(primary)));
                j.fallback = Some(Some(SideJson::of(fallback)));
                j.ratio = Some(ratio.map(round_noise));
                j.max_ratio = Some(Some(*max_ratio));
                j.via = Some(Some(via));
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
                j.chain = Some(Some(chain));
                j.primary = Some(Some(SideJson::of(primary)));
                j.fallback = Some(Some(SideJson::of(fallback)));
                j.warm_ratio = Some(warm_ratio.map(round_noise));
                j.first_failover_ratio = Some(figures.first_ratio.map(round_noise));
                j.incident = Some(Some(IncidentJson::of(incident, figures)));
                j.max_ratio = Some(Some(*max_ratio));
                j.allowed = Some(allowed.as_deref());
                j.allowed_from = Some(allowed_from.as_deref());
            }
            Finding::Conditional { .. } => j.conditional(f),
            Finding::SameProvider {
                chain, providers, ..
            } => {
                j.chain = Some(Some(chain));
                j.providers = Some(Some(providers));
            }
            Finding::NoChains { paths, .. } => j.paths = Some(Some(paths)),
            Finding::Fit {
                chain,
                model,
                problem,
                ..
            } => {
                j.chain = Some(Some(chain));
                j.model = Some(Some(model));
                j.fit = Some(Some(problem));
            }
            Finding::Config { .. } | Finding::PriceSource { .. } | Finding::Unpriced { .. } => {}
        }
        j
    }

    /// The keys every finding has (severity, kind, file and line when located, message), the
    /// others absent.
    fn common(f: &'a Finding) -> FindingJson<'a> {
        let located = !f.file().is_empty();
        FindingJson {
            severity: f.severity().as_str(),
            kind: f.kind(),
            file: located.then(|| f.file()),
            line: located.then(|| f.line()),
            message: f.to_string(),
            chain: None,
            allowed: None,
            allowed_from: None,
            primary: None,
            fallback: None,
            ratio: None,
            warm_ratio: None,
            first_failover_ratio: None,
            incident: None,
            max_ratio: None,
            condition: None,
            share: None,
            share_from: None,
            chain_ratio: None,
            via: None,
            providers: None,
            paths: None,
            model: None,
            fit: None,
        }
    }

    /// A [`Finding::Conditional`]'s own keys.
    fn conditional(&mut self, f: &'a Finding) {
        let Finding::Conditional {
            chain,
            primary,
            fallback,
            condition,
            ratio,
            max_ratio,
            share,
            chain_ratio,
            allowed,
            allowed_from,
            ..
        } = f
        else {
            return;
        };
        self.chain = Some(Some(chain));
        self.allowed = Some(allowed.as_deref());
        self.allowed_from = Some(allowed_from.as_deref());
        self.primary = Some(Some(SideJson::of(primary)));
        self.fallback = Some(Some(SideJson::of(fallback)));
        self.ratio = Some(ratio.map(round_noise));
        self.max_ratio = Some(Some(*max_ratio));
        self.condition = Some(Some(condition.key()));
        self.share = Some(share.as_ref().map(|s| s.share));
        self.share_from = Some(share.as_ref().map(|s| s.from.as_str()));
        self.chain_ratio = Some(chain_ratio.map(round_noise));
    }

    /// Every finding of `rows` with the union of their keys, `null` where a finding had none
    /// (`chain` is `null` on a config notice).
    fn same_keys(rows: &mut [FindingJson<'a>]) {
        macro_rules! union {
            ($($key:ident),*) => {$(
                if rows.iter().any(|r| r.$key.is_some()) {
                    for r in rows.iter_mut() {
                        r.$key.get_or_insert(None);
                    }
                }
            )*};
        }
        union!(
            chain,
            allowed,
            allowed_from,
            primary,
            fallback,
            ratio,
            warm_ratio,
            first_failover_ratio,
            incident,
            max_ratio,
            condition,
            share,
            share_from,
            chain_ratio,
            via,
            providers,
            paths,
            model,
            fit
        );
    }
}

/// One input error as JSON: `file`, `line`, `column`, `field`, `message`, `kind`, and `text`
/// (the whole error line).
#[derive(Serialize)]
pub struct ErrorJson<'a> {
    file: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    field: Option<&'a str>,
    message: &'a str,
    kind: &'static str,
    text: String,
}

impl<'a> ErrorJson<'a> {
    /// The JSON of `e`.
    pub fn of(e: &'a InputError) -> ErrorJson<'a> {
        ErrorJson {
            file: &e.file,
            line: e.location.map(|l| l.line),
            column: e.location.map(|l| l.col),
            field: e.field.as_deref(),
            message: &e.message,
            kind: e.kind.as_str(),
            text: e.to_string(),
        }
    }
}

/// The token profile the request was priced with.
#[derive(Serialize)]
struct ProfileJson {
    input_tokens: u64,
    output_tokens: u64,
}

/// The counts of a check.
#[derive(Serialize)]
struct SummaryJson {
    files: usize,
    chains: usize,
    links: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    input_errors: usize,
}

/// The JSON document of `fallcost check --format json`.
#[derive(Serialize)]
pub struct CheckJson<'a> {
    fallcost_version: &'static str,
    max_ratio: f64,
    profile: ProfileJson,
    pricing: &'a str,
    files: &'a [Checked],
    skipped: &'a [Skipped],
    findings: Vec<FindingJson<'a>>,
    errors: Vec<ErrorJson<'a>>,
    summary: SummaryJson,
}

impl<'a> CheckJson<'a> {
    /// The document of `report`: `fallcost_version`, `max_ratio`, `profile`, `pricing`,
    /// `files`, `skipped`, `findings`, `errors`, `summary`.
    pub fn of(report: &'a CheckReport) -> CheckJson<'a> {
        let mut findings: Vec<FindingJson> = report.findings.iter().map(FindingJson::of).collect();
        FindingJson::same_keys(&mut findings);
        CheckJson {
            fallcost_version: env!("CARGO_PKG_VERSION"),
            max_ratio: report.max_ratio,
            profile: ProfileJson {
                input_tokens: report.profile.input_tokens as u64,
                output_tokens: report.profile.output_tokens as u64,
            },
            pricing: &report.pricing,
            files: &report.checked,
            skipped: &report.skipped,
            findings,
            errors: report.errors.iter().map(ErrorJson::of).collect(),
            summary: SummaryJson {
                files: report.checked.len(),
                chains: report.checked.iter().map(|c| c.chains).sum(),
                links: report.checked.iter().map(|c| c.links).sum(),
                errors: report.count(Severity::Error),
                warnings: report.count(Severity::Warning),
                notes: report.count(Severity::Note),
                input_errors: report.errors.len(),
            },
        }
    }
}

/// `value` as pretty JSON with a final newline. Every object's keys come out in alphabetical
/// order (through [`serde_json::Value`], whose maps are sorted), as the documents always had.
fn pretty(value: &impl Serialize) -> String {
    let value = serde_json::to_value(value).expect("JSON values");
    let mut s = serde_json::to_string_pretty(&value).expect("JSON values");
    s.push('\n');
    s
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
        assert_eq!(round_noise(0.45000000000000007), 0.45);
        assert_eq!(round_noise(174.00000000000003), 174.0);
        assert_eq!(round_noise(0.0), 0.0);
        assert_eq!(round_noise(2.0 / 3.0), 0.666666666667);
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
