//! Constant Increase: the window grows by k' packets per second whatever the RTT, that
//! is by k' · RTT packets per RTT, in proportion to the RTT (paper 001, section 2.4,
//! eq. (5)); Reno's grows by one packet per RTT, 1/RTT per second.

mod common;
use common::{growth_per_flow, three_rtts_model_i, MODEL_I_RTTS_MS as RTTS_MS};

/// Per flow: the growth of its window over [1 s, 7 s], packets per second.
fn window_growth(cc: &str) -> Vec<f64> {
    growth_per_flow(&three_rtts_model_i(cc), RTTS_MS.len() as u64, "cwnd", 1.0, 1.0, 7.0)
}

#[test]
fn ci_grows_the_window_in_proportion_to_the_rtt() {
    let k = 1.0 / 0.040; // eq. (8) (eq. (14) without a queue), RTT_ref = 40 ms: 25 packets/s
    let ci = window_growth("ci");
    let reno = window_growth("newreno");
    let per_rtt: Vec<f64> = ci.iter().zip(RTTS_MS).map(|(g, r)| g * r as f64 / 1000.0).collect();
    eprintln!(
        "window growth, packets/s for RTT {RTTS_MS:?} ms: CI {ci:.2?} (k' = {k}), per RTT {per_rtt:.2?}; \
         NewReno {reno:.2?}"
    );
    for (g, rtt) in ci.iter().zip(RTTS_MS) {
        assert!((g - k).abs() <= 0.05 * k, "CI at {rtt} ms: {g:.2} packets/s, k' = {k}");
    }
    // Reno's per-second growth falls as 1/RTT: three times smaller at 120 ms.
    assert!(reno[0] > 2.5 * reno[2], "NewReno {reno:?}");
}
