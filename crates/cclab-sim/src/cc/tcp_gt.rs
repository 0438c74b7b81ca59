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
mod tests {
    use super::*;
    use crate::cc::CaState;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn view(now_ms: u64, cwnd: f64) -> SenderView {
        SenderView {
            now: ms(now_ms),
            cwnd,
            ssthresh: f64::INFINITY,
            flight_size: cwnd as u64,
            srtt: ms(80),
            rtt_min: ms(80),
            mss: 1000,
            state: CaState::Open,
        }
    }

    fn ack(epoch: u32, rcv_ms: u64, rtt_ms: u64) -> AckSample {
        let mut h = CcHeader::default();
        h.0[H_EPOCH] = epoch;
        AckSample { acked: 1, rtt: Some(ms(rtt_ms)), rcv_tsval: ms(rcv_ms), cc_echo: h }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn phi_is_goodput_over_tr_minus_throughput_over_rtt_min() {
        // 100 packets of 1000 B received in 100 ms, rtt_min 80 ms.
        let g = goodput(100_000.0, 0.100);
        let t = throughput(100_000.0, 0.080);
        assert!(close(g, 1.0e6) && close(t, 1.25e6));
        assert!(close(phi(g, t), -0.25e6));
    }

    #[test]
    fn per_packet_increase_follows_eq_15() {
        // f = 80/50 = 1.6, s = 3, mtu 1000 B, G = 1e6 B/s, cwnd 100:
        // p = 2.56 · 9 · 1000 / (1e6 · 0.05 · 100) = 23040 / 5e6 = 0.004608.
        let f = compensation(0.080, 0.050);
        assert!(close(f, 1.6));
        assert!(close(per_packet_increase(f, 3.0, 1000.0, 1.0e6, 0.050, 100.0), 0.004608));
    }

    #[test]
    fn per_packet_decrease_over_one_window_removes_phi_times_rtt_packets() {
        // f = 1.6, φ = −0.25e6 B/s, cwnd 100: n = 1.6 · (−0.25e6) · 0.05 / (100 · 1000) = −0.2,
        // and 100 ACKs take away 20 packets = φ · rtt / mtu = −0.25e6 · 0.08 / 1000 (eq. 6).
        let n = per_packet_decrease(1.6, -0.25e6, 0.050, 100.0, 1000.0);
        assert!(close(n, -0.2), "{n}");
        assert!(close(100.0 * n, -0.25e6 * 0.080 / 1000.0));
    }

    #[test]
    fn the_increase_threshold_is_five_percent_of_throughput_divided_by_f() {
        // T = 1.25e6 B/s, f = 1.6: threshold −0.05 · 1.25e6 / 1.6 = −39062.5 B/s.
        assert!(increasing(-39_062.5, -0.05, 1.25e6, 1.6));
        assert!(!increasing(-39_063.0, -0.05, 1.25e6, 1.6));
        assert!(increasing(1.0, -0.05, 1.25e6, 1.6));
    }

    #[test]
    fn algorithm_1_grows_s_by_f_while_increasing_and_resets_it_on_a_decrease() {
        let cfg = TcpGtConfig::default();
        // φ = 0 at rtt 80 ms: s = 2 + 1.6 = 3.6, p = 2.56 · 12.96 · 1000 / (1e6 · 0.05 · 80).
        let flat = EpochMeasure { n_bytes: 80_000.0, tr: 0.080, ts: 0.080, rtt: 0.080, rtt_min: 0.080 };
        let d = algorithm_1(&cfg, &flat, 2.0, 80.0, 1000.0);
        assert!(close(d.g, 1.0e6) && close(d.phi, 0.0) && close(d.s, 3.6));
        assert!(close(d.delta, 2.56 * 3.6 * 3.6 * 1000.0 / (1.0e6 * 0.05 * 80.0)), "{}", d.delta);
        // The receiver took 100 ms for 100 packets sent in an 80 ms RTT: φ = −0.25e6 < −39062.5.
        let queued = EpochMeasure { n_bytes: 100_000.0, tr: 0.100, ts: 0.100, rtt: 0.080, rtt_min: 0.080 };
        let d = algorithm_1(&cfg, &queued, 7.0, 100.0, 1000.0);
        assert!(close(d.s, 1.0) && close(d.delta, -0.2), "{d:?}");
    }

    #[test]
    fn data_segments_carry_the_epoch_and_an_echo_of_it_starts_the_next() {
        let mut c = TcpGt::new(TcpGtConfig::default());
        assert_eq!(c.on_send(&view(0, 2.0), 0).0[H_EPOCH], 1);
        c.pkts_acked(&view(80, 2.0), &ack(1, 40, 80));
        assert_eq!(c.epoch(), 2);
        assert_eq!(c.on_send(&view(80, 2.0), 2).0[H_EPOCH], 2);
        // Further echoes of epoch 1 do not end epoch 2.
        c.pkts_acked(&view(81, 2.0), &ack(1, 41, 80));
        assert_eq!(c.epoch(), 2);
        // No measurement yet: the first epoch end only marks the clocks.
        assert_eq!(c.delta(), 0.0);
        assert!(c.last.is_none());
    }

    #[test]
    fn an_epoch_measures_the_packets_acknowledged_between_two_echo_ends_over_the_receiver_clock() {
        let mut c = TcpGt::new(TcpGtConfig::default());
        // Epoch 1 ends at 80 ms (receiver clock 40 ms); 10 packets of epoch 1 follow.
        c.pkts_acked(&view(80, 10.0), &ack(1, 40, 80));
        for i in 1..10 {
            c.pkts_acked(&view(80 + i, 10.0), &ack(1, 40 + i, 80));
        }
        // Epoch 2 ends at 160 ms, receiver clock 140 ms: 10 000 B in TR = 100 ms, TS = 80 ms.
        c.pkts_acked(&view(160, 10.0), &ack(2, 140, 80));
        let d = c.last.expect("a decision");
        assert!(close(d.g, 1.0e5), "{d:?}"); // 10 000 B / 0.1 s
        assert!(close(d.t, 1.25e5), "{d:?}"); // 10 000 B / 0.08 s
        assert!(close(d.phi, -0.25e5));
        // −25 000 < −0.05 · 125 000 / 1.6: decrease by n = 1.6 · (−25 000) · 0.05 / (10 · 1000) = −0.2.
        assert!(close(c.delta(), -0.2));
        assert_eq!(c.epoch(), 3);
        // The next ACK's window change is n per acknowledged packet.
        assert!(close(c.cong_avoid(&view(161, 10.0), 2), 9.6));
    }

    #[test]
    fn rtt_min_is_the_smallest_rtt_of_the_last_ten_epochs() {
        let mut c = TcpGt::new(TcpGtConfig::default());
        // Round k (k = 1..=12) ends epoch k and then sees RTT samples of 100 + k ms, except
        // round 1 at 60 ms; those samples belong to epoch k + 1, which round k + 1 ends.
        let mut now = 0;
        for k in 1..=12u32 {
            let rtt = if k == 1 { 60 } else { 100 + k as u64 };
            now += 100;
            c.pkts_acked(&view(now, 10.0), &ack(k, now, rtt));
            c.pkts_acked(&view(now + 1, 10.0), &ack(k - 1, now + 1, rtt));
            if k == 11 {
                // Epochs 2..=11 (samples of rounds 1..=10) have ended: 60 ms is in.
                assert!(close(c.rtt_min(), 0.060), "{}", c.rtt_min());
            }
        }
        // After round 12 the last ten epochs hold rounds 2..=11: the smallest is 102 ms.
        assert!(close(c.rtt_min(), 0.102), "{}", c.rtt_min());
    }

    #[test]
    fn a_loss_halves_the_window_and_resets_the_splitting_variable() {
        let mut c = TcpGt::new(TcpGtConfig::default());
        c.s = 9.0;
        c.delta = 0.5;
        assert_eq!(c.ssthresh(&view(0, 100.0)), 50.0);
        assert_eq!((c.s(), c.delta()), (1.0, 0.0));
        assert_eq!(c.ssthresh(&view(0, 3.0)), MIN_CWND);
    }

    #[test]
    fn after_a_timeout_slow_start_reaches_ssthresh_and_algorithm_1_starts_afresh() {
        let mut c = TcpGt::new(TcpGtConfig::default());
        let mut v = view(0, 100.0);
        v.ssthresh = 50.0;
        c.cwnd_event(&v, CwndEvent::Timeout);
        // A decision taken during the restart (as an epoch end would set it) is not applied.
        (c.s, c.delta, c.start) = (5.0, -0.3, Some(EpochStart { sender: ms(0), receiver: ms(0) }));
        assert_eq!(c.cong_avoid(&view(0, 10.0), 1), 11.0);
        assert_eq!(c.cong_avoid(&view(0, 50.0), 1), 50.0);
        assert_eq!((c.s(), c.delta()), (1.0, 0.0));
        assert!(c.start.is_none());
        // From then on the per-packet change applies again.
        c.delta = 0.25;
        assert_eq!(c.cong_avoid(&view(0, 50.0), 2), 50.5);
    }

    #[test]
    fn defaults_are_the_papers_and_bad_parameters_are_rejected() {
        assert_eq!(
            TcpGtConfig::default(),
            TcpGtConfig { rtt_base: 0.050, t: -0.05, rtt_min_epochs: 10, slow_start: false, p_max: 0.0 }
        );
        let mut p = Params::new();
        p.insert("t".into(), 0.1);
        assert_eq!(build(&p).err().unwrap().param, "t");
        let mut p = Params::new();
        p.insert("rtt_min_epochs".into(), 2.5);
        assert_eq!(build(&p).err().unwrap().param, "rtt_min_epochs");
        assert_eq!(crate::cc::build("tcp-gt", &Params::new()).unwrap().name(), "tcp-gt");
        for (name, bad) in [("slow_start", 2.0), ("slow_start", 0.5), ("p_max", -1.0), ("p_max", 2e6)] {
            let mut p = Params::new();
            p.insert(name.into(), bad);
            let e = build(&p).err().unwrap();
            assert_eq!((e.param.as_str(), e.value.as_str()), (name, bad.to_string().as_str()));
        }
        let mut p = Params::new();
        p.insert("slow_start".into(), 1.0);
        p.insert("p_max".into(), 1.0);
        assert!(build(&p).is_ok());
    }

    #[test]
    fn p_max_caps_the_increase_of_eq_15_and_zero_leaves_it_alone() {
        // φ = 0 at rtt 320 ms (f = 6.4), s = 1 → 7.4, G = 2 packets per 320 ms, cwnd 2:
        // p = 6.4² · 7.4² · 1000 / (6250 · 0.05 · 2) ≈ 3590 packets per acknowledged packet.
        let m = EpochMeasure { n_bytes: 2000.0, tr: 0.320, ts: 0.320, rtt: 0.320, rtt_min: 0.320 };
        let raw = algorithm_1(&TcpGtConfig::default(), &m, 1.0, 2.0, 1000.0);
        assert!(close(raw.delta, 6.4 * 6.4 * 7.4 * 7.4 * 1000.0 / (6250.0 * 0.05 * 2.0)), "{}", raw.delta);
        let cfg = TcpGtConfig { p_max: 1.0, ..TcpGtConfig::default() };
        let capped = algorithm_1(&cfg, &m, 1.0, 2.0, 1000.0);
        assert_eq!(capped.delta, 1.0);
        assert!(close(capped.s, 7.4));
        // Below the cap, and on a decrease, the cap changes nothing.
        let cfg = TcpGtConfig { p_max: 1e4, ..TcpGtConfig::default() };
        assert_eq!(algorithm_1(&cfg, &m, 1.0, 2.0, 1000.0), raw);
        let queued = EpochMeasure { n_bytes: 100_000.0, tr: 0.100, ts: 0.100, rtt: 0.080, rtt_min: 0.080 };
        let cfg = TcpGtConfig { p_max: 0.001, ..TcpGtConfig::default() };
        assert!(close(algorithm_1(&cfg, &queued, 7.0, 100.0, 1000.0).delta, -0.2));
    }

    #[test]
    fn slow_start_doubles_until_the_first_decrease_decision_then_algorithm_1_runs() {
        let cfg = TcpGtConfig { slow_start: true, ..TcpGtConfig::default() };
        let mut c = TcpGt::new(cfg);
        assert!(c.in_slow_start());
        assert_eq!(c.cong_avoid(&view(0, 2.0), 2), 4.0);
        // Epoch 1 ends at 80 ms; epoch 2 (10 packets, TR = TS = 80 ms, no queue) ends at 160 ms:
        // an increase decision, not applied.
        c.pkts_acked(&view(80, 10.0), &ack(1, 40, 80));
        for i in 1..10 {
            c.pkts_acked(&view(80 + i, 10.0), &ack(1, 40 + i, 80));
        }
        c.pkts_acked(&view(160, 10.0), &ack(2, 120, 80));
        assert!(c.last.expect("a decision").delta > 0.0);
        assert!(c.in_slow_start());
        assert_eq!((c.s(), c.delta()), (1.0, 0.0));
        assert_eq!(c.cong_avoid(&view(161, 10.0), 1), 11.0);
        // Epoch 3: 10 packets over TR = 100 ms with rtt_min 80 ms: decrease, slow start ends.
        for i in 1..10 {
            c.pkts_acked(&view(160 + i, 10.0), &ack(2, 120 + i, 80));
        }
        c.pkts_acked(&view(240, 10.0), &ack(3, 220, 80));
        assert!(!c.in_slow_start());
        assert!(close(c.delta(), -0.2), "{}", c.delta());
        assert!(close(c.cong_avoid(&view(241, 10.0), 2), 9.6));
        // A loss also ends it.
        let mut c = TcpGt::new(cfg);
        c.ssthresh(&view(0, 100.0));
        assert!(!c.in_slow_start());
        assert_eq!(c.cong_avoid(&view(0, 50.0), 2), 50.0);
    }
}
