use super::*;
use crate::cc::testing::view;
use crate::cc::CcHeader;

fn rtt_sample(rtt: SimTime) -> AckSample {
    AckSample { acked: 1, rtt: Some(rtt), rcv_tsval: SimTime::ZERO, cc_echo: CcHeader::default(), ece: false }
}

fn at(ms: u64, cwnd: f64, ssthresh: f64) -> SenderView {
    SenderView { now: SimTime::from_millis(ms), ..view(cwnd, ssthresh) }
}

/// Congestion avoidance from `w` at time `from_ms` for `rounds` round trips of `rtt_ms`,
/// each acknowledging the window at its start one packet per ACK; the window at each
/// round's end.
fn rounds(c: &mut CubicLinux, mut w: f64, ssthresh: f64, from_ms: u64, rtt_ms: u64, rounds: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for r in 0..rounds as u64 {
        let n = w.floor() as u64;
        for i in 0..n {
            let now = SimTime::from_millis(from_ms + r * rtt_ms) + SimTime(rtt_ms * 1_000_000_000 * i / n);
            w = c.cong_avoid(&SenderView { now, ..view(w, ssthresh) }, 1);
        }
        out.push(w);
    }
    out
}

/// A flow that lost at `w_max` (RTT samples of `rtt_ms` taken first) and restarts from
/// ssthresh at time 0.
fn after_loss(cfg: CubicLinuxConfig, w_max: f64, rtt_ms: u64) -> (CubicLinux, f64) {
    let mut c = CubicLinux::new(cfg);
    c.pkts_acked(&at(0, 10.0, 5.0), &rtt_sample(SimTime::from_millis(rtt_ms)));
    let s = c.ssthresh(&view(w_max, 1e9));
    (c, s)
}

#[test]
fn a_loss_at_1000_keeps_717_1024_and_k_is_the_cube_root_of_750() {
    let (mut c, s) = after_loss(CubicLinuxConfig::default(), 1000.7, 100);
    assert_eq!((s, c.w_max()), (700.0, 1000));
    c.cong_avoid(&at(0, s, s), 1);
    // K = cbrt((1000 - 700) / 0.4004) s, rounded down to 1/1024 s: 9300/1024.
    assert_eq!(c.k_secs(), 9300.0 / 1024.0);
    assert!((c.k_secs() - (300.0f64 / 0.4004).cbrt()).abs() < 1e-3);
}

#[test]
fn the_window_follows_the_curve_at_t_plus_delay_min() {
    // RTT 100 ms: each round aims at the curve one delay_min ahead of its start, so at
    // its end the window is on the curve, W(t) = 0.4004 (t - K)^3 + 1000, within a
    // packet and a half.
    let (mut c, s) = after_loss(CubicLinuxConfig::default(), 1000.0, 100);
    let ws = rounds(&mut c, s, s, 0, 100, 140);
    let k = c.k_secs();
    for (i, w) in ws.iter().enumerate() {
        let t = (i + 1) as f64 * 0.1;
        let curve = 0.4004 * (t - k).powi(3) + 1000.0;
        assert!((w - curve).abs() < 1.5, "t = {t}: {w} against {curve}");
    }
}

#[test]
fn with_short_rtts_the_reno_estimate_leads_at_0_53_packets_per_rtt() {
    // 1 ms RTT after a loss at 100: the curve stays near 70-75 for the first 0.2 s, the
    // Reno estimate gains 8/15 packet per round: 70 + 200 * 0.533 = 176.
    let (mut c, s) = after_loss(CubicLinuxConfig::default(), 100.0, 1);
    let w = *rounds(&mut c, s, s, 0, 1, 200).last().unwrap();
    assert!((w - 176.0).abs() < 176.0 * 0.05, "{w}");
    let cfg = CubicLinuxConfig { tcp_friendliness: false, ..Default::default() };
    let (mut c, s) = after_loss(cfg, 100.0, 1);
    let w = *rounds(&mut c, s, s, 0, 1, 200).last().unwrap();
    assert!(w < 80.0, "{w}");
}

#[test]
fn before_any_loss_cnt_is_at_most_20_and_never_below_2() {
    let mut c = CubicLinux::new(CubicLinuxConfig::default());
    c.pkts_acked(&at(0, 10.0, 5.0), &rtt_sample(SimTime::from_millis(50)));
    c.cong_avoid(&at(100, 500.0, 500.0), 1);
    assert_eq!(c.cnt(), 20);
    // Far past W_max the target races ahead: one packet per two acknowledged.
    let (mut c, s) = after_loss(CubicLinuxConfig::default(), 100.0, 100);
    c.cong_avoid(&at(0, s, s), 1);
    c.cong_avoid(&at(20_000, s + 1.0, s), 1);
    assert_eq!(c.cnt(), 2);
}

#[test]
fn fast_convergence_takes_w_max_to_0_85_of_a_lower_loss() {
    let mut c = CubicLinux::new(CubicLinuxConfig::default());
    c.ssthresh(&view(1000.0, 1e9));
    assert_eq!(c.ssthresh(&view(900.0, 1e9)), 630.0);
    assert_eq!(c.w_max(), 765); // 900 (1024 + 717) / 2048
    let mut c = CubicLinux::new(CubicLinuxConfig { fast_convergence: false, ..Default::default() });
    c.ssthresh(&view(1000.0, 1e9));
    c.ssthresh(&view(900.0, 1e9));
    assert_eq!(c.w_max(), 900);
}

#[test]
fn samples_within_a_second_of_an_epoch_start_are_ignored() {
    let (mut c, s) = after_loss(CubicLinuxConfig::default(), 1000.0, 100);
    c.cong_avoid(&at(2000, s, s), 1); // the epoch starts at 2 s
    c.pkts_acked(&at(2999, s, s), &rtt_sample(SimTime::from_millis(60)));
    assert_eq!(c.hystart.delay_min(), Some(SimTime::from_millis(100)));
    c.pkts_acked(&at(3000, s, s), &rtt_sample(SimTime::from_millis(60)));
    assert_eq!(c.hystart.delay_min(), Some(SimTime::from_millis(60)));
}

#[test]
fn a_timeout_forgets_w_max_and_delay_min() {
    let (mut c, _) = after_loss(CubicLinuxConfig::default(), 1000.0, 100);
    c.set_state(&view(1.0, 700.0), CaState::Loss);
    assert_eq!((c.w_max(), c.hystart.delay_min()), (0, None));
}

#[test]
fn hystart_sets_ssthresh_only_when_on() {
    // A round whose minimum RTT is 30 ms above delay_min ends slow start when HyStart is on.
    for (on, want) in [(true, Some(100.0)), (false, None)] {
        let mut c = CubicLinux::new(CubicLinuxConfig { hystart: on, ..Default::default() });
        c.init(&view(10.0, f64::INFINITY));
        c.pkts_acked(&at(0, 10.0, f64::INFINITY), &rtt_sample(SimTime::from_millis(100)));
        let mut exit = None;
        for i in 0..10 {
            let v = SenderView { snd_una: 0, ..at(10 + 3 * i, 100.0, f64::INFINITY) };
            c.pkts_acked(&v, &rtt_sample(SimTime::from_millis(130)));
            exit = exit.or(c.ssthresh_after_ack(&v));
        }
        assert_eq!(exit, want);
    }
}

#[test]
fn parameters_are_whole_numbers_in_range() {
    let mut p = Params::new();
    p.insert("beta".into(), 1024.0);
    assert_eq!(build(&p).err().unwrap().param, "beta");
    p.insert("beta".into(), 819.0);
    p.insert("bic_scale".into(), 0.0);
    assert_eq!(build(&p).err().unwrap().param, "bic_scale");
    p.insert("bic_scale".into(), 41.0);
    assert!(build(&p).is_ok());
    p.insert("cnt_floor".into(), 3.0);
    assert_eq!(build(&p).err().unwrap().param, "cnt_floor");
}

#[test]
fn far_below_the_curve_the_floor_of_cnt_sets_the_growth_per_round() {
    // A loss at 1000, then a window of 100 whose epoch starts at 0: near K (13 s) the target is
    // about 1000, ten times the window. With today's floor of 2 a round of 100 ACKs gives +50;
    // with 2.6.22's (ns-2.35's) floor of 1, +100.
    for (floor, want) in [(2, 150.0), (1, 200.0)] {
        let (mut c, _) = after_loss(CubicLinuxConfig { cnt_floor: floor, ..Default::default() }, 1000.0, 100);
        c.cong_avoid(&at(0, 100.0, 100.0), 1);
        let w = rounds(&mut c, 100.0, 100.0, 13_000, 100, 1)[0];
        assert_eq!(c.cnt(), floor);
        assert!((w - want).abs() <= 2.0, "floor {floor}: {w}");
    }
}
