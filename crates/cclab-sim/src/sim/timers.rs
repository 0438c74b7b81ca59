//! The flows' timers as events: the sender's retransmission and pacing timers and the
//! receiver's delayed-ACK timer are deadlines the endpoints expose; here each becomes at
//! most one pending event, re-armed lazily.

use super::Simulation;
use crate::engine::Event;
use crate::units::SimTime;
use rand::Rng;

impl Simulation {
    /// Schedules the flow's timers lazily: an event only when none is pending
    /// before the deadline. A timer pushed later by an ACK just fires early,
    /// finds its deadline in the future, and re-schedules itself once.
    pub(super) fn sync_timers(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.sender.delsnd.requested {
            // ns-2's delayed send asked for its delay (tcp/delayed_send.rs).
            let d = fl.rng.gen_range(0..=fl.sender.delsnd.overhead.0);
            fl.sender.delsnd.arm(SimTime(self.now.0 + d));
        }
        if let Some(d) = fl.sender.rto_deadline {
            if fl.rto_event_at.is_none_or(|t| t > d) {
                fl.rto_event_at = Some(d);
                self.events.push(d, Event::Rto(f));
            }
        }
        if let Some(d) = fl.receiver.delack_deadline {
            if fl.delack_event_at.is_none_or(|t| t > d) {
                fl.delack_event_at = Some(d);
                self.events.push(d, Event::DelAck(f));
            }
        }
        if let Some(d) = fl.sender.send_deadline() {
            if fl.pace_event_at.is_none_or(|t| t > d) {
                fl.pace_event_at = Some(d);
                self.events.push(d, Event::Pace(f));
            }
        }
    }

    pub(super) fn pace_event(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.pace_event_at == Some(now) {
            fl.pace_event_at = None;
        }
        if fl.sender.send_deadline().is_some_and(|d| d <= now) {
            let mut out = std::mem::take(&mut self.out);
            fl.sender.on_pace_timer(now, &mut out);
            self.emit(&mut out);
            self.out = out;
        }
        self.sync_timers(f);
    }

    pub(super) fn rto_event(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.rto_event_at == Some(now) {
            fl.rto_event_at = None;
        }
        match fl.sender.rto_deadline {
            Some(d) if d <= now => {
                let timer = fl.sender.timer;
                if self.trace.is_some() {
                    self.trace_timer(f);
                }
                let mut out = std::mem::take(&mut self.out);
                self.flows[f as usize].sender.on_timer(now, &mut out);
                self.emit(&mut out);
                self.out = out;
                if self.trace.is_some() {
                    self.trace_timer_done(f, timer);
                }
            }
            _ => {}
        }
        self.sync_timers(f);
    }

    pub(super) fn delack_event(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.delack_event_at == Some(now) {
            fl.delack_event_at = None;
        }
        if let Some(d) = fl.receiver.delack_deadline {
            if d <= now {
                if let Some(mut ack) = fl.receiver.on_delack_timer(now) {
                    ack.hop = 0;
                    self.forward(ack);
                }
            }
        }
        self.sync_timers(f);
    }
}
