//! The command line, declared with clap's derive API. Declarations only; the value enums of
//! `--format` and `--sort` are the output's and the operation's own types ([`Format`],
//! [`CheckFormat`], [`PriceSort`]), which derive `clap::ValueEnum` where they are defined, so
//! no command converts one enum into another.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::ops::diff::Threshold;
use crate::ops::inputs::SourceArgs;
use crate::ops::prices::PriceSort;
use crate::output::Format;
use crate::output::check::CheckFormat;

/// Price the resilience decisions teams make around LLM APIs: fallback chains, hedged
/// requests, cold prompt caches, gray failures and outages.
#[derive(Debug, Parser)]
#[command(
    name = "fallcost",
    version,
    about,
    long_about = None,
    after_help = "Examples (from the repository's root, where scenarios/ is):
  fallcost compare --scenario scenarios/sept3.toml
  fallcost compare --scenario scenarios/failover-chains.toml \\
    --set steady.failure_rate=0
  fallcost compare --scenario scenarios/sept3.toml --format csv -o sept3.csv
  fallcost compare --scenario scenarios/sept3.toml --mc --seed 42
  fallcost prices
  fallcost check scenarios/ --max-ratio 2 --format github
  fallcost bench
  fallcost completions bash

Exit codes: 0 success, 1 findings (check), 2 bad input or usage."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print no notes (the drawn Monte Carlo seed, left-out rows) and no progress bar;
    /// warnings and errors still print.
    #[arg(long, short = 'q', global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more detail on standard error: the price table used, the work simulated and how
    /// long it took; `check` also lists the files checked and skipped.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// When to colour errors, warnings, findings and premiums: `auto` on a terminal only
    /// (`NO_COLOR` turns it off, `CLICOLOR_FORCE=1` on); never in CSV or JSON.
    #[arg(
        long,
        value_name = "WHEN",
        value_enum,
        global = true,
        default_value_t = ColorWhen::Auto
    )]
    pub color: ColorWhen,
}

/// `--color`: [`crate::output::ui::ColorWhen`] (the output layer decides what it means).
pub use crate::output::ui::ColorWhen;

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare the four patterns on every chain of a scenario, in steady state and in an
    /// incident.
    #[command(after_help = "Examples:
  fallcost compare --scenario scenarios/sept3.toml
  fallcost compare --scenario scenarios/failover-chains.toml \\
    --set steady.failure_rate=0
  fallcost compare --scenario scenarios/failover-chains.toml \\
    --set incident.failure=fast
  fallcost compare --scenario scenarios/hedge-latency.toml \\
    --set 'latency.\"openai/gpt-5.6-sol\".p50_s=1.5'
  fallcost compare --scenario scenarios/sept3.toml --format json \\
    --output sept3.json
  fallcost compare --scenario scenarios/failover-chains.toml --mc 1e7 --seed 42
  fallcost compare --scenario scenarios/sept3.toml --mc --mc-runs 1000 \\
    --format json
  fallcost compare --scenario scenarios/sept3-timeline.toml --mc
  fallcost compare --scenario scenarios/sept3.toml --drill 30m \\
    --set incident.requests_per_second=0.2
  fallcost compare --scenario scenarios/sept3.toml \\
    --incidents examples/history/anthropic-incidents.json \\
    --incidents examples/history/openai-monitoring.csv \\
    --component 'Claude API' --years 100000 --seed 1")]
    Compare(CompareArgs),
    /// Print a price table: the bundled one by default, or a file.
    #[command(after_help = "Examples:
  fallcost prices
  fallcost prices --pricing pricing/2026-07.toml --format csv")]
    Prices(PricesArgs),
    /// Recompute a scenario over a grid of parameter values, and plot cost against one.
    #[command(after_help = "Examples:
  fallcost sweep --scenario scenarios/failover-chains.toml \\
    --param steady.failure_rate=0:0.05:0.005
  fallcost sweep --scenario scenarios/failover-cache.toml \\
    --param incident.duration=30s:1h:5m --format csv
  fallcost sweep --scenario scenarios/failover-chains.toml \\
    --param steady.failure_rate=0:0.2:0.01 --plot cost.svg
  fallcost sweep --scenario scenarios/timeout.toml \\
    --param policy.timeout_s=2:20:1 --mc --seed 7")]
    Sweep(SweepArgs),
    /// Search timeouts, retries, the circuit breaker, hedging, the warm-fallback policy and
    /// the chain for the cheapest settings that meet an SLO: the Pareto frontier of cost
    /// against availability and p99 latency, and the recommended point.
    #[command(after_help = "Examples:
  fallcost tune --scenario scenarios/policies.toml --chain medium \\
    --availability 99.9%
  fallcost tune --scenario scenarios/sept3.toml --p99 8s \\
    --candidate openai/gpt-6-luna --candidate xai/grok-4.7
  fallcost tune --scenario scenarios/policies.toml --chain simple \\
    --vary policy.breaker.threshold=none,1,2,3 \\
    --vary policy.breaker.cooldown_s=30:120:30
  fallcost tune --scenario scenarios/sept3.toml --format json -o tune.json
  fallcost tune --scenario scenarios/sept3.toml --requests-per-month 3e6 \\
    --history examples/history/anthropic-incidents.json \\
    --vary policy.breaker.threshold=none

The objective, USD per 1,000 requests: the steady cost plus 1,000 x the year's
incident premium / the year's requests (12 x requests per month x the chain's
traffic share). The premium is the incident's bill less the steady bill of its
requests: the reference incident's times --incidents-per-year, or with
--history the history's per year (what `compare --incidents FILE` prints per
year). With --history, each breaker candidate's incident windows are simulated
one by one: minutes on a long history; --vary policy.breaker.threshold=none
leaves breakers out (the last example runs in a second). Traffic, budget and
history default to fallcost.toml's [usage] (requests_per_month, budget,
history); flags win. Every frontier point carries `set`: `fallcost compare
--chain CHAIN --set KEY=VALUE ...` reproduces its figures. Exit codes: 0 a
recommendation, 1 no point meets the constraints, 2 bad input.")]
    Tune(TuneArgs),
    /// CI gate: find every fallback chain (fallcost scenarios, LiteLLM proxy configs, Portkey
    /// configs) and flag each fallback priced above --max-ratio times its primary.
    #[command(
        after_help = "Examples (scenarios/ is this repository's folder; litellm/, portkey/ and
the LiteLLM price file stand for your own configs. Name the folders that hold
your configs: `.` also reads test fixtures, such as this repository's
deliberately broken ones):
  fallcost check scenarios/
  fallcost check scenarios/ litellm/config.yaml portkey/ --max-ratio 2
  fallcost check litellm/ --pricing model_prices_and_context_window.json \\
    --profile 2000/500
  fallcost check scenarios/ litellm/ --format github --deny-warnings

Exit codes: 0 no findings, 1 findings (or warnings under --deny-warnings), 2
input error (an unreadable or invalid file, a model with no known price)."
    )]
    Check(CheckArgs),
    /// Measure the Monte Carlo engine: simulated requests per second for the steady-state
    /// model (all four patterns at once) and for the floor (the same random draws, nothing
    /// else).
    #[command(after_help = "Examples:
  fallcost bench
  RAYON_NUM_THREADS=1 fallcost bench --requests 5e7")]
    Bench(BenchArgs),
    /// Measure a scenario from request logs (OpenTelemetry GenAI spans as OTLP/JSON, LiteLLM
    /// spend logs as CSV or JSON, Langfuse observations, or a plain CSV) and write it as TOML
    /// that `compare` runs.
    #[command(after_help = "Examples:
  fallcost calibrate traces.jsonl -o calibrated.toml
  fallcost compare --scenario calibrated.toml
  fallcost calibrate spend_logs.csv \\
    --pricing model_prices_and_context_window.json
  fallcost calibrate requests.csv --input-format csv --timeout-s 30 --strict

With -q, the warnings, unreadable records and dropped fields are one line on
standard error (the scenario's header lists them all).

Exit codes: 0 written, 2 bad input (a file with no readable record, an unknown
format or one refused by name (zstd, Parquet, OTLP protobuf, Jaeger), times in
another unit than the format's, a figure from too few events or any unreadable
record under --strict).")]
    Calibrate(CalibrateArgs),
    /// What a change does to the bill: price BASE and HEAD (two scenarios, two gateway
    /// configs, two folders, or HEAD's paths at a git ref) under the same usage assumptions,
    /// chain by chain, per month and per reference incident.
    #[command(after_help = "Examples:
  fallcost diff examples/diff/gateway-v1.yaml examples/diff/gateway-v2.yaml \\
    --scenario examples/diff/usage.toml --requests-per-month 3e6
  fallcost diff --base-ref origin/main gateway/config.yaml --format markdown
  fallcost diff scenarios/sept3-timeline.toml \\
    examples/diff/sept3-timeline-v2.toml --mc --seed 1
  fallcost diff old/ new/ --fail-above 10% --fail-above '$500/month' \\
    --fail-above '$1000/incident' --fail-above 3x --budget 5000

Usage assumptions (traffic, request, reference incident, history, budget)
come from fallcost.toml's [usage]; flags win. Exit codes: 0 within every
threshold, 1 a --fail-above threshold crossed or a chain over --budget, 2 input
error.")]
    Diff(DiffArgs),
    /// Hold the price table (and a scenario) against the providers' own bill: usage and cost
    /// exports priced model by model and day by day, the residual, and the share of billed
    /// dollars the table explains.
    #[command(after_help = "Examples (from the repository's root):
  fallcost reconcile examples/reconcile/*.json --pricing 2026-07
  fallcost reconcile usage.json costs.json --fail-above 2%
  fallcost reconcile examples/reconcile/*.json --pricing 2026-07 \\
    --scenario examples/reconcile/team.toml \\
    --incidents examples/reconcile/incidents.csv
  fallcost reconcile bill.csv --format json -o reconcile.json

Reads OpenAI's usage/completions and costs pages, Anthropic's
usage_report/messages and cost_report pages, OpenRouter's activity and the
plain CSV (docs/guide/reconcile.md), told apart by content. Discounts and
dated prices come from fallcost.toml's [pricing]. Exit codes: 0 within
tolerance, 1 the period's residual (or, with --scenario, its error, or the
unpriced share of the bill) above --fail-above, 2 input error.")]
    Reconcile(ReconcileArgs),
    /// Print a shell completion script on standard output.
    #[command(after_help = "Install (one of):
  fallcost completions bash \\
    > ~/.local/share/bash-completion/completions/fallcost
  fallcost completions zsh > ~/.zfunc/_fallcost
  fallcost completions fish > ~/.config/fish/completions/fallcost.fish
  fallcost completions powershell >> $PROFILE
  fallcost completions elvish >> ~/.config/elvish/rc.elv

For zsh, ~/.zfunc must be on $fpath before compinit: fpath+=~/.zfunc")]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on standard output.
    #[command(after_help = "Examples:
  fallcost man > ~/.local/share/man/man1/fallcost.1
  fallcost man | man -l -")]
    Man,
}

impl Command {
    /// The `--format`/`--output` flags of a subcommand that has them.
    pub fn output_args(&self) -> Option<&OutputArgs> {
        match self {
            Command::Compare(a) => Some(&a.output),
            Command::Prices(a) => Some(&a.output),
            Command::Sweep(a) => Some(&a.output),
            Command::Tune(a) => Some(&a.output),
            Command::Reconcile(a) => Some(&a.output),
            _ => None,
        }
    }
}

/// `fallcost completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The shells `fallcost completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
    /// Elvish.
    Elvish,
}

/// `fallcost check`.
#[derive(Debug, Args)]
#[command(mut_args(|a| crate::ops::inputs::only_taken("check", a)))]
pub struct CheckArgs {
    /// Prices, profile and settings (the source flags; `--scenario` and `--config` add files to check).
    #[command(flatten)]
    pub source: SourceArgs,
    /// Files or folders to check (folders recursively). Default: the current folder.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Flag a fallback whose like-for-like price per request is above this multiple of its
    /// primary's. Exactly at the ratio passes. Default: fallcost.toml's `max_ratio`, else 2.
    #[arg(
        long,
        value_name = "RATIO",
        value_parser = parse_ratio,
        allow_negative_numbers = true
    )]
    pub max_ratio: Option<f64>,
    /// A cached prefix in the gateway request profile, tokens (default 0), priced warm at
    /// `--hit-rate`; a fallback's first request of a session pays it cold or as a cache write
    /// (see `--incident`).
    #[arg(long, value_name = "TOKENS", default_value_t = 0)]
    pub prefix: u64,
    /// Share of the cached prefix read from cache when warm (0 to 1; default 1).
    #[arg(long, value_name = "H", default_value_t = 1.0, value_parser = parse_share)]
    pub hit_rate: f64,
    /// Also judge each fallback in an outage of its primary's provider lasting DURATION (`3h`,
    /// `45m`): by the price of a session's first failover (cold cache, or a cache write) and the
    /// outage's multiplier over the primary's normal bill, not only warm list prices.
    #[arg(long, value_name = "DURATION")]
    pub incident: Option<String>,
    /// Requests per second during `--incident` (default 1).
    #[arg(long, value_name = "REQ_PER_S", default_value_t = 1.0, requires = "incident", value_parser = parse_ratio)]
    pub rate: f64,
    /// Requests per session during `--incident`, each session with its own cache (default 20).
    #[arg(long, value_name = "N", default_value_t = 20, requires = "incident", value_parser = clap::value_parser!(u64).range(1..))]
    pub session_length: u64,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Make warnings (chains on one provider, fallbacks that never fire, self-fallbacks)
    /// fail the run.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Allow links above the ratio whose primary or fallback is this model or provider
    /// (`ollama`, `lm_studio`, `ollama/llama3`): a local or free primary with a paid cloud
    /// fallback. Reported as notes. Repeat for several.
    #[arg(long, value_name = "MODEL_OR_PROVIDER")]
    pub allow: Vec<String>,
    /// A fallback of a free primary (a local `ollama/`, `lm_studio/`, `hosted_vllm/` model, an
    /// `openai/` model on a local or private `api_base`, an OpenRouter `:free` id: $0 per
    /// token) fails when it costs more than this, USD per 1,000 requests at the profile; a
    /// ratio over $0 means nothing. Exactly at the limit passes. Default: 5 (half a cent a
    /// request).
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_usd_per_1k: Option<f64>,
    /// Can each fallback take the load and serve the request: retirement, context window,
    /// capabilities, capacity.
    #[command(flatten)]
    pub fit: crate::ops::check::FitArgs,
}

/// `fallcost bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Requests per measured loop (`1e8` and `100_000_000` are accepted; at most 1e12).
    #[arg(long, value_name = "N", default_value = "100000000", value_parser = parse_mc_requests)]
    pub requests: u64,
    /// Times each loop is run; the best run of each is reported.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
}

/// `fallcost calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Log files: OTLP/JSON trace exports (one request per line or one document), LiteLLM
    /// spend logs (CSV, a JSON array, a /spend/logs page or JSON lines), Langfuse observations
    /// (an API page, a JSON array or JSON lines), or the plain CSV (docs/guide/calibrate.md).
    #[arg(value_name = "LOG", required = true)]
    pub logs: Vec<PathBuf>,
    /// Where to write the scenario (`-` is standard output). Written whole or not at all.
    #[arg(long, short = 'o', value_name = "PATH", default_value = "-")]
    pub output: String,
    /// The format of every LOG, instead of recognising each by its content.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,
    /// The `pricing` the scenario names, and the table its models are checked against: a
    /// bundled name or a price table file. Default: the first bundled table (`fallcost prices
    /// --list`) that prices every model in the logs, else the one that prices the most.
    #[arg(long, short = 'p', value_name = "NAME|PATH")]
    pub pricing: Option<String>,
    /// The client timeout in seconds (at most 86400), instead of the cluster of failure
    /// durations.
    #[arg(long, value_name = "S", value_parser = parse_calibrate_timeout)]
    pub timeout_s: Option<f64>,
    /// A rate or share from fewer events than this is written with a warning.
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub min_events: u64,
    /// Make every warning (a figure from too few events, none measured) and every unreadable
    /// record an error (exit 2, nothing written).
    #[arg(long)]
    pub strict: bool,
}

/// `--input-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// OpenTelemetry GenAI spans, OTLP/JSON.
    Otlp,
    /// LiteLLM spend logs (CSV, JSON array or JSON lines, told apart by content).
    Litellm,
    /// The plain CSV.
    Csv,
    /// Langfuse observations (an API page, a JSON array or JSON lines).
    Langfuse,
}

/// Output flags shared by every subcommand that prints a report.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format. Default: from the `--output` file's extension (`.json`, `.csv`, `.md`;
    /// `.txt` or none is a table), else a table. A format that contradicts the extension
    /// (`-o x.csv --format json`) is an error.
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<Format>,
    /// Write to this file instead of standard output (`-` is standard output). The file is
    /// written whole or not at all; its extension picks the format (see `--format`).
    #[arg(long, short = 'o', value_name = "PATH", default_value = "-")]
    pub output: String,
}

/// `fallcost compare`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("seeded").args(["mc", "years"]).multiple(true)))]
pub struct CompareArgs {
    /// Where the scenario comes from (the source flags, as every command takes them).
    #[command(flatten)]
    pub source: SourceArgs,
    /// Price a drill (the three-down post's step 4): the primary's provider with its breaker
    /// opened by hand for DURATION (`30m`): no attempt on it, every request on the fallback, at
    /// the scenario's `[incident] requests_per_second` (`--set
    /// incident.requests_per_second=0.2` for a quiet hour). Replaces the scenario's outages with
    /// that one; needs an `[incident]` and chains whose primaries share one provider.
    #[arg(long, value_name = "DURATION")]
    pub drill: Option<String>,
    /// Also run the Monte Carlo engine, simulating N requests per chain in steady state
    /// (default 1,000,000; at most 1e12, hours of simulation; `1e7` and `10_000_000` are
    /// accepted). Adds means with 95% intervals and latency percentiles beside the analytic
    /// figures.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "1000000", value_parser = parse_mc_requests)]
    pub mc: Option<u64>,
    /// The Monte Carlo seed (`--mc`, `--years`): the same seed prints the same output, whatever
    /// the thread count. Without it a seed is drawn and printed on standard error.
    #[arg(long, value_name = "S", requires = "seeded")]
    pub seed: Option<u64>,
    /// Incident windows to simulate per chain and pattern (default 200; at least 2). Each
    /// window replays every request of the incident on every chain in all 4 patterns, and the
    /// simulation takes at most 2e9 simulated requests in all, so K may be at most 2e9 / (4 ×
    /// the window's requests on all chains together): 22,401 for scenarios/sept3.toml (two
    /// chains of 11,160 requests; chains with a traffic_share split them). A larger K is an
    /// error that gives the allowed range; when the default is too large the incident windows
    /// are not simulated and a warning says so. Without an incident in the scenario, K is not
    /// used.
    #[arg(long = "mc-runs", value_name = "K", requires = "mc", value_parser = parse_count)]
    pub mc_runs: Option<u64>,
    /// Also draw the posts' chart as an SVG file: per chain, each pattern's steady-state cost
    /// against the primary alone (the premium marked) and, with an incident, the incident's
    /// bill in its parts (window, cold starts, fail-back writes).
    #[arg(long, value_name = "FILE.svg", value_parser = parse_svg_path)]
    pub plot: Option<PathBuf>,
    /// Replay an incident history: a Statuspage `incidents.json` or a CSV
    /// `provider,start,end,failure,error_rate` (told by content). Repeatable: several files
    /// (providers) are merged on one calendar, and overlapping incidents of different providers
    /// are priced as one window. Each incident replaces the scenario's outage (its
    /// `[incident]` gives requests per second and session length); prints one row per incident
    /// × chain × pattern, the totals and the totals per year of the history's span.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["mc", "plot", "drill"])]
    pub incidents: Vec<PathBuf>,
    /// With `--incidents`: the provider of a Statuspage page whose URL or name does not say it
    /// (the price table's provider, e.g. `anthropic`).
    #[arg(long, value_name = "NAME", requires = "incidents")]
    pub provider: Option<String>,
    /// With `--incidents`: keep the Statuspage incidents that list this component (repeatable;
    /// a page mixes chat apps and APIs). A name no incident lists is an error.
    #[arg(long = "component", value_name = "NAME", requires = "incidents")]
    pub components: Vec<String>,
    /// With `--incidents`: skip incidents still open (no `resolved_at`) instead of failing.
    #[arg(long, requires = "incidents")]
    pub skip_open: bool,
    /// With `--incidents`: the error rate of a Statuspage `minor` incident (default 0.5, the
    /// midpoint of what `minor` can mean; `major` and `critical` are 1).
    #[arg(long, value_name = "RATE", requires = "incidents", value_parser = parse_share)]
    pub minor_error_rate: Option<f64>,
    /// With `--incidents`: simulate N years of the history (2 to 1e6): the replay's windows (an
    /// incident, or overlapping incidents of several providers) a Poisson process per set of
    /// providers at the history's rate, each resampled whole and priced once by the incident
    /// engine. Prints per chain the expected annual incident premium with its interval, its
    /// p50/p95/p99, failed requests per year and availability. `--seed` repeats a run.
    #[arg(long, value_name = "N", requires = "incidents", value_parser = parse_years)]
    pub years: Option<u64>,
    /// With `--years`: clustered years: each year every rate is multiplied by one
    /// common Gamma(K, 1/K) factor (mean 1, variance 1/K; smaller K, more clustering).
    #[arg(long, value_name = "K", requires = "years", value_parser = parse_ratio)]
    pub cluster: Option<f64>,
    /// With `--incidents`: the history covers the time from this RFC 3339 time (instead of
    /// its files' own start): incidents before it are left out, per year divides by the
    /// period from it.
    #[arg(long, value_name = "TIME", requires = "incidents", value_parser = parse_time)]
    pub since: Option<f64>,
    /// With `--incidents`: the history covers the time up to this RFC 3339 time (instead of
    /// its files' own end, e.g. a Statuspage page's `updated_at`).
    #[arg(long, value_name = "TIME", requires = "incidents", value_parser = parse_time)]
    pub until: Option<f64>,
    /// Where and how to print.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `fallcost prices`.
#[derive(Debug, Args)]
pub struct PricesArgs {
    /// Show only models whose id contains PATTERN (case-insensitive; `*` matches any run of
    /// characters, e.g. `claude*4-5`).
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Show only this provider's models (LiteLLM's `litellm_provider`, e.g. `anthropic`,
    /// `vertex_ai`: a family name matches `vertex_ai-language-models` too).
    #[arg(long, value_name = "P")]
    pub provider: Option<String>,
    /// Sort by: `model` (default), `input` or `output` price (cheapest first).
    #[arg(long, value_enum, default_value_t = PriceSort::Model)]
    pub sort: PriceSort,
    /// A bundled table name (`litellm-1.110.2`, `2026-07`), `latest` or a price table file.
    /// Default: the bundled LiteLLM snapshot.
    #[arg(long, short = 'p', value_name = "NAME|PATH")]
    pub pricing: Option<String>,
    /// List the bundled price tables with their source and date, and the cached `latest`.
    #[arg(long, conflicts_with_all = ["pattern", "provider", "update"])]
    pub list: bool,
    /// Download LiteLLM's newest price file (from URL, default LiteLLM's GitHub) into the
    /// user's cache directory, for `--pricing latest`.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub update: Option<String>,
    /// Where and how to print.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `fallcost sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Where the scenario comes from (the source flags, as `compare` takes them).
    #[command(flatten)]
    pub source: SourceArgs,
    /// A parameter and its range, `KEY=FROM:TO:STEP` (both ends included), e.g.
    /// `steady.failure_rate=0:0.05:0.005` or `incident.duration=30s:3h:15m`. Repeat for a grid.
    /// KEY is a dotted key as `--set` takes it (`'latency."openai/gpt-5.6-sol".p50_s=1:3:0.5'`).
    #[arg(long, value_name = "KEY=FROM:TO:STEP", required = true)]
    pub param: Vec<String>,
    /// Also run the Monte Carlo engine at every grid point (N requests per chain, steady state;
    /// default 200,000; at most 1e12, hours of simulation), adding the simulated cost with its
    /// 95% interval and the latency percentiles the user sees.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "200000", value_parser = parse_mc_requests)]
    pub mc: Option<u64>,
    /// The Monte Carlo seed (every grid point uses it). Without it one is drawn and printed.
    #[arg(long, value_name = "S", requires = "mc")]
    pub seed: Option<u64>,
    /// Also draw USD per 1,000 requests against the (single) parameter, as an SVG file (the
    /// name must end in `.svg`: no other format is drawn).
    #[arg(long, value_name = "FILE.svg", value_parser = parse_svg_path)]
    pub plot: Option<PathBuf>,
    /// Where and how to print.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `fallcost tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Where the scenario comes from (the source flags, as `compare` takes them).
    #[command(flatten)]
    pub source: SourceArgs,
    /// A model the chain may be built from (repeatable): the search tries every order of 1
    /// to 3 distinct models of the chain's own and the candidates.
    #[arg(long, value_name = "MODEL")]
    pub candidate: Vec<String>,
    /// The space as a TOML file: `[space]` with `"KEY" = [values]` replacing the defaults
    /// (`defaults = true` keeps the default keys it does not list).
    #[arg(long, value_name = "FILE")]
    pub space: Option<PathBuf>,
    /// A key of the space and its values, replacing the default ones: `KEY=FROM:TO:STEP`
    /// (both ends included) or `KEY=A,B,C` (`none` turns a breaker or hedge delay off).
    #[arg(long, value_name = "KEY=FROM:TO:STEP")]
    pub vary: Vec<String>,
    /// The share of the year's requests that must be answered (steady state and incidents):
    /// `99.9%` or `0.999`.
    #[arg(long, value_name = "SHARE", value_parser = parse_availability)]
    pub availability: Option<f64>,
    /// The steady-state p99 latency the user sees, at most (`8s`, `1.5s`, `2m`).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_s)]
    pub p99: Option<f64>,
    /// The priciest fallback's like-for-like price over the primary's, at most (`2` or `1.5`).
    #[arg(long, value_name = "RATIO", value_parser = parse_ratio)]
    pub max_ratio: Option<f64>,
    /// The chain's monthly bill at most, USD (`500` or `500/month`). Default: fallcost.toml
    /// `[usage] budget`, if any.
    #[arg(long, value_name = "USD/month", value_parser = parse_budget)]
    pub budget: Option<f64>,
    /// Requests per month the scenario serves (all chains together). Default: fallcost.toml
    /// `[usage] requests_per_month`, else the incident's requests_per_second around the clock.
    #[arg(long, value_name = "N", value_parser = parse_positive)]
    pub requests_per_month: Option<f64>,
    /// Times a year the scenario's `[incident]` happens (0 ignores it; not with `--history`).
    #[arg(long, value_name = "R", default_value = "1", value_parser = parse_non_negative)]
    pub incidents_per_year: f64,
    /// Incident history files (a Statuspage `incidents.json` or the CSV, as `compare
    /// --incidents`; repeatable): the incident cost is the history's premium per year, its
    /// windows replayed on the scenario's `[incident]` traffic, instead of the reference
    /// incident. Default: fallcost.toml `[usage] history`.
    #[arg(long, value_name = "FILE")]
    pub history: Vec<PathBuf>,
    /// Paired Monte Carlo batches confirming the recommendation against the runner-up
    /// (common random numbers; 0 skips it).
    #[arg(long, value_name = "N", default_value = "10", value_parser = parse_batches)]
    pub confirm: u64,
    /// Stop pricing new candidates after S seconds of wall clock and print the best frontier
    /// of those priced so far, labelled PARTIAL (the kept candidates' exact figures are still
    /// computed while the budget lasts; those it cuts are left out, never printed screened).
    #[arg(long = "budget-s", value_name = "S", value_parser = parse_positive)]
    pub budget_s: Option<f64>,
    /// Where and how to print.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `fallcost reconcile`.
#[derive(Debug, Args)]
pub struct ReconcileArgs {
    /// Usage and cost exports: OpenAI usage/completions or costs pages, Anthropic
    /// usage_report/messages or cost_report pages (one page or a JSON array of pages),
    /// OpenRouter activity, or the plain CSV.
    #[arg(value_name = "EXPORT", required = true)]
    pub exports: Vec<PathBuf>,
    /// The price table: a bundled name (`litellm-1.110.2`, `2026-07`), `latest`, a fallcost
    /// TOML table or LiteLLM's JSON. Default: the bundled LiteLLM snapshot.
    #[arg(long, short = 'p', value_name = "NAME|PATH")]
    pub pricing: Option<String>,
    /// Project settings to read instead of the nearest fallcost.toml (its `[pricing]`:
    /// discounts and dated prices; its `[prices]`: models no table has).
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// A model-day counts as explained when its residual is within this share of its bill
    /// (`2%` or `0.02`).
    #[arg(long, value_name = "PCT", default_value = "2%", value_parser = parse_percent)]
    pub band: f64,
    /// Exit 1 when the period's residual, the unpriced share of the bill, or (with
    /// --scenario) the scenario's period error is above this share (`2%` or `0.02`).
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub fail_above: Option<f64>,
    /// A scenario whose chain served this traffic: its predicted cost per day beside the
    /// chain's bill.
    #[arg(long, short = 's', value_name = "PATH")]
    pub scenario: Option<PathBuf>,
    /// The scenario's chain to compare (default: its first).
    #[arg(long, value_name = "NAME", requires = "scenario")]
    pub chain: Option<String>,
    /// Incident histories (Statuspage incidents.json or the incidents CSV, as `compare
    /// --incidents` reads them): the predicted premium on each incident's day. Repeatable.
    #[arg(long, value_name = "FILE", requires = "scenario")]
    pub incidents: Vec<PathBuf>,
    /// Where and how to print.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `2%` or `0.02`: a share in [0, 1].
fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
        None => t.parse::<f64>(),
    };
    match v {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "expected a share, as 2% or 0.02 (from 0 to 100%); got `{s}`"
        )),
    }
}

/// `--availability 99.9%` or `0.999`: a share in (0, 1].
fn parse_availability(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
        None => t.parse::<f64>(),
    };
    match v {
        Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(format!(
            "expected a share answered, as 99.9% or 0.999 (above 0, at most 100%); got `{s}`"
        )),
    }
}

/// `--p99 8s`: a positive duration in seconds.
fn parse_duration_s(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = t
        .parse::<f64>()
        .or_else(|_| crate::input::duration::parse_seconds(t));
    match v {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!(
            "expected a duration > 0, as 8s, 1.5s or 2m; got `{s}`"
        )),
    }
}

/// `--budget 500` or `500/month`, USD.
fn parse_budget(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_start_matches('$');
    let t = t.strip_suffix("/month").unwrap_or(t);
    match t.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!(
            "expected USD per month > 0, as 500 or 500/month; got `{s}`"
        )),
    }
}

fn parse_positive(s: &str) -> Result<f64, String> {
    match s.trim().replace('_', "").parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("expected a number > 0, e.g. 2.6e6; got `{s}`")),
    }
}

fn parse_non_negative(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=1e6).contains(&x) => Ok(x),
        _ => Err(format!(
            "expected a number from 0 to 1e6, e.g. 2; got `{s}`"
        )),
    }
}

/// `--confirm N`: 0 (off) or 2 to 30 batches.
fn parse_batches(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n == 0 || (2..=30).contains(&n) => Ok(n),
        _ => Err(format!("expected 0 (off) or 2 to 30 batches; got `{s}`")),
    }
}

/// `--years N`: 2 to 1e6 simulated years.
fn parse_years(s: &str) -> Result<u64, String> {
    parse_count_up_to(s, 1_000_000, "2 to 1e6 simulated years")
}

fn parse_ratio(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("expected a number > 0, e.g. 2 or 1.5; got `{s}`")),
    }
}

/// `calibrate --timeout-s`: a client timeout no attempt can outlast (a day at most).
fn parse_calibrate_timeout(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 && t <= 86_400.0 => Ok(t),
        _ => Err(format!(
            "expected seconds > 0 and at most 86400 (a day), e.g. 30; got `{s}`"
        )),
    }
}

fn parse_usd(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(r),
        _ => Err(format!(
            "expected USD per 1,000 requests >= 0, e.g. 5; got `{s}`"
        )),
    }
}

/// An RFC 3339 time (`--since`, `--until`) as Unix seconds.
fn parse_time(s: &str) -> Result<f64, String> {
    crate::input::history::parse_rfc3339(s.trim()).map_err(String::from)
}

fn parse_share(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(h) if (0.0..=1.0).contains(&h) => Ok(h),
        _ => Err(format!("expected a share from 0 to 1, e.g. 0.9; got `{s}`")),
    }
}

/// clap's multi-line usage error as one line: the message up to the usage block, its lines
/// joined, then a pointer to `--help`: the subcommand's, named by the usage line or, for an
/// error without one (an invalid value), by `subcommand` (the command line's first word).
pub fn one_line_usage_error(rendered: &str, subcommand: Option<&str>) -> String {
    let body = rendered.trim_start_matches("error:").trim();
    let body = body.split("\n\nUsage:").next().unwrap_or(body);
    let body = body
        .split("\n\nFor more information")
        .next()
        .unwrap_or(body);
    let joined = body.split_whitespace().collect::<Vec<_>>().join(" ");
    // Point at the subcommand's own help when the usage line names one.
    let command = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
        .map(|usage| {
            usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['-', '<', '[']))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|c| c.starts_with("fallcost"))
        .or_else(|| {
            let sub = subcommand?;
            Cli::command()
                .get_subcommands()
                .any(|c| c.get_name() == sub)
                .then(|| format!("fallcost {sub}"))
        })
        .unwrap_or_else(|| "fallcost".to_string());
    format!("{joined} (see `{command} --help`)")
}

/// The most requests per chain `--mc` simulates (and `bench --requests` times): 1e12, hours of
/// simulation at about 120 million requests per second.
pub const MAX_MC_REQUESTS: u64 = 1_000_000_000_000;

/// A count of at least 2: digits with optional `_` separators, or a power of ten such as
/// `1e6` or `2.5e7` that is a whole number.
fn parse_count(s: &str) -> Result<u64, String> {
    parse_count_up_to(
        s,
        u64::MAX,
        &format!("2 to {} (2 for a confidence interval)", u64::MAX),
    )
}

/// `--mc N`: a count (as [`parse_count`]) from 2 to [`MAX_MC_REQUESTS`].
fn parse_mc_requests(s: &str) -> Result<u64, String> {
    parse_count_up_to(
        s,
        MAX_MC_REQUESTS,
        "2 to 1e12 requests per chain (2 for a confidence interval; 1e12 is hours of simulation)",
    )
}

/// A count (as [`parse_count`]) from 2 to `max`. A whole number outside that range, however
/// large, is refused with `allowed`, the range in words.
fn parse_count_up_to(s: &str, max: u64, allowed: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let out_of_range = || format!("`{s}` is out of range; allowed: {allowed}");
    let n = if t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() {
        // only a number above u64::MAX fails here
        t.parse::<u64>().map_err(|_| out_of_range())?
    } else {
        // `1e400` reads as infinity: out of range too
        let x: f64 = t
            .parse()
            .ok()
            .filter(|x: &f64| x.is_infinite() || x.fract() == 0.0)
            .ok_or_else(|| format!("expected a whole number such as 1000000 or 1e6; got `{s}`"))?;
        if !(2.0..=max as f64).contains(&x) {
            return Err(out_of_range());
        }
        x as u64
    };
    if !(2..=max).contains(&n) {
        return Err(out_of_range());
    }
    Ok(n)
}

/// `--plot FILE.svg`: a file name ending in `.svg` (any case), the one format drawn.
fn parse_svg_path(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(path),
        other => Err(format!(
            "the plot is drawn as SVG only: give a file name ending in .svg; got {}",
            other.map_or("no extension".to_string(), |e| format!("`.{e}`"))
        )),
    }
}

/// Parse a `--fail-above` limit: `10%`, `$500/month` (or `500/month`), `$1000/incident`, `3x`,
/// `+100failed/incident` (failed requests per reference incident), `-0.01%availability`
/// (percentage points of availability through the history's incidents).
///
/// Errors: anything else, naming the forms allowed.
pub fn parse_threshold(s: &str) -> Result<Threshold, String> {
    let allowed = "expected 10% (the steady monthly total), $500/month, $1000/incident, 3x (a chain's worst fallback ratio), +100failed/incident (failed requests per reference incident) or -0.01%availability (percentage points a year, with a history)";
    let t = s.trim();
    let num = |x: &str| -> Result<f64, String> {
        let x = x.trim().trim_start_matches('$').replace(['_', ','], "");
        match x.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(format!("{allowed}; got `{s}`")),
        }
    };
    if let Some(f) = t.strip_suffix("failed/incident") {
        return num(f.trim_start_matches('+')).map(Threshold::FailedPerIncident);
    }
    if let Some(a) = t.strip_suffix("%availability") {
        return num(a.trim_start_matches('-')).map(Threshold::Availability);
    }
    if let Some(p) = t.strip_suffix('%') {
        return num(p).map(Threshold::Percent);
    }
    if let Some(m) = t.strip_suffix("/month") {
        return num(m).map(Threshold::PerMonth);
    }
    if let Some(i) = t.strip_suffix("/incident") {
        return num(i).map(Threshold::PerIncident);
    }
    if let Some(r) = t.strip_suffix('x') {
        return num(r).map(Threshold::Ratio);
    }
    Err(format!("{allowed}; got `{s}`"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::settings::parse_profile;
    use crate::ops::inputs::parse_key_value;
    use clap::{Args, CommandFactory};

    #[test]
    fn thresholds_parse_in_each_form_and_refuse_others() {
        assert_eq!(parse_threshold("10%"), Ok(Threshold::Percent(10.0)));
        assert_eq!(
            parse_threshold("$500/month"),
            Ok(Threshold::PerMonth(500.0))
        );
        assert_eq!(
            parse_threshold("1,000/month"),
            Ok(Threshold::PerMonth(1000.0))
        );
        assert_eq!(
            parse_threshold("$1000/incident"),
            Ok(Threshold::PerIncident(1000.0))
        );
        assert_eq!(parse_threshold("2.5x"), Ok(Threshold::Ratio(2.5)));
        assert_eq!(
            parse_threshold("+100failed/incident"),
            Ok(Threshold::FailedPerIncident(100.0))
        );
        assert_eq!(
            parse_threshold("-0.01%availability"),
            Ok(Threshold::Availability(0.01))
        );
        let e = parse_threshold("10").unwrap_err();
        assert!(
            e.starts_with("expected 10% (the steady monthly total)"),
            "{e}"
        );
        assert!(parse_threshold("-1%").is_err());
    }

    #[test]
    fn cli_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The source flags (`ops::inputs::SourceArgs`, declared once) each command shows in its
    /// `--help`: every one but those `NOT_TAKEN` lists for it.
    fn source_flags(command: &str) -> Vec<String> {
        let cli = Cli::command();
        let sub = cli.find_subcommand(command).expect("a subcommand");
        let declared = SourceArgs::augment_args(clap::Command::new("x"));
        declared
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|long| {
                sub.get_arguments()
                    .any(|a| a.get_long() == Some(long) && !a.is_hide_set())
            })
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn each_command_takes_the_source_flags_that_make_sense_for_it() {
        let all = [
            "scenario",
            "config",
            "pricing",
            "profile",
            "config-file",
            "set",
            "chain",
            "env",
        ];
        for c in ["compare", "sweep", "tune"] {
            assert_eq!(source_flags(c), all, "{c}");
        }
        let diff = [
            "scenario",
            "pricing",
            "profile",
            "config-file",
            "set",
            "chain",
            "env",
        ];
        assert_eq!(source_flags("diff"), diff);
        let check = [
            "scenario",
            "config",
            "pricing",
            "profile",
            "config-file",
            "env",
        ];
        assert_eq!(source_flags("check"), check);
    }

    #[test]
    fn a_source_flag_a_command_does_not_take_is_refused_with_why() {
        let err = |args: &[&str]| {
            let e = Cli::try_parse_from(args).unwrap_err();
            one_line_usage_error(&e.to_string(), Some(args[1]))
        };
        assert_eq!(
            err(&["fallcost", "diff", "a.yaml", "b.yaml", "--config", "c.yaml"]),
            "invalid value 'c.yaml' for '--config <FILE>': not taken: diff takes its gateway configs as BASE and HEAD paths (see `fallcost diff --help`)"
        );
        assert_eq!(
            err(&["fallcost", "check", "--set", "steady.failure_rate=0"]),
            "invalid value 'steady.failure_rate=0' for '--set <KEY=VALUE>': not taken: check judges every chain of its files as written (see `fallcost check --help`)"
        );
        // the flags tune and diff lacked before they were declared once
        let tune = Cli::try_parse_from(["fallcost", "tune", "--pricing", "2026-07"]).unwrap();
        let Command::Tune(t) = tune.command else {
            panic!("tune")
        };
        assert_eq!(t.source.pricing.as_deref(), Some("2026-07"));
        let diff = Cli::try_parse_from(["fallcost", "diff", "a", "b", "--chain", "x"]).unwrap();
        let Command::Diff(d) = diff.command else {
            panic!("diff")
        };
        assert_eq!(d.source.chains, ["x"]);
        // --env VAR=VALUE, repeatable; a value may hold `=`; a name that is no variable's is
        // refused with why
        let check = Cli::try_parse_from([
            "fallcost",
            "check",
            "--env",
            "PRIMARY_MODEL=openai/gpt-4o",
            "--env",
            "B=x=y",
        ])
        .unwrap();
        let Command::Check(c) = check.command else {
            panic!("check")
        };
        assert_eq!(
            c.source.env,
            [
                ("PRIMARY_MODEL".to_string(), "openai/gpt-4o".to_string()),
                ("B".to_string(), "x=y".to_string())
            ]
        );
        assert!(
            err(&["fallcost", "check", "--env", "1X=a"]).contains("`1X` is not a variable name"),
        );
        assert!(err(&["fallcost", "compare", "--env", "NOEQUALS"]).contains("expected VAR=VALUE"));
    }

    #[test]
    fn usage_errors_become_one_line() {
        // `compare` needs --scenario or --config, which fallcost.toml may give: it says so
        // itself (tests/it/cli.rs); `sweep` always needs --param.
        let err = Cli::try_parse_from(["fallcost", "sweep"]).unwrap_err();
        let line = one_line_usage_error(&err.to_string(), Some("sweep"));
        assert!(!line.contains('\n'), "{line}");
        assert!(line.contains("--param <KEY=FROM:TO:STEP>"), "{line}");
    }

    #[test]
    fn mc_counts_are_bounded_by_the_documented_maximum() {
        assert_eq!(MAX_MC_REQUESTS as f64, 1e12);
        assert_eq!(parse_mc_requests("1e12"), Ok(MAX_MC_REQUESTS));
        assert_eq!(parse_mc_requests("1_000_000_000_000"), Ok(MAX_MC_REQUESTS));
        assert_eq!(parse_mc_requests("2"), Ok(2));
        let range = "is out of range; allowed: 2 to 1e12 requests per chain (2 for a confidence interval; 1e12 is hours of simulation)";
        for big in [
            "1000000000001",
            "1.1e12",
            "1e18",
            "1e20",
            "100000000000000000000",
            "1e400",
            "1",
            "0",
            "-5",
        ] {
            assert_eq!(
                parse_mc_requests(big),
                Err(format!("`{big}` {range}")),
                "{big}"
            );
        }
        assert_eq!(
            parse_mc_requests("1.5"),
            Err("expected a whole number such as 1000000 or 1e6; got `1.5`".into())
        );
        // the generic count: a number too large for u64 is a range error too
        assert_eq!(
            parse_count("1e20"),
            Err(format!(
                "`1e20` is out of range; allowed: 2 to {} (2 for a confidence interval)",
                u64::MAX
            ))
        );
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

    /// The help of `fallcost ARGS --help` as printed on a terminal `width` columns wide.
    fn help_at(width: usize, args: &[&str]) -> String {
        let mut argv = vec!["fallcost"];
        argv.extend(args);
        argv.push("--help");
        let err = Cli::command()
            .term_width(width)
            .try_get_matches_from(argv)
            .unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp);
        err.render().to_string()
    }

    /// Words of a command line as a POSIX shell splits it, for the quoting the examples use:
    /// single quotes, and `\` before a newline continuing the line.
    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word: Option<String> = None;
        let mut quoted = false;
        for c in line.replace("\\\n", " ").chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    word.get_or_insert_default();
                }
                c if c.is_whitespace() && !quoted => words.extend(word.take()),
                c => word.get_or_insert_default().push(c),
            }
        }
        assert!(!quoted, "unterminated quote in {line}");
        words.extend(word);
        words
    }

    /// Every example in every `--help` fits an 80-column terminal unwrapped, continues a long
    /// command with `\` (so it can be pasted), and is a command line fallcost accepts.
    #[test]
    fn help_examples_fit_80_columns_and_parse() {
        let mut checked = 0;
        for sub in [
            &[][..],
            &["compare"],
            &["sweep"],
            &["prices"],
            &["check"],
            &["bench"],
            &["tune"],
            &["calibrate"],
            &["diff"],
            &["reconcile"],
        ] {
            let help = help_at(80, sub);
            let examples = help
                .split("Examples")
                .nth(1)
                .unwrap_or_else(|| panic!("no examples in {sub:?}"));
            let block = examples
                .lines()
                .skip_while(|l| !l.ends_with("):") && *l != ":")
                .skip(1)
                .take_while(|l| !l.is_empty());
            let mut command = String::new();
            for line in block {
                assert!(line.chars().count() <= 80, "{sub:?}: too wide: {line}");
                if command.is_empty() {
                    assert!(
                        line.starts_with("  fallcost ")
                            || line.starts_with("  RAYON_NUM_THREADS=1 fallcost "),
                        "{sub:?}: not a command (wrapped?): {line}"
                    );
                } else {
                    assert!(
                        line.starts_with("    "),
                        "{sub:?}: bad continuation: {line}"
                    );
                }
                command.push_str(line);
                command.push('\n');
                if line.ends_with(" \\") {
                    continue;
                }
                let words = shell_words(&command);
                let argv: Vec<&str> = words
                    .iter()
                    .map(String::as_str)
                    .skip_while(|w| w.contains('='))
                    .collect();
                assert_eq!(argv[0], "fallcost");
                if let Err(e) = Cli::try_parse_from(&argv) {
                    panic!("{sub:?}: {command}: {e}");
                }
                checked += 1;
                command.clear();
            }
            assert!(command.is_empty(), "{sub:?}: dangling continuation");
        }
        assert!(checked >= 20, "only {checked} examples found");
    }

    /// Every subcommand's text after its options (examples and notes) is wrapped by hand
    /// within 80 columns: clap wraps it again on an 80-column terminal, and a hand-wrapped
    /// line longer than that leaves ragged lines and breaks an example mid-command.
    #[test]
    fn every_after_help_is_wrapped_within_80_columns() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert!(names.len() >= 10, "{names:?}");
        let mut wide = Vec::new();
        for name in &names {
            let help = help_at(1000, &[name.as_str()]);
            let Some(after) = help.split("\nExamples").nth(1) else {
                continue;
            };
            wide.extend(
                after
                    .lines()
                    .filter(|l| l.chars().count() > 80)
                    .map(|l| format!("{name}: {l}")),
            );
        }
        assert!(wide.is_empty(), "{}", wide.join("\n"));
    }

    #[test]
    fn check_flags_parse_ratios_and_profiles() {
        assert_eq!(parse_ratio("2"), Ok(2.0));
        assert_eq!(parse_ratio("1.5"), Ok(1.5));
        for bad in ["0", "-1", "nan", "inf", "x"] {
            assert!(parse_ratio(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_profile("2000/500"), Ok((2000, 500)));
        assert_eq!(parse_profile(" 0 / 1200 "), Ok((0, 1200)));
        for bad in ["2000", "a/b", "0/0", "-1/5", "2000/500/1"] {
            assert!(parse_profile(bad).is_err(), "{bad}");
        }
    }
}

/// Whose usage assumptions price BASE in `fallcost diff --base-ref` (`--usage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UsageSide {
    /// Each side its own: BASE with fallcost.toml's `[usage]` as it is at the ref.
    Own,
    /// HEAD's on both sides.
    Head,
}

/// `fallcost diff`.
#[derive(Debug, Args)]
#[command(mut_args(|a| crate::ops::inputs::only_taken("diff", a)))]
pub struct DiffArgs {
    /// The usage scenario, prices, profile, settings, overrides and chains (the source flags; `--config` is BASE and HEAD).
    #[command(flatten)]
    pub source: SourceArgs,
    /// BASE then HEAD: two scenarios (`.toml`), two gateway configs, or two folders of
    /// configs. With --base-ref: HEAD's paths only (one or more), BASE being the same paths at
    /// the ref.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// BASE is PATH... as they are at this git ref (read with `git show REF:path`, no
    /// checkout): `origin/main`, a tag, a commit.
    #[arg(long, value_name = "REF")]
    pub base_ref: Option<String>,
    /// The pattern every chain is priced under (a gateway's failover is `sequential`).
    #[arg(long, value_name = "PATTERN", default_value = "sequential", value_parser = parse_pattern)]
    pub pattern: crate::model::Pattern,
    /// Every chain's traffic, requests per month (`3e6`); wins over fallcost.toml `[usage]`.
    #[arg(long, value_name = "N", value_parser = parse_mc_requests)]
    pub requests_per_month: Option<u64>,
    /// Flag HEAD's chains whose month with the reference incident (with a history: plus its
    /// p95 year's premium) costs more than this many USD; wins over fallcost.toml `[usage]` budget.
    #[arg(long, value_name = "USD", value_parser = parse_ratio)]
    pub budget: Option<f64>,
    /// Incident history files for the expected annual premium and its p95 (as `compare
    /// --incidents`); win over fallcost.toml `[usage]` history.
    #[arg(long, value_name = "FILE")]
    pub incidents: Vec<PathBuf>,
    /// Years simulated for the premium.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = parse_count)]
    pub years: u64,
    /// Fail (exit 1) above a threshold: `10%` (steady monthly total), `$500/month`,
    /// `$1000/incident` (the reference incident's bill), `3x` (a changed chain's worst fallback
    /// ratio), `+100failed/incident` (the reference incident's failed requests),
    /// `-0.01%availability` (percentage points, with a history). Repeat for several.
    #[arg(long = "fail-above", value_name = "LIMIT", value_parser = parse_threshold)]
    pub fail_above: Vec<Threshold>,
    /// Print nothing unless some chain (or the total) costs or fails more in HEAD, or a
    /// threshold is crossed.
    #[arg(long)]
    pub only_increases: bool,
    /// With --base-ref, the usage assumptions BASE is priced with: `own` (fallcost.toml's
    /// `[usage]` and its scenario as they are at the ref: a change to them is a change) or
    /// `head` (HEAD's on both sides: only the configs' change).
    #[arg(long, value_enum, default_value = "own")]
    pub usage: UsageSide,
    /// Simulate the changed chains' differences on common random numbers, N requests per
    /// chain and side (default 1,000,000).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "1000000", value_parser = parse_mc_requests)]
    pub mc: Option<u64>,
    /// Incident windows per chain and side with --mc (default 200).
    #[arg(long = "mc-runs", value_name = "K", requires = "mc", value_parser = parse_count)]
    pub mc_runs: Option<u64>,
    /// The seed of the simulated years and of --mc (default 1: a pull request's comment stays
    /// the same from push to push).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = crate::output::diff::DiffFormat::Table)]
    pub format: crate::output::diff::DiffFormat,
    /// Write to this file instead of standard output (`-`).
    #[arg(long, short = 'o', value_name = "PATH", default_value = "-")]
    pub output: String,
}

fn parse_pattern(s: &str) -> Result<crate::model::Pattern, String> {
    crate::model::Pattern::ALL
        .into_iter()
        .find(|p| p.as_str() == s)
        .ok_or_else(|| {
            format!(
                "expected no-fallback, sequential, hedged-take-first or hedged-no-cancel; got `{s}`"
            )
        })
}
