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
//! ratio is shown with as many decimals as it takes to show it above the limit
//! ([`format_ratio`]), and the limit as given ([`format_limit`]). A group of several deployments
//! whose traffic shares the gateway settles (a LiteLLM group: `weight`/`rpm`/`tpm`, else equal
//! shares, as its `simple_shuffle` picks) is judged by the traffic it really sends, its mix, with
//! its cheapest–dearest range shown beside (a Portkey loadbalance by its weights, too); a step
//! whose shares are not known (a Portkey conditional router) is judged in its worst case: the
//! cheapest primary model against the dearest fallback model.
//!
//! This module returns [`Finding`]s and input errors (the result types are
//! [`crate::report::check`]); the exit code is decided once, by [`CheckReport::exit_status`].
//!
//! [`format_ratio`]: crate::report::check::format_ratio
//! [`format_limit`]: crate::report::check::format_limit
//! [`CheckReport::exit_status`]: crate::report::check::CheckReport::exit_status

pub mod files;
pub mod fit;
mod price;

pub use price::{PricedChain, PricedLink, price_config, price_endpoint};

use crate::model::condition::{ConditionalShares, chain_ratio};
use crate::model::prices::provider_family;
use crate::model::{PriceTable, Request};
use crate::report::check::{Finding, IncidentBill, IncidentCheck, Side};

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
pub struct CheckOptions {
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
    /// `--max-usd-per-1k`: a fallback of a free primary (a local model, a `:free` id; no ratio
    /// over $0 means anything) is above the limit when it costs more than this, USD per 1,000
    /// requests at the profile (default [`DEFAULT_MAX_USD_PER_1K`]).
    pub max_usd_per_1k: f64,
    /// Whether each fallback can take the load and serve the request ([`fit::FitRules`]:
    /// retirement, context window, capabilities, capacity), for gateway configs.
    pub fit: fit::FitRules,
    /// fallcost.toml's `[prices]`: the project's own prices, added to a scenario's own table as
    /// they are to `prices` (already in it) for gateway configs.
    pub own_prices: Vec<crate::model::ModelPrice>,
    /// The gateway proxy's environment (`--env` over the process's): where a model id a
    /// LiteLLM config reads from it (`os.environ/NAME`, `${NAME}`) is read.
    pub env: crate::input::gateway::Env,
    /// The shares of requests the conditional fallbacks take (`context_window_fallbacks`,
    /// `content_policy_fallbacks`), where fallcost.toml's `[usage]` states them.
    pub shares: ConditionalShares,
}

/// `--max-usd-per-1k` when neither the flag nor fallcost.toml sets it: $5.00 per 1,000
/// requests (half a cent a request). At the default profile (2,000 in / 500 out) GPT-4o mini
/// ($0.60) passes behind a local model, GPT-4o ($10.00) and Claude Sonnet ($13.50) fail.
pub const DEFAULT_MAX_USD_PER_1K: f64 = 5.0;

/// What the link `primary -> fallback` costs in an incident of the primary's provider (USD
/// per request from the sides' per-1,000 prices, MODEL.md §6). The primary's cache is
/// rewritten when sessions fail back only if the outage outlives it and the fallback leaves
/// the primary's provider.
pub fn incident_bill(primary: &Side, fallback: &Side, incident: &IncidentCheck) -> IncidentBill {
    let n = (incident.requests_per_second * incident.duration_s).round() as u64;
    let s = n.div_ceil(incident.session_length.max(1));
    // USD per request: warm, and a session's first request (cold cache or a cache write)
    let (primary_warm, fallback_warm) = (
        primary.judged_as_primary() / 1000.0,
        fallback.judged_as_fallback() / 1000.0,
    );
    let (primary_first, fallback_first) =
        (primary.first(false) / 1000.0, fallback.first(true) / 1000.0);
    let leaves = !fallback.families().is_subset(&primary.families());
    let ttl = primary
        .models
        .iter()
        .filter_map(|m| m.cache_ttl_s)
        .fold(f64::INFINITY, f64::min);
    let failback = if leaves && ttl.is_finite() && incident.duration_s > ttl {
        s as f64 * (primary_first - primary_warm).max(0.0)
    } else {
        0.0
    };
    let normal = n as f64 * primary_warm;
    let total =
        n as f64 * fallback_warm + s as f64 * (fallback_first - fallback_warm).max(0.0) + failback;
    IncidentBill {
        first_ratio: (primary_warm > 0.0).then(|| fallback_first / primary_warm),
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
        let fig = incident_bill(&chain.primary, &link.fallback, incident);
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

/// Judge each link of a conditional chain (its fallbacks take only the requests that overflow
/// the primary's context window, or that it refuses: [`crate::model::condition`]) above
/// `max_ratio` per request: by what the chain costs over its primary alone at the share of
/// requests `shares` states ([`chain_ratio`]: an error above `max_ratio`, else a note), or,
/// with none stated, a warning that says it is conditional and how to state the share. A link
/// within the ratio per request is within it at any share. Allowed links are notes. No
/// same-provider warning: such a chain is not there for an outage.
pub fn judge_conditional(
    chain: &PricedChain,
    max_ratio: f64,
    allow: &[String],
    shares: &ConditionalShares,
) -> Vec<crate::report::check::Finding> {
    let Some(condition) = chain.condition else {
        return Vec::new();
    };
    let share = shares.of(condition).cloned();
    let mut out = Vec::new();
    for link in &chain.links {
        let (p, fb) = (
            chain.primary.judged_as_primary(),
            link.fallback.judged_as_fallback(),
        );
        if !above(fb, p, max_ratio) {
            continue;
        }
        let ratio = (p > 0.0).then(|| fb / p);
        out.push(Finding::Conditional {
            file: link.file.clone(),
            line: link.line,
            chain: chain.name.clone(),
            primary: chain.primary.clone(),
            fallback: link.fallback.clone(),
            condition,
            ratio,
            max_ratio,
            chain_ratio: ratio
                .zip(share.as_ref())
                .map(|(r, s)| chain_ratio(s.share, r)),
            share: share.clone(),
            allowed: allows(allow, &chain.primary)
                .or_else(|| allows(allow, &link.fallback))
                .map(str::to_string),
            allowed_from: None,
        });
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
    judge_limits(chain, max_ratio, None, allow)
}

/// [`judge_allowing`], with a fallback of a free primary judged by an absolute limit,
/// `max_usd_per_1k` USD per 1,000 requests (`--max-usd-per-1k`; exactly at it passes), instead
/// of a ratio over $0 (`None`: any paid fallback of a free primary is above).
pub fn judge_limits(
    chain: &PricedChain,
    max_ratio: f64,
    max_usd_per_1k: Option<f64>,
    allow: &[String],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for link in &chain.links {
        let (p, fb) = (
            chain.primary.judged_as_primary(),
            link.fallback.judged_as_fallback(),
        );
        let free_limit = max_usd_per_1k.filter(|_| p <= 0.0);
        let is_above = match free_limit {
            Some(usd) => fb > usd * (1.0 + REL_TOL),
            None => above(fb, p, max_ratio),
        };
        if is_above {
            out.push(Finding::AboveRatio {
                file: link.file.clone(),
                line: link.line,
                chain: chain.name.clone(),
                primary: chain.primary.clone(),
                fallback: link.fallback.clone(),
                ratio: (p > 0.0).then(|| fb / p),
                max_ratio,
                max_usd_per_1k: free_limit,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::pricing::bundled;
    use crate::report::check::{PricedModel, Severity};

    fn model(id: &str, provider: &str, per_1k: f64) -> PricedModel {
        PricedModel {
            model: id.into(),
            priced_as: id.into(),
            provider: provider.into(),
            per_1k_usd: per_1k,
            share: None,
            first_per_1k_usd: per_1k,
            cache_ttl_s: None,
            fit: None,
            limit: Default::default(),
            line: 0,
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
            condition: None,
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
}
