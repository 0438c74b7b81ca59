//! Constant Rate (CR): add `k · RTT²` packets per RTT, so that the sending rate grows
//! by `k` packets per second every second whatever the RTT.
//!
//! Source: paper 001 (Ogura, Nemoto, Su, Katto, IEICE Trans. Inf. & Syst. E95-D(2),
//! 2012), section 2.3, eqs. (3)–(4), and (7) for `k`; CR itself is from Floyd and
//! Jacobson's phase-effects paper (paper 001's reference \[4\]) and is ns-2's
//! `wnd_option_ 2`, which paper 001's simulations ran.
//!
//! - Congestion avoidance: `cwnd += k · RTT²` per RTT (eq. 3), i.e. `k · RTT² / cwnd`
//!   per acknowledged packet. The window then grows by `k · RTT` packets per second
//!   and the rate `cwnd / RTT` by `k` packets per second per second (Table 2: the
//!   time to fill spare capacity R is `R / (n k)`, independent of the RTT).
//! - `k = 1 / RTT_ref²` (eq. 7): at `RTT = RTT_ref` CR grows exactly as Reno, one
//!   packet per RTT. Paper 001 uses `RTT_ref = 40 ms`: `k = 625` packets/s².
//! - Loss: `cwnd = cwnd / 2` (eq. 4), i.e. `ssthresh = max(cwnd / 2, 2)`.
//! - Slow start as Reno's (the paper changes only the congestion-avoidance increase).
//!
//! Choices where the paper is silent:
//! - **RTT is the smoothed RTT** (RFC 6298 SRTT), as ns-2's `wnd_option_ 2` uses
//!   `t_srtt_`. Before the first RTT sample the increase is Reno's, one packet per RTT.
//! - **`queue_term = 1` uses eq. (13)** instead of (7): `k = 1 / (RTT_ref + q)²` with
//!   `q = SRTT − RTT_min`, the flow's measured queueing delay, read as the paper's
//!   `s/R` (the delay of the `s` packets buffered; `R` there is presumably a misprint
//!   for the capacity `B` of eq. (14)). Section 5.1.2 uses (13) for CR in the buffered
//!   case. Off by default: sections 2.3 and 4 use a constant `k`.
//! - No cap on the per-RTT increase: with a long RTT it exceeds the buffer, as the paper
//!   notes for 480 ms (section 5.3).
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `rtt_ref` | RTT of the reference Reno flow, seconds | 0.040 | [0.001, 10] |
//! | `queue_term` | 0: eq. (7); 1: eq. (13) with the measured queueing delay | 0 | 0 or 1 |

use super::{CongestionControl, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrConfig {
    /// RTT of the Reno flow CR matches, seconds.
    pub rtt_ref: f64,
    /// Add the measured queueing delay to `rtt_ref` (eq. 13).
    pub queue_term: bool,
}

impl Default for CrConfig {
    fn default() -> Self {
        CrConfig { rtt_ref: 0.040, queue_term: false }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = CrConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = CrConfig {
        rtt_ref: r.get("rtt_ref", d.rtt_ref, 0.001, 10.0)?,
        queue_term: r.get_flag("queue_term", d.queue_term)?,
    };
    r.finish()?;
    Ok(Box::new(Cr { cfg }))
}

/// `k = 1 / RTT_ref²`, packets per second squared   (paper 001, eq. 7; eq. 13 with `queue` > 0)
pub fn cr_k(rtt_ref: f64, queue: f64) -> f64 {
    1.0 / ((rtt_ref + queue) * (rtt_ref + queue))
}

/// Packets added per RTT: `k · RTT²`   (paper 001, eq. 3)
pub fn cr_increase(k: f64, rtt: f64) -> f64 {
    k * rtt * rtt
}

pub struct Cr {
    cfg: CrConfig,
}

impl Cr {
    pub fn new(cfg: CrConfig) -> Self {
        Cr { cfg }
    }

    /// Packets to add per RTT in congestion avoidance, seen from `v`.
    pub fn per_rtt(&self, v: &SenderView) -> f64 {
        super::rtt_scaled_increase(v, self.cfg.rtt_ref, self.cfg.queue_term, cr_k, cr_increase)
    }
}

impl CongestionControl for Cr {
    fn name(&self) -> &'static str {
        "cr"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        super::halve(v)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then_increase(v, acked, || self.per_rtt(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::units::SimTime;

    fn view(cwnd: f64, srtt_ms: u64, rtt_min_ms: u64) -> SenderView {
        SenderView {
            srtt: SimTime::from_millis(srtt_ms),
            rtt_min: SimTime::from_millis(rtt_min_ms),
            ..crate::cc::testing::view(cwnd, 10.0)
        }
    }

    #[test]
    fn k_for_a_40_ms_reference_is_625_packets_per_second_squared() {
        assert!((cr_k(0.040, 0.0) - 625.0).abs() < 1e-9);
    }

    #[test]
    fn cr_adds_one_packet_per_rtt_at_the_reference_rtt_and_four_at_twice_it() {
        let c = Cr::new(CrConfig::default());
        assert!((c.per_rtt(&view(100.0, 40, 40)) - 1.0).abs() < 1e-12);
        assert!((c.per_rtt(&view(100.0, 80, 80)) - 4.0).abs() < 1e-12);
        // 120 ms: 625 · 0.12² = 9.
        assert!((c.per_rtt(&view(100.0, 120, 120)) - 9.0).abs() < 1e-9);
    }

    #[test]
    fn cr_grows_the_rate_by_k_per_second_whatever_the_rtt() {
        let c = Cr::new(CrConfig::default());
        for rtt in [20u64, 40, 80, 160] {
            let r = rtt as f64 / 1000.0;
            // Window growth per second = per_rtt / RTT; rate growth = that / RTT.
            let rate_growth = c.per_rtt(&view(100.0, rtt, rtt)) / r / r;
            assert!((rate_growth - 625.0).abs() < 1e-6, "{rtt} ms: {rate_growth}");
        }
    }

    #[test]
    fn one_window_of_acks_adds_k_rtt_squared() {
        let mut c = Cr::new(CrConfig::default());
        let mut w = 200.0;
        for _ in 0..200 {
            w = c.cong_avoid(&view(w, 80, 80), 1);
        }
        // About 4 packets over ~200 ACKs (a little less: the window grows meanwhile).
        assert!(w > 203.9 && w < 204.0, "{w}");
    }

    #[test]
    fn queue_term_adds_the_queueing_delay_to_the_reference_rtt() {
        let c = Cr::new(CrConfig { queue_term: true, ..CrConfig::default() });
        // SRTT 60 ms, RTT_min 40 ms: k = 1/(0.04 + 0.02)², increase = 0.06²/0.06² = 1.
        assert!((c.per_rtt(&view(100.0, 60, 40)) - 1.0).abs() < 1e-12);
        // Without it: 625 · 0.06² = 2.25.
        let c = Cr::new(CrConfig::default());
        assert!((c.per_rtt(&view(100.0, 60, 40)) - 2.25).abs() < 1e-9);
    }

    #[test]
    fn cr_halves_on_loss() {
        let mut c = Cr::new(CrConfig::default());
        assert_eq!(c.ssthresh(&view(100.0, 40, 40)), 50.0);
    }

    #[test]
    fn before_any_rtt_sample_cr_adds_one_packet_per_rtt() {
        let c = Cr::new(CrConfig::default());
        assert_eq!(c.per_rtt(&view(100.0, 0, 0)), 1.0);
    }
}
