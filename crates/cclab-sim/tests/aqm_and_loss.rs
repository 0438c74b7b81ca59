//! Adaptive RED keeps the average queue in its target range (benchmark B4's
//! setting), and random link loss gives NewReno the throughput of the Mathis
//! formula.

mod common;
use common::run_toml;

/// B4's setting: 10 NewReno, 1 Gbit/s, 50 ms, ARED with its automatic settings for
/// C = 83333 packets/s of 1500 B: min_th = 208.3, max_th = 625, target [375, 458.3],
/// bottom = min(0.01, 80000/C_bps) = 8e-5.
///
/// The flows need a drop rate near 1.5/W^2 = 7e-6 (W = 460 packets): at max_p = bottom
/// that is reached with the average at min_th + 7e-6/8e-5 (max_th - min_th) = 245,
/// below the target range. ARED therefore drives max_p to its floor and holds the
/// average between min_th and the target, the lower-bound problem paper 004 (section
/// 4.2) points out; the link stays full.
#[test]
fn ared_drives_max_p_to_its_floor_and_holds_the_average_between_min_th_and_target() {
    let out = run_toml(
        r#"
duration = "60s"
warmup = "30s"
sample_interval = "100ms"
[topology]
bottleneck = { rate = "1Gbps", delay = "23ms", buffer = "1bdp", queue = "ared" }
[[flows]]
cc = "newreno"
recovery = "sack"
count = 10
rtt = "50ms"
start_spread = "1s"
"#,
        1,
    );
    let qs = &out.queue_series;
    let (t, link, avg, maxp) = (qs.f64s("time_s"), qs.u64s("link"), qs.f64s("avg_pkts"), qs.f64s("max_p"));
    let settled: Vec<usize> = (0..t.len()).filter(|&i| link[i] == 0 && t[i] >= 30.0).collect();
    let mean = settled.iter().map(|&i| avg[i]).sum::<f64>() / settled.len() as f64;
    let last_p = maxp[*settled.last().unwrap()];
    eprintln!("ARED: mean average queue {mean:.1} packets (min_th 208.3, target 375-458), final max_p {last_p:.2e}");
    assert!((last_p - 8e-5).abs() < 1e-12, "max_p {last_p}");
    assert!((208.3..375.0).contains(&mean), "mean average queue {mean}");
    let util = out.summary_value("bottleneck_utilization").unwrap();
    assert!(util > 0.95, "utilization {util}");
    assert!(out.queues.u64s("drops_early")[0] > 0);
}

fn mathis(p: f64, seed: u64) -> (f64, f64) {
    // Loss only: a fast link with a large buffer never congests at these rates.
    let out = run_toml(
        &format!(
            r#"
duration = "600s"
warmup = "50s"
[topology]
bottleneck = {{ rate = "1Gbps", delay = "23ms", buffer = "1bdp", loss = {p} }}
[[flows]]
cc = "newreno"
recovery = "sack"
rtt = "50ms"
"#
        ),
        seed,
    );
    let measured = out.flows.f64s("goodput_bps")[0];
    let rtt = out.flows.f64s("rtt_mean_s")[0];
    // B = sqrt(3/2) * MSS / (RTT sqrt(p))  (Mathis et al. 1997, per-packet ACKs)
    let model = (1.5f64).sqrt() * 1500.0 * 8.0 / (rtt * p.sqrt());
    (measured, model)
}

#[test]
fn newreno_under_random_loss_follows_the_mathis_formula() {
    for p in [1e-4, 1e-3, 1e-2] {
        let (m, model) = mathis(p, 7);
        eprintln!("p = {p}: {:.2} Mbit/s, Mathis {:.2} Mbit/s, ratio {:.3}", m / 1e6, model / 1e6, m / model);
        assert!((m / model - 1.0).abs() < 0.15, "p = {p}: measured {m}, model {model}");
    }
}

#[test]
fn link_loss_drops_the_configured_fraction() {
    let out = run_toml(
        r#"
duration = "20s"
[topology]
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "1bdp", loss = 0.01 }
[[flows]]
cc = "newreno"
recovery = "sack"
rtt = "24ms"
"#,
        3,
    );
    let arrivals = out.queues.u64s("arrivals")[0] as f64;
    let lost = out.queues.u64s("drops_link")[0] as f64;
    // Binomial: the standard deviation of the fraction is sqrt(p(1-p)/n).
    let sd = (0.01 * 0.99 / arrivals).sqrt();
    assert!((lost / arrivals - 0.01).abs() < 4.0 * sd, "{lost} of {arrivals}");
}

#[test]
fn red_with_ecn_marks_instead_of_dropping_and_senders_back_off() {
    let text = |ecn: u8| {
        format!(
            r#"
duration = "30s"
warmup = "10s"
[topology]
bottleneck = {{ rate = "100Mbps", delay = "18ms", buffer = "1bdp", queue = "red", queue_params = {{ min_th = 30, max_th = 90, q_weight = 0.002, ecn = {ecn} }} }}
[[flows]]
cc = "newreno"
recovery = "sack"
count = 4
rtt = "40ms"
start_spread = "1s"
ecn = true
# Without a slow-start overshoot the average never reaches 2 max_th, where drops are forced.
init_ssthresh = 60
"#
        )
    };
    let marked = run_toml(&text(1), 1);
    let dropped = run_toml(&text(0), 1);
    let q = |o: &cclab_sim::RunOutput, c: &str| o.queues.u64s(c)[0];
    let reductions: u64 = marked.flows.u64s("ecn_reductions").iter().sum();
    let retx: u64 = marked.flows.u64s("retransmits").iter().sum();
    eprintln!(
        "ECN: marks {}, early drops {}, window reductions {reductions}, retransmits {retx}; without ECN: early drops {}",
        q(&marked, "marks"),
        q(&marked, "drops_early"),
        q(&dropped, "drops_early")
    );
    assert!(q(&marked, "marks") > 0 && reductions > 0);
    assert_eq!(q(&marked, "drops_early"), 0);
    assert!(q(&dropped, "drops_early") > 0 && q(&dropped, "marks") == 0);
    // The marks do the drops' job: the same utilization, the queue held below max_th,
    // and no retransmission at all.
    let u = |o: &cclab_sim::RunOutput| o.summary_value("bottleneck_utilization").unwrap();
    eprintln!("utilization with ECN {:.4}, without {:.4}", u(&marked), u(&dropped));
    assert!(u(&marked) > u(&dropped) - 0.02);
    assert_eq!(retx, 0);
    assert!(marked.summary_value("bottleneck_mean_queue_pkts").unwrap() < 90.0);
}
