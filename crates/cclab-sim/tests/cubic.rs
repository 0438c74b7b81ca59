//! CUBIC (RFC 9438): after a loss the window follows
//! W(t) = C (t - K)^3 + W_max; on a short, slow path it is Reno-friendly,
//! growing as Reno's estimate W_est by alpha_cubic packets per RTT.

mod common;
mod drive;
use common::run_toml;
use drive::Driver;

/// (t seconds since the loss's recovery ended, cwnd) at the end of each RTT for `rtts` RTTs
/// after a loss at window `w`, with a fixed RTT of `rtt_ms`.
fn trajectory(params: &[(&str, f64)], w: f64, rtt_ms: u64, rtts: usize) -> Vec<(f64, f64)> {
    let mut d = Driver::new("cubic", params, w, rtt_ms);
    d.loss();
    let t0 = d.secs();
    (0..rtts)
        .map(|_| {
            d.round();
            (d.secs() - t0, d.cwnd)
        })
        .collect()
}

#[test]
fn after_a_loss_the_window_follows_the_cubic_curve() {
    // (variant, beta): RFC 9438 and the 2008 constants, C = 0.4, loss at W_max = 1000
    // packets with RTT 100 ms. K = cbrt(1000 (1 - beta) / 0.4): 9.086 s and 7.937 s.
    for (variant, beta) in [(0.0, 0.7), (1.0, 0.8)] {
        let w_max = 1000.0;
        let k = (w_max * (1.0 - beta) / 0.4f64).cbrt();
        let curve = |t: f64| 0.4 * (t - k).powi(3) + w_max;
        let traj = trajectory(&[("variant", variant)], w_max, 100, 200);
        let mut worst: f64 = 0.0;
        for &(t, w) in &traj {
            worst = worst.max((w - curve(t)).abs());
        }
        for s in [1.0, 0.5 * k, k, 1.5 * k, 2.0 * k] {
            let &(t, w) = traj.iter().find(|(t, _)| *t >= s - 1e-9).unwrap();
            eprintln!("variant {variant}: t = {t:5.2} s  cwnd {w:7.1}  W(t) {:7.1}", curve(t));
        }
        eprintln!("variant {variant}: K = {k:.3} s, largest |cwnd - W(t)| {worst:.2} packets");
        assert!(worst < 1.0, "variant {variant}: {worst} packets off the curve");
        // The plateau: at K the window is W_max.
        let &(_, at_k) = traj.iter().find(|(t, _)| *t >= k).unwrap();
        assert!((at_k - w_max).abs() < 2.0, "{at_k}");
    }
}

/// The one flow of `cc` with `params` on a 10 Mbit/s, 20 ms path with a one-BDP buffer
/// (17 packets of 1500 B), for 60 s sampled every 5 ms. Returns its window growth per RTT
/// in congestion avoidance (rises between samples with no loss in between, over the RTTs
/// they took at the sampled srtt), the utilization and the fast retransmits.
fn small_path(cc: &str, params: &str) -> (f64, f64, u64) {
    let text = format!(
        r#"
duration = "60s"
warmup = "10s"
sample_interval = "5ms"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "8ms", buffer = "1bdp" }}
[[flows]]
cc = "{cc}"
recovery = "sack"
rtt = "20ms"
{params}
"#
    );
    let out = run_toml(&text, 1);
    let s = &out.flow_series;
    let (t, w, th, rtt) = (s.f64s("time_s"), s.f64s("cwnd"), s.f64s("ssthresh"), s.f64s("srtt_s"));
    let (mut rise, mut rtts) = (0.0, 0.0);
    for i in 1..t.len() {
        if t[i - 1] >= 10.0 && th[i] == th[i - 1] && w[i - 1] >= th[i - 1] && w[i] > w[i - 1] {
            rise += w[i] - w[i - 1];
            rtts += (t[i] - t[i - 1]) / rtt[i];
        }
    }
    let util = out.summary_value("bottleneck_utilization").unwrap();
    (rise / rtts, util, out.flows.u64s("fast_retransmits")[0])
}

#[test]
fn on_a_small_bdp_path_cubic_grows_as_w_est_by_alpha_packets_per_rtt() {
    // K = cbrt(W_max (1 - beta) / C) is about 2.9 s here (W_max about 33 packets), some
    // 100 RTTs: the cubic curve is far slower than Reno's estimate, so W_est sets the window.
    let mut report = Vec::new();
    for (cc, params, want) in [
        ("newreno", "", 1.0),
        ("cubic", "", 3.0 * 0.3 / 1.7),
        ("cubic", "cc_params = { variant = 1 }", 3.0 * 0.2 / 1.8),
        ("cubic", "cc_params = { reno_friendly = 0 }", f64::NAN),
    ] {
        let (g, u, fr) = small_path(cc, params);
        let expected = if want.is_nan() { "no W_est".to_string() } else { format!("alpha {want:.3}") };
        eprintln!("{cc} {params}: {g:.3} packets per RTT ({expected}), utilization {u:.3}, {fr} fast retransmits");
        assert!(u > 0.95, "{cc} {params}: utilization {u}");
        report.push((g, want));
    }
    for &(g, want) in &report[..3] {
        assert!((g / want - 1.0).abs() < 0.15, "{g} packets per RTT, alpha {want}");
    }
    // Without W_est the window creeps along the cubic plateau, several times slower.
    assert!(report[3].0 < 0.3 * report[1].0, "{report:?}");
}
