//! The command line's options resolved once, as ripgrep's `hiargs` from its `lowargs`: the
//! output format and target (`--format`, `--output` and its extension), the Monte Carlo
//! budget and seed (`--mc`, `--mc-runs`, `--seed`, a fresh seed drawn when none is given)
//! and the terminal settings (`--quiet`, `--verbose`, `--color`, `NO_COLOR`). Resolved by
//! [`resolve`] in [`crate::run`] before any subcommand runs; no command rebuilds them.

use crate::cli::{Cli, Command};
use crate::output::{Format, OutputTarget, ui::Ui};
use crate::sim::{self, McOptions};

/// Everything the subcommands read from the command line beyond their own inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// Verbosity and colour of standard output and standard error.
    pub ui: Ui,
    /// The output format of `compare`, `sweep` and `prices`: `--format`, else the `--output`
    /// file's extension, else a table ([`super::format_of`]). A table for other commands.
    pub format: Format,
    /// Where the output goes (`--output`; standard output for other commands).
    pub target: OutputTarget,
    /// With `--mc` (`compare`, `sweep`): the Monte Carlo budget and seed.
    pub mc: Option<Mc>,
}

/// The Monte Carlo settings of one run, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mc {
    /// Requests per chain (`--mc`), incident windows per chain and pattern (`--mc-runs`, the
    /// default [`sim::DEFAULT_RUNS`] for `compare`; 0 for `sweep`, whose Monte Carlo is steady
    /// state only) and the seed (`--seed`, else a fresh one).
    pub opts: McOptions,
    /// Whether `--seed` was given (else [`Mc::announce`] prints the drawn one).
    pub seed_given: bool,
    /// Whether `--mc-runs` was given (asked for, a budget too large is refused rather than
    /// warned about).
    pub runs_given: bool,
}

impl Mc {
    /// Tell the user the seed drawn for this run (at `info` level), when `--seed` was not
    /// given, so the run can be repeated.
    pub fn announce(&self) {
        if !self.seed_given {
            let s = self.opts.seed;
            crate::output::ui::info(&format!(
                "Monte Carlo seed {s} (repeat this run with --seed {s})"
            ));
        }
    }
}

impl RunOptions {
    /// The output format and target.
    pub fn output(&self) -> (Format, &OutputTarget) {
        (self.format, &self.target)
    }
}

/// Resolve the options of `cli`, whose terminal settings are `ui` (already in force, so an
/// error here is printed with them).
///
/// Errors (exit 2): a `--format` that contradicts the `--output` extension, or an extension
/// that names no format ([`super::format_of`]), before anything runs.
pub fn resolve(cli: &Cli, ui: Ui) -> anyhow::Result<RunOptions> {
    let (format, target) = match cli.command.output_args() {
        Some(o) => (super::format_of(o)?, OutputTarget::parse(&o.output)),
        None => (Format::Table, OutputTarget::Stdout),
    };
    let mc = |requests: Option<u64>, runs: Option<u64>, default_runs: u64, seed: Option<u64>| {
        requests.map(|requests| Mc {
            opts: McOptions {
                requests,
                runs: runs.unwrap_or(default_runs),
                seed: seed.unwrap_or_else(sim::rng::fresh_seed),
            },
            seed_given: seed.is_some(),
            runs_given: runs.is_some(),
        })
    };
    let mc = match &cli.command {
        Command::Compare(a) => mc(a.mc, a.mc_runs, sim::DEFAULT_RUNS, a.seed),
        Command::Sweep(a) => mc(a.mc, None, 0, a.seed),
        _ => None,
    };
    Ok(RunOptions {
        ui,
        format,
        target,
        mc,
    })
}
