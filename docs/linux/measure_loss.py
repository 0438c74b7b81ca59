"""docs/linux.md, "Random loss": the scenario's bottleneck `loss` on Linux (the delay line drops
forward data frames at random before the queue) beside the simulator under the `linux` profile.

    sudo PYTHONPATH=python python docs/linux/measure_loss.py [--reps N] [--losses 0.001,0.01] [--ccs reno,cubic]
    sudo PYTHONPATH=python python docs/linux/measure_loss.py --gilbert-elliott P,R [--reps N] [--ccs bbr,reno]

One flow, 20 Mbit/s, 40 ms round trip, 1 BDP of buffer, 20 s, goodput over [5 s, 20 s]; Linux
runs seeds 1..N, the simulator the same seeds. Prints a markdown table: per loss rate and
algorithm, each run's goodput (Mbit/s), its random drops over the data packets sent, and its
retransmissions, Linux then the simulator, and the Mathis et al. estimate 1.22 MSS / (RTT sqrt p)
for reno. The machine's load average is printed first. With ``--gilbert-elliott P,R`` the
bottleneck's loss is that two-state channel instead (loss_good 0, loss_bad 1), and the Linux
cells add the delay line's bursts (runs of consecutive drops) and their mean length.
"""

from __future__ import annotations

import argparse
import math
import os

import cclab
from cclab.crosscheck.matrix import with_stack


def scenario(cc: str, loss: float, ge: tuple = ()) -> dict:
    bn = {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp"}
    bn.update({"gilbert_elliott": {"p": ge[0], "r": ge[1]}} if ge else {"loss": loss})
    return {"name": "linux-loss", "duration": "20s", "warmup": "5s", "sample_interval": "100ms",
            "topology": {"kind": "dumbbell", "bottleneck": bn}, "flows": [{"cc": cc, "rtt": "40ms"}]}


def cells(res) -> str:
    f, q = res.flows.iloc[0], res.queues.iloc[0]
    out = f"{f['goodput_bps'] / 1e6:.2f} ({int(q['drops_link'])}/{int(f['sent_pkts'])}, {int(f['retransmits'])}"
    b = res.summary().get("linux_relay_loss_bursts")
    return out + (f"; {int(b)} bursts, mean {q['drops_link'] / b:.2f})" if b else ")")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--losses", default="0.001,0.01")
    ap.add_argument("--ccs", default="reno,cubic")
    ap.add_argument("--gilbert-elliott", default="", metavar="P,R")
    a = ap.parse_args()
    ge = tuple(float(x) for x in a.gilbert_elliott.split(",")) if a.gilbert_elliott else ()
    losses = [ge[0] / (ge[0] + ge[1])] if ge else [float(x) for x in a.losses.split(",")]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    if ge:
        print(f"Gilbert-Elliott p {ge[0]:g}, r {ge[1]:g}, loss_good 0, loss_bad 1: mean loss {losses[0]:.4f}, "
              f"mean burst {1 / ge[1]:.2f} frames\n")
    print("| loss | cc | Linux: goodput Mbit/s (random drops/sent, retransmits), each seed | simulator, linux profile | "
          "Mathis estimate |")
    print("|---:|---|---|---|---:|")
    for loss in losses:
        for cc in a.ccs.split(","):
            sc = scenario(cc, loss, ge)
            linux = [cclab.run(sc, engine="linux", seed=s) for s in range(1, a.reps + 1)]
            sim = [cclab.run(with_stack(sc, "linux"), seed=s) for s in range(1, a.reps + 1)]
            mathis = 1.22 * 1448 * 8 / (0.040 * math.sqrt(loss)) / 1e6 if cc == "reno" else float("nan")
            print(f"| {loss:g} | {cc} | {'; '.join(cells(r) for r in linux)} | {'; '.join(cells(r) for r in sim)} | "
                  f"{mathis:.2f} |", flush=True)


if __name__ == "__main__":
    main()
