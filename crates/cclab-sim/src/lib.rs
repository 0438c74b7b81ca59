//! # cclab-sim: a deterministic packet-level simulator for TCP congestion control
//!
//! The layers, top to bottom:
//!
//! - [`scenario`]: a scenario is data (TOML or JSON). It is validated field by
//!   field, then built into a [`sim::Simulation`]: nodes, links, flows.
//! - [`sim`]: the simulation owns everything: the event queue, the links, the
//!   flows, the metrics. `run_until` advances it; many can run side by side.
//! - [`engine`]: the event queue, ordered by (time, insertion sequence) so
//!   that ties break the same way on every run.
//! - [`net`]: links (a queue discipline, a transmitter, a FIFO wire whose head
//!   alone is an event) and static shortest-path routing over any graph.
//! - [`queue`]: queue disciplines behind one trait (DropTail in packets or bytes).
//! - [`tcp`]: the sender (Reno, NewReno and SACK loss recovery, RFC 6298
//!   timers), the receiver (SACK, timestamps, delayed ACKs), the scoreboard.
//! - [`cc`]: the congestion-control interface, shaped like Linux's
//!   `tcp_congestion_ops`, its registry, and one file per algorithm.
//! - [`metrics`] and [`results`]: counters and sampled time series, kept
//!   column-wise and handed out as tables.
//! - [`units`]: integer picosecond time, rates, sizes, and their parsers.
//!
//! Time is an integer number of picoseconds; randomness comes from one seed
//! split into independent streams ([`rng`]). Same scenario and seed, same
//! bits out.
#![deny(unsafe_code)]

pub mod budget;
pub mod cc;
pub mod describe;
pub mod dump;
pub mod engine;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod queue;
pub mod registry;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod trace;
pub mod traffic;
pub mod units;

/// The version of the results: it changes when, and only when, some scenario and
/// seed can give a different result than before (an algorithm, a queue, the
/// sender, the engine's order of events, a metric). Finished runs are cached
/// under it (`cclab reproduce`), so a rebuild that leaves results alone keeps
/// them. Bump it by hand with any change that moves a result;
/// `tests/result_version.rs` holds the digest of a set of reference runs and
/// fails when the digest changes while this number does not.
pub const RESULT_VERSION: u32 = 1;

pub use results::RunOutput;
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;

/// Builds and runs a scenario to its end and collects its results.
pub fn run(scenario: &Scenario, seed: u64) -> Result<RunOutput, ScenarioError> {
    let mut b = scenario.build(seed)?;
    b.sim.run_until(b.duration);
    if let Some((field, msg)) = b.sim.trace_error() {
        return Err(ScenarioError::new(field, msg, "a trace within its bounds (docs/tracing.md)"));
    }
    Ok(results::collect(&b.sim, b.duration))
}
