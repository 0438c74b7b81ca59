//! A congestion control written in Python: the class registered by `cclab.register_cc`,
//! called from the core through the `CongestionControl` trait (cclab_sim::cc::external).
//!
//! - The hooks and their arguments mirror the trait one to one (`ssthresh(v)`,
//!   `cong_avoid(v, acked)`, `pkts_acked(v, sample)`, ...), with the sender's view, the ACK
//!   sample and the rate sample as small frozen objects whose times are seconds and rates
//!   bits per second. Only the hooks the class defines are called (the Python side tells which
//!   at registration), so an ACK-clocked class costs two Python calls per ACK.
//! - The GIL: a simulation that holds a Python algorithm runs with the GIL held (lib.rs), so
//!   each hook takes it for free; the Python code still lets other threads in as any code does.
//! - Errors: a hook that raises, or returns what the trait cannot take (not a number, NaN, a
//!   window outside (0, 4e6] packets), records a one-line failure naming the algorithm, the
//!   hook and the exception in its `Fault`, and from then on answers without calling Python
//!   (the window as it is, Reno's halving on a loss); the binding stops the run at the end of
//!   the step and raises it (with the exception as its cause).

use cclab_sim::cc::external::{Factory, Fault};
use cclab_sim::cc::{
    AckSample, CaState, CcHeader, CcObservation, CongControl, CongestionControl, CwndEvent, ParamError, ParamReader,
    Params, RateSample, SenderView,
};
use cclab_sim::scenario::PACKET_BUDGET;
use cclab_sim::units::{Rate, SimTime};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rand::RngCore;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use crate::pycc_types::*;

thread_local! {
    /// Set when a Python algorithm is built on this thread (the binding reads it after a build).
    pub static BUILT_PYTHON: Cell<bool> = const { Cell::new(false) };
}

/// The optional hooks, in the order of the `hooks` list given at registration.
#[derive(Clone, Copy)]
enum Hook {
    PktsAcked,
    SsthreshAfterAck,
    EcnSsthresh,
    SetState,
    CwndEvent,
    UndoCwnd,
    OnSend,
    Init,
    CongControl,
    CwndEventControl,
    SetRng,
    Observe,
}

const OPTIONAL: [(&str, Hook); 12] = [
    ("pkts_acked", Hook::PktsAcked),
    ("ssthresh_after_ack", Hook::SsthreshAfterAck),
    ("ecn_ssthresh", Hook::EcnSsthresh),
    ("set_state", Hook::SetState),
    ("cwnd_event", Hook::CwndEvent),
    ("undo_cwnd", Hook::UndoCwnd),
    ("on_send", Hook::OnSend),
    ("init", Hook::Init),
    ("cong_control", Hook::CongControl),
    ("cwnd_event_control", Hook::CwndEventControl),
    ("set_rng", Hook::SetRng),
    ("observe", Hook::Observe),
];

/// The optional hooks a Python class may define, besides `ssthresh` and `cong_avoid`.
#[pyfunction]
pub fn optional_hooks() -> Vec<&'static str> {
    OPTIONAL.iter().map(|(n, _)| *n).collect()
}

/// A registered Python class: what builds its instances.
pub struct PyFactory {
    /// The registered name.
    pub name: String,
    pub cls: Py<PyAny>,
    /// The constructor's parameters with their defaults (names live as long as the registry).
    pub params: Vec<(&'static str, f64)>,
    /// Which optional hooks the class defines.
    pub hooks: Vec<String>,
}

impl Factory for PyFactory {
    fn build(&self, p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
        let mut r = ParamReader::new(p);
        let mut kwargs = Vec::with_capacity(self.params.len());
        for &(n, d) in &self.params {
            kwargs.push((n, r.get(n, d, f64::NEG_INFINITY, f64::INFINITY)?));
        }
        r.finish()?;
        BUILT_PYTHON.with(|b| b.set(true));
        Python::with_gil(|py| {
            let qual = class_name(py, &self.cls);
            let refused = |e: PyErr| ParamError {
                param: String::new(),
                value: self.name.clone(),
                accepted: format!("{qual}({}) raised {}", args_text(&kwargs), one_line(py, &e)),
            };
            let kw = PyDict::new(py);
            for (n, v) in &kwargs {
                kw.set_item(n, v).map_err(refused)?;
            }
            let obj = self.cls.call(py, (), Some(&kw)).map_err(refused)?;
            let b = obj.bind(py);
            let method = |n: &str| b.getattr(n).map(|m| m.unbind()).map_err(refused);
            let mut optional: [Option<Py<PyAny>>; 12] = Default::default();
            for (i, (n, _)) in OPTIONAL.iter().enumerate() {
                if self.hooks.iter().any(|h| h == n) {
                    optional[i] = Some(method(n)?);
                }
            }
            let needs_ecn = match b.getattr("needs_ecn") {
                Ok(x) => x.is_truthy().map_err(refused)?,
                Err(_) => false,
            };
            Ok(Box::new(PyCc {
                name: self.name.clone(),
                qual: qual.clone(),
                ssthresh: method("ssthresh")?,
                cong_avoid: method("cong_avoid")?,
                optional,
                needs_ecn,
                fault: Fault::new(),
            }) as Box<dyn CongestionControl>)
        })
    }
}

fn args_text(kwargs: &[(&str, f64)]) -> String {
    kwargs.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(", ")
}

fn class_name(py: Python<'_>, cls: &Py<PyAny>) -> String {
    cls.bind(py).getattr("__qualname__").and_then(|q| q.extract::<String>()).unwrap_or_else(|_| "<class>".into())
}

/// `Type: message`, the message's first line.
pub fn one_line(py: Python<'_>, e: &PyErr) -> String {
    let ty = e.get_type(py).qualname().map(|q| q.to_string()).unwrap_or_else(|_| "Exception".into());
    let msg = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
    match msg.lines().next() {
        Some(l) if !l.is_empty() => format!("{ty}: {l}"),
        _ => ty,
    }
}

/// One instance of a Python class, seen by the core as any algorithm.
struct PyCc {
    name: String,
    /// The class's qualified name, for errors.
    qual: String,
    ssthresh: Py<PyAny>,
    cong_avoid: Py<PyAny>,
    optional: [Option<Py<PyAny>>; 12],
    needs_ecn: bool,
    fault: Fault,
}

/// A window the sender can take: a number of packets in (0, PACKET_BUDGET].
fn window(x: &Bound<'_, PyAny>) -> Result<f64, String> {
    let w: f64 = x.extract().map_err(|_| format!("returned {}: expected a number of packets", short_repr(x)))?;
    if w > 0.0 && w <= PACKET_BUDGET as f64 {
        Ok(w)
    } else {
        Err(format!("returned {w}: expected a number of packets in (0, {PACKET_BUDGET}]"))
    }
}

fn short_repr(x: &Bound<'_, PyAny>) -> String {
    let s = x.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    if s.len() > 40 {
        format!("{}...", &s[..s.char_indices().nth(37).map_or(s.len(), |(i, _)| i)])
    } else {
        s
    }
}

fn cong_control(x: &Bound<'_, PyAny>) -> Result<Option<CongControl>, String> {
    if x.is_none() {
        return Ok(None);
    }
    let c = x
        .downcast::<PyCongControl>()
        .map_err(|_| format!("returned {}: expected None or cclab.CongControl(cwnd, pacing_rate)", short_repr(x)))?
        .get();
    if !(c.cwnd > 0.0 && c.cwnd <= PACKET_BUDGET as f64) {
        return Err(format!("returned cwnd {}: expected a number of packets in (0, {PACKET_BUDGET}]", c.cwnd));
    }
    let pacing_rate = match c.pacing_rate {
        None => None,
        Some(r) if r.is_finite() && r >= 0.0 => Some(Rate(r as u64)),
        Some(r) => return Err(format!("returned pacing_rate {r}: expected bits per second >= 0, or None")),
    };
    Ok(Some(CongControl { cwnd: c.cwnd, pacing_rate, mark_app_limited: c.mark_app_limited }))
}

/// Observation states as `&'static str` (the trait's type): each distinct text leaked once.
static STATES: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);
const MAX_STATES: usize = 1024;

fn static_state(s: String) -> Result<&'static str, String> {
    let mut m = STATES.lock().unwrap_or_else(|e| e.into_inner());
    let m = m.get_or_insert_with(HashMap::new);
    if let Some(x) = m.get(&s) {
        return Ok(x);
    }
    if m.len() >= MAX_STATES {
        return Err(format!("returned a state '{s}' beyond the {MAX_STATES} distinct states a process keeps"));
    }
    let x: &'static str = Box::leak(s.clone().into_boxed_str());
    m.insert(s, x);
    Ok(x)
}

impl PyCc {
    /// Calls `f` with the GIL unless a hook failed before; records a failure and returns `None`.
    fn call<T>(
        &self,
        hook: &str,
        now: Option<SimTime>,
        f: impl FnOnce(Python<'_>) -> PyResult<Result<T, String>>,
    ) -> Option<T> {
        if self.fault.is_set() {
            return None;
        }
        Python::with_gil(|py| {
            let at = now.map(|t| format!(" at {:.6} s", t.secs_f64())).unwrap_or_default();
            let head = format!("cc '{}': {}.{hook}", self.name, self.qual);
            match f(py) {
                Ok(Ok(x)) => Some(x),
                Ok(Err(why)) => {
                    self.fault.set(format!("{head} {why}{at}"));
                    None
                }
                Err(e) => {
                    let msg = format!("{head} raised {}{at}", one_line(py, &e));
                    self.fault.set_with(msg, Some(Box::new(e)));
                    None
                }
            }
        })
    }

    fn hook(&self, h: Hook) -> Option<&Py<PyAny>> {
        self.optional[h as usize].as_ref()
    }

    fn view<'py>(py: Python<'py>, v: &SenderView) -> PyResult<Bound<'py, PyView>> {
        Bound::new(py, PyView::from(v))
    }

    /// A hook that returns nothing.
    fn notify(&self, h: Hook, name: &str, now: SimTime, args: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyTuple>>) {
        if let Some(m) = self.hook(h) {
            self.call(name, Some(now), |py| m.call1(py, args(py)?).map(|_| Ok(())));
        }
    }

    /// A hook that returns None or a window.
    fn maybe_window(&self, h: Hook, name: &str, v: &SenderView) -> Option<f64> {
        let m = self.hook(h)?;
        self.call(name, Some(v.now), |py| {
            let x = m.bind(py).call1((Self::view(py, v)?,))?;
            Ok(if x.is_none() { Ok(None) } else { window(&x).map(Some) })
        })
        .flatten()
    }

    fn control(&self, h: Hook, name: &str, v: &SenderView, second: Option<&str>) -> Option<CongControl> {
        let m = self.hook(h)?;
        self.call(name, Some(v.now), |py| {
            let x = match second {
                None => m.bind(py).call1((Self::view(py, v)?,))?,
                Some(ev) => m.bind(py).call1((Self::view(py, v)?, ev))?,
            };
            Ok(cong_control(&x))
        })
        .flatten()
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &str {
        &self.name
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let m = &self.ssthresh;
        self.call("ssthresh", Some(v.now), |py| Ok(window(&m.bind(py).call1((Self::view(py, v)?,))?)))
            .unwrap_or_else(|| cclab_sim::cc::halve(v))
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        let m = &self.cong_avoid;
        self.call("cong_avoid", Some(v.now), |py| Ok(window(&m.bind(py).call1((Self::view(py, v)?, acked))?)))
            .unwrap_or(v.cwnd)
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        self.notify(Hook::PktsAcked, "pkts_acked", v.now, |py| {
            let sample = PyAckSample {
                acked: s.acked,
                rtt: s.rtt.map(secs),
                rcv_tsval: secs(s.rcv_tsval),
                cc_echo: (s.cc_echo.0[0], s.cc_echo.0[1], s.cc_echo.0[2]),
                ece: s.ece,
            };
            PyTuple::new(py, [Self::view(py, v)?.into_any(), Bound::new(py, sample)?.into_any()])
        });
    }

    fn ssthresh_after_ack(&mut self, v: &SenderView) -> Option<f64> {
        self.maybe_window(Hook::SsthreshAfterAck, "ssthresh_after_ack", v)
    }

    fn ecn_ssthresh(&mut self, v: &SenderView) -> f64 {
        match self.hook(Hook::EcnSsthresh) {
            None => self.ssthresh(v),
            Some(m) => self
                .call("ecn_ssthresh", Some(v.now), |py| Ok(window(&m.bind(py).call1((Self::view(py, v)?,))?)))
                .unwrap_or_else(|| cclab_sim::cc::halve(v)),
        }
    }

    fn needs_ecn(&self) -> bool {
        self.needs_ecn
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        self.notify(Hook::SetState, "set_state", v.now, |py| {
            PyTuple::new(py, [Self::view(py, v)?.into_any(), state_name(new).into_pyobject(py)?.into_any()])
        });
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        self.notify(Hook::CwndEvent, "cwnd_event", v.now, |py| {
            PyTuple::new(py, [Self::view(py, v)?.into_any(), event_name(ev).into_pyobject(py)?.into_any()])
        });
    }

    fn undo_cwnd(&mut self, v: &SenderView) -> Option<f64> {
        self.maybe_window(Hook::UndoCwnd, "undo_cwnd", v)
    }

    fn on_send(&mut self, v: &SenderView, seq: u64) -> CcHeader {
        let Some(m) = self.hook(Hook::OnSend) else { return CcHeader::default() };
        self.call("on_send", Some(v.now), |py| {
            let x = m.bind(py).call1((Self::view(py, v)?, seq))?;
            if x.is_none() {
                return Ok(Ok(CcHeader::default()));
            }
            let words: Vec<u32> = match x.extract() {
                Ok(w) => w,
                Err(_) => {
                    return Ok(Err(format!("returned {}: expected None or up to 3 whole numbers", short_repr(&x))))
                }
            };
            if words.len() > 3 {
                return Ok(Err(format!("returned {} words: the header holds 3", words.len())));
            }
            let mut h = CcHeader::default();
            h.0[..words.len()].copy_from_slice(&words);
            Ok(Ok(h))
        })
        .unwrap_or_default()
    }

    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        self.control(Hook::Init, "init", v, None)
    }

    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<CongControl> {
        let m = self.hook(Hook::CongControl)?;
        self.call("cong_control", Some(v.now), |py| {
            let x = m.bind(py).call1((Self::view(py, v)?, Bound::new(py, PyRateSample::from(rs))?))?;
            Ok(cong_control(&x))
        })
        .flatten()
    }

    fn cwnd_event_control(&mut self, v: &SenderView, ev: CwndEvent) -> Option<CongControl> {
        self.control(Hook::CwndEventControl, "cwnd_event_control", v, Some(event_name(ev)))
    }

    fn set_rng(&mut self, mut rng: rand_pcg::Pcg64) {
        let Some(m) = self.hook(Hook::SetRng) else { return };
        // A Python random.Random seeded from the flow's own stream: deterministic per run.
        let seed = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        self.call("set_rng", None, |py| {
            let r = py.import("random")?.getattr("Random")?.call1((seed,))?;
            m.call1(py, (r,)).map(|_| Ok(()))
        });
    }

    fn observe(&self) -> Option<CcObservation> {
        let m = self.hook(Hook::Observe)?;
        self.call("observe", None, |py| {
            let x = m.bind(py).call0()?;
            if x.is_none() {
                return Ok(Ok(None));
            }
            let Ok(o) = x.downcast::<PyObservation>() else {
                return Ok(Err(format!(
                    "returned {}: expected None or cclab.CcObservation(state, ...)",
                    short_repr(&x)
                )));
            };
            let o = o.get();
            Ok(static_state(o.state.clone()).map(|state| {
                Some(CcObservation {
                    state,
                    pacing_gain: o.pacing_gain,
                    cwnd_gain: o.cwnd_gain,
                    bw_bps: o.bw_bps,
                    min_rtt: o.min_rtt.filter(|t| t.is_finite() && *t >= 0.0).map(SimTime::from_secs_f64),
                })
            }))
        })
        .flatten()
    }

    fn uses_rate_samples(&self) -> bool {
        self.hook(Hook::CongControl).is_some()
    }
}

/// Registers a Python class as the congestion control `name` (`cclab.register_cc` checks the
/// class and passes the constructor's parameters with their defaults and the optional hooks it
/// defines).
#[pyfunction]
#[pyo3(signature = (name, summary, cls, params, hooks, replace=false))]
pub fn register_python_cc(
    name: &str,
    summary: &str,
    cls: Py<PyAny>,
    params: Vec<(String, f64)>,
    hooks: Vec<String>,
    replace: bool,
) -> PyResult<()> {
    if !replace && cclab_sim::cc::REGISTRY.get(name).is_some() {
        let why = if cclab_sim::cc::external::is_external(name) {
            "; register_cc(..., replace=True) puts the new class in its place"
        } else {
            " (a built-in or a plugin's algorithm): choose another name"
        };
        return Err(pyo3::exceptions::PyValueError::new_err(format!("cc '{name}' is already registered{why}")));
    }
    // Parameter names live as long as the registry (ParamReader takes &'static str).
    let params = params.into_iter().map(|(n, d)| (&*Box::leak(n.into_boxed_str()), d)).collect();
    let f = PyFactory { name: name.to_string(), cls, params, hooks };
    cclab_sim::cc::external::register(name, summary, Arc::new(f), true)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))
}
