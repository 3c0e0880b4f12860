//! Portkey gateway configs (JSON): `strategy.mode = "fallback"` over `targets`.
//!
//! ```json
//! {
//!   "strategy": {"mode": "fallback", "on_status_codes": [429, 503]},
//!   "targets": [
//!     {"provider": "@openai-prod", "override_params": {"model": "gpt-4o"}},
//!     {"strategy": {"mode": "loadbalance"},
//!      "targets": [{"override_params": {"model": "@anthropic-prod/claude-sonnet-5"}},
//!                  {"provider": "bedrock", "overrideParams": {"model": "claude-sonnet-5"}}]}
//!   ]
//! }
//! ```
//!
//! How fallcost reads it:
//! - every object with `strategy.mode = "fallback"` (at the top or nested anywhere under
//!   `targets`) is a chain: its first target is the primary, the others its fallbacks in order;
//! - a target with nested `targets` (a load balancer, a conditional router, another fallback) is
//!   one step of the outer chain over every model it can reach, judged by the traffic it sends
//!   in steady state (a loadbalance by its targets' `weight`, default 1, as the gateway's
//!   `tryTargetsRecursively` picks; a nested fallback or `single` all to its first target), or
//!   by its range, worst case, when that cannot be said (a conditional router); a nested
//!   fallback is also checked as a chain of its own;
//! - a target's model is `override_params.model` (snake_case or camelCase keys), inherited as
//!   Portkey's gateway inherits it: a target's `override_params` are merged over its parent's,
//!   and the config's own over the top (the nearest one that sets `model` wins); its provider,
//!   the failure domain, is a `provider` field naming one of Portkey's providers, else the slug
//!   of `@slug/model` or `provider: "@slug"` (Portkey's Model Catalog providers and virtual keys,
//!   which the hosted gateway resolves: the open-source gateway's `tryTargetsRecursively`,
//!   `src/handlers/handlerUtils.ts`, passes them on) resolved to the Portkey provider it starts
//!   with (`openai-prod` is `openai`); a slug that names none (`@prod-key`, a virtual key or
//!   integration) leaves the provider unknown: the model is priced from the table's entry (a
//!   note), and a chain that goes through such slugs is warned about unless the providers the
//!   config names already span two failure domains (two unknown slugs are never taken for two
//!   providers, nor for one; one slug throughout is one provider);
//! - a fallback serving the primary's model on the primary's provider through another slug or
//!   key is a warning: a retry on another key, not a failover;
//! - a target left with no model uses the request's model: a warning (its chain cannot be judged
//!   there), not priced;
//! - `strategy.mode` must be one of Portkey's [`MODES`], and a near miss of a key fallcost reads
//!   (`target`, `override_params.modle`, `mdel`) is an error, as Portkey's own reader would
//!   refuse or ignore it;
//! - JSON is a Portkey config only when it has Portkey's shape: a `strategy` object with a
//!   `mode`, or a `targets` list of objects ([`recognise`]); anything else is skipped with a note.

use super::{
    Config, Endpoint, Group, Node, NodeValue, Notice, Place, PriceOverride, Route, RouteLink,
};
use crate::error::{InputError, InputErrorKind};
use crate::suggest::near_miss;

/// Whether `root` has a Portkey config's shape: an object with a `strategy` object that has a
/// `mode`, or with a non-empty `targets` list of objects (either key also when misspelled, as in
/// `"stratgy"`, `"target"`, and `mode` too, so that [`read`] reports the typo). An Nx
/// `project.json` (whose `targets` is a mapping of build targets) or a `package.json` is not one.
pub fn recognise(root: &serde_json::Value) -> bool {
    let Some(obj) = root.as_object() else {
        return false;
    };
    let near = |key: &str, read: &str| key == read || near_miss(key, &[read], 2, 2).is_some();
    obj.iter().any(|(key, value)| {
        let strategy = near(key, "strategy")
            && value
                .as_object()
                .is_some_and(|s| s.keys().any(|k| near(k, "mode")));
        let targets = near(key, "targets")
            && value
                .as_array()
                .is_some_and(|t| !t.is_empty() && t.iter().all(serde_json::Value::is_object));
        strategy || targets
    })
}

/// Read the chains of the Portkey config `root`.
///
/// Errors: `strategy` that is not an object, `targets` that is not a list of objects, a model
/// that is not a string; each with its field path and line.
pub fn read(file: &str, root: &Node) -> Result<Config, InputError> {
    let mut config = Config::default();
    visit(file, root, "config", None, &mut config)?;
    Ok(config)
}

/// The targets of `node`, checked to be a list of objects.
fn targets<'n>(file: &str, node: &'n Node, path: &str) -> Result<&'n [Node], InputError> {
    match node.get("targets").map(|t| (t, &t.value)) {
        None | Some((_, NodeValue::Null)) => Ok(&[]),
        Some((_, NodeValue::Seq(items))) => {
            for (i, t) in items.iter().enumerate() {
                if !matches!(t.value, NodeValue::Map(_)) {
                    return Err(t.error(
                        file,
                        InputErrorKind::Schema,
                        format!("{path}.targets[{i}]"),
                        format!("expected a target object; got {}", t.kind()),
                    ));
                }
            }
            Ok(items)
        }
        Some((t, _)) => Err(t.error(
            file,
            InputErrorKind::Schema,
            format!("{path}.targets"),
            format!("expected a list of targets; got {}", t.kind()),
        )),
    }
}

/// Portkey's strategy modes (its gateway's config schema).
pub const MODES: &[&str] = &["single", "fallback", "loadbalance", "conditional"];

/// The strategy mode of `node` (one of [`MODES`]), if it has a strategy.
///
/// Errors: `strategy` that is not an object, has no `mode`, or a `mode` Portkey does not define
/// (Portkey refuses such a config; a chain fallcost did not see would pass the gate).
fn mode<'n>(file: &str, node: &'n Node, path: &str) -> Result<Option<&'n str>, InputError> {
    let Some(s) = node.get("strategy") else {
        return Ok(None);
    };
    let path = format!("{path}.strategy");
    if !matches!(s.value, NodeValue::Map(_)) {
        return Err(s.error(
            file,
            InputErrorKind::Schema,
            path,
            format!(
                "expected an object such as {{\"mode\": \"fallback\"}}; got {}",
                s.kind()
            ),
        ));
    }
    s.refuse_near_misses(file, &path, &["mode"], STRATEGY_KEYS, 2, 2)?;
    let allowed = MODES.join(", ");
    let Some(m) = s.get("mode") else {
        return Err(s.error(
            file,
            InputErrorKind::Schema,
            format!("{path}.mode"),
            format!("required field is missing (Portkey requires it); one of: {allowed}"),
        ));
    };
    match m.as_str() {
        Some(mode) if MODES.contains(&mode) => Ok(Some(mode)),
        other => {
            let hint = other
                .and_then(|w| crate::suggest::nearest(w, MODES.iter().copied()))
                .map_or(String::new(), |n| format!(" (did you mean `{n}`?)"));
            Err(m.error(
                file,
                InputErrorKind::Invalid,
                format!("{path}.mode"),
                format!(
                    "{} is not a Portkey strategy mode{hint}; one of: {allowed}",
                    m.describe()
                ),
            ))
        }
    }
}

/// Portkey's provider ids (`VALID_PROVIDERS`, `src/globals.ts` of Portkey-AI/gateway), the common
/// ones, each with the name the price tables (LiteLLM's) give its failure domain.
const PROVIDERS: &[(&str, &str)] = &[
    ("openai", "openai"),
    ("azure-openai", "azure"),
    ("azure-ai", "azure_ai"),
    ("anthropic", "anthropic"),
    ("bedrock", "bedrock"),
    ("vertex-ai", "vertex_ai"),
    ("google", "gemini"),
    ("cohere", "cohere"),
    ("mistral-ai", "mistral"),
    ("groq", "groq"),
    ("together-ai", "together_ai"),
    ("fireworks-ai", "fireworks_ai"),
    ("perplexity-ai", "perplexity"),
    ("deepinfra", "deepinfra"),
    ("deepseek", "deepseek"),
    ("x-ai", "xai"),
    ("openrouter", "openrouter"),
    ("ollama", "ollama"),
    ("huggingface", "huggingface"),
    ("cerebras", "cerebras"),
    ("sambanova", "sambanova"),
    ("nebius", "nebius"),
    ("novita-ai", "novita"),
    ("dashscope", "dashscope"),
    ("moonshot", "moonshot"),
    ("workers-ai", "cloudflare"),
    ("sagemaker", "sagemaker"),
    ("replicate", "replicate"),
    ("ai21", "ai21"),
    ("anyscale", "anyscale"),
    ("github", "github"),
    ("lambda", "lambda"),
    ("z-ai", "zai"),
];

/// The provider (its price-table name) a Portkey provider id or slug names: the id itself, or
/// the longest id the slug starts with followed by `-` or `_` (`openai-prod`, `azure-openai_eu`);
/// `None` for a slug that names none (`prod-key`).
fn provider_of_slug(slug: &str) -> Option<&'static str> {
    let slug = slug.trim_start_matches('@').to_ascii_lowercase();
    PROVIDERS
        .iter()
        .filter(|(id, _)| {
            slug == *id
                || slug
                    .strip_prefix(id)
                    .is_some_and(|rest| rest.starts_with(['-', '_']))
        })
        .max_by_key(|(id, _)| id.len())
        .map(|(_, family)| *family)
}

/// Warn about each link of `chain` that serves the primary's model on the primary's provider
/// through another key or slug (`@openai-prod/gpt-4o` -> `@openai-backup/gpt-4o`): it survives a
/// rate limit on one key, not the provider's outage, and costs the same.
fn same_model_links(chain: &Route, config: &mut Config) {
    let served = |g: &Group| -> Option<(String, String)> {
        let mut all = g
            .endpoints
            .iter()
            .map(|e| Some((e.provider.clone()?, e.served.clone()?)));
        let first = all.next()??;
        all.all(|x| x.as_ref() == Some(&first)).then_some(first)
    };
    let Some(primary) = served(&chain.primary) else {
        return;
    };
    for link in &chain.links {
        if served(&link.fallback).as_ref() == Some(&primary) {
            config.notices.push((
                link.at.clone(),
                Notice::SameModel {
                    primary: chain.primary.label.clone(),
                    fallback: link.fallback.label.clone(),
                    provider: primary.0.clone(),
                    model: primary.1.clone(),
                },
            ));
        }
    }
}

/// The config and target keys fallcost reads: a near miss of one is refused.
const KEYS: &[&str] = &["strategy", "targets", "override_params", "overrideParams"];

/// Portkey's other config and target keys (its gateway's config schema, snake_case and
/// camelCase): never taken for a misspelling of one of [`KEYS`].
const OTHER_KEYS: &[&str] = &[
    "name",
    "provider",
    "api_key",
    "apiKey",
    "virtual_key",
    "virtualKey",
    "weight",
    "retry",
    "cache",
    "on_status_codes",
    "onStatusCodes",
    "request_timeout",
    "requestTimeout",
    "custom_host",
    "customHost",
    "forward_headers",
    "forwardHeaders",
    "input_guardrails",
    "output_guardrails",
    "before_request_hooks",
    "after_request_hooks",
    "strict_open_ai_compliance",
];

/// The `strategy` keys besides `mode`.
const STRATEGY_KEYS: &[&str] = &["on_status_codes", "onStatusCodes", "conditions", "default"];

/// Refuse near misses of the keys fallcost reads in the config or target `node`: its own keys
/// ([`KEYS`]) and `model` in its `override_params`. `models` (OpenRouter's list of fallback
/// models, which Portkey passes through) is accepted next to `model`, and refused without it: the
/// target would have no model of its own.
fn refuse_near_misses(file: &str, node: &Node, path: &str) -> Result<(), InputError> {
    node.refuse_near_misses(file, path, KEYS, OTHER_KEYS, 2, 2)?;
    for key in ["override_params", "overrideParams"] {
        let Some(params) = node.get(key) else {
            continue;
        };
        let valid: &[&str] = if params.get("model").is_some() {
            &["models"]
        } else {
            &[]
        };
        params.refuse_near_misses(file, &format!("{path}.{key}"), &["model"], valid, 2, 1)?;
    }
    Ok(())
}

/// The model `node` sends requests to: its own `override_params.model`, else `inherited` (its
/// parent's), as Portkey merges a parent's override_params under a child's.
fn model<'n>(node: &'n Node, inherited: Option<&'n Node>) -> Option<&'n Node> {
    node.get_any(&["override_params", "overrideParams"])
        .and_then(|p| p.get("model"))
        .or(inherited)
}

fn visit<'n>(
    file: &str,
    node: &'n Node,
    path: &str,
    inherited: Option<&'n Node>,
    config: &mut Config,
) -> Result<(), InputError> {
    refuse_near_misses(file, node, path)?;
    let items = targets(file, node, path)?;
    for (i, t) in items.iter().enumerate() {
        refuse_near_misses(file, t, &format!("{path}.targets[{i}]"))?;
    }
    let inherited = model(node, inherited);
    if mode(file, node, path)? == Some("fallback") {
        if items.is_empty() {
            config.notices.push((
                Place::of(node),
                Notice::Empty {
                    what: format!("{path}.targets of a fallback strategy"),
                },
            ));
            misplaced_targets(node, path, config);
        }
        let mut groups = Vec::new();
        let mut unknown: Vec<Vec<String>> = Vec::new();
        for (i, t) in items.iter().enumerate() {
            let tpath = format!("{path}.targets[{i}]");
            let mut reached = Vec::new();
            let shares = leaves(file, t, &tpath, inherited, &mut reached, config)?
                .filter(|s| s.len() == reached.len() && reached.len() > 1);
            let (endpoints, slugs): (Vec<Endpoint>, Vec<Option<String>>) =
                reached.into_iter().unzip();
            unknown.push(slugs.into_iter().flatten().collect::<Vec<_>>());
            groups.push((
                label(t, &tpath, &endpoints),
                endpoints,
                shares,
                Place::of(t),
            ));
        }
        let mut groups = groups.into_iter();
        let group = |label: String, endpoints: Vec<Endpoint>, shares: Option<Vec<f64>>| {
            let mix = shares.as_ref().map(|_| "Portkey weights".to_string());
            Group {
                label,
                endpoints,
                shares,
                mix,
            }
        };
        if let Some((label, endpoints, shares, _)) = groups.next() {
            let chain = Route {
                name: format!("{path} (fallback)"),
                at: Place::of(node.get("strategy").unwrap_or(node)),
                primary: group(label, endpoints, shares),
                links: groups
                    .map(|(label, endpoints, shares, at)| RouteLink {
                        fallback: group(label, endpoints, shares),
                        at,
                        via: vec![],
                    })
                    .collect(),
                condition: None,
            };
            same_model_links(&chain, config);
            unknown_providers(&chain, &unknown, config);
            config.chains.push(chain);
        }
    }
    for (i, t) in items.iter().enumerate() {
        if t.get("targets").is_some() {
            visit(file, t, &format!("{path}.targets[{i}]"), inherited, config)?;
        }
    }
    Ok(())
}

/// A warning for `targets` written inside `strategy` (`{"strategy": {"mode": "fallback",
/// "targets": [...]}}`, as in a real config): Portkey reads a strategy's targets beside it, in
/// the config or target object, so none of them is ever tried.
fn misplaced_targets(node: &Node, path: &str, config: &mut Config) {
    let Some(inner) = node.get("strategy").and_then(|s| s.get("targets")) else {
        return;
    };
    let n = match &inner.value {
        NodeValue::Seq(items) => items.len(),
        _ => 0,
    };
    config.notices.push((
        Place::of(inner),
        Notice::Ignored {
            what: format!("{path}.strategy.targets ({n} target{})", if n == 1 { "" } else { "s" }),
            why: "Portkey reads a strategy's `targets` beside `strategy`, not inside it, so this fallback strategy has no targets; move the list up one level".into(),
        },
    ));
}

/// A name for a target in messages: its `name`, or its path, with the models it reaches.
fn label(target: &Node, path: &str, endpoints: &[Endpoint]) -> String {
    let base = target
        .get("name")
        .and_then(Node::as_str)
        .map_or_else(|| path.to_string(), str::to_string);
    let mut models: Vec<&str> = Vec::new();
    for e in endpoints {
        if !models.contains(&e.model.as_str()) {
            models.push(&e.model);
        }
    }
    match models.as_slice() {
        [] => base,
        [one] => format!("{one} ({base})"),
        many => format!("{} ({base})", many.join(" | ")),
    }
}

/// A target's `weight` (Portkey's loadbalance default: 1, as `tryTargetsRecursively` in
/// `src/handlers/handlerUtils.ts` of Portkey-AI/gateway sets it).
///
/// Errors: a weight that is not a number >= 0.
fn weight(file: &str, target: &Node, path: &str) -> Result<f64, InputError> {
    match target.get("weight") {
        None => Ok(1.0),
        Some(w) => match w.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(w.error(
                file,
                InputErrorKind::Invalid,
                format!("{path}.weight"),
                format!(
                    "expected a number >= 0 (Portkey's loadbalance picks by it); got {}",
                    w.describe()
                ),
            )),
        },
    }
}

/// An endpoint a target reaches, with the slug it goes through when that slug names no Portkey
/// provider (`@prod-key`: its provider is unknown).
type Leaf = (Endpoint, Option<String>);

/// Every model `target` can send a request to; `inherited` is the model its parents set.
/// Returns the share of the target's traffic each model pushed onto `out` gets in steady state
/// (a loadbalance by its targets' weights, a fallback or `single` all to its first target),
/// `None` when it cannot be said (a conditional router, a target without a model).
fn leaves(
    file: &str,
    target: &Node,
    path: &str,
    inherited: Option<&Node>,
    out: &mut Vec<Leaf>,
    config: &mut Config,
) -> Result<Option<Vec<f64>>, InputError> {
    let nested = targets(file, target, path)?;
    let inherited = model(target, inherited);
    if !nested.is_empty() {
        return nested_leaves(file, (target, nested), path, inherited, out, config);
    }
    let Some(model_node) = inherited.filter(|m| m.value != NodeValue::Null) else {
        config.notices.push((
            Place::of(target),
            Notice::NoModel {
                target: path.to_string(),
            },
        ));
        return Ok(None);
    };
    out.push(leaf(file, target, path, model_node)?);
    Ok(Some(vec![1.0]))
}

/// [`leaves`] of a target with `nested` targets: each nested target's, and the shares of the
/// target's traffic they get by its strategy's mode.
fn nested_leaves(
    file: &str,
    (target, nested): (&Node, &[Node]),
    path: &str,
    inherited: Option<&Node>,
    out: &mut Vec<Leaf>,
    config: &mut Config,
) -> Result<Option<Vec<f64>>, InputError> {
    let m = mode(file, target, path)?;
    let mut parts = Vec::new();
    for (i, t) in nested.iter().enumerate() {
        let tpath = format!("{path}.targets[{i}]");
        let w = weight(file, t, &tpath)?;
        let shares = leaves(file, t, &tpath, inherited, out, config)?;
        parts.push((w, shares));
    }
    let factors: Option<Vec<f64>> = match m {
        Some("loadbalance") => {
            let total: f64 = parts.iter().map(|(w, _)| w).sum();
            (total > 0.0).then(|| parts.iter().map(|(w, _)| w / total).collect())
        }
        Some("fallback") | Some("single") => Some(
            (0..parts.len())
                .map(|i| if i == 0 { 1.0 } else { 0.0 })
                .collect(),
        ),
        _ => None,
    };
    let Some(factors) = factors else {
        return Ok(None);
    };
    let mut shares = Vec::new();
    for ((_, part), f) in parts.into_iter().zip(factors) {
        match part {
            Some(p) if !p.is_empty() => shares.extend(p.into_iter().map(|x| x * f)),
            // A target without a model that takes traffic: its share is unknown.
            _ if f > 0.0 => return Ok(None),
            _ => {}
        }
    }
    Ok(Some(shares))
}

/// The endpoint of a target without nested targets, whose model is `model_node`: its failure
/// domain from its `provider` field or slug, and the slug when that names no provider.
///
/// Errors: a model that is not a string.
fn leaf(file: &str, target: &Node, path: &str, model_node: &Node) -> Result<Leaf, InputError> {
    let Some(model) = model_node.as_str() else {
        return Err(model_node.error(
            file,
            InputErrorKind::Schema,
            format!("{path}.override_params.model"),
            format!("expected a model id; got {}", model_node.kind()),
        ));
    };
    // The failure domain: a `provider` field that names a Portkey provider wins; else the slug
    // of `@slug/model` or of `provider: "@slug"` (a Model Catalog provider or virtual key),
    // resolved to the Portkey provider it starts with (`openai-prod` is `openai`), else the slug
    // itself (a provider fallcost cannot name).
    let field = target.get("provider").and_then(Node::as_str);
    let mut model = model.to_string();
    let mut slug = field.map(|p| p.trim_start_matches('@').to_string());
    if let Some(rest) = model.strip_prefix('@')
        && let Some((s, m)) = rest.split_once('/')
    {
        slug = Some(s.to_string());
        model = m.to_string();
    }
    let named = field
        .filter(|p| !p.starts_with('@'))
        .and_then(provider_of_slug);
    // A slug that names no Portkey provider (`@prod-key`) says nothing of the failure domain:
    // the model is priced from the price table's entry, a note says so, and the chain's
    // provider check treats the slug as an unknown provider ([`unknown_providers`]): two
    // unknown slugs are never taken for two providers, nor for one.
    let provider = named
        .or_else(|| slug.as_deref().and_then(provider_of_slug))
        .map(str::to_string);
    let unknown = match (&provider, &slug) {
        (None, Some(s)) => Some(s.clone()),
        _ => None,
    };
    let note = unknown.as_ref().map(|s| {
        format!(
            "the slug `@{s}` names no Portkey provider: the provider of `{model}` there is unknown"
        )
    });
    let served = model.clone();
    let id = match &slug {
        Some(p) if !model.contains('/') => format!("{p}/{model}"),
        _ => model,
    };
    Ok((
        Endpoint {
            model: id,
            provider,
            price_override: PriceOverride::default(),
            note,
            file: None,
            line: model_node.line,
            col: model_node.col,
            deployment: None,
            served: Some(served),
            limit: Default::default(),
            base_from: None,
        },
        unknown,
    ))
}

/// A warning for a chain some of whose targets go through slugs that name no Portkey provider
/// (`unknown`, one entry per step, the slugs of that step), unless the providers the config
/// does name already span two failure domains: whether such a chain leaves its primary's
/// provider cannot be told (two virtual keys may be one provider's), so it is never counted as
/// crossing providers. Every step through one and the same slug is one provider, whatever it is.
fn unknown_providers(chain: &Route, unknown: &[Vec<String>], config: &mut Config) {
    let mut slugs: Vec<String> = Vec::new();
    for s in unknown.iter().flatten() {
        if !slugs.contains(s) {
            slugs.push(s.clone());
        }
    }
    if slugs.is_empty() || chain.links.is_empty() {
        return;
    }
    let steps = std::iter::once(&chain.primary).chain(chain.links.iter().map(|l| &l.fallback));
    let mut named: Vec<&str> = Vec::new();
    let mut every_step_slugged = true;
    for (g, u) in steps.zip(unknown) {
        for e in &g.endpoints {
            if let Some(p) = e.provider.as_deref() {
                let fam = crate::model::prices::provider_family(p);
                if !named.contains(&fam) {
                    named.push(fam);
                }
            }
        }
        every_step_slugged &= !g.endpoints.is_empty() && u.len() == g.endpoints.len();
    }
    if named.len() >= 2 {
        return;
    }
    config.notices.push((
        chain.at.clone(),
        Notice::UnknownProvider {
            chain: chain.name.clone(),
            one: slugs.len() == 1 && named.is_empty() && every_step_slugged,
            slugs,
        },
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::gateway::parse_json;

    #[test]
    fn nested_targets_camel_case_and_slugs() {
        let text = r#"{
  "strategy": {"mode": "fallback"},
  "targets": [
    {"provider": "@openai-prod", "override_params": {"model": "gpt-6-sol"}},
    {"strategy": {"mode": "loadbalance"},
     "targets": [{"overrideParams": {"model": "@anthropic-prod/claude-sonnet-5"}},
                 {"provider": "openai", "overrideParams": {"model": "gpt-6-astra"}}]},
    {"virtual_key": "vk-only"}
  ]
}"#;
        let root = parse_json("p.json", text).unwrap();
        assert!(recognise(&serde_json::from_str(text).unwrap()));
        let c = read("p.json", &root).unwrap();
        assert_eq!(c.chains.len(), 1);
        let ch = &c.chains[0];
        assert_eq!(ch.primary.endpoints[0].model, "openai-prod/gpt-6-sol");
        // The slug `openai-prod` names Portkey's provider `openai`: one failure domain with it.
        assert_eq!(ch.primary.endpoints[0].provider.as_deref(), Some("openai"));
        assert_eq!(ch.primary.endpoints[0].served.as_deref(), Some("gpt-6-sol"));
        assert_eq!(ch.links.len(), 2);
        let lb = &ch.links[0].fallback;
        assert_eq!(lb.endpoints.len(), 2);
        assert_eq!(lb.endpoints[0].model, "anthropic-prod/claude-sonnet-5");
        assert_eq!(lb.endpoints[0].provider.as_deref(), Some("anthropic"));
        assert_eq!(lb.endpoints[1].model, "openai/gpt-6-astra");
        assert_eq!(ch.links[0].at.line, 5);
        assert!(ch.links[1].fallback.endpoints.is_empty());
        assert_eq!(c.notices[0].1.kind(), "no-model");
    }

    #[test]
    fn loadbalance_weights_and_nested_fallbacks_split_the_traffic() {
        let text = r#"{"strategy": {"mode": "fallback"}, "targets": [
  {"override_params": {"model": "gpt-6-sol"}},
  {"strategy": {"mode": "loadbalance"}, "targets": [
    {"override_params": {"model": "gpt-6-luna"}, "weight": 3},
    {"strategy": {"mode": "fallback"}, "targets": [
      {"override_params": {"model": "gpt-6-astra"}},
      {"override_params": {"model": "claude-sonnet-5"}}]}]},
  {"strategy": {"mode": "conditional", "conditions": []}, "targets": [
    {"override_params": {"model": "gpt-6-luna"}},
    {"override_params": {"model": "gpt-6-astra"}}]}]}"#;
        let c = read("p.json", &parse_json("p.json", text).unwrap()).unwrap();
        let ch = &c.chains[0];
        // Weights 3 and 1 (the default); the nested fallback sends its share to astra.
        assert_eq!(ch.links[0].fallback.shares, Some(vec![0.75, 0.25, 0.0]));
        // A conditional router's split depends on the request: not known, judged worst case.
        assert_eq!(ch.links[1].fallback.shares, None);
        assert_eq!(ch.primary.shares, None, "one model: no mix to speak of");
        let bad = text.replace("\"weight\": 3", "\"weight\": -1");
        let e = read("p.json", &parse_json("p.json", &bad).unwrap()).unwrap_err();
        assert_eq!(
            e.field.as_deref(),
            Some("config.targets[1].targets[0].weight")
        );
    }

    #[test]
    fn slugs_resolve_to_the_provider_they_start_with() {
        for (slug, provider) in [
            ("openai", Some("openai")),
            ("@openai-prod", Some("openai")),
            ("azure-openai_eu", Some("azure")),
            ("azure-ai-west", Some("azure_ai")),
            ("Vertex-AI-us", Some("vertex_ai")),
            ("openaiprod", None),
            ("prod-key", None),
        ] {
            assert_eq!(provider_of_slug(slug), provider, "{slug}");
        }
    }

    #[test]
    fn nested_fallbacks_are_chains_too_and_other_json_is_not_portkey() {
        let text = r#"{"strategy": {"mode": "loadbalance"}, "targets": [
  {"strategy": {"mode": "fallback"}, "targets": [
    {"override_params": {"model": "gpt-6-sol"}}, {"override_params": {"model": "gpt-6-luna"}}]}]}"#;
        let root = parse_json("p.json", text).unwrap();
        let c = read("p.json", &root).unwrap();
        assert_eq!(c.chains.len(), 1);
        assert_eq!(c.chains[0].name, "config.targets[0] (fallback)");
        for other in [
            r#"{"name": "x", "version": "1"}"#,
            r#"{"name": "web", "targets": {"build": {"executor": "@nx/webpack:webpack"}}}"#,
            r#"{"strategy": "fast", "targets": ["a"]}"#,
            r#"[{"strategy": {"mode": "fallback"}}]"#,
        ] {
            assert!(!recognise(&serde_json::from_str(other).unwrap()), "{other}");
        }
        let bad = parse_json("p.json", r#"{"strategy": "fallback", "targets": []}"#).unwrap();
        let e = read("p.json", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("config.strategy"));
    }
}
