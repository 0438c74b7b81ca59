// SPDX-License-Identifier: GPL-2.0
/* cclab_ktcp: Kyushu-TCP around HighSpeed TCP as a BPF congestion control (docs/linux.md).
 *
 * Source: S. Yoshimizu, H. Koga, K. Kouyama, M. Shimamura, K. Kumazoe, M. Tsuru, "Kyushu-TCP:
 * Improving Fairness of High-Speed Transport Protocols", IEICE Trans. Commun. E93-B(5), 2010
 * (paper 002), sections 3-4; cclab's crates/cclab-sim/src/cc/ktcp/mod.rs (the simulator's
 * `ktcp`, i.e. `highspeed+ktcp`, whose choices where the paper is silent this file follows; read
 * its header for why) and highspeed.rs. HighSpeed's rules are cclab_highspeed.h, shared with
 * cclab_ghstcp. Loss recovery (SACK, RACK, PRR) is the kernel's.
 *
 * The simulator's KTCP wraps any algorithm (`cubic+ktcp`, ...); a struct_ops cannot call another
 * registered congestion control, so this one is KTCP on HighSpeed only, the paper's HSTCP+KTCP.
 *
 * - A loss (ssthresh()) with window w1 aims the rise at w2 = alpha w1 (eq. 1) if w2 exceeds
 *   HighSpeed's W_low = 38 packets (else no period); HighSpeed then decreases as usual.
 * - Rising: HighSpeed's congestion avoidance runs; when its window reaches w2 the window is set
 *   to max(w2, the window before that ACK) and the non-aggressive period begins. Slow start is
 *   never restrained.
 * - Holding: the window stays at that level (HighSpeed sees no ACK) until more than
 *   B = T_c^2 w2 data packets (eq. 2), retransmissions included, have left since the period began;
 *   then HighSpeed runs unrestrained. A loss ends the period at once.
 * - T_c counts entries into fast recovery (set_state to TCP_CA_Recovery from another state); a
 *   retransmission timeout (cwnd_event CA_EVENT_LOSS, after ssthresh()) resets it to 0 and
 *   drops any period.
 *
 * Fixed point and what the kernel hook sees:
 * - w2 in 1/1024 packet, alpha = 9/10 as an exact fraction; B in 1/1024 packet (64 bits, T_c
 *   counted up to 65535 so T_c^2 w2 fits). The hold level is whole packets, floor(w2) or the
 *   window before (the simulator's float level sends floor(level) packets: the same).
 * - The simulator counts sends in on_send; struct_ops has no per-send hook, so the packets sent
 *   are tp->data_segs_out (segments sent, retransmissions included) minus its value when the
 *   period began, tested on each ACK: the period ends at the first ACK after B was exceeded
 *   (within one ACK's packets of the simulator).
 * - The rise ends when the kernel's whole window reaches w2 (cwnd * 1024 >= w2): up to one
 *   packet later than the simulator's fractional window; both then hold at floor(w2).
 * - The phase is shown to user space when it changes (cclab_show: cc_series' state `free`,
 *   `rising` or `holding`).
 * - No cc_params on the Linux engine: alpha and low_window are the Rust defaults for
 *   HighSpeed, tc_max 0 (T_c unbounded, up to the 65535 above).
 *
 * | parameter | meaning                                         | value | fixed point      |
 * |-----------|-------------------------------------------------|-------|------------------|
 * | alpha     | w2 = alpha w1 (eq. 1)                           | 0.9   | 9 / 10           |
 * | low_window| no period unless w2 exceeds it, packets         | 38    | 38 << 10         |
 * | tc_max    | largest T_c counted (0 = unbounded)             | 0     | capped at 65535  |
 */
#include "cclab_highspeed.h"

char _license[] SEC("license") = "GPL";

#define KTCP_ALPHA_NUM 9ull
#define KTCP_ALPHA_DEN 10ull
#define KTCP_TC_CAP 65535u

enum ktcp_phase { KTCP_FREE = 0, KTCP_RISING = 1, KTCP_HOLDING = 2 };

struct ktcp {
	__u32 phase;
	__u32 tc;      /* T_c: fast retransmits since the start or the last timeout */
	__u32 w2_fp;   /* w2, 1/1024 packet */
	__u32 level;   /* the held window, packets */
	__u64 b_fp;    /* B = T_c^2 w2, 1/1024 packet */
	__u32 sent_at; /* tp->data_segs_out when the period began */
	__u32 pad;
};

_Static_assert(sizeof(struct ktcp) <= 104, "icsk_ca_priv holds 104 bytes");

static __always_inline struct ktcp *ktcp_ca(const struct sock *sk)
{
	return (struct ktcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* Sets the phase, shown to user space with T_c (cc_series' state: free, rising, holding). */
static __always_inline void ktcp_set_phase(const struct sock *sk, struct ktcp *ca, __u32 phase)
{
	if (ca->phase != phase)
		cclab_show(sk, phase, ca->tc);
	ca->phase = phase;
}

SEC("struct_ops/cclab_ktcp_init")
void BPF_PROG(cclab_ktcp_init, struct sock *sk)
{
	struct ktcp *ca = ktcp_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	cclab_tcp_sk(sk)->snd_cwnd_cnt = 0;
	cclab_show(sk, KTCP_FREE, 0);
}

/* A loss ends any period; the next rise aims at alpha times this window (ktcp `on_reduction`). */
SEC("struct_ops/cclab_ktcp_ssthresh")
__u32 BPF_PROG(cclab_ktcp_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ktcp *ca = ktcp_ca(sk);

	ca->w2_fp = (__u32)(((__u64)tp->snd_cwnd << CCLAB_SHIFT) * KTCP_ALPHA_NUM / KTCP_ALPHA_DEN);
	ktcp_set_phase(sk, ca, ca->w2_fp > (HSTCP_LOW_WINDOW << CCLAB_SHIFT) ? KTCP_RISING : KTCP_FREE);
	return hstcp_ssthresh(tp->snd_cwnd);
}

SEC("struct_ops/cclab_ktcp_cong_avoid")
void BPF_PROG(cclab_ktcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct ktcp *ca = ktcp_ca(sk);
	__u32 before;

	if (ca->phase == KTCP_HOLDING) {
		if (((__u64)(tp->data_segs_out - ca->sent_at) << CCLAB_SHIFT) <= ca->b_fp) {
			tp->snd_cwnd = cclab_min(ca->level, tp->snd_cwnd_clamp);
			return;
		}
		ktcp_set_phase(sk, ca, KTCP_FREE); /* more than B sent: HighSpeed runs unrestrained */
	}
	if (!cclab_is_cwnd_limited(tp))
		return;
	if (cclab_in_slow_start(tp)) { /* never restrained */
		acked = cclab_slow_start(tp, acked);
		if (acked)
			hstcp_increase(tp, acked, hstcp_a(tp->snd_cwnd));
		return;
	}
	before = tp->snd_cwnd;
	hstcp_increase(tp, acked, hstcp_a(before));
	if (ca->phase == KTCP_RISING && ((__u64)tp->snd_cwnd << CCLAB_SHIFT) >= ca->w2_fp) {
		__u64 tc = ca->tc;

		ca->level = cclab_max(ca->w2_fp >> CCLAB_SHIFT, before);
		ca->b_fp = tc * tc * ca->w2_fp;
		ca->sent_at = tp->data_segs_out;
		ktcp_set_phase(sk, ca, KTCP_HOLDING);
		tp->snd_cwnd = cclab_min(ca->level, tp->snd_cwnd_clamp);
	}
}

/* T_c counts entries into fast recovery (ktcp `set_state`); called before the state changes. */
SEC("struct_ops/cclab_ktcp_set_state")
void BPF_PROG(cclab_ktcp_set_state, struct sock *sk, __u8 new_state)
{
	struct ktcp *ca = ktcp_ca(sk);
	__u8 now = BPF_CORE_READ_BITFIELD((struct inet_connection_sock *)sk, icsk_ca_state);

	if (new_state == TCP_CA_Recovery && now != TCP_CA_Recovery && ca->tc < KTCP_TC_CAP)
		ca->tc++;
}

/* A retransmission timeout: T_c = 0 and no period (ktcp `cwnd_event`). */
SEC("struct_ops/cclab_ktcp_cwnd_event")
void BPF_PROG(cclab_ktcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct ktcp *ca = ktcp_ca(sk);

	if (ev == CA_EVENT_LOSS) {
		ca->tc = 0;
		ktcp_set_phase(sk, ca, KTCP_FREE);
	}
}

SEC("struct_ops/cclab_ktcp_undo_cwnd")
__u32 BPF_PROG(cclab_ktcp_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);

	return cclab_max(tp->snd_cwnd, tp->prior_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops cclab_ktcp = {
	.init = (void *)cclab_ktcp_init,
	.ssthresh = (void *)cclab_ktcp_ssthresh,
	.cong_avoid = (void *)cclab_ktcp_cong_avoid,
	.set_state = (void *)cclab_ktcp_set_state,
	.cwnd_event = (void *)cclab_ktcp_cwnd_event,
	.undo_cwnd = (void *)cclab_ktcp_undo_cwnd,
	.name = "cclab_ktcp",
};
