//! BBRv1's long-term bandwidth sampling (`bbr_lt_bw_sampling` in `tcp_bbr.c`): a token-bucket
//! policer shows as two consecutive sampling intervals, each of at least
//! `bbr_lt_intvl_min_rtts` (4) rounds and ending in a loss, with a loss rate of at least
//! `bbr_lt_loss_thresh` (50/256, 20 %) and delivery rates within `bbr_lt_bw_ratio` (1/8) or
//! `bbr_lt_bw_diff` (4 kbit/s) of each other. BBR then paces at their average (`lt_bw`,
//! gain 1) for `bbr_lt_bw_max_rtts` (48) rounds before probing again.
//!
//! The kernel keeps the interval's start in milliseconds (`lt_last_stamp`) and waits for
//! intervals of at least 1 ms; here the start is exact, and the 1 ms minimum stays.

use super::v1::{Bbr, Mode};
use super::*;
use crate::cc::{RateSample, SenderView};
use crate::units::SimTime;

/// The sampler's state (`lt_*` fields of `struct bbr`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LtBw {
    /// Sampling an interval (after the first loss).
    pub is_sampling: bool,
    /// Rounds in the interval, or rounds of using `bw` (`lt_rtt_cnt`).
    pub rtt_cnt: u32,
    /// Pacing at `bw` because a policer was detected (`lt_use_bw`).
    pub use_bw: bool,
    /// The previous interval's delivery rate, or the policed rate in use; packets per second.
    pub bw: f64,
    /// `delivered`, `lost` and the time at the interval's start.
    pub last_delivered: u64,
    pub last_lost: u64,
    pub last_stamp: SimTime,
}

impl LtBw {
    /// Starts a new interval (`bbr_reset_lt_bw_sampling_interval`).
    pub fn reset_interval(&mut self, v: &SenderView) {
        self.last_stamp = v.delivered_time;
        self.last_delivered = v.delivered;
        self.last_lost = v.lost;
        self.rtt_cnt = 0;
    }

    /// Forgets everything (`bbr_reset_lt_bw_sampling`).
    pub fn reset(&mut self, v: &SenderView) {
        self.bw = 0.0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(v);
    }
}

impl Bbr {
    /// `bbr_lt_bw_interval_done`: an interval of rate `bw` ended; a policer if it matches the
    /// previous one.
    fn lt_bw_interval_done(&mut self, v: &SenderView, bw: f64) {
        if self.lt.bw > 0.0 {
            let diff = (bw - self.lt.bw).abs();
            let close = diff * BBR_UNIT as f64 <= (BBR_LT_BW_RATIO * self.lt.bw)
                || self.rate_bps(v, diff, BBR_UNIT).0 <= BBR_LT_BW_DIFF_BPS;
            if close {
                // All criteria are met: estimate we are policed.
                self.lt.bw = (bw + self.lt.bw) / 2.0;
                self.lt.use_bw = true;
                self.pacing_gain = BBR_UNIT; // try to avoid drops
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.lt.reset_interval(v);
    }

    /// `bbr_lt_bw_sampling`, on every valid rate sample and at a timeout.
    pub(super) fn lt_bw_sampling(&mut self, v: &SenderView, rs: &RateSample) {
        if !self.cfg.lt_bw {
            return;
        }
        if self.lt.use_bw {
            // Already using the long-term rate: for bbr_lt_bw_max_rtts rounds of PROBE_BW.
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= BBR_LT_BW_MAX_RTTS {
                    self.lt.reset(v); // stop using lt_bw
                    self.reset_probe_bw_mode(v); // restart gain cycling
                }
            }
            return;
        }
        // Wait for the first loss before sampling, to let the policer exhaust its tokens.
        if !self.lt.is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.lt.reset_interval(v);
            self.lt.is_sampling = true;
        }
        // To avoid underestimates, reset sampling if we run out of data.
        if rs.is_app_limited {
            self.lt.reset(v);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1; // count round trips in this interval
        }
        if self.lt.rtt_cnt < BBR_LT_INTVL_MIN_RTTS {
            return; // sampling interval needs to be longer
        }
        if self.lt.rtt_cnt > 4 * BBR_LT_INTVL_MIN_RTTS {
            self.lt.reset(v); // interval is too long
            return;
        }
        // End the interval at a loss, when the policer's tokens are presumably exhausted.
        if rs.losses == 0 {
            return;
        }
        let lost = v.lost - self.lt.last_lost;
        let delivered = v.delivered - self.lt.last_delivered;
        // Is the loss rate (lost / delivered) at least bbr_lt_loss_thresh? If not, wait.
        if delivered == 0 || (lost << BBR_SCALE) < BBR_LT_LOSS_THRESH * delivered {
            return;
        }
        let t = v.delivered_time.saturating_sub(self.lt.last_stamp);
        if t < SimTime::from_millis(1) {
            return; // interval is less than one ms, so wait
        }
        self.lt_bw_interval_done(v, delivered as f64 / t.secs_f64());
    }
}
