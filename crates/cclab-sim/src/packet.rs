//! The packet: a small `Copy` value moved by value, never allocated.

use crate::cc::CcHeader;
use crate::units::SimTime;

/// What a packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data,
    Ack,
    /// A UDP datagram; `flow` indexes the simulation's UDP sources.
    Udp,
}

/// A SACK block as offsets from the cumulative ACK, in segments:
/// it covers `[ack + start, ack + end)`. Offsets keep the packet small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u32,
    pub end: u32,
}

/// A data segment or an ACK.
///
/// Sequence numbers count segments, as ns-2's agents do; the packet's size on
/// the wire is `size` bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// Data: the segment number. ACK: the cumulative ACK (next segment expected).
    pub seq: u64,
    /// The sender's clock when this packet left (RFC 7323 TSval).
    pub ts_val: SimTime,
    /// The echoed timestamp (RFC 7323 TSecr): on an ACK the data's TSval, on a data segment the
    /// newest ACK's (the sender's TS.Recent; zero before any ACK).
    pub ts_ecr: SimTime,
    /// Up to three SACK blocks (RFC 2018), most recent first; `n_sack` are valid.
    pub sack: [SackBlock; 3],
    /// The congestion-control header: written by the sender, echoed by the receiver.
    pub cc: CcHeader,
    /// Index of the flow this packet belongs to.
    pub flow: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Index of the next link on the flow's path.
    pub hop: u8,
    pub kind: Kind,
    pub n_sack: u8,
    /// Set on a data segment that is a retransmission (for counting only).
    pub retx: bool,
    /// Header flags: the ECN bits (RFC 3168: `ECT`, `CE` on data, `ECE` on ACKs, `CWR` on
    /// data; `ECT1` beside `ECT` for RFC 9331's ECT(1)) and `SYN`.
    pub flags: u8,
}

/// ECN-capable transport (data): alone, the ECT(0) codepoint of RFC 3168.
pub const ECT: u8 = 1;
/// Congestion experienced, set by a router (data).
pub const CE: u8 = 2;
/// ECN echo (ACK).
pub const ECE: u8 = 4;
/// Congestion window reduced (data).
pub const CWR: u8 = 8;
/// The opening segment of a connection (a header-only seq 0), for stacks that send one
/// (tcp/profile.rs `syn`); its receiver acknowledges it at once.
pub const SYN: u8 = 16;
/// Set with `ECT`: the codepoint is ECT(1), the L4S identifier (RFC 9331 section 4: the
/// packet's sender runs a scalable congestion control and wants L4S treatment). Every
/// discipline that asks `ECT` sees an ECN-capable packet either way; only the DualQ
/// classifier (queue/dualpi2.rs) tells the two apart.
pub const ECT1: u8 = 32;

impl Packet {
    /// A data packet with every field zero: the base of packets built field by field (tests,
    /// and the trace's rows of events that concern no packet).
    pub const EMPTY: Packet = Packet {
        seq: 0,
        ts_val: SimTime::ZERO,
        ts_ecr: SimTime::ZERO,
        sack: [SackBlock { start: 0, end: 0 }; 3],
        cc: CcHeader([0; 3]),
        flow: 0,
        size: 0,
        hop: 0,
        kind: Kind::Data,
        n_sack: 0,
        retx: false,
        flags: 0,
    };

    pub fn is_data(&self) -> bool {
        self.kind == Kind::Data
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        // The wire and queues hold packets by value; keep them within 80 bytes.
        assert!(std::mem::size_of::<super::Packet>() <= 80, "{}", std::mem::size_of::<super::Packet>());
    }
}
