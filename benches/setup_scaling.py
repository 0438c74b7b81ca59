"""Setup cost against the number of flows: CUBIC flows on a 10 Gbit/s dumbbell,
1 s simulated, with 1,000, 10,000 and 100,000 flows (or the --flows given).

    python benches/setup_scaling.py                   # 1k, 10k, 100k flows
    python benches/setup_scaling.py --flows 1000 10000

Each size runs in two fresh processes. The first times the core alone: "build" is
one `_core.Sim(...)` (JSON parse, validation, topology, routes, flows), "simulate"
the run of the simulated second, "peak MiB" the process's peak resident memory and
"added MiB" what the simulation added to the peak reached by importing cclab (about
100 MiB: the interpreter, numpy, pandas). The second times `cclab.run` end to end;
"run - simulate" is what a run spends outside the event loop (parse, build,
results), which is the figure the double build used to inflate. Nothing is
asserted: machines are noisy; compare figures taken in one session.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

SCENARIO = {
    "name": "setup-scaling",
    "duration": "1s",
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Gbps", "delay": "10ms", "buffer": "1bdp"}},
    "flows": [{"cc": "cubic", "count": 0, "rtt": "40ms", "start_spread": "500ms"}],
}

_CORE = """
import json, resource, sys, time
from cclab import _core
sc = json.loads(sys.argv[1])
base_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
sim = _core.Sim(json.dumps(sc), 1)
t1 = time.perf_counter()
sim.run_until(sim.duration)
t2 = time.perf_counter()
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"build": t1 - t0, "simulate": t2 - t1, "peak_mib": peak_kib / 1024,
                  "added_mib": (peak_kib - base_kib) / 1024, "events": sim.events}))
"""

_RUN = """
import json, sys, time
import cclab
sc = json.loads(sys.argv[1])
t0 = time.perf_counter()
r = cclab.run(sc)
t1 = time.perf_counter()
print(json.dumps({"run": t1 - t0, "simulate": r.wall_time_s}))
"""


def _child(code: str, sc: dict) -> dict:
    p = subprocess.run([sys.executable, "-c", code, json.dumps(sc)], capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise SystemExit(f"child failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    out: dict = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[1_000, 10_000, 100_000], help="flow counts to time")
    ap.add_argument("--no-run", action="store_true", help="time the core only, not cclab.run end to end")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; CUBIC on 10 Gbit/s, 1 s simulated", flush=True)
    head = f"{'flows':>8} {'build s':>9} {'simulate s':>11} {'peak MiB':>9} {'added MiB':>10} {'events':>11}"
    if not args.no_run:
        head += f" {'cclab.run s':>12} {'run - simulate s':>17}"
    print(head, flush=True)
    for n in args.flows:
        sc = json.loads(json.dumps(SCENARIO))
        sc["flows"][0]["count"] = n
        c = _child(_CORE, sc)
        line = f"{n:>8} {c['build']:>9.3f} {c['simulate']:>11.3f} {c['peak_mib']:>9.1f} {c['added_mib']:>10.1f} {c['events']:>11}"
        if not args.no_run:
            r = _child(_RUN, sc)
            line += f" {r['run']:>12.3f} {r['run'] - r['simulate']:>17.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
