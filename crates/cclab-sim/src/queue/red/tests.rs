//! RED's unit tests (red.rs).

use super::*;
use crate::queue::test_packet;
use crate::rng::stream_rng;

fn red(cfg: RedConfig) -> Red {
    // 4 Mbit/s: 1000 packets of 500 B per second, one per ms.
    Red::new(cfg, Capacity::Packets(1000), Rate(4_000_000), stream_rng(1, 99, 0))
}

fn busy(now: SimTime) -> EnqueueContext {
    EnqueueContext { now, idle_since: None }
}

#[test]
fn average_follows_the_ewma_over_a_known_arrival_sequence() {
    // Arrivals see queues of 0, 1, 2, 3: avg = 0, 0.5, 1.25, 2.125 (w = 0.5). With a device
    // queue the packet staged there is out of view, so they see 0, 0, 1, 2: avg = 0, 0, 0.5, 1.25.
    for (device_queue, want) in [(0, 2.125), (1, 1.25)] {
        let mut cfg = RedConfig { device_queue, ..RedConfig::red() };
        cfg.q_weight = 0.5;
        cfg.min_th = 1e9; // never drop
        cfg.max_th = 2e9;
        let mut r = red(cfg);
        for _ in 0..4 {
            r.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap();
        }
        assert!((r.avg - want).abs() < 1e-12, "device_queue {device_queue}: {}", r.avg);
    }
}

#[test]
fn an_idle_period_decays_the_average_by_the_packets_the_link_could_have_sent() {
    let mut cfg = RedConfig::red();
    cfg.q_weight = 0.1;
    cfg.min_th = 1e9;
    cfg.max_th = 2e9;
    let mut r = red(cfg);
    r.avg = 10.0;
    // Idle for 5.5 ms at one packet per ms: m = 5, then the arrival at an empty queue.
    let ctx = EnqueueContext { now: SimTime::from_micros(5500), idle_since: Some(SimTime::ZERO) };
    r.enqueue(test_packet(500), &ctx).unwrap();
    let want = 10.0 * 0.9f64.powi(5) * 0.9;
    assert!((r.avg - want).abs() < 1e-12, "{} vs {want}", r.avg);
}

#[test]
fn drop_probability_is_linear_between_thresholds_and_gentle_above() {
    let mut r = red(RedConfig::red());
    r.avg = 10.0; // halfway between 5 and 15
    assert!((r.p_b() - 0.05).abs() < 1e-12);
    r.avg = 22.5; // gentle: 0.1 + 0.9 * 7.5/15
    assert!((r.p_b() - 0.55).abs() < 1e-12);
    r.avg = 3.0;
    assert_eq!(r.p_b(), 0.0);
}

#[test]
fn wait_spreads_drops_uniformly_over_one_over_p_arrivals() {
    let mut r = red(RedConfig::red());
    r.count = 10.0;
    // count * p = 0.5 < 1: no drop yet with wait.
    assert_eq!(r.p_a(0.05), 0.0);
    r.count = 30.0;
    // count * p = 1.5: p / (2 - 1.5) = 0.1
    assert!((r.p_a(0.05) - 0.1).abs() < 1e-12);
}

#[test]
fn average_above_twice_max_th_drops_every_arrival_when_gentle() {
    let mut r = red(RedConfig::red());
    for _ in 0..5 {
        r.fifo.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap();
    }
    r.avg = 31.0;
    r.above = true;
    assert_eq!(r.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap_err().1, DropCause::Early);
}

#[test]
fn ecn_capable_packets_are_marked_not_dropped_early() {
    let cfg = RedConfig { ecn: true, ..RedConfig::red() };
    let mut r = red(cfg);
    for _ in 0..5 {
        r.fifo.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap();
    }
    r.above = true;
    r.avg = 14.0;
    r.count = 1000.0; // count * p_b >= 2: the early decision is certain
    let mut p = test_packet(500);
    p.flags = ECT;
    r.enqueue(p, &busy(SimTime::ZERO)).unwrap();
    assert_eq!(r.fifo.packets().last().unwrap().flags, ECT | CE);
    assert_eq!(r.marks(), 1);
    // Not ECN-capable: dropped.
    r.count = 1000.0;
    assert_eq!(r.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap_err().1, DropCause::Early);
    // Above 2 max_th the drop is forced even for ECN-capable packets.
    r.avg = 31.0;
    let mut p = test_packet(500);
    p.flags = ECT;
    assert_eq!(r.enqueue(p, &busy(SimTime::ZERO)).unwrap_err().1, DropCause::Early);
}

#[test]
fn byte_mode_keeps_the_average_in_bytes_and_reports_it_in_packets() {
    let cfg = RedConfig { bytes: true, q_weight: 0.5, min_th: 1e9, max_th: 2e9, ..RedConfig::red() };
    let mut r = red(cfg); // mean_pktsize 500 B
                          // Arrivals of 500 B see queues of 0, 500, 1000 bytes: avg = 0, 250, 625 bytes.
    for _ in 0..3 {
        r.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap();
    }
    assert!((r.avg - 625.0).abs() < 1e-9, "{}", r.avg);
    assert!((r.avg_len().unwrap() - 1.25).abs() < 1e-12);
}

#[test]
fn a_device_queue_moves_the_no_drop_guard_by_one_packet() {
    // Two packets wait and the average is far above 2 max_th: RED drops the arrival, unless
    // one of the two is the device's (ns-3's `nQueued > 1` then sees one).
    for (device_queue, dropped) in [(0, true), (1, false)] {
        let mut r = red(RedConfig { device_queue, ..RedConfig::red() });
        for _ in 0..2 {
            r.fifo.enqueue(test_packet(500), &busy(SimTime::ZERO)).unwrap();
        }
        r.avg = 31.0;
        r.above = true;
        assert_eq!(r.enqueue(test_packet(500), &busy(SimTime::ZERO)).is_err(), dropped, "device_queue {device_queue}");
    }
}
