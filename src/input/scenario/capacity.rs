//! `[capacity."provider/model"]`: a link's rate limit and background traffic (MODEL.md §11),
//! keyed by the resolved model id as `[latency]` is.
//!
//! ```toml
//! [capacity."anthropic/claude-haiku-4-5"]
//! rpm = 500             # requests per minute; and/or
//! tpm = 2_000_000       # tokens per minute (prompt + output)
//! background_rpm = 300  # its own traffic besides the chain's, requests per minute (default 0)
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use super::super::document::{Document, PathSegment};
use super::super::show;
use super::key;
use crate::error::{InputError, InputErrorKind};
use crate::model::PriceTable;
use crate::model::fit::{Capacity, RateLimit};

/// One `[capacity."MODEL"]` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CapacitySpec {
    rpm: Option<f64>,
    tpm: Option<f64>,
    #[serde(default)]
    background_rpm: f64,
}

/// `[capacity]` resolved: each model's capacity by resolved id, and the key as written.
pub(super) struct CapacityTable<'a> {
    pub(super) by_id: BTreeMap<String, Capacity>,
    pub(super) written: BTreeMap<String, &'a str>,
}

/// `specs` resolved against `prices` (as chain models are).
///
/// Errors: an unknown model, two keys naming one model, neither `rpm` nor `tpm`, a limit that
/// is not a finite number ≥ 1, a `background_rpm` that is not a finite number ≥ 0.
pub(super) fn resolve<'a>(
    doc: &Document,
    specs: &'a BTreeMap<String, CapacitySpec>,
    prices: &PriceTable,
) -> Result<CapacityTable<'a>, InputError> {
    let mut out = CapacityTable {
        by_id: BTreeMap::new(),
        written: BTreeMap::new(),
    };
    for (id, spec) in specs {
        let at = |f: &str| vec![key("capacity"), key(id), key(f)];
        let invalid =
            |path: Vec<PathSegment>, m: String| doc.error_at(InputErrorKind::Invalid, &path, m);
        let Some(resolved) = prices.get(id).map(|p| p.id.clone()) else {
            return Err(doc.error_at(
                InputErrorKind::UnknownModel,
                &[key("capacity"), key(id)],
                format!(
                    "unknown model `{id}`{}: price table {} has no price for it",
                    prices.lookup_hint(id),
                    prices.name
                ),
            ));
        };
        if let Some(first) = out.written.insert(resolved.clone(), id) {
            return Err(invalid(
                vec![key("capacity"), key(id)],
                format!(
                    "`{id}` and `{first}` name the same model `{resolved}`; give it one [capacity] entry"
                ),
            ));
        }
        if spec.rpm.is_none() && spec.tpm.is_none() {
            return Err(invalid(
                vec![key("capacity"), key(id)],
                "give its limit: `rpm` (requests per minute), `tpm` (tokens per minute) or both"
                    .into(),
            ));
        }
        for (field, v) in [("rpm", spec.rpm), ("tpm", spec.tpm)] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 1.0)
            {
                return Err(invalid(
                    at(field),
                    format!("must be a number of at least 1 a minute; got {}", show(v)),
                ));
            }
        }
        let b = spec.background_rpm;
        if !(b.is_finite() && b >= 0.0) {
            return Err(invalid(
                at("background_rpm"),
                format!(
                    "must be a number of requests per minute, at least 0; got {}",
                    show(b)
                ),
            ));
        }
        out.by_id.insert(
            resolved,
            Capacity {
                limit: RateLimit {
                    rpm: spec.rpm,
                    tpm: spec.tpm,
                },
                background_rpm: b,
            },
        );
    }
    Ok(out)
}
