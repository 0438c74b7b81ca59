//! BBR v1's state machine on hand-computed inputs.

use super::filters::Minmax;
use super::*;
use crate::cc::testing;
use crate::units::SimTime;

const MS: u64 = 1_000_000_000;

fn ms(x: u64) -> SimTime {
    SimTime(x * MS)
}

/// A BBR with a known model: max bw 10,000 packets/s, min RTT 40 ms (BDP 400 packets), TSO
/// bursts of 2 segments (a budget of 6), in PROBE_BW at phase `cycle_idx` since t = 0.
fn probing(cycle_idx: usize) -> Bbr {
    let cfg = BbrConfig { tso_segs: Some(2), ..BbrConfig::default() };
    let mut b = Bbr::new(cfg, crate::rng::stream_rng(1, crate::rng::stream::CC, 0));
    b.bw = Minmax::new(0, 10_000.0);
    b.min_rtt = filters::MinRtt::new(Some(ms(40)), SimTime::ZERO);
    b.mode = Mode::ProbeBw;
    b.full_bw_reached = true;
    b.cycle_idx = cycle_idx;
    b.update_gains();
    b
}

fn at(now: SimTime) -> SenderView {
    SenderView { now, delivered_time: now, next_tx_time: now, ..testing::view(100.0, f64::INFINITY) }
}

fn sample(prior_in_flight: u64, losses: u64) -> RateSample {
    RateSample { prior_in_flight, losses, ..RateSample::default() }
}

#[test]
fn the_kernel_gains_are_its_fixed_point_values() {
    assert_eq!((BBR_HIGH_GAIN, BBR_DRAIN_GAIN, BBR_CWND_GAIN), (739, 88, 512));
    assert_eq!(BBR_PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
    assert_eq!((BBR_FULL_BW_THRESH, BBR_LT_BW_RATIO), (320, 32.0));
}

#[test]
fn the_bdp_is_rounded_up_and_the_budget_adds_three_bursts_an_even_window_and_two_when_probing() {
    let b = probing(0);
    let v = at(ms(1));
    assert_eq!(b.bdp(10_000.0, BBR_UNIT), 400);
    assert_eq!(b.bdp(10_000.0, BBR_PACING_GAIN[0]), 500);
    assert_eq!(b.bdp(10_001.0, BBR_UNIT), 401, "400.04 rounds up");
    // 400 + 3 x 2 = 406, even; +2 in the probing phase.
    assert_eq!(b.inflight(&v, 10_000.0, BBR_UNIT), 408);
    assert_eq!(probing(2).inflight(&v, 10_000.0, BBR_UNIT), 406);
    assert_eq!(probing(2).quantization_budget(&v, 401), 408, "407 rounds up to even");
}

#[test]
fn a_gain_1_phase_lasts_one_min_rtt() {
    let b = probing(2);
    assert!(!b.is_next_cycle_phase(&at(ms(40)), &sample(0, 0)), "exactly min_rtt is not longer");
    assert!(b.is_next_cycle_phase(&at(SimTime(40 * MS + 1)), &sample(0, 0)));
}

#[test]
fn the_probing_phase_is_held_until_inflight_reaches_five_quarters_of_the_bdp_or_a_loss() {
    let b = probing(0);
    let late = at(ms(41));
    // Target: 1.25 x 400 = 500, + 6, even, + 2 = 508; in flight at the next departure counts
    // the burst about to leave (2).
    assert!(!b.is_next_cycle_phase(&late, &sample(505, 0)), "507 < 508");
    assert!(b.is_next_cycle_phase(&late, &sample(506, 0)), "508 reached");
    assert!(b.is_next_cycle_phase(&late, &sample(100, 1)), "a loss ends it");
    assert!(!b.is_next_cycle_phase(&at(ms(40)), &sample(900, 3)), "never before one min_rtt");
}

#[test]
fn the_draining_phase_ends_early_once_inflight_is_at_most_the_bdp() {
    let b = probing(1);
    // Target: 400 + 6 = 406 (no probing extra).
    assert!(b.is_next_cycle_phase(&at(ms(1)), &sample(406, 0)));
    assert!(!b.is_next_cycle_phase(&at(ms(1)), &sample(407, 0)));
    assert!(b.is_next_cycle_phase(&at(ms(41)), &sample(900, 0)), "or after one min_rtt");
    // What the bottleneck delivers before the next paced departure is not in the network then:
    // 5 ms at 10,000 packets/s is 50 packets.
    let v = SenderView { next_tx_time: ms(6), ..at(ms(1)) };
    assert!(b.is_next_cycle_phase(&v, &sample(456, 0)));
    assert!(!b.is_next_cycle_phase(&v, &sample(457, 0)));
}

#[test]
fn the_first_phase_of_probe_bw_is_random_and_never_the_draining_one() {
    let mut seen = [0; CYCLE_LEN];
    let mut b = probing(0);
    for _ in 0..700 {
        b.reset_probe_bw_mode(&at(ms(1)));
        seen[b.cycle_idx] += 1;
    }
    assert_eq!(seen[1], 0, "{seen:?}");
    assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 50), "{seen:?}");
}

#[test]
fn the_pipe_is_full_after_three_rounds_without_25_percent_growth() {
    let mut b = probing(2);
    b.full_bw_reached = false;
    let round = RateSample::default();
    let step = |b: &mut Bbr, bw: f64, round_start: bool, app_limited: bool| {
        b.bw = Minmax::new(0, bw);
        b.round_start = round_start;
        b.check_full_bw_reached(&RateSample { is_app_limited: app_limited, ..round });
        (b.full_bw, b.full_bw_cnt, b.full_bw_reached)
    };
    assert_eq!(step(&mut b, 100.0, true, false), (100.0, 0, false));
    assert_eq!(step(&mut b, 124.0, true, false), (100.0, 1, false));
    assert_eq!(step(&mut b, 124.0, false, false), (100.0, 1, false), "not a round start");
    assert_eq!(step(&mut b, 124.0, true, true), (100.0, 1, false), "app-limited");
    assert_eq!(step(&mut b, 124.0, true, false), (100.0, 2, false));
    assert_eq!(step(&mut b, 125.0, true, false), (125.0, 0, false), "25 % growth restarts the count");
    assert_eq!(step(&mut b, 156.0, true, false), (125.0, 1, false));
    assert_eq!(step(&mut b, 156.0, true, false), (125.0, 2, false));
    assert_eq!(step(&mut b, 156.0, true, false), (125.0, 3, true));
}

#[test]
fn probe_rtt_starts_when_the_min_rtt_expires_and_ends_200_ms_and_a_round_after_inflight_reaches_4() {
    let mut b = probing(2);
    b.cwnd = 100;
    let rtt = |r: u64| RateSample { rtt: Some(ms(r)), delivered: 1, ..RateSample::default() };
    let v = |t: SimTime, in_flight: u64| SenderView { in_flight, delivered: 7, ..at(t) };
    b.update_min_rtt(&v(ms(10_000), 100), &rtt(50));
    assert_eq!(b.mode, Mode::ProbeBw, "the 10 s window is not over at 10 s");
    let expiry = SimTime(10_000 * MS + 1);
    b.update_min_rtt(&v(expiry, 100), &rtt(50));
    assert_eq!(b.mode, Mode::ProbeRtt);
    assert_eq!(b.min_rtt.min_rtt, Some(ms(50)), "an expired estimate takes any sample");
    assert_eq!(b.prior_cwnd, 100);
    assert!(b.mark_app_limited, "samples in PROBE_RTT are app-limited");
    b.update_gains();
    let rs = RateSample { acked_sacked: 1, ..RateSample::default() };
    b.set_cwnd(&v(expiry, 100), &rs, 1, 10_000.0, b.cwnd_gain);
    assert_eq!(b.cwnd, 4, "the window is held at bbr_cwnd_min_target");
    // Not at 4 packets in flight yet: no end time.
    b.update_min_rtt(&v(ms(10_020), 5), &rtt(45));
    assert_eq!(b.probe_rtt_done_stamp, None);
    b.update_min_rtt(&v(ms(10_050), 4), &rtt(45));
    assert_eq!(b.probe_rtt_done_stamp, Some(ms(10_250)));
    assert_eq!(b.next_rtt_delivered, 7, "a round starts now");
    // A round passes at 10.1 s; 200 ms are over only after 10.25 s.
    b.round_start = true;
    b.update_min_rtt(&v(ms(10_100), 4), &rtt(41));
    b.round_start = false;
    assert!(b.probe_rtt_round_done && b.mode == Mode::ProbeRtt);
    b.update_min_rtt(&v(ms(10_250), 4), &rtt(41));
    assert_eq!(b.mode, Mode::ProbeRtt, "exactly 200 ms is not after the end time");
    b.cwnd = 4;
    b.update_min_rtt(&v(SimTime(10_250 * MS + 1), 4), &rtt(41));
    assert_eq!(b.mode, Mode::ProbeBw, "the pipe was full: back to PROBE_BW");
    assert_eq!(b.cwnd, 100, "the window saved on entry is restored");
    assert_eq!(b.min_rtt.stamp, SimTime(10_250 * MS + 1), "the next PROBE_RTT is 10 s from now");
    assert_eq!(b.min_rtt.min_rtt, Some(ms(41)));
}

#[test]
fn the_long_term_sampler_detects_a_policer_from_two_lossy_intervals_at_the_same_rate() {
    let mut b = probing(2);
    let v = |t: u64, delivered: u64, lost: u64| SenderView { delivered, lost, ..at(ms(t)) };
    let lossy = RateSample { losses: 1, ..RateSample::default() };
    let clean = RateSample::default();
    // No sampling before the first loss.
    b.lt_bw_sampling(&v(0, 0, 0), &clean);
    assert!(!b.lt.is_sampling);
    b.lt_bw_sampling(&v(0, 0, 0), &lossy);
    assert!(b.lt.is_sampling);
    // Four rounds of 40 ms with 100 packets delivered each; a loss in the 3rd round is too early.
    for r in 1..=4u64 {
        b.round_start = true;
        let rs = if r == 3 { lossy } else { clean };
        b.lt_bw_sampling(&v(40 * r, 100 * r, 25 * r), &rs);
    }
    assert_eq!((b.lt.rtt_cnt, b.lt.bw), (4, 0.0), "4 rounds, but no loss at their end");
    // A loss at 160 ms: 100 lost of 400 delivered (25 % >= 50/256): 400 packets / 0.16 s.
    b.round_start = false;
    b.lt_bw_sampling(&v(160, 400, 100), &lossy);
    assert_eq!(b.lt.bw, 2500.0);
    assert!(!b.lt.use_bw);
    assert_eq!((b.lt.last_delivered, b.lt.last_lost, b.lt.rtt_cnt), (400, 100, 0));
    // The second interval: 4 rounds, 420 packets in 160 ms (2625/s, within 1/8 of 2500)
    // but only 40 lost (9.5 %): not yet; 110 lost (26 %): a policer at the mean rate.
    for r in 1..=4u64 {
        b.round_start = true;
        b.lt_bw_sampling(&v(160 + 40 * r, 400 + 105 * r, 100), &clean);
    }
    b.round_start = false;
    b.lt_bw_sampling(&v(320, 820, 140), &lossy);
    assert!(!b.lt.use_bw, "loss rate under bbr_lt_loss_thresh");
    b.lt_bw_sampling(&v(320, 820, 210), &lossy);
    assert!(b.lt.use_bw);
    assert_eq!(b.lt.bw, (2500.0 + 2625.0) / 2.0);
    b.update_gains();
    assert_eq!((b.pacing_gain, b.bbr_bw()), (BBR_UNIT, 2562.5), "paced at the policed rate");
    // After bbr_lt_bw_max_rtts rounds of PROBE_BW it probes again.
    for _ in 0..BBR_LT_BW_MAX_RTTS {
        b.round_start = true;
        b.lt_bw_sampling(&v(400, 900, 210), &clean);
    }
    assert!(!b.lt.use_bw && b.lt.bw == 0.0);
}

#[test]
fn packet_conservation_holds_the_window_at_inflight_plus_acked_for_the_first_round_of_recovery() {
    let mut b = probing(2);
    b.cwnd = 300;
    let rs = RateSample { acked_sacked: 2, losses: 3, ..RateSample::default() };
    let v = SenderView { state: CaState::Recovery, in_flight: 250, delivered: 1000, ..at(ms(5)) };
    // bbr_ssthresh saved the window when recovery began.
    b.save_cwnd();
    b.set_cwnd(&v, &rs, 2, 10_000.0, BBR_CWND_GAIN);
    assert_eq!(b.cwnd, 252, "in flight + acked");
    assert!(b.packet_conservation);
    assert_eq!(b.next_rtt_delivered, 1000);
    // Back in Open: the window saved before recovery comes back.
    let v = SenderView { state: CaState::Open, in_flight: 200, ..at(ms(50)) };
    b.packet_conservation = false; // a round passed (update_bw clears it)
    b.cwnd = 210;
    b.set_cwnd(&v, &RateSample { acked_sacked: 1, ..RateSample::default() }, 1, 10_000.0, BBR_CWND_GAIN);
    // max(210, 300) + 1, capped at the target 2 x 400 + 6 = 806.
    assert_eq!(b.cwnd, 301);
}
