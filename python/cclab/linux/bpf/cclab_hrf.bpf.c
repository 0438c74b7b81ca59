// SPDX-License-Identifier: GPL-2.0
/* cclab_hrf: HRF-TCP as a BPF congestion control (docs/linux.md): Westwood's decrease, CR's
 * increase while RTT = RTT_min, CI's while packets queue. The algorithm, its sources, fixed point
 * and choices are in cclab_hrf.h, shared with the section 5.2 variants cclab_w_cr_reno and
 * cclab_w_cr_cr (which change only HRF_BUFFERED). Simulator: `hrf`.
 */
#define HRF_BUFFERED HRF_CI
#define HRF_OPS cclab_hrf
#include "cclab_hrf.h"

char _license[] SEC("license") = "GPL";
