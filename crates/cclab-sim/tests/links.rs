//! Links that vary over time (net/link/vary.rs, docs/links.md): a Mahimahi trace delivers
//! what its opportunities allow to a saturating sender, a rate step changes what the link
//! carries at the step, a delay step never reorders, a loss schedule drops only once in force,
//! and every bad schedule is one line naming its field.

use cclab_sim::units::SimTime;
use cclab_sim::Scenario;
use std::path::PathBuf;

/// A synthetic trace of 1000 ms: `(ms * 7) % 5` opportunities at each millisecond 1..=1000
/// (0 to 4, two on average: 24 Mbit/s).
fn trace_lines() -> Vec<u64> {
    (1..=1000u64).flat_map(|ms| std::iter::repeat_n(ms, ((ms * 7) % 5) as usize)).collect()
}

fn write_trace(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("cclab-links-{}-{name}.trace", std::process::id()));
    let text: String = trace_lines().iter().map(|ms| format!("{ms}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// Opportunities (over the repetitions) whose time is in `(from, to]`.
fn opportunities_in(from: f64, to: f64) -> u64 {
    let lines = trace_lines();
    let period = *lines.last().unwrap() as f64 / 1e3;
    let mut n = 0;
    for cycle in 0..((to / period).ceil() as u64 + 1) {
        for &ms in &lines {
            let t = cycle as f64 * period + ms as f64 / 1e3;
            if t > from && t <= to {
                n += 1;
            }
        }
    }
    n
}

/// A UDP source at 100 Mbit/s, four times the trace's peak, through a bottleneck with the trace.
fn saturated(trace: &std::path::Path, packet_size: &str) -> String {
    format!(
        r#"
duration = "10s"
[topology]
bottleneck = {{ rate = "24Mbps", delay = "10ms", buffer = "500pkts", mahimahi = "{}" }}
[[udp]]
rate = "100Mbps"
packet_size = "{packet_size}"
access_rate = "1Gbps"
"#,
        trace.display()
    )
}

fn build(text: &str) -> cclab_sim::scenario::Built {
    Scenario::from_toml(text).unwrap().build(1).unwrap()
}

#[test]
fn a_mahimahi_trace_delivers_one_full_packet_per_opportunity_to_a_saturating_sender() {
    let trace = write_trace("full");
    let mut b = build(&saturated(&trace, "1500B"));
    // A packet sent at opportunity time T reaches the receiver at T + 10 ms (bottleneck) + 1 ms
    // (receiver access) + 12 us (1500 B at 1 Gbit/s): count the receiver's bytes from 1 s to 9 s.
    let lag = 0.011 + 1500.0 * 8.0 / 1e9;
    b.sim.run_until(SimTime::from_secs_f64(1.0));
    let before = b.sim.udp[0].received_bytes;
    b.sim.run_until(SimTime::from_secs_f64(9.0));
    let delivered = b.sim.udp[0].received_bytes - before;
    let opportunities = opportunities_in(1.0 - lag, 9.0 - lag);
    eprintln!("mahimahi 1500 B: delivered {delivered} B, opportunities {opportunities} x 1500 B");
    assert_eq!(delivered, opportunities * 1500);
    std::fs::remove_file(trace).ok();
}

#[test]
fn packets_smaller_than_an_opportunity_share_it_and_deliver_its_bytes_within_one_packet() {
    let trace = write_trace("small");
    let mut b = build(&saturated(&trace, "1000B"));
    let lag = 0.011 + 1000.0 * 8.0 / 1e9;
    b.sim.run_until(SimTime::from_secs_f64(1.0));
    let before = b.sim.udp[0].received_bytes;
    b.sim.run_until(SimTime::from_secs_f64(9.0));
    let delivered = b.sim.udp[0].received_bytes - before;
    let offered = opportunities_in(1.0 - lag, 9.0 - lag) * 1500;
    eprintln!("mahimahi 1000 B: delivered {delivered} B, opportunity bytes {offered}");
    assert!(delivered.abs_diff(offered) <= 1000, "delivered {delivered}, offered {offered}");
    std::fs::remove_file(trace).ok();
}

#[test]
fn a_bulk_tcp_flow_behind_a_deep_buffer_uses_every_opportunity_once_past_slow_start() {
    let trace = write_trace("tcp");
    let text = format!(
        r#"
duration = "20s"
[topology]
bottleneck = {{ rate = "24Mbps", delay = "10ms", buffer = "300pkts", mahimahi = "{}" }}
[[flows]]
cc = "cubic"
recovery = "sack"
rtt = "40ms"
"#,
        trace.display()
    );
    let mut b = build(&text);
    b.sim.run_until(SimTime::from_secs_f64(5.0));
    let before = b.sim.links[0].tx_bytes;
    b.sim.run_until(SimTime::from_secs_f64(20.0));
    let sent = b.sim.links[0].tx_bytes - before;
    let offered = opportunities_in(5.0, 20.0) * 1500;
    let share = sent as f64 / offered as f64;
    eprintln!("mahimahi cubic: bottleneck sent {sent} B of {offered} B of opportunities ({share:.4})");
    // The buffer (300 packets) is several times the BDP at the trace's peak (4 opportunities a
    // millisecond over 40 ms: 160 packets), so CUBIC's backoffs never empty it.
    assert!(share > 0.99 && share <= 1.0, "share {share}");
    std::fs::remove_file(trace).ok();
}

/// A UDP source at 20 Mbit/s through a bottleneck of 10 Mbit/s that steps to 2 Mbit/s at 2 s.
const STEP: &str = r#"
duration = "4s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "100pkts", rate_schedule = [["2s", "2Mbps"]] }
[[udp]]
rate = "20Mbps"
"#;

#[test]
fn a_rate_step_changes_what_the_link_sends_from_the_step_on() {
    let mut b = build(STEP);
    b.sim.run_until(SimTime::from_secs_f64(1.0));
    let at1 = b.sim.links[0].tx_bytes;
    b.sim.run_until(SimTime::from_secs_f64(2.0));
    let at2 = b.sim.links[0].tx_bytes;
    b.sim.run_until(SimTime::from_secs_f64(4.0));
    let at4 = b.sim.links[0].tx_bytes;
    eprintln!("rate step: {} B in 1-2 s, {} B in 2-4 s", at2 - at1, at4 - at2);
    // 10 Mbit/s for a second, then 2 Mbit/s for two (a packet counts when it starts to be sent).
    assert!((at2 - at1).abs_diff(1_250_000) <= 1500, "{}", at2 - at1);
    assert!((at4 - at2).abs_diff(500_000) <= 1500, "{}", at4 - at2);
    // The results keep the link's nominal rate.
    assert_eq!(b.sim.links[0].rate.bps(), 10_000_000);
}

#[test]
fn a_delay_step_down_shortens_the_round_trip_without_a_retransmission() {
    // 20 packets in flight at most (rwnd), far below the BDP: no queue, no loss. The one-way delay
    // drops by 90 ms at 5 s while packets are on the wire; they keep their order (the unit test
    // `a_delay_step_down_keeps_the_wire_in_order`), so nothing looks lost.
    let text = r#"
duration = "10s"
[topology]
bottleneck = { rate = "10Mbps", delay = "100ms", buffer = "100pkts", delay_schedule = [["5s", "10ms"]] }
[[flows]]
cc = "newreno"
recovery = "sack"
rtt = "204ms"
rwnd = 20
"#;
    let mut b = build(text);
    b.sim.run_until(SimTime::from_secs_f64(10.0));
    let s = &b.sim.flows[0].sender;
    let srtt_ms = s.rtt.srtt().secs_f64() * 1e3;
    eprintln!("delay step: retransmits {}, srtt at the end {srtt_ms:.1} ms", s.stats.retransmits);
    assert_eq!(s.stats.retransmits, 0);
    // The delay schedule applies both ways, as `delay`: the round trip is now 2 x (10 + 2) ms
    // plus serialization, down from 204 ms.
    assert!(srtt_ms < 40.0, "srtt {srtt_ms} ms");
}

#[test]
fn a_loss_schedule_drops_nothing_before_its_step_and_its_probability_after() {
    let text = r#"
duration = "10s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "100pkts", loss_schedule = [["5s", 0.2]] }
[[udp]]
rate = "5Mbps"
"#;
    let mut b = build(text);
    b.sim.run_until(SimTime::from_secs_f64(5.0));
    assert_eq!(b.sim.udp[0].drops, 0);
    let arrivals = b.sim.links[0].qstats.arrivals;
    b.sim.run_until(SimTime::from_secs_f64(10.0));
    let n = (b.sim.links[0].qstats.arrivals - arrivals) as f64;
    let share = b.sim.udp[0].drops as f64 / n;
    eprintln!("loss schedule: {share:.4} of {n} packets lost after the step");
    // 4 standard deviations of a binomial share at 0.2 over ~2000 packets: 0.036.
    assert!((share - 0.2).abs() < 4.0 * (0.2f64 * 0.8 / n).sqrt(), "share {share}");
}

fn refused(extra: &str) -> String {
    let text = format!(
        "duration = \"4s\"\n[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\"{extra} }}\n[[udp]]\nrate = \"1Mbps\"\n"
    );
    match Scenario::from_toml(&text).and_then(|s| s.build(1).map(|_| ())) {
        Ok(()) => panic!("accepted: {extra}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_bad_schedule_is_one_line_naming_its_field_value_and_what_is_accepted() {
    let cases = [
        (
            r#", rate_schedule = [["2s", "5Mbps"], ["1s", "1Mbps"]]"#,
            "topology.bottleneck.rate_schedule[1][0]: invalid value '1s'; accepted: a time after the step before",
        ),
        (r#", rate_schedule = [["2s", "0Mbps"]]"#, "topology.bottleneck.rate_schedule[0][1]: invalid value '0Mbps'"),
        (r#", rate_schedule = [["2s", "fast"]]"#, "topology.bottleneck.rate_schedule[0][1]: invalid value 'fast'"),
        (r#", rate_schedule = []"#, "topology.bottleneck.rate_schedule: invalid value '[]'"),
        (r#", rate_schedule = 5"#, "a list of [time, value] pairs, or the path of a file"),
        (r#", delay_schedule = [["2s", "-1ms"]]"#, "topology.bottleneck.delay_schedule[0][1]: invalid value '-1ms'"),
        (
            r#", loss_schedule = [["2s", 1.0]]"#,
            "topology.bottleneck.loss_schedule[0][1]: invalid value '1'; accepted: a probability in [0, 1)",
        ),
        (r#", loss_schedule = [["2s", nan]]"#, "topology.bottleneck.loss_schedule[0][1]: invalid value 'nan'"),
        (
            r#", mahimahi = "/nonexistent/cell.trace""#,
            "topology.bottleneck.mahimahi: /nonexistent/cell.trace: No such file",
        ),
        (
            r#", mahimahi = "/nonexistent", rate_schedule = [["1s", "1Mbps"]]"#,
            "topology.bottleneck.rate_schedule: set with mahimahi",
        ),
        (r#", gilbert_elliott = { p = 0.1 }"#, "topology.bottleneck.gilbert_elliott.r: missing"),
        (r#", gilbert_elliott = { p = 0.1, r = 0.5, h = 1 }"#, "topology.bottleneck.gilbert_elliott.h: unknown key"),
        (r#", gilbert_elliott = { p = 0, r = 0.5 }"#, "topology.bottleneck.gilbert_elliott.p: invalid value '0'"),
        (
            r#", loss = 0.1, gilbert_elliott = { p = 0.1, r = 0.5 }"#,
            "topology.bottleneck.loss: set with gilbert_elliott",
        ),
    ];
    for (extra, want) in cases {
        let e = refused(extra);
        assert!(e.contains(want), "{extra}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn a_bad_line_of_a_schedule_or_trace_file_is_named_with_the_file_and_line() {
    let dir = std::env::temp_dir();
    let rates = dir.join(format!("cclab-links-{}-rates.txt", std::process::id()));
    std::fs::write(&rates, "# time rate\n0.5s 5Mbps\n1s, 2Mbps\n0.8s 1Mbps\n").unwrap();
    let e = refused(&format!(", rate_schedule = \"{}\"", rates.display()));
    assert!(e.contains(&format!("rate_schedule ({}:4) time: invalid value '0.8s'", rates.display())), "{e}");
    let trace = dir.join(format!("cclab-links-{}-bad.trace", std::process::id()));
    std::fs::write(&trace, "1\n2\nx\n").unwrap();
    let e = refused(&format!(", mahimahi = \"{}\"", trace.display()));
    assert!(e.contains("line 3: 'x' is not a whole number of milliseconds"), "{e}");
    // A good file runs: its steps as the inline ones.
    std::fs::write(&rates, "# time rate\n0.5s 5Mbps\n1s, 2Mbps\n").unwrap();
    let text = format!(
        "duration = \"2s\"\n[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", rate_schedule = \"{}\" }}\n[[udp]]\nrate = \"20Mbps\"\n",
        rates.display()
    );
    let mut b = build(&text);
    b.sim.run_until(SimTime::from_secs_f64(1.0));
    let at1 = b.sim.links[0].tx_bytes;
    b.sim.run_until(SimTime::from_secs_f64(2.0));
    assert!((b.sim.links[0].tx_bytes - at1).abs_diff(250_000) <= 1500);
    std::fs::remove_file(rates).ok();
    std::fs::remove_file(trace).ok();
}

#[test]
fn relative_paths_are_resolved_against_the_scenario_directory() {
    let mut sc = Scenario::from_toml(
        "duration = \"1s\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"1ms\", mahimahi = \"traces/a.trace\", loss_schedule = \"/abs/l.txt\" }\n[[udp]]\nrate = \"1Mbps\"\n",
    )
    .unwrap();
    sc.resolve_paths(std::path::Path::new("/data/study"));
    let b = sc.topology.bottleneck.as_ref().unwrap();
    assert_eq!(b.mahimahi.as_deref(), Some("/data/study/traces/a.trace"));
    assert!(matches!(&b.loss_schedule, Some(cclab_sim::scenario::Schedule::File(p)) if p == "/abs/l.txt"));
}

#[test]
fn gilbert_elliott_loss_on_a_link_drops_its_stationary_share() {
    // p = 0.02, r = 0.3, everything lost in the bad state: 0.02 / 0.32 = 6.25 % of the packets.
    let text = r#"
duration = "20s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "100pkts", gilbert_elliott = { p = 0.02, r = 0.3 } }
[[udp]]
rate = "5Mbps"
"#;
    let mut b = build(text);
    b.sim.run_until(SimTime::from_secs_f64(20.0));
    let n = b.sim.links[0].qstats.arrivals as f64;
    let share = b.sim.udp[0].drops as f64 / n;
    eprintln!("gilbert-elliott: {share:.4} of {n} packets lost");
    // Bursts make the share vary more than a binomial's: a tolerance of 1.5 points over 12500 packets.
    assert!((share - 0.0625).abs() < 0.015, "share {share}");
}
