//! Constant Increase: the window grows by k' packets per second whatever the RTT, that
//! is by k' · RTT packets per RTT, in proportion to the RTT (paper 001, section 2.4,
//! eq. (5)); Reno's grows by one packet per RTT, 1/RTT per second.

mod common;
use cclab_sim::RunOutput;
use common::{dumbbell, run_toml};

const RTTS_MS: [u64; 3] = [40, 80, 120];

/// Three flows (40, 80, 120 ms) start together in congestion avoidance at 2 packets on a
/// 1 Gbps bottleneck that they leave mostly idle for the 8 s (Model I of paper 001).
fn run(cc: &str) -> RunOutput {
    let mut flows = String::new();
    for rtt in RTTS_MS {
        flows += &format!("[[flows]]\ncc = \"{cc}\"\nrtt = \"{rtt}ms\"\ninit_ssthresh = 2\n");
    }
    let text = dumbbell("1Gbps", "5ms", "2000pkts", "8s", "0s", &flows).replacen(
        "warmup",
        "sample_interval = \"100ms\"\nwarmup",
        1,
    );
    run_toml(&text, 1)
}

/// Least-squares slope of y against x.
fn slope(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

/// Per flow: the growth of its window over [1 s, 7 s], packets per second.
fn window_growth(out: &RunOutput) -> Vec<f64> {
    let s = &out.flow_series;
    let (t, f, w) = (s.f64s("time_s"), s.u64s("flow"), s.f64s("cwnd"));
    (0..RTTS_MS.len() as u64)
        .map(|flow| {
            let rows: Vec<usize> = (0..t.len()).filter(|&i| f[i] == flow && t[i] >= 1.0 && t[i] <= 7.0).collect();
            let x: Vec<f64> = rows.iter().map(|&i| t[i]).collect();
            let y: Vec<f64> = rows.iter().map(|&i| w[i]).collect();
            slope(&x, &y)
        })
        .collect()
}

#[test]
fn ci_grows_the_window_in_proportion_to_the_rtt() {
    let k = 1.0 / 0.040; // eq. (8) (eq. (14) without a queue), RTT_ref = 40 ms: 25 packets/s
    let ci = window_growth(&run("ci"));
    let reno = window_growth(&run("newreno"));
    let per_rtt: Vec<f64> = ci.iter().zip(RTTS_MS).map(|(g, r)| g * r as f64 / 1000.0).collect();
    eprintln!(
        "window growth, packets/s for RTT {RTTS_MS:?} ms: CI {ci:.2?} (k' = {k}), per RTT {per_rtt:.2?}; \
         NewReno {reno:.2?}"
    );
    for (g, rtt) in ci.iter().zip(RTTS_MS) {
        assert!((g - k).abs() <= 0.05 * k, "CI at {rtt} ms: {g:.2} packets/s, k' = {k}");
    }
    // Reno's per-second growth falls as 1/RTT: three times smaller at 120 ms.
    assert!(reno[0] > 2.5 * reno[2], "NewReno {reno:?}");
}
