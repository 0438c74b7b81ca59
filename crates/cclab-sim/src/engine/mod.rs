//! The event queue: plain events ordered by (time, insertion sequence), so
//! that simultaneous events run in the same order on every run.
//!
//! Events are 24-byte values in a binary heap; components are addressed by
//! index. FIFO components (a link's wire, its transmitter) keep only their
//! head here, which keeps the heap small whatever the bandwidth-delay product.

use crate::units::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
    time: SimTime,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: the heap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// A priority queue of events, earliest first, ties in insertion order.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, time: SimTime, ev: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, ev });
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (e.time, e.ev))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events pushed so far.
    pub fn pushed(&self) -> u64 {
        self.next_seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
