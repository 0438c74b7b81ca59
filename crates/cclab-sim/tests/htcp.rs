//! H-TCP's increase grows with the time since the last congestion event as
//! α(Δ) = 1 + 10 (Δ − 1) + ((Δ − 1)/2)² (Leith and Shorten 2004), scaled by
//! RTT_min / 100 ms. The algorithm is driven directly through the public interface by
//! an ACK clock with a fixed RTT, one ACK per packet.

use cclab_sim::cc::{self, AckSample, CaState, CcHeader, CongestionControl, CwndEvent, Params, SenderView};
use cclab_sim::units::SimTime;

struct Clock {
    cc: Box<dyn CongestionControl>,
    now: SimTime,
    rtt: SimTime,
    cwnd: f64,
    ssthresh: f64,
    state: CaState,
}

impl Clock {
    /// H-TCP with default parameters, in congestion avoidance at `cwnd`, after one RTT
    /// sample.
    fn new(cwnd: f64, rtt_ms: u64) -> Clock {
        let mut c = Clock {
            cc: cc::build("htcp", &Params::new()).unwrap(),
            now: SimTime::ZERO,
            rtt: SimTime::from_millis(rtt_ms),
            cwnd,
            ssthresh: cwnd,
            state: CaState::Open,
        };
        let v = c.view();
        c.cc.cwnd_event(&v, CwndEvent::TxStart);
        c
    }

    fn view(&self) -> SenderView {
        SenderView {
            now: self.now,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            flight_size: self.cwnd as u64,
            srtt: self.rtt,
            rtt_min: self.rtt,
            mss: 1500,
            state: self.state,
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

    /// One ACK for one packet now: pkts_acked with the RTT sample, then cong_avoid.
    /// Returns the window before it.
    fn ack(&mut self) -> f64 {
        let v = self.view();
        let s =
            AckSample { acked: 1, rtt: Some(self.rtt), rcv_tsval: self.now, cc_echo: CcHeader::default(), ece: false };
        self.cc.pkts_acked(&v, &s);
        let before = self.cwnd;
        self.cwnd = self.cc.cong_avoid(&v, 1);
        before
    }

    /// One RTT of ACKs, floor(cwnd) of them evenly spaced.
    fn round(&mut self) {
        let n = self.cwnd.floor() as u64;
        let start = self.now;
        for i in 1..=n {
            self.now = SimTime(start.ps() + self.rtt.ps() * i / n);
            self.ack();
        }
    }

    /// A loss found now and repaired in one RTT, as the sender does it.
    fn loss(&mut self) {
        let v = self.view();
        self.ssthresh = self.cc.ssthresh(&v);
        self.state = CaState::Recovery;
        self.cc.set_state(&v, CaState::Recovery);
        self.now += self.rtt;
        self.cwnd = self.ssthresh;
        self.state = CaState::Open;
        let v = self.view();
        self.cc.set_state(&v, CaState::Open);
        self.cc.cwnd_event(&v, CwndEvent::RecoveryEnd);
    }
}

/// α(Δ) with Δ_L = 1 s, the paper's increase function.
fn alpha(delta: f64) -> f64 {
    if delta <= 1.0 {
        1.0
    } else {
        1.0 + 10.0 * (delta - 1.0) + ((delta - 1.0) / 2.0).powi(2)
    }
}

#[test]
fn htcp_alpha_grows_with_the_time_since_the_last_loss_as_the_formula_says() {
    for (rtt_ms, scale) in [(100u64, 1.0), (40, 0.4)] {
        let mut c = Clock::new(10_000.0, rtt_ms);
        c.round();
        let loss_at = c.now.secs_f64();
        c.loss(); // the first backoff halves: 2 (1 − β) = 1
        let mut rows: Vec<(f64, f64, f64)> = Vec::new();
        while c.now.secs_f64() < loss_at + 10.0 {
            // The increase one ACK makes is α / cwnd: read α back from it.
            let before = c.ack();
            let measured = (c.cwnd - before) * before;
            let delta = c.now.secs_f64() - loss_at;
            let want = (alpha(delta) * scale).max(1.0);
            assert!((measured - want).abs() <= 1e-6 * want, "{rtt_ms} ms, Δ = {delta:.3} s: α {measured}, want {want}");
            let due = match rows.last() {
                None => true,
                Some(&(d, _, _)) => delta - d >= 1.0,
            };
            if due {
                rows.push((delta, measured, want));
            }
            c.now += SimTime(c.rtt.ps() / 1000);
        }
        eprintln!("RTT {rtt_ms} ms, (Δ s, α measured, α formula): {rows:.3?}");
    }
}

#[test]
fn over_an_epoch_the_window_gains_the_integral_of_alpha_per_rtt() {
    // RTT 100 ms (no scaling), a large window so that the ACKs of one round add α.
    let mut c = Clock::new(20_000.0, 100);
    c.round();
    c.loss();
    let (w0, t0) = (c.cwnd, c.now.secs_f64() - 0.1);
    let mut rows = Vec::new();
    for _ in 0..60 {
        let (w, t) = (c.cwnd, c.now.secs_f64());
        c.round();
        rows.push((t - t0, c.cwnd - w));
    }
    // ∫ α(Δ) dΔ from 0.1 s to T, over the RTT: the window gained after 6 s of rounds.
    let t_end = c.now.secs_f64() - t0;
    let steps = 60_000;
    let integral: f64 =
        (0..steps).map(|i| 0.1 + (t_end - 0.1) * (i as f64 + 0.5) / steps as f64).map(alpha).sum::<f64>()
            * (t_end - 0.1)
            / steps as f64;
    let gained = c.cwnd - w0;
    let want = integral / 0.1;
    eprintln!(
        "per-round increase at Δ = 1, 2, 3, 4, 5, 6 s: {:.1?}; gained {gained:.1} packets over {:.1} s, ∫α/RTT = {want:.1}",
        [9usize, 19, 29, 39, 49, 59].map(|i| rows[i].1),
        t_end
    );
    assert!((gained - want).abs() <= 0.02 * want, "gained {gained}, want {want}");
}
