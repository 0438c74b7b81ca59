//! Unit tests of the shared helpers and the registry.

use super::*;

#[test]
fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
    assert_eq!(slow_start(10.0, 100.0, 1), (11.0, 0));
    assert_eq!(slow_start(10.0, 12.0, 5), (12.0, 3));
}

#[test]
fn additive_increase_adds_one_packet_per_window() {
    let mut w = 10.0;
    for _ in 0..10 {
        w = additive_increase(w, 1.0, 1);
    }
    // Ten ACKs at ~10 packets each add a little less than one packet.
    assert!(w > 10.95 && w < 11.0, "{w}");
}

#[test]
fn multiplicative_decrease_keeps_beta_of_the_window_but_not_below_two() {
    assert_eq!(multiplicative_decrease(100.0, 0.7), 70.0);
    assert_eq!(multiplicative_decrease(2.5, 0.5), MIN_WINDOW);
    // halve is the same function at beta = 0.5, to the bit.
    for w in [3.0, 7.3, 1e9 + 1.0, 123.456_789] {
        assert_eq!(halve(&testing::view(w, 1e9)).to_bits(), (w / 2.0).max(2.0).to_bits());
    }
}

#[test]
fn grow_slow_starts_below_ssthresh_and_hands_only_the_rest_to_the_increase() {
    // Below ssthresh: 3 of 5 packets reach ssthresh 13, the other 2 go to the increase.
    let w = grow(&testing::view(10.0, 13.0), 5, slow_start, |w, left| w + 100.0 * left as f64);
    assert_eq!(w, 213.0);
    // Entirely within slow start: the increase is not called.
    let w = grow(&testing::view(10.0, 100.0), 5, slow_start, |_, _| unreachable!());
    assert_eq!(w, 15.0);
    // At or above ssthresh: no slow start.
    let w = grow(&testing::view(20.0, 13.0), 5, |_, _, _| unreachable!(), |w, left| w + left as f64);
    assert_eq!(w, 25.0);
}

#[test]
fn rtt_scaled_increase_is_reno_s_one_packet_before_an_rtt_sample() {
    let k = |rtt_ref: f64, q: f64| 1.0 / (rtt_ref + q);
    let inc = |k: f64, rtt: f64| k * rtt;
    assert_eq!(rtt_scaled_increase(&testing::view(10.0, 1.0), 0.04, true, k, inc), 1.0);
    let v =
        SenderView { srtt: SimTime::from_millis(100), rtt_min: SimTime::from_millis(80), ..testing::view(10.0, 1.0) };
    // With the queue term: 0.1 / (0.04 + 0.02); without: 0.1 / 0.04.
    assert!((rtt_scaled_increase(&v, 0.04, true, k, inc) - 0.1 / 0.06).abs() < 1e-12);
    assert!((rtt_scaled_increase(&v, 0.04, false, k, inc) - 2.5).abs() < 1e-12);
}

#[test]
fn unknown_algorithm_names_what_is_accepted() {
    let e = build("renoo", &Params::new()).err().unwrap();
    assert_eq!(e.value, "renoo");
    assert!(e.accepted.contains("newreno"));
}

#[test]
fn out_of_range_parameter_is_rejected_with_its_range() {
    let mut p = Params::new();
    p.insert("beta".into(), 1.5);
    let e = build("reno", &p).err().unwrap();
    assert_eq!(e.param, "beta");
    assert!(e.accepted.contains("[0"), "{}", e.accepted);
}

#[test]
fn unknown_parameter_is_rejected() {
    let mut p = Params::new();
    p.insert("gamma".into(), 1.0);
    let e = build("reno", &p).err().unwrap();
    assert_eq!(e.param, "gamma");
    assert!(e.accepted.contains("beta"));
}
