//! Render a [`Page`] as terminal tables or GitHub Markdown (comfy-table).

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

use super::layout::{Page, Section};

mod plain;

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

/// Render `doc`. Markdown is never wrapped; a terminal table fits [`super::ui::width`]
/// columns (the terminal's, else `COLUMNS`, else 80): see [`render_at`].
pub fn render(doc: &Page, style: Style) -> String {
    render_at(doc, style, width_of(style))
}

/// The width [`render`] fits a terminal table to.
fn width_of(style: Style) -> usize {
    match style {
        Style::Terminal => super::ui::width(),
        Style::Markdown => usize::MAX,
    }
}

/// [`render`] in pieces whose concatenation is its text, its first sections' text as given
/// where `ahead` has it ([`section_text`] of them, rendered ahead: their places in `doc` are
/// not read), taken as they are: a long history's rows are not copied into one string.
pub fn render_ahead_pieces(doc: &Page, style: Style, ahead: Vec<Option<String>>) -> Vec<String> {
    render_at_ahead(doc, style, width_of(style), ahead)
}

/// One section's text as [`render`] writes it in a page (apart from the blank line that may
/// come before it).
pub fn section_text(section: &Section, style: Style) -> String {
    section_at(section, style == Style::Markdown, width_of(style))
}

/// Display width of `s` in columns: one per character (the tables hold no wide characters).
fn cols(s: &str) -> usize {
    if s.is_ascii() && !s.contains('\n') {
        // one line (or none: ""), a byte a column
        return s.len();
    }
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// A footer line that starts with this is printed as it is, without it and never wrapped: a
/// command or a config to copy, which a line break would break.
pub const VERBATIM: &str = "\u{1}";

/// `text` wrapped at spaces to lines of at most `width` columns (a longer word stays whole),
/// continuation lines indented by `indent` spaces; a trailing newline is kept.
pub fn wrap(text: &str, width: usize, indent: usize) -> String {
    if cols(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        // keep a line's own leading spaces
        let lead = line.len() - line.trim_start().len();
        let pad = " ".repeat(lead);
        let mut cur = pad.clone();
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let fresh = cur.trim().is_empty();
            if !fresh && cur.chars().count() + 1 + word.chars().count() > width {
                out.push_str(&cur);
                out.push('\n');
                cur = format!("{pad}{}", " ".repeat(indent));
            }
            if !cur.trim().is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push_str(&cur);
    }
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Whether `section` fits in `width` columns as one table with every cell whole (headers may
/// wrap).
pub fn fits(section: &Section, width: usize) -> bool {
    let f = fit(section, width);
    f.groups.len() == 1
        && f.groups[0].1.iter().enumerate().all(|(k, &w)| {
            let i = f.groups[0].0[k];
            section
                .rows
                .iter()
                .filter_map(|r| r.get(i))
                .all(|c| cols(c) <= w)
        })
}

/// The width a table of columns this wide takes with [`presets::UTF8_FULL_CONDENSED`]: a
/// space either side of each cell and a border between and around them.
fn table_cols(widths: &[usize]) -> usize {
    widths.iter().map(|w| w + 3).sum::<usize>() + 1
}

/// How a section's columns are laid out to fit: the tables it is drawn as, each its
/// columns (indices into the section's) and their widths (headers wrapped to them). The key
/// columns, the leading text ones, are repeated in each table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fit {
    groups: Vec<(Vec<usize>, Vec<usize>)>,
}

/// The widths of columns `group` in `width` columns: `natural` when they fit; else the
/// columns with the most to gain narrowed first, each as far as needed and never below `min`.
fn narrow(group: &[usize], natural: &[usize], min: &[usize], width: usize) -> Vec<usize> {
    let mut widths: Vec<usize> = group.iter().map(|&i| natural[i]).collect();
    let mut order: Vec<usize> = (0..group.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(natural[group[k]] - min[group[k]]));
    for &k in &order {
        let over = table_cols(&widths).saturating_sub(width);
        if over == 0 {
            break;
        }
        widths[k] = widths[k].saturating_sub(over).max(min[group[k]]);
    }
    widths
}

/// The widths of columns `group` in `width` columns: the widest column narrowed a column at a
/// time until they fit or each is at its `min` (so wrapped text columns share the room).
fn narrow_evenly(group: &[usize], natural: &[usize], min: &[usize], width: usize) -> Vec<usize> {
    let mut widths: Vec<usize> = group.iter().map(|&i| natural[i]).collect();
    while table_cols(&widths) > width {
        let widest = (0..group.len())
            .filter(|&k| widths[k] > min[group[k]])
            .max_by_key(|&k| (widths[k], std::cmp::Reverse(k)));
        match widest {
            Some(k) => widths[k] -= 1,
            None => break,
        }
    }
    widths
}

/// The columns that name a row, repeated in each table when a section is split: any leading
/// numeric columns (a sweep's parameters) and the text columns after them (chain, pattern);
/// the first column alone when that would be every column.
fn key_columns(numeric: &[bool], n: usize) -> Vec<usize> {
    let is_num = |i: usize| numeric.get(i).copied().unwrap_or(false);
    let lead = (0..n).take_while(|&i| is_num(i)).count();
    let text = (lead..n).take_while(|&i| !is_num(i)).count();
    let end = if text == 0 { 1 } else { lead + text };
    if end >= n {
        vec![0]
    } else {
        (0..end).collect()
    }
}

/// Fit `section` in `width` columns: as it is when it fits; else headers wrapped onto more
/// lines (never narrower than a cell or a header's longest word); else the columns after the
/// leading text ones split over several tables, stacked one under the other (the Monte Carlo
/// columns under the analytic ones).
fn fit(section: &Section, width: usize) -> Fit {
    let n = section.header.len();
    let data: Vec<usize> = (0..n)
        .map(|i| {
            section
                .rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| cols(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let natural: Vec<usize> = (0..n)
        .map(|i| data[i].max(cols(&section.header[i])))
        .collect();
    let min: Vec<usize> = (0..n)
        .map(|i| data[i].max(longest_word(&section.header[i])))
        .collect();
    let all: Vec<usize> = (0..n).collect();
    let widths = narrow(&all, &natural, &min, width);
    if table_cols(&widths) <= width {
        return Fit {
            groups: vec![(all, widths)],
        };
    }
    // Next the long text cells wrap (a model id breaks after a `/`, `-` or `.`): such a
    // column may narrow to each of [`TEXT_MIN`] columns in turn (never below its header's
    // longest word).
    let mut min = min;
    for floor in TEXT_MIN {
        min = (0..n)
            .map(|i| {
                if section.numeric.get(i).copied().unwrap_or(false) || data[i] <= WRAP_OVER {
                    min[i]
                } else {
                    min[i].min(floor.max(longest_word(&section.header[i])))
                }
            })
            .collect();
        let widths = narrow_evenly(&all, &natural, &min, width);
        if table_cols(&widths) <= width {
            return Fit {
                groups: vec![(all, widths)],
            };
        }
    }
    split(section, &natural, &min, width)
}

/// The characters of the longest word of a `header`, the narrowest its column becomes.
fn longest_word(header: &str) -> usize {
    header_pieces(header)
        .iter()
        .map(|(w, _)| w.chars().count())
        .max()
        .unwrap_or(0)
}

/// `section` split over several tables in `width` columns: the key columns repeated, the rest
/// packed left to right at their `min` widths, each table then narrowed from `natural`.
fn split(section: &Section, natural: &[usize], min: &[usize], width: usize) -> Fit {
    let n = section.header.len();
    let keys = key_columns(&section.numeric, n);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = keys.clone();
    for i in keys.last().copied().unwrap_or(0) + 1..n {
        let trial: Vec<usize> = cur.iter().chain([&i]).map(|&j| min[j]).collect();
        if cur.len() > keys.len() && table_cols(&trial) > width {
            groups.push(std::mem::replace(&mut cur, keys.clone()));
        }
        cur.push(i);
    }
    if cur.len() > keys.len() {
        groups.push(cur);
    }
    Fit {
        groups: groups
            .into_iter()
            .map(|g| {
                let w = narrow(&g, natural, min, width);
                (g, w)
            })
            .collect(),
    }
}

/// The narrowest a long text column (one wider than [`WRAP_OVER`]) becomes before a section
/// is split over several tables, in columns, tried in turn: its cells wrap to it
/// ([`wrap_cell`]).
const TEXT_MIN: [usize; 2] = [18, 12];

/// A text column whose cells are at most this many columns wide (a pattern's name,
/// `hedged-take-first`) is never wrapped: the section is split instead.
const WRAP_OVER: usize = 18;

/// A cell's `text` wrapped to lines of at most `width` columns: at spaces, else after a `/`,
/// `-`, `.`, `:` or `@` (a model id breaks between its parts), else mid-word; a line that fits
/// is left alone.
pub fn wrap_cell(text: &str, width: usize) -> String {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut cur = String::new();
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let wlen = word.chars().count();
            let clen = cur.chars().count();
            if !cur.is_empty() && clen + 1 + wlen <= width {
                cur.push(' ');
                cur.push_str(word);
                continue;
            }
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            // the word alone, broken into pieces of at most `width`
            let chars: Vec<char> = word.chars().collect();
            let mut start = 0;
            while chars.len() - start > width {
                let window = &chars[start..start + width];
                // after a `/` best, else `-`, `_`, `:`, `@`, else a `.` not inside a number
                let after = |ok: &dyn Fn(usize) -> bool| {
                    (1..window.len()).rev().find(|&k| ok(k)).map(|k| k + 1)
                };
                let digit = |k: usize| chars.get(start + k + 1).is_some_and(char::is_ascii_digit);
                let cut = after(&|k| window[k] == '/')
                    .or_else(|| after(&|k| matches!(window[k], '-' | '_' | ':' | '@')))
                    .or_else(|| after(&|k| window[k] == '.' && !digit(k)))
                    .unwrap_or(width);
                out.push(chars[start..start + cut].iter().collect());
                start += cut;
            }
            cur = chars[start..].iter().collect();
        }
        out.push(cur);
    }
    out.join("\n")
}

/// A header's pieces where it may break: at spaces, and after a dot inside a word (a dotted
/// key such as `steady.failure_rate` breaks as `steady.` / `failure_rate`). Each piece says
/// whether a space stood before it.
fn header_pieces(header: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for word in header.split_whitespace() {
        // a dot before a letter or a quote (a key's part), not inside a number (`5.6`)
        let breaks: Vec<usize> = word
            .char_indices()
            .filter(|&(i, c)| {
                c == '.' && word[i + 1..].starts_with(|n: char| n.is_ascii_alphabetic() || n == '"')
            })
            .map(|(i, _)| i + 1)
            .collect();
        let mut start = 0;
        for (k, end) in breaks.into_iter().chain([word.len()]).enumerate() {
            out.push((word[start..end].to_string(), k == 0));
            start = end;
        }
    }
    out
}

/// `header` wrapped to `width` columns at its pieces ([`header_pieces`]).
fn wrap_header(header: &str, width: usize) -> String {
    if cols(header) <= width {
        return header.to_string();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (piece, spaced) in header_pieces(header) {
        let sep = if spaced && !cur.is_empty() { " " } else { "" };
        if !cur.is_empty() && cur.chars().count() + sep.len() + piece.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
            cur.push_str(&piece);
        } else {
            cur.push_str(sep);
            cur.push_str(&piece);
        }
    }
    lines.push(cur);
    lines.join("\n")
}

/// Render `doc` for a terminal `width` columns wide (Markdown: any width, never wrapped). The
/// sections, and each section's tables, are rendered in parallel and joined in order (a long
/// history's rows: 141,744 of them in a few tables; issue 33 item 6): the same text on any
/// thread count.
pub fn render_at(doc: &Page, style: Style, width: usize) -> String {
    render_at_ahead(doc, style, width, Vec::new()).concat()
}

/// [`render_at`] in pieces (their concatenation is its text), the sections `ahead` holds the
/// text of taken as they are.
fn render_at_ahead(
    doc: &Page,
    style: Style,
    width: usize,
    mut ahead: Vec<Option<String>>,
) -> Vec<String> {
    use rayon::prelude::*;
    let mut out = String::new();
    let md = style == Style::Markdown;
    let prose = |line: &str| {
        if md {
            line.to_string()
        } else {
            wrap(line, width, 2)
        }
    };
    for line in &doc.preamble {
        if md && out.is_empty() {
            out.push_str(&format!("# {}\n\n", md_cell(line)));
        } else {
            out.push_str(&prose(line));
            out.push_str(if md { "\n\n" } else { "\n" });
        }
    }
    ahead.resize(doc.sections.len(), None);
    let texts: Vec<String> = doc
        .sections
        .par_iter()
        .zip(ahead)
        .map(|(section, ahead)| ahead.unwrap_or_else(|| section_at(section, md, width)))
        .collect();
    // the pieces: the preamble, then each section's text with the new line before it (where
    // the text so far does not end in a blank line) at the end of the piece before
    let mut pieces: Vec<String> = Vec::with_capacity(texts.len() + 1);
    // the last two bytes of the text so far
    let mut tail = [0u8; 2];
    let note = |tail: &mut [u8; 2], s: &str| {
        for &b in &s.as_bytes()[s.len().saturating_sub(2)..] {
            *tail = [tail[1], b];
        }
    };
    note(&mut tail, &out);
    for text in texts {
        if tail != *b"\n\n" {
            out.push('\n');
            note(&mut tail, "\n");
        }
        note(&mut tail, &text);
        pieces.push(std::mem::replace(&mut out, text));
    }
    pieces.push(out);
    pieces
}

/// One section of [`render_at`]: its heading, title, notes, tables (one per group of columns
/// that fits `width`, rendered in parallel) and footer.
fn section_at(section: &Section, md: bool, width: usize) -> String {
    use rayon::prelude::*;
    let prose = |line: &str| {
        if md {
            line.to_string()
        } else {
            wrap(line, width, 2)
        }
    };
    let mut out = String::new();
    if let Some(h) = &section.heading {
        if md {
            out.push_str(&format!("## {}\n\n", md_cell(h)));
        } else {
            out.push_str(&format!("{}\n\n", prose(h)));
        }
    }
    if md {
        out.push_str(&format!("### {}\n\n", section.title));
    } else {
        out.push_str(&format!("{}\n", prose(&section.title)));
    }
    for note in &section.notes {
        out.push_str(&prose(note));
        out.push_str(if md { "\n\n" } else { "\n" });
    }
    let layout = if md {
        Fit {
            groups: vec![((0..section.header.len()).collect(), Vec::new())],
        }
    } else {
        fit(section, width)
    };
    // a section with no rows prints its title, notes and footer but no empty table
    let groups = if section.rows.is_empty() {
        &[][..]
    } else {
        &layout.groups[..]
    };
    let tables: Vec<String> = groups
        .par_iter()
        .map(|(group, widths)| {
            let text = table_of(section, group, widths, md);
            if md {
                let numeric: Vec<bool> = group
                    .iter()
                    .map(|&i| section.numeric.get(i).copied().unwrap_or(false))
                    .collect();
                right_align_markdown(&text, &numeric)
            } else {
                text
            }
        })
        .collect();
    out.reserve(tables.iter().map(|t| t.len() + 1).sum());
    for text in tables {
        out.push_str(&text);
        out.push('\n');
    }
    for line in &section.footer {
        if md {
            out.push('\n');
        }
        match line.strip_prefix(VERBATIM) {
            Some(v) => out.push_str(v),
            None => out.push_str(&prose(line)),
        }
        out.push('\n');
    }
    out
}

/// The cells of `row` in the columns `group`, each wider than its column's width (where
/// `width_of` has one) wrapped inside it.
fn cells_of<'a>(
    row: &'a [String],
    group: &[usize],
    width_of: &[Option<usize>],
) -> Vec<std::borrow::Cow<'a, str>> {
    let mut out = Vec::with_capacity(group.len());
    cells_into(row, group, width_of, &mut out);
    out
}

/// [`cells_of`] pushed onto `out`.
fn cells_into<'a>(
    row: &'a [String],
    group: &[usize],
    width_of: &[Option<usize>],
    out: &mut Vec<std::borrow::Cow<'a, str>>,
) {
    out.extend(group.iter().zip(width_of).map(|(&i, w)| {
        let cell = row.get(i).map_or("", String::as_str);
        match w {
            // never wider than its bytes
            Some(w) if cell.len() > *w && cols(cell) > *w => {
                std::borrow::Cow::Owned(wrap_cell(cell, *w))
            }
            _ => std::borrow::Cow::Borrowed(cell),
        }
    }));
}

/// One table of `section`'s columns `group`, headers wrapped to `widths` (one per column of
/// the group; none for Markdown). Uncoloured terminal tables of narrow text are drawn by
/// [`plain::boxed`], the others by comfy-table: the same text.
fn table_of(section: &Section, group: &[usize], widths: &[usize], md: bool) -> String {
    let header: Vec<String> = group
        .iter()
        .enumerate()
        .map(|(k, &i)| match widths.get(k) {
            Some(&w) if !md => wrap_header(&section.header[i], w),
            _ => section.header[i].clone(),
        })
        .collect();
    let colour = !md && super::ui::get().color_stdout;
    // Text cells wider than their column wrap inside it (numbers never do: they set the
    // column's narrowest width); the group's cells only
    let width_of: Vec<Option<usize>> = (0..group.len())
        .map(|k| if md { None } else { widths.get(k).copied() })
        .collect();
    let right: Vec<bool> = group
        .iter()
        .map(|&i| section.numeric.get(i).copied().unwrap_or(false))
        .collect();
    if !md && !colour {
        // every row's cells in one list, a row after another (no list per row)
        let mut cells = Vec::with_capacity(section.rows.len() * group.len());
        for r in &section.rows {
            cells_into(r, group, &width_of, &mut cells);
        }
        if let Some(text) = plain::boxed(&header, &cells, &right) {
            return text;
        }
    }
    let mut table = Table::new();
    table
        .load_preset(if md {
            presets::ASCII_MARKDOWN
        } else {
            presets::UTF8_FULL_CONDENSED
        })
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    if colour {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    for row in &section.rows {
        let cells = cells_of(row, group, &width_of).into_iter();
        if md {
            // A `|` in a name would open a new Markdown column.
            table.add_row(cells.map(|c| md_cell(&c)));
        } else if colour {
            // A premium over the primary alone in yellow, a saving in green.
            table.add_row(cells.map(|c| match super::color::delta_role(&c) {
                Some(super::color::Role::Premium) => Cell::new(c).fg(Color::Yellow),
                Some(super::color::Role::Saving) => Cell::new(c).fg(Color::Green),
                _ => Cell::new(c),
            }));
        } else {
            table.add_row(cells.map(Cell::new));
        }
    }
    for (k, &r) in right.iter().enumerate() {
        if let Some(col) = table.column_mut(k) {
            col.set_cell_alignment(if r {
                CellAlignment::Right
            } else {
                CellAlignment::Left
            });
        }
    }
    table.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::layout::Section;

    #[test]
    fn markdown_escapes_pipes_in_cells() {
        let doc = Page {
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

    #[test]
    fn rows_are_named_by_their_leading_columns() {
        // compare: pattern; prices: model, provider; sweep: parameters, chain, pattern
        assert_eq!(key_columns(&[false, true, true], 3), vec![0]);
        assert_eq!(
            key_columns(&[false, false, true, true, false, true], 6),
            vec![0, 1]
        );
        assert_eq!(
            key_columns(&[true, true, false, false, true], 5),
            vec![0, 1, 2, 3]
        );
        assert_eq!(key_columns(&[true, true, true], 3), vec![0]);
        assert_eq!(key_columns(&[false, false], 2), vec![0]);
    }

    #[test]
    fn headers_break_at_spaces_and_after_dots() {
        assert_eq!(
            wrap_header("steady.failure_rate", 12),
            "steady.\nfailure_rate"
        );
        assert_eq!(wrap_header("MC $/1k ± 95%", 9), "MC $/1k ±\n95%");
        assert_eq!(wrap_header("p50 s", 5), "p50 s");
        assert_eq!(wrap_header("v1.5", 3), "v1.5");
        assert_eq!(
            wrap_header("latency.\"openai/gpt-5.6-sol\".p50_s", 20),
            "latency.\n\"openai/gpt-5.6-sol\".\np50_s"
        );
    }

    #[test]
    fn prose_wraps_at_spaces_with_an_indent() {
        assert_eq!(wrap("aaa bbb ccc", 7, 2), "aaa bbb\n  ccc");
        assert_eq!(wrap("aaa bbb ccc\n", 7, 2), "aaa bbb\n  ccc\n");
        assert_eq!(wrap("aaa bbb", 7, 2), "aaa bbb");
        // a word longer than the line stays whole
        assert_eq!(wrap("a abcdefghij b", 5, 0), "a\nabcdefghij\nb");
    }

    #[test]
    fn cells_break_after_slashes_then_dashes_never_inside_a_number() {
        assert_eq!(
            wrap_cell("vertex_ai/claude-sonnet-4-5@20250929", 12),
            "vertex_ai/\nclaude-\nsonnet-4-5@\n20250929"
        );
        assert_eq!(
            wrap_cell("gemini/gemini-2.5-pro", 16),
            "gemini/\ngemini-2.5-pro"
        );
        // spaces first; a word with no break point is cut at the width
        assert_eq!(wrap_cell("a → b → c", 5), "a → b\n→ c");
        assert_eq!(wrap_cell("abcdefgh", 3), "abc\ndef\ngh");
        assert_eq!(wrap_cell("fits", 4), "fits");
    }

    /// A long text column (a model id, over 18 columns) wraps in place rather than splitting
    /// the section: 30-column id, two numbers (4 and 5): 39 + 3×3 + 1 = 49 columns naturally;
    /// at 40 the id column narrows by 9 to 21 and its cells wrap after the `/`.
    #[test]
    fn long_text_cells_wrap_before_a_split() {
        let section = Section {
            heading: None,
            title: "t".into(),
            notes: vec![],
            header: vec!["model".into(), "in".into(), "out".into()],
            numeric: vec![false, true, true],
            rows: vec![vec![
                "bedrock/us.anthropic.claude-x1".into(),
                "1.25".into(),
                "10.00".into(),
            ]],
            footer: vec![],
        };
        assert_eq!(
            fit(&section, 40).groups,
            vec![(vec![0, 1, 2], vec![21, 4, 5])]
        );
        assert!(!fits(&section, 40));
        assert!(fits(&section, 49));
        let doc = Page {
            preamble: vec![],
            sections: vec![section],
        };
        let text = render_at(&doc, Style::Terminal, 40);
        assert!(text.lines().all(|l| l.chars().count() <= 40), "{text}");
        // the longest piece (20) sets the drawn width
        assert!(
            text.contains("│ bedrock/             ┆ 1.25 ┆ 10.00 │"),
            "{text}"
        );
        assert!(
            text.contains("│ us.anthropic.claude- ┆      ┆       │"),
            "{text}"
        );
        assert!(text.contains("│ x1                   ┆"), "{text}");
    }

    fn wide() -> Section {
        Section {
            heading: None,
            title: "t".into(),
            notes: vec![],
            header: vec![
                "pattern".into(),
                "cost per request".into(),
                "failed requests".into(),
                "p99 s".into(),
            ],
            numeric: vec![false, true, true, true],
            rows: vec![vec![
                "sequential".into(),
                "1.00".into(),
                "12".into(),
                "2.5".into(),
            ]],
            footer: vec![],
        }
    }

    /// Natural widths: pattern 10, 16, 15, 5 → 46 + 3×4 + 1 = 59 columns.
    #[test]
    fn a_table_that_fits_is_left_alone() {
        let f = fit(&wide(), 59);
        assert_eq!(f.groups, vec![(vec![0, 1, 2, 3], vec![10, 16, 15, 5])]);
    }

    /// At 50 columns the two long headers wrap (the widest first: 16 → 7 saves all 9);
    /// at 30 the columns are split over tables that repeat `pattern` (even at their narrowest,
    /// 10 + 7 + 8 + 10 = 35 columns do not fit), each header narrowed only as far as needed
    /// (10 + 16 + 7 = 33 is 3 over: 16 → 13).
    #[test]
    fn headers_wrap_then_columns_split() {
        let f = fit(&wide(), 50);
        assert_eq!(f.groups, vec![(vec![0, 1, 2, 3], vec![10, 7, 15, 5])]);
        let doc = Page {
            preamble: vec![],
            sections: vec![wide()],
        };
        let text = render_at(&doc, Style::Terminal, 50);
        assert!(text.contains("┆    cost ┆"), "{text}");
        assert!(text.contains("┆ request ┆"), "{text}");
        let f = fit(&wide(), 30);
        assert_eq!(
            f.groups,
            vec![
                (vec![0, 1], vec![10, 13]),
                (vec![0, 2], vec![10, 13]),
                (vec![0, 3], vec![10, 5])
            ]
        );
        let text = render_at(&doc, Style::Terminal, 30);
        assert!(text.lines().all(|l| l.chars().count() <= 30), "{text}");
        assert_eq!(text.matches("│ sequential ┆").count(), 3, "{text}");
    }
}
