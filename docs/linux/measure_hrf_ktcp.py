"""The figures of docs/linux.md's section on cclab_hrf and cclab_ktcp: each in BPF on the Linux
engine against the simulator's `hrf` / `ktcp` (stack = "linux"), on the scenarios named below.

    sudo PYTHONPATH=python python docs/linux/measure_hrf_ktcp.py [compare|compare1|compare4|variants|losses|sync ...] [--reps N]

Prints markdown tables with the load average (every Linux figure is real time on a shared
machine). Uses measure.py's scenarios (beside this file): 30 s, measured over [10 s, 30 s],
1 BDP of drop-tail buffer, flows started 0.5 s apart.
"""

from __future__ import annotations

import argparse
import statistics as st
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import cclab
from cclab.linux import host

host.LOCK_WAIT_S = 3600.0  # other users of the testbed may hold it for minutes: wait, do not fail
sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import load, scenario_n  # noqa: E402

WARMUP = 10.0
SAVE: Path | None = None  # --save: every Linux result is kept there (name-rate-flows-run)
#: (rate, RTT ms, flows): one flow where the RTT is twice RTT_ref (HRF's modes differ: CR adds 4
#: packets per RTT, CI about 2) and HighSpeed's window is far above 38; four flows at 100 Mbit/s.
SCENARIOS = (("50Mbps", 80, 1), ("100Mbps", 40, 4))
CCS = (("cclab_hrf", "hrf"), ("cclab_ktcp", "ktcp"))
HEAD = ("| cc | engine | goodput (Mbit/s) | mean queue (packets) | cwnd mean (packets) | summed cwnd p10 | "
        "summed cwnd p90 | trace gap | retransmits | relay lost | runs |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def window_sum(res: cclab.Result) -> pd.Series:
    """The flows' summed cwnd at each 100 ms sample in [WARMUP, end], indexed by the sample's tenth of a second."""
    fs = res.flow_series[res.flow_series.time_s >= WARMUP - 1e-9]
    return fs.groupby((fs.time_s * 10).round().astype(int)).cwnd.sum()


def trace_gap(sim: cclab.Result, lin: cclab.Result) -> float:
    """Median over the common sample times of |summed cwnd, Linux - simulator| / simulator: small only
    while both engines lose at the same times (one flow); with several flows the loss times drift
    apart and the summed window's percentiles (the sawtooth's troughs and peaks) compare instead."""
    a, b = window_sum(sim), window_sum(lin)
    t = a.index.intersection(b.index)
    return float(np.median(np.abs(b[t] - a[t]) / a[t]))


def row(name: str, eng: str, results: list, sim: cclab.Result | None) -> None:
    g = [r.summary()["total_goodput_bps"] / 1e6 for r in results]
    q = [r.summary()["bottleneck_mean_queue_pkts"] for r in results]
    c = [float(r.flow_series[r.flow_series.time_s >= WARMUP].cwnd.mean()) for r in results]  # over all flows
    rt = [int(r.flows.retransmits_measured.sum()) for r in results]
    lost = [r.summary().get("linux_relay_lost", 0) for r in results]
    gap = [trace_gap(sim, r) for r in results] if sim is not None else []
    p10 = [float(window_sum(r).quantile(0.1)) for r in results]
    p90 = [float(window_sum(r).quantile(0.9)) for r in results]

    def fmt(x: list, f: str) -> str:
        if not x:
            return "-"
        return format(x[0], f) if len(x) == 1 else f"{format(st.mean(x), f)} ({format(min(x), f)}-{format(max(x), f)})"

    print(f"| {name} | {eng} | {fmt(g, '.2f')} | {fmt(q, '.1f')} | {fmt(c, '.1f')} | {fmt(p10, '.0f')} | {fmt(p90, '.0f')} "
          f"| {fmt(gap, '.3f')} "
          f"| {fmt(rt, '.0f')} | {fmt(lost, '.0f')} | {len(results)} |")


def sim_run(sc: dict) -> cclab.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cclab.run(sc)


def linux_run(sc: dict, tag: str) -> cclab.Result:
    res = cclab.run(sc, engine="linux")
    if SAVE is not None:
        res.save(SAVE / tag)
    return res


def compare(reps: int, ccs=CCS, scenarios=SCENARIOS) -> None:
    for rate, rtt, n in scenarios:
        print(f"\n### {n} flow(s), {rate}, {rtt} ms, 1 BDP, 30 s, over [10 s, 30 s] ({load()})\n")
        print(HEAD)
        for bpf_cc, sim_cc in ccs:
            sim = sim_run(scenario_n(rate, rtt, sim_cc, n, 30, WARMUP, stack="linux"))
            row(sim_cc, "sim (stack linux)", [sim], None)
            row(bpf_cc, "linux", [linux_run(scenario_n(rate, rtt, bpf_cc, n, 30, WARMUP), f"{bpf_cc}-{rate}-{n}-{i}")
                                  for i in range(reps)], sim)


def variants(reps: int) -> None:
    """Paper 001's section 5.2 variants, one flow at 80 ms (where their buffered rules differ)."""
    compare(reps, (("cclab_w_cr_reno", "w+cr+reno"), ("cclab_w_cr_cr", "w+cr+cr")), SCENARIOS[:1])


def episodes(res: cclab.Result) -> str:
    """The loss episodes: `time s: drops` for every 100 ms sample where the bottleneck dropped."""
    q = res.queue_series
    q = q[q.link == q.link.iloc[0]].set_index("time_s").drops.diff().fillna(0)
    return ", ".join(f"{t:.1f}: {int(d)}" for t, d in q[q > 0].items())


def losses(reps: int) -> None:
    """Where the retransmissions come from: each engine's loss episodes (bottleneck drops per
    100 ms sample), one flow at 80 ms, over the whole run."""
    rate, rtt, n = SCENARIOS[0]
    print(f"\n### Loss episodes, {n} flow, {rate}, {rtt} ms, 1 BDP, 30 s ({load()})\n")
    print("| cc | engine | run | episodes (time s: bottleneck drops) |\n|---|---|---:|---|")
    for bpf_cc, sim_cc in CCS:
        sim = sim_run(scenario_n(rate, rtt, sim_cc, n, 30, WARMUP, stack="linux"))
        print(f"| {sim_cc} | sim (stack linux) | 1 | {episodes(sim)} |")
        for i in range(reps):
            lin = linux_run(scenario_n(rate, rtt, bpf_cc, n, 30, WARMUP), f"losses-{bpf_cc}-{i}")
            print(f"| {bpf_cc} | linux | {i + 1} | {episodes(lin)} |")


def reductions(res: cclab.Result) -> list[tuple[float, int]]:
    """(time, flow) of every window reduction: a 100 ms sample at least 20 % below the one before."""
    out = []
    for f, g in res.flow_series.groupby("flow"):
        c = g.set_index("time_s").cwnd
        out += [(float(t), int(f)) for t, x, y in zip(c.index[1:], c.to_numpy()[:-1], c.to_numpy()[1:]) if y < 0.8 * x]
    return sorted(out)


def flows_per_episode(res: cclab.Result, after: float = WARMUP, gap: float = 0.3) -> tuple[int, float]:
    """Congestion episodes after `after` (reductions less than `gap` s apart are one) and the mean
    number of flows that reduced in each."""
    eps: list[set] = []
    last = -1.0
    for t, f in reductions(res):
        if t < after:
            continue
        if not eps or t - last > gap:
            eps.append(set())
        eps[-1].add(f)
        last = t
    return len(eps), (float(np.mean([len(e) for e in eps])) if eps else float("nan"))


def sync() -> None:
    """How many of the four flows reduce per congestion episode, simulator against the Linux runs
    kept by `compare --save DIR` (run that first with the same DIR)."""
    rate, rtt, n = SCENARIOS[1]
    print(f"\n### Flows per congestion episode, {n} flows, {rate}, {rtt} ms, over [10 s, 30 s]\n")
    print("| cc | engine | run | episodes | flows reducing per episode (mean) |\n|---|---|---:|---:|---:|")
    for bpf_cc, sim_cc in CCS:
        e, m = flows_per_episode(sim_run(scenario_n(rate, rtt, sim_cc, n, 30, WARMUP, stack="linux")))
        print(f"| {sim_cc} | sim (stack linux) | 1 | {e} | {m:.2f} |")
        for d in sorted(SAVE.glob(f"{bpf_cc}-{rate}-{n}-*")):
            e, m = flows_per_episode(cclab.load(d))
            print(f"| {bpf_cc} | linux | {int(d.name.rsplit('-', 1)[1]) + 1} | {e} | {m:.2f} |")


def honesty(reps: int) -> None:
    """The test file's four-HRF-flow run (tests/test_linux_hrf_ktcp.py: 100 Mbit/s, 40 ms, 10 s), on
    Linux only, with what says whether a run was honest: link use, the starvation flag's shares and
    the frames the delay line lost."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
    import test_linux_hrf_ktcp as t

    print(f"\n### Four cclab_hrf flows, 100 Mbit/s, 40 ms, 10 s: is each run honest? ({load()})\n")
    print("| run | goodput (Mbit/s) | utilization | app-limited max | sndbuf-limited max | rwnd-limited max "
          "| frames lost by the delay line | mean queue (pkts) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in range(reps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = cclab.run(t.scenario("cclab_hrf", rate="100Mbps", rtt_ms=40, flows=4, duration=10.0),
                          engine="linux").summary()
        print(f"| {k + 1} | {s['total_goodput_bps'] / 1e6:.2f} | {s['bottleneck_utilization']:.4f} "
              f"| {s['linux_app_limited_max']:.3f} | {s['linux_sndbuf_limited_max']:.3f} "
              f"| {s['linux_rwnd_limited_max']:.3f} | {s['linux_relay_lost']:.0f} | {s['bottleneck_mean_queue_pkts']:.1f} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("what", nargs="*", default=["compare"])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--save", type=Path, default=None, help="keep every Linux result in this folder")
    a = ap.parse_args()
    SAVE = a.save
    for w in a.what:
        {"compare": lambda: compare(a.reps), "compare1": lambda: compare(a.reps, scenarios=SCENARIOS[:1]),
         "compare4": lambda: compare(a.reps, scenarios=SCENARIOS[1:]), "variants": lambda: variants(a.reps), "losses": lambda: losses(a.reps),
         "sync": sync, "honesty": lambda: honesty(a.reps)}[w]()
    print(f"\n({load()} at the end)")
