//! cclab's side of the ABI: checks a plugin's table and registers its entries
//! (cclab_sim::cc::external), each built algorithm a [`PluginCc`] that calls the plugin's
//! functions.
//!
//! A hook that panicked in the plugin records the failure in the algorithm's `Fault`
//! ("cc 'name' (plugin libx.so): cong_avoid panicked: message") and from then on answers
//! without calling the plugin (the window as it is, Reno's halving on a loss); the binding
//! stops the run. A window outside (0, PACKET_BUDGET] packets is such a failure too.

use crate::abi::{self, Str, OK, PANICKED, REFUSED};
use cclab_sim::cc::external::{self, Factory, Fault};
use cclab_sim::cc::{
    AckSample, CaState, CcHeader, CcObservation, CongControl, CongestionControl, CwndEvent, ParamError, Params,
    RateSample, SenderView,
};
use cclab_sim::registry::{note_param, ParamSpec};
use cclab_sim::scenario::PACKET_BUDGET;
use cclab_sim::units::{Rate, SimTime};
use rand::RngCore;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The plugin entry function's type (the symbol [`abi::SYMBOL`]).
pub type EntryFn = extern "C" fn() -> *const abi::Table;

/// Checks the table `entry` returns and registers its algorithms; returns their names.
/// `file` names the library in messages. Errors are one line.
///
/// # Safety
/// `entry` must be the [`abi::SYMBOL`] function of a library that stays loaded for the rest
/// of the process (its table, strings and functions are used until the process ends).
pub unsafe fn load(entry: EntryFn, file: &str) -> Result<Vec<String>, String> {
    let t = entry();
    if t.is_null() {
        return Err(format!("plugin {file}: its table could not be made (a panic while listing its entries)"));
    }
    // SAFETY: a cclab plugin's table; the header (abi_version, cclab_version) has the same
    // layout in every ABI version, so it is read before the rest.
    let t: &'static abi::Table = unsafe { &*t };
    let theirs = unsafe { t.cclab_version.to_string() };
    if t.abi_version != abi::ABI_VERSION {
        return Err(format!(
            "plugin {file}: built for cclab plugin ABI {} (cclab {theirs}); this cclab {} speaks ABI {}: rebuild the \
             plugin against this cclab",
            t.abi_version,
            crate::CCLAB_VERSION,
            abi::ABI_VERSION
        ));
    }
    // SAFETY: same ABI: the table's pointers are valid for the library's life.
    let vt: &'static abi::VTable = unsafe { &*t.vtable };
    let entries: &'static [abi::Entry] =
        if t.n_entries == 0 { &[] } else { unsafe { std::slice::from_raw_parts(t.entries, t.n_entries) } };
    let mut list = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let name = unsafe { e.name.to_string() };
        let summary = unsafe { e.summary.to_string() };
        let specs: &[abi::ParamSpec] =
            if e.n_params == 0 { &[] } else { unsafe { std::slice::from_raw_parts(e.params, e.n_params) } };
        let params = specs
            .iter()
            .map(|p| unsafe {
                ParamSpec {
                    name: p.name.to_string().into(),
                    kind: p.kind.to_string().into(),
                    unit: p.unit.to_string().into(),
                    default: p.default.to_string().into(),
                    accepted: p.accepted.to_string().into(),
                }
            })
            .collect::<Vec<_>>();
        list.push((i, name, summary, params));
    }
    // Every name is checked before any is registered: a plugin loads whole or not at all.
    for (_, name, _, _) in &list {
        if cclab_sim::cc::REGISTRY.get(name).is_some() {
            return Err(format!(
                "plugin {file}: cc '{name}' is already registered (a built-in, a Python class or another plugin's)"
            ));
        }
    }
    let mut names = Vec::new();
    for (i, name, summary, params) in list {
        let f = PluginFactory { entry: i, name: name.clone(), file: file.to_string(), vt, params };
        external::register(&name, &format!("{summary} [plugin {file}]"), Arc::new(f), false)
            .map_err(|e| format!("plugin {file}: {}", e.0))?;
        names.push(name);
    }
    Ok(names)
}

struct PluginFactory {
    entry: usize,
    name: String,
    file: String,
    vt: &'static abi::VTable,
    params: Vec<ParamSpec>,
}

fn last_error(vt: &abi::VTable) -> String {
    let mut s = Str::EMPTY;
    (vt.last_error)(&mut s);
    // SAFETY: valid until the next call on this thread; copied at once.
    unsafe { s.to_string() }
}

impl Factory for PluginFactory {
    fn build(&self, p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
        // The plugin reads its parameters in its own copy of cclab-sim: list them here.
        for s in &self.params {
            note_param(s.clone());
        }
        let c: Vec<abi::Param> = p.iter().map(|(k, v)| abi::Param { name: Str::new(k), value: *v }).collect();
        let mut st: abi::State = std::ptr::null_mut();
        let mut err = abi::ErrorOut { param: Str::EMPTY, value: Str::EMPTY, accepted: Str::EMPTY };
        match (self.vt.build)(self.entry, c.as_ptr(), c.len(), &mut st, &mut err) {
            OK => Ok(Box::new(PluginCc::new(self.name.clone(), self.file.clone(), self.vt, st))),
            // SAFETY: the refusal's strings are valid until the next build on this thread.
            REFUSED => Err(unsafe {
                ParamError {
                    param: err.param.to_string(),
                    value: err.value.to_string(),
                    accepted: err.accepted.to_string(),
                }
            }),
            _ => Err(ParamError {
                param: String::new(),
                value: self.name.clone(),
                accepted: format!("plugin {}: its constructor panicked: {}", self.file, last_error(self.vt)),
            }),
        }
    }
}

/// An algorithm built by a plugin.
pub struct PluginCc {
    name: String,
    file: String,
    vt: &'static abi::VTable,
    st: abi::State,
    fault: Fault,
    needs_ecn: bool,
    rate_samples: bool,
}

// SAFETY: the plugin's algorithm is a `Box<dyn CongestionControl>`, which is `Send`; it is only
// reached through `&mut self` (or `&self` for `observe`, which the trait also allows).
unsafe impl Send for PluginCc {}

impl PluginCc {
    fn new(name: String, file: String, vt: &'static abi::VTable, st: abi::State) -> Self {
        let mut c = PluginCc { name, file, vt, st, fault: Fault::new(), needs_ecn: false, rate_samples: false };
        let mut b = 0u8;
        c.needs_ecn = c.call("needs_ecn", None, |vt, st| (vt.needs_ecn)(st, &mut b)).is_some() && b != 0;
        let mut r = 0u8;
        c.rate_samples =
            c.call("uses_rate_samples", None, |vt, st| (vt.uses_rate_samples)(st, &mut r)).is_some() && r != 0;
        c
    }

    /// Calls the plugin unless it failed before; records a panic and returns `None`.
    fn call(
        &self,
        hook: &str,
        now: Option<SimTime>,
        f: impl FnOnce(&abi::VTable, abi::State) -> abi::Status,
    ) -> Option<()> {
        if self.fault.is_set() {
            return None;
        }
        match f(self.vt, self.st) {
            OK => Some(()),
            PANICKED => {
                self.fail(hook, now, format!("panicked: {}", last_error(self.vt)));
                None
            }
            s => {
                self.fail(hook, now, format!("returned status {s}"));
                None
            }
        }
    }

    fn fail(&self, hook: &str, now: Option<SimTime>, why: String) {
        let at = now.map(|t| format!(" at {:.6} s", t.secs_f64())).unwrap_or_default();
        let why = why.lines().next().unwrap_or("").to_string();
        self.fault.set(format!("cc '{}' (plugin {}): {hook} {why}{at}", self.name, self.file));
    }

    fn window(&self, hook: &str, v: &SenderView, w: f64) -> Option<f64> {
        if w > 0.0 && w <= PACKET_BUDGET as f64 {
            Some(w)
        } else {
            self.fail(hook, Some(v.now), format!("returned {w}: expected a number of packets in (0, {PACKET_BUDGET}]"));
            None
        }
    }

    fn control(&self, hook: &str, v: &SenderView, c: abi::Control, some: u8) -> Option<CongControl> {
        if some == 0 {
            return None;
        }
        let cwnd = self.window(hook, v, c.cwnd)?;
        Some(CongControl {
            cwnd,
            pacing_rate: (c.has_pacing_rate != 0).then_some(Rate(c.pacing_rate_bps)),
            mark_app_limited: c.mark_app_limited != 0,
        })
    }
}

impl Drop for PluginCc {
    fn drop(&mut self) {
        (self.vt.drop)(self.st);
    }
}

fn view(v: &SenderView) -> abi::View {
    abi::View {
        now_ps: v.now.0,
        cwnd: v.cwnd,
        ssthresh: v.ssthresh,
        flight_size: v.flight_size,
        srtt_ps: v.srtt.0,
        rtt_min_ps: v.rtt_min.0,
        mss: v.mss,
        state: abi::state_code(v.state),
        snd_una: v.snd_una,
        snd_nxt: v.snd_nxt,
        in_flight: v.in_flight,
        delivered: v.delivered,
        delivered_time_ps: v.delivered_time.0,
        lost: v.lost,
        app_limited: v.app_limited as u8,
        next_tx_time_ps: v.next_tx_time.0,
    }
}

/// Observation states as `&'static str` (the trait's type): each distinct text copied once.
static STATES: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);

fn static_state(s: String) -> &'static str {
    let mut m = STATES.lock().unwrap_or_else(|e| e.into_inner());
    let m = m.get_or_insert_with(HashMap::new);
    if let Some(x) = m.get(&s) {
        return x;
    }
    if m.len() >= 1024 {
        return "(more states than cclab keeps)";
    }
    let x: &'static str = Box::leak(s.clone().into_boxed_str());
    m.insert(s, x);
    x
}

impl CongestionControl for PluginCc {
    fn name(&self) -> &str {
        &self.name
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let mut w = 0.0;
        self.call("ssthresh", Some(v.now), |vt, st| (vt.ssthresh)(st, &view(v), &mut w))
            .and_then(|()| self.window("ssthresh", v, w))
            .unwrap_or_else(|| cclab_sim::cc::halve(v))
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        let mut w = 0.0;
        self.call("cong_avoid", Some(v.now), |vt, st| (vt.cong_avoid)(st, &view(v), acked, &mut w))
            .and_then(|()| self.window("cong_avoid", v, w))
            .unwrap_or(v.cwnd)
    }

    fn pkts_acked(&mut self, v: &SenderView, s: &AckSample) {
        let a = abi::Ack {
            acked: s.acked,
            has_rtt: s.rtt.is_some() as u8,
            rtt_ps: s.rtt.map_or(0, |x| x.0),
            rcv_tsval_ps: s.rcv_tsval.0,
            cc_echo: s.cc_echo.0,
            ece: s.ece as u8,
        };
        self.call("pkts_acked", Some(v.now), |vt, st| (vt.pkts_acked)(st, &view(v), &a));
    }

    fn ssthresh_after_ack(&mut self, v: &SenderView) -> Option<f64> {
        let (mut w, mut some) = (0.0, 0u8);
        self.call("ssthresh_after_ack", Some(v.now), |vt, st| {
            (vt.ssthresh_after_ack)(st, &view(v), &mut w, &mut some)
        })?;
        if some == 0 {
            return None;
        }
        self.window("ssthresh_after_ack", v, w)
    }

    fn ecn_ssthresh(&mut self, v: &SenderView) -> f64 {
        let mut w = 0.0;
        self.call("ecn_ssthresh", Some(v.now), |vt, st| (vt.ecn_ssthresh)(st, &view(v), &mut w))
            .and_then(|()| self.window("ecn_ssthresh", v, w))
            .unwrap_or_else(|| cclab_sim::cc::halve(v))
    }

    fn needs_ecn(&self) -> bool {
        self.needs_ecn
    }

    fn set_state(&mut self, v: &SenderView, new: CaState) {
        self.call("set_state", Some(v.now), |vt, st| (vt.set_state)(st, &view(v), abi::state_code(new)));
    }

    fn cwnd_event(&mut self, v: &SenderView, ev: CwndEvent) {
        self.call("cwnd_event", Some(v.now), |vt, st| (vt.cwnd_event)(st, &view(v), abi::event_code(ev)));
    }

    fn undo_cwnd(&mut self, v: &SenderView) -> Option<f64> {
        let (mut w, mut some) = (0.0, 0u8);
        self.call("undo_cwnd", Some(v.now), |vt, st| (vt.undo_cwnd)(st, &view(v), &mut w, &mut some))?;
        if some == 0 {
            return None;
        }
        self.window("undo_cwnd", v, w)
    }

    fn on_send(&mut self, v: &SenderView, seq: u64) -> CcHeader {
        let mut h = [0u32; 3];
        self.call("on_send", Some(v.now), |vt, st| (vt.on_send)(st, &view(v), seq, &mut h));
        CcHeader(h)
    }

    fn init(&mut self, v: &SenderView) -> Option<CongControl> {
        let (mut c, mut some) = (abi::Control::default(), 0u8);
        self.call("init", Some(v.now), |vt, st| (vt.init)(st, &view(v), &mut c, &mut some))?;
        self.control("init", v, c, some)
    }

    fn cong_control(&mut self, v: &SenderView, rs: &RateSample) -> Option<CongControl> {
        let r = abi::RateSample {
            prior_delivered: rs.prior_delivered,
            delivered: rs.delivered,
            has_interval: rs.interval.is_some() as u8,
            interval_ps: rs.interval.map_or(0, |x| x.0),
            has_delivery_rate: rs.delivery_rate.is_some() as u8,
            delivery_rate_bps: rs.delivery_rate.map_or(0, |x| x.bps()),
            has_rtt: rs.rtt.is_some() as u8,
            rtt_ps: rs.rtt.map_or(0, |x| x.0),
            is_app_limited: rs.is_app_limited as u8,
            losses: rs.losses,
            acked_sacked: rs.acked_sacked,
            prior_in_flight: rs.prior_in_flight,
        };
        let (mut c, mut some) = (abi::Control::default(), 0u8);
        self.call("cong_control", Some(v.now), |vt, st| (vt.cong_control)(st, &view(v), &r, &mut c, &mut some))?;
        self.control("cong_control", v, c, some)
    }

    fn cwnd_event_control(&mut self, v: &SenderView, ev: CwndEvent) -> Option<CongControl> {
        let (mut c, mut some) = (abi::Control::default(), 0u8);
        self.call("cwnd_event_control", Some(v.now), |vt, st| {
            (vt.cwnd_event_control)(st, &view(v), abi::event_code(ev), &mut c, &mut some)
        })?;
        self.control("cwnd_event_control", v, c, some)
    }

    fn set_rng(&mut self, mut rng: rand_pcg::Pcg64) {
        let (hi, lo) = (rng.next_u64(), rng.next_u64());
        self.call("set_rng", None, |vt, st| (vt.set_rng)(st, hi, lo));
    }

    fn observe(&self) -> Option<CcObservation> {
        let mut o = abi::Observation {
            state: Str::EMPTY,
            pacing_gain: 0.0,
            cwnd_gain: 0.0,
            bw_bps: 0.0,
            has_min_rtt: 0,
            min_rtt_ps: 0,
        };
        let mut some = 0u8;
        self.call("observe", None, |vt, st| (vt.observe)(st, &mut o, &mut some))?;
        if some == 0 {
            return None;
        }
        // SAFETY: the state points to a `&'static str` in the plugin, which stays loaded.
        let state = static_state(unsafe { o.state.to_string() });
        Some(CcObservation {
            state,
            pacing_gain: o.pacing_gain,
            cwnd_gain: o.cwnd_gain,
            bw_bps: o.bw_bps,
            min_rtt: (o.has_min_rtt != 0).then_some(SimTime(o.min_rtt_ps)),
        })
    }

    fn uses_rate_samples(&self) -> bool {
        self.rate_samples
    }
}
