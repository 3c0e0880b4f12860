//! The key contract of a JSON document: every key path with the JSON types found there, not
//! the values. A snapshot of it pins the document's shape (a renamed, dropped or retyped key
//! shows up as a diff) while the figures are free to move.
//!
//! Paths are dotted: `steady[].mc.cost_per_1k_usd_ci95`; `[]` stands for every element of an
//! array, `{}` for every value of an object whose keys are data (a map such as `prices`'
//! `models`, keyed by model id). The types are `null`, `bool`, `number`, `string`, `array<T>`
//! (T the types of its elements, `array<>` if every one seen was empty) and `object`, joined
//! with `|` where a path holds several (`number|null`). Integers and floats are both `number`:
//! whether a figure prints as `3` or `3.5` is a value, not the contract.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The key contract of `doc`, one `path: types` line per path, sorted. `maps` lists the paths
/// whose object keys are data (e.g. `models`): their values are merged under `path.{}`.
pub fn key_contract(doc: &Value, maps: &[&str]) -> String {
    let mut paths: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    walk(doc, "", maps, &mut paths);
    let mut out = String::new();
    for (path, types) in &paths {
        let types: Vec<&str> = types.iter().map(String::as_str).collect();
        let path = if path.is_empty() { "." } else { path };
        out.push_str(&format!("{path}: {}\n", types.join("|")));
    }
    out
}

/// The key contract of `text` (a JSON document); panics naming `what` if it is not JSON.
pub fn key_contract_of(what: &str, text: &str, maps: &[&str]) -> String {
    let doc: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{text}"));
    key_contract(&doc, maps)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The type name of `v` at its own path; an array's is `array<element types>`.
fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Object(_) => "object".into(),
        Value::Array(items) => {
            let inner: BTreeSet<String> = items.iter().map(type_name).collect();
            format!("array<{}>", inner.into_iter().collect::<Vec<_>>().join("|"))
        }
    }
}

fn walk(v: &Value, path: &str, maps: &[&str], out: &mut BTreeMap<String, BTreeSet<String>>) {
    out.entry(path.to_string())
        .or_default()
        .insert(type_name(v));
    match v {
        Value::Object(fields) => {
            let is_map = maps.contains(&path);
            for (key, value) in fields {
                let child = if is_map {
                    join(path, "{}")
                } else {
                    join(path, key)
                };
                walk(value, &child, maps, out);
            }
        }
        Value::Array(items) => {
            // Arrays of scalars are described by their type alone (`array<number>`); arrays
            // of objects or arrays go on under `path[]`.
            let nested = items
                .iter()
                .any(|i| matches!(i, Value::Object(_) | Value::Array(_)));
            if nested {
                let child = format!("{path}[]");
                for item in items {
                    walk(item, &child, maps, out);
                }
            }
        }
        _ => {}
    }
}
