//! The RTT sample a Linux sender hands its congestion control (`ca_rtt_us`).
//!
//! Linux keeps two samples per ACK (net/ipv4/tcp_input.c, `tcp_clean_rtx_queue()` and
//! `tcp_ack_update_rtt()`). The estimator's (`seq_rtt_us`) comes from the *oldest* segment the
//! ACK newly acknowledges, or the echoed timestamp; the congestion control's (`ca_rtt_us`, also
//! the rate sample's `rtt_us` and the input of `tp->rtt_min`) from the *newest*: the last newly
//! SACKed segment if there is one (`tcp_sacktag_one()`'s `last_sackt`), else the last newly
//! cumulatively acknowledged one (`last_ackt`). Segments ever retransmitted give neither (Karn);
//! a retransmitted one among those cumulatively acknowledged voids `last_ackt`
//! (`FLAG_RETRANS_DATA_ACKED`). With no sample and timestamps on, an ACK that advances snd_una
//! falls back to the echoed timestamp for both.
//!
//! Under delayed ACKs the echoed timestamp is the *older* of the two segments an ACK covers
//! (RFC 7323's TS.Recent), so the two samples differ by up to a packet time plus the receiver's
//! hold, and a congestion control that tests an RTT trend (gHSTCP, HyStart, Vegas, BBR's
//! min_rtt) sees a different series (docs/linux.md, the gHSTCP four-flow question).

use super::sender::Sender;
use crate::units::SimTime;

/// The RTT sample the congestion control gets on each ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaRtt {
    /// The estimator's sample (the echoed timestamp, or the newest covered segment without
    /// timestamps; cclab, ns-2).
    Estimator,
    /// Linux's `ca_rtt_us`: the newest newly SACKed or acknowledged segment never
    /// retransmitted, the echoed timestamp only as a fallback; it also feeds `rtt_min`
    /// (tcp/ca_rtt.rs).
    NewestDelivered,
    /// The estimator's smoothed RTT after each sample: ns-3.44 hands its congestion controls
    /// `m_lastRtt`, which `TcpSocketBase::EstimateRtt` sets to `m_rtt->GetEstimate()`.
    Smoothed,
}

impl CaRtt {
    /// The accepted values of a flow group's `ca_rtt`.
    pub const NAMES: &'static str =
        "\"estimator\" (the RTT estimator's sample), \"newest-delivered\" (Linux's ca_rtt) or \"smoothed\" (ns-3's)";

    /// The scenario name of a choice.
    pub fn parse(name: &str) -> Option<CaRtt> {
        match name {
            "estimator" => Some(CaRtt::Estimator),
            "newest-delivered" => Some(CaRtt::NewestDelivered),
            "smoothed" => Some(CaRtt::Smoothed),
            _ => None,
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            CaRtt::Estimator => "estimator",
            CaRtt::NewestDelivered => "newest-delivered",
            CaRtt::Smoothed => "smoothed",
        }
    }
}

impl Sender {
    /// Linux's `ca_rtt_us` for the ACK just taken (`acked`: it advanced snd_una; `ts_ecr`: its
    /// echoed timestamp). Like Linux's `tcp_update_rtt_min()`, it also lowers `rtt_min`.
    pub(super) fn ca_rtt(&mut self, now: SimTime, acked: bool, ts_ecr: SimTime) -> Option<SimTime> {
        let echo = (self.cfg.timestamps && acked).then(|| self.echo_rtt(now, ts_ecr));
        let r = self.sb.ca.sample(now, echo)?;
        if self.rtt.samples > 0 {
            self.rtt.rtt_min = self.rtt.rtt_min.min(r);
        }
        Some(r)
    }

    /// The RTT an echoed timestamp gives: exact, or in whole ticks of the timestamp clock
    /// (`TcpConfig::ts_clock`), the clock read at the send and now; a zero count is taken as
    /// 1 us, as ns-3.44 takes it (tcp-socket-base.cc `EstimateRtt`).
    pub(super) fn echo_rtt(&self, now: SimTime, ts_ecr: SimTime) -> SimTime {
        let tick = self.cfg.ts_clock.0;
        if tick == 0 {
            return now.saturating_sub(ts_ecr);
        }
        match (now.0 / tick).saturating_sub(ts_ecr.0 / tick) {
            0 => SimTime::from_micros(1),
            n => SimTime(n * tick),
        }
    }
}

/// The send times an ACK's newly delivered segments offer for `ca_rtt`, gathered by the
/// scoreboard as it takes the ACK (reset by `begin`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CaTimes {
    /// Send time of the last newly SACKed segment never retransmitted (`last_sackt`).
    last_sackt: Option<SimTime>,
    /// Send time of the last newly cumulatively acknowledged, not earlier SACKed, segment
    /// never retransmitted (`last_ackt`).
    last_ackt: Option<SimTime>,
    /// A cumulatively acknowledged, not earlier SACKed, segment was retransmitted.
    retrans_acked: bool,
}

impl CaTimes {
    /// A new ACK: nothing gathered yet.
    #[inline]
    pub fn begin(&mut self) {
        *self = CaTimes::default();
    }

    /// A segment sent at `sent_at` leaves the window by the cumulative ACK, not SACKed before.
    #[inline]
    pub fn cum_acked(&mut self, sent_at: SimTime, ever_retx: bool) {
        if ever_retx {
            self.retrans_acked = true;
        } else {
            self.last_ackt = Some(sent_at);
        }
    }

    /// A segment sent at `sent_at` is newly SACKed.
    #[inline]
    pub fn sacked(&mut self, sent_at: SimTime, ever_retx: bool) {
        if !ever_retx {
            self.last_sackt = Some(sent_at);
        }
    }

    /// The congestion control's sample at `now`: from the newest newly SACKed segment, else the
    /// newest cumulatively acknowledged one unless a retransmission was among those, else
    /// `echo` (the timestamp fallback, when the caller has one).
    pub fn sample(&self, now: SimTime, echo: Option<SimTime>) -> Option<SimTime> {
        let cum = if self.retrans_acked { None } else { self.last_ackt };
        self.last_sackt.or(cum).map(|t| now.saturating_sub(t)).or(echo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_newest_sacked_segment_wins_then_the_newest_acked_then_the_echo() {
        let now = SimTime(100 * MS);
        let mut c = CaTimes::default();
        assert_eq!(c.sample(now, None), None);
        assert_eq!(c.sample(now, Some(SimTime(7 * MS))), Some(SimTime(7 * MS)));
        c.cum_acked(SimTime(10 * MS), false);
        c.cum_acked(SimTime(20 * MS), false); // the newer of two delayed-ACKed segments
        assert_eq!(c.sample(now, Some(SimTime(90 * MS))), Some(SimTime(80 * MS)));
        c.sacked(SimTime(40 * MS), false);
        c.sacked(SimTime(30 * MS), true); // retransmitted: no sample
        assert_eq!(c.sample(now, None), Some(SimTime(60 * MS)));
        c.begin();
        assert_eq!(c.sample(now, None), None);
    }

    #[test]
    fn a_retransmission_among_the_cumulatively_acked_voids_their_sample() {
        let now = SimTime(100 * MS);
        let mut c = CaTimes::default();
        c.cum_acked(SimTime(10 * MS), true);
        c.cum_acked(SimTime(20 * MS), false);
        assert_eq!(c.sample(now, None), None);
        assert_eq!(c.sample(now, Some(SimTime(5 * MS))), Some(SimTime(5 * MS)));
        c.sacked(SimTime(50 * MS), false); // a SACK sample still counts (Linux's last_sackt)
        assert_eq!(c.sample(now, None), Some(SimTime(50 * MS)));
    }
}
