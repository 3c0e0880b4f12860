//! The command line, declared with clap's derive API. Declarations only: no fallcost imports,
//! so the file can be compiled on its own (e.g. to generate completions).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Price the resilience decisions teams make around LLM APIs: fallback chains, hedged
/// requests, cold prompt caches, gray failures and outages.
#[derive(Debug, Parser)]
#[command(
    name = "fallcost",
    version,
    about,
    long_about = None,
    after_help = "Examples:
  fallcost compare --scenario scenarios/sept3.toml
  fallcost compare --scenario scenarios/failover-chains.toml --set steady.failure_rate=0
  fallcost compare --scenario scenarios/sept3.toml --format csv --output sept3.csv
  fallcost prices

Exit codes: 0 success, 1 findings (check), 2 bad input or usage."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare the four patterns on every chain of a scenario, in steady state and in an
    /// incident.
    #[command(after_help = "Examples:
  fallcost compare --scenario scenarios/sept3.toml
  fallcost compare --scenario scenarios/failover-chains.toml --set steady.failure_rate=0
  fallcost compare --scenario scenarios/failover-chains.toml --set incident.failure=fast
  fallcost compare --scenario scenarios/sept3.toml --format json --output sept3.json")]
    Compare(CompareArgs),
    /// Print a price table: the bundled one by default, or a file.
    #[command(after_help = "Examples:
  fallcost prices
  fallcost prices --pricing pricing/2026-07.toml --format csv")]
    Prices(PricesArgs),
    /// Recompute a scenario over a grid of parameter values, and plot cost against one.
    #[command(after_help = "Examples:
  fallcost sweep --scenario scenarios/failover-chains.toml --param steady.failure_rate=0:0.05:0.005
  fallcost sweep --scenario scenarios/failover-cache.toml --param incident.duration=30s:1h:5m --format csv
  fallcost sweep --scenario scenarios/failover-chains.toml --param steady.failure_rate=0:0.2:0.01 --plot cost.svg")]
    Sweep(SweepArgs),
}

/// Output flags shared by every subcommand that prints a report.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Write to this file instead of standard output (`-` is standard output). The file is
    /// written whole or not at all.
    #[arg(long, short = 'o', value_name = "PATH", default_value = "-")]
    pub output: String,
}

/// `fallcost compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The scenario file (TOML): request, chains, [steady], [incident].
    #[arg(long, short = 's', value_name = "PATH")]
    pub scenario: PathBuf,
    /// Override a scenario value before validation, as in the file: `steady.failure_rate=0`,
    /// `incident.duration=45m`, `incident.failure=gray`. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub set: Vec<(String, String)>,
    /// Only these chains (by name; repeatable). Default: every chain of the scenario.
    #[arg(long = "chain", value_name = "NAME")]
    pub chains: Vec<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `fallcost prices`.
#[derive(Debug, Args)]
pub struct PricesArgs {
    /// A bundled table name (`2026-07`) or a price table file. Default: the newest bundled.
    #[arg(long, short = 'p', value_name = "NAME|PATH")]
    pub pricing: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `fallcost sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The scenario file (TOML).
    #[arg(long, short = 's', value_name = "PATH")]
    pub scenario: PathBuf,
    /// A parameter and its range, `KEY=FROM:TO:STEP` (both ends included), e.g.
    /// `steady.failure_rate=0:0.05:0.005` or `incident.duration=30s:3h:15m`. Repeat for a grid.
    #[arg(long, value_name = "KEY=FROM:TO:STEP", required = true)]
    pub param: Vec<String>,
    /// Override a scenario value at every point, as in `compare --set`.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub set: Vec<(String, String)>,
    /// Only these chains (by name; repeatable). Default: every chain of the scenario.
    #[arg(long = "chain", value_name = "NAME")]
    pub chains: Vec<String>,
    /// Also draw USD per 1,000 requests against the (single) parameter, as an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned tables for a terminal.
    Table,
    /// CSV with one header line, for spreadsheets.
    Csv,
    /// One JSON object, for tooling.
    Json,
    /// GitHub-flavoured Markdown tables.
    Markdown,
}

fn parse_key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!(
            "expected KEY=VALUE, e.g. steady.failure_rate=0; got `{s}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn set_takes_key_value_pairs() {
        assert_eq!(
            parse_key_value("steady.failure_rate=0"),
            Ok(("steady.failure_rate".into(), "0".into()))
        );
        assert!(parse_key_value("nokey").is_err());
        assert!(parse_key_value("=1").is_err());
    }
}
