//! The congestion-control interface and its registry.
//!
//! The interface mirrors Linux's `struct tcp_congestion_ops` so that an
//! algorithm written here maps one to one onto a kernel module:
//!
//! | here                | Linux                 | when                                  |
//! |---------------------|-----------------------|---------------------------------------|
//! | [`CongestionControl::ssthresh`]     | `ssthresh`    | a loss is detected (fast retransmit or RTO) |
//! | [`CongestionControl::ecn_ssthresh`] | `ssthresh` (on entering CWR) | an ECN echo reduces the window (RFC 3168; DCTCP's own reduction) |
//! | [`CongestionControl::needs_ecn`]    | `TCP_CONG_NEEDS_ECN` flag | asked once: ECN on, and the receiver echoes each packet's CE (DCTCP) |
//! | [`CongestionControl::cong_avoid`]   | `cong_avoid`  | an ACK advances `snd_una` outside recovery |
//! | [`CongestionControl::pkts_acked`]   | `pkts_acked`  | every ACK that acknowledges data, with its RTT sample |
//! | [`CongestionControl::ssthresh_after_ack`] | (`pkts_acked` writing `snd_ssthresh`) | right after `pkts_acked`: a threshold set outside a loss (HyStart) |
//! | [`CongestionControl::set_state`]    | `set_state`   | the sender changes congestion state |
//! | [`CongestionControl::cwnd_event`]   | `cwnd_event`  | transmission starts, RTO, recovery ends |
//! | [`CongestionControl::undo_cwnd`]    | `undo_cwnd`   | a loss turns out spurious (unused so far) |
//! | [`CongestionControl::on_send`]      | (header option writer) | a data segment leaves; fills the CC header the receiver echoes |
//! | [`CongestionControl::init`]         | `init`        | the flow starts, before `cwnd_event(TxStart)`; may set a first window and pacing rate |
//! | [`CongestionControl::cong_control`] | `cong_control` | every ACK, after loss detection, with its [`RateSample`]; sets cwnd and pacing rate |
//! | [`CongestionControl::uses_rate_samples`] | (`cong_control` set) | asked once: whether to take rate samples and call `cong_control` |
//! | [`CongestionControl::cwnd_event_control`] | `cwnd_event` writing cwnd or `sk_pacing_rate` | for an algorithm that `uses_rate_samples`: a data segment leaves with nothing in flight (`CA_EVENT_TX_START`) |
//! | [`CongestionControl::set_rng`] | (`get_random_u32`) | once, before `init`: the flow's own seeded random stream |
//! | [`CongestionControl::observe`] | (`get_info`, `tcp_bbr_info`) | when the time series is sampled: the algorithm's state, if it has one to show |
//!
//! An algorithm either grows the window through `cong_avoid` (ACK-clocked, as
//! Reno) or implements `cong_control` and then owns the window on every ACK,
//! in recovery too, and the pacing rate (as BBR): the sender calls
//! `cong_control` first and `cong_avoid` only when it answered `None`, as
//! Linux's `tcp_cong_control` does. A pacing rate makes the sender space its
//! data segments by wire size / rate; without one segments leave as the window
//! allows. The rate sample (`tcp/rate.rs`, Linux `tcp_rate.c`) is taken, and
//! `cong_control` called, only for an algorithm whose `uses_rate_samples` says
//! so (Linux: its ops set `cong_control`).
//!
//! Windows are in packets (segments) as `f64`, as in ns-2, because several of
//! the papers' algorithms grow the window by fractions of a packet per ACK.
//! The TCP engine owns slow start's trigger, loss recovery and the timers; the
//! algorithm owns only its state and returns the window it wants. Shared
//! arithmetic (slow start, additive increase) lives here once.

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod bic_linux;
mod builtin;
pub mod ci;
pub mod cr;
pub mod cubic;
pub mod cubic_linux;
pub mod dctcp;
pub mod external;
pub mod fast;
pub mod ghstcp;
pub mod highspeed;
pub mod hrf;
pub mod htcp;
pub mod hystart;
pub mod hystart_pp;
pub mod ktcp;
pub mod lsrtt;
pub mod reno;
pub mod rtt_round;
pub mod scalable;
pub mod tcp_gt;
#[cfg(test)]
mod testing;
pub mod ubr;
pub mod vegas;
pub mod vegas_linux;
pub mod vegas_ns2;
pub mod westwood;
mod window;
pub mod xcp;

pub use builtin::{BUILTIN, WRAPPERS};
pub use window::*;

pub use crate::tcp::rate::RateSample;
use crate::units::{Rate, SimTime};

/// The sender's congestion state, as Linux's `tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs or SACKs seen, below the fast-retransmit threshold.
    Disorder,
    /// Fast recovery (RFC 5681 / 6582 / 6675).
    Recovery,
    /// After a retransmission timeout, until everything outstanding then is acknowledged.
    Loss,
}

/// Events other than ACKs that an algorithm may care about (Linux `tcp_ca_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// The first segment is about to be sent.
    TxStart,
    /// The retransmission timer fired.
    Timeout,
    /// Fast recovery ended with everything outstanding at its start acknowledged.
    RecoveryEnd,
}

/// What the sender knows when it consults the algorithm.
#[derive(Clone, Copy, Debug)]
pub struct SenderView {
    pub now: SimTime,
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets (`f64::INFINITY` before the first loss).
    pub ssthresh: f64,
    /// Segments sent and not yet cumulatively acknowledged, packets.
    pub flight_size: u64,
    /// Smoothed RTT (RFC 6298); zero before the first sample.
    pub srtt: SimTime,
    /// Smallest RTT sample seen on this connection; zero before the first sample.
    pub rtt_min: SimTime,
    /// On-the-wire size of a data packet, bytes.
    pub mss: u32,
    pub state: CaState,
    /// The oldest unacknowledged segment (Linux `snd_una`).
    pub snd_una: u64,
    /// One past the highest segment sent (Linux `snd_nxt`, which a timeout does not rewind;
    /// cclab's go-back-N pointer after a timeout without SACK is not this).
    pub snd_nxt: u64,
    /// Packets in flight (RFC 6675 pipe, Linux `tcp_packets_in_flight`).
    pub in_flight: u64,
    /// Packets delivered so far and when that count last grew (Linux `tp->delivered`,
    /// `tp->delivered_mstamp`); kept only for an algorithm that `uses_rate_samples`, else 0.
    pub delivered: u64,
    pub delivered_time: SimTime,
    /// Packets marked lost so far (Linux `tp->lost`).
    pub lost: u64,
    /// The rate samples are app-limited now (Linux `tp->app_limited` set).
    pub app_limited: bool,
    /// The earliest departure time of the next paced segment (Linux `tcp_wstamp_ns`).
    pub next_tx_time: SimTime,
    /// The window held the sender back within the last flight (Linux `tp->is_cwnd_limited`);
    /// kept only for an algorithm that `uses_rate_samples`, else false.
    pub is_cwnd_limited: bool,
}

/// One ACK's worth of input (Linux `struct ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Packets newly acknowledged by this ACK (cumulatively or by SACK).
    pub acked: u32,
    /// RTT measured from this ACK (RFC 7323 timestamps or Karn-safe timing), if any.
    pub rtt: Option<SimTime>,
    /// The receiver's clock when it sent this ACK (its TSval).
    pub rcv_tsval: SimTime,
    /// The congestion-control header of the data segment that triggered this ACK, echoed.
    pub cc_echo: CcHeader,
    /// The ACK carries ECN-Echo (Linux `CA_ACK_ECE`, which `tcp_ack` counts into
    /// `delivered_ce`): with the per-packet feedback of [`CongestionControl::needs_ecn`],
    /// the `acked` packets were CE-marked.
    pub ece: bool,
}

/// A small header the algorithm writes on each data segment and the receiver
/// echoes on the ACK (TCP-GT's epoch number, for instance).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcHeader(pub [u32; 3]);

impl CcHeader {
    /// Reads word `i` as an `f32` (XCP's fields are floats).
    pub fn f32(&self, i: usize) -> f32 {
        f32::from_bits(self.0[i])
    }

    /// Writes word `i` as an `f32`.
    pub fn set_f32(&mut self, i: usize, v: f32) {
        self.0[i] = v.to_bits();
    }
}

/// What an algorithm that controls the sender on its own (`cong_control`, `init`) sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongControl {
    /// The congestion window, packets (at least 1 is applied).
    pub cwnd: f64,
    /// Data segments leave no faster than this (wire bytes); `None`: not paced.
    pub pacing_rate: Option<Rate>,
    /// Mark the rate samples of everything now in flight app-limited (Linux: the algorithm
    /// writes `tp->app_limited`, as BBR's PROBE_RTT does).
    pub mark_app_limited: bool,
}

/// An algorithm's state as it shows it in the `cc_series` table (Linux `tcp_bbr_info`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcObservation {
    /// The mode or state, as the source names it (`"PROBE_BW"`).
    pub state: &'static str,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    /// The bandwidth estimate, wire bits per second.
    pub bw_bps: f64,
    /// The min-RTT estimate, if any.
    pub min_rtt: Option<SimTime>,
}

/// A congestion-control algorithm. Only `ssthresh` and `cong_avoid` are
/// required; the rest default to doing nothing.
pub trait CongestionControl: Send {
    /// The registry name, lowercase (an add-on reports the name as written, `"cubic+ktcp"`).
    fn name(&self) -> &str;

    /// The new slow-start threshold after a loss, in packets.
    fn ssthresh(&mut self, v: &SenderView) -> f64;

    /// The new congestion window after `acked` packets were newly acknowledged
    /// outside recovery (slow start included, as in Linux).
    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64;

    /// Called for every ACK that acknowledges data, before `cong_avoid`.
    fn pkts_acked(&mut self, _v: &SenderView, _s: &AckSample) {}

    /// Called right after `pkts_acked`, with the same view: a new slow-start threshold the
    /// algorithm sets outside a loss, or `None` (the default) to keep it. Linux lets
    /// `pkts_acked` write `snd_ssthresh`; CUBIC's HyStart does, setting it to cwnd to leave
    /// slow start (cc/hystart.rs). The sender applies it before this ACK's `cong_avoid`.
    fn ssthresh_after_ack(&mut self, _v: &SenderView) -> Option<f64> {
        None
    }

    /// The new slow-start threshold when an ECN echo reduces the window (RFC 3168 section
    /// 6.1.2, at most once per window). The default is [`CongestionControl::ssthresh`]: the
    /// echo is answered as a loss. DCTCP reduces by its estimate of the marked fraction
    /// instead (Linux: its `ssthresh` is what `tcp_enter_cwr` asks; on a loss its
    /// `set_state`/`cwnd_event` overwrite `snd_ssthresh` with the halving, which is
    /// `ssthresh` here).
    fn ecn_ssthresh(&mut self, v: &SenderView) -> f64 {
        self.ssthresh(v)
    }

    /// `true` for an algorithm that needs ECN (Linux `TCP_CONG_NEEDS_ECN`, DCTCP's flag):
    /// its flows are ECN-capable unless the scenario says otherwise, and their receiver
    /// echoes the CE mark of each packet (RFC 8257 section 3.2, Linux's `dctcp_ece_ack_update`)
    /// instead of RFC 3168's echo until CWR. Asked once, when the flow is built.
    fn needs_ecn(&self) -> bool {
        false
    }

    fn set_state(&mut self, _v: &SenderView, _new: CaState) {}

    fn cwnd_event(&mut self, _v: &SenderView, _ev: CwndEvent) {}

    /// The window to restore when a loss was spurious; `None` keeps the current one.
    fn undo_cwnd(&mut self, _v: &SenderView) -> Option<f64> {
        None
    }

    /// Fills the header of a data segment about to be sent.
    fn on_send(&mut self, _v: &SenderView, _seq: u64) -> CcHeader {
        CcHeader::default()
    }

    /// The flow starts (Linux `init`): an algorithm that paces from the first segment
    /// returns its initial window and pacing rate. `None` keeps the configured window.
    fn init(&mut self, _v: &SenderView) -> Option<CongControl> {
        None
    }

    /// Every ACK, once loss detection and recovery have run on it (Linux `cong_control`):
    /// an algorithm that implements it returns the window and pacing rate to use from now
    /// on, and `cong_avoid` is then not called for this ACK. `None` (the default): the
    /// window moves as `ssthresh`, recovery and `cong_avoid` make it, unpaced.
    fn cong_control(&mut self, _v: &SenderView, _rs: &RateSample) -> Option<CongControl> {
        None
    }

    /// For an algorithm that `uses_rate_samples`: a Linux `cwnd_event` that may set the window
    /// and pacing rate (BBR restarting from idle at `TxStart`). Called when a data segment
    /// leaves with nothing in flight; `None` (the default) changes nothing.
    fn cwnd_event_control(&mut self, _v: &SenderView, _ev: CwndEvent) -> Option<CongControl> {
        None
    }

    /// The flow's own random stream (from the run's seed), for an algorithm that draws.
    fn set_rng(&mut self, _rng: rand_pcg::Pcg64) {}

    /// The state to show in the time series (`cc_series`); `None` (the default): nothing.
    fn observe(&self) -> Option<CcObservation> {
        None
    }

    /// `true` for an algorithm that implements `cong_control` (Linux: its ops set
    /// `cong_control`): only then does the sender estimate delivery rates and call it, so
    /// the ACK-clocked algorithms do not pay for samples they never read.
    fn uses_rate_samples(&self) -> bool {
        false
    }

    /// The algorithm as `Any`, for tests and tools that read its state during a run
    /// (`None`, the default: not offered).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// The parameters as resolved (defaults filled in), for translating a flow to another
    /// simulator (describe.rs); only algorithms that a translator maps need to say.
    fn params(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

use crate::registry::{read_params, Entry, ParamSpec, Registry};
pub use crate::registry::{ParamError, ParamReader, Params};

/// An algorithm's constructor: its parameters in, the algorithm or the parameter refused out.
pub type Builder = fn(&Params) -> Result<Box<dyn CongestionControl>, ParamError>;

/// An add-on's constructor: wraps an algorithm already built (`inner`, registered as
/// `inner_name`) with the add-on's own parameters (those named with its prefix).
pub type WrapBuilder = fn(
    inner: Box<dyn CongestionControl>,
    inner_name: &str,
    own: &Params,
) -> Result<Box<dyn CongestionControl>, ParamError>;

/// An add-on: `cc = "<algorithm>+<add-on>"` wraps the algorithm.
#[derive(Clone, Copy, Debug)]
pub struct Wrapper {
    /// Parameters named with this prefix are the add-on's; the others go to the wrapped algorithm.
    pub prefix: &'static str,
    pub wrap: WrapBuilder,
}

/// The congestion controls, by lowercase name. Adding one: a file in `cc/` with a
/// `build` function, and one line in `builtin.rs`.
pub static REGISTRY: Registry<Builder> = Registry::new("cc", BUILTIN, |b| read_params(|| drop(b(&Params::new()))));

/// The add-ons that wrap any algorithm (`"<name>+ktcp"`).
pub static WRAPPER_REGISTRY: Registry<Wrapper> = Registry::new("add-on", WRAPPERS, |w| {
    // Built outside the reading, so only the add-on's own parameters are listed.
    let inner = reno::build(&Params::new()).expect("Reno builds with its defaults");
    read_params(|| drop((w.wrap)(inner, "reno", &Params::new())))
});

/// Builds the algorithm registered as `name` with `params`. `"<name>+<add-on>"`
/// wraps it in a registered add-on (`"highspeed+ktcp"`): the parameters named with
/// the add-on's prefix (`ktcp_*`) are the add-on's, the others the algorithm's.
pub fn build(name: &str, params: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    if let Some((w, inner)) = add_on(name) {
        let (own, rest) = split_params(params, w.build.prefix);
        let wrapped = build(inner, &rest).map_err(|mut e| {
            // An unknown wrapped name is reported as written.
            if e.param.is_empty() {
                e.value = format!("{}+{}", e.value, w.name);
            }
            e
        })?;
        return (w.build.wrap)(wrapped, inner, &own);
    }
    match REGISTRY.get(name) {
        Some(r) => (r.build)(params),
        None => Err(ParamError { param: String::new(), value: name.to_string(), accepted: REGISTRY.accepted() }),
    }
}

/// `"<inner>+<add-on>"`: the add-on and the name it wraps.
fn add_on(name: &str) -> Option<(Entry<Wrapper>, &str)> {
    let split = |w: &Entry<Wrapper>| name.strip_suffix(w.name).and_then(|n| n.strip_suffix('+'));
    WRAPPER_REGISTRY.entries().into_iter().find_map(|w| split(&w).map(|inner| (w, inner)))
}

/// The algorithm an add-on name wraps, innermost (`"cubic+ktcp"` -> `"cubic"`); else `name`.
pub fn wrapped(name: &str) -> &str {
    add_on(name).map_or(name, |(_, inner)| wrapped(inner))
}

/// Splits parameters into those named with `prefix` (an add-on's) and the rest.
pub fn split_params(p: &Params, prefix: &str) -> (Params, Params) {
    p.iter().map(|(k, v)| (k.clone(), *v)).partition(|(k, _)| k.starts_with(prefix))
}

/// Whether the algorithm `name` with `params` sets the window from rate samples
/// (`uses_rate_samples`); `false` for a name or parameters that do not build.
pub fn uses_rate_samples(name: &str, params: &Params) -> bool {
    build(name, params).is_ok_and(|c| c.uses_rate_samples())
}

/// A window in packets as an algorithm that counts whole packets keeps it: Linux's `snd_cwnd`
/// is a `u32`, so a window beyond that (an infinite ssthresh) is held at `u32::MAX`, not
/// saturated to `u64::MAX`, where adding the packets an ACK delivers would overflow.
pub fn whole_packets(cwnd: f64) -> u64 {
    cwnd.floor().max(1.0).min(u32::MAX as f64) as u64
}

/// The registered algorithms' names, built-ins first.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// The parameters an algorithm accepts (for `cclab algorithms` and the docs).
pub fn params(name: &str) -> Option<Vec<ParamSpec>> {
    REGISTRY.get(name).map(|e| REGISTRY.params(&e))
}

#[cfg(test)]
mod tests;
