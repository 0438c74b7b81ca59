//! Link mechanics of the simulation: a packet arriving at a link (random loss, the queue's
//! verdict, a transmitter that is idle or busy), its transmission, and the wire's head. See
//! `net::link` for why the wire is a FIFO with only its head in the event queue and why an
//! idle transmitter sends at once (one event per packet on an uncongested link).

use super::Simulation;
use crate::engine::Event;
use crate::packet::{Kind, Packet};
use crate::queue::{DropCause, EnqueueContext};
use rand::Rng;

impl Simulation {
    pub(super) fn link_arrive(&mut self, l: u32, p: Packet) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        link.qstats.arrivals += 1;
        link.qstats.arrival_bytes += p.size as u64;
        if let Some((prob, rng)) = &mut link.loss {
            if rng.gen::<f64>() < *prob {
                link.qstats.drop(DropCause::LinkLoss, p.size);
                self.count_drop(&p, DropCause::LinkLoss);
                return;
            }
        }
        // Idle: nothing being sent and nothing waiting (a waiting packet implies a pending LinkReady).
        let idle = now >= link.busy_until && !link.ready_pending;
        let ctx = EnqueueContext { now, idle_since: if idle { Some(link.busy_until) } else { None } };
        link.qstats.advance(now, link.queue.len_pkts(), link.queue.len_bytes());
        match link.queue.enqueue(p, &ctx) {
            Ok(()) => {
                link.qstats.observe_max(link.queue.len_pkts(), link.queue.len_bytes());
                if idle {
                    self.start_tx(l);
                } else if !link.ready_pending {
                    link.ready_pending = true;
                    let t = link.busy_until;
                    self.events.push(t, Event::LinkReady(l));
                }
            }
            Err((p, cause)) => {
                link.qstats.drop(cause, p.size);
                self.count_drop(&p, cause);
            }
        }
    }

    pub(super) fn count_drop(&mut self, p: &Packet, _cause: DropCause) {
        match p.kind {
            Kind::Data => self.flows[p.flow as usize].counters.data_drops += 1,
            Kind::Ack => self.flows[p.flow as usize].counters.ack_drops += 1,
            Kind::Udp => self.udp[p.flow as usize].drops += 1,
        }
    }

    /// Takes the next packet from the link's queue and puts it on the wire.
    pub(super) fn start_tx(&mut self, l: u32) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        link.qstats.advance(now, link.queue.len_pkts(), link.queue.len_bytes());
        let Some(p) = link.queue.dequeue(now) else {
            return;
        };
        link.qstats.departures += 1;
        let tx = link.rate.tx_time(p.size);
        link.busy_until = now + tx;
        link.busy_time += tx;
        link.tx_pkts += 1;
        link.tx_bytes += p.size as u64;
        let arrive = link.busy_until + link.delay;
        let was_empty = link.wire.is_empty();
        link.wire.push_back((arrive, p));
        if link.queue.len_pkts() > 0 {
            link.ready_pending = true;
            let t = link.busy_until;
            self.events.push(t, Event::LinkReady(l));
        }
        if was_empty {
            self.events.push(arrive, Event::WireHead(l));
        }
    }

    pub(super) fn wire_head(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let (_, p) = link.wire.pop_front().expect("a WireHead event implies a packet on the wire");
        if let Some(&(next, _)) = link.wire.front() {
            self.events.push(next, Event::WireHead(l));
        }
        self.forward(p);
    }
}
