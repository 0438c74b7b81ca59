//! gHSTCP against Reno (paper 004, Case 5 against Case 2): five Reno flows on
//! slow access links and five HighSpeed (Case 2) or gHSTCP (Case 5) flows on
//! fast ones share a TailDrop bottleneck at d = 25 ms; nobody uses SACK.
//! Throughput is measured over the second half of the run, as the paper does
//! (its run length is not given), one seed, without the paper's unspecified
//! UDP background traffic.
//!
//! Two scales: the paper's own (2.5 Gbit/s, 100 Mbit/s and 1 Gbit/s access
//! links, 10,000-packet buffer) for 60 s, and the same divided by 10 (250
//! Mbit/s, 10 and 100 Mbit/s, 1000 packets), which keeps the buffer at about
//! one BDP but shrinks every window tenfold.
//!
//! Fairness is the paper's: Jain's index over `x_i = M_i / C_i`, `C_i` the
//! max-min fair share. The Reno flows are held to their access links, so
//! `C_i` is the access rate for them and the rest of the bottleneck, split
//! five ways, for the others.

mod common;
use common::run_toml;

/// Jain's index of `x`: `(sum x)^2 / (n sum x^2)`.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let ss: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * ss)
}

/// Rates in bit/s and the buffer in packets of one scale of the set-up.
struct Scale {
    bottleneck: f64,
    reno_access: f64,
    fast_access: f64,
    buffer: u32,
}

const PAPER: Scale = Scale { bottleneck: 2.5e9, reno_access: 100e6, fast_access: 1e9, buffer: 10_000 };
const TENTH: Scale = Scale { bottleneck: 250e6, reno_access: 10e6, fast_access: 100e6, buffer: 1000 };

/// What one case gave.
struct Case {
    /// Jain's index over goodput / max-min share.
    fairness: f64,
    /// Mean goodput per flow, Mbit/s, of the Reno flows and of the other group.
    reno: f64,
    fast: f64,
    utilization: f64,
    /// Retransmission timeouts of the other group, all five flows.
    fast_timeouts: u64,
}

fn run(cc: &str, s: &Scale) -> Case {
    let text = format!(
        r#"
duration = "60s"
warmup = "30s"
[topology]
bottleneck = {{ rate = "{}bps", delay = "25ms", buffer = "{}pkts" }}
[[flows]]
cc = "reno"
count = 5
access_rate = "{}bps"
start_spread = "1s"
[[flows]]
cc = "{cc}"
recovery = "reno"
count = 5
access_rate = "{}bps"
start_spread = "1s"
"#,
        s.bottleneck, s.buffer, s.reno_access, s.fast_access
    );
    let out = run_toml(&text, 1);
    let g = out.flows.f64s("goodput_bps");
    let fast_share = (s.bottleneck - 5.0 * s.reno_access) / 5.0;
    let x: Vec<f64> = g[..5].iter().map(|m| m / s.reno_access).chain(g[5..].iter().map(|m| m / fast_share)).collect();
    let c = Case {
        fairness: jain(&x),
        reno: g[..5].iter().sum::<f64>() / 5e6,
        fast: g[5..].iter().sum::<f64>() / 5e6,
        utilization: out.summary_value("bottleneck_utilization").unwrap(),
        fast_timeouts: out.flows.u64s("timeouts")[5..].iter().sum(),
    };
    eprintln!(
        "{:.2} Gbit/s, {cc}: Reno {:.2} Mbit/s per flow, {cc} {:.2} Mbit/s per flow, utilization {:.3}, \
         {cc} timeouts {}; fairness (max-min) {:.3}, Jain on goodput {:.3}",
        s.bottleneck / 1e9,
        c.reno,
        c.fast,
        c.utilization,
        c.fast_timeouts,
        c.fairness,
        jain(g)
    );
    c
}

/// Scaled by 1/10. The paper (Table 2 against Table 1, d = 25 ms) reports fairness 0.887 ->
/// 0.997 and the Reno flows' throughput doubling. At this scale HighSpeed's windows are 200
/// to 550 packets, where a(w) is 3 to 6: it already leaves the Reno flows 85 % of their access
/// links (fairness 0.985), and gHSTCP's flows, which lose fewer packets at once, take all the
/// rest and spread around their share (fairness 0.916). The test locks the efficiency gain,
/// the fewer timeouts, and that Reno is not starved; the fairness claim is an open
/// discrepancy (docs/algorithms/ghstcp.md).
#[test]
fn scaled_down_ghstcp_gets_more_goodput_than_highspeed_without_starving_reno() {
    let hs = run("highspeed", &TENTH);
    let g = run("ghstcp", &TENTH);
    assert!(g.fast > hs.fast, "ghstcp {} vs highspeed {} Mbit/s per flow", g.fast, hs.fast);
    assert!(g.utilization > hs.utilization, "utilization {} vs {}", g.utilization, hs.utilization);
    assert!(g.fast_timeouts < hs.fast_timeouts, "timeouts {} vs {}", g.fast_timeouts, hs.fast_timeouts);
    assert!(g.reno > 0.9 * hs.reno, "Reno with ghstcp {} vs with highspeed {}", g.reno, hs.reno);
    assert!(g.fairness > 0.85 && hs.fairness > 0.85, "fairness ghstcp {}, highspeed {}", g.fairness, hs.fairness);
}

/// At the paper's own rates and buffer (about 20 s of wall time for both cases), the
/// throughput part of its Case 5 result holds: beside HighSpeed the Reno flows get about
/// half their 100 Mbit/s access links and the bottleneck is 60 % used; beside gHSTCP they get
/// nearly all of it and the bottleneck is full. The fairness index does not follow (see the
/// doc page): the five gHSTCP flows spread widely among themselves.
#[test]
fn at_the_papers_rates_reno_gets_about_twice_the_goodput_beside_ghstcp_and_the_link_fills() {
    let hs = run("highspeed", &PAPER);
    let g = run("ghstcp", &PAPER);
    assert!(hs.reno < 70.0, "Reno beside HighSpeed {} Mbit/s per flow", hs.reno);
    assert!(g.reno > 1.5 * hs.reno, "Reno beside gHSTCP {} vs beside HighSpeed {}", g.reno, hs.reno);
    assert!(g.utilization > 0.95 && hs.utilization < 0.8, "utilization {} vs {}", g.utilization, hs.utilization);
    assert!(g.fast_timeouts < hs.fast_timeouts, "timeouts {} vs {}", g.fast_timeouts, hs.fast_timeouts);
}
