//! "A bad year, priced" (issue 14): N simulated years of incidents from a history.
//!
//! **The model.** Each provider p has, from its history, a count n_p of incidents over a span
//! of T years and the list of their durations. A simulated year draws, per provider, a number
//! of incidents K_p ~ Poisson(r_p), r_p = n_p / T (the maximum-likelihood rate of a Poisson
//! process observed for T years), and for each a duration resampled uniformly from the
//! provider's history (the empirical distribution: no shape assumed, the real long tail kept).
//!
//! Why Poisson: a status page export gives tens of incidents per provider, enough to estimate
//! a rate and not a dependence structure; the Poisson process is the one with no other
//! parameter. Outages do cluster (September 3: three providers in one morning, a bad quarter
//! for one provider), so a *common year factor* is offered: with
//! [`YearsOptions::year_factor_shape`] = k, every provider's rate in a year is multiplied by one
//! draw G ~ Gamma(k, 1/k) (mean 1, variance 1/k), shared by all providers. The mean annual
//! figures are unchanged; the yearly count of each provider becomes negative binomial (variance
//! r + r²/k) and providers' bad years coincide, which fattens the p95/p99. `None`: independent
//! Poisson processes.
//!
//! **Pricing.** A year is priced by adding its incidents' prices, each a caller-supplied
//! function of (chain, provider, sample: the duration and whatever else the caller prices)
//! evaluated once per chain and *distinct* sample of the history, before any year is drawn (a
//! table): no request is re-simulated per year, which
//! is what makes 1e5 years take milliseconds (`benches/years.rs`). The price of an incident is
//! what the incident engine says a window of that duration on that provider costs the chain
//! over its normal bill (the premium) and how many requests it fails. Incidents in one year are
//! priced independently, so the caller decides what one incident is: `compare --years`
//! (`ops::history`) passes the replay's windows, overlapping incidents of several providers
//! resampled whole as one multi-provider timeline ("provider" is then the set of providers a
//! window holds), so the requests a chain fails only while all its providers are down count as
//! often as the history shows such overlaps.
//!
//! **Outputs** per chain ([`YearsFigures`]): the expected annual premium with its 95%
//! interval, the p50/p95/p99 of the annual premium (nearest rank over the simulated years),
//! failed requests per year, and availability = 1 − failed / requests per year.
//!
//! **Determinism**: years are cut into chunks of [`YEARS_PER_CHUNK`], each drawn by its own
//! generator [`crate::sim::rng::chunk_rng`]`(seed, `[`YEARS_STREAM`]`, chunk)`, run on rayon and
//! merged in chunk order ([`crate::sim::ordered`]): the same seed gives the same output on any
//! thread count.

use rand_distr::{Distribution, Gamma, Poisson};

use super::rng::{SimRng, chunk_rng, uniform};

/// The random stream of the years simulation (a literal of its own until `rng` gets its
/// stream enum, issue 11): `YEAR` in ASCII.
pub const YEARS_STREAM: u64 = 0x5945_4152;

/// Simulated years per chunk (one generator each).
pub const YEARS_PER_CHUNK: u64 = 4096;

/// Seconds in a (Julian) year, 365.25 days: the unit of rates and "per year" figures.
pub const YEAR_S: f64 = 365.25 * 86_400.0;

/// One provider's history, as the simulation uses it.
///
/// `S` is what is resampled of each incident: its duration in seconds (`f64`), or whatever
/// else the caller's pricing function needs to price it (a duration with its error rate and
/// failure mode: `ops::history`); two equal samples are priced once.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderHistory<S = f64> {
    /// The provider (the caller's pricing function receives its index).
    pub provider: String,
    /// r: incidents per year (n / T).
    pub incidents_per_year: f64,
    /// Its incidents in the history (resampled uniformly): durations in seconds, or the
    /// caller's incident shapes.
    pub samples: Vec<S>,
}

impl<S> ProviderHistory<S> {
    /// Per provider, in first-seen order, from `(provider, sample)` incidents observed over
    /// `span_s` seconds: rate = count / (span / [`YEAR_S`]).
    pub fn from_incidents<'a>(
        incidents: impl IntoIterator<Item = (&'a str, S)>,
        span_s: f64,
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
        let years = span_s / YEAR_S;
        for h in &mut out {
            h.incidents_per_year = h.samples.len() as f64 / years;
        }
        out
    }
}

/// What one incident costs one chain.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IncidentPrice {
    /// USD over the normal bill for the same requests (the incident's premium).
    pub premium_usd: f64,
    /// Requests it fails (on every link).
    pub failed_requests: f64,
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
    /// Share of the year's requests answered: 1 − failed per year / requests per year.
    pub availability: f64,
    /// Mean incidents per simulated year (all providers).
    pub incidents_per_year: f64,
}

/// The price table: per provider, its distinct samples and, per history incident, the index
/// of its sample among them; per chain × provider × distinct sample, the price.
struct Table {
    sample: Vec<Vec<usize>>,
    prices: Vec<Vec<Vec<IncidentPrice>>>,
}

fn table<S: PartialEq>(
    providers: &[ProviderHistory<S>],
    chains: usize,
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
) -> Table {
    let mut sample = Vec::with_capacity(providers.len());
    let mut distinct_of: Vec<Vec<&S>> = Vec::with_capacity(providers.len());
    for h in providers {
        // first-seen order; a history holds tens to hundreds of incidents per provider
        let mut distinct: Vec<&S> = Vec::new();
        let index: Vec<usize> = h
            .samples
            .iter()
            .map(|s| match distinct.iter().position(|d| *d == s) {
                Some(i) => i,
                None => {
                    distinct.push(s);
                    distinct.len() - 1
                }
            })
            .collect();
        sample.push(index);
        distinct_of.push(distinct);
    }
    let prices = (0..chains)
        .map(|c| {
            distinct_of
                .iter()
                .enumerate()
                .map(|(p, ds)| ds.iter().map(|d| price(c, p, d)).collect())
                .collect()
        })
        .collect();
    Table { sample, prices }
}

/// One simulated year per chain: (premium, failed requests), and the incident count.
fn draw_year<S>(
    rng: &mut SimRng,
    providers: &[ProviderHistory<S>],
    t: &Table,
    shape: Option<f64>,
    out: &mut [(f64, f64)],
) -> u64 {
    let factor = match shape {
        Some(k) => Gamma::new(k, 1.0 / k).map_or(1.0, |g| g.sample(rng)),
        None => 1.0,
    };
    out.iter_mut().for_each(|o| *o = (0.0, 0.0));
    let mut count = 0;
    for (p, h) in providers.iter().enumerate() {
        let rate = h.incidents_per_year * factor;
        if rate <= 0.0 || h.samples.is_empty() {
            continue;
        }
        let k = Poisson::new(rate).map_or(0.0, |d| d.sample(rng)) as u64;
        count += k;
        for _ in 0..k {
            let n = t.sample[p].len();
            let i = ((uniform(rng) * n as f64) as usize).min(n - 1);
            let d = t.sample[p][i];
            for (c, o) in out.iter_mut().enumerate() {
                let pr = t.prices[c][p][d];
                o.0 += pr.premium_usd;
                o.1 += pr.failed_requests;
            }
        }
    }
    count
}

/// The nearest-rank q-quantile of sorted `v`: v[⌈q·n⌉ − 1].
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let r = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[r - 1]
}

/// Simulate `options.years` years of `providers`' incidents for `requests_per_year.len()`
/// chains, each incident priced by `price(chain, provider index, sample)` (called once per
/// chain and distinct sample, before any year is drawn). `requests_per_year[c]`: chain c's
/// requests in a year (λ · [`YEAR_S`]), for availability.
pub fn simulate<S: PartialEq + Sync>(
    providers: &[ProviderHistory<S>],
    requests_per_year: &[f64],
    price: &(dyn Fn(usize, usize, &S) -> IncidentPrice + Sync),
    options: YearsOptions,
) -> Vec<YearsFigures> {
    let chains = requests_per_year.len();
    let t = table(providers, chains, price);
    let chunks = options.years.div_ceil(YEARS_PER_CHUNK);
    let mut premiums: Vec<Vec<f64>> = vec![Vec::with_capacity(options.years as usize); chains];
    let mut failed = vec![0.0; chains];
    let mut incidents = 0u64;
    super::ordered(
        chunks,
        |chunk| {
            let mut rng = chunk_rng(options.seed, YEARS_STREAM, chunk);
            let first = chunk * YEARS_PER_CHUNK;
            let n = (options.years - first).min(YEARS_PER_CHUNK) as usize;
            let mut years = vec![(0.0, 0.0); n * chains];
            let mut count = 0;
            for y in 0..n {
                count += draw_year(
                    &mut rng,
                    providers,
                    &t,
                    options.year_factor_shape,
                    &mut years[y * chains..(y + 1) * chains],
                );
            }
            (years, count)
        },
        |(years, count)| {
            incidents += count;
            for row in years.chunks(chains.max(1)) {
                for (c, &(p, f)) in row.iter().enumerate() {
                    premiums[c].push(p);
                    failed[c] += f;
                }
            }
        },
        &mut |_| {},
    );
    let n = options.years.max(1) as f64;
    premiums
        .into_iter()
        .zip(failed)
        .zip(requests_per_year)
        .map(|((mut v, f), &req)| {
            let mean = v.iter().sum::<f64>() / n;
            let var = if v.len() > 1 {
                v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
            } else {
                0.0
            };
            let half = 1.96 * (var / n).sqrt();
            v.sort_by(f64::total_cmp);
            let failed_per_year = f / n;
            YearsFigures {
                premium_mean_usd: mean,
                premium_ci95: [mean - half, mean + half],
                premium_p50_usd: quantile(&v, 0.50),
                premium_p95_usd: quantile(&v, 0.95),
                premium_p99_usd: quantile(&v, 0.99),
                failed_per_year,
                availability: if req > 0.0 {
                    1.0 - failed_per_year / req
                } else {
                    1.0
                },
                incidents_per_year: incidents as f64 / n,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn each_distinct_duration_is_priced_once_per_chain() {
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
        // 2 distinct durations × 2 chains
        assert_eq!(calls.load(Ordering::Relaxed), 4);
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

    #[test]
    fn nearest_rank_quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.0);
        assert_eq!(quantile(&v, 0.95), 4.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }
}
