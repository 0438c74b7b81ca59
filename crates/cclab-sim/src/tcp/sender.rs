//! The TCP sender: transmission, ACK processing, fast retransmit and
//! recovery (`recovery.rs`), and the retransmission timer (RFC 6298).
//!
//! Sequence numbers count segments, as ns-2's agents do. The congestion
//! window is an `f64` number of packets owned by the sender; the
//! congestion-control algorithm proposes new values and the sender applies
//! them (ssthresh on loss, cwnd on ACKs outside recovery).
//!
//! The sender talks to the simulation only through its arguments: it appends
//! packets to send to `out` and exposes the deadlines of its retransmission
//! and pacing timers; the simulation schedules them lazily, so re-arming the
//! retransmission timer on every ACK costs a field write, not an event.
//!
//! For an algorithm that `uses_rate_samples`, every ACK also yields a
//! delivery-rate sample (`rate.rs`), from which its `cong_control` sets the
//! window and a pacing rate; with a pacing rate, data segments leave no faster
//! than wire size / rate apart (`pacing.rs`), and a sender that must wait asks
//! for the pacing timer.

pub use super::config::TcpConfig;
use super::delayed_send::DelayedSend;
use super::pacing::Pacer;
use super::profile::{CaRtt, LossDetection, RttSampling, SackFlavour};
use super::prr::Prr;
use super::rack::Detected;
use super::rate::{RateEstimator, TxSnapshot};
use super::recovery::Recovery;
use super::rtt::RttEstimator;
use super::rtt_timing::TimedSegment;
use super::sack_ns2::Sack1;
use super::scoreboard::Scoreboard;
use super::tlp::Probe;
use crate::cc::{AckSample, CaState, CongestionControl, CwndEvent, SenderView};
use crate::packet::{Kind, Packet, SackBlock, CWR, ECE, ECT, ECT1, SYN};
use crate::units::SimTime;

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// Data packets sent, retransmissions included.
    pub sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// Window reductions in response to ECN echoes.
    pub ecn_reductions: u64,
    /// Tail loss probes sent (tlp.rs).
    pub loss_probes: u64,
}

/// What the sender's one timer is set for (Linux's `icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The retransmission timeout (RFC 6298).
    Rto,
    /// RACK's reordering window ends (rack.rs).
    Reorder,
    /// The tail loss probe (tlp.rs).
    LossProbe,
}

pub struct Sender {
    pub cfg: TcpConfig,
    pub cc: Box<dyn CongestionControl>,
    flow: u32,
    pub sb: Scoreboard,
    /// RFC 7323 TS.Recent: the newest timestamp of the receiver's ACKs, echoed by each data
    /// segment (the receiver's own RTT measure, tcp/rcv_autotune.rs, reads it).
    ts_recent: SimTime,
    /// Next segment to send in window-based sending (go-back-N after an RTO).
    pub(super) snd_nxt: u64,
    /// Segments the application makes available (`u64::MAX`: unlimited).
    pub(super) limit: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub state: CaState,
    pub(super) dupacks: u32,
    /// `snd_max` when the current recovery started: recovery ends once the ACK reaches it.
    pub(super) recover: u64,
    pub(super) partial_acks: u32,
    /// No ECN reduction until the ACK passes this (once per window, RFC 3168 section 6.1.2).
    pub(super) ecn_recover: u64,
    /// Set CWR on the next data segment.
    pub(super) send_cwr: bool,
    pub rtt: RttEstimator,
    /// ns-2's one timed segment (RttSampling::OneTimed without timestamps).
    pub(super) timed: TimedSegment,
    /// When the timer expires, if it is running, and what for.
    pub rto_deadline: Option<SimTime>,
    pub timer: Timer,
    /// Tail loss probes (profile `loss_detection`, tlp.rs), and the one in flight.
    pub(super) tlp_on: bool,
    pub probe: Option<Probe>,
    pub stats: SenderStats,
    /// When the last segment of a finite flow was acknowledged.
    pub completed_at: Option<SimTime>,
    pub started: bool,
    /// Delivery-rate estimation (Linux `tcp_rate.c`), kept only when the algorithm
    /// `uses_rate_samples`.
    pub rate: RateEstimator,
    pub(super) rate_samples: bool,
    /// The window limited the last flight (Linux `tp->is_cwnd_limited`, `cwnd_usage_seq`):
    /// kept for an algorithm that `uses_rate_samples`.
    pub(super) is_cwnd_limited: bool,
    pub(super) cwnd_usage_seq: u64,
    /// The pacing rate the algorithm's `cong_control` or `init` set, and the pacing timer.
    pub pacer: Pacer,
    /// ns-2's delayed send (`overhead_` under the `ns2` profile, delayed_send.rs).
    pub delsnd: DelayedSend,
    /// A retransmission that recovery asked for while pacing held it back; sent first.
    pub(super) rtx_pending: Option<u64>,
    /// The SYN (seq 0) is not yet acknowledged (profile `syn`).
    syn_pending: bool,
    /// Proportional Rate Reduction during a SACK recovery (profile `prr`).
    pub(super) prr: Option<Prr>,
    /// ns-2's SACK sender's own state (profile `sack_flavour`, sack_ns2.rs).
    pub(super) sack1: Sack1,
}

impl Sender {
    pub fn new(flow: u32, cfg: TcpConfig, cc: Box<dyn CongestionControl>, limit: u64) -> Self {
        let mut s = Sender {
            flow,
            sb: Scoreboard::new(cfg.dupthresh)
                .keeping_sacked_retx(cfg.sacked_retx_in_pipe)
                .resending_below_high_sack(cfg.resend_below_high_sack),
            ts_recent: SimTime::ZERO,
            snd_nxt: 0,
            limit,
            cwnd: cfg.init_cwnd,
            ssthresh: cfg.init_ssthresh,
            state: CaState::Open,
            dupacks: 0,
            recover: 0,
            partial_acks: 0,
            ecn_recover: 0,
            send_cwr: false,
            rtt: RttEstimator::new(cfg.rto),
            timed: TimedSegment::default(),
            rto_deadline: None,
            timer: Timer::Rto,
            tlp_on: false,
            probe: None,
            stats: SenderStats::default(),
            completed_at: None,
            started: false,
            rate: RateEstimator::default(),
            rate_samples: cc.uses_rate_samples(),
            is_cwnd_limited: false,
            cwnd_usage_seq: 0,
            pacer: Pacer::default(),
            delsnd: DelayedSend::default(),
            rtx_pending: None,
            syn_pending: false,
            prr: None,
            sack1: Sack1::default(),
            cfg,
            cc,
        };
        let rack = s.cfg.recovery == Recovery::Sack
            && s.cfg.stack.sack_flavour == SackFlavour::Rfc6675
            && s.cfg.stack.loss_detection == LossDetection::RackTlp;
        if rack {
            s.sb.enable_rack();
            s.tlp_on = true;
        }
        s
    }

    pub fn view(&self, now: SimTime) -> SenderView {
        SenderView {
            now,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            flight_size: self.sb.high() - self.sb.una(),
            srtt: self.rtt.srtt(),
            rtt_min: self.rtt.rtt_min,
            mss: self.cfg.mss,
            state: self.state,
            snd_una: self.sb.una(),
            snd_nxt: self.sb.high(),
            in_flight: self.sb.pipe(),
            delivered: self.rate.delivered,
            delivered_time: self.rate.delivered_time,
            lost: self.sb.lost_marked,
            app_limited: self.rate.app_limited != 0,
            next_tx_time: self.pacer.next_tx_time(),
            is_cwnd_limited: self.is_cwnd_limited,
        }
    }

    pub fn snd_una(&self) -> u64 {
        self.sb.una()
    }

    /// The application starts: send the initial window.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.started = true;
        let v = self.view(now);
        if let Some(c) = self.cc.init(&v) {
            self.apply(c);
        }
        if self.cfg.stack.syn {
            self.cwnd = 1.0;
            self.syn_pending = true;
        }
        let v = self.view(now);
        self.cc.cwnd_event(&v, CwndEvent::TxStart);
        self.send(now, out);
    }

    /// The application stops: no new data beyond what was sent; outstanding data is still recovered.
    pub fn stop(&mut self) {
        self.limit = self.limit.min(self.sb.high());
    }

    pub(super) fn set_state(&mut self, now: SimTime, s: CaState) {
        if self.state != s {
            let v = self.view(now);
            self.cc.set_state(&v, s);
            self.state = s;
        }
    }

    pub(super) fn arm_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
        self.timer = Timer::Rto;
    }

    /// The timer fired: the retransmission timeout, RACK's reordering timer or the loss probe.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        match self.timer {
            Timer::Rto => self.on_rto(now, out),
            Timer::Reorder => self.on_reorder_timeout(now, out),
            Timer::LossProbe => self.on_loss_probe(now, out),
        }
    }

    /// A retransmission recovery asks for at once: sent now, or first when pacing allows.
    pub(super) fn xmit_or_hold(&mut self, seq: u64, now: SimTime, out: &mut Vec<Packet>) {
        if self.pacer.may_send(now) {
            self.xmit(seq, now, out);
        } else {
            self.rtx_pending = Some(seq);
        }
    }

    pub(super) fn xmit(&mut self, seq: u64, now: SimTime, out: &mut Vec<Packet>) {
        let retx = seq < self.sb.high();
        // Linux `tcp_event_data_sent`: a data segment leaving with nothing in flight is a
        // (re)start of transmission (CA_EVENT_TX_START); told to the algorithms that pace.
        let tx_start = self.rate_samples && self.stats.sent > 0 && self.sb.pipe() == 0;
        let tx = if self.rate_samples {
            let sb = &self.sb;
            self.rate.on_send(now, sb.high() == sb.una(), sb.pipe(), sb.lost_marked)
        } else {
            TxSnapshot::default()
        };
        self.sb.on_send(seq, now, tx);
        if tx_start {
            let v = self.view(now);
            if let Some(c) = self.cc.cwnd_event_control(&v, CwndEvent::TxStart) {
                self.apply(c);
            }
        }
        if self.cfg.stack.rtt_sampling == RttSampling::OneTimed {
            self.timed.on_xmit(seq, retx, now);
        }
        self.pacer.on_xmit(now, self.cfg.mss);
        if let Some(p) = &mut self.prr {
            p.out += 1;
        }
        let v = self.view(now);
        let cc = self.cc.on_send(&v, seq);
        let syn = seq == 0 && self.cfg.stack.syn;
        // RFC 3168 section 6.1.5: a retransmission is not ECN-capable (Linux tcp_ecn_send(),
        // ns-3's ECN_RESTRICTION_MAP), except under ns-2's stack; CWR rides on the next new
        // data segment, or on any under ns-2's (`SetCWRonRetransmit_` true).
        let ns2_like = self.cfg.stack.ect_retransmits;
        let mut flags = if self.cfg.ecn && (!retx || ns2_like) { ECT } else { 0 };
        if flags != 0 && self.cfg.l4s {
            // RFC 9331 section 4.1: an L4S sender's ECN-capable packets carry ECT(1).
            flags |= ECT1;
        }
        if syn {
            flags |= SYN;
        }
        if self.send_cwr && (!retx || ns2_like) {
            flags |= CWR;
            self.send_cwr = false;
        }
        out.push(Packet {
            seq,
            ts_val: now,
            ts_ecr: self.ts_recent,
            sack: [SackBlock::default(); 3],
            cc,
            flow: self.flow,
            size: if syn && !self.cfg.stack.syn_full_size { self.cfg.ack_size } else { self.cfg.mss },
            hop: 0,
            kind: Kind::Data,
            n_sack: 0,
            retx,
            flags,
        });
        self.stats.sent += 1;
        if retx {
            self.stats.retransmits += 1;
        }
        if self.rto_deadline.is_none() {
            self.arm_timer(now);
        }
    }

    /// What a pipe-driven SACK sender sends next: the `hole` its rule chose, else new data
    /// if the window and the transfer allow it.
    pub(super) fn next_to_send(&self, hole: Option<u64>) -> Option<u64> {
        hole.or_else(|| self.may_send_new().then(|| self.sb.high()))
    }

    pub(super) fn may_send_new(&self) -> bool {
        let high = self.sb.high();
        high < self.limit && high - self.sb.una() < self.cfg.rwnd
    }

    /// Sends whatever the window (and the pacing rate) allows.
    pub(super) fn send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.started {
            return;
        }
        if let Some(s) = self.rtx_pending {
            if s < self.sb.una() {
                self.rtx_pending = None; // acknowledged meanwhile
            } else if self.pacer.may_send(now) {
                self.rtx_pending = None;
                self.xmit(s, now, out);
            } else {
                return;
            }
        }
        let high_before = self.sb.high();
        let sack1 = self.sack1_on();
        let pipe_driven =
            self.cfg.recovery == Recovery::Sack && matches!(self.state, CaState::Recovery | CaState::Loss);
        if sack1 && self.state == CaState::Recovery {
            self.send_sack1(now, out);
            self.snd_nxt = self.sb.high();
        } else if sack1 && self.delsnd.fired() {
            self.send_sack1_open(now, out); // sack_ns2.rs
        } else if pipe_driven && !sack1 {
            // RFC 6675 (5) and (C): send while cwnd - pipe >= 1, holes first.
            let wnd = (self.cwnd as u64).max(1); // floor(cwnd), at least 1, without a library call
            while self.sb.pipe() < wnd && !crate::budget::stop_requested() {
                let lost = self.sb.next_lost();
                let Some(s) = self.next_to_send(lost) else { break };
                if !self.may_leave(now) {
                    break;
                }
                self.xmit(s, now, out);
            }
            self.snd_nxt = self.sb.high();
        } else {
            let mut wnd = (self.cwnd as u64).max(1).min(self.cfg.rwnd);
            let limited = self.state == CaState::Disorder && self.cfg.stack.limited_transmit;
            if limited {
                // RFC 3042 (ns-2 `singledup_`): one new segment per early duplicate ACK,
                // sent at once (ns-2's `send_one()` calls `output()`).
                wnd += u64::from(self.dupacks.min(2));
            }
            let una = self.sb.una();
            if limited && self.delsnd.is_on() {
                // ns-2 `send_one()`, past a pending delayed send: one segment at most.
                if self.snd_nxt < una + wnd && self.snd_nxt < self.limit {
                    let s = self.snd_nxt;
                    self.xmit(s, now, out);
                    self.snd_nxt += 1;
                }
            } else {
                while self.snd_nxt < una + wnd
                    && self.snd_nxt < self.limit
                    && self.may_leave(now)
                    && !crate::budget::stop_requested()
                {
                    let s = self.snd_nxt;
                    self.xmit(s, now, out);
                    self.snd_nxt += 1;
                }
            }
        }
        if self.tlp_on && self.sb.high() > high_before {
            // tcp_write_xmit() after new data: probe the tail if the flow stays in Open.
            self.schedule_loss_probe(now, false);
        }
        if self.rate_samples {
            self.cwnd_validate();
        }
        if self.rate_samples && self.sb.high() >= self.limit {
            // Nothing new to send: samples from now on measure the application, not the path.
            let sb = &self.sb;
            self.rate.check_app_limited(sb.pipe(), self.cwnd, sb.lost_out > sb.retrans_out);
        }
    }

    /// Processes one ACK.
    pub fn on_ack(&mut self, ack: &Packet, now: SimTime, out: &mut Vec<Packet>) {
        let a = ack.seq;
        let una = self.sb.una();
        if a > self.sb.high() || a < una {
            return; // acknowledges data never sent, or an old reordered ACK
        }
        if self.cfg.timestamps {
            self.ts_recent = self.ts_recent.max(ack.ts_val);
        }
        let newly_acked = a - una;
        // What the rate sample needs from before this ACK: in flight, window, losses marked.
        let prior = self.rate_samples.then(|| (self.sb.pipe(), self.cwnd, self.sb.lost_marked));
        if self.rate_samples {
            self.rate.begin_ack();
        }

        // `rtt` feeds the RTO estimator; `cc_rtt` the congestion control (the same sample
        // except under ns-2's one timed segment, below).
        let (mut rtt, mut cc_rtt) = (None, None);
        if newly_acked > 0 {
            if self.cfg.timestamps {
                rtt = Some(self.echo_rtt(now, ack.ts_ecr));
            } else if self.cfg.stack.rtt_sampling == RttSampling::OneTimed {
                rtt = self.timed.on_ack(a, now);
                // ns-2's sinks echo every segment's send time (hdr_tcp `ts_echo_`, tcp-sink.cc
                // `ack`) whatever `timestamps_` says, and the agents of delay-based algorithms
                // (tcp-fast.cc, TCP-Linux's `pkts_acked`) read it on every ACK.
                cc_rtt = Some(now.saturating_sub(ack.ts_ecr));
            } else if let Some((sent_at, ever_retx)) = self.sb.sent_info(a - 1) {
                // Karn (RFC 6298 section 3): no sample from an ACK covering retransmitted data;
                // the CCLAB profile still looks at the last covered segment only (profile.rs).
                let karn_ok = !self.cfg.stack.karn || !self.sb.any_retransmitted(una, a);
                if !ever_retx && karn_ok {
                    rtt = Some(now - sent_at);
                }
            }
        }
        if let Some(r) = rtt {
            self.rtt.sample_at(r, now, a, self.sb.high());
        }
        let rtt = cc_rtt.or(rtt);
        self.sb.ca.begin();

        let prior_timer = self.timer;
        if self.rack_on() {
            self.sb.rack_ack_begin(now, self.rtt.rtt_min);
        }
        let mut newly_sacked = 0;
        if self.cfg.recovery == Recovery::Sack {
            for b in &ack.sack[..ack.n_sack as usize] {
                newly_sacked += self.sb.sack(a + b.start as u64, a + b.end as u64, &mut self.rate);
            }
        }
        let fresh = if newly_acked > 0 { self.sb.ack_to(a, &mut self.rate) } else { 0 };
        let rtt = match self.cfg.stack.ca_rtt {
            CaRtt::Estimator => rtt,
            CaRtt::NewestDelivered => self.ca_rtt(now, newly_acked > 0, ack.ts_ecr),
            CaRtt::Smoothed => rtt.map(|_| self.rtt.srtt()),
        };
        if self.probe.is_some() {
            self.on_probe_ack(a, newly_acked + newly_sacked > 0, now);
        }
        let rfc6675 = self.cfg.recovery == Recovery::Sack && !self.sack1_on();
        let mut rack = Detected::default();
        if self.rack_on() {
            // Linux looks for losses on an ACK that is "dubious": a duplicate, one with SACK
            // news, or any outside Open (tcp_ack_is_dubious()).
            if newly_acked == 0 || newly_sacked > 0 || self.state != CaState::Open {
                rack = self.sb.rack_detect(now, self.reo_wnd(), false);
            }
        }
        let newly_lost = if self.rack_on() {
            rack.lost
        } else if rfc6675 {
            self.sb.mark_lost()
        } else {
            0
        };
        let delivered = fresh + newly_sacked;
        if delivered > 0 || rtt.is_some() {
            let v = self.view(now);
            let s = AckSample {
                acked: delivered as u32,
                rtt,
                rcv_tsval: ack.ts_val,
                cc_echo: ack.cc,
                ece: ack.flags & ECE != 0,
            };
            self.cc.pkts_acked(&v, &s);
            if let Some(t) = self.cc.ssthresh_after_ack(&v) {
                self.ssthresh = t;
            }
        }

        if ack.flags & ECE != 0 {
            self.on_ecn_echo(a, now);
        }
        let mut avoid = None;
        if self.sack1_on() {
            avoid = self.on_ack_sack1(a, newly_acked, fresh, newly_sacked, now, out);
        } else if newly_acked > 0 {
            avoid = self.on_new_ack(a, newly_acked, fresh, now, out);
        } else if self.sb.high() > una {
            self.on_dupack(now, out);
        }
        if self.rack_on() && self.rack_recover(rack, now, out) {
            avoid = None; // no window growth in a reduction (tcp_cong_control())
        }
        if let (Some(p), CaState::Recovery) = (&mut self.prr, self.state) {
            let (ssthresh, pipe) = (self.ssthresh, self.sb.pipe());
            if let Some(w) = p.on_ack(ssthresh, pipe, delivered, newly_acked > 0, newly_lost > 0) {
                self.cwnd = w.max(1.0);
            }
        }
        if self.syn_pending && a > 0 {
            // ns-2: the SYN's ACK sets the initial window instead of opening the window.
            self.syn_pending = false;
            self.cwnd = self.cfg.init_cwnd;
            avoid = None;
        }
        match prior {
            Some(prior) => self.cong_control(now, delivered, rtt, prior, avoid, ack.flags & ECE != 0),
            None => self.cong_avoid(now, avoid),
        }
        if self.rack_on() {
            self.rack_timers(now, rack, newly_acked > 0, prior_timer);
        }
        self.send(now, out);
        if self.completed_at.is_none() && self.limit != u64::MAX && self.sb.una() >= self.limit {
            self.completed_at = Some(now);
        }
    }
}
