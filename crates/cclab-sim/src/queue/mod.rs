//! Queue disciplines: what sits at the head of a link.
//!
//! A discipline decides on enqueue whether to accept or drop, and hands out
//! the next packet on dequeue. Counting (arrivals, drops, time-averaged
//! length) is done once by the link around every discipline, not by each.
//!
//! A discipline that decides at dequeue, as CoDel does from each packet's
//! sojourn time, implements [`QueueDisc::dequeue_or_drop`]: the head packets it
//! drops go to the link, which counts them by cause as it counts enqueue drops
//! (the simulation then counts them against their flow, whose loss recovery
//! sees them as any loss). To mark instead, it sets `CE` on an `ECT` packet it
//! returns and counts it in [`QueueDisc::marks`]; the receiver echoes the mark
//! and an ECN-capable sender reduces its window as for a loss. A discipline that
//! drops waiting packets to make room for an arrival, as FQ-CoDel drops from its
//! fattest flow, implements [`QueueDisc::enqueue_or_drop`], counted the same way.

pub mod ared;
pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod fq_codel;
pub mod gared;
pub mod pie;
pub mod red;
pub mod red_ns2;
pub mod step_mark;
pub mod xcp;

/// Queue variants whose results have a version of their own, by name (`"red ns2"`: RED, ARED
/// and gARED with `queue_params.ns2 = 1`): a change that moves only their results bumps that
/// version, which keys only the cached runs with such a queue (python/cclab/store.py), instead
/// of `RESULT_VERSION`, which keys every run (tests/result_version.rs checks the bump).
pub const VARIANT_VERSIONS: &[(&str, u32)] = &[("red ns2", red_ns2::VERSION)];

use crate::packet::Packet;
use crate::registry::{read_params, Entry, ParamError, Params, Registry, Schema};
use crate::units::{Rate, SimTime};

/// What a queue discipline is built from besides its own parameters: its place.
#[derive(Clone, Copy, Debug)]
pub struct QueueSettings {
    /// The buffer.
    pub cap: Capacity,
    /// The rate of the link the queue feeds.
    pub rate: Rate,
    /// The propagation delay of that link (ns-2's RED sets its weight from it).
    pub delay: SimTime,
    /// Data packet size, bytes (RED's mean packet size by default).
    pub pkt_size: u32,
    /// The run's seed and the link's index, for a discipline's own random stream.
    pub seed: u64,
    pub link_index: u64,
}

impl QueueSettings {
    /// A 100 Mbit/s link with 1500-byte packets and a 100-packet buffer, for schema reading and tests.
    pub const EXAMPLE: QueueSettings = QueueSettings {
        cap: Capacity::Packets(100),
        rate: Rate(100_000_000),
        delay: SimTime(10_000_000_000), // 10 ms
        pkt_size: 1500,
        seed: 1,
        link_index: 0,
    };
}

/// A queue discipline's constructor.
pub type Builder = fn(&QueueSettings, &Params) -> Result<Box<dyn QueueDisc>, ParamError>;

/// The queue disciplines, by name (`queue = "red"`). Adding one: a file in `queue/` with a
/// constructor, and one line here.
pub static BUILTIN: &[Entry<Builder>] = &[
    Entry {
        name: "droptail",
        summary: "FIFO that drops arrivals when the buffer (packets or bytes) is full",
        params: Schema::Declared(droptail::PARAMS),
        build: droptail::build,
    },
    Entry {
        name: "red",
        summary: "RED (Floyd, Jacobson 1993) as ns-2's Queue/RED: early drops from the average queue, gentle, wait",
        params: Schema::Declared(red::RED_PARAMS),
        build: red::build_red,
    },
    Entry {
        name: "ared",
        summary: "Adaptive RED (Floyd, Gummadi, Shenker 2001): RED with automatic thresholds and max_p adapted every interval",
        params: Schema::Declared(ared::PARAMS),
        build: ared::build,
    },
    Entry {
        name: "gared",
        summary: "gentle Adaptive RED (paper 004 section 4.3): ARED that adapts max_p only when the average moves away from target",
        params: Schema::Declared(ared::PARAMS),
        build: gared::build,
    },
    Entry {
        name: "xcp",
        summary: "XCP router (Katabi et al. 2002): DropTail plus per-packet window feedback from spare bandwidth and queue",
        params: Schema::Declared(xcp::PARAMS),
        build: xcp::build,
    },
    Entry {
        name: "codel",
        summary: "CoDel (RFC 8289) as Linux's sch_codel: drops or marks at dequeue once the sojourn time stays above target for an interval",
        params: Schema::Declared(codel::PARAMS),
        build: codel::build,
    },
    Entry {
        name: "fq_codel",
        summary: "FQ-CoDel (RFC 8290) as Linux's sch_fq_codel: hashed flow queues served by DRR, new flows first, CoDel on each",
        params: Schema::Declared(fq_codel::PARAMS),
        build: fq_codel::build,
    },
    Entry {
        name: "pie",
        summary: "PIE (RFC 8033): drops or marks arrivals with a probability a PI controller updates every tupdate from the queueing delay",
        params: Schema::Declared(pie::PARAMS),
        build: pie::build,
    },
    Entry {
        name: "dualpi2",
        summary: "DualPI2 (RFC 9332): the DualQ Coupled AQM, an L4S queue (ECT(1), CE) with step marking coupled to a PI2-controlled Classic queue",
        params: Schema::Declared(dualpi2::PARAMS),
        build: dualpi2::build,
    },
];

/// Every queue discipline, built-ins first.
pub static REGISTRY: Registry<Builder> =
    Registry::new("queue", BUILTIN, |b| read_params(|| drop(b(&QueueSettings::EXAMPLE, &Params::new()))));

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The buffer was full.
    Overflow,
    /// An active queue management decision: RED's early drop at enqueue, or a drop at
    /// dequeue (`dequeue_or_drop`, as CoDel decides on the sojourn time).
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
    /// Accepts the packet as `enqueue` does, and may also drop packets already waiting to
    /// make room for it (FQ-CoDel drops from its fattest flow): those go on `dropped` with
    /// their cause, oldest first, for the link to count as it counts drops at dequeue. The
    /// default is `enqueue`: nothing else dropped.
    fn enqueue_or_drop(
        &mut self,
        pkt: Packet,
        ctx: &EnqueueContext,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) -> Result<(), (Packet, DropCause)> {
        let _ = dropped;
        self.enqueue(pkt, ctx)
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Packet>;
    /// Takes the next packet to transmit, as the link calls it. A discipline that drops at
    /// dequeue (CoDel) pushes each head packet it drops on `dropped` with its cause, oldest
    /// first, and returns the packet to send, if any is left (its `dequeue` then drops the
    /// same way, for callers that do not count). The default is `dequeue`: no drops.
    fn dequeue_or_drop(&mut self, now: SimTime, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        let _ = dropped;
        self.dequeue(now)
    }
    /// `true` if, while it is empty, this discipline would accept `pkt` and hand it straight
    /// back on the next dequeue with no change to its own state (no average, no counter, no
    /// random draw): the link then sends an arrival that finds it idle without the round
    /// trip through the queue. The default, `false`, always takes the round trip.
    fn passes_when_idle(&self, _pkt: &Packet) -> bool {
        false
    }
    /// The link's rate changed (a rate schedule, net/link/vary.rs): a discipline that uses the
    /// rate follows it. The default ignores it (the discipline does not use the rate).
    fn set_rate(&mut self, _rate: Rate) {}
    /// Packets waiting (not counting the one being transmitted).
    fn len_pkts(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// The packets waiting, in order (for end-of-run accounting; not on the hot path).
    fn packets(&self) -> Vec<Packet>;
    /// The discipline as built, for translating the network to another simulator
    /// (describe.rs); `None` for one that cannot be described.
    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        None
    }
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

/// A data packet of `size` bytes from flow 0, for the disciplines' unit tests.
#[cfg(test)]
pub(crate) fn test_packet(size: u32) -> Packet {
    Packet { size, ..Packet::EMPTY }
}
