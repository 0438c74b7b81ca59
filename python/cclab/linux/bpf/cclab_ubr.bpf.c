// SPDX-License-Identifier: GPL-2.0
/* cclab_ubr: Reno with an extra window for under-buffered links, as a BPF congestion control.
 *
 * Source: paper 003 (D. Hyun, J. W. Jang, "Enhanced TCP Congestion Control with Higher
 * Utilization in Under-Buffered Links", IEICE Trans. Commun. E95-B(4), 2012), section 2,
 * eqs. (1)-(4); cclab's crates/cclab-sim/src/cc/ubr.rs and lsrtt.rs (the simulator's `ubr`,
 * whose choices where the paper is silent this file follows; read its header for why).
 * Loss recovery (SACK, RACK, PRR) is the kernel's.
 *
 * Reno's own window `cwnd` is kept here (reno_fp); the kernel sends with
 * cwnd_proposed = cwnd + extra (eq. 3). Per congestion-avoidance cycle i:
 * - C(t) = LSRTT(t) / RTT_min, congestion when C(t) > alpha (eq. 1);
 * - W_full^i = beta * cwnd_proposed(t*), t* the first C > alpha after C <= alpha was seen
 *   since the cycle's loss (eq. 2);
 * - extra (eq. 4, with W_full^{i-1}): none before the first estimate; 0 when C > alpha or
 *   cwnd >= W_full; else the proposed window grows by (a - 1) per acknowledged packet up to
 *   W_full (case 1), then is held at W_full while Reno's part grows (case 2).
 * - Reno's part: slow start, then + acked / (cwnd + extra) per ACK (one packet per round as a
 *   lone Reno's), halved at a loss (floor 2); a loss ends the cycle and zeroes the extra.
 * - LSRTT (lsrtt.rs): the mean of the per-round minimum RTTs since the last change of level,
 *   a change being Page's CUSUM of the Gaussian log-likelihood ratio
 *   s = (nu / sigma^2)(e - nu/2) over threshold h, nu and sigma fractions of the first sample.
 *   Rounds: one ends with the ACK of the first segment sent after it began (rtt_round.rs).
 *
 * Fixed point and what the kernel hook sees:
 * - Windows in 1/1024 packet (WFP = 10 bits): reno_fp, extra_fp, W_full; the kernel's
 *   snd_cwnd is their sum >> 10. Times in microseconds (ack_sample.rtt_us, tcp_mstamp).
 * - With x and m in us and scale the first sample: s = K e / scale - C, K = shift/sigma^2 =
 *   400 and C = shift^2 / (2 sigma^2) = 2 at the defaults, both exact; the CUSUMs are kept in
 *   1/1024 nat. clang 14's BPF has no signed division: |e| is divided and the sign reapplied.
 * - alpha = 102/100, beta = 97/100 and a - 1 = 1/10 as exact fractions.
 * - RTT_min is the kernel's windowed minimum (tp->rtt_min, 300 s window by default: the
 *   connection's minimum in any run the Linux engine accepts), the simulator's v.rtt_min.
 * - The kernel changes snd_cwnd outside these hooks (PRR during recovery, 1 packet after a
 *   timeout, undo). Each cong_avoid starts from the kernel's window: in slow start Reno's part
 *   is snd_cwnd and the extra 0; in congestion avoidance a window the kernel lowered lowers
 *   the extra first, then Reno's part. An undo restores Reno's part to the restored window
 *   with no extra (case 1 rebuilds it).
 *
 * - Its phase is shown to user space when it changes (cclab_show: cc_series' state `none`,
 *   `filling` or `full`, the extra window in packets as the value).
 *
 * | parameter       | meaning                                        | value | fixed point        |
 * |-----------------|------------------------------------------------|-------|--------------------|
 * | alpha           | congestion threshold on LSRTT / RTT_min (eq 1) | 1.02  | 102 / 100          |
 * | beta            | W_full = beta * measured window (eq 2)         | 0.97  | 97 / 100           |
 * | a               | case 1 growth of the proposed window per RTT   | 1.1   | (a-1) = 1 / 10     |
 * | lsrtt_shift     | nu, fraction of the first RTT                  | 0.01  | K = 400, C = 2     |
 * | lsrtt_sigma     | sigma, fraction of the first RTT               | 0.005 | (in K and C)       |
 * | lsrtt_threshold | h, nats                                        | 5     | 5 * 1024           |
 */
#include "cclab_bpf.h"

char _license[] SEC("license") = "GPL";

#define WFP 10
#define ALPHA_NUM 102ull
#define ALPHA_DEN 100ull
#define BETA_NUM 97ull
#define BETA_DEN 100ull
#define A1_NUM 1ull /* a - 1 = 1/10 */
#define A1_DEN 10ull
#define LLR_K 400ll              /* shift / sigma^2, in units of 1/scale */
#define LLR_C (2ll << 10)        /* shift^2 / (2 sigma^2), 1/1024 nat */
#define LLR_H (5ll << 10)        /* threshold, 1/1024 nat */

struct ubr {
	__u32 reno_fp;      /* Reno's window, 1/1024 packet (0 until known) */
	__u32 extra_fp;     /* the extra window, 1/1024 packet */
	__u32 w_full_prev;  /* W_full^{i-1}, 1/1024 packet; 0 = none */
	__u32 w_full_cur;   /* W_full^i once found, 1/1024 packet; 0 = not yet */
	__u32 armed;        /* C <= alpha seen since the last loss */
	__u32 scale;        /* LSRTT: first sample, us */
	__u32 seg_n, up_n, down_n;
	__u32 round_min;    /* smallest RTT of this round, us; 0 = none */
	__u64 seg_sum, up_sum, down_sum;
	__s64 g_up, g_down; /* CUSUMs, 1/1024 nat */
	__u64 round_start;  /* us */
	__u32 phase;        /* shown to user space (UBR_*) */
};

/* The extra window's phase, shown (cclab_show: cc_series' state) when it changes: none, growing
 * towards W_full (eq. 4, case 1), or held at W_full while Reno's part grows (case 2). */
enum { UBR_NONE, UBR_FILLING, UBR_FULL };

_Static_assert(sizeof(struct ubr) <= 104, "icsk_ca_priv holds 104 bytes");

static __always_inline struct ubr *ubr_ca(const struct sock *sk)
{
	return (struct ubr *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* (LLR_K * 1024 * e) / scale - LLR_C, with e signed and only unsigned division. */
static __always_inline __s64 ubr_llr(__s64 e, __u32 scale)
{
	__u64 q = ((__u64)(e < 0 ? -e : e) * (__u64)(LLR_K << 10)) / scale;

	return (e < 0 ? -(__s64)q : (__s64)q) - LLR_C;
}

/* LSRTT takes one sample (lsrtt.rs Lsrtt::sample). */
static __always_inline void ubr_lsrtt_sample(struct ubr *ca, __u32 x)
{
	__s64 e, g;

	if (ca->seg_n == 0) {
		ca->scale = x;
		ca->seg_sum = x;
		ca->seg_n = 1;
		return;
	}
	e = (__s64)x - (__s64)(ca->seg_sum / ca->seg_n);
	g = ca->g_up + ubr_llr(e, ca->scale);
	if (g <= 0) {
		ca->g_up = 0;
		ca->up_sum = 0;
		ca->up_n = 0;
	} else {
		ca->g_up = g;
		ca->up_sum += x;
		ca->up_n++;
	}
	g = ca->g_down + ubr_llr(-e, ca->scale);
	if (g <= 0) {
		ca->g_down = 0;
		ca->down_sum = 0;
		ca->down_n = 0;
	} else {
		ca->g_down = g;
		ca->down_sum += x;
		ca->down_n++;
	}
	if (ca->g_up > LLR_H || ca->g_down > LLR_H) {
		bool up = ca->g_up > LLR_H;

		ca->seg_sum = up ? ca->up_sum : ca->down_sum;
		ca->seg_n = up ? ca->up_n : ca->down_n;
		ca->g_up = ca->g_down = 0;
		ca->up_sum = ca->down_sum = 0;
		ca->up_n = ca->down_n = 0;
	} else {
		ca->seg_sum += x;
		ca->seg_n++;
	}
}

static __always_inline void ubr_set_phase(const struct sock *sk, struct ubr *ca, __u32 phase)
{
	if (ca->phase != phase)
		cclab_show(sk, phase, ca->extra_fp >> WFP);
	ca->phase = phase;
}

SEC("struct_ops/cclab_ubr_init")
void BPF_PROG(cclab_ubr_init, struct sock *sk)
{
	struct ubr *ca = ubr_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	cclab_tcp_sk(sk)->snd_cwnd_cnt = 0;
	cclab_show(sk, UBR_NONE, 0);
}

SEC("struct_ops/cclab_ubr_ssthresh")
__u32 BPF_PROG(cclab_ubr_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ubr *ca = ubr_ca(sk);
	__u32 reno = ca->reno_fp ? ca->reno_fp : tp->snd_cwnd << WFP;

	/* The cycle ends: its estimate, if any, is W_full^{i-1} for the next one. */
	if (ca->w_full_cur) {
		ca->w_full_prev = ca->w_full_cur;
		ca->w_full_cur = 0;
	}
	ca->reno_fp = cclab_max(reno / 2, 2 << WFP); /* Reno halves its own window */
	ca->extra_fp = 0;
	ca->armed = 0;
	ubr_set_phase(sk, ca, UBR_NONE);
	return ca->reno_fp >> WFP;
}

SEC("struct_ops/cclab_ubr_cong_avoid")
void BPF_PROG(cclab_ubr_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ubr *ca = ubr_ca(sk);
	__u32 snd = tp->snd_cwnd << WFP, reno, extra, wf, lsrtt, rtt_min;
	bool c_ok;

	if (!cclab_is_cwnd_limited(tp))
		return;
	if (cclab_in_slow_start(tp)) {
		acked = cclab_slow_start(tp, acked);
		ca->reno_fp = tp->snd_cwnd << WFP;
		ca->extra_fp = 0;
		ubr_set_phase(sk, ca, UBR_NONE);
		if (!acked)
			return;
		snd = tp->snd_cwnd << WFP;
	}
	reno = ca->reno_fp ? ca->reno_fp : snd;
	extra = ca->extra_fp;
	/* The kernel lowered the window (PRR, cwnd validation): the extra goes first. */
	if (snd + (1 << WFP) <= reno + extra) {
		extra = snd > reno ? snd - reno : 0;
		reno = cclab_min(reno, snd);
	}
	/* Reno's part: one packet per round of cwnd + extra ACKs. */
	reno += (__u32)(((__u64)acked << (2 * WFP)) / (reno + extra));
	/* Eq. (1): C = LSRTT / RTT_min <= alpha, and 1 (no congestion) before any sample. */
	lsrtt = ca->seg_n ? (__u32)(ca->seg_sum / ca->seg_n) : 0;
	rtt_min = tp->rtt_min.s[0].v;
	c_ok = !lsrtt || !rtt_min || (__u64)lsrtt * ALPHA_DEN <= (__u64)rtt_min * ALPHA_NUM;
	if (c_ok)
		ca->armed = 1;
	else if (ca->armed && !ca->w_full_cur) /* eq. (2) at t* */
		ca->w_full_cur = (__u32)((__u64)(reno + extra) * BETA_NUM / BETA_DEN);
	/* Eq. (4) with W_full^{i-1}. */
	wf = ca->w_full_prev;
	if (!wf || !c_ok || reno >= wf) {
		extra = 0;
	} else if (reno + extra < wf) {
		__u32 grown = reno + extra + (__u32)(((__u64)acked << WFP) * A1_NUM / A1_DEN);

		grown = cclab_min(grown, wf);
		extra = grown > reno ? grown - reno : 0;
	} else {
		extra = wf - reno;
	}
	ca->reno_fp = reno;
	ca->extra_fp = extra;
	ubr_set_phase(sk, ca, !extra ? UBR_NONE : reno + extra >= wf ? UBR_FULL : UBR_FILLING);
	tp->snd_cwnd = cclab_min(cclab_max((reno + extra) >> WFP, 2), tp->snd_cwnd_clamp);
}

SEC("struct_ops/cclab_ubr_pkts_acked")
void BPF_PROG(cclab_ubr_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ubr *ca = ubr_ca(sk);
	__s32 rtt = sample->rtt_us;

	if (rtt <= 0)
		return;
	if (!ca->round_min || (__u32)rtt < ca->round_min)
		ca->round_min = rtt;
	/* A round ends with the ACK of a segment sent after it began; LSRTT takes its minimum. */
	if (tp->tcp_mstamp - (__u64)rtt >= ca->round_start) {
		ca->round_start = tp->tcp_mstamp;
		ubr_lsrtt_sample(ca, ca->round_min);
		ca->round_min = 0;
	}
}

SEC("struct_ops/cclab_ubr_undo_cwnd")
__u32 BPF_PROG(cclab_ubr_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ubr *ca = ubr_ca(sk);
	__u32 w = cclab_max(tp->snd_cwnd, tp->prior_cwnd);

	ca->reno_fp = w << WFP;
	ca->extra_fp = 0;
	ubr_set_phase(sk, ca, UBR_NONE);
	return w;
}

SEC(".struct_ops")
struct tcp_congestion_ops cclab_ubr = {
	.init = (void *)cclab_ubr_init,
	.ssthresh = (void *)cclab_ubr_ssthresh,
	.cong_avoid = (void *)cclab_ubr_cong_avoid,
	.pkts_acked = (void *)cclab_ubr_pkts_acked,
	.undo_cwnd = (void *)cclab_ubr_undo_cwnd,
	.name = "cclab_ubr",
};
