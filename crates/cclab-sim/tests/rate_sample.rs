//! Delivery-rate samples (tcp/rate.rs, Linux tcp_rate.c) as the sender takes them:
//! hand-computed first samples, the bottleneck rate on a saturated link, and the
//! app-limited flag.

use cclab_sim::cc::{self, CongestionControl, Params, RateSample, SenderView};
use cclab_sim::packet::Packet;
use cclab_sim::registry::{Entry, Schema};
use cclab_sim::tcp::{Sender, TcpConfig};
use cclab_sim::units::{Rate, SimTime};
use cclab_sim::Scenario;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

mod common;

const MS: u64 = 1_000_000_000;

/// Every rate sample an algorithm was shown, with the time.
type Samples = Arc<Mutex<Vec<(SimTime, RateSample)>>>;

/// Reno that keeps every rate sample it is shown (and answers `None`: Reno stays in charge).
struct Recorder {
    inner: Box<dyn CongestionControl>,
    seen: Samples,
    /// What `uses_rate_samples` answers.
    declared: bool,
}

impl CongestionControl for Recorder {
    fn name(&self) -> &str {
        "rate-recorder"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.inner.ssthresh(v)
    }
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        self.inner.cong_avoid(v, acked)
    }
    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<cc::CongControl> {
        self.seen.lock().unwrap().push((v.now, *rs));
        None
    }
    fn uses_rate_samples(&self) -> bool {
        self.declared
    }
}

fn recorder() -> (Box<dyn CongestionControl>, Samples) {
    recorder_declaring(true)
}

fn recorder_declaring(declared: bool) -> (Box<dyn CongestionControl>, Samples) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let inner = cc::build("reno", &Params::new()).unwrap();
    (Box::new(Recorder { inner, seen: seen.clone(), declared }), seen)
}

#[test]
fn an_algorithm_that_does_not_use_rate_samples_is_not_asked_and_its_window_is_the_same() {
    let mut windows = Vec::new();
    for declared in [true, false] {
        let (cc, seen) = recorder_declaring(declared);
        let mut s = Sender::new(0, TcpConfig::default(), cc, u64::MAX);
        let mut out = Vec::new();
        s.start(SimTime::ZERO, &mut out);
        for (i, t) in [(1, 10), (2, 11), (3, 20)] {
            s.on_ack(&ack(i, SimTime::ZERO), SimTime(t * MS), &mut out);
        }
        assert_eq!(seen.lock().unwrap().len(), if declared { 3 } else { 0 });
        windows.push((s.cwnd, out.len()));
    }
    assert_eq!(windows[0], windows[1], "the samples change nothing for an ACK-clocked algorithm");
}

fn ack(seq: u64, ts_ecr: SimTime) -> Packet {
    Packet { ts_ecr, ..common::ack(seq) }
}

#[test]
fn the_first_samples_match_the_hand_computed_rate() {
    let (cc, seen) = recorder();
    let mut s = Sender::new(0, TcpConfig::default(), cc, u64::MAX);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 2, "the initial window of 2 leaves at t = 0");
    // Segment 0 is acknowledged at 10 ms: one packet over max(send 0, ACK 10 ms) = 10 ms,
    // 1500 B x 8 / 10 ms = 1.2 Mbit/s; 10 ms is also the minimum RTT, so the sample is valid.
    s.on_ack(&ack(1, SimTime::ZERO), SimTime(10 * MS), &mut out);
    // Segment 1 at 11 ms: P = its snapshot (delivered 0, delivered_time 0), so 2 packets over
    // 11 ms = 24000 bit / 11 ms = 2181818 bit/s.
    s.on_ack(&ack(2, SimTime::ZERO), SimTime(11 * MS), &mut out);
    let seen = seen.lock().unwrap();
    let (_, a) = seen[0];
    assert_eq!((a.prior_delivered, a.delivered, a.acked_sacked, a.prior_in_flight), (0, 1, 1, 2));
    assert_eq!(a.interval, Some(SimTime(10 * MS)));
    assert_eq!(a.delivery_rate, Some(Rate(1_200_000)));
    assert_eq!(a.rtt, Some(SimTime(10 * MS)));
    assert!(!a.is_app_limited);
    let (_, b) = seen[1];
    assert_eq!((b.prior_delivered, b.delivered), (0, 2));
    assert_eq!(b.interval, Some(SimTime(11 * MS)));
    assert_eq!(b.delivery_rate, Some(Rate(2_181_818)));
}

#[test]
fn a_segment_sent_while_the_application_had_nothing_to_send_gives_an_app_limited_sample() {
    let (cc, seen) = recorder();
    // Two segments to send, a window of 10: the application runs dry at t = 0.
    let mut s = Sender::new(0, TcpConfig { init_cwnd: 10.0, ..TcpConfig::default() }, cc, 2);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(s.rate.app_limited, 2, "delivered 0 + 2 in flight");
    // Segment 0 was sent before the mark: its sample is not flagged.
    s.on_ack(&ack(1, SimTime::ZERO), SimTime(10 * MS), &mut out);
    assert!(!seen.lock().unwrap()[0].1.is_app_limited);
    // Segment 1 is lost; the timer resends it at 1 s with the mark (delivered 1 <= 2) in its
    // snapshot, so the sample of its ACK is app-limited, and then the mark is passed.
    s.on_rto(SimTime(1000 * MS), &mut out);
    s.on_ack(&ack(2, SimTime(1000 * MS)), SimTime(1010 * MS), &mut out);
    let (_, rs) = seen.lock().unwrap()[1];
    assert!(rs.is_app_limited);
    // Its snapshot: delivered_time 10 ms (the last ACK), first_tx_time 0 (segment 0's send
    // time); send elapsed 1000 - 0, ACK elapsed 1010 - 10: one packet in 1000 ms.
    assert_eq!((rs.delivered, rs.interval), (1, Some(SimTime(1000 * MS))));
    // All delivered, nothing more to send: still marked, at delivered + 0 in flight.
    assert_eq!(s.rate.app_limited, 2);
}

thread_local! {
    /// Samples kept by the registered algorithm below, per test thread.
    static SEEN: RefCell<Vec<(SimTime, RateSample)>> = const { RefCell::new(Vec::new()) };
}

struct ThreadRecorder(Box<dyn CongestionControl>);

impl CongestionControl for ThreadRecorder {
    fn name(&self) -> &str {
        "thread-recorder"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.0.ssthresh(v)
    }
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        // Reno, but never beyond 40 packets: the buffer below never overflows.
        self.0.cong_avoid(v, acked).min(40.0)
    }
    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<cc::CongControl> {
        SEEN.with(|s| s.borrow_mut().push((v.now, *rs)));
        None
    }
    fn uses_rate_samples(&self) -> bool {
        true
    }
}

fn thread_recorder(p: &Params) -> Result<Box<dyn CongestionControl>, cc::ParamError> {
    Ok(Box::new(ThreadRecorder(cc::build("reno", p)?)))
}

#[test]
fn on_a_saturated_bottleneck_the_delivery_rate_is_the_link_rate_within_one_packet() {
    cc::REGISTRY
        .register(Entry {
            name: "thread-recorder",
            summary: "test: Reno capped at 40 packets, keeping its rate samples",
            params: Schema::Read,
            build: thread_recorder as cc::Builder,
        })
        .unwrap();
    let text = r#"
        duration = "3s"
        [topology]
        kind = "graph"
        nodes = ["a", "b"]
        links = [{ from = "a", to = "b", rate = "10Mbps", delay = "5ms", buffer = "100pkts" }]
        [[flows]]
        cc = "thread-recorder"
        src = "a"
        dst = "b"
    "#;
    let mut b = Scenario::from_toml(text).unwrap().build(1).unwrap();
    b.sim.run_until(b.duration);
    assert_eq!(b.sim.flows[0].counters.data_drops, 0, "the window stays below BDP + buffer");
    let seen = SEEN.with(|s| s.take());
    // 10 Mbit/s carries one 1500-byte packet per 1.2 ms.
    let per_pkt = 1.2e-3;
    let mut checked = 0;
    for (t, rs) in seen.iter().filter(|(t, _)| t.secs_f64() > 1.0) {
        let i = rs.interval.unwrap_or_else(|| panic!("invalid sample at {t}: {rs:?}"));
        let expected = i.secs_f64() / per_pkt;
        assert!((rs.delivered as f64 - expected).abs() <= 1.0, "at {t}: {} packets in {i}", rs.delivered);
        let r = rs.delivery_rate.unwrap().bps() as f64;
        assert!((r - 10e6).abs() <= 10e6 / rs.delivered as f64, "at {t}: {r} bit/s");
        assert!(!rs.is_app_limited && rs.losses == 0);
        checked += 1;
    }
    assert!(checked > 1000, "{checked} samples");
}
