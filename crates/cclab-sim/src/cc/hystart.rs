//! HyStart: CUBIC's exit from slow start before the first loss, as Linux has it.
//!
//! Source: S. Ha, I. Rhee, "Taming the elephants: New TCP slow start", Computer
//! Networks 55(9), 2011, as Linux 6.x implements it in net/ipv4/tcp_cubic.c
//! (`bictcp_hystart_reset`, `hystart_update`, `cubictcp_acked`, `cubictcp_state`).
//! Slow start doubles the window every round trip and, left alone, overshoots the
//! path by up to a window's worth of drops. HyStart watches each round of slow
//! start and ends it (ssthresh = cwnd) at the first of two signs that the window
//! has filled the pipe:
//!
//! - **ACK train**: ACKs that arrive less than [`ACK_DELTA`] (2 ms,
//!   `hystart_ack_delta_us`) apart extend the round's train; once the train has
//!   lasted more than `delay_min / 2` since the round began, the window's worth of
//!   data spans half the minimum RTT, so the window is about the path's
//!   bandwidth-delay product. Linux adds `hystart_ack_delay()` to `delay_min`, a
//!   cushion for GSO/TSO bursts of up to 1 ms derived from the pacing rate, and
//!   halves the sum only when the socket is not paced; cclab has no segmentation
//!   offload and CUBIC is not paced, so the term is 0 and the threshold is
//!   `delay_min / 2`.
//! - **Delay increase**: from the round's ninth RTT sample on (its first
//!   [`MIN_SAMPLES`] = 8 only gather), the minimum RTT of the round so far
//!   (`curr_rtt`, lowered by every sample, the ninth and later included) above
//!   `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)` (`HYSTART_DELAY_MIN`,
//!   `HYSTART_DELAY_MAX`) means a queue is building.
//!
//! The rest as in Linux:
//! - A **round** begins when snd_una passes `end_seq`, snd_nxt at the start of the
//!   previous round (`after(snd_una, end_seq)`), and at the start and at every
//!   timeout: the train restarts at that moment and the samples are forgotten.
//! - **Nothing below [`LOW_WINDOW`]** (16 packets, `hystart_low_window`): a
//!   smaller window gives too few ACKs to judge; the round bookkeeping still runs.
//! - **Only in slow start** (cwnd < ssthresh) and only until the first detection:
//!   once found, HyStart is silent until a timeout re-arms it (Linux clears `found`
//!   only in `bictcp_reset`, on `TCP_CA_Loss`). A loss before any detection leaves it
//!   armed, so it may still act while recovery holds cwnd below ssthresh, as in Linux.
//! - **`delay_min`** is the smallest RTT sample since the start or the last timeout;
//!   samples within 1 s of the start of a CUBIC epoch are discarded (Linux: `HZ`
//!   jiffies after `epoch_start`, "right after fast recovery"); a zero sample counts
//!   as 1 us. The discard is CUBIC's (cubic.rs), as the epoch is.
//!
//! Where cclab differs: times are cclab's picoseconds, not Linux's microseconds,
//! and the RTT sample is the one the sender gives every algorithm
//! ([`super::AckSample::rtt`]: from the echoed timestamp when timestamps are on),
//! where Linux takes the send time of the last segment the ACK covers
//! (`ca_rtt_us`). ns-3.44's `TcpCubic` differs from both; docs/algorithms/cubic.md
//! says how.

use super::SenderView;
use crate::units::SimTime;

/// Lower bound of the window for detection, packets (Linux `hystart_low_window`).
pub const LOW_WINDOW: f64 = 16.0;
/// ACKs at most this far apart belong to one train (Linux `hystart_ack_delta_us`, 2000).
pub const ACK_DELTA: SimTime = SimTime::from_micros(2000);
/// RTT samples a round gathers before the delay test (Linux `HYSTART_MIN_SAMPLES`).
pub const MIN_SAMPLES: u32 = 8;
/// Floor of the delay test's margin (Linux `HYSTART_DELAY_MIN`, 4 ms).
pub const DELAY_MIN: SimTime = SimTime::from_micros(4000);
/// Ceiling of the delay test's margin (Linux `HYSTART_DELAY_MAX`, 16 ms).
pub const DELAY_MAX: SimTime = SimTime::from_micros(16_000);
/// The smallest RTT sample Linux keeps (a zero sample becomes 1 us).
const MIN_DELAY: SimTime = SimTime::from_micros(1);

/// Which test ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    AckTrain,
    Delay,
}

/// HyStart's state (Linux `struct bictcp`'s HyStart fields).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStart {
    /// The test that ended slow start, until a timeout re-arms it.
    found: Option<Found>,
    /// Smallest RTT sample kept, `None` before the first (Linux `delay_min` 0).
    delay_min: Option<SimTime>,
    /// When the current round began.
    round_start: SimTime,
    /// snd_nxt when the current round began: the round ends once snd_una passes it.
    end_seq: u64,
    /// The last ACK of the current train.
    last_ack: SimTime,
    /// The smallest RTT sample of the current round (`None`: Linux's ~0U).
    curr_rtt: Option<SimTime>,
    /// RTT samples of the current round, counted up to [`MIN_SAMPLES`].
    sample_cnt: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart {
            found: None,
            delay_min: None,
            round_start: SimTime::ZERO,
            end_seq: 0,
            last_ack: SimTime::ZERO,
            curr_rtt: None,
            sample_cnt: 0,
        }
    }
}

impl HyStart {
    /// Which test ended slow start, if one did since the start or the last timeout.
    pub fn found(&self) -> Option<Found> {
        self.found
    }

    /// The smallest RTT sample kept.
    pub fn delay_min(&self) -> Option<SimTime> {
        self.delay_min
    }

    /// The delay test's threshold: `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`.
    pub fn delay_threshold(delay_min: SimTime) -> SimTime {
        let margin = SimTime(delay_min.0 / 8).clamp(DELAY_MIN, DELAY_MAX);
        delay_min + margin
    }

    /// A new round begins now, its data ending at `snd_nxt` (Linux `bictcp_hystart_reset`).
    pub fn new_round(&mut self, now: SimTime, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// A retransmission timeout (Linux `cubictcp_state(TCP_CA_Loss)`: `bictcp_reset`
    /// clears `found` and `delay_min`, then a new round).
    pub fn on_timeout(&mut self, now: SimTime, snd_nxt: u64) {
        self.found = None;
        self.delay_min = None;
        self.new_round(now, snd_nxt);
    }

    /// One RTT sample that CUBIC kept (Linux `cubictcp_acked` after its discard test), with
    /// the sender as `v` shows it: the new ssthresh (cwnd) when slow start ends here.
    pub fn on_sample(&mut self, v: &SenderView, rtt: SimTime) -> Option<f64> {
        let delay = rtt.max(MIN_DELAY);
        let delay_min = self.delay_min.map_or(delay, |d| d.min(delay));
        self.delay_min = Some(delay_min);
        if self.found.is_some() || v.cwnd >= v.ssthresh {
            return None;
        }
        // hystart_update
        if v.snd_una > self.end_seq {
            self.new_round(v.now, v.snd_nxt);
        }
        if v.cwnd < LOW_WINDOW {
            return None;
        }
        let mut found = None;
        if v.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = v.now;
            // No GSO cushion and no pacing: the threshold is delay_min / 2.
            if v.now.saturating_sub(self.round_start) > SimTime(delay_min.0 / 2) {
                found = Some(Found::AckTrain);
            }
        }
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if curr > Self::delay_threshold(delay_min) {
            found = found.or(Some(Found::Delay));
        }
        self.found = found;
        found.map(|_| v.cwnd)
    }
}

#[cfg(test)]
mod tests;
