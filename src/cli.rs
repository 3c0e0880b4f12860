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
  fallcost compare --scenario scenarios/sept3.toml --mc --seed 42
  fallcost prices
  fallcost bench

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
  fallcost compare --scenario scenarios/sept3.toml --format json --output sept3.json
  fallcost compare --scenario scenarios/failover-chains.toml --mc 1e7 --seed 42
  fallcost compare --scenario scenarios/sept3.toml --mc --mc-runs 1000 --format json")]
    Compare(CompareArgs),
    /// Print a price table: the bundled one by default, or a file.
    #[command(after_help = "Examples:
  fallcost prices
  fallcost prices --pricing pricing/2026-07.toml --format csv")]
    Prices(PricesArgs),
    /// Measure the Monte Carlo engine: simulated requests per second for the steady-state
    /// model (all four patterns at once) and for the floor (the same random draws, nothing
    /// else).
    #[command(after_help = "Examples:
  fallcost bench
  RAYON_NUM_THREADS=1 fallcost bench --requests 5e7")]
    Bench(BenchArgs),
}

/// `fallcost bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Requests per measured loop (`1e8` and `100_000_000` are accepted).
    #[arg(long, value_name = "N", default_value = "100000000", value_parser = parse_count)]
    pub requests: u64,
    /// Times each loop is run; the best run of each is reported.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
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
    /// Also run the Monte Carlo engine, simulating N requests per chain in steady state
    /// (default 1,000,000; `1e7` and `10_000_000` are accepted). Adds means with 95% intervals
    /// and latency percentiles beside the analytic figures.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "1000000", value_parser = parse_count)]
    pub mc: Option<u64>,
    /// The Monte Carlo seed: the same seed prints the same output, whatever the thread count.
    /// Without it a seed is drawn and printed on standard error.
    #[arg(long, value_name = "S", requires = "mc")]
    pub seed: Option<u64>,
    /// Incident windows to simulate per chain and pattern (default 200).
    #[arg(long = "mc-runs", value_name = "K", requires = "mc", value_parser = parse_count)]
    pub mc_runs: Option<u64>,
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

/// A count of at least 2: digits with optional `_` separators, or a power of ten such as
/// `1e6` or `2.5e7` that is a whole number.
fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let n = if t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() {
        t.parse::<u64>()
            .map_err(|_| format!("`{s}` is too large"))?
    } else {
        let x: f64 = t
            .parse()
            .map_err(|_| format!("expected a whole number such as 1000000 or 1e6; got `{s}`"))?;
        if !(x.is_finite() && x.fract() == 0.0 && (0.0..1.8e19).contains(&x)) {
            return Err(format!(
                "expected a whole number such as 1000000 or 1e6; got `{s}`"
            ));
        }
        x as u64
    };
    if n < 2 {
        return Err(format!(
            "at least 2 are needed for a confidence interval; got {n}"
        ));
    }
    Ok(n)
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
    fn counts_take_digits_separators_and_powers_of_ten() {
        assert_eq!(parse_count("1000000"), Ok(1_000_000));
        assert_eq!(parse_count("1_000_000"), Ok(1_000_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("2.5e7"), Ok(25_000_000));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("1").is_err());
        assert!(parse_count("-5").is_err());
        assert!(parse_count("many").is_err());
    }

    #[test]
    fn mc_takes_an_optional_count() {
        let cli =
            Cli::try_parse_from(["fallcost", "compare", "--mc", "--scenario", "s.toml"]).unwrap();
        let Command::Compare(a) = cli.command else {
            panic!("not compare")
        };
        assert_eq!(a.mc, Some(1_000_000));
        let cli = Cli::try_parse_from([
            "fallcost", "compare", "-s", "s.toml", "--mc", "1e5", "--seed", "7",
        ])
        .unwrap();
        let Command::Compare(a) = cli.command else {
            panic!("not compare")
        };
        assert_eq!((a.mc, a.seed), (Some(100_000), Some(7)));
        assert!(
            Cli::try_parse_from(["fallcost", "compare", "-s", "s.toml", "--seed", "7"]).is_err()
        );
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
