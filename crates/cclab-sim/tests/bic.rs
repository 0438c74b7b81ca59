//! BIC-TCP's binary search (Xu, Harfoush, Rhee 2004, section III): after a
//! loss the window approaches W_max in steps of at most S_max and then halves
//! its distance to W_max every RTT.
//!
//! The algorithm is driven directly with an ACK clock (one ACK per packet);
//! the window is read at the end of each RTT.

mod drive;
use drive::Driver;

/// Windows at the end of each of `n` RTTs after a loss at `w`.
fn after_loss(params: &[(&str, f64)], w: f64, n: usize) -> Vec<f64> {
    let mut d = Driver::new("bic", params, w, 100);
    d.loss();
    (0..n)
        .map(|_| {
            d.round();
            d.cwnd
        })
        .collect()
}

#[test]
fn the_window_reaches_w_max_by_additive_then_binary_search() {
    // Loss at 1000: W_max = 1000, cwnd = 800. Distances 200, 168, 136, 104, 72 halve to
    // more than S_max = 32, so +32 each; then 40/2 = 20, 10, 5, 2.5, 1.25 (by hand).
    let got = after_loss(&[], 1000.0, 20);
    eprintln!("bic after a loss at 1000: {:?}", &got[..12]);
    let want = [832.0, 864.0, 896.0, 928.0, 960.0, 980.0, 990.0, 995.0];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{got:?}");
    }
    // From 960 on the distance to W_max halves each RTT (within the ACK clock's whole
    // packets per RTT) ...
    for pair in got[4..12].windows(2) {
        let ratio = (1000.0 - pair[1]) / (1000.0 - pair[0]);
        assert!((ratio - 0.5).abs() < 0.01, "{got:?}");
    }
    // ... until the half-distance falls below S_min = 0.01: W_max is reached on the 18th
    // RTT, never passed before, and then max probing begins.
    assert!(got[..17].iter().all(|&w| w < 1000.0), "{got:?}");
    assert!(got[17] >= 1000.0 && got[17] < 1000.01, "{got:?}");
    assert!(got[19] > got[18] && got[18] > got[17], "{got:?}");
}

#[test]
fn with_linux_s_max_of_16_the_additive_part_takes_longer() {
    // Half-distances 100 .. 20 exceed 16: 800 + 16 k up to 976; then 12, 6, 3.
    let got = after_loss(&[("s_max", 16.0)], 1000.0, 14);
    eprintln!("bic s_max = 16: {got:?}");
    for (k, g) in got.iter().take(11).enumerate() {
        assert!((g - (816.0 + 16.0 * k as f64)).abs() < 1e-6, "{got:?}");
    }
    for (g, w) in got[11..].iter().zip([988.0, 994.0, 997.0]) {
        assert!((g - w).abs() < 1e-6, "{got:?}");
    }
}
