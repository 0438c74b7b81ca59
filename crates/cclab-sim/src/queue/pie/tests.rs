//! PIE's unit tests (pie.rs): the probability update on hand-computed inputs, the burst
//! allowance, the conditions that skip drops, ECN, the departure-rate estimate.

use super::*;
use crate::queue::test_packet;

const MS: u64 = 1_000_000_000;

fn pie(cfg: PieConfig) -> Pie {
    Pie::new(cfg, Capacity::Unlimited, stream_rng(1, 99, 0))
}

fn ms(x: f64) -> SimTime {
    SimTime::from_secs_f64(x / 1e3)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn one_update_moves_the_probability_by_alpha_and_beta_scaled_by_the_table() {
    let q = pie(PieConfig::rfc(1500.0));
    // qdelay 20 ms, old 10 ms, target 15 ms: 0.125 x 0.005 + 1.25 x 0.010 = 0.013125,
    let raw = 0.125 * 0.005 + 1.25 * 0.010;
    assert!(close(raw, 0.013125));
    let step = |prob: f64| q.step(ms(20.0), ms(10.0), prob);
    // divided by 2 below 10 %, by 8 below 1 %, ... by 2048 below 1e-6,
    assert!(close(step(0.05), 0.013125 / 2.0), "{}", step(0.05));
    assert!(close(step(0.005), 0.013125 / 8.0));
    assert!(close(step(0.0005), 0.013125 / 32.0));
    assert!(close(step(0.00005), 0.013125 / 128.0));
    assert!(close(step(0.000005), 0.013125 / 512.0));
    assert!(close(step(0.0), 0.013125 / 2048.0));
    // whole from 10 %,
    assert!(close(step(0.3), 0.013125));
    // and at most 2 % a step there: 40 ms after 10 ms would be 0.040625.
    assert!(close(q.step(ms(40.0), ms(10.0), 0.3), 0.02));
    assert!(close(q.step(ms(40.0), ms(10.0), 0.05), 0.040625 / 2.0));
    let uncapped = pie(PieConfig { cap_drop_adjustment: false, ..PieConfig::rfc(1500.0) });
    assert!(close(uncapped.step(ms(40.0), ms(10.0), 0.3), 0.040625));
    // Below target and falling, the step is negative.
    assert!(close(q.step(ms(5.0), ms(10.0), 0.3), 0.125 * -0.010 + 1.25 * -0.005));
}

#[test]
fn the_update_runs_every_tupdate_decays_when_idle_and_stays_in_zero_one() {
    let mut q = pie(PieConfig::rfc(1500.0));
    q.vars.drop_prob = 0.05;
    q.vars.qdelay = ms(20.0);
    q.vars.qdelay_old = ms(10.0);
    // Nothing before the first tupdate; at 15 ms one update: 0.05 + 0.0065625.
    q.catch_up(ms(14.9));
    assert_eq!(q.vars.drop_prob, 0.05);
    q.catch_up(ms(15.0));
    assert!(close(q.vars.drop_prob, 0.0565625), "{}", q.vars.drop_prob);
    assert_eq!((q.vars.qdelay_old, q.vars.next_update), (ms(20.0), ms(30.0)));
    // At 30 ms: qdelay 20 after 20: 0.125 x 0.005 / 2 more.
    q.catch_up(ms(30.0));
    assert!(close(q.vars.drop_prob, 0.0565625 + 0.0003125));
    // An empty queue (qdelay 0 after 0) decays: p = -0.125 x 0.015, then x 0.98.
    let mut q = pie(PieConfig::rfc(1500.0));
    q.vars.drop_prob = 0.5;
    q.catch_up(ms(15.0));
    assert!(close(q.vars.drop_prob, (0.5 - 0.125 * 0.015) * 0.98), "{}", q.vars.drop_prob);
    // A long idle time takes the probability to 0 and stops there; the catch-up skips
    // the updates that change nothing (an hour of them here).
    q.catch_up(SimTime(3600 * 1000 * MS));
    assert_eq!(q.vars.drop_prob, 0.0);
    assert_eq!(q.vars.next_update, SimTime(3600 * 1000 * MS + 15 * MS));
    // Bounded above by 1.
    let mut q = pie(PieConfig::rfc(1500.0));
    q.vars.drop_prob = 0.999;
    q.vars.qdelay = ms(500.0);
    q.catch_up(ms(15.0));
    assert_eq!(q.vars.drop_prob, 1.0);
}

#[test]
fn the_burst_allowance_protects_the_first_max_burst_and_comes_back_once_congestion_is_gone() {
    let mut q = pie(PieConfig::rfc(1500.0));
    assert_eq!(q.vars.burst_allowance, ms(150.0));
    q.vars.qdelay = ms(100.0);
    q.vars.drop_prob = 1.0;
    // Updates at 15, 30, ... ms each take 15 ms off; it lasts 10 updates.
    q.catch_up(ms(135.0));
    assert_eq!(q.vars.burst_allowance, ms(15.0));
    let ctx = EnqueueContext { now: ms(140.0), idle_since: None };
    for _ in 0..5 {
        assert!(q.enqueue(test_packet(1500), &ctx).is_ok(), "no drop while the allowance lasts");
    }
    q.catch_up(ms(150.0));
    assert_eq!(q.vars.burst_allowance, SimTime::ZERO);
    let ctx = EnqueueContext { now: ms(151.0), idle_since: None };
    assert_eq!(q.enqueue(test_packet(1500), &ctx).unwrap_err().1, DropCause::Early);
    // Congestion gone (probability 0, both delays below 7.5 ms): reset, then one step off.
    q.vars.drop_prob = 0.0;
    q.vars.qdelay = ms(1.0);
    q.vars.qdelay_old = ms(1.0);
    q.catch_up(ms(165.0));
    assert_eq!(q.vars.burst_allowance, ms(135.0));
}

#[test]
fn no_early_drop_when_uncongested_or_with_two_packets_or_fewer_waiting() {
    let mut q = pie(PieConfig::rfc(1500.0));
    q.vars.burst_allowance = SimTime::ZERO;
    q.vars.next_update = SimTime::MAX;
    let ctx = EnqueueContext { now: ms(1.0), idle_since: None };
    // Probability 1: the first three arrivals find at most 2 x 1500 bytes and are kept.
    q.vars.drop_prob = 1.0;
    q.vars.qdelay_old = ms(50.0);
    for _ in 0..3 {
        assert!(q.enqueue(test_packet(1500), &ctx).is_ok());
    }
    assert_eq!(q.enqueue(test_packet(1500), &ctx).unwrap_err().1, DropCause::Early);
    // Old delay below target/2 with a probability under 0.2: kept.
    q.vars.qdelay_old = ms(7.0);
    q.vars.drop_prob = 0.19;
    let kept = (0..1000).filter(|_| q.enqueue(test_packet(40), &ctx).is_ok()).count();
    assert_eq!(kept, 1000);
    // At 0.2 the random drop applies: about a fifth are dropped.
    q.vars.drop_prob = 0.2;
    let dropped = (0..10000).filter(|_| q.enqueue(test_packet(40), &ctx).is_err()).count();
    assert!((1800..2200).contains(&dropped), "{dropped}");
}

#[test]
fn derandomization_drops_once_the_accumulated_probability_passes_its_bounds() {
    let mut q = pie(PieConfig { derandomize: true, ..PieConfig::rfc(1500.0) });
    q.vars.burst_allowance = SimTime::ZERO;
    q.vars.next_update = SimTime::MAX;
    q.vars.qdelay_old = ms(50.0);
    let ctx = EnqueueContext { now: ms(1.0), idle_since: None };
    for _ in 0..3 {
        q.enqueue(test_packet(1500), &ctx).unwrap();
    }
    // At 0.1, the first 8 arrivals accumulate 0.8 < 0.85 and are kept whatever the draw.
    q.vars.drop_prob = 0.1;
    for _ in 0..8 {
        assert!(q.enqueue(test_packet(1500), &ctx).is_ok());
    }
    // By 8.5 accumulated a drop is certain: never more than 85 arrivals between drops.
    let mut gap = 0;
    for _ in 0..2000 {
        if q.enqueue(test_packet(1500), &ctx).is_err() {
            gap = 0;
        } else {
            gap += 1;
            assert!(gap < 85);
        }
    }
}

#[test]
fn ecn_capable_packets_are_marked_below_mark_ecnth_and_dropped_above() {
    let mut q = pie(PieConfig { ecn: true, ..PieConfig::rfc(1500.0) });
    q.vars.burst_allowance = SimTime::ZERO;
    q.vars.next_update = SimTime::MAX;
    q.vars.qdelay_old = ms(50.0);
    let ctx = EnqueueContext { now: ms(1.0), idle_since: None };
    let mut ect = test_packet(1500);
    ect.flags = ECT;
    for _ in 0..3 {
        q.enqueue(ect, &ctx).unwrap();
    }
    q.vars.drop_prob = 0.09;
    let (ok, n) = ((0..1000).filter(|_| q.enqueue(ect, &ctx).is_ok()).count(), 1000);
    assert_eq!(ok, n, "marked, not dropped");
    assert!((50..130).contains(&q.marks()), "{}", q.marks());
    assert!(q.packets().iter().filter(|p| p.flags & CE != 0).count() as u64 == q.marks());
    q.vars.drop_prob = 0.1;
    assert!((0..1000).any(|_| q.enqueue(ect, &ctx).is_err()), "dropped from mark_ecnth on");
}

#[test]
fn the_departure_rate_estimate_gives_backlog_over_rate() {
    // 1500-byte packets leave every 0.12 ms (100 Mbit/s) from a standing queue of 100.
    let mut q = pie(PieConfig { dq_rate_estimator: true, ..PieConfig::rfc(1500.0) });
    let ctx = EnqueueContext { now: SimTime::ZERO, idle_since: None };
    for _ in 0..100 {
        q.enqueue(test_packet(1500), &ctx).unwrap();
    }
    let gap = SimTime(120_000_000);
    let mut t = SimTime::ZERO;
    for _ in 0..40 {
        t += gap;
        q.dequeue(t);
        q.enqueue(test_packet(1500), &EnqueueContext { now: t, idle_since: None }).unwrap();
    }
    // Measurements of 11 packets (16500 bytes) over 11 gaps: 1.32 ms per 16384 bytes.
    assert!((q.vars.avg_dq_time - 11.0 * 120e6).abs() < 1.0, "{}", q.vars.avg_dq_time);
    // 100 packets waiting: 150000 x 1.32 ms / 16384 = 12.08 ms (the 100 x 0.12 = 12 ms,
    // less the 0.7 % a measurement overshoots 16384 bytes by).
    let d = q.current_qdelay().secs_f64() * 1e3;
    assert!((d - 150000.0 * 1.32 / 16384.0).abs() < 1e-6, "{d}");
}

#[test]
fn parameters_are_validated_by_name() {
    let s = QueueSettings::EXAMPLE;
    let d = build(&s, &Params::new()).unwrap().describe().unwrap();
    assert_eq!((d.params["target"], d.params["tupdate"], d.params["max_burst"]), (0.015, 0.015, 0.15));
    assert_eq!((d.params["alpha"], d.params["beta"], d.params["mean_pktsize"]), (0.125, 1.25, 1500.0));
    for (name, bad) in [("tupdate", 0.0), ("alpha", -1.0), ("mark_ecnth", 1.5), ("derandomize", 2.0), ("bytemode", 1.0)]
    {
        let p: Params = [(name.to_string(), bad)].into_iter().collect();
        assert_eq!(build(&s, &p).err().unwrap().param, name);
    }
}
