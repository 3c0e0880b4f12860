//! The compare tables' figure columns and cells, walked from the figure declarations
//! ([`crate::figures`]: each figure's [`Show`](crate::figures::Show)): which figures a table
//! shows, under which header, printed how, and which have a Monte Carlo column.

use crate::figures::{Cell, Column, Figure, FigureEntry, MeanCi};
use crate::number::{change, count, money, money_adding_up, multiplier, trim};

use super::pm;

/// Which compare table a column is for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Table {
    /// A chain's own table (steady state, policy, incident).
    Chain,
    /// The blended traffic-share table.
    Blended,
    /// The `sweep` table (steady and incident figures).
    Sweep,
}

/// `fig`'s column and its header in `table`, if the table shows it.
fn shown(fig: &'static Figure, table: Table) -> Option<(&'static Column, &'static str)> {
    let c = fig.column()?;
    match table {
        Table::Chain => c.chain.then_some((c, c.header)),
        Table::Blended => c.blended.map(|h| (c, h)),
        Table::Sweep => c.sweep.map(|h| (c, h)),
    }
}

/// `fig`'s Monte Carlo column and its header in `table`, if the table shows one.
fn shown_mc(fig: &'static Figure, table: Table) -> Option<(&'static Column, &'static str)> {
    let c = fig.column()?;
    match table {
        Table::Chain => c.mc.map(|h| (c, h)),
        Table::Blended => c.blended_mc.map(|h| (c, h)),
        Table::Sweep => None,
    }
}

/// Whether a column's cells are numbers (aligned right): all but lists.
fn numeric(cell: Cell) -> bool {
    cell != Cell::List
}

/// The headers of the columns `table` shows for `figures`, in declaration order, each with
/// whether it is numeric.
pub(super) fn headers(figures: &'static [Figure], table: Table) -> Vec<(String, bool)> {
    figures
        .iter()
        .filter_map(|f| shown(f, table))
        .map(|(c, h)| (h.to_string(), numeric(c.cell)))
        .collect()
}

/// The headers of the Monte Carlo columns `table` shows for `figures`, in declaration order
/// (all numeric).
pub(super) fn mc_headers(figures: &'static [Figure], table: Table) -> Vec<String> {
    figures
        .iter()
        .filter_map(|f| shown_mc(f, table))
        .map(|(_, h)| h.to_string())
        .collect()
}

/// A number as `cell` prints it (`Total` and `Part` as money, outside a total's adding-up).
fn format(cell: Cell, x: f64) -> String {
    match cell {
        Cell::Money | Cell::Total | Cell::Part => money(x),
        Cell::Change => change(x),
        Cell::Multiplier => multiplier(x),
        Cell::Count => count(x),
        Cell::Decimals(d) => trim(x, d),
        Cell::Integer | Cell::List => trim(x, 0),
    }
}

/// One shown entry of an analytic figure set.
enum Shown {
    /// A number (`None`: does not apply).
    Number(Option<f64>),
    /// An [`Extra`](crate::figures::Extra)'s text.
    Text(String),
}

/// The cells of an analytic figure set in the columns `table` shows ([`headers`]): `visit`
/// hands out the set's entries (its `visit`). A `Total` cell is marked `sim ` when `sim`, and
/// the `Part` cells are rounded to add up to it; a `List` cell is `list(figure)`; `–` where a
/// figure does not apply.
pub(super) fn cells(
    table: Table,
    sim: bool,
    list: &dyn Fn(&'static Figure) -> String,
    visit: impl FnOnce(&mut dyn FnMut(&'static Figure, FigureEntry<'_, f64>)),
) -> Vec<String> {
    let mut entries: Vec<(Cell, &'static Figure, Shown)> = Vec::new();
    visit(&mut |fig, e| {
        if let Some((c, _)) = shown(fig, table) {
            let v = match e {
                FigureEntry::Figure(v) => Shown::Number(v.copied()),
                FigureEntry::Exact(v) => Shown::Number(v),
                FigureEntry::Text(t) => Shown::Text(t),
            };
            entries.push((c.cell, fig, v));
        }
    });
    let number = |e: &Shown| match e {
        Shown::Number(v) => *v,
        Shown::Text(_) => None,
    };
    let total = entries
        .iter()
        .find(|(c, _, _)| *c == Cell::Total)
        .and_then(|(_, _, e)| number(e));
    let parts: Vec<Option<f64>> = entries
        .iter()
        .filter(|(c, _, _)| *c == Cell::Part)
        .map(|(_, _, e)| number(e))
        .collect();
    // The printed total and parts, adding up (when every part applies).
    let added: Option<(String, Vec<String>)> = total.and_then(|t| {
        let parts: Option<Vec<f64>> = parts.iter().copied().collect();
        parts.map(|p| money_adding_up(&p, t))
    });
    let mut part = 0;
    entries
        .iter()
        .map(|(c, fig, e)| match (c, e) {
            (Cell::List, _) => list(fig),
            (Cell::Total, Shown::Number(Some(x))) => {
                let printed = added.as_ref().map_or_else(|| money(*x), |(t, _)| t.clone());
                format!("{}{printed}", if sim { "sim " } else { "" })
            }
            (Cell::Part, Shown::Number(Some(x))) => {
                part += 1;
                added
                    .as_ref()
                    .map_or_else(|| money(*x), |(_, p)| p[part - 1].clone())
            }
            (Cell::Part, _) => {
                part += 1;
                "–".into()
            }
            (_, Shown::Number(Some(x))) => format(*c, *x),
            (_, Shown::Number(None)) => "–".into(),
            (_, Shown::Text(t)) => t.clone(),
        })
        .collect()
}

/// The cells of a Monte Carlo figure set in the Monte Carlo columns `table` shows
/// ([`mc_headers`]): each mean ± the half-width of its 95% interval; `–` for a row without
/// Monte Carlo figures (`visit` is `None`) or a figure that does not apply.
pub(super) fn mc_cells<F>(
    figures: &'static [Figure],
    table: Table,
    set: Option<&F>,
    visit: impl Fn(&F, &mut dyn FnMut(&'static Figure, FigureEntry<'_, MeanCi>)),
) -> Vec<String> {
    let Some(set) = set else {
        return vec!["–".to_string(); mc_headers(figures, table).len()];
    };
    let mut cells = Vec::new();
    visit(set, &mut |fig, e| {
        if let Some((c, _)) = shown_mc(fig, table) {
            cells.push(match e {
                FigureEntry::Figure(Some(v)) => pm(v, |x| format(c.cell, x)),
                _ => "–".into(),
            });
        }
    });
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{INCIDENT_FIGURES, IncidentFigures, STEADY_FIGURES, SteadyFigures};

    fn incident(total: f64, parts: [f64; 3]) -> IncidentFigures<f64> {
        IncidentFigures {
            total_usd: total,
            normal_usd: Some(100.0),
            multiplier: None,
            window_usd: parts[0],
            cold_start_usd: parts[1],
            failback_usd: parts[2],
            failed_requests: 6.7,
            wasted_attempts: 0.0,
            wasted_usd: 0.0,
            cold_starts: 0.0,
            failback_writes: 0.0,
            excess_usd: 0.0,
            answered_requests: 293.3,
            rate_limited_attempts: 0.0,
            refused_requests: 0.0,
        }
    }

    #[test]
    fn the_tables_show_the_declared_columns() {
        let h = |figures, table| -> Vec<String> {
            headers(figures, table)
                .into_iter()
                .map(|(h, _)| h)
                .collect()
        };
        assert_eq!(
            h(STEADY_FIGURES, Table::Chain),
            ["$/1k req", "vs primary", "failed/1k", "fallback/1k"]
        );
        assert_eq!(
            h(STEADY_FIGURES, Table::Blended),
            ["$/1k req", "vs primaries", "failed/1k", "fallback/1k"]
        );
        assert_eq!(
            h(STEADY_FIGURES, Table::Sweep),
            ["$/1k req", "vs primary", "failed/1k", "fallback/1k"]
        );
        assert_eq!(
            h(INCIDENT_FIGURES, Table::Sweep),
            ["incident USD", "x normal", "answered"]
        );
        assert_eq!(
            h(INCIDENT_FIGURES, Table::Chain),
            [
                "total USD",
                "x normal",
                "window",
                "cold starts",
                "fail-back writes",
                "failed requests"
            ]
        );
        assert_eq!(
            h(INCIDENT_FIGURES, Table::Blended),
            ["incident USD", "x normal"]
        );
        assert_eq!(
            mc_headers(STEADY_FIGURES, Table::Chain),
            ["MC $/1k ± 95%", "MC failed/1k"]
        );
        assert_eq!(
            mc_headers(INCIDENT_FIGURES, Table::Chain),
            ["MC total ± 95%", "MC failed"]
        );
        assert_eq!(
            mc_headers(INCIDENT_FIGURES, Table::Blended),
            ["MC incident ± 95%"]
        );
    }

    #[test]
    fn the_parts_add_up_to_the_marked_total() {
        let f = incident(513.5832, [388.368, 54.2376, 70.9776]);
        let none = |_: &'static Figure| unreachable!("no list");
        let c = cells(Table::Chain, true, &none, |v| f.visit(v));
        assert_eq!(
            c,
            ["sim 513.58", "–", "388.37", "54.24", "70.97", "6.70"],
            "the parts add up to the total; a ratio that does not apply is –"
        );
        let c = cells(Table::Blended, false, &none, |v| f.visit(v));
        assert_eq!(c, ["513.58", "–"]);
        let c = cells(Table::Sweep, true, &none, |v| f.visit(v));
        assert_eq!(c, ["sim 513.58", "–", "293.30"]);
    }

    #[test]
    fn monte_carlo_cells_are_mean_plus_minus_half_width() {
        let est = |mean: f64, lo: f64, hi: f64| MeanCi {
            mean,
            ci95: [lo, hi],
        };
        let m = SteadyFigures {
            cost_per_1k_usd: est(12.5, 12.0, 13.0),
            baseline_per_1k_usd: None,
            vs_baseline: None,
            failed_per_1k: est(3.0, 2.5, 3.5),
            wasted_attempts_per_1k: est(0.0, 0.0, 0.0),
            wasted_per_1k_usd: est(0.0, 0.0, 0.0),
            fallback_answers_per_1k: est(4.0, 3.0, 5.0),
        };
        assert_eq!(
            mc_cells(STEADY_FIGURES, Table::Chain, Some(&m), |m, v| m.visit(v)),
            ["12.50 ± 0.5", "3 ± 0.5"]
        );
        assert_eq!(
            mc_cells(
                STEADY_FIGURES,
                Table::Chain,
                None::<&SteadyFigures<MeanCi>>,
                |m, v| m.visit(v)
            ),
            ["–", "–"],
            "a row without Monte Carlo figures"
        );
    }
}
