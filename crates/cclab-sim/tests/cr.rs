//! Constant Rate: while the bottleneck has spare capacity, every flow's throughput grows
//! by k packets per second per second whatever its RTT (paper 001, section 3.1,
//! Table 2: t1 = R / (n k)), where Reno's growth falls with the square of the RTT.

mod common;
use cclab_sim::RunOutput;
use common::{dumbbell, run_toml};

const RTTS_MS: [u64; 3] = [40, 80, 120];

/// Three flows (40, 80, 120 ms) start together in congestion avoidance at 2 packets on a
/// 1 Gbps bottleneck, which stays under 20 % load for the 8 s: Model I of paper 001
/// (spare capacity, RTT = RTT_min). On a 200 Mbps bottleneck the load reaches 65 % by
/// 6 s and the queueing of the window increments' bursts lowers the 40 and 80 ms
/// flows' growth to about 590 packets/s².
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

/// Per flow: the growth of its throughput over [1 s, 6 s], packets per second per second.
fn rate_growth(out: &RunOutput) -> Vec<f64> {
    let s = &out.flow_series;
    let (t, f, g) = (s.f64s("time_s"), s.u64s("flow"), s.f64s("goodput_bps"));
    (0..RTTS_MS.len() as u64)
        .map(|flow| {
            let rows: Vec<usize> = (0..t.len()).filter(|&i| f[i] == flow && t[i] >= 1.0 && t[i] <= 6.0).collect();
            let x: Vec<f64> = rows.iter().map(|&i| t[i]).collect();
            let y: Vec<f64> = rows.iter().map(|&i| g[i] / (1500.0 * 8.0)).collect();
            slope(&x, &y)
        })
        .collect()
}

#[test]
fn cr_throughput_grows_at_the_same_rate_for_every_rtt() {
    let k = 1.0 / (0.040 * 0.040); // eq. (7), RTT_ref = 40 ms: 625 packets/s²
    let cr = rate_growth(&run("cr"));
    let reno = rate_growth(&run("newreno"));
    eprintln!("throughput growth, packets/s² for RTT {RTTS_MS:?} ms: CR {cr:.0?} (k = {k}), NewReno {reno:.0?}");
    for (g, rtt) in cr.iter().zip(RTTS_MS) {
        assert!((g - k).abs() <= 0.05 * k, "CR at {rtt} ms: {g:.0} packets/s², k = {k}");
    }
    // The property is not trivial: Reno's growth, 1/RTT², is 9 times smaller at 120 ms.
    assert!(reno[0] > 5.0 * reno[2], "NewReno {reno:?}");
}
