//! The `fallcost compare --incidents` document ([`HistoryReport`]) in every format: a table
//! (terminal or Markdown: the incidents, a row per incident × chain × pattern, the totals, per
//! year, and with `--years` the simulated years), CSV (one row per incident row, total, per-year
//! total and years row, told apart by `section`; the same columns with or without `--years`)
//! and JSON (the [`HistoryReport`] as serialised: [`json`]).

mod flat;
mod json;
pub use json::{json, json_bytes};

use super::csv::{guard, num};
use super::layout::{Page, Section};
use super::{Format, table};
use crate::figures::{
    CsvGenerations, FigureEntry, INCIDENT_FIGURES, IncidentFigures, csv_generations_after,
};
use crate::number::{count, format_seconds, money, multiplier, trim};
use crate::report::Method;
use crate::report::history::{HistoryReport, ProviderRate, ReplayTotal, YearsReport, YearsRow};

/// `report` in `format`, as written to standard output or `--output`.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render(report: &HistoryReport, format: Format) -> super::OutputResult<Vec<u8>> {
    render_with(report, format, ahead(report, format)?)
}

/// The parts of `report`'s document its years do not change, rendered ahead ([`ahead`]):
/// the JSON's `incidents` and `rows` arrays, or the table's incidents and rows sections.
#[derive(Debug, Default)]
pub struct Ahead {
    arrays: Option<[json::Pieces; 2]>,
    sections: Option<[String; 2]>,
}

/// The parts of `report`'s document in `format` that its years (`ops::history::years`) do not
/// change, rendered now: `compare --years` renders them while it simulates the years (issue
/// 33 item 6), [`render_with`] puts them in their places.
///
/// Errors: a JSON serialisation failure.
pub fn ahead(report: &HistoryReport, format: Format) -> super::OutputResult<Ahead> {
    let style = match format {
        Format::Table => table::Style::Terminal,
        Format::Markdown => table::Style::Markdown,
        Format::Json => {
            return Ok(Ahead {
                arrays: Some(json::arrays(report)?),
                sections: None,
            });
        }
        Format::Csv => return Ok(Ahead::default()),
    };
    let (incidents, rows) = rayon::join(
        || table::section_text(&incidents_section(report), style),
        || table::section_text(&rows_section(report), style),
    );
    Ok(Ahead {
        arrays: None,
        sections: Some([incidents, rows]),
    })
}

/// `report` in `format` with the parts rendered [`ahead`] of it (of the same report, before its
/// years were added): the same bytes as [`render`].
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render_with(
    report: &HistoryReport,
    format: Format,
    ahead: Ahead,
) -> super::OutputResult<Vec<u8>> {
    if format == Format::Json {
        return json::json_bytes_with(report, ahead.arrays);
    }
    Ok(render_pieces_with(report, format, ahead)?.concat())
}

/// [`render_with`] in pieces, in order, as [`super::write_pieces`] writes them: the JSON's
/// long arrays in the blocks they were written in (a long history's document is not copied
/// whole once more), any other format in one piece.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render_pieces_with(
    report: &HistoryReport,
    format: Format,
    ahead: Ahead,
) -> super::OutputResult<Vec<Vec<u8>>> {
    Ok(vec![match format {
        Format::Table | Format::Markdown => {
            let style = if format == Format::Table {
                table::Style::Terminal
            } else {
                table::Style::Markdown
            };
            let page = layout_after(report, ahead.sections.is_some());
            let texts = ahead.sections.map_or_else(Vec::new, |s| s.map(Some).into());
            return Ok(table::render_ahead_pieces(&page, style, texts)
                .into_iter()
                .map(String::into_bytes)
                .collect());
        }
        Format::Json => return json::json_pieces_with(report, ahead.arrays),
        Format::Csv => csv(report)?,
    }])
}

/// The CSV's identity columns, before the incident figures.
pub const ID_COLUMNS: [&str; 8] = [
    "section",
    "incident",
    "name",
    "providers",
    "start",
    "duration_s",
    "chain",
    "pattern",
];

/// The CSV's columns after the incident figures: the incident rows' own, the totals' count,
/// then the years rows' figures, then (issue 21) the labels and the years at known rates.
pub const TAIL_COLUMNS: [&str; 23] = [
    "dead_time_mean_s",
    "method",
    "incidents",
    "requests_per_year",
    "premium_mean_usd",
    "premium_mean_usd_ci95_lo",
    "premium_mean_usd_ci95_hi",
    "premium_p50_usd",
    "premium_p95_usd",
    "premium_p99_usd",
    "failed_per_year",
    "availability",
    "nines",
    "incidents_per_year",
    "years_seed",
    "approximate",
    "simulated_precision",
    "overlap_share",
    "rate_known_premium_mean_usd",
    "rate_known_premium_p50_usd",
    "rate_known_premium_p95_usd",
    "rate_known_premium_p99_usd",
    "rate_known_availability",
];

/// The columns from `approximate` on.
const LABEL_COLUMNS: usize = 8;

/// The CSV generations the history's columns were laid out with
/// ([`crate::figures::Figure::csv`]): its incident figures before [`TAIL_COLUMNS`]; each later
/// generation's follow them, one generation after another.
pub const HISTORY_BASE: u8 = 1;

/// The generations of the incident figures before [`TAIL_COLUMNS`].
const BASE: CsvGenerations = CsvGenerations::through(HISTORY_BASE);

/// The generations appended after [`TAIL_COLUMNS`], each alone, oldest first.
fn appended() -> Vec<CsvGenerations> {
    csv_generations_after(HISTORY_BASE)
        .into_iter()
        .map(CsvGenerations::only)
        .collect()
}

/// The incident figures of the generations `gens`, in declaration order.
fn keys(gens: CsvGenerations) -> impl Iterator<Item = &'static str> {
    INCIDENT_FIGURES
        .iter()
        .filter(move |f| gens.holds(f))
        .map(|f| f.key)
}

/// The CSV header: [`ID_COLUMNS`], the incident figures (`INCIDENT_FIGURES`) of
/// [`HISTORY_BASE`], [`TAIL_COLUMNS`], then those of each later generation.
pub fn columns() -> Vec<&'static str> {
    ID_COLUMNS
        .iter()
        .copied()
        .chain(keys(BASE))
        .chain(TAIL_COLUMNS.iter().copied())
        .chain(appended().into_iter().flat_map(keys))
        .collect()
}

/// The cells of an incident figure set's figures of the generations `gens`, in declaration
/// order.
fn figure_cells(f: &IncidentFigures<f64>, gens: CsvGenerations) -> Vec<String> {
    let mut cells = Vec::new();
    f.visit(|fig, e| {
        if !gens.holds(fig) {
            return;
        }
        cells.push(match e {
            FigureEntry::Figure(v) => num(v.copied()),
            FigureEntry::Exact(v) => num(v),
            FigureEntry::Text(t) => guard(&t),
        })
    });
    cells
}

/// The label cells: `approximate`, `simulated_precision`, then blanks for the years' own.
fn label_cells(approximate: bool, precision: Option<f64>) -> Vec<String> {
    let mut cells = vec![approximate.to_string(), num(precision)];
    cells.extend(vec![String::new(); LABEL_COLUMNS - 2]);
    cells
}

fn csv(report: &HistoryReport) -> super::OutputResult<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let header = columns();
    w.write_record(&header)?;
    let blank = |n: usize| vec![String::new(); n];
    let years_width = TAIL_COLUMNS.len() - 3 - LABEL_COLUMNS;
    for r in &report.rows {
        let mut rec = vec![
            "incident".to_string(),
            r.incident.to_string(),
            guard(&r.name),
            guard(&r.providers.join(";")),
            r.start.clone(),
            num(Some(r.duration_s)),
            guard(&r.row.chain),
            r.row.pattern.as_str().to_string(),
        ];
        rec.extend(figure_cells(&r.row.analytic, BASE));
        rec.push(num(Some(r.row.dead_time_mean_s)));
        rec.push(r.row.method.as_str().to_string());
        rec.extend(blank(1 + years_width));
        rec.extend(label_cells(r.approximate, r.row.simulated_precision));
        rec.extend(appended_cells(Some(&r.row.analytic)));
        w.write_record(&rec)?;
    }
    for (section, list) in [("total", &report.totals), ("per_year", &report.per_year)] {
        for t in list {
            let mut rec = vec![section.to_string()];
            rec.extend(blank(5));
            rec.extend([guard(&t.chain), t.pattern.as_str().to_string()]);
            rec.extend(figure_cells(&t.figures, BASE));
            rec.push(String::new());
            rec.push(t.method.as_str().to_string());
            rec.push(t.incidents.to_string());
            rec.extend(blank(years_width));
            rec.extend(label_cells(t.approximate, t.simulated_precision));
            rec.extend(appended_cells(Some(&t.figures)));
            w.write_record(&rec)?;
        }
    }
    if let Some(y) = &report.years {
        for r in &y.rows {
            let mut rec = vec!["years".to_string()];
            rec.extend(blank(5));
            rec.extend([guard(&r.chain), r.pattern.as_str().to_string()]);
            rec.extend(blank(keys(BASE).count() + 1));
            rec.push(r.method.as_str().to_string());
            rec.push(String::new());
            rec.extend(years_cells(r));
            rec.push(y.seed.to_string());
            rec.extend([r.approximate.to_string(), num(r.simulated_precision)]);
            rec.extend(years_known_cells(r));
            rec.extend(appended_cells(None));
            w.write_record(&rec)?;
        }
    }
    Ok(w.into_inner()?)
}

/// The cells of the generations appended after [`TAIL_COLUMNS`]: `figures`' values, empty
/// without (a years row).
fn appended_cells(figures: Option<&IncidentFigures<f64>>) -> Vec<String> {
    appended()
        .into_iter()
        .flat_map(|gens| match figures {
            Some(f) => figure_cells(f, gens),
            None => vec![String::new(); keys(gens).count()],
        })
        .collect()
}

/// A years row's CSV cells, `requests_per_year` to `incidents_per_year`.
fn years_cells(r: &YearsRow) -> Vec<String> {
    vec![
        num(Some(r.requests_per_year)),
        num(Some(r.premium_mean_usd)),
        num(Some(r.premium_mean_usd_ci95[0])),
        num(Some(r.premium_mean_usd_ci95[1])),
        num(Some(r.premium_p50_usd)),
        num(Some(r.premium_p95_usd)),
        num(Some(r.premium_p99_usd)),
        num(Some(r.failed_per_year)),
        num(Some(r.availability)),
        num(r.nines),
        num(Some(r.incidents_per_year)),
    ]
}

/// A years row's CSV cells, `overlap_share` to `rate_known_availability`.
fn years_known_cells(r: &YearsRow) -> Vec<String> {
    let k = &r.rate_known;
    vec![
        num(Some(r.overlap_share)),
        num(Some(k.premium_mean_usd)),
        num(Some(k.premium_p50_usd)),
        num(Some(k.premium_p95_usd)),
        num(Some(k.premium_p99_usd)),
        num(Some(k.availability)),
    ]
}

/// The columns of a figures table: total, × normal, excess, failed (the cache figures are in
/// the JSON and CSV).
const FIGURE_HEADER: [&str; 4] = ["total USD", "x normal", "excess USD", "failed"];

fn figure_row(f: &IncidentFigures<f64>) -> Vec<String> {
    vec![
        money(f.total_usd),
        f.multiplier.map_or("–".into(), multiplier),
        money(f.excess_usd),
        count(f.failed_requests),
    ]
}

/// An RFC 3339 time as the table shows it: `2026-09-03 13:10` (UTC).
fn short_time(rfc3339: &str) -> String {
    let t = rfc3339.replacen('T', " ", 1);
    match t.strip_suffix(":00Z") {
        Some(minutes) => minutes.to_string(),
        None => t,
    }
}

/// Availability as a percentage with enough decimals to show the nines.
fn availability(a: f64) -> String {
    crate::number::percent(a, crate::number::Digits::AtMost(6), false)
}

/// A figure cell with its labels: `sim 95.18 ±2.1%` (simulated, its precision), `≈ 95.18`
/// (approximate analytic figures).
fn labelled(cell: String, method: Method, approximate: bool, precision: Option<f64>) -> String {
    match (method, precision) {
        (Method::Simulated, Some(p)) => format!(
            "sim {cell} ±{}",
            crate::number::percent(p, crate::number::Digits::AtMost(2), false)
        ),
        (Method::Simulated, None) => format!("sim {cell}"),
        _ if approximate => format!("≈ {cell}"),
        _ => cell,
    }
}

/// The preamble: the title, what was read over which period, the notes.
fn preamble(report: &HistoryReport) -> Vec<String> {
    let h = &report.history;
    let mut preamble = vec![
        format!("{} (incident history replayed)", report.scenario),
        format!(
            "{} incident window{} from {} (period {} to {}, {} days); providers {}",
            report.incidents.len(),
            if report.incidents.len() == 1 { "" } else { "s" },
            h.files.join(", "),
            short_time(&h.start),
            short_time(&h.end),
            trim(h.span_s / 86_400.0, 2),
            h.providers.join(", ")
        ),
    ];
    preamble.extend(report.notes.iter().cloned());
    preamble
}

/// The windows: start, duration, providers, name.
fn incidents_section(report: &HistoryReport) -> Section {
    Section {
        heading: None,
        title: "Incidents".into(),
        notes: vec![],
        header: ["#", "start (UTC)", "duration", "providers", "name"]
            .map(String::from)
            .to_vec(),
        numeric: vec![true, false, true, false, false],
        rows: report
            .incidents
            .iter()
            .map(|i| {
                vec![
                    i.id.to_string(),
                    short_time(&i.start),
                    format_seconds(i.duration_s),
                    i.providers.join(", "),
                    i.name.clone(),
                ]
            })
            .collect(),
        footer: vec![],
    }
}

/// A figures table's header and numeric flags, first column `first`.
fn figures_header(first: &str) -> (Vec<String>, Vec<bool>) {
    let mut header: Vec<String> = [first, "chain", "pattern"].map(String::from).to_vec();
    header.extend(FIGURE_HEADER.map(String::from));
    let mut numeric = vec![true, false, false];
    numeric.extend([true; 4]);
    (header, numeric)
}

/// One row per window × chain × pattern.
fn rows_section(report: &HistoryReport) -> Section {
    let (header, numeric) = figures_header("#");
    Section {
        heading: None,
        title: "Per incident".into(),
        notes: vec![],
        header,
        numeric,
        rows: report
            .rows
            .iter()
            .map(|r| {
                let mut cells = Vec::with_capacity(3 + FIGURE_HEADER.len());
                cells.extend([
                    r.incident.to_string(),
                    r.row.chain.clone(),
                    r.row.pattern.as_str().to_string(),
                ]);
                let mut fig = figure_row(&r.row.analytic);
                fig[0] = labelled(
                    std::mem::take(&mut fig[0]),
                    r.row.method,
                    r.approximate,
                    r.row.simulated_precision,
                );
                cells.extend(fig);
                cells
            })
            .collect(),
        footer: vec![],
    }
}

/// The totals over the history, or per year of its period.
fn totals_section(title: String, list: &[ReplayTotal]) -> Section {
    let (header, numeric) = figures_header("incidents");
    Section {
        heading: None,
        title,
        notes: vec![],
        header,
        numeric,
        rows: list
            .iter()
            .map(|t| {
                let mut cells = vec![
                    t.incidents.to_string(),
                    t.chain.clone(),
                    t.pattern.as_str().to_string(),
                ];
                let mut fig = figure_row(&t.figures);
                fig[0] = labelled(
                    fig[0].clone(),
                    t.method,
                    t.approximate,
                    t.simulated_precision,
                );
                cells.extend(fig);
                cells
            })
            .collect(),
        footer: vec![],
    }
}

/// Every rate's [`ProviderRate::text`], joined.
fn rates_text(rates: &[ProviderRate]) -> String {
    let own = ProviderRate::periods_differ(rates);
    rates
        .iter()
        .map(|r| r.text_over(own))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Availability with its nines: `99.970424% (3.53)`.
fn availability_cell(a: f64, nines: Option<f64>) -> String {
    match nines {
        Some(n) => format!("{} ({})", availability(a), trim(n, 2)),
        None => availability(a),
    }
}

/// The simulated years: the rates drawn from their uncertainty, and beside them the same years
/// at the history's rates.
fn years_section(y: &YearsReport) -> Section {
    Section {
        heading: None,
        title: format!(
            "{} simulated years ({}, seed {}): incident premium per year, rates drawn from their uncertainty",
            crate::number::group(&y.years.to_string()),
            y.model,
            y.seed
        ),
        notes: vec![format!("rates per year: {}", rates_text(&y.rates))],
        header: [
            "chain",
            "pattern",
            "premium/yr ± 95%",
            "p50",
            "p95",
            "p99",
            "failed/yr",
            "availability (nines)",
            "p95, rate known",
            "p99, rate known",
            "availability, rate known",
        ]
        .map(String::from)
        .to_vec(),
        numeric: vec![
            false, false, true, true, true, true, true, true, true, true, true,
        ],
        rows: y
            .rows
            .iter()
            .map(|r| {
                let half = (r.premium_mean_usd_ci95[1] - r.premium_mean_usd_ci95[0]) / 2.0;
                let k = &r.rate_known;
                let known_nines = (k.availability < 1.0).then(|| -(1.0 - k.availability).log10());
                vec![
                    r.chain.clone(),
                    r.pattern.as_str().to_string(),
                    labelled(
                        format!("{} ± {}", money(r.premium_mean_usd), money(half)),
                        r.method,
                        r.approximate,
                        r.simulated_precision,
                    ),
                    money(r.premium_p50_usd),
                    money(r.premium_p95_usd),
                    money(r.premium_p99_usd),
                    count(r.failed_per_year.round()),
                    availability_cell(r.availability, r.nines),
                    money(k.premium_p95_usd),
                    money(k.premium_p99_usd),
                    availability_cell(k.availability, known_nines),
                ]
            })
            .collect(),
        footer: vec![],
    }
}

/// A section rendered ahead ([`ahead`]): its place in the page.
fn empty_section() -> Section {
    Section {
        heading: None,
        title: String::new(),
        notes: vec![],
        header: vec![],
        numeric: vec![],
        rows: vec![],
        footer: vec![],
    }
}

/// The table: the preamble, the windows, the rows, the totals, per year and the years.
pub fn layout(report: &HistoryReport) -> Page {
    layout_after(report, false)
}

/// [`layout`], its incidents and rows sections left empty where they were rendered `ahead`.
fn layout_after(report: &HistoryReport, ahead: bool) -> Page {
    let h = &report.history;
    let mut sections = if ahead {
        vec![empty_section(), empty_section()]
    } else {
        vec![incidents_section(report), rows_section(report)]
    };
    sections.push(totals_section("Over the history".into(), &report.totals));
    let over = if ProviderRate::periods_differ(&h.rates) {
        "each provider over its files' period".to_string()
    } else {
        format!("the history's {} years", trim(h.span_years, 4))
    };
    sections.push(totals_section(
        format!("Per year ({over}; rates {})", rates_text(&h.rates)),
        &report.per_year,
    ));
    if let Some(y) = &report.years {
        sections.push(years_section(y));
    }
    Page {
        preamble: preamble(report),
        sections,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::history::{ReplayInputs, YearsRequest, replay, years};

    /// The document written element by element is [`json`]'s, byte for byte: a shipped
    /// page and CSV on a scenario with breakers (simulated rows beside analytic ones), with
    /// its years.
    #[test]
    fn the_streamed_document_is_the_whole_ones() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let scenario =
            crate::input::scenario::load(&root.join("scenarios/policies.toml"), &[]).unwrap();
        let files = [
            root.join("tests/fixtures/history/anthropic.json"),
            root.join("tests/fixtures/history/openai-year.csv"),
        ];
        let history = crate::input::history::load(&files, &Default::default()).unwrap();
        let inputs = ReplayInputs {
            files: files.iter().map(|f| f.display().to_string()).collect(),
            minor_error_rate: 0.5,
        };
        let mut report = replay(&scenario, &history, &inputs).unwrap();
        let request = YearsRequest {
            years: 300,
            seed: 1,
            cluster: Some(2.0),
        };
        years(&scenario, request, &mut report).unwrap();
        assert!(report.rows.len() > 8 && report.incidents.len() > 1);
        let whole = super::super::json::render(&json(&report).unwrap()).unwrap();
        assert_eq!(
            String::from_utf8(json_bytes(&report).unwrap()).unwrap(),
            String::from_utf8(whole).unwrap()
        );
    }
}
