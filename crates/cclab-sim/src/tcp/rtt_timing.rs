//! ns-2's RTT measurement without timestamps: one segment timed at a time.
//!
//! ns-2's `Agent/TCP` (tcp/tcp.cc `output()`, `newack()`, `reset_rtx_timer()`)
//! starts timing a new segment only when none is being timed, takes a sample
//! when a cumulative ACK covers it, and forgets the measurement whenever it
//! retransmits anything (fast retransmit or timeout). So it gets at most one
//! sample per round trip and never one from retransmitted data. cclab's own
//! rule (tcp/sender.rs) samples on every ACK instead.
//!
//! Not modelled: ns-2's NewReno ends a measurement without a sample when a
//! partial ACK covers the timed segment (tcp-newreno.cc `partialnewack()`); a
//! segment sent during recovery is then timed here and sampled at recovery's end.

use crate::units::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct TimedSegment {
    /// The segment being timed and when it left.
    timing: Option<(u64, SimTime)>,
}

impl TimedSegment {
    /// A segment leaves: a new one is timed if none is; a retransmission cancels the timing.
    pub fn on_xmit(&mut self, seq: u64, retx: bool, now: SimTime) {
        if retx {
            self.timing = None;
        } else if self.timing.is_none() {
            self.timing = Some((seq, now));
        }
    }

    /// A cumulative ACK of every segment below `ack`: the timed segment's RTT if it is covered.
    pub fn on_ack(&mut self, ack: u64, now: SimTime) -> Option<SimTime> {
        match self.timing {
            Some((seq, at)) if ack > seq => {
                self.timing = None;
                Some(now.saturating_sub(at))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_is_timed_until_its_ack_and_a_retransmission_forgets_it() {
        let ms = SimTime::from_millis;
        let mut t = TimedSegment::default();
        t.on_xmit(0, false, ms(0));
        t.on_xmit(1, false, ms(1)); // not timed: segment 0 is
        assert_eq!(t.on_ack(1, ms(50)), Some(ms(50)));
        assert_eq!(t.on_ack(2, ms(51)), None, "segment 1 was never timed");
        t.on_xmit(2, false, ms(60));
        t.on_xmit(1, true, ms(70)); // a retransmission: the measurement is lost
        assert_eq!(t.on_ack(3, ms(120)), None);
    }
}
