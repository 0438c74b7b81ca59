//! Metrics counted in Rust while the simulation runs: sampled time series
//! stored column-wise (one vector per column, no per-row objects), handed to
//! Python as arrays; and the fairness index.

use crate::net::link::QueueStats;
use crate::queue::QueueDisc;
use crate::tcp::Sender;
use crate::units::SimTime;

/// Per-flow samples, one row per (time, flow).
#[derive(Clone, Debug, Default)]
pub struct FlowSeries {
    /// Seconds.
    pub time: Vec<f64>,
    pub flow: Vec<u32>,
    /// Packets.
    pub cwnd: Vec<f64>,
    /// Packets (infinite before the first loss).
    pub ssthresh: Vec<f64>,
    /// Smoothed RTT, seconds.
    pub srtt: Vec<f64>,
    /// Latest RTT sample, seconds.
    pub rtt: Vec<f64>,
    /// Bytes delivered in order so far.
    pub delivered_bytes: Vec<u64>,
    /// Goodput over the last sampling interval, bit/s.
    pub goodput_bps: Vec<f64>,
}

impl FlowSeries {
    pub fn push(&mut self, now: SimTime, flow: u32, s: &Sender, delivered: u64, goodput: f64) {
        self.time.push(now.secs_f64());
        self.flow.push(flow);
        self.cwnd.push(s.cwnd);
        self.ssthresh.push(s.ssthresh);
        self.srtt.push(s.rtt.srtt().secs_f64());
        self.rtt.push(s.rtt.latest.secs_f64());
        self.delivered_bytes.push(delivered);
        self.goodput_bps.push(goodput);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// The congestion controls' own state, one row per (time, flow) for the flows whose
/// algorithm shows one (`CongestionControl::observe`; BBR's mode, gains and estimates).
#[derive(Clone, Debug, Default)]
pub struct CcSeries {
    /// Seconds.
    pub time: Vec<f64>,
    pub flow: Vec<u32>,
    pub state: Vec<&'static str>,
    /// The sender's pacing rate, bit/s (NaN: not paced).
    pub pacing_rate_bps: Vec<f64>,
    pub pacing_gain: Vec<f64>,
    pub cwnd_gain: Vec<f64>,
    /// The algorithm's bandwidth estimate, bit/s.
    pub bw_bps: Vec<f64>,
    /// Its min-RTT estimate, seconds (NaN: none yet).
    pub min_rtt_s: Vec<f64>,
}

impl CcSeries {
    /// Adds the sender's row if its algorithm shows a state.
    pub fn push(&mut self, now: SimTime, flow: u32, s: &Sender) {
        let Some(o) = s.cc.observe() else { return };
        self.time.push(now.secs_f64());
        self.flow.push(flow);
        self.state.push(o.state);
        self.pacing_rate_bps.push(s.pacer.rate.map_or(f64::NAN, |r| r.0 as f64));
        self.pacing_gain.push(o.pacing_gain);
        self.cwnd_gain.push(o.cwnd_gain);
        self.bw_bps.push(o.bw_bps);
        self.min_rtt_s.push(o.min_rtt.map_or(f64::NAN, |t| t.secs_f64()));
    }
}

/// Per-queue samples, one row per (time, link).
#[derive(Clone, Debug, Default)]
pub struct QueueSeries {
    pub time: Vec<f64>,
    pub link: Vec<u32>,
    pub len_pkts: Vec<u64>,
    pub len_bytes: Vec<u64>,
    /// Link throughput over the last sampling interval, bit/s.
    pub throughput_bps: Vec<f64>,
    /// The AQM's moving average of the length, packets (NaN for DropTail).
    pub avg_pkts: Vec<f64>,
    /// The AQM's current max_p (NaN for DropTail).
    pub max_p: Vec<f64>,
    /// Packets that arrived at the queue since the start, and of them dropped (all causes).
    pub arrivals: Vec<u64>,
    pub drops: Vec<u64>,
}

impl QueueSeries {
    pub fn push(&mut self, now: SimTime, link: u32, q: &dyn QueueDisc, stats: &QueueStats, thr: f64) {
        self.time.push(now.secs_f64());
        self.link.push(link);
        self.len_pkts.push(q.len_pkts() as u64);
        self.len_bytes.push(q.len_bytes());
        self.throughput_bps.push(thr);
        self.avg_pkts.push(q.avg_len().unwrap_or(f64::NAN));
        self.max_p.push(q.max_p().unwrap_or(f64::NAN));
        self.arrivals.push(stats.arrivals);
        self.drops.push(stats.total_drops());
    }
}

/// Jain's fairness index: (Σx)² / (n·Σx²); 1 when all equal, 1/n when one takes all.
pub fn jain(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::jain;

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert!((jain(&[3.0, 3.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // (1+2)^2 / (2 * 5) = 0.9
        assert!((jain(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
    }
}
