"""Draws the figure of docs/queues/dualpi2.md and prints the numbers the page quotes.

    python docs/queues/img/make_dualpi2.py             # the figure
    python docs/queues/img/make_dualpi2.py variants    # the page's variants, printed

The scenario is scenarios/dualpi2.toml (the behaviour test's, crates/cclab-sim/tests/dualpi2.rs),
run with the installed ``cclab`` package, seed 1: one DCTCP flow sending ECT(1) beside one
CUBIC flow through ``dualpi2``, 100 Mbit/s, 30 ms. Top: each flow's queueing delay (its latest
RTT sample less its base RTT, every 100 ms), the DCTCP flow's being the L queue's, CUBIC's the
C queue's; middle: the base probability p' (the queue series' max_p); bottom: each flow's
goodput per 100 ms sample, smoothed over 1 s.
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
SCENARIO = HERE.parents[2] / "scenarios" / "dualpi2.toml"


def main() -> None:
    res = cclab.run(cclab.load_scenario(SCENARIO), seed=1)
    fl, fs, qs = res.flows, res.flow_series, res.queue_series
    fig, axes = plt.subplots(3, 1, figsize=(9, 7.5), sharex=True)
    for i, name in enumerate(fl["name"]):
        s = fs[(fs["flow"] == i) & (fs["rtt_s"] > 0)]  # no RTT sample yet at t = 0
        t = s["time_s"].to_numpy()
        q = (s["rtt_s"].to_numpy() - fl["base_rtt_s"].iloc[i]) * 1e3
        after = t >= 10
        label = "L queue (DCTCP, ECT(1))" if i == 0 else "C queue (CUBIC)"
        print(f"{name}: queueing delay over [10, 30] s: median {np.median(q[after]):.3f} ms, "
              f"p99 {np.quantile(q[after], 0.99):.3f} ms, mean {q[after].mean():.3f} ms; "
              f"goodput {fl['goodput_bps'].iloc[i] / 1e6:.1f} Mbit/s")
        axes[0].plot(t, q, lw=0.6, label=label)
        g = s["goodput_bps"].to_numpy() / 1e6
        axes[2].plot(t, np.convolve(g, np.ones(10) / 10, mode="same"), lw=1, label=f"{name}: {fl['goodput_bps'].iloc[i] / 1e6:.1f} Mbit/s over [10, 30] s")
    axes[0].axhline(15, color="k", ls="--", lw=0.8, label="target 15 ms (C)")
    axes[0].axhline(1, color="r", ls=":", lw=0.8, label="step 1 ms (L)")
    axes[0].set_ylabel("queueing delay (ms)")
    b = qs[qs["link"] == 0]
    p = b["max_p"].to_numpy()
    late = b["time_s"].to_numpy() >= 10
    print(f"p' over [10, 30] s: mean {p[late].mean():.5f}, mean of p'^2 {np.mean(p[late] ** 2):.6f}, "
          f"at 0 in {np.mean(p[late] == 0):.2f} of the samples; largest before 10 s {p[~late].max():.3f}")
    axes[1].plot(b["time_s"], p, lw=0.6, color="C2")
    axes[1].set_ylabel("p'")
    axes[2].set_ylabel("goodput (Mbit/s, 1 s mean)")
    axes[2].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper right", fontsize="small")
    axes[2].legend(loc="lower right", fontsize="small")
    axes[0].set_title("dualpi2: 1 DCTCP (L4S) + 1 CUBIC, 100 Mbit/s, 30 ms (scenarios/dualpi2.toml, seed 1)",
                      fontsize="medium")
    fig.tight_layout()
    out = HERE / "dualpi2.png"
    fig.savefig(out, dpi=100)
    print(f"wrote {out}", file=sys.stderr)


def moments(res: cclab.Result) -> str:
    """The ratio of the L4S flows' goodput to the Classic flows', p' at 0, the C queue's delay,
    and the ratio the RFC's window laws predict from the moments of p' (tests/dualpi2.rs)."""
    fl, fs, qs = res.flows, res.flow_series, res.queue_series
    half = len(fl) // 2
    g = fl["goodput_bps"].to_numpy()
    b = qs[(qs["link"] == 0) & (qs["time_s"] >= 10)]["max_p"].to_numpy()
    m1, m2 = b.mean(), np.mean(b ** 2)

    def delay_s(i: int) -> float:
        s = fs[(fs["flow"] == i) & (fs["time_s"] >= 10)]
        return float((s["rtt_s"] - fl["base_rtt_s"].iloc[i]).mean())

    rtt = [fl["base_rtt_s"].iloc[i] + delay_s(i) for i in (0, half)]
    predicted = (1 / m1 / rtt[0]) / (1.22 / np.sqrt(m2) / rtt[1])
    return (f"ratio {g[:half].sum() / g[half:].sum():.3f}, predicted {predicted:.3f}, p' at 0 in "
            f"{np.mean(b == 0):.2f}, E[p'^2]/E[p']^2 {m2 / m1 ** 2:.2f}, C mean queueing {delay_s(half) * 1e3:.2f} ms")


def variants() -> None:
    base = cclab.load_scenario(SCENARIO)
    text = SCENARIO.read_text(encoding="utf-8")
    cases = {
        "scenario": text,
        "recovery = sack": text.replace('cc = "dctcp"', 'cc = "dctcp"\nrecovery = "sack"')
                               .replace('cc = "cubic"', 'cc = "cubic"\nrecovery = "sack"'),
        "beta = 0.32": text.replace('queue = "dualpi2"', 'queue = "dualpi2", queue_params = { beta = 0.32 }'),
        "count = 4": text.replace('rtt = "30ms"', 'rtt = "30ms"\ncount = 4'),
    }
    del base
    for name, t in cases.items():
        path = HERE / "_variant.toml"
        path.write_text(t, encoding="utf-8")
        try:
            sc = cclab.load_scenario(path)
        finally:
            path.unlink()
        for seed in (1, 2, 3):
            print(f"{name}, seed {seed}: {moments(cclab.run(sc, seed=seed))}")


if __name__ == "__main__":
    variants() if sys.argv[1:] == ["variants"] else main()
