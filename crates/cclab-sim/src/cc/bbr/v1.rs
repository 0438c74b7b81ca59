//! BBRv1's path model and state machine (`bbr_update_model` and what it calls in
//! `tcp_bbr.c`): the bandwidth filter and round counting, gain cycling, full-pipe
//! detection, DRAIN, the min-RTT filter and PROBE_RTT, and the gains of each mode.
//! The window and the pacing rate built from the model are in `cwnd.rs`, the policer
//! detection in `lt_bw.rs`.

use super::filters::{MinRtt, Minmax};
use super::lt_bw::LtBw;
use super::*;
use crate::cc::{CaState, RateSample, SenderView};
use crate::units::{Rate, SimTime};
use rand::Rng;
use rand_pcg::Pcg64;

/// BBR's modes (`enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up sending rate rapidly to fill the pipe.
    Startup,
    /// Drain any queue created during startup.
    Drain,
    /// Discover, share bandwidth: pace around the estimated bandwidth.
    ProbeBw,
    /// Cut inflight to a minimum to probe the minimum RTT.
    ProbeRtt,
}

impl Mode {
    /// The name as `tcp_bbr.c` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "STARTUP",
            Mode::Drain => "DRAIN",
            Mode::ProbeBw => "PROBE_BW",
            Mode::ProbeRtt => "PROBE_RTT",
        }
    }
}

/// The state of `struct bbr`, with the fields of `tcp_sock` BBR writes (the window,
/// the pacing rate) kept while an ACK is processed.
#[derive(Clone, Debug)]
pub struct Bbr {
    pub cfg: BbrConfig,
    /// For the random starting phase of the gain cycle (`get_random_u32_below`).
    pub(super) rng: Pcg64,
    pub mode: Mode,
    /// Max delivery rate over `bw_rtts` rounds, packets per second (`bw`).
    pub bw: Minmax<f64>,
    /// Round trips so far (`rtt_cnt`).
    pub rtt_cnt: u64,
    /// `delivered` at which the current round ends (`next_rtt_delivered`).
    pub next_rtt_delivered: u64,
    /// When the current gain-cycle phase began (`cycle_mstamp`).
    pub cycle_mstamp: SimTime,
    pub min_rtt: MinRtt,
    /// When PROBE_RTT may end (`probe_rtt_done_stamp`); `None`: not yet at the low inflight.
    pub probe_rtt_done_stamp: Option<SimTime>,
    pub probe_rtt_round_done: bool,
    pub packet_conservation: bool,
    /// The congestion state at the previous ACK (`prev_ca_state`).
    pub prev_ca_state: CaState,
    /// The window before loss recovery or PROBE_RTT cut it (`prior_cwnd`).
    pub prior_cwnd: u64,
    /// This ACK started a new round (`round_start`).
    pub round_start: bool,
    /// Restarting after idle (`idle_restart`).
    pub idle_restart: bool,
    pub lt: LtBw,
    pub full_bw_reached: bool,
    pub full_bw_cnt: u32,
    /// The bandwidth the last round with 25 % growth reached (`full_bw`).
    pub full_bw: f64,
    /// Phase of the gain cycle (`cycle_idx`).
    pub cycle_idx: usize,
    pub has_seen_rtt: bool,
    /// Gains, `BBR_UNIT` = 256 (the kernel's own fixed-point values).
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
    /// ACK aggregation (`ack_epoch_mstamp`, `ack_epoch_acked`, `extra_acked[2]`, ...).
    pub ack_epoch_mstamp: SimTime,
    pub ack_epoch_acked: u64,
    pub extra_acked: [u64; 2],
    pub extra_acked_win_rtts: u32,
    pub extra_acked_win_idx: usize,
    /// `sk_pacing_rate`: the rate set last, wire bits per second.
    pub pacing_rate: Rate,
    /// `tcp_snd_cwnd` while an ACK is processed, packets.
    pub(super) cwnd: u64,
    /// Wire bytes per packet, for reporting the bandwidth in bits.
    pub(super) mss: u32,
    /// Mark the rate samples of what is in flight app-limited (PROBE_RTT's `tp->app_limited`).
    pub(super) mark_app_limited: bool,
}

impl Bbr {
    pub fn new(cfg: BbrConfig, rng: Pcg64) -> Self {
        Bbr {
            cfg,
            rng,
            mode: Mode::Startup,
            bw: Minmax::new(0, 0.0),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: SimTime::ZERO,
            min_rtt: MinRtt::new(None, SimTime::ZERO),
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prev_ca_state: CaState::Open,
            prior_cwnd: 0,
            round_start: false,
            idle_restart: false,
            lt: LtBw::default(),
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0.0,
            cycle_idx: 0,
            has_seen_rtt: false,
            pacing_gain: BBR_HIGH_GAIN,
            cwnd_gain: BBR_HIGH_GAIN,
            ack_epoch_mstamp: SimTime::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: Rate(0),
            cwnd: 0,
            mss: 1500,
            mark_app_limited: false,
        }
    }

    /// `bbr_init`, at the flow's start.
    pub fn init(&mut self, v: &SenderView) {
        self.prior_cwnd = 0;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = v.delivered;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt_done_stamp = None;
        self.probe_rtt_round_done = false;
        self.min_rtt = MinRtt::new((v.rtt_min > SimTime::ZERO).then_some(v.rtt_min), v.now);
        self.bw.reset(self.rtt_cnt, 0.0);
        self.has_seen_rtt = false;
        self.cwnd = crate::cc::whole_packets(v.cwnd);
        self.mss = v.mss;
        self.init_pacing_rate_from_rtt(v);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = SimTime::ZERO;
        self.cycle_idx = 0;
        self.lt.reset(v);
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = v.now;
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
        self.update_gains();
    }

    /// The max-filtered bandwidth, packets per second (`bbr_max_bw`).
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth the model uses: the policer's rate once detected (`bbr_bw`).
    pub fn bbr_bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_main`: the model, then the pacing rate and the window.
    pub fn main(&mut self, v: &SenderView, rs: &RateSample) {
        self.update_model(v, rs);
        let bw = self.bbr_bw();
        self.set_pacing_rate(v, bw, self.pacing_gain);
        self.set_cwnd(v, rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    fn update_model(&mut self, v: &SenderView, rs: &RateSample) {
        self.update_bw(v, rs);
        self.update_ack_aggregation(v, rs);
        self.update_cycle_phase(v, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(v);
        self.update_min_rtt(v, rs);
        self.update_gains();
    }

    /// `bbr_update_bw`: counts rounds by packets delivered and feeds the max filter.
    pub(super) fn update_bw(&mut self, v: &SenderView, rs: &RateSample) {
        self.round_start = false;
        let Some(interval) = rs.interval else { return }; // not a valid observation
                                                          // A round ends when a segment sent after the previous round's end is delivered.
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = v.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(v, rs);
        // A lower bound of the bottleneck rate; an app-limited sample only when it is no lower
        // than the model, as it describes the application rather than the path.
        let bw = rs.delivered as f64 / interval.secs_f64();
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(self.cfg.bw_rtts, self.rtt_cnt, bw);
        }
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, v: &SenderView) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_mstamp = v.delivered_time;
    }

    /// `bbr_is_next_cycle_phase`: a phase lasts one min_rtt; the probing phase (5/4) until
    /// inflight reaches 5/4 BDP or a loss, the draining one (3/4) until inflight is at most BDP.
    pub(super) fn is_next_cycle_phase(&self, v: &SenderView, rs: &RateSample) -> bool {
        let min_rtt = self.min_rtt.min_rtt.unwrap_or(SimTime(u64::MAX));
        let is_full_length = v.delivered_time.saturating_sub(self.cycle_mstamp) > min_rtt;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(v, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(v, bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(v, bw, BBR_UNIT)
    }

    fn update_cycle_phase(&mut self, v: &SenderView, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(v, rs) {
            self.advance_cycle_phase(v);
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than the draining one (3/4) first.
    pub(super) fn reset_probe_bw_mode(&mut self, v: &SenderView) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.gen_range(0..BBR_CYCLE_RAND);
        self.advance_cycle_phase(v);
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, v: &SenderView) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(v);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: the pipe is full once the max bandwidth grew by less than
    /// `bbr_full_bw_thresh` (25 %) for `bbr_full_bw_cnt` (3) rounds in a row.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = self.full_bw * BBR_FULL_BW_THRESH as f64 / BBR_UNIT as f64;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= BBR_FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP -> DRAIN once the pipe is full, DRAIN -> PROBE_BW once what
    /// is in the network at the next departure is at most one BDP.
    fn check_drain(&mut self, v: &SenderView) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(v, v.in_flight) <= self.inflight(v, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(v);
        }
    }

    /// `bbr_check_probe_rtt_done`: 200 ms and a round at the low inflight are over.
    pub(super) fn check_probe_rtt_done(&mut self, v: &SenderView) {
        if self.probe_rtt_done_stamp.is_none_or(|d| v.now <= d) {
            return;
        }
        self.min_rtt.stamp = v.now; // wait a while until PROBE_RTT
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode(v);
    }

    /// `bbr_update_min_rtt`: the min-RTT filter, and PROBE_RTT when it expired.
    pub(super) fn update_min_rtt(&mut self, v: &SenderView, rs: &RateSample) {
        let win = self.cfg.min_rtt_win;
        let filter_expired = self.min_rtt.expired(v.now, win);
        if let Some(rtt) = rs.rtt {
            // cclab's segments are all full-sized: no ACK is a delayed runt (`is_ack_delayed`).
            self.min_rtt.update(v.now, rtt, filter_expired, false);
        }
        if self.cfg.probe_rtt_mode > SimTime::ZERO
            && filter_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt; // dip, drain queue
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore low rate samples during this mode.
            self.mark_app_limited = true;
            // Maintain min packets in flight for max(200 ms, 1 round).
            if self.probe_rtt_done_stamp.is_none() && v.in_flight <= BBR_CWND_MIN_TARGET {
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
        // Restart after idle ends only once we process a new S/ACK for data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    pub(super) fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (BBR_HIGH_GAIN, BBR_HIGH_GAIN),
            Mode::Drain => (BBR_DRAIN_GAIN, BBR_HIGH_GAIN),
            Mode::ProbeBw => {
                let g = if self.lt.use_bw { BBR_UNIT } else { BBR_PACING_GAIN[self.cycle_idx] };
                (g, BBR_CWND_GAIN)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_save_cwnd`: the window to restore after loss recovery or PROBE_RTT.
    pub(super) fn save_cwnd(&mut self) {
        if !matches!(self.prev_ca_state, CaState::Recovery | CaState::Loss) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd; // this cwnd is good enough
        } else {
            // Loss recovery or PROBE_RTT have temporarily cut cwnd.
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_set_state`: a timeout ends the round and is a loss for the policer detection.
    pub fn set_state(&mut self, v: &SenderView, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true; // treat RTO like end of a round
            let rs = RateSample { losses: 1, ..RateSample::default() };
            self.lt_bw_sampling(v, &rs);
        }
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)` while app-limited: restarting from idle.
    pub fn restart_from_idle(&mut self, v: &SenderView) {
        self.idle_restart = true;
        self.ack_epoch_mstamp = v.now;
        self.ack_epoch_acked = 0;
        // Avoid pointless buffer overflows: pace at the estimated bw if we don't need more speed.
        if self.mode == Mode::ProbeBw {
            let bw = self.bbr_bw();
            self.set_pacing_rate(v, bw, BBR_UNIT);
        } else if self.mode == Mode::ProbeRtt {
            self.check_probe_rtt_done(v);
        }
    }
}
