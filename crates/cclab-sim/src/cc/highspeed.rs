//! HighSpeed TCP: an AIMD whose increase a(w) grows and whose decrease b(w)
//! shrinks with the window, so that large windows survive rare losses.
//!
//! Source: S. Floyd, RFC 3649, "HighSpeed TCP for Large Congestion Windows"
//! (2003): section 5 (the response function and a(w), b(w)), Appendix B (the
//! table of a(w) and b(w)). Limited slow start: RFC 3742.
//!
//! Below `W_low` = 38 packets HighSpeed is Reno. Above, the RFC chooses the
//! response function `w = 0.12 / p^0.835` (a straight line on a log-log plot
//! through Reno's `w = sqrt(1.5/p)` at `W_low` and `w = W_high = 83000` at
//! `p = P_high = 1e-7`), lets `b(w)` fall from 0.5 at `W_low` to
//! `b_high = 0.1` at `W_high` linearly in `log w`, and derives the increase
//! that gives that response for an AIMD with that decrease:
//! `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))`. Per acknowledged packet in
//! congestion avoidance `cwnd += a(w)/cwnd`; on a loss
//! `ssthresh = (1 - b(w)) cwnd`.
//!
//! Choices where the sources are silent or differ:
//! - **The table, as Linux keeps it** (default, `table = 1`): a(w) and b(w)
//!   come from [`AIMD`], the RFC's Appendix B as Linux `tcp_highspeed.c`
//!   (`hstcp_aimd_vals`) and ns-3 (`TcpHighSpeed`) hold it. A window `w` uses the
//!   first row whose `w_i >= w`, that is the row at the top of its interval,
//!   as both do; past the last row (89053) the last row applies. The row
//!   thresholds are Linux's (ns-3's copy has 53667 for Linux's 53677 and one
//!   more row, 94717). b(w) is the RFC's two-decimal value; Linux stores
//!   `floor(256 b)` from the formula, up to 0.007 lower.
//! - **ns-2 computes instead of looking up** (`table = 0`): a(w) and b(w) from
//!   the formulas on every ACK, with p(w) the exact log-log line through
//!   `(W_low, 1.5/W_low^2)` and `(W_high, P_high)`, as ns-2's
//!   `TcpAgent::increase_param` does. The RFC's table was computed with the
//!   rounded `p(w) = 0.078 / w^1.2`, which gives an a(w) about 2.5 % lower at
//!   `W_high`.
//! - The step lookup rounds a(w) up to the next integer: just above
//!   `W_low` the window already adds 2 packets per RTT and keeps 56 % on a
//!   loss. Where the average window sits in that first interval (loss rates
//!   near 1e-3) the mean window is therefore about 1.5 times the response
//!   function; from p = 1e-5 down the two agree within 7 % (see the tests).
//! - The decrease is looked up at the window at the loss (Linux uses the row
//!   its last congestion-avoidance ACK left, which is the same row unless the
//!   window moved since) and taken from cwnd, not FlightSize, as in `reno`.
//! - **Limited slow start** (RFC 3742) is off by default, as in Linux's
//!   `highspeed` module and ns-2's default. With `max_ssthresh > 0`, above
//!   `max_ssthresh` slow start adds `1/K` per acknowledged packet with
//!   `K = floor(cwnd / (0.5 max_ssthresh))`, at most half of `max_ssthresh`
//!   per RTT.
//!
//! | parameter | meaning | default | range |
//! |---|---|---|---|
//! | `table` | 1: a(w), b(w) from the RFC table (Linux); 0: from the formulas (ns-2) | 1 | 0 or 1 |
//! | `max_ssthresh` | RFC 3742 limited slow start above this window, packets; 0 = off | 0 | 0 or [2, 1e9] |

use super::{additive_increase, slow_start, CongestionControl, ParamError, ParamReader, Params, SenderView};

/// Below and at this window, packets, HighSpeed is Reno (RFC 3649 `Low_Window`).
pub const LOW_WINDOW: f64 = 38.0;
/// The window, packets, reached at loss rate [`HIGH_P`] (RFC 3649 `High_Window`).
pub const HIGH_WINDOW: f64 = 83000.0;
/// Loss rate, per packet, that sustains [`HIGH_WINDOW`] (RFC 3649 `High_P`).
pub const HIGH_P: f64 = 1e-7;
/// The decrease factor at [`HIGH_WINDOW`] (RFC 3649 `High_Decrease`).
pub const HIGH_DECREASE: f64 = 0.1;

/// Reno's loss rate at [`LOW_WINDOW`]: `P_low = 1.5 / W_low^2`, per packet (RFC 3649 section 5).
pub fn low_p() -> f64 {
    1.5 / (LOW_WINDOW * LOW_WINDOW)
}

/// The response function: the average window, packets, at loss rate `p`.
/// `w = 0.12 / p^0.835`   (RFC 3649 section 5)
pub fn response_window(p: f64) -> f64 {
    0.12 / p.powf(0.835)
}

/// The loss rate the RFC rounds the response function to, per packet.
/// `p(w) = 0.078 / w^1.2`   (RFC 3649 section 5; Appendix B's table uses it)
pub fn p_rounded(w: f64) -> f64 {
    0.078 / w.powf(1.2)
}

/// The loss rate on the exact log-log line through `(W_low, P_low)` and `(W_high, P_high)`.
/// `log p(w) = log P_low + (log w - log W_low)(log P_high - log P_low)/(log W_high - log W_low)`
/// (RFC 3649 section 5; ns-2 computes this)
pub fn p_exact(w: f64) -> f64 {
    let s = (HIGH_P.ln() - low_p().ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln());
    (low_p().ln() + (w.ln() - LOW_WINDOW.ln()) * s).exp()
}

/// The decrease factor: the fraction of the window given up on a loss.
/// `b(w) = (b_high - 0.5)(log w - log W_low)/(log W_high - log W_low) + 0.5`   (RFC 3649 section 5)
pub fn b_formula(w: f64) -> f64 {
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// The increase, packets per RTT, that gives response `p` with decrease `b(w)`.
/// `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))`   (RFC 3649 section 5)
pub fn a_formula(w: f64, p: fn(f64) -> f64) -> f64 {
    let b = b_formula(w);
    w * w * p(w) * 2.0 * b / (2.0 - b)
}

/// One row of RFC 3649 Appendix B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimdRow {
    /// The largest window, packets, this row applies to (the previous row's `w` is exclusive).
    pub w: u32,
    /// Increase, packets per RTT.
    pub a: u32,
    /// Decrease, fraction of the window given up on a loss.
    pub b: f64,
}

const fn row(w: u32, a: u32, b: f64) -> AimdRow {
    AimdRow { w, a, b }
}

/// RFC 3649 Appendix B, with Linux's row thresholds (`hstcp_aimd_vals`).
#[rustfmt::skip]
pub const AIMD: [AimdRow; 72] = [
    row(38, 1, 0.50), row(118, 2, 0.44), row(221, 3, 0.41), row(347, 4, 0.38),
    row(495, 5, 0.37), row(663, 6, 0.35), row(851, 7, 0.34), row(1058, 8, 0.33),
    row(1284, 9, 0.32), row(1529, 10, 0.31), row(1793, 11, 0.30), row(2076, 12, 0.29),
    row(2378, 13, 0.28), row(2699, 14, 0.28), row(3039, 15, 0.27), row(3399, 16, 0.27),
    row(3778, 17, 0.26), row(4177, 18, 0.26), row(4596, 19, 0.25), row(5036, 20, 0.25),
    row(5497, 21, 0.24), row(5979, 22, 0.24), row(6483, 23, 0.23), row(7009, 24, 0.23),
    row(7558, 25, 0.22), row(8130, 26, 0.22), row(8726, 27, 0.22), row(9346, 28, 0.21),
    row(9991, 29, 0.21), row(10661, 30, 0.21), row(11358, 31, 0.20), row(12082, 32, 0.20),
    row(12834, 33, 0.20), row(13614, 34, 0.19), row(14424, 35, 0.19), row(15265, 36, 0.19),
    row(16137, 37, 0.19), row(17042, 38, 0.18), row(17981, 39, 0.18), row(18955, 40, 0.18),
    row(19965, 41, 0.17), row(21013, 42, 0.17), row(22101, 43, 0.17), row(23230, 44, 0.17),
    row(24402, 45, 0.16), row(25618, 46, 0.16), row(26881, 47, 0.16), row(28193, 48, 0.16),
    row(29557, 49, 0.15), row(30975, 50, 0.15), row(32450, 51, 0.15), row(33986, 52, 0.15),
    row(35586, 53, 0.14), row(37253, 54, 0.14), row(38992, 55, 0.14), row(40808, 56, 0.14),
    row(42707, 57, 0.13), row(44694, 58, 0.13), row(46776, 59, 0.13), row(48961, 60, 0.13),
    row(51258, 61, 0.13), row(53677, 62, 0.12), row(56230, 63, 0.12), row(58932, 64, 0.12),
    row(61799, 65, 0.12), row(64851, 66, 0.11), row(68113, 67, 0.11), row(71617, 68, 0.11),
    row(75401, 69, 0.10), row(79517, 70, 0.10), row(84035, 71, 0.10), row(89053, 72, 0.10),
];

/// The row for window `w`: the first with `w_i >= w`, or the last.
pub fn table_row(w: f64) -> AimdRow {
    let i = AIMD.partition_point(|r| (r.w as f64) < w);
    AIMD[i.min(AIMD.len() - 1)]
}

/// Limited slow start (RFC 3742 section 2) for `acked` packets: `+1` per packet
/// up to `max_ssthresh`, `+1/K` above with `K = floor(cwnd / (0.5 max_ssthresh))`;
/// at most up to `ssthresh`. Returns the new window and the packets left over.
pub fn limited_slow_start(cwnd: f64, ssthresh: f64, acked: u32, max_ssthresh: f64) -> (f64, u32) {
    let mut w = cwnd;
    let mut left = acked;
    while left > 0 && w < ssthresh {
        let step = if w <= max_ssthresh { 1.0 } else { 1.0 / (w / (0.5 * max_ssthresh)).floor() };
        w = (w + step).min(ssthresh.max(cwnd));
        left -= 1;
    }
    (w, left)
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HighSpeedConfig {
    /// a(w), b(w) from [`AIMD`] (Linux, ns-3) rather than from the formulas (ns-2).
    pub table: bool,
    /// RFC 3742 limited slow start above this window, packets; 0 turns it off.
    pub max_ssthresh: f64,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        HighSpeedConfig { table: true, max_ssthresh: 0.0 }
    }
}

impl HighSpeedConfig {
    /// Reads `table` and `max_ssthresh` (for `highspeed` and the algorithms built on it).
    pub fn read(r: &mut ParamReader) -> Result<Self, ParamError> {
        let d = HighSpeedConfig::default();
        let table = r.get_flag("table", d.table)?;
        let max_ssthresh = r.get("max_ssthresh", d.max_ssthresh, 0.0, 1e9)?;
        if max_ssthresh > 0.0 && max_ssthresh < 2.0 {
            return Err(ParamError {
                param: "max_ssthresh".into(),
                value: max_ssthresh.to_string(),
                accepted: "0 (off) or a window in [2, 1e9] packets".into(),
            });
        }
        Ok(HighSpeedConfig { table, max_ssthresh })
    }
}

pub struct HighSpeed {
    cfg: HighSpeedConfig,
}

impl HighSpeed {
    pub fn new(cfg: HighSpeedConfig) -> Self {
        HighSpeed { cfg }
    }

    /// (a(w) in packets per RTT, b(w) as a fraction) at window `w`.
    pub fn aimd(&self, w: f64) -> (f64, f64) {
        if self.cfg.table {
            let r = table_row(w);
            (r.a as f64, r.b)
        } else if w <= LOW_WINDOW {
            (1.0, 0.5)
        } else {
            (a_formula(w, p_exact), b_formula(w))
        }
    }

    /// Slow start for `acked` packets: RFC 3742's limited slow start when `max_ssthresh`
    /// is set, else the standard one. Returns the new window and the packets left over.
    pub fn slow_start(&self, cwnd: f64, ssthresh: f64, acked: u32) -> (f64, u32) {
        if self.cfg.max_ssthresh > 0.0 {
            limited_slow_start(cwnd, ssthresh, acked, self.cfg.max_ssthresh)
        } else {
            slow_start(cwnd, ssthresh, acked)
        }
    }
}

pub fn build(p: &Params) -> Result<Box<dyn CongestionControl>, ParamError> {
    let mut r = ParamReader::new(p);
    let cfg = HighSpeedConfig::read(&mut r)?;
    r.finish()?;
    Ok(Box::new(HighSpeed::new(cfg)))
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn ssthresh(&mut self, v: &SenderView) -> f64 {
        let (_, b) = self.aimd(v.cwnd);
        super::multiplicative_decrease(v.cwnd, 1.0 - b)
    }

    fn cong_avoid(&mut self, v: &SenderView, acked: u32) -> f64 {
        super::grow(
            v,
            acked,
            |c, s, n| self.slow_start(c, s, n),
            |cwnd, left| additive_increase(cwnd, self.aimd(cwnd).0, left),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::view;

    fn hs(table: bool) -> HighSpeed {
        HighSpeed::new(HighSpeedConfig { table, ..Default::default() })
    }

    #[test]
    fn every_table_row_matches_the_rfc_formulas_within_its_rounding() {
        // The table's a(w) is the formula's with p(w) = 0.078/w^1.2, and b(w) is rounded to 0.01.
        for r in AIMD {
            let w = r.w as f64;
            let a = a_formula(w, p_rounded);
            assert!((a - r.a as f64).abs() < 0.05, "w {}: a {a} vs {}", r.w, r.a);
            assert!((b_formula(w) - r.b).abs() <= 0.005 + 1e-12, "w {}: b {} vs {}", r.w, b_formula(w), r.b);
        }
    }

    #[test]
    fn the_formulas_give_reno_at_w_low_and_the_rfc_end_point_at_w_high() {
        // At W_low = 38: b = 0.5, p = 1.5/38^2 = 0.0010388, a = 38^2 p 2 (0.5)/1.5 = 1.
        assert!((b_formula(38.0) - 0.5).abs() < 1e-12);
        assert!((p_exact(38.0) - 0.001_038_781).abs() < 1e-9);
        assert!((a_formula(38.0, p_exact) - 1.0).abs() < 1e-9);
        // At W_high = 83000: b = 0.1, p = 1e-7, a = 83000^2 1e-7 (0.2/1.9) = 72.52.
        assert!((b_formula(83000.0) - 0.1).abs() < 1e-12);
        assert!((p_exact(83000.0) - 1e-7).abs() < 1e-15);
        assert!((a_formula(83000.0, p_exact) - 72.515_789).abs() < 1e-4);
        // The rounded p(w) and the response function are within 5 % of the line in between.
        for w in [38.0, 500.0, 5000.0, 83000.0] {
            assert!((p_rounded(w) / p_exact(w) - 1.0).abs() < 0.05, "{w}");
            assert!((response_window(p_exact(w)) / w - 1.0).abs() < 0.05, "{w}");
        }
    }

    #[test]
    fn the_table_lookup_takes_the_row_at_the_top_of_the_interval() {
        // (w, a, b): at or below 38 Reno; 39..=118 the second row; past the end the last row.
        for (w, a, b) in [
            (1.0, 1, 0.50),
            (38.0, 1, 0.50),
            (38.5, 2, 0.44),
            (118.0, 2, 0.44),
            (119.0, 3, 0.41),
            (1000.0, 8, 0.33),
            (83000.0, 71, 0.10),
            (1e6, 72, 0.10),
        ] {
            let r = table_row(w);
            assert_eq!((r.a, r.b), (a, b), "w = {w}");
        }
        // Between rows the table's a(w) is the formula's rounded up, by less than one packet.
        for w in [50.0, 100.0, 300.0, 2000.0, 10000.0, 40000.0, 83000.0] {
            let a = a_formula(w, p_rounded);
            let t = table_row(w).a as f64;
            assert!(t >= a - 0.05 && t < a + 1.05, "w {w}: table {t}, formula {a}");
        }
    }

    #[test]
    fn at_38_packets_or_less_it_is_reno() {
        for table in [true, false] {
            let mut h = hs(table);
            assert_eq!(h.ssthresh(&view(30.0, 1e9)), 15.0);
            assert_eq!(h.ssthresh(&view(3.0, 1e9)), 2.0);
            let mut w = 30.0;
            for _ in 0..30 {
                w = h.cong_avoid(&view(w, 20.0), 1);
            }
            assert!((w - 31.0).abs() < 0.02, "{w}");
        }
    }

    #[test]
    fn one_window_of_acks_adds_a_of_w_packets_and_a_loss_gives_up_b_of_w() {
        // Table rows 1058 (a = 8, b = 0.33) and 10661 (a = 30, b = 0.21): windows 1000 and 10000.
        for (w0, a, b) in [(1000.0, 8.0, 0.33), (10000.0, 30.0, 0.21)] {
            let mut h = hs(true);
            let mut w = w0;
            for _ in 0..w0 as u32 {
                w = h.cong_avoid(&view(w, 100.0), 1);
            }
            // Sum of a/w over w0 ACKs while w grows by a: a little less than a.
            assert!(w - w0 > 0.99 * a && w - w0 < a, "w0 {w0}: +{}", w - w0);
            assert!((h.ssthresh(&view(w0, 1e9)) - (1.0 - b) * w0).abs() < 1e-9);
        }
        // Formula mode at 1000: b = 0.5 - 0.4 ln(1000/38)/ln(83000/38) = 0.32988,
        // p = 2.0337e-5 on the exact line, a = 1000^2 p 2b/(2 - b) = 8.034.
        let h = hs(false);
        let (a, b) = h.aimd(1000.0);
        assert!((a - 8.0337).abs() < 1e-3, "{a}");
        assert!((b - 0.329_878).abs() < 1e-5, "{b}");
    }

    #[test]
    fn limited_slow_start_adds_at_most_half_max_ssthresh_per_rtt() {
        // Below max_ssthresh = 100: +1 per ACK. At cwnd 400: K = floor(400/50) = 8, +1/8 per ACK.
        assert_eq!(limited_slow_start(50.0, 1e9, 10, 100.0), (60.0, 0));
        let (w, left) = limited_slow_start(400.0, 1e9, 8, 100.0);
        assert!((w - 401.0).abs() < 1e-12 && left == 0, "{w}");
        // One window of ACKs from 400 adds about 50 packets (K rises from 8 to 8 or 9).
        let (w, _) = limited_slow_start(400.0, 1e9, 400, 100.0);
        assert!(w > 445.0 && w <= 450.0, "{w}");
        // It stops at ssthresh and hands back the rest.
        assert_eq!(limited_slow_start(98.0, 100.0, 5, 100.0), (100.0, 3));
        // Off by default: plain slow start.
        let mut h = hs(true);
        assert_eq!(h.cong_avoid(&view(400.0, 1e9), 8), 408.0);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("table".into(), 0.5);
        assert_eq!(build(&p).err().unwrap().param, "table");
        let mut p = Params::new();
        p.insert("max_ssthresh".into(), 1.0);
        assert_eq!(build(&p).err().unwrap().param, "max_ssthresh");
        let mut p = Params::new();
        p.insert("max_ssthresh".into(), 100.0);
        p.insert("table".into(), 0.0);
        assert!(build(&p).is_ok());
    }
}
