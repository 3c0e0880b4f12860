//! The `compare --incidents` JSON document ([`json`], [`json_bytes`]): the [`HistoryReport`]
//! as serialised, its long arrays written in parallel blocks (issue 33 item 6).

use super::flat;
use crate::output::OutputResult;
use crate::report::history::HistoryReport;

/// The JSON document: the [`HistoryReport`] as serialised, each row carrying every key of
/// `compare`'s incident rows (`blended`, `approximate`, `breaker`, `method`,
/// `simulated_windows`, `simulated_precision`, `simulated_counts_precision`, present in every
/// row) and counts as integers
/// when whole, as `compare` prints them.
///
/// Errors: none in practice (the report is plain data).
pub fn json(report: &HistoryReport) -> OutputResult<serde_json::Value> {
    use serde_json::Value;
    let mut doc = serde_json::to_value(report)?;
    if let Some(Value::Array(rows)) = doc.get_mut("rows") {
        rows.iter_mut().for_each(row_keys);
    }
    for section in ["totals", "per_year"] {
        if let Some(Value::Array(rows)) = doc.get_mut(section) {
            rows.iter_mut().for_each(blended_key);
        }
    }
    crate::output::json::integer_counts(&mut doc);
    Ok(doc)
}

/// [`row_keys`] on a row's keys as [`flat::write_object`] collects them.
fn row_keys_flat(row: &mut flat::Scratch) {
    use std::sync::OnceLock;
    static BLENDED: OnceLock<Vec<u8>> = OnceLock::new();
    let name = BLENDED
        .get_or_init(|| serde_json::to_vec(crate::report::BLENDED).expect("a string serializes"));
    let blended = row.get("chain") == Some(name.as_slice());
    row.insert("blended", if blended { b"true" } else { b"false" });
    row.or_insert("approximate", b"false");
    row.or_insert("breaker", b"null");
    row.or_insert("method", b"\"analytic\"");
    row.or_insert("simulated_windows", b"null");
    row.or_insert("simulated_precision", b"null");
    row.or_insert("simulated_counts_precision", b"null");
}

/// A total's `blended` key.
fn blended_key(row: &mut serde_json::Value) {
    if let Some(m) = row.as_object_mut() {
        let blended =
            m.get("chain").and_then(serde_json::Value::as_str) == Some(crate::report::BLENDED);
        m.insert("blended".into(), serde_json::json!(blended));
    }
}

/// An incident row's keys: `blended`, and every key of `compare`'s incident rows.
fn row_keys(row: &mut serde_json::Value) {
    use serde_json::{Value, json};
    blended_key(row);
    if let Some(m) = row.as_object_mut() {
        m.entry("approximate").or_insert(json!(false));
        m.entry("breaker").or_insert(Value::Null);
        m.entry("method").or_insert(json!("analytic"));
        m.entry("simulated_windows").or_insert(Value::Null);
        m.entry("simulated_precision").or_insert(Value::Null);
        m.entry("simulated_counts_precision").or_insert(Value::Null);
    }
}

/// [`json`]'s document as pretty JSON bytes with a trailing newline (`output::json::render` of
/// it, byte for byte), written element by element: the long arrays (`incidents`, `rows`: a
/// 20,000-incident history's 17,718 windows × 8 rows) are never held whole as a
/// `serde_json::Value` (a map of strings per row: most of the memory such a history's JSON
/// took, and its time), and their elements are written in parallel, in blocks, each in its
/// place (issue 33 item 6).
///
/// Errors: none in practice (the report is plain data).
pub fn json_bytes(report: &HistoryReport) -> OutputResult<Vec<u8>> {
    json_bytes_with(report, None)
}

/// A long array's text in pieces, in order (its blocks, written in parallel: [`array`]),
/// copied once into the document.
pub(super) type Pieces = Vec<Vec<u8>>;

/// The document's `incidents` and `rows` arrays as [`json_bytes`] writes them (in parallel).
///
/// Errors: none in practice (the report is plain data).
pub(super) fn arrays(report: &HistoryReport) -> OutputResult<[Pieces; 2]> {
    let (incidents, rows) = rayon::join(
        || array(&report.incidents, |_| {}),
        || array(&report.rows, row_keys_flat),
    );
    Ok([incidents?, rows?])
}

/// [`json_bytes`], its `incidents` and `rows` arrays as given ([`arrays`] of the same report),
/// else written here.
///
/// Errors: none in practice (the report is plain data).
pub(super) fn json_bytes_with(
    report: &HistoryReport,
    arrays: Option<[Pieces; 2]>,
) -> OutputResult<Vec<u8>> {
    Ok(json_pieces_with(report, arrays)?.concat())
}

/// [`json_bytes_with`] in pieces, in order: the long arrays' blocks as they were written, the
/// rest between them (a long history's document is not copied whole once more).
///
/// Errors: none in practice (the report is plain data).
pub(super) fn json_pieces_with(
    report: &HistoryReport,
    arrays: Option<[Pieces; 2]>,
) -> OutputResult<Pieces> {
    use serde::ser::Error;
    let r = report;
    let without = HistoryReport {
        fallcost_version: r.fallcost_version,
        scenario: r.scenario.clone(),
        pricing: r.pricing.clone(),
        history: r.history.clone(),
        incidents: Vec::new(),
        rows: Vec::new(),
        totals: r.totals.clone(),
        per_year: r.per_year.clone(),
        years: r.years.clone(),
        notes: r.notes.clone(),
    };
    let serde_json::Value::Object(small) = json(&without)? else {
        let e = <serde_json::Error as Error>::custom("a history report is a JSON object");
        return Err(e.into());
    };
    let [incidents, rows] = match arrays {
        Some(a) => a,
        None => self::arrays(report)?,
    };
    // serde_json's pretty layout, written by hand at the top level: `{`, then per key a new
    // line indented by 2, the key, `: ` and its value (its lines after the first indented by
    // 2), the keys apart by `,`; a new line and `}` (`{}` when empty)
    let (mut incidents, mut rows) = (Some(incidents), Some(rows));
    let mut pieces = Pieces::new();
    let mut out = vec![b'{'];
    for (i, (k, v)) in small.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n  " } else { b",\n  " });
        out.extend_from_slice(&serde_json::to_vec(k)?);
        out.extend_from_slice(b": ");
        let long = match k.as_str() {
            "incidents" => incidents.take(),
            "rows" => rows.take(),
            _ => None,
        };
        match long {
            Some(array) => {
                pieces.push(std::mem::take(&mut out));
                pieces.extend(array);
            }
            None => write_deep(&mut out, v, 1)?,
        }
    }
    if !small.is_empty() {
        out.push(b'\n');
    }
    out.extend_from_slice(b"}\n");
    pieces.push(out);
    Ok(pieces)
}

/// serde_json's pretty layout (`PrettyFormatter`, 2 spaces a level) starting `depth` levels
/// deep: a value written with it is the text serde_json writes for it at that depth of a
/// document (the structural calls below are `PrettyFormatter`'s, its indent counted from
/// `depth`; the scalars are written as by any formatter).
struct Deep {
    depth: usize,
    has_value: bool,
}

impl Deep {
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        (0..self.depth).try_for_each(|_| w.write_all(b"  "))
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, end: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            (0..self.depth).try_for_each(|_| w.write_all(b"  "))?;
        }
        w.write_all(end)
    }
}

impl serde_json::ser::Formatter for Deep {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` onto `out` as serde_json's pretty text `depth` levels deep in a document.
pub(super) fn write_deep(
    out: &mut Vec<u8>,
    value: &serde_json::Value,
    depth: usize,
) -> serde_json::Result<()> {
    use serde::Serialize;
    let deep = Deep {
        depth,
        has_value: false,
    };
    value.serialize(&mut serde_json::Serializer::with_formatter(out, deep))
}

/// Elements of a long array written at a time, in parallel.
const BLOCK: usize = 1024;

/// `items` as the pretty array of the document's second level: each element as [`json`]
/// writes it (`fix` on its keys, then integer counts: what `integer_counts` does to the
/// document's array, element by element; [`flat::write_object`]), on its own line indented by
/// 4, its lines after the first indented by 4 more, the array's `]` on a line indented by 2
/// (`[]` when empty). Blocks of [`BLOCK`] elements are written in parallel, in pieces in
/// order (joined where the document is written): the same bytes on any thread count.
fn array<T: serde::Serialize + Sync>(
    items: &[T],
    fix: fn(&mut flat::Scratch),
) -> OutputResult<Pieces> {
    use rayon::prelude::*;
    if items.is_empty() {
        return Ok(vec![b"[]".to_vec()]);
    }
    let blocks: Vec<Vec<u8>> = items
        .par_chunks(BLOCK)
        .map(|block| -> OutputResult<Vec<u8>> {
            let mut text = Vec::new();
            let mut scratch = flat::Scratch::default();
            for (i, item) in block.iter().enumerate() {
                text.extend_from_slice(if i == 0 { b"    " } else { b",\n    " });
                flat::write_object(&mut text, item, &mut scratch, fix)?;
            }
            Ok(text)
        })
        .collect::<OutputResult<_>>()?;
    let mut out = Vec::with_capacity(2 * blocks.len() + 1);
    out.push(b"[\n".to_vec());
    for (i, block) in blocks.into_iter().enumerate() {
        if i > 0 {
            out.push(b",\n".to_vec());
        }
        out.push(block);
    }
    out.push(b"\n  ]".to_vec());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Inner {
        requests: f64,
        sessions: Option<f64>,
        note: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<&'static str>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "kebab-case")]
    enum Kind {
        NoFallback,
        Sequential,
    }

    /// Keys out of order, a count key twice (the flattened one last), a unit variant, a list,
    /// nested objects with counts of their own, optional keys that come and go.
    #[derive(Serialize)]
    struct Row {
        zeta: Option<f64>,
        requests: f64,
        chain: String,
        kind: Kind,
        list: Vec<String>,
        nested: Vec<Inner>,
        #[serde(flatten)]
        inner: Inner,
    }

    fn inner(x: f64, i: usize) -> Inner {
        Inner {
            requests: x,
            sessions: (!i.is_multiple_of(3)).then_some(x * 2.0),
            note: ["", "a \"quoted\" note\n", "ünïcode"][i % 3],
            extra: i.is_multiple_of(2).then_some(i as u64),
            method: (i % 4 == 1).then_some("simulated"),
        }
    }

    /// [`flat::write_object`] writes the bytes of the `Value` path it replaced (`to_value`, the
    /// fix, `integer_counts`, the pretty writer at depth 2), row after row of changing shapes,
    /// whole and fractional floats, non-finite ones, counts past 9e15, -0; each shape written
    /// afresh and reused.
    #[test]
    fn elements_are_written_as_their_values_were() {
        let xs = [
            3.0,
            2.5,
            f64::NAN,
            -0.0,
            1e16,
            8e15,
            f64::INFINITY,
            -7.0,
            0.1,
        ];
        let rows: Vec<Row> = (0..40)
            .map(|i| {
                let x = xs[i % xs.len()];
                Row {
                    zeta: (!i.is_multiple_of(5)).then_some(x + 1.0),
                    requests: x * 3.0,
                    chain: if i.is_multiple_of(7) {
                        crate::report::BLENDED.to_string()
                    } else {
                        format!("chain {i}")
                    },
                    kind: if i.is_multiple_of(2) {
                        Kind::NoFallback
                    } else {
                        Kind::Sequential
                    },
                    list: (0..i % 3).map(|k| format!("p{k}")).collect(),
                    nested: (0..i % 2).map(|k| inner(x + k as f64, i + k)).collect(),
                    inner: inner(x, i),
                }
            })
            .collect();
        type Fix = (fn(&mut serde_json::Value), fn(&mut flat::Scratch));
        let fixes: [Fix; 2] = [(|_| {}, |_| {}), (row_keys, row_keys_flat)];
        for (value_fix, flat_fix) in fixes {
            let mut scratch = flat::Scratch::default();
            // each row twice: the second one reuses the first one's shape
            for row in rows.iter().flat_map(|r| [r, r]) {
                let mut v = serde_json::to_value(row).unwrap();
                value_fix(&mut v);
                crate::output::json::integer_counts(&mut v);
                let mut want = Vec::new();
                write_deep(&mut want, &v, 2).unwrap();
                let mut got = Vec::new();
                flat::write_object(&mut got, row, &mut scratch, flat_fix).unwrap();
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    String::from_utf8(want).unwrap()
                );
            }
        }
    }
}
