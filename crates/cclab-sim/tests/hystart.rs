//! CUBIC's HyStart (cc/hystart.rs) through the sender and in a run: the threshold it sets
//! is the sender's, and the `linux` stack turns it on.

use cclab_sim::cc::{self, Params};
use cclab_sim::tcp::{Recovery, Sender, StackProfile, TcpConfig};
use cclab_sim::units::SimTime;
use common::{ack, run_toml};

mod common;

const MS: u64 = 1_000_000_000; // picoseconds

/// A CUBIC sender (`hystart` as given) under the linux stack without timestamps, 100
/// segments sent at t = 0, then ACKs of one segment each 1 ms apart from 100 ms on (RTT
/// samples 100 ms + 1 ms per ACK): the (cwnd, ssthresh) after each of the first `n`.
fn acks(hystart: f64, n: u64) -> Vec<(f64, f64)> {
    let cfg = TcpConfig {
        init_cwnd: 100.0,
        timestamps: false,
        recovery: Recovery::Sack,
        stack: StackProfile::LINUX,
        ..TcpConfig::default()
    };
    let p: Params = [("hystart".to_string(), hystart)].into();
    let mut s = Sender::new(0, cfg, cc::build("cubic", &p).unwrap(), u64::MAX);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 100);
    (1..=n)
        .map(|a| {
            s.on_ack(&ack(a), SimTime((99 + a) * MS), &mut out);
            (s.cwnd, s.ssthresh)
        })
        .collect()
}

#[test]
fn the_ack_train_sets_the_senders_ssthresh_to_cwnd_and_growth_turns_to_congestion_avoidance() {
    // The first ACK (100 ms) starts the round (to snd_nxt 101); delay_min is its 100 ms
    // sample, so the train ends slow start once it spans more than 50 ms: at the ACK of
    // 151 ms, the 52nd, with cwnd 100 + 51 = 151 before it. The delay test never passes:
    // the round's minimum stays 100 ms.
    let w = acks(1.0, 60);
    assert_eq!(w[50], (151.0, f64::INFINITY));
    assert_eq!(w[51].1, 151.0);
    // The same ACK and the next ones grow the window by CUBIC's congestion avoidance.
    assert!(w[51].0 > 151.0 && w[51].0 < 151.1, "{:?}", w[51]);
    assert!(w[59].0 < 152.0, "{:?}", w[59]);
    // Without HyStart: slow start all along, one packet per ACK.
    let w = acks(0.0, 60);
    assert!(w.iter().all(|&(_, t)| t == f64::INFINITY));
    assert_eq!(w[59].0, 160.0);
}

/// One CUBIC flow (SACK) on 100 Mbit/s, 60 ms, with a buffer of 2 BDP, for 6 s, with the
/// stack's defaults and `params`: (the time ssthresh was first set, the flow's drops),
/// printing the first threshold.
fn deep_buffer(stack: &str, params: &str) -> (f64, u64) {
    let text = format!(
        r#"
duration = "6s"
warmup = "0s"
sample_interval = "10ms"
[topology]
bottleneck = {{ rate = "100Mbps", delay = "28ms", buffer = "2bdp" }}
[[flows]]
cc = "cubic"
rtt = "60ms"
stack = "{stack}"
{params}
"#
    );
    let out = run_toml(&text, 1);
    let s = &out.flow_series;
    let (t, th) = (s.f64s("time_s"), s.f64s("ssthresh"));
    let first = t.iter().zip(th.iter()).find(|(_, th)| th.is_finite());
    eprintln!("{stack} {params}: first ssthresh {:?} (t, packets)", first);
    (first.map_or(f64::NAN, |(t, _)| *t), out.flows.u64s("drops")[0])
}

#[test]
fn under_the_linux_stack_cubic_leaves_slow_start_before_its_first_loss() {
    // The BDP is 500 packets and the path holds 1500: slow start ends by HyStart near the
    // BDP, well before the first drop. Linux's CUBIC then grows at least 5 % per RTT while
    // it has seen no loss (cnt <= 20), so it does fill the buffer within the 6 s, with far
    // fewer drops than the slow start that runs into the buffer.
    let (t, drops) = deep_buffer("linux", "");
    eprintln!("linux: ssthresh set at {t} s, {drops} drops");
    let (t0, drops0) = deep_buffer("linux", "cc_params = { hystart = 0 }");
    eprintln!("linux, hystart = 0: ssthresh set at {t0} s, {drops0} drops");
    assert!(t < 1.0 && t < t0, "linux: ssthresh at {t} s, without hystart at {t0} s");
    assert!(drops0 > 0 && t0 < 2.0, "linux without hystart: ssthresh at {t0} s, {drops0} drops");
    assert!(2 * drops < drops0, "linux: {drops} drops, without hystart {drops0}");
    // The default stack's RFC 9438 CUBIC leaves it off; written on, it acts there too, and
    // that curve (K = 0 without a loss) takes well over 6 s to fill the buffer.
    assert!(deep_buffer("cclab", "").1 > 0);
    assert_eq!(deep_buffer("cclab", "cc_params = { hystart = 1 }").1, 0);
}

#[test]
fn the_linux_stack_default_equals_hystart_written_and_reaches_a_wrapped_cubic() {
    let run = |cc: &str, params: &str| {
        let text = common::dumbbell(
            "20Mbps",
            "10ms",
            "2bdp",
            "3s",
            "0s",
            &format!("[[flows]]\ncc = \"{cc}\"\nrtt = \"30ms\"\nstack = \"linux\"\n{params}\n"),
        );
        let out = run_toml(&text, 1);
        (out.flows.u64s("sent_pkts")[0], out.flows.f64s("cwnd_final")[0])
    };
    for cc in ["cubic", "cubic+ktcp"] {
        let default = run(cc, "");
        assert_eq!(default, run(cc, "cc_params = { hystart = 1 }"), "{cc}");
        assert_ne!(default, run(cc, "cc_params = { hystart = 0 }"), "{cc}");
    }
}

#[test]
fn hystart_takes_zero_or_one() {
    for bad in [0.5, 2.0, -1.0] {
        let p: Params = [("hystart".to_string(), bad)].into();
        let e = cc::build("cubic", &p).err().expect("refused");
        assert_eq!(e.param, "hystart", "{bad}");
    }
}
