//! ns-2.35's SACK sender, `Agent/TCP/Sack1` (tcp/tcp-sack1.cc, with the reassembly-queue
//! scoreboard of tcp/scoreboard-rq.cc that it builds), for flows with `recovery = "sack"`
//! under a profile whose `sack_flavour` is `Ns2Sack1`. Where it departs from RFC 6675 (the
//! default, sender.rs and scoreboard.rs):
//!
//! - `pipe` is counted, not computed from the scoreboard. At the fast retransmit it is the
//!   outstanding data less the duplicate-ACK threshold (`dupack_action`; ns-2's
//!   `LimTransmitFix_` is off by default), and the fast retransmission is not counted; every
//!   ACK during recovery takes one off, a partial ACK one more (`partial_ack_` is off by
//!   default), and every segment `send_much` sends adds one.
//! - During recovery any hole below the highest SACKed segment is resent, each once, in
//!   sequence order (`GetNextRetran` walks up from `h_seqno_`, which `MarkRetran` moves past
//!   each retransmission); then new data, limited by the receiver's window only.
//! - The scoreboard is forgotten on every new ACK outside recovery, at the end of recovery
//!   and at a timeout (`ClearScoreBoard`). So after a timeout the window resends everything
//!   from snd_una, SACKed or not, and duplicate ACKs are ignored until a new ACK (`timeout_`).
//! - Outside recovery, the `send_much` that a delayed send's end calls (`overhead_`) resends
//!   the scoreboard's holes first while a recovery point is set (after a timeout), all of them
//!   for one free slot of the window (`send_sack1_open`).
//! - A duplicate ACK counts towards the fast retransmit only if its SACK blocks changed the
//!   scoreboard (`CheckUpdate`), and the ACK that triggers it sends nothing else (`recv` calls
//!   `send_much` outside recovery only while `dupacks_` is 0).
//! - Recovery ends on the ACK of everything outstanding at its start, without growing the
//!   window (`newack`, not `opencwnd`), and clears the recovery point (`recover_ = 0`), so the
//!   next three duplicate ACKs may start a new recovery at once. A partial ACK restarts the
//!   timer (with the backoff it had) and then clears the backoff (`newtimer`, `t_backoff_`).
//! - A hole resent during recovery does not end the RTT measurement of the segment being
//!   timed (`output()` leaves `rtt_active_` alone; only `reset_rtx_timer` clears it).

use super::profile::SackFlavour;
use super::recovery::Recovery;
use super::sender::Sender;
use crate::cc::CaState;
use crate::packet::Packet;
use crate::units::SimTime;

/// Sack1's state beside the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sack1 {
    /// ns-2 `pipe_`: segments presumed in the network during recovery.
    pub pipe: i64,
    /// ns-2 `timeout_`: set by a timeout, cleared by the next new ACK; duplicate ACKs are
    /// ignored meanwhile.
    pub timeout: bool,
    /// ns-2 `h_seqno_`: the holes below it were resent in this recovery.
    pub next_hole: u64,
    /// The fast retransmit went out on this ACK: nothing more is sent on it.
    hold: bool,
}

impl Sender {
    /// ns-2's Sack1 runs this flow's SACK recovery.
    pub(super) fn sack1_on(&self) -> bool {
        self.cfg.recovery == Recovery::Sack && self.cfg.stack.sack_flavour == SackFlavour::Ns2Sack1
    }

    /// One ACK, Sack1's way (tcp-sack1.cc `recv`), after its SACK blocks and cumulative ACK
    /// reached the scoreboard. `newly_sacked`: segments its blocks added. Returns the packets
    /// `cong_avoid` may count.
    pub(super) fn on_ack_sack1(
        &mut self,
        a: u64,
        newly_acked: u64,
        fresh: u64,
        newly_sacked: u64,
        now: SimTime,
        out: &mut Vec<Packet>,
    ) -> Option<u32> {
        if self.state == CaState::Recovery {
            self.sack1.pipe -= 1;
            if a >= self.recover {
                self.exit_recovery(now);
                self.recover = 0; // `recover_ = 0`: the next fast retransmit may come at once
                self.dupacks = 0;
                self.forget_sacks_sack1();
                self.restart_timer(now);
            } else if newly_acked > 0 {
                // A partial ACK: one more segment left the network (the retransmission).
                self.sack1.pipe -= 1;
                self.restart_timer(now);
                self.rtt.backoff = 0;
            }
            return None;
        }
        if newly_acked > 0 {
            let avoid = self.on_new_ack(a, newly_acked, fresh, now, out);
            self.forget_sacks_sack1();
            return avoid;
        }
        if self.sack1.timeout || newly_sacked == 0 {
            return None; // not a duplicate ACK to Sack1
        }
        self.dupacks += 1;
        let dupthresh = self.cfg.dupthresh;
        if self.dupacks == dupthresh {
            // `dupack_action`: with `bug_fix_`, not again before the last recovery point.
            if self.cfg.stack.may_recover(self.sb.una(), self.recover) {
                self.enter_recovery_sack1(now, out);
            }
        } else if self.dupacks < dupthresh {
            self.set_state(now, CaState::Disorder); // limited transmit (`send_one`)
        }
        None
    }

    /// tcp-sack1.cc `dupack_action`: halve, count the pipe, resend the first segment, restart
    /// the timer.
    fn enter_recovery_sack1(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let v = self.view(now);
        if self.reduce_for_loss() {
            self.ssthresh = self.cc.ssthresh(&v);
        }
        let (una, high) = (self.sb.una(), self.sb.high());
        self.recover = high;
        self.stats.fast_retransmits += 1;
        self.set_state(now, CaState::Recovery);
        self.sack1.pipe = (high - una) as i64 - i64::from(self.cfg.dupthresh);
        self.sack1.next_hole = una + 1;
        self.sack1.hold = true;
        self.xmit_or_hold(una, now, out);
        self.arm_timer(now);
        self.reduce_cwnd_to(self.ssthresh);
    }

    /// tcp-sack1.cc `send_much` during recovery: while `pipe < int(cwnd)`, the next hole
    /// below the highest SACK, else new data.
    /// `GetNextRetran`: from `h_seqno_` (at least snd_una), the first segment not SACKed, if a
    /// SACKed segment lies above it.
    fn sack1_next_hole(&self) -> Option<u64> {
        let h = self.sb.next_unsacked(self.sack1.next_hole.max(self.sb.una()));
        (h < self.sb.high_sacked).then_some(h)
    }

    pub(super) fn send_sack1(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if std::mem::take(&mut self.sack1.hold) {
            return;
        }
        let wnd = self.cwnd.floor() as i64;
        while self.sack1.pipe < wnd && !crate::budget::stop_requested() {
            let hole = self.sack1_next_hole();
            let Some(seq) = self.next_to_send(hole) else { break };
            if !self.may_leave(now) {
                break;
            }
            if hole == Some(seq) {
                self.sack1.next_hole = seq + 1; // `MarkRetran`
            }
            // ns-2's `output()` keeps timing its segment through a retransmission; only
            // `reset_rtx_timer` (the fast retransmit, a timeout) forgets it.
            let (timed, retx) = (self.timed, seq < self.sb.high());
            self.xmit(seq, now, out);
            if retx {
                self.timed = timed;
            }
            self.sack1.pipe += 1;
        }
    }

    /// tcp-sack1.cc `send_much` outside recovery, as a delayed send's end calls it: while the
    /// window has room for the next new segment (`t_seqno_ <= last_ack_ + win`), a hole that
    /// `GetNextRetran` finds goes first, once, if a recovery point is set (`recover_ > 0`:
    /// from a timeout until a recovery ends), and with none set the call stops there; without
    /// a hole, new data. A resent hole does not move `t_seqno_`, so one free slot lets every
    /// hole out. The scoreboard has holes outside recovery only after duplicate ACKs, which do
    /// not call `send_much`, and a new ACK forgets it before its own call: so this is the one
    /// call that finds them, and after a timeout it resends the holes the duplicate ACKs since
    /// the last new ACK showed, again after each new ACK (which forgets what was resent).
    pub(super) fn send_sack1_open(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let wnd = (self.cwnd as u64).max(1).min(self.cfg.rwnd);
        while self.snd_nxt < self.sb.una() + wnd && !crate::budget::stop_requested() {
            if let Some(h) = self.sack1_next_hole() {
                if self.recover == 0 || !self.may_leave(now) {
                    break;
                }
                self.sack1.next_hole = h + 1; // `MarkRetran`
                let timed = self.timed;
                self.xmit(h, now, out);
                self.timed = timed;
                self.snd_nxt = self.snd_nxt.max(h + 1);
            } else {
                if self.snd_nxt >= self.limit || !self.may_leave(now) {
                    break;
                }
                let s = self.snd_nxt;
                self.xmit(s, now, out);
                self.snd_nxt += 1;
            }
        }
    }

    /// tcp-sack1.cc `timeout`: the scoreboard is forgotten, duplicate ACKs are ignored until
    /// the next new ACK, and the window resends from snd_una (go-back-N).
    pub(super) fn on_rto_sack1(&mut self) {
        self.sb.forget_sacks();
        self.sack1.timeout = true;
        self.snd_nxt = self.sb.una();
    }

    /// `ClearScoreBoard` on a new ACK: also ends the deafness that followed a timeout.
    fn forget_sacks_sack1(&mut self) {
        self.sb.forget_sacks();
        self.sack1.timeout = false;
        self.sack1.next_hole = self.sb.una();
    }

    /// ns-2 `newtimer`: the timer runs from now while data is outstanding.
    fn restart_timer(&mut self, now: SimTime) {
        if self.sb.high() == self.sb.una() {
            self.rto_deadline = None;
        } else {
            self.arm_timer(now);
        }
    }
}
