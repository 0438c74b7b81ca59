//! Unit tests of TCP-GT: the equations on hand-computed inputs, Algorithm 1, the options.

use super::*;

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn view(now_ms: u64, cwnd: f64) -> SenderView {
    SenderView {
        now: ms(now_ms),
        srtt: ms(80),
        rtt_min: ms(80),
        mss: 1000,
        ..crate::cc::testing::view(cwnd, f64::INFINITY)
    }
}

fn ack(epoch: u32, rcv_ms: u64, rtt_ms: u64) -> AckSample {
    let mut h = CcHeader::default();
    h.0[H_EPOCH] = epoch;
    AckSample { acked: 1, rtt: Some(ms(rtt_ms)), rcv_tsval: ms(rcv_ms), cc_echo: h, ece: false }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn phi_is_goodput_over_tr_minus_throughput_over_rtt_min() {
    // 100 packets of 1000 B received in 100 ms, rtt_min 80 ms.
    let g = goodput(100_000.0, 0.100);
    let t = throughput(100_000.0, 0.080);
    assert!(close(g, 1.0e6) && close(t, 1.25e6));
    assert!(close(phi(g, t), -0.25e6));
}

#[test]
fn per_packet_increase_follows_eq_15() {
    // f = 80/50 = 1.6, s = 3, mtu 1000 B, G = 1e6 B/s, cwnd 100:
    // p = 2.56 · 9 · 1000 / (1e6 · 0.05 · 100) = 23040 / 5e6 = 0.004608.
    let f = compensation(0.080, 0.050);
    assert!(close(f, 1.6));
    assert!(close(per_packet_increase(f, 3.0, 1000.0, 1.0e6, 0.050, 100.0), 0.004608));
}

#[test]
fn per_packet_decrease_over_one_window_removes_phi_times_rtt_packets() {
    // f = 1.6, φ = −0.25e6 B/s, cwnd 100: n = 1.6 · (−0.25e6) · 0.05 / (100 · 1000) = −0.2,
    // and 100 ACKs take away 20 packets = φ · rtt / mtu = −0.25e6 · 0.08 / 1000 (eq. 6).
    let n = per_packet_decrease(1.6, -0.25e6, 0.050, 100.0, 1000.0);
    assert!(close(n, -0.2), "{n}");
    assert!(close(100.0 * n, -0.25e6 * 0.080 / 1000.0));
}

#[test]
fn the_increase_threshold_is_five_percent_of_throughput_divided_by_f() {
    // T = 1.25e6 B/s, f = 1.6: threshold −0.05 · 1.25e6 / 1.6 = −39062.5 B/s.
    assert!(increasing(-39_062.5, -0.05, 1.25e6, 1.6));
    assert!(!increasing(-39_063.0, -0.05, 1.25e6, 1.6));
    assert!(increasing(1.0, -0.05, 1.25e6, 1.6));
}

#[test]
fn algorithm_1_grows_s_by_f_while_increasing_and_resets_it_on_a_decrease() {
    let cfg = TcpGtConfig::default();
    // φ = 0 at rtt 80 ms: s = 2 + 1.6 = 3.6, p = 2.56 · 12.96 · 1000 / (1e6 · 0.05 · 80).
    let flat = EpochMeasure { n_bytes: 80_000.0, tr: 0.080, ts: 0.080, rtt: 0.080, rtt_min: 0.080 };
    let d = algorithm_1(&cfg, &flat, 2.0, 80.0, 1000.0);
    assert!(close(d.g, 1.0e6) && close(d.phi, 0.0) && close(d.s, 3.6));
    assert!(close(d.delta, 2.56 * 3.6 * 3.6 * 1000.0 / (1.0e6 * 0.05 * 80.0)), "{}", d.delta);
    // The receiver took 100 ms for 100 packets sent in an 80 ms RTT: φ = −0.25e6 < −39062.5.
    let queued = EpochMeasure { n_bytes: 100_000.0, tr: 0.100, ts: 0.100, rtt: 0.080, rtt_min: 0.080 };
    let d = algorithm_1(&cfg, &queued, 7.0, 100.0, 1000.0);
    assert!(close(d.s, 1.0) && close(d.delta, -0.2), "{d:?}");
}

#[test]
fn data_segments_carry_the_epoch_and_an_echo_of_it_starts_the_next() {
    let mut c = TcpGt::new(TcpGtConfig::default());
    assert_eq!(c.on_send(&view(0, 2.0), 0).0[H_EPOCH], 1);
    c.pkts_acked(&view(80, 2.0), &ack(1, 40, 80));
    assert_eq!(c.epoch(), 2);
    assert_eq!(c.on_send(&view(80, 2.0), 2).0[H_EPOCH], 2);
    // Further echoes of epoch 1 do not end epoch 2.
    c.pkts_acked(&view(81, 2.0), &ack(1, 41, 80));
    assert_eq!(c.epoch(), 2);
    // No measurement yet: the first epoch end only marks the clocks.
    assert_eq!(c.delta(), 0.0);
    assert!(c.last.is_none());
}

#[test]
fn an_epoch_measures_the_packets_acknowledged_between_two_echo_ends_over_the_receiver_clock() {
    let mut c = TcpGt::new(TcpGtConfig::default());
    // Epoch 1 ends at 80 ms (receiver clock 40 ms); 10 packets of epoch 1 follow.
    c.pkts_acked(&view(80, 10.0), &ack(1, 40, 80));
    for i in 1..10 {
        c.pkts_acked(&view(80 + i, 10.0), &ack(1, 40 + i, 80));
    }
    // Epoch 2 ends at 160 ms, receiver clock 140 ms: 10 000 B in TR = 100 ms, TS = 80 ms.
    c.pkts_acked(&view(160, 10.0), &ack(2, 140, 80));
    let d = c.last.expect("a decision");
    assert!(close(d.g, 1.0e5), "{d:?}"); // 10 000 B / 0.1 s
    assert!(close(d.t, 1.25e5), "{d:?}"); // 10 000 B / 0.08 s
    assert!(close(d.phi, -0.25e5));
    // −25 000 < −0.05 · 125 000 / 1.6: decrease by n = 1.6 · (−25 000) · 0.05 / (10 · 1000) = −0.2.
    assert!(close(c.delta(), -0.2));
    assert_eq!(c.epoch(), 3);
    // The next ACK's window change is n per acknowledged packet.
    assert!(close(c.cong_avoid(&view(161, 10.0), 2), 9.6));
}

#[test]
fn rtt_min_is_the_smallest_rtt_of_the_last_ten_epochs() {
    let mut c = TcpGt::new(TcpGtConfig::default());
    // Round k (k = 1..=12) ends epoch k and then sees RTT samples of 100 + k ms, except
    // round 1 at 60 ms; those samples belong to epoch k + 1, which round k + 1 ends.
    let mut now = 0;
    for k in 1..=12u32 {
        let rtt = if k == 1 { 60 } else { 100 + k as u64 };
        now += 100;
        c.pkts_acked(&view(now, 10.0), &ack(k, now, rtt));
        c.pkts_acked(&view(now + 1, 10.0), &ack(k - 1, now + 1, rtt));
        if k == 11 {
            // Epochs 2..=11 (samples of rounds 1..=10) have ended: 60 ms is in.
            assert!(close(c.rtt_min(), 0.060), "{}", c.rtt_min());
        }
    }
    // After round 12 the last ten epochs hold rounds 2..=11: the smallest is 102 ms.
    assert!(close(c.rtt_min(), 0.102), "{}", c.rtt_min());
}

#[test]
fn a_loss_halves_the_window_and_resets_the_splitting_variable() {
    let mut c = TcpGt::new(TcpGtConfig::default());
    c.s = 9.0;
    c.delta = 0.5;
    assert_eq!(c.ssthresh(&view(0, 100.0)), 50.0);
    assert_eq!((c.s(), c.delta()), (1.0, 0.0));
    assert_eq!(c.ssthresh(&view(0, 3.0)), MIN_CWND);
}

#[test]
fn after_a_timeout_slow_start_reaches_ssthresh_and_algorithm_1_starts_afresh() {
    let mut c = TcpGt::new(TcpGtConfig::default());
    let mut v = view(0, 100.0);
    v.ssthresh = 50.0;
    c.cwnd_event(&v, CwndEvent::Timeout);
    // A decision taken during the restart (as an epoch end would set it) is not applied.
    (c.s, c.delta, c.start) = (5.0, -0.3, Some(EpochStart { sender: ms(0), receiver: ms(0) }));
    assert_eq!(c.cong_avoid(&view(0, 10.0), 1), 11.0);
    assert_eq!(c.cong_avoid(&view(0, 50.0), 1), 50.0);
    assert_eq!((c.s(), c.delta()), (1.0, 0.0));
    assert!(c.start.is_none());
    // From then on the per-packet change applies again.
    c.delta = 0.25;
    assert_eq!(c.cong_avoid(&view(0, 50.0), 2), 50.5);
}

#[test]
fn defaults_are_the_papers_and_bad_parameters_are_rejected() {
    assert_eq!(
        TcpGtConfig::default(),
        TcpGtConfig { rtt_base: 0.050, t: -0.05, rtt_min_epochs: 10, slow_start: false, p_max: 0.0 }
    );
    let mut p = Params::new();
    p.insert("t".into(), 0.1);
    assert_eq!(build(&p).err().unwrap().param, "t");
    let mut p = Params::new();
    p.insert("rtt_min_epochs".into(), 2.5);
    assert_eq!(build(&p).err().unwrap().param, "rtt_min_epochs");
    assert_eq!(crate::cc::build("tcp-gt", &Params::new()).unwrap().name(), "tcp-gt");
    for (name, bad) in [("slow_start", 2.0), ("slow_start", 0.5), ("p_max", -1.0), ("p_max", 2e6)] {
        let mut p = Params::new();
        p.insert(name.into(), bad);
        let e = build(&p).err().unwrap();
        assert_eq!((e.param.as_str(), e.value.as_str()), (name, bad.to_string().as_str()));
    }
    let mut p = Params::new();
    p.insert("slow_start".into(), 1.0);
    p.insert("p_max".into(), 1.0);
    assert!(build(&p).is_ok());
}

#[test]
fn p_max_caps_the_increase_of_eq_15_and_zero_leaves_it_alone() {
    // φ = 0 at rtt 320 ms (f = 6.4), s = 1 → 7.4, G = 2 packets per 320 ms, cwnd 2:
    // p = 6.4² · 7.4² · 1000 / (6250 · 0.05 · 2) ≈ 3590 packets per acknowledged packet.
    let m = EpochMeasure { n_bytes: 2000.0, tr: 0.320, ts: 0.320, rtt: 0.320, rtt_min: 0.320 };
    let raw = algorithm_1(&TcpGtConfig::default(), &m, 1.0, 2.0, 1000.0);
    assert!(close(raw.delta, 6.4 * 6.4 * 7.4 * 7.4 * 1000.0 / (6250.0 * 0.05 * 2.0)), "{}", raw.delta);
    let cfg = TcpGtConfig { p_max: 1.0, ..TcpGtConfig::default() };
    let capped = algorithm_1(&cfg, &m, 1.0, 2.0, 1000.0);
    assert_eq!(capped.delta, 1.0);
    assert!(close(capped.s, 7.4));
    // Below the cap, and on a decrease, the cap changes nothing.
    let cfg = TcpGtConfig { p_max: 1e4, ..TcpGtConfig::default() };
    assert_eq!(algorithm_1(&cfg, &m, 1.0, 2.0, 1000.0), raw);
    let queued = EpochMeasure { n_bytes: 100_000.0, tr: 0.100, ts: 0.100, rtt: 0.080, rtt_min: 0.080 };
    let cfg = TcpGtConfig { p_max: 0.001, ..TcpGtConfig::default() };
    assert!(close(algorithm_1(&cfg, &queued, 7.0, 100.0, 1000.0).delta, -0.2));
}

#[test]
fn slow_start_doubles_until_the_first_decrease_decision_then_algorithm_1_runs() {
    let cfg = TcpGtConfig { slow_start: true, ..TcpGtConfig::default() };
    let mut c = TcpGt::new(cfg);
    assert!(c.in_slow_start());
    assert_eq!(c.cong_avoid(&view(0, 2.0), 2), 4.0);
    // Epoch 1 ends at 80 ms; epoch 2 (10 packets, TR = TS = 80 ms, no queue) ends at 160 ms:
    // an increase decision, not applied.
    c.pkts_acked(&view(80, 10.0), &ack(1, 40, 80));
    for i in 1..10 {
        c.pkts_acked(&view(80 + i, 10.0), &ack(1, 40 + i, 80));
    }
    c.pkts_acked(&view(160, 10.0), &ack(2, 120, 80));
    assert!(c.last.expect("a decision").delta > 0.0);
    assert!(c.in_slow_start());
    assert_eq!((c.s(), c.delta()), (1.0, 0.0));
    assert_eq!(c.cong_avoid(&view(161, 10.0), 1), 11.0);
    // Epoch 3: 10 packets over TR = 100 ms with rtt_min 80 ms: decrease, slow start ends.
    for i in 1..10 {
        c.pkts_acked(&view(160 + i, 10.0), &ack(2, 120 + i, 80));
    }
    c.pkts_acked(&view(240, 10.0), &ack(3, 220, 80));
    assert!(!c.in_slow_start());
    assert!(close(c.delta(), -0.2), "{}", c.delta());
    assert!(close(c.cong_avoid(&view(241, 10.0), 2), 9.6));
    // A loss also ends it.
    let mut c = TcpGt::new(cfg);
    c.ssthresh(&view(0, 100.0));
    assert!(!c.in_slow_start());
    assert_eq!(c.cong_avoid(&view(0, 50.0), 2), 50.0);
}
