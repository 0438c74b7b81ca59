//! BBRv3 (cc/bbr3/) on the paths the draft (draft-ietf-ccwg-bbr) describes: where BBR v1,
//! which ignores loss, retransmits heavily in a shallow buffer, v3's loss bounds keep its
//! retransmissions far lower at high utilization; one flow cycles through ProbeBW_DOWN,
//! ProbeBW_CRUISE, ProbeBW_REFILL and ProbeBW_UP; it enters ProbeRTT every 5 s
//! (ProbeRTTInterval) with the window at half the BDP; two flows converge to a fair share.

use cclab_sim::results::{Column, RunOutput};
use common::run_toml;

mod common;

/// One flow per entry of `flows` (cc, start) on a dumbbell at `rate`, 40 ms RTT, `buffer`.
fn dumbbell(rate: &str, buffer: &str, duration: &str, warmup: &str, sample: &str, flows: &[(&str, &str)]) -> String {
    let mut s = format!(
        "duration = \"{duration}\"\nwarmup = \"{warmup}\"\nsample_interval = \"{sample}\"\n[topology]\n\
         bottleneck = {{ rate = \"{rate}\", delay = \"10ms\", buffer = \"{buffer}\" }}\n"
    );
    for (cc, start) in flows {
        s += &format!("[[flows]]\ncc = \"{cc}\"\nrecovery = \"sack\"\nrtt = \"40ms\"\nstart = \"{start}\"\n");
    }
    s
}

fn f64s<'a>(out: &'a RunOutput, table: &str, col: &str) -> &'a [f64] {
    let t = if table == "cc" { &out.cc_series } else { &out.flow_series };
    match t.get(col) {
        Some(Column::F64(v)) => v,
        _ => panic!("no f64 column {table}.{col}"),
    }
}

fn states(out: &RunOutput) -> Vec<String> {
    match out.cc_series.get("state") {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no state column"),
    }
}

fn retransmits(out: &RunOutput) -> u64 {
    match out.flows.get("retransmits") {
        Some(Column::U64(v)) => v.iter().sum(),
        _ => panic!("flows.retransmits"),
    }
}

/// The draft's motivation for v3: v1 does not react to loss, so in a buffer smaller than its
/// probing needs it keeps losing. Four flows on 100 Mbit/s, 40 ms, a DropTail buffer of half a
/// BDP (167 packets), 30 s: both fill the link, v3 with a small fraction of v1's retransmissions.
#[test]
fn in_a_shallow_buffer_bbr3_retransmits_far_less_than_bbr_v1_at_high_utilization() {
    let run = |cc| run_toml(&dumbbell("100Mbps", "0.5bdp", "30s", "5s", "1s", &[(cc, "0s"); 4]), 1);
    let (v1, v3) = (run("bbr"), run("bbr3"));
    for out in [&v1, &v3] {
        let util = out.summary_value("bottleneck_utilization").unwrap();
        assert!(util > 0.95, "utilization {util}");
    }
    let (r1, r3) = (retransmits(&v1), retransmits(&v3));
    assert!(r3 * 5 < r1, "retransmissions: bbr3 {r3}, bbr {r1}");
}

#[test]
fn one_bbr3_flow_cycles_through_probe_bw_down_cruise_refill_and_up_with_their_pacing_gains() {
    let out = run_toml(&dumbbell("100Mbps", "1bdp", "20s", "0s", "5ms", &[("bbr3", "0s")]), 1);
    let (t, g, st) = (f64s(&out, "cc", "time_s"), f64s(&out, "cc", "pacing_gain"), states(&out));
    let gain_of = |s: &str| match s {
        "ProbeBW_UP" => Some(1.25),
        "ProbeBW_DOWN" => Some(232.0 / 256.0),
        "ProbeBW_CRUISE" | "ProbeBW_REFILL" => Some(1.0),
        _ => None,
    };
    let mut seq: Vec<&str> = Vec::new();
    for i in 0..t.len() {
        if let Some(want) = gain_of(&st[i]) {
            assert_eq!(g[i], want, "{} at {} s", st[i], t[i]);
        }
        if seq.last() != Some(&st[i].as_str()) {
            seq.push(&st[i]);
        }
    }
    // Every change of phase is one the cycle allows (ProbeRTT may come from any and goes back
    // to CRUISE; DOWN may refill at once after a probe stopped at inflight_hi).
    let allowed = [
        ("Startup", "Drain"),
        ("Drain", "ProbeBW_DOWN"),
        ("Drain", "ProbeBW_CRUISE"), // DOWN within the same ACK: the queue was already drained
        ("ProbeBW_DOWN", "ProbeBW_CRUISE"),
        ("ProbeBW_DOWN", "ProbeBW_REFILL"),
        ("ProbeBW_CRUISE", "ProbeBW_REFILL"),
        ("ProbeBW_REFILL", "ProbeBW_UP"),
        ("ProbeBW_UP", "ProbeBW_DOWN"),
        ("ProbeRTT", "ProbeBW_CRUISE"),
    ];
    for w in seq.windows(2) {
        let ok = w[1] == "ProbeRTT" || allowed.contains(&(w[0], w[1]));
        assert!(ok, "{} -> {}: {seq:?}", w[0], w[1]);
    }
    let cycles = seq.windows(4).filter(|w| w == &["ProbeBW_CRUISE", "ProbeBW_REFILL", "ProbeBW_UP", "ProbeBW_DOWN"]);
    // A probe every 2-3 s (the wall-clock bound; 63 rounds of 40 ms is 2.5 s).
    assert!(cycles.count() >= 4, "{seq:?}");
    let util = out.summary_value("bottleneck_utilization").unwrap();
    assert!(util > 0.95, "utilization {util}");
}

#[test]
fn bbr3_enters_probe_rtt_every_5_s_with_the_window_at_half_the_bdp() {
    let out = run_toml(&dumbbell("100Mbps", "1bdp", "22s", "0s", "1ms", &[("bbr3", "0s")]), 1);
    let (t, st) = (f64s(&out, "cc", "time_s"), states(&out));
    let mut spans = Vec::new();
    let mut start = None;
    for i in 0..t.len() {
        match (st[i] == "ProbeRTT", start) {
            (true, None) => start = Some(t[i]),
            (false, Some(s)) => {
                spans.push((s, t[i]));
                start = None;
            }
            _ => {}
        }
    }
    assert_eq!(spans.len(), 4, "ProbeRTT at about 5, 10, 15 and 20 s: {spans:?}");
    assert!((spans[0].0 - 5.04).abs() < 0.1, "5 s after the first RTT sample: {spans:?}");
    for w in spans.windows(2) {
        let gap = w[1].0 - w[0].1;
        assert!((gap - 5.0).abs() < 0.05, "from the end of one to the next: {gap} s ({spans:?})");
    }
    // The window: half the BDP (333 / 2, rounded up: 167), not v1's 4 packets.
    let (ft, cwnd) = (f64s(&out, "flow", "time_s"), f64s(&out, "flow", "cwnd"));
    for &(s, e) in &spans {
        assert!((0.2..0.3).contains(&(e - s)), "ProbeRTT lasted {} s", e - s);
        let inside: Vec<f64> =
            (0..ft.len()).filter(|&i| ft[i] > s + 0.05 && ft[i] < e - 0.0005).map(|i| cwnd[i]).collect();
        assert!(inside.iter().all(|&c| (150.0..=168.0).contains(&c)), "cwnd in ProbeRTT: {inside:?}");
    }
}

#[test]
fn a_second_bbr3_flow_converges_to_a_fair_share() {
    // The second flow starts 5 s after the first has the link; shares over [20 s, 40 s].
    let text = dumbbell("100Mbps", "1bdp", "40s", "20s", "1s", &[("bbr3", "0s"), ("bbr3", "5s")]);
    let out = run_toml(&text, 1);
    let jain = out.summary_value("jain_index").unwrap();
    assert!(jain > 0.95, "Jain index {jain}");
    let util = out.summary_value("bottleneck_utilization").unwrap();
    assert!(util > 0.95, "utilization {util}");
}

/// With `ecn = 1`, Google's v3 response (the draft leaves it open): on a path within its 5 ms
/// RTT gate and a queue that marks CE at K = 30 packets, two flows cut `inflight_lo` by
/// alpha/3 each round with marks and keep the queue near K at full utilization; without ECN
/// they fill the deep buffer far beyond it.
#[test]
fn with_ecn_two_bbr3_flows_hold_the_queue_near_the_marking_threshold() {
    let run = |ecn: u32| {
        let text = format!(
            "duration = \"10s\"\nwarmup = \"3s\"\n[topology]\n\
             bottleneck = {{ rate = \"1Gbps\", delay = \"1ms\", buffer = \"1000pkts\", queue_params = {{ ecn_threshold = 30 }} }}\n\
             [[flows]]\ncc = \"bbr3\"\nrecovery = \"sack\"\nrtt = \"4ms\"\ncount = 2\ncc_params = {{ ecn = {ecn} }}\n"
        );
        let out = run_toml(&text, 1);
        let util = out.summary_value("bottleneck_utilization").unwrap();
        let queue = out.summary_value("bottleneck_mean_queue_pkts").unwrap();
        assert!(util > 0.95, "ecn {ecn}: utilization {util}");
        queue
    };
    let (with, without) = (run(1), run(0));
    assert!(with < 60.0, "mean queue with ECN: {with} packets (K = 30)");
    assert!(without > 150.0, "mean queue without ECN: {without} packets");
}
