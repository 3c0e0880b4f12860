//! `--years N` on a replay ([`years()`]): the replay's windows as the years' processes, each
//! window resampled whole at the replay's figures for it (module docs of [`super`]).

use crate::model::{Incident, Pattern, Scenario};
use crate::number::round_noise;
use crate::report::Method;
use crate::report::history::{
    HistoryReport, ProviderRate, RateKnownFigures, YearsReport, YearsRow,
};
use crate::sim::years::{
    self, IncidentPrice, ProviderHistory, RateModel, Sample, YEAR_S, YearsFigures, YearsOptions,
    poisson_rate_ci95,
};

/// What the years' note says of what they leave out.
const ALONE: &str = "availability counts incident failures only";

/// A replay window as the years resample it: its index among the report's windows and its
/// length.
#[derive(Debug, Clone, Copy, PartialEq)]
struct WindowRef {
    index: usize,
    duration_s: f64,
}

impl Sample for WindowRef {
    fn duration_s(&self) -> f64 {
        self.duration_s
    }
}

/// The replay's windows as the years' processes: one per set of providers a window holds
/// (`anthropic`; `anthropic + openai` for windows where both were down at once), each with its
/// windows as samples, at the history's rate (windows / period).
///
/// A set's rate is over the period its windows were observed ([`ReplayIncident::period_s`]:
/// the time all its providers' files cover), so each file keeps its own period. Also that
/// period per process, seconds.
fn window_processes(report: &HistoryReport) -> (Vec<ProviderHistory<WindowRef>>, Vec<f64>) {
    let mut out: Vec<ProviderHistory<WindowRef>> = Vec::new();
    let mut periods: Vec<f64> = Vec::new();
    let mut index_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (index, w) in report.incidents.iter().enumerate() {
        let mut providers = w.providers.clone();
        providers.sort_unstable();
        let sample = WindowRef {
            index,
            duration_s: w.duration_s,
        };
        let key = providers.join(" + ");
        match index_of.get(&key) {
            Some(&k) => out[k].samples.push(sample),
            None => {
                index_of.insert(key.clone(), out.len());
                out.push(ProviderHistory {
                    provider: key,
                    incidents_per_year: 0.0,
                    samples: vec![sample],
                });
                periods.push(w.period_s);
            }
        }
    }
    // the period as the report states it (`span_s`: noise rounded off), counted as
    // ProviderHistory::from_incidents counts it
    let periods: Vec<f64> = periods.into_iter().map(round_noise).collect();
    for (h, period_s) in out.iter_mut().zip(&periods) {
        let years = period_s / YEAR_S;
        h.incidents_per_year = h.samples.len() as f64 / years;
    }
    (out, periods)
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

/// One (chain, pattern) slot of the years: the replay's figures for it, per window (premium,
/// failed requests), and its labels.
struct Slot {
    chain: String,
    pattern: Pattern,
    requests_per_year: f64,
    prices: Vec<IncidentPrice>,
    method: Method,
    precision: Option<f64>,
    approximate: bool,
}

/// The (chain, pattern) slots of the years: every chain's own pattern the replay priced (not
/// the blended rows), each with the replay's rows' figures per window. Linear in the rows.
fn slots(scenario: &Scenario, base: &Incident, report: &HistoryReport) -> Vec<Slot> {
    let windows = report.incidents.len();
    let mut out: Vec<Slot> = Vec::new();
    let mut index: std::collections::HashMap<(&str, &str), usize> =
        std::collections::HashMap::new();
    for chain in &scenario.chains {
        for pattern in Pattern::ALL {
            if report
                .totals
                .iter()
                .any(|t| t.chain == chain.name && t.pattern == pattern)
            {
                index.insert((chain.name.as_str(), pattern.as_str()), out.len());
                out.push(Slot {
                    chain: chain.name.clone(),
                    pattern,
                    requests_per_year: base.requests_per_second
                        * chain.traffic_share.unwrap_or(1.0)
                        * YEAR_S,
                    prices: vec![IncidentPrice::default(); windows],
                    method: Method::Analytic,
                    precision: None,
                    approximate: false,
                });
            }
        }
    }
    for r in &report.rows {
        let Some(&k) = index.get(&(r.row.chain.as_str(), r.row.pattern.as_str())) else {
            continue;
        };
        let slot = &mut out[k];
        slot.prices[r.incident - 1] = IncidentPrice {
            premium_usd: r.row.analytic.excess_usd,
            failed_requests: r.row.analytic.failed_requests,
        };
        if r.row.method == Method::Simulated {
            slot.method = Method::Simulated;
        }
        slot.approximate |= r.approximate;
        slot.precision = match (slot.precision, r.row.simulated_precision) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    out
}

/// A years row from the figures of the uncertain-rate and known-rate years.
fn years_row(slot: &Slot, f: &YearsFigures, known: &YearsFigures) -> YearsRow {
    YearsRow {
        chain: slot.chain.clone(),
        pattern: slot.pattern,
        requests_per_year: round_noise(slot.requests_per_year),
        premium_mean_usd: round_noise(f.premium_mean_usd),
        premium_mean_usd_ci95: [
            round_noise(f.premium_ci95[0]),
            round_noise(f.premium_ci95[1]),
        ],
        premium_p50_usd: round_noise(f.premium_p50_usd),
        premium_p95_usd: round_noise(f.premium_p95_usd),
        premium_p99_usd: round_noise(f.premium_p99_usd),
        failed_per_year: round_noise(f.failed_per_year),
        availability: f.availability,
        nines: (f.availability < 1.0).then(|| round_noise(-(1.0 - f.availability).log10())),
        incidents_per_year: round_noise(f.incidents_per_year),
        overlap_share: round_noise(f.overlap_share),
        method: slot.method,
        simulated_precision: slot.precision,
        approximate: slot.approximate,
        rate_known: RateKnownFigures {
            premium_mean_usd: round_noise(known.premium_mean_usd),
            premium_p50_usd: round_noise(known.premium_p50_usd),
            premium_p95_usd: round_noise(known.premium_p95_usd),
            premium_p99_usd: round_noise(known.premium_p99_usd),
            failed_per_year: round_noise(known.failed_per_year),
            availability: known.availability,
        },
    }
}

/// The years' note: the model, the rates' uncertainty, the merging of overlaps.
fn years_note(request: YearsRequest, overlap: f64) -> String {
    let years = crate::number::group(&request.years.to_string());
    let model = match request.cluster {
        None => "a Poisson process per set of providers".to_string(),
        Some(k) => format!(
            "a Poisson process per set of providers, clustered: each year every rate is multiplied by one common factor G ~ Gamma({k}, 1/{k}) (mean 1, variance 1/{k}), so bad years coincide across providers"
        ),
    };
    format!(
        "years: {years} simulated years, seed {}; the history's windows (an incident, or incidents of several providers that overlapped) {model}, each window resampled whole from that set's history and priced at the replay's figures for it (premium: total − normal); each year draws every rate from its uncertainty, Gamma(n, r/n) for n windows at rate r (mean r: a bad year includes not knowing the rate well), and the same years at the history's rates are given beside them (rate known); windows that overlap in a simulated year are merged (each counted at the share union / sum of lengths: {}% of drawn windows); {ALONE}",
        request.seed,
        crate::number::trim(overlap * 100.0, 3)
    )
}

/// Simulate `request.years` years of the history in `report` (made by
/// [`replay`](super::replay) from the same scenario) for every chain and pattern of `scenario`, and add them to `report`.
///
/// The events are the replay's windows (an incident, or overlapping incidents of several
/// providers on one timeline): per set of providers a window holds (`anthropic`, `anthropic +
/// openai`), a Poisson process at the history's rate (windows of that set / period in years),
/// optionally clustered, the rate drawn from its uncertainty each year (and at the history's
/// rate, beside it); each window is resampled whole from its set's history and costs what the
/// replay says it costs. So the requests a chain fails only while two providers are down at
/// once count in the years as often as the history shows such overlaps; overlaps the history
/// never saw are not invented.
///
/// Errors: the scenario has no `[incident]`.
pub fn years(
    scenario: &Scenario,
    request: YearsRequest,
    report: &mut HistoryReport,
) -> crate::ops::OpsResult<()> {
    let simulated = simulate_years(scenario, request, report)?;
    add_years(report, simulated);
    Ok(())
}

/// The years [`years()`] adds to a report: its note and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedYears {
    note: String,
    years: YearsReport,
}

/// Add the simulated years to the report they were simulated from ([`simulate_years`]).
pub fn add_years(report: &mut HistoryReport, simulated: SimulatedYears) {
    report.notes.push(simulated.note);
    report.years = Some(simulated.years);
}

/// [`years()`] without changing `report`: what it adds ([`add_years`]), so that the parts of
/// the output the years do not change can be rendered meanwhile.
///
/// Errors: the scenario has no `[incident]`.
pub fn simulate_years(
    scenario: &Scenario,
    request: YearsRequest,
    report: &HistoryReport,
) -> crate::ops::OpsResult<SimulatedYears> {
    let Some(base) = scenario.incident.as_ref() else {
        return Err(crate::ops::OpsError::YearsNeedIncident);
    };
    let (providers, periods) = window_processes(report);
    let slots = slots(scenario, base, report);
    let requests_per_year: Vec<f64> = slots.iter().map(|s| s.requests_per_year).collect();
    let price = |slot: usize, _: usize, w: &WindowRef| slots[slot].prices[w.index];
    // both rate models on common random numbers: each window drawn once for both where both
    // have it, each model's years in the law it has alone (`sim::years::simulate_both`)
    let (uncertain, known) = years::simulate_both(
        &providers,
        &requests_per_year,
        &price,
        YearsOptions {
            years: request.years,
            seed: request.seed,
            year_factor_shape: request.cluster,
            rate: RateModel::Uncertain,
        },
    );
    let rows: Vec<YearsRow> = slots
        .iter()
        .zip(uncertain.iter().zip(&known))
        .map(|(slot, (f, k))| years_row(slot, f, k))
        .collect();
    let overlap = uncertain.first().map_or(0.0, |f| f.overlap_share);
    let years = YearsReport {
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
            .zip(&periods)
            .map(|(p, period_s)| {
                let n = p.samples.len();
                let years = round_noise(period_s / YEAR_S);
                let [lo, hi] = poisson_rate_ci95(n as u64, years);
                ProviderRate {
                    provider: p.provider.clone(),
                    incidents: n,
                    incidents_per_year: round_noise(p.incidents_per_year),
                    incidents_per_year_ci95: [round_noise(lo), round_noise(hi)],
                    period_years: round_noise(years),
                }
            })
            .collect(),
        rate_model: "uncertain",
        rows,
    };
    Ok(SimulatedYears {
        note: years_note(request, overlap),
        years,
    })
}
