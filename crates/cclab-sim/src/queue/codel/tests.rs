//! CoDel's unit tests (codel.rs), on hand-computed drop times.

use super::*;
use crate::queue::test_packet;

const MS: u64 = 1_000_000_000;

fn params() -> CodelParams {
    CodelParams {
        target: SimTime::from_millis(5),
        interval: SimTime::from_millis(100),
        mtu: 1500,
        ecn: false,
        ce_threshold: None,
        newton: false,
    }
}

fn at(ms: u64) -> EnqueueContext {
    EnqueueContext { now: SimTime(ms * MS), idle_since: None }
}

/// A CoDel queue holding `n` packets of 1500 bytes enqueued at 0.
fn full(p: CodelParams, n: usize, flags: u8) -> Codel {
    let mut q = Codel::new(Capacity::Unlimited, p);
    for _ in 0..n {
        let mut pkt = test_packet(1500);
        pkt.flags = flags;
        q.enqueue(pkt, &at(0)).unwrap();
    }
    q
}

/// Dequeues once per ms over `[from, to)` ms; returns the times (ms) of dequeues that dropped.
fn drop_times(q: &mut Codel, from: u64, to: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for t in from..to {
        let mut dropped = Vec::new();
        q.dequeue_or_drop(SimTime(t * MS), &mut dropped);
        if !dropped.is_empty() {
            out.push(t);
        }
    }
    out
}

#[test]
fn the_first_drop_comes_one_interval_after_the_sojourn_time_exceeds_target_then_at_interval_over_sqrt_count() {
    // Every packet waits since 0: the first dequeue at 10 ms is above target and sets
    // first_above_time = 110 ms; the first drop is the first dequeue strictly after it (111 ms),
    // then at 111 + 100 = 211, + 100/sqrt(2) = 281.71 -> 282, + 100/sqrt(3) = 339.45 -> 340,
    // + 100/sqrt(4) = 389.45 -> 390, + 100/sqrt(5) = 434.17 -> 435.
    let mut q = full(params(), 2000, 0);
    assert_eq!(drop_times(&mut q, 10, 436), [111, 211, 282, 340, 390, 435]);
    assert_eq!(q.vars.count, 6);
    assert_eq!(q.stats.drops, 6);
    let expect =
        111.0 + 100.0 * (1.0 + 1.0 / 2f64.sqrt() + 1.0 / 3f64.sqrt() + 0.5 + 1.0 / 5f64.sqrt() + 1.0 / 6f64.sqrt());
    assert!((q.vars.drop_next.secs_f64() * 1e3 - expect).abs() < 1e-6, "{:?}", q.vars.drop_next);
}

#[test]
fn linux_newton_step_gives_half_an_interval_after_the_first_drop_and_converges() {
    // x <- x (3 - count x^2) / 2 from x = 1: count 2 gives 0.5 (not 0.707), count 3 0.5625,
    // count 4 0.4878 (not 0.5).
    let mut x = REC_INV_SQRT_ONE;
    let mut seen = Vec::new();
    for count in 2..=4 {
        x = newton_step(x, count);
        seen.push(x as f64 / 65536.0);
    }
    for (got, want) in seen.iter().zip([0.5, 0.5625, 0.48779296875]) {
        assert!((got - want).abs() < 2e-4, "{seen:?}");
    }
    // So the drops of the first test come at 111, 211, 211 + 50 = 261, + 56.25 -> 318 (317.25).
    let mut q = full(CodelParams { newton: true, ..params() }, 2000, 0);
    assert_eq!(drop_times(&mut q, 10, 320), [111, 211, 261, 318]);
    // By count 20 the step is within 0.1 % of interval/sqrt(count) (1.3 % at count 5).
    for count in 5..=20u32 {
        x = newton_step(x, count);
    }
    assert!((x as f64 / 65536.0 * 20f64.sqrt() - 1.0).abs() < 1e-3, "{x}");
}

#[test]
fn re_entering_the_dropping_state_soon_resumes_at_count_minus_lastcount() {
    let p = params();
    let mut q = full(p, 2000, 0);
    // Drops at 111, 211, 282, 340: count 4, lastcount 1, drop_next 389.45 ms.
    assert_eq!(drop_times(&mut q, 10, 341), [111, 211, 282, 340]);
    assert_eq!((q.vars.count, q.vars.lastcount), (4, 1));
    // A packet that waited 1 ms leaves the dropping state.
    let mut q2 = Codel::new(Capacity::Unlimited, p);
    q2.vars = q.vars;
    q2.enqueue(test_packet(1500), &at(349)).unwrap();
    for _ in 0..10 {
        q2.enqueue(test_packet(1500), &at(350)).unwrap();
    }
    q2.dequeue_or_drop(SimTime(350 * MS), &mut Vec::new()).unwrap();
    assert!(!q2.vars.dropping && q2.vars.first_above_time.is_none());
    // Above target again (the packets of 350 ms at 360 ms): ok to drop after 460 ms, within
    // 16 intervals of drop_next: count = 4 - 1 = 3, and the next drop interval/sqrt(3) later.
    q2.dequeue_or_drop(SimTime(360 * MS), &mut Vec::new()).unwrap();
    let mut dropped = Vec::new();
    q2.dequeue_or_drop(SimTime(461 * MS), &mut dropped).unwrap();
    assert_eq!(dropped.len(), 1);
    assert_eq!((q2.vars.count, q2.vars.lastcount), (3, 3));
    let next = q2.vars.drop_next.secs_f64() * 1e3;
    assert!((next - (461.0 + 100.0 / 3f64.sqrt())).abs() < 1e-6, "{next}");
}

#[test]
fn a_late_re_entry_starts_again_at_count_one() {
    let mut q = full(params(), 2000, 0);
    drop_times(&mut q, 10, 341);
    q.vars.dropping = false;
    q.vars.first_above_time = Some(SimTime(2000 * MS));
    // More than 16 intervals after drop_next (389 ms): count restarts at 1.
    let mut dropped = Vec::new();
    q.dequeue_or_drop(SimTime(2001 * MS), &mut dropped);
    assert_eq!(dropped.len(), 1);
    assert_eq!(q.vars.count, 1);
    assert_eq!(q.vars.drop_next, SimTime(2101 * MS));
}

#[test]
fn a_backlog_of_one_mtu_is_never_dropped_from() {
    // Two 1500-byte packets, one in and one out every 10 ms: each head waited 10 ms (above
    // target), but once it is taken one MTU is left.
    let drops = |mtu: u64| {
        let mut q = Codel::new(Capacity::Unlimited, CodelParams { mtu, ..params() });
        q.enqueue(test_packet(1500), &at(0)).unwrap();
        for t in (10..2000).step_by(10) {
            q.enqueue(test_packet(1500), &at(t)).unwrap();
            q.dequeue_or_drop(SimTime(t * MS), &mut Vec::new());
        }
        q.stats.drops
    };
    assert_eq!(drops(1500), 0);
    assert!(drops(1499) > 0, "a byte less and the standing 10 ms are dropped");
}

#[test]
fn with_ecn_ect_packets_are_marked_instead_of_dropped_at_the_same_times() {
    let mut q = full(CodelParams { ecn: true, ..params() }, 2000, ECT);
    let mut marked_at = Vec::new();
    for t in 10..436 {
        let p = q.dequeue_or_drop(SimTime(t * MS), &mut Vec::new()).unwrap();
        if p.flags & CE != 0 {
            marked_at.push(t);
        }
    }
    assert_eq!(marked_at, [111, 211, 282, 340, 390, 435]);
    assert_eq!((q.stats.marks, q.stats.drops, q.marks()), (6, 0, 6));
    // Not-ECT packets are still dropped.
    let mut q = full(CodelParams { ecn: true, ..params() }, 2000, 0);
    assert_eq!(drop_times(&mut q, 10, 212), [111, 211]);
    assert_eq!(q.marks(), 0);
}

#[test]
fn ce_threshold_marks_every_ect_packet_that_waited_longer() {
    let p = CodelParams { ce_threshold: Some(SimTime::from_millis(2)), target: SimTime::from_millis(50), ..params() };
    let mut q = Codel::new(Capacity::Unlimited, p);
    let mut ect = test_packet(1500);
    ect.flags = ECT;
    q.enqueue(ect, &at(0)).unwrap();
    q.enqueue(ect, &at(0)).unwrap();
    q.enqueue(test_packet(1500), &at(0)).unwrap();
    let a = q.dequeue(SimTime(MS)).unwrap(); // waited 1 ms
    let b = q.dequeue(SimTime(3 * MS)).unwrap(); // 3 ms
    let c = q.dequeue(SimTime(4 * MS)).unwrap(); // 4 ms, not ECN-capable
    assert_eq!((a.flags & CE, b.flags & CE, c.flags & CE), (0, CE, 0));
    assert_eq!(q.marks(), 1);
}

#[test]
fn a_full_buffer_drops_the_arrival_as_overflow_in_packets_or_bytes() {
    let mut q = Codel::new(Capacity::Packets(2), params());
    q.enqueue(test_packet(1500), &at(0)).unwrap();
    q.enqueue(test_packet(1500), &at(0)).unwrap();
    assert_eq!(q.enqueue(test_packet(40), &at(0)).unwrap_err().1, DropCause::Overflow);
    let mut q = Codel::new(Capacity::Bytes(3000), params());
    q.enqueue(test_packet(1500), &at(0)).unwrap();
    assert!(q.enqueue(test_packet(1501), &at(0)).is_err());
    q.enqueue(test_packet(1500), &at(0)).unwrap();
    assert_eq!((q.len_pkts(), q.len_bytes()), (2, 3000));
}

#[test]
fn parameters_are_read_with_units_and_bad_ones_refused_by_name() {
    let s = QueueSettings::EXAMPLE;
    let p: Params = [("target".to_string(), 0.002), ("ce_threshold".to_string(), 0.001)].into_iter().collect();
    let q = build(&s, &p).unwrap();
    let d = q.describe().unwrap();
    assert_eq!((d.params["target"], d.params["interval"], d.params["mtu"]), (0.002, 0.1, 1500.0));
    assert_eq!((d.params["ce_threshold"], d.params["ecn"]), (0.001, 0.0));
    for (name, bad) in [("target", 0.0), ("interval", -1.0), ("ecn", 2.0), ("newton", 0.5), ("limit", 1.0)] {
        let p: Params = [(name.to_string(), bad)].into_iter().collect();
        assert_eq!(build(&s, &p).err().unwrap().param, name);
    }
}
