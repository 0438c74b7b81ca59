//! DropTail: first in, first out, arrivals dropped when the buffer is full.
//! The capacity is counted in packets or in bytes and excludes the packet
//! being transmitted, as ns-3's DropTailQueue does. ns-2's DropTail drops an
//! arrival when its queue length + 1 reaches the limit (queue/drop-tail.cc
//! `enque`), so a limit of L holds L - 1 waiting packets:
//! `count_in_service = 1` gives that (packet buffers only).

use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::Packet;
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::units::SimTime;
use std::collections::VecDeque;

pub struct DropTail {
    cap: Capacity,
    q: VecDeque<Packet>,
    bytes: u64,
    /// 1 when a packet buffer of n holds n - 1 waiting (ns-2's limit), else 0.
    in_service: u64,
}

impl DropTail {
    pub fn new(cap: Capacity) -> Self {
        DropTail { cap, q: VecDeque::new(), bytes: 0, in_service: 0 }
    }

    pub fn capacity(&self) -> Capacity {
        self.cap
    }
}

/// The parameters `build` reads.
pub static PARAMS: &[ParamSpec] =
    &[ParamSpec::new("count_in_service", "flag", "", "0", "0 or 1 (1: a limit of n holds n - 1 waiting, as ns-2's)")];

/// The registry's constructor (`queue = "droptail"`): the buffer, and whether it counts
/// the packet in service as ns-2's limit does.
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(params);
    let in_service = r.get_flag("count_in_service", false)?;
    r.finish()?;
    Ok(Box::new(DropTail { in_service: u64::from(in_service), ..DropTail::new(s.cap) }))
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, pkt: Packet, _ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        let full = match self.cap {
            Capacity::Packets(n) => self.q.len() as u64 + self.in_service >= n,
            Capacity::Bytes(b) => self.bytes + pkt.size as u64 > b,
            Capacity::Unlimited => false,
        };
        if full {
            return Err((pkt, DropCause::Overflow));
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
        Ok(())
    }

    /// Empty, DropTail accepts what fits its buffer and keeps no other state.
    #[inline]
    fn passes_when_idle(&self, pkt: &Packet) -> bool {
        self.q.is_empty()
            && match self.cap {
                Capacity::Packets(n) => self.in_service < n,
                Capacity::Bytes(b) => pkt.size as u64 <= b,
                Capacity::Unlimited => true,
            }
    }

    fn dequeue(&mut self, _now: SimTime) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.q.len()
    }

    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        Some(crate::describe::QueueInfo::new("droptail", self.cap, &[("count_in_service", self.in_service as f64)]))
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> Vec<Packet> {
        self.q.iter().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::test_packet;

    const CTX: EnqueueContext = EnqueueContext { now: SimTime(0), idle_since: None };

    #[test]
    fn packet_capacity_drops_the_arrival_when_full() {
        let mut q = DropTail::new(Capacity::Packets(2));
        assert!(q.enqueue(test_packet(1500), &CTX).is_ok());
        assert!(q.enqueue(test_packet(1500), &CTX).is_ok());
        assert_eq!(q.enqueue(test_packet(40), &CTX).unwrap_err().1, DropCause::Overflow);
        assert_eq!(q.len_pkts(), 2);
    }

    #[test]
    fn counting_the_packet_in_service_holds_one_less_as_ns2s_limit() {
        let settings = QueueSettings { cap: Capacity::Packets(3), ..QueueSettings::EXAMPLE };
        let params: Params = [("count_in_service".to_string(), 1.0)].into_iter().collect();
        let mut q = build(&settings, &params).unwrap();
        assert!(q.enqueue(test_packet(1500), &CTX).is_ok());
        assert!(q.enqueue(test_packet(1500), &CTX).is_ok());
        assert_eq!(q.enqueue(test_packet(1500), &CTX).unwrap_err().1, DropCause::Overflow, "limit 3 holds 2");
        let bad: Params = [("count_in_service".to_string(), 2.0)].into_iter().collect();
        assert_eq!(build(&settings, &bad).err().unwrap().param, "count_in_service");
    }

    #[test]
    fn byte_capacity_admits_small_packets_a_large_one_would_overflow() {
        let mut q = DropTail::new(Capacity::Bytes(3000));
        assert!(q.enqueue(test_packet(1500), &CTX).is_ok());
        assert!(q.enqueue(test_packet(1460), &CTX).is_ok());
        assert!(q.enqueue(test_packet(1500), &CTX).is_err());
        assert!(q.enqueue(test_packet(40), &CTX).is_ok());
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().size, 1500);
        assert_eq!(q.len_bytes(), 1500);
    }
}
