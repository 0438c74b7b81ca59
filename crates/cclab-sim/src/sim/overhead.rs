//! A flow's send overhead: when a data packet the sender lets out leaves it.
//!
//! ns-2's TCP agents have `overhead_` to break the phase effects of drop-tail queues
//! (Floyd and Jacobson, "On traffic phase effects in packet-switched gateways", 1992).
//! The stack profile says how it applies (`SendOverhead`, tcp/profile.rs): cclab delays
//! each packet by its own draw; ns-2 delays a send decision once, and what the window lets
//! out meanwhile leaves with it.

use crate::tcp::SendOverhead;
use crate::units::SimTime;
use rand::Rng;
use rand_pcg::Pcg64;

/// The departure time of a data packet let out at `now`, `held` being the departure of the
/// flow's last packet still held back (if any); `draw` is uniform in [0, `overhead`].
pub(super) fn departure(
    mode: SendOverhead,
    now: SimTime,
    held: Option<SimTime>,
    overhead: SimTime,
    rng: &mut Pcg64,
) -> SimTime {
    match (mode, held) {
        // ns-2 `send_much()`: a delayed send is pending (`delsnd_timer_`), and everything the
        // window lets out before it fires leaves when it fires.
        (SendOverhead::DelayedSend, Some(last)) => last,
        // A fresh draw, the flow's order kept.
        (_, held) => SimTime(now.0 + rng.gen_range(0..=overhead.0)).max(held.unwrap_or(SimTime::ZERO)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const MS: u64 = 1_000_000_000; // picoseconds

    /// Departures of packets let out at 0, 0.1, ..., 0.9 ms with a 1 ms overhead, each
    /// held until its departure passes (as the simulator releases them).
    fn departures(mode: SendOverhead) -> Vec<SimTime> {
        let mut rng = Pcg64::seed_from_u64(7);
        let mut out: Vec<SimTime> = Vec::new();
        for k in 0..10 {
            let now = SimTime(k * MS / 10);
            let held = out.last().copied().filter(|&d| d > now);
            out.push(departure(mode, now, held, SimTime(MS), &mut rng));
        }
        out
    }

    #[test]
    fn ns2_sends_what_the_window_let_out_during_a_delay_together_when_it_ends() {
        let d = departures(SendOverhead::DelayedSend);
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "order kept: {d:?}");
        // Ten packets in 0.9 ms under delays of up to 1 ms: some leave together.
        let distinct = d.windows(2).filter(|w| w[0] != w[1]).count() + 1;
        assert!(distinct < 10, "{d:?}");
        // A packet let out while nothing is held waits its own draw.
        let first =
            departure(SendOverhead::DelayedSend, SimTime(5 * MS), None, SimTime(MS), &mut Pcg64::seed_from_u64(1));
        assert!(first >= SimTime(5 * MS) && first <= SimTime(6 * MS));
    }

    #[test]
    fn cclab_draws_a_delay_for_every_packet_and_keeps_the_order() {
        let d = departures(SendOverhead::PerPacket);
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "order kept: {d:?}");
        for (k, t) in d.iter().enumerate() {
            assert!(*t >= SimTime(k as u64 * MS / 10), "never before it was let out: {d:?}");
        }
        // A held packet does not pull the next one to its departure: a later draw may pass it.
        let mut rng = Pcg64::seed_from_u64(3);
        let later: Vec<SimTime> = (0..50)
            .map(|_| departure(SendOverhead::PerPacket, SimTime::ZERO, Some(SimTime(MS / 2)), SimTime(MS), &mut rng))
            .collect();
        assert!(later.iter().any(|&t| t > SimTime(MS / 2)) && later.iter().all(|&t| t >= SimTime(MS / 2)));
    }
}
