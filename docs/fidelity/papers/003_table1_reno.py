"""Paper 003's Table 1, 'TCP Reno' row, against ns-2.35 on the reproduction's own runs: the
bottleneck utilization cclab and ns-2 measured in each cross-check folder (runs.csv of
`cclab crosscheck scenarios/crosscheck/papers/003-reno-*.toml --with ns2 --stack ns2 --seeds 3`),
beside the paper's printed value (paper003_table1.PUBLISHED), to four decimals:

    PYTHONPATH=python python docs/fidelity/papers/003_table1_reno.py
"""
from pathlib import Path

import pandas as pd

from cclab.experiments.paper003_table1 import PUBLISHED

HERE = Path(__file__).resolve().parent
KS = {"k0125": 1 / 8, "k025": 1 / 4, "k05": 1 / 2, "k075": 3 / 4}
RECOVERY = {"": "NewReno", "-sack": "SACK", "-reno": "Reno"}

print("| k | recovery | paper | cclab | ns-2 | cclab - ns-2 | ns-2 - paper |")
print("|---|---|---:|---:|---:|---:|---:|")
for tag, k in KS.items():
    for suffix, name in RECOVERY.items():
        runs = pd.read_csv(HERE / f"003-reno-{tag}{suffix}" / "runs.csv")
        u = runs[runs.metric == "bottleneck: utilization %"].groupby("sim").value
        lo, mean, hi = u.min() / 100, u.mean() / 100, u.max() / 100
        paper = float(PUBLISHED[k][0])
        print(f"| {k:g} | {name} | {paper:.3f} | {mean['cclab']:.4f} ({lo['cclab']:.4f}-{hi['cclab']:.4f}) "
              f"| {mean['ns2']:.4f} ({lo['ns2']:.4f}-{hi['ns2']:.4f}) | {mean['cclab'] - mean['ns2']:+.4f} "
              f"| {mean['ns2'] - paper:+.4f} |")
