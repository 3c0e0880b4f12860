//! The measured figures, and the scenario TOML written from them.
//!
//! Every figure is written with a comment giving the count behind it and its 95% interval
//! (Wilson for rates, mean ± 1.96 SE for means, the binomial rank interval for percentiles). A
//! rate or share from fewer than `min_events` events gets a `# WARNING` comment, and is listed
//! in [`WrittenScenario::warnings`] (which `--strict` turns into an error). So does a log in which no
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

use crate::number::{Digits, percent};
use std::fmt::Write as _;

mod chain;
use chain::{ChainToWrite, chain_section, chains, split};

use super::cache::Profile;
use super::stats::{LogHist, Mean, Quantile, wilson};
use super::{Aggregator, FileReport};
use crate::model::PriceTable;

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
pub struct WrittenScenario {
    /// The scenario TOML.
    pub text: String,
    /// Figures from too few events, one line each.
    pub warnings: Vec<String>,
    /// Models in the logs that the price table does not know.
    pub unknown_models: Vec<String>,
}

/// A number with `digits` significant digits, without trailing zeros; a valid TOML number
/// (an exponent past 1e15 or below 1e-5, so that no figure prints as an integer TOML cannot
/// hold).
pub fn sig(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    if !(-5..15).contains(&mag) {
        let p = digits.saturating_sub(1);
        let s = format!("{x:.p$e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        return format!("{m}e{e}");
    }
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

/// A TOML basic string, one line whatever `s` holds (control characters escaped), so that it
/// is valid as a value and as a key (a key cannot be a multi-line string).
fn toml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A comment line's text with control characters escaped, so it stays one comment.
fn clean(s: &str) -> String {
    crate::error::printable_line(s).into_owned()
}

fn rate(k: u64, n: u64) -> f64 {
    if n > 0 { k as f64 / n as f64 } else { 0.0 }
}

/// A quantile's interval in words: `[lo, hi] s`, an end too few values give said so.
fn interval(q: &Quantile, unit: &str) -> String {
    let lo = q.lo.map_or("below the smallest".to_string(), |x| sig(x, 4));
    let hi =
        q.hi.map_or("too few values to bound above".to_string(), |x| sig(x, 4));
    format!("[{lo}, {hi}]{unit}")
}

/// The text being written and its warnings.
struct Out {
    text: String,
    warnings: Vec<String>,
    min: u64,
}

impl Out {
    fn line(&mut self, s: impl std::fmt::Display) {
        let _ = writeln!(self.text, "{s}");
    }

    fn warn(&mut self, what: String) {
        let _ = writeln!(self.text, "# WARNING: {}", clean(&what));
        self.warnings.push(what);
    }

    /// A warning when `n` events are fewer than `--min-events`.
    fn few(&mut self, n: u64, what: impl FnOnce(u64) -> String) {
        if n < self.min {
            let w = what(self.min);
            self.warn(w);
        }
    }
}

/// The client timeout: the sharp cluster of failure durations, or the given one.
struct Timeout {
    /// Failures at or past this bin ran to the timeout (the gray ones).
    gray_from: Option<usize>,
    /// Failures in the cluster's window (at most 3 bins, about ±1.1%).
    in_cluster: u64,
    /// The mean duration of the failures in the window (exact, from the per-bin sums).
    mean: Mean,
}

impl Timeout {
    /// The cluster: a location, so measured over its own window only; a failure far past it
    /// (a hung connection) is still gray but does not move the timeout.
    fn measure(agg: &Aggregator, given: Option<f64>) -> Timeout {
        let mut all = LogHist::bins_only();
        for h in &agg.failures {
            all.merge(h);
        }
        let (gray_from, window) = match given {
            Some(t) => (
                Some(LogHist::bin(t * 0.97)),
                LogHist::bin(t * 0.97)..LogHist::bin(t * 1.03) + 1,
            ),
            None => match all.sharp_peak() {
                Some(b) => (Some(b), b..b + 3),
                None => (None, 0..0),
            },
        };
        let in_cluster = all.count_between(window.start, window.end);
        let (sum, sq) = agg
            .fail_sums
            .get(window.start.min(agg.fail_sums.len())..window.end.min(agg.fail_sums.len()))
            .unwrap_or(&[])
            .iter()
            .fold((0.0, 0.0), |(a, c), (x, y)| (a + x, c + y));
        Timeout {
            gray_from,
            in_cluster,
            mean: Mean::from_sums(in_cluster, sum, sq),
        }
    }
}

/// Build the scenario from `agg`.
pub fn scenario(
    agg: &Aggregator,
    files: &[FileReport],
    prices: &PriceTable,
    opts: &WriteOptions,
) -> WrittenScenario {
    let mut o = Out {
        text: String::new(),
        warnings: Vec::new(),
        min: opts.min_events,
    };
    let unknown_models: Vec<String> = agg
        .model_ids
        .iter()
        .filter(|id| prices.get(id).is_none())
        .cloned()
        .collect();
    let timeout = Timeout::measure(agg, opts.timeout_s);
    header(&mut o, agg, files);
    let failed: u64 = agg.models.iter().map(|m| m.failed()).sum();
    if failed == 0 && agg.records > 0 {
        o.warn(format!(
            "no failure recorded in the whole log ({} attempts): check that your instrumentation records errors (some end no span when a call raises); a link's failure rate is written as the upper bound its attempts support (rule of three) or, where fallbacks answered, inferred from them: never 0",
            count(agg.records)
        ));
    }
    unknown_prices(&mut o, &unknown_models, prices);
    o.line("name = \"calibrated\"");
    o.line(format!("pricing = {}", toml_str(&opts.pricing)));
    o.line("");
    request(&mut o, agg);
    let chains = chains(agg);
    let traffic = parts_of_one(
        &chains
            .iter()
            .map(|c| c.stats.map_or(0, |s| s.requests))
            .collect::<Vec<_>>(),
    );
    let total: u64 = agg.chains.values().map(|c| c.requests).sum();
    let mut chain_models: Vec<usize> = Vec::new();
    let mut in_chains = vec![false; agg.models.len()];
    for (ci, chain) in chains.iter().enumerate() {
        let share = (chains.len() > 1).then_some((traffic[ci], total));
        chain_section(&mut o, agg, chain, share, &timeout, opts);
        for m in &chain.links {
            if !in_chains[*m] {
                in_chains[*m] = true;
                chain_models.push(*m);
            }
        }
    }
    policy(&mut o, agg, &timeout, opts);
    for m in &chain_models {
        latency(&mut o, agg, *m);
    }
    incident(&mut o, agg, &chains[0], &timeout);
    WrittenScenario {
        text: o.text,
        warnings: o.warnings,
        unknown_models,
    }
}

/// The header: the files, the unreadable, impossible and duplicate records.
fn header(o: &mut Out, agg: &Aggregator, files: &[FileReport]) {
    header_files(o, files);
    header_unreadable(o, agg);
    if let Some((f, l)) = &agg.first_duplicate {
        o.line(format!(
            "# Duplicates: {} records repeat an earlier span, row or request id and are counted once (first at {}:{l})",
            count(agg.duplicates),
            clean(f)
        ));
    }
    if let Some((f, l)) = &agg.first_bad_metadata {
        o.line(format!(
            "# {} rows have a `metadata` that is not JSON of the spend-log shape: read without it, so without cache counts, error classes or fallback stamps (first at {}:{l})",
            count(agg.bad_metadata),
            clean(f)
        ));
    }
    o.line(format!(
        "# {} attempts in {} requests. Each figure: the count behind it and its 95% interval.",
        count(agg.records),
        count(agg.requests)
    ));
    if let Some(l) = agg.left_out_summary() {
        o.line(format!("# Left out: {l}."));
    }
    if agg.unclassified > 0 {
        o.line(format!(
            "# {} failures had no status code or error.type fallcost knows: counted as server_error.",
            count(agg.unclassified)
        ));
    }
    if agg.bin_shift > 0 {
        let k = agg.bin_shift;
        o.line(format!(
            "# Approximate: the {} models' bins passed the memory budget ({} MiB), so their latency and zero-read prompt bins were widened to {} (from 1.09%): each latency percentile is within {} of the sample's (its interval still covers), and a prompt that read no cache up to {} shorter than the prefix may be counted as a miss.",
            count(agg.models.len() as u64),
            super::agg::BIN_BUDGET >> 20,
            percent(super::stats::bin_width(k), Digits::Significant(3), false),
            percent(super::stats::bin_error(k), Digits::Significant(3), false),
            percent(super::stats::bin_width(k), Digits::Significant(3), false)
        ));
    }
}

/// The header's files: each with its format and records, or the file it repeats.
fn header_files(o: &mut Out, files: &[FileReport]) {
    o.line(format!(
        "# Measured by `fallcost calibrate` from {} file(s):",
        files.len()
    ));
    for f in files {
        match &f.duplicate_of {
            Some(first) => o.line(format!(
                "#   {}: the same as {} (same size and first MiB): read once",
                clean(&f.file),
                clean(first)
            )),
            None => o.line(format!(
                "#   {} ({}{}): {} records, {} unreadable",
                clean(&f.file),
                f.format.as_str(),
                if f.gzip { ", gzip" } else { "" },
                count(f.records),
                count(f.bad)
            )),
        }
    }
}

/// The header's unreadable records and fields, the first of each listed.
fn header_unreadable(o: &mut Out, agg: &Aggregator) {
    if agg.bad_count > 0 {
        o.line(format!(
            "# Unreadable records: {} ({} with an impossible value, left out; first {}):",
            count(agg.bad_count),
            count(agg.impossible),
            agg.bad.len()
        ));
        for b in &agg.bad {
            o.line(format!(
                "#   {}:{}: {}",
                clean(&b.file),
                b.line,
                clean(&b.message)
            ));
        }
    }
    if agg.bad_fields > 0 {
        o.line(format!(
            "# Unreadable fields: {} (each dropped, read as absent; its record kept; first {}):",
            count(agg.bad_fields),
            agg.bad_field_shown.len()
        ));
        for b in &agg.bad_field_shown {
            o.line(format!(
                "#   {}:{}: {}",
                clean(&b.file),
                b.line,
                clean(&b.message)
            ));
        }
    }
}

/// A TODO for each model no table prices, with how to price it.
fn unknown_prices(o: &mut Out, unknown: &[String], prices: &PriceTable) {
    if unknown.is_empty() {
        return;
    }
    o.line(format!(
        "# TODO: price table {} has no price for {} model(s); `compare` refuses this scenario until each has one (an unknown price is never taken as zero):",
        clean(&prices.name),
        unknown.len()
    ));
    for m in unknown.iter().take(20) {
        o.line(format!("#   {}", clean(m)));
    }
    if unknown.len() > 20 {
        o.line(format!("#   and {} more", unknown.len() - 20));
    }
    o.line("#   Write a price table (docs/guide/scenarios-and-prices.md: [models.\"provider/model\"] input = ..., output = ... in $/MTok),");
    o.line("#   then set `pricing` below to its path, or run calibrate again with --pricing PATH.");
}

/// `[request]`: the tokens and the cache, over every successful attempt.
fn request(o: &mut Out, agg: &Aggregator) {
    let mut p = Profile::default();
    let (input_h, output_h) = (&agg.input_hist, &agg.output_hist);
    let mut output = Mean::default();
    for m in &agg.models {
        p.merge(&m.cache.profile());
        output.merge(&m.output);
    }
    let successes: u64 = agg.models.iter().map(|m| m.successes).sum();
    o.line("[request]");
    // No token counts: the request profile is unknown, and `compare` would price every
    // request at $0 for those tokens. 0 is still written (compare needs a figure), loudly.
    for (n, which, key) in [
        (p.fresh.n, "input", "input_tokens"),
        (output.n, "output", "output_tokens"),
    ] {
        if n == 0 {
            o.warn(format!(
                "no record carried {which} token counts (0 of {successes} successful attempts): the request profile is unknown and {key} is written as 0, so `compare` prices those tokens at $0; add token columns to the logs or set {key} by hand"
            ));
        }
    }
    convention(o, agg);
    if p.fresh.n > 0 {
        o.line(format!(
            "# prompt (input) tokens per successful attempt: {}",
            percentiles(input_h)
        ));
    }
    tokens(
        o,
        "input_tokens",
        "fresh input tokens (input minus the prefix)",
        &p.fresh,
        successes,
    );
    tokens(
        o,
        "prefix_tokens",
        "cacheable prefix tokens (cache reads + writes; reads-only logs: see below)",
        &p.prefix,
        successes,
    );
    if output.n > 0 {
        o.line(format!("# output tokens: {}", percentiles(output_h)));
    }
    tokens(o, "output_tokens", "output tokens", &output, successes);
    cache_rate(o, &p);
    o.line("");
}

/// Per provider: whether its input tokens include the cached ones, as decided from the records
/// ([`super::cache::CacheStats::excludes_cache`], per model), stated in the file.
fn convention(o: &mut Out, agg: &Aggregator) {
    let mut by: std::collections::BTreeMap<&str, (u64, u64, u64, u64)> = Default::default();
    for (id, m) in agg.model_ids.iter().zip(&agg.models) {
        let c = &m.cache;
        if c.with_cache == 0 {
            continue;
        }
        let provider = id.split_once('/').map_or("(no provider)", |(p, _)| p);
        let e = by.entry(provider).or_default();
        if c.excludes_cache() {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
        e.2 += c.over_input;
        e.3 += c.with_cache;
    }
    for (provider, (excl, incl, over, with)) in by {
        let how = match (excl, incl) {
            (0, _) => "input tokens include the cached ones (the OTel GenAI semconv's gen_ai.usage.input_tokens, OpenAI's and LiteLLM's prompt_tokens): fresh input = input - cache reads - writes".to_string(),
            (_, 0) => "input tokens exclude the cached ones (Anthropic's native input_tokens, Langfuse's input): fresh input = input, the cache tokens on top".to_string(),
            (e, i) => format!("{e} model(s) exclude the cached tokens from input, {i} include them (decided per model)"),
        };
        o.line(format!(
            "# input-token convention, {}: {how}; {} of {} attempts with cache counts report more cache tokens than input",
            clean(provider),
            count(over),
            count(with)
        ));
    }
}

fn percentiles(h: &LogHist) -> String {
    let q = |p: f64| h.quantile(p).map_or("-".into(), |q| sig(q.value, 3));
    format!("p50 {}, p90 {}, p99 {}", q(0.5), q(0.9), q(0.99))
}

fn tokens(o: &mut Out, key: &str, what: &str, m: &Mean, successes: u64) {
    if m.n == 0 {
        o.line(format!(
            "# {what}: 0 of {} successful attempts carried token counts",
            count(successes)
        ));
    } else {
        let (lo, hi) = m.ci95();
        o.line(format!(
            "# {what}: mean over the {} of {} successful attempts that carried token counts, 95% CI [{}, {}]",
            count(m.n),
            count(successes),
            sig(lo.max(0.0), 4),
            sig(hi, 4),
        ));
    }
    o.line(format!("{key} = {}", m.mean().round().max(0.0) as u64));
}

fn cache_rate(o: &mut Out, p: &Profile) {
    if p.hits.n == 0 {
        if p.fresh.n > 0 {
            o.warn(format!(
                "no record carried cache read or write counts ({} attempts with input tokens): the cacheable prefix and the hit rate are unknown, not 0 (some instrumentations send none: LiteLLM's OTel callback; OpenLLMetry writes gen_ai.usage.cache_read_input_tokens, OpenInference llm.token_count.prompt_details.cache_read); prefix_tokens is written as 0, so set prefix_tokens and cache_hit_rate by hand if the prompts are cached",
                count(p.fresh.n)
            ));
        }
        o.line("# no cache read or write counts in the logs: no prefix measured");
        return;
    }
    if p.reads_only_hits > 0 {
        o.line(format!(
            "# reads without writes (as OpenAI and Gemini report usage): the prefix is the hits' mean read ({} tokens, {} hits); {} attempts that read nothing with a prompt at least that long are misses",
            sig(p.prefix_estimate, 5),
            count(p.reads_only_hits),
            count(p.misses)
        ));
    }
    let (lo, hi) = p.hits.ci95();
    let n = p.hits.n;
    o.few(n, |min| {
        format!("cache_hit_rate from {n} attempts with a prefix (fewer than {min})")
    });
    o.line(format!(
        "# share of prefix tokens read from the cache, over {} attempts with a prefix, 95% CI [{}, {}]",
        count(n),
        sig(lo, 4),
        sig(hi, 4)
    ));
    o.line(format!("cache_hit_rate = {}", sig(p.hits.value(), 6)));
}

/// `[policy]`: the client timeout.
fn policy(o: &mut Out, agg: &Aggregator, t: &Timeout, opts: &WriteOptions) {
    o.line("[policy]");
    if let Some(given) = opts.timeout_s {
        o.line(format!(
            "# given with --timeout-s; {} failures ran to it (within 3%)",
            count(t.in_cluster)
        ));
        o.line(format!("timeout_s = {}", sig(given, 6)));
    } else if t.in_cluster > 0 {
        let (mlo, mhi) = t.mean.ci95();
        let n = t.in_cluster;
        o.few(n, |min| {
            format!("timeout_s from a cluster of {n} failures (fewer than {min})")
        });
        let all: u64 = agg.models.iter().map(|m| m.failed()).sum();
        let (lo, hi) = wilson(n, all);
        o.line(format!(
            "# the cluster of failure durations (the densest ±1.1% window; longer failures are gray but do not move it): {} of {} failures ({}, 95% CI [{}, {}]) are in it; their mean, 95% CI [{}, {}] s",
            count(n),
            count(all),
            percent(rate(n, all), Digits::Significant(3), false),
            percent(lo, Digits::Significant(3), false),
            percent(hi, Digits::Significant(3), false),
            sig(mlo, 5),
            sig(mhi, 5)
        ));
        o.line(format!("timeout_s = {}", sig(t.mean.mean(), 5)));
    } else {
        o.line("# no cluster of failure durations (no failure ran to a common timeout): timeout_s stays 30 (the default); set it with --timeout-s");
        o.line("timeout_s = 30");
    }
    o.line("");
}

/// `[latency.MODEL]`: p50 and p99 of its successes.
fn latency(o: &mut Out, agg: &Aggregator, m: usize) {
    let l = &agg.models[m].latency;
    let (Some(p50), Some(p99)) = (l.quantile(0.5), l.quantile(0.99)) else {
        return;
    };
    if p50.value <= 0.0 {
        return;
    }
    o.line(format!("[latency.{}]", toml_str(&agg.model_ids[m])));
    if l.n < 100 {
        o.warn(format!(
            "{}: p99 latency from {} successes (fewer than 100: it is the largest one or two)",
            agg.model_ids[m], l.n
        ));
    }
    o.line(format!(
        "# successful attempts: {}; p50 95% CI {}, p99 95% CI {}",
        count(l.n),
        interval(&p50, " s"),
        interval(&p99, " s")
    ));
    o.line(format!("p50_s = {}", sig(p50.value, 4)));
    o.line(format!("p99_s = {}", sig(p99.value.max(p50.value), 4)));
    o.line("");
}

/// `[incident]`: the measured traffic, a placeholder outage.
fn incident(o: &mut Out, agg: &Aggregator, primary: &ChainToWrite, t: &Timeout) {
    o.line("[incident]");
    o.line("# not measured: the outage to price (the primary's provider down); change it");
    o.line("duration = \"1h\"");
    traffic(o, agg);
    sessions(o, agg);
    let s = split(&primary.link(agg, primary.primary), t.gray_from);
    if s.failed > 0 {
        let (lo, hi) = wilson(s.gray, s.failed);
        o.line(format!(
            "# the primary's gray share: {} of {} failures ran to the timeout ({}, 95% CI [{}, {}])",
            count(s.gray),
            count(s.failed),
            percent(rate(s.gray, s.failed), Digits::Significant(3), false),
            percent(lo, Digits::Significant(3), false),
            percent(hi, Digits::Significant(3), false)
        ));
        let mode = if s.gray * 2 >= s.failed {
            "gray"
        } else {
            "fast"
        };
        o.line(format!("failure = \"{mode}\""));
    } else {
        o.line("# the primary never failed: how it fails in an outage is a guess");
        o.line("failure = \"fast\"");
    }
}

/// The request rate, between the m-th earliest and m-th latest starts (robust to m stray
/// timestamps at either end).
fn traffic(o: &mut Out, agg: &Aggregator) {
    let Some((m, lo, hi)) = agg.starts.trimmed().filter(|(_, lo, hi)| hi > lo) else {
        o.line("# the logs span no time: requests_per_second is a placeholder");
        o.line("requests_per_second = 1");
        return;
    };
    let span_s = (i128::from(hi) - i128::from(lo)) as f64 * 1e-9;
    // The starts strictly inside the trimmed span's ends: n − 2m, so n − 2m − 1 gaps.
    let gaps = (agg.starts.n - 2 * m - 1) as f64;
    let rate = gaps / span_s;
    let half = super::stats::Z95 * gaps.sqrt() / span_s;
    o.line(format!(
        "# {} requests; between the {}th earliest and the {}th latest start (robust to {m} stray timestamps at either end): {} gaps over {} s, 95% CI [{}, {}] (Poisson)",
        count(agg.requests),
        m + 1,
        m + 1,
        count(gaps as u64),
        sig(span_s, 6),
        sig((rate - half).max(0.0), 4),
        sig(rate + half, 4)
    ));
    o.line(format!("requests_per_second = {}", sig(rate, 6)));
}

fn sessions(o: &mut Out, agg: &Aggregator) {
    let mut sess = Mean::default();
    for n in agg.sessions.kept.values() {
        sess.add(f64::from(*n));
    }
    if sess.n == 0 {
        o.line(format!(
            "# not measured: no conversation or session ids in the logs; session_length is the documented default ({DEFAULT_SESSION_LENGTH}, docs/guide/scenarios-and-prices.md); set it by hand"
        ));
        o.line(format!("session_length = {DEFAULT_SESSION_LENGTH}"));
        return;
    }
    let longest = agg.sessions.kept.values().copied().max().unwrap_or(0);
    if longest == 1 && sess.n >= o.min {
        // One id per request (LiteLLM's default `session_id` is the request's own trace id):
        // the id names requests, not sessions, and says nothing of their length.
        o.warn(format!(
            "every one of the {} session ids is unique to its request (as LiteLLM's default session_id, one per request): they are request ids, not sessions; session_length is not measured and is written as the documented default ({DEFAULT_SESSION_LENGTH}); pass a real session or conversation id (LiteLLM: metadata litellm_session_id; OTel: gen_ai.conversation.id) or set it by hand",
            count(sess.n)
        ));
        o.line(format!(
            "# not measured (the ids are per request): the documented default, {DEFAULT_SESSION_LENGTH}"
        ));
        o.line(format!("session_length = {DEFAULT_SESSION_LENGTH}"));
        return;
    }
    let (lo, hi) = sess.ci95();
    let n = sess.n;
    o.few(n, |min| {
        format!("session_length from {n} sessions (fewer than {min})")
    });
    let sample = if agg.sessions.shift > 0 {
        format!(
            " (a hash sample: 1 in {} sessions, each counted whole)",
            1u64 << agg.sessions.shift
        )
    } else {
        String::new()
    };
    o.line(format!(
        "# mean requests per session over {} sessions{sample} ({} of {} requests carry a session id), 95% CI [{}, {}]",
        count(sess.n),
        count(agg.requests_with_session),
        count(agg.requests),
        sig(lo.max(0.0), 4),
        sig(hi, 4)
    ));
    o.line(format!(
        "session_length = {}",
        sess.mean().round().max(1.0) as u64
    ));
}

/// The session length written when the logs do not measure one: the default of docs/guide/scenarios-and-prices.md's
/// and MODEL.md's example scenarios.
pub const DEFAULT_SESSION_LENGTH: u64 = 20;

/// Shares of `counts` in millionths, the largest taking the rounding so they add up to 1:
/// each prints short (`0.431487`) and their sum is 1 within float rounding.
fn parts_of_one(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return vec![0.0; counts.len()];
    }
    // A chain with traffic keeps a share (at least one millionth): a share of 0 is refused.
    let mut micro: Vec<i64> = counts
        .iter()
        .map(|c| {
            let m = (*c as f64 / total as f64 * 1e6).round() as i64;
            if *c > 0 { m.max(1) } else { m }
        })
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
        let name = "a\"b\\c\nd\u{7f}e";
        let v: toml::Value =
            toml::from_str(&format!("[x.{}]\ny = {}", toml_str(name), toml_str(name))).unwrap();
        assert_eq!(v["x"][name]["y"].as_str(), Some(name));
        // Past 1e15 an exponent, so that TOML reads a float, never an integer overflow.
        assert_eq!(sig(1e308, 6), "1e308");
        assert_eq!(sig(1.5e300, 4), "1.5e300");
        assert_eq!(sig(2.5e-7, 3), "2.5e-7");
        for x in [1e308, 1e300, 123456789012345678.0, 3e-9] {
            let v: toml::Value = toml::from_str(&format!("x = {}", sig(x, 6))).unwrap();
            assert!(v["x"].as_float().is_some(), "{x}");
        }
    }
}
