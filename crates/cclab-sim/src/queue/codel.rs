//! CoDel, controlled delay (RFC 8289; Nichols and Jacobson 2012), as Linux runs it
//! (include/net/codel_impl.h `codel_should_drop`, `codel_dequeue`; net/sched/sch_codel.c).
//!
//! CoDel decides at dequeue, from each packet's sojourn time (now − its enqueue time):
//! - the sojourn time of the packet at the head staying at or above `target` for a whole
//!   `interval` (and the backlog above one MTU) makes it "ok to drop" (RFC 8289 section 5.3);
//! - on the first such packet CoDel enters the dropping state: it drops the packet (marks
//!   it CE instead, with `ecn = 1` and an ECN-capable packet) and schedules the next drop
//!   at `drop_next = now + interval/sqrt(count)` (the control law, section 5.4);
//! - in the dropping state, every packet dequeued at or after `drop_next` is dropped (or
//!   marked), `count` grows by one and `drop_next += interval/sqrt(count)`: drops come at
//!   t, t + interval, t + interval(1 + 1/√2), ... until a packet's sojourn time falls below
//!   `target` (or the backlog to one MTU), which leaves the dropping state;
//! - re-entering soon after leaving (`now − drop_next < 16 interval`) resumes at
//!   `count − lastcount` when that is above 1, not at 1 (section 5.5).
//!
//! Choices where the RFC is silent or the sources differ:
//! - The control law's `interval/sqrt(count)` is exact (`newton = 0`, the RFC's
//!   pseudocode). `newton = 1` gives Linux's and ns-3's: the reciprocal square root kept in
//!   16 bits and updated by one Newton step per change of `count` (codel_impl.h
//!   `codel_Newton_step`, `codel_control_law`), which gives `interval/2` instead of
//!   `interval/√2` after the first drop and converges within a few drops
//!   (docs/queues/codel.md says what it moves).
//! - "Ok to drop" needs the sojourn time at or above `target` (Linux `codel_time_before`)
//!   and the time strictly after `first_above_time` (Linux `codel_time_after`; the RFC's
//!   pseudocode has `>=`); in picoseconds the two rarely differ.
//! - The one-MTU exemption compares the backlog left after the head packet is taken with
//!   `mtu` (Linux `*backlog <= params->mtu`; ns-3's `MinBytes` takes `<`). `mtu` defaults to
//!   the flows' data packet size: the size of a full packet on this link, as Linux's
//!   `psched_mtu` (device MTU plus link header) is on its.
//! - A mark in the dropping state moves `drop_next` on from `drop_next` (Linux; ns-3 from now).
//! - `ce_threshold` (Linux's, off by default): any ECN-capable packet whose sojourn time
//!   exceeds it is marked CE at dequeue, whatever `ecn` says; a packet marked twice in one
//!   dequeue counts once in `marks`.
//! - The buffer (the link's `buffer`, packets or bytes) drops arrivals that do not fit (tail
//!   drop, counted as overflow), as sch_codel's `limit` does.
//! - Time is the simulation's picoseconds, not Linux's 1.024 µs ticks.
//!
//! Parameters (`queue_params`): `target` 0.005 s, `interval` 0.1 s, `mtu` (bytes, default
//! the data packet size), `ecn` 0, `ce_threshold` 0 (s; 0 = off), `newton` 0.

use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::{Packet, CE, ECT};
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::units::SimTime;
use std::collections::VecDeque;

/// CoDel's settings (Linux `struct codel_params`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing sojourn time.
    pub target: SimTime,
    /// How long the sojourn time must stay above `target` before a drop, and the base of
    /// the control law.
    pub interval: SimTime,
    /// A backlog of at most this many bytes (after the head packet is taken) is not dropped
    /// from (RFC 8289's MAXPACKET, Linux's `mtu`).
    pub mtu: u64,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
    /// Mark every ECN-capable packet whose sojourn time exceeds this (Linux `ce_threshold`).
    pub ce_threshold: Option<SimTime>,
    /// Linux's 16-bit reciprocal square root with one Newton step per change of `count`,
    /// instead of the exact `1/sqrt(count)`.
    pub newton: bool,
}

impl CodelParams {
    /// Reads the shared CoDel parameters; `ecn` is the caller's (its default differs).
    pub fn read(r: &mut ParamReader, s: &QueueSettings, ecn: bool) -> Result<CodelParams, ParamError> {
        let target = r.get("target", 0.005, 1e-6, 100.0)?;
        let interval = r.get("interval", 0.1, 1e-6, 100.0)?;
        let mtu = r.get("mtu", s.pkt_size as f64, 0.0, 1e9)?;
        let ce = r.get("ce_threshold", 0.0, 0.0, 100.0)?;
        let newton = r.get_flag("newton", false)?;
        Ok(CodelParams {
            target: SimTime::from_secs_f64(target),
            interval: SimTime::from_secs_f64(interval),
            mtu: mtu as u64,
            ecn,
            ce_threshold: if ce > 0.0 { Some(SimTime::from_secs_f64(ce)) } else { None },
            newton,
        })
    }

    /// The parameters as `describe` reports them.
    pub fn described(&self) -> [(&'static str, f64); 6] {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        [
            ("target", self.target.secs_f64()),
            ("interval", self.interval.secs_f64()),
            ("mtu", self.mtu as f64),
            ("ecn", flag(self.ecn)),
            ("ce_threshold", self.ce_threshold.map_or(0.0, |t| t.secs_f64())),
            ("newton", flag(self.newton)),
        ]
    }
}

/// Counters a CoDel instance (or all of fq_codel's) keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelStats {
    /// Packets dropped at dequeue.
    pub drops: u64,
    /// Packets marked CE instead of dropped, and by `ce_threshold`.
    pub marks: u64,
}

/// A FIFO that CoDel takes packets from: each with its enqueue time.
pub trait CodelQueue {
    /// The head packet and its enqueue time, removed.
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// Bytes waiting after the pop: the backlog the one-MTU exemption reads.
    fn backlog(&self) -> u64;
}

/// 1.0 in the reciprocal square root's Q0.16 (Linux `~0U >> REC_INV_SQRT_SHIFT`).
const REC_INV_SQRT_ONE: u16 = u16::MAX;

/// CoDel's state machine (RFC 8289 section 5; Linux `struct codel_vars`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelVars {
    /// Drops (and marks) since entering the dropping state, plus the carried-over count.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// When the sojourn time will have been above target for an interval; `None`: below.
    pub first_above_time: Option<SimTime>,
    /// When the next drop is due in the dropping state.
    pub drop_next: SimTime,
    /// 1/sqrt(count) in Q0.16 (`newton = 1` only).
    rec_inv_sqrt: u16,
    /// The sojourn time of the packet last examined.
    pub ldelay: SimTime,
}

impl Default for CodelVars {
    fn default() -> Self {
        CodelVars {
            count: 0,
            lastcount: 0,
            dropping: false,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            rec_inv_sqrt: 0,
            ldelay: SimTime::ZERO,
        }
    }
}

/// One Newton step of the reciprocal square root for `count`, in Linux's fixed point:
/// `x ← x (3 − count x²) / 2` (codel_impl.h `codel_Newton_step`).
fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u64) << 16;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2) >> 2;
    let val = (val * invsqrt) >> (32 - 2 + 1);
    (val >> 16) as u16
}

impl CodelVars {
    /// `t + interval/sqrt(count)` (RFC 8289 section 5.4).
    fn control_law(&self, t: SimTime, p: &CodelParams) -> SimTime {
        let step = if p.newton {
            // Linux `reciprocal_scale(interval, rec_inv_sqrt << 16)`.
            ((p.interval.0 as u128 * ((self.rec_inv_sqrt as u128) << 16)) >> 32) as u64
        } else {
            (p.interval.0 as f64 / (self.count.max(1) as f64).sqrt()) as u64
        };
        SimTime(t.0.saturating_add(step))
    }

    /// Keeps the reciprocal square root in step with a new `count` (`newton = 1`).
    fn count_changed(&mut self, p: &CodelParams) {
        if p.newton {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// Whether the packet just taken (`None`: the queue was empty) may be dropped: its
    /// sojourn time has been at or above target for an interval (Linux `codel_should_drop`).
    fn should_drop(&mut self, head: Option<&(Packet, SimTime)>, backlog: u64, now: SimTime, p: &CodelParams) -> bool {
        let Some((_, enqueued)) = head else {
            self.first_above_time = None;
            return false;
        };
        self.ldelay = now.saturating_sub(*enqueued);
        if self.ldelay < p.target || backlog <= p.mtu {
            // Went below: stay below for at least an interval.
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now > t,
        }
    }

    /// Marks `pkt` CE if it is ECN-capable.
    fn mark(pkt: &mut Packet) -> bool {
        if pkt.flags & ECT != 0 {
            pkt.flags |= CE;
            true
        } else {
            false
        }
    }

    /// Takes the next packet to send from `q`, dropping (or marking) at its head as CoDel
    /// decides (Linux `codel_dequeue`). Dropped packets go on `dropped`, oldest first.
    pub fn dequeue(
        &mut self,
        q: &mut impl CodelQueue,
        p: &CodelParams,
        st: &mut CodelStats,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropCause)>,
    ) -> Option<Packet> {
        let Some(mut item) = q.pop() else {
            self.dropping = false;
            return None;
        };
        let mut marked = false;
        let drop = self.should_drop(Some(&item), q.backlog(), now, p);
        let mut head = Some(item);
        if self.dropping {
            if !drop {
                // The sojourn time fell below target: leave the dropping state.
                self.dropping = false;
            } else {
                // Drop (or mark) every packet due; a large backlog may make several due now.
                while self.dropping && now >= self.drop_next {
                    let Some(h) = head.as_mut() else { break };
                    self.count = self.count.wrapping_add(1);
                    self.count_changed(p);
                    if p.ecn && Self::mark(&mut h.0) {
                        st.marks += 1;
                        marked = true;
                        self.drop_next = self.control_law(self.drop_next, p);
                        break;
                    }
                    let (gone, _) = head.take().expect("checked above");
                    dropped.push((gone, DropCause::Early));
                    st.drops += 1;
                    head = q.pop();
                    if self.should_drop(head.as_ref(), q.backlog(), now, p) {
                        self.drop_next = self.control_law(self.drop_next, p);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if drop {
            item = head.take().expect("popped above");
            if p.ecn && Self::mark(&mut item.0) {
                st.marks += 1;
                marked = true;
                head = Some(item);
            } else {
                dropped.push((item.0, DropCause::Early));
                st.drops += 1;
                head = q.pop();
                self.should_drop(head.as_ref(), q.backlog(), now, p);
            }
            self.dropping = true;
            // Re-entering soon after the last dropping state: start from the drop rate
            // that controlled the queue then (RFC 8289 section 5.5).
            let delta = self.count.wrapping_sub(self.lastcount);
            if delta > 1 && now.saturating_sub(self.drop_next) < SimTime(16 * p.interval.0) {
                self.count = delta;
                self.count_changed(p);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = REC_INV_SQRT_ONE;
            }
            self.lastcount = self.count;
            self.drop_next = self.control_law(now, p);
        }
        let (mut pkt, _) = head?;
        if let Some(ce) = p.ce_threshold {
            if self.ldelay > ce && Self::mark(&mut pkt) && !marked {
                st.marks += 1;
            }
        }
        Some(pkt)
    }
}

/// A FIFO of packets with their enqueue times, in packets or bytes.
#[derive(Debug, Default)]
pub struct TimedFifo {
    pub q: VecDeque<(Packet, SimTime)>,
    pub bytes: u64,
}

impl TimedFifo {
    pub fn push(&mut self, pkt: Packet, now: SimTime) {
        self.bytes += pkt.size as u64;
        self.q.push_back((pkt, now));
    }

    /// Whether `pkt` would overflow a buffer of `cap` (as DropTail counts it).
    pub fn full(&self, cap: Capacity, pkt: &Packet) -> bool {
        match cap {
            Capacity::Packets(n) => self.q.len() as u64 >= n,
            Capacity::Bytes(b) => self.bytes + pkt.size as u64 > b,
            Capacity::Unlimited => false,
        }
    }
}

impl CodelQueue for TimedFifo {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let item = self.q.pop_front()?;
        self.bytes -= item.0.size as u64;
        Some(item)
    }

    fn backlog(&self) -> u64 {
        self.bytes
    }
}

/// `queue = "codel"`: one FIFO under CoDel.
pub struct Codel {
    cap: Capacity,
    fifo: TimedFifo,
    params: CodelParams,
    pub vars: CodelVars,
    pub stats: CodelStats,
}

impl Codel {
    pub fn new(cap: Capacity, params: CodelParams) -> Self {
        Codel { cap, fifo: TimedFifo::default(), params, vars: CodelVars::default(), stats: CodelStats::default() }
    }
}

/// CoDel's parameters with `ecn` defaulting to `$ecn`, then `$extra` (FQ-CoDel's own): the
/// one list both disciplines read their CoDel settings from.
macro_rules! codel_params {
    ($ecn:literal $(, $extra:expr)* $(,)?) => {
        &[
            ParamSpec::new("target", "number", "s", "0.005", "[1e-6, 100]"),
            ParamSpec::new("interval", "number", "s", "0.1", "[1e-6, 100]"),
            ParamSpec::new("mtu", "number", "bytes", "the flows' data packet size", "[0, 1e9]"),
            ParamSpec::new(
                "ce_threshold",
                "number",
                "s",
                "0 (off)",
                "[0, 100]; ECN-capable packets sojourning longer are marked",
            ),
            ParamSpec::new("newton", "flag", "", "0", "0 or 1 (1: Linux's 16-bit Newton-step 1/sqrt(count))"),
            ParamSpec::new("ecn", "flag", "", $ecn, "0 or 1 (1: mark ECN-capable packets CE instead of dropping)"),
            $($extra),*
        ]
    };
}
pub(crate) use codel_params;

/// The parameters of `queue = "codel"`.
pub static PARAMS: &[ParamSpec] = codel_params!("0");

/// The registry's constructor (`queue = "codel"`).
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(params);
    let mut p = CodelParams::read(&mut r, s, false)?;
    p.ecn = r.get_flag("ecn", false)?;
    r.finish()?;
    Ok(Box::new(Codel::new(s.cap, p)))
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        if self.fifo.full(self.cap, &pkt) {
            return Err((pkt, DropCause::Overflow));
        }
        self.fifo.push(pkt, ctx.now);
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.dequeue_or_drop(now, &mut Vec::new())
    }

    fn dequeue_or_drop(&mut self, now: SimTime, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        self.vars.dequeue(&mut self.fifo, &self.params, &mut self.stats, now, dropped)
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
        Some(crate::describe::QueueInfo::new("codel", self.cap, &self.params.described()))
    }

    fn marks(&self) -> u64 {
        self.stats.marks
    }
}

#[cfg(test)]
mod tests;
