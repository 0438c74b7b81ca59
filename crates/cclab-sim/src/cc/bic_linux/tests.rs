use super::*;
use crate::cc::testing::view;
use crate::cc::CcHeader;

fn sample(acked: u32) -> AckSample {
    AckSample { acked, rtt: None, rcv_tsval: SimTime::ZERO, cc_echo: CcHeader::default(), ece: false }
}

/// One round trip at window `w` in congestion avoidance: `w` packets acknowledged,
/// `per_ack` per ACK, each ACK seen by `pkts_acked` then `cong_avoid`, 40 ms apart
/// in total so that `cnt` is recomputed as the kernel's would be.
fn round(b: &mut BicLinux, w: f64, ssthresh: f64, per_ack: u32, start: SimTime) -> f64 {
    let mut w = w;
    let acks = (w / per_ack as f64).ceil() as u64;
    for i in 0..acks {
        let v = SenderView { now: start + SimTime::from_micros(i * 40_000 / acks), ..view(w, ssthresh) };
        b.pkts_acked(&v, &sample(per_ack));
        w = b.cong_avoid(&v, per_ack);
    }
    w
}

#[test]
fn a_loss_at_1000_keeps_819_1024_and_remembers_1000() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    assert_eq!(b.ssthresh(&view(1000.7, 1e9)), 799.0); // floor(1000 * 819 / 1024)
    assert_eq!(b.w_max(), 1000);
}

#[test]
fn the_kernel_table_of_cnt() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    b.ssthresh(&view(1000.0, 1e9));
    assert_eq!(b.search_cnt(799), 49); // (1000 - 799) / 4 = 50 > 16: 799 / 16
    assert_eq!(b.search_cnt(960), 96); // dist 10: 960 / 10
    assert_eq!(b.search_cnt(997), 4985); // dist 0: 997 * 20 / 4
    assert_eq!(b.search_cnt(1002), 5010); // within B past W_max: smooth part
    assert_eq!(b.search_cnt(1010), 303); // 1010 * 3 / 10
    assert_eq!(b.search_cnt(1100), 68); // past W_max + 48: 1100 / 16
    assert_eq!(b.search_cnt(14), 14); // Reno at low_window
                                      // Before any loss, at least 5 % per RTT: 1000 / 16 = 62 becomes 20.
    let fresh = BicLinux::new(BicLinuxConfig::default());
    assert_eq!(fresh.search_cnt(1000), 20);
    assert_eq!(fresh.search_cnt(100), 6);
}

#[test]
fn the_linear_region_adds_twice_max_increment_per_rtt_with_or_without_delayed_acks() {
    // The kernel's integer ratio settles where delayed_ack / 16 equals the packets per
    // ACK, rounded down: from its start at 32 one packet per ACK stops it at 31, so cnt is
    // about halved with an ACK per packet too, and the count of packets doubles the growth.
    for per_ack in [1, 2] {
        let mut b = BicLinux::new(BicLinuxConfig::default());
        let s = b.ssthresh(&view(1000.0, 1e9));
        for _ in 0..200 {
            b.pkts_acked(&view(s, s), &sample(per_ack));
        }
        assert_eq!(b.delayed_ack, [31, 32][per_ack as usize - 1]);
        let w = round(&mut b, s, s, per_ack, SimTime::ZERO);
        assert!((w - s - 32.0).abs() < 2.0, "{per_ack} per ACK: {s} -> {w}");
    }
}

#[test]
fn the_ack_ratio_moves_only_in_open() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    let rec = SenderView { state: CaState::Recovery, ..view(100.0, 50.0) };
    b.pkts_acked(&rec, &sample(10));
    assert_eq!(b.delayed_ack, 32);
    b.pkts_acked(&view(100.0, 50.0), &sample(1));
    assert_eq!(b.delayed_ack, 31); // 32 + 1 - 32/16
}

#[test]
fn fast_convergence_takes_w_max_to_nine_tenths_of_a_lower_loss() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    b.ssthresh(&view(1000.0, 1e9));
    assert_eq!(b.ssthresh(&view(900.0, 1e9)), 719.0);
    assert_eq!(b.w_max(), 809); // 900 * (1024 + 819) / 2048
    let mut b = BicLinux::new(BicLinuxConfig { fast_convergence: false, ..Default::default() });
    b.ssthresh(&view(1000.0, 1e9));
    b.ssthresh(&view(900.0, 1e9));
    assert_eq!(b.w_max(), 900);
}

#[test]
fn at_or_below_low_window_it_halves_and_grows_as_reno() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    assert_eq!(b.ssthresh(&view(14.0, 1e9)), 7.0);
    assert_eq!(b.ssthresh(&view(15.0, 1e9)), 11.0);
    assert_eq!(b.ssthresh(&view(3.0, 1e9)), 2.0);
    let w = b.cong_avoid(&view(10.0, 5.0), 1);
    assert!((w - 10.1).abs() < 1e-12, "{w}");
}

#[test]
fn cnt_stands_for_31_ms_while_the_window_does_not_change() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    b.ssthresh(&view(1000.0, 1e9));
    b.update(960, SimTime::ZERO);
    assert_eq!(b.cnt, 48); // 96 halved by the initial ratio of 2
    for _ in 0..20 {
        b.pkts_acked(&view(960.0, 1.0), &sample(1));
    }
    b.update(960, SimTime::from_millis(31));
    assert_eq!(b.cnt, 48);
    b.update(960, SimTime::from_millis(32));
    assert_eq!(b.cnt, 49); // 96 * 16 / 31
}

#[test]
fn a_timeout_resets_w_max_and_the_ack_ratio() {
    let mut b = BicLinux::new(BicLinuxConfig::default());
    b.ssthresh(&view(1000.0, 1e9));
    b.pkts_acked(&view(100.0, 50.0), &sample(1));
    b.set_state(&view(1.0, 800.0), CaState::Loss);
    assert_eq!((b.w_max(), b.delayed_ack), (0, 32));
}

#[test]
fn parameters_are_whole_numbers_in_range() {
    let mut p = Params::new();
    p.insert("beta".into(), 1024.0);
    assert_eq!(build(&p).err().unwrap().param, "beta");
    p.insert("beta".into(), 717.5);
    assert_eq!(build(&p).err().unwrap().param, "beta");
    p.insert("beta".into(), 717.0);
    assert!(build(&p).is_ok());
}
