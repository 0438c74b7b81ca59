//! DualPI2 (RFC 9332) on scenarios/dualpi2.toml: one DCTCP flow sending ECT(1) beside one
//! CUBIC flow, 100 Mbit/s, 30 ms round trips, a 2000-packet buffer.
//! - The L4S flow's queueing delay stays below the 1 ms step threshold (the aim of L4S,
//!   RFC 9330 and RFC 9332: a queue of about a millisecond), with no loss, and the link stays full.
//! - Rates: RFC 9332 section 2.1 derives roughly equal rates for Reno-like and DCTCP-like
//!   flows from a steady `p'`. Here the DCTCP flow gets about 1.8 times CUBIC's rate, and
//!   the test pins the measured cause: `p'` is not steady (it rests at 0 half the time), so
//!   the Classic flow's mean drop probability `E[p'^2]` is several times `E[p']^2`, and the
//!   Classic flow's round trip carries the C queue's delay. The RFC's window laws evaluated
//!   at the measured moments and round trips predict the measured ratio.
//! - With four flows of each kind the C queue's delay rises toward the 15 ms target and
//!   `p'` rests at 0 far less often.

mod common;
use cclab_sim::RunOutput;
use common::run_toml;

const SCENARIO: &str = include_str!("../../../scenarios/dualpi2.toml");

/// A flow's queueing delay samples after the warmup (its latest RTT sample, every 100 ms,
/// less its base RTT), ms, sorted: the DCTCP flow's are L queue sojourns, CUBIC's C's.
fn queueing_ms(out: &RunOutput, flow: u64) -> Vec<f64> {
    let fs = &out.flow_series;
    let (t, f, rtt) = (fs.f64s("time_s"), fs.u64s("flow"), fs.f64s("rtt_s"));
    let base = out.flows.f64s("base_rtt_s")[flow as usize];
    let mut v: Vec<f64> =
        (0..t.len()).filter(|&i| f[i] == flow && t[i] >= 10.0).map(|i| (rtt[i] - base) * 1e3).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The bottleneck's `p'` (the queue series' `max_p`) at each sample after the warmup.
fn p_prime(out: &RunOutput) -> Vec<f64> {
    let qs = &out.queue_series;
    let (t, link, p) = (qs.f64s("time_s"), qs.u64s("link"), qs.f64s("max_p"));
    (0..t.len()).filter(|&i| link[i] == 0 && t[i] >= 10.0).map(|i| p[i]).collect()
}

/// (L4S flows' goodput, Classic flows' goodput), the first half of the flows being L4S.
fn rates(out: &RunOutput) -> (f64, f64) {
    let g = out.flows.f64s("goodput_bps");
    let h = g.len() / 2;
    (g[..h].iter().sum(), g[h..].iter().sum())
}

#[test]
fn the_l4s_flow_queues_under_1_ms_without_loss_beside_a_classic_flow_and_the_link_stays_full() {
    for seed in 1..=3 {
        let out = run_toml(SCENARIO, seed);
        let l = queueing_ms(&out, 0);
        let util = out.summary_value("bottleneck_utilization").unwrap();
        let drops = out.flows.u64s("drops");
        eprintln!(
            "seed {seed}: L queueing p50 {:.3} p99 {:.3} ms, utilization {util:.4}, drops {drops:?}",
            quantile(&l, 0.5),
            quantile(&l, 0.99)
        );
        assert!(quantile(&l, 0.99) < 1.0, "L p99 {} ms", quantile(&l, 0.99));
        assert!(util > 0.95, "utilization {util}");
        assert_eq!(drops[0], 0, "the L4S flow is marked, never dropped");
        assert!(drops[1] > 0, "the Classic flow is controlled by drops");
        assert!(out.queues.u64s("marks")[0] > 0);
    }
}

#[test]
fn one_classic_flow_gets_less_than_the_rfcs_equal_share_because_p_prime_is_not_steady() {
    let out = run_toml(SCENARIO, 1);
    let (gl, gc) = rates(&out);
    let p = p_prime(&out);
    let (m1, m2) = (mean(&p), mean(&p.iter().map(|x| x * x).collect::<Vec<_>>()));
    let at_zero = p.iter().filter(|&&x| x == 0.0).count() as f64 / p.len() as f64;
    // RFC 9332 section 2.1's laws: W_C = 1.22 / sqrt(p_C) (Reno), W_L = 2 / p_L (DCTCP), with
    // the probabilities' means E[p'^2] and k E[p'] and each flow's mean round trip.
    let rtt = |flow: u64| out.flows.f64s("base_rtt_s")[flow as usize] + mean(&queueing_ms(&out, flow)) / 1e3;
    let predicted = (2.0 / (2.0 * m1) / rtt(0)) / (1.22 / m2.sqrt() / rtt(1));
    let ratio = gl / gc;
    eprintln!(
        "L {:.1} C {:.1} Mbit/s, ratio {ratio:.3}, predicted {predicted:.3}; E[p'] {m1:.5}, E[p'^2] / E[p']^2 {:.2}, p' = 0 in {at_zero:.2} of samples, C mean queueing {:.2} ms",
        gl / 1e6, gc / 1e6, m2 / (m1 * m1), mean(&queueing_ms(&out, 1))
    );
    assert!(ratio > 1.5, "ratio {ratio}");
    assert!(at_zero > 0.3 && m2 > 2.0 * m1 * m1, "p' steadier than measured: {at_zero}, {m2} vs {m1}");
    assert!((predicted / ratio - 1.0).abs() < 0.15, "predicted {predicted} vs {ratio}");
}

#[test]
fn with_four_flows_of_each_the_c_queue_nears_its_target_and_p_prime_rarely_rests_at_zero() {
    let sc = SCENARIO.replace("rtt = \"30ms\"", "rtt = \"30ms\"\ncount = 4");
    let one = run_toml(SCENARIO, 1);
    let four = run_toml(&sc, 1);
    let at_zero = |out: &RunOutput| {
        let p = p_prime(out);
        p.iter().filter(|&&x| x == 0.0).count() as f64 / p.len() as f64
    };
    let c = mean(&queueing_ms(&four, 4));
    let l = queueing_ms(&four, 0);
    let (gl, gc) = rates(&four);
    eprintln!(
        "4 + 4: C mean queueing {c:.2} ms, L p99 {:.3} ms, p' = 0 in {:.2} (one flow each: {:.2}), ratio {:.3}",
        quantile(&l, 0.99),
        at_zero(&four),
        at_zero(&one),
        gl / gc
    );
    assert!((10.0..=15.0).contains(&c), "C mean queueing {c} ms");
    assert!(quantile(&l, 0.99) < 1.0);
    assert!(at_zero(&four) < 0.2 && at_zero(&one) > 0.3);
    assert!(gl / gc < rates(&one).0 / rates(&one).1, "more flows, closer to equal");
}

#[test]
fn ecn_l4s_turns_on_ecn_with_ect1_and_other_values_are_refused_by_name() {
    use cclab_sim::Scenario;
    let b = Scenario::from_toml(SCENARIO).unwrap().build(1).unwrap();
    let (l4s, cubic) = (&b.sim.flows[0].sender.cfg, &b.sim.flows[1].sender.cfg);
    assert!(l4s.ecn && l4s.l4s);
    assert!(!cubic.ecn && !cubic.l4s);
    let refused =
        |text: &str| Scenario::from_toml(text).and_then(|sc| sc.build(1).map(|_| ())).unwrap_err().to_string();
    let e = refused(&SCENARIO.replace("ecn = \"l4s\"", "ecn = \"l4\""));
    assert!(e.starts_with("flows[0].ecn") && e.contains("\"l4s\""), "{e}");
    let e = refused(&SCENARIO.replace("ecn = \"l4s\"", "ecn = false"));
    assert!(e.starts_with("flows[0].ecn") && e.contains("dctcp needs ECN"), "{e}");
}

/// ECT(1) means ECN-capable to every other queue (RFC 3168 section 5: routers treat ECT(0)
/// and ECT(1) as equivalent): through PIE with ECN, a DCTCP flow
/// with `ecn = "l4s"` gets the results of one with `ecn = true`, bit for bit.
#[test]
fn an_l4s_flow_through_another_ecn_queue_gets_the_results_of_an_ecn_flow() {
    let pie = SCENARIO.replace("queue = \"dualpi2\"", "queue = \"pie\", queue_params = { ecn = 1 }");
    let (a, b) = (run_toml(&pie, 1), run_toml(&pie.replace("ecn = \"l4s\"", "ecn = true"), 1));
    assert!(a.queues.u64s("marks")[0] > 0);
    assert_eq!(a.queues.u64s("marks"), b.queues.u64s("marks"));
    assert_eq!(a.flows.f64s("goodput_bps"), b.flows.f64s("goodput_bps"));
    assert_eq!(a.flow_series.f64s("rtt_s"), b.flow_series.f64s("rtt_s"));
}
