//! Line numbers for CSV records, counted from the bytes themselves.
//!
//! The `csv` crate's record position is taken where the previous record's terminator
//! ended: after a CRLF that is the `\n` (not yet read), so its line is one short, and a
//! lone CR (classic Mac) is not counted at all. [`LineCounter`] sits under the CSV reader,
//! notes every `\r` and `\n` it passes, and [`LineCounter::line_at`] turns a record's
//! byte offset into the line its first byte is on (1-based), for LF, CRLF and CR endings
//! alike, skipping the empty lines the CSV reader skips.

use std::collections::VecDeque;
use std::io::Read;

/// A reader that notes where the line terminators are, for [`LineCounter::line_at`].
pub struct LineCounter<R> {
    inner: R,
    /// Bytes read so far.
    read: u64,
    /// Whether the last byte read was `\r`.
    after_cr: bool,
    /// The `\r` and `\n` bytes not yet passed: (offset, whether it ends a line). A `\r`
    /// ends one; a `\n` ends one unless it follows a `\r` (CRLF is one terminator).
    ends: VecDeque<(u64, bool)>,
    /// Line terminators passed (before the last queried record).
    passed: u64,
    /// `"` bytes read.
    quotes: u64,
    /// Line terminators read.
    terminators: u64,
    /// Whether the last byte read ended a line (or nothing was read).
    ended: bool,
}

impl<R> LineCounter<R> {
    /// Count the lines of `inner`.
    pub fn new(inner: R) -> Self {
        LineCounter {
            inner,
            read: 0,
            after_cr: false,
            ends: VecDeque::new(),
            passed: 0,
            quotes: 0,
            terminators: 0,
            ended: true,
        }
    }

    /// Whether an odd number of `"` was read: a quote left open (a CSV field that swallowed
    /// the rest of the file, or a stray `"` inside an unquoted field).
    pub fn unbalanced_quote(&self) -> bool {
        self.quotes % 2 == 1
    }

    /// The lines read so far (a last line without a terminator counts).
    pub fn lines_read(&self) -> u64 {
        self.terminators + u64::from(!self.ended)
    }

    /// The line (1-based) of the first byte at or after byte offset `byte` that is not a
    /// line terminator: the line of a CSV record whose position is `byte`. Offsets must
    /// not decrease from one call to the next.
    pub fn line_at(&mut self, byte: u64) -> u64 {
        let mut at = byte;
        while let Some(&(off, ends)) = self.ends.front() {
            if off < at {
                // Before the record.
            } else if off == at {
                // A terminator the record's position points at (CRLF's `\n`, an empty line).
                at += 1;
            } else {
                break;
            }
            self.passed += u64::from(ends);
            self.ends.pop_front();
        }
        self.passed + 1
    }
}

impl<R: Read> Read for LineCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for (i, b) in buf[..n].iter().enumerate() {
            match b {
                b'\r' => {
                    self.ends.push_back((self.read + i as u64, true));
                    self.terminators += 1;
                }
                b'\n' => {
                    self.ends.push_back((self.read + i as u64, !self.after_cr));
                    self.terminators += u64::from(!self.after_cr);
                }
                b'"' => self.quotes += 1,
                _ => {}
            }
            self.after_cr = *b == b'\r';
            self.ended = matches!(b, b'\r' | b'\n');
        }
        self.read += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line of each record the `csv` crate reads from `text`.
    fn lines(text: &str) -> Vec<u64> {
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(LineCounter::new(text.as_bytes()));
        let mut rec = csv::ByteRecord::new();
        let mut out = Vec::new();
        while csv.read_byte_record(&mut rec).unwrap() {
            let byte = rec.position().unwrap().byte();
            out.push(csv.get_mut().line_at(byte));
        }
        out
    }

    #[test]
    fn lf_crlf_and_cr_endings_number_alike() {
        assert_eq!(lines("a\nb\nc\n"), [1, 2, 3]);
        assert_eq!(lines("a\r\nb\r\nc\r\n"), [1, 2, 3]);
        assert_eq!(lines("a\rb\rc"), [1, 2, 3]);
        // Empty lines are skipped by the CSV reader and still counted.
        assert_eq!(lines("a\n\n\nb\n"), [1, 4]);
        assert_eq!(lines("a\r\n\r\n\r\nb\r\n"), [1, 4]);
        // A quoted field over two lines: the next record is on line 3.
        assert_eq!(lines("\"x\r\ny\",1\r\nb\r\n"), [1, 3]);
    }
}
