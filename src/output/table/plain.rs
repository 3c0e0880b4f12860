//! comfy-table's `UTF8_FULL_CONDENSED` box, uncoloured, written directly (issue 33 item 6: a
//! long history's 141,744 rows, where comfy-table's per-cell strings were most of the table's
//! time). The same text as comfy-table with that preset, no content arrangement, padding 1
//! and per-column alignment: column widths are the widest line of a column's cells (at least
//! 1), every line of a cell aligned and padded, a row as tall as its tallest cell. Only for
//! text whose every character is one column wide by comfy-table's measure ([`narrow`]):
//! [`boxed`] declines other text, which comfy-table then draws.

use std::borrow::Cow;

/// Characters past ASCII the tables print, each one column wide (as comfy-table measures
/// them: tested against it).
const ONE_WIDE: &[char] = &['≈', '–', '±', '×', '→', '…', '·', '≤', '≥', '−', '✓', '✗'];

/// Whether every character of `text` is printable ASCII or in [`ONE_WIDE`] (a new line aside).
pub fn narrow(text: &str) -> bool {
    text.chars()
        .all(|c| c == '\n' || (' '..='~').contains(&c) || ONE_WIDE.contains(&c))
}

/// The widest line of `text`, in characters.
fn width(text: &str) -> usize {
    text.split('\n')
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
}

/// A horizontal border: `left`, then per column `fill` over its width and padding, apart by
/// `mid`, then `right`.
fn border(out: &mut String, widths: &[usize], [left, fill, mid, right]: [char; 4]) {
    out.push(left);
    for (k, &w) in widths.iter().enumerate() {
        if k > 0 {
            out.push(mid);
        }
        out.extend(std::iter::repeat_n(fill, w + 2));
    }
    out.push(right);
}

/// One row's lines (`cells` split at new lines), each cell's line aligned in its column.
fn row_lines(out: &mut String, cells: &[Cow<'_, str>], widths: &[usize], right: &[bool]) {
    let lines: Vec<Vec<&str>> = cells.iter().map(|c| c.split('\n').collect()).collect();
    let height = lines.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..height {
        out.push('\n');
        out.push('│');
        for (k, (cell, &w)) in lines.iter().zip(widths).enumerate() {
            if k > 0 {
                out.push('┆');
            }
            out.push(' ');
            let line = cell.get(i).copied().unwrap_or("");
            let pad = w.saturating_sub(line.chars().count());
            if right.get(k).copied().unwrap_or(false) {
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(line);
            } else {
                out.push_str(line);
                out.extend(std::iter::repeat_n(' ', pad));
            }
            out.push(' ');
        }
        out.push('│');
    }
}

/// The box of `header` and `rows` (each as many cells as the header), column k right-aligned
/// where `right[k]`; `None` where some text is not [`narrow`].
pub fn boxed(header: &[String], rows: &[Vec<Cow<'_, str>>], right: &[bool]) -> Option<String> {
    let header: Vec<Cow<'_, str>> = header.iter().map(|h| Cow::Borrowed(h.as_str())).collect();
    let all = || std::iter::once(&header).chain(rows);
    if !all().flatten().all(|c| narrow(c)) {
        return None;
    }
    let mut widths = vec![1; header.len()];
    for r in all() {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(width(c));
        }
    }
    let mut out = String::with_capacity(64 + rows.len() * widths.iter().sum::<usize>() * 3);
    border(&mut out, &widths, ['┌', '─', '┬', '┐']);
    row_lines(&mut out, &header, &widths, right);
    out.push('\n');
    border(&mut out, &widths, ['╞', '═', '╪', '╡']);
    for r in rows {
        row_lines(&mut out, r, &widths, right);
    }
    out.push('\n');
    border(&mut out, &widths, ['└', '─', '┴', '┘']);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

    /// comfy-table's text for the same box.
    fn comfy(header: &[String], rows: &[Vec<Cow<'_, str>>], right: &[bool]) -> String {
        let mut t = Table::new();
        t.load_preset(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(header.to_vec())
            .force_no_tty();
        for r in rows {
            t.add_row(r.iter().map(|c| c.to_string()));
        }
        for (k, &r) in right.iter().enumerate() {
            if let Some(col) = t.column_mut(k) {
                col.set_cell_alignment(if r {
                    CellAlignment::Right
                } else {
                    CellAlignment::Left
                });
            }
        }
        t.to_string()
    }

    /// The same text as comfy-table on random boxes: words and numbers, empty cells, cells of
    /// several lines (headers too), every one-column character past ASCII, 1 to 6 columns.
    #[test]
    fn boxes_are_comfy_tables() {
        let rng = std::cell::RefCell::new(crate::sim::rng::chunk_rng(33, 6, 0));
        let pick = |n: usize| (crate::sim::rng::uniform(&mut rng.borrow_mut()) * n as f64) as usize;
        let pieces: Vec<String> = ["a", "ab", "price-matched", "1,234.50", "", " ", "x y"]
            .iter()
            .map(|s| s.to_string())
            .chain(ONE_WIDE.iter().map(|c| format!("{c} 3")))
            .collect();
        let cell = |lines: usize| -> String {
            (0..lines)
                .map(|_| pieces[pick(pieces.len())].clone())
                .collect::<Vec<_>>()
                .join("\n")
        };
        for _ in 0..400 {
            let cols = 1 + pick(6);
            let header: Vec<String> = (0..cols).map(|_| cell(1 + pick(2))).collect();
            let rows: Vec<Vec<Cow<'_, str>>> = (0..pick(5))
                .map(|_| (0..cols).map(|_| Cow::Owned(cell(1 + pick(3)))).collect())
                .collect();
            let right: Vec<bool> = (0..cols).map(|_| pick(2) == 1).collect();
            let ours = boxed(&header, &rows, &right).expect("narrow text");
            assert_eq!(ours, comfy(&header, &rows, &right), "{header:?} {rows:?}");
        }
        assert!(boxed(&["\t".into()], &[], &[false]).is_none());
        assert!(boxed(&["漢".into()], &[], &[false]).is_none());
    }
}
