"""docs/linux.md, "Receive-buffer autotuning": the kernel's receive-buffer growth in a slow start,
beside eq. (A) of tcp/rcv_autotune.rs.

    sudo PYTHONPATH=python python docs/linux/rcvbuf_autotune.py [--cc cubic]

One flow on the testbed (20 Mbit/s, 40 ms, 1 BDP, 9 s) with the kernel's `tcp:tcp_rcvbuf_grow`
tracepoint on (tracefs at /sys/kernel/tracing). The tracepoint fires when a receiver round read
more than any before (`tcp_rcv_space_adjust()`) and prints the state before the growth. For each
event: the round's reading (copied less what is still queued, the new `rcvq_space`), the one
before, the buffer, clamp and `rcv_ssthresh` it found, and what eq. (A) gives for the buffer and
clamp, which the next event finds (the last growth's result is the state the run ends with).
"""

from __future__ import annotations

import argparse
import re

import cclab

TRACING = "/sys/kernel/tracing"
EVENT = "events/tcp/tcp_rcvbuf_grow/enable"


def _write(path: str, value: str) -> None:
    with open(f"{TRACING}/{path}", "w") as f:
        f.write(value)


def eq_a(new: int, old: int, ratio: int, rmem_max: int) -> tuple[int, int]:
    """tcp_rcvbuf_grow(): (rcvbuf, window_clamp) for a round of `new` bytes after `old`."""
    rcvwin = 2 * new
    rcvwin += (rcvwin * (new - old) // old) << 1
    rcvbuf = min((rcvwin << 8) // ratio, rmem_max)
    return rcvbuf, rcvbuf * ratio >> 8


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default="cubic")
    a = ap.parse_args()
    _write("trace", "")
    _write(EVENT, "1")
    try:
        sc = {"name": "rcvbuf-autotune", "duration": "9s", "sample_interval": "100ms",
              "topology": {"kind": "dumbbell", "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp"}},
              "flows": [{"cc": a.cc, "rtt": "40ms"}]}
        cclab.run(sc, engine="linux", seed=1)
    finally:
        _write(EVENT, "0")
    rmem_max = int(open("/proc/sys/net/ipv4/tcp_rmem").read().split()[2])
    events = []
    with open(f"{TRACING}/trace") as f:
        for line in f:
            if "tcp_rcvbuf_grow:" in line:
                events.append({k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line.split("tcp_rcvbuf_grow:")[1])})
    print("| receiver RTT (ms) | round read | round before | rcvbuf | window_clamp | rcv_ssthresh | eq. (A): rcvbuf, clamp |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    buf = events[0]["rcvbuf"] if events else 0
    for e in events:
        new = e["copied"] - e["inq"]
        grown = eq_a(new, e["space"], e["scaling_ratio"], rmem_max)
        after = f"{grown[0]}, {grown[1]}" if grown[0] > max(buf, e["rcvbuf"]) else "no growth"
        buf = max(buf, grown[0])
        print(f"| {e['rtt_us'] / 1e3:.1f} | {new} | {e['space']} | {e['rcvbuf']} | {e['window_clamp']} | "
              f"{e['rcv_ssthresh']} | {after} |")
    if events:
        print(f"\nscaling ratio {events[0]['scaling_ratio']}/256; tcp_rmem[2] {rmem_max}")


if __name__ == "__main__":
    main()
