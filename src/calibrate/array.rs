//! A JSON array read element by element: each top-level element's bytes are cut out by a
//! small scanner (strings, escapes and nesting tracked) and handed over with the line it
//! starts on, so one bad element is one unreadable record and the elements after it are still
//! read. Memory holds one element at a time.

use std::io::BufRead;

/// Where the scanner is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening `[`.
    Before,
    /// Between elements (whitespace and commas).
    Between,
    /// Inside an element: depth of `{`/`[` (0 for a scalar), in a string, after a `\`.
    In {
        depth: u32,
        string: bool,
        escape: bool,
    },
    /// After the closing `]`.
    Done,
}

/// How the array ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// At its closing `]`.
    Closed,
    /// The input does not start with `[` (after whitespace and a UTF-8 byte-order mark).
    NotAnArray,
    /// The input ended inside the array (the last element, if any, was handed over).
    Truncated,
}

/// The scanner: its state, the current line and the element being cut out.
struct Scanner {
    state: State,
    line: u64,
    start_line: u64,
    elem: Vec<u8>,
}

impl Scanner {
    /// Take byte `b`; `each` gets every element completed. Returns false when the input is
    /// not an array.
    fn byte(&mut self, b: u8, each: &mut impl FnMut(u64, &[u8])) -> bool {
        match self.state {
            State::Before => match b {
                b'[' => self.state = State::Between,
                b' ' | b'\t' | b'\r' | b'\n' => {}
                _ => return false,
            },
            State::Between => match b {
                b']' => self.state = State::Done,
                b',' | b' ' | b'\t' | b'\r' | b'\n' => {}
                _ => {
                    self.start_line = self.line;
                    self.elem.clear();
                    self.elem.push(b);
                    self.state = State::In {
                        depth: u32::from(matches!(b, b'{' | b'[')),
                        string: b == b'"',
                        escape: false,
                    };
                }
            },
            State::In {
                depth,
                string,
                escape,
            } => {
                let scalar_end = depth == 0
                    && !string
                    && matches!(b, b',' | b']' | b' ' | b'\t' | b'\r' | b'\n');
                if scalar_end {
                    each(self.start_line, &self.elem);
                    self.state = if b == b']' {
                        State::Done
                    } else {
                        State::Between
                    };
                } else {
                    self.elem.push(b);
                    self.state = step(depth, string, escape, b);
                    let closed = State::In {
                        depth: 0,
                        string: false,
                        escape: false,
                    };
                    if self.state == closed && matches!(b, b'}' | b']' | b'"') {
                        each(self.start_line, &self.elem);
                        self.state = State::Between;
                    }
                }
            }
            State::Done => {}
        }
        if b == b'\n' {
            self.line += 1;
        }
        true
    }
}

/// How a JSON export opens, as [`open`] found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// An array (bare, or the value of a page's first key `data`), starting on this line:
    /// the reader is at its `[`.
    Array(u64),
    /// Not an array nor an object starting with `data`: one JSON value per line, the next
    /// on this line (the reader is after any whitespace).
    Lines(u64),
    /// An object whose first key is not `data`.
    OtherKey,
}

/// Look at how a JSON export opens: a bare array; a page `{"data": [...], ...}` (LiteLLM's
/// `/spend/logs/v2`, Langfuse's API), where the reader is moved to the array; or JSON lines.
/// Whitespace and a UTF-8 byte-order mark before it are skipped.
///
/// Errors: an I/O failure.
pub fn open<R: BufRead>(reader: &mut R) -> std::io::Result<Opening> {
    let mut line = 1u64;
    // Skip whitespace and a BOM, counting lines.
    let first = loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Opening::Lines(line));
        }
        match buf
            .iter()
            .position(|b| !b.is_ascii_whitespace() && !matches!(b, 0xEF | 0xBB | 0xBF))
        {
            Some(i) => {
                line += buf[..i].iter().filter(|b| **b == b'\n').count() as u64;
                let c = buf[i];
                reader.consume(i);
                break c;
            }
            None => {
                line += buf.iter().filter(|b| **b == b'\n').count() as u64;
                let n = buf.len();
                reader.consume(n);
            }
        }
    };
    match first {
        b'[' => Ok(Opening::Array(line)),
        b'{' => {
            // A page: `{` ws `"data"` ws `:` ws `[`. The first line of an object per line
            // (`{"startTime": ...}`) does not match and is read as JSON lines.
            let buf = reader.fill_buf()?;
            let mut i = 1;
            let mut lines = 0u64;
            let skip = |i: &mut usize, lines: &mut u64| {
                while *i < buf.len() && buf[*i].is_ascii_whitespace() {
                    if buf[*i] == b'\n' {
                        *lines += 1;
                    }
                    *i += 1;
                }
            };
            skip(&mut i, &mut lines);
            if !buf[i..].starts_with(b"\"data\"") {
                // Another first key: JSON lines when the object closes on its line.
                // (A first line longer than the buffer is taken as a line.)
                let one_line = buf.iter().position(|b| *b == b'\n').is_none_or(|nl| {
                    serde_json::from_slice::<serde::de::IgnoredAny>(&buf[..nl]).is_ok()
                });
                return Ok(if one_line {
                    Opening::Lines(line)
                } else {
                    Opening::OtherKey
                });
            }
            i += 6;
            skip(&mut i, &mut lines);
            if buf.get(i) != Some(&b':') {
                return Ok(Opening::OtherKey);
            }
            i += 1;
            skip(&mut i, &mut lines);
            if buf.get(i) != Some(&b'[') {
                return Ok(Opening::OtherKey);
            }
            reader.consume(i);
            Ok(Opening::Array(line + lines))
        }
        _ => Ok(Opening::Lines(line)),
    }
}

/// Call `each(line, bytes)` for every element of the JSON array in `reader` (the line is the
/// 1-based line of the element's first byte).
///
/// Errors: an I/O failure.
pub fn elements<R: BufRead>(reader: &mut R, each: impl FnMut(u64, &[u8])) -> std::io::Result<End> {
    elements_from(reader, 1, each)
}

/// [`elements`] of an array whose `[` (or the whitespace before it) is on line `first_line`;
/// what follows its closing `]` (the rest of a page) is not read.
///
/// Errors: an I/O failure.
pub fn elements_from<R: BufRead>(
    reader: &mut R,
    first_line: u64,
    mut each: impl FnMut(u64, &[u8]),
) -> std::io::Result<End> {
    let mut s = Scanner {
        state: State::Before,
        line: first_line,
        start_line: first_line,
        elem: Vec::new(),
    };
    let mut at_start = true;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let mut from = 0;
        if std::mem::take(&mut at_start) && buf.starts_with(b"\xEF\xBB\xBF") {
            from = 3;
        }
        for &b in &buf[from..] {
            if !s.byte(b, &mut each) {
                return Ok(End::NotAnArray);
            }
            if s.state == State::Done {
                return Ok(End::Closed);
            }
        }
        let n = buf.len();
        reader.consume(n);
    }
    Ok(match s.state {
        State::Done => End::Closed,
        State::Before => End::NotAnArray,
        State::In { .. } => {
            each(s.start_line, &s.elem);
            End::Truncated
        }
        State::Between => End::Truncated,
    })
}

/// The state after byte `b` inside an element.
fn step(depth: u32, string: bool, escape: bool, b: u8) -> State {
    let (mut depth, mut string, mut escape) = (depth, string, escape);
    if string {
        if escape {
            escape = false;
        } else if b == b'\\' {
            escape = true;
        } else if b == b'"' {
            string = false;
        }
    } else {
        match b {
            b'"' => string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    State::In {
        depth,
        string,
        escape,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> (Vec<(u64, String)>, End) {
        let mut out = Vec::new();
        let end = elements(&mut text.as_bytes(), |l, b| {
            out.push((l, String::from_utf8_lossy(b).into_owned()))
        })
        .unwrap();
        (out, end)
    }

    #[test]
    fn elements_with_their_lines_and_a_bad_one_in_the_middle() {
        let (e, end) =
            split("\u{feff}[\n{\"a\":\"}\\\"]\"},\n{\"b\":[1,{}]} ,\n{bad},\n{\"c\":1}\n]");
        assert_eq!(end, End::Closed);
        let got: Vec<(u64, &str)> = e.iter().map(|(l, s)| (*l, s.as_str())).collect();
        assert_eq!(
            got,
            [
                (2, "{\"a\":\"}\\\"]\"}"),
                (3, "{\"b\":[1,{}]}"),
                (4, "{bad}"),
                (5, "{\"c\":1}")
            ]
        );
    }

    #[test]
    fn scalars_a_truncated_array_and_not_an_array() {
        let (e, end) = split("[1, \"x\", null]");
        assert_eq!(e.len(), 3);
        assert_eq!(end, End::Closed);
        let (e, end) = split("[{\"a\":1},{\"b\":");
        assert_eq!(e.len(), 2);
        assert_eq!(end, End::Truncated);
        assert_eq!(split("{\"a\":1}").1, End::NotAnArray);
    }
}
