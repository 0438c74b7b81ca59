"""How long the full reproduction takes, from the run records (docs/benchmarks.md, issue 17).

Every finished run in the run store keeps the wall time its simulation took
(`summary.json`, `wall_time_s`). For the full forms of every experiment under a stack
(`--stack`, default the papers' own), this sums those times over the distinct runs (a run
shared by several experiments is simulated once) and prints: the runs found and missing, the
simulation time in all, the longest run, and the wall time of `cclab reproduce --all --jobs N`
from an empty store if the runs were spread perfectly over N processes (at least the longest
run, at least the total over N). Where runs are missing (made in another store, or not yet), it
also extrapolates the whole from the found runs' seconds per unit of `estimate_cost` (the
packets a run carries, the measure the runner schedules by), and names the experiments that
cost most. A run's time is its CPU time where the record has one (`cpu_time_s`, from
2026-11-29: what the run costs, whoever else shares the machine), else its wall time, which
also counts the waits for a core: a run made at nice 19 beside other work records many times
its cost.

`--remeasure K` simulates again, alone in this process, K found runs drawn at random (seeded)
and the two whose records took the most seconds per link hop (each packet's crossing of a link,
from the stored `queues` table: the simulator's work), checks that each gives the stored result
(the flows, queues and links tables and the summary but the timing), and prints the recorded
time beside the CPU time now; then the whole at the remeasured runs' link hops per CPU second.

    CCLAB_STORE=... PYTHONPATH=python python docs/benchmarks/reproduction_time.py [--stack S] [--jobs N] [--remeasure K]
"""

from __future__ import annotations

import argparse
import json
import random
import sys

import pandas as pd

import cclab
from cclab import experiments as ex
from cclab.runner import estimate_cost
from cclab.store import RunStore


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--stack", default=ex.DEFAULT_STACK, choices=ex.STACK_CHOICES)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--remeasure", type=int, default=0)
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error(f"--jobs: invalid value {a.jobs}; accepted: a whole number >= 1")
    if a.remeasure < 0:
        ap.error(f"--remeasure: invalid value {a.remeasure}; accepted: a whole number >= 0")
    store = RunStore()
    walls: dict = {}
    cpu_timed = 0
    costs: dict = {}  # every distinct run's estimated cost (the packets it carries), found or not
    share: dict = {}  # each experiment's estimated cost, its runs shared with others included
    for e in ex.experiments():
        profile = ex.resolve_stack(e, a.stack)
        for r in e.runs(False):
            sc = ex.with_stack(r.scenario, profile)
            cost = estimate_cost(sc)
            share[e.id] = share.get(e.id, 0.0) + cost
            path = store.path(sc, r.seed) / "summary.json"
            if path in costs:
                continue
            costs[path] = cost
            if path.is_file():
                meta = json.loads(path.read_text())
                cpu = meta.get("cpu_time_s")
                cpu_timed += cpu is not None
                walls[path] = float(cpu if cpu is not None else meta["wall_time_s"])
    missing = len(costs) - len(walls)
    total = sum(walls.values())
    longest = max(walls.values(), default=0.0)
    bound = max(longest, total / a.jobs)
    print(f"--stack {a.stack}: {len(walls)} distinct runs in the store ({store.root}), {missing} not in it (made in another store, or not yet)")
    print(f"simulation time in all: {total / 3600:.2f} h ({cpu_timed} runs by their CPU time, the rest by their wall "
          f"time); longest run: {longest / 60:.1f} min")
    print(f"--jobs {a.jobs} from an empty store, runs spread perfectly: {bound / 3600:.2f} h"
          + (" (a lower bound: runs are not in the store)" if missing else ""))
    if missing and walls:
        # The missing runs at the found runs' measured seconds per unit of estimated cost.
        rate = total / sum(costs[p] for p in walls)
        whole = rate * sum(costs.values())
        print(f"all {len(costs)} runs at the found runs' seconds per estimated packet: {whole / 3600:.2f} h of "
              f"simulation, {max(longest, whole / a.jobs) / 3600:.2f} h with --jobs {a.jobs} (an extrapolation)")
    top = sorted(share.items(), key=lambda kv: -kv[1])[:5]
    print("largest by estimated cost: " + ", ".join(f"{k} {100 * v / sum(share.values()):.0f} %" for k, v in top))
    if a.remeasure:
        found = sum(costs[p] for p in walls)
        remeasure(walls, a.remeasure, a.jobs, sum(costs.values()) / found if found else float("nan"), len(costs))
    return 0


def _hops(run_dir) -> int:
    """Link crossings of the stored run: the departures of every link's queue."""
    return int(pd.read_parquet(run_dir / "queues.parquet", columns=["departures"])["departures"].sum())


def remeasure(times: dict, k: int, jobs: int, scale: float, n_all: int) -> None:
    hops = {p: _hops(p.parent) for p in times}
    worst = sorted(times, key=lambda p: -times[p] / max(hops[p], 1))[:2]
    rest = sorted(set(times) - set(worst), key=str)
    chosen = random.Random(1).sample(rest, min(k, len(rest))) + worst
    print(f"\nremeasured alone: {len(chosen) - len(worst)} runs at random, then the {len(worst)} with the most "
          "recorded seconds per link hop")
    print("| run | link hops | recorded s | CPU s now | same result |")
    print("|---|---:|---:|---:|---|")
    done_hops = done_cpu = 0.0
    for p in chosen:
        stored = cclab.load(p.parent)
        again = cclab.run(stored.scenario, seed=stored.seed)
        same = all(getattr(stored, t).equals(getattr(again, t)) for t in ("flows", "queues", "links"))
        timing = ("wall_time_s", "cpu_time_s", "delivered_pkts_per_s")
        sa, sb = ({x: v for x, v in r.summary().items() if x not in timing} for r in (stored, again))
        same = same and json.dumps(sa, sort_keys=True) == json.dumps(sb, sort_keys=True)
        print(f"| {p.parent.name[:12]} | {hops[p]:,} | {times[p]:.0f} | {again.cpu_time_s:.1f} | {'yes' if same else 'NO'} |",
              flush=True)
        done_hops += hops[p]
        done_cpu += float(again.cpu_time_s or 0.0)
    rate = done_hops / done_cpu if done_cpu else float("nan")
    whole = sum(hops.values()) / rate
    print(f"at their {rate:,.0f} link hops per CPU second: the {len(hops)} found runs ({sum(hops.values()):,} hops) "
          f"take {whole / 3600:.2f} h of CPU, {whole / jobs / 3600:.2f} h with --jobs {jobs}")
    if scale > 1:
        print(f"all {n_all} runs, the missing ones at the found runs' link hops per estimated packet: "
              f"{whole * scale / 3600:.2f} h of CPU, {whole * scale / jobs / 3600:.2f} h with --jobs {jobs} (an extrapolation)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
