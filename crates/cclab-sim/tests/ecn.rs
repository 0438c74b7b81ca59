//! The ECN sender (tcp/ecn.rs) driven by hand-made ACKs: one reduction per window for CE
//! marks and losses together (RFC 3168 section 6.1.2), and Not-ECT retransmissions
//! (section 6.1.5) except under ns-2's stack, whose agents mark every data packet ECT.

use cclab_sim::cc;
use cclab_sim::packet::{Packet, CWR, ECE, ECT};
use cclab_sim::tcp::{Recovery, Sender, StackProfile, TcpConfig};
use cclab_sim::units::SimTime;
use common::{ack, sack};

mod common;

const MS: u64 = 1_000_000_000; // picoseconds

/// A Reno sender with SACK and ECN under `stack`, without RACK (RFC 6675's dupthresh)
/// so that the third SACK starts recovery; its window of 20 leaves at t = 0.
fn started(stack: StackProfile) -> (Sender, Vec<Packet>) {
    let cfg = TcpConfig {
        init_cwnd: 20.0,
        timestamps: false,
        recovery: Recovery::Sack,
        ecn: true,
        stack: StackProfile { loss_detection: cclab_sim::tcp::LossDetection::Dupthresh, ..stack },
        ..TcpConfig::default()
    };
    let mut s = Sender::new(0, cfg, cc::build("reno", &cc::Params::new()).unwrap(), 1000);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    (s, out)
}

fn on(s: &mut Sender, a: &Packet, ms: u64) -> Vec<Packet> {
    let mut out = Vec::new();
    s.on_ack(a, SimTime(ms * MS), &mut out);
    out
}

fn with_ece(mut a: Packet) -> Packet {
    a.flags |= ECE;
    a
}

#[test]
fn a_loss_in_the_window_an_echo_already_reduced_is_repaired_without_a_second_cut() {
    let (mut s, first) = started(StackProfile::CCLAB);
    assert!(first.iter().all(|p| p.flags & ECT != 0), "new data is ECN-capable");
    // Segment 0 arrives marked: the echo halves the window once.
    on(&mut s, &with_ece(ack(1)), 100);
    assert_eq!(s.ssthresh, 10.0);
    // Segment 1, sent before the reduction, was lost: three SACKs start recovery, which
    // resends it Not-ECT and keeps the threshold.
    on(&mut s, &sack(1, &[(2, 3)]), 101);
    on(&mut s, &sack(1, &[(2, 4)]), 102);
    let resent = on(&mut s, &sack(1, &[(2, 5)]), 103);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.ssthresh, 10.0, "one cut for the echo and the loss of one window");
    let head = resent.iter().find(|p| p.seq == 1).expect("segment 1 resent");
    assert_eq!(head.flags & ECT, 0, "a retransmission is Not-ECT");
    // Further echoes of that window are answered already.
    on(&mut s, &with_ece(sack(1, &[(2, 6)])), 104);
    assert_eq!(s.ssthresh, 10.0);
}

#[test]
fn a_loss_after_the_echoed_window_is_cut_again() {
    let (mut s, _) = started(StackProfile::CCLAB);
    on(&mut s, &with_ece(ack(1)), 100);
    assert_eq!(s.ssthresh, 10.0);
    // Everything of the first window (up to 20) and more is acknowledged, then segment 30
    // is lost: a new window, a new cut. The first new segment after the echo carries CWR,
    // and only it.
    let mut sent = Vec::new();
    for a in 2..=30 {
        sent.extend(on(&mut s, &ack(a), 100 + a));
    }
    assert_eq!(sent[0].seq, 20);
    assert_eq!(sent.iter().map(|p| p.flags & CWR != 0).collect::<Vec<_>>()[..3], [true, false, false]);
    let cwnd = s.cwnd;
    on(&mut s, &sack(30, &[(31, 32)]), 200);
    on(&mut s, &sack(30, &[(31, 33)]), 201);
    on(&mut s, &sack(30, &[(31, 34)]), 202);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!((s.ssthresh - cwnd / 2.0).abs() < 1e-9, "{} from {cwnd}", s.ssthresh);
}

#[test]
fn a_timeout_in_the_echoed_window_keeps_the_threshold() {
    let (mut s, _) = started(StackProfile::CCLAB);
    on(&mut s, &with_ece(ack(1)), 100);
    let deadline = s.rto_deadline.expect("timer armed");
    let mut out = Vec::new();
    s.on_timer(deadline, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!((s.ssthresh, s.cwnd), (10.0, 1.0));
    assert_eq!(out[0].flags & ECT, 0, "the resent head is Not-ECT");
}

#[test]
fn under_ns2_retransmissions_stay_ect() {
    let (mut s, _) = started(StackProfile { syn: false, ..StackProfile::NS2 });
    on(&mut s, &with_ece(ack(1)), 100);
    on(&mut s, &sack(1, &[(2, 3)]), 101);
    on(&mut s, &sack(1, &[(2, 4)]), 102);
    let resent = on(&mut s, &sack(1, &[(2, 5)]), 103);
    let head = resent.iter().find(|p| p.seq == 1).expect("segment 1 resent");
    assert_ne!(head.flags & ECT, 0, "ns-2's output() sets ect() on every data packet");
}
