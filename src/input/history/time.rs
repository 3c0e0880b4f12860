//! RFC 3339 timestamps as Unix seconds, and back (the times of incident histories).

use crate::error::ValueError;

/// Parse an RFC 3339 timestamp (`2026-09-03T13:10:00Z`, `…T13:10:00.123+02:00`; `t`/space for
/// `T`, `z` for `Z`) into Unix seconds.
///
/// Errors: a message saying what is allowed, for any other shape or an out-of-range part
/// (month 13, February 30, hour 24, minute 60, an offset beyond ±23:59).
pub fn parse_rfc3339(text: &str) -> Result<f64, ValueError> {
    let allowed = "an RFC 3339 time such as 2026-09-03T13:10:00Z or 2026-09-03T15:10:00.000+02:00";
    let bad = || ValueError::Time(format!("{text:?} is not {allowed}"));
    let b = text.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Result<i64, ValueError> {
        let s = text.get(r).ok_or_else(bad)?;
        if s.bytes().all(|c| c.is_ascii_digit()) && !s.is_empty() {
            s.parse::<i64>().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    let mut frac = 0.0;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(bad());
        }
        frac = format!("0.{}", &text[start..i])
            .parse::<f64>()
            .map_err(|_| bad())?;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return Err(ValueError::Time(format!(
                    "{text:?}: the UTC offset must be within ±23:59"
                )));
            }
            let o = oh * 3600 + om * 60;
            if *sign == b'+' { o } else { -o }
        }
        _ => return Err(bad()),
    };
    if d < 1 || d > days_in_month(y, mo) {
        return Err(ValueError::Time(format!(
            "{text:?}: no such date ({y:04}-{mo:02}-{d:02})"
        )));
    }
    // second 60: a leap second, as RFC 3339 allows
    if h > 23 || mi > 59 || s > 60 {
        return Err(ValueError::Time(format!(
            "{text:?}: no such time of day ({h:02}:{mi:02}:{s:02})"
        )));
    }
    let days = days_from_civil(y, mo, d);
    Ok((days * 86_400 + h * 3600 + mi * 60 + s - offset) as f64 + frac)
}

/// The days in month `mo` of year `y` (proleptic Gregorian), 0 when `mo` is not 1 to 12.
fn days_in_month(y: i64, mo: i64) -> i64 {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    match mo {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => 0,
    }
}

/// Unix seconds as RFC 3339 UTC, to the second (`2026-09-03T13:10:00Z`; a fraction is
/// rounded to the nearest second). The inverse of [`parse_rfc3339`] on whole seconds.
pub fn format_rfc3339(unix_s: f64) -> String {
    let t = unix_s.round() as i64;
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::input::history::tests::T0;

    #[test]
    fn rfc3339_by_hand() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Ok(0.0));
        // 2026-09-03: 20,699 days after 1970-01-01 (56 years incl. 14 leap days = 20,454, +
        // Jan..Aug 2026 = 243, + 2) → 20,699 × 86,400 + 47,400 (13:10) = 1,788,441,000
        assert_eq!(parse_rfc3339("2026-09-03T13:10:00Z"), Ok(T0));
        assert_eq!(parse_rfc3339("2026-09-03T15:10:00.000+02:00"), Ok(T0));
        assert_eq!(parse_rfc3339("2026-09-03t07:10:00.5-06:00"), Ok(T0 + 0.5));
        assert_eq!(parse_rfc3339("2024-02-29T00:00:00Z"), Ok(1_709_164_800.0));
        assert!(
            parse_rfc3339("2026-02-29T00:00:00Z")
                .unwrap_err()
                .to_string()
                .contains("no such date")
        );
        assert!(parse_rfc3339("2026-09-03T24:00:00Z").is_err());
        assert!(
            parse_rfc3339("2026-09-03T13:10:00")
                .unwrap_err()
                .to_string()
                .contains("RFC 3339")
        );
        assert!(parse_rfc3339("2026-09-03").is_err());
        assert!(parse_rfc3339("2026-09-03T13:10:00+2:00").is_err());
    }

    #[test]
    fn rfc3339_formats_back() {
        assert_eq!(format_rfc3339(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(T0), "2026-09-03T13:10:00Z");
        // 2024-02-29 00:00 (a leap day) and one second before it
        assert_eq!(format_rfc3339(1_709_164_800.0), "2024-02-29T00:00:00Z");
        assert_eq!(format_rfc3339(1_709_164_799.0), "2024-02-28T23:59:59Z");
        assert_eq!(format_rfc3339(T0 + 11_160.4), "2026-09-03T16:16:00Z");
    }
}
