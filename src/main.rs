//! The `fallcost` binary: parse the command line, run it, print any error on one line, and
//! exit with the documented code (0 success, 1 findings, 2 bad input or usage).

use std::process::ExitCode;

use clap::FromArgMatches;
use clap::error::ErrorKind;
use fallcost::error::ExitStatus;

/// clap's own colour (help, usage errors) from `--color WHEN` on the command line, before it
/// is parsed; `auto` leaves clap to look at the terminal and `NO_COLOR`/`CLICOLOR_FORCE`.
fn clap_color() -> clap::ColorChoice {
    let args: Vec<String> = std::env::args().collect();
    let when = args.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix("--color=")
            .map(str::to_string)
            .or_else(|| (a == "--color").then(|| args.get(i + 1).cloned().unwrap_or_default()))
    });
    match when.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

fn main() -> ExitCode {
    let parsed = fallcost::cmd::version::command()
        .color(clap_color())
        .try_get_matches()
        .and_then(|m| fallcost::cli::Cli::from_arg_matches(&m));
    let cli = match parsed {
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
                "{}",
                fallcost::output::ui::paint_stderr(
                    fallcost::output::color::Role::Error,
                    "error:",
                    &fallcost::error::printable_line(&format!("{err:#}"))
                )
            );
            ExitCode::from(ExitStatus::Error.code())
        }
    }
}
