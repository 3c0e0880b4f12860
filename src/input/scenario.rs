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
//! ```
//!
//! When a link's model has a `[latency]` entry and no `timeout_trip_rate(s)` is given, its trip
//! rate is P(L > T) from the latency model; when both hedge legs have one and no
//! `primary_win_rate` is given, w is P(L₀ < L₁ | both ≤ T) ([`crate::model::latency`]). Models
//! without an entry time their attempts with the defaults (p50 2 s, p99 12 s) in the Monte
//! Carlo engine, and their trip rates and w stay as given (0 and 1 by default).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

use super::document::{Document, Segment, split_dotted_key};
use super::duration::{DurationText, parse_seconds};
use super::pricing::{PricingRef, default_name};
use super::{check_name, check_range, read_text, show, suggest};
use crate::error::{InputError, InputErrorKind};
use crate::model::latency::Latency;
use crate::model::policy::{Backoff, Breaker, ErrorClass, ErrorMix, Jitter, WarmPolicy};
use crate::model::{
    AbandonedBilling, Billing, CacheMiss, ChainDraft, FailureMode, Incident, LinkDraft, Policy,
    PriceTable, Request, Scenario, ServiceTier, Steady,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    name: Option<String>,
    description: Option<String>,
    pricing: Option<String>,
    service_tier: Option<ServiceTier>,
    request: RequestSpec,
    #[serde(rename = "chain")]
    chains: Vec<ChainSpec>,
    #[serde(default)]
    steady: SteadySpec,
    incident: Option<IncidentSpec>,
    #[serde(default)]
    policy: PolicySpec,
    #[serde(default)]
    latency: BTreeMap<String, LatencySpec>,
}

/// `[policy]`: client policy, every field optional so a chain can override any of them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySpec {
    timeout_s: Option<f64>,
    retries: Option<u32>,
    backoff: Option<BackoffSpec>,
    failover_on: Option<Vec<FailoverClass>>,
    max_attempts: Option<u32>,
    max_multiplier: Option<f64>,
    warm_fallback: Option<WarmSpec>,
    breaker: Option<BreakerSpec>,
    hedge_delay_s: Option<f64>,
}

/// One entry of `failover_on`: an error class that fails over to the next link. Quota and
/// billing errors stop the chain (MODEL.md §8), so `quota` is refused here, and the error
/// lists exactly the classes [`FailoverClass::accepts`].
#[derive(Debug, Clone, Copy)]
struct FailoverClass(ErrorClass);

impl FailoverClass {
    /// Whether `failover_on` may list `class`: every class but `quota`.
    fn accepts(class: ErrorClass) -> bool {
        class != ErrorClass::Quota
    }

    /// The identifiers `failover_on` accepts, in [`ErrorClass::ALL`] order.
    fn allowed() -> Vec<&'static str> {
        ErrorClass::ALL
            .into_iter()
            .filter(|c| Self::accepts(*c))
            .map(ErrorClass::as_str)
            .collect()
    }
}

impl<'de> Deserialize<'de> for FailoverClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let word = String::deserialize(d)?;
        let allowed = Self::allowed();
        match ErrorClass::ALL.into_iter().find(|c| c.as_str() == word) {
            Some(c) if Self::accepts(c) => Ok(FailoverClass(c)),
            Some(_) => Err(D::Error::custom(format!(
                "`{word}`: quota and billing errors stop the chain, they never fail over; allowed: {}",
                allowed.join(", ")
            ))),
            None => {
                let hint = suggest::nearest(&word, allowed.iter().copied())
                    .map_or(String::new(), |n| format!(" (did you mean `{n}`?)"));
                Err(D::Error::custom(format!(
                    "unknown error class `{word}`{hint}; allowed: {}",
                    allowed.join(", ")
                )))
            }
        }
    }
}

/// `backoff = { base_s = 0.5, cap_s = 8, jitter = "full" }`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct BackoffSpec {
    base_s: Option<f64>,
    cap_s: Option<f64>,
    jitter: Option<Jitter>,
}

/// `breaker = { threshold = 5, cooldown_s = 60 }`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct BreakerSpec {
    threshold: u32,
    cooldown_s: f64,
}

/// `warm_fallback = "always"`, `"never"` or `{ after = 3 }`. Read by hand rather than as an
/// untagged enum, which would accept `{ after = 3, afterr = 1 }` and could not say which word
/// or key was misspelt.
#[derive(Debug, Clone, Copy)]
enum WarmSpec {
    Word(WarmWord),
    After { after: u32 },
}

#[derive(Debug, Clone, Copy)]
enum WarmWord {
    Always,
    Never,
}

impl<'de> Deserialize<'de> for WarmSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = WarmSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"always\", \"never\" or { after = N }")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<WarmSpec, E> {
                match v {
                    "always" => Ok(WarmSpec::Word(WarmWord::Always)),
                    "never" => Ok(WarmSpec::Word(WarmWord::Never)),
                    _ => Err(E::unknown_variant(v, &["always", "never"])),
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<WarmSpec, A::Error> {
                let mut after = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "after" {
                        return Err(serde::de::Error::unknown_field(&key, &["after"]));
                    }
                    if after.is_some() {
                        return Err(serde::de::Error::duplicate_field("after"));
                    }
                    after = Some(map.next_value::<u32>()?);
                }
                after
                    .map(|after| WarmSpec::After { after })
                    .ok_or_else(|| serde::de::Error::missing_field("after"))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `[steady] errors = { rate_limit = 0.4, ... }`: the share of failures in each class.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorsSpec {
    #[serde(default)]
    rate_limit: f64,
    #[serde(default)]
    overload: f64,
    #[serde(default)]
    server_error: f64,
    #[serde(default)]
    timeout: f64,
    #[serde(default)]
    client: f64,
    #[serde(default)]
    quota: f64,
}

/// `[latency."provider/model"]`: a lognormal from a median and a 99th percentile, seconds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LatencySpec {
    p50_s: f64,
    p99_s: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestSpec {
    #[serde(default)]
    input_tokens: u64,
    output_tokens: u64,
    #[serde(default)]
    prefix_tokens: u64,
    cache_hit_rate: Option<f64>,
    cache_ttl: Option<DurationText>,
    cache_miss: Option<CacheMiss>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChainSpec {
    name: String,
    models: Vec<String>,
    #[serde(default)]
    steady: SteadySpec,
    #[serde(default)]
    policy: PolicySpec,
    traffic_share: Option<f64>,
    service_tier: Option<ServiceTier>,
    service_tiers: Option<Vec<ServiceTier>>,
}

/// The `[steady]` fields, all optional, so a chain can override any of them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SteadySpec {
    failure_rate: Option<f64>,
    failure_rates: Option<Vec<f64>>,
    gray_fraction: Option<f64>,
    gray_output_fraction: Option<f64>,
    cancel_output_fraction: Option<f64>,
    timeout_trip_rate: Option<f64>,
    timeout_trip_rates: Option<Vec<f64>>,
    abandoned_billing: Option<AbandonedBilling>,
    primary_win_rate: Option<f64>,
    fast_fail_s: Option<f64>,
    errors: Option<ErrorsSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IncidentSpec {
    duration: DurationText,
    requests_per_second: f64,
    session_length: u64,
    #[serde(default = "fast")]
    failure: FailureMode,
}

fn fast() -> FailureMode {
    FailureMode::Fast
}

/// Settings given either as one value for the chain or as a list with one value per link.
const ALTERNATIVES: [(&str, &str); 3] = [
    ("failure_rate", "failure_rates"),
    ("timeout_trip_rate", "timeout_trip_rates"),
    ("service_tier", "service_tiers"),
];

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

fn key(k: &str) -> Segment {
    Segment::Key(k.to_string())
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
    let mut doc = Document::parse(label, text)?;
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
    let file: ScenarioFile = doc.deserialize().map_err(|e: InputError| {
        e.with_file_kind_hint(
            &["models", "verified", "source"],
            "this looks like a price table: show it with `fallcost prices --pricing FILE`, or name it in a scenario's `pricing`",
        )
    })?;
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
    let default_name = Path::new(label)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    resolve(&doc, file, &prices, default_name)
}

/// Keep only the chains named in `names` (all of them when `names` is empty), in file order.
///
/// Returns a note when the scenario splits its traffic between its chains (`traffic_share`) and
/// `names` keeps only some of them: the blended rows weight every chain by its share, so they
/// cannot be computed from a part of the chains. The caller leaves them out
/// ([`Report::omit_blended`](crate::report::Report::omit_blended)) and prints the note.
///
/// Errors: a name that is not a chain of the scenario, with the names it has.
pub fn select_chains(scenario: &mut Scenario, names: &[String]) -> Result<Option<String>, String> {
    if names.is_empty() {
        return Ok(None);
    }
    for n in names {
        if !scenario.chains.iter().any(|c| &c.name == n) {
            let have: Vec<&str> = scenario.chains.iter().map(|c| c.name.as_str()).collect();
            return Err(format!(
                "--chain {n}: no such chain in scenario `{}`; it has: {}",
                scenario.name,
                have.join(", ")
            ));
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
    let invalid = |path: &[Segment], msg: String| doc.error_at(InputErrorKind::Invalid, path, msg);
    let _ = file.description;

    // [request]
    let r = &file.request;
    let h = r.cache_hit_rate.unwrap_or(1.0);
    check_range(h, 0.0, 1.0).map_err(|m| invalid(&[key("request"), key("cache_hit_rate")], m))?;
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
            let secs = parse_seconds(&t.0).map_err(|m| invalid(&at, m))?;
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

    // [latency]
    // Keyed by the resolved id, exactly as chain models are resolved (a LiteLLM table takes
    // `openai/gpt-4o-mini` for its `gpt-4o-mini`), with the key as written for errors.
    let mut latency = BTreeMap::new();
    let mut latency_keys: BTreeMap<String, &str> = BTreeMap::new();
    for (id, spec) in &file.latency {
        let at = |f: &str| vec![key("latency"), key(id), key(f)];
        let Some(resolved) = prices.get(id).map(|p| p.id.clone()) else {
            let hint = format!("{}{}", prices.lookup_hint(id), broad_hint(&file, id));
            return Err(doc.error_at(
                InputErrorKind::UnknownModel,
                &[key("latency"), key(id)],
                format!(
                    "unknown model `{id}`{hint}: price table {} has no price for it",
                    prices.name
                ),
            ));
        };
        if let Some(first) = latency_keys.insert(resolved.clone(), id) {
            return Err(invalid(
                &[key("latency"), key(id)],
                format!(
                    "`{id}` and `{first}` name the same model `{resolved}`; give it one [latency] entry"
                ),
            ));
        }
        if !(spec.p50_s.is_finite() && spec.p50_s > 0.0 && spec.p50_s <= 1e6) {
            return Err(invalid(
                &at("p50_s"),
                format!(
                    "must be a number of seconds > 0 and at most 1e6; got {}",
                    spec.p50_s
                ),
            ));
        }
        if !(spec.p99_s.is_finite() && spec.p99_s >= spec.p50_s && spec.p99_s <= 1e6) {
            return Err(invalid(
                &at("p99_s"),
                format!(
                    "must be at least p50_s ({}) and at most 1e6 seconds; got {}",
                    spec.p50_s, spec.p99_s
                ),
            ));
        }
        latency.insert(
            resolved,
            Latency {
                p50_s: spec.p50_s,
                p99_s: spec.p99_s,
                given: true,
            },
        );
    }

    // [[chain]]
    if file.chains.is_empty() {
        return Err(invalid(
            &[key("chain")],
            "no chains; add at least one [[chain]] with a name and models".into(),
        ));
    }
    let mut names = BTreeSet::new();
    let mut chains = Vec::new();
    let mut service_tiers: Vec<(String, Vec<ServiceTier>)> = Vec::new();
    for (ci, spec) in file.chains.iter().enumerate() {
        let at = |rest: &[Segment]| -> Vec<Segment> {
            let mut p = vec![key("chain"), Segment::Index(ci)];
            p.extend_from_slice(rest);
            p
        };
        check_name(&spec.name).map_err(|m| invalid(&at(&[key("name")]), m))?;
        if !names.insert(spec.name.as_str()) {
            return Err(invalid(
                &at(&[key("name")]),
                format!(
                    "duplicate chain name `{}`; chain names must be unique",
                    spec.name
                ),
            ));
        }
        if spec.models.is_empty() {
            return Err(invalid(
                &at(&[key("models")]),
                "empty chain; list at least the primary model".into(),
            ));
        }
        let mut links = Vec::new();
        let mut tiers = Vec::with_capacity(spec.models.len());
        for (mi, id) in spec.models.iter().enumerate() {
            let Some(price) = prices.get(id) else {
                let hint = format!("{}{}", prices.lookup_hint(id), broad_hint(&file, id));
                return Err(doc.error_at(
                    InputErrorKind::UnknownModel,
                    &at(&[key("models"), Segment::Index(mi)]),
                    format!(
                        "unknown model `{id}`{hint}: price table {} has no price for it, and an unknown price is never taken as zero; run `fallcost prices --pricing {}` to list its models",
                        prices.name, prices.name
                    ),
                ));
            };
            let service = match (&spec.service_tiers, spec.service_tier) {
                (Some(list), _) => match list.get(mi) {
                    Some(s) => *s,
                    None => {
                        return Err(invalid(
                            &at(&[key("service_tiers")]),
                            format!(
                                "gives {} service tiers for {} models; give one per model, primary first",
                                list.len(),
                                spec.models.len()
                            ),
                        ));
                    }
                },
                (None, Some(s)) => s,
                (None, None) => file.service_tier.unwrap_or_default(),
            };
            let billing = Billing {
                service,
                cache_ttl_s,
                cache_miss: r.cache_miss,
            };
            let billed = request.billed(price, &billing).map_err(|m| {
                let field = if spec.service_tiers.is_some() {
                    at(&[key("service_tiers"), Segment::Index(mi)])
                } else if spec.service_tier.is_some() {
                    at(&[key("service_tier")])
                } else if service != ServiceTier::Standard {
                    vec![key("service_tier")]
                } else if r.cache_ttl.is_some() {
                    vec![key("request"), key("cache_ttl")]
                } else {
                    at(&[key("models"), Segment::Index(mi)])
                };
                invalid(&field, m)
            })?;
            links.push(billed);
            tiers.push(service);
        }
        if let Some(list) = &spec.service_tiers
            && list.len() != spec.models.len()
        {
            return Err(invalid(
                &at(&[key("service_tiers")]),
                format!(
                    "gives {} service tiers for {} models; give one per model, primary first",
                    list.len(),
                    spec.models.len()
                ),
            ));
        }
        let steady = resolve_steady(doc, &file.steady, &spec.steady, links.len(), ci)?;
        let policy = resolve_policy(doc, &file.policy, &spec.policy, ci)?;
        let links = links
            .into_iter()
            .enumerate()
            .map(|(i, price)| LinkDraft {
                latency: latency.get(&price.id).copied().unwrap_or_default(),
                price,
                failure_rate: steady.failure_rates[i],
                trip_rate: steady.trip_rates.as_ref().map(|t| t[i]),
            })
            .collect();
        if let Some(share) = spec.traffic_share
            && !(share.is_finite() && share > 0.0 && share <= 1.0)
        {
            return Err(invalid(
                &at(&[key("traffic_share")]),
                format!("must be in (0, 1]; got {}", show(share)),
            ));
        }
        service_tiers.push((spec.name.clone(), tiers));
        chains.push(
            ChainDraft {
                name: spec.name.clone(),
                links,
                steady: steady.shared,
                primary_win_rate: steady.primary_win_rate,
                policy,
                traffic_share: spec.traffic_share,
            }
            .build(),
        );
    }
    // A latency entry for a model no chain uses applies to nothing: a typo or a stale entry.
    for (resolved, written) in &latency_keys {
        if !chains.iter().any(|c| c.prices().any(|l| &l.id == resolved)) {
            return Err(invalid(
                &[key("latency"), key(written)],
                format!(
                    "`{written}` is no chain's model: [latency] entries apply to the models listed in a [[chain]]'s `models` (remove it, or add the model to a chain)"
                ),
            ));
        }
    }
    // Traffic shares split the traffic across all the chains, or none.
    let shared = file
        .chains
        .iter()
        .filter(|c| c.traffic_share.is_some())
        .count();
    if shared > 0 {
        let first_missing = file.chains.iter().position(|c| c.traffic_share.is_none());
        if let Some(ci) = first_missing {
            return Err(invalid(
                &[key("chain"), Segment::Index(ci), key("name")],
                "other chains give a traffic_share; give one for every chain, adding up to 1"
                    .into(),
            ));
        }
        let sum: f64 = file.chains.iter().filter_map(|c| c.traffic_share).sum();
        if (sum - 1.0).abs() > 1e-9 {
            return Err(invalid(
                &[key("chain"), Segment::Index(0), key("traffic_share")],
                format!(
                    "the chains' traffic_share values add up to {}; they must add up to 1",
                    show(sum)
                ),
            ));
        }
    }

    // [incident]
    let incident = match &file.incident {
        None => None,
        Some(i) => {
            let at = |f: &str| [key("incident"), key(f)];
            let duration_s =
                parse_seconds(&i.duration.0).map_err(|m| invalid(&at("duration"), m))?;
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
            Some(Incident {
                duration_s,
                requests_per_second: i.requests_per_second,
                session_length: i.session_length,
                failure: i.failure,
            })
        }
    };

    Ok(Scenario {
        name: match file.name {
            Some(n) => {
                check_name(&n).map_err(|m| invalid(&[key("name")], m))?;
                n
            }
            None => default_name,
        },
        pricing: prices.name.clone(),
        request,
        chains,
        incident,
        billing: crate::model::ScenarioBilling {
            cache_ttl_s,
            cache_miss: r.cache_miss,
            service_tiers,
        },
    })
}

/// The chain's policy: its own `policy` fields, then the scenario's, then defaults.
fn resolve_policy(
    doc: &Document,
    top: &PolicySpec,
    own: &PolicySpec,
    chain_index: usize,
) -> Result<Policy, InputError> {
    let d = Policy::default();
    let path = |field: &str, in_chain: bool| -> Vec<Segment> {
        if in_chain {
            vec![
                key("chain"),
                Segment::Index(chain_index),
                key("policy"),
                key(field),
            ]
        } else {
            vec![key("policy"), key(field)]
        }
    };
    let bad = |field: &str, in_chain: bool, msg: String| {
        doc.error_at(InputErrorKind::Invalid, &path(field, in_chain), msg)
    };
    let seconds = |field: &str, own_v: Option<f64>, top_v: Option<f64>, lo_exclusive: bool| {
        let v = own_v.or(top_v);
        if let Some(x) = v {
            let ok = x.is_finite() && x <= 1e6 && if lo_exclusive { x > 0.0 } else { x >= 0.0 };
            if !ok {
                let lo = if lo_exclusive { "> 0" } else { ">= 0" };
                return Err(bad(
                    field,
                    own_v.is_some(),
                    format!(
                        "must be a number of seconds {lo} and at most 1e6; got {}",
                        show(x)
                    ),
                ));
            }
        }
        Ok(v)
    };
    let timeout_s =
        seconds("timeout_s", own.timeout_s, top.timeout_s, true)?.unwrap_or(d.timeout_s);
    let retries = own.retries.or(top.retries).unwrap_or(d.retries);
    if retries > 100 {
        return Err(bad(
            "retries",
            own.retries.is_some(),
            format!("{retries} retries is not a client policy; at most 100"),
        ));
    }
    let b_own = own.backoff;
    let b_top = top.backoff;
    let backoff_field = |f: fn(&BackoffSpec) -> Option<f64>| {
        b_own.and_then(|b| f(&b)).or(b_top.and_then(|b| f(&b)))
    };
    let in_chain_backoff = b_own.is_some();
    let base_s = backoff_field(|b| b.base_s).unwrap_or(d.backoff.base_s);
    let cap_s = backoff_field(|b| b.cap_s).unwrap_or(d.backoff.cap_s);
    for (name, v) in [("base_s", base_s), ("cap_s", cap_s)] {
        if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
            return Err(doc.error_at(
                InputErrorKind::Invalid,
                &path("backoff", in_chain_backoff),
                format!(
                    "{name} must be a number of seconds in [0, 1e6]; got {}",
                    show(v)
                ),
            ));
        }
    }
    if base_s > cap_s {
        return Err(doc.error_at(
            InputErrorKind::Invalid,
            &path("backoff", in_chain_backoff),
            format!(
                "base_s ({}) is above cap_s ({}): every delay would be the cap; use base_s <= cap_s",
                show(base_s),
                show(cap_s)
            ),
        ));
    }
    let jitter = b_own
        .and_then(|b| b.jitter)
        .or(b_top.and_then(|b| b.jitter))
        .unwrap_or(d.backoff.jitter);
    let failover_on = match (&own.failover_on, &top.failover_on) {
        (Some(l), _) | (None, Some(l)) => l.iter().map(|c| c.0).collect(),
        (None, None) => d.failover_on.clone(),
    };
    let max_attempts = own.max_attempts.or(top.max_attempts);
    if max_attempts == Some(0) {
        return Err(bad(
            "max_attempts",
            own.max_attempts.is_some(),
            "must be at least 1 attempt".into(),
        ));
    }
    let max_multiplier = own.max_multiplier.or(top.max_multiplier);
    if let Some(m) = max_multiplier
        && !(m.is_finite() && m > 0.0 && m <= 1e6)
    {
        return Err(bad(
            "max_multiplier",
            own.max_multiplier.is_some(),
            format!("must be a ratio > 0, e.g. 1.5; got {}", show(m)),
        ));
    }
    let warm_fallback = match own.warm_fallback.or(top.warm_fallback) {
        None => d.warm_fallback,
        Some(WarmSpec::Word(WarmWord::Always)) => WarmPolicy::Always,
        Some(WarmSpec::Word(WarmWord::Never)) => WarmPolicy::Never,
        Some(WarmSpec::After { after }) => WarmPolicy::After(after),
    };
    let breaker = match own.breaker.or(top.breaker) {
        None => None,
        Some(b) => {
            let in_chain = own.breaker.is_some();
            if b.threshold == 0 {
                return Err(bad(
                    "breaker",
                    in_chain,
                    "threshold must be at least 1 failure".into(),
                ));
            }
            if !(b.cooldown_s.is_finite() && b.cooldown_s > 0.0 && b.cooldown_s <= 1e6) {
                return Err(bad(
                    "breaker",
                    in_chain,
                    format!(
                        "cooldown_s must be a number of seconds > 0; got {}",
                        show(b.cooldown_s)
                    ),
                ));
            }
            Some(Breaker {
                threshold: b.threshold,
                cooldown_s: b.cooldown_s,
            })
        }
    };
    let hedge_delay_s = seconds("hedge_delay_s", own.hedge_delay_s, top.hedge_delay_s, false)?;
    if let Some(d) = hedge_delay_s
        && d >= timeout_s
    {
        return Err(bad(
            "hedge_delay_s",
            own.hedge_delay_s.is_some(),
            format!(
                "a hedge sent after {} s never races a primary that times out at {} s; use a delay below timeout_s (e.g. the primary's p95)",
                show(d),
                show(timeout_s)
            ),
        ));
    }
    Ok(Policy {
        hedge_delay_s,
        timeout_s,
        retries,
        backoff: Backoff {
            base_s,
            cap_s,
            jitter,
        },
        failover_on,
        max_attempts,
        max_multiplier,
        warm_fallback,
        breaker,
    })
}

/// A chain's `steady` settings resolved: the parameters its links share, and the per-link
/// rates and w as given, which [`ChainDraft::build`] completes from the latency models.
struct ResolvedSteady {
    /// The shared parameters (their `primary_win_rate` is set by [`ChainDraft::build`]).
    shared: Steady,
    /// Per link, the failure rate.
    failure_rates: Vec<f64>,
    /// Per link, the trip rate, when the scenario gives `timeout_trip_rate(s)` at any level.
    trip_rates: Option<Vec<f64>>,
    /// w, when the scenario gives `primary_win_rate` at any level.
    primary_win_rate: Option<f64>,
}

/// The chain's steady parameters: its own `steady` fields, then the scenario's, then defaults.
fn resolve_steady(
    doc: &Document,
    top: &SteadySpec,
    own: &SteadySpec,
    links: usize,
    chain_index: usize,
) -> Result<ResolvedSteady, InputError> {
    let d = Steady::default();
    // The path of a field as the user wrote it: in the chain's table if set there.
    let path = |field: &str, in_chain: bool| -> Vec<Segment> {
        if in_chain {
            vec![
                key("chain"),
                Segment::Index(chain_index),
                key("steady"),
                key(field),
            ]
        } else {
            vec![key("steady"), key(field)]
        }
    };
    let rate = |field: &str, own_v: Option<f64>, top_v: Option<f64>, default: f64| {
        let v = own_v.or(top_v).unwrap_or(default);
        check_range(v, 0.0, 1.0)
            .map(|_| v)
            .map_err(|m| doc.error_at(InputErrorKind::Invalid, &path(field, own_v.is_some()), m))
    };
    // A per-link list wins over a scalar at the same level; the chain's level wins over the
    // scenario's. `scalar_all` says whether the scalar applies to every link or the primary.
    let per_link = |list: &str,
                    scalar: &str,
                    own_l: &Option<Vec<f64>>,
                    own_s: Option<f64>,
                    top_l: &Option<Vec<f64>>,
                    top_s: Option<f64>,
                    scalar_all: bool|
     -> Result<Vec<f64>, InputError> {
        let from_scalar = |v: f64, in_chain: bool| -> Result<Vec<f64>, InputError> {
            check_range(v, 0.0, 1.0)
                .map_err(|m| doc.error_at(InputErrorKind::Invalid, &path(scalar, in_chain), m))?;
            Ok(if scalar_all {
                vec![v; links]
            } else {
                let mut out = vec![0.0; links];
                out[0] = v;
                out
            })
        };
        let from_list = |l: &Vec<f64>, in_chain: bool| -> Result<Vec<f64>, InputError> {
            if l.len() != links {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path(list, in_chain),
                    format!(
                        "has {} values for a chain of {links} models; give one per model",
                        l.len()
                    ),
                ));
            }
            for (i, v) in l.iter().enumerate() {
                check_range(*v, 0.0, 1.0).map_err(|m| {
                    let mut p = path(list, in_chain);
                    p.push(Segment::Index(i));
                    doc.error_at(InputErrorKind::Invalid, &p, m)
                })?;
            }
            Ok(l.clone())
        };
        for (l, v, in_chain) in [(own_l, own_s, true), (top_l, top_s, false)] {
            if l.is_some() && v.is_some() {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path(scalar, in_chain),
                    format!("give either {scalar} (one value) or {list} (one per link), not both"),
                ));
            }
        }
        match (own_l, own_s, top_l, top_s) {
            (Some(l), _, _, _) => from_list(l, true),
            (None, Some(v), _, _) => from_scalar(v, true),
            (None, None, Some(l), _) => from_list(l, false),
            (None, None, None, Some(v)) => from_scalar(v, false),
            (None, None, None, None) => Ok(vec![0.0; links]),
        }
    };
    let error_mix = match (own.errors, top.errors) {
        (Some(e), _) | (None, Some(e)) => {
            let in_chain = own.errors.is_some();
            let given_gray = if in_chain {
                own.gray_fraction.is_some()
            } else {
                top.gray_fraction.is_some() || own.gray_fraction.is_some()
            };
            if given_gray {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path("gray_fraction", own.gray_fraction.is_some()),
                    "give either gray_fraction or errors (whose `timeout` share is the gray fraction), not both".to_string(),
                ));
            }
            let shares = [
                e.rate_limit,
                e.overload,
                e.server_error,
                e.timeout,
                e.client,
                e.quota,
            ];
            let sum: f64 = shares.iter().sum();
            if shares
                .iter()
                .any(|x| !(x.is_finite() && (0.0..=1.0).contains(x)))
                || (sum - 1.0).abs() > 1e-9
            {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path("errors", in_chain),
                    format!("shares of failures must each be in [0, 1] and add up to 1; they add up to {}", show(sum)),
                ));
            }
            Some(ErrorMix { shares })
        }
        (None, None) => None,
    };
    let failure_rates = per_link(
        "failure_rates",
        "failure_rate",
        &own.failure_rates,
        own.failure_rate,
        &top.failure_rates,
        top.failure_rate,
        true,
    )?;
    let trip_rates = per_link(
        "timeout_trip_rates",
        "timeout_trip_rate",
        &own.timeout_trip_rates,
        own.timeout_trip_rate,
        &top.timeout_trip_rates,
        top.timeout_trip_rate,
        false,
    )?;
    // Trip rates given anywhere apply to every link; else the latency models derive them.
    let trips_given = own.timeout_trip_rate.is_some()
        || own.timeout_trip_rates.is_some()
        || top.timeout_trip_rate.is_some()
        || top.timeout_trip_rates.is_some();
    let primary_win_rate = rate(
        "primary_win_rate",
        own.primary_win_rate,
        top.primary_win_rate,
        d.primary_win_rate,
    )?;
    let win_given = own.primary_win_rate.is_some() || top.primary_win_rate.is_some();
    let shared = Steady {
        error_mix,
        gray_fraction: rate(
            "gray_fraction",
            own.gray_fraction,
            top.gray_fraction,
            d.gray_fraction,
        )?,
        gray_output_fraction: rate(
            "gray_output_fraction",
            own.gray_output_fraction,
            top.gray_output_fraction,
            d.gray_output_fraction,
        )?,
        cancel_output_fraction: rate(
            "cancel_output_fraction",
            own.cancel_output_fraction,
            top.cancel_output_fraction,
            d.cancel_output_fraction,
        )?,
        abandoned_billing: own
            .abandoned_billing
            .or(top.abandoned_billing)
            .unwrap_or(d.abandoned_billing),
        primary_win_rate,
        fast_fail_s: {
            let v = own.fast_fail_s.or(top.fast_fail_s).unwrap_or(d.fast_fail_s);
            check_range(v, 0.0, 1e6).map_err(|m| {
                doc.error_at(
                    InputErrorKind::Invalid,
                    &path("fast_fail_s", own.fast_fail_s.is_some()),
                    m,
                )
            })?;
            v
        },
        win_from_latency: false,
    };
    Ok(ResolvedSteady {
        shared,
        failure_rates,
        trip_rates: trips_given.then_some(trip_rates),
        primary_win_rate: win_given.then_some(primary_win_rate),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::pricing::bundled;

    fn load_str(text: &str) -> Result<Scenario, InputError> {
        let doc = Document::parse("s.toml", text)?;
        let file: ScenarioFile = doc.deserialize()?;
        resolve(&doc, file, &bundled("2026-07").unwrap(), "s".into())
    }

    fn failure_rates(c: &crate::model::Chain) -> Vec<f64> {
        c.links.iter().map(|l| l.failure_rate).collect()
    }

    fn trip_rates(c: &crate::model::Chain) -> Vec<f64> {
        c.links.iter().map(|l| l.trip_rate).collect()
    }

    const HEAD: &str = "[request]\noutput_tokens = 500\ninput_tokens = 2000\n";

    #[test]
    fn chain_overrides_win_over_the_scenario_and_lists_over_scalars() {
        let text = format!(
            "{HEAD}[steady]\nfailure_rate = 0.1\ntimeout_trip_rate = 0.05\n\
             [[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n\
             [[chain]]\nname = \"b\"\nmodels = [\"openai/gpt-5.6-sol\", \"anthropic/claude-sonnet-5\"]\n\
             steady = {{ failure_rates = [0.2, 0.0], gray_fraction = 0.5 }}\n"
        );
        let s = load_str(&text).unwrap();
        assert_eq!(failure_rates(&s.chains[0]), vec![0.1, 0.1]);
        assert_eq!(trip_rates(&s.chains[0]), vec![0.05, 0.0]);
        assert_eq!(failure_rates(&s.chains[1]), vec![0.2, 0.0]);
        assert_eq!(s.chains[1].steady.gray_fraction, 0.5);
        assert_eq!(trip_rates(&s.chains[1]), vec![0.05, 0.0]);
        assert_eq!(s.request.cache_hit_rate, 1.0);
    }

    #[test]
    fn unknown_model_is_an_error_at_its_line_with_a_suggestion() {
        let text = format!(
            "{HEAD}[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\", \"openai/gpt-6-astro\"]\n"
        );
        let e = load_str(&text).unwrap_err();
        assert_eq!(e.kind, InputErrorKind::UnknownModel);
        assert_eq!(e.field.as_deref(), Some("chain[0].models[1]"));
        assert_eq!(e.location.unwrap().line, 6);
        assert!(
            e.message.contains("did you mean `openai/gpt-6-astra`"),
            "{e}"
        );
    }

    #[test]
    fn out_of_range_values_name_their_field() {
        let cases = [
            ("[steady]\nfailure_rate = 1.5\n", "steady.failure_rate"),
            ("[steady]\nfailure_rates = [0.1]\n", "steady.failure_rates"),
            ("[steady]\ngray_fraction = nan\n", "steady.gray_fraction"),
            (
                "[incident]\nduration = \"3\"\nrequests_per_second = 1\nsession_length = 2\n",
                "incident.duration",
            ),
            (
                "[incident]\nduration = \"3h\"\nrequests_per_second = 0\nsession_length = 2\n",
                "incident.requests_per_second",
            ),
            (
                "[incident]\nduration = \"3h\"\nrequests_per_second = 1\nsession_length = 0\n",
                "incident.session_length",
            ),
        ];
        for (extra, field) in cases {
            let text = format!(
                "{HEAD}[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\", \"openai/gpt-6-luna\"]\n{extra}"
            );
            let e = load_str(&text).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{e}");
            assert!(e.location.is_some(), "{e}");
        }
    }

    #[test]
    fn duplicate_chain_names_are_refused() {
        let text = format!(
            "{HEAD}[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\"]\n[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\"]\n"
        );
        let e = load_str(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("chain[1].name"));
        assert!(e.message.contains("duplicate"));
    }

    const TWO: &str =
        "[[chain]]\nname = \"a\"\nmodels = [\"openai/gpt-6-sol\", \"anthropic/claude-sonnet-5\"]\n";

    /// A given latency model derives the trip rates (P(L > T)) and w; defaults derive nothing.
    #[test]
    fn latency_entries_derive_trips_and_the_win_share() {
        let text = format!(
            "{HEAD}{TWO}policy = {{ timeout_s = 12 }}\n\
             [latency.\"openai/gpt-6-sol\"]\np50_s = 2.0\np99_s = 12.0\n\
             [latency.\"anthropic/claude-sonnet-5\"]\np50_s = 2.0\np99_s = 12.0\n"
        );
        let s = load_str(&text).unwrap();
        let c = &s.chains[0];
        assert_eq!(c.policy.timeout_s, 12.0);
        assert!((c.links[0].trip_rate - 0.01).abs() < 1e-12);
        assert!((c.links[1].trip_rate - 0.01).abs() < 1e-12);
        assert_eq!(
            c.links
                .iter()
                .map(|l| l.trip_from_latency)
                .collect::<Vec<_>>(),
            vec![true, true]
        );
        assert!(c.steady.win_from_latency);
        assert!((c.steady.primary_win_rate - 0.5).abs() < 1e-9);

        // Given trip rates and w win over the latency model.
        let text = format!(
            "{HEAD}{TWO}[steady]\ntimeout_trip_rate = 0.05\nprimary_win_rate = 0.9\n\
             [latency.\"openai/gpt-6-sol\"]\np50_s = 2.0\np99_s = 12.0\n\
             [latency.\"anthropic/claude-sonnet-5\"]\np50_s = 2.0\np99_s = 12.0\n"
        );
        let c = &load_str(&text).unwrap().chains[0];
        assert_eq!(trip_rates(&c), vec![0.05, 0.0]);
        assert_eq!(c.steady.primary_win_rate, 0.9);
        assert!(!c.steady.win_from_latency);

        // No [latency]: the worked examples' trips (0) and w (1) are kept, default timing.
        let c = &load_str(&format!("{HEAD}{TWO}")).unwrap().chains[0];
        assert_eq!(trip_rates(&c), vec![0.0, 0.0]);
        assert_eq!(c.steady.primary_win_rate, 1.0);
        assert_eq!(c.policy.timeout_s, 30.0);
        assert!(!c.links[0].latency.given);
    }

    #[test]
    fn bad_latency_and_policy_values_name_their_field() {
        let cases = [
            (
                "[latency.\"openai/gpt-6-sol\"]\np50_s = 0\np99_s = 1\n",
                "latency.\"openai/gpt-6-sol\".p50_s",
                8,
            ),
            (
                "[latency.\"openai/gpt-6-sol\"]\np50_s = 2\np99_s = 1\n",
                "latency.\"openai/gpt-6-sol\".p99_s",
                9,
            ),
            (
                "[latency.\"openai/gpt-6-sol\"]\np50_s = 2\np99_s = 3\np90_s = 1\n",
                "latency.\"openai/gpt-6-sol\".p90_s",
                10,
            ),
            (
                "[latency.\"openai/gpt-6-solo\"]\np50_s = 2\np99_s = 3\n",
                "latency.\"openai/gpt-6-solo\"",
                7,
            ),
            ("[policy]\ntimeout_s = -1\n", "policy.timeout_s", 8),
            ("[policy]\nretris = 2\n", "policy.retris", 8),
            (
                "[policy]\nfailover_on = [\"timeout\", \"quota\"]\n",
                "policy.failover_on[1]",
                8,
            ),
            ("[policy]\nmax_attempts = 0\n", "policy.max_attempts", 8),
            (
                "[policy]\nmax_multiplier = -1\n",
                "policy.max_multiplier",
                8,
            ),
            (
                "[policy]\nbreaker = { threshold = 0, cooldown_s = 5 }\n",
                "policy.breaker",
                8,
            ),
            (
                "[policy]\nwarm_fallback = \"sometimes\"\n",
                "policy.warm_fallback",
                8,
            ),
            (
                "[steady]\nerrors = { rate_limit = 0.5 }\n",
                "steady.errors",
                8,
            ),
            ("[steady]\nfast_fail_s = -1\n", "steady.fast_fail_s", 8),
        ];
        for (extra, field, line) in cases {
            let text = format!("{HEAD}{TWO}{extra}");
            let e = load_str(&text).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{e}");
            assert_eq!(e.location.map(|l| l.line), Some(line), "{e}");
        }
    }
}
