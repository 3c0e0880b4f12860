//! fallcost's plain incident CSV `provider,start,end,failure,error_rate`.

use super::{Coverage, History, HistoryIncident, PeriodSource, parse_rfc3339};
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::timeline::OutageFailure;

/// The columns, in order (`error_rate` may be left out).
const COLUMNS: [&str; 5] = ["provider", "start", "end", "failure", "error_rate"];

/// A `Schema` error at `line`, column 1.
fn schema(file: &str, line: usize, message: String) -> InputError {
    InputError {
        file: file.to_string(),
        location: Some(Location { line, col: 1 }),
        field: None,
        message,
        kind: InputErrorKind::Schema,
    }
}

/// The `# period: START/END` lines before the header: the period stated (if any) and the
/// text with those lines blanked (so the reader's line numbers stay the file's). Errors: a
/// `#` line that is not `# period: START/END` with two RFC 3339 times, END after START, or a
/// second one.
fn period_lines(file: &str, text: &str) -> Result<(Option<(f64, f64)>, String), InputError> {
    let allowed = "expected `# period: START/END` (two RFC 3339 times, the period your monitoring covered, e.g. # period: 2026-01-01T00:00:00Z/2026-07-01T00:00:00Z) before the header";
    let mut period = None;
    let mut out = String::with_capacity(text.len());
    let mut header_seen = false;
    for (k, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_start_matches('\u{feff}').trim();
        if header_seen || !line.starts_with('#') {
            header_seen |= !line.is_empty();
            out.push_str(raw);
            continue;
        }
        let bad = |m: String| InputError {
            file: file.to_string(),
            location: Some(Location {
                line: k + 1,
                col: 1,
            }),
            field: Some("period".into()),
            message: m,
            kind: InputErrorKind::Invalid,
        };
        let Some(range) = line
            .trim_start_matches('#')
            .trim()
            .strip_prefix("period:")
            .map(str::trim)
        else {
            return Err(bad(format!("{line:?} is not a period line; {allowed}")));
        };
        let Some((a, b)) = range.split_once('/') else {
            return Err(bad(format!("{range:?} is not START/END; {allowed}")));
        };
        let start = parse_rfc3339(a.trim()).map_err(|m| bad(format!("{m}; {allowed}")))?;
        let end = parse_rfc3339(b.trim()).map_err(|m| bad(format!("{m}; {allowed}")))?;
        if end <= start {
            return Err(bad(format!(
                "the period ends at {} before it starts; {allowed}",
                b.trim()
            )));
        }
        if period.replace((start, end)).is_some() {
            return Err(bad(format!("a second period line; {allowed}")));
        }
        out.push_str(if raw.ends_with('\n') { "\n" } else { "" });
    }
    Ok((period, out))
}

/// The header's width (4 or 5), or a `Schema` error at its line.
fn check_header(file: &str, reader: &mut csv::Reader<&[u8]>) -> Result<usize, InputError> {
    let headers = reader
        .headers()
        .map_err(|e| schema(file, 1, format!("cannot read the header: {e}")))?;
    let line = headers.position().map_or(1, |p| p.line() as usize);
    let header: Vec<&str> = headers.iter().collect();
    let width = header.len();
    if !(width == 4 || width == 5) || header.iter().zip(COLUMNS).any(|(h, c)| *h != c) {
        return Err(schema(
            file,
            line,
            format!(
                "the header is {:?}; expected provider,start,end,failure,error_rate (error_rate may be left out)",
                header.join(",")
            ),
        ));
    }
    Ok(width)
}

/// One row read into an incident. Errors name the row's line, the cell's column and field.
fn read_row(
    file: &str,
    record: &csv::StringRecord,
    line: usize,
    raw: &str,
) -> Result<HistoryIncident, InputError> {
    // column of cell `c`: counted on the raw line (cells with quoted commas shift it)
    let col = |c: usize| -> usize {
        let mut n = 0;
        for (k, piece) in raw.split(',').enumerate() {
            if k == c {
                return n + 1 + (piece.len() - piece.trim_start().len());
            }
            n += piece.chars().count() + 1;
        }
        1
    };
    let bad = |c: usize, message: String| InputError {
        file: file.to_string(),
        location: Some(Location { line, col: col(c) }),
        field: Some(COLUMNS[c].to_string()),
        message,
        kind: InputErrorKind::Invalid,
    };
    let provider = &record[0];
    crate::input::check_name(provider).map_err(|m| bad(0, m.to_string()))?;
    let start_s = parse_rfc3339(&record[1]).map_err(|m| bad(1, m.to_string()))?;
    let end_s = parse_rfc3339(&record[2]).map_err(|m| bad(2, m.to_string()))?;
    if end_s <= start_s {
        return Err(bad(
            2,
            format!(
                "{} is not after start {}; an incident must end after it starts",
                &record[2], &record[1]
            ),
        ));
    }
    let failure = match &record[3] {
        "fast" => OutageFailure::Fast,
        "gray" => OutageFailure::Gray,
        other => {
            return Err(bad(
                3,
                format!("unknown failure {other:?}; expected fast or gray"),
            ));
        }
    };
    let error_rate = match record.get(4).unwrap_or("") {
        "" => 1.0,
        t => {
            let v: f64 = t.parse().map_err(|_| {
                bad(
                    4,
                    format!(
                        "{t:?} is not a number; expected a share in [0, 1] or an empty cell (1.0)"
                    ),
                )
            })?;
            crate::input::check_range(v, 0.0, 1.0).map_err(|m| bad(4, m.to_string()))?;
            v
        }
    };
    Ok(HistoryIncident {
        provider: provider.to_string(),
        name: format!("{file}:{line}"),
        start_s,
        end_s,
        failure,
        error_rate,
        file: file.to_string(),
        line,
    })
}

/// Read the plain CSV `provider,start,end,failure,error_rate` (`file` is the name used in
/// messages): optionally `# period: START/END` first, then one header line with those columns
/// in that order (`error_rate` may be absent), `start`/`end` RFC 3339, `failure` `fast |
/// gray`, `error_rate` in [0, 1] or empty (1.0). The file's [`super::Coverage`] is the stated
/// period, else its first start to its last end ([`super::PeriodSource::Incidents`]).
///
/// Errors: `Schema` for a wrong header or a row with the wrong number of cells; `Invalid` for
/// a bad period line, an empty provider, a bad time, `end` not after `start`, an incident
/// outside the stated period, an unknown failure, an error rate outside [0, 1]; each naming
/// line, column and field.
pub fn parse_csv(file: &str, text: &str) -> Result<History, InputError> {
    let (period, text) = period_lines(file, text)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let width = check_header(file, &mut reader)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = History::default();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(1, |p| p.line() as usize);
            schema(file, line, format!("cannot read the row: {e}"))
        })?;
        let line = record.position().map_or(1, |p| p.line() as usize);
        if record.len() != width {
            return Err(schema(
                file,
                line,
                format!(
                    "the row has {} cells; the header has {width} ({})",
                    record.len(),
                    COLUMNS[..width].join(",")
                ),
            ));
        }
        let raw = lines.get(line - 1).copied().unwrap_or("");
        let incident = read_row(file, &record, line, raw)?;
        if let Some((start, end)) = period
            && (incident.start_s < start || incident.end_s > end)
        {
            return Err(InputError {
                file: file.to_string(),
                location: Some(Location { line, col: 1 }),
                field: Some("period".into()),
                message: format!(
                    "the incident ({} to {}) is outside the period the file states ({} to {}); widen the `# period:` line or fix the row",
                    &record[1],
                    &record[2],
                    super::format_rfc3339(start),
                    super::format_rfc3339(end)
                ),
                kind: InputErrorKind::Invalid,
            });
        }
        out.incidents.push(incident);
    }
    out.sort();
    let (span, source) = match period {
        Some(p) => (Some(p), PeriodSource::Stated),
        None => (
            out.incidents.first().map(|first| {
                let end = out
                    .incidents
                    .iter()
                    .map(|i| i.end_s)
                    .fold(first.end_s, f64::max);
                (first.start_s, end)
            }),
            PeriodSource::Incidents,
        ),
    };
    out.coverage.extend(span.map(|(start_s, end_s)| Coverage {
        file: file.to_string(),
        start_s,
        end_s,
        source,
    }));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_errors_name_line_column_and_field() {
        let e = parse_csv(
            "m.csv",
            "provider,start,end,failure\nopenai,2026-09-03T13:10:00Z,2026-09-03T13:00:00Z,fast\n",
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("end"));
        assert_eq!(e.location, Some(Location { line: 2, col: 29 }));
        let e = parse_csv("m.csv", "provider,start,end,failure,error_rate\nopenai,2026-09-03T13:10:00Z,2026-09-03T14:00:00Z,grey,0.5\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.csv:2:50: failure: unknown failure \"grey\"; expected fast or gray"
        );
        let e = parse_csv("m.csv", "provider,start,end,failure,error_rate\nopenai,2026-09-03T13:10:00Z,2026-09-03T14:00:00Z,fast,1.5\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.csv:2:55: error_rate: must be in [0, 1]; got 1.5"
        );
        let e = parse_csv("m.csv", "who,when\n").unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Schema);
        assert_eq!(e.location, Some(Location { line: 1, col: 1 }));
        let e = parse_csv("m.csv", "provider,start,end,failure\nopenai,x\n").unwrap_err();
        assert!(e.message.contains("the row has 2 cells"), "{e}");
    }

    #[test]
    fn a_csv_states_its_period() {
        let text = "# period: 2026-01-01T00:00:00Z/2027-01-01T00:00:00Z\n\
            provider,start,end,failure\n\
            openai,2026-09-03T13:10:00Z,2026-09-03T14:00:00Z,fast\n";
        let h = parse_csv("m.csv", text).unwrap();
        assert_eq!(h.coverage.len(), 1);
        assert_eq!(h.coverage[0].source, PeriodSource::Stated);
        assert_eq!(
            h.coverage[0].end_s - h.coverage[0].start_s,
            365.0 * 86_400.0
        );
        // the row is on line 3: the period line counts
        assert_eq!(h.incidents[0].line, 3);
        assert_eq!(
            super::super::detect("m.csv", text),
            Ok(super::super::HistoryFormat::Csv)
        );
        // without one: first start to last end, said so
        let h = parse_csv("m.csv", text.split_once('\n').unwrap().1).unwrap();
        assert_eq!(h.coverage[0].source, PeriodSource::Incidents);
        assert_eq!(h.coverage[0].end_s - h.coverage[0].start_s, 3000.0);
        // an incident outside the stated period, a bad period line
        let e = parse_csv("m.csv", &text.replace("2026-09-03T14", "2027-09-03T14")).unwrap_err();
        assert_eq!(e.location, Some(Location { line: 3, col: 1 }));
        assert!(
            e.message.contains("outside the period the file states"),
            "{e}"
        );
        let e = parse_csv("m.csv", &text.replace("period:", "perod:")).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("period"));
        assert!(e.message.contains("expected `# period: START/END`"), "{e}");
        let e = parse_csv("m.csv", &text.replace("2027-01-01", "2025-01-01")).unwrap_err();
        assert!(e.message.contains("before it starts"), "{e}");
    }
}
