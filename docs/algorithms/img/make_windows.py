"""Draws the window-over-time figures of the algorithm pages.

    python docs/algorithms/img/make_windows.py            # all four
    python docs/algorithms/img/make_windows.py ktcp ubr   # some

Each figure is a shortened form of its paper's own scenario, run with the
installed ``cclab`` package (seed 1) and drawn from ``flow_series.cwnd``; each
run takes well under 30 s of wall time. The PNGs are written beside this file:
hrf-window.png, ubr-window.png, ktcp-window.png, ghstcp-window.png.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import cclab  # noqa: E402

HERE = Path(__file__).resolve().parent
DPI = 100


def run(scenario: dict) -> cclab.Result:
    t0 = time.perf_counter()
    res = cclab.run(scenario, seed=1)
    print(f"  {scenario['name']}: {time.perf_counter() - t0:.1f} s wall", file=sys.stderr)
    return res


def cwnd(res: cclab.Result, flow: int):
    """(time_s, cwnd) of one flow."""
    fs = res.flow_series
    one = fs[fs["flow"] == flow]
    return one["time_s"].to_numpy(), one["cwnd"].to_numpy()


def finish(fig, ax, title: str, name: str, **legend) -> None:
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.grid(alpha=0.3)
    ax.legend(**{"loc": "upper right", "fontsize": "small", **legend})
    fig.tight_layout()
    out = HERE / f"{name}-window.png"
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    print(f"wrote {out}", file=sys.stderr)


def hrf() -> None:
    """Paper 001, section 5.2: a 40 ms and a 120 ms flow of the same algorithm on
    100 Mbit/s with a 333-packet buffer (tests/hrf.rs), HRF beside NewReno."""

    def scenario(cc: str) -> dict:
        flow = {"cc": cc, "overhead": "0.24ms"}
        return {
            "name": f"hrf-window-{cc}",
            "duration": "60s",
            "sample_interval": "100ms",
            "topology": {"bottleneck": {"rate": "100Mbps", "delay": "1ms", "buffer": "333pkts"}},
            "flows": [dict(flow, rtt="40ms"), dict(flow, rtt="120ms")],
        }

    fig, axes = plt.subplots(1, 2, figsize=(9, 3), sharey=True)
    for ax, cc in zip(axes, ["hrf", "newreno"]):
        res = run(scenario(cc))
        for flow, label in [(0, "40 ms"), (1, "120 ms")]:
            ax.plot(*cwnd(res, flow), lw=1, label=f"{cc}, RTT {label}")
        ax.set_title(cc, fontsize="medium")
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    axes[0].set_ylabel("cwnd (packets)")
    # Slow start overshoots to about 2300 packets in the first 2 s; cut it off.
    axes[0].set_ylim(0, 1400)
    fig.suptitle("40 ms and 120 ms flows, 100 Mbps, buffer 333 packets", fontsize="medium")
    fig.tight_layout()
    out = HERE / "hrf-window.png"
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    print(f"wrote {out}", file=sys.stderr)


def ubr() -> None:
    """Paper 003, Table 1 and Fig. 3: one flow, 100 Mbit/s, 80 ms, 1000-byte packets,
    buffer BDP/4 = 250 packets (tests/ubr.rs), ubr in one run and NewReno in another."""

    def scenario(cc: str) -> dict:
        return {
            "name": f"ubr-window-{cc}",
            "duration": "200s",
            "sample_interval": "200ms",
            "topology": {"bottleneck": {"rate": "100Mbps", "delay": "38ms", "buffer": "250pkts"}},
            "flows": [{"cc": cc, "rtt": "80ms", "packet_size": "1000B"}],
        }

    fig, ax = plt.subplots(figsize=(6, 3))
    for cc, style in [("newreno", "-"), ("ubr", "-")]:
        t, w = cwnd(run(scenario(cc)), 0)
        ax.plot(t, w, style, lw=1, label=cc)
    ax.axhline(1000, color="grey", ls="--", lw=0.8, label="BDP = 1000")
    finish(fig, ax, "one flow, 100 Mbps, 80 ms, buffer BDP/4 = 250 packets", "ubr", loc="lower right")


def ktcp() -> None:
    """Paper 002, section 5.1.1: one high-speed flow and 20 NewReno-SACK flows on
    1 Gbit/s, 200-packet buffer, d = 20 ms (tests/ktcp.rs); the high-speed flow's
    window with and without KTCP, and the mean SACK window of each run."""

    def scenario(cc: str) -> dict:
        access = {"access_rate": "10Gbps", "access_delay": "3ms", "receiver_delay": "3ms", "start_spread": "5s"}
        return {
            "name": f"ktcp-window-{cc}",
            "duration": "40s",
            "sample_interval": "100ms",
            "topology": {"bottleneck": {"rate": "1Gbps", "delay": "20ms", "buffer": "200pkts"}},
            "flows": [
                dict(access, cc=cc, recovery="sack"),
                dict(access, cc="newreno", recovery="sack", count=20),
            ],
        }

    fig, ax = plt.subplots(figsize=(6, 3))
    for cc, color in [("highspeed", "tab:blue"), ("highspeed+ktcp", "tab:red")]:
        res = run(scenario(cc))
        ax.plot(*cwnd(res, 0), lw=1, color=color, label=cc)
        fs = res.flow_series
        sack = fs[fs["flow"] > 0].groupby("time_s")["cwnd"].mean()
        ax.plot(sack.index, sack.to_numpy(), lw=0.8, ls=":", color=color, label=f"SACK mean, beside {cc}")
    finish(fig, ax, "1 high-speed + 20 SACK flows, 1 Gbps, RTT 52 ms, buffer 200 packets", "ktcp", loc="upper left")


def ghstcp() -> None:
    """Paper 004, Case 5 against Case 2 at the paper's rates as in tests/ghstcp.rs, shortened
    to 150 s: five Reno flows on 100 Mbit/s access links and five HighSpeed or gHSTCP flows on
    1 Gbit/s share 2.5 Gbit/s with a 10,000-packet TailDrop buffer, d = 25 ms, no SACK."""

    def scenario(cc: str) -> dict:
        group = {"access_buffer": "10000pkts", "start_spread": "1s", "count": 5}
        return {
            "name": f"ghstcp-window-{cc}",
            "duration": "150s",
            "sample_interval": "500ms",
            "topology": {"bottleneck": {"rate": "2.5Gbps", "delay": "25ms", "buffer": "10000pkts"}},
            "flows": [
                dict(group, cc="reno", access_rate="100Mbps"),
                dict(group, cc=cc, recovery="reno", access_rate="1Gbps"),
            ],
        }

    fig, axes = plt.subplots(2, 1, figsize=(6, 4.6), sharex=True, sharey=True)
    for ax, cc in zip(axes, ["highspeed", "ghstcp"]):
        res = run(scenario(cc))
        for f in range(5, 10):
            ax.plot(*cwnd(res, f), lw=0.8, label=f"{cc}" if f == 5 else None)
        ax.plot(*cwnd(res, 0), lw=0.8, ls=":", color="black", label="one of the five Reno flows")
        ax.set_ylabel("cwnd (packets)")
        ax.legend(fontsize=7, loc="upper right")
    # Slow start overshoots far above the steady windows in the first seconds.
    axes[0].set_ylim(0, 12000)
    axes[1].set_xlabel("time (s)")
    axes[0].set_title("5 Reno + 5 HighSpeed (top) or gHSTCP (bottom): 2.5 Gbps, 25 ms, 10,000 packets",
                      fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "ghstcp-window.png", dpi=DPI)
    plt.close(fig)


FIGURES = {"hrf": hrf, "ubr": ubr, "ktcp": ktcp, "ghstcp": ghstcp}

if __name__ == "__main__":
    names = sys.argv[1:] or list(FIGURES)
    for n in names:
        if n not in FIGURES:
            sys.exit(f"error: unknown figure {n!r}; accepted: {', '.join(FIGURES)}")
    for n in names:
        FIGURES[n]()
