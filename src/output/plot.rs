//! SVG line charts for `fallcost sweep --plot` (plotters, SVG backend: no fonts or system
//! libraries needed).

use plotters::prelude::*;

use crate::sweep::{Sweep, SweepRow};

/// Ten colours that stay apart on white (Tableau 10).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0xba, 0xb0, 0xac),
];

/// One panel: a line per chain and pattern of `value(row)` against the swept parameter.
struct Panel {
    title: String,
    series: Vec<(String, Vec<(f64, f64)>)>,
}

fn panel(
    sweep: &Sweep,
    key: &str,
    title: String,
    value: impl Fn(&SweepRow) -> Option<f64>,
) -> Panel {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for row in &sweep.rows {
        let Some(y) = value(row) else { continue };
        let name = format!("{} / {}", row.chain, row.pattern.as_str());
        let point = (row.point[key], y);
        match series.iter_mut().find(|(n, _)| *n == name) {
            Some((_, pts)) => pts.push(point),
            None => series.push((name, vec![point])),
        }
    }
    Panel { title, series }
}

fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    key: &str,
    y_desc: &str,
    p: &Panel,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let all = p.series.iter().flat_map(|(_, pts)| pts.iter());
    let (x0, x1, y1) = all.fold(
        (f64::INFINITY, f64::NEG_INFINITY, 0.0f64),
        |(a, b, c), (x, y)| (a.min(*x), b.max(*x), c.max(*y)),
    );
    let (x0, x1) = if x1 > x0 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    let y1 = if y1 > 0.0 { y1 * 1.08 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, 0.0..y1)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .x_desc(key)
        .y_desc(y_desc)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for (i, (name, pts)) in p.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()].to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

/// Draw USD per 1,000 requests against the one swept parameter, one line per chain and
/// pattern, as SVG text; with Monte Carlo figures, a second panel below draws the p99 latency
/// the user sees.
///
/// Errors: a sweep of more or fewer than one parameter; a drawing failure.
pub fn cost_chart(sweep: &Sweep) -> anyhow::Result<String> {
    let [key] = &sweep.params[..] else {
        anyhow::bail!(
            "--plot draws cost against one parameter; this sweep has {}",
            sweep.params.len()
        );
    };
    let cost = panel(
        sweep,
        key,
        format!("{}: cost per 1,000 requests", sweep.scenario),
        |r| Some(r.cost_per_1k_usd),
    );
    let p99 = panel(
        sweep,
        key,
        format!("{}: p99 latency (Monte Carlo)", sweep.scenario),
        |r| r.mc.as_ref().map(|m| m.latency_p99_s),
    );
    let with_latency = !p99.series.is_empty();
    let height = if with_latency { 1100 } else { 600 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        if with_latency {
            let (top, bottom) = root.split_vertically(550);
            draw(&top, key, "USD per 1,000 requests", &cost)?;
            draw(&bottom, key, "p99 latency, s", &p99)?;
        } else {
            draw(&root, key, "USD per 1,000 requests", &cost)?;
        }
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(svg)
}
