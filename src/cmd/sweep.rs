//! `fallcost sweep`: a scenario recomputed over a grid of parameter values.

use crate::cli::SweepArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::number::count;
use crate::ops::inputs;
use crate::ops::sweep::{self, Param};
use crate::output::{self, OutputTarget, ui};

/// Parse the ranges, resolve the scenario ([`inputs::source`]), run the sweep, print or write
/// it, and draw `--plot`.
///
/// Errors: a bad range, an invalid scenario at any grid point, an unwritable output.
pub fn run(args: &SweepArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
    let params: Vec<Param> = args
        .param
        .iter()
        .map(|p| Param::parse(p).map_err(|e| anyhow::anyhow!("--param {e}")))
        .collect::<Result<_, _>>()?;
    let source = inputs::source("sweep", &args.source)?;
    super::compare::config_notices(&source.warnings, &source.skipped);
    super::compare::fit_notices(&source);
    refuse_before_computing(args, &params, target)?;
    if let Some(mc) = &opts.mc {
        mc.announce();
    }
    let started = std::time::Instant::now();
    let (s, mc) = (&source, opts.mc.map(|m| m.opts));
    let result = sweep::run(
        &s.label,
        &s.text,
        &s.base,
        &s.prices,
        &s.overrides,
        &params,
        &args.source.chains,
        mc,
    )?;
    let rows = count(result.rows.len() as f64);
    let took = started.elapsed().as_secs_f64();
    ui::detail(&format!(
        "{rows} rows (grid points × chains × patterns) in {took:.2} s"
    ));
    if let Some(note) = &result.note {
        ui::note(&note.to_string());
    }
    let mut bytes = output::sweep::render(&result, format)?;
    if let Some(path) = &args.plot {
        let svg = output::plot::cost_chart(&result)?;
        output::write_file(path, svg.as_bytes(), "--plot")?;
    }
    if !source.provenance.is_empty() {
        bytes = output::provenance::with_provenance(bytes, format, &source.provenance)?;
    }
    output::write(target, &bytes)?;
    Ok(ExitStatus::Success)
}

/// Refuse, before computing: a `--plot` of more than one parameter or onto the `--output`
/// file, and a key given twice (in that order).
fn refuse_before_computing(
    args: &SweepArgs,
    params: &[Param],
    target: &OutputTarget,
) -> anyhow::Result<()> {
    if args.plot.is_some() && params.len() != 1 {
        anyhow::bail!(
            "--plot draws cost against one parameter; got {}",
            params.len()
        );
    }
    super::plot_apart(args.plot.as_deref(), target)?;
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.same_key(p)) {
            anyhow::bail!("--param {} is given twice; give each key one range", p.key);
        }
    }
    Ok(())
}
