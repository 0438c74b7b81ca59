"""Makes the figures of docs/plots.md: python docs/img/make_plots.py (about a minute)."""

from __future__ import annotations

import copy
from pathlib import Path

import cclab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> None:
    base = cclab.load_scenario(ROOT / "scenarios" / "quickstart.toml")
    base["warmup"] = "5s"
    runs = []
    for cc in ("newreno", "cubic", "bbr"):
        sc = copy.deepcopy(base)
        sc["flows"][0]["cc"] = cc
        sc["flows"][0]["name"] = cc
        runs.append(cclab.run(sc, seed=1))
    cclab.compare(runs, labels=["newreno", "cubic", "bbr"]).plot(HERE / "compare.png")
    small = copy.deepcopy(base)
    small["topology"]["bottleneck"]["buffer"] = "0.25bdp"
    cclab.run(small, seed=1).plot_flow(0, HERE / "plot-flow.png")
    definition = {
        "name": "buffer-vs-cc", "replications": 4, "seed": 1,
        "base": {**copy.deepcopy(base), "duration": "20s"},
        "grid": {"topology.bottleneck.buffer": ["0.1bdp", "0.25bdp", "0.5bdp", "1bdp", "2bdp"],
                 "flows[0].cc": ["newreno", "cubic"]},
    }
    out = Path("/tmp/cclab-docs-sweep")
    df = cclab.sweep(definition, out, jobs=2, progress=False)
    cclab.plot_sweep(df, "topology.bottleneck.buffer", "bottleneck_utilization", hue="flows[0].cc",
                     path=HERE / "plot-sweep.png", logx=True)


if __name__ == "__main__":
    main()
