//! Helpers shared by the algorithms' unit tests.

use super::{CaState, SenderView};
use crate::units::SimTime;

/// The sender at window `cwnd` and threshold `ssthresh`, packets: time zero, the Open
/// state, 1500-byte packets, no RTT sample yet and `cwnd` packets in flight (segments 0
/// to cwnd - 1). A test sets what else it needs with `SenderView { srtt, ..view(cwnd, ssthresh) }`.
pub fn view(cwnd: f64, ssthresh: f64) -> SenderView {
    SenderView {
        now: SimTime::ZERO,
        cwnd,
        ssthresh,
        flight_size: cwnd as u64,
        srtt: SimTime::ZERO,
        rtt_min: SimTime::ZERO,
        mss: 1500,
        state: CaState::Open,
        snd_una: 0,
        snd_nxt: cwnd as u64,
        in_flight: cwnd as u64,
        delivered: 0,
        delivered_time: SimTime::ZERO,
        lost: 0,
        app_limited: false,
        next_tx_time: SimTime::ZERO,
        is_cwnd_limited: false,
    }
}
