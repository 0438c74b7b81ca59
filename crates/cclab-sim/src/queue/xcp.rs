//! The XCP router (Katabi, Handley, Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002), as the router-assisted
//! reference TCP-GT (paper 000) aims to match. The sender is `cc/xcp.rs`.
//!
//! Each data packet carries the sender's `H_cwnd` (bytes), `H_rtt` (seconds)
//! and `H_feedback` (bytes; the sender's request, lowered by every router).
//! Once per control interval `d` (the mean RTT of the traffic, weighted by
//! bytes) the router computes:
//!
//! - the aggregate feedback `φ = α·d·S − β·Q` (eq. 1), with `S` the spare
//!   bandwidth (capacity minus input rate, bytes/s) and `Q` the persistent
//!   queue (bytes; the smallest queue seen during the interval);
//! - the shuffled traffic `h = max(0, γ·y·d − |φ|)` (eq. 2);
//! - `ξp = (h + max(φ, 0)) / (d · Σ rtt_i·s_i/cwnd_i)` and
//!   `ξn = (h + max(−φ, 0)) / (d · Σ s_i)` over the interval's packets (eqs. 5, 6);
//!
//! and during the next interval every departing data packet gets
//! `H_feedback ← min(H_feedback, p_i − n_i)` with `p_i = ξp·rtt_i²·s_i/cwnd_i`
//! (eq. 3) and `n_i = ξn·rtt_i·s_i` (eq. 4).
//!
//! Choices where the paper is silent: the interval starts at 100 ms until
//! the first packets with an RTT arrive; packets without an RTT estimate
//! (`H_rtt = 0`, a sender's first window) and ACKs are left alone; the buffer
//! behind the controller is a DropTail queue.

use super::droptail::DropTail;
use super::{Capacity, DropCause, EnqueueContext, QueueDisc, QueueSettings};
use crate::packet::{Kind, Packet};
use crate::registry::{ParamError, ParamReader, ParamSpec, Params};
use crate::units::{Rate, SimTime};

/// Header words of XCP's congestion header in `Packet::cc`.
pub const H_CWND: usize = 0;
pub const H_RTT: usize = 1;
pub const H_FEEDBACK: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpConfig {
    /// Efficiency controller gain on spare bandwidth.
    pub alpha: f64,
    /// Efficiency controller gain on the persistent queue.
    pub beta: f64,
    /// Fraction of the traffic shuffled every interval.
    pub gamma: f64,
}

impl Default for XcpConfig {
    fn default() -> Self {
        XcpConfig { alpha: 0.4, beta: 0.226, gamma: 0.1 }
    }
}

/// The parameters of `queue = "xcp"` (`queue_params`).
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new("alpha", "number", "", "0.4", "[0, 10]"),
    ParamSpec::new("beta", "number", "", "0.226", "[0, 10]"),
    ParamSpec::new("gamma", "number", "", "0.1", "[0, 1]"),
];

/// The registry's constructor (`queue = "xcp"`).
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    let mut r = ParamReader::new(params);
    let d = XcpConfig::default();
    let cfg = XcpConfig {
        alpha: r.get("alpha", d.alpha, 0.0, 10.0)?,
        beta: r.get("beta", d.beta, 0.0, 10.0)?,
        gamma: r.get("gamma", d.gamma, 0.0, 1.0)?,
    };
    r.finish()?;
    Ok(Box::new(Xcp::new(cfg, s.cap, s.rate)))
}

/// The per-interval computation, apart from any queue.
#[derive(Clone, Debug)]
pub struct XcpController {
    pub cfg: XcpConfig,
    /// Link capacity, bytes per second.
    capacity: f64,
    /// Current control interval, seconds.
    pub d: f64,
    interval_end: SimTime,
    // Sums over the packets that arrived in this interval.
    input_bytes: f64,
    sum_rtt_s: f64,
    sum_rtt_s_over_cwnd: f64,
    sum_s: f64,
    min_queue: f64,
    /// Feedback factors in force for this interval.
    pub xi_p: f64,
    pub xi_n: f64,
}

impl XcpController {
    pub fn new(cfg: XcpConfig, rate: Rate) -> Self {
        XcpController {
            cfg,
            capacity: rate.bps() as f64 / 8.0,
            d: 0.1,
            interval_end: SimTime::from_millis(100),
            input_bytes: 0.0,
            sum_rtt_s: 0.0,
            sum_rtt_s_over_cwnd: 0.0,
            sum_s: 0.0,
            min_queue: f64::INFINITY,
            xi_p: 0.0,
            xi_n: 0.0,
        }
    }

    /// Ends the interval if due: computes ξp and ξn for the next one.
    pub fn tick(&mut self, now: SimTime, queue_bytes: f64) {
        if now < self.interval_end {
            return;
        }
        let d = self.d;
        let y = self.input_bytes / d;
        let q = if self.min_queue.is_finite() { self.min_queue } else { queue_bytes };
        let (xi_p, xi_n) = self.factors(y, q);
        self.xi_p = xi_p;
        self.xi_n = xi_n;
        // The next interval lasts the mean RTT of this one's traffic.
        if self.sum_s > 0.0 {
            self.d = (self.sum_rtt_s / self.sum_s).max(1e-6);
        }
        self.input_bytes = 0.0;
        self.sum_rtt_s = 0.0;
        self.sum_rtt_s_over_cwnd = 0.0;
        self.sum_s = 0.0;
        self.min_queue = queue_bytes;
        self.interval_end = now + SimTime::from_secs_f64(self.d);
    }

    /// ξp and ξn for an input rate `y` (bytes/s) and persistent queue `q` (bytes),
    /// from this interval's sums (eqs. 1, 2, 5, 6).
    pub fn factors(&self, y: f64, q: f64) -> (f64, f64) {
        let c = &self.cfg;
        let d = self.d;
        let phi = c.alpha * d * (self.capacity - y) - c.beta * q; // eq. (1)
        let h = (c.gamma * y * d - phi.abs()).max(0.0); // eq. (2)
        let xi_p =
            if self.sum_rtt_s_over_cwnd > 0.0 { (h + phi.max(0.0)) / (d * self.sum_rtt_s_over_cwnd) } else { 0.0 };
        let xi_n = if self.sum_s > 0.0 { (h + (-phi).max(0.0)) / (d * self.sum_s) } else { 0.0 };
        (xi_p, xi_n)
    }

    /// Accounts for an arriving packet.
    pub fn on_arrival(&mut self, p: &Packet, queue_bytes: f64) {
        self.input_bytes += p.size as f64;
        self.min_queue = self.min_queue.min(queue_bytes);
        if p.kind != Kind::Data {
            return;
        }
        let rtt = p.cc.f32(H_RTT) as f64;
        let cwnd = p.cc.f32(H_CWND) as f64;
        if rtt > 0.0 && cwnd > 0.0 {
            let s = p.size as f64;
            self.sum_rtt_s += rtt * s;
            self.sum_rtt_s_over_cwnd += rtt * s / cwnd;
            self.sum_s += s;
        }
    }

    /// This packet's feedback, `p_i − n_i` (eqs. 3, 4), bytes.
    pub fn feedback(&self, p: &Packet) -> Option<f64> {
        let rtt = p.cc.f32(H_RTT) as f64;
        let cwnd = p.cc.f32(H_CWND) as f64;
        if p.kind != Kind::Data || rtt <= 0.0 || cwnd <= 0.0 {
            return None;
        }
        let s = p.size as f64;
        Some(self.xi_p * rtt * rtt * s / cwnd - self.xi_n * rtt * s)
    }
}

/// A DropTail queue whose departures carry XCP feedback.
pub struct Xcp {
    ctl: XcpController,
    fifo: DropTail,
}

impl Xcp {
    pub fn new(cfg: XcpConfig, cap: Capacity, rate: Rate) -> Self {
        Xcp { ctl: XcpController::new(cfg, rate), fifo: DropTail::new(cap) }
    }
}

impl QueueDisc for Xcp {
    fn enqueue(&mut self, pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        let queued = self.fifo.len_bytes() as f64;
        self.ctl.tick(ctx.now, queued);
        self.ctl.on_arrival(&pkt, queued);
        self.fifo.enqueue(pkt, ctx)
    }

    /// The capacity `C` of equation (1) follows the link's rate.
    fn set_rate(&mut self, rate: Rate) {
        self.ctl.capacity = rate.bps() as f64 / 8.0;
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.ctl.tick(now, self.fifo.len_bytes() as f64);
        let mut p = self.fifo.dequeue(now)?;
        if let Some(fb) = self.ctl.feedback(&p) {
            let h = p.cc.f32(H_FEEDBACK) as f64;
            p.cc.set_f32(H_FEEDBACK, h.min(fb) as f32);
        }
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn packets(&self) -> Vec<Packet> {
        self.fifo.packets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;

    fn data(cwnd: f32, rtt: f32) -> Packet {
        let mut cc = CcHeader::default();
        cc.set_f32(H_CWND, cwnd);
        cc.set_f32(H_RTT, rtt);
        cc.set_f32(H_FEEDBACK, 1e9);
        Packet { cc, ..crate::queue::test_packet(1000) }
    }

    /// 10 Mbit/s = 1.25e6 B/s; d = 0.1 s; 100 packets of 1000 B from flows with
    /// cwnd 10000 B and rtt 0.1 s arrived in the interval (y = 1e6 B/s), no queue.
    fn controller() -> XcpController {
        let mut c = XcpController::new(XcpConfig::default(), Rate(10_000_000));
        for _ in 0..100 {
            c.on_arrival(&data(10_000.0, 0.1), 0.0);
        }
        c
    }

    #[test]
    fn aggregate_feedback_for_a_known_aggregate() {
        let c = controller();
        // φ = 0.4 · 0.1 · (1.25e6 − 1e6) − 0 = 10000 B; h = max(0, 0.1·1e6·0.1 − 10000) = 0.
        // Σ rtt·s/cwnd = 100 · 0.1·1000/10000 = 1; ξp = 10000 / (0.1 · 1) = 1e5; ξn = 0.
        let (xi_p, xi_n) = c.factors(1e6, 0.0);
        // (H_rtt travels as an f32: relative tolerance 1e-6.)
        assert!((xi_p / 1e5 - 1.0).abs() < 1e-6, "{xi_p}");
        assert_eq!(xi_n, 0.0);
    }

    #[test]
    fn per_packet_feedback_sums_to_the_aggregate() {
        let mut c = controller();
        let (xi_p, xi_n) = c.factors(1e6, 0.0);
        c.xi_p = xi_p;
        c.xi_n = xi_n;
        // p_i = ξp · rtt² · s / cwnd = 1e5 · 0.01 · 1000/10000 = 100 B; 100 packets give φ = 10000 B.
        let fb = c.feedback(&data(10_000.0, 0.1)).unwrap();
        assert!((fb / 100.0 - 1.0).abs() < 1e-6, "{fb}");
    }

    #[test]
    fn a_persistent_queue_gives_negative_feedback_proportional_to_size() {
        let c = controller();
        // Full link (y = C) and a 20000 B queue: φ = −0.226 · 20000 = −4520; h = 0.1·1.25e6·0.1 − 4520 = 7980.
        // ξp = 7980 / 0.1 = 79800; ξn = (7980 + 4520) / (0.1 · 1e5) = 1.25.
        let (xi_p, xi_n) = c.factors(1.25e6, 20_000.0);
        assert!((xi_p / 79_800.0 - 1.0).abs() < 1e-6, "{xi_p}");
        assert!((xi_n / 1.25 - 1.0).abs() < 1e-6, "{xi_n}");
    }

    #[test]
    fn feedback_only_lowers_the_header_and_skips_acks() {
        let mut q = Xcp::new(XcpConfig::default(), Capacity::Unlimited, Rate(10_000_000));
        q.ctl.xi_p = 1e5;
        let mut p = data(10_000.0, 0.1);
        p.cc.set_f32(H_FEEDBACK, 50.0);
        q.enqueue(p, &EnqueueContext { now: SimTime::ZERO, idle_since: None }).unwrap();
        // The router would give 100 B but the sender asked for 50: it stays 50.
        assert_eq!(q.dequeue(SimTime::ZERO).unwrap().cc.f32(H_FEEDBACK), 50.0);
        let mut a = data(10_000.0, 0.1);
        a.kind = Kind::Ack;
        assert_eq!(q.ctl.feedback(&a), None);
    }
}
