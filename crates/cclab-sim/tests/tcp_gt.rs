//! TCP-GT (paper 000, section IV-B): five flows joining 20 s apart on 500 Mbps, 80 ms.

mod common;
use common::run_toml;

/// The paper's scenario: drop-tail buffer of one BDP, 1000-byte packets, 40-byte ACKs,
/// flows starting at 0, 20, 40, 60 and 80 s, run to 120 s.
fn section_4b() -> String {
    let mut s = String::from(
        r#"
duration = "120s"
sample_interval = "100ms"
[topology]
bottleneck = { rate = "500Mbps", delay = "38ms", buffer = "1bdp" }
"#,
    );
    for i in 0..5 {
        s += &format!(
            "[[flows]]\ncc = \"tcp-gt\"\nrtt = \"80ms\"\npacket_size = \"1000B\"\nack_size = \"40B\"\nstart = \"{}s\"\n",
            20 * i
        );
    }
    s
}

#[test]
fn five_tcp_gt_flows_joining_20_s_apart_fill_500_mbps_share_it_fairly_and_drop_nothing() {
    let out = run_toml(&section_4b(), 1);
    let drops = out.summary_value("bottleneck_drops").unwrap();

    // Utilization from the bottleneck's throughput samples once the first flow is up (15 s).
    let qs = &out.queue_series;
    let (qt, link, thr, len) = (qs.f64s("time_s"), qs.u64s("link"), qs.f64s("throughput_bps"), qs.u64s("len_pkts"));
    let up: Vec<usize> = (0..qt.len()).filter(|&i| link[i] == 0 && qt[i] > 15.0).collect();
    let util = up.iter().map(|&i| thr[i]).sum::<f64>() / up.len() as f64 / 500e6;
    let mean_q = up.iter().map(|&i| len[i] as f64).sum::<f64>() / up.len() as f64;
    let max_q = up.iter().map(|&i| len[i]).max().unwrap();

    // Jain's index of the goodputs over the last 20 s, from delivered bytes at 99 s and 119 s.
    let fs = &out.flow_series;
    let (t, flow, del) = (fs.f64s("time_s"), fs.u64s("flow"), fs.u64s("delivered_bytes"));
    let at = |f: u64, time: f64| {
        (0..t.len()).find(|&i| flow[i] == f && (t[i] - time).abs() < 1e-6).map(|i| del[i] as f64).unwrap()
    };
    let x: Vec<f64> = (0..5).map(|f| (at(f, 119.0) - at(f, 99.0)) * 8.0 / 20.0).collect();
    let jain = x.iter().sum::<f64>().powi(2) / (5.0 * x.iter().map(|v| v * v).sum::<f64>());

    let bdp = 500e6 * 0.080 / 8.0 / 1000.0; // packets
    let mbps: Vec<String> = x.iter().map(|v| format!("{:.1}", v / 1e6)).collect();
    eprintln!(
        "TCP-GT: drops {drops}, utilization after 15 s {util:.4}, queue mean {mean_q:.1} max {max_q} \
         packets (BDP {bdp:.0}), goodput 99-119 s [{}] Mbps, Jain {jain:.4}",
        mbps.join(", ")
    );
    assert_eq!(drops, 0.0);
    assert!(util > 0.9, "utilization {util}");
    assert!(jain > 0.95, "Jain {jain}");
    // "No overshoot": the queue stays a small fraction of the one-BDP buffer.
    assert!((max_q as f64) < 0.2 * bdp, "max queue {max_q}");
}
