"""Evidence for docs/fidelity.md (the `ns2` profile's delayed send): what five Reno flows offer
the bottleneck in their start-up, in ns-2 and in cclab's `ns2` profile, from a trace of the
bottleneck's queue over the first 0.55 s of each seed (16-reno-small-buffer-overhead: a
20-packet DropTail buffer, up to 1 ms of send overhead).

For each simulator it prints the packets that arrived at the queue, the drops, the drops of a
DropTail queue of 20 waiting packets replayed from those arrivals (equal to the drops: the
queues agree, so a difference lies in what the senders offered), and, summed over the flows,
the new packets a flow sent between its first drop and its fast retransmit and the drops
among them.

    PYTHONPATH=python python docs/fidelity/evidence/ns2_offered_load.py [seeds]
"""

import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns2

HERE = Path(__file__).resolve().parents[3]
SCENARIO = HERE / "scenarios" / "crosscheck" / "evidence" / "ns2" / "16-reno-small-buffer-overhead.toml"
SPAN = 0.55  # s: the slow-start overshoot and the recoveries that follow it
SERVICE = 1500 * 8 / 100e6  # s per packet at the bottleneck


def ns2_arrivals(sc, seed):
    """(event, time, flow, seq) at the bottleneck queue: "+" arrivals (dropped ones too), "d" drops."""
    net = json.loads(_core.Sim(json.dumps(sc), seed).network())
    with tempfile.TemporaryDirectory() as tmp:
        tr = Path(tmp) / "q.tr"
        tcl = ns2.script(net, SPAN, 0.0, seed)
        tcl = tcl.replace("$ns run", f"set tf [open {tr} w]\n$ns trace-queue $n(0) $n(1) $tf\n"
                          f"$ns at {SPAN - 1e-4} \"flush $tf\"\n$ns run")
        subprocess.run(["ns", "/dev/stdin"], input=tcl, capture_output=True, text=True, timeout=600, check=True)
        rows = [line.split() for line in tr.read_text().splitlines()]
    # A sender on node 2 + 2i is flow i (ns2.script's numbering).
    return [(r[0], float(r[1]), (int(r[8].split(".")[0]) - 2) // 2, int(r[10]))
            for r in rows if r[4] == "tcp" and r[0] in "+d"]


def cclab_arrivals(sc, seed):
    pk = cclab.run(sc, seed=seed, trace={"links": ["bottleneck"]}).packets
    pk = pk[pk.kind == "data"]
    out = []
    for e, t, f, s in zip(pk.event, pk.time_s, pk.flow, pk.seq):
        if e == "drop":  # a dropped packet arrived too
            out += [("+", t, f, s), ("d", t, f, s)]
        elif e == "enqueue":
            out.append(("+", t, f, s))
    return out


def replay(arrivals, limit=20):
    """Drops of a DropTail queue of `limit` waiting packets (and one in service) fed `arrivals`."""
    done, drops = collections.deque(), 0
    for t in arrivals:
        while done and done[0] <= t:
            done.popleft()
        if len(done) > limit:
            drops += 1
            continue
        done.append(max(t, done[-1] if done else t) + SERVICE)
    return drops


def tally(trace, tot):
    arrivals = [t for e, t, _, _ in trace if e == "+"]
    tot["arrivals"] += len(arrivals)
    tot["drops"] += sum(e == "d" for e, *_ in trace)
    tot["replayed drops"] += replay(arrivals)
    seen, first_drop, fast_rexmit = collections.defaultdict(set), {}, {}
    for e, t, f, s in trace:
        if e == "+":
            if s in seen[f]:
                fast_rexmit.setdefault(f, t)
            elif f in first_drop and f not in fast_rexmit:
                tot["sent between first drop and fast retransmit"] += 1
            seen[f].add(s)
        elif f not in first_drop:
            first_drop[f] = t
        elif f not in fast_rexmit:
            tot["dropped between first drop and fast retransmit"] += 1


sc = cclab.load_scenario(SCENARIO)
sc.update(duration=f"{SPAN}s", warmup="0s")
for g in sc["flows"]:
    g["stack"] = "ns2"
seeds = range(1, int(sys.argv[1]) + 1 if len(sys.argv) > 1 else 13)
totals = {"ns-2": collections.Counter(), "cclab ns2": collections.Counter()}
for seed in seeds:
    tally(ns2_arrivals(sc, seed), totals["ns-2"])
    tally(cclab_arrivals(sc, seed), totals["cclab ns2"])
print(f"{SCENARIO.stem}, first {SPAN} s, seeds {seeds.start}-{seeds.stop - 1}, summed")
print("| | " + " | ".join(totals) + " |\n|---|" + "---:|" * len(totals))
for k in totals["ns-2"]:
    print(f"| {k} | " + " | ".join(str(t[k]) for t in totals.values()) + " |")
