//! The `fallcost sweep` document ([`Sweep`]) in every format: a table (terminal or Markdown),
//! CSV (one row per grid point, chain and pattern; the Monte Carlo columns with `--mc`) and
//! JSON (the [`Sweep`] as serialised). The `--plot` chart is [`super::plot::cost_chart`].

use super::csv::{guard, num};
use super::layout::{Page, Section, steady_mc_cells, steady_mc_header, sweep_cells, sweep_headers};
use super::{Format, table};
use crate::figures::{INCIDENT_FIGURES, STEADY_FIGURES};
use crate::number::{group, trim};
use crate::sweep::Sweep;

/// `sweep` in `format`, as written to standard output or `--output`.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render(sweep: &Sweep, format: Format) -> anyhow::Result<Vec<u8>> {
    Ok(match format {
        Format::Table => table::render(&layout(sweep), table::Style::Terminal).into_bytes(),
        Format::Markdown => table::render(&layout(sweep), table::Style::Markdown).into_bytes(),
        Format::Json => super::json::render(sweep)?,
        Format::Csv => csv(sweep)?,
    })
}

/// The CSV: the swept parameters, chain and pattern, the figures the first sweeps printed
/// ([`crate::sweep::columns`] not [`late`](crate::sweep::SweepColumn::late)), with `--mc` the
/// Monte Carlo columns, `incident_method`, then every other analytic figure, then with `--mc`
/// the Monte Carlo columns of figures added later ([`crate::figures::Figure::csv_last`]).
fn csv(sweep: &Sweep) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let (late, first): (Vec<_>, Vec<_>) =
        crate::sweep::columns().into_iter().partition(|c| c.late());
    let mut header: Vec<String> = sweep.params.iter().map(|p| guard(p)).collect();
    header.extend(["chain", "pattern"].map(String::from));
    header.extend(first.iter().map(|c| c.key()));
    if sweep.mc.is_some() {
        header.extend(["mc_seed", "mc_requests"].map(String::from));
        header.extend(super::csv::steady_mc_columns());
    }
    header.push("incident_method".into());
    header.extend(late.iter().map(|c| c.key()));
    if sweep.mc.is_some() {
        header.extend(super::csv::steady_mc_late_columns());
    }
    header.push("incident_approximate".into());
    w.write_record(&header)?;
    for r in &sweep.rows {
        let mut rec: Vec<String> = sweep.params.iter().map(|p| num(Some(r.point[p]))).collect();
        rec.extend([guard(&r.chain), r.pattern.as_str().to_string()]);
        rec.extend(first.iter().map(|c| num(c.value(r))));
        if let Some(m) = sweep.mc {
            rec.extend([m.seed.to_string(), m.requests.to_string()]);
            rec.extend(super::csv::steady_mc_cells(r.mc.as_ref()));
            rec.extend(super::csv::latency_cells(r.mc.as_ref()));
        }
        rec.push(r.incident_method.map_or("", |m| m.as_str()).into());
        rec.extend(late.iter().map(|c| num(c.value(r))));
        if sweep.mc.is_some() {
            rec.extend(super::csv::steady_mc_late_cells(r.mc.as_ref()));
        }
        rec.push(
            r.incident_approximate
                .map_or(String::new(), |a| a.to_string()),
        );
        w.write_record(&rec)?;
    }
    Ok(w.into_inner()?)
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
        .map(|r| {
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
        })
        .collect();
    Page {
        preamble: {
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
                p.push("sim: incident figures simulated (a circuit breaker has no exact closed form): the incident simulator's mean, fixed seed".into());
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
        },
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
