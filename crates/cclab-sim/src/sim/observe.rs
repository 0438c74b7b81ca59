//! What the simulation starts and records on its own clock: web objects as they fall due, the
//! sampled time series, and the snapshot of every counter at the end of the warm-up.

use super::*;

/// Where a run's packets are held, for a run stopped for memory to say what grew.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Holdings {
    /// Packets waiting in the links' queues, every kind.
    pub queued: u64,
    /// Segments the senders have sent and not had acknowledged: each keeps a record in its
    /// sender's scoreboard, so a window opened by millions of packets holds millions of them
    /// even where small buffers drop the packets themselves.
    pub outstanding: u64,
    /// The flow with the most outstanding segments, and how many.
    pub largest: Option<(u32, u64)>,
}

impl Holdings {
    /// The senders hold more memory than the queues (their records against the queued packets).
    pub fn senders_dominate(&self) -> bool {
        let per_packet = std::mem::size_of::<Packet>() as u64;
        let per_segment = crate::tcp::scoreboard::Scoreboard::BYTES_PER_SEGMENT as u64;
        self.outstanding.saturating_mul(per_segment) > self.queued.saturating_mul(per_packet)
    }
}

impl Simulation {
    /// Where the run's packets are held now (not on the hot path: it walks every link and flow).
    pub fn holdings(&self) -> Holdings {
        let queued = self.links.iter().map(|l| l.queue.len_pkts() as u64).sum();
        let mut h = Holdings { queued, ..Holdings::default() };
        for (i, f) in self.flows.iter().enumerate() {
            let n = f.sender.sb.high() - f.sender.sb.una();
            h.outstanding += n;
            if n > h.largest.map_or(0, |l| l.1) {
                h.largest = Some((i as u32, n));
            }
        }
        h
    }

    /// Starts every web object due now as a finite TCP flow, and schedules the next.
    pub(super) fn start_web_objects(&mut self) {
        let now = self.now;
        loop {
            let Some(w) = self.web.as_mut() else { return };
            let Some(&o) = w.objects.get(w.next) else { return };
            if o.start > now {
                self.events.push(o.start, Event::WebNext);
                return;
            }
            let idx = w.next;
            w.next += 1;
            let (tcp, receiver) = (w.tcp, w.receiver);
            let setup = FlowSetup {
                name: format!("web.{idx}"),
                group: "web".into(),
                cc_name: w.cc_name.clone(),
                src: w.server_nodes[o.server as usize],
                dst: w.client_nodes[o.client as usize],
                tcp,
                receiver,
                cc: {
                    let mut cc = cc::build(&w.cc_name, &w.params).expect("validated when the scenario was built");
                    cc.set_rng(crate::rng::stream_rng(w.seed, crate::rng::stream::CC, (1 << 32) + idx as u64));
                    cc
                },
                start: now,
                stop: None,
                size_pkts: Some(o.size_bytes.div_ceil(tcp.mss as u64)),
                overhead: SimTime::ZERO,
                rng: crate::rng::stream_rng(0, 0, 0),
            };
            let f = self.add_flow(setup).expect("web hosts are connected when the scenario is built");
            self.flows[f as usize].web_object = Some(idx as u32);
            if let Some(w) = self.web.as_mut() {
                w.flow_of[idx] = Some(f);
            }
            let mut out = std::mem::take(&mut self.out);
            self.flows[f as usize].sender.start(now, &mut out);
            self.emit(&mut out);
            self.out = out;
            self.sync_timers(f);
        }
    }

    pub(super) fn sample(&mut self) {
        let now = self.now;
        let dt = (now - self.last_sample_time).secs_f64();
        for &i in &self.sampled {
            let f = &mut self.flows[i as usize];
            let bytes = f.receiver.stats.delivered_bytes;
            let goodput = if dt > 0.0 { (bytes - f.last_sample_bytes) as f64 * 8.0 / dt } else { 0.0 };
            f.last_sample_bytes = bytes;
            self.flow_series.push(now, i, &f.sender, bytes, goodput);
            self.cc_series.push(now, i, &f.sender);
        }
        for &l in &self.monitored {
            let link = &self.links[l as usize];
            let tx = link.tx_bytes;
            let thr = if dt > 0.0 { (tx - self.last_sample_tx[l as usize]) as f64 * 8.0 / dt } else { 0.0 };
            self.last_sample_tx[l as usize] = tx;
            self.queue_series.push(now, l, link.queue.as_ref(), &link.qstats, thr);
        }
        self.last_sample_time = now;
        self.next_sample = SimTime::MAX;
        if let Some(iv) = self.sample_interval {
            self.events.push(now + iv, Event::Sample);
            self.next_sample = now + iv;
        }
    }

    pub(super) fn snapshot_warmup(&mut self) {
        for f in &mut self.flows {
            f.at_warmup = FlowSnapshot {
                delivered_bytes: f.receiver.stats.delivered_bytes,
                sent: f.sender.stats.sent,
                retransmits: f.sender.stats.retransmits,
                timeouts: f.sender.stats.timeouts,
                data_drops: f.counters.data_drops,
            };
        }
        let now = self.now;
        for (i, l) in self.links.iter().enumerate() {
            let mut qstats = l.qstats;
            qstats.advance(now, l.queue.len_pkts(), l.queue.len_bytes());
            self.link_at_warmup[i] = LinkSnapshot {
                busy_time: l.busy_time,
                tx_bytes: l.tx_bytes,
                drops: l.qstats.total_drops(),
                arrivals: l.qstats.arrivals,
                qstats,
            };
        }
    }
}
