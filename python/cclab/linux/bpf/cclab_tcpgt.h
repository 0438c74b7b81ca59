/* cclab_tcpgt.h: TCP-GT's per-epoch arithmetic (Algorithm 1) in integers, for cclab_tcpgt.bpf.c.
 *
 * Pure functions of their arguments, no BPF helper: the same text is compiled by clang for BPF
 * and by gcc for tests/test_linux_tcpgt.py, which checks it on the hand-computed inputs of
 * crates/cclab-sim/src/cc/tcp_gt/tests.rs and docs/algorithms/tcp-gt.md.
 *
 * Units: times in microseconds, windows and N (the packets the receiver took in the epoch) in
 * packets, f and s in 1/2^16 (TCPGT_FS), the per-packet change p or n in 1/2^20 packet (TCPGT_WS).
 * With G = N mtu / TR and T = N mtu / rtt_min (eqs. 1, 4), mtu and N cancel:
 *   increase (eq. 16, t = -1/20):  20 rtt (TR - rtt_min) <= TR rtt_base
 *   p (eq. 15) = f^2 s^2 TR / (N rtt_base cwnd)
 *   n (eq. 17) = -rtt N (TR - rtt_min) / (TR rtt_min cwnd)
 * Each is exact (to the floor of the last division) while the products fit in 64 bits, which
 * holds for times below 2^24 us (16 s), windows and N below 2^20 packets and f s below 2^16;
 * beyond, tcpgt_muldiv keeps the quotient's high part (saturating at 2^64 - 1), and p and n are
 * capped at TCPGT_DELTA_MAX packets per acknowledged packet (the simulator has no cap: p_max = 0).
 */
#ifndef CCLAB_TCPGT_H
#define CCLAB_TCPGT_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define TCPGT_FS 16                        /* f and s: 16 fractional bits */
#define TCPGT_WS 20                        /* p, n and the window: 20 fractional bits */
#define TCPGT_RTT_BASE_US 50000ull         /* rtt_base = 50 ms (section III-E) */
#define TCPGT_T_DEN 20ull                  /* t = -1/20 = -0.05 (eq. 16) */
#define TCPGT_DELTA_MAX (1ull << (20 + TCPGT_WS)) /* |p|, |n| <= 2^20 packets per packet */
#define TCPGT_S_MAX (1ull << (24 + TCPGT_FS))     /* s <= 2^24 */

/* a b / c, exact while a b < 2^64; beyond, q b + (r b) / c with q, r = a / c, a % c (the remainder
 * term dropped when r b overflows too), saturating at 2^64 - 1. c = 0 gives 2^64 - 1. The bound
 * ~0 / b goes through an empty asm: otherwise clang turns the test into a 128-bit overflow
 * multiplication (__multi3), which BPF does not have. */
static __always_inline __u64 tcpgt_muldiv(__u64 a, __u64 b, __u64 c)
{
	__u64 q, r, hi, lim;

	if (c == 0)
		return ~0ull;
	if (b == 0)
		return 0;
	lim = ~0ull / b;
	asm volatile("" : "+r"(lim));
	if (a <= lim)
		return a * b / c;
	q = a / c;
	r = a % c;
	if (q > lim)
		return ~0ull;
	hi = q * b;
	if (r <= lim && hi <= ~0ull - r * b / c)
		return hi + r * b / c;
	return hi;
}

/* Algorithm 1, lines 3 and 9 (eq. 16): phi >= t T / f, with t = -1/20 and f = rtt / rtt_base. */
static __always_inline int tcpgt_increasing(__u64 tr, __u64 rtt_min, __u64 rtt)
{
	if (tr <= rtt_min)
		return 1; /* phi >= 0 > t T / f */
	return tcpgt_muldiv(TCPGT_T_DEN * rtt, tr - rtt_min, 1) <= tr * TCPGT_RTT_BASE_US;
}

/* f = rtt / rtt_base (section III-E), 1/2^16. */
static __always_inline __u64 tcpgt_f(__u64 rtt)
{
	return tcpgt_muldiv(rtt, 1ull << TCPGT_FS, TCPGT_RTT_BASE_US);
}

/* p = f^2 s^2 mtu / (G rtt_base cwnd) = (f s)^2 TR / (N rtt_base cwnd) (eq. 15), 1/2^20 packet per
 * acknowledged packet; f and s (already s + f, eq. 14) in 1/2^16. */
static __always_inline __u64 tcpgt_p(__u64 f, __u64 s, __u64 tr, __u64 n, __u64 cwnd)
{
	__u64 fs = tcpgt_muldiv(f, s, 1ull << TCPGT_FS);           /* f s, 1/2^16 */
	__u64 x = tcpgt_muldiv(fs, fs, 1ull << (2 * TCPGT_FS - TCPGT_WS)); /* (f s)^2, 1/2^20 */
	__u64 y = tcpgt_muldiv(x, tr, TCPGT_RTT_BASE_US);

	if (n == 0 || cwnd == 0)
		return 0;
	y = y / n / cwnd; /* floor(floor(y / n) / cwnd) = floor(y / (n cwnd)) */
	return y < TCPGT_DELTA_MAX ? y : TCPGT_DELTA_MAX;
}

/* |n| = f |phi| rtt_base / (cwnd mtu) = rtt N (TR - rtt_min) / (TR rtt_min cwnd) (eq. 17), 1/2^20
 * packet per acknowledged packet (n itself is negative); tr > rtt_min (a decrease). */
static __always_inline __u64 tcpgt_n_abs(__u64 rtt, __u64 tr, __u64 rtt_min, __u64 n, __u64 cwnd)
{
	__u64 a = tcpgt_muldiv(rtt << TCPGT_WS, tr - rtt_min, tr); /* rtt (TR - rtt_min) / TR, 1/2^20 us */
	__u64 y = tcpgt_muldiv(a, n, rtt_min);

	if (cwnd == 0)
		return 0;
	y = y / cwnd;
	return y < TCPGT_DELTA_MAX ? y : TCPGT_DELTA_MAX;
}

#endif
