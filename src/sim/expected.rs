//! The incident figures of a chain with a circuit breaker, computed by the incident simulator
//! ([`super::breaker`]) with a fixed seed: the "analytic" column's figures where no closed form
//! is exact (README "Known limits"; MODEL.md §8).
//!
//! A breaker couples the requests of a window in time (when it opens depends on when earlier
//! attempts end, which depends on the arrivals, the timeout, retries and backoff, and which
//! links of the chain share its provider), and a closed form that takes these at their means
//! was off by up to 25x. So these figures are simulated, deterministically: the seed is the
//! constant [`SEED`] on a stream of its own (no `--mc --seed` run shares its draws), and the
//! number of windows is chosen by a fixed rule ([`windows_for`]): doubling from [`MIN_WINDOWS`]
//! until the headline figures (total, window, wasted attempts, attempts on the dead provider,
//! dead time) are within 1% at 4.5 standard errors, or the budget ([`MAX_REQUESTS`] simulated
//! requests, [`MAX_WINDOWS`] windows) is spent. The same scenario prints the same figures on any
//! machine and thread count. Outputs mark them as simulated (table `sim`, JSON `"method":
//! "simulated"`, CSV `method`).

use crate::model::cost::Request;
use crate::model::incident::{BreakerFigures, IncidentOutcome};
use crate::model::{Chain, Incident, Pattern};

use super::McOptions;
use super::breaker::{PolicyIncidentMc, simulate};
use super::stats::Sum;

/// The seed of every simulated incident figure.
pub const SEED: u64 = 0xFA11_C057_B4EA_4E45;
/// The chain index of the simulated figures' stream: beyond any scenario's chains, so no
/// `--mc` stream (chain index < 2²⁸) shares its draws.
const STREAM_INDEX: u64 = 1 << 28;
/// The fewest windows simulated.
pub const MIN_WINDOWS: u64 = 8;
/// The most windows simulated.
pub const MAX_WINDOWS: u64 = 4096;
/// The most requests simulated for one pattern on one chain (windows × requests per window):
/// bounds the time (a few tenths of a second in a release build).
pub const MAX_REQUESTS: u64 = 1 << 19;

/// The incident figures of one pattern, simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulated {
    /// The figures, as the analytic engine's type (means over the windows).
    pub outcome: IncidentOutcome,
    /// Windows simulated.
    pub windows: u64,
    /// The largest relative 4.5-standard-error half-width of the headline figures (a fraction;
    /// 0.01 is 1%).
    pub precision: f64,
}

/// Relative 4.5-SE half-width of `s` (0 for a constant figure).
fn relative(s: &Sum) -> f64 {
    let se = s.std_error();
    if se == 0.0 {
        return 0.0;
    }
    let m = s.mean().abs();
    if m == 0.0 {
        f64::INFINITY
    } else {
        4.5 * se / m
    }
}

fn precision(m: &PolicyIncidentMc) -> f64 {
    [
        &m.base.total,
        &m.base.window,
        &m.base.wasted_attempts,
        &m.dead_attempts,
        &m.dead_time_mean,
    ]
    .into_iter()
    .map(relative)
    .fold(0.0, f64::max)
}

/// The windows the rule would start with and may double to for `requests` per window:
/// (first, last).
pub fn windows_for(requests: u64) -> (u64, u64) {
    let most = (MAX_REQUESTS / requests.max(1)).clamp(MIN_WINDOWS, MAX_WINDOWS);
    (MIN_WINDOWS.min(most), most)
}

/// The incident figures of `pattern` on `chain` under its policy, from the simulator (see the
/// module doc). `None` where the pattern does not exist on the chain, as
/// [`crate::model::incident::evaluate`].
pub fn expected(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
) -> Option<Simulated> {
    let (mut windows, most) = windows_for(incident.requests());
    loop {
        let opts = McOptions {
            requests: 0,
            runs: windows,
            seed: SEED,
        };
        let m = simulate(
            request,
            chain,
            incident,
            pattern,
            STREAM_INDEX,
            &opts,
            &mut |_| {},
        )?;
        let p = precision(&m);
        if p <= 0.01 || windows >= most {
            return Some(Simulated {
                outcome: outcome(&m, incident, chain.policy.breaker.is_some()),
                windows,
                precision: p,
            });
        }
        windows = (windows * 2).min(most);
    }
}

fn outcome(m: &PolicyIncidentMc, incident: &Incident, breaker: bool) -> IncidentOutcome {
    let b = &m.base;
    let n = incident.requests();
    let total = b.total.mean();
    IncidentOutcome {
        requests: n,
        sessions: n.div_ceil(incident.session_length.max(1)),
        normal: b.normal,
        window: b.window.mean(),
        cold_start: b.cold_start.mean(),
        failback: b.failback.mean(),
        total,
        multiplier: (b.normal > 0.0).then(|| total / b.normal),
        failed_requests: b.failed_requests.mean(),
        wasted_attempts: b.wasted_attempts.mean(),
        wasted: b.wasted.mean(),
        cold_starts: b.cold_starts.mean(),
        failback_writes: b.failback_writes.mean(),
        dead_time_mean_s: m.dead_time_mean.mean(),
        breaker: breaker.then(|| BreakerFigures {
            dead_attempts: m.dead_attempts.mean(),
            probes: m.probes.mean(),
            open_s: m.open_s.mean(),
        }),
    }
}
