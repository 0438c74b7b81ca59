//! Python bindings: thin wrappers around `cclab-sim`, no logic of their own.
//!
//! Every call into the core is wrapped so that a Rust panic becomes a Python
//! `RuntimeError` naming it as an internal error, never a `PanicException`.
//! Long calls release the GIL.

use cclab_sim::cc::external::{collect_faults, Fault};
use cclab_sim::results::{Column, RunOutput, Table};
use cclab_sim::scenario::{Built, Scenario, ScenarioError as CoreError};
use cclab_sim::units::SimTime;
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

mod memory;
mod pycc;
mod pycc_types;
mod versions;

#[global_allocator]
static ALLOC: memory::Counting = memory::Counting;

/// Events per step of `run_until` between two checks of the memory budget: a step
/// adds at most a few packets per event, a few tens of megabytes.
const EVENTS_PER_CHECK: u64 = 200_000;

create_exception!(cclab._core, ScenarioError, PyValueError, "A scenario field failed validation.");
create_exception!(
    cclab._core,
    MemoryBudgetError,
    ScenarioError,
    "A run stopped because its memory passed the process's budget or the machine ran short of memory \
     (a queue or a sender's window that grows without bound). Runners retry it alone."
);
create_exception!(
    cclab._core,
    AlgorithmError,
    PyRuntimeError,
    "A congestion control written in Python or loaded from a plugin failed in one of its hooks; the run stopped."
);

fn scenario_err(py: Python<'_>, e: CoreError) -> PyErr {
    with_fields(py, ScenarioError::new_err(e.to_string()), e)
}

/// The error with the ScenarioError's attributes `field`, `value` and `accepted` set from `e`.
fn with_fields(py: Python<'_>, err: PyErr, e: CoreError) -> PyErr {
    let v = err.value(py);
    let _ = v.setattr("field", e.field);
    let _ = v.setattr("value", e.value);
    let _ = v.setattr("accepted", e.accepted);
    err
}

pub(crate) fn guard<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown".into());
        PyRuntimeError::new_err(format!("internal error in the cclab core (please report it): {msg}"))
    })
}

fn parse(py: Python<'_>, scenario_json: &str) -> PyResult<Scenario> {
    guard(|| Scenario::from_json(scenario_json))?.map_err(|e| scenario_err(py, e))
}

/// `sc`, checked against the memory budget before it is built.
fn fits(py: Python<'_>, sc: Scenario) -> PyResult<Scenario> {
    // Setting up a million flows takes gigabytes: refuse what this process cannot hold
    // before building it, rather than abort half-way.
    let need = cclab_sim::scenario::setup_bytes(&sc) as usize;
    if let Some(b) = memory::budget().filter(|&b| need > b) {
        return Err(scenario_err(
            py,
            CoreError::new(
                "flows",
                format!("(setting up the scenario's hosts and links needs about {:.2} GB)", need as f64 / 1e9),
                format!(
                    "a scenario that fits this process's memory budget of {:.2} GB (fewer flows, UDP sources or web \
                     hosts; CCLAB_MEMORY_LIMIT sets the budget)",
                    b as f64 / 1e9
                ),
            ),
        ));
    }
    Ok(sc)
}

/// A run stopped for memory: MemoryBudgetError (a ScenarioError on the field `run`). It says
/// what held the memory (packets waiting in queues, or the senders' records of segments sent
/// and not acknowledged, which a window opened by millions of packets fills even behind small
/// buffers) and names the remedy for that first.
fn memory_err(py: Python<'_>, what: String, built: &Built) -> PyErr {
    let now = built.sim.now();
    let h = built.sim.holdings();
    const BUFFERS: &str = "finite buffers where packets arrive faster than they leave (buffer, access_buffer, a \
                           graph link's buffer)";
    const REST: &str = "lower rates or a shorter duration; CCLAB_MEMORY_LIMIT sets the budget";
    let (held, accepted) = if h.senders_dominate() {
        let largest = h
            .largest
            .map(|(f, n)| format!(" ({n} of them {}'s)", built.sim.flows[f as usize].name))
            .unwrap_or_default();
        (
            format!(
                "the senders' windows grew to {} unacknowledged segments{largest}, {} packets queued",
                h.outstanding, h.queued
            ),
            format!("a receiver window (rwnd) that bounds them, {BUFFERS}, {REST}"),
        )
    } else {
        (
            format!("the queues grew to {} packets, {} segments unacknowledged", h.queued, h.outstanding),
            format!("{BUFFERS}, {REST}"),
        )
    };
    let e = CoreError::new("run", format!("{what} at {now} of {}: {held})", built.duration), accepted);
    with_fields(py, MemoryBudgetError::new_err(e.to_string()), e)
}

/// Why a run stopped before its end.
enum Stop {
    /// The memory budget, bytes, was passed.
    Memory(usize),
    /// The machine ran short of memory while the run held these bytes.
    MachineShort(usize),
    /// The trace's bound was reached or its pcap could not be written: (field, message).
    Trace((&'static str, String)),
}

/// One simulation, advanced in steps so Python can show progress and stay interruptible.
#[pyclass(module = "cclab._core")]
struct Sim {
    // pyo3 requires a #[pyclass] to be Sync; the core's boxed algorithms and queues are
    // only Send. Every access goes through &mut self or this lock, never contended.
    built: Mutex<Built>,
    /// The scenario as parsed, defaults of the schema filled in.
    scenario: Scenario,
    /// Bytes the run may hold (see memory.rs); `None`: no budget.
    budget: Option<usize>,
    /// The step of simulated time between two checks of the budget, adapted to the event rate.
    step: SimTime,
    /// Where the algorithms built from Python classes or plugins record a failure (pycc.rs).
    faults: Vec<Fault>,
    /// A Python algorithm runs in it: the run keeps the GIL (each hook needs it).
    python: bool,
    /// The run stopped for memory, perhaps inside an event (a burst cut short): its error,
    /// raised again by any later `run_until` rather than resume from a half-handled event.
    stopped: Option<String>,
}

/// Builds `sc` and collects what its external algorithms need: their faults, and whether one
/// is written in Python.
fn build(sc: &Scenario, seed: u64) -> (Result<Built, CoreError>, Vec<Fault>, bool) {
    pycc::BUILT_PYTHON.with(|b| b.set(false));
    let (built, faults) = collect_faults(|| sc.build(seed));
    (built, faults, pycc::BUILT_PYTHON.with(|b| b.replace(false)))
}

/// The first failure of an external algorithm, as AlgorithmError with the Python exception as
/// its cause; a KeyboardInterrupt raised inside a hook is raised as it is.
fn fault_err(py: Python<'_>, faults: &[Fault]) -> Option<PyErr> {
    let f = faults.iter().find(|f| f.is_set())?;
    let msg = f.get().unwrap_or_default();
    let cause = f.take_payload().and_then(|p| p.downcast::<PyErr>().ok()).map(|b| *b);
    if let Some(c) = &cause {
        if c.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
            return cause;
        }
    }
    let err = AlgorithmError::new_err(msg.clone());
    if let Some(c) = cause {
        err.set_cause(py, Some(c));
        // Kept for the next call: the run stays failed.
        f.set_with(msg, None);
    }
    Some(err)
}

impl Sim {
    fn built(&self) -> std::sync::MutexGuard<'_, Built> {
        self.built.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl Sim {
    /// Parses, validates and builds the scenario: the one build of a run.
    #[new]
    fn new(py: Python<'_>, scenario_json: &str, seed: u64) -> PyResult<Self> {
        let sc = fits(py, parse(py, scenario_json)?)?;
        let (built, faults, python) = py.allow_threads(|| guard(|| build(&sc, seed)))?;
        // A hook that failed while the scenario was built (set_rng) fails the build.
        if let Some(e) = fault_err(py, &faults) {
            return Err(e);
        }
        let built = built.map_err(|e| scenario_err(py, e))?;
        Ok(Sim {
            built: Mutex::new(built),
            scenario: sc,
            budget: memory::budget(),
            step: SimTime(1_000_000),
            faults,
            python,
            stopped: None,
        })
    }

    /// The scenario this simulation was built from, normalized, as JSON (what
    /// `check_scenario` returns for it).
    fn scenario_json(&self) -> PyResult<String> {
        guard(|| self.scenario.to_json())
    }

    /// Simulated duration, seconds.
    #[getter]
    fn duration(&self) -> f64 {
        self.built().duration.secs_f64()
    }

    /// Current simulated time, seconds.
    #[getter]
    fn now(&self) -> f64 {
        self.built().sim.now().secs_f64()
    }

    /// One BDP in packets on a dumbbell, else None.
    #[getter]
    fn bdp_pkts(&self) -> Option<f64> {
        self.built().bdp_pkts
    }

    #[getter]
    fn events(&self) -> u64 {
        self.built().sim.events_handled
    }

    /// Runs until `t` seconds (capped at the duration), without the GIL.
    fn run_until(&mut self, py: Python<'_>, t: f64) -> PyResult<()> {
        if !t.is_finite() || t < 0.0 {
            return Err(PyValueError::new_err(format!("run_until: t = {t}; accepted: seconds >= 0")));
        }
        if let Some(e) = fault_err(py, &self.faults) {
            return Err(e);
        }
        if let Some(msg) = &self.stopped {
            return Err(with_fields(
                py,
                MemoryBudgetError::new_err(msg.clone()),
                CoreError::new("run", "(stopped for memory)", "a new run"),
            ));
        }
        let built = self.built.get_mut().unwrap_or_else(|e| e.into_inner());
        let until = SimTime::from_secs_f64(t).min(built.duration);
        let (budget, step, faults) = (self.budget, &mut self.step, &self.faults);
        // In steps, so a queue that grows without bound stops the run before memory runs
        // out. Running to `until` in steps handles the same events in the same order as
        // one call: only events up to each step's end are taken. A failed hook of an
        // external algorithm stops it at the end of its step.
        // One event can outgrow a step (a window opened by millions of packets): past the
        // budget the allocator stops the run inside it (cclab_sim::budget).
        memory::arm(budget);
        let mut steps = || {
            guard(|| loop {
                let sim = &mut built.sim;
                let end = SimTime(sim.now().0.saturating_add(step.0)).min(until);
                let before = sim.events_handled;
                sim.run_until(end);
                let n = sim.events_handled - before;
                if n < EVENTS_PER_CHECK / 4 && step.0 < u64::MAX / 2 {
                    step.0 *= 2;
                } else if n > EVENTS_PER_CHECK {
                    step.0 = (step.0 / 2).max(1);
                }
                let live = memory::live();
                if let Some(b) = budget.filter(|&b| live > b || cclab_sim::budget::stop_requested()) {
                    return Some(Stop::Memory(b));
                }
                if live > memory::MACHINE_CHECK_FLOOR && memory::machine_short() {
                    return Some(Stop::MachineShort(live));
                }
                if let Some(e) = sim.trace_error() {
                    return Some(Stop::Trace(e));
                }
                if end >= until || faults.iter().any(|f| f.is_set()) {
                    return None;
                }
            })
        };
        // A Python algorithm needs the GIL in every hook: the run keeps it.
        let over = if self.python { steps()? } else { py.allow_threads(steps)? };
        if let Some(e) = fault_err(py, &self.faults) {
            return Err(e);
        }
        match over {
            None => Ok(()),
            Some(Stop::Trace((field, msg))) => {
                let now = built.sim.now();
                Err(scenario_err(
                    py,
                    CoreError::new(
                        field,
                        format!("{} at {now} of {})", msg.trim_end_matches(')'), built.duration),
                        "a trace within its bounds: fewer flows or links traced, a shorter duration, a larger \
                         max_records (at most 50000000), or a writable pcap path (docs/tracing.md)",
                    ),
                ))
            }
            Some(Stop::Memory(b)) => {
                let what = format!("(memory passed this process's budget of {:.2} GB", b as f64 / 1e9);
                let e = memory_err(py, what, built);
                self.stopped = Some(e.value(py).to_string());
                Err(e)
            }
            Some(Stop::MachineShort(live)) => {
                let what =
                    format!("(the machine ran short of memory (under 10 % free) with {:.2} GB held", live as f64 / 1e9);
                let e = memory_err(py, what, built);
                self.stopped = Some(e.value(py).to_string());
                Err(e)
            }
        }
    }

    /// The network as built, as JSON (cclab_sim::describe): links with their queues, flows
    /// with their resolved TCP settings. What `cclab crosscheck` translates.
    fn network(&self) -> PyResult<String> {
        let built = self.built();
        guard(|| cclab_sim::describe::describe(&built.sim).to_json())
    }

    /// The results so far, as {table: {column: array}} plus "summary": {name: value}.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let built = self.built();
        let end = built.sim.now();
        let out = guard(|| cclab_sim::results::collect(&built.sim, end))?;
        output_to_py(py, out)
    }
}

fn table_to_py<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in t.columns {
        match col {
            Column::F64(v) => d.set_item(name, v.into_pyarray(py))?,
            Column::U64(v) => d.set_item(name, v.into_pyarray(py))?,
            Column::Str(v) => d.set_item(name, PyList::new(py, v)?)?,
        }
    }
    Ok(d)
}

fn output_to_py(py: Python<'_>, out: RunOutput) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", table_to_py(py, out.flows)?)?;
    d.set_item("queues", table_to_py(py, out.queues)?)?;
    d.set_item("links", table_to_py(py, out.links)?)?;
    d.set_item("flow_series", table_to_py(py, out.flow_series)?)?;
    d.set_item("queue_series", table_to_py(py, out.queue_series)?)?;
    d.set_item("cc_series", table_to_py(py, out.cc_series)?)?;
    d.set_item("udp", table_to_py(py, out.udp)?)?;
    d.set_item("web", table_to_py(py, out.web)?)?;
    d.set_item("packets", table_to_py(py, out.packets)?)?;
    d.set_item("sender", table_to_py(py, out.sender)?)?;
    let s = PyDict::new(py);
    for (k, v) in out.summary {
        s.set_item(k, v)?;
    }
    d.set_item("summary", s)?;
    Ok(d)
}

/// Validates a scenario given as JSON; returns it normalized, as JSON.
#[pyfunction]
fn check_scenario(py: Python<'_>, scenario_json: &str, seed: u64) -> PyResult<String> {
    let sc = fits(py, parse(py, scenario_json)?)?;
    let (built, faults, _) = guard(|| build(&sc, seed))?;
    if let Some(e) = fault_err(py, &faults) {
        return Err(e);
    }
    built.map(|_| ()).map_err(|e| scenario_err(py, e))?;
    Ok(sc.to_json())
}

/// Parses a TOML scenario into JSON (field errors carry the TOML path).
#[pyfunction]
fn scenario_from_toml(py: Python<'_>, text: &str) -> PyResult<String> {
    let sc = guard(|| Scenario::from_toml(text))?.map_err(|e| scenario_err(py, e))?;
    Ok(sc.to_json())
}

/// Renders a scenario given as JSON in TOML.
#[pyfunction]
fn scenario_to_toml(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let sc = parse(py, scenario_json)?;
    guard(|| sc.to_toml())
}

/// The registered congestion-control algorithms: [(name, summary)].
#[pyfunction]
fn algorithms() -> Vec<(&'static str, &'static str)> {
    cclab_sim::cc::REGISTRY.entries().iter().map(|r| (r.name, r.summary)).collect()
}

/// Everything that can be named in a scenario, every kind from its registry: a list of
/// `{"kind", "name", "summary", "params": [{"name", "kind", "unit", "default", "accepted"}]}`.
#[pyfunction]
fn registry(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let all = guard(cclab_sim::registry::catalog)?;
    let out = PyList::empty(py);
    for d in all {
        let e = PyDict::new(py);
        e.set_item("kind", d.kind)?;
        e.set_item("name", d.name)?;
        e.set_item("summary", d.summary)?;
        let params = PyList::empty(py);
        for p in d.params {
            let q = PyDict::new(py);
            q.set_item("name", p.name.as_ref())?;
            q.set_item("kind", p.kind.as_ref())?;
            q.set_item("unit", p.unit.as_ref())?;
            q.set_item("default", p.default.as_ref())?;
            q.set_item("accepted", p.accepted.as_ref())?;
            params.append(q)?;
        }
        e.set_item("params", params)?;
        out.append(e)?;
    }
    Ok(out)
}

/// Whether `name` was registered while this process ran (a Python class or a plugin's entry).
#[pyfunction]
fn is_external(name: &str) -> bool {
    cclab_sim::cc::external::is_external(name)
}

/// Loads a plugin library's algorithms, given the address of its `cclab_plugin_entry`
/// function (found by `cclab.load_plugin` with ctypes, which keeps the library loaded).
/// Returns the names registered; a one-line ValueError names the library otherwise.
#[pyfunction]
fn load_plugin_entry(address: usize, file: &str) -> PyResult<Vec<String>> {
    if address == 0 {
        return Err(PyValueError::new_err(format!("plugin {file}: its {} symbol is null", cclab_plugin::abi::SYMBOL)));
    }
    // SAFETY: the address is the plugin's exported entry (`extern "C" fn() -> *const Table`,
    // the symbol `export!` defines), and the Python side keeps the library loaded for the life
    // of the process. A library that exports the symbol with another signature is not a cclab
    // plugin; nothing at load time can tell it apart.
    let entry: cclab_plugin::host::EntryFn =
        unsafe { std::mem::transmute::<usize, cclab_plugin::host::EntryFn>(address) };
    guard(|| unsafe { cclab_plugin::host::load(entry, file) })?.map_err(PyValueError::new_err)
}

/// The loss recoveries a flow can use.
#[pyfunction]
fn recoveries() -> Vec<&'static str> {
    vec!["reno", "newreno", "sack"]
}

/// The stack profiles a flow group can follow (`stack = ...`), the default first.
#[pyfunction]
fn stacks() -> Vec<&'static str> {
    cclab_sim::tcp::StackProfile::ALL.iter().map(|p| p.name).collect()
}

/// A scenario quantity written as text, resolved to a number and its unit: `"80ms"` ->
/// `("s", 0.08)`, `"20Mbps"` -> `("bps", 2e7)`, `"250pkts"` -> `("pkts", 250)`, `"0.5bdp"` ->
/// `("bdp", 0.5)`, `"64KB"` -> `("bytes", 64000)`, `"unlimited"` -> `("pkts", inf)`; `None` when
/// the text is none of these. The core's own parsers, so a sweep table places a parameter
/// exactly where the run put it.
#[pyfunction]
fn quantity(text: &str) -> Option<(&'static str, f64)> {
    use cclab_sim::units::{parse_buffer, parse_rate, parse_time, BufferSize};
    if let Ok(t) = parse_time(text) {
        return Some(("s", t.secs_f64()));
    }
    if let Ok(r) = parse_rate(text) {
        return Some(("bps", r.0 as f64));
    }
    match parse_buffer(text).ok()? {
        BufferSize::Packets(n) => Some(("pkts", n as f64)),
        BufferSize::Bytes(b) => Some(("bytes", b as f64)),
        BufferSize::Bdp(x) => Some(("bdp", x)),
        BufferSize::Unlimited => Some(("pkts", f64::INFINITY)),
    }
}

/// The memory budget a run built now would take, bytes (memory.rs `budget`; `None` where it
/// cannot be read): what `cclab.runner` divides among its workers.
#[pyfunction]
fn memory_budget() -> Option<usize> {
    memory::budget()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sim>()?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("AlgorithmError", m.py().get_type::<AlgorithmError>())?;
    m.add("MemoryBudgetError", m.py().get_type::<MemoryBudgetError>())?;
    m.add_class::<pycc::PyView>()?;
    m.add_class::<pycc::PyAckSample>()?;
    m.add_class::<pycc::PyRateSample>()?;
    m.add_class::<pycc::PyCongControl>()?;
    m.add_class::<pycc::PyObservation>()?;
    m.add_function(wrap_pyfunction!(pycc::register_python_cc, m)?)?;
    m.add_function(wrap_pyfunction!(pycc::optional_hooks, m)?)?;
    m.add_function(wrap_pyfunction!(is_external, m)?)?;
    m.add_function(wrap_pyfunction!(load_plugin_entry, m)?)?;
    m.add("PLUGIN_SYMBOL", cclab_plugin::abi::SYMBOL)?;
    m.add("PLUGIN_ABI_VERSION", cclab_plugin::abi::ABI_VERSION)?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(recoveries, m)?)?;
    m.add_function(wrap_pyfunction!(stacks, m)?)?;
    m.add_function(wrap_pyfunction!(memory_budget, m)?)?;
    versions::register(m)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RESULT_VERSION", cclab_sim::RESULT_VERSION)?;
    // "plain", "profiled" (built from a profile: tools/pgo_build.py) or "instrumented" (build.rs).
    m.add("BUILD", env!("CCLAB_BUILD_KIND"))?;
    Ok(())
}
