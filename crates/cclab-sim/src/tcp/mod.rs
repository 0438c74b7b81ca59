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
