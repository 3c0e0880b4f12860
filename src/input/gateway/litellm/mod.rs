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
//!   max_fallbacks: 5
//! include: [more_models.yaml]               # merged in, as LiteLLM does
//! ```
//!
//! fallcost follows what LiteLLM's router does with it (`Router.__init__`,
//! `get_fallback_model_group`, `run_async_fallback`; each answer is tested in `tests/it/check.rs`):
//! - `router_settings` wins over `litellm_settings`: a fallbacks list (or `default_fallbacks`,
//!   `max_fallbacks`) set in both is read from `router_settings`, and the other one is a warning;
//! - a group's fallbacks are the first entry whose key is the group; failing that (for
//!   `fallbacks` only) the last entry whose key is the group without its provider prefix (a
//!   group `anthropic/claude-sonnet-5` matches a key `claude-sonnet-5`), then `"*"`, which
//!   `default_fallbacks` becomes (it wins over a `"*"` key in the list); a later entry for the
//!   same group never fires: a warning;
//! - `fallbacks` and `content_policy_fallbacks` entries must have exactly one key (LiteLLM's
//!   router refuses the config otherwise: an input error here); a second key in a
//!   `context_window_fallbacks` entry is never read: a warning;
//! - a chain is every group with fallbacks. Its fallbacks are tried in order, and when one fails
//!   its own fallbacks (of the same kind) are tried in turn, as LiteLLM recurses: each attempt
//!   adds one to the fallback depth, and a group's own fallbacks are only tried while its depth
//!   is below `max_fallbacks` (default 5). Each group reached is judged once against the chain's
//!   primary, at the declaration with the lowest depth (then the fewest hops): a direct link at
//!   its own line;
//! - a name in a fallback list (or a fallbacks key, which a request may name) is resolved as
//!   `Router._common_checks_available_deployment` (`litellm/router.py`) resolves the model of a
//!   request: a deployment's `model_info.id` (`has_model_id`), then
//!   `router_settings.model_group_alias` (`_get_model_from_alias`, `{alias: group}` or
//!   `{alias: {model: group}}`), then the `model_name` group, then the deployments whose
//!   `litellm_params.model` is the name (`_get_deployment_by_litellm_model`). Each of these
//!   fires and is judged, with a note saying how it resolved; the fallbacks of such a name are
//!   looked up by the name as written (`async_function_with_fallbacks_common_utils` passes the
//!   requested model to `get_fallback_model_group` before any alias is resolved);
//! - a group with several deployments is priced as the traffic it sends: LiteLLM's default
//!   `simple_shuffle` (`litellm/router_strategy/simple_shuffle.py`) picks by
//!   `litellm_params.weight`, else `rpm`, else `tpm` (whichever the group's first deployment
//!   sets, a deployment without it counting 0), else at random: equal shares. Another
//!   `routing_strategy` picks by live state: equal shares are assumed and said;
//! - `api_base: os.environ/NAME` is read from the environment at startup: not a provider, the
//!   model's own provider is the failure domain (a note says so);
//! - a fallback whose deployments are all the primary's (identical `litellm_params` under two
//!   group names) is a warning: a retry on the same deployment, not a failover;
//! - a fallback naming nothing the router resolves (a price-table id no deployment uses, a
//!   missing group), a primary that resolves to nothing: warnings (LiteLLM never fires them),
//!   not priced; a wildcard route (`openai/*`) is not priced either (a warning when a chain
//!   starts at or passes through it, else a note);
//! - a self-fallback: a warning; a loop and `fallbacks: []`: notes; comments are not read;
//! - `content_policy_fallbacks=[...]` (Python syntax from LiteLLM's docs): an error at its line;
//! - `include: [files]` (relative to the config) are merged in as LiteLLM merges them: a list
//!   extends the config's list of the same key, anything else replaces it; a file that cannot be
//!   read is an error naming the `include` line.

// The parts: `model_list` (groups, deployments, weights, name resolution), `fallbacks` (the
// fallback lists and the walk through them), `include` (`include:` files, Python syntax).
mod fallbacks;
mod include;
mod model_list;
mod scope;

use fallbacks::{FallbackEntry, Lists, Providers, loops, parse_list, walk};
pub use include::{includes_files, python_syntax, resolve_includes};
use model_list::{ModelList, retry_share, string_list};

use std::collections::{BTreeSet, HashSet};

use super::{Config, Env, Node, NodeValue, Notice, Place, Route, RouteLink};
use crate::error::{InputError, InputErrorKind};
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

/// The top-level keys fallcost reads: a near miss of one (`model_lst`) is refused.
pub const ROOT_READ: &[&str] = &["model_list", "router_settings", "litellm_settings"];

/// The `litellm_params` keys fallcost reads besides the price keys: the model and where it is
/// served.
pub const PARAMS_READ: &[&str] = &[
    "model",
    "api_base",
    "custom_llm_provider",
    "weight",
    "rpm",
    "tpm",
    "order",
];

/// LiteLLM's other `litellm_params` keys near one fallcost reads (`GenericLiteLLMParams` and
/// the provider credentials): accepted silently, never taken for a misspelling. `mode` is
/// `model_info`'s, often written here.
pub const PARAMS_KEYS: &[&str] = &["mode", "api_key", "api_version", "api_type"];

/// Every fallback setting LiteLLM has: a near miss of one of these is refused.
pub const FALLBACK_SETTINGS: &[&str] = &[
    "fallbacks",
    "context_window_fallbacks",
    "content_policy_fallbacks",
    "default_fallbacks",
    "max_fallbacks",
];

/// The sections that hold fallbacks, `router_settings` first: it wins over `litellm_settings`.
pub const SECTIONS: &[&str] = &["router_settings", "litellm_settings"];

/// LiteLLM's other documented `router_settings` and `litellm_settings` keys (the `Router`
/// arguments and the proxy's settings reference): accepted silently, never taken for a
/// misspelled fallback setting.
pub const SETTINGS_KEYS: &[&str] = &[
    // router_settings: Router.__init__ and the proxy's reference table
    "routing_strategy",
    "routing_strategy_args",
    "redis_url",
    "redis_host",
    "redis_port",
    "redis_password",
    "redis_db",
    "cache_responses",
    "cache_kwargs",
    "caching_groups",
    "client_ttl",
    "polling_interval",
    "default_priority",
    "num_retries",
    "timeout",
    "stream_timeout",
    "default_litellm_params",
    "default_max_parallel_requests",
    "set_verbose",
    "debug_level",
    "model_group_alias",
    "enable_pre_call_checks",
    "enable_pre_call_check",
    "enable_tag_filtering",
    "tag_filtering_match_any",
    "retry_after",
    "retry_policy",
    "model_group_retry_policy",
    "allowed_fails",
    "allowed_fails_policy",
    "cooldown_time",
    "disable_cooldowns",
    "optional_pre_call_checks",
    "provider_budget_config",
    "alerting_config",
    "router_general_settings",
    "ignore_invalid_deployments",
    "deployment_affinity_ttl_seconds",
    "assistants_config",
    "search_tools",
    "guardrail_list",
    // litellm_settings: the proxy's reference table and common module settings
    "callbacks",
    "success_callback",
    "failure_callback",
    "service_callbacks",
    "input_callback",
    "callback_settings",
    "turn_off_message_logging",
    "redact_user_api_key_info",
    "redact_messages_in_exceptions",
    "langfuse_default_tags",
    "json_logs",
    "request_timeout",
    "force_ipv4",
    "drop_params",
    "modify_params",
    "enable_preview_features",
    "mcp_aliases",
    "cache",
    "cache_params",
    "num_retries_per_request",
    "disable_end_user_cost_tracking",
    "disable_end_user_cost_tracking_prometheus_only",
    "key_generation_settings",
    "disable_add_transform_inline_image_block",
    "use_chat_completions_url_for_anthropic_messages",
    "disable_hf_tokenizer_download",
    "enable_json_schema_validation",
    "enable_key_alias_format_validation",
    "disable_copilot_system_to_assistant",
    "default_team_settings",
    "default_internal_user_params",
    "default_key_generate_params",
    "upperbound_key_generate_params",
    "default_max_internal_user_budget",
    "max_internal_user_budget",
    "max_end_user_budget",
    "max_budget",
    "budget_duration",
    "public_model_groups",
    "public_model_groups_links",
    "ssl_verify",
    "ssl_certificate",
    "telemetry",
    "return_response_headers",
    "model_alias_map",
];

/// The top-level keys of a LiteLLM proxy config besides the three fallcost reads.
pub const ROOT_KEYS: &[&str] = &[
    "general_settings",
    "environment_variables",
    "include",
    "callback_settings",
    "credential_list",
    "guardrails",
    "mcp_servers",
    "search_tools",
    "assistant_settings",
    "files_settings",
    "finetune_settings",
    "vector_store_registry",
];

/// LiteLLM's `max_fallbacks` when the config sets none (`ROUTER_MAX_FALLBACKS`).
pub const DEFAULT_MAX_FALLBACKS: usize = 5;

/// Provider prefixes of LiteLLM model names (`litellm.provider_list`, the common ones): a group
/// `PROVIDER/model` also takes the fallbacks declared for `model`. The price table's providers
/// count too.
const PROVIDERS: &[&str] = &[
    "openai",
    "text-completion-openai",
    "custom_openai",
    "azure",
    "azure_ai",
    "azure_text",
    "anthropic",
    "bedrock",
    "bedrock_converse",
    "sagemaker",
    "vertex_ai",
    "vertex_ai_beta",
    "gemini",
    "mistral",
    "codestral",
    "cohere",
    "cohere_chat",
    "groq",
    "together_ai",
    "fireworks_ai",
    "deepinfra",
    "deepseek",
    "xai",
    "perplexity",
    "openrouter",
    "huggingface",
    "replicate",
    "ollama",
    "ollama_chat",
    "hosted_vllm",
    "vllm",
    "lm_studio",
    "llamafile",
    "databricks",
    "watsonx",
    "cerebras",
    "sambanova",
    "nvidia_nim",
    "nebius",
    "novita",
    "cloudflare",
    "ai21",
    "anyscale",
    "friendliai",
    "github",
    "github_copilot",
    "dashscope",
    "moonshot",
    "volcengine",
    "meta_llama",
    "oci",
    "snowflake",
    "litellm_proxy",
    "voyage",
    "jina_ai",
    "zai",
    "minimax",
];

/// Providers whose `api_base` may point at any OpenAI-compatible server.
const OPENAI_COMPATIBLE: &[&str] = &["openai", "text-completion-openai"];

/// Whether `root` is a LiteLLM proxy config: a mapping with `model_list`, or with a settings
/// section that declares fallbacks, or with a near miss of one of those sections (`model_lst`,
/// `router_setings`), so that [`read`] reports the typo instead of the file being skipped.
pub fn recognise(root: &Node) -> bool {
    let misspelled = match &root.value {
        NodeValue::Map(entries) => entries.iter().any(|(k, _)| {
            k.as_str()
                .is_some_and(|k| crate::suggest::near_miss(k, ROOT_READ, 2, 2).is_some())
        }),
        _ => false,
    };
    misspelled
        || root.get("model_list").is_some()
        || SECTIONS.iter().any(|s| {
            root.get(s).is_some_and(|sec| {
                FALLBACK_KEYS
                    .iter()
                    .chain(&["default_fallbacks"])
                    .any(|k| sec.get(k).is_some())
            })
        })
}

/// Read the chains of a LiteLLM config whose parsed tree is `root` (its `include`s already
/// merged in, see [`resolve_includes`]). `prices` tells a model id from a name that is nothing
/// at all (for the warning about fallbacks that never fire), and its providers count as provider
/// prefixes.
///
/// Errors: a key fallcost uses with the wrong shape (`model_list` not a list, a deployment without
/// `model_name` or `litellm_params.model`, a fallbacks entry that is not a one-key
/// `{group: [groups]}` map, `max_fallbacks` that is not a whole number, a price override that is
/// not a number >= 0), naming field and line.
pub fn read(file: &str, root: &Node, prices: &PriceTable) -> Result<Config, InputError> {
    read_in(file, root, prices, &Env::default())
}

/// [`read`], with the model ids read from the environment (`os.environ/NAME`, `${NAME}`) taken
/// from `env` (`--env` over the process environment) as the proxy takes them from its own.
///
/// Errors: as [`read`].
pub fn read_in(
    file: &str,
    root: &Node,
    prices: &PriceTable,
    env: &Env,
) -> Result<Config, InputError> {
    let mut out = Out::default();
    refuse_misplaced(file, root, &mut out)?;
    let models = ModelList::read(file, root, prices, env)?;
    let sections = settings_sections(file, root)?;
    for (at, group, model, why) in &models.unreached {
        out.ignored(
            at.clone(),
            format!("deployment `{model}` of group `{group}`"),
            format!("{why}; not priced"),
        );
    }
    out.config.groups = models
        .groups
        .iter()
        .filter_map(|(name, _)| models.group(name))
        .collect();
    let max_fallbacks = max_fallbacks(file, &mut out, &sections)?;
    let mut star_default = star_default(file, &mut out, &sections)?;
    let providers = Providers {
        prefixes: PROVIDERS
            .iter()
            .copied()
            .chain(prices.models.values().map(|m| m.provider.as_str()))
            .collect(),
        prices,
    };
    let ctx = Walker {
        models: &models,
        providers: &providers,
        prices,
        max_fallbacks,
    };
    let mut wild_in_chain: BTreeSet<String> = BTreeSet::new();
    for kind in FALLBACK_KEYS {
        let Some(lists) = lists_of_kind(file, &mut out, &sections, kind, &mut star_default)? else {
            continue;
        };
        let primaries = ctx.primaries(&lists, &mut out);
        for (at, cycle, more) in loops(&models, &lists, &providers) {
            out.notice(at, Notice::Loop { cycle, more });
        }
        for name in &primaries {
            if let Some(route) = ctx.route(&lists, name, &mut out, &mut wild_in_chain) {
                out.config.chains.push(route);
            }
        }
    }
    order_chains(&models, &mut out);
    for (name, at) in &models.wildcard_at {
        if !wild_in_chain.contains(name) {
            out.notice(
                at.clone(),
                Notice::Wildcard {
                    name: name.clone(),
                    primary: None,
                    in_chain: false,
                },
            );
        }
    }
    Ok(out.config)
}

/// Refuse what would silently drop prices or fallbacks: a near miss of a key fallcost reads
/// (`model_lst`, `router_setings`, a deployment's `litelm_params`) and fallback settings at the
/// top level, which LiteLLM never reads.
fn refuse_misplaced(file: &str, root: &Node, out: &mut Out) -> Result<(), InputError> {
    root.refuse_near_misses(file, "", ROOT_READ, ROOT_KEYS, 2, 2)?;
    if let NodeValue::Map(entries) = &root.value {
        for (k, _) in entries {
            // LiteLLM starts and serves without it: a warning, not an input error.
            if let Some(key) = k.as_str().filter(|k| FALLBACK_SETTINGS.contains(k)) {
                out.ignored(
                    Place::of(k),
                    format!("a top-level `{key}`"),
                    "LiteLLM reads fallback settings only under router_settings (or litellm_settings), so none of it is judged; move it there".into(),
                );
            }
        }
    }
    for section in SECTIONS {
        if let Some(node) = root.get(section) {
            node.refuse_near_misses(file, section, FALLBACK_SETTINGS, SETTINGS_KEYS, 2, 2)?;
        }
    }
    for item in match root.get("model_list").map(|n| &n.value) {
        Some(NodeValue::Seq(items)) => items.as_slice(),
        _ => &[],
    } {
        item.refuse_near_misses(
            file,
            "model_list[]",
            &["model_name", "litellm_params", "model_info"],
            &[],
            2,
            2,
        )?;
    }
    Ok(())
}

/// The settings sections the config has, `router_settings` first.
///
/// Errors: a section that is not a mapping.
fn settings_sections<'n>(file: &str, root: &'n Node) -> Result<Vec<Setting<'n>>, InputError> {
    let sections: Vec<(&str, &Node)> = SECTIONS
        .iter()
        .filter_map(|s| root.get(s).map(|n| (*s, n)))
        .collect();
    for (section, sec) in &sections {
        if !matches!(sec.value, NodeValue::Map(_) | NodeValue::Null) {
            return Err(sec.error(
                file,
                InputErrorKind::Schema,
                *section,
                format!("expected a mapping of settings; got {}", sec.kind()),
            ));
        }
    }
    Ok(sections)
}

/// Whether a fallback setting is set (not null, not an empty list).
fn non_empty(n: &Node) -> bool {
    match &n.value {
        NodeValue::Null => false,
        NodeValue::Seq(items) => !items.is_empty(),
        _ => true,
    }
}

/// `max_fallbacks`, as LiteLLM takes it (default [`DEFAULT_MAX_FALLBACKS`]).
///
/// Errors: not a whole number >= 0.
fn max_fallbacks(file: &str, out: &mut Out, sections: &[Setting]) -> Result<usize, InputError> {
    let (_, max) = chosen(out, sections, "max_fallbacks", &|n| {
        n.value != NodeValue::Null
    });
    match max {
        None => Ok(DEFAULT_MAX_FALLBACKS),
        Some((s, n)) => match n.value {
            NodeValue::Int(i) if i >= 0 => Ok(usize::try_from(i).unwrap_or(usize::MAX)),
            _ => Err(n.error(
                file,
                InputErrorKind::Invalid,
                format!("{s}.max_fallbacks"),
                format!("expected a whole number >= 0; got {}", n.describe()),
            )),
        },
    }
}

/// `default_fallbacks`, which LiteLLM appends to `fallbacks` as a `"*"` entry, with its field;
/// an empty one is a note.
///
/// Errors: not a list of group names.
fn star_default<'n>(
    file: &str,
    out: &mut Out,
    sections: &[Setting<'n>],
) -> Result<Option<(FallbackEntry<'n>, String)>, InputError> {
    let (all_defaults, defaults) = chosen(out, sections, "default_fallbacks", &non_empty);
    for (s, d) in &all_defaults {
        let field = format!("{s}.default_fallbacks");
        if d.value != NodeValue::Null && string_list(file, d, &field)?.is_empty() {
            out.notice(Place::of(d), Notice::Empty { what: field });
        }
    }
    let Some((s, d)) = defaults else {
        return Ok(None);
    };
    Ok(Some((
        FallbackEntry {
            key: "*",
            at: Place::of(d),
            targets: string_list(file, d, &format!("{s}.default_fallbacks"))?,
        },
        format!("{s}.default_fallbacks"),
    )))
}

/// The `kind` fallback lists LiteLLM acts on (`None` when there are none): every section's
/// list is parsed (for its errors and warnings), the chosen one kept; for `fallbacks`,
/// `default_fallbacks` becomes its `*` entry (and wins over a `*` entry of the list).
fn lists_of_kind<'n>(
    file: &str,
    out: &mut Out,
    sections: &[Setting<'n>],
    kind: &str,
    star_default: &mut Option<(FallbackEntry<'n>, String)>,
) -> Result<Option<Lists<'n>>, InputError> {
    let (all, effective) = chosen(out, sections, kind, &non_empty);
    let generic = kind == "fallbacks";
    let mut lists = None;
    for (section, list) in &all {
        let field = format!("{section}.{kind}");
        let parsed = parse_list(file, list, &field, kind, out)?;
        if effective.is_some_and(|(s, _)| s == *section) {
            lists = parsed.map(|entries| Lists::new(field, entries, generic));
        }
    }
    let mut lists =
        lists.unwrap_or_else(|| Lists::new(format!("router_settings.{kind}"), Vec::new(), generic));
    if generic && let Some((entry, field)) = star_default.take() {
        // The "*" LiteLLM uses is the last one: default_fallbacks, appended after the list.
        if let Some((old, _)) = &lists.star {
            out.ignored(
                old.at.clone(),
                format!("the `*` entry of {}", lists.field),
                format!("LiteLLM appends {field} after it as a later `*` entry, which wins"),
            );
        }
        lists.star = Some((entry, field));
    }
    if lists.entries.is_empty() && lists.star.is_none() {
        return Ok(None);
    }
    Ok(Some(lists))
}

/// What a walk through one config's fallbacks needs.
struct Walker<'a> {
    models: &'a ModelList,
    providers: &'a Providers<'a>,
    prices: &'a PriceTable,
    max_fallbacks: usize,
}

impl Walker<'_> {
    /// The requests LiteLLM looks fallbacks up for: every group, then every other key the router
    /// resolves (`async_function_with_fallbacks_common_utils` looks fallbacks up by the model
    /// name as requested, before `_get_model_from_alias`); a key that is neither never fires (a
    /// warning).
    fn primaries(&self, lists: &Lists, out: &mut Out) -> Vec<String> {
        let models = self.models;
        let used: HashSet<&str> = models
            .groups
            .iter()
            .filter_map(|(g, _)| lists.specific(g, self.providers).map(|(e, _)| e.key))
            .collect();
        let mut unused: Vec<(&str, usize)> = lists
            .first
            .iter()
            .filter(|(k, _)| !used.contains(*k))
            .map(|(k, i)| (*k, *i))
            .collect();
        unused.sort_by_key(|(_, i)| *i);
        let mut primaries: Vec<String> = models.groups.iter().map(|(g, _)| g.clone()).collect();
        for (key, i) in unused {
            match models.resolve(key) {
                Some(r) if !models.wildcard.contains(key) => {
                    out.notice(
                        lists.entries[i].at.clone(),
                        Notice::Resolved {
                            name: key.to_string(),
                            primary: None,
                            how: r.how.unwrap_or_default(),
                        },
                    );
                    primaries.push(key.to_string());
                }
                _ => out.notice(
                    lists.entries[i].at.clone(),
                    Notice::NotAGroup {
                        name: key.to_string(),
                        primary: None,
                        model_id: models.is_model_id(key, self.prices),
                    },
                ),
            }
        }
        primaries
    }

    /// The chain of a request for `name`: the fallbacks LiteLLM's walk tries ([`walk`]), each
    /// judged as what it resolves to; `None` when `name` has no fallbacks, is a wildcard route
    /// (a warning) or resolves to nothing.
    fn route(
        &self,
        lists: &Lists,
        name: &str,
        out: &mut Out,
        wild_in_chain: &mut BTreeSet<String>,
    ) -> Option<Route> {
        let models = self.models;
        let (entry, field) = lists.lookup(name, self.providers)?;
        if models.wildcard.contains(name) {
            wild_in_chain.insert(name.to_string());
            out.notice(
                entry.at.clone(),
                Notice::Wildcard {
                    name: name.to_string(),
                    primary: None,
                    in_chain: true,
                },
            );
            return None;
        }
        let primary = models.resolve(name)?;
        let mut links = tier_links(&primary.later, &[]);
        for r in walk(name, lists, self.providers, self.max_fallbacks) {
            links.extend(self.link(lists, name, r, out, wild_in_chain));
        }
        if links.is_empty() && entry.key == "*" {
            // Only itself among the defaults: no chain.
            return None;
        }
        Some(Route {
            name: format!("{name} ({field})"),
            at: entry.at.clone(),
            primary: primary.group,
            links,
            condition: crate::model::condition::Condition::of_field(field),
        })
    }

    /// One fallback the walk from `root` reached, as links (one per `order` tier of it), with
    /// the notices it earns: how a name that is no group resolved, a retry on the same
    /// deployment, a wildcard route or a name that resolves to nothing (no link).
    fn link(
        &self,
        lists: &Lists,
        root: &str,
        r: fallbacks::Reached,
        out: &mut Out,
        wild_in_chain: &mut BTreeSet<String>,
    ) -> Vec<RouteLink> {
        let models = self.models;
        if models.wildcard.contains(r.to) {
            wild_in_chain.insert(r.to.to_string());
            out.notice(
                r.at,
                Notice::Wildcard {
                    name: r.to.to_string(),
                    primary: Some(root.to_string()),
                    in_chain: true,
                },
            );
            return Vec::new();
        }
        // The group the fallback is declared for (a hop that resumes the root's chain is the
        // root's fallback); a default fallback is named once, not once per group it applies to.
        let declared = match &lists.star {
            Some((_, field)) if r.key == "*" => field.clone(),
            _ => r.key.to_string(),
        };
        let Some(resolved) = models.resolve(r.to) else {
            out.notice(
                r.at,
                Notice::NotAGroup {
                    name: r.to.to_string(),
                    primary: Some(declared),
                    model_id: models.is_model_id(r.to, self.prices),
                },
            );
            return Vec::new();
        };
        if let Some(how) = &resolved.how {
            out.notice(
                r.at.clone(),
                Notice::Resolved {
                    name: r.to.to_string(),
                    primary: Some(declared),
                    how: how.clone(),
                },
            );
        }
        if let Some(from) = models.resolve(r.from) {
            let share = retry_share(&from.group, &resolved.group);
            if share > 0.0 {
                out.notice(
                    r.at.clone(),
                    Notice::SameDeployment {
                        primary: r.from.to_string(),
                        fallback: r.to.to_string(),
                        share: (share < 1.0 - 1e-9).then_some(share),
                    },
                );
            }
        }
        let mut via = r.via.clone();
        via.push(r.to.to_string());
        let later = tier_links(&resolved.later, &via);
        let mut links = vec![RouteLink {
            fallback: resolved.group,
            at: r.at,
            via: r.via,
        }];
        links.extend(later);
        links
    }
}

/// The later `order` tiers of a group as links (each at its first deployment), reached `via`
/// the steps before them.
fn tier_links(later: &[super::Group], via: &[String]) -> Vec<RouteLink> {
    later
        .iter()
        .map(|g| RouteLink {
            at: g.endpoints.first().map_or(
                Place {
                    file: None,
                    line: 0,
                },
                |e| Place {
                    file: e.file.clone(),
                    line: e.line,
                },
            ),
            fallback: g.clone(),
            via: via.to_vec(),
        })
        .collect()
}

/// The chains of the groups with several `order` tiers that no `fallbacks` chain starts at:
/// LiteLLM tries each tier in turn even without fallbacks.
fn order_chains(models: &ModelList, out: &mut Out) {
    for (name, _) in &models.groups {
        let made = out
            .config
            .chains
            .iter()
            .any(|c| c.primary.label == *name && c.name.ends_with(".fallbacks)"));
        let Some(mut tiers) = models.tier_groups(name) else {
            continue;
        };
        if made || tiers.len() < 2 {
            continue;
        }
        let primary = tiers.remove(0);
        let links = tier_links(&tiers, &[]);
        out.config.chains.push(Route {
            name: format!("{name} (litellm_params.order)"),
            at: links[0].at.clone(),
            primary,
            links,
            condition: None,
        });
    }
}

/// A config being read, and the notices already given (each once per place).
#[derive(Default)]
struct Out {
    config: Config,
    said: BTreeSet<(Place, String)>,
}

impl Out {
    fn notice(&mut self, at: Place, n: Notice) {
        if self.said.insert((at.clone(), n.to_string())) {
            self.config.notices.push((at, n));
        }
    }

    /// Warn that `what` (at `at`) never fires, and `why`.
    fn ignored(&mut self, at: Place, what: String, why: String) {
        self.notice(at, Notice::Ignored { what, why });
    }
}

/// A setting: the section it is in and its value.
type Setting<'n> = (&'n str, &'n Node);

/// The `key` setting LiteLLM uses: `router_settings`' when `set`, else `litellm_settings`'
/// (`Router(fallbacks=...) or litellm.fallbacks`); a second one that is set is a warning.
/// Returns every section's value and the one used.
fn chosen<'n>(
    out: &mut Out,
    sections: &[(&'n str, &'n Node)],
    key: &str,
    set: &dyn Fn(&Node) -> bool,
) -> (Vec<Setting<'n>>, Option<Setting<'n>>) {
    let found: Vec<(&str, &Node)> = sections
        .iter()
        .filter_map(|(s, sec)| sec.get(key).map(|n| (*s, n)))
        .collect();
    let winner = found.iter().position(|(_, n)| set(n));
    if let Some(w) = winner {
        for (s, n) in found.iter().skip(w + 1).filter(|(_, n)| set(n)) {
            out.ignored(
                Place::of(n),
                format!("{s}.{key}"),
                format!(
                    "LiteLLM uses {}.{key} (router_settings win over litellm_settings)",
                    found[w].0
                ),
            );
        }
    }
    let used = winner.map(|w| found[w]);
    (found, used)
}

#[cfg(test)]
mod tests {
    use super::model_list::deployment;
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
        // `anthropic/claude-opus-5` is a price-table id no deployment uses: the router finds
        // no deployment for it. `openai/gpt-6-astra` is `c`'s litellm model: it fires, to `c`.
        let text = format!(
            "{LIST}litellm_settings:\n  fallbacks:\n    - a:\n        - anthropic/claude-opus-5\n        - nowhere\n        - openai/gpt-6-astra\n    - ghost: [a]\n"
        );
        let c = read_str(&text).unwrap();
        assert_eq!(c.chains.len(), 1);
        let links: Vec<(&str, usize, usize)> = c.chains[0]
            .links
            .iter()
            .map(|l| {
                (
                    l.fallback.label.as_str(),
                    l.fallback.endpoints[0].line,
                    l.at.line,
                )
            })
            .collect();
        assert_eq!(links, vec![("openai/gpt-6-astra", 7, 13)]);
        let mut notices = c.notices.clone();
        notices.sort_by_key(|(at, _)| at.line);
        let msgs: Vec<String> = notices.iter().map(|(_, n)| n.to_string()).collect();
        assert!(msgs[0].contains("is a model id"), "{msgs:?}");
        assert!(
            msgs[1].contains("`nowhere` of `a` is not a model_name group"),
            "{msgs:?}"
        );
        assert!(msgs[2].contains("whose litellm_params.model is `openai/gpt-6-astra` (group `c`)"));
        assert!(msgs[3].contains("`ghost` has fallbacks but is not a model_name group"));
        assert_eq!(notices[0].0.line, 11);
    }

    #[test]
    fn weights_follow_simple_shuffle_and_bad_rates_are_errors() {
        let text = "model_list:
  - model_name: g
    litellm_params: {model: openai/gpt-6-sol, rpm: 100}
  - model_name: g
    litellm_params: {model: openai/gpt-6-luna, rpm: 300, weight: 9}
  - model_name: h
    litellm_params: {model: openai/gpt-6-sol}
  - model_name: h
    litellm_params: {model: openai/gpt-6-luna, weight: 9}
router_settings:
  fallbacks: [{\"g\": [\"h\"]}]
";
        let c = read_str(text).unwrap();
        // g's second deployment sets weight: LiteLLM's simple_shuffle takes weight when any
        // deployment sets it (the first counting 0), before rpm (tests/it/parity.rs pins this).
        let g = &c.chains[0].primary;
        assert_eq!(g.shares, Some(vec![0.0, 1.0]));
        assert_eq!(g.mix.as_deref(), Some("litellm_params.weight 0:9"));
        // h likewise: its first deployment sets none of the three, its second a weight.
        let h = &c.chains[0].links[0].fallback;
        assert_eq!(h.shares, Some(vec![0.0, 1.0]));
        assert_eq!(h.mix.as_deref(), Some("litellm_params.weight 0:9"));
        let other = format!("{text}  routing_strategy: latency-based-routing\n");
        let c = read_str(&other).unwrap();
        assert_eq!(c.chains[0].primary.shares, Some(vec![0.5, 0.5]));
        assert!(
            c.chains[0]
                .primary
                .mix
                .as_deref()
                .unwrap()
                .contains("latency-based-routing")
        );
        let bad = text.replace("rpm: 100", "rpm: -1");
        let e = read_str(&bad).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("model_list[0].litellm_params.rpm"));
        assert_eq!(e.location.unwrap().line, 3);
        let bad = format!("{text}  model_group_alias: [a]\n");
        let e = read_str(&bad).unwrap_err();
        assert_eq!(
            e.field.as_deref(),
            Some("router_settings.model_group_alias")
        );
    }

    #[test]
    fn a_wildcard_route_outside_any_chain_is_a_note() {
        let text = format!(
            "{LIST}  - model_name: \"anthropic/*\"\n    litellm_params: {{model: \"anthropic/*\"}}\nrouter_settings:\n  fallbacks: [{{\"a\": [\"b\"]}}]\n"
        );
        let c = read_str(&text).unwrap();
        let wild: Vec<&(Place, Notice)> = c
            .notices
            .iter()
            .filter(|(_, n)| n.kind() == "wildcard")
            .collect();
        assert_eq!(wild.len(), 1, "{:?}", c.notices);
        assert_eq!(wild[0].0.line, 9);
        assert!(!wild[0].1.is_warning());
        assert_eq!(
            wild[0].1.to_string(),
            "`anthropic/*` is a wildcard route, not a model: its price depends on the model requested, so it is not priced"
        );
    }

    #[test]
    fn star_entries_that_never_fire_are_warned_about() {
        let text = format!(
            "{LIST}router_settings:\n  fallbacks:\n    - \"*\": [b]\n    - \"*\": [c]\n  context_window_fallbacks: [{{\"*\": [c]}}]\n"
        );
        let c = read_str(&text).unwrap();
        let ignored: Vec<(usize, String)> = c
            .notices
            .iter()
            .filter(|(_, n)| n.kind() == "ignored")
            .map(|(at, n)| (at.line, n.to_string()))
            .collect();
        assert_eq!(
            ignored,
            vec![
                (
                    10,
                    "this `*` entry of router_settings.fallbacks never fires: LiteLLM uses the last `*` entry (line 11)".to_string()
                ),
                (
                    12,
                    "the `*` entry of router_settings.context_window_fallbacks never fires: LiteLLM applies `*` (and default_fallbacks) to `fallbacks` only".to_string()
                ),
            ]
        );
        // Every group without its own entry falls back to the last `*`: c.
        let b = c.chains.iter().find(|ch| ch.primary.label == "b").unwrap();
        assert_eq!(b.links[0].fallback.label, "c");
    }

    #[test]
    fn max_fallbacks_zero_means_no_fallbacks_and_must_be_a_whole_number() {
        let text = format!(
            "{LIST}router_settings:\n  max_fallbacks: 0\n  fallbacks: [{{\"a\": [\"b\"]}}]\n"
        );
        let c = read_str(&text).unwrap();
        assert!(c.chains[0].links.is_empty());
        let text = format!("{LIST}litellm_settings:\n  max_fallbacks: -1\n  fallbacks: []\n");
        let e = read_str(&text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:9:18: litellm_settings.max_fallbacks: expected a whole number >= 0; got -1"
        );
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
            NodeValue::Seq(s) => s.clone(),
            _ => unreachable!(),
        };
        let ep = deployment("c.yaml", &items[0], "model_list[0]", &Env::default()).unwrap();
        assert_eq!(ep.provider.as_deref(), Some("api_base vllm.internal:8000"));
        // litellm_params wins where both set a price, as LiteLLM bills it (the recorded
        // tests/fixtures/parity/prices-both.yaml); model_info fills what it leaves out.
        assert_eq!(ep.price_override.input, Some(1.0), "litellm_params wins");
        assert_eq!(ep.price_override.output, Some(0.0));
        assert!(ep.note.unwrap().contains("http://vllm.internal:8000/v1"));
    }
}
