//! The XCP sender (Katabi, Handley, Rohrs, SIGCOMM 2002, section 3.2); the
//! router is `queue/xcp.rs`.
//!
//! Every data packet carries the sender's window (`H_cwnd`, bytes), its RTT
//! estimate (`H_rtt`, seconds) and a feedback request (`H_feedback`, bytes).
//! Routers lower the request to their allocation; the receiver echoes it; on
//! each ACK the sender applies `cwnd ← max(cwnd + H_feedback, s)` (section
//! 3.2). On a loss XCP falls back to halving, as the paper's sender does.
//!
//! Choices where the paper is silent: the request per packet is one packet
//! (at most a doubling per RTT, as slow start, which is also what the flow
//! gets on a path without XCP routers); `H_rtt` is the smoothed RTT (zero
//! before the first sample, which routers ignore); the engine's slow start
//! is not used: the window grows by feedback alone.
//!
//! No parameters.

use super::{AckSample, CcHeader, CongestionControl, ParamError, ParamReader, Params, SenderView};
use crate::queue::xcp::{H_CWND, H_FEEDBACK, H_RTT};

#[derive(Default)]
pub struct Xcp {
    /// Feedback echoed since the window was last updated, bytes.
    pending: f64,
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    ParamReader::new(p).finish()?;
    Ok(Box::new(Xcp::default()))
}

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        "xcp"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        super::halve(v)
    }

    fn pkts_acked(&mut self, _v: &SenderView, s: &AckSample) {
        self.pending += s.cc_echo.f32(H_FEEDBACK) as f64;
    }

    fn cong_avoid(&mut self, v: &SenderView, _acked: u32) -> f64 {
        // cwnd = max(cwnd + H_feedback, s)   (section 3.2), in packets
        let w = (v.cwnd + self.pending / v.mss as f64).max(1.0);
        self.pending = 0.0;
        w
    }

    fn on_send(&mut self, v: &SenderView, _seq: u64) -> CcHeader {
        let mut h = CcHeader::default();
        h.set_f32(H_CWND, (v.cwnd * v.mss as f64) as f32);
        h.set_f32(H_RTT, v.srtt.secs_f64() as f32);
        h.set_f32(H_FEEDBACK, v.mss as f32);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::units::SimTime;

    fn view(cwnd: f64) -> SenderView {
        SenderView {
            flight_size: 0,
            srtt: SimTime::from_millis(100),
            rtt_min: SimTime::from_millis(100),
            mss: 1000,
            ..crate::cc::testing::view(cwnd, f64::INFINITY)
        }
    }

    fn echo(fb: f32) -> AckSample {
        let mut h = CcHeader::default();
        h.set_f32(H_FEEDBACK, fb);
        AckSample { acked: 1, rtt: None, rcv_tsval: SimTime::ZERO, cc_echo: h, ece: false }
    }

    #[test]
    fn echoed_feedback_moves_the_window_by_that_many_bytes() {
        let mut x = Xcp::default();
        x.pkts_acked(&view(10.0), &echo(500.0));
        x.pkts_acked(&view(10.0), &echo(-200.0));
        assert!((x.cong_avoid(&view(10.0), 2) - 10.3).abs() < 1e-9);
        // Negative feedback cannot take the window below one packet.
        x.pkts_acked(&view(10.0), &echo(-1e6));
        assert_eq!(x.cong_avoid(&view(10.0), 1), 1.0);
    }

    #[test]
    fn the_header_carries_window_rtt_and_a_one_packet_request() {
        let mut x = Xcp::default();
        let h = x.on_send(&view(10.0), 0);
        assert_eq!((h.f32(H_CWND), h.f32(H_RTT), h.f32(H_FEEDBACK)), (10_000.0, 0.1, 1000.0));
    }
}
