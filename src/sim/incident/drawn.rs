//! A window's arrival times, drawn first from its generator ([`Arrivals`]), and their sharing
//! between simulations that draw the same window.
//!
//! Every window of the event simulator ([`super::events`]) draws its N arrival times before
//! any other draw, from the window's own generator (seed, stream, window index: the
//! [`crate::sim::rng::chunk_rng`] key). Two simulations of that key with the same N and D
//! therefore draw the same arrivals and continue from the same generator state, whatever
//! their chain and policy. `fallcost tune` prices hundreds of candidates on the fixed-seed
//! figures' one stream ([`crate::sim::expected`]): their k-th windows share this draw, which
//! took about a quarter of a window's time (a logarithm and an `exp_m1` per arrival: 21-28% of
//! the CPU samples of `fallcost tune` on sept3-timeline, policies and hedge-latency, profiled
//! on 2026-12-07). [`shared`] draws it once per key and hands out the same
//! times and generator state, so every figure is bit-identical to drawing it afresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::fast::Arrivals;
use crate::sim::rng::{SimRng, chunk_rng};

/// A window's arrival times (seconds from its start, ascending) and its generator after
/// drawing them: where the window's other draws continue.
#[derive(Debug, Clone)]
pub(crate) struct Drawn {
    /// The N arrival times, seconds.
    pub(crate) times: Vec<f64>,
    /// The window's generator after the N draws.
    pub(crate) rng: SimRng,
}

/// The N = `requests` arrivals of a window of `duration_s` seconds drawn from `rng`.
pub(crate) fn draw(requests: u64, duration_s: f64, mut rng: SimRng) -> Drawn {
    let mut arrivals = Arrivals::new(requests, duration_s);
    let times = (0..requests).map(|_| arrivals.next(&mut rng)).collect();
    Drawn { times, rng }
}

/// The most arrival times [`shared`] keeps (8 bytes each: 64 MiB). Past it, a window's
/// arrivals are drawn afresh by each simulation (the same figures, more time). The earliest
/// windows are kept first, and they are the ones every candidate of a search draws.
pub const SHARED_TIMES: usize = 1 << 23;

/// The shared draws: by (seed, stream, window, requests, duration's bits), and how many times
/// they hold.
type Memo = (usize, HashMap<(u64, u64, u64, u64, u64), Arc<Drawn>>);

fn memo() -> &'static Mutex<Memo> {
    static MEMO: OnceLock<Mutex<Memo>> = OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// The arrivals of window `chunk` of (`seed`, `stream`) with `requests` requests over
/// `duration_s` seconds: [`draw`] on [`chunk_rng`]`(seed, stream, chunk)`, drawn once and
/// shared while the memo holds fewer than [`SHARED_TIMES`] times.
pub(crate) fn shared(
    seed: u64,
    stream: u64,
    chunk: u64,
    requests: u64,
    duration_s: f64,
) -> Arc<Drawn> {
    let key = (seed, stream, chunk, requests, duration_s.to_bits());
    if let Some(hit) = memo().lock().ok().and_then(|m| m.1.get(&key).cloned()) {
        return hit;
    }
    let drawn = Arc::new(draw(requests, duration_s, chunk_rng(seed, stream, chunk)));
    if let Ok(mut m) = memo().lock()
        && m.0 + drawn.times.len() <= SHARED_TIMES
        && !m.1.contains_key(&key)
    {
        m.0 += drawn.times.len();
        m.1.insert(key, drawn.clone());
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::uniform;

    /// The shared draw is the fresh one: the same times and the generator at the same state
    /// (its next draws equal), on the first call and on the memo's.
    #[test]
    fn a_shared_draw_is_the_fresh_draw() {
        let (seed, stream) = (0x5EED, 0xABCD);
        for chunk in [0, 7] {
            let fresh = draw(500, 60.0, chunk_rng(seed, stream, chunk));
            for _ in 0..2 {
                let s = shared(seed, stream, chunk, 500, 60.0);
                assert_eq!(s.times, fresh.times);
                let (mut a, mut b) = (s.rng.clone(), fresh.rng.clone());
                assert_eq!(uniform(&mut a), uniform(&mut b));
            }
        }
        // ascending within [0, D]
        let s = shared(seed, stream, 0, 500, 60.0);
        assert!(s.times.windows(2).all(|w| w[0] <= w[1]));
        assert!(s.times.iter().all(|&t| (0.0..=60.0).contains(&t)));
        // another window draws other times
        assert_ne!(s.times, shared(seed, stream, 1, 500, 60.0).times);
    }
}
