//! Links that change over time: rate, delay and loss schedules (steps at given times), a
//! Gilbert-Elliott loss channel, and Mahimahi's delivery-opportunity traces (docs/links.md).
//!
//! A link has these only when its scenario asks (`Link::vary`); every other link takes none of
//! the paths here, and its results are those of a fixed link bit for bit.
//!
//! # Steps
//!
//! A schedule is a list of (time, value) steps; the link's own `rate`, `delay` or `loss` holds
//! until the first. Nothing is scheduled for a step: the link reads it at the next packet that
//! arrives or starts to be sent (`Link::refresh`), since no state of a link changes between its
//! packets. A varying link is never private (`sim/link.rs`), so its clock never runs ahead.
//!
//! - Rate: a packet is sent at the rate in force when its transmission starts; one being sent
//!   when the rate changes finishes at the old rate (as ns-3's PointToPointNetDevice, whose
//!   data rate is read at TransmitStart, and Linux netem's rate, computed at enqueue).
//!   The serialization time cached per packet size (`tx_time_of`) is reset at each change.
//! - Delay: a packet takes the delay in force when its transmission starts (ns-3 reads its
//!   channel's delay then). The wire stays first in, first out: after a decrease a packet
//!   arrives no earlier than the one sent before it (ns-3 and netem would reorder them; a
//!   cellular link's in-order delivery and the wire as a FIFO of the engine both want order).
//! - Loss: each arriving packet is dropped with the probability in force, before the queue.
//! - The queue discipline is told each new rate (`QueueDisc::set_rate`): RED's idle-time
//!   estimate and XCP's capacity follow the link. PIE needs none (it measures departures);
//!   RED's and PIE's thresholds and parameters derived from the rate at set-up keep the
//!   nominal `rate`.
//!
//! # Gilbert-Elliott loss
//!
//! Two states, good and bad. At each arriving packet, as Linux netem's `loss_gilb_ell()`
//! (net/sched/sch_netem.c, `loss gemodel p r 1-h 1-k`): a first draw moves the state (good to
//! bad with probability `p`, bad to good with `r`), a second loses the packet with the loss
//! probability of the state it was in before the move (`loss_good`, netem's 1-k, default 0;
//! `loss_bad`, netem's 1-h, default 1: Gilbert's model). The mean loss is
//! `(r loss_good + p loss_bad) / (p + r)`; with `loss_bad = 1` and `loss_good = 0` a burst of
//! losses lasts `1/r` packets on average.
//!
//! # Mahimahi traces
//!
//! As mm-link (ravinet/mahimahi, src/frontend/link_queue.cc): each line of the trace is a
//! delivery opportunity of 1500 bytes at that whole millisecond, counted from the start of the
//! run; several lines may name the same millisecond. When the trace ends it repeats, shifted by
//! its last timestamp (which must be > 0). At each opportunity the queue's packets are sent
//! while its bytes last: a packet may use the bytes an earlier one left in the same
//! opportunity, and one larger than what is left takes the rest and continues in the next
//! opportunities, leaving when its last byte is sent (at that opportunity's time). Bytes nobody
//! uses are lost, never banked. Only packets that arrived before an opportunity's millisecond
//! may use it (mm-link burns the opportunities due before it queues an arriving packet).
//!
//! The event model: an arrival at an idle link waits in the queue until the next opportunity
//! (its `LinkReady`), so queue lengths and sojourn times are those of mm-link. Two choices where
//! the model and mm-link's real time differ: a packet arriving at the very instant of an
//! opportunity that a packet before it is still using may use it (mm-link, with millisecond
//! timestamps, would not); and a packet taken from the queue at one opportunity is counted as
//! "being sent" (out of the queue) until the opportunity it leaves at, as mm-link's packet in
//! transit. The link's `rate` is then nominal: the queue disciplines and "bdp" buffers use it.
//! Its `utilization` is the delivered bytes over the trace's mean capacity.

use super::Link;
use crate::units::{Rate, SimTime, PS_PER_SEC};
use rand::Rng;
use rand_pcg::Pcg64;
use std::collections::VecDeque;
use std::sync::Arc;

/// The bytes of one Mahimahi delivery opportunity (mm-link's `PACKET_SIZE`, one MTU).
pub const MAHIMAHI_BYTES: u32 = 1500;
const PS_PER_MS: u64 = PS_PER_SEC / 1000;

/// Values that take effect at given times, in increasing order of time.
#[derive(Clone, Debug)]
pub struct Steps<T> {
    at: Vec<SimTime>,
    val: Vec<T>,
    /// Steps already taken.
    next: usize,
}

impl<T: Copy> Steps<T> {
    /// `steps` in increasing order of time (the scenario checks it).
    pub fn new(steps: Vec<(SimTime, T)>) -> Self {
        let (at, val) = steps.into_iter().unzip();
        Steps { at, val, next: 0 }
    }

    /// The value of the latest step due at `now` that was not taken yet, if any.
    #[inline]
    fn due(&mut self, now: SimTime) -> Option<T> {
        let mut v = None;
        while self.next < self.at.len() && self.at[self.next] <= now {
            v = Some(self.val[self.next]);
            self.next += 1;
        }
        v
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Every step, (time, value), in order.
    pub fn steps(&self) -> impl Iterator<Item = (SimTime, T)> + '_ {
        self.at.iter().copied().zip(self.val.iter().copied())
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

/// A Mahimahi trace being served: its opportunities and how far the link has used them.
#[derive(Clone, Debug)]
pub struct Opportunities {
    /// Each opportunity's millisecond, nondecreasing, the last > 0.
    ms: Arc<[u32]>,
    /// The trace repeats every `period` (its last timestamp).
    period: SimTime,
    /// The first opportunity (counted over all repetitions) not used up.
    next: u64,
    /// Bytes left in it.
    left: u32,
}

impl Opportunities {
    /// A trace as `parse_mahimahi` returns it.
    pub fn new(ms: Arc<[u32]>) -> Self {
        let last = *ms.last().expect("a parsed trace has a line");
        Opportunities { period: SimTime(last as u64 * PS_PER_MS), ms, next: 0, left: MAHIMAHI_BYTES }
    }

    /// When opportunity `i` (counted over all repetitions) comes.
    #[inline]
    fn time(&self, i: u64) -> SimTime {
        let n = self.ms.len() as u64;
        let cycle = i / n;
        SimTime(cycle.saturating_mul(self.period.0).saturating_add(self.ms[(i % n) as usize] as u64 * PS_PER_MS))
    }

    /// The first opportunity from `from` on that comes after `t` (`strict`) or at it.
    fn first(&self, from: u64, t: SimTime, strict: bool) -> u64 {
        let ok = |at: SimTime| if strict { at > t } else { at >= t };
        if ok(self.time(from)) {
            return from;
        }
        // Opportunities come in nondecreasing time over the repetitions: search t's repetition.
        let n = self.ms.len() as u64;
        let cycle = t.0 / self.period.0;
        let base = cycle * self.period.0;
        let pos = self.ms.partition_point(|&m| !ok(SimTime(base + m as u64 * PS_PER_MS))) as u64;
        (cycle * n + pos).max(from)
    }

    /// When a packet arriving now at the idle link is sent from (the next opportunity after now).
    #[inline]
    pub fn after(&self, now: SimTime) -> SimTime {
        self.time(self.first(self.next, now, true))
    }

    /// When the link can send its next waiting packet.
    #[inline]
    pub fn ready_at(&self) -> SimTime {
        self.time(self.next)
    }

    /// A packet of `size` bytes starts to use the opportunities at `now`; returns when its last
    /// byte is sent. Opportunities before `now` went unused and are lost.
    pub fn serve(&mut self, now: SimTime, size: u32) -> SimTime {
        let mut i = self.first(self.next, now, false);
        if i != self.next {
            self.left = MAHIMAHI_BYTES;
        }
        let mut need = size;
        loop {
            let take = need.min(self.left);
            need -= take;
            self.left -= take;
            if need == 0 {
                break;
            }
            i += 1;
            self.left = MAHIMAHI_BYTES;
        }
        let sent = self.time(i);
        if self.left == 0 {
            i += 1;
            self.left = MAHIMAHI_BYTES;
        }
        self.next = i;
        sent
    }

    /// The trace's mean capacity: its bytes per period.
    pub fn mean_rate(&self) -> Rate {
        let bits = self.ms.len() as u128 * MAHIMAHI_BYTES as u128 * 8 * PS_PER_SEC as u128;
        Rate((bits / self.period.0 as u128).max(1) as u64)
    }

    /// The share of the trace's time `size` bytes take at its mean capacity (the busy time a
    /// packet adds, so that utilization is delivered bytes over mean capacity).
    fn share(&self, size: u32) -> SimTime {
        let num = size as u128 * self.period.0 as u128;
        SimTime((num / (self.ms.len() as u128 * MAHIMAHI_BYTES as u128)) as u64)
    }

    pub fn len(&self) -> usize {
        self.ms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ms.is_empty()
    }
}

/// Reads a Mahimahi trace: one whole number of milliseconds per line, nondecreasing, the last
/// > 0 (mm-link's own checks), at most `max_lines` lines. The error names the line.
pub fn parse_mahimahi(text: &str, max_lines: usize) -> Result<Vec<u32>, String> {
    let mut ms: Vec<u32> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            return Err(format!("line {}: an empty line (a trace has one millisecond per line)", i + 1));
        }
        if ms.len() >= max_lines {
            return Err(format!("more than {max_lines} lines"));
        }
        let v: u32 =
            line.parse().map_err(|_| format!("line {}: '{}' is not a whole number of milliseconds", i + 1, line))?;
        if ms.last().is_some_and(|&last| v < last) {
            return Err(format!("line {}: {v} is earlier than the line before (timestamps never decrease)", i + 1));
        }
        ms.push(v);
    }
    match ms.last() {
        None => Err("no line (a trace has one millisecond per line)".into()),
        Some(0) => Err("the last timestamp is 0 (a trace lasts a nonzero time)".into()),
        Some(_) => Ok(ms),
    }
}

/// Gilbert-Elliott loss (module comment).
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    /// Good to bad, per packet.
    pub p: f64,
    /// Bad to good, per packet.
    pub r: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    bad: bool,
    rng: Pcg64,
}

impl GilbertElliott {
    pub fn new(p: f64, r: f64, loss_good: f64, loss_bad: f64, rng: Pcg64) -> Self {
        GilbertElliott { p, r, loss_good, loss_bad, bad: false, rng }
    }

    /// Moves the channel's state for one packet; `true` if the packet is lost (by the state it
    /// found, as netem: the move and the loss are two draws).
    fn lose(&mut self) -> bool {
        let (flip, loss) = if self.bad { (self.r, self.loss_bad) } else { (self.p, self.loss_good) };
        if self.rng.gen::<f64>() < flip {
            self.bad = !self.bad;
        }
        self.rng.gen::<f64>() < loss
    }
}

/// What changes over time on one link.
#[derive(Debug)]
pub struct Varying {
    pub rate: Option<Steps<Rate>>,
    pub delay: Option<Steps<SimTime>>,
    /// Steps of the random loss probability (the link's `loss` holds the one in force).
    pub loss: Option<Steps<f64>>,
    pub gilbert_elliott: Option<GilbertElliott>,
    pub trace: Option<Opportunities>,
    /// Each packet's delay is `delay_now` plus a uniform draw in [-jitter, +jitter] (`jitter` at
    /// most the least delay, so never negative), and no earlier than the packet before it.
    pub jitter: Option<(SimTime, Pcg64)>,
    rate_now: Rate,
    delay_now: SimTime,
    /// When the last packet sent reaches the far end (the wire keeps order).
    last_arrival: SimTime,
    /// When the last packet sent began to be sent.
    last_start: SimTime,
    /// When each packet on the wire began to be sent (the wire's head event is made then).
    started: VecDeque<SimTime>,
}

impl Varying {
    pub fn new(
        rate: Option<Steps<Rate>>,
        delay: Option<Steps<SimTime>>,
        loss: Option<Steps<f64>>,
        gilbert_elliott: Option<GilbertElliott>,
        trace: Option<Opportunities>,
    ) -> Self {
        Varying {
            rate,
            delay,
            loss,
            gilbert_elliott,
            trace,
            jitter: None,
            rate_now: Rate(1),
            delay_now: SimTime::ZERO,
            last_arrival: SimTime::ZERO,
            last_start: SimTime::ZERO,
            started: VecDeque::new(),
        }
    }

    /// The rate in force (the link's own before the first step).
    /// With a per-packet delay jitter and its random stream.
    pub fn with_jitter(mut self, jitter: Option<(SimTime, Pcg64)>) -> Self {
        self.jitter = jitter;
        self
    }

    pub fn rate_now(&self) -> Rate {
        self.rate_now
    }
}

impl Link {
    /// Makes the link vary as `v` says, from its own rate and delay.
    pub fn set_varying(&mut self, mut v: Varying) {
        v.rate_now = self.rate;
        v.delay_now = self.delay;
        self.vary = Some(Box::new(v));
    }

    /// Takes the steps due at `now`.
    pub(super) fn refresh(&mut self, now: SimTime) {
        let Some(v) = self.vary.as_deref_mut() else { return };
        if let Some(r) = v.rate.as_mut().and_then(|s| s.due(now)) {
            if r != v.rate_now {
                v.rate_now = r;
                self.tx_time_of = (0, SimTime::ZERO);
                self.queue.set_rate(r);
            }
        }
        if let Some(d) = v.delay.as_mut().and_then(|s| s.due(now)) {
            v.delay_now = d;
        }
        if let Some(p) = v.loss.as_mut().and_then(|s| s.due(now)) {
            if let Some((prob, _)) = &mut self.loss {
                *prob = p;
            }
        }
    }

    /// A packet arrives at a varying link: takes the steps due, then `true` if it is lost.
    pub(super) fn varying_loses(&mut self, now: SimTime) -> bool {
        self.refresh(now);
        if let Some(ge) = self.vary.as_deref_mut().and_then(|v| v.gilbert_elliott.as_mut()) {
            return ge.lose();
        }
        match &mut self.loss {
            Some((prob, rng)) => *prob > 0.0 && rng.gen::<f64>() < *prob,
            None => false,
        }
    }

    /// For a packet arriving at the idle link at `now`: when a trace link can send it (the next
    /// opportunity after now); `None` when the link sends at once.
    #[inline]
    pub(super) fn waits_until(&self, now: SimTime) -> Option<SimTime> {
        self.vary.as_deref().and_then(|v| v.trace.as_ref()).map(|t| t.after(now))
    }

    /// When the next waiting packet can be sent: when the transmitter frees up, or a trace
    /// link's next opportunity.
    #[inline]
    pub(super) fn next_ready(&self) -> SimTime {
        match self.vary.as_deref().and_then(|v| v.trace.as_ref()) {
            Some(t) => t.ready_at().max(self.busy_until),
            None => self.busy_until,
        }
    }

    /// `transmit` on a varying link.
    pub(super) fn transmit_varying(&mut self, now: SimTime, size: u32) -> SimTime {
        self.refresh(now);
        let v = self.vary.as_deref_mut().expect("called on a varying link");
        let (end, busy) = match &mut v.trace {
            Some(t) => (t.serve(now, size), t.share(size)),
            None => {
                if self.tx_time_of.0 != size {
                    self.tx_time_of = (size, v.rate_now.tx_time(size));
                }
                (now + self.tx_time_of.1, self.tx_time_of.1)
            }
        };
        self.busy_until = end;
        self.busy_time += busy;
        self.tx_pkts += 1;
        self.tx_bytes += size as u64;
        let delay = match &mut v.jitter {
            // Uniform in [delay - j, delay + j], in whole picoseconds.
            Some((j, rng)) if j.0 > 0 => SimTime(v.delay_now.0 - j.0 + rng.gen_range(0..=j.0.saturating_mul(2))),
            _ => v.delay_now,
        };
        let arrive = (end + delay).max(v.last_arrival);
        v.last_arrival = arrive;
        v.last_start = now;
        arrive
    }

    /// The packet just sent goes on the wire: remembers when it began to be sent.
    #[inline]
    pub(super) fn varying_wire_push(&mut self) {
        if let Some(v) = self.vary.as_deref_mut() {
            v.started.push_back(v.last_start);
        }
    }

    /// The wire's head left: when the next packet on it began to be sent.
    #[inline]
    pub(super) fn varying_wire_pop(&mut self) -> Option<SimTime> {
        let v = self.vary.as_deref_mut().expect("called on a varying link");
        v.started.pop_front();
        v.started.front().copied()
    }
}

#[cfg(test)]
mod tests;
