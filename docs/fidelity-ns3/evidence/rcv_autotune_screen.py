"""Evidence for docs/fidelity.md ("After the `linux` profile's version 9"): the `linux` profile's
rows of the ns-3 matrix at version 8 (no receive-buffer autotuning, 5 first quick ACKs) and at
version 9 (Linux's receive-buffer autotuning, `rcv_autotune`, tcp/rcv_autotune.rs, and the
kernel's 16 first quick ACKs). cclab's side only, the matrix's three seeds, beside ns-3's means
and ranges as docs/fidelity-ns3/matrix.csv recorded them (ns-3's side does not depend on the
fields). Version 8 is version 9 with the two fields set back. The script first checks that the
profile as it is gives the matrix's own cclab values, so that both columns are judged alike.
Written before the switch, as a screen of what it would do; cclab's side is computed as
../rerun_cclab_side.py computes it.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/rcv_autotune_screen.py

Prints the agreement counts of both, the metrics whose verdict changes, and the scenarios with
a value moved by more than 1 %.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pandas as pd

from cclab.crosscheck.matrix import TOLERANCE, agrees, with_stack
from cclab.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from rerun_cclab_side import means  # noqa: E402

AS_IS = "version 9 (the profile as is)"
VARIANTS = {"version 8": {"rcv_autotune": False, "quickacks": 5}, AS_IS: {}}


def main() -> None:
    m = pd.read_csv(ROOT / "docs/fidelity-ns3/matrix.csv")
    m = m[(m["stack"] == "linux") & (m["kind"] != "not translated")]
    rows = []
    for name in sorted(m["scenario"].unique()):
        base = with_stack(load_scenario(ROOT / f"scenarios/crosscheck/{name}.toml"), "linux")
        for variant, fields in VARIANTS.items():
            sc = copy.deepcopy(base)
            for g in sc.get("flows", []):
                g.update(fields)
            got = means(sc, 3)
            for r in m[m["scenario"] == name].itertuples(index=False):
                a = got[r.metric]
                rows.append({"scenario": name, "variant": variant, "metric": r.metric, "kind": r.kind, "cclab": a,
                             "recorded": r.cclab, "ns3": r.ns3,
                             "agrees": agrees(a, r.ns3, (r.peer_min, r.peer_max), TOLERANCE[r.kind])})
    d = pd.DataFrame(rows)
    asis = d[d["variant"] == AS_IS]
    # matrix.csv keeps its floats to 15-17 digits: equal to nine.
    same = int(((asis["cclab"] - asis["recorded"]).abs() <= 1e-9 * asis["recorded"].abs()).sum())
    print(f"the profile as is gives the matrix's recorded cclab value (to nine digits) in {same} of {len(asis)} metrics\n")
    print("| variant | steady-state metrics that agree | start-up metrics that agree |")
    print("|---|---:|---:|")
    for v in VARIANTS:
        x = d[d["variant"] == v]
        counts = [f"{int(x[x['kind'] == k]['agrees'].sum())} of {int((x['kind'] == k).sum())}"
                  for k in ("steady state", "start-up")]
        print(f"| {v} | {' | '.join(counts)} |")
    key = ["scenario", "metric"]
    j = d[d["variant"] == "version 8"].merge(asis, on=key, suffixes=("", "_new"))
    print("\n| scenario | metric | version 8 | version 9 | ns-3 | agrees at 8 | agrees at 9 |")
    print("|---|---|---:|---:|---:|---|---|")
    for r in j[j["agrees"] != j["agrees_new"]].itertuples(index=False):
        print(f"| {r.scenario} | {r.metric} | {r.cclab:.4g} | {r.cclab_new:.4g} | {r.ns3:.4g} | {r.agrees} | "
              f"{r.agrees_new} |")
    moved = j[(j["cclab_new"] - j["cclab"]).abs() > 0.01 * j["cclab"].abs()]
    print(f"\n{len(moved)} of {len(j)} values move by more than 1 %, in {moved['scenario'].nunique()} scenarios: "
          + ", ".join(sorted(moved["scenario"].unique())))


if __name__ == "__main__":
    main()
