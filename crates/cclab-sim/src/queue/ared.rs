//! Adaptive RED (Floyd, Gummadi, Shenker 2001, "Adaptive RED: An Algorithm for
//! Increasing the Robustness of RED's Active Queue Management"): RED (`red.rs`) whose
//! thresholds and weight follow from the link rate and whose `max_p` is moved every
//! `interval` to keep the average queue inside a target range (Fig. 5):
//!
//! - above the target range: `max_p += min(alpha, max_p/4)`, up to `top`;
//! - below it: `max_p *= beta`, down to `bottom`.
//!
//! The adaptation runs on the first arrival after each interval (see `red.rs`); gARED
//! (`gared.rs`) replaces the rule and keeps the rest.

use super::red::{self, Adapt, RedConfig};
use super::{QueueDisc, QueueSettings};
use crate::registry::{ParamError, ParamSpec, Params};
use crate::units::{Rate, SimTime};

impl RedConfig {
    /// Adaptive RED's automatic settings for a link of `rate` carrying packets of
    /// `mean_pktsize` bytes, C = rate / (8 mean_pktsize) packets per second
    /// (Floyd, Gummadi, Shenker 2001, as paper 004 section 4.1 summarises):
    /// `min_th = max(5, target_delay · C / 2)`, `max_th = 3 min_th`,
    /// `w = 1 − exp(−1/C)`, `max_p` adapted in [bottom, 0.5] every 0.5 s with
    /// `bottom = min(0.01, 1/W)`, W the BDP of a 100 ms path in 1000-byte packets
    /// (ns-2's setting, without which max_p cannot fall low enough at high rates).
    pub fn ared(rate: Rate, mean_pktsize: f64, target_delay: SimTime) -> Self {
        let pkts_per_s = rate.bps() as f64 / (8.0 * mean_pktsize);
        let min_th = (target_delay.secs_f64() * pkts_per_s / 2.0).max(5.0);
        RedConfig {
            min_th,
            max_th: 3.0 * min_th,
            q_weight: 1.0 - (-1.0 / pkts_per_s).exp(),
            mean_pktsize,
            adapt: Adapt::Ared,
            bottom: (80_000.0 / rate.bps() as f64).min(0.01),
            ..RedConfig::red()
        }
    }

    /// The target range of the average, `[min_th + 0.4Δ, min_th + 0.6Δ]` with `Δ = max_th − min_th`.
    pub fn target(&self) -> (f64, f64) {
        let d = self.max_th - self.min_th;
        (self.min_th + 0.4 * d, self.min_th + 0.6 * d)
    }
}

/// The parameters of `queue = "ared"` and `"gared"`: RED's, with defaults from the link.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new("ns2", "flag", "", "0", "0 or 1: ns-2.35's defaults (red_ns2.rs), which the fields below override"),
    ParamSpec::new("mean_pktsize", "number", "bytes", "the flows' packet size", "[1, 1e6]"),
    ParamSpec::new("target_delay", "number", "s", "0.005", "[1e-9, 100]"),
    ParamSpec::new(
        "min_th",
        "number",
        "packets",
        "max(5, target_delay x C / 2), C = rate / (8 mean_pktsize)",
        "[0, 1e12]",
    ),
    ParamSpec::new("max_th", "number", "packets", "3 min_th", "[0, 1e12], above min_th"),
    ParamSpec::new("max_p", "number", "", "0.1 (initial)", "[0, 1]"),
    ParamSpec::new("q_weight", "number", "", "1 - exp(-1/C)", "[1e-12, 1]"),
    ParamSpec::new("gentle", "number", "", "1", "[0, 1], 0 = off"),
    ParamSpec::new("wait", "number", "", "1", "[0, 1], 0 = off"),
    ParamSpec::new("interval", "number", "s", "0.5", "[1e-6, 1e6]"),
    ParamSpec::new("alpha", "number", "", "0.01", "[0, 1]"),
    ParamSpec::new("beta", "number", "", "0.9", "[0, 1]"),
    ParamSpec::new("top", "number", "", "0.5", "[0, 1]"),
    ParamSpec::new("bottom", "number", "", "min(0.01, 80000 / rate in bit/s) (ARED only)", "[0, 1]"),
    ParamSpec::new("bytes", "flag", "", "0", "0 or 1"),
    ParamSpec::new("ecn", "flag", "", "0", "0 or 1"),
    red::DEVICE_QUEUE,
];

/// The registry's constructor for `queue = "ared"`.
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    red::build(Adapt::Ared, s, params)
}

/// The additive increase of `max_p`: `min(max_p + min(alpha, max_p/4), top)` (ARED and gARED).
pub fn increase(max_p: f64, c: &RedConfig) -> f64 {
    (max_p + c.alpha.min(max_p / 4.0)).min(c.top)
}

/// Adaptive RED's rule (Floyd, Gummadi, Shenker 2001, Fig. 5): every interval,
/// above the target range `max_p += min(alpha, max_p/4)` up to `top`; below it
/// `max_p *= beta` down to `bottom`.
pub fn update(max_p: f64, avg: f64, lo: f64, hi: f64, c: &RedConfig) -> f64 {
    if avg > hi && max_p < c.top {
        increase(max_p, c)
    } else if avg < lo && max_p > c.bottom {
        (max_p * c.beta).max(c.bottom)
    } else {
        max_p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ared_sets_thresholds_and_weight_from_the_link_rate() {
        // 1 Gbit/s of 500-byte packets: C = 250000 packets/s.
        let c = RedConfig::ared(Rate(1_000_000_000), 500.0, SimTime::from_millis(5));
        assert!((c.bottom - 8e-5).abs() < 1e-15);
        assert_eq!(RedConfig::ared(Rate(1_000_000), 500.0, SimTime::from_millis(5)).bottom, 0.01);
        assert!((c.min_th - 625.0).abs() < 1e-9);
        assert!((c.max_th - 1875.0).abs() < 1e-9);
        assert!((c.q_weight - (1.0 - (-1.0f64 / 250_000.0).exp())).abs() < 1e-15);
        assert_eq!(c.target(), (1125.0, 1375.0));
    }

    #[test]
    fn ared_max_p_after_a_sequence_of_intervals() {
        let c = RedConfig { adapt: Adapt::Ared, ..RedConfig::red() };
        let (lo, hi) = c.target(); // [9, 11]
        let mut p = 0.1;
        // Above target twice: +min(0.01, p/4) each.
        p = update(p, 12.0, lo, hi, &c);
        p = update(p, 12.0, lo, hi, &c);
        assert!((p - 0.12).abs() < 1e-12);
        // Inside: unchanged. Below: x0.9.
        p = update(p, 10.0, lo, hi, &c);
        p = update(p, 8.0, lo, hi, &c);
        assert!((p - 0.108).abs() < 1e-12);
        // Never below bottom (0.01) nor above top (0.5).
        assert_eq!(update(0.0105, 1.0, lo, hi, &c), 0.01);
        assert_eq!(update(0.5, 20.0, lo, hi, &c), 0.5);
        // Small max_p increases by a quarter of itself.
        assert!((update(0.02, 12.0, lo, hi, &c) - 0.025).abs() < 1e-12);
    }
}
