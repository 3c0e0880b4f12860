//! What the human formats (table, Markdown) show: sections of titled tables with their cells
//! already formatted. The terminal and Markdown renderers share this layout.

use crate::input::duration::format_seconds;
use crate::model::{AbandonedBilling, Chain, FailureMode, ModelPrice, PriceTable};
use crate::report::Report;

use super::number::{change, count, group, money, money_adding_up, multiplier, trim};

/// One titled table with notes.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// A heading line, e.g. `Chain price-matched: a → b`.
    pub heading: Option<String>,
    /// The table's title, e.g. `Steady state`.
    pub title: String,
    /// Lines printed between the title and the table.
    pub notes: Vec<String>,
    /// Column headers.
    pub header: Vec<String>,
    /// Per column: align right (numbers) or left (text).
    pub numeric: Vec<bool>,
    /// Formatted cells.
    pub rows: Vec<Vec<String>>,
    /// Lines printed after the table.
    pub footer: Vec<String>,
}

/// A document: a preamble and its sections.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Lines at the top.
    pub preamble: Vec<String>,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// A Monte Carlo mean with its 95% interval as `mean ± half-width`, money-style.
fn pm(mean: f64, ci: [f64; 2], money_like: fn(f64) -> String) -> String {
    let half = (ci[1] - ci[0]) / 2.0;
    format!("{} ± {}", money_like(mean), two_significant(half))
}

/// The Monte Carlo columns of a steady-state table (a chain's, the blended one, a sweep's).
pub(crate) const STEADY_MC_HEADER: [&str; 5] =
    ["MC $/1k ± 95%", "MC failed/1k", "p50 s", "p95 s", "p99 s"];

/// The cells under [`STEADY_MC_HEADER`]: the simulated cost and failed requests with their
/// intervals, and the latency percentiles; `–` for a row without Monte Carlo figures.
pub(crate) fn steady_mc_cells(mc: Option<&crate::report::SteadyMc>) -> Vec<String> {
    match mc {
        Some(m) => vec![
            pm(m.cost_per_1k_usd, m.cost_per_1k_usd_ci95, money),
            pm(m.failed_per_1k, m.failed_per_1k_ci95, count),
            seconds(m.latency_p50_s),
            seconds(m.latency_p95_s),
            seconds(m.latency_p99_s),
        ],
        None => vec!["–".to_string(); STEADY_MC_HEADER.len()],
    }
}

/// Two significant digits (`0.0031`, `1.2`, `340`).
fn two_significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let digits = (1 - x.abs().log10().floor() as i32).max(0) as usize;
    group(&trim(x, digits))
}

/// Seconds with three significant digits at most (`0.512`, `2.01`, `30.5`, `120`).
fn seconds(x: f64) -> String {
    let d = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else if x >= 1.0 {
        2
    } else {
        3
    };
    group(&format!("{x:.d$}"))
}

/// A share that may be tiny, as a percentage with up to three significant digits and no
/// trailing zeros, one rule for every share: `100%`, `99.9%`, `3.3%`, `0.0000722%`. A share
/// short of 100% never prints as `100%` (it keeps the digits that tell it apart).
fn share_pct(x: f64) -> String {
    let p = x * 100.0;
    if p == 0.0 || !p.is_finite() {
        return format!("{}%", trim(p, 0));
    }
    let mut digits = (2 - p.abs().log10().floor() as i32).max(0) as usize;
    let mut s = trim(p, digits);
    while p < 100.0 && s == "100" && digits < 12 {
        digits += 1;
        s = trim(p, digits);
    }
    format!("{s}%")
}

/// The names "answered by" shows for `ids`: the model's short name (after the provider) when
/// no other id in the list has the same one, else the full id.
fn answer_labels<'a>(ids: &[&'a str]) -> Vec<&'a str> {
    let short = |id: &'a str| id.split_once('/').map_or(id, |(_, m)| m);
    ids.iter()
        .map(|id| {
            let s = short(id);
            if ids.iter().filter(|other| short(other) == s).count() > 1 {
                *id
            } else {
                s
            }
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{}%", trim(x * 100.0, 2))
}

/// `Chain NAME: a → b`, with the service tier when it is not `standard`: after the name when
/// every link has it (`Chain c (batch): a → b`), else after each link that has one
/// (`a (priority) → b`).
fn chain_line(chain: &Chain, tiers: &[crate::model::ServiceTier]) -> String {
    use crate::model::ServiceTier;
    let all = tiers.first().copied().filter(|t| {
        *t != ServiceTier::Standard
            && tiers.len() == chain.links.len()
            && tiers.iter().all(|x| x == t)
    });
    let ids: Vec<String> = chain
        .prices()
        .enumerate()
        .map(|(i, l)| match tiers.get(i) {
            Some(t) if all.is_none() && *t != ServiceTier::Standard => {
                format!("{} ({})", l.id, t.as_str())
            }
            _ => l.id.clone(),
        })
        .collect();
    let name = match all {
        Some(t) => format!("{} ({})", chain.name, t.as_str()),
        None => chain.name.clone(),
    };
    format!("Chain {name}: {}", ids.join(" → "))
}

fn steady_note(chain: &Chain) -> String {
    let s = &chain.steady;
    let rates: Vec<String> = chain.links.iter().map(|l| pct(l.failure_rate)).collect();
    let mut note = if chain.links.iter().all(|l| l.failure_rate == 0.0) {
        "no failures".to_string()
    } else if let Some(mix) = s.error_mix {
        let classes: Vec<String> = crate::model::policy::ErrorClass::ALL
            .iter()
            .filter(|c| mix.share(**c) > 0.0)
            .map(|c| format!("{} {}", c.as_str(), pct(mix.share(*c))))
            .collect();
        format!(
            "failure rate per link {} ({}; a timeout bills input + {} of output)",
            rates.join(" / "),
            classes.join(", "),
            pct(s.gray_output_fraction)
        )
    } else {
        format!(
            "failure rate per link {} ({} gray, billed input + {} of output)",
            rates.join(" / "),
            pct(s.gray_fraction),
            pct(s.gray_output_fraction)
        )
    };
    if chain.links.iter().any(|l| l.trip_rate > 0.0) {
        let trips: Vec<String> = chain.links.iter().map(|l| pct(l.trip_rate)).collect();
        let billing = match s.abandoned_billing {
            AbandonedBilling::Partial => "partial",
            AbandonedBilling::Full => "full",
        };
        note.push_str(&format!(
            "; timeout trips {} of healthy requests ({billing} billing)",
            trips.join(" / ")
        ));
    }
    note
}

/// The chain as a price list: what one request costs on each link when that link answers it,
/// with the link's cache warm (the like-for-like price `fallcost check` compares), per 1,000
/// requests: `each link alone, warm cache: $25.00 → $9.00 → $4.50 per 1,000 requests`.
fn link_prices(request: &crate::model::Request, chain: &Chain) -> String {
    let prices: Vec<String> = chain
        .prices()
        .map(|link| format!("${}", money(crate::check::per_1k(request, link))))
        .collect();
    let cache = if request.has_prefix() {
        ", warm cache"
    } else {
        ""
    };
    format!(
        "each link alone{cache}: {} per 1,000 requests",
        prices.join(" → ")
    )
}

/// Where the default latency model decides figures (the Monte Carlo's percentiles, a delayed
/// hedge), the models it times and the hedge's rule ([`Chain::latency_defaults`]).
fn latency_defaults_note(report: &Report, chain: &Chain) -> Option<String> {
    let defaults = chain.latency_defaults();
    if defaults.is_empty() || (report.mc.is_none() && chain.policy.hedge_delay_s.is_none()) {
        return None;
    }
    let short: Vec<&str> = defaults
        .iter()
        .map(|id| id.split_once('/').map_or(*id, |(_, m)| m))
        .collect();
    let mut note = format!(
        "latencies are defaults (p50 {} s, p99 {} s; no [latency] entry) for {}: the Monte Carlo percentiles and a delayed hedge's timing use them",
        trim(crate::model::latency::DEFAULT_P50_S, 3),
        trim(crate::model::latency::DEFAULT_P99_S, 3),
        short.join(", ")
    );
    if chain.links.len() > 1 && !chain.steady.win_from_latency {
        note.push_str(&format!(
            "; a hedge's winner is the primary with probability w = {} (as given), not the faster leg",
            trim(chain.steady.primary_win_rate, 4)
        ));
    }
    Some(note)
}

/// Whether a chain's client policy differs from the default ([`Chain::has_default_policy`]), so
/// its retries, caps and attribution are worth a table (and the policy simulator fills its MC
/// column).
fn has_policy(chain: &Chain) -> bool {
    !chain.has_default_policy()
}

/// Attempts, dead time, attribution and cap hits of each pattern (MODEL.md §8).
fn policy_section(report: &Report, chain: &Chain) -> Section {
    let ids: Vec<&str> = chain.prices().map(|l| l.id.as_str()).collect();
    let labels = answer_labels(&ids);
    let short = |id: &str| {
        ids.iter()
            .position(|i| *i == id)
            .map_or_else(|| id.to_string(), |k| labels[k].to_string())
    };
    let with_mc = report.mc.is_some();
    let rows = report
        .steady
        .iter()
        .filter(|row| row.chain == chain.name)
        .map(|row| {
            let answered: Vec<String> = row
                .answered_by
                .iter()
                .filter(|a| a.share > 0.0)
                .map(|a| format!("{} {}", short(&a.model), share_pct(a.share)))
                .collect();
            let mut cells = vec![
                row.pattern.as_str().to_string(),
                trim(row.attempts_per_request, 4),
                row.attempts_max.to_string(),
                trim(row.dead_time_mean_s, 3),
                if answered.is_empty() {
                    "–".into()
                } else {
                    answered.join(", ")
                },
                count(row.call_cap_hits_per_1k),
                count(row.cost_cap_hits_per_1k),
            ];
            if with_mc {
                cells.push(row.mc.as_ref().and_then(|m| m.policy.as_ref()).map_or(
                    "–".into(),
                    |p| {
                        format!(
                            "{} / {}",
                            trim(p.dead_time_mean_s, 3),
                            p.dead_time_p99_s.map_or("–".into(), |x| trim(x, 3))
                        )
                    },
                ));
            }
            cells
        })
        .collect();
    let p = &chain.policy;
    let backoff = if p.retries > 0 {
        format!(
            ", backoff {}–{} s ({} jitter)",
            trim(p.backoff.base_s, 3),
            trim(p.backoff.cap_s, 3),
            p.backoff.jitter.as_str()
        )
    } else {
        String::new()
    };
    let mut note = format!(
        "retries {} per link{backoff}, fail over on {}",
        p.retries,
        p.failover_on
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(a) = p.max_attempts {
        note.push_str(&format!("; at most {a} attempts"));
    }
    if let Some(m) = p.max_multiplier {
        note.push_str(&format!(
            "; skip fallbacks above {}x the primary",
            trim(m, 3)
        ));
    }
    let mut header = [
        "pattern",
        "attempts",
        "max",
        "dead time s",
        "answered by",
        "call-cap hits/1k",
        "cost-cap hits/1k",
    ]
    .map(String::from)
    .to_vec();
    let mut numeric = vec![false, true, true, true, false, true, true];
    if with_mc {
        header.push("MC dead time s mean / p99".into());
        numeric.push(true);
    }
    Section {
        heading: None,
        title: "Retries, caps and attribution, per request".into(),
        notes: vec![note],
        header,
        numeric,
        rows,
        footer: vec![],
    }
}

/// The layout of a compare report.
pub fn compare(report: &Report) -> Document {
    let scenario = &report.input;
    let r = &scenario.request;
    let mut preamble = vec![format!("{} (prices: {})", report.scenario, report.pricing)];
    let mut req = format!(
        "Request: {} input tokens",
        group(&format!("{}", r.input_tokens))
    );
    if r.prefix_tokens > 0.0 {
        req.push_str(&format!(
            " + {}-token cacheable prefix ({} cache hits when warm)",
            group(&format!("{}", r.prefix_tokens)),
            pct(r.cache_hit_rate)
        ));
    }
    req.push_str(&format!(
        " + {} output tokens",
        group(&format!("{}", r.output_tokens))
    ));
    let billing = &scenario.billing;
    if let Some(ttl) = billing.cache_ttl_s {
        req.push_str(&format!(", cache TTL {}", format_seconds(ttl)));
    }
    preamble.push(req);
    if let Some(m) = &report.mc {
        preamble.push(format!(
            "Monte Carlo: {} requests per chain, {} incident windows, seed {}; ± is the 95% interval; latency percentiles within {}%",
            group(&m.requests.to_string()),
            group(&m.runs.to_string()),
            m.seed,
            trim(m.percentile_relative_error * 100.0, 2)
        ));
        if let Some(why) = &m.incident_skipped {
            preamble.push(format!("Incident windows not simulated: {why}"));
        }
    }

    let mut sections = Vec::new();
    for chain in &scenario.chains {
        let with_mc = report.mc.is_some();
        let rows: Vec<Vec<String>> = report
            .steady
            .iter()
            .filter(|row| row.chain == chain.name)
            .map(|row| {
                let mut cells = vec![
                    row.pattern.as_str().to_string(),
                    money(row.cost_per_1k_usd),
                    row.vs_baseline.map_or("–".into(), change),
                    count(row.failed_per_1k),
                ];
                if with_mc {
                    cells.extend(steady_mc_cells(row.mc.as_ref()));
                }
                cells
            })
            .collect();
        let mut header: Vec<String> = ["pattern", "$/1k req", "vs primary", "failed/1k"]
            .map(String::from)
            .to_vec();
        let mut numeric = vec![false, true, true, true];
        if with_mc {
            header.extend(STEADY_MC_HEADER.map(String::from));
            numeric.extend([true; STEADY_MC_HEADER.len()]);
        }
        let base = report
            .steady
            .iter()
            .find(|row| row.chain == chain.name)
            .map(|row| row.baseline_per_1k_usd)
            .unwrap_or(0.0);
        sections.push(Section {
            heading: Some(chain_line(
                chain,
                &report
                    .input
                    .billing
                    .tiers_of(&chain.name, chain.links.len()),
            )),
            title: "Steady state, per 1,000 requests".into(),
            notes: {
                let mut notes = vec![
                    steady_note(chain),
                    format!("healthy primary alone: ${} per 1,000 requests", money(base)),
                ];
                if chain.links.len() > 1 {
                    notes.push(link_prices(&report.input.request, chain));
                }
                if let Some(note) = latency_defaults_note(report, chain) {
                    notes.push(note);
                }
                notes
            },
            header,
            numeric,
            rows,
            footer: vec![],
        });

        if has_policy(chain) {
            sections.push(policy_section(report, chain));
        }

        if let Some(w) = &report.incident_window {
            let rows: Vec<Vec<String>> = report
                .incident
                .iter()
                .filter(|row| row.chain == chain.name)
                .map(|row| {
                    let (total, parts) = money_adding_up(
                        &[row.window_usd, row.cold_start_usd, row.failback_usd],
                        row.total_usd,
                    );
                    let approx = if row.method == crate::report::Method::Simulated {
                        "sim "
                    } else {
                        ""
                    };
                    let mut cells = vec![
                        row.pattern.as_str().to_string(),
                        format!("{approx}{total}"),
                        row.multiplier.map_or("–".into(), multiplier),
                        parts[0].clone(),
                        parts[1].clone(),
                        parts[2].clone(),
                        count(row.failed_requests),
                    ];
                    if let Some(m) = &row.mc {
                        cells.extend([
                            pm(m.total_usd, m.total_usd_ci95, money),
                            pm(m.failed_requests, m.failed_requests_ci95, count),
                        ]);
                    }
                    cells
                })
                .collect();
            let incident_mc = report
                .incident
                .iter()
                .any(|row| row.chain == chain.name && row.mc.is_some());
            let failure = match w.failure {
                FailureMode::Fast => "fast failures (billed 0)",
                FailureMode::Gray => "gray failures (each hangs to the timeout, billed)",
            };
            let normal = report
                .incident
                .iter()
                .find(|row| row.chain == chain.name)
                .map(|row| row.normal_usd)
                .unwrap_or(0.0);
            sections.push(Section {
                heading: None,
                title: format!(
                    "Incident: {} down for {}, USD",
                    chain.links[0].price.provider,
                    format_seconds(w.duration_s)
                ),
                notes: {
                    // A chain with a traffic share sees its share of the window's requests.
                    let mine = report
                        .input
                        .incident
                        .as_ref()
                        .map(|i| i.for_chain(chain).requests())
                        .unwrap_or(w.requests);
                    let share = chain
                        .traffic_share
                        .map(|s| format!(" ({} of the traffic)", pct(s)))
                        .unwrap_or_default();
                    let mut notes = vec![
                        format!(
                            "{} requests{share} in {} sessions of {}, {failure}",
                            group(&mine.to_string()),
                            group(&mine.div_ceil(w.session_length.max(1)).to_string()),
                            w.session_length
                        ),
                        format!("normal bill for the same requests: ${}", money(normal)),
                    ];
                    if let Some(windows) = report
                        .incident
                        .iter()
                        .filter(|row| row.chain == chain.name)
                        .filter_map(|row| row.simulated_windows)
                        .max()
                    {
                        notes.push(format!(
                            "sim: every figure of a row so marked is simulated (a circuit breaker has no exact closed form): the incident simulator's mean over {} windows, fixed seed",
                            group(&windows.to_string())
                        ));
                    }
                    if let Some(b) = report
                        .incident
                        .iter()
                        .find(|row| row.chain == chain.name && row.pattern == crate::model::Pattern::Sequential)
                        .and_then(|row| row.breaker)
                    {
                        notes.push(format!(
                            "circuit breaker (simulated), sequential: {} attempts on the dead provider, {} half-open probes, open {} of {}",
                            count(b.dead_attempts),
                            count(b.probes),
                            format_seconds(b.open_s.round()),
                            format_seconds(w.duration_s)
                        ));
                    }
                    if let Some(m) = report
                        .incident
                        .iter()
                        .find(|row| row.chain == chain.name && row.pattern == crate::model::Pattern::Sequential)
                        .and_then(|row| row.mc.as_ref())
                        .and_then(|mc| mc.policy.as_ref())
                    {
                        let mut note = format!(
                            "Monte Carlo, sequential: {} attempts on the dead provider",
                            group(&trim(m.dead_provider_attempts, 4))
                        );
                        if let (Some(p), Some(o)) = (m.breaker_probes, m.breaker_open_s) {
                            note.push_str(&format!(
                                ", {} half-open probes, breaker open {}",
                                group(&trim(p, 4)),
                                format_seconds(o.round())
                            ));
                        }
                        note.push_str(&format!(
                            "; {} s of dead time per request",
                            trim(m.dead_time_mean_s, 3)
                        ));
                        notes.push(note);
                    }
                    let sequential = report
                        .incident
                        .iter()
                        .find(|row| row.chain == chain.name && row.pattern == crate::model::Pattern::Sequential);
                    if let Some(row) = sequential.filter(|row| row.dead_time_mean_s > 0.0) {
                        // Dead time precedes an answer, or the error when nothing answers.
                        let before = if row.failed_requests >= mine as f64 {
                            "before the error (no link answers)"
                        } else if row.failed_requests > 0.0 {
                            "before the answer or the error"
                        } else {
                            "before the answer"
                        };
                        notes.push(format!(
                            "sequential: {} s of dead time per request on average {before}",
                            trim(row.dead_time_mean_s, 2)
                        ));
                    }
                    notes
                },
                header: {
                    let mut h: Vec<String> = [
                        "pattern",
                        "total USD",
                        "x normal",
                        "window",
                        "cold starts",
                        "fail-back writes",
                        "failed requests",
                    ]
                    .map(String::from)
                    .to_vec();
                    if incident_mc {
                        h.extend(["MC total ± 95%", "MC failed"].map(String::from));
                    }
                    h
                },
                numeric: {
                    let mut n = vec![false, true, true, true, true, true, true];
                    if incident_mc {
                        n.extend([true, true]);
                    }
                    n
                },
                rows,
                footer: vec![],
            });
        }

        if let Some(cache) = report.failover_cache.iter().find(|c| c.chain == chain.name) {
            let label = |kind: &str, model: &str| match kind {
                "primary-warm" => format!("primary, warm ({model})"),
                "failover-cold" => format!("first failover, cold, no write ({model})"),
                "failover-write" => format!("first failover, writes the cache ({model})"),
                "failover-warm" => format!("later failovers, warm ({model})"),
                other => other.to_string(),
            };
            let rows = cache
                .rows
                .iter()
                .map(|row| {
                    vec![
                        label(row.request, &row.model),
                        money(row.cost_per_1k_usd),
                        row.vs_primary.map_or("–".into(), |v| format!("{:.1}x", v)),
                    ]
                })
                .collect();
            let mut footer = match cache.break_even_requests {
                Some(1) => vec!["Break-even: writing the cache costs no more than a cold request; write on the first failover.".into()],
                Some(n) => vec![format!(
                    "Break-even: writing the cache on the first failover pays for itself once a session makes {n} failover requests."
                )],
                // Automatic caching (or none) has no write to decide on: the first failover
                // is cold and warms the cache at the input price.
                // The fallback the table names: the first one reached after the cost cap.
                None => match cache
                    .rows
                    .iter()
                    .find(|row| row.request != "primary-warm")
                    .and_then(|row| chain.prices().find(|l| l.id == row.model))
                    .or_else(|| chain.prices().nth(1))
                {
                    Some(l) if l.caching == crate::model::Caching::Automatic => vec![format!(
                        "No break-even: {} caches automatically, so there is no cache write to decide on; the first failover pays the cold price and warms the cache.",
                        l.id
                    )],
                    Some(l) if l.caching == crate::model::Caching::None => vec![format!(
                        "No break-even: {} has no prompt cache; every failover pays the cold price.",
                        l.id
                    )],
                    _ => vec![],
                },
            };
            match (cache.warm_policy, cache.policy_break_even_requests) {
                (crate::model::policy::WarmPolicy::After(n), Some(b)) => footer.push(format!(
                    "This chain writes only after {n} failovers in a session (warm_fallback after = {n}): it pays no write for a blip of up to {n} failover requests, and has paid for the write once a session makes {b}."
                )),
                (crate::model::policy::WarmPolicy::Never, _) if cache.break_even_requests.is_some() => footer.push(
                    "This chain never writes the fallback's cache (warm_fallback = \"never\"): every failover request pays the cold price.".into(),
                ),
                _ => {}
            }
            sections.push(Section {
                heading: None,
                title: "Failover cache, per 1,000 requests".into(),
                notes: vec![],
                header: ["request", "$/1k req", "vs warm primary"]
                    .map(String::from)
                    .to_vec(),
                numeric: vec![false, true, true],
                rows,
                footer,
            });
        }
    }
    if report
        .steady
        .iter()
        .any(|r| r.chain == crate::report::BLENDED)
    {
        let with_mc = report.mc.is_some();
        let incident_mc = report
            .incident
            .iter()
            .any(|i| i.chain == crate::report::BLENDED && i.mc.is_some());
        let rows: Vec<Vec<String>> = report
            .steady
            .iter()
            .filter(|r| r.chain == crate::report::BLENDED)
            .map(|r| {
                let inc = report
                    .incident
                    .iter()
                    .find(|i| i.chain == crate::report::BLENDED && i.pattern == r.pattern);
                let mut cells = vec![
                    r.pattern.as_str().to_string(),
                    money(r.cost_per_1k_usd),
                    r.vs_baseline.map_or("–".into(), change),
                    count(r.failed_per_1k),
                    inc.map_or("–".into(), |i| {
                        // Simulated when the blended row is, or when any chain's row it blends is.
                        let sim = i.method == crate::report::Method::Simulated
                            || report.incident.iter().any(|c| {
                                c.chain != crate::report::BLENDED
                                    && c.pattern == r.pattern
                                    && c.method == crate::report::Method::Simulated
                            });
                        format!("{}{}", if sim { "sim " } else { "" }, money(i.total_usd))
                    }),
                    inc.and_then(|i| i.multiplier)
                        .map_or("–".into(), multiplier),
                ];
                if with_mc {
                    cells.extend(steady_mc_cells(r.mc.as_ref()));
                }
                if incident_mc {
                    cells.push(
                        inc.and_then(|i| i.mc.as_ref())
                            .map_or("–".into(), |m| pm(m.total_usd, m.total_usd_ci95, money)),
                    );
                }
                cells
            })
            .collect();
        let shares: Vec<String> = scenario
            .chains
            .iter()
            .map(|c| format!("{} {}", c.name, pct(c.traffic_share.unwrap_or(0.0))))
            .collect();
        let mut blended_notes = vec![format!("traffic: {}", shares.join(", "))];
        if rows
            .iter()
            .any(|cells: &Vec<String>| cells[4].starts_with("sim "))
        {
            blended_notes.push(
                "sim: an incident figure so marked blends a chain's simulated incident (a circuit breaker has no exact closed form)".into(),
            );
        }
        let mut header: Vec<String> = [
            "pattern",
            "$/1k req",
            "vs primaries",
            "failed/1k",
            "incident USD",
            "x normal",
        ]
        .map(String::from)
        .to_vec();
        let mut numeric = vec![false, true, true, true, true, true];
        if with_mc {
            header.extend(STEADY_MC_HEADER.map(String::from));
            numeric.extend([true; STEADY_MC_HEADER.len()]);
        }
        if incident_mc {
            header.push("MC incident ± 95%".into());
            numeric.push(true);
        }
        sections.push(Section {
            heading: Some("All chains, weighted by traffic share".into()),
            title: "Steady state per 1,000 requests, and the incident, USD".into(),
            notes: blended_notes,
            header,
            numeric,
            rows,
            footer: vec![],
        });
    }
    preamble.retain(|l| !l.is_empty());
    Document { preamble, sections }
}

fn opt_price(p: Option<f64>) -> String {
    p.map_or("–".into(), price)
}

/// A price in $/MTok: at least two decimals and up to six (`2.00`, `0.14`, `0.000001`); below
/// a millionth of a dollar, in exponent form (`1e-9`), never rounded to `0.00`.
fn price(p: f64) -> String {
    if p != 0.0 && p.abs() < 1e-6 {
        return format!("{:e}", crate::report::clean(p));
    }
    let s = trim(p, 6);
    if s.contains('.') && s.split('.').nth(1).is_some_and(|f| f.len() == 1) {
        format!("{s}0")
    } else if !s.contains('.') {
        format!("{s}.00")
    } else {
        s
    }
}

/// The layout of `fallcost prices`.
pub fn prices(table: &PriceTable) -> Document {
    let models: Vec<&ModelPrice> = table.models.values().collect();
    prices_of(table, &models)
}

/// The layout of `fallcost prices` for `models` of `table`, in that order. The 1-hour cache
/// write, minimum cached prefix, long-context and service-tier columns appear only when a
/// shown model has them.
pub fn prices_of(table: &PriceTable, models: &[&ModelPrice]) -> Document {
    let mut preamble = vec![format!("Price table {}", table.name)];
    if let Some(v) = &table.verified {
        preamble.push(format!("verified {v}"));
    }
    if let Some(s) = &table.source {
        preamble.push(format!("source: {s}"));
    }
    let has_1h = models.iter().any(|m| m.cache_write_1h.is_some());
    let has_min = models.iter().any(|m| m.min_cache_prefix.is_some());
    let has_long = models.iter().any(|m| !m.context_tiers().is_empty());
    let has_service = models.iter().any(|m| !m.services().is_empty());
    let rows = models
        .iter()
        .map(|m| {
            let mut row = vec![
                m.id.clone(),
                m.provider.clone(),
                price(m.input),
                opt_price(m.cached_input),
                opt_price(m.cache_write),
            ];
            if has_1h {
                row.push(opt_price(m.cache_write_1h));
            }
            row.extend([
                price(m.output),
                m.caching.as_str().to_string(),
                if m.caching == crate::model::Caching::None {
                    "–".into()
                } else {
                    format_seconds(m.cache_ttl_s)
                },
            ]);
            if has_min {
                row.push(m.min_cache_prefix.map_or("–".into(), |n| {
                    crate::output::number::group(&n.to_string())
                }));
            }
            if has_long {
                let t = m.context_tiers();
                row.push(if t.is_empty() {
                    "–".into()
                } else {
                    t.iter()
                        .map(|n| {
                            let r = |rate| {
                                m.rate_for(
                                    rate,
                                    *n as f64 + 1.0,
                                    crate::model::ServiceTier::Standard,
                                )
                            };
                            format!(
                                ">{}k: {}/{}",
                                n / 1000,
                                r(crate::model::Rate::Input).map_or("–".into(), price),
                                r(crate::model::Rate::Output).map_or("–".into(), price)
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                });
            }
            if has_service {
                let s = m.services();
                row.push(if s.is_empty() {
                    "–".into()
                } else {
                    s.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")
                });
            }
            row
        })
        .collect();
    let mut header: Vec<String> = ["model", "provider", "input", "cache read", "cache write"]
        .map(String::from)
        .to_vec();
    let mut numeric = vec![false, false, true, true, true];
    if has_1h {
        header.push("write 1h".into());
        numeric.push(true);
    }
    header.extend(["output", "caching", "TTL"].map(String::from));
    numeric.extend([true, false, true]);
    for (on, name, num) in [
        (has_min, "min prefix", true),
        (has_long, "long context in/out", false),
        (has_service, "service tiers", false),
    ] {
        if on {
            header.push(name.into());
            numeric.push(num);
        }
    }
    Document {
        preamble,
        sections: vec![Section {
            heading: None,
            title: "USD per 1,000,000 tokens ($/MTok)".into(),
            notes: vec![],
            header,
            numeric,
            rows,
            footer: vec![],
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_print_three_significant_digits_without_trailing_zeros() {
        assert_eq!(share_pct(1.0), "100%");
        assert_eq!(share_pct(0.999), "99.9%");
        assert_eq!(share_pct(0.9659), "96.6%");
        assert_eq!(share_pct(0.93), "93%");
        assert_eq!(share_pct(0.07), "7%");
        assert_eq!(share_pct(0.033), "3.3%");
        assert_eq!(share_pct(0.0196), "1.96%");
        assert_eq!(share_pct(0.0000007217), "0.0000722%");
        assert_eq!(share_pct(0.0), "0%");
        // Short of 100% never rounds up to it.
        assert_eq!(share_pct(0.99996), "99.996%");
    }

    #[test]
    fn answer_labels_keep_the_provider_only_when_the_short_name_repeats() {
        assert_eq!(
            answer_labels(&[
                "anthropic/claude-sonnet-4-5",
                "vertex_ai/claude-sonnet-4-5",
                "openai/gpt-4o"
            ]),
            vec![
                "anthropic/claude-sonnet-4-5",
                "vertex_ai/claude-sonnet-4-5",
                "gpt-4o"
            ]
        );
        assert_eq!(answer_labels(&["a/x", "b/y"]), vec!["x", "y"]);
    }

    #[test]
    fn prices_print_with_at_least_two_decimals() {
        assert_eq!(price(2.0), "2.00");
        assert_eq!(price(0.14), "0.14");
        assert_eq!(price(2.5), "2.50");
        assert_eq!(price(0.000001), "0.000001");
        assert_eq!(price(1e-9), "1e-9");
        assert_eq!(price(0.0), "0.00");
    }
}
