//! FQ-CoDel's unit tests (fq_codel.rs): the round robin's order on a hand-made arrival
//! sequence, the anti-starvation move, the drop from the fattest flow.

use super::*;
use crate::queue::test_packet;

fn settings(cap: Capacity) -> QueueSettings {
    QueueSettings { cap, ..QueueSettings::EXAMPLE }
}

fn params(pairs: &[(&str, f64)]) -> Params {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// An fq_codel with one queue per flow and a quantum of 1500 bytes.
fn exact(cap: Capacity) -> FqCodel {
    FqCodel::configure(&settings(cap), &params(&[("exact", 1.0), ("quantum", 1500.0)])).unwrap()
}

const T0: EnqueueContext = EnqueueContext { now: SimTime(0), idle_since: None };

/// A data packet of `flow` with sequence number `seq`.
fn pkt(flow: u32, seq: u64, size: u32) -> Packet {
    Packet { flow, seq, ..test_packet(size) }
}

/// Dequeues once; the packet as "flow:seq", or "-" for none.
fn next(q: &mut FqCodel) -> String {
    match q.dequeue_or_drop(SimTime(1_000_000), &mut Vec::new()) {
        Some(p) => format!("{}:{}", p.flow, p.seq),
        None => "-".into(),
    }
}

#[test]
fn round_robin_serves_new_flows_first_and_a_quantum_per_turn() {
    let mut q = exact(Capacity::Unlimited);
    // Flow 0 sends three packets, flow 1 one: both are new, flow 0 first.
    for s in 1..=3 {
        q.enqueue(pkt(0, s, 1500), &T0).unwrap();
    }
    q.enqueue(pkt(1, 1, 1500), &T0).unwrap();
    // 0 spends its quantum on 0:1; at the next turn its deficit (0) moves it to the old list
    // with another quantum, and new flow 1 is served; then 1 moves to the old list and the
    // old list's head, 0, is served.
    assert_eq!([next(&mut q), next(&mut q), next(&mut q)], ["0:1", "1:1", "0:2"]);
    assert_eq!(q.lists(), (vec![], vec![0, 1]));
    // A flow arriving now is new and goes before both old ones.
    q.enqueue(pkt(2, 1, 1500), &T0).unwrap();
    assert_eq!(next(&mut q), "2:1");
    // 2 has spent its quantum (to the old list); 0 has too (another quantum, to the tail);
    // 1 and 2 are found empty and leave; 0 sends its last packet; then nothing is left.
    assert_eq!([next(&mut q), next(&mut q)], ["0:3", "-"]);
    assert_eq!(q.lists(), (vec![], vec![]));
    assert!(q.flows.iter().all(|f| !f.listed));
}

#[test]
fn a_new_flow_found_empty_goes_through_the_old_list_before_it_can_be_new_again() {
    let mut q = exact(Capacity::Unlimited);
    q.enqueue(pkt(0, 1, 1500), &T0).unwrap();
    q.enqueue(pkt(0, 2, 1500), &T0).unwrap();
    assert_eq!(next(&mut q), "0:1");
    q.enqueue(pkt(1, 1, 100), &T0).unwrap();
    // 0's deficit is spent: to the old list. New flow 1 sends 100 bytes and keeps 1400.
    assert_eq!(next(&mut q), "1:1");
    assert_eq!(q.lists(), (vec![1], vec![0]));
    // Found empty while the old list is not: 1 moves to the old list's tail, still listed,
    // and 0 is served.
    assert_eq!(next(&mut q), "0:2");
    assert_eq!(q.lists(), (vec![], vec![0, 1]));
    // 1's next packet finds it listed: not new, it waits for its turn behind 0.
    q.enqueue(pkt(0, 3, 1500), &T0).unwrap();
    q.enqueue(pkt(1, 2, 100), &T0).unwrap();
    assert_eq!(q.lists(), (vec![], vec![0, 1]));
    // 0 has a deficit of 0 (+1500, to the tail), then 1 sends.
    assert_eq!([next(&mut q), next(&mut q)], ["1:2", "0:3"]);
    // With the old list empty, a new flow found empty leaves the lists at once.
    let mut q = exact(Capacity::Unlimited);
    q.enqueue(pkt(5, 1, 100), &T0).unwrap();
    assert_eq!([next(&mut q), next(&mut q)], ["5:1", "-"]);
    assert_eq!(q.lists(), (vec![], vec![]));
}

#[test]
fn a_full_queue_drops_half_the_fattest_flows_backlog_from_its_head() {
    let mut q = exact(Capacity::Packets(10));
    for s in 1..=8 {
        q.enqueue(pkt(0, s, 1500), &T0).unwrap();
    }
    q.enqueue(pkt(1, 1, 1500), &T0).unwrap();
    q.enqueue(pkt(1, 2, 1500), &T0).unwrap();
    // The 11th packet: flow 0 (12000 bytes) loses packets from its head until 6000 bytes are
    // gone: 4 packets. The arrival is kept.
    let mut dropped = Vec::new();
    assert!(q.enqueue_or_drop(pkt(2, 1, 1500), &T0, &mut dropped).is_ok());
    let seqs: Vec<(u32, u64, DropCause)> = dropped.iter().map(|(p, c)| (p.flow, p.seq, *c)).collect();
    assert_eq!(
        seqs,
        [
            (0, 1, DropCause::Overflow),
            (0, 2, DropCause::Overflow),
            (0, 3, DropCause::Overflow),
            (0, 4, DropCause::Overflow)
        ]
    );
    assert_eq!((q.len_pkts(), q.len_bytes()), (7, 10500));
    // CoDel's count of that flow grows by the packets dropped.
    assert_eq!(q.flows[0].vars.count, 4);
    // A batch of at most drop_batch_size.
    let mut q = exact(Capacity::Packets(10));
    q.drop_batch = 3;
    for s in 1..=10 {
        q.enqueue(pkt(0, s, 1500), &T0).unwrap();
    }
    let mut dropped = Vec::new();
    q.enqueue_or_drop(pkt(0, 11, 1500), &T0, &mut dropped).unwrap();
    assert_eq!(dropped.len(), 3);
    // When the arrival's own flow is the fattest, drops still come from its head.
    assert_eq!(dropped[0].0.seq, 1);
}

#[test]
fn the_memory_limit_drops_from_the_fattest_flow_too() {
    let mut q = exact(Capacity::Bytes(4000));
    q.enqueue(pkt(0, 1, 1500), &T0).unwrap();
    q.enqueue(pkt(0, 2, 1500), &T0).unwrap();
    let mut dropped = Vec::new();
    q.enqueue_or_drop(pkt(1, 1, 1500), &T0, &mut dropped).unwrap();
    // 4500 bytes > 4000: flow 0 (3000) loses one packet (1500 = half).
    assert_eq!(dropped.iter().map(|(p, _)| (p.flow, p.seq)).collect::<Vec<_>>(), [(0, 1)]);
    assert_eq!(q.len_bytes(), 3000);
}

#[test]
fn flows_hash_into_buckets_by_a_perturbation_from_the_seed() {
    let s = QueueSettings::EXAMPLE;
    let with_seed = |seed: u64| {
        let q = FqCodel::configure(&QueueSettings { seed, ..s }, &params(&[])).unwrap();
        (0..64u32).map(|f| q.bucket(identity(&pkt(f, 0, 1500)))).collect::<Vec<u64>>()
    };
    let (a, b, c) = (with_seed(1), with_seed(1), with_seed(2));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.iter().all(|&x| x < 1024));
    // 64 flows in 1024 buckets: a couple of collisions at most is what chance gives (expected 1.9).
    let mut sorted = a.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert!(sorted.len() >= 58, "{} distinct buckets", sorted.len());
    // One bucket: every flow shares one CoDel FIFO.
    let mut q = FqCodel::configure(&s, &params(&[("flows", 1.0)])).unwrap();
    q.enqueue(pkt(0, 1, 1500), &T0).unwrap();
    q.enqueue(pkt(1, 1, 1500), &T0).unwrap();
    q.enqueue(pkt(0, 2, 1500), &T0).unwrap();
    assert_eq!([next(&mut q), next(&mut q), next(&mut q)], ["0:1", "1:1", "0:2"]);
    assert_eq!(q.flows.len(), 1);
}

#[test]
fn parameters_are_validated_by_name() {
    let s = QueueSettings::EXAMPLE;
    let d = build(&s, &params(&[])).unwrap().describe().unwrap();
    assert_eq!((d.params["flows"], d.params["quantum"], d.params["ecn"]), (1024.0, 1500.0, 1.0));
    assert_eq!((d.params["limit"], d.params["memory_limit"]), (100.0, 33554432.0));
    for (name, bad) in [("flows", 0.0), ("flows", 65537.0), ("quantum", 100.0), ("drop_batch_size", 0.0), ("ecn", 3.0)]
    {
        assert_eq!(build(&s, &params(&[(name, bad)])).err().unwrap().param, name);
    }
}

#[test]
fn codels_mtu_exemption_reads_the_whole_backlog_or_with_mtu_per_flow_the_flows_own() {
    let first_above = |per_flow: f64| {
        let p = params(&[("exact", 1.0), ("quantum", 1500.0), ("mtu_per_flow", per_flow)]);
        let mut q = FqCodel::configure(&settings(Capacity::Unlimited), &p).unwrap();
        q.enqueue(pkt(0, 1, 1500), &T0).unwrap();
        q.enqueue(pkt(0, 2, 1500), &T0).unwrap();
        for s in 1..=100 {
            q.enqueue(pkt(1, s, 1500), &T0).unwrap();
        }
        // Flow 0's head leaves after 200 ms: one packet (1500 bytes) is left in its queue,
        // 101 in the whole.
        q.dequeue_or_drop(SimTime::from_millis(200), &mut Vec::new()).unwrap();
        q.flows[0].vars.first_above_time
    };
    assert_eq!(first_above(0.0), Some(SimTime::from_millis(300)));
    assert_eq!(first_above(1.0), None);
}
