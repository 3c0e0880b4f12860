//! The `fallcost` binary: parse the command line, run it, print any error on one line, and
//! exit with the documented code (0 success, 1 findings, 2 bad input or usage).

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use fallcost::error::ExitStatus;

fn main() -> ExitCode {
    let cli = match fallcost::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => match err.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                let _ = err.print();
                return ExitCode::from(ExitStatus::Error.code());
            }
            _ => {
                eprintln!(
                    "error: {}",
                    fallcost::cli::one_line_usage_error(
                        &err.to_string(),
                        std::env::args().nth(1).as_deref()
                    )
                );
                return ExitCode::from(ExitStatus::Error.code());
            }
        },
    };
    match fallcost::run(cli) {
        Ok(status) => ExitCode::from(status.code()),
        Err(err) if fallcost::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!(
                "error: {}",
                fallcost::error::printable_line(&format!("{err:#}"))
            );
            ExitCode::from(ExitStatus::Error.code())
        }
    }
}
