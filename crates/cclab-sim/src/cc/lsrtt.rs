//! LSRTT: an RTT average that restarts when a log-likelihood-ratio test finds the
//! RTT's level has changed, so that it follows the RTT's shape (a rising queue)
//! without the lag of an exponential average and without chasing noise.
//!
//! Paper 003 uses "a smoothed RTT using log-likelihood (LSRTT)" and cites Ngwenya and
//! Hancke (SATNAC 2004) for it; that paper could not be found, so this is a
//! reconstruction from the name and the standard method it names (a CUSUM of the
//! Gaussian log-likelihood ratio, Page 1954; Basseville and Nikiforov 1993, ch. 2):
//!
//! - The estimate `m` is the mean of the samples since the last detected change.
//! - Each sample `x` gives, for a shift of the mean by `±ν` against no shift, with
//!   Gaussian noise of deviation `σ`, the log-likelihood ratio
//!   `s± = (ν / σ²) · (±(x − m) − ν / 2)`; the two one-sided sums
//!   `g± ← max(0, g± + s±)` (Page's CUSUM) test for a rise and a fall.
//! - When `g+` or `g−` exceeds `h`, the level has changed; the estimate restarts from
//!   the samples since that sum last left zero (the maximum-likelihood change time),
//!   and both sums restart from zero.
//!
//! `ν` and `σ` are fractions of the first sample (RTTs are compared relative to their
//! size). With the defaults (`ν` = 1 %, `σ` = 0.5 %, `h` = 5) a sustained shift of 5 %
//! is detected on its first sample, of 1 % in three, and noise below `ν/2` = 0.5 %
//! never moves the estimate off the mean.

/// Parameters of the change detector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LsrttConfig {
    /// Smallest change of level to detect, fraction of the first RTT sample.
    pub shift: f64,
    /// Deviation of the RTT noise, fraction of the first RTT sample.
    pub sigma: f64,
    /// Detection threshold on the log-likelihood ratio (nats).
    pub threshold: f64,
}

impl Default for LsrttConfig {
    fn default() -> Self {
        LsrttConfig { shift: 0.01, sigma: 0.005, threshold: 5.0 }
    }
}

/// Running sum and count of samples.
#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    sum: f64,
    n: u64,
}

impl Segment {
    fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }

    fn mean(&self) -> f64 {
        self.sum / self.n as f64
    }
}

/// Log-likelihood change-detection smoothed RTT.
#[derive(Clone, Debug)]
pub struct Lsrtt {
    cfg: LsrttConfig,
    /// Scale of `shift` and `sigma`, seconds (the first sample; zero before it).
    scale: f64,
    /// Samples since the last detected change.
    seg: Segment,
    /// CUSUM for a rise, and the samples since it last left zero.
    g_up: f64,
    up: Segment,
    /// CUSUM for a fall, and the samples since it last left zero.
    g_down: f64,
    down: Segment,
    /// Changes detected so far.
    pub changes: u64,
}

/// `s = (ν / σ²) · (e − ν / 2)`: log-likelihood ratio of a shift `ν` for a residual `e`
/// under Gaussian noise of deviation `σ`.
pub fn llr(e: f64, shift: f64, sigma: f64) -> f64 {
    shift / (sigma * sigma) * (e - shift / 2.0)
}

impl Lsrtt {
    pub fn new(cfg: LsrttConfig) -> Self {
        Lsrtt {
            cfg,
            scale: 0.0,
            seg: Segment::default(),
            g_up: 0.0,
            up: Segment::default(),
            g_down: 0.0,
            down: Segment::default(),
            changes: 0,
        }
    }

    /// The estimate, seconds (zero before the first sample).
    pub fn value(&self) -> f64 {
        if self.seg.n == 0 {
            0.0
        } else {
            self.seg.mean()
        }
    }

    /// Takes one RTT sample, seconds.
    pub fn sample(&mut self, x: f64) {
        if self.seg.n == 0 {
            self.scale = x;
            self.seg.add(x);
            return;
        }
        let m = self.seg.mean();
        let (nu, sigma) = (self.cfg.shift * self.scale, self.cfg.sigma * self.scale);
        let e = x - m;
        self.g_up = cusum_step(self.g_up, &mut self.up, llr(e, nu, sigma), x);
        self.g_down = cusum_step(self.g_down, &mut self.down, llr(-e, nu, sigma), x);
        let restart = if self.g_up > self.cfg.threshold {
            Some(self.up)
        } else if self.g_down > self.cfg.threshold {
            Some(self.down)
        } else {
            None
        };
        match restart {
            Some(s) => {
                self.seg = s;
                self.g_up = 0.0;
                self.g_down = 0.0;
                self.up = Segment::default();
                self.down = Segment::default();
                self.changes += 1;
            }
            None => self.seg.add(x),
        }
    }
}

/// One step of Page's CUSUM `g ← max(0, g + s)`, keeping the samples since `g` left zero.
fn cusum_step(g: f64, since: &mut Segment, s: f64, x: f64) -> f64 {
    let g = g + s;
    if g <= 0.0 {
        *since = Segment::default();
        0.0
    } else {
        since.add(x);
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(xs: &[f64]) -> Lsrtt {
        let mut l = Lsrtt::new(LsrttConfig::default());
        for &x in xs {
            l.sample(x);
        }
        l
    }

    #[test]
    fn the_log_likelihood_ratio_of_a_one_per_cent_shift_is_400_per_unit_of_excess() {
        // ν = 0.01, σ = 0.005: ν/σ² = 400; a residual of 0.05 gives 400 · (0.05 − 0.005) = 18.
        assert!((llr(0.05, 0.01, 0.005) - 18.0).abs() < 1e-9);
        assert!(llr(0.004, 0.01, 0.005) < 0.0);
    }

    #[test]
    fn a_constant_series_is_its_own_estimate() {
        let l = run(&[0.08; 50]);
        assert!((l.value() - 0.08).abs() < 1e-15);
        assert_eq!(l.changes, 0);
    }

    #[test]
    fn noise_below_half_the_shift_is_averaged_not_followed() {
        // 80 ms ± 0.3 ms (0.375 %, below ν/2 = 0.5 %): the estimate is the mean, 80 ms.
        let xs: Vec<f64> = (0..40).map(|i| if i % 2 == 0 { 0.0803 } else { 0.0797 }).collect();
        let l = run(&xs);
        assert_eq!(l.changes, 0);
        assert!((l.value() - 0.080).abs() < 1e-12, "{}", l.value());
    }

    #[test]
    fn a_step_of_five_per_cent_restarts_the_estimate_at_the_new_level() {
        // 80 ms, then 84 ms. Scale 80 ms: ν = 0.8 ms, σ = 0.4 ms, ν/σ² = 5000 per second.
        // The first 84 ms sample: s = 5000 · (0.004 − 0.0004) = 18 > 5: a change; the
        // estimate restarts from that sample alone.
        let mut xs = vec![0.080; 10];
        xs.push(0.084);
        let l = run(&xs);
        assert_eq!(l.changes, 1);
        assert!((l.value() - 0.084).abs() < 1e-12);
        // Further 84 ms samples keep it there.
        let mut l = l;
        for _ in 0..5 {
            l.sample(0.084);
        }
        assert!((l.value() - 0.084).abs() < 1e-12);
        assert_eq!(l.changes, 1);
    }

    #[test]
    fn a_one_per_cent_rise_is_found_on_its_fourth_sample_and_averaged_from_its_start() {
        // 80.8 ms after ten samples of 80 ms; ν/σ² = 5000 per second, ν/2 = 0.4 ms. The mean
        // creeps up as the samples are averaged in, so each adds a little less:
        // s = 5000 · (0.8 − 0.4) ms = 2, then 5000 · (0.727 − 0.4) ms = 1.64, then
        // 5000 · (0.667 − 0.4) ms = 1.33 (g = 4.97 < 5), then 5000 · (0.615 − 0.4) ms = 1.08.
        let mut xs = vec![0.080; 10];
        xs.extend([0.0808; 3]);
        let mut l = run(&xs);
        assert_eq!(l.changes, 0);
        assert!((l.value() - (0.8 + 3.0 * 0.0808) / 13.0).abs() < 1e-12);
        l.sample(0.0808);
        assert_eq!(l.changes, 1);
        // The restart keeps the four samples since the sum left zero: all 80.8 ms.
        assert!((l.value() - 0.0808).abs() < 1e-12, "{}", l.value());
    }

    #[test]
    fn a_fall_is_followed_as_a_rise_is() {
        let mut xs = vec![0.090; 10];
        xs.extend([0.080; 3]);
        let l = run(&xs);
        assert_eq!(l.changes, 1);
        assert!((l.value() - 0.080).abs() < 1e-12);
    }
}
