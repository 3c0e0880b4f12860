//! `fallcost compare`: the four patterns on every chain of a scenario, analytic and, with
//! `--mc`, simulated.

use crate::cli::CompareArgs;
use crate::cmd::options::Options;
use crate::error::ExitStatus;
use crate::input::scenario;
use crate::output;

/// Simulated requests above which a progress bar is worth showing (about a second of work).
const PROGRESS_ABOVE: u64 = 30_000_000;

/// Load the scenario, run the analytic engine (and the Monte Carlo engine with `--mc`), print
/// or write the report.
///
/// Errors: an invalid scenario or price table ([`crate::error::InputError`]); an output that
/// cannot be written.
pub fn run(args: &CompareArgs, opts: &Options) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
    if let (Some(plot), output::Target::File(out)) = (&args.plot, target)
        && plot == out
    {
        anyhow::bail!(
            "--plot and --output both name {}; give them different files",
            plot.display()
        );
    }
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
        let built = crate::input::gateway::price::build(
            &configs,
            scenario_path.as_deref(),
            profile,
            &args.set,
        )?;
        (built.scenario, built.provenance)
    };
    let label = scenario_path
        .as_ref()
        .map_or_else(|| "--config".to_string(), |p| p.display().to_string());
    let partial =
        scenario::select_chains(&mut scenario, &args.chains).map_err(anyhow::Error::msg)?;
    if let Some(d) = &args.drill {
        scenario::drill(&mut scenario, d, &label).map_err(anyhow::Error::msg)?;
    }
    if !args.incidents.is_empty() {
        return crate::cmd::history::run(args, opts, &scenario, partial.is_some());
    }
    crate::output::ui::detail(&format!(
        "price table {}; {} chain{}",
        scenario.pricing,
        scenario.chains.len(),
        if scenario.chains.len() == 1 { "" } else { "s" }
    ));
    let started = std::time::Instant::now();
    let mut report = crate::ops::compare::analytic(&scenario);
    if let Some(note) = partial {
        report.omit_blended();
        crate::output::ui::note(&note.to_string());
    }
    if let Some(field) = report.first_non_finite() {
        anyhow::bail!(
            "{label}: {field} is not a finite number; the scenario's values are too large to price"
        );
    }
    if let Some(mc) = &opts.mc {
        let opts = mc.opts;
        let (work, incident_ok) = crate::ops::compare::mc_work(&report, &opts);
        if !incident_ok {
            // Asked for: refuse what cannot be run. The default: price the rest and say why
            // the incident windows are missing.
            if mc.runs_given {
                anyhow::bail!("{}", report.too_many_runs(opts.runs));
            }
            crate::output::ui::warn(&format!(
                "incident windows not simulated: {} (the default --mc-runs)",
                report.too_many_runs(opts.runs)
            ));
        }
        mc.announce();
        let bar = (work > PROGRESS_ABOVE && crate::output::ui::progress_allowed()).then(|| {
            let bar = indicatif::ProgressBar::new(work);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "simulating {bar:40} {percent:>3}% {human_pos}/{human_len} requests, eta {eta}",
                )
                .expect("a valid template"),
            );
            bar
        });
        crate::ops::compare::simulate(&mut report, &opts, &mut |n| {
            if let Some(b) = &bar {
                b.inc(n);
            }
        });
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        crate::output::ui::detail(&format!(
            "simulated {} requests with seed {} in {:.2} s",
            crate::number::count(work as f64),
            opts.seed,
            started.elapsed().as_secs_f64()
        ));
    }
    let mut bytes = output::render(&report, format)?;
    if !provenance.is_empty() {
        bytes = crate::output::provenance::with_provenance(bytes, format, &provenance)?;
    }
    if let Some(path) = &args.plot {
        let svg = output::compare_plot::compare_chart(&report);
        output::write_file(path, svg.as_bytes(), "--plot")?;
    }
    output::write(target, &bytes)?;
    Ok(ExitStatus::Success)
}
