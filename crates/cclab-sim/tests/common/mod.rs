//! Helpers shared by the scenario tests.
#![allow(dead_code)]

use cclab_sim::packet::{Kind, Packet, SackBlock};
use cclab_sim::units::SimTime;
use cclab_sim::{run, RunOutput, Scenario};

/// A bare 40-byte cumulative ACK of everything below `seq` (flow 0, no SACK, no timestamps).
pub fn ack(seq: u64) -> Packet {
    Packet {
        seq,
        ts_val: SimTime::ZERO,
        ts_ecr: SimTime::ZERO,
        sack: [SackBlock::default(); 3],
        cc: Default::default(),
        flow: 0,
        size: 40,
        hop: 0,
        kind: Kind::Ack,
        n_sack: 0,
        retx: false,
        flags: 0,
    }
}

/// An ACK of everything below `a` with SACK blocks `[start, end)` in absolute sequence numbers.
pub fn sack(a: u64, blocks: &[(u64, u64)]) -> Packet {
    let mut p = ack(a);
    for (i, &(st, en)) in blocks.iter().enumerate() {
        p.sack[i] = SackBlock { start: (st - a) as u32, end: (en - a) as u32 };
    }
    p.n_sack = blocks.len() as u8;
    p
}

/// The sequence numbers `ack` makes `s` send when it arrives at `ms` milliseconds.
pub fn on(s: &mut cclab_sim::tcp::Sender, ack: &Packet, ms: u64) -> Vec<u64> {
    let mut out = Vec::new();
    s.on_ack(ack, SimTime(ms * 1_000_000_000), &mut out);
    out.iter().map(|p| p.seq).collect()
}

pub fn run_toml(text: &str, seed: u64) -> RunOutput {
    let sc = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, seed).unwrap_or_else(|e| panic!("{e}"))
}

/// A single-bottleneck dumbbell scenario.
pub fn dumbbell(rate: &str, delay: &str, buffer: &str, duration: &str, warmup: &str, flows: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "{warmup}"
[topology]
bottleneck = {{ rate = "{rate}", delay = "{delay}", buffer = "{buffer}" }}
{flows}
"#
    )
}

/// The RTTs of paper 001's Model I runs (`three_rtts_model_i`), milliseconds.
pub const MODEL_I_RTTS_MS: [u64; 3] = [40, 80, 120];

/// Three `cc` flows (40, 80, 120 ms) start together in congestion avoidance at 2 packets on a
/// 1 Gbps bottleneck that they leave mostly idle for the 8 s: Model I of paper 001 (spare
/// capacity, RTT = RTT_min), sampled every 100 ms.
pub fn three_rtts_model_i(cc: &str) -> RunOutput {
    let mut flows = String::new();
    for rtt in MODEL_I_RTTS_MS {
        flows += &format!("[[flows]]\ncc = \"{cc}\"\nrtt = \"{rtt}ms\"\ninit_ssthresh = 2\n");
    }
    let text = dumbbell("1Gbps", "5ms", "2000pkts", "8s", "0s", &flows).replacen(
        "warmup",
        "sample_interval = \"100ms\"\nwarmup",
        1,
    );
    run_toml(&text, 1)
}

/// Least-squares slope of y against x.
pub fn slope(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    sxy / sxx
}

/// Per flow `0..flows`: the slope over `[t0, t1]` seconds of the flow series' `column`
/// divided by `unit`, per second.
pub fn growth_per_flow(out: &RunOutput, flows: u64, column: &str, unit: f64, t0: f64, t1: f64) -> Vec<f64> {
    let s = &out.flow_series;
    let (t, f, v) = (s.f64s("time_s"), s.u64s("flow"), s.f64s(column));
    (0..flows)
        .map(|flow| {
            let rows: Vec<usize> = (0..t.len()).filter(|&i| f[i] == flow && t[i] >= t0 && t[i] <= t1).collect();
            let x: Vec<f64> = rows.iter().map(|&i| t[i]).collect();
            let y: Vec<f64> = rows.iter().map(|&i| v[i] / unit).collect();
            slope(&x, &y)
        })
        .collect()
}

/// `flows` `cc` flows of 40 ms over a 2000-packet bottleneck of `rate`, for 60 s with 20 s
/// of warmup, sampled every 10 ms: the delay-based algorithms' equilibrium queue.
pub fn queue_equilibrium_run(cc: &str, flows: u32, rate: &str) -> RunOutput {
    let f = format!("\n[[flows]]\ncc = \"{cc}\"\ncount = {flows}\nrtt = \"40ms\"\nstart_spread = \"100ms\"\n");
    let mut text = dumbbell(rate, "18ms", "2000pkts", "60s", "20s", &f);
    text = text.replacen("warmup", "sample_interval = \"10ms\"\nwarmup", 1);
    run_toml(&text, 1)
}

/// Mean bottleneck queue over the samples taken after the warmup, and the queues
/// table's whole-run mean of the same queue, packets.
pub fn bottleneck_queue(out: &RunOutput, warmup_s: f64) -> (f64, f64) {
    let row = match out.queues.get("role") {
        Some(cclab_sim::results::Column::Str(roles)) => roles.iter().position(|r| r == "bottleneck").unwrap(),
        _ => panic!("no role column"),
    };
    let link = out.queues.u64s("link")[row];
    let q = &out.queue_series;
    let (t, l, n) = (q.f64s("time_s"), q.u64s("link"), q.u64s("len_pkts"));
    let settled: Vec<f64> = (0..t.len()).filter(|&i| l[i] == link && t[i] >= warmup_s).map(|i| n[i] as f64).collect();
    (settled.iter().sum::<f64>() / settled.len() as f64, out.queues.f64s("mean_len_pkts")[row])
}
