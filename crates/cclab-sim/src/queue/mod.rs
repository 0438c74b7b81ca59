//! Queue disciplines: what sits at the head of a link.
//!
//! A discipline decides on enqueue whether to accept or drop, and hands out
//! the next packet on dequeue. Counting (arrivals, drops, time-averaged
//! length) is done once by the link around every discipline, not by each.

pub mod droptail;
pub mod gared;
pub mod red;
pub mod xcp;

use crate::packet::Packet;
use crate::units::SimTime;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The buffer was full.
    Overflow,
    /// An active queue management decision (RED's early drop).
    Early,
    /// Random loss on the link, independent of the queue.
    LinkLoss,
}

/// What a discipline may want to know besides the packet.
#[derive(Clone, Copy, Debug)]
pub struct EnqueueContext {
    pub now: SimTime,
    /// When the link's transmitter went idle, if it is idle now (RED's idle-time decay).
    pub idle_since: Option<SimTime>,
}

pub trait QueueDisc: Send {
    /// Accepts the packet or gives it back with the reason it was dropped.
    fn enqueue(&mut self, pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)>;
    fn dequeue(&mut self, now: SimTime) -> Option<Packet>;
    /// Packets waiting (not counting the one being transmitted).
    fn len_pkts(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// The packets waiting, in order (for end-of-run accounting; not on the hot path).
    fn packets(&self) -> Vec<Packet>;
    /// The moving average of the length, for AQMs that keep one (packets).
    fn avg_len(&self) -> Option<f64> {
        None
    }
    /// The current maximum early-drop probability, for RED-like queues.
    fn max_p(&self) -> Option<f64> {
        None
    }
    /// Packets marked (ECN CE) instead of dropped so far.
    fn marks(&self) -> u64 {
        0
    }
}

/// A capacity in packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}
