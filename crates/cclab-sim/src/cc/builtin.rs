//! The built-in algorithms and add-ons: one line each (an [`Entry`]) in the order `cclab
//! algorithms` lists them. Adding one: its file in `cc/` with a `build` function, and its line here.

use super::*;
use crate::registry::{Entry, Schema};

/// Every built-in add-on.
pub static WRAPPERS: &[Entry<Wrapper>] = &[Entry {
    name: "ktcp",
    summary:
        "Kyushu-TCP (Yoshimizu et al. 2010): after a loss, hold the window at alpha x the loss window for T_c^2 windows",
    params: Schema::Read,
    build: Wrapper { prefix: ktcp::PREFIX, wrap: ktcp::wrap },
}];

/// Every built-in algorithm, keyed by its lowercase name.
pub static BUILTIN: &[Entry<Builder>] = &[
    Entry {
        name: "reno",
        summary: "Reno AIMD (RFC 5681): +1 packet per RTT, halve on loss; classic fast recovery by default",
        params: Schema::Read,
        build: reno::build,
    },
    Entry {
        name: "newreno",
        summary: "NewReno (RFC 6582): Reno's AIMD with partial-ACK recovery by default",
        params: Schema::Read,
        build: reno::build_newreno,
    },
    Entry {
        name: "highspeed",
        summary: "HighSpeed TCP (RFC 3649): a(w), b(w) from the RFC's table above 38 packets, Reno below",
        params: Schema::Read,
        build: highspeed::build,
    },
    Entry {
        name: "scalable",
        summary: "Scalable TCP (Kelly 2003): +0.01 packet per ACK, x0.875 on loss, Reno below 16 packets",
        params: Schema::Read,
        build: scalable::build,
    },
    Entry {
        name: "bic",
        summary: "BIC-TCP (Xu, Harfoush, Rhee 2004): binary search towards W_max, additive steps of at most S_max",
        params: Schema::Read,
        build: bic::build,
    },
    Entry {
        name: "bic-linux",
        summary: "BIC-TCP as Linux's tcp_bic.c: a quarter of the distance to W_max per RTT, 16 at most, smooth part near it (linux stack's bic)",
        params: Schema::Read,
        build: bic_linux::build,
    },
    Entry {
        name: "cubic",
        summary: "CUBIC (RFC 9438): W(t) = C (t - K)^3 + W_max with a Reno-friendly floor; variant 1 = 2008 constants",
        params: Schema::Read,
        build: cubic::build,
    },
    Entry {
        name: "cubic-linux",
        summary: "CUBIC as Linux's tcp_cubic.c: the curve at t + delay_min in jiffies, cnt at least 2, Reno estimate, HyStart (linux stack's cubic)",
        params: Schema::Read,
        build: cubic_linux::build,
    },
    Entry {
        name: "vegas",
        summary: "TCP Vegas (Brakmo, O'Malley, Peterson 1994): keep alpha..beta packets queued, +-1 packet per RTT",
        params: Schema::Read,
        build: vegas::build,
    },
    Entry {
        name: "vegas-linux",
        summary: "TCP Vegas as Linux's tcp_vegas.c: diff = cwnd (RTT - baseRTT) / baseRTT in whole packets and microseconds (linux stack's vegas)",
        params: Schema::Read,
        build: vegas_linux::build,
    },
    Entry {
        name: "vegas-ns2",
        summary: "TCP Vegas as ns-2.35's Agent/TCP/Vegas: slow start every other round, rounded mean-RTT estimate, 3/4 cut",
        params: Schema::Read,
        build: vegas_ns2::build,
    },
    Entry {
        name: "fast",
        summary: "FAST TCP (Jin, Wei, Low 2004): w <- min(2w, (1-g)w + g(baseRTT/avgRTT w + alpha)) once per RTT",
        params: Schema::Read,
        build: fast::build,
    },
    Entry {
        name: "westwood",
        summary: "Westwood+ (Mascolo, Grieco et al. 2004): ssthresh = bandwidth estimate x RTTmin on loss; mode 1 = paper 001 eq. (2)",
        params: Schema::Read,
        build: westwood::build,
    },
    Entry {
        name: "cr",
        summary: "Constant Rate (paper 001 eqs. 3-4, 7): +k RTT^2 packets per RTT, k = 1/RTT_ref^2; halve on loss",
        params: Schema::Read,
        build: cr::build,
    },
    Entry {
        name: "ci",
        summary: "Constant Increase (paper 001 eqs. 5, 14): +k' RTT packets per RTT, k' = 1/(RTT_ref + queueing delay); halve on loss",
        params: Schema::Read,
        build: ci::build,
    },
    Entry {
        name: "htcp",
        summary: "H-TCP (Leith, Shorten 2004): alpha grows with time since the last loss, beta = RTTmin/RTTmax in [0.5, 0.8]",
        params: Schema::Read,
        build: htcp::build,
    },
    Entry {
        name: "xcp",
        summary: "XCP sender (Katabi et al. 2002): window moved by router feedback; needs queue = \"xcp\" on the bottleneck",
        params: Schema::Read,
        build: xcp::build,
    },
    Entry {
        name: "tcp-gt",
        summary: "TCP-GT (Jung, Kim, Yeom, Kang 2010): window moved by goodput - throughput per epoch; IIMD with window splitting",
        params: Schema::Read,
        build: tcp_gt::build,
    },
    Entry {
        name: "hrf",
        summary: "HRF-TCP (paper 001 eqs. 15-17): CR's +k RTT^2 per RTT while RTT = RTT_min, CI's +k' RTT once queued; Westwood decrease",
        params: Schema::Read,
        build: hrf::build,
    },
    Entry {
        name: "w+cr+reno",
        summary: "Paper 001 section 5.2 variant: Westwood decrease, CR increase without a queue, Reno's +1 per RTT with one",
        params: Schema::Read,
        build: hrf::build_w_cr_reno,
    },
    Entry {
        name: "w+cr+cr",
        summary: "Paper 001 section 5.2 variant: Westwood decrease, CR increase with and without a queue",
        params: Schema::Read,
        build: hrf::build_w_cr_cr,
    },
    Entry {
        name: "ubr",
        summary: "Reno plus an extra window for under-buffered links (paper 003 eqs. 1-4): fills what Reno leaves idle, up to W_full",
        params: Schema::Read,
        build: ubr::build,
    },
    Entry {
        name: "ghstcp",
        summary: "gentle HighSpeed TCP (Zhang, Hasegawa, Murata): HighSpeed, but +1 packet per RTT while RTTs correlate with departure times (Fisher's Z > 3.09)",
        params: Schema::Read,
        build: ghstcp::build,
    },
    Entry {
        name: "ktcp",
        summary: "Kyushu-TCP add-on (Yoshimizu et al. 2010), alone on HighSpeed; \"<name>+ktcp\" wraps any algorithm: hold at 0.9 x the loss window for T_c^2 windows",
        params: Schema::Read,
        build: ktcp::build,
    },
    Entry {
        name: "bbr",
        summary: "BBR v1 (Cardwell et al. 2016) as Linux's tcp_bbr.c: paced at gain x max-filtered bw, cwnd 2 BDP; STARTUP, DRAIN, PROBE_BW, PROBE_RTT",
        params: Schema::Read,
        build: bbr::build,
    },
    Entry {
        name: "dctcp",
        summary: "DCTCP (RFC 8257; Alizadeh et al. 2010): cwnd x (1 - alpha/2) once per window of ECN echoes, alpha the EWMA of the marked fraction",
        params: Schema::Read,
        build: dctcp::build,
    },
    Entry {
        name: "bbr3",
        summary: "BBRv3 (draft-ietf-ccwg-bbr; Google's v3 tcp_bbr.c): v1's model bounded by loss and ECN (inflight_hi/lo, bw_lo, 2 % loss, beta 0.7); ProbeBW_DOWN/CRUISE/REFILL/UP, ProbeRTT every 5 s at 0.5 BDP",
        params: Schema::Read,
        build: bbr3::build,
    },
];
