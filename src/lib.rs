//! fallcost prices the resilience decisions teams make around LLM APIs: fallback chains,
//! hedged requests, cold prompt caches, gray failures and outages.
//!
//! Layout:
//! - [`input`]: the file formats (price tables in TOML or LiteLLM's JSON, scenarios, gateway
//!   configs), parsed strictly;
//! - [`model`]: the cost model of MODEL.md (analytic engine), with the failover policies;
//! - [`sim`]: the Monte Carlo engine (MODEL.md §9), which simulates the same model;
//! - [`report`]: the result shape every output renders; [`sweep`]: a scenario over a grid;
//! - [`output`]: table, Markdown, CSV and JSON;
//! - [`check`]: `fallcost check`, the CI gate over every fallback chain (scenarios, LiteLLM and
//!   Portkey configs under [`input::gateway`]);
//! - [`calibrate`]: `fallcost calibrate`, a scenario measured from request logs;
//! - [`cmd`]: one module per subcommand; [`cli`]: the command-line declaration.

#![warn(missing_docs)]

pub mod calibrate;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod error;
pub mod input;
pub mod model;
pub mod ops;
pub mod output;
pub mod report;
pub mod sim;
pub mod sweep;

use error::ExitStatus;

/// Run one parsed command line.
///
/// Errors: whatever the subcommand reports; `main` prints it on one line and exits 2.
pub fn run(cli: cli::Cli) -> anyhow::Result<ExitStatus> {
    output::ui::init(output::ui::from_flags(cli.quiet, cli.verbose, cli.color));
    if let Some(o) = cli.command.output_args() {
        // `-o x.csv --format json` is refused before anything runs.
        cmd::format_of(o)?;
    }
    match &cli.command {
        cli::Command::Compare(args) => cmd::compare::run(args),
        cli::Command::Prices(args) => cmd::prices::run(args),
        cli::Command::Sweep(args) => cmd::sweep::run(args),
        cli::Command::Check(args) => cmd::check::run(args),
        cli::Command::Bench(args) => cmd::bench::run(args),
        cli::Command::Calibrate(args) => cmd::calibrate::run(args),
        cli::Command::Completions(args) => cmd::completions::run_completions(args.shell),
        cli::Command::Man => cmd::completions::run_man(),
    }
}

/// Whether `err` is a write to a closed pipe (`fallcost … | head -1`), which is not an error.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
