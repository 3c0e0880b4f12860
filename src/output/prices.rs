//! The `fallcost prices` document in every format: the table (terminal, compacted to fit its
//! width, or Markdown), CSV (one row per model) and JSON (the price table as read); and the
//! `--list` of bundled tables.

use super::{Format, layout, table};
use crate::input::pricing::BUNDLED;
use crate::model::{ModelPrice, PriceTable};

/// The models `shown` of `prices` (in that order; `total` in the whole table) in `format`.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render(
    prices: &PriceTable,
    shown: &[&ModelPrice],
    total: usize,
    format: Format,
) -> anyhow::Result<Vec<u8>> {
    let mut doc = layout::prices_of(prices, shown);
    if shown.len() < total {
        doc.preamble.push(format!(
            "{} of {} models shown",
            crate::number::group(&shown.len().to_string()),
            crate::number::group(&total.to_string())
        ));
    }
    Ok(match format {
        Format::Table => {
            let width = super::ui::width();
            for section in &mut doc.sections {
                if !table::fits(section, width) {
                    compact(section);
                }
            }
            table::render_at(&doc, table::Style::Terminal, width).into_bytes()
        }
        Format::Markdown => table::render(&doc, table::Style::Markdown).into_bytes(),
        Format::Json => super::json::render(prices)?,
        Format::Csv => csv(shown)?,
    })
}

/// The CSV: one row per model, prices in USD per million tokens.
fn csv(shown: &[&ModelPrice]) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record([
        "model",
        "provider",
        "input",
        "cached_input",
        "cache_write",
        "output",
        "caching",
        "cache_ttl_s",
        // appended, so the columns before keep their places
        "cache_write_1h",
        "min_cache_prefix",
        "context_tiers_above_tokens",
        "service_tiers",
    ])?;
    for m in shown {
        w.write_record([
            super::csv::guard(&m.id),
            super::csv::guard(&m.provider),
            super::csv::num(Some(m.input)),
            super::csv::num(m.cached_input),
            super::csv::num(m.cache_write),
            super::csv::num(Some(m.output)),
            m.caching.as_str().to_string(),
            super::csv::num(Some(m.cache_ttl_s)),
            super::csv::num(m.cache_write_1h),
            m.min_cache_prefix.map_or(String::new(), |n| n.to_string()),
            m.context_tiers()
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(";"),
            m.services()
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(";"),
        ])?;
    }
    Ok(w.into_inner()?)
}

/// The message of `fallcost prices --update`: `models` downloaded to `path`.
pub fn updated(models: usize, path: &std::path::Path) -> String {
    format!(
        "fallcost: downloaded {} models to {}; use it with --pricing latest\n",
        models,
        path.display()
    )
}

/// `fallcost prices --list`: the bundled tables, and the cached `latest` when there is one.
pub fn list() -> String {
    list_at(super::ui::width())
}

/// [`list`] for a terminal `width` columns wide: each line wrapped at spaces, continuation
/// indented; what a table is the default for and its source each on its own indented line.
fn list_at(width: usize) -> String {
    let mut out = String::from("Bundled price tables (name, date, default for, source):\n");
    let mut line = |text: String, indent: usize| {
        out.push_str(&table::wrap(&text, width, indent));
        out.push('\n');
    };
    for b in BUNDLED {
        let aliases = if b.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", b.aliases.join(", "))
        };
        line(format!("  {}{aliases}  {}", b.name, b.date), 4);
        line(format!("    default for {}", b.default_for), 4);
        line(format!("    source: {}", b.source), 4);
    }
    match crate::input::update::cache_file() {
        Some(p) if p.is_file() => line(
            format!(
                "  latest  the file `fallcost prices --update` downloaded: {}",
                p.display()
            ),
            4,
        ),
        Some(p) => line(
            format!(
                "  latest  not downloaded yet (`fallcost prices --update` writes {})",
                p.display()
            ),
            4,
        ),
        None => {}
    }
    out
}

/// The price table `section` for a terminal too narrow to show it whole ([`table::fits`]):
/// the provider in the model cell (`ai21.j2-mid-v1 (bedrock)`, left out when the id starts
/// with it), caching, TTL and minimum prefix in one `caching` cell (`automatic 10m ≥2,048`),
/// and the long-context and service tiers in one `tiers` cell; so the prices stay in one
/// table (its text cells wrapped) rather than split over stacked copies of every row.
pub fn compact(section: &mut layout::Section) {
    let col = |name: &str| section.header.iter().position(|h| h == name);
    let (Some(model), Some(provider)) = (col("model"), col("provider")) else {
        return;
    };
    let caching: Vec<usize> = ["caching", "TTL", "min prefix"]
        .iter()
        .filter_map(|n| col(n))
        .collect();
    let tiers: Vec<usize> = ["long context in/out", "service tiers"]
        .iter()
        .filter_map(|n| col(n))
        .collect();
    let merged = |row: &[String], cols: &[usize], sep: &str, prefix: &[&str]| {
        let parts: Vec<String> = cols
            .iter()
            .enumerate()
            .filter(|&(_, &i)| row[i] != "–" && !row[i].is_empty())
            .map(|(k, &i)| format!("{}{}", prefix.get(k).copied().unwrap_or(""), row[i]))
            .collect();
        if parts.is_empty() {
            "–".to_string()
        } else {
            parts.join(sep)
        }
    };
    let drop: Vec<usize> = std::iter::once(provider)
        .chain(caching.iter().skip(1).copied())
        .chain(tiers.iter().skip(1).copied())
        .collect();
    for row in &mut section.rows {
        let (id, prov) = (&row[model], &row[provider]);
        if !prov.is_empty() && !id.to_lowercase().starts_with(&prov.to_lowercase()) {
            row[model] = format!("{id} ({prov})");
        }
        if let Some(&first) = caching.first() {
            let min_prefix = if caching.len() == 3 { "≥" } else { "" };
            let text = merged(row, &caching, " ", &["", "", min_prefix]);
            row[first] = text;
        }
        if let Some(&first) = tiers.first() {
            let long = if col("long context in/out").is_some() {
                "long "
            } else {
                ""
            };
            let text = merged(row, &tiers, "; ", &[long, ""]);
            row[first] = text;
        }
    }
    if let Some(&first) = tiers.first() {
        section.header[first] = "tiers".into();
    }
    let keep = |i: &usize| !drop.contains(i);
    for row in &mut section.rows {
        *row = (0..row.len())
            .filter(keep)
            .map(|i| std::mem::take(&mut row[i]))
            .collect();
    }
    section.header = (0..section.header.len())
        .filter(keep)
        .map(|i| section.header[i].clone())
        .collect();
    section.numeric = (0..section.numeric.len())
        .filter(keep)
        .map(|i| section.numeric[i])
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_fits_80_columns_with_each_source_on_its_own_line() {
        let text = list_at(80);
        for l in text.lines() {
            assert!(
                l.chars().count() <= 80,
                "{} columns: {l}\n{text}",
                l.chars().count()
            );
        }
        assert_eq!(
            text.matches("\n    source: ").count(),
            BUNDLED.len(),
            "{text}"
        );
        // nothing lost in the wrapping: every table's source, word for word
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for b in BUNDLED {
            let src: String = b.source.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(flat.contains(&src), "{src}");
        }
    }
}
