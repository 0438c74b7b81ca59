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

/// The version of the results of RED under `ns2 = 1`, bumped when a change moves only them:
/// part of the key of a cached run with such a queue (`queue::VARIANT_VERSIONS`), so that the
/// bump does not discard every other cached run. 1: ns-2's byte-mode arithmetic (`ByteMode`).
pub const VERSION: u32 = 1;

use super::red::{Adapt, Red, RedConfig};
use super::Capacity;
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

/// ns-2's byte mode (`bytes_` and `queue_in_bytes_` true), where red.cc's arithmetic departs
/// from cclab's byte mode (`bytes = 1` alone), for `ns2 = 1` with `bytes = 1`:
/// - `modify_p` spreads by `count_bytes / mean_pktsize_` in *integer* division, so arrivals
///   smaller than `mean_pktsize` since the last drop count for nothing until they add up;
/// - it scales the probability by size / `mean_pktsize` only while it is below 1, so a small
///   packet is dropped for sure where the spread probability reached 1;
/// - the guard against dropping from a queue of one packet, `qlen > 1`, compares bytes:
///   any waiting packet passes it;
/// - with `use_mark_p_` true (its default) the average above `2 max_th` (gentle) or `max_th`
///   forces no drop: the probability is 1 and the spread above decides (with `count_bytes`
///   below `mean_pktsize_`, not to drop);
/// - the buffer is `limit_ · mean_pktsize_` bytes, compared with the bytes waiting *before*
///   the arrival (`qlen >= qlim`), so an arrival is taken while one byte of room is left.
pub struct ByteMode;

impl ByteMode {
    /// The drop probability of an arrival of `size` bytes (red.cc `modify_p`).
    pub fn p(red: &Red, size: u32) -> f64 {
        let mean = red.cfg.mean_pktsize;
        let p = red.spread(red.p_b(), (red.count / mean).floor());
        let p = if p < 1.0 { p * size as f64 / mean } else { p };
        p.min(1.0)
    }

    /// Whether RED may drop from a queue of `qlen` bytes (red.cc `enque`: `qlen > 1`).
    pub fn guard(qlen: f64) -> bool {
        qlen > 1.0
    }

    /// The byte limit red.cc checks itself, for a buffer in bytes under `ns2` byte mode.
    pub fn limit(cfg: &RedConfig, cap: Capacity) -> Option<u64> {
        match cap {
            Capacity::Bytes(b) if cfg.ns2 && cfg.bytes => Some(b),
            _ => None,
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
    use crate::queue::{test_packet, Capacity, DropCause, EnqueueContext, QueueDisc};
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

    /// ns-2's RED in byte mode on a 4 Mbit/s link: thresholds 5 / 15 packets of 500 B (2,500 /
    /// 7,500 bytes), an average that arrivals do not move, a buffer of `cap`.
    fn bytes(ns2: bool, cap: Capacity) -> Red {
        let c = RedConfig::ns2(Adapt::None, Rate(4_000_000), SimTime::from_millis(10), 500.0, SimTime::from_millis(5));
        Red::new(RedConfig { q_weight: 1e-12, ns2, ..c }, cap, Rate(4_000_000), stream_rng(1, 99, 0))
    }

    const BUSY: EnqueueContext = EnqueueContext { now: SimTime::ZERO, idle_since: None };

    #[test]
    fn ns2_spreads_by_whole_mean_sized_packets_and_scales_only_below_one() {
        let mut red = bytes(true, Capacity::Packets(1000));
        red.avg = 5000.0; // halfway: p_b = max_p / 2 = 0.05
        assert!(close(red.p_b(), 0.05, 1e-12));
        // count_bytes / mean_pktsize in integer division: 999 bytes are one packet, 5,499 ten.
        red.count = 999.0;
        assert_eq!(ByteMode::p(&red, 1500), 0.0); // 1 x 0.05 < 1: wait
        for count in [5000.0, 5499.0] {
            red.count = count; // cp = 0.5 < 1: still waiting
            assert_eq!(ByteMode::p(&red, 1500), 0.0);
        }
        red.count = 15_000.0; // 30 packets: cp = 1.5, p = 0.05 / 0.5 = 0.1, scaled by 1500 / 500
        assert!(close(ByteMode::p(&red, 1500), 0.3, 1e-12));
        red.count = 20_499.0; // 40 packets: cp = 2, p = 1, not scaled down for a 40-byte packet
        assert_eq!(ByteMode::p(&red, 40), 1.0);
        assert!(close(red.p_a(red.p_b()) * 40.0 / 500.0, 0.08, 1e-12), "cclab's byte mode scales it");
        // Above 2 max_th the probability is 1, and still nothing is dropped before a whole
        // mean-sized packet has arrived since the last drop.
        red.avg = 20_000.0;
        red.count = 40.0;
        assert_eq!(ByteMode::p(&red, 40), 0.0);
    }

    #[test]
    fn ns2_limits_the_bytes_waiting_before_the_arrival() {
        // A 3,000-byte buffer: 2,999 bytes waiting take one more 1,500-byte packet under ns-2;
        // cclab's buffer takes a packet only if it fits.
        for (ns2, takes) in [(true, true), (false, false)] {
            let mut red = bytes(ns2, Capacity::Bytes(3000));
            red.enqueue(test_packet(1000), &BUSY).unwrap();
            red.enqueue(test_packet(1999), &BUSY).unwrap();
            assert_eq!(red.enqueue(test_packet(1500), &BUSY).is_ok(), takes, "ns2 = {ns2}");
            let full = red.enqueue(test_packet(1), &BUSY); // fits cclab's 3,000 bytes exactly
            assert_eq!(matches!(full, Err((_, DropCause::Overflow))), ns2, "ns2 = {ns2}");
        }
    }

    #[test]
    fn ns2_may_drop_from_a_queue_of_one_packet_in_byte_mode() {
        for ns2 in [true, false] {
            let mut red = bytes(ns2, Capacity::Packets(1000));
            red.avg = 1e9; // far above 2 max_th
            red.enqueue(test_packet(1500), &BUSY).unwrap(); // an empty queue: no drop
            red.enqueue(test_packet(1500), &BUSY).expect("ns-2 crosses min_th; cclab sees one packet");
            red.dequeue(SimTime::ZERO);
            // One packet waiting: ns-2's `qlen > 1` compares bytes.
            let third = red.enqueue(test_packet(1500), &BUSY);
            assert_eq!(third.is_err(), ns2, "ns2 = {ns2}");
        }
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
