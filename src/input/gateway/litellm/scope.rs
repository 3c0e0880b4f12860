//! Which deployments of a `model_list` LiteLLM's proxy routes a plain request to: the ones it
//! drops at start as invalid (`ignore_invalid_deployments`: a model whose provider LiteLLM cannot
//! tell), the ones only one team's keys reach (`model_info.team_id`), and the `order` tiers of
//! a group (every first pick goes to the lowest order; the next order is tried before the
//! group's fallbacks). Each rule is pinned by a recorded walk of LiteLLM 1.110.2's Router in
//! `tests/fixtures/parity/` (`invalid-deployments.yaml`, `scoped.yaml`, `order.yaml`).

use crate::input::gateway::{Node, NodeValue};
use crate::model::PriceTable;

/// LiteLLM 1.110.2's `litellm.provider_list`: the prefixes `get_llm_provider` accepts. A
/// deployment whose model has another prefix (`bedrock_converse/…`, which is a price-table
/// provider but no routing prefix) and no `custom_llm_provider` is dropped by the proxy.
pub(super) const LITELLM_PROVIDERS: &[&str] = &[
    "a2a",
    "a2a_agent",
    "abliteration",
    "ai21",
    "ai21_chat",
    "aiand",
    "aiml",
    "aiohttp_openai",
    "amazon_nova",
    "anthropic",
    "anthropic_text",
    "apertis",
    "assemblyai",
    "auto_router",
    "aws_polly",
    "aws_textract",
    "azure",
    "azure_ai",
    "azure_speech",
    "azure_text",
    "baseten",
    "bedrock",
    "bedrock_mantle",
    "bespoke",
    "bigmodel",
    "black_forest_labs",
    "bytez",
    "cerebras",
    "charity_engine",
    "chatgpt",
    "chutes",
    "clarifai",
    "clf_ai_gateway",
    "cloudflare",
    "codestral",
    "cognition",
    "cohere",
    "cohere_chat",
    "cometapi",
    "compactifai",
    "coralbricks",
    "cortecs",
    "cursor",
    "custom",
    "custom_openai",
    "darkbloom",
    "dashscope",
    "databricks",
    "databricks_agent",
    "datarobot",
    "deepgram",
    "deepinfra",
    "deepseek",
    "docker_model_runner",
    "dotprompt",
    "edenai",
    "elevenlabs",
    "empiriolabs",
    "empower",
    "eu_jev",
    "fal_ai",
    "featherless_ai",
    "fireworks_ai",
    "friendliai",
    "galadriel",
    "gdc",
    "gemini",
    "gigachat",
    "github",
    "github_copilot",
    "gradient_ai",
    "groq",
    "helicone",
    "heroku",
    "hosted_vllm",
    "hostinger_router",
    "huggingface",
    "humanloop",
    "hyperbolic",
    "inception",
    "inferenceapis",
    "infinity",
    "jina_ai",
    "kyma",
    "lambda_ai",
    "langflow",
    "langfuse",
    "langgraph",
    "laya",
    "lemonade",
    "libertai",
    "litellm_agent",
    "litellm_proxy",
    "llamafile",
    "lm_studio",
    "manus",
    "maritalk",
    "meta",
    "meta_llama",
    "microsoft_365_copilot",
    "milvus",
    "minimax",
    "mistral",
    "modelscope",
    "mongodb",
    "moonshot",
    "morph",
    "nace",
    "nadir",
    "nano-gpt",
    "nebius",
    "neosantara",
    "nlp_cloud",
    "novita",
    "nscale",
    "nvidia_nim",
    "nvidia_riva",
    "oci",
    "ollama",
    "ollama_chat",
    "oobabooga",
    "openai",
    "openai_like",
    "opencode_go",
    "openinfer",
    "openrouter",
    "opensearch",
    "ovhcloud",
    "parallel_ai",
    "parasail",
    "perplexity",
    "petals",
    "pg_vector",
    "pinstripes",
    "poe",
    "predibase",
    "prism",
    "publicai",
    "qwen_ai_platform",
    "qwencloud",
    "ragflow",
    "recraft",
    "reducto",
    "refuseless",
    "reka",
    "replicate",
    "runwayml",
    "s3_vectors",
    "sagemaker",
    "sagemaker_chat",
    "sagemaker_nova",
    "sail",
    "sambanova",
    "sap",
    "scaledown",
    "scaleway",
    "scx-ai",
    "snowflake",
    "soniox",
    "stability",
    "strands_decider",
    "streamlake",
    "synthetic",
    "tencent",
    "tensormesh",
    "text-completion-codestral",
    "text-completion-inception",
    "text-completion-openai",
    "together_ai",
    "topaz",
    "transcribe",
    "triton",
    "typesafe",
    "v0",
    "valkey",
    "vercel_ai_gateway",
    "vertex_ai",
    "vertex_ai_beta",
    "vllm",
    "volcengine",
    "voyage",
    "wally",
    "wandb",
    "watsonx",
    "watsonx_text",
    "xai",
    "xiaomi_mimo",
    "xinference",
    "zai",
    "zerogpu",
];

/// Why LiteLLM's proxy drops the deployment calling `model` (its `litellm_params.model` as
/// written) at start, or `None` when it keeps it: no `custom_llm_provider`, and a prefix that is
/// no LiteLLM provider (and an id the price table does not price as written), or a bare id
/// that the price table does not know (LiteLLM infers a bare id's provider from its own model
/// lists) and no `api_base` that could name the provider. A
/// model read from the environment (`os.environ/NAME`, `${NAME}`) is not judged here.
pub(super) fn dropped_why(model: &str, params: &Node, prices: &PriceTable) -> Option<String> {
    if params.get("custom_llm_provider").is_some()
        || model.contains('*')
        || model.is_empty()
        || model.starts_with("os.environ/")
        || model.contains("${")
    {
        return None;
    }
    match model.split_once('/') {
        // A table that prices the id as written (a `--pricing` table of one's own) keeps it.
        Some((p, _)) if !LITELLM_PROVIDERS.contains(&p) && !prices.models.contains_key(model) => {
            Some(format!(
                "`{p}` is not a LiteLLM provider prefix (litellm.provider_list), and no custom_llm_provider names one"
            ))
        }
        Some(_) => None,
        None if params.get("api_base").is_none() && !prices.models.contains_key(model) => {
            Some(format!(
                "`{model}` names no provider (no `PROVIDER/` prefix, no custom_llm_provider) and is not a model LiteLLM knows"
            ))
        }
        None => None,
    }
}

/// Why a plain request never reaches the deployment `item` (its model `model` as written):
/// dropped as invalid ([`dropped_why`]) or one team's only ([`team_of`]); `None` when it may.
pub(super) fn unreached_why(item: &Node, model: &str, prices: &PriceTable) -> Option<String> {
    let params = item.get("litellm_params")?;
    if let Some(w) = dropped_why(model, params, prices) {
        return Some(format!(
            "LiteLLM's proxy drops it at start as invalid (ignore_invalid_deployments): {w}"
        ));
    }
    team_of(item).map(|t| {
        format!(
            "it serves team `{t}` only (model_info.team_id): a request with another key never picks it"
        )
    })
}

/// The team a deployment serves only (`model_info.team_id`): a request with another key (or no
/// team) never picks it.
pub(super) fn team_of(item: &Node) -> Option<String> {
    let n = item.get("model_info")?.get("team_id")?;
    n.as_str().map(str::to_string).or(match n.value {
        NodeValue::Int(x) => Some(x.to_string()),
        _ => None,
    })
}

/// A deployment's `litellm_params.order` (a whole number), if any.
pub(super) fn order_of(params: Option<&Node>) -> Option<i64> {
    let n = params?.get("order")?;
    match n.value {
        NodeValue::Int(x) => Some(x),
        NodeValue::Float(x) if x.fract() == 0.0 => Some(x as i64),
        _ => n.as_str().and_then(|s| s.trim().parse().ok()),
    }
}

/// The deployments of a group (indices into it) by `order` tier, lowest first: every
/// deployment in one tier when none sets `order`; else the deployments of each order, and
/// those without one left out (LiteLLM never picks them, `order.yaml`'s recorded walk).
pub(super) fn tiers(orders: &[Option<i64>]) -> (Vec<Vec<usize>>, Vec<usize>) {
    if orders.iter().all(Option::is_none) {
        return (vec![(0..orders.len()).collect()], Vec::new());
    }
    let mut values: Vec<i64> = orders.iter().flatten().copied().collect();
    values.sort_unstable();
    values.dedup();
    let tiers = values
        .iter()
        .map(|v| {
            (0..orders.len())
                .filter(|&i| orders[i] == Some(*v))
                .collect()
        })
        .collect();
    let unordered = (0..orders.len()).filter(|&i| orders[i].is_none()).collect();
    (tiers, unordered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_go_by_order_and_leave_out_the_unordered() {
        assert_eq!(tiers(&[None, None]), (vec![vec![0, 1]], vec![]));
        assert_eq!(
            tiers(&[Some(2), None, Some(1), Some(1)]),
            (vec![vec![2, 3], vec![0]], vec![1])
        );
    }

    #[test]
    fn providers_are_litellms_list() {
        assert_eq!(LITELLM_PROVIDERS.len(), 190);
        assert!(LITELLM_PROVIDERS.contains(&"bedrock"));
        assert!(!LITELLM_PROVIDERS.contains(&"bedrock_converse"));
    }
}
