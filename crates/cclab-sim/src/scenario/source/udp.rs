//! UDP sources (`[[udp]]`): constant bit rate, or on/off with exponential periods.

use super::{p, SourceInput};
use crate::net::topology::Network;
use crate::registry::ParamSpec;
use crate::rng::{self, stream_rng};
use crate::scenario::{kit::err, ScenarioError};
use crate::traffic::udp::UdpFlow;
use crate::units::SimTime;

/// The fields of a `[[udp]]` group (placement fields are the topology's).
pub(super) static PARAMS: &[ParamSpec] = &[
    p("rate", "rate", "(required)", "the sending rate while on, \"10Mbps\""),
    p("count", "whole number", "1", "1 to 1000000"),
    p("name", "text", "udp<group index>", "any"),
    p("packet_size", "bytes", "1000B", "20B to 65535B"),
    p("start", "duration", "0s", "a time within the duration"),
    p("stop", "duration", "(none)", "a time after start"),
    p("on_time", "duration", "(always on)", "mean on period (exponential), with off_time"),
    p("off_time", "duration", "(always on)", "mean off period (exponential), with on_time"),
    p("access_* | receiver_delay | reverse | src, dst", "placement", "(topology's)", "see the topology"),
];

/// Adds every source of every `[[udp]]` group.
pub(super) fn build(input: &SourceInput, net: &mut Network) -> Result<(), ScenarioError> {
    let (sc, seed) = (input.sc, input.seed);
    let sim = &mut net.sim;
    let mut uidx = 0u32;
    for (ui, (u, spec)) in input.settings.udps.iter().zip(&sc.udp).enumerate() {
        let p = format!("udp[{ui}]");
        net.place.udp_group(sc, ui)?;
        for k in 0..u.count {
            let (src, dst) = net.place.udp_pair(sim, sc, ui, uidx)?;
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
    Ok(())
}
