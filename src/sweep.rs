//! The result of `fallcost sweep` ([`crate::ops::sweep`] computes it; [`crate::output::sweep`]
//! and [`crate::output::plot`] render it): one row per grid point, chain and pattern.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::figures::{
    Figure, FigureEntry, INCIDENT_FIGURES, IncidentFigures, STEADY_FIGURES, SteadyFigures,
};
use crate::model::Pattern;
use crate::report::SteadyMc;

/// One row of a sweep: one grid point, one chain, one pattern.
///
/// Its figures are `compare`'s analytic figure sets, every declared figure of each; JSON and
/// CSV name them as [`columns`] says (the incident ones `incident_KEY`).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRow {
    /// The grid point: parameter key to value (seconds for durations).
    pub point: BTreeMap<String, f64>,
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// Steady state, as `compare`'s row: USD and counts per 1,000 requests, the ratio to the
    /// primary.
    pub steady: SteadyFigures<f64>,
    /// The incident figures, as `compare`'s row (when the scenario has an incident).
    pub incident: Option<IncidentFigures<f64>>,
    /// How the incident figures were computed: absent for the closed forms, `"simulated"`
    /// with a circuit breaker (the incident simulator, fixed seed; see `compare`'s `method`).
    pub incident_method: Option<crate::report::Method>,
    /// Whether the incident figures are approximate, as `compare` says of the same point
    /// (`approximate`): analytic figures of a timeline with cuts count cold starts and
    /// fail-back writes per segment (docs/MODEL.md §6). Absent without an incident.
    pub incident_approximate: Option<bool>,
    /// With `--mc`: the steady-state Monte Carlo figures, as in `compare`'s rows (means with
    /// their 95% intervals as `KEY_ci95`, latency percentiles, policy figures).
    pub mc: Option<SteadyMc>,
}

/// One analytic figure of a sweep row as the sweep names it: a steady figure by its key, an
/// incident figure as `incident_KEY`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepColumn {
    /// The figure's declaration.
    pub figure: &'static Figure,
    /// Whether it is an incident figure.
    pub incident: bool,
}

impl SweepColumn {
    /// Its JSON key and CSV column: `KEY`, or `incident_KEY`.
    pub fn key(&self) -> String {
        if self.incident {
            format!("incident_{}", self.figure.key)
        } else {
            self.figure.key.to_string()
        }
    }

    /// Its value on `row` (`None`: does not apply there; no incident).
    pub fn value(&self, row: &SweepRow) -> Option<f64> {
        let mut value = None;
        let mut take = |fig: &'static Figure, e: FigureEntry<'_, f64>| {
            if fig.key == self.figure.key {
                value = match e {
                    FigureEntry::Figure(v) => v.copied(),
                    FigureEntry::Exact(v) => v,
                    FigureEntry::Text(_) => None,
                };
            }
        };
        match (&row.incident, self.incident) {
            (Some(i), true) => i.visit(&mut take),
            (_, false) => row.steady.visit(&mut take),
            (None, true) => {}
        }
        value
    }

    /// Where its CSV column goes ([`ColumnPlace`]).
    pub fn place(&self) -> ColumnPlace {
        let swept = self.figure.column().and_then(|c| c.sweep).is_some();
        match self.figure.csv {
            g if g > SWEEP_BASE => ColumnPlace::Added(g),
            0 if swept => ColumnPlace::First,
            _ => ColumnPlace::Rest,
        }
    }
}

/// The CSV generations the sweep's columns were laid out with ([`Figure::csv`]); each later
/// generation is appended after every column ([`ColumnPlace::Added`]).
pub const SWEEP_BASE: u8 = 1;

/// Where a figure's column goes in the sweep's CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ColumnPlace {
    /// Among the first columns, before the Monte Carlo ones and `incident_method`: the
    /// figures the first sweeps printed (generation 0, shown in the sweep table).
    First,
    /// After `incident_method`: every other figure of the sweep's generations
    /// ([`SWEEP_BASE`]), so the first ones keep their places.
    Rest,
    /// After every column of the sweep's generations (`incident_approximate` included), with
    /// the other figures of its generation, one generation after another.
    Added(u8),
}

/// Every analytic figure of the steady and incident sets ([`STEADY_FIGURES`],
/// [`INCIDENT_FIGURES`]) as sweep columns, by [`SweepColumn::place`]: first those the first sweeps
/// printed, then the others of the sweep's generations, then each later generation's; each
/// group steady first, in declaration order.
pub fn columns() -> Vec<SweepColumn> {
    let all = STEADY_FIGURES
        .iter()
        .map(|figure| SweepColumn {
            figure,
            incident: false,
        })
        .chain(INCIDENT_FIGURES.iter().map(|figure| SweepColumn {
            figure,
            incident: true,
        }))
        .filter(|c| c.figure.analytic);
    let mut columns: Vec<SweepColumn> = all.collect();
    // stable: declaration order within a place
    columns.sort_by_key(SweepColumn::place);
    columns
}

impl Serialize for SweepRow {
    /// `point`, `chain`, `pattern`, every [`columns`] figure (`null` where it does not apply),
    /// `incident_method` (when simulated), `incident_approximate` (with an incident) and `mc`
    /// (with `--mc`).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("point", &self.point)?;
        map.serialize_entry("chain", &self.chain)?;
        map.serialize_entry("pattern", &self.pattern)?;
        for c in columns() {
            map.serialize_entry(&c.key(), &c.value(self))?;
        }
        if !analytic(&self.incident_method) {
            map.serialize_entry("incident_method", &self.incident_method)?;
        }
        if let Some(a) = self.incident_approximate {
            map.serialize_entry("incident_approximate", &a)?;
        }
        if let Some(mc) = &self.mc {
            map.serialize_entry("mc", mc)?;
        }
        map.end()
    }
}

/// Whether a row's incident figures are absent or analytic (the JSON leaves the method out).
fn analytic(m: &Option<crate::report::Method>) -> bool {
    m.is_none_or(|m| m.is_analytic())
}

/// The Monte Carlo settings of a sweep, for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct McOptionsOut {
    /// Simulated requests per chain at each grid point.
    pub requests: u64,
    /// The seed (each grid point uses it as is: the same seed gives the same sweep).
    pub seed: u64,
}

/// A whole sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    /// The fallcost version.
    pub fallcost_version: &'static str,
    /// The scenario's name.
    pub scenario: String,
    /// The swept keys, in the order given.
    pub params: Vec<String>,
    /// With `--mc`: simulated requests per chain and grid point, and the seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<McOptionsOut>,
    /// Rows, grid point by grid point (the last parameter varies fastest).
    pub rows: Vec<SweepRow>,
    /// Why the blended traffic-share rows are left out, when `--chain` kept only some of a
    /// traffic-share scenario's chains (for standard error; not part of the output).
    #[serde(skip)]
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first sweeps' columns keep their places; every other analytic figure follows.
    #[test]
    fn the_first_columns_keep_their_places() {
        let keys: Vec<String> = columns().iter().map(SweepColumn::key).collect();
        assert_eq!(
            keys[..5],
            [
                "cost_per_1k_usd",
                "vs_baseline",
                "failed_per_1k",
                "incident_total_usd",
                "incident_multiplier"
            ]
        );
        let all = STEADY_FIGURES.len() + INCIDENT_FIGURES.len();
        assert_eq!(keys.len(), all);
        assert!(keys.contains(&"fallback_answers_per_1k".to_string()));
        assert_eq!(keys.last().unwrap(), "incident_refused_requests");
        assert!(
            columns()[..5]
                .iter()
                .all(|c| c.place() == ColumnPlace::First)
        );
        let n = columns().len();
        assert!(
            columns()[5..n - 2]
                .iter()
                .all(|c| c.place() == ColumnPlace::Rest)
        );
        // a figure of a later generation than the sweep's layout goes after every column, in
        // generation order
        assert_eq!(columns()[n - 2].place(), ColumnPlace::Added(2));
        assert_eq!(columns()[n - 1].place(), ColumnPlace::Added(3));
    }
}
