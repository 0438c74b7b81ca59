//! The TCP receiver: cumulative ACKs, SACK blocks (RFC 2018), timestamp
//! echo (RFC 7323), optional delayed ACKs (RFC 5681 section 4.2), and the
//! echo of ECN marks: RFC 3168's (ECE from a CE mark until the sender's CWR) or,
//! for an algorithm that needs it (DCTCP), each packet's own mark.

use super::rcv_autotune::RcvAutotune;
use crate::cc::CcHeader;
use crate::packet::{Kind, Packet, SackBlock, CE, CWR, ECE, SYN};
use crate::units::SimTime;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
pub struct ReceiverConfig {
    pub ack_size: u32,
    pub sack: bool,
    /// Acknowledge every second in-order segment, or when the timer expires.
    pub delayed_ack: bool,
    /// Delayed-ACK timeout (ns-2's `interval_` default: 100 ms).
    pub delack_timeout: SimTime,
    /// With delayed ACKs, the first this many ACKs of the connection go out at once (Linux's
    /// quick-ACK mode at the first data segment, net/ipv4/tcp_input.c `tcp_incr_quickack()`).
    pub quickacks: u32,
    /// Linux's receive-buffer autotuning with this segment size (bytes): each data segment that
    /// grows the window threshold is acknowledged at once (tcp/rcv_autotune.rs); `None`: off.
    pub autotune_mss: Option<u32>,
    /// How CE marks are echoed.
    pub ecn_feedback: EcnFeedback,
}

/// How the receiver echoes CE marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnFeedback {
    /// RFC 3168 section 6.1.3: once a CE mark arrives, every ACK carries ECE until a
    /// segment with CWR arrives.
    #[default]
    Rfc3168,
    /// RFC 8257 section 3.2 (DCTCP's two-state machine, Linux `dctcp_ece_ack_update`): an
    /// ACK carries ECE exactly when the last data packet was CE-marked, and when that
    /// state changes the receiver acknowledges at once: first, if an ACK was being delayed,
    /// the packets before the change with the old ECE, then the arriving packet with the
    /// new one (Linux's `ICSK_ACK_NOW`). So with delayed ACKs every ACK still covers
    /// packets of one mark state only, and the sender can count marked packets exactly.
    PerPacket,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ReceiverStats {
    /// Data packets received, duplicates included.
    pub received: u64,
    /// Segments delivered in order to the application.
    pub delivered: u64,
    /// Bytes delivered in order (goodput), counting whole packets as ns-2 does.
    pub delivered_bytes: u64,
    pub duplicates: u64,
    pub acks_sent: u64,
    /// When data was last delivered in order (for a finite flow, when its last byte arrived).
    pub last_delivery_at: SimTime,
}

pub struct Receiver {
    cfg: ReceiverConfig,
    flow: u32,
    /// Next segment expected in order.
    pub rcv_nxt: u64,
    /// Segments received above `rcv_nxt`: disjoint intervals `[start, end)`.
    ooo: BTreeMap<u64, u64>,
    /// Segments inside the blocks reported most recently, most recent first (RFC 2018 section 4).
    recent: [u64; 3],
    n_recent: usize,
    /// RFC 7323 TS.Recent.
    ts_recent: SimTime,
    /// The cumulative ACK last sent (RFC 7323 Last.ACK.sent).
    last_ack_sent: u64,
    /// In-order segments not yet acknowledged (delayed ACK).
    unacked: u32,
    last_cc: CcHeader,
    /// ACKs carry ECE: a CE mark was received and no CWR since (RFC 3168 section 6.1.3),
    /// or the last data packet was CE-marked (`EcnFeedback::PerPacket`, DCTCP.CE).
    ece: bool,
    /// The ACK of the packets before a CE state change, owed before the one `on_data`
    /// returns (`EcnFeedback::PerPacket` with delayed ACKs).
    early_ack: Option<Packet>,
    /// When the delayed-ACK timer expires, if running.
    pub delack_deadline: Option<SimTime>,
    pub stats: ReceiverStats,
    /// Quick ACKs left (`icsk_ack.quick`).
    quick: u32,
    /// Linux's receive-buffer autotuning, if modelled.
    autotune: Option<Box<RcvAutotune>>,
}

impl Receiver {
    pub fn cfg(&self) -> &ReceiverConfig {
        &self.cfg
    }

    pub fn new(flow: u32, cfg: ReceiverConfig) -> Self {
        Receiver {
            cfg,
            flow,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            recent: [0; 3],
            n_recent: 0,
            ts_recent: SimTime::ZERO,
            last_ack_sent: 0,
            unacked: 0,
            last_cc: CcHeader::default(),
            ece: false,
            early_ack: None,
            delack_deadline: None,
            stats: ReceiverStats::default(),
            quick: cfg.quickacks,
            autotune: cfg.autotune_mss.map(|m| Box::new(RcvAutotune::new(m))),
        }
    }

    /// Takes a data segment; returns the ACK to send now, if any.
    pub fn on_data(&mut self, p: &Packet, now: SimTime) -> Option<Packet> {
        self.stats.received += 1;
        if let Some(a) = &mut self.autotune {
            a.measure_rtt(now, p.ts_ecr);
        }
        let seq = p.seq;
        let mut ce_changed = false;
        match self.cfg.ecn_feedback {
            EcnFeedback::Rfc3168 => {
                if p.flags & CWR != 0 {
                    self.ece = false;
                }
                if p.flags & CE != 0 {
                    self.ece = true;
                }
            }
            EcnFeedback::PerPacket => {
                let ce = p.flags & CE != 0;
                if ce != self.ece {
                    // Acknowledge what came before the change, with the old ECE, now: it
                    // is built before this packet moves rcv_nxt or the echoed fields.
                    if self.unacked > 0 {
                        self.early_ack = Some(self.make_ack(now));
                    }
                    self.ece = ce;
                    ce_changed = true;
                }
            }
        }
        // RFC 7323 section 4.3: remember the timestamp of a segment at or below the last ACK
        // sent (after an early ACK, which covers the packets before this one).
        if seq <= self.last_ack_sent {
            self.ts_recent = p.ts_val;
        }
        self.last_cc = p.cc;
        let immediate;
        let read_before = self.stats.delivered_bytes;
        // Out-of-order intervals all start above `rcv_nxt`: only a segment above it can be
        // one already held, which `insert_ooo` finds with the lookup it merges with.
        if seq < self.rcv_nxt || (seq > self.rcv_nxt && !self.insert_ooo(seq)) {
            self.stats.duplicates += 1;
            immediate = true;
        } else if seq == self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            self.rcv_nxt += 1;
            let mut n = 1;
            // Pull in any out-of-order interval now contiguous.
            if let Some((&s, &e)) = self.ooo.iter().next() {
                if s == self.rcv_nxt {
                    self.ooo.remove(&s);
                    n += e - s;
                    self.rcv_nxt = e;
                }
            }
            if self.autotune.is_some() {
                // tcp_event_data_recv() -> tcp_grow_window(): this segment, those it released
                // and those still out of order wait in the buffer.
                self.grow_window(n + self.ooo_held());
            }
            self.stats.delivered += n;
            self.stats.last_delivery_at = now;
            self.stats.delivered_bytes += n * p.size as u64;
            self.unacked += 1;
            // RFC 5681: ACK at once when a segment fills (part of) a gap.
            immediate = had_gap
                || !self.cfg.delayed_ack
                || self.unacked >= 2
                || p.flags & SYN != 0
                || self.quick > 0
                || ce_changed;
        } else {
            immediate = true; // inserted above
            if self.autotune.is_some() {
                // tcp_data_queue_ofo() grows the window too, against the buffer the segments
                // already held take (this one is charged to it just after).
                self.grow_window(self.ooo_held() - 1);
            }
        }
        let ack = if immediate {
            Some(self.make_ack(now))
        } else {
            if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now + self.cfg.delack_timeout);
            }
            None
        };
        if let Some(a) = self.autotune.as_mut().filter(|_| self.stats.delivered_bytes > read_before) {
            // New data in order wakes the application, which reads after the ACK decision: up to
            // the segment before this one, as a reader woken by it finds them (tcp_recvmsg()).
            let ooo_bytes = self.ooo.iter().next_back().map_or(0, |(_, &e)| (e - self.rcv_nxt) * u64::from(p.size));
            a.space_adjust(now, read_before, ooo_bytes);
        }
        ack
    }

    /// Linux's `tcp_grow_window()` with `held` segments in the buffer: a growth sets a quick ACK
    /// (`icsk_ack.quick |= 1`).
    fn grow_window(&mut self, held: u64) {
        if self.autotune.as_mut().is_some_and(|a| a.grow_window(held)) {
            self.quick |= 1;
        }
    }

    /// Segments held out of order.
    fn ooo_held(&self) -> u64 {
        self.ooo.iter().map(|(s, e)| e - s).sum()
    }

    /// The ACK owed for the packets before a CE state change (`EcnFeedback::PerPacket`):
    /// send it before the one the last `on_data` returned.
    pub fn take_early_ack(&mut self) -> Option<Packet> {
        self.early_ack.take()
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: SimTime) -> Option<Packet> {
        self.delack_deadline = None;
        if self.unacked > 0 {
            Some(self.make_ack(now))
        } else {
            None
        }
    }

    /// Holds out-of-order segment `seq`, merging it with its neighbours; `false` if it was
    /// already held (a duplicate), which changes nothing.
    fn insert_ooo(&mut self, seq: u64) -> bool {
        let mut start = seq;
        let mut end = seq + 1;
        if let Some((&s, &e)) = self.ooo.range(..=seq).next_back() {
            if seq < e {
                return false;
            }
            if e == seq {
                start = s;
                self.ooo.remove(&s);
            }
        }
        if let Some(&e) = self.ooo.get(&end) {
            self.ooo.remove(&end);
            end = e;
        }
        self.ooo.insert(start, end);
        // The block holding this segment goes first; others keep their order (RFC 2018).
        let old = self.recent;
        self.recent[0] = seq;
        let mut n = 1;
        for &r in old[..self.n_recent].iter().filter(|&&r| !(r >= start && r < end)).take(2) {
            self.recent[n] = r;
            n += 1;
        }
        self.n_recent = n;
        true
    }

    fn make_ack(&mut self, now: SimTime) -> Packet {
        self.unacked = 0;
        self.quick = self.quick.saturating_sub(1); // Linux `tcp_dec_quickack_mode()`
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        let mut sack = [SackBlock::default(); 3];
        let mut n_sack = 0u8;
        if self.cfg.sack {
            let mut kept = 0;
            for i in 0..self.n_recent {
                let r = self.recent[i];
                if r < self.rcv_nxt {
                    continue; // now cumulatively acknowledged
                }
                if let Some((&s, &e)) = self.ooo.range(..=r).next_back() {
                    if r < e {
                        sack[n_sack as usize] =
                            SackBlock { start: (s - self.rcv_nxt) as u32, end: (e - self.rcv_nxt) as u32 };
                        n_sack += 1;
                        self.recent[kept] = r;
                        kept += 1;
                    }
                }
            }
            self.n_recent = kept;
        }
        self.stats.acks_sent += 1;
        Packet {
            seq: self.rcv_nxt,
            ts_val: now,
            ts_ecr: self.ts_recent,
            sack,
            cc: self.last_cc,
            flow: self.flow,
            size: self.cfg.ack_size,
            hop: 0,
            kind: Kind::Ack,
            n_sack,
            retx: false,
            flags: if self.ece { ECE } else { 0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(delayed: bool) -> Receiver {
        Receiver::new(
            0,
            ReceiverConfig {
                ack_size: 40,
                sack: true,
                delayed_ack: delayed,
                delack_timeout: SimTime::from_millis(100),
                quickacks: 0,
                autotune_mss: None,
                ecn_feedback: EcnFeedback::Rfc3168,
            },
        )
    }

    fn data(seq: u64, ts: u64) -> Packet {
        Packet { seq, ts_val: SimTime(ts), cc: CcHeader([seq as u32, 7, 0]), ..crate::queue::test_packet(1000) }
    }

    #[test]
    fn out_of_order_segments_produce_sack_blocks_most_recent_first() {
        let mut r = rx(false);
        r.on_data(&data(0, 1), SimTime(1));
        // 1 lost; 2,3 arrive, then 5 (4 lost too)
        r.on_data(&data(2, 2), SimTime(2));
        r.on_data(&data(3, 3), SimTime(3));
        let a = r.on_data(&data(5, 4), SimTime(4)).unwrap();
        assert_eq!(a.seq, 1);
        assert_eq!(a.n_sack, 2);
        // [5,6) first, then [2,4); offsets from the ACK (1).
        assert_eq!(a.sack[0], SackBlock { start: 4, end: 5 });
        assert_eq!(a.sack[1], SackBlock { start: 1, end: 3 });
        // The retransmission of 1 fills the first hole: ACK 4, one block left.
        let a = r.on_data(&data(1, 9), SimTime(9)).unwrap();
        assert_eq!(a.seq, 4);
        assert_eq!(a.n_sack, 1);
        assert_eq!(a.sack[0], SackBlock { start: 1, end: 2 });
        assert_eq!(r.stats.delivered, 4);
    }

    #[test]
    fn timestamp_echo_is_held_across_a_hole_as_rfc7323_says() {
        let mut r = rx(false);
        r.on_data(&data(0, 10), SimTime(11));
        let a = r.on_data(&data(2, 30), SimTime(31)).unwrap();
        assert_eq!(a.ts_ecr, SimTime(10)); // the out-of-order segment does not update TS.Recent
        let a = r.on_data(&data(1, 50), SimTime(51)).unwrap();
        assert_eq!(a.ts_ecr, SimTime(50)); // the retransmission filling the hole does
        assert_eq!(a.cc, CcHeader([1, 7, 0]));
    }

    #[test]
    fn delayed_ack_acknowledges_every_second_segment_or_on_timer() {
        let mut r = rx(true);
        assert!(r.on_data(&data(0, 1), SimTime(1)).is_none());
        assert_eq!(r.delack_deadline, Some(SimTime(1) + SimTime::from_millis(100)));
        assert_eq!(r.on_data(&data(1, 2), SimTime(2)).unwrap().seq, 2);
        assert!(r.on_data(&data(2, 3), SimTime(3)).is_none());
        assert_eq!(r.on_delack_timer(SimTime::from_millis(101)).unwrap().seq, 3);
        // An out-of-order segment is acknowledged at once.
        assert!(r.on_data(&data(5, 4), SimTime(4)).is_some());
    }

    #[test]
    fn in_quick_ack_mode_the_first_segments_are_acknowledged_one_by_one() {
        let mut r = rx(true);
        r.cfg.quickacks = 3;
        r.quick = 3;
        let acked: Vec<bool> = (0..7).map(|s| r.on_data(&data(s, s), SimTime(s)).is_some()).collect();
        // Three quick ACKs, then every second segment.
        assert_eq!(acked, [true, true, true, false, true, false, true]);
    }

    #[test]
    fn with_autotuning_each_segment_that_grows_the_window_is_acknowledged_at_once() {
        let mut r = rx(true);
        r.autotune = Some(Box::new(RcvAutotune::new(1000)));
        // 1000-byte segments: rcv_ssthresh starts at 65000 under a clamp of 81920, less the
        // segment being read (1000 bytes of window): 15920 bytes of room, eight steps of 2000.
        let acked: Vec<bool> = (0..12).map(|s| r.on_data(&data(s, s), SimTime(s)).is_some()).collect();
        assert_eq!(acked, [true, true, true, true, true, true, true, true, false, true, false, true]);
        // An out-of-order segment is acknowledged at once anyway; its buffer counts from then on.
        assert!(r.on_data(&data(13, 13), SimTime(13)).is_some());
        assert_eq!(r.ooo_held(), 1);
        // The hole filled: both are read, the out-of-order one no longer held.
        assert!(r.on_data(&data(12, 12), SimTime(14)).is_some());
        assert_eq!(r.ooo_held(), 0);
    }

    fn marked(seq: u64, flags: u8) -> Packet {
        Packet { flags: crate::packet::ECT | flags, ..data(seq, seq) }
    }

    /// (cumulative ACK, ECE) of an ACK.
    fn echo(a: &Packet) -> (u64, bool) {
        (a.seq, a.flags & ECE != 0)
    }

    #[test]
    fn per_packet_feedback_acknowledges_at_once_on_a_ce_change_the_packets_before_it_first() {
        let mut r = rx(true);
        r.cfg.ecn_feedback = EcnFeedback::PerPacket;
        let t = SimTime(1);
        assert!(r.on_data(&marked(0, 0), t).is_none(), "delayed as usual");
        // 1 is CE: the ACK of 0 goes first with the old state (no ECE), then 1's with ECE.
        let a = r.on_data(&marked(1, CE), t).unwrap();
        assert_eq!(echo(&r.take_early_ack().unwrap()), (1, false));
        assert_eq!(echo(&a), (2, true));
        // No change: every second packet, with ECE.
        assert!(r.on_data(&marked(2, CE), t).is_none());
        assert_eq!(echo(&r.on_data(&marked(3, CE), t).unwrap()), (4, true));
        assert!(r.take_early_ack().is_none());
        // 4 is not CE, with nothing waiting: no early ACK, 4's own at once without ECE.
        assert_eq!(echo(&r.on_data(&marked(4, 0), t).unwrap()), (5, false));
        assert!(r.take_early_ack().is_none());
        // 5 waits; 6 is CE: 5's ACK without ECE, then 6's with it.
        assert!(r.on_data(&marked(5, 0), t).is_none());
        let a = r.on_data(&marked(6, CE), t).unwrap();
        assert_eq!(echo(&r.take_early_ack().unwrap()), (6, false));
        assert_eq!(echo(&a), (7, true));
        // CWR changes nothing: the echo follows the marks only.
        assert!(r.on_data(&marked(7, CE | CWR), t).is_none());
        assert_eq!(echo(&r.on_delack_timer(SimTime::from_millis(200)).unwrap()), (8, true));
    }

    #[test]
    fn rfc3168_feedback_echoes_a_mark_until_cwr_whatever_follows() {
        let mut r = rx(false);
        assert!(!echo(&r.on_data(&marked(0, 0), SimTime(1)).unwrap()).1);
        assert!(echo(&r.on_data(&marked(1, CE), SimTime(1)).unwrap()).1);
        assert!(echo(&r.on_data(&marked(2, 0), SimTime(1)).unwrap()).1, "latched");
        assert!(!echo(&r.on_data(&marked(3, CWR), SimTime(1)).unwrap()).1, "until CWR");
        let mut p = rx(false);
        p.cfg.ecn_feedback = EcnFeedback::PerPacket;
        p.on_data(&marked(0, CE), SimTime(1));
        assert!(!echo(&p.on_data(&marked(1, 0), SimTime(1)).unwrap()).1, "per packet: no latch");
    }

    #[test]
    fn duplicate_segments_are_counted_and_acknowledged_at_once() {
        let mut r = rx(true);
        r.on_data(&data(0, 1), SimTime(1));
        r.on_data(&data(1, 1), SimTime(1));
        assert!(r.on_data(&data(0, 1), SimTime(2)).is_some());
        assert_eq!(r.stats.duplicates, 1);
        assert_eq!(r.stats.delivered, 2);
    }
}
