//! The congestion-control interface and its registry.
//!
//! The interface mirrors Linux's `struct tcp_congestion_ops` so that an
//! algorithm written here maps one to one onto a kernel module:
//!
//! | here                | Linux                 | when                                  |
//! |---------------------|-----------------------|---------------------------------------|
//! | [`CongestionControl::ssthresh`]     | `ssthresh`    | a loss is detected (fast retransmit or RTO) |
//! | [`CongestionControl::cong_avoid`]   | `cong_avoid`  | an ACK advances `snd_una` outside recovery |
//! | [`CongestionControl::pkts_acked`]   | `pkts_acked`  | every ACK that acknowledges data, with its RTT sample |
//! | [`CongestionControl::set_state`]    | `set_state`   | the sender changes congestion state |
//! | [`CongestionControl::cwnd_event`]   | `cwnd_event`  | transmission starts, RTO, recovery ends |
//! | [`CongestionControl::undo_cwnd`]    | `undo_cwnd`   | a loss turns out spurious (unused so far) |
//! | [`CongestionControl::on_send`]      | (header option writer) | a data segment leaves; fills the CC header the receiver echoes |
//!
//! Windows are in packets (segments) as `f64`, as in ns-2, because several of
//! the papers' algorithms grow the window by fractions of a packet per ACK.
//! The TCP engine owns slow start's trigger, loss recovery and the timers; the
//! algorithm owns only its state and returns the window it wants. Shared
//! arithmetic (slow start, additive increase) lives here once.

pub mod bic;
pub mod ci;
pub mod cr;
pub mod cubic;
pub mod fast;
pub mod ghstcp;
pub mod highspeed;
pub mod hrf;
pub mod htcp;
pub mod ktcp;
pub mod lsrtt;
pub mod reno;
pub mod rtt_round;
pub mod scalable;
pub mod tcp_gt;
pub mod ubr;
pub mod vegas;
pub mod westwood;
pub mod xcp;

use crate::units::SimTime;
use std::collections::BTreeMap;

/// The sender's congestion state, as Linux's `tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs or SACKs seen, below the fast-retransmit threshold.
    Disorder,
    /// Fast recovery (RFC 5681 / 6582 / 6675).
    Recovery,
    /// After a retransmission timeout, until everything outstanding then is acknowledged.
    Loss,
}

/// Events other than ACKs that an algorithm may care about (Linux `tcp_ca_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// The first segment is about to be sent.
    TxStart,
    /// The retransmission timer fired.
    Timeout,
    /// Fast recovery ended with everything outstanding at its start acknowledged.
    RecoveryEnd,
}

/// What the sender knows when it consults the algorithm.
#[derive(Clone, Copy, Debug)]
pub struct SenderView {
    pub now: SimTime,
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets (`f64::INFINITY` before the first loss).
    pub ssthresh: f64,
    /// Segments sent and not yet cumulatively acknowledged, packets.
    pub flight_size: u64,
    /// Smoothed RTT (RFC 6298); zero before the first sample.
    pub srtt: SimTime,
    /// Smallest RTT sample seen on this connection; zero before the first sample.
    pub rtt_min: SimTime,
    /// On-the-wire size of a data packet, bytes.
    pub mss: u32,
    pub state: CaState,
}

/// One ACK's worth of input (Linux `struct ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Packets newly acknowledged by this ACK (cumulatively or by SACK).
    pub acked: u32,
    /// RTT measured from this ACK (RFC 7323 timestamps or Karn-safe timing), if any.
    pub rtt: Option<SimTime>,
    /// The receiver's clock when it sent this ACK (its TSval).
    pub rcv_tsval: SimTime,
    /// The congestion-control header of the data segment that triggered this ACK, echoed.
    pub cc_echo: CcHeader,
}

/// A small header the algorithm writes on each data segment and the receiver
/// echoes on the ACK (TCP-GT's epoch number, for instance).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcHeader(pub [u32; 3]);

impl CcHeader {
    /// Reads word `i` as an `f32` (XCP's fields are floats).
    pub fn f32(&self, i: usize) -> f32 {
        f32::from_bits(self.0[i])
    }

    /// Writes word `i` as an `f32`.
    pub fn set_f32(&mut self, i: usize, v: f32) {
        self.0[i] = v.to_bits();
    }
}

/// A congestion-control algorithm. Only `ssthresh` and `cong_avoid` are
/// required; the rest default to doing nothing.
pub trait CongestionControl: Send {
    /// The registry name, lowercase.
    fn name(&self) -> &'static str;

    /// The new slow-start threshold after a loss, in packets.
    fn ssthresh(&mut self, v: &SenderView) -> f64;

    /// The new congestion window after `acked` packets were newly acknowledged
    /// outside recovery (slow start included, as in Linux).
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64;

    /// Called for every ACK that acknowledges data, before `cong_avoid`.
    fn pkts_acked(&mut self, _v: &SenderView, _s: &AckSample) {}

    fn set_state(&mut self, _v: &SenderView, _new: CaState) {}

    fn cwnd_event(&mut self, _v: &SenderView, _ev: CwndEvent) {}

    /// The window to restore when a loss was spurious; `None` keeps the current one.
    fn undo_cwnd(&mut self, _v: &SenderView) -> Option<f64> {
        None
    }

    /// Fills the header of a data segment about to be sent.
    fn on_send(&mut self, _v: &SenderView, _seq: u64) -> CcHeader {
        CcHeader::default()
    }
}

/// Slow start (RFC 5681 with appropriate byte counting, Linux `tcp_slow_start`):
/// grows by the packets acknowledged, at most up to `ssthresh`.
/// Returns the new window and the acknowledged packets left over for congestion avoidance.
pub fn slow_start(cwnd: f64, ssthresh: f64, acked: u32) -> (f64, u32) {
    let room = (ssthresh - cwnd).max(0.0);
    let used = (acked as f64).min(room.ceil());
    let new = (cwnd + used).min(ssthresh.max(cwnd));
    (new, acked - used as u32)
}

/// Additive increase of `a` packets per window's worth of ACKs: `a/cwnd` per ACKed packet.
pub fn additive_increase(cwnd: f64, a: f64, acked: u32) -> f64 {
    cwnd + a * acked as f64 / cwnd
}

/// The common window growth: slow start below ssthresh, then `a` packets per RTT
/// with what the ACK leaves over (`a` is computed only when some is left).
pub fn slow_start_then_increase(v: &SenderView, acked: u32, a: impl FnOnce() -> f64) -> f64 {
    let (w, left) = if v.cwnd < v.ssthresh { slow_start(v.cwnd, v.ssthresh, acked) } else { (v.cwnd, acked) };
    if left == 0 {
        return w;
    }
    additive_increase(w, a(), left)
}

/// Reno's loss response, `max(cwnd/2, 2)`.
pub fn halve(v: &SenderView) -> f64 {
    (v.cwnd / 2.0).max(2.0)
}

/// Parameters given to an algorithm by name, as they came from the scenario.
pub type Params = BTreeMap<String, f64>;

/// Why an algorithm could not be built.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// The parameter's name (empty when the algorithm's name itself is wrong).
    pub param: String,
    pub value: String,
    pub accepted: String,
}

/// Reads a parameter with a default and a valid range, rejecting unknown names afterwards.
pub struct ParamReader<'a> {
    params: &'a Params,
    seen: Vec<&'static str>,
}

impl<'a> ParamReader<'a> {
    pub fn new(params: &'a Params) -> Self {
        ParamReader { params, seen: Vec::new() }
    }

    /// The value of `name`, or `default`, checked against `[lo, hi]`.
    pub fn get(&mut self, name: &'static str, default: f64, lo: f64, hi: f64) -> Result<f64, ParamError> {
        self.seen.push(name);
        match self.params.get(name) {
            None => Ok(default),
            Some(&v) if v >= lo && v <= hi => Ok(v),
            Some(&v) => Err(ParamError {
                param: name.to_string(),
                value: v.to_string(),
                accepted: format!("a number in [{lo}, {hi}] (default {default})"),
            }),
        }
    }

    /// A whole-number parameter (a count or a choice), checked against `[lo, hi]`.
    pub fn get_int(&mut self, name: &'static str, default: u32, lo: u32, hi: u32) -> Result<u32, ParamError> {
        self.seen.push(name);
        match self.params.get(name) {
            None => Ok(default),
            Some(&v) if v.fract() == 0.0 && v >= lo as f64 && v <= hi as f64 => Ok(v as u32),
            Some(&v) => Err(ParamError {
                param: name.to_string(),
                value: v.to_string(),
                accepted: format!("a whole number in [{lo}, {hi}] (default {default})"),
            }),
        }
    }

    /// An on/off switch written 1 or 0.
    pub fn get_flag(&mut self, name: &'static str, default: bool) -> Result<bool, ParamError> {
        Ok(self.get_int(name, default as u32, 0, 1)? == 1)
    }

    /// Fails on any parameter that was not read.
    pub fn finish(self) -> Result<(), ParamError> {
        for k in self.params.keys() {
            if !self.seen.contains(&k.as_str()) {
                let known = if self.seen.is_empty() { "none".to_string() } else { self.seen.join(", ") };
                return Err(ParamError {
                    param: k.clone(),
                    value: self.params[k].to_string(),
                    accepted: format!("known parameters: {known}"),
                });
            }
        }
        Ok(())
    }
}

type Builder = fn(&Params) -> Result<Box<dyn CongestionControl>, ParamError>;

/// One registered algorithm.
pub struct Registration {
    pub name: &'static str,
    pub summary: &'static str,
    pub build: Builder,
}

/// Every built-in algorithm, keyed by its lowercase name.
pub const REGISTRY: &[Registration] = &[
    Registration {
        name: "reno",
        summary: "Reno AIMD (RFC 5681): +1 packet per RTT, halve on loss; classic fast recovery by default",
        build: reno::build,
    },
    Registration {
        name: "newreno",
        summary: "NewReno (RFC 6582): Reno's AIMD with partial-ACK recovery by default",
        build: reno::build,
    },
    Registration {
        name: "highspeed",
        summary: "HighSpeed TCP (RFC 3649): a(w), b(w) from the RFC's table above 38 packets, Reno below",
        build: highspeed::build,
    },
    Registration {
        name: "scalable",
        summary: "Scalable TCP (Kelly 2003): +0.01 packet per ACK, x0.875 on loss, Reno below 16 packets",
        build: scalable::build,
    },
    Registration {
        name: "bic",
        summary: "BIC-TCP (Xu, Harfoush, Rhee 2004): binary search towards W_max, additive steps of at most S_max",
        build: bic::build,
    },
    Registration {
        name: "cubic",
        summary: "CUBIC (RFC 9438): W(t) = C (t - K)^3 + W_max with a Reno-friendly floor; variant 1 = 2008 constants",
        build: cubic::build,
    },
    Registration {
        name: "vegas",
        summary: "TCP Vegas (Brakmo, O'Malley, Peterson 1994): keep alpha..beta packets queued, +-1 packet per RTT",
        build: vegas::build,
    },
    Registration {
        name: "fast",
        summary: "FAST TCP (Jin, Wei, Low 2004): w <- min(2w, (1-g)w + g(baseRTT/avgRTT w + alpha)) once per RTT",
        build: fast::build,
    },
    Registration {
        name: "westwood",
        summary: "Westwood+ (Mascolo, Grieco et al. 2004): ssthresh = bandwidth estimate x RTTmin on loss; mode 1 = paper 001 eq. (2)",
        build: westwood::build,
    },
    Registration {
        name: "cr",
        summary: "Constant Rate (paper 001 eqs. 3-4, 7): +k RTT^2 packets per RTT, k = 1/RTT_ref^2; halve on loss",
        build: cr::build,
    },
    Registration {
        name: "ci",
        summary: "Constant Increase (paper 001 eqs. 5, 14): +k' RTT packets per RTT, k' = 1/(RTT_ref + queueing delay); halve on loss",
        build: ci::build,
    },
    Registration {
        name: "htcp",
        summary: "H-TCP (Leith, Shorten 2004): alpha grows with time since the last loss, beta = RTTmin/RTTmax in [0.5, 0.8]",
        build: htcp::build,
    },
    Registration {
        name: "xcp",
        summary: "XCP sender (Katabi et al. 2002): window moved by router feedback; needs queue = \"xcp\" on the bottleneck",
        build: xcp::build,
    },
    Registration {
        name: "tcp-gt",
        summary: "TCP-GT (Jung, Kim, Yeom, Kang 2010): window moved by goodput - throughput per epoch; IIMD with window splitting",
        build: tcp_gt::build,
    },
    Registration {
        name: "hrf",
        summary: "HRF-TCP (paper 001 eqs. 15-17): CR's +k RTT^2 per RTT while RTT = RTT_min, CI's +k' RTT once queued; Westwood decrease",
        build: hrf::build,
    },
    Registration {
        name: "w+cr+reno",
        summary: "Paper 001 section 5.2 variant: Westwood decrease, CR increase without a queue, Reno's +1 per RTT with one",
        build: hrf::build_w_cr_reno,
    },
    Registration {
        name: "w+cr+cr",
        summary: "Paper 001 section 5.2 variant: Westwood decrease, CR increase with and without a queue",
        build: hrf::build_w_cr_cr,
    },
    Registration {
        name: "ubr",
        summary: "Reno plus an extra window for under-buffered links (paper 003 eqs. 1-4): fills what Reno leaves idle, up to W_full",
        build: ubr::build,
    },
    Registration {
        name: "ghstcp",
        summary: "gentle HighSpeed TCP (Zhang, Hasegawa, Murata): HighSpeed, but +1 packet per RTT while RTTs correlate with departure times (Fisher's Z > 3.09)",
        build: ghstcp::build,
    },
    Registration {
        name: "ktcp",
        summary: "Kyushu-TCP add-on (Yoshimizu et al. 2010), alone on HighSpeed; \"<name>+ktcp\" wraps any algorithm: hold at 0.9 x the loss window for T_c^2 windows",
        build: ktcp::build,
    },
];

/// Builds the algorithm registered as `name` with `params`; `"<name>+ktcp"`
/// wraps it in Kyushu-TCP (parameters `ktcp_*` are the wrapper's, see [`ktcp`]).
pub fn build(name: &str, params: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    if let Some(inner) = name.strip_suffix(ktcp::SUFFIX) {
        return ktcp::build_around(inner, params);
    }
    match REGISTRY.iter().find(|r| r.name == name) {
        Some(r) => (r.build)(params),
        None => Err(ParamError { param: String::new(), value: name.to_string(), accepted: names().join(", ") }),
    }
}

pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        assert_eq!(slow_start(10.0, 100.0, 1), (11.0, 0));
        assert_eq!(slow_start(10.0, 12.0, 5), (12.0, 3));
    }

    #[test]
    fn additive_increase_adds_one_packet_per_window() {
        let mut w = 10.0;
        for _ in 0..10 {
            w = additive_increase(w, 1.0, 1);
        }
        // Ten ACKs at ~10 packets each add a little less than one packet.
        assert!(w > 10.95 && w < 11.0, "{w}");
    }

    #[test]
    fn unknown_algorithm_names_what_is_accepted() {
        let e = build("renoo", &Params::new()).err().unwrap();
        assert_eq!(e.value, "renoo");
        assert!(e.accepted.contains("newreno"));
    }

    #[test]
    fn out_of_range_parameter_is_rejected_with_its_range() {
        let mut p = Params::new();
        p.insert("beta".into(), 1.5);
        let e = build("reno", &p).err().unwrap();
        assert_eq!(e.param, "beta");
        assert!(e.accepted.contains("[0"), "{}", e.accepted);
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let mut p = Params::new();
        p.insert("gamma".into(), 1.0);
        let e = build("reno", &p).err().unwrap();
        assert_eq!(e.param, "gamma");
        assert!(e.accepted.contains("beta"));
    }
}
