// SPDX-License-Identifier: GPL-2.0
/* cclab_ghstcp: gHSTCP (gentle HighSpeed TCP) as a BPF congestion control (docs/linux.md).
 *
 * Source: Z. Zhang, G. Hasegawa, M. Murata, "Performance Analysis and Improvement of HighSpeed
 * TCP with TailDrop/RED Routers" (paper 004), section 3.2; RFC 3649 (HighSpeed TCP); cclab's
 * crates/cclab-sim/src/cc/ghstcp.rs and highspeed.rs (the simulator's `ghstcp`, same defaults).
 * Loss recovery (SACK, RACK, PRR) is the kernel's.
 *
 * - HSTCP mode: congestion avoidance adds a(w) packets per RTT; Reno mode adds 1. A loss gives
 *   up b(w) of the window in both modes (RFC 3649 section 5): ssthresh = max(w - w b(w), 2).
 *   a(w), b(w) and the increase are HighSpeed's, shared with cclab_ktcp in cclab_highspeed.h
 *   (its header gives the table's fixed point).
 * - Mode switch: over a window of N = cwnd ACKs with RTT samples, the pairs (d_i, t_i), t_i the
 *   RTT and d_i = now - t_i the departure, give Pearson's
 *   r = (N Sdt - Sd St) / sqrt((N Sdd - Sd^2)(N Stt - St^2)) and Fisher's
 *   Z = 1/2 ln((1+r)/(1-r)) sqrt(N-3) (section 3.2); Reno mode while Z > z, z = 3.09.
 *   A loss (ssthresh(), called on fast retransmit and on timeout) returns to HSTCP mode and
 *   starts the samples afresh, as ghstcp.rs does.
 * - Slow start: standard (HighSpeed's without max_ssthresh, the Rust default).
 *
 * Fixed point and the choices the kernel forces (BPF has no floats and no sqrt/ln):
 * - Times in microseconds (tp->tcp_mstamp, ack_sample.rtt_us), d_i relative to the first
 *   departure of the window; sums in 64 bits, exact (no rounding drift to re-sum away).
 *   N <= GHSTCP_N_MAX = 1024 samples and d, t < 2^20 us (a window spanning more restarts): then
 *   N Sdd < 2^60, so nothing overflows.
 * - Z > z is tested as r > tanh(z / sqrt(N-3)) (equivalent: Z grows with r), the bound
 *   precomputed per N in GHSTCP_R_MIN in units of 1/1024, rounded up. The comparison
 *   num^2 2^20 > r_min^2 vx vy is done after scaling vx by 4^a, vy by 4^b and num by 2^(a+b)
 *   down to < 2^20 each (r is unchanged by scaling d or t), so it fits in 64 bits; this keeps
 *   ~10 significant bits of each standard deviation.
 * - **Tumbling, not sliding, windows**: ghstcp.rs keeps the last N pairs in a ring buffer and
 *   decides on every ACK; here the sums of one window of N = cwnd samples (cwnd when the window
 *   started, capped at GHSTCP_N_MAX, at least 4) are tested once when it is complete and then
 *   restarted. A ring buffer of 1024 pairs does not fit the 104 bytes of icsk_ca_priv (it would
 *   need sk_storage); the decision is the same statistic, taken once per window instead of per
 *   ACK, so a mode change can come up to one window later than in the simulator.
 *
 * | parameter | meaning                                  | value | fixed point               |
 * |-----------|------------------------------------------|-------|---------------------------|
 * | z         | Reno mode while Fisher's Z exceeds it    | 3.09  | via GHSTCP_R_MIN (1/1024) |
 * | table     | a(w), b(w) from the table (not formulas) | 1     | md = b * 256              |
 */
#include "cclab_highspeed.h"

char _license[] SEC("license") = "GPL";

#define GHSTCP_MAX_US (1u << 20)
#define GHSTCP_FIT (1ull << 20)

enum ghstcp_mode { GHSTCP_HSTCP = 0, GHSTCP_RENO = 1 };

struct ghstcp {
	__u32 mode;
	__u32 n;       /* samples in the current window */
	__u32 target;  /* N: the window's size, samples */
	__u32 pad;
	__u64 origin;  /* departure of the window's first sample, us */
	__u64 sd, st, sdd, stt, sdt;
};

static __always_inline struct ghstcp *ghstcp_ca(const struct sock *sk)
{
	return (struct ghstcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline void ghstcp_restart(struct ghstcp *ca)
{
	ca->n = 0;
	ca->target = 0;
	ca->sd = ca->st = ca->sdd = ca->stt = ca->sdt = 0;
}

/* Sets the mode, shown to user space (cc_series' state: 0 hstcp, 1 reno) when it changes. */
static __always_inline void ghstcp_set_mode(const struct sock *sk, struct ghstcp *ca, __u32 mode)
{
	if (ca->mode != mode)
		cclab_show(sk, mode, 0);
	ca->mode = mode;
}

/* Pearson's r of the window exceeds r_min (1/1024), i.e. Fisher's Z exceeds z. */
static __always_inline bool ghstcp_correlated(const struct ghstcp *ca, __u32 r_min)
{
	__u64 n = ca->n;
	__u64 vx = n * ca->sdd - ca->sd * ca->sd;
	__u64 vy = n * ca->stt - ca->st * ca->st;
	__s64 num = (__s64)(n * ca->sdt) - (__s64)(ca->sd * ca->st);
	__u32 a = 0, b = 0, i;
	__u64 m;

	if (num <= 0 || vx == 0 || vy == 0 || (__s64)vx < 0 || (__s64)vy < 0)
		return false;
	for (i = 0; i < 32 && vx >= GHSTCP_FIT; i++) {
		vx >>= 2;
		a++;
	}
	for (i = 0; i < 32 && vy >= GHSTCP_FIT; i++) {
		vy >>= 2;
		b++;
	}
	m = (__u64)num >> (a + b);
	if (vx == 0 || vy == 0)
		return false;
	if (m >= GHSTCP_FIT) /* |r| <= 1 up to the scaling's rounding: saturated */
		return true;
	return (m * m) << 20 > (__u64)r_min * r_min * vx * vy;
}

SEC("struct_ops/cclab_ghstcp_init")
void BPF_PROG(cclab_ghstcp_init, struct sock *sk)
{
	struct ghstcp *ca = ghstcp_ca(sk);

	cclab_tcp_sk(sk)->snd_cwnd_cnt = 0;
	ca->mode = GHSTCP_HSTCP;
	cclab_show(sk, GHSTCP_HSTCP, 0);
	ghstcp_restart(ca);
}

SEC("struct_ops/cclab_ghstcp_ssthresh")
__u32 BPF_PROG(cclab_ghstcp_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ghstcp *ca = ghstcp_ca(sk);

	ghstcp_set_mode(sk, ca, GHSTCP_HSTCP);
	ghstcp_restart(ca);
	return hstcp_ssthresh(tp->snd_cwnd);
}

SEC("struct_ops/cclab_ghstcp_cong_avoid")
void BPF_PROG(cclab_ghstcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ghstcp *ca = ghstcp_ca(sk);

	acked = cclab_acked_for_ca(tp, acked);
	if (!acked)
		return;
	/* Congestion avoidance: a per cwnd packets acknowledged, a = a(w) or 1 (Reno mode). */
	hstcp_increase(tp, acked, ca->mode == GHSTCP_RENO ? 1 : hstcp_a(tp->snd_cwnd));
}

SEC("struct_ops/cclab_ghstcp_pkts_acked")
void BPF_PROG(cclab_ghstcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ghstcp *ca = ghstcp_ca(sk);
	__s32 rtt = sample->rtt_us;
	__u64 dep, d, t;

	if (rtt <= 0)
		return;
	dep = tp->tcp_mstamp - (__u64)rtt;
	if (ca->n == 0) {
		ca->origin = dep;
		ca->target = cclab_min(cclab_max(tp->snd_cwnd, 4), GHSTCP_N_MAX);
	}
	d = dep - ca->origin;
	t = (__u64)rtt;
	if (dep < ca->origin || d >= GHSTCP_MAX_US || t >= GHSTCP_MAX_US) {
		ghstcp_restart(ca); /* out of the window's range: start a new one at the next sample */
		return;
	}
	ca->n++;
	ca->sd += d;
	ca->st += t;
	ca->sdd += d * d;
	ca->stt += t * t;
	ca->sdt += d * t;
	if (ca->n >= ca->target) {
		__u64 n = ca->n;

		asm volatile("" : "+r"(n)); /* the verifier must see the bound on the index used */
		if (n > GHSTCP_N_MAX)
			n = GHSTCP_N_MAX;
		ghstcp_set_mode(sk, ca, ghstcp_correlated(ca, GHSTCP_R_MIN[n]) ? GHSTCP_RENO : GHSTCP_HSTCP);
		ghstcp_restart(ca);
	}
}

SEC("struct_ops/cclab_ghstcp_undo_cwnd")
__u32 BPF_PROG(cclab_ghstcp_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);

	return cclab_max(tp->snd_cwnd, tp->prior_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops cclab_ghstcp = {
	.init = (void *)cclab_ghstcp_init,
	.ssthresh = (void *)cclab_ghstcp_ssthresh,
	.cong_avoid = (void *)cclab_ghstcp_cong_avoid,
	.pkts_acked = (void *)cclab_ghstcp_pkts_acked,
	.undo_cwnd = (void *)cclab_ghstcp_undo_cwnd,
	.name = "cclab_ghstcp",
};
