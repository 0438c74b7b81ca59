//! RED (Floyd and Jacobson 1993) as ns-2's `Queue/RED` implements it, with
//! gentle mode, `wait`, idle-time decay of the average, and the adaptation of
//! `max_p` by Adaptive RED (Floyd, Gummadi, Shenker 2001; `ared.rs`) or by gARED
//! (paper 004, section 4.3; `gared.rs`).
//!
//! On each arrival (before it joins the queue):
//! - the average is updated: `avg ← (1 − w)^m · avg`, then `avg ← (1 − w)·avg + w·q`,
//!   where `q` is the queue length and `m` the number of packets of mean size the
//!   link could have sent while it was idle (zero when it was busy);
//! - `count` (arrivals since the last early drop) is incremented;
//! - below `min_th` nothing is dropped; at or above `max_th` (or `2·max_th` when
//!   gentle) the packet is dropped; in between with probability
//!   `p_b = max_p (avg − min_th)/(max_th − min_th)` (gentle, above `max_th`:
//!   `max_p + (1 − max_p)(avg − max_th)/max_th`), spread out by `count`:
//!   `p_a = p_b / (2 − count·p_b)` with `wait`, `p_b / (1 − count·p_b)` without;
//! - a full buffer drops (tail drop).
//!
//! Choices where the sources are silent or differ:
//! - ns-2 decides on the first packet after the average crosses `min_th` not to
//!   drop and resets `count` (its `old` flag); so does this.
//! - ns-2 starts `count` at 0 on every early drop and drops no packet while the
//!   instantaneous queue holds at most one packet; so does this.
//! - Adaptive RED adapts on the first arrival after each `interval`, not on a
//!   separate timer, so an idle queue costs no events. As the papers (Floyd et
//!   al.'s Fig. 5 and paper 004's Fig. 8) say "every interval", the interval
//!   restarts at every check; ns-2 restarts it only when max_p changes.
//! - `device_queue = 1` hides one waiting packet from RED, as ns-3's device holds one
//!   staged outside its queue disc (red-queue-disc.cc counts only the disc's).
//! - With `ecn = 1` an early decision marks an ECN-capable packet instead; forced drops drop.
//! - Lengths are in packets (ns-2's default); `mean_pktsize` serves only the
//!   idle-time decay.

use super::droptail::DropTail;
use super::{ared, gared, red_ns2};
use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::{Packet, CE, ECT};
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::rng::{self, stream_rng};
use crate::units::{Rate, SimTime};
use rand::Rng;
use rand_pcg::Pcg64;

/// How `max_p` is adapted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Adapt {
    /// Plain RED: `max_p` fixed.
    None,
    /// Adaptive RED (Floyd, Gummadi, Shenker 2001).
    Ared,
    /// Gentle Adaptive RED (paper 004, section 4.3).
    Gared,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Lower threshold of the average, packets.
    pub min_th: f64,
    /// Upper threshold of the average, packets.
    pub max_th: f64,
    /// Drop probability at `max_th` (the initial value when adapted).
    pub max_p: f64,
    /// Weight of the moving average, in (0, 1].
    pub q_weight: f64,
    pub gentle: bool,
    /// Spread drops out by waiting (`p / (2 − count·p)`), ns-2's `wait_`.
    pub wait: bool,
    /// Packet size used to count the packets an idle link could have sent, bytes.
    pub mean_pktsize: f64,
    pub adapt: Adapt,
    /// Adaptation interval (ARED, gARED).
    pub interval: SimTime,
    /// Additive increase of `max_p` is `min(alpha, max_p/4)`.
    pub alpha: f64,
    /// Multiplicative decrease of `max_p`.
    pub beta: f64,
    /// Upper bound of `max_p`.
    pub top: f64,
    /// Lower bound of `max_p` (ARED only; gARED has none).
    pub bottom: f64,
    /// Byte mode (ns-2's `queue_in_bytes_` and `bytes_` together): the average is kept
    /// in bytes against thresholds of `min_th·mean_pktsize` and `max_th·mean_pktsize`,
    /// `count` counts bytes in mean-size packets, and a packet's drop probability is
    /// scaled by its size over `mean_pktsize`.
    pub bytes: bool,
    /// Mark ECN-capable packets (set CE) instead of dropping them early; forced drops
    /// (above `max_th`, or `2·max_th` when gentle) and a full buffer still drop.
    pub ecn: bool,
    /// ns-2.35's defaults and adaptation details (`red_ns2.rs`): the gentle line from the
    /// initial `max_p`, and ARED's unclamped step with its interval restarted only on a change.
    pub ns2: bool,
    /// Packets the link's device holds outside RED's view (0 or 1): ns-3's point-to-point
    /// device under a queue disc keeps one packet staged behind the one it sends, so its
    /// RED sees one packet fewer than wait while the link is busy (packet mode only).
    pub device_queue: usize,
}

impl RedConfig {
    /// ns-2's classic RED defaults (min_th 5, max_th 15, max_p 0.1, w 0.002, gentle, wait).
    pub fn red() -> Self {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            q_weight: 0.002,
            gentle: true,
            wait: true,
            mean_pktsize: 500.0,
            adapt: Adapt::None,
            interval: SimTime::from_millis(500),
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: 0.01,
            bytes: false,
            ecn: false,
            ns2: false,
            device_queue: 0,
        }
    }
}

/// `device_queue`, a parameter of RED, ARED and gARED alike.
pub const DEVICE_QUEUE: ParamSpec = ParamSpec::new(
    "device_queue",
    "flag",
    "",
    "0",
    "0 or 1 (1: RED sees one waiting packet fewer, staged in the device, as ns-3's; packet mode only)",
);

/// The parameters of `queue = "red"` (`queue_params`); lengths in packets (bytes with `bytes = 1`).
pub static RED_PARAMS: &[ParamSpec] = &[
    ParamSpec::new("ns2", "flag", "", "0", "0 or 1: ns-2.35's defaults (red_ns2.rs), which the fields below override"),
    ParamSpec::new("mean_pktsize", "number", "bytes", "the flows' packet size", "[1, 1e6]"),
    ParamSpec::new("target_delay", "number", "s", "0.005 (ARED's, unused by RED)", "[1e-9, 100]"),
    ParamSpec::new("min_th", "number", "packets", "5", "[0, 1e12]"),
    ParamSpec::new("max_th", "number", "packets", "max(15, 3 min_th)", "[0, 1e12], above min_th"),
    ParamSpec::new("max_p", "number", "", "0.1", "[0, 1]"),
    ParamSpec::new("q_weight", "number", "", "0.002", "[1e-12, 1]"),
    ParamSpec::new("gentle", "number", "", "1", "[0, 1], 0 = off"),
    ParamSpec::new("wait", "number", "", "1", "[0, 1], 0 = off"),
    ParamSpec::new("interval", "number", "s", "0.5", "[1e-6, 1e6]"),
    ParamSpec::new("alpha", "number", "", "0.01", "[0, 1]"),
    ParamSpec::new("beta", "number", "", "0.9", "[0, 1]"),
    ParamSpec::new("top", "number", "", "0.5", "[0, 1]"),
    ParamSpec::new("bottom", "number", "", "0.01", "[0, 1]"),
    ParamSpec::new("bytes", "flag", "", "0", "0 or 1"),
    ParamSpec::new("ecn", "flag", "", "0", "0 or 1"),
    DEVICE_QUEUE,
];

/// The registry's constructor for `queue = "red"`.
pub fn build_red(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    build(Adapt::None, s, params)
}

/// Builds RED with `kind` of adaptation: `queue = "red"`, `"ared"` (`ared.rs`) or `"gared"` (`gared.rs`).
pub fn build(kind: Adapt, s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(params);
    let ns2 = r.get_flag("ns2", false)?;
    // ns-2 counts in packets of mean_pktsize_ 500 bytes, whatever the flows send.
    let mean = r.get("mean_pktsize", if ns2 { 500.0 } else { s.pkt_size as f64 }, 1.0, 1e6)?;
    let target = SimTime::from_secs_f64(r.get("target_delay", 0.005, 1e-9, 100.0)?);
    let base = match kind {
        _ if ns2 => RedConfig::ns2(kind, s.rate, s.delay, mean, target),
        Adapt::None => RedConfig::red(),
        Adapt::Ared => RedConfig::ared(s.rate, mean, target),
        Adapt::Gared => RedConfig { adapt: Adapt::Gared, ..RedConfig::ared(s.rate, mean, target) },
    };
    let min_th = r.get("min_th", base.min_th, 0.0, 1e12)?;
    // ARED's rule of thumb max_th = 3 min_th follows a given min_th (so does ns-2's maxthresh_ 0).
    let max_th_default = if kind == Adapt::None && !ns2 { base.max_th.max(min_th * 3.0) } else { 3.0 * min_th };
    let cfg = RedConfig {
        min_th,
        max_th: r.get("max_th", max_th_default, 0.0, 1e12)?,
        max_p: r.get("max_p", base.max_p, 0.0, 1.0)?,
        q_weight: r.get("q_weight", base.q_weight, 1e-12, 1.0)?,
        gentle: r.get("gentle", 1.0, 0.0, 1.0)? != 0.0,
        wait: r.get("wait", 1.0, 0.0, 1.0)? != 0.0,
        mean_pktsize: mean,
        adapt: base.adapt,
        interval: SimTime::from_secs_f64(r.get("interval", 0.5, 1e-6, 1e6)?),
        alpha: r.get("alpha", base.alpha, 0.0, 1.0)?,
        beta: r.get("beta", base.beta, 0.0, 1.0)?,
        top: r.get("top", base.top, 0.0, 1.0)?,
        bottom: r.get("bottom", base.bottom, 0.0, 1.0)?,
        bytes: r.get_flag("bytes", base.bytes)?,
        ecn: r.get_flag("ecn", false)?,
        ns2,
        device_queue: usize::from(r.get_flag("device_queue", false)?),
    };
    r.finish()?;
    if cfg.device_queue > 0 && cfg.bytes {
        return Err(ParamError {
            param: "device_queue".into(),
            value: "1".into(),
            accepted: "0 with bytes = 1 (the device's packet is modelled in packet mode only)".into(),
        });
    }
    if cfg.max_th <= cfg.min_th {
        return Err(ParamError {
            param: "max_th".into(),
            value: cfg.max_th.to_string(),
            accepted: format!("a value above min_th ({})", cfg.min_th),
        });
    }
    let rng = stream_rng(s.seed, rng::stream::RED, s.link_index);
    Ok(Box::new(Red::new(cfg, s.cap, s.rate, rng)))
}

pub struct Red {
    pub(super) cfg: RedConfig,
    /// The buffer behind the AQM decision.
    fifo: DropTail,
    /// Packets of `mean_pktsize` the link sends per picosecond.
    pkts_per_ps: f64,
    rng: Pcg64,
    /// The moving average, packets.
    pub avg: f64,
    /// Arrivals since the last early drop.
    pub(super) count: f64,
    /// The average was above `min_th` at the previous arrival (ns-2's `old`).
    above: bool,
    /// Current `max_p`.
    pub max_p: f64,
    last_adapt: SimTime,
    /// The average at the previous adaptation (gARED's trend).
    old_avg: f64,
    /// Packets marked CE instead of dropped.
    marks: u64,
    /// ns-2's byte mode with a buffer in bytes: its limit, checked here (`ByteMode`); the FIFO
    /// behind is then unbounded.
    byte_limit: Option<u64>,
    /// The buffer as the scenario gave it.
    cap: Capacity,
}

impl Red {
    pub fn new(cfg: RedConfig, cap: Capacity, link_rate: Rate, rng: Pcg64) -> Self {
        let byte_limit = red_ns2::ByteMode::limit(&cfg, cap);
        Red {
            pkts_per_ps: link_rate.bps() as f64 / (8.0 * cfg.mean_pktsize) / 1e12,
            max_p: cfg.max_p,
            cfg,
            fifo: DropTail::new(if byte_limit.is_some() { Capacity::Unlimited } else { cap }),
            byte_limit,
            cap,
            rng,
            avg: 0.0,
            count: 0.0,
            above: false,
            last_adapt: SimTime::ZERO,
            old_avg: 0.0,
            marks: 0,
        }
    }

    /// Packets, or bytes in byte mode: the unit of the average and the thresholds.
    fn unit(&self) -> f64 {
        if self.cfg.bytes {
            self.cfg.mean_pktsize
        } else {
            1.0
        }
    }

    /// Updates the average for an arrival at a queue of `qlen` packets or bytes (ns-2 `estimator`).
    fn update_avg(&mut self, qlen: f64, ctx: &EnqueueContext) {
        let w = self.cfg.q_weight;
        if let (Some(since), true) = (ctx.idle_since, self.fifo.len_pkts() == 0) {
            let m = ((ctx.now.0 - since.0.min(ctx.now.0)) as f64 * self.pkts_per_ps).floor();
            self.avg *= (1.0 - w).powf(m);
        }
        self.avg = (1.0 - w) * self.avg + w * qlen;
    }

    /// The drop probability before spreading by `count`.
    pub fn p_b(&self) -> f64 {
        let c = &self.cfg;
        let (min_th, max_th) = (c.min_th * self.unit(), c.max_th * self.unit());
        let p = if self.avg >= max_th {
            if c.gentle {
                // ns-2 sets this line's slope once, from the initial max_p (red_ns2.rs).
                let at_max_th = if c.ns2 { c.max_p } else { self.max_p };
                at_max_th + (1.0 - at_max_th) * (self.avg - max_th) / max_th
            } else {
                1.0
            }
        } else {
            self.max_p * (self.avg - min_th) / (max_th - min_th)
        };
        p.clamp(0.0, 1.0)
    }

    /// Spreads `p_b` over the arrivals since the last drop.
    pub fn p_a(&self, p_b: f64) -> f64 {
        self.spread(p_b, self.count)
    }

    /// `p_b` spread over `count` arrivals (ns-2's `modify_p` before its byte scaling).
    pub(super) fn spread(&self, p_b: f64, count: f64) -> f64 {
        let cp = count * p_b;
        let p = if self.cfg.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        p.min(1.0)
    }

    fn adapt(&mut self, now: SimTime) {
        let due = self.last_adapt.0 + self.cfg.interval.0;
        // ns-2 adapts strictly after the interval (red.cc `estimator`).
        if self.cfg.adapt == Adapt::None || now.0 < due || (self.cfg.ns2 && now.0 == due) {
            return;
        }
        let c = &self.cfg;
        let (lo, hi) = c.target();
        // The rules compare the average in packets.
        let avg = self.avg / self.unit();
        let before = self.max_p;
        self.max_p = match c.adapt {
            Adapt::Ared if c.ns2 => red_ns2::update(self.max_p, avg, lo, hi, c),
            Adapt::Ared => ared::update(self.max_p, avg, lo, hi, c),
            Adapt::Gared => gared::update(self.max_p, avg, self.old_avg, c.min_th, lo, hi, c),
            Adapt::None => self.max_p,
        };
        // ns-2 restarts the interval only when max_p moved (its `lastset`).
        if !c.ns2 || self.max_p != before {
            self.last_adapt = now;
        }
        self.old_avg = avg;
    }
}

impl QueueDisc for Red {
    /// The idle-time estimate (packets the link could have sent while idle) follows the link's
    /// rate; the thresholds and max_p set from the rate at set-up keep the nominal one.
    fn set_rate(&mut self, rate: Rate) {
        self.pkts_per_ps = rate.bps() as f64 / (8.0 * self.cfg.mean_pktsize) / 1e12;
    }

    fn enqueue(&mut self, mut pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        let c = self.cfg;
        let unit = self.unit();
        // ns-2's byte mode as red.cc computes it (red_ns2.rs, `ByteMode`).
        let ns2_bytes = c.ns2 && c.bytes;
        // What RED sees waiting: with a device queue, the packet staged there is out of view.
        let seen_pkts = self.fifo.len_pkts().saturating_sub(c.device_queue);
        let qlen = if c.bytes { self.fifo.len_bytes() as f64 } else { seen_pkts as f64 };
        self.update_avg(qlen, ctx);
        self.adapt(ctx.now);
        let weight = if c.bytes { pkt.size as f64 / c.mean_pktsize } else { 1.0 };
        // Under ns-2's byte mode `count` is its `count_bytes`.
        let counted = if ns2_bytes { pkt.size as f64 } else { weight };
        self.count += counted;
        let hard = if c.gentle { 2.0 * c.max_th } else { c.max_th } * unit;
        let guard = if ns2_bytes { red_ns2::ByteMode::guard(qlen) } else { seen_pkts > 1 };
        let (mut forced, mut early) = (false, false);
        if self.avg >= c.min_th * unit && guard {
            if self.avg >= hard && !ns2_bytes {
                forced = true;
            } else if !self.above {
                // Just crossed min_th: start counting, no drop (ns-2).
                self.above = true;
                self.count = counted;
            } else {
                let p = if ns2_bytes {
                    red_ns2::ByteMode::p(self, pkt.size)
                } else {
                    (self.p_a(self.p_b()) * weight).min(1.0)
                };
                if self.rng.gen::<f64>() <= p {
                    early = true;
                }
            }
        } else {
            self.above = false;
        }
        if let Some(limit) = self.byte_limit {
            // ns-2 compares the bytes waiting before the arrival with its limit, whatever RED decided.
            if self.fifo.len_bytes() >= limit {
                self.count = 0.0;
                return Err((pkt, DropCause::Overflow));
            }
        }
        if forced || early {
            self.count = 0.0;
            if early && c.ecn && pkt.flags & ECT != 0 {
                pkt.flags |= CE;
                self.marks += 1;
            } else {
                return Err((pkt, DropCause::Early));
            }
        }
        self.fifo.enqueue(pkt, ctx).inspect_err(|_| self.count = 0.0)
    }

    fn dequeue(&mut self, _now: SimTime) -> Option<Packet> {
        self.fifo.dequeue(_now)
    }

    fn len_pkts(&self) -> usize {
        self.fifo.len_pkts()
    }

    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        let c = &self.cfg;
        let kind = match c.adapt {
            Adapt::None => "red",
            Adapt::Ared => "ared",
            Adapt::Gared => "gared",
        };
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        Some(crate::describe::QueueInfo::new(
            kind,
            self.cap,
            &[
                ("min_th", c.min_th),
                ("max_th", c.max_th),
                ("max_p", c.max_p),
                ("q_weight", c.q_weight),
                ("gentle", flag(c.gentle)),
                ("wait", flag(c.wait)),
                ("mean_pktsize", c.mean_pktsize),
                ("interval", c.interval.secs_f64()),
                ("alpha", c.alpha),
                ("beta", c.beta),
                ("top", c.top),
                ("bottom", c.bottom),
                ("bytes", flag(c.bytes)),
                ("ecn", flag(c.ecn)),
                ("ns2", flag(c.ns2)),
                ("device_queue", c.device_queue as f64),
            ],
        ))
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn packets(&self) -> Vec<Packet> {
        self.fifo.packets()
    }

    fn avg_len(&self) -> Option<f64> {
        Some(self.avg / self.unit())
    }

    fn marks(&self) -> u64 {
        self.marks
    }

    fn max_p(&self) -> Option<f64> {
        Some(self.max_p)
    }
}

#[cfg(test)]
mod tests;
