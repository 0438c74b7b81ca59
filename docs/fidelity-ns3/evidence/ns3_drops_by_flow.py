"""Evidence for docs/fidelity.md (24-cubic-four under `stack = "linux"`): the bottleneck's drops
of each flow in both simulators, per time bin, for one seed, with cclab's start times and
timeouts. ns-3's side runs ns3_crosscheck.cc with ns3_trace_queue.patch applied (as
ns3_recovery_pipe.py does), which prints each drop with its sender's address: flow i of a
translated dumbbell sends from 10.0.0.(5 + 8 i).

    PYTHONPATH=python python docs/fidelity-ns3/evidence/ns3_drops_by_flow.py SCENARIO [SEED [BIN_S]]
"""

import collections
import sys
import tomllib

import cclab
from cclab.crosscheck.matrix import with_stack
from ns3_recovery_pipe import ns3_trace


def main(scenario, seed="1", width="0.5"):
    seed, width = int(seed), float(width)
    sc = with_stack(tomllib.load(open(scenario, "rb")), "linux")
    n3 = collections.Counter()
    for line in ns3_trace(sc, seed).splitlines():
        w = line.split()
        if len(w) >= 4 and w[1] == "drop":
            n3[(int(float(w[0]) / width), (int(w[3].split(".")[-1]) - 5) // 8)] += 1
    r = cclab.run(sc, seed=seed, trace={"links": ["bottleneck"]})
    p = r.packets
    cc = collections.Counter()
    for t, ev, kind, flow in zip(p.time_s, p.event, p.kind, p.flow):
        if ev == "drop" and kind == "data":
            cc[(int(t / width), int(flow))] += 1
    n = len(r.flows)
    print(f"seed {seed}: flows start at {', '.join(f'{s:.3f}' for s in r.flows.start_s)} s; "
          f"cclab's timeouts {list(r.flows.timeouts)}")
    print(f"{'from':>6} | ns-3's drops of flows 0..{n - 1} | cclab's")
    for b in sorted({k[0] for k in n3} | {k[0] for k in cc}):
        print(f"{b * width:6.2f} | " + " ".join(f"{n3[(b, f)]:4d}" for f in range(n)) + " | "
              + " ".join(f"{cc[(b, f)]:4d}" for f in range(n)))


if __name__ == "__main__":
    main(*sys.argv[1:4])
