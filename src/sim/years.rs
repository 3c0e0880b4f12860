//! "A bad year, priced" (issue 14; issue 21 item 8): N simulated years of incidents from a
//! history.
//!
//! **The model.** Each process p (a provider, or a set of providers whose incidents overlapped:
//! the caller decides) has, from its history, n_p incidents over a period of T years and the
//! list of their samples (durations, or whatever the caller prices). Its rate is r_p = n_p / T
//! (the maximum-likelihood rate of a Poisson process observed for T years), known only as well
//! as n_p incidents tell it: the exact (Garwood) 95% interval is [`poisson_rate_ci95`]. A
//! simulated year is a Poisson process per p at rate λ_p on the year, each incident a sample
//! resampled uniformly from p's history (the empirical distribution: no shape assumed, the real
//! long tail kept), starting at a uniform time of the year:
//!
//! - [`RateModel::Known`]: λ_p = r_p, the history's rate taken as the truth;
//! - [`RateModel::Uncertain`]: each year draws λ_p ~ Gamma(n_p, r_p / n_p) (mean r_p, variance
//!   r_p² / n_p: the posterior of a Poisson rate under the scale-free prior 1/λ, whose mean is
//!   the maximum-likelihood rate), so a bad year includes "we don't know the rate well": with
//!   one incident the rate is Exp-distributed, with 100 it is within ±20% at 95%.
//!
//! Why Poisson: a status page export gives tens of incidents per provider, enough to estimate
//! a rate and not a dependence structure; the Poisson process is the one with no other
//! parameter. Outages do cluster (September 3: three providers in one morning, a bad quarter
//! for one provider), so a *common year factor* is offered: with
//! [`YearsOptions::year_factor_shape`] = k, every rate in a year is multiplied by one draw
//! G ~ Gamma(k, 1/k) (mean 1, variance 1/k), shared by all processes. The mean annual figures
//! are unchanged; the yearly counts become negative binomial and bad years coincide, which
//! fattens the p95/p99. `None`: independent Poisson processes.
//!
//! **Overlaps merge.** Incidents drawn into one year can overlap in time (rare at a real rate:
//! 30 one-hour windows a year overlap in 0.7% of cases; common at an over-stated one). Their
//! requests are then the same requests, so a year never fails more than it serves: the year is
//! a circle of [`YEAR_S`] seconds (an incident running past its end wraps to its start, which
//! keeps every time of the year alike), overlapping incidents form a cluster, and each member
//! counts at the share union / sum of the members' lengths. So failed requests ≤ λ·year and
//! availability ≥ 0. The share is an approximation where incidents overlap (an overlap of two
//! providers' outages is priced as two windows scaled down, not as one timeline):
//! [`YearsFigures::overlap_share`] says how many drawn incidents it touched.
//!
//! **Pricing.** A year is priced by adding its incidents' prices, each a caller-supplied
//! function of (chain, process, sample) evaluated once per chain and sample of the history,
//! before any year is drawn (a table): no request is re-simulated per year, which is what makes
//! 1e5 years take well under a second (`benches/years.rs`). `compare --years` (`ops::history`)
//! passes the replay's windows with the replay's own figures: a window's premium (total −
//! normal) and failed requests.
//!
//! **Both rate models at once** ([`simulate_both`], issue 33 item 6): the years at the drawn
//! rates and at the history's rates share their draws (common random numbers: the windows
//! both rate models have are drawn once, each model's own few beside them), each with the law
//! it has alone; the `engine` module's docs say why. How a window is drawn (one 64-bit draw
//! for its process and sample, exactly uniform, the stream compared to 96 bits) is in the
//! `draw` module's docs.
//!
//! **Outputs** per chain ([`YearsFigures`]): the expected annual premium with its 95%
//! interval, the p50/p95/p99 of the annual premium (nearest rank over the simulated years),
//! failed requests per year, and availability = 1 − failed / requests per year.
//!
//! **Determinism**: years are cut into chunks of [`YEARS_PER_CHUNK`], each drawn by its own
//! generator [`crate::sim::rng::chunk_rng`]`(seed, `[`YEARS_STREAM`]`, chunk)`, run on rayon and
//! merged in chunk order ([`crate::sim::ordered`]): the same seed gives the same output on any
//! thread count.

mod clusters;
mod draw;
mod engine;
mod table;

use clusters::LANES;
use engine::Plan;

/// The random stream of the years simulation (a literal of its own until `rng` gets its
/// stream enum, issue 11): `YEAR` in ASCII.
pub const YEARS_STREAM: u64 = 0x5945_4152;

/// Simulated years per chunk (one generator each).
pub const YEARS_PER_CHUNK: u64 = 4096;

/// Seconds in a (Julian) year, 365.25 days: the unit of rates and "per year" figures.
pub const YEAR_S: f64 = 365.25 * 86_400.0;

/// What the simulation needs of a sample besides its price: how long it lasts, seconds (for
/// merging overlapping incidents in a year).
pub trait Sample {
    /// The incident's length, seconds.
    fn duration_s(&self) -> f64;
}

impl Sample for f64 {
    /// A bare duration, seconds.
    fn duration_s(&self) -> f64 {
        *self
    }
}

/// One process's history, as the simulation uses it.
///
/// `S` is what is resampled of each incident: its duration in seconds (`f64`), or whatever
/// else the caller's pricing function needs to price it (`ops::history`: a replay window).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderHistory<S = f64> {
    /// The process (a provider, or a set of them; the pricing function receives its index).
    pub provider: String,
    /// r: incidents per year (n / T).
    pub incidents_per_year: f64,
    /// Its n incidents in the history (resampled uniformly).
    pub samples: Vec<S>,
}

impl<S> ProviderHistory<S> {
    /// Per process, in first-seen order, from `(process, sample)` incidents observed over a
    /// period of `period_s` seconds: rate = count / (period / [`YEAR_S`]).
    pub fn from_incidents<'a>(
        incidents: impl IntoIterator<Item = (&'a str, S)>,
        period_s: f64,
    ) -> Vec<ProviderHistory<S>> {
        let mut out: Vec<ProviderHistory<S>> = Vec::new();
        for (p, d) in incidents {
            match out.iter_mut().find(|h| h.provider == p) {
                Some(h) => h.samples.push(d),
                None => out.push(ProviderHistory {
                    provider: p.to_string(),
                    incidents_per_year: 0.0,
                    samples: vec![d],
                }),
            }
        }
        let years = period_s / YEAR_S;
        for h in &mut out {
            h.incidents_per_year = h.samples.len() as f64 / years;
        }
        out
    }
}

/// P(X ≤ n) for X ~ Poisson(mu), to relative 1e-16, summed from the largest term of the
/// shorter side so that no term that matters underflows: for mu ≥ n the terms k ≤ n grow up
/// to k = n (summed down from it), for mu < n the tail k > n shrinks from k = n + 1 (summed
/// up, then 1 − it). `ln_fact_n` = ln n!.
fn poisson_cdf(n: u64, mu: f64, ln_fact_n: f64) -> f64 {
    if mu <= 0.0 {
        return 1.0;
    }
    let nf = n as f64;
    if mu >= nf {
        let mut term = (-mu + nf * mu.ln() - ln_fact_n).exp();
        let mut sum = term;
        let mut k = nf;
        while k > 0.0 && term > sum * 1e-17 {
            term *= k / mu;
            sum += term;
            k -= 1.0;
        }
        sum.min(1.0)
    } else {
        let k1 = nf + 1.0;
        let mut term = (-mu + k1 * mu.ln() - ln_fact_n - k1.ln()).exp();
        let mut tail = term;
        let mut k = k1;
        while term > tail * 1e-17 {
            k += 1.0;
            term *= mu / k;
            tail += term;
        }
        (1.0 - tail).max(0.0)
    }
}

/// The μ in [lo, hi] where `f` (decreasing in μ) crosses `target`, by bisection to 1e-13
/// relative.
fn bisect(mut lo: f64, mut hi: f64, target: f64, f: impl Fn(f64) -> f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The 95% interval of a Poisson mean from an observed count `n`, in the law the years draw
/// the rate from (MODEL.md §6, "The years"; [`RateModel::Uncertain`]): the 2.5% and 97.5%
/// quantiles of Gamma(n, 1), the mean's posterior under the scale-free prior 1/μ, which are
/// [χ²(0.025; 2n)/2, χ²(0.975; 2n)/2]: μ_lo with P(X ≥ n | μ_lo) = 0.025 (Garwood's lower
/// limit) and μ_hi with P(X ≤ n − 1 | μ_hi) = 0.025 (Garwood's upper limit for n − 1). n = 0
/// has no draws (no windows to resample): [0, Garwood's 3.689]. Divide by the period in
/// years for a rate. Worked values (any table of Poisson limits, Garwood 1936): n = 1 →
/// [0.02532, 3.689]; n = 2 → [0.2422, 5.572]; n = 10 → [4.795, 17.08].
pub fn poisson_ci95(n: u64) -> [f64; 2] {
    let ln_fact = |m: u64| (1..=m).map(|k| (k as f64).ln()).sum::<f64>();
    let nf = n as f64;
    let top = nf + 12.0 * nf.sqrt() + 20.0;
    // P(X ≤ m | μ) = 0.025 for m = n − 1 (m = 0 at n = 0)
    let m = n.saturating_sub(1);
    let hi = {
        let lf = ln_fact(m);
        bisect(0.0, top, 0.025, |mu| poisson_cdf(m, mu, lf))
    };
    let lo = if n == 0 {
        0.0
    } else {
        // P(X ≥ n) = 1 − P(X ≤ n − 1) = 0.025
        let lf = ln_fact(n - 1);
        bisect(0.0, top, 0.975, |mu| poisson_cdf(n - 1, mu, lf))
    };
    [lo, hi]
}

/// [`poisson_ci95`] as a rate: the interval of n incidents over `years`, per year.
pub fn poisson_rate_ci95(n: u64, years: f64) -> [f64; 2] {
    let [lo, hi] = poisson_ci95(n);
    [lo / years, hi / years]
}

/// What one incident costs one chain.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IncidentPrice {
    /// USD over the normal bill for the same requests (the incident's premium).
    pub premium_usd: f64,
    /// Requests it fails (on every link).
    pub failed_requests: f64,
}

/// How a year's rates are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateModel {
    /// The history's rates n / T, as if known exactly.
    Known,
    /// Each year each rate drawn from its uncertainty, Gamma(n, (n / T) / n).
    Uncertain,
}

/// What to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YearsOptions {
    /// N: simulated years.
    pub years: u64,
    /// The seed.
    pub seed: u64,
    /// k of the common year factor Gamma(k, 1/k) (clustering); `None`: independent Poisson.
    pub year_factor_shape: Option<f64>,
    /// Whether the rates are taken as known or drawn from their uncertainty each year.
    pub rate: RateModel,
}

/// Per chain, over the simulated years. USD per year.
#[derive(Debug, Clone, PartialEq)]
pub struct YearsFigures {
    /// The expected annual incident premium (mean over the years).
    pub premium_mean_usd: f64,
    /// Its 95% confidence interval (normal approximation).
    pub premium_ci95: [f64; 2],
    /// The median year's premium.
    pub premium_p50_usd: f64,
    /// The 95th percentile year's premium.
    pub premium_p95_usd: f64,
    /// The 99th percentile year's premium.
    pub premium_p99_usd: f64,
    /// Mean failed requests per year.
    pub failed_per_year: f64,
    /// Share of the year's requests answered: 1 − failed per year / requests per year, in
    /// [0, 1].
    pub availability: f64,
    /// Mean incidents per simulated year (all processes).
    pub incidents_per_year: f64,
    /// The share of drawn incidents that overlapped another in their year (counted at the
    /// share union / sum of lengths), in [0, 1].
    pub overlap_share: f64,
}

/// One incident drawn into a year, as the reference [`overlap_weights`] reads it: its start
/// (seconds into the year), its end (may pass the year's end: it wraps).
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
struct Drawn {
    start: f64,
    end: f64,
}

/// Each drawn incident's weight: union / sum of lengths of its cluster of overlapping
/// incidents on the year's circle (1 alone), and how many overlapped. `drawn` is in start
/// order. The reference the years' clusters are tested against (`engine::lane_clusters`).
#[cfg(test)]
fn overlap_weights(
    drawn: &[Drawn],
    weights: &mut Vec<f64>,
    clusters: &mut Vec<(usize, usize, f64, f64)>,
) -> u64 {
    weights.clear();
    weights.resize(drawn.len(), 1.0);
    if drawn.len() < 2 {
        return 0;
    }
    // clusters on the line: (first index, end index exclusive, union end, sum of lengths)
    clusters.clear();
    for (k, d) in drawn.iter().enumerate() {
        let len = d.end - d.start;
        match clusters.last_mut() {
            Some(c) if d.start < c.2 => {
                c.1 = k + 1;
                c.2 = c.2.max(d.end);
                c.3 += len;
            }
            _ => clusters.push((k, k + 1, d.end, len)),
        }
    }
    // the last cluster wraps past the year's end onto the first ones
    let mut first_kept = 0;
    let last = clusters.len() - 1;
    let mut wrap = clusters[last].2 - YEAR_S;
    let mut extra_sum = 0.0;
    while wrap > 0.0 && first_kept < last && drawn[clusters[first_kept].0].start < wrap {
        let c = clusters[first_kept];
        wrap = wrap.max(c.2);
        extra_sum += c.3;
        first_kept += 1;
    }
    let mut overlapped = 0;
    let mut assign = |from: usize, to: usize, union: f64, sum: f64, w: &mut Vec<f64>| {
        if to - from > 1 && sum > 0.0 {
            let share = (union / sum).min(1.0);
            w[from..to].iter_mut().for_each(|x| *x = share);
            overlapped += (to - from) as u64;
        }
    };
    for &(from, to, end, sum) in &clusters[first_kept..last] {
        assign(from, to, end - drawn[from].start, sum, weights);
    }
    let (from, to, end, sum) = clusters[last];
    if first_kept == 0 {
        assign(from, to, end - drawn[from].start, sum, weights);
    } else {
        // the wrapped cluster: its members and the first clusters it reached
        let union = ((YEAR_S - drawn[from].start) + wrap.max(0.0)).min(YEAR_S);
        let share = (union / (sum + extra_sum)).min(1.0);
        let reached = clusters[first_kept - 1].1;
        weights[from..to].iter_mut().for_each(|x| *x = share);
        weights[..reached].iter_mut().for_each(|x| *x = share);
        overlapped += (to - from + reached) as u64;
    }
    overlapped
}

/// The nearest rank of the q-quantile of n values, from 0: ⌈q·n⌉ − 1 (n ≥ 1).
fn rank(n: usize, q: f64) -> usize {
    ((q * n as f64).ceil() as usize).clamp(1, n) - 1
}

/// The nearest-rank q-quantile of sorted `v`: v[⌈q·n⌉ − 1].
#[cfg(test)]
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v[rank(v.len(), q)]
}

/// The nearest-rank p50, p95 and p99 of `v` (reordered), as `quantile` of it sorted, by
/// selection: the p99's rank first, then the p95's among the values below it, then the p50's.
fn quantiles(v: &mut [f64]) -> [f64; 3] {
    if v.is_empty() {
        return [0.0; 3];
    }
    let n = v.len();
    let [r50, r95, r99] = [0.50, 0.95, 0.99].map(|q| rank(n, q));
    let (below, &mut p99, _) = v.select_nth_unstable_by(r99, f64::total_cmp);
    let p95 = if r95 < r99 {
        *below.select_nth_unstable_by(r95, f64::total_cmp).1
    } else {
        p99
    };
    let below = &mut below[..r95.min(r99)];
    let p50 = if r50 < r95 {
        *below.select_nth_unstable_by(r50, f64::total_cmp).1
    } else {
        p95
    };
    [p50, p95, p99]
}

/// Per chain, the figures of its simulated years' (premium, failed) list.
fn figures_of(
    mut v: Vec<f64>,
    failed: f64,
    requests_per_year: f64,
    n: f64,
    incidents: u64,
    overlapped: u64,
) -> YearsFigures {
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let half = 1.96 * (var / n).sqrt();
    let [p50, p95, p99] = quantiles(&mut v);
    let failed_per_year = failed / n;
    YearsFigures {
        premium_mean_usd: mean,
        premium_ci95: [mean - half, mean + half],
        premium_p50_usd: p50,
        premium_p95_usd: p95,
        premium_p99_usd: p99,
        failed_per_year,
        availability: if requests_per_year > 0.0 {
            (1.0 - failed_per_year / requests_per_year).clamp(0.0, 1.0)
        } else {
            1.0
        },
        incidents_per_year: incidents as f64 / n,
        overlap_share: if incidents > 0 {
            overlapped as f64 / incidents as f64
        } else {
            0.0
        },
    }
}

/// Per lane of `plan`, per chain, the figures of its simulated years (the lanes after
/// `plan.lanes` empty).
fn simulate_lanes<S: Sample + Sync>(
    providers: &[ProviderHistory<S>],
    requests_per_year: &[f64],
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
    plan: Plan,
) -> [Vec<YearsFigures>; LANES] {
    let chains = requests_per_year.len();
    let t = table::table(providers, chains, price);
    let years = plan.options.years;
    let chunks = years.div_ceil(YEARS_PER_CHUNK);
    let lanes = plan.lanes;
    let mut premiums: Vec<Vec<Vec<f64>>> = (0..lanes)
        .map(|_| vec![Vec::with_capacity(years as usize); chains])
        .collect();
    let mut failed = vec![vec![0.0; chains]; lanes];
    let mut counts = [(0u64, 0u64); LANES];
    #[cfg(target_arch = "x86_64")]
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("bmi2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    super::ordered(
        chunks,
        |chunk| engine::years_of_chunk(providers, &t, &plan, chunk, avx2),
        |(sums, got)| {
            for (c, g) in counts.iter_mut().zip(got) {
                c.0 += g.0;
                c.1 += g.1;
            }
            for year in sums.chunks((lanes * t.columns).max(1)) {
                for (l, lane) in year.chunks(t.columns.max(1)).enumerate() {
                    for (c, &(p, f)) in t.chain_columns.iter().enumerate() {
                        premiums[l][c].push(lane[p]);
                        failed[l][c] += lane[f];
                    }
                }
            }
        },
        &mut |_| {},
    );
    let n = years.max(1) as f64;
    let mut out: [Vec<YearsFigures>; LANES] = Default::default();
    for (l, (lane_premiums, lane_failed)) in premiums.into_iter().zip(failed).enumerate() {
        let (incidents, overlapped) = counts[l];
        out[l] = lane_premiums
            .into_iter()
            .zip(lane_failed)
            .zip(requests_per_year)
            .map(|((v, f), &req)| figures_of(v, f, req, n, incidents, overlapped))
            .collect();
    }
    out
}

/// Simulate `options.years` years of `providers`' incidents for `requests_per_year.len()`
/// chains, each incident priced by `price(chain, process index, sample)` (called once per
/// chain and sample, before any year is drawn). `requests_per_year[c]`: chain c's requests in
/// a year (λ · [`YEAR_S`]), for availability.
pub fn simulate<S: Sample + Sync>(
    providers: &[ProviderHistory<S>],
    requests_per_year: &[f64],
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
    options: YearsOptions,
) -> Vec<YearsFigures> {
    let plan = Plan {
        models: [options.rate; LANES],
        lanes: 1,
        options,
    };
    let [one, _] = simulate_lanes(providers, requests_per_year, price, plan);
    one
}

/// [`simulate`] for both rate models at once, on common random numbers: (the years at rates
/// drawn from their uncertainty, the years at the history's rates), each with the law it has
/// alone ([`RateModel`]; `options.rate` is not read). Each window is drawn once for both where
/// both rate models have it (the `engine` module's docs), so the two cost about what one does.
pub fn simulate_both<S: Sample + Sync>(
    providers: &[ProviderHistory<S>],
    requests_per_year: &[f64],
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
    options: YearsOptions,
) -> (Vec<YearsFigures>, Vec<YearsFigures>) {
    let plan = Plan {
        models: [RateModel::Uncertain, RateModel::Known],
        lanes: LANES,
        options,
    };
    let [uncertain, known] = simulate_lanes(providers, requests_per_year, price, plan);
    (uncertain, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{chunk_rng, uniform};
    use rand_distr::{Distribution, Gamma};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn one_provider(rate: f64, durations: &[f64]) -> Vec<ProviderHistory> {
        vec![ProviderHistory {
            provider: "anthropic".into(),
            incidents_per_year: rate,
            samples: durations.to_vec(),
        }]
    }

    fn opts(years: u64) -> YearsOptions {
        YearsOptions {
            years,
            seed: 7,
            year_factor_shape: None,
            rate: RateModel::Known,
        }
    }

    #[test]
    fn rates_come_from_the_history_span() {
        // 3 incidents of anthropic and 1 of openai over two years
        let h = ProviderHistory::from_incidents(
            [
                ("anthropic", 60.0),
                ("openai", 30.0),
                ("anthropic", 90.0),
                ("anthropic", 60.0),
            ],
            2.0 * YEAR_S,
        );
        assert_eq!(h[0].provider, "anthropic");
        assert_eq!(h[0].incidents_per_year, 1.5);
        assert_eq!(h[0].samples, vec![60.0, 90.0, 60.0]);
        assert_eq!(h[1].incidents_per_year, 0.5);
    }

    /// Samples alike to the bit share a row of the table; a sample differing in its duration
    /// or in any chain's price gets its own, and every sample reads its own figures.
    #[test]
    fn samples_priced_alike_share_a_row() {
        let providers = vec![
            ProviderHistory {
                provider: "a".into(),
                incidents_per_year: 1.0,
                samples: vec![600.0, 1200.0, 600.0, 600.0],
            },
            ProviderHistory {
                provider: "b".into(),
                incidents_per_year: 1.0,
                samples: vec![600.0, 1200.0],
            },
        ];
        // chain 1 prices process b's 600 s apart from a's
        let price = |c: usize, p: usize, d: &f64| IncidentPrice {
            premium_usd: d * (1.0 + (c * p) as f64),
            failed_requests: *d,
        };
        let t = table::table(&providers, 2, &price);
        assert_eq!(t.rows(), vec![0, 1, 0, 0, 2, 3]);
        assert_eq!(t.durations(), vec![600.0, 1200.0, 600.0, 1200.0]);
        for (p, h) in providers.iter().enumerate() {
            for (i, d) in h.samples.iter().enumerate() {
                let row = t.row(p, i);
                assert_eq!(t.durations()[row as usize], *d);
                let want: Vec<IncidentPrice> = (0..2).map(|c| price(c, p, d)).collect();
                assert_eq!(t.of(row), &want[..]);
            }
        }
    }

    #[test]
    fn each_sample_is_priced_once_per_chain_before_the_years() {
        let calls = AtomicUsize::new(0);
        let price = |_c: usize, _p: usize, d: &f64| {
            calls.fetch_add(1, Ordering::Relaxed);
            IncidentPrice {
                premium_usd: *d,
                failed_requests: 0.0,
            }
        };
        simulate(
            &one_provider(3.0, &[3600.0, 3600.0, 7200.0]),
            &[1.0, 1.0],
            &price,
            opts(10_000),
        );
        // 3 samples × 2 chains, whatever the number of years
        assert_eq!(calls.load(Ordering::Relaxed), 6);
    }

    #[test]
    fn a_poisson_year_has_the_poisson_quantiles() {
        // Poisson(2) incidents at $1 each: the annual premium is the count. Mean 2; CDF
        // P(≤1) = 0.406, P(≤2) = 0.677 → p50 = 2; P(≤4) = 0.947, P(≤5) = 0.983 → p95 = 5;
        // P(≤6) = 0.9955 → p99 = 6.
        let f = simulate(
            &one_provider(2.0, &[3600.0]),
            &[YEAR_S],
            &|_, _, _| IncidentPrice {
                premium_usd: 1.0,
                failed_requests: 3600.0,
            },
            opts(100_000),
        );
        let f = &f[0];
        assert!((f.premium_mean_usd - 2.0).abs() < 0.02, "{f:?}");
        // the interval's half width is 1.96·√(2 / 1e5) = 0.00877 (Poisson variance = mean)
        let half = (f.premium_ci95[1] - f.premium_ci95[0]) / 2.0;
        assert!((half - 0.00877).abs() < 0.0002, "{half}");
        assert_eq!(
            (f.premium_p50_usd, f.premium_p95_usd, f.premium_p99_usd),
            (2.0, 5.0, 6.0)
        );
        // failed: 2 × 3,600 a year at 1 req/s: availability 1 − 7,200 / 31,557,600
        assert!((f.failed_per_year - 7200.0).abs() < 72.0, "{f:?}");
        assert!((f.availability - (1.0 - f.failed_per_year / YEAR_S)).abs() < 1e-15);
        assert!((f.availability - 0.999_771_8).abs() < 3e-6, "{f:?}");
    }

    #[test]
    fn the_annual_premium_is_rate_times_mean_price() {
        // rate 2, durations 1 h and 2 h priced $100/h: E = 2 × 150 = 300 a year; the compound
        // Poisson variance is 2 × (100² + 200²)/2 = 50,000, so the 95% interval over 1e5 years
        // is ±1.39.
        let f = simulate(
            &one_provider(2.0, &[3600.0, 7200.0]),
            &[1.0],
            &|_, _, d: &f64| IncidentPrice {
                premium_usd: d / 36.0,
                failed_requests: 0.0,
            },
            opts(100_000),
        );
        assert!((f[0].premium_mean_usd - 300.0).abs() < 2.0, "{:?}", f[0]);
        let half = (f[0].premium_ci95[1] - f[0].premium_ci95[0]) / 2.0;
        assert!(
            (half - 1.96 * (50_000.0f64 / 1e5).sqrt()).abs() < 0.05,
            "{half}"
        );
    }

    #[test]
    fn same_seed_same_output_on_any_thread_count() {
        let providers = vec![
            ProviderHistory {
                provider: "anthropic".into(),
                incidents_per_year: 12.0,
                samples: vec![600.0, 3600.0, 11_160.0],
            },
            ProviderHistory {
                provider: "openai".into(),
                incidents_per_year: 8.0,
                samples: vec![2040.0, 900.0],
            },
        ];
        let price = |c: usize, p: usize, d: &f64| IncidentPrice {
            premium_usd: d * (c + 1) as f64 + p as f64,
            failed_requests: d * p as f64,
        };
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    simulate(
                        &providers,
                        &[YEAR_S, YEAR_S],
                        &price,
                        YearsOptions {
                            years: 20_000,
                            seed: 42,
                            year_factor_shape: Some(2.0),
                            rate: RateModel::Uncertain,
                        },
                    )
                })
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert!((one[0].incidents_per_year - 20.0).abs() < 0.5, "{one:?}");
        // chain 1's prices are chain 0's plus d: a larger premium on the same draws
        assert!(one[1].premium_mean_usd > one[0].premium_mean_usd);
    }

    #[test]
    fn a_common_year_factor_keeps_the_mean_and_fattens_the_tail() {
        let price = |_: usize, _: usize, _: &f64| IncidentPrice {
            premium_usd: 1.0,
            failed_requests: 0.0,
        };
        let h = one_provider(10.0, &[60.0]);
        let plain = &simulate(&h, &[1.0], &price, opts(50_000))[0];
        let clustered = &simulate(
            &h,
            &[1.0],
            &price,
            YearsOptions {
                year_factor_shape: Some(1.0),
                ..opts(50_000)
            },
        )[0];
        // both mean 10; Poisson(10): p99 = 18; with G ~ Exp(1) the count is geometric-like
        // (variance 10 + 100): p99 far above 18
        assert!((plain.premium_mean_usd - 10.0).abs() < 0.1);
        assert!((clustered.premium_mean_usd - 10.0).abs() < 0.3);
        assert_eq!(plain.premium_p99_usd, 18.0);
        assert!(clustered.premium_p99_usd > 35.0, "{clustered:?}");
    }

    /// The printed interval is the law the years draw (issue 33 item 5): Gamma(n, 1)'s 2.5%
    /// and 97.5% quantiles, checked against tables of Poisson limits and against the draws.
    #[test]
    fn rate_intervals_are_the_drawn_gammas_quantiles() {
        // Garwood (1936) / any table of exact Poisson limits, 95%: lower(n), upper(n − 1)
        let close = |got: [f64; 2], want: [f64; 2]| {
            assert!(
                (got[0] - want[0]).abs() <= 5e-4 * want[0].max(1e-3)
                    && (got[1] - want[1]).abs() <= 5e-4 * want[1],
                "{got:?} vs {want:?}"
            );
        };
        close(poisson_ci95(0), [0.0, 3.6889]);
        close(poisson_ci95(1), [0.025_318, 3.6889]);
        close(poisson_ci95(2), [0.24217, 5.5716]);
        close(poisson_ci95(10), [4.7954, 17.085]);
        close(poisson_ci95(100), [81.364, 120.53]);
        // the defining tail probabilities, at n = 3: P(X ≥ 3 | lo) = P(X ≤ 2 | hi) = 0.025
        let [lo, hi] = poisson_ci95(3);
        let cdf = |n: u64, mu: f64| {
            (0..=n)
                .map(|k| (-mu).exp() * mu.powi(k as i32) / (1..=k).product::<u64>() as f64)
                .sum::<f64>()
        };
        assert!((1.0 - cdf(2, lo) - 0.025).abs() < 1e-10, "{lo}");
        assert!((cdf(2, hi) - 0.025).abs() < 1e-10, "{hi}");
        // the draws: 40,000 of Gamma(3, 1) fall below lo 2.5% and above hi 2.5% of the
        // time (± 4.5 standard errors of a share of 0.025: ±0.0035)
        let mut rng = crate::sim::rng::chunk_rng(33, 5, 0);
        let g = Gamma::new(3.0, 1.0).unwrap();
        let draws: Vec<f64> = (0..40_000).map(|_| g.sample(&mut rng)).collect();
        let below = draws.iter().filter(|&&x| x < lo).count() as f64 / 40_000.0;
        let above = draws.iter().filter(|&&x| x > hi).count() as f64 / 40_000.0;
        assert!((below - 0.025).abs() < 0.0035, "{below}");
        assert!((above - 0.025).abs() < 0.0035, "{above}");
        // a large count: within the normal approximation's reach, n ± 1.96·√n (+ ~1)
        let [lo, hi] = poisson_ci95(20_000);
        assert!(
            (lo - (20_000.0 - 1.96 * 20_000f64.sqrt())).abs() < 2.0,
            "{lo}"
        );
        assert!(
            (hi - (20_000.0 + 1.96 * 20_000f64.sqrt())).abs() < 3.0,
            "{hi}"
        );
        // as a rate: 2 incidents over half a year
        let [lo, hi] = poisson_rate_ci95(2, 0.5);
        assert!((lo - 0.48434).abs() < 1e-3 && (hi - 11.143).abs() < 1e-2);
    }

    fn drawn(spans: &[(f64, f64)]) -> Vec<Drawn> {
        spans
            .iter()
            .map(|&(start, end)| Drawn { start, end })
            .collect()
    }

    fn overlap_weights_of(d: &[Drawn], w: &mut Vec<f64>) -> u64 {
        overlap_weights(d, w, &mut Vec::new())
    }

    /// Each lane's clusters weigh its windows as the reference [`overlap_weights`] does, on
    /// random years of two lanes (dense enough to overlap, some wrapping past the year's end;
    /// windows of one lane, of the other, of both). The shares to rounding (a wrapped cluster's
    /// lengths are added in another order), the counts exactly.
    #[test]
    fn lane_clusters_are_the_circle_weights() {
        use clusters::{Point, lane_clusters};
        let mut rng = chunk_rng(5, 0, 0);
        let (mut w, mut clusters, mut found) = (Vec::new(), Vec::new(), Vec::new());
        let mut wrapped = 0;
        for year in 0..2000 {
            let n = year % 40;
            let mut starts: Vec<f64> = (0..n).map(|_| uniform(&mut rng) * YEAR_S).collect();
            starts.sort_by(f64::total_cmp);
            let points: Vec<Point> = starts
                .iter()
                .map(|&s| Point {
                    start: s,
                    end: s + uniform(&mut rng) * 3e6,
                    row: 0,
                    // both lanes most of the time, as the common windows are
                    mask: [3, 3, 1, 2][(uniform(&mut rng) * 4.0) as usize],
                })
                .collect();
            wrapped += usize::from(points.iter().any(|p| p.end > YEAR_S));
            for bit in [1, 2] {
                let lane: Vec<usize> = (0..n).filter(|&k| points[k].mask & bit != 0).collect();
                let d: Vec<Drawn> = lane
                    .iter()
                    .map(|&k| Drawn {
                        start: points[k].start,
                        end: points[k].end,
                    })
                    .collect();
                let want = overlap_weights(&d, &mut w, &mut clusters);
                let count = lane_clusters(&points, bit, &mut found);
                assert_eq!(count, lane.len() as u64);
                let mut got = vec![1.0; n];
                let mut overlapped = 0;
                for c in &found {
                    overlapped += c.members;
                    for k in (c.from..c.to).filter(|&k| points[k].mask & bit != 0) {
                        got[k] = c.share;
                    }
                }
                assert_eq!(overlapped, want, "{points:?}");
                for (i, &k) in lane.iter().enumerate() {
                    assert!((got[k] - w[i]).abs() <= 1e-12 * w[i], "{points:?}");
                }
            }
        }
        assert!(wrapped > 100, "{wrapped}");
    }

    #[test]
    fn overlapping_incidents_of_a_year_share_their_union() {
        let mut w = Vec::new();
        // apart: weight 1 each
        assert_eq!(
            overlap_weights_of(&drawn(&[(0.0, 10.0), (20.0, 30.0)]), &mut w),
            0
        );
        assert_eq!(w, vec![1.0, 1.0]);
        // [0, 10) and [5, 15): union 15 of lengths 20 → 0.75 each; [100, 110) apart
        let n = overlap_weights_of(&drawn(&[(0.0, 10.0), (5.0, 15.0), (100.0, 110.0)]), &mut w);
        assert_eq!((n, w.clone()), (2, vec![0.75, 0.75, 1.0]));
        // the same incident twice: half each (one outage, its requests once)
        overlap_weights_of(&drawn(&[(50.0, 80.0), (50.0, 80.0)]), &mut w);
        assert_eq!(w, vec![0.5, 0.5]);
        // the last one wraps past the year's end onto the first: [Y − 10, Y + 10) and [5, 15)
        // → union 10 + 15 = 25 of lengths 30
        let y = YEAR_S;
        let n = overlap_weights_of(
            &drawn(&[(5.0, 15.0), (1000.0, 1010.0), (y - 10.0, y + 10.0)]),
            &mut w,
        );
        assert_eq!(n, 2);
        assert_eq!(w, vec![25.0 / 30.0, 1.0, 25.0 / 30.0]);
    }

    #[test]
    fn availability_is_never_below_zero() {
        // one 1-hour incident read as 8,766 a year (the period of the incident itself): the
        // drawn hours overlap and merge, so a year fails at most its own requests
        let f = &simulate(
            &one_provider(8766.0, &[3600.0]),
            &[YEAR_S],
            &|_, _, _| IncidentPrice {
                premium_usd: -1.0,
                failed_requests: 3600.0,
            },
            YearsOptions {
                rate: RateModel::Uncertain,
                ..opts(2_000)
            },
        )[0];
        assert!(f.failed_per_year <= YEAR_S + 1e-6, "{f:?}");
        assert!((0.0..=1.0).contains(&f.availability), "{f:?}");
        // at 8,766 hours a year, 1 − e^{−1} of the year is down (the union of a Poisson
        // process of 1-hour windows covers 1 − e^{−λ·D} of the time): availability ≈ e^{−1}
        let f = &simulate(
            &one_provider(8766.0, &[3600.0]),
            &[YEAR_S],
            &|_, _, _| IncidentPrice {
                premium_usd: 0.0,
                failed_requests: 3600.0,
            },
            opts(2_000),
        )[0];
        assert!((f.availability - (-1.0f64).exp()).abs() < 0.01, "{f:?}");
        assert!(f.overlap_share > 0.6, "{f:?}");
    }

    #[test]
    fn an_uncertain_rate_keeps_the_mean_and_widens_the_tail() {
        // 2 incidents observed: the rate is Gamma(2, r/2) each year; $1 each. Mean r = 2 both
        // ways; P(K ≥ x) is negative binomial (size 2, p = 1/2): p99 = 9 (P(K ≤ 8) = 0.9893,
        // P(K ≤ 9) = 0.9941) against Poisson(2)'s 6
        let price = |_: usize, _: usize, _: &f64| IncidentPrice {
            premium_usd: 1.0,
            failed_requests: 0.0,
        };
        let h = one_provider(2.0, &[60.0, 60.0]);
        let known = &simulate(&h, &[1.0], &price, opts(100_000))[0];
        let uncertain = &simulate(
            &h,
            &[1.0],
            &price,
            YearsOptions {
                rate: RateModel::Uncertain,
                ..opts(100_000)
            },
        )[0];
        assert!((known.premium_mean_usd - 2.0).abs() < 0.02, "{known:?}");
        assert!(
            (uncertain.premium_mean_usd - 2.0).abs() < 0.03,
            "{uncertain:?}"
        );
        assert_eq!(known.premium_p99_usd, 6.0);
        assert_eq!(uncertain.premium_p99_usd, 9.0);
    }

    /// Both rate models drawn together (common random numbers) keep each one's law: the
    /// case above, each as it is alone (means 2; p99 9 at the drawn rate, 6 at the known one).
    #[test]
    fn both_rate_models_at_once_keep_their_laws() {
        let price = |_: usize, _: usize, _: &f64| IncidentPrice {
            premium_usd: 1.0,
            failed_requests: 0.0,
        };
        let h = one_provider(2.0, &[60.0, 60.0]);
        let (uncertain, known) = simulate_both(&h, &[1.0], &price, opts(100_000));
        let (uncertain, known) = (&uncertain[0], &known[0]);
        assert!((known.premium_mean_usd - 2.0).abs() < 0.02, "{known:?}");
        assert!(
            (uncertain.premium_mean_usd - 2.0).abs() < 0.03,
            "{uncertain:?}"
        );
        assert_eq!(known.premium_p99_usd, 6.0);
        assert_eq!(uncertain.premium_p99_usd, 9.0);
        assert_eq!((known.premium_p50_usd, known.premium_p95_usd), (2.0, 5.0));
        // 2 incidents a year at rate r: E[count] = 2 in each lane
        assert!((known.incidents_per_year - 2.0).abs() < 0.02);
        assert!((uncertain.incidents_per_year - 2.0).abs() < 0.03);
    }

    #[test]
    fn nearest_rank_quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.0);
        assert_eq!(quantile(&v, 0.95), 4.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    /// Selection gives the sorted list's nearest-rank p50, p95 and p99, at every length from 1
    /// (where the ranks coincide) and with ties.
    #[test]
    fn selected_quantiles_are_the_sorted_ones() {
        let mut rng = chunk_rng(3, 0, 0);
        for n in (1..60).chain([99, 100, 101, 1000, 4097]) {
            for ties in [false, true] {
                let v: Vec<f64> = (0..n)
                    .map(|_| {
                        let x = uniform(&mut rng) * 100.0;
                        if ties { x.floor() } else { x }
                    })
                    .collect();
                let mut sorted = v.clone();
                sorted.sort_by(f64::total_cmp);
                let want = [0.5, 0.95, 0.99].map(|q| quantile(&sorted, q));
                assert_eq!(quantiles(&mut v.clone()), want, "n = {n}");
            }
        }
        assert_eq!(quantiles(&mut []), [0.0; 3]);
    }
}
