//! The memory budget of a run.
//!
//! Rust aborts the process when an allocation fails (`handle_alloc_error`):
//! no panic, nothing to catch, and a notebook kernel dies with it. Validation
//! bounds what a scenario sets up at once (`cclab_sim::scenario::limits`), but
//! a queue without a limit can still grow during a run (a flow in slow start
//! behind unlimited buffers, a UDP source faster than a graph link). So the
//! extension counts the bytes it has allocated, and [`crate::Sim::run_until`]
//! advances in steps of a bounded number of events, stopping the run with a
//! ScenarioError once the count passes the budget, before the system refuses.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes live.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Past this many live bytes an allocation asks every run to stop (`cclab_sim::budget`):
/// the budget of the run that last started or resumed, `usize::MAX` before any has.
static HARD: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Counts `size` more bytes live; past `HARD`, asks the runs to stop.
#[inline]
fn grew(size: usize) {
    let now = LIVE.fetch_add(size, Relaxed) + size;
    if now > HARD.load(Relaxed) {
        cclab_sim::budget::request_stop();
    }
}

/// Arms the stop for a run about to advance with this budget (`None`: no budget), and
/// withdraws an earlier request if the process is back within it.
pub fn arm(budget: Option<usize>) {
    let b = budget.unwrap_or(usize::MAX);
    HARD.store(b, Relaxed);
    if live() <= b {
        cclab_sim::budget::clear();
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            grew(new);
            LIVE.fetch_sub(l.size(), Relaxed);
        }
        q
    }
}

/// Bytes allocated by the extension and not yet freed.
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Bytes a run must hold before the machine's memory is checked as well as its own budget:
/// below it a run is not what exhausts the machine.
pub const MACHINE_CHECK_FLOOR: usize = 256 << 20;

/// Whether the machine is running out of memory: `MemAvailable` below 10 % of `MemTotal`.
/// The budget is taken when a run is built, against what is available then; runs in parallel processes (`cclab reproduce -j 2`, a sweep on processes) each
/// take it against the same free memory, and together they could exhaust the machine
/// before any passes its own (cclab.runner divides the budget among its workers; other
/// programs do not). The run that notices first stops (a runner may retry it alone); the
/// kernel's OOM killer would otherwise kill a process outright. `false` where
/// /proc/meminfo cannot be read.
pub fn machine_short() -> bool {
    let Ok(m) = std::fs::read_to_string("/proc/meminfo") else { return false };
    match (proc_kb(&m, "MemAvailable:"), proc_kb(&m, "MemTotal:")) {
        (Some(avail), Some(total)) => avail < total / 10,
        _ => false,
    }
}

/// A number from a line `Name:   123 kB` of a /proc file, in bytes.
fn proc_kb(text: &str, name: &str) -> Option<usize> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kb: usize = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// How many bytes the extension may hold: `CCLAB_MEMORY_LIMIT` (e.g. "8GiB") if
/// set, else 80 % of what the machine has available and of what the address-space
/// limit (`ulimit -v`, RLIMIT_AS) leaves, on top of what is live now.
/// `None` where neither can be read (not Linux): no budget.
pub fn budget() -> Option<usize> {
    if let Ok(s) = std::env::var("CCLAB_MEMORY_LIMIT") {
        if let Ok(b) = cclab_sim::units::parse_bytes(&s) {
            return Some(b as usize);
        }
    }
    let mut room: Option<usize> = None;
    if let Ok(m) = std::fs::read_to_string("/proc/meminfo") {
        room = proc_kb(&m, "MemAvailable:");
    }
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let as_limit = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(limit) = as_limit {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let used = proc_kb(&status, "VmSize:").unwrap_or(0);
        let left = limit.saturating_sub(used);
        room = Some(room.map_or(left, |r| r.min(left)));
    }
    room.map(|r| live() + r / 10 * 8)
}
