"""docs/linux.md, "RTT fairness on Linux": paper 001's 40 ms against 120 ms point, run by run.

    sudo PYTHONPATH=python python docs/linux/measure_rtt_fairness.py [--reps N] [--gso1] [--save DIR]
        [--idle-qos on|off|both]
    PYTHONPATH=python python docs/linux/measure_rtt_fairness.py --reductions DIR [DIR ...]
    PYTHONPATH=python python docs/linux/measure_rtt_fairness.py --episodes [DIR ...] [--sim-seeds N]

`cclab compare` gives means and ranges; this prints each run: both flows' goodput over
[warmup, end] and their difference |Thr1 - Thr2| (the paper's measure), each flow's
retransmissions, the bottleneck's drops and loss episodes (100 ms samples with a drop, merged
when less than 0.3 s apart) after the warmup with the drops per episode, and the delay line's
lateness and losses; then, per Linux run, the loss episodes beside the times the delay line
woke more than 2 ms late. ``--episodes`` (from the folders ``--save`` wrote, and from the
simulator over ``--sim-seeds`` seeds) lists which flows reduced their window in each loss
episode, and how often each flow took part by the episode's size. The simulator runs the scenarios as `cclab compare` does (stack =
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


def episodes(res: cclab.Result, gap: float = 0.3, link: int | None = None) -> list[tuple[float, int]]:
    """Loss episodes after the warmup at the bottleneck (``link``, else the first queue sampled):
    (first 100 ms sample with a drop, drops), samples less than ``gap`` apart in one episode."""
    q = res.queue_series
    q = q[q.link == (q.link.iloc[0] if link is None else link)].set_index("time_s").drops.diff().fillna(0)
    out: list[tuple[float, int]] = []
    last = -1e9
    for t, d in q[(q > 0) & (q.index > WARMUP)].items():
        if t - last < gap:
            out[-1] = (out[-1][0], out[-1][1] + int(d))
        else:
            out.append((float(t), int(d)))
        last = t
    return out


def loss_episodes(res: cclab.Result, gap: float = 0.3) -> list[int]:
    """Bottleneck drops per loss episode after the warmup."""
    return [d for _, d in episodes(res, gap)]


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


# A flow takes part in an episode when it reduces within [start - 0.1 s, start + 0.6 s]: its loss
# is noticed a round trip (at most 120 ms plus ~40 ms of queue) after the drop, and `reductions`
# sees a fall 0.2 s wide; episodes are at least 7 s apart here, so none is counted twice.
TAKES_PART = (-0.1, 0.6)
SIZES = ((1, 3), (4, 9), (10, 10**9))


def episode_rows(res: cclab.Result, link: int | None = None) -> list[tuple[float, int, bool, bool]]:
    """Each loss episode after the warmup (at ``link``, as ``episodes``): start, drops, whether
    the 40 ms and the 120 ms flow reduced their window in it."""
    r0, r1 = reductions(res, 0), reductions(res, 1)
    lo, hi = TAKES_PART
    return [(t, d, any(t + lo <= x <= t + hi for x in r0), any(t + lo <= x <= t + hi for x in r1))
            for t, d in episodes(res, link=link)]


def episode_table(folders: list[Path], sim_seeds: int) -> None:
    """Per engine, pooled over runs: the loss episodes by size, and in how many of them each
    flow reduced its window; then the 120 ms flow's goodput and episodes taken part in, run by run."""
    for name in ("reno", "hrf"):
        sc = cclab.load_scenario(HERE / f"rtt-fairness-{name}.toml")
        runs: list[tuple[str, str, cclab.Result]] = []
        for seed in range(1, sim_seeds + 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs.append(("sim (stack linux)", f"seed {seed}", cclab.run(sim_scenario(sc)[0], seed=seed)))
        runs += [("linux", f"{d.name}/{r.name}", cclab.load(r)) for d in folders for r in sorted(d.glob(f"{name}-*"))]
        cc = sc["flows"][0]["cc"]
        print(f"\n{cc}: run by run\n\n| engine | run | 120 ms flow (Mbit/s) | loss episodes | drops per episode "
              f"| episodes the 40 ms flow reduced in | episodes the 120 ms flow reduced in |\n|---|---|---:|---:|---:|---:|---:|")
        pooled: dict[str, list[tuple[float, int, bool, bool]]] = {}
        for engine, run, res in runs:
            ep = episode_rows(res)
            pooled.setdefault(engine, []).extend(ep)
            g1 = res.flows.set_index("flow").loc[1, "goodput_bps"] / 1e6
            per = sum(d for _, d, _, _ in ep) / len(ep) if ep else 0.0
            print(f"| {engine} | {run} | {g1:.1f} | {len(ep)} | {per:.1f} | {sum(a for *_, a, _ in ep)} "
                  f"| {sum(b for *_, b in ep)} |")
        print(f"\n{cc}: episodes pooled over the runs above, by their drops\n\n| engine | drops in the episode "
              f"| episodes | the 40 ms flow reduced | the 120 ms flow reduced |\n|---|---|---:|---:|---:|")
        for engine, ep in pooled.items():
            for lo, hi in SIZES:
                sel = [e for e in ep if lo <= e[1] <= hi]
                if not sel:
                    continue
                a, b = sum(e[2] for e in sel), sum(e[3] for e in sel)
                label = f"{lo}-{hi}" if hi < 10**9 else f"{lo} or more"
                print(f"| {engine} | {label} | {len(sel)} | {a} ({a / len(sel):.2f}) | {b} ({b / len(sel):.2f}) |")


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
    spells = getattr(res, "linux_relay_late_spells", [])
    cells, beside = [], 0
    for start, drops in episodes(res):
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
    ap.add_argument("--episodes", type=Path, nargs="*", metavar="DIR",
                    help="print which flows reduced in each loss episode, by its size, from folders --save wrote "
                         "and from the simulator over --sim-seeds seeds")
    ap.add_argument("--sim-seeds", type=int, default=10)
    a = ap.parse_args()
    if a.sim_seeds < 1:
        ap.error(f"--sim-seeds: invalid value {a.sim_seeds}; accepted: a whole number >= 1")
    if a.episodes is not None:
        episode_table(a.episodes, a.sim_seeds)
        raise SystemExit(0)
    if a.reductions:
        reduction_table(a.reductions)
        raise SystemExit(0)
    if a.gso1:
        from cclab.linux.testbed import Testbed

        Testbed.gso_max_segs = 1
        print("\n(sender veth: gso_max_segs 1)")
    main(a.reps, a.save, a.idle_qos)
