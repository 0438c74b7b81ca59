//! The dumbbell: two routers joined by a bottleneck (both directions), and a
//! sender and a receiver per flow attached by access links of their own, so
//! each flow group can have its own round-trip time (ns-2's usual set-up for
//! the papers' experiments).
//!
//! Parameters (`[topology]`): `bottleneck = { rate, delay, buffer, queue, queue_params,
//! reverse_buffer, loss }` and `bdp_rtt`; per flow or UDP group: `rtt` or `access_delay`,
//! `access_rate`, `receiver_rate`, `receiver_delay`, `access_buffer`, `reverse`.

use super::{Network, Place, TopologyInput};
use crate::net::Link;
use crate::queue::{droptail::DropTail, Capacity};
use crate::scenario::kit::{
    apply_vary, buffer, capacity, err, loss_model, make_queue, rate, time, Files, QueueSite, VarySpec,
};
use crate::scenario::{FlowGroup, Scenario, ScenarioError, UdpGroup};
use crate::sim::Simulation;
use crate::units::{BufferSize, Rate, SimTime};

/// The registry's constructor (`kind = "dumbbell"`).
pub fn build(t: &TopologyInput) -> Result<Network, ScenarioError> {
    let (sim, bdp, access) = build_dumbbell(t.sc, t.counts, t.pkt_size, t.seed)?;
    let AccessCore { b_rate, .. } = access_core(t.sc)?;
    Ok(Network { sim, bdp_pkts: Some(bdp), place: Box::new(Dumbbell { access, b_rate, udp: None }) })
}

/// Where a dumbbell puts the ends of each flow.
struct Dumbbell {
    /// Each flow group's access links.
    access: Vec<Access>,
    /// The bottleneck's rate (web hosts' default is ten times it).
    b_rate: Rate,
    /// The access links of the UDP group being placed.
    udp: Option<Access>,
}

impl Place for Dumbbell {
    fn tcp_pair(
        &mut self,
        sim: &mut Simulation,
        sc: &Scenario,
        gi: usize,
        idx: u32,
    ) -> Result<(u32, u32), ScenarioError> {
        Ok(add_pair(sim, &self.access[gi], &format!("{idx}"), sc.flows[gi].reverse.unwrap_or(false)))
    }

    fn udp_group(&mut self, sc: &Scenario, ui: usize) -> Result<(), ScenarioError> {
        let AccessCore { b_rate, b_delay } = access_core(sc)?;
        let spec = &sc.udp[ui];
        self.udp = Some(dumbbell_access(&format!("udp[{ui}]"), &AccessFields::of_udp(spec), b_rate, b_delay)?);
        Ok(())
    }

    fn udp_pair(
        &mut self,
        sim: &mut Simulation,
        sc: &Scenario,
        ui: usize,
        idx: u32,
    ) -> Result<(u32, u32), ScenarioError> {
        let a = self.udp.as_ref().expect("udp_group is called first");
        Ok(add_pair(sim, a, &format!("u{idx}"), sc.udp[ui].reverse.unwrap_or(false)))
    }

    fn host_rate(&self) -> Option<Rate> {
        Some(Rate(self.b_rate.0.saturating_mul(10)))
    }

    fn add_host(&mut self, sim: &mut Simulation, right: bool, r: Rate, d: SimTime, name: &str) -> u32 {
        add_host(sim, right as u32, r, d, Capacity::Unlimited, name)
    }
}

/// The access links of one dumbbell host pair.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub rate: Rate,
    pub delay: SimTime,
    pub rrate: Rate,
    pub rdelay: SimTime,
    /// Capacity of each access link's DropTail queue.
    pub buf: Capacity,
}

/// The access fields a flow or UDP group may set.
pub struct AccessFields<'a> {
    pub rtt: Option<&'a str>,
    pub access_rate: Option<&'a str>,
    pub access_delay: Option<&'a str>,
    pub receiver_rate: Option<&'a str>,
    pub receiver_delay: Option<&'a str>,
    pub access_buffer: Option<&'a str>,
}

impl<'a> AccessFields<'a> {
    pub fn of_flow(g: &'a FlowGroup) -> Self {
        AccessFields {
            rtt: g.rtt.as_deref(),
            access_rate: g.access_rate.as_deref(),
            access_delay: g.access_delay.as_deref(),
            receiver_rate: g.receiver_rate.as_deref(),
            receiver_delay: g.receiver_delay.as_deref(),
            access_buffer: g.access_buffer.as_deref(),
        }
    }

    pub fn of_udp(u: &'a UdpGroup) -> Self {
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
pub struct AccessCore {
    pub b_rate: Rate,
    pub b_delay: SimTime,
}

pub fn access_core(sc: &Scenario) -> Result<AccessCore, ScenarioError> {
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

pub fn dumbbell_access(p: &str, f: &AccessFields, b_rate: Rate, b_delay: SimTime) -> Result<Access, ScenarioError> {
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
pub fn add_host(sim: &mut Simulation, router: u32, r: Rate, d: SimTime, buf: Capacity, name: &str) -> u32 {
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
pub fn add_pair(sim: &mut Simulation, a: &Access, name: &str, reverse: bool) -> (u32, u32) {
    let s = add_host(sim, 0, a.rate, a.delay, a.buf, &format!("s{name}"));
    let d = add_host(sim, 1, a.rrate, a.rdelay, a.buf, &format!("d{name}"));
    if reverse {
        (d, s)
    } else {
        (s, d)
    }
}

/// The routers, the bottleneck both ways; returns the BDP in packets and each flow group's access
/// (`counts`: the flows in each group, which weigh the mean RTT that defines one BDP).
pub fn build_dumbbell(
    sc: &Scenario,
    counts: &[u32],
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
        for (&count, a) in counts.iter().zip(&access) {
            sum += 2.0 * (a.delay + b_delay + a.rdelay).secs_f64() * count as f64;
            n += count as f64;
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
        delay: b_delay,
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
    let mut files = Files::default();
    let vary = VarySpec::of_bottleneck(b);
    apply_vary(&mut l, "topology.bottleneck", &vary, seed, 0, &mut files)?;
    let bl = sim.add_link(l);
    let mut l = Link::new("bottleneck.reverse".into(), 1, 0, b_rate, b_delay, rq);
    l.role = "reverse";
    // The rate and delay schedules both ways, as rate and delay; loss and a trace forward only.
    apply_vary(&mut l, "topology.bottleneck", &vary.both_ways(), seed, 1, &mut files)?;
    let rl = sim.add_link(l);
    sim.monitored.push(bl);
    if two_way {
        sim.monitored.push(rl);
    }
    Ok((sim, bdp_pkts, access))
}
