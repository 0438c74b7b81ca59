//! DCTCP: Reno's window growth, and a reduction in proportion to the fraction of
//! packets the network marked.
//!
//! Sources: RFC 8257, "Data Center TCP (DCTCP): TCP Congestion Control for Data
//! Centers" (2017), section 3; M. Alizadeh et al., "Data Center TCP (DCTCP)",
//! SIGCOMM 2010, section 3; Linux net/ipv4/tcp_dctcp.c (6.x).
//!
//! Switches mark an ECN-capable packet CE when their instantaneous queue is at least K
//! on its arrival (queue/step_mark.rs). The receiver echoes each packet's mark
//! (tcp/receiver.rs, the two-state machine of RFC 8257 section 3.2: [`Dctcp::needs_ecn`]).
//! The sender counts, over each window of data (from the snd_nxt at the window's start
//! until snd_una reaches it, about one RTT), the packets acknowledged and those
//! acknowledged with ECN-Echo, and once per window updates
//!
//! - `F = delivered_ce / delivered`   (RFC 8257 section 3.3 step 7: M = bytes acked with
//!   ECE / bytes acked)
//! - `alpha = (1 - g) alpha + g F`, `g = 1/16`   (step 8; paper eq. 1)
//!
//! and an ECN echo, at most once per window (RFC 3168 section 6.1.2, as for any ECN flow:
//! tcp/ecn.rs), sets
//!
//! - `ssthresh = cwnd = max(cwnd (1 - alpha / 2), 2)`   (step 9; paper eq. 2; Linux
//!   `dctcp_ssthresh`)
//!
//! With every packet marked alpha tends to 1 and the reduction is Reno's halving; with a
//! few marks it is small, which keeps the queue near K with a window that barely moves.
//! Slow start and the additive increase of one packet per RTT are Reno's (RFC 8257
//! section 3.3: "DCTCP ... the same as standard TCP otherwise"; Linux `tcp_reno_cong_avoid`).
//!
//! Choices where the sources differ or are silent:
//! - **Packets, not bytes.** F counts packets delivered (cumulatively or by SACK) by the
//!   ACKs of the window, as Linux counts `tp->delivered` and `tp->delivered_ce`; RFC 8257
//!   counts bytes, which is the same with cclab's equal-sized packets.
//! - **alpha as a float**, as RFC 8257 and ns-3 write it. Linux keeps it in 10 bits
//!   (1024 = 1) and subtracts `min_not_zero(alpha, alpha >> g)`, so an alpha below 16/1024
//!   falls to 0 at the next window without marks; here it decays geometrically.
//! - **alpha starts at 1** (`alpha_init`): Linux's `dctcp_alpha_on_init` (1024/1024) and
//!   ns-3's `DctcpAlphaOnInit` default. RFC 8257 section 3.3 leaves the initial value to the
//!   implementation and notes that 1 is conservative: the first echo halves the window as
//!   Reno would, before the sender knows how many marks a window brings. 0 makes the first
//!   reductions tiny (the paper's choice is not stated).
//! - **The first window** ends with the first ACK (the window boundary is snd_nxt at the
//!   start, 0), as in Linux, where `dctcp_init` sets `next_seq = snd_nxt` when the
//!   connection opens.
//! - **A loss halves** (`loss_reduction = 0`): RFC 8257 section 3.5 ("a DCTCP sender MUST
//!   react to loss episodes in the same way as conventional TCP") and Linux since 5.1
//!   (`dctcp_react_to_loss`, called from `dctcp_state` on entering Recovery and from
//!   `dctcp_cwnd_event(CA_EVENT_LOSS)` on a timeout, overwrites the `snd_ssthresh` that
//!   `dctcp_ssthresh` had set). `loss_reduction = 1` answers a loss with the alpha
//!   reduction too, as ns-3.44's `TcpDctcp::GetSsThresh` and Linux before 5.1 do; with few
//!   marks such a flow barely backs off on a loss.
//! - **The window holds in CWR** (`cwr_hold = 1`): after an echo reduction it does not grow
//!   until the data sent before the reduction is acknowledged, as the sender's CWR state
//!   does in Linux (`tcp_cong_control` runs `tcp_cwnd_reduction`, not `cong_avoid`) and in
//!   ns-3 (it leaves CA_CWR when the ACK passes `m_recover`). `cwr_hold = 0` grows it at
//!   once, as cclab's RFC 3168 ECN does for the other algorithms; against ns-3 that leaves
//!   the queue of ten flows 15 % higher (docs/algorithms/dctcp.md). The reduction itself is
//!   at once (cwnd = ssthresh on the echo), as for every ECN flow here and in ns-3 with
//!   classic recovery; Linux, and ns-3 with PRR, spread it over that round trip.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `g` | EWMA gain of alpha (Linux `dctcp_shift_g` 4: 1/16) | 0.0625 | (0, 1] |
//! | `alpha_init` | alpha at the start (Linux `dctcp_alpha_on_init` / 1024) | 1 | [0, 1] |
//! | `loss_reduction` | 0: a loss halves (RFC 8257 section 3.5, Linux); 1: a loss reduces by alpha (ns-3.44) | 0 | 0 or 1 |
//! | `cwr_hold` | 1: no growth until the data sent before an echo reduction is acknowledged (Linux's and ns-3's CWR); 0: grow at once | 1 | 0 or 1 |

use super::{AckSample, CongestionControl, ParamError, ParamReader, Params, SenderView};

/// DCTCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpConfig {
    /// EWMA gain g of alpha, dimensionless.
    pub g: f64,
    /// alpha before the first window ends, dimensionless in [0, 1].
    pub alpha_init: f64,
    /// A loss reduces by alpha as an echo does (ns-3.44), instead of halving.
    pub loss_by_alpha: bool,
    /// No growth in the round trip after an echo reduction (Linux's and ns-3's CWR state).
    pub cwr_hold: bool,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, alpha_init: 1.0, loss_by_alpha: false, cwr_hold: true }
    }
}

/// `alpha' = (1 - g) alpha + g F`   (RFC 8257 section 3.3 step 8; paper eq. 1)
pub fn update_alpha(alpha: f64, g: f64, f: f64) -> f64 {
    (1.0 - g) * alpha + g * f
}

/// `cwnd (1 - alpha / 2)`, at least 2 packets   (RFC 8257 section 3.3 step 9; paper eq. 2)
pub fn reduced_window(cwnd: f64, alpha: f64) -> f64 {
    (cwnd * (1.0 - alpha / 2.0)).max(super::MIN_WINDOW)
}

pub struct Dctcp {
    cfg: DctcpConfig,
    /// The estimate of the fraction of packets marked, dimensionless in [0, 1].
    alpha: f64,
    /// The window of observation ends once snd_una reaches this segment (Linux `next_seq`).
    next_seq: u64,
    /// Packets delivered in this window, and those of them acknowledged with ECN-Echo.
    delivered: u64,
    delivered_ce: u64,
    /// Windows ended, alpha updates made.
    windows: u64,
    /// With `cwr_hold`: snd_nxt at the last echo reduction; no growth until snd_una passes it.
    cwr_end: Option<u64>,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig) -> Self {
        Dctcp { cfg, alpha: cfg.alpha_init, next_seq: 0, delivered: 0, delivered_ce: 0, windows: 0, cwr_end: None }
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Observation windows ended (alpha updates) since the start.
    pub fn windows(&self) -> u64 {
        self.windows
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let d = DctcpConfig::default();
    let cfg = DctcpConfig {
        g: r.get("g", d.g, f64::MIN_POSITIVE, 1.0)?,
        alpha_init: r.get("alpha_init", d.alpha_init, 0.0, 1.0)?,
        loss_by_alpha: r.get_flag("loss_reduction", d.loss_by_alpha)?,
        cwr_hold: r.get_flag("cwr_hold", d.cwr_hold)?,
    };
    r.finish()?;
    Ok(Box::new(Dctcp::new(cfg)))
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    /// A loss: Reno's halving (RFC 8257 section 3.5, Linux `dctcp_react_to_loss`), or with
    /// `loss_reduction = 1` the alpha reduction (ns-3.44).
    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        if self.cfg.loss_by_alpha {
            reduced_window(v.cwnd, self.alpha)
        } else {
            super::halve(v)
        }
    }

    fn ecn_ssthresh(&mut self, v: &SenderView) -> f64 {
        if self.cfg.cwr_hold {
            self.cwr_end = Some(v.snd_nxt);
        }
        reduced_window(v.cwnd, self.alpha)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        // Linux's and ns-3's CWR: the window stays until the ACK passes snd_nxt at the cut.
        if self.cwr_end.is_some_and(|e| v.snd_una <= e) {
            return v.cwnd;
        }
        self.cwr_end = None;
        super::slow_start_then_increase(v, acked, || 1.0)
    }

    /// Linux `dctcp_update_alpha` (its `in_ack_event`): count this ACK's packets, and at
    /// the end of a window of data update alpha and start the next window at snd_nxt.
    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        self.delivered += u64::from(s.acked);
        if s.ece {
            self.delivered_ce += u64::from(s.acked);
        }
        if v.snd_una >= self.next_seq {
            // F = delivered_ce / delivered; 0 for a window that delivered nothing.
            let f = if self.delivered > 0 { self.delivered_ce as f64 / self.delivered as f64 } else { 0.0 };
            self.alpha = update_alpha(self.alpha, self.cfg.g, f);
            self.windows += 1;
            self.next_seq = v.snd_nxt;
            self.delivered = 0;
            self.delivered_ce = 0;
        }
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("g", self.cfg.g),
            ("alpha_init", self.cfg.alpha_init),
            ("loss_reduction", if self.cfg.loss_by_alpha { 1.0 } else { 0.0 }),
            ("cwr_hold", if self.cfg.cwr_hold { 1.0 } else { 0.0 }),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::view;
    use crate::cc::CcHeader;
    use crate::units::SimTime;

    fn ack(acked: u32, ece: bool) -> AckSample {
        AckSample { acked, rtt: None, rcv_tsval: SimTime::ZERO, cc_echo: CcHeader::default(), ece }
    }

    fn at(snd_una: u64, snd_nxt: u64) -> SenderView {
        SenderView { snd_una, snd_nxt, ..view(10.0, 5.0) }
    }

    /// One window of 10 packets, one ACK per packet, the first `marked` echoed; the window
    /// was sent as [una, una + 10) and the next as [una + 10, una + 20).
    fn window(d: &mut Dctcp, una: u64, marked: u32) {
        for i in 0..10u32 {
            d.pkts_acked(&at(una + u64::from(i) + 1, una + 20), &ack(1, i < marked));
        }
    }

    #[test]
    fn alpha_follows_the_ewma_of_the_marked_fraction_once_per_window() {
        let mut d = Dctcp::new(DctcpConfig { alpha_init: 0.0, ..DctcpConfig::default() });
        // The first ACK ends the window begun at the start (next_seq 0), with F = 0.
        d.pkts_acked(&at(0, 10), &ack(0, false));
        assert_eq!((d.alpha(), d.windows()), (0.0, 1));
        // F = 0.5, 1.0, 0.2 in turn:
        //   0.9375 * 0     + 0.0625 * 0.5 = 0.03125
        //   0.9375 * 0.03125 + 0.0625 * 1 = 0.0917969
        //   0.9375 * 0.0917969 + 0.0625 * 0.2 = 0.0985596
        window(&mut d, 0, 5);
        assert_eq!(d.alpha(), 0.03125);
        window(&mut d, 10, 10);
        assert!((d.alpha() - 0.091_796_875).abs() < 1e-12, "{}", d.alpha());
        window(&mut d, 20, 2);
        assert!((d.alpha() - 0.098_559_570_3).abs() < 1e-9, "{}", d.alpha());
        assert_eq!(d.windows(), 4);
    }

    #[test]
    fn alpha_is_updated_only_when_the_window_ends() {
        let mut d = Dctcp::new(DctcpConfig::default());
        d.pkts_acked(&at(0, 10), &ack(0, false)); // 1 -> 0.9375
                                                  // Nine of ten packets acknowledged, all marked: the window [0, 10) is still open.
        for i in 1..10 {
            d.pkts_acked(&at(i, 10), &ack(1, true));
        }
        assert_eq!(d.alpha(), 0.9375);
        d.pkts_acked(&at(10, 20), &ack(1, false));
        // F = 9/10: 0.9375 * 0.9375 + 0.0625 * 0.9.
        assert!((d.alpha() - (0.878_906_25 + 0.056_25)).abs() < 1e-12, "{}", d.alpha());
    }

    #[test]
    fn an_echo_reduces_by_half_alpha_and_a_loss_halves_unless_asked_otherwise() {
        let mut d = Dctcp::new(DctcpConfig { alpha_init: 0.25, ..DctcpConfig::default() });
        // 80 (1 - 0.25/2) = 70.
        assert_eq!(d.ecn_ssthresh(&view(80.0, 1e9)), 70.0);
        assert_eq!(d.ssthresh(&view(80.0, 1e9)), 40.0);
        assert_eq!(d.ecn_ssthresh(&view(2.2, 1e9)), 2.0, "at least 2 packets");
        let mut ns3 = Dctcp::new(DctcpConfig { alpha_init: 0.25, loss_by_alpha: true, ..DctcpConfig::default() });
        assert_eq!(ns3.ssthresh(&view(80.0, 1e9)), 70.0);
    }

    #[test]
    fn growth_is_renos_slow_start_then_one_packet_per_window() {
        let mut d = Dctcp::new(DctcpConfig::default());
        assert_eq!(d.cong_avoid(&view(10.0, 100.0), 2), 12.0);
        assert_eq!(d.cong_avoid(&view(100.0, 50.0), 1), 100.01);
    }

    #[test]
    fn with_cwr_hold_the_window_stays_until_the_data_sent_before_the_cut_is_acknowledged() {
        let mut d = Dctcp::new(DctcpConfig { alpha_init: 0.5, ..DctcpConfig::default() });
        let v = |cwnd: f64, una: u64| SenderView { snd_una: una, snd_nxt: 140, ..view(cwnd, 60.0) };
        // Cut at snd_nxt 100: 80 (1 - 0.25) = 60.
        assert_eq!(d.ecn_ssthresh(&SenderView { snd_nxt: 100, ..v(80.0, 40) }), 60.0);
        assert_eq!(d.cong_avoid(&v(60.0, 50), 1), 60.0);
        assert_eq!(d.cong_avoid(&v(60.0, 100), 1), 60.0, "the ACK of 99 is still in CWR");
        assert!((d.cong_avoid(&v(60.0, 101), 1) - (60.0 + 1.0 / 60.0)).abs() < 1e-12);
        let mut free = Dctcp::new(DctcpConfig { alpha_init: 0.5, cwr_hold: false, ..DctcpConfig::default() });
        free.ecn_ssthresh(&SenderView { snd_nxt: 100, ..v(80.0, 40) });
        assert!(free.cong_avoid(&v(60.0, 50), 1) > 60.0, "cwr_hold = 0 grows at once");
    }

    #[test]
    fn parameters_outside_their_ranges_are_refused_by_name() {
        let p = |k: &str, v: f64| -> Params { [(k.to_string(), v)].into_iter().collect() };
        assert_eq!(build(&p("g", 0.0)).err().unwrap().param, "g");
        assert_eq!(build(&p("g", 1.5)).err().unwrap().param, "g");
        assert_eq!(build(&p("alpha_init", -0.1)).err().unwrap().param, "alpha_init");
        assert_eq!(build(&p("loss_reduction", 2.0)).err().unwrap().param, "loss_reduction");
        assert_eq!(build(&p("cwr_hold", 0.5)).err().unwrap().param, "cwr_hold");
        assert!(build(&p("g", 1.0)).is_ok());
        assert!(build(&Params::new()).unwrap().needs_ecn());
    }
}
