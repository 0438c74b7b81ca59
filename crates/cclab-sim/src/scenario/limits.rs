//! The bounds that keep one run within memory and time.
//!
//! Each field is valid on its own; these checks refuse combinations that would
//! exhaust memory (an out-of-memory abort is no error Python can catch: a
//! notebook kernel dies) or make `check` and `run` run for hours before the
//! first event: huge initial windows, samples far denser than the run is long,
//! counts that set up millions of hosts, an unlimited queue fed faster than it
//! drains. Every bound is stated in docs/scenario.md ("Bounds").

use super::*;
use crate::net::topology::dumbbell::{access_core, AccessCore};

/// Packets a run may hold at once by its own configuration (about 130 B each:
/// 4 million is about half a gigabyte).
pub const PACKET_BUDGET: u64 = 4_000_000;
/// Sampling instants of the time series in one run.
pub const MAX_SAMPLES: u64 = 1_000_000;
/// Rows of the time series (instants x sampled flows and queues), about 70 B each.
pub const MAX_SERIES_ROWS: u64 = 10_000_000;
/// Web objects expected in a run (each becomes a TCP flow, about 3 KB).
pub const MAX_WEB_OBJECTS: f64 = 1_000_000.0;
/// Hosts of a run: TCP flows (two hosts each), UDP sources and web servers and clients.
pub const MAX_HOSTS: u64 = 1_000_000;
/// Graph nodes and links.
pub const MAX_NODES: usize = 10_000;
pub const MAX_LINKS: usize = 100_000;
/// Steps of one rate, delay or loss schedule (24 B each).
pub const MAX_SCHEDULE_STEPS: usize = 1_000_000;
/// Lines of the trace and schedule files of one scenario, together (a Mahimahi line is 4 B in
/// memory, a schedule step 24 B, and the text is kept while the scenario is built).
pub const MAX_TRACE_LINES: usize = 10_000_000;
/// Bytes of one trace or schedule file.
pub const MAX_TRACE_FILE_BYTES: u64 = 128_000_000;

/// Bytes that setting up `sc` takes, about (measured: 3 KB a CUBIC flow with its four
/// access links and two hosts; a UDP source or web host 1.5 KB): for the binding to
/// refuse a scenario this process cannot hold before it builds it.
pub fn setup_bytes(sc: &Scenario) -> u64 {
    let flows: u64 = sc.flows.iter().map(|g| g.count.unwrap_or(1) as u64).sum();
    let udp: u64 = sc.udp.iter().map(|u| u.count.unwrap_or(1) as u64).sum();
    let web = sc.web.as_ref().map_or(0, |w| w.servers as u64 + w.clients as u64);
    let links = sc.topology.links.as_ref().map_or(0, |l| l.len() as u64);
    flows.saturating_mul(4096) + (udp + web).saturating_mul(2048) + links.saturating_mul(1024)
}

const WHY: &str = "so that a run fits in memory";

pub(super) fn check(
    sc: &Scenario,
    duration: SimTime,
    sample_interval: Option<SimTime>,
    groups: &[GroupSettings],
    udps: &[UdpSettings],
    web: Option<&WebSettings>,
) -> Result<(), ScenarioError> {
    // The initial windows leave at once: the flows' first round holds all of them.
    let mut window = 0f64;
    for (i, g) in groups.iter().enumerate() {
        window += g.count as f64 * g.tcp.init_cwnd;
        if window > PACKET_BUDGET as f64 {
            return Err(err(
                format!("flows[{i}].init_cwnd"),
                g.tcp.init_cwnd,
                format!(
                    "initial windows of all flows (count x init_cwnd) of at most {PACKET_BUDGET} packets in all, {WHY}"
                ),
            ));
        }
    }
    let flows: u64 = groups.iter().map(|g| g.count as u64).sum();
    let udp: u64 = udps.iter().map(|u| u.count as u64).sum();
    let (web_hosts, web_objects) = match web {
        None => (0, 0.0),
        Some(w) => {
            let pages = w.cfg.sessions as f64 * w.cfg.pages_per_session as f64;
            (w.servers as u64 + w.clients as u64, pages * w.cfg.objects_per_page.mean().max(1.0))
        }
    };
    let hosts = 2 * flows + udp + web_hosts;
    if hosts > MAX_HOSTS {
        let field = if web_hosts > 0 {
            "web.clients"
        } else if udp > 0 {
            "udp"
        } else {
            "flows"
        };
        return Err(err(
            field,
            format!("({hosts} hosts: 2 per TCP flow, 1 per UDP source and web server or client)"),
            format!("at most {MAX_HOSTS} hosts in all, {WHY}"),
        ));
    }
    if web_objects > MAX_WEB_OBJECTS {
        return Err(err(
            "web.sessions",
            format!("({web_objects:.0} web objects expected: sessions x pages_per_session x objects_per_page.mean)"),
            format!("at most {MAX_WEB_OBJECTS:.0} objects expected, {WHY} (each is a TCP flow)"),
        ));
    }
    if let Some(iv) = sample_interval {
        let samples = duration.0 / iv.0;
        if samples > MAX_SAMPLES {
            let least = SimTime(duration.0.div_ceil(MAX_SAMPLES));
            return Err(err(
                "sample_interval",
                sc.sample_interval.as_deref().unwrap_or_default(),
                format!("at most {MAX_SAMPLES} samples in the run: an interval >= {least} for this duration"),
            ));
        }
        let series = flows + monitored_links(sc);
        if samples.saturating_mul(series) > MAX_SERIES_ROWS {
            return Err(err(
                "sample_interval",
                sc.sample_interval.as_deref().unwrap_or_default(),
                format!(
                    "at most {MAX_SERIES_ROWS} time-series rows ({samples} samples x {series} flows and queues), {WHY}"
                ),
            ));
        }
    }
    graph_counts(sc)?;
    for (i, (u, spec)) in udps.iter().zip(&sc.udp).enumerate() {
        udp_sends(u, &format!("udp[{i}]"), &spec.rate, duration)?;
    }
    if sc.topology.kind == "dumbbell" {
        udp_access_queues(sc, udps, duration)?;
    }
    Ok(())
}

/// The queues sampled in the time series: the bottleneck (both ways at most) or every graph link.
fn monitored_links(sc: &Scenario) -> u64 {
    match &sc.topology.links {
        Some(links) if sc.topology.kind == "graph" => {
            links.iter().map(|l| if l.duplex.unwrap_or(true) { 2 } else { 1 }).sum()
        }
        _ => 2,
    }
}

fn graph_counts(sc: &Scenario) -> Result<(), ScenarioError> {
    if let Some(nodes) = &sc.topology.nodes {
        if nodes.len() > MAX_NODES {
            return Err(err(
                "topology.nodes",
                format!("({} nodes)", nodes.len()),
                format!("at most {MAX_NODES} nodes"),
            ));
        }
    }
    if let Some(links) = &sc.topology.links {
        if links.len() > MAX_LINKS {
            return Err(err(
                "topology.links",
                format!("({} links)", links.len()),
                format!("at most {MAX_LINKS} links"),
            ));
        }
    }
    Ok(())
}

/// A UDP source must send at least one packet while it is on: "0.5bps" would run and send nothing.
fn udp_sends(u: &UdpSettings, p: &str, written: &str, duration: SimTime) -> Result<(), ScenarioError> {
    let active = u.stop.unwrap_or(duration).min(duration).saturating_sub(u.start);
    let interval = u.rate.tx_time(u.size);
    if interval > active {
        // The least rate that sends one packet in the active time, rounded up.
        let least = (u.size as f64 * 8.0 / active.secs_f64().max(1e-12)).ceil();
        return Err(err(
            format!("{p}.rate"),
            written,
            format!("a rate that sends one {}B packet while the source is on (>= {least}bps)", u.size),
        ));
    }
    Ok(())
}

/// On a dumbbell, a UDP source faster than its access link with an unlimited
/// access buffer grows that queue by the difference for the whole run: refuse
/// it when the growth of all such queues together would pass the packet budget.
fn udp_access_queues(sc: &Scenario, udps: &[UdpSettings], duration: SimTime) -> Result<(), ScenarioError> {
    let Ok(AccessCore { b_rate, .. }) = access_core(sc) else { return Ok(()) };
    let mut growth = 0f64;
    for (i, (u, spec)) in udps.iter().zip(&sc.udp).enumerate() {
        let p = format!("udp[{i}]");
        let unlimited = match spec.access_buffer.as_deref() {
            None => true,
            Some(s) => buffer(&format!("{p}.access_buffer"), s)? == BufferSize::Unlimited,
        };
        let access = match spec.access_rate.as_deref() {
            None => Rate(b_rate.0.saturating_mul(10)),
            Some(s) => rate(&format!("{p}.access_rate"), s)?,
        };
        if !unlimited || u.rate <= access {
            continue;
        }
        let mut active = u.stop.unwrap_or(duration).min(duration).saturating_sub(u.start).secs_f64();
        if let Some((on, off)) = u.on_off {
            active *= on.mean() / (on.mean() + off.mean()).max(f64::MIN_POSITIVE);
        }
        growth += (u.rate.0 - access.0) as f64 / 8.0 / u.size as f64 * active * u.count as f64;
        if growth > PACKET_BUDGET as f64 {
            return Err(err(
                format!("{p}.rate"),
                &spec.rate,
                format!(
                    "a rate at most the access link's ({} bps), or a finite access_buffer: with an unlimited \
                     access buffer the queue grows by the difference, to {growth:.0} packets in this run, beyond \
                     the {PACKET_BUDGET}-packet budget {WHY}",
                    access.0
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
        duration = "10s"
        [topology]
        bottleneck = { rate = "100Mbps", delay = "10ms" }
        [[flows]]
        cc = "newreno"
    "#;

    fn bad(text: &str) -> ScenarioError {
        match Scenario::from_toml(text) {
            Err(e) => e,
            Ok(sc) => sc.build(1).err().expect("expected an error"),
        }
    }

    #[test]
    fn the_base_scenario_is_within_every_bound() {
        assert!(Scenario::from_toml(BASE).unwrap().build(1).is_ok());
    }

    #[test]
    fn huge_initial_windows_are_refused_alone_and_together() {
        let e = bad(&format!("{BASE}init_cwnd = 1e9"));
        assert_eq!(e.field, "flows[0].init_cwnd");
        assert!(e.accepted.contains("4000000"), "{e}");
        // Each within the budget, together beyond it.
        let e = bad(&format!("{BASE}init_cwnd = 1e6\ncount = 5"));
        assert_eq!(e.field, "flows[0].init_cwnd");
        assert!(e.accepted.contains("count x init_cwnd"), "{e}");
    }

    #[test]
    fn samples_far_denser_than_the_run_are_refused() {
        let e = bad(&format!("sample_interval = \"1ps\"\n{BASE}"));
        assert_eq!(e.field, "sample_interval");
        assert!(e.accepted.contains("0.00001s"), "{e}");
        // 1e5 samples x 200 flows (+2 queues) = 2e7 rows.
        let e = bad(&format!("sample_interval = \"100us\"\n{BASE}count = 200"));
        assert!(e.accepted.contains("time-series rows"), "{e}");
        assert!(Scenario::from_toml(&format!("sample_interval = \"10us\"\n{BASE}")).unwrap().build(1).is_ok());
    }

    #[test]
    fn udp_sources_that_send_nothing_or_outgrow_memory_are_refused() {
        let e = bad(&format!("{BASE}[[udp]]\nrate = \"100bps\""));
        assert_eq!(e.field, "udp[0].rate");
        assert!(e.accepted.contains(">= 800bps"), "{e}");
        // 100 Gbit/s into the default 1 Gbit/s access link with the default unlimited buffer.
        let e = bad(&format!("{BASE}[[udp]]\nrate = \"100Gbps\""));
        assert_eq!(e.field, "udp[0].rate");
        assert!(e.accepted.contains("finite access_buffer"), "{e}");
        assert!(Scenario::from_toml(&format!("{BASE}[[udp]]\nrate = \"100Gbps\"\naccess_buffer = \"100pkts\""))
            .unwrap()
            .build(1)
            .is_ok());
    }

    #[test]
    fn web_traffic_beyond_the_object_budget_is_refused_before_it_is_drawn() {
        let web = r#"
            [web]
            sessions = 10000000
            pages_per_session = 10000000
            inter_page = { dist = "constant", value = 1 }
            objects_per_page = { dist = "constant", value = 3 }
            inter_object = { dist = "constant", value = 0.1 }
            object_size = { dist = "constant", value = 1000 }
            servers = 1
            clients = 1
        "#;
        let e = bad(&format!("{BASE}{web}"));
        assert_eq!(e.field, "web.sessions");
    }

    #[test]
    fn nan_and_infinities_are_refused_with_their_path_not_read_as_unset() {
        for (field, line) in [
            ("flows[0].init_cwnd", "init_cwnd = nan"),
            ("flows[0].rwnd", "rwnd = inf"),
            ("flows[0].init_ssthresh", "init_ssthresh = -inf"),
            ("flows[0].cc_params.beta", "cc_params = { beta = nan }"),
        ] {
            let e = bad(&format!("{BASE}{line}"));
            assert_eq!(e.field, field);
            assert!(e.accepted.contains("finite"), "{e}");
        }
        let e = bad(&BASE.replace("delay = \"10ms\"", "delay = \"10ms\", loss = nan"));
        assert_eq!(e.field, "topology.bottleneck.loss");
    }

    #[test]
    fn every_message_is_one_bounded_line() {
        let long = "x".repeat(100_000);
        let e = bad(&BASE.replace("100Mbps", &long));
        let text = e.to_string();
        assert!(!text.contains('\n') && text.chars().count() < 700, "{} chars", text.len());
        assert!(e.value.ends_with('…'));
        let e = bad(&format!("{BASE}\"{long}\" = 1"));
        assert!(e.to_string().chars().count() < 700);
        let e = bad("duration = \"1s\"\n[topology\nbottleneck = 3\n\n\n");
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
