//! HRF-TCP (paper 001, section 5.2): a 40 ms and a 120 ms flow share a 100 Mbit/s
//! bottleneck far more evenly than two NewReno flows do.

mod common;
use common::run_toml;

/// Goodputs (Mbit/s) of the 40 ms and the 120 ms flow, both running `cc`.
fn pair(cc: &str, seed: u64) -> (f64, f64) {
    let text = format!(
        r#"
duration = "80s"
warmup = "20s"
[topology]
bottleneck = {{ rate = "100Mbps", delay = "1ms", buffer = "333pkts" }}
[[flows]]
cc = "{cc}"
rtt = "40ms"
overhead = "0.24ms"
[[flows]]
cc = "{cc}"
rtt = "120ms"
overhead = "0.24ms"
"#
    );
    let out = run_toml(&text, seed);
    let g = out.flows.f64s("goodput_bps");
    (g[0] / 1e6, g[1] / 1e6)
}

const SEEDS: [u64; 3] = [1, 2, 3];

/// Mean over the seeds of |Thr1 − Thr2|, Mbit/s, and the pairs themselves.
fn mean_difference(cc: &str) -> (f64, Vec<(f64, f64)>) {
    let pairs: Vec<(f64, f64)> = SEEDS.iter().map(|&s| pair(cc, s)).collect();
    let d = pairs.iter().map(|(a, b)| (a - b).abs()).sum::<f64>() / pairs.len() as f64;
    (d, pairs)
}

/// Section 5.2.2's setting at one point: 40 ms against 120 ms, a 333-packet buffer
/// (one BDP of the 40 ms flow). Both flows send with a random overhead of up to 0.24 ms
/// (two packet times) so that drop-tail phase effects do not decide the split.
#[test]
fn hrf_shares_between_a_40_ms_and_a_120_ms_flow_far_more_evenly_than_newreno() {
    let (hrf, hrf_pairs) = mean_difference("hrf");
    let (reno, reno_pairs) = mean_difference("newreno");
    eprintln!("goodput (40 ms, 120 ms) Mbit/s per seed {SEEDS:?}:");
    eprintln!("  hrf     {hrf_pairs:.1?}: mean |Thr1 - Thr2| = {hrf:.1}");
    eprintln!("  newreno {reno_pairs:.1?}: mean |Thr1 - Thr2| = {reno:.1}");
    assert!(hrf < 0.4 * reno, "hrf {hrf:.1} Mbit/s against NewReno {reno:.1}");
    // Not by starving the link: together the HRF flows still carry most of it.
    for (a, b) in &hrf_pairs {
        assert!(a + b > 85.0, "hrf total {:.1} Mbit/s", a + b);
    }
}
