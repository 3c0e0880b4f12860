//! Can each fallback take a failover's load and serve its requests? The fit rules of
//! `fallcost check` (docs/MODEL.md §11; the findings' type is
//! [`crate::report::check::fit::FitProblem`]):
//!
//! - **retired / retiring**: the price table's `deprecation_date` is past (or today), or
//!   within `deprecation_days`; the message names the table's `successor_model`;
//! - **context-window**: the request profile's prompt (cached prefix + fresh input) above the
//!   model's `max_input_tokens`, or its answer above `max_output_tokens`;
//! - **capability**: a capability the requests need (`--requires tools,vision,json`) that the
//!   table says the model lacks (an error), or does not state (a note);
//! - **capacity** (with `--incident`): the first fallback of a chain takes every request of an
//!   outage of the primary's provider, at the incident's rate times the deployment's share of
//!   its step; a deployment with `rpm`/`tpm` refuses E\[(N − c)⁺\]/E\[N\] of them
//!   ([`crate::model::fit::refused_share`]), a finding above `max_refused`. A later fallback
//!   takes only what the ones before it refuse or fail, which the chain's own figures price
//!   (not judged here).
//!
//! Every rule is judged on every model of a fallback step (a LiteLLM group's deployments).

use std::collections::BTreeMap;

use super::PricedChain;
use crate::model::Request;
use crate::model::fit::{Capability, days_from, refused_share};
use crate::report::check::fit::FitProblem;
use crate::report::check::{Finding, IncidentCheck, PricedModel, Severity};

/// What the fit rules judge against.
#[derive(Debug, Clone, PartialEq)]
pub struct FitRules {
    /// The capabilities every request needs (`--requires`).
    pub requires: Vec<Capability>,
    /// A retirement within this many days is a finding (`--deprecation-days`, default 90).
    pub deprecation_days: i64,
    /// The day retirements are judged on, `YYYY-MM-DD` (`--today`, default today in UTC:
    /// [`today_day_number`]).
    pub today: String,
    /// The refused share above which a capacity finding is reported (`--max-refused`, default
    /// 0.1%).
    pub max_refused: f64,
    /// Severities by finding kind (`--severity KIND=LEVEL`), over the defaults.
    pub severity: BTreeMap<String, Severity>,
}

/// `--deprecation-days` when neither the flag nor fallcost.toml sets it.
pub const DEFAULT_DEPRECATION_DAYS: i64 = 90;
/// `--max-refused` when neither the flag nor fallcost.toml sets it: one request in 1,000.
pub const DEFAULT_MAX_REFUSED: f64 = 0.001;

impl Default for FitRules {
    fn default() -> FitRules {
        FitRules {
            requires: Vec::new(),
            deprecation_days: DEFAULT_DEPRECATION_DAYS,
            today: today(),
            max_refused: DEFAULT_MAX_REFUSED,
            severity: BTreeMap::new(),
        }
    }
}

/// A `--severity KIND=LEVEL` (or fallcost.toml `[check] severity`) entry: a fit finding kind
/// ([`crate::report::check::fit::FIT_KINDS`]) and `error`, `warning` or `note`.
///
/// Errors: another kind, or another level, naming what is allowed.
pub fn parse_severity(kind: &str, level: &str) -> Result<(String, Severity), String> {
    let kinds = crate::report::check::fit::FIT_KINDS;
    if !kinds.contains(&kind) {
        return Err(format!(
            "`{kind}` is not a finding kind whose severity can be set; one of: {}",
            kinds.join(", ")
        ));
    }
    let level = match level {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        "note" => Severity::Note,
        other => {
            return Err(format!(
                "expected `error`, `warning` or `note`; got `{other}`"
            ));
        }
    };
    Ok((kind.to_string(), level))
}

/// Today's day number in UTC (days since 1970-01-01): `SOURCE_DATE_EPOCH` (seconds, the
/// reproducible-builds convention) when set to a whole number, else the system clock.
pub fn today_day_number() -> i64 {
    if let Some(s) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        return s.div_euclid(86_400);
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| (d.as_secs() / 86_400) as i64)
}

/// Today as `YYYY-MM-DD` ([`today_day_number`]'s day): what a `deprecation_date` is held
/// against.
pub fn today() -> String {
    crate::model::fit::date_of(today_day_number())
}

/// The fit findings of `chain`'s fallbacks under `rules`, priced for `request`; capacity only
/// with `incident` (its rate is the traffic an outage sends).
pub fn judge_fit(
    chain: &PricedChain,
    request: &Request,
    rules: &FitRules,
    incident: Option<&IncidentCheck>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (k, link) in chain.links.iter().enumerate() {
        // the first fallback takes the whole failover; one reached through other steps only
        // what they pass on
        let first = k == 0 && link.via.is_empty();
        for m in &link.fallback.models {
            let mut problems = model_problems(m, request, rules);
            if first && let Some(i) = incident {
                problems.extend(capacity(m, request, rules, i));
            }
            for problem in problems {
                let severity = rules
                    .severity
                    .get(problem.kind())
                    .copied()
                    .unwrap_or_else(|| problem.default_severity());
                out.push(Finding::Fit {
                    file: link.file.clone(),
                    line: if m.line > 0 { m.line } else { link.line },
                    chain: chain.name.clone(),
                    model: m.model.clone(),
                    problem,
                    severity,
                });
            }
        }
    }
    out
}

/// One finding per (file, line, model, kind): a model several chains reach at one place is
/// reported once, for the first of them (its fit does not depend on the chain; a capacity
/// finding is a first fallback's, whichever chain it is first in).
pub fn once_per_place(findings: Vec<Finding>) -> Vec<Finding> {
    let mut seen = std::collections::BTreeSet::new();
    findings
        .into_iter()
        .filter(|f| match f {
            Finding::Fit {
                file, line, model, ..
            } => seen.insert((file.clone(), *line, model.clone(), f.kind())),
            _ => true,
        })
        .collect()
}

/// What keeps model `m` from serving `request`, whatever the traffic: retirement, context
/// window, capabilities.
fn model_problems(m: &PricedModel, request: &Request, rules: &FitRules) -> Vec<FitProblem> {
    let mut out = Vec::new();
    let fit = m.fit.clone().unwrap_or_default();
    if let Some(date) = &fit.deprecation_date
        && let Some(days) = days_from(&rules.today, date)
    {
        if days <= 0 {
            out.push(FitProblem::Retired {
                deprecation_date: date.clone(),
                days_ago: -days,
                successor: fit.successor.clone(),
            });
        } else if days <= rules.deprecation_days {
            out.push(FitProblem::Retiring {
                deprecation_date: date.clone(),
                days_left: days,
                deprecation_days: rules.deprecation_days,
                successor: fit.successor.clone(),
            });
        }
    }
    if let Some(o) = crate::model::fit::context_overflow(&fit, request) {
        out.push(FitProblem::ContextWindow {
            prompt_tokens: o.prompt_tokens,
            max_input_tokens: o.max_input_tokens,
            output_tokens: o.output_tokens,
            max_output_tokens: o.max_output_tokens,
        });
    }
    let (mut lacks, mut unknown) = (Vec::new(), Vec::new());
    for &c in &rules.requires {
        match fit.supports(c) {
            Some(true) => {}
            Some(false) => lacks.push(c),
            None => unknown.push(c),
        }
    }
    if !lacks.is_empty() || !unknown.is_empty() {
        out.push(FitProblem::Capability { lacks, unknown });
    }
    out
}

/// The capacity problem of the first fallback's model `m` in `incident`, if its rate limit
/// refuses more than `rules.max_refused` of what the outage sends it.
fn capacity(
    m: &PricedModel,
    request: &Request,
    rules: &FitRules,
    incident: &IncidentCheck,
) -> Option<FitProblem> {
    let tokens = request.tokens().ceil();
    let (limit, binds) = m.limit.per_minute(tokens as u64)?;
    let share = m.share.unwrap_or(1.0);
    let per_minute = incident.requests_per_second * 60.0 * share;
    let refused = refused_share(per_minute, limit);
    (refused > rules.max_refused).then_some(FitProblem::Capacity {
        limit_per_minute: limit,
        binds,
        arrivals_per_minute: per_minute,
        share,
        refused_share: refused,
    })
}
