//! FAST keeps alpha of each flow's packets in the bottleneck queue at equilibrium
//! (Jin, Wei, Low 2004, section 3: the equilibrium of the window update) and, once
//! settled, drops nothing.

mod common;
use cclab_sim::results::Column;
use cclab_sim::RunOutput;
use common::{dumbbell, run_toml};

/// Mean bottleneck queue over the samples taken after the warmup, and the queues
/// table's whole-run mean of the same queue, packets.
fn bottleneck_queue(out: &RunOutput, warmup_s: f64) -> (f64, f64) {
    let row = match out.queues.get("role") {
        Some(Column::Str(roles)) => roles.iter().position(|r| r == "bottleneck").unwrap(),
        _ => panic!("no role column"),
    };
    let link = out.queues.u64s("link")[row];
    let q = &out.queue_series;
    let (t, l, n) = (q.f64s("time_s"), q.u64s("link"), q.u64s("len_pkts"));
    let settled: Vec<f64> = (0..t.len()).filter(|&i| l[i] == link && t[i] >= warmup_s).map(|i| n[i] as f64).collect();
    (settled.iter().sum::<f64>() / settled.len() as f64, out.queues.f64s("mean_len_pkts")[row])
}

fn run(flows: u32, rate: &str) -> RunOutput {
    let f = format!(
        r#"
[[flows]]
cc = "fast"
count = {flows}
rtt = "40ms"
start_spread = "100ms"
"#
    );
    let mut text = dumbbell(rate, "18ms", "2000pkts", "60s", "20s", &f);
    text = text.replacen("warmup", "sample_interval = \"10ms\"\nwarmup", 1);
    run_toml(&text, 1)
}

#[test]
fn fast_holds_alpha_packets_per_flow_in_the_queue_and_drops_nothing() {
    let alpha = 20.0;
    for (n, rate) in [(1, "10Mbps"), (2, "20Mbps"), (4, "50Mbps")] {
        let out = run(n, rate);
        let (q, whole) = bottleneck_queue(&out, 20.0);
        let losses: Vec<f64> = out.flows.f64s("loss_rate").to_vec();
        let util = out.summary_value("bottleneck_utilization").unwrap();
        let want = n as f64 * alpha;
        eprintln!(
            "{n} flow(s) on {rate}: mean queue after 20 s {q:.2} pkts (n·alpha = {want}); \
             whole-run mean {whole:.2}; loss after warmup {losses:?}; utilization {util:.4}"
        );
        assert!((q - want).abs() <= 0.05 * want, "{n} flows: queue {q:.2}, n·alpha {want}");
        assert!(losses.iter().all(|&l| l == 0.0), "{n} flows: losses after warmup {losses:?}");
        assert!(util > 0.99, "{n} flows: utilization {util}");
    }
}
