//! CUBIC as Linux runs it (`net/ipv4/tcp_cubic.c`), the `linux` stack profile's `cubic`.
//!
//! The curve is RFC 9438's (cc/cubic.rs), `W(t) = C (t - K)^3 + W_max`, but the kernel
//! evaluates it in its own integer form, and where it differs from the RFC this file
//! follows the kernel:
//! - **Time is jiffies** (1 ms here, `HZ = 1000`) scaled to 1/1024 s (`BICTCP_HZ` 10),
//!   and the target is the curve at `t + delay_min`, the smallest RTT sample (RFC 9438:
//!   `t + RTT`; cc/cubic.rs takes the smoothed RTT).
//! - **`C` is `bic_scale` / 1024 * 10 / 1024 per second cubed** (41: 0.4004) and
//!   `K = cbrt(cube_factor (W_max - cwnd))` with `cube_factor = 2^40 / (10 bic_scale)`,
//!   in 1/1024 s; `W_max` and the origin are whole packets.
//! - **`cnt`**, the packets acknowledged per one-packet increase: `w / (target - w)` below
//!   the target, `100 w` at or above it, at most 20 before any loss (5 % per RTT), at
//!   least 2 (1.5 w per RTT at most); recomputed when the whole-packet window changes,
//!   at most once per jiffy, and at least every 31 ms (`HZ / 32`).
//! - **TCP friendliness**: a Reno estimate `tcp_cwnd` grows by one per
//!   `w beta_scale / 8` packets acknowledged, `beta_scale = 8 (1024 + beta) / 3 /
//!   (1024 - beta)` (15 for beta 717, so `alpha` = 3 (1 - beta)/(1 + beta) = 0.53 per
//!   RTT, never RFC 9438's switch to 1); while `tcp_cwnd` is above `w`, `cnt` is at most
//!   `w / (tcp_cwnd - w)`.
//! - **On a loss** `W_max = w (1024 + beta) / 2048` below the previous one (fast
//!   convergence), else `w`; ssthresh `max(w beta / 1024, 2)`, beta 717 (0.7002).
//! - **A timeout** (entering Loss) resets everything, `W_max` and `delay_min` included,
//!   and re-arms HyStart (`cubictcp_state`).
//! - **HyStart** (cc/hystart.rs) on by default, as the kernel's `hystart` = 1; RTT
//!   samples within 1 s of an epoch's start are ignored, by HyStart and `delay_min` alike.
//!
//! Choices:
//! - **Windows are fractional here**: the kernel's `snd_cwnd_cnt` becomes a fractional
//!   increase of `acked / cnt` per ACK, `cnt` computed from `floor(cwnd)`.
//! - **The cube root is exact** (`f64::cbrt`, rounded down to 1/1024 s) where the kernel
//!   uses a table and one Newton step (average error 0.2 %).
//! - The 64-bit `delta` of the kernel is computed in 128 bits and held at `u32::MAX`;
//!   the kernel notes the overflow above a million packets.
//! - Not carried over: `tcp_is_cwnd_limited` and the idle shift of the epoch at
//!   `CA_EVENT_TX_START` (cclab's flows always have data), undo.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `beta` | ssthresh after a loss, 1024ths of the window | 717 | [1, 1023] |
//! | `bic_scale` | `C` in units of 1/10240 packets per second cubed | 41 | [1, 1e6] |
//! | `fast_convergence` | 1: on, 0: off | 1 | 0 or 1 |
//! | `tcp_friendliness` | 1: the Reno estimate bounds `cnt`, 0: off | 1 | 0 or 1 |
//! | `hystart` | 1: HyStart ends slow start, 0: off | 1 | 0 or 1 |
//! | `cnt_floor` | the least `cnt`: 2 (today's kernel), 1 (2.6.22's, ns-2.35's) | 2 | 1 or 2 |

use super::hystart::HyStart;
use super::{AckSample, CaState, CongControl, CongestionControl, ParamError, ParamReader, Params, SenderView};
use crate::units::SimTime;

const BETA_SCALE: u64 = 1024;
/// Time in the curve is in 1/2^10 s (`BICTCP_HZ`).
const BICTCP_HZ: u32 = 10;
/// One jiffy at `HZ = 1000`.
const JIFFY: u64 = 1_000_000_000;
const HZ: u64 = 1000;
/// RTT samples this soon after an epoch began are not used (`HZ` jiffies).
const HOLDOFF_JIFFIES: u64 = HZ;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicLinuxConfig {
    pub beta: u64,
    pub bic_scale: u64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    /// The least `cnt`: 2 since Linux 3.x (growth at most 1.5 times a round trip), 1 in Linux
    /// 2.6.22, ns-2.35's Agent/TCP/Linux (`tcp/linux/src/tcp_cubic.c` has no floor but 1).
    pub cnt_floor: u64,
}

impl Default for CubicLinuxConfig {
    fn default() -> Self {
        CubicLinuxConfig {
            beta: 717,
            bic_scale: 41,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            cnt_floor: 2,
        }
    }
}

impl CubicLinuxConfig {
    /// `8 (1024 + beta) / 3 / (1024 - beta)`, at least 8.
    fn beta_scale(&self) -> u64 {
        (8 * (BETA_SCALE + self.beta) / 3 / (BETA_SCALE - self.beta)).max(8)
    }
    /// `C` per RTT of 100 ms in the kernel's scale: `10 bic_scale`.
    fn cube_rtt_scale(&self) -> u64 {
        self.bic_scale * 10
    }
    /// `2^40 / (10 bic_scale)`: K in 1/1024 s is the cube root of this times `W_max - w`.
    fn cube_factor(&self) -> u64 {
        (1u64 << (10 + 3 * BICTCP_HZ)) / self.cube_rtt_scale()
    }
}

pub struct CubicLinux {
    cfg: CubicLinuxConfig,
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    /// Jiffy of the last `cnt` computation.
    last_time: u64,
    origin_point: u64,
    /// K, 1/1024 s.
    k: u64,
    /// Jiffy the epoch began; `None` between a reduction and the next growth.
    epoch_start: Option<u64>,
    /// Packets acknowledged towards the Reno estimate.
    ack_cnt: u64,
    /// The Reno estimate, whole packets.
    tcp_cwnd: u64,
    /// Keeps `delay_min` (always) and ends slow start (when `cfg.hystart`).
    hystart: HyStart,
    hystart_exit: Option<f64>,
}

fn jiffies(t: SimTime) -> u64 {
    t.ps() / JIFFY
}

impl CubicLinux {
    pub fn new(cfg: CubicLinuxConfig) -> Self {
        CubicLinux {
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin_point: 0,
            k: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: HyStart::default(),
            hystart_exit: None,
        }
    }

    pub fn w_max(&self) -> u64 {
        self.last_max_cwnd
    }

    /// K of the current epoch, seconds.
    pub fn k_secs(&self) -> f64 {
        self.k as f64 / 1024.0
    }

    pub fn cnt(&self) -> u64 {
        self.cnt
    }

    /// `bictcp_update`: `cnt` for the whole-packet window `w` after `acked` packets.
    fn update(&mut self, w: u64, acked: u64, now: SimTime) {
        let j = jiffies(now);
        self.ack_cnt += acked;
        if self.last_cwnd == w && j.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // The curve is evaluated at most once per jiffy within an epoch.
        if !(self.epoch_start.is_some() && j == self.last_time) {
            self.last_cwnd = w;
            self.last_time = j;
            self.cnt = self.curve_cnt(w, acked, j);
        }
        self.friendliness(w);
        self.cnt = self.cnt.max(self.cfg.cnt_floor);
    }

    /// The cubic part of `cnt` (starting an epoch if none is running).
    fn curve_cnt(&mut self, w: u64, acked: u64, j: u64) -> u64 {
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(j);
                self.ack_cnt = acked;
                self.tcp_cwnd = w;
                if self.last_max_cwnd <= w {
                    self.k = 0;
                    self.origin_point = w;
                } else {
                    let x = (self.cfg.cube_factor() * (self.last_max_cwnd - w)) as f64;
                    self.k = x.cbrt().floor() as u64;
                    self.origin_point = self.last_max_cwnd;
                }
                j
            }
        };
        // t = jiffies since the epoch + delay_min (rounded up to jiffies), in 1/1024 s.
        let delay_min_us = self.hystart.delay_min().map_or(0, |d| d.ps() / 1_000_000);
        let t = ((j - start) + delay_min_us.div_ceil(1000)) * 1024 / HZ;
        let offs = t.abs_diff(self.k) as u128;
        let delta = ((self.cfg.cube_rtt_scale() as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ))
            .min(u32::MAX as u128) as u64;
        let target = if t < self.k { self.origin_point.saturating_sub(delta) } else { self.origin_point + delta };
        let cnt = if target > w { w / (target - w) } else { 100 * w };
        if self.last_max_cwnd == 0 {
            cnt.min(20)
        } else {
            cnt
        }
    }

    /// TCP friendliness: the Reno estimate bounds `cnt`.
    fn friendliness(&mut self, w: u64) {
        if !self.cfg.tcp_friendliness {
            return;
        }
        let delta = (w * self.cfg.beta_scale()) >> 3;
        if delta > 0 && self.ack_cnt > delta {
            let n = (self.ack_cnt - 1) / delta;
            self.ack_cnt -= n * delta;
            self.tcp_cwnd += n;
        }
        if self.tcp_cwnd > w {
            self.cnt = self.cnt.min(w / (self.tcp_cwnd - w));
        }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = CubicLinuxConfig::default();
    let cfg = CubicLinuxConfig {
        beta: r.get_int("beta", d.beta as u32, 1, 1023)? as u64,
        bic_scale: r.get_int("bic_scale", d.bic_scale as u32, 1, 1_000_000)? as u64,
        fast_convergence: r.get_flag("fast_convergence", d.fast_convergence)?,
        tcp_friendliness: r.get_flag("tcp_friendliness", d.tcp_friendliness)?,
        hystart: r.get_flag("hystart", d.hystart)?,
        cnt_floor: r.get_int("cnt_floor", d.cnt_floor as u32, 1, 2)? as u64,
    };
    r.finish()?;
    Ok(Box::new(CubicLinux::new(cfg)))
}

impl CongestionControl for CubicLinux {
    fn name(&self) -> &'static str {
        "cubic-linux"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.epoch_start = None;
        let w = v.cwnd.floor() as u64;
        let beta = self.cfg.beta;
        self.last_max_cwnd = if w < self.last_max_cwnd && self.cfg.fast_convergence {
            w * (BETA_SCALE + beta) / (2 * BETA_SCALE)
        } else {
            w
        };
        (w * beta / BETA_SCALE).max(2) as f64
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then(v, acked, |cwnd, left| {
            self.update(cwnd.floor() as u64, left as u64, v.now);
            cwnd + left as f64 / self.cnt as f64
        })
    }

    /// `cubictcp_init`: HyStart's first round begins with the connection.
    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        self.hystart.new_round(v.now, v.snd_nxt);
        None
    }

    /// `cubictcp_acked`: samples within 1 s of an epoch's start are dropped; the rest
    /// lower `delay_min` and, in slow start, feed HyStart.
    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        if self.epoch_start.is_some_and(|e| jiffies(v.now).saturating_sub(e) < HOLDOFF_JIFFIES) {
            return;
        }
        let exit = self.hystart.on_sample(v, rtt);
        if self.cfg.hystart {
            self.hystart_exit = exit;
        }
    }

    fn ssthresh_after_ack(&mut self, _v: &SenderView) -> Option<f64> {
        self.hystart_exit.take()
    }

    /// `cubictcp_state`: entering Loss resets everything and re-arms HyStart.
    fn set_state(&mut self, v: &SenderView, new: CaState) {
        if new == CaState::Loss {
            let cfg = self.cfg;
            *self = CubicLinux::new(cfg);
            self.hystart.on_timeout(v.now, v.snd_nxt);
        }
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let c = &self.cfg;
        vec![
            ("beta", c.beta as f64),
            ("bic_scale", c.bic_scale as f64),
            ("fast_convergence", c.fast_convergence as u8 as f64),
            ("tcp_friendliness", c.tcp_friendliness as u8 as f64),
            ("hystart", c.hystart as u8 as f64),
            ("cnt_floor", c.cnt_floor as f64),
        ]
    }
}

#[cfg(test)]
#[path = "cubic_linux/tests.rs"]
mod tests;
