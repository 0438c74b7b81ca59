//! HyStart++: slow start that slows down, rather than stops, when the RTT rises.
//!
//! Source: RFC 9406, "HyStart++: Modified Slow Start for TCP" (2023), section 4.
//! Not Linux's HyStart (cc/hystart.rs): mainline Linux's tcp_cubic.c runs HyStart's ACK
//! train and delay tests and has no HyStart++, so the `linux` stack profile does not turn
//! this on (docs/algorithms/cubic.md).
//!
//! Slow start is watched in rounds (a round ends when the data sent up to its start,
//! `windowEnd` = snd_nxt then, is acknowledged). Each round keeps the minimum of its RTT
//! samples; from its [`N_RTT_SAMPLE`]-th sample on, a round whose minimum has risen over
//! the last round's by
//!
//! - `RttThresh = clamp(lastRoundMinRTT / MIN_RTT_DIVISOR, MIN_RTT_THRESH, MAX_RTT_THRESH)`
//!   (section 4.2; 4 ms, 16 ms, divisor 8)
//!
//! ends standard slow start and begins Conservative Slow Start (CSS), remembering the
//! round's minimum as `cssBaselineMinRtt`. In CSS the window grows by a quarter of slow
//! start's, `cwnd += min(N, L SMSS) / CSS_GROWTH_DIVISOR` per ACK (section 4.2;
//! [`CSS_GROWTH_DIVISOR`] 4), so about x1.25 per round instead of x2. If, with
//! [`N_RTT_SAMPLE`] samples, a CSS round's minimum falls below the baseline, the rise was
//! spurious: back to standard slow start. After [`CSS_ROUNDS`] rounds of CSS (5; the round
//! in which CSS began counts) congestion avoidance begins: `ssthresh = cwnd`. A loss or an
//! ECN echo in slow start or CSS ends HyStart++ too; the algorithm's reduction sets
//! ssthresh as usual.
//!
//! Choices:
//! - **L = 8 packets** per ACK in standard slow start and CSS (the RFC's value for a sender
//!   that does not pace; CUBIC here does not).
//! - **Rounds by sequence**: a round ends on the first ACK with snd_una at or past the
//!   round's `windowEnd` (all data sent before the round began is acknowledged); the next
//!   round's `windowEnd` is snd_nxt then. The first round begins with the flow.
//! - **Only the initial slow start**: once HyStart++ has ended (CSS_ROUNDS, a loss, an
//!   echo), later slow starts (after a timeout) are standard and end at the ssthresh the
//!   loss set.
//! - **The RTT sample** is the one every algorithm gets ([`super::AckSample::rtt`]).

use super::SenderView;
use crate::units::SimTime;

/// Floor of the delay threshold (RFC 9406 `MIN_RTT_THRESH`).
pub const MIN_RTT_THRESH: SimTime = SimTime::from_micros(4000);
/// Ceiling of the delay threshold (`MAX_RTT_THRESH`).
pub const MAX_RTT_THRESH: SimTime = SimTime::from_micros(16_000);
/// The threshold is the last round's minimum RTT over this (`MIN_RTT_DIVISOR`).
pub const MIN_RTT_DIVISOR: u64 = 8;
/// RTT samples a round needs before its tests (`N_RTT_SAMPLE`).
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS grows by slow start's increase over this (`CSS_GROWTH_DIVISOR`).
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
/// Rounds of CSS before congestion avoidance (`CSS_ROUNDS`).
pub const CSS_ROUNDS: u32 = 5;
/// Packets one ACK may add in slow start and CSS without pacing (`L`).
pub const L: u32 = 8;

/// Where HyStart++ is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// Standard slow start, watching the RTT.
    SlowStart,
    /// Conservative Slow Start since an RTT rise to `baseline`; `rounds` ended in CSS.
    Css { baseline: SimTime, rounds: u32 },
    /// Finished: congestion avoidance, or a loss or echo ended slow start.
    Done,
}

/// HyStart++'s state (RFC 9406 section 4.2's variables).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartPp {
    phase: Phase,
    /// `windowEnd`: the round ends once snd_una reaches it.
    window_end: u64,
    /// `lastRoundMinRTT`, `currentRoundMinRTT` (`None`: infinity).
    last_round_min: Option<SimTime>,
    current_round_min: Option<SimTime>,
    /// `rttSampleCount` of the current round.
    samples: u32,
}

impl Default for HyStartPp {
    fn default() -> Self {
        HyStartPp { phase: Phase::SlowStart, window_end: 0, last_round_min: None, current_round_min: None, samples: 0 }
    }
}

impl HyStartPp {
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// `RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))`
    pub fn rtt_thresh(last_round_min: SimTime) -> SimTime {
        SimTime(last_round_min.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
    }

    /// A round begins, its data ending at `snd_nxt`.
    pub fn new_round(&mut self, snd_nxt: u64) {
        self.last_round_min = self.current_round_min;
        self.current_round_min = None;
        self.samples = 0;
        self.window_end = snd_nxt;
    }

    /// A loss or an ECN echo: slow start (standard or conservative) is over.
    pub fn end(&mut self) {
        self.phase = Phase::Done;
    }

    /// One ACK in slow start, as the sender shows it after the ACK (snd_una moved), with its
    /// RTT sample: `Some(cwnd)`, the new ssthresh, when CSS has run its rounds.
    pub fn on_ack(&mut self, v: &SenderView, rtt: Option<SimTime>) -> Option<f64> {
        if self.phase == Phase::Done || v.cwnd >= v.ssthresh {
            return None;
        }
        if v.snd_una >= self.window_end {
            if let Phase::Css { baseline, rounds } = self.phase {
                if rounds + 1 >= CSS_ROUNDS {
                    self.phase = Phase::Done;
                    return Some(v.cwnd);
                }
                self.phase = Phase::Css { baseline, rounds: rounds + 1 };
            }
            self.new_round(v.snd_nxt);
        }
        let rtt = rtt?;
        let cur = self.current_round_min.map_or(rtt, |c| c.min(rtt));
        self.current_round_min = Some(cur);
        self.samples += 1;
        if self.samples < N_RTT_SAMPLE {
            return None;
        }
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min {
                    if cur >= last + Self::rtt_thresh(last) {
                        self.phase = Phase::Css { baseline: cur, rounds: 0 };
                    }
                }
            }
            Phase::Css { baseline, .. } if cur < baseline => self.phase = Phase::SlowStart,
            _ => {}
        }
        None
    }

    /// Slow start's step for `acked` packets from `cwnd` below `ssthresh` (the shape of
    /// [`super::slow_start`]): at most [`L`] per ACK, a quarter of it in CSS; the packets
    /// left for congestion avoidance.
    pub fn slow_start(&self, cwnd: f64, ssthresh: f64, acked: u32) -> (f64, u32) {
        match self.phase {
            Phase::SlowStart => super::slow_start(cwnd, ssthresh, acked.min(L)),
            Phase::Css { .. } => {
                let w = cwnd + f64::from(acked.min(L)) / CSS_GROWTH_DIVISOR;
                (w.min(ssthresh.max(cwnd)), 0)
            }
            Phase::Done => super::slow_start(cwnd, ssthresh, acked),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::view;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn at(snd_una: u64, snd_nxt: u64, cwnd: f64) -> SenderView {
        SenderView { snd_una, snd_nxt, ..view(cwnd, f64::INFINITY) }
    }

    /// `n` ACKs with the RTT `rtt`, acknowledging [una, una + n) one by one while one new
    /// packet is sent per ACK: a round that began with snd_nxt = una + n ends at the last of
    /// them. Returns the ssthresh set, if any.
    fn round(h: &mut HyStartPp, una: u64, n: u64, rtt: SimTime, cwnd: f64) -> Option<f64> {
        let mut exit = None;
        for i in 1..=n {
            exit = exit.or(h.on_ack(&at(una + i, una + n + i, cwnd), Some(rtt)));
        }
        exit
    }

    #[test]
    fn the_delay_threshold_is_an_eighth_of_the_last_minimum_within_4_and_16_ms() {
        assert_eq!(HyStartPp::rtt_thresh(ms(20)), ms(4));
        assert_eq!(HyStartPp::rtt_thresh(ms(80)), ms(10));
        assert_eq!(HyStartPp::rtt_thresh(ms(200)), ms(16));
    }

    #[test]
    fn a_round_whose_minimum_rises_by_the_threshold_enters_css_and_grows_a_quarter_as_fast() {
        let mut h = HyStartPp::default();
        h.new_round(0);
        // The first ACK ends the round begun at the start; its round has no predecessor.
        assert_eq!(round(&mut h, 0, 10, ms(80), 20.0), None);
        // The next round's minimum is 89 ms: below 80 + 10 ms, still slow start.
        assert_eq!(round(&mut h, 10, 20, ms(89), 40.0), None);
        assert_eq!(h.phase(), Phase::SlowStart);
        assert_eq!(h.slow_start(40.0, f64::INFINITY, 2), (42.0, 0));
        assert_eq!(h.slow_start(40.0, f64::INFINITY, 20), (48.0, 0), "at most L = 8 per ACK");
        // Against 89 ms the threshold is 89 + 11.125 ms: 100 ms stays in slow start...
        let mut h2 = h;
        assert_eq!(round(&mut h2, 30, 40, ms(100), 80.0), None);
        assert_eq!(h2.phase(), Phase::SlowStart);
        // ...101 ms enters CSS, at the round's 8th sample.
        for i in 1..=7 {
            h.on_ack(&at(30 + i, 80, 80.0), Some(ms(101)));
            assert_eq!(h.phase(), Phase::SlowStart, "sample {i} of 8");
        }
        h.on_ack(&at(38, 80, 80.0), Some(ms(101)));
        assert_eq!(h.phase(), Phase::Css { baseline: ms(101), rounds: 0 });
        assert_eq!(h.slow_start(80.0, f64::INFINITY, 2), (80.5, 0), "2 / CSS_GROWTH_DIVISOR");
        assert_eq!(h.slow_start(80.0, f64::INFINITY, 12), (82.0, 0), "min(12, L) / 4");
    }

    #[test]
    fn css_returns_to_slow_start_when_a_rounds_minimum_falls_below_the_baseline() {
        let mut h = HyStartPp { phase: Phase::Css { baseline: ms(101), rounds: 1 }, ..HyStartPp::default() };
        h.new_round(93); // ends at the first ACK below: a new CSS round begins
                         // A round of 8 samples, 7 at 105 ms and one at 100 ms: below the baseline.
        assert_eq!(round(&mut h, 93, 7, ms(105), 90.0), None);
        assert_eq!(h.phase(), Phase::Css { baseline: ms(101), rounds: 2 });
        h.on_ack(&at(100, 114, 90.0), Some(ms(100)));
        assert_eq!(h.phase(), Phase::SlowStart);
    }

    #[test]
    fn css_ends_in_congestion_avoidance_after_five_rounds_counting_the_one_it_began_in() {
        let mut h = HyStartPp { phase: Phase::Css { baseline: ms(101), rounds: 0 }, ..HyStartPp::default() };
        h.new_round(10); // the round CSS began in ends at 10
        let mut ends = Vec::new();
        for (k, cwnd) in [100.0, 125.0, 156.0, 195.0, 244.0].into_iter().enumerate() {
            // Each round's RTT stays at the baseline: no return to slow start.
            ends.push(round(&mut h, 10 * k as u64, 10, ms(101), cwnd));
        }
        assert_eq!(ends, [None, None, None, None, Some(244.0)]);
        assert_eq!(h.phase(), Phase::Done);
        assert_eq!(h.slow_start(10.0, 20.0, 2), (12.0, 0), "standard slow start afterwards");
    }

    #[test]
    fn nothing_happens_above_ssthresh_or_after_a_loss() {
        let mut h = HyStartPp::default();
        let v = SenderView { snd_una: 5, snd_nxt: 10, ..view(50.0, 40.0) };
        assert_eq!(h.on_ack(&v, Some(ms(500))), None);
        assert_eq!(h, HyStartPp::default());
        h.end();
        assert_eq!(h.on_ack(&at(5, 10, 10.0), Some(ms(500))), None);
        assert_eq!(h.phase(), Phase::Done);
    }
}
