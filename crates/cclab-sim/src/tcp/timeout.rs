//! The retransmission timeout (RFC 6298 (5.4)-(5.7)) and what each stack does to
//! ssthresh and the scoreboard when it fires.

use super::recovery::Recovery;
use super::sender::Sender;
use crate::cc::{CaState, CwndEvent, SenderView};
use crate::packet::Packet;
use crate::units::SimTime;

impl Sender {
    /// The retransmission timer fired (RFC 6298 (5.4)–(5.7)).
    pub fn on_rto(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        if self.sb.high() == self.sb.una() {
            return;
        }
        self.stats.timeouts += 1;
        // Outside recovery with data of an ECN-reduced window still unacknowledged, ssthresh
        // was cut within the last round trip: not again (RFC 3168 section 6.1.2; ns-2's
        // timeout() "in recovery from a recent ECN", Linux's tcp_enter_loss() in CWR).
        let ecn_cut =
            self.cfg.ecn && matches!(self.state, CaState::Open | CaState::Disorder) && self.sb.una() < self.ecn_recover;
        if let Some(cwnd) = self.cfg.stack.rto_ssthresh_from(self.state, self.cwnd, self.ssthresh).filter(|_| !ecn_cut)
        {
            let v = SenderView { cwnd, ..self.view(now) };
            self.ssthresh = self.cc.ssthresh(&v);
        }
        let v = self.view(now);
        self.cc.cwnd_event(&v, CwndEvent::Timeout);
        self.cwnd = 1.0; // the loss window, RFC 5681
        self.recover = self.sb.high();
        self.dupacks = 0;
        self.set_state(now, CaState::Loss);
        self.rtt.on_timeout();
        self.rtx_pending = None; // everything outstanding is resent from snd_una
        self.prr = None;
        self.probe = None;
        match self.cfg.recovery {
            Recovery::Sack if self.sack1_on() => self.on_rto_sack1(), // sack_ns2.rs
            Recovery::Sack if self.rack_on() => self.sb.rack_mark_timeout_lost(now), // rack.rs
            Recovery::Sack => self.sb.mark_all_lost(),
            _ => self.snd_nxt = self.sb.una(),
        }
        self.send(now, out);
    }
}
