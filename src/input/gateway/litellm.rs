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
//! `get_fallback_model_group`, `run_async_fallback`; each answer is tested in `tests/check.rs`):
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

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use super::{Config, Endpoint, Group, Node, Notice, Place, PriceOverride, Route, RouteLink, Value};
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
        Value::Map(entries) => entries.iter().any(|(k, _)| {
            k.as_str()
                .is_some_and(|k| crate::input::suggest::near_miss(k, ROOT_READ, 2, 2).is_some())
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

/// Whether `root` has LiteLLM's `include` and one of its sections (`model_list`,
/// `router_settings`, `litellm_settings`, `general_settings`): a config whose includes are to be
/// followed before it is recognised (a GitLab CI file's `include` is not one).
pub fn includes_files(root: &Node) -> bool {
    root.get("include").is_some()
        && [
            "model_list",
            "router_settings",
            "litellm_settings",
            "general_settings",
        ]
        .iter()
        .any(|k| root.get(k).is_some())
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

/// Follow LiteLLM's `include`: each file it lists (relative to `dir`, the config's folder) is read
/// and merged into `root` as LiteLLM's proxy merges it: a list extends the config's list of the
/// same key, anything else replaces the key. The included values remember their file, so
/// findings name it. (LiteLLM does not follow an included file's own `include`.)
///
/// Errors: `include` that is not a list of file names; an included file that cannot be read
/// (naming `file` and the `include` line) or parsed (naming the included file), or that is not a
/// mapping.
pub fn resolve_includes(file: &str, dir: &Path, mut root: Node) -> Result<Node, InputError> {
    let Value::Map(entries) = &mut root.value else {
        return Ok(root);
    };
    let Some(at) = entries
        .iter()
        .position(|(k, _)| k.as_str() == Some("include"))
    else {
        return Ok(root);
    };
    let (_, list) = entries.remove(at);
    let schema = |node: &Node, field: String, message: String| {
        node.error(file, InputErrorKind::Schema, field, message)
    };
    let items = match list.value {
        Value::Seq(items) => items,
        Value::Null => Vec::new(),
        _ => {
            return Err(schema(
                &list,
                "include".into(),
                format!(
                    "expected a list of YAML files, e.g. [models.yaml]; got {} (LiteLLM refuses it)",
                    list.kind()
                ),
            ));
        }
    };
    for (i, item) in items.iter().enumerate() {
        let field = format!("include[{i}]");
        let Some(name) = item.as_str() else {
            return Err(schema(
                item,
                field,
                format!("expected a file name; got {}", item.kind()),
            ));
        };
        let path = dir.join(name);
        let shown = crate::input::shown_path(&path);
        let text = crate::input::read_text(&path).map_err(|e| {
            item.error(
                file,
                InputErrorKind::Read,
                field.clone(),
                format!(
                    "cannot read included file `{name}` ({shown}): {}; LiteLLM refuses to start without it",
                    e.message
                ),
            )
        })?;
        python_syntax(&shown, &text)?;
        let Some(mut included) = super::parse_yaml(&shown, &text)? else {
            continue;
        };
        included.set_file(&Arc::from(shown.as_str()));
        let Value::Map(more) = included.value else {
            return Err(schema(
                item,
                field,
                format!(
                    "{shown} holds {}, not a mapping of config sections",
                    included.kind()
                ),
            ));
        };
        for (k, v) in more {
            let existing = entries.iter_mut().find(|(ek, _)| ek.value == k.value);
            match (existing, v.value) {
                (Some((_, old)), Value::Seq(extra)) if matches!(old.value, Value::Seq(_)) => {
                    if let Value::Seq(items) = &mut old.value {
                        items.extend(extra);
                    }
                }
                (Some(slot), value) => *slot = (k, Node { value, ..v }),
                (None, value) => entries.push((k, Node { value, ..v })),
            }
        }
    }
    Ok(root)
}

/// One declared fallback entry: a group (or `*`) and the groups it falls back to.
struct Entry<'n> {
    /// The group, as written.
    key: &'n str,
    /// Where the key is.
    at: Place,
    /// The fallbacks, each with its place.
    targets: Vec<(&'n str, Place)>,
}

/// One kind of fallback list as LiteLLM acts on it: `get_fallback_model_group` for `fallbacks`
/// (exact key, else the key without the provider prefix, else `*`), an exact key only for the
/// other kinds.
struct Lists<'n> {
    /// The effective list's field, e.g. `router_settings.fallbacks`.
    field: String,
    entries: Vec<Entry<'n>>,
    /// The first entry of each key (exact matches stop there).
    first: HashMap<&'n str, usize>,
    /// The last entry of each key (a stripped match keeps looking).
    last: HashMap<&'n str, usize>,
    /// The `*` fallbacks and the field they come from (`default_fallbacks` or `fallbacks["*"]`).
    star: Option<(Entry<'n>, String)>,
    /// Whether stripped keys and `*` apply (`fallbacks` only).
    generic: bool,
}

impl<'n> Lists<'n> {
    /// The entry LiteLLM uses for `group`, with the field it is declared in.
    fn lookup(&self, group: &str, providers: &Providers) -> Option<(&Entry<'n>, &str)> {
        if let Some(&i) = self.first.get(group) {
            return Some((&self.entries[i], &self.field));
        }
        if !self.generic {
            return None;
        }
        if let Some(&i) = providers.strip(group).and_then(|bare| self.last.get(bare)) {
            return Some((&self.entries[i], &self.field));
        }
        self.star.as_ref().map(|(e, field)| (e, field.as_str()))
    }
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
    // A near miss of a key fallcost reads would silently drop prices or fallbacks.
    root.refuse_near_misses(file, "", ROOT_READ, ROOT_KEYS, 2, 2)?;
    // Fallback settings at the top level are never read by LiteLLM: the chain would not exist.
    if let Value::Map(entries) = &root.value {
        for (k, _) in entries {
            if let Some(key) = k.as_str().filter(|k| FALLBACK_SETTINGS.contains(k)) {
                return Err(k.error(
                    file,
                    InputErrorKind::Schema,
                    key,
                    format!(
                        "a top-level `{key}` is never read by LiteLLM; it belongs under router_settings (or litellm_settings)"
                    ),
                ));
            }
        }
    }
    for section in SECTIONS {
        if let Some(node) = root.get(section) {
            node.refuse_near_misses(file, section, FALLBACK_SETTINGS, SETTINGS_KEYS, 2, 2)?;
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
            &[],
            2,
            2,
        )?;
    }
    let models = ModelList::read(file, root)?;
    let sections: Vec<(&str, &Node)> = SECTIONS
        .iter()
        .filter_map(|s| root.get(s).map(|n| (*s, n)))
        .collect();
    for (section, sec) in &sections {
        if !matches!(sec.value, Value::Map(_) | Value::Null) {
            return Err(sec.error(
                file,
                InputErrorKind::Schema,
                *section,
                format!("expected a mapping of settings; got {}", sec.kind()),
            ));
        }
    }

    let mut out = Out::default();
    let chosen =
        |out: &mut Out, key: &str, set: &dyn Fn(&Node) -> bool| chosen(out, &sections, key, set);
    let non_empty = |n: &Node| match &n.value {
        Value::Null => false,
        Value::Seq(items) => !items.is_empty(),
        _ => true,
    };

    // max_fallbacks
    let (_, max) = chosen(&mut out, "max_fallbacks", &|n| n.value != Value::Null);
    let max_fallbacks = match max {
        None => DEFAULT_MAX_FALLBACKS,
        Some((s, n)) => match n.value {
            Value::Int(i) if i >= 0 => usize::try_from(i).unwrap_or(usize::MAX),
            _ => {
                return Err(n.error(
                    file,
                    InputErrorKind::Invalid,
                    format!("{s}.max_fallbacks"),
                    format!("expected a whole number >= 0; got {}", n.describe()),
                ));
            }
        },
    };

    // default_fallbacks: LiteLLM appends them to fallbacks as a "*" entry.
    let (all_defaults, defaults) = chosen(&mut out, "default_fallbacks", &non_empty);
    for (s, d) in &all_defaults {
        let field = format!("{s}.default_fallbacks");
        if d.value != Value::Null && string_list(file, d, &field)?.is_empty() {
            out.notice(Place::of(d), Notice::Empty { what: field });
        }
    }
    let mut star_default = match defaults {
        Some((s, d)) => Some((
            Entry {
                key: "*",
                at: Place::of(d),
                targets: string_list(file, d, &format!("{s}.default_fallbacks"))?,
            },
            format!("{s}.default_fallbacks"),
        )),
        None => None,
    };

    let providers = Providers(
        PROVIDERS
            .iter()
            .copied()
            .chain(prices.models.values().map(|m| m.provider.as_str()))
            .collect(),
    );
    let mut wild_in_chain: BTreeSet<String> = BTreeSet::new();

    for kind in FALLBACK_KEYS {
        let (all, effective) = chosen(&mut out, kind, &non_empty);
        let generic = *kind == "fallbacks";
        let mut lists = None;
        for (section, list) in &all {
            let field = format!("{section}.{kind}");
            let parsed = parse_list(file, list, &field, kind, &mut out)?;
            if effective.is_some_and(|(s, _)| s == *section) {
                lists = parsed.map(|entries| Lists::new(field, entries, generic));
            }
        }
        let mut lists = lists
            .unwrap_or_else(|| Lists::new(format!("router_settings.{kind}"), Vec::new(), generic));
        if generic {
            // The "*" LiteLLM uses is the last one: default_fallbacks, appended after the list.
            if let Some((entry, field)) = star_default.take() {
                if let Some((old, _)) = &lists.star {
                    out.ignored(
                        old.at.clone(),
                        format!("the `*` entry of {}", lists.field),
                        format!(
                            "LiteLLM appends {field} after it as a later `*` entry, which wins"
                        ),
                    );
                }
                lists.star = Some((entry, field));
            }
        }
        if lists.entries.is_empty() && lists.star.is_none() {
            continue;
        }
        // Keys that no group uses and that name nothing the router resolves (an alias, a
        // deployment's litellm_params.model or model_info.id): LiteLLM never fires them.
        let used: HashSet<&str> = models
            .groups
            .iter()
            .filter_map(|(g, _)| {
                if lists.first.contains_key(g.as_str()) {
                    Some(g.as_str())
                } else if generic {
                    providers.strip(g).filter(|b| lists.last.contains_key(b))
                } else {
                    None
                }
            })
            .collect();
        let mut unused: Vec<(&str, usize)> = lists
            .first
            .iter()
            .filter(|(k, _)| !used.contains(*k))
            .map(|(k, i)| (*k, *i))
            .collect();
        unused.sort_by_key(|(_, i)| *i);
        // The requests LiteLLM looks fallbacks up for: every group, then every other key the
        // router resolves (`async_function_with_fallbacks_common_utils` looks fallbacks up by
        // the model name as requested, before `_get_model_from_alias`).
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
                        model_id: models.is_model_id(key, prices),
                    },
                ),
            }
        }
        for (at, cycle, more) in loops(&models, &lists, &providers) {
            out.notice(at, Notice::Loop { cycle, more });
        }
        for name in &primaries {
            let Some((entry, field)) = lists.lookup(name, &providers) else {
                continue;
            };
            if models.wildcard.contains(name) {
                wild_in_chain.insert(name.clone());
                out.notice(
                    entry.at.clone(),
                    Notice::Wildcard {
                        name: name.clone(),
                        primary: None,
                        in_chain: true,
                    },
                );
                continue;
            }
            let Some(primary) = models.resolve(name) else {
                continue;
            };
            let mut links = Vec::new();
            let resolves = |g: &str| models.resolve(g).is_some();
            for r in walk(name, &lists, &providers, max_fallbacks, &resolves) {
                if models.wildcard.contains(r.to) {
                    wild_in_chain.insert(r.to.to_string());
                    out.notice(
                        r.at,
                        Notice::Wildcard {
                            name: r.to.to_string(),
                            primary: Some(name.clone()),
                            in_chain: true,
                        },
                    );
                } else if let Some(resolved) = models.resolve(r.to) {
                    let from = models.resolve(r.from);
                    if let Some(how) = &resolved.how {
                        out.notice(
                            r.at.clone(),
                            Notice::Resolved {
                                name: r.to.to_string(),
                                primary: Some(r.from.to_string()),
                                how: how.clone(),
                            },
                        );
                    }
                    if let Some(from) = from
                        && same_deployments(&from.group, &resolved.group)
                    {
                        out.notice(
                            r.at.clone(),
                            Notice::SameDeployment {
                                primary: r.from.to_string(),
                                fallback: r.to.to_string(),
                            },
                        );
                    }
                    links.push(RouteLink {
                        fallback: resolved.group,
                        at: r.at,
                        via: r.via,
                    });
                } else {
                    // A default fallback is named once, not once per group it applies to.
                    let from = match lists.lookup(r.from, &providers) {
                        Some((e, field)) if e.key == "*" => field.to_string(),
                        _ => r.from.to_string(),
                    };
                    let model_id = models.is_model_id(r.to, prices);
                    out.notice(
                        r.at,
                        Notice::NotAGroup {
                            name: r.to.to_string(),
                            primary: Some(from),
                            model_id,
                        },
                    );
                }
            }
            if links.is_empty() && entry.key == "*" {
                // Only itself among the defaults: no chain.
                continue;
            }
            out.config.chains.push(Route {
                name: format!("{name} ({field})"),
                at: entry.at.clone(),
                primary: primary.group,
                links,
            });
        }
    }
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

/// The provider prefixes LiteLLM strips from a group name to find its fallbacks.
struct Providers<'p>(HashSet<&'p str>);

impl Providers<'_> {
    /// `group` without its provider prefix (`anthropic/claude-sonnet-5` → `claude-sonnet-5`), as
    /// `_check_stripped_model_group` matches it; `None` when it has none.
    fn strip<'g>(&self, group: &'g str) -> Option<&'g str> {
        group
            .split_once('/')
            .filter(|(p, _)| self.0.contains(p))
            .map(|(_, bare)| bare)
    }
}

impl<'n> Lists<'n> {
    fn new(field: String, entries: Vec<Entry<'n>>, generic: bool) -> Lists<'n> {
        let (mut first, mut last) = (HashMap::new(), HashMap::new());
        let mut star = None;
        let mut kept = Vec::new();
        for e in entries {
            if e.key == "*" {
                if generic {
                    star = Some(e);
                }
                continue;
            }
            first.entry(e.key).or_insert(kept.len());
            last.insert(e.key, kept.len());
            kept.push(e);
        }
        let star = star.map(|e| (e, format!("{field}[\"*\"]")));
        Lists {
            field,
            entries: kept,
            first,
            last,
            star,
            generic,
        }
    }
}

/// Parse one fallbacks list (`None` when it is null). Warns about what LiteLLM never reads:
/// a later entry for the same group, an earlier `*` entry, a second key of a
/// `context_window_fallbacks` entry; notes empty lists and self-fallbacks.
///
/// Errors: not a list of `{group: [groups]}` maps; a `fallbacks` or `content_policy_fallbacks`
/// entry without exactly one key (LiteLLM's router refuses it at startup).
fn parse_list<'n>(
    file: &str,
    list: &'n Node,
    field: &str,
    kind: &str,
    out: &mut Out,
) -> Result<Option<Vec<Entry<'n>>>, InputError> {
    let schema = |node: &Node, field: String, message: String| {
        node.error(file, InputErrorKind::Schema, field, message)
    };
    let items = match &list.value {
        Value::Null => return Ok(None),
        Value::Seq(items) => items,
        _ => {
            return Err(schema(
                list,
                field.to_string(),
                format!(
                    "expected a list of {{group: [fallback groups]}} maps, e.g. [{{\"a\": [\"b\"]}}]; got {}",
                    list.kind()
                ),
            ));
        }
    };
    if items.is_empty() {
        out.notice(
            Place::of(list),
            Notice::Empty {
                what: field.to_string(),
            },
        );
    }
    let validated = kind != "context_window_fallbacks";
    let mut entries: Vec<Entry> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let Value::Map(pairs) = &item.value else {
            return Err(schema(
                item,
                at,
                format!(
                    "expected a {{group: [fallback groups]}} map; got {}",
                    item.kind()
                ),
            ));
        };
        let Some((k, v)) = pairs.first() else {
            return Err(schema(
                item,
                at,
                "expected a {group: [fallback groups]} map with one key; got an empty mapping"
                    .into(),
            ));
        };
        if let Some((extra, _)) = pairs.get(1) {
            let name = extra
                .as_str()
                .map_or_else(|| extra.describe(), str::to_string);
            if validated {
                return Err(schema(
                    extra,
                    at,
                    format!(
                        "a {field} entry has exactly one key; this one also has `{name}` (LiteLLM's router refuses the config: \"must have exactly one key\"); give `{name}` its own `- {name}: [...]` item"
                    ),
                ));
            }
            for (extra, _) in &pairs[1..] {
                let name = extra
                    .as_str()
                    .map_or_else(|| extra.describe(), str::to_string);
                out.ignored(
                    Place::of(extra),
                    format!("`{name}` in {at}"),
                    format!(
                            "LiteLLM reads only the first key of each entry; give `{name}` its own `- {name}: [...]` item"
                        ),
                );
            }
        }
        let Some(from) = k.as_str() else {
            return Err(schema(
                k,
                at,
                format!("expected a group name as key; got {}", k.kind()),
            ));
        };
        let targets = string_list(file, v, &format!("{at}.{from}"))?;
        if targets.is_empty() {
            out.notice(
                Place::of(v),
                Notice::Empty {
                    what: format!("{field} of `{from}`"),
                },
            );
        }
        if from != "*" {
            if let Some(&j) = seen.get(from) {
                out.ignored(
                    Place::of(k),
                    format!("this {field} entry for `{from}`"),
                    format!(
                        "LiteLLM uses the first entry for a group (line {}); merge the two",
                        entries[j].at.line
                    ),
                );
            } else {
                seen.insert(from, entries.len());
            }
            for (to, at) in &targets {
                if *to == from {
                    out.notice(
                        at.clone(),
                        Notice::SelfFallback {
                            group: from.to_string(),
                        },
                    );
                }
            }
        } else if kind != "fallbacks" {
            out.ignored(
                Place::of(k),
                format!("the `*` entry of {field}"),
                "LiteLLM applies `*` (and default_fallbacks) to `fallbacks` only".into(),
            );
        } else if let Some(prev) = entries.iter().rev().find(|e| e.key == "*") {
            out.ignored(
                prev.at.clone(),
                format!("this `*` entry of {field}"),
                format!("LiteLLM uses the last `*` entry (line {})", k.line),
            );
        }
        entries.push(Entry {
            key: from,
            at: Place::of(k),
            targets,
        });
    }
    Ok(Some(entries))
}

/// A fallback reached by a walk.
struct Reached<'n> {
    /// The group whose fallback it is.
    from: &'n str,
    /// The fallback.
    to: &'n str,
    /// Where `from -> to` is declared.
    at: Place,
    /// The groups between the primary and `to`.
    via: Vec<String>,
}

/// Every fallback LiteLLM can try after `primary` fails, each once, on its path with the lowest
/// fallback depth (then the fewest hops, then declaration order). LiteLLM's `run_async_fallback`
/// tries a group's fallbacks in order, adding one to the depth for each (a group's fallback to
/// itself is skipped without counting), and tries a fallback's own fallbacks only while its depth
/// is below `max_fallbacks`. Only names the router resolves (`resolves`) go on to their own
/// fallbacks. Cost: each
/// group is expanded at most once, so O(edges log groups) per primary.
fn walk<'n>(
    primary: &'n str,
    lists: &Lists<'n>,
    providers: &Providers,
    max_fallbacks: usize,
    resolves: &dyn Fn(&str) -> bool,
) -> Vec<Reached<'n>> {
    let mut best: HashMap<&str, (usize, usize)> = HashMap::from([(primary, (0, 0))]);
    let mut parent: HashMap<&str, (&str, Place)> = HashMap::new();
    let mut done: HashSet<&str> = HashSet::new();
    let mut heap = BinaryHeap::from([Reverse((0usize, 0usize, 0usize, primary))]);
    let mut seq = 0;
    let mut out = Vec::new();
    while let Some(Reverse((depth, hops, _, u))) = heap.pop() {
        if best.get(u) != Some(&(depth, hops)) || !done.insert(u) {
            continue;
        }
        if let Some((from, at)) = parent.get(u) {
            let mut via = Vec::new();
            let mut g = *from;
            while g != primary {
                via.push(g.to_string());
                g = parent[g].0;
            }
            via.reverse();
            out.push(Reached {
                from,
                to: u,
                at: at.clone(),
                via,
            });
        }
        if depth >= max_fallbacks || !resolves(u) {
            continue;
        }
        let Some((entry, _)) = lists.lookup(u, providers) else {
            continue;
        };
        let mut tried = 0;
        for (v, at) in &entry.targets {
            if *v == u {
                continue;
            }
            tried += 1;
            let next = (depth + tried, hops + 1);
            if done.contains(v) || best.get(v).is_some_and(|b| *b <= next) {
                continue;
            }
            best.insert(v, next);
            parent.insert(v, (u, at.clone()));
            seq += 1;
            heap.push(Reverse((next.0, next.1, seq, v)));
        }
    }
    out
}

/// The loops of one kind of fallbacks: for each set of groups that fall back to each other
/// (a strongly connected set of two or more), the shortest cycle through its first group by
/// name, with where its closing link is declared and how many groups of the set it leaves out.
fn loops(
    models: &ModelList,
    lists: &Lists,
    providers: &Providers,
) -> Vec<(Place, Vec<String>, usize)> {
    let n = models.groups.len();
    let edges: Vec<Vec<(usize, Place)>> = models
        .groups
        .iter()
        .map(|(g, _)| {
            lists
                .lookup(g, providers)
                .map(|(e, _)| {
                    e.targets
                        .iter()
                        .filter(|(t, _)| t != g)
                        .filter_map(|(t, at)| models.index.get(*t).map(|&j| (j, at.clone())))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    // Tarjan's strongly connected components, iteratively.
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut sccs, mut next) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some((w, _)) = edges[v].get(*i) {
                *i += 1;
                let w = *w;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(p, _)) = work.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    sccs.push(scc);
                }
            }
        }
    }
    let name = |i: usize| models.groups[i].0.clone();
    let mut out = Vec::new();
    for scc in sccs {
        let members: HashSet<usize> = scc.iter().copied().collect();
        let start = *scc
            .iter()
            .min_by_key(|&&i| &models.groups[i].0)
            .expect("not empty");
        // Breadth-first from `start` within the set, until a link back to it.
        let mut prev: HashMap<usize, usize> = HashMap::from([(start, start)]);
        let mut queue = std::collections::VecDeque::from([start]);
        let mut closing = None;
        'bfs: while let Some(v) = queue.pop_front() {
            for (w, at) in &edges[v] {
                if *w == start {
                    closing = Some((v, at.clone()));
                    break 'bfs;
                }
                if members.contains(w) && !prev.contains_key(w) {
                    prev.insert(*w, v);
                    queue.push_back(*w);
                }
            }
        }
        let Some((last, at)) = closing else { continue };
        let mut cycle = vec![name(start)];
        let mut path = vec![last];
        while *path.last().expect("a path") != start {
            let p = prev[path.last().expect("a path")];
            path.push(p);
        }
        path.pop();
        path.reverse();
        cycle.extend(path.into_iter().map(name));
        cycle.push(name(start));
        let more = scc.len() - (cycle.len() - 1);
        out.push((at, cycle, more));
    }
    out
}

/// The `model_list` of a config: its groups in file order.
struct ModelList {
    /// Each group with its deployments.
    groups: Vec<(String, Vec<Endpoint>)>,
    /// Each deployment's routing rates, as `groups` (see [`Rates`]).
    rates: Vec<Vec<Rates>>,
    /// Where each group is in `groups`.
    index: HashMap<String, usize>,
    /// Every `litellm_params.model` and `base_model` named.
    model_ids: BTreeSet<String>,
    /// The deployments of each `litellm_params.model` as written (group, deployment), in file
    /// order: what `Router._get_deployment_by_litellm_model` finds for a name that is no group.
    by_litellm_model: HashMap<String, Vec<(usize, usize)>>,
    /// The deployment of each `model_info.id` (group, deployment): `Router.has_model_id`.
    by_id: HashMap<String, (usize, usize)>,
    /// `router_settings.model_group_alias`: each alias, the name it stands for and where.
    aliases: HashMap<String, (String, Place)>,
    /// How a group of several deployments splits its traffic: `None` for LiteLLM's default
    /// `simple-shuffle` (weights), else the `routing_strategy` (equal shares assumed).
    strategy: Option<String>,
    /// Wildcard routes (`openai/*`): groups whose name or model has a `*`.
    wildcard: BTreeSet<String>,
    /// Where each wildcard route is declared.
    wildcard_at: Vec<(String, Place)>,
}

/// A deployment's `litellm_params.weight`, `rpm` and `tpm`, which LiteLLM's `simple_shuffle`
/// (`litellm/router_strategy/simple_shuffle.py`) picks deployments by: the first of the three
/// that the group's first deployment sets, a deployment without it counting 0.
#[derive(Debug, Clone, Copy, Default)]
struct Rates {
    weight: Option<f64>,
    rpm: Option<f64>,
    tpm: Option<f64>,
}

/// One of a deployment's [`Rates`].
type RateOf = fn(&Rates) -> Option<f64>;

/// How a name in a fallback list (or a request) reaches deployments, when it is not simply a
/// `model_name` group: LiteLLM's `Router._common_checks_available_deployment`
/// (`litellm/router.py`) tries a `model_info.id`, then `model_group_alias`, then the group, then
/// the deployments whose `litellm_params.model` is the name.
struct Resolved {
    group: Group,
    /// How the name was resolved, for the note; `None` for a group named as such.
    how: Option<String>,
}

impl ModelList {
    fn read(file: &str, root: &Node) -> Result<ModelList, InputError> {
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
        };
        list.read_router_settings(file, root)?;
        let items = match root.get("model_list").map(|n| (n, &n.value)) {
            None | Some((_, Value::Null)) => return Ok(list),
            Some((_, Value::Seq(items))) => items,
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
            let name = match item.get("model_name") {
                Some(n) => n
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| match n.value {
                        Value::Int(x) => Some(x.to_string()),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        n.error(
                            file,
                            InputErrorKind::Schema,
                            format!("{at}.model_name"),
                            format!("expected a group name; got {}", n.kind()),
                        )
                    })?,
                None => {
                    return Err(item.error(
                        file,
                        InputErrorKind::Schema,
                        at,
                        "a deployment needs `model_name` (its group) and `litellm_params.model`",
                    ));
                }
            };
            let endpoint = deployment(file, item, &at)?;
            let params = item.get("litellm_params");
            let raw = params
                .and_then(|p| p.get("model"))
                .and_then(Node::as_str)
                .unwrap_or_default();
            let rates = rates(file, params, &at)?;
            let id = item
                .get("model_info")
                .and_then(|m| m.get("id"))
                .and_then(|n| {
                    n.as_str().map(str::to_string).or(match n.value {
                        Value::Int(x) => Some(x.to_string()),
                        _ => None,
                    })
                });
            if (name.contains('*') || raw.contains('*')) && list.wildcard.insert(name.clone()) {
                list.wildcard_at.push((
                    name.clone(),
                    Place {
                        file: endpoint.file.clone(),
                        line: endpoint.line,
                    },
                ));
            }
            list.model_ids.insert(endpoint.model.clone());
            list.model_ids.insert(raw.to_string());
            let g = match list.index.get(&name) {
                Some(&g) => g,
                None => {
                    list.index.insert(name.clone(), list.groups.len());
                    list.groups.push((name, Vec::new()));
                    list.rates.push(Vec::new());
                    list.groups.len() - 1
                }
            };
            let d = list.groups[g].1.len();
            list.groups[g].1.push(endpoint);
            list.rates[g].push(rates);
            list.by_litellm_model
                .entry(raw.to_string())
                .or_default()
                .push((g, d));
            if let Some(id) = id {
                list.by_id.entry(id).or_insert((g, d));
            }
        }
        Ok(list)
    }

    /// `router_settings.model_group_alias` (`{alias: group}` or `{alias: {model: group,
    /// hidden: bool}}`, as `Router._get_model_from_alias` reads it) and `routing_strategy`.
    ///
    /// Errors: a `model_group_alias` that is not such a mapping.
    fn read_router_settings(&mut self, file: &str, root: &Node) -> Result<(), InputError> {
        let Some(rs) = root.get("router_settings") else {
            return Ok(());
        };
        if let Some(s) = rs.get("routing_strategy").and_then(Node::as_str)
            && s != "simple-shuffle"
        {
            self.strategy = Some(s.to_string());
        }
        let Some(aliases) = rs.get("model_group_alias") else {
            return Ok(());
        };
        let entries = match &aliases.value {
            Value::Null => return Ok(()),
            Value::Map(entries) => entries,
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

    /// The group `name`, if `model_list` has it.
    fn group(&self, name: &str) -> Option<Group> {
        self.index
            .get(name)
            .map(|&g| self.mixed(name, (0..self.groups[g].1.len()).map(|d| (g, d)).collect()))
    }

    /// The deployments `members` as one step labelled `label`, with the traffic shares
    /// LiteLLM's `simple_shuffle` gives them (`weight`, else `rpm`, else `tpm`, by the first
    /// deployment; else equal shares), or equal shares under another `routing_strategy`.
    fn mixed(&self, label: &str, members: Vec<(usize, usize)>) -> Group {
        let endpoints: Vec<Endpoint> = members
            .iter()
            .map(|&(g, d)| self.groups[g].1[d].clone())
            .collect();
        let rates: Vec<Rates> = members.iter().map(|&(g, d)| self.rates[g][d]).collect();
        let n = endpoints.len();
        let equal = || (vec![1.0 / n as f64; n], "equal shares".to_string());
        let (shares, mix) = match (&self.strategy, rates.first()) {
            (Some(s), _) if n > 1 => {
                let (sh, _) = equal();
                (
                    sh,
                    format!(
                        "equal shares assumed: routing_strategy `{s}` picks by live state, not weights"
                    ),
                )
            }
            (_, Some(first)) => {
                let pick: Option<(&str, RateOf)> = if first.weight.is_some() {
                    Some(("weight", |r| r.weight))
                } else if first.rpm.is_some() {
                    Some(("rpm", |r| r.rpm))
                } else if first.tpm.is_some() {
                    Some(("tpm", |r| r.tpm))
                } else {
                    None
                };
                match pick {
                    Some((key, get)) => {
                        let w: Vec<f64> = rates.iter().map(|r| get(r).unwrap_or(0.0)).collect();
                        let total: f64 = w.iter().sum();
                        if total > 0.0 {
                            let shown: Vec<String> = w.iter().map(|x| format!("{x}")).collect();
                            (
                                w.iter().map(|x| x / total).collect(),
                                format!("litellm_params.{key} {}", shown.join(":")),
                            )
                        } else {
                            equal()
                        }
                    }
                    None => equal(),
                }
            }
            (_, None) => equal(),
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
    fn resolve(&self, name: &str) -> Option<Resolved> {
        if let Some(&(g, d)) = self.by_id.get(name) {
            let mut group = self.mixed(name, vec![(g, d)]);
            group.label = name.to_string();
            return Some(Resolved {
                group,
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
    fn resolve_name(&self, name: &str) -> Option<Resolved> {
        if let Some(group) = self.group(name) {
            return Some(Resolved { group, how: None });
        }
        let members = self.by_litellm_model.get(name)?;
        let mut groups: Vec<&str> = Vec::new();
        for &(g, _) in members {
            if !groups.contains(&self.groups[g].0.as_str()) {
                groups.push(&self.groups[g].0);
            }
        }
        Some(Resolved {
            group: self.mixed(name, members.clone()),
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

    /// Whether `name` is a model id (of a deployment, or in the price table) rather than a name
    /// that is nothing at all.
    fn is_model_id(&self, name: &str, prices: &PriceTable) -> bool {
        self.model_ids.contains(name) || prices.get(name).is_some()
    }
}

/// A list of group names, each with its place.
fn string_list<'n>(
    file: &str,
    node: &'n Node,
    field: &str,
) -> Result<Vec<(&'n str, Place)>, InputError> {
    let Value::Seq(items) = &node.value else {
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

/// One `model_list` entry as an endpoint.
fn deployment(file: &str, item: &Node, at: &str) -> Result<Endpoint, InputError> {
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
        if base.starts_with("os.environ/") {
            // Read from the environment when the proxy starts (LiteLLM's `get_secret`): the
            // config does not say where it points, so the model's own provider is the failure
            // domain, not the variable's name.
            note = Some(format!(
                "`{model}` takes its api_base from the environment ({base}): judged as provider `{p}`; if it points elsewhere, the price and the failure domain may differ"
            ));
        } else if host != "api.openai.com" {
            provider = Some(format!("api_base {host}"));
            note = Some(format!(
                "`{model}` is served through api_base {base}, not by OpenAI"
            ));
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
        file: model_node.file.as_deref().map(str::to_string),
        line: model_node.line,
        col: model_node.col,
        deployment: Some(params.canonical()),
        served: None,
    })
}

/// A deployment's routing rates (`litellm_params.weight`, `rpm`, `tpm`).
///
/// Errors: a rate that is not a finite number >= 0.
fn rates(file: &str, params: Option<&Node>, at: &str) -> Result<Rates, InputError> {
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
        if v.value == Value::Null {
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

/// Whether every deployment of `fallback` is one of `primary`'s (identical `litellm_params`):
/// the fallback sends the request where the primary already sent it.
fn same_deployments(primary: &Group, fallback: &Group) -> bool {
    !fallback.endpoints.is_empty()
        && fallback.endpoints.iter().all(|f| {
            f.deployment.is_some()
                && primary
                    .endpoints
                    .iter()
                    .any(|p| p.deployment == f.deployment)
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
        assert!(msgs[1].contains("`nowhere` of `a` is not a model_name group"));
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
        // g's first deployment sets rpm, not weight: rpm decides (100:300), weight is not read.
        let g = &c.chains[0].primary;
        assert_eq!(g.shares, Some(vec![0.25, 0.75]));
        assert_eq!(g.mix.as_deref(), Some("litellm_params.rpm 100:300"));
        // h's first deployment sets none of the three: equal shares.
        let h = &c.chains[0].links[0].fallback;
        assert_eq!(h.shares, Some(vec![0.5, 0.5]));
        assert_eq!(h.mix.as_deref(), Some("equal shares"));
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
