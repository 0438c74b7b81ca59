//! Proportional Rate Reduction (RFC 6937) as Linux applies it in SACK recovery
//! (net/ipv4/tcp_input.c `tcp_init_cwnd_reduction()`, `tcp_cwnd_reduction()`).
//!
//! Instead of halving the window at once and then waiting for half a window of
//! ACKs (RFC 6675), PRR spreads the reduction over the round trip: while more
//! than ssthresh is in flight, it sends ssthresh/prior_cwnd packets per packet
//! delivered (the proportional part); once in flight falls below ssthresh (more
//! losses, or an application stall) it sends as much as was delivered, plus one
//! when the ACK advanced snd_una without new losses, so that the window climbs
//! back to ssthresh (Linux's form of the RFC's slow-start reduction bound).
//! The window each ACK leaves is pipe + sndcnt; the sender then sends while
//! pipe < cwnd, holes first.
//!
//! Linux's arithmetic is in whole packets; cwnd and ssthresh are `f64` here, and
//! the quotient is rounded up as the kernel's `dividend + prior_cwnd - 1` does.

/// The state of one recovery episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prr {
    /// The window when recovery began (`prior_cwnd`; RFC 6937's RecoverFS is the flight
    /// size instead; Linux uses the window).
    prior_cwnd: f64,
    /// Packets delivered (cumulatively or SACKed) since recovery began (`prr_delivered`).
    delivered: u64,
    /// Packets sent since recovery began, retransmissions included (`prr_out`).
    pub out: u64,
}

impl Prr {
    /// Recovery begins with the window `cwnd` (`tcp_init_cwnd_reduction`).
    pub fn start(cwnd: f64) -> Self {
        Prr { prior_cwnd: cwnd.max(1.0), delivered: 0, out: 0 }
    }

    /// The window after an ACK that delivered `newly_acked_sacked` packets, with `pipe`
    /// packets in flight after it; `una_advanced`: the ACK moved snd_una; `newly_lost`:
    /// it marked segments lost. `None`: the ACK delivered nothing and the window stays.
    pub fn on_ack(
        &mut self,
        ssthresh: f64,
        pipe: u64,
        newly_acked_sacked: u64,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<f64> {
        if newly_acked_sacked == 0 {
            return None;
        }
        self.delivered += newly_acked_sacked;
        let (delivered, out, pipe) = (self.delivered as f64, self.out as f64, pipe as f64);
        let delta = ssthresh - pipe;
        let sndcnt = if delta < 0.0 {
            // RFC 6937: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            (ssthresh * delivered / self.prior_cwnd).ceil() - out
        } else {
            let bound = (delivered - out).max(newly_acked_sacked as f64);
            let bound = if una_advanced && !newly_lost { bound + 1.0 } else { bound };
            delta.min(bound)
        };
        // The first ACK of the episode always lets the fast retransmission out.
        let sndcnt = sndcnt.max(if self.out == 0 { 1.0 } else { 0.0 });
        Some(pipe + sndcnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn above_ssthresh_it_sends_ssthresh_over_prior_cwnd_per_delivered_packet() {
        // cwnd 20 -> ssthresh 10: one packet out per two delivered.
        let mut p = Prr::start(20.0);
        let mut sent = 0;
        let mut pipe = 19; // one segment lost, 19 still in flight
        for k in 1..=8u64 {
            pipe -= 1; // each duplicate ACK: one more packet left the network
            let cwnd = p.on_ack(10.0, pipe, 1, false, false).unwrap();
            let sndcnt = (cwnd - pipe as f64) as u64;
            p.out += sndcnt;
            pipe += sndcnt;
            sent += sndcnt;
            // ceil(10 k / 20) packets sent after k delivered (the first forced out).
            assert_eq!(sent, (10 * k).div_ceil(20).max(1), "after {k} delivered");
        }
    }

    #[test]
    fn below_ssthresh_it_sends_what_was_delivered_plus_one_on_a_clean_cumulative_ack() {
        let mut p = Prr::start(20.0);
        p.out = 5;
        // ssthresh 10, pipe 4: room 6; 3 delivered (8 in all against 5 out) -> max(3, 3) + 1.
        p.delivered = 5;
        assert_eq!(p.on_ack(10.0, 4, 3, true, false), Some(4.0 + 4.0));
        // The same ACK with a new loss: no +1.
        let mut q = Prr { delivered: 5, ..Prr::start(20.0) };
        q.out = 5;
        assert_eq!(q.on_ack(10.0, 4, 3, true, true), Some(4.0 + 3.0));
        // Never beyond ssthresh: room 1.
        let mut r = Prr { delivered: 5, ..Prr::start(20.0) };
        r.out = 5;
        assert_eq!(r.on_ack(10.0, 9, 3, true, false), Some(10.0));
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_the_window() {
        let mut p = Prr::start(20.0);
        assert_eq!(p.on_ack(10.0, 19, 0, false, false), None);
        assert_eq!(p.delivered, 0);
    }
}
