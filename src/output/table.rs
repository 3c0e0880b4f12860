//! Render a [`Document`] as terminal tables or GitHub Markdown (comfy-table).

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

use super::layout::Document;

/// Which look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Box-drawn tables for a terminal.
    Terminal,
    /// GitHub-flavoured Markdown: `##` headings and pipe tables.
    Markdown,
}

/// A Markdown table cell: `|` escaped, newlines flattened to spaces.
fn md_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\t'], " ")
}

/// Mark the numeric columns of a Markdown table right-aligned: its separator row's cells end
/// in `:` (`|------:|`), so GitHub lines up the digits.
fn right_align_markdown(table: &str, numeric: &[bool]) -> String {
    let mut lines: Vec<String> = table.lines().map(str::to_string).collect();
    if let Some(sep) = lines.get_mut(1) {
        let cells: Vec<String> = sep
            .split('|')
            .enumerate()
            .map(|(i, cell)| {
                // Cell i of the split is column i - 1 (the row starts with `|`).
                let right = i > 0 && numeric.get(i - 1).copied().unwrap_or(false);
                match cell.strip_suffix('-') {
                    Some(rest) if right => format!("{rest}:"),
                    _ => cell.to_string(),
                }
            })
            .collect();
        *sep = cells.join("|");
    }
    lines.join("\n")
}

/// Render `doc`. Column widths follow the content (never the terminal), so output is stable.
pub fn render(doc: &Document, style: Style) -> String {
    let mut out = String::new();
    let md = style == Style::Markdown;
    for line in &doc.preamble {
        if md && out.is_empty() {
            out.push_str(&format!("# {}\n\n", md_cell(line)));
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
                out.push_str(&format!("## {}\n\n", md_cell(h)));
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
        let colour = !md && super::ui::get().color_stdout;
        if colour {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        for row in &section.rows {
            if md {
                // A `|` in a name would open a new Markdown column.
                table.add_row(row.iter().map(|c| md_cell(c)));
            } else if colour {
                // A premium over the primary alone in yellow, a saving in green.
                table.add_row(row.iter().map(|c| match super::color::delta_role(c) {
                    Some(super::color::Role::Premium) => Cell::new(c).fg(Color::Yellow),
                    Some(super::color::Role::Saving) => Cell::new(c).fg(Color::Green),
                    _ => Cell::new(c),
                }));
            } else {
                table.add_row(row);
            }
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
        let text = table.to_string();
        if md {
            out.push_str(&right_align_markdown(&text, &section.numeric));
        } else {
            out.push_str(&text);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::layout::Section;

    #[test]
    fn markdown_escapes_pipes_in_cells() {
        let doc = Document {
            preamble: vec!["t".into()],
            sections: vec![Section {
                heading: None,
                title: "s".into(),
                notes: vec![],
                header: vec!["model".into(), "x".into()],
                numeric: vec![false, true],
                rows: vec![vec!["a|b".into(), "1".into()]],
                footer: vec![],
            }],
        };
        let md = render(&doc, Style::Markdown);
        assert!(md.contains("| a\\|b  | 1 |"), "{md}");
        assert!(md.contains("|-------|--:|"), "numbers right-aligned: {md}");
        let term = render(&doc, Style::Terminal);
        assert!(term.contains("a|b"), "{term}");
    }
}
