//! A general graph: named nodes joined by links, each with its own rate, delay,
//! buffer, queue discipline and random loss (one way or both); flows name their
//! end nodes and follow the shortest path by propagation delay.
//!
//! Parameters (`[topology]`): `nodes = [names]`, `links = [{ from, to, rate, delay,
//! buffer, queue, queue_params, loss, duplex }]`; per flow or UDP group: `src`, `dst`.

use super::dumbbell::AccessFields;
use super::{Network, Place, TopologyInput};
use crate::net::Link;
use crate::scenario::kit::{
    apply_vary, buffer, capacity, err, loss_model, make_queue, rate, time, Files, QueueSite, VarySpec,
};
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::Simulation;

/// The registry's constructor (`kind = "graph"`).
pub fn build(t: &TopologyInput) -> Result<Network, ScenarioError> {
    if t.sc.web.is_some() {
        return Err(err("web", "(set)", "web traffic on a dumbbell topology (servers left, clients right)"));
    }
    Ok(Network { sim: build_graph(t.sc, t.pkt_size, t.seed)?, bdp_pkts: None, place: Box::new(Graph::default()) })
}

/// Flows on a graph go between the nodes they name.
/// A group's endpoints are the same for all its sources: each is looked up (a linear search over
/// the node names) once per group, at its first source, not once per source.
#[derive(Default)]
struct Graph {
    /// (UDP?, group index) -> its (sender, receiver) nodes, for the group being placed.
    last: Option<(bool, usize, (u32, u32))>,
}

impl Graph {
    fn cached(
        &mut self,
        udp: bool,
        g: usize,
        find: impl FnOnce() -> Result<(u32, u32), ScenarioError>,
    ) -> Result<(u32, u32), ScenarioError> {
        match self.last {
            Some((u, i, e)) if u == udp && i == g => Ok(e),
            _ => {
                let e = find()?;
                self.last = Some((udp, g, e));
                Ok(e)
            }
        }
    }
}

impl Place for Graph {
    fn tcp_pair(&mut self, _: &mut Simulation, sc: &Scenario, gi: usize, _: u32) -> Result<(u32, u32), ScenarioError> {
        self.cached(false, gi, || {
            let p = format!("flows[{gi}]");
            let spec = &sc.flows[gi];
            dumbbell_fields_unset(&p, &AccessFields::of_flow(spec), spec.reverse)?;
            graph_endpoints(sc, spec.src.as_deref(), spec.dst.as_deref(), &p)
        })
    }

    fn udp_group(&mut self, sc: &Scenario, ui: usize) -> Result<(), ScenarioError> {
        let spec = &sc.udp[ui];
        dumbbell_fields_unset(&format!("udp[{ui}]"), &AccessFields::of_udp(spec), spec.reverse)
    }

    fn udp_pair(&mut self, _: &mut Simulation, sc: &Scenario, ui: usize, _: u32) -> Result<(u32, u32), ScenarioError> {
        self.cached(true, ui, || {
            let spec = &sc.udp[ui];
            graph_endpoints(sc, spec.src.as_deref(), spec.dst.as_deref(), &format!("udp[{ui}]"))
        })
    }
}

pub fn node_index(sc: &Scenario, field: &str, name: &str) -> Result<u32, ScenarioError> {
    let nodes = sc.topology.nodes.as_deref().unwrap_or(&[]);
    nodes
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| err(field, name, format!("a node in topology.nodes: {}", nodes.join(", "))))
}

/// On a graph, the dumbbell's access fields mean nothing: refuse them rather than ignore them.
pub fn dumbbell_fields_unset(p: &str, f: &AccessFields, reverse: Option<bool>) -> Result<(), ScenarioError> {
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

pub fn graph_endpoints(
    sc: &Scenario,
    src: Option<&str>,
    dst: Option<&str>,
    p: &str,
) -> Result<(u32, u32), ScenarioError> {
    let src = src.ok_or_else(|| err(format!("{p}.src"), "(missing)", "a node name"))?;
    let dst = dst.ok_or_else(|| err(format!("{p}.dst"), "(missing)", "a node name"))?;
    let s = node_index(sc, &format!("{p}.src"), src)?;
    let d = node_index(sc, &format!("{p}.dst"), dst)?;
    if s == d {
        return Err(err(format!("{p}.dst"), dst, "a node other than src"));
    }
    Ok((s, d))
}

pub fn build_graph(sc: &Scenario, pkt_size: u32, seed: u64) -> Result<Simulation, ScenarioError> {
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
    let mut files = Files::default();
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
                delay: d,
                pkt_size,
                seed,
                link_index,
            })?;
            let name = format!("{}->{}", nodes[a as usize], nodes[b as usize]);
            let mut link = Link::new(name, a, b, r, d, q);
            link.loss = loss_model(&format!("{p}.loss"), l.loss, seed, link_index)?;
            apply_vary(&mut link, &p, &VarySpec::of_graph_link(l), seed, link_index, &mut files)?;
            let li = sim.add_link(link);
            sim.monitored.push(li);
        }
    }
    Ok(sim)
}
