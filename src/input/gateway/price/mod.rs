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
//!   when the scenario is one such route, each chain carries its share as `traffic_share` (the
//!   report then has the blended row of the route's mix); with several routes the configs do
//!   not say how the traffic splits between them, so there is none (said per split chain);
//! - `num_retries` → `policy.retries`; `retry_policy` → `policy.retries_by_class`, each class
//!   at its own count (`TimeoutErrorRetries` for timeouts, `InternalServerErrorRetries` for 5xx
//!   and overload, `RateLimitErrorRetries`; then `DefaultRetries`, then `num_retries`), the
//!   first failure's class choosing the budget as LiteLLM does; the 4xx classes' counts are
//!   listed as not priced (fallcost never retries client errors); a group in `model_group_retry_policy` has its own policy instead of `retry_policy`
//!   (not merged: a class it has no count for gets `num_retries`; a fallback group's own is
//!   listed, not priced); `timeout` (else `request_timeout`) → `policy.timeout_s`, the primary deployment's
//!   own `litellm_params.timeout` winning; a fallback deployment's own `litellm_params.timeout`
//!   (else, when the primary has its own, the router's) → the chain's `link_timeouts_s` (each
//!   link its own timeout, as LiteLLM passes a deployment's timeout to its call);
//!   `litellm_params.max_tokens` / `max_completion_tokens` → the chain's `max_output_tokens`
//!   (the link bills at most that many output tokens; a request's own `max_tokens` would win,
//!   said in the listing);
//!   `allowed_fails` and `cooldown_time` → `policy.breaker` (threshold `allowed_fails + 1`,
//!   LiteLLM cools a deployment down when its failures in a minute exceed `allowed_fails`,
//!   default 3; `cooldown_s` = `cooldown_time`, default 5 s). LiteLLM's cooldown is per
//!   deployment and fallcost's breaker per provider: the provenance says so;
//! - `max_fallbacks` → `policy.max_attempts` = (1 + retries) × (1 + max_fallbacks), when it
//!   bounds the chain;
//! - Portkey (`portkey_policy`): the primary target's `retry.attempts` (its own, else the
//!   nearest parent's) → `policy.retries_by_class`: each class whose statuses its
//!   `on_status_codes` (default `[429, 500, 502, 503, 504]`) list gets `attempts`, the others 0
//!   (one `retries` when every class is alike); `request_timeout` (ms) → `policy.timeout_s`, a
//!   fallback target's own (or inherited) `request_timeout` that differs → `link_timeouts_s`;
//!   `override_params.max_tokens` / `max_completion_tokens` (merged down) → `max_output_tokens`
//!   on that target's links; the fallback strategy's `on_status_codes` → `policy.failover_on`
//!   (any status that is not ok without them); `cb_config` → `policy.breaker`; a fallback
//!   target's own retry and the other `override_params` besides the model are listed, not
//!   priced.

mod chains;
mod emit;
mod policy;
mod portkey_policy;

use std::path::{Path, PathBuf};

use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{self, Endpoint, Env, Node, litellm, openrouter, portkey};
use crate::input::pricing::{PricingRef, broad_name};
use crate::input::{read_text, shown_path};
use crate::model::{ModelPrice, PriceTable, Scenario};
use chains::{WrittenChains, unknown_models};
use emit::emit;
use policy::policy_of;
use portkey_policy::portkey_policy;

/// A value taken from a config, for the report (defined in the model, which `output` may use).
pub use crate::model::provenance::{Provenance, Served};

/// A scenario built from gateway configs.
pub struct FromConfig {
    /// The scenario, validated.
    pub scenario: Scenario,
    /// Every value taken from the configs, in chain order.
    pub provenance: Vec<Provenance>,
}

/// A scenario's text built from gateway configs, before validation: the one [`Source`] type
/// `ops::inputs` reads a `--scenario` file into too.
pub use crate::input::source::Source;

/// The files `paths` name: files as given, folders searched for `.yaml`, `.yml` and `.json`
/// (hidden files and folders aside); the other files found in a folder are listed in `skipped`
/// with why.
fn files(paths: &[PathBuf], skipped: &mut Vec<String>) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    fn walk(
        dir: &Path,
        out: &mut Vec<PathBuf>,
        skipped: &mut Vec<String>,
    ) -> Result<(), InputError> {
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
                walk(&p, out, skipped)?;
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                out.push(p);
            } else {
                skipped.push(format!("{}: not .yaml, .yml or .json", shown_path(&p)));
            }
        }
        Ok(())
    }
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out, skipped)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// What one file given to `--config` (or found in a folder it names) is.
enum Read {
    /// A gateway config: its chains, its root (for the policy values), whether it is
    /// LiteLLM's.
    Config(gateway::Config, Node, bool),
    /// A file found in a folder that is no config fallcost reads: why.
    Skipped(String),
}

/// Read one config: its chains and its root (for the policy values). `named` says whether the
/// file was named itself (then a file that is no config is an error) or found in a folder
/// (then it is skipped, with why).
fn read_config(
    path: &Path,
    prices: &PriceTable,
    named: bool,
    env: &Env,
) -> Result<Read, InputError> {
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
            return Ok(Read::Config(portkey::read(&file, &root)?, root, false));
        }
        if openrouter::recognise(&value) {
            let config = openrouter::read_priced(&file, &root, Some(prices))?;
            return Ok(Read::Config(config, root, false));
        }
        let why = "JSON, but not a Portkey config or an OpenRouter request";
        return if named {
            Err(not_one(why))
        } else {
            Ok(Read::Skipped(why.to_string()))
        };
    }
    litellm::python_syntax(&file, &text)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let docs = match gateway::parse_yaml_documents(&file, &text) {
        Ok(docs) => docs,
        // A YAML found in a folder that does not parse is not a config (check skips it too).
        Err(e) if !named => return Ok(Read::Skipped(format!("not valid YAML ({})", e.message))),
        Err(e) => return Err(e),
    };
    for doc in docs {
        let doc = if litellm::includes_files(&doc) {
            litellm::resolve_includes(&file, dir, doc)?
        } else {
            doc
        };
        if litellm::recognise(&doc) {
            return Ok(Read::Config(
                litellm::read_in(&file, &doc, prices, env)?,
                doc,
                true,
            ));
        }
    }
    let why = "not a gateway config fallcost reads";
    if named {
        Err(not_one(why))
    } else {
        Ok(Read::Skipped(format!(
            "YAML, but {why} (no model_list, no fallbacks under router_settings or litellm_settings)"
        )))
    }
}

/// The warning for each fallback of `config` that names no group (a dangling fallback,
/// `file:line: ...`): LiteLLM's router finds no deployment for it and goes on to the next
/// fallback, so it is priced as skipped, and a chain left with no fallback is its primary
/// alone (said).
fn dangling(file: &str, config: &gateway::Config) -> Vec<String> {
    let mut out = Vec::new();
    for (at, notice) in &config.notices {
        let gateway::Notice::NotAGroup {
            primary: Some(p), ..
        } = notice
        else {
            continue;
        };
        let alone = config
            .chains
            .iter()
            .filter(|c| c.primary.label == *p)
            .all(|c| c.links.is_empty());
        let then = if alone {
            format!("; `{p}` has no other fallback: priced as its primary alone")
        } else {
            "; priced without it".to_string()
        };
        out.push(format!("{}:{}: {notice}{then}", at.file_or(file), at.line));
    }
    out
}
/// The warning for each chain of `config` whose fallbacks take only some requests (LiteLLM's
/// `context_window_fallbacks`, `content_policy_fallbacks`): the scenario prices a fallback on
/// its failures, while LiteLLM sends such a chain the requests that overflow or are refused,
/// a share of the traffic the scenario does not state (`check` judges it by
/// fallcost.toml's `[usage]` share).
fn conditional(file: &str, config: &gateway::Config) -> Vec<String> {
    config
        .chains
        .iter()
        .filter_map(|c| {
            let cond = c.condition?;
            Some(format!(
                "{}:{}: chain `{}` is conditional: LiteLLM sends it only {}, not every failure; it is priced here as a fallback on the scenario's failures, so read its figures as if that share of requests failed at the scenario's rate (`fallcost check` judges it by fallcost.toml [usage] {})",
                c.at.file_or(file),
                c.at.line,
                c.name,
                cond.takes(),
                cond.share_key(),
            ))
        })
        .collect()
}

/// The scenario id of `ep` and, when the config sets its prices itself (LiteLLM `model_info`
/// or `litellm_params` `input_cost_per_token` ..., wholly or over a table entry), that price,
/// to add to the scenario's table under the id: the price [`super::endpoint::price`] gives,
/// the one `check` judges. The id is the config's model, or, when the table or an earlier
/// deployment (`extra`) has that id at another price, the model with its `file:line`.
///
/// Errors: a model with no known price (fails closed, at the config's line).
fn table_id(
    file: &str,
    ep: &Endpoint,
    prices: &PriceTable,
    extra: &[ModelPrice],
) -> Result<(String, Option<ModelPrice>), InputError> {
    let m = super::endpoint::price(file, ep, prices).map_err(|mut e| {
        // check's advice names its own --pricing flag and config prices; compare's names the
        // same (`--pricing` here too) and the scenario's `pricing`.
        if e.kind == InputErrorKind::UnknownModel
            && let Some(i) = e.message.find(", or pass --pricing with a table that has it")
        {
            e.message.truncate(i);
            e.message.push_str(&format!(
                ", or pass --pricing with a table that has it (or name one in the scenario's `pricing`), or declare it in fallcost.toml (`[prices.\"{}\"]` input and output in USD per 1M tokens)",
                ep.model
            ));
        }
        e
    })?;
    // A free or local model (ollama, vLLM, LM Studio, a private api_base, an OpenRouter
    // `:free` variant) is priced at $0 per token, as `check` reads it: its price goes into
    // the scenario's table under the model's own id, like a price the config sets.
    let free = super::endpoint::free_model(ep).is_some() && !m.priced_as.contains("config");
    if !m.priced_as.contains("config") && !free {
        return Ok((m.priced_as, None));
    }
    let mut price = m.price;
    let clash = |id: &str| {
        prices
            .models
            .get(id)
            .is_some_and(|t| *t != price_as(&price, id))
            || extra
                .iter()
                .any(|x| x.id == id && *x != price_as(&price, id))
    };
    let id = if clash(&ep.model) {
        format!(
            "{} ({}:{})",
            ep.model,
            ep.file.as_deref().unwrap_or(file),
            ep.line
        )
    } else {
        ep.model.clone()
    };
    price.id = id.clone();
    Ok((id, Some(price)))
}

/// `price` under `id`, to compare with a table entry of that id.
fn price_as(price: &ModelPrice, id: &str) -> ModelPrice {
    ModelPrice {
        id: id.to_string(),
        ..price.clone()
    }
}

/// TOML string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// Build the scenario: `scenario` (without `[[chain]]`; `None`: a request of `profile`), the
/// chains of `configs` priced from `pricing` (`--pricing`: a bundled name or a path relative to
/// the current folder; `None`: the scenario's `pricing`, else the bundled LiteLLM snapshot) and
/// the prices the configs set themselves, `profile` over the scenario's `[request]`, then
/// `sets`.
///
/// Errors: a scenario that has chains of its own; a config that is none of the three kinds; a
/// model with no known price (at the config's line); the scenario's own errors.
pub fn build(
    configs: &[PathBuf],
    scenario: Option<&Path>,
    profile: Option<(u64, u64)>,
    pricing: Option<&str>,
    sets: &[(String, String)],
) -> Result<FromConfig, InputError> {
    let own = crate::input::settings::OwnPrices::default();
    let mut b = build_text(configs, scenario, profile, (pricing, &own), &Env::default())?;
    b.overrides.extend(sets.iter().cloned());
    let scenario =
        crate::input::scenario::parse_priced(&b.label, &b.text, &b.base, &b.overrides, &b.prices)?;
    Ok(FromConfig {
        scenario,
        provenance: b.provenance,
    })
}

/// [`build`] without validating: the scenario text and its overrides. `(pricing, own)`:
/// `--pricing` and fallcost.toml's `[prices]`, over the table (and in [`Source::prices`]);
/// `env`: where the model ids read from the environment are read (`--env` over the process
/// environment).
///
/// Errors: as [`build`], but the scenario's own errors come when it is parsed.
pub fn build_text(
    configs: &[PathBuf],
    scenario: Option<&Path>,
    profile: Option<(u64, u64)>,
    (pricing, own): (Option<&str>, &crate::input::settings::OwnPrices),
    env: &Env,
) -> Result<Source, InputError> {
    let (label, mut text, mut base) = scenario_text(scenario)?;
    let table: toml::Table = toml::from_str(&text).unwrap_or_default();
    refuse_chains_and_policy(&label, &text, &table)?;
    // A gateway config names real models: without a `pricing` in the scenario they are priced
    // from the broad table, as `fallcost check` prices them.
    // `--pricing` wins over the scenario's `pricing`, as a flag wins over a file; a relative
    // path is the current folder's, as `check --pricing` takes it (the base is then the
    // current folder: it is only where a relative `pricing` is taken from).
    let named = table.get("pricing").and_then(|v| v.as_str());
    if pricing.is_some() {
        base = PathBuf::new();
    }
    let pricing = pricing.or(named).unwrap_or(broad_name()).to_string();
    let prices = own.over(PricingRef::parse(&pricing, Some(&base)).load()?);
    let mut overrides: Vec<(String, String)> = Vec::new();
    if named != Some(pricing.as_str()) {
        overrides.push(("pricing".into(), pricing.clone()));
    }
    if let Some((i, o)) = profile {
        overrides.push(("request.input_tokens".into(), i.to_string()));
        overrides.push(("request.output_tokens".into(), o.to_string()));
    }
    let mut written = WrittenChains {
        prices: own.prices.clone(),
        ..WrittenChains::default()
    };
    let read = read_configs(configs, &prices, &mut written, env)?;
    let chains_text = written.write_chains();
    let declared: Vec<String> = table
        .get("capacity")
        .and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    let capacity_text = written.capacity_text(&declared);
    let groups = written.chains.iter().map(|c| c.names.clone()).collect();
    let WrittenChains {
        names,
        provenance,
        prices,
        served,
        ..
    } = written;
    if read.found == 0 || names.is_empty() {
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
    text.push_str(&capacity_text);
    Ok(Source {
        label,
        text,
        base,
        overrides,
        provenance,
        served,
        prices,
        warnings: read.warnings,
        skipped: read.skipped,
        groups,
    })
}

/// Every deployment of every group the LiteLLM configs `configs` name (folders searched),
/// fallbacks or not, each as the traffic it serves: `chain` and `route` are the group's name,
/// `primary` the deployment's model, `share` its share of the group (LiteLLM's
/// `simple_shuffle`). `diff` pairs a chain whose group lost its last fallback with these.
/// `env`: as [`build_text`]'s.
///
/// Errors: a config that cannot be read or parsed (as [`build`]).
pub fn served_groups(configs: &[PathBuf], env: &Env) -> Result<Vec<Served>, InputError> {
    let prices = PricingRef::parse(broad_name(), None).load()?;
    let mut skipped = Vec::new();
    let list = files(configs, &mut skipped)?;
    let mut out = Vec::new();
    for path in &list {
        let Read::Config(config, _, true) =
            read_config(path, &prices, configs.contains(path), env)?
        else {
            continue;
        };
        for g in &config.groups {
            let n = g.endpoints.len() as f64;
            for (i, ep) in g.endpoints.iter().enumerate() {
                out.push(Served {
                    chain: g.label.clone(),
                    route: g.label.clone(),
                    group: g.label.clone(),
                    primary: ep.model.clone(),
                    share: g.shares.as_ref().map_or(1.0 / n, |s| s[i]),
                    config: shown_path(path),
                    line: ep.line,
                });
            }
        }
    }
    Ok(out)
}

/// The scenario's label, text and base folder: `scenario`'s, or (`None`) a request of 2,000
/// in / 500 out labelled `--config`.
///
/// Errors: an unreadable scenario.
fn scenario_text(scenario: Option<&Path>) -> Result<(String, String, PathBuf), InputError> {
    Ok(match scenario {
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
    })
}

/// Refuse a scenario beside `--config` that has chains of its own, or a `[policy]` (the config
/// settles the policy: retries, timeout, breaker, failover codes; a scenario's own would be
/// overridden in silence), at the line of its `policy`.
fn refuse_chains_and_policy(
    label: &str,
    text: &str,
    table: &toml::Table,
) -> Result<(), InputError> {
    if table.contains_key("chain") {
        return Err(InputError::file(
            InputErrorKind::Schema,
            label,
            "with --config the chains come from the config: give a scenario without [[chain]] (its request, [steady], [latency] and [incident] are used)",
        ));
    }
    if table.contains_key("policy") {
        let offset = policy_offset(text);
        return Err(InputError {
            file: label.to_string(),
            location: offset.map(|o| crate::error::Location::of_offset(text, o)),
            field: Some("policy".into()),
            message: "with --config the config sets the policy (retries, timeout, circuit breaker, the statuses that fail over): remove the scenario's [policy], or price the scenario's own chains without --config".into(),
            kind: InputErrorKind::Schema,
        });
    }
    Ok(())
}

/// The byte offset of the first line of `text` that sets the scenario's `policy` (`[policy`,
/// `policy.`, `policy =`), at its first non-blank character.
fn policy_offset(text: &str) -> Option<usize> {
    text.lines()
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
        .map(|(start, line)| start + (line.len() - line.trim_start().len()))
}

/// What reading the configs found besides their chains.
struct ConfigsRead {
    /// How many files were configs.
    found: usize,
    /// The dangling-fallback warnings ([`dangling`]).
    warnings: Vec<String>,
    /// The files of a folder that are no config, `file: why`.
    skipped: Vec<String>,
}

/// Read every config `configs` name (folders searched) and write its chains into `written`,
/// priced from `prices`.
///
/// Errors: a config that cannot be read; every model of a config with no price, in one error
/// (fails closed, as check does).
fn read_configs(
    configs: &[PathBuf],
    prices: &PriceTable,
    written: &mut WrittenChains,
    env: &Env,
) -> Result<ConfigsRead, InputError> {
    let mut read = ConfigsRead {
        found: 0,
        warnings: Vec::new(),
        skipped: Vec::new(),
    };
    let list = files(configs, &mut read.skipped)?;
    let named: Vec<bool> = list.iter().map(|f| configs.contains(f)).collect();
    for (path, named) in list.iter().zip(named) {
        let (config, root, is_litellm) = match read_config(path, prices, named, env)? {
            Read::Config(config, root, is_litellm) => (config, root, is_litellm),
            Read::Skipped(why) => {
                read.skipped.push(format!("{}: {why}", shown_path(path)));
                continue;
            }
        };
        read.found += 1;
        let file = shown_path(path);
        read.warnings.extend(dangling(&file, &config));
        read.warnings.extend(conditional(&file, &config));
        let policy = policy_of(&file, &root, is_litellm)?;
        for chain in &config.chains {
            let policy = if is_litellm {
                policy.clone()
            } else {
                portkey_policy(&file, &root, chain)?
            };
            emit(&file, chain, &policy, prices, written)?;
        }
        // Every model of the config with no price, in one error (fails closed, as check does).
        if !written.unknown.is_empty() {
            return Err(unknown_models(std::mem::take(&mut written.unknown)));
        }
    }
    Ok(read)
}
