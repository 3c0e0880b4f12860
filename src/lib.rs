//! fallcost prices the resilience decisions teams make around LLM APIs: fallback chains,
//! hedged requests, cold prompt caches, gray failures and outages.
//!
//! Layout:
//! - [`input`]: the file formats (price tables in TOML or LiteLLM's JSON, scenarios, gateway
//!   configs), parsed strictly;
//! - [`model`]: the cost model of MODEL.md (analytic engine), with the failover policies;
//! - [`sim`]: the Monte Carlo engine (MODEL.md §9), which simulates the same model;
//! - [`report`]: the result shape every output renders; [`sweep`]: a sweep's result;
//! - [`ops`]: the operations behind the subcommands (sweep, check, prices), returning results;
//! - [`output`]: table, Markdown, CSV and JSON, one module per document;
//! - [`number`]: how numbers and durations print (a leaf, used by every layer);
//! - [`suggest`]: "did you mean …?" for misspelled keys and model ids (a leaf: [`input`] and
//!   [`model`] use it);
//! - [`check`]: `fallcost check`, the CI gate over every fallback chain (scenarios, LiteLLM and
//!   Portkey configs under [`input::gateway`]);
//! - [`calibrate`]: `fallcost calibrate`, a scenario measured from request logs;
//! - [`cmd`]: one module per subcommand (parse, call the operation, render), with the
//!   options resolved once ([`cmd::options`]); [`cli`]: the command-line declaration.

#![warn(missing_docs)]

pub mod calibrate;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod error;
pub mod figures;
pub mod input;
pub mod model;
pub mod number;
pub mod ops;
pub mod output;
pub mod report;
pub mod sim;
pub mod suggest;
pub mod sweep;
pub mod tune;

use error::ExitStatus;

/// Run one parsed command line.
///
/// Errors: whatever the subcommand reports; `main` prints it on one line and exits 2.
pub fn run(cli: cli::Cli) -> anyhow::Result<ExitStatus> {
    let ui = output::ui::from_flags(cli.quiet, cli.verbose, cli.color);
    output::ui::init(ui);
    // Resolved once, before anything runs (`-o x.csv --format json` is refused here).
    let opts = cmd::options::resolve(&cli, ui)?;
    match &cli.command {
        cli::Command::Compare(args) => cmd::compare::run(args, &opts),
        cli::Command::Prices(args) => cmd::prices::run(args, &opts),
        cli::Command::Sweep(args) => cmd::sweep::run(args, &opts),
        cli::Command::Tune(args) => cmd::tune::run(args, &opts),
        cli::Command::Check(args) => cmd::check::run(args, &opts),
        cli::Command::Bench(args) => cmd::bench::run(args),
        cli::Command::Calibrate(args) => cmd::calibrate::run(args),
        cli::Command::Diff(args) => cmd::diff::run(args, &opts),
        cli::Command::Reconcile(args) => cmd::reconcile::run(args, &opts),
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
            || cause
                .downcast_ref::<output::OutputError>()
                .is_some_and(output::OutputError::is_broken_pipe)
    })
}
