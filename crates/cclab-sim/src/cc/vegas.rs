//! TCP Vegas: keep between `alpha` and `beta` of the flow's own packets queued.
//!
//! Source: L. S. Brakmo, S. W. O'Malley, L. L. Peterson, "TCP Vegas: New techniques for
//! congestion detection and avoidance", ACM SIGCOMM 1994 (and Brakmo and Peterson,
//! IEEE JSAC 13(8), 1995), section 3.2; the semantics of Linux `net/ipv4/tcp_vegas.c`
//! where the paper leaves a choice.
//!
//! Once per round trip Vegas compares the rate it would get with nothing of its own
//! queued, `cwnd / baseRTT`, with the rate it gets, `cwnd / RTT`. Their difference times
//! `baseRTT` is the number of its packets sitting in queues:
//!
//! `diff = cwnd · (1 − baseRTT / RTT)` packets.
//!
//! In congestion avoidance the window grows by one packet in that round if
//! `diff < alpha`, shrinks by one if `diff > beta`, and holds otherwise. In slow start
//! the window doubles per round until `diff > gamma`; then it is set to what the
//! measured rate fills, `cwnd · baseRTT / RTT + 1`, and slow start ends. A loss halves
//! the window as Reno does.
//!
//! Choices where the paper is silent or Linux differs:
//! - `baseRTT` is the smallest RTT sample of the connection; `RTT` is the smallest
//!   sample of the last round (Linux: the minimum filters out delayed-ACK noise; the
//!   paper times one segment per round).
//! - `diff` is the paper's `(Expected − Actual) · baseRTT`. Linux computes
//!   `cwnd · (RTT − baseRTT) / baseRTT`, larger by `RTT / baseRTT`, which counts more
//!   packets queued than there are; with alpha = 2 the two differ by a few percent.
//! - Rounds are Linux's (from one `snd_nxt` mark to the next), found from RTT samples
//!   (`rtt_round.rs`). A round with fewer than three RTT samples gives Reno's increase
//!   for that ACK instead of a Vegas decision (Linux: those are likely delayed ACKs).
//! - Slow start doubles every round (Linux), not every other round (paper), and its
//!   exit sets the window to the measured rate plus one (Linux) instead of cutting it
//!   by an eighth (paper). The sender only sets ssthresh on losses, so the algorithm
//!   keeps its own threshold for the rest of the connection (Linux lowers
//!   `snd_ssthresh` here), cleared at the next loss.
//! - Vegas decides only in the Open state and from the second round after returning
//!   to it (Linux `vegas_enable`: samples from recovery are stale); otherwise Reno.
//! - A loss halves cwnd (`max(cwnd/2, 2)`, Linux uses Reno's ssthresh). The paper's
//!   changes to retransmission (fine-grained timeouts) are not modelled: the sender's
//!   loss recovery is the same for every algorithm.
//! - After a Vegas decision the window is at least 2 packets (Linux).
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `alpha` | grow while fewer than this many packets are queued, packets | 2 (Linux; paper 1) | [0, 10000] |
//! | `beta` | shrink while more than this many packets are queued, packets | 4 (Linux; paper 3) | [alpha, 10000] |
//! | `gamma` | leave slow start above this many packets queued, packets | 1 | [0, 10000] |

use super::rtt_round::RttRound;
use super::{slow_start, CaState, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView};
use crate::cc::AckSample;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Lower bound on the flow's packets in queues, packets.
    pub alpha: f64,
    /// Upper bound on the flow's packets in queues, packets.
    pub beta: f64,
    /// Slow-start exit threshold on the flow's packets in queues, packets.
    pub gamma: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig { alpha: 2.0, beta: 4.0, gamma: 1.0 }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    Ok(Box::new(Vegas::new(read_config(p, VegasConfig::default())?)))
}

/// alpha, beta and gamma from `p`, `defaults` where absent (also vegas_ns2.rs's).
pub fn read_config(p: &Params, defaults: VegasConfig) -> Result<VegasConfig, ParamError> {
    let d = defaults;
    let mut r = ParamReader::new(p);
    let alpha = r.get("alpha", d.alpha, 0.0, 1e4)?;
    let beta = r.get("beta", d.beta, 0.0, 1e4)?;
    let gamma = r.get("gamma", d.gamma, 0.0, 1e4)?;
    r.finish()?;
    if beta < alpha {
        return Err(ParamError {
            param: "beta".into(),
            value: beta.to_string(),
            accepted: format!("a number of packets >= alpha ({alpha})"),
        });
    }
    Ok(VegasConfig { alpha, beta, gamma })
}

/// Packets of this flow in queues: `cwnd · (1 − baseRTT/RTT)` (Expected − Actual, times baseRTT).
pub fn queued_packets(cwnd: f64, base_rtt: f64, rtt: f64) -> f64 {
    cwnd * (1.0 - base_rtt / rtt)
}

/// How a round's decision measures the packets the flow keeps queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimate {
    /// The paper's `cwnd · (1 − baseRTT/RTT)`, unrounded.
    Paper,
    /// Linux's, in whole packets and microseconds (vegas_linux.rs).
    Linux,
}

pub struct Vegas {
    cfg: VegasConfig,
    estimate: Estimate,
    round: RttRound,
    /// Smallest RTT sample of the connection, seconds (infinite before the first).
    base_rtt: f64,
    /// Smallest RTT sample of the current round, seconds.
    round_rtt: f64,
    /// RTT samples taken in the current round.
    round_samples: u32,
    /// The last ACK closed a round (set by `pkts_acked`, used by `cong_avoid`).
    round_ended: bool,
    /// Vegas decides only in the Open state (Linux `doing_vegas_now`).
    enabled: bool,
    /// The threshold Vegas set itself on leaving slow start, packets.
    own_ssthresh: f64,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        Self::with_estimate(cfg, Estimate::Paper)
    }

    pub fn with_estimate(cfg: VegasConfig, estimate: Estimate) -> Self {
        Vegas {
            cfg,
            estimate,
            round: RttRound::default(),
            base_rtt: f64::INFINITY,
            round_rtt: f64::INFINITY,
            round_samples: 0,
            round_ended: false,
            enabled: true,
            own_ssthresh: f64::INFINITY,
        }
    }

    /// Starts counting a fresh round now (Linux `vegas_enable`).
    fn enable(&mut self, v: &SenderView) {
        self.enabled = true;
        self.round.restart(v.now);
        self.round_rtt = f64::INFINITY;
        self.round_samples = 0;
        self.round_ended = false;
    }

    /// Reno's growth with Vegas's threshold `ssthresh` (Linux `tcp_reno_cong_avoid`).
    fn reno(v: &SenderView, ssthresh: f64, acked: u32) -> f64 {
        super::slow_start_then_increase(&SenderView { ssthresh, ..*v }, acked, || 1.0)
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        match self.estimate {
            Estimate::Paper => "vegas",
            Estimate::Linux => "vegas-linux",
        }
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("alpha", self.cfg.alpha), ("beta", self.cfg.beta), ("gamma", self.cfg.gamma)]
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.own_ssthresh = f64::INFINITY;
        super::halve(v)
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            let r = match self.estimate {
                Estimate::Paper => r.secs_f64().max(1e-9),
                Estimate::Linux => super::vegas_linux::vrtt(r),
            };
            self.base_rtt = self.base_rtt.min(r);
            self.round_rtt = self.round_rtt.min(r);
            self.round_samples += 1;
        }
        self.round_ended = self.round.on_ack(v.now, s.rtt);
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        if new == CaState::Open {
            self.enable(v);
        } else {
            self.enabled = false;
        }
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::TxStart {
            self.enable(v);
        }
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        let ssthresh = v.ssthresh.min(self.own_ssthresh);
        let in_slow_start = v.cwnd < ssthresh;
        if !self.enabled {
            return Self::reno(v, ssthresh, acked);
        }
        if !std::mem::take(&mut self.round_ended) {
            return if in_slow_start { slow_start(v.cwnd, ssthresh, acked).0 } else { v.cwnd };
        }
        let (rtt, samples) = (self.round_rtt, self.round_samples);
        self.round_rtt = f64::INFINITY;
        self.round_samples = 0;
        if samples <= 2 {
            return Self::reno(v, ssthresh, acked);
        }
        let (diff, fills) = match self.estimate {
            Estimate::Paper => (queued_packets(v.cwnd, self.base_rtt, rtt), v.cwnd * self.base_rtt / rtt),
            Estimate::Linux => super::vegas_linux::estimate(v.cwnd, self.base_rtt, rtt),
        };
        let mut w = v.cwnd;
        if in_slow_start && diff > self.cfg.gamma {
            // Leave slow start at the window the measured rate fills.
            w = w.min(fills + 1.0);
            self.own_ssthresh = w;
        } else if in_slow_start {
            w = slow_start(v.cwnd, ssthresh, acked).0;
        } else if diff > self.cfg.beta {
            w -= 1.0;
            // Stay in congestion avoidance (Linux: ssthresh = min(ssthresh, cwnd)).
            self.own_ssthresh = self.own_ssthresh.min(w);
        } else if diff < self.cfg.alpha {
            w += 1.0;
        }
        w.max(super::MIN_WINDOW)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;
    use crate::units::SimTime;

    fn view(now_us: u64, cwnd: f64, ssthresh: f64) -> SenderView {
        SenderView { now: SimTime::from_micros(now_us), ..crate::cc::testing::view(cwnd, ssthresh) }
    }

    /// One ACK at `now_ms` with an RTT sample of `rtt_ms`: the new window.
    fn ack(c: &mut Vegas, now_ms: f64, rtt_ms: f64, cwnd: f64, ssthresh: f64) -> f64 {
        let v = view((now_ms * 1000.0) as u64, cwnd, ssthresh);
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_micros((rtt_ms * 1000.0) as u64)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&v, &s);
        c.cong_avoid(&v, 1)
    }

    /// A Vegas that has seen baseRTT = 40 ms and is at the start of a round at t = 40 ms.
    fn started(cfg: VegasConfig) -> Vegas {
        let mut c = Vegas::new(cfg);
        c.cwnd_event(&view(0, 2.0, f64::INFINITY), CwndEvent::TxStart);
        // The first ACK ends the round that began at the first transmission.
        ack(&mut c, 40.0, 40.0, 50.0, 10.0);
        c
    }

    /// Feeds one round of four ACKs with RTT `rtt_ms` at window `cwnd`; returns the
    /// windows after the three ACKs inside the round and after the one that closes it.
    fn round(c: &mut Vegas, rtt_ms: f64, cwnd: f64, ssthresh: f64) -> ([f64; 3], f64) {
        // The round began at 40 ms: segments sent before that do not close it.
        let inside = [41.0, 42.0, 43.0].map(|t| ack(c, t, rtt_ms, cwnd, ssthresh));
        (inside, ack(c, 40.0 + rtt_ms, rtt_ms, cwnd, ssthresh))
    }

    #[test]
    fn queued_packets_is_expected_minus_actual_times_base_rtt() {
        // 50 · (1 − 40/50) = 10.
        assert!((queued_packets(50.0, 0.040, 0.050) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn vegas_adds_one_packet_when_fewer_than_alpha_are_queued() {
        let mut c = started(VegasConfig::default());
        // 50 · (1 − 40/41) = 1.22 < 2.
        assert_eq!(round(&mut c, 41.0, 50.0, 10.0).1, 51.0);
    }

    #[test]
    fn vegas_removes_one_packet_when_more_than_beta_are_queued() {
        let mut c = started(VegasConfig::default());
        // 50 · (1 − 40/45) = 5.56 > 4.
        assert_eq!(round(&mut c, 45.0, 50.0, 10.0).1, 49.0);
    }

    #[test]
    fn vegas_holds_the_window_between_alpha_and_beta() {
        let mut c = started(VegasConfig::default());
        // 50 · (1 − 40/42) = 2.38, in [2, 4].
        assert_eq!(round(&mut c, 42.0, 50.0, 10.0).1, 50.0);
    }

    #[test]
    fn the_papers_alpha_and_beta_move_the_band_down() {
        let mut c = started(VegasConfig { alpha: 1.0, beta: 3.0, gamma: 1.0 });
        // 50 · (1 − 40/43) = 3.49 > 3: shrink, where Linux's (2, 4) would hold.
        assert_eq!(round(&mut c, 43.0, 50.0, 10.0).1, 49.0);
    }

    #[test]
    fn vegas_changes_the_window_only_at_the_end_of_a_round() {
        let mut c = started(VegasConfig::default());
        let (inside, last) = round(&mut c, 41.0, 50.0, 10.0);
        assert_eq!(inside, [50.0; 3]);
        assert_eq!(last, 51.0);
    }

    #[test]
    fn vegas_leaves_slow_start_at_the_window_the_measured_rate_fills() {
        let mut c = started(VegasConfig::default());
        // Slow start: 40 · (1 − 40/50) = 8 > gamma; cwnd = min(40, 40 · 40/50 + 1) = 33.
        let w = round(&mut c, 50.0, 40.0, f64::INFINITY).1;
        assert!((w - 33.0).abs() < 1e-9, "{w}");
        // Slow start is over although the sender's ssthresh is still unlimited.
        assert_eq!(ack(&mut c, 91.0, 50.0, w, f64::INFINITY), w);
    }

    #[test]
    fn vegas_keeps_slow_starting_while_at_most_gamma_packets_are_queued() {
        let mut c = started(VegasConfig::default());
        // 20 · (1 − 40/42) = 0.95 <= 1: the ACK that ends the round still adds one.
        assert_eq!(round(&mut c, 42.0, 20.0, f64::INFINITY).1, 21.0);
    }

    #[test]
    fn a_round_with_too_few_rtt_samples_gets_renos_increase() {
        let mut c = started(VegasConfig::default());
        // Only one sample (the closing ACK): Reno, + 1/cwnd.
        let w = ack(&mut c, 85.0, 45.0, 50.0, 10.0);
        assert!((w - 50.02).abs() < 1e-12, "{w}");
    }

    #[test]
    fn vegas_is_reno_outside_the_open_state() {
        let mut c = started(VegasConfig::default());
        c.set_state(&view(41_000, 50.0, 10.0), CaState::Loss);
        let (inside, last) = round(&mut c, 45.0, 50.0, 10.0);
        // Every ACK gets Reno's + 1/50, and the end of the round no Vegas − 1.
        for w in inside.into_iter().chain([last]) {
            assert!((w - 50.02).abs() < 1e-12, "{w}");
        }
    }

    #[test]
    fn a_loss_halves_the_window() {
        let mut c = Vegas::new(VegasConfig::default());
        assert_eq!(c.ssthresh(&view(0, 50.0, 100.0)), 25.0);
        assert_eq!(c.ssthresh(&view(0, 3.0, 100.0)), 2.0);
    }

    #[test]
    fn beta_below_alpha_is_rejected() {
        let mut p = Params::new();
        p.insert("alpha".into(), 5.0);
        let e = build(&p).err().unwrap();
        assert_eq!(e.param, "beta");
    }
}
