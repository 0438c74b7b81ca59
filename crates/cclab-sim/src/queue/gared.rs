//! gARED, gentle Adaptive RED: paper 004, section 4.3 (Fig. 8).
//!
//! Adaptive RED moves `max_p` whenever the average queue is outside its
//! target range, even while the average is already returning to it; this
//! overshoots (paper 004, Fig. 7). gARED looks at the trend of the average
//! between two adaptation intervals:
//!
//! - above the target and rising: `max_p += min(alpha, max_p/4)`, up to `top`;
//! - between `min_th` and the target and falling: `max_p *= beta`;
//! - otherwise (inside the target, below `min_th`, or moving back towards the
//!   target): unchanged.
//!
//! There is no lower bound on `max_p` (the paper: it is "determined
//! automatically based on min_th"). Everything else is RED/ARED (`red.rs`):
//! thresholds, weight, interval (0.5 s), alpha (0.01), beta (0.9), top (0.5).
//!
//! Choices where the paper is silent: "target" in the increase rule is the
//! upper end of ARED's target range and in the decrease rule its lower end
//! (the paper's text: "within target queue ... no change").

use super::ared;
use super::red::{self, Adapt, RedConfig};
use super::{QueueDisc, QueueSettings};
use crate::registry::{ParamError, Params};

/// The registry's constructor for `queue = "gared"`.
pub fn build(s: &QueueSettings, params: &Params) -> Result<Box<dyn QueueDisc>, ParamError> {
    red::build(Adapt::Gared, s, params)
}

/// The new `max_p` after one interval (paper 004, Fig. 8).
pub fn update(max_p: f64, avg: f64, old_avg: f64, min_th: f64, target_lo: f64, target_hi: f64, c: &RedConfig) -> f64 {
    if avg > target_hi && avg > old_avg && max_p < c.top {
        ared::increase(max_p, c)
    } else if min_th < avg && avg < target_lo && avg < old_avg {
        max_p * c.beta
    } else {
        max_p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_cases_of_paper_004_fig_8() {
        let c = RedConfig::red(); // min_th 5, max_th 15: target [9, 11]
        let (lo, hi) = c.target();
        // 1. above target and rising: increase by min(0.01, p/4).
        assert!((update(0.1, 12.0, 11.5, 5.0, lo, hi, &c) - 0.11).abs() < 1e-12);
        // 2. above target but falling: unchanged (ARED would increase).
        assert_eq!(update(0.1, 12.0, 12.5, 5.0, lo, hi, &c), 0.1);
        // 3. between min_th and target, falling: decrease by beta.
        assert!((update(0.1, 7.0, 8.0, 5.0, lo, hi, &c) - 0.09).abs() < 1e-12);
        // 4. between min_th and target but rising, inside target, or below min_th: unchanged.
        assert_eq!(update(0.1, 7.0, 6.0, 5.0, lo, hi, &c), 0.1);
        assert_eq!(update(0.1, 10.0, 12.0, 5.0, lo, hi, &c), 0.1);
        assert_eq!(update(0.1, 4.0, 4.5, 5.0, lo, hi, &c), 0.1);
    }

    #[test]
    fn max_p_has_no_lower_bound_but_stops_at_top() {
        let c = RedConfig::red();
        let (lo, hi) = c.target();
        let mut p = 0.011;
        for _ in 0..10 {
            p = update(p, 7.0, 8.0, 5.0, lo, hi, &c);
        }
        assert!(p < 0.005, "{p}");
        assert_eq!(update(0.5, 20.0, 19.0, 5.0, lo, hi, &c), 0.5);
    }
}
