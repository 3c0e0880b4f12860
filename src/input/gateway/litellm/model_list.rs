//! The `model_list` of a LiteLLM config: its groups and deployments, their routing weights
//! (`simple_shuffle`), and how the router resolves a name to a group (model id, alias, group,
//! litellm model name).

use std::collections::{BTreeSet, HashMap};

use super::{OPENAI_COMPATIBLE, PARAMS_KEYS, PARAMS_READ, PRICE_KEYS, scope};
use crate::error::{InputError, InputErrorKind};
use crate::input::gateway::{Endpoint, Env, Group, Node, NodeValue, Place, PriceOverride};
use crate::model::PriceTable;

/// The `model_list` of a config: its groups in file order.
pub(super) struct ModelList {
    /// Each group with its deployments.
    pub(super) groups: Vec<(String, Vec<Endpoint>)>,
    /// Each deployment's routing rates, as `groups` (see [`Rates`]).
    pub(super) rates: Vec<Vec<Rates>>,
    /// Where each group is in `groups`.
    pub(super) index: HashMap<String, usize>,
    /// Every `litellm_params.model` and `base_model` named.
    pub(super) model_ids: BTreeSet<String>,
    /// The deployments of each `litellm_params.model` as written (group, deployment), in file
    /// order: what `Router._get_deployment_by_litellm_model` finds for a name that is no group.
    pub(super) by_litellm_model: HashMap<String, Vec<(usize, usize)>>,
    /// The deployment of each `model_info.id` (group, deployment): `Router.has_model_id`.
    pub(super) by_id: HashMap<String, (usize, usize)>,
    /// `router_settings.model_group_alias`: each alias, the name it stands for and where.
    pub(super) aliases: HashMap<String, (String, Place)>,
    /// How a group of several deployments splits its traffic: `None` for LiteLLM's default
    /// `simple-shuffle` (weights), else the `routing_strategy` (equal shares assumed).
    pub(super) strategy: Option<String>,
    /// Wildcard routes (`openai/*`): groups whose name or model has a `*`.
    pub(super) wildcard: BTreeSet<String>,
    /// Where each wildcard route is declared.
    pub(super) wildcard_at: Vec<(String, Place)>,
    /// Each deployment's `litellm_params.order`, as `groups`.
    pub(super) orders: Vec<Vec<Option<i64>>>,
    /// The deployments a plain request never reaches, in file order: where, the group, the
    /// model, and why (dropped as invalid, one team's only, or outside the group's `order`s).
    pub(super) unreached: Vec<(Place, String, String, String)>,
    /// The provider LiteLLM infers for a bare model id a wildcard route may serve
    /// (`gpt-4.1` → `openai`): the price table's, for every bare id whose provider has a
    /// `PROVIDER/*` route.
    pub(super) bare_provider: HashMap<String, String>,
}

/// The `routing_strategy` values LiteLLM 1.110.2's Router accepts
/// (`litellm_core_utils/routing_groups.py`); any other makes it refuse the config.
const ROUTING_STRATEGIES: &[&str] = &[
    "simple-shuffle",
    "lar1",
    "least-busy",
    "latency-based-routing",
    "cost-based-routing",
    "usage-based-routing-v2",
    "usage-based-routing",
    "provider-budget-routing",
];

/// A deployment's `litellm_params.weight`, `rpm` and `tpm`, which LiteLLM's `simple_shuffle`
/// (`litellm/router_strategy/simple_shuffle.py`) picks deployments by: the first of the three
/// that any deployment of the group sets, a deployment without it counting 0.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Rates {
    pub(super) weight: Option<f64>,
    pub(super) rpm: Option<f64>,
    pub(super) tpm: Option<f64>,
}

/// One of a deployment's [`Rates`].
pub(super) type RateOf = fn(&Rates) -> Option<f64>;

/// How a name in a fallback list (or a request) reaches deployments, when it is not simply a
/// `model_name` group: LiteLLM's `Router._common_checks_available_deployment`
/// (`litellm/router.py`) tries a `model_info.id`, then `model_group_alias`, then the group, then
/// the deployments whose `litellm_params.model` is the name.
pub(super) struct Resolved {
    pub(super) group: Group,
    /// The group's later `order` tiers, tried in turn after `group` (empty without `order`).
    pub(super) later: Vec<Group>,
    /// How the name was resolved, for the note; `None` for a group named as such.
    pub(super) how: Option<String>,
}

impl ModelList {
    /// The `model_list` and `router_settings` of a config: every deployment, in file order,
    /// under its group.
    ///
    /// Errors: a `model_list` that is not a list, a deployment without a group name or a model,
    /// or with a field LiteLLM would refuse (see [`deployment`], [`rates`]).
    pub(super) fn read(
        file: &str,
        root: &Node,
        prices: &PriceTable,
        env: &Env,
    ) -> Result<ModelList, InputError> {
        let mut list = ModelList {
            groups: Vec::new(),
            rates: Vec::new(),
            index: HashMap::new(),
            model_ids: BTreeSet::new(),
            by_litellm_model: HashMap::new(),
            by_id: HashMap::new(),
            aliases: HashMap::new(),
            strategy: None,
            wildcard: BTreeSet::new(),
            wildcard_at: Vec::new(),
            orders: Vec::new(),
            unreached: Vec::new(),
            bare_provider: HashMap::new(),
        };
        list.read_router_settings(file, root)?;
        let items = match root.get("model_list").map(|n| (n, &n.value)) {
            None | Some((_, NodeValue::Null)) => return Ok(list),
            Some((_, NodeValue::Seq(items))) => items,
            Some((n, _)) => {
                return Err(n.error(
                    file,
                    InputErrorKind::Schema,
                    "model_list",
                    format!("expected a list of deployments; got {}", n.kind()),
                ));
            }
        };
        for (i, item) in items.iter().enumerate() {
            let at = format!("model_list[{i}]");
            let name = group_name(file, item, &at)?;
            let endpoint = deployment(file, item, &at, env)?;
            let params = item.get("litellm_params");
            let raw = params
                .and_then(|p| p.get("model"))
                .and_then(Node::as_str)
                .unwrap_or_default();
            let rates = rates(file, params, &at)?;
            let id = model_info_id(item);
            let place = Place {
                file: endpoint.file.clone(),
                line: endpoint.line,
            };
            if let Some(why) = scope::unreached_why(item, raw, prices) {
                list.unreached.push((place, name, raw.to_string(), why));
                continue;
            }
            list.add(name, raw, endpoint, (rates, scope::order_of(params)), id);
        }
        list.finish(prices);
        Ok(list)
    }

    /// Adds one deployment (`raw`: its `litellm_params.model` as written; `id`: its
    /// `model_info.id`) to group `name`, creating the group at its first deployment.
    fn add(
        &mut self,
        name: String,
        raw: &str,
        endpoint: Endpoint,
        (rates, order): (Rates, Option<i64>),
        id: Option<String>,
    ) {
        if (name.contains('*') || raw.contains('*')) && self.wildcard.insert(name.clone()) {
            self.wildcard_at.push((
                name.clone(),
                Place {
                    file: endpoint.file.clone(),
                    line: endpoint.line,
                },
            ));
        }
        self.model_ids.insert(endpoint.model.clone());
        self.model_ids.insert(raw.to_string());
        let g = match self.index.get(&name) {
            Some(&g) => g,
            None => {
                self.index.insert(name.clone(), self.groups.len());
                self.groups.push((name, Vec::new()));
                self.rates.push(Vec::new());
                self.orders.push(Vec::new());
                self.groups.len() - 1
            }
        };
        let d = self.groups[g].1.len();
        self.groups[g].1.push(endpoint);
        self.rates[g].push(rates);
        self.orders[g].push(order);
        self.by_litellm_model
            .entry(raw.to_string())
            .or_default()
            .push((g, d));
        if let Some(id) = id {
            self.by_id.entry(id).or_insert((g, d));
        }
    }

    /// After every deployment is read: the deployments outside their group's `order`s (never
    /// picked), and the bare ids a `PROVIDER/*` route serves ([`ModelList::bare_provider`]).
    fn finish(&mut self, prices: &PriceTable) {
        for (g, (name, endpoints)) in self.groups.iter().enumerate() {
            for d in scope::tiers(&self.orders[g]).1 {
                let e = &endpoints[d];
                self.unreached.push((
                    Place { file: e.file.clone(), line: e.line },
                    name.clone(),
                    e.model.clone(),
                    "it sets no `order` in a group whose other deployments do: LiteLLM routes by `order` there and never picks it".into(),
                ));
            }
        }
        self.unreached.sort_by_key(|(at, ..)| at.line);
        let routes: BTreeSet<&str> = self
            .groups
            .iter()
            .filter_map(|(n, _)| n.strip_suffix("/*"))
            .filter(|p| !p.contains('*'))
            .collect();
        if routes.is_empty() {
            return;
        }
        for (id, m) in &prices.models {
            if !id.contains('/') && routes.contains(m.provider.as_str()) {
                self.bare_provider.insert(id.clone(), m.provider.clone());
            }
        }
    }

    /// `router_settings.model_group_alias` (`{alias: group}` or `{alias: {model: group,
    /// hidden: bool}}`, as `Router._get_model_from_alias` reads it) and `routing_strategy`.
    ///
    /// Errors: a `model_group_alias` that is not such a mapping.
    pub(super) fn read_router_settings(
        &mut self,
        file: &str,
        root: &Node,
    ) -> Result<(), InputError> {
        let Some(rs) = root.get("router_settings") else {
            return Ok(());
        };
        if let Some(n) = rs.get("routing_strategy")
            && let Some(s) = n.as_str()
            && s != "simple-shuffle"
        {
            if !ROUTING_STRATEGIES.contains(&s) {
                return Err(n.error(
                    file,
                    InputErrorKind::Invalid,
                    "router_settings.routing_strategy",
                    format!(
                        "LiteLLM refuses to start with routing_strategy `{s}` (ValueError: Invalid routing_strategy); valid: {}",
                        ROUTING_STRATEGIES.join(", ")
                    ),
                ));
            }
            self.strategy = Some(s.to_string());
        }
        let Some(aliases) = rs.get("model_group_alias") else {
            return Ok(());
        };
        let entries = match &aliases.value {
            NodeValue::Null => return Ok(()),
            NodeValue::Map(entries) => entries,
            _ => {
                return Err(aliases.error(
                    file,
                    InputErrorKind::Schema,
                    "router_settings.model_group_alias",
                    format!(
                        "expected a mapping of alias to model_name group, e.g. {{\"gpt-4\": \"smart\"}}; got {}",
                        aliases.kind()
                    ),
                ));
            }
        };
        for (k, v) in entries {
            let alias = k.as_str().map_or_else(|| k.describe(), str::to_string);
            let field = format!("router_settings.model_group_alias.{alias}");
            let target = v
                .as_str()
                .or_else(|| v.get("model").and_then(Node::as_str))
                .ok_or_else(|| {
                    v.error(
                        file,
                        InputErrorKind::Schema,
                        field,
                        format!(
                            "expected a model_name group, or {{model: group, hidden: true}}; got {}",
                            v.kind()
                        ),
                    )
                })?;
            self.aliases
                .insert(alias, (target.to_string(), Place::of(v)));
        }
        Ok(())
    }

    /// The group `name`, if `model_list` has it: its lowest `order` tier (every deployment
    /// when none sets `order`), which every first pick goes to.
    pub(super) fn group(&self, name: &str) -> Option<Group> {
        self.tier_groups(name)?.into_iter().next()
    }

    /// The group `name` by `order` tier, lowest first (one tier when no deployment sets
    /// `order`): LiteLLM tries one deployment of each tier in turn before the group's
    /// fallbacks (`tests/fixtures/parity/order.yaml`).
    pub(super) fn tier_groups(&self, name: &str) -> Option<Vec<Group>> {
        let &g = self.index.get(name)?;
        let (tiers, _) = scope::tiers(&self.orders[g]);
        Some(
            tiers
                .into_iter()
                .map(|t| self.mixed(name, t.into_iter().map(|d| (g, d)).collect()))
                .collect(),
        )
    }

    /// The deployments `members` as one step labelled `label`, with the traffic shares
    /// LiteLLM's `simple_shuffle` gives them (see [`shuffle_shares`]), or equal shares under
    /// another `routing_strategy`.
    pub(super) fn mixed(&self, label: &str, members: Vec<(usize, usize)>) -> Group {
        let endpoints: Vec<Endpoint> = members
            .iter()
            .map(|&(g, d)| self.groups[g].1[d].clone())
            .collect();
        let rates: Vec<Rates> = members.iter().map(|&(g, d)| self.rates[g][d]).collect();
        let n = endpoints.len();
        let (shares, mix) = match &self.strategy {
            Some(s) if n > 1 => (
                vec![1.0 / n as f64; n],
                format!(
                    "equal shares assumed: routing_strategy `{s}` picks by live state, not weights"
                ),
            ),
            _ => shuffle_shares(&rates),
        };
        Group {
            label: label.to_string(),
            endpoints,
            shares: Some(shares),
            mix: Some(mix),
        }
    }

    /// What LiteLLM's router sends a request for `name` to (see [`Resolved`]); `None` when it
    /// finds nothing (the router raises "no deployment", and a fallback to it never fires).
    pub(super) fn resolve(&self, name: &str) -> Option<Resolved> {
        if let Some(&(g, d)) = self.by_id.get(name) {
            let mut group = self.mixed(name, vec![(g, d)]);
            group.label = name.to_string();
            return Some(Resolved {
                group,
                later: Vec::new(),
                how: Some(format!(
                    "the deployment with model_info.id `{name}` (in group `{}`), as `Router.has_model_id` finds it",
                    self.groups[g].0
                )),
            });
        }
        if let Some((target, at)) = self.aliases.get(name) {
            let inner = self.resolve_name(target)?;
            let mut group = inner.group;
            group.label = name.to_string();
            return Some(Resolved {
                group,
                later: inner.later,
                how: Some(format!(
                    "{}, through model_group_alias `{name}` -> `{target}` (line {}; `Router._get_model_from_alias` resolves an alias first)",
                    inner.how.unwrap_or_else(|| format!("group `{target}`")),
                    at.line,
                )),
            });
        }
        self.resolve_name(name)
    }

    /// A group named `name`, else the deployments whose `litellm_params.model` is `name`.
    pub(super) fn resolve_name(&self, name: &str) -> Option<Resolved> {
        if let Some(mut tiers) = self.tier_groups(name)
            && !tiers.is_empty()
        {
            let group = tiers.remove(0);
            return Some(Resolved {
                group,
                later: tiers,
                how: None,
            });
        }
        let Some(members) = self.by_litellm_model.get(name) else {
            return self.resolve_pattern(name);
        };
        let mut groups: Vec<&str> = Vec::new();
        for &(g, _) in members {
            if !groups.contains(&self.groups[g].0.as_str()) {
                groups.push(&self.groups[g].0);
            }
        }
        Some(Resolved {
            group: self.mixed(name, members.clone()),
            later: Vec::new(),
            how: Some(format!(
                "the deployment{} whose litellm_params.model is `{name}` (group{} {}), as `Router._get_deployment_by_litellm_model` finds {}",
                if members.len() == 1 { "" } else { "s" },
                if groups.len() == 1 { "" } else { "s" },
                groups
                    .iter()
                    .map(|g| format!("`{g}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if members.len() == 1 { "it" } else { "them" },
            )),
        })
    }

    /// A wildcard route that serves `name`, as LiteLLM's pattern router
    /// (`litellm/router_utils/pattern_match_deployments.py`) matches a request no group serves:
    /// the route whose `model_name` pattern matches (`*` standing for any text), the most
    /// specific (most characters besides `*`, then the first in the file) when several do, its
    /// deployments calling `litellm_params.model` with each `*` replaced by the text the
    /// pattern's `*` matched (`openai/*` serves `openai/gpt-4o` as `openai/gpt-4o`, a `*` route
    /// to `anthropic/*` serves `claude-3-opus` as `anthropic/claude-3-opus`). The recorded
    /// walks of `tests/fixtures/parity/wildcard.yaml` pin this.
    fn resolve_pattern(&self, name: &str) -> Option<Resolved> {
        if name.contains('*') {
            return None;
        }
        let mut best: Option<(usize, usize, Vec<&str>)> = None;
        for (g, (pattern, _)) in self.groups.iter().enumerate() {
            if !pattern.contains('*') {
                continue;
            }
            let Some(caps) = glob_captures(pattern, name) else {
                continue;
            };
            let specific = pattern.chars().filter(|c| *c != '*').count();
            if best.as_ref().is_none_or(|(s, _, _)| specific > *s) {
                best = Some((specific, g, caps));
            }
        }
        let Some((_, g, caps)) = best else {
            // A bare id: LiteLLM matches it as `PROVIDER/id`, its provider inferred.
            let provider = self.bare_provider.get(name)?;
            let mut r = self.resolve_pattern(&format!("{provider}/{name}"))?;
            r.group.label = name.to_string();
            return Some(r);
        };
        let pattern = &self.groups[g].0;
        let mut group = self.mixed(name, (0..self.groups[g].1.len()).map(|d| (g, d)).collect());
        for ep in &mut group.endpoints {
            if ep.model.contains('*') {
                ep.model = fill_stars(&ep.model, &caps);
            }
            // One route serves many models: the called model tells its deployments apart.
            ep.deployment = ep
                .deployment
                .take()
                .map(|d| format!("{d} model={}", ep.model));
        }
        let models: Vec<String> = group
            .endpoints
            .iter()
            .map(|e| format!("`{}`", e.model))
            .collect();
        let line = self.groups[g].1.first().map_or(0, |e| e.line);
        Some(Resolved {
            group,
            later: Vec::new(),
            how: Some(format!(
                "the wildcard route `{pattern}` (line {line}), which LiteLLM's pattern router matches and calls as {}",
                models.join(", ")
            )),
        })
    }

    /// Whether `name` is a model id (of a deployment, or in the price table) rather than a name
    /// that is nothing at all.
    pub(super) fn is_model_id(&self, name: &str, prices: &PriceTable) -> bool {
        self.model_ids.contains(name) || prices.get(name).is_some()
    }
}

/// A list of group names, each with its place.
pub(super) fn string_list<'n>(
    file: &str,
    node: &'n Node,
    field: &str,
) -> Result<Vec<(&'n str, Place)>, InputError> {
    let NodeValue::Seq(items) = &node.value else {
        return Err(node.error(
            file,
            InputErrorKind::Schema,
            field,
            format!(
                "expected a list of model_name groups, e.g. [\"b\"]; got {}",
                node.kind()
            ),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, n)| match n.as_str() {
            Some(s) => Ok((s, Place::of(n))),
            None => Err(n.error(
                file,
                InputErrorKind::Schema,
                format!("{field}[{i}]"),
                format!("expected a model_name group; got {}", n.kind()),
            )),
        })
        .collect()
}

/// A deployment's `model_name` (its group; an integer is read as its digits).
///
/// Errors: no `model_name`, or one that is neither a string nor an integer.
fn group_name(file: &str, item: &Node, at: &str) -> Result<String, InputError> {
    match item.get("model_name") {
        Some(n) => n
            .as_str()
            .map(str::to_string)
            .or_else(|| match n.value {
                NodeValue::Int(x) => Some(x.to_string()),
                _ => None,
            })
            .ok_or_else(|| {
                n.error(
                    file,
                    InputErrorKind::Schema,
                    format!("{at}.model_name"),
                    format!("expected a group name; got {}", n.kind()),
                )
            }),
        None => Err(item.error(
            file,
            InputErrorKind::Schema,
            at,
            "a deployment needs `model_name` (its group) and `litellm_params.model`",
        )),
    }
}

/// A deployment's `model_info.id` (a string, or an integer read as its digits), if any.
fn model_info_id(item: &Node) -> Option<String> {
    item.get("model_info")
        .and_then(|m| m.get("id"))
        .and_then(|n| {
            n.as_str().map(str::to_string).or(match n.value {
                NodeValue::Int(x) => Some(x.to_string()),
                _ => None,
            })
        })
}

/// One `model_list` entry as an endpoint.
pub(super) fn deployment(
    file: &str,
    item: &Node,
    at: &str,
    env: &Env,
) -> Result<Endpoint, InputError> {
    let schema = |node: &Node, field: String, message: String| {
        node.error(file, InputErrorKind::Schema, field, message)
    };
    let params = item.get("litellm_params").ok_or_else(|| {
        schema(
            item,
            at.to_string(),
            "a deployment needs `litellm_params.model`".into(),
        )
    })?;
    let info = item.get("model_info");
    refuse_near_misses(file, at, info, params)?;
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
    // A model id read from the environment when the proxy starts: the variable's value when
    // it is set here too, as LiteLLM reads it (else left as written: not priced, one note).
    let from_env = env.model(model);
    let model = from_env.as_deref().unwrap_or(model);
    let base_model = info
        .and_then(|i| i.get("base_model"))
        .and_then(Node::as_str);
    let (provider, note, base_from) = provider_of(model, params, env);
    let price_override = price_override(file, at, info, params)?;
    let note = explicit_cache_note(info, params, note);
    let r = rates(file, Some(params), at)?;
    let limit = crate::model::fit::RateLimit {
        rpm: r.rpm.filter(|&x| x > 0.0),
        tpm: r.tpm.filter(|&x| x > 0.0),
    };
    Ok(Endpoint {
        model: base_model.unwrap_or(model).to_string(),
        provider,
        price_override,
        note,
        file: model_node.file.as_deref().map(str::to_string),
        line: model_node.line,
        col: model_node.col,
        deployment: Some(params.canonical()),
        served: None,
        limit,
        base_from,
    })
}

/// Refuses near misses of the price keys and of the keys LiteLLM reads in a deployment's
/// `model_info` and `litellm_params` (a misspelt key would be silently dropped).
fn refuse_near_misses(
    file: &str,
    at: &str,
    info: Option<&Node>,
    params: &Node,
) -> Result<(), InputError> {
    for (node, section, read, valid) in [
        (info, "model_info", &["base_model"][..], &[][..]),
        (Some(params), "litellm_params", PARAMS_READ, PARAMS_KEYS),
    ] {
        if let Some(node) = node {
            let path = format!("{at}.{section}");
            node.refuse_near_misses(file, &path, PRICE_KEYS, &[], 2, 2)?;
            node.refuse_near_misses(file, &path, read, valid, 2, 2)?;
        }
    }
    Ok(())
}

/// A deployment's provider (`custom_llm_provider`, else the prefix of `model`), a note and the
/// variable its `api_base` is read from when not set (`Endpoint::base_from`): an
/// OpenAI-compatible provider with an `api_base` elsewhere is judged as that host (an
/// `os.environ/NAME` base read from `env`, as the proxy reads it when it starts); one whose
/// `api_base` comes from a variable not set here keeps its provider, said, with the `--env`
/// that would judge it by where it points.
fn provider_of(
    model: &str,
    params: &Node,
    env: &Env,
) -> (Option<String>, Option<String>, Option<String>) {
    let mut provider = params
        .get("custom_llm_provider")
        .and_then(Node::as_str)
        .map(str::to_string)
        .or_else(|| model.split_once('/').map(|(p, _)| p.to_string()));
    let (mut note, mut base_from) = (None, None);
    if let (Some(p), Some(written)) = (
        provider.clone(),
        params.get("api_base").and_then(Node::as_str),
    ) && OPENAI_COMPATIBLE.contains(&p.as_str())
    {
        let base = env.model(written).unwrap_or_else(|| written.to_string());
        let host = host_of(&base);
        if let Some(name) = base.strip_prefix("os.environ/") {
            // Read from the environment when the proxy starts (LiteLLM's `get_secret`): the
            // config does not say where it points, so the model's own provider is the failure
            // domain, not the variable's name.
            note = Some(format!(
                "`{model}` takes its api_base from the environment ({base}): judged as provider `{p}`; if it points elsewhere, the price and the failure domain may differ (pass --env {name}=URL to judge it by where it points: a local or private address is your own server, $0 per token)"
            ));
            base_from = Some(name.to_string());
        } else if host != "api.openai.com" {
            provider = Some(format!("api_base {host}"));
            note = Some(if base == written {
                format!("`{model}` is served through api_base {base}, not by OpenAI")
            } else {
                format!("`{model}` is served through api_base {base} ({written}), not by OpenAI")
            });
        }
    }
    (provider, note, base_from)
}

/// A deployment's own per-token prices ($/token), each from `litellm_params`, else
/// `model_info`.
///
/// Errors: a price that is not a finite number >= 0 (see `per_token_price`).
fn price_override(
    file: &str,
    at: &str,
    info: Option<&Node>,
    params: &Node,
) -> Result<PriceOverride, InputError> {
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
            Some(i) => {
                crate::input::gateway::per_token_price(file, i, key, &format!("{at}.model_info"))?
            }
            None => None,
        };
        let from_params = crate::input::gateway::per_token_price(
            file,
            params,
            key,
            &format!("{at}.litellm_params"),
        )?;
        // LiteLLM bills `litellm_params`' price when both set one: the router registers the
        // deployment's model_info with it (`tests/fixtures/parity/prices-both.yaml`).
        *slot = from_params.or(from_info);
    }
    Ok(price_override)
}

/// `note` with a word that LiteLLM's price for reads of an explicit (`cache_control`) cache
/// (`explicit_cache_read_input_token_cost`) is not read, when the deployment sets it.
fn explicit_cache_note(info: Option<&Node>, params: &Node, note: Option<String>) -> Option<String> {
    let Some(n) = [info, Some(params)]
        .into_iter()
        .flatten()
        .find_map(|n| n.get("explicit_cache_read_input_token_cost"))
    else {
        return note;
    };
    let ignored = format!(
        "explicit_cache_read_input_token_cost (line {}) is not read: cache reads are priced at cache_read_input_token_cost or the table's cache-read price",
        n.line
    );
    Some(match note {
        Some(n) => format!("{n}; {ignored}"),
        None => ignored,
    })
}

/// A deployment's routing rates (`litellm_params.weight`, `rpm`, `tpm`).
///
/// Errors: a rate that is not a finite number >= 0.
pub(super) fn rates(file: &str, params: Option<&Node>, at: &str) -> Result<Rates, InputError> {
    let mut out = Rates::default();
    let Some(params) = params else {
        return Ok(out);
    };
    for (key, slot) in [
        ("weight", &mut out.weight),
        ("rpm", &mut out.rpm),
        ("tpm", &mut out.tpm),
    ] {
        let Some(v) = params.get(key) else { continue };
        if v.value == NodeValue::Null {
            continue;
        }
        match v.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => *slot = Some(x),
            _ => {
                return Err(v.error(
                    file,
                    InputErrorKind::Invalid,
                    format!("{at}.litellm_params.{key}"),
                    format!(
                        "expected a number >= 0 (LiteLLM's simple-shuffle routes by it); got {}",
                        v.describe()
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// The first-pick shares LiteLLM 1.110's `simple_shuffle`
/// (`litellm/router_strategy/simple_shuffle.py`) gives deployments with these rates, and how
/// they were set: the first of `weight`, `rpm`, `tpm` that ANY deployment sets above 0 decides
/// (a deployment without it counting 0), else equal shares (`random.choice`).
pub(super) fn shuffle_shares(rates: &[Rates]) -> (Vec<f64>, String) {
    let n = rates.len().max(1);
    let metrics: [(&str, RateOf); 3] = [
        ("weight", |r| r.weight),
        ("rpm", |r| r.rpm),
        ("tpm", |r| r.tpm),
    ];
    for (key, get) in metrics {
        let w: Vec<f64> = rates.iter().map(|r| get(r).unwrap_or(0.0)).collect();
        let total: f64 = w.iter().sum();
        if total > 0.0 {
            let shown: Vec<String> = w.iter().map(|x| format!("{x}")).collect();
            return (
                w.iter().map(|x| x / total).collect(),
                format!("litellm_params.{key} {}", shown.join(":")),
            );
        }
    }
    (vec![1.0 / n as f64; n], "equal shares".to_string())
}

/// The share of `primary`'s traffic for which `fallback` picks the very deployment the primary
/// picked (identical `litellm_params`), both at their traffic shares: sum over the primary's
/// deployments i of share(i) times the fallback's share of deployments equal to i. 1 when
/// every deployment of the fallback is the primary's only one; 0 when they share none.
pub(super) fn retry_share(primary: &Group, fallback: &Group) -> f64 {
    let shares = |g: &Group| {
        g.shares
            .clone()
            .unwrap_or_else(|| vec![1.0 / g.endpoints.len().max(1) as f64; g.endpoints.len()])
    };
    let (p, q) = (shares(primary), shares(fallback));
    primary
        .endpoints
        .iter()
        .zip(&p)
        .filter(|(e, _)| e.deployment.is_some())
        .map(|(e, pi)| {
            let same: f64 = fallback
                .endpoints
                .iter()
                .zip(&q)
                .filter(|(f, _)| f.deployment == e.deployment)
                .map(|(_, qj)| qj)
                .sum();
            pi * same
        })
        .sum()
}

/// The texts each `*` of `pattern` matches in `name` (the first `*` as little as the rest
/// allows, the last taking what is left), or `None` when `name` does not match.
pub(super) fn glob_captures<'a>(pattern: &str, name: &'a str) -> Option<Vec<&'a str>> {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() < 2 || name.len() < first.len() + last.len() {
        return None;
    }
    let inner = name.strip_prefix(first)?.strip_suffix(last)?;
    let mut caps = Vec::new();
    let mut rest = inner;
    for lit in &parts[1..parts.len() - 1] {
        let at = rest.find(lit)?;
        caps.push(&rest[..at]);
        rest = &rest[at + lit.len()..];
    }
    caps.push(rest);
    Some(caps)
}

/// `model` with its `*`s replaced by `caps` in order (a `*` beyond them kept).
pub(super) fn fill_stars(model: &str, caps: &[&str]) -> String {
    let mut out = String::new();
    for (i, part) in model.split('*').enumerate() {
        if i > 0 {
            out.push_str(caps.get(i - 1).copied().unwrap_or("*"));
        }
        out.push_str(part);
    }
    out
}

/// The host of an `api_base` URL (`https://x.example.com/v1` → `x.example.com`); an
/// `os.environ/NAME` reference as is.
pub(super) fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or(rest);
    if host.is_empty() {
        url.to_string()
    } else {
        host.to_string()
    }
}
