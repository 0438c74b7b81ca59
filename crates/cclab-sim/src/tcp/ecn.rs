//! The sender's reaction to an ECN echo (RFC 3168 section 6.1.2).

use super::sender::Sender;
use crate::cc::CaState;
use crate::units::SimTime;

impl Sender {
    /// An ECN echo: reduce as for a loss, without retransmitting, at most once per window
    /// and not during loss recovery (RFC 3168 section 6.1.2).
    /// `ecn_recover = 0` before the first reduction, so the first echo always counts.
    pub(super) fn on_ecn_echo(&mut self, ack: u64, now: SimTime) {
        // Not again until data sent after the last reduction (from `ecn_recover` on, the
        // first carrying CWR) is acknowledged.
        if !self.cfg.ecn || !matches!(self.state, CaState::Open | CaState::Disorder) || ack <= self.ecn_recover {
            return;
        }
        let v = self.view(now);
        self.ssthresh = self.cc.ssthresh(&v);
        self.cwnd = self.ssthresh.max(1.0);
        self.ecn_recover = self.sb.high();
        self.send_cwr = true;
        self.stats.ecn_reductions += 1;
    }
}
