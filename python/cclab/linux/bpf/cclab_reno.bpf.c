// SPDX-License-Identifier: GPL-2.0
/* cclab_reno: NewReno's window policy as a BPF congestion control (docs/linux.md).
 *
 * Source: RFC 5681 sections 3.1-3.2 and cclab's crates/cclab-sim/src/cc/reno.rs (the same
 * policy, parameters a = 1, beta = 0.5); loss recovery (SACK, RACK, NewReno partial ACKs,
 * PRR) is the kernel's, as it is the simulator engine's and not the algorithm's.
 *
 * - Slow start (RFC 5681 eq. 2 with RFC 3465 byte counting): cwnd += acked while
 *   cwnd < ssthresh; the acked packets beyond ssthresh go on to congestion avoidance.
 * - Congestion avoidance (RFC 5681 eq. 3): cwnd += a / cwnd per acked packet, kept exact in
 *   integers with the kernel's counter snd_cwnd_cnt: it accumulates a * acked (a in packets
 *   per RTT, integer here) and each full cwnd of it adds one packet.
 * - Loss: ssthresh = max(beta * cwnd, 2) with beta in fixed point (beta * 1024 = 512: exact).
 *   Like reno.rs and the kernel's tcp_reno_ssthresh, from cwnd, not FlightSize (eq. 4).
 * - Undo after a spurious loss: back to the window before the reduction (tcp_reno_undo_cwnd).
 * Growth only when the window limits the sender (tcp_is_cwnd_limited, cclab_bpf.h), as the kernel's
 * reno does; the simulator's flows are always window-limited, so the two agree there.
 *
 * | parameter | meaning                               | value | fixed point         |
 * |-----------|---------------------------------------|-------|---------------------|
 * | a         | additive increase, packets per RTT    | 1     | integer             |
 * | beta      | multiplicative decrease factor        | 0.5   | CCLAB_ONE/2 = 512   |
 */
#include "cclab_bpf.h"

char _license[] SEC("license") = "GPL";

#define RENO_A 1u
#define RENO_BETA (CCLAB_ONE / 2)

SEC("struct_ops/cclab_reno_init")
void BPF_PROG(cclab_reno_init, struct sock *sk)
{
	cclab_tcp_sk(sk)->snd_cwnd_cnt = 0;
}

SEC("struct_ops/cclab_reno_ssthresh")
__u32 BPF_PROG(cclab_reno_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);

	return cclab_max((__u32)(((__u64)tp->snd_cwnd * RENO_BETA) >> CCLAB_SHIFT), 2);
}

SEC("struct_ops/cclab_reno_cong_avoid")
void BPF_PROG(cclab_reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = cclab_tcp_sk(sk);

	acked = cclab_acked_for_ca(tp, acked);
	if (!acked)
		return;
	/* Congestion avoidance: one packet per cwnd packets acknowledged (times a). */
	cclab_cong_avoid_ai(tp, tp->snd_cwnd, acked * RENO_A);
}

SEC("struct_ops/cclab_reno_undo_cwnd")
__u32 BPF_PROG(cclab_reno_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);

	return cclab_max(tp->snd_cwnd, tp->prior_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops cclab_reno = {
	.init = (void *)cclab_reno_init,
	.ssthresh = (void *)cclab_reno_ssthresh,
	.cong_avoid = (void *)cclab_reno_cong_avoid,
	.undo_cwnd = (void *)cclab_reno_undo_cwnd,
	.name = "cclab_reno",
};
