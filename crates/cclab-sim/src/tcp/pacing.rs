//! Pacing in the sender, as Linux's earliest departure time (`tcp_wstamp_ns`, and
//! `time_next_packet` in the `fq` qdisc): each data segment that leaves at `now`
//! sets the earliest departure of the next to `max(now, previous) + size / rate`,
//! so a backlogged sender's segments leave exactly wire size / rate apart and an
//! idle one does not bank credit for a burst.
//!
//! A sender that must wait records when it may send again (`deadline`); the
//! simulation turns that into one `Pace` event. Without a rate nothing waits,
//! and no event is ever asked for.

use crate::units::{Rate, SimTime};

#[derive(Clone, Copy, Debug, Default)]
pub struct Pacer {
    /// Wire bits per second; `None`: not paced.
    pub rate: Option<Rate>,
    /// The earliest time the next data segment may leave.
    next_tx_time: SimTime,
    /// When a sender held back by pacing may send again, if it is waiting.
    pub deadline: Option<SimTime>,
    /// The last slot computed, `(rate, bytes, size / rate)`: the rate changes far less often
    /// than segments leave, and the division is a 128-bit one.
    slot: Option<(Rate, u32, SimTime)>,
}

impl Pacer {
    /// Sets the rate (`None`: stop pacing). A rate of 0 would hold every segment forever;
    /// it is taken as the slowest there is, 1 bit/s.
    pub fn set_rate(&mut self, rate: Option<Rate>) {
        self.rate = rate.map(|r| Rate(r.0.max(1)));
    }

    /// May a data segment leave at `now`? If not, records the deadline to wake up at.
    #[inline]
    pub fn may_send(&mut self, now: SimTime) -> bool {
        if self.rate.is_none() || now >= self.next_tx_time {
            return true;
        }
        self.deadline = Some(self.next_tx_time);
        false
    }

    /// The earliest time the next data segment may leave (Linux `tcp_wstamp_ns`).
    pub fn next_tx_time(&self) -> SimTime {
        self.next_tx_time
    }

    /// A data segment of `bytes` on the wire left at `now`.
    #[inline]
    pub fn on_xmit(&mut self, now: SimTime, bytes: u32) {
        if let Some(r) = self.rate {
            let slot = match self.slot {
                Some((sr, sb, t)) if (sr, sb) == (r, bytes) => t,
                _ => {
                    let t = r.tx_time(bytes);
                    self.slot = Some((r, bytes, t));
                    t
                }
            };
            self.next_tx_time = now.max(self.next_tx_time) + slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backlogged_sender_waits_size_over_rate_and_an_idle_one_does_not_bank_credit() {
        let mut p = Pacer::default();
        assert!(p.may_send(SimTime(5)), "unpaced: never waits");
        p.set_rate(Some(Rate(12_000_000))); // 1500 B per ms
        assert!(p.may_send(SimTime::ZERO));
        p.on_xmit(SimTime::ZERO, 1500);
        assert!(!p.may_send(SimTime(999_999_999)));
        assert_eq!(p.deadline, Some(SimTime(1_000_000_000)));
        // Idle for 10 ms: the next segment leaves at once, the one after 1 ms later.
        assert!(p.may_send(SimTime(10_000_000_000)));
        p.on_xmit(SimTime(10_000_000_000), 1500);
        assert!(!p.may_send(SimTime(10_500_000_000)));
        assert_eq!(p.deadline, Some(SimTime(11_000_000_000)));
    }

    #[test]
    fn a_zero_rate_is_the_slowest_rate_not_a_division_by_zero() {
        let mut p = Pacer::default();
        p.set_rate(Some(Rate(0)));
        p.on_xmit(SimTime::ZERO, 1);
        assert!(!p.may_send(SimTime(1)));
    }
}
