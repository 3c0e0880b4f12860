//! Where every command's scenario and prices come from, declared and resolved once: the
//! source flags ([`SourceArgs`], flattened into `compare`, `sweep`, `tune`, `diff` and `check`;
//! [`NOT_TAKEN`] says which a command refuses), fallcost.toml's sections settled against them
//! ([`Project`]: `[compare]`, `[usage]`, `[prices]`, `[check]`; a flag given wins), and the
//! scenario they name: a `--scenario` file, or gateway configs (`--config`, priced with
//! `--profile` and `--pricing`) with an optional scenario for the request, steady state,
//! latency and incident, then `--set` overrides. [`resolve`] returns the parsed scenario
//! (`compare`), [`source`] its text before validation (`sweep` and `tune` validate it at every
//! point).

use std::path::{Path, PathBuf};

use crate::error::InputError;
use crate::input::gateway::Env;
use crate::input::gateway::price::{Provenance, Served, build_text};
use crate::input::settings::{
    self, CheckSettings, CompareSettings, OwnPrices, UsageSettings, parse_profile,
};
use crate::input::{read_text, scenario};
use crate::model::Scenario;

/// A scenario's text before validation (one type for a `--scenario` file and gateway configs).
pub use crate::input::source::Source;

/// The source flags: where a command's scenario, prices and project settings come from.
/// Declared once and flattened into `compare`, `sweep`, `tune`, `diff` and `check`; a flag a
/// command does not take is listed in [`NOT_TAKEN`] (hidden from its `--help`, refused with
/// why). A new flag is a field here and its use in [`source`] (or [`Project`]).
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct SourceArgs {
    /// The scenario file (TOML): request, chains, `[steady]`, `[incident]`. With `--config`
    /// (and for `diff`'s gateway configs), a scenario without `[[chain]]`: what the config
    /// cannot say (request, failure rates, latency, the incident). `check`: one more file to
    /// check. Default: fallcost.toml's `[compare] scenario` (`diff`: `[usage]`'s first).
    #[arg(long, short = 's', value_name = "PATH")]
    pub scenario: Option<PathBuf>,
    /// Price the chains of a gateway config (LiteLLM proxy config, Portkey config, OpenRouter
    /// request body; a folder is searched), with the retries, timeouts, cooldowns and call cap
    /// it sets. Repeatable. Every value taken is listed with its file and line. Default (with
    /// no --scenario either): fallcost.toml's `[compare] config`. `check`: more files to check.
    #[arg(long, value_name = "FILE")]
    pub config: Vec<PathBuf>,
    /// Prices for gateway configs: a bundled table name (`litellm-1.110.2`, `2026-07`),
    /// `latest` (the file `fallcost prices --update` downloaded), a fallcost TOML table, or
    /// LiteLLM's model_prices_and_context_window.json. Default: fallcost.toml's `[check]
    /// pricing` (`check`), else the bundled LiteLLM snapshot. Scenarios use their own
    /// `pricing`.
    #[arg(long, short = 'p', value_name = "NAME|PATH")]
    pub pricing: Option<String>,
    /// The request gateway configs are priced with: input and output tokens, over the
    /// scenario's `[request]`. Default: fallcost.toml's `profile` (`[compare]`, `[check]`,
    /// `[usage]`), else 2000/500.
    #[arg(long, value_name = "IN/OUT", value_parser = parse_profile)]
    pub profile: Option<(u64, u64)>,
    /// Project settings to read instead of the nearest fallcost.toml (from the current folder
    /// up to the repository's root). Flags win over the file.
    #[arg(long, value_name = "FILE")]
    pub config_file: Option<PathBuf>,
    /// Override a scenario value before validation, as in the file: `steady.failure_rate=0`,
    /// `incident.duration=45m`, `incident.failure=gray`. Repeatable. KEY is a TOML dotted key:
    /// a key holding a dot is double-quoted, as in the file, `--set
    /// 'latency."openai/gpt-5.6-sol".p50_s=1.5'` (single quotes keep the shell off the double
    /// ones); a key without dots needs none (`latency.anthropic/claude-sonnet-5.p50_s=1`).
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub set: Vec<(String, String)>,
    /// Only these chains (by name; repeatable). Default: every chain of the scenario. Keeping
    /// only some chains of a scenario with traffic shares leaves out the blended rows (they
    /// need every chain's share), with a note on standard error. `tune`: one search each;
    /// `diff`: the chains of either side.
    #[arg(long = "chain", value_name = "NAME")]
    pub chains: Vec<String>,
    /// A variable of the gateway proxy's environment: a model id a LiteLLM config reads from
    /// it (`model: os.environ/PRIMARY_MODEL`, or `${PRIMARY_MODEL}` filled by `envsubst`) is
    /// priced as VALUE, as the proxy reads it when it starts. Repeatable; over the environment
    /// fallcost runs in. `--env PRIMARY_MODEL=openai/gpt-4o`.
    #[arg(long = "env", value_name = "VAR=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
}

/// `--env VAR=VALUE`: a variable name (letters, digits and `_`, not starting with a digit, as a
/// shell names one) and its value, as written (it may hold `=`).
///
/// Errors: no `=`, or a name that is no variable's.
pub fn parse_env(s: &str) -> Result<(String, String), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| {
        format!("expected VAR=VALUE, e.g. PRIMARY_MODEL=openai/gpt-4o; got `{s}`")
    })?;
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(format!(
            "`{name}` is not a variable name (letters, digits and _, not starting with a digit); expected VAR=VALUE, e.g. PRIMARY_MODEL=openai/gpt-4o"
        ));
    }
    Ok((name.to_string(), value.to_string()))
}

/// The source flags each command refuses, and why (the others it takes): hidden from its
/// `--help` and refused when given ([`only_taken`]).
pub const NOT_TAKEN: &[(&str, &[&str], &str)] = &[
    (
        "diff",
        &["config"],
        "diff takes its gateway configs as BASE and HEAD paths",
    ),
    (
        "check",
        &["set", "chain"],
        "check judges every chain of its files as written",
    ),
];

/// `arg` as `command` takes it: a source flag [`NOT_TAKEN`] lists is hidden and refuses any
/// value (exit 2, saying why); every other argument unchanged. For clap's `mut_args`.
pub fn only_taken(command: &str, arg: clap::Arg) -> clap::Arg {
    let refused = NOT_TAKEN
        .iter()
        .find(|(c, flags, _)| *c == command && arg.get_long().is_some_and(|l| flags.contains(&l)));
    match refused {
        Some(&(_, _, why)) => arg
            .hide(true)
            .value_parser(move |_: &str| Err::<String, String>(format!("not taken: {why}"))),
        None => arg,
    }
}

/// `--set KEY=VALUE`. A value such as `1e12`, how people write a large whole number on a
/// command line (as `--mc 1e7` takes it), is a float in TOML that no token count accepts: a
/// whole number written with an exponent, up to 2^53, is passed on as its digits. A field that
/// takes any number reads the digits just as well.
///
/// Errors: no `=`, or an empty key.
pub fn parse_key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => {
            let v = match v.trim().parse::<f64>() {
                Ok(x)
                    if v.contains(['e', 'E'])
                        && !v.contains("inf")
                        && x.fract() == 0.0
                        && x.abs() <= 9_007_199_254_740_992.0 =>
                {
                    format!("{x:.0}")
                }
                _ => v.to_string(),
            };
            Ok((k.trim().to_string(), v))
        }
        _ => Err(format!(
            "expected KEY=VALUE, e.g. steady.failure_rate=0; got `{s}`"
        )),
    }
}

/// fallcost.toml, its sections settled for every command by one resolver: `--config-file`,
/// else the nearest file from the current folder up to the repository's root. Each section is
/// read when a command asks for it (a command never fails on a section it does not read).
#[derive(Debug, Clone, Copy)]
pub struct Project<'a> {
    /// `--config-file`.
    pub file: Option<&'a Path>,
}

/// The flags that win over fallcost.toml's `[usage]` (`tune`, `diff`).
#[derive(Debug, Clone, Default)]
pub struct UsageFlags {
    /// `--requests-per-month`: every chain's traffic (the per-chain figures are dropped).
    pub requests_per_month: Option<f64>,
    /// `--history` (`tune`) or `--incidents` (`diff`): incident history files.
    pub history: Vec<PathBuf>,
}

impl UsageFlags {
    /// Apply the flags to `usage`: `--requests-per-month` replaces its traffic (its source then
    /// named `--requests-per-month`), a history given replaces its history.
    pub fn apply(&self, usage: &mut UsageSettings) {
        if let Some(n) = self.requests_per_month {
            usage.requests_per_month = Some(n);
            usage.chains.clear();
            usage.file = "--requests-per-month".into();
        }
        if !self.history.is_empty() {
            usage.history = self.history.clone();
        }
    }
}

impl<'a> Project<'a> {
    /// The project settings `args` name (`--config-file`, else the nearest fallcost.toml).
    pub fn of(args: &'a SourceArgs) -> Self {
        Project {
            file: args.config_file.as_deref(),
        }
    }

    /// `[compare]`: config, scenario, profile.
    ///
    /// Errors (exit 2): unreadable or invalid settings, naming line and field.
    pub fn compare(&self) -> Result<CompareSettings, InputError> {
        settings::compare_settings(self.file)
    }

    /// `[prices]`: the project's own prices, over any table's.
    ///
    /// Errors: as [`Project::compare`].
    pub fn prices(&self) -> Result<OwnPrices, InputError> {
        settings::price_settings(self.file)
    }

    /// `[pricing]`: the bill's discounts and dated prices (`reconcile`).
    ///
    /// Errors: as [`Project::compare`].
    pub fn bill(&self) -> Result<settings::BillPricing, InputError> {
        settings::bill_pricing(self.file)
    }

    /// `[usage]` as read, its `file` empty when there is none.
    ///
    /// Errors: as [`Project::compare`].
    pub fn usage_as_read(&self) -> Result<UsageSettings, InputError> {
        settings::usage_settings(self.file)
    }

    /// `[usage]` with `flags` winning ([`UsageFlags::apply`]), its `file` named
    /// `fallcost.toml` when there is none.
    ///
    /// Errors: as [`Project::compare`].
    pub fn usage(&self, flags: &UsageFlags) -> Result<UsageSettings, InputError> {
        let mut usage = self.usage_as_read()?;
        if usage.file.is_empty() {
            usage.file = settings::FILE_NAME.into();
        }
        flags.apply(&mut usage);
        Ok(usage)
    }

    /// `[check]`; empty when there is no settings file.
    ///
    /// Errors: as [`Project::compare`].
    pub fn check(&self) -> Result<CheckSettings, InputError> {
        match self.file {
            Some(path) => settings::load(path),
            None => match std::env::current_dir()
                .ok()
                .and_then(|cwd| settings::find(&cwd))
            {
                Some(path) => settings::load(&path),
                None => Ok(CheckSettings::default()),
            },
        }
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

/// The scenario text `args` name for `command`, with the project settings filling what they
/// leave out: `config` and `scenario` when the command line names neither, `profile` when it
/// gives none.
///
/// Errors (exit 2): unreadable or invalid settings; neither a scenario nor a config (from the
/// flags or the settings); `--profile` or `--pricing` without a config; an unreadable scenario
/// or config, or a scenario with `[[chain]]` or `[policy]` beside `--config`.
pub fn source(command: &str, args: &SourceArgs) -> crate::ops::OpsResult<Source> {
    let project = Project::of(args);
    let settings = project.compare()?;
    // fallcost.toml [usage]: the request and reference incident `diff` and `check` use too.
    let usage = project.usage_as_read()?;
    let set: Vec<(String, String)> = usage
        .incident_overrides()
        .into_iter()
        .chain(args.set.iter().cloned())
        .collect();
    let configs = if args.config.is_empty() && args.scenario.is_none() {
        settings.config.clone().unwrap_or_default()
    } else {
        args.config.to_vec()
    };
    let scenario_path = args.scenario.clone().or(settings.scenario);
    if configs.is_empty() {
        let path = scenario_path
            .as_deref()
            .ok_or_else(|| crate::ops::OpsError::NoSource {
                command: command.to_string(),
            })?;
        if args.profile.is_some() {
            return Err(crate::ops::OpsError::ProfileWithoutConfig);
        }
        if args.pricing.is_some() {
            return Err(crate::ops::OpsError::PricingWithoutConfig);
        }
        if !args.env.is_empty() {
            return Err(crate::ops::OpsError::EnvWithoutConfig);
        }
        let base = match path.parent() {
            Some(b) if !b.as_os_str().is_empty() => b.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // fallcost.toml [prices]: the project's own prices, over the scenario's own table.
        return Ok(Source {
            label: path.display().to_string(),
            text: read_text(path)?,
            base,
            overrides: set,
            prices: project.prices()?.prices,
            ..Source::default()
        });
    }
    let profile = args.profile.or(settings.profile).or(usage.profile);
    let scenario_path = scenario_path.or(usage.scenario);
    // fallcost.toml [prices]: the project's own prices, over the table's (as `check` reads them).
    let own = project.prices()?;
    let mut built = build_text(
        &configs,
        scenario_path.as_deref(),
        profile,
        (args.pricing.as_deref(), &own),
        &Env::new(&args.env),
    )?;
    built.overrides.extend(set);
    Ok(built)
}

/// The scenario `args` name ([`source`]), validated, with only the chains its `--chain` names
/// (all without one).
///
/// Errors: as [`source`]; an invalid scenario (file:line:col and field); a `--chain` the
/// scenario does not have (naming the ones it has). All exit 2.
pub fn resolve(command: &str, args: &SourceArgs) -> crate::ops::OpsResult<Inputs> {
    let source = source(command, args)?;
    let mut scenario = source.parse()?;
    let partial = scenario::select_chains(&mut scenario, &args.chains)?;
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

    fn flags(scenario: Option<&Path>, config: &[PathBuf]) -> SourceArgs {
        SourceArgs {
            scenario: scenario.map(Path::to_path_buf),
            config: config.to_vec(),
            config_file: Some(no_compare_settings().to_path_buf()),
            ..SourceArgs::default()
        }
    }

    #[test]
    fn a_scenario_file_is_its_own_label_base_and_overrides() {
        let set = [("request.input_tokens".to_string(), "1234".to_string())];
        let f = SourceArgs {
            set: set.to_vec(),
            ..flags(Some(Path::new("scenarios/sept3.toml")), &[])
        };
        let s = source("sweep", &f).unwrap();
        assert_eq!(s.label, "scenarios/sept3.toml");
        assert_eq!(s.base, PathBuf::from("scenarios"));
        assert_eq!(s.overrides, set);
        assert!(s.provenance.is_empty());
        assert_eq!(s.parse().unwrap().request.input_tokens, 1234.0);
    }

    #[test]
    fn settings_fill_config_and_scenario_and_a_flag_wins() {
        let settings = Path::new("tests/fixtures/check/settings/fallcost.toml");
        let f = SourceArgs {
            config_file: Some(settings.to_path_buf()),
            ..flags(None, &[])
        };
        let s = source("sweep", &f).unwrap();
        assert_eq!(s.label, "tests/fixtures/compare/steady.toml");
        // the settings' profile is absent: only the config's chains, no [request] override
        assert!(s.overrides.is_empty(), "{:?}", s.overrides);
        assert!(!s.provenance.is_empty());
        // a --scenario given replaces both the settings' scenario and config
        let f = SourceArgs {
            config_file: Some(settings.to_path_buf()),
            ..flags(Some(Path::new("scenarios/sept3.toml")), &[])
        };
        let s = source("sweep", &f).unwrap();
        assert_eq!(s.label, "scenarios/sept3.toml");
        assert!(s.provenance.is_empty());
    }

    #[test]
    fn no_scenario_and_a_profile_without_config_are_refused() {
        let e = source("sweep", &flags(None, &[])).unwrap_err().to_string();
        assert!(e.ends_with("see `fallcost sweep --help`)"), "{e}");
        assert!(e.starts_with("the following required arguments were not provided: --scenario <PATH> or --config <FILE>"), "{e}");
        let f = SourceArgs {
            profile: Some((100, 10)),
            ..flags(Some(Path::new("scenarios/sept3.toml")), &[])
        };
        let e = source("sweep", &f).unwrap_err().to_string();
        assert_eq!(e, "--profile prices a gateway config: it needs --config");
    }

    #[test]
    fn resolve_selects_chains_and_says_why_the_blend_is_left_out() {
        let f = flags(Some(Path::new("scenarios/sept3.toml")), &[]);
        let all = resolve("compare", &f).unwrap();
        assert!(all.partial.is_none());
        let first = all.scenario.chains[0].name.clone();
        let one = SourceArgs {
            chains: vec![first],
            ..f.clone()
        };
        let one = resolve("compare", &one).unwrap();
        assert_eq!(one.scenario.chains.len(), 1);
        assert_eq!(one.label, "scenarios/sept3.toml");
        let nope = SourceArgs {
            chains: vec!["nope".to_string()],
            ..f
        };
        let e = resolve("compare", &nope).unwrap_err().to_string();
        assert!(
            e.starts_with("--chain nope: no such chain in scenario"),
            "{e}"
        );
    }
}
