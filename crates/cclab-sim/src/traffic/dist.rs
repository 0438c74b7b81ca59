//! Random distributions for traffic models, as ns-2's `RandomVariable`s:
//! constant, uniform, exponential, and Pareto given by its mean and shape.

use rand::Rng;
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

/// A distribution as written in a scenario: `{ dist = "pareto", mean = 12000, shape = 1.2 }`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistSpec {
    /// "constant", "uniform", "exponential" or "pareto".
    pub dist: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dist {
    Constant(f64),
    Uniform(f64, f64),
    Exponential {
        mean: f64,
    },
    /// Pareto with the given mean and shape (> 1): scale = mean (shape − 1)/shape,
    /// x = scale / U^(1/shape), as ns-2's `RandomVariable/Pareto`.
    Pareto {
        mean: f64,
        shape: f64,
    },
}

impl Dist {
    pub fn sample(&self, rng: &mut Pcg64) -> f64 {
        match *self {
            Dist::Constant(v) => v,
            Dist::Uniform(lo, hi) => lo + (hi - lo) * rng.gen::<f64>(),
            Dist::Exponential { mean } => -mean * (1.0 - rng.gen::<f64>()).ln(),
            Dist::Pareto { mean, shape } => {
                let scale = mean * (shape - 1.0) / shape;
                // 1 - U lies in (0, 1], so the power is finite.
                scale / (1.0 - rng.gen::<f64>()).powf(1.0 / shape)
            }
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Constant(v) => v,
            Dist::Uniform(lo, hi) => (lo + hi) / 2.0,
            Dist::Exponential { mean } | Dist::Pareto { mean, .. } => mean,
        }
    }
}

/// Why a distribution spec is not valid: (sub-field, value, accepted).
pub type DistError = (String, String, String);

impl DistSpec {
    /// Checks the spec; every value must lie in `[lo, ∞)`.
    pub fn resolve(&self, lo: f64) -> Result<Dist, DistError> {
        let need = |name: &str, v: Option<f64>| -> Result<f64, DistError> {
            match v {
                Some(x) if x.is_finite() && x >= lo => Ok(x),
                Some(x) => Err((name.into(), x.to_string(), format!("a number >= {lo}"))),
                None => {
                    Err((name.into(), "(missing)".into(), format!("a number >= {lo} for dist = \"{}\"", self.dist)))
                }
            }
        };
        let unused = |names: &[(&str, Option<f64>)]| -> Result<(), DistError> {
            for (n, v) in names {
                if v.is_some() {
                    return Err(((*n).into(), v.unwrap().to_string(), format!("no {n} for dist = \"{}\"", self.dist)));
                }
            }
            Ok(())
        };
        match self.dist.as_str() {
            "constant" => {
                unused(&[("mean", self.mean), ("shape", self.shape), ("min", self.min), ("max", self.max)])?;
                Ok(Dist::Constant(need("value", self.value)?))
            }
            "uniform" => {
                unused(&[("mean", self.mean), ("shape", self.shape), ("value", self.value)])?;
                let (a, b) = (need("min", self.min)?, need("max", self.max)?);
                if b < a {
                    return Err(("max".into(), b.to_string(), format!("a number >= min ({a})")));
                }
                Ok(Dist::Uniform(a, b))
            }
            "exponential" => {
                unused(&[("value", self.value), ("shape", self.shape), ("min", self.min), ("max", self.max)])?;
                Ok(Dist::Exponential { mean: need("mean", self.mean)? })
            }
            "pareto" => {
                unused(&[("value", self.value), ("min", self.min), ("max", self.max)])?;
                let mean = need("mean", self.mean)?;
                let shape = self.shape.ok_or(("shape".into(), "(missing)".into(), "a number > 1".into()))?;
                if !(shape > 1.0 && shape.is_finite()) {
                    return Err((
                        "shape".into(),
                        shape.to_string(),
                        "a number > 1 (the mean is infinite otherwise)".into(),
                    ));
                }
                Ok(Dist::Pareto { mean, shape })
            }
            other => Err(("dist".into(), other.into(), "constant, uniform, exponential, pareto".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    fn sample_mean(d: Dist, n: usize) -> f64 {
        let mut r = stream_rng(1, 77, 0);
        (0..n).map(|_| d.sample(&mut r)).sum::<f64>() / n as f64
    }

    #[test]
    fn exponential_and_uniform_sample_means_match() {
        assert!((sample_mean(Dist::Exponential { mean: 4.0 }, 200_000) - 4.0).abs() < 0.05);
        assert!((sample_mean(Dist::Uniform(10.0, 20.0), 200_000) - 15.0).abs() < 0.05);
    }

    #[test]
    fn pareto_has_the_stated_mean_and_minimum() {
        // Shape 2 has finite variance, so the sample mean converges reasonably.
        let d = Dist::Pareto { mean: 10.0, shape: 2.0 };
        assert!((sample_mean(d, 400_000) - 10.0).abs() < 0.3);
        let mut r = stream_rng(1, 77, 1);
        assert!((0..10_000).all(|_| d.sample(&mut r) >= 5.0));
    }

    #[test]
    fn specs_name_the_bad_sub_field() {
        let s = DistSpec { dist: "pareto".into(), mean: Some(3000.0), shape: Some(1.0), ..Default::default() };
        assert_eq!(s.resolve(0.0).unwrap_err().0, "shape");
        let s = DistSpec { dist: "normal".into(), ..Default::default() };
        assert_eq!(s.resolve(0.0).unwrap_err().0, "dist");
        let s = DistSpec { dist: "constant".into(), value: Some(3.0), mean: Some(1.0), ..Default::default() };
        assert_eq!(s.resolve(0.0).unwrap_err().0, "mean");
    }
}
