//! Agreement between the engines (MODEL.md §9): does each Monte Carlo mean lie within its
//! interval of the analytic value? Used by the agreement tests.
//!
//! The headline figure of each pattern (steady: cost per request; incident: total) is checked
//! at 99%. The other figures (failed, wasted attempts and their cost, window, cold starts…) are
//! checked at 99.9%: with dozens of figures per scenario, a 99% interval would miss about once
//! per hundred figures by chance alone.
//!
//! Rare events: the normal interval mean ± z·SE says nothing about events too rare to appear in
//! the sample (all three links failing at 1e-7 per request, in 4e5 requests, is usually never
//! seen, and the interval is then 0 wide). As in the Wilson score interval (whose bound for an
//! unseen event of n trials is z²/n), the interval is widened by z²·M/n, where M bounds what one
//! sample can change: per request, one full attempt on every link in its dearest cache state
//! (USD), 1 failed request, or one wasted attempt per link; n is the number of samples
//! (requests in steady state, windows for an incident).

use crate::model::{Pattern, Scenario, incident, steady};

use super::McOptions;
use super::stats::{Estimate, Sum, Z99, Z999, agrees};

/// One comparison of an analytic value with a Monte Carlo estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// `steady` or `incident`.
    pub section: &'static str,
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The figure, e.g. `cost` (USD per request) or `total` (USD per window).
    pub figure: &'static str,
    /// The analytic value.
    pub analytic: f64,
    /// The Monte Carlo mean and its interval at `level`.
    pub mc: Estimate,
    /// The interval's confidence level (0.99 or 0.999).
    pub level: f64,
    /// How much the normal interval was widened on each side for unseen rare events.
    pub widened: f64,
}

impl Check {
    /// Whether the analytic value lies in the interval ([`agrees`]).
    pub fn ok(&self) -> bool {
        agrees(&self.mc, self.analytic)
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

/// What one figure of one pattern is, for [`check`].
struct Figure<'a> {
    section: &'static str,
    chain: &'a str,
    pattern: Pattern,
    name: &'static str,
    headline: bool,
    /// The most one sample can change the figure (see the module docs).
    bound: f64,
}

fn check(out: &mut Vec<Check>, f: Figure, analytic: f64, sum: &Sum) {
    let (z, level) = if f.headline {
        (Z99, 0.99)
    } else {
        (Z999, 0.999)
    };
    let mut mc = sum.estimate(z, 1.0);
    let widened = z * z * f.bound / sum.n.max(1) as f64;
    mc.lo -= widened;
    mc.hi += widened;
    out.push(Check {
        section: f.section,
        chain: f.chain.to_string(),
        pattern: f.pattern,
        figure: f.name,
        analytic,
        mc,
        level,
        widened,
    });
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
        // The same engines as `ops::compare` ([`super::Engine::for_chain`]).
        let engine = super::Engine::for_chain(chain);
        let steady_mc: Vec<super::steady::fast::PatternMc> =
            if engine.steady == super::SteadyEngine::Fast {
                super::steady::fast::simulate(req, chain, i as u64, opts, &mut |_| {})
            } else {
                super::steady::policy::simulate(req, chain, i as u64, opts, &mut |_| {})
                    .into_iter()
                    .map(|m| m.base)
                    .collect()
            };
        for p in steady_mc {
            let Some(a) = steady::evaluate(req, chain, p.pattern) else {
                continue;
            };
            let usd = request_bound(req, chain);
            let links = chain.links.len() as f64;
            let fig = |name, headline, bound| Figure {
                section: "steady",
                chain: &chain.name,
                pattern: p.pattern,
                name,
                headline,
                bound,
            };
            check(&mut out, fig("cost", true, usd), a.cost, &p.cost);
            check(&mut out, fig("failed", false, 1.0), a.failed, &p.failed);
            check(
                &mut out,
                fig("wasted_attempts", false, links),
                a.wasted_attempts,
                &p.wasted_attempts,
            );
            check(
                &mut out,
                fig("wasted_cost", false, usd),
                a.wasted_cost,
                &p.wasted_cost,
            );
        }
        // With a circuit breaker there is no closed form: the rows' figures are simulated
        // (`sim::expected`, labelled so), and `sim::expected`'s tests hold them to a long
        // simulation with another seed.
        let Some(inc) = scenario
            .incident
            .as_ref()
            .filter(|_| engine.incident.has_closed_form())
            .map(|i| i.for_chain(chain))
        else {
            continue;
        };
        let inc = &inc;
        for pattern in Pattern::ALL {
            let (Some(m), Some(a)) = (
                if engine.incident.simulator(inc) == super::IncidentSimulator::Fast {
                    super::incident::fast::simulate(
                        req,
                        chain,
                        inc,
                        pattern,
                        i as u64,
                        opts,
                        &mut |_| {},
                    )
                } else {
                    super::incident::events::simulate(
                        req,
                        chain,
                        inc,
                        pattern,
                        i as u64,
                        opts,
                        &mut |_| {},
                    )
                    .map(|m| m.base)
                },
                incident::evaluate(req, chain, inc, pattern),
            ) else {
                continue;
            };
            let usd = request_bound(req, chain);
            let links = chain.links.len() as f64;
            let figures = [
                ("total", true, usd, a.total, &m.total),
                ("window", false, usd, a.window, &m.window),
                ("cold_start", false, usd, a.cold_start, &m.cold_start),
                ("failback", false, 0.0, a.failback, &m.failback),
                (
                    "failed_requests",
                    false,
                    1.0,
                    a.failed_requests,
                    &m.failed_requests,
                ),
                (
                    "wasted_attempts",
                    false,
                    links,
                    a.wasted_attempts,
                    &m.wasted_attempts,
                ),
                ("wasted", false, usd, a.wasted, &m.wasted),
                ("cold_starts", false, links, a.cold_starts, &m.cold_starts),
                (
                    "failback_writes",
                    false,
                    0.0,
                    a.failback_writes,
                    &m.failback_writes,
                ),
            ];
            for (name, headline, bound, analytic, sum) in figures {
                let f = Figure {
                    section: "incident",
                    chain: &chain.name,
                    pattern,
                    name,
                    headline,
                    bound,
                };
                check(&mut out, f, analytic, sum);
            }
        }
    }
    out
}
