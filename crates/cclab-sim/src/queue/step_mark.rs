//! ECN step marking at a threshold K, around any queue discipline.
//!
//! Sources: M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, section 3.1
//! ("a very simple active queue management scheme ... an arriving packet is marked with
//! the CE codepoint if the queue occupancy is greater than K upon its arrival");
//! RFC 8257 section 3.1 (the switch marks "if the instantaneous queue length is greater
//! than K"; the same as RED with the low and high thresholds at K and the weight 1, as
//! ns-3's examples/tcp/dctcp-example.cc sets up).
//!
//! Every queue discipline can carry it: `queue_params.ecn_threshold` (packets) or
//! `ecn_threshold_bytes` (bytes) on any link's queue wraps the discipline built from the
//! other parameters. On each arrival, before the discipline decides, an ECN-capable
//! packet (`ECT`) is marked `CE` when the packets (or bytes) waiting are at least K; then
//! the discipline enqueues it as it would any packet, dropping only as it would anyway
//! (DropTail when full: the usual DCTCP switch). A packet that is not ECN-capable is
//! never marked, and goes to the discipline unchanged.
//!
//! Choices:
//! - **At least K** (the paper's and RFC's "greater than K" read with K counted in whole
//!   packets: the arrival that finds K waiting is the (K+1)-th, as ns-3's RED with
//!   `MinTh = MaxTh = K` and `QW = 1` marks when its average, the instantaneous length,
//!   is at least `MinTh`). The packet in transmission is not counted (cclab's queues count
//!   what waits, as ns-3's queue discs do).
//! - **Marked before the discipline's own decision**, so a wrapped RED or CoDel may still
//!   drop or mark it by its own rule; a mark counts once in `marks()` whoever set it.
//! - **Marked even if the discipline then drops it** (full buffer): the mark counts an
//!   arrival that saw a queue of K or more, as a switch's marking counter would.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `ecn_threshold` | K, packets waiting | (off) | [0, 1e9] |
//! | `ecn_threshold_bytes` | K, bytes waiting (instead of packets) | (off) | [0, 1e15] |

use super::{DropCause, EnqueueContext, QueueDisc};
use crate::packet::{Packet, CE, ECT};
use crate::registry::{ParamError, Params};
use crate::units::SimTime;

/// The threshold K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    Packets(u64),
    Bytes(u64),
}

/// Takes the step-marking parameters out of a queue's parameters: the threshold, if one is
/// set, and the parameters left for the discipline.
pub fn split(params: &Params) -> Result<(Option<Threshold>, Params), ParamError> {
    let mut rest = params.clone();
    let mut read = |name: &str, max: f64| -> Result<Option<u64>, ParamError> {
        match rest.remove(name) {
            None => Ok(None),
            Some(v) if (0.0..=max).contains(&v) && v.fract() == 0.0 => Ok(Some(v as u64)),
            Some(v) => Err(ParamError {
                param: name.to_string(),
                value: format!("{v}"),
                accepted: format!("a whole number in [0, {max:e}]"),
            }),
        }
    };
    let pkts = read("ecn_threshold", 1e9)?;
    let bytes = read("ecn_threshold_bytes", 1e15)?;
    let k = match (pkts, bytes) {
        (Some(_), Some(b)) => {
            return Err(ParamError {
                param: "ecn_threshold_bytes".into(),
                value: b.to_string(),
                accepted: "unset when ecn_threshold is set (K in packets or in bytes, not both)".into(),
            })
        }
        (Some(k), None) => Some(Threshold::Packets(k)),
        (None, Some(b)) => Some(Threshold::Bytes(b)),
        (None, None) => None,
    };
    Ok((k, rest))
}

/// A discipline with step marking in front of it.
pub struct StepMark {
    inner: Box<dyn QueueDisc>,
    k: Threshold,
    /// Packets this wrapper marked.
    marks: u64,
}

impl StepMark {
    pub fn new(inner: Box<dyn QueueDisc>, k: Threshold) -> Self {
        StepMark { inner, k, marks: 0 }
    }

    /// Whether an arrival is marked: ECN-capable, not yet marked, K or more waiting.
    fn marks_arrival(&self, pkt: &Packet) -> bool {
        pkt.flags & ECT != 0 && pkt.flags & CE == 0 && self.at_or_above_k()
    }

    fn at_or_above_k(&self) -> bool {
        match self.k {
            Threshold::Packets(k) => self.inner.len_pkts() as u64 >= k,
            Threshold::Bytes(k) => self.inner.len_bytes() >= k,
        }
    }
}

impl QueueDisc for StepMark {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &EnqueueContext) -> Result<(), (Packet, DropCause)> {
        if self.marks_arrival(&pkt) {
            pkt.flags |= CE;
            self.marks += 1;
        }
        self.inner.enqueue(pkt, ctx)
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.inner.dequeue(now)
    }

    /// An idle queue holds nothing, so only K = 0 marks such an arrival: then it must take
    /// the round trip through `enqueue`; otherwise as the wrapped discipline says.
    fn passes_when_idle(&self, pkt: &Packet) -> bool {
        !self.marks_arrival(pkt) && self.inner.passes_when_idle(pkt)
    }

    fn dequeue_or_drop(&mut self, now: SimTime, dropped: &mut Vec<(Packet, DropCause)>) -> Option<Packet> {
        self.inner.dequeue_or_drop(now, dropped)
    }

    fn set_rate(&mut self, rate: crate::units::Rate) {
        self.inner.set_rate(rate)
    }

    fn len_pkts(&self) -> usize {
        self.inner.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }

    fn packets(&self) -> Vec<Packet> {
        self.inner.packets()
    }

    /// The wrapped discipline's description with the threshold among its parameters.
    fn describe(&self) -> Option<crate::describe::QueueInfo> {
        let mut d = self.inner.describe()?;
        match self.k {
            Threshold::Packets(k) => d.params.insert("ecn_threshold", k as f64),
            Threshold::Bytes(k) => d.params.insert("ecn_threshold_bytes", k as f64),
        };
        Some(d)
    }

    fn avg_len(&self) -> Option<f64> {
        self.inner.avg_len()
    }

    fn max_p(&self) -> Option<f64> {
        self.inner.max_p()
    }

    fn marks(&self) -> u64 {
        self.marks + self.inner.marks()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::DropTail;
    use crate::queue::{test_packet, Capacity};

    const CTX: EnqueueContext = EnqueueContext { now: SimTime(0), idle_since: None };

    fn ect(size: u32) -> Packet {
        Packet { flags: ECT, ..test_packet(size) }
    }

    fn marked(q: &mut StepMark, p: Packet) -> bool {
        q.enqueue(p, &CTX).unwrap();
        q.packets().last().unwrap().flags & CE != 0
    }

    #[test]
    fn an_ect_arrival_is_marked_when_it_finds_k_or_more_packets_waiting() {
        let mut q = StepMark::new(Box::new(DropTail::new(Capacity::Packets(10))), Threshold::Packets(3));
        let got: Vec<bool> = (0..5).map(|_| marked(&mut q, ect(1500))).collect();
        // Finds 0, 1, 2 waiting: unmarked; finds 3, 4: marked.
        assert_eq!(got, [false, false, false, true, true]);
        assert_eq!(q.marks(), 2);
        // Not-ECT traffic is never marked, whatever the queue.
        assert!(!marked(&mut q, test_packet(1500)));
        // Draining below K ends the marking.
        for _ in 0..4 {
            q.dequeue(SimTime::ZERO);
        }
        assert!(!marked(&mut q, ect(1500)), "2 waiting < 3");
    }

    #[test]
    fn an_idle_queue_passes_arrivals_through_unless_k_is_0() {
        let q = StepMark::new(Box::new(DropTail::new(Capacity::Packets(10))), Threshold::Packets(1));
        assert!(q.passes_when_idle(&ect(1500)));
        let zero = StepMark::new(Box::new(DropTail::new(Capacity::Packets(10))), Threshold::Packets(0));
        assert!(!zero.passes_when_idle(&ect(1500)), "K = 0 marks every ECT arrival");
        assert!(zero.passes_when_idle(&test_packet(1500)), "a Not-ECT one is not marked");
    }

    #[test]
    fn a_byte_threshold_counts_the_bytes_waiting() {
        let mut q = StepMark::new(Box::new(DropTail::new(Capacity::Bytes(100_000))), Threshold::Bytes(3000));
        assert!(!marked(&mut q, ect(1500)));
        assert!(!marked(&mut q, ect(1499)), "1500 bytes waiting");
        assert!(!marked(&mut q, ect(1500)), "2999 bytes waiting");
        assert!(marked(&mut q, ect(40)), "4499 bytes waiting");
    }

    #[test]
    fn the_wrapped_discipline_still_drops_when_full() {
        let mut q = StepMark::new(Box::new(DropTail::new(Capacity::Packets(2))), Threshold::Packets(1));
        q.enqueue(ect(1500), &CTX).unwrap();
        q.enqueue(ect(1500), &CTX).unwrap();
        let (p, cause) = q.enqueue(ect(1500), &CTX).unwrap_err();
        assert_eq!(cause, DropCause::Overflow);
        assert!(p.flags & CE != 0, "marked on arrival, then dropped by the full buffer");
        assert_eq!(q.len_pkts(), 2);
    }

    #[test]
    fn thresholds_are_read_out_of_the_queues_parameters_and_checked() {
        let p = |kv: &[(&str, f64)]| -> Params { kv.iter().map(|(k, v)| (k.to_string(), *v)).collect() };
        let (k, rest) = split(&p(&[("ecn_threshold", 20.0), ("min_th", 5.0)])).unwrap();
        assert_eq!(k, Some(Threshold::Packets(20)));
        assert_eq!(rest, p(&[("min_th", 5.0)]));
        assert_eq!(split(&p(&[("ecn_threshold_bytes", 30000.0)])).unwrap().0, Some(Threshold::Bytes(30000)));
        assert_eq!(split(&p(&[])).unwrap().0, None);
        for bad in [-1.0, 2.5, 1e10] {
            assert_eq!(split(&p(&[("ecn_threshold", bad)])).unwrap_err().param, "ecn_threshold");
        }
        let both = split(&p(&[("ecn_threshold", 20.0), ("ecn_threshold_bytes", 3000.0)])).unwrap_err();
        assert_eq!(both.param, "ecn_threshold_bytes");
    }
}
