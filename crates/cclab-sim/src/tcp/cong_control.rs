//! The sender's side of Linux's `tcp_cong_control`: after loss recovery has run on an
//! ACK, the rate sample goes to the algorithm; one that implements `cong_control` sets
//! the window and pacing rate, any other grows the window through `cong_avoid`.

use super::sender::Sender;
use crate::cc::CongControl;
use crate::units::SimTime;

impl Sender {
    /// Applies what `cong_control` or `init` set.
    pub(super) fn apply(&mut self, c: CongControl) {
        self.cwnd = c.cwnd.max(1.0);
        self.pacer.set_rate(c.pacing_rate);
    }

    /// Linux `tcp_cong_control`: the rate sample goes to the algorithm's `cong_control`; if it
    /// has none, `cong_avoid` grows the window by `avoid` packets when the ACK allows growth.
    /// A `cong_control` algorithm is shown the window as it set it, not as recovery moved it
    /// on this ACK (Linux skips its window reduction for such algorithms).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn cong_control(
        &mut self,
        now: SimTime,
        delivered: u64,
        rtt: Option<SimTime>,
        prior_in_flight: u64,
        prior_cwnd: f64,
        lost_before: u64,
        avoid: Option<u32>,
    ) {
        let mut rs = self.rate.sample(now, delivered, self.rtt.rtt_min, self.cfg.mss);
        rs.rtt = rtt;
        rs.losses = self.sb.lost_marked - lost_before;
        rs.prior_in_flight = prior_in_flight;
        let mut v = self.view(now);
        let cwnd = v.cwnd;
        v.cwnd = prior_cwnd;
        match self.cc.cong_control(&v, &rs) {
            Some(c) => self.apply(c),
            None => {
                if let Some(acked) = avoid {
                    v.cwnd = cwnd;
                    self.cwnd = self.cc.cong_avoid(&v, acked).max(1.0);
                }
            }
        }
    }
}
