//! `fallcost diff` in every format: a terminal table, Markdown for a pull request comment
//! (the headline first, the details folded in `<details>`), JSON (the report as is, versioned;
//! `schemas/diff.schema.json`) and GitHub workflow annotations on HEAD's changed lines.

use crate::number::{change, count, money};
use crate::output::layout::{Page, Section};
use crate::output::table::{Style, render};

use crate::output::workflow::{escape_data, escape_property};
use crate::report::diff::{ChainDiff, DiffFigures, DiffReport, McDiff, Status};

/// The formats of `fallcost diff --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Tables for a terminal.
    Table,
    /// GitHub Markdown for a pull request comment: the headline, then details folded.
    Markdown,
    /// The report as one JSON document (`schemas/diff.schema.json`).
    Json,
    /// GitHub workflow annotations on HEAD's changed chains (`::warning file=…,line=…::`).
    Github,
}

/// Render `report` in `format`.
///
/// Errors: JSON serialization (never for this report's types).
pub fn render_diff(report: &DiffReport, format: DiffFormat) -> super::OutputResult<String> {
    Ok(match format {
        DiffFormat::Table => table(report),
        DiffFormat::Markdown => markdown(report),
        DiffFormat::Json => format!("{}\n", serde_json::to_string_pretty(report)?),
        DiffFormat::Github => github(report),
    })
}

/// `+$1,240.00` / `-$12.00` / `$0.00`.
fn signed_money(x: f64) -> String {
    match x {
        x if x > 0.0 => format!("+${}", money(x)),
        x if x < 0.0 => format!("-${}", money(-x)),
        _ => "$0.00".to_string(),
    }
}

/// The headline: what the change does to the month on a normal day and to one reference
/// incident (`+$1,240.00/month (+18.00%) on a normal day; +$3,900.00 per 3h outage`).
pub fn headline(r: &DiffReport) -> String {
    let line = bill_headline(r);
    match r.usage_changes.is_empty() {
        true => line,
        false => format!(
            "{line}; the usage assumptions changed too ({}), and each side is priced with its own (--usage head holds HEAD's)",
            r.usage_changes
                .iter()
                .map(|c| c.what.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The headline's figures ([`headline`]).
fn bill_headline(r: &DiffReport) -> String {
    let d = &r.diff_total;
    if r.chains.is_empty() {
        let n = r.unchanged.len();
        return format!(
            "No change to the bill: {n} chain{} unchanged",
            if n == 1 { "" } else { "s" }
        );
    }
    let mut parts = Vec::new();
    if let Some(m) = d.per_month_usd {
        let pct = r
            .diff_month_ratio
            .map(|x| format!(" ({})", change(x)))
            .unwrap_or_default();
        parts.push(format!("{}/month{pct} on a normal day", signed_money(m)));
    } else {
        let moved: Vec<String> = r
            .chains
            .iter()
            .filter_map(|c| {
                let v = c.diff.as_ref()?.per_1k_usd.filter(|v| *v != 0.0)?;
                Some(format!(
                    "{} per 1,000 requests on `{}`",
                    signed_money(v),
                    c.chain
                ))
            })
            .collect();
        if !moved.is_empty() {
            parts.push(format!("{} on a normal day", moved.join(", ")));
        }
    }
    let dur = r.incident.as_ref().map(|w| incident_name(w));
    if let (Some(i), Some(dur)) = (d.incident_usd, &dur) {
        parts.push(format!("{} per {dur}", signed_money(i)));
    }
    if let (Some(f), Some(dur)) = (d.incident_failed, &dur)
        && (f != 0.0 || lost_fallback(r))
    {
        parts.push(format!("{} failed requests per {dur}", signed_count(f)));
    }
    if let Some(a) = d.availability.filter(|a| *a != 0.0) {
        parts.push(format!(
            "availability {:+.4} percentage points a year",
            a * 100.0
        ));
    }
    if parts.is_empty() {
        return format!("{}: no change to the figures", counts(r));
    }
    let line = parts.join("; ");
    let fails = r
        .chains
        .iter()
        .any(|c| c.diff.as_ref().is_some_and(crate::report::diff::fails_more))
        || crate::report::diff::fails_more(d);
    if fails && !crate::report::diff::costs_more(d) {
        format!("{line} (fewer requests answered: an availability loss, not a saving)")
    } else {
        line
    }
}

/// Whether some chain lost its last fallback.
fn lost_fallback(r: &DiffReport) -> bool {
    r.chains
        .iter()
        .any(|c| c.changes.iter().any(|x| x.what == "fallbacks"))
}

/// `3h outage`, or both sides' when the incident differs (`3h outage (BASE), 1h outage (HEAD)`).
fn incident_name(w: &str) -> String {
    match w.split_once(" (BASE); ") {
        Some((b, h)) => format!(
            "{} outage (BASE) / {} outage (HEAD)",
            b.split(" outage").next().unwrap_or(b),
            h.split(" outage").next().unwrap_or(h)
        ),
        None => format!("{} outage", w.split(" outage").next().unwrap_or(w)),
    }
}

/// `+4,069` / `-41` / `0`.
fn signed_count(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", count(x))
    } else {
        count(x)
    }
}

/// The counts line: `2 changed, 1 added, 0 removed, 3 unchanged`.
fn counts(r: &DiffReport) -> String {
    let n = |s: Status| r.chains.iter().filter(|c| c.status == s).count();
    let renamed = match n(Status::Renamed) {
        0 => String::new(),
        k => format!("{k} renamed, "),
    };
    format!(
        "{} changed, {} added, {} removed, {renamed}{} unchanged",
        n(Status::Changed),
        n(Status::Added),
        n(Status::Removed),
        r.unchanged.len()
    )
}

/// One figure's row: name, BASE, HEAD, change (the change with its percentage).
type Getter = fn(&DiffFigures) -> Option<f64>;

/// The figures a section shows, each with how it prints.
const ROWS: &[(&str, Getter, bool)] = &[
    ("$/1k requests", |f| f.per_1k_usd, true),
    ("requests/month", |f| f.requests_per_month, false),
    ("$/month", |f| f.per_month_usd, true),
    ("incident $", |f| f.incident_usd, true),
    ("incident premium $", |f| f.incident_excess_usd, true),
    ("incident failed", |f| f.incident_failed, false),
    ("premium $/year", |f| f.premium_per_year_usd, true),
    ("premium p95 year $", |f| f.premium_p95_usd, true),
    ("failed/year", |f| f.failed_per_year, false),
    (
        "availability %",
        |f| f.availability.map(|a| a * 100.0),
        false,
    ),
    ("worst ratio", |f| f.worst_ratio, false),
    ("month at risk $", |f| f.month_at_risk_usd, true),
];

fn cell(v: Option<f64>, is_money: bool, ratio: bool) -> String {
    match v {
        None => "–".into(),
        Some(x) if ratio => format!("{x:.2}x"),
        Some(x) if is_money => money(x),
        Some(x) => count(x),
    }
}

fn delta(v: Option<f64>, base: Option<f64>, is_money: bool, ratio: bool) -> String {
    let Some(d) = v else { return "–".into() };
    if d == 0.0 {
        return if ratio { "0.00x".into() } else { "0".into() };
    }
    let pct = base
        .filter(|b| *b > 0.0)
        .map(|b| format!(" ({})", change(d / b)))
        .unwrap_or_default();
    if ratio {
        return format!("{d:+.2}x");
    }
    let s = if is_money {
        signed_money(d).replace('$', "")
    } else if d > 0.0 {
        format!("+{}", count(d))
    } else {
        count(d)
    };
    format!("{s}{pct}")
}

/// The figures of BASE, HEAD and the change as a section.
fn figures_section(
    heading: Option<String>,
    title: &str,
    b: Option<&DiffFigures>,
    h: Option<&DiffFigures>,
    d: Option<&DiffFigures>,
) -> Section {
    let mut rows = Vec::new();
    for (name, get, is_money) in ROWS {
        let (bv, hv) = (b.and_then(get), h.and_then(get));
        if bv.is_none() && hv.is_none() {
            continue;
        }
        let ratio = *name == "worst ratio";
        rows.push(vec![
            name.to_string(),
            cell(bv, *is_money, ratio),
            cell(hv, *is_money, ratio),
            delta(d.and_then(get), bv, *is_money, ratio),
        ]);
    }
    Section {
        heading: None,
        title: heading.unwrap_or_else(|| title.to_string()),
        notes: Vec::new(),
        header: ["figure", "BASE", "HEAD", "change"]
            .map(String::from)
            .to_vec(),
        numeric: vec![false, true, true, true],
        rows,
        footer: Vec::new(),
    }
}

fn mc_line(what: &str, m: &McDiff) -> String {
    let half = |c: [f64; 2]| (c[1] - c[0]) / 2.0;
    let (crn, ind) = (half(m.ci95), half(m.independent_ci95));
    let ratio = if crn > 0.0 {
        format!("{:.1}x narrower", ind / crn)
    } else {
        "zero width".to_string()
    };
    format!(
        "MC {what}: {} ± {} (95%, common random numbers; independent runs: ± {}, {ratio})",
        signed_money(m.mean),
        money(half(m.ci95)),
        money(ind)
    )
}

/// A setting's change: `links: was a → b, now a → c`.
fn change_line(c: &crate::report::diff::Change) -> String {
    format!(
        "{}: was {}, now {}",
        c.what,
        c.base.as_deref().unwrap_or("(not set)"),
        c.head.as_deref().unwrap_or("(not set)")
    )
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Added => "added",
        Status::Removed => "removed",
        Status::Changed => "changed",
        Status::Renamed => "renamed",
        Status::Unchanged => "unchanged",
    }
}

/// One listed chain as a section: its links, its figures, what changed.
fn chain_section(c: &ChainDiff) -> Section {
    let status = match (&c.base_chain, c.status) {
        (Some(b), Status::Renamed) => format!("renamed from {b}"),
        (Some(b), _) => format!("changed, renamed from {b}"),
        (None, s) => status_word(s).to_string(),
    };
    let links = match c.status {
        Status::Removed => c.base_models.join(" → "),
        _ => c.head_models.join(" → "),
    };
    let mut s = figures_section(
        Some(format!("Chain {} ({status}): {links}", c.chain)),
        "",
        c.base.as_ref(),
        c.head.as_ref(),
        c.diff.as_ref(),
    );
    for ch in &c.changes {
        s.notes.push(change_line(ch));
    }
    if let Some(mc) = &c.mc {
        s.footer.push(mc_line("$/1k requests", &mc.per_1k_usd));
        if let Some(i) = &mc.incident_usd {
            s.footer.push(mc_line("incident $", i));
        }
    }
    for a in &c.assumptions {
        s.footer
            .push(format!("{} {} (from {})", a.key, a.value, a.source));
    }
    s
}

/// The lines after the tables: thresholds crossed, free primaries, unchanged chains.
fn closing(r: &DiffReport) -> Vec<String> {
    let mut out: Vec<String> = r.warnings.iter().map(|w| format!("warning: {w}")).collect();
    for f in &r.free_primaries {
        let cost = f
            .outage_usd
            .map(|x| format!("an outage of it bills ${} on the fallback", money(x)))
            .unwrap_or_else(|| "an outage of it bills the fallback in full".into());
        out.push(format!(
            "free primary: chain `{}` runs `{}` at no charge with paid fallback `{}`: {cost}",
            f.chain, f.primary, f.fallback
        ));
    }
    for c in &r.crossed {
        out.push(format!("threshold crossed: {}", c.message));
    }
    if !r.unchanged.is_empty() {
        out.push(format!(
            "{} chain{} unchanged: {}",
            r.unchanged.len(),
            if r.unchanged.len() == 1 { "" } else { "s" },
            r.unchanged.join(", ")
        ));
    }
    out
}

fn page(r: &DiffReport) -> Page {
    let mut preamble = vec![
        format!("BASE {} → HEAD {}", r.base.label, r.head.label),
        format!("pattern {}; {}", r.pattern.as_str(), counts(r)),
    ];
    if let Some(i) = &r.incident {
        preamble.push(format!("reference incident: {i}"));
    }
    for a in &r.assumptions {
        preamble.push(format!(
            "assumption: {} {} (from {})",
            a.key, a.value, a.source
        ));
    }
    for c in &r.scenario_changes {
        preamble.push(format!("every chain: {}", change_line(c)));
    }
    for c in &r.usage_changes {
        preamble.push(format!("usage changed: {}", change_line(c)));
    }
    let mut sections: Vec<Section> = r.chains.iter().map(chain_section).collect();
    let mut total = figures_section(
        Some("Total (every chain)".into()),
        "",
        Some(&r.base_total),
        Some(&r.head_total),
        Some(&r.diff_total),
    );
    if total.rows.is_empty() {
        total.notes.push(
            "no monthly or incident figures: state the traffic (fallcost.toml `[usage]`, or --scenario with --requests-per-month) to price a month and an outage".into(),
        );
    }
    total.footer = closing(r);
    sections.push(total);
    Page { preamble, sections }
}

fn table(r: &DiffReport) -> String {
    format!("{}\n{}", headline(r), render(&page(r), Style::Terminal))
}

/// The Markdown comment: the headline in bold, the counts, a summary table of the listed
/// chains, thresholds crossed, then the details folded.
fn markdown(r: &DiffReport) -> String {
    let mut out = format!("### fallcost diff\n\n**{}**\n\n", headline(r));
    out.push_str(&format!(
        "`{}` → `{}` · pattern `{}` · {}\n\n",
        r.base.label,
        r.head.label,
        r.pattern.as_str(),
        counts(r)
    ));
    if !r.chains.is_empty() {
        out.push_str(
            "| chain | status | $/month | $/1k requests | incident $ | incident failed | worst ratio |\n",
        );
        out.push_str("|---|---|---:|---:|---:|---:|---:|\n");
        for c in &r.chains {
            let col = |get: Getter, is_money: bool, ratio: bool| -> String {
                let (b, h) = (c.base.as_ref().and_then(get), c.head.as_ref().and_then(get));
                match (b, h) {
                    (None, None) => "–".into(),
                    (Some(b), None) => format!("{} → –", cell(Some(b), is_money, ratio)),
                    (None, Some(h)) => format!("– → {}", cell(Some(h), is_money, ratio)),
                    (Some(_), Some(_)) => format!(
                        "{} → {} ({})",
                        cell(b, is_money, ratio),
                        cell(h, is_money, ratio),
                        delta(c.diff.as_ref().and_then(get), b, is_money, ratio)
                            .replace(" (", ", ")
                            .trim_end_matches(')')
                    ),
                }
            };
            let status = match &c.base_chain {
                Some(b) => format!(
                    "{} (was `{}`)",
                    status_word(c.status),
                    b.replace('|', "\\|")
                ),
                None => status_word(c.status).to_string(),
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} |\n",
                c.chain.replace('|', "\\|"),
                status,
                col(|f| f.per_month_usd, true, false),
                col(|f| f.per_1k_usd, true, false),
                col(|f| f.incident_usd, true, false),
                col(|f| f.incident_failed, false, false),
                col(|f| f.worst_ratio, false, true),
            ));
        }
        out.push('\n');
    }
    for line in closing(r) {
        out.push_str(&format!("- {line}\n"));
    }
    out.push_str(
        "\n<details><summary>Details: every figure, what changed, the assumptions</summary>\n\n",
    );
    out.push_str(&details_markdown(&page(r)));
    out.push_str("\n</details>\n");
    out
}

/// The page as Markdown for inside `<details>`: the preamble as a list, each section under a
/// bold title with its notes as a list and its table as a pipe table.
fn details_markdown(p: &Page) -> String {
    let cell = |t: &str| t.replace('|', "\\|").replace('\n', " ");
    let mut out = String::new();
    for line in &p.preamble {
        out.push_str(&format!("- {}\n", cell(line)));
    }
    for s in &p.sections {
        out.push_str(&format!("\n**{}**\n\n", cell(&s.title)));
        for n in &s.notes {
            out.push_str(&format!("- {}\n", cell(n)));
        }
        if !s.notes.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("| {} |\n", s.header.join(" | ")));
        let sep: Vec<&str> = s
            .numeric
            .iter()
            .map(|n| if *n { "---:" } else { "---" })
            .collect();
        out.push_str(&format!("|{}|\n", sep.join("|")));
        for row in &s.rows {
            let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        if !s.footer.is_empty() {
            out.push('\n');
        }
        for f in &s.footer {
            out.push_str(&format!("- {}\n", cell(f)));
        }
    }
    out
}

/// One annotation per listed chain of HEAD at its line (a notice; a warning when it costs
/// more), one error per threshold crossed, then the headline as a notice.
fn github(r: &DiffReport) -> String {
    let mut out = String::new();
    for c in &r.chains {
        let Some(at) = &c.at else { continue };
        let d = c.diff.as_ref();
        let up = d
            .and_then(|d| d.per_month_usd.or(d.per_1k_usd))
            .is_some_and(|x| x > 0.0)
            || d.is_some_and(crate::report::diff::fails_more)
            || c.status == Status::Added;
        let mut msg = format!("chain `{}` {}", c.chain, status_word(c.status));
        if let Some(b) = &c.base_chain {
            msg.push_str(&format!(" (was `{b}`)"));
        }
        if let Some(d) = d {
            if let Some(m) = d.per_month_usd {
                msg.push_str(&format!(": {}/month", signed_money(m)));
            } else if let Some(k) = d.per_1k_usd {
                msg.push_str(&format!(": {} per 1,000 requests", signed_money(k)));
            }
            if let Some(i) = d.incident_usd {
                msg.push_str(&format!(", {} per reference incident", signed_money(i)));
            }
            if let Some(f) = d.incident_failed.filter(|f| *f != 0.0) {
                msg.push_str(&format!(
                    ", {} failed requests per reference incident",
                    signed_count(f)
                ));
            }
        }
        let what: Vec<&str> = c.changes.iter().map(|x| x.what.as_str()).collect();
        if !what.is_empty() {
            msg.push_str(&format!(" ({})", what.join(", ")));
        }
        out.push_str(&format!(
            "::{} file={},line={},title=fallcost diff::{}\n",
            if up { "warning" } else { "notice" },
            escape_property(&at.file),
            at.line,
            escape_data(&msg)
        ));
    }
    for x in &r.crossed {
        let at = x
            .chain
            .as_ref()
            .and_then(|n| r.chains.iter().find(|c| &c.chain == n))
            .and_then(|c| c.at.as_ref());
        let props = at
            .map(|a| format!("file={},line={},", escape_property(&a.file), a.line))
            .unwrap_or_default();
        out.push_str(&format!(
            "::error {props}title=fallcost diff::{}\n",
            escape_data(&x.message)
        ));
    }
    out.push_str(&format!(
        "::notice title=fallcost diff::{}\n",
        escape_data(&headline(r))
    ));
    out
}
