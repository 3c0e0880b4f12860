//! Agreement between the engines (MODEL.md §9): does each Monte Carlo mean lie within its
//! interval of the analytic value? Used by the agreement tests.
//!
//! Which figures are compared, and how, is their declaration's ([`crate::figures::Agree`]):
//! this walks the analytic figure set and the simulator's sums together
//! ([`crate::figures::SteadyFigures::visit_pair`], [`crate::figures::IncidentFigures::visit_pair`]). The headline figure of
//! each pattern (steady: cost; incident: total) is checked at 99%. The other checked figures
//! (failed, wasted attempts and their cost, window, cold starts…) are checked at 99.9%: with
//! dozens of figures per scenario, a 99% interval would miss about once per hundred figures by
//! chance alone. Figures that are not random, or follow from checked ones (a ratio to an exact
//! bill), are declared unchecked.
//!
//! Rare events: the normal interval mean ± z·SE says nothing about events too rare to appear in
//! the sample (all three links failing at 1e-7 per request, in 4e5 requests, is usually never
//! seen, and the interval is then 0 wide). As in the Wilson score interval (whose bound for an
//! unseen event of n trials is z²/n), the interval is widened by z²·M/n, where M bounds what one
//! sample can change ([`Bound`]): per request, one full attempt on every link in its dearest
//! cache state (USD), 1 failed request, or one wasted attempt per link; n is the number of
//! samples (requests in steady state, windows for an incident).
//!
//! On an incident timeline with cuts the analytic engine is off by design by a documented
//! amount (MODEL.md §6, "Timelines": a request's later attempts, a dead time after it arrived,
//! may cross a cut; cache expiry within a session straddling one): the interval is widened by that bound too
//! (`TimelineSlack`), so the check holds the engines to what the report says of them.

use crate::figures::{Agree, Bound, FigureEntry, SteadyPolicyFigures};
use crate::model::{Pattern, Scenario, incident, steady};

use super::McOptions;
use super::stats::{Estimate, Sum, Z99, Z999, agrees, rare_events_unseen};

/// One comparison of an analytic value with a Monte Carlo estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// `steady` or `incident`.
    pub section: &'static str,
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The figure's key, e.g. `cost_per_1k_usd` or `total_usd`; the values below are in its
    /// unit ([`crate::figures::Figure::unit`]).
    pub figure: &'static str,
    /// The analytic value.
    pub analytic: f64,
    /// The Monte Carlo mean and its interval at `level`, widened by `widened`.
    pub mc: Estimate,
    /// The interval's confidence level (0.99 or 0.999).
    pub level: f64,
    /// How much the normal interval was widened on each side for unseen rare events.
    pub widened: f64,
    /// A policy figure whose samples were all equal, within the Poisson allowance of
    /// [`rare_events_unseen`] of the analytic value (one event per sample's unit): it agrees
    /// too. Always `false` for the steady and incident sets.
    pub unseen: bool,
}

impl Check {
    /// Whether the analytic value lies in the interval ([`agrees`]), or the sample saw none
    /// of the rare events that separate them ([`Check::unseen`]).
    pub fn ok(&self) -> bool {
        agrees(&self.mc, self.analytic) || self.unseen
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {} {}: analytic {} vs MC {} [{}, {}] at {}% (widened by {})",
            self.section,
            self.chain,
            self.pattern.as_str(),
            self.figure,
            self.analytic,
            self.mc.mean,
            self.mc.lo,
            self.mc.hi,
            self.level * 100.0,
            self.widened
        )
    }
}

/// Where a check is: its section, chain and pattern, and what bounds one sample there.
struct At<'a> {
    section: &'static str,
    chain: &'a str,
    pattern: Pattern,
    /// [`Bound::Usd`]: one attempt on every link at its dearest ([`request_bound`]).
    usd: f64,
    /// [`Bound::Links`]: the chain's links.
    links: f64,
    /// [`Bound::Attempts`]: the most attempts the analytic policy outcome makes (at least 1);
    /// 0 outside the policy set.
    attempts: f64,
    /// [`Bound::DeadTime`]: those attempts' timeouts and longest backoffs, seconds; 0 outside
    /// the policy set.
    dead_s: f64,
    /// Whether [`Check::unseen`] may hold (the policy set).
    allow_unseen: bool,
    /// On an incident timeline with cuts, how far the analytic engine may be off by design
    /// (MODEL.md §6, "Timelines"), added to the interval on each side; zero elsewhere.
    timeline: TimelineSlack,
}

/// The documented error of the analytic engine on an incident timeline (MODEL.md §6,
/// "Timelines"; [`incident::TimelineBound`]), in the engine's units:
///
/// - cache figures are exact but where a cache can expire within a session: then cold starts
///   and fail-back writes off by at most one session per cut and model (`sessions` = cuts ×
///   links), and their cost by that many sessions at one request's dearest price
///   ([`request_bound`]);
/// - a request's later attempts come its dead time after it arrived, where the analytic
///   engine gives them its arrival segment: `requests` = λ × the mean dead time before each
///   cut, summed, for every figure, in requests (attempts: × links) or USD (×
///   [`request_bound`]).
#[derive(Debug, Clone, Copy, Default)]
struct TimelineSlack {
    sessions: f64,
    requests: f64,
}

/// The figures the cache-expiry bound covers (MODEL.md §6, "Timelines"): the cache
/// figures and the totals that include them.
const SEGMENT_LOCAL: &[&str] = &[
    "cold_starts",
    "cold_start_usd",
    "failback_writes",
    "failback_usd",
    "total_usd",
    "excess_usd",
];

impl TimelineSlack {
    /// The slack of `pattern` on `chain` over `incident`: the analytic engine's own bound
    /// ([`incident::timeline_bound`]; zero for the shorthand or a timeline with no cut).
    fn of(
        req: &crate::model::Request,
        chain: &crate::model::Chain,
        incident: &crate::model::Incident,
        pattern: Pattern,
    ) -> TimelineSlack {
        incident::timeline_bound(req, chain, incident, pattern).map_or_else(
            TimelineSlack::default,
            |b| TimelineSlack {
                sessions: b.sessions,
                requests: b.requests,
            },
        )
    }

    /// The slack of figure `key` checked with `bound`, given one request's `usd` bound and the
    /// chain's `links`.
    fn of_figure(&self, key: &str, bound: Bound, usd: f64, links: f64) -> f64 {
        let per = match bound {
            Bound::Usd => usd,
            Bound::Links => links,
            // the policy bounds: no slack outside an incident, where this is zero anyway
            Bound::One | Bound::Zero | Bound::Attempts | Bound::DeadTime => 1.0,
        };
        let sessions = if SEGMENT_LOCAL.contains(&key) {
            self.sessions
        } else {
            0.0
        };
        (sessions + self.requests) * per
    }
}

impl At<'_> {
    /// The most one sample can change a figure by, in the engine's unit (per request, per
    /// window).
    fn bound(&self, b: Bound) -> f64 {
        match b {
            Bound::Usd => self.usd,
            Bound::One => 1.0,
            Bound::Links => self.links,
            Bound::Attempts => self.attempts,
            Bound::DeadTime => self.dead_s,
            Bound::Zero => 0.0,
        }
    }
}

/// Compare every figure declared [`Agree::Checked`] of the entries `visit_pair` hands out:
/// the analytic value and the simulator's sum, both in the engine's unit, compared in the
/// figure's (× its scale).
fn check_all(
    out: &mut Vec<Check>,
    at: &At<'_>,
    visit_pair: impl FnOnce(
        &mut dyn FnMut(&'static crate::figures::Figure, FigureEntry<'_, f64>, FigureEntry<'_, Sum>),
    ),
) {
    visit_pair(&mut |fig, analytic, sum| {
        let Agree::Checked { headline, bound } = fig.agree else {
            return;
        };
        let (FigureEntry::Figure(Some(analytic)), FigureEntry::Figure(Some(sum))) = (analytic, sum)
        else {
            return;
        };
        let (z, level) = if headline { (Z99, 0.99) } else { (Z999, 0.999) };
        let unseen = at.allow_unseen && rare_events_unseen(sum, *analytic, 1.0);
        let mut mc = sum.estimate(z, fig.scale);
        let widened = (z * z * at.bound(bound) / sum.n.max(1) as f64
            + at.timeline.of_figure(fig.key, bound, at.usd, at.links))
            * fig.scale;
        mc.lo -= widened;
        mc.hi += widened;
        out.push(Check {
            section: at.section,
            chain: at.chain.to_string(),
            pattern: at.pattern,
            figure: fig.key,
            analytic: analytic * fig.scale,
            mc,
            level,
            widened,
            unseen,
        });
    });
}

/// The policy figures of one pattern simulated under its chain's policy, compared as declared
/// ([`crate::figures::STEADY_POLICY_FIGURES`]' [`Agree`]), each at 99.9%: one request makes
/// at most the analytic outcome's `attempts_max` attempts and waits at most a timeout and the
/// longest backoff per attempt. `answered_by`, a list, is checked link by link (a 0/1 sample
/// per request: [`Bound::One`]).
fn policy_checks(
    out: &mut Vec<Check>,
    req: &crate::model::Request,
    chain: &crate::model::Chain,
    m: &super::steady::policy::PolicyMc,
    (usd, links): (f64, f64),
) {
    let p = m.base.pattern;
    let Some(a) = steady::detailed(req, chain, p) else {
        return;
    };
    let attempts = f64::from(a.attempts_max.max(1));
    let at = At {
        section: "steady policy",
        chain: &chain.name,
        pattern: p,
        usd,
        links,
        attempts,
        dead_s: attempts * (chain.policy.timeout_s + chain.policy.backoff.cap_s),
        allow_unseen: true,
        timeline: TimelineSlack::default(),
    };
    let (f, sums): (SteadyPolicyFigures<f64>, _) = (a.figures(chain), m.figures());
    check_all(out, &at, |v| f.visit_pair(&sums, v));
    let answered = crate::figures::STEADY_POLICY_FIGURES
        .iter()
        .find(|f| f.key == "answered_by")
        .expect("declared");
    if matches!(answered.agree, Agree::Checked { .. }) {
        for (want, sum) in a.answered_by.iter().zip(&m.answered_by) {
            check_all(out, &at, |v| {
                v(
                    answered,
                    FigureEntry::Figure(Some(want)),
                    FigureEntry::Figure(Some(sum)),
                )
            });
        }
    }
}

/// The steady figures of one simulated pattern against the analytic engine's, as declared
/// ([`crate::figures::STEADY_FIGURES`]' [`Agree`]).
fn steady_checks(
    out: &mut Vec<Check>,
    req: &crate::model::Request,
    chain: &crate::model::Chain,
    m: &super::steady::fast::PatternMc,
    (usd, links): (f64, f64),
) {
    let Some(a) = steady::evaluate(req, chain, m.pattern) else {
        return;
    };
    let at = At {
        section: "steady",
        chain: &chain.name,
        pattern: m.pattern,
        usd,
        links,
        attempts: 0.0,
        dead_s: 0.0,
        allow_unseen: false,
        timeline: TimelineSlack::default(),
    };
    check_all(out, &at, |f| a.visit_pair(&m.figures, f));
}

/// USD bound of one request on `chain`: one attempt on every link at its dearest price.
fn request_bound(req: &crate::model::Request, chain: &crate::model::Chain) -> f64 {
    use crate::model::CacheState;
    chain
        .links
        .iter()
        .map(|l| {
            [CacheState::Warm, CacheState::Cold, CacheState::Write]
                .map(|st| req.success_cost(&l.price, st))
                .into_iter()
                .fold(0.0, f64::max)
        })
        .sum()
}

/// Simulate `scenario` (steady state with `opts.requests` per chain; its incident, if any,
/// with `opts.runs` windows) and compare every figure with the analytic engine.
pub fn scenario(scenario: &Scenario, opts: &McOptions) -> Vec<Check> {
    let req = &scenario.request;
    let mut out = Vec::new();
    for (i, chain) in scenario.chains.iter().enumerate() {
        // The same engines as `ops::compare` ([`super::Engine::for_chain`]), called the same
        // way ([`super::Engine::simulate_steady`], [`super::Engine::simulate_incident`]).
        let engine = super::Engine::for_chain(chain);
        let usd = request_bound(req, chain);
        let links = chain.links.len() as f64;
        for run in engine.simulate_steady(req, chain, i as u64, opts, &mut |_| {}) {
            if let Some(m) = run.policy() {
                policy_checks(&mut out, req, chain, m, (usd, links));
            }
            steady_checks(&mut out, req, chain, run.base(), (usd, links));
        }
        // Without a closed form (a circuit breaker, retries in sparse traffic) the rows' figures
        // are simulated (`sim::expected`, labelled so), and `sim::expected`'s tests hold them
        // to a long simulation with another seed.
        let Some(inc) = (scenario.incident.as_ref())
            .map(|i| i.for_chain(chain))
            .filter(|i| incident::no_closed_form(chain, i).is_none())
        else {
            continue;
        };
        for pattern in Pattern::ALL {
            let (Some(run), Some(a)) = (
                engine.simulate_incident(req, chain, &inc, pattern, i as u64, opts, &mut |_| {}),
                incident::evaluate(req, chain, &inc, pattern),
            ) else {
                continue;
            };
            let at = At {
                section: "incident",
                chain: &chain.name,
                pattern,
                usd,
                links,
                attempts: 0.0,
                dead_s: 0.0,
                allow_unseen: false,
                timeline: TimelineSlack::of(req, chain, &inc, pattern),
            };
            let (a, m) = (a.figures(), &run.base().figures);
            check_all(&mut out, &at, |f| a.visit_pair(m, f));
        }
    }
    out
}
