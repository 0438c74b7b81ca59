//! The values a Python congestion control sees and returns (pycc.rs): the sender's view, the
//! ACK and rate samples, the `cong_control` answer and an observation, as frozen Python
//! objects whose times are seconds and rates bits per second.

use cclab_sim::cc::{CaState, CwndEvent, RateSample, SenderView};
use cclab_sim::units::SimTime;
use pyo3::prelude::*;

pub(crate) fn secs(t: SimTime) -> f64 {
    t.secs_f64()
}

pub(crate) fn state_name(s: CaState) -> &'static str {
    match s {
        CaState::Open => "open",
        CaState::Disorder => "disorder",
        CaState::Recovery => "recovery",
        CaState::Loss => "loss",
    }
}

pub(crate) fn event_name(e: CwndEvent) -> &'static str {
    match e {
        CwndEvent::TxStart => "tx_start",
        CwndEvent::Timeout => "timeout",
        CwndEvent::RecoveryEnd => "recovery_end",
    }
}

/// What the sender knows when it consults the algorithm (the trait's `SenderView`); times in
/// seconds, windows in packets.
#[pyclass(frozen, name = "SenderView", module = "cclab._core")]
pub struct PyView {
    #[pyo3(get)]
    pub(crate) now: f64,
    #[pyo3(get)]
    pub(crate) cwnd: f64,
    #[pyo3(get)]
    pub(crate) ssthresh: f64,
    #[pyo3(get)]
    pub(crate) flight_size: u64,
    #[pyo3(get)]
    pub(crate) srtt: f64,
    #[pyo3(get)]
    pub(crate) rtt_min: f64,
    #[pyo3(get)]
    pub(crate) mss: u32,
    #[pyo3(get)]
    pub(crate) state: &'static str,
    #[pyo3(get)]
    pub(crate) snd_una: u64,
    #[pyo3(get)]
    pub(crate) snd_nxt: u64,
    #[pyo3(get)]
    pub(crate) in_flight: u64,
    #[pyo3(get)]
    pub(crate) delivered: u64,
    #[pyo3(get)]
    pub(crate) delivered_time: f64,
    #[pyo3(get)]
    pub(crate) lost: u64,
    #[pyo3(get)]
    pub(crate) app_limited: bool,
    #[pyo3(get)]
    pub(crate) next_tx_time: f64,
}

impl From<&SenderView> for PyView {
    fn from(v: &SenderView) -> Self {
        PyView {
            now: secs(v.now),
            cwnd: v.cwnd,
            ssthresh: v.ssthresh,
            flight_size: v.flight_size,
            srtt: secs(v.srtt),
            rtt_min: secs(v.rtt_min),
            mss: v.mss,
            state: state_name(v.state),
            snd_una: v.snd_una,
            snd_nxt: v.snd_nxt,
            in_flight: v.in_flight,
            delivered: v.delivered,
            delivered_time: secs(v.delivered_time),
            lost: v.lost,
            app_limited: v.app_limited,
            next_tx_time: secs(v.next_tx_time),
        }
    }
}

#[pymethods]
impl PyView {
    fn __repr__(&self) -> String {
        format!(
            "SenderView(now={}, cwnd={}, ssthresh={}, in_flight={}, srtt={}, state='{}')",
            self.now, self.cwnd, self.ssthresh, self.in_flight, self.srtt, self.state
        )
    }
}

/// One ACK's worth of input (the trait's `AckSample`).
#[pyclass(frozen, name = "AckSample", module = "cclab._core")]
pub struct PyAckSample {
    #[pyo3(get)]
    pub(crate) acked: u32,
    /// Seconds, or None.
    #[pyo3(get)]
    pub(crate) rtt: Option<f64>,
    #[pyo3(get)]
    pub(crate) rcv_tsval: f64,
    #[pyo3(get)]
    pub(crate) cc_echo: (u32, u32, u32),
    #[pyo3(get)]
    pub(crate) ece: bool,
}

/// One ACK's delivery-rate sample (the trait's `RateSample`); rates in bit/s, times in seconds.
#[pyclass(frozen, name = "RateSample", module = "cclab._core")]
pub struct PyRateSample {
    #[pyo3(get)]
    pub(crate) prior_delivered: u64,
    #[pyo3(get)]
    pub(crate) delivered: u64,
    #[pyo3(get)]
    pub(crate) interval: Option<f64>,
    #[pyo3(get)]
    pub(crate) delivery_rate: Option<f64>,
    #[pyo3(get)]
    pub(crate) rtt: Option<f64>,
    #[pyo3(get)]
    pub(crate) is_app_limited: bool,
    #[pyo3(get)]
    pub(crate) losses: u64,
    #[pyo3(get)]
    pub(crate) acked_sacked: u64,
    #[pyo3(get)]
    pub(crate) prior_in_flight: u64,
}

impl From<&RateSample> for PyRateSample {
    fn from(r: &RateSample) -> Self {
        PyRateSample {
            prior_delivered: r.prior_delivered,
            delivered: r.delivered,
            interval: r.interval.map(secs),
            delivery_rate: r.delivery_rate.map(|x| x.bps() as f64),
            rtt: r.rtt.map(secs),
            is_app_limited: r.is_app_limited,
            losses: r.losses,
            acked_sacked: r.acked_sacked,
            prior_in_flight: r.prior_in_flight,
        }
    }
}

/// What `cong_control`, `init` and `cwnd_event_control` return to set the window and pacing
/// rate (the trait's `CongControl`).
#[pyclass(frozen, name = "CongControl", module = "cclab._core")]
pub struct PyCongControl {
    #[pyo3(get)]
    pub(crate) cwnd: f64,
    /// Bits per second, or None: not paced.
    #[pyo3(get)]
    pub(crate) pacing_rate: Option<f64>,
    #[pyo3(get)]
    pub(crate) mark_app_limited: bool,
}

#[pymethods]
impl PyCongControl {
    #[new]
    #[pyo3(signature = (cwnd, pacing_rate=None, mark_app_limited=false))]
    fn new(cwnd: f64, pacing_rate: Option<f64>, mark_app_limited: bool) -> Self {
        PyCongControl { cwnd, pacing_rate, mark_app_limited }
    }

    fn __repr__(&self) -> String {
        format!(
            "CongControl(cwnd={}, pacing_rate={:?}, mark_app_limited={})",
            self.cwnd, self.pacing_rate, self.mark_app_limited
        )
    }
}

/// What `observe` returns: the state shown in the `cc_series` table (the trait's `CcObservation`).
#[pyclass(frozen, name = "CcObservation", module = "cclab._core")]
pub struct PyObservation {
    #[pyo3(get)]
    pub(crate) state: String,
    #[pyo3(get)]
    pub(crate) pacing_gain: f64,
    #[pyo3(get)]
    pub(crate) cwnd_gain: f64,
    #[pyo3(get)]
    pub(crate) bw_bps: f64,
    /// Seconds, or None.
    #[pyo3(get)]
    pub(crate) min_rtt: Option<f64>,
}

#[pymethods]
impl PyObservation {
    #[new]
    #[pyo3(signature = (state, pacing_gain=1.0, cwnd_gain=1.0, bw_bps=0.0, min_rtt=None))]
    fn new(state: String, pacing_gain: f64, cwnd_gain: f64, bw_bps: f64, min_rtt: Option<f64>) -> Self {
        PyObservation { state, pacing_gain, cwnd_gain, bw_bps, min_rtt }
    }
}
