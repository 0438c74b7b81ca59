//! A one-way link: a queue discipline in front of a transmitter of fixed
//! rate, and a wire of fixed propagation delay (or, when its scenario asks, a rate,
//! delay and loss that change over time, or a Mahimahi trace: `link/vary.rs`).
//!
//! Since the delay is constant, packets leave the wire in the order they
//! entered it, so the wire is a FIFO and only its head is in the event queue.
//! The transmitter is lazy too: a packet that finds the link idle is put on
//! the wire at once, and a `LinkReady` event is scheduled only while packets
//! wait in the queue. Uncongested links thus cost one event per packet.
//!
//! Most arrivals in a simulation find their link idle (every access link, the
//! uncongested ACK direction). When the queue discipline says an empty queue
//! would accept the packet and hand it straight back without any change to its
//! own state (`QueueDisc::passes_when_idle`: DropTail), the arrival skips the
//! queue and goes on the wire at once, with the counters exactly as the queue's
//! round trip leaves them.

use crate::packet::Packet;
use crate::queue::{DropCause, EnqueueContext, QueueDisc};
use crate::units::{Rate, SimTime};
use rand::Rng;
use rand_pcg::Pcg64;
use std::collections::VecDeque;

pub mod vary;
pub use vary::Varying;

/// Counters of the queue in front of a link.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueStats {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub departures: u64,
    /// Drops by cause: overflow, early (AQM), link loss.
    pub drops: [u64; 3],
    pub drop_bytes: u64,
    pub max_pkts: u64,
    pub max_bytes: u64,
    /// Integral of the queue length over time, packet-picoseconds.
    area_pkts: u128,
    /// Integral of the queue length over time, byte-picoseconds.
    area_bytes: u128,
    last_change: SimTime,
}

impl QueueStats {
    /// Accounts for the time the queue spent at its current length, before a change.
    #[inline]
    pub fn advance(&mut self, now: SimTime, len_pkts: usize, len_bytes: u64) {
        let dt = (now.0 - self.last_change.0) as u128;
        self.area_pkts += dt * len_pkts as u128;
        self.area_bytes += dt * len_bytes as u128;
        self.last_change = now;
    }

    /// `advance` while the queue is empty: nothing to add.
    #[inline]
    pub fn advance_empty(&mut self, now: SimTime) {
        self.last_change = now;
    }

    #[inline]
    pub fn observe_max(&mut self, len_pkts: usize, len_bytes: u64) {
        self.max_pkts = self.max_pkts.max(len_pkts as u64);
        self.max_bytes = self.max_bytes.max(len_bytes);
    }

    pub fn drop(&mut self, cause: DropCause, bytes: u32) {
        self.drops[cause as usize] += 1;
        self.drop_bytes += bytes as u64;
    }

    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// When the integrals were last brought up to date.
    pub fn updated_at(&self) -> SimTime {
        self.last_change
    }

    /// Time-averaged queue length in packets over `[since.last_change, now]`, `since` being
    /// a copy of these counters taken then (brought up to that time with `advance`), or the
    /// default for the whole run. Call on counters brought up to `now`.
    pub fn mean_pkts_since(&self, since: &QueueStats, now: SimTime) -> f64 {
        let dt = now.0.saturating_sub(since.last_change.0);
        if dt == 0 {
            0.0
        } else {
            (self.area_pkts - since.area_pkts) as f64 / dt as f64
        }
    }

    /// As `mean_pkts_since`, in bytes.
    pub fn mean_bytes_since(&self, since: &QueueStats, now: SimTime) -> f64 {
        let dt = now.0.saturating_sub(since.last_change.0);
        if dt == 0 {
            0.0
        } else {
            (self.area_bytes - since.area_bytes) as f64 / dt as f64
        }
    }
}

/// What became of an arriving packet.
#[derive(Debug)]
pub enum Arrival {
    /// Dropped, by random loss or the queue; the simulation counts it against its flow.
    Dropped(Packet, DropCause),
    /// Queued at an idle transmitter: transmit it now.
    StartTx,
    /// Found the link idle and is transmitted at once (`QueueDisc::passes_when_idle`); the
    /// caller puts it on the wire (`wire_push`) or hands it on.
    Sent(Packet, Transmit),
    /// Queued behind a busy transmitter; `Some(t)`: schedule `LinkReady` at `t`.
    Queued(Option<SimTime>),
}

/// A transmission that began: what it asks for.
#[derive(Clone, Copy, Debug)]
pub struct Transmit {
    /// Packets still wait: `LinkReady` when this one is sent.
    pub ready_at: Option<SimTime>,
    /// When the packet reaches the far end.
    pub arrive: SimTime,
}

pub struct Link {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: SimTime,
    pub queue: Box<dyn QueueDisc>,
    /// The transmitter is busy until then.
    pub busy_until: SimTime,
    /// A `LinkReady` event is scheduled.
    pub ready_pending: bool,
    /// Packets on the wire with their arrival time at the far end.
    pub wire: VecDeque<(SimTime, Packet)>,
    pub qstats: QueueStats,
    /// Packets and bytes put on the wire.
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    /// Total time the transmitter was busy.
    pub busy_time: SimTime,
    /// What the link is in its topology: "bottleneck", "reverse", "access", "link".
    pub role: &'static str,
    /// Random loss: each arriving packet is dropped with this probability, before the queue.
    pub loss: Option<(f64, Pcg64)>,
    /// Packets the queue dropped from among those waiting in the last `arrive` (FQ-CoDel's
    /// fattest flow) or `start_tx` (CoDel's head), with their cause, for the simulation to
    /// count against their flows. Reused: no allocation per packet.
    pub head_drops: Vec<(Packet, DropCause)>,
    /// The serialization time of the last packet size sent: most packets are of one or two
    /// sizes, and the division of `Rate::tx_time` is then done once.
    tx_time_of: (u32, SimTime),
    /// Rate, delay or loss that change over time, or a Mahimahi trace (`vary.rs`); `None`
    /// for a fixed link, which then takes none of their paths.
    pub vary: Option<Box<Varying>>,
}

impl Link {
    pub fn new(name: String, from: u32, to: u32, rate: Rate, delay: SimTime, queue: Box<dyn QueueDisc>) -> Self {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            queue,
            busy_until: SimTime::ZERO,
            ready_pending: false,
            wire: VecDeque::new(),
            qstats: QueueStats::default(),
            tx_pkts: 0,
            tx_bytes: 0,
            busy_time: SimTime::ZERO,
            role: "link",
            loss: None,
            head_drops: Vec::new(),
            tx_time_of: (0, SimTime::ZERO),
            vary: None,
        }
    }

    /// A packet arrives: random loss, then the queue's verdict. The caller starts the
    /// transmitter or schedules its `LinkReady` as the answer says; packets the queue dropped
    /// from among those waiting to make room are left in `head_drops`, counted here.
    #[inline]
    pub fn arrive(&mut self, now: SimTime, p: Packet) -> Arrival {
        self.qstats.arrivals += 1;
        self.qstats.arrival_bytes += p.size as u64;
        if self.vary.is_some() {
            if self.varying_loses(now) {
                self.qstats.drop(DropCause::LinkLoss, p.size);
                return Arrival::Dropped(p, DropCause::LinkLoss);
            }
        } else if let Some((prob, rng)) = &mut self.loss {
            if rng.gen::<f64>() < *prob {
                self.qstats.drop(DropCause::LinkLoss, p.size);
                return Arrival::Dropped(p, DropCause::LinkLoss);
            }
        }
        // Idle: nothing being sent and nothing waiting (a waiting packet implies a pending LinkReady).
        let idle = now >= self.busy_until && !self.ready_pending;
        // A trace link sends only at its delivery opportunities: the packet waits for the next.
        let wait = if idle { self.waits_until(now) } else { None };
        if idle && wait.is_none() && self.queue.passes_when_idle(&p) {
            // The queue's round trip (enqueue, then `start_tx` dequeues it at once) as the
            // counters see it: the length was 0 until now and is 1 for no time.
            self.qstats.advance_empty(now);
            self.qstats.observe_max(1, p.size as u64);
            let arrive = self.transmit(now, p.size);
            return Arrival::Sent(p, Transmit { ready_at: None, arrive });
        }
        let ctx = EnqueueContext { now, idle_since: if idle { Some(self.busy_until) } else { None } };
        self.qstats.advance(now, self.queue.len_pkts(), self.queue.len_bytes());
        self.head_drops.clear();
        let verdict = self.queue.enqueue_or_drop(p, &ctx, &mut self.head_drops);
        for (d, cause) in &self.head_drops {
            self.qstats.drop(*cause, d.size);
        }
        match verdict {
            Ok(()) => {
                self.qstats.observe_max(self.queue.len_pkts(), self.queue.len_bytes());
                if let Some(t) = wait {
                    self.ready_pending = true;
                    Arrival::Queued(Some(t))
                } else if idle {
                    Arrival::StartTx
                } else if !self.ready_pending {
                    self.ready_pending = true;
                    Arrival::Queued(Some(self.next_ready()))
                } else {
                    Arrival::Queued(None)
                }
            }
            Err((p, cause)) => {
                self.qstats.drop(cause, p.size);
                Arrival::Dropped(p, cause)
            }
        }
    }

    /// Takes the next packet from the queue and transmits it; `None` if the queue is empty
    /// (or dropped all it held). The caller puts the packet on the wire (`wire_push`) or hands
    /// it on, and schedules `LinkReady` if asked; packets the queue dropped at its head are
    /// left in `head_drops`, counted here.
    #[inline]
    pub fn start_tx(&mut self, now: SimTime) -> Option<(Packet, Transmit)> {
        if self.vary.is_some() {
            self.refresh(now);
        }
        self.qstats.advance(now, self.queue.len_pkts(), self.queue.len_bytes());
        self.head_drops.clear();
        let p = self.queue.dequeue_or_drop(now, &mut self.head_drops);
        for (d, cause) in &self.head_drops {
            self.qstats.drop(*cause, d.size);
        }
        let p = p?;
        let arrive = self.transmit(now, p.size);
        let ready_at = if self.queue.len_pkts() > 0 {
            self.ready_pending = true;
            Some(self.next_ready())
        } else {
            None
        };
        Some((p, Transmit { ready_at, arrive }))
    }

    /// Counts the transmission of `size` bytes from `now`; returns when they reach the far end.
    #[inline]
    fn transmit(&mut self, now: SimTime, size: u32) -> SimTime {
        self.qstats.departures += 1;
        if self.vary.is_some() {
            return self.transmit_varying(now, size);
        }
        if self.tx_time_of.0 != size {
            self.tx_time_of = (size, self.rate.tx_time(size));
        }
        let tx = self.tx_time_of.1;
        self.busy_until = now + tx;
        self.busy_time += tx;
        self.tx_pkts += 1;
        self.tx_bytes += size as u64;
        self.busy_until + self.delay
    }

    /// Puts a transmitted packet on the wire, to reach the far end at `arrive`; `true` if the
    /// wire was empty (then `WireHead` is due at `arrive`).
    #[inline]
    pub fn wire_push(&mut self, arrive: SimTime, p: Packet) -> bool {
        let was_empty = self.wire.is_empty();
        if self.vary.is_some() {
            self.varying_wire_push();
        }
        self.wire.push_back((arrive, p));
        was_empty
    }

    /// The packet at the wire's head reaches the far end; returns it, and when the next one
    /// does and when that one began to be sent.
    #[inline]
    pub fn wire_pop(&mut self) -> (Packet, Option<(SimTime, SimTime)>) {
        let (_, p) = self.wire.pop_front().expect("a WireHead event implies a packet on the wire");
        if self.vary.is_some() {
            let started = self.varying_wire_pop();
            return (p, self.wire.front().map(|&(at, _)| (at, started.unwrap_or(at))));
        }
        let next = self.wire.front().map(|&(at, ref q)| {
            let tx = if self.tx_time_of.0 == q.size { self.tx_time_of.1 } else { self.rate.tx_time(q.size) };
            (at, at - self.delay - tx)
        });
        (p, next)
    }

    /// Utilization over `[0, now]`: busy time over elapsed time.
    pub fn utilization(&self, now: SimTime) -> f64 {
        if now.0 == 0 {
            0.0
        } else {
            self.busy_time.0 as f64 / now.0 as f64
        }
    }
}
