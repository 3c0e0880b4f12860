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
//! | `cache_creation_input_token_cost` | `cache_write` (5-minute TTL) |
//! | `cache_creation_input_token_cost_above_1hr` | `cache_write_1h` (1-hour TTL) |
//! | any of these + `_above_Nk_tokens` | a long-context tier: prompts above N × 1,000 tokens |
//! | any of these (+ tier) + `_batches`, `_flex`, `_priority` | a service tier's price |
//! | `tiered_pricing` (`range`, the four prices) | long-context tiers, from each range's start |
//! | `prompt_cache_min_tokens` | `min_cache_prefix`: a shorter prefix is not cached |
//! | `litellm_provider` | `provider` (else the part of the key before `/`, else `unknown`) |
//! | `max_input_tokens`, `max_output_tokens`, `supports_function_calling`, `supports_vision`, `supports_response_schema`, `deprecation_date`, `successor_model` | what the model can serve ([`ModelFit`], in [`PriceTable::fit`]; `fallcost check`'s fit findings) |
//!
//! Deliberately not read: per-character, per-image, per-audio, per-video, per-second,
//! per-request and per-query prices (fallcost prices text tokens), `output_cost_per_reasoning_token`
//! (reasoning is billed as output), `input_cost_per_token_cache_hit`, `explicit_cache_read_input_token_cost`, the `_above_12hr` cache
//! writes, and the `_ultrafast`, `_balanced` and `_decisions` tiers, which no scenario can name.
//!
//! A cache-read price above the input price, or a cache-write price below it (LiteLLM has `0`
//! write prices for providers that charge none), is not read, so the table keeps fallcost's rule
//! `cached_input <= input <= cache_write`; the `source` line counts them, with tier cache prices
//! whose base cache price is absent.
//!
//! USD per token becomes $/MTok by an exact decimal shift (`3.3e-06` → `3.3`, not
//! `3.3000000000000003`). Caching is `explicit` when the entry has a cache-write price,
//! `automatic` when it has only a cache-read price, `none` otherwise; TTLs take their defaults.
//!
//! A missing price is unknown, never zero: an entry without both `input_cost_per_token` and
//! `output_cost_per_token` (image, audio and search entries, for example) is left out of the table
//! and counted in its `source` line, so a chain naming it fails closed as an unknown model; an
//! entry with a long-context tier but no base price is an error.
//!
//! Speed: the file (3.4 MB, 4,900 entries) is read in one pass by serde_json into the fields
//! fallcost reads, skipping the rest unparsed; lines and columns are looked up in the text only
//! when there is an error.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{InputError, InputErrorKind, Location};
use crate::model::fit::ModelFit;
use crate::model::{Caching, ModelPrice, PriceTable, Rate, ServiceTier, TierPrice};
use crate::suggest::near_miss;

/// The largest price read, USD per token ($1,000,000 per MTok): anything above is a typo.
pub const MAX_PER_TOKEN: f64 = 1.0;

/// The base fields of an entry fallcost reads: a near miss of one (`litellm_providerx`,
/// `cache_read_input_token_cst`) is refused, since it would drop a price or the provider.
pub const READ: &[&str] = &[
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "litellm_provider",
];

/// The price fields by base name, longest first (so `…_above_1hr` is not read as a tier of
/// `cache_creation_input_token_cost`).
const PRICE_BASES: [(&str, Rate); 5] = [
    (
        "cache_creation_input_token_cost_above_1hr",
        Rate::CacheWrite1h,
    ),
    ("cache_creation_input_token_cost", Rate::CacheWrite),
    ("cache_read_input_token_cost", Rate::CacheRead),
    ("output_cost_per_token", Rate::Output),
    ("input_cost_per_token", Rate::Input),
];

/// The key of LiteLLM's documentation entry, which describes the fields and is not a model.
pub const SAMPLE_SPEC: &str = "sample_spec";

/// Whether `name` can be a near miss of a field of [`READ`] ([`near_miss`] with the same first
/// two letters, and not a read field followed by `_`): a cheap test before the edit distance.
fn may_be_near_miss(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() >= 2
        && READ
            .iter()
            .any(|r| r.as_bytes()[..2].eq_ignore_ascii_case(&b[..2]))
        && !READ.iter().any(|r| {
            name.strip_prefix(r)
                .is_some_and(|rest| rest.starts_with('_'))
        })
}

/// The LiteLLM field name of a price: the inverse of [`price_field`].
pub fn field_name((rate, above_tokens, service): (Rate, u64, ServiceTier)) -> String {
    let base = PRICE_BASES
        .iter()
        .find(|(_, r)| *r == rate)
        .map_or("", |(b, _)| b);
    let tier = if above_tokens > 0 {
        format!("_above_{}k_tokens", above_tokens / 1000)
    } else {
        String::new()
    };
    format!("{base}{tier}{}", service.litellm_suffix())
}

/// What a price field's name says: which price, above which prompt size, in which service tier.
/// `None` for a field fallcost does not read.
pub fn price_field(name: &str) -> Option<(Rate, u64, ServiceTier)> {
    let (rest, rate) = PRICE_BASES
        .iter()
        .find_map(|(base, rate)| name.strip_prefix(base).map(|rest| (rest, *rate)))?;
    let (rest, service) = [ServiceTier::Batch, ServiceTier::Flex, ServiceTier::Priority]
        .into_iter()
        .find_map(|s| rest.strip_suffix(s.litellm_suffix()).map(|r| (r, s)))
        .unwrap_or((rest, ServiceTier::Standard));
    if rest.is_empty() {
        return Some((rate, 0, service));
    }
    let k = rest.strip_prefix("_above_")?.strip_suffix("k_tokens")?;
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let k: u64 = k.parse().ok()?;
    (k > 0).then_some((rate, k * 1000, service))
}

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

/// One entry as read: the price fields (name, value) fallcost reads, and the rest it needs.
#[derive(Default)]
struct RawEntry {
    object: bool,
    prices: Vec<((Rate, u64, ServiceTier), Value)>,
    provider: Option<Value>,
    min_tokens: Option<Value>,
    tiered: Option<Value>,
    /// LiteLLM's `alias_of`: a rolling alias (`claude-sonnet-latest`) billed as the entry it
    /// names.
    alias_of: Option<Value>,
    /// What the model can serve ([`FIT_FIELDS`]), as read.
    fit: Vec<(&'static str, Value)>,
}

/// The fields of what a model can serve (context window, capabilities, retirement;
/// [`crate::model::fit::ModelFit`]) that fallcost reads.
pub const FIT_FIELDS: [&str; 7] = [
    "max_input_tokens",
    "max_output_tokens",
    "supports_function_calling",
    "supports_vision",
    "supports_response_schema",
    "deprecation_date",
    "successor_model",
];

/// A key, borrowed from the text when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The reader's state across entries: near misses found (entry, field, the field meant) and a
/// memo of field names already checked.
#[derive(Default)]
struct State {
    near: Option<(String, String, &'static str)>,
    checked: HashMap<String, Option<&'static str>>,
}

struct EntrySeed<'s> {
    key: &'s str,
    state: &'s RefCell<State>,
}

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = RawEntry;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<RawEntry, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = RawEntry;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a model entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEntry, A::Error> {
        let mut e = RawEntry {
            object: true,
            ..RawEntry::default()
        };
        while let Some(Key(k)) = map.next_key::<Key>()? {
            match &*k {
                "litellm_provider" => e.provider = Some(map.next_value()?),
                "prompt_cache_min_tokens" => e.min_tokens = Some(map.next_value()?),
                "tiered_pricing" => e.tiered = Some(map.next_value()?),
                "alias_of" => e.alias_of = Some(map.next_value()?),
                name if let Some(f) = FIT_FIELDS.iter().find(|f| **f == name) => {
                    e.fit.push((f, map.next_value()?));
                }
                name if let Some(field) = price_field(name) => {
                    e.prices.push((field, map.next_value()?));
                }
                name => {
                    map.next_value::<IgnoredAny>()?;
                    // Most fields cannot be a near miss of one fallcost reads: skip the check.
                    if !may_be_near_miss(name) {
                        continue;
                    }
                    let mut st = self.state.borrow_mut();
                    let near = match st.checked.get(name) {
                        Some(n) => *n,
                        None => {
                            let n = near_miss(name, READ, 2, 2);
                            st.checked.insert(name.to_string(), n);
                            n
                        }
                    };
                    if let Some(n) = near
                        && st.near.is_none()
                    {
                        st.near = Some((self.key.to_string(), name.to_string(), n));
                    }
                }
            }
        }
        Ok(e)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawEntry, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(RawEntry::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<RawEntry, E> {
        Ok(RawEntry::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<RawEntry, E> {
        Ok(RawEntry::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<RawEntry, E> {
        Ok(RawEntry::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<RawEntry, E> {
        Ok(RawEntry::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<RawEntry, E> {
        Ok(RawEntry::default())
    }
    fn visit_unit<E>(self) -> Result<RawEntry, E> {
        Ok(RawEntry::default())
    }
}

/// The whole file: entries in file order, or `None` when the top level is not an object.
struct FileSeed<'s> {
    state: &'s RefCell<State>,
}

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = Option<Vec<(String, RawEntry)>>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = Option<Vec<(String, RawEntry)>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object of model entries")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(4096));
        while let Some(Key(k)) = map.next_key::<Key>()? {
            let entry = map.next_value_seed(EntrySeed {
                key: &k,
                state: self.state,
            })?;
            out.push((k.into_owned(), entry));
        }
        Ok(Some(out))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Parse LiteLLM's price file from `text`; `name` labels the table and its errors (the path).
///
/// Errors: invalid or truncated JSON (with line and column); a top level that is not an object;
/// a field that is a near miss of one fallcost reads ([`READ`]: within 2 edits, same first two
/// letters); a price field that is present but not a number, negative or not finite, or a
/// `prompt_cache_min_tokens` that is not a whole number (naming the model key, the field and the
/// line of the field); a long-context tier on an entry without base input and output prices; a
/// malformed `tiered_pricing`; a file with no model that has both per-token prices.
pub fn parse(name: &str, text: &str) -> Result<PriceTable, InputError> {
    let state = RefCell::new(State::default());
    let mut de = serde_json::Deserializer::from_str(text);
    let entries = FileSeed { state: &state }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| super::json_syntax_error(name, &e))?;
    let Some(entries) = entries else {
        return Err(InputError::file(
            InputErrorKind::Schema,
            name,
            "expected LiteLLM's model_prices_and_context_window.json: one JSON object of model entries",
        ));
    };
    if let Some((key, field, near)) = state.into_inner().near {
        let entry = find_key(text, &key, 0);
        return Err(InputError {
            file: name.to_string(),
            location: entry
                .and_then(|at| find_key(text, &field, at))
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
    build(name, text, entries)
}

/// What one entry of the price file is read against: the file (its label and text), the
/// entry's key, and the memo of converted prices.
struct EntryContext<'a> {
    name: &'a str,
    text: &'a str,
    key: &'a str,
    /// Distinct prices are few (a few hundred in 40,000 fields): each is converted once.
    memo: &'a RefCell<HashMap<u64, f64>>,
}

/// An entry's prices as read so far: the base prices by [`Rate`], the tier prices, and the
/// first field that declares a long-context tier.
#[derive(Default)]
struct EntryPrices {
    base: [Option<f64>; 5],
    tiers: Vec<TierPrice>,
    long_context: Option<String>,
}

impl EntryContext<'_> {
    /// USD per token as $/MTok, memoised.
    fn convert(&self, v: f64) -> f64 {
        *self
            .memo
            .borrow_mut()
            .entry(v.to_bits())
            .or_insert_with(|| per_token_to_per_mtok(v))
    }

    /// An invalid-value error at `field` of this entry (located at the field, else the entry).
    fn error(&self, field: &str, message: String) -> InputError {
        let (text, key) = (self.text, self.key);
        let at = find_key(text, key, 0);
        InputError {
            file: self.name.to_string(),
            location: at
                .and_then(|a| find_key(text, field, a))
                .or(at)
                .map(|a| Location::of_offset(text, a)),
            field: Some(format!("{key:?}.{field}")),
            message,
            kind: InputErrorKind::Invalid,
        }
    }

    /// A per-token price field in $/MTok (`None` when null).
    ///
    /// Errors: not a number, or not in [0, [`MAX_PER_TOKEN`]].
    fn number(&self, field: &str, value: &Value) -> Result<Option<f64>, InputError> {
        match value {
            Value::Null => Ok(None),
            Value::Number(n) => match n.as_f64() {
                Some(v) if (0.0..=MAX_PER_TOKEN).contains(&v) => Ok(Some(self.convert(v))),
                _ => Err(self.error(
                    field,
                    format!(
                        "USD per token must be a finite number in [0, {MAX_PER_TOKEN}]; got {n}"
                    ),
                )),
            },
            other => Err(self.error(
                field,
                format!("USD per token must be a number; got {other}"),
            )),
        }
    }
}

/// The price table of the parsed `entries` of the file `name` (`text`: its contents, for
/// error locations).
///
/// Errors: as [`parse`], after the JSON is read.
fn build(
    name: &str,
    text: &str,
    entries: Vec<(String, RawEntry)>,
) -> Result<PriceTable, InputError> {
    let mut models = BTreeMap::new();
    let mut fit = BTreeMap::new();
    let mut aliases: Vec<(String, String)> = Vec::new();
    let mut unpriced = 0usize;
    let mut ignored = 0usize;
    let memo: RefCell<HashMap<u64, f64>> = RefCell::new(HashMap::new());
    for (key, entry) in entries {
        if key == SAMPLE_SPEC {
            continue;
        }
        if !entry.object {
            unpriced += 1;
            continue;
        }
        if let Some(Value::String(target)) = &entry.alias_of
            && entry.prices.is_empty()
        {
            aliases.push((key, target.clone()));
            continue;
        }
        let cx = EntryContext {
            name,
            text,
            key: &key,
            memo: &memo,
        };
        let Some(model) = model_price(&cx, &entry, &mut ignored)? else {
            unpriced += 1;
            continue;
        };
        let f = model_fit(&cx, &entry.fit)?;
        if !f.is_empty() {
            fit.insert(key.clone(), f);
        }
        models.insert(key.clone(), model);
    }
    let aliased = resolve_aliases(&mut models, &aliases);
    // an alias serves what the entry it names serves (an alias of an alias: two passes)
    for _ in 0..2 {
        for (alias, target) in &aliases {
            if let Some(f) = fit.get(target).cloned()
                && models.contains_key(alias)
            {
                fit.entry(alias.clone()).or_insert(f);
            }
        }
    }
    unpriced += aliases.len() - aliased;
    if models.is_empty() {
        return Err(InputError::file(
            InputErrorKind::Invalid,
            name,
            "no entry has both input_cost_per_token and output_cost_per_token; is this LiteLLM's model_prices_and_context_window.json?",
        ));
    }
    let source = source_note(models.len(), unpriced, aliased, ignored);
    Ok(PriceTable {
        name: name.to_string(),
        verified: None,
        source: Some(source),
        models,
        fit,
    })
}

/// What one entry says its model can serve, from its [`FIT_FIELDS`] (null is not stated).
///
/// Errors: a token limit that is not a whole number >= 0, a `supports_*` that is not true or
/// false, a `deprecation_date` that is not a `YYYY-MM-DD` date, a `successor_model` that is not
/// a string.
fn model_fit(cx: &EntryContext, fields: &[(&'static str, Value)]) -> Result<ModelFit, InputError> {
    let mut f = ModelFit::default();
    for (name, v) in fields {
        if v.is_null() {
            continue;
        }
        let bad = |what: &str| cx.error(name, format!("expected {what}; got {v}"));
        match *name {
            "max_input_tokens" | "max_output_tokens" => {
                let n = v
                    .as_u64()
                    .ok_or_else(|| bad("a whole number of tokens >= 0"))?;
                if *name == "max_input_tokens" {
                    f.max_input_tokens = Some(n);
                } else {
                    f.max_output_tokens = Some(n);
                }
            }
            "supports_function_calling" | "supports_vision" | "supports_response_schema" => {
                let b = v.as_bool().ok_or_else(|| bad("true or false"))?;
                match *name {
                    "supports_function_calling" => f.tools = Some(b),
                    "supports_vision" => f.vision = Some(b),
                    _ => f.json = Some(b),
                }
            }
            "deprecation_date" => {
                let d = v
                    .as_str()
                    .filter(|d| crate::model::fit::day_number(d).is_some())
                    .ok_or_else(|| bad("a date YYYY-MM-DD"))?;
                f.deprecation_date = Some(d.to_string());
            }
            _ => {
                let s = v.as_str().ok_or_else(|| bad("a model id"))?;
                f.successor = Some(s.to_string());
            }
        }
    }
    Ok(f)
}

/// One entry's price (`None` when it lacks an input or an output price: unpriced); adds the
/// cache prices it does not read to `ignored`.
///
/// Errors: a bad price field, a long-context tier without its base price, a bad
/// `tiered_pricing` or `prompt_cache_min_tokens`.
fn model_price(
    cx: &EntryContext,
    entry: &RawEntry,
    ignored: &mut usize,
) -> Result<Option<ModelPrice>, InputError> {
    let mut prices = flat_prices(cx, entry)?;
    if let Some(t) = &entry.tiered {
        tiered_prices(cx, t, &mut prices)?;
    }
    let EntryPrices {
        base,
        mut tiers,
        long_context,
    } = prices;
    let [input, output, cached_input, cache_write, cache_write_1h] = base;
    let (Some(input), Some(output)) = (input, output) else {
        if let Some(field) = long_context {
            let missing = if input.is_none() {
                "input_cost_per_token"
            } else {
                "output_cost_per_token"
            };
            return Err(cx.error(
                &field,
                format!(
                    "a long-context tier price without its base price: the entry has no {missing}, so requests below the tier have no price; add it"
                ),
            ));
        }
        return Ok(None);
    };
    let min_cache_prefix = min_cache_prefix(cx, entry)?;
    let [cached_input, cache_write, cache_write_1h] = consistent_cache_prices(
        input,
        [cached_input, cache_write, cache_write_1h],
        &mut tiers,
        ignored,
    );
    tiers.sort_by_key(|t| (t.service, t.rate, t.above_tokens));
    let key = cx.key;
    let provider = match entry.provider.as_ref().and_then(Value::as_str) {
        Some(p) if !p.trim().is_empty() => p.to_string(),
        _ => match key.split_once('/') {
            Some((p, _)) if !p.is_empty() => p.to_string(),
            _ => "unknown".to_string(),
        },
    };
    let caching = Caching::implied(cache_write, cached_input);
    Ok(Some(ModelPrice {
        id: key.to_string(),
        provider,
        input,
        output,
        cached_input,
        cache_write,
        caching,
        cache_ttl_s: caching.default_ttl_s(),
        cache_write_1h,
        min_cache_prefix,
        miss_writes: false,
        tiers,
    }))
}

/// The entry's price fields (`input_cost_per_token`, `…_above_200k_tokens`, `…_priority`, …):
/// a standard price without a threshold is a base price, any other a tier.
///
/// Errors: a price field that is not a number in [0, [`MAX_PER_TOKEN`]].
fn flat_prices(cx: &EntryContext, entry: &RawEntry) -> Result<EntryPrices, InputError> {
    let mut out = EntryPrices::default();
    for (parsed, value) in &entry.prices {
        let (rate, above_tokens, service) = *parsed;
        // The field's name is spelled out only for an error.
        let fast = value
            .as_f64()
            .filter(|v| (0.0..=MAX_PER_TOKEN).contains(v))
            .map(|v| cx.convert(v));
        let price = match fast {
            Some(p) => p,
            None => match cx.number(&field_name(*parsed), value)? {
                Some(p) => p,
                None => continue,
            },
        };
        if above_tokens == 0 && service == ServiceTier::Standard {
            out.base[rate as usize] = Some(price);
        } else {
            if above_tokens > 0 && out.long_context.is_none() {
                out.long_context = Some(field_name(*parsed));
            }
            out.tiers.push(TierPrice {
                rate,
                above_tokens,
                service,
                price,
            });
        }
    }
    Ok(out)
}

/// Adds the entry's `tiered_pricing` (a list of `{range: [FROM, TO], prices}`) to `prices`: a
/// tier from 0 fills a base price not set by a flat field, any other is a long-context tier.
/// Tiers by query count (no `range`) are skipped.
///
/// Errors: not a list of objects, a bad `range`, a bad price.
fn tiered_prices(cx: &EntryContext, t: &Value, prices: &mut EntryPrices) -> Result<(), InputError> {
    let bad = |m: &str| cx.error("tiered_pricing", m.to_string());
    let Value::Array(list) = t else {
        return Err(bad(
            "must be a list of { range = [FROM, TO], input_cost_per_token, output_cost_per_token, … }",
        ));
    };
    for item in list {
        let Some(obj) = item.as_object() else {
            return Err(bad("each tier must be an object with a `range` and prices"));
        };
        // Tiers by query count (search entries) carry `max_results_range`: not tokens.
        let Some(range) = obj.get("range") else {
            continue;
        };
        let lo = range
            .as_array()
            .filter(|r| r.len() == 2)
            .and_then(|r| r[0].as_f64())
            .filter(|lo| lo.is_finite() && *lo >= 0.0);
        let Some(lo) = lo else {
            return Err(bad(&format!(
                "range must be [FROM, TO] in tokens, FROM >= 0; got {range}"
            )));
        };
        for (field, rate) in [
            ("input_cost_per_token", Rate::Input),
            ("output_cost_per_token", Rate::Output),
            ("cache_read_input_token_cost", Rate::CacheRead),
            ("cache_creation_input_token_cost", Rate::CacheWrite),
        ] {
            let Some(v) = obj.get(field) else { continue };
            let Some(price) =
                cx.number(&format!("tiered_pricing.{field}"), v)
                    .map_err(|mut e| {
                        e.location = cx.error("tiered_pricing", String::new()).location;
                        e
                    })?
            else {
                continue;
            };
            if lo == 0.0 {
                prices.base[rate as usize].get_or_insert(price);
            } else {
                if prices.long_context.is_none() {
                    prices.long_context = Some("tiered_pricing".into());
                }
                prices.tiers.push(TierPrice {
                    rate,
                    above_tokens: lo as u64,
                    service: ServiceTier::Standard,
                    price,
                });
            }
        }
    }
    Ok(())
}

/// The entry's `prompt_cache_min_tokens` (LiteLLM writes some as `4096.0`).
///
/// Errors: not a whole number of tokens >= 0.
fn min_cache_prefix(cx: &EntryContext, entry: &RawEntry) -> Result<Option<u64>, InputError> {
    Ok(match &entry.min_tokens {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            // LiteLLM writes some as 4096.0.
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 1e15 => Some(n as u64),
            _ => {
                return Err(cx.error(
                    "prompt_cache_min_tokens",
                    format!("must be a whole number of tokens >= 0; got {v}"),
                ));
            }
        },
    })
}

/// The cache prices `[cached_input, cache_write, cache_write_1h]` fallcost reads, given the
/// `input` price, and `tiers` without the cache tiers whose base price is not read; adds what
/// it drops to `ignored`.
fn consistent_cache_prices(
    input: f64,
    [cached_input, cache_write, cache_write_1h]: [Option<f64>; 3],
    tiers: &mut Vec<TierPrice>,
    ignored: &mut usize,
) -> [Option<f64>; 3] {
    // fallcost's price tables keep cached_input <= input <= cache_write (a read is a
    // discount, a write a fee). LiteLLM has entries that break it (a `0` write price where
    // the provider charges none, a write below input): such a cache price is not read.
    let mut cached_input = cached_input;
    let mut cache_write = cache_write;
    let mut cache_write_1h = cache_write_1h;
    if cached_input.is_some_and(|r| r > input) {
        cached_input = None;
        *ignored += 1;
    }
    if cache_write.is_some_and(|w| w < input) {
        cache_write = None;
        *ignored += 1;
    }
    if cache_write_1h.is_some_and(|w| w < input)
        || (cache_write_1h.is_some() && cache_write.is_none())
    {
        cache_write_1h = None;
        *ignored += 1;
    }
    // A tier's cache price whose base cache price is absent (or was not read) has no
    // caching mode to go with: not read.
    let before = tiers.len();
    tiers.retain(|t| match t.rate {
        Rate::CacheRead => cached_input.is_some(),
        Rate::CacheWrite => cache_write.is_some(),
        Rate::CacheWrite1h => cache_write_1h.is_some(),
        Rate::Input | Rate::Output => true,
    });
    *ignored += before - tiers.len();
    [cached_input, cache_write, cache_write_1h]
}

/// The table's source line: what it is, how many models it prices and what it leaves out.
fn source_note(models: usize, unpriced: usize, aliased: usize, ignored: usize) -> String {
    let mut source = format!(
        "LiteLLM model_prices_and_context_window.json (USD per token, shown in $/MTok): {} models with per-token prices; {} entries without both prices left out (unknown, never free)",
        models, unpriced
    );
    if aliased > 0 {
        source.push_str(&format!(
            "; {aliased} rolling aliases (alias_of, e.g. claude-sonnet-latest) priced as the entry each names"
        ));
    }
    if ignored > 0 {
        source.push_str(&format!(
            "; {ignored} cache prices ignored (a cache read above input or a cache write below it)"
        ));
    }
    source
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

/// Price every rolling alias (`alias: target`, LiteLLM's `alias_of`) as the entry it names, as
/// LiteLLM bills a request for the alias (an alias of an alias too); the price keeps the
/// target's id, so every message names the entry it is priced from. Returns how many aliases
/// were priced (an alias of a missing or unpriced entry is left out: unknown, never free).
fn resolve_aliases(
    models: &mut BTreeMap<String, ModelPrice>,
    aliases: &[(String, String)],
) -> usize {
    let mut done = 0;
    let mut left: Vec<&(String, String)> = aliases.iter().collect();
    // Each pass prices the aliases whose target is priced: an alias of an alias takes two.
    while !left.is_empty() {
        let before = left.len();
        left.retain(|(alias, target)| match models.get(target).cloned() {
            Some(p) if !models.contains_key(alias) => {
                models.insert(alias.clone(), p);
                done += 1;
                false
            }
            Some(_) => false,
            None => true,
        });
        if left.len() == before {
            break;
        }
    }
    done
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
