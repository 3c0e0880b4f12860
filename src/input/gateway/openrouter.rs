//! OpenRouter request bodies (JSON): the `models` fallback list and `provider.order`.
//!
//! ```json
//! {
//!   "model": "anthropic/claude-sonnet-4",
//!   "models": ["openai/gpt-4o", "google/gemini-2.5-pro"],
//!   "provider": {"order": ["anthropic", "amazon-bedrock"], "allow_fallbacks": true},
//!   "messages": [{"role": "user", "content": "..."}]
//! }
//! ```
//!
//! How fallcost reads it, as OpenRouter's "Model Fallbacks" and "Provider Routing" guides
//! describe the router:
//! - the chain's primary is `model`, else the first of `models`; the fallbacks are the entries of
//!   `models` in order, an entry repeating the primary (or an earlier entry) skipped;
//! - `provider.order` lists the providers each model is tried on, in order: a model step is one
//!   endpoint per listed provider that serves it (Anthropic's models on `anthropic`, Bedrock,
//!   Vertex; OpenAI's on `openai`, Azure; open-weights models on any), the first taking the
//!   traffic (its share 1, the others 0, as OpenRouter moves on only when it fails), so a chain
//!   whose models all run on one provider but whose `order` names two is not on one provider.
//!   Without `order` (or with none that serves the model) the provider is the price table's;
//! - `model` repeated as the first of `models` is the primary once; another repeat is a warning
//!   (OpenRouter skips it);
//! - a JSON object is an OpenRouter request when it has a `models` list of strings and one of
//!   OpenRouter's request keys (`messages`, `prompt`, `model`, `provider`, `route`)
//!   ([`recognise`]);
//! - `models` that is not a list of model ids, or `provider.order` that is not a list of
//!   provider names, is an input error at its line.

use super::{Config, Endpoint, Group, Node, Notice, Place, PriceOverride, Route, RouteLink, Value};
use crate::error::{InputError, InputErrorKind};

/// The request keys, besides `models`, that make a JSON object an OpenRouter request.
pub const REQUEST_KEYS: &[&str] = &["messages", "prompt", "model", "provider", "route"];

/// OpenRouter provider names whose price-table (LiteLLM) name differs; others are used as
/// written, lower-cased.
const PROVIDER_NAMES: &[(&str, &str)] = &[
    ("amazon-bedrock", "bedrock"),
    ("google-vertex", "vertex_ai"),
    ("google-ai-studio", "gemini"),
    ("together", "together_ai"),
    ("fireworks", "fireworks_ai"),
    ("mistral", "mistral"),
    ("azure", "azure"),
    ("x-ai", "xai"),
];

/// Whether `root` is an OpenRouter request body: an object with a `models` list of strings and
/// one of [`REQUEST_KEYS`].
pub fn recognise(root: &serde_json::Value) -> bool {
    let Some(obj) = root.as_object() else {
        return false;
    };
    obj.get("models")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|m| !m.is_empty() && m.iter().all(serde_json::Value::is_string))
        && REQUEST_KEYS.iter().any(|k| obj.contains_key(*k))
}

/// Why a JSON object that looks like a request body is not read as a chain, if it looks like one
/// (a `model` and `messages` without `models`: one model, no fallback); `None` otherwise.
pub fn near_miss(root: &serde_json::Value) -> Option<&'static str> {
    let obj = root.as_object()?;
    if obj.contains_key("models") {
        return Some(
            "JSON, but not a Portkey config, and not an OpenRouter request although it has `models` (that needs a non-empty list of model ids and one of messages, prompt, model, provider, route)",
        );
    }
    (obj.contains_key("model") && (obj.contains_key("messages") || obj.contains_key("prompt")))
        .then_some("a request body with one `model` and no `models` fallback list: no chain")
}

/// The providers that serve an author's models besides the author itself (OpenRouter lists
/// Anthropic's models on Bedrock and Vertex, OpenAI's on Azure, Google's on Vertex and AI
/// Studio). A `provider.order` entry applies to a model when it is the model's author
/// (`anthropic/...` on `anthropic`), one of these hosts, or an open-weights host (any provider
/// for an author not listed here).
const HOSTS: &[(&str, &[&str])] = &[
    ("anthropic", &["anthropic", "bedrock", "vertex_ai"]),
    ("openai", &["openai", "azure"]),
    ("google", &["vertex_ai", "gemini"]),
    ("x-ai", &["xai"]),
];

/// Whether the provider `provider` (price-table name) can serve `model` (`author/model`).
fn serves(provider: &str, model: &str) -> bool {
    let author = model.split_once('/').map_or("", |(a, _)| a);
    match HOSTS.iter().find(|(a, _)| *a == author) {
        Some((_, hosts)) => hosts.contains(&provider),
        None => true,
    }
}

/// The price-table name of an OpenRouter provider.
fn provider_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase().replace(' ', "-");
    PROVIDER_NAMES
        .iter()
        .find(|(or, _)| *or == lower)
        .map_or(lower, |(_, table)| (*table).to_string())
}

/// A list of strings at `key` of `node`, each with its node.
///
/// Errors: not a list of strings.
fn strings<'n>(
    file: &str,
    node: &'n Node,
    field: &str,
    what: &str,
) -> Result<Vec<(&'n str, &'n Node)>, InputError> {
    let Value::Seq(items) = &node.value else {
        return Err(node.error(
            file,
            InputErrorKind::Schema,
            field,
            format!("expected a list of {what}; got {}", node.kind()),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, n)| match n.as_str() {
            Some(s) => Ok((s, n)),
            None => Err(n.error(
                file,
                InputErrorKind::Schema,
                format!("{field}[{i}]"),
                format!("expected one of {what}; got {}", n.kind()),
            )),
        })
        .collect()
}

/// Read the chain of the OpenRouter request `root`.
///
/// Errors: `models` not a list of model ids, `model` not a string, `provider` not an object,
/// `provider.order` not a list of provider names; each with its field and line.
pub fn read(file: &str, root: &Node) -> Result<Config, InputError> {
    let mut config = Config::default();
    let Some(models) = root.get("models") else {
        return Ok(config);
    };
    let list = strings(file, models, "models", "model ids")?;
    let order = provider_order(file, root)?;
    let primary = primary_model(file, root)?;
    let mut steps: Vec<(&str, &Node)> = Vec::new();
    steps.extend(primary);
    for (m, n) in list {
        if primary.is_some_and(|(p, _)| p == m) {
            // `model` repeated as the first of `models`, as OpenRouter's examples write it.
            continue;
        }
        if steps.iter().any(|(s, _)| *s == m) {
            config.notices.push((
                Place::of(n),
                Notice::Ignored {
                    what: format!("`{m}` in models"),
                    why: "OpenRouter skips an entry that repeats the primary model or an earlier entry"
                        .into(),
                },
            ));
            continue;
        }
        steps.push((m, n));
    }
    let mut steps = steps.into_iter();
    let Some(first) = steps.next() else {
        return Ok(config);
    };
    let links: Vec<RouteLink> = steps
        .map(|(m, n)| RouteLink {
            fallback: group(&order, (m, n)),
            at: Place::of(n),
            via: vec![],
        })
        .collect();
    config.chains.push(Route {
        name: "models (OpenRouter)".into(),
        at: Place::of(models),
        primary: group(&order, first),
        links,
    });
    Ok(config)
}

/// `provider.order` of the request `root`: the provider names as written (empty without one).
///
/// Errors: `provider` not an object, `order` not a list of provider names.
fn provider_order<'n>(file: &str, root: &'n Node) -> Result<Vec<&'n str>, InputError> {
    match root.get("provider") {
        None => Ok(Vec::new()),
        Some(p) if p.value == Value::Null => Ok(Vec::new()),
        Some(
            p @ Node {
                value: Value::Map(_),
                ..
            },
        ) => match p.get("order") {
            None => Ok(Vec::new()),
            Some(o) if o.value == Value::Null => Ok(Vec::new()),
            Some(o) => Ok(strings(file, o, "provider.order", "provider names")?
                .into_iter()
                .map(|(s, _)| s)
                .collect()),
        },
        Some(p) => Err(p.error(
            file,
            InputErrorKind::Schema,
            "provider",
            format!(
                "expected an object such as {{\"order\": [\"anthropic\"]}}; got {}",
                p.kind()
            ),
        )),
    }
}

/// The request's `model`, with its node, when it has one.
///
/// Errors: `model` not a string.
fn primary_model<'n>(
    file: &str,
    root: &'n Node,
) -> Result<Option<(&'n str, &'n Node)>, InputError> {
    match root.get("model") {
        Some(m) => match m.as_str() {
            Some(s) => Ok(Some((s, m))),
            None => Err(m.error(
                file,
                InputErrorKind::Schema,
                "model",
                format!("expected a model id; got {}", m.kind()),
            )),
        },
        None => Ok(None),
    }
}

/// The chain step of model `m` (at `n`): one endpoint per provider of `order` that serves it,
/// the first taking the traffic; without one, the price table's provider.
fn group(order: &[&str], (m, n): (&str, &Node)) -> Group {
    let serving: Vec<Option<String>> = order
        .iter()
        .map(|p| provider_name(p))
        .filter(|p| serves(p, m))
        .map(Some)
        .collect();
    let providers = if serving.is_empty() {
        vec![None]
    } else {
        serving
    };
    let k = providers.len();
    Group {
        label: m.to_string(),
        endpoints: providers
            .into_iter()
            .map(|provider| Endpoint {
                model: m.to_string(),
                provider,
                price_override: PriceOverride::default(),
                note: None,
                file: None,
                line: n.line,
                col: n.col,
                deployment: None,
                served: Some(m.to_string()),
            })
            .collect(),
        shares: (k > 1).then(|| (0..k).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect()),
        mix: (k > 1).then(|| "provider.order: the first provider takes the traffic".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::gateway::parse_json;

    #[test]
    fn model_then_models_and_provider_order() {
        let text = r#"{"model": "anthropic/claude-sonnet-4",
 "models": ["anthropic/claude-sonnet-4", "openai/gpt-4o", "openai/gpt-4o"],
 "provider": {"order": ["Anthropic", "amazon-bedrock"]},
 "messages": []}"#;
        assert!(recognise(&serde_json::from_str(text).unwrap()));
        let c = read("r.json", &parse_json("r.json", text).unwrap()).unwrap();
        let ch = &c.chains[0];
        assert_eq!(ch.primary.label, "anthropic/claude-sonnet-4");
        let providers: Vec<Option<&str>> = ch
            .primary
            .endpoints
            .iter()
            .map(|e| e.provider.as_deref())
            .collect();
        assert_eq!(providers, vec![Some("anthropic"), Some("bedrock")]);
        assert_eq!(ch.primary.shares, Some(vec![1.0, 0.0]));
        assert_eq!(ch.links.len(), 1);
        assert_eq!(
            (ch.links[0].fallback.label.as_str(), ch.links[0].at.line),
            ("openai/gpt-4o", 2)
        );
        // Neither listed provider serves OpenAI's model: the price table's provider.
        assert_eq!(ch.links[0].fallback.endpoints.len(), 1);
        assert_eq!(ch.links[0].fallback.endpoints[0].provider, None);
        // `model` repeated first in `models` is the primary once; the second gpt-4o is skipped.
        assert_eq!(c.notices.len(), 1);
        assert_eq!(c.notices[0].1.kind(), "ignored");
        let bad = parse_json("r.json", r#"{"models": ["a"], "provider": {"order": "x"}}"#).unwrap();
        let e = read("r.json", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("provider.order"));
        for other in [
            r#"{"models": ["a"]}"#,
            r#"{"models": [], "messages": []}"#,
            r#"{"models": [1], "model": "a"}"#,
        ] {
            assert!(!recognise(&serde_json::from_str(other).unwrap()), "{other}");
        }
    }
}
