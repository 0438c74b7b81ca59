"""TCP-GT's window under a jittering path, in the simulator (docs/linux.md, "cclab_tcpgt").

The quiet Linux runs of `compare_tcpgt` keep 2-4 % less window than the simulator's `tcp-gt`,
and the real path's round trip varies by 0.1-0.9 ms at idle (the delay line's accuracy). Does
that spread alone lower the window? This runs the one-flow comparison scenario (50 Mbit/s,
40 ms, 1 BDP, `stack = "linux"`) with the bottleneck's `jitter` (docs/links.md: each packet's
delay uniform in [delay - J, delay + J], in order, both directions) and prints, per J, the
mean window over [10 s, 30 s] (100 ms samples), the goodput and the mean queue, means over
the seeds with their range. Simulator only: no root needed.

    PYTHONPATH=python python docs/linux/tcpgt_jitter.py --seeds 5 --jitters 0,0.05,0.1,0.2,0.3,0.45
"""

from __future__ import annotations

import argparse
import statistics as st
import sys
import warnings
from pathlib import Path

import cclab

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import scenario_n  # noqa: E402  (the comparison's own scenario)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N per jitter (default 5)")
    ap.add_argument("--jitters", default="0,0.05,0.1,0.2,0.3,0.45", help="J values in ms, comma-separated")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error(f"--seeds: invalid value {a.seeds}; accepted: a whole number >= 1")
    try:
        jitters = [float(x) for x in a.jitters.split(",")]
    except ValueError:
        ap.error(f"--jitters: invalid value {a.jitters!r}; accepted: numbers of ms, comma-separated")
    if any(j < 0 for j in jitters):
        ap.error(f"--jitters: invalid value {a.jitters!r}; accepted: numbers of ms >= 0, comma-separated")
    warnings.simplefilter("ignore")
    print("| jitter J (ms) | cwnd mean (packets) | goodput (Mbit/s) | mean queue (packets) | seeds |")
    print("|---:|---:|---:|---:|---:|")
    for j in jitters:
        cw, gp, q = [], [], []
        for seed in range(1, a.seeds + 1):
            sc = scenario_n("50Mbps", 40, "tcp-gt", 1, 30, 10, stack="linux")
            if j > 0:
                sc["topology"]["bottleneck"]["jitter"] = f"{j}ms"
            r = cclab.run(sc, seed=seed)
            cw.append(float(r.flow_series[r.flow_series.time_s >= 10].cwnd.mean()))
            gp.append(r.summary()["total_goodput_bps"] / 1e6)
            q.append(r.summary()["bottleneck_mean_queue_pkts"])

        def fmt(x: list, f: str) -> str:
            return f"{format(st.mean(x), f)} ({format(min(x), f)}-{format(max(x), f)})"

        print(f"| {j:g} | {fmt(cw, '.1f')} | {fmt(gp, '.2f')} | {fmt(q, '.1f')} | {a.seeds} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
