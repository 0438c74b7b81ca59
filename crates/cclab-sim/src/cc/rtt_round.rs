//! Round trips counted by the algorithm itself, for algorithms that act once per RTT
//! (Vegas, FAST).
//!
//! Linux marks a round by `snd_nxt` when it starts and ends it when an ACK passes that
//! mark (`beg_snd_nxt` in `tcp_vegas.c`). The sender here does not show sequence numbers
//! to the algorithm, so the same boundary is found from time: a round that started at T
//! ends with the first ACK whose RTT sample says the acknowledged segment left at or
//! after T (`now - rtt >= T`). The segments sent at or after T are exactly those at or
//! above `snd_nxt(T)`, so the two rules agree whenever the ACK carries an RTT sample:
//! always with timestamps (the default); without them, ACKs of retransmitted segments
//! (Karn's rule) cannot close a round and the next ACK with a sample does.

use crate::units::SimTime;

/// The current round: when it started and how many have ended.
#[derive(Clone, Copy, Debug, Default)]
pub struct RttRound {
    start: SimTime,
    /// Rounds completed since the start of the connection.
    pub completed: u64,
}

impl RttRound {
    /// Starts a new round now: the next to end is the one of the segments sent from now on.
    pub fn restart(&mut self, now: SimTime) {
        self.start = now;
    }

    /// Takes one ACK with its RTT sample; true if it closes the round, and then the
    /// next round starts now.
    pub fn on_ack(&mut self, now: SimTime, rtt: Option<SimTime>) -> bool {
        match rtt {
            Some(r) if now.saturating_sub(r) >= self.start => {
                self.start = now;
                self.completed += 1;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn a_round_ends_with_the_ack_of_the_first_segment_sent_after_it_began() {
        let mut r = RttRound::default();
        r.restart(ms(100));
        // Segments sent at 60..99 ms are acknowledged 50 ms later: still the old round.
        assert!(!r.on_ack(ms(110), Some(ms(50))));
        assert!(!r.on_ack(ms(149), Some(ms(50))));
        // The segment sent at 100 ms closes it, and the next round starts at 150 ms.
        assert!(r.on_ack(ms(150), Some(ms(50))));
        assert!(!r.on_ack(ms(151), Some(ms(50))));
        assert!(r.on_ack(ms(200), Some(ms(50))));
        assert_eq!(r.completed, 2);
    }

    #[test]
    fn an_ack_without_an_rtt_sample_never_closes_a_round() {
        let mut r = RttRound::default();
        r.restart(ms(100));
        assert!(!r.on_ack(ms(500), None));
    }
}
