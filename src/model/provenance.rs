//! Where a scenario's value came from when it was read from a gateway config (`compare
//! --config`): made by `input::gateway::price`, listed by `output::provenance`.

/// A scenario chain read from a gateway config (`--config`): per link, what the config calls
/// it, so that `tune`'s snippets can be written in the config's own names.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigChain {
    /// The scenario chain.
    pub chain: String,
    /// The gateway: `litellm`, `portkey` or `openrouter`.
    pub gateway: &'static str,
    /// The config the chain was read from.
    pub config: String,
    /// Its links, primary first.
    pub links: Vec<ConfigLink>,
}

/// One link of a [`ConfigChain`].
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigLink {
    /// The link's price-table id (the scenario chain's model).
    pub model: String,
    /// The config's name for the step: a LiteLLM `model_name` group, a Portkey target.
    pub group: String,
    /// The model as the config names it (`litellm_params.model`, Portkey's model).
    pub deployment: String,
}

/// A value taken from a config, for the report: `chain "x": retries 2 (config.yaml:41)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// The scenario chain it applies to.
    pub chain: String,
    /// What was taken, as the report shows it (`retries 2`).
    pub what: String,
    /// The file it was read from.
    pub file: String,
    /// Its line.
    pub line: usize,
    /// The config the chain was read from (the listing names the settings every chain of one
    /// config shares once).
    pub config: String,
}
