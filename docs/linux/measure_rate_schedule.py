"""docs/linux.md, "Rate schedules": the bottleneck's `rate_schedule` on Linux beside the simulator.

    sudo PYTHONPATH=python python docs/linux/measure_rate_schedule.py [--reps N] [--ccs cubic,reno,bbr]

One flow, 20 Mbit/s, 40 ms round trip, 1 BDP of buffer (67 packets), 9 s; the rate steps to
5 Mbit/s at 3 s and back to 20 Mbit/s at 6 s. Prints, per algorithm and seed, the bottleneck's
mean throughput in each phase (the half second after a step left out) and the flow's goodput
over the same spans, Linux then the simulator under the `linux` profile, and how late the
testbed's steps landed. The machine's load average is printed first.
"""

from __future__ import annotations

import argparse
import os

import cclab
from cclab.crosscheck.matrix import with_stack

PHASES = ((1.0, 3.0), (3.5, 6.0), (6.5, 9.0))


def scenario(cc: str) -> dict:
    return {"name": "linux-rate-schedule", "duration": "9s", "sample_interval": "100ms",
            "topology": {"kind": "dumbbell",
                         "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp",
                                        "rate_schedule": [["3s", "5Mbps"], ["6s", "20Mbps"]]}},
            "flows": [{"cc": cc, "rtt": "40ms"}]}


def phases(res) -> str:
    qs, fs = res.queue_series, res.flow_series
    qs = qs[qs.link == qs.link.iloc[0]]
    d = fs.set_index("time_s")["delivered_bytes"]
    out = []
    for a, b in PHASES:
        thr = qs[(qs.time_s > a) & (qs.time_s <= b)].throughput_bps.mean()
        good = (d.loc[b] - d.loc[a]) * 8 / (b - a)
        out.append(f"{thr / 1e6:.2f} / {good / 1e6:.2f}")
    return " | ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--ccs", default="cubic,reno,bbr")
    a = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("Per phase: bottleneck throughput / goodput, Mbit/s.\n")
    print("| cc | seed | engine | 1-3 s (20 Mbit/s) | 3.5-6 s (5 Mbit/s) | 6.5-9 s (20 Mbit/s) | steps late, max |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for cc in a.ccs.split(","):
        for seed in range(1, a.reps + 1):
            sc = scenario(cc)
            linux = cclab.run(sc, engine="linux", seed=seed)
            late = linux.summary()["linux_rate_step_late_max_s"]
            print(f"| {cc} | {seed} | Linux | {phases(linux)} | {late * 1e3:.1f} ms |", flush=True)
            sim = cclab.run(with_stack(sc, "linux"), seed=seed)
            print(f"| {cc} | {seed} | simulator | {phases(sim)} | |", flush=True)


if __name__ == "__main__":
    main()
