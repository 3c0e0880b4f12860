//! SVG charts for `fallcost sweep --plot`, written by hand as plain SVG (no fonts or system
//! libraries needed; text is left to the viewer's sans-serif font).
//!
//! Small multiples: one panel per chain, a line per pattern in one colour per pattern across
//! every panel (the legend names the patterns once). Each y-axis spans the panel's own data
//! with a margin, not 0, so the differences the chart exists to show are visible; the axis
//! says where it starts. With Monte Carlo figures a second row of panels draws the p99 latency
//! the user sees. `hedged-take-first` is drawn dashed over `hedged-no-cancel`, so one never
//! hides the other. A line that falls as failures rise because its failed requests are not
//! billed is labelled so at its end, with the failed requests per 1,000.

use std::fmt::Write;

use super::compare_plot::{esc, tick_step};
use crate::model::Pattern;
use crate::number::format_seconds;
use crate::number::{count, group, trim};
use crate::sweep::{Sweep, SweepRow};

const INK: &str = "#222222";
const MUTED: &str = "#6b6b6b";
const GRID: &str = "#e8e8e8";

/// One colour per pattern, in table order (Tableau 10).
fn colour(p: Pattern) -> &'static str {
    match p {
        Pattern::NoFallback => "#9c9c9c",
        Pattern::Sequential => "#4e79a7",
        Pattern::HedgedTakeFirst => "#e15759",
        Pattern::HedgedNoCancel => "#f28e2b",
    }
}

/// Draw order: no-cancel under take-first (dashed), so both show where they coincide.
const ORDER: [Pattern; 4] = [
    Pattern::NoFallback,
    Pattern::Sequential,
    Pattern::HedgedNoCancel,
    Pattern::HedgedTakeFirst,
];

/// Panel size and the gaps around its plot area, px.
const PANEL_W: f64 = 470.0;
const PANEL_H: f64 = 320.0;
const PAD_L: f64 = 62.0;
const PAD_R: f64 = 132.0;
const PAD_T: f64 = 34.0;
const PAD_B: f64 = 76.0;

/// A value on the x-axis: durations as `30m`, others trimmed and grouped.
fn x_label(key: &str, x: f64) -> String {
    if key.ends_with("duration") {
        format_seconds(x)
    } else {
        group(&trim(x, 6))
    }
}

/// Axis bounds with round ticks: `[lo, hi]` widened to multiples of the step, with at least
/// a small span when the data are flat.
fn bounds(lo: f64, hi: f64, from_zero: bool) -> (f64, f64, f64) {
    let (lo, hi) = if from_zero { (0.0, hi) } else { (lo, hi) };
    let span = if hi - lo > hi.abs() * 1e-9 {
        hi - lo
    } else {
        hi.abs().max(1.0) * 0.02
    };
    let (lo, hi) = if hi - lo > hi.abs() * 1e-9 {
        (lo, hi)
    } else {
        (lo - span / 2.0, hi + span / 2.0)
    };
    let step = tick_step(span);
    let lo = if from_zero {
        0.0
    } else {
        (lo / step).floor() * step
    };
    let hi = (hi / step).ceil() * step;
    (lo, if hi > lo { hi } else { lo + step }, step)
}

struct Series<'a> {
    pattern: Pattern,
    points: Vec<(f64, f64, &'a SweepRow)>,
}

/// The width a line of `text` takes at `size` px in a sans-serif font, estimated at 0.62 em
/// a character (DejaVu Sans, the widest of the fonts the SVG names, averages under that).
fn text_w(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.62
}

/// A panel's plot area: where it is drawn and the data ranges its axes span.
struct Frame {
    /// The plot area's left and top edges and its width and height, px.
    px: f64,
    py: f64,
    w: f64,
    h: f64,
    /// The x range (the data's) and the y range with its tick step (round ends).
    xlo: f64,
    xhi: f64,
    ylo: f64,
    yhi: f64,
    ystep: f64,
}

impl Frame {
    /// The frame of a panel at (`x0`, `y0`) spanning the points of `series`; `None` without
    /// points.
    fn of(series: &[Series<'_>], (x0, y0): (f64, f64)) -> Option<Frame> {
        let (mut xlo, mut xhi, mut ylo, mut yhi) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y, _) in series.iter().flat_map(|s| s.points.iter()) {
            xlo = xlo.min(x);
            xhi = xhi.max(x);
            ylo = ylo.min(y);
            yhi = yhi.max(y);
        }
        if !xlo.is_finite() {
            return None;
        }
        let (xlo, xhi) = if xhi > xlo {
            (xlo, xhi)
        } else {
            (xlo - 1.0, xlo + 1.0)
        };
        let (ylo, yhi, ystep) = bounds(ylo, yhi, false);
        Some(Frame {
            px: x0 + PAD_L,
            py: y0 + PAD_T,
            w: PANEL_W - PAD_L - PAD_R,
            h: PANEL_H - PAD_T - PAD_B,
            xlo,
            xhi,
            ylo,
            yhi,
            ystep,
        })
    }

    fn sx(&self, x: f64) -> f64 {
        self.px + (x - self.xlo) / (self.xhi - self.xlo) * self.w
    }

    fn sy(&self, y: f64) -> f64 {
        self.py + self.h - (y - self.ylo) / (self.yhi - self.ylo) * self.h
    }
}

/// One panel at (`x0`, `y0`): the lines of `series`, the axes and an end label for a line
/// that falls because its failed requests are not billed. Returns the right edge of what it
/// drew, px (its end labels may reach past the panel).
fn panel(
    svg: &mut String,
    (x0, y0): (f64, f64),
    title: &str,
    key: &str,
    y_desc: &str,
    series: &[Series<'_>],
    cost: bool,
) -> f64 {
    let Some(f) = Frame::of(series, (x0, y0)) else {
        return x0;
    };
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" font-size="14" font-weight="bold" fill="{INK}">{}</text>"#,
        x0 + 8.0,
        y0 + 18.0,
        esc(title)
    );
    axes(svg, &f, x0, key, y_desc, series);
    let (ends, unbilled, right_end) = lines(svg, &f, series, cost);
    if !unbilled.is_empty() {
        for (k, line) in [
            "* falls as failures rise: failed requests are not billed".to_string(),
            format!(
                "failed per 1,000 at {}: {}",
                x_label(key, right_end),
                unbilled.join(", ")
            ),
        ]
        .iter()
        .enumerate()
        {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="11" fill="{MUTED}">{}</text>"#,
                f.px,
                f.py + f.h + 50.0 + 13.0 * k as f64,
                esc(line)
            );
        }
    }
    end_labels(svg, &f, ends)
}

/// The y grid with its labels, the x ticks (the sweep's own points when few, else about five
/// round values) and both axes' names.
fn axes(svg: &mut String, f: &Frame, x0: f64, key: &str, y_desc: &str, series: &[Series<'_>]) {
    let (px, py, w, h) = (f.px, f.py, f.w, f.h);
    let mut t = f.ylo;
    while t <= f.yhi + f.ystep * 1e-6 {
        let y = f.sy(t);
        let _ = writeln!(
            svg,
            r#"<line x1="{px:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{GRID}"/><text x="{:.1}" y="{:.1}" font-size="11" fill="{MUTED}" text-anchor="end">{}</text>"#,
            px + w,
            px - 6.0,
            y + 4.0,
            esc(&tick_text(t, f.ystep))
        );
        t += f.ystep;
    }
    for x in x_ticks(f, key, series) {
        let _ = writeln!(
            svg,
            r#"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="{MUTED}"/><text x="{0:.1}" y="{3:.1}" font-size="11" fill="{MUTED}" text-anchor="middle">{4}</text>"#,
            f.sx(x),
            py + h,
            py + h + 4.0,
            py + h + 17.0,
            esc(&x_label(key, x))
        );
    }
    let _ = writeln!(
        svg,
        r#"<line x1="{px:.1}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="{MUTED}"/><text x="{2:.1}" y="{3:.1}" font-size="11" fill="{MUTED}" text-anchor="middle">{4}</text><text x="{5:.1}" y="{6:.1}" font-size="11" fill="{MUTED}" text-anchor="middle" transform="rotate(-90 {5:.1} {6:.1})">{7}</text>"#,
        py + h,
        px + w,
        px + w / 2.0,
        py + h + 34.0,
        esc(key),
        x0 + 14.0,
        py + h / 2.0,
        esc(y_desc)
    );
}

/// The x ticks: the sweep's own points when there are six or fewer, else about five round
/// values (round durations on a duration axis).
fn x_ticks(f: &Frame, key: &str, series: &[Series<'_>]) -> Vec<f64> {
    let mut v: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() <= 6 {
        return v;
    }
    let step = if key.ends_with("duration") {
        duration_step(f.xhi - f.xlo)
    } else {
        tick_step(f.xhi - f.xlo)
    };
    let mut t = (f.xlo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= f.xhi + step * 1e-6 {
        out.push(t);
        t += step;
    }
    out
}

/// An end label: its height on the panel, its text and its colour.
type EndLabel = (f64, String, &'static str);

/// The lines of `series`; returns their end labels, the failed requests per 1,000 of the lines
/// that fall because failures are not billed (`sequential 12`), and the x they are read at.
fn lines(
    svg: &mut String,
    f: &Frame,
    series: &[Series<'_>],
    cost: bool,
) -> (Vec<EndLabel>, Vec<String>, f64) {
    let mut ends: Vec<EndLabel> = Vec::new();
    let mut unbilled: Vec<String> = Vec::new();
    let mut right_end = f.xhi;
    for s in series {
        let c = colour(s.pattern);
        let dash = if s.pattern == Pattern::HedgedTakeFirst {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let path: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y, _)| format!("{:.1},{:.1}", f.sx(x), f.sy(y)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2.2"{dash}/>"#,
            path.join(" ")
        );
        if let Some(&(x, y, row)) = s.points.last() {
            let mut label = s.pattern.as_str().to_string();
            // falling while failures rise: say why, with the failed requests
            let first = s.points.first().map_or(y, |p| p.1);
            if cost && row.steady.failed_per_1k > 0.0 && y < first - 1e-9 * first.abs() {
                label.push('*');
                unbilled.push(format!(
                    "{} {}",
                    s.pattern.as_str().trim_start_matches("hedged-"),
                    count(row.steady.failed_per_1k)
                ));
                right_end = x;
            }
            if !cost && s.pattern == Pattern::NoFallback && s.points.iter().all(|p| p.1 == 0.0) {
                label.push_str(": its requests fail, billed 0");
            }
            ends.push((f.sy(y), label, c));
        }
    }
    (ends, unbilled, right_end)
}

/// The end labels right of the plot area, pushed apart so they never overlap; returns the
/// right edge of the longest, px.
fn end_labels(svg: &mut String, f: &Frame, mut ends: Vec<EndLabel>) -> f64 {
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last = f64::NEG_INFINITY;
    let mut right = f.px + f.w;
    for (y, label, c) in ends {
        let y = y.max(last + 13.0);
        last = y;
        let x = f.px + f.w + 6.0;
        right = right.max(x + text_w(&label, 11.0));
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" font-size="11" fill="{c}">{}</text>"#,
            y + 4.0,
            esc(&label)
        );
    }
    right
}

/// A round step in seconds for a duration axis spanning `span` seconds: about six ticks at
/// 1 s … 1 day.
fn duration_step(span: f64) -> f64 {
    const STEPS: [f64; 17] = [
        1.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0,
        10800.0, 21600.0, 43200.0, 86400.0,
    ];
    STEPS
        .into_iter()
        .find(|s| span / s <= 6.0)
        .unwrap_or_else(|| tick_step(span))
}

/// A y tick: the step's decimals, whole values grouped.
fn tick_text(t: f64, step: f64) -> String {
    let d = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    group(&format!("{t:.d$}"))
}

/// Draw USD per 1,000 requests against the one swept parameter, one panel per chain and a
/// line per pattern, as SVG text; with Monte Carlo figures, a second panel per chain draws the
/// p99 latency the user sees. The drawing is as wide as its widest text: title, subtitle,
/// legend and end labels are never cut.
///
/// Errors: a sweep of more or fewer than one parameter.
pub fn cost_chart(sweep: &Sweep) -> super::OutputResult<String> {
    let [key] = &sweep.params[..] else {
        return Err(super::OutputError::PlotNeedsOneParameter {
            params: sweep.params.len(),
        });
    };
    let mut chains: Vec<&str> = Vec::new();
    for r in &sweep.rows {
        if !chains.contains(&r.chain.as_str()) {
            chains.push(&r.chain);
        }
    }
    let with_latency = sweep.rows.iter().any(|r| r.mc.is_some());
    let incident = key.starts_with("incident.") && sweep.rows.iter().all(|r| r.incident.is_some());
    let cols = chains.len().clamp(1, 2);
    let rows_of_chains = chains.len().div_ceil(cols);
    let per_chain_h = if with_latency { 2.0 * PANEL_H } else { PANEL_H };
    let top = 78.0;
    let height = top + rows_of_chains as f64 * per_chain_h + 30.0;
    let mut svg = String::new();
    let header_w = chart_header(&mut svg, sweep, key, incident, with_latency);
    let mut right = cols as f64 * PANEL_W + 10.0;
    for (i, chain) in chains.iter().enumerate() {
        let x0 = 10.0 + (i % cols) as f64 * PANEL_W;
        let y0 = top + (i / cols) as f64 * per_chain_h;
        let r = chain_panels(
            &mut svg,
            sweep,
            key,
            chain,
            (x0, y0),
            incident,
            with_latency,
        );
        right = right.max(r);
    }
    let width = (right + 10.0).max(header_w + 12.0).ceil();
    Ok(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<rect width="100%" height="100%" fill="white"/>
{svg}</svg>
"#
    ))
}

/// The chart's title (the scenario), its subtitle (what is drawn against what) and the
/// legend of the patterns, once; returns the width they take, px.
fn chart_header(svg: &mut String, sweep: &Sweep, key: &str, incident: bool, mc: bool) -> f64 {
    let title = sweep.scenario.replace("->", "→");
    let _ = writeln!(
        svg,
        r#"<text x="12" y="28" font-size="18" font-weight="bold" fill="{INK}">{}</text>"#,
        esc(&title)
    );
    let subtitle = format!(
        "{} against {key}{}; y-axes span the data, not from 0",
        if incident {
            "The incident's bill, USD,"
        } else {
            "USD per 1,000 requests"
        },
        if mc {
            ", and the p99 latency (Monte Carlo)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        svg,
        r#"<text x="12" y="48" font-size="12" fill="{MUTED}">{}</text>"#,
        esc(&subtitle)
    );
    // the legend, once: the patterns
    let mut lx = 12.0;
    let mut legend_end: f64 = lx;
    for p in [
        Pattern::NoFallback,
        Pattern::Sequential,
        Pattern::HedgedTakeFirst,
        Pattern::HedgedNoCancel,
    ] {
        let dash = if p == Pattern::HedgedTakeFirst {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" y1="64" x2="{}" y2="64" stroke="{}" stroke-width="2.5"{dash}/><text x="{}" y="68" font-size="12" fill="{INK}">{}</text>"#,
            lx + 26.0,
            colour(p),
            lx + 32.0,
            p.as_str()
        );
        legend_end = lx + 32.0 + text_w(p.as_str(), 12.0);
        lx = legend_end + 14.0;
    }
    (12.0 + text_w(&title, 18.0))
        .max(12.0 + text_w(&subtitle, 12.0))
        .max(legend_end)
}

/// A chain's panels at (`x0`, `y0`): its cost (or, sweeping the incident, the incident's bill)
/// and, with Monte Carlo figures, its p99 latency under it; returns their right edge, px.
fn chain_panels(
    svg: &mut String,
    sweep: &Sweep,
    key: &str,
    chain: &str,
    (x0, y0): (f64, f64),
    incident: bool,
    with_latency: bool,
) -> f64 {
    let series_of = |value: &dyn Fn(&SweepRow) -> Option<f64>| -> Vec<Series<'_>> {
        ORDER
            .iter()
            .map(|&p| Series {
                pattern: p,
                points: sweep
                    .rows
                    .iter()
                    .filter(|r| r.chain == chain && r.pattern == p)
                    .filter_map(|r| value(r).map(|y| (r.point[key], y, r)))
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    // Sweeping the incident: its bill is what moves.
    let cost = if incident {
        series_of(&|r| r.incident.as_ref().map(|i| i.total_usd))
    } else {
        series_of(&|r| Some(r.steady.cost_per_1k_usd))
    };
    let y_desc = if incident {
        "incident USD"
    } else {
        "USD per 1k requests"
    };
    let mut right = panel(svg, (x0, y0), chain, key, y_desc, &cost, !incident);
    if with_latency {
        let p99 = series_of(&|r| r.mc.as_ref().map(|m| m.latency_p99_s));
        let title = format!("{chain}: p99 latency");
        let r = panel(
            svg,
            (x0, y0 + PANEL_H),
            &title,
            key,
            "p99 latency, s",
            &p99,
            false,
        );
        right = right.max(r);
    }
    right
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_ticks_are_round() {
        assert_eq!(duration_step(3.0 * 3600.0), 1800.0);
        assert_eq!(duration_step(600.0), 120.0);
        assert_eq!(duration_step(30.0), 5.0);
    }

    #[test]
    fn axes_span_the_data_with_round_ends() {
        // 23.4 to 34.1: span 10.7 / 5 = 2.14, rounded up to a step of 5: from 20 to 35
        assert_eq!(bounds(23.4, 34.1, false), (20.0, 35.0, 5.0));
        assert_eq!(bounds(23.4, 34.1, true), (0.0, 40.0, 10.0));
        // flat data still get a span
        let (lo, hi, _) = bounds(25.0, 25.0, false);
        assert!(lo < 25.0 && hi > 25.0, "{lo} {hi}");
    }
}
