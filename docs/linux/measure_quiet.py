"""docs/linux.md, "Idle cores": how the delay line's lateness moves a delay-based algorithm.

    sudo PYTHONPATH=python python docs/linux/measure_quiet.py [--reps 18] [--cc cclab_tcpgt]

Runs the one-flow scenario of tests/test_linux_tcpgt.py (50 Mbit/s, 40 ms, 1 BDP, 8 s, warm-up
4 s) REPS times and prints, per run, the goodput over [4 s, 8 s], the share of frames the
relay found more than 1 ms late (summary ``linux_relay_late_over_1ms`` over
``linux_relay_frames``), its worst lateness, and whether the testbed held its CPU latency
request; then the goodput range of the runs at or under the tests' quiet share
(conftest.quiet_linux_run) and of the others.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

import cclab  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=18)
    ap.add_argument("--cc", default="cclab_tcpgt")
    ap.add_argument("--share", type=float, default=0.0025, help="the quiet share (the tests' default)")
    a = ap.parse_args()
    sc = {"name": "quiet", "duration": "8s", "warmup": "4s", "sample_interval": "100ms",
          "topology": {"kind": "dumbbell", "bottleneck": {"rate": "50Mbps", "delay": "18ms", "buffer": "1bdp"}},
          "flows": [{"cc": a.cc, "rtt": "40ms"}]}
    print(f"### {a.cc}, one flow, 50 Mbit/s, 40 ms, 1 BDP, 8 s (load {' '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
    print("| run | goodput [4, 8] s (Mbit/s) | frames over 1 ms late | of frames | share (%) | worst late (ms) "
          "| CPU latency request | quiet |")
    print("|---:|---:|---:|---:|---:|---:|---|---|")
    quiet, other = [], []
    for i in range(a.reps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = cclab.run(sc, engine="linux")
        s = res.summary()
        g = res.flows.loc[0, "goodput_bps"] / 1e6
        share = s["linux_relay_late_over_1ms"] / s["linux_relay_frames"]
        ok = share <= a.share
        (quiet if ok else other).append(g)
        print(f"| {i + 1} | {g:.2f} | {s['linux_relay_late_over_1ms']:.0f} | {s['linux_relay_frames']:.0f} "
              f"| {100 * share:.2f} | {s['linux_relay_late_max_s'] * 1e3:.1f} "
              f"| {'held' if s['linux_cpu_latency_held'] else 'not held'} | {'yes' if ok else 'no'} |", flush=True)

    def rng(v: list) -> str:
        return f"{min(v):.2f}-{max(v):.2f} Mbit/s" if v else "none"

    print(f"\nquiet (share <= {100 * a.share:.2f} %): {len(quiet)} runs, goodput {rng(quiet)}; "
          f"others: {len(other)} runs, goodput {rng(other)}")


if __name__ == "__main__":
    main()
