//! The sweep operation: recompute a scenario over a grid of parameter values, returning a
//! [`Sweep`] (its result type, in [`crate::sweep`]; rendered by [`crate::output::sweep`]).
//!
//! A parameter is any scenario key (`steady.failure_rate`, `incident.duration`,
//! `request.cache_hit_rate`, …) with a range `FROM:TO:STEP`. Numbers step as numbers; a range
//! whose bounds carry a duration unit (`30s:3h:15m`) steps in seconds and is written back as
//! `Ns`. Each grid point is the scenario with those values set (as `--set` would), validated
//! and priced like `compare`, so an out-of-range point is the same clear error.

use crate::error::ValueError;
use std::collections::BTreeMap;
use std::path::Path;

use crate::input::document::split_dotted_key;
use crate::input::duration::parse_seconds;
use crate::input::scenario;
use crate::model::Scenario;
use crate::number::round_noise;
use crate::report::Report;
use crate::sim::McOptions;
pub use crate::sweep::{McOptionsOut, Sweep, SweepRow};

/// The most grid points a sweep computes.
pub const MAX_POINTS: usize = 100_000;

/// One swept parameter: a scenario key and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The dotted scenario key as given, e.g. `steady.failure_rate` or
    /// `latency."openai/gpt-5.6-sol".p50_s` (TOML's dotted-key syntax, as `--set` reads it).
    pub key: String,
    /// The values, in order (seconds for a duration).
    pub values: Vec<f64>,
    /// Whether the values are durations (written back with an `s` unit).
    pub duration: bool,
}

impl Param {
    /// Whether `self` and `other` set the same key, however spelled (`a.b` is `"a".b`).
    pub fn same_key(&self, other: &Param) -> bool {
        split_dotted_key(&self.key).ok() == split_dotted_key(&other.key).ok()
    }

    /// Parse `KEY=FROM:TO:STEP`.
    ///
    /// Errors: a missing `=` or `:`, a bound that is not a number (or a duration), a step that
    /// is not positive, TO below FROM, or more than [`MAX_POINTS`] values.
    pub fn parse(spec: &str) -> Result<Param, ValueError> {
        let usage = "expected KEY=FROM:TO:STEP, e.g. steady.failure_rate=0:0.05:0.005 or incident.duration=30s:3h:15m";
        let (key, range) = spec
            .split_once('=')
            .ok_or_else(|| ValueError::Invalid(format!("`{spec}`: {usage}")))?;
        let parts: Vec<&str> = range.split(':').map(str::trim).collect();
        let [from, to, step] = parts[..] else {
            return Err(ValueError::Invalid(format!("`{spec}`: {usage}")));
        };
        // A bound like `30s` or `1h30m` is a duration; `nan` or `1e-3` is not.
        let duration = [from, to, step].iter().any(|p| {
            p.starts_with(|c: char| c.is_ascii_digit())
                && p.ends_with(['s', 'm', 'h', 'd'])
                && !p.contains('e')
        });
        let num = |p: &str| -> Result<f64, ValueError> {
            let v = if duration {
                parse_seconds(p).map_err(String::from)
            } else {
                p.parse::<f64>()
                    .map_err(|_| format!("`{p}` is not a number"))
            };
            v.map_err(|e| ValueError::Invalid(format!("`{spec}`: {e}; {usage}")))
        };
        let (from, to, step) = (num(from)?, num(to)?, num(step)?);
        if !(from.is_finite() && to.is_finite() && step.is_finite()) || step <= 0.0 {
            return Err(ValueError::Invalid(format!(
                "`{spec}`: STEP must be a positive finite number"
            )));
        }
        if to < from {
            return Err(ValueError::Invalid(format!(
                "`{spec}`: TO must not be below FROM"
            )));
        }
        let n = ((to - from) / step + 1e-9).floor() + 1.0;
        if n > MAX_POINTS as f64 {
            return Err(ValueError::Invalid(format!(
                "`{spec}` has {n} values; at most {MAX_POINTS}, use a larger STEP"
            )));
        }
        let values = (0..n as usize)
            .map(|i| round_noise(from + i as f64 * step))
            .collect();
        let key = key.trim();
        split_dotted_key(key).map_err(|e| ValueError::Invalid(format!("`{spec}`: {e}")))?;
        Ok(Param {
            key: key.to_string(),
            values,
            duration,
        })
    }

    /// The value as `--set` takes it.
    fn setting(&self, v: f64) -> String {
        if self.duration {
            format!("\"{v}s\"")
        } else {
            format!("{v}")
        }
    }
}

/// Run the sweep of `params` over the scenario `text` (labelled `label`, its price table
/// relative to `base`, with `prices` added: a gateway config's own prices), with `fixed`
/// overrides applied first.
///
/// Errors: the first grid point whose scenario is invalid, naming the parameter values.
#[allow(clippy::too_many_arguments)]
pub fn run(
    label: &str,
    text: &str,
    base: &Path,
    prices: &[crate::model::ModelPrice],
    fixed: &[(String, String)],
    params: &[Param],
    chains: &[String],
    mc: Option<McOptions>,
) -> crate::ops::OpsResult<Sweep> {
    let total: usize = params.iter().map(|p| p.values.len()).product();
    if total > MAX_POINTS {
        return Err(crate::ops::OpsError::TooManyPoints {
            total,
            max: MAX_POINTS,
        });
    }
    let mut rows = Vec::new();
    let mut name = String::new();
    let mut note = None;
    for index in 0..total {
        let point = grid_point(params, index);
        let mut overrides = fixed.to_vec();
        overrides.extend(
            params
                .iter()
                .zip(&point)
                .map(|(p, v)| (p.key.clone(), p.setting(*v))),
        );
        let mut scenario = point_scenario((label, text, base, prices), &overrides, params, &point)?;
        let partial = scenario::select_chains(&mut scenario, chains)?;
        let (report, simulated) = point_reports(&scenario, partial.is_some(), mc.as_ref());
        if partial.is_some() {
            note = partial;
        }
        if let Some(field) = report
            .first_non_finite()
            .or_else(|| simulated.as_ref().and_then(Report::first_non_finite))
        {
            return Err(crate::ops::OpsError::NotFinite {
                label: label.to_string(),
                field: field.to_string(),
            });
        }
        name = report.scenario.clone();
        let map: BTreeMap<String, f64> = params
            .iter()
            .zip(&point)
            .map(|(p, v)| (p.key.clone(), *v))
            .collect();
        rows.extend(point_rows(&report, simulated.as_ref(), &map));
    }
    Ok(Sweep {
        fallcost_version: env!("CARGO_PKG_VERSION"),
        scenario: name,
        params: params.iter().map(|p| p.key.clone()).collect(),
        mc: mc.map(|o| McOptionsOut {
            requests: o.requests,
            seed: o.seed,
        }),
        rows,
        note,
    })
}

/// The values of grid point `index`: mixed-radix digits, the last parameter varying fastest.
fn grid_point(params: &[Param], index: usize) -> Vec<f64> {
    let mut rest = index;
    let mut point = vec![0.0; params.len()];
    for (i, p) in params.iter().enumerate().rev() {
        point[i] = p.values[rest % p.values.len()];
        rest /= p.values.len();
    }
    point
}

/// The scenario at one grid point (`point`, the values of `params`), with `overrides` set.
///
/// Errors: the scenario is invalid there; the error names the point (and a swept value's
/// `--param`, not `--set`).
fn point_scenario(
    (label, text, base, prices): (&str, &str, &Path, &[crate::model::ModelPrice]),
    overrides: &[(String, String)],
    params: &[Param],
    point: &[f64],
) -> crate::ops::OpsResult<Scenario> {
    scenario::parse_priced(label, text, base, overrides, prices).map_err(|mut e| {
        // A swept value came from its --param, not from a --set.
        if params
            .iter()
            .any(|p| e.file.starts_with(&format!("--set {}=", p.key)))
        {
            e.file = e.file.replacen("--set", "--param", 1);
        }
        let at: Vec<String> = params
            .iter()
            .zip(point)
            .map(|(p, v)| format!("{}={v}", p.key))
            .collect();
        crate::ops::OpsError::AtGridPoint {
            error: Box::new(e),
            at: at.join(", "),
        }
    })
}

/// The analytic report of `scenario` at one grid point and, with `mc`, the simulated one
/// (blended rows left out for a `partial` choice of chains).
///
/// The Monte Carlo of a sweep is steady state only (the incident columns stay analytic): the
/// engine runs on the scenario's steady state, a report of its own, rather than on a report
/// whose input had its incident taken away.
fn point_reports(
    scenario: &Scenario,
    partial: bool,
    mc: Option<&McOptions>,
) -> (Report, Option<Report>) {
    let mut report = crate::ops::compare::analytic(scenario);
    let mut simulated = mc.map(|_| {
        crate::ops::compare::analytic(&Scenario {
            incident: None,
            ..scenario.clone()
        })
    });
    if partial {
        report.omit_blended();
        if let Some(s) = &mut simulated {
            s.omit_blended();
        }
    }
    if let (Some(opts), Some(s)) = (mc, &mut simulated) {
        crate::ops::compare::simulate(s, opts, &mut |_| {});
    }
    (report, simulated)
}

/// The sweep rows of one grid point `map`: each steady row of `report` with its incident row's
/// figures and, from `simulated`, its Monte Carlo figures.
/// Whether an analytic incident row is approximate, as compare's JSON says of it
/// (`model::incident::timeline_bound`: a timeline with cuts whose bound is not zero).
fn approximate(report: &Report, row: &crate::report::IncidentRow) -> bool {
    let (Some(inc), Some(chain)) = (
        report.input.incident.as_ref(),
        report.input.chains.iter().find(|c| c.name == row.chain),
    ) else {
        return false;
    };
    crate::model::incident::timeline_bound(
        &report.input.request,
        chain,
        &inc.for_chain(chain),
        row.pattern,
    )
    .is_some_and(|b| !b.exact())
}

fn point_rows(
    report: &Report,
    simulated: Option<&Report>,
    map: &BTreeMap<String, f64>,
) -> Vec<SweepRow> {
    report
        .steady
        .iter()
        .map(|s| {
            let incident = report
                .incident
                .iter()
                .find(|i| i.chain == s.chain && i.pattern == s.pattern);
            SweepRow {
                point: map.clone(),
                chain: s.chain.clone(),
                pattern: s.pattern,
                steady: s.analytic.clone(),
                incident: incident.map(|i| i.analytic.clone()),
                incident_method: incident.map(|i| i.method),
                incident_approximate: incident
                    .map(|i| i.method == crate::report::Method::Analytic && approximate(report, i)),
                mc: simulated.and_then(|m| {
                    m.steady
                        .iter()
                        .find(|r| r.chain == s.chain && r.pattern == s.pattern)
                        .and_then(|r| r.mc.clone())
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Pattern;

    #[test]
    fn numeric_ranges_include_both_ends() {
        let p = Param::parse("steady.failure_rate=0:0.05:0.01").unwrap();
        assert_eq!(p.values, vec![0.0, 0.01, 0.02, 0.03, 0.04, 0.05]);
        assert!(!p.duration);
        let p = Param::parse("x=1:1:1").unwrap();
        assert_eq!(p.values, vec![1.0]);
    }

    #[test]
    fn duration_ranges_step_in_seconds() {
        let p = Param::parse("incident.duration=30s:2m:30s").unwrap();
        assert_eq!(p.values, vec![30.0, 60.0, 90.0, 120.0]);
        assert!(p.duration);
        assert_eq!(p.setting(90.0), "\"90s\"");
    }

    #[test]
    fn bad_ranges_say_what_is_expected() {
        for bad in [
            "x",
            "x=1:2",
            "x=a:2:1",
            "x=0:1:0",
            "x=2:1:1",
            "x=0:1e9:1e-3",
            "x=0:1:-1",
        ] {
            let e = Param::parse(bad).unwrap_err();
            assert!(!e.to_string().is_empty(), "{bad}");
        }
        assert!(
            Param::parse("x=0:1:0")
                .unwrap_err()
                .to_string()
                .contains("STEP")
        );
    }

    /// Sweeping the primary's failure rate over the failover-chains request: sequential cost is
    /// linear in it, (1−q)·25 + q·(17.5 + 9) per 1,000 at each point.
    #[test]
    fn sweep_matches_the_closed_form_at_every_point() {
        let text = "[request]\ninput_tokens = 2000\noutput_tokens = 500\n\
                    [[chain]]\nname = \"c\"\nmodels = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n";
        // A list-valued key cannot take a number: the error names the key and the grid point.
        let p = Param::parse("steady.failure_rates=0:0.1:0.05").unwrap();
        let e = run("s.toml", text, Path::new("."), &[], &[], &[p], &[], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("steady.failure_rates") && e.contains("(at steady.failure_rates=0)"),
            "{e}"
        );
        let fixed = vec![("steady.gray_fraction".to_string(), "1".to_string())];
        let q = Param::parse("steady.failure_rate=0:0.1:0.05").unwrap();
        let sweep = run("s.toml", text, Path::new("."), &[], &fixed, &[q], &[], None).unwrap();
        assert_eq!(sweep.rows.len(), 3 * 4);
        for row in sweep
            .rows
            .iter()
            .filter(|r| r.pattern == Pattern::Sequential)
        {
            let q = row.point["steady.failure_rate"];
            // every link fails at q: (1−q)·25 + q·(17.5 + (1−q)·9 + q·6.5)
            let want = (1.0 - q) * 25.0 + q * (17.5 + (1.0 - q) * 9.0 + q * 6.5);
            assert!(
                (row.steady.cost_per_1k_usd - want).abs() < 1e-9,
                "{q}: {}",
                row.steady.cost_per_1k_usd
            );
        }
    }
}
