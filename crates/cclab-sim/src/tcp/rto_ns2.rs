//! ns-2.35's retransmission timeout: RFC 6298's estimator in integer clock ticks.
//!
//! ns-2's `Agent/TCP` (tcp/tcp.cc `rtt_update()`, `rtt_timeout()`,
//! `rtt_backoff()`) keeps SRTT and RTTVAR as integers of `tcpTick_` (10 ms by
//! default) with 3 and 2 fraction bits (`T_SRTT_BITS`, `T_RTTVAR_BITS`), counts
//! an RTT sample as the tick boundaries it crosses, clamps the timeout to
//! `minrto_` before the backoff (RFC 2988 as corrected by Tom Kelly), to
//! `maxrto_` after it and to two ticks at least, and once backed off more than
//! 8 times moves SRTT into RTTVAR so that the next sample starts afresh.
//!
//! ns-2 offsets each agent's tick boundaries by `boot_time_`, uniform in [0, tick) and
//! drawn when the agent is reset (tcp.cc `reset()`), so that flows started together do not
//! share a clock; the offset shifts the send time whose phase decides how many boundaries
//! a sample crosses. Here it comes from a random stream of its own per flow
//! (`rng::stream::TCP_CLOCK`), so that no other source's numbers move.

/// ns-2's `rttvar_exp_`: the timeout is SRTT + 2^2 RTTVAR.
const RTTVAR_EXP: u32 = 2;
const T_SRTT_BITS: u32 = 3;
const T_RTTVAR_BITS: u32 = 2;

#[derive(Clone, Copy, Debug)]
pub struct Ns2Rto {
    /// `tcp_tick_`, seconds.
    tick: f64,
    /// 8 x SRTT in ticks (`t_srtt_`); 0 before the first sample or after clobbering.
    t_srtt: i32,
    /// 4 x RTTVAR in ticks (`t_rttvar_`).
    t_rttvar: i32,
    /// The timeout before backoff and bounds, seconds (`t_rtxcur_`).
    t_rtxcur: f64,
    /// The agent's clock offset, seconds (`boot_time_`).
    boot: f64,
}

impl Ns2Rto {
    pub fn new(tick: f64, initial: f64, boot: f64) -> Self {
        Ns2Rto { tick, t_srtt: 0, t_rttvar: 0, t_rtxcur: initial, boot }
    }

    /// One RTT sample `tao` of a segment sent at `sent_at` (seconds).
    pub fn sample(&mut self, tao: f64, sent_at: f64) {
        let tickoff = (sent_at + self.boot) % self.tick;
        let t_rtt = (((tao + tickoff) / self.tick) as i32).max(1);
        if self.t_srtt != 0 {
            // ns-2 holds delta in a `short`.
            let mut delta = (t_rtt - (self.t_srtt >> T_SRTT_BITS)) as i16 as i32;
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> T_RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << T_SRTT_BITS;
            self.t_rttvar = t_rtt << (T_RTTVAR_BITS - 1);
        }
        let ticks = ((self.t_rttvar << (RTTVAR_EXP + T_SRTT_BITS - T_RTTVAR_BITS)) + self.t_srtt) >> T_SRTT_BITS;
        self.t_rtxcur = ticks as f64 * self.tick;
    }

    /// The timeout with `backoff` doublings (`t_backoff_` = 2^backoff), seconds.
    pub fn timeout(&self, backoff: u32, min: f64, max: f64) -> f64 {
        let t_backoff = f64::from(1u32 << backoff.min(30));
        let t = if self.t_rtxcur < min { min * t_backoff } else { self.t_rtxcur * t_backoff };
        t.min(max).max(2.0 * self.tick)
    }

    /// A timeout backed off past 8 (`rtt_backoff()`): SRTT is folded into RTTVAR and cleared.
    pub fn on_backoff(&mut self, backoff: u32) {
        if backoff > 3 {
            self.t_rttvar += self.t_srtt >> T_SRTT_BITS;
            self.t_srtt = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_counted_in_ticks_and_smoothed_in_fixed_point() {
        let mut r = Ns2Rto::new(0.01, 3.0, 0.0);
        assert_eq!(r.timeout(0, 0.2, 60.0), 3.0, "rtxcur_init_ before any sample");
        // 104 ms sent at a tick boundary: 10 ticks; srtt 80/8 = 10, rttvar 10 << 1 = 20 (5 ticks):
        // rtxcur = (20 << 3 + 80) >> 3 = 30 ticks. (As with ns-2's fmod, 1.0 % 0.01 is a hair
        // under a tick in binary floating point, so "boundaries" are tested at t = 0.)
        r.sample(0.104, 0.0);
        assert_eq!((r.t_srtt, r.t_rttvar), (80, 20));
        assert!((r.t_rtxcur - 0.30).abs() < 1e-12);
        // The same RTT sent 7 ms after a boundary crosses 11 boundaries: delta 1, srtt 81,
        // rttvar 20 + (1 - 5) = 16; rtxcur = (16 << 3 + 81) >> 3 = 26 ticks.
        r.sample(0.104, 0.007);
        assert_eq!((r.t_srtt, r.t_rttvar), (81, 16));
        assert!((r.t_rtxcur - 0.26).abs() < 1e-12);
        // Below minrto_ the floor applies before the backoff: 0.2 x 2 = 0.4 s, not 0.26 x 2.
        let mut low = Ns2Rto::new(0.01, 3.0, 0.0);
        low.sample(0.02, 0.0);
        assert_eq!(low.timeout(1, 0.2, 60.0), 0.4);
        assert_eq!(low.timeout(10, 0.2, 60.0), 60.0, "maxrto_");
    }

    #[test]
    fn the_agents_clock_offset_moves_the_tick_boundaries() {
        // boot_time_ 7 ms: a send at t = 0 is 7 ms past the agent's boundary, so 104 ms
        // crosses 11 boundaries, as a send at 7 ms does with no offset.
        let (mut a, mut b) = (Ns2Rto::new(0.01, 3.0, 0.007), Ns2Rto::new(0.01, 3.0, 0.0));
        a.sample(0.104, 0.0);
        b.sample(0.104, 0.007);
        assert_eq!((a.t_srtt, a.t_rttvar), (88, 22));
        assert_eq!((a.t_srtt, a.t_rttvar), (b.t_srtt, b.t_rttvar));
    }

    #[test]
    fn a_ninth_backoff_clears_srtt_into_rttvar() {
        let mut r = Ns2Rto::new(0.01, 3.0, 0.0);
        r.sample(0.104, 0.0);
        r.on_backoff(3);
        assert_eq!((r.t_srtt, r.t_rttvar), (80, 20), "t_backoff_ 8: kept");
        r.on_backoff(4);
        assert_eq!((r.t_srtt, r.t_rttvar), (0, 30), "t_backoff_ 16: rttvar += srtt, srtt = 0");
    }
}
