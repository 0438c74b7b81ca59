//! The sender's record of outstanding segments, with SACK accounting at O(1)
//! amortized cost per ACK and per segment sent (O(log n) in the number of
//! SACKed ranges), whatever the window.
//!
//! ns-3 walks its whole list of sent segments for every SACK block and every
//! segment sent; at windows of 10^4 packets that dominates the run. Here:
//! - SACKed ranges live in an ordered map of disjoint intervals, so a block
//!   the receiver repeats on every ACK costs a lookup, not a walk;
//! - the RFC 6675 `IsLost` rule ("DupThresh segments SACKed above it") is
//!   applied by a frontier that only moves forward, carrying the count of
//!   SACKed segments above it;
//! - the next hole to retransmit is found by a second forward-only pointer.
//!
//! `pipe` is kept as Linux keeps `tcp_packets_in_flight`:
//! outstanding − SACKed − lost + retransmitted.

use super::ca_rtt::CaTimes;
use super::rack::{Rack, NIL};
use super::rate::{RateEstimator, TxSnapshot};
use crate::units::SimTime;
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Seg {
    /// When the segment was last sent.
    pub(super) sent_at: SimTime,
    pub(super) sacked: bool,
    /// Deemed lost (RFC 6675 IsLost, or everything after an RTO).
    pub(super) lost: bool,
    /// Retransmitted and still counted in flight.
    pub(super) retx: bool,
    /// Was ever retransmitted (Karn's rule).
    pub(super) ever_retx: bool,
    /// The delivery counters when it was last sent (delivery-rate estimation).
    tx: TxSnapshot,
    /// Neighbours in RACK's list of undelivered segments by send time (rack.rs), if `linked`.
    pub(super) t_prev: u64,
    pub(super) t_next: u64,
    pub(super) linked: bool,
}

#[derive(Debug)]
pub struct Scoreboard {
    /// First segment not cumulatively acknowledged (`snd_una`).
    una: u64,
    pub(super) segs: VecDeque<Seg>,
    /// SACKed intervals `[start, end)` above `una`, disjoint and not adjacent.
    sacked: BTreeMap<u64, u64>,
    pub sacked_out: u64,
    pub lost_out: u64,
    pub retrans_out: u64,
    /// Highest SACKed segment + 1.
    pub high_sacked: u64,
    /// Segments ever marked lost (a running count: a difference gives the losses of one ACK).
    pub lost_marked: u64,
    /// Every un-SACKed segment below this has been marked lost.
    pub(super) frontier: u64,
    /// SACKed segments in `[frontier, una + segs.len())`.
    pub(super) sacked_above_frontier: u64,
    /// No lost, un-retransmitted segment lies below this.
    pub(super) rxt_next: u64,
    dupthresh: u64,
    /// A SACKed retransmission keeps its place in `pipe` until the cumulative ACK (ns-3.44's
    /// TcpTxBuffer::Update marks the segment SACKed but leaves its retransmitted flag and
    /// count, which only RemoveFromCounts, at the cumulative ACK, or an RTO clear).
    keep_sacked_retx: bool,
    /// A lost segment is resent only below the highest SACKed one (RFC 6675 NextSeg rule
    /// (1.b)) while any SACK lies above `una`, in every state: ns-3.44's TcpTxBuffer::NextSeg
    /// tests it after a timeout too, so the segments still in flight above the highest SACK
    /// wait for their SACKs instead of being sent again.
    below_high_sack: bool,
    /// RACK's state (RFC 8985), with `loss_detection = "rack-tlp"` only (rack.rs).
    pub(super) rack: Option<Rack>,
    /// Ends of RACK's send-time list (`NIL` when empty).
    pub(super) t_head: u64,
    pub(super) t_tail: u64,
    /// What the current ACK's delivered segments offer Linux's `ca_rtt` (ca_rtt.rs).
    pub ca: CaTimes,
}

impl Scoreboard {
    /// Bytes the scoreboard keeps per outstanding segment (what a window of millions costs).
    pub const BYTES_PER_SEGMENT: usize = std::mem::size_of::<Seg>();

    /// With `keep`, a SACKed retransmission stays in `pipe` until cumulatively acknowledged
    /// (ns-3.44's count, for cross-checks) instead of leaving it at its SACK (RFC 6675, Linux).
    pub fn keeping_sacked_retx(mut self, keep: bool) -> Self {
        self.keep_sacked_retx = keep;
        self
    }

    /// With `on`, a lost segment is resent only below the highest SACK (ns-3.44's NextSeg);
    /// off, every lost segment from `una` (Linux's tcp_xmit_retransmit_queue).
    pub fn resending_below_high_sack(mut self, on: bool) -> Self {
        self.below_high_sack = on;
        self
    }

    pub fn new(dupthresh: u32) -> Self {
        Scoreboard {
            una: 0,
            segs: VecDeque::new(),
            sacked: BTreeMap::new(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            high_sacked: 0,
            lost_marked: 0,
            frontier: 0,
            sacked_above_frontier: 0,
            rxt_next: 0,
            dupthresh: dupthresh as u64,
            keep_sacked_retx: false,
            below_high_sack: false,
            rack: None,
            t_head: NIL,
            t_tail: NIL,
            ca: CaTimes::default(),
        }
    }

    pub fn una(&self) -> u64 {
        self.una
    }

    /// One past the highest segment ever sent (`snd_max`).
    pub fn high(&self) -> u64 {
        self.una + self.segs.len() as u64
    }

    pub(super) fn seg(&mut self, seq: u64) -> &mut Seg {
        &mut self.segs[(seq - self.una) as usize]
    }

    /// Records the transmission of `seq`: new (== high) or a retransmission, with the
    /// delivery counters `tx` at that moment.
    pub fn on_send(&mut self, seq: u64, now: SimTime, tx: TxSnapshot) {
        if seq == self.high() {
            self.segs.push_back(Seg { sent_at: now, tx, ..Seg::default() });
            if self.rack.is_some() {
                self.t_append(seq);
            }
            return;
        }
        if self.rack.is_some() && !self.seg(seq).sacked {
            // Linux moves a resent segment to the tail of the send-time list (a SACKed one, which
            // a tail loss probe may resend, stays out of it: it is delivered).
            self.t_unlink(seq);
            self.t_append(seq);
        }
        let s = self.seg(seq);
        s.sent_at = now;
        s.tx = tx;
        s.ever_retx = true;
        if !s.retx && !s.sacked {
            s.retx = true;
            self.retrans_out += 1;
        }
    }

    /// Send time of `seq` and whether it was ever retransmitted.
    pub fn sent_info(&self, seq: u64) -> Option<(SimTime, bool)> {
        if seq < self.una {
            return None;
        }
        self.segs.get((seq - self.una) as usize).map(|s| (s.sent_at, s.ever_retx))
    }

    /// Whether any segment in `[from, to)` was ever retransmitted (Karn's rule over a
    /// cumulative ACK). Costs one look per segment the ACK covers, as `ack_to` does.
    pub fn any_retransmitted(&self, from: u64, to: u64) -> bool {
        let lo = (from.max(self.una) - self.una) as usize;
        let hi = ((to.max(self.una) - self.una) as usize).min(self.segs.len());
        lo < hi && self.segs.range(lo..hi).any(|s| s.ever_retx)
    }

    /// Advances the cumulative ACK to `ack`; returns how many of the newly
    /// acknowledged segments had not been SACKed before. Those are delivered now,
    /// and reported to `rate`.
    pub fn ack_to(&mut self, ack: u64, rate: &mut RateEstimator) -> u64 {
        let mut fresh = 0;
        while self.una < ack {
            if self.rack.is_some() {
                let (una, s) = (self.una, self.segs[0]);
                if !s.sacked {
                    self.rack_advance(una, s.sent_at, s.ever_retx);
                }
                self.t_unlink(una);
            }
            let s = self.segs.pop_front().expect("ack beyond snd_max is rejected by the sender");
            if s.sacked {
                self.sacked_out -= 1;
                if self.una >= self.frontier {
                    self.sacked_above_frontier -= 1;
                }
                // Set only when SACKed retransmissions are kept (`keeping_sacked_retx`).
                if s.retx {
                    self.retrans_out -= 1;
                }
            } else {
                fresh += 1;
                rate.on_delivered(self.una, s.sent_at, &s.tx);
                self.ca.cum_acked(s.sent_at, s.ever_retx);
                if s.lost {
                    self.lost_out -= 1;
                }
                if s.retx {
                    self.retrans_out -= 1;
                }
            }
            self.una += 1;
        }
        // Drop SACKed intervals now below the cumulative ACK.
        while let Some((&st, &en)) = self.sacked.iter().next() {
            if st >= ack {
                break;
            }
            self.sacked.remove(&st);
            if en > ack {
                self.sacked.insert(ack, en);
            }
        }
        if self.frontier < ack {
            self.frontier = ack;
        }
        if self.rxt_next < ack {
            self.rxt_next = ack;
        }
        fresh
    }

    /// Records a SACK block `[start, end)`; returns the number of newly SACKed segments,
    /// which are delivered now and reported to `rate`.
    pub fn sack(&mut self, start: u64, end: u64, rate: &mut RateEstimator) -> u64 {
        let start = start.max(self.una);
        let end = end.min(self.high());
        if start >= end {
            return 0;
        }
        // Find the parts of [start, end) not yet covered, merging as we go.
        let mut new_start = start;
        let mut new_end = end;
        let mut fresh_ranges: Vec<(u64, u64)> = Vec::new();
        let mut cursor = start;
        // An interval starting before `start` may cover its beginning.
        if let Some((&s, &e)) = self.sacked.range(..=start).next_back() {
            if e >= end {
                // Already SACKed (a receiver repeats its blocks on every ACK): nothing to do.
                // `high_sacked` is at least the end of every recorded interval.
                return 0;
            }
            if e >= start {
                new_start = s;
                cursor = cursor.max(e);
                new_end = new_end.max(e);
                self.sacked.remove(&s);
            }
        }
        let inside: Vec<(u64, u64)> = self.sacked.range(start..=end).map(|(&s, &e)| (s, e)).collect();
        for (s, e) in inside {
            if s > cursor {
                fresh_ranges.push((cursor, s.min(end)));
            }
            cursor = cursor.max(e);
            new_end = new_end.max(e);
            self.sacked.remove(&s);
        }
        if cursor < end {
            fresh_ranges.push((cursor, end));
        }
        self.sacked.insert(new_start, new_end);

        let mut n = 0;
        let keep = self.keep_sacked_retx;
        for (s, e) in fresh_ranges {
            for seq in s..e {
                let frontier = self.frontier;
                let seg = self.seg(seq);
                debug_assert!(!seg.sacked);
                seg.sacked = true;
                let (was_lost, was_retx) = (seg.lost, seg.retx);
                seg.lost = false;
                // The flag stays with the count it stands for, to leave at the cumulative ACK.
                seg.retx &= keep;
                let (sent_at, tx, ever_retx) = (seg.sent_at, seg.tx, seg.ever_retx);
                rate.on_delivered(seq, sent_at, &tx);
                self.ca.sacked(sent_at, ever_retx);
                if self.rack.is_some() {
                    self.rack_advance(seq, sent_at, ever_retx);
                    self.t_unlink(seq);
                }
                if was_lost {
                    self.lost_out -= 1;
                }
                if was_retx && !keep {
                    self.retrans_out -= 1;
                }
                if seq >= frontier {
                    self.sacked_above_frontier += 1;
                }
                n += 1;
            }
        }
        self.sacked_out += n;
        self.high_sacked = self.high_sacked.max(end);
        n
    }

    /// Applies RFC 6675 `IsLost`: marks every un-SACKed segment with at least
    /// DupThresh SACKed segments above it. Returns how many were newly marked.
    pub fn mark_lost(&mut self) -> u64 {
        let mut n = 0;
        let high = self.high();
        while self.frontier < high {
            let f = self.frontier;
            let idx = (f - self.una) as usize;
            if self.segs[idx].sacked {
                self.sacked_above_frontier -= 1;
            } else if self.sacked_above_frontier >= self.dupthresh {
                let seg = &mut self.segs[idx];
                if !seg.lost {
                    seg.lost = true;
                    if seg.retx {
                        // A retransmission presumed lost again leaves the pipe.
                        seg.retx = false;
                        self.retrans_out -= 1;
                    }
                    self.lost_out += 1;
                    self.lost_marked += 1;
                    n += 1;
                }
            } else {
                break;
            }
            self.frontier += 1;
        }
        n
    }

    /// Marks `seq` lost explicitly (the first segment on entering fast recovery).
    pub fn mark_lost_one(&mut self, seq: u64) {
        if seq >= self.high() {
            return;
        }
        let s = self.seg(seq);
        if !s.sacked && !s.lost {
            s.lost = true;
            if s.retx {
                s.retx = false;
                self.retrans_out -= 1;
            }
            self.lost_out += 1;
            self.lost_marked += 1;
        }
    }

    /// Forgets every SACK, loss mark and retransmission mark, keeping what was sent and when
    /// (ns-2's Sack1 `ClearScoreBoard`: on each new ACK outside recovery, at its end and at a
    /// timeout; the receiver repeats its blocks, so they come back with the next ACKs).
    pub fn forget_sacks(&mut self) {
        if self.sacked_out + self.lost_out + self.retrans_out > 0 {
            for s in self.segs.iter_mut() {
                (s.sacked, s.lost, s.retx) = (false, false, false);
            }
        }
        self.sacked.clear();
        (self.sacked_out, self.lost_out, self.retrans_out) = (0, 0, 0);
        self.high_sacked = self.una;
        self.frontier = self.una;
        self.sacked_above_frontier = 0;
        self.rxt_next = self.una;
    }

    /// The first segment at or above `seq` that is not SACKed (SACKed intervals are
    /// disjoint and not adjacent, so the end of the one covering `seq` is a hole).
    pub fn next_unsacked(&self, seq: u64) -> u64 {
        match self.sacked.range(..=seq).next_back() {
            Some((_, &end)) if end > seq => end,
            _ => seq,
        }
    }

    /// After a retransmission timeout: every un-SACKed outstanding segment is lost.
    pub fn mark_all_lost(&mut self) {
        let mut lost = 0;
        for s in self.segs.iter_mut() {
            self.lost_marked += (!s.sacked && !s.lost) as u64;
            s.retx = false;
            s.lost = !s.sacked;
            lost += s.lost as u64;
        }
        self.lost_out = lost;
        self.retrans_out = 0;
        self.frontier = self.high();
        self.sacked_above_frontier = 0;
        self.rxt_next = self.una;
    }

    /// RFC 6675 NextSeg() rule 1: the first lost segment not yet retransmitted (and, with
    /// `below_high_sack`, below the highest SACK: rule (1.b)).
    pub fn next_lost(&mut self) -> Option<u64> {
        let mut high = self.high();
        if self.below_high_sack && self.high_sacked > self.una {
            high = high.min(self.high_sacked);
        }
        while self.rxt_next < high {
            let s = self.segs[(self.rxt_next - self.una) as usize];
            if s.lost && !s.retx && !s.sacked {
                return Some(self.rxt_next);
            }
            if !s.lost && !s.sacked && self.rxt_next >= self.frontier {
                return None;
            }
            self.rxt_next += 1;
        }
        None
    }

    /// RFC 6675 pipe: segments presumed in the network.
    pub fn pipe(&self) -> u64 {
        self.segs.len() as u64 - self.sacked_out - self.lost_out + self.retrans_out
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        seq >= self.una && self.segs.get((seq - self.una) as usize).is_some_and(|s| s.sacked)
    }

    pub fn is_lost(&self, seq: u64) -> bool {
        seq >= self.una && self.segs.get((seq - self.una) as usize).is_some_and(|s| s.lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(3);
        for s in 0..n {
            b.on_send(s, SimTime::ZERO, TxSnapshot::default());
        }
        b
    }

    #[test]
    fn repeated_sack_blocks_count_each_segment_once() {
        let mut b = board(10);
        assert_eq!(b.sack(2, 5, &mut RateEstimator::default()), 3);
        assert_eq!(b.sack(2, 6, &mut RateEstimator::default()), 1);
        assert_eq!(b.sack(1, 7, &mut RateEstimator::default()), 2);
        assert_eq!(b.sacked_out, 6);
        assert_eq!(b.pipe(), 4);
    }

    #[test]
    fn a_hole_is_lost_once_three_segments_above_it_are_sacked() {
        let mut b = board(10);
        b.sack(1, 3, &mut RateEstimator::default());
        assert_eq!(b.mark_lost(), 0);
        b.sack(3, 4, &mut RateEstimator::default());
        assert_eq!(b.mark_lost(), 1);
        assert!(b.is_lost(0));
        assert!(!b.is_lost(4));
        // pipe = 10 - 3 sacked - 1 lost
        assert_eq!(b.pipe(), 6);
        assert_eq!(b.next_lost(), Some(0));
        b.on_send(0, SimTime(1), TxSnapshot::default());
        assert_eq!(b.pipe(), 7);
        assert_eq!(b.next_lost(), None);
    }

    #[test]
    fn two_holes_with_sacks_between_are_both_lost() {
        let mut b = board(12);
        // holes at 0 and 4; 1-3 and 5-8 sacked
        b.sack(1, 4, &mut RateEstimator::default());
        b.sack(5, 9, &mut RateEstimator::default());
        b.mark_lost();
        assert!(b.is_lost(0) && b.is_lost(4));
        assert!(!b.is_lost(9));
        assert_eq!(b.lost_out, 2);
        assert_eq!(b.next_lost(), Some(0));
        b.on_send(0, SimTime(1), TxSnapshot::default());
        assert_eq!(b.next_lost(), Some(4));
    }

    /// After a timeout every un-SACKed segment is lost; Linux resends them all from `una`,
    /// ns-3.44 (rule (1.b)) only those below the highest SACK, so that the segments above it,
    /// still in flight, wait for their SACKs.
    #[test]
    fn after_a_timeout_rule_1b_resends_only_below_the_highest_sack() {
        for (below, expected) in [(false, vec![0, 1, 3, 5, 6, 7]), (true, vec![0, 1, 3])] {
            let mut b = board(8).resending_below_high_sack(below);
            b.sack(2, 3, &mut RateEstimator::default());
            b.sack(4, 5, &mut RateEstimator::default());
            b.mark_all_lost();
            let mut resent = vec![];
            while let Some(s) = b.next_lost() {
                b.on_send(s, SimTime(1), TxSnapshot::default());
                resent.push(s);
            }
            assert_eq!(resent, expected, "below_high_sack = {below}");
            if below {
                // A SACK of segment 6 makes 5 eligible; 7 stays above the highest SACK.
                b.sack(6, 7, &mut RateEstimator::default());
                assert_eq!(b.next_lost(), Some(5));
                b.on_send(5, SimTime(2), TxSnapshot::default());
                assert_eq!(b.next_lost(), None);
            }
        }
    }

    #[test]
    fn cumulative_ack_releases_counters() {
        let mut b = board(10);
        b.sack(1, 5, &mut RateEstimator::default());
        b.mark_lost();
        b.on_send(0, SimTime(1), TxSnapshot::default());
        assert_eq!(b.retrans_out, 1);
        // The retransmission of 0 arrives: ACK jumps to 5.
        assert_eq!(b.ack_to(5, &mut RateEstimator::default()), 1);
        assert_eq!((b.sacked_out, b.lost_out, b.retrans_out), (0, 0, 0));
        assert_eq!(b.pipe(), 5);
    }

    #[test]
    fn a_sacked_retransmission_leaves_pipe_at_its_sack_unless_kept_until_the_cumulative_ack() {
        for keep in [false, true] {
            // 0..10 sent; 4..7 SACKed marks 0..3 lost; 1 is resent, then SACKed itself.
            let mut b = board(10).keeping_sacked_retx(keep);
            b.sack(4, 7, &mut RateEstimator::default());
            b.mark_lost();
            b.on_send(1, SimTime(1), TxSnapshot::default());
            let before = b.pipe();
            b.sack(1, 2, &mut RateEstimator::default());
            // RFC 6675 / Linux: one SACKed segment fewer in flight; ns-3.44: still counted.
            assert_eq!(b.pipe(), if keep { before } else { before - 1 }, "keep {keep}");
            assert_eq!(b.retrans_out, u64::from(keep));
            b.ack_to(7, &mut RateEstimator::default());
            assert_eq!((b.sacked_out, b.lost_out, b.retrans_out), (0, 0, 0), "keep {keep}");
        }
    }

    #[test]
    fn after_timeout_everything_unsacked_is_lost_and_resent_in_order() {
        let mut b = board(6);
        b.sack(2, 3, &mut RateEstimator::default());
        b.mark_all_lost();
        assert_eq!(b.lost_out, 5);
        assert_eq!(b.pipe(), 0);
        let mut order = vec![];
        while let Some(s) = b.next_lost() {
            b.on_send(s, SimTime(1), TxSnapshot::default());
            order.push(s);
        }
        assert_eq!(order, vec![0, 1, 3, 4, 5]);
    }
}
