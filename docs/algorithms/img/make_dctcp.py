"""Draws docs/algorithms/img/dctcp-queue.png and prints the figures quoted beside it.

    python docs/algorithms/img/make_dctcp.py

Ten flows on 1 Gbit/s with a 1 ms RTT and a DropTail buffer of 300 packets that marks ECN-capable
arrivals CE at K = 20 packets waiting (the DCTCP paper's 1 Gbit/s K; crates/cclab-sim/tests/dctcp.rs
runs the same): DCTCP, and RFC 3168 ECN Reno on the same marker. Top: the bottleneck queue, sampled
every millisecond, 1.0 to 1.05 s; bottom: flow 0's window. Seed 1, the installed ``cclab``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import cclab  # noqa: E402

HERE = Path(__file__).resolve().parent
K = 20


def scenario(cc: str, ecn: bool) -> dict:
    g = {"cc": cc, "count": 10, "rtt": "1ms", "receiver_delay": "0.05ms", "start_spread": "10ms"}
    if ecn:
        g["ecn"] = True
    return {"name": f"step-{cc}", "duration": "3s", "warmup": "1s", "sample_interval": "1ms",
            "topology": {"kind": "dumbbell", "bottleneck": {
                "rate": "1Gbps", "delay": "0.2ms", "buffer": "300pkts", "queue_params": {"ecn_threshold": K}}},
            "flows": [g]}


def main() -> None:
    fig, (axq, axw) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for cc, ecn, color in (("dctcp", False, "tab:blue"), ("reno", True, "tab:orange")):
        res = cclab.run(scenario(cc, ecn), seed=1)
        qs = res.queue_series
        bn = int(res.queues[res.queues["role"] == "bottleneck"]["link"].iloc[0])
        q = qs[qs["link"] == bn]
        after = q[q["time_s"] >= 1.0]["len_pkts"].to_numpy(dtype=float)
        util = float(res.summary()["bottleneck_utilization"])
        print(f"{cc:6s} ecn: queue mean {after.mean():.1f} sd {after.std():.1f} max {after.max():.0f} "
              f"min {after.min():.0f}; bottleneck utilization {util:.4f}")
        w = q[(q["time_s"] >= 1.0) & (q["time_s"] <= 1.05)]
        label = "DCTCP" if cc == "dctcp" else "Reno, RFC 3168 ECN"
        axq.step(w["time_s"], w["len_pkts"], where="post", color=color, label=label)
        fs = res.flow_series
        f0 = fs[(fs["flow"] == 0) & (fs["time_s"] >= 1.0) & (fs["time_s"] <= 1.05)]
        axw.plot(f0["time_s"], f0["cwnd"], color=color, label=label)
    axq.axhline(K, color="grey", ls="--", lw=1, label=f"K = {K}")
    axq.axhline(K + 10, color="grey", ls=":", lw=1, label="K + N")
    axq.set_ylabel("bottleneck queue (packets)")
    axq.legend(loc="upper right", fontsize="small")
    axq.grid(alpha=0.3)
    axw.set_ylabel("cwnd of flow 0 (packets)")
    axw.set_xlabel("time (s)")
    axw.legend(loc="upper right", fontsize="small")
    axw.grid(alpha=0.3)
    fig.suptitle("10 flows, 1 Gbit/s, RTT 1 ms, step marking at K = 20", fontsize="medium")
    fig.tight_layout()
    out = HERE / "dctcp-queue.png"
    fig.savefig(out, dpi=100)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
