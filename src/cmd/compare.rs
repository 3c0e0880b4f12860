//! `fallcost compare`: the four patterns on every chain of a scenario.

use crate::cli::CompareArgs;
use crate::error::ExitStatus;
use crate::input::scenario;
use crate::output;
use crate::report::Report;

/// Load the scenario, run the analytic engine, print or write the report.
///
/// Errors: an invalid scenario or price table ([`crate::error::InputError`]); an output that
/// cannot be written.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitStatus> {
    let (format, target) = super::output_of(&args.output);
    let mut scenario = scenario::load(&args.scenario, &args.set)?;
    scenario::select_chains(&mut scenario, &args.chains).map_err(anyhow::Error::msg)?;
    let report = Report::analytic(&scenario);
    if let Some(field) = report.first_non_finite() {
        anyhow::bail!(
            "{}: {field} is not a finite number; the scenario's values are too large to price",
            args.scenario.display()
        );
    }
    let bytes = output::render(&report, format)?;
    output::write(&target, &bytes)?;
    Ok(ExitStatus::Success)
}
