//! Scenario files (MODEL.md §10): the request, the chains to compare, steady-state failure
//! rates and an optional incident.
//!
//! ```toml
//! name = "Three providers down at once, 2026-09-03"
//! pricing = "2026-07"          # bundled name or path relative to this file
//!
//! [request]
//! input_tokens = 0             # fresh input tokens (default 0)
//! output_tokens = 1200
//! prefix_tokens = 60000        # cacheable prefix (default 0)
//! cache_hit_rate = 0.9         # share of the prefix read from cache when warm (default 1)
//!
//! [[chain]]
//! name = "price-matched"
//! models = ["anthropic/claude-sonnet-5", "openai/gpt-6-sol"]
//! steady = { failure_rate = 0.01 }   # optional: overrides [steady] for this chain
//!
//! [steady]                     # optional
//! failure_rate = 0.005         # every link; failure_rates = [..] per link overrides
//! gray_fraction = 1.0          # share of failures that hang until the timeout
//! gray_output_fraction = 0.5   # share of the output a gray failure bills
//! timeout_trip_rate = 0.0      # share of the primary's healthy requests the timeout abandons
//! abandoned_billing = "partial"  # partial | full
//! fast_fail_s = 0.5            # seconds a fast failure takes
//!
//! [policy]                     # optional; a chain overrides it with policy = { .. }
//! timeout_s = 30               # client timeout per attempt, seconds
//!
//! [latency."openai/gpt-6-sol"] # optional, per model: lognormal from a median and a p99
//! p50_s = 2.0
//! p99_s = 12.0
//!
//! [incident]                   # optional
//! duration = "3h6m"
//! requests_per_second = 1.0
//! session_length = 20
//! failure = "fast"             # fast | gray
//!
//! [[incident.outage]]          # optional, repeatable: the outages on one timeline
//! provider = "openai"          # or model = "openai/gpt-6-sol"
//! start = "1h"                 # default 0s
//! duration = "34m"             # default: the rest of the window
//! failure = "fast"             # fast | gray | drill (default: [incident] failure)
//! error_rate = 1.0             # default 1.0
//! ```
//!
//! Without `[[incident.outage]]`, the incident is MODEL.md §6's shorthand: the primary's
//! provider down for the whole window, failing `[incident] failure`. With outages, the window
//! holds exactly those (the primary's provider is down only if an outage says so) and
//! `[incident] failure` is the default `failure` of outages that omit it (`model::timeline`).
//!
//! When a link's model has a `[latency]` entry and no `timeout_trip_rate(s)` is given, its trip
//! rate is P(L > T) from the latency model; when both hedge legs have one and no
//! `primary_win_rate` is given, w is P(L₀ < L₁ | both ≤ T) ([`crate::model::latency`]). Models
//! without an entry time their attempts with the defaults (p50 2 s, p99 12 s) in the Monte
//! Carlo engine, and their trip rates and w stay as given (0 and 1 by default).

use crate::error::ValueError;
use std::path::Path;

use super::document::{Document, PathSegment, split_dotted_key};
use super::duration::parse_seconds;
use super::pricing::{PricingRef, default_name};
use super::{check_name, check_range, read_text, show};
use crate::error::{InputError, InputErrorKind};
use crate::model::{Incident, PriceTable, Request, Scenario};

mod capacity;
mod chains;
mod file;
mod overrides;
mod policy;
mod replaced;
mod steady;
#[cfg(test)]
mod tests;
mod timeline;

pub use timeline::drill;

use file::ScenarioFile;

/// For a model the default table lacks, in a scenario that names no `pricing`: a pointer to
/// the bundled LiteLLM snapshot when it has the model.
fn broad_hint(file: &ScenarioFile, id: &str) -> String {
    let snapshot = super::pricing::LITELLM_SNAPSHOT;
    match (&file.pricing, super::pricing::bundled_shared(snapshot)) {
        (None, Some(t)) if t.get(id).is_some() => format!(
            " (the scenario names no `pricing`, so it gets {}, the posts' table; `pricing = \"litellm\"` prices it)",
            default_name()
        ),
        _ => String::new(),
    }
}

fn key(k: &str) -> PathSegment {
    PathSegment::Key(k.to_string())
}

/// Where a chain's `steady` or `policy` value was written, for its errors: the chain's own
/// table (`chain[i].TABLE.FIELD`) or the scenario's (`TABLE.FIELD`).
#[derive(Clone, Copy)]
struct Levels<'a> {
    doc: &'a Document<'a>,
    /// `steady` or `policy`.
    table: &'static str,
    chain_index: usize,
}

impl Levels<'_> {
    /// The path of `field`: in the chain's table if `in_chain`, else in the scenario's.
    fn path(&self, field: &str, in_chain: bool) -> Vec<PathSegment> {
        if in_chain {
            vec![
                key("chain"),
                PathSegment::Index(self.chain_index),
                key(self.table),
                key(field),
            ]
        } else {
            vec![key(self.table), key(field)]
        }
    }

    /// An invalid-value error at `field` ([`Levels::path`]).
    fn invalid(&self, field: &str, in_chain: bool, msg: impl Into<String>) -> InputError {
        self.doc
            .error_at(InputErrorKind::Invalid, &self.path(field, in_chain), msg)
    }
}

/// Load and validate the scenario at `path`, applying `overrides` (`--set KEY=VALUE`, dotted
/// keys as in the file) first.
///
/// Errors: an unreadable file; TOML syntax; unknown, missing or mistyped fields; values out of
/// range; duplicate chain names; a model not in the price table; a price table that cannot be
/// loaded. Each names the file, line and field.
pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, InputError> {
    let text = read_text(path)?;
    let base = match path.parent() {
        Some(b) if !b.as_os_str().is_empty() => b,
        _ => Path::new("."),
    };
    parse(&path.display().to_string(), &text, base, overrides)
}

/// Parse and validate scenario `text` (the contents of the file labelled `label`); a relative
/// `pricing` path is taken relative to `base`. Errors as for [`load`].
pub fn parse(
    label: &str,
    text: &str,
    base: &Path,
    overrides: &[(String, String)],
) -> Result<Scenario, InputError> {
    parse_priced(label, text, base, overrides, &[])
}

/// [`parse`], with `extra` prices added to the scenario's price table (each by its `id`,
/// winning over the table's entry of that id): the prices a gateway config sets itself and
/// fallcost.toml's `[prices]`, which `compare --config` prices as `check` does. The table is
/// then named `NAME + own prices`. Errors as for [`load`].
pub fn parse_priced(
    label: &str,
    text: &str,
    base: &Path,
    overrides: &[(String, String)],
    extra: &[crate::model::ModelPrice],
) -> Result<Scenario, InputError> {
    let mut doc = Document::parse(label, text)?;
    // The chains' models before `--set`: a chain whose models it replaces reads the file's
    // per-link lists by model. (A file whose chains do not read is refused below.)
    let written_models = doc
        .deserialize::<file::WrittenChains>()
        .map(|w| w.chains.into_iter().map(|c| c.models).collect())
        .unwrap_or_default();
    overrides::apply(&mut doc, overrides)?;
    let mut file: ScenarioFile = doc.deserialize().map_err(|e: InputError| {
        e.with_file_kind_hint(
            &["models", "verified", "source"],
            "this looks like a price table: show it with `fallcost prices --pricing FILE`, or name it in a scenario's `pricing`",
        )
    })?;
    file.models_overridden = overrides
        .iter()
        .any(|(k, _)| k.starts_with("chain.") && k.ends_with(".models"));
    file.as_written = file::AsWritten {
        models: written_models,
        set_keys: overrides
            .iter()
            .filter_map(|(k, _)| split_dotted_key(k).ok())
            .collect(),
    };
    let pricing_ref = PricingRef::parse(
        file.pricing.as_deref().unwrap_or(default_name()),
        Some(base),
    );
    let prices = pricing_ref.load_shared().map_err(|e| {
        // A table that cannot be found or read is this file's `pricing` field's problem; an
        // error inside a table names the table's own file and line.
        if e.kind == InputErrorKind::Read {
            doc.error_at(
                InputErrorKind::Read,
                &[key("pricing")],
                format!("{}: {}", e.file, e.message),
            )
        } else {
            e
        }
    })?;
    let table_name = prices.name.clone();
    let prices = with_extra(prices, extra);
    let default_name = Path::new(label)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut scenario = resolve(&doc, file, &prices, default_name)?;
    // The table is named `NAME + own prices` only when a chain is priced from one of them.
    let own_used = scenario
        .chains
        .iter()
        .flat_map(|c| &c.links)
        .any(|l| extra.iter().any(|p| p.id == l.price.id));
    if !own_used {
        scenario.pricing = table_name;
    }
    Ok(scenario)
}

/// `table` with `extra` added (each by its id, over the table's entry), named `NAME + own
/// prices`; `table` itself when `extra` is empty.
fn with_extra(
    table: std::sync::Arc<PriceTable>,
    extra: &[crate::model::ModelPrice],
) -> std::sync::Arc<PriceTable> {
    if extra.is_empty() {
        return table;
    }
    let mut t = (*table).clone();
    t.name = format!("{} + own prices", t.name);
    for p in extra {
        t.models.insert(p.id.clone(), p.clone());
    }
    std::sync::Arc::new(t)
}

/// Keep only the chains named in `names` (all of them when `names` is empty), in file order.
///
/// Returns a note when the scenario splits its traffic between its chains (`traffic_share`) and
/// `names` keeps only some of them: the blended rows weight every chain by its share, so they
/// cannot be computed from a part of the chains. The caller leaves them out
/// ([`Report::omit_blended`](crate::report::Report::omit_blended)) and prints the note.
///
/// Errors: a name that is not a chain of the scenario, with the names it has.
pub fn select_chains(
    scenario: &mut Scenario,
    names: &[String],
) -> Result<Option<String>, ValueError> {
    if names.is_empty() {
        return Ok(None);
    }
    for n in names {
        if !scenario.chains.iter().any(|c| &c.name == n) {
            let have: Vec<&str> = scenario.chains.iter().map(|c| c.name.as_str()).collect();
            return Err(ValueError::Unknown(format!(
                "--chain {n}: no such chain in scenario `{}`; it has: {}",
                scenario.name,
                have.join(", ")
            )));
        }
    }
    let all = scenario.chains.len();
    let shared = scenario.chains.iter().any(|c| c.traffic_share.is_some());
    scenario.chains.retain(|c| names.contains(&c.name));
    let kept = scenario.chains.len();
    Ok((shared && kept < all).then(|| {
        format!(
            "the blended rows (all chains, weighted by traffic share) are left out: the blend needs every chain's traffic_share, and --chain selected {kept} of the {all} chains"
        )
    }))
}

fn resolve(
    doc: &Document,
    file: ScenarioFile,
    prices: &PriceTable,
    default_name: String,
) -> Result<Scenario, InputError> {
    let invalid =
        |path: &[PathSegment], msg: String| doc.error_at(InputErrorKind::Invalid, path, msg);
    let _ = file.description;

    let r = &file.request;
    let (request, cache_ttl_s) = resolve_request(doc, r)?;
    let (chains, service_tiers) =
        chains::resolve_chains(doc, &file, prices, &request, cache_ttl_s)?;

    // Where a `--set` replaced a chain's models, an outage on what the chains use as written
    // hits no chain instead of failing as a typo.
    let written = file
        .models_overridden
        .then(|| timeline::WrittenUse::of(&file.as_written.models, prices));
    let incident = match &file.incident {
        None => None,
        Some(i) => Some(resolve_incident(doc, i, &chains, written.as_ref())?),
    };

    Ok(Scenario {
        name: match file.name {
            Some(n) => {
                check_name(&n).map_err(|m| invalid(&[key("name")], m.to_string()))?;
                n
            }
            None => default_name,
        },
        pricing: prices.name.clone(),
        request,
        requires: file.request.requires.clone().unwrap_or_default(),
        chains,
        incident,
        billing: crate::model::ScenarioBilling {
            cache_ttl_s,
            cache_miss: r.cache_miss,
            service_tiers,
        },
    })
}

/// The `[request]` table: token counts (each at most 2^53, exact in an f64), the cache hit
/// rate in [0, 1] and the explicit cache's TTL (5 minutes or 1 hour; MODEL.md §3, §10).
///
/// # Errors
/// An out-of-range field, named with its line.
fn resolve_request(
    doc: &Document,
    r: &file::RequestSpec,
) -> Result<(Request, Option<f64>), InputError> {
    let invalid =
        |path: &[PathSegment], msg: String| doc.error_at(InputErrorKind::Invalid, path, msg);
    let h = r.cache_hit_rate.unwrap_or(1.0);
    check_range(h, 0.0, 1.0)
        .map_err(|m| invalid(&[key("request"), key("cache_hit_rate")], m.to_string()))?;
    for (field, v) in [
        ("input_tokens", r.input_tokens),
        ("output_tokens", r.output_tokens),
        ("prefix_tokens", r.prefix_tokens),
    ] {
        // f64 holds every integer up to 2^53 exactly; far above any real request.
        if v > (1u64 << 53) {
            return Err(invalid(
                &[key("request"), key(field)],
                format!("{v} tokens is beyond what fallcost prices exactly; at most 2^53"),
            ));
        }
    }
    let cache_ttl_s = match &r.cache_ttl {
        None => None,
        Some(t) => {
            let at = [key("request"), key("cache_ttl")];
            let secs = parse_seconds(&t.0).map_err(|m| invalid(&at, m.to_string()))?;
            if secs != 300.0 && secs != crate::model::cost::HOUR_S {
                return Err(invalid(
                    &at,
                    format!(
                        "explicit prompt caches live 5 minutes or 1 hour; got {}: write \"5m\" or \"1h\"",
                        t.0
                    ),
                ));
            }
            Some(secs)
        }
    };
    let request = Request {
        input_tokens: r.input_tokens as f64,
        output_tokens: r.output_tokens as f64,
        prefix_tokens: r.prefix_tokens as f64,
        cache_hit_rate: h,
    };
    Ok((request, cache_ttl_s))
}

/// The `[incident]` table: the outage's duration, the request rate (> 0, at most 1e9 a
/// second), the session length (at least 1) and the timeline, if any; the window must hold
/// between 1 and 1e15 requests (MODEL.md §6, §10). `written`: what the chains use as the file
/// writes them, where a `--set` replaced a chain's models ([`timeline::WrittenUse`]).
///
/// # Errors
/// An out-of-range field, named with its line.
fn resolve_incident(
    doc: &Document,
    i: &file::IncidentSpec,
    chains: &[crate::model::Chain],
    written: Option<&timeline::WrittenUse>,
) -> Result<Incident, InputError> {
    let invalid =
        |path: &[PathSegment], msg: String| doc.error_at(InputErrorKind::Invalid, path, msg);
    let at = |f: &str| [key("incident"), key(f)];
    let duration_s =
        parse_seconds(&i.duration.0).map_err(|m| invalid(&at("duration"), m.to_string()))?;
    check_range(i.requests_per_second, f64::MIN_POSITIVE, 1e9).map_err(|_| {
        invalid(
            &at("requests_per_second"),
            format!(
                "must be > 0 and at most 1e9; got {}",
                show(i.requests_per_second)
            ),
        )
    })?;
    if i.session_length == 0 {
        return Err(invalid(
            &at("session_length"),
            "must be at least 1 request".into(),
        ));
    }
    let n = i.requests_per_second * duration_s;
    if n.round() < 1.0 {
        return Err(invalid(
            &at("duration"),
            format!(
                "the window holds no requests (requests_per_second × duration = {}); lengthen the outage or raise the rate",
                show(n)
            ),
        ));
    }
    if n > 1e15 {
        return Err(invalid(
            &at("duration"),
            format!("the window holds {n:.3e} requests; fallcost prices at most 1e15"),
        ));
    }
    Ok(Incident {
        duration_s,
        requests_per_second: i.requests_per_second,
        session_length: i.session_length,
        failure: i.failure,
        timeline: timeline::resolve(doc, i, duration_s, chains, written)?,
    })
}
