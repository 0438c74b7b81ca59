//! BBR.min_rtt and ProbeRTT (draft-ietf-ccwg-bbr "ProbeRTT"; Google's `bbr_update_min_rtt`).
//!
//! Two min-RTT filters: `probe_rtt_min` over ProbeRTTInterval (5 s) and `BBR.min_rtt` over
//! MinRTTFilterLen (10 s), which takes the first whenever it is no larger or itself expired
//! (V13). When `probe_rtt_min` goes 5 s without a lower sample, the flow enters ProbeRTT and
//! holds the window at `max(4, 0.5 x BDP)` (V14) for 200 ms and a round, then goes back to
//! ProbeBW (at ProbeBW_CRUISE, the lower bounds reset) or Startup.

use super::model::{AckPhase, Bbr3, Mode};
use super::*;

impl Bbr3 {
    /// (V13) `bbr_update_min_rtt`, and ProbeRTT's entry and exit.
    pub(super) fn update_min_rtt(&mut self, v: &SenderView, rs: &RateSample) {
        let probe_rtt_expired = self.probe_rtt_min.expired(v.now, self.cfg.probe_rtt_win);
        if let Some(rtt) = rs.rtt {
            // Every segment is full-sized: no ACK is a delayed runt (`is_ack_delayed`).
            self.probe_rtt_min.update(v.now, rtt, probe_rtt_expired, false);
        }
        let min_rtt_expired = self.min_rtt.expired(v.now, self.cfg.min_rtt_win);
        if let Some(p) = self.probe_rtt_min.min_rtt {
            if self.min_rtt.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt.min_rtt = Some(p);
                self.min_rtt.stamp = self.probe_rtt_min.stamp;
            }
        }
        if self.cfg.probe_rtt_mode > SimTime::ZERO
            && probe_rtt_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt; // dip, drain queue
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = v.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low rate samples during this mode.
            self.mark_app_limited = true;
            if self.probe_rtt_done_stamp.is_none() && v.in_flight <= self.probe_rtt_cwnd() {
                self.probe_rtt_done_stamp = Some(v.now + self.cfg.probe_rtt_mode);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = v.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(v);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// (V14) `bbr_probe_rtt_cwnd`: half the BDP, at least 4 packets.
    pub fn probe_rtt_cwnd(&self) -> u64 {
        CWND_MIN_TARGET.max(self.bdp(self.bw(), PROBE_RTT_CWND_GAIN))
    }

    /// `bbr_check_probe_rtt_done`: 200 ms and a round at the low window are over.
    pub(super) fn check_probe_rtt_done(&mut self, v: &SenderView) {
        if self.probe_rtt_done_stamp.is_none_or(|d| v.now <= d) {
            return;
        }
        self.probe_rtt_min.stamp = v.now; // schedule the next ProbeRTT
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(v);
    }

    /// `bbr_exit_probe_rtt`: inflight is below the BDP, so cruise, with a new probe time.
    fn exit_probe_rtt(&mut self, v: &SenderView) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(v);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
}
