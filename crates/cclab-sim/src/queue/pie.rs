//! PIE, proportional integral controller enhanced (RFC 8033; Pan et al. 2013), with
//! Linux's net/sched/sch_pie.c and ns-3's pie-queue-disc.cc for what the RFC leaves open.
//!
//! Every `tupdate` the drop probability moves with the queueing delay's distance from
//! `target` and its trend (RFC 8033 section 4.2):
//!
//! ```text
//! p = alpha (qdelay − target) + beta (qdelay − qdelay_old)                  (4.2)
//! p /= 2048, 512, 128, 32, 8, 2 while drop_prob < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1
//! p = min(p, 0.02) when drop_prob ≥ 0.1                                      (5.5)
//! drop_prob += p;  drop_prob *= 0.98 when qdelay = qdelay_old = 0;  drop_prob in [0, 1]
//! ```
//!
//! On arrival (section 4.1) a packet is dropped with probability `drop_prob`, except while
//! the burst allowance lasts (section 4.4: `max_burst` at the start and again whenever
//! `drop_prob` = 0 and both delays are below target/2; it shrinks by `tupdate` per update),
//! when the queue is uncongested (`qdelay_old` < target/2 and `drop_prob` < 0.2), or when at
//! most two packets' worth of bytes wait. With `ecn = 1` an ECN-capable packet is marked CE
//! instead while `drop_prob` < `mark_ecnth` (section 5.1). A full buffer drops (overflow).
//!
//! Choices where the RFC is silent or the sources differ:
//! - The queueing delay is the sojourn time of the packet last dequeued (0 when it left the
//!   queue empty), from enqueue timestamps, as Linux and ns-3 do by default.
//!   `dq_rate_estimator = 1` gives section 5.2's departure-rate estimate instead: from a
//!   backlog of 16384 bytes, the time to dequeue 16384 bytes, averaged with weight 1/4,
//!   and `qdelay = backlog x that time / 16384` (Linux averages the rate with weight 1/8,
//!   ns-3 with 1/2). A measurement starts after the packet that finds the backlog large
//!   enough has left, so that packet is not counted in it.
//! - The update runs on the grid `k tupdate` (ns-3's timer; Linux starts 0.5 s in), done
//!   lazily when a packet arrives or leaves: nothing changes between packets, so catching
//!   up is exact, and an idle queue costs no events.
//! - The probability keeps its updates during the burst allowance (the RFC's pseudocode;
//!   ns-3 holds it at 0 then and arms the allowance on the first arrival instead).
//! - Derandomization (section 5.4, Linux's always) is off by default (`derandomize = 1`):
//!   the basic scheme drops each packet independently, as ns-3 does by default.
//! - The "two packets" safeguard counts bytes against 2 `mean_pktsize` (the RFC's
//!   `MEAN_PKTSIZE`, default the flows' data packet size; Linux compares with 2 MTU, ns-3
//!   with 2 packets).
//! - Linux's extra 2 % per update above 250 ms of delay is not in the RFC and not here;
//!   neither are byte mode and section 5.3's activation threshold.
//! - The decay multiplies by 0.98 (the RFC; Linux subtracts 1/64).
//!
//! Parameters (`queue_params`): `target` 0.015 s, `tupdate` 0.015 s, `alpha` 0.125 /s,
//! `beta` 1.25 /s, `max_burst` 0.15 s, `ecn` 0, `mark_ecnth` 0.1, `derandomize` 0,
//! `dq_rate_estimator` 0, `cap_drop_adjustment` 1, `mean_pktsize` (bytes).

use super::codel::{CodelQueue, TimedFifo};
use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::{Packet, CE, ECT};
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::rng::{self, stream_rng};
use crate::units::SimTime;
use rand::Rng;
use rand_pcg::Pcg64;

/// Bytes of a dequeue-rate measurement (RFC 8033 section 5.2 `DQ_THRESHOLD`, 2^14).
pub const DQ_THRESHOLD: u64 = 16384;
/// Weight of a new measurement in the average dequeue time (`DQ_THRESHOLD / 2^16`).
const DQ_WEIGHT: f64 = 0.25;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieConfig {
    /// Target queueing delay (`QDELAY_REF`).
    pub target: SimTime,
    /// Period of the probability update (`T_UPDATE`).
    pub tupdate: SimTime,
    /// Weight of the delay's distance from target, 1/s.
    pub alpha: f64,
    /// Weight of the delay's trend, 1/s.
    pub beta: f64,
    /// Burst allowance (`MAX_BURST`).
    pub max_burst: SimTime,
    pub ecn: bool,
    /// Mark (not drop) ECN-capable packets while the probability is below this.
    pub mark_ecnth: f64,
    /// Section 5.4's accumulated probability.
    pub derandomize: bool,
    /// Section 5.2's departure-rate estimate of the delay instead of timestamps.
    pub dq_rate_estimator: bool,
    /// Section 5.5: steps of at most 2 % above a probability of 10 %.
    pub cap_drop_adjustment: bool,
    /// `MEAN_PKTSIZE`, bytes.
    pub mean_pktsize: f64,
}

impl PieConfig {
    /// RFC 8033's defaults with `mean_pktsize` bytes packets.
    pub fn rfc(mean_pktsize: f64) -> Self {
        PieConfig {
            target: SimTime::from_millis(15),
            tupdate: SimTime::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimTime::from_millis(150),
            ecn: false,
            mark_ecnth: 0.1,
            derandomize: false,
            dq_rate_estimator: false,
            cap_drop_adjustment: true,
            mean_pktsize,
        }
    }
}

/// The parameters of `queue = "pie"`.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new("target", "number", "s", "0.015", "[1e-6, 100]"),
    ParamSpec::new("tupdate", "number", "s", "0.015", "[1e-5, 100]"),
    ParamSpec::new("alpha", "number", "1/s", "0.125", "[0, 1000]"),
    ParamSpec::new("beta", "number", "1/s", "1.25", "[0, 1000]"),
    ParamSpec::new("max_burst", "number", "s", "0.15", "[0, 100]"),
    ParamSpec::new("ecn", "flag", "", "0", "0 or 1 (1: mark ECN-capable packets CE below mark_ecnth)"),
    ParamSpec::new("mark_ecnth", "number", "", "0.1", "[0, 1]"),
    ParamSpec::new("derandomize", "flag", "", "0", "0 or 1 (1: RFC 8033 section 5.4)"),
    ParamSpec::new("dq_rate_estimator", "flag", "", "0", "0 or 1 (1: delay from the departure rate, section 5.2)"),
    ParamSpec::new("cap_drop_adjustment", "flag", "", "1", "0 or 1 (section 5.5)"),
    ParamSpec::new("mean_pktsize", "number", "bytes", "the flows' data packet size", "[1, 1e6]"),
];

/// The registry's constructor (`queue = "pie"`).
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(params);
    let secs = |v: f64| SimTime::from_secs_f64(v);
    let cfg = PieConfig {
        target: secs(r.get("target", 0.015, 1e-6, 100.0)?),
        tupdate: secs(r.get("tupdate", 0.015, 1e-5, 100.0)?),
        alpha: r.get("alpha", 0.125, 0.0, 1000.0)?,
        beta: r.get("beta", 1.25, 0.0, 1000.0)?,
        max_burst: secs(r.get("max_burst", 0.15, 0.0, 100.0)?),
        ecn: r.get_flag("ecn", false)?,
        mark_ecnth: r.get("mark_ecnth", 0.1, 0.0, 1.0)?,
        derandomize: r.get_flag("derandomize", false)?,
        dq_rate_estimator: r.get_flag("dq_rate_estimator", false)?,
        cap_drop_adjustment: r.get_flag("cap_drop_adjustment", true)?,
        mean_pktsize: r.get("mean_pktsize", s.pkt_size as f64, 1.0, 1e6)?,
    };
    r.finish()?;
    Ok(Box::new(Pie::new(cfg, s.cap, stream_rng(s.seed, rng::stream::PIE, s.link_index))))
}

/// PIE's state (RFC 8033's `PIE->...` variables).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieVars {
    pub drop_prob: f64,
    /// The current queueing delay estimate.
    pub qdelay: SimTime,
    /// The estimate at the previous update.
    pub qdelay_old: SimTime,
    pub burst_allowance: SimTime,
    pub accu_prob: f64,
    /// When the next update is due.
    pub next_update: SimTime,
    /// A dequeue-rate measurement is running since `dq_start`, `dq_count` bytes so far.
    pub in_measurement: bool,
    pub dq_count: u64,
    pub dq_start: SimTime,
    /// Average time to dequeue `DQ_THRESHOLD` bytes, ps; 0 before the first measurement.
    pub avg_dq_time: f64,
}

pub struct Pie {
    pub cfg: PieConfig,
    cap: Capacity,
    fifo: TimedFifo,
    pub vars: PieVars,
    rng: Pcg64,
    marks: u64,
}

impl Pie {
    pub fn new(cfg: PieConfig, cap: Capacity, rng: Pcg64) -> Self {
        Pie {
            vars: PieVars {
                drop_prob: 0.0,
                qdelay: SimTime::ZERO,
                qdelay_old: SimTime::ZERO,
                burst_allowance: cfg.max_burst,
                accu_prob: 0.0,
                next_update: cfg.tupdate,
                in_measurement: false,
                dq_count: 0,
                dq_start: SimTime::ZERO,
                avg_dq_time: 0.0,
            },
            cfg,
            cap,
            fifo: TimedFifo::default(),
            rng,
            marks: 0,
        }
    }

    /// The queueing delay estimate an update reads.
    fn current_qdelay(&self) -> SimTime {
        if self.cfg.dq_rate_estimator {
            // qdelay = backlog / dequeue rate   (section 5.2)
            SimTime((self.fifo.bytes as f64 * self.vars.avg_dq_time / DQ_THRESHOLD as f64) as u64)
        } else {
            self.vars.qdelay
        }
    }

    /// The probability's change for a delay `qdelay` after `qdelay_old` at probability
    /// `prob`: equation (4.2), scaled by the table of section 4.2 and capped (section 5.5).
    pub fn step(&self, qdelay: SimTime, qdelay_old: SimTime, prob: f64) -> f64 {
        let c = &self.cfg;
        let (q, old, t) = (qdelay.secs_f64(), qdelay_old.secs_f64(), c.target.secs_f64());
        let p = c.alpha * (q - t) + c.beta * (q - old);
        // Small probabilities move in small steps (RFC 8033 section 4.2's table).
        const SCALE: [(f64, f64); 6] =
            [(1e-6, 2048.0), (1e-5, 512.0), (1e-4, 128.0), (1e-3, 32.0), (1e-2, 8.0), (0.1, 2.0)];
        let p = match SCALE.iter().find(|(below, _)| prob < *below) {
            Some((_, div)) => p / div,
            None => p,
        };
        if c.cap_drop_adjustment && prob >= 0.1 && p > 0.02 {
            0.02
        } else {
            p
        }
    }

    /// One update, every `tupdate` (RFC 8033 sections 4.2 and 4.4).
    fn update(&mut self) {
        let qdelay = self.current_qdelay();
        let p = self.step(qdelay, self.vars.qdelay_old, self.vars.drop_prob);
        let v = &mut self.vars;
        let mut prob = v.drop_prob + p;
        if qdelay == SimTime::ZERO && v.qdelay_old == SimTime::ZERO {
            // Decay when the congestion is gone.
            prob *= 0.98;
        }
        v.drop_prob = prob.clamp(0.0, 1.0);
        let half = SimTime(self.cfg.target.0 / 2);
        if v.drop_prob == 0.0 && qdelay < half && v.qdelay_old < half {
            v.burst_allowance = self.cfg.max_burst;
        }
        v.burst_allowance = v.burst_allowance.saturating_sub(self.cfg.tupdate);
        v.qdelay_old = qdelay;
    }

    /// Runs the updates due by `now`. Between packets nothing an update reads changes, so
    /// an update that leaves the state as it was leaves it so until `now`: skip to there.
    fn catch_up(&mut self, now: SimTime) {
        while self.vars.next_update <= now {
            let before = (self.vars.drop_prob.to_bits(), self.vars.qdelay_old, self.vars.burst_allowance);
            self.update();
            let t = self.cfg.tupdate.0;
            if before == (self.vars.drop_prob.to_bits(), self.vars.qdelay_old, self.vars.burst_allowance) {
                let behind = (now.0 - self.vars.next_update.0) / t;
                self.vars.next_update.0 += behind * t;
            }
            self.vars.next_update.0 += t;
        }
    }

    /// Whether the random early decision drops an arrival (sections 4.1 and 5.4).
    fn drop_early(&mut self) -> bool {
        let (c, v) = (&self.cfg, &mut self.vars);
        if v.burst_allowance > SimTime::ZERO {
            return false;
        }
        let half = SimTime(c.target.0 / 2);
        if (v.qdelay_old < half && v.drop_prob < 0.2) || self.fifo.bytes as f64 <= 2.0 * c.mean_pktsize {
            return false;
        }
        if c.derandomize {
            if v.drop_prob == 0.0 {
                v.accu_prob = 0.0;
            }
            v.accu_prob += v.drop_prob;
            if v.accu_prob < 0.85 {
                return false;
            }
            if v.accu_prob >= 8.5 {
                return true;
            }
        }
        if self.rng.gen::<f64>() < v.drop_prob {
            v.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// Section 5.2's measurement of the time to dequeue `DQ_THRESHOLD` bytes, at a departure
    /// of `size` bytes that left `backlog` bytes.
    fn measure_departure(&mut self, size: u32, backlog: u64, now: SimTime) {
        let v = &mut self.vars;
        if v.in_measurement {
            v.dq_count += size as u64;
            if v.dq_count >= DQ_THRESHOLD {
                let dq_int = now.saturating_sub(v.dq_start).0 as f64;
                v.avg_dq_time =
                    if v.avg_dq_time == 0.0 { dq_int } else { dq_int * DQ_WEIGHT + v.avg_dq_time * (1.0 - DQ_WEIGHT) };
                v.in_measurement = false;
            }
        }
        if !v.in_measurement && backlog >= DQ_THRESHOLD {
            v.in_measurement = true;
            v.dq_count = 0;
            v.dq_start = now;
        }
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        self.catch_up(ctx.now);
        if self.fifo.full(self.cap, &pkt) {
            self.vars.accu_prob = 0.0;
            return Err((pkt, DropCause::Overflow));
        }
        if self.drop_early() {
            if self.cfg.ecn && pkt.flags & ECT != 0 && self.vars.drop_prob < self.cfg.mark_ecnth {
                pkt.flags |= CE;
                self.marks += 1;
            } else {
                self.vars.accu_prob = 0.0;
                return Err((pkt, DropCause::Early));
            }
        }
        self.fifo.push(pkt, ctx.now);
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.catch_up(now);
        let (pkt, enqueued) = self.fifo.pop()?;
        if self.cfg.dq_rate_estimator {
            self.measure_departure(pkt.size, self.fifo.backlog(), now);
        } else {
            // The sojourn time of the packet leaving; none once the queue is empty.
            self.vars.qdelay = if self.fifo.bytes == 0 { SimTime::ZERO } else { now.saturating_sub(enqueued) };
        }
        Some(pkt)
    }

    fn len_pkts(&self) -> usize {
        self.fifo.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes
    }

    fn packets(&self) -> Vec<Packet> {
        self.fifo.q.iter().map(|(p, _)| *p).collect()
    }

    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        let c = &self.cfg;
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        Some(crate::describe::QueueInfo::new(
            "pie",
            self.cap,
            &[
                ("target", c.target.secs_f64()),
                ("tupdate", c.tupdate.secs_f64()),
                ("alpha", c.alpha),
                ("beta", c.beta),
                ("max_burst", c.max_burst.secs_f64()),
                ("ecn", flag(c.ecn)),
                ("mark_ecnth", c.mark_ecnth),
                ("derandomize", flag(c.derandomize)),
                ("dq_rate_estimator", flag(c.dq_rate_estimator)),
                ("cap_drop_adjustment", flag(c.cap_drop_adjustment)),
                ("mean_pktsize", c.mean_pktsize),
            ],
        ))
    }

    /// The drop probability, for the queue series' `max_p` column.
    fn max_p(&self) -> Option<f64> {
        Some(self.vars.drop_prob)
    }

    fn marks(&self) -> u64 {
        self.marks
    }
}

#[cfg(test)]
mod tests;
