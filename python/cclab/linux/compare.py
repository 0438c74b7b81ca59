"""``cclab compare``: one scenario in the simulator and on the Linux engine, side by side.

The simulator runs the scenario once (it is deterministic); the Linux engine runs it ``reps``
times with the same seed (it is not). Flow groups that name no stack follow ``stack = "linux"``
in the simulator (Linux's initial window, delayed ACKs, RTO floor: docs/scenario.md), the
closest the simulator comes to the kernel; a scenario that names a stack keeps it. A BPF
algorithm (``cclab_ghstcp``) runs in the simulator under its simulator name (``ghstcp``,
``cclab.linux.bpf.REGISTRY``).

Metrics, both engines computed the same way from their ``Result``s: per flow, goodput over
[warmup, end] (``flows.goodput_bps``), mean cwnd over the samples in [warmup, end], retransmits
(``retransmits_measured``); the bottleneck's mean queue (packets), drops and utilization
(``summary()``). The table is ``cclab.crosscheck.Crosscheck``'s (means, ranges over the
repetitions, relative difference (sim - linux) / linux), with "cclab" the simulator's column.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional

import pandas as pd

from ..crosscheck import Crosscheck
from ..crosscheck.matrix import with_stack
from ..result import Result
from ..run import run as run_sim
from ..scenario import as_scenario, resolve_seed
from . import bpf
from .engine import _seconds, plan, run_linux

ENGINES = "sim,linux"


def sim_scenario(sc: Dict[str, Any]) -> tuple[Dict[str, Any], bool]:
    """The scenario as the simulator runs it, and whether ``stack = "linux"`` was applied."""
    out = copy.deepcopy(sc)
    for i, g in enumerate(out.get("flows", [])):
        cc = str(g.get("cc", ""))
        if cc in bpf.REGISTRY:
            g.setdefault("name", f"{cc}{i}")  # the group names the Linux engine gives (engine._resolve)
            g["cc"] = bpf.REGISTRY[cc].sim_name
    named = any("stack" in g for g in out.get("flows", []))
    return (out, False) if named else (with_stack(out, "linux"), True)


def metrics(res: Result, warmup: float) -> Dict[str, float]:
    m: Dict[str, float] = {}
    fs = res.flow_series
    late = fs[fs.time_s >= warmup] if len(fs) else fs
    for r in res.flows.itertuples(index=False):
        f = f"flow {r.flow} ({r.group})"
        m[f"{f}: goodput (Mbit/s)"] = float(r.goodput_bps) / 1e6
        m[f"{f}: mean cwnd (pkts)"] = float(late[late.flow == r.flow].cwnd.mean()) if len(late) else float("nan")
        m[f"{f}: retransmits"] = float(r.retransmits_measured)
    s = res.summary()
    m["total goodput (Mbit/s)"] = float(s["total_goodput_bps"]) / 1e6
    m["bottleneck: mean queue (pkts)"] = float(s["bottleneck_mean_queue_pkts"])
    m["bottleneck: drops"] = float(s["bottleneck_drops"])
    m["bottleneck: utilization %"] = 100.0 * float(s["bottleneck_utilization"])
    return m


class Comparison(Crosscheck):
    """A Crosscheck whose peer is the Linux engine, with both engines' Results kept for the figure."""

    sim_result: Result
    linux_results: List[Result]
    stack_applied: bool

    def cwnd_figure(self, flow: int, path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4))
        s = self.sim_result.flow_series
        s = s[s.flow == flow]
        ax.plot(s.time_s, s.cwnd, color="black", lw=1.2, label="simulator")
        for i, r in enumerate(self.linux_results):
            l = r.flow_series[r.flow_series.flow == flow]
            ax.plot(l.time_s, l.cwnd, lw=0.8, alpha=0.8, label=f"linux run {i + 1}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(f"cwnd of flow {flow} (packets)")
        ax.set_title(self.scenario)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    def csv(self, path: Path) -> None:
        t = self.table()
        for side in ("cclab", "linux"):
            rng = t.pop(f"{side}_range")
            t[f"{side}_min"] = [r[0] for r in rng]
            t[f"{side}_max"] = [r[1] for r in rng]
        t.rename(columns={"cclab": "sim", "cclab_min": "sim_min", "cclab_max": "sim_max"}).to_csv(path, index=False)


def check(scenario: Any, seed: Optional[int] = None) -> Dict[str, Any]:
    """Refuses, naming the field, what the Linux engine refuses; returns its plan."""
    sc = as_scenario(scenario)
    return plan(sc, resolve_seed(seed, sc))


def compare(scenario: Any, reps: int = 3, seed: Optional[int] = None) -> Comparison:
    sc = as_scenario(scenario)
    p = check(sc, seed)
    s = resolve_seed(seed, sc)
    warmup = _seconds(p["canonical"].get("warmup", 0.0))
    sim_sc, applied = sim_scenario(sc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = run_sim(sim_sc, seed=s)
    lin = [run_linux(sc, seed=s) for _ in range(reps)]
    rows = [{"seed": 0, "sim": "cclab", "metric": k, "value": v} for k, v in metrics(sim, warmup).items()]
    for i, r in enumerate(lin):
        rows += [{"seed": i + 1, "sim": "linux", "metric": k, "value": v} for k, v in metrics(r, warmup).items()]
    c = Comparison(scenario=str(sc.get("name", "scenario")), peer="linux", seeds=[s], runs=pd.DataFrame(rows))
    c.sim_result, c.linux_results, c.stack_applied = sim, lin, applied
    return c

