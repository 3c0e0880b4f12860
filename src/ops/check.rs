//! The check operation: resolve `fallcost check`'s flags against the project settings
//! (fallcost.toml; every flag given wins), and check every file under the paths, returning
//! the [`CheckReport`] (the finding logic is [`crate::check`]; [`crate::output::check`]
//! renders it).

use std::path::PathBuf;

use crate::check::{CheckOptions, files};
use crate::error::{InputError, InputErrorKind};
use crate::input::pricing::{PricingRef, broad_name};
use crate::input::settings::{self, CheckSettings, UsageSettings};
use crate::model::Request;
use crate::ops::inputs::{Project, SourceArgs};
use crate::report::check::{CheckReport, IncidentCheck};

/// What `fallcost check` was asked (its flags, without the output format), before the project
/// settings fill what they leave out: built from the command line by [`crate::cmd::check`].
#[derive(Debug, Clone, Default)]
pub struct CheckFlags {
    /// The files and folders given (empty: fallcost.toml's `paths`, else the current folder).
    pub paths: Vec<PathBuf>,
    /// `--max-ratio`: the largest like-for-like price multiple of a fallback over its primary.
    pub max_ratio: Option<f64>,
    /// The source flags: `--pricing` (the price table's name or path), `--profile` (the
    /// gateway request's input and output tokens), `--config-file` (the project settings to
    /// read instead of the nearest fallcost.toml); `--scenario` and `--config` add files to
    /// check.
    pub source: SourceArgs,
    /// `--prefix`: the cached prefix of the gateway request, tokens.
    pub prefix: u64,
    /// `--hit-rate`: share of the cached prefix read from cache when warm (0 to 1).
    pub hit_rate: f64,
    /// `--incident`: an outage duration as written (`3h`, `45m`).
    pub incident: Option<String>,
    /// `--rate`: requests per second during the incident.
    pub rate: f64,
    /// `--session-length`: requests per session during the incident.
    pub session_length: u64,
    /// `--deny-warnings`: warnings make the exit status 1.
    pub deny_warnings: bool,
    /// `--allow`: models or providers allowed above the ratio.
    pub allow: Vec<String>,
    /// `--max-usd-per-1k`: the absolute limit for a fallback of a free primary, USD per 1,000
    /// requests.
    pub max_usd_per_1k: Option<f64>,
    /// The fit flags: `--requires`, `--deprecation-days`, `--today`, `--max-refused`,
    /// `--severity`.
    pub fit: FitArgs,
}

/// `fallcost check`'s flags for whether a fallback can take the load and serve the request
/// ([`crate::check::fit`]), flattened into its command line; fallcost.toml's `[check]`
/// `requires`, `deprecation_days` and `severity` fill what they leave out.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct FitArgs {
    /// A capability every request needs: `tools`, `vision` or `json` (repeat, or a comma
    /// list). A fallback the price table says lacks it is an error (`capability`); one it
    /// says nothing about, a note.
    #[arg(long, value_name = "CAPABILITY", value_delimiter = ',', value_parser = parse_capability)]
    pub requires: Vec<crate::model::fit::Capability>,
    /// A fallback whose model retires within DAYS (the price table's `deprecation_date`) is a
    /// warning (`retiring`); one already retired is an error (`retired`). Default:
    /// fallcost.toml's `deprecation_days`, else 90.
    #[arg(long, value_name = "DAYS")]
    pub deprecation_days: Option<u32>,
    /// The day retirements are judged on, YYYY-MM-DD (default: today, UTC), for a CI run that
    /// must give the same answer on any day.
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub today: Option<String>,
    /// With --incident: a first fallback whose rpm/tpm limit refuses more than this share of
    /// what the outage sends it is a finding (`capacity`). Default 0.001 (one in 1,000).
    #[arg(long, value_name = "SHARE", value_parser = parse_refused)]
    pub max_refused: Option<f64>,
    /// Set a fit finding's severity: KIND=LEVEL, KIND one of retired, retiring,
    /// context-window, capability, capacity; LEVEL error, warning or note. Repeatable.
    #[arg(long, value_name = "KIND=LEVEL", value_parser = parse_severity_flag)]
    pub severity: Vec<(String, crate::report::check::Severity)>,
}

fn parse_capability(s: &str) -> Result<crate::model::fit::Capability, String> {
    crate::model::fit::Capability::parse(s.trim())
        .ok_or_else(|| format!("expected `tools`, `vision` or `json`; got `{s}`"))
}

fn parse_date(s: &str) -> Result<String, String> {
    crate::model::fit::day_number(s.trim())
        .map(|_| s.trim().to_string())
        .ok_or_else(|| format!("expected a date YYYY-MM-DD, e.g. 2026-12-06; got `{s}`"))
}

fn parse_refused(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "expected a share from 0 to 1, e.g. 0.01; got `{s}`"
        )),
    }
}

fn parse_severity_flag(s: &str) -> Result<(String, crate::report::check::Severity), String> {
    let (kind, level) = s
        .split_once('=')
        .ok_or_else(|| format!("expected KIND=LEVEL, e.g. retiring=error; got `{s}`"))?;
    crate::check::fit::parse_severity(kind.trim(), level.trim())
}

/// The fit rules of `args`, fallcost.toml's `[check]` filling what they leave out.
fn fit_rules(args: &FitArgs, settings: &CheckSettings) -> crate::check::fit::FitRules {
    use crate::check::fit::{DEFAULT_DEPRECATION_DAYS, DEFAULT_MAX_REFUSED, FitRules};
    // the settings' entries are validated as they are read
    let mut severity: std::collections::BTreeMap<String, crate::report::check::Severity> =
        (settings.severity.iter().flatten())
            .filter_map(|(k, l)| crate::check::fit::parse_severity(k, l).ok())
            .collect();
    severity.extend(args.severity.iter().cloned());
    FitRules {
        requires: if args.requires.is_empty() {
            settings.requires.clone().unwrap_or_default()
        } else {
            args.requires.clone()
        },
        deprecation_days: args
            .deprecation_days
            .or(settings.deprecation_days)
            .map_or(DEFAULT_DEPRECATION_DAYS, i64::from),
        today: args
            .today
            .clone()
            .unwrap_or_else(|| FitRules::default().today),
        max_refused: args.max_refused.unwrap_or(DEFAULT_MAX_REFUSED),
        severity,
    }
}

/// A check to run: the paths, the options every chain is judged with, and whether warnings
/// fail the run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The files and folders to check (the flags', else fallcost.toml's `paths`).
    pub paths: Vec<PathBuf>,
    /// The price table, profile, ratio, allow list and incident every chain is judged with.
    pub options: CheckOptions,
    /// `--deny-warnings` (or the settings'): warnings make the exit status 1.
    pub deny_warnings: bool,
}

/// The [`Plan`] of `args`, with fallcost.toml (`--config-file`, else the nearest one) filling
/// what the flags leave out.
///
/// Errors: unreadable settings; a `--pricing` table that cannot be loaded (before any file is
/// read); an `--incident` that is not a duration.
pub fn plan(args: &CheckFlags) -> crate::ops::OpsResult<Plan> {
    // Project settings (fallcost.toml): every flag given wins over them.
    let project = Project::of(&args.source);
    let settings = project.check()?;
    let spec = args
        .source
        .pricing
        .as_deref()
        .or(settings.pricing.as_deref())
        .unwrap_or(broad_name());
    // fallcost.toml [prices]: the project's own prices, over the table's (and a scenario's).
    let own = project.prices()?;
    let prices = own.over(PricingRef::parse(spec, None).load()?);
    // fallcost.toml [usage]: the request and the reference incident `diff` and `compare` use.
    let usage = project.usage_as_read()?;
    let (input_tokens, output_tokens) = args
        .source
        .profile
        .or(settings.profile)
        .or(usage.profile)
        .unwrap_or((2000, 500));
    let (allow, allow_from) = allowed(args, &settings);
    let paths = paths_to_check(args, &settings);
    let incident = incident_check(args, &usage)?;
    let deny_warnings = args.deny_warnings || settings.deny_warnings.unwrap_or(false);
    let options = CheckOptions {
        max_ratio: args.max_ratio.or(settings.max_ratio).unwrap_or(2.0),
        profile: Request {
            input_tokens: input_tokens as f64,
            output_tokens: output_tokens as f64,
            prefix_tokens: args.prefix as f64,
            cache_hit_rate: args.hit_rate,
        },
        prices,
        allow,
        allow_from,
        incident,
        max_usd_per_1k: args
            .max_usd_per_1k
            .unwrap_or(crate::check::DEFAULT_MAX_USD_PER_1K),
        fit: fit_rules(&args.fit, &settings),
        own_prices: own.prices,
        env: crate::input::gateway::Env::new(&args.source.env),
        shares: usage.shares.clone(),
    };
    Ok(Plan {
        paths,
        options,
        deny_warnings,
    })
}

/// The allowed chains: `--allow`, else the settings' `allow` (with the settings file they come
/// from).
fn allowed(args: &CheckFlags, settings: &CheckSettings) -> (Vec<String>, Option<String>) {
    if args.allow.is_empty() {
        (
            settings.allow.clone().unwrap_or_default(),
            settings.allow.as_ref().map(|_| settings.file.clone()),
        )
    } else {
        (args.allow.clone(), None)
    }
}

/// The files to check: the PATHs, `--scenario` and `--config` (named files to check, as PATHs
/// are), else the settings' `paths`.
fn paths_to_check(args: &CheckFlags, settings: &CheckSettings) -> Vec<PathBuf> {
    let given: Vec<PathBuf> = (args.paths.iter())
        .chain(&args.source.scenario)
        .chain(&args.source.config)
        .cloned()
        .collect();
    match (&given, &settings.paths) {
        (given, _) if !given.is_empty() => given.clone(),
        (_, Some(from_file)) => from_file.clone(),
        _ => Vec::new(),
    }
}

/// The incident `check` prices: `--incident` (a duration) at `--rate`, else fallcost.toml's
/// `[usage]` incident at its rate (its monthly requests spread evenly, else `--rate`).
///
/// Errors: an `--incident` that is not a duration.
fn incident_check(
    args: &CheckFlags,
    usage: &UsageSettings,
) -> Result<Option<IncidentCheck>, InputError> {
    Ok(match &args.incident {
        Some(d) => Some(IncidentCheck {
            duration_s: crate::input::duration::parse_seconds(d)
                .map_err(|e| InputError::file(InputErrorKind::Invalid, "--incident", e))?,
            requests_per_second: args.rate,
            session_length: args.session_length,
        }),
        None => usage.incident_s.map(|duration_s| IncidentCheck {
            duration_s,
            requests_per_second: usage
                .incident_requests_per_second
                .or(usage
                    .requests_per_month
                    .map(|n| n / settings::usage::MONTH_S))
                .unwrap_or(args.rate),
            session_length: args.session_length,
        }),
    })
}

/// Check every file under `plan.paths`.
pub fn run(plan: &Plan) -> CheckReport {
    files::check_paths(&plan.paths, &plan.options)
}
