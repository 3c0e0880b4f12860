//! JSON export: the [`crate::report::Report`] as one pretty-printed object (MODEL.md §10 keys).
//!
//! The compare document ([`compare`]) is the report's fields, plus (keys are added, never
//! renamed): `request` (the request profile every chain serves, with `cache_ttl` ("5m", "1h" or
//! null) and `cache_miss` ("write", "input" or null) as the scenario gives them), `chains` (each
//! chain's name, service tiers per link,
//! models in order and traffic share), and on every `steady` and `incident` row `blended`
//! (`true` on the rows that blend the chains by traffic share). Every row of a list has the same
//! keys: a key that does not apply to a row is `null` there, never absent (`mc` and the
//! top-level `mc`, `incident_window` and `failover_cache` appear only when computed). Whole-numbered counts
//! print as integers. `schemas/compare.schema.json` writes the document down and the tests hold
//! real output to it.

use serde::Serialize;
use serde_json::{Value, json};

use crate::report::{BLENDED, Report};

/// Any serializable report as pretty JSON bytes with a trailing newline.
pub fn render<T: Serialize>(value: &T) -> super::OutputResult<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(value)?;
    out.push(b'\n');
    Ok(out)
}

/// The report's keys outside the figure sets that hold counts of things (requests, sessions,
/// tokens, the seed): printed as integers when whole (`11160`, not `11160.0`), as the figures
/// declared counts are ([`crate::figures::Figure::count`]). An expected count from the
/// analytic model can be fractional (`6.7` failed requests) and stays a number.
const COUNT_KEYS: &[&str] = &[
    "requests",
    "sessions",
    "session_length",
    "break_even_requests",
    "policy_break_even_requests",
    "runs",
    "seed",
    "input_tokens",
    "output_tokens",
    "prefix_tokens",
];

/// Whether `key` is a count's ([`COUNT_KEYS`], or a figure declared a count): from a set made
/// once (a long history's JSON asks for each key of each of its rows).
pub(crate) fn is_count_key(key: &str) -> bool {
    static KEYS: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let figures = crate::figures::ALL_SETS.iter().flat_map(|s| s.iter());
        COUNT_KEYS
            .iter()
            .copied()
            .chain(figures.filter(|f| f.count).map(|f| f.key))
            .collect()
    })
    .contains(key)
}

/// A whole f64 under a count key as an integer, recursively.
pub(crate) fn integer_counts(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, x) in map.iter_mut() {
                if x.is_f64()
                    && let Some(f) = x.as_f64()
                    && f.fract() == 0.0
                    && f.abs() < 9.0e15
                    && is_count_key(k)
                {
                    *x = json!(f as i64);
                } else {
                    integer_counts(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integer_counts),
        _ => {}
    }
}

/// Give every object of `rows` the union of their keys, `null` where a row had none.
fn same_keys(rows: &mut [Value]) {
    let mut keys: Vec<String> = Vec::new();
    for r in rows.iter() {
        if let Some(m) = r.as_object() {
            for k in m.keys() {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    }
    for r in rows.iter_mut() {
        if let Some(m) = r.as_object_mut() {
            for k in &keys {
                m.entry(k.clone()).or_insert(Value::Null);
            }
        }
    }
}

/// The compare document of `report` (see the module docs).
///
/// Errors: none in practice (the report is plain data).
pub fn compare(report: &Report) -> super::OutputResult<Value> {
    let mut doc = serde_json::to_value(report)?;
    let obj = doc.as_object_mut().expect("a report is an object");
    let r = &report.input.request;
    obj.insert(
        "request".into(),
        json!({
            "input_tokens": r.input_tokens,
            "output_tokens": r.output_tokens,
            "prefix_tokens": r.prefix_tokens,
            "cache_hit_rate": r.cache_hit_rate,
            "cache_ttl": report.input.billing.cache_ttl_s.map(crate::number::format_seconds),
            "cache_miss": report.input.billing.cache_miss.map(|m| m.as_str()),
        }),
    );
    obj.insert("chains".into(), chains(report));
    for section in ["steady", "incident"] {
        if let Some(Value::Array(rows)) = obj.get_mut(section) {
            for row in rows.iter_mut() {
                if let Some(m) = row.as_object_mut() {
                    complete_row(report, section, m);
                }
            }
            same_keys(rows);
        }
    }
    if let Some(Value::Array(caches)) = obj.get_mut("failover_cache") {
        same_keys(caches);
    }
    integer_counts(&mut doc);
    Ok(doc)
}

/// The `chains` list: each chain's name, models, providers, traffic share, service tiers and
/// the links whose context window the request overflows (`context_overflow`) and every link
/// that cannot serve the request (`refusals`: docs/MODEL.md §11; `[]` where none or the price
/// table does not say).
fn chains(report: &Report) -> Value {
    Value::Array(
        report
            .input
            .chains
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "models": c.prices().map(|l| l.id.clone()).collect::<Vec<_>>(),
                    "providers": c.prices().map(|l| l.provider.clone()).collect::<Vec<_>>(),
                    "traffic_share": c.traffic_share,
                    "service_tiers": report
                        .input
                        .billing
                        .tiers_of(&c.name, c.links.len())
                        .iter()
                        .map(|t| t.as_str())
                        .collect::<Vec<_>>(),
                    "context_overflow": crate::model::fit::chain_overflows(c, &report.input.request)
                        .map(|(l, o)| json!({
                            "model": l.price.id,
                            "prompt_tokens": o.prompt_tokens,
                            "max_input_tokens": o.max_input_tokens,
                            "output_tokens": o.output_tokens,
                            "max_output_tokens": o.max_output_tokens,
                        }))
                        .collect::<Vec<_>>(),
                    "refusals": c.links.iter().enumerate()
                        .filter_map(|(i, l)| {
                            let r = l.refusal.as_ref()?;
                            Some(json!({
                                "model": l.price.id,
                                "link": i,
                                "passed_over": i > 0,
                                "reason": r.describe(),
                                "lacks": r.lacks,
                            }))
                        })
                        .collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// Give a row of `section` (`steady`, `incident`) every key of its kind: `blended`; on an
/// incident row `approximate`, `breaker`, `method`, `simulated_windows`,
/// `simulated_precision` and `simulated_counts_precision` (in every incident row of every
/// document, not only where one is set); on a steady row `latency_defaults`.
fn complete_row(report: &Report, section: &str, m: &mut serde_json::Map<String, Value>) {
    let blended = m.get("chain").and_then(Value::as_str) == Some(BLENDED);
    m.insert("blended".into(), json!(blended));
    if section == "incident" {
        let analytic = !m.contains_key("method");
        let chain = m.get("chain").and_then(Value::as_str);
        let pattern = m.get("pattern").and_then(Value::as_str);
        let approx = analytic && approximate(report, chain, pattern);
        m.entry("approximate").or_insert(json!(approx));
        m.entry("breaker").or_insert(Value::Null);
        m.entry("method").or_insert(json!("analytic"));
        m.entry("simulated_windows").or_insert(Value::Null);
        m.entry("simulated_precision").or_insert(Value::Null);
        m.entry("simulated_counts_precision").or_insert(Value::Null);
    } else {
        m.entry("latency_defaults").or_insert(json!([]));
    }
}

/// Whether the analytic incident row of `chain` and `pattern` is approximate: on a timeline
/// with cuts whose figures are not exact (≈; MODEL.md §6, "Timelines":
/// `model::incident::timeline_bound`).
fn approximate(report: &Report, chain: Option<&str>, pattern: Option<&str>) -> bool {
    let (Some(inc), Some(c)) = (
        report.input.incident.as_ref(),
        report
            .input
            .chains
            .iter()
            .find(|c| Some(c.name.as_str()) == chain),
    ) else {
        return false;
    };
    let Some(p) = crate::model::Pattern::ALL
        .into_iter()
        .find(|p| Some(p.as_str()) == pattern)
    else {
        return false;
    };
    crate::model::incident::timeline_bound(&report.input.request, c, &inc.for_chain(c), p)
        .is_some_and(|b| !b.exact())
}

/// [`compare`] as pretty JSON bytes with a trailing newline.
///
/// Errors: as [`compare`].
pub fn compare_bytes(report: &Report) -> super::OutputResult<Vec<u8>> {
    render(&compare(report)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An object from pairs.
    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<serde_json::Map<_, _>>(),
        )
    }

    #[test]
    fn rows_share_their_keys_and_counts_are_integers() {
        let mut rows = vec![
            obj(&[("a", json!(1.0)), ("breaker", json!({"x": 1}))]),
            obj(&[("a", json!(2.5))]),
        ];
        same_keys(&mut rows);
        assert_eq!(rows[1]["breaker"], Value::Null);
        let mut v =
            json!({"failed_requests": 11160.0, "cost": 3.0, "rows": [{"cold_starts": 2.5}]});
        integer_counts(&mut v);
        assert_eq!(
            v.to_string(),
            r#"{"cost":3.0,"failed_requests":11160,"rows":[{"cold_starts":2.5}]}"#
        );
    }
}
