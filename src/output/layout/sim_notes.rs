//! The notes under a chain's incident table on what the incident simulator computed: why its
//! rows are simulated and over how many windows, the circuit breaker's figures, the rate
//! limits' refusals (MODEL.md §8, §11), and with `--mc` the breaker's Monte Carlo figures.

use crate::model::Chain;
use crate::number::format_seconds;
use crate::number::{count, group, trim};
use crate::report::Report;

/// The notes on a row simulated for its circuit breaker: over how many windows, and the
/// breaker's figures under sequential.
pub(super) fn breaker_notes(
    report: &Report,
    chain: &Chain,
    w: &crate::report::IncidentWindow,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(windows) = report
        .incident
        .iter()
        .filter(|row| row.chain == chain.name)
        .filter_map(|row| row.simulated_windows)
        .max()
    {
        let why = report
            .input
            .incident
            .as_ref()
            .and_then(|i| crate::model::incident::no_closed_form(chain, &i.for_chain(chain)))
            .unwrap_or(crate::model::incident::NoClosedForm::Breaker);
        let most = |of: fn(&crate::report::IncidentRow) -> Option<f64>| {
            report
                .incident
                .iter()
                .filter(|row| row.chain == chain.name)
                .filter_map(of)
                .fold(0.0, f64::max)
        };
        notes.push(format!(
            "sim: every figure of a row so marked is simulated ({}): the incident simulator's mean over {} windows, fixed seed; the total and the window within {}, failed requests, wasted attempts, attempts on the dead provider and the dead time within {} (4.5 standard errors)",
            why.reason(),
            group(&windows.to_string()),
            percent(most(|r| r.simulated_precision)),
            percent(most(|r| r.simulated_counts_precision)),
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
    notes
}

/// A relative half-width as `±0.63%` (two significant digits: [`crate::number::percent`]).
fn percent(x: f64) -> String {
    format!(
        "±{}",
        crate::number::percent(x, crate::number::Digits::Significant(2), false)
    )
}

/// With a rate-limited link, what its limit refused under sequential (simulated as the row):
/// per limited link, the attempts refused over the window, its limit and the other traffic
/// it takes; where the link's arrivals are known, the formula's count beside it
/// ([`crate::model::fit::known_refusals`]).
pub(super) fn rate_limit_note(report: &Report, chain: &Chain) -> Option<String> {
    let limits = report
        .incident
        .iter()
        .find(|row| row.chain == chain.name && row.pattern == crate::model::Pattern::Sequential)
        .and_then(|row| row.rate_limits.as_ref())?;
    let parts: Vec<String> = limits
        .iter()
        .enumerate()
        .filter_map(|(k, l)| {
            let refused = refused_text(l)?;
            let incident = report.input.incident.as_ref().map(|i| i.for_chain(chain));
            let known = incident.and_then(|i| {
                crate::model::fit::known_refusals(&report.input.request, chain, &i, k)
            });
            let formula = known.map_or(String::new(), |(s, n)| {
                format!(
                    " [formula E[(N − c)⁺]/E[N]: {} refused, {} attempts]",
                    crate::number::percent(s, crate::number::Digits::AtMost(2), false),
                    count(n)
                )
            });
            Some(format!("{refused}{formula}"))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "rate limits (simulated), sequential: {}; a refused attempt is a 429, fast and billed 0",
            parts.join("; ")
        )
    })
}

/// One rate-limited link's refusals as the notes print them: `MODEL refused N attempts
/// (LIMIT rpm, B rpm of other traffic)`; `None` for a link without a limit.
pub(crate) fn refused_text(l: &crate::report::RateLimited) -> Option<String> {
    let c = l.capacity?;
    let mut limit = Vec::new();
    if let Some(r) = c.limit.rpm {
        limit.push(format!("{} rpm", group(&trim(r, 0))));
    }
    if let Some(t) = c.limit.tpm {
        limit.push(format!("{} tpm", group(&trim(t, 0))));
    }
    if c.background_rpm > 0.0 {
        limit.push(format!(
            "{} rpm of other traffic",
            group(&trim(c.background_rpm, 1))
        ));
    }
    Some(format!(
        "{} refused {} attempts ({})",
        l.model,
        count(l.refused_attempts),
        limit.join(", ")
    ))
}

/// With `--mc`, the breaker's simulated figures under sequential: attempts on the dead
/// provider, half-open probes, time open, how often it opened, dead time per request.
pub(super) fn mc_breaker_note(report: &Report, chain: &Chain) -> Option<String> {
    let m = report
        .incident
        .iter()
        .find(|row| row.chain == chain.name && row.pattern == crate::model::Pattern::Sequential)
        .and_then(|row| row.mc.as_ref())
        .and_then(|mc| mc.policy.as_ref())?;
    let mut note = format!(
        "Monte Carlo, sequential: {} attempts on the dead provider",
        group(&trim(m.dead_provider_attempts.mean, 4))
    );
    if let (Some(p), Some(o)) = (m.breaker_probes, m.breaker_open_s) {
        let (p, o) = (p.mean, o.mean);
        note.push_str(&format!(
            ", {} half-open probes, breaker open {}",
            group(&trim(p, 4)),
            format_seconds(o.round())
        ));
    }
    // On a timeline: how often it opened (a partial outage makes it flap).
    if let Some(n) = m.breaker_opens {
        note.push_str(&format!(
            ", opened {} times from closed{}",
            group(&trim(n.mean, 4)),
            if n.mean > 1.5 {
                " (it flaps: the outage's successes close it, its failures reopen it)"
            } else {
                ""
            }
        ));
    }
    note.push_str(&format!(
        "; {} s of dead time per request",
        trim(m.dead_time_mean_s.mean, 3)
    ));
    Some(note)
}

/// A chain's links that cannot serve the request, as the price table states it
/// ([`crate::model::Link::refusal`]: the context window, a capability the request requires):
/// a fallback is passed over (the next link that can takes its place, its refusals counted in
/// `refused/1k`); the primary is priced as answering, which the note says (docs/MODEL.md §11),
/// so the table says so where it is pasted (a retired model is warned of on standard error,
/// against today's date).
pub(super) fn fit_note(chain: &Chain) -> Option<String> {
    let refusing = |primary: bool| -> Vec<String> {
        chain
            .links
            .iter()
            .enumerate()
            .filter(|(i, _)| (*i == 0) == primary)
            .filter_map(|(_, l)| {
                Some(format!(
                    "{} ({})",
                    l.price.id,
                    l.refusal.as_ref()?.describe()
                ))
            })
            .collect()
    };
    let mut notes = Vec::new();
    let passed = refusing(false);
    if !passed.is_empty() {
        let unhedged = chain.links[1..].iter().all(|l| l.refusal.is_some());
        notes.push(format!(
            "cannot serve this request: {}; the provider refuses it (a client error, billed 0), so every pattern passes it over to the next link that can (counted in refused/1k){}",
            passed.join("; "),
            if unhedged {
                "; no fallback can, so the hedged patterns are not priced"
            } else {
                ""
            }
        ));
    }
    let primary = refusing(true);
    if !primary.is_empty() {
        notes.push(format!(
            "the primary cannot serve this request: {}; the provider refuses every request (a client error, billed 0), but these figures price it as answering (not modelled for a primary)",
            primary.join("; ")
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}
