//! `delay-reno`: Reno whose additive increase pauses while the flow's own queueing delay is
//! above a target. The worked example of docs/writing-an-algorithm.md, built as a cclab plugin.
//!
//! - Slow start and the loss response are Reno's (RFC 5681): `cwnd += acked` below ssthresh,
//!   `ssthresh = max(beta cwnd, 2)` on a loss.
//! - Congestion avoidance: `cwnd += a/cwnd` per acknowledged packet while
//!   `q = SRTT - RTT_min < target`, nothing otherwise. `q` is the queueing delay the flow sees
//!   (as Vegas's and FAST's `avgRTT - baseRTT`); before the first RTT sample `q` is 0.
//!
//! Choices: the brake holds the window, it never lowers it (a loss still halves it), so a flow
//! that shares a queue with loss-based flows keeps Reno's response to losses.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `a` | additive increase, packets per RTT | 1 | (0, 100] |
//! | `beta` | multiplicative decrease factor | 0.5 | (0, 1) |
//! | `target` | queueing delay above which the window stops growing, s | 0.005 | (0, 10] |

use cclab_plugin::cclab_sim::cc::{
    multiplicative_decrease, slow_start_then_increase, CongestionControl, ParamError, ParamReader, Params, SenderView,
};
use cclab_plugin::cclab_sim::registry::{Entry, Schema};

pub struct DelayReno {
    /// Packets per RTT.
    a: f64,
    beta: f64,
    /// Seconds.
    target: f64,
}

/// `cc = "delay-reno"`.
pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let a = r.get("a", 1.0, 1e-9, 100.0)?;
    let beta = r.get("beta", 0.5, 1e-9, 1.0 - 1e-9)?;
    let target = r.get("target", 0.005, 1e-9, 10.0)?;
    r.finish()?;
    Ok(Box::new(DelayReno { a, beta, target }))
}

impl CongestionControl for DelayReno {
    fn name(&self) -> &str {
        "delay-reno"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        multiplicative_decrease(v.cwnd, self.beta)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        let q = v.srtt.secs_f64() - v.rtt_min.secs_f64();
        let a = if q < self.target { self.a } else { 0.0 };
        slow_start_then_increase(v, acked, || a)
    }
}

cclab_plugin::export! {
    Entry {
        name: "delay-reno",
        summary: "Reno that stops growing while SRTT - RTT_min is above a target (docs/writing-an-algorithm.md)",
        params: Schema::Read,
        build,
    },
}
