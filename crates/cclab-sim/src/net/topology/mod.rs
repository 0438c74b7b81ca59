//! Topologies: what builds the nodes and links of a scenario and says where each
//! flow's ends attach. One file per topology, each registered by its `kind`
//! (`[topology] kind = "dumbbell"`) in [`BUILTIN`].

pub mod dumbbell;
pub mod graph;

use crate::registry::{Entry, ParamSpec, Registry, Schema};
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::Simulation;
use crate::units::{Rate, SimTime};

/// What a topology is built from.
pub struct TopologyInput<'a> {
    pub sc: &'a Scenario,
    /// The number of flows in each TCP flow group (a dumbbell's BDP weighs their RTTs).
    pub counts: &'a [u32],
    /// The packet size that defines "1bdp" and RED's mean packet size, bytes.
    pub pkt_size: u32,
    pub seed: u64,
}

/// A built topology: the simulation holding its nodes and links, and where flows attach.
pub struct Network {
    pub sim: Simulation,
    /// One bandwidth-delay product in packets, where the topology defines one (what "1bdp" means).
    pub bdp_pkts: Option<f64>,
    pub place: Box<dyn Place>,
}

/// Where a topology puts the ends of each flow, in the order the traffic sources ask.
pub trait Place {
    /// The (sender, receiver) nodes of a flow of TCP group `gi`; `idx` numbers the TCP flows.
    fn tcp_pair(
        &mut self,
        sim: &mut Simulation,
        sc: &Scenario,
        gi: usize,
        idx: u32,
    ) -> Result<(u32, u32), ScenarioError>;

    /// Checks UDP group `ui`'s placement fields, before its sources are placed.
    fn udp_group(&mut self, sc: &Scenario, ui: usize) -> Result<(), ScenarioError>;

    /// The (sender, receiver) nodes of a source of UDP group `ui`; `idx` numbers the UDP sources.
    fn udp_pair(
        &mut self,
        sim: &mut Simulation,
        sc: &Scenario,
        ui: usize,
        idx: u32,
    ) -> Result<(u32, u32), ScenarioError>;

    /// The default rate of a host's access link, where the topology has hosts of its own (web
    /// servers and clients); `None` where it has none.
    fn host_rate(&self) -> Option<Rate> {
        None
    }

    /// Adds a host on the left (`right = false`: servers) or right (clients) side.
    fn add_host(&mut self, _sim: &mut Simulation, _right: bool, _r: Rate, _d: SimTime, _name: &str) -> u32 {
        unreachable!("only topologies with a host_rate add hosts")
    }
}

/// A topology's constructor.
pub type Builder = fn(&TopologyInput) -> Result<Network, ScenarioError>;

/// The topologies, by `kind`. Adding one: a file here with a `build` function, and one line.
pub static BUILTIN: &[Entry<Builder>] = &[
    Entry {
        name: "dumbbell",
        summary: "Two routers joined by a bottleneck; each flow has its own access links, set by its rtt",
        params: Schema::Declared(DUMBBELL),
        build: dumbbell::build,
    },
    Entry {
        name: "graph",
        summary: "Named nodes joined by links of their own rate, delay, buffer and queue; shortest-delay routes",
        params: Schema::Declared(GRAPH),
        build: graph::build,
    },
];

/// Every topology, built-ins first.
pub static REGISTRY: Registry<Builder> = Registry::new("topology", BUILTIN, |_| Vec::new());

static DUMBBELL: &[ParamSpec] = &[
    ParamSpec::new("bottleneck.rate", "rate", "bit/s", "(required)", "\"100Mbps\", \"1Gbps\", ..."),
    ParamSpec::new("bottleneck.delay", "duration", "s", "(required)", "one-way, \"38ms\""),
    ParamSpec::new(
        "bottleneck.buffer",
        "buffer",
        "packets, bytes or BDPs",
        "1bdp",
        "\"100pkts\", \"64KB\", \"0.25bdp\", \"unlimited\"",
    ),
    ParamSpec::new("bottleneck.queue", "name", "", "droptail", "a registered queue discipline"),
    ParamSpec::new("bottleneck.queue_params", "table", "", "{}", "the queue discipline's parameters"),
    ParamSpec::new("bottleneck.reverse_buffer", "buffer", "", "unlimited (the buffer with reverse flows)", "as buffer"),
    ParamSpec::new("bottleneck.loss", "number", "", "0", "a probability in [0, 1)"),
    ParamSpec::new("bottleneck.rate_schedule", "steps", "", "none", "[[time, rate], ...] or a file (docs/links.md)"),
    ParamSpec::new("bottleneck.delay_schedule", "steps", "", "none", "[[time, delay], ...] or a file"),
    ParamSpec::new("bottleneck.loss_schedule", "steps", "", "none", "[[time, probability], ...] or a file"),
    ParamSpec::new("bottleneck.gilbert_elliott", "table", "", "none", "{ p, r, loss_good, loss_bad }"),
    ParamSpec::new("bottleneck.mahimahi", "path", "", "none", "a Mahimahi trace (mm-link's format)"),
    ParamSpec::new("bdp_rtt", "duration", "s", "the flows' mean round-trip propagation delay", "a duration"),
];

static GRAPH: &[ParamSpec] = &[
    ParamSpec::new("nodes", "list of names", "", "(required)", "unique node names"),
    ParamSpec::new(
        "links",
        "list of tables",
        "",
        "(required)",
        "{ from, to, rate, delay, buffer, queue, queue_params, loss, duplex, rate_schedule, delay_schedule, \
         loss_schedule, gilbert_elliott, mahimahi }",
    ),
    ParamSpec::new("links[].buffer", "buffer", "packets or bytes", "unlimited", "\"100pkts\", \"64KB\", \"unlimited\""),
    ParamSpec::new("links[].duplex", "bool", "", "true", "true: one link each way"),
];

/// Builds the topology registered as `sc.topology.kind`.
pub fn build(t: &TopologyInput) -> Result<Network, ScenarioError> {
    let kind = t.sc.topology.kind.as_str();
    match REGISTRY.get(kind) {
        Some(e) => (e.build)(t),
        None => Err(crate::scenario::kit::err("topology.kind", kind, REGISTRY.accepted())),
    }
}
