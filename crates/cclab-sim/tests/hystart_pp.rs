//! HyStart++ (RFC 9406) as CUBIC's `hystart_pp` option, in a run: on a deep buffer, where
//! standard slow start doubles past the pipe and the buffer and loses a window's worth,
//! HyStart++ sees the RTT rise, slows to Conservative Slow Start and enters congestion
//! avoidance before the buffer overflows.

use cclab_sim::cc::cubic::Cubic;
use cclab_sim::cc::hystart_pp::Phase;
use cclab_sim::Scenario;

/// One CUBIC flow on 100 Mbit/s with a 40 ms RTT (C RTT = 333 packets) and a 10-BDP buffer.
fn deep_buffer(params: &str) -> String {
    format!(
        r#"
duration = "6s"
warmup = "0s"
[topology]
bottleneck = {{ rate = "100Mbps", delay = "10ms", buffer = "3333pkts" }}
[[flows]]
cc = "cubic"
rtt = "40ms"
{params}
"#
    )
}

/// (drops at the bottleneck, largest queue, the flow's ssthresh at the end, whether
/// HyStart++ ran its course).
fn run(params: &str) -> (u64, u64, f64, bool) {
    let mut b = Scenario::from_toml(&deep_buffer(params)).unwrap().build(1).unwrap();
    b.sim.run_until(b.duration);
    let bn = b.sim.links.iter().position(|l| l.role == "bottleneck").unwrap();
    let l = &b.sim.links[bn];
    let f = &b.sim.flows[0].sender;
    let done =
        f.cc.as_any()
            .and_then(|a| a.downcast_ref::<Cubic>())
            .and_then(|c| c.hystart_pp())
            .is_some_and(|h| h.phase() == Phase::Done);
    (l.qstats.total_drops(), l.qstats.max_pkts, f.ssthresh, done)
}

/// HyStart++ sees the rise late on an unpaced, ACK-clocked sender: a round's minimum RTT
/// comes from the packets sent at the start of the round before, so it rises by the
/// 5 ms threshold (40 ms / 8) only in the round after the window passed the pipe, at
/// about 3 BDP (1033 packets here); CSS then grows x1.25 a round for 5 rounds, to about
/// 9.4 BDP (3139 packets). A buffer of 10 BDP holds that; standard slow start doubles
/// from about 2000 to 4000 packets and overflows it.
#[test]
fn hystart_pp_leaves_slow_start_before_a_deep_buffer_overflows_where_slow_start_does_not() {
    let (drops, max_q, ssthresh, _) = run("");
    eprintln!("slow start: {drops} drops, queue up to {max_q}, ssthresh at the end {ssthresh:.0}");
    assert!(drops > 100, "standard slow start overflows the buffer: {drops} drops, queue up to {max_q}");
    let (drops, max_q, ssthresh, done) = run("cc_params = { hystart_pp = 1 }");
    eprintln!("HyStart++: {drops} drops, queue up to {max_q}, ssthresh at the end {ssthresh:.0}");
    assert_eq!(drops, 0, "HyStart++: no drop (queue up to {max_q})");
    assert!(done && ssthresh.is_finite(), "CSS ran its rounds into congestion avoidance (ssthresh {ssthresh})");
    assert!(max_q < 3333, "queue up to {max_q}");
}

/// When HyStart++ enters CSS and when it ends, on the same path (printed with
/// `--nocapture`; docs/algorithms/cubic.md quotes it): CSS begins once the window is past
/// the pipe and ends five rounds later.
#[test]
fn css_begins_past_the_pipe_and_ends_five_rounds_later() {
    let mut b = Scenario::from_toml(&deep_buffer("cc_params = { hystart_pp = 1 }")).unwrap().build(1).unwrap();
    let mut changes = Vec::new();
    let mut last = Phase::SlowStart;
    for ms in 1..3000 {
        b.sim.run_until(cclab_sim::units::SimTime::from_millis(ms));
        let f = &b.sim.flows[0].sender;
        let c = f.cc.as_any().and_then(|a| a.downcast_ref::<Cubic>()).unwrap();
        let ph = c.hystart_pp().unwrap().phase();
        if std::mem::discriminant(&ph) != std::mem::discriminant(&last) {
            eprintln!("{ms} ms: {ph:?}, cwnd {:.0}", f.cwnd);
            changes.push((ms, ph, f.cwnd));
            last = ph;
        }
    }
    // Slow start to CSS once, then to congestion avoidance; CSS grows the window at most
    // 1.25^5 = 3.05 times (a quarter of slow start's growth per round, 5 rounds).
    assert_eq!(changes.len(), 2, "{changes:?}");
    let (css_at, done_at) = (changes[0].2, changes[1].2);
    assert!(matches!(changes[0].1, Phase::Css { .. }) && changes[1].1 == Phase::Done);
    assert!(css_at > 333.0, "CSS begins past the pipe (333 packets): {css_at:.0}");
    assert!(done_at > css_at && done_at < 3.1 * css_at, "{css_at:.0} -> {done_at:.0}");
}
