/* cclab_bpf.h: what every cclab BPF congestion control includes (docs/linux.md).
 *
 * The kernel's types come from vmlinux.h, generated from the running kernel's BTF
 * (cclab.linux.bpf.vmlinux_h); the struct_ops programs receive `struct sock *` that the
 * verifier promotes to a trusted tcp_sock, so fields are read and written directly.
 * Windows are in packets (segments), as in the kernel and in cclab's simulator.
 */
#ifndef CCLAB_BPF_H
#define CCLAB_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define BPF_STRUCT_OPS(name, args...) SEC("struct_ops/" #name) BPF_PROG(name, args)

/* Fixed point: a factor f is stored as f * CCLAB_ONE (10 fractional bits, as tcp_cubic's beta). */
#define CCLAB_SHIFT 10
#define CCLAB_ONE (1u << CCLAB_SHIFT)

static __always_inline struct tcp_sock *cclab_tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline __u32 cclab_min(__u32 a, __u32 b) { return a < b ? a : b; }
static __always_inline __u32 cclab_max(__u32 a, __u32 b) { return a > b ? a : b; }

static __always_inline bool cclab_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* tcp_is_cwnd_limited() (include/net/tcp.h) is inline, not callable from BPF: the same test. In
 * slow start the window may grow to twice what was in flight; after, only when the sender
 * filled it (so an application-limited flow does not inflate cwnd). */
static __always_inline bool cclab_is_cwnd_limited(const struct tcp_sock *tp)
{
	if (cclab_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return !!BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

/* Slow start as the kernel's tcp_slow_start() (RFC 5681 section 3.1, ABC with L = the ACK's
 * packets): cwnd grows by the packets acknowledged up to ssthresh; returns the packets of this
 * ACK left over for congestion avoidance. */
static __always_inline __u32 cclab_slow_start(struct tcp_sock *tp, __u32 acked)
{
	__u32 cwnd = cclab_min(tp->snd_cwnd + acked, tp->snd_ssthresh);

	acked -= cwnd - tp->snd_cwnd;
	tp->snd_cwnd = cclab_min(cwnd, tp->snd_cwnd_clamp);
	return acked;
}

/* The common head of a cong_avoid (the kernel's tcp_reno_cong_avoid): nothing while the window
 * does not limit the sender; slow start below ssthresh. Returns the packets of this ACK left for
 * congestion avoidance (0: none). */
static __always_inline __u32 cclab_acked_for_ca(struct tcp_sock *tp, __u32 acked)
{
	if (!cclab_is_cwnd_limited(tp))
		return 0;
	if (cclab_in_slow_start(tp))
		return cclab_slow_start(tp, acked);
	return acked;
}

/* The state an algorithm shows user space, for the result's `cc_series` (docs/linux.md): one
 * entry per sender socket, keyed by its local port, written when the state changes; the
 * engine's sender reads it at each sample (endpoint.py, `StateReader`). `state` is the
 * algorithm's own code (its name list is the REGISTRY line's `states`), `value` one number
 * it chooses to show (0 if none). */
struct cclab_state {
	__u32 state;
	__u32 value;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct cclab_state);
} cclab_state SEC(".maps");

static __always_inline void cclab_show(const struct sock *sk, __u32 state, __u32 value)
{
	__u32 port = sk->__sk_common.skc_num;
	struct cclab_state s = { .state = state, .value = value };

	bpf_map_update_elem(&cclab_state, &port, &s, BPF_ANY);
}

/* Congestion avoidance's additive increase as the kernel's tcp_cong_avoid_ai(): the counter
 * snd_cwnd_cnt accumulates `inc` and each full `w` of it adds one packet; a counter that w shrank
 * below (a loss since it grew) adds one and restarts. With w = cwnd and inc = a * acked this is
 * a packets per RTT, exact in integers; with w and a both scaled by 2^k, a fractional a. */
static __always_inline void cclab_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 inc)
{
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd = cclab_min(tp->snd_cwnd + 1, tp->snd_cwnd_clamp);
	}
	tp->snd_cwnd_cnt += inc;
	if (tp->snd_cwnd_cnt >= w && w > 0) {
		__u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tp->snd_cwnd = cclab_min(tp->snd_cwnd + delta, tp->snd_cwnd_clamp);
	}
}

#endif
