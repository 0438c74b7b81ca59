//! The simulation's side of the link mechanics: the link (`net::link`) decides what
//! becomes of a packet and when it leaves; here its answers become events, and drops are
//! counted against their flow. Events are scheduled in the order the link gives them.
//!
//! # Cutting through to a private link
//!
//! A packet put on a wire is normally an event when it reaches the far end, where it
//! arrives at the next link of its path. When that next link is *private* (only this
//! path's packets ever cross it, it has no random loss, no schedule or trace that changes it
//! over time, and nothing samples it), its state
//! can change only through the packets of this wire, which reach it in the order they
//! leave. The packet is then handed to it at once, arriving at its exact arrival time:
//! the private link sees the same arrivals at the same times in the same order, and the
//! wire's event is saved. In a dumbbell this saves the bottleneck's event for each data
//! packet (into the receiver's access link) and the reverse bottleneck's for each ACK.
//!
//! Web objects start flows during the run: the links on the paths between web servers and
//! clients are never private (in a dumbbell those are the hosts' own links and the
//! bottleneck, so the bulk flows' access links still are).
//!
//! The events the private link then asks for are pushed as made at the packet's arrival
//! (`EventQueue::push_made_at`), so that among events of equal time they keep the place they
//! would have had: a tie with an event made in between (a pacing timer, a sample) resolves as
//! without the shortcut.
//!
//! It is done only while it cannot be seen: the private link must be idle at the arrival
//! (no packet of its own waiting or being sent then, and none still on a wire towards it),
//! and no reading of counters may fall between now and the arrival (the warm-up
//! snapshot, the end of the run). A link where a trace logs events is never private.
//!
//! # Delivering ahead to a receiver
//!
//! A data packet sent by the last link of its path is, in the same way, handed to its
//! receiver at once, at its arrival time, when nothing can tell: the receiver changes only
//! through its own flow's packets, which reach it in the order they leave, and through its
//! delayed-ACK timer. So it is done only when no packet is ahead of it on that wire, the
//! receiver's timer is not due before the arrival, its ACKs' first link is private and idle
//! then (they are put on it at the arrival time), and no reading falls in between: no
//! sample of the time series (which reads the receiver's counters), no warm-up snapshot, not
//! the end of the run. Not with a trace, nor with web traffic, whose receivers start flows.
//! The packets still on the wire ahead of it (put there while something could tell) go
//! first, each at its own arrival and under the same conditions; the wire's event of one
//! that went is then left to find the head moved on, and the new head gets its own, made when
//! it was sent, as `wire_head` makes it. The wire's event is saved: one event per data packet
//! in a dumbbell.

use super::Simulation;
use crate::engine::Event;
use crate::net::link::{Arrival, Transmit};
use crate::packet::{Kind, Packet};
use crate::queue::DropCause;
use crate::units::SimTime;

impl Simulation {
    pub(super) fn link_arrive(&mut self, l: u32, p: Packet) {
        if self.trace.is_some() {
            return self.link_arrive_traced(l, p);
        }
        let arrival = self.links[l as usize].arrive(self.now, p);
        self.count_head_drops(l);
        self.arrived(l, arrival);
    }

    /// Schedules what an arrival at link `l` asks for (its head drops already counted).
    #[inline(always)]
    pub(super) fn arrived(&mut self, l: u32, arrival: Arrival) {
        match arrival {
            Arrival::Dropped(p, cause) => self.count_drop(&p, cause),
            Arrival::StartTx => self.start_tx(l),
            Arrival::Sent(p, tx) => self.transmitted(l, self.now, p, tx),
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
        self.start_tx_at(l, self.now);
    }

    /// `start_tx` at `now`, which is later than the clock when a packet is cut through.
    pub(super) fn start_tx_at(&mut self, l: u32, now: SimTime) {
        if self.trace.is_some() {
            return self.start_tx_traced(l, now);
        }
        let tx = self.links[l as usize].start_tx(now);
        self.count_head_drops(l);
        if let Some((p, tx)) = tx {
            self.transmitted(l, now, p, tx);
        }
    }

    /// A packet link `l` began to send at `now`: schedules `LinkReady` if asked, then hands
    /// the packet on to a private next link or puts it on the wire.
    #[inline]
    pub(super) fn transmitted(&mut self, l: u32, now: SimTime, p: Packet, tx: Transmit) {
        if let Some(t) = tx.ready_at {
            self.events.push_made_at(now, t, Event::LinkReady(l));
        }
        if let Err(p) = self.cut_through(now, p, tx.arrive) {
            if let Err(p) = self.deliver_ahead(l, now, p, tx.arrive) {
                if self.links[l as usize].wire_push(tx.arrive, p) {
                    self.events.push_made_at(now, tx.arrive, Event::WireHead(l));
                }
            }
        }
    }

    /// Hands `p`, sent at `now` to arrive at `at`, on to the next link of its path if that one
    /// is private and nothing can tell (module comment); else gives it back.
    #[inline]
    fn cut_through(&mut self, now: SimTime, mut p: Packet, at: SimTime) -> Result<(), Packet> {
        let Some(&next) = self.path_of(&p).get(p.hop as usize) else {
            return Err(p);
        };
        let n = next as usize;
        if !self.private[n] {
            return Err(p);
        }
        let to = &self.links[n];
        let idle = at >= to.busy_until && !to.ready_pending && to.queue.len_pkts() == 0;
        let unseen = at < self.end && !(now <= self.warmup && self.warmup <= at);
        // Every packet put on a wire towards it has arrived by the clock (not merely by `now`, which
        // runs ahead of the clock along a chain of cut-through links).
        if !(idle && unseen && self.wired_until[n] < self.now) {
            self.wired_until[n] = self.wired_until[n].max(at);
            return Err(p);
        }
        p.hop += 1;
        self.arrive_at(next, p, at);
        Ok(())
    }

    /// Packet `p` arrives at link `l` at `at`, which may be later than the clock, and what that
    /// asks for is scheduled as made then.
    fn arrive_at(&mut self, l: u32, p: Packet, at: SimTime) {
        let arrival = self.links[l as usize].arrive(at, p);
        self.count_head_drops(l);
        match arrival {
            Arrival::Dropped(p, cause) => self.count_drop(&p, cause),
            Arrival::StartTx => self.start_tx_at(l, at),
            Arrival::Sent(p, tx) => self.transmitted(l, at, p, tx),
            Arrival::Queued(Some(t)) => self.events.push_made_at(at, t, Event::LinkReady(l)),
            Arrival::Queued(None) => {}
        }
    }

    /// Hands data packet `p`, which link `l` (the last of its path) sent at `now` to arrive at
    /// `at`, to its receiver at once, after the packets still on that wire ahead of it, each at
    /// its own arrival, if nothing can tell (module comment, "Delivering ahead"); else gives it
    /// back, with those it could not hand on left on the wire.
    fn deliver_ahead(&mut self, l: u32, now: SimTime, p: Packet, at: SimTime) -> Result<(), Packet> {
        let last = self.path_of(&p).len() == p.hop as usize;
        if !last || p.kind != Kind::Data || self.trace.is_some() || self.web.is_some() {
            return Err(p);
        }
        let li = l as usize;
        if self.links[li].vary.is_some() {
            return Err(p);
        }
        let mut drained = false;
        while let Some(&(t, q)) = self.links[li].wire.front() {
            if !self.receivable(now, &q, t) {
                break;
            }
            self.links[li].wire.pop_front();
            drained = true;
            self.receive_at(q, t);
        }
        if self.links[li].wire.is_empty() && self.receivable(now, &p, at) {
            self.receive_at(p, at);
            return Ok(());
        }
        if drained {
            // The head's event was for a packet now received: the new head's, made when it was
            // sent, as `wire_head` would have made it (the old one finds the head moved on).
            if let Some(&(t, q)) = self.links[li].wire.front() {
                let sent = t - self.links[li].delay - self.links[li].rate.tx_time(q.size);
                self.events.push_made_at(sent, t, Event::WireHead(l));
            }
        }
        Err(p)
    }

    /// Whether data packet `p`, arriving at its receiver at `at` (the clock reading `now`), can
    /// be received now: nothing reads the receiver's counters in between, its timer is not due
    /// before, and its ACKs' first link is private and idle then.
    fn receivable(&self, now: SimTime, p: &Packet, at: SimTime) -> bool {
        if !(at < self.end && at < self.next_sample && !(now <= self.warmup && self.warmup <= at)) {
            return false;
        }
        let fl = &self.flows[p.flow as usize];
        if fl.receiver.delack_deadline.is_some_and(|d| d <= at) || fl.delack_event_at.is_some_and(|t| t <= at) {
            return false;
        }
        let Some(&a) = fl.path_ack.first() else {
            return false;
        };
        let to = &self.links[a as usize];
        self.private[a as usize] && at >= to.busy_until && !to.ready_pending && to.queue.len_pkts() == 0
    }

    /// Data packet `p` reaches its receiver at `at`: what `deliver` does, as at `at`.
    fn receive_at(&mut self, p: Packet, at: SimTime) {
        let f = p.flow as usize;
        let a = self.flows[f].path_ack[0];
        let ack = self.flows[f].receiver.on_data(&p, at);
        if let Some(mut early) = self.flows[f].receiver.take_early_ack() {
            early.hop = 1;
            self.arrive_at(a, early, at);
        }
        if let Some(mut ack) = ack {
            ack.hop = 1;
            self.arrive_at(a, ack, at);
        }
        // `sync_timers` after a delivery: a delivery moves only the receiver's timer (the
        // sender's have their events pending since the sender last changed).
        let fl = &mut self.flows[f];
        if let Some(d) = fl.receiver.delack_deadline {
            if fl.delack_event_at.is_none_or(|t| t > d) {
                fl.delack_event_at = Some(d);
                self.events.push_made_at(at, d, Event::DelAck(p.flow));
            }
        }
    }

    /// The links whose packets may be cut through to them: each crossed by one path only,
    /// without random loss, not sampled, not varying over time. The paths web objects will take between their
    /// servers and clients count as two (they are not known yet, nor how many).
    pub(super) fn private_links(&mut self) -> Vec<bool> {
        let mut users = vec![0u32; self.links.len()];
        let paths = self.flows.iter().flat_map(|f| [&f.path_data, &f.path_ack]).chain(self.udp.iter().map(|u| &u.path));
        for path in paths {
            for &l in path {
                users[l as usize] += 1;
            }
        }
        if let Some(w) = &self.web {
            let (servers, clients) = (w.server_nodes.clone(), w.client_nodes.clone());
            if servers.len().saturating_mul(clients.len()) > 1_000_000 {
                return vec![false; self.links.len()];
            }
            for &s in &servers {
                for &c in &clients {
                    for l in self.path(s, c).into_iter().chain(self.path(c, s)).flatten() {
                        users[l as usize] = u32::MAX;
                    }
                }
            }
        }
        for &l in &self.monitored {
            users[l as usize] = u32::MAX;
        }
        // A traced link logs its events at the clock's time (sim/trace.rs).
        for (l, traced) in self.trace_observed_links().into_iter().enumerate() {
            if traced {
                users[l] = u32::MAX;
            }
        }
        // A link that varies over time (net/link/vary.rs) changes between its packets.
        self.links.iter().zip(users).map(|(link, u)| u == 1 && link.loss.is_none() && link.vary.is_none()).collect()
    }

    /// Counts against their flows the waiting packets the link's queue dropped in its last
    /// `arrive` or `start_tx`.
    pub(super) fn count_head_drops(&mut self, l: u32) {
        if !self.links[l as usize].head_drops.is_empty() {
            let mut drops = std::mem::take(&mut self.links[l as usize].head_drops);
            for (p, cause) in drops.drain(..) {
                self.count_drop(&p, cause);
            }
            self.links[l as usize].head_drops = drops;
        }
    }

    pub(super) fn wire_head(&mut self, l: u32) {
        let link = &self.links[l as usize];
        if link.vary.is_none() && link.wire.front().is_none_or(|&(t, _)| t != self.now) {
            return; // its packet was delivered ahead (`deliver_ahead`): the new head has its own event
        }
        let (p, next) = self.links[l as usize].wire_pop();
        if let Some((t, sent)) = next {
            // Made when the next packet went on the wire, if that is later than now: it was cut
            // through to this link ahead of its time, and its event is made as it would have been.
            self.events.push_made_at(sent, t, Event::WireHead(l));
        }
        self.forward(p);
    }
}
