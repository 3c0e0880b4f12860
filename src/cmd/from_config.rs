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
//!   [`crate::input::gateway::litellm`]); a fallback group of several deployments is priced as
//!   the deployment with the largest share (said in the provenance);
//! - `num_retries` → `policy.retries`; `timeout` (else `request_timeout`) → `policy.timeout_s`;
//!   `allowed_fails` and `cooldown_time` → `policy.breaker` (threshold `allowed_fails + 1`,
//!   LiteLLM cools a deployment down when its failures in a minute exceed `allowed_fails`,
//!   default 3; `cooldown_s` = `cooldown_time`, default 5 s). LiteLLM's cooldown is per
//!   deployment and fallcost's breaker per provider: the provenance says so;
//! - `max_fallbacks` → `policy.max_attempts` = (1 + retries) × (1 + max_fallbacks), when it
//!   bounds the chain;
//! - Portkey: the config's `retry.attempts` → `policy.retries`, `request_timeout` (ms) →
//!   `policy.timeout_s`.

use std::path::{Path, PathBuf};

use crate::check::price_endpoint;
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Chain, Endpoint, Node, litellm, openrouter, portkey};
use crate::input::pricing::{PricingRef, default_name};
use crate::input::{read_text, shown_path};
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
struct Setting {
    value: f64,
    file: String,
    line: usize,
}

/// The policy values a config settles.
#[derive(Default)]
struct Policy {
    retries: Option<Setting>,
    timeout_s: Option<(Setting, &'static str)>,
    allowed_fails: Option<Setting>,
    cooldown_s: Option<Setting>,
    max_fallbacks: Option<Setting>,
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

fn policy_of(file: &str, root: &Node, is_litellm: bool) -> Result<Policy, InputError> {
    let mut p = Policy::default();
    if is_litellm {
        p.retries = litellm_setting(file, root, &["num_retries"])?.map(|s| s.0);
        p.timeout_s = litellm_setting(file, root, &["timeout", "request_timeout"])?;
        p.allowed_fails = litellm_setting(file, root, &["allowed_fails"])?.map(|s| s.0);
        p.cooldown_s = litellm_setting(file, root, &["cooldown_time"])?.map(|s| s.0);
        p.max_fallbacks = litellm_setting(file, root, &["max_fallbacks"])?.map(|s| s.0);
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

/// The price-table id of `ep` (fails closed on a model with no known price, at the config's
/// line; a model priced by the config itself cannot be priced from a table: an error too).
fn table_id(
    file: &str,
    ep: &Endpoint,
    prices: &PriceTable,
    request: &Request,
) -> Result<String, InputError> {
    let (m, _) = price_endpoint(file, ep, prices, request)?;
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
    let pricing = table
        .get("pricing")
        .and_then(|v| v.as_str())
        .unwrap_or(default_name())
        .to_string();
    let prices = PricingRef::parse(&pricing, Some(&base)).load()?;
    let mut overrides: Vec<(String, String)> = Vec::new();
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
            emit(
                &file,
                chain,
                &policy,
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

#[allow(clippy::too_many_arguments)]
fn emit(
    file: &str,
    chain: &Chain,
    policy: &Policy,
    prices: &PriceTable,
    request: &Request,
    names: &mut Vec<String>,
    out: &mut String,
    provenance: &mut Vec<Provenance>,
) -> Result<(), InputError> {
    if chain.primary.endpoints.is_empty() {
        return Ok(());
    }
    // A fallback group: its main deployment (the largest share, the first on ties).
    let main = |g: &gateway::Group| -> Option<usize> {
        if g.endpoints.is_empty() {
            return None;
        }
        let shares = g
            .shares
            .clone()
            .unwrap_or_else(|| vec![1.0; g.endpoints.len()]);
        let mut best = 0;
        for (i, s) in shares.iter().enumerate() {
            if *s > shares[best] {
                best = i;
            }
        }
        Some(best)
    };
    let mut fallbacks = Vec::new();
    let mut notes = Vec::new();
    for link in &chain.links {
        let Some(i) = main(&link.fallback) else {
            continue;
        };
        let ep = &link.fallback.endpoints[i];
        let id = table_id(file, ep, prices, request)?;
        if link.fallback.endpoints.len() > 1 {
            notes.push((
                format!(
                    "fallback `{}` priced as its main deployment `{id}`",
                    link.fallback.label
                ),
                link.at.line,
            ));
        } else {
            notes.push((
                format!("fallback `{}` = `{id}`", link.fallback.label),
                link.at.line,
            ));
        }
        fallbacks.push(id);
    }
    // The primary's deployments that take traffic (OpenRouter's later `provider.order` entries,
    // a weight of 0, take none in steady state).
    let taking: Vec<usize> = (0..chain.primary.endpoints.len())
        .filter(|&d| {
            chain
                .primary
                .shares
                .as_ref()
                .and_then(|s| s.get(d))
                .is_none_or(|s| *s > 0.0)
        })
        .collect();
    let n = taking.len();
    for d in taking {
        let ep = &chain.primary.endpoints[d];
        let id = table_id(file, ep, prices, request)?;
        let share = chain
            .primary
            .shares
            .as_ref()
            .and_then(|s| s.get(d).copied());
        let base = if n > 1 {
            format!(
                "{} [{id}, {:.0}%]",
                chain.name,
                100.0 * share.unwrap_or(1.0 / n as f64)
            )
        } else {
            chain.name.clone()
        };
        let mut name = base.clone();
        let mut k = 2;
        while names.contains(&name) {
            name = format!("{base} #{k}");
            k += 1;
        }
        names.push(name.clone());
        let mut models = vec![id.clone()];
        models.extend(fallbacks.iter().cloned());
        let mut rec = |what: String, f: &str, line: usize| {
            provenance.push(Provenance {
                chain: name.clone(),
                what,
                file: f.to_string(),
                line,
            });
        };
        rec(
            format!("primary `{}` = `{id}`", chain.primary.label),
            ep.file.as_deref().unwrap_or(file),
            ep.line,
        );
        if n > 1 {
            rec(
                format!(
                    "{:.0}% of `{}`'s traffic ({})",
                    100.0 * share.unwrap_or(1.0 / n as f64),
                    chain.primary.label,
                    chain.primary.mix.as_deref().unwrap_or("equal shares")
                ),
                ep.file.as_deref().unwrap_or(file),
                ep.line,
            );
        }
        for (what, line) in &notes {
            rec(what.clone(), file, *line);
        }
        let mut policy_text = Vec::new();
        let retries = policy.retries.as_ref().map(|s| s.value.round() as u64);
        if let Some(s) = &policy.retries {
            policy_text.push(format!("retries = {}", s.value.round() as u64));
            rec(
                format!("retries {}", s.value.round() as u64),
                &s.file,
                s.line,
            );
        }
        if let Some((s, key)) = &policy.timeout_s {
            policy_text.push(format!("timeout_s = {}", s.value));
            let from = if *key == "timeout" {
                String::new()
            } else {
                format!(" ({key})")
            };
            rec(format!("timeout {} s{from}", s.value), &s.file, s.line);
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
            let links = models.len() as u64;
            let mf = s.value.round() as u64;
            if mf + 1 < links {
                let cap = (1 + retries.unwrap_or(0)) * (1 + mf);
                policy_text.push(format!("max_attempts = {cap}"));
                rec(
                    format!("call cap {cap} attempts ((1 + retries) x (1 + max_fallbacks {mf}))"),
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
    Ok(())
}

/// The report `bytes` in `format` with the values taken from the configs: a `config` list in
/// JSON (`chain`, `value`, `file`, `line`), lines before the tables in text and Markdown
/// (`chain "x": retries 2 (config.yaml:41), ...`), nothing added to CSV (its one header line is
/// a contract), where the lines go to standard error instead.
///
/// Errors: JSON the renderer wrote that does not parse back (a bug).
pub fn with_provenance(
    bytes: Vec<u8>,
    format: crate::output::Format,
    provenance: &[Provenance],
) -> anyhow::Result<Vec<u8>> {
    use crate::output::Format;
    let mut lines = Vec::new();
    let mut i = 0;
    while i < provenance.len() {
        let chain = &provenance[i].chain;
        let mut parts = Vec::new();
        while i < provenance.len() && &provenance[i].chain == chain {
            let p = &provenance[i];
            parts.push(format!("{} ({}:{})", p.what, p.file, p.line));
            i += 1;
        }
        lines.push(format!("chain {}: {}", quoted(chain), parts.join(", ")));
    }
    Ok(match format {
        Format::Json => {
            let mut v: serde_json::Value = serde_json::from_slice(&bytes)?;
            if let Some(obj) = v.as_object_mut() {
                obj.insert(
                    "config".into(),
                    serde_json::json!(
                        provenance
                            .iter()
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
                out.push_str(&format!("  {l}\n"));
            }
            out.push('\n');
            let mut b = out.into_bytes();
            b.extend(bytes);
            b
        }
    })
}
