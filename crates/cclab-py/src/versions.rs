//! The versions a stored run's key holds besides `RESULT_VERSION` (python/cclab/store.py): each
//! stack profile's, its send overhead's, each queue variant's, and that of the flows whose
//! algorithm sets the window from rate samples (`CONG_CONTROL_VERSION`).

use pyo3::prelude::*;
use std::collections::BTreeMap;

/// Each stack profile's result version (`StackProfile::version`), by name: part of the key
/// of a cached run that names the stack.
#[pyfunction]
fn stack_versions() -> BTreeMap<&'static str, u32> {
    cclab_sim::tcp::StackProfile::ALL.iter().map(|p| (p.name, p.version)).collect()
}

/// Each queue variant's result version (`queue::VARIANT_VERSIONS`), by name: part of the key
/// of a cached run with a queue of that variant.
#[pyfunction]
fn queue_versions() -> BTreeMap<&'static str, u32> {
    cclab_sim::queue::VARIANT_VERSIONS.iter().copied().collect()
}

/// Whether the algorithm `name` with `params` sets the window from rate samples (its results
/// then follow `CONG_CONTROL_VERSION` too); `False` for one that does not build.
#[pyfunction]
#[pyo3(signature = (name, params = None))]
fn uses_rate_samples(name: &str, params: Option<BTreeMap<String, f64>>) -> PyResult<bool> {
    crate::guard(|| cclab_sim::cc::uses_rate_samples(name, &params.unwrap_or_default()))
}

/// Each stack profile's version of the results of runs with a send overhead
/// (`StackProfile::overhead_version`), by name, for the profiles that have one: part of the
/// key of a cached run that names the stack and gives its flows an overhead.
#[pyfunction]
fn stack_overhead_versions() -> BTreeMap<&'static str, u32> {
    cclab_sim::tcp::StackProfile::ALL
        .iter()
        .filter(|p| p.overhead_version > 0)
        .map(|p| (p.name, p.overhead_version))
        .collect()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stack_versions, m)?)?;
    m.add_function(wrap_pyfunction!(stack_overhead_versions, m)?)?;
    m.add_function(wrap_pyfunction!(queue_versions, m)?)?;
    m.add_function(wrap_pyfunction!(uses_rate_samples, m)?)?;
    m.add("CONG_CONTROL_VERSION", cclab_sim::tcp::CONG_CONTROL_VERSION)?;
    Ok(())
}
