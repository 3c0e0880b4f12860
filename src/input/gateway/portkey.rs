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
//!   one step of the outer chain whose price is the range of every model it can reach; a nested
//!   fallback is also checked as a chain of its own;
//! - a target's model is `override_params.model` (snake_case or camelCase keys); its provider,
//!   the failure domain, is `provider` or the `@slug/` of the model (a leading `@` dropped), else
//!   the price table's provider for the model;
//! - a target with no model uses the request's model: a note, not priced;
//! - JSON without `strategy` or `targets` at the top is not a Portkey config (the caller skips it
//!   with a note).

use super::{Chain, Config, Endpoint, Group, Link, Node, Notice, PriceOverride, Value};
use crate::error::{InputError, InputErrorKind};

/// Whether `root` is a Portkey config: an object with `strategy` or `targets`.
pub fn recognise(root: &Node) -> bool {
    matches!(root.value, Value::Map(_))
        && (root.get("strategy").is_some() || root.get("targets").is_some())
}

/// Read the chains of the Portkey config `root`.
///
/// Errors: `strategy` that is not an object, `targets` that is not a list of objects, a model
/// that is not a string; each with its field path and line.
pub fn read(file: &str, root: &Node) -> Result<Config, InputError> {
    let mut config = Config::default();
    visit(file, root, "config", &mut config)?;
    Ok(config)
}

fn schema(file: &str, node: &Node, field: &str, message: String) -> InputError {
    InputError {
        file: file.to_string(),
        location: Some(node.location()),
        field: Some(field.to_string()),
        message,
        kind: InputErrorKind::Schema,
    }
}

/// The targets of `node`, checked to be a list of objects.
fn targets<'n>(file: &str, node: &'n Node, path: &str) -> Result<&'n [Node], InputError> {
    match node.get("targets").map(|t| (t, &t.value)) {
        None | Some((_, Value::Null)) => Ok(&[]),
        Some((_, Value::Seq(items))) => {
            for (i, t) in items.iter().enumerate() {
                if !matches!(t.value, Value::Map(_)) {
                    return Err(schema(
                        file,
                        t,
                        &format!("{path}.targets[{i}]"),
                        format!("expected a target object; got {}", t.kind()),
                    ));
                }
            }
            Ok(items)
        }
        Some((t, _)) => Err(schema(
            file,
            t,
            &format!("{path}.targets"),
            format!("expected a list of targets; got {}", t.kind()),
        )),
    }
}

/// The strategy mode of `node` (`fallback`, `loadbalance`, `conditional`, `single`), if any.
fn mode<'n>(file: &str, node: &'n Node, path: &str) -> Result<Option<&'n str>, InputError> {
    match node.get("strategy") {
        None => Ok(None),
        Some(s) if matches!(s.value, Value::Map(_)) => Ok(s.get("mode").and_then(Node::as_str)),
        Some(s) => Err(schema(
            file,
            s,
            &format!("{path}.strategy"),
            format!(
                "expected an object such as {{\"mode\": \"fallback\"}}; got {}",
                s.kind()
            ),
        )),
    }
}

/// The config and target keys fallcost reads: a near miss of one is refused.
const KEYS: &[&str] = &["strategy", "targets", "override_params", "overrideParams"];

fn visit(file: &str, node: &Node, path: &str, config: &mut Config) -> Result<(), InputError> {
    node.refuse_near_misses(file, path, KEYS, 2)?;
    if let Some(strategy) = node.get("strategy") {
        strategy.refuse_near_misses(file, &format!("{path}.strategy"), &["mode"], 1)?;
    }
    let items = targets(file, node, path)?;
    for (i, t) in items.iter().enumerate() {
        t.refuse_near_misses(file, &format!("{path}.targets[{i}]"), KEYS, 2)?;
    }
    if mode(file, node, path)? == Some("fallback") {
        if items.is_empty() {
            config.notices.push((
                node.line,
                Notice::Empty {
                    what: format!("{path}.targets of a fallback strategy"),
                },
            ));
        }
        let mut groups = Vec::new();
        for (i, t) in items.iter().enumerate() {
            let tpath = format!("{path}.targets[{i}]");
            let mut endpoints = Vec::new();
            leaves(file, t, &tpath, &mut endpoints, config)?;
            groups.push((label(t, &tpath, &endpoints), endpoints, t.line));
        }
        let mut groups = groups.into_iter();
        if let Some((label, endpoints, _)) = groups.next() {
            config.chains.push(Chain {
                name: format!("{path} (fallback)"),
                line: node.get("strategy").map_or(node.line, |s| s.line),
                primary: Group { label, endpoints },
                links: groups
                    .map(|(label, endpoints, line)| Link {
                        fallback: Group { label, endpoints },
                        line,
                        via: vec![],
                    })
                    .collect(),
            });
        }
    }
    for (i, t) in items.iter().enumerate() {
        if t.get("targets").is_some() {
            visit(file, t, &format!("{path}.targets[{i}]"), config)?;
        }
    }
    Ok(())
}

/// A name for a target in messages: its `name`, or its path, with the models it reaches.
fn label(target: &Node, path: &str, endpoints: &[Endpoint]) -> String {
    let base = target
        .get("name")
        .and_then(Node::as_str)
        .map_or_else(|| path.to_string(), str::to_string);
    let models: Vec<&str> = endpoints.iter().map(|e| e.model.as_str()).collect();
    match models.as_slice() {
        [] => base,
        [one] => format!("{one} ({base})"),
        many => format!("{} ({base})", many.join(" | ")),
    }
}

/// Every model `target` can send a request to.
fn leaves(
    file: &str,
    target: &Node,
    path: &str,
    out: &mut Vec<Endpoint>,
    config: &mut Config,
) -> Result<(), InputError> {
    let nested = targets(file, target, path)?;
    if !nested.is_empty() {
        mode(file, target, path)?;
        for (i, t) in nested.iter().enumerate() {
            leaves(file, t, &format!("{path}.targets[{i}]"), out, config)?;
        }
        return Ok(());
    }
    let params = target.get_any(&["override_params", "overrideParams"]);
    let Some(model_node) = params.and_then(|p| p.get("model")) else {
        config.notices.push((
            target.line,
            Notice::NoModel {
                target: path.to_string(),
            },
        ));
        return Ok(());
    };
    let Some(model) = model_node.as_str() else {
        return Err(schema(
            file,
            model_node,
            &format!("{path}.override_params.model"),
            format!("expected a model id; got {}", model_node.kind()),
        ));
    };
    let mut provider = target
        .get("provider")
        .and_then(Node::as_str)
        .map(|p| p.trim_start_matches('@').to_string());
    let mut model = model.to_string();
    if let Some(rest) = model.strip_prefix('@')
        && let Some((slug, m)) = rest.split_once('/')
    {
        provider = Some(slug.to_string());
        model = m.to_string();
    }
    let id = match &provider {
        Some(p) if !model.contains('/') => format!("{p}/{model}"),
        _ => model,
    };
    out.push(Endpoint {
        model: id,
        provider,
        price_override: PriceOverride::default(),
        note: None,
        line: model_node.line,
        col: model_node.col,
    });
    Ok(())
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
        assert!(recognise(&root));
        let c = read("p.json", &root).unwrap();
        assert_eq!(c.chains.len(), 1);
        let ch = &c.chains[0];
        assert_eq!(ch.primary.endpoints[0].model, "openai-prod/gpt-6-sol");
        assert_eq!(
            ch.primary.endpoints[0].provider.as_deref(),
            Some("openai-prod")
        );
        assert_eq!(ch.links.len(), 2);
        let lb = &ch.links[0].fallback;
        assert_eq!(lb.endpoints.len(), 2);
        assert_eq!(lb.endpoints[0].model, "anthropic-prod/claude-sonnet-5");
        assert_eq!(lb.endpoints[1].model, "openai/gpt-6-astra");
        assert_eq!(ch.links[0].line, 5);
        assert!(ch.links[1].fallback.endpoints.is_empty());
        assert_eq!(c.notices[0].1.kind(), "no-model");
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
        let other = parse_json("package.json", r#"{"name": "x", "version": "1"}"#).unwrap();
        assert!(!recognise(&other));
        let bad = parse_json("p.json", r#"{"strategy": "fallback", "targets": []}"#).unwrap();
        let e = read("p.json", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("config.strategy"));
    }
}
