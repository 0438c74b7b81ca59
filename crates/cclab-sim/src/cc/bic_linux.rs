//! BIC-TCP as Linux runs it (`net/ipv4/tcp_bic.c`), the `linux` stack profile's `bic`.
//!
//! The same search as `bic` (cc/bic.rs, the paper's rules), in the kernel's integer form:
//! each time the whole-packet window `w` changes, BIC picks `cnt`, the packets to acknowledge
//! per one-packet increase (`bictcp_update`), and the window then grows by `acked / cnt`
//! (`tcp_cong_avoid_ai`). With `B = 4` (`BICTCP_B`) and `W_max` the window at the last loss:
//!
//! | where | `cnt` | per RTT |
//! |---|---|---|
//! | `w <= low_window` | `w` | +1 (Reno) |
//! | below `W_max`, `d = (W_max - w) / B > max_increment` | `w / max_increment` | +`max_increment` |
//! | below `W_max`, `d <= 1` | `w smooth_part / B` | +0.2 |
//! | below `W_max`, otherwise | `w / d` | a quarter of the distance |
//! | `W_max <= w < W_max + B` | `w smooth_part / B` | +0.2 |
//! | `w < W_max + max_increment (B - 1)` | `w (B - 1) / (w - W_max)` | a third of the overshoot |
//! | further past `W_max` | `w / max_increment` | +`max_increment` |
//!
//! All divisions are integer divisions, as in the kernel. Then, before any loss
//! (`W_max = 0`), `cnt <= 20` (at least 5 % per RTT), and `cnt` is divided by the
//! packets an ACK acknowledges, `delayed_ack / 16`, an average over ACKs in Open
//! (`bictcp_acked`: `delayed_ack += acked - delayed_ack / 16`, from 2 packets per
//! ACK): `cnt = 16 cnt / delayed_ack`, at least 1. `tcp_cong_avoid_ai` counts acknowledged
//! packets since Linux 3.18, so with delayed ACKs this division doubles the growth of the
//! table above (the kernel's BIC kept the compensation written for a per-ACK count;
//! CUBIC dropped it).
//!
//! On a loss (`bictcp_recalc_ssthresh`): `W_max = w (1024 + beta) / 2048` if `w` is below
//! the previous `W_max` and fast convergence is on, else `w`; the threshold is `max(w/2, 2)`
//! at or below `low_window`, else `max(w beta / 1024, 2)`. Entering Loss (a timeout)
//! resets everything (`bictcp_reset`), `W_max` and the ACK ratio included.
//!
//! Choices:
//! - **Windows are fractional here**: the kernel's `snd_cwnd_cnt` counter becomes a
//!   fractional increase of `acked / cnt` per ACK, `cnt` computed from the whole-packet
//!   window `floor(cwnd)` as the kernel's from `snd_cwnd`; the threshold and `W_max` are
//!   whole packets, as in the kernel.
//! - `cnt` is recomputed when the whole-packet window changes or 31 ms after the last
//!   time (`HZ / 32` jiffies at `HZ = 1000`, cclab's 1 ms clock).
//! - Not carried over: `tcp_is_cwnd_limited` (the engine's flows always have data), the
//!   undo of a spurious reduction (the engine does not undo).
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `max_increment` | largest increase, packets per RTT | 16 | [1, 1e6] |
//! | `low_window` | Reno at or below this window, packets | 14 | [0, 1e9] |
//! | `beta` | threshold after a loss above `low_window`, in 1024ths of the window | 819 | [1, 1023] |
//! | `smooth_part` | RTTs from `W_max - B` to `W_max` | 20 | [1, 1e6] |
//! | `fast_convergence` | 1: on, 0: off | 1 | 0 or 1 |

use super::{AckSample, CaState, CongestionControl, ParamError, ParamReader, Params, SenderView};
use crate::units::SimTime;

/// The binary-search divisor (`BICTCP_B`): a quarter of the distance to `W_max` per RTT.
pub const B: u64 = 4;
/// `beta` is in units of 1/1024 (`BICTCP_BETA_SCALE`).
const BETA_SCALE: u64 = 1024;
/// The ACK ratio is kept times 16 (`ACK_RATIO_SHIFT` 4).
const ACK_RATIO_SHIFT: u32 = 4;
/// How long a `cnt` stands while the window does not change (`HZ / 32` jiffies).
const RECOMPUTE_AFTER: SimTime = SimTime::from_millis(1000 / 32);

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicLinuxConfig {
    pub max_increment: u64,
    pub low_window: u64,
    /// Threshold after a loss, 1024ths of the window.
    pub beta: u64,
    pub smooth_part: u64,
    pub fast_convergence: bool,
}

impl Default for BicLinuxConfig {
    fn default() -> Self {
        BicLinuxConfig { max_increment: 16, low_window: 14, beta: 819, smooth_part: 20, fast_convergence: true }
    }
}

pub struct BicLinux {
    cfg: BicLinuxConfig,
    /// Packets acknowledged per one-packet increase.
    cnt: u64,
    /// `W_max`, whole packets; 0 before the first loss and after a timeout.
    last_max_cwnd: u64,
    /// The whole-packet window `cnt` was computed for, and when.
    last_cwnd: u64,
    last_time: SimTime,
    /// Packets per ACK, times 16.
    delayed_ack: u64,
}

impl BicLinux {
    pub fn new(cfg: BicLinuxConfig) -> Self {
        BicLinux {
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: SimTime::ZERO,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
        }
    }

    /// `bictcp_reset`.
    fn reset(&mut self) {
        *self = BicLinux::new(self.cfg);
    }

    /// The window at the last loss, whole packets (0 when unknown).
    pub fn w_max(&self) -> u64 {
        self.last_max_cwnd
    }

    /// `cnt` for the whole-packet window `w`, before the ACK ratio (the table above).
    pub fn search_cnt(&self, w: u64) -> u64 {
        let c = &self.cfg;
        if w <= c.low_window {
            return w;
        }
        let w_max = self.last_max_cwnd;
        let cnt = if w < w_max {
            let dist = (w_max - w) / B;
            if dist > c.max_increment {
                w / c.max_increment
            } else if dist <= 1 {
                w * c.smooth_part / B
            } else {
                w / dist
            }
        } else if w < w_max + B {
            w * c.smooth_part / B
        } else if w < w_max + c.max_increment * (B - 1) {
            w * (B - 1) / (w - w_max)
        } else {
            w / c.max_increment
        };
        if w_max == 0 {
            cnt.min(20)
        } else {
            cnt
        }
    }

    /// `bictcp_update`: `cnt` for window `w` at `now`.
    fn update(&mut self, w: u64, now: SimTime) {
        if self.last_cwnd == w && now.saturating_sub(self.last_time) <= RECOMPUTE_AFTER {
            return;
        }
        self.last_cwnd = w;
        self.last_time = now;
        if w <= self.cfg.low_window {
            // Reno below low_window, without the ACK ratio (the kernel returns early).
            self.cnt = w;
            return;
        }
        self.cnt = ((self.search_cnt(w) << ACK_RATIO_SHIFT) / self.delayed_ack).max(1);
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = BicLinuxConfig::default();
    let cfg = BicLinuxConfig {
        max_increment: r.get_int("max_increment", d.max_increment as u32, 1, 1_000_000)? as u64,
        low_window: r.get_int("low_window", d.low_window as u32, 0, 1_000_000_000)? as u64,
        beta: r.get_int("beta", d.beta as u32, 1, 1023)? as u64,
        smooth_part: r.get_int("smooth_part", d.smooth_part as u32, 1, 1_000_000)? as u64,
        fast_convergence: r.get_flag("fast_convergence", d.fast_convergence)?,
    };
    r.finish()?;
    Ok(Box::new(BicLinux::new(cfg)))
}

impl CongestionControl for BicLinux {
    fn name(&self) -> &'static str {
        "bic-linux"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let w = v.cwnd.floor() as u64;
        let c = &self.cfg;
        self.last_max_cwnd =
            if w < self.last_max_cwnd && c.fast_convergence { w * (BETA_SCALE + c.beta) / (2 * BETA_SCALE) } else { w };
        let t = if w <= c.low_window { w >> 1 } else { w * c.beta / BETA_SCALE };
        t.max(2) as f64
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then(v, acked, |cwnd, left| {
            self.update(cwnd.floor() as u64, v.now);
            cwnd + left as f64 / self.cnt.max(1) as f64
        })
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if v.state == CaState::Open {
            // delayed_ack += acked - delayed_ack / 16: the EWMA of packets per ACK, times 16.
            self.delayed_ack = (self.delayed_ack + s.acked as u64).saturating_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
        }
    }

    fn set_state(&mut self, _v: &SenderView, new: CaState) {
        if new == CaState::Loss {
            self.reset();
        }
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let c = &self.cfg;
        vec![
            ("max_increment", c.max_increment as f64),
            ("low_window", c.low_window as f64),
            ("beta", c.beta as f64),
            ("smooth_part", c.smooth_part as f64),
            ("fast_convergence", c.fast_convergence as u8 as f64),
        ]
    }
}

#[cfg(test)]
#[path = "bic_linux/tests.rs"]
mod tests;
