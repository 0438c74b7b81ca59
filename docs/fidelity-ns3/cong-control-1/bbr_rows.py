"""docs/fidelity.md, "After tcp::CONG_CONTROL_VERSION 1": the matrix's BBR scenarios in the
simulator alone, under both profiles, seeds 1-3 (total goodput Mbit/s / retransmissions).

    PYTHONPATH=python python docs/fidelity-ns3/cong-control-1/bbr_rows.py

Run once with a build from before the fix and once after, and compare the lines.
"""

import cclab
from cclab.crosscheck.matrix import with_stack

for name in ("55-bbr-one", "56-bbr-four", "57-bbr-vs-cubic-deep"):
    sc = cclab.load_scenario(f"scenarios/crosscheck/{name}.toml")
    for stack in ("linux", "cclab"):
        cells = []
        for seed in (1, 2, 3):
            r = cclab.run(with_stack(sc, stack), seed=seed)
            cells.append(f"{r.summary()['total_goodput_bps'] / 1e6:.3f}/{int(r.flows.retransmits.sum())}")
        print(name, stack, " ".join(cells), flush=True)
