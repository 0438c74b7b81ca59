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

#endif
