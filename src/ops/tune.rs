//! The tune operation: price every combination of a [`Space`] on each chain, weigh it into a
//! year, and return the frontier and the recommendation ([`crate::tune::Tune`]).
//!
//! Every combination is the scenario with its `--set` pairs applied, validated and priced by
//! [`compare::analytic`], exactly as `compare --set … --chain CHAIN` prices it, so a point's
//! `set` reproduces its figures. Two figures have no closed form:
//!
//! - the p99 latency: the steady-state Monte Carlo with one seed for every candidate
//!   ([`P99_SEED`], [`P99_REQUESTS`] requests: common random numbers), once per distinct
//!   latency setting (the breaker and warm-fallback policy do not change steady latency),
//!   latencies alone ([`sim::Engine::steady_latencies`]: the same draws as `compare --mc`).
//!   The search screens it first on the run's first [`P99_SCREEN_REQUESTS`] requests, with
//!   bounds on what the whole run prints ([`P99Ranks`]), and times only the survivors whole;
//! - the incident figures of a chain with a circuit breaker, which `compare` simulates with a
//!   fixed seed and a stopping rule ([`sim::expected`]). The search screens them first on
//!   [`SCREEN_WINDOWS`] windows of the same seed (common random numbers), then walks the
//!   candidates still in the running along that rule one step at a time
//!   ([`sim::expected::Rule`]: the same windows, none simulated twice), so that a candidate
//!   dropped early costs a few windows and one kept to the end has `compare`'s figures.
//!
//! A candidate that another dominates beyond both screens' 4.5-standard-error bounds (Student's
//! t for the first screen's 8 windows) is dropped ([`crate::tune::screen::survivors`]) at whichever step
//! shows it, and every other gets its exact figures (`compare`'s own incident figures of the
//! patterns weighed, the whole p99 run) before the frontier and the recommendation are taken.
//!
//! With a history (`--history`) each candidate's incident figures are the history's per
//! year instead ([`crate::ops::history::replay`], as `compare --incidents` prints them).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::compare;
use super::inputs::Source;

mod history;
mod rounds;
mod verdict;
use crate::input::history::History;
use crate::input::scenario;
use crate::model::incident::inert_breaker;
use crate::model::{Pattern, Scenario};
use crate::report::Report;
use crate::sim::expected::{Rule, Simulated};
use crate::sim::histogram::Histogram;
use crate::sim::{self, McOptions};
use crate::tune::frontier::{self, weigh};
use crate::tune::screen::{P99_SCREEN_REQUESTS, P99Ranks};
use crate::tune::space::{self, Combo, Dim, Space};
use crate::tune::{
    ChainTune, Goals, P99_REQUESTS, P99_SEED, Point, Raw, RawIncident, SECONDS_PER_MONTH, Tune,
    Usage,
};
use rounds::{exact_of, screen_rounds, weigh_all};

/// Windows of the breaker's first screen: a quarter of the first step of
/// [`sim::expected::expected`]'s rule. The screens then follow the rule's own steps
/// ([`sim::expected::Rule`]) for the candidates still in the running, and those that stay to
/// its end have `compare`'s figures without a simulation of their own.
pub const SCREEN_WINDOWS: u64 = sim::expected::MIN_WINDOWS / 4;

/// The seed of the first confirmation batch (batch b runs on `CONFIRM_SEED + b`).
pub const CONFIRM_SEED: u64 = 0xC0F1_2026;

/// What `fallcost tune` was asked (built from its flags by [`crate::cmd::tune`]).
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// The chains to tune (empty: every chain).
    pub chains: Vec<String>,
    /// `--candidate`: models the chain may be built from.
    pub candidates: Vec<String>,
    /// `--space FILE`'s keys and whether the defaults stay for keys it leaves out.
    pub space_file: Option<(Vec<Dim>, bool)>,
    /// `--vary`: keys whose values replace (or join) the space's.
    pub vary: Vec<Dim>,
    /// `--requests-per-month` (or fallcost.toml's `[usage]`).
    pub requests_per_month: Option<(f64, String)>,
    /// `--incidents-per-year`.
    pub incidents_per_year: f64,
    /// The constraints.
    pub goals: Goals,
    /// Paired Monte Carlo batches confirming the recommendation (0: none).
    pub confirm_batches: u64,
    /// `--history` (or fallcost.toml's `[usage] history`): the incident history whose
    /// per-year figures replace the reference incident's, and its files as shown.
    pub history: Option<(History, Vec<String>)>,
    /// The `fallcost compare` flags that read the same inputs (`--scenario PATH`, each
    /// `--config FILE`, `--profile`, `--config-file`, the user's `--set`), one word each,
    /// unquoted: the start of every reproduce line ([`crate::tune::shell_line`] quotes them).
    pub inputs: Vec<String>,
    /// `--budget-s`: seconds of wall clock after which the search stops pricing new
    /// candidates and returns the best frontier of those priced ([`Tune::partial`]).
    pub budget_s: Option<f64>,
}

/// Progress of a search: `tick(done, total)` in units of work (a combination priced, a
/// candidate recomputed), called from any thread; `total` may grow as the search learns how
/// many candidates survive its screens.
pub struct Progress<'a> {
    tick: &'a (dyn Fn(u64, u64) + Sync),
    done: AtomicU64,
    total: AtomicU64,
}

impl<'a> Progress<'a> {
    /// A progress report calling `tick`.
    pub fn new(tick: &'a (dyn Fn(u64, u64) + Sync)) -> Progress<'a> {
        Progress {
            tick,
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
        }
    }

    fn add_total(&self, n: u64) {
        let t = self.total.fetch_add(n, Ordering::Relaxed) + n;
        (self.tick)(self.done.load(Ordering::Relaxed), t);
    }

    fn step(&self) {
        let d = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        (self.tick)(d, self.total.load(Ordering::Relaxed));
    }
}

/// When the search must stop pricing new candidates (`--budget-s`), and whether it did.
struct Deadline {
    at: Option<Instant>,
    hit: AtomicBool,
}

impl Deadline {
    /// Whether the budget is spent (and so the work at hand is skipped).
    fn passed(&self) -> bool {
        let late = self.at.is_some_and(|t| Instant::now() >= t);
        if late {
            self.hit.store(true, Ordering::Relaxed);
        }
        late
    }
}

/// Run the search on `source` (the scenario as `compare` reads it), with no progress shown.
///
/// Errors: as [`run_with`].
pub fn run(source: &Source, ask: &Ask) -> crate::ops::OpsResult<Tune> {
    run_with(source, ask, &Progress::new(&|_, _| {}))
}

/// Run the search on `source`, reporting its progress to `progress`.
///
/// Errors (exit 2): an invalid scenario or combination (naming the `--set` pairs), a model
/// the space puts on a chain that the scenario refuses there (before the search:
/// [`crate::ops::OpsError::TuneModel`]), a `--chain` the scenario lacks, a space over [`space::MAX_COMBINATIONS`], more incident
/// requests a year than the year has, `--budget` without traffic to weigh it by.
pub fn run_with(source: &Source, ask: &Ask, progress: &Progress) -> crate::ops::OpsResult<Tune> {
    let deadline = Deadline {
        at: ask
            .budget_s
            .map(|b| Instant::now() + std::time::Duration::from_secs_f64(b.max(0.0))),
        hit: AtomicBool::new(false),
    };
    let base = source.parse()?;
    let usage = usage(&base, ask)?;
    let names: Vec<String> = if ask.chains.is_empty() {
        base.chains.iter().map(|c| c.name.clone()).collect()
    } else {
        let mut s = base.clone();
        scenario::select_chains(&mut s, &ask.chains)?;
        ask.chains.clone()
    };
    let mut plans = Vec::new();
    let mut dims = Vec::new();
    for name in &names {
        let chain = base
            .chains
            .iter()
            .find(|c| &c.name == name)
            .expect("selected above");
        let (space, held) = hold_unpriced_timeout(chain, space_for(chain, &base, ask));
        check_new_models(source, &base, &space, ask)?;
        let combos = space.combos(&space::Timeouts::of(chain))?;
        progress.add_total(combos.len() as u64);
        plans.push((name, combos, held));
        dims = space.dims;
    }
    let mut chains = Vec::new();
    for (name, combos, held) in plans {
        let ctx = Ctx {
            source,
            ask,
            usage: &usage,
            name,
            goals: ask.goals,
            progress,
            deadline: &deadline,
        };
        chains.push(tune_chain(&ctx, &combos, held)?);
    }
    let partial = deadline.hit.load(Ordering::Relaxed).then(|| {
        format!(
            "stopped at --budget-s {}: the frontier is the best of the candidates priced by then, not of the whole space (each chain's `priced` says how many)",
            ask.budget_s.unwrap_or(0.0)
        )
    });
    Ok(Tune {
        fallcost_version: env!("CARGO_PKG_VERSION"),
        scenario: base.name.clone(),
        usage,
        goals: ask.goals,
        space: dims,
        chains,
        partial,
    })
}

/// Before any search work: each model a `chain.NAME.models` key of `space` puts on chain NAME
/// that the chain (as `base` has it) lacks, tried on the first value that holds it, that
/// value alone set. A chain the scenario refuses there (a per-link list of the file that
/// states no rate for the model, MODEL.md §10; a model without a price) would stop the search
/// at its first combination holding it; it stops it here instead, once, naming the model.
///
/// Errors: [`crate::ops::OpsError::TuneModel`].
fn check_new_models(
    source: &Source,
    base: &Scenario,
    space: &Space,
    ask: &Ask,
) -> crate::ops::OpsResult<()> {
    for dim in &space.dims {
        let Ok(parts) = crate::input::document::split_dotted_key(&dim.key) else {
            continue;
        };
        let [c, name, m] = parts.as_slice() else {
            continue;
        };
        if c != "chain" || m != "models" {
            continue;
        }
        let own: Vec<&str> = base
            .chains
            .iter()
            .filter(|ch| &ch.name == name)
            .flat_map(|ch| ch.links.iter().map(|l| l.price.id.as_str()))
            .collect();
        let mut tried: Vec<String> = Vec::new();
        for value in &dim.values {
            let new: Vec<String> = space::models_of(value)
                .into_iter()
                .filter(|m| !own.contains(&m.as_str()) && !tried.contains(m))
                .collect();
            if new.is_empty() {
                continue;
            }
            let mut overrides = source.overrides.clone();
            overrides.push((dim.key.clone(), value.clone()));
            if let Err(e) = source.parse_with(&overrides) {
                let named: Vec<String> = new
                    .iter()
                    .map(|m| {
                        if ask.candidates.contains(m) {
                            format!("--candidate {m}")
                        } else {
                            format!("`{m}`")
                        }
                    })
                    .collect();
                return Err(crate::ops::OpsError::TuneModel {
                    error: Box::new(e),
                    model: named.join(", "),
                    chain: name.clone(),
                    at: format!("{}={value}", dim.key),
                });
            }
            tried.extend(new);
        }
    }
    Ok(())
}

/// `space` with the timeout held at the chain's own where [`unpriced_timeout`] says it cannot
/// be tuned, and the line saying so (none when the space tried no other timeout).
fn hold_unpriced_timeout(chain: &crate::model::Chain, mut space: Space) -> (Space, Vec<String>) {
    let mut held = Vec::new();
    let Some(why) = unpriced_timeout(chain) else {
        return (space, held);
    };
    let own = space::num(chain.policy.timeout_s);
    let asked: Vec<String> = space
        .dims
        .iter()
        .find(|d| d.key == space::TIMEOUT)
        .map(|d| d.values.clone())
        .unwrap_or_default();
    if asked.iter().any(|v| *v != own) {
        held.push(format!(
            "{} held at the chain's own {own} s (not tried: {}): {why}",
            space::TIMEOUT,
            asked
                .iter()
                .filter(|v| **v != own)
                .map(|v| format!("{v} s"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        space = space.with(Dim {
            key: space::TIMEOUT.into(),
            values: vec![own],
        });
    }
    (space, held)
}

/// Why the chain's timeout cannot be tuned, if it cannot: a link whose trip rate (the share
/// of healthy attempts the timeout abandons) would not move with the timeout, so another
/// timeout's trips would go unbilled while the p99 simulation abandons the slow attempts.
/// A link's trip rate moves with the timeout only when it is derived from a given
/// `[latency]` model (P(L > T)); a link with its own timeout does not see the policy's.
pub fn unpriced_timeout(chain: &crate::model::Chain) -> Option<String> {
    let unpriced: Vec<&crate::model::Link> = chain
        .links
        .iter()
        .filter(|l| !l.trip_from_latency && l.timeout_s.is_none())
        .collect();
    if unpriced.is_empty() {
        return None;
    }
    let ids = |given: bool| -> Vec<String> {
        unpriced
            .iter()
            .filter(|l| l.latency.given == given)
            .map(|l| l.price.id.clone())
            .collect()
    };
    let (no_model, given_rate) = (ids(false), ids(true));
    let mut why = Vec::new();
    if !no_model.is_empty() {
        why.push(format!(
            "{} {} no [latency] model, so a timeout's trips of healthy requests are not priced",
            no_model.join(", "),
            if no_model.len() == 1 { "has" } else { "have" }
        ));
    }
    if !given_rate.is_empty() {
        why.push(format!(
            "{}: timeout_trip_rate is given, so it stays as given at any timeout (a calibrated scenario's trips are inside its measured failure rate at its own timeout)",
            given_rate.join(", ")
        ));
    }
    Some(format!(
        "{}; give [latency.\"MODEL\"] p50_s and p99_s (and no timeout_trip_rate) to tune it",
        why.join("; ")
    ))
}

/// The year's traffic: `--requests-per-month`, else the incident's rate around the clock.
fn usage(base: &Scenario, ask: &Ask) -> crate::ops::OpsResult<Usage> {
    let (requests_per_month, source) = match (&ask.requests_per_month, &base.incident) {
        (Some((r, s)), _) => (*r, s.clone()),
        (None, Some(i)) => (
            i.requests_per_second * SECONDS_PER_MONTH,
            "the incident's requests_per_second around the clock".to_string(),
        ),
        (None, None) => {
            if ask.goals.budget_usd_month.is_some() {
                return Err(crate::ops::OpsError::BudgetNeedsTraffic);
            }
            (
                1e6,
                "not needed (no incident; per-1,000 figures)".to_string(),
            )
        }
    };
    if let Some((_, files)) = &ask.history {
        if base.incident.is_none() {
            return Err(crate::ops::OpsError::HistoryNeedsIncident);
        }
        return Ok(Usage {
            requests_per_month,
            incidents_per_year: 1.0,
            source,
            history: files.clone(),
        });
    }
    if let Some(i) = &base.incident {
        let year = 12.0 * requests_per_month;
        let in_incidents = ask.incidents_per_year * i.requests() as f64;
        if in_incidents > year {
            return Err(crate::ops::OpsError::IncidentsExceedYear {
                incidents_per_year: ask.incidents_per_year,
                requests: i.requests(),
                year,
                traffic: source,
            });
        }
    }
    Ok(Usage {
        requests_per_month,
        incidents_per_year: ask.incidents_per_year,
        source,
        history: Vec::new(),
    })
}

/// The space for `chain`: the defaults (or `--space`), then `--vary`.
fn space_for(chain: &crate::model::Chain, base: &Scenario, ask: &Ask) -> Space {
    let defaults = space::defaults(
        chain,
        base.incident.is_some(),
        base.request.prefix_tokens > 0.0,
        &ask.candidates,
    );
    let mut s = match &ask.space_file {
        None => defaults,
        Some((dims, keep)) => {
            let mut s = if *keep { defaults } else { Space::default() };
            for d in dims {
                s = s.with(d.clone());
            }
            s
        }
    };
    for d in &ask.vary {
        s = s.with(d.clone());
    }
    s
}

/// One combination, parsed and priced on the chain alone.
#[derive(Clone)]
struct Priced {
    combo: Combo,
    scenario: Scenario,
    /// Whether the chain's circuit breaker is inert in the incident ([`inert_breaker`]): its
    /// incident figures are then the analytic engine's without it.
    inert: bool,
    /// Per pattern the chain has: the raw figures without p99, and the windows of the breaker's
    /// screen they were taken from (`None`: exact, `compare`'s figures).
    rows: Vec<(Pattern, Raw, Option<u64>)>,
    /// Per screened pattern, the stopping rule of `compare`'s simulated figures, advanced as
    /// far as the screen ran ([`sim::expected::Rule`]).
    rules: Vec<(Pattern, Rule)>,
}

/// The scenario of `set` applied to `source`, with only chain `name`.
fn scenario_of(
    source: &Source,
    name: &str,
    set: &[(String, String)],
) -> crate::ops::OpsResult<Scenario> {
    let mut overrides = source.overrides.clone();
    overrides.extend(set.iter().cloned());
    let mut s = source.parse_with(&overrides).map_err(|e| {
        let at: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        crate::ops::OpsError::AtTunePoint {
            error: Box::new(e),
            at: at.join(" --set "),
        }
    })?;
    scenario::select_chains(&mut s, &[name.to_string()])?;
    Ok(s)
}

/// `s` without the circuit breakers that are inert in its incident ([`inert_breaker`]: they
/// change no bill and no failure), so that the analytic engine prices its incident exactly,
/// the bill `compare` prints for `s`, without simulating the breakers.
fn without_inert_breakers(s: &Scenario) -> Scenario {
    let mut free = s.clone();
    if let Some(i) = &s.incident {
        for c in &mut free.chains {
            if inert_breaker(c, &i.for_chain(c)).is_some() {
                c.policy.breaker = None;
            }
        }
    }
    free
}

/// The raw figures of every pattern of a one-chain `report` (p99 left 0): the chain's own rows,
/// not the blended ones a chain with a traffic share also gets (a second row, and in the
/// screen a second stopping rule, per pattern sent the screen round in circles); a simulated
/// incident row's failed-request precision is its simulation's ([`sim::expected::expected`]
/// on the scenario the report priced, `on`: the memo's figures, not simulated again).
fn raws(report: &Report, scenario: &Scenario, on: &Scenario) -> Vec<(Pattern, Raw)> {
    let failed_precision = |pattern: Pattern| {
        let c = &on.chains[0];
        let inc = on.incident.as_ref()?.for_chain(c);
        sim::expected::expected(&on.request, c, &inc, pattern).map(|s| s.failed_precision)
    };
    let chain = &scenario.chains[0];
    let req = &scenario.request;
    let base = req.like_for_like(&chain.links[0].price);
    let max_ratio = chain
        .links
        .iter()
        .map(|l| req.like_for_like(&l.price) / base)
        .fold(1.0, f64::max);
    let n = scenario
        .incident
        .as_ref()
        .map(|i| i.for_chain(chain).requests() as f64);
    report
        .steady
        .iter()
        .filter(|s| s.chain == chain.name)
        .map(|s| {
            let incident = report
                .incident
                .iter()
                .find(|i| i.chain == chain.name && i.pattern == s.pattern)
                .map(|i| RawIncident {
                    total_usd: i.analytic.total_usd,
                    requests: n.unwrap_or(0.0),
                    failed_requests: i.analytic.failed_requests,
                    method: i.method.as_str(),
                    precision: i.simulated_precision,
                    total_precision: None,
                    failed_precision: (i.method == crate::report::Method::Simulated)
                        .then(|| failed_precision(i.pattern))
                        .flatten(),
                });
            (
                s.pattern,
                Raw {
                    steady_cost_per_1k_usd: s.analytic.cost_per_1k_usd,
                    steady_failed_per_1k: s.analytic.failed_per_1k,
                    dead_time_mean_s: s.policy.dead_time_mean_s,
                    p99_s: 0.0,
                    max_ratio,
                    traffic_share: chain.traffic_share.unwrap_or(1.0),
                    incident,
                },
            )
        })
        .collect()
}

/// Price `combo` on chain `name`: exactly with `compare`'s figures, or with the breaker's
/// incident figures screened when `screen` and the chain has a breaker.
/// With `history`, every pattern's incident figures are the history's per year instead
/// ([`history::year`], never screened).
fn price(
    source: &Source,
    name: &str,
    combo: &Combo,
    screen: bool,
    history: Option<&(History, Vec<String>)>,
) -> crate::ops::OpsResult<Priced> {
    price_of(source, name, combo, screen, history, &Pattern::ALL)
}

/// [`price`] with the exact figures of `patterns` only (the screen weighs its own).
fn price_of(
    source: &Source,
    name: &str,
    combo: &Combo,
    screen: bool,
    history: Option<&(History, Vec<String>)>,
    patterns: &[Pattern],
) -> crate::ops::OpsResult<Priced> {
    let s = scenario_of(source, name, &combo.set)?;
    let chain = &s.chains[0];
    let free = without_inert_breakers(&s);
    let inert = free.chains[0].policy.breaker != chain.policy.breaker;
    let breaker = chain.policy.breaker.is_some() && s.incident.is_some() && !inert;
    let mut rules = Vec::new();
    let rows = if let Some(h) = history {
        let steady_only = Scenario {
            incident: None,
            ..s.clone()
        };
        let report = compare::analytic(&steady_only);
        let year = history::year(&s, h)?;
        raws(&report, &s, &steady_only)
            .into_iter()
            .map(|(p, mut raw)| {
                raw.incident = Some(year.get(&p).cloned().unwrap_or(RawIncident {
                    total_usd: 0.0,
                    requests: 0.0,
                    failed_requests: 0.0,
                    method: "analytic",
                    precision: None,
                    total_precision: None,
                    failed_precision: None,
                }));
                (p, raw, None)
            })
            .collect()
    } else if screen && breaker {
        let steady_only = Scenario {
            incident: None,
            ..s.clone()
        };
        let report = compare::analytic(&steady_only);
        let inc = s.incident.as_ref().expect("breaker").for_chain(chain);
        raws(&report, &s, &steady_only)
            .into_iter()
            // the unhedged patterns are weighed on the space's first hedge delay only
            // ([`weigh_priced`]): the others' would be simulated for nothing
            .filter(|(p, _)| p.is_hedged() || combo.first_hedge)
            .map(|(p, mut raw)| {
                let mut rule = Rule::new(&inc);
                raw.incident = rule
                    .advance(&s.request, chain, &inc, p, SCREEN_WINDOWS)
                    .map(|m| screened_incident(&m, &inc));
                let windows = rule.windows();
                rules.push((p, rule));
                (p, raw, Some(windows))
            })
            .collect()
    } else {
        let report = compare::analytic_of(&free, patterns);
        raws(&report, &s, &free)
            .into_iter()
            .map(|(p, r)| (p, r, None))
            .collect()
    };
    let inert = inert && history.is_none();
    Ok(Priced {
        combo: combo.clone(),
        scenario: s,
        inert,
        rows,
        rules,
    })
}

/// The incident figures of a breaker's screen (`m`, windows of [`Rule::advance`]).
fn screened_incident(m: &Simulated, inc: &crate::model::Incident) -> RawIncident {
    RawIncident {
        total_usd: m.outcome.total,
        requests: inc.requests() as f64,
        failed_requests: m.outcome.failed_requests,
        method: "screened",
        precision: Some(m.precision),
        total_precision: Some(m.total_precision),
        failed_precision: Some(m.failed_precision),
    }
}

/// The steady p99 of every pattern of a one-chain scenario, from the fixed-seed Monte Carlo
/// of its steady latency ([`p99_histograms`]: the breaker, which the steady simulation does
/// not see, left out, so that a candidate with a breaker and one without draw the same).
fn p99s(s: &Scenario) -> BTreeMap<Pattern, f64> {
    p99_histograms(s, P99_REQUESTS)
        .into_iter()
        .map(|(p, h)| {
            (
                p,
                crate::number::round_noise(h.quantile(0.99).unwrap_or(0.0)),
            )
        })
        .collect()
}

/// `s` without its chains' circuit breakers: what the steady latency simulation sees. No
/// steady simulator reads the breaker (it only acts in an incident), but a breaker makes an
/// otherwise default policy take the generic simulator, whose draws differ; without it, a
/// candidate with a breaker is timed on exactly the draws of the same settings without one
/// (common random numbers), and `compare --mc` prints that p99 for the breaker-free settings.
pub fn steady_only(s: &Scenario) -> Scenario {
    let mut free = s.clone();
    for c in &mut free.chains {
        c.policy.breaker = None;
    }
    free
}

/// Every pattern's latency histogram of the first `requests` requests of that Monte Carlo
/// (on [`steady_only`]`(s)`: the same draws as `compare --mc --seed` [`P99_SEED`] on the
/// chain's breaker-free settings).
fn p99_histograms(s: &Scenario, requests: u64) -> Vec<(Pattern, Histogram)> {
    let s = steady_only(s);
    let chain = &s.chains[0];
    let opts = McOptions {
        requests,
        runs: 0,
        seed: P99_SEED,
    };
    sim::Engine::for_chain(chain).steady_latencies(&s.request, chain, 0, &opts)
}

/// The settings that change steady latency (the breaker and the warm policy do not), and
/// whether the chain's policy without its breaker is the default one (which picks the steady
/// simulator, and so its draws).
type LatencyKey = (Vec<(String, String)>, bool);

fn latency_key(p: &Priced) -> LatencyKey {
    let set = p
        .combo
        .set
        .iter()
        .filter(|(k, _)| !k.starts_with("policy.breaker") && !k.starts_with(space::WARM))
        .cloned()
        .collect();
    let mut chain = p.scenario.chains[0].clone();
    chain.policy.breaker = None;
    (set, chain.has_default_policy())
}

/// The `KEY=VALUE` strings of a combination.
fn set_strings(set: &[(String, String)]) -> Vec<String> {
    set.iter().map(|(k, v)| format!("{k}={v}")).collect()
}

/// Price and weigh every combination on the chain `ctx.name`, keep the frontier, recommend.
/// `held`: the settings the space held at the chain's own value, and why.
///
/// Every combination is priced with the screens' figures and bounds (the p99 from the first
/// [`P99_SCREEN_REQUESTS`] requests, a breaker's incident from [`SCREEN_WINDOWS`] windows);
/// then, round by round, the candidates no survivor beats beyond the bounds
/// ([`crate::tune::screen::survivors`]) take the next step of `compare`'s stopping rule for their breaker
/// figures ([`screen_rounds`]), until every survivor's are `compare`'s; then the survivors'
/// exact figures. Past `--budget-s` no new combination is priced and no survivor advanced:
/// the frontier is of those done.
fn tune_chain(ctx: &Ctx, combos: &[Combo], held: Vec<String>) -> crate::ops::OpsResult<ChainTune> {
    let (source, name, usage, ask) = (ctx.source, ctx.name, ctx.usage, ctx.ask);
    let (mut priced, cut, held_out, held) = price_all(ctx, combos, held)?;
    let shipped = shipped(source, name, usage, ask)?;
    // Without --availability, a point must answer at least as many requests as the shipped
    // settings: the cheapest setting that answers fewer is rarely the question.
    let goals = Goals {
        availability: ask
            .goals
            .availability
            .or(shipped.as_ref().map(|s| s.availability)),
        ..ask.goals
    };
    let ctx = &Ctx { goals, ..*ctx };
    let shipped = shipped.map(|s| {
        let mut s = s;
        s.violations = frontier::violations(&s, &goals);
        s.feasible = s.violations.is_empty();
        s
    });
    let quick = latencies(&priced, P99_SCREEN_REQUESTS);
    let first: Vec<Weighed> = weigh_all(&priced, &quick, ctx, None);
    let candidates = first.len();
    let screened = first.iter().filter(|w| w.screened.is_some()).count();
    let inert = first.iter().filter(|w| priced[w.combo].inert).count();
    let kept = screen_rounds(ctx, &mut priced, &quick)?;
    let (exact, again) = exact_of(ctx, &priced, &kept)?;
    let only: Vec<&Priced> = exact.iter().map(|e| &e.1).collect();
    let full = latencies_of(&only, P99_REQUESTS);
    let (points, p99_ci): (Vec<Point>, Vec<[f64; 2]>) = exact
        .iter()
        .flat_map(|(i, p)| weigh_priced(*i, p, &full[&latency_key(p)], usage, &goals, name))
        .filter(|w| kept.contains(&(w.combo, w.point.pattern)))
        .map(|w| (w.point, w.p99))
        .unzip();
    let counts = Counts {
        combinations: combos.len() - held_out,
        priced: combos.len() - held_out - cut,
        candidates,
        screened,
        inert,
        recomputed: again,
        p99_exact: points.len(),
    };
    verdict::finish(ctx, points, &p99_ci, counts, shipped, held)
}

/// Every combination priced with the screens' figures ([`price`]), in parallel: the priced,
/// how many the budget cut, how many were held out (a chain of `--candidate` models whose
/// trips at another timeout are not priced), and `held` with why.
fn price_all(
    ctx: &Ctx,
    combos: &[Combo],
    mut held: Vec<String>,
) -> crate::ops::OpsResult<(Vec<Priced>, usize, usize, Vec<String>)> {
    let (source, name) = (ctx.source, ctx.name);
    let history = ctx.ask.history.as_ref();
    let own = source.parse()?;
    let own_timeout = own
        .chains
        .iter()
        .find(|c| c.name == name)
        .expect("tuned")
        .policy
        .timeout_s;
    let priced: Vec<Option<Result<Priced, crate::model::Chain>>> = combos
        .par_iter()
        .map(|c| {
            if ctx.deadline.passed() {
                ctx.progress.step();
                return Ok(None);
            }
            let p = price(source, name, c, true, history)?;
            ctx.progress.step();
            // a chain of --candidate models whose trips at this timeout are not priced
            let timeout = p.scenario.chains[0].policy.timeout_s;
            if timeout != own_timeout && unpriced_timeout(&p.scenario.chains[0]).is_some() {
                return Ok(Some(Err(p.scenario.chains[0].clone())));
            }
            Ok(Some(Ok(p)))
        })
        .collect::<crate::ops::OpsResult<Vec<_>>>()?;
    let cut = priced.iter().filter(|p| p.is_none()).count();
    let held_out = priced.iter().filter(|p| matches!(p, Some(Err(_)))).count();
    let mut kept = Vec::new();
    for r in priced.into_iter().flatten() {
        match r {
            Ok(p) => kept.push(p),
            Err(chain) => {
                if let Some(why) = unpriced_timeout(&chain)
                    && !held.iter().any(|h| h.contains(&why))
                {
                    held.push(format!(
                        "chains of --candidate models held at the timeout {} s where {why}",
                        space::num(own_timeout)
                    ));
                }
            }
        }
    }
    Ok((kept, cut, held_out, held))
}

/// What one chain's search counted ([`ChainTune`]'s fields of the same names).
struct Counts {
    combinations: usize,
    priced: usize,
    candidates: usize,
    screened: usize,
    inert: usize,
    recomputed: usize,
    p99_exact: usize,
}

/// One weighed candidate: its point, its combination's index, and whether its incident
/// figures are the breaker's screen.
struct Weighed {
    point: Point,
    combo: usize,
    /// The windows of the breaker's screen its incident figures are from (`None`: exact).
    screened: Option<u64>,
    /// The p99's bounds on the whole run from the screen, or its 95% interval when exact.
    p99: [f64; 2],
}

/// The candidates of combination `index` (`p`), weighed with the p99s `latency`.
fn weigh_priced(
    index: usize,
    p: &Priced,
    latency: &BTreeMap<Pattern, (f64, [f64; 2])>,
    usage: &Usage,
    goals: &Goals,
    name: &str,
) -> Vec<Weighed> {
    let models: Vec<String> = p.scenario.chains[0]
        .links
        .iter()
        .map(|l| l.price.id.clone())
        .collect();
    p.rows
        .iter()
        .filter(|(pattern, _, _)| pattern.is_hedged() || p.combo.first_hedge)
        .map(|(pattern, raw, screened)| {
            let mut raw = raw.clone();
            let (q, b) = latency
                .get(pattern)
                .copied()
                .unwrap_or((f64::NAN, [f64::NAN; 2]));
            raw.p99_s = q;
            let point = weigh(
                raw,
                usage,
                goals,
                name,
                models.clone(),
                *pattern,
                set_strings(&p.combo.set),
            );
            Weighed {
                point,
                combo: index,
                screened: *screened,
                p99: b,
            }
        })
        .collect()
}

/// What every step of one chain's search reads.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    source: &'a Source,
    ask: &'a Ask,
    usage: &'a Usage,
    name: &'a str,
    goals: Goals,
    progress: &'a Progress<'a>,
    deadline: &'a Deadline,
}

/// Per distinct latency setting of `priced`, computed once each: every pattern's p99 from the
/// first `requests` requests of the p99 Monte Carlo, with its bounds on the
/// [`P99_REQUESTS`]-request run's ([`P99Ranks`]; exact at `requests` = [`P99_REQUESTS`]).
fn latencies(
    priced: &[Priced],
    requests: u64,
) -> BTreeMap<LatencyKey, BTreeMap<Pattern, (f64, [f64; 2])>> {
    let all: Vec<&Priced> = priced.iter().collect();
    latencies_of(&all, requests)
}

fn latencies_of(
    priced: &[&Priced],
    requests: u64,
) -> BTreeMap<LatencyKey, BTreeMap<Pattern, (f64, [f64; 2])>> {
    let mut first: BTreeMap<LatencyKey, usize> = BTreeMap::new();
    for (i, p) in priced.iter().enumerate() {
        first.entry(latency_key(p)).or_insert(i);
    }
    let ranks = P99Ranks::new(P99_SCREEN_REQUESTS, P99_REQUESTS);
    let keys: Vec<(LatencyKey, usize)> = first.into_iter().collect();
    keys.par_iter()
        .map(|(k, i)| {
            let hists = p99_histograms(&priced[*i].scenario, requests);
            let by: BTreeMap<Pattern, (f64, [f64; 2])> = hists
                .into_iter()
                .map(|(p, h)| {
                    let q = crate::number::round_noise(h.quantile(0.99).unwrap_or(0.0));
                    let b = if requests >= P99_REQUESTS {
                        p99_ci95(&h, requests)
                    } else {
                        ranks.bounds(&h)
                    };
                    (p, (q, b))
                })
                .collect();
            (k.clone(), by)
        })
        .collect()
}

/// The 95% interval of the p99 of `h` (`n` requests): the quantiles at the binomial rank
/// interval 0.99 ± 1.96·√(0.99·0.01/n), rounded as the p99 is.
fn p99_ci95(h: &Histogram, n: u64) -> [f64; 2] {
    let half = 1.96 * (0.99 * 0.01 / n.max(1) as f64).sqrt();
    let q = |p: f64| crate::number::round_noise(h.quantile(p.clamp(0.0, 1.0)).unwrap_or(0.0));
    [q(0.99 - half), q(0.99 + half)]
}

/// The scenario as given, on its first pattern with a fallback (sequential; no-fallback for
/// one model), weighed.
fn shipped(
    source: &Source,
    name: &str,
    usage: &Usage,
    ask: &Ask,
) -> crate::ops::OpsResult<Option<Point>> {
    let goals = &ask.goals;
    let combo = Combo {
        set: Vec::new(),
        first_hedge: true,
    };
    let p = price(source, name, &combo, false, ask.history.as_ref())?;
    let models: Vec<String> = p.scenario.chains[0]
        .links
        .iter()
        .map(|l| l.price.id.clone())
        .collect();
    let want = if models.len() > 1 {
        Pattern::Sequential
    } else {
        Pattern::NoFallback
    };
    let latency = p99s(&p.scenario);
    Ok(p.rows
        .into_iter()
        .find(|r| r.0 == want)
        .map(|(pattern, mut raw, _)| {
            raw.p99_s = latency.get(&pattern).copied().unwrap_or(f64::NAN);
            weigh(raw, usage, goals, name, models, pattern, Vec::new())
        }))
}
