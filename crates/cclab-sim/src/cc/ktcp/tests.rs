//! Unit tests of Kyushu-TCP: the equations, the cycle of periods, the add-on's parameters.

use super::*;
use crate::units::SimTime;

fn view(cwnd: f64, ssthresh: f64, state: CaState) -> SenderView {
    SenderView {
        srtt: SimTime::from_millis(100),
        rtt_min: SimTime::from_millis(100),
        state,
        ..crate::cc::testing::view(cwnd, ssthresh)
    }
}

fn params(kv: &[(&str, f64)]) -> Params {
    kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn hs_ktcp(kv: &[(&str, f64)]) -> Ktcp {
    let p = params(kv);
    let (own, rest): (Params, Params) = p.into_iter().partition(|(k, _)| k.starts_with(PREFIX));
    let mut cfg = KtcpConfig { low_window: super::super::highspeed::LOW_WINDOW, ..Default::default() };
    if let Some(a) = own.get("ktcp_alpha") {
        cfg.alpha = *a;
    }
    if let Some(m) = own.get("ktcp_tc_max") {
        cfg.tc_max = *m as u32;
    }
    Ktcp::new(super::super::build("highspeed", &rest).unwrap(), cfg)
}

/// A fast retransmit as the sender runs it; returns the new ssthresh.
fn fast_retransmit(k: &mut Ktcp, cwnd: f64) -> f64 {
    let v = view(cwnd, 1e9, CaState::Open);
    let s = k.ssthresh(&v);
    k.set_state(&v, CaState::Recovery);
    let v = view(s, s, CaState::Recovery);
    k.set_state(&v, CaState::Open);
    k.cwnd_event(&v, CwndEvent::RecoveryEnd);
    s
}

#[test]
fn w2_is_alpha_times_w1_and_b_is_tc_squared_windows_of_w2() {
    assert!((target_window(0.9, 1000.0) - 900.0).abs() < 1e-9);
    assert!((target_window(0.8, 250.0) - 200.0).abs() < 1e-9);
    assert_eq!(hold_packets(1, 900.0), 900.0);
    assert_eq!(hold_packets(3, 900.0), 8100.0);
    assert_eq!(hold_packets(0, 900.0), 0.0);
}

#[test]
fn after_a_loss_highspeed_climbs_to_w2_holds_for_b_packets_then_climbs_again() {
    let mut k = hs_ktcp(&[]);
    // Loss at w1 = 1000: HighSpeed keeps (1 - 0.33) 1000 = 670; w2 = 900; T_c = 1.
    let s = fast_retransmit(&mut k, 1000.0);
    assert!((s - 670.0).abs() < 1e-9, "{s}");
    assert_eq!(k.tc(), 1);
    assert_eq!(k.phase(), Phase::Rising { w2: 900.0 });
    // Congestion avoidance up to 900, never beyond.
    let mut w = s;
    let mut acks = 0;
    while k.phase() != (Phase::Holding { level: 900.0, b: 900.0, sent: 0 }) {
        w = k.cong_avoid(&view(w, s, CaState::Open), 1);
        acks += 1;
        assert!(w <= 900.0, "{w}");
        assert!(acks < 100_000);
    }
    assert_eq!(w, 900.0);
    // Held at 900 while 900 packets are sent (B = 1^2 x 900), released by the 901st.
    for i in 0..900 {
        assert_eq!(k.cong_avoid(&view(w, s, CaState::Open), 1), 900.0);
        k.on_send(&view(w, s, CaState::Open), i);
    }
    assert!(matches!(k.phase(), Phase::Holding { sent: 900, .. }));
    k.on_send(&view(w, s, CaState::Open), 900);
    assert_eq!(k.phase(), Phase::Free);
    // HighSpeed again: a(900) = 8 packets per RTT, 8/900 per ACK.
    let w = k.cong_avoid(&view(900.0, s, CaState::Open), 1);
    assert!((w - (900.0 + 8.0 / 900.0)).abs() < 1e-9, "{w}");
}

#[test]
fn each_fast_retransmit_counts_and_lengthens_the_next_period() {
    let mut k = hs_ktcp(&[("ktcp_alpha", 0.8)]);
    fast_retransmit(&mut k, 1000.0);
    // A second loss while rising, at 850: w2 = 0.8 x 850 = 680, T_c = 2, B = 4 x 680.
    let s = fast_retransmit(&mut k, 850.0);
    assert_eq!(k.tc(), 2);
    assert!((s - 0.66 * 850.0).abs() < 1e-9);
    // ssthresh 561 (b(850) = 0.34) is below w2 = 680, so the first ACK only grows it.
    let w = k.cong_avoid(&view(s, s, CaState::Open), 1);
    assert!(w > s && w < 680.0);
    let w = k.cong_avoid(&view(679.999, s, CaState::Open), 1);
    assert_eq!(w, 680.0);
    assert_eq!(k.phase(), Phase::Holding { level: 680.0, b: 2720.0, sent: 0 });
    // A loss during the period ends it: new w2 = 0.8 x 680 = 544, T_c = 3.
    fast_retransmit(&mut k, 680.0);
    assert_eq!(k.tc(), 3);
    assert_eq!(k.phase(), Phase::Rising { w2: 0.8 * 680.0 });
}

#[test]
fn tc_max_stops_the_count_and_so_the_periods_growth() {
    // Unbounded (the default): five fast retransmits, T_c = 5.
    let mut k = hs_ktcp(&[]);
    for _ in 0..5 {
        fast_retransmit(&mut k, 1000.0);
    }
    assert_eq!(k.tc(), 5);
    // Bounded at 2: T_c stays 2, so every later period is B = 4 w2 (here 4 x 900).
    let mut k = hs_ktcp(&[("ktcp_tc_max", 2.0)]);
    for _ in 0..5 {
        fast_retransmit(&mut k, 1000.0);
    }
    assert_eq!(k.tc(), 2);
    let w = k.cong_avoid(&view(899.999, 670.0, CaState::Open), 1);
    assert_eq!(w, 900.0);
    assert_eq!(k.phase(), Phase::Holding { level: 900.0, b: 3600.0, sent: 0 });
    // A timeout still resets it, and the count starts again from 1.
    let v = view(900.0, 1e9, CaState::Open);
    k.ssthresh(&v);
    k.cwnd_event(&v, CwndEvent::Timeout);
    assert_eq!(k.tc(), 0);
    fast_retransmit(&mut k, 1000.0);
    assert_eq!(k.tc(), 1);
}

#[test]
fn a_timeout_resets_tc_and_leaves_the_wrapped_algorithm_alone() {
    let mut k = hs_ktcp(&[]);
    fast_retransmit(&mut k, 1000.0);
    fast_retransmit(&mut k, 800.0);
    assert_eq!(k.tc(), 2);
    // RTO as the sender runs it: ssthresh, the Timeout event, state Loss.
    let v = view(700.0, 1e9, CaState::Open);
    let s = k.ssthresh(&v);
    k.cwnd_event(&v, CwndEvent::Timeout);
    k.set_state(&v, CaState::Loss);
    assert_eq!(k.tc(), 0);
    assert_eq!(k.phase(), Phase::Free);
    // Slow start, then HighSpeed's growth right through 0.9 x 700.
    assert_eq!(k.cong_avoid(&view(10.0, s, CaState::Loss), 2), 12.0);
    let w = k.cong_avoid(&view(630.0, s, CaState::Open), 1);
    assert!(w > 630.0, "{w}");
}

#[test]
fn below_highspeeds_low_window_no_period_is_entered() {
    let mut k = hs_ktcp(&[]);
    // w1 = 40: w2 = 36 is not above W_low = 38, so Reno-mode HighSpeed runs free.
    fast_retransmit(&mut k, 40.0);
    assert_eq!(k.phase(), Phase::Free);
    // w1 = 50: w2 = 45 > 38, period armed.
    fast_retransmit(&mut k, 50.0);
    assert_eq!(k.phase(), Phase::Rising { w2: 45.0 });
}

#[test]
fn when_the_wrapped_decrease_keeps_more_than_w2_the_period_starts_at_that_window() {
    // HighSpeed at 80000 packets gives up b = 0.10: ssthresh 72000 = w2 with alpha 0.9;
    // with alpha 0.85, w2 = 68000 < 72000 and the window is held at 72000.
    let mut k = hs_ktcp(&[("ktcp_alpha", 0.85)]);
    let s = fast_retransmit(&mut k, 80000.0);
    assert!((s - 72000.0).abs() < 1e-6);
    assert_eq!(k.cong_avoid(&view(s, s, CaState::Open), 1), s);
    assert_eq!(k.phase(), Phase::Holding { level: s, b: 68000.0, sent: 0 });
}

/// A wrapped algorithm that keeps 80 % on a loss, adds one packet per ACK and
/// records the clock and the number of ACKs it is shown.
struct Recorder {
    seen: std::sync::Arc<std::sync::Mutex<(SimTime, u32)>>,
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        0.8 * v.cwnd
    }
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        let mut seen = self.seen.lock().unwrap();
        *seen = (v.now, seen.1 + 1);
        v.cwnd + acked as f64
    }
}

#[test]
fn the_wrapped_algorithms_clock_stops_during_the_period_and_it_sees_no_acks_then() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new((SimTime::ZERO, 0)));
    let get = || *seen.lock().unwrap();
    let mut k = Ktcp::new(Box::new(Recorder { seen: seen.clone() }), KtcpConfig::default());
    let at = |secs: f64, cwnd: f64| SenderView { now: SimTime::from_secs_f64(secs), ..view(cwnd, 80.0, CaState::Open) };
    // Loss at 100: the recorder keeps 80, w2 = 90, T_c = 1, B = 90 packets.
    assert_eq!(fast_retransmit(&mut k, 100.0), 80.0);
    // Ten ACKs at 1.0, 1.1, ... 1.9 s climb to 90 and start the period at 1.9 s.
    let mut w = 80.0;
    for i in 0..10 {
        w = k.cong_avoid(&at(1.0 + 0.1 * i as f64, w), 1);
    }
    assert_eq!(w, 90.0);
    assert_eq!(k.phase(), Phase::Holding { level: 90.0, b: 90.0, sent: 0 });
    assert_eq!(get().1, 10);
    // ACKs during the period keep 90 and do not reach the recorder.
    assert_eq!(k.cong_avoid(&at(3.0, 90.0), 1), 90.0);
    assert_eq!(get().1, 10);
    // 91 packets sent, the last at 4.4 s, end the period: 2.5 s held.
    for i in 0..91 {
        k.on_send(&at(4.4, 90.0), i);
    }
    assert_eq!(k.phase(), Phase::Free);
    // At 5.0 s the recorder's clock reads 5.0 - 2.5 = 2.5 s and it grows from 90.
    assert_eq!(k.cong_avoid(&at(5.0, 90.0), 1), 91.0);
    let (now, calls) = get();
    assert!((now.secs_f64() - 2.5).abs() < 1e-9, "{}", now.secs_f64());
    assert_eq!(calls, 11);
    // A loss inside a later period also ends it and adds its length: after a loss at
    // 5.5 s (w2 = 0.9 x 100 = 90 from 80) the period starts at 6.5 s, and a loss at
    // 7.0 s adds 0.5 s more, so at 8.0 s the recorder reads 8.0 - 2.5 - 0.5 = 5.0 s.
    k.ssthresh(&at(5.5, 100.0));
    let mut w = 80.0;
    for i in 0..10 {
        w = k.cong_avoid(&at(5.6 + 0.1 * i as f64, w), 1);
    }
    assert!(matches!(k.phase(), Phase::Holding { .. }));
    k.ssthresh(&at(7.0, 90.0));
    k.cong_avoid(&at(8.0, 72.0), 1);
    assert!((get().0.secs_f64() - 5.0).abs() < 1e-9, "{}", get().0.secs_f64());
}

#[test]
fn ktcp_suffix_builds_around_any_registered_algorithm_and_splits_parameters() {
    let p = params(&[("ktcp_alpha", 0.8), ("beta", 0.7)]);
    assert!(super::super::build("cubic+ktcp", &p).is_ok());
    assert!(super::super::build("reno+ktcp", &params(&[("a", 2.0)])).is_ok());
    assert!(super::super::build("ktcp", &Params::new()).is_ok());
    // A KTCP parameter out of range, an unknown one, and one the wrapped algorithm lacks.
    let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_alpha", 1.5)])).err().unwrap();
    assert_eq!(e.param, "ktcp_alpha");
    let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_beta", 0.5)])).err().unwrap();
    assert_eq!(e.param, "ktcp_beta");
    // T_c's bound is a whole number.
    assert!(super::super::build("highspeed+ktcp", &params(&[("ktcp_tc_max", 3.0)])).is_ok());
    let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_tc_max", 2.5)])).err().unwrap();
    assert_eq!((e.param.as_str(), e.value.as_str()), ("ktcp_tc_max", "2.5"));
    assert!(e.accepted.contains("whole number in [0, 1000000]"), "{}", e.accepted);
    let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_tc_max", -1.0)])).err().unwrap();
    assert_eq!(e.param, "ktcp_tc_max");
    let e = super::super::build("highspeed+ktcp", &params(&[("beta", 0.5)])).err().unwrap();
    assert_eq!(e.param, "beta");
    // An unknown wrapped name is reported with the suffix.
    let e = super::super::build("renoo+ktcp", &Params::new()).err().unwrap();
    assert_eq!((e.param.as_str(), e.value.as_str()), ("", "renoo+ktcp"));
}

/// A wrapped algorithm that sets its own window and pacing rate (as BBR would): it starts at
/// 10 packets paced at 1,000 bytes/s and adds one packet per ACK, pacing at 100 x cwnd.
struct Paced;

impl CongestionControl for Paced {
    fn name(&self) -> &'static str {
        "paced"
    }
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        0.8 * v.cwnd
    }
    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        v.cwnd
    }
    fn init(&mut self, _v: &SenderView) -> Option<CongControl> {
        Some(CongControl { cwnd: 10.0, pacing_rate: Some(Rate(1000)), mark_app_limited: false })
    }
    fn cong_control(&mut self, v: &SenderView, _rs: &RateSample) -> Option<CongControl> {
        Some(CongControl {
            cwnd: v.cwnd + 1.0,
            pacing_rate: Some(Rate(100 * (v.cwnd as u64 + 1))),
            mark_app_limited: false,
        })
    }
    fn uses_rate_samples(&self) -> bool {
        true
    }
}

#[test]
fn around_an_algorithm_that_sets_its_own_window_ktcp_forwards_its_hooks_and_restrains_that_window() {
    let mut k = Ktcp::new(Box::new(Paced), KtcpConfig::default());
    assert!(k.uses_rate_samples());
    assert_eq!(
        k.init(&view(2.0, 1e9, CaState::Open)),
        Some(CongControl { cwnd: 10.0, pacing_rate: Some(Rate(1000)), mark_app_limited: false })
    );
    // Loss at 100: ssthresh 80, w2 = 90; the window it sets climbs to 90 and is held there.
    assert_eq!(fast_retransmit(&mut k, 100.0), 80.0);
    let rs = RateSample::default();
    let mut w = 80.0;
    for _ in 0..10 {
        w = k.cong_control(&view(w, 80.0, CaState::Open), &rs).unwrap().cwnd;
    }
    assert_eq!(w, 90.0);
    let held = k.cong_control(&view(90.0, 80.0, CaState::Open), &rs).unwrap();
    assert_eq!(
        held,
        CongControl { cwnd: 90.0, pacing_rate: Some(Rate(9000)), mark_app_limited: false },
        "the last pacing rate, kept"
    );
    assert!(k.params().contains(&("ktcp_alpha", 0.9)));
}
