//! A request, from whoever watches this process's memory, that every run stop now.
//!
//! The Python binding counts the bytes it allocates (crates/cclab-py/src/memory.rs) and
//! checks them against its budget between steps of a run. One event can outgrow any step,
//! though: an ACK that opens a window by millions of packets (TCP-GT's eq. (15) at a
//! 1 s RTT) sends them all in that event, into an unlimited access buffer, and the process
//! runs out of memory inside it. So the allocator raises this flag the moment the count
//! passes the budget; a sender stops sending mid-burst and the event loop returns, and the
//! binding then stops the run with its error. A run is never resumed after that, so what
//! the flag cuts short is never measured. Nothing in the core raises it: without a binding
//! that does, runs are exactly as before (one relaxed load per event and per packet sent).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

static STOP: AtomicBool = AtomicBool::new(false);

/// Asks every run in this process to stop at once.
pub fn request_stop() {
    STOP.store(true, Relaxed);
}

/// Withdraws the request (before a run starts or resumes within its budget).
pub fn clear() {
    STOP.store(false, Relaxed);
}

/// Whether a stop was requested.
#[inline]
pub fn stop_requested() -> bool {
    STOP.load(Relaxed)
}
