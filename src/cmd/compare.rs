//! `fallcost compare`: the four patterns on every chain of a scenario, analytic and, with
//! `--mc`, simulated.

use std::io::IsTerminal;

use crate::cli::CompareArgs;
use crate::error::ExitStatus;
use crate::input::scenario;
use crate::output;
use crate::report::Report;
use crate::sim::{self, McOptions};

/// Simulated requests above which a progress bar is worth showing (about a second of work).
const PROGRESS_ABOVE: u64 = 30_000_000;

/// Load the scenario, run the analytic engine (and the Monte Carlo engine with `--mc`), print
/// or write the report.
///
/// Errors: an invalid scenario or price table ([`crate::error::InputError`]); an output that
/// cannot be written.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitStatus> {
    let (format, target) = super::output_of(&args.output);
    // Project settings (fallcost.toml [compare]): a flag given wins.
    let settings = crate::input::settings::compare_settings(args.config_file.as_deref())?;
    let configs = if args.config.is_empty() && args.scenario.is_none() {
        settings.config.clone().unwrap_or_default()
    } else {
        args.config.clone()
    };
    let scenario_path = args.scenario.clone().or(settings.scenario.clone());
    let profile = args.profile.or(settings.profile);
    let (mut scenario, provenance) = if configs.is_empty() {
        let path = scenario_path.as_deref().ok_or_else(|| {
            anyhow::anyhow!(
                "the following required arguments were not provided: --scenario <PATH> or --config <FILE> (or `scenario`/`config` in fallcost.toml's [compare]; see `fallcost compare --help`)"
            )
        })?;
        if profile.is_some() && args.profile.is_some() {
            anyhow::bail!("--profile prices a gateway config: it needs --config");
        }
        (scenario::load(path, &args.set)?, Vec::new())
    } else {
        let built =
            super::from_config::build(&configs, scenario_path.as_deref(), profile, &args.set)?;
        (built.scenario, built.provenance)
    };
    let label = scenario_path
        .as_ref()
        .map_or_else(|| "--config".to_string(), |p| p.display().to_string());
    let partial =
        scenario::select_chains(&mut scenario, &args.chains).map_err(anyhow::Error::msg)?;
    let mut report = Report::analytic(&scenario);
    if let Some(note) = partial {
        report.omit_blended();
        eprintln!("fallcost: note: {note}");
    }
    if let Some(field) = report.first_non_finite() {
        anyhow::bail!(
            "{label}: {field} is not a finite number; the scenario's values are too large to price"
        );
    }
    if let Some(requests) = args.mc {
        let mut opts = McOptions {
            requests,
            runs: args.mc_runs.unwrap_or(sim::DEFAULT_RUNS),
            seed: 0,
        };
        let (work, incident_ok) = report.mc_work(&opts);
        if !incident_ok {
            // Asked for: refuse what cannot be run. The default: price the rest and say why
            // the incident windows are missing.
            if args.mc_runs.is_some() {
                anyhow::bail!("{}", report.too_many_runs(opts.runs));
            }
            eprintln!(
                "fallcost: incident windows not simulated: {} (the default --mc-runs)",
                report.too_many_runs(opts.runs)
            );
        }
        opts.seed = match args.seed {
            Some(s) => s,
            None => {
                let s = sim::rng::fresh_seed();
                eprintln!("fallcost: Monte Carlo seed {s} (repeat this run with --seed {s})");
                s
            }
        };
        let bar = (work > PROGRESS_ABOVE && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(work);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "simulating {bar:40} {percent:>3}% {human_pos}/{human_len} requests, eta {eta}",
                )
                .expect("a valid template"),
            );
            bar
        });
        report.simulate(&opts, &mut |n| {
            if let Some(b) = &bar {
                b.inc(n);
            }
        });
        if let Some(b) = bar {
            b.finish_and_clear();
        }
    }
    let mut bytes = output::render(&report, format)?;
    if !provenance.is_empty() {
        bytes = super::from_config::with_provenance(bytes, format, &provenance)?;
    }
    output::write(&target, &bytes)?;
    Ok(ExitStatus::Success)
}
