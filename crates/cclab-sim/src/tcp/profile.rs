//! Stack profiles: whose TCP a flow behaves like.
//!
//! Simulators and kernels that all say "NewReno" differ in dozens of details
//! that decide start-up transients: how the RTO is clocked, which ACKs give an
//! RTT sample, what a timeout does to ssthresh, how many packets one ACK may
//! count in slow start, when a new recovery may begin. A profile is one table
//! of those details, chosen per flow group with `stack = "..."`:
//!
//! - [`StackProfile::CCLAB`] (`"cclab"`, the default): cclab's own TCP as it has
//!   always been (RFC 5681/6582/6675/6298 with timestamps), kept unchanged so
//!   that earlier results stay reproducible.
//! - [`StackProfile::NS2`] (`"ns2"`): ns-2.35's `Agent/TCP` family as the papers
//!   ran it (tcp/tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc).
//! - [`StackProfile::LINUX`] (`"linux"`): a current Linux (net/ipv4/tcp_input.c, tcp_recovery.c,
//!   tcp_timer.c, tcp_output.c).
//!
//! Every field says where each stack does what it says. A field written in the
//! scenario (`init_cwnd`, `timestamps`, `rto_min`, ...) overrides the profile's
//! value; the profile only changes defaults and behaviours that have no field.
//! docs/fidelity.md says how to compare a profile with the stack it follows.

use crate::cc::CaState;

/// Which ACKs give an RTT sample when timestamps are off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSampling {
    /// Every ACK that advances snd_una, from the send time of the last segment it
    /// covers (cclab, Linux's `tcp_clean_rtx_queue` without timestamps).
    PerAck,
    /// One timed segment per round trip for the RTO estimator, the timing cancelled by
    /// any retransmission (ns-2: `rtt_active_` / `rtt_seq_` in tcp.cc `output()` and
    /// `newack()`, cancelled in `reset_rtx_timer()`). The congestion control still gets a
    /// sample on every ACK from the echoed send time, as ns-2's sinks echo it (`ts_echo_`)
    /// whatever `timestamps_` says and its delay-based agents read it (tcp/sender.rs).
    OneTimed,
}

pub use super::ca_rtt::CaRtt;

/// How the retransmission timeout follows the RTT samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoEstimator {
    /// RFC 6298 in continuous time, `rto_min` a floor on the timeout (cclab).
    Rfc6298,
    /// RFC 6298 in integer ticks of this many ms (ns-2 `tcpTick_` 10 ms, tcp/rto_ns2.rs).
    Ns2Ticks(u64),
    /// SRTT + max(4 mdev, rto_min) with the variance decayed per round trip (Linux
    /// `tcp_rtt_estimator()`, tcp/rto_linux.rs).
    Linux,
}

/// What a retransmission timeout does to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoSsthresh {
    /// Recomputed only from Open or Disorder; kept in Recovery and Loss (cclab; RFC 5681
    /// allows either after a timeout in recovery).
    OpenOnly,
    /// Recomputed on every timeout from the window then, without the dupack inflation
    /// (ns-2: `slowdown(CLOSE_SSTHRESH_HALF)` in tcp.cc `timeout()`, `dupwnd_` zeroed
    /// first in tcp-reno.cc): about a quarter of the pre-loss window inside recovery.
    Always,
}

/// When a new fast retransmit may begin after the last recovery or timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryBoundary {
    /// Once snd_una >= recover (cclab, RFC 6582 section 4.1's "greater than or equal").
    Inclusive,
    /// Once snd_una > recover, one packet later (ns-2: `highest_ack_ > recover_`
    /// with `recover_ = maxseq_`, tcp-newreno.cc `dupack_action`).
    Strict,
}

/// How many packets one ACK counts towards window growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckCounting {
    /// Appropriate byte counting with limit L = [`AckCounting::ABC_L`] packets (RFC 3465).
    Abc,
    /// One per new ACK whatever it covers (ns-2's `opencwnd()`: +1 in slow start,
    /// +1/cwnd in congestion avoidance, per ACK).
    PerAck,
    /// Every newly acknowledged packet (Linux's `tcp_slow_start()` has no L).
    All,
}

impl AckCounting {
    /// RFC 3465's L: the most packets one ACK counts under `Abc` (the RFC's recommended 2).
    pub const ABC_L: u64 = 2;

    /// The accepted values of a flow group's `ack_counting`.
    pub const NAMES: &'static str = "\"abc\" (RFC 3465 with L = 2), \"per-ack\" or \"all\"";

    /// The scenario name of a counting: `abc` is RFC 3465's with cclab's L = 2.
    pub fn parse(name: &str) -> Option<AckCounting> {
        match name {
            "abc" => Some(AckCounting::Abc),
            "per-ack" => Some(AckCounting::PerAck),
            "all" => Some(AckCounting::All),
            _ => None,
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            AckCounting::Abc => "abc",
            AckCounting::PerAck => "per-ack",
            AckCounting::All => "all",
        }
    }
}

/// How a SACK sender decides that a segment is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossDetection {
    /// RFC 6675: `IsLost` once DupThresh segments above a hole are SACKed, recovery on the
    /// DupThresh-th duplicate ACK, a lost retransmission found only by the timeout.
    Dupthresh,
    /// RACK-TLP (RFC 8985) as Linux runs it (`net.ipv4.tcp_recovery` 1, the default since 4.18,
    /// with RFC 6675's marking off since 5.10; `tcp_early_retrans` 3): a segment is lost when one
    /// sent after it is delivered and RACK.RTT plus a reordering window has passed since it was
    /// sent, retransmissions included; a tail loss probe after about two SRTTs without an ACK
    /// (tcp/rack.rs, tcp/tlp.rs).
    RackTlp,
}

impl LossDetection {
    pub const NAMES: &'static str = "\"dupthresh\" (RFC 6675) or \"rack-tlp\" (RFC 8985)";

    pub fn parse(name: &str) -> Option<LossDetection> {
        match name {
            "dupthresh" => Some(LossDetection::Dupthresh),
            "rack-tlp" => Some(LossDetection::RackTlp),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LossDetection::Dupthresh => "dupthresh",
            LossDetection::RackTlp => "rack-tlp",
        }
    }
}

/// Which sender runs a SACK recovery (`recovery = "sack"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackFlavour {
    /// RFC 6675: `IsLost` marks, a pipe computed from the scoreboard, the scoreboard kept
    /// across ACKs and marked all lost at a timeout (tcp/sender.rs, tcp/scoreboard.rs).
    Rfc6675,
    /// ns-2.35's `Agent/TCP/Sack1` (tcp-sack1.cc `recv`, `dupack_action`, `send_much`,
    /// `timeout`, with scoreboard-rq.cc `GetNextRetran`): a counted pipe, every hole below
    /// the highest SACK resent once, the scoreboard forgotten on each new ACK outside
    /// recovery, at its end and at a timeout (tcp/sack_ns2.rs).
    Ns2Sack1,
}

/// How a flow's `overhead` (a random delay before data leaves the sender) applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOverhead {
    /// Each data packet waits its own uniform draw in [0, overhead], the flow's order kept
    /// (cclab): the flow's packets are spread out.
    PerPacket,
    /// ns-2's delayed send (tcp.cc and tcp-sack1.cc `send_much()`, `delsnd_timer_`;
    /// tcp/delayed_send.rs): when the window lets a packet out and no delay is pending, the
    /// sender draws one delay uniform in [0, overhead] and waits; when it fires, it sends all
    /// the window allows then, back to back. A fast retransmission, a partial ACK's
    /// retransmission and a limited-transmit segment leave at once, as ns-2 sends them with
    /// `output()` directly.
    DelayedSend,
}

/// One stack's TCP details (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackProfile {
    /// The name in scenarios (`stack = "ns2"`).
    pub name: &'static str,
    /// The version of this profile's results, beside `RESULT_VERSION` (which covers every
    /// run): bumped when a change moves the results of runs under this profile only, so
    /// that cached runs that name it are redone (tests/result_version.rs guards it; the
    /// run store keys a run on the versions of the stacks it names).
    pub version: u32,
    /// The version of the results of runs under this profile whose flows have a send
    /// overhead (`overhead`): bumped, instead of `version`, by a change that moves only
    /// those, so that the runs without one keep their place in the run store. 0: not part
    /// of a run's key (the profile's overhead is cclab's, covered by `version`).
    pub overhead_version: u32,
    /// Default initial window, packets (ns-2 `windowInit_` 2; Linux `TCP_INIT_CWND` 10).
    pub init_cwnd: f64,
    /// Default for RFC 7323 timestamps (ns-2 `timestamps_` false; Linux on).
    pub timestamps: bool,
    /// RTO before the first sample (ns-2 `rtxcur_init_` 3 s; Linux `TCP_TIMEOUT_INIT` 1 s).
    pub rto_initial_ms: u64,
    /// Upper bound of the backed-off RTO (ns-2 `maxrto_` 60 s; Linux `TCP_RTO_MAX` 120 s).
    pub rto_max_ms: u64,
    /// How the RTO is computed from the RTT samples.
    pub rto: RtoEstimator,
    pub rtt_sampling: RttSampling,
    pub ca_rtt: CaRtt,
    /// Karn's rule over the whole ACK: no RTT sample from an ACK that covers any
    /// retransmitted segment (RFC 6298 section 3; Linux `FLAG_RETRANS_DATA_ACKED`).
    /// Without it only the last covered segment is looked at, and a cumulative ACK
    /// released by a repaired hole gives an inflated sample that clears the backoff.
    /// `false` only in [`StackProfile::CCLAB`], until the reproduction reports made
    /// with the old rule are replaced (issue 14); then it becomes `true` there too.
    pub karn: bool,
    pub rto_ssthresh: RtoSsthresh,
    pub recovery_boundary: RecoveryBoundary,
    pub ack_counting: AckCounting,
    /// The fast retransmit restarts the retransmission timer from now (ns-2's
    /// `dupack_action` calls `reset_rtx_timer(1, 0)`; Linux re-arms it when
    /// `tcp_xmit_retransmit_queue()` resends the head). cclab keeps the deadline
    /// from the last new ACK.
    pub rearm_on_fast_retransmit: bool,
    /// Limited transmit (RFC 3042): each of the first two duplicate ACKs lets one new
    /// segment out (ns-2 `singledup_` 1, tcp.cc `send_one()`; Linux counts them as SACKed,
    /// which frees the same room). Not in cclab's own TCP.
    pub limited_transmit: bool,
    /// A connection opens with a header-only segment: seq 0 is a SYN of `ack_size` bytes sent
    /// with a window of 1, and its ACK sets the window to `init_cwnd` (ns-2 `syn_` and
    /// `delay_growth_`, both on by default: tcp.cc `set_initial_window()`, `output()` sizes
    /// the SYN, `newack` callers open to `initial_window()` when `highest_ack_` is 0). Data
    /// starts one round trip later, and the first RTT sample is the SYN's. Linux's handshake
    /// is not modelled yet. A flow group's `handshake` overrides it.
    pub syn: bool,
    /// Loss recovery defaults to SACK (RFC 2018 / 6675) for every algorithm (Linux
    /// `net.ipv4.tcp_sack` 1); otherwise Reno for `reno` and NewReno for the others.
    pub sack: bool,
    /// In SACK recovery the window follows Proportional Rate Reduction (RFC 6937, tcp/prr.rs,
    /// Linux `tcp_cwnd_reduction()`) instead of dropping to ssthresh at once (RFC 6675).
    pub prr: bool,
    /// The receiver delays ACKs by default (RFC 1122 / 5681: every second segment or at
    /// the timer; Linux always does, ns-2's default `Agent/TCPSink` does not).
    pub delayed_ack: bool,
    /// Default delayed-ACK timeout, ms (ns-2 `interval_` 100 ms; Linux `TCP_DELACK_MIN` 40 ms,
    /// the value its adaptive ato settles at for back-to-back data; the adaptation and the
    /// bound by the RTT are not modelled).
    pub delack_timeout_ms: u64,
    /// With delayed ACKs, the first ACKs of a connection that go out at once (Linux
    /// `tcp_incr_quickack()` at the first data segment: min(rcv_wnd / (2 rcv_mss),
    /// `TCP_MAX_QUICKACKS` 16); the first receive window is about 64 KB since Linux 5.4, more
    /// than 32 segments, so 16; its re-entry after an idle period longer than the RTO or on a
    /// CE mark is not modelled).
    pub quickacks: u32,
    /// The receiver models Linux's receive-buffer autotuning (tcp/rcv_autotune.rs): each data
    /// segment that grows its window threshold is acknowledged at once (`tcp_grow_window()`),
    /// which in a slow start is most of them.
    pub rcv_autotune: bool,
    /// The algorithm this stack runs for a `cc` name, where its own differs: (name in the
    /// scenario, registry name built). ns-2's Vegas is not Linux's (cc/vegas_ns2.rs); Linux's
    /// BIC and CUBIC are not the papers' and RFC's (cc/bic_linux.rs, cc/cubic_linux.rs).
    pub cc_variants: &'static [(&'static str, &'static str)],
    /// The opening segment (seq 0, with `syn`) carries a full packet instead of headers only
    /// (ns-2's Vegas: its own `output()` sizes every segment alike; see `for_algorithm`).
    pub syn_full_size: bool,
    /// The SACK sender (only with `recovery = "sack"`).
    pub sack_flavour: SackFlavour,
    /// How the RFC 6675 SACK sender detects losses (only with `recovery = "sack"` and
    /// `sack_flavour` Rfc6675). A flow group's `loss_detection` overrides it.
    pub loss_detection: LossDetection,
    /// How `overhead` delays data (only with `overhead` above zero).
    pub send_overhead: SendOverhead,
    /// With ECN, retransmissions are ECN-capable too (ns-2's tcp.cc `output()` sets `ect()` on
    /// every data packet); RFC 3168 section 6.1.5, Linux and ns-3 send them Not-ECT.
    pub ect_retransmits: bool,
}

impl StackProfile {
    pub const CCLAB: StackProfile = StackProfile {
        name: "cclab",
        // The default profile's results are RESULT_VERSION's alone.
        version: 0,
        overhead_version: 0,
        init_cwnd: 2.0,
        timestamps: true,
        rto_initial_ms: 1000,
        rto_max_ms: 60_000,
        rto: RtoEstimator::Rfc6298,
        rtt_sampling: RttSampling::PerAck,
        ca_rtt: CaRtt::Estimator,
        karn: false,
        rto_ssthresh: RtoSsthresh::OpenOnly,
        recovery_boundary: RecoveryBoundary::Inclusive,
        ack_counting: AckCounting::Abc,
        rearm_on_fast_retransmit: false,
        limited_transmit: false,
        syn: false,
        sack: false,
        prr: false,
        delayed_ack: false,
        delack_timeout_ms: 100,
        quickacks: 0,
        rcv_autotune: false,
        cc_variants: &[],
        syn_full_size: false,
        sack_flavour: SackFlavour::Rfc6675,
        send_overhead: SendOverhead::PerPacket,
        ect_retransmits: false,
        loss_detection: LossDetection::Dupthresh,
    };

    pub const NS2: StackProfile = StackProfile {
        name: "ns2",
        version: 4,
        // 1: ns-2's delayed send decides what leaves when its delay ends (delayed_send.rs);
        // 2: and Sack1's send_much then resends the scoreboard's holes (sack_ns2.rs).
        overhead_version: 2,
        init_cwnd: 2.0,
        timestamps: false,
        rto_initial_ms: 3000,
        rto_max_ms: 60_000,
        rto: RtoEstimator::Ns2Ticks(10),
        rtt_sampling: RttSampling::OneTimed,
        ca_rtt: CaRtt::Estimator,
        karn: true,
        rto_ssthresh: RtoSsthresh::Always,
        recovery_boundary: RecoveryBoundary::Strict,
        ack_counting: AckCounting::PerAck,
        rearm_on_fast_retransmit: true,
        limited_transmit: true,
        syn: true,
        sack: false,
        prr: false,
        delayed_ack: false,
        delack_timeout_ms: 100,
        quickacks: 0,
        rcv_autotune: false,
        cc_variants: &[("vegas", "vegas-ns2")],
        syn_full_size: false,
        sack_flavour: SackFlavour::Ns2Sack1,
        send_overhead: SendOverhead::DelayedSend,
        ect_retransmits: true,
        loss_detection: LossDetection::Dupthresh,
    };

    pub const LINUX: StackProfile = StackProfile {
        name: "linux",
        // 2: HyStart for CUBIC. 3: RACK-TLP. 4: Linux's BIC. 5: Linux's CUBIC. 6: Linux's
        // CUBIC and BIC under an add-on too. 7: the congestion control's RTT is Linux's ca_rtt.
        // 8: Linux's Vegas (its decision in whole packets and microseconds). 9: receive-buffer
        // autotuning with its quick ACKs, and 16 quick ACKs at the first segment.
        version: 9,
        overhead_version: 0,
        init_cwnd: 10.0,
        timestamps: true,
        rto_initial_ms: 1000,
        rto_max_ms: 120_000,
        rto: RtoEstimator::Linux,
        rtt_sampling: RttSampling::PerAck,
        ca_rtt: CaRtt::NewestDelivered,
        karn: true,
        rto_ssthresh: RtoSsthresh::OpenOnly,
        recovery_boundary: RecoveryBoundary::Inclusive,
        ack_counting: AckCounting::All,
        rearm_on_fast_retransmit: true,
        limited_transmit: true,
        syn: false,
        sack: true,
        prr: true,
        delayed_ack: true,
        delack_timeout_ms: 40,
        quickacks: 16,
        rcv_autotune: true,
        cc_variants: &[("bic", "bic-linux"), ("cubic", "cubic-linux"), ("vegas", "vegas-linux")],
        syn_full_size: false,
        sack_flavour: SackFlavour::Rfc6675,
        send_overhead: SendOverhead::PerPacket,
        ect_retransmits: false,
        loss_detection: LossDetection::RackTlp,
    };

    /// Every profile, the default first.
    pub const ALL: [StackProfile; 3] = [Self::CCLAB, Self::NS2, Self::LINUX];

    /// The accepted names, for error messages.
    /// RFC 3465's L: the most packets one ACK counts under `Abc` (the RFC's recommended 2).
    pub const ABC_L: u64 = 2;

    pub const NAMES: &'static str = "\"cclab\" (default), \"ns2\" or \"linux\"";

    /// The registry name to build for `cc` under this stack; an add-on keeps its name and
    /// wraps the stack's variant (`cubic+ktcp` under `linux` is `cubic-linux+ktcp`).
    pub fn variant_of(&self, cc: &str) -> String {
        let (inner, add_on) = match cc.split_once('+') {
            Some((inner, add_on)) => (inner, Some(add_on)),
            None => (cc, None),
        };
        let v = self.cc_variants.iter().find(|(n, _)| *n == inner).map_or(inner, |(_, v)| v);
        match add_on {
            Some(a) => format!("{v}+{a}"),
            None => v.to_string(),
        }
    }

    /// The profile as it applies to the algorithm built as `build_name`: ns-2's
    /// `Agent/TCP/Vegas` overrides `output()` and `recv()`, so its seq 0 is a full packet
    /// (tcp-vegas.cc `output`, no `headersize()`) and it has no limited transmit (its `recv`
    /// never calls `send_one()`).
    pub fn for_algorithm(mut self, build_name: &str) -> StackProfile {
        if build_name == "vegas-ns2" {
            self.syn_full_size = true;
            self.limited_transmit = false;
        }
        self
    }

    pub fn parse(name: &str) -> Option<StackProfile> {
        Self::ALL.into_iter().find(|p| p.name == name)
    }

    /// On a timeout in `state`: the window to compute the new ssthresh from, or `None`
    /// to keep ssthresh. ns-2 zeroes the dupack inflation (`dupwnd_`) before halving,
    /// so inside recovery the window it halves is at most ssthresh.
    pub fn rto_ssthresh_from(&self, state: CaState, cwnd: f64, ssthresh: f64) -> Option<f64> {
        match (self.rto_ssthresh, state) {
            (_, CaState::Open | CaState::Disorder) => Some(cwnd),
            (RtoSsthresh::OpenOnly, _) => None,
            (RtoSsthresh::Always, CaState::Recovery) => Some(cwnd.min(ssthresh)),
            (RtoSsthresh::Always, CaState::Loss) => Some(cwnd),
        }
    }

    /// The packets an ACK outside recovery counts towards window growth, `fresh` being those
    /// it newly acknowledges that were not SACKed before.
    pub fn counted(&self, fresh: u64) -> u32 {
        match self.ack_counting {
            AckCounting::Abc => fresh.min(AckCounting::ABC_L) as u32,
            AckCounting::PerAck => 1,
            AckCounting::All => fresh.min(u32::MAX as u64) as u32,
        }
    }

    /// Whether a fast retransmit may start a new recovery with snd_una at `una` and the
    /// last recovery point at `recover` (RFC 6582 section 4, RFC 6675's RecoveryPoint,
    /// and for Reno ns-2's `bugfix_`: a second loss in a window waits for the timer).
    /// ns-2 waits one packet more (`highest_ack_ > recover_`), except before any
    /// recovery point is set (its `bugfix_ss_` case: the first data lost).
    pub fn may_recover(&self, una: u64, recover: u64) -> bool {
        match self.recovery_boundary {
            RecoveryBoundary::Inclusive => una >= recover,
            RecoveryBoundary::Strict => una > recover || recover == 0,
        }
    }
}

impl Default for StackProfile {
    fn default() -> Self {
        Self::CCLAB
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_their_profile_and_nothing_else_does() {
        for p in StackProfile::ALL {
            assert_eq!(StackProfile::parse(p.name), Some(p));
            assert!(StackProfile::NAMES.contains(&format!("\"{}\"", p.name)));
        }
        assert_eq!(StackProfile::parse("ns-2"), None);
        assert_eq!(StackProfile::default(), StackProfile::CCLAB);
    }

    #[test]
    fn ack_counting_names_round_trip_and_count_as_named() {
        for a in [AckCounting::Abc, AckCounting::PerAck, AckCounting::All] {
            assert_eq!(AckCounting::parse(a.name()), Some(a));
            assert!(AckCounting::NAMES.contains(&format!("\"{}\"", a.name())));
        }
        assert_eq!(AckCounting::parse("ABC"), None);
        // A delayed ACK covering 2 packets, a stretch ACK covering 5.
        let with = |a| StackProfile { ack_counting: a, ..StackProfile::CCLAB };
        assert_eq!([2, 5].map(|n| with(AckCounting::Abc).counted(n)), [2, 2]);
        assert_eq!([2, 5].map(|n| with(AckCounting::PerAck).counted(n)), [1, 1]);
        assert_eq!([2, 5].map(|n| with(AckCounting::All).counted(n)), [2, 5]);
    }
}
