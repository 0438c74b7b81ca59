//! gHSTCP (gentle HighSpeed TCP): HighSpeed TCP that grows like Reno while
//! its RTTs show the bottleneck queue filling, and like HighSpeed otherwise.
//!
//! Source: Z. Zhang, G. Hasegawa, M. Murata, "Performance Analysis and
//! Improvement of HighSpeed TCP with TailDrop/RED Routers" (paper 004),
//! section 3.2.
//!
//! Over the last window of packets, with `d_i` the departure time and `t_i`
//! the RTT of packet `i`, the sender computes Pearson's correlation
//! `r = sum (d_i - d)(t_i - t) / sqrt(sum (d_i - d)^2 sum (t_i - t)^2)` and
//! Fisher's statistic `Z = 1/2 ln((1 + r)/(1 - r)) sqrt(N - 3)`, `N` the
//! window in packets. `Z > 3.09` is a significantly positive correlation: the
//! queue is growing, and the window grows as Reno's, `a(w) = 1` (Reno mode).
//! Otherwise it grows as HighSpeed's, `a(w)` from RFC 3649 (HSTCP mode). The
//! decrease is HighSpeed's `b(w)` in both modes; a loss in Reno mode switches
//! back to HSTCP mode.
//!
//! Choices where the paper is silent:
//! - **The samples.** Every ACK that carries an RTT sample gives one pair:
//!   `t_i` its RTT and `d_i = now - t_i` (with timestamps, the departure of
//!   the segment it echoes). The last `N = floor(cwnd)` pairs are kept in a
//!   ring buffer whose sums (of `d`, `t`, `d^2`, `t^2`, `d t`) are updated
//!   in O(1) per ACK; they are recomputed from the buffer once per buffer
//!   length, with `d` taken relative to the oldest departure, so rounding
//!   does not pile up (amortized O(1)). With delayed ACKs a buffer of `N`
//!   samples spans two windows of packets.
//! - **When the mode is decided.** On every sample once the buffer holds a
//!   full window (`N` pairs, `N >= 4`); until then the mode stays. All RTTs
//!   equal (no spread) counts as no correlation.
//! - **After a loss** (fast retransmit or timeout) the mode is HSTCP and the
//!   buffer starts empty: the old window's samples describe the queue before
//!   the loss, and keeping them would switch straight back to Reno mode.
//! - **`tumbling = 1`** (not the default; for the comparison with the BPF version, which
//!   cannot keep a ring of samples, docs/linux.md): the samples of one window of `N = cwnd`
//!   (cwnd when the window's first sample came, at least 4, at most 1024) are tested once,
//!   when the window is full, and the next window starts empty; the mode holds in between.
//! - a(w) and b(w) are [`super::highspeed`]'s (the RFC's table by default,
//!   the formulas with `table = 0`, as ns-2, which the paper used); slow
//!   start is HighSpeed's in both modes.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `z` | Reno mode while Fisher's Z exceeds this | 3.09 | [0, 100] |
//! | `table` | as `highspeed`: 1 table, 0 formulas | 1 | 0 or 1 |
//! | `tumbling` | 1: one decision per window of samples (the BPF version's), 0: on every sample | 0 | 0 or 1 |
//! | `max_ssthresh` | as `highspeed`: RFC 3742 limited slow start, packets; 0 = off | 0 | 0 or [2, 1e9] |

use super::highspeed::{HighSpeed, HighSpeedConfig};
use super::{additive_increase, AckSample, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView};
use std::collections::VecDeque;

/// Pearson's correlation coefficient from the sums of `n` pairs `(x, y)`:
/// `r = (n Sxy - Sx Sy) / sqrt((n Sxx - Sx^2)(n Syy - Sy^2))`   (paper 004, section 3.2)
/// Zero when either series has no spread.
pub fn pearson(n: f64, sx: f64, sy: f64, sxx: f64, syy: f64, sxy: f64) -> f64 {
    let vx = n * sxx - sx * sx;
    let vy = n * syy - sy * sy;
    if vx <= 0.0 || vy <= 0.0 {
        return 0.0;
    }
    ((n * sxy - sx * sy) / (vx * vy).sqrt()).clamp(-1.0, 1.0)
}

/// Fisher's statistic for correlation `r` over `n` pairs:
/// `Z = 1/2 ln((1 + r)/(1 - r)) sqrt(N - 3)`   (paper 004, section 3.2)
pub fn fisher_z(r: f64, n: usize) -> f64 {
    if n <= 3 {
        return 0.0;
    }
    0.5 * ((1.0 + r) / (1.0 - r)).ln() * ((n - 3) as f64).sqrt()
}

/// Standard deviation, seconds, below which a series counts as constant:
/// the running sums cannot tell a smaller spread from rounding.
pub const MIN_SPREAD_S: f64 = 1e-9;

/// The last window's (departure time, RTT) pairs, seconds, with running sums.
#[derive(Clone, Debug, Default)]
pub struct Correlation {
    /// (departure time, RTT), seconds, oldest first.
    pairs: VecDeque<(f64, f64)>,
    /// The pair the sums are taken relative to (the oldest at the last recomputation), seconds.
    origin: (f64, f64),
    /// Sums of d, t, d^2, t^2, d t over `pairs`, both relative to `origin`.
    sums: [f64; 5],
    /// Changes since the sums were last recomputed.
    changes: usize,
}

impl Correlation {
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    pub fn clear(&mut self) {
        self.pairs.clear();
        self.sums = [0.0; 5];
        self.changes = 0;
    }

    fn add(&mut self, (d, t): (f64, f64), sign: f64) {
        let (d, t) = (d - self.origin.0, t - self.origin.1);
        for (s, x) in self.sums.iter_mut().zip([d, t, d * d, t * t, d * t]) {
            *s += sign * x;
        }
    }

    /// Appends a pair and drops the oldest ones beyond `window`.
    pub fn push(&mut self, departure_s: f64, rtt_s: f64, window: usize) {
        if self.pairs.is_empty() {
            self.origin = (departure_s, rtt_s);
        }
        self.pairs.push_back((departure_s, rtt_s));
        self.add((departure_s, rtt_s), 1.0);
        self.changes += 1;
        while self.pairs.len() > window.max(1) {
            let old = self.pairs.pop_front().expect("longer than the window");
            self.add(old, -1.0);
            self.changes += 1;
        }
        if self.changes >= self.pairs.len().max(64) {
            self.refresh();
        }
    }

    /// Recomputes the sums from the pairs, relative to the oldest departure.
    fn refresh(&mut self) {
        self.origin = self.pairs.front().copied().unwrap_or_default();
        self.sums = [0.0; 5];
        self.changes = 0;
        for i in 0..self.pairs.len() {
            self.add(self.pairs[i], 1.0);
        }
    }

    /// Pearson's r of departure times against RTTs; zero when either spreads
    /// by less than [`MIN_SPREAD_S`] (RTTs equal but for rounding).
    pub fn r(&self) -> f64 {
        let [sd, st, sdd, stt, sdt] = self.sums;
        let n = self.pairs.len() as f64;
        let var = |s: f64, ss: f64| ss / n - (s / n) * (s / n);
        if n < 2.0 || var(sd, sdd) < MIN_SPREAD_S.powi(2) || var(st, stt) < MIN_SPREAD_S.powi(2) {
            return 0.0;
        }
        pearson(n, sd, st, sdd, stt, sdt)
    }

    /// Fisher's Z of [`Self::r`] over the pairs held.
    pub fn z(&self) -> f64 {
        fisher_z(self.r(), self.pairs.len())
    }
}

/// How the window grows in congestion avoidance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// HighSpeed's a(w) packets per RTT.
    Hstcp,
    /// One packet per RTT.
    Reno,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhstcpConfig {
    /// Reno mode while Fisher's Z exceeds this (dimensionless; 3.09 is one-sided 0.1 %).
    pub z: f64,
    /// HighSpeed's a(w), b(w) and slow start.
    pub hs: HighSpeedConfig,
    /// One decision per full window of samples, then a fresh window (the BPF version's way).
    pub tumbling: bool,
}

impl Default for GhstcpConfig {
    fn default() -> Self {
        GhstcpConfig { z: 3.09, hs: HighSpeedConfig::default(), tumbling: false }
    }
}

pub struct Ghstcp {
    cfg: GhstcpConfig,
    hs: HighSpeed,
    corr: Correlation,
    mode: Mode,
    /// With `tumbling`: the current window's size, samples (0: set at its first sample).
    target: usize,
}

impl Ghstcp {
    pub fn new(cfg: GhstcpConfig) -> Self {
        Ghstcp { cfg, hs: HighSpeed::new(cfg.hs), corr: Correlation::default(), mode: Mode::Hstcp, target: 0 }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn correlation(&self) -> &Correlation {
        &self.corr
    }

    /// A loss: HSTCP mode, and the next window's samples start afresh.
    fn on_loss(&mut self) {
        self.mode = Mode::Hstcp;
        self.corr.clear();
        self.target = 0;
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let z = r.get("z", GhstcpConfig::default().z, 0.0, 100.0)?;
    let hs = HighSpeedConfig::read(&mut r)?;
    let tumbling = r.get_flag("tumbling", false)?;
    r.finish()?;
    Ok(Box::new(Ghstcp::new(GhstcpConfig { z, hs, tumbling })))
}

impl CongestionControl for Ghstcp {
    fn name(&self) -> &'static str {
        "ghstcp"
    }

    /// For tools that read the mode during a run (examples/ghstcp_mode.rs).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.on_loss();
        self.hs.ssthresh(v)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        if self.mode == Mode::Hstcp {
            return self.hs.cong_avoid(v, acked);
        }
        // Reno mode: HighSpeed's slow start, then one packet per RTT.
        super::grow(v, acked, |c, s, n| self.hs.slow_start(c, s, n), |cwnd, left| additive_increase(cwnd, 1.0, left))
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        let Some(rtt) = s.rtt else { return };
        let t = rtt.secs_f64();
        if self.cfg.tumbling {
            if self.target == 0 {
                self.target = (v.cwnd.floor() as usize).clamp(4, 1024);
            }
            self.corr.push(v.now.secs_f64() - t, t, self.target);
            if self.corr.len() == self.target {
                self.mode = if self.corr.z() > self.cfg.z { Mode::Reno } else { Mode::Hstcp };
                self.corr.clear();
                self.target = 0;
            }
            return;
        }
        let n = v.cwnd.floor().max(1.0) as usize;
        self.corr.push(v.now.secs_f64() - t, t, n);
        if n >= 4 && self.corr.len() == n {
            self.mode = if self.corr.z() > self.cfg.z { Mode::Reno } else { Mode::Hstcp };
        }
    }

    fn cwnd_event(&mut self, _v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::Timeout {
            self.on_loss();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;
    use crate::units::SimTime;

    fn view(now: SimTime, cwnd: f64) -> SenderView {
        SenderView {
            now,
            srtt: SimTime::from_millis(100),
            rtt_min: SimTime::from_millis(100),
            ..crate::cc::testing::view(cwnd, 1.0)
        }
    }

    fn sample(rtt: SimTime) -> AckSample {
        AckSample { acked: 1, rtt: Some(rtt), rcv_tsval: SimTime::ZERO, cc_echo: CcHeader::default(), ece: false }
    }

    /// ACKs ten milliseconds apart from `start_ms`, RTT (ms) given by `rtt_ms(i)`, at window `cwnd`.
    fn feed(g: &mut Ghstcp, start_ms: u64, count: u64, cwnd: f64, rtt_ms: impl Fn(u64) -> f64) {
        for i in 0..count {
            let now = SimTime::from_millis(start_ms + 10 * i);
            g.pkts_acked(&view(now, cwnd), &sample(SimTime::from_secs_f64(rtt_ms(i) / 1000.0)));
        }
    }

    #[test]
    fn z_of_a_known_series_matches_the_hand_computation() {
        // d = 0..4, t = 1, 2, 3, 5, 4: deviations (-2, -1, 0, 1, 2) and (-2, -1, 0, 2, 1),
        // S_dt = 9, S_dd = S_tt = 10, r = 0.9; Z = 1/2 ln(1.9/0.1) sqrt(2) = 2.08203.
        let mut c = Correlation::default();
        for (d, t) in [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0), (3.0, 5.0), (4.0, 4.0)] {
            c.push(100.0 + d, t, 5);
        }
        assert!((c.r() - 0.9).abs() < 1e-12, "{}", c.r());
        assert!((c.z() - 2.082_033).abs() < 1e-6, "{}", c.z());
        // The same r over 10 pairs: Z = 1.47222 sqrt(7) = 3.89513 > 3.09.
        assert!((fisher_z(0.9, 10) - 3.895_127).abs() < 1e-6);
        // r = 0.7 over 10 pairs: 1/2 ln(1.7/0.3) sqrt(7) = 2.29466 < 3.09.
        assert!((fisher_z(0.7, 10) - 2.294_662).abs() < 1e-5);
        assert_eq!(fisher_z(-0.5, 10), -fisher_z(0.5, 10));
    }

    #[test]
    fn the_ring_keeps_the_last_window_and_its_running_sums_match_a_fresh_computation() {
        let mut c = Correlation::default();
        // 1000 pairs through a window of 7, with a wiggle so no two windows look alike.
        for i in 0..1000u32 {
            let d = 50.0 + i as f64 * 1e-3;
            let t = 0.1 + 1e-4 * ((i * 7919) % 13) as f64;
            c.push(d, t, 7);
        }
        assert_eq!(c.len(), 7);
        let mut fresh = Correlation::default();
        for &(d, t) in c.pairs.iter() {
            fresh.push(d, t, 7);
        }
        assert!((c.r() - fresh.r()).abs() < 1e-9, "{} vs {}", c.r(), fresh.r());
        // The window shrinks when cwnd does.
        c.push(51.0, 0.1, 3);
        assert_eq!(c.len(), 3);
        // No spread in the RTTs: no correlation.
        let mut flat = Correlation::default();
        for i in 0..10 {
            flat.push(i as f64, 0.1, 10);
        }
        assert_eq!(flat.r(), 0.0);
    }

    #[test]
    fn rising_rtts_over_a_full_window_switch_to_reno_growth_and_flat_ones_back() {
        let mut g = Ghstcp::new(GhstcpConfig::default());
        // 999 samples at window 1000: not a full window yet, still HSTCP.
        feed(&mut g, 0, 999, 1000.0, |i| 100.0 + 0.01 * i as f64);
        assert_eq!(g.mode(), Mode::Hstcp);
        // The 1000th: RTT rises steadily with departure time, r = 1, Z infinite.
        feed(&mut g, 9990, 1, 1000.0, |_| 100.0 + 9.99);
        assert_eq!(g.mode(), Mode::Reno);
        // Reno mode: +1/w per ACK, where HighSpeed at 1000 adds a(1000)/w = 8/1000.
        let w = g.cong_avoid(&view(SimTime::ZERO, 1000.0), 1);
        assert!((w - 1000.001).abs() < 1e-12, "{w}");
        // A window of constant RTTs replaces the rising ones: no correlation, HSTCP again.
        feed(&mut g, 20000, 1000, 1000.0, |_| 100.0);
        assert_eq!(g.mode(), Mode::Hstcp);
        let w = g.cong_avoid(&view(SimTime::ZERO, 1000.0), 1);
        assert!((w - 1000.008).abs() < 1e-12, "{w}");
    }

    #[test]
    fn a_weak_trend_over_a_short_window_is_not_significant() {
        // Window 10, ACKs 10 ms apart, RTTs 100 ms +-0.5 ms alternating plus 0.05 ms per
        // step: d_i = 10 i - t_i ms, r = 0.0971, Z = 0.258.
        let mut g = Ghstcp::new(GhstcpConfig::default());
        feed(&mut g, 0, 10, 10.0, |i| 100.0 + if i % 2 == 0 { 0.5 } else { -0.5 } + 0.05 * i as f64);
        assert!((g.correlation().r() - 0.097_076).abs() < 1e-5, "{}", g.correlation().r());
        assert!((g.correlation().z() - 0.257_650).abs() < 1e-5, "{}", g.correlation().z());
        assert_eq!(g.mode(), Mode::Hstcp);
        // 0.5 ms per step over the same alternation: r = 0.9331, Z = 4.449 > 3.09.
        feed(&mut g, 1000, 10, 10.0, |i| 100.0 + if i % 2 == 0 { 0.5 } else { -0.5 } + 0.5 * i as f64);
        assert!((g.correlation().z() - 4.449_250).abs() < 1e-5, "{}", g.correlation().z());
        assert_eq!(g.mode(), Mode::Reno);
    }

    #[test]
    fn a_loss_in_reno_mode_returns_to_hstcp_mode_and_decreases_as_highspeed() {
        let mut g = Ghstcp::new(GhstcpConfig::default());
        feed(&mut g, 0, 1000, 1000.0, |i| 100.0 + 0.01 * i as f64);
        assert_eq!(g.mode(), Mode::Reno);
        // Fast retransmit at 1000: b(1000) = 0.33, ssthresh 670, HSTCP mode, samples dropped.
        let s = g.ssthresh(&view(SimTime::from_secs_f64(1.0), 1000.0));
        assert!((s - 670.0).abs() < 1e-9);
        assert_eq!(g.mode(), Mode::Hstcp);
        assert!(g.correlation().is_empty());
        // The same after a timeout.
        feed(&mut g, 2000, 670, 670.0, |i| 100.0 + 0.01 * i as f64);
        assert_eq!(g.mode(), Mode::Reno);
        g.cwnd_event(&view(SimTime::from_secs_f64(3.0), 670.0), CwndEvent::Timeout);
        assert_eq!(g.mode(), Mode::Hstcp);
    }

    #[test]
    fn tumbling_windows_decide_once_per_full_window_and_hold_the_mode_in_between() {
        let mut g = Ghstcp::new(GhstcpConfig { tumbling: true, ..GhstcpConfig::default() });
        // Window 10: rising RTTs decide Reno at the 10th sample, and the next window starts empty.
        feed(&mut g, 0, 9, 10.0, |i| 100.0 + i as f64);
        assert_eq!(g.mode(), Mode::Hstcp);
        feed(&mut g, 90, 1, 10.0, |_| 109.0);
        assert_eq!(g.mode(), Mode::Reno);
        assert!(g.correlation().is_empty());
        // Nine flat RTTs: the sliding window would already hold them (and test them at once);
        // here the mode holds until the tenth completes the window.
        feed(&mut g, 1000, 9, 10.0, |_| 100.0);
        assert_eq!(g.mode(), Mode::Reno);
        feed(&mut g, 1090, 1, 10.0, |_| 100.0);
        assert_eq!(g.mode(), Mode::Hstcp);
        // The window's size is cwnd at its first sample: a window started at cwnd 4 decides
        // after 4 samples even if cwnd grew meanwhile.
        feed(&mut g, 2000, 1, 4.0, |_| 100.0);
        feed(&mut g, 2010, 3, 50.0, |i| 101.0 + i as f64);
        assert_eq!(g.mode(), Mode::Reno);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("z".into(), -1.0);
        assert_eq!(build(&p).err().unwrap().param, "z");
        let mut p = Params::new();
        p.insert("z".into(), 2.33);
        p.insert("table".into(), 0.0);
        assert!(build(&p).is_ok());
        let mut p = Params::new();
        p.insert("tumbling".into(), 2.0);
        assert_eq!(build(&p).err().unwrap().param, "tumbling");
    }
}
