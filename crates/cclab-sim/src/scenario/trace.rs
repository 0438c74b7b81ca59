//! The scenario's `[trace]` table (docs/tracing.md): which flows and links to trace, which
//! tables to record, the pcap file, and the bound on what is recorded.
//!
//! ```toml
//! [trace]
//! flows = [0, "cubic.2"]     # indices of the flows table, or flow names; default all
//! links = ["bottleneck"]     # link names or roles; default all
//! pcap = "flow0.pcapng"      # optional
//! ```

use super::*;
use crate::trace::{Trace, TraceConfig};
use std::path::PathBuf;

/// Records (table rows and pcap packets together) a trace keeps by default, and at most.
pub const DEFAULT_MAX_RECORDS: u64 = 2_000_000;
pub const MAX_RECORDS: u64 = 50_000_000;
/// Bytes of each pcap frame kept by default: every header (14 + 20 + 60) fits.
pub const DEFAULT_SNAPLEN: u32 = 128;

/// A flow named by its index in the flows table or by its name.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum FlowRef {
    Index(u64),
    Name(String),
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Flows to trace: indices of the flows table or flow names; default every TCP flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<FlowRef>>,
    /// Links whose packet events are logged: link names or roles; default every link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<String>>,
    /// Record the `packets` table (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<bool>,
    /// Record the `sender` table (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<bool>,
    /// Write the traced flows' packets to this pcapng file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<String>,
    /// Bytes kept of each pcap frame (default 128: the headers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snaplen: Option<u32>,
    /// Rows and pcap packets at most (default 2000000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_records: Option<u64>,
}

/// Resolves the `[trace]` table against the network built.
pub(super) fn build_trace(t: &TraceSpec, sim: &Simulation) -> Result<Trace, ScenarioError> {
    let n_flows = sim.flows.len();
    let flows = match &t.flows {
        None => None,
        Some(refs) => {
            let mut on = vec![false; n_flows];
            for (i, r) in refs.iter().enumerate() {
                let field = format!("trace.flows[{i}]");
                let idx = match r {
                    FlowRef::Index(k) if (*k as usize) < n_flows => *k as usize,
                    FlowRef::Index(k) => {
                        return Err(err(
                            field,
                            k,
                            format!("a flow index 0..{} or a flow name", n_flows.saturating_sub(1)),
                        ))
                    }
                    FlowRef::Name(n) => sim.flows.iter().position(|f| &f.name == n).ok_or_else(|| {
                        let names: Vec<&str> = sim.flows.iter().take(5).map(|f| f.name.as_str()).collect();
                        err(field, n, format!("a flow index or a flow name ({}...)", names.join(", ")))
                    })?,
                };
                on[idx] = true;
            }
            Some(on)
        }
    };
    let links = match &t.links {
        None => vec![true; sim.links.len()],
        Some(names) => {
            let mut on = vec![false; sim.links.len()];
            for (i, n) in names.iter().enumerate() {
                let by_name: Vec<usize> =
                    sim.links.iter().enumerate().filter(|(_, l)| &l.name == n).map(|(j, _)| j).collect();
                let hits = if by_name.is_empty() {
                    sim.links.iter().enumerate().filter(|(_, l)| l.role == n).map(|(j, _)| j).collect()
                } else {
                    by_name
                };
                if hits.is_empty() {
                    let mut roles: Vec<&str> = sim.links.iter().map(|l| l.role).collect();
                    roles.sort_unstable();
                    roles.dedup();
                    let names: Vec<&str> = sim.links.iter().take(4).map(|l| l.name.as_str()).collect();
                    return Err(err(
                        format!("trace.links[{i}]"),
                        n,
                        format!("a link role ({}) or a link name ({}...)", roles.join(", "), names.join(", ")),
                    ));
                }
                for j in hits {
                    on[j] = true;
                }
            }
            on
        }
    };
    let pcap = match &t.pcap {
        None => None,
        Some(p) => {
            let path = PathBuf::from(p);
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            if p.is_empty() || path.is_dir() || dir.is_some_and(|d| !d.is_dir()) {
                return Err(err("trace.pcap", p, "the path of a file in an existing folder"));
            }
            Some(path)
        }
    };
    let snaplen = t.snaplen.unwrap_or(DEFAULT_SNAPLEN);
    if !(64..=65_535).contains(&snaplen) {
        return Err(err("trace.snaplen", snaplen, "64 to 65535 bytes"));
    }
    let max_records = t.max_records.unwrap_or(DEFAULT_MAX_RECORDS);
    if !(1..=MAX_RECORDS).contains(&max_records) {
        return Err(err(
            "trace.max_records",
            max_records,
            format!("1 to {MAX_RECORDS} records, so that a trace fits in memory"),
        ));
    }
    let packets = t.packets.unwrap_or(true);
    let sender = t.sender.unwrap_or(true);
    if !packets && !sender && pcap.is_none() {
        return Err(err("trace", "packets = false, sender = false", "at least one of packets, sender or pcap"));
    }
    Ok(Trace::new(TraceConfig { flows, links, packets, sender, pcap, snaplen, max_records }))
}
