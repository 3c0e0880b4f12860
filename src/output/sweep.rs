//! The `fallcost sweep` document ([`Sweep`]) in every format: a table (terminal or Markdown),
//! CSV (one row per grid point, chain and pattern; the Monte Carlo columns with `--mc`) and
//! JSON (the [`Sweep`] as serialised). The `--plot` chart is [`super::plot::cost_chart`].

use super::csv::{guard, num};
use super::layout::{Page, Section, steady_mc_cells, steady_mc_header};
use super::{Format, table};
use crate::number::{change, count, group, money, multiplier, trim};
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

/// The CSV: the swept parameters, then chain, pattern and the figures.
fn csv(sweep: &Sweep) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = sweep.params.iter().map(|p| guard(p)).collect();
    header.extend(
        [
            "chain",
            "pattern",
            "cost_per_1k_usd",
            "vs_baseline",
            "failed_per_1k",
            "incident_total_usd",
            "incident_multiplier",
        ]
        .map(String::from),
    );
    if sweep.mc.is_some() {
        header.extend(["mc_seed", "mc_requests"].map(String::from));
        header.extend(super::csv::steady_mc_columns());
    }
    header.push("incident_method".into());
    header.push("incident_approximate".into());
    w.write_record(&header)?;
    for r in &sweep.rows {
        let mut rec: Vec<String> = sweep.params.iter().map(|p| num(Some(r.point[p]))).collect();
        rec.extend([
            guard(&r.chain),
            r.pattern.as_str().to_string(),
            num(Some(r.cost_per_1k_usd)),
            num(r.vs_baseline),
            num(Some(r.failed_per_1k)),
            num(r.incident_total_usd),
            num(r.incident_multiplier),
        ]);
        if let Some(m) = sweep.mc {
            rec.extend([m.seed.to_string(), m.requests.to_string()]);
            rec.extend(super::csv::steady_mc_cells(r.mc.as_ref()));
            rec.extend(super::csv::latency_cells(r.mc.as_ref()));
        }
        rec.push(r.incident_method.map_or("", |m| m.as_str()).into());
        rec.push(
            r.incident_approximate
                .map_or(String::new(), |a| a.to_string()),
        );
        w.write_record(&rec)?;
    }
    Ok(w.into_inner()?)
}

/// The table: one section, a row per grid point, chain and pattern.
pub fn layout(sweep: &Sweep) -> Page {
    let has_incident = sweep.rows.iter().any(|r| r.incident_total_usd.is_some());
    let mut header: Vec<String> = sweep.params.clone();
    header.extend(["chain", "pattern", "$/1k req", "vs primary", "failed/1k"].map(String::from));
    if has_incident {
        header.extend(["incident USD", "x normal"].map(String::from));
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
            cells.extend([
                r.chain.clone(),
                r.pattern.as_str().to_string(),
                money(r.cost_per_1k_usd),
                r.vs_baseline.map_or("–".into(), change),
                count(r.failed_per_1k),
            ]);
            if has_incident {
                let sim = if r.incident_method == Some(crate::report::Method::Simulated) {
                    "sim "
                } else if r.incident_approximate == Some(true) {
                    "≈ "
                } else {
                    ""
                };
                cells.push(
                    r.incident_total_usd
                        .map_or("–".into(), |t| format!("{sim}{}", money(t))),
                );
                cells.push(r.incident_multiplier.map_or("–".into(), multiplier));
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
                p.push("≈ approximate incident figures: on a timeline with cuts, cold starts and fail-back writes are counted per segment, low by up to one session per cut and model (docs/MODEL.md §6), as compare says".into());
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
