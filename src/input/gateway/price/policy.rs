//! The policy values a gateway config settles (retries, timeout, breaker, call cap), read with
//! where they are: LiteLLM's router and litellm settings here, Portkey's in
//! [`super::portkey_policy`].

use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Node, litellm};
use crate::model::policy::ErrorClass;

/// A policy value of a config, with where it is.
#[derive(Clone)]
pub(super) struct Setting {
    pub(super) value: f64,
    pub(super) file: String,
    pub(super) line: usize,
}

/// The policy values a config settles.
#[derive(Default, Clone)]
pub(super) struct ConfigPolicy {
    pub(super) retries: Option<Setting>,
    pub(super) timeout_s: Option<(Setting, &'static str)>,
    pub(super) allowed_fails: Option<Setting>,
    pub(super) cooldown_s: Option<Setting>,
    pub(super) max_fallbacks: Option<Setting>,
    /// LiteLLM's `retry_policy`: (field, count) per error class, in the config's order.
    pub(super) retry_policy: Vec<(String, Setting)>,
    /// LiteLLM's `model_group_retry_policy`: each group's own (field, count) list, replacing
    /// `retry_policy` for that group, and where the group's key is.
    pub(super) group_retry_policy: Vec<GroupRetryPolicy>,
    /// LiteLLM's `routing_strategy`, with where it is.
    pub(super) routing_strategy: Option<(String, String, usize)>,
    /// Each deployment's own timeout, seconds: LiteLLM's per-deployment
    /// `litellm_params.timeout`, Portkey's fallback target's `request_timeout` (its own or
    /// inherited, where it differs from the primary's). The deployment's model node (file,
    /// line, column), its timeout, and where it comes from for the listing.
    pub(super) deployment_timeouts: Vec<(ModelPlace, Setting, String)>,
    /// Each deployment's output cap, tokens: LiteLLM's `litellm_params.max_tokens` /
    /// `max_completion_tokens`, Portkey's `override_params.max_tokens` /
    /// `max_completion_tokens` (merged down to the target). Keyed like `deployment_timeouts`.
    pub(super) deployment_caps: Vec<(ModelPlace, Setting, String)>,
    /// Portkey: the status codes `retry` retries (`retry.on_status_codes`, else the gateway's
    /// default `[429, 500, 502, 503, 504]`) and whether the config lists them.
    pub(super) retry_codes: Option<(Vec<i64>, bool)>,
    /// Portkey: `failover_on` from the fallback strategy's `on_status_codes`, its text for the
    /// listing and where it is.
    pub(super) failover_on: Option<(Vec<ErrorClass>, String, String, usize)>,
    /// Portkey: a breaker from `cb_config` (threshold, cooldown s), its text, where it is.
    pub(super) cb: Option<(u64, f64, String, String, usize)>,
    /// Further lines for the listing (what, file, line).
    pub(super) notes: Vec<(String, String, usize)>,
}

/// One group of LiteLLM's `model_group_retry_policy`: the group, its (field, count) list, and
/// where the group's key is (the setting's value unused).
pub(super) type GroupRetryPolicy = (String, Vec<(String, Setting)>, Setting);

/// Where a deployment's `litellm_params.model` is: its file (`None`: the config itself), line
/// and column, as [`Endpoint`] records them.
pub(super) type ModelPlace = (Option<String>, usize, usize);

/// LiteLLM's `RetryPolicy` fields (`litellm/types/router.py`), as
/// `get_num_retries_from_retry_policy` (`litellm/router_utils/get_retry_from_policy.py`) reads
/// them: a count set for the exception's class replaces `num_retries`.
pub(super) const RETRY_POLICY_FIELDS: &[&str] = &[
    "BadRequestErrorRetries",
    "AuthenticationErrorRetries",
    "TimeoutErrorRetries",
    "RateLimitErrorRetries",
    "ContentPolicyViolationErrorRetries",
    "InternalServerErrorRetries",
    "ServiceUnavailableErrorRetries",
    "NotFoundErrorRetries",
    "DefaultRetries",
];

/// The `RetryPolicy` field LiteLLM reads for a failure of fallcost's `class` (the exception
/// LiteLLM maps it to), `None` for classes fallcost never retries.
pub(super) fn retry_field(class: crate::model::policy::ErrorClass) -> Option<&'static str> {
    use crate::model::policy::ErrorClass;
    match class {
        ErrorClass::Timeout => Some("TimeoutErrorRetries"),
        ErrorClass::RateLimit => Some("RateLimitErrorRetries"),
        // LiteLLM raises InternalServerError for a 500 and an overloaded (529) provider.
        ErrorClass::ServerError | ErrorClass::Overload => Some("InternalServerErrorRetries"),
        ErrorClass::Client | ErrorClass::Quota => None,
    }
}

/// A number setting at `key` of the LiteLLM sections (`router_settings` first).
pub(super) fn litellm_setting(
    file: &str,
    root: &Node,
    keys: &[&str],
) -> Result<Option<(Setting, &'static str)>, InputError> {
    for section in litellm::SECTIONS {
        let Some(sec) = root.get(section) else {
            continue;
        };
        for key in keys {
            let Some(v) = sec.get(key) else { continue };
            if v.value == gateway::NodeValue::Null {
                continue;
            }
            let x = v
                .as_f64()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| {
                    v.error(
                        file,
                        InputErrorKind::Invalid,
                        format!("{section}.{key}"),
                        format!("expected a number >= 0; got {}", v.describe()),
                    )
                })?;
            let name: &'static str = match *key {
                "timeout" => "timeout",
                "request_timeout" => "request_timeout",
                _ => "",
            };
            return Ok(Some((
                Setting {
                    value: x,
                    file: v.file_or(file).to_string(),
                    line: v.line,
                },
                name,
            )));
        }
    }
    Ok(None)
}

/// LiteLLM's `retry_policy` (in `router_settings`, else `litellm_settings`): each
/// `RetryPolicy` field set to a count. Other keys are ignored (a third-party format).
///
/// Errors: a count that is not a whole number >= 0; a `retry_policy` that is not a mapping.
pub(super) fn litellm_retry_policy(
    file: &str,
    root: &Node,
) -> Result<Vec<(String, Setting)>, InputError> {
    for section in litellm::SECTIONS {
        let Some(rp) = root.get(section).and_then(|s| s.get("retry_policy")) else {
            continue;
        };
        if rp.value == gateway::NodeValue::Null {
            continue;
        }
        return retry_counts(file, &format!("{section}.retry_policy"), rp);
    }
    Ok(Vec::new())
}

/// The counts of one `RetryPolicy` mapping at `rp` (`field` names it in errors): each
/// `RetryPolicy` field set to a count, in the config's order; other keys are ignored.
///
/// Errors: not a mapping; a count that is not a whole number 0 to 100.
fn retry_counts(file: &str, field: &str, rp: &Node) -> Result<Vec<(String, Setting)>, InputError> {
    let gateway::NodeValue::Map(entries) = &rp.value else {
        return Err(rp.error(
            file,
            InputErrorKind::Invalid,
            field.to_string(),
            format!(
                "expected a mapping of RetryPolicy fields to retry counts ({}); got {}",
                RETRY_POLICY_FIELDS.join(", "),
                rp.describe()
            ),
        ));
    };
    let mut out = Vec::new();
    for (k, v) in entries {
        let Some(key) = k.as_str().filter(|k| RETRY_POLICY_FIELDS.contains(k)) else {
            continue;
        };
        if v.value == gateway::NodeValue::Null {
            continue;
        }
        let x = v
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x <= 100.0)
            .ok_or_else(|| {
                v.error(
                    file,
                    InputErrorKind::Invalid,
                    format!("{field}.{key}"),
                    format!(
                        "expected a whole number of retries, 0 to 100; got {}",
                        v.describe()
                    ),
                )
            })?;
        out.push((
            key.to_string(),
            Setting {
                value: x,
                file: v.file_or(file).to_string(),
                line: v.line,
            },
        ));
    }
    Ok(out)
}

/// LiteLLM's `model_group_retry_policy` (in `router_settings`, else `litellm_settings`, as
/// `retry_policy` is read): `{group: RetryPolicy}`. LiteLLM's router
/// (`Router.async_function_with_retries`, `litellm/router.py`) passes the requested group to
/// `get_num_retries_from_retry_policy` (`litellm/router_utils/get_retry_from_policy.py`), where a
/// group listed here has its own policy *instead of* `retry_policy` (not merged with it: a class
/// its policy sets no count for gets `num_retries`). Returns each group with its counts and
/// where the group's key is, in the config's order.
///
/// Errors: not a mapping of groups to mappings; a count that is not a whole number 0 to 100.
pub(super) fn litellm_group_retry_policy(
    file: &str,
    root: &Node,
) -> Result<Vec<GroupRetryPolicy>, InputError> {
    for section in litellm::SECTIONS {
        let Some(groups) = root
            .get(section)
            .and_then(|s| s.get("model_group_retry_policy"))
        else {
            continue;
        };
        if groups.value == gateway::NodeValue::Null {
            continue;
        }
        let gateway::NodeValue::Map(entries) = &groups.value else {
            return Err(groups.error(
                file,
                InputErrorKind::Invalid,
                format!("{section}.model_group_retry_policy"),
                format!(
                    "expected a mapping of model groups to retry policies ({{group: {{TimeoutErrorRetries: 1, ...}}}}); got {}",
                    groups.describe()
                ),
            ));
        };
        let mut out = Vec::new();
        for (k, v) in entries {
            let Some(group) = k.as_str() else { continue };
            if v.value == gateway::NodeValue::Null {
                continue;
            }
            let counts = retry_counts(
                file,
                &format!("{section}.model_group_retry_policy.{group}"),
                v,
            )?;
            out.push((
                group.to_string(),
                counts,
                Setting {
                    value: 0.0,
                    file: k.file_or(file).to_string(),
                    line: k.line,
                },
            ));
        }
        return Ok(out);
    }
    Ok(Vec::new())
}

/// Each `model_list` deployment's own `litellm_params.timeout` (seconds), keyed by where its
/// `litellm_params.model` is (the place [`Endpoint`] records). A timeout read from the
/// environment (`os.environ/NAME`) cannot be read here and is left to the router's.
///
/// Errors: a timeout that is neither a number > 0 nor an `os.environ/` reference.
pub(super) fn litellm_deployment_timeouts(
    file: &str,
    root: &Node,
) -> Result<Vec<(ModelPlace, Setting, String)>, InputError> {
    let mut out = Vec::new();
    let Some(gateway::NodeValue::Seq(items)) = root.get("model_list").map(|m| &m.value) else {
        return Ok(out);
    };
    for (i, item) in items.iter().enumerate() {
        let Some(params) = item.get("litellm_params") else {
            continue;
        };
        let (Some(model), Some(t)) = (params.get("model"), params.get("timeout")) else {
            continue;
        };
        if t.value == gateway::NodeValue::Null
            || t.as_str().is_some_and(|s| s.starts_with("os.environ/"))
        {
            continue;
        }
        let x = t
            .as_f64()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| {
                t.error(
                    file,
                    InputErrorKind::Invalid,
                    format!("model_list[{i}].litellm_params.timeout"),
                    format!("expected seconds, a number > 0; got {}", t.describe()),
                )
            })?;
        out.push((
            (
                model.file.as_deref().map(str::to_string),
                model.line,
                model.col,
            ),
            Setting {
                value: x,
                file: t.file_or(file).to_string(),
                line: t.line,
            },
            "litellm_params.timeout".to_string(),
        ));
    }
    Ok(out)
}

/// Each `model_list` deployment's output cap, `litellm_params.max_tokens` or
/// `max_completion_tokens` (the smaller when both are set), keyed like
/// [`litellm_deployment_timeouts`]. A deployment's `litellm_params` are the defaults of its
/// calls: `Router._completion` (`litellm/router.py`) calls with
/// `**{**deployment["litellm_params"], .., **kwargs}`, so a request's own `max_tokens` wins (the
/// listing says so). A value read from the environment is left out.
///
/// Errors: a cap that is neither a whole number >= 1 nor an `os.environ/` reference.
pub(super) fn litellm_deployment_caps(
    file: &str,
    root: &Node,
) -> Result<Vec<(ModelPlace, Setting, String)>, InputError> {
    let mut out = Vec::new();
    let Some(gateway::NodeValue::Seq(items)) = root.get("model_list").map(|m| &m.value) else {
        return Ok(out);
    };
    for (i, item) in items.iter().enumerate() {
        let Some(params) = item.get("litellm_params") else {
            continue;
        };
        let Some(model) = params.get("model") else {
            continue;
        };
        let mut best: Option<(Setting, String)> = None;
        for key in ["max_tokens", "max_completion_tokens"] {
            let Some(t) = params.get(key) else { continue };
            if t.value == gateway::NodeValue::Null
                || t.as_str().is_some_and(|s| s.starts_with("os.environ/"))
            {
                continue;
            }
            let x = tokens(file, t, &format!("model_list[{i}].litellm_params.{key}"))?;
            if best.as_ref().is_none_or(|(b, _)| x < b.value) {
                best = Some((
                    Setting {
                        value: x,
                        file: t.file_or(file).to_string(),
                        line: t.line,
                    },
                    format!("litellm_params.{key}"),
                ));
            }
        }
        if let Some((s, from)) = best {
            out.push((
                (
                    model.file.as_deref().map(str::to_string),
                    model.line,
                    model.col,
                ),
                s,
                from,
            ));
        }
    }
    Ok(out)
}

/// A whole number of output tokens >= 1 at `t` (`field` names it in the error).
///
/// Errors: anything else.
pub(super) fn tokens(file: &str, t: &Node, field: &str) -> Result<f64, InputError> {
    t.as_f64()
        .filter(|x| x.is_finite() && *x >= 1.0 && x.fract() == 0.0 && *x <= 1e9)
        .ok_or_else(|| {
            t.error(
                file,
                InputErrorKind::Invalid,
                field.to_string(),
                format!(
                    "expected a whole number of output tokens, 1 to 1e9; got {}",
                    t.describe()
                ),
            )
        })
}

pub(super) fn policy_of(
    file: &str,
    root: &Node,
    is_litellm: bool,
) -> Result<ConfigPolicy, InputError> {
    let mut p = ConfigPolicy::default();
    if is_litellm {
        p.retries = litellm_setting(file, root, &["num_retries"])?.map(|s| s.0);
        p.timeout_s = litellm_setting(file, root, &["timeout", "request_timeout"])?;
        p.allowed_fails = litellm_setting(file, root, &["allowed_fails"])?.map(|s| s.0);
        p.cooldown_s = litellm_setting(file, root, &["cooldown_time"])?.map(|s| s.0);
        p.max_fallbacks = litellm_setting(file, root, &["max_fallbacks"])?.map(|s| s.0);
        p.retry_policy = litellm_retry_policy(file, root)?;
        p.group_retry_policy = litellm_group_retry_policy(file, root)?;
        for section in litellm::SECTIONS {
            if let Some(v) = root.get(section).and_then(|s| s.get("routing_strategy"))
                && let Some(name) = v.as_str()
            {
                p.routing_strategy = Some((name.to_string(), v.file_or(file).to_string(), v.line));
                break;
            }
        }
        p.deployment_timeouts = litellm_deployment_timeouts(file, root)?;
        p.deployment_caps = litellm_deployment_caps(file, root)?;
    } else {
        if let Some(a) = root.get("retry").and_then(|r| r.get("attempts"))
            && let Some(x) = a.as_f64().filter(|x| x.is_finite() && *x >= 0.0)
        {
            p.retries = Some(Setting {
                value: x,
                file: file.to_string(),
                line: a.line,
            });
        }
        if let Some(t) = root.get_any(&["request_timeout", "requestTimeout"])
            && let Some(x) = t.as_f64().filter(|x| x.is_finite() && *x > 0.0)
        {
            p.timeout_s = Some((
                Setting {
                    value: x / 1000.0,
                    file: file.to_string(),
                    line: t.line,
                },
                "request_timeout",
            ));
        }
    }
    Ok(p)
}

/// The `RetryPolicy` fields of classes fallcost never retries: LiteLLM's 4xx exceptions,
/// fallcost's `client` class (a bad request fails on every link: never retried).
const CLIENT_FIELDS: [&str; 4] = [
    "BadRequestErrorRetries",
    "AuthenticationErrorRetries",
    "ContentPolicyViolationErrorRetries",
    "NotFoundErrorRetries",
];

/// What LiteLLM's `retry_policy` (or a group's `model_group_retry_policy` entry, named by
/// `source`) settles, priced per class. LiteLLM's router
/// (`Router.async_function_with_retries`, `litellm/router.py`) asks
/// `get_num_retries_from_retry_policy(exception=original_exception, ..)`
/// (`litellm/router_utils/get_retry_from_policy.py`) with the exception of the call's *first*
/// failure: its class's count (else `DefaultRetries`, else `num_retries`) is the budget of
/// the retries that follow, whatever they fail with. fallcost's `retries_by_class` is that
/// rule, so each class is priced at its own count.
pub(super) struct ClassRetries {
    /// The scenario policy lines: `retries = N` (num_retries, else 0) and `retries_by_class`.
    pub(super) text: Vec<String>,
    /// Provenance: (what, file, line), once per field used or left unpriced.
    pub(super) lines: Vec<(String, String, usize)>,
    /// The most retries any class gets (for the call cap).
    pub(super) most: u64,
}

/// [`ClassRetries`] of `retry_policy`, `None` when it sets no count for a class fallcost
/// retries (then `num_retries` alone holds).
pub(super) fn litellm_class_retries(
    retry_policy: &[(String, Setting)],
    source: &str,
    num_retries: Option<&Setting>,
) -> Option<ClassRetries> {
    let count_of = |c: ErrorClass| class_count(retry_policy, c);
    if !ErrorClass::PROVIDER.iter().any(|&c| count_of(c).is_some()) {
        return None;
    }
    let base = num_retries.map_or(0, |s| s.value.round() as u64);
    let mut by = Vec::new();
    let mut most = 0;
    let mut from_base = Vec::new();
    for c in ErrorClass::PROVIDER {
        let r = count_of(c).map_or(base, |(_, s)| s.value.round() as u64);
        most = most.max(r);
        by.push(format!("{} = {r}", c.as_str()));
        if count_of(c).is_none() {
            from_base.push(c.as_str());
        }
    }
    let mut lines = policy_key_lines(retry_policy, source);
    if !from_base.is_empty() {
        lines.push(base_line(
            retry_policy,
            source,
            num_retries,
            base,
            &from_base,
        ));
    }
    Some(ClassRetries {
        text: vec![
            format!("retries = {base}"),
            format!("retries_by_class = {{ {} }}", by.join(", ")),
        ],
        lines,
        most,
    })
}

/// The entry of `retry_policy` that sets class `c`'s retries: its own field, else
/// `DefaultRetries`.
fn class_count(retry_policy: &[(String, Setting)], c: ErrorClass) -> Option<&(String, Setting)> {
    retry_field(c)
        .and_then(|f| retry_policy.iter().find(|(k, _)| k == f))
        .or_else(|| retry_policy.iter().find(|(k, _)| k == "DefaultRetries"))
}

/// Provenance of each `retry_policy` key: the classes it sets the retries of, or, for a client
/// (4xx) field, that it is not priced.
fn policy_key_lines(
    retry_policy: &[(String, Setting)],
    source: &str,
) -> Vec<(String, String, usize)> {
    let rule = "a request's first failure on a link chooses its retries there, as LiteLLM's get_num_retries_from_retry_policy";
    let mut lines = Vec::new();
    for (key, s) in retry_policy {
        let classes: Vec<&str> = ErrorClass::PROVIDER
            .into_iter()
            .filter(|&c| class_count(retry_policy, c).is_some_and(|(k, _)| k == key))
            .map(ErrorClass::as_str)
            .collect();
        let r = s.value.round() as u64;
        if !classes.is_empty() {
            lines.push((
                format!(
                    "retries {r} for {} failures ({source}.{key}; {rule})",
                    classes.join(", ")
                ),
                s.file.clone(),
                s.line,
            ));
        } else if CLIENT_FIELDS.contains(&key.as_str()) {
            lines.push((
                format!("{source}.{key} {r} not priced: fallcost never retries client (4xx) errors, which fail on every link"),
                s.file.clone(),
                s.line,
            ));
        }
    }
    lines
}

/// Provenance of the classes `from_base` that `retry_policy` (not empty) sets no count for:
/// they get `num_retries` (`base`), or 0 when it is not set.
fn base_line(
    retry_policy: &[(String, Setting)],
    source: &str,
    num_retries: Option<&Setting>,
    base: u64,
    from_base: &[&str],
) -> (String, String, usize) {
    let (file, line, what) = match num_retries {
        Some(s) => (
            s.file.clone(),
            s.line,
            format!("num_retries: {source} sets no count for them"),
        ),
        None => {
            let s = &retry_policy[0].1;
            (
                s.file.clone(),
                s.line,
                format!("{source} sets no count for them and num_retries is not set"),
            )
        }
    };
    (
        format!(
            "retries {base} for {} failures ({what})",
            from_base.join(", ")
        ),
        file,
        line,
    )
}
