//! TCP endpoints as the papers' ns-2 agents behave: a sender with a choice of
//! loss recovery, a receiver with SACK, timestamps and delayed ACKs.

pub mod ca_rtt;
pub mod config;
mod cong_control;
pub mod delayed_send;
mod ecn;
pub mod pacing;
pub mod profile;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod rcv_autotune;
pub mod receiver;
pub mod recovery;
pub mod rto_linux;
pub mod rto_ns2;
pub mod rtt;
pub mod rtt_timing;
mod sack_ns2;
pub mod scoreboard;
pub mod sender;
mod timeout;
pub mod tlp;

pub use config::TcpConfig;
pub use profile::{LossDetection, SackFlavour, SendOverhead, StackProfile};
pub use receiver::{EcnFeedback, Receiver, ReceiverConfig};
pub use recovery::Recovery;
pub use rtt::RtoConfig;
pub use sender::{Sender, Timer};

/// The version of the results of flows whose algorithm sets the window from rate samples
/// (`CongestionControl::uses_rate_samples`: bbr, bbr3, an add-on over either, a user algorithm
/// with a `cong_control` hook), beside `crate::RESULT_VERSION`: a change that moves only those
/// flows bumps it, which keys only the cached runs with such a flow (python/cclab/store.py),
/// instead of discarding every cached run. `tests/result_version.rs` checks the bump.
/// - 1: a loss response (SACK recovery's entry and exit, an ECN echo, a TLP-repaired loss)
///   leaves such a flow's window alone, as Linux does (`Sender::reduce_cwnd_to`); before, BBR's
///   infinite ssthresh became its window and, on leaving recovery, wrapped it to 4 packets.
pub const CONG_CONTROL_VERSION: u32 = 1;
