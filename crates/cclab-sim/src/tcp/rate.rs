//! Delivery-rate estimation, as Linux `net/ipv4/tcp_rate.c` and
//! draft-cheng-iccrg-delivery-rate-estimation describe it.
//!
//! Every ACK yields a [`RateSample`]: how many packets were delivered between
//! the transmission of the most recently sent segment this ACK delivers and
//! the ACK itself, over how long. The sender keeps a count of delivered
//! packets and when it last grew (`delivered`, `delivered_time`); each segment
//! carries a snapshot of them taken when it was (re)transmitted
//! ([`TxSnapshot`]). On an ACK, the newest delivered segment's snapshot P gives
//!
//! - `delivered = C.delivered - P.delivered`, packets;
//! - send elapsed: P's send time − `P.first_tx_time` (the start of the flight P was sent in);
//! - ACK elapsed: now − `P.delivered_time`;
//! - `interval = max(send elapsed, ACK elapsed)`: the longer of the two cannot be
//!   compressed by ACK aggregation or stretched by a burst at the sender.
//!
//! A sample with an interval shorter than the minimum RTT is impossible for a
//! real path and marked invalid, as Linux does. A sample whose segment was
//! sent while the application had nothing to send (`app_limited`) is flagged,
//! so that a max filter of bandwidth (BBR) can ignore its low values.
//!
//! **Choices where Linux differs or the draft is silent:**
//! - `min_rtt` is the smallest RTT of the whole connection, not Linux's 10-second windowed minimum.
//! - `rtt` is the RTT sample the sender takes on this ACK (RFC 7323 timestamps, or Karn's
//!   rule without them), not Linux's RTT of the newest acknowledged segment.
//! - Sequence numbers count segments, so "sent later" ties at equal send times break on
//!   the segment number (Linux compares `end_seq`).
//! - `delivery_rate` is computed here (Linux leaves `delivered / interval` to the
//!   algorithm), in bits per second of wire bytes: `delivered x mss x 8 / interval`.
//!
//! The cost per ACK is a few comparisons per delivered segment and no allocation:
//! the snapshot lives in the scoreboard's per-segment record.

use crate::units::{Rate, SimTime, PS_PER_SEC};

/// The connection's delivery counters when a segment was (re)transmitted
/// (Linux `tcp_skb_cb.tx`). Packed into 32 bytes as Linux packs it (u32 counters compared
/// by wrapping differences, the app-limited flag beside `delivered_ce`), so that the
/// scoreboard's per-segment record stays one 64-byte cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    /// When `delivered` last grew, as of this transmission.
    pub delivered_time: SimTime,
    /// When the first segment of the flight this one belongs to was sent.
    pub first_tx_time: SimTime,
    /// Packets delivered before this transmission, modulo 2^32 (`tx.delivered`).
    delivered: u32,
    /// Packets marked lost before this transmission, modulo 2^32 (`tx.lost`).
    lost: u32,
    /// Packets in flight once this one left (`tx.in_flight`).
    in_flight: u32,
    /// CE-marked packets delivered before this transmission, modulo 2^31 (`tx.delivered_ce`),
    /// and in the top bit whether the application had nothing more to send when it left.
    ce_app: u32,
}

const APP_LIMITED_BIT: u32 = 1 << 31;
const _: () = assert!(std::mem::size_of::<TxSnapshot>() == 32, "a snapshot is 32 bytes");

impl TxSnapshot {
    /// The application had nothing more to send when this segment left (`is_app_limited`).
    pub fn is_app_limited(&self) -> bool {
        self.ce_app & APP_LIMITED_BIT != 0
    }

    /// Packets in flight once this segment left.
    pub fn in_flight(&self) -> u64 {
        self.in_flight as u64
    }
}

/// One ACK's delivery-rate sample (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `delivered` when the newest segment this ACK delivers was sent, packets.
    pub prior_delivered: u64,
    /// Packets delivered over `interval`; 0 when no segment of this ACK carried a snapshot.
    pub delivered: u64,
    /// `max(send elapsed, ACK elapsed)`; `None` when the sample is invalid: no delivered
    /// segment, or an interval shorter than the minimum RTT.
    pub interval: Option<SimTime>,
    /// `delivered` wire bytes over `interval`, bits per second; `None` when `interval` is.
    pub delivery_rate: Option<Rate>,
    /// The RTT measured from this ACK, if any.
    pub rtt: Option<SimTime>,
    /// The sampled segment was sent while the application had nothing more to send.
    pub is_app_limited: bool,
    /// Packets newly marked lost while processing this ACK.
    pub losses: u64,
    /// Packets newly delivered by this ACK (cumulatively or by SACK).
    pub acked_sacked: u64,
    /// Packets in flight (RFC 6675 pipe) before this ACK was processed.
    pub prior_in_flight: u64,
    /// Packets in flight when the sampled segment left, itself included (`tx_in_flight`).
    pub tx_in_flight: u64,
    /// Packets marked lost between the sampled segment's transmission and this ACK (`lost`).
    pub lost: u64,
    /// CE-marked packets delivered over the sample (`delivered_ce`).
    pub delivered_ce: u64,
    /// This ACK carries ECN-Echo (`is_ece`).
    pub is_ece: bool,
}

/// The sender's side of the estimator: the connection state of `tcp_rate.c`
/// plus the sample being assembled for the current ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateEstimator {
    /// Packets delivered so far (cumulatively acknowledged without a SACK first, or SACKed).
    pub delivered: u64,
    /// When `delivered` last grew (the last ACK that delivered something).
    pub delivered_time: SimTime,
    /// Send time of the newest delivered segment: the start of the current flight.
    pub first_tx_time: SimTime,
    /// CE-marked packets delivered so far (Linux `tp->delivered_ce`): with per-packet ECN
    /// feedback, the packets an ACK carrying ECN-Echo delivers.
    pub delivered_ce: u64,
    /// `delivered + in flight` when the application last ran out of data; 0: not app-limited.
    /// Samples stay flagged until `delivered` passes it.
    pub app_limited: u64,
    /// The current ACK's choice: send time and number of the newest delivered segment.
    chosen: Option<(SimTime, u64)>,
    prior: TxSnapshot,
    /// Send elapsed of the chosen segment.
    snd_interval: SimTime,
}

impl RateEstimator {
    /// The snapshot for a segment (re)transmitted at `now` (Linux `tcp_rate_skb_sent`).
    /// `nothing_in_flight`: no segment is outstanding, so a new flight starts here;
    /// `in_flight`: packets in flight before it leaves; `lost`: packets marked lost so far.
    #[inline]
    pub fn on_send(&mut self, now: SimTime, nothing_in_flight: bool, in_flight: u64, lost: u64) -> TxSnapshot {
        if nothing_in_flight {
            // After an idle period the intervals restart, or they would span the idle time.
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        let app = if self.app_limited != 0 { APP_LIMITED_BIT } else { 0 };
        TxSnapshot {
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            delivered: self.delivered as u32,
            lost: lost as u32,
            in_flight: (in_flight + 1).min(u32::MAX as u64) as u32,
            ce_app: (self.delivered_ce as u32 & !APP_LIMITED_BIT) | app,
        }
    }

    /// Starts the sample of a new ACK.
    #[inline]
    pub fn begin_ack(&mut self) {
        self.chosen = None;
    }

    /// Segment `seq`, last sent at `sent_at` with snapshot `tx`, is delivered by the current
    /// ACK, cumulatively or by SACK, for the first time (Linux `tcp_rate_skb_delivered`).
    #[inline]
    pub fn on_delivered(&mut self, seq: u64, sent_at: SimTime, tx: &TxSnapshot) {
        self.delivered += 1;
        // The newest transmission wins: its snapshot spans the least stale interval.
        let newer = match self.chosen {
            None => true,
            Some((t, s)) => sent_at > t || (sent_at == t && seq > s),
        };
        if newer {
            self.chosen = Some((sent_at, seq));
            self.prior = *tx;
            self.first_tx_time = sent_at;
            self.snd_interval = sent_at.saturating_sub(tx.first_tx_time);
        }
    }

    /// Closes the current ACK's sample (Linux `tcp_rate_gen`). `acked_sacked`: packets
    /// this ACK delivered; `min_rtt`: zero when no RTT was measured yet; `lost`: packets marked
    /// lost so far (`tp->lost`).
    #[inline]
    pub fn sample(&mut self, now: SimTime, acked_sacked: u64, min_rtt: SimTime, mss: u32, lost: u64) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample { acked_sacked, ..RateSample::default() };
        if self.chosen.is_none() {
            return rs;
        }
        // The snapshot's counters are 32 bits wide (31 for CE), as Linux's: a difference is
        // exact while fewer than 2^31 packets separate the snapshot from now.
        let p = &self.prior;
        rs.delivered = (self.delivered as u32).wrapping_sub(p.delivered) as u64;
        rs.prior_delivered = self.delivered - rs.delivered;
        rs.is_app_limited = p.is_app_limited();
        rs.tx_in_flight = p.in_flight();
        rs.lost = (lost as u32).wrapping_sub(p.lost) as u64;
        rs.delivered_ce = ((self.delivered_ce as u32).wrapping_sub(p.ce_app) & !APP_LIMITED_BIT) as u64;
        let ack_interval = now.saturating_sub(p.delivered_time);
        let interval = self.snd_interval.max(ack_interval);
        if interval < min_rtt || interval == SimTime::ZERO {
            return rs;
        }
        rs.interval = Some(interval);
        rs.delivery_rate = Some(rate(rs.delivered * mss as u64 * 8, interval));
        rs
    }

    /// The application has nothing more to send (Linux `tcp_rate_check_app_limited`): unless
    /// the window is full or losses wait to be repaired, mark the samples of everything now
    /// in flight as app-limited.
    #[inline]
    pub fn check_app_limited(&mut self, in_flight: u64, cwnd: f64, lost_unrepaired: bool) {
        if (in_flight as f64) < cwnd && !lost_unrepaired {
            self.app_limited = (self.delivered + in_flight).max(1);
        }
    }
}

/// `bits` over `interval` in bits per second, rounded down; in 64 bits while the product
/// fits (up to about 1500 packets of 1500 B), which is every ACK of a normal window.
#[inline]
fn rate(bits: u64, interval: SimTime) -> Rate {
    match bits.checked_mul(PS_PER_SEC) {
        Some(n) => Rate(n / interval.0),
        None => Rate((bits as u128 * PS_PER_SEC as u128 / interval.0 as u128).min(u64::MAX as u128) as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    #[test]
    fn a_sample_spans_from_the_newest_delivered_segments_snapshot_to_the_ack() {
        let mut r = RateEstimator::default();
        // Ten segments sent 1 ms apart from t = 0, the first into an empty pipe.
        let tx: Vec<TxSnapshot> = (0..10).map(|i| r.on_send(SimTime(i * MS), i == 0, i, 0)).collect();
        // The first ACK at 100 ms delivers segments 0 and 1.
        r.begin_ack();
        r.on_delivered(0, SimTime(0), &tx[0]);
        r.on_delivered(1, SimTime(MS), &tx[1]);
        let rs = r.sample(SimTime(100 * MS), 2, SimTime(90 * MS), 1500, 0);
        // P = segment 1: delivered 0 then; send elapsed 1 ms, ACK elapsed 100 ms.
        assert_eq!((rs.prior_delivered, rs.delivered), (0, 2));
        assert_eq!(rs.interval, Some(SimTime(100 * MS)));
        // 2 x 1500 B in 100 ms = 240 kbit/s.
        assert_eq!(rs.delivery_rate, Some(Rate(240_000)));
        assert_eq!(r.first_tx_time, SimTime(MS));
    }

    #[test]
    fn an_interval_shorter_than_the_minimum_rtt_is_invalid() {
        let mut r = RateEstimator::default();
        let tx = r.on_send(SimTime(0), true, 0, 0);
        r.begin_ack();
        r.on_delivered(0, SimTime(0), &tx);
        let rs = r.sample(SimTime(10 * MS), 1, SimTime(20 * MS), 1500, 0);
        assert_eq!((rs.delivered, rs.interval, rs.delivery_rate), (1, None, None));
    }

    #[test]
    fn an_ack_that_delivers_nothing_gives_no_sample() {
        let mut r = RateEstimator::default();
        r.begin_ack();
        let rs = r.sample(SimTime(10 * MS), 0, SimTime::ZERO, 1500, 0);
        assert_eq!(rs, RateSample::default());
    }

    #[test]
    fn samples_stay_app_limited_until_the_data_in_flight_then_is_delivered() {
        let mut r = RateEstimator::default();
        let tx: Vec<TxSnapshot> = (0..2).map(|i| r.on_send(SimTime(0), i == 0, i, 0)).collect();
        r.check_app_limited(2, 10.0, false);
        assert_eq!(r.app_limited, 2);
        let late = r.on_send(SimTime(MS), false, 2, 0);
        assert!(late.is_app_limited() && !tx[0].is_app_limited());
        for (i, t) in tx.iter().enumerate() {
            r.begin_ack();
            r.on_delivered(i as u64, SimTime(0), t);
            r.sample(SimTime(50 * MS), 1, SimTime::ZERO, 1500, 0);
        }
        // delivered (2) has not passed the mark (2): still app-limited.
        assert_eq!(r.app_limited, 2);
        r.begin_ack();
        r.on_delivered(2, SimTime(MS), &late);
        let rs = r.sample(SimTime(60 * MS), 1, SimTime::ZERO, 1500, 0);
        assert!(rs.is_app_limited);
        assert_eq!(r.app_limited, 0);
    }

    #[test]
    fn a_sample_carries_the_in_flight_losses_and_ce_marks_of_the_sampled_segments_flight() {
        let mut r = RateEstimator { delivered: 100, delivered_ce: 7, ..RateEstimator::default() };
        // Sent with 40 in flight before it and 3 packets marked lost so far.
        let tx = r.on_send(SimTime(0), false, 40, 3);
        assert_eq!(tx.in_flight(), 41);
        r.begin_ack();
        r.on_delivered(0, SimTime(0), &tx);
        r.delivered_ce += 1;
        let rs = r.sample(SimTime(50 * MS), 1, SimTime::ZERO, 1500, 5);
        assert_eq!((rs.tx_in_flight, rs.lost, rs.delivered_ce), (41, 2, 1));
        assert_eq!((rs.prior_delivered, rs.delivered), (100, 1));
        // The 32-bit snapshot across a wrap of its counters gives the same differences.
        let mut r = RateEstimator { delivered: (1 << 32) - 1, delivered_ce: (1 << 31) - 1, ..RateEstimator::default() };
        r.app_limited = 1;
        let tx = r.on_send(SimTime(0), false, 0, (1 << 32) - 1);
        assert!(tx.is_app_limited());
        r.begin_ack();
        r.on_delivered(0, SimTime(0), &tx);
        r.delivered += 1;
        r.delivered_ce += 2;
        let rs = r.sample(SimTime(50 * MS), 1, SimTime::ZERO, 1500, (1 << 32) + 1);
        assert_eq!((rs.prior_delivered, rs.delivered, rs.lost, rs.delivered_ce), ((1 << 32) - 1, 2, 2, 2));
    }

    #[test]
    fn a_rate_is_the_same_in_64_and_128_bits() {
        let t = SimTime(123_456_789_012);
        let small = 1500 * 8 * 1000;
        assert_eq!(rate(small, t).0 as u128, small as u128 * PS_PER_SEC as u128 / t.0 as u128);
        let big = 1500 * 8 * 10_000_000;
        assert_eq!(rate(big, t).0 as u128, big as u128 * PS_PER_SEC as u128 / t.0 as u128);
    }

    #[test]
    fn a_full_window_is_not_app_limited() {
        let mut r = RateEstimator::default();
        r.check_app_limited(10, 10.0, false);
        r.check_app_limited(3, 10.0, true);
        assert_eq!(r.app_limited, 0);
    }
}
