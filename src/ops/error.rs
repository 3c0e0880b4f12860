//! The ops layer's one error type, [`OpsError`]: what an operation refuses or fails at, beside
//! the input and model errors it passes on unchanged. `cmd` turns it into the one line the
//! binary prints (exit 2); every variant's `Display` is that line's text.

use std::path::PathBuf;

use crate::error::{InputError, ValueError};
use crate::model::error::ModelError;

/// An operation's error: an invalid input or value passed on as it is, an I/O or git failure
/// with what was being done, or a refusal of the operation itself (what is missing and how to
/// give it). Every one is a bad input or usage (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// An input file (or flag standing for one) is unreadable or invalid.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A value (a `--chain` selection, a tuning space) is not allowed.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// The model refuses a timeline or lacks a price.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A file the operation writes or reads itself (a temporary copy) failed; the message is
    /// the system's.
    #[error("{error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// An incident of a history whose outages make no valid timeline.
    #[error("{file}: incident {id} ({name}): {error}")]
    HistoryTimeline {
        /// The history file it came from.
        file: String,
        /// The window's number (1-based).
        id: usize,
        /// The incident's name on its page.
        name: String,
        /// Why the timeline is not valid.
        error: Box<crate::model::ModelError>,
    },
    /// `--incidents` on a scenario without an `[incident]`.
    #[error(
        "--incidents replaces the scenario's outage with each incident of the history, and needs its [incident] for requests_per_second and session_length; add an [incident] to the scenario"
    )]
    IncidentsNeedIncident,
    /// `--years` on a scenario without an `[incident]`.
    #[error("--years needs the scenario's [incident] (see --incidents)")]
    YearsNeedIncident,
    /// A history window's figure is not a finite number.
    #[error(
        "incident {id}: {field} is not a finite number; the scenario's values are too large to price"
    )]
    IncidentNotFinite {
        /// The window's number (1-based).
        id: usize,
        /// The figure.
        field: String,
    },
    /// A history with no incident left to price.
    #[error(
        "{files}: the history holds no incident to price ({open} open skipped, {none} of impact none skipped)"
    )]
    EmptyHistory {
        /// The history files, comma-separated.
        files: String,
        /// Incidents still open (no end), skipped.
        open: usize,
        /// Incidents of impact `none`, skipped.
        none: usize,
    },
    /// A history whose period is empty.
    #[error(
        "{files}: the history covers no time ({start} to {end}): state its period (a CSV's `# period: START/END` line, or --since/--until)"
    )]
    HistoryCoversNoTime {
        /// The history files, comma-separated.
        files: String,
        /// The period's start (RFC 3339).
        start: String,
        /// The period's end (RFC 3339).
        end: String,
    },

    /// No scenario and no config, from the flags or fallcost.toml's `[compare]`.
    #[error(
        "the following required arguments were not provided: --scenario <PATH> or --config <FILE> (or `scenario`/`config` in fallcost.toml's [compare]; see `fallcost {command} --help`)"
    )]
    NoSource {
        /// The subcommand, for its `--help`.
        command: String,
    },
    /// `--profile` with a scenario and no config.
    #[error("--profile prices a gateway config: it needs --config")]
    ProfileWithoutConfig,
    /// `--pricing` with a scenario and no config.
    #[error(
        "--pricing prices a gateway config: it needs --config (a scenario uses its own `pricing`)"
    )]
    PricingWithoutConfig,
    /// `--env` with a scenario and no config.
    #[error(
        "--env gives a gateway proxy's environment (the model ids a config reads from it): it needs --config"
    )]
    EnvWithoutConfig,
    /// A scenario invalid at a point of the sweep's grid (`at`: `key=value, …`).
    #[error("{error} (at {at})")]
    AtGridPoint {
        /// What is invalid there.
        error: Box<InputError>,
        /// The point, `key=value` joined by `, `.
        at: String,
    },
    /// A scenario invalid at a point tune tries (`at`: `key=value --set key=value …`).
    #[error("{error} (tune at --set {at})")]
    AtTunePoint {
        /// What is invalid there.
        error: Box<InputError>,
        /// The settings, `key=value` joined by ` --set `.
        at: String,
    },
    /// A model tune would put on a chain (`--candidate`, or a value of the space's
    /// `chain.NAME.models`) that the scenario refuses there, found before the search: the
    /// chain of the search's first value holding it (`at`: `chain.NAME.models=[..]`).
    #[error(
        "{error} (tune {model} on chain `{chain}`, checked before the search at --set {at}; nothing was priced)"
    )]
    TuneModel {
        /// What is invalid there.
        error: Box<InputError>,
        /// The model: `--candidate MODEL`, or `` `MODEL` `` from the space.
        model: String,
        /// The chain.
        chain: String,
        /// The chain value, `chain.NAME.models=[..]`.
        at: String,
    },
    /// The sweep's grid is too large.
    #[error("the grid has {total} points; at most {max}")]
    TooManyPoints {
        /// Points asked for.
        total: usize,
        /// Points allowed.
        max: usize,
    },
    /// A figure is not a finite number at a point of the sweep's grid.
    #[error("{label}: {field} is not a finite number at this grid point")]
    NotFinite {
        /// The scenario's label.
        label: String,
        /// The figure.
        field: String,
    },
    /// `tune --budget` without the monthly traffic.
    #[error(
        "--budget needs the monthly traffic: give --requests-per-month N (the scenario has no [incident] whose rate would stand for it)"
    )]
    BudgetNeedsTraffic,
    /// `tune --history` on a scenario without an `[incident]`.
    #[error(
        "--history replays each incident of the history on the scenario's [incident] (its requests_per_second and session_length); add an [incident] to the scenario"
    )]
    HistoryNeedsIncident,
    /// `tune`: the incidents of a year hold more requests than the year.
    #[error(
        "{incidents_per_year} incidents a year of {requests} requests each are more requests than the year's {year} ({traffic}); lower --incidents-per-year or raise --requests-per-month"
    )]
    IncidentsExceedYear {
        /// `--incidents-per-year`.
        incidents_per_year: f64,
        /// Requests in one incident.
        requests: u64,
        /// Requests in the year.
        year: f64,
        /// Where the monthly traffic came from.
        traffic: String,
    },
    /// `diff --fail-above` in percent or $/month without every chain's traffic.
    #[error(
        "--fail-above in percent or $/month needs every chain's traffic: requests_per_month in fallcost.toml [usage] (or [usage.chains]), or --requests-per-month"
    )]
    ThresholdNeedsTraffic,
    /// `diff --fail-above` per incident (`$/incident`, `failed/incident`) without the
    /// reference incident on both sides.
    #[error(
        "--fail-above {per} needs the reference incident on both sides: an [incident] in the scenarios, or `incident` in fallcost.toml [usage]"
    )]
    ThresholdNeedsIncident {
        /// The threshold's unit: `$/incident` or `failed/incident`.
        per: &'static str,
    },
    /// `diff --fail-above %availability` without an incident history on both sides.
    #[error(
        "--fail-above %availability needs an incident history on both sides: `history` in fallcost.toml [usage], or --incidents FILE"
    )]
    ThresholdNeedsHistory,
    /// `diff --chain` names a chain neither side has.
    #[error("--chain {name}: no such chain in BASE or HEAD; they have: {have}")]
    NoChainInSides {
        /// The name given.
        name: String,
        /// The chains of both sides, comma-separated.
        have: String,
    },
    /// Neither side of a diff has a fallback chain.
    #[error("no fallback chain in BASE ({base}) nor in HEAD ({head}): nothing to diff")]
    NothingToDiff {
        /// BASE's label.
        base: String,
        /// HEAD's label.
        head: String,
    },
    /// `--base-ref`: git cannot be run.
    #[error("--base-ref {git_ref}: cannot run git: {error}")]
    GitRun {
        /// The ref.
        git_ref: String,
        /// Why it cannot be run.
        error: std::io::Error,
    },
    /// `--base-ref`: git ran and failed.
    #[error("--base-ref {git_ref}: git {args}: {stderr}")]
    GitFailed {
        /// The ref.
        git_ref: String,
        /// git's arguments, space-separated.
        args: String,
        /// What git said (trimmed).
        stderr: String,
    },
    /// `--base-ref` outside a git repository.
    #[error(
        "--base-ref {git_ref}: the current folder is not inside a git repository (run fallcost diff from the repository's checkout)"
    )]
    NotARepository {
        /// The ref.
        git_ref: String,
    },
    /// `--base-ref` names no commit of this clone.
    #[error(
        "--base-ref {git_ref}: git knows no commit `{git_ref}` in this repository{} (fetch it first: git fetch origin {git_ref}; or check the name with git log --oneline -1 {git_ref})",
        if *.shallow { ": the clone is shallow, so the base branch's commits may not have been fetched" } else { "" }
    )]
    NoCommit {
        /// The ref.
        git_ref: String,
        /// Whether the clone is shallow.
        shallow: bool,
    },
    /// git listed paths that are not UTF-8.
    #[error(transparent)]
    GitNotUtf8(#[from] std::str::Utf8Error),
    /// `prices`: no model of the table matches the filters.
    #[error(
        "no model of price table {spec} matches{}{}",
        .pattern.as_ref().map_or(String::new(), |p| format!(" `{p}`")),
        .provider.as_ref().map_or(String::new(), |p| format!(" with provider `{p}`"))
    )]
    NoMatchingModel {
        /// The table.
        spec: String,
        /// The id pattern given.
        pattern: Option<String>,
        /// The provider given.
        provider: Option<String>,
    },
    /// `reconcile`: the exports bill no amount.
    #[error(
        "{files}: no billed amount in these exports; add the cost export (OpenAI costs, Anthropic cost_report), or an OpenRouter activity or plain CSV with billed_usd"
    )]
    NoBilledAmount {
        /// The export files, comma-separated.
        files: String,
    },
    /// `reconcile --chain` names a chain the scenario lacks.
    #[error("--chain {name}: no such chain in {scenario}; its chains: {have}")]
    NoChainIn {
        /// The name given.
        name: String,
        /// The scenario's name.
        scenario: String,
        /// Its chains, comma-separated.
        have: String,
    },
    /// `reconcile`: a scenario without chains.
    #[error("{scenario}: the scenario has no chain")]
    NoChain {
        /// The scenario's name.
        scenario: String,
    },
    /// `reconcile`: the chain has no sequential steady row to price a request with.
    #[error("{chain}: no sequential steady row")]
    NoSteadyRow {
        /// The chain.
        chain: String,
    },
    /// `reconcile`: the exports bill none of the chain's models.
    #[error("chain {chain} ({models}): the exports bill none of its models")]
    BillsNoModel {
        /// The chain.
        chain: String,
        /// Its models, comma-separated.
        models: String,
    },
}

impl OpsError {
    /// An [`OpsError::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        OpsError::Io {
            path: path.into(),
            error,
        }
    }
}

/// A result of the ops layer.
pub type OpsResult<T, E = OpsError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_print_as_before() {
        let no_commit = |shallow| {
            OpsError::NoCommit {
                git_ref: "origin/main".into(),
                shallow,
            }
            .to_string()
        };
        assert_eq!(
            no_commit(false),
            "--base-ref origin/main: git knows no commit `origin/main` in this repository (fetch it first: git fetch origin origin/main; or check the name with git log --oneline -1 origin/main)"
        );
        assert!(no_commit(true).contains(
            "in this repository: the clone is shallow, so the base branch's commits may not have been fetched (fetch"
        ));
        let no_match = |pattern: Option<&str>, provider: Option<&str>| {
            OpsError::NoMatchingModel {
                spec: "2026-07".into(),
                pattern: pattern.map(str::to_string),
                provider: provider.map(str::to_string),
            }
            .to_string()
        };
        assert_eq!(
            no_match(None, None),
            "no model of price table 2026-07 matches"
        );
        assert_eq!(
            no_match(Some("gpt*"), Some("openai")),
            "no model of price table 2026-07 matches `gpt*` with provider `openai`"
        );
    }

    #[test]
    fn passed_on_errors_print_as_they_are() {
        let input = InputError::file(crate::error::InputErrorKind::Read, "s.toml", "missing");
        assert_eq!(OpsError::from(input.clone()).to_string(), input.to_string());
        // a history window's invalid timeline names its file, window and incident
        let timeline = crate::model::timeline::Timeline::new(-1.0, Vec::new()).unwrap_err();
        let e = OpsError::HistoryTimeline {
            file: "page.json".into(),
            id: 3,
            name: "Elevated errors".into(),
            error: Box::new(timeline.clone()),
        };
        assert_eq!(
            e.to_string(),
            format!("page.json: incident 3 (Elevated errors): {timeline}")
        );
    }
}
