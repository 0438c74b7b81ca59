//! BIC-TCP: binary search for the window at which the last loss happened.
//!
//! Source: L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control
//! (BIC) for Fast Long-Distance Networks", IEEE INFOCOM 2004, section III
//! (binary search increase, additive increase, max probing, fast
//! convergence); the Linux implementation `net/ipv4/tcp_bic.c` for what the
//! paper leaves open.
//!
//! On a loss BIC remembers the window it had, `W_max`, and keeps `beta = 0.8`
//! of it. Each RTT without a loss it then moves to the midpoint between the
//! current window (the largest known to be safe) and `W_max`: the distance to
//! `W_max` halves every RTT. Steps larger than `S_max` are cut to `S_max`
//! (additive increase far from `W_max`), steps smaller than `S_min` are raised
//! to `S_min`. Past `W_max` it probes symmetrically: the step equals the
//! distance already gone past `W_max`, so it doubles every RTT from `S_min`
//! until it is cut to `S_max`. At or below `low_window` BIC is Reno. Fast
//! convergence: a loss below the previous `W_max` sets `W_max` to the midpoint
//! `(1 + beta)/2 cwnd`, so that a flow that is losing share gives way.
//!
//! Per RTT, with `d = W_max - cwnd`:
//! `step = clamp(d/2, S_min, S_max)` if `d > 0`, else `clamp(-d, S_min, S_max)`.
//!
//! Choices where the sources are silent or differ:
//! - **One step per round of `cwnd` acknowledged packets.** The step is
//!   fixed at the start of a round (the window then, and the packets a round
//!   lasts) and spread evenly over it, so a round adds exactly `step` (the
//!   window is computed from the round's start, free of rounding drift) and the
//!   distance to `W_max` halves exactly, as the paper describes per RTT. Linux
//!   recomputes its ACK count whenever the integer window changes, which
//!   shrinks the distance continuously.
//! - **The paper's midpoint, not Linux's quarter.** Linux (`BICTCP_B = 4`)
//!   closes a quarter of the distance per RTT, replaces `S_min` with a fixed
//!   0.2 packets per RTT within 4 packets of `W_max` on both sides
//!   (`smooth_part = 20`), and past `W_max` steps by a third of the distance.
//!   Here the paper's rules, with its `S_max = 32`; Linux uses 16
//!   (`s_max = 16`).
//! - **Linux's loss rules.** At or below `low_window` a loss halves the window;
//!   above, it keeps `beta` (Linux 819/1024 = 0.7998, here 0.8). Fast
//!   convergence applies at any window. After a retransmission timeout `W_max`
//!   is forgotten (Linux resets its state on entering Loss), so the next
//!   avoidance phase probes up from `S_min`.
//! - Not carried over from Linux: the estimate of packets per ACK (windows
//!   grow per packet acknowledged here), the floor of 5 % per RTT before the
//!   first loss, and `undo_cwnd` (the engine does not undo). Decrease from
//!   cwnd, not FlightSize; slow start as in `reno`.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `s_max` | largest step, packets per RTT | 32 | [0.01, 1e6] |
//! | `s_min` | smallest step, packets per RTT | 0.01 | (0, `s_max`] |
//! | `beta` | fraction of the window kept on a loss above `low_window` | 0.8 | (0, 1) |
//! | `low_window` | Reno at or below this window, packets | 14 | [0, 1e9] |
//! | `fast_convergence` | 1: on, 0: off | 1 | 0 or 1 |

use super::{additive_increase, CaState, CongestionControl, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicConfig {
    /// Largest step, packets per RTT.
    pub s_max: f64,
    /// Smallest step, packets per RTT.
    pub s_min: f64,
    /// Fraction of the window kept on a loss above `low_window`.
    pub beta: f64,
    /// At or below this window, packets, BIC is Reno.
    pub low_window: f64,
    /// Lower `W_max` when a loss comes below the previous one.
    pub fast_convergence: bool,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig { s_max: 32.0, s_min: 0.01, beta: 0.8, low_window: 14.0, fast_convergence: true }
    }
}

pub struct Bic {
    cfg: BicConfig,
    /// Window at the last loss (after fast convergence), packets; 0 when unknown.
    w_max: f64,
    /// The window when the current round started, packets.
    round_start: f64,
    /// Packets the current round lasts: the window when it started.
    round_len: f64,
    /// Packets still to be acknowledged in the current round; a new round starts at 0.
    round_left: f64,
    /// Packets this round adds.
    step: f64,
}

impl Bic {
    pub fn new(cfg: BicConfig) -> Self {
        Bic { cfg, w_max: 0.0, round_start: 0.0, round_len: 0.0, round_left: 0.0, step: 0.0 }
    }

    /// The window at the last loss, packets (0 when unknown).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// The window the current round has reached: its start plus the share of
    /// its step for the packets acknowledged so far.
    fn round_window(&self) -> f64 {
        self.round_start + self.step * (self.round_len - self.round_left) / self.round_len
    }

    /// The step of one RTT at window `cwnd`, packets (paper, section III).
    pub fn step(&self, cwnd: f64) -> f64 {
        let d = if cwnd < self.w_max {
            // binary search: to the midpoint of (cwnd, W_max)
            (self.w_max - cwnd) / 2.0
        } else {
            // max probing: as far again as already past W_max
            cwnd - self.w_max
        };
        d.clamp(self.cfg.s_min, self.cfg.s_max)
    }

    /// Congestion avoidance from window `cwnd` for `left` acknowledged packets.
    fn avoid(&mut self, mut cwnd: f64, left: u32) -> f64 {
        if cwnd <= self.cfg.low_window {
            self.round_left = 0.0;
            return additive_increase(cwnd, 1.0, left);
        }
        // A round goes on only from where it left the window.
        if self.round_left > 0.0 && cwnd != self.round_window() {
            self.round_left = 0.0;
        }
        let mut left = left as f64;
        while left > 0.0 {
            if self.round_left <= 0.0 {
                self.round_start = cwnd;
                self.round_len = cwnd;
                self.round_left = cwnd;
                self.step = self.step(cwnd);
            }
            let n = left.min(self.round_left);
            self.round_left -= n;
            left -= n;
            cwnd = self.round_window();
        }
        cwnd
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = BicConfig::default();
    let s_max = r.get("s_max", d.s_max, 0.01, 1e6)?;
    let s_min = r.get("s_min", d.s_min, 1e-9, 1e6)?;
    if s_min > s_max {
        return Err(ParamError {
            param: "s_min".into(),
            value: s_min.to_string(),
            accepted: format!("a number in (0, s_max = {s_max}]"),
        });
    }
    let cfg = BicConfig {
        s_max,
        s_min,
        beta: r.get("beta", d.beta, 1e-9, 1.0 - 1e-9)?,
        low_window: r.get("low_window", d.low_window, 0.0, 1e9)?,
        fast_convergence: r.get_flag("fast_convergence", d.fast_convergence)?,
    };
    r.finish()?;
    Ok(Box::new(Bic::new(cfg)))
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let w = v.cwnd;
        self.w_max = if w < self.w_max && self.cfg.fast_convergence { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        self.round_left = 0.0;
        let keep = if w <= self.cfg.low_window { 0.5 } else { self.cfg.beta };
        super::multiplicative_decrease(w, keep)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        if v.cwnd < v.ssthresh {
            self.round_left = 0.0;
        }
        super::slow_start_then(v, acked, |cwnd, left| self.avoid(cwnd, left))
    }

    fn set_state(&mut self, _v: &SenderView, new: CaState) {
        if new == CaState::Loss {
            self.w_max = 0.0;
            self.round_left = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::view;

    /// Acknowledges packets one per ACK from window `w` and returns the windows at which
    /// the next `rounds` rounds begin.
    fn round_starts(b: &mut Bic, w: f64, ssthresh: f64, rounds: usize) -> Vec<f64> {
        let mut w = w;
        let mut starts = Vec::new();
        let mut last = f64::NAN;
        while starts.len() <= rounds {
            w = b.cong_avoid(&view(w, ssthresh), 1);
            if b.round_len != last {
                last = b.round_len;
                starts.push(last);
            }
        }
        starts.remove(0);
        starts
    }

    #[test]
    fn after_a_loss_at_1000_the_steps_are_32_until_the_half_distance_is_smaller_then_halve() {
        let mut b = Bic::new(BicConfig::default());
        let s = b.ssthresh(&view(1000.0, 1e9));
        assert_eq!((s, b.w_max()), (800.0, 1000.0));
        // d = 200, 168, 136, 104, 72: step 32; d = 40: 20; then 10, 5, 2.5, 1.25.
        let want = [832.0, 864.0, 896.0, 928.0, 960.0, 980.0, 990.0, 995.0, 997.5, 998.75];
        let got = round_starts(&mut b, s, s, want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{got:?}");
        }
    }

    #[test]
    fn near_w_max_the_step_is_s_min_and_past_it_the_step_doubles() {
        let mut b = Bic::new(BicConfig::default());
        b.w_max = 100.0;
        assert_eq!(b.step(99.99), 0.01); // d/2 = 0.005 < S_min
        assert_eq!(b.step(100.0), 0.01);
        // Max probing from W_max: steps 0.01, 0.01, 0.02, 0.04, 0.08: the overshoot doubles.
        let want = [100.01, 100.02, 100.04, 100.08, 100.16];
        let got = round_starts(&mut b, 100.0, 50.0, want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{got:?}");
        }
        // Far past W_max the step is S_max.
        assert_eq!(b.step(200.0), 32.0);
        // With no loss yet (W_max unknown) the step is S_max.
        assert_eq!(Bic::new(BicConfig::default()).step(100.0), 32.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_a_loss_comes_below_the_last_one() {
        let mut b = Bic::new(BicConfig::default());
        b.ssthresh(&view(1000.0, 1e9));
        assert_eq!(b.ssthresh(&view(900.0, 1e9)), 720.0);
        assert!((b.w_max() - 810.0).abs() < 1e-9); // 900 (1 + 0.8)/2
        let mut b = Bic::new(BicConfig { fast_convergence: false, ..Default::default() });
        b.ssthresh(&view(1000.0, 1e9));
        b.ssthresh(&view(900.0, 1e9));
        assert_eq!(b.w_max(), 900.0);
    }

    #[test]
    fn at_or_below_low_window_it_is_reno() {
        let mut b = Bic::new(BicConfig::default());
        assert_eq!(b.ssthresh(&view(14.0, 1e9)), 7.0);
        assert_eq!(b.ssthresh(&view(15.0, 1e9)), 12.0);
        let w = b.cong_avoid(&view(10.0, 5.0), 1);
        assert!((w - 10.1).abs() < 1e-12);
    }

    #[test]
    fn a_timeout_forgets_w_max() {
        let mut b = Bic::new(BicConfig::default());
        b.ssthresh(&view(1000.0, 1e9));
        b.set_state(&view(1.0, 800.0), CaState::Loss);
        assert_eq!(b.w_max(), 0.0);
    }

    #[test]
    fn s_min_above_s_max_is_rejected() {
        let mut p = Params::new();
        p.insert("s_max".into(), 1.0);
        p.insert("s_min".into(), 2.0);
        assert_eq!(build(&p).err().unwrap().param, "s_min");
        p.insert("s_min".into(), 0.5);
        assert!(build(&p).is_ok());
    }
}
