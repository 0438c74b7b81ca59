//! TCP Vegas as Linux's tcp_vegas.c decides: the `linux` stack's Vegas (`cc_variants`).
//!
//! The rules are vegas.rs's (rounds, the minimum RTT of a round, alpha/beta/gamma); what
//! differs is the arithmetic of a round's decision, which Linux does in integers:
//!
//! - every RTT sample is taken in whole microseconds plus one (`tcp_vegas_pkts_acked`:
//!   `vrtt = sample->rtt_us + 1`, "never allow zero rtt or baseRTT"), and so are baseRTT and
//!   the round's minimum;
//! - the queue estimate is `diff = cwnd · (rtt − baseRTT) / baseRTT`, divided by baseRTT
//!   rather than by the RTT as in the paper, and truncated to whole packets
//!   (`tcp_vegas_cong_avoid`), with `cwnd` Linux's whole-packet `snd_cwnd`;
//! - the window the measured rate fills is `cwnd · baseRTT / rtt`, truncated (`do_div`).
//!
//! The truncation widens the band in which Vegas holds its window: Linux holds while
//! alpha ≤ diff ≤ beta in whole packets, that is while the real estimate is in
//! [alpha, beta + 1), and leaves slow start only when it reaches gamma + 1.

use super::vegas::{read_config, Estimate, Vegas, VegasConfig};
use super::CongestionControl;
use crate::registry::{ParamError, Params};
use crate::units::SimTime;

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    Ok(Box::new(Vegas::with_estimate(read_config(p, VegasConfig::default())?, Estimate::Linux)))
}

/// A sample as Linux's Vegas keeps it: whole microseconds plus one, in seconds.
pub fn vrtt(r: SimTime) -> f64 {
    (r.0 / 1_000_000 + 1) as f64 * 1e-6
}

/// Whole microseconds of a `vrtt` value.
fn micros(s: f64) -> u64 {
    (s * 1e6).round() as u64
}

/// Linux's (diff, target_cwnd) for window `cwnd` (its whole packets are `snd_cwnd`), baseRTT
/// and the round's minimum RTT `rtt` (both `vrtt` values).
pub fn estimate(cwnd: f64, base_rtt: f64, rtt: f64) -> (f64, f64) {
    let (w, base, rtt) = (cwnd.max(0.0).floor() as u64, micros(base_rtt).max(1), micros(rtt).max(1));
    // `diff` is a u32 in Linux; a round's minimum is never below baseRTT.
    let diff = w * rtt.saturating_sub(base) / base;
    let target = w * base / rtt;
    (diff as f64, target as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_whole_microseconds_plus_one() {
        assert_eq!(micros(vrtt(SimTime::from_micros(40_000))), 40_001);
        assert_eq!(micros(vrtt(SimTime(40_000_999_999))), 40_001); // 40,000.999999 us
        assert_eq!(micros(vrtt(SimTime::ZERO)), 1);
    }

    #[test]
    fn diff_is_divided_by_base_rtt_and_truncated() {
        // 100 packets, baseRTT 40 ms, RTT 41.5 ms: the paper's estimate is 100 · 1.5/41.5 =
        // 3.61, Linux's 100 · 1500 / 40000 = 3.75, truncated to 3.
        let (base, rtt) = (vrtt(SimTime::from_micros(39_999)), vrtt(SimTime::from_micros(41_499)));
        assert_eq!(estimate(100.0, base, rtt), (3.0, 96.0)); // 100 · 40000 / 41500 = 96.39
                                                             // A fractional window counts its whole packets only (snd_cwnd).
        assert_eq!(estimate(100.9, base, rtt), (3.0, 96.0));
        // 4.9 real packets queued holds under beta = 4 (diff 4), where the paper's would cut.
        let rtt = vrtt(SimTime::from_micros(41_959)); // 100 · 1960 / 40000 = 4.9
        assert_eq!(estimate(100.0, base, rtt).0, 4.0);
        assert!(super::super::vegas::queued_packets(100.0, 0.040, 0.04196) > 4.0);
    }
}
