use std::process::ExitCode;

use clap::Parser;
use fallcost::error::ExitStatus;

fn main() -> ExitCode {
    let cli = fallcost::cli::Cli::parse();
    match fallcost::run(cli) {
        Ok(status) => ExitCode::from(status.code()),
        Err(err) if fallcost::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(ExitStatus::Error.code())
        }
    }
}
