//! `fallcost compare --incidents FILE` as an operation (issue 14, items 3 and 4): replay an
//! incident history on every chain of a scenario ([`replay`]) and, with `--years N`, simulate
//! N years of it ([`years()`]).
//!
//! **The replay.** The history (one or more files merged on one calendar,
//! [`crate::input::history`]) is cut into incident windows: overlapping incidents of one
//! provider are joined first ([`History::coalesced`]); then incidents of different providers
//! that overlap in time form one window, from the first start to the last end, whose timeline
//! holds one outage per incident at its offset. Each window replaces the scenario's outage
//! (its `[incident]` keeps λ and the session length) and is priced by `compare`'s own
//! pipeline ([`super::compare::analytic`]), so a window's rows are exactly what `compare`
//! prints for a scenario with that timeline. The totals add the windows' figures up; the
//! per-year figures divide them by the history's span in years (first start to last end).
//!
//! **The years** ([`crate::sim::years`]): incidents per provider as a Poisson process at the
//! history's rate (optionally with a common Gamma year factor: clustered years), each
//! incident's shape (duration, error rate, failure) resampled from the provider's history and
//! priced once per chain, pattern and distinct shape by the incident engine
//! ([`super::compare::incident_figures`]) as that provider down for that long: its premium
//! (`excess_usd`, total − normal) and its failed requests. No request is simulated per year.

use crate::error::{InputError, InputErrorKind, Location};
use crate::input::history::{History, HistoryIncident, format_rfc3339};
use crate::model::timeline::{OutageFailure, Timeline};
use crate::model::{FailureMode, Incident, Pattern, Scenario};
use crate::number::clean;
use crate::report::history::{
    HistoryMeta, HistoryReport, ProviderRate, ReplayIncident, ReplayOutage, ReplayRow, ReplayTotal,
    YearsReport, YearsRow,
};
use crate::report::{IncidentFigures, IncidentRow};
use crate::sim::years::{self, IncidentPrice, ProviderHistory, YEAR_S, YearsOptions};

/// What the history was read with, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayInputs {
    /// The history files, as shown in messages.
    pub files: Vec<String>,
    /// The error rate given to Statuspage `minor` incidents.
    pub minor_error_rate: f64,
}

/// One incident window: its coalesced incidents (calendar order) and its span.
struct Window<'a> {
    incidents: Vec<&'a HistoryIncident>,
    start_s: f64,
    end_s: f64,
}

/// The history's incidents (already coalesced per provider) grouped into windows: incidents
/// that overlap in time (strictly: touching ends do not) share one.
fn windows(history: &History) -> Vec<Window<'_>> {
    let mut out: Vec<Window<'_>> = Vec::new();
    for inc in &history.incidents {
        match out.last_mut() {
            Some(w) if inc.start_s < w.end_s => {
                w.end_s = w.end_s.max(inc.end_s);
                w.incidents.push(inc);
            }
            _ => out.push(Window {
                incidents: vec![inc],
                start_s: inc.start_s,
                end_s: inc.end_s,
            }),
        }
    }
    out
}

/// Window `id`'s (1-based) outages on one timeline of its own span, and its providers in
/// first-seen order. Errors: the outages do not make a valid timeline (named by the window's
/// first incident).
fn window_timeline(
    history: &History,
    w: &Window<'_>,
    id: usize,
) -> anyhow::Result<(Timeline, Vec<String>)> {
    let len = w.end_s - w.start_s;
    let outages = history.outages_in(w.start_s, len);
    let mut providers: Vec<String> = Vec::new();
    for o in &outages {
        let p = o.target.provider().to_string();
        if !providers.contains(&p) {
            providers.push(p);
        }
    }
    let timeline = Timeline::new(len, outages).map_err(|e| {
        anyhow::anyhow!(
            "{}: incident {id} ({}): {e}",
            w.incidents[0].file,
            w.incidents[0].name
        )
    })?;
    Ok((timeline, providers))
}

/// Every provider of the history must be a provider of some link of the scenario: one that is
/// not (a misspelt CSV cell, a page whose name is not the price table's provider) would price
/// as nothing.
fn check_providers(scenario: &Scenario, history: &History) -> Result<(), InputError> {
    let mut known: Vec<&str> = scenario
        .chains
        .iter()
        .flat_map(|c| c.prices().map(|p| p.provider.as_str()))
        .collect();
    known.sort_unstable();
    known.dedup();
    for inc in &history.incidents {
        if known.contains(&inc.provider.as_str()) {
            continue;
        }
        let near = crate::suggest::nearest(&inc.provider, known.iter().copied())
            .map_or(String::new(), |n| format!(" (did you mean {n:?}?)"));
        return Err(InputError {
            file: inc.file.clone(),
            location: Some(Location {
                line: inc.line.max(1),
                col: 1,
            }),
            field: Some("provider".into()),
            message: format!(
                "{:?} is not the provider of any model of the scenario's chains{near}; the providers are {}. A Statuspage page's provider comes from its URL or name: set it with --provider NAME",
                inc.provider,
                known
                    .iter()
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            kind: InputErrorKind::Invalid,
        });
    }
    Ok(())
}

/// The scenario's incident with its outage replaced by `timeline` (λ, L kept; the shorthand's
/// failure set from the timeline's first outage, so a one-outage timeline reads alike either
/// way).
fn with_timeline(base: &Incident, timeline: Timeline) -> Incident {
    let failure = match timeline.outages().first().map(|o| o.failure) {
        Some(OutageFailure::Gray) => FailureMode::Gray,
        Some(OutageFailure::Fast) => FailureMode::Fast,
        _ => base.failure,
    };
    Incident {
        duration_s: timeline.window_s(),
        failure,
        timeline: Some(timeline),
        ..base.clone()
    }
}

/// The figures of `rows` added up with weight `weight` each (1: the totals; 1 / years: per
/// year), the multiplier total / normal of the sums.
fn add_up(rows: &[&IncidentRow], weight: f64) -> IncidentFigures<f64> {
    let parts: Vec<(f64, &IncidentFigures<f64>)> =
        rows.iter().map(|r| (weight, &r.analytic)).collect();
    let mut f = IncidentFigures::combine(
        &parts,
        |_, xs| clean(xs.iter().map(|(w, x)| w * **x).sum::<f64>()),
        |_, xs| Some(clean(xs.iter().map(|(w, x)| w * x).sum::<f64>())),
    );
    let normal = f.normal_usd.unwrap_or(0.0);
    f.multiplier = (normal > 0.0).then(|| clean(f.total_usd / normal));
    f
}

/// Replay `history` on every chain and pattern of `scenario`: one row per incident window ×
/// chain × pattern, the totals and the per-year figures.
///
/// Errors: the scenario has no `[incident]` (its λ and session length are needed); the
/// history holds no incident; a provider of the history is not a provider of the scenario's
/// chains (file, line, field `provider`); a window's figures are not finite.
pub fn replay(
    scenario: &Scenario,
    history: &History,
    inputs: &ReplayInputs,
) -> anyhow::Result<HistoryReport> {
    let Some(base) = scenario.incident.as_ref() else {
        anyhow::bail!(
            "--incidents replaces the scenario's outage with each incident of the history, and needs its [incident] for requests_per_second and session_length; add an [incident] to the scenario"
        );
    };
    check_providers(scenario, history)?;
    let history = history.coalesced();
    if history.incidents.is_empty() {
        anyhow::bail!(
            "{}: the history holds no incident to price ({} open skipped, {} of impact none skipped)",
            inputs.files.join(", "),
            history.skipped_open.len(),
            history.skipped_none
        );
    }
    let span_s = history.span_s();
    let span_years = span_s / YEAR_S;
    let mut incidents = Vec::new();
    let mut rows: Vec<ReplayRow> = Vec::new();
    for (k, w) in windows(&history).iter().enumerate() {
        let id = k + 1;
        let (timeline, providers) = window_timeline(&history, w, id)?;
        let len = timeline.window_s();
        let replay_outages = timeline
            .outages()
            .iter()
            .map(|o| ReplayOutage {
                provider: o.target.provider().to_string(),
                start_s: clean(o.start_s),
                duration_s: clean(o.duration_s.unwrap_or(len - o.start_s)),
                failure: o.failure.as_str(),
                error_rate: o.error_rate,
            })
            .collect();
        let mut s = scenario.clone();
        s.incident = Some(with_timeline(base, timeline));
        let report = super::compare::analytic(&s);
        if let Some(field) = report.first_non_finite() {
            anyhow::bail!(
                "incident {id}: {field} is not a finite number; the scenario's values are too large to price"
            );
        }
        let name = w
            .incidents
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        let start = format_rfc3339(w.start_s);
        incidents.push(ReplayIncident {
            id,
            name: name.clone(),
            providers: providers.clone(),
            start: start.clone(),
            start_unix_s: w.start_s,
            duration_s: clean(len),
            requests: s.incident.as_ref().map_or(0, Incident::requests),
            outages: replay_outages,
        });
        rows.extend(report.incident.into_iter().map(|row| ReplayRow {
            incident: id,
            name: name.clone(),
            providers: providers.clone(),
            start: start.clone(),
            duration_s: clean(len),
            row,
        }));
    }
    // Per chain and pattern, in the rows' order (chains, then patterns, blended last).
    let mut keys: Vec<(String, Pattern)> = Vec::new();
    for r in &rows {
        let key = (r.row.chain.clone(), r.row.pattern);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let total = |weight: f64| -> Vec<ReplayTotal> {
        keys.iter()
            .map(|(chain, pattern)| {
                let of: Vec<&IncidentRow> = rows
                    .iter()
                    .filter(|r| r.row.chain == *chain && r.row.pattern == *pattern)
                    .map(|r| &r.row)
                    .collect();
                ReplayTotal {
                    chain: chain.clone(),
                    pattern: *pattern,
                    incidents: of.len(),
                    figures: add_up(&of, weight),
                }
            })
            .collect()
    };
    let totals = total(1.0);
    let per_year = total(1.0 / span_years);
    let mut notes = vec![
        format!(
            "each incident window replaces the scenario's outage, at its {} requests per second and sessions of {}; overlapping incidents of different providers are one window (they overlap on its timeline), overlapping incidents of one provider are joined",
            crate::number::trim(base.requests_per_second, 6),
            base.session_length
        ),
        format!(
            "per year: the totals divided by the history's span, {} to {} ({} days); a history that covers a longer period than its incidents overstates the rate",
            format_rfc3339(history.incidents[0].start_s),
            format_rfc3339(
                history
                    .incidents
                    .iter()
                    .map(|i| i.end_s)
                    .fold(f64::MIN, f64::max)
            ),
            crate::number::trim(span_s / 86_400.0, 2)
        ),
    ];
    if rows
        .iter()
        .any(|r| r.row.method == crate::report::Method::Simulated)
    {
        notes.push("sim: incident figures simulated (a circuit breaker has no exact closed form): the incident simulator's mean, fixed seed".into());
    }
    if !history.skipped_open.is_empty() {
        notes.push(format!(
            "skipped {} open incident(s) (--skip-open): {}",
            history.skipped_open.len(),
            history.skipped_open.join(", ")
        ));
    }
    if history.skipped_none > 0 {
        notes.push(format!(
            "skipped {} incident(s) of impact none (notices, not outages)",
            history.skipped_none
        ));
    }
    Ok(HistoryReport {
        fallcost_version: env!("CARGO_PKG_VERSION"),
        scenario: scenario.name.clone(),
        pricing: scenario.pricing.clone(),
        history: HistoryMeta {
            files: inputs.files.clone(),
            providers: history.providers().into_iter().map(String::from).collect(),
            start: format_rfc3339(history.incidents[0].start_s),
            end: format_rfc3339(
                history
                    .incidents
                    .iter()
                    .map(|i| i.end_s)
                    .fold(f64::MIN, f64::max),
            ),
            span_s: clean(span_s),
            span_years: clean(span_years),
            source_incidents: history.incidents.len(),
            requests_per_second: base.requests_per_second,
            session_length: base.session_length,
            minor_error_rate: inputs.minor_error_rate,
            skipped_open: history.skipped_open.clone(),
            skipped_none: history.skipped_none,
        },
        incidents,
        rows,
        totals,
        per_year,
        years: None,
        notes,
    })
}

/// What the years' note says of what they leave out.
const ALONE: &str = "availability counts incident failures only";

/// What one history window looks like to the years simulation: its timeline (the outages of
/// one or several providers that overlapped, at their offsets), resampled whole.
#[derive(Debug, Clone, PartialEq)]
struct Shape {
    timeline: Timeline,
}

/// The history's windows as the years' processes: one per set of providers a window holds
/// (`anthropic`; `anthropic + openai` for windows where both were down at once), each with its
/// windows as samples, at the rate the history shows (windows / span).
fn window_processes(history: &History) -> anyhow::Result<Vec<ProviderHistory<Shape>>> {
    let mut shapes: Vec<(String, Shape)> = Vec::new();
    for (k, w) in windows(history).iter().enumerate() {
        let (timeline, mut providers) = window_timeline(history, w, k + 1)?;
        providers.sort_unstable();
        shapes.push((providers.join(" + "), Shape { timeline }));
    }
    Ok(ProviderHistory::from_incidents(
        shapes.iter().map(|(p, s)| (p.as_str(), s.clone())),
        history.span_s(),
    ))
}

/// `--years`: the simulated years' options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YearsRequest {
    /// N, simulated years (at least 1).
    pub years: u64,
    /// The seed.
    pub seed: u64,
    /// k of the common year factor (`--cluster K`); `None`: independent Poisson years.
    pub cluster: Option<f64>,
}

/// Simulate `request.years` years of `history`'s incidents for every chain and pattern of
/// `scenario` and add them to `report` (made by [`replay`] from the same inputs).
///
/// The events are the replay's windows (an incident, or overlapping incidents of several
/// providers on one timeline): per set of providers a window holds (`anthropic`, `anthropic +
/// openai`), a Poisson process at the history's rate (windows of that set / span in years),
/// optionally clustered; each window is resampled whole from its set's history and priced once
/// per chain, pattern and distinct window by the incident engine, as the replay prices it. So
/// the requests a chain fails only while two providers are down at once count in the years as
/// often as the history shows such overlaps; overlaps the history never saw are not invented
/// (independent per-provider processes would add them at random, a dependence a short history
/// cannot estimate).
///
/// Errors: the scenario has no `[incident]`; a window's timeline is invalid.
pub fn years(
    scenario: &Scenario,
    history: &History,
    request: YearsRequest,
    report: &mut HistoryReport,
) -> anyhow::Result<()> {
    let Some(base) = scenario.incident.as_ref() else {
        anyhow::bail!("--years needs the scenario's [incident] (see --incidents)");
    };
    let history = history.coalesced();
    let providers = window_processes(&history)?;
    // The (chain, pattern) slots: every chain's own pattern that has an incident row.
    let mut slots: Vec<(usize, Pattern)> = Vec::new();
    for (c, chain) in scenario.chains.iter().enumerate() {
        for pattern in Pattern::ALL {
            if report
                .totals
                .iter()
                .any(|t| t.chain == chain.name && t.pattern == pattern)
            {
                slots.push((c, pattern));
            }
        }
    }
    let requests_per_year: Vec<f64> = slots
        .iter()
        .map(|&(c, _)| {
            base.requests_per_second * scenario.chains[c].traffic_share.unwrap_or(1.0) * YEAR_S
        })
        .collect();
    let unpriced = std::sync::atomic::AtomicBool::new(false);
    let price = |slot: usize, _: usize, shape: &Shape| -> IncidentPrice {
        let (c, pattern) = slots[slot];
        let chain = &scenario.chains[c];
        let inc = with_timeline(base, shape.timeline.clone()).for_chain(chain);
        match super::compare::incident_figures(&scenario.request, chain, &inc, pattern) {
            Some((o, _)) => {
                let f = o.figures();
                IncidentPrice {
                    premium_usd: f.excess_usd,
                    failed_requests: f.failed_requests,
                }
            }
            // Only (chain, pattern) slots the replay priced are simulated, over the replay's
            // own windows: the engine answers every one. Should it not, say so below rather
            // than price the window at zero.
            None => {
                unpriced.store(true, std::sync::atomic::Ordering::Relaxed);
                IncidentPrice::default()
            }
        }
    };
    let figures = years::simulate(
        &providers,
        &requests_per_year,
        &price,
        YearsOptions {
            years: request.years,
            seed: request.seed,
            year_factor_shape: request.cluster,
        },
    );
    if unpriced.load(std::sync::atomic::Ordering::Relaxed) {
        anyhow::bail!(
            "--years: the incident engine gave no figures for a window of the history the replay priced"
        );
    }
    let rows = slots
        .iter()
        .zip(&figures)
        .zip(&requests_per_year)
        .map(|((&(c, pattern), f), &req)| YearsRow {
            chain: scenario.chains[c].name.clone(),
            pattern,
            requests_per_year: clean(req),
            premium_mean_usd: clean(f.premium_mean_usd),
            premium_mean_usd_ci95: [clean(f.premium_ci95[0]), clean(f.premium_ci95[1])],
            premium_p50_usd: clean(f.premium_p50_usd),
            premium_p95_usd: clean(f.premium_p95_usd),
            premium_p99_usd: clean(f.premium_p99_usd),
            failed_per_year: clean(f.failed_per_year),
            availability: f.availability,
            nines: (f.availability < 1.0).then(|| clean(-(1.0 - f.availability).log10())),
            incidents_per_year: clean(f.incidents_per_year),
        })
        .collect();
    report.notes.push(match request.cluster {
        None => format!(
            "years: {} simulated years, seed {}; the history's windows (an incident, or incidents of several providers that overlapped) a Poisson process per set of providers at the history's rate (windows / span), each window resampled whole from that set's history (durations, offsets, error rates, failures) and priced by the incident engine as the replay prices it (premium: total − normal); {ALONE}",
            crate::number::group(&request.years.to_string()),
            request.seed
        ),
        Some(k) => format!(
            "years: {} simulated years, seed {}; clustered: each year every rate is multiplied by one common factor G ~ Gamma({k}, 1/{k}) (mean 1, variance 1/{k}), so bad years coincide across providers; otherwise as Poisson (the history's windows, per set of providers, resampled whole and priced as the replay prices them); {ALONE}",
            crate::number::group(&request.years.to_string()),
            request.seed
        ),
    });
    report.years = Some(YearsReport {
        years: request.years,
        seed: request.seed,
        model: if request.cluster.is_some() {
            "clustered"
        } else {
            "poisson"
        },
        year_factor_shape: request.cluster,
        rates: providers
            .iter()
            .map(|p| ProviderRate {
                provider: p.provider.clone(),
                incidents: p.samples.len(),
                incidents_per_year: clean(p.incidents_per_year),
            })
            .collect(),
        rows,
    });
    Ok(())
}
