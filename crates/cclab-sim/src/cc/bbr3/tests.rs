//! BBRv3's state machine and bounds on hand-computed inputs.

use super::model::{Mode, Phase, NO_BOUND};
use super::*;
use crate::cc::bbr::filters::MinRtt;
use crate::cc::testing;

const MS: u64 = 1_000_000_000;

fn ms(x: u64) -> SimTime {
    SimTime(x * MS)
}

/// A BBRv3 with a known model: max bw 10,000 packets/s, min RTT 40 ms (BDP 400 packets), TSO
/// bursts of 2 segments (budget: at least 6), window 400, in ProbeBW at `phase` since t = 0.
fn probing(phase: Phase) -> Bbr3 {
    let cfg = Bbr3Config { tso_segs: Some(2), ..Bbr3Config::default() };
    let mut b = Bbr3::new(cfg, crate::rng::stream_rng(1, crate::rng::stream::CC, 0));
    b.bw_hi = [10_000.0, 0.0];
    b.min_rtt = MinRtt::new(Some(ms(40)), SimTime::ZERO);
    b.probe_rtt_min = MinRtt::new(Some(ms(40)), SimTime::ZERO);
    b.mode = Mode::ProbeBw;
    b.phase = phase;
    b.full_bw_reached = true;
    b.cwnd = 400;
    b.probe_wait = ms(2500);
    b.update_gains();
    b
}

fn at(now: SimTime) -> SenderView {
    SenderView { now, delivered_time: now, next_tx_time: now, ..testing::view(400.0, f64::INFINITY) }
}

/// A valid sample of `delivered` packets over 40 ms, sent with `tx_in_flight` in flight,
/// `lost` packets marked lost since.
fn sample(delivered: u64, tx_in_flight: u64, lost: u64) -> RateSample {
    RateSample {
        delivered,
        acked_sacked: 1,
        interval: Some(ms(40)),
        tx_in_flight,
        lost,
        prior_in_flight: tx_in_flight,
        ..RateSample::default()
    }
}

#[test]
fn the_constants_are_googles_fixed_point_values() {
    assert_eq!((STARTUP_PACING_GAIN, STARTUP_CWND_GAIN, DRAIN_GAIN), (710, 512, 88));
    assert_eq!((UP_GAIN, DOWN_GAIN, CWND_GAIN + BW_PROBE_CWND_GAIN, PROBE_RTT_CWND_GAIN), (320, 232, 576, 128));
    let c = Bbr3Config::default();
    // 2 % is 5/256 = 1.95 %; beta's cut 30 % is 76/256, so 180/256 = 0.703 is kept.
    assert_eq!((c.loss_thresh, c.beta, c.headroom), (5, 76, 38));
    assert_eq!((ECN_ALPHA_GAIN, ECN_FACTOR, ECN_THRESH), (16, 85, 128));
    assert_eq!((c.probe_rtt_win, c.probe_rtt_mode), (ms(5000), ms(200)));
}

#[test]
fn the_bandwidth_filter_keeps_the_max_of_the_last_two_cycles() {
    let mut b = probing(Phase::Cruise);
    b.bw_hi = [0.0; 2];
    b.take_max_bw_sample(900.0);
    b.take_max_bw_sample(700.0);
    b.advance_max_bw_filter();
    b.take_max_bw_sample(800.0);
    assert_eq!(b.max_bw(), 900.0, "the previous cycle's 900 is still in the window");
    b.advance_max_bw_filter();
    assert_eq!((b.bw_hi, b.max_bw()), ([800.0, 0.0], 800.0), "900 has aged out after two cycles");
    b.advance_max_bw_filter();
    assert_eq!(b.max_bw(), 800.0, "a cycle without samples keeps the old one");
}

#[test]
fn the_budget_is_at_least_three_bursts_and_two_more_in_probe_up() {
    let v = at(ms(1));
    assert_eq!(probing(Phase::Cruise).inflight(&v, 10_000.0, BBR_UNIT), 400);
    assert_eq!(probing(Phase::Up).inflight(&v, 10_000.0, BBR_UNIT), 402);
    assert_eq!(probing(Phase::Cruise).inflight(&v, 50.0, BBR_UNIT), 6, "BDP 2 is below 3 bursts of 2");
    assert_eq!(probing(Phase::Cruise).probe_rtt_cwnd(), 200, "0.5 x 400");
}

#[test]
fn a_probe_losing_more_than_2_percent_sets_inflight_hi_to_what_was_in_flight_and_goes_down() {
    let v = at(ms(100));
    // 500 in flight: the threshold is 500 x 5 / 256 = 9 packets; 9 lost is not too high.
    let mut b = probing(Phase::Up);
    b.bw_probe_samples = true;
    assert!(!b.is_inflight_too_high(&sample(400, 500, 9)));
    assert!(b.is_inflight_too_high(&sample(400, 500, 10)));
    b.adapt_upper_bounds(&v, &sample(400, 500, 10));
    // max(500, 0.703 x min(BDP 400, cwnd 400) = 281).
    assert_eq!(b.inflight_hi, 500);
    assert_eq!((b.mode, b.phase, b.prev_probe_too_high, b.bw_probe_samples), (Mode::ProbeBw, Phase::Down, true, false));
    // A loss early in the flight: 200 in flight, 4 lost (> 3): beta x the target wins.
    let mut b = probing(Phase::Up);
    b.bw_probe_samples = true;
    b.adapt_upper_bounds(&v, &sample(400, 200, 4));
    assert_eq!(b.inflight_hi, 400 * 180 / 256);
    // Only once per probe: with bw_probe_samples off the same sample changes nothing.
    let before = b.inflight_hi;
    b.phase = Phase::Up;
    b.adapt_upper_bounds(&v, &sample(400, 100, 50));
    assert_eq!((b.inflight_hi, b.phase), (before, Phase::Up));
}

#[test]
fn a_safe_sample_above_inflight_hi_raises_it() {
    let mut b = probing(Phase::Cruise);
    b.inflight_hi = 300;
    b.adapt_upper_bounds(&at(ms(100)), &sample(400, 350, 0));
    assert_eq!(b.inflight_hi, 350);
    b.inflight_hi = NO_BOUND;
    b.adapt_upper_bounds(&at(ms(100)), &sample(400, 350, 0));
    assert_eq!(b.inflight_hi, NO_BOUND, "no bound is set without a loss or ECN signal");
}

#[test]
fn inflight_hi_grows_by_1_2_4_packets_per_round_in_probe_up_while_the_window_is_full() {
    let mut b = probing(Phase::Cruise);
    b.inflight_hi = 400;
    let v = SenderView { is_cwnd_limited: true, ..at(ms(100)) };
    b.start_bw_probe_up(&v, 10_000.0);
    // Round 1: one increment per cwnd / 1 = 400 packets ACKed.
    assert_eq!((b.bw_probe_up_cnt, b.bw_probe_up_rounds), (400, 1));
    let ack = |n| RateSample { acked_sacked: n, ..RateSample::default() };
    b.probe_inflight_hi_upward(&v, &ack(399));
    assert_eq!(b.inflight_hi, 400);
    b.probe_inflight_hi_upward(&v, &ack(1));
    assert_eq!(b.inflight_hi, 401);
    // The next round: cwnd / 2 = 200 packets per increment, so 400 ACKed raise it by 2.
    b.round_start = true;
    b.cwnd = 401;
    b.probe_inflight_hi_upward(&v, &ack(0));
    b.round_start = false;
    assert_eq!(b.bw_probe_up_cnt, 200);
    b.probe_inflight_hi_upward(&v, &ack(400));
    assert_eq!(b.inflight_hi, 403);
    // Not window-limited (paced below it): no growth.
    let v = SenderView { is_cwnd_limited: false, ..v };
    b.probe_inflight_hi_upward(&v, &ack(1000));
    assert_eq!(b.inflight_hi, 403);
}

#[test]
fn loss_in_a_round_outside_probing_cuts_bw_lo_and_inflight_lo_by_beta_but_not_below_the_latest_round() {
    let mut b = probing(Phase::Cruise);
    b.loss_in_round = true;
    b.bw_latest = 6000.0;
    b.inflight_latest = 250;
    b.adapt_lower_bounds();
    // From max_bw 10,000 and cwnd 400: max(6000, 10,000 x 180/256), max(250, 400 x 180 / 256 = 281).
    assert_eq!((b.bw_lo, b.inflight_lo), (10_000.0 * 180.0 / 256.0, 281));
    assert_eq!(b.bw(), 10_000.0 * 180.0 / 256.0, "bw = min(max_bw, bw_lo)");
    b.adapt_lower_bounds();
    assert_eq!((b.bw_lo, b.inflight_lo), (6000.0, 250), "the latest round's delivery is the floor");
    // While probing (ProbeBW_UP) the lower bounds are left alone.
    let mut b = probing(Phase::Up);
    b.loss_in_round = true;
    b.adapt_lower_bounds();
    assert_eq!((b.bw_lo, b.inflight_lo), (f64::INFINITY, NO_BOUND));
}

#[test]
fn the_cycle_goes_down_cruise_refill_up_and_down_again() {
    let mut b = probing(Phase::Down);
    b.inflight_hi = 400; // headroom: 400 - 400 x 38 / 256 = 341
    assert_eq!(b.inflight_with_headroom(), 341);
    let rs = |prior_in_flight| RateSample { prior_in_flight, ..sample(400, 300, 0) };
    b.update_cycle_phase(&at(ms(10)), &rs(342), 10_000.0);
    assert_eq!(b.phase, Phase::Down, "342 in flight is above the headroom");
    b.update_cycle_phase(&at(ms(20)), &rs(341), 10_000.0);
    assert_eq!(b.phase, Phase::Cruise);
    // Cruise until the 2.5 s wall-clock wait is over (strictly), or 63 rounds.
    b.update_cycle_phase(&at(ms(2500)), &rs(300), 10_000.0);
    assert_eq!(b.phase, Phase::Cruise);
    let later = SenderView { delivered: 5000, ..at(SimTime(2500 * MS + 1)) };
    b.update_cycle_phase(&later, &rs(300), 10_000.0);
    assert_eq!((b.phase, b.next_rtt_delivered, b.bw_lo), (Phase::Refill, 5000, f64::INFINITY));
    // Refill lasts until a round starts.
    b.update_cycle_phase(&later, &rs(300), 10_000.0);
    assert_eq!(b.phase, Phase::Refill);
    b.round_start = true;
    b.update_cycle_phase(&later, &rs(300), 10_000.0);
    assert_eq!((b.phase, b.bw_probe_samples, b.full_bw), (Phase::Up, true, 10_000.0));
    // Up ends on a plateau of the bandwidth (not limited by inflight_hi).
    b.round_start = false;
    b.full_bw_now = true;
    b.update_cycle_phase(&later, &rs(300), 10_000.0);
    assert_eq!(b.phase, Phase::Down);
    // Rounds: Reno coexistence after min(63, target inflight) rounds.
    let mut b = probing(Phase::Cruise);
    b.rounds_since_probe = 62;
    b.update_cycle_phase(&at(ms(10)), &rs(300), 10_000.0);
    assert_eq!(b.phase, Phase::Cruise);
    b.rounds_since_probe = 63;
    b.update_cycle_phase(&at(ms(10)), &rs(300), 10_000.0);
    assert_eq!(b.phase, Phase::Refill);
}

#[test]
fn probe_rtt_comes_5_s_after_the_last_lower_rtt_and_holds_half_the_bdp_for_200_ms_and_a_round() {
    let mut b = probing(Phase::Cruise);
    let rs = RateSample { rtt: Some(ms(45)), delivered: 1, ..RateSample::default() };
    b.update_min_rtt(&at(ms(5000)), &rs);
    assert_eq!(b.mode, Mode::ProbeBw, "exactly 5 s is not expired");
    let t = SimTime(5000 * MS + 1);
    b.update_min_rtt(&SenderView { in_flight: 300, ..at(t) }, &rs);
    assert_eq!((b.mode, b.prior_cwnd, b.probe_rtt_done_stamp), (Mode::ProbeRtt, 400, None));
    assert_eq!(b.probe_rtt_min.min_rtt, Some(ms(45)), "the expired 5 s filter took the new sample");
    assert_eq!(b.min_rtt.min_rtt, Some(ms(40)), "the 10 s filter keeps 40 ms");
    b.set_cwnd(&at(t), 1, 10_000.0, BBR_UNIT);
    assert_eq!(b.cwnd, 200);
    // In flight at 0.5 BDP: 200 ms from now, and a round.
    let t1 = ms(5100);
    b.update_min_rtt(&SenderView { in_flight: 200, ..at(t1) }, &rs);
    assert_eq!(b.probe_rtt_done_stamp, Some(ms(5300)));
    b.round_start = true;
    b.update_min_rtt(&at(ms(5300)), &rs);
    assert_eq!(b.mode, Mode::ProbeRtt, "not strictly after the end time");
    b.update_min_rtt(&at(SimTime(5300 * MS + 1)), &rs);
    assert_eq!((b.mode, b.phase, b.cwnd), (Mode::ProbeBw, Phase::Cruise, 400));
    assert_eq!(b.probe_rtt_min.stamp, SimTime(5300 * MS + 1), "the next ProbeRTT is 5 s from here");
}

#[test]
fn the_ecn_alpha_is_an_ewma_of_the_ce_fraction_with_gain_one_sixteenth() {
    let cfg = Bbr3Config { ecn: true, ecn_max_rtt: None, ..Bbr3Config::default() };
    let mut b = Bbr3::new(cfg, crate::rng::stream_rng(1, crate::rng::stream::CC, 0));
    b.full_bw_reached = true;
    b.delivered_ce = 50;
    let v = SenderView { delivered: 100, ..at(ms(100)) };
    // Half the packets marked: alpha = 15/16 x 256 + 1/16 x 128 = 240 + 8.
    assert_eq!(b.update_ecn_alpha(&v), Some(128));
    assert_eq!(b.ecn_alpha, 248);
    // With alpha 248: inflight_lo x (1 - 248 x 85 / 256 / 256) = 400 x (256 - 82) / 256 = 271.
    b.mode = Mode::ProbeBw;
    b.phase = Phase::Cruise;
    b.cwnd = 400;
    b.ecn_in_round = true;
    b.adapt_lower_bounds();
    assert_eq!(b.inflight_lo, 271);
    // Not ECN-eligible on a path above ecn_max_rtt (5 ms).
    let mut b = probing(Phase::Cruise);
    b.cfg.ecn = true;
    assert_eq!(b.update_ecn_alpha(&v), None);
}

#[test]
fn startup_ends_on_six_loss_events_in_a_recovery_round_with_a_loss_rate_above_2_percent() {
    let mut b = Bbr3::new(Bbr3Config { tso_segs: Some(2), ..Bbr3Config::default() }, crate::rng::stream_rng(1, 2, 0));
    b.bw_hi = [10_000.0, 0.0];
    b.min_rtt = MinRtt::new(Some(ms(40)), SimTime::ZERO);
    b.inflight_latest = 450;
    let v = SenderView { state: CaState::Recovery, ..at(ms(500)) };
    let lossy = RateSample { losses: 1, ..sample(400, 500, 20) };
    for _ in 0..5 {
        b.check_loss_too_high_in_startup(&v, &lossy);
    }
    assert!(!b.full_bw_reached, "no round end yet");
    b.loss_round_start = true;
    b.check_loss_too_high_in_startup(&v, &lossy);
    assert!(b.full_bw_reached);
    assert_eq!(b.inflight_hi, 450, "max(BDP 400, inflight_latest 450)");
}

#[test]
fn three_rounds_without_25_percent_growth_are_a_plateau() {
    let mut b = Bbr3::new(Bbr3Config::default(), crate::rng::stream_rng(1, 2, 0));
    let rs = sample(400, 0, 0);
    b.check_full_bw_reached(&rs, 1000.0);
    assert_eq!(b.full_bw, 1000.0);
    b.round_start = true;
    for (bw, cnt) in [(1200.0, 1), (1249.0, 2)] {
        b.check_full_bw_reached(&rs, bw);
        assert_eq!(b.full_bw_cnt, cnt);
    }
    b.check_full_bw_reached(&rs, 1250.0);
    assert_eq!((b.full_bw, b.full_bw_cnt), (1250.0, 0), "25 % growth restarts the count");
    for _ in 0..3 {
        b.check_full_bw_reached(&rs, 1300.0);
    }
    assert!(b.full_bw_now && b.full_bw_reached);
}
