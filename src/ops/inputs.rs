//! The scenario `compare` and `sweep` price, resolved once from their flags and the project
//! settings (`fallcost.toml`'s `[compare]`; a flag given wins): a `--scenario` file, or gateway
//! configs (`--config`, priced with `--profile`) with an optional scenario for the request,
//! steady state, latency and incident, then `--set` overrides. [`resolve`] returns the parsed
//! scenario (`compare`), [`source`] its text before validation (`sweep` validates it at every
//! grid point).

use std::path::{Path, PathBuf};

use crate::input::gateway::price::{Provenance, Served, build_text};
use crate::input::{read_text, scenario};
use crate::model::{ModelPrice, Scenario};

/// Where a command's scenario comes from, as its command line gives it (built from clap's
/// arguments by [`crate::cmd::compare`] and [`crate::cmd::sweep`]).
#[derive(Debug, Clone, Copy)]
pub struct Flags<'a> {
    /// The subcommand's name (`compare`, `sweep`), for the `--help` a missing scenario names.
    pub command: &'static str,
    /// `--scenario`: the scenario file (with `--config`: one without `[[chain]]`).
    pub scenario: Option<&'a Path>,
    /// `--config`: gateway configs whose chains are priced.
    pub config: &'a [PathBuf],
    /// `--profile`: input and output tokens of the request a config is priced with.
    pub profile: Option<(u64, u64)>,
    /// `--pricing`: the price table a config's models are priced from (a bundled name or a
    /// path relative to the current folder), over the scenario's `pricing`.
    pub pricing: Option<&'a str>,
    /// `--set`: `KEY=VALUE` overrides of the scenario, applied last.
    pub set: &'a [(String, String)],
    /// `--config-file`: the project settings to read instead of the nearest `fallcost.toml`.
    pub config_file: Option<&'a Path>,
}

/// A scenario's text before validation, with everything needed to parse it.
#[derive(Debug, Clone)]
pub struct Source {
    /// The scenario's label in messages: the `--scenario` path, or `--config`.
    pub label: String,
    /// The scenario text (with a config's chains appended).
    pub text: String,
    /// The folder a relative `pricing` is taken from.
    pub base: PathBuf,
    /// The overrides to apply, in order: `--profile`'s (with `--config`), then `--set`.
    pub overrides: Vec<(String, String)>,
    /// Every value taken from the gateway configs, in chain order (empty without `--config`).
    pub provenance: Vec<Provenance>,
    /// The traffic each chain read from a gateway config serves (empty without `--config`).
    pub served: Vec<Served>,
    /// The prices the gateway configs set themselves, added to the scenario's price table
    /// (empty without `--config`).
    pub prices: Vec<ModelPrice>,
    /// Warnings on the configs (`file:line: ...`): the fallbacks that name no group.
    pub warnings: Vec<String>,
    /// The files of a `--config` folder that are no config, each `file: why`.
    pub skipped: Vec<String>,
    /// Per chain read from a gateway config, the config's names for its links (empty without
    /// `--config`).
    pub groups: Vec<crate::model::provenance::ConfigChain>,
}

impl Source {
    /// Parse and validate the scenario, overrides applied.
    ///
    /// Errors: as [`scenario::parse`] (file:line:col and field, exit 2).
    pub fn parse(&self) -> Result<Scenario, crate::error::InputError> {
        self.parse_with(&self.overrides)
    }

    /// Parse and validate the scenario with `overrides` instead of its own (`sweep` and `tune`
    /// add theirs to [`Source::overrides`]), the configs' own prices added.
    ///
    /// Errors: as [`scenario::parse`].
    pub fn parse_with(
        &self,
        overrides: &[(String, String)],
    ) -> Result<Scenario, crate::error::InputError> {
        scenario::parse_priced(&self.label, &self.text, &self.base, overrides, &self.prices)
    }
}

/// The scenario of `compare`, resolved and validated, its chains selected by `--chain`.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The scenario, validated, with only the chains `--chain` names (all without one).
    pub scenario: Scenario,
    /// The scenario's label in messages: the `--scenario` path, or `--config`.
    pub label: String,
    /// Every value taken from the gateway configs, in chain order (empty without `--config`).
    pub provenance: Vec<Provenance>,
    /// The traffic each chain read from a gateway config serves (empty without `--config`).
    pub served: Vec<Served>,
    /// Why the blended rows are left out, when `--chain` dropped a chain of a traffic split.
    pub partial: Option<String>,
    /// Warnings on the configs ([`Source::warnings`]).
    pub warnings: Vec<String>,
    /// The files of a `--config` folder that are no config ([`Source::skipped`]).
    pub skipped: Vec<String>,
}

/// The scenario text `flags` name, with the project settings filling what they leave out:
/// `config` and `scenario` when the command line names neither, `profile` when it gives none.
///
/// Errors (exit 2): unreadable or invalid settings; neither a scenario nor a config (from the
/// flags or the settings); `--profile` without a config; an unreadable scenario or config, or
/// a scenario with `[[chain]]` or `[policy]` beside `--config`.
pub fn source(flags: &Flags) -> anyhow::Result<Source> {
    let settings = crate::input::settings::compare_settings(flags.config_file)?;
    // fallcost.toml [usage]: the request and reference incident `diff` and `check` use too.
    let usage = crate::input::settings::usage_settings(flags.config_file)?;
    let set: Vec<(String, String)> = usage
        .incident_overrides()
        .into_iter()
        .chain(flags.set.iter().cloned())
        .collect();
    let configs = if flags.config.is_empty() && flags.scenario.is_none() {
        settings.config.clone().unwrap_or_default()
    } else {
        flags.config.to_vec()
    };
    let scenario_path = flags.scenario.map(Path::to_path_buf).or(settings.scenario);
    if configs.is_empty() {
        let path = scenario_path.as_deref().ok_or_else(|| {
            anyhow::anyhow!(
                "the following required arguments were not provided: --scenario <PATH> or --config <FILE> (or `scenario`/`config` in fallcost.toml's [compare]; see `fallcost {} --help`)",
                flags.command
            )
        })?;
        if flags.profile.is_some() {
            anyhow::bail!("--profile prices a gateway config: it needs --config");
        }
        if flags.pricing.is_some() {
            anyhow::bail!(
                "--pricing prices a gateway config: it needs --config (a scenario uses its own `pricing`)"
            );
        }
        let base = match path.parent() {
            Some(b) if !b.as_os_str().is_empty() => b.to_path_buf(),
            _ => PathBuf::from("."),
        };
        return Ok(Source {
            label: path.display().to_string(),
            text: read_text(path)?,
            base,
            overrides: set,
            provenance: Vec::new(),
            served: Vec::new(),
            prices: Vec::new(),
            warnings: Vec::new(),
            skipped: Vec::new(),
            groups: Vec::new(),
        });
    }
    let profile = flags.profile.or(settings.profile).or(usage.profile);
    let scenario_path = scenario_path.or(usage.scenario);
    // fallcost.toml [prices]: the project's own prices, over the table's (as `check` reads them).
    let own = crate::input::settings::price_settings(flags.config_file)?;
    let built = build_text(
        &configs,
        scenario_path.as_deref(),
        profile,
        (flags.pricing, &own),
    )?;
    let mut overrides = built.overrides;
    overrides.extend(set);
    Ok(Source {
        label: built.label,
        text: built.text,
        base: built.base,
        overrides,
        provenance: built.provenance,
        served: built.served,
        prices: built.prices,
        warnings: built.warnings,
        skipped: built.skipped,
        groups: built.groups,
    })
}

/// The scenario `flags` name ([`source`]), validated, with only the chains `chains` names (all
/// when it is empty).
///
/// Errors: as [`source`]; an invalid scenario (file:line:col and field); a `--chain` the
/// scenario does not have (naming the ones it has). All exit 2.
pub fn resolve(flags: &Flags, chains: &[String]) -> anyhow::Result<Inputs> {
    let source = source(flags)?;
    let mut scenario = source.parse()?;
    let partial = scenario::select_chains(&mut scenario, chains).map_err(anyhow::Error::msg)?;
    Ok(Inputs {
        scenario,
        label: source.label,
        provenance: source.provenance,
        served: source.served,
        partial,
        warnings: source.warnings,
        skipped: source.skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A settings file with no `[compare]` (the flags alone decide), written once.
    fn no_compare_settings() -> &'static Path {
        static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
        PATH.get_or_init(|| {
            let p = std::env::temp_dir().join(format!(
                "fallcost-inputs-{}-fallcost.toml",
                std::process::id()
            ));
            std::fs::write(&p, "[check]\nmax_ratio = 2\n").unwrap();
            p
        })
    }

    fn flags<'a>(scenario: Option<&'a Path>, config: &'a [PathBuf]) -> Flags<'a> {
        Flags {
            command: "sweep",
            scenario,
            config,
            profile: None,
            pricing: None,
            set: &[],
            config_file: Some(no_compare_settings()),
        }
    }

    #[test]
    fn a_scenario_file_is_its_own_label_base_and_overrides() {
        let set = [("request.input_tokens".to_string(), "1234".to_string())];
        let f = Flags {
            set: &set,
            ..flags(Some(Path::new("scenarios/sept3.toml")), &[])
        };
        let s = source(&f).unwrap();
        assert_eq!(s.label, "scenarios/sept3.toml");
        assert_eq!(s.base, PathBuf::from("scenarios"));
        assert_eq!(s.overrides, set);
        assert!(s.provenance.is_empty());
        assert_eq!(s.parse().unwrap().request.input_tokens, 1234.0);
    }

    #[test]
    fn settings_fill_config_and_scenario_and_a_flag_wins() {
        let settings = Path::new("tests/fixtures/check/settings/fallcost.toml");
        let f = Flags {
            config_file: Some(settings),
            ..flags(None, &[])
        };
        let s = source(&f).unwrap();
        assert_eq!(s.label, "tests/fixtures/compare/steady.toml");
        // the settings' profile is absent: only the config's chains, no [request] override
        assert!(s.overrides.is_empty(), "{:?}", s.overrides);
        assert!(!s.provenance.is_empty());
        // a --scenario given replaces both the settings' scenario and config
        let f = Flags {
            config_file: Some(settings),
            ..flags(Some(Path::new("scenarios/sept3.toml")), &[])
        };
        let s = source(&f).unwrap();
        assert_eq!(s.label, "scenarios/sept3.toml");
        assert!(s.provenance.is_empty());
    }

    #[test]
    fn no_scenario_and_a_profile_without_config_are_refused() {
        let e = source(&flags(None, &[])).unwrap_err().to_string();
        assert!(e.ends_with("see `fallcost sweep --help`)"), "{e}");
        assert!(e.starts_with("the following required arguments were not provided: --scenario <PATH> or --config <FILE>"), "{e}");
        let f = Flags {
            profile: Some((100, 10)),
            ..flags(Some(Path::new("scenarios/sept3.toml")), &[])
        };
        let e = source(&f).unwrap_err().to_string();
        assert_eq!(e, "--profile prices a gateway config: it needs --config");
    }

    #[test]
    fn resolve_selects_chains_and_says_why_the_blend_is_left_out() {
        let f = flags(Some(Path::new("scenarios/sept3.toml")), &[]);
        let all = resolve(&f, &[]).unwrap();
        assert!(all.partial.is_none());
        let first = all.scenario.chains[0].name.clone();
        let one = resolve(&f, std::slice::from_ref(&first)).unwrap();
        assert_eq!(one.scenario.chains.len(), 1);
        assert_eq!(one.label, "scenarios/sept3.toml");
        let e = resolve(&f, &["nope".to_string()]).unwrap_err().to_string();
        assert!(
            e.starts_with("--chain nope: no such chain in scenario"),
            "{e}"
        );
    }
}
