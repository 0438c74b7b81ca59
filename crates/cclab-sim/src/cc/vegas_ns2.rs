//! TCP Vegas as ns-2.35's `Agent/TCP/Vegas` runs it (tcp/tcp-vegas.cc, after USC's
//! NetBSD Vegas): the Vegas of the `ns2` stack profile.
//!
//! The algorithm is Brakmo and Peterson's (see vegas.rs), but ns-2 implements it
//! differently from Linux in every step that decides start-up and the standing queue:
//!
//! - **Round.** A round ends with the first new ACK at or beyond the first segment sent
//!   after the last round ended (`v_begseq_`).
//! - **RTT of the round.** The *mean* of the round's samples; a sample is the time since
//!   the highest newly acknowledged segment was sent, taken only if it was sent once
//!   (its own send-time table, not the sender's RTT timing). Without samples, the time
//!   since the round began. `baseRTT` is the smallest of samples and round RTTs, and is
//!   reset to the round's RTT when at most one segment was sent in it.
//! - **Queue estimate** (rounded to a whole packet):
//!   `delta = int((expected − actual) · baseRTT + 0.5)` with
//!   `expected = outstanding / baseRTT` (`t_seqno_ − last_ack_`, one more than in flight)
//!   and `actual = segments sent in the round / RTT`.
//! - **Slow start** every other round: on "on" rounds +1 packet per new ACK. At the end of
//!   an "on" round with `delta > gamma` Vegas leaves slow start: its ssthresh becomes 2 and
//!   the window loses an eighth (at least 2 remain).
//! - **Congestion avoidance** at each round's end: `delta > beta` → one packet less at once
//!   and no increase in the next round; `delta < alpha` → +1/cwnd per new ACK in the next
//!   round; else hold. The window grows only while `cwnd − outstanding ≤ 2`.
//! - **Fast retransmit** (third duplicate ACK): unless the window already changed after
//!   the lost segment was sent, it is cut to `win − win/4` (`win` the whole window; 2 if
//!   `win ≤ 3`; half if the segment had been retransmitted before). Recovery ends with
//!   ssthresh 2, so Vegas resumes in congestion avoidance.
//! - **Timeout**: ssthresh is half the window (ns-2's `slowdown`).
//!
//! Not modelled (the sender's loss recovery is shared by every algorithm): the
//! fine-grained timer `v_timeout_` that retransmits on the first duplicate ACK or on the
//! first two ACKs after a retransmission (`v_worried_`), the window of 2 after a timeout
//! (the sender restarts from 1), and ns-2's ssthresh of 2 after a timeout's slow start.
//! ns-2 also has no limited transmit and no header bytes for Vegas; those belong to the
//! profile and the translation (docs/fidelity.md).
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `alpha` | grow while fewer than this many packets are queued | 1 (ns-2 `v_alpha_`) | [0, 10000] |
//! | `beta` | shrink while more than this many packets are queued | 3 (ns-2 `v_beta_`) | [alpha, 10000] |
//! | `gamma` | leave slow start above this many packets queued | 1 (ns-2 `v_gamma_`) | [0, 10000] |

use super::vegas::VegasConfig;
use super::{AckSample, CcHeader, CongestionControl, CwndEvent, ParamError, Params, SenderView};
use crate::units::SimTime;
use std::collections::VecDeque;

/// ns-2's defaults (ns-default.tcl: `v_alpha_ 1`, `v_beta_ 3`, `v_gamma_ 1`).
pub const NS2_DEFAULTS: VegasConfig = VegasConfig { alpha: 1.0, beta: 3.0, gamma: 1.0 };

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    Ok(Box::new(VegasNs2::new(super::vegas::read_config(p, NS2_DEFAULTS)?)))
}

/// ns-2's queue estimate, rounded as `int(x + 0.5)` (towards zero).
pub fn delta(outstanding: f64, sent_in_round: f64, base_rtt: f64, rtt: f64) -> i64 {
    let expected = outstanding / base_rtt;
    let actual = sent_in_round / rtt;
    ((expected - actual) * base_rtt + 0.5) as i64
}

pub struct VegasNs2 {
    cfg: VegasConfig,
    /// Send time and transmissions of each segment from snd_una on (`v_sendtime_`,
    /// `v_transmits_`); the front is segment `table_base`.
    table: VecDeque<(SimTime, u32)>,
    table_base: u64,
    /// The next new segment (`t_seqno_`).
    t_seqno: u64,
    /// First segment of the current round (`v_begseq_`) and when it began (`v_begtime_`).
    begseq: u64,
    begtime: SimTime,
    /// Sum and count of the round's RTT samples, seconds.
    sum_rtt: f64,
    cnt_rtt: u32,
    /// The sample of the last ACK, added to the round after that ACK's round decision.
    pending: Option<f64>,
    base_rtt: f64,
    /// Slow start grows only in every other round (`v_inc_flag_`).
    inc_flag: bool,
    /// Growth per new ACK in this round, packets (`v_incr_`).
    incr: f64,
    /// Vegas's own ssthresh: 2 after leaving slow start or recovery, half the window
    /// after a timeout; the sender's threshold applies too.
    own_ssthresh: f64,
    /// The window was last cut (`t_cwnd_changed_`).
    cwnd_changed: Option<SimTime>,
    /// What a timeout would set ssthresh to, kept from the last `ssthresh` call.
    timeout_ssthresh: f64,
}

impl VegasNs2 {
    pub fn new(cfg: VegasConfig) -> Self {
        VegasNs2 {
            cfg,
            table: VecDeque::new(),
            table_base: 0,
            t_seqno: 0,
            begseq: 0,
            begtime: SimTime::ZERO,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            pending: None,
            base_rtt: f64::INFINITY,
            inc_flag: true,
            incr: 0.0,
            own_ssthresh: f64::INFINITY,
            cwnd_changed: None,
            timeout_ssthresh: 2.0,
        }
    }

    /// snd_una as the sender sees it after this ACK.
    fn una(&self, v: &SenderView) -> u64 {
        self.t_seqno.saturating_sub(v.flight_size)
    }

    fn entry(&self, seq: u64) -> Option<(SimTime, u32)> {
        seq.checked_sub(self.table_base).and_then(|i| self.table.get(i as usize)).copied()
    }

    /// The end of a round: ns-2's once-per-RTT decision (tcp-vegas.cc `recv`).
    fn end_round(&mut self, v: &SenderView, cwnd: &mut f64) {
        let rtt = if self.cnt_rtt > 0 { self.sum_rtt / self.cnt_rtt as f64 } else { (v.now - self.begtime).secs_f64() };
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
        let sent_in_round = self.t_seqno.saturating_sub(self.begseq);
        if rtt > 0.0 {
            if rtt < self.base_rtt || sent_in_round <= 1 {
                self.base_rtt = rtt;
            }
            let outstanding = (v.flight_size + 1) as f64;
            let d = delta(outstanding, sent_in_round as f64, self.base_rtt, rtt);
            if *cwnd < v.ssthresh.min(self.own_ssthresh) {
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0.0;
                } else if d as f64 > self.cfg.gamma {
                    self.own_ssthresh = 2.0;
                    *cwnd = (*cwnd - *cwnd / 8.0).max(2.0);
                    self.incr = 0.0;
                } else {
                    self.incr = 1.0;
                }
            } else if d as f64 > self.cfg.beta {
                *cwnd = (*cwnd - 1.0).max(2.0);
                self.incr = 0.0;
            } else if (d as f64) < self.cfg.alpha {
                self.incr = 1.0 / *cwnd;
            } else {
                self.incr = 0.0;
            }
        }
        self.begseq = self.t_seqno;
        self.begtime = v.now;
    }
}

impl CongestionControl for VegasNs2 {
    fn name(&self) -> &'static str {
        "vegas-ns2"
    }

    fn on_send(&mut self, v: &SenderView, seq: u64) -> CcHeader {
        if self.t_seqno == 0 && self.table.is_empty() {
            self.table_base = seq;
            self.begtime = v.now;
        }
        if seq >= self.t_seqno {
            let first = self.t_seqno.max(self.table_base);
            for _ in first..=seq {
                self.table.push_back((v.now, 1));
            }
            self.t_seqno = seq + 1;
        } else if let Some(e) = seq.checked_sub(self.table_base).and_then(|i| self.table.get_mut(i as usize)) {
            *e = (v.now, e.1 + 1);
        }
        CcHeader::default()
    }

    fn pkts_acked(&mut self, v: &SenderView, _s: &AckSample) {
        // A sample left over from an ACK that got no window decision (in recovery).
        if let Some(r) = self.pending.take() {
            self.sum_rtt += r;
            self.cnt_rtt += 1;
        }
        let una = self.una(v);
        if una <= self.table_base {
            return;
        }
        // The highest newly acknowledged segment, timed if it was sent once.
        if let Some((sent, 1)) = self.entry(una - 1) {
            let r = (v.now - sent).secs_f64();
            if r > 0.0 {
                self.base_rtt = self.base_rtt.min(r);
                self.pending = Some(r);
            }
        }
        while self.table_base < una && self.table.pop_front().is_some() {
            self.table_base += 1;
        }
        self.table_base = self.table_base.max(una);
    }

    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        let mut cwnd = v.cwnd;
        if self.una(v) > self.begseq {
            self.end_round(v, &mut cwnd);
        }
        if let Some(r) = self.pending.take() {
            self.sum_rtt += r;
            self.cnt_rtt += 1;
        }
        if self.incr == 1.0 && cwnd >= v.ssthresh.min(self.own_ssthresh) {
            self.incr = 0.0;
        }
        // One increment per new ACK, whatever it covers, while the window is being used.
        let outstanding = (v.flight_size + 1) as f64;
        if self.incr > 0.0 && cwnd - outstanding <= 2.0 {
            cwnd += self.incr;
        }
        cwnd
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        // Kept in case this is a timeout, which halves (ns-2 `slowdown`).
        self.timeout_ssthresh = (v.cwnd / 2.0).floor().max(2.0);
        let win = v.cwnd.floor();
        let una = self.una(v);
        let (sent, transmits) = self.entry(una).unwrap_or((v.now, 1));
        if self.cwnd_changed.is_some_and(|t| t >= sent) {
            // The window was cut after the lost segment left: no second cut.
            return v.cwnd;
        }
        self.cwnd_changed = Some(v.now);
        if win <= 3.0 {
            2.0
        } else if transmits > 1 {
            (win / 2.0).floor()
        } else {
            win - (win / 4.0).floor()
        }
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        match ev {
            // ns-2 deflates to the cut window and sets ssthresh 2 on the first new ACK.
            CwndEvent::RecoveryEnd => self.own_ssthresh = 2.0,
            CwndEvent::Timeout => {
                self.own_ssthresh = self.timeout_ssthresh;
                self.cwnd_changed = Some(v.now);
                self.pending = None;
            }
            _ => {}
        }
    }

    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("alpha", self.cfg.alpha), ("beta", self.cfg.beta), ("gamma", self.cfg.gamma)]
    }
}

#[cfg(test)]
mod tests;
