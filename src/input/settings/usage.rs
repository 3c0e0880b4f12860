//! `[usage]` of `fallcost.toml`: the usage assumptions no gateway config holds (the team's
//! traffic, the request profile, the reference incident, the incident history, the budget),
//! in one place so that `diff`, `compare` and `check` price the same month.
//!
//! ```toml
//! `[usage]`
//! scenario = "usage.toml"           # request, `[steady]`, `[latency]`, `[incident]` for gateway configs
//! profile = "2000/500"              # the request, INPUT/OUTPUT tokens (gateway configs)
//! requests_per_month = 3_000_000    # every chain's traffic unless listed below
//! incident = "3h"                   # the reference incident's duration
//! incident_requests_per_second = 1  # its traffic (default: requests_per_month's average rate)
//! history = ["incidents.json"]      # an incident history: the annual premium and its p95
//! budget = 5000                     # USD per month (--budget)
//! context_window_share = 0.02      # requests that overflow the primary's context window
//! content_policy_share = 0.001      # requests the primary refuses (content policy)
//!
//! `[usage.chains]`                    # requests per month of a chain, or of a model group
//! "chat" = 2_000_000                # (every chain whose primary group is `chat`, by share)
//! ```
//!
//! Paths are relative to the file. A month is 730 hours (8,760 / 12), as cloud price pages
//! bill one.

use crate::error::ValueError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{InputError, InputErrorKind};
use crate::input::document::{Document, PathSegment};
use crate::model::condition::{ConditionalShares, StatedShare};

/// Seconds in a month: 730 hours (a year of 8,760 hours / 12).
pub const MONTH_S: f64 = 730.0 * 3600.0;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UsageSection {
    scenario: Option<String>,
    profile: Option<String>,
    requests_per_month: Option<f64>,
    incident: Option<String>,
    incident_requests_per_second: Option<f64>,
    history: Option<Vec<String>>,
    budget: Option<f64>,
    context_window_share: Option<f64>,
    content_policy_share: Option<f64>,
    chains: Option<BTreeMap<String, f64>>,
}

/// `[usage]` of `fallcost.toml`, validated; paths joined to the file's folder. Every field is
/// optional; a flag given on the command line wins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageSettings {
    /// The settings file, as shown in messages (`fallcost.toml`); empty without one.
    pub file: String,
    /// `scenario`: request, steady state, latency and incident for gateway configs.
    pub scenario: Option<PathBuf>,
    /// `profile`: input and output tokens of the request gateway configs are priced with.
    pub profile: Option<(u64, u64)>,
    /// `requests_per_month`: each chain's traffic, requests per month, unless `chains` lists it.
    pub requests_per_month: Option<f64>,
    /// `incident`: the reference incident's duration, seconds.
    pub incident_s: Option<f64>,
    /// `incident_requests_per_second`: its traffic, requests per second.
    pub incident_requests_per_second: Option<f64>,
    /// `history`: incident history files (Statuspage JSON or the CSV).
    pub history: Vec<PathBuf>,
    /// `budget`: USD per month.
    pub budget: Option<f64>,
    /// `[usage.chains]`: requests per month per chain name or model group, in key order.
    pub chains: Vec<(String, f64)>,
    /// `context_window_share` and `content_policy_share`: the share of requests that overflow
    /// the primary's context window, and that the primary refuses (the requests LiteLLM's
    /// `context_window_fallbacks` and `content_policy_fallbacks` take).
    pub shares: ConditionalShares,
}

impl UsageSettings {
    /// Requests per month of the chain `name` whose primary model group is `group` (`None`:
    /// the name's first word, as a LiteLLM chain's name starts with its group) and whose share
    /// of its route's traffic is `share` (the router's split over the group's deployments),
    /// with where the figure comes from: `[usage.chains]` by chain name, then by group (times
    /// the share), then `requests_per_month` (times the share). `None` without any.
    pub fn requests_of(
        &self,
        name: &str,
        group: Option<&str>,
        share: Option<f64>,
    ) -> Option<(f64, String)> {
        let at = |key: &str| format!("{} [usage.chains] \"{key}\"", self.file);
        if let Some((k, n)) = self.chains.iter().find(|(k, _)| k == name) {
            return Some((*n, at(k)));
        }
        let group = group.unwrap_or_else(|| name.split([' ', '(']).next().unwrap_or(name));
        let s = share.unwrap_or(1.0);
        if let Some((k, n)) = self.chains.iter().find(|(k, _)| k == group) {
            return Some((n * s, format!("{} × {s}", at(k))));
        }
        self.requests_per_month.map(|n| {
            let src = format!("{} [usage] requests_per_month", self.file);
            if s == 1.0 {
                (n, src)
            } else {
                (n * s, format!("{src} × traffic share {s}"))
            }
        })
    }

    /// The `--set` overrides the reference incident takes from these settings: its duration
    /// and its requests per second (given, else `requests_per_month`'s average rate over a
    /// month of [`MONTH_S`]). Empty when the settings name no incident.
    pub fn incident_overrides(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some(d) = self.incident_s {
            out.push(("incident.duration".to_string(), format!("{d}s")));
            let rate = self
                .incident_requests_per_second
                .or(self.requests_per_month.map(|n| n / MONTH_S));
            if let Some(r) = rate {
                out.push((
                    "incident.requests_per_second".to_string(),
                    crate::number::round_noise(r).to_string(),
                ));
            }
        }
        out
    }
}

/// The `[usage]` settings of the nearest `fallcost.toml` from the current folder (or of
/// `path`); empty when there is none or it has no `[usage]`.
///
/// Errors: an unreadable file, invalid TOML, an unknown key or a bad value (a negative or
/// non-finite count or budget, a bad duration or profile), with its line and column.
pub fn usage_settings(path: Option<&Path>) -> Result<UsageSettings, InputError> {
    let Some(path) = super::locate(path) else {
        return Ok(UsageSettings::default());
    };
    let (shown, text) = super::read(&path)?;
    let doc = Document::parse(&shown, &text)?;
    let file: super::SettingsFile = doc.deserialize()?;
    let Some(u) = file.usage else {
        return Ok(UsageSettings {
            file: shown,
            ..UsageSettings::default()
        });
    };
    let dir = path.parent().unwrap_or(Path::new(""));
    let at = |key: &str| {
        vec![
            PathSegment::Key("usage".into()),
            PathSegment::Key(key.into()),
        ]
    };
    let bad = |key: &str, m: String| doc.error_at(InputErrorKind::Invalid, &at(key), m);
    let count = |key: &str, v: Option<f64>| -> Result<Option<f64>, InputError> {
        match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => Err(bad(
                key,
                format!("expected a number ≥ 0, e.g. 3000000; got {x}"),
            )),
            v => Ok(v),
        }
    };
    let shares = conditional_shares(&doc, &shown, &u)?;
    let chains = usage_chains(&doc, u.chains.unwrap_or_default())?;
    let incident_s = match &u.incident {
        Some(d) => Some(incident_duration(d).map_err(|m| bad("incident", m.to_string()))?),
        None => None,
    };
    let rate = count(
        "incident_requests_per_second",
        u.incident_requests_per_second,
    )?;
    Ok(UsageSettings {
        file: shown,
        scenario: u.scenario.map(|p| super::tidy(&dir.join(p))),
        profile: match &u.profile {
            Some(p) => Some(super::parse_profile(p).map_err(|m| bad("profile", m))?),
            None => None,
        },
        requests_per_month: count("requests_per_month", u.requests_per_month)?,
        incident_s,
        incident_requests_per_second: rate,
        history: u
            .history
            .unwrap_or_default()
            .iter()
            .map(|p| super::tidy(&dir.join(p)))
            .collect(),
        budget: count("budget", u.budget)?,
        shares,
        chains,
    })
}

/// `context_window_share` and `content_policy_share`: each a share of requests, 0 to 1, said
/// to come from `file`'s `[usage]`.
///
/// Errors: a share outside 0 to 1 (or not finite), at its line.
fn conditional_shares(
    doc: &Document,
    file: &str,
    u: &UsageSection,
) -> Result<ConditionalShares, InputError> {
    let share = |key: &str, v: Option<f64>| -> Result<Option<StatedShare>, InputError> {
        let Some(x) = v else {
            return Ok(None);
        };
        crate::input::check_range(x, 0.0, 1.0).map_err(|e| {
            let at = [
                PathSegment::Key("usage".into()),
                PathSegment::Key(key.into()),
            ];
            doc.error_at(
                InputErrorKind::Invalid,
                &at,
                format!("a share of requests {e}"),
            )
        })?;
        Ok(Some(StatedShare {
            share: x,
            from: format!("{file} [usage] {key}"),
        }))
    };
    Ok(ConditionalShares {
        context_window: share("context_window_share", u.context_window_share)?,
        content_policy: share("content_policy_share", u.content_policy_share)?,
    })
}

/// `[usage.chains]`: each chain's requests per month, a number ≥ 0.
///
/// Errors: the first that is not, at its line.
fn usage_chains(
    doc: &Document,
    chains: impl IntoIterator<Item = (String, f64)>,
) -> Result<Vec<(String, f64)>, InputError> {
    let mut out = Vec::new();
    for (k, n) in chains {
        if !(n.is_finite() && n >= 0.0) {
            let p = [
                PathSegment::Key("usage".into()),
                PathSegment::Key("chains".into()),
                PathSegment::Key(k.clone()),
            ];
            return Err(doc.error_at(
                InputErrorKind::Invalid,
                &p,
                format!("expected requests per month ≥ 0; got {n}"),
            ));
        }
        out.push((k, n));
    }
    Ok(out)
}

/// `[usage] incident`: a duration > 0, seconds.
///
/// Errors: not a duration, or 0.
fn incident_duration(d: &str) -> Result<f64, ValueError> {
    let s = crate::input::duration::parse_seconds(d)?;
    if s > 0.0 {
        Ok(s)
    } else {
        Err(ValueError::Duration(format!(
            "expected a duration > 0; got {d}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fallcost-usage-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("fallcost.toml");
        std::fs::write(&f, text).unwrap();
        f
    }

    #[test]
    fn usage_is_read_with_paths_joined_and_values_checked() {
        let f = write(
            "ok",
            "[usage]\nrequests_per_month = 2_628_000\nincident = \"3h\"\nhistory = [\"h.json\"]\nbudget = 5000\n[usage.chains]\nchat = 1000\n",
        );
        let u = usage_settings(Some(&f)).unwrap();
        assert_eq!(u.requests_per_month, Some(2_628_000.0));
        assert_eq!(u.incident_s, Some(10_800.0));
        assert_eq!(u.history, vec![f.parent().unwrap().join("h.json")]);
        assert_eq!(u.budget, Some(5000.0));
        // 2,628,000 requests over 730 hours: exactly 1 request per second.
        assert_eq!(
            u.incident_overrides(),
            vec![
                ("incident.duration".to_string(), "10800s".to_string()),
                ("incident.requests_per_second".to_string(), "1".to_string())
            ]
        );
        // by chain name, by group (times the share), else the default
        assert_eq!(u.requests_of("chat", None, None).unwrap().0, 1000.0);
        assert_eq!(
            u.requests_of(
                "chat (router_settings.fallbacks) [gpt-4o, 75%]",
                None,
                Some(0.75)
            )
            .unwrap()
            .0,
            750.0
        );
        // a group named by the config, not the chain's first word
        assert_eq!(
            u.requests_of("renamed [x, 50%]", Some("chat"), Some(0.5))
                .unwrap()
                .0,
            500.0
        );
        let (n, src) = u.requests_of("other", None, None).unwrap();
        assert_eq!(n, 2_628_000.0);
        assert!(src.ends_with("[usage] requests_per_month"), "{src}");

        let f = write("bad", "[usage]\nbudget = -1\n");
        let e = usage_settings(Some(&f)).unwrap_err();
        assert_eq!(
            (e.location.unwrap().line, e.field.as_deref()),
            (2, Some("usage.budget"))
        );
        let f = write("typo", "[usage]\nrequests_per_mnth = 1\n");
        let e = usage_settings(Some(&f)).unwrap_err();
        assert!(e.to_string().contains("requests_per_mnth"), "{e}");
        // the shares of requests conditional fallbacks take: 0 to 1, said where they come from
        let f = write(
            "shares",
            "[usage]\ncontext_window_share = 0.02\ncontent_policy_share = 1.5\n",
        );
        let e = usage_settings(Some(&f)).unwrap_err();
        assert_eq!(
            (e.location.unwrap().line, e.field.as_deref()),
            (3, Some("usage.content_policy_share"))
        );
        let f = write("shares-ok", "[usage]\ncontext_window_share = 0.02\n");
        let s = usage_settings(Some(&f)).unwrap().shares;
        let cw = s
            .of(crate::model::condition::Condition::ContextWindow)
            .unwrap();
        assert_eq!(cw.share, 0.02);
        assert!(
            cw.from
                .ends_with("fallcost.toml [usage] context_window_share")
        );
        assert!(s.content_policy.is_none());
        let f = write("none", "[check]\nmax_ratio = 2\n");
        assert_eq!(usage_settings(Some(&f)).unwrap().requests_per_month, None);
    }
}
