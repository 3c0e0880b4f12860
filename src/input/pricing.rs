//! Price tables in fallcost's TOML format (MODEL.md §10), and the tables bundled into the binary.
//!
//! ```toml
//! verified = "2026-07-18"
//! source = "public price pages"
//!
//! [models."anthropic/claude-sonnet-5"]
//! provider = "anthropic"      # optional: defaults to the part before '/'
//! input = 2.00                # $/MTok
//! output = 10.00
//! cached_input = 0.20         # optional: absent = no cache-read discount
//! cache_write = 2.50          # optional: absent = writes cost `input`
//! caching = "explicit"        # automatic | explicit | none
//! cache_ttl_s = 300           # optional: 300 explicit, 600 automatic
//! cache_write_1h = 4.00       # optional: the 1-hour write price (explicit caching)
//! min_cache_prefix = 1024     # optional: the shortest prefix cached, in tokens
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;

use super::document::{Document, PathSegment};
use super::{check_name, check_range, read_text};
use crate::error::{InputError, InputErrorKind};
use crate::model::{Caching, ModelPrice, PriceTable};

/// The format of a bundled price table's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// fallcost's TOML ([`parse`]).
    Toml,
    /// LiteLLM's `model_prices_and_context_window.json` ([`super::litellm_prices::parse`]).
    LiteLlm,
}

/// One price table compiled into the binary.
#[derive(Debug, Clone, Copy)]
pub struct Bundled {
    /// The name a scenario's `pricing` or `--pricing` gives.
    pub name: &'static str,
    /// Other names that give this table (`litellm` for the newest LiteLLM snapshot).
    pub aliases: &'static [&'static str],
    /// Where the prices come from.
    pub source: &'static str,
    /// The date the prices were taken (ISO 8601).
    pub date: &'static str,
    /// What the table is the default for.
    pub default_for: &'static str,
    /// The text's format.
    pub format: TableFormat,
    /// The table, as shipped in `pricing/`.
    pub text: &'static str,
}

/// The price tables compiled into the binary: the one registry `fallcost prices --list` and
/// `--version` print.
pub const BUNDLED: &[Bundled] = &[
    Bundled {
        name: "2026-07",
        aliases: &[],
        source: "public price pages, as cited in the source posts (pricing/2026-07.toml)",
        date: "2026-07-18",
        default_for: "scenarios that name no `pricing`",
        format: TableFormat::Toml,
        text: include_str!("../../pricing/2026-07.toml"),
    },
    Bundled {
        name: LITELLM_SNAPSHOT,
        aliases: &["litellm"],
        source: "LiteLLM 1.110.2 model_prices_and_context_window.json (MIT), chat, completion and responses models (pricing/litellm-1.110.2.json)",
        date: "2026-12-01",
        default_for: "`fallcost check` and `fallcost prices`",
        format: TableFormat::LiteLlm,
        text: include_str!("../../pricing/litellm-1.110.2.json"),
    },
];

/// The bundled LiteLLM snapshot's name.
pub const LITELLM_SNAPSHOT: &str = "litellm-1.110.2";

/// The name `--pricing` and a scenario's `pricing` give for the LiteLLM file `fallcost prices
/// --update` downloaded into the user's cache directory.
pub const LATEST: &str = "latest";

/// The highest price accepted, in $/MTok (a dollar per token).
pub const MAX_PRICE: f64 = 1e6;

/// The table a scenario that names no `pricing` is priced with: `2026-07`, the posts' table, so
/// that every scenario written for it keeps its figures.
pub fn default_name() -> &'static str {
    BUNDLED[0].name
}

/// The broad table `fallcost check` and `fallcost prices` use without `--pricing`: the bundled
/// LiteLLM snapshot.
pub fn broad_name() -> &'static str {
    LITELLM_SNAPSHOT
}

/// The bundled entry `name` (or alias) gives.
pub fn bundled_entry(name: &str) -> Option<&'static Bundled> {
    BUNDLED
        .iter()
        .find(|b| b.name == name || b.aliases.contains(&name))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    verified: Option<String>,
    source: Option<String>,
    models: BTreeMap<String, ModelEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelEntry {
    provider: Option<String>,
    input: f64,
    output: f64,
    cached_input: Option<f64>,
    cache_write: Option<f64>,
    caching: Option<Caching>,
    cache_ttl_s: Option<f64>,
    cache_write_1h: Option<f64>,
    min_cache_prefix: Option<u64>,
}

/// Parse a price table from TOML `text`. `name` labels the table and its errors.
///
/// Errors: syntax, unknown or mistyped fields, prices that are negative or not finite, a
/// `cache_write` on a model whose caching is not `explicit`, an empty table.
pub fn parse(name: &str, text: &str) -> Result<PriceTable, InputError> {
    let doc = Document::parse(name, text)?;
    let file: PriceFile = doc.deserialize().map_err(|e: InputError| {
        e.with_file_kind_hint(
            &[
                "chain", "request", "steady", "incident", "policy", "latency",
            ],
            "this looks like a scenario: price it with `fallcost compare --scenario FILE`",
        )
    })?;
    if file.models.is_empty() {
        return Err(doc.error_at(
            InputErrorKind::Invalid,
            &[PathSegment::Key("models".into())],
            "the table has no models; add at least one [models.\"provider/model\"] table",
        ));
    }
    let mut models = BTreeMap::new();
    for (id, e) in file.models {
        let price = EntryAt { doc: &doc, id: &id }.model_price(e)?;
        models.insert(id, price);
    }
    Ok(PriceTable {
        name: name.to_string(),
        verified: file.verified,
        source: file.source,
        models,
        fit: BTreeMap::new(),
    })
}

/// One `[models."ID"]` entry of a table's document, for its errors.
struct EntryAt<'a> {
    doc: &'a Document<'a>,
    id: &'a str,
}

impl EntryAt<'_> {
    /// The path of `field` of this entry.
    fn path(&self, field: &str) -> Vec<PathSegment> {
        vec![
            PathSegment::Key("models".into()),
            PathSegment::Key(self.id.to_string()),
            PathSegment::Key(field.into()),
        ]
    }

    /// An invalid-value error at `field` of this entry.
    fn invalid(&self, field: &str, msg: String) -> InputError {
        self.doc
            .error_at(InputErrorKind::Invalid, &self.path(field), msg)
    }

    /// An invalid-value error at the entry itself (its id).
    fn invalid_entry(&self, msg: String) -> InputError {
        self.doc
            .error_at(InputErrorKind::Invalid, &self.path("provider")[..2], msg)
    }

    /// Entry `e` validated as the model's price.
    ///
    /// Errors: a price outside [0, [`MAX_PRICE`]], no provider, a bad provider or model id,
    /// cache prices the caching mode does not allow ([`EntryAt::check_cache_prices`]), a
    /// non-positive `cache_ttl_s`.
    fn model_price(&self, mut e: ModelEntry) -> Result<ModelPrice, InputError> {
        for (field, value) in [
            ("input", Some(e.input)),
            ("output", Some(e.output)),
            ("cached_input", e.cached_input),
            ("cache_write", e.cache_write),
            ("cache_write_1h", e.cache_write_1h),
        ] {
            if let Some(v) = value {
                // $1,000,000 per MTok is a dollar a token: far above any real price, and low
                // enough that no bill overflows.
                check_range(v, 0.0, MAX_PRICE)
                    .map_err(|m| self.invalid(field, format!("price in $/MTok {m}")))?;
            }
        }
        let id = self.id;
        let provider = match e.provider.take() {
            Some(p) => p,
            None => match id.split_once('/') {
                Some((p, _)) if !p.is_empty() => p.to_string(),
                _ => {
                    return Err(self.invalid_entry(format!(
                        "`{id}` has no `provider/` prefix; name it `provider/model` or set provider"
                    )));
                }
            },
        };
        check_name(&provider).map_err(|m| self.invalid("provider", m.to_string()))?;
        check_name(id).map_err(|m| self.invalid_entry(format!("model id {m}")))?;
        let caching = e
            .caching
            .unwrap_or(Caching::implied(e.cache_write, e.cached_input));
        self.check_cache_prices(&e, caching)?;
        let cache_ttl_s = e.cache_ttl_s.unwrap_or(caching.default_ttl_s());
        if !(cache_ttl_s.is_finite() && cache_ttl_s > 0.0 || e.cache_ttl_s.is_none()) {
            return Err(self.invalid(
                "cache_ttl_s",
                format!(
                    "must be a positive number of seconds (300 for a 5-minute cache); got {cache_ttl_s}"
                ),
            ));
        }
        Ok(ModelPrice {
            id: id.to_string(),
            provider,
            input: e.input,
            output: e.output,
            cached_input: e.cached_input,
            cache_write: e.cache_write,
            caching,
            cache_ttl_s,
            cache_write_1h: e.cache_write_1h,
            min_cache_prefix: e.min_cache_prefix,
            miss_writes: false,
            tiers: Vec::new(),
        })
    }

    /// Entry `e`'s cache prices against its `caching`: writes only with explicit caching,
    /// reads only with some caching; a read at most, a write at least, the input price.
    fn check_cache_prices(&self, e: &ModelEntry, caching: Caching) -> Result<(), InputError> {
        if e.cache_write.is_some() && caching != Caching::Explicit {
            return Err(self.invalid(
                "cache_write",
                format!(
                    "a cache-write price needs caching = \"explicit\" (this model has \"{}\")",
                    caching.as_str()
                ),
            ));
        }
        if e.cache_write_1h.is_some() && caching != Caching::Explicit {
            return Err(self.invalid(
                "cache_write_1h",
                format!(
                    "a 1-hour cache-write price needs caching = \"explicit\" (this model has \"{}\")",
                    caching.as_str()
                ),
            ));
        }
        if e.cached_input.is_some() && caching == Caching::None {
            return Err(self.invalid(
                "cached_input",
                "a cache-read price needs caching = \"automatic\" or \"explicit\" (this model has \"none\")"
                    .into(),
            ));
        }
        if let Some(read) = e.cached_input
            && read > e.input
        {
            return Err(self.invalid(
                "cached_input",
                format!(
                    "a cache read ({read}) above the input price ({}) is not a discount; cached_input must be <= input",
                    e.input
                ),
            ));
        }
        if let Some(write) = e.cache_write
            && write < e.input
        {
            return Err(self.invalid(
                "cache_write",
                format!(
                    "a cache write ({write}) below the input price ({}) is not how providers bill; cache_write must be >= input",
                    e.input
                ),
            ));
        }
        Ok(())
    }
}

/// The bundled table `name` (or alias), if there is one.
pub fn bundled(name: &str) -> Option<PriceTable> {
    bundled_shared(name).map(|t| (*t).clone())
}

/// The bundled table `name` (or alias), parsed once per process.
pub fn bundled_shared(name: &str) -> Option<Arc<PriceTable>> {
    static PARSED: OnceLock<Vec<OnceLock<Arc<PriceTable>>>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| BUNDLED.iter().map(|_| OnceLock::new()).collect());
    let i = BUNDLED
        .iter()
        .position(|b| b.name == name || b.aliases.contains(&name))?;
    let b = &BUNDLED[i];
    Some(
        parsed[i]
            .get_or_init(|| {
                let mut t = match b.format {
                    TableFormat::Toml => parse(b.name, b.text),
                    TableFormat::LiteLlm => super::litellm_prices::parse(b.name, b.text),
                }
                .expect("bundled price tables are valid");
                t.verified.get_or_insert_with(|| b.date.to_string());
                if b.format == TableFormat::LiteLlm {
                    t.source = Some(format!("{}; {}", b.source, t.source.unwrap_or_default()));
                }
                Arc::new(t)
            })
            .clone(),
    )
}

/// Read a price table file: fallcost TOML, or LiteLLM's JSON for a `.json` path.
///
/// A path ending in `.json` is read as LiteLLM's `model_prices_and_context_window.json`
/// ([`super::litellm_prices`]); anything else as a fallcost TOML table ([`parse`]).
///
/// Errors: an unreadable file; those of [`parse`] or [`super::litellm_prices::parse`].
pub fn load_path(path: &Path) -> Result<PriceTable, InputError> {
    let text = read_text(path)?;
    let name = path.display().to_string();
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        super::litellm_prices::parse(&name, &text)
    } else {
        parse(&name, &text)
    }
}

/// Where a price table comes from: a bundled name, or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PricingRef {
    /// A table compiled into the binary, e.g. `2026-07`.
    Bundled(String),
    /// A file path.
    Path(PathBuf),
}

impl PricingRef {
    /// Interpret `spec`: a bundled name when it is one, otherwise a path (relative paths are
    /// taken relative to `base`, the folder of the file that names the table).
    pub fn parse(spec: &str, base: Option<&Path>) -> PricingRef {
        if bundled_entry(spec).is_some() {
            return PricingRef::Bundled(spec.to_string());
        }
        if spec == LATEST {
            return PricingRef::Path(
                super::update::cache_file().unwrap_or_else(|| PathBuf::from(LATEST)),
            );
        }
        let path = Path::new(spec);
        match base {
            Some(b) if path.is_relative() => PricingRef::Path(b.join(path)),
            _ => PricingRef::Path(path.to_path_buf()),
        }
    }

    /// Load the table.
    ///
    /// Errors: those of [`load_path`]; a missing path that looks like a table name (no `/`, no
    /// extension) says which names are bundled.
    pub fn load(&self) -> Result<PriceTable, InputError> {
        self.load_shared().map(|t| (*t).clone())
    }

    /// As [`PricingRef::load`], read once per process: a sweep's thousands of points, each a
    /// scenario naming the same table, parse it once. A file is read again when its size or
    /// modification time changes.
    ///
    /// Errors: those of [`PricingRef::load`].
    pub fn load_shared(&self) -> Result<Arc<PriceTable>, InputError> {
        type Key = (PathBuf, u64, Option<std::time::SystemTime>);
        static FILES: OnceLock<Mutex<HashMap<Key, Arc<PriceTable>>>> = OnceLock::new();
        match self {
            PricingRef::Bundled(name) => Ok(bundled_shared(name).expect("checked in parse")),
            PricingRef::Path(path) => {
                let key = std::fs::metadata(path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| (path.clone(), m.len(), m.modified().ok()));
                let files = FILES.get_or_init(Default::default);
                if let Some(k) = &key
                    && let Some(t) = files.lock().ok().and_then(|f| f.get(k).cloned())
                {
                    return Ok(t);
                }
                let t = Arc::new(self.load_uncached(path)?);
                if let (Some(k), Ok(mut f)) = (key, files.lock()) {
                    f.insert(k, t.clone());
                }
                Ok(t)
            }
        }
    }

    fn load_uncached(&self, path: &Path) -> Result<PriceTable, InputError> {
        let looks_like_name = path.extension().is_none() && !path.exists();
        load_path(path).map_err(|mut e| {
            if path == Path::new(LATEST) || super::update::cache_file().is_some_and(|c| c == path)
            {
                e.message = format!(
                    "{}; `--pricing latest` is the file `fallcost prices --update` downloads: run that first",
                    e.message
                );
            } else if looks_like_name {
                let names: Vec<&str> = BUNDLED.iter().map(|b| b.name).collect();
                e.message = format!(
                    "no such file, and not a bundled price table (bundled: {}; `latest` after `fallcost prices --update`)",
                    names.join(", ")
                );
            }
            e
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_table_has_the_eight_models_of_model_md() {
        let t = bundled("2026-07").unwrap();
        // MODEL.md's eight, and xAI's Grok 4.7 from LiteLLM 1.110.2 (scenarios/sept3-timeline.toml)
        assert_eq!(t.models.len(), 9);
        let grok = &t.models["xai/grok-4.7"];
        assert_eq!(
            (grok.input, grok.output, grok.cached_input, grok.cache_write),
            (2.0, 6.0, Some(0.5), None)
        );
        assert_eq!(grok.caching, Caching::Automatic);
        assert_eq!(t.verified.as_deref(), Some("2026-07-18"));
        let sonnet = &t.models["anthropic/claude-sonnet-5"];
        assert_eq!(
            (
                sonnet.input,
                sonnet.output,
                sonnet.cached_input,
                sonnet.cache_write
            ),
            (2.0, 10.0, Some(0.2), Some(2.5))
        );
        assert_eq!(sonnet.caching, Caching::Explicit);
        assert_eq!(sonnet.cache_ttl_s, 300.0);
        let astra = &t.models["openai/gpt-6-astra"];
        assert_eq!(
            (astra.input, astra.output, astra.cached_input),
            (10.0, 50.0, Some(1.0))
        );
        assert_eq!(astra.cache_ttl_s, 600.0);
        let ds = &t.models["deepseek/deepseek-v4-flash"];
        assert_eq!((ds.input, ds.output, ds.cached_input), (0.14, 0.28, None));
    }

    #[test]
    fn negative_and_nan_prices_are_refused_with_the_field() {
        for (value, line) in [("-1.0", 3), ("nan", 3), ("inf", 3)] {
            let text = format!("[models.\"a/b\"]\noutput = 1\ninput = {value}\n");
            let e = parse("p.toml", &text).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("models.\"a/b\".input"), "{e}");
            assert_eq!(e.location.unwrap().line, line);
            assert!(e.message.contains("must be in [0, 1000000]"), "{e}");
        }
    }

    #[test]
    fn write_price_needs_explicit_caching() {
        let text =
            "[models.\"a/b\"]\ninput = 1\noutput = 1\ncache_write = 2\ncaching = \"automatic\"\n";
        let e = parse("p.toml", text).unwrap_err();
        assert!(e.message.contains("explicit"), "{e}");
    }

    #[test]
    fn caching_is_inferred_from_the_prices_given() {
        let text = "[models.\"a/b\"]\ninput = 1\noutput = 1\ncached_input = 0.1\n[models.\"c/d\"]\ninput = 1\noutput = 1\n";
        let t = parse("p.toml", text).unwrap();
        assert_eq!(t.models["a/b"].caching, Caching::Automatic);
        assert_eq!(t.models["c/d"].caching, Caching::None);
        assert_eq!(t.models["c/d"].provider, "c");
    }

    #[test]
    fn names_resolve_before_paths() {
        assert_eq!(
            PricingRef::parse("2026-07", None),
            PricingRef::Bundled("2026-07".into())
        );
        assert_eq!(
            PricingRef::parse("p.toml", Some(Path::new("/s"))),
            PricingRef::Path(PathBuf::from("/s/p.toml"))
        );
        let e = PricingRef::parse("2025-01", Some(Path::new("/nonexistent")))
            .load()
            .unwrap_err();
        assert!(
            e.message.contains("bundled: 2026-07, litellm-1.110.2"),
            "{e}"
        );
    }
}
