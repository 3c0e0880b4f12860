//! `--set KEY=VALUE` overrides, applied to the parsed document before it is read.

use super::super::document::{Document, split_dotted_key};
use crate::error::InputError;

/// Settings given either as one value for the chain or as a list with one value per link.
const ALTERNATIVES: [(&str, &str); 3] = [
    ("failure_rate", "failure_rates"),
    ("timeout_trip_rate", "timeout_trip_rates"),
    ("service_tier", "service_tiers"),
];

/// Apply `overrides` (dotted keys as in the file) to `doc`, in order. A scalar and its per-link
/// list ([`ALTERNATIVES`]) are one setting: overriding either replaces both.
///
/// Errors: a key that does not parse, or a value that is not a TOML value.
pub(super) fn apply<'a>(
    doc: &mut Document<'a>,
    overrides: &'a [(String, String)],
) -> Result<(), InputError> {
    for (k, v) in overrides {
        // A scalar and its per-link list are one setting: overriding either replaces both. (A
        // key that does not parse is left to `set` to refuse.)
        if let Ok(mut path) = split_dotted_key(k)
            && let Some(last) = path.last_mut()
            && let Some(other) = ALTERNATIVES.iter().find_map(|&(scalar, list)| {
                (last == scalar)
                    .then_some(list)
                    .or((last == list).then_some(scalar))
            })
        {
            *last = other.to_string();
            doc.remove(&path);
        }
        doc.set(k, v)?;
    }
    Ok(())
}
