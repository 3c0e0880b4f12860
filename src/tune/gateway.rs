//! The recommended settings as a LiteLLM proxy config fragment and a Portkey config, where the
//! settings map, and the list of those that do not.
//!
//! LiteLLM (`litellm/router.py`, docs "Proxy: Fallbacks, Retries, Timeouts, Cooldowns"), per
//! model group, so that the snippets of two chains do not contradict each other:
//! - `model_list`: each group's deployments get `litellm_params.timeout` (seconds, per
//!   deployment); the fragment's entries merge into the team's deployments of the same
//!   `model_name` (with `--config`, the config's group names; else a new group per model id);
//! - `router_settings.model_group_retry_policy`: per group, the retries of a timeout, a rate
//!   limit and a server error (`TimeoutErrorRetries`, `RateLimitErrorRetries`,
//!   `InternalServerErrorRetries`; a bad request, an authentication or a content-policy error
//!   is not retried, as fallcost's `retry_on` default);
//! - `router_settings.fallbacks`: the primary group → its fallback groups, by group name;
//!   an empty list for the no-fallback pattern (merged entry by entry, it replaces the team's
//!   entry for the group and no other);
//! - the breaker, per deployment (LiteLLM 1.110, `router_utils/cooldown_handlers.py`):
//!   `model_info.allowed_fails_policy` (a deployment is cooled down when it fails more than
//!   that many times in a minute, per exception type: our `threshold` is that + 1) and
//!   `litellm_params.cooldown_time` (seconds). A plain `allowed_fails` (router-wide, or the
//!   deployment's) equal to LiteLLM's default 3 leaves cooldown to its failure-percentage
//!   rule, and a generic one never cools the only deployment of a group without fallbacks
//!   down; an explicit per-exception policy does, so the fragment always writes one. No
//!   breaker: a policy of [`NEVER_COOL_DOWN`] failures.
//!
//! Portkey (docs "Configs", "Fallbacks", "Automatic Retries", "Request Timeouts", "Circuit
//! Breaker"): `strategy.mode` (`fallback`, or `single` for one target), `retry.attempts`
//! (at most 5), `request_timeout` (milliseconds), `strategy.cb_config` with
//! `failure_threshold` and `cooldown_interval` (milliseconds, at least 30 s); each target a
//! `provider` and `override_params.model`.
//!
//! `scripts/litellm-tune-walks.py` loads the fragment, merged into a team's config, into
//! LiteLLM's own Router and records its settings and the walk of a failing request
//! (`tests/fixtures/tune/litellm/walks.json`); `tests/it/tune.rs` checks the fragment and
//! the recording against the recommendation.

use serde::Serialize;
use serde_json::json;

use super::Point;
use super::space::{COOLDOWN, HEDGE_DELAY, RETRIES, THRESHOLD, TIMEOUT, WARM};
use crate::model::Pattern;
use crate::model::provenance::ConfigChain;

/// The recommendation in gateway terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snippets {
    /// A LiteLLM proxy `config.yaml` fragment, to merge into the team's config.
    pub litellm_yaml: String,
    /// A Portkey config (JSON).
    pub portkey: serde_json::Value,
    /// Settings that do not map, and why (one line each).
    pub unmapped: Vec<String>,
}

/// The value `point` sets for `key`, if any.
fn value<'a>(point: &'a Point, key: &str) -> Option<&'a str> {
    point
        .set
        .iter()
        .find_map(|s| s.strip_prefix(key)?.strip_prefix('='))
}

/// A YAML/JSON string literal (double-quoted, escaped).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// A number of seconds as YAML writes it (`10`, `0.5`).
fn secs(v: f64) -> String {
    format!("{}", crate::number::round_noise(v))
}

/// One step of the recommended chain, in the gateway's names.
struct Step {
    /// The LiteLLM `model_name` group (the config's; else the model id).
    group: String,
    /// The model as the gateway names it (`openai/gpt-4o`).
    model: String,
    /// The provider (the part of the price-table id before `/`), if the id has one.
    provider: Option<String>,
    /// The model without its provider.
    bare: String,
}

/// The steps of `point`'s chain that its pattern uses, named as `config` names them.
fn steps(point: &Point, config: Option<&ConfigChain>, unmapped: &mut Vec<String>) -> Vec<Step> {
    let used = if point.pattern == Pattern::NoFallback {
        &point.models[..1]
    } else {
        &point.models[..]
    };
    used.iter()
        .map(|id| {
            let link = config.and_then(|c| c.links.iter().find(|l| &l.model == id));
            if config.is_some() && link.is_none() {
                unmapped.push(format!(
                    "{id}: no model group of the config serves it (a --candidate model): add a model_list entry for it"
                ));
            }
            // The provider as the gateway names the model: the config's deployment
            // (`openai/gpt-4o`, priced as the table's `gpt-4o`), else the table's id.
            let model = link.map_or_else(|| id.clone(), |l| l.deployment.clone());
            let (provider, bare) = match model.split_once('/') {
                Some((p, m)) if !p.is_empty() => (Some(p.to_string()), m.to_string()),
                _ => (None, model.clone()),
            };
            Step {
                group: link.map_or_else(|| id.clone(), |l| l.group.clone()),
                model,
                provider,
                bare,
            }
        })
        .collect()
}

/// The snippets of `point` (the scenario's own value where the point sets none: `timeout_s`
/// and `retries` as `own`), in the names of `config` when the chain was read from one.
pub fn snippets(
    point: &Point,
    own_timeout_s: f64,
    own_retries: u32,
    config: Option<&ConfigChain>,
) -> Snippets {
    let timeout: f64 = value(point, TIMEOUT)
        .and_then(|v| v.parse().ok())
        .unwrap_or(own_timeout_s);
    let retries: u32 = value(point, RETRIES)
        .and_then(|v| v.parse().ok())
        .unwrap_or(own_retries);
    let breaker = match (value(point, THRESHOLD), value(point, COOLDOWN)) {
        (Some(t), Some(c)) => t.parse::<u32>().ok().zip(c.parse::<f64>().ok()),
        _ => None,
    };
    let mut unmapped = Vec::new();
    let steps = steps(point, config, &mut unmapped);
    let litellm = litellm_yaml(&steps, timeout, retries, breaker, config.is_some());
    if breaker.is_some() {
        unmapped.push(
            "breaker: LiteLLM counts a deployment's failures within the current minute, not consecutive ones, and cools each deployment down apart (fallcost's breaker is per provider)"
                .to_string(),
        );
    }
    if point.pattern.is_hedged() {
        unmapped.push(format!(
            "{}: neither LiteLLM nor Portkey sends hedged requests; run it in the client",
            point.pattern.as_str()
        ));
    }
    if let Some(d) = value(point, HEDGE_DELAY).filter(|d| *d != "none")
        && point.pattern.is_hedged()
    {
        unmapped.push(format!("hedge_delay_s = {d}: no gateway setting"));
    }
    if let Some(w) = value(point, WARM).or(value(point, &format!("{WARM}.after"))) {
        unmapped.push(format!(
            "warm_fallback = {w}: a prompt-cache write is the client's cache_control breakpoint, not a gateway setting"
        ));
    }
    let portkey = portkey(&steps, timeout, retries, breaker, &mut unmapped);
    unmapped.push("backoff: both gateways back off on their own schedule (LiteLLM: retry_after and the provider's Retry-After; Portkey: exponential)".into());
    Snippets {
        litellm_yaml: litellm,
        portkey,
        unmapped,
    }
}

/// The exception types LiteLLM's `allowed_fails_policy` names that fallcost's breaker counts
/// (a timeout, a rate limit, a server error; `router_utils/cooldown_handlers.py`).
const ALLOWED_FAILS_FIELDS: [&str; 5] = [
    "TimeoutErrorAllowedFails",
    "RateLimitErrorAllowedFails",
    "InternalServerErrorAllowedFails",
    "ServiceUnavailableErrorAllowedFails",
    "BadGatewayErrorAllowedFails",
];

/// `allowed_fails_policy` for "more than `n` failures in a minute cool the deployment down".
fn allowed_fails_policy(n: u64) -> String {
    let fields: Vec<String> = ALLOWED_FAILS_FIELDS
        .iter()
        .map(|f| format!("{f}: {n}"))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// Failures a deployment may have in a minute when there is no breaker: more than a minute
/// of any traffic fallcost prices holds, so it never cools down.
pub const NEVER_COOL_DOWN: u64 = 1_000_000;

/// The LiteLLM fragment (see the module doc).
fn litellm_yaml(
    steps: &[Step],
    timeout: f64,
    retries: u32,
    breaker: Option<(u32, f64)>,
    from_config: bool,
) -> String {
    let mut y = String::new();
    y.push_str(if from_config {
        "# merge: each entry's litellm_params and model_info keys into your deployments of that model_name, fallbacks entry by entry (by its group), the other router_settings keys as they are\n"
    } else {
        "# merge: one model_list entry per model group (add your api keys), fallbacks entry by entry (by its group), the other router_settings keys as they are\n"
    });
    y.push_str("model_list:\n");
    for s in steps {
        y.push_str(&format!("  - model_name: {}\n", quoted(&s.group)));
        y.push_str("    litellm_params:\n");
        y.push_str(&format!("      model: {}\n", quoted(&s.model)));
        y.push_str(&format!("      timeout: {}\n", secs(timeout)));
        if let Some((_, c)) = breaker {
            y.push_str(&format!("      cooldown_time: {}\n", secs(c)));
        }
        y.push_str("    model_info:\n");
        match breaker {
            Some((t, _)) => y.push_str(&format!(
                "      allowed_fails_policy: {}   # cool down at the {}{} failure in a minute\n",
                allowed_fails_policy(u64::from(t.saturating_sub(1))),
                t,
                match t % 10 {
                    1 if t % 100 != 11 => "st",
                    2 if t % 100 != 12 => "nd",
                    3 if t % 100 != 13 => "rd",
                    _ => "th",
                }
            )),
            None => y.push_str(&format!(
                "      allowed_fails_policy: {}   # no breaker: never cool down\n",
                allowed_fails_policy(NEVER_COOL_DOWN)
            )),
        }
    }
    y.push_str("router_settings:\n");
    // no-fallback: an empty list, which replaces the team's entry for the group
    let rest: Vec<String> = steps[1..].iter().map(|s| quoted(&s.group)).collect();
    y.push_str(&format!(
        "  fallbacks: [{{{}: [{}]}}]\n",
        quoted(&steps[0].group),
        rest.join(", ")
    ));
    y.push_str("  model_group_retry_policy:\n");
    for s in steps {
        y.push_str(&format!(
            "    {}: {{TimeoutErrorRetries: {retries}, RateLimitErrorRetries: {retries}, InternalServerErrorRetries: {retries}, BadRequestErrorRetries: 0, AuthenticationErrorRetries: 0, ContentPolicyViolationErrorRetries: 0}}\n",
            quoted(&s.group)
        ));
    }
    y
}

/// The Portkey config (see the module doc).
fn portkey(
    steps: &[Step],
    timeout: f64,
    retries: u32,
    breaker: Option<(u32, f64)>,
    unmapped: &mut Vec<String>,
) -> serde_json::Value {
    let targets: Vec<serde_json::Value> = steps
        .iter()
        .map(|s| match &s.provider {
            Some(p) => json!({ "provider": p, "override_params": { "model": s.bare } }),
            None => {
                unmapped.push(format!(
                    "{}: no provider in the model id: set the Portkey target's provider (or its virtual_key)",
                    s.model
                ));
                json!({ "override_params": { "model": s.bare } })
            }
        })
        .collect();
    let mode = if steps.len() > 1 {
        "fallback"
    } else {
        "single"
    };
    let mut strategy = json!({ "mode": mode });
    if steps.len() > 1 {
        strategy["on_status_codes"] = json!([408, 429, 500, 502, 503, 504]);
    }
    if let Some((t, c)) = breaker {
        strategy["cb_config"] = json!({
            "failure_threshold": t,
            "cooldown_interval": (c * 1000.0).max(30_000.0).round() as u64,
        });
        if c < 30.0 {
            unmapped.push(format!(
                "cooldown {c} s: Portkey's cooldown_interval is at least 30 s (written as 30 s)"
            ));
        }
    }
    let mut portkey = json!({
        "strategy": strategy,
        "request_timeout": (timeout * 1000.0).round() as u64,
        "targets": targets,
    });
    if retries > 0 {
        portkey["retry"] = json!({ "attempts": retries.min(5), "on_status_codes": [408, 429, 500, 502, 503, 504] });
        if retries > 5 {
            unmapped.push(format!(
                "retries {retries}: Portkey retries at most 5 times (written as 5)"
            ));
        }
    }
    unmapped.push(
        "Portkey targets: add each target's credentials (api_key or virtual_key); not written"
            .into(),
    );
    portkey
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::{Point, Raw};

    fn point(models: &[&str], pattern: Pattern, set: &[&str]) -> Point {
        Point {
            chain: "c".into(),
            models: models.iter().map(|m| m.to_string()).collect(),
            pattern,
            set: set.iter().map(|s| s.to_string()).collect(),
            cost_per_1k_usd: 1.0,
            incident_premium_per_1k_usd: 0.0,
            incident_bill_per_1k_usd: 0.0,
            monthly_usd: 1.0,
            availability: 1.0,
            steady_availability: 1.0,
            incident_availability: None,
            feasible: true,
            violations: Vec::new(),
            raw: Raw {
                steady_cost_per_1k_usd: 1.0,
                steady_failed_per_1k: 0.0,
                dead_time_mean_s: 0.0,
                p99_s: 1.0,
                max_ratio: 1.0,
                traffic_share: 1.0,
                incident: None,
            },
        }
    }

    #[test]
    fn no_fallback_has_no_fallbacks_and_one_target() {
        let p = point(
            &["openai/gpt-4o", "anthropic/claude-sonnet-5"],
            Pattern::NoFallback,
            &[
                "policy.timeout_s=10",
                "policy.retries=1",
                "policy.breaker=none",
            ],
        );
        let s = snippets(&p, 30.0, 0, None);
        assert!(
            s.litellm_yaml
                .contains("  fallbacks: [{\"openai/gpt-4o\": []}]\n"),
            "{}",
            s.litellm_yaml
        );
        assert!(s.litellm_yaml.contains("TimeoutErrorAllowedFails: 1000000"));
        assert!(
            s.litellm_yaml
                .contains("\"openai/gpt-4o\": {TimeoutErrorRetries: 1,")
        );
        assert!(!s.litellm_yaml.contains("claude"));
        assert_eq!(s.portkey["strategy"]["mode"], "single");
        assert_eq!(s.portkey["targets"].as_array().unwrap().len(), 1);
        assert_eq!(s.portkey["targets"][0]["provider"], "openai");
        assert_eq!(s.portkey["request_timeout"], 10_000);
        assert_eq!(s.portkey["retry"]["attempts"], 1);
    }

    #[test]
    fn a_breaker_writes_its_own_allowed_fails_and_a_model_without_provider_is_unmapped() {
        let p = point(
            &["gpt-4o", "anthropic/claude-sonnet-5"],
            Pattern::Sequential,
            &["policy.breaker.threshold=2", "policy.breaker.cooldown_s=60"],
        );
        let s = snippets(&p, 30.0, 2, None);
        assert!(
            s.litellm_yaml
                .contains("InternalServerErrorAllowedFails: 1,"),
            "{}",
            s.litellm_yaml
        );
        assert!(
            s.litellm_yaml
                .contains("# cool down at the 2nd failure in a minute")
        );
        assert!(s.litellm_yaml.contains("      cooldown_time: 60\n"));
        assert!(
            s.litellm_yaml
                .contains("fallbacks: [{\"gpt-4o\": [\"anthropic/claude-sonnet-5\"]}]")
        );
        assert!(s.litellm_yaml.contains("      timeout: 30\n"));
        assert_eq!(s.portkey["targets"][0].get("provider"), None);
        assert_eq!(
            s.portkey["targets"][0]["override_params"]["model"],
            "gpt-4o"
        );
        assert!(!s.portkey.to_string().contains("\"@"));
        assert!(
            s.unmapped
                .iter()
                .any(|u| u.starts_with("gpt-4o: no provider"))
        );
        assert_eq!(s.portkey["strategy"]["cb_config"]["failure_threshold"], 2);
        assert_eq!(
            s.portkey["strategy"]["cb_config"]["cooldown_interval"],
            60_000
        );
    }

    /// A config's deployment names the provider where the price table's id does not
    /// (`openai/gpt-4o`, priced as `gpt-4o`): the Portkey target carries it, nothing unmapped.
    #[test]
    fn a_config_deployment_gives_the_portkey_target_its_provider() {
        use crate::model::provenance::{ConfigChain, ConfigLink};
        let p = point(&["ollama/llama3", "gpt-4o"], Pattern::Sequential, &[]);
        let config = ConfigChain {
            chain: "c".into(),
            gateway: "litellm",
            config: "a.yaml".into(),
            links: vec![
                ConfigLink {
                    model: "ollama/llama3".into(),
                    group: "chat".into(),
                    deployment: "ollama/llama3".into(),
                },
                ConfigLink {
                    model: "gpt-4o".into(),
                    group: "chat-paid".into(),
                    deployment: "openai/gpt-4o".into(),
                },
            ],
        };
        let s = snippets(&p, 30.0, 0, Some(&config));
        assert_eq!(s.portkey["targets"][1]["provider"], "openai");
        assert_eq!(
            s.portkey["targets"][1]["override_params"]["model"],
            "gpt-4o"
        );
        assert!(
            !s.unmapped.iter().any(|u| u.contains("no provider")),
            "{:?}",
            s.unmapped
        );
        assert!(s.litellm_yaml.contains("model: \"openai/gpt-4o\""));
    }
}
