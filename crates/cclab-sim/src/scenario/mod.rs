//! A scenario is data: a TOML file (or the same structure as JSON from
//! Python). This module holds its schema, validates every field before
//! anything runs, and builds the [`Simulation`].
//!
//! Every error names the field (as a path: `flows[1].start`), the value,
//! and what is accepted.
//!
//! ```toml
//! name = "single-reno"
//! duration = "120s"
//! warmup = "20s"                # results cover [warmup, duration]
//! sample_interval = "100ms"     # time series
//!
//! [topology]
//! kind = "dumbbell"
//! bottleneck = { rate = "100Mbps", delay = "38ms", buffer = "0.25bdp" }
//!
//! [[flows]]
//! cc = "newreno"
//! count = 1
//! rtt = "80ms"
//! ```

use crate::cc::{self, Params};
use crate::net::Link;
use crate::queue::red::{Adapt, Red, RedConfig};
use crate::queue::xcp::{Xcp, XcpConfig};
use crate::queue::{droptail::DropTail, Capacity, QueueDisc};
use crate::rng::{self, stream_rng};
use crate::sim::{FlowSetup, Simulation, WebState};
use crate::tcp::{ReceiverConfig, Recovery, RtoConfig, TcpConfig};
use crate::traffic::udp::UdpFlow;
use crate::traffic::web::{schedule, WebConfig};
use crate::traffic::Dist;
use crate::units::{self, BufferSize, Rate, SimTime};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

mod traffic;
pub use traffic::{OneOrRange, UdpGroup, WebSpec};

/// A field that failed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// Path of the field, e.g. `topology.bottleneck.rate`.
    pub field: String,
    pub value: String,
    pub accepted: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.starts_with('(') {
            write!(f, "{}: {}; accepted: {}", self.field, &self.value[1..self.value.len() - 1], self.accepted)
        } else {
            write!(f, "{}: invalid value '{}'; accepted: {}", self.field, self.value, self.accepted)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn err(field: impl Into<String>, value: impl fmt::Display, accepted: impl Into<String>) -> ScenarioError {
    ScenarioError { field: field.into(), value: value.to_string(), accepted: accepted.into() }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Simulated time, e.g. "120s".
    pub duration: String,
    /// Master seed; `run` may override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Results (utilization, goodput) are measured over [warmup, duration].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<String>,
    /// Interval of the time series; none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_interval: Option<String>,
    pub topology: Topology,
    #[serde(default)]
    pub flows: Vec<FlowGroup>,
    /// UDP sources (constant bit rate or on/off).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub udp: Vec<UdpGroup>,
    /// Web-like traffic (ns-2 PagePool/WebTraf).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<WebSpec>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// "dumbbell" or "graph".
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Dumbbell: the bottleneck link (both directions; the reverse carries the ACKs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<LinkParams>,
    /// Dumbbell: the RTT that defines one BDP for buffers given in "bdp";
    /// default: the mean round-trip propagation delay of the flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdp_rtt: Option<String>,
    /// Graph: node names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<String>>,
    /// Graph: links between named nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<GraphLink>>,
}

fn default_kind() -> String {
    "dumbbell".into()
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    pub rate: String,
    /// One-way propagation delay.
    pub delay: String,
    /// Default "1bdp" on a dumbbell bottleneck.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<String>,
    /// Queue discipline; default "droptail".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// Parameters of the queue discipline (see docs/queues.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_params: Option<BTreeMap<String, f64>>,
    /// Buffer of the reverse direction (ACK path); default "unlimited".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_buffer: Option<String>,
    /// Random loss probability of the forward direction, in [0, 1) (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub from: String,
    pub to: String,
    pub rate: String,
    pub delay: String,
    /// Default "unlimited".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_params: Option<BTreeMap<String, f64>>,
    /// Random loss probability, in [0, 1), each direction (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    /// Also create the link `to -> from` with the same parameters (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplex: Option<bool>,
}

/// A group of identical TCP flows.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Number of flows in the group (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Congestion-control algorithm by registry name.
    pub cc: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_params: Option<BTreeMap<String, f64>>,
    /// "reno", "newreno" or "sack"; default "reno" for cc = "reno", "newreno" otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
    /// Start time (default "0s").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Each flow starts at a uniformly random time in [start, start + start_spread].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_spread: Option<String>,
    /// The application stops sending new data then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    /// Finite flow: bytes to send (rounded up to whole packets). Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// Dumbbell: round-trip propagation delay; sets the sender's access delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<String>,
    /// Dumbbell: sender access link rate (default 10x the bottleneck).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_rate: Option<String>,
    /// Dumbbell: sender access link delay (default 1ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_delay: Option<String>,
    /// Dumbbell: receiver access link rate (default: access_rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_rate: Option<String>,
    /// Dumbbell: receiver access link delay (default 1ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_delay: Option<String>,
    /// Dumbbell: DropTail buffer of each of the group's access links (default "unlimited").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_buffer: Option<String>,
    /// Graph: source node name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    /// Graph: destination node name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    /// Data packet size on the wire (default "1500B").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<String>,
    /// ACK size on the wire (default "40B").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_size: Option<String>,
    /// Initial window, packets (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_cwnd: Option<f64>,
    /// Initial ssthresh, packets (default unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_ssthresh: Option<f64>,
    /// Receiver window, packets (default unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timeout (default "100ms", ns-2's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_timeout: Option<String>,
    /// RFC 7323 timestamps (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// Minimum RTO (default "200ms").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min: Option<String>,
    /// RTO before the first RTT sample (default "1s").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_initial: Option<String>,
    /// Duplicate ACKs for fast retransmit (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupthresh: Option<u32>,
    /// Random send overhead per data packet, uniform in [0, overhead] (ns-2's
    /// `overhead_`); breaks drop-tail phase effects. Default "0s".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<String>,
    /// ECN (RFC 3168): packets are ECN-capable and ECN echoes reduce the window (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Dumbbell: send from the right side to the left, through the reverse
    /// bottleneck (two-way traffic; the reverse direction then gets the same
    /// buffer unless `reverse_buffer` says otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<bool>,
}

impl Scenario {
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let msg = inner.message().to_string();
            ScenarioError {
                field: if path == "." { "(file)".into() } else { path },
                value: format!("({msg})"),
                accepted: "the fields and types of docs/scenario.md".into(),
            }
        })
    }

    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            ScenarioError {
                field: if path == "." { "(scenario)".into() } else { path },
                // serde_json appends the position in the JSON text, which the user never wrote.
                value: format!("({})", strip_position(&inner.to_string())),
                accepted: "the fields and types of docs/scenario.md".into(),
            }
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a scenario always serializes")
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a scenario always serializes")
    }

    /// Checks every field and builds the simulation.
    pub fn build(&self, seed: u64) -> Result<Built, ScenarioError> {
        build(self, seed)
    }
}

/// Drops serde_json's " at line L column C" suffix.
fn strip_position(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => &msg[..i],
        _ => msg,
    }
}

fn time(field: &str, s: &str) -> Result<SimTime, ScenarioError> {
    units::parse_time(s).map_err(|e| err(field, s, e.accepted))
}

fn rate(field: &str, s: &str) -> Result<Rate, ScenarioError> {
    units::parse_rate(s).map_err(|e| err(field, s, e.accepted))
}

fn bytes(field: &str, s: &str) -> Result<u64, ScenarioError> {
    units::parse_bytes(s).map_err(|e| err(field, s, e.accepted))
}

fn buffer(field: &str, s: &str) -> Result<BufferSize, ScenarioError> {
    units::parse_buffer(s).map_err(|e| err(field, s, e.accepted))
}

/// A simulation ready to run, with what the scenario resolved to.
pub struct Built {
    pub sim: Simulation,
    pub duration: SimTime,
    pub seed: u64,
    /// One BDP in packets, for a dumbbell (what "1bdp" meant).
    pub bdp_pkts: Option<f64>,
}

const QUEUES: &str = "droptail, red, ared, gared, xcp";

/// What a queue discipline needs to know of its place.
struct QueueSite<'a> {
    field: &'a str,
    kind: Option<&'a str>,
    params: Option<&'a BTreeMap<String, f64>>,
    cap: Capacity,
    rate: Rate,
    /// Data packet size, bytes (RED's mean packet size by default).
    pkt_size: u32,
    seed: u64,
    link_index: u64,
}

fn make_queue(s: &QueueSite) -> Result<Box<dyn QueueDisc>, ScenarioError> {
    let kind = s.kind.unwrap_or("droptail");
    let empty = BTreeMap::new();
    let params = s.params.unwrap_or(&empty);
    let perr = |e: cc::ParamError| {
        let f = s.field.trim_end_matches(".queue");
        err(format!("{f}.queue_params.{}", e.param), e.value, e.accepted)
    };
    match kind {
        "droptail" => {
            cc::ParamReader::new(params).finish().map_err(perr)?;
            Ok(Box::new(DropTail::new(s.cap)))
        }
        "red" | "ared" | "gared" => {
            let mut r = cc::ParamReader::new(params);
            let mean = r.get("mean_pktsize", s.pkt_size as f64, 1.0, 1e6).map_err(perr)?;
            let target = SimTime::from_secs_f64(r.get("target_delay", 0.005, 1e-9, 100.0).map_err(perr)?);
            let base = match kind {
                "red" => RedConfig::red(),
                "ared" => RedConfig::ared(s.rate, mean, target),
                _ => RedConfig { adapt: Adapt::Gared, ..RedConfig::ared(s.rate, mean, target) },
            };
            let min_th = r.get("min_th", base.min_th, 0.0, 1e12).map_err(perr)?;
            // ARED's rule of thumb max_th = 3 min_th follows a given min_th.
            let max_th_default = if kind == "red" { base.max_th.max(min_th * 3.0) } else { 3.0 * min_th };
            let cfg = RedConfig {
                min_th,
                max_th: r.get("max_th", max_th_default, 0.0, 1e12).map_err(perr)?,
                max_p: r.get("max_p", base.max_p, 0.0, 1.0).map_err(perr)?,
                q_weight: r.get("q_weight", base.q_weight, 1e-12, 1.0).map_err(perr)?,
                gentle: r.get("gentle", 1.0, 0.0, 1.0).map_err(perr)? != 0.0,
                wait: r.get("wait", 1.0, 0.0, 1.0).map_err(perr)? != 0.0,
                mean_pktsize: mean,
                adapt: base.adapt,
                interval: SimTime::from_secs_f64(r.get("interval", 0.5, 1e-6, 1e6).map_err(perr)?),
                alpha: r.get("alpha", base.alpha, 0.0, 1.0).map_err(perr)?,
                beta: r.get("beta", base.beta, 0.0, 1.0).map_err(perr)?,
                top: r.get("top", base.top, 0.0, 1.0).map_err(perr)?,
                bottom: r.get("bottom", base.bottom, 0.0, 1.0).map_err(perr)?,
                bytes: r.get_flag("bytes", false).map_err(perr)?,
                ecn: r.get_flag("ecn", false).map_err(perr)?,
            };
            r.finish().map_err(perr)?;
            if cfg.max_th <= cfg.min_th {
                let f = s.field.trim_end_matches(".queue");
                return Err(err(
                    format!("{f}.queue_params.max_th"),
                    cfg.max_th,
                    format!("a value above min_th ({})", cfg.min_th),
                ));
            }
            let rng = stream_rng(s.seed, rng::stream::RED, s.link_index);
            Ok(Box::new(Red::new(cfg, s.cap, s.rate, rng)))
        }
        "xcp" => {
            let mut r = cc::ParamReader::new(params);
            let d = XcpConfig::default();
            let cfg = XcpConfig {
                alpha: r.get("alpha", d.alpha, 0.0, 10.0).map_err(perr)?,
                beta: r.get("beta", d.beta, 0.0, 10.0).map_err(perr)?,
                gamma: r.get("gamma", d.gamma, 0.0, 1.0).map_err(perr)?,
            };
            r.finish().map_err(perr)?;
            Ok(Box::new(Xcp::new(cfg, s.cap, s.rate)))
        }
        other => Err(err(s.field, other, QUEUES)),
    }
}

fn loss_model(
    field: &str,
    p: Option<f64>,
    seed: u64,
    link_index: u64,
) -> Result<Option<(f64, rand_pcg::Pcg64)>, ScenarioError> {
    match p {
        None => Ok(None),
        Some(0.0) => Ok(None),
        Some(p) if (0.0..1.0).contains(&p) => Ok(Some((p, stream_rng(seed, rng::stream::LINK_LOSS, link_index)))),
        Some(p) => Err(err(field, p, "a probability in [0, 1)")),
    }
}

fn capacity(b: BufferSize, bdp_pkts: Option<f64>, field: &str) -> Result<Capacity, ScenarioError> {
    Ok(match b {
        BufferSize::Packets(n) => Capacity::Packets(n),
        BufferSize::Bytes(n) => Capacity::Bytes(n),
        BufferSize::Unlimited => Capacity::Unlimited,
        BufferSize::Bdp(k) => match bdp_pkts {
            Some(bdp) => Capacity::Packets(((k * bdp).round() as u64).max(1)),
            None => {
                return Err(err(
                    field,
                    format!("{k}bdp"),
                    "a buffer in packets or bytes (a BDP is defined only on a dumbbell)",
                ))
            }
        },
    })
}

/// A flow group's settings resolved from the scenario (before topology specifics).
struct GroupSettings {
    count: u32,
    cc_name: String,
    params: Params,
    tcp: TcpConfig,
    rcv: ReceiverConfig,
    start: SimTime,
    spread: SimTime,
    stop: Option<SimTime>,
    size_pkts: Option<u64>,
    overhead: SimTime,
}

fn group_settings(g: &FlowGroup, p: &str, duration: SimTime) -> Result<GroupSettings, ScenarioError> {
    let count = g.count.unwrap_or(1);
    if count == 0 || count > 1_000_000 {
        return Err(err(format!("{p}.count"), count, "a whole number from 1 to 1000000"));
    }
    let params: Params = g.cc_params.clone().unwrap_or_default();
    // Build once to validate the name and the parameters.
    cc::build(&g.cc, &params).map_err(|e| {
        if e.param.is_empty() {
            err(format!("{p}.cc"), &g.cc, e.accepted)
        } else {
            err(format!("{p}.cc_params.{}", e.param), e.value, e.accepted)
        }
    })?;
    let recovery = match &g.recovery {
        None => {
            if g.cc == "reno" {
                Recovery::Reno
            } else {
                Recovery::NewReno
            }
        }
        Some(r) => Recovery::parse(r).ok_or_else(|| err(format!("{p}.recovery"), r, Recovery::NAMES))?,
    };
    let mss = match &g.packet_size {
        None => 1500,
        Some(s) => bytes(&format!("{p}.packet_size"), s)?,
    };
    if !(64..=65_535).contains(&mss) {
        return Err(err(format!("{p}.packet_size"), g.packet_size.clone().unwrap_or_default(), "64B to 65535B"));
    }
    let ack_size = match &g.ack_size {
        None => 40,
        Some(s) => bytes(&format!("{p}.ack_size"), s)?,
    };
    if !(20..=65_535).contains(&ack_size) {
        return Err(err(format!("{p}.ack_size"), g.ack_size.clone().unwrap_or_default(), "20B to 65535B"));
    }
    let init_cwnd = g.init_cwnd.unwrap_or(2.0);
    if !(1.0..=1e9).contains(&init_cwnd) {
        return Err(err(format!("{p}.init_cwnd"), init_cwnd, "a number of packets from 1 to 1e9"));
    }
    let init_ssthresh = g.init_ssthresh.unwrap_or(f64::INFINITY);
    if init_ssthresh.is_nan() || init_ssthresh < 2.0 {
        return Err(err(format!("{p}.init_ssthresh"), init_ssthresh, "a number of packets >= 2"));
    }
    let rwnd = match g.rwnd {
        None => u64::MAX,
        Some(w) if (1.0..=1e12).contains(&w) && w.fract() == 0.0 => w as u64,
        Some(w) => return Err(err(format!("{p}.rwnd"), w, "a whole number of packets from 1 to 1e12")),
    };
    let dupthresh = g.dupthresh.unwrap_or(3);
    if !(1..=1000).contains(&dupthresh) {
        return Err(err(format!("{p}.dupthresh"), dupthresh, "1 to 1000"));
    }
    let mut rto = RtoConfig::default();
    if let Some(s) = &g.rto_min {
        rto.min = time(&format!("{p}.rto_min"), s)?;
    }
    if let Some(s) = &g.rto_initial {
        rto.initial = time(&format!("{p}.rto_initial"), s)?;
        if rto.initial == SimTime::ZERO {
            return Err(err(format!("{p}.rto_initial"), s, "a duration > 0"));
        }
    }
    let delack_timeout = match &g.delack_timeout {
        None => SimTime::from_millis(100),
        Some(s) => time(&format!("{p}.delack_timeout"), s)?,
    };
    let start = match &g.start {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.start"), s)?,
    };
    let spread = match &g.start_spread {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.start_spread"), s)?,
    };
    if start > duration {
        return Err(err(format!("{p}.start"), g.start.clone().unwrap_or_default(), "a time within the duration"));
    }
    let stop = match &g.stop {
        None => None,
        Some(s) => {
            let t = time(&format!("{p}.stop"), s)?;
            if t <= start + spread {
                return Err(err(format!("{p}.stop"), s, "a time after the start (and after start + start_spread)"));
            }
            Some(t)
        }
    };
    let size_pkts = match &g.size {
        None => None,
        Some(s) => {
            let b = bytes(&format!("{p}.size"), s)?;
            if b == 0 {
                return Err(err(format!("{p}.size"), s, "a size > 0"));
            }
            Some(b.div_ceil(mss))
        }
    };
    let timestamps = g.timestamps.unwrap_or(true);
    let overhead = match &g.overhead {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.overhead"), s)?,
    };
    Ok(GroupSettings {
        overhead,
        count,
        cc_name: g.cc.clone(),
        params,
        tcp: TcpConfig {
            mss: mss as u32,
            ack_size: ack_size as u32,
            recovery,
            init_cwnd,
            init_ssthresh,
            rwnd,
            rto,
            timestamps,
            dupthresh,
            ecn: g.ecn.unwrap_or(false),
        },
        rcv: ReceiverConfig {
            ack_size: ack_size as u32,
            sack: recovery == Recovery::Sack,
            delayed_ack: g.delayed_ack.unwrap_or(false),
            delack_timeout,
        },
        start,
        spread,
        stop,
        size_pkts,
    })
}

fn build(sc: &Scenario, seed: u64) -> Result<Built, ScenarioError> {
    let duration = time("duration", &sc.duration)?;
    if duration == SimTime::ZERO {
        return Err(err("duration", &sc.duration, "a duration > 0"));
    }
    let warmup = match &sc.warmup {
        None => SimTime::ZERO,
        Some(s) => {
            let w = time("warmup", s)?;
            if w >= duration {
                return Err(err("warmup", s, "a time shorter than the duration"));
            }
            w
        }
    };
    let sample_interval = match &sc.sample_interval {
        None => None,
        Some(s) => {
            let t = time("sample_interval", s)?;
            if t == SimTime::ZERO {
                return Err(err("sample_interval", s, "a duration > 0"));
            }
            Some(t)
        }
    };
    if sc.flows.is_empty() && sc.udp.is_empty() && sc.web.is_none() {
        return Err(err("flows", "[]", "at least one flow group, udp group or web section"));
    }
    let groups: Vec<GroupSettings> = sc
        .flows
        .iter()
        .enumerate()
        .map(|(i, g)| group_settings(g, &format!("flows[{i}]"), duration))
        .collect::<Result<_, _>>()?;
    let total: u64 = groups.iter().map(|g| g.count as u64).sum();
    if total > 1_000_000 {
        return Err(err("flows", total, "at most 1000000 flows in all"));
    }
    let udps: Vec<UdpSettings> = sc
        .udp
        .iter()
        .enumerate()
        .map(|(i, u)| udp_settings(u, &format!("udp[{i}]"), duration))
        .collect::<Result<_, _>>()?;
    let web = match &sc.web {
        None => None,
        Some(w) => Some(web_settings(w, duration)?),
    };
    // The packet size that defines "1bdp" and RED's mean packet size.
    let pkt_size = groups.first().map(|g| g.tcp.mss).or(web.as_ref().map(|w| w.tcp.mss)).unwrap_or(1500);

    let dumbbell = match sc.topology.kind.as_str() {
        "dumbbell" => true,
        "graph" => false,
        other => return Err(err("topology.kind", other, "dumbbell, graph")),
    };
    let (mut sim, bdp_pkts, access) = if dumbbell {
        let (sim, bdp, access) = build_dumbbell(sc, &groups, pkt_size, seed)?;
        (sim, Some(bdp), access)
    } else {
        if sc.web.is_some() {
            return Err(err("web", "(set)", "web traffic on a dumbbell topology (servers left, clients right)"));
        }
        (build_graph(sc, pkt_size, seed)?, None, Vec::new())
    };

    // Flows: their order and the random starts drawn in that order.
    let mut start_rng = stream_rng(seed, rng::stream::FLOW_START, 0);
    let mut idx = 0u32;
    for (gi, (g, spec)) in groups.iter().zip(&sc.flows).enumerate() {
        for k in 0..g.count {
            let (src, dst) = if dumbbell {
                add_pair(&mut sim, &access[gi], &format!("{idx}"), spec.reverse.unwrap_or(false))
            } else {
                let p = format!("flows[{gi}]");
                dumbbell_fields_unset(&p, &AccessFields::of_flow(spec), spec.reverse)?;
                graph_endpoints(sc, spec.src.as_deref(), spec.dst.as_deref(), &p)?
            };
            let start = if g.spread > SimTime::ZERO {
                SimTime(g.start.0 + start_rng.gen_range(0..=g.spread.0))
            } else {
                g.start
            };
            let cc = cc::build(&g.cc_name, &g.params).expect("validated above");
            let group = spec.name.clone().unwrap_or_else(|| format!("{}{}", g.cc_name, gi));
            sim.add_flow(FlowSetup {
                name: format!("{group}.{k}"),
                group,
                cc_name: g.cc_name.clone(),
                src,
                dst,
                tcp: g.tcp,
                receiver: g.rcv,
                cc,
                start,
                stop: g.stop,
                size_pkts: g.size_pkts,
                overhead: g.overhead,
                rng: stream_rng(seed, rng::stream::SEND_OVERHEAD, idx as u64),
            })
            .map_err(|e| err(format!("flows[{gi}]"), e.0, "endpoints connected by links"))?;
            idx += 1;
        }
    }

    // UDP sources.
    let mut uidx = 0u32;
    for (ui, (u, spec)) in udps.iter().zip(&sc.udp).enumerate() {
        let p = format!("udp[{ui}]");
        let acc = if dumbbell {
            let AccessCore { b_rate, b_delay } = access_core(sc)?;
            Some(dumbbell_access(&p, &AccessFields::of_udp(spec), b_rate, b_delay)?)
        } else {
            dumbbell_fields_unset(&p, &AccessFields::of_udp(spec), spec.reverse)?;
            None
        };
        for k in 0..u.count {
            let (src, dst) = match &acc {
                Some(a) => add_pair(&mut sim, a, &format!("u{uidx}"), spec.reverse.unwrap_or(false)),
                None => graph_endpoints(sc, spec.src.as_deref(), spec.dst.as_deref(), &p)?,
            };
            let group = spec.name.clone().unwrap_or_else(|| format!("udp{ui}"));
            let flow = UdpFlow {
                name: format!("{group}.{k}"),
                group,
                path: Vec::new(),
                size: u.size,
                interval: u.rate.tx_time(u.size),
                start: u.start,
                stop: u.stop,
                on_off: u.on_off,
                rng: stream_rng(seed, rng::stream::UDP, uidx as u64),
                on_until: SimTime::MAX,
                seq: 0,
                sent: 0,
                received: 0,
                received_bytes: 0,
                drops: 0,
            };
            sim.add_udp(flow, src, dst).map_err(|e| err(&p, e.0, "endpoints connected by links"))?;
            uidx += 1;
        }
    }

    // Web traffic: servers left, clients right, the schedule drawn up front.
    if let (Some(w), Some(spec)) = (web, &sc.web) {
        let AccessCore { b_rate, .. } = access_core(sc)?;
        let mut host_rng = stream_rng(seed, rng::stream::WEB, 0);
        let ten_x = Rate(b_rate.0.saturating_mul(10));
        let one_ms = OneOrRange::One("1ms".into());
        let mut servers = Vec::new();
        for i in 0..w.servers {
            let r = match &spec.server_rate {
                None => ten_x,
                Some(x) => traffic::draw_rate("web.server_rate", x, &mut host_rng)?,
            };
            let d =
                traffic::draw_time("web.server_delay", spec.server_delay.as_ref().unwrap_or(&one_ms), &mut host_rng)?;
            servers.push(add_host(&mut sim, 0, r, d, Capacity::Unlimited, &format!("ws{i}")));
        }
        let mut clients = Vec::new();
        for i in 0..w.clients {
            let r = match &spec.client_rate {
                None => ten_x,
                Some(x) => traffic::draw_rate("web.client_rate", x, &mut host_rng)?,
            };
            let d =
                traffic::draw_time("web.client_delay", spec.client_delay.as_ref().unwrap_or(&one_ms), &mut host_rng)?;
            clients.push(add_host(&mut sim, 1, r, d, Capacity::Unlimited, &format!("wc{i}")));
        }
        let objects = schedule(&w.cfg, &mut stream_rng(seed, rng::stream::WEB, 1), duration);
        sim.web = Some(WebState::new(objects, servers, clients, w.tcp, w.rcv, w.cc_name, w.params));
    }
    sim.sample_interval = sample_interval;
    sim.warmup = warmup;
    Ok(Built { sim, duration, seed, bdp_pkts })
}

/// The access links of one dumbbell host pair.
#[derive(Clone, Copy, Debug)]
struct Access {
    rate: Rate,
    delay: SimTime,
    rrate: Rate,
    rdelay: SimTime,
    /// Capacity of each access link's DropTail queue.
    buf: Capacity,
}

/// The access fields a flow or UDP group may set.
struct AccessFields<'a> {
    rtt: Option<&'a str>,
    access_rate: Option<&'a str>,
    access_delay: Option<&'a str>,
    receiver_rate: Option<&'a str>,
    receiver_delay: Option<&'a str>,
    access_buffer: Option<&'a str>,
}

impl<'a> AccessFields<'a> {
    fn of_flow(g: &'a FlowGroup) -> Self {
        AccessFields {
            rtt: g.rtt.as_deref(),
            access_rate: g.access_rate.as_deref(),
            access_delay: g.access_delay.as_deref(),
            receiver_rate: g.receiver_rate.as_deref(),
            receiver_delay: g.receiver_delay.as_deref(),
            access_buffer: g.access_buffer.as_deref(),
        }
    }

    fn of_udp(u: &'a UdpGroup) -> Self {
        AccessFields {
            rtt: None,
            access_rate: u.access_rate.as_deref(),
            access_delay: u.access_delay.as_deref(),
            receiver_rate: None,
            receiver_delay: u.receiver_delay.as_deref(),
            access_buffer: u.access_buffer.as_deref(),
        }
    }
}

/// The bottleneck's rate and delay.
struct AccessCore {
    b_rate: Rate,
    b_delay: SimTime,
}

fn access_core(sc: &Scenario) -> Result<AccessCore, ScenarioError> {
    let b = sc
        .topology
        .bottleneck
        .as_ref()
        .ok_or_else(|| err("topology.bottleneck", "(missing)", "a table with rate, delay, buffer"))?;
    Ok(AccessCore {
        b_rate: rate("topology.bottleneck.rate", &b.rate)?,
        b_delay: time("topology.bottleneck.delay", &b.delay)?,
    })
}

fn dumbbell_access(p: &str, f: &AccessFields, b_rate: Rate, b_delay: SimTime) -> Result<Access, ScenarioError> {
    let one_ms = SimTime::from_millis(1);
    let a_rate = match f.access_rate {
        None => Rate(b_rate.0.saturating_mul(10)),
        Some(s) => rate(&format!("{p}.access_rate"), s)?,
    };
    let r_rate = match f.receiver_rate {
        None => a_rate,
        Some(s) => rate(&format!("{p}.receiver_rate"), s)?,
    };
    let r_delay = match f.receiver_delay {
        None => one_ms,
        Some(s) => time(&format!("{p}.receiver_delay"), s)?,
    };
    let a_delay = match (f.rtt, f.access_delay) {
        (Some(r), Some(_)) => return Err(err(format!("{p}.rtt"), r, "either rtt or access_delay, not both")),
        (None, Some(s)) => time(&format!("{p}.access_delay"), s)?,
        (None, None) => one_ms,
        (Some(s), None) => {
            let rtt = time(&format!("{p}.rtt"), s)?;
            let fixed = SimTime(2 * (b_delay.0 + r_delay.0));
            if rtt < fixed {
                return Err(err(
                    format!("{p}.rtt"),
                    s,
                    format!("at least 2 x (bottleneck delay + receiver_delay) = {}ms", fixed.secs_f64() * 1e3),
                ));
            }
            SimTime((rtt.0 - fixed.0) / 2)
        }
    };
    let buf = match f.access_buffer {
        None => Capacity::Unlimited,
        Some(s) => match buffer(&format!("{p}.access_buffer"), s)? {
            BufferSize::Bdp(_) => {
                return Err(err(format!("{p}.access_buffer"), s, "a buffer in packets or bytes, or \"unlimited\""))
            }
            b => capacity(b, None, "")?,
        },
    };
    Ok(Access { rate: a_rate, delay: a_delay, rrate: r_rate, rdelay: r_delay, buf })
}

/// Adds a host attached to `router` (0: left, 1: right) by a duplex access link.
fn add_host(sim: &mut Simulation, router: u32, r: Rate, d: SimTime, buf: Capacity, name: &str) -> u32 {
    let h = sim.add_node();
    let side = if router == 0 { "r1" } else { "r2" };
    for (n, from, to) in [(format!("{name}->{side}"), h, router), (format!("{side}->{name}"), router, h)] {
        let mut l = Link::new(n, from, to, r, d, Box::new(DropTail::new(buf)));
        l.role = "access";
        sim.add_link(l);
    }
    h
}

/// Adds a sender on the left and a receiver on the right; `reverse` swaps the roles.
fn add_pair(sim: &mut Simulation, a: &Access, name: &str, reverse: bool) -> (u32, u32) {
    let s = add_host(sim, 0, a.rate, a.delay, a.buf, &format!("s{name}"));
    let d = add_host(sim, 1, a.rrate, a.rdelay, a.buf, &format!("d{name}"));
    if reverse {
        (d, s)
    } else {
        (s, d)
    }
}

/// The routers, the bottleneck both ways; returns the BDP in packets and each flow group's access.
fn build_dumbbell(
    sc: &Scenario,
    groups: &[GroupSettings],
    pkt_size: u32,
    seed: u64,
) -> Result<(Simulation, f64, Vec<Access>), ScenarioError> {
    let t = &sc.topology;
    if t.nodes.is_some() || t.links.is_some() {
        return Err(err("topology.nodes", "(set)", "nodes and links only with kind = \"graph\""));
    }
    let AccessCore { b_rate, b_delay } = access_core(sc)?;
    let b = t.bottleneck.as_ref().expect("checked by access_core");
    let mut access = Vec::new();
    for (i, spec) in sc.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        if spec.src.is_some() || spec.dst.is_some() {
            return Err(err(
                format!("{p}.src"),
                spec.src.clone().unwrap_or_default(),
                "src/dst only on a graph topology",
            ));
        }
        access.push(dumbbell_access(&p, &AccessFields::of_flow(spec), b_rate, b_delay)?);
    }
    for (i, u) in sc.udp.iter().enumerate() {
        if u.src.is_some() || u.dst.is_some() {
            return Err(err(
                format!("udp[{i}].src"),
                u.src.clone().unwrap_or_default(),
                "src/dst only on a graph topology",
            ));
        }
    }

    // One BDP: bottleneck rate x RTT, in packets of the first group's size.
    let mean_rtt = {
        let mut sum = 0f64;
        let mut n = 0f64;
        for (g, a) in groups.iter().zip(&access) {
            sum += 2.0 * (a.delay + b_delay + a.rdelay).secs_f64() * g.count as f64;
            n += g.count as f64;
        }
        // Without TCP flows: the bottleneck's own round trip plus 1 ms access links.
        if n > 0.0 {
            sum / n
        } else {
            2.0 * (b_delay.secs_f64() + 0.002)
        }
    };
    let bdp_rtt = match &t.bdp_rtt {
        None => mean_rtt,
        Some(s) => time("topology.bdp_rtt", s)?.secs_f64(),
    };
    let bdp_pkts = b_rate.0 as f64 / 8.0 * bdp_rtt / pkt_size as f64;

    let buf_text = b.buffer.as_deref().unwrap_or("1bdp");
    let buf = buffer("topology.bottleneck.buffer", buf_text)?;
    let cap = capacity(buf, Some(bdp_pkts), "topology.bottleneck.buffer")?;
    let site = |cap, link_index| QueueSite {
        field: "topology.bottleneck.queue",
        kind: b.queue.as_deref(),
        params: b.queue_params.as_ref(),
        cap,
        rate: b_rate,
        pkt_size,
        seed,
        link_index,
    };
    let q = make_queue(&site(cap, 0))?;
    // Two-way traffic: the reverse direction gets the same buffer unless told otherwise.
    let two_way = sc.flows.iter().any(|f| f.reverse == Some(true)) || sc.udp.iter().any(|u| u.reverse == Some(true));
    let rdefault = if two_way { buf_text } else { "unlimited" };
    let rbuf = buffer("topology.bottleneck.reverse_buffer", b.reverse_buffer.as_deref().unwrap_or(rdefault))?;
    let rcap = capacity(rbuf, Some(bdp_pkts), "topology.bottleneck.reverse_buffer")?;
    let rq = make_queue(&site(rcap, 1))?;
    let loss = loss_model("topology.bottleneck.loss", b.loss, seed, 0)?;

    let mut sim = Simulation::new(2);
    let mut l = Link::new("bottleneck".into(), 0, 1, b_rate, b_delay, q);
    l.role = "bottleneck";
    l.loss = loss;
    let bl = sim.add_link(l);
    let mut l = Link::new("bottleneck.reverse".into(), 1, 0, b_rate, b_delay, rq);
    l.role = "reverse";
    let rl = sim.add_link(l);
    sim.monitored.push(bl);
    if two_way {
        sim.monitored.push(rl);
    }
    Ok((sim, bdp_pkts, access))
}

/// A UDP group's settings.
struct UdpSettings {
    count: u32,
    rate: Rate,
    size: u32,
    start: SimTime,
    stop: Option<SimTime>,
    on_off: Option<(Dist, Dist)>,
}

fn udp_settings(u: &UdpGroup, p: &str, duration: SimTime) -> Result<UdpSettings, ScenarioError> {
    let count = u.count.unwrap_or(1);
    if count == 0 || count > 1_000_000 {
        return Err(err(format!("{p}.count"), count, "a whole number from 1 to 1000000"));
    }
    let r = rate(&format!("{p}.rate"), &u.rate)?;
    let size = match &u.packet_size {
        None => 1000,
        Some(s) => bytes(&format!("{p}.packet_size"), s)?,
    };
    if !(20..=65_535).contains(&size) {
        return Err(err(format!("{p}.packet_size"), u.packet_size.clone().unwrap_or_default(), "20B to 65535B"));
    }
    let start = match &u.start {
        None => SimTime::ZERO,
        Some(s) => time(&format!("{p}.start"), s)?,
    };
    if start > duration {
        return Err(err(format!("{p}.start"), u.start.clone().unwrap_or_default(), "a time within the duration"));
    }
    let stop = match &u.stop {
        None => None,
        Some(s) => {
            let t = time(&format!("{p}.stop"), s)?;
            if t <= start {
                return Err(err(format!("{p}.stop"), s, "a time after the start"));
            }
            Some(t)
        }
    };
    let on_off = match (&u.on_time, &u.off_time) {
        (None, None) => None,
        (Some(on), Some(off)) => {
            let on_t = time(&format!("{p}.on_time"), on)?;
            let off_t = time(&format!("{p}.off_time"), off)?;
            if on_t == SimTime::ZERO {
                return Err(err(format!("{p}.on_time"), on, "a duration > 0"));
            }
            Some((Dist::Exponential { mean: on_t.secs_f64() }, Dist::Exponential { mean: off_t.secs_f64() }))
        }
        (Some(on), None) => {
            return Err(err(format!("{p}.off_time"), "(missing)", format!("off_time with on_time = {on}")))
        }
        (None, Some(off)) => {
            return Err(err(format!("{p}.on_time"), "(missing)", format!("on_time with off_time = {off}")))
        }
    };
    Ok(UdpSettings { count, rate: r, size: size as u32, start, stop, on_off })
}

/// The web section's settings.
struct WebSettings {
    cfg: WebConfig,
    servers: u32,
    clients: u32,
    tcp: TcpConfig,
    rcv: ReceiverConfig,
    cc_name: String,
    params: Params,
}

fn web_settings(w: &WebSpec, duration: SimTime) -> Result<WebSettings, ScenarioError> {
    for (name, v) in [
        ("sessions", w.sessions),
        ("pages_per_session", w.pages_per_session),
        ("servers", w.servers),
        ("clients", w.clients),
    ] {
        if v == 0 || v > 10_000_000 {
            return Err(err(format!("web.{name}"), v, "a whole number from 1 to 10000000"));
        }
    }
    // The object transfers are TCP flows: validate them as a flow group.
    let as_group = FlowGroup {
        cc: w.cc.clone().unwrap_or_else(|| "newreno".into()),
        cc_params: w.cc_params.clone(),
        recovery: w.recovery.clone(),
        packet_size: w.packet_size.clone(),
        ..FlowGroup::default()
    };
    let g = group_settings(&as_group, "web", duration)?;
    let session_start = match &w.session_start {
        None => SimTime::ZERO,
        Some(s) => time("web.session_start", s)?,
    };
    let session_spread = match &w.session_spread {
        None => SimTime::ZERO,
        Some(s) => time("web.session_spread", s)?,
    };
    let cfg = WebConfig {
        sessions: w.sessions,
        pages_per_session: w.pages_per_session,
        session_start,
        session_spread,
        inter_page: traffic::dist("web.inter_page", &w.inter_page)?,
        objects_per_page: traffic::dist("web.objects_per_page", &w.objects_per_page)?,
        inter_object: traffic::dist("web.inter_object", &w.inter_object)?,
        object_size: traffic::dist("web.object_size", &w.object_size)?,
        servers: w.servers,
        clients: w.clients,
    };
    Ok(WebSettings {
        cfg,
        servers: w.servers,
        clients: w.clients,
        tcp: g.tcp,
        rcv: g.rcv,
        cc_name: g.cc_name,
        params: g.params,
    })
}

fn node_index(sc: &Scenario, field: &str, name: &str) -> Result<u32, ScenarioError> {
    let nodes = sc.topology.nodes.as_deref().unwrap_or(&[]);
    nodes
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| err(field, name, format!("a node in topology.nodes: {}", nodes.join(", "))))
}

/// On a graph, the dumbbell's access fields mean nothing: refuse them rather than ignore them.
fn dumbbell_fields_unset(p: &str, f: &AccessFields, reverse: Option<bool>) -> Result<(), ScenarioError> {
    let set = [
        ("rtt", f.rtt),
        ("access_rate", f.access_rate),
        ("access_delay", f.access_delay),
        ("receiver_rate", f.receiver_rate),
        ("receiver_delay", f.receiver_delay),
        ("access_buffer", f.access_buffer),
    ];
    for (name, v) in set {
        if let Some(v) = v {
            return Err(err(
                format!("{p}.{name}"),
                v,
                "nothing on a graph topology (dumbbell only): set the links instead",
            ));
        }
    }
    if let Some(r) = reverse {
        return Err(err(
            format!("{p}.reverse"),
            r.to_string(),
            "nothing on a graph topology (dumbbell only): swap src and dst",
        ));
    }
    Ok(())
}

fn graph_endpoints(sc: &Scenario, src: Option<&str>, dst: Option<&str>, p: &str) -> Result<(u32, u32), ScenarioError> {
    let src = src.ok_or_else(|| err(format!("{p}.src"), "(missing)", "a node name"))?;
    let dst = dst.ok_or_else(|| err(format!("{p}.dst"), "(missing)", "a node name"))?;
    let s = node_index(sc, &format!("{p}.src"), src)?;
    let d = node_index(sc, &format!("{p}.dst"), dst)?;
    if s == d {
        return Err(err(format!("{p}.dst"), dst, "a node other than src"));
    }
    Ok((s, d))
}

fn build_graph(sc: &Scenario, pkt_size: u32, seed: u64) -> Result<Simulation, ScenarioError> {
    let t = &sc.topology;
    if t.bottleneck.is_some() {
        return Err(err("topology.bottleneck", "(set)", "a bottleneck only with kind = \"dumbbell\"; use links"));
    }
    let nodes = t.nodes.as_ref().ok_or_else(|| err("topology.nodes", "(missing)", "a list of node names"))?;
    if nodes.is_empty() {
        return Err(err("topology.nodes", "[]", "at least two node names"));
    }
    for (i, n) in nodes.iter().enumerate() {
        if nodes[..i].contains(n) {
            return Err(err(format!("topology.nodes[{i}]"), n, "unique node names"));
        }
    }
    let links = t.links.as_ref().ok_or_else(|| err("topology.links", "(missing)", "a list of links"))?;
    let mut sim = Simulation::new(nodes.len());
    for (i, l) in links.iter().enumerate() {
        let p = format!("topology.links[{i}]");
        let from = node_index(sc, &format!("{p}.from"), &l.from)?;
        let to = node_index(sc, &format!("{p}.to"), &l.to)?;
        if from == to {
            return Err(err(format!("{p}.to"), &l.to, "a node other than from"));
        }
        let r = rate(&format!("{p}.rate"), &l.rate)?;
        let d = time(&format!("{p}.delay"), &l.delay)?;
        let buf = buffer(&format!("{p}.buffer"), l.buffer.as_deref().unwrap_or("unlimited"))?;
        let cap = capacity(buf, None, &format!("{p}.buffer"))?;
        let ends = if l.duplex.unwrap_or(true) { vec![(from, to), (to, from)] } else { vec![(from, to)] };
        for (a, b) in ends {
            let link_index = sim.links.len() as u64;
            let q = make_queue(&QueueSite {
                field: &format!("{p}.queue"),
                kind: l.queue.as_deref(),
                params: l.queue_params.as_ref(),
                cap,
                rate: r,
                pkt_size,
                seed,
                link_index,
            })?;
            let name = format!("{}->{}", nodes[a as usize], nodes[b as usize]);
            let mut link = Link::new(name, a, b, r, d, q);
            link.loss = loss_model(&format!("{p}.loss"), l.loss, seed, link_index)?;
            let li = sim.add_link(link);
            sim.monitored.push(li);
        }
    }
    Ok(sim)
}

#[cfg(test)]
mod tests {
    use super::*;

    const B1: &str = r#"
        duration = "10s"
        [topology]
        bottleneck = { rate = "100Mbps", delay = "38ms", buffer = "0.25bdp" }
        [[flows]]
        cc = "newreno"
        rtt = "80ms"
        packet_size = "1000B"
    "#;

    #[test]
    fn dumbbell_resolves_rtt_and_bdp_buffer() {
        let sc = Scenario::from_toml(B1).unwrap();
        let b = sc.build(1).unwrap();
        // 100 Mbit/s x 80 ms / 1000 B = 1000 packets.
        assert!((b.bdp_pkts.unwrap() - 1000.0).abs() < 1e-9);
        assert_eq!(b.sim.flows[0].base_rtt, SimTime::from_millis(80));
    }

    fn bad(toml_text: &str) -> ScenarioError {
        match Scenario::from_toml(toml_text) {
            Err(e) => e,
            Ok(sc) => sc.build(1).err().expect("expected an error"),
        }
    }

    #[test]
    fn access_buffer_bounds_every_access_link_of_the_group() {
        // A 10 Mbit/s sender access link in front of a 100 Mbit/s bottleneck: the queue
        // builds at the access link, and holds at most 20 packets.
        let text = B1.replace("rtt = \"80ms\"", "rtt = \"80ms\"\naccess_rate = \"10Mbps\"");
        for (buf, limited) in [("\naccess_buffer = \"20pkts\"", true), ("", false)] {
            let sc = Scenario::from_toml(&format!("{text}{buf}")).unwrap();
            let mut b = sc.build(1).unwrap();
            b.sim.run_until(SimTime::from_secs_f64(10.0));
            let up = b.sim.links.iter().find(|l| l.name == "s0->r1").unwrap();
            if limited {
                assert_eq!(up.qstats.max_pkts, 20);
                assert!(up.qstats.drops[0] > 0);
            } else {
                assert!(up.qstats.max_pkts > 20 && up.qstats.drops[0] == 0, "{}", up.qstats.max_pkts);
            }
        }
        let e = bad(&B1.replace("rtt = \"80ms\"", "rtt = \"80ms\"\naccess_buffer = \"1bdp\""));
        assert_eq!((e.field.as_str(), e.value.as_str()), ("flows[0].access_buffer", "1bdp"));
        assert!(e.accepted.contains("packets or bytes"));
    }

    #[test]
    fn dumbbell_access_fields_are_refused_on_a_graph() {
        let g = r#"
            duration = "1s"
            [topology]
            kind = "graph"
            nodes = ["a", "b"]
            links = [{ from = "a", to = "b", rate = "10Mbps", delay = "1ms" }]
            [[flows]]
            cc = "newreno"
            src = "a"
            dst = "b"
        "#;
        assert!(Scenario::from_toml(g).unwrap().build(1).is_ok());
        let e = bad(&g.replace("dst = \"b\"", "dst = \"b\"\nrtt = \"80ms\""));
        assert_eq!(e.field, "flows[0].rtt");
        assert!(e.accepted.contains("dumbbell only"));
        let e = bad(&g.replace("dst = \"b\"", "dst = \"b\"\naccess_buffer = \"10pkts\""));
        assert_eq!(e.field, "flows[0].access_buffer");
    }

    #[test]
    fn misspelt_rate_names_the_field_and_the_accepted_units() {
        let e = bad(&B1.replace("100Mbps", "100Mbs"));
        assert_eq!(e.field, "topology.bottleneck.rate");
        assert!(e.value.contains("100Mbs"));
        assert!(e.accepted.contains("Mbps"));
    }

    #[test]
    fn unknown_key_is_rejected_with_its_path() {
        let e = bad(&B1.replace("buffer =", "bufer ="));
        assert!(e.field.contains("bottleneck"), "{e}");
        assert!(e.value.contains("bufer"), "{e}");
    }

    #[test]
    fn unknown_algorithm_lists_the_registry() {
        let e = bad(&B1.replace("\"newreno\"", "\"renoo\""));
        assert_eq!(e.field, "flows[0].cc");
        assert!(e.accepted.contains("reno"));
    }

    #[test]
    fn stop_before_start_is_rejected() {
        let e = bad(&B1.replace("rtt = \"80ms\"", "rtt = \"80ms\"\nstart = \"5s\"\nstop = \"2s\""));
        assert_eq!(e.field, "flows[0].stop");
    }

    #[test]
    fn zero_buffer_and_negative_delay_are_rejected() {
        assert_eq!(bad(&B1.replace("0.25bdp", "0pkts")).field, "topology.bottleneck.buffer");
        assert_eq!(bad(&B1.replace("38ms", "-38ms")).field, "topology.bottleneck.delay");
    }

    #[test]
    fn rtt_shorter_than_the_fixed_path_is_rejected() {
        let e = bad(&B1.replace("80ms", "20ms"));
        assert_eq!(e.field, "flows[0].rtt");
        assert!(e.accepted.contains("78ms"), "{e}");
    }

    #[test]
    fn graph_topology_routes_flows_between_named_nodes() {
        let sc = Scenario::from_toml(
            r#"
            duration = "1s"
            [topology]
            kind = "graph"
            nodes = ["a", "b", "c"]
            links = [
              { from = "a", to = "b", rate = "10Mbps", delay = "5ms", buffer = "50pkts" },
              { from = "b", to = "c", rate = "10Mbps", delay = "5ms", buffer = "50pkts" },
            ]
            [[flows]]
            cc = "reno"
            src = "a"
            dst = "c"
        "#,
        )
        .unwrap();
        let b = sc.build(1).unwrap();
        assert_eq!(b.sim.flows[0].base_rtt, SimTime::from_millis(20));
        assert_eq!(b.sim.flows[0].path_data.len(), 2);
        let e = bad(&sc.to_toml().replace("dst = \"c\"", "dst = \"z\""));
        assert_eq!(e.field, "flows[0].dst");
    }

    #[test]
    fn scenario_round_trips_through_json() {
        let sc = Scenario::from_toml(B1).unwrap();
        let again = Scenario::from_json(&sc.to_json()).unwrap();
        assert_eq!(sc.to_json(), again.to_json());
    }
}
