//! The event queue: plain events ordered by (time, insertion sequence), so
//! that simultaneous events run in the same order on every run.
//!
//! Components are addressed by index. FIFO components (a link's wire, its
//! transmitter) keep only their head here, which keeps the queue small whatever
//! the bandwidth-delay product: from about ten pending events for one flow to a
//! few hundred for a hundred flows.
//!
//! # A binary heap that replaces its root
//!
//! The queue is a binary min-heap of 32-byte entries (time and when made as one `u128`,
//! sequence, event): earliest first, ties in the order they were made (below). What makes it fast is how it is used: the run
//! loop pops an event, and the handler usually pushes one or two. `pop` so
//! leaves the popped root in place as a *hole*; the next `push` puts its event
//! there and sifts it down, one pass instead of two (moving the last entry to
//! the root and sifting it down, then appending the new one and sifting it up).
//! Only if no push follows does the next `pop` remove the hole the usual way.
//! The sift-down picks the lesser child without a branch (a conditional move).
//!
//! It is written here rather than taken from `std::collections::BinaryHeap`
//! because this is the innermost loop (the old `std` heap's `pop` was a third of
//! all cycles) and it is sixty lines. Measured over whole runs (see
//! `docs/benchmarks.md`, "Event queue"), it takes 9-23 % fewer instructions
//! and 13-20 % less time than the `std` heap as it was used before (`peek`,
//! `pop`, `push`). Also measured: the `std` heap used the same way (its
//! `peek_mut` replaces the top) came second, about 3 % more instructions and
//! 5 % more time than this one; a 4-ary heap, with or without the hole, took
//! more instructions than this one on these small queues; a radix heap
//! (buckets by the highest bit in which a time differs from the last popped
//! one) took 20 % fewer instructions than the
//! old heap with a few hundred events pending but as many with ten, and was
//! slower than this heap in every whole run (on B1 slower than the old heap
//! too), as nearly every pop deals a bucket out again.
//!
//! # Ties: in the order the events were made
//!
//! Events at the same time come out in the order they were pushed. An entry records
//! when it was pushed (`made`: the time of the event being handled then) beside its
//! sequence number, and ties are broken by (`made`, sequence): the same order as by
//! sequence alone, since the clock never goes back while events are pushed. The one
//! place where it differs is the point: the simulation may work out an event ahead of
//! its time (a packet cut through to a private link, sim/link.rs), and it then pushes its
//! consequences as made at the time they would have been made (`push_made_at`), so
//! that they take the same place among equal times as without the shortcut.
//!
//! The order does not depend on how the heap is laid out: keys are unique,
//! so "earliest (time, seq)" names one entry. The tests compare the queue with
//! a `BinaryHeap` on (time, seq) over random pushes and pops with many equal times.

use crate::units::SimTime;

/// Everything that can happen, with the index of the component it concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The link's transmitter finished a packet and may take the next from its queue.
    LinkReady(u32),
    /// The first packet on the link's wire reaches the far end.
    WireHead(u32),
    /// The flow's retransmission timer may have expired.
    Rto(u32),
    /// The flow's receiver's delayed-ACK timer may have expired.
    DelAck(u32),
    /// The flow's application starts.
    FlowStart(u32),
    /// The flow's application stops sending new data.
    FlowStop(u32),
    /// The head of the flow's jittered send buffer leaves the sender (see `FlowSetup::overhead`).
    SenderTx(u32),
    /// The flow's pacing timer: a paced sender may send again.
    Pace(u32),
    /// The UDP source sends its next packet.
    UdpSend(u32),
    /// The next web object is due.
    WebNext,
    /// Take a sample of the time series.
    Sample,
    /// The warm-up period ends: counters are captured so results cover the rest.
    Warmup,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// `time << 64 | made`: when it happens, then when it was made (picoseconds).
    when: u128,
    /// Insertion sequence number: breaks ties in both.
    seq: u64,
    ev: Event,
}

impl Entry {
    fn time(&self) -> u64 {
        (self.when >> 64) as u64
    }

    /// The order: by time, then by when it was made, then by insertion. Unique per entry.
    /// Equal `when`s are rare (events made at the same instant for the same instant), so
    /// the sequence is looked at only then.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        self.when < other.when || (self.when == other.when && self.seq < other.seq)
    }
}

/// Puts `e` at index `i` of the heap `h` and moves it down to its place.
#[inline(always)]
fn sift_down(h: &mut [Entry], mut i: usize, e: Entry) {
    let n = h.len();
    loop {
        let c = 2 * i + 1;
        if c + 1 < n {
            // Two children, the usual case: the lesser, without a branch.
            let m = if h[c + 1].before(&h[c]) { c + 1 } else { c };
            if !h[m].before(&e) {
                break;
            }
            h[i] = h[m];
            i = m;
        } else {
            // At most one child, itself without children.
            if c < n && h[c].before(&e) {
                h[i] = h[c];
                i = c;
            }
            break;
        }
    }
    h[i] = e;
}

/// A priority queue of events, earliest first, ties in insertion order.
#[derive(Default)]
pub struct EventQueue {
    /// A binary min-heap by `Entry::key`; with `hole`, its root is already popped.
    heap: Vec<Entry>,
    /// The root has been popped but not yet removed: the next push takes its place.
    hole: bool,
    /// Entries pushed so far, which is also the next sequence number.
    pushed: u64,
    /// The latest time popped so far: when an event pushed now is made.
    clock: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `ev` at `time`, made now (at the latest time popped).
    #[inline(always)]
    pub fn push(&mut self, time: SimTime, ev: Event) {
        self.push_made_at(SimTime(self.clock), time, ev);
    }

    /// Schedules `ev` at `time` as made at `made` (not before now): an event worked out ahead
    /// of its time pushes its consequences as made then (module comment).
    #[inline(always)]
    pub fn push_made_at(&mut self, made: SimTime, time: SimTime, ev: Event) {
        let e = Entry { when: (time.0 as u128) << 64 | made.0.max(self.clock) as u128, seq: self.pushed, ev };
        self.pushed += 1;
        if self.hole {
            self.hole = false;
            sift_down(&mut self.heap, 0, e);
            return;
        }
        let mut i = self.heap.len();
        self.heap.push(e);
        let h = &mut self.heap[..];
        while i > 0 {
            let p = (i - 1) / 2;
            if !e.before(&h[p]) {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = e;
    }

    /// Removes the popped root for good.
    #[inline(always)]
    fn fill_hole(&mut self) {
        self.hole = false;
        let e = self.heap.pop().expect("a hole implies an entry");
        if !self.heap.is_empty() {
            sift_down(&mut self.heap, 0, e);
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime(u64::MAX))
    }

    /// Removes and returns the earliest event if it is at or before `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        if self.hole {
            self.fill_hole();
        }
        let top = *self.heap.first()?;
        let time = top.time();
        if time > until.0 {
            return None;
        }
        self.hole = true;
        self.clock = self.clock.max(time);
        Some((SimTime(time), top.ev))
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        let first = if self.hole { 1 } else { 0 };
        // With a hole, the earliest is the lesser of the root's children.
        self.heap.iter().skip(first).take(1 + first).map(Entry::time).min().map(SimTime)
    }

    pub fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events pushed so far.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn events_come_out_by_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), Event::Rto(1));
        q.push(SimTime(3), Event::Rto(2));
        q.push(SimTime(5), Event::Rto(3));
        q.push(SimTime(3), Event::Rto(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::Rto(2), Event::Rto(4), Event::Rto(1), Event::Rto(3)]);
    }

    #[test]
    fn an_event_made_ahead_of_its_time_ties_as_if_made_then() {
        let mut q = EventQueue::new();
        q.push(SimTime(10), Event::Rto(1)); // made at 0
        q.push(SimTime(5), Event::Sample);
        assert_eq!(q.pop(), Some((SimTime(5), Event::Sample))); // the clock reads 5
        q.push_made_at(SimTime(8), SimTime(10), Event::Rto(2)); // worked out ahead: made at 8
        q.push(SimTime(10), Event::Rto(3)); // made at 5, pushed after Rto(2)
        q.push_made_at(SimTime(1), SimTime(10), Event::Rto(4)); // never made before now: at 5
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec![Event::Rto(1), Event::Rto(3), Event::Rto(4), Event::Rto(2)]);
    }

    /// The order the engine had before: `std`'s `BinaryHeap` on (time, seq).
    #[derive(Default)]
    struct Reference {
        heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
        seq: u64,
    }

    impl Reference {
        fn push(&mut self, t: u64, id: u32) {
            self.heap.push(Reverse((t, self.seq, id)));
            self.seq += 1;
        }
        fn pop_until(&mut self, until: u64) -> Option<(u64, u32)> {
            match self.heap.peek() {
                Some(Reverse((t, _, _))) if *t <= until => self.heap.pop().map(|Reverse((t, _, id))| (t, id)),
                _ => None,
            }
        }
    }

    /// A number in `0..n` from the test's generator.
    fn below(r: &mut Pcg64, n: u64) -> u64 {
        r.gen_range(0..n)
    }

    /// Drives the queue and the reference with the same random pushes and pops
    /// (pops bounded by `until` as `run_until` does; a pop followed by none, one
    /// or several pushes) and asserts the same (time, event) sequence, length and
    /// earliest time throughout, with delays drawn by `delay` from the popped time.
    fn same_as_reference(seed: u64, steps: usize, delay: impl Fn(&mut Pcg64) -> u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let (mut q, mut r) = (EventQueue::new(), Reference::default());
        let (mut now, mut id, mut popped) = (0u64, 0u32, 0usize);
        for _ in 0..steps {
            match below(&mut rng, 10) {
                // Push one or a burst (several at the same time, as a link's packet train).
                0..=4 => {
                    let d = delay(&mut rng);
                    // Now and then one before the last popped time, which the queue allows.
                    let t = if below(&mut rng, 50) == 0 { now.saturating_sub(d) } else { now + d };
                    for _ in 0..1 + below(&mut rng, 3) {
                        q.push(SimTime(t), Event::WireHead(id));
                        r.push(t, id);
                        id += 1;
                    }
                }
                // Pop until a horizon a little ahead, as run_until does.
                5..=8 => {
                    let until = now + delay(&mut rng);
                    loop {
                        let (a, b) = (q.pop_until(SimTime(until)), r.pop_until(until));
                        let a = a.map(|(t, e)| match e {
                            Event::WireHead(i) => (t.0, i),
                            _ => unreachable!(),
                        });
                        assert_eq!(a, b, "seed {seed}: pop {popped} differs");
                        match a {
                            Some((t, _)) => {
                                now = t;
                                popped += 1;
                            }
                            None => break,
                        }
                        if below(&mut rng, 4) == 0 {
                            break;
                        }
                    }
                }
                _ => {
                    let e = q.pop();
                    let e = e.map(|(t, e)| (t.0, if let Event::WireHead(i) = e { i } else { unreachable!() }));
                    assert_eq!(e, r.pop_until(u64::MAX), "seed {seed}: pop {popped} differs");
                    if let Some((t, _)) = e {
                        now = t;
                        popped += 1;
                    }
                }
            }
            assert_eq!(q.len(), r.heap.len());
            assert_eq!(q.peek_time().map(|t| t.0), r.heap.peek().map(|Reverse((t, _, _))| *t));
        }
        while let Some((t, e)) = q.pop() {
            assert_eq!(Some((t.0, if let Event::WireHead(i) = e { i } else { unreachable!() })), r.pop_until(u64::MAX));
        }
        assert!(r.heap.is_empty() && q.is_empty());
        assert_eq!(q.pushed(), id as u64);
    }

    #[test]
    fn random_pushes_and_pops_with_many_equal_times_match_a_binary_heap_on_time_and_sequence() {
        // Delays from a handful of values, so most times coincide with others.
        for seed in 0..200 {
            same_as_reference(seed, 2_000, |r| [0, 0, 1, 2, 3, 1 << 20, 5 << 20][below(r, 7) as usize]);
        }
    }

    #[test]
    fn random_pushes_and_pops_over_the_engine_s_range_of_delays_match_a_binary_heap() {
        // Picosecond delays from 0 to about 2^45 (35 s), log-uniform, as transmission
        // times, propagation delays and timers are.
        for seed in 0..50 {
            same_as_reference(seed, 20_000, |r| {
                let bits = below(r, 46);
                below(r, 1 << bits) + if below(r, 8) == 0 { 0 } else { 1 << bits }
            });
        }
    }

    #[test]
    fn times_near_the_top_of_the_u64_range_are_ordered() {
        let mut q = EventQueue::new();
        let top = u64::MAX;
        q.push(SimTime(top), Event::Rto(1));
        q.push(SimTime(1), Event::Rto(2));
        q.push(SimTime(top - 1), Event::Rto(3));
        q.push(SimTime(1 << 63), Event::Rto(4));
        q.push(SimTime(top), Event::Rto(5));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(1), Event::Rto(2)),
                (SimTime(1 << 63), Event::Rto(4)),
                (SimTime(top - 1), Event::Rto(3)),
                (SimTime(top), Event::Rto(1)),
                (SimTime(top), Event::Rto(5)),
            ]
        );
    }

    #[test]
    fn pop_until_leaves_a_later_event_in_place_and_earlier_pushes_still_come_first() {
        let mut q = EventQueue::new();
        q.push(SimTime(100), Event::Sample);
        assert_eq!(q.pop_until(SimTime(50)), None);
        assert_eq!(q.peek_time(), Some(SimTime(100)));
        // The clock stands at 50 now; an event between 50 and 100 is allowed and comes first.
        q.push(SimTime(60), Event::Warmup);
        assert_eq!(q.pop_until(SimTime(200)), Some((SimTime(60), Event::Warmup)));
        assert_eq!(q.pop_until(SimTime(200)), Some((SimTime(100), Event::Sample)));
        assert_eq!(q.pop_until(SimTime(200)), None);
        assert!(q.is_empty());
    }

    #[test]
    fn an_event_earlier_than_the_last_popped_one_still_comes_out_first() {
        let mut q = EventQueue::new();
        q.push(SimTime(10), Event::Rto(1));
        q.push(SimTime(20), Event::Rto(2));
        assert_eq!(q.pop(), Some((SimTime(10), Event::Rto(1))));
        q.push(SimTime(5), Event::Rto(3));
        assert_eq!(q.peek_time(), Some(SimTime(5)));
        assert_eq!(q.len(), 2);
        assert_eq!(q.pop(), Some((SimTime(5), Event::Rto(3))));
        assert_eq!(q.pop(), Some((SimTime(20), Event::Rto(2))));
        assert_eq!((q.pop(), q.peek_time(), q.len()), (None, None, 0));
    }
}
