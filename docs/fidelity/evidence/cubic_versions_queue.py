"""Evidence for docs/fidelity.md (27-cubic-ten-red's steady-state queue under the `ns2` profile):
the bottleneck's mean queue over [warmup, end] of ten seeds with cclab's `cubic` (RFC 9438, the
matrix's) and with `cubic-linux` with HyStart off (today's Linux CUBIC, whose per-ACK growth,
whole-packet windows and Reno estimate are those of ns-2.35's Agent/TCP/Linux CUBIC, Linux
2.6.22's, which has no HyStart), then with 2.6.22's floor of 1 on `cnt` (`cnt_floor = 1`),
beside ns-2's mean and range from docs/fidelity/matrix.csv.
Agent/TCP/Linux cannot run today's CUBIC, and the cross-check refuses `cubic-linux` for ns-2,
so this compares cclab's two runs with ns-2's recorded one.

    PYTHONPATH=python python docs/fidelity/evidence/cubic_versions_queue.py [seeds]
"""

import copy
import csv
import statistics
import sys
import warnings
from pathlib import Path

import cclab

HERE = Path(__file__).resolve().parents[3]
NAME = "27-cubic-ten-red"
METRIC = "bottleneck: mean queue (pkts)"
seeds = range(1, (int(sys.argv[1]) if len(sys.argv) > 1 else 10) + 1)
base = cclab.load_scenario(HERE / "scenarios" / "crosscheck" / f"{NAME}.toml")


def mean_queue(cc, params):
    out = []
    for seed in seeds:
        sc = copy.deepcopy(base)
        for g in sc["flows"]:
            g.update(stack="ns2", cc=cc, **({"cc_params": params} if params else {}))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = cclab.run(sc, seed=seed).queues
        out.append(float(q[q.role == "bottleneck"].mean_len_pkts.iloc[0]))
    return statistics.mean(out), min(out), max(out)


with open(HERE / "docs" / "fidelity" / "matrix.csv") as f:
    row = next(r for r in csv.DictReader(f) if r["scenario"] == NAME and r["stack"] == "ns2" and r["metric"] == METRIC)
print(f"{NAME}, {METRIC}, seeds {seeds.start}-{seeds.stop - 1}: mean (min-max)")
print(f"ns-2 Agent/TCP/Linux CUBIC (matrix.csv): {float(row['ns2']):.1f} "
      f"({float(row['peer_min']):.1f}-{float(row['peer_max']):.1f})")
for cc, params in (("cubic", None), ("cubic-linux", {"hystart": 0}), ("cubic-linux", {"hystart": 0, "cnt_floor": 1})):
    m, lo, hi = mean_queue(cc, params)
    print(f"cclab ns2 profile, {cc}{' ' + str(params) if params else ''}: {m:.1f} ({lo:.1f}-{hi:.1f})")
