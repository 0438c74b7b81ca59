"""Draws docs/links/cellular.png and prints the numbers of docs/links.md's example.

    python docs/links/make_cellular.py

Runs scenarios/links/cellular.toml (one bulk flow over the synthetic Mahimahi trace
scenarios/links/cellular.trace, 300-packet buffer, 50 ms base RTT) with the installed
``cclab`` package, seed 1, once per algorithm (cubic, bbr, vegas: ``flows[0].cc``), and
plots, over 20 s of it, the trace's capacity (its opportunity bytes per 100 ms) beside
each flow's goodput (the flow series, 100 ms samples), and each flow's RTT samples.
Prints each run's goodput, utilization of the trace, mean and 95th-percentile RTT over
the measured window (after the 5 s warm-up).
"""

from __future__ import annotations

import copy
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import cclab  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIO = HERE.parents[1] / "scenarios" / "links" / "cellular.toml"
ALGORITHMS = ["cubic", "bbr", "vegas"]
COLORS = {"cubic": "tab:red", "bbr": "tab:blue", "vegas": "tab:green"}
SHOWN = (20.0, 40.0)


def capacity(trace: Path, bin_s: float, until_s: float) -> tuple[np.ndarray, np.ndarray]:
    """The trace's opportunity bytes per bin, as bit/s, repeated as mm-link does."""
    ms = np.loadtxt(trace, dtype=np.int64)
    period = ms[-1]
    reps = int(np.ceil(until_s * 1000 / period))
    times = np.concatenate([ms + k * period for k in range(reps)]) / 1000.0
    edges = np.arange(0.0, until_s + bin_s / 2, bin_s)
    counts, _ = np.histogram(times, bins=edges)
    return edges[1:], counts * 1500 * 8 / bin_s


def main() -> None:
    base = cclab.load_scenario(SCENARIO)
    trace = Path(base["topology"]["bottleneck"]["mahimahi"])
    t_cap, cap = capacity(trace, 0.1, float(base["duration"].rstrip("s")))
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    keep = (t_cap > SHOWN[0]) & (t_cap <= SHOWN[1])
    ax1.fill_between(t_cap[keep], cap[keep] / 1e6, step="pre", color="0.85", label="trace capacity")
    for cc in ALGORITHMS:
        sc = copy.deepcopy(base)
        sc["flows"][0]["cc"] = cc
        res = cclab.run(sc, seed=1)
        fs = res.flow_series
        f = fs[(fs["time_s"] > SHOWN[0]) & (fs["time_s"] <= SHOWN[1])]
        ax1.plot(f["time_s"], f["goodput_bps"] / 1e6, color=COLORS[cc], lw=1.2, label=cc)
        ax2.plot(f["time_s"], f["rtt_s"] * 1e3, color=COLORS[cc], lw=1.2, label=cc)
        flows = res.flows
        w = fs[fs["time_s"] > 5.0]
        rtt = w["rtt_s"].to_numpy()
        rtt = rtt[rtt > 0]
        print(f"{cc:6s} goodput {flows['goodput_bps'].iloc[0] / 1e6:5.2f} Mbit/s, "
              f"utilization {res.summary()['bottleneck_utilization']:.3f}, "
              f"RTT mean {flows['rtt_mean_s'].iloc[0] * 1e3:6.1f} ms, "
              f"p95 of the 100 ms samples {np.percentile(rtt, 95) * 1e3:6.1f} ms, "
              f"retransmits {int(flows['retransmits'].iloc[0])}")
    ax1.set_ylabel("Mbit/s")
    ax1.set_title("One flow over a synthetic cellular-like Mahimahi trace (scenarios/links/cellular.toml)")
    ax1.legend(loc="upper right", ncol=4, fontsize=8)
    ax2.set_ylabel("RTT sample (ms)")
    ax2.set_xlabel("time (s)")
    ax2.set_yscale("log")
    ax2.legend(loc="upper right", ncol=3, fontsize=8)
    fig.tight_layout()
    out = HERE / "cellular.png"
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
