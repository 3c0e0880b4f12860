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

/// The gateway traffic a scenario chain read from a config serves (`compare --config`,
/// `diff`): its route, the route's primary group and model, and its share of the route's
/// requests as the router splits them (LiteLLM's `simple_shuffle` shares over a group's
/// deployments, times a split fallback group's; 1 for a route that is one chain).
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    /// The scenario chain.
    pub chain: String,
    /// The route's name (`chat (router_settings.fallbacks)`): every chain of one route has it.
    pub route: String,
    /// The route's primary group as the config names it (a LiteLLM `model_name`, a Portkey
    /// target's label).
    pub group: String,
    /// The chain's primary model as the config names it (`anthropic/claude-sonnet-5`).
    pub primary: String,
    /// The chain's share of its route's requests, in (0, 1]; a route's chains add up to 1.
    pub share: f64,
    /// The config the route was read from, as shown.
    pub config: String,
    /// The line of the primary deployment in the file it is written in.
    pub line: usize,
}
