//! UDP sources: constant bit rate, or on/off with exponentially distributed
//! on and off periods sending at the rate while on (ns-2's
//! `Application/Traffic/CBR` and `Application/Traffic/Exponential`).
//! No congestion control: background load.

use super::dist::Dist;
use crate::cc::CcHeader;
use crate::packet::{Kind, Packet, SackBlock};
use crate::units::SimTime;
use rand_pcg::Pcg64;

pub struct UdpFlow {
    pub name: String,
    pub group: String,
    pub path: Vec<u32>,
    /// Packet size on the wire, bytes.
    pub size: u32,
    /// Time between packets while sending.
    pub interval: SimTime,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// Exponential on and off periods, if an on/off source.
    pub on_off: Option<(Dist, Dist)>,
    pub rng: Pcg64,
    /// End of the current on period.
    pub on_until: SimTime,
    pub seq: u64,
    pub sent: u64,
    pub received: u64,
    pub received_bytes: u64,
    pub drops: u64,
}

impl UdpFlow {
    /// The packet to send now.
    pub fn packet(&mut self, id: u32, now: SimTime) -> Packet {
        self.sent += 1;
        self.seq += 1;
        Packet {
            seq: self.seq,
            ts_val: now,
            ts_ecr: SimTime::ZERO,
            sack: [SackBlock::default(); 3],
            cc: CcHeader::default(),
            flow: id,
            size: self.size,
            hop: 0,
            kind: Kind::Udp,
            n_sack: 0,
            retx: false,
            flags: 0,
        }
    }

    /// When the next packet leaves after one sent at `now`, or `None` when done.
    pub fn next_send(&mut self, now: SimTime) -> Option<SimTime> {
        let mut t = now + self.interval;
        if let Some((on, off)) = self.on_off {
            if t >= self.on_until {
                // Off, then a new on period.
                let idle = SimTime::from_secs_f64(off.sample(&mut self.rng));
                t = self.on_until + idle;
                self.on_until = t + SimTime::from_secs_f64(on.sample(&mut self.rng));
            }
        }
        match self.stop {
            Some(s) if t >= s => None,
            _ => Some(t),
        }
    }

    /// Starts the first on period (on/off sources) at `now`.
    pub fn begin(&mut self, now: SimTime) {
        if let Some((on, _)) = self.on_off {
            self.on_until = now + SimTime::from_secs_f64(on.sample(&mut self.rng));
        }
    }
}
