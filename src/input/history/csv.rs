//! fallcost's plain incident CSV `provider,start,end,failure,error_rate`.

use super::{History, HistoryIncident, parse_rfc3339};
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::timeline::OutageFailure;

/// Read the plain CSV `provider,start,end,failure,error_rate` (`file` is the name used in
/// messages): one header line with those columns in that order (`error_rate` may be absent),
/// `start`/`end` RFC 3339, `failure` `fast | gray`, `error_rate` in [0, 1] or empty (1.0).
///
/// Errors: `Schema` for a wrong header or a row with the wrong number of cells; `Invalid` for
/// an empty provider, a bad time, `end` not after `start`, an unknown failure, an error rate
/// outside [0, 1]; each naming line, column and field.
pub fn parse_csv(file: &str, text: &str) -> Result<History, InputError> {
    const COLUMNS: [&str; 5] = ["provider", "start", "end", "failure", "error_rate"];
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let schema = |line: usize, message: String| InputError {
        file: file.to_string(),
        location: Some(Location { line, col: 1 }),
        field: None,
        message,
        kind: InputErrorKind::Schema,
    };
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| schema(1, format!("cannot read the header: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let width = header.len();
    if !(width == 4 || width == 5) || header.iter().zip(COLUMNS).any(|(h, c)| h != c) {
        return Err(schema(
            1,
            format!(
                "the header is {:?}; expected provider,start,end,failure,error_rate (error_rate may be left out)",
                header.join(",")
            ),
        ));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = History::default();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(1, |p| p.line() as usize);
            schema(line, format!("cannot read the row: {e}"))
        })?;
        let line = record.position().map_or(1, |p| p.line() as usize);
        if record.len() != width {
            return Err(schema(
                line,
                format!(
                    "the row has {} cells; the header has {width} ({})",
                    record.len(),
                    COLUMNS[..width].join(",")
                ),
            ));
        }
        // column of cell `c`: counted on the raw line (cells with quoted commas shift it)
        let raw = lines.get(line - 1).copied().unwrap_or("");
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
        crate::input::check_name(provider).map_err(|m| bad(0, m))?;
        let start_s = parse_rfc3339(&record[1]).map_err(|m| bad(1, m))?;
        let end_s = parse_rfc3339(&record[2]).map_err(|m| bad(2, m))?;
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
                let v: f64 = t
                    .parse()
                    .map_err(|_| bad(4, format!("{t:?} is not a number; expected a share in [0, 1] or an empty cell (1.0)")))?;
                crate::input::check_range(v, 0.0, 1.0).map_err(|m| bad(4, m))?;
                v
            }
        };
        out.incidents.push(HistoryIncident {
            provider: provider.to_string(),
            name: format!("{file}:{line}"),
            start_s,
            end_s,
            failure,
            error_rate,
            file: file.to_string(),
            line,
        });
    }
    out.sort();
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
}
