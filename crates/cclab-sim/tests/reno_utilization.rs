//! Single NewReno flow on an under-buffered bottleneck: utilization against
//! the Reno column of paper 003, Table 1 (100 Mbps, 80 ms, 1000-byte packets).

mod common;
use common::{dumbbell, run_toml};

fn utilization(k: &str) -> f64 {
    let flows = r#"
[[flows]]
cc = "newreno"
rtt = "80ms"
packet_size = "1000B"
"#;
    // 300 s: about 1.5 to 4 sawtooth cycles after the first (which carries slow start).
    let out = run_toml(&dumbbell("100Mbps", "38ms", &format!("{k}bdp"), "400s", "100s", flows), 1);
    out.summary_value("bottleneck_utilization").unwrap()
}

#[test]
fn newreno_utilization_follows_paper_003_table_1() {
    // (k, paper's Reno utilization)
    for (k, want) in [("0.125", 0.83), ("0.25", 0.89), ("0.5", 0.96), ("0.75", 0.99)] {
        let u = utilization(k);
        eprintln!("k = {k}: utilization {u:.4} (paper 003: {want})");
        assert!((u - want).abs() <= 0.02, "k = {k}: utilization {u:.4}, paper {want}");
    }
}

#[test]
fn a_buffer_of_one_bdp_or_more_fills_the_link() {
    for k in ["1", "1.5"] {
        let u = utilization(k);
        assert!(u > 0.99, "k = {k}: utilization {u:.4}");
    }
}
