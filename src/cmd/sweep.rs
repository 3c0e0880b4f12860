//! `fallcost sweep`: a scenario recomputed over a grid of parameter values.

use std::path::Path;

use crate::cli::SweepArgs;
use crate::cmd::options::Options;
use crate::error::ExitStatus;
use crate::input::read_text;
use crate::number::count;
use crate::ops::sweep::{self, Param};
use crate::output::{self, Target};

/// Parse the ranges, run the sweep, print or write it, and draw `--plot`.
///
/// Errors: a bad range, an invalid scenario at any grid point, an unwritable output.
pub fn run(args: &SweepArgs, opts: &Options) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
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
        let mut b =
            crate::input::gateway::price::build_text(&configs, scenario_path.as_deref(), profile)?;
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
    if let (Some(plot), Target::File(out)) = (&args.plot, target)
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
    if let Some(mc) = &opts.mc {
        mc.announce();
    }
    let mc = opts.mc.map(|m| m.opts);
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
    let bytes = output::sweep::render(&result, format)?;
    if let Some(path) = &args.plot {
        let svg = output::plot::cost_chart(&result)?;
        output::write_file(path, svg.as_bytes(), "--plot")?;
    }
    let bytes = if provenance.is_empty() {
        bytes
    } else {
        crate::output::provenance::with_provenance(bytes, format, &provenance)?
    };
    output::write(target, &bytes)?;
    Ok(ExitStatus::Success)
}
