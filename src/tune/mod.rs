//! `fallcost tune`: the cheapest resilience settings that meet a stated SLO (docs/guide/tune.md).
//!
//! A [`space::Space`] declares the settings to try (timeouts, retries and backoff, the circuit
//! breaker, the hedge delay, the warm-fallback policy, the chain's models), each as a `--set`
//! key with its values. Every combination is priced by the analytic engine (`ops::tune` runs
//! it); [`frontier`] weighs each candidate into one yearly objective (steady cost per 1,000
//! requests plus the reference incident's premium at its yearly rate), checks the constraints
//! ([`Goals`]), keeps the Pareto frontier of cost against availability and p99 latency, and
//! picks the cheapest feasible point. [`gateway`] writes the recommendation as LiteLLM and
//! Portkey settings.
//!
//! This module holds the search's pure parts and its result types; it prices nothing itself.

use serde::Serialize;

use crate::model::Pattern;

pub mod frontier;
pub mod gateway;
pub mod screen;
pub mod space;

/// Seconds in a month: the one month every command uses (730 hours, as cloud bills count one;
/// [`crate::input::settings::usage::MONTH_S`]), so tune's and diff's per-month figures agree.
pub const SECONDS_PER_MONTH: f64 = crate::input::settings::usage::MONTH_S;

/// The seed of the steady-state Monte Carlo that times every candidate's p99 (the same for
/// every candidate: common random numbers, so that two candidates' p99 differ only by their
/// settings).
pub const P99_SEED: u64 = 0x7E4E_5E7D_0099_0001;

/// Requests of that steady-state Monte Carlo per candidate chain (all patterns at once).
pub const P99_REQUESTS: u64 = 20_000;

/// The traffic and incident rate that weigh the reference incident into a year.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usage {
    /// Requests per month the scenario's chains serve together (each chain its traffic share).
    pub requests_per_month: f64,
    /// Times per year the scenario's `[incident]` happens.
    pub incidents_per_year: f64,
    /// Where `requests_per_month` came from: `--requests-per-month`, `[usage]` of
    /// fallcost.toml, or the incident's `requests_per_second` around the clock.
    pub source: String,
    /// `--history` (or `[usage] history`): the history files whose per-year figures stand for
    /// the incidents (`incidents_per_year` is then 1: each candidate's incident figures are
    /// already a year's). Empty: the reference incident.
    pub history: Vec<String>,
}

/// The constraints a team states (`--availability`, `--p99`, `--max-ratio`, `--budget`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Goals {
    /// Share of the year's requests answered, steady state and incidents together (0.999).
    pub availability: Option<f64>,
    /// Steady-state p99 latency the user sees, seconds.
    pub p99_s: Option<f64>,
    /// The priciest fallback's like-for-like price over the primary's, at most.
    pub max_ratio: Option<f64>,
    /// The chain's monthly bill, USD, at most.
    pub budget_usd_month: Option<f64>,
}

/// The engines' figures of one candidate (one pattern on one chain under one setting), before
/// they are weighed into a year.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Raw {
    /// Steady-state USD per 1,000 requests (the analytic engine's).
    pub steady_cost_per_1k_usd: f64,
    /// Steady-state failed requests per 1,000.
    pub steady_failed_per_1k: f64,
    /// Steady-state mean dead time per request, seconds.
    pub dead_time_mean_s: f64,
    /// Steady-state p99 latency, seconds: the Monte Carlo's with [`P99_SEED`] and
    /// [`P99_REQUESTS`] (no closed form).
    pub p99_s: f64,
    /// The priciest fallback's like-for-like price over the primary's (1 for one model).
    pub max_ratio: f64,
    /// The chain's traffic share (1 without shares).
    pub traffic_share: f64,
    /// The reference incident, if the scenario has one.
    pub incident: Option<RawIncident>,
}

/// A candidate's reference-incident figures (with `--history`: the history's figures per
/// year, [`Usage::history`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawIncident {
    /// The window's bill, USD.
    pub total_usd: f64,
    /// Requests of the window (the chain's share).
    pub requests: f64,
    /// Failed requests of the window.
    pub failed_requests: f64,
    /// `analytic` (closed forms, exact), `simulated` (with a breaker: the fixed-seed incident
    /// simulator, as `compare` prints it) or `screened` (the search's quick screen, never in a
    /// printed point).
    pub method: &'static str,
    /// With a simulated method: the relative 4.5-standard-error bound of the window's bill
    /// (`compare`'s `simulated_precision`).
    pub precision: Option<f64>,
    /// With the `screened` method: the window bill's own relative 4.5-standard-error bound
    /// ([`crate::sim::expected::Simulated::total_precision`]), which bounds the cost in the
    /// screen; `None` otherwise.
    #[serde(skip)]
    pub total_precision: Option<f64>,
    /// With a simulated or screened method: the relative 4.5-standard-error bound of the
    /// failed requests ([`crate::sim::expected::Simulated::failed_precision`]), which bounds
    /// an availability; `None` otherwise.
    #[serde(skip)]
    pub failed_precision: Option<f64>,
}

/// One candidate, weighed: what the frontier and the recommendation are made of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The chain tuned (its name in the scenario).
    pub chain: String,
    /// The chain's models at this point, primary first.
    pub models: Vec<String>,
    /// The pattern.
    pub pattern: Pattern,
    /// The settings, as `compare --set KEY=VALUE` takes them (with `--chain CHAIN`): they
    /// reproduce `raw` exactly on this pattern's rows.
    pub set: Vec<String>,
    /// The objective: steady USD per 1,000 requests plus the incident's premium over the
    /// steady bill of its requests, at its yearly rate, per 1,000 requests of the year.
    pub cost_per_1k_usd: f64,
    /// That premium alone, USD per 1,000 requests of the year.
    pub incident_premium_per_1k_usd: f64,
    /// The incidents' whole bill (not only its premium), USD per 1,000 requests of the year:
    /// what a simulated incident's relative precision is a share of (the screen's bounds and
    /// the ties' intervals, [`frontier::TIE_RULE`]). Not in the outputs.
    #[serde(skip)]
    pub incident_bill_per_1k_usd: f64,
    /// The chain's monthly bill at `cost_per_1k_usd`, USD.
    pub monthly_usd: f64,
    /// Share of the year's requests answered (steady state and incidents).
    pub availability: f64,
    /// Share answered in steady state.
    pub steady_availability: f64,
    /// Share answered during the reference incident.
    pub incident_availability: Option<f64>,
    /// Whether every constraint holds.
    pub feasible: bool,
    /// The constraints that do not hold, e.g. `availability 99.62% < 99.9%`.
    pub violations: Vec<String>,
    /// The engines' figures.
    pub raw: Raw,
}

/// One chain's search: its frontier, recommendation and the evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainTune {
    /// The chain's name.
    pub chain: String,
    /// The constraints this chain was held to: the asked ones, with `availability` the
    /// shipped settings' when `--availability` is not given.
    pub goals: Goals,
    /// Settings combinations of the space (each priced on every pattern the chain has).
    pub combinations: usize,
    /// Combinations priced: all of them, unless `--budget-s` stopped the search first
    /// ([`Tune::partial`]).
    pub priced: usize,
    /// Settings the space held at the chain's own value instead of trying, each with why
    /// (a timeout whose trips of healthy requests would not be priced).
    pub held: Vec<String>,
    /// Candidates weighed (combination × pattern).
    pub candidates: usize,
    /// Candidates whose incident figures came from the breaker's quick screen
    /// ([`crate::sim::expected::Rule`]'s first windows); those left on or near the frontier
    /// were carried to the rule's end, exactly as `compare` prints them.
    pub screened: usize,
    /// Candidates with a circuit breaker that changes no bill and no failure in the incident
    /// ([`crate::model::incident::inert_breaker`]: every attempt it could refuse fails fast
    /// and bills 0), priced by the analytic engine without it (exact, and what `compare`
    /// prints; docs/MODEL.md §8, "An inert breaker"); never screened.
    pub inert_breakers: usize,
    /// Candidates recomputed with `compare`'s figures after the screen.
    pub recomputed: usize,
    /// Candidates whose p99 was timed on the whole [`P99_REQUESTS`]-request Monte Carlo: the
    /// others' p99 was screened on its first [`screen::P99_SCREEN_REQUESTS`] requests and
    /// they were dropped, dominated beyond the screens' bounds ([`screen`]).
    pub p99_exact: usize,
    /// The shipped settings (the scenario as given, sequential; no-fallback for one model).
    pub shipped: Option<Point>,
    /// The Pareto frontier of cost against availability and p99, cheapest first.
    pub frontier: Vec<Point>,
    /// The cheapest feasible point (ties by [`frontier::TIE_RULE`]).
    pub recommended: Option<Point>,
    /// Why it is the recommendation: alone beyond the intervals, or the tie it won.
    pub reason: Option<String>,
    /// With a circuit breaker recommended and a reference incident: what it buys there.
    pub breaker_buys: Option<BreakerBuys>,
    /// With a rate-limited link (`[capacity]`) on the shipped or the recommended chain and a
    /// reference incident: what each one's quotas refuse there.
    pub quota_refusals: Option<QuotaRefusals>,
    /// The shell line that reproduces the recommendation: `fallcost compare` on the same
    /// inputs, its `--set`s, and the p99's Monte Carlo seed (names shell-quoted).
    pub reproduce: Option<String>,
    /// With a breaker on an otherwise default policy: the line whose `--mc` prints the
    /// recommendation's p99 (the same settings without the breaker, which the steady
    /// simulation does not see; `reproduce` times the breaker's chain on other draws).
    pub reproduce_p99: Option<String>,
    /// The next cheapest feasible point with other settings.
    pub runner_up: Option<Point>,
    /// Without a feasible point: which constraints bind and how close the best point gets.
    pub infeasible: Option<frontier::Infeasible>,
    /// The recommendation against the runner-up, by Monte Carlo with common random numbers.
    pub confirmation: Option<Confirmation>,
    /// The recommendation as gateway settings.
    pub gateway: Option<gateway::Snippets>,
}

/// What a recommended circuit breaker buys in the reference incident: the recommendation's
/// incident figures against the same settings without the breaker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakerBuys {
    /// With the breaker (the fixed-seed event simulation, as `compare` prints it).
    pub with: IncidentEffect,
    /// Without it (the closed forms).
    pub without: IncidentEffect,
}

/// What the quotas of the shipped and of the recommended chain refuse in the reference incident
/// (docs/MODEL.md §11): per rate-limited link of each, its limit, the other traffic it takes
/// and the attempts refused (429, billed 0) over the window, as `compare` simulates them on
/// that point's pattern. A refused attempt that no later link answers is a failed request, so
/// the quotas act on the search through its availability constraint: the cheapest chain that
/// meets it is the cheapest that takes the load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuotaRefusals {
    /// The shipped settings' rate-limited links (empty: none).
    pub shipped: Vec<crate::report::RateLimited>,
    /// The recommendation's (empty: none).
    pub recommended: Vec<crate::report::RateLimited>,
}

/// One side of [`BreakerBuys`]: one pattern's incident row, as `compare` computes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncidentEffect {
    /// Mean seconds per request spent in failed attempts and backoff.
    pub dead_time_mean_s: f64,
    /// Failed attempts in the window.
    pub failed_attempts: f64,
    /// With a breaker: attempts sent to the dead provider.
    pub dead_provider_attempts: Option<f64>,
    /// With a breaker: half-open probes sent.
    pub probes: Option<f64>,
    /// The window's bill, USD.
    pub total_usd: f64,
    /// Failed requests of the window.
    pub failed_requests: f64,
    /// How the row was computed: `analytic` or `simulated`.
    pub method: &'static str,
    /// Simulated: the relative 4.5-standard-error half-width of the counts and the dead time
    /// (`compare`'s `simulated_counts_precision`); `None` when exact.
    pub counts_precision: Option<f64>,
}

/// The recommendation against the runner-up in paired Monte Carlo batches: each batch runs
/// both on the same seed (common random numbers), so their difference is estimated with the
/// shared noise cancelled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confirmation {
    /// Batches (seeds) run.
    pub batches: u64,
    /// Steady requests per batch and candidate.
    pub requests: u64,
    /// Incident windows per batch and candidate (0 without an incident).
    pub windows: u64,
    /// Mean over the batches of runner-up's objective minus the recommendation's, USD per
    /// 1,000 requests (positive: the recommendation is cheaper).
    pub saving_per_1k_usd: f64,
    /// Its 95% interval (Student t over the batches).
    pub ci95: [f64; 2],
    /// Whether the interval excludes 0 (the recommendation beats the runner-up beyond noise).
    pub beyond_noise: bool,
}

/// Everything `fallcost tune` computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tune {
    /// The fallcost version.
    pub fallcost_version: &'static str,
    /// The scenario's name.
    pub scenario: String,
    /// The traffic and incident rate the year is weighed with.
    pub usage: Usage,
    /// The constraints.
    pub goals: Goals,
    /// The space searched: each key and its values.
    pub space: Vec<space::Dim>,
    /// One search per chain.
    pub chains: Vec<ChainTune>,
    /// Set when `--budget-s` stopped the search: the frontiers are the best of the candidates
    /// priced by then, and this says so.
    pub partial: Option<String>,
}

/// A word as a POSIX shell reads it back unchanged: as is when it holds only characters no
/// shell treats specially, else in single quotes (a `'` inside as `'\''`).
pub fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Words joined into one shell line, each [`shell_word`]-quoted.
pub fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}
