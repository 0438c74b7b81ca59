"""Local parallel speed-up of `cclab sweep`: the same 200 short runs with --jobs 1
and with --jobs 2 (or the --jobs given), each timed as a whole command (interpreter
start, worker start-up, runs, writing every run's folder).

    python benches/sweep_scaling.py                 # 200 runs, --jobs 1 and 2
    python benches/sweep_scaling.py --jobs 1 2 4 --runs 400

Prints runs per second and the ratio to the first --jobs; checks that every
execution produced the same table. Nothing is asserted: machines are noisy, and
a loaded machine (see the load average printed) gives a lower ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cclab
from cclab.sweep import TIMING_COLUMNS

# One run: 2 NewReno flows, 100 Mbit/s, 40 ms, 20 s simulated, about 0.15 s of wall time.
SWEEP = """\
name = "scaling"
seed = 1
replications = 2

[grid]
"topology.bottleneck.buffer" = {buffers}

[base]
duration = "20s"
sample_interval = "200ms"

[base.topology]
kind = "dumbbell"
bottleneck = {{ rate = "100Mbps", delay = "18ms", buffer = "1bdp" }}

[[base.flows]]
cc = "newreno"
recovery = "sack"
count = 2
rtt = "40ms"
start_spread = "1s"
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="runs in the sweep (even; 2 replications per point)")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="--jobs values to time")
    args = ap.parse_args()
    points = max(1, args.runs // 2)
    buffers = [f"{20 + i}pkts" for i in range(points)]
    env = dict(os.environ)
    pkg_parent = str(Path(cclab.__file__).resolve().parents[1])  # the cclab this script imports
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cclab {cclab.__version__}, Python {sys.version.split()[0]}, {cores} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{2 * points} runs: 2 NewReno flows, 100 Mbit/s, 40 ms, 20 s simulated each")
    with tempfile.TemporaryDirectory(prefix="cclab-sweep-scaling-") as tmp:
        definition = Path(tmp) / "scaling.toml"
        definition.write_text(SWEEP.format(buffers=json.dumps(buffers)), encoding="utf-8")
        results = {}
        tables = {}
        for jobs in args.jobs:
            out = Path(tmp) / f"jobs{jobs}"
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "cclab", "sweep", str(definition), "--out", str(out),
                            "--jobs", str(jobs), "--quiet"], check=True, env=env)
            wall = time.perf_counter() - t0
            df = cclab.load_sweep(out)
            assert (df["status"] == "ok").all() and len(df) == 2 * points
            tables[jobs] = df.drop(columns=list(TIMING_COLUMNS))
            results[jobs] = wall
            sim = df["wall_time_s"].sum()
            print(f"--jobs {jobs}: {wall:6.2f} s, {len(df) / wall:6.1f} runs/s "
                  f"(of which {sim:.1f} s inside the simulator, summed over runs)")
        first = args.jobs[0]
        for jobs in args.jobs[1:]:
            same = tables[jobs].equals(tables[first])
            print(f"speed-up --jobs {jobs} vs --jobs {first}: {results[first] / results[jobs]:.2f}x"
                  f"{'' if same else '  (TABLES DIFFER)'}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
