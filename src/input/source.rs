//! A scenario's text before validation, with everything needed to parse it: what
//! [`crate::input::gateway::price::build_text`] builds from gateway configs and what
//! `ops::inputs` reads from a `--scenario` file. One type for both.

use std::path::PathBuf;

use crate::error::InputError;
use crate::input::scenario;
use crate::model::provenance::{ConfigChain, Provenance, Served};
use crate::model::{ModelPrice, Scenario};

/// A scenario's text before validation, with everything needed to parse it (`sweep`
/// validates it at every grid point, `tune` at every candidate).
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The scenario's label in messages: the `--scenario` path, or `--config`.
    pub label: String,
    /// The scenario text (with a config's chains appended).
    pub text: String,
    /// The folder a relative `pricing` is taken from.
    pub base: PathBuf,
    /// The overrides to apply, in order: `--pricing` and `--profile`'s (with `--config`), then
    /// fallcost.toml's `[usage]` incident and `--set`.
    pub overrides: Vec<(String, String)>,
    /// Every value taken from the gateway configs, in chain order (empty without `--config`).
    pub provenance: Vec<Provenance>,
    /// The traffic each chain read from a gateway config serves (its route, primary and
    /// share), in chain order (empty without `--config`).
    pub served: Vec<Served>,
    /// The prices the gateway configs set themselves, by scenario id, added to the scenario's
    /// price table (empty without `--config`).
    pub prices: Vec<ModelPrice>,
    /// Warnings on the configs (`file:line: ...`): the fallbacks that name no group.
    pub warnings: Vec<String>,
    /// The files of a `--config` folder that are no config, each `file: why`, in path order.
    pub skipped: Vec<String>,
    /// Per chain read from a gateway config, the config's names for its links (empty without
    /// `--config`).
    pub groups: Vec<ConfigChain>,
}

impl Source {
    /// Parse and validate the scenario, overrides applied.
    ///
    /// Errors: as [`scenario::parse`] (file:line:col and field, exit 2).
    pub fn parse(&self) -> Result<Scenario, InputError> {
        self.parse_with(&self.overrides)
    }

    /// Parse and validate the scenario with `overrides` instead of its own (`sweep` and `tune`
    /// add theirs to [`Source::overrides`]), the configs' own prices added.
    ///
    /// Errors: as [`scenario::parse`].
    pub fn parse_with(&self, overrides: &[(String, String)]) -> Result<Scenario, InputError> {
        scenario::parse_priced(&self.label, &self.text, &self.base, overrides, &self.prices)
    }
}
