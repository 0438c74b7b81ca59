//! ns-2's `Agent/TCP/Sack1` under the ns2 profile (tcp/sack_ns2.rs), driven by hand-made ACKs:
//! the counted pipe, which holes are resent, and when the scoreboard is forgotten. Each test
//! sets the RFC 6675 sender (the cclab profile's) beside it where the two differ.

use cclab_sim::cc::{self, CaState};
use cclab_sim::tcp::{Recovery, SackFlavour, Sender, StackProfile, TcpConfig};
use cclab_sim::units::SimTime;
use common::{ack, on, sack};

mod common;

const MS: u64 = 1_000_000_000; // picoseconds

/// ns-2's profile without its SYN, so that the data window goes out at once.
const NS2: StackProfile = StackProfile { syn: false, ..StackProfile::NS2 };
/// The same profile with RFC 6675's SACK sender, to show what Sack1 changes.
const NS2_RFC6675: StackProfile = StackProfile { sack_flavour: SackFlavour::Rfc6675, ..NS2 };

/// A Reno sender with SACK recovery, `init_cwnd` segments sent at t = 0.
fn started(stack: StackProfile, init_cwnd: f64) -> Sender {
    let cfg = TcpConfig { init_cwnd, timestamps: false, recovery: Recovery::Sack, stack, ..TcpConfig::default() };
    let mut s = Sender::new(0, cfg, cc::build("reno", &cc::Params::new()).unwrap(), 1000);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), init_cwnd as usize);
    s
}

#[test]
fn the_pipe_is_the_outstanding_data_less_three_then_one_less_per_ack() {
    // 20 sent, 0 lost. Duplicate ACKs SACK 1, 2, ...: the first two each let one new segment
    // out (limited transmit, 22 outstanding). The third resends 0 and nothing else; pipe =
    // 22 - 3 = 19 against cwnd 10, so the next nine duplicate ACKs send nothing and the tenth
    // (pipe 9) one new segment.
    let mut s = started(NS2, 20.0);
    let mut sent = Vec::new();
    for k in 1..=13u64 {
        sent.push(on(&mut s, &sack(0, &[(1, 1 + k)]), 100));
    }
    assert_eq!(sent[0], [20]);
    assert_eq!(sent[1], [21]);
    assert_eq!(sent[2], [0], "the fast retransmit alone");
    assert_eq!(s.state, CaState::Recovery);
    assert_eq!(s.cwnd, 10.0);
    for (k, x) in sent.iter().enumerate().take(12).skip(3) {
        assert!(x.is_empty(), "duplicate ACK {}: {x:?}", k + 1);
    }
    assert_eq!(sent[12], [22]);
    assert_eq!(on(&mut s, &sack(0, &[(1, 15)]), 100), [23], "one out, one in");
    // A partial ACK takes two off the pipe: the repair and the segment that left.
    assert_eq!(on(&mut s, &sack(15, &[]), 110), [24, 25]);
}

#[test]
fn an_ack_that_sacks_two_segments_takes_only_one_off_the_pipe() {
    // As above, but after the fast retransmit every other ACK is lost: each ACK SACKs two.
    // Sack1 counts ACKs (pipe 19 - 9 = 10, never below cwnd 10); RFC 6675 counts the
    // SACKed segments and sends once its pipe falls below the window.
    let sent = |stack: StackProfile| {
        let mut s = started(stack, 20.0);
        for k in 1..=3u64 {
            on(&mut s, &sack(0, &[(1, 1 + k)]), 100);
        }
        (1..=9u64).flat_map(|j| on(&mut s, &sack(0, &[(1, 4 + 2 * j)]), 100)).collect::<Vec<u64>>()
    };
    assert!(sent(NS2).is_empty(), "{:?}", sent(NS2));
    assert!(!sent(NS2_RFC6675).is_empty());
}

#[test]
fn every_hole_below_the_highest_sack_is_resent_once_in_order() {
    // 20 sent; 0, 5 and 10 lost. Segment 10 has one SACKed segment above it: RFC 6675's
    // IsLost waits for three, Sack1 resends it as soon as the pipe allows.
    // The receiver then repeats the same three blocks: no news, but each ACK is one more
    // segment out of the network to Sack1.
    let sent = |stack: StackProfile| {
        let mut s = started(stack, 20.0);
        let blocks = [(1, 5), (6, 10), (11, 12)];
        let mut first = Vec::new();
        for n in 1..=3 {
            first.extend(on(&mut s, &sack(0, &blocks[..n]), 100));
        }
        let later: Vec<u64> = (0..12).flat_map(|_| on(&mut s, &sack(0, &blocks), 100)).collect();
        (first, later, s)
    };
    let (first, later, mut s) = sent(NS2);
    assert_eq!(first, [20, 21, 0], "two limited transmits, then the fast retransmit alone");
    // pipe 22 - 3 = 19 against cwnd 10: the tenth ACK brings it to 9.
    assert_eq!(later, [5, 10, 22], "holes in order, each once, then new data");
    // 22 is timed. Its SACK reveals holes 12-21; resending 12 does not end the measurement
    // (ns-2's `output()`), so the ACK that ends recovery gives an RTT sample.
    assert_eq!(on(&mut s, &sack(0, &[(22, 23), (11, 12), (6, 10)]), 100), [12]);
    let samples = s.rtt.samples;
    on(&mut s, &ack(23), 200);
    assert_eq!(s.state, CaState::Open);
    assert_eq!(s.rtt.samples, samples + 1);
    // RFC 6675: 10 is not lost with one SACKed segment above it, and repeated blocks free
    // nothing (pipe 22 - 9 SACKed - 2 lost + 1 resent = 12 > 10).
    let (_, later, _) = sent(NS2_RFC6675);
    assert!(later.is_empty(), "{later:?}");
}

#[test]
fn a_duplicate_ack_counts_only_if_its_sack_blocks_are_news() {
    let mut s = started(NS2, 10.0);
    assert_eq!(on(&mut s, &sack(0, &[(2, 3)]), 100), [10]);
    assert!(on(&mut s, &sack(0, &[(2, 3)]), 100).is_empty(), "the same block again is not a dupack");
    assert_eq!(on(&mut s, &sack(0, &[(2, 4)]), 100), [11]);
    assert!(on(&mut s, &sack(0, &[(2, 4)]), 100).is_empty());
    assert!(on(&mut s, &sack(0, &[(2, 4)]), 100).is_empty());
    assert_eq!(s.state, CaState::Disorder, "three duplicate ACKs, two of them counted");
    assert_eq!(on(&mut s, &sack(0, &[(2, 5)]), 100), [0]);
    assert_eq!(s.state, CaState::Recovery);
}

#[test]
fn a_new_ack_outside_recovery_forgets_the_sacks_and_they_count_again() {
    // 10 sent; 0 is delayed and 2 lost: 1 is SACKed by a duplicate ACK, then 0 arrives (ACK 2,
    // 3-4 SACKed). The scoreboard is forgotten on that new ACK, so the next ACK's repeated
    // block is news: a duplicate ACK again (limited transmit sends one segment).
    let mut s = started(NS2, 10.0);
    assert_eq!(on(&mut s, &sack(0, &[(1, 2)]), 100), [10]);
    assert_eq!(s.sb.sacked_out, 1);
    on(&mut s, &sack(2, &[(3, 5)]), 101);
    assert_eq!(s.state, CaState::Open);
    assert_eq!(s.sb.sacked_out, 0, "ClearScoreBoard on a new ACK");
    assert!(!s.sb.is_sacked(3));
    assert_eq!(on(&mut s, &sack(2, &[(3, 5)]), 102).len(), 1, "the repeated block is news again");
    assert_eq!(s.sb.sacked_out, 2);
    // RFC 6675 keeps the scoreboard, so the repeat is no news there but still a dupack.
    let mut r = started(NS2_RFC6675, 10.0);
    on(&mut r, &sack(0, &[(1, 2)]), 100);
    on(&mut r, &sack(2, &[(3, 5)]), 101);
    assert_eq!(r.sb.sacked_out, 2);
}

#[test]
fn after_a_timeout_the_window_resends_sacked_segments_and_ignores_duplicate_acks() {
    // 10 sent; 0 and 1 lost, 2 SACKed. The timer fires: the scoreboard is forgotten, so once
    // 0 is repaired the window (2) resends 1 and 2 from snd_una; RFC 6675 skips the SACKed 2.
    let run = |stack: StackProfile| {
        let mut s = started(stack, 10.0);
        on(&mut s, &sack(0, &[(2, 3)]), 100);
        let mut out = Vec::new();
        s.on_rto(SimTime(3000 * MS), &mut out);
        let first: Vec<u64> = out.iter().map(|p| p.seq).collect();
        let dup = on(&mut s, &sack(0, &[(2, 4)]), 3050);
        let dupacks_ignored = s.state == CaState::Loss;
        (first, dup, dupacks_ignored, on(&mut s, &sack(1, &[(2, 4)]), 3100), s)
    };
    let (first, dup, ignored, next, s) = run(NS2);
    assert_eq!(first, [0]);
    assert!(dup.is_empty() && ignored, "deaf to duplicate ACKs after the timeout");
    assert_eq!(next, [1, 2]);
    assert_eq!(s.sb.sacked_out, 0);
    let (_, _, _, next, _) = run(NS2_RFC6675);
    assert_eq!(next, [1, 4], "RFC 6675 skips the SACKed 2 and 3");
}

#[test]
fn recovery_ends_at_the_recovery_point_and_a_new_one_may_start_at_once() {
    // 10 sent, 0 lost; recovery from the third duplicate ACK (two new segments out by then).
    let mut s = started(NS2, 10.0);
    for k in 1..=3u64 {
        on(&mut s, &sack(0, &[(1, 1 + k)]), 100);
    }
    assert_eq!(s.state, CaState::Recovery);
    for k in 4..=9u64 {
        on(&mut s, &sack(0, &[(1, 1 + k)]), 100);
    }
    // The repair arrives: everything up to 12 (sent before recovery) is acknowledged.
    on(&mut s, &ack(12), 160);
    assert_eq!(s.state, CaState::Open);
    assert_eq!(s.cwnd, 5.0, "ssthresh, not grown by the ACK that ends recovery");
    assert_eq!(s.sb.sacked_out, 0);
    // ns-2 clears `recover_`: three duplicate ACKs at snd_una = 12 start a new recovery, where
    // the Strict boundary (snd_una > recover) would otherwise wait for one more new ACK.
    let mut fr = Vec::new();
    for k in 1..=3u64 {
        fr = on(&mut s, &sack(12, &[(13, 13 + k)]), 200);
    }
    assert_eq!(fr, [12]);
    assert_eq!(s.state, CaState::Recovery);
    assert_eq!(s.stats.fast_retransmits, 2);
}

/// What a delayed send's end sends (ns-2's `send_much(1, ...)` outside recovery, `overhead_`):
/// 10 sent, the receiver holds 3 and 5; the timer fires and 0 is resent; its ACK (1) asks for a
/// delay, and a duplicate ACK that SACKs 3 and 5 comes before it ends (its limited-transmit
/// segment, 1, leaves at once). Returns what the end of the delay sends.
fn delayed_send_end() -> Vec<u64> {
    let mut s = started(NS2, 10.0);
    s.delsnd.overhead = SimTime(MS);
    let fire = |s: &mut Sender, ms: u64| {
        assert!(s.delsnd.requested, "a delay was asked for");
        s.delsnd.arm(SimTime(ms * MS));
        let mut out = Vec::new();
        s.on_pace_timer(SimTime(ms * MS), &mut out);
        out.iter().map(|p| p.seq).collect::<Vec<u64>>()
    };
    let mut out = Vec::new();
    s.on_rto(SimTime(3000 * MS), &mut out);
    assert!(out.is_empty(), "the resend after the timeout waits for the delay too");
    assert_eq!(fire(&mut s, 3001), [0]);
    assert!(on(&mut s, &sack(1, &[(3, 4), (5, 6)]), 3050).is_empty(), "a new ACK's segments wait");
    let limited = on(&mut s, &sack(1, &[(3, 4), (5, 6)]), 3050);
    assert_eq!(limited.len(), 1, "limited transmit past the pending delay: {limited:?}");
    fire(&mut s, 3051)
}

#[test]
fn after_a_timeout_a_delayed_sends_end_resends_the_holes_the_duplicate_acks_showed() {
    // After the timeout ns-2's recovery point is set (`recover_ > 0`): the end of the delay
    // resends the holes below the highest SACK, 1 (again: `send_one` marks nothing) and 2,
    // within the window of 2.
    // (Before, the sender sent what limited transmit allows, [2].)
    assert_eq!(delayed_send_end(), [1, 2]);
}
