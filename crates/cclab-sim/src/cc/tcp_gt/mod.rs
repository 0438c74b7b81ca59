//! TCP-GT: the window follows the gap between goodput and throughput.
//!
//! Source: paper 000, H. Jung, S.-G. Kim, H. Y. Yeom, S. Kang, "TCP-GT: A New Approach
//! to Congestion Control Based on Goodput and Throughput", Journal of Communications and
//! Networks 12(5), 2010, section III (eqs. 1–17 and Algorithm 1). Documentation:
//! `docs/algorithms/tcp-gt.md`.
//!
//! Time is cut into epochs. The sender writes its epoch number on every data segment
//! and the receiver echoes it on the ACK together with its own clock (the ACK's TSval).
//! The first ACK that echoes the current number ends that epoch: the sender records its
//! clock and the receiver's and moves to the next number. Between two such ends the
//! receiver took `TR` to receive `N_bytes`, and
//!
//! - goodput `G = N_bytes / TR` (eq. 1), throughput `T = N_bytes / rtt_min` (eq. 4),
//!   `φ = G − T` (eq. 3), with `rtt_min` the smallest RTT of the last 10 epochs (eq. 5);
//! - `f = rtt / rtt_base`; if `φ ≥ t·T/f` (eq. 16): `s ← s + f` (eq. 14) and every
//!   acknowledged packet of the next epoch adds `p = f² s² mtu / (G rtt_base cwnd)`
//!   (eq. 15); otherwise `s ← 1` and every acknowledged packet adds
//!   `n = f φ rtt_base / (cwnd mtu)` (eq. 17), which is negative (Algorithm 1).
//!
//! With the link full, `G` is the flow's share of the capacity and `φ·rtt/mtu` is minus
//! the packets it keeps queued, so one epoch of `n` removes them (multiplicative
//! decrease); below the threshold the increase is inversely proportional to the rate and
//! grows with the square of `s` (window splitting) — the paper's IIMD policy.
//!
//! Choices where the paper is silent:
//! - **What an epoch measures.** `N_bytes` counts the packets acknowledged between two
//!   epoch ends, starting with the ACK that opens the epoch and ending before the one
//!   that closes it; those are exactly the packets the receiver took in between the two
//!   echoed TSvals, so `G` is what the receiver saw during `TR`.
//! - **`rtt` is the mean of the epoch's RTT samples** ("the average RTT of flow i"), the
//!   sender-side epoch length `TS` when the epoch had none; `cwnd` is the window when
//!   the epoch ends; `mtu` is the data packet size (`SenderView::mss`).
//! - **`rtt_min`** is the minimum over the per-epoch minima of the last 10 completed
//!   epochs, the one just ended included.
//! - **Per acknowledged packet, not per ACK.** `p` and `n` are multiplied by the packets
//!   each ACK newly acknowledges (at most 2, the sender's limit), so that an epoch moves
//!   the window by `cwnd·p` or `cwnd·n` also with delayed ACKs; with per-packet ACKs (the
//!   paper's) the two readings agree.
//! - **No slow start** (default; `slow_start = 1` adds one). Algorithm 1 runs from the
//!   first epoch: the first measurement ends the second epoch and the window holds until
//!   then; the increase rule is itself steep at small windows (`p ∝ 1/(G cwnd)`). `s`
//!   starts at 1. With `slow_start = 1` the window grows by the packets acknowledged until
//!   the first decision that says decrease (or a loss); the increase decisions taken
//!   meanwhile are not applied and `s` stays 1, so Algorithm 1 starts afresh from there.
//! - **No cap on `p`** (default; `p_max > 0` caps it). Eq. (15) gives `p ≈ f³ s² / cwnd²`,
//!   above 1 packet per acknowledged packet at small windows or large `f`; the paper
//!   states no bound.
//! - **Loss**, which the paper never sees: `ssthresh = max(cwnd/2, 2)` (Reno), `s ← 1`
//!   and the per-packet change is zero until the next epoch ends. After a timeout the
//!   window slow-starts back to that threshold; then Algorithm 1 resumes as after a loss
//!   (`s = 1`, no change until a full epoch is measured), ignoring the epochs measured
//!   while the window was doubling.
//! - The window is at least 2 packets, so that an epoch always holds two packets.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `rtt_base` | baseline RTT of `f = rtt / rtt_base`, seconds | 0.050 | [0.001, 10] |
//! | `t` | aggressive-probing threshold: increase while `φ ≥ t·T/f` | −0.05 | [−1, 0] |
//! | `rtt_min_epochs` | epochs over which `rtt_min` is the minimum RTT | 10 | [1, 1000] |
//! | `slow_start` | 1: slow start until the first decrease decision or loss | 0 | 0 or 1 |
//! | `p_max` | cap on `p` of eq. (15), packets per acknowledged packet; 0: none | 0 | [0, 1e6] |

use super::{
    slow_start, AckSample, CcHeader, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView,
};
use crate::units::SimTime;
use std::collections::VecDeque;

/// The header word that carries the epoch number.
pub const H_EPOCH: usize = 0;

/// Smallest window TCP-GT sets, packets.
const MIN_CWND: f64 = 2.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpGtConfig {
    /// Baseline RTT of the compensation factor `f = rtt / rtt_base`, seconds, in [0.001, 10].
    pub rtt_base: f64,
    /// Threshold `t` of aggressive probing, a fraction of `T` (eq. 16), in [−1, 0].
    pub t: f64,
    /// Epochs whose smallest RTT is `rtt_min` (eq. 5), in [1, 1000].
    pub rtt_min_epochs: u32,
    /// Slow start until the first decrease decision or loss (the paper does not say).
    pub slow_start: bool,
    /// Cap on `p` of eq. (15), packets per acknowledged packet; 0: no cap (the paper states none).
    pub p_max: f64,
}

impl Default for TcpGtConfig {
    fn default() -> Self {
        TcpGtConfig { rtt_base: 0.050, t: -0.05, rtt_min_epochs: 10, slow_start: false, p_max: 0.0 }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = TcpGtConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = TcpGtConfig {
        rtt_base: r.get("rtt_base", d.rtt_base, 0.001, 10.0)?,
        t: r.get("t", d.t, -1.0, 0.0)?,
        rtt_min_epochs: r.get_int("rtt_min_epochs", d.rtt_min_epochs, 1, 1000)?,
        slow_start: r.get_flag("slow_start", d.slow_start)?,
        p_max: r.get("p_max", d.p_max, 0.0, 1e6)?,
    };
    r.finish()?;
    Ok(Box::new(TcpGt::new(cfg)))
}

/// `G = N_bytes / TR`, bytes per second   (paper 000, eq. 1)
pub fn goodput(n_bytes: f64, tr: f64) -> f64 {
    n_bytes / tr
}

/// `T = N_bytes / rtt_min`, bytes per second   (paper 000, eq. 4)
pub fn throughput(n_bytes: f64, rtt_min: f64) -> f64 {
    n_bytes / rtt_min
}

/// `φ = G − T`, bytes per second   (paper 000, eq. 3)
pub fn phi(g: f64, t: f64) -> f64 {
    g - t
}

/// `f = rtt / rtt_base`   (paper 000, section III-E)
pub fn compensation(rtt: f64, rtt_base: f64) -> f64 {
    rtt / rtt_base
}

/// The increase condition `φ ≥ t·T / f`   (paper 000, eq. 16; Algorithm 1, lines 3 and 9)
pub fn increasing(phi: f64, t: f64, throughput: f64, f: f64) -> bool {
    phi >= t * throughput / f
}

/// `p = f² s² mtu / (G rtt_base cwnd)`, packets per acknowledged packet   (paper 000, eq. 15)
pub fn per_packet_increase(f: f64, s: f64, mtu: f64, g: f64, rtt_base: f64, cwnd: f64) -> f64 {
    f * f * s * s * mtu / (g * rtt_base * cwnd)
}

/// `n = f φ rtt_base / (cwnd mtu)`, packets per acknowledged packet   (paper 000, eq. 17)
pub fn per_packet_decrease(f: f64, phi: f64, rtt_base: f64, cwnd: f64, mtu: f64) -> f64 {
    f * phi * rtt_base / (cwnd * mtu)
}

/// What the sender measured over one epoch, in the paper's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochMeasure {
    /// Bytes the receiver took during the epoch.
    pub n_bytes: f64,
    /// Epoch length at the receiver, seconds.
    pub tr: f64,
    /// Epoch length at the sender, seconds.
    pub ts: f64,
    /// Mean RTT of the epoch, seconds.
    pub rtt: f64,
    /// Smallest RTT of the last `rtt_min_epochs` epochs, seconds.
    pub rtt_min: f64,
}

/// Algorithm 1's outcome for the next epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// Goodput `G`, bytes per second.
    pub g: f64,
    /// Throughput `T`, bytes per second.
    pub t: f64,
    /// `φ = G − T`, bytes per second.
    pub phi: f64,
    /// Compensation factor `f = rtt / rtt_base`.
    pub f: f64,
    /// Splitting variable `s` after the update.
    pub s: f64,
    /// Window change per acknowledged packet in the next epoch: `p` (≥ 0) or `n` (< 0), packets.
    pub delta: f64,
}

/// Algorithm 1 on one epoch's measurement: the new `s` and the per-packet change.
pub fn algorithm_1(cfg: &TcpGtConfig, m: &EpochMeasure, s: f64, cwnd: f64, mtu: f64) -> Decision {
    let g = goodput(m.n_bytes, m.tr);
    let t = throughput(m.n_bytes, m.rtt_min);
    let phi = phi(g, t);
    let f = compensation(m.rtt, cfg.rtt_base);
    if increasing(phi, cfg.t, t, f) {
        let s = s + f; // s = s + f   (eq. 14)
        let p = per_packet_increase(f, s, mtu, g, cfg.rtt_base, cwnd);
        // The optional cap (0: none, the paper's eq. 15 as printed).
        let p = if cfg.p_max > 0.0 { p.min(cfg.p_max) } else { p };
        Decision { g, t, phi, f, s, delta: p }
    } else {
        Decision { g, t, phi, f, s: 1.0, delta: per_packet_decrease(f, phi, cfg.rtt_base, cwnd, mtu) }
    }
}

/// The running epoch: where it began and what has been acknowledged since.
#[derive(Clone, Copy, Debug)]
struct EpochStart {
    /// Sender clock at the ACK that began it.
    sender: SimTime,
    /// Receiver clock (TSval) of that ACK.
    receiver: SimTime,
}

pub struct TcpGt {
    cfg: TcpGtConfig,
    /// The epoch number written on data segments now (starts at 1; 0 is an empty header).
    epoch: u32,
    /// Start of the running epoch; `None` before the first epoch end or after a loss.
    start: Option<EpochStart>,
    /// Packets acknowledged in the running epoch.
    acked: u64,
    /// Sum of the running epoch's RTT samples, seconds, and their number.
    rtt_sum: f64,
    rtt_count: u32,
    /// Smallest RTT sample of the running epoch, seconds.
    rtt_low: f64,
    /// Smallest RTT of each of the last `rtt_min_epochs` epochs, seconds, oldest first.
    minima: VecDeque<f64>,
    /// Splitting variable `s` (eq. 14).
    s: f64,
    /// Window change per acknowledged packet in this epoch, packets (`p` or `n`).
    delta: f64,
    /// After a timeout: slow start up to this window, packets (0 when not restarting).
    restart_to: f64,
    /// In the initial slow start (`slow_start = 1`, until the first decrease decision or loss).
    in_slow_start: bool,
    /// The last decision, for inspection.
    pub last: Option<Decision>,
}

impl TcpGt {
    pub fn new(cfg: TcpGtConfig) -> Self {
        TcpGt {
            cfg,
            epoch: 1,
            start: None,
            acked: 0,
            rtt_sum: 0.0,
            rtt_count: 0,
            rtt_low: f64::INFINITY,
            minima: VecDeque::new(),
            s: 1.0,
            delta: 0.0,
            restart_to: 0.0,
            in_slow_start: cfg.slow_start,
            last: None,
        }
    }

    /// The epoch number written on data segments now.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The splitting variable `s`.
    pub fn s(&self) -> f64 {
        self.s
    }

    /// The window change per acknowledged packet in the running epoch, packets.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// In the initial slow start.
    pub fn in_slow_start(&self) -> bool {
        self.in_slow_start
    }

    /// The smallest RTT of the last `rtt_min_epochs` completed epochs, seconds (infinite before one).
    pub fn rtt_min(&self) -> f64 {
        self.minima.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The ACK `s` echoes the running epoch: close it, decide, and open the next.
    fn end_epoch(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(st) = self.start {
            let ts = (v.now.saturating_sub(st.sender)).secs_f64();
            let tr = (s.rcv_tsval.saturating_sub(st.receiver)).secs_f64();
            if self.rtt_low.is_finite() {
                if self.minima.len() == self.cfg.rtt_min_epochs as usize {
                    self.minima.pop_front();
                }
                self.minima.push_back(self.rtt_low);
            }
            let rtt = if self.rtt_count > 0 { self.rtt_sum / self.rtt_count as f64 } else { ts };
            let m = EpochMeasure { n_bytes: (self.acked * v.mss as u64) as f64, tr, ts, rtt, rtt_min: self.rtt_min() };
            if m.tr > 0.0 && m.n_bytes > 0.0 && m.rtt > 0.0 && m.rtt_min.is_finite() && m.rtt_min > 0.0 {
                let d = algorithm_1(&self.cfg, &m, self.s, v.cwnd, v.mss as f64);
                // In the initial slow start only a decrease counts: it ends the slow start.
                if !self.in_slow_start || d.delta < 0.0 {
                    self.in_slow_start = false;
                    self.s = d.s;
                    self.delta = d.delta;
                }
                self.last = Some(d);
            }
        }
        self.start = Some(EpochStart { sender: v.now, receiver: s.rcv_tsval });
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.acked = 0;
        self.rtt_sum = 0.0;
        self.rtt_count = 0;
        self.rtt_low = f64::INFINITY;
    }
}

impl CongestionControl for TcpGt {
    fn name(&self) -> &'static str {
        "tcp-gt"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.in_slow_start = false;
        self.s = 1.0;
        self.delta = 0.0;
        self.start = None;
        (v.cwnd / 2.0).max(MIN_CWND)
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::Timeout {
            self.restart_to = v.ssthresh;
        }
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if s.cc_echo.0[H_EPOCH] == self.epoch {
            self.end_epoch(v, s);
        }
        self.acked += s.acked as u64;
        if let Some(r) = s.rtt {
            let r = r.secs_f64();
            self.rtt_sum += r;
            self.rtt_count += 1;
            self.rtt_low = self.rtt_low.min(r);
        }
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        if self.in_slow_start {
            return v.cwnd + acked as f64;
        }
        if v.cwnd < self.restart_to {
            return slow_start(v.cwnd, self.restart_to, acked).0;
        }
        if self.restart_to > 0.0 {
            // Slow start is over: what the epochs measured while the window doubled says
            // nothing about the link at this window, so Algorithm 1 starts afresh.
            self.restart_to = 0.0;
            self.s = 1.0;
            self.delta = 0.0;
            self.start = None;
            return v.cwnd;
        }
        (v.cwnd + self.delta * acked as f64).max(MIN_CWND)
    }

    fn on_send(&mut self, _v: &SenderView, _seq: u64) -> CcHeader {
        let mut h = CcHeader::default();
        h.0[H_EPOCH] = self.epoch;
        h
    }
}

#[cfg(test)]
mod tests;
