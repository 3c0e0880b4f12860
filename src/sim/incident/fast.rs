//! An outage window, simulated in time (MODEL.md §6, §9).
//!
//! Each run replays one window: N = round(λ·D) requests (the analytic contract), arriving as a
//! Poisson process conditioned on N arrivals in [0, D] ([`Arrivals`]: the window is exactly the
//! analytic one, D seconds long), grouped into sessions of L consecutive arrivals
//! (S = ⌈N / L⌉, the last one shorter). Every model of the primary's provider is down (fast:
//! billed 0; gray: billed as a gray failure in the link's cache state); the other links keep
//! their steady failure and trip rates (trip rates as resolved: given, or P(L > T) from the
//! latency model). Per session and model the simulation keeps the cache state:
//!
//! - the primary, and in the hedged patterns the second link, are warm throughout (they have
//!   been receiving every request), as in the analytic engine;
//! - any other model is cold until it answers a request of the session (one cache per model:
//!   a model listed twice shares it, and one listed as the primary's is warm); attempts made while
//!   cold are billed in the first-request state (a cache write for `explicit` caching, plain
//!   cold otherwise), and the success that warms it is counted as a cold start;
//! - a warmed cache is kept when the model answered the session's previous request, and
//!   otherwise expires when the session's next request on that model comes more than the
//!   model's `cache_ttl_s` after the last request it answered (it is then cold again), counted
//!   between arrivals. The analytic engine has the same expiry in closed form (MODEL.md §6).
//! - fail-back: every session last used the primary when the outage began and resumes on it
//!   when it ends, a gap of D, so each session rewrites the primary's cache when D exceeds its
//!   TTL (the analytic engine's rule; deterministic given D).
//!
//! The cost split follows the analytic engine: `window` holds every attempt at warm prices
//! (failed attempts at the price of the state they were made in); `cold_start` the premium of
//! the successes that warmed a cold cache (first − warm).

use crate::figures::IncidentFigures;
use crate::model::cost::{CacheState, Request, first_state, warm_state};
use crate::model::incident::LinkRole;
use crate::model::{Caching, Chain, FailureMode, Incident, Pattern};

use crate::sim::rng::{SimRng, Stream, chunk_rng, uniform};
use crate::sim::stats::{Compensated, Sum};
use crate::sim::steady::fast::{AttemptOutcome, Prices};
use crate::sim::{McOptions, ordered};

/// The arrival times of a window's N requests: a Poisson process conditioned on N arrivals in
/// [0, D], i.e. the order statistics of N uniforms on [0, D], generated in ascending order one
/// uniform each (the sequential spacing method: 1 − U₍ₖ₎ = (1 − U₍ₖ₋₁₎)·V^(1/(N−k+1))), so the
/// window is exactly D seconds long, as in the analytic engine.
#[derive(Debug, Clone, Copy)]
pub struct Arrivals {
    /// ln(1 − U₍ₖ₎) so far.
    ln_rest: f64,
    left: u64,
    duration_s: f64,
}

impl Arrivals {
    /// N = `requests` arrivals over `duration_s` seconds.
    pub fn new(requests: u64, duration_s: f64) -> Arrivals {
        Arrivals {
            ln_rest: 0.0,
            left: requests,
            duration_s,
        }
    }

    /// The next arrival time, seconds from the window's start (ascending; within [0, D]).
    pub fn next(&mut self, rng: &mut SimRng) -> f64 {
        let v = 1.0 - uniform(rng); // in (0, 1]
        self.ln_rest += v.ln() / self.left.max(1) as f64;
        self.left = self.left.saturating_sub(1);
        (-self.ln_rest.exp_m1() * self.duration_s).clamp(0.0, self.duration_s)
    }
}

/// One link as an outage window sees it: the one link type of both incident simulators, the
/// default-policy one here and the event simulator in [`crate::sim::incident::events`].
#[derive(Debug, Clone)]
pub(super) struct IncidentLink {
    /// Its role in the window (position, down, starts warm): the analytic engine's
    /// description of the link ([`LinkRole`]).
    pub(super) role: LinkRole,
    /// The session cache this link reads: one per model (the position of the first link with
    /// its id; a model listed twice shares its cache).
    pub(super) slot: usize,
    /// Its provider's breaker in [`crate::sim::incident::events`], by the order providers first appear among
    /// the links (the dead provider, the primary's, is 0).
    pub(super) provider: usize,
    /// Whether the model caches explicitly (its `warm_fallback` decides when it is written).
    pub(super) explicit: bool,
    /// u below this: a gray failure (f · gray share).
    pub(super) gray_below: f64,
    /// u below this: a failure (f).
    pub(super) fail_below: f64,
    /// u below this and not a failure: a timeout trip (f + (1 − f) · trip rate).
    pub(super) trip_below: f64,
    /// Prices with the cache warm.
    pub(super) warm: Prices,
    /// Prices in the first-request state (write for explicit caching, cold otherwise).
    pub(super) first: Prices,
    /// Prices with the cache cold.
    pub(super) cold: Prices,
    /// Prices of a cache write.
    pub(super) write: Prices,
    /// USD of an attempt on the dead provider (0 for fast failures).
    pub(super) dead_cost: f64,
    /// The same attempt at the warm price (the rest of `dead_cost` is a cold-start premium).
    pub(super) dead_warm: f64,
    /// USD of the dead leg of a take-first hedge when the other leg answered (cancelled).
    pub(super) dead_lost: f64,
    /// TTL of a warmed cache, seconds (infinite without caching: nothing to expire).
    pub(super) ttl_s: f64,
}

/// Where a link sits in a window, as each simulator decides it: the rest of an
/// [`IncidentLink`] follows from the chain ([`IncidentLink::new`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    /// Its position in the chain.
    pub(super) index: usize,
    /// Its session cache slot.
    pub(super) slot: usize,
    /// Its provider's breaker.
    pub(super) provider: usize,
    /// Warm from the window's start.
    pub(super) starts_warm: bool,
    /// The cache state a dead attempt is billed in when the link is not warm.
    pub(super) dead_state: CacheState,
}

impl IncidentLink {
    /// Link `at.index` of `chain` in `incident`: its prices in every cache state, the price of
    /// an attempt on the dead provider (gray failures bill it, billed in `at.dead_state`), and
    /// its draw thresholds.
    pub(super) fn new(
        request: &Request,
        chain: &Chain,
        incident: &Incident,
        at: Placement,
    ) -> IncidentLink {
        let s = &chain.steady;
        let i = at.index;
        let link = &chain.links[i];
        let price = &link.price;
        let (f, trip) = (link.failure_rate, link.trip_rate);
        let (dead_cost, dead_lost, dead_warm) = match incident.failure {
            FailureMode::Fast => (0.0, 0.0, 0.0),
            FailureMode::Gray => (
                request.partial_cost(price, at.dead_state, s.gray_output_fraction),
                request.partial_cost(price, at.dead_state, s.cancel_output_fraction),
                request.partial_cost(price, warm_state(price), s.gray_output_fraction),
            ),
        };
        IncidentLink {
            role: LinkRole {
                index: i,
                dead: price.provider == chain.links[0].price.provider,
                starts_warm: at.starts_warm,
            },
            slot: at.slot,
            provider: at.provider,
            explicit: price.caching == Caching::Explicit,
            gray_below: f * s.gray_fraction,
            fail_below: f,
            trip_below: f + (1.0 - f) * trip,
            warm: Prices::new(request, chain, i, warm_state(price)),
            first: Prices::new(request, chain, i, first_state(price)),
            cold: Prices::new(request, chain, i, CacheState::Cold),
            write: Prices::new(request, chain, i, CacheState::Write),
            dead_cost,
            dead_warm,
            dead_lost,
            ttl_s: if price.caching == Caching::None {
                f64::INFINITY
            } else {
                price.cache_ttl_s
            },
        }
    }
}

/// Per-run totals, in the order of [`IncidentSums`]'s fields.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Run {
    pub(super) window: Compensated,
    pub(super) cold_start: Compensated,
    pub(super) failed: f64,
    pub(super) wasted_attempts: f64,
    pub(super) wasted: Compensated,
    pub(super) cold_starts: f64,
    /// Attempts a rate limit refused (the incident simulator's quotas; 0 here).
    pub(super) rate_limited: f64,
    /// Requests whose route passed over a fallback that cannot serve them (the incident
    /// simulator's; 0 here: a chain with such a link is not on the default policy).
    pub(super) refused: f64,
}

/// The simulated figures of one pattern on one chain over K windows (per-run sums).
#[derive(Debug, Clone, PartialEq)]
pub struct IncidentSums {
    /// The pattern.
    pub pattern: Pattern,
    /// The primary-alone bill for the same requests, USD (deterministic).
    pub normal: f64,
    /// The window's requests, N.
    pub requests: u64,
    /// The incident figures' sums, per window (USD and counts); the normal bill as an exact
    /// number, the multiplier only when the normal bill is not 0.
    pub figures: IncidentFigures<Sum>,
}

impl Run {
    /// The window's bill: its incident figures, the one place the simulators say them
    /// ([`IncidentFigures`]; the fail-back figures are the same in every window, `normal` the
    /// primary-alone bill, USD, over the window's `requests`).
    fn bill(
        &self,
        (normal, requests): (f64, u64),
        failback: f64,
        failback_writes: f64,
    ) -> IncidentFigures<f64> {
        let (window, cold_start) = (self.window.value(), self.cold_start.value());
        let total = window + cold_start + failback;
        IncidentFigures {
            total_usd: total,
            normal_usd: None,
            multiplier: (normal > 0.0).then(|| total / normal),
            window_usd: window,
            cold_start_usd: cold_start,
            failback_usd: failback,
            failed_requests: self.failed,
            wasted_attempts: self.wasted_attempts,
            wasted_usd: self.wasted.value(),
            cold_starts: self.cold_starts,
            failback_writes,
            excess_usd: total - normal,
            answered_requests: requests as f64 - self.failed,
            rate_limited_attempts: self.rate_limited,
            refused_requests: self.refused,
        }
    }
}

struct Window<'a> {
    links: Vec<IncidentLink>,
    incident: &'a Incident,
    pattern: Pattern,
    win_rate: f64,
}

impl Window<'_> {
    fn draw(&self, l: &IncidentLink, rng: &mut SimRng) -> AttemptOutcome {
        let u = uniform(rng);
        if u < l.gray_below {
            AttemptOutcome::Gray
        } else if u < l.fail_below {
            AttemptOutcome::Fast
        } else if u < l.trip_below {
            AttemptOutcome::Trip
        } else {
            AttemptOutcome::Ok
        }
    }

    /// Links `from..` tried in sequence for request `k` at time `t`; `warm_at[i]` is when link
    /// i last answered in this session, and which request it answered. Returns whether a link
    /// answered.
    fn in_sequence(
        &self,
        from: usize,
        (k, t): (u64, f64),
        warm_at: &mut [Option<(u64, f64)>],
        run: &mut Run,
        rng: &mut SimRng,
    ) -> bool {
        for l in self.links.iter().skip(from) {
            if l.role.dead {
                run.window += l.dead_warm;
                run.cold_start += l.dead_cost - l.dead_warm;
                run.wasted += l.dead_cost;
                run.wasted_attempts += 1.0;
                continue;
            }
            // kept between consecutive answers, else expired after the TTL (MODEL.md §6)
            let warm = l.role.starts_warm
                || warm_at[l.slot].is_some_and(|(k0, t0)| k - k0 <= 1 || t - t0 <= l.ttl_s);
            let a = self.draw(l, rng);
            if a == AttemptOutcome::Ok {
                run.window += l.warm.success;
                if !warm {
                    run.cold_start += l.first.success - l.warm.success;
                    run.cold_starts += 1.0;
                }
                warm_at[l.slot] = Some((k, t));
                return true;
            }
            let c = if warm { &l.warm } else { &l.first }.failed(a);
            run.window += c;
            run.wasted += c;
            run.wasted_attempts += 1.0;
        }
        false
    }

    /// One hedged request: links 0 and 1 at once (both warm), then links 2.. in sequence.
    fn hedged(
        &self,
        at: (u64, f64),
        warm_at: &mut [Option<(u64, f64)>],
        run: &mut Run,
        rng: &mut SimRng,
    ) {
        let cancel = self.pattern == Pattern::HedgedTakeFirst;
        // (answered, USD if it failed and the other answered, USD if both failed)
        let leg = |l: &IncidentLink, rng: &mut SimRng| -> (bool, f64, f64, f64) {
            if l.role.dead {
                let lost = if cancel { l.dead_lost } else { l.dead_cost };
                return (false, lost, l.dead_cost, 0.0);
            }
            let a = self.draw(l, rng);
            let w = l.warm.failed(a);
            (a == AttemptOutcome::Ok, w, w, l.warm.success)
        };
        let (ok0, lost0, w0, c0) = leg(&self.links[0], rng);
        let (ok1, lost1, w1, c1) = leg(&self.links[1], rng);
        let (x0, x1) = (self.links[0].warm.cancel, self.links[1].warm.cancel);
        let (cost, wasted) = match (ok0, ok1) {
            (true, true) => {
                let primary_wins = uniform(rng) < self.win_rate;
                match (cancel, primary_wins) {
                    (true, true) => (c0 + x1, x1),
                    (true, false) => (c1 + x0, x0),
                    (false, true) => (c0 + c1, c1),
                    (false, false) => (c0 + c1, c0),
                }
            }
            (true, false) => (c0 + lost1, lost1),
            (false, true) => (lost0 + c1, lost0),
            (false, false) => (w0 + w1, w0 + w1),
        };
        run.window += cost;
        run.wasted += wasted;
        if ok0 || ok1 {
            run.wasted_attempts += 1.0;
            return;
        }
        run.wasted_attempts += 2.0;
        if !self.in_sequence(2, at, warm_at, run, rng) {
            run.failed += 1.0;
        }
    }

    fn run(&self, rng: &mut SimRng) -> Run {
        let n = self.incident.requests();
        let length = self.incident.session_length.max(1);
        let mut warm_at = vec![None; self.links.len()];
        let mut run = Run::default();
        let mut arrivals = Arrivals::new(n, self.incident.duration_s);
        for k in 0..n {
            if k % length == 0 {
                warm_at.iter_mut().for_each(|w| *w = None);
            }
            let t = arrivals.next(rng);
            match self.pattern {
                Pattern::NoFallback | Pattern::Sequential => {
                    if !self.in_sequence(0, (k, t), &mut warm_at, &mut run, rng) {
                        run.failed += 1.0;
                    }
                }
                Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
                    self.hedged((k, t), &mut warm_at, &mut run, rng)
                }
            }
        }
        run
    }
}

impl IncidentSums {
    /// No windows yet: `pattern`, and the primary-alone bill `normal` (USD) of the window's
    /// `requests`.
    pub fn new(pattern: Pattern, normal: f64, requests: u64) -> IncidentSums {
        IncidentSums {
            pattern,
            normal,
            requests,
            figures: IncidentFigures {
                normal_usd: Some(normal),
                ..IncidentFigures::default()
            },
        }
    }

    /// Add one simulated window's totals (USD and counts); the fail-back figures are the same
    /// in every window.
    /// One window's `run` added; returns its bill (USD) and failed requests.
    pub(super) fn add_run(&mut self, run: &Run, failback: f64, failback_writes: f64) -> [f64; 2] {
        let bill = run.bill((self.normal, self.requests), failback, failback_writes);
        self.figures.add(&bill);
        [bill.total_usd, bill.failed_requests]
    }
}

/// The links `pattern` uses on `chain` in the window (only the primary without fallback),
/// each with its cache slot (one cache per model) and the state a dead attempt on it is
/// billed at.
fn window_links(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
) -> Vec<IncidentLink> {
    let primary = &chain.links[0].price;
    let used = if pattern == Pattern::NoFallback {
        1
    } else {
        chain.links.len()
    };
    chain.links[..used]
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let price = &link.price;
            // One cache per model: the primary's model (and the second leg's) is warm
            // wherever it is listed.
            let starts_warm = price.id == primary.id
                || (pattern.is_hedged() && price.id == chain.links[1].price.id);
            let slot = chain
                .links
                .iter()
                .position(|p| p.price.id == price.id)
                .unwrap_or(i);
            // A dead link not warm is billed as a success there would have been (a write for
            // an explicit fallback: the default policy warms at once), its premium over warm a
            // cold-start cost.
            let dead_state = if starts_warm {
                warm_state(price)
            } else {
                first_state(price)
            };
            let at = Placement {
                index: i,
                slot,
                provider: 0,
                starts_warm,
                dead_state,
            };
            IncidentLink::new(request, chain, incident, at)
        })
        .collect()
}

/// Simulate `opts.runs` windows of `pattern` on chain number `index` of a scenario. `None` for a
/// hedged pattern on a one-link chain. `tick(n)` is called as windows finish. The shorthand
/// incident only: a timeline is the event simulator's ([`crate::sim::IncidentEngine::simulator`]).
pub fn simulate(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
    index: u64,
    opts: &McOptions,
    tick: &mut dyn FnMut(u64),
) -> Option<IncidentSums> {
    debug_assert!(
        incident.timeline.is_none(),
        "a timeline runs in the event simulator (sim::IncidentEngine::simulator)"
    );
    if pattern.is_hedged() && chain.links.len() < 2 {
        return None;
    }
    let s = &chain.steady;
    let links = window_links(request, chain, incident, pattern);
    let window = Window {
        links,
        incident,
        pattern,
        win_rate: s.primary_win_rate,
    };

    let normal = crate::model::incident::normal_bill(request, chain, incident);
    // Fail-back: each session resumes on the primary D seconds after it last used it.
    let (failback, failback_writes) =
        crate::model::incident::failback(request, chain, incident, pattern);

    let stream = Stream::IncidentFast {
        chain: index,
        pattern,
    }
    .id();
    let mut out = IncidentSums::new(pattern, normal, incident.requests());
    ordered(
        opts.runs,
        |r| window.run(&mut chunk_rng(opts.seed, stream, r)),
        |run| {
            out.add_run(&run, failback, failback_writes);
        },
        tick,
    );
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Link;
    use crate::model::Steady;
    use crate::model::cost::tests::{july, req};
    use crate::model::incident::evaluate;
    use crate::sim::stats::{Z99, Z999, agrees};

    /// The MC mean total of every pattern lies within its 99% interval of the analytic total,
    /// and every other figure within its 99.9% interval (many figures are checked at once; at
    /// 99% each, one in a hundred would miss by chance alone).
    pub(crate) fn assert_agrees(request: &Request, chain: &Chain, incident: &Incident, runs: u64) {
        let opts = McOptions {
            requests: 0,
            runs,
            seed: 11,
        };
        for pattern in Pattern::ALL {
            let Some(mc) = simulate(request, chain, incident, pattern, 0, &opts, &mut |_| {})
            else {
                continue;
            };
            let a = evaluate(request, chain, incident, pattern).unwrap();
            let f = &mc.figures;
            for (name, sum, want) in [
                ("total", &f.total_usd, a.total),
                ("window", &f.window_usd, a.window),
                ("cold_start", &f.cold_start_usd, a.cold_start),
                ("failback", &f.failback_usd, a.failback),
                ("failed", &f.failed_requests, a.failed_requests),
                ("wasted_attempts", &f.wasted_attempts, a.wasted_attempts),
                ("wasted", &f.wasted_usd, a.wasted),
                ("cold_starts", &f.cold_starts, a.cold_starts),
                ("failback_writes", &f.failback_writes, a.failback_writes),
                (
                    "answered_requests",
                    &f.answered_requests,
                    a.requests as f64 - a.failed_requests,
                ),
            ] {
                let z = if name == "total" { Z99 } else { Z999 };
                let e = sum.estimate(z, 1.0);
                assert!(
                    agrees(&e, want),
                    "{} {name}: analytic {want} outside MC 99% [{}, {}]",
                    pattern.as_str(),
                    e.lo,
                    e.hi
                );
            }
        }
    }

    /// A chain of `models` with per-link failure and trip rates `rates` and `steady`.
    fn chain(models: &[&str], rates: &[(f64, f64)], steady: Steady) -> Chain {
        let mut c = Chain {
            name: "c".into(),
            links: models.iter().map(|m| Link::new(july(m))).collect(),
            steady,
            policy: Default::default(),
            traffic_share: None,
        };
        for (l, &(f, t)) in c.links.iter_mut().zip(rates) {
            l.failure_rate = f;
            l.trip_rate = t;
        }
        c
    }

    /// A failing fallback (so cold starts are random), a third link, gray failures, a short
    /// window with a partial last session.
    #[test]
    fn agrees_with_failing_fallbacks() {
        let s = Steady {
            gray_fraction: 0.5,
            primary_win_rate: 0.6,
            ..Steady::default()
        };
        let c = chain(
            &[
                "anthropic/claude-sonnet-5",
                "openai/gpt-6-sol",
                "deepseek/deepseek-v4-flash",
            ],
            &[(0.0, 0.0), (0.3, 0.1), (0.2, 0.0)],
            s,
        );
        let mut i = Incident {
            duration_s: 250.0,
            requests_per_second: 1.0,
            session_length: 7,
            failure: FailureMode::Gray,
            timeline: None,
        };
        assert_agrees(&req(500.0, 1200.0, 60000.0, 0.9), &c, &i, 400);
        i.failure = FailureMode::Fast;
        i.duration_s = 900.0;
        assert_agrees(&req(500.0, 1200.0, 60000.0, 0.9), &c, &i, 200);
    }

    /// An explicit-caching fallback on the same provider as... a different one: Sonnet as
    /// the fallback writes its cache on each session's first failover.
    #[test]
    fn agrees_with_an_explicit_caching_fallback() {
        let s = Steady {
            gray_fraction: 0.0,
            ..Steady::default()
        };
        let c = chain(
            &["openai/gpt-5.6-sol", "anthropic/claude-sonnet-5"],
            &[(0.0, 0.0), (0.1, 0.0)],
            s,
        );
        let i = Incident {
            duration_s: 2700.0,
            requests_per_second: 2.0,
            session_length: 10,
            failure: FailureMode::Fast,
            timeline: None,
        };
        assert_agrees(&req(2000.0, 500.0, 15000.0, 1.0), &c, &i, 200);
    }
}
