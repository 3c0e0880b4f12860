//! `fallcost sweep`: a scenario recomputed over a grid of parameter values.

use std::path::Path;

use crate::cli::SweepArgs;
use crate::error::ExitStatus;
use crate::input::read_text;
use crate::output::csv::{self, guard, num};
use crate::output::layout::{Page, STEADY_MC_HEADER, Section, steady_mc_cells};
use crate::output::number::{change, count, group, money, multiplier, trim};
use crate::output::{self, Format, Target, table};
use crate::sweep::{self, Param, Sweep};

/// Parse the ranges, run the sweep, print or write it, and draw `--plot`.
///
/// Errors: a bad range, an invalid scenario at any grid point, an unwritable output.
pub fn run(args: &SweepArgs) -> anyhow::Result<ExitStatus> {
    let (format, target) = super::output_of(&args.output);
    let params: Vec<Param> = args
        .param
        .iter()
        .map(|p| Param::parse(p).map_err(|e| anyhow::anyhow!("--param {e}")))
        .collect::<Result<_, _>>()?;
    // Project settings (fallcost.toml [compare]), as compare reads them: a flag given wins.
    let settings = crate::input::settings::compare_settings(args.config_file.as_deref())?;
    let configs = if args.config.is_empty() && args.scenario.is_none() {
        settings.config.clone().unwrap_or_default()
    } else {
        args.config.clone()
    };
    let scenario_path = args.scenario.clone().or(settings.scenario.clone());
    let profile = args.profile.or(settings.profile);
    let (label, text, base, sets, provenance) = if configs.is_empty() {
        if args.profile.is_some() {
            anyhow::bail!("--profile prices a gateway config: it needs --config");
        }
        let path = scenario_path.as_deref().ok_or_else(|| {
            anyhow::anyhow!(
                "the following required arguments were not provided: --scenario <PATH> or --config <FILE> (or `scenario`/`config` in fallcost.toml's [compare]; see `fallcost sweep --help`)"
            )
        })?;
        let base = match path.parent() {
            Some(b) if !b.as_os_str().is_empty() => b.to_path_buf(),
            _ => Path::new(".").to_path_buf(),
        };
        (
            path.display().to_string(),
            read_text(path)?,
            base,
            args.set.clone(),
            Vec::new(),
        )
    } else {
        let mut b = super::from_config::build_text(&configs, scenario_path.as_deref(), profile)?;
        b.overrides.extend(args.set.iter().cloned());
        (b.label, b.text, b.base, b.overrides, b.provenance)
    };
    let base = base.as_path();
    // Fail before computing if the plot is impossible.
    if args.plot.is_some() && params.len() != 1 {
        anyhow::bail!(
            "--plot draws cost against one parameter; got {}",
            params.len()
        );
    }
    if let (Some(plot), Target::File(out)) = (&args.plot, &target)
        && plot == out
    {
        anyhow::bail!(
            "--plot and --output both name {}; give them different files",
            plot.display()
        );
    }
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.same_key(p)) {
            anyhow::bail!("--param {} is given twice; give each key one range", p.key);
        }
    }
    let mc = args.mc.map(|requests| {
        let seed = args.seed.unwrap_or_else(|| {
            let s = crate::sim::rng::fresh_seed();
            crate::output::ui::info(&format!(
                "Monte Carlo seed {s} (repeat this run with --seed {s})"
            ));
            s
        });
        crate::sim::McOptions {
            requests,
            runs: 0,
            seed,
        }
    });
    let started = std::time::Instant::now();
    let result = sweep::run(&label, &text, base, &sets, &params, &args.chains, mc)?;
    crate::output::ui::detail(&format!(
        "{} rows (grid points × chains × patterns) in {:.2} s",
        count(result.rows.len() as f64),
        started.elapsed().as_secs_f64()
    ));
    if let Some(note) = &result.note {
        crate::output::ui::note(&note.to_string());
    }
    let bytes = match format {
        Format::Table => table::render(&layout(&result), table::Style::Terminal).into_bytes(),
        Format::Markdown => table::render(&layout(&result), table::Style::Markdown).into_bytes(),
        Format::Json => output::json::render(&result)?,
        Format::Csv => sweep_csv(&result)?,
    };
    if let Some(path) = &args.plot {
        let svg = output::plot::cost_chart(&result)?;
        output::write_file(path, svg.as_bytes(), "--plot")?;
    }
    let bytes = if provenance.is_empty() {
        bytes
    } else {
        super::from_config::with_provenance(bytes, format, &provenance)?
    };
    output::write(&target, &bytes)?;
    Ok(ExitStatus::Success)
}

fn sweep_csv(sweep: &Sweep) -> anyhow::Result<Vec<u8>> {
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
        header.extend(csv::steady_mc_columns());
    }
    header.push("incident_method".into());
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
            rec.extend(csv::steady_mc_cells(r.mc.as_ref()));
            rec.extend(csv::latency_cells(r.mc.as_ref()));
        }
        rec.push(r.incident_method.map_or("", |m| m.as_str()).into());
        w.write_record(&rec)?;
    }
    Ok(w.into_inner()?)
}

fn layout(sweep: &Sweep) -> Page {
    let has_incident = sweep.rows.iter().any(|r| r.incident_total_usd.is_some());
    let mut header: Vec<String> = sweep.params.clone();
    header.extend(["chain", "pattern", "$/1k req", "vs primary", "failed/1k"].map(String::from));
    if has_incident {
        header.extend(["incident USD", "x normal"].map(String::from));
    }
    if sweep.mc.is_some() {
        header.extend(STEADY_MC_HEADER.map(String::from));
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
