//! Runs a scenario file and prints its summary and speed:
//! `cargo run --release --example run_scenario -- SCENARIO.toml [SEED]`.

use cclab_sim::{results, Scenario};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: run_scenario SCENARIO.toml [SEED]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let seed = args.get(2).map(|s| s.parse().expect("seed: a whole number")).unwrap_or(1);
    let mut sc = Scenario::from_toml(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    sc.resolve_paths(std::path::Path::new(path).parent().unwrap_or(std::path::Path::new(".")));
    let mut b = sc.build(seed).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    b.sim.run_until(b.duration);
    let wall = t0.elapsed().as_secs_f64();
    let out = results::collect(&b.sim, b.duration);
    for (k, v) in &out.summary {
        println!("{k:>28} {v}");
    }
    let g = out.flows.f64s("goodput_bps");
    let d = out.flows.u64s("drops");
    let t = out.flows.u64s("timeouts");
    let fr = out.flows.u64s("fast_retransmits");
    let rm = out.flows.f64s("rtt_mean_s");
    for i in 0..g.len().min(20) {
        println!(
            "flow {i:>3}: goodput {:>9.3} Mbit/s  drops {:>6}  fast_retx {:>6}  timeouts {:>4}  rtt_mean {:.4} s",
            g[i] / 1e6,
            d[i],
            fr[i],
            t[i],
            rm[i]
        );
    }
    if let Ok(path) = std::env::var("CCLAB_DUMP") {
        // Flow time series as CSV, for a quick look.
        let fs = &out.flow_series;
        let mut text = String::from("time_s,flow,cwnd,ssthresh,srtt_s,goodput_bps\n");
        let (t, f, c, s, r, g) = (
            fs.f64s("time_s"),
            fs.u64s("flow"),
            fs.f64s("cwnd"),
            fs.f64s("ssthresh"),
            fs.f64s("srtt_s"),
            fs.f64s("goodput_bps"),
        );
        for i in 0..t.len() {
            text += &format!("{},{},{},{},{},{}\n", t[i], f[i], c[i], s[i], r[i], g[i]);
        }
        std::fs::write(path, text).expect("write CCLAB_DUMP");
    }
    let delivered: u64 = out.flows.u64s("delivered_pkts").iter().sum();
    println!("{:>28} {wall:.3}", "wall_s");
    println!("{:>28} {:.0}", "delivered_pkts_per_s", delivered as f64 / wall);
    println!("{:>28} {:.0}", "events_per_s", b.sim.events_handled as f64 / wall);
}
