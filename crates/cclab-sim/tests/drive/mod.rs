//! Drives a congestion-control algorithm directly, without a network: an ACK
//! clock with a fixed RTT, one ACK per packet, and losses when the test says.
#![allow(dead_code)]

use cclab_sim::cc::{self, CaState, CongestionControl, CwndEvent, Params, SenderView};
use cclab_sim::units::SimTime;

pub struct Driver {
    pub cc: Box<dyn CongestionControl>,
    /// Packets.
    pub cwnd: f64,
    /// Packets.
    pub ssthresh: f64,
    pub now: SimTime,
    /// The fixed RTT, also reported as srtt and rtt_min.
    pub rtt: SimTime,
}

impl Driver {
    /// The registered algorithm `name` with `params` ("k=v" pairs), in congestion avoidance at `cwnd`.
    pub fn new(name: &str, params: &[(&str, f64)], cwnd: f64, rtt_ms: u64) -> Self {
        let p: Params = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Driver {
            cc: cc::build(name, &p).unwrap_or_else(|e| panic!("{e:?}")),
            cwnd,
            ssthresh: cwnd,
            now: SimTime::ZERO,
            rtt: SimTime::from_millis(rtt_ms),
        }
    }

    pub fn view(&self) -> SenderView {
        SenderView {
            now: self.now,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            flight_size: self.cwnd as u64,
            srtt: self.rtt,
            rtt_min: self.rtt,
            mss: 1500,
            state: CaState::Open,
            snd_una: 0,
            snd_nxt: self.cwnd as u64,
            in_flight: self.cwnd as u64,
            delivered: 0,
            delivered_time: SimTime::ZERO,
            lost: 0,
            app_limited: false,
            next_tx_time: SimTime::ZERO,
            is_cwnd_limited: false,
        }
    }

    /// One ACK for `n` packets at the current time.
    pub fn ack(&mut self, n: u32) {
        let v = self.view();
        self.cwnd = self.cc.cong_avoid(&v, n).max(1.0);
    }

    /// A loss found by fast retransmit and repaired in one RTT, as the engine
    /// does it: ssthresh from the algorithm, recovery, then cwnd = ssthresh.
    pub fn loss(&mut self) {
        let v = self.view();
        self.ssthresh = self.cc.ssthresh(&v);
        self.cc.set_state(&v, CaState::Recovery);
        self.now += self.rtt;
        self.cwnd = self.ssthresh;
        let v = self.view();
        self.cc.set_state(&v, CaState::Open);
        self.cc.cwnd_event(&v, CwndEvent::RecoveryEnd);
    }

    /// One RTT: the packets of the window at its start, floor(cwnd), are
    /// acknowledged one by one, evenly spaced over the RTT.
    pub fn round(&mut self) {
        let n = self.cwnd.floor().max(1.0) as u64;
        let start = self.now;
        for i in 1..=n {
            self.now = SimTime(start.ps() + self.rtt.ps() * i / n);
            self.ack(1);
        }
    }

    pub fn secs(&self) -> f64 {
        self.now.secs_f64()
    }
}
