//! The network: links (`link.rs`) and static shortest-path routing over any
//! graph of nodes (`route.rs`). Topology builders (dumbbell, general graph)
//! live in `scenario/topology.rs`, which turns a scenario into links and flows.

pub mod link;
pub mod route;

pub use link::{Link, QueueStats};
pub use route::{route, Routes};
