//! SVG line charts for `fallcost sweep --plot` (plotters, SVG backend: no fonts or system
//! libraries needed).

use plotters::prelude::*;

use crate::sweep::Sweep;

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

/// Draw USD per 1,000 requests against the one swept parameter, one line per chain and
/// pattern, as SVG text.
///
/// Errors: a sweep of more or fewer than one parameter; a drawing failure.
pub fn cost_chart(sweep: &Sweep) -> anyhow::Result<String> {
    let [key] = &sweep.params[..] else {
        anyhow::bail!(
            "--plot draws cost against one parameter; this sweep has {}",
            sweep.params.len()
        );
    };
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for row in &sweep.rows {
        let name = format!("{} / {}", row.chain, row.pattern.as_str());
        let point = (row.point[key], row.cost_per_1k_usd);
        match series.iter_mut().find(|(n, _)| *n == name) {
            Some((_, pts)) => pts.push(point),
            None => series.push((name, vec![point])),
        }
    }
    let xs = sweep.rows.iter().map(|r| r.point[key]);
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let y1 = sweep
        .rows
        .iter()
        .map(|r| r.cost_per_1k_usd)
        .fold(0.0, f64::max);
    let (x0, x1) = if x1 > x0 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    let y1 = if y1 > 0.0 { y1 * 1.08 } else { 1.0 };

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 600)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{}: cost per 1,000 requests", sweep.scenario),
                ("sans-serif", 20),
            )
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(x0..x1, 0.0..y1)?;
        chart
            .configure_mesh()
            .x_desc(key.as_str())
            .y_desc("USD per 1,000 requests")
            .draw()?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()].to_rgba();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    Ok(svg)
}
