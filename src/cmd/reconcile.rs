//! `fallcost reconcile`: read the exports ([`crate::input::bill`]), price them against the
//! bill ([`crate::ops::reconcile`]), add the scenario's prediction with `--scenario`, render
//! ([`crate::output::reconcile`]).

use crate::cli::ReconcileArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::input::pricing::{PricingRef, broad_name};
use crate::ops::inputs::Project;
use crate::ops::reconcile::{ReconcileInputs, over, reconcile};
use crate::output;

/// Reconcile the exports and print the result; exit 1 above `--fail-above`.
///
/// Errors: an unreadable or invalid export, price table, settings file, scenario or history;
/// exports with no billed amount; an output that cannot be written.
pub fn run(args: &ReconcileArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let bill = crate::input::bill::load(&args.exports)?;
    let spec = args.pricing.as_deref().unwrap_or(broad_name());
    let project = Project {
        file: args.config_file.as_deref(),
    };
    let table = project
        .prices()?
        .over(PricingRef::parse(spec, None).load()?);
    let pricing = project.bill()?;
    let mut report = reconcile(&ReconcileInputs {
        bill: &bill,
        table: &table,
        pricing: &pricing,
        band: args.band,
    })?;
    if let Some(path) = &args.scenario {
        let scenario = crate::input::scenario::load(path, &[])?;
        let history = if args.incidents.is_empty() {
            None
        } else {
            Some(crate::input::history::load(
                &args.incidents,
                &crate::input::history::StatuspageOptions::default(),
            )?)
        };
        let replay_inputs = crate::ops::history::ReplayInputs {
            files: args
                .incidents
                .iter()
                .map(|p| crate::input::shown_path(p))
                .collect(),
            minor_error_rate: crate::input::history::DEFAULT_MINOR_ERROR_RATE,
        };
        crate::ops::reconcile::scenario::check(
            &mut report,
            crate::ops::reconcile::scenario::ScenarioInputs {
                scenario: &scenario,
                chain: args.chain.as_deref(),
                history: history.as_ref().map(|h| (h, replay_inputs)),
            },
        )?;
    }
    let (format, target) = opts.output();
    output::write(target, &output::reconcile::render(&report, format)?)?;
    Ok(match args.fail_above {
        Some(limit) if over(&report, limit) => ExitStatus::Findings,
        _ => ExitStatus::Success,
    })
}
