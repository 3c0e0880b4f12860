//! The Monte Carlo difference of one chain on common random numbers (CRN): BASE's and HEAD's
//! versions of the chain are simulated on the same draws, so the noise the two share cancels
//! in their difference and the difference gets its own, narrow, interval.
//!
//! How the draws are shared: the budget (`--mc N`, `--mc-runs K`) is cut into [`BATCHES`]
//! batches; batch b has its own seed, derived from (seed, b), the same for both sides, and the
//! chain's stream is keyed by its **name** (not its place in the scenario, which an added
//! chain would shift). Within a batch the simulators draw per request in a fixed order (steady
//! state: u₀, z₀, u₁, z₁, then what only rare outcomes need; an incident: per window, its own
//! generator, [`crate::sim::rng::chunk_rng`]), and a price never changes which draws are made,
//! so a change of a link's price or model leaves every draw of the other links where it was.
//! A change that makes later links run on different requests (a failure or trip rate) shifts
//! the rare draws after the first such request of the batch: the difference stays unbiased,
//! its interval just widens towards the independent one.
//!
//! The difference's interval: the B batch differences dᵦ (HEAD − BASE, each batch's mean) are
//! independent and identically distributed, so the mean is d̄ ± t₀.₉₇₅,B−1 · s / √B. Identical
//! sides draw and bill alike in every batch: every dᵦ is exactly 0 and so is the interval. The
//! independent interval beside it is what two runs on different seeds give at the same budget:
//! each side's own standard error over all its requests, added in quadrature.

use rayon::prelude::*;

use crate::model::{Chain, Pattern, Scenario};
use crate::number::round_noise;
use crate::report::diff::{ChainMc, DiffMcMeta, McDiff};
use crate::sim::stats::{Sum, Z95};
use crate::sim::{self, Engine, McOptions};

/// Batches the budget is cut into.
pub const BATCHES: u64 = 50;

/// t₀.₉₇₅ with [`BATCHES`] − 1 = 49 degrees of freedom.
const T_975_49: f64 = 2.009_575_237_129_235;

/// The report's account of the simulation.
pub fn meta(o: &McOptions) -> DiffMcMeta {
    DiffMcMeta {
        seed: o.seed,
        requests: per_batch(o.requests) * BATCHES,
        runs: per_batch(o.runs) * BATCHES,
        batches: BATCHES,
        method: "common random numbers: both sides on the same draws (per batch seed from (seed, batch), the chain's stream keyed by its name); the difference's 95% interval from the batches' paired differences (Student t, 49 degrees of freedom)",
    }
}

fn per_batch(n: u64) -> u64 {
    (n / BATCHES).max(1)
}

/// The chain's stream key: its name hashed (FNV-1a) to below 2²⁸, the range the simulators'
/// stream ids take ([`crate::sim::rng::Stream`]).
pub fn key(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h & ((1 << 28) - 1)
}

/// One batch's per-request (steady) and per-window (incident) sums for one side.
struct Batch {
    steady: Sum,
    incident: Option<Sum>,
}

/// Simulate batch `b` of `chain` (of scenario `s`) under `pattern`.
fn batch(s: &Scenario, chain: &Chain, pattern: Pattern, o: &McOptions, b: u64) -> Batch {
    let opts = McOptions {
        requests: per_batch(o.requests),
        runs: per_batch(o.runs),
        seed: sim::rng::mix(o.seed ^ sim::rng::mix(b.wrapping_add(1))),
    };
    let k = key(&chain.name);
    let req = &s.request;
    let engine = Engine::for_chain(chain);
    let none = &mut |_| {};
    let steady = engine
        .simulate_steady(req, chain, k, &opts, none)
        .into_iter()
        .find(|m| m.base().pattern == pattern)
        .map(|m| m.base().figures.cost_per_1k_usd);
    let incident = s.incident.as_ref().filter(|_| o.runs > 0).and_then(|i| {
        let inc = i.for_chain(chain);
        engine
            .simulate_incident(req, chain, &inc, pattern, k, &opts, none)
            .map(|m| m.base().figures.total_usd)
    });
    Batch {
        steady: steady.unwrap_or_default(),
        incident,
    }
}

/// The difference of paired batch means, and the independent interval from the merged sums.
fn paired(base: &[&Sum], head: &[&Sum], scale: f64) -> McDiff {
    let d: Vec<f64> = base
        .iter()
        .zip(head)
        .map(|(b, h)| (h.mean() - b.mean()) * scale)
        .collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let half = T_975_49 * (var / n).sqrt();
    let merged = |xs: &[&Sum]| {
        let mut s = Sum::default();
        for x in xs {
            s.merge(x);
        }
        s
    };
    let (mb, mh) = (merged(base), merged(head));
    let ind = Z95 * (mb.std_error().powi(2) + mh.std_error().powi(2)).sqrt() * scale;
    let m = (mh.mean() - mb.mean()) * scale;
    McDiff {
        mean: round_noise(mean),
        ci95: [round_noise(mean - half), round_noise(mean + half)],
        independent_ci95: [round_noise(m - ind), round_noise(m + ind)],
    }
}

/// BASE's `bc` (of `bs`) and HEAD's `hc` (of `hs`) under `pattern`, on common random numbers:
/// steady USD per 1,000 requests and the reference incident's bill, HEAD − BASE.
pub fn chain(
    bs: &Scenario,
    bc: &Chain,
    hs: &Scenario,
    hc: &Chain,
    pattern: Pattern,
    o: &McOptions,
) -> ChainMc {
    let runs: Vec<(Batch, Batch)> = (0..BATCHES)
        .into_par_iter()
        .map(|b| (batch(bs, bc, pattern, o, b), batch(hs, hc, pattern, o, b)))
        .collect();
    let base: Vec<&Sum> = runs.iter().map(|(b, _)| &b.steady).collect();
    let head: Vec<&Sum> = runs.iter().map(|(_, h)| &h.steady).collect();
    let per_1k_usd = paired(&base, &head, 1000.0);
    let inc: Option<(Vec<&Sum>, Vec<&Sum>)> = runs
        .iter()
        .map(|(b, h)| Some((b.incident.as_ref()?, h.incident.as_ref()?)))
        .collect::<Option<Vec<_>>>()
        .map(|v| v.into_iter().unzip());
    ChainMc {
        per_1k_usd,
        incident_usd: inc.map(|(b, h)| paired(&b, &h, 1.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline() -> Scenario {
        let text = std::fs::read_to_string("scenarios/sept3-timeline.toml").unwrap();
        crate::input::scenario::parse(
            "sept3-timeline.toml",
            &text,
            std::path::Path::new("scenarios"),
            &[],
        )
        .unwrap()
    }

    /// The same chain on both sides draws and bills alike in every batch: the difference is
    /// exactly 0 and so is its interval, where independent runs would give a wide one.
    #[test]
    fn identical_sides_differ_by_exactly_zero() {
        let s = timeline();
        let c = &s.chains[0];
        let o = McOptions {
            requests: 5_000,
            runs: 50,
            seed: 9,
        };
        let m = chain(&s, c, &s, c, Pattern::Sequential, &o);
        let i = m.incident_usd.unwrap();
        assert_eq!((i.mean, i.ci95), (0.0, [0.0, 0.0]));
        assert!(i.independent_ci95[1] > 0.1, "{i:?}");
        assert_eq!(m.per_1k_usd.ci95, [0.0, 0.0]);
    }

    /// The stream follows the chain's name, not its place: moving a chain to another index
    /// (another chain added before it) leaves its draws, hence its difference, unchanged.
    #[test]
    fn a_chain_keeps_its_draws_wherever_it_sits() {
        let s = timeline();
        let mut moved = s.clone();
        moved.chains.rotate_left(1);
        let o = McOptions {
            requests: 2_000,
            runs: 50,
            seed: 4,
        };
        let a = chain(&s, &s.chains[0], &s, &s.chains[2], Pattern::Sequential, &o);
        let b = chain(
            &moved,
            &moved.chains[2],
            &moved,
            &moved.chains[1],
            Pattern::Sequential,
            &o,
        );
        assert_eq!(a, b);
        assert_ne!(key("price-matched"), key("best-available"));
        assert!(key("price-matched") < 1 << 28);
    }
}
