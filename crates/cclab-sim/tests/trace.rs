//! Tracing (`[trace]`, src/trace/): it changes no result, its events add up to the counters
//! the results report, events at a link are logged at their own time (the link is kept out
//! of the engine's cut-through), and its bounds are errors naming the field.

use cclab_sim::results::{Column, RunOutput, Table};
use cclab_sim::{dump, results, Scenario};

/// Two SACK flows through a lossy, small bottleneck with `queue`, traced as `trace` says.
fn scenario(queue: &str, extra: &str, flow_extra: &str, trace: &str) -> String {
    format!(
        r#"
duration = "4s"
warmup = "1s"
sample_interval = "500ms"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = "20pkts", queue = "{queue}", loss = 0.01{extra} }}
[[flows]]
cc = "newreno"
recovery = "sack"
rtt = "30ms"
overhead = "0.05ms"
{flow_extra}
[[flows]]
cc = "cubic"
recovery = "sack"
rtt = "50ms"
start = "0.3s"
{flow_extra}
{trace}
"#
    )
}

fn run(text: &str) -> (RunOutput, String) {
    let sc = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let mut b = sc.build(3).unwrap_or_else(|e| panic!("{e}"));
    b.sim.run_until(b.duration);
    assert!(b.sim.trace_error().is_none(), "{:?}", b.sim.trace_error());
    let r = results::collect(&b.sim, b.duration);
    let d = dump::dump(&r, 0, 0);
    (r, d)
}

/// The dump less the event count (the engine's business) and the trace's own tables.
fn results_only(d: &str) -> String {
    d.lines()
        .filter(|l| !l.starts_with("summary.events:") && !l.starts_with("packets.") && !l.starts_with("sender."))
        .collect::<Vec<_>>()
        .join("\n")
}

fn strs<'a>(t: &'a Table, c: &str) -> &'a [String] {
    match t.get(c) {
        Some(Column::Str(v)) => v,
        _ => panic!("no text column {c}"),
    }
}

/// Rows of `packets` with this event (and kind, and link).
fn count(r: &RunOutput, event: &str, kind: Option<&str>, link: Option<u64>) -> usize {
    let p = &r.packets;
    let (ev, kd, lk) = (strs(p, "event"), strs(p, "kind"), p.u64s("link"));
    (0..p.rows())
        .filter(|&i| ev[i] == event && kind.is_none_or(|k| kd[i] == k) && link.is_none_or(|l| lk[i] == l))
        .count()
}

const QUEUES: [(&str, &str, &str); 4] = [
    ("droptail", "", ""),
    ("red", ", queue_params = { ecn = 1 }", "ecn = true"),
    ("codel", ", queue_params = { ecn = 0 }", ""),
    ("fq_codel", "", ""),
];

#[test]
fn a_traced_run_gives_the_untraced_runs_results_bit_for_bit() {
    for (q, extra, fx) in QUEUES {
        let (plain, d0) = run(&scenario(q, extra, fx, ""));
        assert_eq!(plain.packets.rows() + plain.sender.rows(), 0, "no trace, no rows");
        for trace in
            ["[trace]", "[trace]\nflows = [1]\nlinks = [\"bottleneck\"]", "[trace]\nflows = [0]\npackets = false"]
        {
            let (traced, d1) = run(&scenario(q, extra, fx, trace));
            assert!(traced.packets.rows() + traced.sender.rows() > 0, "{q} {trace}");
            assert_eq!(results_only(&d0), results_only(&d1), "{q}: {trace}");
        }
    }
}

#[test]
fn link_events_add_up_to_the_queue_counters_and_sender_events_to_the_flow_counters() {
    for (q, extra, fx) in QUEUES {
        let (r, _) = run(&scenario(q, extra, fx, "[trace]"));
        let names = strs(&r.queues, "name");
        for (l, name) in names.iter().enumerate() {
            let (arrivals, drops, departures, marks) = (
                r.queues.u64s("arrivals")[l] as usize,
                r.queues.u64s("drops")[l] as usize,
                r.queues.u64s("departures")[l] as usize,
                r.queues.u64s("marks")[l] as usize,
            );
            let lk = Some(l as u64);
            let arrival_drops = {
                let p = &r.packets;
                let (ev, cause, link) = (strs(p, "event"), strs(p, "cause"), p.u64s("link"));
                (0..p.rows())
                    .filter(|&i| link[i] == l as u64 && ev[i] == "drop" && !cause[i].starts_with("head"))
                    .count()
            };
            let what = format!("{q} link {name}");
            assert_eq!(count(&r, "enqueue", None, lk) + arrival_drops, arrivals, "{what}");
            assert_eq!(count(&r, "drop", None, lk), drops, "{what}");
            assert_eq!(count(&r, "dequeue", None, lk), departures, "{what}");
            assert_eq!(count(&r, "mark", None, lk), marks, "{what}");
        }
        let f = &r.flows;
        let sent: u64 = f.u64s("sent_pkts").iter().sum();
        let retx: u64 = f.u64s("retransmits").iter().sum();
        let timeouts: u64 = f.u64s("timeouts").iter().sum();
        let delivered_acks = count(&r, "deliver", Some("ack"), None);
        assert_eq!(count(&r, "send", Some("data"), None) as u64, sent, "{q}");
        let p = &r.packets;
        let (ev, kind) = (strs(p, "event"), strs(p, "kind"));
        let retx_sends =
            (0..p.rows()).filter(|&i| ev[i] == "send" && kind[i] == "data" && p.u64s("retx")[i] == 1).count();
        assert_eq!(retx_sends as u64, retx, "{q}");
        assert_eq!(count(&r, "rto", None, None) as u64, timeouts, "{q}");
        assert!(retx > 0, "{q}: the 1 % loss makes retransmissions");
        // One sender row per ACK delivered, one per timer fired.
        let timers = count(&r, "rto", None, None)
            + count(&r, "reorder_timer", None, None)
            + count(&r, "probe_timer", None, None);
        assert_eq!(r.sender.rows(), delivered_acks + timers, "{q}");
    }
}

#[test]
fn a_packet_reaches_the_next_traced_link_one_transmission_and_one_delay_after_it_left() {
    // The receiver's access link follows the bottleneck: without the exclusion from the
    // engine's cut-through its events would be logged when the bottleneck sends the packet.
    let (r, _) = run(&scenario("droptail", "", "", "[trace]\nflows = [0]"));
    let links = &r.links;
    let names = strs(links, "name");
    let bottleneck = strs(links, "role").iter().position(|x| x == "bottleneck").unwrap() as u64;
    let p = &r.packets;
    let (ev, kind, time, seq, link) =
        (strs(p, "event"), strs(p, "kind"), p.f64s("time_s"), p.u64s("seq"), p.u64s("link"));
    let delay = links.f64s("delay_s")[bottleneck as usize];
    let tx = 1500.0 * 8.0 / links.u64s("rate_bps")[bottleneck as usize] as f64;
    let mut checked = 0;
    for i in 0..p.rows() {
        if ev[i] == "dequeue" && kind[i] == "data" && link[i] == bottleneck {
            // The next event of this segment at another link is its arrival there.
            let next = (i + 1..p.rows()).find(|&j| seq[j] == seq[i] && kind[j] == "data" && link[j] != bottleneck);
            let Some(j) = next else { continue };
            if ev[j] != "enqueue" {
                continue;
            }
            assert!(
                (time[j] - (time[i] + tx + delay)).abs() < 1e-9,
                "{} at {}: {} vs {}",
                seq[i],
                names[link[j] as usize],
                time[j],
                time[i]
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn the_record_budget_and_bad_names_are_errors_naming_the_field() {
    let sc = Scenario::from_toml(&scenario("droptail", "", "", "[trace]\nmax_records = 1000")).unwrap();
    let e = cclab_sim::run(&sc, 1).unwrap_err();
    assert_eq!(e.field, "trace.max_records");
    for (trace, field) in [
        ("[trace]\nflows = [7]", "trace.flows[0]"),
        ("[trace]\nflows = [\"nope\"]", "trace.flows[0]"),
        ("[trace]\nlinks = [\"bottleneck\", \"nowhere\"]", "trace.links[1]"),
        ("[trace]\nsnaplen = 10", "trace.snaplen"),
        ("[trace]\nmax_records = 0", "trace.max_records"),
        ("[trace]\npcap = \"/no/such/dir/x.pcapng\"", "trace.pcap"),
    ] {
        let e = Scenario::from_toml(&scenario("droptail", "", "", trace)).unwrap().build(1).err().expect(trace);
        assert_eq!(e.field, field, "{trace}: {e}");
    }
}
