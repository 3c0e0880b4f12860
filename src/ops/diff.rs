//! `fallcost diff` as an operation: price two sides (BASE and HEAD: scenarios, gateway configs
//! or folders, or the same paths at a git ref) under the same usage assumptions
//! (`fallcost.toml [usage]`, [`crate::input::settings::usage`]), match their chains by name
//! and report each chain's change, the totals, the thresholds crossed and the chains over
//! budget ([`crate::report::diff`]). With `--mc` the matched chains are simulated on common
//! random numbers ([`crn`]).
//!
//! Every figure is [`crate::ops::compare::analytic`]'s row for the chain under the chosen
//! pattern (`sequential` by default, what a gateway's failover runs): steady USD per 1,000
//! requests (MODEL.md §3, §4) and the reference incident's bill (§6); per month is per 1,000 ×
//! the chain's requests per month / 1,000; the annual premium is `ops::history`'s simulated
//! years on the same seed for both sides.

use std::path::{Path, PathBuf};

use crate::input::settings::UsageSettings;
use crate::model::{Chain, Pattern, Scenario};
use crate::number::round_noise;
use crate::ops::inputs::{self, Project, SourceArgs, UsageFlags};
use crate::report::diff::{
    Assumption, ChainDiff, Crossed, DiffFigures, DiffReport, FreePrimary, Status,
};

mod changes;
pub mod crn;
mod gitref;
pub mod matching;
pub mod sides;
pub mod usage;

pub use sides::DiffSide;

/// A `--fail-above` threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    /// The steady monthly total rises by more than this many percent (`10%`).
    Percent(f64),
    /// The steady monthly total rises by more than this many USD (`$500/month`).
    PerMonth(f64),
    /// The reference incident's bill rises by more than this many USD (`$1000/incident`).
    PerIncident(f64),
    /// A changed or added chain's worst fallback ratio is above this (`2x`).
    Ratio(f64),
    /// The reference incident's failed requests (every chain's, added up) rise by more than
    /// this many (`+100failed/incident`).
    FailedPerIncident(f64),
    /// The availability through the history's incidents (every chain's, weighted by its
    /// traffic) falls by more than this many percentage points (`-0.01%availability`).
    Availability(f64),
}

/// What to diff and how, resolved from the command line.
#[derive(Debug, Clone)]
pub struct DiffRequest<'a> {
    /// BASE's paths (ignored with `base_ref`).
    pub base: Vec<PathBuf>,
    /// HEAD's paths.
    pub head: Vec<PathBuf>,
    /// `--base-ref`: BASE is `head`'s paths at this git ref.
    pub base_ref: Option<String>,
    /// The source flags: `--scenario` (the request, steady state and incident gateway configs
    /// are priced with), `--pricing` and `--profile` (for gateway configs), `--set` (applied to
    /// both sides after the usage settings), `--config-file`, `--chain` (the chains of either
    /// side to diff).
    pub source: &'a SourceArgs,
    /// `--pattern`.
    pub pattern: Pattern,
    /// `--requests-per-month`: every chain's traffic (wins over `[usage]`).
    pub requests_per_month: Option<f64>,
    /// `--budget` USD per month (wins over `[usage] budget`).
    pub budget: Option<f64>,
    /// `--incidents`: history files (win over `[usage] history`).
    pub incidents: Vec<PathBuf>,
    /// Simulated years for the annual premium, and their seed.
    pub years: u64,
    /// The seed of the years and, with `mc`, of the Monte Carlo.
    pub seed: u64,
    /// `--fail-above`.
    pub thresholds: Vec<Threshold>,
    /// `--mc`: requests and windows per chain and side.
    pub mc: Option<crate::sim::McOptions>,
    /// `--usage head`: price BASE with HEAD's usage assumptions too (by default, with
    /// `--base-ref`, BASE is priced with fallcost.toml's `[usage]` as it is at the ref).
    pub hold_usage: bool,
}

/// Run the diff.
///
/// Errors (exit 2): an unreadable or invalid side (as `compare`'s), a git ref or path git
/// cannot show, invalid usage settings, a threshold that needs traffic or an incident the
/// inputs do not give.
pub fn diff(req: &DiffRequest) -> crate::ops::OpsResult<DiffReport> {
    let flags = UsageFlags {
        requests_per_month: req.requests_per_month,
        history: req.incidents.clone(),
    };
    let usage = Project::of(req.source).usage(&flags)?;
    let at_ref = match (&req.base_ref, req.hold_usage) {
        (Some(r), false) => usage::at_ref(r, req.source.config_file.as_deref(), &usage)?,
        _ => None,
    };
    let (usage_b, usage_changes) = match &at_ref {
        Some(a) => {
            let mut ub = a.usage.clone();
            flags.apply(&mut ub);
            let ch = usage::changes(&ub, &a.dir, &usage);
            match ch.is_empty() {
                true => (usage.clone(), ch),
                false => (ub, ch),
            }
        }
        None => (usage.clone(), Vec::new()),
    };
    let out = diff_with(req, &usage_b, &usage, usage_changes);
    if let Some(a) = at_ref {
        a.clean();
    }
    out
}

/// The diff with BASE priced under `usage_b` and HEAD under `usage` (the same but for a
/// `[usage]` changed between the refs: `usage_changes`).
fn diff_with(
    req: &DiffRequest,
    usage_b: &UsageSettings,
    usage: &UsageSettings,
    usage_changes: Vec<crate::report::diff::Change>,
) -> crate::ops::OpsResult<DiffReport> {
    let (mut base, mut head) = sides::resolve(req, usage_b, usage)?;
    select_chains(&req.source.chains, [&mut base, &mut head])?;
    let load =
        |u: &UsageSettings| -> crate::ops::OpsResult<Option<crate::input::history::History>> {
            Ok(match u.history.is_empty() {
                true => None,
                false => Some(crate::input::history::load(
                    &u.history,
                    &Default::default(),
                )?),
            })
        };
    let history = load(usage)?;
    let history_b = match usage_b.history == usage.history {
        true => history.clone(),
        false => load(usage_b)?,
    };
    let pairs = matching::pair(&base, &head, &head.lone);
    let today = crate::check::fit::today();
    let mut warnings: Vec<String> = crate::ops::compare::fit_warnings(&head.scenario, &today)
        .into_iter()
        .map(|w| format!("HEAD: {w}"))
        .collect();
    let (base_traffic, head_traffic) =
        traffic((usage_b, usage), (&base, &head), &pairs, &mut warnings);
    let base_figs = sides::figures(&base, req, usage_b, history_b.as_ref(), &base_traffic)?;
    let mut head_figs = sides::figures(&head, req, usage, history.as_ref(), &head_traffic)?;
    let budget = req.budget.or(usage.budget);
    let (chains, unchanged) = match_chains(
        req,
        usage,
        history.as_ref(),
        (&base, &base_figs),
        (&head, &mut head_figs),
        &pairs,
    )?;
    let rates: Vec<f64> = base_figs
        .iter()
        .chain(head_figs.iter())
        .filter_map(|f| sides::chain_rate(usage, f.1.requests_per_month))
        .collect();
    let providers = primary_providers(&base, &head);
    let base_total = total(base_figs.iter().map(|f| &f.1));
    let head_total = total(head_figs.iter().map(|f| &f.1));
    let diff_total = minus(&head_total, &base_total);
    let diff_month_ratio = match (diff_total.per_month_usd, base_total.per_month_usd) {
        (Some(d), Some(b)) if b > 0.0 => Some(round_noise(d / b)),
        _ => None,
    };
    let mut report = DiffReport {
        version: crate::report::diff::DIFF_VERSION,
        fallcost_version: env!("CARGO_PKG_VERSION"),
        pattern: req.pattern,
        base: base.meta(),
        head: head.meta(),
        incident: sides::incident_line(&base.scenario, &head.scenario, &rates, &providers),
        assumptions: sides::assumptions(&head, usage, req, budget),
        scenario_changes: changes::scenario(&base.scenario, &head.scenario),
        chains,
        unchanged,
        base_total,
        head_total,
        diff_total,
        diff_month_ratio,
        free_primaries: free_primaries(&head.scenario, &head_figs),
        budget_usd: budget,
        crossed: Vec::new(),
        mc: req.mc.map(|o| crn::meta(&o)),
        warnings,
        usage_changes,
    };
    report.crossed = crossed(&report, &head_figs, &req.thresholds)?;
    Ok(report)
}

/// Each side's chains' traffic (BASE under `usage_b`, HEAD under `usage`), HEAD's renamed
/// chains carrying BASE's; the warnings on usage keys that match no chain added.
fn traffic(
    (usage_b, usage): (&UsageSettings, &UsageSettings),
    (base, head): (&DiffSide, &DiffSide),
    pairs: &[matching::Pairing],
    warnings: &mut Vec<String>,
) -> (Vec<sides::Traffic>, Vec<sides::Traffic>) {
    let base_traffic: Vec<sides::Traffic> = base
        .scenario
        .chains
        .iter()
        .map(|c| base.requests(c, usage_b))
        .collect();
    let mut head_traffic: Vec<sides::Traffic> = head
        .scenario
        .chains
        .iter()
        .map(|c| head.requests(c, usage))
        .collect();
    matching::carry_renamed_traffic(
        (usage_b, usage),
        (base, head),
        pairs,
        &mut head_traffic,
        warnings,
    );
    matching::unmatched_keys(usage, (base, head), warnings);
    if usage_b != usage {
        matching::unmatched_keys(usage_b, (base, head), warnings);
        warnings.dedup();
    }
    (base_traffic, head_traffic)
}

/// The providers of the primaries serving each group (a gateway group, else a chain's name)
/// on either side: `(group, "provider, provider")`, in the order met.
fn primary_providers(base: &DiffSide, head: &DiffSide) -> Vec<(String, String)> {
    let mut providers: Vec<(String, String)> = Vec::new();
    for c in base.scenario.chains.iter().chain(&head.scenario.chains) {
        let group = [head, base]
            .iter()
            .find_map(|s| s.served(&c.name).map(|x| x.group.clone()))
            .unwrap_or_else(|| c.name.clone());
        let p = c
            .links
            .first()
            .map(|l| l.price.provider.clone())
            .unwrap_or_default();
        match providers.iter_mut().find(|x| x.0 == group) {
            Some(x) if !x.1.split(", ").any(|q| q == p) => x.1 = format!("{}, {p}", x.1),
            Some(_) => {}
            None => providers.push((group, p)),
        }
    }
    providers
}

/// A chain's models, primary first.
fn models(chain: &Chain) -> Vec<String> {
    chain.links.iter().map(|l| l.price.id.clone()).collect()
}

/// Whether some figure of a difference is not 0.
fn figures_differ(d: &DiffFigures) -> bool {
    figure_values(d).iter().any(|v| v.is_some_and(|x| x != 0.0))
}

/// Every figure of `d`, in declaration order.
fn figure_values(d: &DiffFigures) -> [Option<f64>; 12] {
    [
        d.per_1k_usd,
        d.requests_per_month,
        d.per_month_usd,
        d.incident_usd,
        d.incident_excess_usd,
        d.incident_failed,
        d.premium_per_year_usd,
        d.premium_p95_usd,
        d.failed_per_year,
        d.availability,
        d.worst_ratio,
        d.month_at_risk_usd,
    ]
}

/// HEAD − BASE, figure by figure, where both have it.
pub fn minus(h: &DiffFigures, b: &DiffFigures) -> DiffFigures {
    let d = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some(round_noise(x - y)),
        _ => None,
    };
    DiffFigures {
        per_1k_usd: d(h.per_1k_usd, b.per_1k_usd),
        requests_per_month: d(h.requests_per_month, b.requests_per_month),
        per_month_usd: d(h.per_month_usd, b.per_month_usd),
        incident_usd: d(h.incident_usd, b.incident_usd),
        incident_excess_usd: d(h.incident_excess_usd, b.incident_excess_usd),
        incident_failed: d(h.incident_failed, b.incident_failed),
        premium_per_year_usd: d(h.premium_per_year_usd, b.premium_per_year_usd),
        premium_p95_usd: d(h.premium_p95_usd, b.premium_p95_usd),
        failed_per_year: d(h.failed_per_year, b.failed_per_year),
        availability: d(h.availability, b.availability),
        worst_ratio: d(h.worst_ratio, b.worst_ratio),
        month_at_risk_usd: d(h.month_at_risk_usd, b.month_at_risk_usd),
    }
}

/// The chains of one side added up: sums where every chain has the figure (the incident and
/// premium figures: where any has it), per 1,000 the traffic-weighted mean, the availability
/// the traffic-weighted mean, the worst ratio the largest, the p95 left out (a sum of
/// percentiles is no percentile). A side with no chain serves no traffic: every sum is 0.
fn total<'a>(figs: impl Iterator<Item = &'a DiffFigures> + Clone) -> DiffFigures {
    let empty = figs.clone().next().is_none();
    let all = |f: fn(&DiffFigures) -> Option<f64>| -> Option<f64> {
        figs.clone()
            .map(f)
            .try_fold(0.0, |acc, v| v.map(|x| acc + x))
            .map(round_noise)
    };
    let any = |f: fn(&DiffFigures) -> Option<f64>| -> Option<f64> {
        let v: Vec<f64> = figs.clone().filter_map(f).collect();
        (empty || !v.is_empty()).then(|| round_noise(v.iter().sum()))
    };
    let requests = all(|f| f.requests_per_month);
    let month = all(|f| f.per_month_usd);
    let availability = {
        let v: Vec<(f64, f64)> = figs
            .clone()
            .filter_map(|f| Some((f.availability?, f.requests_per_month?)))
            .collect();
        let w: f64 = v.iter().map(|x| x.1).sum();
        (w > 0.0).then(|| v.iter().map(|(a, r)| a * r).sum::<f64>() / w)
    };
    DiffFigures {
        per_1k_usd: match (month, requests) {
            (Some(m), Some(r)) if r > 0.0 => Some(round_noise(m / r * 1000.0)),
            _ => None,
        },
        requests_per_month: requests,
        per_month_usd: month,
        incident_usd: any(|f| f.incident_usd),
        incident_excess_usd: any(|f| f.incident_excess_usd),
        incident_failed: any(|f| f.incident_failed),
        premium_per_year_usd: any(|f| f.premium_per_year_usd),
        premium_p95_usd: None,
        failed_per_year: any(|f| f.failed_per_year),
        availability,
        worst_ratio: figs.clone().filter_map(|f| f.worst_ratio).reduce(f64::max),
        month_at_risk_usd: all(|f| f.month_at_risk_usd),
    }
}

/// HEAD's chains whose primary is free (a local model, a free tier) with a paid fallback.
fn free_primaries(
    head: &Scenario,
    figs: &[(String, DiffFigures, Vec<Assumption>)],
) -> Vec<FreePrimary> {
    let req = &head.request;
    head.chains
        .iter()
        .zip(figs)
        .filter_map(|(c, (_, f, _))| {
            let primary = &c.links.first()?.price;
            if req.like_for_like(primary) > 0.0 {
                return None;
            }
            let paid = c.links[1..]
                .iter()
                .find(|l| req.like_for_like(&l.price) > 0.0)?;
            Some(FreePrimary {
                chain: c.name.clone(),
                primary: primary.id.clone(),
                fallback: paid.price.id.clone(),
                outage_usd: f.incident_usd,
            })
        })
        .collect()
}

/// The thresholds `report` crosses and HEAD's chains over the budget.
///
/// Errors (exit 2): a percent or per-month threshold without traffic, a per-incident one
/// without an incident on both sides.
fn crossed(
    report: &DiffReport,
    head: &[(String, DiffFigures, Vec<Assumption>)],
    thresholds: &[Threshold],
) -> crate::ops::OpsResult<Vec<Crossed>> {
    let mut out = Vec::new();
    for t in thresholds {
        match *t {
            Threshold::Ratio(r) => out.extend(ratio_crossed(report, r)),
            _ => out.extend(total_threshold(report, t)?),
        }
    }
    if let Some(budget) = report.budget_usd {
        for (name, f, _) in head {
            if let Some(m) = f.month_at_risk_usd.filter(|m| *m > budget) {
                out.push(Crossed {
                    kind: "budget",
                    limit: budget,
                    value: m,
                    chain: Some(name.clone()),
                    message: format!("chain `{name}`: a month with the reference incident costs ${}, above the budget of ${}/month", crate::number::money(m), crate::number::money(budget)),
                });
            }
        }
    }
    Ok(out)
}

/// The threshold `t` on the totals (every kind but a ratio), when the diff crosses it.
///
/// Errors: as [`crossed`].
fn total_threshold(report: &DiffReport, t: &Threshold) -> crate::ops::OpsResult<Option<Crossed>> {
    let d = &report.diff_total;
    let need_month = || crate::ops::OpsError::ThresholdNeedsTraffic;
    Ok(match *t {
        Threshold::Percent(p) => {
            let v = d.per_month_usd.ok_or_else(need_month)?;
            percent_crossed(report, p, v)
        }
        Threshold::PerMonth(x) => {
            let v = d.per_month_usd.ok_or_else(need_month)?;
            (v > x).then(|| {
                total_crossed(
                    "per_month_usd",
                    x,
                    v,
                    format!(
                        "the steady monthly bill rises ${}, above --fail-above ${x}/month",
                        crate::number::money(v)
                    ),
                )
            })
        }
        Threshold::PerIncident(x) => {
            let v = d
                .incident_usd
                .ok_or(crate::ops::OpsError::ThresholdNeedsIncident { per: "$/incident" })?;
            (v > x).then(|| {
                total_crossed(
                    "per_incident_usd",
                    x,
                    v,
                    format!(
                        "the reference incident's bill rises ${}, above --fail-above ${x}/incident",
                        crate::number::money(v)
                    ),
                )
            })
        }
        Threshold::FailedPerIncident(x) => {
            let v = d
                .incident_failed
                .ok_or(crate::ops::OpsError::ThresholdNeedsIncident {
                    per: "failed/incident",
                })?;
            (v > x).then(|| total_crossed("failed_per_incident", x, v, format!("the reference incident's failed requests rise by {}, above --fail-above +{}failed/incident", crate::number::count(v), crate::number::count(x))))
        }
        Threshold::Availability(x) => {
            let v = d
                .availability
                .ok_or(crate::ops::OpsError::ThresholdNeedsHistory)?
                * 100.0;
            (-v > x).then(|| total_crossed("availability", x, v, format!("the availability through the history's incidents falls by {:.4} percentage points, above --fail-above -{x}%availability", -v)))
        }
        Threshold::Ratio(_) => None,
    })
}

/// `--fail-above P%`, the steady monthly bill rising by `v` USD: crossed above `p` percent,
/// or by any rise from a month of $0.
fn percent_crossed(report: &DiffReport, p: f64, v: f64) -> Option<Crossed> {
    match report.diff_month_ratio {
        Some(ratio) if ratio * 100.0 > p => {
            let r = ratio * 100.0;
            Some(total_crossed(
                "percent",
                p,
                r,
                format!(
                    "the steady monthly bill rises {}, above --fail-above {p}%",
                    crate::number::percent(ratio, crate::number::Digits::Fixed(2), false)
                ),
            ))
        }
        // From a month of $0 (no chain in BASE, or only free ones) any rise is
        // above every percentage.
        None if v > 0.0 => Some(total_crossed(
            "percent_from_zero",
            p,
            v,
            format!(
                "the steady monthly bill rises from $0.00 to ${} (+${}), above --fail-above {p}%",
                crate::number::money(report.head_total.per_month_usd.unwrap_or(v)),
                crate::number::money(v)
            ),
        )),
        _ => None,
    }
}

/// `--fail-above Rx`: each of HEAD's chains whose dearest fallback rose above `r` times its
/// primary.
fn ratio_crossed(report: &DiffReport, r: f64) -> Vec<Crossed> {
    let mut out = Vec::new();
    for c in report.chains.iter().filter(|c| c.status != Status::Removed) {
        let Some(v) = c.head.as_ref().and_then(|h| h.worst_ratio) else {
            continue;
        };
        let was = c.base.as_ref().and_then(|b| b.worst_ratio);
        if v > r && was.is_none_or(|w| v > w) {
            out.push(Crossed {
                kind: "ratio",
                limit: r,
                value: v,
                chain: Some(c.chain.clone()),
                message: format!(
                    "chain `{}`: its dearest fallback is {v:.2}x its primary, above --fail-above {r}x",
                    c.chain
                ),
            });
        }
    }
    out
}

fn total_crossed(kind: &'static str, limit: f64, value: f64, message: String) -> Crossed {
    Crossed {
        kind,
        limit,
        value: round_noise(value),
        chain: None,
        message,
    }
}

/// The source flags of one side: `scenario`, `config` and `profile` as the side is read, the
/// rest as given.
fn flags(
    req: &DiffRequest,
    scenario: Option<&Path>,
    config: &[PathBuf],
    set: Vec<(String, String)>,
    profile: Option<(u64, u64)>,
) -> SourceArgs {
    SourceArgs {
        scenario: scenario.map(Path::to_path_buf),
        config: config.to_vec(),
        profile,
        set,
        chains: Vec::new(),
        ..req.source.clone()
    }
}

/// `--chain`: only the chains named on each side (a chain of one side only is added or
/// removed); every chain without one.
///
/// Errors (exit 2): a name neither side has, naming the chains they have.
fn select_chains(names: &[String], sides: [&mut DiffSide; 2]) -> crate::ops::OpsResult<()> {
    if names.is_empty() {
        return Ok(());
    }
    let has = |n: &String| {
        sides
            .iter()
            .any(|s| s.scenario.chains.iter().any(|c| &c.name == n))
    };
    if let Some(n) = names.iter().find(|n| !has(n)) {
        let mut all: Vec<&str> = sides
            .iter()
            .flat_map(|s| s.scenario.chains.iter().map(|c| c.name.as_str()))
            .collect();
        all.sort_unstable();
        all.dedup();
        return Err(crate::ops::OpsError::NoChainInSides {
            name: n.clone(),
            have: all.join(", "),
        });
    }
    for side in sides {
        side.scenario.chains.retain(|c| names.contains(&c.name));
        side.provenance.retain(|p| names.contains(&p.chain));
        side.served.retain(|p| names.contains(&p.chain));
    }
    Ok(())
}

/// Resolve one side's scenario.
fn resolve_side(
    req: &DiffRequest,
    usage: &UsageSettings,
    paths: &[PathBuf],
) -> crate::ops::OpsResult<inputs::Inputs> {
    let mut set = usage.incident_overrides();
    set.extend(req.source.set.iter().cloned());
    let is_scenario =
        paths.len() == 1 && paths[0].is_file() && paths[0].extension().is_some_and(|e| e == "toml");
    if is_scenario {
        inputs::resolve("diff", &flags(req, Some(&paths[0]), &[], set, None))
    } else {
        let scenario = req.source.scenario.as_deref().or(usage.scenario.as_deref());
        let profile = req.source.profile.or(usage.profile);
        inputs::resolve("diff", &flags(req, scenario, paths, set, profile))
    }
}

/// One chain's name, figures and assumptions ([`sides::figures`]).
type ChainFigures = (String, DiffFigures, Vec<Assumption>);

/// A side and its chains' figures ([`sides::figures`]).
type Priced<'a> = (&'a DiffSide, &'a [ChainFigures]);

/// The chains of the diff from the pairing ([`matching::pair`]): the added, changed (with
/// their settings' changes and, with `--mc`, their simulated differences), renamed and removed
/// chains, and the names of the unchanged ones. A chain whose group lost its last fallback is
/// priced on HEAD as its primary alone and added to `head_figs` (it serves HEAD's traffic).
///
/// Errors: a history that does not fit such a chain.
fn match_chains(
    req: &DiffRequest,
    usage: &UsageSettings,
    history: Option<&crate::input::history::History>,
    (base, base_figs): Priced<'_>,
    (head, head_figs): (&DiffSide, &mut Vec<ChainFigures>),
    pairs: &[matching::Pairing],
) -> crate::ops::OpsResult<(Vec<ChainDiff>, Vec<String>)> {
    let mut chains = Vec::new();
    let mut unchanged = Vec::new();
    let bc = &base.scenario.chains;
    for p in pairs {
        let d = match p {
            matching::Pairing::Added(i) => {
                let chain = &head.scenario.chains[*i];
                ChainDiff {
                    chain: chain.name.clone(),
                    base_chain: None,
                    status: Status::Added,
                    base_models: Vec::new(),
                    head_models: models(chain),
                    base: None,
                    head: Some(head_figs[*i].1.clone()),
                    diff: None,
                    changes: Vec::new(),
                    at: head.at(&chain.name),
                    assumptions: head_figs[*i].2.clone(),
                    mc: None,
                }
            }
            matching::Pairing::Removed(j) => ChainDiff {
                chain: bc[*j].name.clone(),
                base_chain: None,
                status: Status::Removed,
                base_models: models(&bc[*j]),
                head_models: Vec::new(),
                base: Some(base_figs[*j].1.clone()),
                head: None,
                diff: None,
                changes: Vec::new(),
                at: None,
                assumptions: base_figs[*j].2.clone(),
                mc: None,
            },
            matching::Pairing::Lost(j, g) => {
                let lost = (&bc[*j], g, &base_figs[*j].1);
                lost_fallback(req, usage, history, lost, (head, head_figs))?
            }
            matching::Pairing::Both(j, i) => {
                let pair = ((base, base_figs), (head, head_figs.as_slice()), *j, *i);
                match both(req, usage, pair) {
                    Some(d) => d,
                    None => {
                        unchanged.push(head.scenario.chains[*i].name.clone());
                        continue;
                    }
                }
            }
        };
        chains.push(d);
    }
    Ok((chains, unchanged))
}

/// BASE's chain `b` (its figures `bf`) whose group HEAD serves with no fallback (`g`): priced
/// on HEAD as its primary alone, added to `head_figs`, and diffed against BASE.
///
/// Errors: a history that does not fit the chain.
fn lost_fallback(
    req: &DiffRequest,
    usage: &UsageSettings,
    history: Option<&crate::input::history::History>,
    (b, g, bf): (&Chain, &crate::model::provenance::Served, &DiffFigures),
    (head, head_figs): (&DiffSide, &mut Vec<ChainFigures>),
) -> crate::ops::OpsResult<ChainDiff> {
    let alone = Chain {
        links: b.links[..1].to_vec(),
        ..b.clone()
    };
    let traffic = usage.requests_of(&b.name, Some(&g.group), Some(g.share));
    let (_, h, mut assumptions) =
        sides::chain_figures(&head.scenario, &alone, traffic, req, usage, history)?;
    assumptions.push(Assumption {
        key: "lost_fallback".into(),
        value: format!(
            "group `{}` ({}) serves its traffic with no fallback",
            g.group, g.primary
        ),
        source: format!("{} model_list", g.config),
    });
    head_figs.push((b.name.clone(), h.clone(), assumptions.clone()));
    let bf = bf.clone();
    let mut c = changes::chain(b, &alone);
    c.insert(
        1.min(c.len()),
        crate::report::diff::Change {
            what: "fallbacks".into(),
            base: Some(models(b)[1..].join(" → ")),
            head: Some(format!(
                "(none: `{}` still serves its traffic on {} alone)",
                g.group, g.primary
            )),
        },
    );
    Ok(ChainDiff {
        chain: b.name.clone(),
        base_chain: None,
        status: Status::Changed,
        base_models: models(b),
        head_models: models(&alone),
        diff: Some(minus(&h, &bf)),
        base: Some(bf),
        head: Some(h),
        changes: c,
        at: head.lone_at(&g.group).or_else(|| {
            head.provenance.first().map(|p| crate::report::diff::At {
                file: p.file.clone(),
                line: 1,
            })
        }),
        assumptions,
        mc: None,
    })
}

/// BASE's chain `j` and HEAD's chain `i`, the same traffic on both sides: their diff (changed
/// or renamed; with `--mc` simulated on common random numbers), or `None` when nothing
/// changed.
fn both(
    req: &DiffRequest,
    usage: &UsageSettings,
    ((base, base_figs), (head, head_figs), j, i): (Priced<'_>, Priced<'_>, usize, usize),
) -> Option<ChainDiff> {
    let bc = &base.scenario.chains;
    let chain = &head.scenario.chains[i];
    let (_, h, assumptions) = head_figs[i].clone();
    let b = base_figs[j].1.clone();
    let c = changes::chain(&bc[j], chain);
    let dd = minus(&h, &b);
    let moved = figures_differ(&dd);
    let renamed = bc[j].name != chain.name;
    if c.is_empty() && !moved && !renamed {
        return None;
    }
    let mc = req.mc.map(|o| {
        let bt = base_figs[j].1.requests_per_month;
        let ht = h.requests_per_month;
        simulate_pair(
            req,
            usage,
            (&base.scenario, j, bt),
            (&head.scenario, i, ht),
            &o,
        )
    });
    let old_models = models(&bc[j]);
    let new: Vec<&str> = chain
        .links
        .iter()
        .map(|l| l.price.id.as_str())
        .filter(|m| !old_models.iter().any(|o| o == m))
        .collect();
    Some(ChainDiff {
        chain: chain.name.clone(),
        base_chain: renamed.then(|| bc[j].name.clone()),
        status: if c.is_empty() && !moved {
            Status::Renamed
        } else {
            Status::Changed
        },
        base_models: old_models,
        head_models: models(chain),
        base: Some(b),
        head: Some(h),
        diff: Some(dd),
        changes: c,
        at: head.at_change(base, &chain.name, &new),
        assumptions,
        mc,
    })
}

/// BASE's chain `bj` and HEAD's chain `hi`, each priced alone as [`sides::figures`] prices
/// it, simulated on common random numbers ([`crn::chain`]).
fn simulate_pair(
    req: &DiffRequest,
    usage: &UsageSettings,
    (bs, bj, bt): (&Scenario, usize, Option<f64>),
    (hs, hi, ht): (&Scenario, usize, Option<f64>),
    o: &crate::sim::McOptions,
) -> crate::report::diff::ChainMc {
    let b = sides::alone_as_priced(bs, &bs.chains[bj], usage, bt);
    let h = sides::alone_as_priced(hs, &hs.chains[hi], usage, ht);
    crn::chain(&b, &b.chains[0], &h, &h.chains[0], req.pattern, o)
}
