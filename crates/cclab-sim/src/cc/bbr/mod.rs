//! BBR version 1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016) as Linux's `net/ipv4/tcp_bbr.c` (4.9 to 6.x,
//! before BBRv2), `cc = "bbr"`.
//!
//! BBR models the path by two numbers, the bottleneck bandwidth `BtlBw` (the max delivery
//! rate over the last 10 round trips, paper eq. (2)) and the round-trip propagation time
//! `RTprop` (the min RTT over the last 10 s, eq. (1)); it paces at `pacing_gain x BtlBw`
//! (eq. (3)) and caps what is in flight at `cwnd_gain x BDP`, `BDP = BtlBw x RTprop`
//! (eq. (4)). Four modes: STARTUP (gains 2/ln 2) until the bandwidth stops growing by 25 %
//! for 3 rounds, DRAIN (pacing 1/2.89) until the queue it built is gone, PROBE_BW (cycling
//! the pacing gain 5/4, 3/4, 1 x 6, one phase per min RTT; cwnd gain 2), and PROBE_RTT
//! (4 packets in flight for 200 ms and a round once the min RTT is 10 s old).
//!
//! Files: `filters.rs` (the windowed max and the min RTT, shared with later versions),
//! `v1.rs` (the model and the modes), `cwnd.rs` (pacing rate and window), `lt_bw.rs`
//! (policer detection). Delivery-rate samples come from `tcp/rate.rs` (Linux `tcp_rate.c`),
//! pacing from `tcp/pacing.rs` (earliest departure time).
//!
//! **Units.** The kernel keeps bandwidth in packets per microsecond scaled by 2^24
//! (`BW_SCALE`, `BW_UNIT`) and gains in 256ths (`BBR_SCALE` 8, `BBR_UNIT`). Here:
//! - gains stay the kernel's integers in 256ths, so `bbr_high_gain` is 739/256 = 2.8867 and
//!   `bbr_drain_gain` 88/256 = 0.34375, exactly the kernel's, not 2/ln 2 = 2.8854;
//! - bandwidth is an `f64` of packets per second, `delivered / interval` exactly (the kernel's
//!   truncation to 2^-24 packet per us, 0.06 packet/s, only adds noise);
//! - windows (`bbr_bdp`, the budget, the target) are whole packets with the kernel's rounding
//!   (BDP rounded up), since the kernel's window is an integer and BBR's rounding is part of
//!   its control loop; the sender's `f64` window then holds whole numbers;
//! - times are picoseconds where the kernel has microseconds or jiffies (`min_rtt_stamp`,
//!   `probe_rtt_done_stamp`); the ACK-aggregation epoch and the EDT interval count whole
//!   microseconds and whole packets as the kernel does;
//! - a packet is one segment of `mss` wire bytes, and the pacing rate is in wire bits per
//!   second (the kernel's `sk_pacing_rate` counts `mss_cache` payload bytes and paces
//!   `skb->len`; both sides are in the same unit here).
//!
//! **TSO.** cclab sends single segments. The kernel's window target still includes
//! `3 x bbr_tso_segs_goal` (`bbr_quantization_budget`), the segments of three TSO bursts of
//! about 1 ms at the pacing rate (`sk_pacing_rate >> sk_pacing_shift`, 10), at most a 64 KB
//! GSO packet, at least `bbr_min_tso_segs` (1 below 1.2 Mbit/s, else 2): 8 segments of
//! 1500 B at 100 Mbit/s, so a budget of 24 packets. It is computed the same way here (so that
//! cwnd and the standing queue are the kernel's); `tso_segs` fixes it instead.
//!
//! **Choices where the source is silent or cclab differs:**
//! - `rs->rtt_us` is the sender's RTT sample of the ACK (tcp/rate.rs); no ACK is a delayed
//!   runt (`is_ack_delayed`), since every segment is full-sized.
//! - The kernel's `snd_ssthresh` writes (DRAIN sets it to the BDP) only feed Linux's
//!   TSO-deferral heuristics: not done; `ssthresh` answers the sender's threshold unchanged.
//! - The kernel leaves the first 10 segments unpaced (`tcp_update_skb_after_send`) and lets
//!   a late segment take up to half its slot of credit; cclab's pacer does neither.
//! - The random first phase of PROBE_BW comes from the run's seeded stream (`set_rng`).
//! - `sk_max_pacing_rate` is unlimited; `snd_cwnd_clamp` is the receiver window.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `bw_rtts` | rounds of the max-bandwidth filter (`bbr_bw_rtts`) | 10 | [1, 1000] |
//! | `min_rtt_win_sec` | seconds of the min-RTT filter (`bbr_min_rtt_win_sec`) | 10 | [0.001, 3600] |
//! | `probe_rtt_mode_ms` | time at 4 packets in PROBE_RTT (`bbr_probe_rtt_mode_ms`); 0: never | 200 | [0, 60000] |
//! | `pacing_margin_percent` | pace this much below the estimate (`bbr_pacing_margin_percent`) | 1 | [0, 99] |
//! | `extra_acked_gain` | ACK-aggregation allowance, 256ths (`bbr_extra_acked_gain`); 0: off | 256 | [0, 2560] |
//! | `lt_bw` | 1: policer detection (long-term bandwidth sampling), 0: off | 1 | 0 or 1 |
//! | `tso_segs` | segments per TSO burst in the budget; 0: the kernel's `bbr_tso_segs_goal` | 0 | [0, 127] |

mod cwnd;
pub mod filters;
pub mod lt_bw;
#[cfg(test)]
mod tests;
pub mod v1;

use super::{
    CaState, CcObservation, CongControl, CongestionControl, CwndEvent, ParamError, ParamReader, Params, RateSample,
    SenderView,
};
use crate::units::SimTime;
use rand_pcg::Pcg64;
pub use v1::{Bbr, Mode};

/// Gains are in 256ths (`BBR_SCALE`, `BBR_UNIT`).
pub const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// 2/ln(2) + a bit, the smallest gain that doubles the delivery rate each round (`bbr_high_gain`).
pub const BBR_HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// The inverse of the high gain, to drain STARTUP's queue in a round (`bbr_drain_gain`).
pub const BBR_DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// In PROBE_BW, room for ACK-clock gaps and delayed ACKs (`bbr_cwnd_gain`).
pub const BBR_CWND_GAIN: u32 = BBR_UNIT * 2;
/// The gain cycle's length (`CYCLE_LEN`) and gains (`bbr_pacing_gain`).
pub const CYCLE_LEN: usize = 8;
pub const BBR_PACING_GAIN: [u32; CYCLE_LEN] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// The first phase is one of the last 7 (`bbr_cycle_rand`): never the draining one.
pub const BBR_CYCLE_RAND: usize = 7;
/// The window is never below 4 packets, and is 4 in PROBE_RTT (`bbr_cwnd_min_target`).
pub const BBR_CWND_MIN_TARGET: u64 = 4;
/// Full pipe: bandwidth grew by less than 5/4 (`bbr_full_bw_thresh`) for 3 rounds (`bbr_full_bw_cnt`).
pub const BBR_FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
pub const BBR_FULL_BW_CNT: u32 = 3;
/// Long-term sampling: intervals of at least 4 rounds (`bbr_lt_intvl_min_rtts`), a loss rate
/// of 50/256 (`bbr_lt_loss_thresh`), rates within 1/8 (`bbr_lt_bw_ratio`, 256ths) or 4 kbit/s
/// (`bbr_lt_bw_diff`, 4000/8 bytes/s) of each other, used for 48 rounds (`bbr_lt_bw_max_rtts`).
pub const BBR_LT_INTVL_MIN_RTTS: u32 = 4;
pub const BBR_LT_LOSS_THRESH: u64 = 50;
pub const BBR_LT_BW_RATIO: f64 = (BBR_UNIT / 8) as f64;
pub const BBR_LT_BW_DIFF_BPS: u64 = 4000;
pub const BBR_LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation: max of 2 windows of 5 rounds (`bbr_extra_acked_win_rtts`), an epoch reset
/// after 2^20 packets (`bbr_ack_epoch_acked_reset_thresh`), at most 100 ms of bw (`bbr_extra_acked_max_us`).
pub const BBR_EXTRA_ACKED_WIN_RTTS: u32 = 5;
pub const BBR_ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
pub const BBR_EXTRA_ACKED_MAX_US: u64 = 100_000;
/// Below this pacing rate one segment per TSO burst, else two (`bbr_min_tso_rate`, bit/s).
pub const BBR_MIN_TSO_RATE: u64 = 1_200_000;
/// A TSO burst is about 1/2^10 s at the pacing rate (`sk_pacing_shift`).
pub const SK_PACING_SHIFT: u32 = 10;
/// At most one GSO packet: `GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER` (320 on x86-64).
pub const GSO_MAX_BYTES: u64 = 65536 - 1 - 320;
/// `TCP_INIT_CWND`: the window before any RTT sample.
pub const TCP_INIT_CWND: u64 = 10;

/// The parameters (module parameters and constants of `tcp_bbr.c` that a scenario may change).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrConfig {
    pub bw_rtts: u64,
    pub min_rtt_win: SimTime,
    pub probe_rtt_mode: SimTime,
    pub pacing_margin_percent: u32,
    pub extra_acked_gain: u32,
    pub lt_bw: bool,
    /// `None`: the kernel's `bbr_tso_segs_goal`.
    pub tso_segs: Option<u64>,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            bw_rtts: CYCLE_LEN as u64 + 2,
            min_rtt_win: SimTime::from_millis(10_000),
            probe_rtt_mode: SimTime::from_millis(200),
            pacing_margin_percent: 1,
            extra_acked_gain: BBR_UNIT,
            lt_bw: true,
            tso_segs: None,
        }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = BbrConfig::default();
    let cfg = BbrConfig {
        bw_rtts: r.get_int("bw_rtts", d.bw_rtts as u32, 1, 1000)? as u64,
        min_rtt_win: SimTime::from_secs_f64(r.get("min_rtt_win_sec", d.min_rtt_win.secs_f64(), 0.001, 3600.0)?),
        probe_rtt_mode: SimTime::from_secs_f64(
            r.get("probe_rtt_mode_ms", d.probe_rtt_mode.secs_f64() * 1e3, 0.0, 60_000.0)? / 1e3,
        ),
        pacing_margin_percent: r.get_int("pacing_margin_percent", d.pacing_margin_percent, 0, 99)?,
        extra_acked_gain: r.get_int("extra_acked_gain", d.extra_acked_gain, 0, 2560)?,
        lt_bw: r.get_flag("lt_bw", d.lt_bw)?,
        tso_segs: match r.get_int("tso_segs", 0, 0, 127)? {
            0 => None,
            n => Some(n as u64),
        },
    };
    r.finish()?;
    Ok(Box::new(Bbr::new(cfg, crate::rng::stream_rng(0, 0, 0))))
}

impl Bbr {
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

impl CongestionControl for Bbr {
    fn name(&self) -> &str {
        "bbr"
    }

    /// `bbr_ssthresh`: saves the window for after recovery; the threshold stays.
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.cwnd = crate::cc::whole_packets(v.cwnd);
        self.save_cwnd();
        v.ssthresh
    }

    /// Never called: `cong_control` always answers.
    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        v.cwnd
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        Bbr::set_state(self, v, new);
    }

    /// `bbr_undo_cwnd`: a spurious loss restarts full-pipe detection and policer sampling.
    fn undo_cwnd(&mut self, v: &SenderView) -> Option<f64> {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.lt.reset(v);
        Some(v.cwnd)
    }

    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        Bbr::init(self, v);
        Some(self.control())
    }

    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<CongControl> {
        self.cwnd = crate::cc::whole_packets(v.cwnd);
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

    fn observe(&self) -> Option<CcObservation> {
        Some(CcObservation {
            state: self.mode.name(),
            pacing_gain: self.pacing_gain as f64 / BBR_UNIT as f64,
            cwnd_gain: self.cwnd_gain as f64 / BBR_UNIT as f64,
            bw_bps: self.bbr_bw() * 8.0 * self.mss as f64,
            min_rtt: self.min_rtt.min_rtt,
        })
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let c = &self.cfg;
        vec![
            ("bw_rtts", c.bw_rtts as f64),
            ("min_rtt_win_sec", c.min_rtt_win.secs_f64()),
            ("probe_rtt_mode_ms", c.probe_rtt_mode.secs_f64() * 1e3),
            ("pacing_margin_percent", c.pacing_margin_percent as f64),
            ("extra_acked_gain", c.extra_acked_gain as f64),
            ("lt_bw", c.lt_bw as u8 as f64),
            ("tso_segs", c.tso_segs.unwrap_or(0) as f64),
        ]
    }
}
