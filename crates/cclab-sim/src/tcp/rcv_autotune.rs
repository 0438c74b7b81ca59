//! Linux's receive-buffer autotuning and the quick ACKs it causes (net/ipv4/tcp_input.c,
//! Linux 6.18): why a Linux receiver acknowledges nearly every segment of a slow start.
//!
//! The receiver's window threshold `rcv_ssthresh` grows by two segments for each data
//! segment that arrives while there is room below the window clamp and the free receive
//! buffer (`tcp_grow_window()`), and each such growth sets one quick ACK
//! (`icsk_ack.quick |= 1`): the segment is acknowledged at once instead of every second one.
//! The room comes from autotuning (`tcp_rcv_space_adjust()`, `tcp_rcvbuf_grow()`): once per
//! receiver round trip, when more was read in that round than in any before, the buffer grows
//! to let the sender double its rate again, and the clamp follows. In a slow start the room
//! grows each round by more than the round's segments can take up at two segments each, so
//! most segments are acknowledged alone; once the rate stops growing the room runs out and the
//! receiver goes back to every second segment.
//!
//! Measured on the testbed's kernel (6.18, veth, the `tcp:tcp_rcvbuf_grow` tracepoint, one
//! cubic flow at 20 Mbit/s and 40 ms): the scaling ratio is 160/256 (a 1448-byte segment in a
//! 2304-byte buffer), the buffer starts at `tcp_rmem[1]` = 131072 bytes with a first
//! `rcvq_space` of ten segments, and each growth follows eq. (A) below to the byte
//! (docs/linux.md, "Receive-buffer autotuning").
//!
//! Modelled as the kernel does it, in bytes, with the segment's size (the simulator's packet
//! size) as the kernel's payload: the scaling ratio (`tcp_win_from_space()`), the receive
//! memory held by unread and out-of-order segments (`tcp_space()`), the receiver's RTT from the
//! timestamp echo in millisecond ticks (`tcp_rcv_rtt_measure_ts()`, `tcp_rcv_rtt_update()`), and
//! the growth once per receiver RTT. The application reads every in-order segment as it comes,
//! after the ACK decision for it (as a reader woken by the segment does).
//! Not modelled: memory pressure, `SO_RCVBUF` locks, the pre-measurement scaling ratio of the
//! first segment, and the advertised window itself (the sender is never limited by it here).

use crate::units::SimTime;

/// `TCP_RMEM_TO_WIN_SCALE`: the scaling ratio is in 1/256ths.
const RATIO_SCALE: u32 = 8;
/// The scaling ratio measured on the testbed's veth (1448 bytes of 2304).
pub const SCALING_RATIO: u64 = 160;
/// `tcp_rmem[1]`: the receive buffer a connection starts with, bytes.
pub const RMEM_INITIAL: u64 = 131_072;
/// `tcp_rmem[2]`: the most autotuning gives, bytes (Linux's default, 6 MiB).
pub const RMEM_MAX: u64 = 6 << 20;
/// The unscaled window of the SYN (`tcp_select_initial_window()`), which caps the first
/// `rcv_ssthresh`.
const SYN_WINDOW: u64 = 65_535;
/// `TCP_INIT_CWND`: the first `rcvq_space` is ten segments.
const INIT_SPACE_SEGMENTS: u64 = 10;
/// The receiver's timestamp clock (`TCP_TS_HZ`, 1000 Hz).
const TS_TICK: SimTime = SimTime::from_millis(1);

/// `tcp_win_from_space()`: the window a buffer of `space` bytes carries.
fn win_from_space(space: u64) -> u64 {
    (space * SCALING_RATIO) >> RATIO_SCALE
}

/// `tcp_space_from_win()`: the buffer a window of `win` bytes needs.
fn space_from_win(win: u64) -> u64 {
    (win << RATIO_SCALE) / SCALING_RATIO
}

/// One receiver's autotuning state, bytes unless said.
#[derive(Clone, Debug)]
pub struct RcvAutotune {
    /// The segment's size (`advmss`, `rcv_mss`).
    mss: u64,
    /// `sk_rcvbuf`.
    rcvbuf: u64,
    /// `window_clamp`.
    window_clamp: u64,
    /// `rcv_ssthresh`.
    rcv_ssthresh: u64,
    /// `rcvq_space.space`: the most read in one receiver round so far.
    space: u64,
    /// `rcvq_space.seq` (bytes read when the round began) and `rcvq_space.time`.
    round_start: (u64, SimTime),
    /// `rcv_rtt_est.rtt_us`, eight times the RTT (picoseconds); zero before a sample.
    rtt8: u64,
    /// The echoed timestamp last sampled (`rcv_rtt_last_tsecr`).
    last_tsecr: SimTime,
}

impl RcvAutotune {
    /// A connection's state before its first data segment (`tcp_init_buffer_space()`).
    pub fn new(mss_bytes: u32) -> Self {
        let mss = u64::from(mss_bytes.max(1));
        let window_clamp = win_from_space(RMEM_INITIAL);
        RcvAutotune {
            mss,
            rcvbuf: RMEM_INITIAL,
            window_clamp,
            rcv_ssthresh: (SYN_WINDOW / mss * mss).min(window_clamp),
            space: INIT_SPACE_SEGMENTS * mss,
            round_start: (0, SimTime::ZERO),
            rtt8: 0,
            last_tsecr: SimTime::ZERO,
        }
    }

    /// `tcp_rcv_rtt_measure_ts()`: a data segment echoing `tsecr` (zero: none) arrived at `now`.
    /// One sample per distinct echo, in the timestamp clock's ticks (`tcp_rcv_rtt_update()`:
    /// a sample below the average replaces it, else a 1/8 moving average).
    pub fn measure_rtt(&mut self, now: SimTime, tsecr: SimTime) {
        if tsecr == SimTime::ZERO || tsecr == self.last_tsecr {
            return;
        }
        self.last_tsecr = tsecr;
        let ticks = (now.0 / TS_TICK.0).saturating_sub(tsecr.0 / TS_TICK.0);
        if ticks == 0 {
            return;
        }
        let m = ticks * TS_TICK.0 * 8;
        self.rtt8 = if self.rtt8 == 0 || m < self.rtt8 { m } else { self.rtt8 - (self.rtt8 >> 3) + m / 8 };
    }

    /// `tcp_grow_window()`: a data segment arrived while `held` segments (it among them) wait
    /// unread or out of order. Returns whether it grew `rcv_ssthresh`, which sets a quick ACK.
    pub fn grow_window(&mut self, held: u64) -> bool {
        // tcp_space(): the window of the buffer not held by unread data.
        let free = win_from_space(self.rcvbuf.saturating_sub(held * space_from_win(self.mss)));
        let room = self.window_clamp.min(free).saturating_sub(self.rcv_ssthresh);
        if room == 0 {
            return false;
        }
        // A segment whose buffer carries at least its own size grows the window by two
        // segments (the ratio is measured on these same segments, so it always does).
        let incr = 2 * self.mss;
        self.rcv_ssthresh += room.min(incr);
        true
    }

    /// `tcp_rcv_space_adjust()`: the application has read `read` bytes in all, at `now`, the
    /// out-of-order queue reaching `ooo_bytes` above the in-order data. Once per receiver RTT
    /// the round's reading is compared with the largest before it.
    pub fn space_adjust(&mut self, now: SimTime, read: u64, ooo_bytes: u64) {
        let (seq, since) = self.round_start;
        if self.rtt8 == 0 || now.0.saturating_sub(since.0) < self.rtt8 >> 3 {
            return;
        }
        let copied = read - seq;
        if copied > self.space {
            self.rcvbuf_grow(copied, ooo_bytes);
        }
        self.round_start = (read, now);
    }

    /// `tcp_rcvbuf_grow()`: the buffer for a round of `new` bytes after one of `old`, (A):
    /// rcvwin = 2 new + 2 (2 new (new - old) / old) (the sender may double again, one round
    /// late), plus the out-of-order span; the buffer only grows, to `tcp_rmem[2]` at most.
    fn rcvbuf_grow(&mut self, new: u64, ooo_bytes: u64) {
        let old = std::mem::replace(&mut self.space, new);
        let rcvwin = 2 * new;
        let grow = rcvwin * (new - old) / old.max(1);
        let rcvwin = rcvwin + (grow << 1) + ooo_bytes;
        let rcvbuf = space_from_win(rcvwin).min(RMEM_MAX);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = win_from_space(rcvbuf);
        }
    }

    /// (`rcvbuf`, `window_clamp`, `rcv_ssthresh`, `rcvq_space.space`), bytes.
    #[cfg(test)]
    fn state(&self) -> (u64, u64, u64, u64) {
        (self.rcvbuf, self.window_clamp, self.rcv_ssthresh, self.space)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The testbed kernel's tcp_rcvbuf_grow events of one slow start (1448-byte segments):
    /// (read this round, rcvq_space before) -> (rcvbuf, window_clamp) after.
    #[test]
    fn buffer_growth_matches_the_kernel_trace_to_the_byte() {
        let mut a = RcvAutotune::new(1448);
        assert_eq!(a.state(), (131_072, 81_920, 65_160, 14_480));
        for (new, rcvbuf, clamp) in
            [(27_512, 246_505, 154_065), (56_472, 561_152, 350_720), (111_496, 1_052_064, 657_540)]
        {
            a.rcvbuf_grow(new, 0);
            assert_eq!((a.rcvbuf, a.window_clamp, a.space), (rcvbuf, clamp, new));
        }
        // A round that reads a little more than the last one does not shrink the buffer.
        a.rcvbuf_grow(112_944, 0);
        assert_eq!((a.rcvbuf, a.window_clamp, a.space), (1_052_064, 657_540, 112_944));
    }

    #[test]
    fn the_window_grows_two_segments_a_segment_up_to_the_free_buffer_and_each_growth_asks_a_quick_ack() {
        let mut a = RcvAutotune::new(1448);
        // Room: the clamp less this segment's share of the buffer (1448), less rcv_ssthresh.
        let mut grown = 0;
        while a.grow_window(1) {
            grown += 1;
        }
        assert_eq!(a.rcv_ssthresh, 81_920 - 1448);
        assert_eq!(grown, (81_920 - 1448 - 65_160_u64).div_ceil(2 * 1448));
        // Unread data takes its share: with ten segments held there is no room at all.
        a.rcvbuf_grow(27_512, 0);
        assert!(!a.grow_window(60));
        assert!(a.grow_window(1));
    }

    #[test]
    fn the_round_is_one_receiver_rtt_and_only_a_larger_round_grows_the_buffer() {
        let ms = SimTime::from_millis;
        let mut a = RcvAutotune::new(1000);
        a.space_adjust(ms(50), 30_000, 0); // no RTT sample yet: nothing
        assert_eq!(a.state().0, RMEM_INITIAL);
        a.measure_rtt(ms(40), SimTime::ZERO); // no echo: no sample
        assert_eq!(a.rtt8, 0);
        a.measure_rtt(ms(41), ms(1)); // 40 ms
        a.measure_rtt(ms(42), ms(1)); // the same echo again: no second sample
        assert_eq!(a.rtt8, 8 * ms(40).0);
        a.measure_rtt(ms(100), ms(40)); // 60 ms: above the average, 1/8 of the way
        assert_eq!(a.rtt8, 8 * ms(40).0 - ms(40).0 + ms(60).0);
        a.measure_rtt(ms(130), ms(100)); // 30 ms: below it, taken at once
        assert_eq!(a.rtt8, 8 * ms(30).0);
        a.space_adjust(ms(29), 30_000, 0); // under one RTT since the start: nothing
        assert_eq!(a.state().3, 10_000);
        a.space_adjust(ms(30), 30_000, 0); // 30 000 read in the round, more than 10 000
        assert_eq!(a.state().3, 30_000);
        assert!(a.state().0 > RMEM_INITIAL);
        let buf = a.state().0;
        a.space_adjust(ms(60), 50_000, 0); // 20 000 in this round: no growth, the round restarts
        assert_eq!((a.state().0, a.state().3, a.round_start), (buf, 30_000, (50_000, ms(60))));
    }
}
