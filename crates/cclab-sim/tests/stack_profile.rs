//! Stack profiles (tcp/profile.rs), knob by knob. Karn's rule without timestamps (RFC 6298 section 3): an ACK that covers a
//! retransmitted segment gives no RTT sample, even when the last segment it
//! covers was sent only once. The "cclab" profile keeps the old rule (only the
//! last covered segment is looked at) until the reproduction made with it is
//! replaced; "ns2" and "linux" apply the whole rule.

use cclab_sim::cc::{self, CaState};
use cclab_sim::packet::{Kind, Packet, SackBlock};
use cclab_sim::tcp::{LossDetection, Recovery, RtoConfig, Sender, StackProfile, TcpConfig};
use cclab_sim::units::SimTime;
use common::ack;

mod common;

const MS: u64 = 1_000_000_000; // picoseconds

/// ns-2's profile without its SYN, so that each knob's test starts with its data window
/// (the SYN has a test of its own).
const NS2: StackProfile = StackProfile { syn: false, ..StackProfile::NS2 };

/// A Reno-congestion-controlled sender with `limit` segments to send, started at t = 0,
/// and what it sent.
fn started(cfg: TcpConfig, limit: u64) -> (Sender, Vec<Packet>) {
    let mut s = Sender::new(0, cfg, cc::build("reno", &cc::Params::new()).unwrap(), limit);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    (s, out)
}

/// Ten segments at t = 0; segment 0 is lost and resent by the timer at 1 s; its ACK at
/// 1.01 s covers all ten. Returns the sender's RTT sample count and backoff afterwards.
fn repaired_hole(stack: StackProfile) -> (u64, u32, SimTime) {
    let cfg =
        TcpConfig { init_cwnd: 10.0, timestamps: false, recovery: Recovery::NewReno, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 10);
    assert_eq!(out.len(), 10);
    s.on_rto(SimTime(1000 * MS), &mut out);
    assert_eq!(s.rtt.backoff, 1);
    s.on_ack(&ack(10), SimTime(1010 * MS), &mut out);
    (s.rtt.samples, s.rtt.backoff, s.rtt.latest)
}

#[test]
fn an_ack_covering_a_retransmitted_segment_gives_no_sample_under_karns_rule() {
    for stack in [NS2, StackProfile::LINUX] {
        let (samples, backoff, _) = repaired_hole(stack);
        assert_eq!(samples, 0, "{}: no sample from an ACK over a resent segment", stack.name);
        assert_eq!(backoff, 1, "{}: the backoff stays until a clean sample", stack.name);
    }
}

#[test]
fn the_cclab_profile_keeps_its_old_rule_and_samples_from_the_last_segment() {
    // Segment 9 was sent once at t = 0: the old rule takes 1010 ms from it and clears the backoff.
    let (samples, backoff, latest) = repaired_hole(StackProfile::CCLAB);
    assert_eq!((samples, backoff, latest), (1, 0, SimTime(1010 * MS)));
}

/// Ten segments at t = 0 with Reno recovery; three duplicate ACKs start a fast retransmit
/// (ssthresh 5); the timer then fires inside recovery, and once more in Loss.
fn timeouts_in_recovery(stack: StackProfile) -> (f64, f64, f64) {
    let cfg = TcpConfig { init_cwnd: 10.0, recovery: Recovery::Reno, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 10);
    for _ in 0..3 {
        s.on_ack(&ack(0), SimTime(10 * MS), &mut out);
    }
    let after_fr = s.view(SimTime(10 * MS)).ssthresh;
    s.on_rto(SimTime(1000 * MS), &mut out);
    let after_rto = s.view(SimTime(1000 * MS)).ssthresh;
    s.on_rto(SimTime(3000 * MS), &mut out);
    (after_fr, after_rto, s.view(SimTime(3000 * MS)).ssthresh)
}

#[test]
fn a_timeout_in_recovery_keeps_ssthresh_in_cclab_and_halves_again_in_ns2() {
    // cclab (RFC 5681 allows it): 10 -> 5 at the fast retransmit, kept through both timeouts.
    assert_eq!(timeouts_in_recovery(StackProfile::CCLAB), (5.0, 5.0, 5.0));
    // ns-2 (tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF) from cwnd_ without dupwnd_): the
    // window without the inflation is 5, halved to 2.5; the second timeout halves cwnd 1 -> 2.
    assert_eq!(timeouts_in_recovery(NS2), (5.0, 2.5, 2.0));
}

/// After a timeout (recover = 10), snd_una reaches exactly 10 and three duplicate ACKs
/// arrive there: may a new fast retransmit start? Returns the fast retransmits counted.
fn dupacks_at_the_recovery_point(stack: StackProfile) -> u64 {
    let cfg = TcpConfig { init_cwnd: 10.0, recovery: Recovery::NewReno, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 40);
    s.on_rto(SimTime(1000 * MS), &mut out);
    s.on_ack(&ack(10), SimTime(1010 * MS), &mut out);
    assert_eq!((s.snd_una(), s.state), (10, CaState::Open));
    for _ in 0..3 {
        s.on_ack(&ack(10), SimTime(1020 * MS), &mut out);
    }
    s.stats.fast_retransmits
}

#[test]
fn ns2_waits_one_packet_past_the_recovery_point_before_a_new_fast_retransmit() {
    assert_eq!(dupacks_at_the_recovery_point(StackProfile::CCLAB), 1, "una >= recover (RFC 6582)");
    assert_eq!(dupacks_at_the_recovery_point(NS2), 0, "ns-2: highest_ack_ > recover_");
}

/// Ten segments at t = 0 without timestamps; the ACKs of segments 0 and 1 at 10 and 11 ms.
fn samples_of_two_acks(stack: StackProfile) -> u64 {
    let cfg = TcpConfig { init_cwnd: 10.0, timestamps: false, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 10);
    s.on_ack(&ack(1), SimTime(10 * MS), &mut out);
    s.on_ack(&ack(2), SimTime(11 * MS), &mut out);
    s.rtt.samples
}

#[test]
fn ns2_times_one_segment_per_round_trip_where_cclab_samples_every_ack() {
    assert_eq!(samples_of_two_acks(StackProfile::CCLAB), 2);
    assert_eq!(samples_of_two_acks(NS2), 1, "segment 1 left while segment 0 was timed");
}

thread_local! {
    /// The RTT samples the congestion control was given, in order.
    static CC_RTTS: std::cell::RefCell<Vec<Option<SimTime>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A congestion control that keeps a fixed window and records the samples it is given.
struct Recorder;

impl cc::CongestionControl for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn ssthresh(&mut self, v: &cc::SenderView) -> f64 {
        v.cwnd
    }
    fn cong_avoid(&mut self, v: &cc::SenderView, _acked: u32) -> f64 {
        v.cwnd
    }
    fn pkts_acked(&mut self, _v: &cc::SenderView, s: &cc::AckSample) {
        CC_RTTS.with(|r| r.borrow_mut().push(s.rtt));
    }
}

/// The samples the estimator took and those the congestion control got from two ACKs
/// (their echoed send time 0) at 10 and 11 ms, timestamps off.
fn cc_samples_of_two_acks(stack: StackProfile) -> (u64, Vec<Option<SimTime>>) {
    CC_RTTS.with(|r| r.borrow_mut().clear());
    let cfg = TcpConfig { init_cwnd: 10.0, timestamps: false, stack, ..TcpConfig::default() };
    let mut s = Sender::new(0, cfg, Box::new(Recorder), 10);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    s.on_ack(&ack(1), SimTime(10 * MS), &mut out);
    s.on_ack(&ack(2), SimTime(11 * MS), &mut out);
    (s.rtt.samples, CC_RTTS.with(|r| r.borrow().clone()))
}

#[test]
fn under_ns2_the_congestion_control_reads_the_echoed_send_time_on_every_ack() {
    let both = vec![Some(SimTime(10 * MS)), Some(SimTime(11 * MS))];
    // ns-2: the RTO estimator times one segment; the algorithm sees every ACK's echo.
    assert_eq!(cc_samples_of_two_acks(NS2), (1, both.clone()));
    assert_eq!(cc_samples_of_two_acks(StackProfile::CCLAB), (2, both));
}

/// The window after one ACK that covers 5 of 10 segments in slow start.
fn cwnd_after_a_stretch_ack(stack: StackProfile) -> f64 {
    let cfg = TcpConfig { init_cwnd: 10.0, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 100);
    s.on_ack(&ack(5), SimTime(10 * MS), &mut out);
    s.cwnd
}

#[test]
fn an_ack_counts_two_packets_in_cclab_one_in_ns2_and_all_in_linux() {
    assert_eq!(cwnd_after_a_stretch_ack(StackProfile::CCLAB), 12.0, "RFC 3465, L = 2");
    assert_eq!(cwnd_after_a_stretch_ack(NS2), 11.0, "ns-2 opencwnd(): +1 per new ACK");
    assert_eq!(cwnd_after_a_stretch_ack(StackProfile::LINUX), 15.0, "Linux tcp_slow_start(): every acked packet");
}

/// The retransmission deadline after a fast retransmit at 500 ms, segments sent at t = 0.
fn deadline_after_fast_retransmit(stack: StackProfile) -> SimTime {
    let cfg = TcpConfig { init_cwnd: 10.0, recovery: Recovery::NewReno, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 100);
    for _ in 0..3 {
        s.on_ack(&ack(0), SimTime(500 * MS), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    s.rto_deadline.unwrap()
}

#[test]
fn ns2_and_linux_restart_the_timer_at_the_fast_retransmit() {
    // cclab: armed when the first segment left at 0 with the initial RTO of 1 s.
    assert_eq!(deadline_after_fast_retransmit(StackProfile::CCLAB), SimTime(1000 * MS));
    // ns-2 and Linux: re-armed at 500 ms (with the 1 s RTO of TcpConfig::default; a scenario
    // gives ns-2 its 3 s).
    assert_eq!(deadline_after_fast_retransmit(NS2), SimTime(1500 * MS));
    assert_eq!(deadline_after_fast_retransmit(StackProfile::LINUX), SimTime(1500 * MS));
}

/// Segments sent after two duplicate ACKs, with a window of 10 full.
fn sent_on_two_dupacks(stack: StackProfile) -> usize {
    let cfg = TcpConfig { init_cwnd: 10.0, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 100);
    out.clear();
    s.on_ack(&ack(0), SimTime(10 * MS), &mut out);
    s.on_ack(&ack(0), SimTime(11 * MS), &mut out);
    assert_eq!(s.stats.fast_retransmits, 0);
    out.len()
}

#[test]
fn limited_transmit_sends_one_new_segment_per_early_duplicate_ack_in_ns2_and_linux() {
    assert_eq!(sent_on_two_dupacks(StackProfile::CCLAB), 0);
    assert_eq!(sent_on_two_dupacks(NS2), 2);
    assert_eq!(sent_on_two_dupacks(StackProfile::LINUX), 2);
}

#[test]
fn ns2_computes_the_timeout_in_ten_millisecond_ticks() {
    // One RTT sample of 104 ms at t = 104 ms, then the timer is re-armed.
    let deadline = |stack: StackProfile, rto: RtoConfig| {
        let cfg = TcpConfig { init_cwnd: 2.0, timestamps: false, stack, rto, ..TcpConfig::default() };
        let (mut s, mut out) = started(cfg, 100);
        s.on_ack(&ack(1), SimTime(104 * MS), &mut out);
        s.rto_deadline.unwrap()
    };
    // RFC 6298: 104 + 4 x 52 = 312 ms.
    assert_eq!(deadline(StackProfile::CCLAB, RtoConfig::default()), SimTime(416 * MS));
    // ns-2: 10 ticks, rtxcur = srtt + 4 rttvar in ticks = 10 + 4 x 5 = 30 ticks = 300 ms.
    let ns2 = RtoConfig { ns2_tick: Some(SimTime(10 * MS)), ..RtoConfig::default() };
    assert_eq!(deadline(NS2, ns2), SimTime(404 * MS));
}

#[test]
fn linux_puts_its_minimum_rto_on_the_variance_not_on_the_timeout() {
    // One RTT sample of 10 ms at t = 10 ms, timestamps on (the Linux default).
    let deadline = |stack: StackProfile, rto: RtoConfig| {
        let cfg = TcpConfig { init_cwnd: 2.0, stack, rto, ..TcpConfig::default() };
        let (mut s, mut out) = started(cfg, 100);
        s.on_ack(&ack(1), SimTime(10 * MS), &mut out);
        s.rto_deadline.unwrap()
    };
    // RFC 6298: 10 + 4 x 5 = 30 ms, raised to the 200 ms floor.
    assert_eq!(deadline(StackProfile::CCLAB, RtoConfig::default()), SimTime(210 * MS));
    // Linux: 10 ms + max(2 x 10 ms, rto_min 200 ms).
    let linux = RtoConfig { linux: true, ..RtoConfig::default() };
    assert_eq!(deadline(StackProfile::LINUX, linux), SimTime(220 * MS));
}

#[test]
fn ns2_opens_with_a_header_only_syn_and_its_ack_sets_the_initial_window() {
    let cfg = TcpConfig { init_cwnd: 2.0, timestamps: false, stack: StackProfile::NS2, ..TcpConfig::default() };
    let mut s = Sender::new(0, cfg, cc::build("newreno", &cc::Params::new()).unwrap(), 100);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 1, "only the SYN before its ACK");
    assert_eq!((out[0].seq, out[0].size), (0, cfg.ack_size));
    assert_ne!(out[0].flags & cclab_sim::packet::SYN, 0);
    out.clear();
    s.on_ack(&ack(1), SimTime(60 * MS), &mut out);
    // The ACK sets the window to init_cwnd (not 1 + 1 from slow start) and samples the RTT.
    assert_eq!(out.iter().map(|p| (p.seq, p.size)).collect::<Vec<_>>(), [(1, cfg.mss), (2, cfg.mss)]);
    assert_eq!((s.rtt.samples, s.rtt.latest), (1, SimTime(60 * MS)));
    // Without the SYN (the other profiles), the initial window leaves at once, all data.
    let cfg = TcpConfig { stack: StackProfile::CCLAB, ..cfg };
    let mut s = Sender::new(0, cfg, cc::build("newreno", &cc::Params::new()).unwrap(), 100);
    out.clear();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.iter().map(|p| (p.seq, p.size)).collect::<Vec<_>>(), [(0, cfg.mss), (1, cfg.mss)]);
}

#[test]
fn a_receiver_with_delayed_acks_acknowledges_the_syn_at_once() {
    use cclab_sim::tcp::{Receiver, ReceiverConfig};
    let rcfg = ReceiverConfig {
        ack_size: 40,
        sack: false,
        delayed_ack: true,
        delack_timeout: SimTime(100 * MS),
        quickacks: 0,
        autotune_mss: None,
        ecn_feedback: cclab_sim::tcp::EcnFeedback::Rfc3168,
    };
    for (flags, acked_at_once) in [(cclab_sim::packet::SYN, true), (0, false)] {
        let mut r = Receiver::new(0, rcfg);
        let first = Packet { kind: Kind::Data, flags, ..ack(0) };
        assert_eq!(r.on_data(&first, SimTime::ZERO).is_some(), acked_at_once, "flags {flags}");
    }
}

/// Twenty segments in flight, segment 0 lost; duplicate ACKs SACK 1, 2, ... in turn. Returns,
/// after each duplicate ACK from the third (the one that starts recovery), how many segments
/// the sender has sent since recovery began, and the window once segment 0's repair is
/// acknowledged. (The first two may each let one new segment out: limited transmit.)
fn sack_recovery(stack: StackProfile) -> (Vec<usize>, f64) {
    let cfg = TcpConfig { init_cwnd: 20.0, recovery: Recovery::Sack, stack, ..TcpConfig::default() };
    let (mut s, mut out) = started(cfg, 1000);
    assert_eq!(out.len(), 20);
    out.clear();
    let mut sent = Vec::new();
    for k in 1..=13u32 {
        let mut a = ack(0);
        a.sack[0] = SackBlock { start: 1, end: 1 + k };
        a.n_sack = 1;
        if k == 3 {
            out.clear();
        }
        s.on_ack(&a, SimTime(100 * MS), &mut out);
        if k >= 3 {
            sent.push(out.len());
        }
    }
    assert_eq!(s.state, CaState::Recovery, "{}", stack.name);
    assert_eq!(out[0].seq, 0, "{}: the repair goes first", stack.name);
    s.on_ack(&ack(20), SimTime(200 * MS), &mut out);
    (sent, s.cwnd)
}

#[test]
fn linux_spreads_the_reduction_over_the_round_trip_with_prr() {
    // cwnd 20 -> ssthresh 10: PRR sends ceil(10 k / 20) after k packets delivered in
    // recovery (RFC 6937 section 3), the repair among them.
    // RFC 6675's loss detection, so that recovery starts at the third duplicate ACK as counted
    // here: the profile's RACK starts it at the first (no RTT sample yet, hence no reordering
    // window; tests/rack_tlp.rs).
    let linux = StackProfile { loss_detection: LossDetection::Dupthresh, ..StackProfile::LINUX };
    let (sent, cwnd) = sack_recovery(linux);
    let expected: Vec<usize> = (1..=11).map(|k: usize| (10 * k).div_ceil(20)).collect();
    assert_eq!(sent, expected);
    assert_eq!(cwnd, 10.0, "the window is ssthresh when recovery ends");
    // RFC 6675 (cclab): the window drops to 10 at once; with 16 in flight and the repair,
    // 17, nothing more leaves until pipe falls below 10, eight duplicate ACKs later.
    let (sent, _) = sack_recovery(StackProfile::CCLAB);
    assert_eq!(sent, [1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4]);
}

#[test]
fn linux_defaults_to_sack_recovery_and_the_others_do_not() {
    let recovery = |stack: &str, cc: &str| {
        let text = format!(
            "duration = \"1s\"\n[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"5ms\", buffer = \"20pkts\" }}\n[[flows]]\ncc = \"{cc}\"\nstack = \"{stack}\"\n"
        );
        let built = cclab_sim::Scenario::from_toml(&text).unwrap().build(1).unwrap();
        cclab_sim::describe::describe(&built.sim).flows[0].recovery
    };
    assert_eq!(recovery("linux", "reno"), "sack");
    assert_eq!(recovery("linux", "cubic"), "sack");
    assert_eq!(recovery("cclab", "reno"), "reno");
    assert_eq!(recovery("ns2", "newreno"), "newreno");
}

/// Every profile, whole: one flow through a dumbbell, with and without SACK, fills the link
/// and repairs its losses. (The profile tests above drive a sender by hand; this one catches
/// what only a whole simulation shows, such as a timer that never advances.)
#[test]
fn every_profile_fills_a_bottleneck_and_repairs_its_losses() {
    for stack in ["cclab", "ns2", "linux"] {
        for recovery in ["newreno", "sack"] {
            let flows = format!(
                "[[flows]]\ncc = \"newreno\"\nrtt = \"60ms\"\nstack = \"{stack}\"\nrecovery = \"{recovery}\"\n"
            );
            let out = common::run_toml(&common::dumbbell("10Mbps", "20ms", "0.5bdp", "20s", "5s", &flows), 1);
            let u = out.summary_value("bottleneck_utilization").unwrap();
            let drops = out.summary_value("bottleneck_drops").unwrap();
            assert!(u > 0.85, "{stack}/{recovery}: utilization {u:.3}");
            assert!(drops > 0.0, "{stack}/{recovery}: a half-BDP buffer must overflow ({drops} drops)");
        }
    }
}

/// ns-2's delayed send (`overhead_`, tcp/delayed_send.rs) on a NewReno sender with an initial
/// window of 10: what leaves at each step, by segment number.
fn delayed_sends() -> Vec<(&'static str, Vec<u64>, bool)> {
    let cfg = TcpConfig {
        init_cwnd: 10.0,
        timestamps: false,
        recovery: Recovery::NewReno,
        stack: NS2,
        ..TcpConfig::default()
    };
    let mut s = Sender::new(0, cfg, cc::build("reno", &cc::Params::new()).unwrap(), 100);
    s.delsnd.overhead = SimTime(MS);
    let mut out = Vec::new();
    // Each step: what left, and whether a delay was asked for. The simulation would draw
    // it; here the script arms each one at a time of its choosing (`arm`).
    let mut steps = Vec::new();
    let mut step = |name: &'static str, s: &mut Sender, out: &mut Vec<Packet>| {
        steps.push((name, out.drain(..).map(|p| p.seq).collect::<Vec<_>>(), s.delsnd.requested));
    };
    let at = |ms: u64, frac: u64| SimTime(ms * MS + frac);
    s.start(SimTime::ZERO, &mut out);
    step("start", &mut s, &mut out);
    s.delsnd.arm(at(0, MS / 2));
    s.on_pace_timer(at(0, MS / 2), &mut out);
    step("first delay ends", &mut s, &mut out);
    s.on_ack(&ack(1), at(10, 0), &mut out);
    step("new ACK", &mut s, &mut out);
    s.delsnd.arm(at(10, MS / 2));
    s.on_ack(&ack(2), at(10, MS / 5), &mut out);
    step("new ACK, delay pending", &mut s, &mut out);
    s.on_pace_timer(at(10, MS / 2), &mut out);
    step("delay ends", &mut s, &mut out);
    s.on_ack(&ack(3), at(11, 0), &mut out);
    step("new ACK before the losses", &mut s, &mut out);
    s.delsnd.arm(at(13, 0));
    for k in 0..3 {
        s.on_ack(&ack(3), at(11, (k + 1) * MS / 5), &mut out);
        step(["1st duplicate ACK", "2nd duplicate ACK", "3rd duplicate ACK"][k as usize], &mut s, &mut out);
    }
    s.on_pace_timer(at(13, 0), &mut out);
    step("delay ends after the fast retransmit", &mut s, &mut out);
    s.on_ack(&ack(6), at(40, 0), &mut out);
    step("partial ACK", &mut s, &mut out);
    steps
}

/// What left at the step named, and whether it asked for a delay.
fn at_step(steps: &[(&'static str, Vec<u64>, bool)], name: &str) -> (Vec<u64>, bool) {
    steps.iter().find(|(n, ..)| *n == name).map(|(_, v, asked)| (v.clone(), *asked)).unwrap()
}

#[test]
fn ns2_delayed_send_waits_for_its_delay_and_sends_what_the_window_allows_when_it_ends() {
    let steps = delayed_sends();
    let got = |name: &str| at_step(&steps, name);
    assert_eq!(got("start"), (vec![], true), "{steps:?}");
    assert_eq!(got("first delay ends").0, (0..10).collect::<Vec<_>>(), "{steps:?}");
    // Slow start: an ACK lets two segments out; they wait, and so do the next ACK's two,
    // which ask for no second delay; when it ends, the four leave together.
    assert_eq!(got("new ACK"), (vec![], true), "{steps:?}");
    assert_eq!(got("new ACK, delay pending"), (vec![], false), "{steps:?}");
    assert_eq!(got("delay ends").0, vec![10, 11, 12, 13], "{steps:?}");
}

#[test]
fn ns2_sends_limited_transmit_and_recovery_retransmissions_past_a_delayed_send() {
    let steps = delayed_sends();
    let got = |name: &str| at_step(&steps, name).0;
    // A delay is pending from the last new ACK (its two segments wait); ns-2's `send_one()`
    // and the fast retransmission do not wait for it.
    assert_eq!(got("new ACK before the losses"), Vec::<u64>::new(), "{steps:?}");
    assert_eq!(got("1st duplicate ACK"), vec![14], "{steps:?}");
    assert_eq!(got("2nd duplicate ACK"), vec![15], "{steps:?}");
    assert_eq!(got("3rd duplicate ACK"), vec![3], "{steps:?}");
    // The delay ends after the window was halved: it looks at the window again, which has no
    // room for the two segments the new ACK had let out (cclab committed them at the ACK).
    assert_eq!(got("delay ends after the fast retransmit"), Vec::<u64>::new(), "{steps:?}");
    assert_eq!(got("partial ACK").first(), Some(&6), "{steps:?}");
}

/// Each flow's ns-2 clock offset (`boot_time_`) under `seed`, in picoseconds.
fn boot_times(stack: &str, seed: u64) -> Vec<u64> {
    let text = format!(
        "duration = \"1s\"\n[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", buffer = \"20pkts\" }}\n\
         [[flows]]\ncc = \"newreno\"\ncount = 3\nrtt = \"40ms\"\nstack = \"{stack}\"\n"
    );
    let b = cclab_sim::Scenario::from_toml(&text).unwrap().build(seed).unwrap();
    b.sim.flows.iter().map(|f| f.sender.cfg.rto.ns2_boot.0).collect()
}

#[test]
fn each_ns2_agent_draws_its_own_clock_offset_within_a_tick_and_the_seed_decides_it() {
    let (a, b) = (boot_times("ns2", 1), boot_times("ns2", 2));
    assert!(a.iter().chain(&b).all(|&t| t < 10 * MS), "{a:?} {b:?}");
    assert!(a[0] != a[1] && a[1] != a[2], "flows started together do not share a clock: {a:?}");
    assert_ne!(a, b, "another seed, other offsets");
    assert_eq!(a, boot_times("ns2", 1), "same seed, same offsets");
    assert_eq!(boot_times("cclab", 1), vec![0, 0, 0], "no ns-2 clock outside the ns2 profile");
}

/// A fixed window of 4: segments 0-3 leave at 0 ms; the ACK of segment 0 at 10 ms lets 4 out at
/// 10 ms. A stretch ACK at 30 ms then covers 1-3 (sent at 0) and 4 (sent at 10), echoing the
/// oldest timestamp, 0, and lets 5-8 out at 30 ms; with `sack_6`, a duplicate ACK at 40 ms SACKs
/// segment 6 (sent at 30 ms) above the hole at 5, echoing 10 ms. Returns the estimator's latest
/// sample and the samples the algorithm got.
fn ca_samples(stack: StackProfile, sack_6: bool) -> (SimTime, Vec<Option<SimTime>>) {
    CC_RTTS.with(|r| r.borrow_mut().clear());
    let recovery = if sack_6 { Recovery::Sack } else { Recovery::NewReno };
    let cfg = TcpConfig {
        init_cwnd: 4.0,
        timestamps: true,
        recovery,
        stack: StackProfile { loss_detection: LossDetection::Dupthresh, ..stack },
        ..TcpConfig::default()
    };
    let mut s = Sender::new(0, cfg, Box::new(Recorder), 20);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    s.on_ack(&ack(1), SimTime(10 * MS), &mut out);
    assert_eq!(out.iter().filter(|p| p.kind == Kind::Data).count(), 5, "segments 0-4 sent");
    s.on_ack(&ack(5), SimTime(30 * MS), &mut out);
    if sack_6 {
        let mut p = common::sack(5, &[(6, 7)]);
        p.ts_ecr = SimTime(10 * MS);
        s.on_ack(&p, SimTime(40 * MS), &mut out);
    }
    (s.rtt.latest, CC_RTTS.with(|r| r.borrow().clone()))
}

#[test]
fn linux_gives_the_algorithm_the_rtt_of_the_newest_delivered_segment_cclab_the_echoed_one() {
    let echo = |ms: u64| Some(SimTime(ms * MS));
    // The stretch ACK at 30 ms: the estimator takes the echo (30 ms) under both; Linux's
    // ca_rtt is segment 4's, sent at 10 ms (20 ms).
    let (latest, got) = ca_samples(StackProfile::LINUX, false);
    assert_eq!((latest, got), (SimTime(30 * MS), vec![echo(10), echo(20)]));
    let (latest, got) = ca_samples(StackProfile::CCLAB, false);
    assert_eq!((latest, got), (SimTime(30 * MS), vec![echo(10), echo(30)]));
    // The duplicate ACK that SACKs segment 6 (sent at 30 ms) at 40 ms: Linux's last_sackt gives
    // 10 ms, not the echo's 30 ms, and the estimator takes nothing from an ACK that does not
    // advance snd_una.
    let (latest, got) = ca_samples(StackProfile::LINUX, true);
    assert_eq!((latest, got), (SimTime(30 * MS), vec![echo(10), echo(20), echo(10)]));
}
