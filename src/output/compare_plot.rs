//! `fallcost compare --plot FILE.svg`: the posts' chart, drawn as plain SVG.
//!
//! Per chain, one panel of horizontal bars: the steady-state cost per 1,000 requests of each
//! pattern against the primary alone (a dashed line), the premium above it drawn in its own
//! colour and labelled (`+65.5%`); a pattern below the line says why (its failed requests are
//! not billed). With an incident, a second panel stacks each pattern's incident bill in its
//! parts: the window at normal prices, the cold starts, the fail-back writes, against the
//! normal bill for the same requests, with the requests that failed said in words.
//!
//! The SVG is written by hand (no plotting library): text is left to the viewer's sans-serif
//! font, so the file needs no fonts to be drawn.

use std::fmt::Write;

use crate::model::Pattern;
use crate::number::{Digits, count, money, percent};
use crate::report::Report;

/// Picture width, px.
const WIDTH: f64 = 960.0;
/// Left edge of the bars (room for the pattern names), px.
const LEFT: f64 = 170.0;
/// Right margin (room for the labels after the bars), px.
const RIGHT: f64 = 290.0;
/// One bar's height and the gap between bars, px.
const BAR: f64 = 26.0;
const GAP: f64 = 12.0;

const INK: &str = "#222222";
const MUTED: &str = "#6b6b6b";
const GRID: &str = "#e4e4e4";
/// The cost the primary alone would bill: the part of a bar up to the baseline.
const BASE: &str = "#4e79a7";
/// The premium above the primary alone.
const PREMIUM: &str = "#e15759";
/// Incident parts: the window at normal prices, cold starts, fail-back writes.
const WINDOW: &str = "#4e79a7";
const COLD: &str = "#f28e2b";
const FAILBACK: &str = "#b07aa1";

/// Text safe inside SVG.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A round step for an axis from 0 to `max` with about five ticks: 1, 2 or 5 × 10^k.
pub(crate) fn tick_step(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A tick label: whole dollars grouped, or the step's decimals.
fn tick_label(x: f64, step: f64) -> String {
    if step >= 1.0 {
        count(x.round())
    } else {
        let d = (-step.log10().floor()) as usize;
        format!("{x:.d$}")
    }
}

struct Canvas {
    svg: String,
    /// Bold labels, drawn last so they sit over the bars and the dashed reference lines.
    labels: String,
    y: f64,
}

// SVG primitives take their attributes as arguments, as the elements spell them.
#[allow(clippy::too_many_arguments)]
impl Canvas {
    fn text(&mut self, x: f64, y: f64, size: f64, fill: &str, anchor: &str, weight: &str, s: &str) {
        let element = |fill: &str, stroke: &str| {
            format!(
                r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" font-weight="{weight}"{stroke}>{}</text>"#,
                esc(s)
            )
        };
        if weight == "bold" {
            // bold labels sit over the dashed reference lines: a white halo keeps them legible,
            // drawn as a copy of the text stroked white under it (renderers that ignore
            // `paint-order` would paint a stroke on the text itself over its letters)
            let halo = element("white", r#" stroke="white" stroke-width="4""#);
            let _ = writeln!(self.labels, "{halo}\n{}", element(fill, ""));
        } else {
            let _ = writeln!(self.svg, "{}", element(fill, ""));
        }
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        if w > 0.0 {
            let _ = writeln!(
                self.svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}"/>"#
            );
        }
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, dash: bool, w: f64) {
        let dash = if dash {
            r#" stroke-dasharray="5 4""#
        } else {
            ""
        };
        let _ = writeln!(
            self.svg,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{w}"{dash}/>"#
        );
    }

    /// A vertical grid and tick labels from 0 to `max` over `rows` bars starting at `top`;
    /// returns the x scale (px per USD).
    fn axis(&mut self, top: f64, rows: usize, max: f64, unit: &str) -> f64 {
        let step = tick_step(max);
        let end = (max / step).ceil().max(1.0) * step;
        let scale = (WIDTH - LEFT - RIGHT) / end;
        let bottom = top + rows as f64 * (BAR + GAP);
        let mut t = 0.0;
        while t <= end * (1.0 + 1e-9) {
            let x = LEFT + t * scale;
            self.line(x, top - 4.0, x, bottom, GRID, false, 1.0);
            self.text(
                x,
                bottom + 16.0,
                12.0,
                MUTED,
                "middle",
                "normal",
                &tick_label(t, step),
            );
            t += step;
        }
        self.text(
            LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
            bottom + 34.0,
            12.0,
            MUTED,
            "middle",
            "normal",
            unit,
        );
        scale
    }
}

/// The patterns of one chain, in table order.
fn patterns() -> [Pattern; 4] {
    [
        Pattern::NoFallback,
        Pattern::Sequential,
        Pattern::HedgedTakeFirst,
        Pattern::HedgedNoCancel,
    ]
}

/// The chart of `report` as SVG text: per chain, the steady-state panel and, with an
/// incident, the incident panel.
pub fn compare_chart(report: &Report) -> String {
    let mut c = Canvas {
        svg: String::new(),
        labels: String::new(),
        y: 0.0,
    };
    let mut chains: Vec<&str> = Vec::new();
    for r in &report.steady {
        if !chains.contains(&r.chain.as_str()) {
            chains.push(&r.chain);
        }
    }
    c.y = 34.0;
    c.text(20.0, c.y, 20.0, INK, "start", "bold", &report.scenario);
    c.y += 22.0;
    c.text(
        20.0,
        c.y,
        13.0,
        MUTED,
        "start",
        "normal",
        &format!(
            "prices: {}; per chain, cost of each pattern against the primary alone",
            report.pricing
        ),
    );
    c.y += 20.0;
    for chain in chains {
        if !steady_bars(&mut c, report, chain) {
            continue;
        }
        incident_bars(&mut c, report, chain);
    }
    let height = c.y + 24.0;
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<rect width="100%" height="100%" fill="white"/>
{}{}</svg>
"#,
        c.svg, c.labels
    )
}

/// One panel of bars, a row per pattern, against a dashed reference line: what
/// [`bar_panel`] draws.
struct Panel<'a> {
    /// The heading above the bars.
    title: &'a str,
    /// The rows' patterns, in order.
    patterns: Vec<Pattern>,
    /// The largest value a bar reaches, USD (the axis covers it).
    max: f64,
    /// The axis's unit.
    unit: &'a str,
    /// The reference line's value, USD, and its label.
    reference: f64,
    reference_label: String,
    /// A note under the bars.
    footnote: Option<&'a str>,
    /// The colour keys under the panel.
    legend: &'a [(&'a str, &'a str)],
}

/// What a row's bar says after its end: where the label starts (USD), its text and colour.
struct BarLabel {
    at: f64,
    text: String,
    colour: &'static str,
}

/// Draw `p`: its title, axis and rows (`bar(c, row, y, scale)` draws row number `row`'s
/// bar at height `y`, `scale` px per USD, and gives its label), the reference line, the
/// footnote and the legend.
fn bar_panel(
    c: &mut Canvas,
    p: &Panel,
    mut bar: impl FnMut(&mut Canvas, usize, f64, f64) -> BarLabel,
) {
    c.text(20.0, c.y, 13.0, INK, "start", "normal", p.title);
    c.y += 32.0;
    let top = c.y + 6.0;
    let scale = c.axis(top, p.patterns.len(), p.max, p.unit);
    for (i, pattern) in p.patterns.iter().enumerate() {
        let y = top + i as f64 * (BAR + GAP);
        c.text(
            LEFT - 10.0,
            y + BAR * 0.68,
            13.0,
            INK,
            "end",
            "normal",
            pattern.as_str(),
        );
        let label = bar(c, i, y, scale);
        c.text(
            LEFT + label.at * scale + 8.0,
            y + BAR * 0.68,
            13.0,
            label.colour,
            "start",
            "bold",
            &label.text,
        );
    }
    let bottom = top + p.patterns.len() as f64 * (BAR + GAP);
    let rx = LEFT + p.reference * scale;
    c.line(rx, top - 10.0, rx, bottom - GAP + 4.0, INK, true, 1.5);
    c.text(
        rx,
        top - 14.0,
        12.0,
        INK,
        "middle",
        "normal",
        &p.reference_label,
    );
    c.y = bottom + 60.0;
    if let Some(note) = p.footnote {
        c.text(LEFT, c.y, 12.0, MUTED, "start", "normal", note);
        c.y += 18.0;
    }
    legend_row(c, p.legend);
}

/// A chain's steady-state bars: each pattern's cost per 1,000 requests, up to the primary
/// alone and the premium above it, with the primary's line; `false` when the report has no
/// steady row for `chain` (nothing drawn).
fn steady_bars(c: &mut Canvas, report: &Report, chain: &str) -> bool {
    let rows: Vec<_> = patterns()
        .iter()
        .filter_map(|p| {
            report
                .steady
                .iter()
                .find(|r| r.chain == chain && r.pattern == *p)
        })
        .collect();
    if rows.is_empty() {
        return false;
    }
    c.y += 26.0;
    c.text(
        20.0,
        c.y,
        16.0,
        INK,
        "start",
        "bold",
        &format!("Chain {chain}"),
    );
    c.y += 20.0;
    let base = rows[0].baseline();
    let max = rows
        .iter()
        .map(|r| r.analytic.cost_per_1k_usd)
        .fold(base, f64::max);
    let failed = rows.iter().any(|r| r.analytic.failed_per_1k > 0.0);
    let panel = Panel {
        title: "Steady state: USD per 1,000 requests",
        patterns: rows.iter().map(|r| r.pattern).collect(),
        max,
        unit: "USD per 1,000 requests",
        reference: base,
        reference_label: format!("primary alone ${}", money(base)),
        footnote: failed.then_some(
            "* failed requests per 1,000, not billed: a pattern that fails more can cost less",
        ),
        legend: &[
            (BASE, "up to the primary alone"),
            (PREMIUM, "premium above it"),
        ],
    };
    bar_panel(c, &panel, |c, i, y, scale| {
        let r = rows[i];
        let cost = r.analytic.cost_per_1k_usd;
        c.rect(LEFT, y, cost.min(base) * scale, BAR, BASE);
        c.rect(
            LEFT + base * scale,
            y,
            (cost - base).max(0.0) * scale,
            BAR,
            PREMIUM,
        );
        let mut label = format!("${}", money(cost));
        let mut colour = INK;
        if let Some(v) = r.analytic.vs_baseline {
            if v > 0.0005 {
                label.push_str(&format!(" · {}", percent(v, Digits::Fixed(1), true)));
                colour = PREMIUM;
            } else if v < -0.00005 || (cost < base && r.analytic.failed_per_1k > 0.0) {
                label.push_str(&format!(" · {}", percent(v, Digits::Fixed(2), false)));
            }
        }
        if r.analytic.failed_per_1k > 0.0 {
            label.push_str(&format!(" · {} failed*", count(r.analytic.failed_per_1k)));
        }
        BarLabel {
            at: cost.max(base),
            text: label,
            colour,
        }
    });
    true
}

/// A chain's incident bars: each pattern's bill for the window in its parts (window, cold
/// starts, fail-back writes), with the normal bill's line; nothing without incident rows.
fn incident_bars(c: &mut Canvas, report: &Report, chain: &str) {
    // The incident, stacked.
    let inc: Vec<_> = patterns()
        .iter()
        .filter_map(|p| {
            report
                .incident
                .iter()
                .find(|r| r.chain == chain && r.pattern == *p)
        })
        .collect();
    if inc.is_empty() {
        return;
    }
    c.y += 30.0;
    let normal = inc[0].normal();
    let max = inc
        .iter()
        .map(|r| r.analytic.total_usd)
        .fold(normal, f64::max);
    let failed = inc.iter().any(|r| r.analytic.failed_requests > 0.0);
    let panel = Panel {
        title: "Incident: USD for the whole window, in its parts",
        patterns: inc.iter().map(|r| r.pattern).collect(),
        max,
        unit: "USD",
        reference: normal,
        reference_label: format!("normal bill ${}", money(normal)),
        footnote: failed
            .then_some("* requests that failed in the window: not billed, and not answered"),
        legend: &[
            (WINDOW, "window"),
            (COLD, "cold starts"),
            (FAILBACK, "fail-back writes"),
        ],
    };
    bar_panel(c, &panel, |c, i, y, scale| {
        let r = inc[i];
        let mut x = LEFT;
        for (v, colour) in [
            (r.analytic.window_usd, WINDOW),
            (r.analytic.cold_start_usd, COLD),
            (r.analytic.failback_usd, FAILBACK),
        ] {
            c.rect(x, y, v.max(0.0) * scale, BAR, colour);
            x += v.max(0.0) * scale;
        }
        let mut label = format!("${}", money(r.analytic.total_usd));
        if let Some(m) = r.analytic.multiplier.filter(|m| *m > 0.0) {
            label.push_str(&format!(" · {m:.2}x normal"));
        }
        if r.analytic.failed_requests > 0.0 {
            label.push_str(&format!(
                " · {} failed*",
                count(r.analytic.failed_requests.round())
            ));
        }
        BarLabel {
            at: r.analytic.total_usd.max(0.0),
            text: label,
            colour: INK,
        }
    });
}

/// A row of colour keys at the canvas's current line.
fn legend_row(c: &mut Canvas, keys: &[(&str, &str)]) {
    let mut x = LEFT;
    for (colour, label) in keys {
        c.rect(x, c.y - 10.0, 14.0, 12.0, colour);
        c.text(x + 20.0, c.y, 12.0, INK, "start", "normal", label);
        x += 28.0 + 7.0 * label.chars().count() as f64;
    }
    c.y += 6.0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(69.6), 20.0);
        assert_eq!(tick_step(513.58), 200.0);
        assert_eq!(tick_step(4.0), 1.0);
        assert_eq!(tick_step(0.3), 0.1);
        assert_eq!(tick_label(1000.0, 200.0), "1,000");
        assert_eq!(tick_label(0.2, 0.1), "0.2");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
