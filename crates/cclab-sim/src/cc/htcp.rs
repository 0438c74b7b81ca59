//! H-TCP: the increase grows with the time since the last congestion event; the
//! backoff drains the queue.
//!
//! Source: D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004; the semantics of Linux `net/ipv4/tcp_htcp.c` where the
//! paper leaves a choice.
//!
//! With Δ the time since the last congestion event and Δ_L = 1 s:
//!
//! - `α(Δ) = 1` for `Δ ≤ Δ_L`, else `1 + 10 (Δ − Δ_L) + ((Δ − Δ_L)/2)²`;
//! - RTT scaling: `α(Δ) ← max(α(Δ) · RTT_min / 100 ms, 1)`, the ratio held in [0.1, 2];
//! - increase: `cwnd += 2 (1 − β) α(Δ) / cwnd` per acknowledged packet, i.e.
//!   `2 (1 − β) α(Δ)` packets per RTT (Reno's one packet while `Δ ≤ Δ_L` and β = 0.5);
//! - adaptive backoff: on a loss `cwnd ← β cwnd` with `β = RTT_min / RTT_max` held in
//!   [0.5, 0.8], so that the queue the flow built drains; `β = 0.5` instead when the
//!   flow's maximum throughput changed by more than 20 % since the previous congestion
//!   event (the network changed; release bandwidth to converge).
//!
//! Choices where the paper is silent (all as Linux):
//! - Δ counts from the moment the sender entered recovery or the loss state; α is
//!   recomputed on every ACK from the current Δ (Linux recomputes it once per packet
//!   of window growth, in integer steps).
//! - RTT_min is the smallest sample; RTT_max grows only in the Open state and only by
//!   samples at most 20 ms above it (outliers ignored), and after every congestion
//!   event decays to `RTT_min + 0.95 (RTT_max − RTT_min)`.
//! - The adaptive β is used from the second congestion event on (the first has no
//!   complete epoch of RTT data) and only if RTT_min > 10 ms.
//! - Throughput B: packets acknowledged in Open or Disorder over at least RTT_min and
//!   about a window of packets, smoothed `B ← (3B + sample)/4`; within 3 RTT_min of a
//!   congestion event the first sample resets it. Its maximum over the epoch is compared
//!   with the previous epoch's: outside [0.8, 1.2] times, `β = 0.5`.
//! - The scaled α is at least 1 (Linux's integer arithmetic gives the same floor), so
//!   H-TCP is never less aggressive than Reno.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `delta_l` | Δ_L, time after a congestion event before α grows, seconds | 1 | [0, 100] |
//! | `rtt_scaling` | scale α by RTT_min / 100 ms | 1 | 0 or 1 |
//! | `adaptive_backoff` | β = RTT_min/RTT_max in [0.5, 0.8]; 0: β = 0.5 | 1 | 0 or 1 |
//! | `bandwidth_switch` | β = 0.5 when the throughput changed by more than 20 % | 1 | 0 or 1 |

use super::{AckSample, CaState, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView};
use crate::units::SimTime;

/// Reference RTT of the RTT scaling, seconds.
const RTT_REF: f64 = 0.100;
/// Bounds of the adaptive backoff factor.
const BETA_MIN: f64 = 0.5;
const BETA_MAX: f64 = 0.8;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HtcpConfig {
    /// Δ_L, seconds.
    pub delta_l: f64,
    pub rtt_scaling: bool,
    pub adaptive_backoff: bool,
    pub bandwidth_switch: bool,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig { delta_l: 1.0, rtt_scaling: true, adaptive_backoff: true, bandwidth_switch: true }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = HtcpConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = HtcpConfig {
        delta_l: r.get("delta_l", d.delta_l, 0.0, 100.0)?,
        rtt_scaling: r.get_flag("rtt_scaling", d.rtt_scaling)?,
        adaptive_backoff: r.get_flag("adaptive_backoff", d.adaptive_backoff)?,
        bandwidth_switch: r.get_flag("bandwidth_switch", d.bandwidth_switch)?,
    };
    r.finish()?;
    Ok(Box::new(Htcp::new(cfg)))
}

/// `α(Δ) = 1 + 10 (Δ − Δ_L) + ((Δ − Δ_L)/2)²` for `Δ > Δ_L`, else 1   (H-TCP's increase function)
pub fn alpha_of_delta(delta: f64, delta_l: f64) -> f64 {
    if delta <= delta_l {
        return 1.0;
    }
    let d = delta - delta_l;
    1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
}

pub struct Htcp {
    cfg: HtcpConfig,
    /// Backoff factor applied at the last congestion event.
    beta: f64,
    /// The adaptive β may be used (one congestion event has passed).
    modeswitch: bool,
    /// Start of the current congestion epoch.
    last_cong: SimTime,
    /// Smallest RTT sample, seconds (zero before the first).
    rtt_min: f64,
    /// Largest RTT sample in Open (with the 20 ms outlier guard), seconds.
    rtt_max: f64,
    /// Throughput measurement: packets and start of the current sample.
    packets: f64,
    sample_start: SimTime,
    /// Smoothed throughput, its maximum over this epoch and the last epoch's, packets/s.
    b: f64,
    max_b: f64,
    old_max_b: f64,
}

impl Htcp {
    pub fn new(cfg: HtcpConfig) -> Self {
        Htcp {
            cfg,
            beta: BETA_MIN,
            modeswitch: false,
            last_cong: SimTime::ZERO,
            rtt_min: 0.0,
            rtt_max: 0.0,
            packets: 0.0,
            sample_start: SimTime::ZERO,
            b: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
        }
    }

    /// The backoff factor β of the last congestion event.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The largest RTT sample kept, seconds.
    pub fn rtt_max(&self) -> f64 {
        self.rtt_max
    }

    /// Packets added per RTT at `now`: `2 (1 − β) α(Δ)`, with RTT scaling.
    pub fn alpha(&self, now: SimTime) -> f64 {
        let delta = now.saturating_sub(self.last_cong).secs_f64();
        let mut factor = alpha_of_delta(delta, self.cfg.delta_l);
        if self.cfg.rtt_scaling && self.rtt_min > 0.0 {
            factor = (factor * (self.rtt_min / RTT_REF).clamp(0.1, 2.0)).max(1.0);
        }
        2.0 * (1.0 - self.beta) * factor
    }

    fn measure_rtt(&mut self, rtt: f64, state: CaState) {
        if self.rtt_min == 0.0 || rtt < self.rtt_min {
            self.rtt_min = rtt;
        }
        if state == CaState::Open {
            self.rtt_max = self.rtt_max.max(self.rtt_min);
            if rtt > self.rtt_max && rtt <= self.rtt_max + 0.020 {
                self.rtt_max = rtt;
            }
        }
    }

    fn measure_throughput(&mut self, v: &SenderView, acked: u32) {
        if !matches!(v.state, CaState::Open | CaState::Disorder) {
            self.packets = 0.0;
            self.sample_start = v.now;
            return;
        }
        self.packets += acked as f64;
        let span = v.now.saturating_sub(self.sample_start).secs_f64();
        let enough = self.packets >= v.cwnd - self.alpha(v.now).floor().max(1.0);
        if enough && self.rtt_min > 0.0 && span >= self.rtt_min {
            let sample = self.packets / span;
            let epoch = v.now.saturating_sub(self.last_cong).secs_f64();
            if epoch <= 3.0 * self.rtt_min {
                // Just after a backoff: start afresh.
                self.b = sample;
                self.max_b = sample;
            } else {
                self.b = (3.0 * self.b + sample) / 4.0;
                self.max_b = self.max_b.max(self.b);
            }
            self.packets = 0.0;
            self.sample_start = v.now;
        }
    }

    /// β for this congestion event (Linux `htcp_beta_update`).
    fn update_beta(&mut self) {
        if self.cfg.bandwidth_switch {
            let (max_b, old) = (self.max_b, self.old_max_b);
            self.old_max_b = max_b;
            if !(max_b >= 0.8 * old && max_b <= 1.2 * old) || old == 0.0 {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.cfg.adaptive_backoff && self.modeswitch && self.rtt_min > 0.010 && self.rtt_max > 0.0 {
            self.beta = (self.rtt_min / self.rtt_max).clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            self.measure_rtt(r.secs_f64(), v.state);
        }
        if self.cfg.bandwidth_switch {
            self.measure_throughput(v, s.acked);
        }
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.update_beta();
        // Slowly fading memory of RTT_max, for route changes.
        if self.rtt_min > 0.0 && self.rtt_max > self.rtt_min {
            self.rtt_max = self.rtt_min + 0.95 * (self.rtt_max - self.rtt_min);
        }
        super::multiplicative_decrease(v.cwnd, self.beta)
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        if matches!(new, CaState::Recovery | CaState::Loss) {
            self.last_cong = v.now;
        }
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::TxStart {
            self.last_cong = v.now;
            self.sample_start = v.now;
        }
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then_increase(v, acked, || self.alpha(v.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;

    fn view(now_ms: u64, cwnd: f64, state: CaState) -> SenderView {
        SenderView { now: SimTime::from_millis(now_ms), state, ..crate::cc::testing::view(cwnd, 10.0) }
    }

    fn sample(c: &mut Htcp, now_ms: u64, rtt_ms: u64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&view(now_ms, 100.0, CaState::Open), &s);
    }

    /// A congestion event at `now_ms`: ssthresh, then recovery (which starts the epoch).
    fn congestion(c: &mut Htcp, now_ms: u64, cwnd: f64) -> f64 {
        let v = view(now_ms, cwnd, CaState::Open);
        let s = c.ssthresh(&v);
        c.set_state(&v, CaState::Recovery);
        c.set_state(&view(now_ms, s, CaState::Recovery), CaState::Open);
        s
    }

    fn no_switch() -> HtcpConfig {
        HtcpConfig { bandwidth_switch: false, ..HtcpConfig::default() }
    }

    #[test]
    fn alpha_of_delta_is_one_until_delta_l_then_quadratic() {
        assert_eq!(alpha_of_delta(0.5, 1.0), 1.0);
        assert_eq!(alpha_of_delta(1.0, 1.0), 1.0);
        // Δ = 3 s: 1 + 20 + 1 = 22; Δ = 11 s: 1 + 100 + 25 = 126.
        assert_eq!(alpha_of_delta(3.0, 1.0), 22.0);
        assert_eq!(alpha_of_delta(11.0, 1.0), 126.0);
    }

    #[test]
    fn htcp_adds_one_packet_per_rtt_for_the_first_second_after_a_loss() {
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 100);
        congestion(&mut c, 1000, 100.0);
        assert_eq!(c.alpha(SimTime::from_millis(1500)), 1.0);
        let w = c.cong_avoid(&view(1500, 100.0, CaState::Open), 1);
        assert!((w - 100.01).abs() < 1e-12, "{w}");
    }

    #[test]
    fn htcp_alpha_grows_with_the_time_since_the_last_loss() {
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 100); // RTT_min = 100 ms: no scaling
        congestion(&mut c, 1000, 100.0); // β = 0.5: 2 (1 − β) = 1
        assert!((c.alpha(SimTime::from_millis(4000)) - 22.0).abs() < 1e-9);
        assert!((c.alpha(SimTime::from_millis(12_000)) - 126.0).abs() < 1e-9);
    }

    #[test]
    fn rtt_scaling_multiplies_alpha_by_rtt_min_over_100_ms_but_not_below_one() {
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 40);
        congestion(&mut c, 1000, 100.0);
        // Δ = 3 s: 22 · 0.4 = 8.8; Δ = 1.5 s: 1 + 5 + 0.0625 = 6.0625, · 0.4 = 2.425.
        assert!((c.alpha(SimTime::from_millis(4000)) - 8.8).abs() < 1e-9);
        assert!((c.alpha(SimTime::from_millis(2500)) - 2.425).abs() < 1e-9);
        // Δ = 0.5 s: 1 · 0.4, raised to 1.
        assert_eq!(c.alpha(SimTime::from_millis(1500)), 1.0);
        // 300 ms: the ratio is held at 2.
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 300);
        congestion(&mut c, 1000, 100.0);
        assert!((c.alpha(SimTime::from_millis(4000)) - 44.0).abs() < 1e-9);
    }

    #[test]
    fn the_first_backoff_halves_and_later_ones_use_rtt_min_over_rtt_max() {
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 80);
        sample(&mut c, 10, 95);
        sample(&mut c, 20, 100);
        assert_eq!(congestion(&mut c, 1000, 100.0), 50.0);
        // 80/100 = 0.8. (RTT_max decayed at the first event to 80 + 0.95 · 20 = 99,
        // and the new sample of 100 ms raises it again.)
        sample(&mut c, 1100, 100);
        assert!((congestion(&mut c, 2000, 100.0) - 80.0).abs() < 1e-9);
        assert!((c.beta() - 0.8).abs() < 1e-12);
    }

    #[test]
    fn the_adaptive_backoff_is_held_in_half_to_four_fifths() {
        let mut c = Htcp::new(no_switch());
        for (t, r) in [(0, 40), (10, 55), (20, 70), (30, 85), (40, 100)] {
            sample(&mut c, t, r);
        }
        congestion(&mut c, 1000, 100.0);
        // 40/100 = 0.4 is raised to 0.5.
        assert_eq!(congestion(&mut c, 2000, 100.0), 50.0);
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 95);
        sample(&mut c, 10, 100);
        congestion(&mut c, 1000, 100.0);
        // 95/100 = 0.95 is lowered to 0.8.
        assert!((congestion(&mut c, 2000, 100.0) - 80.0).abs() < 1e-9);
    }

    #[test]
    fn after_an_adaptive_backoff_the_increase_is_two_one_minus_beta_alpha() {
        let mut c = Htcp::new(no_switch());
        sample(&mut c, 0, 80);
        sample(&mut c, 10, 100);
        congestion(&mut c, 1000, 100.0);
        sample(&mut c, 1100, 100);
        congestion(&mut c, 2000, 100.0); // β = 0.8
                                         // Δ = 3 s, RTT_min 80 ms: 2 · 0.2 · 22 · 0.8 = 7.04.
        assert!((c.alpha(SimTime::from_millis(5000)) - 7.04).abs() < 1e-9);
    }

    #[test]
    fn rtt_max_ignores_jumps_of_more_than_20_ms_and_samples_outside_open() {
        let mut c = Htcp::new(HtcpConfig::default());
        sample(&mut c, 0, 40);
        sample(&mut c, 10, 70); // 30 ms above: an outlier
        assert!((c.rtt_max() - 0.040).abs() < 1e-12);
        sample(&mut c, 20, 55);
        assert!((c.rtt_max() - 0.055).abs() < 1e-12);
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_millis(60)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&view(30, 100.0, CaState::Recovery), &s);
        assert!((c.rtt_max() - 0.055).abs() < 1e-12);
    }

    /// `per_ms` packets acknowledged every millisecond in [from_ms, to_ms), RTT 100 ms.
    fn steady(c: &mut Htcp, from_ms: u64, to_ms: u64, per_ms: u32) {
        for t in from_ms..to_ms {
            let s = AckSample {
                acked: per_ms,
                rtt: Some(SimTime::from_millis(100)),
                rcv_tsval: SimTime::ZERO,
                cc_echo: CcHeader::default(),
                ece: false,
            };
            c.pkts_acked(&view(t, 100.0, CaState::Open), &s);
        }
    }

    #[test]
    fn a_throughput_change_of_more_than_a_fifth_resets_beta_to_a_half() {
        let mut c = Htcp::new(HtcpConfig::default());
        sample(&mut c, 0, 80);
        steady(&mut c, 0, 1000, 1); // 1000 packets/s
        congestion(&mut c, 1000, 100.0); // first event: 0.5
        steady(&mut c, 1000, 3000, 1); // same throughput
        congestion(&mut c, 3000, 100.0); // no switch, but the first adaptive chance: 0.5
        steady(&mut c, 3000, 5000, 1);
        congestion(&mut c, 5000, 100.0);
        assert!((c.beta() - 0.8).abs() < 1e-12, "{}", c.beta()); // 80/100
        steady(&mut c, 5000, 7000, 2); // throughput doubled
        congestion(&mut c, 7000, 100.0);
        assert_eq!(c.beta(), 0.5);
    }
}
