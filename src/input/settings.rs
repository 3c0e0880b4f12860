//! Project settings: `fallcost.toml`, read as ruff reads `ruff.toml` and clippy `clippy.toml`.
//!
//! ```toml
//! [check]
//! max_ratio = 2.5                     # --max-ratio
//! allow = ["ollama", "lm_studio"]     # --allow (flags replace the list)
//! paths = ["scenarios/", "gateway/"]  # the PATHs when none is given; relative to this file
//! pricing = "2026-07"                 # --pricing: a bundled name or a file, relative to this file
//! profile = "2000/500"                # --profile
//! deny_warnings = true                # --deny-warnings
//!
//! [compare]                           # read by `fallcost compare`
//! config = ["gateway/config.yaml"]    # --config, when no --scenario and no --config is given
//! scenario = "steady.toml"            # --scenario (with `config`: one without [[chain]])
//! profile = "2000/500"                # --profile (with `config`)
//!
//! [prices."acme/big-model"]           # a model no price table has ($/MTok; see `prices`)
//! input = 5.00
//! output = 20.00
//! ```
//!
//! The file is the nearest `fallcost.toml` from the current folder up to the repository's root
//! (the first folder with `.git`), or the one `--config-file` names. A flag given on the command
//! line wins over the file. The file is strict like every input: an unknown key, a value of the
//! wrong type or out of range is an error naming its line and column (exit 2).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{InputError, InputErrorKind};
use crate::input::document::{Document, PathSegment};

pub mod bill;
pub mod prices;
pub mod usage;
pub use bill::{BillPricing, PriceChange, bill_pricing};
pub use prices::{OwnPrices, price_settings};
pub use usage::{UsageSettings, usage_settings};

/// The settings file's name.
pub const FILE_NAME: &str = "fallcost.toml";

/// `[check]` of `fallcost.toml`, validated. Relative paths are already joined to the file's
/// folder.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckSettings {
    /// The file the settings came from, as shown in messages.
    pub file: String,
    /// `max_ratio`: a number > 0.
    pub max_ratio: Option<f64>,
    /// `allow`: models and providers (see `fallcost check --allow`).
    pub allow: Option<Vec<String>>,
    /// `paths`: files or folders to check when the command line names none.
    pub paths: Option<Vec<PathBuf>>,
    /// `pricing`: a bundled table name or a path (joined to the file's folder).
    pub pricing: Option<String>,
    /// `profile`: input and output tokens of the request gateway configs are priced with.
    pub profile: Option<(u64, u64)>,
    /// `deny_warnings`.
    pub deny_warnings: Option<bool>,
    /// `requires`: capabilities every request needs (`tools`, `vision`, `json`).
    pub requires: Option<Vec<crate::model::fit::Capability>>,
    /// `deprecation_days`: a fallback retiring within this many days is a finding.
    pub deprecation_days: Option<u32>,
    /// `severity`: a fit finding kind ([`crate::model::fit::FIT_KINDS`]) to `error`,
    /// `warning` or `note` (validated).
    pub severity: Option<std::collections::BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    check: Option<CheckSection>,
    compare: Option<CompareSection>,
    usage: Option<usage::UsageSection>,
    prices: Option<std::collections::BTreeMap<String, prices::PriceEntry>>,
    pricing: Option<bill::PricingSection>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CompareSection {
    config: Option<Vec<String>>,
    scenario: Option<String>,
    profile: Option<String>,
}

/// `[compare]` of `fallcost.toml` (read by `compare`), validated; paths joined to the file's
/// folder. `config` and `scenario` apply when the command line names neither.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareSettings {
    /// `config`: gateway configs to price (`--config`).
    pub config: Option<Vec<PathBuf>>,
    /// `scenario`: the scenario (`--scenario`).
    pub scenario: Option<PathBuf>,
    /// `profile`: input and output tokens (`--profile`).
    pub profile: Option<(u64, u64)>,
}

/// The `[compare]` settings of the nearest `fallcost.toml` from the current folder (or of
/// `path`); empty when there is none.
///
/// Errors: as [`load`].
pub fn compare_settings(path: Option<&Path>) -> Result<CompareSettings, InputError> {
    let Some(path) = locate(path) else {
        return Ok(CompareSettings::default());
    };
    let (shown, text) = read(&path)?;
    let doc = Document::parse(&shown, &text)?;
    let file: SettingsFile = doc.deserialize()?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let Some(c) = file.compare else {
        return Ok(CompareSettings::default());
    };
    let profile = match &c.profile {
        Some(p) => Some(parse_profile(p).map_err(|m| {
            doc.error_at(
                InputErrorKind::Invalid,
                &[
                    PathSegment::Key("compare".into()),
                    PathSegment::Key("profile".into()),
                ],
                m,
            )
        })?),
        None => None,
    };
    Ok(CompareSettings {
        config: c
            .config
            .map(|ps| ps.iter().map(|p| tidy(&dir.join(p))).collect()),
        scenario: c.scenario.map(|p| tidy(&dir.join(p))),
        profile,
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckSection {
    max_ratio: Option<f64>,
    allow: Option<Vec<String>>,
    paths: Option<Vec<String>>,
    pricing: Option<String>,
    profile: Option<String>,
    deny_warnings: Option<bool>,
    requires: Option<Vec<String>>,
    deprecation_days: Option<u32>,
    severity: Option<std::collections::BTreeMap<String, String>>,
}

/// The settings file to read: `path` when given, else the nearest `fallcost.toml` from the
/// current folder ([`find`]); `None` when there is none.
fn locate(path: Option<&Path>) -> Option<PathBuf> {
    match path {
        Some(p) => Some(p.to_path_buf()),
        None => std::env::current_dir().ok().and_then(|cwd| find(&cwd)),
    }
}

/// The settings file at `path`: its path as shown in messages and its text.
///
/// Errors: a file that cannot be read, named as shown.
fn read(path: &Path) -> Result<(String, String), InputError> {
    let shown = crate::input::shown_path(path);
    let text = crate::input::read_text(path).map_err(|mut e| {
        e.file = shown.clone();
        e
    })?;
    Ok((shown, text))
}

/// The nearest `fallcost.toml` from `cwd` up to the repository's root (a folder holding
/// `.git`), as a path relative to `cwd` (`fallcost.toml`, `../fallcost.toml`); `None` when there
/// is none.
pub fn find(cwd: &Path) -> Option<PathBuf> {
    let mut rel = PathBuf::new();
    let mut dir = cwd.to_path_buf();
    loop {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(rel.join(FILE_NAME));
        }
        if dir.join(".git").exists() || !dir.pop() {
            return None;
        }
        rel.push("..");
    }
}

/// `path` with `dir/..` pairs and `.` removed, as written (no file system access), so that
/// findings name `routing/x.yaml`, not `settings/../routing/x.yaml`.
pub fn tidy_path(path: &Path) -> PathBuf {
    tidy(path)
}

fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.iter().collect()
}

/// Read the settings file at `path`.
///
/// Errors: a file that cannot be read; invalid TOML; an unknown key or a value of the wrong
/// type; `max_ratio` not > 0; `profile` not `IN/OUT` tokens; all with line and column.
pub fn load(path: &Path) -> Result<CheckSettings, InputError> {
    let (shown, text) = read(path)?;
    let doc = Document::parse(&shown, &text)?;
    let file: SettingsFile = doc.deserialize()?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut out = CheckSettings {
        file: shown.clone(),
        ..CheckSettings::default()
    };
    let Some(c) = file.check else {
        return Ok(out);
    };
    let at = |key: &str| {
        vec![
            PathSegment::Key("check".into()),
            PathSegment::Key(key.into()),
        ]
    };
    if let Some(r) = c.max_ratio {
        if !(r.is_finite() && r > 0.0) {
            return Err(doc.error_at(
                InputErrorKind::Invalid,
                &at("max_ratio"),
                format!("expected a number > 0, e.g. 2 or 1.5; got {r}"),
            ));
        }
        out.max_ratio = Some(r);
    }
    if let Some(p) = &c.profile {
        out.profile = Some(
            parse_profile(p)
                .map_err(|m| doc.error_at(InputErrorKind::Invalid, &at("profile"), m))?,
        );
    }
    if let Some(allow) = c.allow {
        if let Some(i) = allow.iter().position(|a| a.trim().is_empty()) {
            let mut path = at("allow");
            path.push(PathSegment::Index(i));
            return Err(doc.error_at(
                InputErrorKind::Invalid,
                &path,
                "expected a model id or a provider (`ollama`, `ollama/llama3`); got an empty string",
            ));
        }
        out.allow = Some(allow);
    }
    out.paths = c
        .paths
        .map(|ps| ps.iter().map(|p| tidy(&dir.join(p))).collect());
    out.pricing =
        c.pricing.map(
            |p| match crate::input::pricing::PricingRef::parse(&p, Some(dir)) {
                crate::input::pricing::PricingRef::Path(path) => tidy(&path).display().to_string(),
                crate::input::pricing::PricingRef::Bundled(name) => name,
            },
        );
    out.deny_warnings = c.deny_warnings;
    out.deprecation_days = c.deprecation_days;
    if let Some(req) = c.requires {
        let mut caps = Vec::new();
        for (i, r) in req.iter().enumerate() {
            let cap = crate::model::fit::Capability::parse(r.trim()).ok_or_else(|| {
                let mut path = at("requires");
                path.push(PathSegment::Index(i));
                doc.error_at(
                    InputErrorKind::Invalid,
                    &path,
                    format!("expected `tools`, `vision` or `json`; got `{r}`"),
                )
            })?;
            caps.push(cap);
        }
        out.requires = Some(caps);
    }
    if let Some(sev) = c.severity {
        let mut map = std::collections::BTreeMap::new();
        for (kind, level) in sev {
            let kinds = crate::model::fit::FIT_KINDS;
            let problem = if !kinds.contains(&kind.as_str()) {
                Some(format!(
                    "`{kind}` is not a finding kind whose severity can be set; one of: {}",
                    kinds.join(", ")
                ))
            } else if !["error", "warning", "note"].contains(&level.as_str()) {
                Some(format!(
                    "expected `error`, `warning` or `note`; got `{level}`"
                ))
            } else {
                None
            };
            if let Some(m) = problem {
                let mut path = at("severity");
                path.push(PathSegment::Key(kind.clone()));
                return Err(doc.error_at(InputErrorKind::Invalid, &path, m));
            }
            map.insert(kind, level);
        }
        out.severity = Some(map);
    }
    Ok(out)
}

/// `IN/OUT` tokens (`2000/500`), as `--profile` and fallcost.toml's `profile` take them.
///
/// Errors: not two whole numbers separated by `/`, a count above 2^40, or both 0.
pub fn parse_profile(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("expected INPUT/OUTPUT tokens, e.g. 2000/500; got `{s}`");
    let (i, o) = s.split_once('/').ok_or_else(bad)?;
    let i: u64 = i.trim().parse().map_err(|_| bad())?;
    let o: u64 = o.trim().parse().map_err(|_| bad())?;
    if i > 1 << 40 || o > 1 << 40 {
        return Err(format!("{s}: token counts above 2^40 are not a request"));
    }
    if i == 0 && o == 0 {
        return Err("a request of 0 tokens costs nothing anywhere; give a real profile".into());
    }
    Ok((i, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("fallcost-settings-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub/deeper")).unwrap();
        d
    }

    #[test]
    fn the_nearest_file_up_to_the_repository_root() {
        let d = dir("find");
        std::fs::create_dir_all(d.join(".git")).unwrap();
        assert_eq!(find(&d.join("sub/deeper")), None);
        std::fs::write(d.join(FILE_NAME), "").unwrap();
        assert_eq!(
            find(&d.join("sub/deeper")),
            Some(PathBuf::from("../../fallcost.toml"))
        );
        std::fs::write(d.join("sub").join(FILE_NAME), "").unwrap();
        assert_eq!(
            find(&d.join("sub/deeper")),
            Some(PathBuf::from("../fallcost.toml"))
        );
        // Not above the repository's root.
        let inner = d.join("sub/deeper");
        std::fs::create_dir_all(inner.join(".git")).unwrap();
        assert_eq!(find(&inner), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn values_are_checked_with_their_line() {
        let d = dir("load");
        let f = d.join(FILE_NAME);
        std::fs::write(
            &f,
            "[check]\nmax_ratio = 3\npaths = [\"gw\"]\npricing = \"prices.json\"\nprofile = \"100/50\"\nallow = [\"ollama\"]\n",
        )
        .unwrap();
        let s = load(&f).unwrap();
        assert_eq!(s.max_ratio, Some(3.0));
        assert_eq!(s.profile, Some((100, 50)));
        assert_eq!(s.paths, Some(vec![d.join("gw")]));
        assert_eq!(s.pricing, Some(d.join("prices.json").display().to_string()));
        std::fs::write(&f, "[check]\nmax_ratio = 0\n").unwrap();
        let e = load(&f).unwrap_err();
        assert_eq!(
            (e.location.unwrap().line, e.field.as_deref()),
            (2, Some("check.max_ratio"))
        );
        std::fs::write(&f, "[check]\nmax_ration = 2\n").unwrap();
        let e = load(&f).unwrap_err();
        assert_eq!(e.location.unwrap().line, 2);
        assert!(e.to_string().contains("max_ration"), "{e}");
        std::fs::write(&f, "[check]\nprofile = \"2000\"\n").unwrap();
        let e = load(&f).unwrap_err();
        assert!(e.message.contains("expected INPUT/OUTPUT"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
