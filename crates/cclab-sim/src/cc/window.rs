//! The window arithmetic the algorithms share: slow start, additive increase, the
//! multiplicative decrease and the growth on an ACK outside recovery, written once.

use super::SenderView;

/// Slow start (RFC 5681 with appropriate byte counting, Linux `tcp_slow_start`):
/// grows by the packets acknowledged, at most up to `ssthresh`.
/// Returns the new window and the acknowledged packets left over for congestion avoidance.
pub fn slow_start(cwnd: f64, ssthresh: f64, acked: u32) -> (f64, u32) {
    let room = (ssthresh - cwnd).max(0.0);
    let used = (acked as f64).min(room.ceil());
    let new = (cwnd + used).min(ssthresh.max(cwnd));
    (new, acked - used as u32)
}

/// Additive increase of `a` packets per window's worth of ACKs: `a/cwnd` per ACKed packet.
pub fn additive_increase(cwnd: f64, a: f64, acked: u32) -> f64 {
    cwnd + a * acked as f64 / cwnd
}

/// The window growth on an ACK outside recovery, as Linux's `cong_avoid` hooks are
/// written: `slow_start` (usually [`slow_start`]) while `cwnd < ssthresh`, then
/// `increase(window, packets left)` with what the ACK leaves over, called only when
/// some are left.
pub fn grow(
    v: &SenderView,
    acked: u32,
    slow_start: impl FnOnce(f64, f64, u32) -> (f64, u32),
    increase: impl FnOnce(f64, u32) -> f64,
) -> f64 {
    let (w, left) = if v.cwnd < v.ssthresh { slow_start(v.cwnd, v.ssthresh, acked) } else { (v.cwnd, acked) };
    if left == 0 {
        return w;
    }
    increase(w, left)
}

/// Slow start below ssthresh, then `increase(window, packets left)` with what the ACK
/// leaves over (see [`grow`]).
pub fn slow_start_then(v: &SenderView, acked: u32, increase: impl FnOnce(f64, u32) -> f64) -> f64 {
    grow(v, acked, slow_start, increase)
}

/// The common window growth: slow start below ssthresh, then `a` packets per RTT
/// with what the ACK leaves over (`a` is computed only when some is left).
pub fn slow_start_then_increase(v: &SenderView, acked: u32, a: impl FnOnce() -> f64) -> f64 {
    slow_start_then(v, acked, |w, left| additive_increase(w, a(), left))
}

/// The smallest window a loss leaves, packets (RFC 5681 eq. 4's `2*SMSS`; Linux's
/// `tcp_reno_ssthresh` floor).
pub const MIN_WINDOW: f64 = 2.0;

/// Multiplicative decrease: keeps `beta` of the window, at least [`MIN_WINDOW`]:
/// `max(beta * cwnd, 2)`.
pub fn multiplicative_decrease(cwnd: f64, beta: f64) -> f64 {
    (beta * cwnd).max(MIN_WINDOW)
}

/// Reno's loss response, `max(cwnd/2, 2)`.
pub fn halve(v: &SenderView) -> f64 {
    // 0.5 * cwnd is cwnd / 2 to the bit: both are the exact half, rounded once.
    multiplicative_decrease(v.cwnd, 0.5)
}

/// The per-RTT increase of paper 001's rules that scale with the RTT, CR (eq. 3,
/// `k RTT^2`) and CI (eq. 5, `k' RTT`), seen from `v`: `increase(k(rtt_ref, q), SRTT)`
/// with `q = SRTT - RTT_min`, the flow's measured queueing delay, when `queue_term`
/// (eqs. 13-14), else 0 (eqs. 7-8). Reno's one packet before the first RTT sample.
pub fn rtt_scaled_increase(
    v: &SenderView,
    rtt_ref: f64,
    queue_term: bool,
    k: fn(f64, f64) -> f64,
    increase: fn(f64, f64) -> f64,
) -> f64 {
    let srtt = v.srtt.secs_f64();
    if srtt == 0.0 {
        return 1.0;
    }
    let q = if queue_term { (srtt - v.rtt_min.secs_f64()).max(0.0) } else { 0.0 };
    increase(k(rtt_ref, q), srtt)
}
