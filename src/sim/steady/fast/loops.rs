//! The fast path's chunk loops ([`super::chunk`] picks one): draws and the common outcome's
//! bookkeeping, the rest handed to [`super::uncommon`] and [`super::rare`] with a copy of the
//! generator.

use crate::sim::histogram::{BINS, LogScale, bin, bin_at};
use crate::sim::rng::{SimRng, normal, uniform};

use super::{AttemptOutcome, BUFFER, ChainSim, LinkSim, SteadyTally, rare, uncommon};

/// The common outcome's counts by hedge winner and its latency bins under `no-fallback`/
/// `sequential` and under the hedged patterns, for one chunk.
pub(super) type CommonBins<'a> = (&'a mut [u64; 2], &'a mut [u32; BINS], &'a mut [u32; BINS]);

/// The loop of a one-link chain, or of a chain whose hedge winner is drawn with probability
/// w: draws are made [`BUFFER`] requests at a time, then evaluated ([`evaluate_one`],
/// [`evaluate_two`]). The generator's state stays in registers through both passes.
pub(super) fn buffered(
    sim: &ChainSim,
    rng: &mut SimRng,
    acc: &mut SteadyTally,
    count: u64,
    bins: CommonBins,
) {
    let two = sim.links.len() >= 2;
    let mut u = [[0.0f64; 2]; BUFFER];
    let mut z = [[0.0f64; 2]; BUFFER];
    let mut r = rng.clone();
    let (common, seq_bins, hedge_bins) = bins;
    let mut done = 0u64;
    while done < count {
        let m = (count - done).min(BUFFER as u64) as usize;
        if two {
            for k in 0..m {
                u[k][0] = uniform(&mut r);
                z[k][0] = normal(&mut r);
                u[k][1] = uniform(&mut r);
                z[k][1] = normal(&mut r);
            }
            let bins = (&mut *common, &mut *seq_bins, &mut *hedge_bins);
            evaluate_two(sim, &u[..m], &z[..m], &mut r, acc, bins);
        } else {
            for k in 0..m {
                u[k][0] = uniform(&mut r);
                z[k][0] = normal(&mut r);
            }
            evaluate_one(
                sim,
                &u[..m],
                &z[..m],
                &mut r,
                acc,
                (&mut *common, &mut *seq_bins),
            );
        }
        done += m as u64;
    }
    *rng = r;
}

/// The uniform at or above which an attempt on `l` neither fails nor trips by its given rate
/// (with trips from the latency model, its failure rate).
#[inline(always)]
fn threshold(l: &LinkSim) -> f64 {
    if l.trip_by_latency {
        l.fail_below
    } else {
        l.trip_below
    }
}

/// The draws u and ln L of link `i` make an attempt that answered under T at once (no
/// redraw): the outcome [`ChainSim::attempt`] gives `Ok` without touching the generator.
/// Returns it and ln L (the same expression as there, so the same bits).
#[inline(always)]
fn answered_at_once(l: &LinkSim, u: f64, z: f64) -> (bool, f64) {
    let ln_l = l.mu + l.sigma * z;
    ((u >= threshold(l)) & (ln_l <= l.ln_t), ln_l)
}

/// Evaluate a buffer of a one-link chain's draws (`u[k][0]`, `z[k][0]`), in order: the
/// common outcome (the primary answered at once) counted and binned, the rest through
/// [`ChainSim::attempt`] with the generator (a latency redrawn below T) and [`rare`].
#[inline(always)]
fn evaluate_one(
    sim: &ChainSim,
    u: &[[f64; 2]],
    z: &[[f64; 2]],
    r: &mut SimRng,
    acc: &mut SteadyTally,
    (common, seq_bins): (&mut [u64; 2], &mut [u32; BINS]),
) {
    let l0 = &sim.links[0];
    let mut ok_n = 0u64;
    for (u, z) in u.iter().zip(z) {
        let (ok, ln0) = answered_at_once(l0, u[0], z[0]);
        if ok {
            ok_n += 1;
            seq_bins[bin(ln0)] += 1;
            continue;
        }
        let mut spilled = r.clone();
        ok_n += u64::from(alone_uncommon(
            sim,
            acc,
            (u[0], z[0]),
            seq_bins,
            &mut spilled,
        ));
        *r = spilled;
    }
    common[0] += ok_n;
}

/// A one-link chain's request off the common path ([`evaluate_one`], [`alone_by_latency`]):
/// its attempt from the draws `(u, z)` through [`ChainSim::attempt`] (a latency redrawn below
/// T from `rng`); answered, binned, else [`rare`]. Returns whether it answered.
#[inline]
fn alone_uncommon(
    sim: &ChainSim,
    acc: &mut SteadyTally,
    (u, z): (f64, f64),
    seq_bins: &mut [u32; BINS],
    rng: &mut SimRng,
) -> bool {
    let (a0, ln0) = sim.attempt(0, u, z, rng);
    if a0 == AttemptOutcome::Ok {
        seq_bins[bin(ln0)] += 1;
        return true;
    }
    rare(sim, acc, (a0, ln0), None, rng);
    false
}

/// Evaluate a buffer of a two-link chain's draws (`u[k]`, `z[k]`: links 0 and 1), in order,
/// the hedge winner drawn with probability w. The common outcome (both answered at once) is
/// decided by one test and takes the winner's uniform from the generator, as every request
/// did before its evaluation was split out; the rest goes through [`uncommon`].
#[inline(always)]
fn evaluate_two(
    sim: &ChainSim,
    u: &[[f64; 2]],
    z: &[[f64; 2]],
    r: &mut SimRng,
    acc: &mut SteadyTally,
    bins: CommonBins,
) {
    let (common, seq_bins, hedge_bins) = bins;
    let (l0, l1) = (&sim.links[0], &sim.links[1]);
    let (s0, s1) = (
        LogScale::new(l0.mu, l0.sigma),
        LogScale::new(l1.mu, l1.sigma),
    );
    let (xt0, xt1) = (LogScale::at(l0.ln_t), LogScale::at(l1.ln_t));
    let (thr0, thr1) = (threshold(l0), threshold(l1));
    let (mut ok_n, mut second_n) = (0u64, 0u64);
    for (u, z) in u.iter().zip(z) {
        let (x0, x1) = (s0.x(z[0]), s1.x(z[1]));
        if (u[0] >= thr0) & (u[1] >= thr1) & (x0 <= xt0) & (x1 <= xt1) {
            let second = uniform(r) >= sim.win_rate;
            ok_n += 1;
            second_n += u64::from(second);
            let (k0, k1) = (bin_at(x0), bin_at(x1));
            seq_bins[k0] += 1;
            // the winner's bin without a branch on the coin: k1 when `second`, else k0
            hedge_bins[k0 ^ ((k0 ^ k1) & usize::from(second).wrapping_neg())] += 1;
        } else {
            let mut spilled = r.clone();
            let draws = [u[0], z[0], u[1], z[1]];
            uncommon(sim, acc, draws, common, seq_bins, hedge_bins, &mut spilled);
            *r = spilled;
        }
    }
    common[0] += ok_n - second_n;
    common[1] += second_n;
}

/// The loop of a one-link chain whose trips come from the latency model: draws and evaluation
/// in one loop, the common outcome (answered under T) decided by one test and binned on the
/// histogram's scale ([`LogScale`]). The other outcomes draw nothing more, so the stream is
/// the buffered loop's.
#[inline(always)]
pub(super) fn alone_by_latency(
    sim: &ChainSim,
    rng: &mut SimRng,
    acc: &mut SteadyTally,
    count: u64,
    (common, seq_bins): (&mut [u64; 2], &mut [u32; BINS]),
) {
    let l0 = &sim.links[0];
    let s0 = LogScale::new(l0.mu, l0.sigma);
    let (thr0, xt0) = (l0.fail_below, LogScale::at(l0.ln_t));
    let mut r = rng.clone();
    let mut ok_n = 0u64;
    for _ in 0..count {
        let u0 = uniform(&mut r);
        let z0 = normal(&mut r);
        let x0 = s0.x(z0);
        if (u0 >= thr0) & (x0 <= xt0) {
            ok_n += 1;
            seq_bins[bin_at(x0)] += 1;
        } else {
            let mut spilled = r.clone();
            ok_n += u64::from(alone_uncommon(sim, acc, (u0, z0), seq_bins, &mut spilled));
            r = spilled;
        }
    }
    common[0] += ok_n;
    *rng = r;
}

/// The loop of a chain of two or more links whose hedge winner is the faster leg (the common
/// case): draws and evaluation in one loop, branch-free until the one test (both legs
/// healthy and under T), latencies compared and binned as positions on the histogram's scale
/// ([`LogScale`]). Only the second leg's wins are counted here; the primary's are the rest.
#[inline(always)]
pub(super) fn by_latency(
    sim: &ChainSim,
    rng: &mut SimRng,
    acc: &mut SteadyTally,
    count: u64,
    bins: CommonBins,
) {
    let (common, seq_bins, hedge_bins) = bins;
    let (l0, l1) = (&sim.links[0], &sim.links[1]);
    let (thr0, thr1) = (threshold(l0), threshold(l1));
    let (s0, s1) = (
        LogScale::new(l0.mu, l0.sigma),
        LogScale::new(l1.mu, l1.sigma),
    );
    let (xt0, xt1) = (LogScale::at(l0.ln_t), LogScale::at(l1.ln_t));
    // The generator's state stays in registers: a copy goes to the uncommon path and back.
    let mut r = rng.clone();
    let mut second = 0u64;
    let mut off = 0u64;
    for _ in 0..count {
        let u0 = uniform(&mut r);
        let z0 = normal(&mut r);
        let u1 = uniform(&mut r);
        let z1 = normal(&mut r);
        let (x0, x1) = (s0.x(z0), s1.x(z1));
        let ok = (u0 >= thr0) & (u1 >= thr1) & (x0 <= xt0) & (x1 <= xt1);
        if ok {
            second += u64::from(x1 < x0);
            let (k0, k1) = (bin_at(x0), bin_at(x1));
            seq_bins[k0] += 1;
            hedge_bins[k0.min(k1)] += 1;
        } else {
            off += 1;
            let mut spilled = r.clone();
            uncommon(
                sim,
                acc,
                [u0, z0, u1, z1],
                common,
                seq_bins,
                hedge_bins,
                &mut spilled,
            );
            r = spilled;
        }
    }
    common[1] += second;
    common[0] += count - off - second;
    *rng = r;
}
