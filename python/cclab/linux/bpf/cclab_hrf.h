/* cclab_hrf.h: HRF-TCP (Hybrid RTT-Fair) and paper 001's two comparison variants, one source
 * compiled three times (cclab_hrf.bpf.c, cclab_w_cr_reno.bpf.c, cclab_w_cr_cr.bpf.c), each
 * defining HRF_BUFFERED (the increase while packets queue) and HRF_OPS (its name) first.
 *
 * Source: paper 001 (K. Ogura, Y. Nemoto, Z. Su, J. Katto, "A New TCP Congestion Control
 * Supporting RTT-Fairness", IEICE Trans. Inf. & Syst. E95-D(2), 2012), section 4, eqs. (15)-(17)
 * with k from eq. (7) and k' from eq. (14), variants from section 5.2; cclab's
 * crates/cclab-sim/src/cc/hrf.rs with cr.rs, ci.rs and westwood.rs (the simulator's `hrf`,
 * `w+cr+reno`, `w+cr+cr`, whose choices where the paper is silent this file follows; read its
 * header for why). Loss recovery (SACK, RACK, PRR) is the kernel's.
 *
 * - Mode (the Rust choice): vacant while SRTT <= (1 + rtt_tol) RTT_min, else buffered.
 * - Vacant (eq. 15, CR): cwnd += k SRTT^2 per RTT, k = 1 / RTT_ref^2 (eq. 7).
 * - Buffered (eq. 16, CI): cwnd += k' SRTT per RTT, k' = 1 / (RTT_ref + q) (eq. 14),
 *   q = SRTT - RTT_min the measured queueing delay; w+cr+reno adds 1, w+cr+cr uses CR's rule.
 * - Before any RTT sample the increase is Reno's, one packet per RTT.
 * - Loss (eq. 17 = eq. 2, Westwood): ssthresh = max(RTT_min / RTT cwnd, cwnd / 2, 2), RTT the
 *   latest sample (ack_sample.rtt_us); halve before any sample.
 * - Slow start is Reno's; undo returns to the window before the reduction.
 *
 * Fixed point and what the kernel hook sees:
 * - Times in microseconds: SRTT is the kernel's tp->srtt_us / 8 (RFC 6298's, gain 1/8, as the
 *   simulator's), RTT_min the kernel's windowed minimum tp->rtt_min (300 s window: the
 *   connection's minimum in any run the Linux engine accepts), RTT_ref = 40000 us.
 * - The per-RTT increase a is computed per ACK in 1/1024 packet (floor): CR as
 *   (SRTT^2 << 10) / RTT_ref^2, CI as (SRTT << 10) / (RTT_ref + q), in 64 bits (SRTT is capped
 *   at 2^26 us = 67 s first so SRTT^2 << 10 fits). It is applied with the kernel's counter
 *   (cclab_cong_avoid_ai with the window and a both scaled by 1024): one packet per
 *   cwnd * 1024 of accumulated a * acked, so a / cwnd per acknowledged packet as in the
 *   simulator, lost only to the 1/1024 floor. a is capped at HRF_A_MAX = 2^20 (1024 packets
 *   per RTT: CR reaches it at SRTT = 1.28 s, beyond the Linux engine's range) so a * acked
 *   stays in the counter's 32 bits; the simulator has no cap.
 * - The mode test SRTT <= (1 + rtt_tol) RTT_min is 100 SRTT <= 101 RTT_min: exact.
 * - Eq. (17): cwnd * RTT_min / RTT in 64 bits, floor; cwnd / 2 floor (the simulator keeps the
 *   fractions; the kernel's window is whole packets).
 * - No cc_params on the Linux engine: rtt_ref and rtt_tol are the Rust defaults, compiled in.
 * - The mode is shown to user space (cclab_show, cc_series' state `vacant` or `buffered`) when
 *   a congestion-avoidance ACK decides another one than the last.
 *
 * | parameter | meaning                                              | value | fixed point       |
 * |-----------|------------------------------------------------------|-------|-------------------|
 * | rtt_ref   | RTT of the reference Reno flow, eqs. (7) and (14)    | 40 ms | 40000 us          |
 * | rtt_tol   | queueing delay still counted as RTT = RTT_min        | 0.01  | 100 SRTT <= 101 m |
 */
#ifndef CCLAB_HRF_H
#define CCLAB_HRF_H

#include "cclab_bpf.h"

/* The increase rules of paper 001 (hrf.rs `Increase`). */
#define HRF_RENO 0
#define HRF_CR 1
#define HRF_CI 2

#ifndef HRF_BUFFERED
#error "define HRF_BUFFERED (HRF_RENO, HRF_CR or HRF_CI) and HRF_OPS before including cclab_hrf.h"
#endif

/* The programs are named <HRF_OPS>_<hook> (cclab_hrf_init, ...): the engine finds an algorithm's
 * programs, and so its cclab_state map, by that prefix (bpf.py `state_map`). */
#define HRF_STR2(x) #x
#define HRF_STR(x) HRF_STR2(x)
#define HRF_CAT2(a, b) a##_##b
#define HRF_CAT(a, b) HRF_CAT2(a, b)
#define HRF_FN(hook) HRF_CAT(HRF_OPS, hook)
#define HRF_PROG2(fn, args...) SEC("struct_ops/" HRF_STR(fn)) BPF_PROG(fn, args)
#define HRF_PROG(hook, args...) HRF_PROG2(HRF_FN(hook), args)

#define HRF_RTT_REF_US 40000ull
#define HRF_TOL_NUM 101ull /* 1 + rtt_tol = 101 / 100 */
#define HRF_TOL_DEN 100ull
#define HRF_SRTT_MAX_US (1ull << 26)
#define HRF_A_MAX (1u << 20)

/* The mode shown to user space (cclab_show: cc_series' state, the REGISTRY line's names). */
#define HRF_VACANT 0
#define HRF_QUEUED 1

struct hrf {
	__u32 last_rtt_us; /* the latest RTT sample, 0 before the first */
	__u32 mode;        /* HRF_VACANT or HRF_QUEUED, as last decided */
};

_Static_assert(sizeof(struct hrf) <= 104, "icsk_ca_priv holds 104 bytes");

static __always_inline struct hrf *hrf_ca(const struct sock *sk)
{
	return (struct hrf *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* The kernel's windowed RTT minimum, us (~0 before any sample). */
static __always_inline __u32 hrf_rtt_min(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

/* Packets added per RTT in congestion avoidance, 1/1024 packet (hrf.rs `Hrf::per_rtt`); the
 * mode it decided is shown when it changes. */
static __always_inline __u32 hrf_per_rtt(const struct sock *sk, const struct tcp_sock *tp)
{
	__u64 srtt = tp->srtt_us >> 3, m = hrf_rtt_min(tp), a;
	struct hrf *ca = hrf_ca(sk);
	__u32 mode;
	int rule;

	if (srtt == 0 || m == 0 || m == ~0u) /* no RTT sample yet: Reno */
		return CCLAB_ONE;
	if (srtt > HRF_SRTT_MAX_US)
		srtt = HRF_SRTT_MAX_US;
	mode = srtt * HRF_TOL_DEN <= m * HRF_TOL_NUM ? HRF_VACANT : HRF_QUEUED;
	if (mode != ca->mode)
		cclab_show(sk, mode, 0);
	ca->mode = mode;
	rule = mode == HRF_VACANT ? HRF_CR : HRF_BUFFERED;
	if (rule == HRF_CR) /* eq. (3) with eq. (7): k SRTT^2 = (SRTT / RTT_ref)^2 */
		a = (srtt * srtt << CCLAB_SHIFT) / (HRF_RTT_REF_US * HRF_RTT_REF_US);
	else if (rule == HRF_CI) /* eq. (5) with eq. (14): k' SRTT = SRTT / (RTT_ref + q) */
		a = (srtt << CCLAB_SHIFT) / (HRF_RTT_REF_US + (srtt > m ? srtt - m : 0));
	else
		a = CCLAB_ONE;
	return a > HRF_A_MAX ? HRF_A_MAX : (__u32)a;
}

void HRF_PROG(init, struct sock *sk)
{
	hrf_ca(sk)->last_rtt_us = 0;
	hrf_ca(sk)->mode = HRF_VACANT; /* as the simulator's before any sample */
	cclab_show(sk, HRF_VACANT, 0);
	cclab_tcp_sk(sk)->snd_cwnd_cnt = 0;
}

/* Eq. (17): max(RTT_min / RTT cwnd, cwnd / 2), at least 2 (hrf.rs `ssthresh`). */
__u32 HRF_PROG(ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	__u32 w = tp->snd_cwnd, rtt = hrf_ca(sk)->last_rtt_us, m = hrf_rtt_min(tp), out = w / 2;

	if (rtt && m && m != ~0u)
		out = cclab_max(out, (__u32)((__u64)w * m / rtt));
	return cclab_max(out, 2);
}

void HRF_PROG(cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = cclab_tcp_sk(sk);
	__u64 inc;

	acked = cclab_acked_for_ca(tp, acked);
	if (!acked)
		return;
	/* a / cwnd per acknowledged packet: window and a both in 1/1024 packet. */
	inc = (__u64)acked * hrf_per_rtt(sk, tp);
	cclab_cong_avoid_ai(tp, tp->snd_cwnd << CCLAB_SHIFT, inc > 0x7fffffffu ? 0x7fffffffu : (__u32)inc);
}

void HRF_PROG(pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	if (sample->rtt_us > 0)
		hrf_ca(sk)->last_rtt_us = sample->rtt_us;
}

__u32 HRF_PROG(undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);

	return cclab_max(tp->snd_cwnd, tp->prior_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops HRF_OPS = {
	.init = (void *)HRF_FN(init),
	.ssthresh = (void *)HRF_FN(ssthresh),
	.cong_avoid = (void *)HRF_FN(cong_avoid),
	.pkts_acked = (void *)HRF_FN(pkts_acked),
	.undo_cwnd = (void *)HRF_FN(undo_cwnd),
	.name = HRF_STR(HRF_OPS),
};

#endif
