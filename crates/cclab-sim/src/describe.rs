//! The built network as data, for translating a scenario into another
//! simulator (`cclab crosscheck`): every link with its queue as built, every
//! flow with the TCP settings its scenario and stack profile resolved to.
//! A translator reads the build rather than the scenario so that it never
//! re-derives a default (a "0.25bdp" buffer, a profile's initial window, a
//! start drawn from `start_spread`) and cannot disagree with the run.

use crate::queue::Capacity;
use crate::sim::Simulation;
use serde::Serialize;
use std::collections::BTreeMap;

/// A built simulation, before it runs.
#[derive(Serialize, Debug)]
pub struct Network {
    pub nodes: usize,
    /// Results cover [warmup, end].
    pub warmup_s: f64,
    pub links: Vec<LinkInfo>,
    pub flows: Vec<FlowInfo>,
    pub udp: Vec<UdpInfo>,
    /// Web objects are not described; a translator refuses them.
    pub web: bool,
}

impl Network {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a network description always serializes")
    }
}

/// A UDP source as built: constant bit rate, or on/off with exponential periods.
#[derive(Serialize, Debug)]
pub struct UdpInfo {
    pub name: String,
    pub group: String,
    pub src: u32,
    pub dst: u32,
    /// Link indices the packets cross.
    pub path: Vec<u32>,
    /// Packet size on the wire, bytes.
    pub packet_size: u32,
    /// Sending rate while on, bit/s (packet size over the interval between packets).
    pub rate_bps: f64,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    /// Mean on and off periods of an on/off source, seconds (both exponential).
    pub on_s: Option<f64>,
    pub off_s: Option<f64>,
}

/// One direction of a link.
#[derive(Serialize, Debug)]
pub struct LinkInfo {
    pub name: String,
    pub role: &'static str,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay_s: f64,
    /// Random loss probability of each arriving packet, if any.
    pub loss: Option<f64>,
    /// The rate's steps, `[seconds, bit/s]`, if it has a schedule (docs/links.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<Vec<(f64, u64)>>,
    /// The delay's steps, `[seconds, seconds]`, if it has a schedule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_schedule: Option<Vec<(f64, f64)>>,
    /// The random loss's steps, `[seconds, probability]`, if it has a schedule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_schedule: Option<Vec<(f64, f64)>>,
    /// Each packet's delay uniform within this many seconds of the delay, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter_s: Option<f64>,
    /// The queue; `None` for a discipline that cannot be described.
    pub queue: Option<QueueInfo>,
}

/// A queue discipline as built: its registry name, buffer and resolved parameters.
#[derive(Serialize, Debug, Clone)]
pub struct QueueInfo {
    pub kind: &'static str,
    /// The buffer in packets, or in bytes; neither for an unlimited one.
    pub capacity_pkts: Option<u64>,
    pub capacity_bytes: Option<u64>,
    pub params: BTreeMap<&'static str, f64>,
}

impl QueueInfo {
    pub fn new(kind: &'static str, cap: Capacity, params: &[(&'static str, f64)]) -> Self {
        let (capacity_pkts, capacity_bytes) = match cap {
            Capacity::Packets(n) => (Some(n), None),
            Capacity::Bytes(b) => (None, Some(b)),
            Capacity::Unlimited => (None, None),
        };
        QueueInfo { kind, capacity_pkts, capacity_bytes, params: params.iter().copied().collect() }
    }
}

/// One TCP flow: its ends, times and resolved settings.
#[derive(Serialize, Debug)]
pub struct FlowInfo {
    pub name: String,
    pub group: String,
    pub cc: String,
    /// The algorithm built for `cc` under the flow's stack (`StackProfile::variant_of`:
    /// "bic-linux" for `bic` under `linux`), as it names itself.
    pub cc_built: String,
    /// The algorithm's resolved parameters, where it reports them (`CongestionControl::params`).
    pub cc_params: BTreeMap<&'static str, f64>,
    pub src: u32,
    pub dst: u32,
    /// The links of the data and ACK paths, in order.
    pub path_data: Vec<u32>,
    pub path_ack: Vec<u32>,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    /// Segments to send; `None` for a bulk flow.
    pub size_pkts: Option<u64>,
    pub packet_size: u32,
    pub ack_size: u32,
    pub recovery: &'static str,
    /// Proportional Rate Reduction sets the window in recovery (the stack's choice, with SACK).
    pub prr: bool,
    pub stack: &'static str,
    pub init_cwnd: f64,
    /// `None`: no initial threshold (infinite).
    pub init_ssthresh: Option<f64>,
    /// `None`: no receiver window.
    pub rwnd: Option<u64>,
    pub timestamps: bool,
    /// `TcpConfig::ts_clock`: the timestamp clock's tick, seconds (0: exact).
    pub timestamp_clock_s: f64,
    /// A SYN first, data once it is acknowledged (`StackProfile::syn`).
    pub handshake: bool,
    /// `AckCounting::name`: what an ACK counts towards window growth.
    pub ack_counting: &'static str,
    /// `CaRtt::name`: the RTT sample the congestion control gets.
    pub ca_rtt: &'static str,
    /// `LossDetection::name` where it applies (an RFC 6675 SACK sender), else "dupthresh".
    pub loss_detection: &'static str,
    pub dupthresh: u32,
    /// `TcpConfig::sacked_retx_in_pipe`: ns-3.44's count of SACKed retransmissions.
    pub sacked_retx_in_pipe: bool,
    /// `TcpConfig::resend_below_high_sack`: ns-3.44's NextSeg rule (1.b) in every state.
    pub resend_below_high_sack: bool,
    pub ecn: bool,
    pub rto_min_s: f64,
    pub rto_initial_s: f64,
    pub rto_max_s: f64,
    pub delayed_ack: bool,
    pub delack_timeout_s: f64,
    /// ACKs sent at once at the start despite delayed ACKs (Linux's quick-ACK mode).
    pub quickacks: u32,
    /// The receiver follows Linux's receive-buffer autotuning and its quick ACKs.
    pub rcv_autotune: bool,
    pub overhead_s: f64,
}

/// Describes `sim` as built.
pub fn describe(sim: &Simulation) -> Network {
    let links = sim
        .links
        .iter()
        .map(|l| LinkInfo {
            name: l.name.clone(),
            role: l.role,
            from: l.from,
            to: l.to,
            rate_bps: l.rate.bps(),
            delay_s: l.delay.secs_f64(),
            loss: l.loss.as_ref().map(|(p, _)| *p),
            rate_schedule: l
                .vary
                .as_ref()
                .and_then(|v| v.rate.as_ref())
                .map(|s| s.steps().map(|(t, r)| (t.secs_f64(), r.bps())).collect()),
            delay_schedule: l
                .vary
                .as_ref()
                .and_then(|v| v.delay.as_ref())
                .map(|s| s.steps().map(|(t, d)| (t.secs_f64(), d.secs_f64())).collect()),
            loss_schedule: l
                .vary
                .as_ref()
                .and_then(|v| v.loss.as_ref())
                .map(|s| s.steps().map(|(t, p)| (t.secs_f64(), p)).collect()),
            jitter_s: l.vary.as_ref().and_then(|v| v.jitter.as_ref()).map(|(j, _)| j.secs_f64()),
            queue: l.queue.describe(),
        })
        .collect();
    let flows = sim
        .flows
        .iter()
        .filter(|f| f.web_object.is_none())
        .map(|f| {
            let c = &f.sender.cfg;
            let r = f.receiver.cfg();
            let first = f.path_data.first().map(|&i| sim.links[i as usize].from).unwrap_or(0);
            let last = f.path_data.last().map(|&i| sim.links[i as usize].to).unwrap_or(0);
            FlowInfo {
                name: f.name.clone(),
                group: f.group.clone(),
                cc: f.cc_name.clone(),
                cc_built: f.sender.cc.name().to_string(),
                cc_params: f.sender.cc.params().into_iter().collect(),
                src: first,
                dst: last,
                path_data: f.path_data.clone(),
                path_ack: f.path_ack.clone(),
                start_s: f.start.secs_f64(),
                stop_s: f.stop.map(|t| t.secs_f64()),
                size_pkts: (f.size_pkts() != u64::MAX).then(|| f.size_pkts()),
                packet_size: c.mss,
                ack_size: c.ack_size,
                recovery: c.recovery.name(),
                prr: c.stack.prr && c.recovery == crate::tcp::Recovery::Sack,
                stack: c.stack.name,
                init_cwnd: c.init_cwnd,
                init_ssthresh: c.init_ssthresh.is_finite().then_some(c.init_ssthresh),
                rwnd: (c.rwnd != u64::MAX).then_some(c.rwnd),
                timestamps: c.timestamps,
                timestamp_clock_s: c.ts_clock.secs_f64(),
                handshake: c.stack.syn,
                ack_counting: c.stack.ack_counting.name(),
                ca_rtt: c.stack.ca_rtt.name(),
                loss_detection: if c.recovery == crate::tcp::Recovery::Sack
                    && c.stack.sack_flavour == crate::tcp::SackFlavour::Rfc6675
                {
                    c.stack.loss_detection.name()
                } else {
                    "dupthresh"
                },
                dupthresh: c.dupthresh,
                sacked_retx_in_pipe: c.sacked_retx_in_pipe,
                resend_below_high_sack: c.resend_below_high_sack,
                ecn: c.ecn,
                rto_min_s: c.rto.min.secs_f64(),
                rto_initial_s: c.rto.initial.secs_f64(),
                rto_max_s: c.rto.max.secs_f64(),
                delayed_ack: r.delayed_ack,
                delack_timeout_s: r.delack_timeout.secs_f64(),
                quickacks: r.quickacks,
                rcv_autotune: r.autotune_mss.is_some(),
                overhead_s: f.overhead().secs_f64(),
            }
        })
        .collect();
    Network {
        nodes: sim.n_nodes,
        warmup_s: sim.warmup.secs_f64(),
        links,
        flows,
        udp: sim
            .udp
            .iter()
            .map(|u| UdpInfo {
                name: u.name.clone(),
                group: u.group.clone(),
                src: u.path.first().map(|&i| sim.links[i as usize].from).unwrap_or(0),
                dst: u.path.last().map(|&i| sim.links[i as usize].to).unwrap_or(0),
                path: u.path.clone(),
                packet_size: u.size,
                rate_bps: u.size as f64 * 8.0 / u.interval.secs_f64(),
                start_s: u.start.secs_f64(),
                stop_s: u.stop.map(|t| t.secs_f64()),
                on_s: u.on_off.map(|(on, _)| on.mean()),
                off_s: u.on_off.map(|(_, off)| off.mean()),
            })
            .collect(),
        web: sim.web.is_some(),
    }
}
