//! The simulation's side of the link mechanics: the link (`net::link`) decides what
//! becomes of a packet and when it leaves; here its answers become events, and drops are
//! counted against their flow. Events are scheduled in the order the link gives them.

use super::Simulation;
use crate::engine::Event;
use crate::net::link::Arrival;
use crate::packet::{Kind, Packet};
use crate::queue::DropCause;

impl Simulation {
    pub(super) fn link_arrive(&mut self, l: u32, p: Packet) {
        match self.links[l as usize].arrive(self.now, p) {
            Arrival::Dropped(p, cause) => self.count_drop(&p, cause),
            Arrival::StartTx => self.start_tx(l),
            Arrival::Queued(Some(t)) => self.events.push(t, Event::LinkReady(l)),
            Arrival::Queued(None) => {}
        }
    }

    pub(super) fn count_drop(&mut self, p: &Packet, _cause: DropCause) {
        match p.kind {
            Kind::Data => self.flows[p.flow as usize].counters.data_drops += 1,
            Kind::Ack => self.flows[p.flow as usize].counters.ack_drops += 1,
            Kind::Udp => self.udp[p.flow as usize].drops += 1,
        }
    }

    /// Puts the link's next packet on the wire and schedules what that asks for; packets
    /// the queue dropped at its head on the way count against their flows.
    pub(super) fn start_tx(&mut self, l: u32) {
        let tx = self.links[l as usize].start_tx(self.now);
        if !self.links[l as usize].head_drops.is_empty() {
            let mut drops = std::mem::take(&mut self.links[l as usize].head_drops);
            for (p, cause) in drops.drain(..) {
                self.count_drop(&p, cause);
            }
            self.links[l as usize].head_drops = drops;
        }
        let Some(tx) = tx else {
            return;
        };
        if let Some(t) = tx.ready_at {
            self.events.push(t, Event::LinkReady(l));
        }
        if let Some(t) = tx.wire_head_at {
            self.events.push(t, Event::WireHead(l));
        }
    }

    pub(super) fn wire_head(&mut self, l: u32) {
        let (p, next) = self.links[l as usize].wire_pop();
        if let Some(t) = next {
            self.events.push(t, Event::WireHead(l));
        }
        self.forward(p);
    }
}
