//! Which settings differ between BASE's and HEAD's version of a chain (its links, each link's
//! price and rates, its steady-state parameters and policy) and of the scenario (the request,
//! the incident): both sides serialized as the JSON `compare` writes, flattened to dotted keys
//! and compared key by key, so every setting a chain holds is covered without a list to keep.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::{Chain, Scenario};
use crate::report::diff::Change;

/// The settings that differ between two versions of one chain: `links` when the models
/// differ, then every differing setting (`link 2 (openai/gpt-6-sol).output`, `policy.timeout_s`).
pub fn chain(base: &Chain, head: &Chain) -> Vec<Change> {
    let mut out = Vec::new();
    let ids = |c: &Chain| {
        c.links
            .iter()
            .map(|l| l.price.id.as_str())
            .collect::<Vec<_>>()
            .join(" → ")
    };
    let (b, h) = (ids(base), ids(head));
    if b != h {
        out.push(Change {
            what: "links".into(),
            base: Some(b),
            head: Some(h),
        });
    }
    for i in 0..base.links.len().max(head.links.len()) {
        let (Some(lb), Some(lh)) = (base.links.get(i), head.links.get(i)) else {
            continue;
        };
        let name = if lb.price.id == lh.price.id {
            format!("link {} ({})", i + 1, lh.price.id)
        } else {
            format!("link {}", i + 1)
        };
        let mut bv = serde_json::to_value(lb).unwrap_or(Value::Null);
        let mut hv = serde_json::to_value(lh).unwrap_or(Value::Null);
        // The model's name is in `links`; its prices and rates are compared below.
        for v in [&mut bv, &mut hv] {
            if let Some(price) = v.get_mut("price").and_then(Value::as_object_mut) {
                price.remove("id");
            }
        }
        out.extend(compare(&name, &bv, &hv));
    }
    for key in ["steady", "policy", "traffic_share"] {
        let bv = serde_json::to_value(base).unwrap_or(Value::Null);
        let hv = serde_json::to_value(head).unwrap_or(Value::Null);
        out.extend(compare(
            key,
            bv.get(key).unwrap_or(&Value::Null),
            hv.get(key).unwrap_or(&Value::Null),
        ));
    }
    out
}

/// The scenario-wide settings that differ: the request profile, the incident, the price table.
pub fn scenario(base: &Scenario, head: &Scenario) -> Vec<Change> {
    let mut out = Vec::new();
    if base.pricing != head.pricing {
        out.push(Change {
            what: "pricing".into(),
            base: Some(base.pricing.clone()),
            head: Some(head.pricing.clone()),
        });
    }
    let b = serde_json::to_value(base).unwrap_or(Value::Null);
    let h = serde_json::to_value(head).unwrap_or(Value::Null);
    for key in ["request", "incident"] {
        out.extend(compare(
            key,
            b.get(key).unwrap_or(&Value::Null),
            h.get(key).unwrap_or(&Value::Null),
        ));
    }
    out
}

/// The keys under `prefix` whose values differ.
fn compare(prefix: &str, base: &Value, head: &Value) -> Vec<Change> {
    let (mut b, mut h) = (BTreeMap::new(), BTreeMap::new());
    flatten(prefix, base, &mut b);
    flatten(prefix, head, &mut h);
    let mut keys: Vec<&String> = b.keys().chain(h.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| b.get(*k) != h.get(*k))
        .map(|k| Change {
            what: k.clone(),
            base: b.get(k).cloned(),
            head: h.get(k).cloned(),
        })
        .collect()
}

/// `value`'s leaves as `prefix.key.key` → the value as text (`null`s left out: absent).
fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                flatten(&format!("{prefix}.{k}"), v, out);
            }
        }
        Value::Null => {}
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        v => {
            out.insert(prefix.to_string(), v.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_flatten_and_only_differences_are_listed() {
        let b = serde_json::json!({"a": 1, "b": {"c": "x", "d": [1, 2]}, "e": null});
        let h = serde_json::json!({"a": 1, "b": {"c": "y", "d": [1, 2]}, "f": true});
        let c = compare("k", &b, &h);
        assert_eq!(
            c,
            vec![
                Change {
                    what: "k.b.c".into(),
                    base: Some("x".into()),
                    head: Some("y".into())
                },
                Change {
                    what: "k.f".into(),
                    base: None,
                    head: Some("true".into())
                },
            ]
        );
    }
}
