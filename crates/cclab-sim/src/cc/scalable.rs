//! Scalable TCP: multiplicative increase, multiplicative decrease, so the
//! time to recover from a loss does not depend on the window.
//!
//! Source: T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide
//! Area Networks", ACM SIGCOMM Computer Communication Review 33(2), 2003,
//! section 2 (the algorithm, a = 0.01, b = 0.125, legacy window 16).
//!
//! Above the legacy window each acknowledged packet adds `a = 0.01` packets,
//! so one RTT's worth multiplies the window by about `1 + a`; a loss keeps
//! `1 - b = 0.875` of it. Recovering the pre-loss window takes
//! `log(1/(1-b)) / log(1+a) = 13.4` RTTs whatever the window (Reno needs
//! `w/2` RTTs). At or below the legacy window Scalable is Reno.
//!
//! Choices where the sources are silent or differ:
//! - **Per acknowledged packet, in `f64`.** The paper adds 0.01 per ACK with
//!   an ACK per packet; here 0.01 per packet acknowledged (appropriate byte
//!   counting), so delayed ACKs do not halve the growth. Linux
//!   (`tcp_scalable.c`) adds one packet per `min(cwnd, 50)` acknowledged
//!   packets: 0.02 per packet, twice the paper's `a`, a constant picked to
//!   make up for delayed ACKs when Linux counted ACKs rather than packets.
//!   The `min` also makes Linux Reno-like up to 50 packets rather than 16.
//! - **Decrease `0.875 cwnd`**, not the paper's integer `cwnd - ceil(0.125 cwnd)`
//!   nor Linux's `cwnd - floor(cwnd/8)`; the window is a real number here.
//! - **The legacy test uses the window at the ACK or the loss**: `cwnd <= lwnd`
//!   means Reno's `+1/cwnd` and halving; the paper says "when cwnd exceeds
//!   lwnd" without fixing the boundary. Linux has no legacy decrease (it
//!   always keeps 7/8).
//! - Decrease from cwnd, not FlightSize, as in `reno`; slow start as in `reno`.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `a` | packets added per acknowledged packet above `lwnd` | 0.01 | (0, 1] |
//! | `b` | fraction of the window given up on a loss above `lwnd` | 0.125 | (0, 1) |
//! | `lwnd` | legacy window: Reno at or below it, packets | 16 | [0, 1e9] |

use super::{additive_increase, CongestionControl, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalableConfig {
    /// Packets added per acknowledged packet above the legacy window.
    pub a: f64,
    /// Fraction of the window given up on a loss above the legacy window.
    pub b: f64,
    /// Legacy window, packets: at or below it the algorithm is Reno.
    pub lwnd: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { a: 0.01, b: 0.125, lwnd: 16.0 }
    }
}

pub struct Scalable {
    cfg: ScalableConfig,
}

impl Scalable {
    pub fn new(cfg: ScalableConfig) -> Self {
        Scalable { cfg }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = ScalableConfig::default();
    let cfg = ScalableConfig {
        a: r.get("a", d.a, 1e-9, 1.0)?,
        b: r.get("b", d.b, 1e-9, 1.0 - 1e-9)?,
        lwnd: r.get("lwnd", d.lwnd, 0.0, 1e9)?,
    };
    r.finish()?;
    Ok(Box::new(Scalable::new(cfg)))
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let keep = if v.cwnd <= self.cfg.lwnd { 0.5 } else { 1.0 - self.cfg.b };
        super::multiplicative_decrease(v.cwnd, keep)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then(v, acked, |cwnd, left| {
            if cwnd <= self.cfg.lwnd {
                additive_increase(cwnd, 1.0, left)
            } else {
                // cwnd <- cwnd + a per acknowledged packet   (Kelly 2003, section 2)
                cwnd + self.cfg.a * left as f64
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::view;

    #[test]
    fn each_acked_packet_above_the_legacy_window_adds_a_hundredth() {
        let mut s = Scalable::new(ScalableConfig::default());
        assert!((s.cong_avoid(&view(100.0, 50.0), 1) - 100.01).abs() < 1e-12);
        assert!((s.cong_avoid(&view(100.0, 50.0), 2) - 100.02).abs() < 1e-12);
        // One window of ACKs at 1000: 1000 * 0.01 = +10 packets, 1 % of the window.
        let mut w = 1000.0;
        for _ in 0..1000 {
            w = s.cong_avoid(&view(w, 50.0), 1);
        }
        assert!((w - 1010.0).abs() < 1e-9, "{w}");
    }

    #[test]
    fn a_loss_above_the_legacy_window_keeps_seven_eighths() {
        let mut s = Scalable::new(ScalableConfig::default());
        for (w, want) in [(100.0, 87.5), (16.5, 14.4375), (10000.0, 8750.0)] {
            assert!((s.ssthresh(&view(w, 1e9)) - want).abs() < 1e-9, "{w}");
        }
    }

    #[test]
    fn at_or_below_the_legacy_window_it_is_reno() {
        let mut s = Scalable::new(ScalableConfig::default());
        assert_eq!(s.ssthresh(&view(16.0, 1e9)), 8.0);
        assert_eq!(s.ssthresh(&view(3.0, 1e9)), 2.0);
        assert!((s.cong_avoid(&view(10.0, 5.0), 1) - 10.1).abs() < 1e-12);
        assert!((s.cong_avoid(&view(16.0, 5.0), 1) - (16.0 + 1.0 / 16.0)).abs() < 1e-12);
    }

    #[test]
    fn slow_start_is_unchanged() {
        let mut s = Scalable::new(ScalableConfig::default());
        assert_eq!(s.cong_avoid(&view(100.0, 1e9), 3), 103.0);
        // 5 packets to reach ssthresh 105, the other 5 at +0.01.
        assert!((s.cong_avoid(&view(100.0, 105.0), 10) - 105.05).abs() < 1e-12);
    }
}
