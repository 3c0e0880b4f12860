//! CSV export: one header line, one row per (section, chain, pattern), plain numbers.
//!
//! The figure columns and cells come from the figure sets' declarations
//! ([`crate::figures`]): steady rows fill the steady figures' columns, incident rows the
//! incident figures'. Cells that do not apply to a row's section are empty. Text cells (names)
//! are guarded against spreadsheet formula injection.

use crate::figures::{CsvGenerations, Figure, MeanCi, csv_generations_after};
use crate::report::{
    FigureEntry, INCIDENT_FIGURES, INCIDENT_POLICY_FIGURES, IncidentPolicyFigures, Report,
    STEADY_FIGURES, STEADY_POLICY_FIGURES, SteadyMc, SteadyPolicyFigures, Value,
};

/// The CSV generation `compare`'s columns were laid out with ([`Figure::csv`]): its figures
/// before [`METHOD_COLUMN`]; the figures of each later generation follow [`EXTRA_COLUMNS`], one
/// generation after another ([`late_columns`]).
pub const COMPARE_BASE: u8 = 0;

/// The generations of `compare`'s first columns.
const BASE: CsvGenerations = CsvGenerations::through(COMPARE_BASE);

/// The columns before the figures: what a row is.
pub const ID_COLUMNS: &[&str] = &["scenario", "section", "chain", "pattern"];

/// The policy figures of the analytic rows (MODEL.md §8) as CSV columns, after the steady and
/// incident figures: the steady policy figures the analytic engine has
/// ([`STEADY_POLICY_FIGURES`] with [`Figure::analytic`]), the list `answered_by` last. Steady
/// rows fill them ([`crate::report::SteadyRow::policy`]); incident rows `dead_time_mean_s`
/// only ([`crate::report::IncidentRow::dead_time_mean_s`]). Those of [`COMPARE_BASE`]; a later
/// generation's are `policy_columns_of` it.
pub fn policy_columns() -> Vec<&'static Figure> {
    policy_columns_of(BASE)
}

/// The [`policy_columns`] of the generations `gens`.
fn policy_columns_of(gens: CsvGenerations) -> Vec<&'static Figure> {
    let analytic = || {
        STEADY_POLICY_FIGURES
            .iter()
            .filter(move |f| f.analytic && gens.holds(f))
    };
    analytic()
        .filter(|f| !f.list)
        .chain(analytic().filter(|f| f.list))
        .collect()
}

/// The header of `fallcost compare --format csv` before the Monte Carlo columns: the row's
/// identity ([`ID_COLUMNS`]), every steady figure ([`STEADY_FIGURES`]), every incident figure
/// ([`INCIDENT_FIGURES`]), the analytic policy figures ([`policy_columns`]).
pub fn compare_columns() -> Vec<&'static str> {
    let keys = |figures: &'static [Figure]| placed(figures, BASE).map(|f| f.key);
    ID_COLUMNS
        .iter()
        .copied()
        .chain(keys(STEADY_FIGURES))
        .chain(keys(INCIDENT_FIGURES))
        .chain(policy_columns().into_iter().map(|f| f.key))
        .collect()
}

/// The last column, after every other (with `--mc` too): how the row's figures were
/// computed, `analytic` (the closed forms; every steady row) or `simulated` (an incident row of
/// a chain with a circuit breaker: the incident simulator with a fixed seed).
pub const METHOD_COLUMN: &str = "method";
/// Columns after `method` (and so after the Monte Carlo ones), so older columns keep their
/// places: `blended` (`true` on the rows that blend the chains by traffic share, else
/// `false`), then the failover-cache table's own (`section` = `failover_cache`, one row per
/// request state, its price in `cost_per_1k_usd`; empty on other rows).
pub const EXTRA_COLUMNS: &[&str] = &[
    "blended",
    "cache_request",
    "cache_model",
    "vs_primary",
    "break_even_requests",
];

/// Columns added with `--mc`: the metadata to repeat the run, then per figure its mean and its
/// 95% interval (`_ci95_lo`, `_ci95_hi`), then the latency percentiles, then the policy figures
/// ([`mc_policy_columns`]). Steady rows fill the steady figures, incident rows the incident ones.
pub const MC_META_COLUMNS: &[&str] = &["mc_seed", "mc_requests", "mc_runs"];

/// The figures of `figures` of the CSV generations `gens` ([`Figure::csv`]).
fn placed(
    figures: &'static [Figure],
    gens: CsvGenerations,
) -> impl Iterator<Item = &'static Figure> {
    figures.iter().filter(move |f| gens.holds(f))
}

/// The figures of `figures` (of the generations `gens`) the Monte Carlo estimates, each with a
/// 95% interval, as `mc_KEY`.
fn estimated(
    figures: &'static [Figure],
    gens: CsvGenerations,
) -> impl Iterator<Item = &'static str> {
    placed(figures, gens).filter(|f| f.estimated).map(|f| f.key)
}

/// The cells of a figure set's estimated figures of the generations `gens` (`mc_KEY`,
/// `mc_KEY_ci95_lo`, `mc_KEY_ci95_hi` each); empty cells without Monte Carlo figures.
fn estimate_cells<F>(
    figures: &'static [Figure],
    gens: CsvGenerations,
    set: Option<&F>,
    visit: impl Fn(&F, &mut dyn FnMut(&'static Figure, FigureEntry<'_, MeanCi>)),
) -> Vec<String> {
    let width = 1 + MeanCi::CSV_SUFFIXES.len();
    let Some(set) = set else {
        return vec![String::new(); width * estimated(figures, gens).count()];
    };
    let mut cells = Vec::new();
    visit(set, &mut |fig, e| {
        if !gens.holds(fig) {
            return;
        }
        if let FigureEntry::Figure(v) = e {
            match v {
                Some(v) => cells.extend(v.numbers().into_iter().map(|x| num(Some(x)))),
                None => cells.extend(vec![String::new(); width]),
            }
        }
    });
    cells
}

/// The latency percentile columns (steady rows).
pub const MC_LATENCY: &[&str] = &["mc_latency_p50_s", "mc_latency_p95_s", "mc_latency_p99_s"];

/// The policy figures of MODEL.md §8 as the Monte Carlo engine simulates them (the JSON's
/// `mc.policy`), appended after [`MC_LATENCY`] as `mc_KEY` and, for an estimated figure,
/// `mc_KEY_ci95_lo` and `mc_KEY_ci95_hi`: the steady policy figures
/// ([`STEADY_POLICY_FIGURES`], the list `answered_by` last), then the incident ones
/// ([`INCIDENT_POLICY_FIGURES`]) the steady ones do not name (`dead_time_mean_s` is one column
/// for both). They are filled on the rows of chains with a non-default policy (and on blended
/// rows whose chains all have one) and empty elsewhere. Those of [`COMPARE_BASE`]; a later
/// generation's are `mc_policy_columns_of` it.
pub fn mc_policy_columns() -> Vec<&'static Figure> {
    mc_policy_columns_of(BASE)
}

/// The [`mc_policy_columns`] of the generations `gens`.
fn mc_policy_columns_of(gens: CsvGenerations) -> Vec<&'static Figure> {
    let steady = || placed(STEADY_POLICY_FIGURES, gens);
    let mut columns: Vec<&'static Figure> = steady().filter(|f| !f.list).collect();
    columns.extend(steady().filter(|f| f.list));
    columns.extend(
        placed(INCIDENT_POLICY_FIGURES, gens)
            .filter(|f| !STEADY_POLICY_FIGURES.iter().any(|s| s.key == f.key)),
    );
    columns
}

/// The Monte Carlo columns of `compare`'s first generations: [`MC_META_COLUMNS`], the steady
/// and incident estimates, [`MC_LATENCY`], [`mc_policy_columns`].
fn mc_header() -> Vec<String> {
    let mut h: Vec<String> = MC_META_COLUMNS.iter().map(|c| c.to_string()).collect();
    let with_ci = estimated(STEADY_FIGURES, BASE)
        .chain(estimated(INCIDENT_FIGURES, BASE))
        .map(|k| (k, true))
        .chain(
            MC_LATENCY
                .iter()
                .map(|c| (c.trim_start_matches("mc_"), false)),
        )
        .chain(
            mc_policy_columns()
                .into_iter()
                .map(|f| (f.key, f.estimated)),
        );
    for (k, ci) in with_ci {
        push_mc_column(&mut h, k, ci);
    }
    h
}

/// `mc_KEY`, and with `ci` its `mc_KEY_ci95_lo` and `mc_KEY_ci95_hi`.
fn push_mc_column(header: &mut Vec<String>, key: &str, ci: bool) {
    header.push(format!("mc_{key}"));
    if ci {
        header.push(format!("mc_{key}_ci95_lo"));
        header.push(format!("mc_{key}_ci95_hi"));
    }
}

/// The Monte Carlo columns of a steady-state row's figures of the generations `gens`, as
/// `fallcost sweep` prints them, named as in `compare`'s CSV: the steady figures
/// ([`STEADY_FIGURES`]) each with its 95% interval. Cells: [`steady_mc_cells`].
pub fn steady_mc_columns(gens: CsvGenerations) -> Vec<String> {
    let mut h = Vec::new();
    for k in estimated(STEADY_FIGURES, gens) {
        push_mc_column(&mut h, k, true);
    }
    h
}

/// The cells of the steady figures' Monte Carlo columns of the generations `gens`: each
/// figure's simulated mean, then the low and high ends of its 95% interval; empty cells without
/// Monte Carlo figures.
pub fn steady_mc_cells(gens: CsvGenerations, m: Option<&SteadyMc>) -> Vec<String> {
    estimate_cells(STEADY_FIGURES, gens, m.map(|m| &m.figures), |f, v| {
        f.visit(v)
    })
}

/// The cells of the incident figures' Monte Carlo columns of the generations `gens`, as
/// [`steady_mc_cells`].
fn incident_mc_cells(
    gens: CsvGenerations,
    m: Option<&crate::report::IncidentFigures<MeanCi>>,
) -> Vec<String> {
    estimate_cells(INCIDENT_FIGURES, gens, m, |f, v| f.visit(v))
}

/// The columns after every other (after [`EXTRA_COLUMNS`]): the figures of each CSV generation
/// after [`COMPARE_BASE`] ([`Figure::csv`]; README, "CSV": new columns go after the existing
/// ones), one generation after another: each the steady, incident and analytic policy
/// figures' values, then with `mc` the Monte Carlo estimates of the steady and incident figures
/// and the Monte Carlo policy figures.
pub fn late_columns(mc: bool) -> Vec<String> {
    csv_generations_after(COMPARE_BASE)
        .into_iter()
        .flat_map(|g| generation_columns(CsvGenerations::only(g), mc))
        .collect()
}

/// The columns of one appended generation: the steady, incident and analytic policy figures'
/// values, then with `mc` the Monte Carlo estimates of the steady and incident figures and the
/// Monte Carlo policy figures.
fn generation_columns(gens: CsvGenerations, mc: bool) -> Vec<String> {
    let mut h: Vec<String> = placed(STEADY_FIGURES, gens)
        .chain(placed(INCIDENT_FIGURES, gens))
        .chain(policy_columns_of(gens))
        .map(|f| f.key.to_string())
        .collect();
    if mc {
        for k in estimated(STEADY_FIGURES, gens).chain(estimated(INCIDENT_FIGURES, gens)) {
            push_mc_column(&mut h, k, true);
        }
        for f in mc_policy_columns_of(gens) {
            push_mc_column(&mut h, f.key, f.estimated);
        }
    }
    h
}

/// The cells of the [`MC_LATENCY`] columns: p50, p95 and p99 in seconds; empty cells without
/// Monte Carlo figures.
pub fn latency_cells(m: Option<&SteadyMc>) -> Vec<String> {
    match m {
        Some(m) => [m.latency_p50_s, m.latency_p95_s, m.latency_p99_s]
            .map(|x| num(Some(x)))
            .to_vec(),
        None => vec![String::new(); MC_LATENCY.len()],
    }
}

/// The cells of the Monte Carlo policy `columns` ([`mc_policy_columns`]) of a steady row
/// (`steady`) or an incident row (`incident`); empty cells for figures the row does not have.
fn mc_policy_cells(
    columns: &[&'static Figure],
    steady: Option<&SteadyPolicyFigures<MeanCi>>,
    incident: Option<&IncidentPolicyFigures<MeanCi>>,
) -> Vec<String> {
    let mut have: Vec<(&'static str, Vec<String>)> = Vec::new();
    let mut take = |fig: &'static Figure, e: FigureEntry<'_, MeanCi>| {
        let cells = match e {
            FigureEntry::Figure(Some(v)) => v.numbers().into_iter().map(|x| num(Some(x))).collect(),
            FigureEntry::Figure(None) => Vec::new(),
            FigureEntry::Exact(v) => vec![num(v)],
            FigureEntry::Text(t) => vec![guard(&t)],
        };
        have.push((fig.key, cells));
    };
    if let Some(p) = steady {
        p.visit(&mut take);
    }
    if let Some(p) = incident {
        p.visit(&mut take);
    }
    let mut cells = Vec::new();
    for fig in columns {
        let width = if fig.estimated {
            1 + MeanCi::CSV_SUFFIXES.len()
        } else {
            1
        };
        match have
            .iter_mut()
            .find(|(k, c)| *k == fig.key && !c.is_empty())
        {
            Some((_, c)) => cells.append(c),
            None => cells.extend(vec![String::new(); width]),
        }
    }
    cells
}

/// An analytic entry's cell: the number, empty where it does not apply; a text cell guarded.
fn analytic_cell(e: FigureEntry<'_, f64>) -> String {
    match e {
        FigureEntry::Figure(v) => num(v.copied()),
        FigureEntry::Exact(v) => num(v),
        FigureEntry::Text(t) => guard(&t),
    }
}

/// The cells of an analytic figure set, one per entry of the generations `gens`, in
/// declaration order.
fn analytic_cells(
    gens: CsvGenerations,
    visit: impl FnOnce(&mut dyn FnMut(&'static Figure, FigureEntry<'_, f64>)),
) -> Vec<String> {
    let mut cells = Vec::new();
    visit(&mut |fig, e| {
        if gens.holds(fig) {
            cells.push(analytic_cell(e));
        }
    });
    cells
}

/// The cells of `columns` by key, from `(key, cell)` pairs; empty for a column without one.
fn keyed_cells(columns: &[&'static Figure], have: &[(&str, String)]) -> Vec<String> {
    columns
        .iter()
        .map(|c| {
            have.iter()
                .find(|(k, _)| *k == c.key)
                .map_or_else(String::new, |(_, v)| v.clone())
        })
        .collect()
}

/// The cells of an analytic policy figure set under the policy `columns` ([`policy_columns`]).
fn policy_cells(policy: &SteadyPolicyFigures<f64>, columns: &[&'static Figure]) -> Vec<String> {
    let mut have = Vec::new();
    policy.visit(|fig, e| have.push((fig.key, analytic_cell(e))));
    keyed_cells(columns, &have)
}

/// Neutralise a text cell that a spreadsheet would read as a formula (OWASP, "CSV Injection"):
/// a leading `=`, `+`, `-`, `@`, tab or carriage return gets a `'` in front.
pub fn guard(text: &str) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text.to_string(),
    }
}

/// A number for a spreadsheet: rounded to 12 significant digits (no float noise:
/// `15.00002`, not `15.000020000000003`), as a plain decimal (`0.0003`, `-0.0015`, `11160`,
/// `0.000000001`), below 1e-12 or from 1e15 in exponent form (`1e-320`, `6.5e20`), `0` for
/// zero (never `-0`);
/// empty for `None` and for a value that is not finite.
pub fn num(x: Option<f64>) -> String {
    match x.map(crate::number::round_noise) {
        Some(0.0) => "0".to_string(),
        // Past a trillionth (a denormal 1e-320 would print 324 characters) or a quadrillion,
        // the exponent form, which spreadsheets read as well.
        Some(v) if v.is_finite() && (v.abs() < 1e-12 || v.abs() >= 1e15) => format!("{v:e}"),
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

/// The compare report as CSV bytes.
pub fn compare(report: &Report) -> super::OutputResult<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let header = compare_header(report.mc.is_some());
    w.write_record(&header)?;
    for r in &report.steady {
        w.write_record(steady_record(report, r))?;
    }
    for r in &report.incident {
        w.write_record(incident_record(report, r))?;
    }
    for rec in failover_cache_records(report, &header) {
        w.write_record(&rec)?;
    }
    Ok(w.into_inner()?)
}

/// The compare CSV's header: [`compare_columns`], with `mc` the Monte Carlo ones, then
/// [`METHOD_COLUMN`], [`EXTRA_COLUMNS`] and [`late_columns`].
fn compare_header(mc: bool) -> Vec<String> {
    let mut header: Vec<String> = compare_columns().iter().map(|c| c.to_string()).collect();
    if mc {
        header.extend(mc_header());
    }
    header.push(METHOD_COLUMN.into());
    header.extend(EXTRA_COLUMNS.iter().map(|c| c.to_string()));
    header.extend(late_columns(mc));
    header
}

/// Empty cells.
fn blank(n: usize) -> Vec<String> {
    vec![String::new(); n]
}

/// A row's identity cells ([`ID_COLUMNS`]).
fn id_cells(report: &Report, section: &str, chain: &str, pattern: &str) -> Vec<String> {
    vec![
        guard(&report.scenario),
        section.into(),
        guard(chain),
        pattern.into(),
    ]
}

/// The Monte Carlo metadata cells ([`MC_META_COLUMNS`]), with `--mc`.
fn meta_cells(report: &Report) -> Vec<String> {
    report.mc.as_ref().map_or_else(Vec::new, |m| {
        vec![
            m.seed.to_string(),
            m.requests.to_string(),
            m.runs.to_string(),
        ]
    })
}

/// The cells from [`METHOD_COLUMN`] on: the method, [`EXTRA_COLUMNS`] (`blended`, the rest
/// empty), then `late`, the row's [`late_columns`] cells.
fn end_cells(method: &str, chain: &str, late: Vec<String>) -> Vec<String> {
    let mut rec = vec![
        method.to_string(),
        (chain == crate::report::BLENDED).to_string(),
    ];
    rec.extend(blank(EXTRA_COLUMNS.len() - 1));
    rec.extend(late);
    rec
}

/// One steady row's record.
fn steady_record(report: &Report, r: &crate::report::SteadyRow) -> Vec<String> {
    let mut rec = id_cells(report, "steady", &r.chain, r.pattern.as_str());
    rec.extend(steady_cells(report, r, BASE));
    let late = csv_generations_after(COMPARE_BASE)
        .into_iter()
        .flat_map(|g| steady_cells(report, r, CsvGenerations::only(g)))
        .collect();
    rec.extend(end_cells("analytic", &r.chain, late));
    rec
}

/// A steady row's figure cells of the generations `gens`: analytic, policy, then with `--mc`
/// (after the [`MC_META_COLUMNS`] in the first generations) the Monte Carlo ones, the
/// latency percentiles in the first generations.
fn steady_cells(
    report: &Report,
    r: &crate::report::SteadyRow,
    gens: CsvGenerations,
) -> Vec<String> {
    let mut rec = analytic_cells(gens, |f| r.analytic.visit(f));
    rec.extend(blank(placed(INCIDENT_FIGURES, gens).count()));
    rec.extend(policy_cells(&r.policy, &policy_columns_of(gens)));
    if report.mc.is_none() {
        return rec;
    }
    if gens == BASE {
        rec.extend(meta_cells(report));
    }
    rec.extend(steady_mc_cells(gens, r.mc.as_ref()));
    rec.extend(incident_mc_cells(gens, None));
    if gens == BASE {
        rec.extend(latency_cells(r.mc.as_ref()));
    }
    rec.extend(mc_policy_cells(
        &mc_policy_columns_of(gens),
        r.mc.as_ref().and_then(|m| m.policy.as_ref()),
        None,
    ));
    rec
}

/// One incident row's record.
fn incident_record(report: &Report, r: &crate::report::IncidentRow) -> Vec<String> {
    let mut rec = id_cells(report, "incident", &r.chain, r.pattern.as_str());
    rec.extend(incident_cells(report, r, BASE));
    let late = csv_generations_after(COMPARE_BASE)
        .into_iter()
        .flat_map(|g| incident_cells(report, r, CsvGenerations::only(g)))
        .collect();
    rec.extend(end_cells(r.method.as_str(), &r.chain, late));
    rec
}

/// An incident row's figure cells of the generations `gens`, as [`steady_cells`].
fn incident_cells(
    report: &Report,
    r: &crate::report::IncidentRow,
    gens: CsvGenerations,
) -> Vec<String> {
    let mut rec = blank(placed(STEADY_FIGURES, gens).count());
    rec.extend(analytic_cells(gens, |f| r.analytic.visit(f)));
    // the policy columns: the incident row's one analytic policy figure, dead time
    rec.extend(keyed_cells(
        &policy_columns_of(gens),
        &[("dead_time_mean_s", num(Some(r.dead_time_mean_s)))],
    ));
    if report.mc.is_none() {
        return rec;
    }
    if gens == BASE {
        rec.extend(meta_cells(report));
    }
    rec.extend(steady_mc_cells(gens, None));
    rec.extend(incident_mc_cells(gens, r.mc.as_ref().map(|m| &m.figures)));
    if gens == BASE {
        rec.extend(blank(MC_LATENCY.len()));
    }
    rec.extend(mc_policy_cells(
        &mc_policy_columns_of(gens),
        None,
        r.mc.as_ref().and_then(|m| m.policy.as_ref()),
    ));
    rec
}

/// The failover-cache table's records: one per request state of each chain, its cells placed
/// by column name in `header`.
fn failover_cache_records(report: &Report, header: &[String]) -> Vec<Vec<String>> {
    let at = |name: &str| header.iter().position(|h| h == name).expect("a column");
    let mut records = Vec::new();
    for fc in &report.failover_cache {
        for row in &fc.rows {
            let mut rec = blank(header.len());
            rec[at("scenario")] = guard(&report.scenario);
            rec[at("section")] = "failover_cache".into();
            rec[at("chain")] = guard(&fc.chain);
            rec[at("cost_per_1k_usd")] = num(Some(row.cost_per_1k_usd));
            rec[at("blended")] = "false".into();
            rec[at(METHOD_COLUMN)] = "analytic".into();
            rec[at("cache_request")] = row.request.to_string();
            rec[at("cache_model")] = guard(&row.model);
            rec[at("vs_primary")] = num(row.vs_primary);
            rec[at("break_even_requests")] = fc
                .break_even_requests
                .map_or(String::new(), |n| n.to_string());
            if let Some(m) = &report.mc {
                rec[at("mc_seed")] = m.seed.to_string();
                rec[at("mc_requests")] = m.requests.to_string();
                rec[at("mc_runs")] = m.runs.to_string();
            }
            records.push(rec);
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_guarded() {
        assert_eq!(guard("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(guard("+1"), "'+1");
        assert_eq!(guard("-x"), "'-x");
        assert_eq!(guard("@cmd"), "'@cmd");
        assert_eq!(guard("\tx"), "'\tx");
        assert_eq!(guard("price-matched"), "price-matched");
    }

    #[test]
    fn numbers_are_plain() {
        assert_eq!(num(Some(-0.0015)), "-0.0015");
        assert_eq!(num(Some(11160.0)), "11160");
        assert_eq!(num(Some(1e-9)), "0.000000001");
        assert_eq!(num(Some(15.000020000000003)), "15.00002");
        assert_eq!(num(Some(-0.0)), "0");
        assert_eq!(num(Some(1e-320)), "1e-320");
        assert_eq!(num(Some(6.5e20)), "6.5e20");
        assert_eq!(num(Some(f64::NAN)), "");
        assert_eq!(num(None), "");
    }
}
