//! Congestion controls built in their own crate, against cclab-sim, and loaded by cclab at
//! run time without editing or rebuilding cclab (issue 16; docs/writing-an-algorithm.md).
//!
//! A plugin is a `cdylib` crate that implements [`cclab_sim::cc::CongestionControl`] as a
//! built-in algorithm does and lists its registry entries with [`export!`]:
//!
//! ```ignore
//! cclab_plugin::export! {
//!     Entry { name: "aimd-delay", summary: "...", params: Schema::Read, build: build },
//! }
//! ```
//!
//! and Python loads it with `cclab.load_plugin("target/release/libmy_cc.so")`; its names are
//! then used in scenarios like any other.
//!
//! **Why a C ABI.** Rust has no stable ABI: a `Box<dyn CongestionControl>`, a `BTreeMap` or a
//! `String` handed across a library boundary is only sound if both sides were built by the
//! same compiler from the same cclab-sim source with the same allocator, which nothing at load
//! time could check. So the boundary is plain C ([`abi`]): `#[repr(C)]` copies of the sender's
//! view, the samples and the answers, the parameters as (name, number) pairs, strings as
//! borrowed (pointer, length) pairs that the receiving side copies, and one function per hook
//! taking the algorithm as an opaque pointer. Each side keeps its own allocator and its own
//! copy of cclab-sim; the plugin's Rust code never meets the host's types. The plugin may
//! then be built by another compiler version, in another profile, against another cclab-sim
//! release, as long as the [`abi::ABI_VERSION`] matches, which the loader checks first (the
//! table's header, the version and the cclab-sim version, keeps its layout in every ABI) and
//! refuses otherwise, in one line naming the library and both versions.
//!
//! **What a plugin must not do.** Build with `panic = "abort"` (a panic in a hook is caught
//! and stops the run with an error naming the hook only if it unwinds), or keep pointers it
//! was given past the call (strings are borrowed for the call).
//!
//! [`guest`] is the plugin's side (compiled into the plugin), [`host`] cclab's (the binding
//! calls it with the address of the library's [`abi::SYMBOL`]).

pub mod abi;
pub mod guest;
pub mod host;

pub use cclab_sim;

/// The cclab release this crate (and the cclab-sim beside it) belongs to.
pub const CCLAB_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Exports the listed registry entries (`cclab_sim::registry::Entry<cclab_sim::cc::Builder>`)
/// as this library's plugin table, under the symbol [`abi::SYMBOL`].
#[macro_export]
macro_rules! export {
    ($($entry:expr),+ $(,)?) => {
        /// The cclab plugin table of this library (cclab_plugin::abi).
        #[no_mangle]
        pub extern "C" fn cclab_plugin_entry() -> *const $crate::abi::Table {
            static ENTRIES: &[$crate::cclab_sim::registry::Entry<$crate::cclab_sim::cc::Builder>] = &[$($entry),+];
            $crate::guest::table(ENTRIES)
        }
    };
}
