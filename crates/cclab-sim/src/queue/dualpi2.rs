//! DualPI2, the DualQ Coupled AQM of RFC 9332 (section 2.4 and Appendix A's pseudocode),
//! with Linux's net/sched/sch_dualpi2.c for what the RFC leaves open.
//!
//! Two FIFOs share one buffer. The classifier (RFC 9332 section 2.3, RFC 9331 section 5.1)
//! sends ECT(1) and CE packets to the L queue, Not-ECT and ECT(0) ones to the C queue. One
//! PI controller (PI2) sets a base probability `p'` from the C queue's sojourn time, and the
//! two queues read it through different functions:
//!
//! ```text
//! p' += alpha (curq − target) + beta (curq − prevq),  p' in [0, 1]     (A.1 Figure 6)
//! p_CL = k p'                                                           (RFC 9332 eq. 1 with
//! p_C  = p'^2            so that  p_C = (p_CL / k)^2                     section 2.4's split)
//! p_L  = max(p'_L, p_CL)                                                 (section 2.4: the
//!                                                                         native L4S AQM or the coupling)
//! ```
//!
//! every `tupdate`, where `curq` is the sojourn time of the C queue's head packet and
//! `prevq` the one of the previous update. `alpha` and `beta` are in Hz and already hold the
//! update period (RFC 9332 Figure 2: `alpha = 0.1 Tupdate / RTT_max^2`,
//! `beta = 0.3 / RTT_max`), so one update adds `alpha x` seconds of error, unscaled.
//!
//! At dequeue: a C packet is dropped with probability `p_C`, or marked CE instead if it is
//! ECT(0); an L packet is marked CE with probability `p_L`, where the native AQM `p'_L` is a
//! step, 1 when the packet's own sojourn time exceeds `step_thresh` and the L queue (the
//! packet included) holds at least `min_qlen_step` packets, 0 otherwise. Overload
//! (RFC 9332 Appendix A.2, its overload handling): while `p_C` is at or above
//! `p_Cmax = min(1/k^2, 1)`, ECN no longer saves a C packet from the drop, and an L packet
//! is first dropped with probability `p_C` before the marking, so unresponsive L4S traffic
//! cannot take the link.
//!
//! Choices where the RFC is silent or offers several:
//! - **Native L4S AQM: a step** at `step_thresh` (1 ms), Linux's `step_thresh`; the RFC's
//!   pseudocode shows a ramp (from 800 us over 400 us) and allows a step. The length
//!   condition `min_qlen_step` (2 packets) keeps a lone packet whose serialization alone
//!   exceeds the threshold (a slow link) from being marked: the RFC's `Th_len`, the floor
//!   of 2 packets as in Linux's use of it.
//! - **Scheduler: the time-shifted FIFO** of Appendix A.1: the L queue's head goes first
//!   unless the C queue's head has waited more than `tshift` (50 ms) longer. (Linux uses a
//!   weighted round robin giving the C queue 10 %; the RFC allows either.)
//! - **`curq` from the C queue only**, as A.1 (Linux and A.2 take the larger of both heads'
//!   sojourn times; overload protection here comes from `p_Cmax` instead).
//! - **Decisions at dequeue** from the packet's sojourn time, as A.1 and Linux do (Linux can
//!   also drop Classic packets at enqueue, off by default). A packet arriving to a full
//!   shared buffer is dropped (overflow), whatever its queue.
//! - **Random draws** per packet from the link's own stream (A.1's `rand() < p`; A.2's
//!   deterministic `recur()` and Linux's two draws for `p'^2` give the same probabilities).
//! - The update runs on the grid `n tupdate`, lazily at the next arrival or departure, as
//!   PIE's (queue/pie.rs): between packets nothing it reads changes but the head's age,
//!   which each update computes at its own instant.
//! - An L packet already CE stays CE and is not counted again.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `target` | C queue sojourn the PI2 controller aims at | 0.015 s | [1e-6, 100] |
//! | `tupdate` | period of the `p'` update | 0.016 s | [1e-5, 100] |
//! | `alpha` | integral gain | 0.16 Hz | [0, 1000] |
//! | `beta` | proportional gain | 3.2 Hz | [0, 1000] |
//! | `k` | coupling factor | 2 | [0.01, 100] |
//! | `step_thresh` | L queue marking threshold on sojourn | 0.001 s | [0, 100] |
//! | `min_qlen_step` | packets the L queue must hold for the step to mark | 2 | [0, 1e9] |
//! | `tshift` | time shift of the scheduler's FIFO | 0.05 s | [0, 100] |
//! | `classic_ecn` | mark ECT(0) C packets instead of dropping them | 1 | 0 or 1 |
//! | `drop_overload` | overload protection at `p_C >= p_Cmax` | 1 | 0 or 1 |

use super::codel::{CodelQueue, TimedFifo};
use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::{Packet, CE, ECT, ECT1};
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::rng::{self, stream_rng};
use crate::units::SimTime;
use rand::Rng;
use rand_pcg::Pcg64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dualpi2Config {
    pub target: SimTime,
    pub tupdate: SimTime,
    /// Integral gain, Hz.
    pub alpha: f64,
    /// Proportional gain, Hz.
    pub beta: f64,
    /// Coupling factor.
    pub k: f64,
    pub step_thresh: SimTime,
    pub min_qlen_step: u64,
    pub tshift: SimTime,
    pub classic_ecn: bool,
    pub drop_overload: bool,
}

impl Dualpi2Config {
    /// The defaults of the parameter table.
    pub const DEFAULT: Dualpi2Config = Dualpi2Config {
        target: SimTime::from_millis(15),
        tupdate: SimTime::from_millis(16),
        alpha: 0.16,
        beta: 3.2,
        k: 2.0,
        step_thresh: SimTime::from_millis(1),
        min_qlen_step: 2,
        tshift: SimTime::from_millis(50),
        classic_ecn: true,
        drop_overload: true,
    };

    /// `p_Cmax = min(1/k^2, 1)` (RFC 9332 Figure 2).
    pub fn p_cmax(&self) -> f64 {
        (1.0 / (self.k * self.k)).min(1.0)
    }
}

/// The parameters of `queue = "dualpi2"`.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new("target", "number", "s", "0.015", "[1e-6, 100]"),
    ParamSpec::new("tupdate", "number", "s", "0.016", "[1e-5, 100]"),
    ParamSpec::new("alpha", "number", "1/s", "0.16", "[0, 1000]"),
    ParamSpec::new("beta", "number", "1/s", "3.2", "[0, 1000]"),
    ParamSpec::new("k", "number", "", "2", "[0.01, 100]"),
    ParamSpec::new("step_thresh", "number", "s", "0.001", "[0, 100]"),
    ParamSpec::new("min_qlen_step", "whole number", "packets", "2", "[0, 1e9]"),
    ParamSpec::new("tshift", "number", "s", "0.05", "[0, 100]"),
    ParamSpec::new(
        "classic_ecn",
        "flag",
        "",
        "1",
        "0 or 1 (1: mark ECT(0) packets of the C queue instead of dropping)",
    ),
    ParamSpec::new("drop_overload", "flag", "", "1", "0 or 1 (1: drop L4S packets too while p_C >= p_Cmax)"),
];

/// The registry's constructor (`queue = "dualpi2"`).
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(params);
    let secs = |v: f64| SimTime::from_secs_f64(v);
    let cfg = Dualpi2Config {
        target: secs(r.get("target", 0.015, 1e-6, 100.0)?),
        tupdate: secs(r.get("tupdate", 0.016, 1e-5, 100.0)?),
        alpha: r.get("alpha", 0.16, 0.0, 1000.0)?,
        beta: r.get("beta", 3.2, 0.0, 1000.0)?,
        k: r.get("k", 2.0, 0.01, 100.0)?,
        step_thresh: secs(r.get("step_thresh", 0.001, 0.0, 100.0)?),
        min_qlen_step: r.get_int("min_qlen_step", 2, 0, 1_000_000_000)? as u64,
        tshift: secs(r.get("tshift", 0.05, 0.0, 100.0)?),
        classic_ecn: r.get_flag("classic_ecn", true)?,
        drop_overload: r.get_flag("drop_overload", true)?,
    };
    r.finish()?;
    Ok(Box::new(DualPi2::new(cfg, s.cap, stream_rng(s.seed, rng::stream::DUALPI2, s.link_index))))
}

/// The classifier (RFC 9332 section 2.3): ECT(1) or CE goes to the L queue.
pub fn is_l4s(pkt: &Packet) -> bool {
    pkt.flags & CE != 0 || (pkt.flags & ECT != 0 && pkt.flags & ECT1 != 0)
}

/// What the queue did, by queue (the link counts the totals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dualpi2Stats {
    pub l_marks: u64,
    /// L packets dropped under overload.
    pub l_drops: u64,
    pub c_marks: u64,
    /// C packets dropped by `p_C`.
    pub c_drops: u64,
}

pub struct DualPi2 {
    pub cfg: Dualpi2Config,
    cap: Capacity,
    pub l: TimedFifo,
    pub c: TimedFifo,
    /// The base probability `p'`.
    pub p: f64,
    /// `curq` of the last update.
    pub prevq: SimTime,
    pub next_update: SimTime,
    pub stats: Dualpi2Stats,
    rng: Pcg64,
}

/// The sojourn time at `now` of a queue's head packet, 0 when it is empty (A.1's `time()`).
fn head_sojourn(q: &TimedFifo, now: SimTime) -> SimTime {
    q.q.front().map_or(SimTime::ZERO, |(_, t)| now.saturating_sub(*t))
}

impl DualPi2 {
    pub fn new(cfg: Dualpi2Config, cap: Capacity, rng: Pcg64) -> Self {
        DualPi2 {
            next_update: cfg.tupdate,
            cfg,
            cap,
            l: TimedFifo::default(),
            c: TimedFifo::default(),
            p: 0.0,
            prevq: SimTime::ZERO,
            stats: Dualpi2Stats::default(),
            rng,
        }
    }

    /// `p_CL = k p'`, at most 1.
    pub fn p_cl(&self) -> f64 {
        (self.cfg.k * self.p).min(1.0)
    }

    /// `p_C = p'^2`.
    pub fn p_c(&self) -> f64 {
        self.p * self.p
    }

    /// One PI2 update with the C queue's head sojourn `curq` (A.1 Figure 6).
    pub fn update(&mut self, curq: SimTime) {
        let c = &self.cfg;
        let (q, prev, t) = (curq.secs_f64(), self.prevq.secs_f64(), c.target.secs_f64());
        self.p = (self.p + c.alpha * (q - t) + c.beta * (q - prev)).clamp(0.0, 1.0);
        self.prevq = curq;
    }

    /// Runs the updates due by `now`, each with the head's age at its own instant. An update
    /// that leaves `p'` and `prevq` as they were (an empty C queue at `p'` = 0) leaves them so
    /// until the queue changes: skip to `now`.
    fn catch_up(&mut self, now: SimTime) {
        let t = self.cfg.tupdate.0;
        while self.next_update <= now {
            let before = (self.p.to_bits(), self.prevq);
            self.update(head_sojourn(&self.c, self.next_update));
            if before == (self.p.to_bits(), self.prevq) {
                self.next_update.0 += (now.0 - self.next_update.0) / t * t;
            }
            self.next_update.0 += t;
        }
    }

    /// `true` with probability `p`; draws only when the outcome is uncertain.
    fn roll(&mut self, p: f64) -> bool {
        p >= 1.0 || (p > 0.0 && self.rng.gen::<f64>() < p)
    }

    /// The time-shifted FIFO (A.1): `true` to serve the L queue next.
    pub fn l_next(&self, now: SimTime) -> Option<bool> {
        match (self.l.q.is_empty(), self.c.q.is_empty()) {
            (true, true) => None,
            (false, true) => Some(true),
            (true, false) => Some(false),
            (false, false) => Some(head_sojourn(&self.l, now) + self.cfg.tshift >= head_sojourn(&self.c, now)),
        }
    }

    fn overloaded(&self) -> bool {
        self.cfg.drop_overload && self.p_c() >= self.cfg.p_cmax()
    }

    /// An L packet leaving after `sojourn` with `qlen` packets in the L queue (itself
    /// included): dropped (`None`) under overload, or returned, marked with `p_L`.
    fn l_leaves(&mut self, mut pkt: Packet, sojourn: SimTime, qlen: u64) -> Option<Packet> {
        if self.overloaded() && self.roll(self.p_c()) {
            self.stats.l_drops += 1;
            return None;
        }
        let native = sojourn > self.cfg.step_thresh && qlen >= self.cfg.min_qlen_step;
        let p_l = if native { 1.0 } else { self.p_cl() };
        if self.roll(p_l) && pkt.flags & CE == 0 {
            pkt.flags |= CE;
            self.stats.l_marks += 1;
        }
        Some(pkt)
    }

    /// A C packet leaving: dropped (`None`) or marked with `p_C`.
    fn c_leaves(&mut self, mut pkt: Packet) -> Option<Packet> {
        if !self.roll(self.p_c()) {
            return Some(pkt);
        }
        if self.cfg.classic_ecn && pkt.flags & ECT != 0 && !self.overloaded() {
            pkt.flags |= CE;
            self.stats.c_marks += 1;
            return Some(pkt);
        }
        self.stats.c_drops += 1;
        None
    }

    fn full(&self, pkt: &Packet) -> bool {
        let (n, b) = (self.l.q.len() + self.c.q.len(), self.l.bytes + self.c.bytes);
        match self.cap {
            Capacity::Packets(cap) => n as u64 >= cap,
            Capacity::Bytes(cap) => b + pkt.size as u64 > cap,
            Capacity::Unlimited => false,
        }
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        self.catch_up(ctx.now);
        if self.full(&pkt) {
            return Err((pkt, DropCause::Overflow));
        }
        if is_l4s(&pkt) {
            self.l.push(pkt, ctx.now);
        } else {
            self.c.push(pkt, ctx.now);
        }
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.dequeue_or_drop(now, &mut Vec::new())
    }

    fn dequeue_or_drop(&mut self, now: SimTime, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        self.catch_up(now);
        loop {
            if self.l_next(now)? {
                let qlen = self.l.q.len() as u64;
                let (pkt, t) = self.l.pop().expect("l_next chose a non-empty queue");
                match self.l_leaves(pkt, now.saturating_sub(t), qlen) {
                    Some(p) => return Some(p),
                    None => dropped.push((pkt, DropCause::Early)),
                }
            } else {
                let (pkt, _) = self.c.pop().expect("l_next chose a non-empty queue");
                match self.c_leaves(pkt) {
                    Some(p) => return Some(p),
                    None => dropped.push((pkt, DropCause::Early)),
                }
            }
        }
    }

    fn len_pkts(&self) -> usize {
        self.l.q.len() + self.c.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.l.bytes + self.c.bytes
    }

    /// The packets waiting, the L queue's first.
    fn packets(&self) -> Vec<Packet> {
        self.l.q.iter().chain(self.c.q.iter()).map(|(p, _)| *p).collect()
    }

    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        let c = &self.cfg;
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        Some(crate::describe::QueueInfo::new(
            "dualpi2",
            self.cap,
            &[
                ("target", c.target.secs_f64()),
                ("tupdate", c.tupdate.secs_f64()),
                ("alpha", c.alpha),
                ("beta", c.beta),
                ("k", c.k),
                ("step_thresh", c.step_thresh.secs_f64()),
                ("min_qlen_step", c.min_qlen_step as f64),
                ("tshift", c.tshift.secs_f64()),
                ("classic_ecn", flag(c.classic_ecn)),
                ("drop_overload", flag(c.drop_overload)),
            ],
        ))
    }

    /// The base probability `p'`, for the queue series' `max_p` column.
    fn max_p(&self) -> Option<f64> {
        Some(self.p)
    }

    fn marks(&self) -> u64 {
        self.stats.l_marks + self.stats.c_marks
    }
}

#[cfg(test)]
mod tests;
