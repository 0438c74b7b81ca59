//! The engine's two shortcuts change how many events a run takes, never its results:
//! - cutting a packet through to a private link (sim/link.rs): the same run with it off
//!   (`Simulation::end` left at zero) gives the same dump, with more events;
//! - an arrival at an idle DropTail link skipping the queue's round trip
//!   (`QueueDisc::passes_when_idle`): DropTail and a copy of it that never allows the
//!   shortcut give the same dump.

use cclab_sim::packet::Packet;
use cclab_sim::queue::{self, Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use cclab_sim::registry::{Entry, ParamError, ParamReader, Params, Schema};
use cclab_sim::units::SimTime;
use cclab_sim::{dump, results, Scenario};

/// The run's dump without its event counts, and the events handled.
fn run(text: &str, cut_through: bool) -> (String, u64) {
    let sc = Scenario::from_toml(text).unwrap();
    let mut b = sc.build(3).unwrap();
    if !cut_through {
        b.sim.end = SimTime::ZERO;
    }
    b.sim.run_until(b.duration);
    let r = results::collect(&b.sim, b.duration);
    let d = dump::dump(&r, 0, 0);
    (d.lines().filter(|l| !l.starts_with("summary.events:")).collect::<Vec<_>>().join("\n"), b.sim.events_handled)
}

/// Scenarios where cutting through (and delivering ahead to a receiver) is tempting and easy to
/// get wrong: delayed ACKs and a warm-up in the middle of the traffic, identical flows in
/// lockstep (ties), slow access links that queue a flow's own packets, one flow whose every
/// link is private, a graph whose links are all sampled, UDP, loss.
const CASES: &[(&str, &str)] = &[
    (
        "lockstep, delayed ACKs, warm-up",
        r#"
duration = "8s"
warmup = "2.5s"
sample_interval = "250ms"
[topology]
bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "0.5bdp" }
[[flows]]
cc = "newreno"
recovery = "sack"
count = 4
rtt = "40ms"
delayed_ack = true
"#,
    ),
    (
        "slow access links, two RTTs, UDP",
        r#"
duration = "6s"
[topology]
bottleneck = { rate = "50Mbps", delay = "5ms", buffer = "40pkts" }
[[flows]]
cc = "cubic"
recovery = "sack"
count = 2
rtt = "30ms"
access_rate = "30Mbps"
[[flows]]
cc = "reno"
rtt = "90ms"
start = "0.3s"
[[udp]]
rate = "5Mbps"
"#,
    ),
    (
        // One flow: every link is private, so packets and their ACKs go through chains of
        // cut-through links and to the receiver ahead of the clock; a warm-up inside the traffic
        // leaves some on wires, which packets handed on later must not overtake.
        "one flow, chains of private links, warm-up",
        r#"
duration = "12s"
warmup = "10s"
[topology]
bottleneck = { rate = "100Mbps", delay = "28ms", buffer = "125pkts" }
[[flows]]
cc = "reno"
recovery = "reno"
rtt = "60ms"
access_rate = "1Gbps"
"#,
    ),
    (
        "lossy bottleneck, RED",
        r#"
duration = "6s"
[topology]
bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "1bdp", queue = "red", loss = 0.001 }
[[flows]]
cc = "newreno"
count = 3
rtt = "50ms"
start_spread = "0.2s"
"#,
    ),
];

#[test]
fn cutting_through_to_private_links_changes_the_events_not_the_results() {
    for (name, text) in CASES {
        let (with, n_with) = run(text, true);
        let (without, n_without) = run(text, false);
        assert!(with == without, "{name}: results differ with cutting through");
        assert!(n_with < n_without, "{name}: {n_with} events with cutting through, {n_without} without");
    }
}

#[test]
fn web_objects_starting_later_share_no_link_that_was_cut_through_to() {
    // Web objects add flows during the run, on their hosts' links: those are never private,
    // the bulk flows' own access links still are.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/web-and-udp.toml"))
        .unwrap()
        .replace("duration = \"60s\"", "duration = \"8s\"")
        .replace("warmup = \"10s\"", "warmup = \"3s\"");
    let (with, n_with) = run(&text, true);
    let (without, n_without) = run(&text, false);
    assert!(with == without, "results differ with cutting through");
    assert!(n_with < n_without);
}

#[test]
fn a_graph_whose_links_are_all_sampled_is_never_cut_through() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/graph-parking-lot.toml"))
        .unwrap()
        .replace("duration = \"30s\"", "duration = \"3s\"");
    let (with, n_with) = run(&text, true);
    let (without, n_without) = run(&text, false);
    assert!(with == without);
    assert_eq!(n_with, n_without, "a sampled link is observed at every sample: it is never private");
}

/// DropTail, except that it never lets an arrival skip the queue.
struct RoundTrip(Box<dyn QueueDisc>);

impl QueueDisc for RoundTrip {
    fn enqueue(&mut self, pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        self.0.enqueue(pkt, ctx)
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.0.dequeue(now)
    }
    fn len_pkts(&self) -> usize {
        self.0.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.0.len_bytes()
    }
    fn packets(&self) -> Vec<Packet> {
        self.0.packets()
    }
}

fn build_round_trip(s: &QueueSettings, p: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let r = ParamReader::new(p);
    r.finish()?;
    Ok(Box::new(RoundTrip(queue::droptail::build(s, &Params::new())?)))
}

#[test]
fn an_idle_droptail_arrival_skipping_the_queue_counts_as_the_round_trip_does() {
    let _ = queue::REGISTRY.register(Entry {
        name: "droptail-round-trip",
        summary: "DropTail without the idle shortcut (test)",
        params: Schema::Read,
        build: build_round_trip,
    });
    // Every link of a graph is sampled, so the queue counters of every link are in the dump;
    // byte buffers exercise the byte capacity check of the shortcut.
    let graph = |q: &str| {
        format!(
            r#"
duration = "4s"
sample_interval = "100ms"
[topology]
kind = "graph"
nodes = ["a", "b", "c"]
links = [
  {{ from = "a", to = "b", rate = "100Mbps", delay = "5ms", buffer = "20000B", queue = "{q}" }},
  {{ from = "b", to = "c", rate = "10Mbps", delay = "10ms", buffer = "30pkts", queue = "{q}" }},
]
[[flows]]
cc = "newreno"
recovery = "sack"
src = "a"
dst = "c"
count = 2
"#
        )
    };
    let (fast, _) = run(&graph("droptail"), true);
    let (slow, _) = run(&graph("droptail-round-trip"), true);
    assert!(fast == slow, "the idle shortcut changed a counter");
    assert!(fast.contains("queues.max_len_pkts:"), "the dump has the queues' counters");
}

#[test]
fn droptail_lets_an_arrival_skip_only_what_its_empty_buffer_would_take() {
    let pkt = |size| Packet { size, ..queue_test_packet() };
    let s = |cap| QueueSettings { cap, ..QueueSettings::EXAMPLE };
    let q = queue::droptail::build(&s(Capacity::Bytes(1000)), &Params::new()).unwrap();
    assert!(q.passes_when_idle(&pkt(1000)) && !q.passes_when_idle(&pkt(1001)));
    let ns2: Params = [("count_in_service".to_string(), 1.0)].into_iter().collect();
    let one = queue::droptail::build(&s(Capacity::Packets(1)), &ns2).unwrap();
    assert!(!one.passes_when_idle(&pkt(40)), "ns-2's limit of 1 holds nothing: the arrival is dropped");
    let mut q = queue::droptail::build(&s(Capacity::Packets(5)), &Params::new()).unwrap();
    assert!(q.passes_when_idle(&pkt(1500)));
    let ctx = EnqueueContext { now: SimTime::ZERO, idle_since: None };
    q.enqueue(pkt(1500), &ctx).unwrap();
    assert!(!q.passes_when_idle(&pkt(1500)), "a packet waits: the arrival queues behind it");
}

fn queue_test_packet() -> Packet {
    Packet { size: 1500, ..Packet::EMPTY }
}

#[test]
fn events_worked_out_ahead_keep_their_place_among_ties() {
    // Four paced BBR flows starting together: their pacing timers fall on the very picosecond
    // of ACK arrivals, and an ACK cut through to the sender's access link is an event made
    // ahead of its time. Pushed as made then (EventQueue::push_made_at), it comes out where
    // it would have without the shortcut; pushed as made when cut through, this run differs.
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/crosscheck/56-bbr-four.toml"))
            .unwrap()
            .replace("duration = \"30s\"", "duration = \"15s\"");
    let (with, n_with) = run(&text, true);
    let (without, n_without) = run(&text, false);
    assert!(with == without, "results differ with cutting through");
    assert!(n_with < n_without);
}
