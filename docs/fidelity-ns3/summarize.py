"""Writes summary.md beside it from matrix.csv (the ns-3 matrix): the tables docs/fidelity.md
quotes. Run from the repository root: python docs/fidelity-ns3/summarize.py"""

import json
from pathlib import Path

import pandas as pd

from cclab import _core
from cclab.scenario import _to_json, load_scenario

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
m = pd.read_csv(HERE / "matrix.csv")
ok = m[m["kind"] != "not translated"]
ok = ok.assign(agrees=ok["agrees"].astype(str) == "True")


def cells(g):
    return [f"{int(g[g.kind == k].agrees.sum())} of {int((g.kind == k).sum())}" for k in ("steady state", "start-up")]


def recovery(name):
    """Whether any flow of the scenario recovers without SACK (as its first seed built it), or
    it has no TCP flow."""
    net = json.loads(_core.Sim(_to_json(load_scenario(ROOT / "scenarios" / "crosscheck" / f"{name}.toml")), 1).network())
    if not net["flows"]:
        return "no TCP (UDP only)"
    return "without SACK (newreno)" if any(f["recovery"] == "newreno" for f in net["flows"]) else "with SACK"


out = ["| stack | scenarios | steady-state metrics that agree | start-up metrics that agree |", "|---|---:|---:|---:|"]
for stack, g in ok.groupby("stack", sort=False):
    c = cells(g)
    out.append(f"| {stack} | {g.scenario.nunique()} | {c[0]} | {c[1]} |")
ok = ok.assign(recovery=ok.scenario.map({n: recovery(n) for n in ok.scenario.unique()}))
out += ["", "| recovery | stack | scenarios | steady-state metrics that agree | start-up metrics that agree |",
        "|---|---|---:|---:|---:|"]
for (rec, stack), g in ok.groupby(["recovery", "stack"], sort=False):
    c = cells(g)
    out.append(f"| {rec} | {stack} | {g.scenario.nunique()} | {c[0]} | {c[1]} |")
out += ["", "Scenarios whose every metric agrees, by profile: " + "; ".join(
    f"`{s}`: " + (", ".join(sorted(n for n, gg in g.groupby("scenario") if gg.agrees.all())) or "none")
    for s, g in ok.groupby("stack", sort=False)) + "."]
out += ["", "Total goodput where it differs, largest difference first:", "",
        "| scenario | stack | ns-3 | cclab | difference |", "|---|---|---:|---:|---:|"]
g = ok[(ok.metric == "goodput, all flows (Mbit/s)") & ~ok.agrees]
for r in g.assign(a=g.rel_diff.abs()).sort_values("a", ascending=False).itertuples(index=False):
    out.append(f"| {r.scenario} | {r.stack} | {r.ns3:.4g} | {r.cclab:.4g} | {r.rel_diff * 100:+.1f} % |")
(HERE / "summary.md").write_text("\n".join(out) + "\n")
