//! The command line's options resolved once, as ripgrep's `hiargs` from its `lowargs`: the
//! output format and target (`--format`, `--output` and its extension), the Monte Carlo
//! budget and seed (`--mc`, `--mc-runs`, `--seed`, a fresh seed drawn when none is given)
//! and the terminal settings (`--quiet`, `--verbose`, `--color`, `NO_COLOR`). Resolved by
//! [`resolve`] in [`crate::run`] before any subcommand runs; no command rebuilds them. Each
//! operation's own request is built here too, from its arguments ([`check`], [`diff`],
//! [`tune`]): the only place a command's options are built.

use crate::cli::{CheckArgs, Cli, Command, DiffArgs, TuneArgs, UsageSide};
use crate::ops::diff::DiffRequest;
use crate::ops::inputs::{Project, UsageFlags};
use crate::ops::{check::CheckFlags, tune::Ask};
use crate::output::{Format, OutputTarget, ui::Ui};
use crate::sim::{self, McOptions};
use crate::tune::Goals;
use crate::tune::space::{parse_space_file, parse_vary};

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
    let (format, target) = match (cli.command.output_args(), &cli.command) {
        (Some(o), _) => (super::format_of(o)?, OutputTarget::parse(&o.output)),
        (None, Command::Diff(a)) => (Format::Table, OutputTarget::parse(&a.output)),
        (None, _) => (Format::Table, OutputTarget::Stdout),
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
        // diff's seed defaults to 1 (a pull request's comment stays the same from push to push)
        Command::Diff(a) => mc(a.mc, a.mc_runs, sim::DEFAULT_RUNS, Some(a.seed)),
        _ => None,
    };
    Ok(RunOptions {
        ui,
        format,
        target,
        mc,
    })
}

/// `fallcost check`'s request: its flags, without the output format.
pub fn check(args: &CheckArgs) -> CheckFlags {
    CheckFlags {
        paths: args.paths.clone(),
        max_ratio: args.max_ratio,
        source: args.source.clone(),
        prefix: args.prefix,
        hit_rate: args.hit_rate,
        incident: args.incident.clone(),
        rate: args.rate,
        session_length: args.session_length,
        deny_warnings: args.deny_warnings,
        allow: args.allow.clone(),
        max_usd_per_1k: args.max_usd_per_1k,
        fit: args.fit.clone(),
    }
}

/// `fallcost diff`'s request, its Monte Carlo settings from `opts` ([`resolve`]).
///
/// Errors (exit 2): without --base-ref, a number of paths other than two.
pub fn diff<'a>(args: &'a DiffArgs, opts: &RunOptions) -> anyhow::Result<DiffRequest<'a>> {
    let (base, head) = match (&args.base_ref, args.paths.as_slice()) {
        (Some(_), paths) => (Vec::new(), paths.to_vec()),
        (None, [b, h]) => (vec![b.clone()], vec![h.clone()]),
        (None, p) => anyhow::bail!(
            "fallcost diff takes two paths, BASE and HEAD (got {}); or HEAD's paths with --base-ref REF",
            p.len()
        ),
    };
    Ok(DiffRequest {
        base,
        head,
        base_ref: args.base_ref.clone(),
        source: &args.source,
        pattern: args.pattern,
        requests_per_month: args.requests_per_month.map(|n| n as f64),
        budget: args.budget,
        incidents: args.incidents.clone(),
        years: args.years,
        seed: args.seed,
        thresholds: args.fail_above.clone(),
        hold_usage: args.usage == UsageSide::Head,
        mc: opts.mc.map(|m| m.opts),
    })
}

/// `fallcost tune`'s question: the space (`--vary`, `--space`), the constraints, and the usage
/// (flags, else fallcost.toml's `[usage]`: requests per month, budget, history, settled by
/// [`Project::usage`]).
///
/// Errors (exit 2): a bad `--vary` or `--space`, invalid usage settings or history.
pub fn tune(args: &TuneArgs) -> anyhow::Result<Ask> {
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
    let usage = Project::of(&args.source).usage(&UsageFlags {
        requests_per_month: args.requests_per_month,
        history: args.history.clone(),
    })?;
    let requests_per_month = usage
        .requests_per_month
        .map(|r| match args.requests_per_month {
            Some(_) => (r, "--requests-per-month".to_string()),
            None => (r, format!("{} [usage] requests_per_month", usage.file)),
        });
    let history = match usage.history.as_slice() {
        [] => None,
        files => {
            let h = crate::input::history::load(files, &Default::default())?;
            Some((
                h,
                files.iter().map(|p| crate::input::shown_path(p)).collect(),
            ))
        }
    };
    Ok(Ask {
        chains: args.source.chains.clone(),
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
    })
}

/// The `fallcost compare` flags that read the inputs `args` reads, one word each: the start
/// of tune's reproduce lines.
fn compare_inputs(args: &TuneArgs) -> Vec<String> {
    let a = &args.source;
    let mut w = Vec::new();
    let mut flag = |name: &str, value: String| {
        w.push(name.to_string());
        w.push(value);
    };
    if let Some(s) = &a.scenario {
        flag("--scenario", s.display().to_string());
    }
    for c in &a.config {
        flag("--config", c.display().to_string());
    }
    if let Some(p) = &a.pricing {
        flag("--pricing", p.clone());
    }
    if let Some((i, o)) = a.profile {
        flag("--profile", format!("{i}/{o}"));
    }
    if let Some(f) = &a.config_file {
        flag("--config-file", f.display().to_string());
    }
    for (k, v) in &a.set {
        flag("--set", format!("{k}={v}"));
    }
    w
}
