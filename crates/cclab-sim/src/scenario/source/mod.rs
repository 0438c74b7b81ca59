//! Traffic sources: what adds flows to a built topology, one file per kind
//! (`tcp.rs`: the `[[flows]]` groups, `udp.rs`: `[[udp]]`, `web.rs`: `[web]`).
//! Each reads its validated section and asks the topology where each flow's
//! ends attach. They run in the order of [`BUILTIN`], which fixes the order of
//! flows, nodes and links (and so every result).
//!
//! A new kind of source also needs its section in the scenario's schema
//! (`scenario/schema.rs`); its constructor and registry line are as here.

mod tcp;
mod udp;
mod web;

use super::flows::{GroupSettings, UdpSettings, WebSettings};
use super::{Scenario, ScenarioError};
use crate::net::topology::Network;
use crate::registry::{Entry, ParamSpec, Registry, Schema};
use crate::units::SimTime;

/// The scenario's traffic sections, validated.
pub(super) struct Settings {
    pub(super) groups: Vec<GroupSettings>,
    pub(super) udps: Vec<UdpSettings>,
    pub(super) web: Option<WebSettings>,
}

/// What a traffic source is built from.
pub struct SourceInput<'a> {
    pub sc: &'a Scenario,
    pub seed: u64,
    pub duration: SimTime,
    settings: &'a Settings,
}

impl<'a> SourceInput<'a> {
    pub(super) fn new(sc: &'a Scenario, seed: u64, duration: SimTime, settings: &'a Settings) -> Self {
        SourceInput { sc, seed, duration, settings }
    }
}

/// A traffic source's constructor: adds its flows to the network.
pub type Builder = fn(&SourceInput, &mut Network) -> Result<(), ScenarioError>;

/// The traffic sources, in the order they add their flows.
pub static BUILTIN: &[Entry<Builder>] = &[
    Entry {
        name: "tcp",
        summary: "[[flows]]: groups of TCP flows, each with its congestion control, start, stop and size",
        params: Schema::Declared(tcp::PARAMS),
        build: tcp::build,
    },
    Entry {
        name: "udp",
        summary: "[[udp]]: constant-bit-rate or exponential on/off UDP sources",
        params: Schema::Declared(udp::PARAMS),
        build: udp::build,
    },
    Entry {
        name: "web",
        summary: "[web]: ns-2 PagePool/WebTraf sessions of pages of objects, each a finite TCP flow (dumbbell only)",
        params: Schema::Declared(web::PARAMS),
        build: web::build,
    },
];

/// Every traffic source, built-ins first.
pub static REGISTRY: Registry<Builder> = Registry::new("traffic", BUILTIN, |_| Vec::new());

/// A parameter given as a unit string.
const fn p(name: &'static str, kind: &'static str, default: &'static str, accepted: &'static str) -> ParamSpec {
    ParamSpec::new(name, kind, "", default, accepted)
}
