//! LiteLLM's price file, `model_prices_and_context_window.json`, read as a fallcost price table.
//!
//! The file is one JSON object: model key to an object of USD **per token** prices and metadata.
//! fallcost reads, for every key except `sample_spec` (LiteLLM's documentation entry):
//!
//! | LiteLLM field | fallcost ([`ModelPrice`], $/MTok) |
//! |---|---|
//! | `input_cost_per_token` | `input` |
//! | `output_cost_per_token` | `output` |
//! | `cache_read_input_token_cost` | `cached_input` |
//! | `cache_creation_input_token_cost` | `cache_write` |
//! | `litellm_provider` | `provider` (else the part of the key before `/`, else `unknown`) |
//!
//! A cache-read price above the input price, or a cache-write price below it (LiteLLM has `0`
//! write prices for providers that charge none), is not read, so the table keeps fallcost's rule
//! `cached_input <= input <= cache_write`; the `source` line counts them.
//!
//! USD per token becomes $/MTok by an exact decimal shift (`3.3e-06` → `3.3`, not
//! `3.3000000000000003`). Caching is `explicit` when the entry has a cache-write price,
//! `automatic` when it has only a cache-read price, `none` otherwise; TTLs take their defaults.
//!
//! A missing price is unknown, never zero: an entry without both `input_cost_per_token` and
//! `output_cost_per_token` (image, audio and search entries, for example) is left out of the table
//! and counted in its `source` line, so a chain naming it fails closed as an unknown model. Tiered,
//! batch, priority and per-second prices are not read: fallcost prices the base per-token tier.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{InputError, InputErrorKind, Location};
use crate::input::suggest::near_miss;
use crate::model::{Caching, ModelPrice, PriceTable};

/// The largest price read, USD per token ($1,000,000 per MTok): anything above is a typo.
pub const MAX_PER_TOKEN: f64 = 1.0;

/// The fields of an entry fallcost reads: a near miss of one (`litellm_providerx`,
/// `cache_read_input_token_cst`) is refused, since it would drop a price or the provider.
pub const READ: &[&str] = &[
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "litellm_provider",
];

/// The key of LiteLLM's documentation entry, which describes the fields and is not a model.
pub const SAMPLE_SPEC: &str = "sample_spec";

/// Whether `text` looks like LiteLLM's price file: a JSON object with a `sample_spec` key, or
/// whose entries carry `litellm_provider` and per-token prices. Cheap: used to tell the price
/// file from a Portkey config without parsing it twice.
pub fn looks_like(value: &Value) -> bool {
    let Some(obj) = value.as_object() else {
        return false;
    };
    obj.contains_key(SAMPLE_SPEC)
        || obj
            .values()
            .take(8)
            .any(|v| v.get("litellm_provider").is_some() && v.get("input_cost_per_token").is_some())
}

/// USD per token to USD per 1,000,000 tokens, as an exact decimal shift of the shortest
/// representation of `per_token` (so `3.3e-06` gives `3.3`, where `3.3e-06 * 1e6` gives
/// `3.3000000000000003`).
pub fn per_token_to_per_mtok(per_token: f64) -> f64 {
    let s = format!("{per_token:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => match exp.parse::<i32>() {
            Ok(e) => format!("{mantissa}e{}", e + 6)
                .parse()
                .unwrap_or(per_token * 1e6),
            Err(_) => per_token * 1e6,
        },
        None => per_token * 1e6,
    }
}

/// Parse LiteLLM's price file from `text`; `name` labels the table and its errors (the path).
///
/// Errors: invalid JSON (with line and column); a top level that is not an object; a field that
/// is a near miss of one fallcost reads ([`READ`]: within 2 edits, same first two letters); a
/// price field that is present but not a number, negative or not finite (naming the model key, the field and
/// the line of the key); a file with no model that has both per-token prices.
pub fn parse(name: &str, text: &str) -> Result<PriceTable, InputError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| super::json_syntax_error(name, &e))?;
    from_value(name, text, &value)
}

/// As [`parse`], from an already parsed `value` (`text` is used only to find lines for errors).
pub fn from_value(name: &str, text: &str, value: &Value) -> Result<PriceTable, InputError> {
    let Some(obj) = value.as_object() else {
        return Err(InputError::file(
            InputErrorKind::Schema,
            name,
            "expected LiteLLM's model_prices_and_context_window.json: one JSON object of model entries",
        ));
    };
    let mut models = BTreeMap::new();
    let mut unpriced = 0usize;
    let mut ignored = 0usize;
    for (key, entry) in obj {
        if key == SAMPLE_SPEC {
            continue;
        }
        let Some(fields) = entry.as_object() else {
            unpriced += 1;
            continue;
        };
        let error = |field: &str, message: String| InputError {
            file: name.to_string(),
            location: locate_key(text, key),
            field: Some(format!("{key:?}.{field}")),
            message,
            kind: InputErrorKind::Invalid,
        };
        let read = |field: &str| -> Result<Option<f64>, InputError> {
            match fields.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) => match n.as_f64() {
                    Some(v) if (0.0..=MAX_PER_TOKEN).contains(&v) => {
                        Ok(Some(per_token_to_per_mtok(v)))
                    }
                    _ => Err(error(
                        field,
                        format!(
                            "USD per token must be a finite number in [0, {MAX_PER_TOKEN}]; got {n}"
                        ),
                    )),
                },
                Some(other) => Err(error(
                    field,
                    format!("USD per token must be a number; got {other}"),
                )),
            }
        };
        // A misspelled key fallcost reads would silently drop a price or the provider.
        for field in fields.keys() {
            if let Some(near) = near_miss(field, READ, 2, 2) {
                let entry = find_key(text, key, 0);
                return Err(InputError {
                    file: name.to_string(),
                    location: entry
                        .and_then(|at| find_key(text, field, at))
                        .or(entry)
                        .map(|at| Location::of_offset(text, at)),
                    field: Some(format!("{key:?}.{field}")),
                    message: format!(
                        "unknown field (did you mean `{near}`?); fallcost reads: {}",
                        READ.join(", ")
                    ),
                    kind: InputErrorKind::Schema,
                });
            }
        }
        let input = read("input_cost_per_token")?;
        let output = read("output_cost_per_token")?;
        let cached_input = read("cache_read_input_token_cost")?;
        let cache_write = read("cache_creation_input_token_cost")?;
        let (Some(input), Some(output)) = (input, output) else {
            unpriced += 1;
            continue;
        };
        // fallcost's price tables keep cached_input <= input <= cache_write (a read is a
        // discount, a write a fee). LiteLLM has entries that break it (a `0` write price where
        // the provider charges none, a write below input): such a cache price is not read.
        let mut cached_input = cached_input;
        let mut cache_write = cache_write;
        if cached_input.is_some_and(|r| r > input) {
            cached_input = None;
            ignored += 1;
        }
        if cache_write.is_some_and(|w| w < input) {
            cache_write = None;
            ignored += 1;
        }
        let provider = match fields.get("litellm_provider").and_then(Value::as_str) {
            Some(p) if !p.trim().is_empty() => p.to_string(),
            _ => match key.split_once('/') {
                Some((p, _)) if !p.is_empty() => p.to_string(),
                _ => "unknown".to_string(),
            },
        };
        let caching = if cache_write.is_some() {
            Caching::Explicit
        } else if cached_input.is_some() {
            Caching::Automatic
        } else {
            Caching::None
        };
        models.insert(
            key.clone(),
            ModelPrice {
                id: key.clone(),
                provider,
                input,
                output,
                cached_input,
                cache_write,
                caching,
                cache_ttl_s: caching.default_ttl_s(),
            },
        );
    }
    if models.is_empty() {
        return Err(InputError::file(
            InputErrorKind::Invalid,
            name,
            "no entry has both input_cost_per_token and output_cost_per_token; is this LiteLLM's model_prices_and_context_window.json?",
        ));
    }
    let mut source = format!(
        "LiteLLM model_prices_and_context_window.json (USD per token, shown in $/MTok): {} models with per-token prices; {} entries without both prices left out (unknown, never free)",
        models.len(),
        unpriced
    );
    if ignored > 0 {
        source.push_str(&format!(
            "; {ignored} cache prices ignored (a cache read above input or a cache write below it)"
        ));
    }
    Ok(PriceTable {
        name: name.to_string(),
        verified: None,
        source: Some(source),
        models,
    })
}

/// The location of the first `"key":` in `text`, for errors about that entry.
fn locate_key(text: &str, key: &str) -> Option<Location> {
    find_key(text, key, 0).map(|at| Location::of_offset(text, at))
}

/// The byte offset of the first `"key":` in `text` at or after `from`.
fn find_key(text: &str, key: &str, mut from: usize) -> Option<usize> {
    let quoted = serde_json::to_string(key).ok()?;
    while let Some(i) = text.get(from..)?.find(&quoted) {
        let at = from + i;
        let rest = text[at + quoted.len()..].trim_start();
        if rest.starts_with(':') {
            return Some(at);
        }
        from = at + quoted.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"{
  "sample_spec": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "litellm_provider": "one of"},
  "gpt-4o": {"input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05,
             "cache_read_input_token_cost": 1.25e-06, "litellm_provider": "openai", "mode": "chat"},
  "claude-sonnet-4-5": {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
             "cache_read_input_token_cost": 3e-07, "cache_creation_input_token_cost": 3.75e-06,
             "litellm_provider": "anthropic"},
  "ollama/llama3": {"input_cost_per_token": 0, "output_cost_per_token": 0, "litellm_provider": "ollama"},
  "dall-e-3": {"input_cost_per_pixel": 1e-08, "litellm_provider": "openai"},
  "half-priced": {"input_cost_per_token": 1e-06, "litellm_provider": "x"},
  "vertex_ai/claude-x": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06},
  "deepseek-x": {"input_cost_per_token": 2.8e-07, "output_cost_per_token": 4.2e-07,
             "cache_read_input_token_cost": 2.8e-08, "cache_creation_input_token_cost": 0.0,
             "litellm_provider": "deepseek"}
}"#;

    #[test]
    fn per_token_prices_become_exact_per_mtok_prices() {
        assert_eq!(per_token_to_per_mtok(3e-06), 3.0);
        assert_eq!(per_token_to_per_mtok(2.5e-06), 2.5);
        assert_eq!(per_token_to_per_mtok(1.5e-05), 15.0);
        assert_eq!(per_token_to_per_mtok(3.75e-06), 3.75);
        assert_eq!(per_token_to_per_mtok(1.4e-07), 0.14);
        assert_eq!(per_token_to_per_mtok(0.0), 0.0);
        assert_eq!(per_token_to_per_mtok(3.3e-06), 3.3);
        assert_ne!(3.3e-06 * 1e6, 3.3, "the naive product is not exact");
    }

    #[test]
    fn reads_prices_providers_and_caching() {
        let t = parse("p.json", SMALL).unwrap();
        assert!(t.get("sample_spec").is_none(), "sample_spec is not a model");
        let gpt = t.get("gpt-4o").unwrap();
        assert_eq!(
            (gpt.input, gpt.output, gpt.cached_input, gpt.cache_write),
            (2.5, 10.0, Some(1.25), None)
        );
        assert_eq!(gpt.provider, "openai");
        assert_eq!(gpt.caching, Caching::Automatic);
        let c = t.get("anthropic/claude-sonnet-4-5").unwrap();
        assert_eq!(
            (c.input, c.output, c.cached_input, c.cache_write),
            (3.0, 15.0, Some(0.3), Some(3.75))
        );
        assert_eq!(c.caching, Caching::Explicit);
        assert_eq!(c.cache_ttl_s, 300.0);
        // `openai/gpt-4o` resolves through the bare key; a free local model is priced at 0.
        assert_eq!(t.get("openai/gpt-4o").unwrap().id, "gpt-4o");
        assert_eq!(t.get("ollama/llama3").unwrap().input, 0.0);
        // No provider field: the key's prefix.
        assert_eq!(t.get("vertex_ai/claude-x").unwrap().provider, "vertex_ai");
        // A 0 write price is not a write fee: ignored, and the model caches automatically.
        let ds = t.get("deepseek-x").unwrap();
        assert_eq!((ds.cached_input, ds.cache_write), (Some(0.028), None));
        assert_eq!(ds.caching, Caching::Automatic);
        assert!(t.source.unwrap().ends_with(
            "; 1 cache prices ignored (a cache read above input or a cache write below it)"
        ));
    }

    #[test]
    fn missing_prices_are_unknown_not_zero() {
        let t = parse("p.json", SMALL).unwrap();
        assert!(t.get("dall-e-3").is_none());
        assert!(t.get("half-priced").is_none());
        assert_eq!(t.models.len(), 5);
        let source = t.source.unwrap();
        assert!(source.contains("5 models"), "{source}");
        assert!(source.contains("2 entries without both prices"), "{source}");
    }

    #[test]
    fn near_misses_of_read_fields_are_refused_and_real_fields_are_not() {
        let e = parse(
            "p.json",
            "{\"a\": {\"input_cost_per_token\": 1e-6, \"output_cost_per_token\": 1e-6},\n \"b\": {\"input_cost_per_token\": 1e-6,\n  \"output_cost_per_tokn\": 1e-6}}",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p.json:3:3: \"b\".output_cost_per_tokn: unknown field (did you mean `output_cost_per_token`?); fallcost reads: input_cost_per_token, output_cost_per_token, cache_read_input_token_cost, cache_creation_input_token_cost, litellm_provider"
        );
        // Tiered and batch prices and other LiteLLM fields are not misspellings.
        let t = parse(
            "p.json",
            r#"{"a": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6,
                "input_cost_per_token_above_200k_tokens": 2e-6, "input_cost_per_pixel": 1e-9,
                "output_cost_per_token_batches": 5e-7, "input_dbu_cost_per_token": 1e-6}}"#,
        )
        .unwrap();
        assert_eq!(t.models.len(), 1);
    }

    #[test]
    fn bad_prices_name_the_model_field_and_line() {
        let text = "{\n  \"a\": {\"input_cost_per_token\": 1e-6, \"output_cost_per_token\": 1e-6},\n  \"b\": {\"input_cost_per_token\": -1e-6, \"output_cost_per_token\": 1e-6}\n}";
        let e = parse("p.json", text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("\"b\".input_cost_per_token"));
        assert_eq!(e.location.unwrap().line, 3);
        assert!(e.message.contains("in [0, 1]"), "{e}");
        let e = parse(
            "p.json",
            "{\"a\": {\"input_cost_per_token\": 2, \"output_cost_per_token\": 1}}",
        )
        .unwrap_err();
        assert!(e.message.contains("got 2"), "{e}");
        let e = parse("p.json", "{\"a\": {\"input_cost_per_token\": \"1\"}}").unwrap_err();
        assert!(e.message.contains("must be a number"), "{e}");
        let e = parse("p.json", "{\"a\": \n[").unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Syntax);
        assert_eq!(e.location.unwrap().line, 2);
        let e = parse("p.json", "[1]").unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Schema);
    }
}
