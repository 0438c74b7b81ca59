//! Reno / NewReno window policy: additive increase, multiplicative decrease.
//!
//! Source: RFC 5681 (TCP congestion control), sections 3.1–3.2; NewReno's
//! recovery (RFC 6582) is the engine's business, not the window policy's, so
//! `reno` and `newreno` share this file and differ only in the loss recovery
//! the flow uses by default (see `tcp::recovery`).
//!
//! - Slow start: `cwnd += acked` while `cwnd < ssthresh` (RFC 5681 with
//!   appropriate byte counting, RFC 3465, limit L = unbounded at 1 ACK per packet).
//! - Congestion avoidance: `cwnd += a/cwnd` per acknowledged packet (RFC 5681 eq. 3).
//! - Loss: `ssthresh = max(beta * cwnd, 2)`.
//!
//! Choices where the RFC is silent or offers options:
//! - The decrease is taken from `cwnd`, as ns-2's agents and Linux
//!   (`tcp_reno_ssthresh`) do, not from FlightSize as RFC 5681 eq. (4) says;
//!   the two differ only when the sender is application- or receiver-limited.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `a` | additive increase, packets per RTT | 1 | (0, 100] |
//! | `beta` | multiplicative decrease factor | 0.5 | (0, 1) |

use super::{CongestionControl, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenoConfig {
    /// Packets added per RTT in congestion avoidance.
    pub a: f64,
    /// Window kept after a loss, as a fraction of cwnd.
    pub beta: f64,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { a: 1.0, beta: 0.5 }
    }
}

pub struct Reno {
    cfg: RenoConfig,
    /// The registry name it was built under: `"reno"` or `"newreno"`.
    name: &'static str,
}

impl Reno {
    pub fn new(cfg: RenoConfig) -> Self {
        Reno { cfg, name: "reno" }
    }
}

fn read(p: &Params) -> Result<RenoConfig, ParamError> {
    let mut r = ParamReader::new(p);
    let cfg = RenoConfig { a: r.get("a", 1.0, 1e-9, 100.0)?, beta: r.get("beta", 0.5, 1e-9, 1.0 - 1e-9)? };
    r.finish()?;
    Ok(cfg)
}

/// `cc = "reno"`.
pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    Ok(Box::new(Reno::new(read(p)?)))
}

/// `cc = "newreno"`: the same window policy (the recovery is the flow's default, see above).
pub fn build_newreno(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    Ok(Box::new(Reno { name: "newreno", ..Reno::new(read(p)?) }))
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        self.name
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        super::multiplicative_decrease(v.cwnd, self.cfg.beta)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then_increase(v, acked, || self.cfg.a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::view;

    #[test]
    fn reno_and_newreno_report_the_name_they_were_built_under() {
        assert_eq!(crate::cc::build("reno", &Params::new()).unwrap().name(), "reno");
        assert_eq!(crate::cc::build("newreno", &Params::new()).unwrap().name(), "newreno");
    }

    #[test]
    fn loss_halves_the_window_but_not_below_two() {
        let mut r = Reno::new(RenoConfig::default());
        assert_eq!(r.ssthresh(&view(100.0, 1e9)), 50.0);
        assert_eq!(r.ssthresh(&view(3.0, 1e9)), 2.0);
    }

    #[test]
    fn one_window_of_acks_in_congestion_avoidance_adds_about_one_packet() {
        let mut r = Reno::new(RenoConfig::default());
        let mut w = 100.0;
        for _ in 0..100 {
            w = r.cong_avoid(&view(w, 50.0), 1);
        }
        assert!((w - 101.0).abs() < 0.01, "{w}");
    }

    #[test]
    fn slow_start_doubles_per_window_and_crosses_into_avoidance() {
        let mut r = Reno::new(RenoConfig::default());
        // 10 packets acked at cwnd 10 with ssthresh 15: 5 in slow start, 5 in avoidance.
        let w = r.cong_avoid(&view(10.0, 15.0), 10);
        assert!((w - (15.0 + 5.0 / 15.0)).abs() < 1e-12, "{w}");
    }
}
