//! Humane durations: `90s`, `45m`, `3h6m`, `1.5h`, `2d`, `250ms`.

use crate::error::ValueError;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A duration as written in a file: a string with units, parsed by [`parse_seconds`] during
/// validation. A bare number is refused while deserializing, with a message asking for units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationText(pub String);

impl<'de> Deserialize<'de> for DurationText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        fn no_unit<E: de::Error>(v: impl fmt::Display) -> E {
            E::custom(format!(
                "`{v}` has no unit; write a string with units, e.g. \"{v}s\", \"{v}m\" or \"3h6m\""
            ))
        }
        impl Visitor<'_> for V {
            type Value = DurationText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration with units such as \"90s\", \"45m\" or \"3h6m\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DurationText, E> {
                Ok(DurationText(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DurationText, E> {
                Err(no_unit(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DurationText, E> {
                Err(no_unit(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<DurationText, E> {
                Err(no_unit(v))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// Parse a duration into seconds. A duration is one or more `NUMBER UNIT` parts with units
/// `d`, `h`, `m`, `s` or `ms`, largest first, optionally separated by spaces.
///
/// Errors: a message saying what is allowed, for a missing unit, an unknown unit, a zero or
/// non-finite total.
pub fn parse_seconds(text: &str) -> Result<f64, ValueError> {
    const ALLOWED: &str =
        "a duration with units such as 90s, 45m, 3h6m or 1.5h (units d, h, m, s, ms)";
    let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if s.is_empty() {
        return Err(ValueError::Duration(format!(
            "empty duration; expected {ALLOWED}"
        )));
    }
    let mut total = 0.0;
    let mut rest = s.as_str();
    let mut last_unit = f64::INFINITY;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, tail) = rest.split_at(num_len);
        let value: f64 = num.parse().map_err(|_| {
            ValueError::Duration(format!("`{text}` is not a duration; expected {ALLOWED}"))
        })?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        let scale = match unit {
            "d" => 86_400.0,
            "h" => 3_600.0,
            "m" | "min" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "" => {
                return Err(ValueError::Duration(format!(
                    "`{text}` has no unit; expected {ALLOWED}"
                )));
            }
            other => {
                return Err(ValueError::Duration(format!(
                    "unknown unit `{other}` in `{text}`; expected {ALLOWED}"
                )));
            }
        };
        if scale >= last_unit {
            return Err(ValueError::Duration(format!(
                "units in `{text}` must go from largest to smallest, each once"
            )));
        }
        last_unit = scale;
        total += value * scale;
        rest = next;
    }
    if !(total.is_finite() && total > 0.0) {
        return Err(ValueError::Duration(format!(
            "`{text}` must be a positive duration; expected {ALLOWED}"
        )));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        assert_eq!(parse_seconds("90s"), Ok(90.0));
        assert_eq!(parse_seconds("45m"), Ok(2700.0));
        assert_eq!(parse_seconds("3h6m"), Ok(11160.0));
        assert_eq!(parse_seconds("3h 6m"), Ok(11160.0));
        assert_eq!(parse_seconds("1.5h"), Ok(5400.0));
        assert_eq!(parse_seconds("2d"), Ok(172_800.0));
        assert_eq!(parse_seconds("250ms"), Ok(0.25));
        assert_eq!(parse_seconds("365d"), Ok(365.0 * 86_400.0));
    }

    #[test]
    fn rejects_what_is_not_a_duration() {
        for bad in ["", "90", "3x", "h", "0s", "6m3h", "1h1h", "1..5h", "-5m"] {
            let err = parse_seconds(bad).unwrap_err();
            assert!(
                err.to_string().contains("duration") || err.to_string().contains("unit"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn formats_round_trip() {
        use crate::number::format_seconds;
        assert_eq!(parse_seconds(&format_seconds(93784.0)), Ok(93784.0));
    }
}
