//! The topologies: a dumbbell (per-group access links around one bottleneck) and a general graph.

use super::*;

/// The access links of one dumbbell host pair.
#[derive(Clone, Copy, Debug)]
pub(super) struct Access {
    pub(super) rate: Rate,
    pub(super) delay: SimTime,
    pub(super) rrate: Rate,
    pub(super) rdelay: SimTime,
    /// Capacity of each access link's DropTail queue.
    pub(super) buf: Capacity,
}

/// The access fields a flow or UDP group may set.
pub(super) struct AccessFields<'a> {
    pub(super) rtt: Option<&'a str>,
    pub(super) access_rate: Option<&'a str>,
    pub(super) access_delay: Option<&'a str>,
    pub(super) receiver_rate: Option<&'a str>,
    pub(super) receiver_delay: Option<&'a str>,
    pub(super) access_buffer: Option<&'a str>,
}

impl<'a> AccessFields<'a> {
    pub(super) fn of_flow(g: &'a FlowGroup) -> Self {
        AccessFields {
            rtt: g.rtt.as_deref(),
            access_rate: g.access_rate.as_deref(),
            access_delay: g.access_delay.as_deref(),
            receiver_rate: g.receiver_rate.as_deref(),
            receiver_delay: g.receiver_delay.as_deref(),
            access_buffer: g.access_buffer.as_deref(),
        }
    }

    pub(super) fn of_udp(u: &'a UdpGroup) -> Self {
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
pub(super) struct AccessCore {
    pub(super) b_rate: Rate,
    pub(super) b_delay: SimTime,
}

pub(super) fn access_core(sc: &Scenario) -> Result<AccessCore, ScenarioError> {
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

pub(super) fn dumbbell_access(
    p: &str,
    f: &AccessFields,
    b_rate: Rate,
    b_delay: SimTime,
) -> Result<Access, ScenarioError> {
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
pub(super) fn add_host(sim: &mut Simulation, router: u32, r: Rate, d: SimTime, buf: Capacity, name: &str) -> u32 {
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
pub(super) fn add_pair(sim: &mut Simulation, a: &Access, name: &str, reverse: bool) -> (u32, u32) {
    let s = add_host(sim, 0, a.rate, a.delay, a.buf, &format!("s{name}"));
    let d = add_host(sim, 1, a.rrate, a.rdelay, a.buf, &format!("d{name}"));
    if reverse {
        (d, s)
    } else {
        (s, d)
    }
}

/// The routers, the bottleneck both ways; returns the BDP in packets and each flow group's access.
pub(super) fn build_dumbbell(
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

pub(super) fn node_index(sc: &Scenario, field: &str, name: &str) -> Result<u32, ScenarioError> {
    let nodes = sc.topology.nodes.as_deref().unwrap_or(&[]);
    nodes
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| err(field, name, format!("a node in topology.nodes: {}", nodes.join(", "))))
}

/// On a graph, the dumbbell's access fields mean nothing: refuse them rather than ignore them.
pub(super) fn dumbbell_fields_unset(p: &str, f: &AccessFields, reverse: Option<bool>) -> Result<(), ScenarioError> {
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

pub(super) fn graph_endpoints(
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

pub(super) fn build_graph(sc: &Scenario, pkt_size: u32, seed: u64) -> Result<Simulation, ScenarioError> {
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
