//! Kyushu-TCP (KTCP): an add-on that wraps any window-based algorithm and,
//! after each loss, holds the window for a while just below where the loss
//! happened, to leave room for competing standard TCP flows.
//!
//! Source: S. Yoshimizu, H. Koga, K. Kouyama, M. Shimamura, K. Kumazoe,
//! M. Tsuru, "Kyushu-TCP: Improving Fairness of High-Speed Transport
//! Protocols", IEICE Trans. Commun. E93-B(5), 2010 (paper 002), sections 3-4.
//!
//! With `w1` the window just before a loss, KTCP aims the wrapped algorithm's
//! growth at `w2 = alpha w1` (eq. 1), the "stably available bandwidth-delay
//! product". Once congestion avoidance brings the window to `w2`, the window
//! stays there (the non-aggressive period) until `B = T_c^2 w2` packets have
//! been sent without a loss (eq. 2), `T_c` being the number of fast
//! retransmits so far; then the wrapped algorithm runs unrestrained. A loss
//! ends the period at once: the wrapped algorithm decreases as usual and a new
//! `w2` is taken from the window at that loss. A retransmission timeout
//! (slow start) resets `T_c` to zero and drops any pending period, so until
//! the next fast retransmit the wrapped algorithm runs alone.
//!
//! Choices where the paper is silent or loose:
//! - **Units of B.** The paper counts "transmitted bytes" against
//!   `T_c^2 w2` and says the first period (`T_c = 1`) lasts about one RTT:
//!   that is `T_c^2` windows of `w2`, so `w2` is read in bytes there. Here
//!   windows are packets, so B is `T_c^2 w2` packets (the same amount of
//!   data); the period ends when more than B data packets (retransmissions
//!   included) have left since it began.
//! - **When the period is entered.** The paper enters it only while HSTCP
//!   runs its high-speed rule, window above its threshold W (the paper writes
//!   83; RFC 3649 and [`super::highspeed`] use `W_low` = 38). Here the loss
//!   arms a period only if `w2 > low_window`; `low_window` defaults to 38 when
//!   the wrapped algorithm is `highspeed` and to 0 (always) otherwise: CUBIC
//!   has no such switch and the paper names none for it.
//! - **The hold level.** If the wrapped algorithm's own decrease already
//!   leaves the window at or above `w2` (HighSpeed's b(w) = 0.1 at the top of
//!   its table), the period starts at once at that window; KTCP never lowers
//!   a window.
//! - **The wrapped algorithm is paused during the period**: it sees no ACKs
//!   (no `cong_avoid` calls), and the clock it is shown (`SenderView::now`)
//!   stops, so afterwards it resumes from `w2` as if the period had not
//!   happened ("after that, KTCP controls its cwnd based on the original
//!   congestion avoidance algorithm"). HighSpeed has no clock and is
//!   unaffected. CUBIC is: with its clock running, it climbed back onto its
//!   curve (near `W_max` by then) within an RTT or two of the period's end,
//!   and KTCP made no measurable difference to the SACK flows (paper 002
//!   section 5.1.1 set-up, 742.2 Mbit/s with and without, seed 1).
//! - **T_c counts entries into fast recovery** (the sender's Recovery state),
//!   as "fast retransmissions without a timeout". A window reduction for an
//!   ECN echo takes a new `w2` but does not count.
//! - `T_c` is never reset except by a timeout, as in the paper, so a long run
//!   with frequent losses ends up with periods that last until the next loss.
//!   The paper also says KTCP "lengthens the non-aggressive period depending on
//!   the increase in the number of congestion events and keeps it constant"
//!   (section 3) without saying where the growth stops: `ktcp_tc_max` caps
//!   `T_c` (B then stays at `tc_max^2 w2`); its default, 0, leaves `T_c`
//!   unbounded as before, so existing results do not move.
//!
//! Parameters: names starting `ktcp_` are KTCP's; every other name goes to
//! the wrapped algorithm (`cc = "highspeed+ktcp"` with
//! `cc_params = { ktcp_alpha = 0.8, table = 0 }`).
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `ktcp_alpha` | reduction ratio alpha in `w2 = alpha w1` (eq. 1) | 0.9 | (0, 1] |
//! | `ktcp_low_window` | no period unless `w2` exceeds this window, packets | 38 for `highspeed`, else 0 | [0, 1e9] |
//! | `ktcp_tc_max` | the largest `T_c` counted (eq. 2's period stops growing there); 0 = no bound | 0 | whole, [0, 1000000] |

use super::{AckSample, CaState, CcHeader, CongestionControl, CwndEvent, ParamError, ParamReader, Params, SenderView};
use crate::units::SimTime;
use std::borrow::Cow;

/// The prefix of the parameters KTCP reads itself.
pub const PREFIX: &str = "ktcp_";

/// The name suffix that wraps an algorithm: `"<name>+ktcp"`.
pub const SUFFIX: &str = "+ktcp";

/// The estimated stably available window, packets.
/// `w2 = w1 x alpha`   (paper 002, eq. 1)
pub fn target_window(alpha: f64, w1: f64) -> f64 {
    alpha * w1
}

/// The data, in packets, to send without loss before the period ends.
/// `B = T_c^2 x w2`   (paper 002, eq. 2)
pub fn hold_packets(tc: u32, w2: f64) -> f64 {
    (tc as f64).powi(2) * w2
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KtcpConfig {
    /// Reduction ratio alpha, a fraction in (0, 1].
    pub alpha: f64,
    /// No non-aggressive period unless `w2` exceeds this window, packets.
    pub low_window: f64,
    /// The largest T_c counted; 0 leaves T_c unbounded.
    pub tc_max: u32,
}

impl Default for KtcpConfig {
    fn default() -> Self {
        KtcpConfig { alpha: 0.9, low_window: 0.0, tc_max: 0 }
    }
}

/// Where KTCP is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// The wrapped algorithm runs unrestrained.
    Free,
    /// After a loss: the window may grow up to `w2` (packets), no further.
    Rising { w2: f64 },
    /// The non-aggressive period: the window stays at `level` (packets) until
    /// more than `b` packets have been sent; `sent` so far.
    Holding { level: f64, b: f64, sent: u64 },
}

pub struct Ktcp {
    /// The name it was built under: "ktcp", or "<wrapped>+ktcp".
    name: Cow<'static, str>,
    inner: Box<dyn CongestionControl>,
    cfg: KtcpConfig,
    /// Fast retransmits since the start or the last timeout (T_c).
    tc: u32,
    phase: Phase,
    /// Time spent in non-aggressive periods so far, hidden from the wrapped algorithm.
    paused: SimTime,
    /// When the current non-aggressive period began.
    hold_since: Option<SimTime>,
}

impl Ktcp {
    pub fn new(inner: Box<dyn CongestionControl>, cfg: KtcpConfig) -> Self {
        Ktcp {
            name: Cow::Borrowed("ktcp"),
            inner,
            cfg,
            tc: 0,
            phase: Phase::Free,
            paused: SimTime::ZERO,
            hold_since: None,
        }
    }

    /// The same, reporting `name` (the add-on mechanism names it as written).
    pub fn named(mut self, name: String) -> Self {
        self.name = Cow::Owned(name);
        self
    }

    /// T_c: fast retransmits counted so far.
    pub fn tc(&self) -> u32 {
        self.tc
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The view the wrapped algorithm sees: its clock stops during non-aggressive periods.
    fn inner_view(&self, v: &SenderView) -> SenderView {
        let now = self.hold_since.unwrap_or(v.now) - self.paused;
        SenderView { now, ..*v }
    }

    /// The period (if any) ends at `now`.
    fn end_hold(&mut self, now: SimTime) {
        if let Some(t) = self.hold_since.take() {
            self.paused += now - t;
        }
    }
}

/// The add-on's constructor (see `cc::WRAPPERS`): KTCP around `inner`, an
/// algorithm built as `inner_name`; `own` holds the `ktcp_*` parameters. The
/// wrapper reports its name as written, `"<inner_name>+ktcp"`.
pub fn wrap(
    inner: Box<dyn CongestionControl>,
    inner_name: &str,
    own: &Params,
) -> Result<Box<dyn CongestionControl>, ParamError> {
    Ok(Box::new(configure(inner, inner_name, own)?.named(format!("{inner_name}{SUFFIX}"))))
}

fn configure(inner: Box<dyn CongestionControl>, inner_name: &str, own: &Params) -> Result<Ktcp, ParamError> {
    let mut r = ParamReader::new(own);
    let d = KtcpConfig::default();
    let low_default = if inner_name == "highspeed" { super::highspeed::LOW_WINDOW } else { d.low_window };
    let alpha = r.get("ktcp_alpha", d.alpha, 1e-9, 1.0)?;
    let low_window = r.get("ktcp_low_window", low_default, 0.0, 1e9)?;
    let tc_max = r.get_int("ktcp_tc_max", d.tc_max, 0, 1_000_000)?;
    r.finish()?;
    Ok(Ktcp::new(inner, KtcpConfig { alpha, low_window, tc_max }))
}

/// `"ktcp"` alone: KTCP on HighSpeed, the paper's HSTCP+KTCP.
pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let (own, rest) = super::split_params(p, PREFIX);
    let inner = super::highspeed::build(&rest)?;
    Ok(Box::new(configure(inner, "highspeed", &own)?))
}

impl CongestionControl for Ktcp {
    fn name(&self) -> &str {
        &self.name
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        // A loss ends any period; the next one aims at alpha times this window.
        self.end_hold(v.now);
        let w2 = target_window(self.cfg.alpha, v.cwnd);
        self.phase = if w2 > self.cfg.low_window { Phase::Rising { w2 } } else { Phase::Free };
        self.inner.ssthresh(&self.inner_view(v))
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        if let Phase::Holding { level, .. } = self.phase {
            return level;
        }
        let w = self.inner.cong_avoid(&self.inner_view(v), acked);
        match self.phase {
            Phase::Free => w,
            // Slow start is not restrained (only reachable if ssthresh was raised by hand).
            Phase::Rising { .. } if v.cwnd < v.ssthresh => w,
            Phase::Rising { w2 } if w >= w2 => {
                let level = w2.max(v.cwnd);
                self.phase = Phase::Holding { level, b: hold_packets(self.tc, w2), sent: 0 };
                self.hold_since = Some(v.now);
                level
            }
            Phase::Rising { .. } | Phase::Holding { .. } => w,
        }
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        self.inner.pkts_acked(&self.inner_view(v), s);
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        // T_c counts fast retransmits, up to tc_max when that is set (section 3: the
        // period is lengthened "and kept constant").
        if new == CaState::Recovery
            && v.state != CaState::Recovery
            && (self.cfg.tc_max == 0 || self.tc < self.cfg.tc_max)
        {
            self.tc += 1;
        }
        self.inner.set_state(&self.inner_view(v), new);
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        if ev == CwndEvent::Timeout {
            self.end_hold(v.now);
            self.tc = 0;
            self.phase = Phase::Free;
        }
        self.inner.cwnd_event(&self.inner_view(v), ev);
    }

    fn undo_cwnd(&mut self, v: &SenderView) -> Option<f64> {
        self.inner.undo_cwnd(&self.inner_view(v))
    }

    fn on_send(&mut self, v: &SenderView, seq: u64) -> CcHeader {
        if let Phase::Holding { b, sent, .. } = &mut self.phase {
            *sent += 1;
            if *sent as f64 > *b {
                self.phase = Phase::Free;
                self.end_hold(v.now);
            }
        }
        self.inner.on_send(&self.inner_view(v), seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::SimTime;

    fn view(cwnd: f64, ssthresh: f64, state: CaState) -> SenderView {
        SenderView {
            srtt: SimTime::from_millis(100),
            rtt_min: SimTime::from_millis(100),
            state,
            ..crate::cc::testing::view(cwnd, ssthresh)
        }
    }

    fn params(kv: &[(&str, f64)]) -> Params {
        kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn hs_ktcp(kv: &[(&str, f64)]) -> Ktcp {
        let p = params(kv);
        let (own, rest): (Params, Params) = p.into_iter().partition(|(k, _)| k.starts_with(PREFIX));
        let mut cfg = KtcpConfig { low_window: super::super::highspeed::LOW_WINDOW, ..Default::default() };
        if let Some(a) = own.get("ktcp_alpha") {
            cfg.alpha = *a;
        }
        if let Some(m) = own.get("ktcp_tc_max") {
            cfg.tc_max = *m as u32;
        }
        Ktcp::new(super::super::build("highspeed", &rest).unwrap(), cfg)
    }

    /// A fast retransmit as the sender runs it; returns the new ssthresh.
    fn fast_retransmit(k: &mut Ktcp, cwnd: f64) -> f64 {
        let v = view(cwnd, 1e9, CaState::Open);
        let s = k.ssthresh(&v);
        k.set_state(&v, CaState::Recovery);
        let v = view(s, s, CaState::Recovery);
        k.set_state(&v, CaState::Open);
        k.cwnd_event(&v, CwndEvent::RecoveryEnd);
        s
    }

    #[test]
    fn w2_is_alpha_times_w1_and_b_is_tc_squared_windows_of_w2() {
        assert!((target_window(0.9, 1000.0) - 900.0).abs() < 1e-9);
        assert!((target_window(0.8, 250.0) - 200.0).abs() < 1e-9);
        assert_eq!(hold_packets(1, 900.0), 900.0);
        assert_eq!(hold_packets(3, 900.0), 8100.0);
        assert_eq!(hold_packets(0, 900.0), 0.0);
    }

    #[test]
    fn after_a_loss_highspeed_climbs_to_w2_holds_for_b_packets_then_climbs_again() {
        let mut k = hs_ktcp(&[]);
        // Loss at w1 = 1000: HighSpeed keeps (1 - 0.33) 1000 = 670; w2 = 900; T_c = 1.
        let s = fast_retransmit(&mut k, 1000.0);
        assert!((s - 670.0).abs() < 1e-9, "{s}");
        assert_eq!(k.tc(), 1);
        assert_eq!(k.phase(), Phase::Rising { w2: 900.0 });
        // Congestion avoidance up to 900, never beyond.
        let mut w = s;
        let mut acks = 0;
        while k.phase() != (Phase::Holding { level: 900.0, b: 900.0, sent: 0 }) {
            w = k.cong_avoid(&view(w, s, CaState::Open), 1);
            acks += 1;
            assert!(w <= 900.0, "{w}");
            assert!(acks < 100_000);
        }
        assert_eq!(w, 900.0);
        // Held at 900 while 900 packets are sent (B = 1^2 x 900), released by the 901st.
        for i in 0..900 {
            assert_eq!(k.cong_avoid(&view(w, s, CaState::Open), 1), 900.0);
            k.on_send(&view(w, s, CaState::Open), i);
        }
        assert!(matches!(k.phase(), Phase::Holding { sent: 900, .. }));
        k.on_send(&view(w, s, CaState::Open), 900);
        assert_eq!(k.phase(), Phase::Free);
        // HighSpeed again: a(900) = 8 packets per RTT, 8/900 per ACK.
        let w = k.cong_avoid(&view(900.0, s, CaState::Open), 1);
        assert!((w - (900.0 + 8.0 / 900.0)).abs() < 1e-9, "{w}");
    }

    #[test]
    fn each_fast_retransmit_counts_and_lengthens_the_next_period() {
        let mut k = hs_ktcp(&[("ktcp_alpha", 0.8)]);
        fast_retransmit(&mut k, 1000.0);
        // A second loss while rising, at 850: w2 = 0.8 x 850 = 680, T_c = 2, B = 4 x 680.
        let s = fast_retransmit(&mut k, 850.0);
        assert_eq!(k.tc(), 2);
        assert!((s - 0.66 * 850.0).abs() < 1e-9);
        // ssthresh 561 (b(850) = 0.34) is below w2 = 680, so the first ACK only grows it.
        let w = k.cong_avoid(&view(s, s, CaState::Open), 1);
        assert!(w > s && w < 680.0);
        let w = k.cong_avoid(&view(679.999, s, CaState::Open), 1);
        assert_eq!(w, 680.0);
        assert_eq!(k.phase(), Phase::Holding { level: 680.0, b: 2720.0, sent: 0 });
        // A loss during the period ends it: new w2 = 0.8 x 680 = 544, T_c = 3.
        fast_retransmit(&mut k, 680.0);
        assert_eq!(k.tc(), 3);
        assert_eq!(k.phase(), Phase::Rising { w2: 0.8 * 680.0 });
    }

    #[test]
    fn tc_max_stops_the_count_and_so_the_periods_growth() {
        // Unbounded (the default): five fast retransmits, T_c = 5.
        let mut k = hs_ktcp(&[]);
        for _ in 0..5 {
            fast_retransmit(&mut k, 1000.0);
        }
        assert_eq!(k.tc(), 5);
        // Bounded at 2: T_c stays 2, so every later period is B = 4 w2 (here 4 x 900).
        let mut k = hs_ktcp(&[("ktcp_tc_max", 2.0)]);
        for _ in 0..5 {
            fast_retransmit(&mut k, 1000.0);
        }
        assert_eq!(k.tc(), 2);
        let w = k.cong_avoid(&view(899.999, 670.0, CaState::Open), 1);
        assert_eq!(w, 900.0);
        assert_eq!(k.phase(), Phase::Holding { level: 900.0, b: 3600.0, sent: 0 });
        // A timeout still resets it, and the count starts again from 1.
        let v = view(900.0, 1e9, CaState::Open);
        k.ssthresh(&v);
        k.cwnd_event(&v, CwndEvent::Timeout);
        assert_eq!(k.tc(), 0);
        fast_retransmit(&mut k, 1000.0);
        assert_eq!(k.tc(), 1);
    }

    #[test]
    fn a_timeout_resets_tc_and_leaves_the_wrapped_algorithm_alone() {
        let mut k = hs_ktcp(&[]);
        fast_retransmit(&mut k, 1000.0);
        fast_retransmit(&mut k, 800.0);
        assert_eq!(k.tc(), 2);
        // RTO as the sender runs it: ssthresh, the Timeout event, state Loss.
        let v = view(700.0, 1e9, CaState::Open);
        let s = k.ssthresh(&v);
        k.cwnd_event(&v, CwndEvent::Timeout);
        k.set_state(&v, CaState::Loss);
        assert_eq!(k.tc(), 0);
        assert_eq!(k.phase(), Phase::Free);
        // Slow start, then HighSpeed's growth right through 0.9 x 700.
        assert_eq!(k.cong_avoid(&view(10.0, s, CaState::Loss), 2), 12.0);
        let w = k.cong_avoid(&view(630.0, s, CaState::Open), 1);
        assert!(w > 630.0, "{w}");
    }

    #[test]
    fn below_highspeeds_low_window_no_period_is_entered() {
        let mut k = hs_ktcp(&[]);
        // w1 = 40: w2 = 36 is not above W_low = 38, so Reno-mode HighSpeed runs free.
        fast_retransmit(&mut k, 40.0);
        assert_eq!(k.phase(), Phase::Free);
        // w1 = 50: w2 = 45 > 38, period armed.
        fast_retransmit(&mut k, 50.0);
        assert_eq!(k.phase(), Phase::Rising { w2: 45.0 });
    }

    #[test]
    fn when_the_wrapped_decrease_keeps_more_than_w2_the_period_starts_at_that_window() {
        // HighSpeed at 80000 packets gives up b = 0.10: ssthresh 72000 = w2 with alpha 0.9;
        // with alpha 0.85, w2 = 68000 < 72000 and the window is held at 72000.
        let mut k = hs_ktcp(&[("ktcp_alpha", 0.85)]);
        let s = fast_retransmit(&mut k, 80000.0);
        assert!((s - 72000.0).abs() < 1e-6);
        assert_eq!(k.cong_avoid(&view(s, s, CaState::Open), 1), s);
        assert_eq!(k.phase(), Phase::Holding { level: s, b: 68000.0, sent: 0 });
    }

    /// A wrapped algorithm that keeps 80 % on a loss, adds one packet per ACK and
    /// records the clock and the number of ACKs it is shown.
    struct Recorder {
        seen: std::sync::Arc<std::sync::Mutex<(SimTime, u32)>>,
    }

    impl CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn ssthresh(&mut self, v: &SenderView) -> f64 {
            0.8 * v.cwnd
        }
        fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
            let mut seen = self.seen.lock().unwrap();
            *seen = (v.now, seen.1 + 1);
            v.cwnd + acked as f64
        }
    }

    #[test]
    fn the_wrapped_algorithms_clock_stops_during_the_period_and_it_sees_no_acks_then() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new((SimTime::ZERO, 0)));
        let get = || *seen.lock().unwrap();
        let mut k = Ktcp::new(Box::new(Recorder { seen: seen.clone() }), KtcpConfig::default());
        let at =
            |secs: f64, cwnd: f64| SenderView { now: SimTime::from_secs_f64(secs), ..view(cwnd, 80.0, CaState::Open) };
        // Loss at 100: the recorder keeps 80, w2 = 90, T_c = 1, B = 90 packets.
        assert_eq!(fast_retransmit(&mut k, 100.0), 80.0);
        // Ten ACKs at 1.0, 1.1, ... 1.9 s climb to 90 and start the period at 1.9 s.
        let mut w = 80.0;
        for i in 0..10 {
            w = k.cong_avoid(&at(1.0 + 0.1 * i as f64, w), 1);
        }
        assert_eq!(w, 90.0);
        assert_eq!(k.phase(), Phase::Holding { level: 90.0, b: 90.0, sent: 0 });
        assert_eq!(get().1, 10);
        // ACKs during the period keep 90 and do not reach the recorder.
        assert_eq!(k.cong_avoid(&at(3.0, 90.0), 1), 90.0);
        assert_eq!(get().1, 10);
        // 91 packets sent, the last at 4.4 s, end the period: 2.5 s held.
        for i in 0..91 {
            k.on_send(&at(4.4, 90.0), i);
        }
        assert_eq!(k.phase(), Phase::Free);
        // At 5.0 s the recorder's clock reads 5.0 - 2.5 = 2.5 s and it grows from 90.
        assert_eq!(k.cong_avoid(&at(5.0, 90.0), 1), 91.0);
        let (now, calls) = get();
        assert!((now.secs_f64() - 2.5).abs() < 1e-9, "{}", now.secs_f64());
        assert_eq!(calls, 11);
        // A loss inside a later period also ends it and adds its length: after a loss at
        // 5.5 s (w2 = 0.9 x 100 = 90 from 80) the period starts at 6.5 s, and a loss at
        // 7.0 s adds 0.5 s more, so at 8.0 s the recorder reads 8.0 - 2.5 - 0.5 = 5.0 s.
        k.ssthresh(&at(5.5, 100.0));
        let mut w = 80.0;
        for i in 0..10 {
            w = k.cong_avoid(&at(5.6 + 0.1 * i as f64, w), 1);
        }
        assert!(matches!(k.phase(), Phase::Holding { .. }));
        k.ssthresh(&at(7.0, 90.0));
        k.cong_avoid(&at(8.0, 72.0), 1);
        assert!((get().0.secs_f64() - 5.0).abs() < 1e-9, "{}", get().0.secs_f64());
    }

    #[test]
    fn ktcp_suffix_builds_around_any_registered_algorithm_and_splits_parameters() {
        let p = params(&[("ktcp_alpha", 0.8), ("beta", 0.7)]);
        assert!(super::super::build("cubic+ktcp", &p).is_ok());
        assert!(super::super::build("reno+ktcp", &params(&[("a", 2.0)])).is_ok());
        assert!(super::super::build("ktcp", &Params::new()).is_ok());
        // A KTCP parameter out of range, an unknown one, and one the wrapped algorithm lacks.
        let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_alpha", 1.5)])).err().unwrap();
        assert_eq!(e.param, "ktcp_alpha");
        let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_beta", 0.5)])).err().unwrap();
        assert_eq!(e.param, "ktcp_beta");
        // T_c's bound is a whole number.
        assert!(super::super::build("highspeed+ktcp", &params(&[("ktcp_tc_max", 3.0)])).is_ok());
        let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_tc_max", 2.5)])).err().unwrap();
        assert_eq!((e.param.as_str(), e.value.as_str()), ("ktcp_tc_max", "2.5"));
        assert!(e.accepted.contains("whole number in [0, 1000000]"), "{}", e.accepted);
        let e = super::super::build("highspeed+ktcp", &params(&[("ktcp_tc_max", -1.0)])).err().unwrap();
        assert_eq!(e.param, "ktcp_tc_max");
        let e = super::super::build("highspeed+ktcp", &params(&[("beta", 0.5)])).err().unwrap();
        assert_eq!(e.param, "beta");
        // An unknown wrapped name is reported with the suffix.
        let e = super::super::build("renoo+ktcp", &Params::new()).err().unwrap();
        assert_eq!((e.param.as_str(), e.value.as_str()), ("", "renoo+ktcp"));
    }
}
