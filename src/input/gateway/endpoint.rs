//! A gateway endpoint priced from a price table: the table's entry for the model the config
//! names (never another provider's), with the config's own prices winning field by field.
//! `check` judges the result ([`crate::check::price_endpoint`]); `compare --config` takes the
//! table id ([`super::price`]).

use super::Endpoint;
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::prices::provider_family;
use crate::model::{Caching, ModelPrice, PriceTable};

/// One endpoint's price and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointPrice {
    /// The price, USD per token (list prices; the request's tier is applied by the caller).
    pub price: ModelPrice,
    /// The price table's key, `config` for prices the config sets itself, or `KEY + config`
    /// for a table entry with some fields set by the config.
    pub priced_as: String,
    /// The failure domain (provider) the endpoint belongs to: the config's provider, else the
    /// entry's.
    pub provider: String,
    /// When the price may not be what the config's provider bills: where it came from.
    pub note: Option<String>,
}

/// Price one gateway endpoint: the table's entry for its model, with the config's own prices
/// winning field by field (USD per token, as the table holds them), and, when the price may not
/// be what the config's provider bills, a note saying where it came from.
///
/// Errors: [`InputErrorKind::UnknownModel`] when the table has no price for the model and the
/// config does not set both input and output prices (an unknown price is never taken as zero).
pub fn price(file: &str, ep: &Endpoint, table: &PriceTable) -> Result<EndpointPrice, InputError> {
    let o = &ep.price_override;
    if o.input.is_none()
        && o.output.is_none()
        && let Some((provider, why)) = free_model(ep)
    {
        return Ok(free(ep, provider, why));
    }
    let entry = table_entry(ep, table);
    let (price, priced_as) = match (entry, o.input, o.output) {
        (_, Some(input), Some(output)) => {
            (config_price(ep, entry, input, output), "config".to_string())
        }
        (Some(e), _, _) => {
            let mut p = e.clone();
            p.input = o.input.unwrap_or(p.input);
            p.output = o.output.unwrap_or(p.output);
            p.cached_input = o.cached_input.or(p.cached_input);
            p.cache_write = o.cache_write.or(p.cache_write);
            let label = if o.is_empty() {
                e.id.clone()
            } else {
                format!("{} + config", e.id)
            };
            (p, label)
        }
        (None, input, output) => return Err(unknown_model(file, ep, table, input, output)),
    };
    let provider = ep
        .provider
        .clone()
        .unwrap_or_else(|| price.provider.clone());
    let note = price_note(ep, entry, &provider, &priced_as, table);
    Ok(EndpointPrice {
        price,
        priced_as,
        provider,
        note,
    })
}

/// The table's entry for `ep`'s model, never another provider's: the id as written (or a
/// Bedrock id as LiteLLM routes it), else `provider/model` for a config that names the provider
/// apart from the model, else (for a prefix that is no provider's) the bare id.
fn table_entry<'t>(ep: &Endpoint, table: &'t PriceTable) -> Option<&'t ModelPrice> {
    // `provider/model` resolves only to that provider's own entry (never another provider's
    // price for the same model name); a bare id only when one provider has it.
    // A config that names the provider apart from the model (a Portkey virtual key
    // `@openai-prod/gpt-4o` with provider `openai`) is priced as `provider/model`.
    table
        .get(&ep.model)
        .or_else(|| bedrock_entry(table, &ep.model))
        .or_else(|| {
            let provider = ep.provider.as_deref()?;
            let bare = ep
                .model
                .split_once('/')
                .map_or(ep.model.as_str(), |(_, b)| b);
            table.get(&format!("{provider}/{bare}"))
        })
        .or_else(|| hosted_entry(ep, table))
        .or_else(|| {
            // A prefix that is no provider of the table (a Portkey virtual key `@openai-prod`, an
            // alias) says nothing of whose model it is: the bare id, when one provider has it,
            // with a note naming the entry. A real provider's prefix (`groq/…`) never borrows
            // another provider's price.
            let (prefix, bare) = ep.model.split_once('/')?;
            let is_provider = |t: &PriceTable| {
                t.models
                    .values()
                    .any(|m| crate::model::prices::same_provider(&m.provider, prefix))
            };
            // A provider of this table or of LiteLLM's: so `groq/…` is never borrowed, even
            // with a table that has no Groq model.
            let known = is_provider(table)
                || crate::input::pricing::bundled_shared(crate::input::pricing::LITELLM_SNAPSHOT)
                    .is_some_and(|t| is_provider(&t));
            (!known).then(|| table.get(bare)).flatten()
        })
}

/// The entry of a model a gateway sends to a provider it names apart from the model (an
/// OpenRouter `provider.order` entry, a Portkey `provider`): among that provider's own entries
/// (its provider family), the one whose key is, but for case and `.`/`_`/`-` ([`same_id`]), the
/// id as written, `provider/served`, `served`, `provider/name` or `name` (the served id without
/// its author, `meta-llama/`). OpenRouter's ids are lower-case where the providers' are not
/// (`deepinfra/meta-llama/Llama-3.3-70B-Instruct`), and write versions with dots. LiteLLM endpoints (no `served` id) are
/// looked up exactly, as LiteLLM does.
fn hosted_entry<'t>(ep: &Endpoint, table: &'t PriceTable) -> Option<&'t ModelPrice> {
    let provider = ep.provider.as_deref()?;
    let served = ep.served.as_deref()?;
    let family = provider_family(provider);
    let mut keys = vec![
        same_id(&ep.model),
        same_id(&format!("{provider}/{served}")),
        same_id(served),
    ];
    if let Some((_, name)) = served.split_once('/') {
        keys.push(same_id(&format!("{provider}/{name}")));
        // the provider's own entry keyed bare (LiteLLM keys Anthropic's models so)
        keys.push(same_id(name));
    }
    keys.iter().find_map(|key| {
        table
            .models
            .iter()
            .find(|(k, e)| same_id(k) == *key && provider_family(&e.provider) == family)
            .map(|(_, e)| e)
    })
}

/// `id` as compared across spellings of one id: lower-case, `.` and `_` as `-`
/// (`claude-sonnet-4.5` on Portkey's Model Catalog and OpenRouter is `claude-sonnet-4-5`).
fn same_id(id: &str) -> String {
    id.to_lowercase().replace(['.', '_'], "-")
}

/// The price of `ep` when the config sets both its `input` and `output` ($/MTok): the config's,
/// with the cache prices and the provider from the table's `base` entry where it has one.
fn config_price(ep: &Endpoint, base: Option<&ModelPrice>, input: f64, output: f64) -> ModelPrice {
    let o = &ep.price_override;
    let cached_input = o.cached_input.or(base.and_then(|b| b.cached_input));
    let cache_write = o.cache_write.or(base.and_then(|b| b.cache_write));
    let caching = Caching::implied(cache_write, cached_input);
    ModelPrice {
        id: ep.model.clone(),
        provider: base.map_or_else(
            || {
                ep.provider
                    .clone()
                    .unwrap_or_else(|| ep.model.split('/').next().unwrap_or("unknown").to_string())
            },
            |b| b.provider.clone(),
        ),
        input,
        output,
        cached_input,
        cache_write,
        caching,
        cache_ttl_s: caching.default_ttl_s(),
        cache_write_1h: None,
        min_cache_prefix: base.and_then(|b| b.min_cache_prefix),
        miss_writes: false,
        tiers: Vec::new(),
    }
}

/// The error for a model the table does not price and the config prices only in part (its
/// `input` or `output`, or neither).
fn unknown_model(
    file: &str,
    ep: &Endpoint,
    table: &PriceTable,
    input: Option<f64>,
    output: Option<f64>,
) -> InputError {
    if super::env::is_templated(&ep.model) && input.is_none() && output.is_none() {
        return unset_variable(file, ep);
    }
    let missing = match (input, output) {
        (Some(_), None) => " (the config sets input_cost_per_token but not output_cost_per_token)",
        (None, Some(_)) => " (the config sets output_cost_per_token but not input_cost_per_token)",
        _ => "",
    };
    // OpenRouter's sorted variants with no provider named: which provider serves it is
    // OpenRouter's choice among providers the table does not list for it.
    let sorted = if ep.model.ends_with(":floor") || ep.model.ends_with(":nitro") {
        " (OpenRouter sends it to the cheapest (:floor) or fastest (:nitro) of the providers it lists for the model, which the price table does not say: name them in provider.only or provider.order to price each)"
    } else {
        ""
    };
    // An OpenAI-compatible model whose api_base is read from a variable not set here: where
    // it is served (perhaps the team's own server, $0) is the proxy environment's to say.
    let base = ep
        .base_from
        .as_deref()
        .map(|name| {
            format!(
                " (its api_base is read from {name} when the proxy starts: pass --env {name}=URL; a local or private address is your own server, $0 per token)"
            )
        })
        .unwrap_or_default();
    InputError {
        file: ep.file.as_deref().unwrap_or(file).to_string(),
        location: Some(Location {
            line: ep.line,
            col: ep.col,
        }),
        field: None,
        message: format!(
            "unknown model `{}`{}{missing}{sorted}{base}: price table {} has no price for it, and an unknown price is never taken as zero; set its prices in the config (LiteLLM model_info input_cost_per_token and output_cost_per_token, or base_model), or pass --pricing with a table that has it",
            ep.model,
            table.lookup_hint(&ep.model),
            table.name
        ),
        kind: InputErrorKind::UnknownModel,
    }
}

/// The error for a model id read from the environment whose variables are not set where
/// fallcost runs nor given with `--env`: the config does not say which model it is.
fn unset_variable(file: &str, ep: &Endpoint) -> InputError {
    let vars = super::env::template_vars(&ep.model);
    let flags: Vec<String> = vars.iter().map(|v| format!("--env {v}=value")).collect();
    InputError {
        file: ep.file.as_deref().unwrap_or(file).to_string(),
        location: Some(Location {
            line: ep.line,
            col: ep.col,
        }),
        field: None,
        message: format!(
            "unknown model `{}`: read from the environment when the proxy starts, and {} not set here: set {} or pass {} as the proxy's environment does, or write the model id in the config",
            ep.model,
            if vars.len() == 1 { "it is" } else { "they are" },
            vars.join(", "),
            flags.join(" "),
        ),
        kind: InputErrorKind::UnknownModel,
    }
}

/// The note on `ep`'s price, when it may not be what the config's provider bills: the
/// endpoint's own note, a rolling alias, or another provider's entry, each naming the entry.
fn price_note(
    ep: &Endpoint,
    entry: Option<&ModelPrice>,
    provider: &str,
    priced_as: &str,
    table: &PriceTable,
) -> Option<String> {
    let source = if priced_as == "config" {
        "the config's own prices".to_string()
    } else {
        format!(
            "{}'s entry `{}` in {}",
            entry.map_or("?", |e| e.provider.as_str()),
            entry.map_or("?", |e| e.id.as_str()),
            table.name
        )
    };
    let bare = |id: &str| {
        let id = bedrock_id(id).unwrap_or(id);
        id.split_once('/').map_or(id, |(_, b)| b).to_string()
    };
    match (&ep.note, entry) {
        (Some(n), _) => Some(format!("{n}; priced from {source}")),
        (None, Some(e))
            if priced_as != "config"
                && bare(&e.id) != bare(&ep.model)
                && same_id(&bare(&e.id)) == same_id(&bare(&ep.model)) =>
        {
            Some(format!(
                "`{}` is priced as `{}`, the same id but for case and separators: from {source}",
                ep.model, e.id
            ))
        }
        (None, Some(e)) if priced_as != "config" && bare(&e.id) != bare(&ep.model) => {
            Some(format!(
                "`{}` is a rolling alias (LiteLLM's alias_of): priced from {source}",
                ep.model
            ))
        }
        (None, Some(e))
            if priced_as != "config"
                && provider_family(provider) != provider_family(&e.provider)
                && !provider.starts_with(e.provider.as_str())
                && !e.provider.starts_with(provider) =>
        {
            Some(format!(
                "`{}` on provider `{provider}` is priced from {source}",
                ep.model
            ))
        }
        _ => None,
    }
}

/// The entry of a Bedrock model id as LiteLLM routes it: `bedrock/` (or `bedrock_converse/`)
/// and an optional route (`converse/`, `invoke/`) before the Bedrock model id, which LiteLLM's
/// price file keys bare (`anthropic.claude-…-v1:0`, the cross-region `us.…`, `eu.…`,
/// `global.…` inference profiles, `amazon.nova-pro-v1:0`), some under `bedrock_converse`.
/// Only an entry of the Bedrock family is taken: never another provider's price.
fn bedrock_entry<'t>(table: &'t PriceTable, model: &str) -> Option<&'t ModelPrice> {
    let id = bedrock_id(model)?;
    table
        .models
        .get(id)
        .or_else(|| table.models.get(&format!("bedrock/{id}")))
        .filter(|e| provider_family(&e.provider) == "bedrock")
}

/// The Bedrock model id of `model` (`bedrock/converse/us.amazon.nova-pro-v1:0` →
/// `us.amazon.nova-pro-v1:0`); `None` when it is not a `bedrock/` id.
fn bedrock_id(model: &str) -> Option<&str> {
    let rest = model
        .strip_prefix("bedrock/")
        .or_else(|| model.strip_prefix("bedrock_converse/"))?;
    Some(
        rest.strip_prefix("converse/")
            .or_else(|| rest.strip_prefix("invoke/"))
            .unwrap_or(rest),
    )
}

/// Providers whose models run on the team's own hardware: LiteLLM bills them at $0 per token
/// (no entry of its price file has a price for them).
pub const LOCAL_PROVIDERS: &[&str] = &[
    "ollama",
    "ollama_chat",
    "lm_studio",
    "hosted_vllm",
    "vllm",
    "llamafile",
];

/// Whether `model` of provider `p` is an Ollama Cloud model (`gpt-oss:120b-cloud`,
/// `ollama_chat/qwen3-coder:480b-cloud`): run and billed by Ollama's cloud, not your own server.
fn ollama_cloud(p: &str, model: &str) -> bool {
    p.starts_with("ollama") && (model.ends_with("-cloud") || model.ends_with(":cloud"))
}

/// Whether `ep` is billed nothing per token, and why: a model of a [`LOCAL_PROVIDERS`] provider
/// (`ollama/llama3`; an Ollama Cloud model, `…-cloud`, is not one), an OpenAI-compatible model
/// served from a local or private address ([`private_host`]: `openai/…` with `api_base: http://localhost:8000/v1`), or an OpenRouter
/// `:free` variant (`meta-llama/llama-3.3-70b-instruct:free`, which OpenRouter bills at $0).
/// Returns the provider (failure domain) and the note.
pub fn free_model(ep: &Endpoint) -> Option<(String, String)> {
    let prefix = ep.model.split_once('/').map(|(p, _)| p);
    let provider = ep.provider.as_deref().or(prefix);
    if let Some(p) = provider.filter(|p| LOCAL_PROVIDERS.contains(p))
        && !ollama_cloud(p, &ep.model)
    {
        return Some((
            p.to_string(),
            format!(
                "`{}` runs on your own server ({p}): $0 per token, as LiteLLM bills it (the hardware is not priced)",
                ep.model
            ),
        ));
    }
    if let Some(host) = provider.and_then(|p| p.strip_prefix("api_base "))
        && private_host(host)
    {
        return Some((
            format!("api_base {host}"),
            format!(
                "`{}` is served from a local or private address ({host}): $0 per token, as LiteLLM bills a model it has no price for (the hardware is not priced)",
                ep.model
            ),
        ));
    }
    let served = ep.served.as_deref().unwrap_or(&ep.model);
    if served.ends_with(":free") && (provider == Some("openrouter") || ep.model.contains('/')) {
        return Some((
            provider.unwrap_or("openrouter").to_string(),
            format!(
                "`{}` is an OpenRouter `:free` variant: $0 per token, as OpenRouter bills it (rate-limited)",
                ep.model
            ),
        ));
    }
    None
}

/// Whether an `api_base` host (`host:port`) is local or private: `localhost`, a loopback,
/// private (RFC 1918) or link-local IPv4 address, `::1`, `host.docker.internal`, a name under
/// `.local`, `.internal`, `.localhost` or `.lan`, or a name without a dot (a container or
/// cluster service, `ollama:11434`).
pub fn private_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        }),
    }
    .to_ascii_lowercase();
    if name.is_empty() || name.starts_with("os.environ") {
        return false;
    }
    if let Ok(ip) = name.parse::<std::net::IpAddr>() {
        return match ip {
            std::net::IpAddr::V4(v4) => {
                v4.is_loopback() || v4.is_private() || v4.is_link_local() || v4.is_unspecified()
            }
            std::net::IpAddr::V6(v6) => v6.is_loopback() || v6.is_unspecified(),
        };
    }
    name == "localhost"
        || name == "host.docker.internal"
        || [".local", ".internal", ".localhost", ".lan"]
            .iter()
            .any(|s| name.ends_with(s))
        || !name.contains('.')
}

/// A price of $0 per token for `ep` (see [`free_model`]), with `why` as its note.
fn free(ep: &Endpoint, provider: String, why: String) -> EndpointPrice {
    EndpointPrice {
        price: ModelPrice {
            id: ep.model.clone(),
            provider: provider.clone(),
            input: 0.0,
            output: 0.0,
            cached_input: None,
            cache_write: None,
            caching: Caching::implied(None, None),
            cache_ttl_s: Caching::implied(None, None).default_ttl_s(),
            cache_write_1h: None,
            min_cache_prefix: None,
            miss_writes: false,
            tiers: Vec::new(),
        },
        priced_as: "free ($0 per token)".to_string(),
        provider,
        note: Some(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(model: &str, provider: Option<&str>) -> Endpoint {
        Endpoint {
            model: model.into(),
            provider: provider.map(str::to_string),
            price_override: Default::default(),
            note: None,
            file: None,
            line: 1,
            col: 1,
            deployment: None,
            served: None,
            limit: Default::default(),
            base_from: None,
        }
    }

    #[test]
    fn bedrock_ids_and_rolling_aliases_are_priced_as_billed() {
        let t = crate::input::pricing::bundled("litellm-1.110.2").unwrap();
        // (id as written, the entry it is priced from, input $/MTok)
        for (model, entry, input) in [
            (
                "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                3.3,
            ),
            (
                "bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
                3.0,
            ),
            (
                "bedrock/converse/us.amazon.nova-pro-v1:0",
                "us.amazon.nova-pro-v1:0",
                0.8,
            ),
            ("bedrock/amazon.nova-pro-v1:0", "amazon.nova-pro-v1:0", 0.8),
            ("amazon.nova-pro-v1:0", "amazon.nova-pro-v1:0", 0.8),
            (
                "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
                "anthropic.claude-3-5-sonnet-20240620-v1:0",
                3.0,
            ),
        ] {
            let p = price("c.yaml", &ep(model, Some("bedrock")), &t).unwrap();
            assert_eq!(p.priced_as, entry, "{model}");
            assert_eq!(p.price.input, input, "{model}");
        }
        // A rolling alias is billed as the entry LiteLLM's alias_of names.
        let alias = price("c.yaml", &ep("claude-sonnet-latest", None), &t).unwrap();
        let target = t.models.get("claude-sonnet-5-5").unwrap();
        assert_eq!(alias.priced_as, "claude-sonnet-5-5");
        assert!(alias.note.unwrap().contains("rolling alias"));
        assert_eq!(
            (alias.price.input, alias.price.output),
            (target.input, target.output)
        );
        // Bedrock never borrows another provider's entry of the same name.
        assert!(price("c.yaml", &ep("bedrock/gpt-4o", Some("bedrock")), &t).is_err());
    }

    #[test]
    fn ollama_cloud_models_are_not_your_own_server() {
        let ep = |model: &str| ep(model, model.split_once('/').map(|(p, _)| p));
        for model in [
            "ollama_chat/gpt-oss:120b-cloud",
            "ollama/qwen3-coder:480b-cloud",
        ] {
            assert_eq!(free_model(&ep(model)), None, "{model}");
        }
        assert!(free_model(&ep("ollama/llama3.1:8b")).is_some());
    }

    #[test]
    fn local_and_free_models_cost_nothing_and_say_why() {
        let t = crate::input::pricing::bundled("litellm-1.110.2").unwrap();
        for (model, provider, domain) in [
            ("ollama/llama3.1:8b", Some("ollama"), "ollama"),
            ("lm_studio/qwen2.5-7b", Some("lm_studio"), "lm_studio"),
            (
                "hosted_vllm/meta-llama/Llama-3.1-8B",
                Some("hosted_vllm"),
                "hosted_vllm",
            ),
            (
                "openai/my-model",
                Some("api_base localhost:8000"),
                "api_base localhost:8000",
            ),
            (
                "openai/my-model",
                Some("api_base 10.0.3.4:8000"),
                "api_base 10.0.3.4:8000",
            ),
            (
                "openai/qwen",
                Some("api_base vllm:8000"),
                "api_base vllm:8000",
            ),
            (
                "openrouter/meta-llama/llama-3.3-70b-instruct:free",
                Some("openrouter"),
                "openrouter",
            ),
        ] {
            let p = price("c.yaml", &ep(model, provider), &t).unwrap();
            assert_eq!((p.price.input, p.price.output), (0.0, 0.0), "{model}");
            assert_eq!(p.provider, domain);
            assert!(p.note.unwrap().contains("$0 per token"), "{model}");
        }
        // A public api_base is not free: the model is looked up (and unknown here).
        assert!(
            price(
                "c.yaml",
                &ep("openai/my-model", Some("api_base api.example.com")),
                &t
            )
            .is_err()
        );
        for (host, private) in [
            ("localhost:11434", true),
            ("127.0.0.1", true),
            ("192.168.1.20:8080", true),
            ("172.20.0.2", true),
            ("172.32.0.2", false),
            ("[::1]:8000", true),
            ("host.docker.internal:1234", true),
            ("gpu-box.lan", true),
            ("api.together.xyz", false),
            ("8.8.8.8", false),
        ] {
            assert_eq!(private_host(host), private, "{host}");
        }
    }
}
