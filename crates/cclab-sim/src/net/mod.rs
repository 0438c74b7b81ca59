//! The network: links (`link.rs`) and static shortest-path routing over any
//! graph of nodes (`route.rs`). Topology builders (dumbbell, general graph)
//! live in `topology/`, one per file, found by name in its registry.

pub mod link;
pub mod route;
pub mod topology;

pub use link::{Link, QueueStats};
pub use route::{route, Routes};
