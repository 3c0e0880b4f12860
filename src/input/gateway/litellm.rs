//! LiteLLM proxy configs (`config.yaml`): `model_list` groups and the fallbacks between them.
//!
//! ```yaml
//! model_list:
//!   - model_name: fast                      # a group: one or more deployments
//!     litellm_params:
//!       model: openai/gpt-4o                # priced from the table (with or without prefix)
//!       api_base: https://...               # an OpenAI-compatible server elsewhere: noted
//!     model_info:
//!       base_model: azure/gpt-4o            # priced as this model instead
//!       input_cost_per_token: 2.5e-06       # USD per token; wins over litellm_params and table
//! router_settings:                          # or litellm_settings
//!   fallbacks: [{"fast": ["smart"]}]        # also context_window_fallbacks,
//!   default_fallbacks: ["smart"]            #   content_policy_fallbacks
//! ```
//!
//! How fallcost reads it (each answer is tested in `tests/check.rs`):
//! - a chain is a `model_name` key of a fallbacks list; its fallbacks are the groups it names,
//!   then *their* fallbacks of the same kind (LiteLLM applies a fallback group's own fallbacks,
//!   up to `max_fallbacks`), each judged against the chain's primary;
//! - `default_fallbacks` (and a `"*"` key) apply to every group without its own `fallbacks`;
//! - a group with several deployments is priced as the range of their prices;
//! - a fallback naming a model id or a missing group, a primary that is not a group: warnings
//!   (LiteLLM never fires them), not priced;
//! - a self-fallback: a warning; a loop and `fallbacks: []`: notes; comments are not read;
//! - `content_policy_fallbacks=[...]` (Python syntax from LiteLLM's docs): an error at its line.

use std::collections::{BTreeSet, HashMap};

use super::{Chain, Config, Endpoint, Group, Link, Node, Notice, PriceOverride, Value};
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::PriceTable;

/// The fallback lists fallcost reads, each a list of `{group: [fallback groups]}` maps.
pub const FALLBACK_KEYS: &[&str] = &[
    "fallbacks",
    "context_window_fallbacks",
    "content_policy_fallbacks",
];

/// The per-token price keys fallcost reads from `model_info` or `litellm_params` (USD per token).
pub const PRICE_KEYS: &[&str] = &[
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
];

/// Every fallback setting LiteLLM has: a near miss of one of these is refused.
pub const FALLBACK_SETTINGS: &[&str] = &[
    "fallbacks",
    "context_window_fallbacks",
    "content_policy_fallbacks",
    "default_fallbacks",
    "max_fallbacks",
];

/// The sections that hold fallbacks.
pub const SECTIONS: &[&str] = &["router_settings", "litellm_settings"];

/// Providers whose `api_base` may point at any OpenAI-compatible server.
const OPENAI_COMPATIBLE: &[&str] = &["openai", "text-completion-openai"];

/// Whether `root` is a LiteLLM proxy config: a mapping with `model_list`, or with a settings
/// section that declares fallbacks.
pub fn recognise(root: &Node) -> bool {
    root.get("model_list").is_some()
        || SECTIONS.iter().any(|s| {
            root.get(s).is_some_and(|sec| {
                FALLBACK_KEYS
                    .iter()
                    .chain(&["default_fallbacks"])
                    .any(|k| sec.get(k).is_some())
            })
        })
}

/// A line such as `content_policy_fallbacks=[{"a": ["b"]}]`, the Python keyword syntax that
/// LiteLLM's docs show next to YAML and users copy into `config.yaml`.
///
/// Errors: [`InputErrorKind::Syntax`] naming the line, the key and the YAML to write instead.
pub fn python_syntax(file: &str, text: &str) -> Result<(), InputError> {
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        for key in FALLBACK_KEYS.iter().chain(&["default_fallbacks"]) {
            if let Some(rest) = trimmed.strip_prefix(key)
                && rest.trim_start().starts_with('=')
            {
                return Err(InputError {
                    file: file.to_string(),
                    location: Some(Location {
                        line: i + 1,
                        col: line.len() - trimmed.len() + 1,
                    }),
                    field: Some((*key).to_string()),
                    message: format!(
                        "`{key}=[...]` is Python keyword syntax (as in LiteLLM's Router(...) examples), not YAML; write `{key}: [...]`"
                    ),
                    kind: InputErrorKind::Syntax,
                });
            }
        }
    }
    Ok(())
}

/// Read the chains of a LiteLLM config whose parsed tree is `root`. `prices` only tells a model
/// id from a name that is nothing at all, for the warning about fallbacks that never fire.
///
/// Errors: a key fallcost uses with the wrong shape (`model_list` not a list, a deployment without
/// `model_name` or `litellm_params.model`, a fallbacks entry that is not a list of
/// `{group: [groups]}` maps, a price override that is not a number >= 0), naming field and line.
pub fn read(file: &str, root: &Node, prices: &PriceTable) -> Result<Config, InputError> {
    let err = |node: &Node, field: String, message: String| InputError {
        file: file.to_string(),
        location: Some(node.location()),
        field: Some(field),
        message,
        kind: InputErrorKind::Schema,
    };

    // A near miss of a key fallcost reads would silently drop prices or fallbacks.
    root.refuse_near_misses(
        file,
        "",
        &["model_list", "router_settings", "litellm_settings"],
        2,
    )?;
    for section in SECTIONS {
        if let Some(node) = root.get(section) {
            node.refuse_near_misses(file, section, FALLBACK_SETTINGS, 2)?;
        }
    }
    for item in match root.get("model_list").map(|n| &n.value) {
        Some(Value::Seq(items)) => items.as_slice(),
        _ => &[],
    } {
        item.refuse_near_misses(
            file,
            "model_list[]",
            &["model_name", "litellm_params", "model_info"],
            2,
        )?;
    }

    // model_list -> groups, in file order.
    let mut groups: Vec<(String, Vec<Endpoint>)> = Vec::new();
    let mut model_ids: BTreeSet<String> = BTreeSet::new();
    match root.get("model_list").map(|n| (n, &n.value)) {
        None | Some((_, Value::Null)) => {}
        Some((_, Value::Seq(items))) => {
            for (i, item) in items.iter().enumerate() {
                let at = format!("model_list[{i}]");
                let name = match item.get("model_name") {
                    Some(n) => n
                        .as_str()
                        .map(str::to_string)
                        .or_else(|| match n.value {
                            Value::Int(x) => Some(x.to_string()),
                            _ => None,
                        })
                        .ok_or_else(|| {
                            err(
                                n,
                                format!("{at}.model_name"),
                                format!("expected a group name; got {}", n.kind()),
                            )
                        })?,
                    None => {
                        return Err(err(
                            item,
                            at,
                            "a deployment needs `model_name` (its group) and `litellm_params.model`"
                                .into(),
                        ));
                    }
                };
                let endpoint = deployment(file, item, &at)?;
                model_ids.insert(endpoint.model.clone());
                if let Some(m) = item
                    .get("litellm_params")
                    .and_then(|p| p.get("model"))
                    .and_then(Node::as_str)
                {
                    model_ids.insert(m.to_string());
                }
                match groups.iter_mut().find(|(g, _)| *g == name) {
                    Some((_, eps)) => eps.push(endpoint),
                    None => groups.push((name, vec![endpoint])),
                }
            }
        }
        Some((n, _)) => {
            return Err(err(
                n,
                "model_list".into(),
                format!("expected a list of deployments; got {}", n.kind()),
            ));
        }
    }
    let group_of = |name: &str| -> Option<Group> {
        groups
            .iter()
            .find(|(g, _)| g == name)
            .map(|(g, eps)| Group {
                label: g.clone(),
                endpoints: eps.clone(),
            })
    };
    let is_model_id = |name: &str| model_ids.contains(name) || prices.get(name).is_some();

    let mut config = Config::default();
    let mut said: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut loops_said: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut notice = |config: &mut Config, line: usize, n: Notice| {
        if said.insert((line, n.to_string())) {
            config.notices.push((line, n));
        }
    };

    for section in SECTIONS {
        let Some(sec) = root.get(section) else {
            continue;
        };
        match sec.value {
            Value::Map(_) => {}
            Value::Null => continue,
            _ => {
                return Err(err(
                    sec,
                    (*section).into(),
                    format!("expected a mapping of settings; got {}", sec.kind()),
                ));
            }
        }
        let mut general_primaries: BTreeSet<String> = BTreeSet::new();
        let mut wildcard: Vec<(String, usize)> = Vec::new();
        for kind in FALLBACK_KEYS {
            let Some(list) = sec.get(kind) else { continue };
            let field = format!("{section}.{kind}");
            let mut edges: HashMap<String, Vec<(String, usize)>> = HashMap::new();
            let mut primaries: Vec<(String, usize)> = Vec::new();
            let items = match &list.value {
                Value::Null => continue,
                Value::Seq(items) => items,
                _ => {
                    return Err(err(
                        list,
                        field,
                        format!(
                            "expected a list of {{group: [fallback groups]}} maps, e.g. [{{\"a\": [\"b\"]}}]; got {}",
                            list.kind()
                        ),
                    ));
                }
            };
            if items.is_empty() {
                notice(
                    &mut config,
                    list.line,
                    Notice::Empty {
                        what: field.clone(),
                    },
                );
            }
            for (i, item) in items.iter().enumerate() {
                let Value::Map(entries) = &item.value else {
                    return Err(err(
                        item,
                        format!("{field}[{i}]"),
                        format!(
                            "expected a {{group: [fallback groups]}} map; got {}",
                            item.kind()
                        ),
                    ));
                };
                for (k, v) in entries {
                    let Some(from) = k.as_str() else {
                        return Err(err(
                            k,
                            format!("{field}[{i}]"),
                            format!("expected a group name as key; got {}", k.kind()),
                        ));
                    };
                    let targets = string_list(file, v, &format!("{field}[{i}].{from}"))?;
                    if targets.is_empty() {
                        notice(
                            &mut config,
                            v.line,
                            Notice::Empty {
                                what: format!("{field} of `{from}`"),
                            },
                        );
                    }
                    if from == "*" {
                        if *kind == "fallbacks" {
                            wildcard.extend(targets);
                        }
                        continue;
                    }
                    if !primaries.iter().any(|(p, _)| p == from) {
                        primaries.push((from.to_string(), k.line));
                    }
                    for (to, line) in targets {
                        if to == from {
                            notice(
                                &mut config,
                                line,
                                Notice::SelfFallback {
                                    group: from.to_string(),
                                },
                            );
                            continue;
                        }
                        edges.entry(from.to_string()).or_default().push((to, line));
                    }
                }
            }
            if *kind == "fallbacks" {
                general_primaries.extend(primaries.iter().map(|(p, _)| p.clone()));
            }
            for (primary, line) in &primaries {
                let Some(primary_group) = group_of(primary) else {
                    notice(
                        &mut config,
                        *line,
                        Notice::NotAGroup {
                            name: primary.clone(),
                            primary: None,
                            model_id: is_model_id(primary),
                        },
                    );
                    continue;
                };
                let mut links = Vec::new();
                let mut seen: BTreeSet<String> = BTreeSet::from([primary.clone()]);
                let mut path = vec![primary.clone()];
                let mut events = Vec::new();
                let is_group = |g: &str| group_of(g).is_some();
                walk(
                    &edges,
                    primary,
                    &mut path,
                    &mut seen,
                    &is_group,
                    &mut events,
                );
                for event in events {
                    match event {
                        Event::Reached {
                            from,
                            to,
                            line,
                            via,
                        } => match group_of(&to) {
                            Some(g) => links.push(Link {
                                fallback: g,
                                line,
                                via,
                            }),
                            None => {
                                let model_id = is_model_id(&to);
                                notice(
                                    &mut config,
                                    line,
                                    Notice::NotAGroup {
                                        name: to,
                                        primary: Some(from),
                                        model_id,
                                    },
                                );
                            }
                        },
                        Event::Cycle { line, cycle } => {
                            // One notice per loop, whichever group the walk started from:
                            // rotate it to start at its smallest name.
                            let ring = &cycle[..cycle.len() - 1];
                            let start = ring
                                .iter()
                                .enumerate()
                                .min_by_key(|(_, g)| g.as_str())
                                .map_or(0, |(i, _)| i);
                            let mut cycle: Vec<String> = ring[start..]
                                .iter()
                                .chain(&ring[..start])
                                .cloned()
                                .collect();
                            cycle.push(cycle[0].clone());
                            if loops_said.insert(cycle.clone()) {
                                notice(&mut config, line, Notice::Loop { cycle })
                            }
                        }
                    }
                }
                config.chains.push(Chain {
                    name: format!("{primary} ({field})"),
                    line: *line,
                    primary: primary_group,
                    links,
                });
            }
        }

        // default_fallbacks, and a "*" key in fallbacks: every group without its own fallbacks.
        let mut defaults = wildcard;
        let mut default_field = format!("{section}.fallbacks[\"*\"]");
        if let Some(d) = sec.get("default_fallbacks") {
            default_field = format!("{section}.default_fallbacks");
            if d.value != Value::Null {
                let list = string_list(file, d, &default_field)?;
                if list.is_empty() {
                    notice(
                        &mut config,
                        d.line,
                        Notice::Empty {
                            what: default_field.clone(),
                        },
                    );
                }
                defaults.extend(list);
            }
        }
        if defaults.is_empty() {
            continue;
        }
        for (name, _) in &groups {
            if general_primaries.contains(name) {
                continue;
            }
            let mut links = Vec::new();
            for (to, line) in &defaults {
                if to == name {
                    continue;
                }
                match group_of(to) {
                    Some(g) => links.push(Link {
                        fallback: g,
                        line: *line,
                        via: vec![],
                    }),
                    None => notice(
                        &mut config,
                        *line,
                        Notice::NotAGroup {
                            name: to.clone(),
                            primary: Some(format!("{default_field} (for `{name}`)")),
                            model_id: is_model_id(to),
                        },
                    ),
                }
            }
            if links.is_empty() {
                continue;
            }
            config.chains.push(Chain {
                name: format!("{name} ({default_field})"),
                line: defaults[0].1,
                primary: group_of(name).expect("a group of model_list"),
                links,
            });
        }
    }
    Ok(config)
}

/// What a walk over the fallback graph meets.
enum Event {
    /// `to` is reached for the first time, over the edge `from -> to` declared at `line`, after
    /// passing through `via` (the groups between the primary and `from`, `from` included).
    Reached {
        from: String,
        to: String,
        line: usize,
        via: Vec<String>,
    },
    /// The edge at `line` leads back into the current path: `cycle` ends where it starts.
    Cycle { line: usize, cycle: Vec<String> },
}

/// Depth-first over the fallback graph from `node`, going on only from groups (`is_group`).
fn walk(
    edges: &HashMap<String, Vec<(String, usize)>>,
    node: &str,
    path: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
    is_group: &dyn Fn(&str) -> bool,
    events: &mut Vec<Event>,
) {
    let Some(next) = edges.get(node) else { return };
    for (to, line) in next {
        if let Some(i) = path.iter().position(|p| p == to) {
            let mut cycle = path[i..].to_vec();
            cycle.push(to.clone());
            events.push(Event::Cycle { line: *line, cycle });
            continue;
        }
        if !seen.insert(to.clone()) {
            continue;
        }
        events.push(Event::Reached {
            from: node.to_string(),
            to: to.clone(),
            line: *line,
            via: path[1..].to_vec(),
        });
        if is_group(to) {
            path.push(to.clone());
            walk(edges, to, path, seen, is_group, events);
            path.pop();
        }
    }
}

/// A list of group names, each with its line.
fn string_list(file: &str, node: &Node, field: &str) -> Result<Vec<(String, usize)>, InputError> {
    let Value::Seq(items) = &node.value else {
        return Err(InputError {
            file: file.to_string(),
            location: Some(node.location()),
            field: Some(field.to_string()),
            message: format!(
                "expected a list of model_name groups, e.g. [\"b\"]; got {}",
                node.kind()
            ),
            kind: InputErrorKind::Schema,
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(i, n)| match n.as_str() {
            Some(s) => Ok((s.to_string(), n.line)),
            None => Err(InputError {
                file: file.to_string(),
                location: Some(n.location()),
                field: Some(format!("{field}[{i}]")),
                message: format!("expected a model_name group; got {}", n.kind()),
                kind: InputErrorKind::Schema,
            }),
        })
        .collect()
}

/// One `model_list` entry as an endpoint.
fn deployment(file: &str, item: &Node, at: &str) -> Result<Endpoint, InputError> {
    let schema = |node: &Node, field: String, message: String| InputError {
        file: file.to_string(),
        location: Some(node.location()),
        field: Some(field),
        message,
        kind: InputErrorKind::Schema,
    };
    let params = item.get("litellm_params").ok_or_else(|| {
        schema(
            item,
            at.to_string(),
            "a deployment needs `litellm_params.model`".into(),
        )
    })?;
    let model_node = params.get("model").ok_or_else(|| {
        schema(
            params,
            format!("{at}.litellm_params"),
            "a deployment needs `litellm_params.model`".into(),
        )
    })?;
    let model = model_node.as_str().ok_or_else(|| {
        schema(
            model_node,
            format!("{at}.litellm_params.model"),
            format!("expected a model id; got {}", model_node.kind()),
        )
    })?;
    let info = item.get("model_info");
    let base_model = info
        .and_then(|i| i.get("base_model"))
        .and_then(Node::as_str);
    let mut provider = params
        .get("custom_llm_provider")
        .and_then(Node::as_str)
        .map(str::to_string)
        .or_else(|| model.split_once('/').map(|(p, _)| p.to_string()));
    let mut note = None;
    if let (Some(p), Some(base)) = (
        provider.clone(),
        params.get("api_base").and_then(Node::as_str),
    ) && OPENAI_COMPATIBLE.contains(&p.as_str())
    {
        let host = host_of(base);
        if host != "api.openai.com" {
            provider = Some(format!("api_base {host}"));
            note = Some(format!(
                "`{model}` is served through api_base {base}, not by OpenAI"
            ));
        }
    }
    for (node, section) in [(info, "model_info"), (Some(params), "litellm_params")] {
        if let Some(node) = node {
            node.refuse_near_misses(file, &format!("{at}.{section}"), PRICE_KEYS, 2)?;
        }
    }
    let mut price_override = PriceOverride::default();
    for (key, slot) in [
        ("input_cost_per_token", &mut price_override.input),
        ("output_cost_per_token", &mut price_override.output),
        (
            "cache_read_input_token_cost",
            &mut price_override.cached_input,
        ),
        (
            "cache_creation_input_token_cost",
            &mut price_override.cache_write,
        ),
    ] {
        let from_info = match info {
            Some(i) => super::per_token_price(file, i, key, &format!("{at}.model_info"))?,
            None => None,
        };
        let from_params =
            super::per_token_price(file, params, key, &format!("{at}.litellm_params"))?;
        *slot = from_info.or(from_params);
    }
    Ok(Endpoint {
        model: base_model.unwrap_or(model).to_string(),
        provider,
        price_override,
        note,
        line: model_node.line,
        col: model_node.col,
    })
}

/// The host of an `api_base` URL (`https://x.example.com/v1` → `x.example.com`); an
/// `os.environ/NAME` reference as is.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or(rest);
    if host.is_empty() {
        url.to_string()
    } else {
        host.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::gateway::parse_yaml;
    use crate::input::pricing::bundled;

    fn read_str(text: &str) -> Result<Config, InputError> {
        python_syntax("c.yaml", text)?;
        let root = parse_yaml("c.yaml", text)?.unwrap();
        assert!(recognise(&root));
        read("c.yaml", &root, &bundled("2026-07").unwrap())
    }

    const LIST: &str = "model_list:
  - model_name: a
    litellm_params: {model: openai/gpt-6-sol}
  - model_name: b
    litellm_params: {model: anthropic/claude-sonnet-5}
  - model_name: c
    litellm_params: {model: openai/gpt-6-astra}
";

    #[test]
    fn transitive_fallbacks_loops_and_self_links() {
        let text = format!(
            "{LIST}router_settings:\n  fallbacks: [{{\"a\": [\"b\"]}}, {{\"b\": [\"c\", \"a\", \"b\"]}}]\n"
        );
        let c = read_str(&text).unwrap();
        assert_eq!(c.chains.len(), 2);
        let a = &c.chains[0];
        assert_eq!(a.primary.label, "a");
        let reached: Vec<(&str, Vec<String>)> = a
            .links
            .iter()
            .map(|l| (l.fallback.label.as_str(), l.via.clone()))
            .collect();
        assert_eq!(reached, vec![("b", vec![]), ("c", vec!["b".to_string()])]);
        let kinds: Vec<&str> = c.notices.iter().map(|(_, n)| n.kind()).collect();
        assert!(kinds.contains(&"self-fallback"), "{kinds:?}");
        assert!(kinds.contains(&"loop"), "{kinds:?}");
    }

    #[test]
    fn model_ids_and_missing_groups_are_not_links() {
        let text = format!(
            "{LIST}litellm_settings:\n  fallbacks:\n    - a:\n        - openai/gpt-6-astra\n        - nowhere\n    - ghost: [a]\n"
        );
        let c = read_str(&text).unwrap();
        assert_eq!(c.chains.len(), 1);
        assert!(c.chains[0].links.is_empty());
        let msgs: Vec<String> = c.notices.iter().map(|(_, n)| n.to_string()).collect();
        assert!(msgs[0].contains("is a model id"), "{msgs:?}");
        assert!(msgs[1].contains("`nowhere` of `a` is not a model_name group"));
        assert!(msgs[2].contains("`ghost` has fallbacks but is not a model_name group"));
        assert_eq!(c.notices[0].0, 11);
    }

    #[test]
    fn python_keyword_syntax_is_an_error_at_its_line() {
        let text =
            format!("{LIST}litellm_settings:\n  content_policy_fallbacks=[{{\"a\": [\"b\"]}}]\n");
        let e = read_str(&text).unwrap_err();
        assert_eq!(e.location.unwrap().line, 9);
        assert!(
            e.message
                .contains("write `content_policy_fallbacks: [...]`")
        );
    }

    #[test]
    fn fallback_values_must_be_lists() {
        let text = format!("{LIST}router_settings:\n  fallbacks: [{{\"a\": \"b\"}}]\n");
        let e = read_str(&text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("router_settings.fallbacks[0].a"));
        assert_eq!(e.location.unwrap().line, 9);
    }

    #[test]
    fn api_base_and_overrides() {
        let text = "model_list:
  - model_name: local
    litellm_params:
      model: openai/gpt-6-sol
      api_base: http://vllm.internal:8000/v1
      input_cost_per_token: 0.000001
    model_info:
      input_cost_per_token: 0
      output_cost_per_token: 0
";
        let c = read_str(text).unwrap();
        assert!(c.chains.is_empty());
        let root = parse_yaml("c.yaml", text).unwrap().unwrap();
        let items = match &root.get("model_list").unwrap().value {
            Value::Seq(s) => s.clone(),
            _ => unreachable!(),
        };
        let ep = deployment("c.yaml", &items[0], "model_list[0]").unwrap();
        assert_eq!(ep.provider.as_deref(), Some("api_base vllm.internal:8000"));
        assert_eq!(ep.price_override.input, Some(0.0), "model_info wins");
        assert_eq!(ep.price_override.output, Some(0.0));
        assert!(ep.note.unwrap().contains("http://vllm.internal:8000/v1"));
    }
}
