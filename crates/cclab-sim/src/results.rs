//! Results as column-wise tables: per flow, per queue, per link, and the
//! sampled time series. The Python layer turns each into a DataFrame
//! without per-row objects.

use crate::metrics::jain;
use crate::sim::Simulation;
use crate::units::SimTime;

/// Columns compare bit for bit (so NaN equals NaN): "same results" means the same bits.
#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
}

impl PartialEq for Column {
    fn eq(&self, o: &Self) -> bool {
        match (self, o) {
            (Column::F64(a), Column::F64(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Column::U64(a), Column::U64(b)) => a == b,
            (Column::Str(a), Column::Str(b)) => a == b,
            _ => false,
        }
    }
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    fn f64(&mut self, name: &'static str, v: Vec<f64>) {
        self.columns.push((name, Column::F64(v)));
    }
    fn u64(&mut self, name: &'static str, v: Vec<u64>) {
        self.columns.push((name, Column::U64(v)));
    }
    fn str(&mut self, name: &'static str, v: Vec<String>) {
        self.columns.push((name, Column::Str(v)));
    }

    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }

    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }

    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Everything a run produces.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    pub flows: Table,
    pub queues: Table,
    pub links: Table,
    pub flow_series: Table,
    pub queue_series: Table,
    /// The algorithms' own state over time (flows whose algorithm shows one; BBR).
    pub cc_series: Table,
    /// Scalar results: bottleneck utilization, total goodput, Jain's index, drops, events...
    pub summary: Vec<(&'static str, f64)>,
    /// UDP sources, one row each.
    pub udp: Table,
    /// Web objects, one row each, with their response times.
    pub web: Table,
    /// The trace's packet events (crate::trace); no rows without a `[trace]`.
    pub packets: Table,
    /// The traced senders' state after each ACK and timer; no rows without a `[trace]`.
    pub sender: Table,
}

impl PartialEq for RunOutput {
    fn eq(&self, o: &Self) -> bool {
        self.flows == o.flows
            && self.queues == o.queues
            && self.links == o.links
            && self.flow_series == o.flow_series
            && self.queue_series == o.queue_series
            && self.cc_series == o.cc_series
            && self.udp == o.udp
            && self.web == o.web
            && self.packets == o.packets
            && self.sender == o.sender
            && self.summary.len() == o.summary.len()
            && self.summary.iter().zip(&o.summary).all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
    }
}

impl RunOutput {
    pub fn summary_value(&self, name: &str) -> Option<f64> {
        self.summary.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// Collects the results of a simulation that has run until `end`.
pub fn collect(sim: &Simulation, end: SimTime) -> RunOutput {
    let warm = sim.warmup;
    let window = (end - warm).secs_f64();
    let mut out = RunOutput::default();

    // Flows.
    // Web objects are reported in their own table, not as flows.
    let fl: Vec<&crate::sim::Flow> = sim.flows.iter().filter(|f| f.web_object.is_none()).collect();
    let mut t = Table::default();
    let goodput: Vec<f64> = fl
        .iter()
        .map(|f| {
            let from = f.start.max(warm);
            let to = f.sender.completed_at.unwrap_or(end).min(end);
            let secs = to.saturating_sub(from).secs_f64();
            let bytes = f.receiver.stats.delivered_bytes - f.at_warmup.delivered_bytes;
            if secs > 0.0 {
                bytes as f64 * 8.0 / secs
            } else {
                0.0
            }
        })
        .collect();
    t.u64("flow", (0..fl.len() as u64).collect());
    t.str("name", fl.iter().map(|f| f.name.clone()).collect());
    t.str("group", fl.iter().map(|f| f.group.clone()).collect());
    t.str("cc", fl.iter().map(|f| f.cc_name.clone()).collect());
    t.str("recovery", fl.iter().map(|f| f.sender.cfg.recovery.name().to_string()).collect());
    t.f64("start_s", fl.iter().map(|f| f.start.secs_f64()).collect());
    t.f64("base_rtt_s", fl.iter().map(|f| f.base_rtt.secs_f64()).collect());
    t.u64("packet_size", fl.iter().map(|f| f.sender.cfg.mss as u64).collect());
    t.u64("sent_pkts", fl.iter().map(|f| f.sender.stats.sent).collect());
    t.u64("retransmits", fl.iter().map(|f| f.sender.stats.retransmits).collect());
    t.u64("timeouts", fl.iter().map(|f| f.sender.stats.timeouts).collect());
    t.u64("fast_retransmits", fl.iter().map(|f| f.sender.stats.fast_retransmits).collect());
    t.u64("ecn_reductions", fl.iter().map(|f| f.sender.stats.ecn_reductions).collect());
    t.u64("drops", fl.iter().map(|f| f.counters.data_drops).collect());
    t.f64(
        "loss_rate",
        fl.iter()
            .map(|f| {
                let sent = f.sender.stats.sent - f.at_warmup.sent;
                let drops = f.counters.data_drops - f.at_warmup.data_drops;
                if sent > 0 {
                    drops as f64 / sent as f64
                } else {
                    0.0
                }
            })
            .collect(),
    );
    t.u64("delivered_pkts", fl.iter().map(|f| f.receiver.stats.delivered).collect());
    t.u64("delivered_bytes", fl.iter().map(|f| f.receiver.stats.delivered_bytes).collect());
    t.f64("goodput_bps", goodput.clone());
    t.f64("rtt_min_s", fl.iter().map(|f| f.sender.rtt.rtt_min.secs_f64()).collect());
    t.f64("rtt_mean_s", fl.iter().map(|f| f.sender.rtt.mean()).collect());
    t.f64("rtt_max_s", fl.iter().map(|f| f.sender.rtt.rtt_max.secs_f64()).collect());
    t.f64("cwnd_final", fl.iter().map(|f| f.sender.cwnd).collect());
    t.f64(
        "completion_s",
        fl.iter().map(|f| f.sender.completed_at.map_or(f64::NAN, |c| (c - f.start).secs_f64())).collect(),
    );
    // The counts over the measured window [warmup, end], beside the whole run's above (a
    // start-up's drops would otherwise sit beside a loss rate that leaves them out).
    t.u64("drops_measured", fl.iter().map(|f| f.counters.data_drops - f.at_warmup.data_drops).collect());
    t.u64("retransmits_measured", fl.iter().map(|f| f.sender.stats.retransmits - f.at_warmup.retransmits).collect());
    t.u64("timeouts_measured", fl.iter().map(|f| f.sender.stats.timeouts - f.at_warmup.timeouts).collect());
    // goodput_bps counts packets on the wire; this, the TCP payload they carry: the packet less
    // 40 bytes of IPv4 and TCP headers and 12 of the timestamps option when the flow uses it
    // (the headers trace/pcap.rs writes).
    t.f64(
        "payload_goodput_bps",
        fl.iter()
            .zip(&goodput)
            .map(|(f, g)| {
                let mss = f.sender.cfg.mss as f64;
                let headers = if f.sender.cfg.timestamps { 52.0 } else { 40.0 };
                g * ((mss - headers).max(1.0) / mss)
            })
            .collect(),
    );
    out.flows = t;

    // Queues and links.
    let ls = &sim.links;
    let mut q = Table::default();
    q.u64("link", (0..ls.len() as u64).collect());
    q.str("name", ls.iter().map(|l| l.name.clone()).collect());
    q.str("role", ls.iter().map(|l| l.role.to_string()).collect());
    q.u64("arrivals", ls.iter().map(|l| l.qstats.arrivals).collect());
    q.u64("departures", ls.iter().map(|l| l.qstats.departures).collect());
    q.u64("drops", ls.iter().map(|l| l.qstats.total_drops()).collect());
    q.u64("drops_overflow", ls.iter().map(|l| l.qstats.drops[0]).collect());
    q.u64("drops_early", ls.iter().map(|l| l.qstats.drops[1]).collect());
    q.u64("drops_link", ls.iter().map(|l| l.qstats.drops[2]).collect());
    q.u64("marks", ls.iter().map(|l| l.queue.marks()).collect());
    // Means over [warmup, end]: the integrals are brought up to `end` on a copy, less their
    // values at the warmup (a default snapshot, all zero, without one).
    let at_warm = |i: usize| sim.link_at_warmup.get(i).map(|w| w.qstats).unwrap_or_default();
    let up_to_end = |l: &crate::net::link::Link| {
        let mut s = l.qstats;
        s.advance(end, l.queue.len_pkts(), l.queue.len_bytes());
        s
    };
    let mean_pkts: Vec<f64> =
        ls.iter().enumerate().map(|(i, l)| up_to_end(l).mean_pkts_since(&at_warm(i), end)).collect();
    let mean_bytes: Vec<f64> =
        ls.iter().enumerate().map(|(i, l)| up_to_end(l).mean_bytes_since(&at_warm(i), end)).collect();
    // Little's law: mean waiting time = mean number waiting / departure rate.
    let mean_delay: Vec<f64> = ls
        .iter()
        .enumerate()
        .zip(&mean_pkts)
        .map(|((i, l), &n)| {
            let w = at_warm(i);
            let span = end.secs_f64() - w.updated_at().secs_f64();
            let rate = if span > 0.0 { (l.qstats.departures - w.departures) as f64 / span } else { 0.0 };
            if rate > 0.0 {
                n / rate
            } else {
                0.0
            }
        })
        .collect();
    q.f64("mean_len_pkts", mean_pkts.clone());
    q.f64("mean_len_bytes", mean_bytes);
    q.u64("max_len_pkts", ls.iter().map(|l| l.qstats.max_pkts).collect());
    q.u64("max_len_bytes", ls.iter().map(|l| l.qstats.max_bytes).collect());
    q.f64("mean_delay_s", mean_delay);
    q.u64("len_pkts_end", ls.iter().map(|l| l.queue.len_pkts() as u64).collect());
    // Drops per arriving packet over [warmup, end], like the means: a run's start-up (slow start
    // overshooting the buffer) does not weigh on it.
    q.f64(
        "loss_rate",
        ls.iter()
            .enumerate()
            .map(|(i, l)| {
                let w = sim.link_at_warmup.get(i).copied().unwrap_or_default();
                let arrivals = l.qstats.arrivals - w.arrivals;
                if arrivals > 0 {
                    (l.qstats.total_drops() - w.drops) as f64 / arrivals as f64
                } else {
                    0.0
                }
            })
            .collect(),
    );
    out.queues = q;

    let util: Vec<f64> = ls
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let w = sim.link_at_warmup.get(i).copied().unwrap_or_default();
            // Busy time already booked past `end` (the packet on the transmitter) is not counted.
            let busy = l.busy_time.saturating_sub(w.busy_time).saturating_sub(l.busy_until.saturating_sub(end));
            if window > 0.0 {
                (busy.secs_f64() / window).min(1.0)
            } else {
                0.0
            }
        })
        .collect();
    let mut k = Table::default();
    k.u64("link", (0..ls.len() as u64).collect());
    k.str("name", ls.iter().map(|l| l.name.clone()).collect());
    k.str("role", ls.iter().map(|l| l.role.to_string()).collect());
    k.u64("from", ls.iter().map(|l| l.from as u64).collect());
    k.u64("to", ls.iter().map(|l| l.to as u64).collect());
    k.u64("rate_bps", ls.iter().map(|l| l.rate.bps()).collect());
    k.f64("delay_s", ls.iter().map(|l| l.delay.secs_f64()).collect());
    k.u64("tx_pkts", ls.iter().map(|l| l.tx_pkts).collect());
    k.u64("tx_bytes", ls.iter().map(|l| l.tx_bytes).collect());
    k.f64("utilization", util.clone());
    out.links = k;

    let s = &sim.flow_series;
    let mut fs = Table::default();
    fs.f64("time_s", s.time.clone());
    fs.u64("flow", s.flow.iter().map(|&x| x as u64).collect());
    fs.f64("cwnd", s.cwnd.clone());
    fs.f64("ssthresh", s.ssthresh.clone());
    fs.f64("srtt_s", s.srtt.clone());
    fs.f64("rtt_s", s.rtt.clone());
    fs.u64("delivered_bytes", s.delivered_bytes.clone());
    fs.f64("goodput_bps", s.goodput_bps.clone());
    out.flow_series = fs;

    let s = &sim.cc_series;
    let mut cs = Table::default();
    cs.f64("time_s", s.time.clone());
    cs.u64("flow", s.flow.iter().map(|&x| x as u64).collect());
    cs.str("state", s.state.iter().map(|x| x.to_string()).collect());
    cs.f64("pacing_rate_bps", s.pacing_rate_bps.clone());
    cs.f64("pacing_gain", s.pacing_gain.clone());
    cs.f64("cwnd_gain", s.cwnd_gain.clone());
    cs.f64("bw_bps", s.bw_bps.clone());
    cs.f64("min_rtt_s", s.min_rtt_s.clone());
    out.cc_series = cs;

    let s = &sim.queue_series;
    let mut qs = Table::default();
    qs.f64("time_s", s.time.clone());
    qs.u64("link", s.link.iter().map(|&x| x as u64).collect());
    qs.u64("len_pkts", s.len_pkts.clone());
    qs.u64("len_bytes", s.len_bytes.clone());
    qs.f64("throughput_bps", s.throughput_bps.clone());
    qs.f64("avg_pkts", s.avg_pkts.clone());
    qs.f64("max_p", s.max_p.clone());
    qs.u64("arrivals", s.arrivals.clone());
    qs.u64("drops", s.drops.clone());
    out.queue_series = qs;

    // Summary.
    let bottleneck = ls.iter().position(|l| l.role == "bottleneck");
    let (sent, received, dropped, queued, wired) = sim.data_accounting();
    let mut sm = vec![
        ("duration_s", end.secs_f64()),
        ("warmup_s", warm.secs_f64()),
        ("flows", fl.len() as f64),
        ("total_goodput_bps", goodput.iter().sum()),
        ("jain_index", jain(&goodput)),
        ("data_sent", sent as f64),
        ("data_received", received as f64),
        ("data_dropped", dropped as f64),
        ("data_in_queues", queued as f64),
        ("data_on_wires", wired as f64),
        ("timeouts", fl.iter().map(|f| f.sender.stats.timeouts as f64).sum()),
        ("events", sim.events_handled as f64),
    ];
    if let Some(b) = bottleneck {
        sm.push(("bottleneck_utilization", util[b]));
        sm.push(("bottleneck_drops", ls[b].qstats.total_drops() as f64));
        sm.push(("bottleneck_mean_queue_pkts", mean_pkts[b]));
    }
    out.summary = sm;
    out.udp = udp_table(sim, end);
    out.web = web_table(sim);
    out.packets = crate::trace::packets_table(sim.trace());
    out.sender = crate::trace::sender_table(sim.trace());
    out
}

fn udp_table(sim: &Simulation, end: SimTime) -> Table {
    let u = &sim.udp;
    let mut t = Table::default();
    t.str("name", u.iter().map(|f| f.name.clone()).collect());
    t.str("group", u.iter().map(|f| f.group.clone()).collect());
    t.f64("start_s", u.iter().map(|f| f.start.secs_f64()).collect());
    t.u64("packet_size", u.iter().map(|f| f.size as u64).collect());
    t.u64("sent_pkts", u.iter().map(|f| f.sent).collect());
    t.u64("received_pkts", u.iter().map(|f| f.received).collect());
    t.u64("drops", u.iter().map(|f| f.drops).collect());
    t.f64(
        "throughput_bps",
        u.iter()
            .map(|f| {
                let secs = end.saturating_sub(f.start).secs_f64();
                if secs > 0.0 {
                    f.received_bytes as f64 * 8.0 / secs
                } else {
                    0.0
                }
            })
            .collect(),
    );
    t
}

fn web_table(sim: &Simulation) -> Table {
    let mut t = Table::default();
    // Only objects that have started (none without web traffic: the columns are still there).
    let started: Vec<usize> = match &sim.web {
        Some(w) => (0..w.objects.len()).filter(|&i| w.flow_of[i].is_some()).collect(),
        None => Vec::new(),
    };
    let obj = |i: usize| sim.web.as_ref().expect("started objects imply web traffic").objects[i];
    let flow = |i: usize| {
        let w = sim.web.as_ref().expect("started objects imply web traffic");
        &sim.flows[w.flow_of[i].expect("started") as usize]
    };
    t.u64("object", started.iter().map(|&i| i as u64).collect());
    t.u64("session", started.iter().map(|&i| obj(i).session as u64).collect());
    t.u64("page", started.iter().map(|&i| obj(i).page as u64).collect());
    t.u64("server", started.iter().map(|&i| obj(i).server as u64).collect());
    t.u64("client", started.iter().map(|&i| obj(i).client as u64).collect());
    t.f64("start_s", started.iter().map(|&i| obj(i).start.secs_f64()).collect());
    t.u64("size_bytes", started.iter().map(|&i| obj(i).size_bytes).collect());
    t.u64("packets", started.iter().map(|&i| flow(i).sender.stats.sent - flow(i).sender.stats.retransmits).collect());
    t.u64("retransmits", started.iter().map(|&i| flow(i).sender.stats.retransmits).collect());
    t.u64("timeouts", started.iter().map(|&i| flow(i).sender.stats.timeouts).collect());
    t.f64(
        "response_s",
        started
            .iter()
            .map(|&i| {
                // From the object's start to the arrival of its last byte at the client.
                let f = flow(i);
                let done = f.sender.completed_at.is_some() || f.receiver.stats.delivered >= f.size_pkts();
                if done {
                    (f.receiver.stats.last_delivery_at - obj(i).start).secs_f64()
                } else {
                    f64::NAN
                }
            })
            .collect(),
    );
    t
}
