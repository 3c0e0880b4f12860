//! `fallcost tune --history`: a candidate's incident figures from an incident history, per
//! year, as `compare --incidents` prints them.

use std::collections::BTreeMap;

use crate::input::history::History;
use crate::model::{Pattern, Scenario};
use crate::tune::RawIncident;

/// The history's incident figures per year on the one-chain scenario `s`, per pattern: the
/// per-year totals `compare --incidents FILE` prints ([`crate::ops::history::replay`]: every
/// window of the history priced on `s`'s `[incident]` traffic, added up and divided by the
/// history's span in years), as one incident a year. Incidents of providers the chain does
/// not use cost it nothing and are left out; a chain the history never touches gets no
/// pattern (a premium of 0). `requests` is the windows' requests per year (answered and
/// failed).
///
/// Errors: as the replay's (a history that covers no time, a figure not finite).
pub(super) fn year(
    s: &Scenario,
    (history, files): &(History, Vec<String>),
) -> crate::ops::OpsResult<BTreeMap<Pattern, RawIncident>> {
    let chain = &s.chains[0];
    let providers: Vec<&str> = chain.prices().map(|p| p.provider.as_str()).collect();
    let own = History {
        incidents: history
            .incidents
            .iter()
            .filter(|i| providers.contains(&i.provider.as_str()))
            .cloned()
            .collect(),
        ..history.clone()
    };
    if own.incidents.is_empty() {
        return Ok(BTreeMap::new());
    }
    let inputs = crate::ops::history::ReplayInputs {
        files: files.clone(),
        minor_error_rate: crate::input::history::DEFAULT_MINOR_ERROR_RATE,
    };
    let report = crate::ops::history::replay(s, &own, &inputs)?;
    Ok(report
        .per_year
        .iter()
        .filter(|t| t.chain == chain.name)
        .map(|t| {
            let f = &t.figures;
            (
                t.pattern,
                RawIncident {
                    total_usd: f.total_usd,
                    requests: f.answered_requests + f.failed_requests,
                    failed_requests: f.failed_requests,
                    method: t.method.as_str(),
                    precision: t.simulated_precision,
                    total_precision: None,
                    failed_precision: None,
                },
            )
        })
        .collect())
}
