//! The simulated years of both rate models on common random numbers (issue 33 item 6).
//!
//! A year of each *lane* (a rate model: [`RateModel::Uncertain`], [`RateModel::Known`]) is a
//! Poisson process per process p at the lane's rate λ_l,p. The lanes share their draws: per
//! process a *common* stream at min_l λ_l,p, whose windows belong to every lane, and an *extra*
//! stream at max_l λ_l,p − min_l λ_l,p, whose windows belong to the larger lane alone. A union
//! of independent Poisson processes is the Poisson process at the sum of their rates, so each
//! lane's windows are a Poisson process at exactly its own rate, each window a uniformly drawn
//! sample at a uniform time: each lane's years have the law they had drawn alone (the figures
//! of one lane are a function of its own years), and the two lanes' figures are now positively
//! correlated, which no figure reads. With the year's rate drawn from Gamma(n, r/n) at n in the
//! thousands the two rates are within a few percent, so nearly every window is drawn once for
//! both lanes.
//!
//! A year, in passes over its windows ([`super::draw`], [`super::clusters`]): the arrivals,
//! the draws of their streams and samples, their rows, times and lanes, the clusters of
//! overlapping windows of all lanes together, the common windows' rows added up once for every
//! lane. Then per lane: its extra windows' rows and, per cluster of overlapping windows at
//! share s = union / sum of lengths, (s − 1) × its members' rows, so that each window counts at
//! its share (the module docs of [`super`], "Overlaps merge"). A cluster whose windows are all
//! common is the same cluster in every lane: corrected once, in the common sums; one holding an
//! extra window is found again among each lane's own windows; a year whose last cluster runs
//! past its end has each lane's clusters found on the circle.

use rand_distr::{Distribution, Gamma};

use super::clusters::{ALL_LANES, Cluster, LANES, Open, Point, lane_clusters, scan, unions};
use super::draw::{GUIDE, Streams, UNDECIDED, arrivals, draws, guide, place, thresholds};
use super::table::Table;
use super::{ProviderHistory, RateModel, YEAR_S, YEARS_PER_CHUNK, YEARS_STREAM, YearsOptions};
use crate::sim::rng::{SimRng, chunk_rng};

/// What the years run: the lanes' rate models (`lanes` of them: 1 or [`LANES`]), the year
/// factor's shape, the seed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    /// Each lane's rate model.
    pub models: [RateModel; LANES],
    /// How many lanes run (the first ones of `models`).
    pub lanes: usize,
    /// The years, seed and year factor (their `rate` is unused: `models` says it).
    pub options: YearsOptions,
}

/// Reusable buffers of one chunk.
struct Scratch {
    bounds: Vec<f64>,
    thresholds: Vec<(u64, u64)>,
    guide: [u8; GUIDE],
    owners: Vec<u32>,
    starts: Vec<f64>,
    xs: Vec<u64>,
    points: Vec<Point>,
    unions: Vec<Open>,
    extras: Vec<u32>,
    clusters: Vec<Cluster>,
    common: Vec<f64>,
    lane: Vec<f64>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            bounds: Vec::new(),
            thresholds: Vec::new(),
            guide: [UNDECIDED; GUIDE],
            owners: Vec::new(),
            starts: Vec::new(),
            xs: Vec::new(),
            points: Vec::new(),
            unions: Vec::new(),
            extras: Vec::new(),
            clusters: Vec::new(),
            common: Vec::new(),
            lane: Vec::new(),
        }
    }
}

/// The year's streams: per process its common stream (rate min over the lanes) and its extra
/// stream (the larger lane's rate less that), their cumulative rates in `bounds` (all but the
/// total, which is returned) and per process the lane bit its extra windows belong to in
/// `owners`. The draws: the common year factor (if clustered), then per process its rate's
/// Gamma(n, 1/n) factor where a lane draws it (the same factor for every such lane).
fn year_streams<S>(
    rng: &mut SimRng,
    providers: &[ProviderHistory<S>],
    plan: &Plan,
    bounds: &mut Vec<f64>,
    owners: &mut Vec<u32>,
) -> f64 {
    let factor = match plan.options.year_factor_shape {
        Some(k) => Gamma::new(k, 1.0 / k).map_or(1.0, |g| g.sample(rng)),
        None => 1.0,
    };
    let models = &plan.models[..plan.lanes];
    let uncertain = models.contains(&RateModel::Uncertain);
    bounds.clear();
    owners.clear();
    let mut total = 0.0;
    for h in providers {
        let n = h.samples.len() as f64;
        let known = h.incidents_per_year * factor;
        let drawn = if uncertain && n > 0.0 && known > 0.0 {
            known * Gamma::new(n, 1.0 / n).map_or(1.0, |g| g.sample(rng))
        } else {
            known
        };
        let rate = |m: RateModel| match (h.samples.is_empty(), m) {
            (true, _) => 0.0,
            (false, RateModel::Known) => known.max(0.0),
            (false, RateModel::Uncertain) => drawn.max(0.0),
        };
        let r0 = rate(models[0]);
        let r1 = models.get(1).map_or(r0, |&m| rate(m));
        let common = r0.min(r1);
        total += common;
        bounds.push(total);
        total += r0.max(r1) - common;
        bounds.push(total);
        owners.push(if r0 > r1 { 1 } else { 2 });
    }
    bounds.pop();
    total
}

/// Columns `c0 .. c0 + B` of the common windows' rows, added in draw order (the sums in
/// registers, returned by value).
#[inline(always)]
fn common_block<const B: usize>(points: &[Point], t: &Table, c0: usize) -> [f64; B] {
    let mut acc = [0.0f64; B];
    for d in points {
        if d.mask == ALL_LANES {
            let at = d.row as usize * t.width + c0;
            let row: &[f64; B] = t.prices[at..at + B].try_into().expect("a block");
            for (a, p) in acc.iter_mut().zip(row) {
                *a += p;
            }
        }
    }
    acc
}

/// The common windows' sums of every column into `out` (`width` long), in blocks of up to 16
/// columns.
#[inline(always)]
fn common_sums(points: &[Point], t: &Table, out: &mut Vec<f64>) {
    out.clear();
    out.resize(t.width, 0.0);
    let mut c0 = 0;
    while c0 < t.width {
        match t.width - c0 {
            4 => out[c0..c0 + 4].copy_from_slice(&common_block::<4>(points, t, c0)),
            8 => out[c0..c0 + 8].copy_from_slice(&common_block::<8>(points, t, c0)),
            12 => out[c0..c0 + 12].copy_from_slice(&common_block::<12>(points, t, c0)),
            _ => out[c0..c0 + 16].copy_from_slice(&common_block::<16>(points, t, c0)),
        }
        c0 += 16;
    }
}

/// `acc += f × the rows of cluster `c`'s members (the windows of `bit` among its span)`, row
/// by row.
#[inline(always)]
fn add_rows(acc: &mut [f64], t: &Table, points: &[Point], c: &Cluster, bit: u32, f: f64) {
    for d in points[c.from..c.to].iter().filter(|d| d.mask & bit != 0) {
        let at = d.row as usize * t.width;
        let row = &t.prices[at..at + t.width];
        for (a, p) in acc.chunks_exact_mut(4).zip(row.chunks_exact(4)) {
            for (a, p) in a.iter_mut().zip(p) {
                *a += f * p;
            }
        }
    }
}

/// `acc += (share − 1) × each of cluster `c`'s members' rows`: its members then count at its
/// share.
#[inline(always)]
fn correct(acc: &mut [f64], t: &Table, points: &[Point], c: &Cluster, bit: u32) {
    if c.share != 1.0 {
        add_rows(acc, t, points, c, bit, c.share - 1.0);
    }
}

/// The lane's extra windows' rows added to `lane`; their count.
#[inline(always)]
fn add_extras(lane: &mut [f64], t: &Table, points: &[Point], extras: &[u32], bit: u32) -> u64 {
    let mut n = 0;
    for &k in extras {
        let d = &points[k as usize];
        if d.mask == bit {
            let at = d.row as usize * t.width;
            for (a, p) in lane.iter_mut().zip(&t.prices[at..at + t.width]) {
                *a += p;
            }
            n += 1;
        }
    }
    n
}

/// A year whose last cluster stays within it, lane `l` into `scratch.lane`: the common sums
/// (their clusters' corrections in), its extra windows, and the clusters of the unions that
/// hold windows of one lane alone, found again among its own windows. Its window count
/// (`common` common ones) and overlapped ones (`shared` in the common clusters).
#[inline(always)]
fn line_lane(l: usize, t: &Table, scratch: &mut Scratch, common: u64, shared: u64) -> (u64, u64) {
    let bit = 1 << l;
    let Scratch {
        points,
        unions,
        extras,
        clusters,
        lane,
        ..
    } = scratch;
    lane.clear();
    lane.extend_from_slice(&scratch.common);
    let count = common + add_extras(lane, t, points, extras, bit);
    let mut overlapped = shared;
    for u in unions.iter().filter(|u| u.lanes != ALL_LANES) {
        clusters.clear();
        if let (_, Some(last)) = scan(points, (u.from, u.to), bit, clusters) {
            last.close(points, clusters);
        }
        for c in clusters.iter() {
            overlapped += c.members;
            correct(lane, t, points, c, bit);
        }
    }
    (count, overlapped)
}

/// A year whose last cluster runs past its end, lane `l` into `scratch.lane`: the common sums,
/// its extra windows, and its clusters on the year's circle ([`lane_clusters`]). Its window
/// count and overlapped ones.
#[inline(always)]
fn circle_lane(l: usize, t: &Table, scratch: &mut Scratch) -> (u64, u64) {
    let bit = 1 << l;
    let Scratch {
        points,
        extras,
        clusters,
        lane,
        ..
    } = scratch;
    let count = lane_clusters(points, bit, clusters);
    lane.clear();
    lane.extend_from_slice(&scratch.common);
    add_extras(lane, t, points, extras, bit);
    let mut overlapped = 0;
    for c in clusters.iter() {
        overlapped += c.members;
        correct(lane, t, points, c, bit);
    }
    (count, overlapped)
}

/// The corrections of the unions whose windows are all common (the same clusters in every
/// lane), into the common sums; how many windows they hold.
#[inline(always)]
fn shared_clusters(t: &Table, scratch: &mut Scratch) -> u64 {
    let Scratch {
        points,
        unions,
        common,
        ..
    } = scratch;
    let mut overlapped = 0;
    for u in unions
        .iter()
        .filter(|u| u.lanes == ALL_LANES && u.sum > 0.0)
    {
        overlapped += u.members;
        correct(common, t, points, &u.cluster(points), ALL_LANES);
    }
    overlapped
}

/// The year's windows ([`place`]), their clusters ([`unions`]) and the common windows' sums
/// of every column into `scratch.common` ([`common_sums`]). The last cluster (open) and the
/// count of common windows.
#[inline(always)]
fn windows(rng: &mut SimRng, t: &Table, scale: f64, scratch: &mut Scratch) -> (Option<Open>, u64) {
    let Scratch {
        thresholds,
        guide,
        owners,
        starts,
        xs,
        points,
        unions: found,
        extras,
        common,
        ..
    } = scratch;
    let streams = Streams {
        t,
        thresholds,
        guide,
        owners,
        scale,
    };
    let n = place(rng, &streams, (starts, xs), points, extras);
    let last = unions(points, found);
    common_sums(points, t, common);
    (last, n)
}

/// One simulated year of every lane into `out` (per lane, its `columns` sums); per lane its
/// window count and how many overlapped another.
#[inline(always)]
fn draw_year<S>(
    rng: &mut SimRng,
    providers: &[ProviderHistory<S>],
    t: &Table,
    plan: &Plan,
    scratch: &mut Scratch,
    out: &mut [f64],
) -> [(u64, u64); LANES] {
    let s = &mut *scratch;
    let total = year_streams(rng, providers, plan, &mut s.bounds, &mut s.owners);
    thresholds(&s.bounds, total, &mut s.thresholds);
    guide(&s.thresholds, &mut s.guide);
    arrivals(rng, total, &mut s.starts);
    draws(rng, s.starts.len(), &mut s.xs);
    let (last, common) = windows(rng, t, YEAR_S / total, scratch);
    let wraps = last.is_some_and(|c| c.end > YEAR_S);
    let shared = if wraps {
        0
    } else {
        scratch.unions.extend(last.filter(|c| c.members > 1));
        shared_clusters(t, scratch)
    };
    let mut counts = [(0, 0); LANES];
    for (l, c) in counts.iter_mut().enumerate().take(plan.lanes) {
        *c = if wraps {
            circle_lane(l, t, scratch)
        } else {
            line_lane(l, t, scratch, common, shared)
        };
        out[l * t.columns..(l + 1) * t.columns].copy_from_slice(&scratch.lane[..t.columns]);
    }
    counts
}

/// The years of `chunk`: per year and lane, the columns' sums (flat); per lane the windows
/// drawn and how many overlapped another.
#[inline(always)]
fn chunk_years<S>(
    providers: &[ProviderHistory<S>],
    t: &Table,
    plan: &Plan,
    chunk: u64,
) -> (Vec<f64>, [(u64, u64); LANES]) {
    let options = &plan.options;
    let mut rng = chunk_rng(options.seed, YEARS_STREAM, chunk);
    let first = chunk * YEARS_PER_CHUNK;
    let n = (options.years - first).min(YEARS_PER_CHUNK) as usize;
    let per_year = plan.lanes * t.columns;
    let mut years = vec![0.0; n * per_year];
    let mut scratch = Scratch::new();
    let mut counts = [(0, 0); LANES];
    for y in 0..n {
        let got = draw_year(
            &mut rng,
            providers,
            t,
            plan,
            &mut scratch,
            &mut years[y * per_year..(y + 1) * per_year],
        );
        for (c, g) in counts.iter_mut().zip(got) {
            c.0 += g.0;
            c.1 += g.1;
        }
    }
    (years, counts)
}

/// [`chunk_years`] compiled for AVX2 and BMI2 (the generator's rotations in fewer
/// instructions, four prices to a vector): the same operations on the same values, so the same
/// figures to the bit (no fused multiply-add: Rust never contracts a product and a sum). The
/// scalar passes kept out of line (`draw::place`, `clusters::unions`) run as compiled for any
/// x86_64: the same figures too.
///
/// # Safety
///
/// The processor must have AVX2 and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn chunk_years_avx2<S>(
    providers: &[ProviderHistory<S>],
    t: &Table,
    plan: &Plan,
    chunk: u64,
) -> (Vec<f64>, [(u64, u64); LANES]) {
    chunk_years(providers, t, plan, chunk)
}

/// The years of `chunk` ([`chunk_years`]; compiled for AVX2 where `avx2` says the processor
/// has it and BMI2).
pub(super) fn years_of_chunk<S>(
    providers: &[ProviderHistory<S>],
    t: &Table,
    plan: &Plan,
    chunk: u64,
    avx2: bool,
) -> (Vec<f64>, [(u64, u64); LANES]) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller checked that the processor has AVX2 and BMI2
        return unsafe { chunk_years_avx2(providers, t, plan, chunk) };
    }
    let _ = avx2;
    chunk_years(providers, t, plan, chunk)
}

#[cfg(test)]
mod tests {
    use super::super::{Drawn, IncidentPrice, overlap_weights, table::table};
    use super::*;
    use crate::sim::rng::uniform;

    /// Each lane's year, as the passes make it (the common sums and the corrections of the
    /// all-common clusters shared, the rest per lane; on the circle where the last cluster
    /// wraps), is Σ weight × row over its own windows with the reference weights of
    /// [`overlap_weights`], on random years of two lanes, dense enough to overlap.
    #[test]
    fn lane_years_are_the_weighted_sums() {
        let providers = vec![ProviderHistory {
            provider: "a".into(),
            incidents_per_year: 1.0,
            samples: (0..7).map(|i| 600.0 * f64::from(i)).collect::<Vec<f64>>(),
        }];
        let price = |c: usize, _: usize, d: &f64| IncidentPrice {
            premium_usd: d * (c as f64 + 1.5) - 100.0,
            failed_requests: d.sqrt() * c as f64,
        };
        let t = table(&providers, 3, &price);
        let mut rng = chunk_rng(9, 0, 0);
        let (mut w, mut cl) = (Vec::new(), Vec::new());
        let mut wrapped = 0;
        for year in 0..3000 {
            let n = year % 60;
            let mut starts: Vec<f64> = (0..n).map(|_| uniform(&mut rng) * YEAR_S).collect();
            starts.sort_by(f64::total_cmp);
            let mut s = Scratch::new();
            s.points = starts
                .iter()
                .map(|&start| {
                    let row = (uniform(&mut rng) * 7.0) as u32;
                    Point {
                        start,
                        end: start + uniform(&mut rng) * 2e6,
                        row,
                        mask: [3, 3, 3, 1, 2][(uniform(&mut rng) * 5.0) as usize],
                    }
                })
                .collect();
            s.extras = (0..n as u32)
                .filter(|&k| s.points[k as usize].mask != 3)
                .collect();
            let last = unions(&s.points, &mut s.unions);
            common_sums(&s.points, &t, &mut s.common);
            let common = (n - s.extras.len()) as u64;
            let wraps = last.is_some_and(|c| c.end > YEAR_S);
            wrapped += usize::from(wraps);
            let shared = if wraps {
                0
            } else {
                s.unions.extend(last.filter(|c| c.members > 1));
                shared_clusters(&t, &mut s)
            };
            for l in 0..LANES {
                let (count, overlapped) = if wraps {
                    circle_lane(l, &t, &mut s)
                } else {
                    line_lane(l, &t, &mut s, common, shared)
                };
                let bit = 1 << l;
                let own: Vec<&Point> = s.points.iter().filter(|p| p.mask & bit != 0).collect();
                let d: Vec<Drawn> = own
                    .iter()
                    .map(|p| Drawn {
                        start: p.start,
                        end: p.end,
                    })
                    .collect();
                let want_overlapped = overlap_weights(&d, &mut w, &mut cl);
                assert_eq!((count, overlapped), (own.len() as u64, want_overlapped));
                for c in 0..t.columns {
                    let want: f64 = own
                        .iter()
                        .zip(&w)
                        .map(|(p, w)| w * t.prices[p.row as usize * t.width + c])
                        .sum();
                    let scale: f64 = own
                        .iter()
                        .map(|p| t.prices[p.row as usize * t.width + c].abs())
                        .sum();
                    assert!(
                        (s.lane[c] - want).abs() <= 1e-12 * scale.max(1.0),
                        "{year} {l} {c}"
                    );
                }
            }
        }
        assert!(wrapped > 100, "{wrapped}");
    }
}
