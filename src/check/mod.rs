//! `fallcost check`: the three-down post's audit as a CI gate. Find every fallback chain (fallcost
//! scenarios, LiteLLM proxy configs, Portkey configs), flag every fallback priced above
//! `max_ratio` times its primary, and warn about chains that never leave the primary's provider.
//!
//! The price compared is the **like-for-like price per request**: the same request priced for
//! the primary and for the fallback in the warm cache state, with the same token counts
//! (MODEL.md §3, [`Request::like_for_like`], shared with the cost cap), shown in USD per 1,000
//! requests. The request is the scenario's `[request]`, or the `--profile` for gateway configs.
//!
//! A link is *above* the limit when `fallback > max_ratio × primary × (1 + REL_TOL)` ([`above`]):
//! a link at exactly the ratio passes whatever binary floating point does with the products, and
//! a free primary (price 0) with a paid fallback is above any ratio, without a division. The
//! ratio is shown with as many decimals as it takes to show it above the limit ([`format_ratio`]),
//! and the limit as given ([`format_limit`]). A group of several deployments whose traffic
//! shares the gateway settles (a LiteLLM group: `weight`/`rpm`/`tpm`, else equal shares, as its
//! `simple_shuffle` picks) is judged by the traffic it really sends, its mix, with its
//! cheapest–dearest range shown beside (a Portkey loadbalance by its weights, too); a step whose
//! shares are not known (a Portkey conditional router) is judged in its worst case: the cheapest primary model against the dearest
//! fallback model.
//!
//! This module returns [`Finding`]s and input errors; the exit code is decided once, by
//! [`CheckReport::exit_status`].

pub mod files;
pub mod render;
pub mod sarif;

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use serde::Serialize;

use crate::error::{ExitStatus, InputError, InputErrorKind, Location};
use crate::input::gateway::{Config, Endpoint, Group, Notice};
use crate::model::{Caching, ModelPrice, PriceTable, Request};

/// Relative tolerance of the ratio comparison: a fallback must cost more than
/// `max_ratio × primary × (1 + 1e-12)` to be above the limit. The rounding error of the products
/// and the division is about 1e-16 relative, thousands of times smaller, so an exact decimal 2x
/// passes at 2; a limit 1e-10 below the ratio (`--max-ratio 1.9999999999`) is far larger, so the
/// link fails it.
pub const REL_TOL: f64 = crate::model::cost::PRICE_RATIO_REL_TOL;

/// Whether a fallback costing `fallback` is above `max_ratio` times a primary costing `primary`
/// (any consistent unit, e.g. USD per 1,000 requests). Exactly at the ratio is not above. A free
/// primary makes any paid fallback above; two free models are not.
pub fn above(fallback: f64, primary: f64, max_ratio: f64) -> bool {
    crate::model::cost::above_ratio(fallback, primary, max_ratio)
}

pub use crate::model::cost::per_1k;

/// What `fallcost check` is asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// A fallback above this multiple of its primary's price is a finding (default 2.0).
    pub max_ratio: f64,
    /// The request gateway configs are priced with (`--profile IN/OUT`; default 2,000 input and
    /// 500 output tokens, no cached prefix). Scenarios use their own `[request]`.
    pub profile: Request,
    /// The price table for gateway configs (`--pricing`; default the newest bundled table).
    /// Scenarios use their own `pricing`, as `fallcost compare` does.
    pub prices: PriceTable,
    /// Models and providers whose links are allowed above the ratio (`--allow`): a link whose
    /// primary (every model of it) or fallback matches one ([`allows`]) is a note, not an error.
    /// For local-first setups: a free ollama or LM Studio primary with a paid cloud fallback.
    pub allow: Vec<String>,
    /// The project settings file `allow` was read from (`fallcost.toml`'s `[check] allow`);
    /// `None`: the `--allow` flags (or no list).
    pub allow_from: Option<String>,
    /// `--incident DURATION`: also judge each fallback by what an outage of the primary's
    /// provider costs (see [`judge_incident`]).
    pub incident: Option<IncidentCheck>,
}

/// An outage of a chain's primary provider, for `check --incident` (MODEL.md §6 with instant
/// detection: every request of the window fails over at once).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IncidentCheck {
    /// D: how long the primary's provider is down, seconds.
    pub duration_s: f64,
    /// λ: requests per second (default 1).
    pub requests_per_second: f64,
    /// L: requests per session, each session with its own cache (default 20).
    pub session_length: u64,
}

/// What one link costs in an incident of the primary's provider (MODEL.md §6): money in USD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IncidentFigures {
    /// A session's first failover (cold cache, or a cache write) against the primary warm.
    pub first_ratio: Option<f64>,
    /// total / normal over the window; `None` for a free primary.
    pub multiplier: Option<f64>,
    /// N: requests in the window.
    pub requests: u64,
    /// S: sessions in the window.
    pub sessions: u64,
    /// The window's total: fallback warm, cold starts, fail-back writes.
    pub total: f64,
    /// The same requests on the primary, warm.
    pub normal: f64,
}

/// The incident figures of the link `primary -> fallback` (USD per request from the sides'
/// per-1,000 prices). The primary's cache is rewritten when sessions fail back only if the
/// outage outlives it and the fallback leaves the primary's provider.
pub fn incident_figures(
    primary: &Side,
    fallback: &Side,
    incident: &IncidentCheck,
) -> IncidentFigures {
    let n = (incident.requests_per_second * incident.duration_s).round() as u64;
    let s = n.div_ceil(incident.session_length.max(1));
    let (pw, fw) = (
        primary.judged_as_primary() / 1000.0,
        fallback.judged_as_fallback() / 1000.0,
    );
    let (pf, ff) = (primary.first(false) / 1000.0, fallback.first(true) / 1000.0);
    let leaves = !fallback.families().is_subset(&primary.families());
    let ttl = primary
        .models
        .iter()
        .filter_map(|m| m.cache_ttl_s)
        .fold(f64::INFINITY, f64::min);
    let failback = if leaves && ttl.is_finite() && incident.duration_s > ttl {
        s as f64 * (pf - pw).max(0.0)
    } else {
        0.0
    };
    let normal = n as f64 * pw;
    let total = n as f64 * fw + s as f64 * (ff - fw).max(0.0) + failback;
    IncidentFigures {
        first_ratio: (pw > 0.0).then(|| ff / pw),
        multiplier: (normal > 0.0).then(|| total / normal),
        requests: n,
        sessions: s,
        total,
        normal,
    }
}

/// Judge each link of `chain` in an incident of its primary's provider: a link within
/// `max_ratio` at warm list prices whose first failover of a session (cold cache or write), or
/// whose incident multiplier, is above it is a finding (allowed links, see [`allows`], are
/// notes). A link already above at warm prices is not reported twice.
pub fn judge_incident(
    chain: &PricedChain,
    max_ratio: f64,
    allow: &[String],
    incident: &IncidentCheck,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for link in &chain.links {
        let (p, fb) = (
            chain.primary.judged_as_primary(),
            link.fallback.judged_as_fallback(),
        );
        if above(fb, p, max_ratio) {
            continue;
        }
        let fig = incident_figures(&chain.primary, &link.fallback, incident);
        let first_above = above(link.fallback.first(true), p, max_ratio);
        let window_above = fig.normal > 0.0 && above(fig.total, fig.normal, max_ratio);
        if first_above || window_above {
            out.push(Finding::IncidentCost {
                file: link.file.clone(),
                line: link.line,
                chain: chain.name.clone(),
                primary: chain.primary.clone(),
                fallback: link.fallback.clone(),
                warm_ratio: (p > 0.0).then(|| fb / p),
                figures: fig,
                incident: *incident,
                max_ratio,
                allowed: allows(allow, &chain.primary)
                    .or_else(|| allows(allow, &link.fallback))
                    .map(str::to_string),
                allowed_from: None,
            });
        }
    }
    out
}

/// The entry of `allow` that `side` matches, if any: every model of the step is the entry
/// (its id as written or as priced), runs on the entry as its provider (or provider family), or
/// has the entry as its provider prefix (`ollama` allows `ollama/llama3`).
pub fn allows<'a>(allow: &'a [String], side: &Side) -> Option<&'a str> {
    allow
        .iter()
        .find(|a| {
            let a = a.as_str();
            side.models.iter().all(|m| {
                m.model == a
                    || m.priced_as == a
                    || m.provider == a
                    || provider_family(&m.provider) == a
                    || m.model.strip_prefix(a).is_some_and(|r| r.starts_with('/'))
            })
        })
        .map(String::as_str)
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run (exit 1).
    Error,
    /// Fails the run only under `--deny-warnings`.
    Warning,
    /// Information; never fails the run.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One model of one chain step, priced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PricedModel {
    /// The model as the file names it.
    pub model: String,
    /// Where the price comes from: the price table's key, or `config` for prices the gateway
    /// config sets itself.
    pub priced_as: String,
    /// The failure domain (provider) the chain check uses.
    pub provider: String,
    /// Like-for-like price, USD per 1,000 requests.
    pub per_1k_usd: f64,
    /// The share of its step's traffic this model gets (0 to 1), when the gateway's routing
    /// says (see [`Side::mix_per_1k_usd`]).
    pub share: Option<f64>,
    /// The price of a session's first request on this model while its cache is cold (cold, or
    /// a cache write for `explicit` caching: [`crate::model::cost::first_state`]), USD per 1,000
    /// requests. Equal to [`PricedModel::per_1k_usd`] without a cached prefix.
    pub first_per_1k_usd: f64,
    /// How long the model's cache lives, seconds; `None` when it does not cache.
    pub cache_ttl_s: Option<f64>,
}

impl PricedModel {
    /// `model` priced for `request`: warm, and a session's first request.
    pub fn priced(
        model: String,
        priced_as: String,
        provider: String,
        request: &Request,
        price: &ModelPrice,
    ) -> PricedModel {
        PricedModel {
            model,
            priced_as,
            provider,
            per_1k_usd: per_1k(request, price),
            share: None,
            first_per_1k_usd: 1000.0
                * request.success_cost(price, crate::model::cost::first_state(price)),
            cache_ttl_s: (price.caching != Caching::None).then_some(price.cache_ttl_s),
        }
    }
}

/// One step of a chain (a model, a LiteLLM group, a Portkey target), priced: a range when it has
/// several models.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// The step's name: a model id, a group name, a target.
    pub name: String,
    /// The cheapest model's price, USD per 1,000 requests.
    pub min_per_1k_usd: f64,
    /// The dearest model's price, USD per 1,000 requests.
    pub max_per_1k_usd: f64,
    /// Every model, priced.
    pub models: Vec<PricedModel>,
    /// The price of the traffic the step really sends, USD per 1,000 requests: each model's
    /// price times its share ([`PricedModel::share`]). `None` when the shares are not known
    /// (the step is then judged by its range, worst case).
    pub mix_per_1k_usd: Option<f64>,
    /// How the shares were set (`equal shares`, `litellm_params.weight 3:1`).
    pub mix: Option<String>,
}

impl Side {
    /// A step of `models` (at least one).
    pub fn new(name: impl Into<String>, models: Vec<PricedModel>) -> Side {
        let min = models
            .iter()
            .map(|m| m.per_1k_usd)
            .fold(f64::INFINITY, f64::min);
        let max = models
            .iter()
            .map(|m| m.per_1k_usd)
            .fold(f64::NEG_INFINITY, f64::max);
        Side {
            name: name.into(),
            min_per_1k_usd: min,
            max_per_1k_usd: max,
            models,
            mix_per_1k_usd: None,
            mix: None,
        }
    }

    /// A step of `models` (at least one) that splits its traffic by `shares` (one per model,
    /// summing to 1), set as `basis` says: judged by the mix, its range shown beside.
    pub fn mixed(
        name: impl Into<String>,
        mut models: Vec<PricedModel>,
        shares: &[f64],
        basis: impl Into<String>,
    ) -> Side {
        let mix = models
            .iter()
            .zip(shares)
            .map(|(m, s)| m.per_1k_usd * s)
            .sum();
        for (m, s) in models.iter_mut().zip(shares) {
            m.share = Some(*s);
        }
        let mut side = Side::new(name, models);
        side.mix_per_1k_usd = Some(mix);
        side.mix = Some(basis.into());
        side
    }

    /// The price the step is judged by as a primary: its traffic mix, else its cheapest model.
    pub fn judged_as_primary(&self) -> f64 {
        self.mix_per_1k_usd.unwrap_or(self.min_per_1k_usd)
    }

    /// The price the step is judged by as a fallback: its traffic mix, else its dearest model.
    pub fn judged_as_fallback(&self) -> f64 {
        self.mix_per_1k_usd.unwrap_or(self.max_per_1k_usd)
    }

    /// A session's first request on the step while its cache is cold, USD per 1,000 requests:
    /// the mix of its models' first-request prices, else its dearest (as a fallback) or cheapest
    /// (as a primary).
    fn first(&self, as_fallback: bool) -> f64 {
        match self.mix_per_1k_usd {
            Some(_) => self
                .models
                .iter()
                .map(|m| m.first_per_1k_usd * m.share.unwrap_or(0.0))
                .sum(),
            None => {
                let it = self.models.iter().map(|m| m.first_per_1k_usd);
                if as_fallback {
                    it.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    it.fold(f64::INFINITY, f64::min)
                }
            }
        }
    }

    /// Whether the step is judged by its traffic mix (several models with known shares).
    fn is_mix(&self) -> bool {
        self.models.len() > 1 && self.mix_per_1k_usd.is_some()
    }

    /// The price as shown: `$9.00`, or `$4.50–$25.00` for a range, or for a traffic mix
    /// `$5.30 (traffic mix, equal shares; $0.60–$10.00)`.
    pub fn price(&self) -> String {
        use crate::output::number::money;
        if let (true, Some(mix), false) = (
            self.is_mix(),
            self.mix_per_1k_usd,
            self.min_per_1k_usd == self.max_per_1k_usd,
        ) {
            return format!(
                "${} (traffic mix, {}; ${}–${})",
                money(mix),
                self.mix.as_deref().unwrap_or("shares"),
                money(self.min_per_1k_usd),
                money(self.max_per_1k_usd)
            );
        }
        if self.min_per_1k_usd == self.max_per_1k_usd {
            format!("${}", money(self.min_per_1k_usd))
        } else {
            format!(
                "${}–${}",
                money(self.min_per_1k_usd),
                money(self.max_per_1k_usd)
            )
        }
    }

    /// The failure domains of the step's models ([`provider_family`]).
    fn families(&self) -> BTreeSet<&str> {
        self.models
            .iter()
            .map(|m| provider_family(&m.provider))
            .collect()
    }
}

/// The failure domain a provider name belongs to, for the same-provider check. LiteLLM's price
/// file names one provider several ways: `vertex_ai-language-models` and
/// `vertex_ai-anthropic_models` are `vertex_ai`, `bedrock_converse` and `bedrock_mantle` are
/// `bedrock`, `text-completion-openai` is `openai`, `cohere_chat` is `cohere`, `azure_text` is
/// `azure`, `fireworks_ai-embedding-models` is `fireworks_ai`. Other names are their own family.
pub fn provider_family(provider: &str) -> &str {
    let p = provider
        .strip_prefix("text-completion-")
        .unwrap_or(provider);
    // `vertex_ai-language-models`, `fireworks_ai-embedding-models`: a suffix naming a model set.
    let p = match p.split_once('-') {
        Some((base, rest)) if rest.ends_with("models") => base,
        _ => p,
    };
    match p {
        "bedrock_converse" | "bedrock_mantle" => "bedrock",
        "cohere_chat" => "cohere",
        "azure_text" => "azure",
        _ => p,
    }
}

/// A fallback of a chain ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedLink {
    /// The fallback, priced.
    pub fallback: Side,
    /// The file the link is declared in.
    pub file: String,
    /// Line of the link.
    pub line: usize,
    /// The steps passed through to reach it (empty for a direct link).
    pub via: Vec<String>,
}

/// A chain ready to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PricedChain {
    /// The file the chain is declared in, as named on the command line (or as a LiteLLM
    /// `include` names it).
    pub file: String,
    /// The chain's name.
    pub name: String,
    /// Line of the chain's declaration.
    pub line: usize,
    /// The primary.
    pub primary: Side,
    /// The fallbacks.
    pub links: Vec<PricedLink>,
}

/// Something `fallcost check` reports about a file. `Display` is the message, without the file
/// and line (renderers add them).
// A finding is built once per link and rendered once: two unboxed `Side`s in `AboveRatio` cost
// nothing worth the churn of boxing them (and keep the fields' types for the renderers).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// A fallback priced above `max_ratio` times its primary (an error).
    AboveRatio {
        /// File.
        file: String,
        /// Line of the fallback.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The primary, priced.
        primary: Side,
        /// The fallback, priced.
        fallback: Side,
        /// Worst-case ratio (dearest fallback / cheapest primary); `None` for a free primary.
        ratio: Option<f64>,
        /// The limit.
        max_ratio: f64,
        /// The steps between the primary and this fallback.
        via: Vec<String>,
        /// The `--allow` entry that allows this link (it is then a note, not an error).
        allowed: Option<String>,
        /// The fallcost.toml that `allowed` came from; `None`: the `--allow` flag.
        allowed_from: Option<String>,
    },
    /// A fallback within the ratio at warm prices that is above it in an incident of the
    /// primary's provider (`check --incident`): its first failover of a session, or the
    /// window's multiplier (an error, or a note when allowed).
    IncidentCost {
        /// File.
        file: String,
        /// Line of the fallback.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The primary, priced.
        primary: Side,
        /// The fallback, priced.
        fallback: Side,
        /// The warm like-for-like ratio (within the limit); `None` for a free primary.
        warm_ratio: Option<f64>,
        /// The incident figures.
        figures: IncidentFigures,
        /// The incident.
        incident: IncidentCheck,
        /// The limit.
        max_ratio: f64,
        /// The `--allow` entry that allows this link.
        allowed: Option<String>,
        /// The fallcost.toml that `allowed` came from; `None`: the `--allow` flag.
        allowed_from: Option<String>,
    },
    /// A chain whose primary and fallbacks all run on one provider (a warning): it survives a
    /// deprecation, not an outage.
    SameProvider {
        /// File.
        file: String,
        /// Line of the chain.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The provider (its family, see [`provider_family`]).
        providers: Vec<String>,
    },
    /// Something about a gateway config's structure (warning or note, see [`Notice`]).
    Config {
        /// File.
        file: String,
        /// Line.
        line: usize,
        /// What.
        notice: Notice,
    },
    /// Where a price was taken from, when it may not be what the config's provider bills (a
    /// note): an OpenAI-compatible model served through another `api_base`, or a provider whose
    /// model is priced from another provider's entry.
    PriceSource {
        /// File.
        file: String,
        /// Line of the model.
        line: usize,
        /// What was priced and from where.
        message: String,
    },
    /// The run found no fallback chain at all (a warning, so `--deny-warnings` fails it): a CI
    /// gate pointed at the wrong folder would otherwise pass forever. It has no file and line.
    NoChains {
        /// The paths searched, as given.
        paths: Vec<String>,
    },
}

impl Finding {
    /// Error, warning or note.
    pub fn severity(&self) -> Severity {
        match self {
            Finding::AboveRatio { allowed: None, .. } => Severity::Error,
            Finding::AboveRatio { .. } => Severity::Note,
            Finding::IncidentCost { allowed: None, .. } => Severity::Error,
            Finding::IncidentCost { .. } => Severity::Note,
            Finding::SameProvider { .. } | Finding::NoChains { .. } => Severity::Warning,
            Finding::Config { notice, .. } if notice.is_warning() => Severity::Warning,
            Finding::Config { .. } | Finding::PriceSource { .. } => Severity::Note,
        }
    }

    /// A stable kebab-case identifier: `above-ratio`, `same-provider`, `price-source`,
    /// `no-chains`, or the notice's kind (`not-a-group`, `loop`, `self-fallback`,
    /// `empty-fallbacks`, `no-model`, `ignored`, `wildcard`).
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::AboveRatio { .. } => "above-ratio",
            Finding::IncidentCost { .. } => "incident-cost",
            Finding::SameProvider { .. } => "same-provider",
            Finding::Config { notice, .. } => notice.kind(),
            Finding::PriceSource { .. } => "price-source",
            Finding::NoChains { .. } => "no-chains",
        }
    }

    /// The file the finding is about (empty for [`Finding::NoChains`]).
    pub fn file(&self) -> &str {
        match self {
            Finding::AboveRatio { file, .. }
            | Finding::IncidentCost { file, .. }
            | Finding::SameProvider { file, .. }
            | Finding::Config { file, .. }
            | Finding::PriceSource { file, .. } => file,
            Finding::NoChains { .. } => "",
        }
    }

    /// The line the finding is about (0 for [`Finding::NoChains`]).
    pub fn line(&self) -> usize {
        match self {
            Finding::AboveRatio { line, .. }
            | Finding::IncidentCost { line, .. }
            | Finding::SameProvider { line, .. }
            | Finding::Config { line, .. }
            | Finding::PriceSource { line, .. } => *line,
            Finding::NoChains { .. } => 0,
        }
    }
}

/// `--max-ratio` as given: the shortest decimal that reads back as the same number (`2`, `1.5`,
/// `1.99999999`), with an exponent for very large or small values (`1e308`).
pub fn format_limit(max_ratio: f64) -> String {
    let s = format!("{max_ratio:?}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// A ratio above `max_ratio`, as shown: two decimals (`5.00x`), or as many more as it takes for
/// the number shown to be above the limit (`2.004x` above 2, `2.0000000001x` above
/// 1.9999999999), so the message never reads as a ratio at or below the limit.
pub fn format_ratio(ratio: f64, max_ratio: f64) -> String {
    (2..=17)
        .map(|d| format!("{ratio:.d$}"))
        .find(|s| s.parse::<f64>().is_ok_and(|shown| shown > max_ratio))
        .map_or_else(|| format!("{ratio:?}x"), |s| format!("{s}x"))
}

/// `; allowed by --allow ollama`, or, for an entry of a settings file, `; allowed by `ollama`
/// in fallcost.toml [check] allow`.
fn allowed_by(entry: &str, from: Option<&str>) -> String {
    match from {
        Some(file) => format!("; allowed by `{entry}` in {file} [check] allow"),
        None => format!("; allowed by --allow {entry}"),
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::AboveRatio {
                chain,
                primary,
                fallback,
                ratio,
                max_ratio,
                via,
                allowed,
                allowed_from,
                ..
            } => {
                let allowed = allowed
                    .as_ref()
                    .map_or(String::new(), |a| allowed_by(a, allowed_from.as_deref()));
                let via = if via.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (reached via {})",
                        via.iter()
                            .map(|v| format!("`{v}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                let ranged = |s: &Side| s.models.len() > 1 && !s.is_mix();
                let worst = match (ranged(primary), ranged(fallback)) {
                    (true, true) => {
                        " (worst case: dearest fallback model against cheapest primary model)"
                    }
                    (true, false) => " (worst case: against the cheapest primary model)",
                    (false, true) => " (worst case: the dearest fallback model)",
                    (false, false) => "",
                };
                let limit = format_limit(*max_ratio);
                match ratio {
                    Some(r) => write!(
                        f,
                        "chain `{chain}`: fallback `{}` costs {} per 1,000 requests, {} its primary `{}` at {}{worst}; above --max-ratio {limit}{via}{allowed}",
                        fallback.name,
                        fallback.price(),
                        format_ratio(*r, *max_ratio),
                        primary.name,
                        primary.price(),
                    ),
                    None => write!(
                        f,
                        "chain `{chain}`: fallback `{}` costs {} per 1,000 requests and its primary `{}` {} ({}): any paid fallback is above --max-ratio {limit}{via}{allowed}",
                        fallback.name,
                        fallback.price(),
                        primary.name,
                        if primary.max_per_1k_usd > 0.0 && !primary.is_mix() {
                            "can be free: its cheapest model is"
                        } else {
                            "is free"
                        },
                        primary.price(),
                    ),
                }
            }
            Finding::IncidentCost {
                chain,
                primary,
                fallback,
                warm_ratio,
                figures,
                incident,
                max_ratio,
                allowed,
                allowed_from,
                ..
            } => {
                let limit = format_limit(*max_ratio);
                let show = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.2}x"));
                write!(
                    f,
                    "chain `{chain}`: fallback `{}` is {} its primary `{}` at warm prices, but a session's first failover (cold cache or write) costs ${} per 1,000 requests, {}, and a {} outage ({} requests in {} sessions, {} req/s) costs {} the primary's normal bill; above --max-ratio {limit}",
                    fallback.name,
                    show(*warm_ratio),
                    primary.name,
                    crate::output::number::money(fallback.first(true)),
                    show(figures.first_ratio),
                    crate::input::duration::format_seconds(incident.duration_s),
                    crate::output::number::group(&figures.requests.to_string()),
                    crate::output::number::group(&figures.sessions.to_string()),
                    crate::output::number::count(incident.requests_per_second),
                    show(figures.multiplier),
                )?;
                if let Some(a) = allowed {
                    write!(f, "{}", allowed_by(a, allowed_from.as_deref()))?;
                }
                Ok(())
            }
            Finding::SameProvider {
                chain, providers, ..
            } => write!(
                f,
                "chain `{chain}`: every fallback runs on the primary's provider ({}); it survives a deprecation, not an outage",
                providers.join(", ")
            ),
            Finding::Config { notice, .. } => write!(f, "{notice}"),
            Finding::PriceSource { message, .. } => write!(f, "{message}"),
            Finding::NoChains { paths } => write!(
                f,
                "no fallback chains found under {}: no fallback was judged (is the path right? --verbose lists what was skipped)",
                paths.join(" ")
            ),
        }
    }
}

/// Judge one chain: a finding for every link above the ratio, and a warning when the primary and
/// every fallback run on one provider (one outage takes out the whole chain). A primary spread
/// over several providers (a LiteLLM group of deployments on two providers) already survives a
/// single provider's outage, so it is not warned about.
pub fn judge(chain: &PricedChain, max_ratio: f64) -> Vec<Finding> {
    judge_allowing(chain, max_ratio, &[])
}

/// [`judge`], with the links that `allow` allows ([`allows`]: their primary or their fallback)
/// reported as notes instead of errors.
pub fn judge_allowing(chain: &PricedChain, max_ratio: f64, allow: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    for link in &chain.links {
        let (p, fb) = (
            chain.primary.judged_as_primary(),
            link.fallback.judged_as_fallback(),
        );
        if above(fb, p, max_ratio) {
            out.push(Finding::AboveRatio {
                file: link.file.clone(),
                line: link.line,
                chain: chain.name.clone(),
                primary: chain.primary.clone(),
                fallback: link.fallback.clone(),
                ratio: (p > 0.0).then(|| fb / p),
                max_ratio,
                via: link.via.clone(),
                allowed: allows(allow, &chain.primary)
                    .or_else(|| allows(allow, &link.fallback))
                    .map(str::to_string),
                allowed_from: None,
            });
        }
    }
    if !chain.links.is_empty() {
        let mut all = chain.primary.families();
        for link in &chain.links {
            all.extend(link.fallback.families());
        }
        if all.len() == 1 {
            out.push(Finding::SameProvider {
                file: chain.file.clone(),
                line: chain.line,
                chain: chain.name.clone(),
                providers: all.iter().map(|p| p.to_string()).collect(),
            });
        }
    }
    out
}

/// Price one gateway endpoint: the table's entry for its model, with the config's own prices
/// winning field by field. Returns the priced model and, when the price may not be what the
/// config's provider bills, a note saying where it came from.
///
/// Errors: [`InputErrorKind::UnknownModel`] when the table has no price for the model and the
/// config does not set both input and output prices (an unknown price is never taken as zero).
pub fn price_endpoint(
    file: &str,
    ep: &Endpoint,
    table: &PriceTable,
    request: &Request,
) -> Result<(PricedModel, Option<String>), InputError> {
    let o = &ep.price_override;
    // `provider/model` resolves only to that provider's own entry (never another provider's
    // price for the same model name); a bare id only when one provider has it.
    // A config that names the provider apart from the model (a Portkey virtual key
    // `@openai-prod/gpt-4o` with provider `openai`) is priced as `provider/model`.
    let entry = table
        .get(&ep.model)
        .or_else(|| {
            let provider = ep.provider.as_deref()?;
            let bare = ep
                .model
                .split_once('/')
                .map_or(ep.model.as_str(), |(_, b)| b);
            table.get(&format!("{provider}/{bare}"))
        })
        .or_else(|| {
            // A prefix that is no provider of the table (a Portkey virtual key `@openai-prod`, an
            // alias) says nothing of whose model it is: the bare id, when one provider has it,
            // with a note naming the entry. A real provider's prefix (`groq/…`) never borrows
            // another provider's price.
            let (prefix, bare) = ep.model.split_once('/')?;
            let is_provider = |t: &PriceTable| {
                t.models
                    .values()
                    .any(|m| crate::model::prices::same_provider(&m.provider, prefix))
            };
            // A provider of this table or of LiteLLM's: so `groq/…` is never borrowed, even
            // with a table that has no Groq model.
            let known = is_provider(table)
                || crate::input::pricing::bundled_shared(crate::input::pricing::LITELLM_SNAPSHOT)
                    .is_some_and(|t| is_provider(&t));
            (!known).then(|| table.get(bare)).flatten()
        });
    let (price, priced_as) = match (entry, o.input, o.output) {
        (_, Some(input), Some(output)) => {
            let base = entry.cloned();
            let cached_input = o
                .cached_input
                .or(base.as_ref().and_then(|b| b.cached_input));
            let cache_write = o.cache_write.or(base.as_ref().and_then(|b| b.cache_write));
            let caching = if cache_write.is_some() {
                Caching::Explicit
            } else if cached_input.is_some() {
                Caching::Automatic
            } else {
                Caching::None
            };
            (
                ModelPrice {
                    id: ep.model.clone(),
                    provider: base.as_ref().map_or_else(
                        || {
                            ep.provider.clone().unwrap_or_else(|| {
                                ep.model.split('/').next().unwrap_or("unknown").to_string()
                            })
                        },
                        |b| b.provider.clone(),
                    ),
                    input,
                    output,
                    cached_input,
                    cache_write,
                    caching,
                    cache_ttl_s: caching.default_ttl_s(),
                    cache_write_1h: None,
                    min_cache_prefix: base.as_ref().and_then(|b| b.min_cache_prefix),
                    miss_writes: false,
                    tiers: Vec::new(),
                },
                "config".to_string(),
            )
        }
        (Some(e), _, _) => {
            let mut p = e.clone();
            p.input = o.input.unwrap_or(p.input);
            p.output = o.output.unwrap_or(p.output);
            p.cached_input = o.cached_input.or(p.cached_input);
            p.cache_write = o.cache_write.or(p.cache_write);
            let label = if o.is_empty() {
                e.id.clone()
            } else {
                format!("{} + config", e.id)
            };
            (p, label)
        }
        (None, input, output) => {
            let missing = match (input, output) {
                (Some(_), None) => {
                    " (the config sets input_cost_per_token but not output_cost_per_token)"
                }
                (None, Some(_)) => {
                    " (the config sets output_cost_per_token but not input_cost_per_token)"
                }
                _ => "",
            };
            return Err(InputError {
                file: ep.file.as_deref().unwrap_or(file).to_string(),
                location: Some(Location {
                    line: ep.line,
                    col: ep.col,
                }),
                field: None,
                message: format!(
                    "unknown model `{}`{}{missing}: price table {} has no price for it, and an unknown price is never taken as zero; set its prices in the config (LiteLLM model_info input_cost_per_token and output_cost_per_token, or base_model), or pass --pricing with a table that has it",
                    ep.model,
                    table.lookup_hint(&ep.model),
                    table.name
                ),
                kind: InputErrorKind::UnknownModel,
            });
        }
    };
    let provider = ep
        .provider
        .clone()
        .unwrap_or_else(|| price.provider.clone());
    let source = if priced_as == "config" {
        "the config's own prices".to_string()
    } else {
        format!(
            "{}'s entry `{}` in {}",
            entry.map_or("?", |e| e.provider.as_str()),
            entry.map_or("?", |e| e.id.as_str()),
            table.name
        )
    };
    let note = match (&ep.note, entry) {
        (Some(n), _) => Some(format!("{n}; priced from {source}")),
        (None, Some(e))
            if priced_as != "config"
                && provider_family(&provider) != provider_family(&e.provider)
                && !provider.starts_with(e.provider.as_str())
                && !e.provider.starts_with(provider.as_str()) =>
        {
            Some(format!(
                "`{}` on provider `{provider}` is priced from {source}",
                ep.model
            ))
        }
        _ => None,
    };
    Ok((
        // At the long-context tier the profile's prompt falls in, standard service tier.
        PricedModel::priced(
            ep.model.clone(),
            priced_as,
            provider,
            request,
            &request
                .billed(&price, &crate::model::Billing::default())
                .unwrap_or(price),
        ),
        note,
    ))
}

/// Price a gateway config's chains with `table` and `request`.
///
/// Returns the chains that could be priced, the notes on price sources, and an input error for
/// every model with no known price (a step that cannot be fully priced is left out of its chain,
/// and the run exits 2). Each group is priced once, however many chains reach it.
pub fn price_config(
    file: &str,
    config: &Config,
    table: &PriceTable,
    request: &Request,
) -> (Vec<PricedChain>, Vec<Finding>, Vec<InputError>) {
    let mut notes = Vec::new();
    let mut errors: Vec<InputError> = Vec::new();
    let mut noted = BTreeSet::new();
    // A group is its label and where its models are named.
    type Key = (String, Vec<(Option<String>, usize, usize)>);
    let mut priced: HashMap<Key, Option<Side>> = HashMap::new();
    let mut side = |group: &Group| -> Option<Side> {
        if group.endpoints.is_empty() {
            return None;
        }
        let key: Key = (
            group.label.clone(),
            group
                .endpoints
                .iter()
                .map(|e| (e.file.clone(), e.line, e.col))
                .collect(),
        );
        if let Some(s) = priced.get(&key) {
            return s.clone();
        }
        let mut models = Vec::new();
        let mut ok = true;
        for ep in &group.endpoints {
            match price_endpoint(file, ep, table, request) {
                Ok((m, note)) => {
                    let at = (ep.file.clone(), ep.line);
                    if let Some(message) = note
                        && noted.insert(at)
                    {
                        notes.push(Finding::PriceSource {
                            file: ep.file.as_deref().unwrap_or(file).to_string(),
                            line: ep.line,
                            message,
                        });
                    }
                    models.push(m);
                }
                Err(e) => {
                    if !errors.contains(&e) {
                        errors.push(e);
                    }
                    ok = false;
                }
            }
        }
        let s = ok.then(|| match (&group.shares, &group.mix) {
            (Some(shares), Some(basis)) if shares.len() == models.len() => {
                Side::mixed(group.label.clone(), models, shares, basis.clone())
            }
            _ => Side::new(group.label.clone(), models),
        });
        priced.insert(key, s.clone());
        s
    };
    let mut chains = Vec::new();
    for chain in &config.chains {
        let primary = side(&chain.primary);
        let links: Vec<PricedLink> = chain
            .links
            .iter()
            .filter_map(|l| {
                side(&l.fallback).map(|s| PricedLink {
                    fallback: s,
                    file: l.at.file_or(file).to_string(),
                    line: l.at.line,
                    via: l.via.clone(),
                })
            })
            .collect();
        if let Some(primary) = primary {
            chains.push(PricedChain {
                file: chain.at.file_or(file).to_string(),
                name: chain.name.clone(),
                line: chain.at.line,
                primary,
                links,
            });
        }
    }
    // In the order of the file, whatever order the chains reached the models in.
    errors.sort_by_key(|e| (e.file.clone(), e.location.map(|l| (l.line, l.col))));
    (chains, notes, errors)
}

/// What kind of file was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A fallcost scenario (`[[chain]]`).
    Scenario,
    /// A LiteLLM proxy config.
    Litellm,
    /// A Portkey config.
    Portkey,
    /// An OpenRouter request body (`models` fallback list).
    Openrouter,
}

/// A file that was checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    /// The path.
    pub path: String,
    /// What it is.
    pub format: FileKind,
    /// Chains judged.
    pub chains: usize,
    /// Fallback links judged.
    pub links: usize,
}

/// A file that was not checked, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// The path.
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
}

/// Everything one run of `fallcost check` found.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// The limit used.
    pub max_ratio: f64,
    /// The gateway request profile used.
    pub profile: Request,
    /// The name of the price table used for gateway configs.
    pub pricing: String,
    /// Files checked, in path order.
    pub checked: Vec<Checked>,
    /// Files skipped, in path order.
    pub skipped: Vec<Skipped>,
    /// Findings, by file then line.
    pub findings: Vec<Finding>,
    /// Input errors (unreadable or invalid files, models with no known price).
    pub errors: Vec<InputError>,
}

impl CheckReport {
    /// Count of findings of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity() == severity)
            .count()
    }

    /// The exit status: 2 if any input error, else 1 if any error finding (or any warning under
    /// `deny_warnings`), else 0.
    pub fn exit_status(&self, deny_warnings: bool) -> ExitStatus {
        if !self.errors.is_empty() {
            ExitStatus::Error
        } else if self.count(Severity::Error) > 0
            || (deny_warnings && self.count(Severity::Warning) > 0)
        {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::pricing::bundled;

    fn model(id: &str, provider: &str, per_1k: f64) -> PricedModel {
        PricedModel {
            model: id.into(),
            priced_as: id.into(),
            provider: provider.into(),
            per_1k_usd: per_1k,
            share: None,
            first_per_1k_usd: per_1k,
            cache_ttl_s: None,
        }
    }

    fn chain(primary: Side, links: Vec<Side>) -> PricedChain {
        PricedChain {
            file: "f".into(),
            name: "c".into(),
            line: 1,
            primary,
            links: links
                .into_iter()
                .map(|s| PricedLink {
                    fallback: s,
                    file: "f".into(),
                    line: 2,
                    via: vec![],
                })
                .collect(),
        }
    }

    #[test]
    fn exactly_at_the_ratio_is_not_above_whatever_the_floats_say() {
        // $2.10 against $0.70 is exactly 3x, but 2.1 / 0.7 is 3.0000000000000004 and 3 * 0.7
        // is 2.0999999999999996 in binary floating point: both naive tests call it above 3.
        let (f, p) = (std::hint::black_box(2.1_f64), std::hint::black_box(0.7_f64));
        assert!(f / p > 3.0 && f > 3.0 * p, "the naive tests are above 3");
        assert!(!above(2.1, 0.7, 3.0));
        assert!(!above(1.05, 0.7, 1.5));
        assert!(!above(0.3, 0.1, 3.0));
        assert!(above(2.1, 0.7, 2.99));
        assert!(above(2.000001, 1.0, 2.0));
        assert!(!above(2.0, 1.0, 2.0));
        // A limit 1e-10 below an exact 2x is below it; float noise at 1e-16 is not.
        assert!(above(45.0, 22.5, 1.9999999999));
        assert!(!above(45.000000000000014, 22.5, 2.0));
        // Free primaries: no division, any paid fallback is above, two free models are not.
        assert!(above(0.01, 0.0, 1000.0));
        assert!(!above(0.0, 0.0, 2.0));
    }

    #[test]
    fn opus_to_astra_is_exactly_2x_in_every_profile() {
        let t = bundled("2026-07").unwrap();
        let (opus, astra) = (
            t.get("anthropic/claude-opus-5").unwrap(),
            t.get("openai/gpt-6-astra").unwrap(),
        );
        let profiles = [
            Request {
                input_tokens: 2000.0,
                output_tokens: 500.0,
                prefix_tokens: 0.0,
                cache_hit_rate: 1.0,
            },
            Request {
                input_tokens: 0.0,
                output_tokens: 1200.0,
                prefix_tokens: 60000.0,
                cache_hit_rate: 0.9,
            },
            Request {
                input_tokens: 333.0,
                output_tokens: 777.0,
                prefix_tokens: 12345.0,
                cache_hit_rate: 0.37,
            },
        ];
        for r in profiles {
            let (p, f) = (per_1k(&r, opus), per_1k(&r, astra));
            assert!(!above(f, p, 2.0), "{f} vs {p}");
            assert!(above(f, p, 1.5), "{f} vs {p}");
            assert!(above(f, p, 1.999));
        }
        // 2,000 in / 500 out: Opus $22.50 per 1,000, Astra $45.00.
        let r = profiles[0];
        assert_eq!(per_1k(&r, opus), 22.5);
        assert_eq!(per_1k(&r, astra), 45.0);
    }

    #[test]
    fn ranges_are_judged_worst_case_and_same_provider_warns() {
        let primary = Side::new(
            "fast",
            vec![model("a", "openai", 10.0), model("b", "azure", 4.0)],
        );
        let fb = Side::new(
            "backup",
            vec![model("c", "openai", 7.0), model("d", "azure", 9.0)],
        );
        assert_eq!(fb.price(), "$7.00–$9.00");
        let f = judge(&chain(primary, vec![fb]), 2.0);
        let Finding::AboveRatio { ratio, .. } = &f[0] else {
            panic!("{f:?}")
        };
        assert_eq!(*ratio, Some(2.25));
        assert!(f[0].to_string().contains("worst case"), "{}", f[0]);
        // Two providers in the chain: no same-provider warning.
        assert_eq!(f.len(), 1, "{f:?}");
        let one = judge(
            &chain(
                Side::new("sol", vec![model("openai/gpt-6-sol", "openai", 9.0)]),
                vec![Side::new(
                    "luna",
                    vec![model("openai/gpt-6-luna", "openai", 0.45)],
                )],
            ),
            2.0,
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].kind(), "same-provider");
        assert_eq!(one[0].severity(), Severity::Warning);
        assert!(one[0].to_string().contains("(openai)"), "{}", one[0]);
    }

    #[test]
    fn ratios_show_enough_digits_to_be_above_the_limit_shown() {
        assert_eq!(format_limit(2.0), "2");
        assert_eq!(format_limit(1.5), "1.5");
        assert_eq!(format_limit(1.99999999), "1.99999999");
        assert_eq!(format_limit(1e308), "1e308");
        assert_eq!(format_ratio(5.0, 2.0), "5.00x");
        assert_eq!(format_ratio(2.004, 2.0), "2.004x");
        assert_eq!(format_ratio(2.0, 1.99999999), "2.00x");
        assert_eq!(format_ratio(2.0000000001, 2.0), "2.0000000001x");
        assert_eq!(format_ratio(2.0049, 2.0), "2.005x");
    }

    #[test]
    fn provider_families() {
        for (raw, family) in [
            ("vertex_ai-language-models", "vertex_ai"),
            ("vertex_ai-anthropic_models", "vertex_ai"),
            ("vertex_ai", "vertex_ai"),
            ("bedrock_converse", "bedrock"),
            ("bedrock_mantle", "bedrock"),
            ("text-completion-openai", "openai"),
            ("cohere_chat", "cohere"),
            ("azure_text", "azure"),
            ("fireworks_ai-embedding-models", "fireworks_ai"),
            ("azure_ai", "azure_ai"),
            ("anthropic-prod", "anthropic-prod"),
            ("scx-ai", "scx-ai"),
        ] {
            assert_eq!(provider_family(raw), family, "{raw}");
        }
    }

    #[test]
    fn a_free_primary_is_flagged_without_a_ratio() {
        let f = judge(
            &chain(
                Side::new("local", vec![model("ollama/x", "ollama", 0.0)]),
                vec![Side::new("paid", vec![model("gpt", "openai", 1.0)])],
            ),
            2.0,
        );
        assert_eq!(f.len(), 1);
        let Finding::AboveRatio { ratio, .. } = &f[0] else {
            panic!()
        };
        assert_eq!(*ratio, None);
        assert!(f[0].to_string().contains("is free ($0.00)"), "{}", f[0]);
    }

    #[test]
    fn exit_status_orders_input_errors_findings_and_warnings() {
        let mut r = CheckReport {
            max_ratio: 2.0,
            profile: Request {
                input_tokens: 1.0,
                output_tokens: 1.0,
                prefix_tokens: 0.0,
                cache_hit_rate: 1.0,
            },
            pricing: "t".into(),
            checked: vec![],
            skipped: vec![],
            findings: vec![],
            errors: vec![],
        };
        assert_eq!(r.exit_status(true), ExitStatus::Success);
        r.findings.push(Finding::SameProvider {
            file: "f".into(),
            line: 1,
            chain: "c".into(),
            providers: vec!["openai".into()],
        });
        assert_eq!(r.exit_status(false), ExitStatus::Success);
        assert_eq!(r.exit_status(true), ExitStatus::Findings);
        r.errors
            .push(InputError::file(InputErrorKind::Read, "f", "no such file"));
        assert_eq!(r.exit_status(false), ExitStatus::Error);
    }
}
