// SPDX-License-Identifier: GPL-2.0
/* cclab_w_cr_reno: paper 001's section 5.2 variant Westwood + CR + Reno (simulator `w+cr+reno`):
 * cclab_hrf.h with Reno's +1 packet per RTT while packets queue instead of CI.
 */
#define HRF_BUFFERED HRF_RENO
#define HRF_OPS cclab_w_cr_reno
#include "cclab_hrf.h"

char _license[] SEC("license") = "GPL";
