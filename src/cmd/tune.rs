//! `fallcost tune`: the cheapest resilience settings that meet an SLO.

use crate::cli::TuneArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::number::count;
use crate::ops::inputs;
use crate::ops::tune;
use crate::output::{self, ui};

/// Build the question ([`super::options::tune`]: the space, the constraints and the usage),
/// resolve the scenario ([`inputs::source`]), search, print or write the result.
///
/// Exit: 0 with a recommendation for every chain tuned, 1 when no point meets the
/// constraints on some chain. Errors (exit 2): a bad `--vary` or `--space`, invalid usage
/// settings or history, an invalid scenario or combination, an unwritable output.
pub fn run(args: &TuneArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
    let ask = super::options::tune(args)?;
    let source = inputs::source("tune", &args.source)?;
    super::compare::config_notices(&source.warnings, &source.skipped);
    super::compare::fit_notices(&source);
    let started = std::time::Instant::now();
    let bar = ui::progress_allowed().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "tuning {bar:40} {percent:>3}% {human_pos}/{human_len} candidates priced, eta {eta}",
            )
            .expect("a valid template"),
        );
        bar
    });
    let tick = |done: u64, total: u64| {
        if let Some(b) = &bar {
            b.set_length(total);
            b.set_position(done);
        }
    };
    let result = tune::run_with(&source, &ask, &tune::Progress::new(&tick));
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let result = result?;
    let took = started.elapsed().as_secs_f64();
    let candidates: usize = result.chains.iter().map(|c| c.candidates).sum();
    ui::detail(&format!(
        "{} candidates (combinations × patterns) in {took:.2} s",
        count(candidates as f64)
    ));
    let bytes = output::tune::render(&result, format)?;
    output::write(target, &bytes)?;
    Ok(if result.chains.iter().all(|c| c.recommended.is_some()) {
        ExitStatus::Success
    } else {
        ExitStatus::Findings
    })
}
