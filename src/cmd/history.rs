//! `fallcost compare --incidents FILE [--years N]`: read the history, replay it on the
//! scenario's chains ([`crate::ops::history`]), render it ([`crate::output::history`]).

use crate::cli::CompareArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::input::history::{DEFAULT_MINOR_ERROR_RATE, ImpactModel, StatuspageOptions};
use crate::model::Scenario;
use crate::ops::history::{ReplayInputs, YearsRequest};
use crate::output;

/// Replay the `--incidents` files on `scenario` (its chains already selected; `partial`: only
/// some of them, so no blended rows) and print or write the result.
///
/// Errors: a history file that cannot be read or is invalid, a provider no chain uses, a
/// scenario without `[incident]` ([`crate::ops::history::replay`]); an output that cannot be
/// written.
pub fn run(
    args: &CompareArgs,
    opts: &RunOptions,
    scenario: &Scenario,
    partial: bool,
) -> anyhow::Result<ExitStatus> {
    let minor_error_rate = args.minor_error_rate.unwrap_or(DEFAULT_MINOR_ERROR_RATE);
    let read = StatuspageOptions {
        provider: args.provider.clone(),
        components: args.components.clone(),
        impact: ImpactModel {
            minor_error_rate,
            ..ImpactModel::default()
        },
        skip_open: args.skip_open,
    };
    let history = crate::input::history::load(&args.incidents, &read)?
        .within(args.since, args.until)
        .map_err(|m| crate::error::InputError {
            file: "--since/--until".into(),
            location: None,
            field: None,
            message: m.to_string(),
            kind: crate::error::InputErrorKind::Invalid,
        })?;
    let inputs = ReplayInputs {
        files: args
            .incidents
            .iter()
            .map(|p| crate::input::shown_path(p))
            .collect(),
        minor_error_rate,
    };
    let mut report = crate::ops::history::replay(scenario, &history, &inputs)?;
    if partial {
        report.omit_blended();
    }
    let (format, target) = opts.output();
    let pieces = match args.years {
        Some(years) => {
            let seed = args.seed.unwrap_or_else(crate::sim::rng::fresh_seed);
            if args.seed.is_none() {
                output::ui::info(&format!(
                    "years seed {seed} (repeat this run with --seed {seed})"
                ));
            }
            let request = YearsRequest {
                years,
                seed,
                cluster: args.cluster,
            };
            // the years, and meanwhile the parts of the output they do not change (a long
            // history's rows: most of it)
            let (simulated, ahead) = rayon::join(
                || crate::ops::history::simulate_years(scenario, request, &report),
                || output::history::ahead(&report, format),
            );
            crate::ops::history::add_years(&mut report, simulated?);
            output::history::render_pieces_with(&report, format, ahead?)?
        }
        None => vec![output::history::render(&report, format)?],
    };
    output::write_pieces(target, &pieces)?;
    // the process ends here: a long history's report (a row per window × chain × pattern, each
    // with its strings) and document are left to the exit, not freed one by one
    std::mem::forget((report, history, pieces));
    Ok(ExitStatus::Success)
}
