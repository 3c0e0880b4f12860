//! The `fallcost prices` document in every format: the table (terminal, compacted to fit its
//! width, or Markdown), CSV (one row per model) and JSON (the price table as read); and the
//! `--list` of bundled tables.

use super::{Format, layout, table};
use crate::model::{ModelPrice, PriceTable};

/// The models `shown` of `prices` (in that order; `total` in the whole table) in `format`.
///
/// Errors: a CSV or JSON serialisation failure.
pub fn render(
    prices: &PriceTable,
    shown: &[&ModelPrice],
    total: usize,
    format: Format,
) -> super::OutputResult<Vec<u8>> {
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
            let mut compacted = doc.clone();
            for section in &mut compacted.sections {
                if !table::fits(section, width) {
                    compact(section, true);
                }
            }
            if compacted.sections.iter().all(|s| table::fits(s, width)) {
                table::render_at(&compacted, table::Style::Terminal, width).into_bytes()
            } else {
                // ids whole, one line per model: the provider last, after the prices
                for section in &mut doc.sections {
                    compact(section, false);
                }
                plain(&doc, width).into_bytes()
            }
        }
        Format::Markdown => table::render(&doc, table::Style::Markdown).into_bytes(),
        Format::Json => super::json::render(prices)?,
        Format::Csv => csv(shown)?,
    })
}

/// The page for a terminal too narrow for the compacted table with whole model ids: the
/// preamble and titles as in a table, each section's columns aligned without borders (two
/// spaces apart, numbers right-aligned, a rule under the header), one line per model with its
/// id whole, never wrapped (the line may run past `width`).
fn plain(doc: &layout::Page, width: usize) -> String {
    let head = layout::Page {
        preamble: doc.preamble.clone(),
        sections: Vec::new(),
    };
    let mut out = table::render_at(&head, table::Style::Terminal, width);
    for section in &doc.sections {
        out.push('\n');
        out.push_str(&table::wrap(&section.title, width, 2));
        out.push('\n');
        let cols = |s: &str| s.chars().count();
        // a column is as wide as its widest cell or its header's longest word: a header wider
        // than the cells wraps (`cache` over `read`)
        let widths: Vec<usize> = (0..section.header.len())
            .map(|i| {
                let word = section.header[i].split(' ').map(cols).max().unwrap_or(0);
                section
                    .rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|c| cols(c))
                    .chain([word])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let header: Vec<Vec<String>> = section
            .header
            .iter()
            .zip(&widths)
            .map(|(h, &w)| table::wrap_cell(h, w).lines().map(String::from).collect())
            .collect();
        let header_lines = header.iter().map(Vec::len).max().unwrap_or(1);
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pad = " ".repeat(widths[i].saturating_sub(cols(c)));
                    if section.numeric.get(i).copied().unwrap_or(false) {
                        format!("{pad}{c}")
                    } else {
                        format!("{c}{pad}")
                    }
                })
                .collect();
            padded.join("  ").trim_end().to_string() + "\n"
        };
        for k in 0..header_lines {
            // headers sit on their last line, as in the tables
            let cells: Vec<String> = header
                .iter()
                .map(|h| {
                    let skip = header_lines - h.len();
                    if k < skip {
                        String::new()
                    } else {
                        h[k - skip].clone()
                    }
                })
                .collect();
            out.push_str(&line(&cells));
        }
        let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
        out.push_str(&line(&rule));
        for row in &section.rows {
            out.push_str(&line(row));
        }
    }
    out
}

/// The CSV: one row per model, prices in USD per million tokens.
fn csv(shown: &[&ModelPrice]) -> super::OutputResult<Vec<u8>> {
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

/// One bundled price table as `fallcost prices --list` shows it (from
/// `input::pricing::BUNDLED`, which the caller reads: output does not use `input`).
#[derive(Debug, Clone, Copy)]
pub struct ListedTable<'a> {
    /// The name `pricing` or `--pricing` gives.
    pub name: &'a str,
    /// Other names that give the table.
    pub aliases: &'a [&'a str],
    /// The date the prices were taken (ISO 8601).
    pub date: &'a str,
    /// What the table is the default for.
    pub default_for: &'a str,
    /// Where the prices come from.
    pub source: &'a str,
}

/// `fallcost prices --list`: the bundled `tables`, then `latest`: the path of the file
/// `prices --update` writes and whether it is there (`None`: no cache directory).
pub fn list(tables: &[ListedTable], latest: Option<(&std::path::Path, bool)>) -> String {
    list_at(tables, latest, super::ui::width())
}

/// [`list`] for a terminal `width` columns wide: each line wrapped at spaces, continuation
/// indented; what a table is the default for and its source each on its own indented line.
fn list_at(
    tables: &[ListedTable],
    latest: Option<(&std::path::Path, bool)>,
    width: usize,
) -> String {
    let mut out = String::from("Bundled price tables (name, date, default for, source):\n");
    let mut line = |text: String, indent: usize| {
        out.push_str(&table::wrap(&text, width, indent));
        out.push('\n');
    };
    for b in tables {
        let aliases = if b.aliases.is_empty() {
            String::new()
        } else {
            format!(" (also: {})", b.aliases.join(", "))
        };
        line(format!("  {}{aliases}  {}", b.name, b.date), 4);
        line(format!("    default for {}", b.default_for), 4);
        line(format!("    source: {}", b.source), 4);
    }
    match latest {
        Some((p, true)) => line(
            format!(
                "  latest  the file `fallcost prices --update` downloaded: {}",
                p.display()
            ),
            4,
        ),
        Some((p, false)) => line(
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
///
/// With `provider_in_id` false the provider keeps a column of its own, moved last (for the
/// layout without borders, where the id is never wrapped).
pub fn compact(section: &mut layout::Section, provider_in_id: bool) {
    let col = |name: &str| section.header.iter().position(|h| h == name);
    let (Some(model), Some(provider)) = (col("model"), col("provider")) else {
        return;
    };
    let caching: Vec<usize> = ["caching", "TTL", "min prefix"]
        .iter()
        .filter_map(|n| col(n))
        .collect();
    // the minimum prefix reads `≥2,048` in the merged cell
    let caching_prefixes: Vec<&str> = caching
        .iter()
        .map(|&i| {
            if section.header[i] == "min prefix" {
                "≥"
            } else {
                ""
            }
        })
        .collect();
    let tiers: Vec<usize> = ["long context in/out", "service tiers"]
        .iter()
        .filter_map(|n| col(n))
        .collect();
    let long = if col("long context in/out").is_some() {
        "long "
    } else {
        ""
    };
    let drop: Vec<usize> = std::iter::once(provider)
        .filter(|_| provider_in_id)
        .chain(caching.iter().skip(1).copied())
        .chain(tiers.iter().skip(1).copied())
        .collect();
    for row in &mut section.rows {
        let (id, prov) = (&row[model], &row[provider]);
        if provider_in_id
            && !prov.is_empty()
            && !id.to_lowercase().starts_with(&prov.to_lowercase())
        {
            row[model] = format!("{id} ({prov})");
        }
        if let Some(&first) = caching.first() {
            row[first] = merged(row, &caching, " ", &caching_prefixes);
        }
        if let Some(&first) = tiers.first() {
            row[first] = merged(row, &tiers, "; ", &[long, ""]);
        }
    }
    if let Some(&first) = tiers.first() {
        section.header[first] = "tiers".into();
    }
    drop_columns(section, &drop);
    if !provider_in_id {
        provider_last(section, provider);
    }
}

/// The cells `cols` of `row` in one cell, each after its `prefix`, joined by `sep`; those
/// without a value (`–`, empty) left out, `–` when none has one.
fn merged(row: &[String], cols: &[usize], sep: &str, prefix: &[&str]) -> String {
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
}

/// `section` without the columns `drop` (their header, cells and alignment).
fn drop_columns(section: &mut layout::Section, drop: &[usize]) {
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

/// Move the provider column (at `provider`: nothing before it was dropped) last.
fn provider_last(section: &mut layout::Section, provider: usize) {
    let cell = |row: &mut Vec<String>| {
        let p = row.remove(provider);
        row.push(p);
    };
    for row in &mut section.rows {
        cell(row);
    }
    cell(&mut section.header);
    let n = section.numeric.remove(provider);
    section.numeric.push(n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::pricing::BUNDLED;

    #[test]
    fn the_list_fits_80_columns_with_each_source_on_its_own_line() {
        let tables: Vec<ListedTable> = BUNDLED
            .iter()
            .map(|b| ListedTable {
                name: b.name,
                aliases: b.aliases,
                date: b.date,
                default_for: b.default_for,
                source: b.source,
            })
            .collect();
        let text = list_at(&tables, None, 80);
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
