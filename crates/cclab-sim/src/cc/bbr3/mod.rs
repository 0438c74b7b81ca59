//! BBR version 3, `cc = "bbr3"`: the IETF draft draft-ietf-ccwg-bbr (version -06, July 2026,
//! the latest found; -04 of October 2025 is the first that calls itself BBRv3), as Google's
//! public BBRv3 code runs it (github.com/google/bbr, branch v3, `net/ipv4/tcp_bbr.c`,
//! `BBR_VERSION` 3).
//!
//! BBRv3 keeps v1's model, the max delivery rate `BBR.max_bw` and the min RTT `BBR.min_rtt`,
//! and bounds it with what loss and ECN say (eq. numbers as docs/algorithms/bbr3.md):
//! - (V1) `BBR.max_bw`: a max filter over the last 2 ProbeBW cycles (`bw_hi[2]`), not 10 rounds;
//! - (V2) `bw = min(max_bw, bw_lo)`: the short-term lower bound `bw_lo` (and `inflight_lo`)
//!   is cut once per round with loss to `max(latest, beta x bound)`, beta = 0.7 (V6);
//! - (V3) `inflight_hi`: the long-term upper bound on what is in flight, set when a probe
//!   sees a loss rate above `loss_thresh` (2 %) to `max(tx_in_flight, beta x target)` (V7),
//!   and grown in ProbeBW_UP by 1, 2, 4, ... packets per round (V8);
//! - ProbeBW is a cycle of four phases, ProbeBW_DOWN (pacing gain 0.9) until the queue is
//!   gone and 15 % headroom below `inflight_hi` is left, ProbeBW_CRUISE (1.0, capped by the
//!   headroom) until it is time to probe (2-3 s, or fewer rounds for a small BDP: Reno
//!   coexistence), ProbeBW_REFILL (1.0, one round at `inflight_hi`), ProbeBW_UP (1.25, cwnd
//!   gain 2.25) until the bandwidth stops growing, `inflight_hi` is reached or loss is too high;
//! - ProbeRTT every 5 s (ProbeRTTInterval) without a lower RTT, at 0.5 BDP for 200 ms and a round;
//! - Startup paces at 2.77 (4 ln 2) with cwnd gain 2 and also ends on too much loss (6 loss
//!   events in a recovery round and a loss rate above 2 %) or ECN (2 rounds above 50 % CE).
//!
//! Files: `model.rs` (state, rounds, bandwidth filters, the per-round loss/ECN signals and the
//! lower bounds), `startup.rs` (Startup and Drain, ECN alpha), `probe_bw.rs` (the cycle and the
//! upper bound), `probe_rtt.rs` (min RTT and ProbeRTT), `cwnd.rs` (pacing rate and window).
//! Shared with `cc/bbr`: the min-RTT filter (`filters.rs`); delivery-rate samples with
//! `tx_in_flight`, `lost` and `delivered_ce` from `tcp/rate.rs`; pacing from `tcp/pacing.rs`.
//!
//! **Units** as `cc/bbr`: gains in 256ths with Google's integers (2.77 is 710/256, beta's cut
//! 0.3 is 76/256 so 180/256 = 0.703 stays, 2 % is 5/256), bandwidth in f64 packets per second,
//! windows in whole packets, times in picoseconds.
//!
//! **Choices where the sources differ or are silent** (docs/algorithms/bbr3.md lists them all):
//! - Where the draft and Google's code differ, Google's code is followed (it is what runs):
//!   ProbeBW_DOWN's gain 0.91 (draft 0.9), the loss cut as `1 - 76/256`, the ECN response.
//! - The loss rate is judged on every ACK over its rate sample (`IsInflightTooHigh(rs)`),
//!   not also per lost packet (Google's `skb_marked_lost`, the draft's `BBRHandleLostPacket`):
//!   cclab's scoreboard reports losses per ACK. `inflight_hi` is then set from the ACK's
//!   `tx_in_flight` rather than the lost packet's interpolated one.
//! - ECN (`ecn = 1`, off by default; the draft treats CE as congestion but leaves the response
//!   open): Google's v3 response, alpha an EWMA (gain 1/16) of the CE fraction per round,
//!   `inflight_lo x (1 - alpha/3)`, only on paths with a min RTT up to `ecn_max_rtt_ms` (5 ms).
//! - No fast path, no TLP-repaired-loss hook, no PLB (Google-specific).
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `loss_thresh` | loss rate that ends a probe, 256ths (`bbr_loss_thresh`) | 5 (1.95 %) | [1, 255] |
//! | `beta` | multiplicative cut on loss, 256ths (`bbr_beta`; the bound keeps 1 - beta) | 76 | [0, 255] |
//! | `headroom` | share of `inflight_hi` left unused in CRUISE, 256ths (`bbr_inflight_headroom`) | 38 | [0, 255] |
//! | `probe_rtt_win_ms` | ProbeRTTInterval (`bbr_probe_rtt_win_ms`) | 5000 | [1, 3600000] |
//! | `probe_rtt_mode_ms` | time at the ProbeRTT window (`bbr_probe_rtt_mode_ms`); 0: never | 200 | [0, 60000] |
//! | `min_rtt_win_sec` | MinRTTFilterLen (`bbr_min_rtt_win_sec`) | 10 | [0.001, 3600] |
//! | `ecn` | 1: ECN-capable, with Google's response | 0 | 0 or 1 |
//! | `ecn_max_rtt_ms` | ECN is used only up to this min RTT; 0: any (`bbr_ecn_max_rtt_us`) | 5 | [0, 10000] |
//! | `tso_segs` | segments per TSO burst in the budget; 0: the kernel's goal | 0 | [0, 127] |

mod cwnd;
pub mod model;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use super::{
    CaState, CcObservation, CongControl, CongestionControl, CwndEvent, ParamError, ParamReader, Params, RateSample,
    SenderView,
};
use crate::units::SimTime;
pub use model::{Bbr3, State};
use rand_pcg::Pcg64;

pub use super::bbr::{BBR_SCALE, BBR_UNIT};

/// Startup: pacing gain 4 ln 2 = 2.77 (`bbr_startup_pacing_gain`, BBRStartupPacingGain),
/// cwnd gain 2 (`bbr_startup_cwnd_gain`, BBRStartupCwndGain).
pub const STARTUP_PACING_GAIN: u32 = BBR_UNIT * 277 / 100 + 1;
pub const STARTUP_CWND_GAIN: u32 = BBR_UNIT * 2;
/// Drain: v1's 1/2.885 (`bbr_drain_gain`).
pub const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// ProbeBW cwnd gain 2 (`bbr_cwnd_gain`), + 1/4 in ProbeBW_UP (`bbr_bw_probe_cwnd_gain`).
pub const CWND_GAIN: u32 = BBR_UNIT * 2;
pub const BW_PROBE_CWND_GAIN: u32 = BBR_UNIT / 4;
/// ProbeBW pacing gains (`bbr_pacing_gain[]`): UP 5/4, DOWN 91/100, CRUISE and REFILL 1.
pub const UP_GAIN: u32 = BBR_UNIT * 5 / 4;
pub const DOWN_GAIN: u32 = BBR_UNIT * 91 / 100;
/// ProbeRTT: cwnd 0.5 BDP (`bbr_probe_rtt_cwnd_gain`, BBRProbeRTTCwndGain).
pub const PROBE_RTT_CWND_GAIN: u32 = BBR_UNIT / 2;
/// At least 4 packets (`bbr_cwnd_min_target`, BBRMinPipeCwnd).
pub const CWND_MIN_TARGET: u64 = 4;
/// Full bandwidth: less than 25 % growth (`bbr_full_bw_thresh`) in 3 rounds (`bbr_full_bw_cnt`).
pub const FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
pub const FULL_BW_CNT: u32 = 3;
/// Startup ends on 6 loss events in a recovery round (`bbr_full_loss_cnt`) or 2 rounds of
/// high ECN (`bbr_full_ecn_cnt`).
pub const FULL_LOSS_CNT: u32 = 6;
pub const FULL_ECN_CNT: u32 = 2;
/// Reno coexistence: probe after at most 63 rounds (`bbr_bw_probe_max_rounds`), + a random
/// 0..2 (`bbr_bw_probe_rand_rounds`); wall clock 2 s (`bbr_bw_probe_base_us`) + 0..1 s.
pub const BW_PROBE_MAX_ROUNDS: u64 = 63;
pub const BW_PROBE_RAND_ROUNDS: u64 = 2;
pub const BW_PROBE_BASE: SimTime = SimTime(2 * crate::units::PS_PER_SEC);
pub const BW_PROBE_RAND_US: u64 = 1_000_000;
/// ECN: EWMA gain 1/16 (`bbr_ecn_alpha_gain`), initial alpha 1 (`bbr_ecn_alpha_init`),
/// cut `inflight_lo` by alpha/3 (`bbr_ecn_factor`), probing too high above 50 % CE
/// (`bbr_ecn_thresh`), re-probe with half of `inflight_hi` (`bbr_ecn_reprobe_gain`).
pub const ECN_ALPHA_GAIN: u32 = BBR_UNIT / 16;
pub const ECN_ALPHA_INIT: u32 = BBR_UNIT;
pub const ECN_FACTOR: u32 = BBR_UNIT / 3;
pub const ECN_THRESH: u32 = BBR_UNIT / 2;
pub const ECN_REPROBE_GAIN: u32 = BBR_UNIT / 2;
/// ACK aggregation as v1, but a window of 1 round until the pipe is full.
pub const EXTRA_ACKED_WIN_RTTS: u32 = 5;
pub const EXTRA_ACKED_MAX_US: u64 = 100_000;
pub const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
/// TSO budget (`bbr_tso_segs_generic`): about 1 ms at the pacing rate, plus 64 KB halved per
/// 2^9 us of min RTT (`bbr_tso_rtt_shift`), at most one GSO packet, at least 2
/// (`sysctl_tcp_min_tso_segs`).
pub const TSO_RTT_SHIFT: u32 = 9;
pub const MIN_TSO_SEGS: u64 = 2;

/// The parameters a scenario may change (module constants of Google's `tcp_bbr.c`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bbr3Config {
    pub loss_thresh: u32,
    pub beta: u32,
    pub headroom: u32,
    pub probe_rtt_win: SimTime,
    pub probe_rtt_mode: SimTime,
    pub min_rtt_win: SimTime,
    pub ecn: bool,
    /// `None`: ECN at any min RTT.
    pub ecn_max_rtt: Option<SimTime>,
    /// `None`: the kernel's TSO goal.
    pub tso_segs: Option<u64>,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            loss_thresh: BBR_UNIT * 2 / 100,
            beta: BBR_UNIT * 30 / 100,
            headroom: BBR_UNIT * 15 / 100,
            probe_rtt_win: SimTime::from_millis(5000),
            probe_rtt_mode: SimTime::from_millis(200),
            min_rtt_win: SimTime::from_millis(10_000),
            ecn: false,
            ecn_max_rtt: Some(SimTime::from_millis(5)),
            tso_segs: None,
        }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = Bbr3Config::default();
    let ms = |t: SimTime| t.secs_f64() * 1e3;
    let cfg = Bbr3Config {
        loss_thresh: r.get_int("loss_thresh", d.loss_thresh, 1, 255)?,
        beta: r.get_int("beta", d.beta, 0, 255)?,
        headroom: r.get_int("headroom", d.headroom, 0, 255)?,
        probe_rtt_win: SimTime::from_secs_f64(r.get("probe_rtt_win_ms", ms(d.probe_rtt_win), 1.0, 3.6e6)? / 1e3),
        probe_rtt_mode: SimTime::from_secs_f64(r.get("probe_rtt_mode_ms", ms(d.probe_rtt_mode), 0.0, 60_000.0)? / 1e3),
        min_rtt_win: SimTime::from_secs_f64(r.get("min_rtt_win_sec", d.min_rtt_win.secs_f64(), 0.001, 3600.0)?),
        ecn: r.get_flag("ecn", d.ecn)?,
        ecn_max_rtt: Some(r.get("ecn_max_rtt_ms", 5.0, 0.0, 10_000.0)?)
            .filter(|&x| x > 0.0)
            .map(|x| SimTime::from_secs_f64(x / 1e3)),
        tso_segs: match r.get_int("tso_segs", 0, 0, 127)? {
            0 => None,
            n => Some(n as u64),
        },
    };
    r.finish()?;
    Ok(Box::new(Bbr3::new(cfg, crate::rng::stream_rng(0, 0, 0))))
}

impl Bbr3 {
    fn control(&mut self) -> CongControl {
        let c = CongControl {
            cwnd: self.cwnd as f64,
            pacing_rate: Some(self.pacing_rate),
            mark_app_limited: self.mark_app_limited,
        };
        self.mark_app_limited = false;
        c
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &str {
        "bbr3"
    }

    /// `bbr_ssthresh`: saves the window and, for an undo, the bounds; the threshold stays.
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.cwnd = crate::cc::whole_packets(v.cwnd);
        self.save_cwnd();
        self.undo = (self.bw_lo, self.inflight_lo, self.inflight_hi);
        v.ssthresh
    }

    /// Never called: `cong_control` always answers.
    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        v.cwnd
    }

    fn needs_ecn(&self) -> bool {
        self.cfg.ecn
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        Bbr3::set_state(self, v, new);
    }

    /// `bbr_undo_cwnd`: a spurious loss restarts full-bandwidth detection and restores the
    /// bounds saved at `ssthresh` and the window saved before the loss.
    fn undo_cwnd(&mut self, _v: &SenderView) -> Option<f64> {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo.0);
        self.inflight_lo = self.inflight_lo.max(self.undo.1);
        self.inflight_hi = self.inflight_hi.max(self.undo.2);
        Some(self.prior_cwnd.max(1) as f64)
    }

    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        Bbr3::init(self, v);
        Some(self.control())
    }

    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<CongControl> {
        self.cwnd = crate::cc::whole_packets(v.cwnd);
        if std::mem::take(&mut self.restore_cwnd) {
            // `bbr_exit_loss_recovery`, which Linux runs inside `set_state`.
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        self.mss = v.mss;
        self.main(v, rs);
        Some(self.control())
    }

    fn cwnd_event_control(&mut self, v: &SenderView, ev: CwndEvent) -> Option<CongControl> {
        if ev == CwndEvent::TxStart && v.app_limited {
            self.cwnd = crate::cc::whole_packets(v.cwnd);
            self.restart_from_idle(v);
            return Some(self.control());
        }
        None
    }

    fn uses_rate_samples(&self) -> bool {
        true
    }

    fn set_rng(&mut self, rng: Pcg64) {
        self.rng = rng;
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn observe(&self) -> Option<CcObservation> {
        Some(CcObservation {
            state: self.state().name(),
            pacing_gain: self.pacing_gain as f64 / BBR_UNIT as f64,
            cwnd_gain: self.cwnd_gain as f64 / BBR_UNIT as f64,
            bw_bps: self.bw() * 8.0 * self.mss as f64,
            min_rtt: self.min_rtt.min_rtt,
        })
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let c = &self.cfg;
        vec![
            ("loss_thresh", c.loss_thresh as f64),
            ("beta", c.beta as f64),
            ("headroom", c.headroom as f64),
            ("probe_rtt_win_ms", c.probe_rtt_win.secs_f64() * 1e3),
            ("probe_rtt_mode_ms", c.probe_rtt_mode.secs_f64() * 1e3),
            ("min_rtt_win_sec", c.min_rtt_win.secs_f64()),
            ("ecn", c.ecn as u8 as f64),
            ("ecn_max_rtt_ms", c.ecn_max_rtt.map_or(0.0, |t| t.secs_f64() * 1e3)),
            ("tso_segs", c.tso_segs.unwrap_or(0) as f64),
        ]
    }
}
