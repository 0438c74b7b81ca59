"""Evidence for docs/fidelity.md (21-sack-ared-rtt-mix under `stack = "linux"`): where the start-up's
extra drops come from. Flow 0 (a 40 ms flow) of seed 1, every 50 ms of the first second: what it
sends (and how much of it is resent), what the bottleneck drops of it, and ns-3's own record of its
sent list (SACKed, lost, retransmitted, in flight, in segments), beside cclab's with and without
ns-3's count of a SACKed retransmission (`sacked_retx_in_pipe`).

ns-3's side runs ns3_crosscheck.cc with ns3_trace_queue.patch applied (in a temporary folder; the
patch prints those records on stderr with CCLAB_NS3_TRACE=1), so it needs ns-3 and a compiler.
Another dumbbell scenario may be given (flow 0's sender is 10.0.0.5 in any translated dumbbell:
the bottleneck's pair of links is numbered first, flow 0's access pair next).

    PYTHONPATH=python python docs/fidelity-ns3/evidence/ns3_recovery_pipe.py [SCENARIO]
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns3
from cclab.crosscheck.matrix import with_stack

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parents[2] / "scenarios/crosscheck/evidence/ns3/21-sack-ared-rtt-mix-per-ack-dupthresh.toml"
BINS = [round(0.30 + 0.05 * k, 2) for k in range(16)]


def _bin(t):
    for lo in reversed(BINS):
        if t >= lo:
            return lo if t < lo + 0.05 else None
    return None


def ns3_trace(sc, seed=1):
    """What the patched ns-3 prints on stderr for the scenario's run ``seed``."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "ns3_crosscheck.cc"
        for f in [*ns3.SOURCE.parent.glob("ns3_*.cc"), *ns3.SOURCE.parent.glob("ns3_*.h")]:
            shutil.copy(f, tmp)
        subprocess.run(["patch", "-s", "-p4", str(src), str(HERE / "ns3_trace_queue.patch")], check=True)
        exe = ns3.binary(source=src, name="ns3-trace")
        sim = _core.Sim(json.dumps(sc), seed)
        net = json.loads(sim.network())
        text = ns3.script(net, sim.duration, float(net["warmup_s"]), seed)
        return subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                              env={**os.environ, "CCLAB_NS3_TRACE": "1"}).stderr


def ns3_side(sc, seed=1):
    # ns-3 counts its sent list in bytes of its segment payload (the description's).
    sim = _core.Sim(json.dumps(sc), seed)
    net = json.loads(sim.network())
    text = ns3.script(net, sim.duration, float(net["warmup_s"]), seed)
    mss = int(re.search(r"tcp\.SegmentSize=(\d+)", text).group(1))
    err = ns3_trace(sc, seed)
    sent, resent, dropped, board = collections.Counter(), collections.Counter(), collections.Counter(), {}
    for line in err.splitlines():
        w = line.split()
        if len(w) < 3:
            continue
        t, kind = float(w[0]), w[1]
        b = _bin(t)
        if kind == "tx" and b is not None:
            sent[b] += 1
            resent[b] += int(w[3])
        elif kind == "drop" and b is not None and w[3] == "10.0.0.5":  # flow 0's sender
            dropped[b] += 1
        elif kind == "txbuf":
            v = dict(zip(w[2::2], w[3::2]))
            board[round(t, 2)] = (int(v["sacked"]) // mss, int(v["lost"]) // mss, int(v["retrans"]) // mss,
                                  int(v["inflight"]))
    return sent, resent, dropped, board


def cclab_side(sc, seed=1):
    r = cclab.run(sc, seed=seed, trace={"flows": [0], "links": ["bottleneck"]})
    p = r.packets
    sent, resent, dropped = collections.Counter(), collections.Counter(), collections.Counter()
    for t, ev, kind, retx in zip(p.time_s, p.event, p.kind, p.retx):
        b = _bin(t)
        if b is None or kind != "data":
            continue
        if ev == "send":
            sent[b] += 1
            resent[b] += int(retx)
        elif ev == "drop":
            dropped[b] += 1
    s = r.sender
    board = {}
    for lo in BINS:
        at = s[s.time_s <= lo + 0.05]
        board[lo] = int(at.in_flight.iloc[-1]) if len(at) else 0
    return sent, resent, dropped, board, int(r.queues.drops.iloc[0])


def main(scenario=DEFAULT):
    base = with_stack(tomllib.load(open(scenario, "rb")), "linux")
    kept = json.loads(json.dumps(base))
    for g in kept["flows"]:
        g["sacked_retx_in_pipe"] = True
    n_sent, n_resent, n_drop, n_board = ns3_side(base)
    sides = {"cclab": cclab_side(base), "cclab, sacked_retx_in_pipe": cclab_side(kept)}
    print(f"{Path(scenario).stem}, seed 1, flow 0 per 50 ms: sent (resent) / dropped at the bottleneck / in flight at the end")
    print(f"{'from':>5} | {'ns-3':>19} | {'cclab':>19} | {'cclab, kept':>19} | ns-3's sent list at the end: SACKed, lost, retransmitted")
    for lo in BINS:
        end = round(lo + 0.05, 2)
        # ns-3's sent list is printed from 0.4 s to 1 s only.
        flight = f"{n_board[end][3]:3d}" if end in n_board else "  -"
        row = [f"{n_sent[lo]:4d} ({n_resent[lo]:3d}) / {n_drop[lo]:3d} / {flight}"]
        for s, r, d, b, _ in sides.values():
            row.append(f"{s[lo]:4d} ({r[lo]:3d}) / {d[lo]:3d} / {b[lo]:3d}")
        board = ", ".join(str(v) for v in n_board[end][:3]) if end in n_board else "-"
        print(f"{lo:5.2f} | " + " | ".join(row) + f" | {board}")
    # The spans docs/fidelity.md quotes: the start-up overshoot and its repair, then the recovery.
    for lo, hi in ((0.30, 0.60), (0.60, 0.80)):
        span = [b for b in BINS if lo <= b < hi]
        tot = [f"ns-3 {sum(n_sent[b] for b in span)} ({sum(n_resent[b] for b in span)}) / "
               f"{sum(n_drop[b] for b in span)}"]
        for name, (s, r, d, *_) in sides.items():
            tot.append(f"{name} {sum(s[b] for b in span)} ({sum(r[b] for b in span)}) / {sum(d[b] for b in span)}")
        print(f"[{lo:.2f}, {hi:.2f}) s, sent (resent) / dropped: " + "; ".join(tot))
    for name, (*_, drops) in sides.items():
        print(f"{name}: {drops} drops at the bottleneck over the run")


if __name__ == "__main__":
    main(*sys.argv[1:2])
