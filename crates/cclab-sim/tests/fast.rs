//! FAST keeps alpha of each flow's packets in the bottleneck queue at equilibrium
//! (Jin, Wei, Low 2004, section 3: the equilibrium of the window update) and, once
//! settled, drops nothing.

mod common;
use cclab_sim::RunOutput;
use common::{bottleneck_queue, queue_equilibrium_run};

fn run(flows: u32, rate: &str) -> RunOutput {
    queue_equilibrium_run("fast", flows, rate)
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
