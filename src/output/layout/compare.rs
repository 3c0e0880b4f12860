//! The layout of `fallcost compare`: one builder per section (a chain's steady state, its
//! policy, its incident, its failover cache; the blended traffic-share table).

use crate::model::timeline::{Outage, OutageFailure};
use crate::model::{AbandonedBilling, Chain, FailureMode};
use crate::number::format_seconds;
use crate::number::{Digits, percent};
use crate::report::Report;

use super::cells::{self, Table};
use super::{Page, Section, answer_labels, steady_mc_cells_in, steady_mc_header_in};
use crate::figures::{Figure, INCIDENT_FIGURES, STEADY_FIGURES, STEADY_POLICY_FIGURES};
use crate::number::{group, money, trim};

/// The `pattern` column, then the columns `table` shows for `figures` (from their
/// declarations): the headers, and per column whether it is numeric.
fn figure_columns(figures: &'static [Figure], table: Table) -> (Vec<String>, Vec<bool>) {
    let mut header = vec!["pattern".to_string()];
    let mut numeric = vec![false];
    for (h, n) in cells::headers(figures, table) {
        header.push(h);
        numeric.push(n);
    }
    (header, numeric)
}

/// The list cell of a figure set without lists (steady and incident figures).
fn no_list(fig: &'static Figure) -> String {
    unreachable!("{} is not a list", fig.key)
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
    let rates: Vec<String> = chain
        .links
        .iter()
        .map(|l| percent(l.failure_rate, Digits::AtMost(2), false))
        .collect();
    let mut note = if chain.links.iter().all(|l| l.failure_rate == 0.0) {
        "no failures".to_string()
    } else if let Some(mix) = s.error_mix {
        let classes: Vec<String> = crate::model::policy::ErrorClass::ALL
            .iter()
            .filter(|c| mix.share(**c) > 0.0)
            .map(|c| {
                format!(
                    "{} {}",
                    c.as_str(),
                    percent(mix.share(*c), Digits::AtMost(2), false)
                )
            })
            .collect();
        format!(
            "failure rate per link {} ({}; a timeout bills input + {} of output)",
            rates.join(" / "),
            classes.join(", "),
            percent(s.gray_output_fraction, Digits::AtMost(2), false)
        )
    } else {
        format!(
            "failure rate per link {} ({} gray, billed input + {} of output)",
            rates.join(" / "),
            percent(s.gray_fraction, Digits::AtMost(2), false),
            percent(s.gray_output_fraction, Digits::AtMost(2), false)
        )
    };
    if chain.links.iter().any(|l| l.trip_rate > 0.0) {
        let trips: Vec<String> = chain
            .links
            .iter()
            .map(|l| percent(l.trip_rate, Digits::AtMost(2), false))
            .collect();
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
        .map(|link| format!("${}", money(crate::model::cost::per_1k(request, link))))
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

/// The incident section's title over a timeline of `outages` in a window of `window_s`
/// seconds: one outage is named (`a drill on provider "openai" for 20m`), more are counted.
fn timeline_title(outages: &[Outage], window_s: f64) -> String {
    match outages {
        [one] => {
            let length = format_seconds(one.duration_s.unwrap_or(window_s - one.start_s));
            let what = match one.failure {
                OutageFailure::Drill => format!("a drill on {} for {length}", one.target),
                f => format!("{} down ({} failures) for {length}", one.target, f.as_str()),
            };
            format!("Incident: {what} over {}, USD", format_seconds(window_s))
        }
        many => format!(
            "Incident: a timeline of {} outages over {}, USD",
            many.len(),
            format_seconds(window_s)
        ),
    }
}

/// Whether a chain's client policy differs from the default, so its retries, caps and
/// attribution are worth a table (and the policy simulator fills its MC column): the test
/// `sim::Engine::for_chain` makes to pick the steady policy engine.
fn has_policy(chain: &Chain) -> bool {
    !chain.has_default_policy()
}

/// Attempts, dead time, attribution and cap hits of each pattern (MODEL.md §8).
fn policy_section(report: &Report, chain: &Chain) -> Section {
    let with_mc = report.mc.is_some();
    let (mut header, mut numeric) = figure_columns(STEADY_POLICY_FIGURES, Table::Chain);
    if with_mc {
        header.push("MC dead time s mean / p99".into());
        numeric.push(true);
    }
    Section {
        heading: None,
        title: "Retries, caps and attribution, per request".into(),
        notes: vec![policy_note(&chain.policy)],
        header,
        numeric,
        rows: policy_rows(report, chain),
        footer: vec![],
    }
}

/// The policy table's rows of `chain`: per pattern, its policy figures, the attribution and,
/// with a Monte Carlo, its dead time.
fn policy_rows(report: &Report, chain: &Chain) -> Vec<Vec<String>> {
    let ids: Vec<&str> = chain.prices().map(|l| l.id.as_str()).collect();
    let labels = answer_labels(&ids);
    let short = |id: &str| {
        ids.iter()
            .position(|i| *i == id)
            .map_or_else(|| id.to_string(), |k| labels[k].to_string())
    };
    let with_mc = report.mc.is_some();
    report
        .steady
        .iter()
        .filter(|row| row.chain == chain.name)
        .map(|row| {
            // The attribution: each model that answers, by its short name, with its share.
            let answered = |_: &'static Figure| {
                let answered: Vec<String> = row
                    .policy
                    .answered_by
                    .iter()
                    .filter(|a| a.share > 0.0)
                    .map(|a| {
                        format!(
                            "{} {}",
                            short(&a.model),
                            percent(a.share, Digits::Significant(3), false)
                        )
                    })
                    .collect();
                if answered.is_empty() {
                    "–".into()
                } else {
                    answered.join(", ")
                }
            };
            let mut cells = vec![row.pattern.as_str().to_string()];
            cells.extend(cells::cells(Table::Chain, false, &answered, |f| {
                row.policy.visit(f)
            }));
            // The Monte Carlo's dead time, mean / p99: one column for two figures, so written
            // here rather than declared.
            if with_mc {
                cells.push(row.mc.as_ref().and_then(|m| m.policy.as_ref()).map_or(
                    "–".into(),
                    |p| {
                        format!(
                            "{} / {}",
                            trim(p.dead_time_mean_s.mean, 3),
                            p.dead_time_p99_s.map_or("–".into(), |x| trim(x, 3))
                        )
                    },
                ));
            }
            cells
        })
        .collect()
}

/// The policy table's note: retries (by class), backoff, failover classes, caps.
fn policy_note(p: &crate::model::Policy) -> String {
    let backoff = if p.has_retries() {
        format!(
            ", backoff {}–{} s ({} jitter)",
            trim(p.backoff.base_s, 3),
            trim(p.backoff.cap_s, 3),
            p.backoff.jitter.as_str()
        )
    } else {
        String::new()
    };
    let retries = match p.retries_by_class {
        Some(_) => format!(
            "retries by the first failure's class ({})",
            crate::model::policy::ErrorClass::PROVIDER
                .iter()
                .map(|&c| format!("{} {}", c.as_str(), p.retries_for(c)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!("retries {}", p.retries),
    };
    let mut note = format!(
        "{retries} per link{backoff}, fail over on {}",
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
    note
}

/// The layout of a compare report: the preamble, then per chain its steady-state table, its
/// policy table (a non-default policy), its incident table and its failover-cache table, then
/// the blended traffic-share table.
pub fn compare(report: &Report) -> Page {
    let mut sections = Vec::new();
    for chain in &report.input.chains {
        sections.push(steady_section(report, chain));
        if has_policy(chain) {
            sections.push(policy_section(report, chain));
        }
        if let Some(w) = &report.incident_window {
            sections.push(incident_section(report, chain, w));
        }
        if let Some(cache) = report.failover_cache.iter().find(|c| c.chain == chain.name) {
            sections.push(failover_cache_section(chain, cache));
        }
    }
    if report
        .steady
        .iter()
        .any(|r| r.chain == crate::report::BLENDED)
    {
        sections.push(blended_section(report));
    }
    Page {
        preamble: preamble(report),
        sections,
    }
}

/// The lines above the tables: scenario and prices, the request, the Monte Carlo run.
fn preamble(report: &Report) -> Vec<String> {
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
            percent(r.cache_hit_rate, Digits::AtMost(2), false)
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
            "Monte Carlo: {} requests per chain, {} incident windows, seed {}; ± is the 95% interval; latency percentiles within {}% of the sample's own (the histogram's error; the sample's is apart: from few requests a p99 is near their largest)",
            group(&m.requests.to_string()),
            group(&m.runs.to_string()),
            m.seed,
            trim(m.percentile_relative_error * 100.0, 2)
        ));
        if let Some(why) = &m.incident_skipped {
            preamble.push(format!("Incident windows not simulated: {why}"));
        }
    }
    preamble.retain(|l| !l.is_empty());
    preamble
}

/// A chain's steady-state table, per 1,000 requests, with its notes.
fn steady_section(report: &Report, chain: &Chain) -> Section {
    let with_mc = report.mc.is_some();
    let rows: Vec<Vec<String>> = report
        .steady
        .iter()
        .filter(|row| row.chain == chain.name)
        .map(|row| {
            let mut cells = vec![row.pattern.as_str().to_string()];
            cells.extend(cells::cells(Table::Chain, false, &no_list, |f| {
                row.analytic.visit(f)
            }));
            if with_mc {
                cells.extend(steady_mc_cells_in(Table::Chain, row.mc.as_ref()));
            }
            cells
        })
        .collect();
    let (mut header, mut numeric) = figure_columns(STEADY_FIGURES, Table::Chain);
    if with_mc {
        let mc = steady_mc_header_in(Table::Chain);
        numeric.extend(vec![true; mc.len()]);
        header.extend(mc);
    }
    let base = report
        .steady
        .iter()
        .find(|row| row.chain == chain.name)
        .map(|row| row.baseline())
        .unwrap_or(0.0);
    Section {
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
            let limited: Vec<&str> = chain
                .links
                .iter()
                .filter(|l| l.capacity.is_some())
                .map(|l| l.price.id.as_str())
                .collect();
            if !limited.is_empty() {
                notes.push(format!(
                    "capacity: {}'s quota ([capacity]) limits the incident only; here every link takes its traffic (a hedged pattern's second leg takes every request: MODEL.md §11)",
                    limited.join(", ")
                ));
            }
            notes.extend(super::sim_notes::fit_note(chain));
            notes
        },
        header,
        numeric,
        rows,
        footer: vec![],
    }
}

/// A chain's incident table over the outage window `w`, USD, with its notes.
fn incident_section(report: &Report, chain: &Chain, w: &crate::report::IncidentWindow) -> Section {
    let rows = incident_rows(report, chain);
    let incident_mc = report
        .incident
        .iter()
        .any(|row| row.chain == chain.name && row.mc.is_some());
    // On a timeline the outages (and their failures) are listed in the notes below.
    let timeline = report
        .input
        .incident
        .as_ref()
        .and_then(|i| i.timeline.as_ref());
    Section {
        heading: None,
        title: match timeline {
            Some(t) => timeline_title(t.outages(), w.duration_s),
            None => format!(
                "Incident: {} down for {}, USD",
                chain.links[0].price.provider,
                format_seconds(w.duration_s)
            ),
        },
        notes: incident_notes(report, chain, w),
        header: {
            let (mut h, _) = figure_columns(INCIDENT_FIGURES, Table::Chain);
            if incident_mc {
                h.extend(cells::mc_headers(INCIDENT_FIGURES, Table::Chain));
            }
            h
        },
        numeric: {
            let (_, mut n) = figure_columns(INCIDENT_FIGURES, Table::Chain);
            if incident_mc {
                n.extend(vec![
                    true;
                    cells::mc_headers(INCIDENT_FIGURES, Table::Chain).len()
                ]);
            }
            n
        },
        rows,
        footer: vec![],
    }
}

/// A chain's incident rows: each pattern's figures, then its Monte Carlo columns with `--mc`.
fn incident_rows(report: &Report, chain: &Chain) -> Vec<Vec<String>> {
    report
        .incident
        .iter()
        .filter(|row| row.chain == chain.name)
        .map(|row| {
            let sim = row.method == crate::report::Method::Simulated;
            let mut cells = vec![row.pattern.as_str().to_string()];
            cells.extend(cells::cells(Table::Chain, sim, &no_list, |f| {
                row.analytic.visit(f)
            }));
            if let Some(m) = &row.mc {
                cells.extend(cells::mc_cells(
                    INCIDENT_FIGURES,
                    Table::Chain,
                    Some(&m.figures),
                    |f, v| f.visit(v),
                ));
            }
            cells
        })
        .collect()
}

/// The notes under a chain's incident title: its requests and sessions, the normal bill, the
/// timeline's outages, then what was simulated ([`breaker_notes`]), the Monte Carlo breaker
/// figures ([`mc_breaker_note`]) and the dead time ([`dead_time_note`]).
fn incident_notes(
    report: &Report,
    chain: &Chain,
    w: &crate::report::IncidentWindow,
) -> Vec<String> {
    let timeline = report
        .input
        .incident
        .as_ref()
        .and_then(|i| i.timeline.as_ref());
    let failure = match (timeline, w.failure) {
        (Some(_), _) => "",
        (None, FailureMode::Fast) => ", fast failures (billed 0)",
        (None, FailureMode::Gray) => ", gray failures (each hangs to the timeout, billed)",
    };
    let normal = report
        .incident
        .iter()
        .find(|row| row.chain == chain.name)
        .map(|row| row.normal())
        .unwrap_or(0.0);
    // A chain with a traffic share sees its share of the window's requests.
    let mine = report
        .input
        .incident
        .as_ref()
        .map(|i| i.for_chain(chain).requests())
        .unwrap_or(w.requests);
    let share = chain
        .traffic_share
        .map(|s| format!(" ({} of the traffic)", percent(s, Digits::AtMost(2), false)))
        .unwrap_or_default();
    let mut notes = vec![
        format!(
            "{} requests{share} in {} sessions of {}{failure}",
            group(&mine.to_string()),
            group(&mine.div_ceil(w.session_length.max(1)).to_string()),
            w.session_length
        ),
        format!("normal bill for the same requests: ${}", money(normal)),
    ];
    if let Some(t) = report
        .input
        .incident
        .as_ref()
        .and_then(|i| i.timeline.as_ref())
    {
        notes.push(super::timeline::outages(t));
        let analytic = report
            .incident
            .iter()
            .any(|row| row.chain == chain.name && row.method == crate::report::Method::Analytic);
        let inc = report.input.incident.as_ref().map(|i| i.for_chain(chain));
        notes.extend(inc.and_then(|i| {
            super::timeline::approximation(&report.input.request, chain, &i).filter(|_| analytic)
        }));
    }
    notes.extend(super::sim_notes::breaker_notes(report, chain, w));
    notes.extend(super::sim_notes::rate_limit_note(report, chain));
    notes.extend(super::sim_notes::mc_breaker_note(report, chain));
    notes.extend(dead_time_note(report, chain, mine));
    notes
}

/// Under sequential, the dead time per request (`mine` requests in the window) and what it
/// precedes.
fn dead_time_note(report: &Report, chain: &Chain, mine: u64) -> Option<String> {
    let sequential = report
        .incident
        .iter()
        .find(|row| row.chain == chain.name && row.pattern == crate::model::Pattern::Sequential);
    if let Some(row) = sequential.filter(|row| row.dead_time_mean_s > 0.0) {
        // Dead time precedes an answer, or the error when nothing answers.
        let before = if row.analytic.failed_requests >= mine as f64 {
            "before the error (no link answers)"
        } else if row.analytic.failed_requests > 0.0 {
            "before the answer or the error"
        } else {
            "before the answer"
        };
        return Some(format!(
            "sequential: {} s of dead time per request on average {before}",
            trim(row.dead_time_mean_s, 2)
        ));
    }
    None
}

/// A chain's failover-cache table (MODEL.md §5), per 1,000 requests, with its break-even.
fn failover_cache_section(chain: &Chain, cache: &crate::model::cache::FailoverCache) -> Section {
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
    Section {
        heading: None,
        title: "Failover cache, per 1,000 requests".into(),
        notes: vec![],
        header: ["request", "$/1k req", "vs warm primary"]
            .map(String::from)
            .to_vec(),
        numeric: vec![false, true, true],
        rows,
        footer,
    }
}

/// The chains blended by traffic share: steady state per 1,000 requests and the incident.
fn blended_section(report: &Report) -> Section {
    let scenario = &report.input;
    let with_mc = report.mc.is_some();
    let incident_mc = report
        .incident
        .iter()
        .any(|i| i.chain == crate::report::BLENDED && i.mc.is_some());
    let mut any_sim = false;
    let rows: Vec<Vec<String>> = report
        .steady
        .iter()
        .filter(|r| r.chain == crate::report::BLENDED)
        .map(|r| {
            let (cells, sim) = blended_row(report, r, incident_mc);
            any_sim |= sim;
            cells
        })
        .collect();
    let shares: Vec<String> = scenario
        .chains
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c.name,
                percent(c.traffic_share.unwrap_or(0.0), Digits::AtMost(2), false)
            )
        })
        .collect();
    let mut blended_notes = vec![format!("traffic: {}", shares.join(", "))];
    if any_sim {
        blended_notes.push(
            "sim: an incident figure so marked blends a chain's simulated incident (a circuit breaker has no exact closed form)".into(),
        );
    }
    let (header, numeric) = blended_header(with_mc, incident_mc);
    Section {
        heading: Some("All chains, weighted by traffic share".into()),
        title: "Steady state per 1,000 requests, and the incident, USD".into(),
        notes: blended_notes,
        header,
        numeric,
        rows,
        footer: vec![],
    }
}

/// The blended table's row of the steady row `r` and its pattern's blended incident row; and
/// whether its incident figures are marked simulated (the blended row is, or any chain's row it
/// blends). With `incident_mc`, the incident's Monte Carlo cells.
fn blended_row(
    report: &Report,
    r: &crate::report::SteadyRow,
    incident_mc: bool,
) -> (Vec<String>, bool) {
    let inc = report
        .incident
        .iter()
        .find(|i| i.chain == crate::report::BLENDED && i.pattern == r.pattern);
    let mut cells = vec![r.pattern.as_str().to_string()];
    cells.extend(cells::cells(Table::Blended, false, &no_list, |f| {
        r.analytic.visit(f)
    }));
    let mut sim = false;
    match inc {
        Some(i) => {
            // Simulated when the blended row is, or when any chain's row it blends is.
            sim = i.method == crate::report::Method::Simulated
                || report.incident.iter().any(|c| {
                    c.chain != crate::report::BLENDED
                        && c.pattern == r.pattern
                        && c.method == crate::report::Method::Simulated
                });
            cells.extend(cells::cells(Table::Blended, sim, &no_list, |f| {
                i.analytic.visit(f)
            }));
        }
        None => cells.extend(vec![
            "–".to_string();
            cells::headers(INCIDENT_FIGURES, Table::Blended).len()
        ]),
    }
    if report.mc.is_some() {
        cells.extend(steady_mc_cells_in(Table::Blended, r.mc.as_ref()));
    }
    if incident_mc {
        let mc = inc.and_then(|i| i.mc.as_ref());
        cells.extend(cells::mc_cells(
            INCIDENT_FIGURES,
            Table::Blended,
            mc.map(|m| &m.figures),
            |f, v| f.visit(v),
        ));
    }
    (cells, sim)
}

/// The blended table's header and which columns are numbers: the pattern, the steady and
/// incident figures, with `with_mc` the steady Monte Carlo columns, with `incident_mc` the
/// incident's.
fn blended_header(with_mc: bool, incident_mc: bool) -> (Vec<String>, Vec<bool>) {
    let (mut header, mut numeric) = figure_columns(STEADY_FIGURES, Table::Blended);
    let (h, n) = figure_columns(INCIDENT_FIGURES, Table::Blended);
    header.extend(h.into_iter().skip(1));
    numeric.extend(n.into_iter().skip(1));
    if with_mc {
        let mc = steady_mc_header_in(Table::Blended);
        numeric.extend(vec![true; mc.len()]);
        header.extend(mc);
    }
    if incident_mc {
        let mc = cells::mc_headers(INCIDENT_FIGURES, Table::Blended);
        numeric.extend(vec![true; mc.len()]);
        header.extend(mc);
    }
    (header, numeric)
}
