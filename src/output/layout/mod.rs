//! What the human formats (table, Markdown) show: sections of titled tables with their cells
//! already formatted. The terminal and Markdown renderers share this layout.

use crate::model::{ModelPrice, PriceTable};
use crate::number::format_seconds;
use crate::report::MeanCi;

use crate::figures::STEADY_FIGURES;
use crate::number::{group, trim};

mod cells;
mod compare;
mod sim_notes;
mod timeline;

use cells::Table;

pub use compare::compare;
pub(crate) use sim_notes::refused_text;

/// The `sweep` table's figure columns ([`crate::figures::Column::sweep`]) and their cells.
pub(crate) fn sweep_headers(figures: &'static [crate::figures::Figure]) -> Vec<String> {
    cells::headers(figures, Table::Sweep)
        .into_iter()
        .map(|(h, _)| h)
        .collect()
}

/// The cells under [`sweep_headers`] of an analytic figure set (`None`: the row has none,
/// `–` throughout); the total marked `sim ` when `sim`.
pub(crate) fn sweep_cells<V>(
    figures: &'static [crate::figures::Figure],
    set: Option<&V>,
    sim: bool,
    visit: impl Fn(
        &V,
        &mut dyn FnMut(&'static crate::figures::Figure, crate::figures::FigureEntry<'_, f64>),
    ),
) -> Vec<String> {
    match set {
        Some(set) => cells::cells(Table::Sweep, sim, &|_| String::new(), |f| visit(set, f)),
        None => vec!["–".to_string(); sweep_headers(figures).len()],
    }
}

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

/// A page of tables: a preamble and its sections (what the table and Markdown renderers print).
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Lines at the top.
    pub preamble: Vec<String>,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// A Monte Carlo mean with its 95% interval as `mean ± half-width`, the mean printed by
/// `money_like` (`money`, `count`), the half-width to two significant digits.
fn pm(v: &MeanCi, money_like: impl Fn(f64) -> String) -> String {
    let half = (v.ci95[1] - v.ci95[0]) / 2.0;
    format!("{} ± {}", money_like(v.mean), two_significant(half))
}

/// The latency percentile columns after a steady-state table's Monte Carlo figure columns.
const LATENCY_HEADER: [&str; 3] = ["p50 s", "p95 s", "p99 s"];

/// The Monte Carlo columns of a steady-state table (a chain's, a sweep's): the steady figures'
/// declared Monte Carlo columns ([`crate::figures::STEADY_FIGURES`]), then the latency
/// percentiles.
pub(crate) fn steady_mc_header() -> Vec<String> {
    steady_mc_header_in(Table::Chain)
}

/// [`steady_mc_header`] in `table`.
fn steady_mc_header_in(table: Table) -> Vec<String> {
    let mut h = cells::mc_headers(STEADY_FIGURES, table);
    h.extend(LATENCY_HEADER.map(String::from));
    h
}

/// The cells under [`steady_mc_header`]: the simulated figures with their intervals, and the
/// latency percentiles; `–` for a row without Monte Carlo figures.
pub(crate) fn steady_mc_cells(mc: Option<&crate::report::SteadyMc>) -> Vec<String> {
    steady_mc_cells_in(Table::Chain, mc)
}

/// [`steady_mc_cells`] in `table`.
fn steady_mc_cells_in(table: Table, mc: Option<&crate::report::SteadyMc>) -> Vec<String> {
    match mc {
        Some(m) => {
            let mut cells =
                cells::mc_cells(STEADY_FIGURES, table, Some(&m.figures), |f, v| f.visit(v));
            cells.extend([m.latency_p50_s, m.latency_p95_s, m.latency_p99_s].map(seconds));
            cells
        }
        None => vec!["–".to_string(); steady_mc_header_in(table).len()],
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

fn opt_price(p: Option<f64>) -> String {
    p.map_or("–".into(), price)
}

/// A price in $/MTok: at least two decimals and up to six (`2.00`, `0.14`, `0.000001`); below
/// a millionth of a dollar, in exponent form (`1e-9`), never rounded to `0.00`.
fn price(p: f64) -> String {
    if p != 0.0 && p.abs() < 1e-6 {
        return format!("{:e}", crate::number::round_noise(p));
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
pub fn prices(table: &PriceTable) -> Page {
    let models: Vec<&ModelPrice> = table.models.values().collect();
    prices_of(table, &models)
}

/// The layout of `fallcost prices` for `models` of `table`, in that order. A column appears
/// only when a shown model has a value in it (`cache write` with no model that prices a cache
/// write is left out), as the 1-hour cache write, minimum cached prefix, long-context and
/// service-tier columns are; model, input, output and caching are always shown.
pub fn prices_of(table: &PriceTable, models: &[&ModelPrice]) -> Page {
    let mut preamble = vec![format!("Price table {}", table.name)];
    if let Some(v) = &table.verified {
        preamble.push(format!("verified {v}"));
    }
    if let Some(s) = &table.source {
        preamble.push(format!("source: {s}"));
    }
    let columns: Vec<&PriceColumn> = PRICE_COLUMNS
        .iter()
        .filter(|c| c.always || models.iter().any(|m| (c.cell)(m) != "–"))
        .collect();
    Page {
        preamble,
        sections: vec![Section {
            heading: None,
            title: "USD per 1,000,000 tokens ($/MTok)".into(),
            notes: vec![],
            header: columns.iter().map(|c| c.name.to_string()).collect(),
            numeric: columns.iter().map(|c| c.numeric).collect(),
            rows: models
                .iter()
                .map(|m| columns.iter().map(|c| (c.cell)(m)).collect())
                .collect(),
            footer: vec![],
        }],
    }
}

/// A column of the `prices` table: its header, whether it is a number, whether it is shown
/// when no model has a value in it, and a model's cell (`–`: none).
struct PriceColumn {
    name: &'static str,
    numeric: bool,
    always: bool,
    cell: fn(&ModelPrice) -> String,
}

/// The columns of the `prices` table, in order (a declarative table).
const PRICE_COLUMNS: [PriceColumn; 12] = [
    PriceColumn {
        name: "model",
        numeric: false,
        always: true,
        cell: |m| m.id.clone(),
    },
    PriceColumn {
        name: "provider",
        numeric: false,
        always: true,
        cell: |m| m.provider.clone(),
    },
    PriceColumn {
        name: "input",
        numeric: true,
        always: true,
        cell: |m| price(m.input),
    },
    PriceColumn {
        name: "cache read",
        numeric: true,
        always: false,
        cell: |m| opt_price(m.cached_input),
    },
    PriceColumn {
        name: "cache write",
        numeric: true,
        always: false,
        cell: |m| opt_price(m.cache_write),
    },
    PriceColumn {
        name: "write 1h",
        numeric: true,
        always: false,
        cell: |m| opt_price(m.cache_write_1h),
    },
    PriceColumn {
        name: "output",
        numeric: true,
        always: true,
        cell: |m| price(m.output),
    },
    PriceColumn {
        name: "caching",
        numeric: false,
        always: true,
        cell: |m| m.caching.as_str().to_string(),
    },
    PriceColumn {
        name: "TTL",
        numeric: true,
        always: false,
        cell: |m| {
            if m.caching == crate::model::Caching::None {
                "–".into()
            } else {
                format_seconds(m.cache_ttl_s)
            }
        },
    },
    PriceColumn {
        name: "min prefix",
        numeric: true,
        always: false,
        cell: |m| {
            m.min_cache_prefix
                .map_or("–".into(), |n| crate::number::group(&n.to_string()))
        },
    },
    PriceColumn {
        name: "long context in/out",
        numeric: false,
        always: false,
        cell: long_context_cell,
    },
    PriceColumn {
        name: "service tiers",
        numeric: false,
        always: false,
        cell: |m| {
            let s = m.services();
            if s.is_empty() {
                "–".into()
            } else {
                s.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")
            }
        },
    },
];

/// A model's long-context tiers as `>200k: 6.00/22.50` (input/output $/MTok above 200,000
/// tokens), comma-separated; `–` without one.
fn long_context_cell(m: &ModelPrice) -> String {
    let t = m.context_tiers();
    if t.is_empty() {
        return "–".into();
    }
    t.iter()
        .map(|n| {
            let r = |rate| m.rate_for(rate, *n as f64 + 1.0, crate::model::ServiceTier::Standard);
            format!(
                ">{}k: {}/{}",
                n / 1000,
                r(crate::model::Rate::Input).map_or("–".into(), price),
                r(crate::model::Rate::Output).map_or("–".into(), price)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::{Digits, percent};

    #[test]
    fn shares_print_three_significant_digits_without_trailing_zeros() {
        assert_eq!(percent(1.0, Digits::Significant(3), false), "100%");
        assert_eq!(percent(0.999, Digits::Significant(3), false), "99.9%");
        assert_eq!(percent(0.9659, Digits::Significant(3), false), "96.6%");
        assert_eq!(percent(0.93, Digits::Significant(3), false), "93%");
        assert_eq!(percent(0.07, Digits::Significant(3), false), "7%");
        assert_eq!(percent(0.033, Digits::Significant(3), false), "3.3%");
        assert_eq!(percent(0.0196, Digits::Significant(3), false), "1.96%");
        assert_eq!(
            percent(0.0000007217, Digits::Significant(3), false),
            "0.0000722%"
        );
        assert_eq!(percent(0.0, Digits::Significant(3), false), "0%");
        // Short of 100% never rounds up to it.
        assert_eq!(percent(0.99996, Digits::Significant(3), false), "99.996%");
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
