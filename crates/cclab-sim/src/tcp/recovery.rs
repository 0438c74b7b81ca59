//! The three loss recoveries a flow can use, and the sender's way into and out of them
//! (fast retransmit, partial and full ACKs, duplicate ACKs); `sender.rs` holds the rest of
//! the sender and `sack_ns2.rs` ns-2's own SACK recovery.
//!
//! - `Reno` (RFC 5681, "classic" fast recovery as ns-2's `Agent/TCP/Reno`):
//!   three duplicate ACKs retransmit `snd_una` and inflate the window; the
//!   first new ACK ends recovery and deflates to `ssthresh`. As with ns-2's
//!   `bugfix_` (its default), three more duplicate ACKs do not start another
//!   fast retransmit until everything sent before the first one is
//!   acknowledged, so several losses in one window end in a retransmission
//!   timeout rather than in repeated halvings. (ns-2's `allow_fast_retransmit()`
//!   would let one through while the last window action is still the fast
//!   retransmit, but the first new ACK marks it `CWND_ACTION_EXITED`: tcp-reno.cc
//!   `recv()`.)
//! - `NewReno` (RFC 6582): recovery lasts until everything outstanding at its
//!   start is acknowledged; each partial ACK retransmits the next hole and
//!   deflates the window by the amount acknowledged (step 3 of section 3.2).
//!   The retransmission timer is reset on the first partial ACK only (the
//!   RFC's recommended "Impatient" variant); on a full ACK, cwnd = ssthresh
//!   (option 2 of step 3, as ns-2 does).
//! - `Sack` (RFC 6675): the receiver reports up to three SACK blocks; in
//!   recovery the sender keeps `pipe < cwnd` and sends first the holes that
//!   `IsLost` marks, then new data (NextSeg rules 1 and 2; rules 3 and 4, the
//!   rescue retransmissions, are not implemented, as in ns-2's `Sack1`).

use super::prr::Prr;
use super::sender::Sender;
use crate::cc::{CaState, CwndEvent};
use crate::packet::Packet;
use crate::units::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    Reno,
    NewReno,
    Sack,
}

impl Recovery {
    pub const NAMES: &'static str = "reno, newreno, sack";

    pub fn parse(s: &str) -> Option<Recovery> {
        match s {
            "reno" => Some(Recovery::Reno),
            "newreno" => Some(Recovery::NewReno),
            "sack" => Some(Recovery::Sack),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

impl Sender {
    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let v = self.view(now);
        if self.reduce_for_loss() {
            self.ssthresh = self.cc.ssthresh(&v);
        }
        self.recover = self.sb.high();
        self.partial_acks = 0;
        self.stats.fast_retransmits += 1;
        self.set_state(now, CaState::Recovery);
        self.probe = None; // tcp_init_cwnd_reduction() ends a probe episode
        let una = self.sb.una();
        if self.cfg.stack.prr && self.cfg.recovery == Recovery::Sack {
            // Linux: the window is set for this ACK first (on_ack), then the head goes out.
            self.prr = Some(Prr::start(self.cwnd));
        }
        // Under RACK the losses are marked already (Linux enters recovery without marking the
        // head, tcp_enter_recovery()); the pipe-driven send after the ACK resends them.
        if !self.rack_on() {
            self.sb.mark_lost_one(una);
            if self.prr.is_none() {
                // RFC 5681 step 2-3, RFC 6582 step 2, RFC 6675 (4.3): retransmit the first lost
                // segment now.
                self.xmit_or_hold(una, now, out);
            }
        }
        if self.cfg.stack.rearm_on_fast_retransmit {
            self.arm_timer(now); // ns-2 `reset_rtx_timer(1, 0)`; Linux re-arms on resending the head
        }
        let w = match self.cfg.recovery {
            Recovery::Sack => self.ssthresh,
            // Inflate by the segments that left the network (the duplicate ACKs).
            _ => self.ssthresh + self.cfg.dupthresh as f64,
        };
        self.reduce_cwnd_to(w);
    }

    /// The window a loss response sets: the reduction's own (ssthresh, its inflation), except
    /// for an algorithm that sets the window itself from rate samples (`cong_control`): Linux
    /// skips its reduction for those (tcp_cwnd_reduction, tcp_end_cwnd_reduction) and the
    /// algorithm's `ssthresh` may be infinite (BBR's is), which must not become the window
    /// (`tcp::CONG_CONTROL_VERSION` 1).
    pub(super) fn reduce_cwnd_to(&mut self, w: f64) {
        if !self.rate_samples {
            self.cwnd = w;
        }
    }

    pub(super) fn exit_recovery(&mut self, now: SimTime) {
        self.reduce_cwnd_to(self.ssthresh);
        self.prr = None;
        self.set_state(now, CaState::Open);
        let v = self.view(now);
        self.cc.cwnd_event(&v, CwndEvent::RecoveryEnd);
    }

    /// `fresh`: the newly acknowledged segments that had not been SACKed before.
    /// Returns the packets `cong_avoid` may count when the ACK allows window growth.
    pub(super) fn on_new_ack(
        &mut self,
        a: u64,
        newly_acked: u64,
        fresh: u64,
        now: SimTime,
        out: &mut Vec<Packet>,
    ) -> Option<u32> {
        self.dupacks = 0;
        let mut restart_timer = true;
        let mut avoid = None;
        match self.state {
            CaState::Recovery => match self.cfg.recovery {
                Recovery::Reno => self.exit_recovery(now),
                _ if a >= self.recover => self.exit_recovery(now),
                Recovery::NewReno => {
                    // RFC 6582 3.2 step 5: retransmit the next hole, deflate by what was acknowledged.
                    self.xmit_or_hold(a, now, out);
                    self.cwnd = (self.cwnd - newly_acked as f64 + 1.0).max(1.0);
                    self.partial_acks += 1;
                    restart_timer = self.partial_acks == 1;
                }
                Recovery::Sack => {}
            },
            CaState::Loss | CaState::Open | CaState::Disorder => {
                if self.state == CaState::Loss {
                    if a >= self.recover {
                        self.set_state(now, CaState::Open);
                    }
                } else {
                    self.set_state(now, CaState::Open);
                }
                // Segments SACKed earlier are not counted again, and at most L per ACK
                // for cclab (RFC 3465, L = 2): a cumulative ACK that jumps over a
                // repaired hole must not open the window by thousands (the stack's
                // counting, StackProfile::counted). Applied after recovery and the
                // timer, by `cong_control`.
                avoid = Some(self.cfg.stack.counted(fresh));
            }
        }
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        if self.sb.high() == self.sb.una() {
            self.rto_deadline = None;
        } else if restart_timer {
            self.arm_timer(now);
        }
        avoid
    }

    pub(super) fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.dupacks += 1;
        match self.state {
            CaState::Open | CaState::Disorder => {
                let una = self.sb.una();
                let trigger = match self.cfg.recovery {
                    // Under RACK a loss it found starts recovery (rack.rs `rack_recover`).
                    Recovery::Sack if self.rack_on() => false,
                    Recovery::Sack => self.dupacks >= self.cfg.dupthresh || self.sb.is_lost(una),
                    _ => self.dupacks == self.cfg.dupthresh,
                };
                // Not again for the same window (StackProfile::may_recover).
                let allowed = self.cfg.stack.may_recover(una, self.recover);
                if trigger && allowed {
                    self.enter_recovery(now, out);
                } else {
                    self.set_state(now, CaState::Disorder);
                }
            }
            CaState::Recovery => {
                if self.cfg.recovery != Recovery::Sack {
                    self.cwnd += 1.0; // RFC 5681 step 4: each duplicate ACK is a packet that left
                }
            }
            CaState::Loss => {}
        }
    }
}
