//! CUBIC: the window is a cubic function of the time since the last loss,
//! with a plateau at the window where that loss happened.
//!
//! Source: RFC 9438, "CUBIC for Fast and Long-Distance Networks" (2023),
//! section 4; variant 1 takes the constants of S. Ha, I. Rhee, L. Xu,
//! "CUBIC: A New TCP-Friendly High-Speed TCP Variant", ACM SIGOPS OSR 42(5),
//! 2008, which the papers' ns-2 runs used.
//!
//! With `t` the seconds since the current congestion-avoidance stage (epoch)
//! began and `W_max` the window before the last reduction:
//! - `W_cubic(t) = C (t - K)^3 + W_max`   (eq. 1)
//! - `K = cbrt((W_max - cwnd_epoch) / C)`, which is `cbrt(W_max (1 - beta) / C)`
//!   right after a loss   (eq. 2)
//! - per acknowledged packet, `cwnd += (target - cwnd) / cwnd` with
//!   `target = W_cubic(t + RTT)` clamped to `[cwnd, 1.5 cwnd]`   (section 4.2)
//! - Reno-friendly region: `W_est += alpha_cubic acked / cwnd`   (eq. 4), with
//!   `alpha_cubic = 3 (1 - beta) / (1 + beta)` (0.529 for beta = 0.7), and 1
//!   once `W_est >= cwnd_prior`; when `W_cubic(t) < W_est`, `cwnd = W_est`
//!   (section 4.3)
//! - on a loss `ssthresh = beta cwnd`, and with fast convergence
//!   `W_max = cwnd (1 + beta)/2` if `cwnd < W_max`, else `W_max = cwnd`
//!   (sections 4.6, 4.7)
//! - after a timeout the first epoch uses `K = 0` and `W_max = cwnd_epoch`,
//!   and `W_est = cwnd_epoch` (section 4.8).
//!
//! Choices where the sources are silent or offer options:
//! - **RTT in the target is the smoothed RTT** (`SenderView::srtt`). Linux
//!   uses its minimum RTT (`delay_min`). Until the first RTT sample the
//!   window grows as Reno's.
//! - **`cwnd = W_est` never lowers the window.** If the cubic target has
//!   already carried cwnd above `W_est`, the window stays.
//! - **The epoch starts on the first ACK in congestion avoidance** (after slow
//!   start or fast recovery), with `cwnd_epoch` the window then.
//! - **`W_max <= cwnd_epoch`** (no loss yet, or slow start past the old
//!   maximum): `K = 0` and the plateau is at `cwnd_epoch`, as Linux does.
//! - **Decrease from cwnd, not FlightSize** (RFC 9438 allows it); `ssthresh`
//!   at least 2. No application-limited adjustment of the epoch: the
//!   engine's flows always have data.
//! - **HyStart** (cc/hystart.rs, Linux's, not RFC 9406's HyStart++) with `hystart = 1`,
//!   the `linux` stack profile's default: slow start ends (ssthresh = cwnd) when the
//!   round's ACK train or its RTT says the pipe is full. Off by default: slow start is
//!   then RFC 5681's, as in `reno`.
//! - **HyStart++** (cc/hystart_pp.rs, RFC 9406) with `hystart_pp = 1`: when a round's
//!   minimum RTT rises, slow start goes on at a quarter of its pace (Conservative Slow
//!   Start) for up to 5 rounds before congestion avoidance, and back to full pace if the
//!   RTT falls again. Off by default and under every stack profile: Linux's tcp_cubic.c
//!   runs HyStart, not HyStart++. Not with `hystart = 1`.
//! - **Variant 1 (2008)**: `C = 0.4`, `beta = 0.8` (the paper's decrease
//!   factor 0.2), so `alpha_cubic = 1/3`, kept constant: RFC 9438's switch of
//!   `alpha_cubic` to 1 is newer than the paper, RFC 8312 and the Linux code
//!   of that time. Everything else is as in variant 0; `c` and `beta` given
//!   explicitly override either variant's.
//! - The multiple-packet ACK: the cubic increase is `(target - cwnd) acked /
//!   cwnd`, at most up to the target.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `variant` | 0: RFC 9438; 1: Ha, Rhee, Xu 2008 | 0 | 0 or 1 |
//! | `c` | cubic scaling constant C, packets/s^3 | 0.4 | [0.001, 100] |
//! | `beta` | fraction of the window kept on a loss (beta_cubic) | 0.7 (variant 1: 0.8) | [0.01, 0.99] |
//! | `fast_convergence` | 1: on, 0: off | 1 | 0 or 1 |
//! | `reno_friendly` | 1: use the Reno-friendly region W_est, 0: pure cubic | 1 | 0 or 1 |
//! | `hystart` | 1: HyStart ends slow start (Linux's), 0: off | 0 (`linux` stack: 1) | 0 or 1 |
//! | `hystart_pp` | 1: HyStart++ (RFC 9406), 0: off | 0 | 0 or 1 (0 when `hystart` = 1) |

use super::hystart::HyStart;
use super::hystart_pp::HyStartPp;
use super::{
    additive_increase, AckSample, CongControl, CongestionControl, CwndEvent, ParamError, ParamReader, Params,
    SenderView,
};
use crate::units::SimTime;

/// RTT samples this soon after an epoch began are not HyStart's (Linux: `HZ` jiffies
/// after `epoch_start` in `cubictcp_acked`, "right after fast recovery").
pub const HYSTART_HOLDOFF: SimTime = SimTime::from_millis(1000);

/// Which description of CUBIC the constants and the alpha rule follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 9438: beta 0.7; alpha_cubic becomes 1 once W_est reaches cwnd_prior.
    Rfc9438,
    /// Ha, Rhee, Xu 2008: beta 0.8 (decrease 0.2); alpha_cubic constant.
    Ha2008,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    pub variant: Variant,
    /// C, packets per second cubed.
    pub c: f64,
    /// beta_cubic: fraction of the window kept on a loss.
    pub beta: f64,
    /// Lower W_max when a loss comes below the previous one (section 4.7).
    pub fast_convergence: bool,
    /// Keep the window at least at Reno's estimate W_est (section 4.3).
    pub reno_friendly: bool,
    /// End slow start with HyStart (cc/hystart.rs).
    pub hystart: bool,
    /// Slow start with HyStart++ (cc/hystart_pp.rs, RFC 9406).
    pub hystart_pp: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            variant: Variant::Rfc9438,
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: false,
            hystart_pp: false,
        }
    }
}

impl CubicConfig {
    /// The constants of Ha, Rhee, Xu 2008.
    pub fn ha2008() -> Self {
        CubicConfig { variant: Variant::Ha2008, beta: 0.8, ..Default::default() }
    }

    /// `alpha_cubic = 3 (1 - beta) / (1 + beta)`, packets per RTT   (RFC 9438 eq. 5)
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// One congestion-avoidance stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch {
    /// When it began.
    pub start: SimTime,
    /// K, seconds.
    pub k: f64,
    /// The plateau W_max of eq. 1 for this epoch, packets.
    pub w_max: f64,
    /// cwnd when it began, packets.
    pub cwnd_epoch: f64,
}

pub struct Cubic {
    cfg: CubicConfig,
    /// Window before the last reduction, after fast convergence, packets (0: none yet).
    w_max: f64,
    /// cwnd when ssthresh was last set, packets.
    cwnd_prior: f64,
    /// Reno's window estimate, packets.
    w_est: f64,
    epoch: Option<Epoch>,
    /// The next epoch is the first after a retransmission timeout.
    after_timeout: bool,
    /// HyStart's state, when `cfg.hystart`.
    hystart: Option<HyStart>,
    /// HyStart++'s state, when `cfg.hystart_pp`.
    hystart_pp: Option<HyStartPp>,
    /// The ssthresh HyStart or HyStart++ set on the ACK being processed, for `ssthresh_after_ack`.
    hystart_exit: Option<f64>,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        Cubic {
            cfg,
            w_max: 0.0,
            cwnd_prior: 0.0,
            w_est: 0.0,
            epoch: None,
            after_timeout: false,
            hystart: cfg.hystart.then(HyStart::default),
            hystart_pp: cfg.hystart_pp.then(HyStartPp::default),
            hystart_exit: None,
        }
    }

    /// HyStart's state, when it is on.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    /// HyStart++'s state, when it is on.
    pub fn hystart_pp(&self) -> Option<&HyStartPp> {
        self.hystart_pp.as_ref()
    }

    pub fn epoch(&self) -> Option<Epoch> {
        self.epoch
    }

    /// Reno's window estimate W_est, packets.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// W_max, packets (0 before the first loss).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// `W_cubic(t) = C (t - K)^3 + W_max`, packets, `t` seconds into the epoch   (eq. 1)
    pub fn w_cubic(&self, e: &Epoch, t: f64) -> f64 {
        self.cfg.c * (t - e.k).powi(3) + e.w_max
    }

    fn start_epoch(&mut self, now: SimTime, cwnd: f64) -> Epoch {
        let (k, w_max) = if self.after_timeout || self.w_max <= cwnd {
            // Section 4.8 after a timeout; Linux's choice when W_max is not above cwnd.
            (0.0, cwnd)
        } else {
            // K = cbrt((W_max - cwnd_epoch) / C)   (eq. 2)
            (((self.w_max - cwnd) / self.cfg.c).cbrt(), self.w_max)
        };
        if self.after_timeout {
            self.w_max = cwnd;
            self.after_timeout = false;
        }
        self.w_est = cwnd;
        let e = Epoch { start: now, k, w_max, cwnd_epoch: cwnd };
        self.epoch = Some(e);
        e
    }

    /// Congestion avoidance from window `cwnd` for `left` acknowledged packets.
    fn avoid(&mut self, v: &SenderView, cwnd: f64, left: u32) -> f64 {
        if v.srtt == SimTime::ZERO {
            return additive_increase(cwnd, 1.0, left);
        }
        let e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(v.now, cwnd),
        };
        let t = (v.now - e.start).secs_f64();
        let n = left as f64;

        // W_est += alpha_cubic acked / cwnd   (eq. 4)
        let alpha =
            if self.cfg.variant == Variant::Rfc9438 && self.w_est >= self.cwnd_prior { 1.0 } else { self.cfg.alpha() };
        self.w_est += alpha * n / cwnd;
        if self.cfg.reno_friendly && self.w_cubic(&e, t) < self.w_est {
            return cwnd.max(self.w_est);
        }
        let target = self.w_cubic(&e, t + v.srtt.secs_f64()).clamp(cwnd, 1.5 * cwnd);
        (cwnd + (target - cwnd) * n / cwnd).min(target)
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let base = match r.get_int("variant", 0, 0, 1)? {
        0 => CubicConfig::default(),
        _ => CubicConfig::ha2008(),
    };
    let cfg = CubicConfig {
        c: r.get("c", base.c, 0.001, 100.0)?,
        beta: r.get("beta", base.beta, 0.01, 0.99)?,
        fast_convergence: r.get_flag("fast_convergence", base.fast_convergence)?,
        reno_friendly: r.get_flag("reno_friendly", base.reno_friendly)?,
        hystart: r.get_flag("hystart", base.hystart)?,
        hystart_pp: r.get_flag("hystart_pp", base.hystart_pp)?,
        ..base
    };
    r.finish()?;
    if cfg.hystart && cfg.hystart_pp {
        return Err(ParamError {
            param: "hystart_pp".into(),
            value: "1".into(),
            accepted: "0 when hystart = 1 (HyStart or HyStart++, not both)".into(),
        });
    }
    Ok(Box::new(Cubic::new(cfg)))
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        // A loss or an echo ends HyStart++'s slow start (RFC 9406 section 4.2).
        if let Some(h) = &mut self.hystart_pp {
            h.end();
        }
        let w = v.cwnd;
        self.cwnd_prior = w;
        // Fast convergence   (section 4.7)
        self.w_max = if self.cfg.fast_convergence && w < self.w_max { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        self.epoch = None;
        // ssthresh = cwnd beta_cubic   (section 4.6)
        super::multiplicative_decrease(w, self.cfg.beta)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        if v.cwnd < v.ssthresh {
            self.epoch = None;
        }
        if let Some(h) = self.hystart_pp {
            return super::grow(v, acked, |w, t, a| h.slow_start(w, t, a), |cwnd, left| self.avoid(v, cwnd, left));
        }
        super::slow_start_then(v, acked, |cwnd, left| self.avoid(v, cwnd, left))
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::Timeout {
            self.after_timeout = true;
            self.epoch = None;
            // Linux re-arms HyStart on every entry to TCP_CA_Loss, which each timeout is.
            if let Some(h) = &mut self.hystart {
                h.on_timeout(v.now, v.snd_nxt);
            }
        }
    }

    /// Linux `cubictcp_init`: HyStart's first round begins with the connection.
    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        if let Some(h) = &mut self.hystart {
            h.new_round(v.now, v.snd_nxt);
        }
        if let Some(h) = &mut self.hystart_pp {
            h.new_round(v.snd_nxt);
        }
        None
    }

    /// Linux `cubictcp_acked`: the RTT sample goes to HyStart unless an epoch began less
    /// than a second ago.
    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        if let Some(h) = &mut self.hystart_pp {
            self.hystart_exit = h.on_ack(v, s.rtt);
        }
        let (Some(h), Some(rtt)) = (&mut self.hystart, s.rtt) else { return };
        if self.epoch.is_some_and(|e| v.now.saturating_sub(e.start) < HYSTART_HOLDOFF) {
            return;
        }
        self.hystart_exit = h.on_sample(v, rtt);
    }

    fn ssthresh_after_ack(&mut self, _v: &SenderView) -> Option<f64> {
        self.hystart_exit.take()
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        vec![
            ("hystart", flag(self.cfg.hystart)),
            ("hystart_pp", flag(self.cfg.hystart_pp)),
            // resolved from `variant` where not given: what a cross-check peer must be told
            ("c", self.cfg.c),
            ("beta", self.cfg.beta),
            ("fast_convergence", flag(self.cfg.fast_convergence)),
            ("reno_friendly", flag(self.cfg.reno_friendly)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(now_ms: f64, cwnd: f64, ssthresh: f64, srtt_ms: f64) -> SenderView {
        SenderView {
            now: SimTime::from_secs_f64(now_ms / 1e3),
            srtt: SimTime::from_secs_f64(srtt_ms / 1e3),
            rtt_min: SimTime::from_secs_f64(srtt_ms / 1e3),
            ..crate::cc::testing::view(cwnd, ssthresh)
        }
    }

    #[test]
    fn after_a_loss_at_100_k_is_the_cube_root_of_75_and_the_curve_returns_to_100_at_k() {
        let mut c = Cubic::new(CubicConfig::default());
        let s = c.ssthresh(&view(0.0, 100.0, 1e9, 100.0));
        assert_eq!(s, 70.0);
        c.cong_avoid(&view(1000.0, 70.0, 70.0, 100.0), 1);
        let e = c.epoch().unwrap();
        // K = cbrt(100 (1 - 0.7) / 0.4) = cbrt(75) = 4.2172 s.
        assert!((e.k - 4.217_163).abs() < 1e-6, "{}", e.k);
        assert_eq!(e.start, SimTime::from_millis(1000));
        assert!((c.w_cubic(&e, 0.0) - 70.0).abs() < 1e-9);
        assert!((c.w_cubic(&e, e.k) - 100.0).abs() < 1e-9);
        // 2K: 100 + 0.4 K^3 = 130; K/2: 100 - 0.4 (K/2)^3 = 96.25.
        assert!((c.w_cubic(&e, 2.0 * e.k) - 130.0).abs() < 1e-9);
        assert!((c.w_cubic(&e, e.k / 2.0) - 96.25).abs() < 1e-9);
    }

    #[test]
    fn one_ack_moves_the_window_by_the_target_gap_over_cwnd() {
        // Loss at 1000: K = cbrt(750) = 9.0856 s. At t = 1 s with RTT 100 ms the target is
        // W(1.1) = 0.4 (1.1 - 9.0856)^3 + 1000 = 796.30; from cwnd 760: +(796.30 - 760)/760.
        let mut c = Cubic::new(CubicConfig::default());
        c.ssthresh(&view(0.0, 1000.0, 1e9, 100.0));
        c.cong_avoid(&view(0.0, 700.0, 700.0, 100.0), 1);
        let e = c.epoch().unwrap();
        let target = c.w_cubic(&e, 1.1);
        assert!((target - 796.30).abs() < 0.01, "{target}");
        let w = c.cong_avoid(&view(1000.0, 760.0, 700.0, 100.0), 1);
        assert!((w - (760.0 + (target - 760.0) / 760.0)).abs() < 1e-9, "{w}");
    }

    #[test]
    fn the_target_is_clamped_to_one_and_a_half_cwnd() {
        // Far past K with a long RTT the cubic target is huge: the clamp makes it 1.5 cwnd,
        // so one ACK adds (1.5 cwnd - cwnd)/cwnd = 0.5 packet.
        let mut c = Cubic::new(CubicConfig::default());
        c.ssthresh(&view(0.0, 100.0, 1e9, 100.0));
        c.cong_avoid(&view(0.0, 70.0, 70.0, 100.0), 1);
        let w = c.cong_avoid(&view(100_000.0, 100.0, 70.0, 10_000.0), 1);
        assert!((w - 100.5).abs() < 1e-9, "{w}");
        // Below the curve's value the target is cwnd: no growth.
        let mut c = Cubic::new(CubicConfig { reno_friendly: false, ..Default::default() });
        c.ssthresh(&view(0.0, 100.0, 1e9, 100.0));
        c.cong_avoid(&view(0.0, 70.0, 70.0, 100.0), 1);
        assert_eq!(c.cong_avoid(&view(1.0, 90.0, 70.0, 1.0), 1), 90.0);
    }

    #[test]
    fn with_a_small_window_and_short_rtt_the_window_follows_w_est() {
        // Loss at 20: K = cbrt(6/0.4) = 2.47 s, so over 10 ms W_cubic barely moves, while
        // W_est adds alpha = 3 (0.3)/1.7 = 0.5294 per window of ACKs.
        let alpha = CubicConfig::default().alpha();
        assert!((alpha - 0.529_412).abs() < 1e-6);
        let mut c = Cubic::new(CubicConfig::default());
        assert_eq!(c.ssthresh(&view(0.0, 20.0, 1e9, 10.0)), 14.0);
        let (mut w, mut want) = (14.0, 14.0);
        for i in 0..14 {
            w = c.cong_avoid(&view(i as f64 * 10.0 / 14.0, w, 14.0, 10.0), 1);
            want += alpha / want;
        }
        assert!((w - want).abs() < 1e-12, "{w} vs {want}");
        assert!((c.w_est() - want).abs() < 1e-12);
        // Without the Reno-friendly region the window grows far less in the same RTT.
        let mut c = Cubic::new(CubicConfig { reno_friendly: false, ..Default::default() });
        c.ssthresh(&view(0.0, 20.0, 1e9, 10.0));
        let mut w = 14.0;
        for i in 0..14 {
            w = c.cong_avoid(&view(i as f64 * 10.0 / 14.0, w, 14.0, 10.0), 1);
        }
        assert!(w < 14.1, "{w}");
    }

    #[test]
    fn alpha_becomes_one_once_w_est_reaches_cwnd_prior_except_in_the_2008_variant() {
        for (cfg, want) in [(CubicConfig::default(), 1.0), (CubicConfig::ha2008(), 1.0 / 3.0)] {
            let mut c = Cubic::new(cfg);
            c.ssthresh(&view(0.0, 20.0, 1e9, 10.0));
            c.cong_avoid(&view(0.0, 20.0, 14.0, 10.0), 1);
            // Put W_est at cwnd_prior: the next window of ACKs adds `want`.
            c.w_est = 20.0;
            c.cong_avoid(&view(1.0, 20.0, 14.0, 10.0), 20);
            assert!((c.w_est() - (20.0 + want)).abs() < 1e-12, "{}", c.w_est());
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_last_maximum() {
        let mut c = Cubic::new(CubicConfig::default());
        c.ssthresh(&view(0.0, 100.0, 1e9, 100.0));
        assert!((c.ssthresh(&view(0.0, 90.0, 1e9, 100.0)) - 63.0).abs() < 1e-12);
        assert!((c.w_max() - 76.5).abs() < 1e-12); // 90 (1 + 0.7)/2
        let mut c = Cubic::new(CubicConfig { fast_convergence: false, ..Default::default() });
        c.ssthresh(&view(0.0, 100.0, 1e9, 100.0));
        c.ssthresh(&view(0.0, 90.0, 1e9, 100.0));
        assert_eq!(c.w_max(), 90.0);
    }

    #[test]
    fn after_a_timeout_the_first_epoch_has_k_zero_and_its_own_window_as_w_max() {
        let mut c = Cubic::new(CubicConfig::default());
        c.ssthresh(&view(0.0, 100.0, 1e9, 100.0));
        c.cwnd_event(&view(0.0, 100.0, 70.0, 100.0), CwndEvent::Timeout);
        // Slow start from 1 to ssthresh 70, then the first avoidance ACK.
        c.cong_avoid(&view(2000.0, 70.0, 70.0, 100.0), 1);
        let e = c.epoch().unwrap();
        assert_eq!((e.k, e.w_max, e.cwnd_epoch), (0.0, 70.0, 70.0));
        assert_eq!(c.w_max(), 70.0);
        // W(t) = 0.4 t^3 + 70.
        assert!((c.w_cubic(&e, 2.0) - 73.2).abs() < 1e-12);
    }

    #[test]
    fn before_the_first_rtt_sample_it_grows_like_reno() {
        let mut c = Cubic::new(CubicConfig::default());
        let w = c.cong_avoid(&view(0.0, 10.0, 5.0, 0.0), 1);
        assert!((w - 10.1).abs() < 1e-12);
        assert!(c.epoch().is_none());
    }

    #[test]
    fn variant_1_keeps_eight_tenths_and_explicit_constants_override() {
        let mut p = Params::new();
        p.insert("variant".into(), 1.0);
        let mut c = build(&p).unwrap();
        assert_eq!(c.ssthresh(&view(0.0, 100.0, 1e9, 100.0)), 80.0);
        p.insert("beta".into(), 0.5);
        let mut c = build(&p).unwrap();
        assert_eq!(c.ssthresh(&view(0.0, 100.0, 1e9, 100.0)), 50.0);
        // K for the 2008 constants after a loss at 1000: cbrt(1000 0.2 / 0.4) = 7.937 s.
        let mut c = Cubic::new(CubicConfig::ha2008());
        c.ssthresh(&view(0.0, 1000.0, 1e9, 100.0));
        c.cong_avoid(&view(0.0, 800.0, 800.0, 100.0), 1);
        assert!((c.epoch().unwrap().k - 500f64.cbrt()).abs() < 1e-12);
        for bad in [2.0, 0.5] {
            let mut p = Params::new();
            p.insert("variant".into(), bad);
            assert_eq!(build(&p).err().unwrap().param, "variant");
        }
    }
}
