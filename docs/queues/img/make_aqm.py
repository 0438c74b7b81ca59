"""Draws the figures of docs/queues/codel.md, pie.md and fq_codel.md.

    python docs/queues/img/make_aqm.py              # all three
    python docs/queues/img/make_aqm.py codel pie    # some

Each is the scenario of its behaviour test (crates/cclab-sim/tests/modern_aqm.rs), run with
the installed ``cclab`` package (seed 1), beside DropTail in the same buffer:
- codel-delay.png, pie-delay.png: ten NewReno (SACK) flows of 40 to 100 ms round trips on
  100 Mbit/s with a 2000-packet buffer; the bottleneck's queueing delay (bytes waiting over
  the link rate, sampled every 10 ms), and PIE's drop probability;
- fq_codel-delay.png: ten bulk flows (40 ms) beside a thin flow held to 4 packets; the thin
  flow's round-trip time samples under FQ-CoDel, CoDel, PIE and DropTail.
Also prints CoDel's exact control law against Linux's Newton step over ten seeds (codel.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import cclab  # noqa: E402

HERE = Path(__file__).resolve().parent
DPI = 100
RTTS_MS = [40, 50, 60, 70, 80, 90, 100, 40, 70, 100]


def ten_flows(queue: str, params: dict | None = None, duration: str = "40s") -> dict:
    """The scenario of tests/modern_aqm.rs `ten_flows`."""
    bn = {"rate": "100Mbps", "delay": "10ms", "buffer": "2000pkts", "queue": queue}
    if params:
        bn["queue_params"] = params
    flows = [{"cc": "newreno", "recovery": "sack", "rtt": f"{r}ms", "start_spread": "1s"} for r in RTTS_MS]
    return {"name": f"ten-{queue}", "duration": duration, "warmup": "10s", "sample_interval": "10ms",
            "topology": {"bottleneck": bn}, "flows": flows}


def delay_ms(res: cclab.Result):
    """(time_s, queueing delay in ms, the queue series' max_p) of the bottleneck."""
    qs = res.queue_series
    b = qs[qs["link"] == 0]
    return b["time_s"].to_numpy(), b["len_bytes"].to_numpy() * 8 / 100e6 * 1e3, b["max_p"].to_numpy()


def mean_delay_ms(res: cclab.Result) -> float:
    return float(res.queues["mean_delay_s"].iloc[0]) * 1e3


def save(fig, name: str) -> None:
    fig.tight_layout()
    out = HERE / f"{name}-delay.png"
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    print(f"wrote {out}", file=sys.stderr)


def codel() -> None:
    dt, cd = cclab.run(ten_flows("droptail"), seed=1), cclab.run(ten_flows("codel"), seed=1)
    fig, axes = plt.subplots(2, 1, figsize=(9, 5), sharex=True)
    for ax, res, label in [(axes[0], dt, "droptail"), (axes[1], cd, "codel")]:
        t, d, _ = delay_ms(res)
        ax.plot(t, d, lw=0.6, label=f"{label}: mean {mean_delay_ms(res):.1f} ms over [10, 40] s")
        ax.set_ylabel("queueing delay (ms)")
        ax.grid(alpha=0.3)
    axes[1].axhline(5, color="k", ls="--", lw=1, label="target 5 ms")
    for ax in axes:
        ax.legend(loc="upper right", fontsize="small")
    axes[0].set_title("10 NewReno flows (40-100 ms), 100 Mbit/s, 2000-packet buffer", fontsize="medium")
    axes[1].set_xlabel("time (s)")
    save(fig, "codel")
    # Exact control law against Linux's Newton step (docs/queues/codel.md): this scenario, and
    # the ns-3 cross-check's 40-sack-ten-codel (ten flows of 60 ms, 500 packets).
    x40 = cclab.load_scenario(HERE.parents[2] / "scenarios" / "crosscheck" / "40-sack-ten-codel.toml")
    for name, make in [("mixed round trips", lambda p: ten_flows("codel", p)),
                       ("40-sack-ten-codel", lambda p: dict(x40, topology={"bottleneck": dict(
                           x40["topology"]["bottleneck"], queue_params=p)}))]:
        for newton in (0, 1):
            rows = []
            for seed in range(1, 11):
                r = cclab.run(make({"newton": newton}), seed=seed)
                q = r.queues.iloc[0]
                rows.append((q["mean_delay_s"] * 1e3, q["mean_len_pkts"], q["drops_early"],
                             r.summary()["bottleneck_utilization"] * 100))
            a = np.array(rows)
            print(f"codel, {name}, newton = {newton}, seeds 1-10: mean delay {a[:, 0].mean():.2f} ms "
                  f"({a[:, 0].min():.2f}-{a[:, 0].max():.2f}), mean queue {a[:, 1].mean():.2f} packets, "
                  f"drops at dequeue {a[:, 2].mean():.1f} ({a[:, 2].min():.0f}-{a[:, 2].max():.0f}), "
                  f"utilization {a[:, 3].mean():.2f} % ({a[:, 3].min():.2f}-{a[:, 3].max():.2f})")


def pie() -> None:
    dt, pi = cclab.run(ten_flows("droptail"), seed=1), cclab.run(ten_flows("pie"), seed=1)
    fig, axes = plt.subplots(2, 1, figsize=(9, 5), sharex=True)
    t, d, _ = delay_ms(dt)
    axes[0].plot(t, d, lw=0.6, label=f"droptail: mean {mean_delay_ms(dt):.1f} ms over [10, 40] s")
    t, d, p = delay_ms(pi)
    print(f"pie: drop probability at most {p.max() * 100:.1f} % (at {t[p.argmax()]:.2f} s), "
          f"{p[t >= 10].mean() * 100:.3f} % on average over [10, 40] s")
    axes[1].plot(t, d, lw=0.6, label=f"pie: mean {mean_delay_ms(pi):.1f} ms over [10, 40] s")
    axes[1].axhline(15, color="k", ls="--", lw=1, label="target 15 ms")
    twin = axes[1].twinx()
    twin.plot(t, p * 100, lw=0.8, color="tab:red", label="drop probability")
    twin.set_ylabel("drop probability (%)", color="tab:red")
    for ax in axes:
        ax.set_ylabel("queueing delay (ms)")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    twin.legend(loc="center right", fontsize="small")
    axes[0].set_title("10 NewReno flows (40-100 ms), 100 Mbit/s, 2000-packet buffer", fontsize="medium")
    axes[1].set_xlabel("time (s)")
    save(fig, "pie")


def thin_beside_bulk(queue: str) -> dict:
    """The scenario of tests/modern_aqm.rs `thin_beside_bulk`, sampled every 100 ms."""
    return {"name": f"thin-{queue}", "duration": "30s", "warmup": "10s", "sample_interval": "100ms",
            "topology": {"bottleneck": {"rate": "100Mbps", "delay": "10ms", "buffer": "1bdp", "queue": queue}},
            "flows": [{"name": "bulk", "cc": "newreno", "recovery": "sack", "rtt": "40ms", "count": 10,
                       "start_spread": "1s"},
                      {"name": "thin", "cc": "newreno", "recovery": "sack", "rtt": "40ms", "rwnd": 4}],
            "udp": [{"name": "voip", "rate": "1Mbps", "packet_size": "200B", "access_delay": "5ms"}]}


def fq_codel() -> None:
    fig, ax = plt.subplots(figsize=(9, 4))
    for queue in ["droptail", "pie", "codel", "fq_codel"]:
        res = cclab.run(thin_beside_bulk(queue), seed=1)
        fs = res.flow_series
        thin = fs[fs["flow"] == 10]
        f = res.flows.iloc[10]
        ax.plot(thin["time_s"], thin["rtt_s"] * 1e3, lw=1,
                label=f"{queue}: {f['goodput_bps'] / 1e6:.2f} Mbit/s, mean RTT {f['rtt_mean_s'] * 1e3:.1f} ms, "
                      f"UDP drops {int(res.udp['drops'].iloc[0])}")
    ax.axhline(40, color="k", ls="--", lw=1, label="base RTT 40 ms")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("thin flow's RTT (ms)")
    ax.set_ylim(35, 110)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", fontsize="small", ncol=2)
    ax.set_title("a 4-packet flow beside 10 bulk flows (40 ms), 100 Mbit/s, 1-BDP buffer", fontsize="medium")
    save(fig, "fq_codel")


FIGURES = {"codel": codel, "pie": pie, "fq_codel": fq_codel}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(FIGURES):
        FIGURES[name]()
