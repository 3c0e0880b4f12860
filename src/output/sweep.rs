//! The `fallcost sweep` document ([`Sweep`]) in every format: a table (terminal or Markdown),
//! CSV (one row per grid point, chain and pattern; the Monte Carlo columns with `--mc`) and
//! JSON (the [`Sweep`] as serialised). The `--plot` chart is [`super::plot::cost_chart`].

use super::csv::{MC_LATENCY, guard, num};
use super::layout::{Page, Section, steady_mc_cells, steady_mc_header, sweep_cells, sweep_headers};
use super::{Format, table};
use crate::figures::{CsvGenerations, INCIDENT_FIGURES, STEADY_FIGURES, csv_generations_after};
use crate::number::{group, trim};
use crate::sweep::{ColumnPlace, SWEEP_BASE, Sweep, SweepColumn, SweepRow};

/// `sweep` in `format`, as written to standard output or `--output`.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render(sweep: &Sweep, format: Format) -> super::OutputResult<Vec<u8>> {
    Ok(match format {
        Format::Table => table::render(&layout(sweep), table::Style::Terminal).into_bytes(),
        Format::Markdown => table::render(&layout(sweep), table::Style::Markdown).into_bytes(),
        Format::Json => super::json::render(sweep)?,
        Format::Csv => csv(sweep)?,
    })
}

/// The CSV: the swept parameters, chain and pattern, the figures the first sweeps printed
/// ([`ColumnPlace::First`]), with `--mc` the Monte Carlo columns, `incident_method`, then every other
/// analytic figure of the sweep's generations ([`ColumnPlace::Rest`]), with `--mc` the Monte Carlo
/// columns of those of generation 1, `incident_approximate`, then each later generation's
/// figures ([`ColumnPlace::Added`]) and their Monte Carlo columns.
fn csv(sweep: &Sweep) -> super::OutputResult<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let columns = crate::sweep::columns();
    let at = |place: ColumnPlace| -> Vec<SweepColumn> {
        columns
            .iter()
            .copied()
            .filter(|c| c.place() == place)
            .collect()
    };
    let (first, rest) = (at(ColumnPlace::First), at(ColumnPlace::Rest));
    let added: Vec<(CsvGenerations, Vec<SweepColumn>)> = csv_generations_after(SWEEP_BASE)
        .into_iter()
        .map(|g| (CsvGenerations::only(g), at(ColumnPlace::Added(g))))
        .collect();
    let mc = sweep.mc.is_some();
    let mut header: Vec<String> = sweep.params.iter().map(|p| guard(p)).collect();
    header.extend(["chain", "pattern"].map(String::from));
    header.extend(first.iter().map(|c| c.key()));
    if mc {
        header.extend(["mc_seed", "mc_requests"].map(String::from));
        header.extend(super::csv::steady_mc_columns(CsvGenerations::only(0)));
        header.extend(MC_LATENCY.iter().map(|c| c.to_string()));
    }
    header.push("incident_method".into());
    header.extend(rest.iter().map(|c| c.key()));
    if mc {
        header.extend(super::csv::steady_mc_columns(REST_MC));
    }
    header.push("incident_approximate".into());
    for (gens, cols) in &added {
        header.extend(cols.iter().map(|c| c.key()));
        if mc {
            header.extend(super::csv::steady_mc_columns(*gens));
        }
    }
    w.write_record(&header)?;
    for r in &sweep.rows {
        w.write_record(record(sweep, r, &first, &rest, &added))?;
    }
    Ok(w.into_inner()?)
}

/// The generations of the Monte Carlo columns after [`ColumnPlace::Rest`]'s: 1 to [`SWEEP_BASE`]
/// (generation 0's come before `incident_method`).
const REST_MC: CsvGenerations = CsvGenerations {
    first: 1,
    last: SWEEP_BASE,
};

/// One row's CSV record, under the columns [`csv`] lays out.
fn record(
    sweep: &Sweep,
    r: &SweepRow,
    first: &[SweepColumn],
    rest: &[SweepColumn],
    added: &[(CsvGenerations, Vec<SweepColumn>)],
) -> Vec<String> {
    let mut rec: Vec<String> = sweep.params.iter().map(|p| num(Some(r.point[p]))).collect();
    rec.extend([guard(&r.chain), r.pattern.as_str().to_string()]);
    rec.extend(first.iter().map(|c| num(c.value(r))));
    if let Some(m) = sweep.mc {
        rec.extend([m.seed.to_string(), m.requests.to_string()]);
        rec.extend(super::csv::steady_mc_cells(
            CsvGenerations::only(0),
            r.mc.as_ref(),
        ));
        rec.extend(super::csv::latency_cells(r.mc.as_ref()));
    }
    rec.push(r.incident_method.map_or("", |m| m.as_str()).into());
    rec.extend(rest.iter().map(|c| num(c.value(r))));
    if sweep.mc.is_some() {
        rec.extend(super::csv::steady_mc_cells(REST_MC, r.mc.as_ref()));
    }
    rec.push(
        r.incident_approximate
            .map_or(String::new(), |a| a.to_string()),
    );
    for (gens, cols) in added {
        rec.extend(cols.iter().map(|c| num(c.value(r))));
        if sweep.mc.is_some() {
            rec.extend(super::csv::steady_mc_cells(*gens, r.mc.as_ref()));
        }
    }
    rec
}

/// The table: one section, a row per grid point, chain and pattern; the figures declared
/// [`swept`](crate::figures::Figure::swept), the incident ones when some row has them.
pub fn layout(sweep: &Sweep) -> Page {
    let has_incident = sweep.rows.iter().any(|r| r.incident.is_some());
    let mut header: Vec<String> = sweep.params.clone();
    header.extend(["chain", "pattern"].map(String::from));
    header.extend(sweep_headers(STEADY_FIGURES));
    if has_incident {
        header.extend(sweep_headers(INCIDENT_FIGURES));
    }
    if sweep.mc.is_some() {
        header.extend(steady_mc_header());
    }
    // every column is a number but the chain and the pattern
    let mut numeric = vec![true; header.len()];
    numeric[sweep.params.len()] = false;
    numeric[sweep.params.len() + 1] = false;
    let rows = sweep
        .rows
        .iter()
        .map(|r| table_row(sweep, r, has_incident))
        .collect();
    Page {
        preamble: preamble(sweep),
        sections: vec![Section {
            heading: None,
            title: if has_incident {
                "Steady state per 1,000 requests, and the incident, at each point".into()
            } else {
                "Steady state per 1,000 requests at each point".into()
            },
            notes: vec![],
            header,
            numeric,
            rows,
            footer: vec![],
        }],
    }
}

/// One row's table cells: the point, chain and pattern, the swept figures (the incident ones
/// with `has_incident`), with `--mc` the Monte Carlo ones.
fn table_row(sweep: &Sweep, r: &SweepRow, has_incident: bool) -> Vec<String> {
    let mut cells: Vec<String> = sweep
        .params
        .iter()
        .map(|p| group(&trim(r.point[p], 9)))
        .collect();
    cells.extend([r.chain.clone(), r.pattern.as_str().to_string()]);
    cells.extend(sweep_cells(
        STEADY_FIGURES,
        Some(&r.steady),
        false,
        |s, f| s.visit(f),
    ));
    if has_incident {
        let sim = r.incident_method == Some(crate::report::Method::Simulated);
        cells.extend(sweep_cells(
            INCIDENT_FIGURES,
            r.incident.as_ref(),
            sim,
            |s, f| s.visit(f),
        ));
    }
    if sweep.mc.is_some() {
        cells.extend(steady_mc_cells(r.mc.as_ref()));
    }
    cells
}

/// The lines above the table: the scenario and the swept keys, the marks used (`sim`, `≈`)
/// and the Monte Carlo settings.
fn preamble(sweep: &Sweep) -> Vec<String> {
    let mut p = vec![format!(
        "{} (sweep of {})",
        sweep.scenario,
        sweep.params.join(", ")
    )];
    if sweep
        .rows
        .iter()
        .any(|r| r.incident_method == Some(crate::report::Method::Simulated))
    {
        p.push("sim: incident figures simulated (a circuit breaker, or retries where a session's cache can expire between its requests, has no exact closed form: docs/MODEL.md §6, §8): the incident simulator's mean, fixed seed".into());
    }
    if sweep
        .rows
        .iter()
        .any(|r| r.incident_approximate == Some(true))
    {
        p.push("≈ approximate incident figures: on a timeline with cuts each request is priced in the segment it arrives in, and its attempts after a failure may find the next segment's states, so every figure (cold starts and fail-back writes included) may be off by λ × the mean dead time before each cut in requests' worth, and the cache figures by up to one session per cut and model where a cache can expire within a session (docs/MODEL.md §6), as compare says".into());
    }
    if let Some(m) = sweep.mc {
        p.push(format!(
            "Monte Carlo: {} requests per chain at each point, seed {}; ± is the 95% interval",
            group(&m.requests.to_string()),
            m.seed
        ));
    }
    p
}
