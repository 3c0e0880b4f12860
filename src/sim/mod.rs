//! The Monte Carlo engine (MODEL.md §9): the same model as [`crate::model`], simulated request
//! by request, so its means converge to the analytic values and it adds what the closed forms
//! do not give: confidence intervals and latency percentiles.
//!
//! - [`steady`]: N requests per chain in steady state, all four patterns on the same draws;
//! - [`incident`]: K repeated outage windows per chain and pattern, in time, with sessions and
//!   per-session cache state;
//! - [`histogram`]: the fixed-size log histogram behind the percentiles;
//! - [`circuit`]: the circuit breaker's state machine (closed, open, half-open), one per
//!   provider in [`breaker`]'s event simulator;
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
pub mod breaker;
pub mod circuit;
pub mod expected;
pub mod histogram;
pub mod incident;
pub mod policy;
pub mod rng;
pub mod stats;
pub mod steady;

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
