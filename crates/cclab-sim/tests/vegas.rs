//! Vegas keeps between alpha and beta of each flow's packets in the bottleneck queue
//! and, once settled, drops nothing (Brakmo and Peterson 1995, section 3.2).

mod common;
use cclab_sim::RunOutput;
use common::{bottleneck_queue, queue_equilibrium_run};

fn run(flows: u32, rate: &str) -> RunOutput {
    queue_equilibrium_run("vegas", flows, rate)
}

#[test]
fn vegas_holds_between_alpha_and_beta_packets_per_flow_in_the_queue_and_drops_nothing() {
    let (alpha, beta) = (2.0, 4.0);
    for (n, rate) in [(1, "10Mbps"), (2, "20Mbps"), (4, "50Mbps")] {
        let out = run(n, rate);
        let (q, whole) = bottleneck_queue(&out, 20.0);
        let losses: Vec<f64> = out.flows.f64s("loss_rate").to_vec();
        let util = out.summary_value("bottleneck_utilization").unwrap();
        eprintln!(
            "{n} flow(s) on {rate}: mean queue after 20 s {q:.2} pkts (n·alpha = {}, n·beta = {}); \
             whole-run mean {whole:.2}; loss after warmup {losses:?}; utilization {util:.4}",
            n as f64 * alpha,
            n as f64 * beta
        );
        // Each flow sits anywhere in [alpha, beta]; allow half a packet per flow either
        // side for the rounding of a window that moves in whole packets.
        let (lo, hi) = (n as f64 * (alpha - 0.5), n as f64 * (beta + 0.5));
        assert!(q >= lo && q <= hi, "{n} flows: queue {q:.2} outside [{lo}, {hi}]");
        assert!(losses.iter().all(|&l| l == 0.0), "{n} flows: losses after warmup {losses:?}");
        assert!(util > 0.99, "{n} flows: utilization {util}");
    }
}
