"""Draws docs/img/trace-timeout.png and prints the story of docs/tracing.md's worked example:
why did a flow time out?

    python docs/img/make_trace_timeout.py

Eight NewReno (SACK) flows share a 20 Mbit/s bottleneck with a 25-packet DropTail buffer
(seed 1), traced at the bottleneck. The script finds the first retransmission timeout of any
flow whose segment had been retransmitted and lost again, then reads in the `packets` table what happened to the segment the timeout resent: was
its earlier retransmission dropped, where, and why. The figure is that flow's
sequence-time diagram around the timeout (segments sent, retransmissions, drops at the
bottleneck, the timeout) above its window from the `sender` table.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import cclab  # noqa: E402

HERE = Path(__file__).resolve().parent

SCENARIO = {
    "name": "trace-timeout",
    "duration": "10s",
    "topology": {"bottleneck": {"rate": "20Mbps", "delay": "10ms", "buffer": "25pkts"}},
    "flows": [{"cc": "newreno", "recovery": "sack", "count": 8, "rtt": "60ms", "start_spread": "1s"}],
}


def main() -> None:
    res = cclab.run(SCENARIO, seed=1, trace={"links": ["bottleneck"]})
    p, s = res.packets, res.sender
    print(f"packets: {len(p)} rows, sender: {len(s)} rows; timeouts per flow: {res.flows['timeouts'].tolist()}")
    # The first timeout whose segment had a retransmission dropped before it fired.
    dropped_retx = p[(p["event"] == "drop") & (p["retx"] == 1) & (p["kind"] == "data")]
    for rto in p[p["event"] == "rto"].itertuples(index=False):
        lost = dropped_retx[(dropped_retx["flow"] == rto.flow) & (dropped_retx["seq"] == rto.seq)
                            & (dropped_retx["time_s"] < rto.time_s)]
        if len(lost):
            break
    print(f"{(p['event'] == 'rto').sum()} timeouts in all; the first with a lost retransmission:")
    k, t_rto, seg = int(rto.flow), float(rto.time_s), int(rto.seq)
    print(f"flow {k}: retransmission timeout at {t_rto:.4f} s, snd_una = segment {seg}")
    mine = p[(p["flow"] == k) & (p["kind"] == "data") & (p["seq"] == seg) & (p["time_s"] <= t_rto)]
    for r in mine.itertuples(index=False):
        where = "" if pd.isna(r.link) else f" at link {int(r.link)}"
        print(f"  {r.time_s:.4f} s  {r.event:8s} retx={r.retx} {r.cause:9s}{where} queue={r.queue_pkts}")
    # The window around the timeout.
    t0, t1 = float(mine["time_s"].min()) - 0.05, t_rto + 0.5
    w = p[(p["flow"] == k) & (p["kind"] == "data") & p["time_s"].between(t0, t1)]
    sends = w[(w["event"] == "send") & (w["retx"] == 0)]
    retx = w[(w["event"] == "send") & (w["retx"] == 1)]
    drops = w[w["event"] == "drop"]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, height_ratios=[3, 1.3], layout="constrained")
    ax.plot(sends["time_s"], sends["seq"], ".", ms=3, color="tab:blue", label="segment sent")
    ax.plot(retx["time_s"], retx["seq"], "^", ms=6, color="tab:orange", label="retransmission (cause in `cause`)")
    ax.plot(drops["time_s"], drops["seq"], "x", ms=8, mew=2, color="tab:red", label="dropped at the bottleneck (overflow)")
    rtos = p[(p["flow"] == k) & (p["event"] == "rto") & p["time_s"].between(t0, t1)]
    for t in rtos["time_s"]:
        ax.axvline(t, color="k", ls="--", lw=1)
        ax.annotate("RTO fires", (t, 4), xytext=(-60, 0), textcoords="offset points")
    lost_retx = mine[(mine["event"] == "drop") & (mine["retx"] == 1)]
    for r in lost_retx.itertuples(index=False):
        ax.annotate(f"retransmission of {seg} dropped", (r.time_s, r.seq), xytext=(-150, 25),
                    textcoords="offset points", arrowprops={"arrowstyle": "->"})
    ax.set_ylabel("segment number")
    ax.set_title(f"Flow {k}: why it timed out (seed 1)")
    ax.legend(loc="upper left", fontsize="small")
    ax.grid(True, alpha=0.3)
    sw = s[(s["flow"] == k) & s["time_s"].between(t0, t1)]
    ax2.step(sw["time_s"], sw["cwnd"], where="post", color="tab:green", label="cwnd")
    ax2.step(sw["time_s"], sw["in_flight"], where="post", color="tab:purple", lw=0.8, label="in flight (pipe)")
    ax2.axvline(t_rto, color="k", ls="--", lw=1)
    ax2.set_ylabel("packets")
    ax2.set_xlabel("time (s)")
    ax2.legend(loc="upper left", fontsize="small")
    ax2.grid(True, alpha=0.3)
    out = HERE / "trace-timeout.png"
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
