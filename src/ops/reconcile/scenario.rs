//! The scenario against the bill (`reconcile --scenario`): the chain's predicted steady cost
//! per day (the scenario's steady cost per request, sequential pattern, times the day's
//! requests) plus, on a day an incident window of `--incidents` starts, the replay's predicted
//! premium (total − normal, [`crate::ops::history::replay`]); beside the chain's billed USD,
//! with the error per day and over the period. The billed incident excess of a day is its bill
//! less its requests at the billed cost per request of the days without an incident.
//!
//! A day's requests are the exports' counts for the chain's models (a failover is counted on
//! the link that answered; a fast failure bills nothing and is not counted); where an export
//! counts none (Anthropic's usage report), they are the day's output tokens over the
//! scenario's `output_tokens` per request, and a note says so.

use crate::input::history::History;
use crate::model::{Chain, Pattern, Scenario};
use crate::ops::history::ReplayInputs;
use crate::report::reconcile::{ReconcileReport, ScenarioCheck, ScenarioDay};

/// What the scenario check is given.
pub struct ScenarioInputs<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The chain to compare (`None`: the scenario's first).
    pub chain: Option<&'a str>,
    /// The incident history and the files it came from, when given.
    pub history: Option<(&'a History, ReplayInputs)>,
}

/// Add the scenario's prediction to `report` (its rows already reconciled).
///
/// Errors: an unknown chain; no bill for the chain's models; a history the replay refuses
/// ([`crate::ops::history::replay`]).
pub fn check(report: &mut ReconcileReport, inputs: ScenarioInputs) -> crate::ops::OpsResult<()> {
    let sc = inputs.scenario;
    let chain = pick_chain(sc, inputs.chain)?;
    let models: Vec<String> = chain.links.iter().map(|l| l.price.id.clone()).collect();
    let analytic = crate::ops::compare::analytic(sc);
    let steady = analytic
        .steady
        .iter()
        .find(|r| r.chain == chain.name && r.pattern == Pattern::Sequential)
        .ok_or_else(|| crate::ops::OpsError::NoSteadyRow {
            chain: chain.name.clone(),
        })?;
    let per_request = steady.analytic.cost_per_1k_usd / 1000.0;
    let premiums = match &inputs.history {
        Some((history, replay_inputs)) => premiums(sc, chain, history, replay_inputs)?,
        None => Vec::new(),
    };
    let (mut days, derived) = billed_days(report, &models, sc);
    if days.is_empty() {
        return Err(crate::ops::OpsError::BillsNoModel {
            chain: chain.name.clone(),
            models: models.join(", "),
        });
    }
    predict(&mut days, per_request, &premiums);
    let (billed_per_request, billed_excess) = billed_excess(&mut days);
    notes(report, sc, &days, &premiums, derived);
    let billed: f64 = days.iter().map(|d| d.billed_usd).sum();
    let predicted: f64 = days.iter().map(|d| d.predicted_usd).sum();
    let premium: f64 = days.iter().map(|d| d.predicted_premium_usd).sum();
    report.scenario = Some(ScenarioCheck {
        scenario: sc.name.clone(),
        chain: chain.name.clone(),
        pattern: "sequential",
        models,
        steady_per_request_usd: per_request,
        billed_per_request_usd: billed_per_request,
        billed_usd: billed,
        predicted_usd: predicted,
        error_share: (billed > 0.0).then(|| (predicted - billed) / billed),
        predicted_premium_usd: premium,
        premium_error_share: billed_excess
            .filter(|e: &f64| e.abs() > 0.0)
            .map(|e| (premium - e) / e),
        billed_excess_usd: billed_excess,
        days,
    });
    Ok(())
}

/// The chain named `name` (`None`: the scenario's first).
///
/// Errors: no such chain (the message lists the scenario's), or a scenario without chains.
fn pick_chain<'s>(sc: &'s Scenario, name: Option<&str>) -> crate::ops::OpsResult<&'s Chain> {
    match name {
        Some(name) => sc.chains.iter().find(|c| c.name == name).ok_or_else(|| {
            crate::ops::OpsError::NoChainIn {
                name: name.to_string(),
                scenario: sc.name.clone(),
                have: sc
                    .chains
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        }),
        None => sc
            .chains
            .first()
            .ok_or_else(|| crate::ops::OpsError::NoChain {
                scenario: sc.name.clone(),
            }),
    }
}

/// The replay's predicted premium of each incident window of `history` for `chain`
/// (sequential pattern): its start day, name and premium (total − normal), USD.
///
/// Errors: a history the replay refuses.
fn premiums(
    sc: &Scenario,
    chain: &Chain,
    history: &History,
    replay_inputs: &ReplayInputs,
) -> crate::ops::OpsResult<Vec<(String, String, f64)>> {
    let mut one = sc.clone();
    one.chains.retain(|c| c.name == chain.name);
    let replay = crate::ops::history::replay(&one, history, replay_inputs)?;
    Ok(replay
        .rows
        .iter()
        .filter(|r| r.row.chain == chain.name && r.row.pattern == Pattern::Sequential)
        .map(|row| {
            (
                row.start[..10].to_string(),
                row.name.clone(),
                row.row.analytic.excess_usd,
            )
        })
        .collect())
}

/// The billed days of the chain's `models` in `report`'s rows, in the order met, with their
/// requests and billed USD; and whether some day's requests were derived from output tokens
/// (an export that counts none).
fn billed_days(
    report: &ReconcileReport,
    models: &[String],
    sc: &Scenario,
) -> (Vec<ScenarioDay>, bool) {
    let in_chain = |r: &crate::report::reconcile::BillRow| {
        r.priced_as.as_ref().is_some_and(|p| models.contains(p)) || models.contains(&r.model)
    };
    let mut days: Vec<ScenarioDay> = Vec::new();
    let mut derived = false;
    for r in report.rows.iter().filter(|r| in_chain(r)) {
        let Some(billed) = r.billed_usd else { continue };
        let requests = match r.requests {
            Some(n) => n,
            None => {
                derived = true;
                r.output_tokens / sc.request.output_tokens.max(1.0)
            }
        };
        match days.iter_mut().find(|d| d.day == r.day) {
            Some(d) => {
                d.requests += requests;
                d.billed_usd += billed;
            }
            None => days.push(ScenarioDay {
                day: r.day.clone(),
                requests,
                billed_usd: billed,
                predicted_steady_usd: 0.0,
                predicted_premium_usd: 0.0,
                predicted_usd: 0.0,
                error_share: None,
                billed_excess_usd: None,
                incidents: Vec::new(),
            }),
        }
    }
    (days, derived)
}

/// Sort `days` and fill in each day's prediction: its requests at `per_request`, plus the
/// premiums of the incidents that start that day, and its error against the bill.
fn predict(days: &mut [ScenarioDay], per_request: f64, premiums: &[(String, String, f64)]) {
    days.sort_by(|a, b| a.day.cmp(&b.day));
    for d in days {
        d.predicted_steady_usd = d.requests * per_request;
        for (day, name, premium) in premiums {
            if *day == d.day {
                d.predicted_premium_usd += premium;
                d.incidents.push(name.clone());
            }
        }
        d.predicted_usd = d.predicted_steady_usd + d.predicted_premium_usd;
        d.error_share =
            (d.billed_usd > 0.0).then(|| (d.predicted_usd - d.billed_usd) / d.billed_usd);
    }
}

/// The billed cost per request of the days without an incident, and the billed incident
/// excess over the period: each incident day's bill less its requests at that cost (set on
/// the day too). `None` without a quiet day's request.
fn billed_excess(days: &mut [ScenarioDay]) -> (Option<f64>, Option<f64>) {
    let quiet: Vec<&ScenarioDay> = days.iter().filter(|d| d.incidents.is_empty()).collect();
    let quiet_requests: f64 = quiet.iter().map(|d| d.requests).sum();
    let billed_per_request = (quiet_requests > 0.0)
        .then(|| quiet.iter().map(|d| d.billed_usd).sum::<f64>() / quiet_requests);
    let mut billed_excess = None;
    if let Some(rate) = billed_per_request {
        for d in days.iter_mut().filter(|d| !d.incidents.is_empty()) {
            let e = d.billed_usd - d.requests * rate;
            d.billed_excess_usd = Some(e);
            *billed_excess.get_or_insert(0.0) += e;
        }
    }
    (billed_per_request, billed_excess)
}

/// The report's notes on the check: incidents outside the billed days, and requests derived
/// from output tokens.
fn notes(
    report: &mut ReconcileReport,
    sc: &Scenario,
    days: &[ScenarioDay],
    premiums: &[(String, String, f64)],
    derived: bool,
) {
    let missed: Vec<&str> = premiums
        .iter()
        .filter(|(day, _, _)| !days.iter().any(|d| d.day == *day))
        .map(|(_, n, _)| n.as_str())
        .collect();
    if !missed.is_empty() {
        report.notes.push(format!(
            "incidents outside the billed days, left out: {}",
            missed.join("; ")
        ));
    }
    if derived {
        report.notes.push(format!(
            "requests of models whose export counts none (Anthropic's usage report) are their output tokens / the scenario's {} output tokens per request",
            sc.request.output_tokens
        ));
    }
}
