// SPDX-License-Identifier: GPL-2.0
/* cclab_w_cr_cr: paper 001's section 5.2 variant Westwood + CR + CR (simulator `w+cr+cr`):
 * cclab_hrf.h with CR's k SRTT^2 per RTT in both modes.
 */
#define HRF_BUFFERED HRF_CR
#define HRF_OPS cclab_w_cr_cr
#include "cclab_hrf.h"

char _license[] SEC("license") = "GPL";
