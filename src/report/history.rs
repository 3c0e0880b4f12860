//! The result of `fallcost compare --incidents` (issue 14): a history of incidents replayed on
//! every chain, and with `--years` a year of them simulated. USD unless stated.
//!
//! Result types only; [`crate::ops::history`] fills them, [`crate::output`]'s history module
//! renders them.

use serde::Serialize;

use crate::figures::IncidentFigures;
use crate::model::Pattern;

use super::{IncidentRow, Method};

/// `compare --incidents`: the replay, its totals and, with `--years`, the simulated years.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryReport {
    /// The crate version that made the report.
    pub fallcost_version: &'static str,
    /// The scenario's name.
    pub scenario: String,
    /// Its price table.
    pub pricing: String,
    /// What was read and how it was priced.
    pub history: HistoryMeta,
    /// The incident windows, in calendar order: overlapping incidents (of different
    /// providers, merged on one calendar) are one window.
    pub incidents: Vec<ReplayIncident>,
    /// One row per incident window × chain × pattern: the incident rows of `compare` on a
    /// scenario whose outage is that window's timeline.
    pub rows: Vec<ReplayRow>,
    /// Per chain and pattern, the rows added up over the history.
    pub totals: Vec<ReplayTotal>,
    /// The totals per year of the history's period (total / period in years).
    pub per_year: Vec<ReplayTotal>,
    /// With `--years N`: N simulated years per chain and pattern.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub years: Option<YearsReport>,
    /// How the figures were made: the assumptions a reader needs.
    pub notes: Vec<String>,
}

impl HistoryReport {
    /// Leave out the blended traffic-share rows (`--chain` kept only some chains: the blend
    /// needs every chain's share).
    pub fn omit_blended(&mut self) {
        self.rows.retain(|r| r.row.chain != super::BLENDED);
        self.totals.retain(|r| r.chain != super::BLENDED);
        self.per_year.retain(|r| r.chain != super::BLENDED);
    }
}

/// What the replay read, and the window every incident is priced in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryMeta {
    /// The history files, as given.
    pub files: Vec<String>,
    /// The providers of the history, sorted.
    pub providers: Vec<String>,
    /// The start of the period the history covers (its files' own coverage, or `--since`),
    /// RFC 3339 UTC.
    pub start: String,
    /// Its end (or `--until`), RFC 3339 UTC.
    pub end: String,
    /// The period's length, seconds.
    pub span_s: f64,
    /// The period in (Julian, 365.25-day) years: the per-year figures divide by it.
    pub span_years: f64,
    /// Incidents read (after joining overlapping incidents of one provider).
    pub source_incidents: usize,
    /// λ of the scenario's `[incident]`, requests per second, in every window.
    pub requests_per_second: f64,
    /// L of the scenario's `[incident]`, requests per session.
    pub session_length: u64,
    /// The error rate given to a Statuspage `minor` incident, in [0, 1].
    pub minor_error_rate: f64,
    /// Open incidents skipped under `--skip-open` (names).
    pub skipped_open: Vec<String>,
    /// Incidents of impact `none` skipped (count).
    pub skipped_none: usize,
    /// The period each file covers and where it came from (the history's period is their
    /// hull, or `--since`/`--until`).
    pub coverage: Vec<CoverageMeta>,
    /// Each provider's incident rate over the period, with its 95% interval (`sim::years::poisson_ci95`).
    pub rates: Vec<ProviderRate>,
}

/// The period one file covers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageMeta {
    /// The file (`--since/--until` for the flags).
    pub file: String,
    /// Its start, RFC 3339 UTC.
    pub start: String,
    /// Its end, RFC 3339 UTC.
    pub end: String,
    /// `page updated_at` (a Statuspage page: earliest incident to `updated_at`), `page
    /// incidents` (no `updated_at`: to the latest time it holds), `stated` (a CSV's `#
    /// period:`), `incidents` (a CSV stating none: first start to last end, a lower bound),
    /// `since-until`.
    pub source: &'static str,
}

/// One incident window of the replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayIncident {
    /// 1-based, in calendar order: the `incident` key of its rows.
    pub id: usize,
    /// The incidents' names, joined with ` + `.
    pub name: String,
    /// The providers down in it, in order of their first outage.
    pub providers: Vec<String>,
    /// Its start, RFC 3339 UTC.
    pub start: String,
    /// Its start, seconds since the Unix epoch.
    pub start_unix_s: f64,
    /// Its length, seconds (first start to last end of its incidents).
    pub duration_s: f64,
    /// N = λ·D, rounded.
    pub requests: u64,
    /// Its timeline: one outage per incident, offsets from the window's start.
    pub outages: Vec<ReplayOutage>,
    /// The period, seconds, over which windows of its set of providers were observed (the
    /// time all of its providers' files cover): its per-year weight is a year over it. Not
    /// in the documents (each rate's `period_years` is).
    #[serde(skip)]
    pub period_s: f64,
}

/// One outage of a window's timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayOutage {
    /// The provider down.
    pub provider: String,
    /// Its start offset from the window's start, seconds.
    pub start_s: f64,
    /// Its length, seconds.
    pub duration_s: f64,
    /// `fast` or `gray`.
    pub failure: &'static str,
    /// The share of its requests that fail, in [0, 1].
    pub error_rate: f64,
}

/// One pattern on one chain over one incident window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayRow {
    /// The window's [`ReplayIncident::id`].
    pub incident: usize,
    /// The window's name.
    pub name: String,
    /// The providers down in it.
    pub providers: Vec<String>,
    /// Its start, RFC 3339 UTC.
    pub start: String,
    /// Its length, seconds.
    pub duration_s: f64,
    /// Whether the analytic figures are approximate, as `compare` says of the same window's
    /// rows: a timeline with cuts counts cold starts and fail-back writes per segment
    /// (docs/MODEL.md §6); simulated rows say `method` instead.
    pub approximate: bool,
    /// The incident row's keys, as `compare` prints them.
    #[serde(flatten)]
    pub row: IncidentRow,
}

/// A chain and pattern over the whole history (or per year of it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayTotal {
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The incident windows added up.
    pub incidents: usize,
    /// `simulated` when a window's figures are (a circuit breaker: the incident simulator,
    /// fixed seed), else `analytic`.
    pub method: Method,
    /// Whether a window's analytic figures are approximate ([`ReplayRow::approximate`]).
    pub approximate: bool,
    /// With simulated windows: the largest of their bills' precisions (compare's
    /// `simulated_precision`: relative half-width at 4.5 standard errors, a fraction).
    pub simulated_precision: Option<f64>,
    /// The incident figures, added up over the windows (per year: divided by the span in
    /// years); the multiplier is total / normal of the sums.
    #[serde(flatten)]
    pub figures: IncidentFigures<f64>,
}

/// `--years N --seed S`: N simulated years of the history's incidents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct YearsReport {
    /// N, simulated years.
    pub years: u64,
    /// The seed.
    pub seed: u64,
    /// `poisson`, or `clustered` with a common year factor.
    pub model: &'static str,
    /// k of the common year factor Gamma(k, 1/k), when clustered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year_factor_shape: Option<f64>,
    /// Each process's rate (a set of providers whose incidents overlapped, or one), from the
    /// history.
    pub rates: Vec<ProviderRate>,
    /// `uncertain`: each simulated year draws every rate from its uncertainty, Gamma(n, r/n)
    /// (the rows' figures); the rows' `rate_known` are the same years at the history's rates.
    pub rate_model: &'static str,
    /// Per chain and pattern.
    pub rows: Vec<YearsRow>,
}

/// One provider's incident rate in the years simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderRate {
    /// The provider.
    pub provider: String,
    /// Its incidents in the history.
    pub incidents: usize,
    /// r = incidents / period in years.
    pub incidents_per_year: f64,
    /// Its 95% interval, per year: Gamma(n, 1)'s 2.5% and 97.5% quantiles over the period, the
    /// law the years draw the rate from (`sim::years::poisson_ci95`).
    pub incidents_per_year_ci95: [f64; 2],
    /// The period the rate is over, in Julian years: the period of the files its incidents
    /// came from (several providers at once: the time all of them were covered), or
    /// `--since`/`--until`.
    pub period_years: f64,
}

impl ProviderRate {
    /// As the notes and tables print it: `anthropic 2.029/yr (95%: 0.2457 to 5.653; 2
    /// incidents)`.
    pub fn text(&self) -> String {
        // four significant figures (2.029, 32.99, 8,766 → 8766)
        let t = |x: f64| {
            let digits = if x > 0.0 { x.log10().floor() as i32 } else { 0 };
            crate::number::trim(x, (3 - digits).clamp(0, 6) as usize)
        };
        format!(
            "{} {}/yr (95%: {} to {}; {} incident{})",
            self.provider,
            t(self.incidents_per_year),
            t(self.incidents_per_year_ci95[0]),
            t(self.incidents_per_year_ci95[1]),
            self.incidents,
            if self.incidents == 1 { "" } else { "s" }
        )
    }

    /// [`ProviderRate::text`] with its period when `own` (the rates of a history whose files
    /// cover different periods): `openai 7.822/yr (95%: 0.9472 to 28.25; 2 incidents in
    /// 0.2557 years)`.
    pub fn text_over(&self, own: bool) -> String {
        let text = self.text();
        if !own {
            return text;
        }
        format!(
            "{} in {} years)",
            text.strip_suffix(')').unwrap_or(&text),
            crate::number::trim(self.period_years, 4)
        )
    }

    /// Whether `rates` are over different periods (then each is printed with its own).
    pub fn periods_differ(rates: &[ProviderRate]) -> bool {
        rates
            .windows(2)
            .any(|w| w[0].period_years != w[1].period_years)
    }
}

/// One chain and pattern over the simulated years. USD per year.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct YearsRow {
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The chain's requests in a year (λ × its traffic share × 365.25 days).
    pub requests_per_year: f64,
    /// The expected annual incident premium (over the normal bill), mean over the years.
    pub premium_mean_usd: f64,
    /// Its 95% interval.
    pub premium_mean_usd_ci95: [f64; 2],
    /// The median year's premium.
    pub premium_p50_usd: f64,
    /// The 95th-percentile year's premium.
    pub premium_p95_usd: f64,
    /// The 99th-percentile year's premium.
    pub premium_p99_usd: f64,
    /// Requests failed on every link in incidents, mean per year.
    pub failed_per_year: f64,
    /// Share of the year's requests answered through incidents: 1 − failed / requests.
    pub availability: f64,
    /// −log10(1 − availability): the nines (`null` when nothing fails).
    pub nines: Option<f64>,
    /// Mean incidents per simulated year (all providers).
    pub incidents_per_year: f64,
    /// The share of drawn windows that overlapped another in their year (merged: each counted
    /// at the share union / sum of lengths), in [0, 1].
    pub overlap_share: f64,
    /// `simulated` when the windows' prices are (a circuit breaker), else `analytic`.
    pub method: Method,
    /// With simulated window prices: the largest of their bills' precisions (a fraction).
    pub simulated_precision: Option<f64>,
    /// Whether some window's prices are approximate analytic figures
    /// ([`ReplayRow::approximate`]).
    pub approximate: bool,
    /// The same years at the history's rates, taken as known.
    pub rate_known: RateKnownFigures,
}

/// A years row's figures at the history's rates (not drawn from their uncertainty). USD per
/// year.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateKnownFigures {
    /// The expected annual premium.
    pub premium_mean_usd: f64,
    /// The median year's premium.
    pub premium_p50_usd: f64,
    /// The 95th-percentile year's premium.
    pub premium_p95_usd: f64,
    /// The 99th-percentile year's premium.
    pub premium_p99_usd: f64,
    /// Failed requests, mean per year.
    pub failed_per_year: f64,
    /// Share of the year's requests answered, in [0, 1].
    pub availability: f64,
}
