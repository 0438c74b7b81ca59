//! Startup and Drain (draft-ietf-ccwg-bbr "Startup", "Drain"; Google's
//! `bbr_check_full_bw_reached`, `bbr_check_loss_too_high_in_startup`, `bbr_check_drain`),
//! and the ECN alpha (`bbr_update_ecn_alpha`), which also ends Startup.
//!
//! Startup ends on any of: (V4) a bandwidth plateau, the bandwidth sample not 25 % above
//! `full_bw` in 3 non-app-limited rounds; (V5) too much loss, at least 6 loss events
//! (`full_loss_cnt`) in a round of fast recovery and a sample whose loss rate is above
//! `loss_thresh`; too much ECN, 2 rounds (`full_ecn_cnt`) at a CE fraction of 50 % or more.
//! On loss or ECN, `inflight_hi` starts at `max(BDP, inflight_latest)`.

use super::model::{Bbr3, Mode, NO_BOUND};
use super::*;

impl Bbr3 {
    /// `bbr_update_ecn_alpha`, at a round start: (V10) `alpha = (1 - g) alpha + g x
    /// ce_ratio`, g = 1/16, `ce_ratio` the CE-marked share of what was delivered since the last
    /// update. Returns `ce_ratio` in 256ths, `None` when ECN is not in use.
    pub(super) fn update_ecn_alpha(&mut self, v: &SenderView) -> Option<u32> {
        if !self.ecn_eligible && self.cfg.ecn {
            let rtt_ok = match (self.cfg.ecn_max_rtt, self.min_rtt.min_rtt) {
                (None, _) => true,
                (Some(max), Some(m)) => m <= max,
                (Some(_), None) => false,
            };
            self.ecn_eligible = rtt_ok;
        }
        if !self.ecn_eligible {
            return None;
        }
        let delivered = v.delivered.saturating_sub(self.alpha_last_delivered);
        let delivered_ce = self.delivered_ce.saturating_sub(self.alpha_last_delivered_ce);
        if delivered == 0 {
            return None;
        }
        let ce_ratio = ((delivered_ce << BBR_SCALE) / delivered) as u32;
        let g = ECN_ALPHA_GAIN;
        let alpha = (((BBR_UNIT - g) * self.ecn_alpha) >> BBR_SCALE) + ((g * ce_ratio) >> BBR_SCALE);
        self.ecn_alpha = alpha.min(BBR_UNIT);
        self.alpha_last_delivered = v.delivered;
        self.alpha_last_delivered_ce = self.delivered_ce;
        self.check_ecn_too_high_in_startup(v, ce_ratio);
        Some(ce_ratio)
    }

    /// `bbr_check_ecn_too_high_in_startup`.
    fn check_ecn_too_high_in_startup(&mut self, v: &SenderView, ce_ratio: u32) {
        if self.full_bw_reached || !self.ecn_eligible {
            return;
        }
        if ce_ratio >= ECN_THRESH {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= FULL_ECN_CNT {
            self.handle_queue_too_high_in_startup(v);
        }
    }

    /// `bbr_handle_queue_too_high_in_startup`: the pipe is full, and what was in flight
    /// starts `inflight_hi`.
    fn handle_queue_too_high_in_startup(&mut self, v: &SenderView) {
        self.full_bw_reached = true;
        let bdp = self.inflight(v, self.max_bw(), BBR_UNIT);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// (V5) `bbr_check_loss_too_high_in_startup`, checked at the end of each round of fast
    /// recovery in Startup, when the extent of the loss is known.
    pub(super) fn check_loss_too_high_in_startup(&mut self, v: &SenderView, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if self.loss_round_start
            && v.state == CaState::Recovery
            && self.loss_events_in_round >= FULL_LOSS_CNT
            && self.is_inflight_too_high(rs)
        {
            self.handle_queue_too_high_in_startup(v);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// (V4) `bbr_check_full_bw_reached`: a sample 25 % above `full_bw` restarts the count;
    /// 3 round starts without one is a plateau (`full_bw_now`), which also fills the pipe.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        let thresh = self.full_bw * FULL_BW_THRESH as f64 / BBR_UNIT as f64;
        if sample_bw >= thresh {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// `bbr_check_drain`: Startup -> Drain once the pipe is full; Drain -> ProbeBW_DOWN once
    /// what is in the network at the next departure is at most the BDP.
    pub(super) fn check_drain(&mut self, v: &SenderView) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(v, v.in_flight) <= self.inflight(v, self.max_bw(), BBR_UNIT)
        {
            self.mode = Mode::ProbeBw;
            self.start_bw_probe_down(v);
        }
    }

    /// Whether `inflight_hi` is set (a loss or ECN signal was seen while probing).
    pub fn has_inflight_hi(&self) -> bool {
        self.inflight_hi != NO_BOUND
    }
}
