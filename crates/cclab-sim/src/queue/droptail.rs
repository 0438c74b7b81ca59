//! DropTail: first in, first out, arrivals dropped when the buffer is full.
//! The capacity is counted in packets or in bytes and excludes the packet
//! being transmitted, as ns-3's DropTailQueue does (ns-2's DropTail holds one
//! less: a limit of L holds L - 1 waiting, queue/drop-tail.cc `enque`).

use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::Packet;
use crate::registry::{ParamError, ParamReader, Params};
use crate::units::SimTime;
use std::collections::VecDeque;

pub struct DropTail {
    cap: Capacity,
    q: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(cap: Capacity) -> Self {
        DropTail { cap, q: VecDeque::new(), bytes: 0 }
    }
}

/// The registry's constructor (`queue = "droptail"`): no parameters, only the buffer.
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    ParamReader::new(params).finish()?;
    Ok(Box::new(DropTail::new(s.cap)))
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, pkt: Packet, _ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        let full = match self.cap {
            Capacity::Packets(n) => self.q.len() as u64 >= n,
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

    fn dequeue(&mut self, _now: SimTime) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.q.len()
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
    use crate::cc::CcHeader;
    use crate::packet::{Kind, SackBlock};

    fn pkt(size: u32) -> Packet {
        Packet {
            seq: 0,
            ts_val: SimTime::ZERO,
            ts_ecr: SimTime::ZERO,
            sack: [SackBlock::default(); 3],
            cc: CcHeader::default(),
            flow: 0,
            size,
            hop: 0,
            kind: Kind::Data,
            n_sack: 0,
            retx: false,
            ecn: 0,
        }
    }
    const CTX: EnqueueContext = EnqueueContext { now: SimTime(0), idle_since: None };

    #[test]
    fn packet_capacity_drops_the_arrival_when_full() {
        let mut q = DropTail::new(Capacity::Packets(2));
        assert!(q.enqueue(pkt(1500), &CTX).is_ok());
        assert!(q.enqueue(pkt(1500), &CTX).is_ok());
        assert_eq!(q.enqueue(pkt(40), &CTX).unwrap_err().1, DropCause::Overflow);
        assert_eq!(q.len_pkts(), 2);
    }

    #[test]
    fn byte_capacity_admits_small_packets_a_large_one_would_overflow() {
        let mut q = DropTail::new(Capacity::Bytes(3000));
        assert!(q.enqueue(pkt(1500), &CTX).is_ok());
        assert!(q.enqueue(pkt(1460), &CTX).is_ok());
        assert!(q.enqueue(pkt(1500), &CTX).is_err());
        assert!(q.enqueue(pkt(40), &CTX).is_ok());
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().size, 1500);
        assert_eq!(q.len_bytes(), 1500);
    }
}
