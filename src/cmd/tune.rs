//! `fallcost tune`: the cheapest resilience settings that meet an SLO.

use crate::cli::TuneArgs;
use crate::cmd::options::Options;
use crate::error::ExitStatus;
use crate::number::count;
use crate::ops::inputs::{self, Flags};
use crate::ops::tune::{self, Ask};
use crate::output::{self, ui};
use crate::tune::Goals;
use crate::tune::space::{parse_space_file, parse_vary};

/// Parse the space and the constraints, resolve the scenario ([`inputs::source`]), search,
/// print or write the result.
///
/// Exit: 0 with a recommendation for every chain tuned, 1 when no point meets the
/// constraints on some chain. Errors (exit 2): a bad `--vary` or `--space`, an invalid
/// scenario or combination, an unwritable output.
pub fn run(args: &TuneArgs, opts: &Options) -> anyhow::Result<ExitStatus> {
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
    super::compare::config_notices(&source.warnings, &source.skipped);
    let ask = Ask {
        chains: args.chains.clone(),
        candidates: args.candidate.clone(),
        space_file,
        vary,
        requests_per_month: args
            .requests_per_month
            .map(|r| (r, "--requests-per-month".to_string())),
        incidents_per_year: args.incidents_per_year,
        goals: Goals {
            availability: args.availability,
            p99_s: args.p99,
            max_ratio: args.max_ratio,
            budget_usd_month: args.budget,
        },
        confirm_batches: args.confirm,
    };
    let started = std::time::Instant::now();
    let result = tune::run(&source, &ask)?;
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
