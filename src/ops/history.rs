//! `fallcost compare --incidents FILE` as an operation (issue 14, items 3 and 4; issue 21
//! items 7 to 9): replay an incident history on every chain of a scenario ([`replay`]) and,
//! with `--years N`, simulate N years of it ([`years()`]).
//!
//! **The replay.** The history (one or more files merged on one calendar,
//! [`crate::input::history`]) is cut into incident windows: overlapping incidents of one
//! provider are joined first ([`History::coalesced`]); then incidents of different providers
//! that overlap in time form one window, from the first start to the last end, whose timeline
//! holds one outage per incident at its offset. Each window replaces the scenario's outage
//! (its `[incident]` keeps λ and the session length) and is priced by `compare`'s own
//! pipeline ([`super::compare::analytic`]), so a window's rows are exactly what `compare`
//! prints for a scenario with that timeline, labels included (`approximate`, `method`,
//! `simulated_precision`). The totals add the windows' figures up; the per-year figures divide
//! each window's by the period its providers were observed over: each file keeps its own period
//! (a page's window, a CSV's `# period:`; a window of several providers: the time all their
//! files cover; `--since`/`--until`: theirs), never the union of all files', and each
//! provider's rate, the one its file alone gives, carries the 95% interval of the law the
//! years draw it from ([`crate::sim::years::poisson_ci95`]). A file that states no period and
//! holds one incident is refused ([`replay`]'s errors).
//! Everything is linear in the history's length: windows are cut in one pass over the sorted
//! incidents, each window's timeline holds only its own incidents, each distinct window shape
//! is priced once, the shapes in parallel, and the windows are described in parallel from
//! their shapes' rows (the same figures on any thread count).
//!
//! **The years** ([`crate::sim::years`]): the replay's windows as a Poisson process per set of
//! providers a window holds, at the history's rate, each window resampled whole and priced at
//! the replay's own figures for it (its premium, total − normal, and its failed requests): no
//! window is priced twice. Each year draws the rates from their uncertainty (the rows), and the
//! same years at the history's rates are given beside them (`rate_known`).

use crate::error::{InputError, InputErrorKind, Location};
use crate::input::history::{History, HistoryIncident, format_rfc3339};
use crate::model::timeline::{OutageFailure, Timeline};
use crate::model::{FailureMode, Incident, Pattern, Scenario};
use crate::number::round_noise;
use crate::ops::OpsError;
use crate::report::history::{
    CoverageMeta, HistoryMeta, HistoryReport, ProviderRate, ReplayIncident, ReplayOutage,
    ReplayRow, ReplayTotal,
};
use crate::report::{IncidentFigures, IncidentRow, Method};
use crate::sim::years::{YEAR_S, poisson_rate_ci95};

mod simulated_years;
pub use simulated_years::{SimulatedYears, YearsRequest, add_years, simulate_years, years};

/// What the history was read with, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayInputs {
    /// The history files, as shown in messages.
    pub files: Vec<String>,
    /// The error rate given to Statuspage `minor` incidents.
    pub minor_error_rate: f64,
}

/// The fewest incidents of a provider from which the report quotes its rate without a
/// warning: below 3 the 95% interval spans more than a factor of 20 (n = 2: 0.24 to 5.6
/// per period).
pub const FEW_INCIDENTS: usize = 3;

/// One incident window: its coalesced incidents (calendar order) and its span.
struct Window<'a> {
    incidents: Vec<&'a HistoryIncident>,
    start_s: f64,
    end_s: f64,
}

/// The history's incidents (already coalesced per provider) grouped into windows: incidents
/// that overlap in time (strictly: touching ends do not) share one. One pass.
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
fn window_timeline(w: &Window<'_>, id: usize) -> super::OpsResult<(Timeline, Vec<String>)> {
    let len = w.end_s - w.start_s;
    let outages = History::outages_of(w.incidents.iter().copied(), w.start_s, len);
    let mut providers: Vec<String> = Vec::new();
    for o in &outages {
        let p = o.target.provider().to_string();
        if !providers.contains(&p) {
            providers.push(p);
        }
    }
    let timeline = Timeline::new(len, outages).map_err(|error| OpsError::HistoryTimeline {
        file: w.incidents[0].file.to_string(),
        id,
        name: w.incidents[0].name.to_string(),
        error: Box::new(error),
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

/// A file that states no period and holds a single incident would be its own period: one
/// 3h6m incident a year every 3h6m, 2,828 a year. Refused, saying how to state the period.
/// "Holds a single incident": one incident of the file was read, and no other incident of the
/// file (one `--component` left out) starts before it.
fn check_periods(history: &History) -> Result<(), InputError> {
    use crate::input::history::PeriodSource;
    for c in &history.coverage {
        if !matches!(c.source, PeriodSource::Incidents | PeriodSource::PageTimes) {
            continue;
        }
        let mut of = history.incidents.iter().filter(|i| i.file == c.file);
        let (Some(inc), None) = (of.next(), of.next()) else {
            continue;
        };
        if inc.start_s > c.start_s {
            continue;
        }
        let span = c.end_s - c.start_s;
        let how = if c.source == PeriodSource::Incidents {
            "add a first line `# period: START/END` with the time your monitoring covered (e.g. `# period: 2026-01-01T00:00:00Z/2027-01-01T00:00:00Z`), or give --since and --until"
        } else {
            "the page has no updated_at to end its period: give --since and --until with the time the page covers"
        };
        return Err(InputError {
            file: c.file.clone(),
            location: Some(Location {
                line: inc.line.max(1),
                col: 1,
            }),
            field: Some("period".into()),
            message: format!(
                "the file holds one incident and states no period, so its period would be the incident's own {} ({} to {}) and its rate {} a year; {how}",
                crate::number::format_seconds(span),
                format_rfc3339(c.start_s),
                format_rfc3339(c.end_s),
                crate::number::group(&format!("{:.0}", YEAR_S / span.max(1e-9))),
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

/// The figures of `rows` added up, each with its weight (1: the totals; a year over its
/// window's period: per year), the multiplier total / normal of the sums.
fn add_up(rows: &[(f64, &IncidentRow)]) -> IncidentFigures<f64> {
    let parts: Vec<(f64, &IncidentFigures<f64>)> =
        rows.iter().map(|(w, r)| (*w, &r.analytic)).collect();
    let mut f = IncidentFigures::combine(
        &parts,
        |_, xs| round_noise(xs.iter().map(|(w, x)| w * **x).sum::<f64>()),
        |_, xs| Some(round_noise(xs.iter().map(|(w, x)| w * x).sum::<f64>())),
    );
    let normal = f.normal_usd.unwrap_or(0.0);
    f.multiplier = (normal > 0.0).then(|| round_noise(f.total_usd / normal));
    f
}

/// The scenario's `[incident]`, which a replay needs for λ and the session length.
fn base_incident(scenario: &Scenario) -> super::OpsResult<&Incident> {
    (scenario.incident.as_ref()).ok_or(OpsError::IncidentsNeedIncident)
}

/// The incident rows `compare` prints for `scenario` with its outage replaced by `timeline`
/// (every chain and pattern). Errors: a figure is not finite.
fn price_timeline(
    scenario: &Scenario,
    base: &Incident,
    timeline: Timeline,
    id: usize,
) -> super::OpsResult<Vec<IncidentRow>> {
    let mut s = scenario.clone();
    s.incident = Some(with_timeline(base, timeline));
    let report = super::compare::analytic(&s);
    if let Some(field) = report.first_non_finite() {
        return Err(OpsError::IncidentNotFinite {
            id,
            field: field.to_string(),
        });
    }
    Ok(report.incident)
}

/// One window cut and described: its timeline, its providers, its shape's index among the
/// history's distinct shapes (windows of the same shape, the same timeline: length, providers,
/// offsets, durations, failures, error rates, have the same rows: priced once).
struct Cut<'a> {
    window: &'a Window<'a>,
    timeline: Timeline,
    providers: Vec<String>,
    shape: usize,
}

/// The windows cut into timelines, and the distinct shapes (each with the 1-based id of the
/// first window of that shape, which names it in errors) in first-seen order. Errors: a
/// window's outages do not make a valid timeline.
fn cut_windows<'a>(windows: &'a [Window<'a>]) -> super::OpsResult<(Vec<Cut<'a>>, Vec<usize>)> {
    let mut shapes: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut first: Vec<usize> = Vec::new();
    let mut cuts = Vec::with_capacity(windows.len());
    for (k, w) in windows.iter().enumerate() {
        let (timeline, providers) = window_timeline(w, k + 1)?;
        let key = format!("{:?} {:?}", timeline.window_s(), timeline.outages());
        let shape = *shapes.entry(key).or_insert_with(|| {
            first.push(k);
            first.len() - 1
        });
        cuts.push(Cut {
            window: w,
            timeline,
            providers,
            shape,
        });
    }
    Ok((cuts, first))
}

/// Every distinct shape priced (`first[s]`: the index of the first window of shape `s`), in
/// parallel on rayon's pool: each shape's rows are `compare`'s on its own scenario, a pure
/// function of it, so the result is the same on any thread count. Errors: the first window
/// (in calendar order) whose figures are not finite.
fn price_shapes(
    scenario: &Scenario,
    base: &Incident,
    cuts: &[Cut<'_>],
    first: &[usize],
) -> super::OpsResult<Vec<Vec<IncidentRow>>> {
    use rayon::prelude::*;
    first
        .par_iter()
        .enumerate()
        .map(|(s, &k)| {
            let timeline = cuts[k].timeline.clone();
            if s == 0 {
                price_timeline(scenario, base, timeline, k + 1)
            } else {
                price_incident(scenario, base, timeline, k + 1)
            }
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect()
}

/// [`price_timeline`]'s rows without the rest of `compare`'s report: the steady-state and
/// failover-cache figures do not depend on the incident, so [`price_shapes`] checks them once,
/// on the first shape (whose window comes first: where the whole report would first fail),
/// and prices every other shape's incident rows alone, on the scenario as it is (no copy per
/// shape). The same rows. Errors: an incident figure is not finite (as [`price_timeline`]
/// names it).
fn price_incident(
    scenario: &Scenario,
    base: &Incident,
    timeline: Timeline,
    id: usize,
) -> super::OpsResult<Vec<IncidentRow>> {
    let incident = with_timeline(base, timeline);
    let rows = super::compare::incident_rows_of(scenario, &incident, &Pattern::ALL);
    if let Some(field) = crate::report::first_non_finite_incident(&rows) {
        return Err(OpsError::IncidentNotFinite {
            id,
            field: field.to_string(),
        });
    }
    Ok(rows)
}

/// Window `id` (1-based) described, with the period its providers were observed over
/// (`period_s`, seconds).
fn describe_window(base: &Incident, cut: &Cut<'_>, id: usize, period_s: f64) -> ReplayIncident {
    let (w, timeline, providers) = (cut.window, &cut.timeline, &cut.providers);
    let len = timeline.window_s();
    let outages = timeline
        .outages()
        .iter()
        .map(|o| ReplayOutage {
            provider: o.target.provider().to_string(),
            start_s: round_noise(o.start_s),
            duration_s: round_noise(o.duration_s.unwrap_or(len - o.start_s)),
            failure: o.failure.as_str(),
            error_rate: o.error_rate,
        })
        .collect();
    let requests = with_timeline(base, timeline.clone()).requests();
    let name = w
        .incidents
        .iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    ReplayIncident {
        id,
        name,
        providers: providers.clone(),
        start: format_rfc3339(w.start_s),
        start_unix_s: w.start_s,
        duration_s: round_noise(len),
        requests,
        outages,
        period_s,
    }
}

/// Window `incident`'s row of its shape's `row` (one chain and pattern of what `compare`
/// prints for a scenario whose outage is its timeline).
fn window_row(incident: &ReplayIncident, cut: &Cut<'_>, row: &IncidentRow) -> ReplayRow {
    // as compare's JSON says of the same window (output::json): analytic rows of a timeline
    // with cuts count sessions per segment
    let cuts = cut.timeline.cuts() > 0;
    ReplayRow {
        incident: incident.id,
        name: incident.name.clone(),
        providers: incident.providers.clone(),
        start: incident.start.clone(),
        duration_s: incident.duration_s,
        approximate: cuts && row.method == Method::Analytic,
        row: row.clone(),
    }
}

/// The (chain, pattern) keys of `rows` in their order (chains, then patterns, blended last).
fn row_keys(rows: &[ReplayRow]) -> Vec<(String, Pattern)> {
    let mut keys: Vec<(String, Pattern)> = Vec::new();
    for r in rows {
        let key = (r.row.chain.clone(), r.row.pattern);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// Per chain and pattern, the rows added up, each with its `weight` (1: the totals; a year
/// over its window's period: per year), with the windows' labels: simulated if any is, approximate if any is, the
/// largest precision. Linear in the rows.
fn totals(
    rows: &[ReplayRow],
    keys: &[(String, Pattern)],
    weight: impl Fn(&ReplayRow) -> f64,
) -> Vec<ReplayTotal> {
    let mut of: Vec<Vec<&ReplayRow>> = vec![Vec::new(); keys.len()];
    let index: std::collections::HashMap<(&str, &str), usize> = keys
        .iter()
        .enumerate()
        .map(|(k, (c, p))| ((c.as_str(), p.as_str()), k))
        .collect();
    // a window's rows come in the keys' order: the key after the last row's, else looked up
    let mut next = 0;
    for r in rows {
        let k = match keys.get(next) {
            Some((c, p)) if *c == r.row.chain && *p == r.row.pattern => next,
            _ => index[&(r.row.chain.as_str(), r.row.pattern.as_str())],
        };
        of[k].push(r);
        next = (k + 1) % keys.len();
    }
    keys.iter()
        .zip(of)
        .map(|((chain, pattern), of)| {
            let simulated = of.iter().any(|r| r.row.method == Method::Simulated);
            ReplayTotal {
                chain: chain.clone(),
                pattern: *pattern,
                incidents: of.len(),
                method: if simulated {
                    Method::Simulated
                } else {
                    Method::Analytic
                },
                approximate: of.iter().any(|r| r.approximate),
                simulated_precision: of
                    .iter()
                    .filter_map(|r| r.row.simulated_precision)
                    .reduce(f64::max),
                figures: add_up(&of.iter().map(|r| (weight(r), &r.row)).collect::<Vec<_>>()),
            }
        })
        .collect()
}

/// The period the history covers (Unix seconds), from its files' coverage.
fn period(history: &History) -> (f64, f64) {
    history.period().unwrap_or_else(|| {
        // every file that holds an incident gives one; a history built by hand may not
        let start = history.incidents.first().map_or(0.0, |i| i.start_s);
        (start, start + history.span_s())
    })
}

/// Disjoint intervals of Unix seconds, sorted.
type Spans = Vec<(f64, f64)>;

/// `spans` sorted and merged where they overlap or touch.
fn union(mut spans: Vec<(f64, f64)>) -> Spans {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out: Spans = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The intersection of two [`Spans`].
fn intersect(a: &Spans, b: &Spans) -> Spans {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (lo, hi) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if hi > lo {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 { i += 1 } else { j += 1 }
    }
    out
}

/// Their total length, seconds.
fn measure(spans: &Spans) -> f64 {
    spans.iter().map(|(a, b)| b - a).sum()
}

/// The time over which each provider's incidents were observed: the periods of the files its
/// incidents came from (a CSV's `# period:`, a page's earliest incident to its `updated_at`),
/// not the union of every file's: a second file that covers a longer time does not thin out
/// the first file's rate. With `--since`/`--until`, their period for every provider.
struct Periods {
    of: std::collections::HashMap<String, Spans>,
    /// The whole history's period, for a provider no file's coverage names (a history built by
    /// hand).
    all: Spans,
}

impl Periods {
    /// From the history as read (before coalescing: each incident names its own file).
    fn new(history: &History, (start, end): (f64, f64)) -> Periods {
        let all = vec![(start, end)];
        let flags = history
            .coverage
            .iter()
            .any(|c| c.source == crate::input::history::PeriodSource::Flags);
        let mut files: std::collections::HashMap<&str, Vec<&str>> =
            std::collections::HashMap::new();
        for inc in &history.incidents {
            let f = files.entry(inc.provider.as_str()).or_default();
            if !f.contains(&inc.file.as_str()) {
                f.push(inc.file.as_str());
            }
        }
        let of = files
            .into_iter()
            .map(|(p, fs)| {
                let spans: Vec<(f64, f64)> = history
                    .coverage
                    .iter()
                    .filter(|c| !flags && fs.contains(&c.file.as_str()))
                    .map(|c| (c.start_s, c.end_s))
                    .collect();
                let spans = if spans.is_empty() {
                    all.clone()
                } else {
                    union(spans)
                };
                (p.to_string(), spans)
            })
            .collect();
        Periods { of, all }
    }

    /// The time, seconds, all of `providers` were observed at once (one provider: its files'
    /// period).
    fn of_set<'a>(&self, providers: impl IntoIterator<Item = &'a str>) -> f64 {
        let mut spans: Option<Spans> = None;
        for p in providers {
            let own = self.of.get(p).unwrap_or(&self.all);
            spans = Some(match spans {
                None => own.clone(),
                Some(s) => intersect(&s, own),
            });
        }
        measure(spans.as_ref().unwrap_or(&self.all))
    }
}

/// Per provider (sorted), its incidents (joined per provider) and rate over its own period
/// ([`Periods`]), with its 95% interval ([`poisson_rate_ci95`]).
fn provider_rates(history: &History, periods: &Periods) -> Vec<ProviderRate> {
    history
        .providers()
        .into_iter()
        .map(|p| {
            let n = history.incidents.iter().filter(|i| i.provider == p).count();
            let years = periods.of_set([p]) / YEAR_S;
            let [lo, hi] = poisson_rate_ci95(n as u64, years);
            ProviderRate {
                provider: p.to_string(),
                incidents: n,
                incidents_per_year: round_noise(n as f64 / years),
                incidents_per_year_ci95: [round_noise(lo), round_noise(hi)],
                period_years: round_noise(years),
            }
        })
        .collect()
}

/// The notes of a replay: how windows are priced, the period and the rates, what was skipped.
fn replay_notes(
    base: &Incident,
    history: &History,
    rows: &[ReplayRow],
    meta: &HistoryMeta,
) -> Vec<String> {
    let mut notes = vec![
        format!(
            "each incident window replaces the scenario's outage, at its {} requests per second and sessions of {}; overlapping incidents of different providers are one window (they overlap on its timeline), overlapping incidents of one provider are joined",
            crate::number::trim(base.requests_per_second, 6),
            base.session_length
        ),
        period_note(meta),
    ];
    notes.extend(meta.rates.iter().filter(|r| r.incidents < FEW_INCIDENTS).map(|r| {
        format!(
            "{}: only {} incident{} in the history, too few to estimate a rate: {}; the per-year figures and the years rest on it",
            r.provider,
            r.incidents,
            if r.incidents == 1 { "" } else { "s" },
            r.text()
        )
    }));
    if rows.iter().any(|r| r.approximate) {
        notes.push("≈ approximate: on windows where incidents of several providers overlap (a timeline with cuts), each request is priced in the segment it arrives in and its attempts after a failure may find the next segment's states: every figure (cold starts and fail-back writes included) may be off by λ × the mean dead time before each cut in requests' worth, and the cache figures by up to one session per cut and model where a cache can expire within a session (docs/MODEL.md §6), as compare says of the same window".into());
    }
    if let Some(p) = rows
        .iter()
        .filter(|r| r.row.method == Method::Simulated)
        .filter_map(|r| r.row.simulated_precision)
        .reduce(f64::max)
    {
        notes.push(format!(
            "sim: incident figures simulated (a circuit breaker has no exact closed form): the incident simulator's mean, fixed seed, each window's bill within ±{}% (4.5 standard errors; the largest of its windows; its counts' bound: JSON simulated_counts_precision); the totals, per-year and years figures add them up",
            crate::number::trim(p * 100.0, 2)
        ));
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
    notes
}

/// What the per-year note says of the period and where it came from.
fn period_note(meta: &HistoryMeta) -> String {
    let from: Vec<String> = meta
        .coverage
        .iter()
        .map(|c| match c.source {
            "page updated_at" => format!("{}: earliest incident to the page's updated_at", c.file),
            "page incidents" => format!(
                "{}: earliest incident to its latest time (the page has no updated_at)",
                c.file
            ),
            "stated" => format!("{}: its # period: line", c.file),
            "since-until" => "--since/--until".to_string(),
            _ => format!(
                "{}: states no period (add a `# period: START/END` line), so its first start to its last end: shorter than what its monitoring covered, so the rates are upper bounds",
                c.file
            ),
        })
        .collect();
    let own = ProviderRate::periods_differ(&meta.rates);
    let rates = meta
        .rates
        .iter()
        .map(|r| r.text_over(own))
        .collect::<Vec<_>>()
        .join(", ");
    if !own {
        return format!(
            "per year: the totals divided by the period the history covers, {} to {} ({} days; {}); rates {rates}",
            meta.start,
            meta.end,
            crate::number::trim(meta.span_s / 86_400.0, 2),
            from.join("; "),
        );
    }
    let files: Vec<String> = meta
        .coverage
        .iter()
        .zip(&from)
        .map(|(c, from)| format!("{} to {} ({from})", c.start, c.end))
        .collect();
    format!(
        "per year: each provider's incidents divided by the period of the files they came from, a window of several providers' by the time all their files cover (not the union of the files' periods, {} to {}); the files: {}; rates {rates}",
        meta.start,
        meta.end,
        files.join("; "),
    )
}

/// The report's account of what was read.
fn history_meta(
    base: &Incident,
    history: &History,
    inputs: &ReplayInputs,
    (start, end): (f64, f64),
    periods: &Periods,
) -> HistoryMeta {
    let span_s = end - start;
    HistoryMeta {
        files: inputs.files.clone(),
        providers: history.providers().into_iter().map(String::from).collect(),
        start: format_rfc3339(start),
        end: format_rfc3339(end),
        span_s: round_noise(span_s),
        span_years: round_noise(span_s / YEAR_S),
        source_incidents: history.incidents.len(),
        requests_per_second: base.requests_per_second,
        session_length: base.session_length,
        minor_error_rate: inputs.minor_error_rate,
        skipped_open: history.skipped_open.clone(),
        skipped_none: history.skipped_none,
        coverage: history
            .coverage
            .iter()
            .map(|c| CoverageMeta {
                file: c.file.clone(),
                start: format_rfc3339(c.start_s),
                end: format_rfc3339(c.end_s),
                source: c.source.as_str(),
            })
            .collect(),
        rates: provider_rates(history, periods),
    }
}

/// The period the coalesced `history` covers (seconds since the epoch), once it is known to
/// hold an incident to price and to cover some time. Errors: neither (naming `inputs`' files).
fn priced_period(history: &History, inputs: &ReplayInputs) -> super::OpsResult<(f64, f64)> {
    if history.incidents.is_empty() {
        return Err(OpsError::EmptyHistory {
            files: inputs.files.join(", "),
            open: history.skipped_open.len(),
            none: history.skipped_none,
        });
    }
    let (start, end) = period(history);
    if end <= start {
        return Err(OpsError::HistoryCoversNoTime {
            files: inputs.files.join(", "),
            start: format_rfc3339(start),
            end: format_rfc3339(end),
        });
    }
    Ok((start, end))
}

/// Replay `history` on every chain and pattern of `scenario`: one row per incident window ×
/// chain × pattern, the totals and the per-year figures (over the period the history covers).
///
/// Errors: the scenario has no `[incident]` (its λ and session length are needed); a file
/// states no period and holds a single incident (file, line, field `period`, and how to state
/// one); the history holds no incident; a provider of the history is not a provider of the scenario's
/// chains (file, line, field `provider`); the period is not longer than zero; a window's
/// figures are not finite.
pub fn replay(
    scenario: &Scenario,
    history: &History,
    inputs: &ReplayInputs,
) -> super::OpsResult<HistoryReport> {
    let base = base_incident(scenario)?;
    check_providers(scenario, history)?;
    check_periods(history)?;
    let read = history;
    let history = history.coalesced();
    let (start, end) = priced_period(&history, inputs)?;
    let periods = Periods::new(read, (start, end));
    let windows = windows(&history);
    let (cuts, first) = cut_windows(&windows)?;
    let priced = price_shapes(scenario, base, &cuts, &first)?;
    let mut set_periods: std::collections::HashMap<Vec<String>, f64> =
        std::collections::HashMap::new();
    let mut period_of = |providers: &[String]| {
        let mut set = providers.to_vec();
        set.sort_unstable();
        *set_periods
            .entry(set)
            .or_insert_with_key(|set| periods.of_set(set.iter().map(String::as_str)))
    };
    let period_s: Vec<f64> = cuts.iter().map(|c| period_of(&c.providers)).collect();
    // the windows described, then their rows made, in parallel (each in its place: the same
    // report on any thread count)
    let (incidents, rows): (Vec<ReplayIncident>, Vec<ReplayRow>) = {
        use rayon::prelude::*;
        let incidents: Vec<ReplayIncident> = cuts
            .par_iter()
            .zip(&period_s)
            .enumerate()
            .map(|(k, (cut, &p))| describe_window(base, cut, k + 1, p))
            .collect();
        let of: Vec<(usize, usize)> = cuts
            .iter()
            .enumerate()
            .flat_map(|(k, cut)| (0..priced[cut.shape].len()).map(move |r| (k, r)))
            .collect();
        let rows = of
            .par_iter()
            .map(|&(k, r)| window_row(&incidents[k], &cuts[k], &priced[cuts[k].shape][r]))
            .collect();
        (incidents, rows)
    };
    let meta = history_meta(base, &history, inputs, (start, end), &periods);
    let keys = row_keys(&rows);
    // the totals and, beside them, a year over the period its window's providers were
    // observed (each file its own)
    let (totals_all, per_year) = rayon::join(
        || totals(&rows, &keys, |_| 1.0),
        || {
            totals(&rows, &keys, |r| {
                YEAR_S / incidents[r.incident - 1].period_s
            })
        },
    );
    let notes = replay_notes(base, &history, &rows, &meta);
    Ok(HistoryReport {
        fallcost_version: env!("CARGO_PKG_VERSION"),
        scenario: scenario.name.clone(),
        pricing: scenario.pricing.clone(),
        history: meta,
        incidents,
        rows,
        totals: totals_all,
        per_year,
        years: None,
        notes,
    })
}
