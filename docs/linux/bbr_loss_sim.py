"""docs/linux.md, "Random loss": the simulator's bbr under loss, seed by seed (no root needed).

    PYTHONPATH=python python docs/linux/bbr_loss_sim.py

The scenario of measure_loss.py (one flow, 20 Mbit/s, 40 ms, 1 BDP, 20 s) under the `linux`
profile, with independent loss of 3.85 %, Gilbert-Elliott loss of the same mean (p 0.02, r 0.5)
and no loss, seeds 1-2: goodput over [5 s, 20 s], the least bandwidth estimate of the 100 ms
samples after 5 s, utilization and retransmissions. A build from before tcp::CONG_CONTROL_VERSION 1
shows the bug docs/linux.md names.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cclab  # noqa: E402
from cclab.crosscheck.matrix import with_stack  # noqa: E402
from measure_loss import scenario  # noqa: E402

print(f"cclab from {Path(cclab.__file__).parent}\n")
print("| loss | seed | goodput (Mbit/s) | least bw estimate (Mbit/s) | utilization | retransmits |")
print("|---|---:|---:|---:|---:|---:|")
for name, sc in (("independent 3.85 %", scenario("bbr", 0.02 / 0.52)), ("Gilbert-Elliott 0.02, 0.5", scenario("bbr", 0, (0.02, 0.5))),
                 ("none", scenario("bbr", 0.0))):
    for seed in (1, 2):
        r = cclab.run(with_stack(sc, "linux"), seed=seed)
        cs = r.cc_series[r.cc_series.time_s >= 5]
        print(f"| {name} | {seed} | {r.flows.goodput_bps.iloc[0] / 1e6:.2f} | {cs.bw_bps.min() / 1e6:.2f} "
              f"| {r.summary()['bottleneck_utilization']:.3f} | {int(r.flows.retransmits.iloc[0])} |",
              flush=True)
