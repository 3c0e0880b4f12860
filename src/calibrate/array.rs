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

/// Call `each(line, bytes)` for every element of the JSON array in `reader` (the line is the
/// 1-based line of the element's first byte).
///
/// Errors: an I/O failure.
pub fn elements<R: BufRead>(
    reader: &mut R,
    mut each: impl FnMut(u64, &[u8]),
) -> std::io::Result<End> {
    let mut state = State::Before;
    let mut line = 1u64;
    let mut start_line = 1u64;
    let mut elem: Vec<u8> = Vec::new();
    let mut at_start = true;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let mut i = 0;
        if at_start {
            at_start = false;
            if buf.starts_with(b"\xEF\xBB\xBF") {
                i = 3;
            }
        }
        let n = buf.len();
        while i < n {
            let b = buf[i];
            match state {
                State::Before => match b {
                    b'[' => state = State::Between,
                    b' ' | b'\t' | b'\r' | b'\n' => {}
                    _ => return Ok(End::NotAnArray),
                },
                State::Between => match b {
                    b']' => state = State::Done,
                    b',' | b' ' | b'\t' | b'\r' | b'\n' => {}
                    _ => {
                        start_line = line;
                        elem.clear();
                        elem.push(b);
                        state = match b {
                            b'{' | b'[' => State::In {
                                depth: 1,
                                string: false,
                                escape: false,
                            },
                            b'"' => State::In {
                                depth: 0,
                                string: true,
                                escape: false,
                            },
                            _ => State::In {
                                depth: 0,
                                string: false,
                                escape: false,
                            },
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
                        each(start_line, &elem);
                        state = if b == b']' {
                            State::Done
                        } else {
                            State::Between
                        };
                    } else {
                        elem.push(b);
                        state = step(depth, string, escape, b);
                        if state
                            == (State::In {
                                depth: 0,
                                string: false,
                                escape: false,
                            })
                            && matches!(b, b'}' | b']' | b'"')
                        {
                            each(start_line, &elem);
                            state = State::Between;
                        }
                    }
                }
                State::Done => {}
            }
            if b == b'\n' {
                line += 1;
            }
            i += 1;
        }
        reader.consume(n);
    }
    Ok(match state {
        State::Done => End::Closed,
        State::Before => End::NotAnArray,
        State::In { .. } => {
            each(start_line, &elem);
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
