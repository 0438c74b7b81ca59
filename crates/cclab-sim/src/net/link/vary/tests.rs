use super::*;
use crate::net::link::Arrival;
use crate::queue::{droptail::DropTail, test_packet, Capacity};
use crate::rng::{self, stream_rng};

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// Opportunities at 1, 1 and 2 ms, repeating every 2 ms.
fn trace() -> Opportunities {
    Opportunities::new(vec![1, 1, 2].into())
}

#[test]
fn a_full_size_packet_takes_one_opportunity_and_the_next_packet_the_next() {
    let mut t = trace();
    assert_eq!(t.serve(ms(1), 1500), ms(1));
    assert_eq!(t.serve(ms(1), 1500), ms(1));
    assert_eq!(t.serve(ms(1), 1500), ms(2));
    // The trace repeats shifted by its last timestamp: 3, 3, 4 ms.
    assert_eq!(t.serve(ms(2), 1500), ms(3));
}

#[test]
fn small_packets_share_an_opportunity_and_a_large_rest_spills_into_the_next() {
    let mut t = trace();
    // Thirty-seven 40-byte ACKs fit in the first opportunity (1480 of its 1500 bytes).
    for _ in 0..37 {
        assert_eq!(t.serve(ms(1), 40), ms(1));
    }
    // 20 bytes are left in the first opportunity: a 1500-byte packet takes them and 1480 of the
    // second, leaving at 1 ms; the next 1500 bytes take the 20 left and 1480 of the third (2 ms).
    assert_eq!(t.serve(ms(1), 1500), ms(1));
    assert_eq!(t.serve(ms(1), 1500), ms(2));
}

#[test]
fn unused_opportunities_are_lost_not_banked() {
    let mut t = trace();
    // Nothing was sent during the first 10 ms: the packet waits for the opportunity at 11 ms
    // (the sixth repetition's first), and the one after it for the second, also at 11 ms.
    assert_eq!(t.after(ms(10)), ms(11));
    assert_eq!(t.serve(ms(11), 1500), ms(11));
    assert_eq!(t.serve(ms(11), 1500), ms(11));
    assert_eq!(t.serve(ms(11), 1500), ms(12));
    // A packet half used an opportunity; a packet after it only once that one's time passed
    // does not get the rest.
    let mut t = trace();
    assert_eq!(t.serve(ms(1), 700), ms(1));
    assert_eq!(t.after(SimTime(ms(1).0 + 1)), ms(2));
}

#[test]
fn an_arrival_waits_for_an_opportunity_strictly_after_it() {
    let t = trace();
    assert_eq!(t.after(SimTime::ZERO), ms(1));
    // At 1 ms exactly the opportunities of 1 ms are gone (mm-link burns them before queueing it).
    assert_eq!(t.after(ms(1)), ms(2));
    assert_eq!(t.after(ms(2)), ms(3));
}

#[test]
fn a_jumbo_packet_takes_as_many_opportunities_as_its_bytes_need() {
    let mut t = trace();
    // 4000 bytes: 1500 + 1500 at 1 ms, 1000 at 2 ms.
    assert_eq!(t.serve(ms(1), 4000), ms(2));
    // 500 bytes left at 2 ms.
    assert_eq!(t.serve(ms(2), 500), ms(2));
    assert_eq!(t.serve(ms(2), 1), ms(3));
}

#[test]
fn mean_rate_is_the_opportunity_bytes_over_the_period() {
    // 3 x 1500 bytes every 2 ms: 18 Mbit/s.
    assert_eq!(trace().mean_rate(), Rate(18_000_000));
    // Its busy-time share: 1500 bytes are a third of 2 ms.
    assert_eq!(trace().share(1500), SimTime(ms(2).0 / 3));
}

#[test]
fn a_trace_is_refused_with_the_line_that_breaks_mm_links_rules() {
    assert_eq!(parse_mahimahi("1\n1\n2\n", 10), Ok(vec![1, 1, 2]));
    assert!(parse_mahimahi("1\n\n2\n", 10).unwrap_err().starts_with("line 2: an empty line"));
    assert!(parse_mahimahi("1\n3\n2\n", 10).unwrap_err().starts_with("line 3: 2 is earlier"));
    assert!(parse_mahimahi("1\n1.5\n", 10).unwrap_err().starts_with("line 2: '1.5' is not a whole"));
    assert!(parse_mahimahi("0\n0\n", 10).unwrap_err().contains("last timestamp is 0"));
    assert!(parse_mahimahi("", 10).unwrap_err().starts_with("no line"));
    assert_eq!(parse_mahimahi("1\n2\n3\n", 2), Err("more than 2 lines".into()));
}

#[test]
fn steps_are_taken_once_their_time_has_come_and_the_latest_wins() {
    let mut s = Steps::new(vec![(ms(10), 1u32), (ms(20), 2), (ms(30), 3)]);
    assert_eq!(s.due(ms(5)), None);
    assert_eq!(s.due(ms(10)), Some(1));
    assert_eq!(s.due(ms(15)), None);
    assert_eq!(s.due(ms(35)), Some(3));
    assert_eq!(s.due(ms(40)), None);
}

#[test]
fn gilbert_elliott_loses_the_stationary_share_in_bursts_of_mean_length_one_over_r() {
    // p = 0.01, r = 0.25, loss only in the bad state: p / (p + r) = 3.85 % lost, runs of 4.
    let mut ge = GilbertElliott::new(0.01, 0.25, 0.0, 1.0, stream_rng(1, rng::stream::LINK_LOSS, 0));
    let n = 400_000;
    let (mut lost, mut runs, mut prev) = (0u32, 0u32, false);
    for _ in 0..n {
        let l = ge.lose();
        lost += l as u32;
        runs += (l && !prev) as u32;
        prev = l;
    }
    let share = lost as f64 / n as f64;
    let mean_run = lost as f64 / runs as f64;
    assert!((share - 0.01 / 0.26).abs() < 0.003, "share {share}");
    assert!((mean_run - 4.0).abs() < 0.2, "mean run {mean_run}");
}

/// A 1 Mbit/s link whose delay drops from 100 ms to 10 ms at 5 ms.
fn delay_step_link() -> Link {
    let mut l = Link::new("l".into(), 0, 1, Rate(1_000_000), ms(100), Box::new(DropTail::new(Capacity::Unlimited)));
    l.set_varying(Varying::new(None, Some(Steps::new(vec![(ms(5), ms(10))])), None, None, None));
    l
}

#[test]
fn a_delay_step_down_keeps_the_wire_in_order() {
    let mut l = delay_step_link();
    // 125 bytes take 1 ms at 1 Mbit/s: the first arrives at 1 + 100 ms.
    let Arrival::Sent(_, first) = l.arrive(SimTime::ZERO, test_packet(125)) else { panic!("sent at once") };
    assert_eq!(first.arrive, ms(101));
    // Sent at 6 ms with 10 ms of delay it would arrive at 17 ms, before the first: it waits for it.
    let Arrival::Sent(_, second) = l.arrive(ms(6), test_packet(125)) else { panic!("sent at once") };
    assert_eq!(second.arrive, ms(101));
    // Once the wire has drained, the new delay alone counts: sent at 200 ms, there at 211 ms.
    let Arrival::Sent(_, third) = l.arrive(ms(200), test_packet(125)) else { panic!("sent at once") };
    assert_eq!(third.arrive, ms(211));
}

#[test]
fn a_rate_step_applies_from_the_next_transmission_and_one_in_progress_finishes_at_the_old_rate() {
    let mut l =
        Link::new("l".into(), 0, 1, Rate(1_000_000), SimTime::ZERO, Box::new(DropTail::new(Capacity::Unlimited)));
    l.set_varying(Varying::new(Some(Steps::new(vec![(ms(1), Rate(2_000_000))])), None, None, None, None));
    // 250 bytes: 2 ms at 1 Mbit/s, started before the step at 1 ms: done at 2 ms.
    let Arrival::Sent(_, a) = l.arrive(SimTime::ZERO, test_packet(250)) else { panic!("sent at once") };
    assert_eq!(a.arrive, ms(2));
    // The next, sent at 2 ms, at 2 Mbit/s: 1 ms. The cached serialization time was reset.
    let Arrival::Sent(_, b) = l.arrive(ms(2), test_packet(250)) else { panic!("sent at once") };
    assert_eq!(b.arrive, ms(3));
}

/// A 1 Mbit/s link of 10 ms delay with 2 ms of jitter.
fn jitter_link(seed: u64) -> Link {
    let mut l = Link::new("l".into(), 0, 1, Rate(1_000_000), ms(10), Box::new(DropTail::new(Capacity::Unlimited)));
    let rng = stream_rng(seed, rng::stream::LINK_JITTER, 0);
    l.set_varying(Varying::new(None, None, None, None, None).with_jitter(Some((ms(2), rng))));
    l
}

#[test]
fn jitter_draws_each_delay_uniformly_within_its_bounds_and_keeps_the_wire_in_order() {
    // Packets 100 ms apart never meet: each delay is its own draw, in [8, 12] ms, with the
    // uniform's mean and spread.
    let mut l = jitter_link(7);
    let tx = ms(1); // 125 bytes at 1 Mbit/s
    let delays: Vec<f64> = (0..4000u64)
        .map(|i| {
            let sent = ms(100 * i);
            let Arrival::Sent(_, t) = l.arrive(sent, test_packet(125)) else { panic!("sent at once") };
            (t.arrive.0 - sent.0 - tx.0) as f64 / 1e9
        })
        .collect();
    assert!(delays.iter().all(|&d| (8.0..=12.0).contains(&d)), "a delay outside [8, 12] ms");
    let mean = delays.iter().sum::<f64>() / delays.len() as f64;
    let sd = (delays.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / delays.len() as f64).sqrt();
    assert!((mean - 10.0).abs() < 0.05, "mean {mean} ms");
    assert!((sd - 4.0 / 12f64.sqrt()).abs() < 0.05, "standard deviation {sd} ms");
    // Back to back, 1 ms apart, draws 4 ms wide would overtake: the wire stays in order.
    let mut l = jitter_link(7);
    let mut last = SimTime::ZERO;
    for i in 0..1000 {
        let r = l.arrive(ms(i), test_packet(125));
        let t = match r {
            Arrival::Sent(_, t) => t.arrive,
            Arrival::Queued(_) | Arrival::StartTx => continue,
            Arrival::Dropped(..) => panic!("nothing is dropped"),
        };
        assert!(t >= last, "packet {i} overtook the one before");
        last = t;
    }
}

#[test]
fn the_same_seed_draws_the_same_jitter_and_another_seed_other_draws() {
    let arrivals = |seed| {
        let mut l = jitter_link(seed);
        (0..50u64)
            .map(|i| match l.arrive(ms(100 * i), test_packet(125)) {
                Arrival::Sent(_, t) => t.arrive,
                _ => panic!("sent at once"),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(arrivals(1), arrivals(1));
    assert_ne!(arrivals(1), arrivals(2));
}
