//! Opt-in packet and sender-state traces (a scenario's `[trace]` table), and pcapng
//! captures of chosen flows.
//!
//! Off by default, and then free: the simulation holds `Option<Box<Trace>>`, and every hook
//! is one test of it on paths that already branch. On, it records:
//!
//! - `packets`: one row per event of a traced packet: `send` (a data segment handed down by
//!   its sender, with why it is a retransmission), at each traced link `enqueue`, `drop`
//!   (with its cause), `mark` (ECN CE), `dequeue` (the packet starts its transmission), then
//!   `deliver` (a data segment reaching its receiver, an ACK its sender), an ACK's `send` by
//!   the receiver, and the sender's timers firing (`rto`, `reorder_timer`, `probe_timer`);
//! - `sender`: the sender's state after each ACK it processes and each timer that fires
//!   (window, threshold, RTT estimator, pipe, pacing rate, recovery state, and the
//!   algorithm's own state where it shows one, `CongestionControl::observe`);
//! - a pcapng file of the traced flows (`pcap.rs`: the capture point is the sender's host).
//!
//! Which packets: those of the traced flows (`flows`, default all TCP flows) at the traced
//! links (`links`, default all); a trace naming no flow also logs UDP packets at its links.
//!
//! Tracing never changes a result: it only reads. The engine's shortcut that hands a packet
//! to a private link ahead of its time (sim/link.rs) would log that link's events early, so
//! every link where an event can be logged is kept out of it (`Trace::observed_links`);
//! the shortcut is invisible in results, so the traced run's results are the untraced run's.
//!
//! Memory is bounded: every row and every pcap record counts against `max_records`; past it
//! nothing more is recorded and the run ends with an error naming the field.

pub mod pcap;
mod table;

use crate::cc::CaState;
use crate::packet::{Kind, Packet, SackBlock};
use crate::queue::DropCause;
use crate::tcp::{Sender, Timer};
use crate::units::SimTime;
use pcap::{FlowAddr, PcapWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

/// What a scenario's `[trace]` table resolved to.
#[derive(Clone, Debug)]
pub struct TraceConfig {
    /// Per flow index, traced or not; `None`: every TCP flow (web objects included) and UDP.
    pub flows: Option<Vec<bool>>,
    /// Per link, whether packet events are logged there.
    pub links: Vec<bool>,
    /// Record the `packets` table.
    pub packets: bool,
    /// Record the `sender` table.
    pub sender: bool,
    /// Write the traced flows' packets to this pcapng file.
    pub pcap: Option<PathBuf>,
    /// Bytes of each frame kept in the pcap (the original length is recorded).
    pub snaplen: u32,
    /// Rows plus pcap records at most.
    pub max_records: u64,
}

/// A packet event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Ev {
    Send,
    Enqueue,
    Drop,
    Mark,
    Dequeue,
    Deliver,
    Rto,
    ReorderTimer,
    ProbeTimer,
}

impl Ev {
    pub fn name(self) -> &'static str {
        match self {
            Ev::Send => "send",
            Ev::Enqueue => "enqueue",
            Ev::Drop => "drop",
            Ev::Mark => "mark",
            Ev::Dequeue => "dequeue",
            Ev::Deliver => "deliver",
            Ev::Rto => "rto",
            Ev::ReorderTimer => "reorder_timer",
            Ev::ProbeTimer => "probe_timer",
        }
    }
}

/// Why: a drop's cause, or a retransmission's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cause {
    None,
    Overflow,
    Early,
    LinkLoss,
    /// A waiting packet dropped to make room (FQ-CoDel's fattest flow) or at dequeue (CoDel).
    HeadOverflow,
    HeadEarly,
    /// Retransmitted in fast recovery (duplicate ACKs, SACK or RACK found the loss).
    Fast,
    /// Retransmitted by the timeout or in the loss recovery it opened.
    Timeout,
    /// Retransmitted when RACK's reordering timer fired.
    Rack,
    /// Retransmitted as a tail loss probe.
    Probe,
    /// Retransmitted in another state (go-back-N of ns-2's Reno after a timeout's end, say).
    Other,
}

impl Cause {
    pub fn name(self) -> &'static str {
        match self {
            Cause::None => "",
            Cause::Overflow => "overflow",
            Cause::Early => "early",
            Cause::LinkLoss => "link_loss",
            Cause::HeadOverflow => "head_overflow",
            Cause::HeadEarly => "head_early",
            Cause::Fast => "fast",
            Cause::Timeout => "timeout",
            Cause::Rack => "rack",
            Cause::Probe => "probe",
            Cause::Other => "other",
        }
    }

    pub fn of_drop(c: DropCause, head: bool) -> Cause {
        match (c, head) {
            (DropCause::LinkLoss, _) => Cause::LinkLoss,
            (DropCause::Overflow, false) => Cause::Overflow,
            (DropCause::Early, false) => Cause::Early,
            (DropCause::Overflow, true) => Cause::HeadOverflow,
            (DropCause::Early, true) => Cause::HeadEarly,
        }
    }
}

/// `link` of an event at an endpoint.
pub const NO_LINK: u32 = u32::MAX;

/// One row of the `packets` table.
#[derive(Clone, Copy, Debug)]
pub struct PacketRow {
    pub t: SimTime,
    pub seq: u64,
    pub flow: u32,
    pub link: u32,
    pub size: u32,
    /// Packets waiting in the link's queue after the event.
    pub qlen: u32,
    pub sack: [SackBlock; 3],
    pub ev: Ev,
    pub cause: Cause,
    pub kind: Kind,
    pub flags: u8,
    pub n_sack: u8,
    pub retx: bool,
}

/// One row of the `sender` table.
#[derive(Clone, Copy, Debug)]
pub struct SenderRow {
    pub t: SimTime,
    pub flow: u32,
    /// `Ev::Deliver` for an ACK, a timer's event for a timer.
    pub ev: Ev,
    pub ack: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt: f64,
    pub rttvar: f64,
    pub rto: SimTime,
    pub rtt: SimTime,
    pub pipe: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub pacing: f64,
    pub state: CaState,
    pub retransmits: u64,
    pub obs: Option<crate::cc::CcObservation>,
}

struct Pcap {
    w: PcapWriter<BufWriter<File>>,
    /// Per flow, the next IPv4 identification each way.
    ip_id: Vec<[u16; 2]>,
    addrs: Vec<Option<FlowAddr>>,
}

/// A trace being recorded.
pub struct Trace {
    pub cfg: TraceConfig,
    pub packets: Vec<PacketRow>,
    pub sender: Vec<SenderRow>,
    pcap: Option<Pcap>,
    records: u64,
    /// The first error: (field, message); nothing is recorded after it.
    error: Option<(&'static str, String)>,
    /// The sender timer being handled, for the cause of the retransmissions it sends.
    pub timer: Option<Timer>,
}

impl Trace {
    pub fn new(cfg: TraceConfig) -> Self {
        Trace { cfg, packets: Vec::new(), sender: Vec::new(), pcap: None, records: 0, error: None, timer: None }
    }

    /// Flow `f` is traced.
    #[inline]
    pub fn flow_on(&self, f: u32) -> bool {
        match &self.cfg.flows {
            None => true,
            Some(v) => v.get(f as usize).copied().unwrap_or(false),
        }
    }

    /// Events of `p` at link `l` are logged.
    #[inline]
    pub fn packet_on(&self, l: u32, p: &Packet) -> bool {
        self.cfg.packets
            && self.error.is_none()
            && self.cfg.links.get(l as usize).copied().unwrap_or(false)
            && match p.kind {
                Kind::Udp => self.cfg.flows.is_none(),
                _ => self.flow_on(p.flow),
            }
    }

    /// Events at link `l` may be logged (its queue's marks are then read).
    #[inline]
    pub fn link_on(&self, l: u32) -> bool {
        self.cfg.packets && self.error.is_none() && self.cfg.links.get(l as usize).copied().unwrap_or(false)
    }

    /// The links where an event can be logged: those the engine must not cut packets through
    /// to (sim/link.rs). `paths`: each flow's data and ACK paths.
    pub fn observed_links<'a>(&self, n_links: usize, paths: impl Iterator<Item = (u32, [&'a [u32]; 2])>) -> Vec<bool> {
        if !self.cfg.packets {
            return vec![false; n_links];
        }
        if self.cfg.flows.is_none() {
            return self.cfg.links.clone();
        }
        let mut on = vec![false; n_links];
        for (f, ps) in paths {
            if self.flow_on(f) {
                for &l in ps.iter().flat_map(|p| p.iter()) {
                    on[l as usize] = self.cfg.links[l as usize];
                }
            }
        }
        on
    }

    /// Counts one record; `false` once the budget is spent (the error is then set).
    #[inline]
    fn take(&mut self) -> bool {
        if self.error.is_some() {
            return false;
        }
        if self.records >= self.cfg.max_records {
            self.error = Some((
                "trace.max_records",
                format!("(the trace reached {} records, rows and pcap packets together)", self.cfg.max_records),
            ));
            return false;
        }
        self.records += 1;
        true
    }

    #[inline]
    pub fn packet(&mut self, t: SimTime, ev: Ev, cause: Cause, link: u32, qlen: usize, p: &Packet) {
        if !self.take() {
            return;
        }
        self.packets.push(PacketRow {
            t,
            seq: p.seq,
            flow: p.flow,
            link,
            size: p.size,
            qlen: qlen.min(u32::MAX as usize) as u32,
            sack: p.sack,
            ev,
            cause,
            kind: p.kind,
            flags: p.flags,
            n_sack: p.n_sack,
            retx: p.retx,
        });
    }

    /// The sender's state now, after an ACK (`ev` = `Deliver`) or a timer.
    pub fn sender_state(&mut self, t: SimTime, flow: u32, ev: Ev, ack: u64, s: &Sender) {
        if !self.cfg.sender || !self.flow_on(flow) || !self.take() {
            return;
        }
        self.sender.push(SenderRow {
            t,
            flow,
            ev,
            ack,
            cwnd: s.cwnd,
            ssthresh: s.ssthresh,
            srtt: s.rtt.srtt().secs_f64(),
            rttvar: s.rtt.rttvar(),
            rto: s.rtt.rto(),
            rtt: s.rtt.latest,
            pipe: s.sb.pipe(),
            snd_una: s.sb.una(),
            snd_nxt: s.sb.high(),
            pacing: s.pacer.rate.map_or(f64::NAN, |r| r.0 as f64),
            state: s.state,
            retransmits: s.stats.retransmits,
            obs: s.cc.observe(),
        });
    }

    /// Opens the pcap file, if one is asked for, with each flow's addressing.
    pub fn start(&mut self, addrs: Vec<Option<FlowAddr>>) {
        let Some(path) = self.cfg.pcap.clone() else { return };
        let opened =
            File::create(&path).and_then(|f| PcapWriter::new(BufWriter::with_capacity(1 << 16, f), self.cfg.snaplen));
        match opened {
            Ok(w) => self.pcap = Some(Pcap { w, ip_id: Vec::new(), addrs }),
            Err(e) => self.error = Some(("trace.pcap", format!("(cannot write {}: {e})", path.display()))),
        }
    }

    /// Flow `f`'s addressing, for a flow started during the run (a web object).
    pub fn pcap_wants(&self, f: u32) -> bool {
        self.pcap.is_some() && self.error.is_none() && self.flow_on(f)
    }

    pub fn add_addr(&mut self, f: u32, a: FlowAddr) {
        if let Some(pc) = &mut self.pcap {
            if pc.addrs.len() <= f as usize {
                pc.addrs.resize(f as usize + 1, None);
            }
            pc.addrs[f as usize] = Some(a);
        }
    }

    pub fn has_addr(&self, f: u32) -> bool {
        self.pcap.as_ref().is_some_and(|pc| pc.addrs.get(f as usize).is_some_and(|a| a.is_some()))
    }

    /// Writes `p` (a traced flow's) to the pcap at `t`.
    pub fn capture(&mut self, t: SimTime, p: &Packet) {
        if !self.pcap_wants(p.flow) || !self.take() {
            return;
        }
        let Some(pc) = &mut self.pcap else { return };
        let Some(Some(a)) = pc.addrs.get(p.flow as usize).copied() else { return };
        let f = p.flow as usize;
        if pc.ip_id.len() <= f {
            pc.ip_id.resize(f + 1, [0, 0]);
        }
        let dir = usize::from(p.kind != Kind::Data);
        let id = pc.ip_id[f][dir];
        pc.ip_id[f][dir] = id.wrapping_add(1);
        if let Err(e) = pc.w.packet(t, p, &a, id) {
            self.error = Some(("trace.pcap", format!("(writing the pcap failed: {e})")));
        }
    }

    /// Writes out what the pcap holds in its buffer.
    pub fn flush(&mut self) {
        if let Some(pc) = &mut self.pcap {
            if let Err(e) = pc.w.flush() {
                self.error.get_or_insert(("trace.pcap", format!("(writing the pcap failed: {e})")));
            }
        }
    }

    /// The first error (the budget spent, the pcap not writable): (field, message).
    pub fn error(&self) -> Option<(&'static str, &str)> {
        self.error.as_ref().map(|(f, m)| (*f, m.as_str()))
    }
}

pub use table::{packets_table, sender_table};
