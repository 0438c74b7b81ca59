//! After a loss Westwood+ sets the window to its bandwidth estimate times RTT_min, about
//! one BDP, rather than halving it (Grieco and Mascolo 2004, section 2); paper 001's
//! eq. (2) variant does the same when the queue held less than a BDP.

mod common;
use cclab_sim::RunOutput;
use common::{dumbbell, run_toml};

/// 50 Mbps, 40 ms: one BDP is 166.7 packets of 1500 bytes.
const BDP: f64 = 50e6 * 0.040 / (1500.0 * 8.0);

fn run(cc: &str, params: &str, buffer: &str) -> RunOutput {
    // SACK recovery keeps cwnd at ssthresh during recovery (no inflation by duplicate
    // ACKs), so a loss shows in the sampled window as one clean drop.
    let flows = format!("[[flows]]\ncc = \"{cc}\"\ncc_params = {{ {params} }}\nrecovery = \"sack\"\nrtt = \"40ms\"\n");
    let text = dumbbell("50Mbps", "18ms", buffer, "120s", "0s", &flows).replacen(
        "warmup",
        "sample_interval = \"50ms\"\nwarmup",
        1,
    );
    run_toml(&text, 1)
}

/// For each loss after `after_s` seconds (past slow start's overshoot and its
/// recovery): the time, the window just before it and the ssthresh it set.
fn losses(out: &RunOutput, after_s: f64) -> Vec<(f64, f64, f64)> {
    let s = &out.flow_series;
    let (t, cwnd, ssthresh) = (s.f64s("time_s"), s.f64s("cwnd"), s.f64s("ssthresh"));
    // A loss shows as a drop of the window between two samples (ssthresh may be set to
    // the same value at every loss); drops within a second of a loss belong to it.
    let mut v: Vec<(f64, f64, f64)> = Vec::new();
    for i in 1..t.len() {
        let fresh = match v.last() {
            None => true,
            Some(l) => t[i] - l.0 > 1.0,
        };
        if cwnd[i] < 0.8 * cwnd[i - 1] && fresh {
            v.push((t[i], cwnd[i - 1], ssthresh[i]));
        }
    }
    v.retain(|l| l.0 > after_s);
    v
}

#[test]
fn after_a_loss_westwood_plus_sets_the_window_to_about_one_bdp_not_half() {
    // Buffer 2 BDP: the window reaches about 3 BDP, half of which is 1.5 BDP.
    let out = run("westwood", "mode = 0", "2bdp");
    let l = losses(&out, 0.0);
    eprintln!(
        "westwood+ (mode 0), buffer 2 BDP, BDP {BDP:.1} pkts: (time s, cwnd before loss, ssthresh after) {l:.1?}"
    );
    let l = losses(&out, 20.0);
    assert!(l.len() >= 2, "only {} losses after 20 s", l.len());
    for &(t, before, after) in &l {
        assert!((after - BDP).abs() <= 0.1 * BDP, "at {t} s: ssthresh {after:.1}, BDP {BDP:.1}");
        assert!(after < 0.8 * before / 2.0, "at {t} s: ssthresh {after:.1} not well below half of {before:.1}");
    }
}

#[test]
fn paper_001_eq_2_drains_the_queue_when_it_held_less_than_a_bdp() {
    // Buffer 0.5 BDP: the window reaches 1.5 BDP at an RTT of 1.5 RTT_min, so
    // RTT_min/RTT · cwnd = 1 BDP, above half the window (0.75 BDP).
    let out = run("westwood", "mode = 1", "0.5bdp");
    let l = losses(&out, 0.0);
    eprintln!("paper 001 eq. (2) (mode 1), buffer 0.5 BDP: (time s, cwnd before loss, ssthresh after) {l:.1?}");
    let l = losses(&out, 20.0);
    assert!(l.len() >= 2, "only {} losses after 20 s", l.len());
    for &(t, before, after) in &l {
        assert!((after - BDP).abs() <= 0.1 * BDP, "at {t} s: ssthresh {after:.1}, BDP {BDP:.1}");
        assert!(after > 1.15 * before / 2.0, "at {t} s: ssthresh {after:.1} not above half of {before:.1}");
    }
}
