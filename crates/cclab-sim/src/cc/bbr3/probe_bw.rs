//! ProbeBW's cycle and the upper bound `inflight_hi` (draft-ietf-ccwg-bbr "ProbeBW";
//! Google's `bbr_update_cycle_phase`, `bbr_adapt_upper_bounds` and what they call).
//!
//! The cycle: ProbeBW_DOWN (pacing gain 0.91) until in flight is at most both the BDP and
//! `inflight_hi` less the headroom (V11), then ProbeBW_CRUISE (1.0) until it is time to probe:
//! after a random 2-3 s (`probe_wait`), or after `min(63, target inflight)` rounds plus a
//! random 0-1 (V12, Reno coexistence), whichever is first; ProbeBW_REFILL (1.0, lower bounds
//! reset) for one round; ProbeBW_UP (1.25) until in flight reaches `inflight_hi` after a
//! probe that went too high, or the bandwidth plateaus while `inflight_hi` does not limit it,
//! or the loss rate exceeds `loss_thresh` (V7); then ProbeBW_DOWN again.
//!
//! (V7) A probe whose sample loses more than `loss_thresh` of `tx_in_flight` is too high:
//! `inflight_hi = max(tx_in_flight, (1 - beta) x target inflight)`, once per probe.
//! (V8) In ProbeBW_UP, while the window is full at `inflight_hi`, it grows by 1 packet per
//! `cwnd / 2^k` packets ACKed, k the rounds so far in ProbeBW_UP: 1, 2, 4, ... per round.

use super::model::{AckPhase, Bbr3, Mode, Phase, NO_BOUND};
use super::*;
use rand::Rng;

impl Bbr3 {
    /// (V7) `bbr_is_inflight_too_high`: losses above `loss_thresh` of `tx_in_flight`, or (with
    /// ECN in use) CE marks on more than `ecn_thresh` of what was delivered.
    pub fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        if rs.lost > 0 && rs.tx_in_flight > 0 {
            let loss_thresh = (rs.tx_in_flight * self.cfg.loss_thresh as u64) >> BBR_SCALE;
            if rs.lost > loss_thresh {
                return true;
            }
        }
        if rs.delivered_ce > 0 && rs.delivered > 0 && self.ecn_eligible {
            let ecn_thresh = (rs.delivered * ECN_THRESH as u64) >> BBR_SCALE;
            if rs.delivered_ce > ecn_thresh {
                return true;
            }
        }
        false
    }

    /// `bbr_target_inflight`: the BDP, unless the window is below it.
    pub(super) fn target_inflight(&self, v: &SenderView) -> u64 {
        self.inflight(v, self.bw(), BBR_UNIT).min(self.cwnd)
    }

    /// (V11) `bbr_inflight_with_headroom`: `inflight_hi` less `headroom` (15 %) of it, at least
    /// one packet less and never below 4.
    pub fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == NO_BOUND {
            return NO_BOUND;
        }
        let headroom = ((self.inflight_hi * self.cfg.headroom as u64) >> BBR_SCALE).max(1);
        self.inflight_hi.saturating_sub(headroom).max(CWND_MIN_TARGET)
    }

    /// (V8) `bbr_raise_inflight_hi_slope`: each round of ProbeBW_UP doubles the growth.
    pub(super) fn raise_inflight_hi_slope(&mut self) {
        let growth_this_round = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd / growth_this_round).max(1);
    }

    /// (V8) `bbr_probe_inflight_hi_upward`: grow `inflight_hi` while it is what holds the
    /// window back.
    pub(super) fn probe_inflight_hi_upward(&mut self, v: &SenderView, rs: &RateSample) {
        if !v.is_cwnd_limited || self.cwnd < self.inflight_hi {
            return; // not fully using inflight_hi, so don't grow it
        }
        self.bw_probe_up_acks += rs.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// (V7) `bbr_handle_inflight_too_high`: cut `inflight_hi` once per probe, and stop probing.
    pub(super) fn handle_inflight_too_high(&mut self, v: &SenderView, rs: &RateSample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // only react once per probe
        if !rs.is_app_limited {
            let cut = (BBR_UNIT - self.cfg.beta) as u64;
            self.inflight_hi = rs.tx_in_flight.max((self.target_inflight(v) * cut) >> BBR_SCALE);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_bw_probe_down(v);
        }
    }

    /// `bbr_adapt_upper_bounds`: follow the ACKs of a probe; too much loss or ECN cuts
    /// `inflight_hi`, a safe higher in-flight level raises it. Returns whether it decided a
    /// phase change.
    pub(super) fn adapt_upper_bounds(&mut self, v: &SenderView, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The last samples of the probe: the best time to forget the previous cycle's max.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited {
                self.advance_max_bw_filter();
            }
            // A probe that reached inflight_hi without loss: probe again at once.
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_bw_probe_refill(v, 0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(v, rs);
            }
        } else {
            if self.inflight_hi == NO_BOUND {
                return false;
            }
            // Resilience to random loss: any level seen to be safe raises inflight_hi.
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(v, rs);
            }
        }
        false
    }

    /// (V12) `bbr_is_reno_coexistence_probe_time`: a Reno flow with this BDP would probe
    /// after as many rounds as its window; at most 63.
    pub(super) fn is_reno_coexistence_probe_time(&self, v: &SenderView) -> bool {
        let rounds = BW_PROBE_MAX_ROUNDS.min(self.target_inflight(v));
        self.rounds_since_probe >= rounds
    }

    /// `bbr_pick_probe_wait`: 0-1 rounds already counted, a wall-clock wait of 2-3 s.
    pub(super) fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.rng.gen_range(0..BW_PROBE_RAND_ROUNDS);
        let us = self.rng.gen_range(0..BW_PROBE_RAND_US);
        self.probe_wait = BW_PROBE_BASE + SimTime::from_micros(us);
    }

    /// `bbr_start_bw_probe_refill`: reset the lower bounds, refill the pipe for a round.
    pub(super) fn start_bw_probe_refill(&mut self, v: &SenderView, bw_probe_up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = bw_probe_up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = v.delivered;
        self.phase = Phase::Refill;
    }

    /// `bbr_start_bw_probe_up`.
    pub(super) fn start_bw_probe_up(&mut self, v: &SenderView, sample_bw: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = v.delivered;
        self.cycle_mstamp = v.now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope();
    }

    /// `bbr_start_bw_probe_down`: a new cycle, with a new random time to the next probe.
    pub(super) fn start_bw_probe_down(&mut self, v: &SenderView) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = NO_BOUND; // not growing inflight_hi any more
        self.pick_probe_wait();
        self.cycle_mstamp = v.now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = v.delivered;
        self.phase = Phase::Down;
    }

    /// `bbr_start_bw_probe_cruise`.
    pub(super) fn start_bw_probe_cruise(&mut self) {
        if self.inflight_lo != NO_BOUND {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// `bbr_check_time_to_probe_bw`: after ECN without loss, re-probe quickly with half of
    /// `inflight_hi`; else on the wall clock or the Reno-coexistence round count.
    fn check_time_to_probe_bw(&mut self, v: &SenderView) -> bool {
        if self.ecn_eligible && self.ecn_in_cycle && !self.loss_in_cycle && v.state == CaState::Open {
            let target = (self.inflight_hi.min(u32::MAX as u64) * ECN_REPROBE_GAIN as u64) >> BBR_SCALE;
            let n = target.max(1).ilog2();
            self.start_bw_probe_refill(v, n);
            return true;
        }
        let elapsed = v.now.saturating_sub(self.cycle_mstamp) > self.probe_wait;
        if elapsed || self.is_reno_coexistence_probe_time(v) {
            self.start_bw_probe_refill(v, 0);
            return true;
        }
        false
    }

    /// (V11) `bbr_check_time_to_cruise`: the queue is drained and headroom left.
    fn check_time_to_cruise(&self, v: &SenderView, inflight: u64, bw: f64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false;
        }
        inflight <= self.inflight(v, bw, BBR_UNIT)
    }

    /// `bbr_update_cycle_phase`: the upper bounds in every mode once the pipe was full, then
    /// ProbeBW's phase changes.
    pub(super) fn update_cycle_phase(&mut self, v: &SenderView, rs: &RateSample, sample_bw: f64) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(v, rs) {
            return;
        }
        if self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(v, rs.prior_in_flight);
        let bw = self.max_bw();
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(v);
            }
            Phase::Refill => {
                if self.round_start {
                    // The samples now reflect the refill, which may put too much in flight.
                    self.bw_probe_samples = true;
                    self.start_bw_probe_up(v, sample_bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if v.is_cwnd_limited && self.cwnd >= self.inflight_hi {
                    // inflight_hi is limiting growth: the plateau test restarts.
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true; // the bandwidth plateaued: the pipe looks full
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_bw_probe_down(v);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(v) {
                    return;
                }
                if self.check_time_to_cruise(v, inflight, bw) {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }
}
