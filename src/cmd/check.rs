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
    let plan = check::plan(&flags(args))?;
    let report = check::run(&plan);
    crate::output::check::print(&report, args.format, opts.ui)?;
    Ok(report.exit_status(plan.deny_warnings))
}

/// The check's flags, as the operation takes them (everything but the output format).
fn flags(args: &CheckArgs) -> check::CheckFlags {
    check::CheckFlags {
        paths: args.paths.clone(),
        max_ratio: args.max_ratio,
        pricing: args.pricing.clone(),
        profile: args.profile,
        prefix: args.prefix,
        hit_rate: args.hit_rate,
        incident: args.incident.clone(),
        rate: args.rate,
        session_length: args.session_length,
        config_file: args.config_file.clone(),
        deny_warnings: args.deny_warnings,
        allow: args.allow.clone(),
        max_usd_per_1k: args.max_usd_per_1k,
    }
}
