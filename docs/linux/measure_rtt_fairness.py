"""docs/linux.md, "RTT fairness on Linux": paper 001's 40 ms against 120 ms point, run by run.

    sudo PYTHONPATH=python python docs/linux/measure_rtt_fairness.py [--reps N] [--gso1] [--save DIR]
        [--idle-qos on|off|both]
    PYTHONPATH=python python docs/linux/measure_rtt_fairness.py --reductions DIR [DIR ...]

`cclab compare` gives means and ranges; this prints each run: both flows' goodput over
[warmup, end] and their difference |Thr1 - Thr2| (the paper's measure), each flow's
retransmissions, the bottleneck's drops and loss episodes (100 ms samples with a drop, merged
when less than 0.3 s apart) after the warmup with the drops per episode, and the delay line's
lateness and losses; then, per Linux run, the loss episodes beside the times the delay line
woke more than 2 ms late. The simulator runs the scenarios as `cclab compare` does (stack =
"linux"). ``--gso1``: the sender's veth takes skbs of one segment (``Testbed.gso_max_segs``),
so TCP's multi-segment skbs no longer leave as back-to-back bursts (evidence runs only).
``--idle-qos``: the Linux runs hold the testbed's CPU latency request (on, the default), not
(off), or each in turn (both; docs/linux.md, "Idle cores"); a run's label says which.
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import cclab
from cclab.linux import host
from cclab.linux.compare import sim_scenario

host.LOCK_WAIT_S = 3600.0  # other users of the testbed may hold it for minutes: wait, do not fail
HERE = Path(__file__).resolve().parents[2] / "scenarios" / "linux"
WARMUP = 20.0


def loss_episodes(res: cclab.Result, gap: float = 0.3) -> list[int]:
    """Bottleneck drops per loss episode after the warmup."""
    q = res.queue_series
    q = q[q.link == q.link.iloc[0]].set_index("time_s").drops.diff().fillna(0)
    out: list[int] = []
    last = -1e9
    for t, d in q[(q > 0) & (q.index > WARMUP)].items():
        if t - last < gap:
            out[-1] += int(d)
        else:
            out.append(int(d))
        last = t
    return out


def reductions(res: cclab.Result, flow: int) -> list[float]:
    """When a flow reduced its window after the warmup: a 100 ms sample 10 % or more below the
    one 0.2 s before (HRF's Westwood decrease of the 120 ms flow is only ~16 %, and may span two
    samples), reductions less than 1 s apart counted once."""
    c = res.flow_series[res.flow_series.flow == flow].set_index("time_s").cwnd.astype(float)
    drop = c / c.shift(2) < 0.9
    out: list[float] = []
    for t in c.index[drop.to_numpy()]:
        if t > WARMUP and (not out or t - out[-1] > 1.0):
            out.append(round(float(t), 1))
    return out


def reduction_table(folders: list[Path]) -> None:
    """Which flow reduced at each congestion episode, from the Linux runs ``--save`` kept and
    from the simulator's run."""
    print("\n| cc | engine | run | 40 ms flow reduced at (s) | 120 ms flow reduced at (s) |\n|---|---|---|---|---|")
    for name in ("hrf", "reno"):
        sc = cclab.load_scenario(HERE / f"rtt-fairness-{name}.toml")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = cclab.run(sim_scenario(sc)[0], seed=1)
        runs = [("sim (stack linux)", "1", sim)] + [
            ("linux", f"{d.name}/{r.name}", cclab.load(r)) for d in folders for r in sorted(d.glob(f"{name}-*"))]
        for engine, run, res in runs:
            r0, r1 = reductions(res, 0), reductions(res, 1)
            print(f"| {sc['flows'][0]['cc']} | {engine} | {run} | {', '.join(map(str, r0))} ({len(r0)}) "
                  f"| {', '.join(map(str, r1))} ({len(r1)}) |")


def spells_beside_losses(cc: str, run: int | str, res: cclab.Result) -> str:
    """One markdown row: the loss episodes after the warmup (time s: drops) and the delay line's
    spells of lateness over 2 ms in the whole run (time s: worst ms, direction)."""
    q = res.queue_series
    q = q[q.link == q.link.iloc[0]].set_index("time_s").drops.diff().fillna(0)
    drops = ", ".join(f"{t:.1f}: {int(d)}" for t, d in q[(q > 0) & (q.index > WARMUP)].items())
    late = ", ".join(f"{t:.2f}: {w * 1e3:.1f} {d}" for d, t, w in sorted(getattr(res, "linux_relay_late_spells", []),
                                                                         key=lambda x: x[1]))
    return f"| {cc} | {run} | {drops} | {late or '-'} |"


def big_episodes_beside_stalls(cc: str, run: int | str, res: cclab.Result, big: int = 10,
                               stall_s: float = 0.003, before_s: float = 0.2) -> str:
    """One markdown row: each loss episode after the warmup with ``big`` drops or more, and the
    worst spell of the delay line (late over ``stall_s``) that started up to ``before_s`` before
    the episode's first 100 ms sample (the sample counts the drops of the 100 ms before it)."""
    q = res.queue_series
    q = q[q.link == q.link.iloc[0]].set_index("time_s").drops.diff().fillna(0)
    eps: list[tuple[float, int]] = []
    for t, d in q[(q > 0) & (q.index > WARMUP)].items():
        if eps and t - eps[-1][2] < 0.3:
            eps[-1] = (eps[-1][0], eps[-1][1] + int(d), t)
        else:
            eps.append((t, int(d), t))
    spells = getattr(res, "linux_relay_late_spells", [])
    cells, beside = [], 0
    for start, drops, _ in eps:
        if drops < big:
            continue
        near = [w for _, ts, w in spells if start - 0.1 - before_s <= ts <= start and w > stall_s]
        beside += bool(near)
        cells.append(f"{start:.1f} s: {drops} ({max(near) * 1e3:.1f} ms)" if near else f"{start:.1f} s: {drops} (none)")
    return f"| {cc} | {run} | {len(cells)} | {beside} | {', '.join(cells) or '-'} |"


def row(cc: str, engine: str, run: int | str, res: cclab.Result) -> None:
    f = res.flows.set_index("flow")
    g0, g1 = f.loc[0, "goodput_bps"] / 1e6, f.loc[1, "goodput_bps"] / 1e6
    ep = loss_episodes(res)
    s = res.summary()
    late = (f"{s['linux_relay_late_max_s'] * 1e3:.1f} ms / {s['linux_relay_late_over_1ms']:.0f} / "
            f"{s['linux_relay_lost']:.0f}") if "linux_relay_late_max_s" in s else "-"
    print(f"| {cc} | {engine} | {run} | {g0:.1f} | {g1:.1f} | {abs(g0 - g1):.1f} "
          f"| {int(f.loc[0, 'retransmits_measured'])} | {int(f.loc[1, 'retransmits_measured'])} | {sum(ep)} "
          f"| {len(ep)} | {sum(ep) / len(ep) if ep else 0:.1f} | {late} |")


def main(reps: int, save: Path | None, idle_qos: str = "on") -> None:
    from cclab.linux.testbed import Testbed

    settings = Testbed.IDLE_QOS[idle_qos]
    print(f"\n### RTT fairness, 40 ms against 120 ms, 100 Mbit/s, 333 packets, 80 s, over [20 s, 80 s] "
          f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
    print("| cc | engine | run | 40 ms flow (Mbit/s) | 120 ms flow (Mbit/s) | difference (Mbit/s) | retransmits 40 ms "
          "| retransmits 120 ms | drops after 20 s | loss episodes | drops per episode | relay late max / frames over 1 ms / lost |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    beside: list[str] = []
    big: list[str] = []
    for name in ("hrf", "reno"):
        sc = cclab.load_scenario(HERE / f"rtt-fairness-{name}.toml")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = cclab.run(sim_scenario(sc)[0], seed=1)
        cc = sc["flows"][0]["cc"]
        row(cc, "sim (stack linux)", 1, sim)
        for i in range(reps):
            for qos in settings:
                Testbed.cpu_latency_qos = qos
                res = cclab.run(sc, seed=1, engine="linux")
                label = f"{i + 1}" + ("" if len(settings) == 1 else (" held" if qos else " not held"))
                if save is not None:
                    res.save(save / f"{name}-{label.replace(' ', '-')}")
                row(cc, "linux", label, res)
                beside.append(spells_beside_losses(cc, label, res))
                big.append(big_episodes_beside_stalls(cc, label, res))
        Testbed.cpu_latency_qos = True
    print(f"\n(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end)\n")
    print("| cc | Linux run | loss episodes after 20 s (time s: drops per 100 ms sample) "
          "| delay line late over 2 ms (time s: worst ms, direction) |")
    print("|---|---:|---|---|")
    print("\n".join(beside))
    print("\n| cc | Linux run | episodes with 10 or more drops | of them after a stall over 3 ms "
          "| each: start (drops; the worst such stall up to 0.3 s before the sample) |")
    print("|---|---:|---:|---:|---|")
    print("\n".join(big))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--gso1", action="store_true")
    ap.add_argument("--idle-qos", choices=("on", "off", "both"), default="on")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--reductions", type=Path, nargs="+", metavar="DIR",
                    help="print which flow reduced its window when, from folders --save wrote")
    a = ap.parse_args()
    if a.reductions:
        reduction_table(a.reductions)
        raise SystemExit(0)
    if a.gso1:
        from cclab.linux.testbed import Testbed

        Testbed.gso_max_segs = 1
        print("\n(sender veth: gso_max_segs 1)")
    main(a.reps, a.save, a.idle_qos)
