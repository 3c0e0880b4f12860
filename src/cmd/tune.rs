//! `fallcost tune`: the cheapest resilience settings that meet an SLO.

use crate::cli::TuneArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::number::count;
use crate::ops::inputs::{self, Flags};
use crate::ops::tune::{self, Ask};
use crate::output::{self, ui};
use crate::tune::Goals;
use crate::tune::space::{parse_space_file, parse_vary};

/// The `fallcost compare` flags that read the inputs `args` reads, one word each: the start
/// of tune's reproduce lines.
fn compare_inputs(args: &TuneArgs) -> Vec<String> {
    let mut w = Vec::new();
    if let Some(s) = &args.scenario {
        w.push("--scenario".to_string());
        w.push(s.display().to_string());
    }
    for c in &args.config {
        w.push("--config".to_string());
        w.push(c.display().to_string());
    }
    if let Some((i, o)) = args.profile {
        w.push("--profile".to_string());
        w.push(format!("{i}/{o}"));
    }
    if let Some(f) = &args.config_file {
        w.push("--config-file".to_string());
        w.push(f.display().to_string());
    }
    for (k, v) in &args.set {
        w.push("--set".to_string());
        w.push(format!("{k}={v}"));
    }
    w
}

/// Parse the space and the constraints, resolve the scenario ([`inputs::source`]) and the
/// usage (flags, else fallcost.toml's `[usage]`: requests per month, budget, history), search,
/// print or write the result.
///
/// Exit: 0 with a recommendation for every chain tuned, 1 when no point meets the
/// constraints on some chain. Errors (exit 2): a bad `--vary` or `--space`, invalid usage
/// settings or history, an invalid scenario or combination, an unwritable output.
pub fn run(args: &TuneArgs, opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let (format, target) = opts.output();
    let vary = args
        .vary
        .iter()
        .map(|v| parse_vary(v).map_err(|e| anyhow::anyhow!("--vary {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let space_file = match &args.space {
        Some(path) => {
            let text = crate::input::read_text(path)?;
            Some(
                parse_space_file(&path.display().to_string(), &text)
                    .map_err(|e| anyhow::anyhow!("--space {e}"))?,
            )
        }
        None => None,
    };
    let source = inputs::source(&Flags {
        command: "tune",
        scenario: args.scenario.as_deref(),
        config: &args.config,
        profile: args.profile,
        pricing: None,
        set: &args.set,
        config_file: args.config_file.as_deref(),
    })?;
    // fallcost.toml [usage]: traffic, budget and history, as `diff`, `compare` and `check`
    // read them (its incident overrides are already in `source`); a flag wins.
    let usage = crate::input::settings::usage_settings(args.config_file.as_deref())?;
    let file = if usage.file.is_empty() {
        "fallcost.toml".to_string()
    } else {
        usage.file.clone()
    };
    let requests_per_month = match (args.requests_per_month, usage.requests_per_month) {
        (Some(r), _) => Some((r, "--requests-per-month".to_string())),
        (None, Some(r)) => Some((r, format!("{file} [usage] requests_per_month"))),
        (None, None) => None,
    };
    let history_files = if args.history.is_empty() {
        usage.history.clone()
    } else {
        args.history.clone()
    };
    let history = if history_files.is_empty() {
        None
    } else {
        let h = crate::input::history::load(&history_files, &Default::default())?;
        let shown = history_files
            .iter()
            .map(|p| crate::input::shown_path(p))
            .collect();
        Some((h, shown))
    };
    super::compare::config_notices(&source.warnings, &source.skipped);
    let ask = Ask {
        chains: args.chains.clone(),
        candidates: args.candidate.clone(),
        space_file,
        vary,
        requests_per_month,
        incidents_per_year: args.incidents_per_year,
        goals: Goals {
            availability: args.availability,
            p99_s: args.p99,
            max_ratio: args.max_ratio,
            budget_usd_month: args.budget.or(usage.budget),
        },
        confirm_batches: args.confirm,
        history,
        inputs: compare_inputs(args),
        budget_s: args.budget_s,
    };
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
