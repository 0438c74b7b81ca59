"""docs/linux.md, "RTT fairness: 40 ms against 120 ms": the delay line's stalls added to the simulator.

    PYTHONPATH=python python docs/linux/rtt_fairness_stalls.py [--seeds N] [--stalls MS,MS,...] [--every S]

On Linux the relay (the delay line, which sits before the bottleneck) now and then stops for
milliseconds and then lets out what it held at once, in both directions. This runs the
RTT-fairness scenarios (scenarios/linux/rtt-fairness-{reno,hrf}.toml, as `cclab compare` runs
them: stack = "linux") in the simulator on the same path written as a graph with a relay link
between the senders' router and the bottleneck, and makes that link stall: every ``--every``
seconds it drops for ``MS`` ms to the rate that takes one full packet that long (so the packet it
is sending then ends with the stall) and then goes back to 10 Gbit/s, releasing the rest at once.
A stall of 0 is the dumbbell's path with the relay always fast: the control. For each stall
length it prints, over seeds 1..N, the 120 ms flow's goodput and the loss episodes by their size
with how often each flow reduced its window in them (measure_rtt_fairness.py's rules).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import warnings

import cclab
from cclab import _core
from cclab.linux.compare import sim_scenario
from measure_rtt_fairness import HERE, SIZES, episode_rows

RELAY_BPS = 10e9
PACKET_BITS = 1500 * 8


def stall_steps(stall_ms: float, every_s: float, end_s: float, rate_bps: float) -> list[list[str]]:
    """A stall of ``stall_ms`` every ``every_s`` seconds: the rate that takes one full packet that
    long, then ``rate_bps`` again."""
    steps, t = [], every_s
    while t < end_s:
        steps += [[f"{t:.6f}s", f"{PACKET_BITS / (stall_ms / 1e3):.0f}bps"], [f"{t + stall_ms / 1e3:.6f}s", f"{rate_bps:.0f}bps"]]
        t += every_s
    return steps


def _link(d: dict, src: str, dst: str) -> dict:
    """A graph link with the rate, delay and buffer of the simulator's resolved link ``d``."""
    link = {"from": src, "to": dst, "rate": f"{d['rate_bps']}bps", "delay": f"{d['delay_s']!r}s"}
    if d["queue"]["capacity_pkts"] is not None:
        link["buffer"] = f"{d['queue']['capacity_pkts']}pkts"
    return link


def with_relay(sc: dict, stall_ms: float, every_s: float, bottleneck_too: bool = False) -> dict:
    """The scenario's dumbbell as a graph with a relay link before the bottleneck that stalls for
    ``stall_ms`` every ``every_s`` seconds (none when 0). Every other link is the dumbbell's as the
    simulator resolves it (each flow's access links carry the rest of its `rtt`)."""
    s = copy.deepcopy(sim_scenario(sc)[0])
    sim = _core.Sim(json.dumps(s), 1)
    net = json.loads(sim.network())
    links = net["links"]
    first = net["flows"][0]["path_data"]
    relay = {"from": "r1a", "to": "r1", "rate": f"{RELAY_BPS:.0f}bps", "delay": "0s"}
    bottleneck = _link(links[first[1]], "r1", "r2")
    if stall_ms > 0:
        relay["rate_schedule"] = stall_steps(stall_ms, every_s, sim.duration, RELAY_BPS)
        if bottleneck_too:
            bottleneck["rate_schedule"] = stall_steps(stall_ms, every_s, sim.duration, links[first[1]]["rate_bps"])
    nodes, graph = ["r1a", "r1", "r2"], [relay, bottleneck]
    for i, (g, f) in enumerate(zip(s["flows"], net["flows"])):
        src, dst = f"s{i}", f"d{i}"
        nodes += [src, dst]
        graph += [_link(links[f["path_data"][0]], src, "r1a"), _link(links[f["path_data"][-1]], "r2", dst)]
        del g["rtt"]
        g.update(src=src, dst=dst)
    s["topology"] = {"kind": "graph", "nodes": nodes, "links": graph}
    return s


def main(seeds: int, stalls: list[float], every_s: float, bottleneck_too: bool) -> None:
    for name in ("reno", "hrf"):
        sc = cclab.load_scenario(HERE / f"rtt-fairness-{name}.toml")
        cc = sc["flows"][0]["cc"]
        print(f"\n{cc}, seeds 1-{seeds}, a stall every {every_s:g} s\n")
        print("| relay stall | 120 ms flow (Mbit/s): mean (range) | 40 ms flow (Mbit/s): mean | drops per episode "
              "| episodes: 1-3 drops (120 ms flow reduced) | 4-9 | 10 or more |")
        print("|---|---|---:|---:|---|---|---|")
        for stall in stalls:
            g0, g1, eps = [], [], []
            for seed in range(1, seeds + 1):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = cclab.run(with_relay(sc, stall, every_s, bottleneck_too), seed=seed)
                f = res.flows.set_index("flow")
                g0.append(f.loc[0, "goodput_bps"] / 1e6)
                g1.append(f.loc[1, "goodput_bps"] / 1e6)
                eps += episode_rows(res, link=int(res.links.set_index("name").loc["r1->r2", "link"]))
            cells = []
            for lo, hi in SIZES:
                sel = [e for e in eps if lo <= e[1] <= hi]
                cells.append(f"{len(sel)} ({sum(e[3] for e in sel) / len(sel):.2f})" if sel else "0")
            per = sum(e[1] for e in eps) / len(eps) if eps else 0.0
            print(f"| {stall:g} ms | {statistics.mean(g1):.1f} ({min(g1):.1f}-{max(g1):.1f}) "
                  f"| {statistics.mean(g0):.1f} | {per:.1f} | {' | '.join(cells)} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--stalls", default="0,5,10,20", help="stall lengths in ms, comma-separated")
    ap.add_argument("--every", type=float, default=1.0, help="seconds between stalls")
    ap.add_argument("--bottleneck-too", action="store_true",
                    help="the bottleneck stalls with the relay (the whole machine stopped, not the relay alone)")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error(f"--seeds: invalid value {a.seeds}; accepted: a whole number >= 1")
    try:
        stalls = [float(x) for x in a.stalls.split(",")]
    except ValueError:
        ap.error(f"--stalls: invalid value {a.stalls!r}; accepted: stall lengths in ms, comma-separated")
    if any(s < 0 for s in stalls) or a.every <= max(stalls) / 1e3:
        ap.error(f"--stalls/--every: invalid values {a.stalls!r}/{a.every}; accepted: stalls >= 0 ms, "
                 "each shorter than the time between them")
    main(a.seeds, stalls, a.every, a.bottleneck_too)
