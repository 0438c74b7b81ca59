//! The RTT sample a congestion control is handed on each ACK (a flow group's `ca_rtt`) and the
//! timestamp clock's tick (`timestamp_clock`): what `pkts_acked` sees, beside the sender's own
//! smoothed RTT at that moment.

use cclab_sim::cc::{self, AckSample, CongestionControl, Params, SenderView};
use cclab_sim::registry::{Entry, Schema};
use cclab_sim::units::SimTime;
use cclab_sim::Scenario;
use std::cell::RefCell;

thread_local! {
    /// (the sample handed to `pkts_acked`, the sender's SRTT then) for every ACK with a sample.
    static SEEN: RefCell<Vec<(SimTime, SimTime)>> = const { RefCell::new(Vec::new()) };
}

/// Reno's growth, recording the RTT samples.
struct Recorder;

impl CongestionControl for Recorder {
    fn name(&self) -> &str {
        "rtt-recorder"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        (v.cwnd / 2.0).max(2.0)
    }
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        v.cwnd + acked as f64 / v.cwnd
    }
    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            SEEN.with(|seen| seen.borrow_mut().push((r, v.srtt)));
        }
    }
}

fn register() {
    // Each test registers it; the first registration wins, the others are refused.
    let _ = cc::REGISTRY.register(Entry {
        name: "rtt-recorder",
        summary: "test: records the RTT samples handed to pkts_acked",
        params: Schema::Read,
        build: (|_: &Params| Ok(Box::new(Recorder) as Box<dyn CongestionControl>)) as cc::Builder,
    });
}

/// One flow with delayed ACKs over 10 Mbit/s, 10.3 ms each way, a 50-packet buffer (so a queue
/// and losses vary the samples), with `fields` added to the flow group.
fn samples(fields: &str) -> Vec<(SimTime, SimTime)> {
    register();
    let text = format!(
        r#"
        duration = "3s"
        [topology]
        kind = "graph"
        nodes = ["a", "b"]
        links = [{{ from = "a", to = "b", rate = "10Mbps", delay = "10.3ms", buffer = "50pkts" }}]
        [[flows]]
        cc = "rtt-recorder"
        recovery = "sack"
        delayed_ack = true
        src = "a"
        dst = "b"
        {fields}
    "#
    );
    let mut b = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}")).build(1).unwrap();
    b.sim.run_until(b.duration);
    SEEN.with(|s| s.take())
}

#[test]
fn smoothed_hands_the_senders_srtt_and_the_estimator_its_own_samples() {
    let smoothed = samples(r#"ca_rtt = "smoothed""#);
    assert!(smoothed.len() > 500, "{} samples", smoothed.len());
    assert!(smoothed.iter().all(|&(r, srtt)| r == srtt));
    // The estimator's samples are not its average: most differ from the SRTT they move.
    let estimator = samples(r#"ca_rtt = "estimator""#);
    let differ = estimator.iter().filter(|&&(r, srtt)| r != srtt).count();
    assert!(differ > estimator.len() / 2, "{differ} of {}", estimator.len());
}

#[test]
fn a_timestamp_clock_counts_whole_ticks_of_the_echoed_timestamp() {
    let ms = SimTime::from_millis(1).0;
    let exact = samples(r#"ca_rtt = "estimator""#);
    assert!(exact.iter().any(|&(r, _)| r.0 % ms != 0));
    let ticks = samples(
        r#"ca_rtt = "estimator"
        timestamp_clock = "1ms""#,
    );
    assert!(!ticks.is_empty() && ticks.iter().all(|&(r, _)| r.0 % ms == 0));
    // The path's 20.6 ms plus serialization and queueing: never fewer whole ticks than the
    // propagation's, and some samples a tick above the exact ones' floor.
    assert!(ticks.iter().all(|&(r, _)| r >= SimTime::from_millis(20)));
    assert!(ticks.iter().any(|&(r, _)| r > SimTime::from_millis(21)));
}
