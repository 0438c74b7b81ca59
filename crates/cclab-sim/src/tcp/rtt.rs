//! Round-trip time estimation and the retransmission timeout, RFC 6298.

use super::rto_linux::LinuxRto;
use super::rto_ns2::Ns2Rto;
use crate::units::SimTime;

#[derive(Clone, Copy, Debug)]
pub struct RtoConfig {
    /// Lower bound on the RTO (RFC 6298 (2.4) says 1 s; ns-2's and Linux's practice is 200 ms).
    pub min: SimTime,
    /// RTO before the first sample (RFC 6298 (2.1)).
    pub initial: SimTime,
    /// Upper bound after backoff (RFC 6298 (2.5)).
    pub max: SimTime,
    /// Clock granularity G (RFC 6298 (2.2)).
    pub granularity: SimTime,
    /// ns-2's integer-tick estimator with this tick (rto_ns2.rs) instead of RFC 6298's.
    pub ns2_tick: Option<SimTime>,
    /// Where the agent's tick boundaries fall, in [0, tick) (ns-2's `boot_time_`, drawn per
    /// flow from its own random stream; see rto_ns2.rs).
    pub ns2_boot: SimTime,
    /// Linux's estimator (rto_linux.rs) instead of RFC 6298's: `min` bounds the variance
    /// term, not the timeout.
    pub linux: bool,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            min: SimTime::from_millis(200),
            initial: SimTime::from_millis(1000),
            max: SimTime::from_millis(60_000),
            granularity: SimTime::from_millis(1),
            ns2_tick: None,
            ns2_boot: SimTime::ZERO,
            linux: false,
        }
    }
}

/// SRTT, RTTVAR and the RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RtoConfig,
    /// Smoothed RTT, seconds (zero before the first sample).
    srtt: f64,
    rttvar: f64,
    /// The RTO before backoff.
    rto: SimTime,
    /// Number of consecutive timeouts; the RTO is doubled this many times.
    pub backoff: u32,
    /// Smallest sample seen.
    pub rtt_min: SimTime,
    /// Most recent sample.
    pub latest: SimTime,
    pub samples: u64,
    /// Sum of samples, seconds (for the mean).
    pub sum: f64,
    pub rtt_max: SimTime,
    /// ns-2's estimator, which then sets the timeout (`RtoConfig::ns2_tick`).
    ns2: Option<Ns2Rto>,
    /// Linux's estimator, which then sets the timeout (`RtoConfig::linux`).
    linux: Option<LinuxRto>,
}

const ALPHA: f64 = 1.0 / 8.0;
const BETA: f64 = 1.0 / 4.0;
const K: f64 = 4.0;

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RttEstimator {
            cfg,
            srtt: 0.0,
            rttvar: 0.0,
            rto: cfg.initial,
            backoff: 0,
            rtt_min: SimTime::ZERO,
            latest: SimTime::ZERO,
            samples: 0,
            sum: 0.0,
            rtt_max: SimTime::ZERO,
            ns2: cfg.ns2_tick.map(|t| Ns2Rto::new(t.secs_f64(), cfg.initial.secs_f64(), cfg.ns2_boot.secs_f64())),
            linux: cfg.linux.then(|| LinuxRto::new((cfg.min.0 / 1_000_000) as i64)),
        }
    }

    /// One measurement `r` taken at `now` on an ACK that leaves snd_una at `una` with
    /// snd_nxt at `nxt` (ns-2's estimator counts the tick boundaries since the segment
    /// left; Linux's decays its variance once per round of sequence numbers).
    pub fn sample_at(&mut self, r: SimTime, now: SimTime, una: u64, nxt: u64) {
        self.sample(r);
        if let Some(n) = &mut self.ns2 {
            n.sample(r.secs_f64(), now.saturating_sub(r).secs_f64());
        }
        if let Some(l) = &mut self.linux {
            l.sample((r.0 / 1_000_000) as i64, una, nxt);
        }
    }

    /// The retransmission timer fired: one more doubling.
    pub fn on_timeout(&mut self) {
        self.backoff += 1;
        if let Some(n) = &mut self.ns2 {
            n.on_backoff(self.backoff);
        }
    }

    /// Takes one RTT measurement (RFC 6298 (2.2), (2.3)); clears the backoff.
    pub fn sample(&mut self, r: SimTime) {
        let rs = r.secs_f64();
        if self.samples == 0 {
            self.srtt = rs;
            self.rttvar = rs / 2.0;
            self.rtt_min = r;
        } else {
            self.rttvar = (1.0 - BETA) * self.rttvar + BETA * (self.srtt - rs).abs();
            self.srtt = (1.0 - ALPHA) * self.srtt + ALPHA * rs;
            self.rtt_min = self.rtt_min.min(r);
        }
        self.samples += 1;
        self.sum += rs;
        self.latest = r;
        self.rtt_max = self.rtt_max.max(r);
        let var = (K * self.rttvar).max(self.cfg.granularity.secs_f64());
        self.rto = SimTime::from_secs_f64(self.srtt + var).max(self.cfg.min).min(self.cfg.max);
        self.backoff = 0;
    }

    /// The current timeout, with backoff (RFC 6298 (5.5)).
    pub fn rto(&self) -> SimTime {
        if let Some(n) = &self.ns2 {
            return SimTime::from_secs_f64(n.timeout(self.backoff, self.cfg.min.secs_f64(), self.cfg.max.secs_f64()));
        }
        let mut t = match &self.linux {
            // Before the first sample Linux too holds the initial RTO (TCP_TIMEOUT_INIT).
            Some(l) if self.samples > 0 => SimTime::from_secs_f64(l.rto()).min(self.cfg.max),
            _ => self.rto,
        };
        for _ in 0..self.backoff {
            t = SimTime(t.0.saturating_mul(2));
            if t >= self.cfg.max {
                return self.cfg.max;
            }
        }
        t
    }

    /// RTTVAR (RFC 6298), seconds.
    pub fn rttvar(&self) -> f64 {
        self.rttvar
    }

    pub fn srtt(&self) -> SimTime {
        SimTime::from_secs_f64(self.srtt)
    }

    pub fn mean(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum / self.samples as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(RtoConfig { min: SimTime::ZERO, ..Default::default() });
        e.sample(SimTime::from_millis(100));
        assert_eq!(e.srtt(), SimTime::from_millis(100));
        // RTO = SRTT + 4 * RTTVAR = 100 + 4 * 50 ms.
        assert_eq!(e.rto(), SimTime::from_millis(300));
    }

    #[test]
    fn later_samples_are_smoothed_with_one_eighth_and_one_quarter() {
        let mut e = RttEstimator::new(RtoConfig { min: SimTime::ZERO, ..Default::default() });
        e.sample(SimTime::from_millis(100));
        e.sample(SimTime::from_millis(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5 ms; SRTT = 7/8*100 + 1/8*200 = 112.5 ms.
        assert!((e.srtt().secs_f64() - 0.1125).abs() < 1e-12);
        assert!((e.rto().secs_f64() - (0.1125 + 0.25)).abs() < 1e-9);
    }

    #[test]
    fn rto_is_clamped_to_its_minimum_and_doubles_on_backoff() {
        let mut e = RttEstimator::new(RtoConfig::default());
        e.sample(SimTime::from_millis(10));
        assert_eq!(e.rto(), SimTime::from_millis(200));
        e.backoff = 2;
        assert_eq!(e.rto(), SimTime::from_millis(800));
        e.backoff = 30;
        assert_eq!(e.rto(), SimTime::from_millis(60_000));
    }

    #[test]
    fn linuxs_estimator_holds_the_initial_timeout_until_its_first_sample() {
        let mut e = RttEstimator::new(RtoConfig { linux: true, ..Default::default() });
        assert_eq!(e.rto(), SimTime::from_millis(1000), "TCP_TIMEOUT_INIT, not 0 from an empty estimator");
        e.on_timeout();
        assert_eq!(e.rto(), SimTime::from_millis(2000));
        e.sample_at(SimTime::from_millis(100), SimTime::from_millis(3000), 10, 20);
        assert_eq!(e.rto(), SimTime::from_millis(300), "3 x the first sample");
    }
}
