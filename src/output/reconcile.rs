//! The `fallcost reconcile` document in every format: the table (terminal or Markdown) with
//! the headline, the model-day rows and, with a scenario, its days; CSV (one row per model and
//! day, `section` `bill`, then `scenario` rows); JSON (the report, `schemas/reconcile.schema.json`).

use super::layout::{Page, Section};
use super::{Format, table};
use crate::number::{Digits, count, money, percent};
use crate::report::reconcile::{ReconcileReport, ScenarioCheck};

/// `share` as a signed percentage to two decimals (`+1.25%`), `–` when there is none.
fn percent_or_dash(share: Option<f64>) -> String {
    share.map_or_else(|| "–".into(), |s| percent(s, Digits::Fixed(2), true))
}

fn usd(x: Option<f64>) -> String {
    x.map_or_else(|| "–".into(), money)
}

/// The report as a page of tables (the model-day rows' residual as a share of the bill; its USD,
/// the requests and the tokens are in the CSV and JSON).
pub fn page(r: &ReconcileReport) -> Page {
    let mut sections = vec![bill_section(r)];
    if let Some(s) = &r.scenario {
        sections.push(scenario_section(s));
    }
    if let Some(last) = sections.last_mut() {
        last.footer.extend(r.notes.iter().cloned());
    }
    Page {
        preamble: preamble(r),
        sections,
    }
}

/// The headline: the period, the price table, the files read, the share explained and the
/// totals.
fn preamble(r: &ReconcileReport) -> Vec<String> {
    let t = &r.totals;
    let band = crate::number::trim(r.band * 100.0, 2);
    let mut preamble = vec![format!(
        "Reconcile: {} to {}, priced with {}{}",
        t.first_day,
        t.last_day,
        r.pricing,
        r.settings
            .as_ref()
            .map_or(String::new(), |s| format!(" and {s} [pricing]"))
    )];
    for f in &r.files {
        preamble.push(format!("  {} ({}: {})", f.file, f.format, f.source));
    }
    preamble.push(format!(
        "explained within ±{band}%: {} of {} billed ({})",
        money(t.explained_usd),
        money(t.billed_usd),
        t.explained_share
            .map_or_else(|| "–".into(), |s| percent(s, Digits::Fixed(1), false))
    ));
    preamble.push(format!(
        "expected {} (discounts {}, price changes {}), residual {} ({}); unpriced {}",
        money(t.expected_usd),
        money(t.discount_usd),
        money(t.price_change_usd),
        money(t.residual_usd),
        percent_or_dash(t.residual_share),
        money(t.unpriced_billed_usd)
    ));
    preamble
}

/// The model-day rows, each row's attribution a footnote numbered 1, 2, … in the order first
/// met (rows with the same attribution share its number).
fn bill_section(r: &ReconcileReport) -> Section {
    let band = crate::number::trim(r.band * 100.0, 2);
    let mut rows = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for row in &r.rows {
        let mark = if row.attribution.is_empty() {
            String::new()
        } else {
            let text = row.attribution.join("; ");
            let n = match notes.iter().position(|t| *t == text) {
                Some(k) => k + 1,
                None => {
                    notes.push(text);
                    notes.len()
                }
            };
            format!(" [{n}]")
        };
        rows.push(vec![
            row.day.clone(),
            format!("{}{mark}", row.model),
            usd(row.expected_usd),
            usd(row.billed_usd),
            percent_or_dash(row.residual_share),
            if row.within { "yes" } else { "no" }.into(),
        ]);
    }
    Section {
        heading: None,
        title: "Price table against the bill, per model and day (USD; expected: the table's prices with fallcost.toml's discounts and dated prices)".into(),
        notes: Vec::new(),
        header: [
            "day",
            "model",
            "expected",
            "billed",
            "residual",
            &format!("±{band}%"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        numeric: vec![false, false, true, true, true, false],
        rows,
        footer: notes
            .iter()
            .enumerate()
            .map(|(k, text)| format!("[{}] {text}", k + 1))
            .collect(),
    }
}

/// The scenario's days against the bill, the period's totals and the incidents in the footer.
fn scenario_section(s: &ScenarioCheck) -> Section {
    let rows = s
        .days
        .iter()
        .map(|d| {
            vec![
                d.day.clone(),
                count(d.requests),
                money(d.billed_usd),
                money(d.predicted_premium_usd),
                money(d.predicted_usd),
                percent_or_dash(d.error_share),
                usd(d.billed_excess_usd),
            ]
        })
        .collect();
    let mut footer = vec![format!(
        "period: predicted {} against billed {} ({}); incident premium predicted {} against billed excess {} ({})",
        money(s.predicted_usd),
        money(s.billed_usd),
        percent_or_dash(s.error_share),
        money(s.predicted_premium_usd),
        usd(s.billed_excess_usd),
        percent_or_dash(s.premium_error_share)
    )];
    for d in s.days.iter().filter(|d| !d.incidents.is_empty()) {
        footer.push(format!("{}: {}", d.day, d.incidents.join("; ")));
    }
    Section {
        heading: None,
        title: format!(
            "Scenario {} against the bill: chain {} ({}), {}",
            s.scenario,
            s.chain,
            s.models.join(" → "),
            s.pattern
        ),
        notes: vec![format!(
            "predicted: the day's requests at the steady {} per request, plus the incident premium predicted for the day; billed {} per request on days without an incident",
            money(s.steady_per_request_usd),
            usd(s.billed_per_request_usd)
        )],
        header: [
            "day",
            "requests",
            "billed",
            "premium",
            "predicted",
            "error",
            "billed excess",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        numeric: vec![false, true, true, true, true, true, true],
        rows,
        footer,
    }
}

/// The report in `format`.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render(r: &ReconcileReport, format: Format) -> super::OutputResult<Vec<u8>> {
    Ok(match format {
        Format::Table => table::render(&page(r), table::Style::Terminal).into_bytes(),
        Format::Markdown => table::render(&page(r), table::Style::Markdown).into_bytes(),
        Format::Json => super::json::render(r)?,
        Format::Csv => csv(r)?,
    })
}

/// The CSV columns: `section` (`bill` or `scenario`), then the bill row's keys, then the
/// scenario day's (empty where a column is not the section's).
pub const CSV_COLUMNS: [&str; 25] = [
    "section",
    "day",
    "model",
    "priced_as",
    "requests",
    "uncached_input_tokens",
    "cache_read_input_tokens",
    "cache_write_5m_input_tokens",
    "cache_write_1h_input_tokens",
    "output_tokens",
    "table_usd",
    "discount_usd",
    "price_change_usd",
    "expected_usd",
    "billed_usd",
    "residual_usd",
    "residual_share",
    "within",
    "attribution",
    "predicted_steady_usd",
    "predicted_premium_usd",
    "predicted_usd",
    "error_share",
    "billed_excess_usd",
    "incidents",
];

fn csv(r: &ReconcileReport) -> super::OutputResult<Vec<u8>> {
    use super::csv::{guard, num};
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_COLUMNS)?;
    for row in &r.rows {
        let mut rec = vec![
            "bill".to_string(),
            row.day.clone(),
            guard(&row.model),
            row.priced_as.clone().unwrap_or_default(),
            num(row.requests),
            num(Some(row.uncached_input_tokens)),
            num(Some(row.cache_read_input_tokens)),
            num(Some(row.cache_write_5m_input_tokens)),
            num(Some(row.cache_write_1h_input_tokens)),
            num(Some(row.output_tokens)),
            num(row.table_usd),
            num(Some(row.discount_usd)),
            num(Some(row.price_change_usd)),
            num(row.expected_usd),
            num(row.billed_usd),
            num(row.residual_usd),
            num(row.residual_share),
            row.within.to_string(),
            guard(&row.attribution.join("; ")),
        ];
        rec.extend(std::iter::repeat_n(String::new(), 6));
        w.write_record(&rec)?;
    }
    if let Some(s) = &r.scenario {
        for d in &s.days {
            let mut rec = vec![
                "scenario".to_string(),
                d.day.clone(),
                guard(&s.chain),
                String::new(),
                num(Some(d.requests)),
            ];
            rec.extend(std::iter::repeat_n(String::new(), 9));
            rec.push(num(Some(d.billed_usd)));
            rec.extend(std::iter::repeat_n(String::new(), 4));
            rec.extend([
                num(Some(d.predicted_steady_usd)),
                num(Some(d.predicted_premium_usd)),
                num(Some(d.predicted_usd)),
                num(d.error_share),
                num(d.billed_excess_usd),
                guard(&d.incidents.join("; ")),
            ]);
            w.write_record(&rec)?;
        }
    }
    Ok(w.into_inner()?)
}
