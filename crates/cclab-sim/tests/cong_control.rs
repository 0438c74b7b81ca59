//! An algorithm that implements `cong_control` owns the window and the pacing rate:
//! `cong_avoid` is not called, the window it sets bounds the flight, and paced
//! segments leave exactly wire size / pacing rate apart.

use cclab_sim::cc::{self, CongControl, CongestionControl, ParamReader, Params, RateSample, SenderView};
use cclab_sim::registry::{Entry, Schema};
use cclab_sim::units::{Rate, SimTime};
use cclab_sim::Scenario;
use std::cell::RefCell;

#[derive(Default)]
struct Seen {
    /// (time, flight size including the segment) of every data segment sent.
    sends: Vec<(SimTime, u64)>,
    cong_avoid_calls: u64,
    cong_control_calls: u64,
    /// The window the sender showed `set_state` and `cwnd_event`, call by call.
    shown: Vec<f64>,
}

thread_local! {
    static SEEN: RefCell<Seen> = RefCell::new(Seen::default());
}

/// A fixed window and an optional fixed pacing rate, from the first segment on; the
/// `ssthresh` it answers a loss with (0: the window).
struct Fixed(CongControl, f64);

impl CongestionControl for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        if self.1 > 0.0 {
            self.1
        } else {
            v.cwnd
        }
    }
    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        SEEN.with(|s| s.borrow_mut().cong_avoid_calls += 1);
        v.cwnd + 100.0
    }
    fn on_send(&mut self, v: &SenderView, _seq: u64) -> cc::CcHeader {
        SEEN.with(|s| s.borrow_mut().sends.push((v.now, v.flight_size)));
        cc::CcHeader::default()
    }
    fn init(&mut self, _v: &SenderView) -> Option<CongControl> {
        Some(self.0)
    }
    fn set_state(&mut self, v: &SenderView, _new: cc::CaState) {
        SEEN.with(|s| s.borrow_mut().shown.push(v.cwnd));
    }
    fn cwnd_event(&mut self, v: &SenderView, _ev: cc::CwndEvent) {
        SEEN.with(|s| s.borrow_mut().shown.push(v.cwnd));
    }
    fn cong_control(&mut self, _v: &SenderView, _rs: &RateSample) -> Option<CongControl> {
        SEEN.with(|s| s.borrow_mut().cong_control_calls += 1);
        Some(self.0)
    }
    fn uses_rate_samples(&self) -> bool {
        true
    }
}

fn fixed(p: &Params) -> Result<Box<dyn CongestionControl>, cc::ParamError> {
    let mut r = ParamReader::new(p);
    let cwnd = r.get("cwnd", 10.0, 1.0, 1e6)?;
    let kbps = r.get("pacing_kbps", 0.0, 0.0, 1e9)?;
    let ssthresh = r.get("ssthresh", 0.0, 0.0, 1e9)?;
    r.finish()?;
    let pacing_rate = (kbps > 0.0).then_some(Rate((kbps * 1e3) as u64));
    Ok(Box::new(Fixed(CongControl { cwnd, pacing_rate, mark_app_limited: false }, ssthresh)))
}

fn register() {
    // Each test registers it; the first registration wins, the others are refused.
    let _ = cc::REGISTRY.register(Entry {
        name: "fixed",
        summary: "test: a fixed window and pacing rate set through cong_control",
        params: Schema::Read,
        build: fixed as cc::Builder,
    });
}

/// 10 Mbit/s, 5 ms each way, a 100-packet buffer; one flow with the given parameters.
fn run(params: &str) -> (cclab_sim::Simulation, Seen) {
    run_with(params, "")
}

/// As `run`, with `link` added to the link's fields (`, loss = 0.02`).
fn run_with(params: &str, link: &str) -> (cclab_sim::Simulation, Seen) {
    register();
    let text = format!(
        r#"
        duration = "2s"
        [topology]
        kind = "graph"
        nodes = ["a", "b"]
        links = [{{ from = "a", to = "b", rate = "10Mbps", delay = "5ms", buffer = "100pkts"{link} }}]
        [[flows]]
        cc = "fixed"
        cc_params = {{ {params} }}
        recovery = "sack"
        src = "a"
        dst = "b"
    "#
    );
    let mut b = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}")).build(1).unwrap();
    b.sim.run_until(b.duration);
    (b.sim, SEEN.with(|s| s.take()))
}

#[test]
fn the_window_cong_control_sets_bounds_the_flight_and_cong_avoid_is_never_called() {
    let (sim, seen) = run("cwnd = 5");
    assert_eq!(seen.cong_avoid_calls, 0);
    assert!(seen.cong_control_calls > 100);
    let max_flight = seen.sends.iter().map(|&(_, f)| f).max().unwrap();
    assert_eq!(max_flight, 5);
    assert_eq!(sim.flows[0].sender.cwnd, 5.0);
    // 5 packets per RTT (11.2 ms + queueing of none): well below the link's 10 Mbit/s.
    let sent = sim.flows[0].sender.stats.sent as f64;
    let rtt = 2.0 * 5e-3 + 1.2e-3 + 32e-6;
    assert!((sent - 5.0 * 2.0 / rtt).abs() < 10.0, "{sent} packets");
}

#[test]
fn paced_segments_leave_wire_size_over_pacing_rate_apart() {
    // 2 Mbit/s: 1500 B every 6 ms, slower than the window of 30 would allow.
    let (sim, seen) = run("cwnd = 30, pacing_kbps = 2000");
    let gap = Rate(2_000_000).tx_time(1500);
    assert_eq!(gap, SimTime(6_000_000_000));
    assert_eq!(seen.sends[0].0, SimTime::ZERO);
    for w in seen.sends.windows(2) {
        assert_eq!(w[1].0 - w[0].0, gap, "departures at {} and {}", w[0].0, w[1].0);
    }
    // Paced from the first segment to the end of the run: 2 s / 6 ms, the one at 0 included.
    assert_eq!(seen.sends.len(), 334);
    assert_eq!(sim.flows[0].sender.stats.retransmits, 0);
}

#[test]
fn without_a_pacing_rate_the_window_leaves_at_once() {
    let (_, seen) = run("cwnd = 30");
    // The first window leaves at t = 0, back to back.
    assert_eq!(seen.sends.iter().take_while(|&&(t, _)| t == SimTime::ZERO).count(), 30);
}

#[test]
fn a_loss_response_leaves_the_window_to_cong_control() {
    // Linux skips its window reduction (tcp_cwnd_reduction, tcp_end_cwnd_reduction) for an
    // algorithm with cong_control: entering and leaving recovery show it the window it set,
    // even when its ssthresh (here 2 packets; BBR's is infinite) would say otherwise (BBR saves
    // the window it is shown on a state change, and restores it when recovery ends).
    let (sim, seen) = run_with("cwnd = 20, ssthresh = 2", ", loss = 0.02");
    let stats = &sim.flows[0].sender.stats;
    assert!(stats.fast_retransmits > 5, "{} recoveries", stats.fast_retransmits);
    assert!(seen.shown.len() > 10, "{} state changes and events", seen.shown.len());
    let other: Vec<f64> = seen.shown.iter().copied().filter(|&w| w != 20.0).collect();
    assert!(other.is_empty(), "windows shown besides 20: {other:?}");
}
