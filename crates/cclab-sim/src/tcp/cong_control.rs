//! The sender's side of Linux's `tcp_cong_control`: after loss recovery has run on an
//! ACK, the rate sample goes to the algorithm; one that implements `cong_control` sets
//! the window and pacing rate, any other grows the window through `cong_avoid`.

use super::sender::Sender;
use crate::cc::{CongControl, SenderView};
use crate::units::SimTime;

impl Sender {
    /// Applies what `cong_control` or `init` set.
    pub(super) fn apply(&mut self, c: CongControl) {
        self.cwnd = c.cwnd.max(1.0);
        self.pacer.set_rate(c.pacing_rate);
        if c.mark_app_limited {
            // Linux: `tp->app_limited = (tp->delivered + tcp_packets_in_flight(tp)) ? : 1`.
            self.rate.app_limited = (self.rate.delivered + self.sb.pipe()).max(1);
        }
    }

    /// Linux `tcp_cong_control` for an algorithm that `uses_rate_samples`: the rate sample goes
    /// to its `cong_control`; if that returns `None`, `cong_avoid` grows the window by `avoid`
    /// packets when the ACK allows growth. `prior`: packets in flight, the window and the
    /// losses marked before this ACK. The algorithm is shown the window as it set it, not as
    /// recovery moved it on this ACK (Linux skips its window reduction for such algorithms).
    #[inline]
    pub(super) fn cong_control(
        &mut self,
        now: SimTime,
        delivered: u64,
        rtt: Option<SimTime>,
        prior: (u64, f64, u64),
        avoid: Option<u32>,
        ece: bool,
    ) {
        let (prior_in_flight, prior_cwnd, lost_before) = prior;
        if ece {
            // Linux tcp_count_delivered(): with per-packet feedback, what an ECE ACK delivers
            // was CE-marked.
            self.rate.delivered_ce += delivered;
        }
        let mut rs = self.rate.sample(now, delivered, self.rtt.rtt_min, self.cfg.mss, self.sb.lost_marked);
        rs.rtt = rtt;
        rs.is_ece = ece;
        rs.losses = self.sb.lost_marked - lost_before;
        rs.prior_in_flight = prior_in_flight;
        let v = SenderView { cwnd: prior_cwnd, ..self.view(now) };
        match self.cc.cong_control(&v, &rs) {
            Some(c) => self.apply(c),
            None => self.cong_avoid(now, avoid),
        }
    }

    /// Linux `tcp_cwnd_validate` as far as `tp->is_cwnd_limited` goes: after a sending
    /// attempt, whether the window (not the pacer or the application) held the sender back;
    /// once true it stays so until a flight sent after it is acknowledged.
    #[inline]
    pub(super) fn cwnd_validate(&mut self) {
        let limited = self.sb.pipe() >= (self.cwnd as u64).max(1) && self.sb.high() < self.limit;
        if limited || self.sb.una() >= self.cwnd_usage_seq {
            self.is_cwnd_limited = limited;
            self.cwnd_usage_seq = self.sb.high();
        }
    }

    /// The ACK-clocked growth: `cong_avoid` with the `avoid` packets the ACK may count, when
    /// it allows growth at all.
    #[inline]
    pub(super) fn cong_avoid(&mut self, now: SimTime, avoid: Option<u32>) {
        if let Some(acked) = avoid {
            let v = self.view(now);
            self.cwnd = self.cc.cong_avoid(&v, acked).max(1.0);
        }
    }
}
