//! HyStart's two tests, its rounds and its bounds, with hand-computed inputs.

use super::*;
use crate::cc::cubic::{Cubic, CubicConfig};
use crate::cc::{AckSample, CcHeader, CongestionControl};

const MS: u64 = 1_000_000_000; // picoseconds

fn ms(t: f64) -> SimTime {
    SimTime::from_secs_f64(t / 1e3)
}

/// The sender in slow start at `cwnd` (ssthresh infinite) at `now`, with snd_una and snd_nxt.
fn view(now: SimTime, cwnd: f64, snd_una: u64, snd_nxt: u64) -> SenderView {
    SenderView { now, snd_una, snd_nxt, ..crate::cc::testing::view(cwnd, f64::INFINITY) }
}

/// HyStart whose delay_min is `d` (a sample taken below the low window, which only
/// records it) and whose round began at `t0` with snd_nxt 1000.
fn primed(d: SimTime, t0: SimTime) -> HyStart {
    let mut h = HyStart::default();
    assert_eq!(h.on_sample(&view(SimTime::ZERO, 2.0, 0, 2), d), None);
    assert_eq!(h.delay_min(), Some(d));
    h.new_round(t0, 1000);
    h
}

#[test]
fn the_ack_train_ends_slow_start_just_past_half_the_minimum_rtt() {
    // delay_min 100 ms; ACKs 1 ms apart from the round's start at 1 s: at 50 ms the train
    // equals delay_min / 2 and does not end slow start; 1 ps later it does, at cwnd.
    let t0 = SimTime(1000 * MS);
    let mut h = primed(ms(100.0), t0);
    for i in 1..=50 {
        let v = view(t0 + SimTime(i * MS), 20.0, 10, 1000);
        assert_eq!(h.on_sample(&v, ms(100.0)), None, "{i} ms");
    }
    let v = view(t0 + SimTime(50 * MS + 1), 20.0, 10, 1000);
    assert_eq!(h.on_sample(&v, ms(100.0)), Some(20.0));
    assert_eq!(h.found(), Some(Found::AckTrain));
    // Found: silent from now on.
    assert_eq!(h.on_sample(&view(t0 + SimTime(51 * MS), 30.0, 10, 1000), ms(100.0)), None);
}

#[test]
fn a_gap_longer_than_two_ms_breaks_the_train_for_the_round() {
    // ACKs 2 ms apart still extend the train; a gap of 2 ms + 1 ps does not, and as the
    // train's last ACK then stays behind, no later ACK of the round extends it.
    let t0 = SimTime(1000 * MS);
    let mut h = primed(ms(60.0), t0);
    let mut t = t0;
    for _ in 0..10 {
        t += SimTime(2 * MS);
        assert_eq!(h.on_sample(&view(t, 20.0, 10, 1000), ms(60.0)), None);
    }
    t += SimTime(2 * MS + 1);
    assert_eq!(h.on_sample(&view(t, 20.0, 10, 1000), ms(60.0)), None);
    for _ in 0..40 {
        t += SimTime(MS);
        assert_eq!(h.on_sample(&view(t, 20.0, 10, 1000), ms(60.0)), None);
    }
    assert!(t - t0 > ms(60.0), "the round lasted longer than delay_min: {t}");
    assert_eq!(h.found(), None);
}

/// `n` samples of `rtts[i]`, 3 ms apart (no train), in one round from t0: the first that
/// ends slow start, by its index.
fn delay_run(delay_min: f64, rtts: &[f64]) -> Option<usize> {
    let t0 = SimTime(1000 * MS);
    let mut h = primed(ms(delay_min), t0);
    for (i, &r) in rtts.iter().enumerate() {
        let v = view(t0 + SimTime(3 * MS * (i as u64 + 1)), 20.0, 10, 1000);
        if h.on_sample(&v, ms(r)) == Some(20.0) {
            assert_eq!(h.found(), Some(Found::Delay));
            return Some(i);
        }
    }
    None
}

#[test]
fn the_delay_test_takes_the_round_minimum_after_eight_samples() {
    // delay_min 40 ms: margin 40/8 = 5 ms, threshold 45 ms.
    assert_eq!(HyStart::delay_threshold(ms(40.0)), ms(45.0));
    // Eight samples of 46 ms only gather; the ninth compares min 46 > 45 and ends slow start.
    assert_eq!(delay_run(40.0, &[46.0; 8]), None);
    assert_eq!(delay_run(40.0, &[46.0; 9]), Some(8));
    // One sample of 45 ms among the first eight holds the round's minimum at the threshold.
    let mut rtts = [46.0; 20];
    rtts[3] = 45.0;
    assert_eq!(delay_run(40.0, &rtts), None);
    // A low sample after the eighth lowers the minimum too (Linux 6.x updates curr_rtt on
    // every sample): 8 x 50 ms, then 44 ms, and the test never passes again.
    let mut rtts = [50.0; 20];
    rtts[8] = 44.0;
    assert_eq!(delay_run(40.0, &rtts), None);
}

#[test]
fn the_delay_margin_is_clamped_to_4_and_16_ms() {
    // delay_min 20 ms: 20/8 = 2.5 ms, raised to 4 ms: threshold 24 ms.
    assert_eq!(HyStart::delay_threshold(ms(20.0)), ms(24.0));
    assert_eq!(delay_run(20.0, &[24.0; 12]), None);
    assert_eq!(delay_run(20.0, &[24.5; 12]), Some(8));
    // delay_min 200 ms: 25 ms, lowered to 16 ms: threshold 216 ms.
    assert_eq!(HyStart::delay_threshold(ms(200.0)), ms(216.0));
    assert_eq!(delay_run(200.0, &[216.0; 12]), None);
    assert_eq!(delay_run(200.0, &[217.0; 12]), Some(8));
    // In the band, delay_min / 8 itself: 80 ms -> 10 ms.
    assert_eq!(HyStart::delay_threshold(ms(80.0)), ms(90.0));
}

#[test]
fn nothing_happens_below_a_window_of_16_packets() {
    // A long train and high RTTs at cwnd 15.9: no exit; the same at 16 exits at once.
    let t0 = SimTime(1000 * MS);
    for (cwnd, want) in [(15.9, None), (16.0, Some(16.0))] {
        let mut h = primed(ms(40.0), t0);
        let mut got = None;
        for i in 1..=40 {
            got = got.or(h.on_sample(&view(t0 + SimTime(i * MS), cwnd, 10, 1000), ms(60.0)));
        }
        assert_eq!(got, want, "cwnd {cwnd}");
    }
}

#[test]
fn a_new_round_restarts_the_train_and_forgets_the_samples() {
    let t0 = SimTime(1000 * MS);
    // Delay: eight high samples in the round ending at snd_nxt 1000; the ninth comes with
    // snd_una past 1000, so it is the new round's first and only gathers.
    let mut h = primed(ms(40.0), t0);
    for i in 1..=8 {
        assert_eq!(h.on_sample(&view(t0 + SimTime(3 * MS * i), 20.0, 1000, 1500), ms(50.0)), None);
    }
    let t1 = t0 + SimTime(30 * MS);
    assert_eq!(h.on_sample(&view(t1, 20.0, 1001, 1500), ms(50.0)), None);
    // That round ends at 1500; eight more samples (the ninth of the round) end slow start.
    let mut got = None;
    for i in 1..=8 {
        got = got.or(h.on_sample(&view(t1 + SimTime(3 * MS * i), 20.0, 1400, 1900), ms(50.0)));
    }
    assert_eq!(got, Some(20.0));

    // Train: delay_min 100 ms, a train of 40 ms, then the round ends: the new round's
    // train starts at its first ACK and needs another 50 ms.
    let mut h = primed(ms(100.0), t0);
    for i in 1..=40 {
        assert_eq!(h.on_sample(&view(t0 + SimTime(i * MS), 20.0, 500, 1000), ms(100.0)), None);
    }
    let t1 = t0 + SimTime(41 * MS);
    assert_eq!(h.on_sample(&view(t1, 20.0, 1001, 2000), ms(100.0)), None);
    for i in 1..=50 {
        assert_eq!(h.on_sample(&view(t1 + SimTime(i * MS), 20.0, 1500, 2000), ms(100.0)), None, "{i}");
    }
    let v = view(t1 + SimTime(51 * MS), 20.0, 1500, 2000);
    assert_eq!(h.on_sample(&v, ms(100.0)), Some(20.0));
}

#[test]
fn only_in_slow_start_and_a_timeout_rearms_it() {
    let t0 = SimTime(1000 * MS);
    let mut h = primed(ms(40.0), t0);
    // cwnd = ssthresh: not slow start; samples still lower delay_min.
    let v = SenderView { ssthresh: 20.0, ..view(t0 + SimTime(MS), 20.0, 10, 1000) };
    assert_eq!(h.on_sample(&v, ms(30.0)), None);
    assert_eq!(h.delay_min(), Some(ms(30.0)));
    // Found by delay, then a timeout clears it and delay_min.
    assert!((1..=9).any(|i| h.on_sample(&view(t0 + SimTime(3 * MS * i), 20.0, 10, 1000), ms(60.0)).is_some()));
    assert_eq!(h.found(), Some(Found::Delay));
    h.on_timeout(t0 + SimTime(2000 * MS), 1200);
    assert_eq!((h.found(), h.delay_min()), (None, None));
}

/// One ACK of one packet at `now` with RTT `rtt` through CUBIC's hooks, as the sender
/// calls them: `pkts_acked`, `ssthresh_after_ack`, then `cong_avoid` with the new threshold.
fn ack(c: &mut Cubic, v: SenderView, rtt: SimTime) -> (Option<f64>, f64) {
    let s = AckSample { acked: 1, rtt: Some(rtt), rcv_tsval: SimTime::ZERO, cc_echo: CcHeader::default(), ece: false };
    c.pkts_acked(&v, &s);
    let t = c.ssthresh_after_ack(&v);
    let v = SenderView { ssthresh: t.unwrap_or(v.ssthresh), ..v };
    (t, c.cong_avoid(&v, 1))
}

#[test]
fn cubic_leaves_slow_start_at_cwnd_and_grows_in_congestion_avoidance_after() {
    // One round of ACKs 1 ms apart (the first ACK starts a round that ends at snd_nxt 200),
    // RTT 100 ms, starting at cwnd 20: slow start adds one packet per ACK until the train
    // passes 50 ms at the 52nd ACK (cwnd 71 then).
    let mut c = Cubic::new(CubicConfig { hystart: true, ..Default::default() });
    c.init(&view(SimTime::ZERO, 20.0, 0, 0));
    let (mut w, mut th) = (20.0, f64::INFINITY);
    let t0 = SimTime(100 * MS);
    for i in 0..51 {
        let v = SenderView { srtt: ms(100.0), ..view(t0 + SimTime(i * MS), w, 1 + i, 200) };
        let (t, next) = ack(&mut c, SenderView { ssthresh: th, ..v }, ms(100.0));
        assert_eq!((t, next), (None, w + 1.0), "ACK {i}: slow start");
        w = next;
    }
    assert_eq!(w, 71.0);
    let v = SenderView { srtt: ms(100.0), ssthresh: th, ..view(t0 + SimTime(51 * MS), w, 52, 200) };
    let (t, next) = ack(&mut c, v, ms(100.0));
    assert_eq!(t, Some(71.0));
    th = 71.0;
    // Congestion avoidance from here: W_est's alpha / cwnd or the cubic target, far below +1.
    assert!(next > 71.0 && next < 71.1, "{next}");
    let v = SenderView { srtt: ms(100.0), ssthresh: th, ..view(t0 + SimTime(52 * MS), next, 53, 200) };
    let (t, after) = ack(&mut c, v, ms(100.0));
    assert_eq!(t, None);
    assert!(after - next < 0.1, "{next} -> {after}");
}

#[test]
fn without_hystart_cubic_never_sets_ssthresh() {
    // The same ACKs, and high RTTs too: slow start runs on.
    let mut c = Cubic::new(CubicConfig::default());
    c.init(&view(SimTime::ZERO, 20.0, 0, 0));
    let mut w = 20.0;
    for i in 0..200 {
        let v = SenderView { srtt: ms(100.0), ..view(SimTime((100 + i) * MS), w, 1 + i, 20 + i) };
        let (t, next) = ack(&mut c, v, ms(100.0 + i as f64));
        assert_eq!(t, None);
        w = next;
    }
    assert_eq!(w, 220.0);
    assert!(c.hystart().is_none());
}
