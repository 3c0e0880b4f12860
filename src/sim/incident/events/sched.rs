//! The event queue of a window's run ([`Sched`]) and the buffers a run fills, kept per
//! thread between windows ([`Scratch`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Cache, Flight};

/// The event queue: (time bits, sequence, kind, payload), earliest first; at equal times a
/// failure is recorded before a step. Times are non-negative, so their bits order like them.
pub(super) type Event = (u64, u64, u8, u32);
pub(super) type Queue = BinaryHeap<Reverse<Event>>;

/// The events in time order: the window's arrivals, pushed first and in ascending order, wait
/// in `arrivals` (already sorted), every later event in the heap `queue`; [`Sched::pop`] takes
/// the earlier of the two fronts. Every event's key is unique (its sequence number), so the
/// order is exactly one heap's, with a heap of the requests in flight rather than of the
/// window's every arrival.
pub(super) struct Sched {
    pub(super) queue: Queue,
    pub(super) arrivals: Vec<Event>,
    next_arrival: usize,
    seq: u64,
}

impl Sched {
    /// An empty schedule for `arrivals` arrivals, on the buffers of `scratch` (emptied).
    pub(super) fn reusing(arrivals: usize, scratch: &mut Scratch) -> Sched {
        let mut queue = std::mem::take(&mut scratch.queue);
        queue.clear();
        let mut list = std::mem::take(&mut scratch.arrivals);
        list.clear();
        list.reserve(arrivals);
        Sched {
            queue: BinaryHeap::from(queue),
            arrivals: list,
            next_arrival: 0,
            seq: 0,
        }
    }

    pub(super) fn push(&mut self, t: f64, kind: u8, payload: u32) {
        self.seq += 1;
        self.queue
            .push(Reverse((t.max(0.0).to_bits(), self.seq, kind, payload)));
    }

    /// An arrival, before any event is popped: kept in `arrivals` while they come in
    /// ascending order (as [`Arrivals`] draws them), else in the heap.
    pub(super) fn push_arrival(&mut self, t: f64, kind: u8, payload: u32) {
        self.seq += 1;
        let e = (t.max(0.0).to_bits(), self.seq, kind, payload);
        if self.next_arrival == 0 && self.arrivals.last().is_none_or(|l| *l < e) {
            self.arrivals.push(e);
        } else {
            self.queue.push(Reverse(e));
        }
    }

    /// The earliest event, removed.
    pub(super) fn pop(&mut self) -> Option<Event> {
        match (self.arrivals.get(self.next_arrival), self.queue.peek()) {
            (Some(a), Some(Reverse(q))) if q < a => self.queue.pop().map(|Reverse(e)| e),
            (Some(&a), _) => {
                self.next_arrival += 1;
                Some(a)
            }
            (None, _) => self.queue.pop().map(|Reverse(e)| e),
        }
    }
}

/// The buffers a window's run fills, kept on each thread between its windows: a window of
/// 10,000 requests allocates about a megabyte, and the allocator handing that back to the
/// system after every window (and the pages faulted in again) cost a quarter of the
/// simulation's time. Contents never carry over: every run empties and refills them.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) flights: Vec<Flight>,
    pub(super) caches: Vec<Cache>,
    pub(super) arrivals: Vec<Event>,
    pub(super) queue: Vec<Reverse<Event>>,
}

thread_local! {
    pub(super) static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

#[cfg(test)]
mod tests {
    use super::super::{RECORD, STEP};
    use super::*;

    /// The arrivals' sorted list and the heap pop in exactly one heap's order: arrivals in
    /// ascending order (one out of order among them), events pushed while popping, ties in
    /// time broken by the sequence. The schedule is built on buffers a previous window left
    /// events in: none of them comes out.
    #[test]
    fn sched_pops_in_one_heaps_order() {
        let mut scratch = Scratch {
            arrivals: vec![(0, 0, STEP, 99); 3],
            queue: vec![Reverse((0, 0, RECORD, 98)); 2],
            ..Scratch::default()
        };
        let mut sched = Sched::reusing(8, &mut scratch);
        let mut heap: Queue = BinaryHeap::new();
        let mut seq = 0;
        let mut both = |sched: &mut Sched, heap: &mut Queue, t: f64, arrival: bool| {
            seq += 1;
            heap.push(Reverse((t.to_bits(), seq, STEP, seq as u32)));
            if arrival {
                sched.push_arrival(t, STEP, seq as u32);
            } else {
                sched.push(t, STEP, seq as u32);
            }
        };
        for t in [0.5, 1.0, 1.0, 0.25, 3.0, 7.5] {
            both(&mut sched, &mut heap, t, true);
        }
        let mut order = Vec::new();
        let mut want = Vec::new();
        let mut k = 0;
        while let Some(e) = sched.pop() {
            let Reverse(w) = heap.pop().expect("as many");
            order.push(e);
            want.push(w);
            // the first six schedule one more each, some before the next arrival
            if k < 6 {
                let t = f64::from_bits(e.0) + [0.1, 0.0, 5.0][k % 3];
                both(&mut sched, &mut heap, t, false);
            }
            k += 1;
        }
        assert!(heap.is_empty());
        assert_eq!(order.len(), 12);
        assert_eq!(order, want);
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    }
}
