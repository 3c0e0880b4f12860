//! Where a scenario's value came from when it was read from a gateway config (`compare
//! --config`): made by `input::gateway::price`, listed by `output::provenance`.

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
