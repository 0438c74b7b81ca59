// SPDX-License-Identifier: GPL-2.0
/* cclab_tcpgt: TCP-GT as a BPF congestion control with a receiver echo in a TCP option.
 *
 * Source: paper 000 (H. Jung, S.-G. Kim, H. Y. Yeom, S. Kang, "TCP-GT: A New Approach to
 * Congestion Control Based on Goodput and Throughput", JCN 12(5), 2010), section III, eqs. 1-17,
 * Algorithm 1; cclab's crates/cclab-sim/src/cc/tcp_gt/mod.rs (the simulator's `tcp-gt`), whose
 * choices where the paper is silent this file follows (docs/algorithms/tcp-gt.md), with its
 * defaults (rtt_base 50 ms, t = -0.05, rtt_min over 10 epochs, no slow start, no cap on p).
 * Loss recovery (SACK, RACK, PRR) is the kernel's.
 *
 * The echo (docs/linux.md, "cclab_tcpgt"). One object holds two programs and one map:
 * - the sockops program (attached to the cgroup v2 the testbed's endpoints run in) writes and
 *   parses the TCP option kind 253 (RFC 6994 experimental), length 12: ExID 0x4754 ("GT"),
 *   then two 32-bit words. On data segments of a connection whose congestion control is
 *   cclab_tcpgt: (epoch, 0). On the receiver's ACKs: (the epoch of the last data segment it
 *   parsed, its clock in us when it writes the ACK) - the simulator's echoed CC header and ACK
 *   TSval (Linux's TSval ticks in ms, too coarse for TR). The receiver starts writing when it
 *   first parses the option, so connections of other algorithms carry nothing.
 * - the map tcpgt_sk (BPF_MAP_TYPE_SK_STORAGE) holds one struct tcpgt per socket: the echo the
 *   sockops program parsed and the congestion control's state (more than icsk_ca_priv's 104 bytes).
 * - the struct_ops cclab_tcpgt reads the echo in pkts_acked, which the kernel calls after the
 *   option was parsed (tcp_validate_incoming runs the sockops parse callback before tcp_ack).
 * The kernel writes the option once per skb; a GSO skb's segments all carry a copy, sent at the
 * same instant with the same epoch, as the simulator's packets sent together would be.
 * The option costs 12 bytes of each data segment: the MSS is 12 bytes smaller than other
 * algorithms' (mtu - 64 instead of mtu - 52; cclab.linux.bpf.REGISTRY's option_bytes).
 *
 * Per epoch (ended by the first ACK echoing the current epoch; the first end only starts the
 * clocks): TR = the receiver clocks' difference of the two ending ACKs, TS the sender's
 * (tp->tcp_mstamp), N = packets delivered (tp->delivered) from the ACK that opened it to the
 * one before the ACK that closes it, rtt = mean of the epoch's ack_sample.rtt_us (TS if none),
 * rtt_min = least of the last 10 epochs' smallest rtt_us, cwnd = the window at the end. Then
 * Algorithm 1 (cclab_tcpgt.h): increase (eq. 16) -> s += f (eq. 14), each acknowledged packet of
 * the next epoch adds p (eq. 15); otherwise s = 1 and each adds n < 0 (eq. 17).
 * Loss (ssthresh): ssthresh = max(cwnd / 2, 2), s = 1, no change until a full epoch is measured.
 * Timeout (CA_EVENT_LOSS): slow start back to ssthresh, then start afresh as after a loss.
 *
 * Fixed point and what the kernel changes:
 * - The window is kept in 1/2^20 packet (cwnd_fp; the kernel's snd_cwnd is its integer part,
 *   at least 2), p and n in 1/2^20 packet per packet, f and s in 1/2^16, times in us; ranges in
 *   cclab_tcpgt.h.
 * - The kernel changes snd_cwnd outside these hooks (PRR in recovery, 1 after a timeout, undo):
 *   each cong_avoid starts from the kernel's window when it differs from cwnd_fp's integer part.
 * - cong_avoid runs only on ACKs that acknowledge new data outside recovery/CWR (the kernel's
 *   tcp_cong_control), as the simulator's Linux profile calls it; an increase applies only while
 *   the window limits the sender (tcp_is_cwnd_limited), a decrease always.
 *
 * | parameter      | meaning                                   | value  | fixed point           |
 * |----------------|-------------------------------------------|--------|-----------------------|
 * | rtt_base       | baseline RTT of f = rtt / rtt_base        | 50 ms  | 50000 us              |
 * | t              | increase while phi >= t T / f             | -0.05  | -1/20, exact          |
 * | rtt_min_epochs | epochs whose smallest RTT is rtt_min      | 10     | integer               |
 * | slow_start     | initial slow start                        | 0      | (not built: default)  |
 * | p_max          | cap on p                                  | 0      | none; 2^20 bound only |
 */
#include "cclab_bpf.h"
#include <bpf/bpf_endian.h>
#include "cclab_tcpgt.h"

char _license[] SEC("license") = "GPL";

#define SOL_TCP 6
#define TCP_CONGESTION 13
#define TCPGT_KIND 253
#define TCPGT_LEN 12
#define TCPGT_EXID_HI 0x47 /* ExID 0x4754, "GT" */
#define TCPGT_EXID_LO 0x54
#define TCPGT_EPOCHS 10    /* rtt_min_epochs (eq. 5) */
#define TCPGT_MIN_CWND 2u

enum tcpgt_role { TCPGT_NONE = 0, TCPGT_SENDER = 1, TCPGT_RECEIVER = 2 };

struct tcpgt_opt {
	__u8 kind;
	__u8 len;
	__u8 exid[2];
	__u32 word0; /* data: epoch; ACK: the echoed epoch (network order) */
	__u32 word1; /* data: 0; ACK: the receiver's clock, us (network order) */
} __attribute__((packed));

struct tcpgt {
	/* The echo (written by the sockops program). */
	__u32 role;
	__u32 peer_epoch;   /* receiver: epoch of the last data segment parsed */
	__u32 echo;         /* sender: epoch the last ACK echoed */
	__u32 echo_clock;   /* sender: the receiver's clock on that ACK, us */
	__u32 echo_seen;    /* sender: an ACK with the option arrived */
	/* The congestion control (struct_ops). */
	__u32 epoch;        /* written on data segments now; 0 is never used */
	__u32 started;      /* an epoch end has set the clocks below */
	__u32 start_rcv;    /* receiver clock at the epoch's start, us */
	__u64 start_snd;    /* sender clock (tcp_mstamp) at the epoch's start, us */
	__u32 delivered_start; /* tp->delivered before the ACK that opened the epoch */
	__u32 delivered_prev;  /* tp->delivered after the last pkts_acked */
	__u64 rtt_sum;      /* the epoch's RTT samples, us */
	__u32 rtt_count;
	__u32 rtt_low;      /* the epoch's smallest sample, us; 0 = none */
	__u32 minima[TCPGT_EPOCHS]; /* smallest RTT of the last epochs, us (0 = empty slot) */
	__u32 minima_next;
	__u32 restart_to;   /* after a timeout: slow start up to this window (0: none) */
	__u64 s;            /* splitting variable s, 1/2^16 */
	__s64 delta;        /* window change per acknowledged packet, 1/2^20 packet */
	__u64 cwnd_fp;      /* the window, 1/2^20 packet; 0 = take the kernel's */
	__u32 shown;        /* the decision shown to user space (TCPGT_SHOW_*) */
};

/* Algorithm 1's standing decision, shown (cclab_show: cc_series' state) when it changes:
 * none yet (before the first measured epoch, and again after a loss until one is measured),
 * increase (eq. 15) or decrease (eq. 17). */
enum { TCPGT_SHOW_MEASURING, TCPGT_SHOW_INCREASE, TCPGT_SHOW_DECREASE };

static __always_inline void tcpgt_show(const struct sock *sk, struct tcpgt *st, __u32 decision)
{
	if (st->shown != decision)
		cclab_show(sk, decision, 0);
	st->shown = decision;
}

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tcpgt);
} tcpgt_sk SEC(".maps");

/* Counters the loader prints when it exits (named, in order, by the `counters` of cclab_tcpgt's
 * line in cclab.linux.bpf.REGISTRY). */
struct tcpgt_counters {
	__u64 opt_data_written;  /* options written on the sender's segments */
	__u64 opt_ack_written;   /* options written on the receiver's segments */
	__u64 opt_data_parsed;   /* options the receiver parsed */
	__u64 opt_ack_parsed;    /* options the sender parsed */
	__u64 epochs;            /* epoch ends */
	__u64 increases;         /* Algorithm 1 decisions: increase */
	__u64 decreases;         /* and decrease */
	__u64 no_storage;        /* a hook found no sk_storage (should stay 0) */
	__u64 ts_tr_over_1ms;    /* epochs whose TS and TR differ by more than 1 ms (path noise: */
	__u64 ts_tr_over_2500us; /* TS - TR is the change of the ACK path's delay; the simulator's is 0) */
} cclab_counters;

static __always_inline void count(__u64 *c)
{
	__sync_fetch_and_add(c, 1);
}

static __always_inline int is_tcpgt(struct bpf_sock_ops *skops)
{
	char cc[16] = {};
	const char want[] = "cclab_tcpgt";
	int i;

	if (bpf_getsockopt(skops, SOL_TCP, TCP_CONGESTION, cc, sizeof(cc)))
		return 0;
	for (i = 0; i < (int)sizeof(want); i++)
		if (cc[i] != want[i])
			return 0;
	return 1;
}

static __always_inline void set_flags(struct bpf_sock_ops *skops, __u32 add)
{
	bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | add);
}

SEC("sockops")
int cclab_tcpgt_sockops(struct bpf_sock_ops *skops)
{
	struct tcpgt_opt opt = {};
	struct tcpgt *st;
	struct bpf_sock *sk = skops->sk;

	if (!sk)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
		/* The sender: only connections that chose cclab_tcpgt write and parse the option. */
		if (!is_tcpgt(skops))
			return 1;
		st = bpf_sk_storage_get(&tcpgt_sk, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (!st)
			return 1;
		st->role = TCPGT_SENDER;
		set_flags(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG | BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		/* A receiver looks for the option; it writes echoes once it has seen one. */
		set_flags(skops, BPF_SOCK_OPS_PARSE_UNKNOWN_HDR_OPT_CB_FLAG);
		return 1;
	case BPF_SOCK_OPS_PARSE_HDR_OPT_CB:
		opt.kind = TCPGT_KIND;
		opt.len = 4; /* search by kind and the 2-byte ExID */
		opt.exid[0] = TCPGT_EXID_HI;
		opt.exid[1] = TCPGT_EXID_LO;
		if (bpf_load_hdr_opt(skops, &opt, sizeof(opt), 0) != TCPGT_LEN)
			return 1;
		st = bpf_sk_storage_get(&tcpgt_sk, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (!st) {
			count(&cclab_counters.no_storage);
			return 1;
		}
		if (st->role == TCPGT_SENDER) {
			st->echo = bpf_ntohl(opt.word0);
			st->echo_clock = bpf_ntohl(opt.word1);
			st->echo_seen = 1;
			count(&cclab_counters.opt_ack_parsed);
		} else {
			if (st->role == TCPGT_NONE) {
				st->role = TCPGT_RECEIVER;
				set_flags(skops, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
			}
			st->peer_epoch = bpf_ntohl(opt.word0);
			count(&cclab_counters.opt_data_parsed);
		}
		return 1;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		bpf_reserve_hdr_opt(skops, TCPGT_LEN, 0);
		return 1;
	case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
		st = bpf_sk_storage_get(&tcpgt_sk, sk, 0, 0);
		if (!st) {
			count(&cclab_counters.no_storage);
			return 1;
		}
		opt.kind = TCPGT_KIND;
		opt.len = TCPGT_LEN;
		opt.exid[0] = TCPGT_EXID_HI;
		opt.exid[1] = TCPGT_EXID_LO;
		if (st->role == TCPGT_SENDER) {
			opt.word0 = bpf_htonl(st->epoch);
			count(&cclab_counters.opt_data_written);
		} else {
			opt.word0 = bpf_htonl(st->peer_epoch);
			opt.word1 = bpf_htonl((__u32)(bpf_ktime_get_ns() / 1000));
			count(&cclab_counters.opt_ack_written);
		}
		bpf_store_hdr_opt(skops, &opt, sizeof(opt), 0);
		return 1;
	}
	return 1;
}

static __always_inline struct tcpgt *tcpgt_of(struct sock *sk)
{
	struct tcpgt *st = bpf_sk_storage_get(&tcpgt_sk, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (!st)
		count(&cclab_counters.no_storage);
	return st;
}

/* Algorithm 1 starts afresh: s = 1, no change until a full epoch is measured. */
static __always_inline void tcpgt_afresh(struct tcpgt *st)
{
	st->s = 1ull << TCPGT_FS;
	st->delta = 0;
	st->started = 0;
}

SEC("struct_ops/cclab_tcpgt_init")
void BPF_PROG(cclab_tcpgt_init, struct sock *sk)
{
	struct tcpgt *st = tcpgt_of(sk);
	int i;

	if (!st)
		return;
	st->epoch = 1;
	st->rtt_sum = 0;
	st->rtt_count = 0;
	st->rtt_low = 0;
	for (i = 0; i < TCPGT_EPOCHS; i++)
		st->minima[i] = 0;
	st->minima_next = 0;
	st->restart_to = 0;
	st->cwnd_fp = 0;
	st->delivered_prev = cclab_tcp_sk(sk)->delivered;
	tcpgt_afresh(st);
	st->shown = TCPGT_SHOW_MEASURING;
	cclab_show(sk, TCPGT_SHOW_MEASURING, 0);
}

/* The ACK echoes the running epoch: measure it, decide (Algorithm 1) and open the next. */
static __always_inline void tcpgt_end_epoch(struct sock *sk, struct tcpgt *st)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	__u64 now = tp->tcp_mstamp;
	__u32 i;

	count(&cclab_counters.epochs);
	if (st->started) {
		__u64 ts = now - st->start_snd;
		__u64 tr = (__u32)(st->echo_clock - st->start_rcv);
		__u64 n = (__u32)(st->delivered_prev - st->delivered_start);
		__u64 rtt = st->rtt_count ? st->rtt_sum / st->rtt_count : ts;
		__u64 rtt_min = 0;
		__u64 cwnd = tp->snd_cwnd;
		__u64 gap = ts > tr ? ts - tr : tr - ts;

		if (gap > 1000)
			count(&cclab_counters.ts_tr_over_1ms);
		if (gap > 2500)
			count(&cclab_counters.ts_tr_over_2500us);

		if (st->rtt_low) {
			__u32 k = st->minima_next;

			if (k >= TCPGT_EPOCHS)
				k = 0;
			st->minima[k] = st->rtt_low;
			st->minima_next = k + 1 >= TCPGT_EPOCHS ? 0 : k + 1;
		}
		for (i = 0; i < TCPGT_EPOCHS; i++)
			if (st->minima[i] && (!rtt_min || st->minima[i] < rtt_min))
				rtt_min = st->minima[i];
		if (tr > 0 && n > 0 && rtt > 0 && rtt_min > 0) {
			if (tcpgt_increasing(tr, rtt_min, rtt)) {
				__u64 s = st->s + tcpgt_f(rtt); /* s = s + f (eq. 14) */

				st->s = s < TCPGT_S_MAX ? s : TCPGT_S_MAX;
				st->delta = (__s64)tcpgt_p(tcpgt_f(rtt), st->s, tr, n, cwnd);
				count(&cclab_counters.increases);
				tcpgt_show(sk, st, TCPGT_SHOW_INCREASE);
			} else {
				st->s = 1ull << TCPGT_FS;
				st->delta = -(__s64)tcpgt_n_abs(rtt, tr, rtt_min, n, cwnd);
				count(&cclab_counters.decreases);
				tcpgt_show(sk, st, TCPGT_SHOW_DECREASE);
			}
		}
	}
	st->started = 1;
	st->start_snd = now;
	st->start_rcv = st->echo_clock;
	st->delivered_start = st->delivered_prev;
	st->epoch = st->epoch + 1 ? st->epoch + 1 : 1;
	st->rtt_sum = 0;
	st->rtt_count = 0;
	st->rtt_low = 0;
}

SEC("struct_ops/cclab_tcpgt_pkts_acked")
void BPF_PROG(cclab_tcpgt_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct tcpgt *st = tcpgt_of(sk);
	__s32 rtt = sample->rtt_us;

	if (!st)
		return;
	if (st->echo_seen && st->echo == st->epoch)
		tcpgt_end_epoch(sk, st);
	if (rtt > 0) {
		st->rtt_sum += (__u32)rtt;
		st->rtt_count++;
		if (!st->rtt_low || (__u32)rtt < st->rtt_low)
			st->rtt_low = rtt;
	}
	/* This ACK's packets count in the epoch it runs in: the next end takes them from here. */
	st->delivered_prev = tp->delivered;
}

SEC("struct_ops/cclab_tcpgt_cong_avoid")
void BPF_PROG(cclab_tcpgt_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct tcpgt *st = tcpgt_of(sk);
	__u64 w, lo, hi;

	if (!st)
		return;
	if (st->restart_to) {
		if (tp->snd_cwnd < st->restart_to) {
			cclab_slow_start(tp, acked); /* ssthresh is restart_to: set with it */
			return;
		}
		/* Slow start is over: what the epochs measured meanwhile says nothing about this window. */
		st->restart_to = 0;
		tcpgt_afresh(st);
		st->cwnd_fp = 0;
		return;
	}
	if (st->delta == 0 || (st->delta > 0 && !cclab_is_cwnd_limited(tp)))
		return;
	w = st->cwnd_fp;
	if ((w >> TCPGT_WS) != tp->snd_cwnd) /* the kernel moved the window: start from its value */
		w = (__u64)tp->snd_cwnd << TCPGT_WS;
	lo = (__u64)TCPGT_MIN_CWND << TCPGT_WS;
	hi = (__u64)tp->snd_cwnd_clamp << TCPGT_WS;
	if (st->delta > 0) {
		w += (__u64)st->delta * acked;
		if (w > hi)
			w = hi;
	} else {
		__u64 d = (__u64)(-st->delta) * acked;

		w = w > lo + d ? w - d : lo;
	}
	st->cwnd_fp = w;
	tp->snd_cwnd = (__u32)(w >> TCPGT_WS);
}

SEC("struct_ops/cclab_tcpgt_ssthresh")
__u32 BPF_PROG(cclab_tcpgt_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);
	struct tcpgt *st = tcpgt_of(sk);

	if (st) {
		tcpgt_afresh(st);
		tcpgt_show(sk, st, TCPGT_SHOW_MEASURING);
	}
	return cclab_max(tp->snd_cwnd / 2, TCPGT_MIN_CWND);
}

SEC("struct_ops/cclab_tcpgt_cwnd_event")
void BPF_PROG(cclab_tcpgt_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcpgt *st;

	if (ev != CA_EVENT_LOSS)
		return;
	st = tcpgt_of(sk);
	if (st) /* tcp_enter_loss set ssthresh (ours) before this event */
		st->restart_to = cclab_tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops/cclab_tcpgt_undo_cwnd")
__u32 BPF_PROG(cclab_tcpgt_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = cclab_tcp_sk(sk);

	return cclab_max(tp->snd_cwnd, tp->prior_cwnd);
}

SEC(".struct_ops")
struct tcp_congestion_ops cclab_tcpgt = {
	.init = (void *)cclab_tcpgt_init,
	.ssthresh = (void *)cclab_tcpgt_ssthresh,
	.cong_avoid = (void *)cclab_tcpgt_cong_avoid,
	.pkts_acked = (void *)cclab_tcpgt_pkts_acked,
	.cwnd_event = (void *)cclab_tcpgt_cwnd_event,
	.undo_cwnd = (void *)cclab_tcpgt_undo_cwnd,
	.name = "cclab_tcpgt",
};
