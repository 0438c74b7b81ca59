//! Scalable TCP's recovery time (Kelly 2003, section 2): after a loss the
//! window is back at its pre-loss value after log(1/(1-b)) / log(1+a) = 13.4
//! RTTs, whatever the window; Reno needs w/2 RTTs.
//!
//! The algorithm is driven directly with an ACK clock: each RTT acknowledges
//! the packets of the window at its start, one ACK per packet.

mod drive;
use drive::Driver;

/// RTTs from a loss at window `w` until the window is back at `w`.
fn recovery_rtts(name: &str, w: f64) -> u32 {
    let mut d = Driver::new(name, &[], w, 100);
    d.loss();
    let mut rtts = 0;
    while d.cwnd < w {
        d.round();
        rtts += 1;
        assert!(rtts < 100_000, "{name} never recovers from {w}");
    }
    rtts
}

#[test]
fn recovery_takes_about_13_rtts_at_any_window() {
    let want = (1.0f64 / 0.875).ln() / 1.01f64.ln();
    let small = recovery_rtts("scalable", 100.0);
    let large = recovery_rtts("scalable", 10_000.0);
    eprintln!("scalable: {small} RTTs from 100, {large} RTTs from 10000 (log(1/0.875)/log(1.01) = {want:.2})");
    // Windows are whole packets per RTT, so the smaller window's rounds fall a little short of 1 %.
    for r in [small, large] {
        assert!((r as f64 - want).abs() <= 1.6, "{r} RTTs vs {want:.2}");
    }
    assert!(small.abs_diff(large) <= 1, "{small} vs {large}");
}

#[test]
fn reno_recovery_time_grows_with_the_window_where_scalable_does_not() {
    let small = recovery_rtts("newreno", 100.0);
    let large = recovery_rtts("newreno", 1000.0);
    eprintln!("newreno: {small} RTTs from 100, {large} RTTs from 1000");
    assert!((49..=51).contains(&small), "{small}");
    assert!((499..=501).contains(&large), "{large}");
}
