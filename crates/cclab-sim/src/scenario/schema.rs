//! The scenario's schema: the fields of a scenario file as serde reads them, and its error.

use super::*;

/// A field that failed validation.
///
/// Its message is always one line of bounded length: a value the user wrote
/// (a 100 KB string, a binary key) is cut with an ellipsis, control characters
/// and line breaks become spaces. A notebook or a log shows it whole.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// Path of the field, e.g. `topology.bottleneck.rate`.
    pub field: String,
    pub value: String,
    pub accepted: String,
}

/// The longest field path, value and accepted text kept in an error, in characters.
pub const MAX_FIELD_CHARS: usize = 120;
pub const MAX_VALUE_CHARS: usize = 200;
pub const MAX_ACCEPTED_CHARS: usize = 300;

/// `s` on one line (control characters and runs of white space become one space),
/// at most `max` characters, cut with an ellipsis.
pub fn one_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(4 * max));
    let mut n = 0;
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() || c.is_control() {
            space = true;
            continue;
        }
        if space && n > 0 {
            if n + 1 >= max {
                out.push('…');
                return out;
            }
            out.push(' ');
            n += 1;
        }
        space = false;
        if n + 1 >= max {
            out.push('…');
            return out;
        }
        out.push(c);
        n += 1;
    }
    out
}

/// A number as a scenario writes it: `nan`, `inf`, `0.5`, `1e300` (not 301 digits).
pub fn num(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else if v != 0.0 && !(1e-6..1e16).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, value: impl fmt::Display, accepted: impl Into<String>) -> ScenarioError {
        ScenarioError {
            field: one_line(&field.into(), MAX_FIELD_CHARS),
            value: bounded_value(&value.to_string()),
            accepted: one_line(&accepted.into(), MAX_ACCEPTED_CHARS),
        }
    }
}

/// A value bounded as [`one_line`]; a value "(message)" keeps its closing parenthesis.
fn bounded_value(v: &str) -> String {
    match v.strip_prefix('(').and_then(|m| m.strip_suffix(')')) {
        Some(inner) => format!("({})", one_line(inner, MAX_VALUE_CHARS)),
        None => one_line(v, MAX_VALUE_CHARS),
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Bounded again here: the fields are public and may be set directly.
        let field = one_line(&self.field, MAX_FIELD_CHARS);
        let value = bounded_value(&self.value);
        let accepted = one_line(&self.accepted, MAX_ACCEPTED_CHARS);
        match value.strip_prefix('(').and_then(|m| m.strip_suffix(')')) {
            Some(msg) => write!(f, "{field}: {msg}; accepted: {accepted}"),
            None => write!(f, "{field}: invalid value '{value}'; accepted: {accepted}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

pub(super) fn err(field: impl Into<String>, value: impl fmt::Display, accepted: impl Into<String>) -> ScenarioError {
    ScenarioError::new(field, value, accepted)
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
    /// Packet and sender-state traces, pcap output (docs/tracing.md); none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<super::TraceSpec>,
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

pub(super) fn default_kind() -> String {
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
    // What varies over time, on the forward direction.
    /// Steps of the rate over time: `[["10s", "20Mbps"], ...]` or a file of `time rate` lines
    /// (docs/links.md); `rate` holds until the first step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<Schedule<String>>,
    /// Steps of the one-way delay over time, as `rate_schedule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_schedule: Option<Schedule<String>>,
    /// Each packet's delay drawn uniformly in [delay - jitter, delay + jitter], the wire kept in
    /// order (netem's `delay D J` without reordering; docs/links.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<String>,
    /// Steps of the random loss probability over time: `[["10s", 0.01], ...]` or a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_schedule: Option<Schedule<f64>>,
    /// Gilbert-Elliott loss: `{ p, r, loss_good, loss_bad }` (docs/links.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gilbert_elliott: Option<BTreeMap<String, f64>>,
    /// A Mahimahi trace (mm-link's format) that replaces the fixed rate; `rate` is then nominal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mahimahi: Option<String>,
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
    // What varies over time, each direction.
    /// Steps of the rate over time: `[["10s", "20Mbps"], ...]` or a file of `time rate` lines
    /// (docs/links.md); `rate` holds until the first step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<Schedule<String>>,
    /// Steps of the one-way delay over time, as `rate_schedule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_schedule: Option<Schedule<String>>,
    /// Each packet's delay drawn uniformly in [delay - jitter, delay + jitter], the wire kept in
    /// order (netem's `delay D J` without reordering; docs/links.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<String>,
    /// Steps of the random loss probability over time: `[["10s", 0.01], ...]` or a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_schedule: Option<Schedule<f64>>,
    /// Gilbert-Elliott loss: `{ p, r, loss_good, loss_bad }` (docs/links.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gilbert_elliott: Option<BTreeMap<String, f64>>,
    /// A Mahimahi trace (mm-link's format) that replaces the fixed rate; `rate` is then nominal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mahimahi: Option<String>,
    /// Also create the link `to -> from` with the same parameters (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplex: Option<bool>,
}

/// Steps of a link's rate, delay or loss: a list of `[time, value]` pairs in the scenario,
/// or the path of a file of `time value` lines (relative paths: against the scenario file).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged, expecting = "a list of [time, value] pairs, or the path of a file of `time value` lines")]
pub enum Schedule<V> {
    Steps(Vec<(String, V)>),
    File(String),
}

/// A flow group's `ecn`: `true`/`false`, or the name of a codepoint (`"l4s"`, checked where
/// the group is built).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged, expecting = "true, false or \"l4s\"")]
pub enum EcnSetting {
    On(bool),
    Name(String),
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
    /// Whose TCP details to follow: "cclab" (default), "ns2" or "linux" (tcp/profile.rs);
    /// it sets the defaults of init_cwnd, timestamps and the RTO bounds below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// A SYN first, data once it is acknowledged (default: the stack's; true for "ns2").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    /// How many packets an ACK counts towards window growth: "abc", "per-ack" or "all"
    /// (default: the stack's; tcp/profile.rs `AckCounting`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_counting: Option<String>,
    /// The RTT sample the congestion control gets on each ACK: "estimator" or
    /// "newest-delivered" (default: the stack's; tcp/profile.rs `CaRtt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_rtt: Option<String>,
    /// Segments the receiver acknowledges at once at the start before delaying ACKs
    /// (default: the stack's; 5 for "linux", Linux's quick-ACK mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quickacks: Option<u32>,
    /// The receiver follows Linux's receive-buffer autotuning and acknowledges at once each
    /// segment that grows its window (default: the stack's; tcp/rcv_autotune.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_autotune: Option<bool>,
    /// How a SACK sender finds losses: "dupthresh" (RFC 6675) or "rack-tlp" (RFC 8985)
    /// (default: the stack's; tcp/profile.rs `LossDetection`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_detection: Option<String>,
    /// RFC 7323 timestamps (default: the stack's; true for "cclab").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// The timestamp clock's tick (default "0s": exact); "1ms" is ns-3.44's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_clock: Option<String>,
    /// Minimum RTO (default "200ms").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min: Option<String>,
    /// RTO before the first RTT sample (default "1s").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_initial: Option<String>,
    /// Duplicate ACKs for fast retransmit (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupthresh: Option<u32>,
    /// A SACKed retransmission stays in `pipe` until cumulatively acknowledged, as ns-3.44
    /// counts it (default false: RFC 6675 and Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sacked_retx_in_pipe: Option<bool>,
    /// A lost segment is resent only below the highest SACK (RFC 6675 NextSeg (1.b)), after a
    /// timeout too, as ns-3.44 does (default false: every lost segment, as Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resend_below_high_sack: Option<bool>,
    /// Random send overhead per data packet, uniform in [0, overhead] (ns-2's
    /// `overhead_`); breaks drop-tail phase effects. Default "0s".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<String>,
    /// ECN (RFC 3168): packets are ECN-capable and ECN echoes reduce the window (default
    /// false); `"l4s"`: ECN with ECT(1), the L4S identifier of RFC 9331.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<EcnSetting>,
    /// Dumbbell: send from the right side to the left, through the reverse
    /// bottleneck (two-way traffic; the reverse direction then gets the same
    /// buffer unless `reverse_buffer` says otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<bool>,
}

/// The numbers of a loss schedule written in the scenario, for `check_finite`.
fn schedule_nums(nums: &mut Vec<(String, f64)>, p: &str, s: &Option<Schedule<f64>>) {
    if let Some(Schedule::Steps(steps)) = s {
        for (i, (_, v)) in steps.iter().enumerate() {
            nums.push((format!("{p}.loss_schedule[{i}][1]"), *v));
        }
    }
}

impl Scenario {
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize(de)
            .map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let msg = inner.message().to_string();
                ScenarioError::new(
                    if path == "." { "(file)".into() } else { path },
                    format!("({msg})"),
                    "the fields and types of docs/scenario.md",
                )
            })
            .and_then(|sc: Scenario| sc.check_finite().map(|()| sc))
    }

    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de)
            .map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                ScenarioError::new(
                    if path == "." { "(scenario)".into() } else { path },
                    // serde_json appends the position in the JSON text, which the user never wrote.
                    format!("({})", strip_position(&inner.to_string())),
                    "the fields and types of docs/scenario.md",
                )
            })
            .and_then(|sc: Scenario| sc.check_finite().map(|()| sc))
    }

    /// Refuses NaN and infinities in every number field. TOML can write them
    /// (`nan`, `inf`), and JSON, which carries a scenario to Python and back,
    /// would turn them into `null`: an unset field, silently the default.
    pub fn check_finite(&self) -> Result<(), ScenarioError> {
        let mut nums: Vec<(String, f64)> = Vec::new();
        let map = |nums: &mut Vec<(String, f64)>, p: &str, m: &Option<BTreeMap<String, f64>>| {
            for (k, v) in m.iter().flatten() {
                nums.push((format!("{p}.{k}"), *v));
            }
        };
        for (i, g) in self.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            for (name, v) in [("init_cwnd", g.init_cwnd), ("init_ssthresh", g.init_ssthresh), ("rwnd", g.rwnd)] {
                nums.extend(v.map(|v| (format!("{p}.{name}"), v)));
            }
            map(&mut nums, &format!("{p}.cc_params"), &g.cc_params);
        }
        if let Some(b) = &self.topology.bottleneck {
            nums.extend(b.loss.map(|v| ("topology.bottleneck.loss".to_string(), v)));
            schedule_nums(&mut nums, "topology.bottleneck", &b.loss_schedule);
            map(&mut nums, "topology.bottleneck.gilbert_elliott", &b.gilbert_elliott);
            map(&mut nums, "topology.bottleneck.queue_params", &b.queue_params);
        }
        for (i, l) in self.topology.links.iter().flatten().enumerate() {
            let p = format!("topology.links[{i}]");
            nums.extend(l.loss.map(|v| (format!("{p}.loss"), v)));
            schedule_nums(&mut nums, &p, &l.loss_schedule);
            map(&mut nums, &format!("{p}.gilbert_elliott"), &l.gilbert_elliott);
            map(&mut nums, &format!("{p}.queue_params"), &l.queue_params);
        }
        if let Some(w) = &self.web {
            map(&mut nums, "web.cc_params", &w.cc_params);
            for (name, d) in [
                ("inter_page", &w.inter_page),
                ("objects_per_page", &w.objects_per_page),
                ("inter_object", &w.inter_object),
                ("object_size", &w.object_size),
            ] {
                for (sub, v) in
                    [("value", d.value), ("mean", d.mean), ("shape", d.shape), ("min", d.min), ("max", d.max)]
                {
                    nums.extend(v.map(|v| (format!("web.{name}.{sub}"), v)));
                }
            }
        }
        match nums.into_iter().find(|(_, v)| !v.is_finite()) {
            Some((field, v)) => Err(err(field, num(v), "a finite number (not nan or inf)")),
            None => Ok(()),
        }
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
