//! The recommended settings as a LiteLLM proxy config snippet (`router_settings`,
//! `litellm_settings`) and a Portkey config, where the settings map, and the list of those that
//! do not.
//!
//! LiteLLM (`litellm/router.py`): `num_retries`, `timeout` (seconds), `fallbacks` (model group
//! → its fallbacks), `allowed_fails` and `cooldown_time` (a deployment is cooled down for
//! `cooldown_time` seconds once it fails more than `allowed_fails` times in a minute: our
//! breaker's `threshold` is `allowed_fails + 1`). Portkey (docs "Fallbacks", "Automatic
//! Retries", "Request Timeouts", "Circuit Breaker"): `strategy.mode = "fallback"`, `retry.attempts`
//! (at most 5), `request_timeout` (milliseconds), `strategy.cb_config` with
//! `failure_threshold` and `cooldown_interval` (milliseconds, at least 30 s).

use serde::Serialize;
use serde_json::json;

use super::Point;
use super::space::{COOLDOWN, HEDGE_DELAY, RETRIES, THRESHOLD, TIMEOUT, WARM};

/// The recommendation in gateway terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snippets {
    /// A LiteLLM proxy `config.yaml` fragment.
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

/// The model part of an id (`anthropic/claude-sonnet-5` → `claude-sonnet-5`).
fn bare(id: &str) -> &str {
    id.split_once('/').map_or(id, |(_, m)| m)
}

/// The snippets of `point` (the scenario's own value where the point sets none: `timeout_s`
/// and `retries` as `own`).
pub fn snippets(point: &Point, own_timeout_s: f64, own_retries: u32) -> Snippets {
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
    let models = &point.models;
    let mut yaml = String::from("router_settings:\n");
    yaml.push_str(&format!("  num_retries: {retries}\n  timeout: {timeout}\n"));
    if models.len() > 1 {
        let rest: Vec<String> = models[1..].iter().map(|m| format!("{m:?}")).collect();
        yaml.push_str(&format!(
            "  fallbacks: [{{{:?}: [{}]}}]\n",
            models[0],
            rest.join(", ")
        ));
    }
    if let Some((t, c)) = breaker {
        yaml.push_str(&format!(
            "  allowed_fails: {}   # cool down after {t} failures in a minute\n  cooldown_time: {c}\n",
            t.saturating_sub(1)
        ));
        unmapped.push(
            "breaker: LiteLLM counts failures per deployment within a minute, not consecutive ones; with one deployment per model group it may not cool the primary down at all (put the fallback's provider in its own group)"
                .to_string(),
        );
    } else if value(point, "policy.breaker") == Some("none") {
        unmapped.push("no breaker: LiteLLM always has one (allowed_fails defaults to 3, cooldown_time to 5 s); set allowed_fails high to approach none".into());
    }
    yaml.push_str("litellm_settings:\n  request_timeout: ");
    yaml.push_str(&format!("{timeout}\n"));
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
    let targets: Vec<serde_json::Value> = models
        .iter()
        .map(|m| {
            let provider = m.split_once('/').map_or("", |(p, _)| p);
            json!({ "override_params": { "model": format!("@{provider}/{}", bare(m)) } })
        })
        .collect();
    let mut strategy = json!({ "mode": "fallback", "on_status_codes": [429, 500, 502, 503, 504] });
    if let Some((t, c)) = breaker {
        strategy["cb_config"] = json!({
            "failure_threshold": t,
            "cooldown_interval": (c * 1000.0).max(30_000.0).round() as u64,
        });
        if c < 30.0 {
            unmapped.push(format!(
                "cooldown {c} s: Portkey's cooldown_interval is at least 30 s"
            ));
        }
    }
    let mut portkey = json!({
        "strategy": strategy,
        "request_timeout": (timeout * 1000.0).round() as u64,
        "targets": targets,
    });
    if retries > 0 {
        portkey["retry"] =
            json!({ "attempts": retries.min(5), "on_status_codes": [429, 500, 502, 503, 504] });
        if retries > 5 {
            unmapped.push(format!(
                "retries {retries}: Portkey retries at most 5 times"
            ));
        }
    }
    unmapped.push("backoff: both gateways back off on their own schedule (LiteLLM: retry_after and the provider's Retry-After; Portkey: exponential)".into());
    Snippets {
        litellm_yaml: yaml,
        portkey,
        unmapped,
    }
}
