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

use super::{
    AckSample, CaState, CcHeader, CongControl, CongestionControl, CwndEvent, ParamError, ParamReader, Params,
    RateSample, SenderView,
};
use crate::units::Rate;
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
    /// The name it was built under: "ktcp", or "`<wrapped>`+ktcp".
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
    /// The wrapped algorithm's last pacing rate (`cong_control` only), kept while holding.
    pacing_rate: Option<Rate>,
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
            pacing_rate: None,
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

    /// The wrapped algorithm's next window `w`, restrained: after a loss it may rise to
    /// `w2`, where the non-aggressive period begins.
    fn restrain(&mut self, v: &SenderView, w: f64) -> f64 {
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

    /// A loss (or an echo) ends any period; the next one aims at alpha times this window.
    fn on_reduction(&mut self, v: &SenderView) {
        self.end_hold(v.now);
        let w2 = target_window(self.cfg.alpha, v.cwnd);
        self.phase = if w2 > self.cfg.low_window { Phase::Rising { w2 } } else { Phase::Free };
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
        self.on_reduction(v);
        self.inner.ssthresh(&self.inner_view(v))
    }

    /// An echo ends a holding period and starts a rise as a loss does (the paper knows only
    /// losses; an echo was answered as one before `ecn_ssthresh` existed); the threshold is
    /// the wrapped algorithm's answer to the echo.
    fn ecn_ssthresh(&mut self, v: &SenderView) -> f64 {
        self.on_reduction(v);
        self.inner.ecn_ssthresh(&self.inner_view(v))
    }

    fn needs_ecn(&self) -> bool {
        self.inner.needs_ecn()
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        if let Phase::Holding { level, .. } = self.phase {
            return level;
        }
        let w = self.inner.cong_avoid(&self.inner_view(v), acked);
        self.restrain(v, w)
    }

    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        self.inner.init(&self.inner_view(v))
    }

    /// Around an algorithm that sets its own window (`cong_control`), KTCP restrains the
    /// window it returns as it restrains `cong_avoid`'s (the paper wraps only loss-based
    /// windows; this is cclab's extension), and keeps its last pacing rate while holding.
    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<CongControl> {
        if let Phase::Holding { level, .. } = self.phase {
            return Some(CongControl { cwnd: level, pacing_rate: self.pacing_rate, mark_app_limited: false });
        }
        let mut c = self.inner.cong_control(&self.inner_view(v), rs)?;
        c.cwnd = self.restrain(v, c.cwnd);
        self.pacing_rate = c.pacing_rate;
        Some(c)
    }

    fn uses_rate_samples(&self) -> bool {
        self.inner.uses_rate_samples()
    }

    fn cwnd_event_control(&mut self, v: &SenderView, ev: CwndEvent) -> Option<CongControl> {
        self.inner.cwnd_event_control(&self.inner_view(v), ev)
    }

    fn set_rng(&mut self, rng: rand_pcg::Pcg64) {
        self.inner.set_rng(rng);
    }

    fn observe(&self) -> Option<super::CcObservation> {
        self.inner.observe()
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        let mut p = self.inner.params();
        p.extend([
            ("ktcp_alpha", self.cfg.alpha),
            ("ktcp_low_window", self.cfg.low_window),
            ("ktcp_tc_max", self.cfg.tc_max as f64),
        ]);
        p
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        self.inner.pkts_acked(&self.inner_view(v), s);
    }

    fn ssthresh_after_ack(&mut self, v: &SenderView) -> Option<f64> {
        self.inner.ssthresh_after_ack(&self.inner_view(v))
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
mod tests;
