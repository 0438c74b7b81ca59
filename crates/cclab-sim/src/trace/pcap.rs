//! pcapng output: real Ethernet/IPv4/TCP headers for the packets of the traced flows, one
//! capture point per flow (the sender's host, as `tcpdump` on the sender would see it).
//!
//! The file format is the PCAP Next Generation capture format (IETF draft
//! draft-ietf-opsawg-pcapng, the format Wireshark writes): a Section Header Block, one
//! Interface Description Block (link type 1, Ethernet, with `if_tsresol` = 9: nanosecond
//! timestamps), then one Enhanced Packet Block per packet. Everything little-endian.
//! Written here rather than with a crate: the three blocks are some sixty lines, and the
//! core crate keeps its dependencies to serde, toml and rand.
//!
//! # Headers (choices where the simulation has no such field)
//!
//! - Addresses: node `n` is `10.a.b.c` with `a.b.c` = `n + 1` in 24 bits, its MAC
//!   `02:00:00:a:b:c` (locally administered).
//! - Ports: the sender's is `10000 + flow mod 50000`, the receiver's 5001.
//! - Sequence numbers count bytes from an initial sequence number per flow (a hash of the
//!   flow index). Segment `k` starts at `ISN + 1 + (k - s) * payload`, `s` = 1 when the flow
//!   opens with a SYN (segment 0, at `ISN`), else 0; the cumulative ACK of segment `a` is the
//!   start of segment `a`. `payload` = packet size - 40 - 12 when the flow uses RFC 7323
//!   timestamps, - 40 without.
//! - Data segments are as long as the simulation's packet size (the IPv4 total length);
//!   ACKs are as long as their headers (40 bytes plus options), whatever `ack_size` is.
//! - Options: timestamps (NOP NOP TS, 12 bytes) when the flow uses them, TSval and TSecr
//!   in microseconds of simulated time (mod 2^32); SACK blocks on ACKs (NOP NOP SACK);
//!   MSS on a SYN.
//! - Window: the receiver's window in bytes, at most 65535 (no window scaling is
//!   negotiated); the sender advertises 65535.
//! - ECN: ECT(0), ECT(1) or CE in the IPv4 header, ECE and CWR in TCP as the packet carries them.
//! - The IPv4 and TCP checksums are correct; the payload is zero-filled, which adds nothing
//!   to the TCP checksum, so a frame cut at `snaplen` still checks against its length.

use crate::packet::{Kind, Packet, CE, CWR, ECE, ECT, ECT1, SYN};
use crate::units::SimTime;
use std::io::{self, Write};

/// What the headers of one flow's packets need to know about it.
#[derive(Clone, Copy, Debug)]
pub struct FlowAddr {
    pub flow: u32,
    pub src_node: u32,
    pub dst_node: u32,
    /// Data packet size on the wire, bytes.
    pub mss: u32,
    pub timestamps: bool,
    /// The flow opens with a SYN as segment 0.
    pub syn: bool,
    /// Receiver window, packets.
    pub rwnd: u64,
}

impl FlowAddr {
    /// TCP payload bytes of a full data segment.
    pub fn payload(&self) -> u32 {
        self.mss.saturating_sub(40 + if self.timestamps { 12 } else { 0 }).max(1)
    }

    pub fn sport(&self) -> u16 {
        (10_000 + self.flow % 50_000) as u16
    }

    pub const DPORT: u16 = 5001;

    pub fn isn(&self) -> u32 {
        self.flow.wrapping_mul(2_654_435_761).wrapping_add(0x1000)
    }

    pub fn receiver_isn(&self) -> u32 {
        self.flow.wrapping_mul(2_246_822_519).wrapping_add(0x8000_0000)
    }

    /// The byte sequence number where segment `k` starts (the module comment).
    pub fn byte_seq(&self, k: u64) -> u32 {
        let s = u64::from(self.syn);
        if k < s {
            return self.isn();
        }
        let off = 1u64.wrapping_add((k - s).wrapping_mul(self.payload() as u64));
        self.isn().wrapping_add(off as u32)
    }
}

/// Node `n`'s IPv4 address, `10.a.b.c` with `a.b.c` = `n + 1`.
pub fn node_ip(n: u32) -> [u8; 4] {
    let v = (n + 1) & 0x00ff_ffff;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

fn node_mac(n: u32) -> [u8; 6] {
    let [_, a, b, c] = node_ip(n);
    [0x02, 0, 0, a, b, c]
}

/// RFC 1071 ones' complement sum of 16-bit words, not yet complemented.
fn sum16(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Microseconds of simulated time, mod 2^32 (the timestamps option's clock).
fn ts_us(t: SimTime) -> u32 {
    (t.0 / 1_000_000) as u32
}

/// The Ethernet frame of `p` (headers only; the payload is not built): the header bytes and
/// the frame's full length. `ip_id` numbers the IPv4 datagrams of the direction.
pub fn frame(p: &Packet, a: &FlowAddr, ip_id: u16, out: &mut Vec<u8>) -> usize {
    out.clear();
    let data = p.kind == Kind::Data;
    let (src, dst) = if data { (a.src_node, a.dst_node) } else { (a.dst_node, a.src_node) };
    let (sport, dport) = if data { (a.sport(), FlowAddr::DPORT) } else { (FlowAddr::DPORT, a.sport()) };
    let syn = data && p.flags & SYN != 0;

    // TCP options, padded with NOPs to a multiple of 4 as Linux lays them out.
    let mut opts: Vec<u8> = Vec::with_capacity(40);
    if syn {
        let mss = a.payload().min(u16::MAX as u32) as u16;
        opts.extend_from_slice(&[2, 4]);
        opts.extend_from_slice(&mss.to_be_bytes());
    }
    if a.timestamps {
        opts.extend_from_slice(&[1, 1, 8, 10]);
        opts.extend_from_slice(&ts_us(p.ts_val).to_be_bytes());
        opts.extend_from_slice(&ts_us(p.ts_ecr).to_be_bytes());
    }
    if !data && p.n_sack > 0 {
        // At most 3 blocks fit beside the timestamps in 40 bytes of options (RFC 2018).
        let n = (p.n_sack as usize).min(if a.timestamps { 3 } else { 4 });
        opts.extend_from_slice(&[1, 1, 5, 2 + 8 * n as u8]);
        for b in &p.sack[..n] {
            opts.extend_from_slice(&a.byte_seq(p.seq + b.start as u64).to_be_bytes());
            opts.extend_from_slice(&a.byte_seq(p.seq + b.end as u64).to_be_bytes());
        }
    }
    let tcp_hlen = 20 + opts.len();
    let ip_len = if data { (p.size as usize).max(20 + tcp_hlen) } else { 20 + tcp_hlen };
    let tcp_len = ip_len - 20;

    // Ethernet II.
    out.extend_from_slice(&node_mac(dst));
    out.extend_from_slice(&node_mac(src));
    out.extend_from_slice(&0x0800u16.to_be_bytes());

    // IPv4 (RFC 791), ECN in the low bits of the former TOS byte (RFC 3168).
    let ecn = if p.flags & CE != 0 {
        3
    } else if p.flags & ECT1 != 0 {
        1
    } else if p.flags & ECT != 0 {
        2
    } else {
        0
    };
    let ip0 = out.len();
    out.extend_from_slice(&[0x45, ecn]);
    out.extend_from_slice(&(ip_len as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes()); // DF
    out.extend_from_slice(&[64, 6, 0, 0]);
    out.extend_from_slice(&node_ip(src));
    out.extend_from_slice(&node_ip(dst));
    let c = fold(sum16(0, &out[ip0..ip0 + 20]));
    out[ip0 + 10..ip0 + 12].copy_from_slice(&c.to_be_bytes());

    // TCP (RFC 9293).
    let (seq, ack) = if data {
        (a.byte_seq(p.seq), a.receiver_isn().wrapping_add(1))
    } else {
        (a.receiver_isn().wrapping_add(1), a.byte_seq(p.seq))
    };
    let mut flags: u8 = if syn { 0x02 } else { 0x10 };
    if !data && p.flags & ECE != 0 {
        flags |= 0x40;
    }
    if data && p.flags & CWR != 0 {
        flags |= 0x80;
    }
    if data && !syn && tcp_len > tcp_hlen {
        flags |= 0x08; // PSH, as Linux sets on the last segment of a write; harmless
    }
    let window: u16 = if data { u16::MAX } else { (a.rwnd.saturating_mul(a.payload() as u64)).min(65_535) as u16 };
    let t0 = out.len();
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&(if syn { 0 } else { ack }).to_be_bytes());
    out.extend_from_slice(&[((tcp_hlen / 4) as u8) << 4, flags]);
    out.extend_from_slice(&window.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    out.extend_from_slice(&opts);
    // Pseudo-header (RFC 9293 section 3.1): addresses, protocol, TCP length; the zero
    // payload adds nothing.
    let mut acc = sum16(0, &node_ip(src));
    acc = sum16(acc, &node_ip(dst));
    acc += 6 + tcp_len as u32;
    let c = fold(sum16(acc, &out[t0..]));
    out[t0 + 16..t0 + 18].copy_from_slice(&c.to_be_bytes());
    14 + ip_len
}

/// A pcapng file being written: the section and interface headers first, then packets.
pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
    buf: Vec<u8>,
    pad: Vec<u8>,
}

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

impl<W: Write> PcapWriter<W> {
    /// Writes the Section Header Block and the one Interface Description Block.
    pub fn new(mut w: W, snaplen: u32) -> io::Result<Self> {
        // SHB: type, length, byte-order magic, version 1.0, section length unknown (-1),
        // shb_userappl (4), end of options.
        let app = format!("cclab {}", env!("CARGO_PKG_VERSION"));
        let app_opt = 4 + app.len() + pad4(app.len());
        let len = 28 + app_opt + 4;
        let mut b = Vec::with_capacity(len);
        b.extend_from_slice(&0x0A0D_0D0Au32.to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(&0x1A2B_3C4Du32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&(-1i64).to_le_bytes());
        b.extend_from_slice(&4u16.to_le_bytes());
        b.extend_from_slice(&(app.len() as u16).to_le_bytes());
        b.extend_from_slice(app.as_bytes());
        b.resize(b.len() + pad4(app.len()), 0);
        b.extend_from_slice(&0u32.to_le_bytes()); // opt_endofopt
        b.extend_from_slice(&(len as u32).to_le_bytes());
        debug_assert_eq!(b.len(), len);
        // IDB: link type 1 (Ethernet), snaplen, if_name (2), if_tsresol (9) = 10^-9 s.
        let name = b"cclab-senders";
        let len = 16 + (4 + name.len() + pad4(name.len())) + 8 + 4 + 4;
        let start = b.len();
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&snaplen.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(name);
        b.resize(b.len() + pad4(name.len()), 0);
        b.extend_from_slice(&9u16.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&[9, 0, 0, 0]);
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        debug_assert_eq!(b.len() - start, len);
        w.write_all(&b)?;
        Ok(PcapWriter { w, snaplen, buf: Vec::with_capacity(128), pad: Vec::new() })
    }

    /// Writes one packet as an Enhanced Packet Block at `t`; returns the bytes written.
    pub fn packet(&mut self, t: SimTime, p: &Packet, a: &FlowAddr, ip_id: u16) -> io::Result<u64> {
        let orig = frame(p, a, ip_id, &mut self.buf);
        let cap = orig.min(self.snaplen as usize);
        // The headers built, then zeros up to the captured length.
        if cap > self.buf.len() {
            self.buf.resize(cap, 0);
        }
        let data = &self.buf[..cap];
        let len = 28 + cap + pad4(cap) + 4;
        let ns = t.0 / 1000;
        let mut h = [0u8; 28];
        h[0..4].copy_from_slice(&6u32.to_le_bytes());
        h[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        h[8..12].copy_from_slice(&0u32.to_le_bytes());
        h[12..16].copy_from_slice(&((ns >> 32) as u32).to_le_bytes());
        h[16..20].copy_from_slice(&(ns as u32).to_le_bytes());
        h[20..24].copy_from_slice(&(cap as u32).to_le_bytes());
        h[24..28].copy_from_slice(&(orig as u32).to_le_bytes());
        self.w.write_all(&h)?;
        self.w.write_all(data)?;
        self.pad.resize(pad4(cap), 0);
        self.w.write_all(&self.pad)?;
        self.w.write_all(&(len as u32).to_le_bytes())?;
        Ok(len as u64)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::SackBlock;

    fn addr() -> FlowAddr {
        FlowAddr { flow: 0, src_node: 0, dst_node: 1, mss: 1500, timestamps: true, syn: false, rwnd: u64::MAX }
    }

    fn pkt(kind: Kind, seq: u64) -> Packet {
        let mut p = crate::queue::test_packet(1500);
        p.kind = kind;
        p.seq = seq;
        p
    }

    #[test]
    fn checksums_of_a_built_header_verify_to_zero() {
        let mut ack = pkt(Kind::Ack, 10);
        ack.n_sack = 2;
        ack.sack[0] = SackBlock { start: 2, end: 4 };
        ack.sack[1] = SackBlock { start: 6, end: 7 };
        let mut buf = Vec::new();
        let len = frame(&ack, &addr(), 7, &mut buf);
        // 14 Ethernet + 20 IPv4 + 20 TCP + 12 timestamps + 4 + 16 SACK.
        assert_eq!((len, buf.len()), (86, 86));
        assert_eq!(fold(sum16(0, &buf[14..34])), 0, "IPv4 header checksum");
        let mut acc = sum16(0, &buf[26..34]); // source and destination addresses
        acc += 6 + (len - 34) as u32;
        assert_eq!(fold(sum16(acc, &buf[34..])), 0, "TCP checksum");
    }

    #[test]
    fn byte_sequence_numbers_step_by_the_payload_and_skip_the_syn() {
        let a = addr();
        assert_eq!(a.payload(), 1448);
        assert_eq!(a.byte_seq(3).wrapping_sub(a.isn()), 1 + 3 * 1448);
        let s = FlowAddr { syn: true, ..a };
        assert_eq!(s.byte_seq(0), s.isn());
        assert_eq!(s.byte_seq(1).wrapping_sub(s.isn()), 1);
        assert_eq!(s.byte_seq(3).wrapping_sub(s.isn()), 1 + 2 * 1448);
    }

    #[test]
    fn ecn_bits_go_to_the_ip_header_and_the_tcp_flags() {
        let mut buf = Vec::new();
        let mut d = pkt(Kind::Data, 0);
        d.flags = CE | CWR;
        frame(&d, &addr(), 0, &mut buf);
        assert_eq!(buf[15] & 3, 3);
        assert_eq!(buf[14 + 20 + 13] & 0x80, 0x80);
        // ECT(0) is 0b10, ECT(1) 0b01 (RFC 3168 section 5).
        for (flags, bits) in [(ECT, 2), (ECT | ECT1, 1)] {
            d.flags = flags;
            buf.clear();
            frame(&d, &addr(), 0, &mut buf);
            assert_eq!(buf[15] & 3, bits);
        }
        let mut a = pkt(Kind::Ack, 1);
        a.flags = ECE;
        frame(&a, &addr(), 0, &mut buf);
        assert_eq!(buf[15] & 3, 0);
        assert_eq!(buf[14 + 20 + 13], 0x50);
    }

    #[test]
    fn an_enhanced_packet_block_records_the_original_length_past_the_snaplen() {
        let mut w = PcapWriter::new(Vec::new(), 100).unwrap();
        let head = w.w.len();
        w.packet(SimTime(1_500_000), &pkt(Kind::Data, 0), &addr(), 1).unwrap();
        let b = &w.w[head..];
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        assert_eq!(u32_at(0), 6);
        assert_eq!((u32_at(20), u32_at(24)), (100, 1514));
        assert_eq!(u32_at(16), 1500); // nanoseconds
        assert_eq!(u32_at(4) as usize, b.len());
    }
}
