//! BBRv1's outputs from its model (`tcp_bbr.c`): the pacing rate, the BDP-based window
//! target with its quantization budget and ACK-aggregation allowance, and the window in
//! loss recovery (packet conservation, then the window saved before it).

use super::v1::{Bbr, Mode};
use super::*;
use crate::cc::{CaState, RateSample, SenderView};
use crate::units::{Rate, SimTime};

impl Bbr {
    /// `bbr_rate_bytes_per_sec` in wire bits: `bw` (packets per second) x `gain` less the
    /// pacing margin (`bbr_pacing_margin_percent`, 1 %), rounded down to a bit per second.
    pub fn rate_bps(&self, v: &SenderView, bw: f64, gain: u32) -> Rate {
        let pps = bw * gain as f64 / BBR_UNIT as f64 * (100 - self.cfg.pacing_margin_percent) as f64 / 100.0;
        Rate((pps * v.mss as f64 * 8.0).min(u64::MAX as f64) as u64)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain x cwnd / RTT, with a nominal 1 ms before any
    /// RTT sample.
    pub(super) fn init_pacing_rate_from_rtt(&mut self, v: &SenderView) {
        let rtt = if v.srtt > SimTime::ZERO {
            self.has_seen_rtt = true;
            v.srtt.max(SimTime::from_micros(1))
        } else {
            SimTime::from_millis(1)
        };
        let bw = self.cwnd as f64 / rtt.secs_f64();
        self.pacing_rate = self.rate_bps(v, bw, BBR_HIGH_GAIN);
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

    /// `bbr_tso_segs_goal`: the segments of one TSO burst, about 1 ms at the pacing rate
    /// (`sk_pacing_shift` 10), at most a 64 KB GSO packet, at least `bbr_min_tso_segs`.
    pub fn tso_segs_goal(&self, v: &SenderView) -> u64 {
        let bytes_per_sec = self.pacing_rate.0 / 8;
        let min_tso_segs = if bytes_per_sec < BBR_MIN_TSO_RATE / 8 { 1 } else { 2 };
        let bytes = (bytes_per_sec >> SK_PACING_SHIFT).min(GSO_MAX_BYTES);
        (bytes / v.mss.max(1) as u64).max(min_tso_segs).min(0x7f)
    }

    /// `bbr_bdp`: `bw x min_rtt x gain` rounded up to whole packets (to avoid a negative
    /// feedback loop); the initial window before any RTT sample.
    pub fn bdp(&self, bw: f64, gain: u32) -> u64 {
        let Some(min_rtt) = self.min_rtt.min_rtt else { return TCP_INIT_CWND };
        let w = bw * min_rtt.secs_f64() * gain as f64 / BBR_UNIT as f64;
        w.ceil().min(u32::MAX as f64) as u64
    }

    /// `bbr_quantization_budget`: room for 3 TSO bursts, an even window (fewer delayed
    /// ACKs), and 2 more packets in the probing phase so that small BDPs probe too.
    pub fn quantization_budget(&self, v: &SenderView, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.cfg.tso_segs.unwrap_or_else(|| self.tso_segs_goal(v));
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`: the BDP at `gain` with the quantization budget.
    pub fn inflight(&self, v: &SenderView, bw: f64, gain: u32) -> u64 {
        let bdp = self.bdp(bw, gain);
        self.quantization_budget(v, bdp)
    }

    /// `bbr_packets_in_net_at_edt`: what will still be in the network when the next paced
    /// segment leaves (its earliest departure time): `inflight_now` less what the bottleneck
    /// delivers until then, plus that segment's burst when probing.
    pub fn packets_in_net_at_edt(&self, v: &SenderView, inflight_now: u64) -> u64 {
        let edt = v.next_tx_time.max(v.now);
        let interval = edt.saturating_sub(v.now);
        // The kernel counts whole microseconds and whole packets.
        let interval_us = interval.0 / 1_000_000;
        let interval_delivered = (self.bbr_bw() * interval_us as f64 / 1e6) as u64;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.cfg.tso_segs.unwrap_or_else(|| self.tso_segs_goal(v));
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_update_ack_aggregation`: the largest excess of ACKed packets over what the
    /// bandwidth model expects within an ACK epoch, over the last `bbr_extra_acked_win_rtts`.
    pub(super) fn update_ack_aggregation(&mut self, v: &SenderView, rs: &RateSample) {
        if self.cfg.extra_acked_gain == 0 || rs.acked_sacked == 0 || rs.interval.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= BBR_EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        // Packets expected to be delivered over the epoch.
        let epoch = v.delivered_time.saturating_sub(self.ack_epoch_mstamp);
        let epoch_us = epoch.0 / 1_000_000;
        let mut expected_acked = (self.bbr_bw() * epoch_us as f64 / 1e6) as u64;
        // Reset the epoch if the ACK rate is below the expected rate, or after very many ACKs.
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked + rs.acked_sacked >= BBR_ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = v.delivered_time;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra_acked = (self.ack_epoch_acked - expected_acked).min(self.cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra_acked);
    }

    /// `bbr_ack_aggregation_cwnd`: the window allowance for aggregation, at most 100 ms of bw.
    pub fn ack_aggregation_cwnd(&self) -> u64 {
        if self.cfg.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd = (self.bbr_bw() * BBR_EXTRA_ACKED_MAX_US as f64 / 1e6) as u64;
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        let aggr_cwnd = self.cfg.extra_acked_gain as u64 * extra / BBR_UNIT as u64;
        aggr_cwnd.min(max_aggr_cwnd)
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: take the losses off the window; on entering
    /// recovery hold it at what is in flight plus what this ACK delivered (packet
    /// conservation) for a round; on leaving recovery restore the window saved before it.
    /// Returns the window, and whether packet conservation decides it.
    fn set_cwnd_to_recover_or_restore(&mut self, v: &SenderView, rs: &RateSample, acked: u64) -> (u64, bool) {
        let (prev_state, state) = (self.prev_ca_state, v.state);
        let in_recovery = |s: CaState| matches!(s, CaState::Recovery | CaState::Loss);
        let mut cwnd = self.cwnd;
        // An ACK for P packets should release at most 2 P packets: first deduct the lost
        // ones here, then slow-start towards the target in set_cwnd.
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // Starting the first round of recovery: packet conservation.
            self.packet_conservation = true;
            self.next_rtt_delivered = v.delivered; // start round now
                                                   // Cut unused cwnd from app behavior, TSQ, or TSO deferral.
            cwnd = v.in_flight + acked;
        } else if in_recovery(prev_state) && !in_recovery(state) {
            // Exiting loss recovery: restore the cwnd saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(v.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow-start towards `cwnd_gain` x BDP plus the allowances, never below
    /// `bbr_cwnd_min_target`; at most that target in PROBE_RTT.
    pub(super) fn set_cwnd(&mut self, v: &SenderView, rs: &RateSample, acked: u64, bw: f64, gain: u32) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(v, rs, acked);
            cwnd = c;
            if !conserving {
                let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(v, target);
                if self.full_bw_reached {
                    // Only cut cwnd once the pipe was filled.
                    cwnd = cwnd.saturating_add(acked).min(target);
                } else if cwnd < target || v.delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(BBR_CWND_MIN_TARGET);
            }
        }
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            // Drain the queue, refresh min_rtt.
            self.cwnd = self.cwnd.min(BBR_CWND_MIN_TARGET);
        }
    }
}
