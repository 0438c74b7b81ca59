//! A flow's send overhead under cclab's own profile (`SendOverhead::PerPacket`): each data
//! packet the sender lets out leaves after its own uniform draw in [0, overhead], the
//! flow's order kept. (ns-2's delayed send, the `ns2` profile's, waits in the sender:
//! tcp/delayed_send.rs.)

use crate::units::SimTime;
use rand::Rng;
use rand_pcg::Pcg64;

/// The departure time of a data packet let out at `now`, `held` being the departure of the
/// flow's last packet still held back (if any): a fresh draw, the flow's order kept.
pub(super) fn departure(now: SimTime, held: Option<SimTime>, overhead: SimTime, rng: &mut Pcg64) -> SimTime {
    SimTime(now.0 + rng.gen_range(0..=overhead.0)).max(held.unwrap_or(SimTime::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const MS: u64 = 1_000_000_000; // picoseconds

    #[test]
    fn cclab_draws_a_delay_for_every_packet_and_keeps_the_order() {
        let mut rng = Pcg64::seed_from_u64(7);
        let mut d: Vec<SimTime> = Vec::new();
        for k in 0..10 {
            let now = SimTime(k * MS / 10);
            let held = d.last().copied().filter(|&t| t > now);
            d.push(departure(now, held, SimTime(MS), &mut rng));
        }
        assert!(d.windows(2).all(|w| w[0] <= w[1]), "order kept: {d:?}");
        for (k, t) in d.iter().enumerate() {
            assert!(*t >= SimTime(k as u64 * MS / 10), "never before it was let out: {d:?}");
        }
        // A held packet does not pull the next one to its departure: a later draw may pass it.
        let mut rng = Pcg64::seed_from_u64(3);
        let later: Vec<SimTime> =
            (0..50).map(|_| departure(SimTime::ZERO, Some(SimTime(MS / 2)), SimTime(MS), &mut rng)).collect();
        assert!(later.iter().any(|&t| t > SimTime(MS / 2)) && later.iter().all(|&t| t >= SimTime(MS / 2)));
    }
}
