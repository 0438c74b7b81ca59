//! HighSpeed TCP's response function (RFC 3649 section 5): with one loss
//! every 1/p packets, the average window is w = 0.12 / p^0.835.
//!
//! The algorithm is driven directly: 1/p ACKs (one per packet), then a loss
//! repaired as the engine repairs it (cwnd = ssthresh). The average window is
//! the time average, packets over RTTs, where a packet sent at window w takes
//! 1/w of an RTT.
//!
//! And the purpose the RFC states (section 1): on a 1 Gbit/s, 100 ms path with
//! a small buffer, where Reno needs thousands of RTTs to open its window after
//! a loss, HighSpeed fills the link.

mod common;
mod drive;
use cclab_sim::cc::highspeed::response_window;
use common::{dumbbell, run_toml};
use drive::Driver;

/// Mean window over `cycles` loss cycles after `warm` cycles, one loss per `1/p` packets.
fn mean_window(params: &[(&str, f64)], p: f64, warm: u32, cycles: u32) -> f64 {
    let mut d = Driver::new("highspeed", params, response_window(p), 100);
    let per_loss = (1.0 / p).round() as u64;
    let (mut pkts, mut rtts) = (0.0, 0.0);
    for c in 0..warm + cycles {
        for _ in 0..per_loss {
            if c >= warm {
                pkts += 1.0;
                rtts += 1.0 / d.cwnd;
            }
            d.ack(1);
        }
        d.loss();
    }
    pkts / rtts
}

#[test]
fn the_average_window_follows_the_response_function() {
    // ns-2's formulas (table = 0): within 15 % from p = 1e-3 to 1e-5.
    for p in [1e-3, 1e-4, 1e-5] {
        let want = response_window(p);
        let got = mean_window(&[("table", 0.0)], p, 10, 20);
        eprintln!(
            "formulas p = {p:e}: mean window {got:.1}, 0.12/p^0.835 = {want:.1} ({:+.1} %)",
            100.0 * (got / want - 1.0)
        );
        assert!((got / want - 1.0).abs() < 0.15, "p = {p}: {got} vs {want}");
    }
    // The table (default) at p = 1e-5: within 15 % too.
    let want = response_window(1e-5);
    let got = mean_window(&[], 1e-5, 10, 20);
    eprintln!("table p = 1e-5: mean window {got:.1}, 0.12/p^0.835 = {want:.1} ({:+.1} %)", 100.0 * (got / want - 1.0));
    assert!((got / want - 1.0).abs() < 0.15, "{got} vs {want}");
}

#[test]
fn at_p_1e_3_the_table_runs_the_first_rows_aimd_of_2_and_0_44() {
    // The response there is 38.4 packets, right at W_low; the table's row for (38, 118]
    // gives every window above 38 a = 2, b = 0.44, and a deterministic AIMD(a, b) averages
    // sqrt(a (2 - b) / (2 b p)) = sqrt(2 * 1.56 / (0.88e-3)) = 59.5 packets.
    let got = mean_window(&[], 1e-3, 10, 40);
    let want = f64::sqrt(2.0 * 1.56 / (2.0 * 0.44 * 1e-3));
    eprintln!(
        "table p = 1e-3: mean window {got:.1}; AIMD(2, 0.44) {want:.1}; response function {:.1}",
        response_window(1e-3)
    );
    assert!((got / want - 1.0).abs() < 0.05, "{got} vs {want}");
}

#[test]
fn on_a_1_gbps_100_ms_path_with_a_tenth_bdp_buffer_highspeed_fills_the_link_and_newreno_does_not() {
    // BDP = 1 Gbit/s x 100 ms = 8333 packets of 1500 B; buffer 833. One flow, SACK recovery,
    // 60 s, measured over [20 s, 60 s] after slow start's losses.
    let run = |cc: &str| {
        let flows = format!("[[flows]]\ncc = \"{cc}\"\nrecovery = \"sack\"\nrtt = \"100ms\"\n");
        let out = run_toml(&dumbbell("1Gbps", "48ms", "0.1bdp", "60s", "20s", &flows), 1);
        (out.summary_value("bottleneck_utilization").unwrap(), out.flows.f64s("cwnd_final")[0])
    };
    let (hs, hs_w) = run("highspeed");
    let (nr, nr_w) = run("newreno");
    eprintln!("utilization: highspeed {hs:.3} (final cwnd {hs_w:.0}), newreno {nr:.3} (final cwnd {nr_w:.0})");
    assert!(hs > 0.9, "{hs}");
    assert!(hs > 2.0 * nr, "highspeed {hs}, newreno {nr}");
}
