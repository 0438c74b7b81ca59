//! Traffic other than long-lived TCP flows: distributions (`dist.rs`),
//! UDP constant-bit-rate and on/off sources (`udp.rs`), and web-like traffic
//! after ns-2's PagePool/WebTraf (`web.rs`).

pub mod dist;
pub mod udp;
pub mod web;

pub use dist::{Dist, DistSpec};
