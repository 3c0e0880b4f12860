//! `compare --config FILE`: the chains of a gateway config (LiteLLM proxy config, Portkey
//! config, OpenRouter request body) priced as a scenario, with the policy values the gateway
//! settles taken from the config and the rest (request, failure rates, latency, incident) from
//! `--scenario` (a scenario without `[[chain]]`), `--profile` and `--set`.
//!
//! Every value taken from the config is recorded with its file and line ([`Provenance`]), so the
//! report can list what was priced.
//!
//! What is taken (LiteLLM: `router_settings` over `litellm_settings`, as its router reads them):
//! - each chain check finds ([`crate::input::gateway`]): its primary and fallbacks in order; a
//!   primary group of several deployments becomes one chain per deployment, named with its
//!   share of the group's traffic (LiteLLM's `simple_shuffle` weights, see
//!   [`crate::input::gateway::litellm`]); a fallback group of several deployments becomes one
//!   chain per deployment too (every combination of one deployment per step, the product of
//!   their shares said in the provenance, so the chains weighted by it are the group's traffic
//!   mix; beyond 64 combinations a fallback group is priced as its largest-share deployment);
//!   under a `routing_strategy` other than `simple-shuffle` the shares are equal (assumed, said);
//! - `num_retries` → `policy.retries`, or `retry_policy`'s count for the class most of the
//!   scenario's failures have (`TimeoutErrorRetries` for gray failures, `InternalServerErrorRetries`
//!   for fast 5xx and overload, `RateLimitErrorRetries`; then `DefaultRetries`): fallcost's
//!   policy has one retry count for every class, so the other classes' counts are listed as not
//!   priced; `timeout` (else `request_timeout`) → `policy.timeout_s`, the primary deployment's
//!   own `litellm_params.timeout` winning (a fallback's own timeout is listed as not priced);
//!   `allowed_fails` and `cooldown_time` → `policy.breaker` (threshold `allowed_fails + 1`,
//!   LiteLLM cools a deployment down when its failures in a minute exceed `allowed_fails`,
//!   default 3; `cooldown_s` = `cooldown_time`, default 5 s). LiteLLM's cooldown is per
//!   deployment and fallcost's breaker per provider: the provenance says so;
//! - `max_fallbacks` → `policy.max_attempts` = (1 + retries) × (1 + max_fallbacks), when it
//!   bounds the chain;
//! - Portkey (`portkey_policy`): the primary target's `retry.attempts` (its own, else the
//!   nearest parent's) → `policy.retries` when its `on_status_codes` (default `[429, 500, 502,
//!   503, 504]`) cover the class the scenario's failures have, else 0; `request_timeout` (ms) →
//!   `policy.timeout_s`; the fallback strategy's `on_status_codes` → `policy.failover_on` (any
//!   status that is not ok without them); `cb_config` → `policy.breaker`; a fallback target's
//!   own retry or timeout and `override_params` besides the model are listed, not priced.

use std::path::{Path, PathBuf};

use crate::check::price_endpoint;
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Endpoint, Node, Route, litellm, openrouter, portkey};
use crate::input::pricing::{PricingRef, broad_name};
use crate::input::{read_text, shown_path};
use crate::model::policy::ErrorClass;
use crate::model::{PriceTable, Request, Scenario};

/// A value taken from a config, for the report: `chain "x": retries 2 (config.yaml:41)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// The scenario chain it applies to.
    pub chain: String,
    /// What was taken, as the report shows it (`retries 2`).
    pub what: String,
    /// The file it was read from.
    pub file: String,
    /// Its line.
    pub line: usize,
    /// The config the chain was read from (the listing names the settings every chain of one
    /// config shares once).
    pub config: String,
}

/// A scenario built from gateway configs.
pub struct FromConfig {
    /// The scenario, validated.
    pub scenario: Scenario,
    /// Every value taken from the configs, in chain order.
    pub provenance: Vec<Provenance>,
}

/// A scenario's text built from gateway configs, before validation (`sweep` validates it at
/// every grid point).
pub struct Built {
    /// The scenario's label: the `--scenario` path, or `--config`.
    pub label: String,
    /// The scenario text with the config's chains appended.
    pub text: String,
    /// The folder a relative `pricing` is taken from.
    pub base: PathBuf,
    /// `--profile` as `--set` overrides of `[request]`, before the caller's own.
    pub overrides: Vec<(String, String)>,
    /// Every value taken from the configs, in chain order.
    pub provenance: Vec<Provenance>,
}

/// A policy value of a config, with where it is.
#[derive(Clone)]
struct Setting {
    value: f64,
    file: String,
    line: usize,
}

/// The policy values a config settles.
#[derive(Default, Clone)]
struct Policy {
    retries: Option<Setting>,
    timeout_s: Option<(Setting, &'static str)>,
    allowed_fails: Option<Setting>,
    cooldown_s: Option<Setting>,
    max_fallbacks: Option<Setting>,
    /// LiteLLM's `retry_policy`: (field, count) per error class, in the config's order.
    retry_policy: Vec<(String, Setting)>,
    /// LiteLLM's `routing_strategy`, with where it is.
    routing_strategy: Option<(String, String, usize)>,
    /// LiteLLM's per-deployment `litellm_params.timeout`: the deployment's model node (file,
    /// line, column) and its timeout.
    deployment_timeouts: Vec<(ModelPlace, Setting)>,
    /// Portkey: the status codes `retry` retries (`retry.on_status_codes`, else the gateway's
    /// default `[429, 500, 502, 503, 504]`) and whether the config lists them.
    retry_codes: Option<(Vec<i64>, bool)>,
    /// Portkey: `failover_on` from the fallback strategy's `on_status_codes`, its text for the
    /// listing and where it is.
    failover_on: Option<(Vec<ErrorClass>, String, String, usize)>,
    /// Portkey: a breaker from `cb_config` (threshold, cooldown s), its text, where it is.
    cb: Option<(u64, f64, String, String, usize)>,
    /// Further lines for the listing (what, file, line).
    notes: Vec<(String, String, usize)>,
}

/// Where a deployment's `litellm_params.model` is: its file (`None`: the config itself), line
/// and column, as [`Endpoint`] records them.
type ModelPlace = (Option<String>, usize, usize);

/// LiteLLM's `RetryPolicy` fields (`litellm/types/router.py`), as
/// `get_num_retries_from_retry_policy` (`litellm/router_utils/get_retry_from_policy.py`) reads
/// them: a count set for the exception's class replaces `num_retries`.
const RETRY_POLICY_FIELDS: &[&str] = &[
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
fn retry_field(class: crate::model::policy::ErrorClass) -> Option<&'static str> {
    use crate::model::policy::ErrorClass;
    match class {
        ErrorClass::Timeout => Some("TimeoutErrorRetries"),
        ErrorClass::RateLimit => Some("RateLimitErrorRetries"),
        // LiteLLM raises InternalServerError for a 500 and an overloaded (529) provider.
        ErrorClass::ServerError | ErrorClass::Overload => Some("InternalServerErrorRetries"),
        ErrorClass::Client | ErrorClass::Quota => None,
    }
}

/// The retryable class most of the scenario's failures have, and why: the largest provider
/// share of `[steady] errors`, else `timeout` when `gray_fraction` (default 1) is at least 0.5
/// and `server_error` below. `exact` is whether every retried failure has that class.
fn dominant_class(scenario: &toml::Table) -> (crate::model::policy::ErrorClass, String, bool) {
    use crate::model::policy::ErrorClass;
    let steady = scenario.get("steady").and_then(|v| v.as_table());
    let num = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    if let Some(errors) = steady
        .and_then(|s| s.get("errors"))
        .and_then(|v| v.as_table())
    {
        let mut best: Option<(ErrorClass, f64)> = None;
        let mut retried = 0;
        for class in ErrorClass::PROVIDER {
            let share = errors.get(class.as_str()).and_then(num).unwrap_or(0.0);
            if share > 0.0 {
                retried += 1;
            }
            if share > 0.0 && best.is_none_or(|(_, b)| share > b) {
                best = Some((class, share));
            }
        }
        if let Some((class, share)) = best {
            return (
                class,
                format!(
                    "the scenario's [steady] errors give {} the largest share ({share})",
                    class.as_str()
                ),
                retried == 1,
            );
        }
    }
    let gray = steady
        .and_then(|s| s.get("gray_fraction"))
        .and_then(num)
        .unwrap_or(1.0);
    let class = if gray >= 0.5 {
        ErrorClass::Timeout
    } else {
        ErrorClass::ServerError
    };
    (
        class,
        format!(
            "the scenario's failures are {} (gray_fraction {gray})",
            if gray >= 0.5 {
                "mostly gray: timeout"
            } else {
                "mostly fast: server_error"
            }
        ),
        gray == 0.0 || gray == 1.0,
    )
}

/// The files `paths` name: files as given, folders searched for `.yaml`, `.yml` and `.json`.
fn files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            InputError::file(
                InputErrorKind::Read,
                shown_path(dir),
                format!("cannot read this folder ({e})"),
            )
        })?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                walk(&p, out)?;
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                out.push(p);
            }
        }
        Ok(())
    }
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Read one config: its chains and its root (for the policy values). `named` says whether the
/// file was named itself (then a file that is no config is an error) or found in a folder.
fn read_config(
    path: &Path,
    prices: &PriceTable,
    named: bool,
) -> Result<Option<(gateway::Config, Node, bool)>, InputError> {
    let file = shown_path(path);
    let text = read_text(path).map_err(|mut e| {
        e.file = file.clone();
        e
    })?;
    let not_one = |what: &str| {
        InputError::file(
            InputErrorKind::Schema,
            file.clone(),
            format!(
                "{what}; --config expects a LiteLLM proxy config (YAML with model_list and router_settings), a Portkey config (JSON with strategy and targets) or an OpenRouter request body (JSON with a models list)"
            ),
        )
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    if !matches!(ext, "json" | "yaml" | "yml") {
        return Err(not_one("not a .yaml, .yml or .json file"));
    }
    let json = ext == "json";
    if json {
        let value: serde_json::Value = serde_json::from_str(gateway::strip_bom(&text))
            .map_err(|e| crate::input::json_syntax_error(&file, &e))?;
        let root = gateway::parse_json(&file, &text)?;
        if portkey::recognise(&value) {
            return Ok(Some((portkey::read(&file, &root)?, root, false)));
        }
        if openrouter::recognise(&value) {
            return Ok(Some((openrouter::read(&file, &root)?, root, false)));
        }
        return if named {
            Err(not_one(
                "JSON, but not a Portkey config or an OpenRouter request",
            ))
        } else {
            Ok(None)
        };
    }
    litellm::python_syntax(&file, &text)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let docs = match gateway::parse_yaml_documents(&file, &text) {
        Ok(docs) => docs,
        // A YAML found in a folder that does not parse is not a config (check skips it too).
        Err(_) if !named => return Ok(None),
        Err(e) => return Err(e),
    };
    for doc in docs {
        let doc = if litellm::includes_files(&doc) {
            litellm::resolve_includes(&file, dir, doc)?
        } else {
            doc
        };
        if litellm::recognise(&doc) {
            return Ok(Some((litellm::read(&file, &doc, prices)?, doc, true)));
        }
    }
    if named {
        Err(not_one("not a gateway config fallcost reads"))
    } else {
        Ok(None)
    }
}

/// A number setting at `key` of the LiteLLM sections (`router_settings` first).
fn litellm_setting(
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
            if v.value == gateway::Value::Null {
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
fn litellm_retry_policy(file: &str, root: &Node) -> Result<Vec<(String, Setting)>, InputError> {
    for section in litellm::SECTIONS {
        let Some(rp) = root.get(section).and_then(|s| s.get("retry_policy")) else {
            continue;
        };
        let gateway::Value::Map(entries) = &rp.value else {
            if rp.value == gateway::Value::Null {
                continue;
            }
            return Err(rp.error(
                file,
                InputErrorKind::Invalid,
                format!("{section}.retry_policy"),
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
            if v.value == gateway::Value::Null {
                continue;
            }
            let x = v
                .as_f64()
                .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0 && *x <= 100.0)
                .ok_or_else(|| {
                    v.error(
                        file,
                        InputErrorKind::Invalid,
                        format!("{section}.retry_policy.{key}"),
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
        return Ok(out);
    }
    Ok(Vec::new())
}

/// Each `model_list` deployment's own `litellm_params.timeout` (seconds), keyed by where its
/// `litellm_params.model` is (the place [`Endpoint`] records). A timeout read from the
/// environment (`os.environ/NAME`) cannot be read here and is left to the router's.
///
/// Errors: a timeout that is neither a number > 0 nor an `os.environ/` reference.
fn litellm_deployment_timeouts(
    file: &str,
    root: &Node,
) -> Result<Vec<(ModelPlace, Setting)>, InputError> {
    let mut out = Vec::new();
    let Some(gateway::Value::Seq(items)) = root.get("model_list").map(|m| &m.value) else {
        return Ok(out);
    };
    for (i, item) in items.iter().enumerate() {
        let Some(params) = item.get("litellm_params") else {
            continue;
        };
        let (Some(model), Some(t)) = (params.get("model"), params.get("timeout")) else {
            continue;
        };
        if t.value == gateway::Value::Null
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
        ));
    }
    Ok(out)
}

fn policy_of(file: &str, root: &Node, is_litellm: bool) -> Result<Policy, InputError> {
    let mut p = Policy::default();
    if is_litellm {
        p.retries = litellm_setting(file, root, &["num_retries"])?.map(|s| s.0);
        p.timeout_s = litellm_setting(file, root, &["timeout", "request_timeout"])?;
        p.allowed_fails = litellm_setting(file, root, &["allowed_fails"])?.map(|s| s.0);
        p.cooldown_s = litellm_setting(file, root, &["cooldown_time"])?.map(|s| s.0);
        p.max_fallbacks = litellm_setting(file, root, &["max_fallbacks"])?.map(|s| s.0);
        p.retry_policy = litellm_retry_policy(file, root)?;
        for section in litellm::SECTIONS {
            if let Some(v) = root.get(section).and_then(|s| s.get("routing_strategy"))
                && let Some(name) = v.as_str()
            {
                p.routing_strategy = Some((name.to_string(), v.file_or(file).to_string(), v.line));
                break;
            }
        }
        p.deployment_timeouts = litellm_deployment_timeouts(file, root)?;
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

/// Portkey's default `retry.on_status_codes` (`RETRY_STATUS_CODES`, `src/globals.ts`; applied
/// in `src/handlers/services/requestContext.ts` when `retry.attempts` is set).
const PORTKEY_RETRY_CODES: &[i64] = &[429, 500, 502, 503, 504];

/// The HTTP statuses fallcost's `class` is, as a gateway sees them: Portkey answers its own
/// `request_timeout` with a 408 (`fetchWithTimeout`, `src/handlers/retryHandler.ts`).
fn statuses(class: ErrorClass) -> &'static [i64] {
    match class {
        ErrorClass::Timeout => &[408],
        ErrorClass::RateLimit => &[429],
        ErrorClass::Overload => &[529],
        ErrorClass::ServerError => &[500, 502, 503, 504],
        ErrorClass::Client => &[400, 401, 403, 404, 422],
        ErrorClass::Quota => &[],
    }
}

/// A list of status codes at `node` (`on_status_codes`, `failure_status_codes`).
///
/// Errors: not a list of whole numbers.
fn codes(file: &str, node: &Node, field: &str) -> Result<Vec<i64>, InputError> {
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
    let gateway::Value::Seq(items) = &node.value else {
        return Err(bad());
    };
    items
        .iter()
        .map(|c| match c.value {
            gateway::Value::Int(i) if (100..=599).contains(&i) => Ok(i),
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
fn list(codes: &[i64]) -> String {
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
fn portkey_path<'n>(root: &'n Node, chain: &Route) -> Option<Vec<&'n Node>> {
    let path = chain.name.strip_suffix(" (fallback)")?;
    let mut rest = path.strip_prefix("config")?;
    let mut out = vec![root];
    while !rest.is_empty() {
        let r = rest.strip_prefix(".targets[")?;
        let (i, r) = r.split_once(']')?;
        let i: usize = i.parse().ok()?;
        let gateway::Value::Seq(items) = &out.last()?.get("targets")?.value else {
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
fn nearest<'n>(target: &'n Node, ancestors: &[&'n Node], keys: &[&str]) -> Option<&'n Node> {
    std::iter::once(target)
        .chain(ancestors.iter().rev().copied())
        .find_map(|n| n.get_any(keys).filter(|v| v.value != gateway::Value::Null))
}

/// A target's effective `retry.attempts` and `on_status_codes` (the codes `None` when not
/// written).
///
/// Errors: attempts that are not a whole number 0 to 100; bad codes.
#[allow(clippy::type_complexity)]
fn portkey_retry(
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
fn portkey_timeout(target: &Node, ancestors: &[&Node], file: &str) -> Option<Setting> {
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
fn portkey_policy(file: &str, root: &Node, chain: &Route) -> Result<Policy, InputError> {
    let mut p = Policy::default();
    let Some(path) = portkey_path(root, chain) else {
        return policy_of(file, root, false);
    };
    let (node, ancestors) = path.split_last().expect("the root at least");
    let mut ancestors: Vec<&Node> = ancestors.to_vec();
    ancestors.push(node);
    let targets: Vec<&Node> = match node.get("targets").map(|t| &t.value) {
        Some(gateway::Value::Seq(items)) => items.iter().collect(),
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
    for (k, t) in targets.iter().enumerate().skip(1) {
        let label = format!("targets[{k}]");
        let r = portkey_retry(file, t, &ancestors)?;
        let differs = match (&r, &primary_retry) {
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
        let to = portkey_timeout(t, &ancestors, file);
        if to.as_ref().map(|s| s.value) != primary_timeout.as_ref().map(|s| s.value)
            && let Some(s) = &to
        {
            p.notes.push((
                format!(
                    "fallback {label}'s request_timeout {} s not priced: a fallcost chain has one timeout per attempt, the primary's",
                    s.value
                ),
                file.to_string(),
                s.line,
            ));
        }
    }
    // override_params besides the model, merged down as Portkey merges them.
    for (k, t) in targets.iter().enumerate() {
        let mut merged: Vec<(String, String, usize)> = Vec::new();
        for n in ancestors.iter().copied().chain(std::iter::once(*t)) {
            if let Some(gateway::Value::Map(entries)) = n
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
        for (key, value, line) in merged {
            let effect = match key.as_str() {
                "max_tokens" | "max_completion_tokens" => {
                    "caps the output tokens: not priced, the scenario's request (--profile) sets them for every link"
                }
                "n" => "bills n completions: not priced, fallcost prices one",
                _ => "no effect on the price",
            };
            p.notes.push((
                format!("targets[{k}] override_params.{key} {value}: {effect}"),
                file.to_string(),
                line,
            ));
        }
    }
    // The fallback strategy's on_status_codes: which failures fail over (Portkey's
    // tryTargetsRecursively: the next target when the status is listed; without a list, on any
    // status that is not ok).
    let strategy = node.get("strategy");
    let at = strategy.unwrap_or(node);
    match strategy.and_then(|s| s.get_any(&["on_status_codes", "onStatusCodes"])) {
        Some(c) => {
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
            p.failover_on = Some((
                classes,
                what,
                file.to_string(),
                c.first().map_or(at.line, |_| at.line),
            ));
        }
        None => {
            let classes: Vec<ErrorClass> = ErrorClass::ALL
                .into_iter()
                .filter(|c| *c != ErrorClass::Quota)
                .collect();
            p.failover_on = Some((
                classes,
                "fail over on rate_limit, overload, server_error, timeout, client (no strategy.on_status_codes: Portkey tries the next target on any status that is not ok; quota errors stop a fallcost chain)".to_string(),
                file.to_string(),
                at.line,
            ));
        }
    }
    // cb_config (Portkey's circuit breaker, per strategy).
    if let Some(cb) = node
        .get_any(&["cb_config", "cbConfig"])
        .or_else(|| strategy.and_then(|s| s.get_any(&["cb_config", "cbConfig"])))
    {
        let num = |key: &str| -> Result<Option<(f64, usize)>, InputError> {
            match cb.get(key) {
                None => Ok(None),
                Some(v) if v.value == gateway::Value::Null => Ok(None),
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
        };
        let threshold = num("failure_threshold")?;
        let percentage = num("failure_threshold_percentage")?;
        let cooldown = num("cooldown_interval")?;
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
                    Some((c, _)) => {
                        format!("cooldown {secs} s (cb_config.cooldown_interval {c} ms)")
                    }
                    None => format!(
                        "cooldown {secs} s (no cb_config.cooldown_interval: Portkey's minimum)"
                    ),
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
    }
    Ok(p)
}

/// The price-table id of `ep` (fails closed on a model with no known price, at the config's
/// line; a model priced by the config itself cannot be priced from a table: an error too).
fn table_id(
    file: &str,
    ep: &Endpoint,
    prices: &PriceTable,
    request: &Request,
) -> Result<String, InputError> {
    let (m, _) = price_endpoint(file, ep, prices, request).map_err(|mut e| {
        // check's advice names its own --pricing flag and config prices; compare prices from the
        // table its scenario names.
        if e.kind == InputErrorKind::UnknownModel
            && let Some(i) = e.message.find("; set its prices in the config")
        {
            e.message.truncate(i);
            e.message.push_str(
                "; name a price table that has it in the scenario's `pricing` (--scenario FILE, or fallcost.toml [compare] scenario)",
            );
        }
        e
    })?;
    if m.priced_as.contains("config") {
        return Err(InputError {
            file: ep.file.clone().unwrap_or_else(|| file.to_string()),
            location: Some(crate::error::Location {
                line: ep.line,
                col: ep.col,
            }),
            field: None,
            message: format!(
                "`{}` is priced by the config itself (input_cost_per_token ...); compare prices from a table: add the model to a price table and name it in the scenario's `pricing`",
                ep.model
            ),
            kind: InputErrorKind::UnknownModel,
        });
    }
    Ok(m.priced_as)
}

/// TOML string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// Build the scenario: `scenario` (without `[[chain]]`; `None`: a request of `profile`), the
/// chains of `configs`, `profile` over the scenario's `[request]`, then `sets`.
///
/// Errors: a scenario that has chains of its own; a config that is none of the three kinds; a
/// model with no known price (at the config's line); the scenario's own errors.
pub fn build(
    configs: &[PathBuf],
    scenario: Option<&Path>,
    profile: Option<(u64, u64)>,
    sets: &[(String, String)],
) -> Result<FromConfig, InputError> {
    let mut b = build_text(configs, scenario, profile)?;
    b.overrides.extend(sets.iter().cloned());
    let scenario = crate::input::scenario::parse(&b.label, &b.text, &b.base, &b.overrides)?;
    Ok(FromConfig {
        scenario,
        provenance: b.provenance,
    })
}

/// [`build`] without validating: the scenario text and its overrides.
///
/// Errors: as [`build`], but the scenario's own errors come when it is parsed.
pub fn build_text(
    configs: &[PathBuf],
    scenario: Option<&Path>,
    profile: Option<(u64, u64)>,
) -> Result<Built, InputError> {
    let (label, mut text, base) = match scenario {
        Some(path) => {
            let text = read_text(path)?;
            let base = match path.parent() {
                Some(b) if !b.as_os_str().is_empty() => b.to_path_buf(),
                _ => PathBuf::from("."),
            };
            (path.display().to_string(), text, base)
        }
        None => (
            "--config".to_string(),
            "[request]\ninput_tokens = 2000\noutput_tokens = 500\n".to_string(),
            PathBuf::from("."),
        ),
    };
    let table: toml::Table = toml::from_str(&text).unwrap_or_default();
    if table.contains_key("chain") {
        return Err(InputError::file(
            InputErrorKind::Schema,
            label,
            "with --config the chains come from the config: give a scenario without [[chain]] (its request, [steady], [latency] and [incident] are used)",
        ));
    }
    // The config settles the policy (retries, timeout, breaker, failover codes): a scenario's
    // own [policy] would be overridden in silence, so it is refused.
    if table.contains_key("policy") {
        let offset = text
            .lines()
            .scan(0usize, |at, line| {
                let start = *at;
                *at += line.len() + 1;
                Some((start, line))
            })
            .find(|(_, line)| {
                let l = line.trim_start();
                l.starts_with("[policy")
                    || l.starts_with("policy.")
                    || l.starts_with("policy ")
                    || l.starts_with("policy=")
            })
            .map(|(start, line)| start + (line.len() - line.trim_start().len()));
        return Err(InputError {
            file: label,
            location: offset.map(|o| crate::error::Location::of_offset(&text, o)),
            field: Some("policy".into()),
            message: "with --config the config sets the policy (retries, timeout, circuit breaker, the statuses that fail over): remove the scenario's [policy], or price the scenario's own chains without --config".into(),
            kind: InputErrorKind::Schema,
        });
    }
    // A gateway config names real models: without a `pricing` in the scenario they are priced
    // from the broad table, as `fallcost check` prices them.
    let named = table.get("pricing").and_then(|v| v.as_str());
    let pricing = named.unwrap_or(broad_name()).to_string();
    let prices = PricingRef::parse(&pricing, Some(&base)).load()?;
    let mut overrides: Vec<(String, String)> = Vec::new();
    if named.is_none() {
        overrides.push(("pricing".into(), pricing.clone()));
    }
    if let Some((i, o)) = profile {
        overrides.push(("request.input_tokens".into(), i.to_string()));
        overrides.push(("request.output_tokens".into(), o.to_string()));
    }
    let request = Request {
        input_tokens: profile.map_or(2000.0, |p| p.0 as f64),
        output_tokens: profile.map_or(500.0, |p| p.1 as f64),
        prefix_tokens: 0.0,
        cache_hit_rate: 1.0,
    };
    let class = dominant_class(&table);
    let mut provenance = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut chains_text = String::new();
    let mut found = 0;
    let list = files(configs)?;
    let named: Vec<bool> = list.iter().map(|f| configs.contains(f)).collect();
    for (path, named) in list.iter().zip(named) {
        let Some((config, root, is_litellm)) = read_config(path, &prices, named)? else {
            continue;
        };
        found += 1;
        let file = shown_path(path);
        let policy = policy_of(&file, &root, is_litellm)?;
        for chain in &config.chains {
            let policy = if is_litellm {
                policy.clone()
            } else {
                portkey_policy(&file, &root, chain)?
            };
            emit(
                &file,
                chain,
                &policy,
                &class,
                &prices,
                &request,
                &mut names,
                &mut chains_text,
                &mut provenance,
            )?;
        }
    }
    if found == 0 || names.is_empty() {
        return Err(InputError::file(
            InputErrorKind::Schema,
            configs
                .iter()
                .map(|p| shown_path(p))
                .collect::<Vec<_>>()
                .join(" "),
            "no fallback chain found: --config expects a LiteLLM proxy config with fallbacks, a Portkey fallback config or an OpenRouter request with a models list",
        ));
    }
    text.push('\n');
    text.push_str(&chains_text);
    Ok(Built {
        label,
        text,
        base,
        overrides,
        provenance,
    })
}

/// One deployment a step of a chain may send to: its price-table id, its share of the step's
/// traffic, the deployment.
struct Pick<'a> {
    id: String,
    share: f64,
    ep: &'a Endpoint,
}

/// The most chains one config chain becomes (one per combination of deployments); beyond it,
/// a fallback group is priced as its largest-share deployment.
const MAX_COMBINATIONS: usize = 64;

/// The deployments of `g` that take traffic (a share of 0, e.g. OpenRouter's later
/// `provider.order` entries, takes none in steady state), with their shares (equal without).
fn picks<'a>(
    file: &str,
    g: &'a gateway::Group,
    prices: &PriceTable,
    request: &Request,
) -> Result<Vec<Pick<'a>>, InputError> {
    let taking: Vec<usize> = (0..g.endpoints.len())
        .filter(|&d| {
            g.shares
                .as_ref()
                .and_then(|s| s.get(d))
                .is_none_or(|s| *s > 0.0)
        })
        .collect();
    let n = taking.len();
    taking
        .into_iter()
        .map(|d| {
            let ep = &g.endpoints[d];
            Ok(Pick {
                id: table_id(file, ep, prices, request)?,
                share: g
                    .shares
                    .as_ref()
                    .and_then(|s| s.get(d).copied())
                    .unwrap_or(1.0 / n as f64),
                ep,
            })
        })
        .collect()
}

/// A percentage as the report names shares: `75%`, `37.5%`.
fn pct(share: f64) -> String {
    let x = 100.0 * share;
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}%")
    } else {
        format!("{}%", (x * 100.0).round() / 100.0)
    }
}

#[allow(clippy::too_many_arguments)]
fn emit(
    file: &str,
    chain: &Route,
    policy: &Policy,
    class: &(crate::model::policy::ErrorClass, String, bool),
    prices: &PriceTable,
    request: &Request,
    names: &mut Vec<String>,
    out: &mut String,
    provenance: &mut Vec<Provenance>,
) -> Result<(), InputError> {
    if chain.primary.endpoints.is_empty() {
        return Ok(());
    }
    let primary = picks(file, &chain.primary, prices, request)?;
    let mut links: Vec<(&gateway::RouteLink, Vec<Pick>)> = Vec::new();
    for link in &chain.links {
        let p = picks(file, &link.fallback, prices, request)?;
        if !p.is_empty() {
            links.push((link, p));
        }
    }
    // Every combination of one deployment per step, or (too many) each fallback group as its
    // main deployment: the largest share, the first on ties.
    let combos: usize = links
        .iter()
        .fold(primary.len(), |acc, (_, p)| acc.saturating_mul(p.len()));
    let split = combos <= MAX_COMBINATIONS;
    let main_of = |p: &[Pick]| -> usize {
        let mut best = 0;
        for (i, x) in p.iter().enumerate() {
            if x.share > p[best].share {
                best = i;
            }
        }
        best
    };
    let mut choices: Vec<Vec<usize>> = vec![Vec::new()];
    for (_, p) in &links {
        let options: Vec<usize> = if split {
            (0..p.len()).collect()
        } else {
            vec![main_of(p)]
        };
        choices = choices
            .into_iter()
            .flat_map(|c| {
                options.iter().map(move |&o| {
                    let mut c = c.clone();
                    c.push(o);
                    c
                })
            })
            .collect();
    }
    let n = primary.len();
    let multi_fallback = links.iter().any(|(_, p)| p.len() > 1);
    for pick in &primary {
        for choice in &choices {
            let mut base = if n > 1 {
                format!("{} [{}, {:.0}%]", chain.name, pick.id, 100.0 * pick.share)
            } else {
                chain.name.clone()
            };
            let mut share = pick.share;
            for ((link, p), &c) in links.iter().zip(choice) {
                if p.len() > 1 && split {
                    base.push_str(&format!(
                        " -> {} [{}, {}]",
                        link.fallback.label,
                        p[c].id,
                        pct(p[c].share)
                    ));
                    share *= p[c].share;
                }
            }
            let mut name = base.clone();
            let mut k = 2;
            while names.contains(&name) {
                name = format!("{base} #{k}");
                k += 1;
            }
            names.push(name.clone());
            let mut models = vec![pick.id.clone()];
            models.extend(links.iter().zip(choice).map(|((_, p), &c)| p[c].id.clone()));
            let mut rec = |what: String, f: &str, line: usize| {
                provenance.push(Provenance {
                    chain: name.clone(),
                    what,
                    file: f.to_string(),
                    line,
                    config: file.to_string(),
                });
            };
            let ep = pick.ep;
            let ep_file = ep.file.as_deref().unwrap_or(file);
            rec(
                format!("primary `{}` = `{}`", chain.primary.label, pick.id),
                ep_file,
                ep.line,
            );
            if n > 1 {
                rec(
                    format!(
                        "{:.0}% of `{}`'s traffic ({})",
                        100.0 * pick.share,
                        chain.primary.label,
                        chain.primary.mix.as_deref().unwrap_or("equal shares")
                    ),
                    ep_file,
                    ep.line,
                );
            }
            for ((link, p), &c) in links.iter().zip(choice) {
                let what = if p.len() == 1 {
                    format!("fallback `{}` = `{}`", link.fallback.label, p[c].id)
                } else if split {
                    format!(
                        "fallback `{}` = `{}`, {} of its traffic ({})",
                        link.fallback.label,
                        p[c].id,
                        pct(p[c].share),
                        link.fallback.mix.as_deref().unwrap_or("equal shares")
                    )
                } else {
                    format!(
                        "fallback `{}` priced as its main deployment `{}` (its {} deployments make more than {MAX_COMBINATIONS} chains)",
                        link.fallback.label,
                        p[c].id,
                        p.len()
                    )
                };
                rec(what, file, link.at.line);
            }
            if multi_fallback && split {
                rec(
                    format!(
                        "{} of the requests for `{}` (the product of the shares)",
                        pct(share),
                        chain.primary.label
                    ),
                    file,
                    chain.at.line,
                );
            }
            if let Some((strategy, f, line)) = &policy.routing_strategy
                && (n > 1 || multi_fallback)
            {
                let how = if strategy == "simple-shuffle" {
                    "groups priced by their weights (litellm_params.weight, else rpm, else tpm)"
                        .to_string()
                } else {
                    format!(
                        "groups priced as equal shares of their deployments (assumed: `{strategy}` picks by live state, not weights)"
                    )
                };
                rec(format!("routing_strategy `{strategy}`: {how}"), f, *line);
            }
            let mut policy_text = Vec::new();
            // Retries: the retry_policy count for the class the scenario's failures have, else
            // num_retries (LiteLLM's router: a class's count replaces num_retries).
            let (cls, why, exact) = class;
            let field = retry_field(*cls);
            let from_policy = field
                .and_then(|f| policy.retry_policy.iter().find(|(k, _)| k == f))
                .or_else(|| {
                    policy
                        .retry_policy
                        .iter()
                        .find(|(k, _)| k == "DefaultRetries")
                });
            let retries = if let Some((key, s)) = from_policy {
                let r = s.value.round() as u64;
                policy_text.push(format!("retries = {r}"));
                let others: Vec<String> = policy
                    .retry_policy
                    .iter()
                    .filter(|(k, o)| {
                        k != key
                            && crate::model::policy::ErrorClass::PROVIDER
                                .iter()
                                .any(|c| retry_field(*c) == Some(k.as_str()))
                            && o.value != s.value
                    })
                    .map(|(k, o)| format!("{k} {}", o.value))
                    .collect();
                let mut what = format!(
                    "retries {r} (retry_policy.{key}, for {} failures: {why}; fallcost retries every class alike",
                    cls.as_str()
                );
                if !others.is_empty() {
                    what.push_str(&format!(", so {} are not priced", others.join(", ")));
                }
                if !exact {
                    what.push_str("; exact only when every failure has this class");
                }
                what.push(')');
                rec(what, &s.file, s.line);
                Some(r)
            } else if let (Some(s), Some((codes, listed))) = (&policy.retries, &policy.retry_codes)
            {
                // Portkey retries only the statuses retry.on_status_codes lists (its default
                // without them): priced for the class the scenario's failures have.
                let attempts = s.value.round() as u64;
                let retried = statuses(*cls).iter().any(|c| codes.contains(c));
                let r = if retried { attempts } else { 0 };
                policy_text.push(format!("retries = {r}"));
                let from = if *listed {
                    format!("retry.on_status_codes {}", list(codes))
                } else {
                    format!("Portkey's default on_status_codes {}", list(codes))
                };
                let mut what = if retried {
                    format!(
                        "retries {r} (retry.attempts; {from} include {} failures ({}): {why}; fallcost retries every class alike",
                        cls.as_str(),
                        list(statuses(*cls))
                    )
                } else {
                    format!(
                        "retries 0 (retry.attempts {attempts}, but {from} leave out {} failures ({}): {why}",
                        cls.as_str(),
                        list(statuses(*cls))
                    )
                };
                if !exact {
                    what.push_str("; exact only when every failure has this class");
                }
                what.push(')');
                rec(what, &s.file, s.line);
                Some(r)
            } else if let Some(s) = &policy.retries {
                let r = s.value.round() as u64;
                policy_text.push(format!("retries = {r}"));
                let what = if policy.retry_policy.is_empty() {
                    format!("retries {r}")
                } else {
                    format!(
                        "retries {r} (num_retries: retry_policy sets no count for {} failures)",
                        cls.as_str()
                    )
                };
                rec(what, &s.file, s.line);
                Some(r)
            } else {
                None
            };
            // Timeout: the primary deployment's own litellm_params.timeout wins over the
            // router's (LiteLLM passes a deployment's timeout to its call).
            let own_timeout = |e: &Endpoint| {
                policy
                    .deployment_timeouts
                    .iter()
                    .find(|((f, l, c), _)| *f == e.file && *l == e.line && *c == e.col)
                    .map(|(_, s)| s)
            };
            if let Some(s) = own_timeout(ep) {
                policy_text.push(format!("timeout_s = {}", s.value));
                let over = policy.timeout_s.as_ref().map_or(String::new(), |(r, key)| {
                    format!(", over the router's {key} {} s", r.value)
                });
                rec(
                    format!(
                        "timeout {} s (`{}`'s litellm_params.timeout{over})",
                        s.value, pick.id
                    ),
                    &s.file,
                    s.line,
                );
            } else if let Some((s, key)) = &policy.timeout_s {
                policy_text.push(format!("timeout_s = {}", s.value));
                let from = if *key == "timeout" {
                    String::new()
                } else {
                    format!(" ({key})")
                };
                rec(format!("timeout {} s{from}", s.value), &s.file, s.line);
            }
            for ((link, p), &c) in links.iter().zip(choice) {
                if let Some(s) = own_timeout(p[c].ep) {
                    rec(
                        format!(
                            "fallback `{}`'s own timeout {} s not priced: a fallcost chain has one timeout per attempt, the primary's",
                            link.fallback.label, s.value
                        ),
                        &s.file,
                        s.line,
                    );
                }
            }
            for (what, f, line) in &policy.notes {
                rec(what.clone(), f, *line);
            }
            if let Some((classes, what, f, line)) = &policy.failover_on {
                policy_text.push(format!(
                    "failover_on = [{}]",
                    classes
                        .iter()
                        .map(|c| quoted(c.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                rec(what.clone(), f, *line);
            }
            if let Some((threshold, cooldown, what, f, line)) = &policy.cb {
                policy_text.push(format!(
                    "breaker = {{ threshold = {threshold}, cooldown_s = {cooldown} }}"
                ));
                rec(what.clone(), f, *line);
            }
            if policy.allowed_fails.is_some() || policy.cooldown_s.is_some() {
                let threshold = policy
                    .allowed_fails
                    .as_ref()
                    .map_or(3.0, |s| s.value)
                    .round() as u64
                    + 1;
                let cooldown = policy.cooldown_s.as_ref().map_or(5.0, |s| s.value);
                policy_text.push(format!(
                    "breaker = {{ threshold = {threshold}, cooldown_s = {cooldown} }}"
                ));
                let at = policy
                    .allowed_fails
                    .as_ref()
                    .or(policy.cooldown_s.as_ref())
                    .expect("one is set");
                rec(
                    format!(
                        "breaker: {threshold} failures (allowed_fails + 1), cooldown {cooldown} s (cooldown_time); LiteLLM cools one deployment down, fallcost's breaker opens on the whole provider"
                    ),
                    &at.file,
                    at.line,
                );
            }
            if let Some(s) = &policy.max_fallbacks {
                let steps = models.len() as u64;
                let mf = s.value.round() as u64;
                if mf + 1 < steps {
                    let cap = (1 + retries.unwrap_or(0)) * (1 + mf);
                    policy_text.push(format!("max_attempts = {cap}"));
                    rec(
                        format!(
                            "call cap {cap} attempts ((1 + retries) x (1 + max_fallbacks {mf}))"
                        ),
                        &s.file,
                        s.line,
                    );
                }
            }
            out.push_str("[[chain]]\n");
            out.push_str(&format!("name = {}\n", quoted(&name)));
            out.push_str(&format!(
                "models = [{}]\n",
                models
                    .iter()
                    .map(|m| quoted(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if !policy_text.is_empty() {
                out.push_str(&format!("policy = {{ {} }}\n", policy_text.join(", ")));
            }
            out.push('\n');
        }
    }
    Ok(())
}

/// The entries every chain of one config shares (the same value from the same line), when the
/// config has two chains or more: `(config, chain names, entries)`, in the configs' order; and
/// the rest, each chain's own.
#[allow(clippy::type_complexity)]
fn split_shared(
    provenance: &[Provenance],
) -> (
    Vec<(String, Vec<String>, Vec<&Provenance>)>,
    Vec<&Provenance>,
) {
    let mut configs: Vec<(String, Vec<String>)> = Vec::new();
    for p in provenance {
        match configs.iter_mut().find(|(c, _)| *c == p.config) {
            Some((_, chains)) => {
                if !chains.contains(&p.chain) {
                    chains.push(p.chain.clone());
                }
            }
            None => configs.push((p.config.clone(), vec![p.chain.clone()])),
        }
    }
    let key = |p: &Provenance| (p.config.clone(), p.what.clone(), p.file.clone(), p.line);
    let mut shared = Vec::new();
    let mut shared_keys = Vec::new();
    for (config, chains) in &configs {
        if chains.len() < 2 {
            continue;
        }
        let mut entries: Vec<&Provenance> = Vec::new();
        for p in provenance
            .iter()
            .filter(|p| p.chain == chains[0] && p.config == *config)
        {
            let everywhere = chains
                .iter()
                .all(|c| provenance.iter().any(|q| q.chain == *c && key(q) == key(p)));
            if everywhere && !shared_keys.contains(&key(p)) {
                shared_keys.push(key(p));
                entries.push(p);
            }
        }
        if !entries.is_empty() {
            shared.push((config.clone(), chains.clone(), entries));
        }
    }
    let own = provenance
        .iter()
        .filter(|p| !shared_keys.contains(&key(p)))
        .collect();
    (shared, own)
}

/// The report `bytes` in `format` with the values taken from the configs: each chain's own in a
/// `config` list in JSON (`chain`, `value`, `file`, `line`) and the settings every chain of a
/// config shares once in `config_shared` (`config`, `chains`, `value`, `file`, `line`); lines
/// before the tables in text and Markdown (`chain "x": primary ... (config.yaml:5)`, then
/// `every chain of config.yaml (2): retries 2 (config.yaml:41), ...`); nothing added to CSV (its
/// one header line is a contract), where the lines go to standard error instead.
///
/// Errors: JSON the renderer wrote that does not parse back (a bug).
pub fn with_provenance(
    bytes: Vec<u8>,
    format: crate::output::Format,
    provenance: &[Provenance],
) -> anyhow::Result<Vec<u8>> {
    use crate::output::Format;
    let (shared, own) = split_shared(provenance);
    let mut lines = Vec::new();
    let mut i = 0;
    while i < own.len() {
        let chain = &own[i].chain;
        let mut parts = Vec::new();
        while i < own.len() && &own[i].chain == chain {
            let p = own[i];
            parts.push(format!("{} ({}:{})", p.what, p.file, p.line));
            i += 1;
        }
        lines.push(format!("chain {}: {}", quoted(chain), parts.join(", ")));
    }
    for (config, chains, entries) in &shared {
        lines.push(format!(
            "every chain of {config} ({}): {}",
            chains.len(),
            entries
                .iter()
                .map(|p| format!("{} ({}:{})", p.what, p.file, p.line))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(match format {
        Format::Json => {
            let mut v: serde_json::Value = serde_json::from_slice(&bytes)?;
            if let Some(obj) = v.as_object_mut() {
                obj.insert(
                    "config_shared".into(),
                    serde_json::json!(
                        shared
                            .iter()
                            .flat_map(|(config, chains, entries)| entries.iter().map(
                                move |p| serde_json::json!({
                                    "config": config,
                                    "chains": chains,
                                    "value": p.what,
                                    "file": p.file,
                                    "line": p.line,
                                })
                            ))
                            .collect::<Vec<_>>()
                    ),
                );
                obj.insert(
                    "config".into(),
                    serde_json::json!(
                        own.iter()
                            .map(|p| serde_json::json!({
                                "chain": p.chain,
                                "value": p.what,
                                "file": p.file,
                                "line": p.line,
                            }))
                            .collect::<Vec<_>>()
                    ),
                );
            }
            let mut s = serde_json::to_string_pretty(&v)?;
            s.push('\n');
            s.into_bytes()
        }
        Format::Csv => {
            for l in &lines {
                eprintln!("fallcost: config: {l}");
            }
            bytes
        }
        Format::Table | Format::Markdown => {
            let mut out = String::from("Taken from the config:\n");
            for l in &lines {
                // one entry per line, wrapped to the terminal (issue 16), continuing indented
                let entry = format!("  {l}");
                let entry = match format {
                    Format::Table => {
                        crate::output::table::wrap(&entry, crate::output::ui::width(), 2)
                    }
                    _ => entry,
                };
                out.push_str(&entry);
                out.push('\n');
            }
            out.push('\n');
            let mut b = out.into_bytes();
            b.extend(bytes);
            b
        }
    })
}
