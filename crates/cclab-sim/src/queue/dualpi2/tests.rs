//! DualPI2's unit tests (dualpi2.rs): the PI2 update on hand-computed inputs, the coupling,
//! the classifier, the L queue's step, the scheduler, overload, the shared buffer.

use super::*;
use crate::queue::test_packet;

fn q() -> DualPi2 {
    DualPi2::new(Dualpi2Config::DEFAULT, Capacity::Unlimited, stream_rng(1, 99, 0))
}

fn ms(x: f64) -> SimTime {
    SimTime::from_secs_f64(x / 1e3)
}

fn ctx(t: SimTime) -> EnqueueContext {
    EnqueueContext { now: t, idle_since: None }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn with(flags: u8) -> Packet {
    Packet { flags, ..test_packet(1500) }
}

const L4S: u8 = ECT | ECT1;

#[test]
fn one_update_adds_alpha_times_the_error_and_beta_times_the_trend() {
    let mut d = q();
    d.p = 0.1;
    d.prevq = ms(10.0);
    // curq 20 ms, prevq 10 ms, target 15 ms: 0.1 + 0.16 x 0.005 + 3.2 x 0.010 = 0.1328.
    d.update(ms(20.0));
    assert!(close(d.p, 0.1328), "{}", d.p);
    assert_eq!(d.prevq, ms(20.0));
    // curq 12 ms after 20: 0.1328 + 0.16 x (−0.003) + 3.2 x (−0.008) = 0.10672.
    d.update(ms(12.0));
    assert!(close(d.p, 0.10672), "{}", d.p);
    // Never below 0 nor above 1: 0.01 − 0.16 x 0.015 − 3.2 x 0.012 < 0.
    d.p = 0.01;
    d.update(SimTime::ZERO);
    assert_eq!(d.p, 0.0);
    d.p = 0.99;
    d.update(ms(500.0));
    assert_eq!(d.p, 1.0);
}

#[test]
fn updates_run_every_tupdate_on_the_c_queue_heads_age_at_each_instant() {
    let mut d = q();
    // A Classic packet arrives at 24 ms and stays. The update at 16 ms sees an empty C queue
    // (p' stays 0); at 32 ms the head is 8 ms old: 0.16 x (0.008 − 0.015) + 3.2 x 0.008.
    d.enqueue(with(0), &ctx(ms(24.0))).unwrap();
    d.catch_up(ms(31.9));
    assert_eq!(d.p, 0.0);
    d.catch_up(ms(32.0));
    let p32 = 0.16 * (0.008 - 0.015) + 3.2 * 0.008;
    assert!(close(d.p, p32), "{} vs {p32}", d.p);
    // Caught up later, the update at 48 ms still reads the age at 48 ms (24 ms).
    d.catch_up(ms(60.0));
    let p48 = p32 + 0.16 * (0.024 - 0.015) + 3.2 * 0.016;
    assert!(close(d.p, p48), "{} vs {p48}", d.p);
    assert_eq!((d.prevq, d.next_update), (ms(24.0), ms(64.0)));
}

#[test]
fn the_classic_probability_is_p_prime_squared_and_the_coupled_one_k_p_prime() {
    let mut d = q();
    d.p = 0.2;
    assert!(close(d.p_c(), 0.04) && close(d.p_cl(), 0.4));
    d.p = 0.7;
    assert!(close(d.p_c(), 0.49));
    assert_eq!(d.p_cl(), 1.0, "k p' capped at 1");
    assert_eq!(Dualpi2Config::DEFAULT.p_cmax(), 0.25);
    assert_eq!(Dualpi2Config { k: 0.5, ..Dualpi2Config::DEFAULT }.p_cmax(), 1.0);
}

#[test]
fn ect1_and_ce_go_to_the_l_queue_not_ect_and_ect0_to_the_c_queue() {
    assert!(is_l4s(&with(L4S)));
    assert!(is_l4s(&with(ECT | CE)));
    assert!(is_l4s(&with(CE)));
    assert!(!is_l4s(&with(ECT)));
    assert!(!is_l4s(&with(0)));
    let mut d = q();
    for f in [L4S, ECT, 0, ECT | CE] {
        d.enqueue(with(f), &ctx(SimTime::ZERO)).unwrap();
    }
    assert_eq!((d.l.q.len(), d.c.q.len()), (2, 2));
}

#[test]
fn the_l_queue_marks_above_the_step_threshold_and_not_at_or_below_it() {
    let mut d = q();
    for _ in 0..4 {
        d.enqueue(with(L4S), &ctx(SimTime::ZERO)).unwrap();
    }
    let marked = |p: Packet| p.flags & CE != 0;
    // p' = 0: only the step marks. Sojourn 0.9 ms, then exactly 1 ms: unmarked.
    assert!(!marked(d.dequeue(ms(0.9)).unwrap()));
    assert!(!marked(d.dequeue(ms(1.0)).unwrap()));
    // 1.1 ms with 2 packets waiting (the leaving one counted): marked.
    assert!(marked(d.dequeue(ms(1.1)).unwrap()));
    // The last packet, alone in the L queue: not marked whatever its sojourn (min_qlen_step 2).
    assert!(!marked(d.dequeue(ms(5.0)).unwrap()));
    assert_eq!(d.stats.l_marks, 1);
    assert_eq!(d.marks(), 1);
}

/// Marks and drops counted over `n` packets of each kind dequeued at `p'` = `p` (all before
/// the first update, so `p'` stays), from a queue that always has both kinds waiting.
fn counts(p: f64, n: usize) -> (DualPi2, usize, usize) {
    let mut d = q();
    d.p = p;
    let (mut l_marked, mut c_ect_out) = (0, 0);
    for _ in 0..n {
        d.enqueue(with(L4S), &ctx(SimTime::ZERO)).unwrap();
        d.enqueue(with(ECT), &ctx(SimTime::ZERO)).unwrap();
        d.enqueue(with(0), &ctx(SimTime::ZERO)).unwrap();
    }
    let mut dropped = Vec::new();
    while let Some(pkt) = d.dequeue_or_drop(SimTime::ZERO, &mut dropped) {
        if is_l4s(&pkt) && pkt.flags & ECT1 != 0 {
            l_marked += (pkt.flags & CE != 0) as usize;
        } else if pkt.flags & ECT != 0 {
            c_ect_out += 1;
        }
    }
    (d, l_marked, c_ect_out)
}

#[test]
fn below_overload_l_packets_are_marked_with_k_p_prime_and_c_packets_hit_with_p_prime_squared() {
    // p' = 0.25: p_CL = 0.5, p_C = 0.0625 < p_Cmax (0.25). Sojourns 0: no step marks.
    let n = 20_000;
    let (d, l_marked, c_ect_out) = counts(0.25, n);
    let frac = |x: u64| x as f64 / n as f64;
    assert!((frac(l_marked as u64) - 0.5).abs() < 0.02, "L marked {}", frac(l_marked as u64));
    assert_eq!(d.stats.l_drops, 0);
    // ECT(0) C packets are marked, never dropped; Not-ECT ones dropped, at p_C each.
    assert_eq!(c_ect_out, n);
    assert!((frac(d.stats.c_marks) - 0.0625).abs() < 0.01, "C marked {}", frac(d.stats.c_marks));
    assert!((frac(d.stats.c_drops) - 0.0625).abs() < 0.01, "C dropped {}", frac(d.stats.c_drops));
}

#[test]
fn in_overload_ecn_no_longer_saves_c_packets_and_l_packets_are_dropped_with_p_c() {
    // p' = 0.6: p_C = 0.36 >= p_Cmax = 0.25.
    let n = 20_000;
    let (d, l_marked, _) = counts(0.6, n);
    let frac = |x: u64| x as f64 / n as f64;
    assert_eq!(d.stats.c_marks, 0);
    // Both kinds of C packet (2n) dropped at p_C.
    assert!((frac(d.stats.c_drops) / 2.0 - 0.36).abs() < 0.02, "C dropped {}", frac(d.stats.c_drops) / 2.0);
    assert!((frac(d.stats.l_drops) - 0.36).abs() < 0.02, "L dropped {}", frac(d.stats.l_drops));
    // Every L packet that survives is marked (p_CL = min(1.2, 1)).
    assert_eq!(l_marked as u64, n as u64 - d.stats.l_drops);
    // Without overload protection the same p' only marks.
    let mut off = q();
    off.cfg.drop_overload = false;
    off.p = 0.6;
    off.enqueue(with(L4S), &ctx(SimTime::ZERO)).unwrap();
    assert!(off.dequeue(SimTime::ZERO).unwrap().flags & CE != 0);
    assert_eq!(off.stats.l_drops, 0);
}

#[test]
fn the_time_shifted_fifo_serves_l_first_unless_c_waited_tshift_longer() {
    let mut d = q();
    d.enqueue(with(0), &ctx(ms(0.0))).unwrap();
    d.enqueue(with(L4S), &ctx(ms(9.0))).unwrap();
    // At 10 ms: L head 1 ms, C head 10 ms; 1 + 50 >= 10: L.
    assert_eq!(d.l_next(ms(10.0)), Some(true));
    // At 60 ms: L head 51 ms, C head 60 ms; 51 + 50 >= 60: still L.
    assert_eq!(d.l_next(ms(60.0)), Some(true));
    // An L head 1 ms old against a C head 60 ms old: C.
    let mut e = q();
    e.enqueue(with(0), &ctx(ms(0.0))).unwrap();
    e.enqueue(with(L4S), &ctx(ms(59.0))).unwrap();
    assert_eq!(e.l_next(ms(60.0)), Some(false));
    assert_eq!(e.dequeue(ms(60.0)).map(|p| p.flags), Some(0), "the Classic packet leaves first");
    assert_eq!(q().l_next(SimTime::ZERO), None);
}

#[test]
fn both_queues_share_one_buffer() {
    let mut d = DualPi2::new(Dualpi2Config::DEFAULT, Capacity::Packets(3), stream_rng(1, 99, 0));
    for f in [L4S, L4S, 0] {
        d.enqueue(with(f), &ctx(SimTime::ZERO)).unwrap();
    }
    assert_eq!(d.enqueue(with(ECT), &ctx(SimTime::ZERO)).unwrap_err().1, DropCause::Overflow);
    assert_eq!(d.enqueue(with(L4S), &ctx(SimTime::ZERO)).unwrap_err().1, DropCause::Overflow);
    assert_eq!((d.len_pkts(), d.len_bytes()), (3, 4500));
}

#[test]
fn parameters_are_read_with_their_defaults_and_ranges() {
    let p = |kv: &[(&str, f64)]| -> Params { kv.iter().map(|(k, v)| (k.to_string(), *v)).collect() };
    let info = build(&QueueSettings::EXAMPLE, &p(&[])).unwrap().describe().unwrap();
    assert_eq!(info.params.get("tupdate"), Some(&0.016));
    assert_eq!(info.params.get("k"), Some(&2.0));
    let info = build(&QueueSettings::EXAMPLE, &p(&[("k", 1.5), ("step_thresh", 0.002)])).unwrap().describe().unwrap();
    assert_eq!((info.params.get("k"), info.params.get("step_thresh")), (Some(&1.5), Some(&0.002)));
    for (name, bad) in [("k", 0.0), ("alpha", -1.0), ("tupdate", 0.0), ("min_qlen_step", 2.5), ("classic_ecn", 2.0)] {
        let e = build(&QueueSettings::EXAMPLE, &p(&[(name, bad)])).err().unwrap();
        assert_eq!(e.param, name);
    }
    assert_eq!(build(&QueueSettings::EXAMPLE, &p(&[("nope", 1.0)])).err().unwrap().param, "nope");
}
