//! The plugin's side of the ABI: compiled into the plugin library (with its own copy of
//! cclab-sim), it turns the C calls back into the trait's calls on the algorithm the plugin's
//! registry entry built. [`crate::export!`] calls [`table`].
//!
//! Every hook runs under `catch_unwind`: a panic in the algorithm is kept as the thread's last
//! error and reported as [`abi::PANICKED`], never unwound into cclab (which would abort).

use crate::abi::{self, Status, Str, OK, PANICKED, REFUSED};
use cclab_sim::cc::{AckSample, Builder, CcHeader, CongControl, CongestionControl, Params, RateSample, SenderView};
use cclab_sim::registry::{Entry, Schema};
use cclab_sim::units::{Rate, SimTime};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

type Algo = Box<dyn CongestionControl>;

/// The table and everything it points to, made once per library.
struct Made {
    entries: &'static [Entry<Builder>],
    // What the table's pointers point into: kept here for the life of the library.
    _specs: Vec<Vec<abi::ParamSpec>>,
    _texts: Vec<String>,
    _c_entries: Vec<abi::Entry>,
    table: abi::Table,
}

// SAFETY: the raw pointers point into data owned by `Made` itself, never mutated after it is
// made, and read-only for every thread.
unsafe impl Send for Made {}
unsafe impl Sync for Made {}

static MADE: OnceLock<Made> = OnceLock::new();

static VTABLE: abi::VTable = abi::VTable {
    build,
    drop: drop_algo,
    ssthresh,
    cong_avoid,
    pkts_acked,
    ssthresh_after_ack,
    ecn_ssthresh,
    needs_ecn,
    set_state,
    cwnd_event,
    undo_cwnd,
    on_send,
    init,
    cong_control,
    cwnd_event_control,
    set_rng,
    observe,
    uses_rate_samples,
    last_error,
};

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
    static REFUSAL: RefCell<(String, String, String)> = const { RefCell::new((String::new(), String::new(), String::new())) };
}

/// The plugin table of `entries` (made on the first call; later calls return the same table).
/// Returns null if making it panicked.
pub fn table(entries: &'static [Entry<Builder>]) -> *const abi::Table {
    let made = catch_unwind(|| {
        MADE.get_or_init(|| {
            // Strings are moved into `texts` after their pointers are taken: a String's heap
            // buffer does not move with it.
            let mut texts: Vec<String> = Vec::new();
            let mut keep = |s: String| {
                let p = abi::Str::new(&s);
                texts.push(s);
                p
            };
            let mut specs = Vec::new();
            for e in entries {
                let list = match e.params {
                    Schema::Declared(t) => t.to_vec(),
                    Schema::Read => cclab_sim::registry::read_params(|| drop((e.build)(&Params::new()))),
                };
                specs.push(
                    list.into_iter()
                        .map(|p| abi::ParamSpec {
                            name: keep(p.name.into_owned()),
                            kind: keep(p.kind.into_owned()),
                            unit: keep(p.unit.into_owned()),
                            default: keep(p.default.into_owned()),
                            accepted: keep(p.accepted.into_owned()),
                        })
                        .collect::<Vec<_>>(),
                );
            }
            let c_entries: Vec<abi::Entry> = entries
                .iter()
                .zip(&specs)
                .map(|(e, s)| abi::Entry {
                    name: Str::new(e.name),
                    summary: Str::new(e.summary),
                    params: s.as_ptr(),
                    n_params: s.len(),
                })
                .collect();
            let table = abi::Table {
                abi_version: abi::ABI_VERSION,
                cclab_version: Str::new(crate::CCLAB_VERSION),
                n_entries: c_entries.len(),
                entries: c_entries.as_ptr(),
                vtable: &VTABLE,
            };
            Made { entries, _specs: specs, _texts: texts, _c_entries: c_entries, table }
        }) as *const Made
    });
    match made {
        // SAFETY: `MADE` lives as long as the library.
        Ok(m) => unsafe { &(*m).table },
        Err(_) => std::ptr::null(),
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs `f` on the algorithm behind `st`, catching a panic.
fn with(st: abi::State, f: impl FnOnce(&mut Algo)) -> Status {
    // SAFETY: `st` is what `build` returned (a leaked `Box<Algo>`), not yet dropped; the host
    // calls one hook at a time per algorithm.
    let algo = unsafe { &mut *(st as *mut Algo) };
    match catch_unwind(AssertUnwindSafe(|| f(algo))) {
        Ok(()) => OK,
        Err(p) => {
            LAST_ERROR.with(|e| *e.borrow_mut() = panic_text(p));
            PANICKED
        }
    }
}

fn t(ps: u64) -> SimTime {
    SimTime(ps)
}

fn view(v: &abi::View) -> SenderView {
    SenderView {
        now: t(v.now_ps),
        cwnd: v.cwnd,
        ssthresh: v.ssthresh,
        flight_size: v.flight_size,
        srtt: t(v.srtt_ps),
        rtt_min: t(v.rtt_min_ps),
        mss: v.mss,
        state: abi::state_of(v.state),
        snd_una: v.snd_una,
        snd_nxt: v.snd_nxt,
        in_flight: v.in_flight,
        delivered: v.delivered,
        delivered_time: t(v.delivered_time_ps),
        lost: v.lost,
        app_limited: v.app_limited != 0,
        next_tx_time: t(v.next_tx_time_ps),
        // Not carried by this ABI version (BBRv3's inputs came later): a plugin sees false.
        is_cwnd_limited: false,
    }
}

fn control(c: CongControl) -> abi::Control {
    abi::Control {
        cwnd: c.cwnd,
        has_pacing_rate: c.pacing_rate.is_some() as u8,
        pacing_rate_bps: c.pacing_rate.map_or(0, |r| r.bps()),
        mark_app_limited: c.mark_app_limited as u8,
    }
}

fn put_control(c: Option<CongControl>, out: &mut abi::Control, some: &mut u8) {
    *some = c.is_some() as u8;
    if let Some(c) = c {
        *out = control(c);
    }
}

extern "C" fn build(
    entry: usize,
    params: *const abi::Param,
    n: usize,
    out: *mut abi::State,
    err: *mut abi::ErrorOut,
) -> Status {
    let r = catch_unwind(|| {
        let made = MADE.get().expect("the table is made before build is called");
        let e = made.entries.get(entry).expect("entry index from the table");
        let mut p = Params::new();
        if n > 0 {
            // SAFETY: the host passes `n` parameters whose strings live for this call.
            for q in unsafe { std::slice::from_raw_parts(params, n) } {
                p.insert(unsafe { q.name.to_string() }, q.value);
            }
        }
        (e.build)(&p)
    });
    match r {
        Ok(Ok(algo)) => {
            // SAFETY: `out` is the host's writable slot.
            unsafe { *out = Box::into_raw(Box::new(algo)) as abi::State };
            OK
        }
        Ok(Err(e)) => REFUSAL.with(|x| {
            let mut x = x.borrow_mut();
            *x = (e.param, e.value, e.accepted);
            // SAFETY: `err` is the host's writable slot; the strings stay in REFUSAL until the next build.
            unsafe { *err = abi::ErrorOut { param: Str::new(&x.0), value: Str::new(&x.1), accepted: Str::new(&x.2) } };
            REFUSED
        }),
        Err(p) => {
            LAST_ERROR.with(|e| *e.borrow_mut() = panic_text(p));
            PANICKED
        }
    }
}

extern "C" fn drop_algo(st: abi::State) {
    // SAFETY: `st` came from `build` and is dropped once.
    let b = unsafe { Box::from_raw(st as *mut Algo) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(b)));
}

extern "C" fn ssthresh(st: abi::State, v: &abi::View, out: &mut f64) -> Status {
    with(st, |a| *out = a.ssthresh(&view(v)))
}

extern "C" fn cong_avoid(st: abi::State, v: &abi::View, acked: u32, out: &mut f64) -> Status {
    with(st, |a| *out = a.cong_avoid(&view(v), acked))
}

extern "C" fn pkts_acked(st: abi::State, v: &abi::View, s: &abi::Ack) -> Status {
    let s = AckSample {
        acked: s.acked,
        rtt: (s.has_rtt != 0).then(|| t(s.rtt_ps)),
        rcv_tsval: t(s.rcv_tsval_ps),
        cc_echo: CcHeader(s.cc_echo),
        ece: s.ece != 0,
    };
    with(st, |a| a.pkts_acked(&view(v), &s))
}

extern "C" fn ssthresh_after_ack(st: abi::State, v: &abi::View, out: &mut f64, some: &mut u8) -> Status {
    with(st, |a| {
        let x = a.ssthresh_after_ack(&view(v));
        *some = x.is_some() as u8;
        *out = x.unwrap_or(0.0);
    })
}

extern "C" fn ecn_ssthresh(st: abi::State, v: &abi::View, out: &mut f64) -> Status {
    with(st, |a| *out = a.ecn_ssthresh(&view(v)))
}

extern "C" fn needs_ecn(st: abi::State, out: &mut u8) -> Status {
    with(st, |a| *out = a.needs_ecn() as u8)
}

extern "C" fn set_state(st: abi::State, v: &abi::View, state: u32) -> Status {
    with(st, |a| a.set_state(&view(v), abi::state_of(state)))
}

extern "C" fn cwnd_event(st: abi::State, v: &abi::View, event: u32) -> Status {
    with(st, |a| a.cwnd_event(&view(v), abi::event_of(event)))
}

extern "C" fn undo_cwnd(st: abi::State, v: &abi::View, out: &mut f64, some: &mut u8) -> Status {
    with(st, |a| {
        let x = a.undo_cwnd(&view(v));
        *some = x.is_some() as u8;
        *out = x.unwrap_or(0.0);
    })
}

extern "C" fn on_send(st: abi::State, v: &abi::View, seq: u64, out: &mut [u32; 3]) -> Status {
    with(st, |a| *out = a.on_send(&view(v), seq).0)
}

extern "C" fn init(st: abi::State, v: &abi::View, out: &mut abi::Control, some: &mut u8) -> Status {
    with(st, |a| put_control(a.init(&view(v)), out, some))
}

extern "C" fn cong_control(
    st: abi::State,
    v: &abi::View,
    rs: &abi::RateSample,
    out: &mut abi::Control,
    some: &mut u8,
) -> Status {
    let rs = RateSample {
        prior_delivered: rs.prior_delivered,
        delivered: rs.delivered,
        interval: (rs.has_interval != 0).then(|| t(rs.interval_ps)),
        delivery_rate: (rs.has_delivery_rate != 0).then_some(Rate(rs.delivery_rate_bps)),
        rtt: (rs.has_rtt != 0).then(|| t(rs.rtt_ps)),
        is_app_limited: rs.is_app_limited != 0,
        losses: rs.losses,
        acked_sacked: rs.acked_sacked,
        prior_in_flight: rs.prior_in_flight,
        // Not carried by this ABI version (BBRv3's inputs came later): a plugin sees 0.
        tx_in_flight: 0,
        lost: 0,
        delivered_ce: 0,
        is_ece: false,
    };
    with(st, |a| put_control(a.cong_control(&view(v), &rs), out, some))
}

extern "C" fn cwnd_event_control(
    st: abi::State,
    v: &abi::View,
    event: u32,
    out: &mut abi::Control,
    some: &mut u8,
) -> Status {
    with(st, |a| put_control(a.cwnd_event_control(&view(v), abi::event_of(event)), out, some))
}

extern "C" fn set_rng(st: abi::State, hi: u64, lo: u64) -> Status {
    // The flow's stream reaches the plugin as a seed drawn from it (the generator's state is
    // not public): deterministic per run, not the numbers a built-in would draw.
    let seed = ((hi as u128) << 64) | lo as u128;
    with(st, |a| a.set_rng(rand_pcg::Pcg64::new(seed, 0x0a02_bdbf_7bb3_c0a7_ac28_fa16_a64a_bf96)))
}

extern "C" fn observe(st: abi::State, out: &mut abi::Observation, some: &mut u8) -> Status {
    with(st, |a| {
        let o = a.observe();
        *some = o.is_some() as u8;
        if let Some(o) = o {
            *out = abi::Observation {
                state: Str::new(o.state),
                pacing_gain: o.pacing_gain,
                cwnd_gain: o.cwnd_gain,
                bw_bps: o.bw_bps,
                has_min_rtt: o.min_rtt.is_some() as u8,
                min_rtt_ps: o.min_rtt.map_or(0, |x| x.0),
            };
        }
    })
}

extern "C" fn uses_rate_samples(st: abi::State, out: &mut u8) -> Status {
    with(st, |a| *out = a.uses_rate_samples() as u8)
}

extern "C" fn last_error(out: &mut Str) {
    LAST_ERROR.with(|e| *out = Str::new(&e.borrow()));
}
