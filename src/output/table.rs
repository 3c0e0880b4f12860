//! Render a [`Document`] as terminal tables or GitHub Markdown (comfy-table).

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

use super::layout::Document;

/// Which look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Box-drawn tables for a terminal.
    Terminal,
    /// GitHub-flavoured Markdown: `##` headings and pipe tables.
    Markdown,
}

/// Render `doc`. Column widths follow the content (never the terminal), so output is stable.
pub fn render(doc: &Document, style: Style) -> String {
    let mut out = String::new();
    let md = style == Style::Markdown;
    for line in &doc.preamble {
        if md && out.is_empty() {
            out.push_str(&format!("# {line}\n\n"));
        } else {
            out.push_str(line);
            out.push_str(if md { "\n\n" } else { "\n" });
        }
    }
    for section in &doc.sections {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        if let Some(h) = &section.heading {
            if md {
                out.push_str(&format!("## {h}\n\n"));
            } else {
                out.push_str(&format!("{h}\n\n"));
            }
        }
        if md {
            out.push_str(&format!("### {}\n\n", section.title));
        } else {
            out.push_str(&format!("{}\n", section.title));
        }
        for note in &section.notes {
            out.push_str(note);
            out.push_str(if md { "\n\n" } else { "\n" });
        }
        let mut table = Table::new();
        table
            .load_preset(if md {
                presets::ASCII_MARKDOWN
            } else {
                presets::UTF8_FULL_CONDENSED
            })
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(&section.header);
        for row in &section.rows {
            table.add_row(row);
        }
        for (i, numeric) in section.numeric.iter().enumerate() {
            if let Some(col) = table.column_mut(i) {
                col.set_cell_alignment(if *numeric {
                    CellAlignment::Right
                } else {
                    CellAlignment::Left
                });
            }
        }
        out.push_str(&table.to_string());
        out.push('\n');
        for line in &section.footer {
            if md {
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
