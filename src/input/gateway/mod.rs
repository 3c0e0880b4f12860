//! Gateway configs: the fallback chains teams keep in LiteLLM proxy configs ([`litellm`]),
//! Portkey configs ([`portkey`]) and OpenRouter request bodies ([`openrouter`]), read into one
//! shape ([`Config`]) that `fallcost check` prices.
//!
//! These are third-party formats: keys fallcost does not use are ignored, but a key it does use
//! with the wrong shape is an [`InputError`] naming the line, and a model is never priced from a
//! guess (the check fails closed on a model with no known price).
//!
//! Both formats are parsed into a [`Node`] tree that remembers the line and column of every value
//! (YAML through `saphyr`, with YAML merge keys (`<<: *anchor`) resolved as PyYAML resolves them
//! and values copied from an anchor placed at the alias; JSON through a small reader of its own,
//! after `serde_json` has validated it, with a duplicate key's last value winning as in
//! JavaScript).

pub mod endpoint;
pub mod env;
pub mod litellm;
mod node;
pub mod openrouter;
pub mod portkey;
pub mod price;

use std::fmt;

use crate::error::{InputError, InputErrorKind};

pub use env::Env;

pub use node::{
    Node, NodeValue, duplicate_key, parse_json, parse_yaml, parse_yaml_documents, strip_bom,
};

/// Prices a config sets for a deployment itself, in $/MTok (LiteLLM's `model_info` or
/// `litellm_params` `input_cost_per_token` etc., converted from USD per token). They win over the
/// price table; a field left `None` comes from the table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceOverride {
    /// Fresh input, $/MTok.
    pub input: Option<f64>,
    /// Output, $/MTok.
    pub output: Option<f64>,
    /// Cache reads, $/MTok.
    pub cached_input: Option<f64>,
    /// Cache writes, $/MTok.
    pub cache_write: Option<f64>,
}

impl PriceOverride {
    /// Whether the config set any price.
    pub fn is_empty(&self) -> bool {
        *self == PriceOverride::default()
    }
}

/// Where something is declared: a line of the file being checked, or of a file it includes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Place {
    /// The file, when it is not the file being checked (a LiteLLM `include`).
    pub file: Option<String>,
    /// The line, from 1.
    pub line: usize,
}

impl Place {
    /// Where `node` is.
    pub fn of(node: &Node) -> Place {
        Place {
            file: node.file.as_deref().map(str::to_string),
            line: node.line,
        }
    }

    /// The file: this place's own, else `default` (the file being checked).
    pub fn file_or<'a>(&'a self, default: &'a str) -> &'a str {
        self.file.as_deref().unwrap_or(default)
    }
}

/// One model a gateway may send a request to (a LiteLLM deployment, a Portkey target).
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// The model id to price, as the config names it (`openai/gpt-4o`, `gpt-4o`), or LiteLLM's
    /// `model_info.base_model` when set.
    pub model: String,
    /// The failure domain, when the config says: the provider prefix or `custom_llm_provider`
    /// (LiteLLM), `provider` or an `@slug/` (Portkey), or `api_base HOST` for an
    /// OpenAI-compatible model served elsewhere. `None`: the price table's provider.
    pub provider: Option<String>,
    /// Prices the config sets itself.
    pub price_override: PriceOverride,
    /// Why the price may not be the provider's list price (e.g. served through another
    /// `api_base`); shown with the price source.
    pub note: Option<String>,
    /// The file the model is named in, when it is not the file being checked.
    pub file: Option<String>,
    /// Line of the model in the file.
    pub line: usize,
    /// Column of the model in the file.
    pub col: usize,
    /// What the gateway sends the request to, as one comparable string: LiteLLM's
    /// `litellm_params` of the deployment, canonicalised (keys sorted, positions dropped). Two
    /// endpoints with the same value are one deployment under two names. `None` for Portkey.
    pub deployment: Option<String>,
    /// The model as its provider serves it, without a gateway's key or slug (Portkey's
    /// `@openai-prod/gpt-4o` is `gpt-4o`); `None` for LiteLLM.
    pub served: Option<String>,
    /// The deployment's rate limit (LiteLLM's `litellm_params.rpm` / `tpm` above 0): the quota
    /// `check` weighs a failover's traffic against ([`crate::model::fit::refused_share`]).
    pub limit: crate::model::fit::RateLimit,
    /// The variable an OpenAI-compatible deployment's `api_base` is read from
    /// (`os.environ/NAME`) when it is set neither here nor by `--env`: where the model is served
    /// is the proxy environment's to say. `None` otherwise.
    pub base_from: Option<String>,
}

/// A named set of endpoints one step of a chain may use: a LiteLLM `model_name` group (one or
/// more deployments) or a Portkey target (nested targets give several).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's name or a description of the target.
    pub label: String,
    /// The endpoints; the group's price is their range.
    pub endpoints: Vec<Endpoint>,
    /// The share of the group's traffic each endpoint gets (one per endpoint, summing to 1), when
    /// the gateway's routing says (a LiteLLM group: `weight`, `rpm` or `tpm`, else equal
    /// shares); `None` when it does not (a Portkey target), and the group is then judged by its
    /// range, worst case.
    pub shares: Option<Vec<f64>>,
    /// How [`Group::shares`] were set, for messages: `equal shares`, `litellm_params.weight`.
    pub mix: Option<String>,
}

/// A fallback link of a [`Route`]: where the gateway goes when the primary fails (not
/// the model's link, a priced step of a [`crate::model::Chain`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RouteLink {
    /// The fallback.
    pub fallback: Group,
    /// Where the link is declared.
    pub at: Place,
    /// The groups passed through before this one, after the primary (LiteLLM applies a fallback
    /// group's own fallbacks too); empty for a direct link.
    pub via: Vec<String>,
}

/// A gateway's route: a primary and the fallbacks it can reach, as the config declares them
/// (not [`crate::model::Chain`], the priced chain a route becomes in `compare --config`).
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// A name for messages: `fallbacks: gpt-4o`, `targets (fallback)`.
    pub name: String,
    /// Where the chain is declared.
    pub at: Place,
    /// The primary.
    pub primary: Group,
    /// The fallbacks, in order.
    pub links: Vec<RouteLink>,
    /// Which requests the fallbacks take when only some do (LiteLLM's
    /// `context_window_fallbacks`, `content_policy_fallbacks`); `None`: every failure.
    pub condition: Option<crate::model::condition::Condition>,
}

/// Something about a config worth saying that is not a price finding.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// A fallback (or a chain's primary) names something that is not a `model_name` group:
    /// LiteLLM never fires it. `model_id` says whether it is a model id (of a deployment or in
    /// the price table) rather than a missing name.
    NotAGroup {
        /// The name as written.
        name: String,
        /// The chain's primary, when `name` is a fallback.
        primary: Option<String>,
        /// Whether `name` is a model id rather than nothing at all.
        model_id: bool,
    },
    /// A name that is not a `model_name` group but that LiteLLM's router resolves (a
    /// `model_group_alias`, a deployment's `litellm_params.model` or `model_info.id`): it fires,
    /// and is judged as what it resolves to (a note).
    Resolved {
        /// The name as written.
        name: String,
        /// The group whose fallback it is; `None` when `name` is a fallbacks key (a primary).
        primary: Option<String>,
        /// What it resolves to, and by which step of the router.
        how: String,
    },
    /// A fallback that sends the request to the very deployments of the group it falls back
    /// from (the same `litellm_params` under two group names): a retry, not a failover.
    SameDeployment {
        /// The group falling back.
        primary: String,
        /// The fallback.
        fallback: String,
        /// The share of the primary's traffic for which the fallback picks the deployment the
        /// primary picked (LiteLLM's `simple_shuffle` shares of both groups), when it is not
        /// all of it: a retry for that share, a failover for the rest.
        share: Option<f64>,
    },
    /// A fallback that serves the primary's model on the primary's provider through another
    /// key or slug (Portkey `@openai-prod/gpt-4o` -> `@openai-backup/gpt-4o`).
    SameModel {
        /// The primary.
        primary: String,
        /// The fallback.
        fallback: String,
        /// The provider both run on.
        provider: String,
        /// The model both serve.
        model: String,
    },
    /// A Portkey chain whose targets go through slugs that name no Portkey provider (virtual
    /// keys or integrations whose provider the config does not say): whether it leaves its
    /// primary's provider cannot be told, so it is never counted as crossing providers (a
    /// warning).
    UnknownProvider {
        /// The chain.
        chain: String,
        /// The slugs, without `@`, in the order first met.
        slugs: Vec<String>,
        /// Whether every target goes through the one slug: one provider, whatever it is.
        one: bool,
    },
    /// An OpenRouter model whose `provider.order` leaves `allow_fallbacks` on (its default)
    /// without `only`: after the listed providers OpenRouter may try others, not priced (a
    /// note).
    OtherProviders {
        /// The model.
        model: String,
    },
    /// A file found in a folder that looks like a gateway config but is not one fallcost reads
    /// (a note, so that it does not vanish from the run).
    NotRead {
        /// Why.
        why: String,
    },
    /// Fallback declarations that lead back to where they started.
    Loop {
        /// The groups in order, the first repeated at the end.
        cycle: Vec<String>,
        /// How many other groups loop with them (the rest of their strongly connected set).
        more: usize,
    },
    /// A fallback that points at its own primary.
    SelfFallback {
        /// The group.
        group: String,
    },
    /// A fallback list that is empty (`fallbacks: []`, `{"a": []}`).
    Empty {
        /// What is empty.
        what: String,
    },
    /// A target with no model of its own (it uses the request's model): its chain cannot be
    /// judged there.
    NoModel {
        /// The target.
        target: String,
    },
    /// A declaration the gateway never acts on (LiteLLM reads the first key of a fallbacks entry,
    /// the first entry for a group, `router_settings` over `litellm_settings`): not judged.
    Ignored {
        /// What is ignored.
        what: String,
        /// Why, and what the gateway uses instead.
        why: String,
    },
    /// A wildcard route (`openai/*`): not a model, so not priced. A warning when a chain
    /// passes through it (the chain cannot be judged there), else a note.
    Wildcard {
        /// The route.
        name: String,
        /// The chain's primary, when the route is one of its fallbacks.
        primary: Option<String>,
        /// Whether a chain being judged starts at or passes through it.
        in_chain: bool,
    },
}

impl Notice {
    /// Warnings fail the run under `--deny-warnings`; notes never fail it. A loop is a note:
    /// mutual fallbacks (`a: [b]`, `b: [a]`) are common and LiteLLM bounds them with
    /// `max_fallbacks`; every link in them is still judged.
    pub fn is_warning(&self) -> bool {
        match self {
            Notice::NotAGroup { .. }
            | Notice::SelfFallback { .. }
            | Notice::SameDeployment { .. }
            | Notice::SameModel { .. }
            | Notice::UnknownProvider { .. }
            | Notice::NoModel { .. }
            | Notice::Ignored { .. } => true,
            Notice::Wildcard { in_chain, .. } => *in_chain,
            Notice::Loop { .. }
            | Notice::Empty { .. }
            | Notice::Resolved { .. }
            | Notice::OtherProviders { .. }
            | Notice::NotRead { .. } => false,
        }
    }

    /// A stable kebab-case identifier for JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::NotAGroup { .. } => "not-a-group",
            Notice::Loop { .. } => "loop",
            Notice::Resolved { .. } => "resolved-name",
            Notice::SameDeployment { .. } => "same-deployment",
            Notice::SameModel { .. } => "same-model",
            Notice::UnknownProvider { .. } => "unknown-provider",
            Notice::OtherProviders { .. } => "other-providers",
            Notice::NotRead { .. } => "not-read",
            Notice::SelfFallback { .. } => "self-fallback",
            Notice::Empty { .. } => "empty-fallbacks",
            Notice::NoModel { .. } => "no-model",
            Notice::Ignored { .. } => "ignored",
            Notice::Wildcard { .. } => "wildcard",
        }
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::NotAGroup {
                name,
                primary,
                model_id,
            } => not_a_group(f, name, primary.as_deref(), *model_id),
            Notice::Resolved { name, primary, how } => resolved(f, name, primary.as_deref(), how),
            Notice::SameDeployment {
                primary,
                fallback,
                share,
            } => same_deployment(f, primary, fallback, *share),
            Notice::SameModel {
                primary,
                fallback,
                provider,
                model,
            } => write!(
                f,
                "fallback `{fallback}` of `{primary}` serves the same model (`{model}`) on the same provider (`{provider}`) through another key: it survives a rate limit on one key, not an outage of `{provider}`, and costs the same"
            ),
            Notice::UnknownProvider { chain, slugs, one } => {
                unknown_provider(f, chain, slugs, *one)
            }
            Notice::OtherProviders { model } => write!(
                f,
                "after the providers provider.order lists for `{model}`, OpenRouter may try its other providers (allow_fallbacks is true unless set false): those attempts are not priced; set \"allow_fallbacks\": false, or list them in `only`, to price every provider the request can reach"
            ),
            Notice::NotRead { why } => write!(f, "skipped: {why}"),
            Notice::Loop { cycle, more } => fallback_loop(f, cycle, *more),
            Notice::SelfFallback { group } => write!(
                f,
                "`{group}` falls back to itself: a retry on the same group, not a fallback (it survives no outage)"
            ),
            Notice::Empty { what } => write!(f, "{what} is empty: no fallback declared"),
            Notice::NoModel { target } => write!(
                f,
                "{target} sets no model, not even through a parent's override_params (it uses the request's model): not priced, so its chain cannot be judged there"
            ),
            Notice::Ignored { what, why } => write!(f, "{what} never fires: {why}"),
            Notice::Wildcard {
                name,
                primary,
                in_chain,
            } => wildcard(f, name, primary.as_deref(), *in_chain),
        }
    }
}

/// [`Notice::NotAGroup`]'s sentence: a fallback (`primary` set) or a chain's own name that is
/// no model_name group.
fn not_a_group(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    primary: Option<&str>,
    model_id: bool,
) -> fmt::Result {
    match (primary, model_id) {
        (Some(p), true) => write!(
            f,
            "fallback `{name}` of `{p}` is a model id, not a model_name group: LiteLLM falls back to groups only, so it never fires (its router finds no deployment for it, BadRequestError, no call billed, and goes on to the next fallback); name the group that serves it"
        ),
        (Some(p), false) => write!(
            f,
            "fallback `{name}` of `{p}` is not a model_name group in model_list: LiteLLM never fires it (its router finds no deployment for it, BadRequestError, no call billed, and goes on to the next fallback)"
        ),
        (None, model_id) => write!(
            f,
            "`{name}` has fallbacks but is not a model_name group in model_list{}: the chain never fires",
            if model_id { " (it is a model id)" } else { "" }
        ),
    }
}

/// [`Notice::Resolved`]'s sentence: a name LiteLLM's router sends elsewhere (`how`).
fn resolved(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    primary: Option<&str>,
    how: &str,
) -> fmt::Result {
    match primary {
        Some(p) => write!(
            f,
            "fallback `{name}` of `{p}` is not a model_name group, but LiteLLM's router sends it to {how}: judged as that"
        ),
        None => write!(
            f,
            "`{name}` has fallbacks and is not a model_name group, but a request for it goes to {how}: its chain is judged"
        ),
    }
}

/// [`Notice::SameDeployment`]'s sentence, with the share sent back when the groups split
/// traffic.
fn same_deployment(
    f: &mut fmt::Formatter<'_>,
    primary: &str,
    fallback: &str,
    share: Option<f64>,
) -> fmt::Result {
    match share {
        None => write!(
            f,
            "fallback `{fallback}` of `{primary}` sends the request to the same deployment (identical litellm_params under two group names): a retry, not a failover (it survives no outage of that deployment)"
        ),
        Some(s) => write!(
            f,
            "fallback `{fallback}` of `{primary}` sends {} of `{primary}`'s requests back to the deployment that just failed (identical litellm_params under two group names, at the groups' traffic shares): a retry for that share, a failover for the rest",
            crate::number::percent(s, crate::number::Digits::AtMost(2), false)
        ),
    }
}

/// [`Notice::UnknownProvider`]'s sentence: one unknown slug for every target (`one`), or some.
fn unknown_provider(
    f: &mut fmt::Formatter<'_>,
    chain: &str,
    slugs: &[String],
    one: bool,
) -> fmt::Result {
    if one {
        return write!(
            f,
            "chain `{chain}`: every target goes through `@{}`, which names no Portkey provider: one key, so one provider whatever it is; it survives a deprecation, not an outage",
            slugs.join("")
        );
    }
    write!(
        f,
        "chain `{chain}`: {} name{} no Portkey provider (a virtual key or integration), so whether its fallbacks leave the primary's provider is unknown and it is not counted as crossing providers; set `provider` on those targets (`openai`, `anthropic`, ...) to judge it",
        slugs
            .iter()
            .map(|s| format!("`@{s}`"))
            .collect::<Vec<_>>()
            .join(", "),
        if slugs.len() == 1 { "s" } else { "" }
    )
}

/// [`Notice::Loop`]'s sentence: the groups of the cycle, and how many more loop with them.
fn fallback_loop(f: &mut fmt::Formatter<'_>, cycle: &[String], more: usize) -> fmt::Result {
    write!(
        f,
        "fallbacks loop: {}",
        cycle
            .iter()
            .map(|g| format!("`{g}`"))
            .collect::<Vec<_>>()
            .join(" -> ")
    )?;
    if more > 0 {
        write!(
            f,
            " ({more} more group{} loop with them)",
            if more == 1 { "" } else { "s" }
        )?;
    }
    write!(
        f,
        "; LiteLLM bounds the loop with max_fallbacks (default 5), and each fallback is judged once per chain here"
    )
}

/// [`Notice::Wildcard`]'s sentence, and what cannot be judged because of it.
fn wildcard(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    primary: Option<&str>,
    in_chain: bool,
) -> fmt::Result {
    write!(
        f,
        "`{name}` is a wildcard route, not a model: its price depends on the model requested, so it is not priced"
    )?;
    match (primary, in_chain) {
        (Some(p), _) => write!(f, "; the chain of `{p}` cannot be judged there"),
        (None, true) => write!(f, "; its fallbacks cannot be judged"),
        (None, false) => Ok(()),
    }
}

/// A gateway config, read: its chains, and what else is worth saying about it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// The chains, in file order.
    pub chains: Vec<Route>,
    /// Every group requests can name, with its deployments and their shares (LiteLLM's
    /// `model_list` groups, fallbacks or not; empty for Portkey and OpenRouter): `diff` finds
    /// here a group that lost its last fallback and still serves its traffic.
    pub groups: Vec<Group>,
    /// Notices with the place they are about.
    pub notices: Vec<(Place, Notice)>,
}

/// LiteLLM's `input_cost_per_token`-style USD per token at `key` of `node`, in $/MTok.
///
/// Errors: a value that is not a finite number >= 0.
pub(crate) fn per_token_price(
    file: &str,
    node: &Node,
    key: &str,
    field: &str,
) -> Result<Option<f64>, InputError> {
    let Some(v) = node.get(key) else {
        return Ok(None);
    };
    if v.value == NodeValue::Null {
        return Ok(None);
    }
    // Strings such as "2.5e-06" are what a YAML writer sometimes leaves; take them as numbers.
    let number = v
        .as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()));
    match number {
        Some(x)
            if x.is_finite()
                && (0.0..=crate::input::litellm_prices::MAX_PER_TOKEN).contains(&x) =>
        {
            Ok(Some(crate::input::litellm_prices::per_token_to_per_mtok(x)))
        }
        _ => Err(v.error(
            file,
            InputErrorKind::Invalid,
            format!("{field}.{key}"),
            format!(
                "USD per token must be a finite number in [0, 1]; got {}",
                v.describe()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_per_token_prices_show_the_value() {
        let n = parse_yaml("c.yaml", "a: -1\nb: 2.5e-06\nc: \"3e-06\"\nd: [1]\n")
            .unwrap()
            .unwrap();
        let e = per_token_price("c.yaml", &n, "a", "x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:1:4: x.a: USD per token must be a finite number in [0, 1]; got -1"
        );
        assert_eq!(per_token_price("c.yaml", &n, "b", "x").unwrap(), Some(2.5));
        assert_eq!(per_token_price("c.yaml", &n, "c", "x").unwrap(), Some(3.0));
        assert!(
            per_token_price("c.yaml", &n, "d", "x")
                .unwrap_err()
                .message
                .ends_with("got a list")
        );
        assert_eq!(per_token_price("c.yaml", &n, "zz", "x").unwrap(), None);
    }
}
