//! A rate limiter run in time (MODEL.md §11): the quota a fallback deployment's `rpm`/`tpm`
//! sets, as a provider or gateway enforces it, admitting or refusing (429, billed 0) each
//! request at its arrival time.
//!
//! Two shapes of window, both admitting `capacity` requests per `window_s`:
//!
//! - [`WindowKind::Fixed`]: the clock's minutes `[k·W, (k+1)·W)`; a request is admitted while
//!   fewer than `capacity` were admitted in its minute. With Poisson arrivals of mean m per
//!   window this is the limiter [`crate::model::fit::refused_share`] prices exactly:
//!   E\[(N − c)⁺\] / E\[N\].
//! - [`WindowKind::Sliding`]: a request at t is admitted while fewer than `capacity` were
//!   admitted in `(t − W, t]` (a sliding log, as LiteLLM's and most gateways' limiters count).
//!   It has no closed form; [`refused_share_in_time`] measures it, and its difference from the
//!   fixed window is MODEL.md §11's table.
//!
//! The random check of the formula ([`refused_share_in_time`] against
//! [`crate::model::fit::refused_share`] on random m and c) is this module's test.

use std::collections::VecDeque;

use super::rng::{SimRng, uniform};
use super::stats::Sum;

/// How a limiter counts its window (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    /// The clock's minutes: the count resets at each window boundary.
    Fixed,
    /// The last `window_s` seconds before each arrival.
    Sliding,
}

/// A limiter admitting `capacity` requests per `window_s` seconds, fed arrival times in
/// non-decreasing order.
#[derive(Debug, Clone)]
pub struct Limiter {
    kind: WindowKind,
    capacity: u64,
    window_s: f64,
    /// Fixed: the current window's index and its admitted count.
    fixed: (i64, u64),
    /// Sliding: the admission times within the last window, oldest first.
    log: VecDeque<f64>,
}

impl Limiter {
    /// A limiter of `capacity` requests per `window_s` seconds (> 0) of kind `kind`.
    pub fn new(kind: WindowKind, capacity: u64, window_s: f64) -> Limiter {
        Limiter {
            kind,
            capacity,
            window_s,
            fixed: (i64::MIN, 0),
            log: VecDeque::new(),
        }
    }

    /// Whether a request arriving at `t` seconds is admitted (and counted); `false`: refused.
    /// Arrival times must not decrease from one call to the next.
    pub fn admit(&mut self, t: f64) -> bool {
        match self.kind {
            WindowKind::Fixed => {
                let k = (t / self.window_s).floor() as i64;
                if k != self.fixed.0 {
                    self.fixed = (k, 0);
                }
                if self.fixed.1 < self.capacity {
                    self.fixed.1 += 1;
                    true
                } else {
                    false
                }
            }
            WindowKind::Sliding => {
                while self.log.front().is_some_and(|&a| a <= t - self.window_s) {
                    self.log.pop_front();
                }
                if (self.log.len() as u64) < self.capacity {
                    self.log.push_back(t);
                    true
                } else {
                    false
                }
            }
        }
    }
}

/// A link's quota in an incident window ([`crate::model::fit::Capacity`]): its [`Limiter`]
/// (a fixed one-minute window from the window's start) shared with the link's background
/// traffic, a Poisson process of `background_rpm` whose arrivals take their place in the
/// minute's count as they come (drawn as the window's requests reach the link).
#[derive(Debug, Clone)]
pub struct Quota {
    limiter: Limiter,
    /// Background arrivals per second.
    background_per_s: f64,
    /// The next background arrival's time (`None`: not drawn yet).
    next_background: Option<f64>,
    /// The chain's attempts refused so far.
    pub refused: u64,
}

impl Quota {
    /// The quota of `capacity` admitting `per_minute` requests a minute.
    pub fn new(per_minute: u64, capacity: &crate::model::fit::Capacity) -> Quota {
        Quota {
            limiter: Limiter::new(WindowKind::Fixed, per_minute, 60.0),
            background_per_s: capacity.background_rpm / 60.0,
            next_background: None,
            refused: 0,
        }
    }

    /// Whether the chain's attempt at `t` (non-decreasing from call to call) is admitted,
    /// after the background arrivals before it took their places.
    pub fn admit(&mut self, t: f64, rng: &mut SimRng) -> bool {
        if self.background_per_s > 0.0 {
            let rate = self.background_per_s;
            let mut next = self
                .next_background
                .unwrap_or_else(|| -(1.0 - uniform(rng)).ln() / rate);
            while next <= t {
                self.limiter.admit(next);
                next += -(1.0 - uniform(rng)).ln() / rate;
            }
            self.next_background = Some(next);
        }
        let ok = self.limiter.admit(t);
        if !ok {
            self.refused += 1;
        }
        ok
    }
}

/// The refused share measured in time: Poisson arrivals of `per_window` a window on a limiter
/// of `capacity` per 60 s window of `kind`, over `windows` windows (a multiple of 16; a last
/// partial batch is left out). One [`Sum`] term per batch of 16 consecutive windows (its
/// refused count over its expected arrivals), so the mean estimates E\[refused\]/E\[N\] and the
/// standard error is the batches' spread (batched because a sliding window's consecutive
/// minutes are correlated).
pub fn refused_share_in_time(
    per_window: f64,
    capacity: u64,
    kind: WindowKind,
    windows: u64,
    rng: &mut SimRng,
) -> Sum {
    const W: f64 = 60.0;
    const BATCH: u64 = 16;
    let mut limiter = Limiter::new(kind, capacity, W);
    let mut sum = Sum::default();
    let rate = per_window / W;
    let mut t = 0.0;
    let mut refused = 0u64;
    let end = windows as f64 * W;
    let mut batch_end = BATCH as f64 * W;
    loop {
        // exponential gaps: −ln(1 − U)/rate
        t += -(1.0 - uniform(rng)).ln() / rate;
        while t >= batch_end.min(end) && batch_end <= end {
            sum.add(refused as f64 / (per_window * BATCH as f64));
            refused = 0;
            batch_end += BATCH as f64 * W;
        }
        if t >= end {
            break;
        }
        if !limiter.admit(t) {
            refused += 1;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fit::refused_share;
    use crate::sim::rng::chunk_rng;

    #[test]
    fn a_fixed_window_admits_its_capacity_per_minute_and_resets() {
        let mut l = Limiter::new(WindowKind::Fixed, 2, 60.0);
        assert!(l.admit(0.0));
        assert!(l.admit(59.0));
        assert!(!l.admit(59.9));
        assert!(l.admit(60.0)); // a new minute
        assert!(l.admit(61.0));
        assert!(!l.admit(119.0));
    }

    #[test]
    fn a_sliding_window_counts_the_last_minute() {
        let mut l = Limiter::new(WindowKind::Sliding, 2, 60.0);
        assert!(l.admit(0.0));
        assert!(l.admit(59.0));
        assert!(!l.admit(59.5));
        assert!(l.admit(60.0)); // 0 is out of (0, 60]: one in the window
        assert!(!l.admit(100.0)); // 59 and 60 are in (40, 100]
        assert!(l.admit(119.5)); // only 60 is in (59.5, 119.5]
    }

    /// The formula against the limiter run in time, on 240 random (m, c): per case 4,000
    /// one-minute windows of Poisson arrivals; every |z| below 4.5 (the suite's precision
    /// bound), the worst printed. And the sliding window refuses no less than the fixed one
    /// at c below m (a burst at a minute's end cannot borrow the next minute's quota).
    #[test]
    fn the_fixed_window_refuses_what_the_formula_says() {
        let mut rng = chunk_rng(35, 11, 0);
        let mut worst: (f64, f64, u64) = (0.0, 0.0, 0);
        let mut worst_z = 0.0f64;
        for case in 0..240u64 {
            let m = 1.0 + 600.0 * uniform(&mut rng).powi(2);
            let c = (m * (0.5 + 0.5 * uniform(&mut rng))).floor().max(1.0) as u64;
            let mut r = chunk_rng(35, 12, case);
            let s = refused_share_in_time(m, c, WindowKind::Fixed, 4_000, &mut r);
            let exact = refused_share(m, c);
            let se = s.std_error();
            let z = (s.mean() - exact) / se;
            if z.abs() > worst_z.abs() {
                worst_z = z;
                worst = (m, exact, c);
            }
            assert!(
                z.abs() < 4.5,
                "m {m}, c {c}: simulated {} ± {se}, formula {exact}",
                s.mean()
            );
        }
        eprintln!(
            "limiter: 240 cases, worst z {worst_z:.2} at m {:.1}, c {}, refused {:.5}",
            worst.0, worst.2, worst.1
        );
    }

    #[test]
    fn the_sliding_window_measured_beside_the_fixed_one() {
        // m = 600 a minute against 500: the formula's 16.67% for the fixed window.
        let fixed = refused_share_in_time(
            600.0,
            500,
            WindowKind::Fixed,
            2_000,
            &mut chunk_rng(35, 13, 0),
        );
        let sliding = refused_share_in_time(
            600.0,
            500,
            WindowKind::Sliding,
            2_000,
            &mut chunk_rng(35, 13, 1),
        );
        let exact = refused_share(600.0, 500);
        assert!((exact - 0.1666667785).abs() < 1e-9, "{exact}");
        assert!((fixed.mean() - exact).abs() < 4.5 * fixed.std_error());
        eprintln!(
            "m 600, c 500: fixed {:.5} ± {:.5} (formula {exact:.5}), sliding {:.5} ± {:.5}",
            fixed.mean(),
            fixed.std_error(),
            sliding.mean(),
            sliding.std_error()
        );
        // Both admit at most c a minute in the long run: at least 1 − c/m is refused.
        assert!(sliding.mean() > 1.0 - 500.0 / 600.0 - 4.5 * sliding.std_error());
    }
}
