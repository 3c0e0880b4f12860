//! The Monte Carlo step of `fallcost compare --mc`: the incident-window budget checked, the
//! seed announced, the simulation run ([`crate::ops::compare::simulate`]) with a progress bar
//! for long runs, and its size and time reported.

use std::time::Instant;

use crate::cmd::options::Mc;
use crate::model::Scenario;
use crate::number::count;
use crate::output::ui;
use crate::report::Report;

/// Simulated requests above which a progress bar is worth showing (about a second of work).
const PROGRESS_ABOVE: u64 = 30_000_000;

/// With `--mc-runs` given, an error (exit 2) when its incident windows are more than the
/// simulation takes on for `scenario`, naming what is allowed
/// ([`crate::report::too_many_runs`]). `compare` calls it before pricing anything, so a
/// flag out of range fails at once, not after the analytic engine's breaker figures.
pub fn refuse_too_many_runs(scenario: &Scenario, mc: &Mc) -> anyhow::Result<()> {
    let over = crate::report::max_incident_runs(scenario).is_some_and(|max| mc.opts.runs > max);
    if mc.runs_given && over {
        anyhow::bail!("{}", crate::report::too_many_runs(scenario, mc.opts.runs));
    }
    Ok(())
}

/// Simulate `report`'s chains with the budget and seed of `mc`, filling its Monte Carlo rows;
/// `started` is when the command began pricing (the time reported covers both engines).
///
/// When the default `--mc-runs` asks for more incident windows than the simulation takes on,
/// a warning, and the rest is simulated (a given `--mc-runs` the caller refused first with
/// [`refuse_too_many_runs`]).
pub fn simulate(report: &mut Report, mc: &Mc, started: Instant) -> anyhow::Result<()> {
    let opts = mc.opts;
    let (work, incident_ok) = crate::ops::compare::mc_work(report, &opts);
    if !incident_ok {
        // The default --mc-runs: price the rest and say why the incident windows are missing.
        ui::warn(&format!(
            "incident windows not simulated: {} (the default --mc-runs)",
            report.too_many_runs(opts.runs)
        ));
    }
    mc.announce();
    let bar = (work > PROGRESS_ABOVE && ui::progress_allowed()).then(|| {
        let bar = indicatif::ProgressBar::new(work);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "simulating {bar:40} {percent:>3}% {human_pos}/{human_len} requests, eta {eta}",
            )
            .expect("a valid template"),
        );
        bar
    });
    crate::ops::compare::simulate(report, &opts, &mut |n| {
        if let Some(b) = &bar {
            b.inc(n);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    ui::detail(&format!(
        "simulated {} requests with seed {} in {:.2} s",
        count(work as f64),
        opts.seed,
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}
