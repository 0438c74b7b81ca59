//! Linux's retransmission timeout (net/ipv4/tcp_input.c `tcp_rtt_estimator()`,
//! `tcp_set_rto()`; include/net/tcp.h `__tcp_set_rto()`).
//!
//! Linux departs from RFC 6298 in three ways that decide when a timer fires:
//! - the minimum RTO is not a floor on the timeout but on the variance term:
//!   RTO = SRTT + max(4 x mdev, rto_min), so the timeout is at least 200 ms
//!   *above* the smoothed RTT, not 200 ms in all;
//! - the variance term is the largest mdev of the last round trip (`mdev_max`),
//!   decayed by a quarter of its excess once per round trip (`rttvar`);
//! - a sample below SRTT moves mdev with gain 1/32 instead of 1/4 (the Eifel-like
//!   rule in the kernel's comment), so a falling RTT does not inflate the RTO.
//!
//! The kernel's fixed-point units are kept: microseconds, SRTT scaled by 8, mdev
//! by 4, the shifts truncating as they do there; the timeout is then rounded up
//! to a whole millisecond (`usecs_to_jiffies` with HZ = 1000).

/// The estimator's state (`tcp_sock` `srtt_us`, `mdev_us`, `mdev_max_us`, `rttvar_us`,
/// `rtt_seq`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxRto {
    /// 8 x SRTT, microseconds; 0 before the first sample.
    srtt: i64,
    /// 4 x the mean deviation, microseconds.
    mdev: i64,
    /// The largest `mdev` since `rtt_seq` was set, at least rto_min.
    mdev_max: i64,
    /// The variance term of the RTO, microseconds.
    rttvar: i64,
    /// snd_nxt when the current measurement round began.
    rtt_seq: u64,
    /// `tcp_rto_min_us`, microseconds.
    rto_min: i64,
}

impl LinuxRto {
    pub fn new(rto_min_us: i64) -> Self {
        LinuxRto { rto_min: rto_min_us, ..Default::default() }
    }

    /// One RTT sample `m` (microseconds) on an ACK that leaves snd_una at `una` with
    /// snd_nxt at `nxt` (`tcp_rtt_estimator`).
    pub fn sample(&mut self, m: i64, una: u64, nxt: u64) {
        let m = m.max(1);
        if self.srtt != 0 {
            let err = m - (self.srtt >> 3);
            self.srtt += err;
            let step = if err < 0 {
                let e = -err - (self.mdev >> 2);
                // A falling RTT moves mdev with gain 1/32, not 1/4.
                if e > 0 {
                    e >> 3
                } else {
                    e
                }
            } else {
                err - (self.mdev >> 2)
            };
            self.mdev += step;
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if una > self.rtt_seq {
                // Once per round trip: rttvar decays towards the round's largest mdev.
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = nxt;
                self.mdev_max = self.rto_min;
            }
        } else {
            self.srtt = m << 3;
            self.mdev = m << 1; // RTO = 3 x the first sample
            self.rttvar = self.mdev.max(self.rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = nxt;
        }
        self.srtt = self.srtt.max(1);
    }

    /// The timeout before backoff, seconds (`__tcp_set_rto`, whole milliseconds up).
    pub fn rto(&self) -> f64 {
        let us = (self.srtt >> 3) + self.rttvar;
        ((us + 999) / 1000) as f64 / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sample_gives_three_rtts_but_never_less_than_rtt_plus_rto_min() {
        let mut long = LinuxRto::new(200_000);
        long.sample(150_000, 1, 10);
        assert_eq!(long.rto(), 0.45, "150 ms + 2 x 150 ms");
        let mut short = LinuxRto::new(200_000);
        short.sample(10_000, 1, 10);
        assert_eq!(short.rto(), 0.21, "10 ms + rto_min 200 ms, where RFC 6298 gives 200 ms");
    }

    #[test]
    fn a_falling_rtt_barely_moves_the_deviation_and_a_rising_one_moves_it_by_a_quarter() {
        let mut e = LinuxRto::new(0);
        e.sample(100_000, 1, 10);
        let mdev = e.mdev;
        e.sample(20_000, 1, 10); // 80 ms below: |err| - mdev/4 = 80 - 50 ms, / 8
        assert_eq!(e.mdev - mdev, (80_000 - mdev / 4) / 8);
        let mut f = LinuxRto::new(0);
        f.sample(100_000, 1, 10);
        f.sample(180_000, 1, 10); // 80 ms above: + (80 - 50) ms
        assert_eq!(f.mdev - mdev, 80_000 - mdev / 4);
    }

    #[test]
    fn the_variance_term_decays_once_per_round_trip_towards_the_rounds_largest_deviation() {
        let mut e = LinuxRto::new(200_000);
        e.sample(300_000, 1, 10); // mdev 600 ms; rttvar = max(600, 200) ms; round ends past 10
        e.sample(300_000, 5, 20); // mdev 600 - 150 = 450 ms; same round: no decay
        assert_eq!((e.mdev, e.rttvar), (450_000, 600_000));
        e.sample(300_000, 11, 30); // mdev 337.5 ms; new round, mdev_max (600) not below rttvar
        assert_eq!((e.mdev, e.rttvar, e.mdev_max), (337_500, 600_000, 200_000));
        e.sample(300_000, 31, 40); // mdev 253.125 ms is the round's max: rttvar -= (600 - 253.125) / 4
        assert_eq!((e.mdev, e.rttvar), (253_125, 600_000 - (346_875 >> 2)));
        assert_eq!(e.rto(), 0.814, "300 ms + 513.282 ms, rounded up to the millisecond");
    }
}
