//! The simulation: owns the event queue, the links, the flows and the
//! metrics, and runs the event loop. No globals: many simulations can run in
//! one process, in parallel threads.

use crate::cc::CongestionControl;
use crate::cc::{self, Params};
use crate::engine::{Event, EventQueue};
use crate::metrics::{CcSeries, FlowSeries, QueueSeries};
use crate::net::{Link, Routes};
use crate::packet::{Kind, Packet};
use crate::tcp::{Receiver, ReceiverConfig, SendOverhead, Sender, TcpConfig};
use crate::traffic::udp::UdpFlow;
use crate::traffic::web::WebObject;
use crate::units::SimTime;
use rand_pcg::Pcg64;
use std::collections::VecDeque;

mod link;
mod observe;
mod overhead;
mod timers;
mod trace;

pub use observe::Holdings;

/// Everything needed to add one TCP flow.
pub struct FlowSetup {
    pub name: String,
    pub group: String,
    pub cc_name: String,
    pub src: u32,
    pub dst: u32,
    pub tcp: TcpConfig,
    pub receiver: ReceiverConfig,
    pub cc: Box<dyn CongestionControl>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// Segments to send; `None` for a bulk (unlimited) flow.
    pub size_pkts: Option<u64>,
    /// Each data packet leaves the sender after a uniformly random delay in
    /// `[0, overhead]` (order kept), as ns-2's TCP `overhead_`: it breaks the
    /// phase effects of drop-tail queues (Floyd and Jacobson 1992). Zero: none.
    pub overhead: SimTime,
    /// Random stream for the overhead.
    pub rng: Pcg64,
}

/// Per-flow counters that are not the sender's or receiver's own.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounters {
    /// Data packets of this flow dropped anywhere.
    pub data_drops: u64,
    pub ack_drops: u64,
}

/// Values captured when the warm-up period ends, so that results can be
/// reported over the measurement window only.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSnapshot {
    pub delivered_bytes: u64,
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub data_drops: u64,
}

pub struct Flow {
    pub name: String,
    pub group: String,
    pub cc_name: String,
    pub sender: Sender,
    pub receiver: Receiver,
    pub path_data: Vec<u32>,
    pub path_ack: Vec<u32>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// Round-trip propagation delay of the flow's paths.
    pub base_rtt: SimTime,
    pub counters: FlowCounters,
    pub at_warmup: FlowSnapshot,
    rto_event_at: Option<SimTime>,
    delack_event_at: Option<SimTime>,
    pace_event_at: Option<SimTime>,
    /// Delivered bytes at the previous sample, for the goodput series.
    last_sample_bytes: u64,
    overhead: SimTime,
    /// How the overhead applies (the flow's stack profile).
    send_overhead: SendOverhead,
    rng: Pcg64,
    /// Data packets held back by the send overhead, with their departure times.
    held: VecDeque<(SimTime, Packet)>,
    /// The web object this flow carries, if it is one.
    pub web_object: Option<u32>,
    size_pkts: u64,
}

impl Flow {
    /// Segments a finite flow carries (`u64::MAX` for a bulk flow).
    pub fn size_pkts(&self) -> u64 {
        self.size_pkts
    }

    /// The send overhead (jitter bound) of each data segment.
    pub fn overhead(&self) -> SimTime {
        self.overhead
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkSnapshot {
    pub busy_time: SimTime,
    pub tx_bytes: u64,
    pub drops: u64,
    pub arrivals: u64,
    /// The queue's counters at the warmup, their integrals brought up to it.
    pub qstats: crate::net::link::QueueStats,
}

/// Why a simulation could not be assembled.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildError(pub String);

/// Web traffic: the drawn schedule and what each object transfer is made of.
pub struct WebState {
    pub objects: Vec<WebObject>,
    /// Index of the next object to start.
    next: usize,
    /// The flow carrying each started object.
    pub flow_of: Vec<Option<u32>>,
    pub server_nodes: Vec<u32>,
    pub client_nodes: Vec<u32>,
    pub tcp: TcpConfig,
    pub receiver: ReceiverConfig,
    /// The registry name each object's transfer is built with: the stack's variant of the
    /// web section's `cc` (`StackProfile::variant_of`; "vegas-ns2" for vegas under ns2).
    pub cc_name: String,
    pub params: Params,
    /// The run's seed, for each transfer's congestion-control stream (`rng::stream::CC`).
    pub seed: u64,
}

impl WebState {
    pub fn new(
        objects: Vec<WebObject>,
        server_nodes: Vec<u32>,
        client_nodes: Vec<u32>,
        tcp: TcpConfig,
        receiver: ReceiverConfig,
        cc_name: String,
        params: Params,
    ) -> Self {
        let n = objects.len();
        WebState {
            objects,
            next: 0,
            flow_of: vec![None; n],
            server_nodes,
            client_nodes,
            tcp,
            receiver,
            cc_name,
            params,
            seed: 0,
        }
    }
}

pub struct Simulation {
    now: SimTime,
    events: EventQueue,
    pub n_nodes: usize,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    /// Packets produced by an endpoint, waiting to be put on their path (reused buffer).
    out: Vec<Packet>,
    pub sample_interval: Option<SimTime>,
    /// Links whose queues are sampled.
    pub monitored: Vec<u32>,
    pub flow_series: FlowSeries,
    pub cc_series: CcSeries,
    pub queue_series: QueueSeries,
    last_sample_tx: Vec<u64>,
    last_sample_time: SimTime,
    pub warmup: SimTime,
    pub link_at_warmup: Vec<LinkSnapshot>,
    pub events_handled: u64,
    started: bool,
    /// UDP sources.
    pub udp: Vec<UdpFlow>,
    pub web: Option<WebState>,
    /// Flows whose time series are sampled (all but web objects).
    sampled: Vec<u32>,
    /// Shortest-path trees, kept up to date as nodes and links are added.
    routes: Routes,
    /// The run's end: results are read then. Packets are cut through to a private link
    /// (`sim/link.rs`) only if they reach it before; `ZERO` (a simulation not built from a
    /// scenario) turns cutting through off.
    pub end: SimTime,
    /// Per link: carries the packets of one path only, and nothing observes it during the run
    /// (not sampled, no random loss), so packets may be cut through to it.
    private: Vec<bool>,
    /// Per private link: the latest arrival of a packet put on a wire towards it (not cut
    /// through); none is cut through to it before that one has arrived.
    wired_until: Vec<SimTime>,
    /// The packet and sender-state trace, when the scenario asks for one (`crate::trace`).
    trace: Option<Box<crate::trace::Trace>>,
    /// When the next `Sample` event is due (`SimTime::MAX`: none): a data packet is handed to
    /// its receiver ahead of its time only if it arrives before (sim/link.rs).
    next_sample: SimTime,
}

impl Simulation {
    pub fn new(n_nodes: usize) -> Self {
        Simulation {
            now: SimTime::ZERO,
            events: EventQueue::new(),
            n_nodes,
            links: Vec::new(),
            flows: Vec::new(),
            out: Vec::with_capacity(64),
            sample_interval: None,
            monitored: Vec::new(),
            flow_series: FlowSeries::default(),
            cc_series: CcSeries::default(),
            queue_series: QueueSeries::default(),
            last_sample_tx: Vec::new(),
            last_sample_time: SimTime::ZERO,
            warmup: SimTime::ZERO,
            link_at_warmup: Vec::new(),
            events_handled: 0,
            started: false,
            udp: Vec::new(),
            web: None,
            sampled: Vec::new(),
            routes: Routes::default(),
            end: SimTime::ZERO,
            private: Vec::new(),
            wired_until: Vec::new(),
            trace: None,
            next_sample: SimTime::MAX,
        }
    }

    /// Adds a node; returns its index.
    pub fn add_node(&mut self) -> u32 {
        self.n_nodes += 1;
        (self.n_nodes - 1) as u32
    }

    /// The shortest path from `src` to `dst` (see `net::route` for the tie-breaking),
    /// from a shortest-path tree cached per source: O(path length) once the tree exists.
    pub fn path(&mut self, src: u32, dst: u32) -> Option<Vec<u32>> {
        self.routes.path(self.n_nodes, &self.links, src, dst)
    }

    /// Adds a UDP source from `src` to `dst`; returns its index.
    pub fn add_udp(&mut self, mut u: UdpFlow, src: u32, dst: u32) -> Result<u32, BuildError> {
        u.path = self
            .path(src, dst)
            .ok_or_else(|| BuildError(format!("udp {}: no route from node {src} to node {dst}", u.name)))?;
        self.udp.push(u);
        Ok((self.udp.len() - 1) as u32)
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn add_link(&mut self, link: Link) -> u32 {
        assert!((link.from as usize) < self.n_nodes && (link.to as usize) < self.n_nodes);
        self.links.push(link);
        (self.links.len() - 1) as u32
    }

    /// Adds a TCP flow from `src` to `dst` over the shortest paths both ways.
    pub fn add_flow(&mut self, f: FlowSetup) -> Result<u32, BuildError> {
        let id = self.flows.len() as u32;
        let path_data = self
            .path(f.src, f.dst)
            .ok_or_else(|| BuildError(format!("flow {}: no route from node {} to node {}", f.name, f.src, f.dst)))?;
        let path_ack = self.path(f.dst, f.src).ok_or_else(|| {
            BuildError(format!("flow {}: no route back from node {} to node {}", f.name, f.dst, f.src))
        })?;
        if path_data.len() > u8::MAX as usize || path_ack.len() > u8::MAX as usize {
            return Err(BuildError(format!("flow {}: path longer than 255 links", f.name)));
        }
        let base_rtt =
            path_data.iter().chain(path_ack.iter()).fold(SimTime::ZERO, |a, &l| a + self.links[l as usize].delay);
        let limit = f.size_pkts.unwrap_or(u64::MAX);
        let mut sender = Sender::new(id, f.tcp, f.cc, limit);
        if f.tcp.stack.send_overhead == SendOverhead::DelayedSend {
            sender.delsnd.overhead = f.overhead;
        }
        self.flows.push(Flow {
            sender,
            receiver: Receiver::new(id, f.receiver),
            name: f.name,
            group: f.group,
            cc_name: f.cc_name,
            path_data,
            path_ack,
            start: f.start,
            stop: f.stop,
            base_rtt,
            counters: FlowCounters::default(),
            at_warmup: FlowSnapshot::default(),
            rto_event_at: None,
            delack_event_at: None,
            pace_event_at: None,
            last_sample_bytes: 0,
            overhead: f.overhead,
            send_overhead: f.tcp.stack.send_overhead,
            rng: f.rng,
            held: VecDeque::new(),
            web_object: None,
            size_pkts: limit,
        });
        Ok(id)
    }

    fn init(&mut self) {
        self.started = true;
        for (i, f) in self.flows.iter().enumerate() {
            self.events.push(f.start, Event::FlowStart(i as u32));
            if let Some(s) = f.stop {
                self.events.push(s, Event::FlowStop(i as u32));
            }
        }
        for (i, u) in self.udp.iter().enumerate() {
            self.events.push(u.start, Event::UdpSend(i as u32));
        }
        if let Some(o) = self.web.as_ref().and_then(|w| w.objects.first()) {
            self.events.push(o.start, Event::WebNext);
        }
        self.sampled = (0..self.flows.len() as u32).collect();
        self.last_sample_tx = vec![0; self.links.len()];
        if self.sample_interval.is_some() {
            self.events.push(SimTime::ZERO, Event::Sample);
            self.next_sample = SimTime::ZERO;
        }
        self.link_at_warmup = vec![LinkSnapshot::default(); self.links.len()];
        if self.warmup > SimTime::ZERO {
            self.events.push(self.warmup, Event::Warmup);
        }
        self.private = self.private_links();
        self.wired_until = vec![SimTime::ZERO; self.links.len()];
        if self.trace.is_some() {
            self.trace_start();
        }
    }

    /// Runs every event up to and including time `until`; the clock then reads `until`.
    pub fn run_until(&mut self, until: SimTime) {
        if !self.started {
            self.init();
        }
        while let Some((t, ev)) = self.events.pop_until(until) {
            self.now = t;
            self.events_handled += 1;
            self.handle(ev);
            if crate::budget::stop_requested() {
                return; // out of memory: the binding ends the run (budget.rs)
            }
        }
        if until > self.now {
            self.now = until;
        }
        if self.trace.is_some() {
            self.trace_flush();
        }
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::WireHead(l) => self.wire_head(l),
            Event::LinkReady(l) => {
                self.links[l as usize].ready_pending = false;
                self.start_tx(l);
            }
            Event::Rto(f) => self.rto_event(f),
            Event::Pace(f) => self.pace_event(f),
            Event::DelAck(f) => self.delack_event(f),
            Event::FlowStart(f) => {
                let now = self.now;
                let mut out = std::mem::take(&mut self.out);
                self.flows[f as usize].sender.start(now, &mut out);
                self.emit(&mut out);
                self.out = out;
                self.sync_timers(f);
            }
            Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
            Event::SenderTx(f) => {
                let fl = &mut self.flows[f as usize];
                let (_, p) = fl.held.pop_front().expect("a SenderTx event implies a held packet");
                if let Some(&(t, _)) = fl.held.front() {
                    self.events.push(t, Event::SenderTx(f));
                }
                self.forward(p);
            }
            Event::Sample => self.sample(),
            Event::UdpSend(u) => {
                let now = self.now;
                let uf = &mut self.udp[u as usize];
                if uf.sent == 0 {
                    uf.begin(now);
                }
                let p = uf.packet(u, now);
                if let Some(t) = uf.next_send(now) {
                    self.events.push(t, Event::UdpSend(u));
                }
                self.forward(p);
            }
            Event::WebNext => self.start_web_objects(),
            Event::Warmup => self.snapshot_warmup(),
        }
    }

    fn emit(&mut self, out: &mut Vec<Packet>) {
        for p in out.drain(..) {
            if self.trace.is_some() {
                self.trace_send(&p);
            }
            let fl = &mut self.flows[p.flow as usize];
            // ns-2's delayed send waits in the sender (tcp/delayed_send.rs); cclab's holds
            // each packet here.
            if fl.overhead > SimTime::ZERO && fl.send_overhead == SendOverhead::PerPacket {
                let held = fl.held.back().map(|&(last, _)| last);
                let t = overhead::departure(self.now, held, fl.overhead, &mut fl.rng);
                if fl.held.is_empty() {
                    self.events.push(t, Event::SenderTx(p.flow));
                }
                fl.held.push_back((t, p));
            } else {
                self.forward(p);
            }
        }
    }

    /// The links a packet crosses.
    #[inline]
    fn path_of(&self, p: &Packet) -> &[u32] {
        match p.kind {
            Kind::Data => &self.flows[p.flow as usize].path_data,
            Kind::Ack => &self.flows[p.flow as usize].path_ack,
            Kind::Udp => &self.udp[p.flow as usize].path,
        }
    }

    /// Puts a packet on the next link of its path, or hands it to its endpoint.
    fn forward(&mut self, mut p: Packet) {
        if self.trace.is_some() && p.hop == 0 {
            self.trace_egress(&p);
        }
        if let Some(&l) = self.path_of(&p).get(p.hop as usize) {
            p.hop += 1;
            self.link_arrive(l, p);
        } else {
            self.deliver(p);
        }
    }

    fn deliver(&mut self, p: Packet) {
        let now = self.now;
        let f = p.flow;
        if self.trace.is_some() {
            self.trace_deliver(&p);
        }
        match p.kind {
            Kind::Data => {
                let ack = self.flows[f as usize].receiver.on_data(&p, now);
                // DCTCP's feedback may owe an ACK for the packets before a CE change first.
                if let Some(mut early) = self.flows[f as usize].receiver.take_early_ack() {
                    early.hop = 0;
                    self.forward(early);
                }
                if let Some(mut ack) = ack {
                    ack.hop = 0;
                    self.forward(ack);
                }
            }
            Kind::Ack => {
                let mut out = std::mem::take(&mut self.out);
                self.flows[f as usize].sender.on_ack(&p, now, &mut out);
                self.emit(&mut out);
                self.out = out;
                if self.trace.is_some() {
                    self.trace_sender(f, crate::trace::Ev::Deliver, p.seq);
                }
            }
            Kind::Udp => {
                let u = &mut self.udp[f as usize];
                u.received += 1;
                u.received_bytes += p.size as u64;
                return;
            }
        }
        self.sync_timers(f);
    }

    /// Data packets: (sent by senders, received by receivers, dropped, waiting in queues,
    /// on wires or held by a sender's overhead).
    /// Conservation: sent = received + dropped + in queues + on wires.
    pub fn data_accounting(&self) -> (u64, u64, u64, u64, u64) {
        let sent = self.flows.iter().map(|f| f.sender.stats.sent).sum();
        let received = self.flows.iter().map(|f| f.receiver.stats.received).sum();
        let dropped = self.flows.iter().map(|f| f.counters.data_drops).sum();
        let queued = self.links.iter().map(|l| l.queue.packets().iter().filter(|p| p.is_data()).count() as u64).sum();
        let wired: u64 = self.links.iter().map(|l| l.wire.iter().filter(|(_, p)| p.is_data()).count() as u64).sum();
        let held: u64 = self.flows.iter().map(|f| f.held.len() as u64).sum();
        (sent, received, dropped, queued, wired + held)
    }

    /// Events still scheduled.
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }
}
