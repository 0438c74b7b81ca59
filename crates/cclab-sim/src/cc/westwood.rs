//! Westwood+: after a loss, set the window to the bandwidth estimate times RTT_min.
//!
//! Sources: L. A. Grieco, S. Mascolo, "Performance evaluation and comparison of
//! Westwood+, New Reno, and Vegas TCP congestion control", ACM CCR 34(2), 2004, and
//! S. Mascolo, C. Casetti, M. Gerla et al., "TCP Westwood: bandwidth estimation for
//! enhanced transport over wireless links", MobiCom 2001 (paper 001's reference \[10\]);
//! Linux `net/ipv4/tcp_westwood.c` for the filter. Mode 1 is paper 001, eq. (2).
//!
//! Westwood+ grows the window as Reno does. It counts the data acknowledged over each
//! round trip, divides by the time taken, and low-pass filters these samples into a
//! bandwidth estimate BWE (packets per second). On a loss the window is set to what
//! that rate fills when no queue is left, instead of half the window:
//!
//! `ssthresh = max(BWE · RTT_min, 2)` packets; after fast recovery `cwnd = ssthresh`
//! (the sender's deflation), after an RTO `cwnd = 1`.
//!
//! Mode 1 (paper 001, eq. (2), "TCPW-RE" as HRF-TCP uses it) needs no estimate: it
//! shrinks the window by the share of the RTT that is queueing, but never below half:
//!
//! `ssthresh = max(RTT_min / RTT · cwnd, cwnd / 2)`.
//!
//! Choices where the sources are silent or differ:
//! - **The filter is Linux's**: two cascaded stages `x ← (7x + sample)/8`, the first
//!   sample filling both. (Grieco and Mascolo describe one stage with gain 0.9.)
//! - **A sample spans at least one RTT and at least 50 ms** (Linux: shorter windows are
//!   too noisy), measured from the ACK that closed the previous sample; it counts the
//!   packets newly acknowledged, cumulatively or by SACK, in (start, now]. The RTT is
//!   the latest sample. The first ACK only opens the first window.
//! - **RTT_min is the connection's smallest sample** (the sender's); Linux relearns it
//!   after an RTO, which matters only when the path changes.
//! - **ssthresh never exceeds cwnd.** Westwood+ sets `cwnd = min(cwnd, ssthresh)`, so
//!   a loss never opens the window; the sender deflates to ssthresh after recovery, so
//!   ssthresh is capped at cwnd. The two differ only when BWE · RTT_min > cwnd, where
//!   Westwood+ would then slow-start back up to the estimate.
//! - Before the first estimate (a loss within the first round trip) the window is
//!   halved; Linux would set it to 2.
//! - Mode 1's RTT is the latest RTT sample: "the RTT just before the packet loss".
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `mode` | 0 = Westwood+ bandwidth estimate, 1 = paper 001 eq. (2) | 0 | 0 or 1 |
//! | `min_sample` | shortest bandwidth sample, seconds | 0.05 | [0, 10] |

use super::reno::{Reno, RenoConfig};
use super::{AckSample, CongestionControl, ParamError, ParamReader, Params, SenderView};
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodConfig {
    /// 0: Westwood+ (bandwidth estimate); 1: paper 001 eq. (2).
    pub mode: u32,
    /// Shortest bandwidth sample, seconds.
    pub min_sample: f64,
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        WestwoodConfig { mode: 0, min_sample: 0.05 }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = WestwoodConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = WestwoodConfig {
        mode: r.get_int("mode", d.mode, 0, 1)?,
        min_sample: r.get("min_sample", d.min_sample, 0.0, 10.0)?,
    };
    r.finish()?;
    Ok(Box::new(Westwood::new(cfg)))
}

/// One stage of the low-pass filter: `x ← (7x + sample) / 8`.
fn low_pass(x: f64, sample: f64) -> f64 {
    (7.0 * x + sample) / 8.0
}

/// `cwnd = max(RTT_min / RTT · cwnd, cwnd / 2)`   (paper 001, eq. 2)
pub fn rtt_ratio_window(cwnd: f64, rtt_min: f64, rtt: f64) -> f64 {
    (rtt_min / rtt * cwnd).max(cwnd / 2.0)
}

pub struct Westwood {
    cfg: WestwoodConfig,
    reno: Reno,
    /// When the current bandwidth sample began (None before the first ACK).
    sample_start: Option<SimTime>,
    /// Packets acknowledged since `sample_start`.
    acked: f64,
    /// First filter stage, packets per second (zero before the first sample).
    bw_ns: f64,
    /// Bandwidth estimate BWE, packets per second (zero before the first sample).
    bw: f64,
    /// Latest RTT sample, seconds (zero before the first).
    last_rtt: f64,
}

impl Westwood {
    pub fn new(cfg: WestwoodConfig) -> Self {
        Westwood {
            cfg,
            reno: Reno::new(RenoConfig::default()),
            sample_start: None,
            acked: 0.0,
            bw_ns: 0.0,
            bw: 0.0,
            last_rtt: 0.0,
        }
    }

    /// The bandwidth estimate, packets per second (zero before the first sample).
    pub fn bandwidth(&self) -> f64 {
        self.bw
    }

    fn filter(&mut self, sample: f64) {
        if self.bw == 0.0 && self.bw_ns == 0.0 {
            self.bw_ns = sample;
            self.bw = sample;
        } else {
            self.bw_ns = low_pass(self.bw_ns, sample);
            self.bw = low_pass(self.bw, self.bw_ns);
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            self.last_rtt = r.secs_f64();
        }
        let Some(start) = self.sample_start else {
            self.sample_start = Some(v.now);
            return;
        };
        self.acked += s.acked as f64;
        let span = (v.now - start).secs_f64();
        if self.last_rtt > 0.0 && span > 0.0 && span >= self.last_rtt.max(self.cfg.min_sample) {
            self.filter(self.acked / span);
            self.acked = 0.0;
            self.sample_start = Some(v.now);
        }
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let rtt_min = v.rtt_min.secs_f64();
        let w = match self.cfg.mode {
            0 if self.bw > 0.0 && rtt_min > 0.0 => (self.bw * rtt_min).min(v.cwnd),
            1 if self.last_rtt > 0.0 && rtt_min > 0.0 => rtt_ratio_window(v.cwnd, rtt_min, self.last_rtt),
            _ => v.cwnd / 2.0,
        };
        w.max(super::MIN_WINDOW)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        self.reno.cong_avoid(v, acked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;

    fn view(now_us: u64, cwnd: f64, rtt_min_ms: u64) -> SenderView {
        SenderView {
            now: SimTime::from_micros(now_us),
            rtt_min: SimTime::from_millis(rtt_min_ms),
            ..crate::cc::testing::view(cwnd, f64::INFINITY)
        }
    }

    fn ack(c: &mut Westwood, now_us: u64, rtt_ms: u64, acked: u32) {
        let s = AckSample {
            acked,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&view(now_us, 100.0, rtt_ms), &s);
    }

    /// One packet acknowledged per millisecond from `from_ms` to `to_ms`, RTT `rtt_ms`.
    fn steady(c: &mut Westwood, from_ms: u64, to_ms: u64, rtt_ms: u64) {
        for t in from_ms..=to_ms {
            ack(c, t * 1000, rtt_ms, 1);
        }
    }

    #[test]
    fn westwood_sets_ssthresh_to_the_bandwidth_estimate_times_rtt_min() {
        let mut c = Westwood::new(WestwoodConfig::default());
        // 1000 packets per second over one 100 ms RTT (the ACK at 0 ms opens the sample).
        steady(&mut c, 0, 100, 100);
        assert!((c.bandwidth() - 1000.0).abs() < 1e-9, "{}", c.bandwidth());
        // 1000 pkt/s · 80 ms = 80 packets, where Reno would keep 75 of 150.
        assert!((c.ssthresh(&view(100_000, 150.0, 80)) - 80.0).abs() < 1e-9);
    }

    #[test]
    fn the_estimate_is_two_cascaded_seven_eighths_filters() {
        let mut c = Westwood::new(WestwoodConfig::default());
        steady(&mut c, 0, 100, 100); // sample 1000 fills both stages
        for t in 101..=200 {
            ack(&mut c, t * 1000, 100, 2); // sample 2000
        }
        // Stage 1: (7 · 1000 + 2000)/8 = 1125; stage 2: (7 · 1000 + 1125)/8 = 1015.625.
        assert!((c.bandwidth() - 1015.625).abs() < 1e-9, "{}", c.bandwidth());
    }

    #[test]
    fn a_bandwidth_sample_spans_at_least_fifty_milliseconds() {
        let mut c = Westwood::new(WestwoodConfig::default());
        // RTT 20 ms: no sample until 50 ms have passed.
        steady(&mut c, 0, 49, 20);
        assert_eq!(c.bandwidth(), 0.0);
        ack(&mut c, 50_000, 20, 1);
        assert!((c.bandwidth() - 1000.0).abs() < 1e-9, "{}", c.bandwidth());
    }

    #[test]
    fn the_estimate_never_raises_the_window_on_a_loss() {
        let mut c = Westwood::new(WestwoodConfig::default());
        steady(&mut c, 0, 100, 100);
        // BWE · RTT_min = 1000 · 0.1 = 100 > cwnd = 60: keep 60.
        assert_eq!(c.ssthresh(&view(100_000, 60.0, 100)), 60.0);
    }

    #[test]
    fn a_loss_before_any_estimate_halves_the_window() {
        let mut c = Westwood::new(WestwoodConfig::default());
        assert_eq!(c.ssthresh(&view(0, 60.0, 40)), 30.0);
        assert_eq!(c.ssthresh(&view(0, 3.0, 40)), 2.0);
    }

    #[test]
    fn mode_1_keeps_rtt_min_over_rtt_of_the_window_but_at_least_half() {
        let mut c = Westwood::new(WestwoodConfig { mode: 1, ..WestwoodConfig::default() });
        // RTT 60 ms against RTT_min 40 ms: 100 · 40/60 = 66.67 > 50.
        ack(&mut c, 0, 60, 1);
        assert!((c.ssthresh(&view(0, 100.0, 40)) - 100.0 * 40.0 / 60.0).abs() < 1e-9);
        // RTT 100 ms: 100 · 40/100 = 40 < 50, so half.
        ack(&mut c, 1000, 100, 1);
        assert_eq!(c.ssthresh(&view(1000, 100.0, 40)), 50.0);
    }

    #[test]
    fn the_window_grows_as_renos() {
        let mut c = Westwood::new(WestwoodConfig::default());
        let mut v = view(0, 100.0, 40);
        v.ssthresh = 50.0;
        assert!((c.cong_avoid(&v, 1) - 100.01).abs() < 1e-12);
    }

    #[test]
    fn mode_must_be_zero_or_one() {
        let mut p = Params::new();
        p.insert("mode".into(), 0.5);
        assert_eq!(build(&p).err().unwrap().param, "mode");
    }
}
