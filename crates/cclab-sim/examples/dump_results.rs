//! Runs a scenario and prints every result it produces (summary, every table,
//! every column, every value to full precision) on stdout, and the wall time on
//! stderr, so that two builds can be checked for bit-for-bit identical runs:
//!
//! `cargo run --release --example dump_results -- SCENARIO.{toml,json} [SEED] [DURATION] > out.txt`
//!
//! DURATION (e.g. `5s`) overrides the scenario's, to shorten a run. Floats are
//! printed with `{:?}`, which round-trips, and as their bits.

use cclab_sim::results::Column;
use cclab_sim::{dump, results, Scenario};
use std::time::Instant;

fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else { fail("usage: dump_results SCENARIO.{toml,json} [SEED] [DURATION]".into()) };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let seed = args.get(2).map(|s| s.parse().expect("seed: a whole number")).unwrap_or(1);
    let parsed = if path.ends_with(".json") { Scenario::from_json(&text) } else { Scenario::from_toml(&text) };
    let mut sc = parsed.unwrap_or_else(|e| fail(e.to_string()));
    sc.resolve_paths(std::path::Path::new(path).parent().unwrap_or(std::path::Path::new(".")));
    if let Some(d) = args.get(3) {
        sc.duration = d.clone();
    }
    let mut b = sc.build(seed).unwrap_or_else(|e| fail(e.to_string()));
    let t0 = Instant::now();
    b.sim.run_until(b.duration);
    let wall = t0.elapsed().as_secs_f64();
    let r = results::collect(&b.sim, b.duration);

    let out = dump::dump(&r, b.sim.events_handled, b.sim.pending_events());
    print!("{out}");
    let delivered: u64 = r.flows.get("delivered_pkts").map_or(0, |c| match c {
        Column::U64(v) => v.iter().sum(),
        _ => 0,
    });
    eprintln!(
        "wall_s {wall:.3}  events {}  events_per_s {:.0}  delivered_pkts_per_s {:.0}",
        b.sim.events_handled,
        b.sim.events_handled as f64 / wall,
        delivered as f64 / wall
    );
}
