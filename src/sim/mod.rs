//! The Monte Carlo engine (MODEL.md §9): the same model as [`crate::model`], simulated request
//! by request, so its means converge to the analytic values and it adds what the closed forms
//! do not give: confidence intervals and latency percentiles.
//!
//! The engines, as a grid (which one runs for a chain is decided once, by
//! [`Engine::for_chain`]):
//!
//! | figures           | default client policy        | other policy, no breaker       | circuit breaker               |
//! |-------------------|------------------------------|--------------------------------|-------------------------------|
//! | steady state      | [`steady::fast`] (fast path) | [`steady::policy`] (policy path) | [`steady::policy`]          |
//! | incident rows     | closed form ([`crate::model::incident`]) | closed form        | event simulator, fixed seed ([`expected`]) |
//! | incident, `--mc`  | [`incident::fast`] (fast simulator) | [`incident::events`] (event simulator) | [`incident::events`] |
//! | timeline, `--mc`  | [`incident::events`]         | [`incident::events`]           | [`incident::events`]          |
//!
//! [`Engine::for_chain`] selects [`SteadyEngine::Fast`] for the default policy and
//! [`SteadyEngine::Policy`] otherwise; [`IncidentEngine::ClosedForm`] for the default policy,
//! [`IncidentEngine::ClosedFormEvents`] for another policy without a breaker and
//! [`IncidentEngine::Events`] for a breaker.
//!
//! **Timelines** (issue 14, `incident.timeline = Some`): the windows are simulated by the event
//! simulator [`incident::events`] for every chain, whatever its policy
//! ([`IncidentEngine::simulator`]). It already runs each attempt at its time, so it follows the
//! timeline by looking each link's state up at the attempt's time (up, failing at the outage's
//! error rate, drilled, slow), and the breaker, fail-back writes and cold starts emerge from it.
//! The fast path [`incident::fast`] stays the shorthand's (one provider down throughout): its
//! speed comes from not keeping time per attempt, which a timeline needs; giving it the state
//! lookup would duplicate the event simulator's timeline code for a 2-3x gain on a path that
//! runs 200 windows. The engine selection is still [`Engine::for_chain`]; the timeline only
//! decides which simulator draws the windows.
//!
//! - [`steady`]: N requests per chain in steady state ([`steady::fast`], [`steady::policy`]);
//! - [`incident`]: K repeated outage windows per chain and pattern, in time, with sessions and
//!   per-session cache state ([`incident::fast`], [`incident::events`]; [`incident::circuit`]:
//!   the circuit breaker's state machine, one per provider);
//! - [`expected`]: the event simulator with a fixed seed, the rows' figures where no closed form
//!   exists; [`agree`]: the agreement check; [`years`]: the multi-year view;
//! - [`unread`]: the settings the event simulator never reads for a pattern, so that
//!   simulations differing only in them are run once (`fallcost tune`);
//! - [`histogram`]: the fixed-size log histogram behind the percentiles;
//! - [`stats`]: mergeable sums and confidence intervals; [`rng`]: the seeded streams;
//! - [`bench`](mod@bench): the speed benchmark (`fallcost bench`).
//!
//! Determinism: work is cut into fixed-size chunks (steady state: [`CHUNK`] requests; incident:
//! one window), each with its own generator seeded from (seed, stream, chunk index)
//! ([`rng::chunk_rng`]). Chunks run in parallel on rayon's pool, are collected in chunk order
//! and merged sequentially, so the output is bit-identical for any thread count. Memory is flat
//! in N: chunks are processed in batches of [`BATCH`] and nothing is stored per request.

pub mod agree;
pub mod bench;
pub mod expected;
pub mod histogram;
pub mod incident;
pub mod limiter;
pub mod rng;
pub mod stats;
pub mod steady;
pub mod unread;
pub mod years;

use rayon::prelude::*;

/// Requests per steady-state chunk (one generator each).
pub const CHUNK: u64 = 250_000;
/// Chunks run in parallel at a time before being merged in order (bounds memory).
pub const BATCH: u64 = 32;
/// Default simulated requests per chain in steady state (`--mc` without a value).
pub const DEFAULT_REQUESTS: u64 = 1_000_000;
/// Default incident windows simulated per chain and pattern (`--mc-runs`).
pub const DEFAULT_RUNS: u64 = 200;

/// What to simulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McOptions {
    /// N: simulated requests per chain in steady state.
    pub requests: u64,
    /// K: simulated incident windows per chain and pattern.
    pub runs: u64,
    /// The seed of every stream.
    pub seed: u64,
}

/// Run `count` work units in parallel in batches of [`BATCH`], each built by `work(index)`,
/// and hand them to `merge` in index order. `tick(done)` reports progress after each batch.
pub fn ordered<A: Send>(
    count: u64,
    work: impl Fn(u64) -> A + Sync,
    mut merge: impl FnMut(A),
    tick: &mut dyn FnMut(u64),
) {
    let mut start = 0;
    while start < count {
        let end = (start + BATCH).min(count);
        let parts: Vec<A> = (start..end).into_par_iter().map(&work).collect();
        for p in parts {
            merge(p);
        }
        tick(end - start);
        start = end;
    }
}

/// Which engines compute a chain's figures: decided once, here ([`Engine::for_chain`]), and
/// used by [`crate::ops::compare`] (the rows and their Monte Carlo figures), [`agree`] (the
/// agreement check) and the human layout (which tables a chain gets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    /// The steady-state simulator.
    pub steady: SteadyEngine,
    /// How the incident rows are computed and simulated.
    pub incident: IncidentEngine,
}

/// The steady-state Monte Carlo engine of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SteadyEngine {
    /// The default client policy (one attempt per link, no caps, no hedge delay, no
    /// breaker): [`steady::fast`], the fast path, all four patterns on the same draws.
    Fast,
    /// Any other policy (retries, backoff, caps, hedge delay, breaker): [`steady::policy`], request by
    /// request, with attempts, dead time, attribution and cap hits (MODEL.md §8).
    Policy,
}

/// The incident engines of a chain: what gives its rows' expected figures and what simulates
/// its windows with `--mc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncidentEngine {
    /// The default client policy: the closed forms of [`crate::model::incident`]; windows
    /// simulated by [`incident::fast`], the fast path.
    ClosedForm,
    /// A non-default policy without a circuit breaker: the closed forms; windows simulated in
    /// time by the event simulator [`incident::events`] (dead time, attempts on the dead provider).
    ClosedFormEvents,
    /// A circuit breaker or a rate-limited link: no closed form, so the rows' figures are the
    /// event simulator's with a fixed seed ([`expected`], marked `simulated`); windows simulated by [`incident::events`].
    Events,
}

impl Engine {
    /// The engines of `chain`, from its client policy.
    pub fn for_chain(chain: &crate::model::Chain) -> Engine {
        let default = chain.has_default_policy();
        Engine {
            steady: if default {
                SteadyEngine::Fast
            } else {
                SteadyEngine::Policy
            },
            incident: if chain.policy.breaker.is_some()
                || chain.links.iter().any(|l| l.capacity.is_some())
            {
                IncidentEngine::Events
            } else if default {
                IncidentEngine::ClosedForm
            } else {
                IncidentEngine::ClosedFormEvents
            },
        }
    }
}

impl IncidentEngine {
    /// Whether the rows' expected figures are closed forms (not [`IncidentEngine::Events`]).
    pub fn has_closed_form(self) -> bool {
        self != IncidentEngine::Events
    }

    /// Whether `--mc` simulates the windows with the event simulator [`incident::events`] (not
    /// the fast path [`incident::fast`]) for the shorthand incident.
    pub fn simulates_events(self) -> bool {
        self != IncidentEngine::ClosedForm
    }

    /// The simulator of `incident`'s windows: the event simulator for a timeline (whatever the
    /// policy, see the module's "Timelines"), else as [`IncidentEngine::simulates_events`].
    pub fn simulator(self, incident: &crate::model::Incident) -> IncidentSimulator {
        if incident.timeline.is_some() || self.simulates_events() {
            IncidentSimulator::Events
        } else {
            IncidentSimulator::Fast
        }
    }
}

/// Which simulator draws a chain's incident windows ([`IncidentEngine::simulator`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncidentSimulator {
    /// The fast path [`incident::fast`] (the default policy, the shorthand incident).
    Fast,
    /// The event simulator [`incident::events`] (any policy; every timeline).
    Events,
}

/// One chain's simulated steady state of one pattern, from the simulator its [`Engine`] chose
/// ([`Engine::simulate_steady`]).
#[derive(Debug, Clone, PartialEq)]
pub enum SteadyRun {
    /// The fast path ([`steady::fast`], the default policy).
    Fast(steady::fast::PatternMc),
    /// The policy path ([`steady::policy`]): with attempts, dead time, attribution and cap hits.
    Policy(steady::policy::PolicyMc),
}

impl SteadyRun {
    /// The figures every steady simulator gives: the steady figure set and the latency.
    pub fn base(&self) -> &steady::fast::PatternMc {
        match self {
            SteadyRun::Fast(m) => m,
            SteadyRun::Policy(m) => &m.base,
        }
    }

    /// The policy simulator's figures, if it ran.
    pub fn policy(&self) -> Option<&steady::policy::PolicyMc> {
        match self {
            SteadyRun::Fast(_) => None,
            SteadyRun::Policy(m) => Some(m),
        }
    }
}

/// One chain's simulated incident windows of one pattern, from the simulator its [`Engine`]
/// chose ([`Engine::simulate_incident`]).
#[derive(Debug, Clone, PartialEq)]
pub enum IncidentRun {
    /// The fast path ([`incident::fast`]).
    Fast(incident::fast::IncidentSums),
    /// The event simulator ([`incident::events`]): with dead time and the breaker.
    Events(incident::events::PolicyIncidentMc),
}

impl IncidentRun {
    /// The figures every incident simulator gives: the incident figure set's sums.
    pub fn base(&self) -> &incident::fast::IncidentSums {
        match self {
            IncidentRun::Fast(m) => m,
            IncidentRun::Events(m) => &m.base,
        }
    }

    /// The event simulator's figures, if it ran.
    pub fn policy(&self) -> Option<&incident::events::PolicyIncidentMc> {
        match self {
            IncidentRun::Fast(_) => None,
            IncidentRun::Events(m) => Some(m),
        }
    }
}

impl Engine {
    /// Simulate `opts.requests` steady-state requests of chain number `index` (its stream) with
    /// this engine's steady simulator: every pattern that exists on the chain. The one place
    /// the steady simulator is called (`ops::compare`, [`agree`]). `tick(n)`: n more requests.
    pub fn simulate_steady(
        self,
        request: &crate::model::Request,
        chain: &crate::model::Chain,
        index: u64,
        opts: &McOptions,
        tick: &mut dyn FnMut(u64),
    ) -> Vec<SteadyRun> {
        match self.steady {
            SteadyEngine::Fast => steady::fast::simulate(request, chain, index, opts, tick)
                .into_iter()
                .map(SteadyRun::Fast)
                .collect(),
            SteadyEngine::Policy => steady::policy::simulate(request, chain, index, opts, tick)
                .into_iter()
                .map(SteadyRun::Policy)
                .collect(),
        }
    }

    /// The steady-state latency histogram of every pattern [`Engine::simulate_steady`]
    /// simulates, from the same draws (so the same percentiles), without its other figures
    /// where the policy path can skip them ([`steady::policy::latencies`]): `fallcost tune`'s
    /// p99 of each candidate.
    pub fn steady_latencies(
        self,
        request: &crate::model::Request,
        chain: &crate::model::Chain,
        index: u64,
        opts: &McOptions,
    ) -> Vec<(crate::model::Pattern, histogram::Histogram)> {
        match self.steady {
            SteadyEngine::Fast => steady::fast::simulate(request, chain, index, opts, &mut |_| {})
                .into_iter()
                .map(|m| (m.pattern, m.latency))
                .collect(),
            SteadyEngine::Policy => steady::policy::latencies(request, chain, index, opts),
        }
    }

    /// Simulate `opts.runs` windows of `incident` (already the chain's: `Incident::for_chain`)
    /// under `pattern` on chain number `index`, with the simulator
    /// [`IncidentEngine::simulator`] picks; `None` where the pattern does not exist on the
    /// chain. The one place an incident simulator is called. `tick(n)`: n more windows.
    #[allow(clippy::too_many_arguments)]
    pub fn simulate_incident(
        self,
        request: &crate::model::Request,
        chain: &crate::model::Chain,
        incident: &crate::model::Incident,
        pattern: crate::model::Pattern,
        index: u64,
        opts: &McOptions,
        tick: &mut dyn FnMut(u64),
    ) -> Option<IncidentRun> {
        match self.incident.simulator(incident) {
            IncidentSimulator::Fast => {
                incident::fast::simulate(request, chain, incident, pattern, index, opts, tick)
                    .map(IncidentRun::Fast)
            }
            IncidentSimulator::Events => {
                incident::events::simulate(request, chain, incident, pattern, index, opts, tick)
                    .map(IncidentRun::Events)
            }
        }
    }
}
