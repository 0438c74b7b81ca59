//! BBRv3's state and path model (draft-ietf-ccwg-bbr sections "Network Path Model" and
//! "Updating the Model Upon Packet Loss"; Google's `bbr_main`, `bbr_update_model` and the
//! congestion-signal functions): round counting, the bandwidth sample, `BBR.max_bw` as the max
//! of the last two ProbeBW cycles (V1), the latest round's delivery (`bw_latest`,
//! `inflight_latest`), and the short-term lower bounds `bw_lo` / `inflight_lo` cut once per
//! round with loss or ECN (V6, V9).

use super::*;
use crate::cc::bbr::filters::MinRtt;
use crate::units::Rate;

/// BBR.state, as the draft spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Startup => "Startup",
            State::Drain => "Drain",
            State::ProbeBwDown => "ProbeBW_DOWN",
            State::ProbeBwCruise => "ProbeBW_CRUISE",
            State::ProbeBwRefill => "ProbeBW_REFILL",
            State::ProbeBwUp => "ProbeBW_UP",
            State::ProbeRtt => "ProbeRTT",
        }
    }
}

/// The mode (`enum bbr_mode`); in ProbeBW the phase is `Phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// ProbeBW's phase (`enum bbr_pacing_gain_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// What the ACKs now arriving say about bandwidth probing (`enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// No bound (the kernel's `~0U`).
pub const NO_BOUND: u64 = u64::MAX;

/// `struct bbr` of Google's v3, with the window and pacing rate kept while an ACK is processed.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    pub cfg: Bbr3Config,
    pub(super) rng: Pcg64,
    pub mode: Mode,
    pub phase: Phase,
    pub ack_phase: AckPhase,
    /// BBR.min_rtt over 10 s, and the min RTT over ProbeRTTInterval (5 s) that schedules ProbeRTT.
    pub min_rtt: MinRtt,
    pub probe_rtt_min: MinRtt,
    pub probe_rtt_done_stamp: Option<SimTime>,
    pub probe_rtt_round_done: bool,
    pub next_rtt_delivered: u64,
    pub round_start: bool,
    pub rounds_since_probe: u64,
    pub prev_ca_state: CaState,
    pub prior_cwnd: u64,
    pub idle_restart: bool,
    /// Restore `prior_cwnd` at the next ACK: the loss state (RTO recovery) ended.
    pub restore_cwnd: bool,
    pub full_bw_reached: bool,
    /// The bandwidth plateaued recently (`full_bw_now`).
    pub full_bw_now: bool,
    pub full_bw: f64,
    pub full_bw_cnt: u32,
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
    pub has_seen_rtt: bool,
    pub init_cwnd: u64,
    /// ACK aggregation (as v1).
    pub ack_epoch_mstamp: SimTime,
    pub ack_epoch_acked: u64,
    pub extra_acked: [u64; 2],
    pub extra_acked_win_rtts: u32,
    pub extra_acked_win_idx: usize,
    /// The start of the current phase (`cycle_mstamp`) and the wall-clock wait until the next
    /// probe (`probe_wait_us`).
    pub cycle_mstamp: SimTime,
    pub probe_wait: SimTime,
    /// ProbeBW_UP's growth of `inflight_hi`: rounds so far, packets per increment, ACKed
    /// packets towards the next increment.
    pub bw_probe_up_rounds: u32,
    pub bw_probe_up_cnt: u64,
    pub bw_probe_up_acks: u64,
    pub stopped_risky_probe: bool,
    pub prev_probe_too_high: bool,
    /// The rate samples reflect bandwidth probing (`bw_probe_samples`).
    pub bw_probe_samples: bool,
    /// (V1) max delivery rate of the previous and the current cycle, packets per second.
    pub bw_hi: [f64; 2],
    /// (V2) lower bound on the bandwidth, `f64::INFINITY`: none.
    pub bw_lo: f64,
    /// Max delivery rate and volume of the latest round (`bw_latest`, `inflight_latest`).
    pub bw_latest: f64,
    pub inflight_latest: u64,
    /// (V3) bounds on what is in flight, packets; `NO_BOUND`: none.
    pub inflight_lo: u64,
    pub inflight_hi: u64,
    /// The round of the loss signals (`loss_round_delivered`, `loss_round_start`).
    pub loss_round_delivered: u64,
    pub loss_round_start: bool,
    pub loss_in_round: bool,
    pub loss_in_cycle: bool,
    pub ecn_in_round: bool,
    pub ecn_in_cycle: bool,
    pub loss_events_in_round: u32,
    /// `bw_lo`, `inflight_lo`, `inflight_hi` before the latest losses, for an undo.
    pub undo: (f64, u64, u64),
    /// ECN: in use on this path, alpha in 256ths, the counters at its last update.
    pub ecn_eligible: bool,
    pub ecn_alpha: u32,
    pub alpha_last_delivered: u64,
    pub alpha_last_delivered_ce: u64,
    pub delivered_ce: u64,
    pub startup_ecn_rounds: u32,
    /// `sk_pacing_rate`, wire bits per second.
    pub pacing_rate: Rate,
    pub(super) cwnd: u64,
    pub(super) mss: u32,
    pub(super) mark_app_limited: bool,
}

impl Bbr3 {
    pub fn new(cfg: Bbr3Config, rng: Pcg64) -> Self {
        Bbr3 {
            cfg,
            rng,
            mode: Mode::Startup,
            phase: Phase::Down,
            ack_phase: AckPhase::Init,
            min_rtt: MinRtt::new(None, SimTime::ZERO),
            probe_rtt_min: MinRtt::new(None, SimTime::ZERO),
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            next_rtt_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            prev_ca_state: CaState::Open,
            prior_cwnd: 0,
            idle_restart: false,
            restore_cwnd: false,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: STARTUP_CWND_GAIN,
            has_seen_rtt: false,
            init_cwnd: 10,
            ack_epoch_mstamp: SimTime::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            cycle_mstamp: SimTime::ZERO,
            probe_wait: SimTime::ZERO,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: NO_BOUND,
            bw_probe_up_acks: 0,
            stopped_risky_probe: false,
            prev_probe_too_high: false,
            bw_probe_samples: false,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0,
            inflight_lo: NO_BOUND,
            inflight_hi: NO_BOUND,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            ecn_in_round: false,
            ecn_in_cycle: false,
            loss_events_in_round: 0,
            undo: (0.0, 0, 0),
            ecn_eligible: false,
            ecn_alpha: ECN_ALPHA_INIT,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            delivered_ce: 0,
            startup_ecn_rounds: 0,
            pacing_rate: Rate(0),
            cwnd: 0,
            mss: 1500,
            mark_app_limited: false,
        }
    }

    /// `bbr_init`.
    pub fn init(&mut self, v: &SenderView) {
        let cfg = self.cfg;
        let rng = self.rng.clone();
        *self = Bbr3::new(cfg, rng);
        self.cwnd = crate::cc::whole_packets(v.cwnd);
        self.init_cwnd = self.cwnd.min(0x7f);
        self.mss = v.mss;
        self.next_rtt_delivered = v.delivered;
        let rtt = (v.rtt_min > SimTime::ZERO).then_some(v.rtt_min);
        self.min_rtt = MinRtt::new(rtt, v.now);
        self.probe_rtt_min = MinRtt::new(rtt, v.now);
        self.init_pacing_rate_from_rtt(v);
        self.ack_epoch_mstamp = v.now;
        // Start sampling ECN after the first full flight is ACKed.
        self.loss_round_delivered = v.delivered + 1;
        self.update_gains();
    }

    /// The state as the draft names it.
    pub fn state(&self) -> State {
        match (self.mode, self.phase) {
            (Mode::Startup, _) => State::Startup,
            (Mode::Drain, _) => State::Drain,
            (Mode::ProbeRtt, _) => State::ProbeRtt,
            (Mode::ProbeBw, Phase::Down) => State::ProbeBwDown,
            (Mode::ProbeBw, Phase::Cruise) => State::ProbeBwCruise,
            (Mode::ProbeBw, Phase::Refill) => State::ProbeBwRefill,
            (Mode::ProbeBw, Phase::Up) => State::ProbeBwUp,
        }
    }

    /// (V1) `BBR.max_bw` (`bbr_max_bw`), packets per second.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// (V2) The bandwidth the model uses (`bbr_bw`): `min(max_bw, bw_lo)`.
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    /// `bbr_main`.
    pub fn main(&mut self, v: &SenderView, rs: &RateSample) {
        if rs.losses > 0 {
            // Linux runs `bbr_note_loss` as each packet is marked lost, before `bbr_main`.
            self.note_loss(v);
        }
        self.update_round_start(v, rs);
        if rs.is_ece {
            // Linux's `tp->delivered_ce` (tcp_count_delivered).
            self.delivered_ce += rs.acked_sacked;
        }
        let mut ce_ratio = None;
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
            ce_ratio = self.update_ecn_alpha(v);
        }
        let _ = ce_ratio; // PLB's input in Google's code; not modelled
        self.ecn_in_round |= self.ecn_eligible && rs.is_ece;
        let sample_bw = bw_sample(rs);
        self.update_latest_delivery_signals(v, rs, sample_bw);
        self.update_model(v, rs, sample_bw);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(v, bw, self.pacing_gain);
        self.set_cwnd(v, rs.acked_sacked, bw, self.cwnd_gain);
        self.bound_cwnd_for_inflight_model();
        self.advance_latest_delivery_signals(rs, sample_bw);
        self.prev_ca_state = v.state;
        self.loss_in_cycle |= rs.lost > 0;
        self.ecn_in_cycle |= rs.delivered_ce > 0;
    }

    fn update_model(&mut self, v: &SenderView, rs: &RateSample, sample_bw: f64) {
        self.update_congestion_signals(rs, sample_bw);
        self.update_ack_aggregation(v, rs);
        self.check_loss_too_high_in_startup(v, rs);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(v);
        self.update_cycle_phase(v, rs, sample_bw);
        self.update_min_rtt(v, rs);
    }

    /// `bbr_update_round_start`: a round ends when a segment sent after the previous
    /// round's end is delivered.
    pub(super) fn update_round_start(&mut self, v: &SenderView, rs: &RateSample) {
        self.round_start = false;
        if rs.interval.is_some() && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = v.delivered;
            self.round_start = true;
        }
    }

    /// `bbr_take_max_bw_sample`: into the current cycle's slot.
    pub(super) fn take_max_bw_sample(&mut self, bw: f64) {
        self.bw_hi[1] = self.bw_hi[1].max(bw);
    }

    /// (V1) `bbr_advance_max_bw_filter`: once per ProbeBW cycle the current slot becomes the
    /// previous one, so `max_bw` covers the last 1 to 2 cycles.
    pub(super) fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0.0 {
            return; // no samples in this cycle: keep the old one
        }
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0.0;
    }

    /// `bbr_update_latest_delivery_signals`: the max rate and volume delivered in this loss
    /// round, and whether a loss round starts here.
    fn update_latest_delivery_signals(&mut self, v: &SenderView, rs: &RateSample, sample_bw: f64) {
        self.loss_round_start = false;
        if rs.interval.is_none() || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(sample_bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = v.delivered;
            self.loss_round_start = true;
        }
    }

    /// `bbr_advance_latest_delivery_signals`: a new loss round starts from this sample.
    fn advance_latest_delivery_signals(&mut self, rs: &RateSample, sample_bw: f64) {
        if self.loss_round_start {
            self.bw_latest = sample_bw;
            self.inflight_latest = rs.delivered;
        }
    }

    /// `bbr_note_loss`: the first loss of a round starts a loss round, so that `bw_latest` and
    /// `inflight_latest` cover the whole round trip of the loss.
    pub(super) fn note_loss(&mut self, v: &SenderView) {
        if !self.loss_in_round {
            self.loss_round_delivered = v.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// `bbr_update_congestion_signals`: the bandwidth sample, and once per loss round the
    /// lower bounds.
    fn update_congestion_signals(&mut self, rs: &RateSample, sample_bw: f64) {
        if rs.interval.is_none() || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || sample_bw >= self.max_bw() {
            self.take_max_bw_sample(sample_bw);
        }
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// In Startup or ProbeBW_REFILL / ProbeBW_UP (`bbr_is_probing_bandwidth`).
    pub fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// `bbr_adapt_lower_bounds`: once per round with loss or ECN, outside bandwidth probing,
    /// (V6) `bw_lo = max(bw_latest, (1 - beta) bw_lo)`, `inflight_lo = max(inflight_latest,
    /// (1 - beta) inflight_lo)`; (V9) with ECN `inflight_lo x (1 - alpha x ecn_factor)`.
    pub(super) fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = NO_BOUND;
        if self.ecn_in_round {
            self.init_lower_bounds(false);
            let cut = (BBR_UNIT - ((self.ecn_alpha * ECN_FACTOR) >> BBR_SCALE)) as u64;
            ecn_inflight_lo = self.inflight_lo.saturating_mul(cut) >> BBR_SCALE;
        }
        if self.loss_in_round {
            self.init_lower_bounds(true);
            let cut = (BBR_UNIT - self.cfg.beta) as u64;
            self.bw_lo = self.bw_latest.max(self.bw_lo * cut as f64 / BBR_UNIT as f64);
            self.inflight_lo = self.inflight_latest.max(self.inflight_lo.saturating_mul(cut) >> BBR_SCALE);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
    }

    /// `bbr_init_lower_bounds`: the bounds start at the model and the window.
    fn init_lower_bounds(&mut self, init_bw: bool) {
        if init_bw && self.bw_lo == f64::INFINITY {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == NO_BOUND {
            self.inflight_lo = self.cwnd;
        }
    }

    /// `bbr_reset_lower_bounds`: before probing, forget the short-term bounds.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = NO_BOUND;
    }

    /// `bbr_reset_congestion_signals`.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// `bbr_reset_full_bw`.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// `bbr_save_cwnd`.
    pub(super) fn save_cwnd(&mut self) {
        if !matches!(self.prev_ca_state, CaState::Recovery | CaState::Loss) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_set_state`: a timeout restarts full-bandwidth detection and, outside probing,
    /// starts `inflight_lo` from the window before it; leaving the loss state restores the window.
    pub fn set_state(&mut self, v: &SenderView, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.reset_full_bw();
            if !self.is_probing_bandwidth() && self.inflight_lo == NO_BOUND {
                let cwnd = crate::cc::whole_packets(v.cwnd);
                self.inflight_lo = cwnd.max(self.prior_cwnd);
            }
        } else if self.prev_ca_state == CaState::Loss {
            self.restore_cwnd = true;
        }
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)` while app-limited.
    pub fn restart_from_idle(&mut self, v: &SenderView) {
        self.idle_restart = true;
        self.ack_epoch_mstamp = v.now;
        self.ack_epoch_acked = 0;
        if self.mode == Mode::ProbeBw {
            let bw = self.bw();
            self.set_pacing_rate(v, bw, BBR_UNIT);
        } else if self.mode == Mode::ProbeRtt {
            self.check_probe_rtt_done(v);
        }
    }

    /// `bbr_update_gains`.
    pub(super) fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_GAIN, STARTUP_CWND_GAIN),
            Mode::ProbeBw => match self.phase {
                Phase::Up => (UP_GAIN, CWND_GAIN + BW_PROBE_CWND_GAIN),
                Phase::Down => (DOWN_GAIN, CWND_GAIN),
                Phase::Cruise | Phase::Refill => (BBR_UNIT, CWND_GAIN),
            },
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }
}

/// `bbr_calculate_bw_sample`: delivered / interval, packets per second; 0 without a valid interval.
pub fn bw_sample(rs: &RateSample) -> f64 {
    match rs.interval {
        Some(i) => rs.delivered as f64 / i.secs_f64(),
        None => 0.0,
    }
}
