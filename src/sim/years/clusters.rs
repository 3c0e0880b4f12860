//! A simulated year's clusters of overlapping windows (the module docs of [`super`],
//! "Overlaps merge"): on the line, per lane or for all lanes together, and on the year's circle.

use super::YEAR_S;

/// Rate models simulated together: a year draws its windows once for both.
pub(super) const LANES: usize = 2;

/// Every lane's bit: a common window's.
pub(super) const ALL_LANES: u32 = (1 << LANES) - 1;

/// One window drawn into a year: its start and end (seconds into the year; the end may pass
/// the year's end: it wraps), its row in the price table, the lanes it belongs to (bits).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Point {
    pub start: f64,
    pub end: f64,
    pub row: u32,
    pub mask: u32,
}

/// Windows `from .. to` of one lane (those of its bit) counted at `share` (< 1: they overlap).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Cluster {
    pub from: usize,
    pub to: usize,
    pub share: f64,
    pub members: u64,
}

/// A cluster on the line: its first window, the index after its last, the end of its union,
/// the sum of its members' lengths, their count and the lanes every member belongs to. The
/// default: no window, ending before any.
#[derive(Debug, Clone, Copy)]
pub(super) struct Open {
    pub from: usize,
    pub to: usize,
    pub end: f64,
    pub sum: f64,
    pub members: u64,
    pub lanes: u32,
}

impl Default for Open {
    fn default() -> Open {
        Open {
            from: 0,
            to: 0,
            end: f64::NEG_INFINITY,
            sum: 0.0,
            members: 0,
            lanes: ALL_LANES,
        }
    }
}

impl Open {
    /// The cluster of window `k` alone.
    #[inline(always)]
    fn of(k: usize, d: &Point) -> Open {
        Open {
            from: k,
            to: k + 1,
            end: d.end,
            sum: d.end - d.start,
            members: 1,
            lanes: d.mask,
        }
    }

    /// The cluster with window `k`, which starts before its end.
    #[inline(always)]
    fn with(self, k: usize, d: &Point) -> Open {
        Open {
            from: self.from,
            to: k + 1,
            end: self.end.max(d.end),
            sum: self.sum + (d.end - d.start),
            members: self.members + 1,
            lanes: self.lanes & d.mask,
        }
    }

    /// Its members' share: union / sum of lengths (at most 1), as a [`Cluster`].
    pub fn cluster(self, points: &[Point]) -> Cluster {
        Cluster {
            from: self.from,
            to: self.to,
            share: ((self.end - points[self.from].start) / self.sum).min(1.0),
            members: self.members,
        }
    }

    /// Recorded in `out` if it holds more than one window.
    pub fn close(self, points: &[Point], out: &mut Vec<Cluster>) {
        if self.members > 1 && self.sum > 0.0 {
            out.push(self.cluster(points));
        }
    }
}

/// The clusters of overlapping windows of all lanes together (on the line) into `unions`
/// (those of more than one window); the last one, left open (`None`: no window).
// not inlined: its loop gets the registers to itself (inlined into the whole year, its
// values were kept on the stack and read back every window)
#[inline(never)]
pub(super) fn unions(points: &[Point], unions: &mut Vec<Open>) -> Option<Open> {
    unions.clear();
    let mut c = Open::default();
    for (k, d) in points.iter().enumerate() {
        if d.start < c.end {
            c = c.with(k, d);
        } else {
            if c.members > 1 {
                unions.push(c);
            }
            c = Open::of(k, d);
        }
    }
    (c.members > 0).then_some(c)
}

/// The clusters of the lane `bit` among windows `from .. to` on the line (those of more than
/// one window into `out`, the last one left open and returned), and the lane's window count
/// there.
#[inline(always)]
pub(super) fn scan(
    points: &[Point],
    (from, to): (usize, usize),
    bit: u32,
    out: &mut Vec<Cluster>,
) -> (u64, Option<Open>) {
    let mut count = 0;
    let mut open: Option<Open> = None;
    for (k, d) in points.iter().enumerate().take(to).skip(from) {
        if d.mask & bit == 0 {
            continue;
        }
        count += 1;
        open = Some(match open {
            Some(c) if d.start < c.end => c.with(k, d),
            Some(c) => {
                c.close(points, out);
                Open::of(k, d)
            }
            None => Open::of(k, d),
        });
    }
    (count, open)
}

/// The clusters of overlapping windows of the lane `bit` on the year's circle (clusters on the
/// line, then the last one, if it runs past the year's end, joined with the first windows it
/// reaches), and the lane's window count.
pub(super) fn lane_clusters(points: &[Point], bit: u32, out: &mut Vec<Cluster>) -> u64 {
    out.clear();
    let (count, last) = scan(points, (0, points.len()), bit, out);
    if let Some(last) = last
        && !wrap(points, bit, last, out)
    {
        last.close(points, out);
    }
    count
}

/// The lane's `last` cluster, if it runs past the year's end onto the first windows (before
/// it): with them, one cluster (the clusters recorded among them dropped). False if it reaches
/// none.
fn wrap(points: &[Point], bit: u32, last: Open, out: &mut Vec<Cluster>) -> bool {
    let mut wrap = last.end - YEAR_S;
    if wrap <= 0.0 {
        return false;
    }
    let (mut extra_sum, mut reached, mut absorbed) = (0.0, 0, 0);
    for (k, d) in points[..last.from].iter().enumerate() {
        if d.mask & bit == 0 {
            continue;
        }
        if d.start >= wrap {
            break;
        }
        wrap = wrap.max(d.end);
        extra_sum += d.end - d.start;
        reached = k + 1;
        absorbed += 1;
    }
    if absorbed == 0 {
        return false;
    }
    // whole clusters are reached (a member starts before its cluster's end, within the wrap)
    let swallowed = out.partition_point(|c| c.from < reached);
    out.drain(..swallowed);
    let union = ((YEAR_S - points[last.from].start) + wrap).min(YEAR_S);
    let share = (union / (last.sum + extra_sum)).min(1.0);
    out.push(Cluster {
        from: last.from,
        to: last.to,
        share,
        members: last.members,
    });
    out.push(Cluster {
        from: 0,
        to: reached,
        share,
        members: absorbed,
    });
    true
}
