//! The two sides of a diff: resolved from their paths (or HEAD's paths at a git ref, read with
//! `git show REF:path` into a temporary folder: no checkout), and priced chain by chain.

use super::gitref::{at_ref, in_repo};
use std::path::{Path, PathBuf};

use super::{DiffRequest, resolve_side};
use crate::input::gateway::Env;
use crate::input::gateway::price::{Provenance, Served};
use crate::input::history::History;
use crate::input::settings::UsageSettings;
use crate::input::settings::usage::MONTH_S;
use crate::model::{Pattern, Scenario};
use crate::number::round_noise;
use crate::report::diff::{Assumption, At, DiffFigures, SideMeta};

/// One side, resolved.
#[derive(Debug, Clone)]
pub struct DiffSide {
    /// The paths as given (`REF:path` for a git ref).
    pub label: String,
    /// The scenario, validated (no chain when the side's paths do not exist at the ref).
    pub scenario: Scenario,
    /// Values taken from gateway configs (file and line of each chain's primary).
    pub provenance: Vec<Provenance>,
    /// The gateway traffic each chain read from a config serves (route, primary, share).
    pub served: Vec<Served>,
    /// Every deployment of the configs' groups, fallbacks or not
    /// ([`crate::input::gateway::price::served_groups`]).
    pub lone: Vec<Served>,
    /// A scenario file's text, to find a chain's `name = "..."` line.
    pub text: Option<(String, String)>,
    /// The file the request, steady state and incident come from (a scenario, or the
    /// scenario gateway configs are priced with), as shown.
    pub scenario_file: String,
}

impl DiffSide {
    /// Where the configs declare group `group`'s first deployment.
    pub fn lone_at(&self, group: &str) -> Option<At> {
        self.lone.iter().find(|g| g.group == group).map(|g| At {
            file: g.config.clone(),
            line: g.line,
        })
    }

    /// The gateway traffic chain `name` serves, when it was read from a config.
    pub fn served(&self, name: &str) -> Option<&Served> {
        self.served.iter().find(|s| s.chain == name)
    }

    /// Requests per month of `chain` and where the figure comes from: a chain read from a
    /// gateway config gets its route's traffic (by chain name, by its primary group, else
    /// `requests_per_month`) times its share of the route as the router splits it, so a
    /// route's chains add up to the route's traffic; a scenario's chain by its name, times its
    /// `traffic_share`.
    pub fn requests(
        &self,
        chain: &crate::model::Chain,
        usage: &UsageSettings,
    ) -> Option<(f64, String)> {
        match self.served(&chain.name) {
            Some(s) => usage.requests_of(&chain.name, Some(&s.group), Some(s.share)),
            None => usage.requests_of(&chain.name, None, chain.traffic_share),
        }
    }

    /// The side as the report names it.
    pub fn meta(&self) -> SideMeta {
        SideMeta {
            label: self.label.clone(),
            scenario: self.scenario.name.clone(),
            pricing: self.scenario.pricing.clone(),
        }
    }

    /// Where the side writes one of `models` in chain `name` (a config's line for that link,
    /// the line a pull request changed), else where it writes the chain ([`DiffSide::at`]).
    pub fn at_models(&self, name: &str, models: &[&str]) -> Option<At> {
        self.provenance
            .iter()
            .find(|p| p.chain == name && models.iter().any(|m| p.what.contains(&format!("`{m}`"))))
            .map(|p| At {
                file: p.file.clone(),
                line: p.line,
            })
            .or_else(|| self.at(name))
    }

    /// The line a pull request changed to bring `models` into chain `name`, given the `base`
    /// side: where a group the chain falls back to (or starts from) kept its name and changed
    /// its model, the deployment's line (`litellm_params.model`); else where the chain names
    /// the link (a fallbacks entry: a new group in the list), as [`DiffSide::at_models`].
    pub fn at_change(&self, base: &DiffSide, name: &str, models: &[&str]) -> Option<At> {
        let named = |group: &str| {
            let quoted = format!("`{group}`");
            self.provenance
                .iter()
                .any(|p| p.chain == name && p.what.contains(&quoted))
        };
        self.lone
            .iter()
            .filter(|g| models.contains(&g.primary.as_str()) && named(&g.group))
            .find(|g| {
                base.lone
                    .iter()
                    .any(|b| b.group == g.group && !models.contains(&b.primary.as_str()))
            })
            .map(|g| At {
                file: g.config.clone(),
                line: g.line,
            })
            .or_else(|| self.at_models(name, models))
    }

    /// Where the side writes chain `name`: a scenario's `name = "NAME"` line, else the first
    /// value a config gave the chain.
    pub fn at(&self, name: &str) -> Option<At> {
        if let Some((file, text)) = &self.text {
            let quoted = format!("\"{name}\"");
            let line = text.lines().position(|l| {
                let l = l.trim_start();
                l.starts_with("name") && l.contains(&quoted)
            })?;
            return Some(At {
                file: file.clone(),
                line: line + 1,
            });
        }
        self.provenance
            .iter()
            .find(|p| p.chain == name)
            .map(|p| At {
                file: p.file.clone(),
                line: p.line,
            })
    }
}

/// BASE and HEAD, resolved with their usage settings (`usage_b`, `usage`: the same unless
/// `[usage]` changed between the refs). A side with no chain (its paths
/// missing at the ref or, with `--base-ref`, deleted in HEAD; configs with no fallback left) is
/// the other side's scenario with no chain: it serves no traffic and prices at 0.
///
/// Errors: as `compare`'s inputs (`ops::inputs::resolve`); with `--base-ref`, git failing to
/// list or show a path; both sides empty.
pub fn resolve(
    req: &DiffRequest,
    usage_b: &UsageSettings,
    usage: &UsageSettings,
) -> crate::ops::OpsResult<(DiffSide, DiffSide)> {
    let deleted = req.base_ref.is_some() && req.head.iter().all(|p| !p.exists());
    let head = match deleted {
        true => Err(Vec::new()),
        false => maybe_empty(
            side(req, usage, &req.head, label(&req.head)),
            &req.head,
            req,
        )?,
    };
    let (base, base_label) = match &req.base_ref {
        None => (
            maybe_empty(
                side(req, usage_b, &req.base, label(&req.base)),
                &req.base,
                req,
            )?,
            label(&req.base),
        ),
        Some(r) => base_at_ref(req, usage_b, r)?,
    };
    match (base, head) {
        (Ok(b), Ok(h)) => Ok((b, h)),
        (Ok(b), Err(lone)) => {
            let h = empty_side(&b, label(&req.head), lone);
            Ok((b, h))
        }
        (Err(lone), Ok(h)) => Ok((empty_side(&h, base_label, lone), h)),
        (Err(_), Err(_)) => Err(crate::ops::OpsError::NothingToDiff {
            base: base_label,
            head: label(&req.head),
        }),
    }
}

/// BASE at git ref `r` (HEAD's paths as they are there, read from a temporary copy), and its
/// label: the paths at the ref, a renamed file under its name there
/// (`origin/main:old.yaml (renamed new.yaml)`).
///
/// Errors: git failing to list or show a path; the side's inputs.
fn base_at_ref(
    req: &DiffRequest,
    usage_b: &UsageSettings,
    r: &str,
) -> crate::ops::OpsResult<(MaybeEmpty, String)> {
    let (dir, paths, renamed) = at_ref(r, &req.head)?;
    let shown = req
        .head
        .iter()
        .map(|p| {
            let p = in_repo(p);
            match renamed.iter().find(|m| Path::new(&m.to) == p) {
                Some(m) => format!("{r}:{} (renamed {})", m.from, m.to),
                None => format!("{r}:{}", p.display()),
            }
        })
        .chain(
            renamed
                .iter()
                .filter(|m| !req.head.iter().any(|p| Path::new(&m.to) == in_repo(p)))
                .map(|m| format!("({} renamed {})", m.from, m.to)),
        )
        .collect::<Vec<_>>()
        .join(" ");
    let side = match paths.is_empty() {
        // Nothing at the ref: every chain of HEAD is new.
        true => Err(Vec::new()),
        false => {
            maybe_empty(side(req, usage_b, &paths, shown.clone()), &paths, req)?.map(|mut s| {
                // the ref's files as the repository names them, not the temporary copy
                let tmp = format!("{}/", dir.display());
                for x in &mut s.served {
                    x.config = x.config.replace(&tmp, "");
                }
                for x in &mut s.lone {
                    x.config = x.config.replace(&tmp, "");
                }
                s
            })
        }
    };
    let _ = std::fs::remove_dir_all(dir);
    Ok((side, shown))
}

/// A side with no chain: `other`'s scenario without its chains, serving no traffic (priced at
/// 0), with the groups `lone` that lost their fallback.
fn empty_side(other: &DiffSide, label: String, lone: Vec<Served>) -> DiffSide {
    DiffSide {
        label,
        scenario: Scenario {
            chains: Vec::new(),
            ..other.scenario.clone()
        },
        provenance: Vec::new(),
        served: Vec::new(),
        lone,
        text: None,
        scenario_file: other.scenario_file.clone(),
    }
}

/// A side, or (`Err`) the groups of configs that have no fallback chain left (an empty side:
/// its groups may still serve what lost its fallback).
type MaybeEmpty = Result<DiffSide, Vec<Served>>;

/// `side` as is, or [`MaybeEmpty`]'s `Err` for configs that have no fallback chain.
fn maybe_empty(
    side: crate::ops::OpsResult<DiffSide>,
    paths: &[PathBuf],
    req: &DiffRequest,
) -> crate::ops::OpsResult<MaybeEmpty> {
    match side {
        Err(e) if e.to_string().contains("no fallback chain found") => Ok(Err(
            crate::input::gateway::price::served_groups(paths, &Env::new(&req.source.env))?,
        )),
        r => r.map(Ok),
    }
}

fn label(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn side(
    req: &DiffRequest,
    usage: &UsageSettings,
    paths: &[PathBuf],
    label: String,
) -> crate::ops::OpsResult<DiffSide> {
    let inputs = resolve_side(req, usage, paths)?;
    let text = match paths {
        [p] if p.is_file() && p.extension().is_some_and(|e| e == "toml") => Some((
            p.display().to_string(),
            crate::input::read_text(p).unwrap_or_default(),
        )),
        _ => None,
    };
    let scenario_file = match &text {
        Some((f, _)) => f.clone(),
        None => req
            .source
            .scenario
            .as_deref()
            .or(usage.scenario.as_deref())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| format!("{} (gateway defaults)", inputs.label)),
    };
    let lone = match text {
        Some(_) => Vec::new(),
        None => crate::input::gateway::price::served_groups(paths, &Env::new(&req.source.env))?,
    };
    Ok(DiffSide {
        label,
        scenario: inputs.scenario,
        provenance: inputs.provenance,
        served: inputs.served,
        lone,
        text,
        scenario_file,
    })
}

/// One line naming the reference incident of both sides (`None` when either has none): its
/// duration, traffic and sessions, and HEAD's where they differ. `rates` are the requests per
/// second the chains' incidents run at when each runs at its own traffic (empty: the
/// scenario's rate); `providers` the providers whose outage each chain's incident is (its
/// primary's), said when the totals add several.
pub fn incident_line(
    base: &Scenario,
    head: &Scenario,
    rates: &[f64],
    providers: &[(String, String)],
) -> Option<String> {
    let show = |s: &Scenario| {
        s.incident.as_ref().map(|i| {
            let d = crate::number::format_seconds(i.duration_s);
            let lo = rates.iter().copied().reduce(f64::min);
            let hi = rates.iter().copied().reduce(f64::max);
            match (lo, hi) {
                (Some(lo), Some(hi)) if round_noise(lo) != round_noise(hi) => format!(
                    "{d} outage in sessions of {}, each chain at its own traffic (requests_per_month / 730 hours): {} to {} req/s",
                    i.session_length,
                    crate::number::count(round_noise(lo)),
                    crate::number::count(round_noise(hi))
                ),
                (Some(r), _) => format!(
                    "{d} outage, {} requests at {} req/s (each chain's own traffic) in sessions of {}",
                    crate::number::count((r * i.duration_s).round()),
                    crate::number::count(round_noise(r)),
                    i.session_length
                ),
                _ => format!(
                    "{d} outage, {} requests at {} req/s in sessions of {}",
                    crate::number::count(i.requests() as f64),
                    round_noise(i.requests_per_second),
                    i.session_length
                ),
            }
        })
    };
    let (b, h) = (show(base)?, show(head)?);
    let mut line = if b == h {
        h
    } else {
        format!("{b} (BASE); {h} (HEAD)")
    };
    let mut names: Vec<&str> = providers.iter().flat_map(|p| p.1.split(", ")).collect();
    names.sort_unstable();
    names.dedup();
    let own = head.incident.as_ref().is_some_and(|i| i.timeline.is_none());
    if own && names.len() > 1 {
        let each: Vec<String> = providers
            .iter()
            .map(|(c, p)| format!("{p} for {c}"))
            .collect();
        line.push_str(&format!(
            "; each chain's outage is its primary's provider down, and the totals add them ({}): not one outage of all",
            each.join(", ")
        ));
    }
    Some(line)
}

/// A chain's reference-incident rate from its monthly traffic (`None`: the scenario's).
pub(super) fn chain_rate(usage: &UsageSettings, requests: Option<f64>) -> Option<f64> {
    requests
        .filter(|_| usage.incident_requests_per_second.is_none())
        .map(|n| n / MONTH_S)
}

/// Chain `chain` of `s` priced alone at `requests` per month, as [`figures`] prices it.
pub fn alone_as_priced(
    s: &Scenario,
    chain: &crate::model::Chain,
    usage: &UsageSettings,
    requests: Option<f64>,
) -> Scenario {
    alone(s, chain, chain_rate(usage, requests))
}

/// Chain `chain` of `s` alone, its reference incident at `rate` requests per second (the
/// chain's own traffic) when given, else at its share of the scenario's.
fn alone(s: &Scenario, chain: &crate::model::Chain, rate: Option<f64>) -> Scenario {
    let mut one = s.clone();
    one.incident = s.incident.as_ref().map(|i| crate::model::Incident {
        requests_per_second: rate.unwrap_or_else(|| i.for_chain(chain).requests_per_second),
        ..i.clone()
    });
    one.chains = vec![crate::model::Chain {
        traffic_share: None,
        ..chain.clone()
    }];
    one
}

/// One chain's traffic: requests per month and where the figure comes from.
pub type Traffic = Option<(f64, String)>;

/// Every chain's figures on `side` under `req.pattern`, each at its traffic (`traffic[i]` for
/// chain `i`), with the assumptions each rests on ([`chain_figures`]).
///
/// Errors: a history that does not fit the side's chains (`ops::history::replay`).
pub fn figures(
    side: &DiffSide,
    req: &DiffRequest,
    usage: &UsageSettings,
    history: Option<&History>,
    traffic: &[Traffic],
) -> crate::ops::OpsResult<Vec<(String, DiffFigures, Vec<Assumption>)>> {
    side.scenario
        .chains
        .iter()
        .zip(traffic)
        .map(|(chain, t)| chain_figures(&side.scenario, chain, t.clone(), req, usage, history))
        .collect()
}

/// Chain `chain` of scenario `s` priced alone under `req.pattern` at `traffic`: its reference
/// incident (and the history's years) at the chain's own requests per month spread evenly over
/// a month of 730 hours, when the usage gives them and no `incident_requests_per_second`; else
/// at the scenario's rate (times the chain's traffic share).
///
/// Errors: a history that does not fit the chain (`ops::history::replay`).
pub fn chain_figures(
    s: &Scenario,
    chain: &crate::model::Chain,
    traffic: Traffic,
    req: &DiffRequest,
    usage: &UsageSettings,
    history: Option<&History>,
) -> crate::ops::OpsResult<(String, DiffFigures, Vec<Assumption>)> {
    {
        let (requests, source) = match traffic {
            Some((n, src)) => (Some(n), Some(src)),
            None => (None, None),
        };
        let rate = chain_rate(usage, requests);
        let one = alone(s, chain, rate);
        let report = crate::ops::compare::analytic(&one);
        let pattern = if report.steady.iter().any(|r| r.pattern == req.pattern) {
            req.pattern
        } else {
            Pattern::NoFallback
        };
        let steady = report.steady.iter().find(|r| r.pattern == pattern);
        let incident = report.incident.iter().find(|r| r.pattern == pattern);
        let touched = history.is_some_and(|h| {
            h.incidents
                .iter()
                .any(|i| chain.links.iter().any(|l| l.price.provider == i.provider))
        });
        let years = match history {
            Some(h) if one.incident.is_some() && touched => years(&one, h, usage, req)?,
            _ => Vec::new(),
        };
        // A chain none of whose providers the history names pays no premium.
        let untouched = history.is_some() && one.incident.is_some() && !touched;
        let year = years.iter().find(|r| r.pattern == pattern);
        let per_1k = steady.map(|r| r.analytic.cost_per_1k_usd);
        let per_month = per_1k
            .zip(requests)
            .map(|(c, n)| round_noise(c * n / 1000.0));
        let excess = incident.map(|r| r.analytic.excess_usd);
        let at_risk = match (per_month, year, excess) {
            (Some(m), Some(y), _) => Some(round_noise(m + y.premium_p95_usd.max(0.0))),
            (Some(m), None, Some(e)) => Some(round_noise(m + e.max(0.0))),
            (Some(m), None, None) => Some(m),
            _ => None,
        };
        let figs = DiffFigures {
            per_1k_usd: per_1k,
            requests_per_month: requests,
            per_month_usd: per_month,
            incident_usd: incident.map(|r| r.analytic.total_usd),
            incident_excess_usd: excess,
            incident_failed: incident.map(|r| r.analytic.failed_requests),
            premium_per_year_usd: year
                .map(|y| y.premium_mean_usd)
                .or(untouched.then_some(0.0)),
            premium_p95_usd: year.map(|y| y.premium_p95_usd).or(untouched.then_some(0.0)),
            failed_per_year: year.map(|y| y.failed_per_year).or(untouched.then_some(0.0)),
            availability: year.map(|y| y.availability).or(untouched.then_some(1.0)),
            worst_ratio: worst_ratio(s, chain),
            month_at_risk_usd: at_risk,
        };
        let assumptions = traffic_assumptions(requests.zip(source), rate, &one);
        Ok((chain.name.clone(), figs, assumptions))
    }
}

/// The assumptions behind a chain's figures: its requests per month and where they were read
/// (`traffic`), and the incident's request rate from them (`rate`, on the chain alone: `one`).
fn traffic_assumptions(
    traffic: Option<(f64, String)>,
    rate: Option<f64>,
    one: &Scenario,
) -> Vec<Assumption> {
    let mut assumptions = Vec::new();
    if let Some((n, src)) = traffic {
        assumptions.push(Assumption {
            key: "requests_per_month".into(),
            value: crate::number::count(n),
            source: src,
        });
    }
    if let (Some(r), Some(i)) = (rate, &one.incident) {
        assumptions.push(Assumption {
            key: "incident_requests_per_second".into(),
            value: crate::number::count(round_noise(r)),
            source: format!(
                "requests_per_month / 730 hours ({} requests in the {} window)",
                crate::number::count(i.requests() as f64),
                crate::number::format_seconds(i.duration_s)
            ),
        });
    }
    assumptions
}

/// The dearest fallback's like-for-like price (warm, per request) over the primary's; `None`
/// for a one-link chain or a free primary.
fn worst_ratio(s: &Scenario, chain: &crate::model::Chain) -> Option<f64> {
    let req = &s.request;
    let p0 = req.like_for_like(&chain.links.first()?.price);
    if p0 <= 0.0 {
        return None;
    }
    chain.links[1..]
        .iter()
        .map(|l| req.like_for_like(&l.price) / p0)
        .reduce(f64::max)
        .map(round_noise)
}

/// The simulated years of `history` on `s`'s chains (`ops::history::years`).
fn years(
    s: &Scenario,
    history: &History,
    usage: &UsageSettings,
    req: &DiffRequest,
) -> crate::ops::OpsResult<Vec<crate::report::history::YearsRow>> {
    let inputs = crate::ops::history::ReplayInputs {
        files: usage
            .history
            .iter()
            .map(|p| crate::input::shown_path(p))
            .collect(),
        minor_error_rate: crate::input::history::DEFAULT_MINOR_ERROR_RATE,
    };
    let mut report = crate::ops::history::replay(s, history, &inputs)?;
    let request = crate::ops::history::YearsRequest {
        years: req.years,
        seed: req.seed,
        cluster: None,
    };
    crate::ops::history::years(s, request, &mut report)?;
    Ok(report.years.map(|y| y.rows).unwrap_or_default())
}

/// The assumptions every figure of the report rests on, with where each was read.
pub fn assumptions(
    head: &DiffSide,
    usage: &UsageSettings,
    req: &DiffRequest,
    budget: Option<f64>,
) -> Vec<Assumption> {
    let s = &head.scenario;
    let mut out = vec![Assumption {
        key: "pattern".into(),
        value: req.pattern.as_str().into(),
        source: "--pattern (default sequential: a gateway's failover)".into(),
    }];
    let r = &s.request;
    let profile_src = if req.source.profile.is_some() {
        "--profile".to_string()
    } else if usage.profile.is_some() {
        format!("{} [usage] profile", usage.file)
    } else {
        format!("{} [request]", head.scenario_file)
    };
    out.push(Assumption {
        key: "request".into(),
        value: format!(
            "{} input + {} cacheable prefix + {} output tokens",
            crate::number::count(r.input_tokens),
            crate::number::count(r.prefix_tokens),
            crate::number::count(r.output_tokens)
        ),
        source: profile_src,
    });
    if let Some(i) = &s.incident {
        out.push(Assumption {
            key: "incident".into(),
            value: format!(
                "{} at {} req/s, sessions of {}",
                crate::number::format_seconds(i.duration_s),
                round_noise(i.requests_per_second),
                i.session_length
            ),
            source: match usage.incident_s {
                Some(_) => format!("{} [usage] incident", usage.file),
                None => format!("{} [incident]", head.scenario_file),
            },
        });
    }
    out.push(Assumption {
        key: "month".into(),
        value: format!("{} hours", MONTH_S / 3600.0),
        source: "8,760 hours a year / 12, as cloud bills count a month".into(),
    });
    out.extend(history_and_budget(usage, req, budget));
    out
}

/// The assumptions on the incident history (with `usage`'s) and the budget (with one).
fn history_and_budget(
    usage: &UsageSettings,
    req: &DiffRequest,
    budget: Option<f64>,
) -> Vec<Assumption> {
    let mut out = Vec::new();
    if !usage.history.is_empty() {
        out.push(Assumption {
            key: "history".into(),
            value: format!(
                "{} ({} simulated years, seed {})",
                usage
                    .history
                    .iter()
                    .map(|p| crate::input::shown_path(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                crate::number::count(req.years as f64),
                req.seed
            ),
            source: if req.incidents.is_empty() {
                format!("{} [usage] history", usage.file)
            } else {
                "--incidents".into()
            },
        });
    }
    if let Some(b) = budget {
        out.push(Assumption {
            key: "budget".into(),
            value: format!("${}/month", crate::number::money(b)),
            source: if req.budget.is_some() {
                "--budget".into()
            } else {
                format!("{} [usage] budget", usage.file)
            },
        });
    }
    out
}
