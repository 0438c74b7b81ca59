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
use crate::net::topology::{self, Network, TopologyInput};
use crate::queue::{self, Capacity, QueueDisc, QueueSettings};
use crate::rng::{self, stream_rng};
use crate::sim::Simulation;
use crate::tcp::{EcnFeedback, ReceiverConfig, Recovery, RtoConfig, StackProfile, TcpConfig};
use crate::traffic::web::WebConfig;
use crate::traffic::Dist;
use crate::units::{self, BufferSize, Rate, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

mod traffic;
pub use traffic::{OneOrRange, UdpGroup, WebSpec};

mod flows;
mod limits;
mod queues;
mod schema;
pub mod source;
mod trace;
mod vary;

use flows::*;
pub use limits::{setup_bytes, PACKET_BUDGET};
use schema::err;
pub use schema::{FlowGroup, GraphLink, LinkParams, Scenario, ScenarioError, Schedule, Topology};
pub use trace::{FlowRef, TraceSpec};

/// What the builders outside this module share with it: the topologies in
/// `net::topology` read their fields and build their queues with these.
pub(crate) mod kit {
    pub(crate) use super::queues::{capacity, loss_model, make_queue, QueueSite};
    pub(crate) use super::vary::{apply as apply_vary, Files, VarySpec};
    use super::ScenarioError;
    pub(crate) use super::{buffer, rate, time};
    use std::fmt;

    /// A field that failed validation: its path, its value, what is accepted.
    pub(crate) fn err(
        field: impl Into<String>,
        value: impl fmt::Display,
        accepted: impl Into<String>,
    ) -> ScenarioError {
        super::schema::err(field, value, accepted)
    }
}

/// Drops serde_json's " at line L column C" suffix.
fn strip_position(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => &msg[..i],
        _ => msg,
    }
}

pub(crate) fn time(field: &str, s: &str) -> Result<SimTime, ScenarioError> {
    units::parse_time(s).map_err(|e| err(field, s, e.accepted))
}

pub(crate) fn rate(field: &str, s: &str) -> Result<Rate, ScenarioError> {
    units::parse_rate(s).map_err(|e| err(field, s, e.accepted))
}

pub(crate) fn bytes(field: &str, s: &str) -> Result<u64, ScenarioError> {
    units::parse_bytes(s).map_err(|e| err(field, s, e.accepted))
}

pub(crate) fn buffer(field: &str, s: &str) -> Result<BufferSize, ScenarioError> {
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
    limits::check(sc, duration, sample_interval, &groups, &udps, web.as_ref())?;
    // The packet size that defines "1bdp" and RED's mean packet size.
    let pkt_size = groups.first().map(|g| g.tcp.mss).or(web.as_ref().map(|w| w.tcp.mss)).unwrap_or(1500);

    // The topology (found by its kind), then each traffic source in the registry's order.
    let settings = source::Settings { groups, udps, web };
    let counts: Vec<u32> = settings.groups.iter().map(|g| g.count).collect();
    let mut net = topology::build(&TopologyInput { sc, counts: &counts, pkt_size, seed })?;
    let input = source::SourceInput::new(sc, seed, duration, &settings);
    for e in source::REGISTRY.entries() {
        (e.build)(&input, &mut net)?;
    }
    let Network { mut sim, bdp_pkts, .. } = net;
    sim.sample_interval = sample_interval;
    sim.warmup = warmup;
    sim.end = duration;
    if let Some(t) = &sc.trace {
        let t = trace::build_trace(t, &sim)?;
        sim.set_trace(t);
    }
    Ok(Built { sim, duration, seed, bdp_pkts })
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
