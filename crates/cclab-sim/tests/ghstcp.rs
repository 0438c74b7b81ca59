//! gHSTCP against Reno (paper 004, Case 5 against Case 2): five Reno flows on
//! slow access links and five HighSpeed (Case 2) or gHSTCP (Case 5) flows on
//! fast ones share a TailDrop bottleneck; nobody uses SACK.
//!
//! Scaled from the paper's 2.5 Gbit/s, 100 Mbit/s and 1 Gbit/s access links
//! and 10,000-packet buffer by 1/10 (250 Mbit/s, 10 and 100 Mbit/s, 1000
//! packets), at d = 25 ms, 60 s measured over the second half as the paper
//! does (the paper's run length is not given), one seed, and without the
//! paper's unspecified UDP background traffic.
//!
//! Fairness is the paper's: Jain's index over `x_i = M_i / C_i`, `C_i` the
//! max-min fair share. The Reno flows are held to their 10 Mbit/s access
//! links, so `C_i` is 10 Mbit/s for them and (250 - 50)/5 = 40 Mbit/s for the
//! others.

mod common;
use common::run_toml;

const RENO_SHARE: f64 = 10e6;
const FAST_SHARE: f64 = 40e6;

/// Jain's index of `x`: `(sum x)^2 / (n sum x^2)`.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let ss: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * ss)
}

/// (Reno goodputs, fast-group goodputs), bit/s.
fn run(cc: &str) -> (Vec<f64>, Vec<f64>) {
    let text = format!(
        r#"
duration = "60s"
warmup = "30s"
[topology]
bottleneck = {{ rate = "250Mbps", delay = "25ms", buffer = "1000pkts" }}
[[flows]]
cc = "reno"
count = 5
access_rate = "10Mbps"
start_spread = "1s"
[[flows]]
cc = "{cc}"
recovery = "reno"
count = 5
access_rate = "100Mbps"
start_spread = "1s"
"#
    );
    let out = run_toml(&text, 1);
    let g = out.flows.f64s("goodput_bps");
    (g[..5].to_vec(), g[5..].to_vec())
}

/// (fairness, Reno Mbit/s per flow, the other group's Mbit/s per flow).
fn report(cc: &str) -> (f64, f64, f64) {
    let (reno, fast) = run(cc);
    let x: Vec<f64> = reno.iter().map(|m| m / RENO_SHARE).chain(fast.iter().map(|m| m / FAST_SHARE)).collect();
    let f = jain(&x);
    let (r, h) = (reno.iter().sum::<f64>() / 5e6, fast.iter().sum::<f64>() / 5e6);
    let plain = jain(&reno.iter().chain(&fast).copied().collect::<Vec<_>>());
    eprintln!("{cc}: Reno {r:.2} Mbit/s per flow, {cc} {h:.2} Mbit/s per flow; fairness (max-min) {f:.3}, Jain on goodput {plain:.3}");
    (f, r, h)
}

/// The paper (Table 2 against Table 1, d = 25 ms) reports fairness 0.887 -> 0.997 and the
/// Reno flows' throughput doubling from Case 2 to Case 5. This shortened run does not
/// reproduce that: HighSpeed without SACK already leaves the Reno flows 85 % of their
/// access links here (fairness 0.985), and gHSTCP, which loses fewer packets at once, takes
/// more than its max-min share (fairness 0.916). The test locks what this run shows, the
/// efficiency gain, and prints both indices; the fairness claim is an open discrepancy
/// (docs/algorithms/ghstcp.md).
#[test]
fn against_five_reno_flows_ghstcp_gets_more_goodput_than_highspeed_without_starving_reno() {
    let (f_hs, reno_hs, fast_hs) = report("highspeed");
    let (f_g, reno_g, fast_g) = report("ghstcp");
    assert!(fast_g > fast_hs, "ghstcp {fast_g} vs highspeed {fast_hs} Mbit/s per flow");
    assert!(reno_g > 0.9 * reno_hs, "Reno with ghstcp {reno_g} vs with highspeed {reno_hs}");
    assert!(f_g > 0.85 && f_hs > 0.85, "fairness ghstcp {f_g}, highspeed {f_hs}");
}
