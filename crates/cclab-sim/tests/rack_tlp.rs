//! RACK-TLP (RFC 8985) in the sender under the linux profile, driven by hand-made ACKs
//! (tcp/rack.rs, tcp/tlp.rs): the reordering timer, recovery on the third SACK, a lost
//! retransmission found without a timeout, and the tail loss probe. Each test runs the
//! same ACKs with RFC 6675's duplicate-ACK threshold beside it where the two differ.

use cclab_sim::cc::{self, CaState};
use cclab_sim::tcp::{LossDetection, Recovery, Sender, StackProfile, TcpConfig, Timer};
use cclab_sim::units::SimTime;
use common::{ack, on, sack};

mod common;

const MS: u64 = 1_000_000_000; // picoseconds

const RACK: StackProfile = StackProfile { loss_detection: LossDetection::RackTlp, ..StackProfile::LINUX };
const DUPTHRESH: StackProfile = StackProfile { loss_detection: LossDetection::Dupthresh, ..StackProfile::LINUX };

fn ms(x: u64) -> SimTime {
    SimTime(x * MS)
}

/// A Reno sender with SACK under `stack`, `limit` segments to send; its initial window of 10
/// leaves at t = 0, and the ACK of segment 0 at 100 ms gives it its first RTT sample.
fn started(stack: StackProfile, limit: u64) -> Sender {
    let cfg = TcpConfig { init_cwnd: 10.0, timestamps: false, recovery: Recovery::Sack, stack, ..TcpConfig::default() };
    let mut s = Sender::new(0, cfg, cc::build("reno", &cc::Params::new()).unwrap(), limit);
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 10);
    on(&mut s, &ack(1), 100);
    s
}

/// What the sender sends when its timer fires at `at` ms.
fn fire(s: &mut Sender, at: u64) -> Vec<u64> {
    assert_eq!(s.rto_deadline, Some(ms(at)), "the timer is due at {at} ms");
    let mut out = Vec::new();
    s.on_timer(ms(at), &mut out);
    out.iter().map(|p| p.seq).collect()
}

#[test]
fn one_sack_starts_the_reordering_timer_and_its_expiry_the_recovery() {
    // Segment 1 is lost; segment 2 (sent with it at 0 ms) is SACKed at 101 ms. RACK.RTT is
    // 101 ms and the reordering window min_rtt / 4 = 25 ms: segment 1 is lost at 126 ms, and
    // the timer fires 2 ms later (TCP_TIMEOUT_MIN), rounded up to the ms: 128 ms.
    let mut s = started(RACK, 1000);
    assert!(!on(&mut s, &sack(1, &[(2, 3)]), 101).contains(&1));
    assert_eq!((s.state, s.timer), (CaState::Disorder, Timer::Reorder));
    assert!(fire(&mut s, 128).contains(&1), "segment 1 resent");
    assert_eq!(s.state, CaState::Recovery);
    // RFC 6675 waits for the third duplicate ACK, and its timer is the RTO.
    let mut d = started(DUPTHRESH, 1000);
    on(&mut d, &sack(1, &[(2, 3)]), 101);
    assert_eq!((d.state, d.timer), (CaState::Disorder, Timer::Rto));
}

#[test]
fn the_third_sacked_segment_starts_recovery_at_once() {
    let mut s = started(RACK, 1000);
    on(&mut s, &sack(1, &[(2, 3)]), 101);
    on(&mut s, &sack(1, &[(2, 4)]), 101);
    let sent = on(&mut s, &sack(1, &[(2, 5)]), 101);
    assert_eq!(s.state, CaState::Recovery);
    assert_eq!(sent, [1], "PRR lets the retransmission out first");
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn a_lost_retransmission_is_resent_without_a_timeout() {
    // Recovery at 101 ms resends 1; then the ACKs that SACK segments sent after that
    // resending (10 and above, sent from 100 ms on) arrive one RTT later without segment 1.
    let run = |stack: StackProfile| {
        let mut s = started(stack, 1000);
        on(&mut s, &sack(1, &[(2, 3)]), 101);
        on(&mut s, &sack(1, &[(2, 4)]), 101);
        assert_eq!(on(&mut s, &sack(1, &[(2, 5)]), 101), [1]);
        let mut resent = 0;
        for (k, at) in (5..12u64).zip(140..) {
            resent += on(&mut s, &sack(1, &[(2, k + 1)]), at).iter().filter(|&&q| q == 1).count();
        }
        for (k, at) in (12..16u64).zip(215..) {
            resent += on(&mut s, &sack(1, &[(2, k + 1)]), at).iter().filter(|&&q| q == 1).count();
        }
        (resent, s.stats.timeouts)
    };
    assert_eq!(run(RACK), (1, 0), "resent once more, within the recovery");
    assert_eq!(run(DUPTHRESH), (0, 0), "RFC 6675 does not see it: only the RTO would");
}

#[test]
fn a_tail_loss_is_probed_after_two_srtt_instead_of_the_rto() {
    // Ten segments in all; 1-9 outstanding after the first ACK at 100 ms (SRTT 100 ms), and no
    // ACK comes back. The probe timer is 2 SRTT + 2 ms = 302 ms; the probe resends the last
    // segment (no new data), and a full RTO is armed from then.
    let mut s = started(RACK, 10);
    assert_eq!((s.timer, s.rto_deadline), (Timer::LossProbe, Some(ms(302))));
    assert_eq!(fire(&mut s, 302), [9]);
    assert_eq!((s.timer, s.stats.loss_probes, s.stats.timeouts), (Timer::Rto, 1, 0));
    assert!(s.rto_deadline.unwrap() > ms(302));
    // The probe's SACK lets RACK find 1-8 lost at once: they left before the probe, and longer
    // ago than its round trip (RACK.RTT 101 ms).
    let sent = on(&mut s, &sack(1, &[(9, 10)]), 403);
    assert_eq!(s.state, CaState::Recovery);
    assert_eq!(sent.first(), Some(&1));
    // With RFC 6675 nothing happens before the RTO.
    let d = started(DUPTHRESH, 10);
    assert_eq!(d.timer, Timer::Rto);
    assert!(d.rto_deadline.unwrap() >= ms(400));
}

#[test]
fn a_probe_of_new_data_sends_the_next_segment_whatever_the_window() {
    // An unlimited transfer: when the probe timer fires, the next new segment goes out.
    let mut s = started(RACK, 1000);
    let before = s.sb.high();
    let due = s.rto_deadline.unwrap().0 / MS;
    let sent = fire(&mut s, due);
    assert_eq!(sent, [before], "new data");
    assert_eq!(s.probe.map(|p| p.retransmit), Some(false));
}
