//! Every result of a run as text, to full precision, so that two builds can be
//! compared bit for bit (`examples/dump_results.rs`) and a digest of reference
//! runs can guard [`crate::RESULT_VERSION`] (`tests/result_version.rs`).
//!
//! Floats are written with `{:?}`, which round-trips, and as their bits. The event
//! counts are written too, for a look at how the engine got there; the digests of
//! `tests/result_version.rs` leave them out (they are not results).

use crate::results::{Column, RunOutput, Table};
use std::fmt::Write;

fn f64_text(x: f64) -> String {
    format!("{x:?}/{:016x}", x.to_bits())
}

fn table(out: &mut String, name: &str, t: &Table) {
    for (col, c) in &t.columns {
        let _ = write!(out, "{name}.{col}:");
        match c {
            Column::F64(v) => v.iter().for_each(|x| {
                let _ = write!(out, " {}", f64_text(*x));
            }),
            Column::U64(v) => v.iter().for_each(|x| {
                let _ = write!(out, " {x}");
            }),
            Column::Str(v) => v.iter().for_each(|x| {
                let _ = write!(out, " {x:?}");
            }),
        }
        out.push('\n');
    }
}

/// The run's summary and every table, one line per column, plus the events handled
/// and still pending at the end.
pub fn dump(r: &RunOutput, events_handled: u64, pending_events: usize) -> String {
    let mut out = String::new();
    for (k, v) in &r.summary {
        let _ = writeln!(out, "summary.{k}: {}", f64_text(*v));
    }
    let _ = writeln!(out, "events_handled: {events_handled}");
    let _ = writeln!(out, "pending_events: {pending_events}");
    for (name, t) in [
        ("flows", &r.flows),
        ("queues", &r.queues),
        ("links", &r.links),
        ("udp", &r.udp),
        ("web", &r.web),
        ("flow_series", &r.flow_series),
        ("queue_series", &r.queue_series),
    ] {
        table(&mut out, name, t);
    }
    // Only algorithms that show their state fill it (BBR); written only then, so that the
    // dumps of runs without such an algorithm are what they were before the table existed.
    if r.cc_series.rows() > 0 {
        table(&mut out, "cc_series", &r.cc_series);
    }
    // The trace's tables have rows only when a scenario asks for a trace: written only then.
    for (name, t) in [("packets", &r.packets), ("sender", &r.sender)] {
        if t.rows() > 0 {
            table(&mut out, name, t);
        }
    }
    out
}
