//! The tail loss probe (RFC 8985 section 7) as Linux sends it (net/ipv4/tcp_output.c
//! `tcp_schedule_loss_probe()`, `tcp_send_loss_probe()`; tcp_input.c `tcp_process_tlp_ack()`).
//!
//! When the last segments of a flight are lost, no later segment is delivered for RACK
//! (rack.rs) to time them against, and without a probe only the retransmission timeout
//! would find them. In Open, after about two SRTTs without an ACK, the sender sends one
//! segment (new data if the receiver's window has room, else the highest outstanding
//! segment again); its ACK's SACK lets RACK find the rest. When the probe was a
//! retransmission and the ACK then covers more than was sent before it, a segment was
//! lost: the window is reduced once, as for an ECN echo. Linux also tells from a DSACK
//! that the probe was needless; cclab's receivers send no DSACK, so an ACK that delivers
//! nothing new is taken as that sign, as Linux takes a pure duplicate ACK.

use super::rack::ceil_ms;
use super::sender::{Sender, Timer};
use crate::cc::CaState;
use crate::packet::Packet;
use crate::units::SimTime;

/// Linux's `TCP_TIMEOUT_MIN_US`, added to the probe timeout when more than one segment is out.
const TIMEOUT_MIN: SimTime = SimTime::from_millis(2);

/// A probe in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// snd_nxt after the probe (`tlp_high_seq`).
    pub high_seq: u64,
    /// The probe resent a segment rather than sending new data (`tlp_retrans`).
    pub retransmit: bool,
}

impl Sender {
    /// Arms the probe timer instead of the RTO if the flow may probe now
    /// (`tcp_schedule_loss_probe()`); `advancing_rto`: an ACK just advanced snd_una, so the
    /// RTO it competes with counts from now, not from the first outstanding segment's send.
    pub(super) fn schedule_loss_probe(&mut self, now: SimTime, advancing_rto: bool) -> bool {
        let packets_out = self.sb.high() - self.sb.una();
        if !self.tlp_on || packets_out == 0 || self.state != CaState::Open {
            return false;
        }
        // PTO = 2 SRTT, plus the delayed-ACK allowance of the minimum RTO when one segment is
        // out (TCP_RTO_MIN), else TCP_TIMEOUT_MIN; 1 s before the first RTT sample.
        let mut pto = if self.rtt.samples > 0 {
            let srtt2 = SimTime(self.rtt.srtt().0 * 2);
            ceil_ms(srtt2 + if packets_out == 1 { self.cfg.rto.min } else { TIMEOUT_MIN })
        } else {
            SimTime::from_millis(1000)
        };
        let rto_left = if advancing_rto {
            Some(self.rtt.rto())
        } else {
            let una = self.sb.una();
            self.sb.sent_info(una).map(|(sent, _)| (sent + self.rtt.rto()).saturating_sub(now))
        };
        if let Some(left) = rto_left.filter(|l| *l > SimTime::ZERO) {
            pto = pto.min(ceil_ms(left));
        }
        self.rto_deadline = Some(now + pto);
        self.timer = Timer::LossProbe;
        true
    }

    /// The probe timer fired (`tcp_send_loss_probe()`): one probe per tail-loss episode.
    pub(super) fn on_loss_probe(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.probe.is_some() || self.sb.high() == self.sb.una() {
            self.rearm_rto_from_head(now);
            return;
        }
        let retransmit = !self.may_send_new();
        let seq = if retransmit { self.sb.high() - 1 } else { self.sb.high() };
        // Sent whatever the window says (`tcp_write_xmit(..., push_one = 2)`).
        self.xmit(seq, now, out);
        self.snd_nxt = self.snd_nxt.max(self.sb.high());
        self.probe = Some(Probe { high_seq: self.sb.high(), retransmit });
        self.stats.loss_probes += 1;
        self.arm_timer(now); // the probe cleared the pending timer: a full RTO from now
    }

    /// An ACK while a probe is out (`tcp_process_tlp_ack()`): `a` the cumulative ACK,
    /// `news` whether it acknowledged or SACKed anything new.
    pub(super) fn on_probe_ack(&mut self, a: u64, news: bool, now: SimTime) {
        let Some(p) = self.probe else { return };
        if a < p.high_seq {
            return;
        }
        if !p.retransmit {
            self.probe = None; // a probe of new data was acknowledged
        } else if a > p.high_seq {
            // The ACK covers data sent after the probe: the probe repaired a loss.
            let v = self.view(now);
            self.ssthresh = self.cc.ssthresh(&v);
            self.reduce_cwnd_to(self.ssthresh.max(1.0));
            self.probe = None;
        } else if !news {
            self.probe = None; // the original and the probe both arrived: no loss
        }
    }
}
