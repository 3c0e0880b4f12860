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

/// The widest line of `text`, in characters, where it is [`narrow`] (else `None`): one pass
/// over the bytes of an ASCII cell (most of a long table's), the characters of any other.
fn narrow_width(text: &str) -> Option<usize> {
    let (mut widest, mut start) = (0, 0);
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if b == b'\n' {
            widest = widest.max(i - start);
            start = i + 1;
        } else if !(b' '..=b'~').contains(&b) {
            return narrow(text).then(|| width(text));
        }
    }
    Some(widest.max(text.len() - start))
}

/// The widest line of `text`, in characters.
fn width(text: &str) -> usize {
    text.split('\n').map(chars).max().unwrap_or(0)
}

/// The characters of `line` (its bytes where it is ASCII).
fn chars(line: &str) -> usize {
    if line.is_ascii() {
        line.len()
    } else {
        line.chars().count()
    }
}

/// Spaces to pad with, a slice at a time.
const SPACES: &str = "                                                                ";

/// `n` spaces after `out`.
fn pad(out: &mut String, mut n: usize) {
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// `line` in a column `w` wide, right-aligned where `right`, with a space either side.
fn aligned(out: &mut String, line: &str, w: usize, right: bool) {
    out.push(' ');
    let n = w.saturating_sub(chars(line));
    if right {
        pad(out, n);
        out.push_str(line);
    } else {
        out.push_str(line);
        pad(out, n);
    }
    out.push(' ');
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
    let right = |k: usize| right.get(k).copied().unwrap_or(false);
    if !cells.iter().any(|c| c.contains('\n')) {
        // a row of one line (most rows): no cell split
        if cells.is_empty() {
            return;
        }
        out.push('\n');
        out.push('│');
        for (k, (cell, &w)) in cells.iter().zip(widths).enumerate() {
            if k > 0 {
                out.push('┆');
            }
            aligned(out, cell, w, right(k));
        }
        out.push('│');
        return;
    }
    let lines: Vec<Vec<&str>> = cells.iter().map(|c| c.split('\n').collect()).collect();
    let height = lines.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..height {
        out.push('\n');
        out.push('│');
        for (k, (cell, &w)) in lines.iter().zip(widths).enumerate() {
            if k > 0 {
                out.push('┆');
            }
            aligned(out, cell.get(i).copied().unwrap_or(""), w, right(k));
        }
        out.push('│');
    }
}

/// The box of `header` and the rows of `cells` (a row's cells after another's, as many a row
/// as the header), column k right-aligned where `right[k]`; `None` where some text is not
/// [`narrow`].
pub fn boxed(header: &[String], cells: &[Cow<'_, str>], right: &[bool]) -> Option<String> {
    let header: Vec<Cow<'_, str>> = header.iter().map(|h| Cow::Borrowed(h.as_str())).collect();
    // a header of no column: rows of no cell, which print nothing
    let rows: Vec<&[Cow<'_, str>]> = match header.len() {
        0 => Vec::new(),
        n => cells.chunks(n).collect(),
    };
    let mut widths = vec![1; header.len()];
    for r in std::iter::once(&header[..]).chain(rows.iter().copied()) {
        for (k, c) in r.iter().enumerate() {
            let cell = narrow_width(c)?;
            if let Some(w) = widths.get_mut(k) {
                *w = (*w).max(cell);
            }
        }
    }
    let mut out = String::with_capacity(64 + rows.len() * widths.iter().sum::<usize>() * 3);
    border(&mut out, &widths, ['┌', '─', '┬', '┐']);
    row_lines(&mut out, &header, &widths, right);
    out.push('\n');
    border(&mut out, &widths, ['╞', '═', '╪', '╡']);
    for r in &rows {
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
            let cells: Vec<Cow<'_, str>> = rows.iter().flatten().cloned().collect();
            let ours = boxed(&header, &cells, &right).expect("narrow text");
            assert_eq!(ours, comfy(&header, &rows, &right), "{header:?} {rows:?}");
        }
        assert!(boxed(&["\t".into()], &[], &[false]).is_none());
        assert!(boxed(&["漢".into()], &[], &[false]).is_none());
    }
}
