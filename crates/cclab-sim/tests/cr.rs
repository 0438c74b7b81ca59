//! Constant Rate: while the bottleneck has spare capacity, every flow's throughput grows
//! by k packets per second per second whatever its RTT (paper 001, section 3.1,
//! Table 2: t1 = R / (n k)), where Reno's growth falls with the square of the RTT.

mod common;
use common::{growth_per_flow, three_rtts_model_i, MODEL_I_RTTS_MS as RTTS_MS};

/// Per flow: the growth of its throughput over [1 s, 6 s], packets per second per second.
/// (On a 200 Mbps bottleneck the load reaches 65 % by 6 s and the queueing of the window
/// increments' bursts lowers the 40 and 80 ms flows' growth to about 590 packets/s².)
fn rate_growth(cc: &str) -> Vec<f64> {
    growth_per_flow(&three_rtts_model_i(cc), RTTS_MS.len() as u64, "goodput_bps", 1500.0 * 8.0, 1.0, 6.0)
}

#[test]
fn cr_throughput_grows_at_the_same_rate_for_every_rtt() {
    let k = 1.0 / (0.040 * 0.040); // eq. (7), RTT_ref = 40 ms: 625 packets/s²
    let cr = rate_growth("cr");
    let reno = rate_growth("newreno");
    eprintln!("throughput growth, packets/s² for RTT {RTTS_MS:?} ms: CR {cr:.0?} (k = {k}), NewReno {reno:.0?}");
    for (g, rtt) in cr.iter().zip(RTTS_MS) {
        assert!((g - k).abs() <= 0.05 * k, "CR at {rtt} ms: {g:.0} packets/s², k = {k}");
    }
    // The property is not trivial: Reno's growth, 1/RTT², is 9 times smaller at 120 ms.
    assert!(reno[0] > 5.0 * reno[2], "NewReno {reno:?}");
}
