//! `fallcost compare`: the four patterns on every chain of a scenario, analytic and, with
//! `--mc`, simulated.

use crate::cli::CompareArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::ops::inputs;
use crate::output::{self, ui};

/// Resolve the scenario ([`inputs::resolve`]), run the analytic engine (and the Monte Carlo
/// engine with `--mc`, [`super::simulate`]), print or write the report.
///
/// Errors: an invalid scenario or price table ([`crate::error::InputError`]); an output that
/// cannot be written.
pub fn run(args: &CompareArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
    super::plot_apart(args.plot.as_deref(), target)?;
    let mut inputs = inputs::resolve("compare", &args.source)?;
    config_notices(&inputs.warnings, &inputs.skipped);
    if let Some(d) = &args.drill {
        crate::input::scenario::drill(&mut inputs.scenario, d, &inputs.label)
            .map_err(anyhow::Error::msg)?;
    }
    for w in crate::ops::compare::fit_warnings(&inputs.scenario, &crate::check::fit::today()) {
        ui::warn(&w);
    }
    if !args.incidents.is_empty() {
        return super::history::run(args, opts, &inputs.scenario, inputs.partial.is_some());
    }
    let n = inputs.scenario.chains.len();
    let s = if n == 1 { "" } else { "s" };
    ui::detail(&format!(
        "price table {}; {n} chain{s}",
        inputs.scenario.pricing
    ));
    if let Some(hint) = nothing_fails(&inputs) {
        ui::note(&hint);
    }
    if let Some(mc) = &opts.mc {
        super::simulate::refuse_too_many_runs(&inputs.scenario, mc)?;
    }
    let started = std::time::Instant::now();
    let mut report = crate::ops::compare::analytic(&inputs.scenario);
    if let Some(note) = &inputs.partial {
        report.omit_blended();
        ui::note(note);
    }
    if let Some(field) = report.first_non_finite() {
        anyhow::bail!(
            "{}: {field} is not a finite number; the scenario's values are too large to price",
            inputs.label
        );
    }
    if let Some(mc) = &opts.mc {
        super::simulate::simulate(&mut report, mc, started)?;
    }
    let mut bytes = output::render(&report, format)?;
    if !inputs.provenance.is_empty() {
        bytes = output::provenance::with_provenance(bytes, format, &inputs.provenance)?;
    }
    if let Some(path) = &args.plot {
        let svg = output::compare_plot::compare_chart(&report);
        output::write_file(path, svg.as_bytes(), "--plot")?;
    }
    output::write(target, &bytes)?;
    Ok(ExitStatus::Success)
}

/// [`crate::ops::compare::fit_warnings`] of `source`'s scenario as written, on standard
/// error (`sweep`, `tune`: a source they parse again per point); nothing when it does not
/// parse (the command's own parse then says why).
pub(super) fn fit_notices(source: &crate::ops::inputs::Source) {
    if let Ok(s) = source.parse() {
        for w in crate::ops::compare::fit_warnings(&s, &crate::check::fit::today()) {
            ui::warn(&w);
        }
    }
}

/// The hint for a scenario read from gateway configs alone (no `--scenario`, no fallcost.toml
/// `scenario`) in which nothing fails: every failure and incident figure would print as 0.
fn nothing_fails(inputs: &inputs::Inputs) -> Option<String> {
    let s = &inputs.scenario;
    let fails = s
        .chains
        .iter()
        .any(|c| c.links.iter().any(|l| l.failure_rate > 0.0));
    (inputs.label == "--config" && !fails && s.incident.is_none()).then(|| {
        "the configs give the chains but no failure rate and no incident, so every failure figure is 0: \
         give --scenario FILE (or fallcost.toml [compare] scenario) without [[chain]], with a \
         [steady] failure_rate or an [incident], to price failures"
            .to_string()
    })
}

/// Say on standard error what the gateway configs leave out: each fallback that names no group
/// (a warning: LiteLLM's router skips it), each file of a `--config` folder that is no config
/// (a note, with why). Shared by `compare`, `sweep` and `tune`.
pub(super) fn config_notices(warnings: &[String], skipped: &[String]) {
    for w in warnings {
        ui::warn(w);
    }
    for s in skipped {
        ui::note(&format!("--config: skipped {s}"));
    }
}
