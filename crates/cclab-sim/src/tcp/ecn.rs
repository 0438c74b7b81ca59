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
        // The algorithm's answer to an echo: a loss's for most, DCTCP's alpha reduction.
        self.ssthresh = self.cc.ecn_ssthresh(&v);
        self.reduce_cwnd_to(self.ssthresh.max(1.0));
        self.ecn_recover = self.sb.high();
        self.send_cwr = true;
        self.stats.ecn_reductions += 1;
    }

    /// Whether a loss found now reduces the window, and with ECN on, the window it starts:
    /// a loss of data sent before the last ECN reduction is not reduced for again (RFC 3168
    /// section 6.1.2: "reduced only once in response to a series of dropped and/or CE packets
    /// from a single window of data"; Linux does not start a second reduction while one is
    /// under way, tcp_enter_recovery(); ns-2 skips it after an ECN action, tcp-reno.cc
    /// `dupack_action`). A loss reduction also answers the echoes of its window, as Linux's
    /// tcp_init_cwnd_reduction() queues a CWR: later echoes up to `high` are ignored.
    pub(super) fn reduce_for_loss(&mut self) -> bool {
        if !self.cfg.ecn {
            return true;
        }
        let reduce = self.sb.una() >= self.ecn_recover;
        self.ecn_recover = self.sb.high();
        self.send_cwr = true;
        reduce
    }
}
