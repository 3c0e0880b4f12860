//! `[[incident.outage]]` (issue 14): the incident's outages on one timeline, validated into a
//! [`Timeline`], and the `--drill DURATION` shorthand.
//!
//! ```toml
//! [incident]
//! duration = "3h6m"            # the window, D
//! requests_per_second = 1.0
//! session_length = 20
//! failure = "fast"             # with outages: the failure of every outage that gives none
//!
//! [[incident.outage]]
//! provider = "anthropic"       # or model = "openai/gpt-6-sol" (exactly one of the two)
//! start = "0s"                 # offset from the window's start (default 0s)
//! duration = "3h6m"            # default: the rest of the window
//! failure = "fast"             # fast | gray | drill (default: [incident] failure)
//! error_rate = 0.5             # share of requests failed, drawn per request (default 1.0)
//! latency_factor = 2.0         # optional, > 0: a slow-but-up provider's latency multiplier
//! ```
//!
//! Without any `[[incident.outage]]` the incident is the shorthand of MODEL.md §6 (the
//! primary's provider down for the whole window with `[incident] failure`) and
//! [`Incident::timeline`](crate::model::Incident::timeline) stays `None`, so every figure is
//! unchanged. With outages, `[incident] failure` is only the default `failure` of the outages
//! that omit it.
//!
//! A `drill` outage opens the target's breaker by hand (the three-down post's step 4): no
//! attempt is made on it, so `error_rate` and `latency_factor` are refused there.

use super::super::document::{Document, PathSegment};
use super::super::duration::parse_seconds;
use super::file::{IncidentSpec, OutageSpec};
use super::key;
use crate::error::ValueError;
use crate::error::{InputError, InputErrorKind};
use crate::model::ModelError;
use crate::model::timeline::{Outage, OutageFailure, OutageTarget, Timeline};
use crate::model::{Chain, FailureMode, Incident, PriceTable, Scenario};

/// The outage's path in the file: `incident.outage[i]`, then `field` if given.
fn outage_path(i: usize, field: Option<&str>) -> Vec<PathSegment> {
    let mut path = vec![key("incident"), key("outage"), PathSegment::Index(i)];
    if let Some(f) = field {
        path.push(key(f));
    }
    path
}

/// A start offset: a duration as [`parse_seconds`] reads it, or a zero one (`0s`, `0m`).
fn parse_offset(text: &str) -> Result<f64, ValueError> {
    parse_seconds(text).or_else(|e| {
        let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(s.len());
        let (num, unit) = s.split_at(end);
        let zero =
            num.parse::<f64>() == Ok(0.0) && ["d", "h", "m", "min", "s", "ms"].contains(&unit);
        if zero {
            Ok(0.0)
        } else if e.to_string().contains("positive duration") {
            Err(ValueError::Duration(format!(
                "`{text}` is not an offset; expected 0s or a duration such as 90s, 1h or 1h20m"
            )))
        } else {
            Err(e)
        }
    })
}

/// The providers and models (by resolved id) the chains use as the file writes them, where a
/// `--set` replaced a chain's models (`tune --candidate`): an outage on one of them that no
/// chain uses now is the replacement's doing, not a typo of the file, and hits no chain (as an
/// outage of a chain `--chain` leaves out does).
#[derive(Debug, Default)]
pub(super) struct WrittenUse {
    providers: Vec<String>,
    models: Vec<String>,
}

impl WrittenUse {
    /// What the chains `written` (each chain's models as the file writes them) use, priced by
    /// `prices` (a model the table lacks is the file's own error, and left out here).
    pub(super) fn of(written: &[Option<Vec<String>>], prices: &PriceTable) -> WrittenUse {
        let mut w = WrittenUse::default();
        for p in written
            .iter()
            .flatten()
            .flatten()
            .filter_map(|m| prices.get(m))
        {
            w.providers.push(p.provider.clone());
            w.models.push(p.id.clone());
        }
        w
    }
}

/// The providers and models the chains use, sorted and without repeats.
fn used(chains: &[Chain]) -> (Vec<&str>, Vec<&str>) {
    let mut providers: Vec<&str> = chains
        .iter()
        .flat_map(|c| c.links.iter().map(|l| l.price.provider.as_str()))
        .collect();
    let mut models: Vec<&str> = chains
        .iter()
        .flat_map(|c| c.links.iter().map(|l| l.price.id.as_str()))
        .collect();
    providers.sort_unstable();
    providers.dedup();
    models.sort_unstable();
    models.dedup();
    (providers, models)
}

fn hint(word: &str, candidates: &[&str]) -> String {
    crate::suggest::nearest(word, candidates.iter().copied())
        .map_or(String::new(), |n| format!(" (did you mean `{n}`?)"))
}

/// The outage's target: exactly one of `provider` and `model`, one the chains use (or, where
/// a `--set` replaced a chain's models, one they use as `written`).
fn target(
    doc: &Document,
    i: usize,
    o: &OutageSpec,
    chains: &[Chain],
    written: Option<&WrittenUse>,
) -> Result<OutageTarget, InputError> {
    let invalid =
        |path: &[PathSegment], msg: String| doc.error_at(InputErrorKind::Invalid, path, msg);
    let (mut providers, mut models) = used(chains);
    let mut who = "the chains use";
    if let Some(w) = written {
        // what the chains use as written counts too (a target the replacement dropped)
        providers.extend(w.providers.iter().map(String::as_str));
        models.extend(w.models.iter().map(String::as_str));
        for v in [&mut providers, &mut models] {
            v.sort_unstable();
            v.dedup();
        }
        who = "the chains use (as written or now)";
    }
    match (&o.provider, &o.model) {
        (Some(_), Some(_)) => Err(invalid(
            &outage_path(i, Some("model")),
            "give `provider` (every model of it) or `model` (one model), not both".into(),
        )),
        (None, None) => Err(invalid(
            &outage_path(i, None),
            format!(
                "an outage needs `provider` (every model of it) or `model` (one model); {who} the providers {}",
                providers.join(", ")
            ),
        )),
        (Some(p), None) => {
            if providers.contains(&p.as_str()) {
                Ok(OutageTarget::Provider(p.clone()))
            } else {
                Err(invalid(
                    &outage_path(i, Some("provider")),
                    format!(
                        "no chain uses provider `{p}`{}; {who}: {}",
                        hint(p, &providers),
                        providers.join(", ")
                    ),
                ))
            }
        }
        (None, Some(m)) => {
            if models.contains(&m.as_str()) {
                Ok(OutageTarget::Model(m.clone()))
            } else {
                Err(invalid(
                    &outage_path(i, Some("model")),
                    format!(
                        "no chain uses model `{m}`{}; {who}: {} (or name a provider: {})",
                        hint(m, &models),
                        models.join(", "),
                        providers.join(", ")
                    ),
                ))
            }
        }
    }
}

/// The outage failure a shorthand `[incident] failure` stands for.
fn outage_failure(f: FailureMode) -> OutageFailure {
    match f {
        FailureMode::Fast => OutageFailure::Fast,
        FailureMode::Gray => OutageFailure::Gray,
    }
}

/// Map a [`ModelError`] onto the outage's table in the file: its field path is the
/// outage's key (`incident.outage[1].start`), its line the key's (or the table's when the
/// key is left out and defaulted).
fn timeline_error(doc: &Document, e: &ModelError) -> InputError {
    let field = e.field().unwrap_or_default();
    let message = e.to_string();
    let message = message
        .strip_prefix(&format!("{field}: "))
        .unwrap_or(&message)
        .to_string();
    let path = match e.outage() {
        None => vec![key("incident"), key("duration")],
        Some(i) => {
            let name = field.rsplit('.').next().unwrap_or_default();
            outage_path(i, Some(name))
        }
    };
    doc.error_at(InputErrorKind::Invalid, &path, message)
}

/// The incident's timeline from its `[[incident.outage]]` tables: `None` when there are none
/// (the shorthand), else the validated [`Timeline`] on the window of `duration_s` seconds.
///
/// `written`: what the chains use as the file writes them, where a `--set` replaced a chain's
/// models ([`WrittenUse`]).
///
/// Errors (exit 2, each at the outage's line and field): both or neither of `provider` and
/// `model`; a provider or model no chain uses (naming the ones they use), nor any as written; a `start` or
/// `duration` that is not a duration; `error_rate` or `latency_factor` on a drill; and every
/// [`Timeline::new`] error (outside the window, overlapping outages of one provider, an error
/// rate outside [0, 1], a latency factor not > 0).
pub(super) fn resolve(
    doc: &Document,
    spec: &IncidentSpec,
    duration_s: f64,
    chains: &[Chain],
    written: Option<&WrittenUse>,
) -> Result<Option<Timeline>, InputError> {
    if spec.outages.is_empty() {
        return Ok(None);
    }
    let invalid =
        |path: &[PathSegment], msg: String| doc.error_at(InputErrorKind::Invalid, path, msg);
    let mut outages = Vec::with_capacity(spec.outages.len());
    for (i, o) in spec.outages.iter().enumerate() {
        let target = target(doc, i, o, chains, written)?;
        let start_s = match &o.start {
            None => 0.0,
            Some(t) => parse_offset(&t.0)
                .map_err(|m| invalid(&outage_path(i, Some("start")), m.to_string()))?,
        };
        let duration_s = match &o.duration {
            None => None,
            Some(t) => Some(
                parse_seconds(&t.0)
                    .map_err(|m| invalid(&outage_path(i, Some("duration")), m.to_string()))?,
            ),
        };
        let failure = o
            .failure
            .map_or_else(|| outage_failure(spec.failure), |f| f.0);
        if failure == OutageFailure::Drill {
            for (field, given) in [
                ("error_rate", o.error_rate.is_some()),
                ("latency_factor", o.latency_factor.is_some()),
            ] {
                if given {
                    return Err(invalid(
                        &outage_path(i, Some(field)),
                        format!(
                            "a drill opens the breaker by hand: no attempt is made on the target, so it has no {field}; remove it, or use failure = \"fast\" or \"gray\""
                        ),
                    ));
                }
            }
        }
        outages.push(Outage {
            target,
            start_s,
            duration_s,
            failure,
            error_rate: o.error_rate.unwrap_or(1.0),
            latency_factor: o.latency_factor,
        });
    }
    Timeline::new(duration_s, outages)
        .map(Some)
        .map_err(|e| timeline_error(doc, &e))
}

/// `--drill DURATION`: a drill of DURATION on the primary's provider (the three-down post's
/// step 4: its breaker opened by hand, every request on the fallback), at the scenario's
/// `[incident] requests_per_second` and `session_length`. The incident becomes one outage
/// `{ provider = <primary's provider>, failure = "drill" }` over a window of DURATION, in place
/// of the scenario's own outage(s); `[incident] failure` is kept (it does not apply).
///
/// `label` names the scenario in errors. Errors: a DURATION that is not a duration; a scenario
/// without `[incident]` (what to add is said); chains whose primaries are on different
/// providers (one drill opens one provider's breaker: select chains with `--chain`); a window
/// holding no requests at that rate.
pub fn drill(scenario: &mut Scenario, duration: &str, label: &str) -> Result<(), ValueError> {
    let duration_s =
        parse_seconds(duration).map_err(|m| ValueError::Duration(format!("--drill: {m}")))?;
    let Some(incident) = &scenario.incident else {
        return Err(ValueError::Invalid(format!(
            "--drill {duration}: {label} has no [incident]; a drill needs the traffic of the hour it runs in: add an [incident] with requests_per_second (the quiet hour's rate, e.g. 0.2) and session_length (its duration is replaced by the drill's), or give them with --set incident.duration={duration} --set incident.requests_per_second=0.2 --set incident.session_length=20"
        )));
    };
    let mut primaries: Vec<&str> = scenario
        .chains
        .iter()
        .filter_map(|c| c.links.first().map(|l| l.price.provider.as_str()))
        .collect();
    primaries.sort_unstable();
    primaries.dedup();
    let provider = match primaries.as_slice() {
        [p] => p.to_string(),
        _ => {
            let per_chain: Vec<String> = scenario
                .chains
                .iter()
                .filter_map(|c| {
                    c.links
                        .first()
                        .map(|l| format!("{} ({})", c.name, l.price.provider))
                })
                .collect();
            return Err(ValueError::Invalid(format!(
                "--drill {duration}: a drill opens one provider's breaker, and the chains' primaries are on {}: {}; select chains with one primary provider with --chain NAME",
                primaries.join(", "),
                per_chain.join(", ")
            )));
        }
    };
    let n = (incident.requests_per_second * duration_s).round();
    if n < 1.0 {
        return Err(ValueError::Invalid(format!(
            "--drill {duration}: the drill holds no requests at incident.requests_per_second = {} ({} requests); lengthen the drill or raise the rate",
            super::super::show(incident.requests_per_second),
            super::super::show(incident.requests_per_second * duration_s)
        )));
    }
    if n > 1e15 {
        return Err(ValueError::Invalid(format!(
            "--drill {duration}: the drill holds {n:.3e} requests; fallcost prices at most 1e15"
        )));
    }
    let timeline = Timeline::new(
        duration_s,
        vec![Outage::new(
            OutageTarget::Provider(provider),
            0.0,
            None,
            OutageFailure::Drill,
        )],
    )
    .map_err(|e| ValueError::Invalid(format!("--drill {duration}: {e}")))?;
    scenario.incident = Some(Incident {
        duration_s,
        timeline: Some(timeline),
        ..incident.clone()
    });
    Ok(())
}
