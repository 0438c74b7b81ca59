//! XCP (Katabi, Handley, Rohrs 2002): efficiency with a near-empty queue.

mod common;
use common::run_toml;

#[test]
fn five_xcp_flows_fill_500_mbps_with_a_near_empty_queue_and_no_drops() {
    let out = run_toml(
        r#"
duration = "30s"
warmup = "10s"
sample_interval = "100ms"
[topology]
bottleneck = { rate = "500Mbps", delay = "38ms", buffer = "1bdp", queue = "xcp" }
[[flows]]
cc = "xcp"
count = 5
rtt = "80ms"
start_spread = "2s"
"#,
        1,
    );
    let util = out.summary_value("bottleneck_utilization").unwrap();
    let drops = out.summary_value("bottleneck_drops").unwrap();
    let qs = &out.queue_series;
    let (t, link, len) = (qs.f64s("time_s"), qs.u64s("link"), qs.u64s("len_pkts"));
    let settled: Vec<f64> = (0..t.len()).filter(|&i| link[i] == 0 && t[i] >= 10.0).map(|i| len[i] as f64).collect();
    let mean_q = settled.iter().sum::<f64>() / settled.len() as f64;
    let bdp = 500e6 * 0.08 / 8.0 / 1500.0;
    let jain = out.summary_value("jain_index").unwrap();
    eprintln!(
        "XCP: utilization {util:.4}, drops {drops}, mean queue {mean_q:.1} packets (BDP {bdp:.0}), Jain {jain:.4}"
    );
    assert!(util > 0.95, "utilization {util}");
    assert_eq!(drops, 0.0);
    assert!(mean_q < 0.05 * bdp, "mean queue {mean_q}");
    assert!(jain > 0.95, "Jain {jain}");
}
