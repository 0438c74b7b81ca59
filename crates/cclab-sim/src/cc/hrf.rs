//! HRF-TCP (Hybrid RTT-Fair): CR's increase while the bottleneck has spare capacity,
//! CI's once packets queue, Westwood's decrease on loss; and the paper's two
//! comparison variants built from the same parts.
//!
//! Source: paper 001 (Ogura, Nemoto, Su, Katto, "A New TCP Congestion Control
//! Supporting RTT-Fairness", IEICE Trans. Inf. & Syst. E95-D(2), 2012), section 4,
//! eqs. (15)–(17), with `k` from eq. (7) and `k'` from eq. (14); variants from
//! section 5.2 ("Dec + M1 + M2").
//!
//! A flow grows in one of two modes, chosen on every ACK from its queueing delay:
//!
//! - **vacant** (Model I, `RTT = RTT_min`): `cwnd += k · RTT²` per RTT (eq. 15, CR),
//!   `k = 1 / RTT_ref²` (eq. 7), so every flow's rate grows by `k` packets/s².
//! - **buffered** (Model II, `RTT > RTT_min`): `cwnd += k' · RTT` per RTT (eq. 16, CI),
//!   `k' = 1 / (RTT_ref + s/B)` (eq. 14), so every flow's window grows by `k'` packets/s.
//! - **loss**: `cwnd = max(RTT_min / RTT · cwnd, cwnd / 2)` (eq. 17 = eq. 2, Westwood).
//!
//! The registered names compose the parts as section 5.2 does:
//!
//! | name | decrease | vacant (M1) | buffered (M2) |
//! |---|---|---|---|
//! | `hrf` | Westwood (eq. 2) | CR (eq. 3) | CI (eq. 5) |
//! | `w+cr+reno` | Westwood | CR | Reno, +1 per RTT |
//! | `w+cr+cr` | Westwood | CR | CR |
//!
//! Choices where the paper is silent:
//! - **"RTT = RTT_min" means `SRTT ≤ (1 + rtt_tol) · RTT_min`**, with `rtt_tol = 0.01`
//!   by default. An exact test never holds in practice: each window increment sends two
//!   packets back to back and queues one for a moment, and competing flows' packets
//!   interleave. One per cent of `RTT_min` is 0.4 ms at 40 ms (3 packets of 1500 B at
//!   100 Mbit/s) and 1.2 ms at 120 ms (10 packets), more than those transient queues and
//!   the 0.24 ms send jitter the tests use, far less than a buffer of hundreds of packets.
//!   SRTT rather than the latest sample, so that jitter does not flip the mode per ACK;
//!   it is also the RTT the CR and CI increases use (`cr.rs`, `ci.rs`).
//! - **`s/B` in eq. (14) is `SRTT − RTT_min`**, as in `ci.rs`; `k` is eq. (7), constant,
//!   as section 4 says (eq. (13) is not used).
//! - **The RTT of eq. (17) is the latest RTT sample**, "the RTT just before the packet
//!   loss", as `westwood` mode 1 does; before any sample the window is halved.
//! - Slow start is Reno's; the floor after a loss is 2 packets.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `rtt_ref` | RTT of the reference Reno flow in eqs. (7) and (14), seconds | 0.040 | [0.001, 10] |
//! | `rtt_tol` | queueing delay still counted as `RTT = RTT_min`, fraction of `RTT_min` | 0.01 | [0, 1] |

use super::ci::{Ci, CiConfig};
use super::cr::{Cr, CrConfig};
use super::westwood::rtt_ratio_window;
use super::{AckSample, CongestionControl, ParamError, ParamReader, Params, SenderView};

/// A window-increase rule for one of the two modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Increase {
    /// +1 packet per RTT.
    Reno,
    /// +k · RTT² per RTT (paper 001, eq. 3).
    Cr,
    /// +k' · RTT per RTT (paper 001, eq. 5).
    Ci,
}

/// The window-decrease rule on loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decrease {
    /// Halve.
    Reno,
    /// `max(RTT_min / RTT · cwnd, cwnd / 2)` (paper 001, eq. 2).
    Westwood,
}

/// Which of eqs. (15) and (16) applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No queue: `RTT = RTT_min` (Model I).
    Vacant,
    /// Packets queue at the bottleneck: `RTT > RTT_min` (Model II).
    Buffered,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HrfConfig {
    /// RTT of the reference Reno flow, seconds.
    pub rtt_ref: f64,
    /// Queueing delay still taken as `RTT = RTT_min`, as a fraction of `RTT_min`.
    pub rtt_tol: f64,
    pub decrease: Decrease,
    /// Increase while the bottleneck has spare capacity.
    pub vacant: Increase,
    /// Increase while packets queue.
    pub buffered: Increase,
}

impl Default for HrfConfig {
    fn default() -> Self {
        HrfConfig {
            rtt_ref: 0.040,
            rtt_tol: 0.01,
            decrease: Decrease::Westwood,
            vacant: Increase::Cr,
            buffered: Increase::Ci,
        }
    }
}

fn build_with(p: &Params, name: &'static str, buffered: Increase) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = HrfConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = HrfConfig {
        rtt_ref: r.get("rtt_ref", d.rtt_ref, 0.001, 10.0)?,
        rtt_tol: r.get("rtt_tol", d.rtt_tol, 0.0, 1.0)?,
        buffered,
        ..d
    };
    r.finish()?;
    Ok(Box::new(Hrf::new(name, cfg)))
}

/// `hrf`: Westwood + CR + CI.
pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    build_with(p, "hrf", Increase::Ci)
}

/// `w+cr+reno`: Westwood + CR + Reno (paper 001, section 5.2).
pub fn build_w_cr_reno(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    build_with(p, "w+cr+reno", Increase::Reno)
}

/// `w+cr+cr`: Westwood + CR + CR (paper 001, section 5.2).
pub fn build_w_cr_cr(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    build_with(p, "w+cr+cr", Increase::Cr)
}

/// The mode of eqs. (15)–(16): vacant while `srtt ≤ (1 + tol) · rtt_min`, seconds.
pub fn mode(srtt: f64, rtt_min: f64, tol: f64) -> Mode {
    if srtt <= (1.0 + tol) * rtt_min {
        Mode::Vacant
    } else {
        Mode::Buffered
    }
}

pub struct Hrf {
    name: &'static str,
    cfg: HrfConfig,
    cr: Cr,
    ci: Ci,
    /// Latest RTT sample, seconds (zero before the first).
    last_rtt: f64,
}

impl Hrf {
    pub fn new(name: &'static str, cfg: HrfConfig) -> Self {
        Hrf {
            name,
            cfg,
            cr: Cr::new(CrConfig { rtt_ref: cfg.rtt_ref, queue_term: false }),
            ci: Ci::new(CiConfig { rtt_ref: cfg.rtt_ref, queue_term: true }),
            last_rtt: 0.0,
        }
    }

    /// The current mode, seen from `v` (vacant before any RTT sample).
    pub fn mode(&self, v: &SenderView) -> Mode {
        mode(v.srtt.secs_f64(), v.rtt_min.secs_f64(), self.cfg.rtt_tol)
    }

    /// Packets to add per RTT in congestion avoidance, seen from `v`.
    pub fn per_rtt(&self, v: &SenderView) -> f64 {
        let rule = match self.mode(v) {
            Mode::Vacant => self.cfg.vacant,
            Mode::Buffered => self.cfg.buffered,
        };
        match rule {
            Increase::Reno => 1.0,
            Increase::Cr => self.cr.per_rtt(v),
            Increase::Ci => self.ci.per_rtt(v),
        }
    }
}

impl CongestionControl for Hrf {
    fn name(&self) -> &'static str {
        self.name
    }

    fn pkts_acked(&mut self, _v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            self.last_rtt = r.secs_f64();
        }
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let rtt_min = v.rtt_min.secs_f64();
        let w = match self.cfg.decrease {
            Decrease::Westwood if self.last_rtt > 0.0 && rtt_min > 0.0 => {
                rtt_ratio_window(v.cwnd, rtt_min, self.last_rtt) // eq. (17)
            }
            _ => v.cwnd / 2.0,
        };
        w.max(super::MIN_WINDOW)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::slow_start_then_increase(v, acked, || self.per_rtt(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{ci::ci_k, cr::cr_k, CcHeader};
    use crate::units::SimTime;

    fn view(cwnd: f64, srtt_us: u64, rtt_min_us: u64) -> SenderView {
        SenderView {
            srtt: SimTime::from_micros(srtt_us),
            rtt_min: SimTime::from_micros(rtt_min_us),
            ..crate::cc::testing::view(cwnd, 10.0)
        }
    }

    fn hrf() -> Hrf {
        Hrf::new("hrf", HrfConfig::default())
    }

    fn sample(c: &mut Hrf, rtt_ms: u64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_millis(rtt_ms)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&view(100.0, 0, 0), &s);
    }

    #[test]
    fn k_is_625_and_k_prime_is_25_for_a_40_ms_reference_reno() {
        // eq. (7): 1 / 0.04² = 625 packets/s²; eq. (14) without a queue: 1 / 0.04 = 25 packets/s.
        assert!((cr_k(0.040, 0.0) - 625.0).abs() < 1e-9);
        assert!((ci_k(0.040, 0.0) - 25.0).abs() < 1e-12);
        // With 20 ms of queue, k' = 1 / 0.06 = 16.67 packets/s.
        assert!((ci_k(0.040, 0.020) - 1.0 / 0.06).abs() < 1e-9);
    }

    #[test]
    fn the_mode_is_vacant_up_to_one_per_cent_of_queueing_delay() {
        assert_eq!(mode(0.120, 0.120, 0.01), Mode::Vacant);
        assert_eq!(mode(0.1212, 0.120, 0.01), Mode::Vacant);
        assert_eq!(mode(0.1213, 0.120, 0.01), Mode::Buffered);
        assert_eq!(mode(0.0401, 0.040, 0.0), Mode::Buffered);
    }

    #[test]
    fn a_120_ms_flow_adds_9_packets_per_rtt_without_a_queue_and_ci_s_amount_with_one() {
        let c = hrf();
        // Vacant: CR, 625 · 0.12² = 9.
        assert!((c.per_rtt(&view(500.0, 120_000, 120_000)) - 9.0).abs() < 1e-9);
        // 20 ms of queue: CI, k' = 1/(0.04 + 0.02), times SRTT 0.14 s = 2.333.
        let got = c.per_rtt(&view(500.0, 140_000, 120_000));
        assert!((got - 0.14 / 0.06).abs() < 1e-9, "{got}");
    }

    #[test]
    fn the_variants_differ_only_in_the_buffered_increase() {
        let queued = view(500.0, 140_000, 120_000);
        let vacant = view(500.0, 120_000, 120_000);
        let reno = Hrf::new("w+cr+reno", HrfConfig { buffered: Increase::Reno, ..HrfConfig::default() });
        let crcr = Hrf::new("w+cr+cr", HrfConfig { buffered: Increase::Cr, ..HrfConfig::default() });
        assert_eq!(reno.per_rtt(&queued), 1.0);
        // CR at SRTT 140 ms: 625 · 0.14² = 12.25.
        assert!((crcr.per_rtt(&queued) - 12.25).abs() < 1e-9);
        for c in [&reno, &crcr] {
            assert!((c.per_rtt(&vacant) - 9.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_loss_clears_the_queue_but_never_takes_more_than_half() {
        let mut c = hrf();
        // RTT 50 ms against RTT_min 40 ms: 100 · 40/50 = 80.
        sample(&mut c, 50);
        assert!((c.ssthresh(&view(100.0, 50_000, 40_000)) - 80.0).abs() < 1e-9);
        // RTT 100 ms: 40 < 50, so half.
        sample(&mut c, 100);
        assert_eq!(c.ssthresh(&view(100.0, 100_000, 40_000)), 50.0);
    }

    #[test]
    fn a_loss_before_any_rtt_sample_halves() {
        let mut c = hrf();
        assert_eq!(c.ssthresh(&view(100.0, 0, 0)), 50.0);
    }

    #[test]
    fn registered_names_build_their_variant() {
        for name in ["hrf", "w+cr+reno", "w+cr+cr"] {
            assert_eq!(crate::cc::build(name, &Params::new()).unwrap().name(), name);
        }
    }
}
