"""Evidence for docs/fidelity.md (27-cubic-ten-red under `stack = "linux"`): flow 0's fast
recoveries in both simulators over the steady state (10-30 s) of one seed, each as its start
time and the window (segments) on entering it and on leaving it, from ns-3's own traces of the
flow's window and state (ns3_crosscheck.cc prints them with CCLAB_NS3_TRACE=1) and cclab's
sender trace.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/ns3_cubic_epochs.py SCENARIO [SEED]
"""

import json
import os
import re
import subprocess
import sys
import tomllib

import cclab
from cclab import _core
from cclab.crosscheck import ns3
from cclab.crosscheck.matrix import with_stack

SPAN = (10.0, 30.0)


def ns3_recoveries(sc, seed):
    sim = _core.Sim(json.dumps(sc), seed)
    net = json.loads(sim.network())
    text = ns3.script(net, sim.duration, float(net["warmup_s"]), seed)
    mss = int(re.search(r"tcp\.SegmentSize=(\d+)", text).group(1))
    err = subprocess.run([str(ns3.binary())], input=text, capture_output=True, text=True,
                         env={**os.environ, "CCLAB_NS3_TRACE": "1"}).stderr
    cwnd, entry, out = 0.0, None, []
    for line in err.splitlines():
        w = line.split()
        if len(w) != 3:
            continue
        t = float(w[0])
        if w[1] == "cwnd":
            cwnd = int(w[2]) / mss
        elif w[1] == "state" and w[2] == "CA_RECOVERY" and SPAN[0] <= t <= SPAN[1]:
            entry = (t, cwnd)
        elif w[1] == "state" and w[2] == "CA_OPEN" and entry:
            out.append((*entry, cwnd))
            entry = None
    return out


def cclab_recoveries(sc, seed):
    s = cclab.run(sc, seed=seed, trace={"flows": [0]}).sender
    out, entry, prev, last = [], None, "open", 0.0
    for t, w, state in zip(s.time_s, s.cwnd, s.ca_state):
        if state == "recovery" and prev != "recovery" and SPAN[0] <= t <= SPAN[1]:
            entry = (t, last)
        if state == "open" and prev == "recovery" and entry:
            out.append((*entry, w))
            entry = None
        prev, last = state, w
    return out


def main(scenario, seed="1"):
    sc = with_stack(tomllib.load(open(scenario, "rb")), "linux")
    for name, eps in (("ns-3", ns3_recoveries(sc, int(seed))), ("cclab", cclab_recoveries(sc, int(seed)))):
        print(f"{name}: {len(eps)} fast recoveries of flow 0 in {SPAN[0]:g}-{SPAN[1]:g} s (start: window in -> out): "
              + " ".join(f"{t:.2f}: {a:.0f} -> {b:.0f}" for t, a, b in eps))


if __name__ == "__main__":
    main(*sys.argv[1:3])
