//! TCP flow groups (`[[flows]]`): `count` flows each, started at `start` (spread
//! uniformly over `start_spread` from one random stream, drawn in flow order).

use super::{p, SourceInput};
use crate::cc;
use crate::net::topology::Network;
use crate::registry::ParamSpec;
use crate::rng::{self, stream_rng};
use crate::scenario::{kit::err, ScenarioError};
use crate::sim::FlowSetup;
use crate::units::SimTime;
use rand::Rng;

/// The fields of a `[[flows]]` group (placement fields are the topology's).
pub(super) static PARAMS: &[ParamSpec] = &[
    p("cc", "name", "(required)", "a registered congestion control, or \"<name>+<add-on>\""),
    p("cc_params", "table", "{}", "the algorithm's parameters (cclab algorithms)"),
    p("count", "whole number", "1", "1 to 1000000"),
    p("name", "text", "<cc><group index>", "any"),
    p("recovery", "name", "reno for cc = \"reno\", else newreno", "reno, newreno, sack"),
    p("start", "duration", "0s", "a time within the duration"),
    p("start_spread", "duration", "0s", "a duration"),
    p("stop", "duration", "(none)", "a time after start + start_spread"),
    p("size", "bytes", "(unlimited)", "a size > 0"),
    p("packet_size", "bytes", "1500B", "64B to 65535B"),
    p("ack_size", "bytes", "40B", "20B to 65535B"),
    p("init_cwnd", "number of packets", "2", "1 to 1e9"),
    p("init_ssthresh", "number of packets", "(unlimited)", ">= 2"),
    p("rwnd", "whole number of packets", "(unlimited)", "1 to 1e12"),
    p("delayed_ack", "bool", "false", "true or false"),
    p("delack_timeout", "duration", "100ms", "a duration"),
    p("timestamps", "bool", "true", "true or false"),
    p("handshake", "bool", "the stack's (false)", "true or false"),
    p("ack_counting", "name", "the stack's (abc)", "abc, per-ack, all"),
    p("ca_rtt", "name", "the stack's (estimator)", "estimator, newest-delivered, smoothed"),
    p("quickacks", "whole number", "the stack's (0)", "0 to 1000000"),
    p("rcv_autotune", "bool", "the stack's (false)", "true or false"),
    p("loss_detection", "name", "the stack's (dupthresh)", "dupthresh, rack-tlp"),
    p("timestamp_clock", "duration", "0s (exact)", "0s to 1s"),
    p("rto_min", "duration", "200ms", "a duration"),
    p("rto_initial", "duration", "1s", "a duration > 0"),
    p("dupthresh", "whole number", "3", "1 to 1000"),
    p("sacked_retx_in_pipe", "bool", "false", "true or false"),
    p("resend_below_high_sack", "bool", "false", "true or false"),
    p("overhead", "duration", "0s", "a duration"),
    p("ecn", "bool or name", "false", "true, false, or \"l4s\" (ECN with ECT(1), RFC 9331)"),
    p("rtt | access_* | receiver_* | reverse | src, dst", "placement", "(topology's)", "see the topology"),
];

/// Adds every flow of every `[[flows]]` group: their order and the random starts drawn in that order.
pub(super) fn build(input: &SourceInput, net: &mut Network) -> Result<(), ScenarioError> {
    let (sc, seed) = (input.sc, input.seed);
    let sim = &mut net.sim;
    let mut start_rng = stream_rng(seed, rng::stream::FLOW_START, 0);
    let mut idx = 0u32;
    for (gi, (g, spec)) in input.settings.groups.iter().zip(&sc.flows).enumerate() {
        for k in 0..g.count {
            let (src, dst) = net.place.tcp_pair(sim, sc, gi, idx)?;
            let start = if g.spread > SimTime::ZERO {
                SimTime(g.start.0 + start_rng.gen_range(0..=g.spread.0))
            } else {
                g.start
            };
            let mut cc = cc::build(&g.build_name, &g.params).expect("validated above");
            cc.set_rng(stream_rng(seed, rng::stream::CC, idx as u64));
            let mut tcp = g.tcp;
            if let Some(tick) = tcp.rto.ns2_tick {
                // ns-2's `boot_time_`: uniform in [0, tick) (rto_ns2.rs).
                let mut clock = stream_rng(seed, rng::stream::TCP_CLOCK, idx as u64);
                tcp.rto.ns2_boot = SimTime(clock.gen_range(0..tick.0.max(1)));
            }
            let group = spec.name.clone().unwrap_or_else(|| format!("{}{}", g.cc_name, gi));
            sim.add_flow(FlowSetup {
                name: format!("{group}.{k}"),
                group,
                cc_name: g.cc_name.clone(),
                src,
                dst,
                tcp,
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
    Ok(())
}
