//! BBR's two path-model filters, shared by every BBR version.
//!
//! - [`Minmax`]: Kathleen Nichols' windowed min/max, as Linux's `lib/win_minmax.c`: the
//!   best, second-best and third-best samples of the window, each younger than the one
//!   before, so that the best is replaced by a recent runner-up when it ages out, in
//!   constant time and space. BBR keeps the maximum delivery rate over the last
//!   `bbr_bw_rtts` (10) round trips with it; time is then the round count.
//! - [`MinRtt`]: BBRv1's minimum RTT, `min_rtt_us` and `min_rtt_stamp` of `tcp_bbr.c`:
//!   a single value that a lower sample replaces at once and any sample replaces once
//!   it is older than the window (`bbr_min_rtt_win_sec`, 10 s). Its expiry is what
//!   sends BBR into PROBE_RTT.
//!
//! The kernel stores 32-bit times and compares them with wrap-around (`val.t - s.t`);
//! times here are 64-bit and never wrap, so the differences are plain subtractions.

use crate::units::SimTime;

/// One filter sample: value `v` at time `t` (a round count or picoseconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<V> {
    pub t: u64,
    pub v: V,
}

/// Linux's `struct minmax`: the three best samples of the window, best first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Minmax<V> {
    pub s: [Sample<V>; 3],
}

impl<V: Copy + PartialOrd> Minmax<V> {
    /// A filter holding `v` at `t` (`minmax_reset`).
    pub fn new(t: u64, v: V) -> Self {
        Minmax { s: [Sample { t, v }; 3] }
    }

    /// The best value in the window (`minmax_get`).
    pub fn get(&self) -> V {
        self.s[0].v
    }

    /// Forgets everything but `v` at `t`; returns `v` (`minmax_reset`).
    pub fn reset(&mut self, t: u64, v: V) -> V {
        *self = Minmax::new(t, v);
        v
    }

    /// A new sample for a max filter over `win` (`minmax_running_max`); returns the max.
    pub fn running_max(&mut self, win: u64, t: u64, v: V) -> V {
        self.running(win, Sample { t, v }, |a, b| a >= b)
    }

    /// A new sample for a min filter over `win` (`minmax_running_min`); returns the min.
    pub fn running_min(&mut self, win: u64, t: u64, v: V) -> V {
        self.running(win, Sample { t, v }, |a, b| a <= b)
    }

    /// `better(a, b)`: `a` is at least as good as `b`.
    fn running(&mut self, win: u64, val: Sample<V>, better: impl Fn(V, V) -> bool) -> V {
        // A new best, or the youngest choice has left the window: start over from this sample.
        if better(val.v, self.s[0].v) || val.t.saturating_sub(self.s[2].t) > win {
            return self.reset(val.t, val.v);
        }
        if better(val.v, self.s[1].v) {
            self.s[2] = val;
            self.s[1] = val;
        } else if better(val.v, self.s[2].v) {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// As time advances, promotes the runners-up (`minmax_subwin_update`).
    fn subwin_update(&mut self, win: u64, val: Sample<V>) -> V {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best aged out without a new one: the 2nd becomes the best, the 3rd the 2nd;
            // twice if the 2nd is also out of the window (the 3rd is in it, checked on entry).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a new 2nd choice: take one from the 2nd quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window without a new 3rd choice: take one from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

/// BBRv1's minimum-RTT estimate over `bbr_min_rtt_win_sec` (`min_rtt_us`, `min_rtt_stamp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinRtt {
    /// The estimate; `None` before the first sample (the kernel's `~0U`).
    pub min_rtt: Option<SimTime>,
    /// When the estimate was last set.
    pub stamp: SimTime,
}

impl MinRtt {
    pub fn new(min_rtt: Option<SimTime>, now: SimTime) -> Self {
        MinRtt { min_rtt, stamp: now }
    }

    /// Has the estimate gone unrefreshed for longer than `win` (`filter_expired`)?
    pub fn expired(&self, now: SimTime, win: SimTime) -> bool {
        now > self.stamp + win
    }

    /// An RTT sample at `now`: taken if lower, or if the estimate expired (`expired`, as
    /// computed before the sample). `delayed`: the ACK may have been delayed
    /// (`is_ack_delayed`), so its RTT does not replace an expired estimate. Returns
    /// whether the estimate changed.
    pub fn update(&mut self, now: SimTime, rtt: SimTime, expired: bool, delayed: bool) -> bool {
        let lower = self.min_rtt.is_none_or(|m| rtt < m);
        if lower || (expired && !delayed) {
            self.min_rtt = Some(rtt);
            self.stamp = now;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    #[test]
    fn a_max_filter_keeps_the_best_of_the_window_and_promotes_the_runner_up_when_it_ages_out() {
        let mut f = Minmax::new(0, 100u64);
        // Lower samples in later rounds become the 2nd and 3rd choices.
        assert_eq!(f.running_max(10, 3, 80), 100); // dt 3 > 10/4: 2nd choice from the 2nd quarter
        assert_eq!(f.s[1], Sample { t: 3, v: 80 });
        assert_eq!(f.running_max(10, 6, 70), 100); // dt 6 > 10/2: 3rd choice from the last half
        assert_eq!(f.s[2], Sample { t: 6, v: 70 });
        assert_eq!(f.running_max(10, 10, 60), 100, "round 10 is still within 10 rounds of round 0");
        // Round 11: 100 (round 0) is out; 80 (round 3) is the max now, 70 the 2nd.
        assert_eq!(f.running_max(10, 11, 50), 80);
        assert_eq!(f.s, [Sample { t: 3, v: 80 }, Sample { t: 6, v: 70 }, Sample { t: 11, v: 50 }]);
        // A sample as good as the best resets the filter to it.
        assert_eq!(f.running_max(10, 12, 80), 80);
        assert_eq!(f.s, [Sample { t: 12, v: 80 }; 3]);
    }

    #[test]
    fn a_filter_whose_youngest_choice_left_the_window_starts_over() {
        let mut f = Minmax::new(0, 100u64);
        assert_eq!(f.running_max(10, 25, 1), 1, "nothing left within 10 rounds of round 25");
        let mut m = Minmax::new(0, 5.0f64);
        assert_eq!(m.running_min(10, 4, 7.0), 5.0);
        assert_eq!(m.running_min(10, 5, 4.0), 4.0, "a new min resets");
        assert_eq!(m.running_min(10, 30, 9.0), 9.0);
    }

    #[test]
    fn the_best_and_second_choice_both_out_of_the_window_promote_the_third() {
        let mut f = Minmax { s: [Sample { t: 0, v: 10u64 }, Sample { t: 2, v: 9 }, Sample { t: 9, v: 8 }] };
        // At 13: the best (0) and the 2nd (2) are more than 10 old, the 3rd (9) is not.
        assert_eq!(f.running_max(10, 13, 1), 8);
        assert_eq!(f.s, [Sample { t: 9, v: 8 }, Sample { t: 13, v: 1 }, Sample { t: 13, v: 1 }]);
    }

    #[test]
    fn the_min_rtt_takes_a_lower_sample_at_once_and_any_sample_once_expired() {
        let win = SimTime(10_000 * MS);
        let mut m = MinRtt::new(None, SimTime::ZERO);
        assert!(m.update(SimTime(5 * MS), SimTime(50 * MS), false, false), "the first sample");
        assert!(!m.update(SimTime(6 * MS), SimTime(60 * MS), m.expired(SimTime(6 * MS), win), false));
        assert!(m.update(SimTime(7 * MS), SimTime(40 * MS), false, false));
        assert_eq!(m.min_rtt, Some(SimTime(40 * MS)));
        // Exactly 10 s after its stamp it is not expired yet; 1 ps later it is.
        assert!(!m.expired(SimTime(10_007 * MS), win));
        let t = SimTime(10_007 * MS + 1);
        assert!(m.expired(t, win));
        assert!(!m.update(t, SimTime(90 * MS), true, true), "a delayed ACK's RTT does not refresh it");
        assert!(m.update(t, SimTime(90 * MS), true, false));
        assert_eq!((m.min_rtt, m.stamp), (Some(SimTime(90 * MS)), t));
    }
}
