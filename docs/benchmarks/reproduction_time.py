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
cost most. The times are those of the machine and the moment each run
was made: runs made beside other jobs count their slowdown too.

    CCLAB_STORE=... PYTHONPATH=python python docs/benchmarks/reproduction_time.py [--stack S] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import sys

from cclab import experiments as ex
from cclab.runner import estimate_cost
from cclab.store import RunStore


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--stack", default=ex.DEFAULT_STACK, choices=ex.STACK_CHOICES)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error(f"--jobs: invalid value {a.jobs}; accepted: a whole number >= 1")
    store = RunStore()
    walls: dict = {}
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
                walls[path] = float(json.loads(path.read_text())["wall_time_s"])
    missing = len(costs) - len(walls)
    total = sum(walls.values())
    longest = max(walls.values(), default=0.0)
    bound = max(longest, total / a.jobs)
    print(f"--stack {a.stack}: {len(walls)} distinct runs in the store ({store.root}), {missing} not in it (made in another store, or not yet)")
    print(f"simulation time in all: {total / 3600:.2f} h; longest run: {longest / 60:.1f} min")
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
