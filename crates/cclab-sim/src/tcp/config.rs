//! Per-flow TCP settings, filled from a flow group's scenario fields and its stack profile.

use super::profile::StackProfile;
use super::recovery::Recovery;
use super::rtt::RtoConfig;
use crate::units::SimTime;

/// Per-flow TCP settings.
#[derive(Clone, Copy, Debug)]
pub struct TcpConfig {
    /// Data packet size on the wire, bytes.
    pub mss: u32,
    /// ACK size on the wire, bytes.
    pub ack_size: u32,
    pub recovery: Recovery,
    /// Initial congestion window, packets.
    pub init_cwnd: f64,
    /// Initial slow-start threshold, packets.
    pub init_ssthresh: f64,
    /// Receiver window, packets.
    pub rwnd: u64,
    pub rto: RtoConfig,
    /// RFC 7323 timestamps: RTT measured on every ACK. Without them, one
    /// sample per ACK from the send time of a never-retransmitted segment (Karn).
    pub timestamps: bool,
    /// The tick of the timestamp clock (zero: exact). An RTT from an echoed timestamp counts
    /// whole ticks; ns-3.44's TSval is in milliseconds (tcp-option-ts.cc `NowToTsValue`).
    pub ts_clock: SimTime,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupthresh: u32,
    /// A retransmitted segment stays in `pipe` once SACKed, until the cumulative ACK covers
    /// it, as ns-3.44's TcpTxBuffer counts it (scoreboard.rs); RFC 6675 and Linux drop it
    /// from `pipe` at its SACK (false, the default).
    pub sacked_retx_in_pipe: bool,
    /// A segment marked lost is resent only below the highest SACKed segment (RFC 6675
    /// NextSeg rule (1.b)), as ns-3.44's TcpTxBuffer::NextSeg applies it in every state,
    /// after a timeout too (scoreboard.rs); false, the default, resends every lost segment
    /// from `snd_una`, as Linux's tcp_xmit_retransmit_queue does.
    pub resend_below_high_sack: bool,
    /// ECN (RFC 3168): data is ECN-capable, and an ECN echo reduces the window as a loss would.
    pub ecn: bool,
    /// With `ecn`: data carries ECT(1), the L4S identifier (RFC 9331), instead of ECT(0).
    pub l4s: bool,
    /// Whose TCP details to follow (tcp/profile.rs).
    pub stack: StackProfile,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1500,
            ack_size: 40,
            recovery: Recovery::NewReno,
            init_cwnd: 2.0,
            init_ssthresh: f64::INFINITY,
            rwnd: u64::MAX,
            rto: RtoConfig::default(),
            timestamps: true,
            ts_clock: SimTime::ZERO,
            dupthresh: 3,
            sacked_retx_in_pipe: false,
            resend_below_high_sack: false,
            ecn: false,
            l4s: false,
            stack: StackProfile::CCLAB,
        }
    }
}
