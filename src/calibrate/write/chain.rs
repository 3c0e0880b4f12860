//! The `[[chain]]` sections of the written scenario: each chain's links, their failure
//! rates (of that chain's requests only), the fast-failure time and the error classes.

use super::{
    Out, Timeout, WriteOptions, clean, count, interval, parts_of_one, rate, sig, toml_str,
};
use crate::calibrate::stats::{LogHist, wilson};
use crate::calibrate::{Aggregator, ChainStats, LinkStats};
use crate::model::policy::ErrorClass;
use crate::number::{Digits, percent};

/// One link's failures split at the timeout cluster.
#[derive(Debug, Clone, Default)]
pub(super) struct Split {
    /// Failures per class ([`ErrorClass::ALL`] order), gray ones moved to `timeout`.
    classes: [u64; 6],
    pub(super) gray: u64,
    pub(super) failed: u64,
    fast: LogHist,
}

pub(super) fn split(l: &LinkStats, gray_from: Option<usize>) -> Split {
    let mut s = Split::default();
    for (i, h) in l.classes().iter().enumerate() {
        let g = gray_from.map_or(0, |b| h.count_from(b));
        s.gray += g;
        s.classes[i] += h.n - g;
        s.failed += h.n;
        let end = gray_from.unwrap_or(usize::MAX);
        for (b, c) in h.occupied() {
            if b < end {
                s.fast.add_bin(b, c);
            }
        }
    }
    s.classes[3] += s.gray;
    s
}

/// One chain to write: its primary, its links in order, and what was measured of it.
pub(super) struct ChainToWrite<'a> {
    pub(super) primary: usize,
    pub(super) links: Vec<usize>,
    pub(super) stats: Option<&'a ChainStats>,
}

impl ChainToWrite<'_> {
    /// Link `m`'s attempts and failures on this chain (for a log that shows no requests, the
    /// model's attempts and the failures of every model: the reader saw no chain to put them
    /// on, which a whole read never leaves).
    pub(super) fn link(&self, agg: &Aggregator, m: usize) -> LinkStats {
        match self.stats {
            Some(c) => c.links.get(&m).cloned().unwrap_or_default(),
            None => LinkStats::new(agg.models[m].attempts, &agg.failures),
        }
    }
}

/// The chains: one per primary, by traffic, each link the most frequent model at its
/// position; the busiest model alone when no request was seen.
pub(super) fn chains(agg: &Aggregator) -> Vec<ChainToWrite<'_>> {
    let mut primaries: Vec<(usize, &ChainStats)> =
        agg.chains.iter().map(|(k, v)| (*k, v)).collect();
    primaries.sort_by_key(|(m, c)| (std::cmp::Reverse(c.requests), *m));
    if primaries.is_empty() {
        let busiest = (0..agg.models.len())
            .max_by_key(|i| (agg.models[*i].attempts, std::cmp::Reverse(*i)))
            .unwrap_or(0);
        return vec![ChainToWrite {
            primary: busiest,
            links: vec![busiest],
            stats: None,
        }];
    }
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
            ChainToWrite {
                primary: *p,
                links,
                stats: Some(*c),
            }
        })
        .collect()
}

/// The answer shares of a chain's links, in comments.
fn chain_order(o: &mut Out, agg: &Aggregator, chain: &ChainToWrite, c: &ChainStats) {
    let id = |m: usize| clean(&agg.model_ids[m]);
    o.line(format!(
        "# chain order: the most frequent model at each position of {} requests starting on {}",
        count(c.requests),
        id(chain.primary)
    ));
    for (k, m) in chain.links.iter().enumerate() {
        let answered = c.answered.get(k).copied().unwrap_or(0);
        let (lo, hi) = wilson(answered, c.with_outcome);
        let reached = c.reached.get(k).map_or(0, |r| r.values().sum::<u64>());
        o.line(format!(
            "#   link {k} {}: tried in {} requests, answered {} ({} of {} with an outcome, 95% CI [{}, {}])",
            id(*m),
            count(reached),
            count(answered),
            percent(rate(answered, c.with_outcome), Digits::Significant(3), false),
            count(c.with_outcome),
            percent(lo, Digits::Significant(3), false),
            percent(hi, Digits::Significant(3), false)
        ));
    }
    let answered: u64 = c.answered.iter().sum();
    if c.sees_failures {
        o.line(format!(
            "#   failed on every link: {} requests",
            count(c.with_outcome.saturating_sub(answered))
        ));
    } else {
        o.line(format!(
            "#   (the logs show answered requests only: the shares are of the {} answered)",
            count(c.with_outcome)
        ));
    }
    let n = c.with_outcome;
    o.few(n, |min| {
        format!(
            "chain {}: answer shares from {n} requests (fewer than {min})",
            agg.model_ids[chain.primary]
        )
    });
}

/// `[[chain]]`: its models, traffic share and `[chain.steady]`.
pub(super) fn chain_section(
    o: &mut Out,
    agg: &Aggregator,
    chain: &ChainToWrite,
    share: Option<(f64, u64)>,
    timeout: &Timeout,
    opts: &WriteOptions,
) {
    let id = |m: usize| agg.model_ids[m].as_str();
    o.line("[[chain]]");
    o.line(format!("name = {}", toml_str(id(chain.primary))));
    if let Some(c) = chain.stats {
        chain_order(o, agg, chain, c);
    }
    let models: Vec<String> = chain.links.iter().map(|m| toml_str(id(*m))).collect();
    o.line(format!("models = [{}]", models.join(", ")));
    if let Some((share, total)) = share {
        let req = chain.stats.map_or(0, |c| c.requests);
        let (lo, hi) = wilson(req, total);
        o.line(format!(
            "# {} of {} requests start here, 95% CI [{}, {}]",
            count(req),
            count(total),
            sig(lo, 4),
            sig(hi, 4)
        ));
        o.line(format!("traffic_share = {share}"));
    }
    chain_profile(o, agg, chain);
    o.line("[chain.steady]");
    let splits: Vec<Split> = chain
        .links
        .iter()
        .map(|m| split(&chain.link(agg, *m), timeout.gray_from))
        .collect();
    let logged_failures: u64 = splits.iter().map(|s| s.failed).sum();
    let inferred = chain
        .stats
        .filter(|c| !c.sees_failures && logged_failures == 0)
        .filter(|c| c.answered.iter().skip(1).any(|a| *a > 0));
    match inferred {
        Some(c) => inferred_rates(o, agg, chain, c),
        None => failure_rates(o, agg, chain, &splits),
    }
    trip_comment(o, agg, chain, timeout, opts);
    o.line("timeout_trip_rate = 0.0");
    fast_and_classes(o, agg, chain, &splits);
    o.line("");
}

/// The chain's own request profile (its models' successful attempts; a model on two chains
/// counts on both), beside the pooled `[request]`: the scenario has one `[request]`, so a
/// chain whose prompts differ from the pool by more than a fifth gets a warning saying so.
fn chain_profile(o: &mut Out, agg: &Aggregator, chain: &ChainToWrite) {
    let mut own = crate::calibrate::cache::Profile::default();
    let mut pool = crate::calibrate::cache::Profile::default();
    for (i, m) in agg.models.iter().enumerate() {
        let p = m.cache.profile();
        if chain.links.contains(&i) {
            own.merge(&p);
        }
        pool.merge(&p);
    }
    if own.fresh.n == 0 {
        return;
    }
    let (f, x) = (own.fresh.mean(), own.prefix.mean());
    o.line(format!(
        "# this chain's own request profile ({} successful attempts): {} fresh input + {} prefix tokens{}",
        count(own.fresh.n),
        sig(f, 4),
        sig(x, 4),
        if own.hits.n > 0 {
            format!(" at a cache hit rate of {}", sig(own.hits.value(), 4))
        } else {
            String::new()
        }
    ));
    let off = |a: f64, b: f64| (a - b).abs() > 0.2 * b.max(1.0);
    if pool.fresh.n > own.fresh.n && (off(f, pool.fresh.mean()) || off(x, pool.prefix.mean())) {
        o.warn(format!(
            "chain {}: its prompts ({} fresh + {} prefix tokens) differ from the pooled [request] ({} + {}) by more than a fifth, and a scenario has one [request]: to price this chain on its own traffic, copy the scenario with these figures in [request]",
            agg.model_ids[chain.primary],
            sig(f, 4),
            sig(x, 4),
            sig(pool.fresh.mean(), 4),
            sig(pool.prefix.mean(), 4)
        ));
    }
}

/// Per link: failed of attempts, on this chain.
fn failure_rates(o: &mut Out, agg: &Aggregator, chain: &ChainToWrite, splits: &[Split]) {
    let mut rates = Vec::new();
    for (m, s) in chain.links.iter().zip(splits) {
        let n = chain.link(agg, *m).attempts;
        let (lo, hi) = wilson(s.failed, n);
        let failed = s.failed;
        if failed == 0 && n > 0 {
            // Missing evidence is not zero: no failure in n attempts bounds the rate below
            // 3/n at 95% (the rule of three, -ln 0.05 / n), and that bound is what is written.
            let bound = rule_of_three(n);
            o.warn(format!(
                "{}: no failure recorded in {n} attempts: check that your instrumentation records errors (some end no span on an error); failure rate written as the upper bound the log supports, {} (rule of three: 3/{n})",
                agg.model_ids[*m],
                percent(bound, Digits::Significant(3), false)
            ));
            o.line(format!(
                "# {}: 0 failed of {} attempts: below {} at 95% (rule of three), written as that bound",
                clean(&agg.model_ids[*m]),
                count(n),
                percent(bound, Digits::Significant(3), false)
            ));
            rates.push(bound);
            continue;
        }
        o.few(failed, |min| {
            format!(
                "{}: failure rate from {failed} failures (fewer than {min})",
                agg.model_ids[*m]
            )
        });
        o.line(format!(
            "# {}: {} failed of {} attempts = {}, 95% CI [{}, {}]",
            clean(&agg.model_ids[*m]),
            count(s.failed),
            count(n),
            percent(rate(s.failed, n), Digits::Significant(3), false),
            percent(lo, Digits::Significant(3), false),
            percent(hi, Digits::Significant(3), false)
        ));
        rates.push(rate(s.failed, n));
    }
    let rates: Vec<String> = rates.iter().map(|r| sig(*r, 6)).collect();
    o.line(format!("failure_rates = [{}]", rates.join(", ")));
}

/// The rule of three: with no event in `n` trials the rate is below 3/n at 95% confidence
/// (exactly 1 − 0.05^(1/n), which 3/n bounds above; Hanley & Lippman-Hand, JAMA 1983).
pub(super) fn rule_of_three(n: u64) -> f64 {
    (3.0 / n as f64).min(1.0)
}

/// A log of answered requests only (LiteLLM logging successes): no failure is logged, but a
/// request answered at link k failed on links 0..k. The rates are then those fallbacks' share,
/// lower bounds (a request that failed on every link is not in the log).
fn inferred_rates(o: &mut Out, agg: &Aggregator, chain: &ChainToWrite, c: &ChainStats) {
    o.warn(format!(
        "chain {}: the logs hold no failed attempt, yet fallbacks answered: the failure rates are inferred from where the requests were answered, and are lower bounds (a request that failed on every link is not logged); log failures too for measured rates",
        agg.model_ids[chain.primary]
    ));
    let mut rates = Vec::new();
    for k in 0..chain.links.len() {
        let reached: u64 = c.answered.iter().skip(k).sum();
        let answered = c.answered.get(k).copied().unwrap_or(0);
        let failed = reached - answered;
        if failed == 0 && reached > 0 {
            // No failure logged here (a request failing on every link is not logged): the
            // rule-of-three bound, never 0.
            let bound = rule_of_three(reached);
            o.line(format!(
                "# {}: 0 failed of {} answered requests that reached it: below {} at 95% (rule of three), written as that bound",
                clean(&agg.model_ids[chain.links[k]]),
                count(reached),
                percent(bound, Digits::Significant(3), false)
            ));
            rates.push(sig(bound, 6));
            continue;
        }
        let (lo, hi) = wilson(failed, reached);
        o.line(format!(
            "# {}: at least {} failed of {} answered requests that reached it = {}, 95% CI [{}, {}]",
            clean(&agg.model_ids[chain.links[k]]),
            count(failed),
            count(reached),
            percent(rate(failed, reached), Digits::Significant(3), false),
            percent(lo, Digits::Significant(3), false),
            percent(hi, Digits::Significant(3), false)
        ));
        rates.push(sig(rate(failed, reached), 6));
    }
    o.line(format!("failure_rates = [{}]", rates.join(", ")));
}

fn trip_comment(
    o: &mut Out,
    agg: &Aggregator,
    chain: &ChainToWrite,
    timeout: &Timeout,
    opts: &WriteOptions,
) {
    o.line("# a healthy request the timeout abandons looks like a gray failure in the logs: trips are inside the failure rates above");
    let l = &agg.models[chain.primary].latency;
    let t = opts
        .timeout_s
        .or((timeout.in_cluster > 0).then(|| timeout.mean.mean()));
    if let (Some(p50), Some(p99), Some(t)) = (l.quantile(0.5), l.quantile(0.99), t)
        && p50.value > 0.0
        && p99.value >= p50.value
    {
        let lat = crate::model::latency::Latency {
            p50_s: p50.value,
            p99_s: p99.value,
            given: true,
        };
        o.line(format!(
            "# (the primary's latency model would imply a trip rate P(L > {} s) = {})",
            sig(t, 4),
            percent(lat.trip_rate(t), Digits::Significant(3), false)
        ));
    }
}

/// The fast-failure time and the error classes, pooled over the chain's links.
fn fast_and_classes(o: &mut Out, agg: &Aggregator, chain: &ChainToWrite, splits: &[Split]) {
    let primary = &agg.model_ids[chain.primary];
    let mut fast = LogHist::default();
    let mut classes = [0u64; 6];
    for s in splits {
        fast.merge(&s.fast);
        for (a, b) in classes.iter_mut().zip(s.classes) {
            *a += b;
        }
    }
    if let Some(q) = fast.quantile(0.5) {
        let n = fast.n;
        o.few(n, |min| {
            format!("chain {primary}: fast-failure time from {n} fast failures (fewer than {min})")
        });
        o.line(format!(
            "# median of {} fast failures (below the timeout cluster), 95% CI {}",
            count(fast.n),
            interval(&q, " s")
        ));
        o.line(format!("fast_fail_s = {}", sig(q.value, 4)));
    }
    let failed: u64 = classes.iter().sum();
    if failed == 0 {
        return;
    }
    o.line("[chain.steady.errors]");
    o.few(failed, |min| {
        format!("chain {primary}: error classes from {failed} failures (fewer than {min})")
    });
    o.line(format!(
        "# shares of {} failures of this chain's requests; `timeout` holds the gray ones ({} ran to the timeout cluster)",
        count(failed),
        count(splits.iter().map(|s| s.gray).sum::<u64>())
    ));
    let shares = parts_of_one(&classes);
    for (i, class) in ErrorClass::ALL.iter().enumerate() {
        let (lo, hi) = wilson(classes[i], failed);
        o.line(format!(
            "{} = {}   # {} failures, 95% CI [{}, {}]",
            class.as_str(),
            shares[i],
            count(classes[i]),
            sig(lo, 4),
            sig(hi, 4)
        ));
    }
}
