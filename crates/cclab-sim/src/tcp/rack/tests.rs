//! RACK on the scoreboard alone: which segments a delivery makes lost, when, and the
//! send-time list that orders them.

use super::*;
use crate::tcp::rate::{RateEstimator, TxSnapshot};

const MS: u64 = 1_000_000_000; // picoseconds

fn ms(x: u64) -> SimTime {
    SimTime(x * MS)
}

/// Segments 0..n sent at 0, 1, ..., n-1 ms, RACK on.
fn board(n: u64) -> Scoreboard {
    let mut b = Scoreboard::new(3);
    b.enable_rack();
    for s in 0..n {
        b.on_send(s, ms(s), TxSnapshot::default());
    }
    b
}

fn sack_at(b: &mut Scoreboard, now: u64, min_rtt: u64, start: u64, end: u64) {
    b.rack_ack_begin(ms(now), ms(min_rtt));
    b.sack(start, end, &mut RateEstimator::default());
}

#[test]
fn a_segment_is_lost_once_rtt_plus_the_window_has_passed_since_it_left() {
    // Segment 5 (sent at 5 ms) SACKed at 100 ms: RACK.RTT 95 ms. Segments 0-4 left at 0-4 ms.
    let mut b = board(10);
    sack_at(&mut b, 100, 50, 5, 6);
    // With a 12.5 ms window none has waited long enough; the last (4 ms) waits longest:
    // 4 + 95 + 12.5 - 100 = 11.5 ms.
    let d = b.rack_detect(ms(100), SimTime(25 * MS / 2), false);
    assert_eq!((d.lost, d.wait), (0, Some(SimTime(23 * MS / 2))));
    assert_eq!(b.lost_out, 0);
    // Without a window (three SACKed, or in recovery) all five are lost at once; the segments
    // sent after 5 ms are not looked at.
    let d = b.rack_detect(ms(100), SimTime::ZERO, true);
    assert_eq!((d.lost, d.wait), (5, None));
    assert_eq!((b.lost_out, b.pipe()), (5, 4));
    // And nothing runs again until something else is delivered.
    assert_eq!(b.rack_detect(ms(500), SimTime::ZERO, false), Detected::default());
}

#[test]
fn a_resent_segment_is_timed_from_its_resending_and_found_lost_again() {
    let mut b = board(10);
    sack_at(&mut b, 100, 50, 5, 6);
    assert_eq!(b.rack_detect(ms(100), SimTime::ZERO, false).lost, 5);
    assert_eq!(b.next_lost(), Some(0));
    b.on_send(0, ms(101), TxSnapshot::default());
    assert_eq!(b.retrans_out, 1);
    // Segment 7 (sent at 7 ms) SACKed: it finds 6 lost, but was sent before the resending
    // of 0 and says nothing of it.
    sack_at(&mut b, 110, 50, 7, 8);
    let d = b.rack_detect(ms(110), SimTime::ZERO, false);
    assert_eq!((d.lost, d.lost_retransmits, b.retrans_out), (1, 0, 1));
    assert!(b.is_lost(6));
    b.on_send(6, ms(111), TxSnapshot::default());
    // A new segment sent after the resending and SACKed one RTT later finds it lost again.
    b.on_send(10, ms(102), TxSnapshot::default());
    sack_at(&mut b, 200, 50, 10, 11);
    let d = b.rack_detect(ms(200), SimTime::ZERO, false);
    // Lost: 0 again, and 8 and 9 (sent at 8 and 9 ms), but not 6 (resent at 111 ms).
    assert_eq!((d.lost, d.lost_retransmits), (3, 1));
    assert!(b.is_lost(8) && b.is_lost(9));
    assert_eq!(b.retrans_out, 1);
    assert_eq!(b.next_lost(), Some(0), "to be resent again");
}

#[test]
fn a_resent_segment_acknowledged_sooner_than_the_minimum_rtt_does_not_move_rack() {
    let mut b = board(4);
    sack_at(&mut b, 100, 50, 3, 4);
    b.rack_detect(ms(100), SimTime::ZERO, false);
    b.on_send(0, ms(101), TxSnapshot::default());
    // The original's ACK arrives 10 ms after the resending: ambiguous, ignored.
    b.rack_ack_begin(ms(111), ms(50));
    b.ack_to(1, &mut RateEstimator::default());
    assert_eq!(b.rack_detect(ms(111), SimTime::ZERO, false), Detected::default());
}

#[test]
fn the_send_time_list_holds_the_undelivered_segments_in_the_order_they_last_left() {
    let mut b = board(5);
    b.on_send(1, ms(10), TxSnapshot::default()); // resent: to the tail
    b.rack_ack_begin(ms(20), ms(5));
    b.sack(3, 4, &mut RateEstimator::default()); // delivered: out
    b.ack_to(1, &mut RateEstimator::default()); // delivered: out
    let mut order = vec![];
    let mut s = b.t_head;
    while s != NIL {
        order.push(s);
        s = b.segs[(s - b.una()) as usize].t_next;
    }
    assert_eq!(order, [2, 4, 1]);
    assert_eq!(b.t_tail, 1);
}

#[test]
fn a_timeout_spares_the_segments_sent_within_the_last_rack_rtt() {
    // RACK.RTT 95 ms (segment 5 at 100 ms). At 150 ms every segment sent before 55 ms is lost
    // (0-4, 6-8); 9, resent at 120 ms, is spared.
    let mut b = board(10);
    sack_at(&mut b, 100, 50, 5, 6);
    b.on_send(9, ms(120), TxSnapshot::default());
    b.rack_mark_timeout_lost(ms(150));
    assert_eq!(b.lost_out, 8, "0-4 and 6-8");
    assert!(!b.is_lost(9));
    assert_eq!(b.retrans_out, 1, "9's resending still in flight");
    assert_eq!((b.next_lost(), b.frontier), (Some(0), 9));
}

#[test]
fn a_sacked_segment_sent_again_is_never_marked_lost() {
    // A tail loss probe may resend the last segment after it was SACKed.
    let mut b = board(6);
    sack_at(&mut b, 100, 50, 5, 6);
    b.on_send(5, ms(101), TxSnapshot::default());
    b.on_send(6, ms(102), TxSnapshot::default());
    sack_at(&mut b, 300, 50, 6, 7);
    let d = b.rack_detect(ms(300), SimTime::ZERO, false);
    assert_eq!(d.lost, 5, "0-4, not the SACKed 5");
    assert!(b.is_sacked(5) && !b.is_lost(5));
    assert_eq!((b.lost_out, b.sacked_out), (5, 2));
}
