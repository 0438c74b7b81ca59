//! Random streams. One master seed; every random source derives its own
//! stream from it and a fixed stream number, so adding a source never shifts
//! the numbers another source sees, and results are the same on any machine.

use rand_pcg::Pcg64;

/// Stream numbers of the random sources, fixed so results stay comparable across versions.
pub mod stream {
    /// Flow start times drawn in a window.
    pub const FLOW_START: u64 = 1;
    /// Per-flow random send overhead (index: flow).
    pub const SEND_OVERHEAD: u64 = 2;
    /// RED's early-drop decisions (index: link).
    pub const RED: u64 = 3;
    /// Random loss on a link (index: link).
    pub const LINK_LOSS: u64 = 4;
    /// Web traffic (index 0: hosts' access links, 1: the schedule).
    pub const WEB: u64 = 5;
    /// UDP on/off periods (index: UDP source).
    pub const UDP: u64 = 6;
    /// A TCP agent's clock phase under the ns2 profile (ns-2 `boot_time_`; index: flow).
    pub const TCP_CLOCK: u64 = 7;
    /// A congestion control's own draws, as BBR's first gain-cycle phase (index: flow; web
    /// objects from 2^32 + object).
    pub const CC: u64 = 8;
    /// FQ-CoDel's hash perturbation (index: link).
    pub const FQ_CODEL: u64 = 9;
    /// PIE's drop decisions (index: link).
    pub const PIE: u64 = 10;
    /// DualPI2's drop and mark decisions (index: link).
    pub const DUALPI2: u64 = 11;
    /// A link's per-packet delay jitter (index: link).
    pub const LINK_JITTER: u64 = 12;
}

/// SplitMix64's finalizer: a well-mixed 64-bit function of `z` (also FQ-CoDel's flow hash).
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator of stream `stream` (optionally for one component `index`) under `seed`.
pub fn stream_rng(seed: u64, stream: u64, index: u64) -> Pcg64 {
    let a = splitmix64(seed ^ splitmix64(stream.wrapping_mul(0x1000_0000_01B3) ^ index));
    let b = splitmix64(a ^ 0xD1B5_4A32_D192_ED03);
    Pcg64::new(((a as u128) << 64) | b as u128, ((stream as u128) << 64) | index as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_seed_same_numbers_other_seed_or_stream_other_numbers() {
        let a: Vec<u64> = (0..4).map(|_| 0).scan(stream_rng(7, 1, 0), |r, _| Some(r.gen())).collect();
        let b: Vec<u64> = (0..4).map(|_| 0).scan(stream_rng(7, 1, 0), |r, _| Some(r.gen())).collect();
        let c: Vec<u64> = (0..4).map(|_| 0).scan(stream_rng(8, 1, 0), |r, _| Some(r.gen())).collect();
        let d: Vec<u64> = (0..4).map(|_| 0).scan(stream_rng(7, 2, 0), |r, _| Some(r.gen())).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
