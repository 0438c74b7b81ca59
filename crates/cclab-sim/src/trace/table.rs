//! The trace's rows as the result tables `packets` and `sender` (columns listed, with their
//! units, in docs/tracing.md). Without a trace both tables have their columns and no rows.

use super::{PacketRow, SenderRow, Trace, NO_LINK};
use crate::cc::CaState;
use crate::packet::Kind;
use crate::results::{Column, Table};

/// `link` of an event at an endpoint, as the table writes it (Python reads it as missing).
pub const NO_LINK_U64: u64 = u64::MAX;

fn col_f(t: &mut Table, name: &'static str, v: Vec<f64>) {
    t.columns.push((name, Column::F64(v)));
}
fn col_u(t: &mut Table, name: &'static str, v: Vec<u64>) {
    t.columns.push((name, Column::U64(v)));
}
fn col_s(t: &mut Table, name: &'static str, v: Vec<String>) {
    t.columns.push((name, Column::Str(v)));
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Data => "data",
        Kind::Ack => "ack",
        Kind::Udp => "udp",
    }
}

pub fn ca_state_name(s: CaState) -> &'static str {
    match s {
        CaState::Open => "open",
        CaState::Disorder => "disorder",
        CaState::Recovery => "recovery",
        CaState::Loss => "loss",
    }
}

/// SACK blocks as `start-end` segment ranges `[start, end)`, space-separated.
fn sack_text(r: &PacketRow) -> String {
    let mut s = String::new();
    for b in &r.sack[..r.n_sack as usize] {
        if !s.is_empty() {
            s.push(' ');
        }
        s += &format!("{}-{}", r.seq + b.start as u64, r.seq + b.end as u64);
    }
    s
}

/// The `packets` table.
pub fn packets_table(tr: Option<&Trace>) -> Table {
    let rows: &[PacketRow] = tr.map_or(&[], |t| &t.packets);
    let mut t = Table::default();
    col_f(&mut t, "time_s", rows.iter().map(|r| r.t.secs_f64()).collect());
    col_s(&mut t, "event", rows.iter().map(|r| r.ev.name().to_string()).collect());
    col_u(&mut t, "flow", rows.iter().map(|r| r.flow as u64).collect());
    col_s(&mut t, "kind", rows.iter().map(|r| kind_name(r.kind).to_string()).collect());
    col_u(&mut t, "seq", rows.iter().map(|r| r.seq).collect());
    col_u(&mut t, "size", rows.iter().map(|r| r.size as u64).collect());
    col_u(&mut t, "retx", rows.iter().map(|r| r.retx as u64).collect());
    col_s(&mut t, "cause", rows.iter().map(|r| r.cause.name().to_string()).collect());
    col_u(&mut t, "link", rows.iter().map(|r| if r.link == NO_LINK { NO_LINK_U64 } else { r.link as u64 }).collect());
    col_u(&mut t, "queue_pkts", rows.iter().map(|r| r.qlen as u64).collect());
    col_u(&mut t, "flags", rows.iter().map(|r| r.flags as u64).collect());
    col_s(&mut t, "sack", rows.iter().map(sack_text).collect());
    t
}

/// The `sender` table.
pub fn sender_table(tr: Option<&Trace>) -> Table {
    let rows: &[SenderRow] = tr.map_or(&[], |t| &t.sender);
    let obs = |f: fn(&crate::cc::CcObservation) -> f64| -> Vec<f64> {
        rows.iter().map(|r| r.obs.as_ref().map_or(f64::NAN, f)).collect()
    };
    let mut t = Table::default();
    col_f(&mut t, "time_s", rows.iter().map(|r| r.t.secs_f64()).collect());
    col_u(&mut t, "flow", rows.iter().map(|r| r.flow as u64).collect());
    col_s(
        &mut t,
        "event",
        rows.iter().map(|r| if r.ev == super::Ev::Deliver { "ack" } else { r.ev.name() }.to_string()).collect(),
    );
    col_u(&mut t, "ack", rows.iter().map(|r| r.ack).collect());
    col_f(&mut t, "cwnd", rows.iter().map(|r| r.cwnd).collect());
    col_f(&mut t, "ssthresh", rows.iter().map(|r| r.ssthresh).collect());
    col_f(&mut t, "srtt_s", rows.iter().map(|r| r.srtt).collect());
    col_f(&mut t, "rttvar_s", rows.iter().map(|r| r.rttvar).collect());
    col_f(&mut t, "rto_s", rows.iter().map(|r| r.rto.secs_f64()).collect());
    col_f(&mut t, "rtt_s", rows.iter().map(|r| r.rtt.secs_f64()).collect());
    col_u(&mut t, "in_flight", rows.iter().map(|r| r.pipe).collect());
    col_u(&mut t, "snd_una", rows.iter().map(|r| r.snd_una).collect());
    col_u(&mut t, "snd_nxt", rows.iter().map(|r| r.snd_nxt).collect());
    col_f(&mut t, "pacing_rate_bps", rows.iter().map(|r| r.pacing).collect());
    col_s(&mut t, "ca_state", rows.iter().map(|r| ca_state_name(r.state).to_string()).collect());
    col_u(&mut t, "retransmits", rows.iter().map(|r| r.retransmits).collect());
    col_s(&mut t, "cc_state", rows.iter().map(|r| r.obs.map_or("", |o| o.state).to_string()).collect());
    col_f(&mut t, "cc_pacing_gain", obs(|o| o.pacing_gain));
    col_f(&mut t, "cc_cwnd_gain", obs(|o| o.cwnd_gain));
    col_f(&mut t, "cc_bw_bps", obs(|o| o.bw_bps));
    col_f(&mut t, "cc_min_rtt_s", obs(|o| o.min_rtt.map_or(f64::NAN, |m| m.secs_f64())));
    t
}
