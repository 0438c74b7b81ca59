//! Unit tests of ns-2's Vegas: the estimate, the rounds, the cuts.

use super::*;

/// A sender driving `VegasNs2` with a clean ACK clock: every segment is acknowledged
/// `rtt` after it left, one ACK per segment, and new segments leave as the window allows.
struct Clock {
    k: VegasNs2,
    cwnd: f64,
    ssthresh: f64,
    next: u64,
    una: u64,
    now: SimTime,
}

impl Clock {
    fn new(cwnd: f64) -> Self {
        Clock { k: VegasNs2::new(NS2_DEFAULTS), cwnd, ssthresh: f64::INFINITY, next: 0, una: 0, now: SimTime::ZERO }
    }

    fn view(&self) -> SenderView {
        SenderView {
            now: self.now,
            flight_size: self.next - self.una,
            ..crate::cc::testing::view(self.cwnd, self.ssthresh)
        }
    }

    fn fill(&mut self) {
        while ((self.next - self.una) as f64) < self.cwnd.floor() {
            let v = self.view();
            self.k.on_send(&v, self.next);
            self.next += 1;
        }
    }

    /// One round trip of `rtt_ms`: the segments out at its start are acknowledged.
    fn round(&mut self, rtt_ms: u64) -> f64 {
        self.fill();
        let end = self.next;
        self.now += SimTime::from_millis(rtt_ms);
        while self.una < end {
            self.una += 1;
            let v = self.view();
            self.k.pkts_acked(
                &v,
                &AckSample { acked: 1, rtt: None, rcv_tsval: SimTime::ZERO, cc_echo: CcHeader::default(), ece: false },
            );
            self.cwnd = self.k.cong_avoid(&self.view(), 1);
            self.fill();
        }
        self.cwnd
    }
}

#[test]
fn the_queue_estimate_is_rounded_to_a_whole_packet_towards_zero() {
    // expected 10 / 0.1 = 100/s, actual 8 / 0.125 = 64/s: 36/s x 0.1 s = 3.6 -> int(4.1) = 4.
    assert_eq!(delta(10.0, 8.0, 0.1, 0.125), 4);
    // actual above expected: -5 + 0.5 = -4.5 -> -4 (C's int() truncates).
    assert_eq!(delta(5.0, 10.0, 0.1, 0.1), -4);
}

#[test]
fn slow_start_grows_only_in_every_other_round() {
    // No queue: each round's RTT is the base RTT. A round ends at the first ACK past its
    // first segment, so the clock's round k carries the decision made at its first ACK:
    // off at the first, on at the second (+1 per ACK, doubling), off, on, ...
    let mut c = Clock::new(2.0);
    let w: Vec<f64> = (0..6).map(|_| c.round(100)).collect();
    assert_eq!(w, vec![2.0, 4.0, 4.0, 8.0, 8.0, 16.0]);
}

#[test]
fn a_queue_above_gamma_at_the_end_of_a_growing_round_ends_slow_start_with_an_eighth_off() {
    let mut c = Clock::new(2.0);
    for _ in 0..5 {
        c.round(100);
    }
    // From now on every round trip takes 200 ms: the queue shows in the round decided
    // after the first slow round, and the next "on" decision leaves slow start.
    let mut before = c.cwnd;
    for _ in 0..4 {
        let w = c.round(200);
        if c.k.own_ssthresh == 2.0 {
            assert_eq!(w, before - before / 8.0, "an eighth off, and no growth after it");
            return;
        }
        before = w;
    }
    panic!("slow start never ended (window {})", c.cwnd);
}

#[test]
fn in_congestion_avoidance_no_queue_adds_a_packet_per_round_and_one_above_beta_takes_one_off() {
    let mut c = Clock::new(20.0);
    c.ssthresh = 10.0;
    let w1 = c.round(100);
    let w2 = c.round(100);
    // Outstanding (in flight + 1) equals the round's segments: delta = 0 < alpha, +1/cwnd per ACK.
    assert!((w2 - w1 - 1.0).abs() < 0.1, "{w1} -> {w2}");
    // RTT doubled: the first slow round is decided on fast samples, the second sees a queue
    // of about half the window (> beta = 3) and takes one packet off at once, then holds.
    let w3 = c.round(200);
    let w4 = c.round(200);
    assert!(w3 > w2, "{w2} -> {w3}");
    assert_eq!(w4, w3 - 1.0);
}

#[test]
fn a_fast_retransmit_keeps_three_quarters_of_the_window_once_per_window() {
    let mut c = Clock::new(20.0);
    c.round(100);
    c.now += SimTime::from_millis(50);
    let v = SenderView { cwnd: 20.0, ..c.view() };
    assert_eq!(c.k.ssthresh(&v), 15.0, "20 - 20/4");
    // A second loss among segments sent before that cut: no second cut.
    assert_eq!(c.k.ssthresh(&SenderView { cwnd: 18.0, ..c.view() }), 18.0);
    // A small window goes to 2.
    let mut small = Clock::new(3.0);
    small.round(100);
    assert_eq!(small.k.ssthresh(&small.view()), 2.0);
}

#[test]
fn a_timeout_halves_through_vegass_own_threshold() {
    let mut c = Clock::new(20.0);
    c.round(100);
    let v = c.view();
    c.k.ssthresh(&v);
    c.k.cwnd_event(&v, CwndEvent::Timeout);
    assert_eq!(c.k.own_ssthresh, 10.0);
}
