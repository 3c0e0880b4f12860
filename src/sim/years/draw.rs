//! A simulated year's windows: their arrivals, streams and samples (issue 33 item 6).
//!
//! The year is the superposition of its streams: cumulative Exp(1) gaps below the total rate
//! ([`arrivals`]), each arrival a stream chosen in proportion to its rate, then one of its
//! process's samples uniformly. One 64-bit draw per arrival gives both ([`draws`], [`place`]):
//! the stream from its top 32 bits (compared with the streams' thresholds to 96 bits, the bits
//! past 32 drawn only where they decide it: [`pick_stream`]; a guide table on the top 8 bits
//! in place of most comparisons: [`guide`]), the sample from its low 32 bits (Lemire's
//! multiply-shift with rejection, every sample equally likely: [`index`]).

use rand::Rng;
use rand_distr::{Distribution, Exp1};

use super::clusters::{ALL_LANES, Point};
use super::table::Table;
use crate::sim::rng::SimRng;

/// The thresholds of the streams' cumulative rates `bounds` (all but the total `total`) as
/// fractions of it, to 96 bits: (the top 32 bits, the next 64) of each bound / total.
pub(super) fn thresholds(bounds: &[f64], total: f64, out: &mut Vec<(u64, u64)>) {
    out.clear();
    for &b in bounds {
        // exact scalings of the rounded quotient: its bits from 2⁻¹ to 2⁻³², then the next 64
        let scaled = (b / total).clamp(0.0, 1.0) * 4_294_967_296.0;
        let hi = scaled.floor();
        let lo = ((scaled - hi) * 18_446_744_073_709_551_616.0) as u64;
        out.push((hi as u64, lo));
    }
}

/// Entries of the guide table ([`guide`]): one per value of an arrival's top 8 bits.
pub(super) const GUIDE: usize = 256;

/// A guide entry whose stream the top 8 bits do not decide.
pub(super) const UNDECIDED: u8 = u8::MAX;

/// The guide table of `thresholds` (Chen and Asau 1974): per value j of U's top 8 bits, the
/// stream of every U in [j / 256, (j + 1) / 256) when no threshold's top 32 bits fall in it,
/// else [`UNDECIDED`] ([`pick_stream`] then counts). A lookup in place of the comparisons for
/// all but the few entries a threshold falls in: the same stream either way.
pub(super) fn guide(thresholds: &[(u64, u64)], out: &mut [u8; GUIDE]) {
    if thresholds.len() >= usize::from(UNDECIDED) {
        out.fill(UNDECIDED);
        return;
    }
    let mut below = 0;
    for (j, g) in out.iter_mut().enumerate() {
        let (lo, top) = ((j as u64) << 24, ((j as u64 + 1) << 24) - 1);
        while below < thresholds.len() && thresholds[below].0 < lo {
            below += 1;
        }
        *g = if thresholds.get(below).is_some_and(|t| t.0 <= top) {
            UNDECIDED
        } else {
            below as u8
        };
    }
}

/// The stream of an arrival: the number of `thresholds` at or below a uniform U whose top 32
/// bits are `y` (the rest drawn only where they decide it: when `y` equals a threshold's top
/// bits, about once in 2³² arrivals per stream), so the comparison is exact to 2⁻⁹⁶.
#[inline(always)]
fn pick_stream(r: &mut SimRng, y: u64, thresholds: &[(u64, u64)]) -> usize {
    let s = thresholds.partition_point(|&(hi, _)| y > hi);
    if thresholds.get(s).is_some_and(|&(hi, _)| hi == y) {
        s + tied(r, y, &thresholds[s..])
    } else {
        s
    }
}

/// Of the thresholds whose top 32 bits are `y` (the first ones of `thresholds`), those at or
/// below U: its next 64 bits drawn.
#[cold]
fn tied(r: &mut SimRng, y: u64, thresholds: &[(u64, u64)]) -> usize {
    let z = r.next_u64();
    thresholds
        .iter()
        .take_while(|&&(hi, _)| hi == y)
        .filter(|&&(_, lo)| z >= lo)
        .count()
}

/// A uniform index in 0 .. n from the 32-bit draw `x`: Lemire's multiply-shift ⌊x·n / 2³²⌋,
/// the rare draws that would favour some indices rejected and drawn again (Lemire 2019), so
/// every index has probability 1 / n exactly.
#[inline(always)]
fn index(r: &mut SimRng, x: u32, n: u32) -> u32 {
    let m = u64::from(x) * u64::from(n);
    if (m as u32) < n {
        return index_again(r, m, n);
    }
    (m >> 32) as u32
}

/// [`index`]'s rejection: the product `m`'s low half below 2³² mod n, drawn again.
#[cold]
fn index_again(r: &mut SimRng, mut m: u64, n: u32) -> u32 {
    let t = n.wrapping_neg() % n;
    while (m as u32) < t {
        m = u64::from(r.next_u64() as u32) * u64::from(n);
    }
    (m >> 32) as u32
}

/// Exp(1) gaps drawn at a time (the leftover ones of a year's last batch are not used).
const GAP_BATCH: usize = 32;

/// The year's arrivals into `out`, in order: cumulative Exp(1) gaps below `total` (the year's
/// total rate), in units of 1 / total of a year (a Poisson process at the total rate on the
/// year). The gaps are drawn [`GAP_BATCH`] at a time, then added up (no running sum lives
/// across the sampler's rare calls, so it stays in a register).
#[inline(always)]
pub(super) fn arrivals(rng: &mut SimRng, total: f64, out: &mut Vec<f64>) {
    out.clear();
    if total <= 0.0 || total.is_nan() {
        return;
    }
    // a local copy: the loop's own, so its state stays in registers
    let mut r = rng.clone();
    let mut at = 0.0;
    loop {
        let mut gaps = [0.0f64; GAP_BATCH];
        for g in &mut gaps {
            *g = Exp1.sample(&mut r);
        }
        let mut below = 0;
        for g in &mut gaps {
            at += *g;
            *g = at;
            below += usize::from(at < total);
        }
        // the sums increase: those below the total are the first ones
        out.extend_from_slice(&gaps[..below]);
        if below < GAP_BATCH {
            break;
        }
    }
    *rng = r;
}

/// One 64-bit draw per arrival into `out` (its stream and sample: [`place`]).
#[inline(always)]
pub(super) fn draws(rng: &mut SimRng, n: usize, out: &mut Vec<u64>) {
    out.clear();
    let mut r = rng.clone();
    out.extend((0..n).map(|_| r.next_u64()));
    *rng = r;
}

/// What [`place`] reads of the year: the table, its streams' thresholds and guide table, per
/// process the lane bit of its extra stream, the seconds of the year per arrival unit.
pub(super) struct Streams<'a> {
    pub t: &'a Table,
    pub thresholds: &'a [(u64, u64)],
    pub guide: &'a [u8; GUIDE],
    pub owners: &'a [u32],
    pub scale: f64,
}

/// The year's windows from its arrivals and draws ([`arrivals`], [`draws`]; the rare extra
/// bits a stream or a sample needs from `rng`): their times in the year (seconds), rows, ends
/// and lanes into `points` (even streams are the processes' common ones, odd their extra
/// ones), the windows of one lane alone (extra windows) into `extras`. Returns the count of
/// common windows.
// not inlined: its loop gets the registers to itself (inlined into the whole year, its
// values were kept on the stack and read back every window)
#[inline(never)]
pub(super) fn place(
    rng: &mut SimRng,
    y: &Streams<'_>,
    (starts, xs): (&[f64], &[u64]),
    points: &mut Vec<Point>,
    extras: &mut Vec<u32>,
) -> u64 {
    let t = y.t;
    extras.clear();
    // every point is written below: the buffer's old ones are not cleared first
    points.resize(starts.len(), Point::default());
    for (k, ((d, &at), &x)) in points.iter_mut().zip(starts).zip(xs).enumerate() {
        let g = y.guide[(x >> 56) as usize];
        let s = if g == UNDECIDED {
            pick_stream(rng, x >> 32, y.thresholds)
        } else {
            usize::from(g)
        };
        let (first, n) = t.spans[s >> 1];
        let (duration, row) = t.samples[(first + index(rng, x as u32, n)) as usize];
        d.start = at * y.scale;
        d.end = d.start + duration;
        d.row = row;
        d.mask = if s & 1 == 0 {
            ALL_LANES
        } else {
            extras.push(k as u32);
            y.owners[s >> 1]
        };
    }
    (points.len() - extras.len()) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::chunk_rng;

    /// The guide table's stream is the comparisons' stream, for every top 8 bits and at the
    /// edges of every entry (thresholds inside entries, on their edges, equal ones, a
    /// zero-rate last stream at 1).
    #[test]
    fn the_guide_gives_the_counted_stream() {
        let mut r = chunk_rng(1, 2, 3);
        let bounds = [0.25, 0.25, 0.5000001, 0.75, 1.0];
        let mut th = Vec::new();
        thresholds(&bounds, 1.0, &mut th);
        let mut g = [0; GUIDE];
        guide(&th, &mut g);
        for j in 0..GUIDE as u64 {
            for y in [j << 24, (j << 24) + 1, ((j + 1) << 24) - 1] {
                let counted = th.iter().filter(|t| y > t.0).count();
                let got = g[j as usize];
                assert!(got == UNDECIDED || usize::from(got) == counted, "{y}");
                if got == UNDECIDED {
                    let s = pick_stream(&mut r, y, &th);
                    assert!(s >= counted && s <= th.iter().filter(|t| y >= t.0).count());
                }
            }
        }
        assert_eq!(th[4], (1 << 32, 0));
        assert_eq!(g[GUIDE - 1], 4);
        assert_eq!(g[0], 0);
    }

    /// Every index is drawn with probability 1 / n: for n = 3 from every 32-bit value (the
    /// rejected ones drawn again), each index exactly as often.
    #[test]
    fn lemire_indices_are_uniform() {
        let mut r = chunk_rng(4, 5, 6);
        let n = 3u32;
        // the 2³² mod 3 = 1 values whose product's low half is below it are drawn again
        let mut counts = [0u64; 3];
        for x in (0..=u32::MAX).step_by(65_537) {
            counts[index(&mut r, x, n) as usize] += 1;
        }
        let total: u64 = counts.iter().sum();
        for c in counts {
            assert!(
                (c as f64 / total as f64 - 1.0 / 3.0).abs() < 1e-3,
                "{counts:?}"
            );
        }
        // the multiply-shift alone: ⌊x·n / 2³²⌋
        assert_eq!(index(&mut r, u32::MAX, n), 2);
        assert_eq!(index(&mut r, 1 << 31, n), 1);
    }
}
