//! Reno with an extra window for under-buffered links: Reno's own window is left
//! untouched, and extra packets fill the capacity it leaves idle after each halving.
//!
//! Source: paper 003 (D. Hyun, J. W. Jang, "Enhanced TCP Congestion Control with Higher
//! Utilization in Under-Buffered Links", IEICE Trans. Commun. E95-B(4), 2012), section 2,
//! eqs. (1)–(4).
//!
//! The algorithm keeps Reno's window `cwnd` as its own state, updated exactly as Reno's,
//! and sends with `cwnd_proposed = cwnd + extra` (eq. 3). It learns, in every congestion
//! avoidance cycle `i`, the smallest window that fills the link:
//!
//! - congestion indicator `C(t) = LSRTT(t) / RTT_min`, congestion when `C(t) > α` (eq. 1),
//!   LSRTT being the change-detection smoothed RTT of `lsrtt.rs`;
//! - `W_full^i = β · cwnd_proposed^i(t*)`, `t*` the first time in cycle `i` that
//!   `C(t) > α` (eq. 2);
//!
//! and in cycle `i` uses the previous cycle's `W_full^{i-1}` (eq. 4):
//!
//! 1. `C ≤ α` and `cwnd_proposed < W_full^{i-1}`: the proposed window grows by the
//!    factor `a` per RTT, up to `W_full^{i-1}` (after a loss, t0 to t1 in Fig. 2);
//! 2. `C ≤ α` otherwise: `extra = max(0, W_full^{i-1} − cwnd)`, holding the proposed
//!    window at `W_full^{i-1}` while Reno's grows under it (t1 to t2);
//! 3. `C > α` or `cwnd ≥ W_full^{i-1}`: `extra = 0`, plain Reno (t2 to t3).
//!
//! A loss halves Reno's window; the extra is rebuilt from there (see below).
//!
//! Choices where the paper is silent or reads two ways:
//! - **Case 1 grows the proposed window by `a` per RTT**, i.e. `extra += (a − 1)` per
//!   acknowledged packet, capped at `W_full^{i-1}`. Eq. (4) prints `a × cwnd^i(t)`,
//!   which with `a = 1.1` would more than double the window at once; the text says the
//!   extra grows "like a slow start" precisely to avoid a burst, and that it takes "the
//!   first several rounds" (from 500 to 1000 packets: 7 rounds at ×1.1).
//! - **Case 3's second condition is `cwnd ≥ W_full^{i-1}`** (Reno's own window reached
//!   the target, t2 in Fig. 2); as printed, `cwnd > cwnd_proposed`, it can never hold.
//! - **Right after a loss, eq. (4) gives `extra = 0`**: either `C > α` (the loss came from
//!   an overflow, case 3) or case 1's ramp starts from Reno's new window, no ACK having
//!   arrived yet. So `ssthresh()` returns Reno's halved window plus that zero: the sum is
//!   never halved, and an extra window never survives a loss.
//! - **`t*` is the first rise of `C(t)` above `α` after `C(t) ≤ α` in the cycle.** Right
//!   after a loss the queue that caused it has not drained yet and LSRTT is still high;
//!   taking that moment as `t*` would measure the halved window, not the one that fills
//!   the link. A cycle starts at a loss; detection is armed once `C(t) ≤ α` is seen.
//! - **No `W_full` in the first cycle**: before any estimate the flow is plain Reno, as
//!   the paper says ("except the first congestion avoidance cycle"). A cycle without a
//!   detection keeps the previous estimate.
//! - **`C(t)` is only read in congestion avoidance.** In slow start, windows leave in
//!   bursts at twice the bottleneck rate and queue well before the link is full; the
//!   extra is zero there (after a timeout too).
//! - **LSRTT takes one sample per transmission round: the round's smallest RTT**
//!   (`t` in eqs. (1)–(4) counts rounds; rounds as in `rtt_round.rs`). A window leaves
//!   as a train at the ACKs' rate, and case 1's growth of 10 % per round queues up to
//!   10 % of the window at the end of each train even while the link has spare
//!   capacity; the first packets of the train see no queue. The round's minimum, as
//!   Vegas takes it, rises only with a queue that persists through the round, which is
//!   what "the link is full" means. Fed every sample, C(t) crossed α within two rounds
//!   of every ramp and cut it off (measured: W_full collapsed to the halved window).
//! - `C(t)` and eq. (4) are evaluated on every ACK, not once per round: the rule is the
//!   same, applied with finer steps.
//! - Reno's window follows `reno.rs` (slow start, +1 per RTT, halve, floor 2); after a
//!   timeout it restarts from 1 packet. "+1 per RTT" is per round, not per `cwnd` ACKs:
//!   with the extra window a round brings `cwnd + extra` ACKs, and `1/cwnd` per ACK would
//!   grow Reno's part faster than a lone Reno's (cycles 11 % shorter at k = 1/4), against
//!   the paper's "same saw-tooth wave as TCP Reno" (Fig. 3). Each ACK adds `1/(cwnd + extra)`.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `alpha` | congestion threshold on `LSRTT / RTT_min` (eq. 1) | 1.02 | [1, 10] |
//! | `beta` | shrinks the measured window to `W_full` (eq. 2) | 0.97 | (0, 1] |
//! | `a` | growth of the proposed window per RTT in case 1 (eq. 4) | 1.1 | [1, 2] |
//! | `lsrtt_shift` | LSRTT: smallest change of level, fraction of the RTT | 0.01 | (0, 1] |
//! | `lsrtt_sigma` | LSRTT: RTT noise deviation, fraction of the RTT | 0.005 | (0, 1] |
//! | `lsrtt_threshold` | LSRTT: log-likelihood threshold | 5 | (0, 1000] |

use super::lsrtt::{Lsrtt, LsrttConfig};
use super::reno::{Reno, RenoConfig};
use super::rtt_round::RttRound;
use super::{AckSample, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UbrConfig {
    /// Congestion threshold on `LSRTT / RTT_min`, dimensionless.
    pub alpha: f64,
    /// Factor applied to the measured window to give `W_full`, dimensionless.
    pub beta: f64,
    /// Growth factor of the proposed window per RTT in case 1, dimensionless.
    pub a: f64,
    pub lsrtt: LsrttConfig,
}

impl Default for UbrConfig {
    fn default() -> Self {
        UbrConfig { alpha: 1.02, beta: 0.97, a: 1.1, lsrtt: LsrttConfig::default() }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let d = UbrConfig::default();
    let mut r = ParamReader::new(p);
    let cfg = UbrConfig {
        alpha: r.get("alpha", d.alpha, 1.0, 10.0)?,
        beta: r.get("beta", d.beta, 1e-9, 1.0)?,
        a: r.get("a", d.a, 1.0, 2.0)?,
        lsrtt: LsrttConfig {
            shift: r.get("lsrtt_shift", d.lsrtt.shift, 1e-9, 1.0)?,
            sigma: r.get("lsrtt_sigma", d.lsrtt.sigma, 1e-9, 1.0)?,
            threshold: r.get("lsrtt_threshold", d.lsrtt.threshold, 1e-9, 1000.0)?,
        },
    };
    r.finish()?;
    Ok(Box::new(Ubr::new(cfg)))
}

/// `C(t) = LSRTT(t) / RTT_min`   (paper 003, eq. 1); 1 before any sample.
pub fn congestion_indicator(lsrtt: f64, rtt_min: f64) -> f64 {
    if lsrtt > 0.0 && rtt_min > 0.0 {
        lsrtt / rtt_min
    } else {
        1.0
    }
}

/// `W_full = cwnd_proposed(t*) · β`   (paper 003, eq. 2)
pub fn w_full(proposed_at_detection: f64, beta: f64) -> f64 {
    proposed_at_detection * beta
}

/// Which line of eq. (4) applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// No `W_full` yet: plain Reno.
    NoEstimate,
    /// Grow the proposed window towards `W_full`.
    Ramp,
    /// Hold the proposed window at `W_full`.
    Hold,
    /// Congestion, or Reno's window reached `W_full`: no extra.
    Off,
}

/// The extra window after `acked` packets were acknowledged   (paper 003, eq. 4).
/// `c`: the congestion indicator; `cwnd`: Reno's window (already updated for this ACK);
/// `extra`: the extra window so far; `w_full`: the previous cycle's `W_full` (0 = none).
pub fn next_extra(c: f64, alpha: f64, a: f64, cwnd: f64, extra: f64, w_full: f64, acked: u32) -> (Case, f64) {
    if w_full <= 0.0 {
        return (Case::NoEstimate, 0.0);
    }
    if c > alpha || cwnd >= w_full {
        return (Case::Off, 0.0);
    }
    let proposed = cwnd + extra;
    if proposed < w_full {
        // ×a per RTT: (a − 1) per acknowledged packet, up to W_full.
        let grown = (proposed + (a - 1.0) * acked as f64).min(w_full);
        (Case::Ramp, (grown - cwnd).max(0.0))
    } else {
        (Case::Hold, (w_full - cwnd).max(0.0))
    }
}

pub struct Ubr {
    cfg: UbrConfig,
    /// Reno's policy (slow start, halving), applied to `cwnd` and `ssthresh` below.
    reno: Reno,
    /// Reno's window, packets.
    cwnd: f64,
    /// Reno's slow-start threshold, packets.
    ssthresh: f64,
    /// The extra window, packets.
    extra: f64,
    /// `W_full^{i-1}`, packets (0 before the first estimate).
    w_full_prev: f64,
    /// `W_full^i` once found in the current cycle, packets.
    w_full_cur: Option<f64>,
    /// `C ≤ α` has been seen since the last loss: the next `C > α` is this cycle's `t*`.
    armed: bool,
    lsrtt: Lsrtt,
    /// Transmission rounds: LSRTT takes one sample per round.
    round: RttRound,
    /// Smallest RTT sample of the current round, seconds.
    round_min: f64,
    started: bool,
}

impl Ubr {
    pub fn new(cfg: UbrConfig) -> Self {
        Ubr {
            cfg,
            reno: Reno::new(RenoConfig::default()),
            cwnd: 0.0,
            ssthresh: f64::INFINITY,
            extra: 0.0,
            w_full_prev: 0.0,
            w_full_cur: None,
            armed: false,
            lsrtt: Lsrtt::new(cfg.lsrtt),
            round: RttRound::default(),
            round_min: f64::INFINITY,
            started: false,
        }
    }

    /// Reno's window, packets.
    pub fn reno_cwnd(&self) -> f64 {
        self.cwnd
    }

    /// The extra window, packets.
    pub fn extra(&self) -> f64 {
        self.extra
    }

    /// The `W_full` in use this cycle, packets (0 before the first estimate).
    pub fn w_full(&self) -> f64 {
        self.w_full_prev
    }

    /// The LSRTT estimate, seconds.
    pub fn lsrtt(&self) -> f64 {
        self.lsrtt.value()
    }

    /// The sender as Reno's part sees it: its own window and threshold.
    fn reno_view(&self, v: &SenderView) -> SenderView {
        SenderView { cwnd: self.cwnd, ssthresh: self.ssthresh, ..*v }
    }

    fn start(&mut self, v: &SenderView) {
        if !self.started {
            self.started = true;
            self.cwnd = v.cwnd;
            self.ssthresh = v.ssthresh;
        }
    }
}

impl CongestionControl for Ubr {
    fn name(&self) -> &'static str {
        "ubr"
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        match ev {
            CwndEvent::TxStart => self.start(v),
            CwndEvent::Timeout => {
                self.cwnd = 1.0;
                self.extra = 0.0;
            }
            CwndEvent::RecoveryEnd => {}
        }
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(r) = s.rtt {
            self.round_min = self.round_min.min(r.secs_f64());
        }
        if self.round.on_ack(v.now, s.rtt) && self.round_min.is_finite() {
            self.lsrtt.sample(self.round_min);
            self.round_min = f64::INFINITY;
        }
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        self.start(v);
        // The cycle ends: its estimate, if any, becomes W_full^{i-1} for the next one.
        if let Some(w) = self.w_full_cur.take() {
            self.w_full_prev = w;
        }
        // Reno halves its own window (beta = 0.5, floor 2).
        self.cwnd = self.reno.ssthresh(&self.reno_view(v));
        self.ssthresh = self.cwnd;
        self.armed = false;
        // Eq. (4) at the loss: C > α gives 0; otherwise case 1 starts from Reno's window.
        self.extra = 0.0;
        self.cwnd + self.extra
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        self.start(v);
        if self.cwnd < self.ssthresh {
            // Reno's slow start, and +1/cwnd for what it leaves over.
            self.cwnd = self.reno.cong_avoid(&self.reno_view(v), acked);
            self.extra = 0.0;
            return self.cwnd;
        }
        // Reno's window grows one packet per RTT as a lone Reno's would: a round brings
        // `cwnd + extra` ACKs, not `cwnd`, so each ACK adds 1/(cwnd + extra).
        self.cwnd += acked as f64 / (self.cwnd + self.extra);
        let c = congestion_indicator(self.lsrtt.value(), v.rtt_min.secs_f64());
        if c <= self.cfg.alpha {
            self.armed = true;
        } else if self.armed && self.w_full_cur.is_none() {
            self.w_full_cur = Some(w_full(self.cwnd + self.extra, self.cfg.beta));
        }
        let (_, e) = next_extra(c, self.cfg.alpha, self.cfg.a, self.cwnd, self.extra, self.w_full_prev, acked);
        self.extra = e;
        self.cwnd + self.extra
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcHeader;
    use crate::units::SimTime;

    fn view(cwnd: f64, ssthresh: f64) -> SenderView {
        SenderView {
            srtt: SimTime::from_millis(80),
            rtt_min: SimTime::from_millis(80),
            mss: 1000,
            ..crate::cc::testing::view(cwnd, ssthresh)
        }
    }

    fn rtt(c: &mut Ubr, ms: f64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime::from_secs_f64(ms / 1000.0)),
            rcv_tsval: SimTime::ZERO,
            cc_echo: CcHeader::default(),
            ece: false,
        };
        c.pkts_acked(&view(0.0, 0.0), &s);
    }

    #[test]
    fn congestion_is_an_lsrtt_more_than_two_per_cent_above_rtt_min() {
        assert!((congestion_indicator(0.0816, 0.080) - 1.02).abs() < 1e-12);
        assert!(congestion_indicator(0.0817, 0.080) > 1.02);
        assert_eq!(congestion_indicator(0.0, 0.080), 1.0);
    }

    #[test]
    fn w_full_is_the_window_at_detection_times_0_97() {
        // 1020 packets when C first exceeds α: W_full = 989.4.
        assert!((w_full(1020.0, 0.97) - 989.4).abs() < 1e-9);
    }

    #[test]
    fn case_1_grows_the_proposed_window_by_a_tenth_of_a_packet_per_ack_up_to_w_full() {
        // Reno 500, extra 100, W_full 990: 600 + 0.1 · 2 = 600.2, so extra 100.2.
        let (case, e) = next_extra(1.0, 1.02, 1.1, 500.0, 100.0, 990.0, 2);
        assert_eq!(case, Case::Ramp);
        assert!((e - 100.2).abs() < 1e-9, "{e}");
        // Never past W_full.
        let (_, e) = next_extra(1.0, 1.02, 1.1, 500.0, 489.95, 990.0, 1);
        assert!((e - 490.0).abs() < 1e-9, "{e}");
    }

    #[test]
    fn case_2_holds_the_proposed_window_at_w_full_while_reno_grows() {
        let (case, e) = next_extra(1.01, 1.02, 1.1, 700.5, 289.5, 990.0, 1);
        assert_eq!(case, Case::Hold);
        assert!((e - 289.5).abs() < 1e-9);
        let (_, e) = next_extra(1.01, 1.02, 1.1, 800.0, 190.0, 990.0, 1);
        assert!((e - 190.0).abs() < 1e-9);
    }

    #[test]
    fn case_3_drops_the_extra_on_congestion_or_once_reno_reaches_w_full() {
        assert_eq!(next_extra(1.03, 1.02, 1.1, 700.0, 290.0, 990.0, 1), (Case::Off, 0.0));
        assert_eq!(next_extra(1.0, 1.02, 1.1, 990.0, 0.0, 990.0, 1), (Case::Off, 0.0));
    }

    #[test]
    fn without_an_estimate_there_is_no_extra() {
        assert_eq!(next_extra(1.0, 1.02, 1.1, 500.0, 0.0, 0.0, 1), (Case::NoEstimate, 0.0));
    }

    #[test]
    fn eight_rounds_of_ramp_take_the_window_from_reno_s_500_to_a_w_full_of_990() {
        // One RTT of ACKs at ×1.1: 500 → 550 → 605 → ... reaches 990 in 8 rounds.
        let (mut extra, w) = (0.0, 990.0);
        let mut rounds = 0;
        while 500.0 + extra < w {
            let n = (500.0 + extra) as u32;
            for _ in 0..n {
                extra = next_extra(1.0, 1.02, 1.1, 500.0, extra, w, 1).1;
            }
            rounds += 1;
        }
        assert_eq!(rounds, 8);
    }

    #[test]
    fn a_loss_halves_reno_s_window_not_the_sum_and_the_next_cycle_uses_the_estimate() {
        let mut c = Ubr::new(UbrConfig::default());
        c.cwnd_event(&view(700.0, 400.0), CwndEvent::TxStart);
        c.w_full_prev = 900.0;
        for _ in 0..10 {
            rtt(&mut c, 80.0);
        }
        // C = 1: case 1, the proposed window grows by 0.1 per ACK on top of Reno's 700 + 1/700.
        let w = c.cong_avoid(&view(700.0, 400.0), 1);
        assert!((c.extra() - 0.1).abs() < 1e-9, "{}", c.extra());
        // The RTT rises 5 %: C = 1.05 > α. W_full^i = 0.97 · the proposed window at that ACK,
        // Reno's part having grown by 1/(cwnd + extra).
        rtt(&mut c, 84.0);
        let proposed = c.reno_cwnd() + 1.0 / (c.reno_cwnd() + c.extra()) + c.extra();
        let w = c.cong_avoid(&view(w, 400.0), 1);
        assert_eq!(c.extra(), 0.0);
        assert_eq!(w, c.reno_cwnd());
        // The loss: Reno's window halves, and the new extra is 0, so ssthresh = Reno's half.
        let reno = c.reno_cwnd();
        assert_eq!(c.ssthresh(&view(w, 400.0)), reno / 2.0);
        assert!((c.w_full() - 0.97 * proposed).abs() < 1e-9, "{}", c.w_full());
    }

    #[test]
    fn after_a_loss_in_the_hold_phase_the_window_is_reno_s_half_not_half_the_sum() {
        let mut c = Ubr::new(UbrConfig::default());
        c.cwnd_event(&view(600.0, 400.0), CwndEvent::TxStart);
        c.w_full_prev = 900.0;
        c.extra = 300.0; // holding at W_full: 600 + 300
        assert_eq!(c.ssthresh(&view(900.0, 400.0)), 300.0);
        assert_eq!(c.extra(), 0.0);
    }

    #[test]
    fn reno_s_part_grows_one_packet_per_round_whatever_the_extra() {
        // Holding at W_full = 1000 with Reno at 500: a round is 1000 ACKs, and Reno's
        // window must end it at 501, as a lone Reno's would, not at 502.
        let mut c = Ubr::new(UbrConfig::default());
        c.cwnd_event(&view(500.0, 400.0), CwndEvent::TxStart);
        c.w_full_prev = 1000.0;
        c.extra = 500.0;
        for _ in 0..10 {
            rtt(&mut c, 80.0);
        }
        for _ in 0..1000 {
            let w = c.reno_cwnd() + c.extra();
            c.cong_avoid(&view(w, 400.0), 1);
        }
        assert!((c.reno_cwnd() - 501.0).abs() < 0.01, "{}", c.reno_cwnd());
        assert!((c.reno_cwnd() + c.extra() - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn slow_start_is_reno_s_with_no_extra() {
        let mut c = Ubr::new(UbrConfig::default());
        c.cwnd_event(&view(2.0, f64::INFINITY), CwndEvent::TxStart);
        c.w_full_prev = 900.0;
        assert_eq!(c.cong_avoid(&view(2.0, f64::INFINITY), 2), 4.0);
        assert_eq!(c.extra(), 0.0);
    }
}
