//! UDP sources, web traffic and two-way traffic.

mod common;
use common::run_toml;

#[test]
fn cbr_sends_at_its_rate_and_tcp_takes_the_rest() {
    let out = run_toml(
        r#"
duration = "20s"
warmup = "5s"
[topology]
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "1bdp" }
[[flows]]
cc = "newreno"
recovery = "sack"
rtt = "24ms"
[[udp]]
rate = "10Mbps"
packet_size = "1000B"
"#,
        1,
    );
    // 10 Mbit/s of 1000-byte packets, one every 0.8 ms from t = 0 to t = 20 s inclusive.
    assert_eq!(out.udp.u64s("sent_pkts")[0], 25_001);
    let thr = out.udp.f64s("throughput_bps")[0];
    let tcp = out.flows.f64s("goodput_bps")[0];
    eprintln!("udp {:.2} Mbit/s, tcp {:.2} Mbit/s", thr / 1e6, tcp / 1e6);
    assert!((thr - 10e6).abs() < 0.2e6, "{thr}");
    assert!(tcp > 80e6 && tcp < 90.5e6, "{tcp}");
}

#[test]
fn on_off_source_averages_rate_times_duty_cycle() {
    let out = run_toml(
        r#"
duration = "400s"
[topology]
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "1bdp" }
[[udp]]
rate = "20Mbps"
packet_size = "1000B"
on_time = "300ms"
off_time = "700ms"
"#,
        2,
    );
    // About 400 cycles of 1 s on average; the on fraction 0.3 has a standard error near
    // sqrt(0.3^2 + 0.7^2 ... ) / sqrt(400) < 0.04, so the mean rate is 6 +- 0.8 Mbit/s at 5 sigma.
    let sent = out.udp.u64s("sent_pkts")[0];
    let mean_rate = sent as f64 * 8000.0 / 400.0;
    eprintln!("on/off mean rate {:.2} Mbit/s (expected 6)", mean_rate / 1e6);
    assert!((mean_rate - 6e6).abs() < 0.8e6, "{mean_rate}");
    // An uncongested link loses nothing: all but the packets in flight arrive.
    let (rx, drops) = (out.udp.u64s("received_pkts")[0], out.udp.u64s("drops")[0]);
    assert_eq!(drops, 0);
    // 12 ms one way at one packet per 0.4 ms: at most 30 in flight.
    assert!(sent - rx <= 30, "{sent} sent, {rx} received");
}

#[test]
fn web_objects_follow_the_configured_distributions_and_all_complete() {
    let out = run_toml(
        r#"
duration = "300s"
[topology]
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "1bdp" }
[web]
sessions = 40
pages_per_session = 1000
session_spread = "10s"
inter_page = { dist = "exponential", mean = 4.0 }
objects_per_page = { dist = "constant", value = 5 }
inter_object = { dist = "exponential", mean = 0.01 }
object_size = { dist = "pareto", mean = 20000, shape = 2.5 }
servers = 10
clients = 50
client_rate = ["100Mbps", "155Mbps"]
client_delay = ["20ms", "50ms"]
"#,
        3,
    );
    let w = &out.web;
    let n = w.rows();
    let sizes = w.u64s("size_bytes");
    let mean = sizes.iter().sum::<u64>() as f64 / n as f64;
    // Pareto, shape 2.5: sd = mean / sqrt(shape (shape - 2)) = 20000 * 0.894.
    let se = 20000.0 * 0.894 / (n as f64).sqrt();
    eprintln!("{n} objects, mean size {mean:.0} B (20000 +- {se:.0})");
    assert!((mean - 20000.0).abs() < 4.0 * se, "mean size {mean}");
    // Sessions start in [0, 10] s and send a page every 4 s on average: about 40 x 290/4 pages.
    let pages = n as f64 / 5.0;
    let expected = 40.0 * (1.0 + 285.0 / 4.0);
    assert!((pages - expected).abs() < 4.0 * expected.sqrt(), "{pages} pages, expected {expected}");
    // Nearly every object completes; response times exceed the path's round trip.
    let resp = w.f64s("response_s");
    let done: Vec<f64> = resp.iter().copied().filter(|r| r.is_finite()).collect();
    assert!(done.len() as f64 > 0.99 * n as f64, "{} of {n} completed", done.len());
    assert!(done.iter().all(|&r| r > 0.02), "a response faster than the path");
}

#[test]
fn two_way_traffic_loads_both_directions() {
    let out = run_toml(
        r#"
duration = "30s"
warmup = "10s"
[topology]
bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "0.5bdp" }
[[flows]]
name = "forward"
cc = "newreno"
recovery = "sack"
rtt = "40ms"
[[flows]]
name = "backward"
cc = "newreno"
recovery = "sack"
rtt = "40ms"
reverse = true
"#,
        4,
    );
    let g = out.flows.f64s("goodput_bps");
    eprintln!("forward {:.2}, backward {:.2} Mbit/s", g[0] / 1e6, g[1] / 1e6);
    // ACKs queue behind the other direction's data (ACK compression, Zhang, Shenker and
    // Clark 1991), so neither direction fills its link, but both carry data.
    assert!(g[0] > 8e6 && g[1] > 8e6, "{g:?}");
    // The reverse bottleneck now queues (and drops) data, with a buffer of its own.
    let drops = out.queues.u64s("drops");
    assert!(drops[0] > 0 && drops[1] > 0, "{drops:?}");
}

/// A 20 Mbit/s CBR source into a 10 Mbit/s bottleneck for the first 2 s fills the
/// 100-packet buffer, which drains by 2.1 s: the queue's mean over [warmup = 5 s, 10 s] is
/// zero, while over the whole run (no warmup) it is about 100 packets x 2/10 s.
#[test]
fn queue_means_cover_the_measurement_window_only() {
    let text = |warmup: &str| {
        format!(
            r#"
duration = "10s"
warmup = "{warmup}"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = "100pkts" }}
[[udp]]
rate = "20Mbps"
packet_size = "1000B"
stop = "2s"
"#
        )
    };
    let whole = run_toml(&text("0s"), 1);
    let late = run_toml(&text("5s"), 1);
    let (mw, ml) = (whole.queues.f64s("mean_len_pkts")[0], late.queues.f64s("mean_len_pkts")[0]);
    eprintln!("mean queue: whole run {mw:.2} pkts, from 5 s {ml:.2} pkts");
    assert!((mw - 20.0).abs() < 2.0, "{mw}");
    assert_eq!(ml, 0.0);
    assert_eq!(late.summary_value("bottleneck_mean_queue_pkts"), Some(0.0));
    assert_eq!(late.queues.f64s("mean_delay_s")[0], 0.0);
    // The counts are the whole run's in both.
    assert_eq!(whole.queues.u64s("drops")[0], late.queues.u64s("drops")[0]);
}
