//! BBRv3's outputs (draft-ietf-ccwg-bbr "Pacing Rate", "cwnd"; Google's `bbr_set_pacing_rate`,
//! `bbr_set_cwnd`, `bbr_bound_cwnd_for_inflight_model`): the pacing rate, the BDP-based window
//! with its quantization budget and ACK-aggregation allowance, and the caps of the inflight
//! model (V15): `inflight_hi` while probing in ProbeBW, the headroom below it in
//! ProbeBW_CRUISE and ProbeRTT, `inflight_lo` always.

use super::model::{Bbr3, Mode, Phase, NO_BOUND};
use super::*;
use crate::units::Rate;

impl Bbr3 {
    /// Pacing rate in wire bits per second: `bw x gain x (1 - 1 %)` (`bbr_bw_to_pacing_rate`,
    /// `bbr_pacing_margin_percent`).
    pub fn rate_bps(&self, v: &SenderView, bw: f64, gain: u32) -> Rate {
        let pps = bw * gain as f64 / BBR_UNIT as f64 * 99.0 / 100.0;
        Rate((pps * v.mss as f64 * 8.0).min(u64::MAX as f64) as u64)
    }

    /// `bbr_init_pacing_rate_from_rtt`: startup gain x cwnd / RTT (1 ms before any sample).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, v: &SenderView) {
        let rtt = if v.srtt > SimTime::ZERO {
            self.has_seen_rtt = true;
            v.srtt.max(SimTime::from_micros(1))
        } else {
            SimTime::from_millis(1)
        };
        self.pacing_rate = self.rate_bps(v, self.cwnd as f64 / rtt.secs_f64(), STARTUP_PACING_GAIN);
    }

    /// `bbr_set_pacing_rate`: before the pipe is full the rate only grows.
    pub(super) fn set_pacing_rate(&mut self, v: &SenderView, bw: f64, gain: u32) {
        let rate = self.rate_bps(v, bw, gain);
        if !self.has_seen_rtt && v.srtt > SimTime::ZERO {
            self.init_pacing_rate_from_rtt(v);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_goal` of v3: about 1 ms at the pacing rate plus 64 KB halved for every
    /// 512 us of min RTT, at most one GSO packet, at least 2 segments.
    pub fn tso_segs_goal(&self, v: &SenderView) -> u64 {
        if let Some(n) = self.cfg.tso_segs {
            return n;
        }
        let mut bytes = (self.pacing_rate.0 / 8) >> crate::cc::bbr::SK_PACING_SHIFT;
        let min_rtt_us = self.min_rtt.min_rtt.map_or(u64::from(u32::MAX), |m| m.0 / 1_000_000);
        let r = min_rtt_us >> TSO_RTT_SHIFT;
        if r < 32 {
            bytes += 65536 >> r;
        }
        let bytes = bytes.min(crate::cc::bbr::GSO_MAX_BYTES);
        (bytes / v.mss.max(1) as u64).max(MIN_TSO_SEGS)
    }

    /// `bbr_bdp`: `bw x min_rtt x gain`, rounded up; the initial window before any RTT sample.
    pub fn bdp(&self, bw: f64, gain: u32) -> u64 {
        let Some(min_rtt) = self.min_rtt.min_rtt else { return self.init_cwnd };
        let w = bw * min_rtt.secs_f64() * gain as f64 / BBR_UNIT as f64;
        w.ceil().min(u32::MAX as f64) as u64
    }

    /// `bbr_quantization_budget` of v3: at least 3 TSO bursts and 4 packets, 2 more in
    /// ProbeBW_UP so that small BDPs probe too.
    pub fn quantization_budget(&self, v: &SenderView, cwnd: u64) -> u64 {
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal(v)).max(CWND_MIN_TARGET);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`: the BDP at `gain` with the quantization budget.
    pub fn inflight(&self, v: &SenderView, bw: f64, gain: u32) -> u64 {
        let bdp = self.bdp(bw, gain);
        self.quantization_budget(v, bdp)
    }

    /// `bbr_packets_in_net_at_edt`, as v1.
    pub fn packets_in_net_at_edt(&self, v: &SenderView, inflight_now: u64) -> u64 {
        let interval_us = v.next_tx_time.max(v.now).saturating_sub(v.now).0 / 1_000_000;
        let interval_delivered = (self.bw() * interval_us as f64 / 1e6) as u64;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal(v);
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_update_ack_aggregation`, as v1 but with a 1-round window before the pipe is full.
    pub(super) fn update_ack_aggregation(&mut self, v: &SenderView, rs: &RateSample) {
        if rs.acked_sacked == 0 || rs.interval.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            let thresh = if self.full_bw_reached { EXTRA_ACKED_WIN_RTTS } else { 1 };
            if self.extra_acked_win_rtts >= thresh {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = v.delivered_time.saturating_sub(self.ack_epoch_mstamp).0 / 1_000_000;
        let mut expected_acked = (self.bw() * epoch_us as f64 / 1e6) as u64;
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = v.delivered_time;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked - expected_acked).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// `bbr_ack_aggregation_cwnd`: at most 100 ms at `bw`.
    pub fn ack_aggregation_cwnd(&self) -> u64 {
        let max_aggr = (self.bw() * EXTRA_ACKED_MAX_US as f64 / 1e6) as u64;
        self.extra_acked[0].max(self.extra_acked[1]).min(max_aggr)
    }

    /// `bbr_set_cwnd`: towards `cwnd_gain x BDP` + the allowances; in ProbeRTT at most
    /// `probe_rtt_cwnd`. No packet conservation (v1's recovery): the bounds answer loss.
    pub(super) fn set_cwnd(&mut self, v: &SenderView, acked: u64, bw: f64, gain: u32) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
            let target = self.quantization_budget(v, target);
            if self.full_bw_reached {
                cwnd = cwnd.saturating_add(acked).min(target);
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// (V15) `bbr_bound_cwnd_for_inflight_model`.
    pub(super) fn bound_cwnd_for_inflight_model(&mut self) {
        let mut cap = NO_BOUND;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi; // probe to see if more fits
        } else if self.mode == Mode::ProbeRtt || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(CWND_MIN_TARGET);
        self.cwnd = self.cwnd.min(cap);
    }
}
