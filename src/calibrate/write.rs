//! The measured figures, and the scenario TOML written from them.
//!
//! Every figure is written with a comment giving the count behind it and its 95% interval
//! (Wilson for rates, mean ± 1.96 SE for means, the binomial rank interval for percentiles). A
//! rate or share from fewer than `min_events` events gets a `# WARNING` comment, and is listed
//! in [`Written::warnings`] (which `--strict` turns into an error). So does a log in which no
//! record carried input (or output) token counts: the figure is still written, as 0, since
//! `compare` needs one, but the request profile is unknown and those tokens would be priced
//! at $0.
//!
//! Choices where the logs are silent:
//! - the client timeout is the sharp cluster of failure durations over all models (failures
//!   that ran to one timeout), unless given; failures in the cluster are gray and written as
//!   the `timeout` class, the others keep the class of their status code or `error.type`;
//! - a healthy request the timeout abandoned (a trip) looks like a gray failure in the logs, so
//!   trips are inside the measured failure rate and `timeout_trip_rate` is written as 0 (the
//!   comment gives the trip rate the latency model would imply);
//! - the request's tokens are the means over every successful attempt; the prefix is the
//!   tokens read from or written to the cache, and the cache hit rate the share read;
//! - `[incident]` gets the measured traffic and session length and a placeholder duration.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::stats::{LogHist, Mean, Ratio, wilson};
use super::{Aggregator, FileReport};
use crate::model::PriceTable;
use crate::model::policy::ErrorClass;

/// What the writer needs besides the measurements.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The `pricing` the scenario names (a bundled name or a path).
    pub pricing: String,
    /// The client timeout, seconds, when given instead of measured.
    pub timeout_s: Option<f64>,
    /// A rate from fewer events than this is written with a warning.
    pub min_events: u64,
}

/// The scenario text and what the user must know about it.
#[derive(Debug, Clone)]
pub struct Written {
    /// The scenario TOML.
    pub text: String,
    /// Figures from too few events, one line each.
    pub warnings: Vec<String>,
    /// Models in the logs that the price table does not know.
    pub unknown_models: Vec<String>,
}

/// A number with `digits` significant digits, without trailing zeros.
pub fn sig(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A comment line's text with control characters escaped, so it stays one comment.
fn clean(s: &str) -> String {
    crate::error::printable_line(s).into_owned()
}

fn pct(x: f64) -> String {
    format!("{}%", sig(x * 100.0, 3))
}

/// One model's failures split at the timeout cluster.
#[derive(Debug, Clone, Default)]
struct Split {
    /// Fast failures per class ([`ErrorClass::ALL`] order), gray ones moved to `timeout`.
    classes: [u64; 6],
    gray: u64,
    failed: u64,
    fast: LogHist,
}

fn split(m: &super::ModelStats, gray_from: Option<usize>) -> Split {
    let mut s = Split::default();
    for (i, h) in m.failures.iter().enumerate() {
        let g = gray_from.map_or(0, |b| h.count_from(b));
        s.gray += g;
        s.classes[i] += h.n - g;
        s.failed += h.n;
        let end = gray_from.unwrap_or(usize::MAX);
        for b in 0..end.min(2560) {
            let c = h.count(b);
            if c > 0 {
                s.fast.add_bin(b, c);
            }
        }
    }
    s.classes[3] += s.gray;
    s
}

/// Build the scenario from `agg`.
pub fn scenario(
    agg: &Aggregator,
    files: &[FileReport],
    prices: &PriceTable,
    opts: &WriteOptions,
) -> Written {
    let mut out = String::new();
    let mut warnings = Vec::new();
    let min = opts.min_events;
    let mut warn = |out: &mut String, what: String| {
        let _ = writeln!(out, "# WARNING: {}", clean(&what));
        warnings.push(what);
    };

    // The timeout cluster, over every model's failures.
    let mut all_fail = LogHist::default();
    for m in &agg.models {
        for h in &m.failures {
            all_fail.merge(h);
        }
    }
    let gray_from = match opts.timeout_s {
        Some(t) => Some(LogHist::bin(t * 0.97)),
        None => all_fail.sharp_peak(),
    };
    let mut gray_hist = LogHist::default();
    if let Some(b) = gray_from {
        for bin in b..2560 {
            let c = all_fail.count(bin);
            if c > 0 {
                gray_hist.add_bin(bin, c);
            }
        }
    }
    let splits: Vec<Split> = agg.models.iter().map(|m| split(m, gray_from)).collect();
    // The cluster's exact mean duration, from the per-bin sums.
    let gray_mean = gray_from.map(|b| {
        let (sum, sq) = agg
            .fail_sums
            .iter()
            .skip(b)
            .fold((0.0, 0.0), |(a, c), (x, y)| (a + x, c + y));
        Mean::from_sums(gray_hist.n, sum, sq)
    });

    // Header.
    let _ = writeln!(
        out,
        "# Measured by `fallcost calibrate` from {} file(s):",
        files.len()
    );
    for f in files {
        let _ = writeln!(
            out,
            "#   {} ({}): {} records, {} unreadable",
            clean(&f.file),
            f.format.as_str(),
            count(f.records),
            count(f.bad)
        );
    }
    if agg.bad_count > 0 {
        let _ = writeln!(
            out,
            "# Unreadable records: {} (first {}):",
            count(agg.bad_count),
            agg.bad.len()
        );
        for b in &agg.bad {
            let _ = writeln!(
                out,
                "#   {}:{}: {}",
                clean(&b.file),
                b.line,
                clean(&b.message)
            );
        }
    }
    let _ = writeln!(
        out,
        "# {} attempts in {} requests. Each figure: the count behind it and its 95% interval.",
        count(agg.records),
        count(agg.requests)
    );
    if agg.unclassified > 0 {
        let _ = writeln!(
            out,
            "# {} failures had no status code or error.type fallcost knows: counted as server_error.",
            count(agg.unclassified)
        );
    }
    let _ = writeln!(out, "name = \"calibrated\"");
    let _ = writeln!(out, "pricing = {}", toml_str(&opts.pricing));
    let _ = writeln!(out);

    // [request]: pooled over every successful attempt.
    let (mut fresh, mut prefix, mut output) = (Mean::default(), Mean::default(), Mean::default());
    let (mut fresh_h, mut prefix_h, mut output_h) =
        (LogHist::default(), LogHist::default(), LogHist::default());
    let mut cache = Ratio::default();
    for m in &agg.models {
        fresh.merge(&m.fresh);
        prefix.merge(&m.prefix);
        output.merge(&m.output);
        fresh_h.merge(&m.fresh_hist);
        prefix_h.merge(&m.prefix_hist);
        output_h.merge(&m.output_hist);
        cache.merge(&m.cache);
    }
    let successes: u64 = agg.models.iter().map(|m| m.successes).sum();
    let _ = writeln!(out, "[request]");
    let tokens = |out: &mut String, key: &str, what: &str, m: &Mean, h: &LogHist| {
        if m.n == 0 {
            let _ = writeln!(
                out,
                "# {what}: {} of {} successful attempts carried token counts",
                count(m.n),
                count(successes)
            );
        } else {
            let (lo, hi) = m.ci95();
            let q = |p: f64| h.quantile(p).map_or("-".into(), |q| sig(q.value, 3));
            let _ = writeln!(
                out,
                "# {what}: mean over the {} of {} successful attempts that carried token counts, 95% CI [{}, {}]; p50 {}, p90 {}, p99 {}",
                count(m.n),
                count(successes),
                sig(lo.max(0.0), 4),
                sig(hi, 4),
                q(0.5),
                q(0.9),
                q(0.99)
            );
        }
        let _ = writeln!(out, "{key} = {}", m.mean().round() as u64);
    };
    // No token counts: the request profile is unknown, and `compare` would price every
    // request at $0 for those tokens. 0 is still written (compare needs a figure), loudly.
    for (n, which, key) in [
        (fresh.n, "input", "input_tokens"),
        (output.n, "output", "output_tokens"),
    ] {
        if n == 0 {
            warn(
                &mut out,
                format!(
                    "no record carried {which} token counts (0 of {successes} successful attempts): the request profile is unknown and {key} is written as 0, so `compare` prices those tokens at $0; add token columns to the logs or set {key} by hand"
                ),
            );
        }
    }
    tokens(
        &mut out,
        "input_tokens",
        "fresh input tokens (input minus cache reads and writes)",
        &fresh,
        &fresh_h,
    );
    tokens(
        &mut out,
        "prefix_tokens",
        "cacheable prefix tokens (cache reads + writes)",
        &prefix,
        &prefix_h,
    );
    tokens(
        &mut out,
        "output_tokens",
        "output tokens",
        &output,
        &output_h,
    );
    if cache.n > 0 {
        let (lo, hi) = cache.ci95();
        if cache.n < min {
            warn(
                &mut out,
                format!(
                    "cache_hit_rate from {} attempts with a prefix (fewer than {min})",
                    cache.n
                ),
            );
        }
        let _ = writeln!(
            out,
            "# share of prefix tokens read from the cache, over {} attempts with a prefix, 95% CI [{}, {}]",
            count(cache.n),
            sig(lo, 4),
            sig(hi, 4)
        );
        let _ = writeln!(out, "cache_hit_rate = {}", sig(cache.value(), 6));
    } else {
        let _ = writeln!(
            out,
            "# no cache read or write counts in the logs: no prefix measured"
        );
    }
    let _ = writeln!(out);

    // Chains: one per primary, by traffic.
    let mut primaries: Vec<(usize, &super::ChainStats)> =
        agg.chains.iter().map(|(k, v)| (*k, v)).collect();
    primaries.sort_by_key(|(m, c)| (std::cmp::Reverse(c.requests), *m));
    let total_requests: u64 = primaries.iter().map(|(_, c)| c.requests).sum();
    let mut chain_models: Vec<usize> = Vec::new();
    let n_chains = primaries.len().max(1);
    let fallback_chain;
    let chains: Vec<(usize, Vec<usize>, Option<&super::ChainStats>)> = if primaries.is_empty() {
        let busiest = (0..agg.models.len())
            .max_by_key(|i| (agg.models[*i].attempts, std::cmp::Reverse(*i)))
            .unwrap_or(0);
        fallback_chain = vec![busiest];
        vec![(busiest, fallback_chain.clone(), None)]
    } else {
        primaries
            .iter()
            .map(|(p, c)| {
                let mut links = vec![*p];
                for reached in c.reached.iter().skip(1) {
                    let next = reached
                        .iter()
                        .filter(|(m, _)| !links.contains(m))
                        .max_by_key(|(m, n)| (**n, std::cmp::Reverse(**m)));
                    match next {
                        Some((m, _)) => links.push(*m),
                        None => break,
                    }
                }
                (*p, links, Some(*c))
            })
            .collect()
    };
    let id = |m: usize| agg.model_ids[m].as_str();
    let traffic = parts_of_one(
        &chains
            .iter()
            .map(|c| c.2.map_or(0, |s| s.requests))
            .collect::<Vec<_>>(),
    );
    for (ci, (primary, links, stats)) in chains.iter().enumerate() {
        let _ = writeln!(out, "[[chain]]");
        let _ = writeln!(out, "name = {}", toml_str(id(*primary)));
        if let Some(c) = stats {
            let _ = writeln!(
                out,
                "# chain order: the most frequent model at each position of {} requests starting on {}",
                count(c.requests),
                clean(id(*primary))
            );
            for (k, m) in links.iter().enumerate() {
                let answered = c.answered.get(k).copied().unwrap_or(0);
                let (lo, hi) = wilson(answered, c.with_outcome);
                let reached = c.reached.get(k).map_or(0, |r| r.values().sum::<u64>());
                let _ = writeln!(
                    out,
                    "#   link {k} {}: tried in {} requests, answered {} ({} of {} with an outcome, 95% CI [{}, {}])",
                    clean(id(*m)),
                    count(reached),
                    count(answered),
                    pct(if c.with_outcome > 0 {
                        answered as f64 / c.with_outcome as f64
                    } else {
                        0.0
                    }),
                    count(c.with_outcome),
                    pct(lo),
                    pct(hi)
                );
            }
            let answered: u64 = c.answered.iter().sum();
            let failed = c.with_outcome.saturating_sub(answered);
            if c.sees_failures {
                let _ = writeln!(out, "#   failed on every link: {} requests", count(failed));
            } else {
                let _ = writeln!(
                    out,
                    "#   (the logs show answered requests only: the shares are of the {} answered)",
                    count(c.with_outcome)
                );
            }
            if c.with_outcome < min {
                warn(
                    &mut out,
                    format!(
                        "chain {}: answer shares from {} requests (fewer than {min})",
                        id(*primary),
                        c.with_outcome
                    ),
                );
            }
        }
        let _ = writeln!(
            out,
            "models = [{}]",
            links
                .iter()
                .map(|m| toml_str(id(*m)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for m in links {
            if !chain_models.contains(m) {
                chain_models.push(*m);
            }
        }
        if n_chains > 1 {
            let req = stats.map_or(0, |c| c.requests);
            let share = traffic[ci];
            let (lo, hi) = wilson(req, total_requests);
            let _ = writeln!(
                out,
                "# {} of {} requests start here, 95% CI [{}, {}]",
                count(req),
                count(total_requests),
                sig(lo, 4),
                sig(hi, 4)
            );
            let _ = writeln!(out, "traffic_share = {share}");
        }
        // [chain.steady]
        let _ = writeln!(out, "[chain.steady]");
        let mut rates = Vec::new();
        for m in links {
            let s = &splits[*m];
            let n = agg.models[*m].attempts;
            let (lo, hi) = wilson(s.failed, n);
            if s.failed < min {
                warn(
                    &mut out,
                    format!(
                        "{}: failure rate from {} failures (fewer than {min})",
                        id(*m),
                        s.failed
                    ),
                );
            }
            let _ = writeln!(
                out,
                "# {}: {} failed of {} attempts = {}, 95% CI [{}, {}]",
                clean(id(*m)),
                count(s.failed),
                count(n),
                pct(if n > 0 {
                    s.failed as f64 / n as f64
                } else {
                    0.0
                }),
                pct(lo),
                pct(hi)
            );
            rates.push(if n > 0 {
                s.failed as f64 / n as f64
            } else {
                0.0
            });
        }
        let _ = writeln!(
            out,
            "failure_rates = [{}]",
            rates
                .iter()
                .map(|r| sig(*r, 6))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(
            out,
            "# a healthy request the timeout abandons looks like a gray failure in the logs: trips are inside the failure rates above"
        );
        if let Some(p) = links.first() {
            let l = &agg.models[*p].latency;
            if let (Some(p50), Some(p99), Some(t)) = (
                l.quantile(0.5),
                l.quantile(0.99),
                opts.timeout_s.or(gray_mean.map(|m| m.mean())),
            ) && p50.value > 0.0
                && p99.value >= p50.value
            {
                let lat = crate::model::latency::Latency {
                    p50_s: p50.value,
                    p99_s: p99.value,
                    given: true,
                };
                let _ = writeln!(
                    out,
                    "# (the primary's latency model would imply a trip rate P(L > {} s) = {})",
                    sig(t, 4),
                    pct(lat.trip_rate(t))
                );
            }
        }
        let _ = writeln!(out, "timeout_trip_rate = 0.0");
        // Fast failures' time, pooled over the links.
        let mut fast = LogHist::default();
        let mut classes = [0u64; 6];
        for m in links {
            fast.merge(&splits[*m].fast);
            for (a, b) in classes.iter_mut().zip(splits[*m].classes) {
                *a += b;
            }
        }
        if let Some(q) = fast.quantile(0.5) {
            if fast.n < min {
                warn(
                    &mut out,
                    format!(
                        "chain {}: fast-failure time from {} fast failures (fewer than {min})",
                        id(*primary),
                        fast.n
                    ),
                );
            }
            let _ = writeln!(
                out,
                "# median of {} fast failures (below the timeout cluster), 95% CI [{}, {}] s",
                count(fast.n),
                sig(q.lo, 4),
                sig(q.hi, 4)
            );
            let _ = writeln!(out, "fast_fail_s = {}", sig(q.value, 4));
        }
        let failed: u64 = classes.iter().sum();
        if failed > 0 {
            let _ = writeln!(out, "[chain.steady.errors]");
            if failed < min {
                warn(
                    &mut out,
                    format!(
                        "chain {}: error classes from {failed} failures (fewer than {min})",
                        id(*primary)
                    ),
                );
            }
            let _ = writeln!(
                out,
                "# shares of {} failures on this chain's links; `timeout` holds the gray ones ({} ran to the timeout cluster)",
                count(failed),
                count(links.iter().map(|m| splits[*m].gray).sum::<u64>())
            );
            let shares = parts_of_one(&classes);
            for (i, class) in ErrorClass::ALL.iter().enumerate() {
                let (lo, hi) = wilson(classes[i], failed);
                let _ = writeln!(
                    out,
                    "{} = {}   # {} failures, 95% CI [{}, {}]",
                    class.as_str(),
                    shares[i],
                    count(classes[i]),
                    sig(lo, 4),
                    sig(hi, 4)
                );
            }
        }
        let _ = writeln!(out);
    }

    // [policy]: the client timeout.
    let _ = writeln!(out, "[policy]");
    match (opts.timeout_s, gray_hist.quantile(0.5)) {
        (Some(t), _) => {
            let _ = writeln!(
                out,
                "# given with --timeout-s; {} failures ran to it (within 3%)",
                count(gray_hist.n)
            );
            let _ = writeln!(out, "timeout_s = {}", sig(t, 6));
        }
        (None, Some(_)) => {
            let m = gray_mean.unwrap_or_default();
            let (mlo, mhi) = m.ci95();
            if gray_hist.n < min {
                warn(
                    &mut out,
                    format!(
                        "timeout_s from a cluster of {} failures (fewer than {min})",
                        gray_hist.n
                    ),
                );
            }
            let all: u64 = splits.iter().map(|s| s.failed).sum();
            let (lo, hi) = wilson(gray_hist.n, all);
            let _ = writeln!(
                out,
                "# the cluster of failure durations: {} of {} failures ({}, 95% CI [{}, {}]) ran to it; their mean, 95% CI [{}, {}] s",
                count(gray_hist.n),
                count(all),
                pct(gray_hist.n as f64 / all.max(1) as f64),
                pct(lo),
                pct(hi),
                sig(mlo, 5),
                sig(mhi, 5)
            );
            let _ = writeln!(out, "timeout_s = {}", sig(m.mean(), 5));
        }
        (None, None) => {
            let _ = writeln!(
                out,
                "# no cluster of failure durations (no failure ran to a common timeout): timeout_s stays 30 (the default); set it with --timeout-s"
            );
            let _ = writeln!(out, "timeout_s = 30");
        }
    }
    let _ = writeln!(out);

    // [latency.MODEL]
    for m in &chain_models {
        let l = &agg.models[*m].latency;
        let (Some(p50), Some(p99)) = (l.quantile(0.5), l.quantile(0.99)) else {
            continue;
        };
        if p50.value <= 0.0 {
            continue;
        }
        let _ = writeln!(out, "[latency.{}]", toml_str(id(*m)));
        if l.n < 100 {
            warn(
                &mut out,
                format!(
                    "{}: p99 latency from {} successes (fewer than 100: it is the largest one or two)",
                    id(*m),
                    l.n
                ),
            );
        }
        let _ = writeln!(
            out,
            "# successful attempts: {}; p50 95% CI [{}, {}] s, p99 95% CI [{}, {}] s",
            count(l.n),
            sig(p50.lo, 4),
            sig(p50.hi, 4),
            sig(p99.lo, 4),
            sig(p99.hi, 4)
        );
        let _ = writeln!(out, "p50_s = {}", sig(p50.value, 4));
        let _ = writeln!(out, "p99_s = {}", sig(p99.value.max(p50.value), 4));
        let _ = writeln!(out);
    }

    // [incident]: the measured traffic, a placeholder outage.
    let _ = writeln!(out, "[incident]");
    let _ = writeln!(
        out,
        "# not measured: the outage to price (the primary's provider down); change it"
    );
    let _ = writeln!(out, "duration = \"1h\"");
    let span_s = match (agg.first_ns, agg.last_ns) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 * 1e-9,
        _ => 0.0,
    };
    if span_s > 0.0 && agg.requests >= 2 {
        let rate = agg.requests as f64 / span_s;
        let half = 1.959_963_984_540_054 * (agg.requests as f64).sqrt() / span_s;
        let _ = writeln!(
            out,
            "# {} requests over {} s, 95% CI [{}, {}] (Poisson)",
            count(agg.requests),
            sig(span_s, 6),
            sig((rate - half).max(0.0), 4),
            sig(rate + half, 4)
        );
        let _ = writeln!(out, "requests_per_second = {}", sig(rate, 6));
    } else {
        let _ = writeln!(
            out,
            "# the logs span no time: requests_per_second is a placeholder"
        );
        let _ = writeln!(out, "requests_per_second = 1");
    }
    let mut sess = Mean::default();
    for n in agg.sessions.values() {
        sess.add(f64::from(*n));
    }
    if sess.n > 0 {
        let (lo, hi) = sess.ci95();
        if sess.n < min {
            warn(
                &mut out,
                format!("session_length from {} sessions (fewer than {min})", sess.n),
            );
        }
        let _ = writeln!(
            out,
            "# mean requests per session over {} sessions ({} of {} requests carry a session id), 95% CI [{}, {}]",
            count(sess.n),
            count(agg.requests_with_session),
            count(agg.requests),
            sig(lo.max(0.0), 4),
            sig(hi, 4)
        );
        let _ = writeln!(
            out,
            "session_length = {}",
            sess.mean().round().max(1.0) as u64
        );
    } else {
        let _ = writeln!(
            out,
            "# no conversation or session ids in the logs: every request its own session"
        );
        let _ = writeln!(out, "session_length = 1");
    }
    let primary = chains.first().map(|c| c.0);
    let gray_primary = primary.map(|p| &splits[p]).filter(|s| s.failed > 0);
    match gray_primary {
        Some(s) => {
            let (lo, hi) = wilson(s.gray, s.failed);
            let _ = writeln!(
                out,
                "# the primary's gray share: {} of {} failures ran to the timeout ({}, 95% CI [{}, {}])",
                count(s.gray),
                count(s.failed),
                pct(s.gray as f64 / s.failed as f64),
                pct(lo),
                pct(hi)
            );
            let mode = if s.gray * 2 >= s.failed {
                "gray"
            } else {
                "fast"
            };
            let _ = writeln!(out, "failure = \"{mode}\"");
        }
        None => {
            let _ = writeln!(
                out,
                "# the primary never failed: how it fails in an outage is a guess"
            );
            let _ = writeln!(out, "failure = \"fast\"");
        }
    }

    let mut unknown_models: Vec<String> = Vec::new();
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for id in &agg.model_ids {
        if prices.get(id).is_none() && seen.insert(id.as_str(), ()).is_none() {
            unknown_models.push(id.clone());
        }
    }
    Written {
        text: out,
        warnings,
        unknown_models,
    }
}

/// Shares of `counts` in millionths, the largest taking the rounding so they add up to 1:
/// each prints short (`0.431487`) and their sum is 1 within float rounding.
fn parts_of_one(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return vec![0.0; counts.len()];
    }
    let mut micro: Vec<i64> = counts
        .iter()
        .map(|c| (*c as f64 / total as f64 * 1e6).round() as i64)
        .collect();
    let big = (0..micro.len())
        .max_by_key(|i| (micro[*i], std::cmp::Reverse(*i)))
        .unwrap_or(0);
    let rest: i64 = (0..micro.len())
        .filter(|i| *i != big)
        .map(|i| micro[i])
        .sum();
    micro[big] = 1_000_000 - rest;
    micro.iter().map(|m| *m as f64 / 1e6).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(0.012345678, 4), "0.01235");
        assert_eq!(sig(2000.4, 4), "2000");
        assert_eq!(sig(1.5, 6), "1.5");
        assert_eq!(sig(0.0, 3), "0");
        assert_eq!(count(1234567), "1,234,567");
    }
}
