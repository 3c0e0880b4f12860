//! BASE's own usage assumptions with `--base-ref`: `fallcost.toml` and the files its `[usage]`
//! names (the usage scenario, the incident history) as they are at the ref, read with
//! `git show` into a temporary folder, and what differs from HEAD's.

use std::path::{Path, PathBuf};

use crate::input::settings::UsageSettings;
use crate::report::diff::Change;

/// BASE's usage read at a ref: the settings (paths inside `dir`) and the temporary folder.
pub struct AtRef {
    /// The settings as they are at the ref.
    pub usage: UsageSettings,
    /// The folder holding the ref's files (removed by [`AtRef::clean`]).
    pub dir: PathBuf,
}

impl AtRef {
    /// Remove the temporary folder.
    pub fn clean(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `git show REF:./path`: the file's bytes, `None` when the ref has no such file.
fn show(r: &str, path: &Path) -> Option<Vec<u8>> {
    let out = std::process::Command::new("git")
        .args(["show", &format!("{r}:./{}", path.display())])
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// The settings file HEAD reads (`config_file`, else the nearest `fallcost.toml`) and the
/// files its `[usage]` names, as they are at git ref `r`; `None` when HEAD reads no settings
/// file or it is not at the ref.
///
/// Errors: the ref's settings are invalid (as [`crate::input::settings::usage_settings`]).
pub fn at_ref(
    r: &str,
    config_file: Option<&Path>,
    head: &UsageSettings,
) -> crate::ops::OpsResult<Option<AtRef>> {
    let cwd = std::env::current_dir().map_err(|e| crate::ops::OpsError::io(".", e))?;
    let Some(path) = config_file
        .map(Path::to_path_buf)
        .or_else(|| crate::input::settings::find(&cwd))
    else {
        return Ok(None);
    };
    // as git names each file from here (`../fallcost.toml` from a subfolder), and where its
    // copy goes inside the temporary folder (`..` made a plain name: never outside it)
    let rel = super::gitref::in_repo;
    let Some(body) = show(r, &rel(&path)) else {
        return Ok(None);
    };
    let dir = std::env::temp_dir().join(format!(
        "fallcost-diff-usage-{}-{}",
        std::process::id(),
        crate::sim::rng::fresh_seed()
    ));
    let put = |p: &Path, body: &[u8]| -> crate::ops::OpsResult<()> {
        let target = dir.join(super::gitref::safe(p));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| crate::ops::OpsError::io(parent, e))?;
        }
        std::fs::write(&target, body).map_err(|e| crate::ops::OpsError::io(&target, e))?;
        Ok(())
    };
    put(&rel(&path), &body)?;
    let settings = dir.join(super::gitref::safe(&rel(&path)));
    let files: Vec<PathBuf> = head.scenario.iter().chain(&head.history).cloned().collect();
    // the files the ref's own [usage] names, besides HEAD's
    let first = crate::input::settings::usage_settings(Some(&settings))?;
    for p in first
        .scenario
        .iter()
        .chain(&first.history)
        .filter_map(|p| {
            let p = crate::input::settings::tidy_path(p);
            p.strip_prefix(&dir).ok().map(super::gitref::unsafe_back)
        })
        .chain(files.iter().map(|p| rel(p)))
    {
        if let Some(b) = show(r, &p) {
            put(&p, &b)?;
        }
    }
    let mut usage = crate::input::settings::usage_settings(Some(&settings))?;
    usage.file = format!("{r}:{}", head.file);
    Ok(Some(AtRef { usage, dir }))
}

/// Each chain's `[usage.chains]` share on both sides (`chains."NAME"`, then BASE's and HEAD's),
/// for every chain either side names, by name.
fn chain_shares(
    base: &UsageSettings,
    head: &UsageSettings,
) -> Vec<(String, Option<String>, Option<String>)> {
    let mut names: Vec<&String> = base
        .chains
        .iter()
        .chain(&head.chains)
        .map(|c| &c.0)
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|n| {
            let of = |u: &UsageSettings| {
                u.chains
                    .iter()
                    .find(|c| &c.0 == n)
                    .map(|c| crate::number::count(c.1))
            };
            (format!("chains.\"{n}\""), of(base), of(head))
        })
        .collect()
}

/// What differs between BASE's usage (its paths inside `dir`) and HEAD's: each `[usage]` key,
/// and the usage scenario's text.
pub fn changes(base: &UsageSettings, dir: &Path, head: &UsageSettings) -> Vec<Change> {
    // both sides' paths as git names them from here: BASE's copy inside `dir`, HEAD's file
    let shown = |p: &Path| -> String {
        let p = crate::input::settings::tidy_path(p);
        match p.strip_prefix(dir) {
            Ok(q) => super::gitref::unsafe_back(q),
            Err(_) => super::gitref::in_repo(&p),
        }
        .display()
        .to_string()
    };
    let mut out = Vec::new();
    let mut key = |what: &str, b: Option<String>, h: Option<String>| {
        if b != h {
            out.push(Change {
                what: format!("usage.{what}"),
                base: b,
                head: h,
            });
        }
    };
    let num = |x: Option<f64>| x.map(crate::number::count);
    key(
        "scenario",
        base.scenario.as_deref().map(shown),
        head.scenario.as_deref().map(shown),
    );
    key(
        "profile",
        base.profile.map(|(i, o)| format!("{i}/{o}")),
        head.profile.map(|(i, o)| format!("{i}/{o}")),
    );
    key(
        "requests_per_month",
        num(base.requests_per_month),
        num(head.requests_per_month),
    );
    key(
        "incident",
        base.incident_s.map(crate::number::format_seconds),
        head.incident_s.map(crate::number::format_seconds),
    );
    key(
        "incident_requests_per_second",
        num(base.incident_requests_per_second),
        num(head.incident_requests_per_second),
    );
    let list = |u: &UsageSettings| {
        let v: Vec<String> = u.history.iter().map(|p| shown(p)).collect();
        (!v.is_empty()).then(|| v.join(", "))
    };
    key("history", list(base), list(head));
    key("budget", num(base.budget), num(head.budget));
    for (what, b, h) in chain_shares(base, head) {
        key(&what, b, h);
    }
    if let (Some(b), Some(h)) = (&base.scenario, &head.scenario) {
        let (bt, ht) = (std::fs::read(b).ok(), std::fs::read(h).ok());
        if bt != ht {
            key(
                &format!("scenario ({})", shown(h)),
                Some("the ref's text".into()),
                Some("HEAD's text (request, failure rates or incident changed)".into()),
            );
        }
    }
    out
}
