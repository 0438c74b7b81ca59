//! The simulation's side of tracing (`crate::trace`): where each event is seen. Every hook is
//! called behind one test of `self.trace` and only reads the simulation.
//!
//! Events at a link happen at the clock's time: a link where one can be logged is never
//! private (`private_links`), so no packet is cut through to it ahead of its time.

use super::Simulation;
use crate::net::link::Arrival;
use crate::packet::{Kind, Packet};
use crate::tcp::Timer;
use crate::trace::pcap::FlowAddr;
use crate::trace::{Cause, Ev, Trace, NO_LINK};
use crate::units::SimTime;

impl Simulation {
    /// Installs a trace (scenario build); before the run starts.
    pub fn set_trace(&mut self, t: Trace) {
        self.trace = Some(Box::new(t));
    }

    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_deref()
    }

    /// The first error of the trace (its budget spent, its pcap not writable): (field, message).
    pub fn trace_error(&self) -> Option<(&'static str, String)> {
        self.trace.as_ref().and_then(|t| t.error().map(|(f, m)| (f, m.to_string())))
    }

    /// What pcap headers need of flow `f`.
    fn flow_addr(&self, f: u32) -> FlowAddr {
        let fl = &self.flows[f as usize];
        let first = fl.path_data.first().map_or(0, |&l| self.links[l as usize].from);
        let last = fl.path_data.last().map_or(0, |&l| self.links[l as usize].to);
        let c = &fl.sender.cfg;
        FlowAddr {
            flow: f,
            src_node: first,
            dst_node: last,
            mss: c.mss,
            timestamps: c.timestamps,
            syn: c.stack.syn,
            rwnd: c.rwnd,
        }
    }

    /// At the start of the run: opens the pcap.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_start(&mut self) {
        let Some(t) = self.trace.as_deref() else { return };
        let addrs = (0..self.flows.len() as u32).map(|f| t.flow_on(f).then(|| self.flow_addr(f))).collect();
        if let Some(t) = self.trace.as_deref_mut() {
            t.start(addrs);
        }
    }

    /// The links where the trace logs events: kept out of the engine's cut-through.
    pub(super) fn trace_observed_links(&self) -> Vec<bool> {
        match self.trace.as_deref() {
            None => vec![false; self.links.len()],
            Some(t) => t.observed_links(
                self.links.len(),
                self.flows.iter().enumerate().map(|(i, f)| (i as u32, [&f.path_data[..], &f.path_ack[..]])),
            ),
        }
    }

    /// `link_arrive` with the arrival's events logged.
    #[cold]
    #[inline(never)]
    pub(super) fn link_arrive_traced(&mut self, l: u32, p: Packet) {
        let marks = self.trace_marks(l);
        let arrival = self.links[l as usize].arrive(self.now, p);
        self.trace_arrival(l, &p, &arrival, marks);
        self.count_head_drops(l);
        self.arrived(l, arrival);
    }

    /// `start_tx_at` with the dequeue (and drops at dequeue) logged.
    #[cold]
    #[inline(never)]
    pub(super) fn start_tx_traced(&mut self, l: u32, now: SimTime) {
        let marks = self.trace_marks(l);
        let tx = self.links[l as usize].start_tx(now);
        self.trace_start_tx(l, now, tx.as_ref().map(|(p, _)| p), marks);
        self.count_head_drops(l);
        if let Some((p, tx)) = tx {
            self.transmitted(l, now, p, tx);
        }
    }

    /// The marks link `l`'s queue has made so far, if its events are logged (else 0).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_marks(&self, l: u32) -> u64 {
        match self.trace.as_deref() {
            Some(t) if t.link_on(l) => self.links[l as usize].queue.marks(),
            _ => 0,
        }
    }

    /// After `Link::arrive`: the arrival's enqueue or drop, a mark made on it, the waiting
    /// packets the queue dropped for it, and its dequeue if it went straight through.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_arrival(&mut self, l: u32, p: &Packet, arrival: &Arrival, marks_before: u64) {
        let now = self.now;
        let link = &self.links[l as usize];
        let Some(t) = self.trace.as_deref_mut() else { return };
        if !t.link_on(l) {
            return;
        }
        let qlen = link.queue.len_pkts();
        match arrival {
            Arrival::Dropped(d, cause) => {
                if t.packet_on(l, d) {
                    t.packet(now, Ev::Drop, Cause::of_drop(*cause, false), l, qlen, d);
                }
            }
            _ => {
                if t.packet_on(l, p) {
                    let sent = matches!(arrival, Arrival::Sent(..));
                    t.packet(now, Ev::Enqueue, Cause::None, l, if sent { 1 } else { qlen }, p);
                    if link.queue.marks() > marks_before {
                        t.packet(now, Ev::Mark, Cause::None, l, qlen, p);
                    }
                    if let Arrival::Sent(s, _) = arrival {
                        t.packet(now, Ev::Dequeue, Cause::None, l, 0, s);
                    }
                }
            }
        }
        for (d, cause) in &link.head_drops {
            if t.packet_on(l, d) {
                t.packet(now, Ev::Drop, Cause::of_drop(*cause, true), l, qlen, d);
            }
        }
    }

    /// After `Link::start_tx` at `now`: the waiting packets dropped at dequeue, then the packet
    /// sent (marked first if the queue marked it on its way out).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_start_tx(&mut self, l: u32, now: SimTime, sent: Option<&Packet>, marks_before: u64) {
        let link = &self.links[l as usize];
        let Some(t) = self.trace.as_deref_mut() else { return };
        if !t.link_on(l) {
            return;
        }
        let qlen = link.queue.len_pkts();
        for (d, cause) in &link.head_drops {
            if t.packet_on(l, d) {
                t.packet(now, Ev::Drop, Cause::of_drop(*cause, true), l, qlen, d);
            }
        }
        if let Some(p) = sent.filter(|p| t.packet_on(l, p)) {
            if link.queue.marks() > marks_before {
                t.packet(now, Ev::Mark, Cause::None, l, qlen, p);
            }
            t.packet(now, Ev::Dequeue, Cause::None, l, qlen, p);
        }
    }

    /// A data segment its sender hands down now (before any send jitter): `send`, with why
    /// if it is a retransmission.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_send(&mut self, p: &Packet) {
        let now = self.now;
        let state = self.flows[p.flow as usize].sender.state;
        let Some(t) = self.trace.as_deref_mut() else { return };
        if !(t.cfg.packets && t.flow_on(p.flow)) {
            return;
        }
        let cause = if !p.retx {
            Cause::None
        } else {
            match (t.timer, state) {
                (Some(Timer::Rto), _) => Cause::Timeout,
                (Some(Timer::Reorder), _) => Cause::Rack,
                (Some(Timer::LossProbe), _) => Cause::Probe,
                (None, crate::cc::CaState::Recovery) => Cause::Fast,
                (None, crate::cc::CaState::Loss) => Cause::Timeout,
                (None, _) => Cause::Other,
            }
        };
        t.packet(now, Ev::Send, cause, NO_LINK, 0, p);
    }

    /// A packet leaving its host (hop 0): an ACK's `send` by its receiver; a data segment goes
    /// to the pcap (the capture point: the sender's host).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_egress(&mut self, p: &Packet) {
        let now = self.now;
        let Some(t) = self.trace.as_deref_mut() else { return };
        match p.kind {
            Kind::Ack if t.cfg.packets && t.flow_on(p.flow) => t.packet(now, Ev::Send, Cause::None, NO_LINK, 0, p),
            Kind::Data => {
                if t.pcap_wants(p.flow) && !t.has_addr(p.flow) {
                    // A flow started during the run (a web object).
                    let a = self.flow_addr(p.flow);
                    if let Some(t) = self.trace.as_deref_mut() {
                        t.add_addr(p.flow, a);
                    }
                }
                if let Some(t) = self.trace.as_deref_mut() {
                    t.capture(now, p);
                }
            }
            _ => {}
        }
    }

    /// A packet reaching its endpoint: `deliver`; an ACK also goes to the pcap.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_deliver(&mut self, p: &Packet) {
        let now = self.now;
        let Some(t) = self.trace.as_deref_mut() else { return };
        if p.kind == Kind::Udp || !t.flow_on(p.flow) {
            return;
        }
        if t.cfg.packets {
            t.packet(now, Ev::Deliver, Cause::None, NO_LINK, 0, p);
        }
        if p.kind == Kind::Ack {
            t.capture(now, p);
        }
    }

    /// The sender's state after it processed an ACK or a timer.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_sender(&mut self, f: u32, ev: Ev, ack: u64) {
        let now = self.now;
        let s = &self.flows[f as usize].sender;
        if let Some(t) = self.trace.as_deref_mut() {
            t.sender_state(now, f, ev, ack, s);
        }
    }

    /// The sender's timer fires now (before it is handled): its event, and the context for
    /// the cause of what it retransmits.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &self.flows[f as usize];
        let (timer, una) = (fl.sender.timer, fl.sender.snd_una());
        let Some(t) = self.trace.as_deref_mut() else { return };
        t.timer = Some(timer);
        if t.cfg.packets && t.flow_on(f) {
            let ev = match timer {
                Timer::Rto => Ev::Rto,
                Timer::Reorder => Ev::ReorderTimer,
                Timer::LossProbe => Ev::ProbeTimer,
            };
            let p = Packet { seq: una, flow: f, ..Packet::EMPTY };
            t.packet(now, ev, Cause::None, NO_LINK, 0, &p);
        }
    }

    /// After the timer was handled: its sender row, and no more timer context.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_timer_done(&mut self, f: u32, timer: Timer) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.timer = None;
        }
        let ev = match timer {
            Timer::Rto => Ev::Rto,
            Timer::Reorder => Ev::ReorderTimer,
            Timer::LossProbe => Ev::ProbeTimer,
        };
        let una = self.flows[f as usize].sender.snd_una();
        self.trace_sender(f, ev, una);
    }

    /// Writes out the pcap's buffer (after each `run_until`).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_flush(&mut self) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.flush();
        }
    }
}
