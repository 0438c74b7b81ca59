//! The C ABI between cclab and a plugin: plain `#[repr(C)]` data and `extern "C"` functions,
//! whose layout does not depend on the compiler or on cclab-sim's Rust types.
//!
//! Conventions: times are picoseconds (`u64`, cclab's `SimTime`), windows packets (`f64`),
//! rates bits per second (`u64`); an optional value is a `has_x` byte (0 or 1) beside it;
//! booleans are bytes. Strings are [`Str`]: UTF-8 borrowed for the call (the receiver copies).
//! Every hook returns a [`Status`]; a hook that answers "nothing" (Rust's `None`) writes 0 to
//! its `some` byte. The algorithm is an opaque pointer the plugin made in `build` and frees in
//! `drop`.

use std::os::raw::c_void;

/// Bumped with every change of any layout or function in this file (the [`Table`]'s header,
/// `abi_version` and `cclab_version`, keeps its place in every version).
pub const ABI_VERSION: u32 = 1;

/// The symbol of the function that returns a plugin's [`Table`]: `extern "C" fn() -> *const Table`.
pub const SYMBOL: &str = "cclab_plugin_entry";

/// What a hook reports.
pub type Status = u32;
/// The hook ran.
pub const OK: Status = 0;
/// The hook panicked; `last_error` gives the message.
pub const PANICKED: Status = 1;
/// `build` refused its parameters; the error is in its `ErrorOut`.
pub const REFUSED: Status = 2;

/// A UTF-8 string borrowed for the duration of a call.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Str {
    pub ptr: *const u8,
    pub len: usize,
}

impl Str {
    pub const EMPTY: Str = Str { ptr: std::ptr::null(), len: 0 };

    pub fn new(s: &str) -> Str {
        Str { ptr: s.as_ptr(), len: s.len() }
    }

    /// The text, copied.
    ///
    /// # Safety
    /// `ptr` must point to `len` readable bytes (or be null with `len` 0) for this call.
    pub unsafe fn to_string(self) -> String {
        if self.ptr.is_null() || self.len == 0 {
            return String::new();
        }
        // SAFETY: the caller guarantees `len` readable bytes at `ptr`.
        String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(self.ptr, self.len) }).into_owned()
    }
}

/// The sender's view (`cclab_sim::cc::SenderView`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct View {
    pub now_ps: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub flight_size: u64,
    pub srtt_ps: u64,
    pub rtt_min_ps: u64,
    pub mss: u32,
    /// 0 Open, 1 Disorder, 2 Recovery, 3 Loss.
    pub state: u32,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub in_flight: u64,
    pub delivered: u64,
    pub delivered_time_ps: u64,
    pub lost: u64,
    pub app_limited: u8,
    pub next_tx_time_ps: u64,
}

/// One ACK's sample (`cclab_sim::cc::AckSample`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub acked: u32,
    pub has_rtt: u8,
    pub rtt_ps: u64,
    pub rcv_tsval_ps: u64,
    pub cc_echo: [u32; 3],
    pub ece: u8,
}

/// One ACK's delivery-rate sample (`cclab_sim::cc::RateSample`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    pub prior_delivered: u64,
    pub delivered: u64,
    pub has_interval: u8,
    pub interval_ps: u64,
    pub has_delivery_rate: u8,
    pub delivery_rate_bps: u64,
    pub has_rtt: u8,
    pub rtt_ps: u64,
    pub is_app_limited: u8,
    pub losses: u64,
    pub acked_sacked: u64,
    pub prior_in_flight: u64,
}

/// A window and pacing rate (`cclab_sim::cc::CongControl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Control {
    pub cwnd: f64,
    pub has_pacing_rate: u8,
    pub pacing_rate_bps: u64,
    pub mark_app_limited: u8,
}

/// An algorithm's state for the time series (`cclab_sim::cc::CcObservation`); `state` points
/// into the plugin and lives as long as it (a `&'static str` there).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Observation {
    pub state: Str,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub bw_bps: f64,
    pub has_min_rtt: u8,
    pub min_rtt_ps: u64,
}

/// One parameter given to `build`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: Str,
    pub value: f64,
}

/// One parameter an entry accepts (`cclab_sim::registry::ParamSpec`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: Str,
    pub kind: Str,
    pub unit: Str,
    pub default: Str,
    pub accepted: Str,
}

/// Why `build` refused (`cclab_sim::registry::ParamError`); valid until the next call on the thread.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ErrorOut {
    pub param: Str,
    pub value: Str,
    pub accepted: Str,
}

/// One algorithm the plugin offers.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub name: Str,
    pub summary: Str,
    pub params: *const ParamSpec,
    pub n_params: usize,
}

/// The opaque algorithm a plugin built.
pub type State = *mut c_void;

/// The functions of a plugin, one per hook of `CongestionControl` (same names).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct VTable {
    /// Builds entry `entry` with `n` parameters; writes the algorithm to `out`, or the refusal to `err`.
    pub build:
        extern "C" fn(entry: usize, params: *const Param, n: usize, out: *mut State, err: *mut ErrorOut) -> Status,
    pub drop: extern "C" fn(State),
    pub ssthresh: extern "C" fn(State, &View, out: &mut f64) -> Status,
    pub cong_avoid: extern "C" fn(State, &View, acked: u32, out: &mut f64) -> Status,
    pub pkts_acked: extern "C" fn(State, &View, &Ack) -> Status,
    pub ssthresh_after_ack: extern "C" fn(State, &View, out: &mut f64, some: &mut u8) -> Status,
    pub ecn_ssthresh: extern "C" fn(State, &View, out: &mut f64) -> Status,
    pub needs_ecn: extern "C" fn(State, out: &mut u8) -> Status,
    pub set_state: extern "C" fn(State, &View, state: u32) -> Status,
    pub cwnd_event: extern "C" fn(State, &View, event: u32) -> Status,
    pub undo_cwnd: extern "C" fn(State, &View, out: &mut f64, some: &mut u8) -> Status,
    pub on_send: extern "C" fn(State, &View, seq: u64, out: &mut [u32; 3]) -> Status,
    pub init: extern "C" fn(State, &View, out: &mut Control, some: &mut u8) -> Status,
    pub cong_control: extern "C" fn(State, &View, &RateSample, out: &mut Control, some: &mut u8) -> Status,
    pub cwnd_event_control: extern "C" fn(State, &View, event: u32, out: &mut Control, some: &mut u8) -> Status,
    /// The flow's random stream, as a 128-bit seed drawn from it (high, low).
    pub set_rng: extern "C" fn(State, hi: u64, lo: u64) -> Status,
    pub observe: extern "C" fn(State, out: &mut Observation, some: &mut u8) -> Status,
    pub uses_rate_samples: extern "C" fn(State, out: &mut u8) -> Status,
    /// The message of the last panic on this thread (valid until the next call).
    pub last_error: extern "C" fn(out: &mut Str),
}

/// What [`SYMBOL`] returns.
#[repr(C)]
pub struct Table {
    /// The header, in this place in every ABI version: checked before anything else is read.
    pub abi_version: u32,
    /// The cclab-sim version the plugin was built against (for messages).
    pub cclab_version: Str,
    pub n_entries: usize,
    pub entries: *const Entry,
    pub vtable: *const VTable,
}

/// 0..3 for `CaState` and back.
pub fn state_code(s: cclab_sim::cc::CaState) -> u32 {
    use cclab_sim::cc::CaState::*;
    match s {
        Open => 0,
        Disorder => 1,
        Recovery => 2,
        Loss => 3,
    }
}

pub fn state_of(c: u32) -> cclab_sim::cc::CaState {
    use cclab_sim::cc::CaState::*;
    match c {
        1 => Disorder,
        2 => Recovery,
        3 => Loss,
        _ => Open,
    }
}

/// 0..2 for `CwndEvent` and back.
pub fn event_code(e: cclab_sim::cc::CwndEvent) -> u32 {
    use cclab_sim::cc::CwndEvent::*;
    match e {
        TxStart => 0,
        Timeout => 1,
        RecoveryEnd => 2,
    }
}

pub fn event_of(c: u32) -> cclab_sim::cc::CwndEvent {
    use cclab_sim::cc::CwndEvent::*;
    match c {
        1 => Timeout,
        2 => RecoveryEnd,
        _ => TxStart,
    }
}
