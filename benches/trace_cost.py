"""What tracing costs when it is on (docs/tracing.md): user CPU seconds and peak memory of B1
(one NewReno flow, 100 Mbit/s, 80 ms) cut to 10 simulated seconds, untraced, with the trace's
tables, and with a pcap only; best of three runs each, in this process.

    python benches/trace_cost.py
"""

from __future__ import annotations

import copy
import os
import resource
import tempfile

import cclab
from cclab.bench import CASES


def user_s(sc: dict, trace: dict | None) -> tuple[float, int]:
    best, rows = float("inf"), 0
    for _ in range(3):
        u0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        r = cclab.run(sc, trace=trace)
        best = min(best, resource.getrusage(resource.RUSAGE_SELF).ru_utime - u0)
        rows = len(r.packets) + len(r.sender)
    return best, rows


def main() -> None:
    sc = copy.deepcopy(CASES["B1"].scenario)
    sc["duration"] = "10s"
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "b1.pcapng")
        cases = [
            ("untraced", None),
            ("trace: packets + sender tables, every link", {"max_records": 20_000_000}),
            ("trace: packets at the bottleneck only", {"links": ["bottleneck"], "sender": False}),
            ("pcap only (no tables)", {"packets": False, "sender": False, "pcap": pcap}),
        ]
        base = None
        for label, trace in cases:
            t, rows = user_s(sc, trace)
            base = base or t
            extra = f", {os.path.getsize(pcap) / 1e6:.1f} MB pcap" if trace and "pcap" in trace else ""
            print(f"{label:45s} user {t:6.3f} s  x{t / base:5.2f}  {rows:>10,} rows{extra}")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
