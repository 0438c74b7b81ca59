//! FQ-CoDel, the flow queue CoDel packet scheduler (RFC 8290; Hoeiland-Joergensen et al.),
//! as Linux's net/sched/sch_fq_codel.c runs it.
//!
//! Arrivals are classified into flow queues by a hash of their flow (RFC 8290 section 4.1.1);
//! each queue is a FIFO under its own CoDel state (codel.rs, the same state machine as
//! `queue = "codel"`). Queues with packets are on one of two lists, served by deficit round
//! robin with a `quantum` of bytes (section 4.2):
//! - a queue that gets a packet while on neither list joins the tail of the *new* list with
//!   a deficit of one quantum; the new list is served before the old one, so a flow that
//!   sends less than its share keeps finding its queue new and waits little;
//! - the queue at the head of a list sends while its deficit is positive (deficit −= packet
//!   size); at a deficit ≤ 0 it gets another quantum and moves to the tail of the old list;
//! - a queue found empty (CoDel returned nothing) leaves the lists, except that a queue from
//!   the new list moves to the old list when that is not empty (section 4.2's guard against
//!   starving the old list, Linux `fq_codel_dequeue`).
//!
//! With more than `limit` packets (or more than `memory_limit` bytes) after an arrival,
//! the flow with the largest backlog loses packets from its head until half its backlog is
//! gone, at most `drop_batch_size` at once (Linux `fq_codel_drop`), and its CoDel `count`
//! grows by the packets dropped.
//!
//! Choices where the RFC is silent or the sources differ:
//! - The hash is SplitMix64 of the flow's identity (its TCP flow or UDP source, and whether
//!   the packet is data or ACK) xor a perturbation drawn from the run's seed (rng.rs stream
//!   `FQ_CODEL`, one per link), scaled to `flows` buckets as Linux's `reciprocal_scale`.
//!   Flows may share a bucket, as in Linux; `exact = 1` gives every flow its own queue.
//! - `quantum` defaults to the flows' data packet size: the largest packet on the link, as
//!   Linux's `psched_mtu` (device MTU plus link header, 1514 on Ethernet) is on its.
//! - `limit` is the link's buffer in packets, `memory_limit` its buffer in bytes; the other
//!   unit, or both for an unlimited buffer, take Linux's defaults (10240 packets, 32 MiB).
//!   Memory counts packets' wire sizes (Linux counts `skb->truesize`, the buffer allocated,
//!   so its 32 MiB holds fewer packets).
//! - An arrival is always accepted; drops to make room count as overflow drops (the buffer
//!   was full), whether or not the arrival itself is among them (Linux returns
//!   NET_XMIT_CN then). CoDel's dequeue-time drops count as early drops.
//! - CoDel's one-MTU exemption reads the whole backlog, not the flow's (Linux passes
//!   `sch->qstats.backlog`); `mtu_per_flow = 1` reads the flow queue's own, as ns-3's
//!   per-flow CoDelQueueDisc does.
//! - The fattest flow is the first bucket (in bucket order, flow order with `exact`) with the
//!   largest backlog, as Linux scans its table.
//! - ECN is on by default (RFC 8290 section 5.1, Linux, ns-3).
//!
//! Parameters (`queue_params`): `flows` 1024, `quantum` (bytes, the data packet size),
//! `drop_batch_size` 64, `memory_limit` (bytes), `exact` 0, `mtu_per_flow` 0, `ecn` 1, and
//! CoDel's `target`,
//! `interval`, `mtu`, `ce_threshold`, `newton` (codel.rs).

use super::codel::{codel_params, CodelParams, CodelQueue, CodelStats, CodelVars, TimedFifo};
use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::Packet;
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::rng::{self, splitmix64, stream_rng};
use crate::units::SimTime;
use rand::Rng;
use std::collections::{BTreeMap, VecDeque};

/// Linux's default packet limit (`sch->limit = 10*1024`).
pub const DEFAULT_LIMIT: u64 = 10 * 1024;
/// Linux's default memory limit, bytes (`32 << 20`).
pub const DEFAULT_MEMORY_LIMIT: u64 = 32 << 20;

/// One flow queue: its FIFO, its deficit and its CoDel state (Linux `struct fq_codel_flow`).
#[derive(Debug, Default)]
pub struct FlowQueue {
    pub fifo: TimedFifo,
    /// Bytes it may still send in this round.
    pub deficit: i64,
    pub vars: CodelVars,
    /// On the new or the old list.
    pub listed: bool,
}

/// A flow queue as CoDel sees it: its packets, and the whole discipline's backlog (or its
/// own with `mtu_per_flow`).
struct FlowSource<'a> {
    fifo: &'a mut TimedFifo,
    pkts: &'a mut usize,
    bytes: &'a mut u64,
    own_backlog: bool,
}

impl CodelQueue for FlowSource<'_> {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let item = self.fifo.pop()?;
        *self.pkts -= 1;
        *self.bytes -= item.0.size as u64;
        Some(item)
    }

    fn backlog(&self) -> u64 {
        if self.own_backlog {
            self.fifo.bytes
        } else {
            *self.bytes
        }
    }
}

pub struct FqCodel {
    cap: Capacity,
    /// Packets held at most.
    limit: u64,
    memory_limit: u64,
    quantum: u32,
    /// Hash buckets (`exact = 0`).
    buckets: u32,
    exact: bool,
    /// CoDel's one-MTU exemption reads the flow queue's backlog (ns-3), not the whole (Linux).
    mtu_per_flow: bool,
    drop_batch: u32,
    perturbation: u64,
    params: CodelParams,
    pub stats: CodelStats,
    /// Flow queues by bucket (or flow identity with `exact`), created on first use, so that
    /// a table of 65536 buckets costs nothing until flows arrive.
    slot_of: BTreeMap<u64, usize>,
    pub flows: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    pkts: usize,
    bytes: u64,
}

/// The parameters of `queue = "fq_codel"`: CoDel's (ECN on by default, as Linux), then its own.
pub static PARAMS: &[ParamSpec] = codel_params!(
    "1",
    ParamSpec::new("flows", "whole number", "buckets", "1024", "[1, 65536]"),
    ParamSpec::new("exact", "flag", "", "0", "0 or 1 (1: one queue per flow, no hashing)"),
    ParamSpec::new(
        "mtu_per_flow",
        "flag",
        "",
        "0",
        "0 or 1 (1: CoDel's mtu exemption reads the flow queue's backlog, as ns-3)",
    ),
    ParamSpec::new("quantum", "whole number", "bytes", "the flows' data packet size", "[256, 1000000000]"),
    ParamSpec::new("drop_batch_size", "whole number", "packets", "64", "[1, 65536]"),
    ParamSpec::new("memory_limit", "number", "bytes", "a byte buffer, else 33554432", "[1500, 1e15]"),
);

/// The registry's constructor (`queue = "fq_codel"`).
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    Ok(Box::new(FqCodel::configure(s, params)?))
}

impl FqCodel {
    /// FQ-CoDel at a link with settings `s` and parameters `params`.
    pub fn configure(s: &QueueSettings, params: &Params) -> Result<FqCodel, ParamError> {
        let mut r = ParamReader::new(params);
        let mut p = CodelParams::read(&mut r, s, true)?;
        p.ecn = r.get_flag("ecn", true)?;
        let buckets = r.get_int("flows", 1024, 1, 65536)?;
        let exact = r.get_flag("exact", false)?;
        let mtu_per_flow = r.get_flag("mtu_per_flow", false)?;
        let quantum = r.get_int("quantum", s.pkt_size.max(256), 256, 1_000_000_000)?;
        let drop_batch = r.get_int("drop_batch_size", 64, 1, 65536)?;
        let (limit, bytes) = match s.cap {
            Capacity::Packets(n) => (n, DEFAULT_MEMORY_LIMIT),
            Capacity::Bytes(b) => (DEFAULT_LIMIT, b),
            Capacity::Unlimited => (DEFAULT_LIMIT, DEFAULT_MEMORY_LIMIT),
        };
        let memory_limit = r.get("memory_limit", bytes as f64, 1500.0, 1e15)? as u64;
        r.finish()?;
        let perturbation = stream_rng(s.seed, rng::stream::FQ_CODEL, s.link_index).gen::<u64>();
        Ok(FqCodel {
            cap: s.cap,
            limit,
            memory_limit,
            quantum,
            buckets,
            exact,
            mtu_per_flow,
            drop_batch,
            perturbation,
            params: p,
            stats: CodelStats::default(),
            slot_of: BTreeMap::new(),
            flows: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            pkts: 0,
            bytes: 0,
        })
    }
}

/// A packet's flow: which of cclab's flows (TCP flows and UDP sources are numbered apart)
/// and which direction (data or ACK).
fn identity(p: &Packet) -> u64 {
    ((p.kind as u64) << 32) | p.flow as u64
}

impl FqCodel {
    /// The bucket of a flow: its hash scaled to `buckets` (Linux `reciprocal_scale`).
    pub fn bucket(&self, id: u64) -> u64 {
        let hash = (splitmix64(id ^ self.perturbation) >> 32) as u32;
        (hash as u64 * self.buckets as u64) >> 32
    }

    /// The flow queue of a packet, created if new.
    fn classify(&mut self, p: &Packet) -> usize {
        let id = identity(p);
        let key = if self.exact { id } else { self.bucket(id) };
        let flows = &mut self.flows;
        *self.slot_of.entry(key).or_insert_with(|| {
            flows.push(FlowQueue::default());
            flows.len() - 1
        })
    }

    /// Drops from the head of the flow with the largest backlog until half of it is gone,
    /// at most `drop_batch` packets (Linux `fq_codel_drop`).
    fn drop_from_fattest(&mut self, dropped: &mut Vec<(Packet, DropCause)>) {
        let mut fattest = None;
        let mut max = 0;
        for &slot in self.slot_of.values() {
            if self.flows[slot].fifo.bytes > max {
                max = self.flows[slot].fifo.bytes;
                fattest = Some(slot);
            }
        }
        let Some(slot) = fattest else { return };
        let threshold = max / 2;
        let flow = &mut self.flows[slot];
        let (mut n, mut len) = (0u32, 0u64);
        while let Some((p, _)) = flow.fifo.pop() {
            len += p.size as u64;
            self.pkts -= 1;
            self.bytes -= p.size as u64;
            dropped.push((p, DropCause::Overflow));
            n += 1;
            if n >= self.drop_batch || len >= threshold {
                break;
            }
        }
        // Tell CoDel to signal harder too.
        flow.vars.count = flow.vars.count.wrapping_add(n);
    }

    fn pop_list(&mut self, new: bool) {
        if new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    /// The flow queues' slots on the new and the old list, in order (for tests).
    pub fn lists(&self) -> (Vec<usize>, Vec<usize>) {
        (self.new_flows.iter().copied().collect(), self.old_flows.iter().copied().collect())
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        // Only a caller that cannot count drops of waiting packets comes here.
        let mut dropped = Vec::new();
        self.enqueue_or_drop(pkt, ctx, &mut dropped)
    }

    fn enqueue_or_drop(
        &mut self,
        pkt: Packet,
        ctx: &EnqueueContext,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) -> Result<(), (Packet, DropCause)> {
        let slot = self.classify(&pkt);
        let flow = &mut self.flows[slot];
        flow.fifo.push(pkt, ctx.now);
        self.pkts += 1;
        self.bytes += pkt.size as u64;
        if !flow.listed {
            flow.listed = true;
            flow.deficit = self.quantum as i64;
            self.new_flows.push_back(slot);
        }
        if self.pkts as u64 > self.limit || self.bytes > self.memory_limit {
            self.drop_from_fattest(dropped);
        }
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.dequeue_or_drop(now, &mut Vec::new())
    }

    fn dequeue_or_drop(&mut self, now: SimTime, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        loop {
            let (from_new, slot) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&s), _) => (true, s),
                (None, Some(&s)) => (false, s),
                (None, None) => return None,
            };
            let flow = &mut self.flows[slot];
            if flow.deficit <= 0 {
                flow.deficit += self.quantum as i64;
                self.pop_list(from_new);
                self.old_flows.push_back(slot);
                continue;
            }
            let mut src = FlowSource {
                fifo: &mut flow.fifo,
                pkts: &mut self.pkts,
                bytes: &mut self.bytes,
                own_backlog: self.mtu_per_flow,
            };
            if let Some(p) = flow.vars.dequeue(&mut src, &self.params, &mut self.stats, now, dropped) {
                flow.deficit -= p.size as i64;
                return Some(p);
            }
            self.pop_list(from_new);
            // A new flow that emptied goes through the old list once, so that flows that keep
            // turning new cannot starve the old ones (RFC 8290 section 4.2).
            if from_new && !self.old_flows.is_empty() {
                self.old_flows.push_back(slot);
            } else {
                self.flows[slot].listed = false;
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> Vec<Packet> {
        self.flows.iter().flat_map(|f| f.fifo.q.iter().map(|(p, _)| *p)).collect()
    }

    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        let mut params = self.params.described().to_vec();
        params.extend([
            ("flows", self.buckets as f64),
            ("exact", if self.exact { 1.0 } else { 0.0 }),
            ("mtu_per_flow", if self.mtu_per_flow { 1.0 } else { 0.0 }),
            ("quantum", self.quantum as f64),
            ("drop_batch_size", self.drop_batch as f64),
            ("limit", self.limit as f64),
            ("memory_limit", self.memory_limit as f64),
        ]);
        Some(crate::describe::QueueInfo::new("fq_codel", self.cap, &params))
    }

    fn marks(&self) -> u64 {
        self.stats.marks
    }
}

#[cfg(test)]
mod tests;
