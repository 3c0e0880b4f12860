//! The policy of one Portkey fallback strategy: the primary target's `retry` and
//! `request_timeout` (inherited as Portkey hands them down), the strategy's `on_status_codes`
//! and `cb_config`, and what a fallback target sets that a fallcost chain cannot price.

use super::policy::{ConfigPolicy, ModelPlace, Setting, policy_of, tokens};
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Node, Route};
use crate::model::policy::ErrorClass;

/// Portkey's default `retry.on_status_codes` (`RETRY_STATUS_CODES`, `src/globals.ts`; applied
/// in `src/handlers/services/requestContext.ts` when `retry.attempts` is set).
pub(super) const PORTKEY_RETRY_CODES: &[i64] = &[429, 500, 502, 503, 504];

/// The HTTP statuses fallcost's `class` is, as a gateway sees them: Portkey answers its own
/// `request_timeout` with a 408 (`fetchWithTimeout`, `src/handlers/retryHandler.ts`).
pub(super) fn statuses(class: ErrorClass) -> &'static [i64] {
    match class {
        ErrorClass::Timeout => &[408],
        ErrorClass::RateLimit => &[429],
        ErrorClass::Overload => &[529],
        ErrorClass::ServerError => &[500, 502, 503, 504],
        ErrorClass::Client => &[400, 401, 403, 404, 422],
        ErrorClass::Quota => &[],
    }
}

/// Where the models of target `k` of `chain`'s strategy are (the primary target is 0), the
/// places [`super::chains::emit`] looks a deployment's own values up by.
fn places(chain: &Route, k: usize) -> Vec<ModelPlace> {
    let group = if k == 0 {
        Some(&chain.primary)
    } else {
        chain.links.get(k - 1).map(|l| &l.fallback)
    };
    group
        .map(|g| {
            g.endpoints
                .iter()
                .map(|e| (e.file.clone(), e.line, e.col))
                .collect()
        })
        .unwrap_or_default()
}

/// A list of status codes at `node` (`on_status_codes`, `failure_status_codes`).
///
/// Errors: not a list of whole numbers.
pub(super) fn codes(file: &str, node: &Node, field: &str) -> Result<Vec<i64>, InputError> {
    let bad = || {
        node.error(
            file,
            InputErrorKind::Invalid,
            field.to_string(),
            format!(
                "expected a list of HTTP status codes; got {}",
                node.describe()
            ),
        )
    };
    let gateway::NodeValue::Seq(items) = &node.value else {
        return Err(bad());
    };
    items
        .iter()
        .map(|c| match c.value {
            gateway::NodeValue::Int(i) if (100..=599).contains(&i) => Ok(i),
            _ => Err(c.error(
                file,
                InputErrorKind::Invalid,
                field.to_string(),
                format!(
                    "expected an HTTP status code (100 to 599); got {}",
                    c.describe()
                ),
            )),
        })
        .collect()
}

/// `[a, b]` for the listing.
pub(super) fn list(codes: &[i64]) -> String {
    format!(
        "[{}]",
        codes
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The Portkey fallback strategy `chain` was read from and its ancestors, root first: the
/// chain's name is its path (`config.targets[1] (fallback)`, [`crate::input::gateway::portkey`]).
pub(super) fn portkey_path<'n>(root: &'n Node, chain: &Route) -> Option<Vec<&'n Node>> {
    let path = chain.name.strip_suffix(" (fallback)")?;
    let mut rest = path.strip_prefix("config")?;
    let mut out = vec![root];
    while !rest.is_empty() {
        let r = rest.strip_prefix(".targets[")?;
        let (i, r) = r.split_once(']')?;
        let i: usize = i.parse().ok()?;
        let gateway::NodeValue::Seq(items) = &out.last()?.get("targets")?.value else {
            return None;
        };
        out.push(items.get(i)?);
        rest = r;
    }
    Some(out)
}

/// The nearest of `keys` on `target` or its ancestors (last first), as Portkey's
/// `tryTargetsRecursively` (`src/handlers/handlerUtils.ts`) hands `retry` and `request_timeout`
/// down: a target's own replaces its parent's.
pub(super) fn nearest<'n>(
    target: &'n Node,
    ancestors: &[&'n Node],
    keys: &[&str],
) -> Option<&'n Node> {
    std::iter::once(target)
        .chain(ancestors.iter().rev().copied())
        .find_map(|n| {
            n.get_any(keys)
                .filter(|v| v.value != gateway::NodeValue::Null)
        })
}

/// A target's effective `retry.attempts` and `on_status_codes` (the codes `None` when not
/// written).
///
/// Errors: attempts that are not a whole number 0 to 100; bad codes.
#[allow(clippy::type_complexity)]
pub(super) fn portkey_retry(
    file: &str,
    target: &Node,
    ancestors: &[&Node],
) -> Result<Option<(Setting, Option<Vec<i64>>)>, InputError> {
    let Some(retry) = nearest(target, ancestors, &["retry"]) else {
        return Ok(None);
    };
    let Some(a) = retry.get("attempts") else {
        return Ok(None);
    };
    let x = a
        .as_f64()
        .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x <= 100.0)
        .ok_or_else(|| {
            a.error(
                file,
                InputErrorKind::Invalid,
                "retry.attempts".to_string(),
                format!(
                    "expected a whole number of retries, 0 to 100; got {}",
                    a.describe()
                ),
            )
        })?;
    let c = match retry.get_any(&["on_status_codes", "onStatusCodes"]) {
        Some(c) => Some(codes(file, c, "retry.on_status_codes")?),
        None => None,
    };
    Ok(Some((
        Setting {
            value: x,
            file: file.to_string(),
            line: a.line,
        },
        c,
    )))
}

/// A target's effective `request_timeout`, in seconds (Portkey's is milliseconds).
pub(super) fn portkey_timeout(target: &Node, ancestors: &[&Node], file: &str) -> Option<Setting> {
    let t = nearest(target, ancestors, &["request_timeout", "requestTimeout"])?;
    let x = t.as_f64().filter(|x| x.is_finite() && *x > 0.0)?;
    Some(Setting {
        value: x / 1000.0,
        file: file.to_string(),
        line: t.line,
    })
}

/// The policy of one Portkey fallback chain: the primary target's `retry` and
/// `request_timeout` (its own, else the nearest parent's), the strategy's `on_status_codes`
/// (as `failover_on`) and `cb_config` (as the breaker), and every fallback target's own retry or
/// timeout that differs (listed as not priced: a fallcost chain has one of each), and the
/// targets' `override_params` besides `model`.
///
/// Errors: a bad `retry.attempts`, status code or `cb_config` number.
pub(super) fn portkey_policy(
    file: &str,
    root: &Node,
    chain: &Route,
) -> Result<ConfigPolicy, InputError> {
    let mut p = ConfigPolicy::default();
    let Some(path) = portkey_path(root, chain) else {
        return policy_of(file, root, false);
    };
    let (node, ancestors) = path.split_last().expect("the root at least");
    let mut ancestors: Vec<&Node> = ancestors.to_vec();
    ancestors.push(node);
    let targets: Vec<&Node> = match node.get("targets").map(|t| &t.value) {
        Some(gateway::NodeValue::Seq(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    let Some(primary) = targets.first() else {
        return Ok(p);
    };
    let primary_retry = portkey_retry(file, primary, &ancestors)?;
    if let Some((s, c)) = &primary_retry {
        p.retries = Some(s.clone());
        p.retry_codes = Some(match c {
            Some(c) => (c.clone(), true),
            None => (PORTKEY_RETRY_CODES.to_vec(), false),
        });
    }
    let primary_timeout = portkey_timeout(primary, &ancestors, file);
    if let Some(t) = &primary_timeout {
        p.timeout_s = Some((t.clone(), "request_timeout"));
    }
    let primary_sets = (&primary_retry, &primary_timeout);
    for (k, t) in targets.iter().enumerate().skip(1) {
        fallback_target(&mut p, file, chain, (k, t), &ancestors, primary_sets)?;
    }
    // override_params besides the model, merged down as Portkey merges them.
    for (k, t) in targets.iter().enumerate() {
        override_params(&mut p, file, chain, (k, t), &ancestors)?;
    }
    let strategy = node.get("strategy");
    p.failover_on = Some(failover_on(file, strategy, strategy.unwrap_or(node))?);
    // cb_config (Portkey's circuit breaker, per strategy).
    if let Some(cb) = node
        .get_any(&["cb_config", "cbConfig"])
        .or_else(|| strategy.and_then(|s| s.get_any(&["cb_config", "cbConfig"])))
    {
        circuit_breaker(&mut p, file, cb)?;
    }
    Ok(p)
}

/// A target's effective retry (attempts and the codes written), as [`portkey_retry`] reads it.
type Retry = Option<(Setting, Option<Vec<i64>>)>;

/// What fallback target `k` (`t`) sets that differs from the primary's `(retry, timeout)`: its
/// own retry, listed as not priced (a fallcost chain retries every link alike), and its
/// `request_timeout` (its own or inherited), which times that link's attempts.
///
/// Errors: a bad `retry.attempts` or status code.
fn fallback_target(
    p: &mut ConfigPolicy,
    file: &str,
    chain: &Route,
    (k, t): (usize, &Node),
    ancestors: &[&Node],
    (primary_retry, primary_timeout): (&Retry, &Option<Setting>),
) -> Result<(), InputError> {
    let label = format!("targets[{k}]");
    let r = portkey_retry(file, t, ancestors)?;
    let differs = match (&r, primary_retry) {
        (Some((a, ca)), Some((b, cb))) => a.value != b.value || ca != cb,
        (None, None) => false,
        _ => true,
    };
    if differs {
        let what = match &r {
            Some((a, c)) => format!(
                "fallback {label}'s retry (retry.attempts {}{}) not priced: a fallcost chain retries every link alike, as its primary",
                a.value,
                c.as_ref()
                    .map_or(String::new(), |c| format!(" on {}", list(c)))
            ),
            None => format!(
                "fallback {label} has no retry (the primary's not priced there): a fallcost chain retries every link alike, as its primary"
            ),
        };
        p.notes.push((what, file.to_string(), t.line));
    }
    // A fallback target's request_timeout (its own or inherited) that differs from the
    // primary's times that link's attempts: priced per link.
    let to = portkey_timeout(t, ancestors, file);
    if to.as_ref().map(|s| s.value) != primary_timeout.as_ref().map(|s| s.value)
        && let Some(s) = &to
    {
        for place in places(chain, k) {
            p.deployment_timeouts
                .push((place, s.clone(), format!("{label}'s request_timeout")));
        }
    }
    Ok(())
}

/// Target `k`'s (`t`'s) `override_params` besides the model, merged down from `ancestors` as
/// Portkey merges them: the output cap (`max_tokens` / `max_completion_tokens`) priced on the
/// target's links, the others listed.
///
/// Errors: a cap that is not a whole number of tokens.
fn override_params(
    p: &mut ConfigPolicy,
    file: &str,
    chain: &Route,
    (k, t): (usize, &Node),
    ancestors: &[&Node],
) -> Result<(), InputError> {
    let mut merged: Vec<(String, String, usize)> = Vec::new();
    for n in ancestors.iter().copied().chain(std::iter::once(t)) {
        if let Some(gateway::NodeValue::Map(entries)) = n
            .get_any(&["override_params", "overrideParams"])
            .map(|o| &o.value)
        {
            for (key, v) in entries {
                let Some(key) = key.as_str().filter(|k| *k != "model") else {
                    continue;
                };
                merged.retain(|(k2, _, _)| k2 != key);
                merged.push((key.to_string(), v.describe(), v.line));
            }
        }
    }
    if let Some((s, from)) = output_cap(file, (k, t), ancestors)? {
        for place in places(chain, k) {
            p.deployment_caps.push((place, s.clone(), from.clone()));
        }
    }
    for (key, value, line) in merged {
        let effect = match key.as_str() {
            "max_tokens" | "max_completion_tokens" => continue,
            "n" => "bills n completions: not priced, fallcost prices one",
            _ => "no effect on the price",
        };
        p.notes.push((
            format!("targets[{k}] override_params.{key} {value}: {effect}"),
            file.to_string(),
            line,
        ));
    }
    Ok(())
}

/// Target `k`'s (`t`'s) output cap: `max_tokens` or `max_completion_tokens` of its
/// `override_params` merged down from `ancestors` (a nearer node's value replaces its parent's;
/// the smaller when both are set), with where it comes from. Portkey's override_params replace
/// the request's own (`override_params` are spread over the request body in tryPost,
/// src/handlers/handlerUtils.ts).
///
/// Errors: a cap that is not a whole number of tokens.
fn output_cap(
    file: &str,
    (k, t): (usize, &Node),
    ancestors: &[&Node],
) -> Result<Option<(Setting, String)>, InputError> {
    let mut by_key: [Option<(Setting, String)>; 2] = [None, None];
    for n in ancestors.iter().copied().chain(std::iter::once(t)) {
        let Some(o) = n.get_any(&["override_params", "overrideParams"]) else {
            continue;
        };
        for (slot, key) in ["max_tokens", "max_completion_tokens"].iter().enumerate() {
            let Some(v) = o.get(key).filter(|v| v.value != gateway::NodeValue::Null) else {
                continue;
            };
            let x = tokens(file, v, &format!("targets[{k}].override_params.{key}"))?;
            // a nearer node's value replaces its parent's
            by_key[slot] = Some((
                Setting {
                    value: x,
                    file: file.to_string(),
                    line: v.line,
                },
                format!("targets[{k}] override_params.{key}"),
            ));
        }
    }
    // across the two keys the smaller holds
    Ok(match by_key {
        [Some(a), Some(b)] => Some(if b.0.value < a.0.value { b } else { a }),
        [a, b] => a.or(b),
    })
}

/// The fallback strategy's `on_status_codes` as `failover_on` (classes, text, file, line of
/// `at`): which failures fail over (Portkey's tryTargetsRecursively: the next target when the
/// status is listed; without a list, on any status that is not ok).
///
/// Errors: a bad status code.
fn failover_on(
    file: &str,
    strategy: Option<&Node>,
    at: &Node,
) -> Result<(Vec<ErrorClass>, String, String, usize), InputError> {
    let Some(c) = strategy.and_then(|s| s.get_any(&["on_status_codes", "onStatusCodes"])) else {
        let classes: Vec<ErrorClass> = ErrorClass::ALL
            .into_iter()
            .filter(|c| *c != ErrorClass::Quota)
            .collect();
        return Ok((
            classes,
            "fail over on rate_limit, overload, server_error, timeout, client (no strategy.on_status_codes: Portkey tries the next target on any status that is not ok; quota errors stop a fallcost chain)".to_string(),
            file.to_string(),
            at.line,
        ));
    };
    let c = codes(file, c, "strategy.on_status_codes")?;
    let mut classes = Vec::new();
    for class in ErrorClass::ALL {
        if class != ErrorClass::Quota && statuses(class).iter().any(|s| c.contains(s)) {
            classes.push(class);
        }
    }
    let partial = statuses(ErrorClass::ServerError)
        .iter()
        .any(|s| c.contains(s))
        && !statuses(ErrorClass::ServerError)
            .iter()
            .all(|s| c.contains(s));
    let mut what = format!(
        "fail over on {} (strategy.on_status_codes {})",
        if classes.is_empty() {
            "no class fallcost models".to_string()
        } else {
            classes
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        },
        list(&c)
    );
    if partial {
        what.push_str(
            "; fallcost's server_error is every 5xx, Portkey fails over on the listed ones only",
        );
    }
    Ok((
        classes,
        what,
        file.to_string(),
        c.first().map_or(at.line, |_| at.line),
    ))
}

/// A number >= 0 at `key` of `cb_config` (`None` when absent or null), with its line.
///
/// Errors: not a number >= 0.
fn cb_number(file: &str, cb: &Node, key: &str) -> Result<Option<(f64, usize)>, InputError> {
    match cb.get(key) {
        None => Ok(None),
        Some(v) if v.value == gateway::NodeValue::Null => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|x| Some((x, v.line)))
            .ok_or_else(|| {
                v.error(
                    file,
                    InputErrorKind::Invalid,
                    format!("cb_config.{key}"),
                    format!("expected a number >= 0; got {}", v.describe()),
                )
            }),
    }
}

/// `cb_config` (Portkey's circuit breaker, per strategy) as the policy's breaker, with what
/// differs from fallcost's breaker; without a `failure_threshold` of at least 1, a note.
///
/// Errors: a bad number or status code.
fn circuit_breaker(p: &mut ConfigPolicy, file: &str, cb: &Node) -> Result<(), InputError> {
    let threshold = cb_number(file, cb, "failure_threshold")?;
    let percentage = cb_number(file, cb, "failure_threshold_percentage")?;
    let cooldown = cb_number(file, cb, "cooldown_interval")?;
    let status = match cb.get("failure_status_codes") {
        Some(c) => Some(codes(file, c, "cb_config.failure_status_codes")?),
        None => None,
    };
    let mut caveats = vec![
        "Portkey opens one target of this strategy, fallcost's breaker opens on the whole provider after consecutive failures".to_string(),
        "the open-source gateway only calls a circuit-breaker hook (handleCircuitBreakerResponse in tryTargetsRecursively, src/handlers/handlerUtils.ts); the hosted gateway opens the target".to_string(),
    ];
    if let Some((pc, _)) = percentage {
        caveats.push(format!(
            "failure_threshold_percentage {pc} not priced: fallcost's breaker counts failures"
        ));
    }
    if let Some(c) = &status {
        caveats.push(format!(
            "failure_status_codes {} not priced: fallcost's breaker counts every failed attempt",
            list(c)
        ));
    }
    match threshold {
        Some((t, line)) if t >= 1.0 => {
            let ms = cooldown.map_or(30_000.0, |c| c.0);
            let secs = ms.max(30_000.0) / 1000.0;
            let cd = match cooldown {
                Some((c, _)) if c < 30_000.0 => {
                    format!(
                        "cooldown {secs} s (cb_config.cooldown_interval {c} ms, raised to Portkey's minimum of 30 s)"
                    )
                }
                Some((c, _)) => format!("cooldown {secs} s (cb_config.cooldown_interval {c} ms)"),
                None => {
                    format!("cooldown {secs} s (no cb_config.cooldown_interval: Portkey's minimum)")
                }
            };
            p.cb = Some((
                t.round() as u64,
                secs,
                format!(
                    "breaker: {} failures (cb_config.failure_threshold), {cd}; {}",
                    t.round() as u64,
                    caveats.join("; ")
                ),
                file.to_string(),
                line,
            ));
        }
        _ => p.notes.push((
            format!(
                "cb_config not priced: no failure_threshold of at least 1; {}",
                caveats.join("; ")
            ),
            file.to_string(),
            cb.line,
        )),
    }
    Ok(())
}
