//! Constant Increase (CI): add `k' · RTT` packets per RTT, so that the window grows by
//! `k'` packets per second whatever the RTT.
//!
//! Source: paper 001 (Ogura, Nemoto, Su, Katto, IEICE Trans. Inf. & Syst. E95-D(2),
//! 2012), section 2.4, eq. (5), with `k'` from eq. (14) (or (8)); CI is "briefly
//! mentioned" in Floyd and Jacobson's phase-effects paper (paper 001's reference \[4\]).
//!
//! - Congestion avoidance: `cwnd += k' · RTT` per RTT (eq. 5), i.e. `k' · RTT / cwnd`
//!   per acknowledged packet: `k'` packets per second, so a flow fills its share `S/n`
//!   of a buffer in the same time whatever its RTT (Table 3: `t2 = Σ 1/k'`).
//! - `k' = 1 / (RTT_ref + s/B)` (eq. 14), `s/B` being the queueing delay of the `s`
//!   packets buffered at the bottleneck: CI then adds exactly what a Reno flow with
//!   propagation RTT `RTT_ref` would add in the same time, one packet per its RTT.
//!   Without a queue this is eq. (8), `k' = 1 / RTT_ref`: 25 packets/s for 40 ms.
//! - Loss: halve, as Reno (section 2.4: "same as Eq. (4)").
//! - Slow start as Reno's.
//!
//! Choices where the paper is silent:
//! - **RTT is the smoothed RTT** (RFC 6298 SRTT), as ns-2's window options use
//!   `t_srtt_`. Before the first RTT sample the increase is Reno's, one packet per RTT.
//! - **`s/B` is measured as `SRTT − RTT_min`**, the flow's own queueing delay: every
//!   flow through the bottleneck sees the same `s/B`, and a sender knows neither `s`
//!   nor `B`. `queue_term = 0` gives eq. (8) instead.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `rtt_ref` | RTT of the reference Reno flow, seconds | 0.040 | [0.001, 10] |
//! | `queue_term` | 1: eq. (14) with the measured queueing delay; 0: eq. (8) | 1 | 0 or 1 |

use super::{CongestionControl, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CiConfig {
    /// RTT of the Reno flow CI matches, seconds.
    pub rtt_ref: f64,
    /// Add the measured queueing delay to `rtt_ref` (eq. 14); otherwise eq. (8).
    pub queue_term: bool,
}

impl Default for CiConfig {
    fn default() -> Self {
        CiConfig { rtt_ref: 0.040, queue_term: true }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = CiConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = CiConfig {
        rtt_ref: r.get("rtt_ref", d.rtt_ref, 0.001, 10.0)?,
        queue_term: r.get_flag("queue_term", d.queue_term)?,
    };
    r.finish()?;
    Ok(Box::new(Ci { cfg }))
}

/// `k' = 1 / (RTT_ref + s/B)`, packets per second   (paper 001, eq. 14; eq. 8 with `queue` = 0)
pub fn ci_k(rtt_ref: f64, queue: f64) -> f64 {
    1.0 / (rtt_ref + queue)
}

/// Packets added per RTT: `k' · RTT`   (paper 001, eq. 5)
pub fn ci_increase(k: f64, rtt: f64) -> f64 {
    k * rtt
}

pub struct Ci {
    cfg: CiConfig,
}

impl Ci {
    pub fn new(cfg: CiConfig) -> Self {
        Ci { cfg }
    }

    /// Packets to add per RTT in congestion avoidance, seen from `v`.
    pub fn per_rtt(&self, v: &SenderView) -> f64 {
        super::rtt_scaled_increase(v, self.cfg.rtt_ref, self.cfg.queue_term, ci_k, ci_increase)
    }
}

impl CongestionControl for Ci {
    fn name(&self) -> &'static str {
        "ci"
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
    fn k_prime_for_a_40_ms_reference_is_25_packets_per_second() {
        assert!((ci_k(0.040, 0.0) - 25.0).abs() < 1e-12);
    }

    #[test]
    fn without_a_queue_ci_adds_packets_in_proportion_to_the_rtt() {
        let c = Ci::new(CiConfig::default());
        // 25 · 0.04 = 1, 25 · 0.08 = 2, 25 · 0.12 = 3 packets per RTT.
        for (rtt, want) in [(40u64, 1.0), (80, 2.0), (120, 3.0)] {
            let got = c.per_rtt(&view(100.0, rtt, rtt));
            assert!((got - want).abs() < 1e-9, "{rtt} ms: {got}");
        }
    }

    #[test]
    fn with_a_queue_ci_adds_what_the_reference_reno_adds_in_the_same_time() {
        let c = Ci::new(CiConfig::default());
        // 20 ms of queue. The reference Reno's RTT is 40 + 20 = 60 ms: it adds 1/0.06
        // packets per second. A flow with RTT_min 80 ms (SRTT 100 ms) adds
        // 0.1/0.06 = 1.667 per RTT, also 1/0.06 per second.
        let per_rtt = c.per_rtt(&view(100.0, 100, 80));
        assert!((per_rtt - 0.1 / 0.06).abs() < 1e-9, "{per_rtt}");
        assert!((per_rtt / 0.1 - 1.0 / 0.06).abs() < 1e-9);
    }

    #[test]
    fn queue_term_off_is_eq_8() {
        let c = Ci::new(CiConfig { queue_term: false, ..CiConfig::default() });
        // 25 · 0.1 = 2.5 whatever the queue.
        assert!((c.per_rtt(&view(100.0, 100, 80)) - 2.5).abs() < 1e-9);
    }

    #[test]
    fn one_window_of_acks_adds_k_prime_rtt() {
        let mut c = Ci::new(CiConfig::default());
        let mut w = 200.0;
        for _ in 0..200 {
            w = c.cong_avoid(&view(w, 80, 80), 1);
        }
        // About 2 packets over ~200 ACKs.
        assert!(w > 201.95 && w < 202.0, "{w}");
    }

    #[test]
    fn ci_halves_on_loss() {
        let mut c = Ci::new(CiConfig::default());
        assert_eq!(c.ssthresh(&view(100.0, 40, 40)), 50.0);
    }
}
