//! RACK loss detection (RFC 8985 section 6) as Linux runs it (net/ipv4/tcp_recovery.c).
//!
//! A segment is lost when a segment sent after it has been delivered (SACKed or
//! cumulatively acknowledged) and more than RACK.RTT + reo_wnd has passed since it was
//! sent: time, not a count of duplicate ACKs, decides, so that a lost retransmission is
//! found without waiting for the timeout, and a loss near the end of a window needs no
//! three segments above it. The tail loss probe that complements it is tlp.rs.
//!
//! The undelivered segments are kept in a list by send time (Linux's
//! `tsorted_sent_queue`): appended when sent, moved to the tail when resent, removed
//! when delivered or found lost, so a detection pass looks only at the segments sent
//! before the latest delivered one that are still undelivered.
//!
//! What Linux does that cclab's links make moot: the reordering window grows with
//! DSACKs (`reo_wnd_steps`) and becomes min_rtt / 4 for good once reordering was seen
//! (`reord_seen`). cclab's links keep each flow's order and its receiver sends no
//! DSACK, so reordering is never seen, and the window is min_rtt / 4 (at most SRTT)
//! in Open and Disorder with fewer than DupThresh segments SACKed, zero otherwise
//! (`tcp_rack_reo_wnd()`).

use super::scoreboard::Scoreboard;
use super::sender::{Sender, Timer};
use crate::cc::CaState;
use crate::packet::Packet;
use crate::units::SimTime;

/// No segment: the end of the send-time list.
pub(super) const NIL: u64 = u64::MAX;

/// Linux's `TCP_TIMEOUT_MIN_US`: added to the reordering timer (tcp_rack_mark_lost()).
const TIMEOUT_MIN: SimTime = SimTime::from_millis(2);

/// RACK's state (RFC 8985 section 6.1; Linux `struct tcp_rack`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the latest send time among the delivered segments,
    /// ties broken by the higher sequence number.
    xmit_ts: SimTime,
    end_seq: u64,
    /// RACK.rtt: the round trip of the last delivered segment an ACK looked at.
    rtt: SimTime,
    /// Something was delivered since the last detection (`rack.advanced`).
    advanced: bool,
    /// The current ACK's arrival and the flow's minimum RTT (set per ACK).
    now: SimTime,
    min_rtt: SimTime,
}

/// What one detection pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Segments newly marked lost.
    pub lost: u64,
    /// Of those, retransmissions lost again (Linux `FLAG_LOST_RETRANS`).
    pub lost_retransmits: u64,
    /// The longest a segment sent before RACK.xmit_ts still has to wait (the reordering timer).
    pub wait: Option<SimTime>,
}

impl Scoreboard {
    /// Turns RACK on for this scoreboard (before anything is sent).
    pub fn enable_rack(&mut self) {
        self.rack = Some(Rack::default());
    }

    /// An ACK arrives at `now`: the delivered segments it reports are timed against it.
    pub fn rack_ack_begin(&mut self, now: SimTime, min_rtt: SimTime) {
        if let Some(r) = &mut self.rack {
            r.now = now;
            r.min_rtt = min_rtt;
        }
    }

    /// Segment `seq`, last sent at `sent_at`, was delivered (RFC 8985 step 2,
    /// `tcp_rack_advance()`).
    pub(super) fn rack_advance(&mut self, seq: u64, sent_at: SimTime, ever_retx: bool) {
        let Some(r) = &mut self.rack else { return };
        let rtt = r.now.saturating_sub(sent_at);
        // A retransmitted segment acknowledged sooner than the path's minimum RTT was the
        // original's delivery, not the retransmission's: it says nothing of when.
        if ever_retx && rtt < r.min_rtt {
            return;
        }
        r.advanced = true;
        r.rtt = rtt;
        if (sent_at, seq) > (r.xmit_ts, r.end_seq) {
            (r.xmit_ts, r.end_seq) = (sent_at, seq);
        }
    }

    /// Appends `seq` to the send-time list.
    pub(super) fn t_append(&mut self, seq: u64) {
        let tail = self.t_tail;
        let s = self.seg(seq);
        (s.t_prev, s.t_next, s.linked) = (tail, NIL, true);
        if tail == NIL {
            self.t_head = seq;
        } else {
            self.seg(tail).t_next = seq;
        }
        self.t_tail = seq;
    }

    /// Removes `seq` from the send-time list, if it is in it.
    pub(super) fn t_unlink(&mut self, seq: u64) {
        let s = self.seg(seq);
        if !s.linked {
            return;
        }
        let (prev, next) = (s.t_prev, s.t_next);
        s.linked = false;
        if prev == NIL {
            self.t_head = next;
        } else {
            self.seg(prev).t_next = next;
        }
        if next == NIL {
            self.t_tail = prev;
        } else {
            self.seg(next).t_prev = prev;
        }
    }

    /// Marks `seq` lost; returns whether it was a retransmission lost again.
    fn rack_mark(&mut self, seq: u64) -> bool {
        let s = self.seg(seq);
        let (was_lost, was_retx) = (s.lost, s.retx);
        (s.lost, s.retx) = (true, false);
        if !was_lost {
            self.lost_out += 1;
        }
        if was_retx {
            self.retrans_out -= 1;
        }
        self.lost_marked += 1;
        self.rxt_next = self.rxt_next.min(seq);
        // next_lost() looks for lost segments below the frontier.
        while self.frontier <= seq {
            if self.segs[(self.frontier - self.una()) as usize].sacked {
                self.sacked_above_frontier -= 1;
            }
            self.frontier += 1;
        }
        was_retx
    }

    /// RFC 8985 step 5 (`tcp_rack_detect_loss()`): marks lost every undelivered segment
    /// sent before RACK.xmit_ts whose RACK.RTT + `reo_wnd` has passed at `now`. Runs only
    /// when something was delivered since the last pass, unless `force` (the timer).
    pub fn rack_detect(&mut self, now: SimTime, reo_wnd: SimTime, force: bool) -> Detected {
        let mut d = Detected::default();
        let Some(r) = self.rack.as_mut() else { return d };
        if !r.advanced && !force {
            return d;
        }
        r.advanced = false;
        let r = *r;
        let mut seq = self.t_head;
        while seq != NIL {
            let s = self.segs[(seq - self.una()) as usize];
            let next = s.t_next;
            if s.lost && !s.retx {
                // Lost and not yet resent: its resending puts it back at the tail.
                self.t_unlink(seq);
            } else if (r.xmit_ts, r.end_seq) <= (s.sent_at, seq) {
                break; // sent no earlier than the latest delivered segment
            } else {
                let deadline = s.sent_at + r.rtt + reo_wnd;
                if deadline <= now {
                    d.lost += 1;
                    d.lost_retransmits += self.rack_mark(seq) as u64;
                    self.t_unlink(seq);
                } else {
                    d.wait = d.wait.max(Some(deadline - now));
                }
            }
            seq = next;
        }
        d
    }

    /// After a retransmission timeout (Linux `tcp_timeout_mark_lost()` under RACK): the
    /// first segment and every one whose RACK.RTT has passed since it was sent are lost;
    /// segments sent within the last RACK.RTT are not yet.
    pub fn rack_mark_timeout_lost(&mut self, now: SimTime) {
        let Some(r) = self.rack else { return };
        let (mut lost, mut retx, mut first_kept) = (0, 0, None);
        for (i, s) in self.segs.iter_mut().enumerate() {
            if s.sacked {
                continue;
            }
            if i > 0 && s.sent_at + r.rtt > now {
                first_kept = first_kept.or(Some(i as u64));
                retx += s.retx as u64;
                lost += s.lost as u64;
                continue;
            }
            self.lost_marked += !s.lost as u64;
            (s.lost, s.retx) = (true, false);
            lost += 1;
        }
        (self.lost_out, self.retrans_out) = (lost, retx);
        self.rxt_next = self.una();
        let high = self.high();
        self.frontier = first_kept.map_or(high, |i| self.una() + i);
        self.sacked_above_frontier =
            self.segs.iter().skip((self.frontier - self.una()) as usize).filter(|s| s.sacked).count() as u64;
    }
}

impl Sender {
    /// Whether this flow detects losses with RACK (tcp/profile.rs `LossDetection`).
    pub(super) fn rack_on(&self) -> bool {
        self.sb.rack.is_some()
    }

    /// RACK's reordering window now (`tcp_rack_reo_wnd()` with no reordering seen).
    pub(super) fn reo_wnd(&self) -> SimTime {
        if matches!(self.state, CaState::Recovery | CaState::Loss) || self.sb.sacked_out >= self.cfg.dupthresh as u64 {
            return SimTime::ZERO;
        }
        SimTime(self.rtt.rtt_min.0 / 4).min(self.rtt.srtt())
    }

    /// The timer after an ACK (`tcp_rack_mark_lost()` arming the reordering timer, else
    /// `tcp_set_xmit_timer()` when snd_una advanced): the reordering timer when a segment
    /// sent before the latest delivered one must still wait, else the probe or, counted
    /// from the first outstanding segment when the reordering or probe timer was pending,
    /// the RTO (which the new ACK already restarted from now otherwise).
    pub(super) fn rack_timers(&mut self, now: SimTime, d: Detected, una_advanced: bool, prior: Timer) {
        if let Some(wait) = d.wait {
            // usecs_to_jiffies(wait + TCP_TIMEOUT_MIN_US), at most the RTO.
            let t = ceil_ms(wait + TIMEOUT_MIN).min(self.rtt.rto());
            self.rto_deadline = Some(now + t);
            self.timer = Timer::Reorder;
        } else if una_advanced
            && self.sb.high() > self.sb.una()
            && !self.schedule_loss_probe(now, true)
            && prior != Timer::Rto
        {
            self.rearm_rto_from_head(now);
        }
    }

    /// The reordering timer fired (`tcp_rack_reo_timeout()`): mark what has waited long
    /// enough, start a recovery if there is none, resend, and re-arm the RTO from the first
    /// outstanding segment's send time.
    pub(super) fn on_reorder_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let d = self.sb.rack_detect(now, self.reo_wnd(), true);
        if d.lost > 0 {
            if self.state != CaState::Recovery {
                self.enter_recovery(now, out);
                if let Some(p) = self.prr.as_mut().filter(|_| !self.rate_samples) {
                    // tcp_cwnd_reduction(sk, 1, 0): as if one packet were delivered; not for an
                    // algorithm that sets the window itself (`cong_control`).
                    if let Some(w) = p.on_ack(self.ssthresh, self.sb.pipe(), 1, false, false) {
                        self.cwnd = w.max(1.0);
                    }
                }
            }
            self.send(now, out);
        }
        self.rearm_rto_from_head(now);
    }

    /// Linux `tcp_rearm_rto()` with a reordering or probe timer pending: the RTO counts
    /// from the first outstanding segment's last send.
    pub(super) fn rearm_rto_from_head(&mut self, now: SimTime) {
        self.timer = Timer::Rto;
        let una = self.sb.una();
        self.rto_deadline = match self.sb.sent_info(una) {
            None => None,
            Some((sent, _)) => Some((sent + self.rtt.rto()).max(now + SimTime::from_micros(1))),
        };
    }

    /// After an ACK: a loss RACK found starts a recovery (Linux `tcp_time_to_recover()`,
    /// "the loss is proven"), also from the timeout's Loss state when a retransmission was
    /// lost again.
    pub(super) fn rack_recover(&mut self, d: Detected, now: SimTime, out: &mut Vec<Packet>) -> bool {
        let start = match self.state {
            CaState::Open | CaState::Disorder => self.sb.lost_out > 0,
            CaState::Loss => d.lost_retransmits > 0,
            CaState::Recovery => false,
        };
        if start {
            self.enter_recovery(now, out);
        }
        start
    }
}

/// Rounded up to the millisecond (a jiffy at HZ = 1000).
pub(super) fn ceil_ms(t: SimTime) -> SimTime {
    let ms = SimTime::from_millis(1).0;
    SimTime(t.0.div_ceil(ms) * ms)
}

#[cfg(test)]
mod tests;
