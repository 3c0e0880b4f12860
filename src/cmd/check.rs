//! `fallcost check`: the CI gate over every fallback chain under the given paths
//! ([`crate::ops::check`], rendered by [`crate::output::check`]).

use crate::cli::CheckArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::ops::check;

/// Resolve the flags, check every file, print the findings (standard output) and the input
/// errors (standard error, one line each), and return the exit status: 0 clean, 1 findings (or
/// warnings under `--deny-warnings`), 2 input errors.
///
/// Errors: a `--pricing` table that cannot be loaded (before any file is read); an output that
/// cannot be written.
pub fn run(args: &CheckArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let plan = check::plan(&super::options::check(args))?;
    let report = check::run(&plan);
    crate::output::check::print(&report, args.format, opts.ui)?;
    Ok(report.exit_status(plan.deny_warnings))
}
