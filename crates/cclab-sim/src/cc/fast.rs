//! FAST TCP: move the window part of the way to the one that keeps `alpha` packets queued.
//!
//! Source: C. Jin, D. X. Wei, S. H. Low, "FAST TCP: Motivation, architecture,
//! algorithms, performance", IEEE INFOCOM 2004, and D. X. Wei, C. Jin, S. H. Low,
//! S. Hegde, the same title, IEEE/ACM Trans. Networking 14(6), 2006 (paper 000's
//! references \[4\] and \[27\]), the window control component.
//!
//! Every update period the window moves towards the one at which the flow has exactly
//! `alpha` packets queued, by a fraction `gamma` of the distance, and at most doubles:
//!
//! `w ← min(2w, (1 − γ)·w + γ·(baseRTT/avgRTT · w + α))`
//!
//! At the fixed point `w · (1 − baseRTT/avgRTT) = α`: the flow's packets in queues,
//! its rate times its queueing delay, are α, whatever the link or the number of flows.
//! A loss halves the window, as Reno.
//!
//! Choices where the papers are silent or leave options:
//! - **Update period: one round trip**, from one `snd_nxt` mark to the next, as Vegas
//!   counts rounds (`rtt_round.rs`); the papers allow any fixed period. The new window
//!   applies at once at the end of the round; between updates the window is held.
//! - **avgRTT** is an exponentially weighted moving average of every RTT sample with
//!   weight `min(3/w, 1/4)` (about a third of a window of samples), the filter described
//!   for FAST's estimation component; it starts at the first sample. `baseRTT` is the
//!   smallest sample of the connection.
//! - **No separate slow start.** The update law is used from the first round (and
//!   after an RTO): with an empty queue it reads `w ← min(2w, w + γα)`, so the window
//!   doubles per round up to `γα` and then grows by `γα` per round until the queue
//!   builds. The sender's ssthresh matters only through losses.
//! - **Loss: `ssthresh = max(w/2, 2)`**, the papers' fallback to Reno's halving.
//! - **`alpha` = 20 packets by default.** Paper 000 compares against FAST without
//!   stating its α; the FAST papers' experiments used α = 200 packets on 800 Mbps
//!   paths, which on the 10–100 Mbps links of the papers reproduced here would need a
//!   buffer of several BDPs per flow. 20 packets is 2.4 ms of queue per flow at
//!   100 Mbps with 1500-byte packets; set `alpha` to reproduce another setting.
//! - The window is at least 2 packets after an update.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `alpha` | packets of each flow kept in queues at equilibrium, packets | 20 | (0, 100000] |
//! | `gamma` | fraction of the distance to the target covered per update | 0.5 | (0, 1] |

use super::rtt_round::RttRound;
use super::{AckSample, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastConfig {
    /// Packets of the flow kept in queues at equilibrium, packets.
    pub alpha: f64,
    /// Step towards the target per update, fraction in (0, 1].
    pub gamma: f64,
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig { alpha: 20.0, gamma: 0.5 }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = FastConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = FastConfig { alpha: r.get("alpha", d.alpha, 1e-9, 1e5)?, gamma: r.get("gamma", d.gamma, 1e-9, 1.0)? };
    r.finish()?;
    Ok(Box::new(Fast::new(cfg)))
}

/// `w ← min(2w, (1 − γ)w + γ(baseRTT/avgRTT · w + α))`   (FAST window update)
pub fn fast_update(w: f64, base_rtt: f64, avg_rtt: f64, alpha: f64, gamma: f64) -> f64 {
    (2.0 * w).min((1.0 - gamma) * w + gamma * (base_rtt / avg_rtt * w + alpha))
}

/// Weight of one RTT sample in avgRTT: `min(3/w, 1/4)`.
pub fn avg_rtt_weight(w: f64) -> f64 {
    (3.0 / w).min(0.25)
}

pub struct Fast {
    cfg: FastConfig,
    round: RttRound,
    /// Smallest RTT sample, seconds (infinite before the first).
    base_rtt: f64,
    /// Moving average of RTT samples, seconds (zero before the first).
    avg_rtt: f64,
    /// The last ACK closed a round (set by `pkts_acked`, used by `cong_avoid`).
    round_ended: bool,
}

impl Fast {
    pub fn new(cfg: FastConfig) -> Self {
        Fast { cfg, round: RttRound::default(), base_rtt: f64::INFINITY, avg_rtt: 0.0, round_ended: false }
    }

    /// The moving average of the RTT, seconds.
    pub fn avg_rtt(&self) -> f64 {
        self.avg_rtt
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        super::halve(v)
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            let r = r.secs_f64().max(1e-9);
            self.base_rtt = self.base_rtt.min(r);
            self.avg_rtt = if self.avg_rtt == 0.0 {
                r
            } else {
                let eta = avg_rtt_weight(v.cwnd);
                (1.0 - eta) * self.avg_rtt + eta * r
            };
        }
        self.round_ended = self.round.on_ack(v.now, s.rtt);
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::TxStart {
            self.round.restart(v.now);
        }
    }

    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        if !std::mem::take(&mut self.round_ended) || self.avg_rtt == 0.0 {
            return v.cwnd;
        }
        fast_update(v.cwnd, self.base_rtt, self.avg_rtt, self.cfg.alpha, self.cfg.gamma).max(super::MIN_WINDOW)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;
    use crate::units::SimTime;

    fn view(now_ms: u64, cwnd: f64) -> SenderView {
        SenderView { now: SimTime::from_millis(now_ms), ..crate::cc::testing::view(cwnd, f64::INFINITY) }
    }

    fn ack(c: &mut Fast, now_ms: u64, rtt_ms: u64, cwnd: f64) -> f64 {
        let v = view(now_ms, cwnd);
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&v, &s);
        c.cong_avoid(&v, 1)
    }

    #[test]
    fn fast_moves_half_way_to_the_window_that_queues_alpha_packets() {
        // baseRTT 40 ms, avgRTT 44 ms, w = 100, α = 20, γ = 0.5:
        // target = 40/44 · 100 + 20 = 110.909..., new = 50 + 55.4545... = 105.4545...
        let w = fast_update(100.0, 0.040, 0.044, 20.0, 0.5);
        assert!((w - (50.0 + 0.5 * (100.0 * 40.0 / 44.0 + 20.0))).abs() < 1e-12);
        assert!((w - 105.454_545).abs() < 1e-5, "{w}");
    }

    #[test]
    fn fast_holds_the_window_when_alpha_packets_are_queued() {
        // w (1 − 40/50) = 20 at w = 100.
        assert!((fast_update(100.0, 0.040, 0.050, 20.0, 0.5) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn fast_shrinks_the_window_when_more_than_alpha_packets_are_queued() {
        // w = 100, avgRTT = 80 ms: target = 50 + 20 = 70, new = 85.
        assert!((fast_update(100.0, 0.040, 0.080, 20.0, 0.5) - 85.0).abs() < 1e-12);
    }

    #[test]
    fn fast_at_most_doubles_the_window_per_update() {
        // Empty queue, w = 10, α = 200: 5 + 0.5 · 210 = 110, capped at 20.
        assert_eq!(fast_update(10.0, 0.040, 0.040, 200.0, 0.5), 20.0);
    }

    #[test]
    fn avg_rtt_weighs_each_sample_by_three_over_the_window_at_most_a_quarter() {
        assert_eq!(avg_rtt_weight(100.0), 0.03);
        assert_eq!(avg_rtt_weight(4.0), 0.25);
        let mut c = Fast::new(FastConfig::default());
        ack(&mut c, 40, 40, 100.0);
        ack(&mut c, 41, 50, 100.0);
        // 0.97 · 40 + 0.03 · 50 = 40.3 ms.
        assert!((c.avg_rtt() - 0.0403).abs() < 1e-12, "{}", c.avg_rtt());
    }

    #[test]
    fn fast_updates_once_per_round_trip() {
        let mut c = Fast::new(FastConfig::default());
        c.cwnd_event(&view(0, 2.0), CwndEvent::TxStart);
        // The first ACK closes the round that began at the first transmission:
        // empty queue, w = 100 → 50 + 0.5 · 120 = 110.
        assert!((ack(&mut c, 40, 40, 100.0) - 110.0).abs() < 1e-12);
        // Segments sent before 40 ms do not close the next round.
        assert_eq!(ack(&mut c, 41, 40, 110.0), 110.0);
        assert_eq!(ack(&mut c, 79, 40, 110.0), 110.0);
        // The one sent at 40 ms does: 55 + 0.5 · 130 = 120.
        assert!((ack(&mut c, 80, 40, 110.0) - 120.0).abs() < 1e-12);
    }

    #[test]
    fn a_loss_halves_the_window() {
        let mut c = Fast::new(FastConfig::default());
        assert_eq!(c.ssthresh(&view(0, 90.0)), 45.0);
        assert_eq!(c.ssthresh(&view(0, 3.0)), 2.0);
    }
}
