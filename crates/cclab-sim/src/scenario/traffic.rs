//! The scenario's UDP and web traffic sections, and their validation.
//!
//! ```toml
//! [[udp]]                     # constant bit rate, or on/off with on_time/off_time
//! rate = "10Mbps"
//! packet_size = "1000B"
//! on_time = "500ms"           # mean of the exponential on period
//! off_time = "500ms"          # mean of the exponential off period
//!
//! [web]                       # ns-2 PagePool/WebTraf (paper 004, section 5)
//! sessions = 100
//! pages_per_session = 100
//! session_spread = "50s"
//! inter_page = { dist = "pareto", mean = 10, shape = 2 }         # seconds
//! objects_per_page = { dist = "pareto", mean = 3, shape = 1.5 }
//! inter_object = { dist = "pareto", mean = 0.5, shape = 1.5 }    # seconds
//! object_size = { dist = "pareto", mean = 12000, shape = 1.2 }   # bytes
//! servers = 200
//! server_delay = ["10ms", "20ms"]                                 # uniform range
//! clients = 1000
//! client_rate = ["100Mbps", "155Mbps"]
//! client_delay = ["20ms", "50ms"]
//! ```

use super::{err, rate, time, ScenarioError};
use crate::traffic::{Dist, DistSpec};
use crate::units::{Rate, SimTime};
use rand::Rng;
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A group of UDP sources.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpGroup {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Sending rate while on.
    pub rate: String,
    /// Default "1000B".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    /// On/off source: mean on period (exponential). Both or neither of on_time/off_time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_time: Option<String>,
    /// On/off source: mean off period (exponential).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_time: Option<String>,
    /// Dumbbell: send from the right side to the left (through the reverse bottleneck).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_rate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_delay: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_delay: Option<String>,
    /// Dumbbell: DropTail buffer of each access link (default "unlimited").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_buffer: Option<String>,
    /// Graph: source and destination node names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
}

/// A value or a uniform range `[lo, hi]`, each as a unit string.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrRange {
    One(String),
    Range([String; 2]),
}

/// Web-like traffic (ns-2 PagePool/WebTraf), dumbbell only: servers on the
/// left of the bottleneck, clients on the right.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    pub sessions: u32,
    pub pages_per_session: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_spread: Option<String>,
    /// Seconds.
    pub inter_page: DistSpec,
    pub objects_per_page: DistSpec,
    /// Seconds.
    pub inter_object: DistSpec,
    /// Bytes.
    pub object_size: DistSpec,
    /// Default "newreno".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_params: Option<BTreeMap<String, f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<String>,
    /// Whose TCP details the object transfers follow, as a flow group's `stack` (default "cclab").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    pub servers: u32,
    pub clients: u32,
    /// Default: 10 x the bottleneck.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_rate: Option<OneOrRange>,
    /// Default "1ms".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_delay: Option<OneOrRange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_rate: Option<OneOrRange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_delay: Option<OneOrRange>,
}

/// Resolves a time distribution given in seconds.
pub(super) fn dist(field: &str, d: &DistSpec) -> Result<Dist, ScenarioError> {
    d.resolve(0.0).map_err(|(sub, v, acc)| err(format!("{field}.{sub}"), v, acc))
}

/// Draws a rate from a value or uniform range.
pub(super) fn draw_rate(field: &str, r: &OneOrRange, rng: &mut Pcg64) -> Result<Rate, ScenarioError> {
    match r {
        OneOrRange::One(s) => rate(field, s),
        OneOrRange::Range([a, b]) => {
            let (lo, hi) = (rate(&format!("{field}[0]"), a)?, rate(&format!("{field}[1]"), b)?);
            if hi < lo {
                return Err(err(format!("{field}[1]"), b, "a rate >= the first"));
            }
            Ok(Rate(rng.gen_range(lo.0..=hi.0)))
        }
    }
}

/// Draws a delay from a value or uniform range.
pub(super) fn draw_time(field: &str, r: &OneOrRange, rng: &mut Pcg64) -> Result<SimTime, ScenarioError> {
    match r {
        OneOrRange::One(s) => time(field, s),
        OneOrRange::Range([a, b]) => {
            let (lo, hi) = (time(&format!("{field}[0]"), a)?, time(&format!("{field}[1]"), b)?);
            if hi < lo {
                return Err(err(format!("{field}[1]"), b, "a duration >= the first"));
            }
            Ok(SimTime(rng.gen_range(lo.0..=hi.0)))
        }
    }
}
