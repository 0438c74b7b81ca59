//! ns-2's delayed send (`overhead_`; tcp.cc and tcp-sack1.cc `send_much()`, `delsnd_timer_`),
//! the `ns2` profile's send overhead (`SendOverhead::DelayedSend`).
//!
//! ns-2 added the random overhead to break the phase effects of drop-tail queues (Floyd and
//! Jacobson, "On traffic phase effects in packet-switched gateways", 1992). Its semantics
//! decide how many packets a flow puts into a slow-start overshoot, so they are followed
//! exactly, in the sender:
//! - when the window lets a packet out and no delayed send is pending, nothing is sent: a
//!   delay uniform in [0, overhead] is drawn (the simulation draws it from the flow's
//!   stream) and the sender waits;
//! - while it is pending, a call to send sends nothing (`!force && TIMER_PENDING`);
//! - when it fires, the sender sends everything the window allows *then*
//!   (`send_much(1, ...)`), back to back: the window is looked at again, so a reduction that
//!   came meanwhile (a fast retransmit) sends less, and ACKs that came meanwhile send more;
//! - a fast retransmission, a partial ACK's retransmission and a limited-transmit segment
//!   (`send_one()`) do not wait: ns-2 sends them with `output()` directly.

use super::Sender;
use crate::packet::Packet;
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct DelayedSend {
    /// Bound of the random delay; zero: no delayed send (every other profile, or no overhead).
    pub overhead: SimTime,
    /// When the pending delayed send fires (`delsnd_timer_` pending).
    pub deadline: Option<SimTime>,
    /// The window let a packet out while no delay was pending: a delay is to be drawn.
    pub requested: bool,
    /// The delay fired: the current call sends what the window allows (`force`).
    open: bool,
}

impl DelayedSend {
    /// Is ns-2's delayed send in force for this flow?
    #[inline]
    pub fn is_on(&self) -> bool {
        self.overhead > SimTime::ZERO
    }

    /// May a segment the window lets out leave now? If not and no delay is pending, asks
    /// for one (`requested`).
    #[inline]
    pub fn may_send(&mut self) -> bool {
        if !self.is_on() || self.open {
            return true;
        }
        if self.deadline.is_none() {
            self.requested = true;
        }
        false
    }

    /// Is this call of send the one the delay's end made (ns-2's `send_much(1, ...)`)?
    #[inline]
    pub fn fired(&self) -> bool {
        self.open
    }

    /// The delay drawn for the request: the sender sends when `at` comes.
    pub fn arm(&mut self, at: SimTime) {
        self.deadline = Some(at);
        self.requested = false;
    }
}

impl Sender {
    /// May a data segment the window lets out leave now (the delayed send, then pacing)?
    #[inline]
    pub(super) fn may_leave(&mut self, now: SimTime) -> bool {
        self.delsnd.may_send() && self.pacer.may_send(now)
    }

    /// When the sender wants to be woken to send: the pacing timer or the delayed send.
    pub fn send_deadline(&self) -> Option<SimTime> {
        match (self.pacer.deadline, self.delsnd.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The pacing timer or the delayed send fired: send what waited for it.
    pub fn on_pace_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.pacer.deadline.is_some_and(|d| d <= now) {
            self.pacer.deadline = None;
        }
        let fired = self.delsnd.deadline.is_some_and(|d| d <= now);
        if fired {
            self.delsnd.deadline = None;
            self.delsnd.open = true;
        }
        self.send(now, out);
        self.delsnd.open = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000; // picoseconds

    #[test]
    fn a_send_asks_for_one_delay_and_waits_for_it_to_fire() {
        let mut d = DelayedSend { overhead: SimTime(MS), ..Default::default() };
        assert!(!d.may_send() && d.requested, "the first send waits and asks for a delay");
        d.arm(SimTime(MS / 2));
        assert!(!d.may_send() && !d.requested, "pending: no second delay");
        d.deadline = None;
        d.open = true;
        assert!(d.may_send() && d.may_send(), "fired: everything the window allows leaves");
    }

    #[test]
    fn without_overhead_nothing_waits() {
        let mut d = DelayedSend::default();
        assert!(d.may_send() && !d.requested && d.deadline.is_none());
    }
}
