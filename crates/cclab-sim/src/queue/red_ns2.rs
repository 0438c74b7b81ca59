//! ns-2.35's `Queue/RED` as its defaults leave it, for `queue_params = { ns2 = 1 }` on
//! `red`, `ared` and `gared`: the settings ns-default.tcl gives it (`bytes_ true`,
//! `queue_in_bytes_ true`, `mean_pktsize_ 500`, `thresh_ 0`, `maxthresh_ 0`,
//! `q_weight_ -1`, `linterm_ 10`, `gentle_ true`, `wait_ true`, `targetdelay_ 0.005`,
//! `bottom_ 0`), completed from the link as red.cc's `initialize_params` does, and the
//! two details of its adaptation that differ from Floyd et al.'s Fig. 5 (`red.rs`).
//!
//! With C the link rate in packets of `mean_pktsize` per second (red.cc's `ptc`):
//! - `thresh_ 0`: min_th = max(5, targetdelay · C / 2); `maxthresh_ 0`: max_th = 3 min_th;
//! - `q_weight_ -1`: w = 1 − exp(−1 / (10 · rtt · C)), rtt = max(0.1 s, 3 (d + 1/C)), d
//!   the link's propagation delay;
//! - `bottom_ 0`: bottom = min(0.01, 80000 / rate in bit/s);
//! - the gentle line above max_th runs from the *initial* max_p to 1 at 2 max_th (its
//!   slope is set once, at reset, and adaptation never moves it);
//! - Adaptive RED moves max_p on the first arrival *after* an interval, restarts the
//!   interval only when max_p changed, and does not clamp the step: max_p can fall
//!   below `bottom` by one factor beta or rise above `top` by one step.
//!
//! Measured with `ns` (ns-2.35, Debian): 100 Mbit/s, 30 ms gives thresh_ 62.5, maxthresh_
//! 187.5, q_weight_ 4.0e-5, bottom_ 8e-4; 1 Gbit/s, 50 ms gives 625, 1875, 2.67e-6, 8e-5
//! (the unit tests below check the formulas at both).

use super::red::{Adapt, RedConfig};
use crate::units::{Rate, SimTime};

impl RedConfig {
    /// ns-2.35's RED on a link of `rate` and propagation `delay` (see the module doc).
    pub fn ns2(adapt: Adapt, rate: Rate, delay: SimTime, mean_pktsize: f64, target_delay: SimTime) -> Self {
        let ptc = rate.bps() as f64 / (8.0 * mean_pktsize);
        let min_th = (target_delay.secs_f64() * ptc / 2.0).max(5.0);
        let rtt = (3.0 * (delay.secs_f64() + 1.0 / ptc)).max(0.1);
        RedConfig {
            min_th,
            max_th: 3.0 * min_th,
            max_p: 0.1,
            q_weight: 1.0 - (-1.0 / (10.0 * rtt * ptc)).exp(),
            mean_pktsize,
            adapt,
            bottom: (80_000.0 / rate.bps() as f64).min(0.01),
            bytes: true,
            ns2: true,
            ..RedConfig::red()
        }
    }
}

/// ns-2's `updateMaxP` (red.cc): Fig. 5's rule without the clamp to [bottom, top].
pub fn update(max_p: f64, avg: f64, lo: f64, hi: f64, c: &RedConfig) -> f64 {
    if avg > hi && max_p < c.top {
        max_p + c.alpha.min(max_p / 4.0)
    } else if avg < lo && max_p > c.bottom {
        max_p * c.beta
    } else {
        max_p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::red::Red;
    use crate::queue::{test_packet, Capacity, EnqueueContext, QueueDisc};
    use crate::rng::stream_rng;

    /// ns-2's ARED on a 4 Mbit/s link (1000 packets of 500 B a second): thresholds 5 / 15, target
    /// [9, 11], in packets, with an average that arrivals do not move.
    fn ared(ns2: bool) -> Red {
        let c = RedConfig::ns2(Adapt::Ared, Rate(4_000_000), SimTime::from_millis(10), 500.0, SimTime::from_millis(5));
        let cfg = RedConfig { bytes: false, q_weight: 1e-12, ns2, ..c };
        Red::new(cfg, Capacity::Packets(1000), Rate(4_000_000), stream_rng(1, 99, 0))
    }

    fn arrive(red: &mut Red, avg: f64, ms: u64) {
        red.avg = avg;
        let ctx = EnqueueContext { now: SimTime::from_millis(ms), idle_since: None };
        red.enqueue(test_packet(500), &ctx).expect("below min_th: no drop");
    }

    #[test]
    fn the_gentle_line_runs_from_the_initial_max_p_whatever_max_p_became() {
        for (ns2, at_max_th) in [(true, 0.1), (false, 0.3)] {
            let mut red = ared(ns2);
            red.max_p = 0.3;
            red.avg = 22.5; // halfway between max_th and 2 max_th
            assert!(close(red.p_b(), at_max_th + (1.0 - at_max_th) * 0.5, 1e-12), "ns2 = {ns2}");
        }
    }

    #[test]
    fn an_unchanged_check_does_not_restart_ns2s_interval() {
        for (ns2, after) in [(true, 0.09), (false, 0.1)] {
            let mut red = ared(ns2);
            arrive(&mut red, 10.0, 600); // inside the target: max_p stays 0.1
            arrive(&mut red, 1.0, 700); // below it: ns-2 checks again at once, cclab waits until 1.1 s
            assert!(close(red.max_p, after, 1e-12), "ns2 = {ns2}: {}", red.max_p);
        }
        // Strictly after the interval: not at 500 ms itself.
        let mut red = ared(true);
        arrive(&mut red, 1.0, 500);
        assert_eq!(red.max_p, 0.1);
        arrive(&mut red, 1.0, 501);
        assert!(close(red.max_p, 0.09, 1e-12));
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn the_automatic_settings_are_those_ns2_prints() {
        let five = SimTime::from_millis(5);
        let c = RedConfig::ns2(Adapt::None, Rate(100_000_000), SimTime::from_millis(30), 500.0, five);
        assert!(close(c.min_th, 62.5, 1e-12) && close(c.max_th, 187.5, 1e-12));
        assert!(close(c.q_weight, 4.0e-5, 1e-3), "{}", c.q_weight);
        assert!(close(c.bottom, 8e-4, 1e-12) && c.bytes && c.gentle && c.wait && c.max_p == 0.1);
        let c = RedConfig::ns2(Adapt::Ared, Rate(1_000_000_000), SimTime::from_millis(50), 500.0, five);
        assert!(close(c.min_th, 625.0, 1e-12) && close(c.max_th, 1875.0, 1e-12));
        assert!(close(c.q_weight, 2.67e-6, 2e-3), "{}", c.q_weight);
        assert!(close(c.bottom, 8e-5, 1e-12));
        // A slow link: the floor of 5 packets, and rtt's floor of 100 ms.
        let c = RedConfig::ns2(Adapt::None, Rate(1_000_000), SimTime::from_millis(1), 500.0, five);
        assert_eq!((c.min_th, c.max_th), (5.0, 15.0));
        assert!(close(c.q_weight, 1.0 - (-1.0f64 / (10.0 * 0.1 * 250.0)).exp(), 1e-12));
    }

    #[test]
    fn the_adaptation_steps_past_its_bounds_once() {
        let c = RedConfig { bottom: 0.01, top: 0.5, ..RedConfig::red() };
        let (lo, hi) = (9.0, 11.0);
        assert!(close(update(0.0105, 1.0, lo, hi, &c), 0.00945, 1e-12)); // below bottom, no clamp
        assert_eq!(update(0.00945, 1.0, lo, hi, &c), 0.00945); // and no further
        assert!(close(update(0.495, 20.0, lo, hi, &c), 0.505, 1e-12)); // above top
        assert_eq!(update(0.505, 20.0, lo, hi, &c), 0.505);
        assert_eq!(update(0.2, 10.0, lo, hi, &c), 0.2);
    }
}
