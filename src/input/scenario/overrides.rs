//! `--set KEY=VALUE` overrides, applied to the parsed document before it is read.

use super::super::document::{Document, split_dotted_key};
use crate::error::InputError;

/// Settings given either as one value for the chain or as a list with one value per link.
const ALTERNATIVES: [(&str, &str); 3] = [
    ("failure_rate", "failure_rates"),
    ("timeout_trip_rate", "timeout_trip_rates"),
    ("service_tier", "service_tiers"),
];

/// Optional policy settings that `--set KEY=none` removes (the policy then has none: no
/// breaker, no hedge delay, no call or cost cap), as `fallcost tune` writes them.
const REMOVABLE: [&str; 4] = ["breaker", "hedge_delay_s", "max_attempts", "max_multiplier"];

/// Whether `path` names a policy setting (`policy.X`, `chain.NAME.policy.X`).
fn in_policy(path: &[String], field: &str) -> bool {
    path.len() >= 2 && path[path.len() - 2] == "policy" && path[path.len() - 1] == field
}

/// Apply `overrides` (dotted keys as in the file) to `doc`, in order. A scalar and its per-link
/// list ([`ALTERNATIVES`]) are one setting: overriding either replaces both. `KEY=none` on an
/// optional policy setting ([`REMOVABLE`]) removes it; `policy.warm_fallback.after=N` replaces
/// a `warm_fallback = "always"` (and `policy.warm_fallback=never` a `{ after = N }`).
///
/// Errors: a key that does not parse, or a value that is not a TOML value.
pub(super) fn apply<'a>(
    doc: &mut Document<'a>,
    overrides: &'a [(String, String)],
) -> Result<(), InputError> {
    for (k, v) in overrides {
        if let Ok(path) = split_dotted_key(k) {
            if v.trim().trim_matches('"') == "none" && REMOVABLE.iter().any(|f| in_policy(&path, f))
            {
                doc.remove(&path);
                continue;
            }
            if path.last().is_some_and(|l| l == "after")
                && in_policy(&path[..path.len() - 1], "warm_fallback")
            {
                doc.remove_value(&path[..path.len() - 1]);
            } else if in_policy(&path, "warm_fallback") {
                doc.remove(&path);
            }
        }
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
