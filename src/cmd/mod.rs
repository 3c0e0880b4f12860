//! One module per subcommand. Each takes its parsed arguments and returns an [`ExitStatus`](crate::error::ExitStatus).

pub mod bench;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod from_config;
pub mod prices;
pub mod sweep;

use crate::cli::{OutputArgs, OutputFormat};
use crate::output::{Format, Target};

/// The output format and target of `args`.
pub(crate) fn output_of(args: &OutputArgs) -> (Format, Target) {
    let format = match args.format {
        OutputFormat::Table => Format::Table,
        OutputFormat::Csv => Format::Csv,
        OutputFormat::Json => Format::Json,
        OutputFormat::Markdown => Format::Markdown,
    };
    (format, Target::parse(&args.output))
}
