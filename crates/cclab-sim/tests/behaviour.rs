//! Whole-simulation properties: packet conservation, determinism, fairness,
//! and the behaviour of the three loss recoveries.

mod common;
use cclab_sim::{run, Scenario};
use common::{dumbbell, run_toml};

fn flows(cc: &str, recovery: &str, count: u32, extra: &str) -> String {
    format!(
        r#"
[[flows]]
cc = "{cc}"
recovery = "{recovery}"
count = {count}
rtt = "80ms"
start_spread = "1s"
{extra}
"#
    )
}

fn conserved(text: &str) {
    let out = run_toml(text, 3);
    let v = |k| out.summary_value(k).unwrap();
    let sent = v("data_sent");
    assert!(sent > 1000.0, "too little traffic to mean anything: {sent}");
    assert_eq!(sent, v("data_received") + v("data_dropped") + v("data_in_queues") + v("data_on_wires"), "{text}");
    assert!(v("data_dropped") > 0.0, "the scenario should drop packets: {text}");
}

#[test]
fn every_data_packet_is_delivered_dropped_queued_or_on_a_wire() {
    // Runs end mid-flight, so queues and wires are not empty at the end.
    for rec in ["reno", "newreno", "sack"] {
        conserved(&dumbbell("50Mbps", "18ms", "0.2bdp", "20.0137s", "0s", &flows("newreno", rec, 3, "")));
    }
    conserved(&dumbbell("50Mbps", "18ms", "0.2bdp", "20s", "0s", &flows("newreno", "sack", 3, "overhead = \"1ms\"")));
    conserved(&dumbbell(
        "20Mbps",
        "10ms",
        "30pkts",
        "15s",
        "0s",
        &flows("reno", "reno", 2, "delayed_ack = true\nsize = \"5MB\"\nstop = \"12s\""),
    ));
}

const TWO_FLOWS: &str = r#"
duration = "30s"
sample_interval = "500ms"
[topology]
bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "0.5bdp" }
[[flows]]
cc = "newreno"
recovery = "sack"
count = 3
rtt = "40ms"
start_spread = "2s"
"#;

#[test]
fn same_seed_same_results_bit_for_bit_even_in_parallel_threads() {
    let sc = Scenario::from_toml(TWO_FLOWS).unwrap();
    let a = run(&sc, 11).unwrap();
    let (b, c) = std::thread::scope(|s| {
        let h1 = s.spawn(|| run(&sc, 11).unwrap());
        let h2 = s.spawn(|| run(&sc, 11).unwrap());
        (h1.join().unwrap(), h2.join().unwrap())
    });
    assert_eq!(a, b);
    assert_eq!(a, c);
}

#[test]
fn different_seeds_draw_different_start_times_and_results() {
    let sc = Scenario::from_toml(TWO_FLOWS).unwrap();
    let a = run(&sc, 11).unwrap();
    let b = run(&sc, 12).unwrap();
    assert_ne!(a.flows.f64s("start_s"), b.flows.f64s("start_s"));
    assert_ne!(a.flows.u64s("delivered_pkts"), b.flows.u64s("delivered_pkts"));
}

#[test]
fn two_flows_with_equal_rtt_share_fairly() {
    let text = dumbbell(
        "50Mbps",
        "18ms",
        "1bdp",
        "200s",
        "50s",
        r#"
[[flows]]
cc = "newreno"
count = 2
rtt = "40ms"
start_spread = "5s"
"#,
    );
    let out = run_toml(&text, 5);
    let j = out.summary_value("jain_index").unwrap();
    assert!(j > 0.95, "Jain's index {j}");
}

/// With identical packets and fixed delays a drop-tail queue can lock one flow
/// out by phase alone (Floyd and Jacobson 1992); a random send overhead of
/// about one packet time, as ns-2 users set `overhead_`, removes the effect.
#[test]
fn shorter_rtt_flow_gets_more_under_newreno() {
    let text = dumbbell(
        "50Mbps",
        "10ms",
        "1bdp",
        "400s",
        "50s",
        r#"
[[flows]]
name = "short"
cc = "newreno"
rtt = "40ms"
overhead = "0.24ms"
[[flows]]
name = "long"
cc = "newreno"
rtt = "120ms"
overhead = "0.24ms"
"#,
    );
    // One run is one sample of a noisy process; look at several seeds.
    let ratios: Vec<f64> = (1..=4)
        .map(|seed| {
            let g = run_toml(&text, seed).flows.f64s("goodput_bps").to_vec();
            eprintln!("seed {seed}: 40 ms {:.2} Mbit/s, 120 ms {:.2} Mbit/s", g[0] / 1e6, g[1] / 1e6);
            g[0] / g[1]
        })
        .collect();
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    assert!(ratios.iter().all(|&r| r > 1.2), "{ratios:?}");
    assert!(mean > 1.5, "mean ratio {mean}: {ratios:?}");
}

/// One flow whose slow start overshoots a small buffer: many losses in one window.
fn overshoot(recovery: &str) -> cclab_sim::RunOutput {
    let text = dumbbell(
        "100Mbps",
        "38ms",
        "0.25bdp",
        "20s",
        "0s",
        &format!("[[flows]]\ncc = \"newreno\"\nrecovery = \"{recovery}\"\nrtt = \"80ms\"\n"),
    );
    run_toml(&text, 1)
}

#[test]
fn many_losses_in_one_window_end_in_a_timeout_under_reno_but_not_sack() {
    let reno = overshoot("reno");
    let newreno = overshoot("newreno");
    let sack = overshoot("sack");
    let t = |o: &cclab_sim::RunOutput| o.flows.u64s("timeouts")[0];
    let g = |o: &cclab_sim::RunOutput| o.flows.f64s("goodput_bps")[0];
    eprintln!(
        "timeouts reno {} newreno {} sack {}; goodput {:.1} {:.1} {:.1} Mbit/s",
        t(&reno),
        t(&newreno),
        t(&sack),
        g(&reno) / 1e6,
        g(&newreno) / 1e6,
        g(&sack) / 1e6
    );
    assert!(t(&reno) >= 1);
    assert_eq!(t(&sack), 0);
    assert!(g(&sack) > g(&reno));
    assert!(g(&sack) >= g(&newreno));
}

#[test]
fn a_finite_flow_completes_after_slow_start_rounds() {
    // 1 MB = 667 packets of 1500 B on an idle 100 Mbit/s, 80 ms path, from a window of 2:
    // 2+4+...+256 = 510 packets in 8 rounds, the rest in the 9th: about 9 RTTs plus serialization.
    let text = dumbbell(
        "100Mbps",
        "38ms",
        "1bdp",
        "5s",
        "0s",
        "[[flows]]\ncc = \"newreno\"\nrtt = \"80ms\"\nsize = \"1MB\"\n",
    );
    let out = run_toml(&text, 1);
    let c = out.flows.f64s("completion_s")[0];
    assert!(c > 0.72 && c < 0.80, "completion {c}");
    assert_eq!(out.flows.u64s("delivered_pkts")[0], 667);
}

#[test]
fn delayed_acks_halve_the_ack_count() {
    let text = dumbbell(
        "10Mbps",
        "10ms",
        "1bdp",
        "10s",
        "0s",
        // A receiver window of 20 packets keeps the 1-BDP buffer from overflowing: no loss, no dupacks.
        "[[flows]]\ncc = \"newreno\"\nrtt = \"24ms\"\ndelayed_ack = true\nrwnd = 20\n",
    );
    let sc = Scenario::from_toml(&text).unwrap();
    let mut b = sc.build(1).unwrap();
    b.sim.run_until(b.duration);
    let r = &b.sim.flows[0].receiver.stats;
    let ratio = r.acks_sent as f64 / r.received as f64;
    assert_eq!(b.sim.flows[0].counters.data_drops, 0);
    assert!(ratio > 0.49 && ratio < 0.52, "acks per data packet {ratio}");
}
