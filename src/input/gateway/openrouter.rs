//! OpenRouter request bodies (JSON): the `models` fallback list and `provider` routing
//! (`order`, `allow_fallbacks`, `only`, `ignore`).
//!
//! ```json
//! {
//!   "model": "meta-llama/llama-3.3-70b-instruct",
//!   "models": ["openai/gpt-4o-mini"],
//!   "provider": {"order": ["deepinfra", "together"], "allow_fallbacks": false},
//!   "messages": [{"role": "user", "content": "..."}]
//! }
//! ```
//!
//! How fallcost reads it, as OpenRouter's "Model Fallbacks" and "Provider Routing" guides
//! describe the router (routing is two decisions: which model, then which provider serves it;
//! a request moves to the next model only when every provider it may use for this one failed):
//! - the models are `model`, else the first of `models`, then the entries of `models` in order,
//!   an entry repeating the primary (or an earlier entry) skipped (a warning: OpenRouter skips
//!   it);
//! - the walk is model by model, and within a model provider by provider: each provider of
//!   `provider.order` that serves the model (Anthropic's models on `anthropic`, Bedrock,
//!   Vertex; OpenAI's on `openai`, Azure; Google's on Vertex and AI Studio; open-weights models
//!   on any), less those `ignore` names and, with `only`, those it does not, is one step of the
//!   chain, in `order`'s order. `{"models": [a, b], "provider": {"order": [p, q]}}` is the chain
//!   `a on p -> a on q -> b on p -> b on q` (each model on the listed providers that serve it);
//! - a step on a provider is priced at that provider's price for the model: the model's own
//!   entry on its author's provider (`openai/gpt-4o` on `openai`), else the table's entry of
//!   that provider ([`super::endpoint`]: `deepinfra/meta-llama/Llama-3.3-70B-Instruct` for
//!   `meta-llama/llama-3.3-70b-instruct` on `deepinfra`, `azure/gpt-4o` for `openai/gpt-4o` on
//!   `azure`), never the author's or another provider's: a provider the table does not price
//!   the model for is an unknown model (`deepinfra/...`), an input error naming it;
//! - with `allow_fallbacks` (true unless set false) and no `only`, OpenRouter may try other
//!   providers of the model after the listed ones: those attempts are not priced, and a note
//!   says so. With `"allow_fallbacks": false` a model none of the listed providers serves is
//!   never sent (a warning); with it true it goes to OpenRouter's default routing, priced as
//!   the price table's provider for the model (as without `order`);
//! - `only` without `order`: the model on any provider of `only` that serves it, OpenRouter
//!   choosing (one step over those providers, judged by its range, worst case);
//! - a JSON object is an OpenRouter request when it has a `models` list of strings and one of
//!   OpenRouter's request keys (`messages`, `prompt`, `model`, `provider`, `route`)
//!   ([`recognise`]);
//! - `models` that is not a list of model ids, `provider.order`, `only` or `ignore` that is not
//!   a list of provider names, or `allow_fallbacks` that is not a boolean, is an input error at
//!   its line.

use super::{
    Config, Endpoint, Group, Node, NodeValue, Notice, Place, PriceOverride, Route, RouteLink,
};
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

/// Providers that serve only the models of one author (the first provider each author of
/// [`HOSTS`] lists, and Azure, which OpenRouter lists for OpenAI's models only): never an
/// open-weights model.
const EXCLUSIVE: &[&str] = &["openai", "azure", "anthropic", "gemini", "xai"];

/// Whether the provider `provider` (price-table name) can serve `model` (`author/model`): one of
/// the author's [`HOSTS`], or for an open-weights model any provider but the [`EXCLUSIVE`] ones.
fn serves(provider: &str, model: &str) -> bool {
    let author = model.split_once('/').map_or("", |(a, _)| a);
    match HOSTS.iter().find(|(a, _)| *a == author) {
        Some((_, hosts)) => hosts.contains(&provider),
        None => !EXCLUSIVE.contains(&provider),
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
    let NodeValue::Seq(items) = &node.value else {
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
/// `provider.order`, `only` or `ignore` not a list of provider names, `allow_fallbacks` not a
/// boolean; each with its field and line.
pub fn read(file: &str, root: &Node) -> Result<Config, InputError> {
    let mut config = Config::default();
    let Some(models) = root.get("models") else {
        return Ok(config);
    };
    let list = strings(file, models, "models", "model ids")?;
    let routing = routing(file, root)?;
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
    let mut groups = Vec::new();
    for step in steps {
        groups.extend(model_steps(&routing, step, &mut config));
    }
    let mut groups = groups.into_iter();
    let Some((primary, _)) = groups.next() else {
        return Ok(config);
    };
    let links: Vec<RouteLink> = groups
        .map(|(fallback, at)| RouteLink {
            fallback,
            at,
            via: vec![],
        })
        .collect();
    config.chains.push(Route {
        name: "models (OpenRouter)".into(),
        at: Place::of(models),
        primary,
        links,
        condition: None,
    });
    Ok(config)
}

/// The request's `provider` routing preferences that decide which providers serve a model,
/// provider names as the price table spells them ([`provider_name`]).
#[derive(Debug, Default)]
struct Routing<'n> {
    /// `order`: the providers to try first, in order.
    order: Vec<String>,
    /// `only`: the providers allowed at all, when set.
    only: Option<Vec<String>>,
    /// `ignore`: the providers never used.
    ignore: Vec<String>,
    /// `allow_fallbacks` (default true): whether other providers may follow the listed ones.
    allow_fallbacks: bool,
    /// The `order` list, for the notes about it.
    order_node: Option<&'n Node>,
}

/// The request's `provider` object as [`Routing`] (no preferences without one).
///
/// Errors: `provider` not an object, `order`, `only` or `ignore` not a list of provider
/// names, `allow_fallbacks` not a boolean.
fn routing<'n>(file: &str, root: &'n Node) -> Result<Routing<'n>, InputError> {
    let mut r = Routing {
        allow_fallbacks: true,
        ..Routing::default()
    };
    let p = match root.get("provider") {
        None => return Ok(r),
        Some(p) if p.value == NodeValue::Null => return Ok(r),
        Some(
            p @ Node {
                value: NodeValue::Map(_),
                ..
            },
        ) => p,
        Some(p) => {
            return Err(p.error(
                file,
                InputErrorKind::Schema,
                "provider",
                format!(
                    "expected an object such as {{\"order\": [\"anthropic\"]}}; got {}",
                    p.kind()
                ),
            ));
        }
    };
    let names = |key: &str| -> Result<Option<(Vec<String>, &'n Node)>, InputError> {
        match p.get(key) {
            None => Ok(None),
            Some(o) if o.value == NodeValue::Null => Ok(None),
            Some(o) => Ok(Some((
                strings(file, o, &format!("provider.{key}"), "provider names")?
                    .into_iter()
                    .map(|(s, _)| provider_name(s))
                    .collect(),
                o,
            ))),
        }
    };
    if let Some((order, node)) = names("order")? {
        r.order = order;
        r.order_node = Some(node);
    }
    r.only = names("only")?.map(|(v, _)| v);
    r.ignore = names("ignore")?.map(|(v, _)| v).unwrap_or_default();
    match p.get("allow_fallbacks") {
        None => {}
        Some(a) if a.value == NodeValue::Null => {}
        Some(Node {
            value: NodeValue::Bool(b),
            ..
        }) => r.allow_fallbacks = *b,
        Some(a) => {
            return Err(a.error(
                file,
                InputErrorKind::Schema,
                "provider.allow_fallbacks",
                format!("expected true or false; got {}", a.kind()),
            ));
        }
    }
    Ok(r)
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

/// The chain steps of model `m` (at `n`) under `routing`, each with where it is declared: one
/// per provider of `order` it may use, in order; else one over the providers of `only`; else
/// one on the price table's provider. None when the routing leaves it no provider (a warning).
fn model_steps(
    routing: &Routing,
    (m, n): (&str, &Node),
    config: &mut Config,
) -> Vec<(Group, Place)> {
    let usable = |p: &String| {
        serves(p, m)
            && !routing.ignore.contains(p)
            && routing.only.as_ref().is_none_or(|only| only.contains(p))
    };
    let listed: Vec<&String> = routing.order.iter().filter(|p| usable(p)).collect();
    let mut listed_unique: Vec<&String> = Vec::new();
    for p in listed {
        if !listed_unique.contains(&p) {
            listed_unique.push(p);
        }
    }
    if !listed_unique.is_empty() {
        if routing.allow_fallbacks
            && routing.only.is_none()
            && let Some(o) = routing.order_node
        {
            config.notices.push((
                Place::of(o),
                Notice::OtherProviders {
                    model: m.to_string(),
                },
            ));
        }
        let rest: Vec<Option<String>> = match &routing.only {
            Some(only) if routing.allow_fallbacks => only
                .iter()
                .filter(|p| usable(p) && !listed_unique.contains(p))
                .map(|p| Some(p.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let mut out: Vec<(Group, Place)> = listed_unique
            .into_iter()
            .map(|p| (group(m, n, &[Some(p.clone())]), Place::of(n)))
            .collect();
        if !rest.is_empty() {
            // then the other providers `only` allows, OpenRouter choosing among them
            out.push((group(m, n, &rest), Place::of(n)));
        }
        return out;
    }
    let only: Vec<Option<String>> = routing
        .only
        .iter()
        .flatten()
        .filter(|p| usable(p))
        .map(|p| Some(p.clone()))
        .collect();
    let closed = routing.only.is_some() || (!routing.order.is_empty() && !routing.allow_fallbacks);
    if !only.is_empty() {
        return vec![(group(m, n, &only), Place::of(n))];
    }
    if closed {
        config.notices.push((
            Place::of(n),
            Notice::Ignored {
                what: format!("`{m}` in models"),
                why: "no provider the request's provider preferences allow (order with allow_fallbacks false, only, ignore) serves it: OpenRouter has nowhere to send it".into(),
            },
        ));
        return Vec::new();
    }
    vec![(group(m, n, &[None]), Place::of(n))]
}

/// The id of model `m` on provider `p` (not its author), as a price table keys it: a
/// proprietary model (an author of [`HOSTS`]) under the host's own name, `azure/gpt-4o` for
/// `openai/gpt-4o`; an open-weights model with its author, `deepinfra/meta-llama/...`.
fn hosted_id(p: &str, m: &str) -> String {
    match m.split_once('/') {
        Some((author, name)) if HOSTS.iter().any(|(a, _)| *a == author) => format!("{p}/{name}"),
        _ => format!("{p}/{m}"),
    }
}

/// A chain step of model `m` (at `n`) on `providers` (`None`: the price table's), OpenRouter
/// choosing among several (no shares: judged by the range). A model on a provider other than
/// its author's is priced as that provider's entry, `provider/model`.
fn group(m: &str, n: &Node, providers: &[Option<String>]) -> Group {
    let author = m.split_once('/').map(|(a, _)| provider_name(a));
    let endpoints: Vec<Endpoint> = providers
        .iter()
        .map(|provider| {
            let own = provider.is_none() || *provider == author;
            Endpoint {
                model: match provider {
                    Some(p) if !m.starts_with(&format!("{p}/")) => hosted_id(p, m),
                    _ => m.to_string(),
                },
                provider: provider.clone(),
                price_override: PriceOverride::default(),
                note: provider
                    .as_ref()
                    .filter(|_| !own)
                    .map(|p| format!("`{m}` on `{p}` (OpenRouter provider routing)")),
                file: None,
                line: n.line,
                col: n.col,
                deployment: None,
                served: Some(m.to_string()),
                limit: Default::default(),
            }
        })
        .collect();
    let label = match providers {
        [Some(p)] => format!("{m} on {p}"),
        [None] => m.to_string(),
        many => format!(
            "{m} on {}",
            many.iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(" | ")
        ),
    };
    Group {
        label,
        endpoints,
        shares: None,
        mix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::gateway::parse_json;

    /// The steps of the first chain: (label, model id to price, provider).
    fn steps(c: &Config) -> Vec<(String, String, Option<String>)> {
        let ch = &c.chains[0];
        std::iter::once(&ch.primary)
            .chain(ch.links.iter().map(|l| &l.fallback))
            .flat_map(|g| {
                g.endpoints
                    .iter()
                    .map(|e| (g.label.clone(), e.model.clone(), e.provider.clone()))
            })
            .collect()
    }

    #[test]
    fn model_then_models_and_provider_order() {
        let text = r#"{"model": "anthropic/claude-sonnet-4",
 "models": ["anthropic/claude-sonnet-4", "openai/gpt-4o", "openai/gpt-4o"],
 "provider": {"order": ["Anthropic", "amazon-bedrock"]},
 "messages": []}"#;
        assert!(recognise(&serde_json::from_str(text).unwrap()));
        let c = read("r.json", &parse_json("r.json", text).unwrap()).unwrap();
        // The model on each listed provider that serves it, in order: a fallback chain of its
        // own (Anthropic's price on anthropic, Bedrock's on bedrock); then gpt-4o, which neither
        // serves: OpenRouter's default routing, the price table's provider.
        let s = |l: &str, m: &str, p: Option<&str>| {
            (l.to_string(), m.to_string(), p.map(str::to_string))
        };
        assert_eq!(
            steps(&c),
            vec![
                s(
                    "anthropic/claude-sonnet-4 on anthropic",
                    "anthropic/claude-sonnet-4",
                    Some("anthropic")
                ),
                s(
                    "anthropic/claude-sonnet-4 on bedrock",
                    "bedrock/claude-sonnet-4",
                    Some("bedrock")
                ),
                s("openai/gpt-4o", "openai/gpt-4o", None),
            ]
        );
        let ch = &c.chains[0];
        assert_eq!(ch.links[1].at.line, 2);
        assert_eq!(ch.primary.endpoints[0].note, None, "the author's own price");
        assert!(
            ch.links[0].fallback.endpoints[0]
                .note
                .as_deref()
                .unwrap()
                .contains("on `bedrock` (OpenRouter provider routing)")
        );
        // `model` repeated first in `models` is the primary once; the second gpt-4o is skipped;
        // allow_fallbacks (default true) leaves other providers after the listed ones: a note.
        let kinds: Vec<&str> = c.notices.iter().map(|(_, n)| n.kind()).collect();
        assert_eq!(kinds, vec!["ignored", "other-providers"]);
        let bad = parse_json("r.json", r#"{"models": ["a"], "provider": {"order": "x"}}"#).unwrap();
        let e = read("r.json", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("provider.order"));
        let bad = parse_json(
            "r.json",
            r#"{"models": ["a"], "provider": {"allow_fallbacks": "no"}}"#,
        )
        .unwrap();
        let e = read("r.json", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("provider.allow_fallbacks"));
        for other in [
            r#"{"models": ["a"]}"#,
            r#"{"models": [], "messages": []}"#,
            r#"{"models": [1], "model": "a"}"#,
        ] {
            assert!(!recognise(&serde_json::from_str(other).unwrap()), "{other}");
        }
    }

    #[test]
    fn the_walk_is_model_by_model_then_provider_by_provider() {
        // models [a, b] x order [p, q]: a on p, a on q, b on p, b on q (each where it is
        // served: Azure serves OpenAI's models only, so not Llama); `ignore` drops a provider.
        let text = r#"{"models": ["meta-llama/llama-3.3-70b-instruct", "openai/gpt-4o-mini"],
 "provider": {"order": ["deepinfra", "together", "azure", "openai"], "ignore": ["together"],
              "allow_fallbacks": false},
 "messages": []}"#;
        let c = read("r.json", &parse_json("r.json", text).unwrap()).unwrap();
        let got: Vec<(String, Option<String>)> =
            steps(&c).into_iter().map(|(_, m, p)| (m, p)).collect();
        let s = |m: &str, p: &str| (m.to_string(), Some(p.to_string()));
        assert_eq!(
            got,
            vec![
                s("deepinfra/meta-llama/llama-3.3-70b-instruct", "deepinfra"),
                s("azure/gpt-4o-mini", "azure"),
                s("openai/gpt-4o-mini", "openai"),
            ]
        );
        assert!(
            c.notices.is_empty(),
            "allow_fallbacks false: no other providers"
        );
        // `only` without `order`: one step over its providers, OpenRouter choosing.
        let text = r#"{"models": ["meta-llama/llama-3.3-70b-instruct"],
 "provider": {"only": ["deepinfra", "groq"]}, "model": "openai/gpt-4o"}"#;
        let c = read("r.json", &parse_json("r.json", text).unwrap()).unwrap();
        let ch = &c.chains[0];
        // gpt-4o: neither deepinfra nor groq serves it, and `only` allows no other: never sent.
        assert_eq!(c.notices[0].1.kind(), "ignored");
        assert_eq!(
            ch.primary.label,
            "meta-llama/llama-3.3-70b-instruct on deepinfra | groq"
        );
        assert_eq!(ch.primary.endpoints.len(), 2);
        assert_eq!(ch.primary.shares, None, "judged by its range");
        assert!(ch.links.is_empty());
    }
}
