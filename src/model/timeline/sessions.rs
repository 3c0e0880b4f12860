//! Where a window's sessions fall on a timeline's segments, exactly (MODEL.md §6, "Timelines").
//!
//! The window's N requests are the order statistics of N uniforms on [0, D]; session j is
//! requests jL .. jL + ℓ − 1 (ℓ = L, the last one N mod L when L does not divide N). Request r
//! lies in segment k iff C_k ≤ r < C_{k+1}, where C_k is the number of arrivals before the k-th
//! cut (C_0 = 0, C_K = N). The C_k are the cumulative counts of a multinomial, a Markov chain in
//! both directions: C_k ~ Bin(N, P_k) (P_k = the cut's offset / D), forward C_{k+1} − C_k | C_k
//! ~ Bin(N − C_k, (P_{k+1} − P_k)/(1 − P_k)), backward C_{k−1} | C_k ~ Bin(C_k, P_{k−1}/P_k).
//! So the chance that a session lies in segment a alone, or enters the range of its requests at
//! cut m with C_m = v (C_{m−1} ≤ jL < v) and goes on cut by cut, is a finite sum:
//! [`placements`] lists every way a session can lie (its requests' segments, in runs) with the
//! expected number of the window's sessions that lie so. A figure that depends on each request's
//! segment (a cold start on a model that answers some segments, a fail-back write after a silent
//! run) is then an exact expectation: Σ over placements of weight × the figure of that sequence.
//!
//! Cost: per session near a cut (within the binomial's band of C_k, about ±15 standard
//! deviations) O(ℓ²) terms per cut; the sessions far from every cut lie in one segment for sure.

use std::collections::BTreeMap;

/// One way a session can lie on the segments: its requests in order, as `runs` of (segment
/// index, requests) in increasing segments, and the expected number of the window's sessions
/// that lie so (not an integer in general).
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// Expected sessions lying so.
    pub weight: f64,
    /// (segment, requests in it), in order; the requests sum to the session's length.
    pub runs: Vec<(usize, u64)>,
}

impl Placed {
    /// The segment of each of the session's requests, in order.
    pub fn requests(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs
            .iter()
            .flat_map(|&(seg, k)| std::iter::repeat_n(seg, k as usize))
    }

    /// The session's length.
    pub fn len(&self) -> u64 {
        self.runs.iter().map(|r| r.1).sum()
    }

    /// Whether the session has no request (never: placements hold sessions of ≥ 1 request).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What every session of a window reads: the inner cuts (fractions of the window), the
/// window's requests, the logarithms of its counts.
#[derive(Clone, Copy)]
struct Window<'a> {
    cuts: &'a [f64],
    n: u64,
    logs: &'a Logs,
}

/// The counts' natural logarithms ln k for k = 0 ..= a bound, computed once per thread and
/// shared: `(k as f64).ln()` itself, looked up (the same bits, a load for a `log` call).
/// Counts past [`Logs::KEPT`] are computed where asked.
struct Logs(std::rc::Rc<Vec<f64>>);

thread_local! {
    /// The thread's table of [`Logs`], grown to the largest count asked so far.
    static LOGS: std::cell::RefCell<std::rc::Rc<Vec<f64>>> = std::cell::RefCell::new(std::rc::Rc::new(Vec::new()));
}

impl Logs {
    /// The largest table kept (2²² counts, 32 MiB): a window of more requests computes the
    /// logs past it.
    const KEPT: u64 = 1 << 22;

    /// The table for counts up to `n` (or [`Logs::KEPT`]).
    fn up_to(n: u64) -> Logs {
        let want = n.min(Self::KEPT) as usize + 1;
        LOGS.with_borrow_mut(|t| {
            if t.len() < want {
                // doubled, so a thread's windows grow it a few times at most
                let size = want
                    .next_power_of_two()
                    .clamp(1024, Self::KEPT as usize + 1);
                *t = std::rc::Rc::new((0..size.max(want)).map(|k| (k as f64).ln()).collect());
            }
            Logs(t.clone())
        })
    }

    /// ln k.
    #[inline(always)]
    fn ln(&self, k: u64) -> f64 {
        match self.0.get(k as usize) {
            Some(&l) => l,
            None => (k as f64).ln(),
        }
    }
}

/// e^x, with the exponent's underflow taken first: every x below −746 gives 0 (e^−746 is below
/// half the least subnormal, so `exp` itself rounds it to 0), without the library's slow path.
#[inline(always)]
fn exp_or_zero(x: f64) -> f64 {
    if x < -746.0 { 0.0 } else { x.exp() }
}

/// The law of C = the arrivals before a cut at fraction p of the window: Bin(N, p), kept on the
/// band where it has mass (outside it the pmf is below 1e-40).
struct Band {
    lo: u64,
    pmf: Vec<f64>,
    /// cdf[i] = P(C ≤ lo + i).
    cdf: Vec<f64>,
}

impl Band {
    fn new(n: u64, p: f64, logs: &Logs) -> Band {
        let nf = n as f64;
        let mean = nf * p;
        let sd = (nf * p * (1.0 - p)).sqrt();
        let lo = (mean - 15.0 * sd - 40.0).floor().max(0.0) as u64;
        let hi = ((mean + 15.0 * sd + 40.0).ceil() as u64).min(n);
        // ln pmf up to a constant by the ratio pmf(i+1)/pmf(i) = (N − i)/(i + 1)·p/(1 − p),
        // normalized over the band (which holds all but ~1e-40 of the mass).
        let odds = p.ln() - (-p).ln_1p();
        let mut ln = Vec::with_capacity((hi - lo + 1) as usize);
        let mut x = 0.0;
        for i in lo..=hi {
            ln.push(x);
            x += logs.ln(n - i) - logs.ln(i + 1) + odds;
        }
        let top = ln.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut pmf: Vec<f64> = ln.iter().map(|&l| (l - top).exp()).collect();
        let total: f64 = pmf.iter().sum();
        let mut acc = 0.0;
        let mut cdf = Vec::with_capacity(pmf.len());
        for v in &mut pmf {
            *v /= total;
            acc += *v;
            cdf.push(acc.min(1.0));
        }
        Band { lo, pmf, cdf }
    }

    fn hi(&self) -> u64 {
        self.lo + self.pmf.len() as u64 - 1
    }

    fn pmf(&self, v: u64) -> f64 {
        if v < self.lo || v > self.hi() {
            0.0
        } else {
            self.pmf[(v - self.lo) as usize]
        }
    }

    /// P(C ≤ v).
    fn cdf(&self, v: u64) -> f64 {
        if v < self.lo {
            0.0
        } else if v >= self.hi() {
            1.0
        } else {
            self.cdf[(v - self.lo) as usize]
        }
    }

    /// Whether C can lie in [a, b] (a ≤ b).
    fn touches(&self, a: u64, b: u64) -> bool {
        a <= b && b >= self.lo && a <= self.hi()
    }
}

/// ln C(m, j) for a small j (a sum of j logs); [`BinomRow`] keeps the same sum term by term.
#[cfg(test)]
fn ln_choose_small(m: u64, j: u64) -> f64 {
    (0..j)
        .map(|t| ((m - t) as f64).ln() - ((t + 1) as f64).ln())
        .sum()
}

/// P(Bin(m, q) = j) for a small j, from scratch (the reference [`BinomRow`] is checked
/// against).
#[cfg(test)]
fn binom_small(m: u64, q: f64, j: u64) -> f64 {
    if j > m {
        return 0.0;
    }
    if q <= 0.0 {
        return f64::from(u8::from(j == 0));
    }
    if q >= 1.0 {
        return f64::from(u8::from(j == m));
    }
    (ln_choose_small(m, j) + j as f64 * q.ln() + (m - j) as f64 * (-q).ln_1p()).exp()
}

/// P(Bin(m, q) = j) for j = 0, 1, 2, … in turn, for a small j: exp(ln C(m, j) + j ln q +
/// (m − j) ln(1 − q)), with ln C(m, j) = Σ_{t<j} (ln(m − t) − ln(t + 1)) kept from one j to the
/// next (the same sum, in the same order, as summing it afresh for each j: the same bits, O(1)
/// logs a term instead of O(j)).
struct BinomRow<'a> {
    logs: &'a Logs,
    m: u64,
    q: f64,
    ln_q: f64,
    ln_1mq: f64,
    /// ln C(m, j), folded term by term from the empty sum.
    ln_choose: f64,
    j: u64,
}

impl<'a> BinomRow<'a> {
    fn new(m: u64, q: f64, logs: &'a Logs) -> BinomRow<'a> {
        BinomRow::with_logs(m, q, (q.ln(), (-q).ln_1p()), logs)
    }

    /// [`BinomRow::new`] with ln q and ln(1 − q) given (`(q.ln(), (-q).ln_1p())`: the same
    /// values, computed once for many rows of one q).
    fn with_logs(m: u64, q: f64, (ln_q, ln_1mq): (f64, f64), logs: &'a Logs) -> BinomRow<'a> {
        BinomRow {
            logs,
            m,
            q,
            ln_q,
            ln_1mq,
            // the empty sum, as `ln_choose_small(m, 0)` folds it
            ln_choose: std::iter::empty::<f64>().sum(),
            j: 0,
        }
    }

    /// P(Bin(m, q) = j) for the next j (0 first).
    fn next_term(&mut self) -> f64 {
        let (m, q, j) = (self.m, self.q, self.j);
        let out = if j > m {
            0.0
        } else if q <= 0.0 {
            f64::from(u8::from(j == 0))
        } else if q >= 1.0 {
            f64::from(u8::from(j == m))
        } else {
            exp_or_zero(self.ln_choose + j as f64 * self.ln_q + (m - j) as f64 * self.ln_1mq)
        };
        if j < m {
            self.ln_choose += self.logs.ln(m - j) - self.logs.ln(j + 1);
        }
        self.j += 1;
        out
    }
}

thread_local! {
    /// The last few [`placements`] this thread computed, by (cuts' bits, n, l): a window's
    /// chains and patterns ask for the same ones (one history window: 2 chains × 4 patterns,
    /// one computation).
    static PLACEMENTS: std::cell::RefCell<Vec<PlacementsKey>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A memo entry of [`placements_shared`]: the cuts' bits, n, l and the placements.
type PlacementsKey = (Vec<u64>, u64, u64, std::rc::Rc<Vec<Placed>>);

/// How many [`placements_shared`] keeps per thread.
const PLACEMENTS_KEPT: usize = 4;

/// [`placements`], remembered per thread for the last few (cuts, n, l) asked: the same value
/// (a pure function of its arguments), computed once where a window's chains and patterns
/// share their cuts.
pub fn placements_shared(cuts: &[f64], n: u64, l: u64) -> std::rc::Rc<Vec<Placed>> {
    let bits: Vec<u64> = cuts.iter().map(|c| c.to_bits()).collect();
    let found = PLACEMENTS.with_borrow(|memo| {
        memo.iter()
            .find(|(b, nn, ll, _)| *b == bits && *nn == n && *ll == l)
            .map(|e| e.3.clone())
    });
    if let Some(p) = found {
        return p;
    }
    let placed = std::rc::Rc::new(placements(cuts, n, l));
    PLACEMENTS.with_borrow_mut(|memo| {
        if memo.len() >= PLACEMENTS_KEPT {
            memo.remove(0);
        }
        memo.push((bits, n, l, placed.clone()));
    });
    placed
}

/// The ways the sessions of a window of `n` requests in sessions of `l` lie on segments cut at
/// `cuts` (the inner cuts as fractions of the window, strictly increasing in (0, 1)): segment k
/// runs from cut k − 1 to cut k (0 and 1 at the ends). Placements of equal runs are merged;
/// their weights sum to ⌈n/l⌉ (to rounding, and the ~1e-18 of paths not followed).
pub fn placements(cuts: &[f64], n: u64, l: u64) -> Vec<Placed> {
    let l = l.max(1);
    let logs = Logs::up_to(n + 1);
    let bands: Vec<Band> = cuts.iter().map(|&p| Band::new(n, p, &logs)).collect();
    let w = Window {
        cuts,
        n,
        logs: &logs,
    };
    let mut out: BTreeMap<Vec<(usize, u64)>, f64> = BTreeMap::new();
    let sessions = n.div_ceil(l);
    let mut j = 0;
    while j < sessions {
        let r0 = j * l;
        let len = l.min(n - r0);
        // A whole session far from every band lies in one segment for sure (weight 1): the
        // run of such sessions up to the next band is counted at once.
        let far = far_run(&bands, j, l, sessions - 1);
        if far > 0 {
            let seg = bands.iter().filter(|b| b.hi() <= r0).count();
            add_placed(&mut out, &[(seg, l)], far as f64);
            j += far;
            continue;
        }
        session(&w, &bands, r0, len, &mut out);
        j += 1;
    }
    out.into_iter()
        .map(|(runs, weight)| Placed { weight, runs })
        .filter(|p| p.weight > 0.0)
        .collect()
}

/// How many whole sessions from session `j` on (of `l` requests each, before the last session
/// `last`, which may be shorter and is always placed one by one) lie far from every band: each
/// cut surely before the session's first request (C ≤ r0, so `hi ≤ r0`) or surely after its
/// last (`lo > r0 + l − 1`), and on the same side of every band as session `j`. Such a session
/// lies in one segment (the number of cuts before it) with weight 1, as [`session`] would find.
fn far_run(bands: &[Band], j: u64, l: u64, last: u64) -> u64 {
    let r0 = j * l;
    let mut end = last; // sessions j .. end are counted
    for b in bands {
        if b.hi() <= r0 {
            continue; // before the session, and before every later one
        }
        if b.lo > r0 + l - 1 {
            // after this session; the first session that reaches the band (lo ≤ r0' + l − 1)
            let reach = (b.lo + 1).saturating_sub(l).div_ceil(l);
            end = end.min(reach);
        } else {
            return 0;
        }
    }
    end.saturating_sub(j)
}

/// Adds the placements of the session of requests r0 .. r0 + len − 1 to `out`.
fn session(
    w: &Window<'_>,
    bands: &[Band],
    r0: u64,
    len: u64,
    out: &mut BTreeMap<Vec<(usize, u64)>, f64>,
) {
    let Window { cuts, logs, .. } = *w;
    let k = cuts.len() + 1; // segments
    // P(C_m ≤ r0) for m = 0..=k (C_0 = 0, C_k = n > r0).
    let below = |m: usize| -> f64 {
        if m == 0 {
            1.0
        } else if m == k {
            0.0
        } else {
            bands[m - 1].cdf(r0)
        }
    };
    let (a, b) = (r0 + 1, r0 + len - 1); // the values of a cut inside the session
    let mut runs: Vec<(usize, u64)> = Vec::with_capacity(k + 1);
    for seg in 0..k {
        let mut whole = below(seg) - below(seg + 1);
        let m = seg + 1; // the cut entered
        if m < k && len > 1 && bands[m - 1].touches(a, b) {
            let rho = if m >= 2 {
                cuts[m - 2] / cuts[m - 1]
            } else {
                0.0
            };
            let ln_q = ((1.0 - rho).ln(), (-(1.0 - rho)).ln_1p());
            for v in a..=b {
                let pv = bands[m - 1].pmf(v);
                if pv < 1e-300 {
                    continue;
                }
                // P(C_{m−1} ≤ r0 | C_m = v) = 1 − P(Bin(v, ρ) ≥ r0 + 1): v − r0 − 1 < len terms.
                let q = if m >= 2 {
                    let mut row = BinomRow::with_logs(v, 1.0 - rho, ln_q, logs);
                    let upper: f64 = (0..v - r0).map(|_| row.next_term()).sum();
                    (1.0 - upper).max(0.0)
                } else {
                    1.0
                };
                let weight = pv * q;
                if weight <= 0.0 {
                    continue;
                }
                whole -= weight;
                runs.clear();
                runs.push((seg, v - r0));
                forward(w, r0 + len, m, v, weight, &mut runs, out);
            }
        }
        if whole > 0.0 {
            add_placed(out, &[(seg, len)], whole);
        }
    }
}

/// `weight` added to the placement `runs` in `out` (a new one from 0): the key copied only
/// where it is new.
fn add_placed(out: &mut BTreeMap<Vec<(usize, u64)>, f64>, runs: &[(usize, u64)], weight: f64) {
    match out.get_mut(runs) {
        Some(total) => *total += weight,
        None => *out.entry(runs.to_vec()).or_insert(0.0) += weight,
    }
}

/// From cut `m` with C_m = v inside the session (whose requests end before `end`), weight `w`,
/// the requests before v placed in `runs` (as given when it returns: each step's run pushed
/// and popped again, not copied): on through segment m, cut by cut.
fn forward(
    win: &Window<'_>,
    end: u64,
    m: usize,
    v: u64,
    w: f64,
    runs: &mut Vec<(usize, u64)>,
    out: &mut BTreeMap<Vec<(usize, u64)>, f64>,
) {
    let finish = |runs: &mut Vec<(usize, u64)>, weight: f64, out: &mut BTreeMap<_, f64>| {
        runs.push((m, end - v));
        add_placed(out, runs, weight);
        runs.pop();
    };
    let Window { cuts, n, logs } = *win;
    if m == cuts.len() {
        return finish(runs, w, out);
    }
    let (pm, pn) = (cuts[m - 1], cuts[m]);
    let q = (pn - pm) / (1.0 - pm);
    let mut tail = 1.0;
    let mut row = BinomRow::new(n - v, q, logs);
    for _ in 0..end - v {
        let i = row.j;
        let b = row.next_term();
        tail -= b;
        let wi = w * b;
        if wi < 1e-18 {
            continue;
        }
        if i > 0 {
            runs.push((m, i));
        }
        forward(win, end, m + 1, v + i, wi, runs, out);
        if i > 0 {
            runs.pop();
        }
    }
    if tail > 0.0 && w * tail >= 1e-18 {
        finish(runs, w * tail, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::{chunk_rng, uniform};

    /// The running binomial terms are the from-scratch ones bit for bit (the placements, and
    /// every figure on a timeline with cuts, unchanged), past m and at q = 0 and 1 too.
    #[test]
    fn running_binomial_terms_are_the_from_scratch_ones() {
        for (m, q) in [
            (0, 0.3),
            (1, 0.5),
            (7, 0.001),
            (19, 0.37),
            (36_000, 0.999_7),
            (5, 0.0),
            (5, 1.0),
        ] {
            let logs = Logs::up_to(m + 1);
            let mut row = BinomRow::new(m, q, &logs);
            for j in 0..(m + 25).min(60) {
                assert_eq!(
                    row.next_term().to_bits(),
                    binom_small(m, q, j).to_bits(),
                    "{m} {q} {j}"
                );
            }
        }
        // the memo hands back the same placements
        let cuts = [0.3, 0.300_4, 0.8];
        assert_eq!(
            *placements_shared(&cuts, 1000, 20),
            placements(&cuts, 1000, 20)
        );
        assert_eq!(
            *placements_shared(&cuts, 1000, 20),
            placements(&cuts, 1000, 20)
        );
        assert_eq!(
            *placements_shared(&cuts[..1], 1000, 20),
            placements(&cuts[..1], 1000, 20)
        );
    }

    /// The looked-up logarithms and the early underflow are the library's own values to the
    /// bit: ln k in and past the table, e^x on both sides of −746 and down to −1e4.
    #[test]
    fn looked_up_logs_and_early_underflow_are_the_library_values() {
        let logs = Logs::up_to(5000);
        for k in (0..20_000u64).chain([Logs::KEPT + 3, u64::from(u32::MAX)]) {
            assert_eq!(logs.ln(k).to_bits(), (k as f64).ln().to_bits(), "{k}");
        }
        let mut x = -10_000.0;
        while x < 10.0 {
            assert_eq!(exp_or_zero(x).to_bits(), x.exp().to_bits(), "{x}");
            x += if (-760.0..-700.0).contains(&x) {
                0.013
            } else {
                1.7
            };
        }
        assert_eq!(exp_or_zero(-745.0), (-745.0f64).exp());
        assert!(exp_or_zero(-745.0) > 0.0);
    }

    /// The placements' total weight is the session count, and each session's segments are a
    /// law: Monte Carlo of the placement (N uniform order statistics) agrees with the weights.
    #[test]
    fn placements_match_the_order_statistics() {
        // D = 1, cuts at 0.3, 0.3004 and 0.8 (a segment of ~0.4 requests at N = 1,000), L = 20;
        // N = 1,010: 51 sessions, the last of 10.
        let cuts = [0.3, 0.3004, 0.8];
        let (n, l) = (1010u64, 20u64);
        let p = placements(&cuts, n, l);
        let total: f64 = p.iter().map(|x| x.weight).sum();
        assert!((total - 51.0).abs() < 1e-9, "{total}");
        // the expected requests per segment: N × its length
        let mut per_seg = [0.0; 4];
        for x in &p {
            for &(s, k) in &x.runs {
                per_seg[s] += x.weight * k as f64;
            }
        }
        let want = [303.0, 0.404, 505.0 - 0.404, 202.0];
        for (g, w) in per_seg.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{per_seg:?}");
        }
        // the straddling sessions: E[#sessions with requests in segments 0 and 2] by simulation
        let straddle = |x: &Placed| x.runs.len() > 1;
        let exact: f64 = p.iter().filter(|x| straddle(x)).map(|x| x.weight).sum();
        let runs = 4000;
        let mut seen = 0.0;
        for r in 0..runs {
            let mut rng = chunk_rng(3, 5, r);
            let mut t: Vec<f64> = (0..n).map(|_| uniform(&mut rng)).collect();
            t.sort_by(f64::total_cmp);
            let seg = |x: f64| cuts.iter().filter(|&&c| c <= x).count();
            seen += t
                .chunks(l as usize)
                .filter(|s| seg(s[0]) != seg(s[s.len() - 1]))
                .count() as f64;
        }
        let mc = seen / runs as f64;
        // three cuts, about (L − 1)/L straddling sessions each, two cuts 0.4 requests apart
        // mostly straddled by one session: ~2 in all; the simulation's s.e. is ~0.015
        assert!((mc - exact).abs() < 0.06, "{mc} vs {exact}");
        assert!(exact > 1.5 && exact < 3.0, "{exact}");
    }

    /// A session of one request never straddles; no cut: every session whole.
    #[test]
    fn placements_by_hand() {
        let p = placements(&[], 45, 20);
        assert_eq!(
            p,
            vec![
                Placed {
                    weight: 1.0,
                    runs: vec![(0, 5)]
                },
                Placed {
                    weight: 2.0,
                    runs: vec![(0, 20)]
                }
            ]
        );
        let p = placements(&[0.5], 10, 1);
        assert!(p.iter().all(|x| x.runs.len() == 1));
        let left: f64 = p
            .iter()
            .filter(|x| x.runs[0].0 == 0)
            .map(|x| x.weight)
            .sum();
        assert!((left - 5.0).abs() < 1e-12, "{left}");
    }
}
