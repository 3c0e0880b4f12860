//! `fallcost diff`: price BASE and HEAD ([`crate::ops::diff`]), render the change
//! ([`crate::output::diff`]), exit 1 when a threshold is crossed.

use crate::cli::DiffArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::output::{self, ui};

/// Run the diff and print it.
///
/// Errors (exit 2): without --base-ref, a number of paths other than two; everything
/// [`crate::ops::diff::diff`] refuses; an output that cannot be written.
pub fn run(args: &DiffArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let req = super::options::diff(args, opts)?;
    let report = crate::ops::diff::diff(&req)?;
    let text = if args.only_increases && !report.has_increase() && report.crossed.is_empty() {
        ui::note(
            "--only-increases: no chain costs or fails more in HEAD and no threshold is crossed; nothing printed",
        );
        String::new()
    } else {
        output::diff::render_diff(&report, args.format)?
    };
    output::write(&opts.target, text.as_bytes())?;
    Ok(if report.crossed.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Findings
    })
}
