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
//!   OpenRouter's request keys (`messages`, `prompt`, `model`, `provider`, `route`), or one
//!   `model` and a `provider.order` (or `only`) list: a chain over the listed providers
//!   ([`recognise`]);
//! - a model with no provider named is priced as `price` says: OpenRouter's own price (the
//!   table's `openrouter/` row), else the author's own entry (a dotted id as the provider spells
//!   it), said in the note; `:floor` (`provider.sort: "price"`) tries the cheapest provider
//!   first (the cheapest host the table prices; with `only`, the listed providers cheapest
//!   first), `:nitro` (`"throughput"`, or `"latency"`) the fastest, which is not known (its
//!   hosts' range, worst case); an open-weights model under either with no provider named is
//!   unknown (its providers are not the table's to say). With `order`, the listed providers
//!   are tried in its order;
//! - `models` that is not a list of model ids, `provider.order`, `only` or `ignore` that is not
//!   a list of provider names, or `allow_fallbacks` that is not a boolean, is an input error at
//!   its line.

mod price;

use super::{
    Config, Endpoint, Group, Node, NodeValue, Notice, Place, PriceOverride, Route, RouteLink,
};
use crate::error::{InputError, InputErrorKind};
use crate::model::PriceTable;
use price::{Sort, author_hosts, default_price, list_price, priced_hosts, split_variant};

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
    let models = obj
        .get("models")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|m| !m.is_empty() && m.iter().all(serde_json::Value::is_string))
        && REQUEST_KEYS.iter().any(|k| obj.contains_key(*k));
    models || provider_chain(obj)
}

/// Whether a request without `models` is still a chain: one `model` whose `provider` lists the
/// providers to try (`order`, or `only`), each one step.
fn provider_chain(obj: &serde_json::Map<String, serde_json::Value>) -> bool {
    let listed = |key: &str| {
        obj.get("provider")
            .and_then(|p| p.get(key))
            .and_then(serde_json::Value::as_array)
            .is_some_and(|l| !l.is_empty() && l.iter().all(serde_json::Value::is_string))
    };
    !obj.contains_key("models")
        && obj.get("model").is_some_and(serde_json::Value::is_string)
        && (listed("order") || listed("only"))
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

/// Read the chain of the OpenRouter request `root`, with no price table: a model with no
/// provider named is priced as written ([`read_priced`] resolves OpenRouter's ids and variants).
///
/// Errors: as [`read_priced`].
pub fn read(file: &str, root: &Node) -> Result<Config, InputError> {
    read_priced(file, root, None)
}

/// Read the chain of the OpenRouter request `root`; `prices` resolves what OpenRouter picks a
/// provider for (its own ids, `:floor`, `:nitro`: `price`).
///
/// Errors: `models` not a list of model ids, `model` not a string, `provider` not an object,
/// `provider.order`, `only` or `ignore` not a list of provider names, `allow_fallbacks` not a
/// boolean, `sort` not one of price, throughput, latency; each with its field and line.
pub fn read_priced(
    file: &str,
    root: &Node,
    prices: Option<&PriceTable>,
) -> Result<Config, InputError> {
    let mut config = Config::default();
    let routing = routing(file, root)?;
    let primary = primary_model(file, root)?;
    let (list, at) = match root.get("models") {
        Some(models) => (strings(file, models, "models", "model ids")?, models),
        // One model over the providers `provider` lists: a chain of its own.
        None if primary.is_some() && (!routing.order.is_empty() || routing.only.is_some()) => {
            (Vec::new(), root.get("provider").unwrap_or(root))
        }
        None => return Ok(config),
    };
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
    let cx = Cx {
        file,
        routing: &routing,
        prices,
    };
    let mut groups = Vec::new();
    for step in steps {
        groups.extend(model_steps(&cx, step, &mut config));
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
    let name = if root.get("models").is_some() {
        "models (OpenRouter)"
    } else {
        "provider (OpenRouter)"
    };
    config.chains.push(Route {
        name: name.into(),
        at: Place::of(at),
        primary,
        links,
        condition: None,
    });
    Ok(config)
}

/// What a request's steps are read with.
struct Cx<'a, 'n> {
    /// The file, for errors.
    file: &'a str,
    /// The request's provider preferences.
    routing: &'a Routing<'n>,
    /// The price table that resolves what OpenRouter picks; `None`: ids as written.
    prices: Option<&'a PriceTable>,
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
    /// `sort` (`price`, `throughput`, `latency`; or `{"by": ...}`): how the providers are
    /// sorted, as a model's `:floor` / `:nitro` variant asks.
    sort: Option<Sort>,
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
    r.sort = sort_of(file, p)?;
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

/// `provider.sort`: a sort name, or an object with one under `by`.
///
/// Errors: anything else, at its line.
fn sort_of(file: &str, p: &Node) -> Result<Option<Sort>, InputError> {
    let Some(node) = p.get("sort").filter(|n| n.value != NodeValue::Null) else {
        return Ok(None);
    };
    let by = node
        .as_str()
        .or_else(|| node.get("by").and_then(Node::as_str));
    match by.map(|b| (b, Sort::parse(b))) {
        Some((_, Some(sort))) => Ok(Some(sort)),
        _ => Err(node.error(
            file,
            InputErrorKind::Schema,
            "provider.sort",
            format!(
                "expected price, throughput or latency (or {{\"by\": \"price\"}}); got {}",
                by.map_or_else(|| node.kind().to_string(), |b| format!("`{b}`"))
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

/// The chain steps of model `m` (at `n`) under the request's routing, each with where it is
/// declared: one per provider of `order` it may use, in order; else over the providers of
/// `only` (one step, OpenRouter choosing; the cheapest first under `:floor`); else as OpenRouter
/// picks a provider ([`default_steps`]). None when the routing leaves it no provider (a
/// warning).
fn model_steps(cx: &Cx, (m, n): (&str, &Node), config: &mut Config) -> Vec<(Group, Place)> {
    let routing = cx.routing;
    let (base, variant) = split_variant(m);
    let sort = variant.or(routing.sort);
    let usable = |p: &String| {
        serves(p, base)
            && !routing.ignore.contains(p)
            && routing.only.as_ref().is_none_or(|only| only.contains(p))
    };
    let mut listed: Vec<&String> = Vec::new();
    for p in routing.order.iter().filter(|p| usable(p)) {
        if !listed.contains(&p) {
            listed.push(p);
        }
    }
    if !listed.is_empty() {
        return listed_steps(cx, (m, base, n), &listed, config);
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
        return match (sort, cx.prices) {
            (Some(Sort::Price), Some(t)) => cheapest_first(cx.file, (m, base, n), &only, t),
            _ => vec![(group(m, base, n, &only), Place::of(n))],
        };
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
    default_steps(cx, (m, base, n), sort)
}

/// The steps of model `m` (`base` without its variant, at `n`) over the providers `order` lists
/// that serve it, in order, then the others `only` allows (one step, OpenRouter choosing); a
/// note when OpenRouter may go on to providers not listed.
fn listed_steps(
    cx: &Cx,
    (m, base, n): (&str, &str, &Node),
    listed: &[&String],
    config: &mut Config,
) -> Vec<(Group, Place)> {
    let routing = cx.routing;
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
            .filter(|p| serves(p, base) && !routing.ignore.contains(p) && !listed.contains(p))
            .map(|p| Some(p.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let mut out: Vec<(Group, Place)> = listed
        .iter()
        .map(|p| (group(m, base, n, &[Some((*p).clone())]), Place::of(n)))
        .collect();
    if !rest.is_empty() {
        // then the other providers `only` allows, OpenRouter choosing among them
        out.push((group(m, base, n, &rest), Place::of(n)));
    }
    out
}

/// `:floor` over `providers`: each one step, the cheapest first (by list price, input plus
/// output per token), each saying so; one step over them all (judged by its range) when the
/// table does not price every one of them (the unpriced ones are named when priced).
fn cheapest_first(
    file: &str,
    (m, base, n): (&str, &str, &Node),
    providers: &[Option<String>],
    table: &PriceTable,
) -> Vec<(Group, Place)> {
    let mut priced: Vec<(f64, Option<String>)> = Vec::new();
    for p in providers {
        let g = group(m, base, n, std::slice::from_ref(p));
        match super::endpoint::price(file, &g.endpoints[0], table) {
            Ok(price) => priced.push((list_price(&price), p.clone())),
            Err(_) => return vec![(group(m, base, n, providers), Place::of(n))],
        }
    }
    priced.sort_by(|a, b| a.0.total_cmp(&b.0));
    priced
        .into_iter()
        .map(|(_, p)| {
            let mut g = group(m, base, n, &[p]);
            for ep in &mut g.endpoints {
                ep.note = Some(format!(
                    "`{m}`: OpenRouter {}: {}",
                    Sort::Price.how(),
                    ep.note
                        .take()
                        .unwrap_or_else(|| "on its author's provider".into())
                ));
            }
            (g, Place::of(n))
        })
        .collect()
}

/// The step of model `m` (`base` without its variant, at `n`) when the request names no
/// provider for it, as OpenRouter picks one under `sort` ([`price`]'s rules); with no price
/// table, the model as written.
fn default_steps(
    cx: &Cx,
    (m, base, n): (&str, &str, &Node),
    sort: Option<Sort>,
) -> Vec<(Group, Place)> {
    let at = Place::of(n);
    let Some(table) = cx.prices else {
        return vec![(group(m, base, n, &[None]), at)];
    };
    let make = |h: &str| endpoint(base, n.line, n.col, Some(h.to_string()));
    let one = |model: String, note: Option<String>, provider: Option<String>| {
        let mut ep = endpoint(base, n.line, n.col, None);
        ep.model = model;
        ep.note = note;
        ep.provider = provider;
        Group {
            label: m.to_string(),
            endpoints: vec![ep],
            shares: None,
            mix: None,
        }
    };
    let Some(sort) = sort else {
        let (id, note, provider) = default_price(base, table, &make);
        return vec![(one(id, note, provider), at)];
    };
    // Sorted: the providers OpenRouter sorts are a proprietary model's hosts; an open-weights
    // model's are not the table's to say: unknown, under the variant's id.
    let hosts = priced_hosts(cx.file, base, table, &make);
    let variant = match sort {
        Sort::Price => format!("{base}:floor"),
        Sort::Throughput | Sort::Latency => format!("{base}:nitro"),
    };
    if hosts.is_empty() {
        return vec![(one(variant, None, None), at)];
    }
    vec![(sorted_hosts(m, base, sort, hosts), at)]
}

/// The step of proprietary model `m` (`base` without its variant) sorted by `sort` over the
/// `hosts` the table prices it for: the cheapest one under `:floor`; under `:nitro` all of them
/// (the fastest is not known: judged by their range), each note saying so.
fn sorted_hosts(
    m: &str,
    base: &str,
    sort: Sort,
    hosts: Vec<(String, Endpoint, super::endpoint::EndpointPrice)>,
) -> Group {
    let names: Vec<String> = hosts.iter().map(|(h, _, _)| h.clone()).collect();
    let unpriced: Vec<String> = author_hosts(base)
        .into_iter()
        .filter(|h| !names.contains(h))
        .collect();
    let not = if unpriced.is_empty() {
        String::new()
    } else {
        format!("; not {}", unpriced.join(", "))
    };
    let how = format!("`{m}`: OpenRouter {}", sort.how());
    let (label, endpoints) = if sort == Sort::Price {
        let (h, mut ep, _) = hosts
            .into_iter()
            .min_by(|a, b| list_price(&a.2).total_cmp(&list_price(&b.2)))
            .expect("a host");
        ep.note = Some(format!(
            "{how}: `{h}`, the cheapest of the hosts the table prices it for ({}{not})",
            names.join(", ")
        ));
        (format!("{m} on {h}"), vec![ep])
    } else {
        let why = format!(
            "{how}, which the table does not say: judged over the hosts it prices it for ({}{not}), worst case; a priority-tier endpoint may bill more",
            names.join(", ")
        );
        let endpoints = hosts
            .into_iter()
            .map(|(_, mut ep, _)| {
                ep.note = Some(why.clone());
                ep
            })
            .collect();
        (format!("{m} on {}", names.join(" | ")), endpoints)
    };
    Group {
        label,
        endpoints,
        shares: None,
        mix: None,
    }
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

/// Model `m` (without its variant) at `line`:`col` on `provider` (`None`: the price table's);
/// on a provider other than its author's, priced as that provider's entry, `provider/model`,
/// with a note.
fn endpoint(m: &str, line: usize, col: usize, provider: Option<String>) -> Endpoint {
    let author = m.split_once('/').map(|(a, _)| provider_name(a));
    let own = provider.is_none() || provider == author;
    Endpoint {
        model: match &provider {
            Some(p) if !m.starts_with(&format!("{p}/")) => hosted_id(p, m),
            _ => m.to_string(),
        },
        note: provider
            .as_ref()
            .filter(|_| !own)
            .map(|p| format!("`{m}` on `{p}` (OpenRouter provider routing)")),
        provider,
        price_override: PriceOverride::default(),
        file: None,
        line,
        col,
        deployment: None,
        served: Some(m.to_string()),
        limit: Default::default(),
        base_from: None,
    }
}

/// A chain step of model `m` (`base` without its variant, at `n`) on `providers` (`None`: the
/// price table's), OpenRouter choosing among several (no shares: judged by the range).
fn group(m: &str, base: &str, n: &Node, providers: &[Option<String>]) -> Group {
    let endpoints: Vec<Endpoint> = providers
        .iter()
        .map(|provider| endpoint(base, n.line, n.col, provider.clone()))
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
        // one model and provider.order (or only), no models: a chain over the providers
        for one in [
            r#"{"model": "a/b", "provider": {"order": ["x", "y"]}}"#,
            r#"{"model": "a/b", "provider": {"only": ["x"]}}"#,
        ] {
            assert!(recognise(&serde_json::from_str(one).unwrap()), "{one}");
        }
        let bad = parse_json(
            "r.json",
            r#"{"models": ["a"], "provider": {"sort": "cheapest"}}"#,
        )
        .unwrap();
        let e = read("r.json", &bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("provider.sort"));
        assert!(
            e.message.contains("expected price, throughput or latency"),
            "{e}"
        );
        for other in [
            r#"{"model": "a/b", "provider": {"order": []}, "messages": []}"#,
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
