"""Why ns-3's one-flow slow start (02-newreno-one under `stack = "linux"`) overflows the
bottleneck a round later than cclab's (docs/fidelity.md, "02-newreno-one and 03-sack-one").

For each run it prints the ACK trains that reach flow 0's sender in each round trip of the
slow start (a gap of more than 5 ms between two ACKs starts a train; the round trip is the
path's 60 ms) and the ACKs in each train, the time of the first loss recovery, the window then,
and the run's retransmitted packets. The runs: ns-3 as translated (its delayed-ACK timer at 40 ms, the
profile's); ns-3 with that timer at 1 ms, so that a train's odd last segment is acknowledged at
once instead of 40 ms later; cclab under the `linux` profile, as it is, with ns-3's count of
one segment per ACK in slow start (`ack_counting = "per-ack"`), then also without Linux's quick
ACKs at the start (ns-3 has none), then also with ns-3's handshake.

ns-3's side runs the cross-check's own program (python/cclab/crosscheck/ns3_crosscheck.cc) with
`CCLAB_NS3_TRACE=1`, which prints flow 0's window on each ACK; it needs ns-3 and a compiler.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/ns3_ack_trains.py [SEED]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns3
from cclab.crosscheck.matrix import with_stack

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "crosscheck" / "02-newreno-one.toml"
RTT = 0.060
GAP = 0.005


def trains(acks: list[float], until: float) -> list[tuple[float, int]]:
    """The ACK trains before ``until``: when each begins and how many ACKs it holds."""
    out: list[tuple[float, int]] = []
    for i, t in enumerate(acks):
        if t >= until:
            break
        if i == 0 or t - acks[i - 1] > GAP:
            out.append((t, 0))
        out[-1] = (out[-1][0], out[-1][1] + 1)
    return out


def per_round(train_list: list[tuple[float, int]], until: float) -> list[int]:
    """How many trains begin in each round trip [k RTT, (k + 1) RTT) before ``until``."""
    rounds = [0] * (int(until / RTT) + 1)
    for start, _ in train_list:
        rounds[int(start / RTT)] += 1
    return rounds


def ns3_run(text: str, delack: str | None) -> tuple[list[float], float, float, int]:
    if delack is not None:
        text = text.replace("tcp.DelAckTimeout=0.04s", f"tcp.DelAckTimeout={delack}")
    p = subprocess.run([str(ns3.binary())], input=text, capture_output=True, text=True, check=True,
                       env={**os.environ, "CCLAB_NS3_TRACE": "1"})
    mss = int(text.split("tcp.SegmentSize=")[1].split()[0])
    acks, recovery, cwnd_then, last = [], None, 0.0, 0.0
    for line in p.stderr.splitlines():
        w = line.split()
        if len(w) == 3 and w[1] == "cwnd" and recovery is None:
            acks.append(float(w[0]))
            last = int(w[2]) / mss
        elif len(w) == 3 and w[1] == "state" and w[2] == "CA_RECOVERY" and recovery is None:
            recovery, cwnd_then = float(w[0]), last
    end = ns3.parse(p.stdout)["E"]["flows"][0]
    return acks, recovery, cwnd_then, int(end[ns3.RETRANSMITS])


def cclab_run(sc: dict, seed: int) -> tuple[list[float], float, float, int]:
    retx = int(cclab.run(sc, seed=seed).flows.retransmits.iloc[0])
    r = cclab.run({**sc, "duration": "2s", "warmup": "0s"}, seed=seed, trace={"flows": [0]})  # the slow start
    p = r.packets
    acks = p[(p.kind == "ack") & (p.event == "deliver")].time_s.tolist()
    fast = p[(p.event == "send") & (p.retx.astype(bool))]
    recovery = float(fast.time_s.iloc[0]) if len(fast) else float("nan")
    ts = r.timeseries("flows")
    before = ts[(ts.flow == 0) & (ts.time_s < recovery)]
    cwnd = float(before.cwnd.max()) if len(before) else float("nan")
    return acks, recovery, cwnd, retx


def with_(sc: dict, fields: dict) -> dict:
    return {**sc, "flows": [{**g, **fields} for g in sc["flows"]]}


def main(argv: list[str]) -> int:
    seed = int(argv[0]) if argv else 1
    warnings.simplefilter("ignore")
    sc = with_stack(cclab.load_scenario(SCENARIO), "linux")
    sc["sample_interval"] = "1ms"
    per = {"ack_counting": "per-ack"}
    sim = _core.Sim(json.dumps(sc), seed)
    net = json.loads(sim.network())
    text = ns3.script(net, sim.duration, float(net["warmup_s"]), seed)
    runs = [("ns-3, delayed-ACK timer 40 ms", ns3_run(text, None)),
            ("ns-3, delayed-ACK timer 1 ms", ns3_run(text, "0.001s")),
            ("cclab, linux profile", cclab_run(sc, seed)),
            ("cclab, linux profile, ns-3's count (ack_counting = per-ack)", cclab_run(with_(sc, per), seed)),
            ("cclab, the same without quick ACKs at the start (quickacks = 0)",
             cclab_run(with_(sc, {**per, "quickacks": 0}), seed)),
            ("cclab, the same with ns-3's handshake (handshake = true)",
             cclab_run(with_(sc, {**per, "quickacks": 0, "handshake": True}), seed))]
    print(f"02-newreno-one under the linux profile, seed {seed}: flow 0's ACK trains per round trip "
          f"({RTT * 1000:.0f} ms) until its first recovery")
    for name, (acks, recovery, cwnd, retx) in runs:
        found = trains(acks, recovery)
        print(f"- {name}: first recovery at {recovery:.3f} s with a window of {cwnd:.0f} packets; "
              f"{retx} retransmitted packets in the run")
        print("  trains per round: " + " ".join(str(n) for n in per_round(found, recovery)))
        print("  ACKs per train: " + " ".join(str(n) for _, n in found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
