"""Evidence for docs/fidelity.md (29-vegas-one-sack under `stack = "linux"`): what ns-3's TcpVegas
decides, from its own log. Runs the cross-check's ns-3 program on the scenario's seed-1
description with ``NS_LOG=TcpVegas=level_all|prefix_time`` and prints, for the first flow: the
RTT it was handed on each ACK (ns-3 passes the smoothed RTT, `m_lastRtt`), the decision that
ended slow start (time, window, baseRTT, the round's minimum, targetCwnd and diff as ns-3
computes them in whole segments), the largest RTT handed to it before then, how often each diff
was computed over the run, the RTT handed to it after 5 s, and the window at the end.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/ns3_vegas_log.py [SCENARIO]

(default: scenarios/crosscheck/evidence/ns3/29-vegas-one-sack-handshake.toml; it needs ns-3 and a
compiler, as `cclab crosscheck --with ns3` does.)
"""

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns3
from cclab.crosscheck.matrix import with_stack

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parents[2] / "scenarios/crosscheck/evidence/ns3/29-vegas-one-sack-handshake.toml"
LINE = re.compile(r"^\+([0-9.]+)s TcpVegas:(.*)$")
TIME = re.compile(r"\+([0-9.]+(?:e[+-]?[0-9]+)?)ns")


def _ms(msg):
    """The last ns-3 Time in a log message ("+3.0125e+07ns"), in ms."""
    return float(TIME.findall(msg)[-1]) / 1e6


def ns3_log(sc, seed=1):
    """ns-3's TcpVegas log (stderr) for the scenario's run ``seed``."""
    sim = _core.Sim(json.dumps(sc), seed)
    net = json.loads(sim.network())
    text = ns3.script(net, sim.duration, float(net["warmup_s"]), seed)
    env = {**os.environ, "NS_LOG": "TcpVegas=level_all|prefix_time"}
    return subprocess.run([str(ns3.binary())], input=text, capture_output=True, text=True, env=env).stderr


def main(path):
    sc = with_stack(cclab.load_scenario(path), "linux")
    log = ns3_log(sc)
    first = None  # the first flow's socket: the first PktsAcked's object
    rtts, diffs, exit_at, cwnd, last = [], collections.Counter(), None, None, {}
    for line in log.splitlines():
        m = LINE.match(line)
        if not m:
            # Messages logged without the component prefix (NS_LOG_INFO and the like).
            m2 = re.match(r"^\+([0-9.]+)s (.*)$", line)
            if not m2 or first is None or not last.get("mine"):
                continue
            t, msg = float(m2.group(1)), m2.group(2)
        else:
            t, msg = float(m.group(1)), m.group(2)
        if msg.startswith("PktsAcked("):
            obj = msg[len("PktsAcked("):].split(",")[0]
            first = first or obj
            last["mine"] = obj == first
            if last["mine"]:
                rtts.append((t, _ms(msg)))
        elif msg.startswith("IncreaseWindow(") or msg.startswith("GetSsThresh("):
            last["mine"] = first is not None and msg.split("(")[1].split(",")[0] == first
        elif not last.get("mine"):
            continue
        elif msg.startswith("Updated m_minRtt"):
            last["min"] = _ms(msg)
        elif msg.startswith("Updated m_baseRtt"):
            last["base"] = _ms(msg)
        elif msg.startswith("Calculated targetCwnd"):
            last["target"] = int(msg.rsplit("=", 1)[1])
        elif msg.startswith("Calculated diff"):
            d = int(msg.rsplit("=", 1)[1])
            diffs[d] += 1
            last["diff"] = d
        elif msg.startswith("We are going too fast") and exit_at is None:
            exit_at = (t, last.get("base"), last.get("min"), last.get("target"), last.get("diff"))
        elif msg.startswith("Updated cwnd"):
            cwnd = (t, int(re.search(r"cwnd = (\d+)", msg).group(1)))
    seg = ns3.payload(json.loads(_core.Sim(json.dumps(sc), 1).network())["flows"][0])
    print(f"{path}: ns-3's TcpVegas, flow 0, seed 1 ({len(rtts)} PktsAcked)")
    if exit_at:
        t, base, mn, target, diff = exit_at
        before = [r for s, r in rtts if s <= t]
        print(f"  left slow start at {t:.3f} s: baseRTT {base} ms, round minimum {mn} ms, targetCwnd {target}, "
              f"diff {diff}; largest RTT handed to it before then {max(before):.2f} ms")
    print(f"  diff over the run: {dict(sorted(diffs.items()))}")
    late = sorted(r for t, r in rtts if t >= 5.0)
    if late:
        print(f"  RTT handed to it after 5 s: median {late[len(late) // 2]:.3f} ms, "
              f"10th-90th percentile {late[len(late) // 10]:.3f}-{late[len(late) * 9 // 10]:.3f} ms")
    if cwnd:
        print(f"  last window change at {cwnd[0]:.3f} s: cwnd {cwnd[1]} bytes ({cwnd[1] / seg:.0f} segments of {seg} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(DEFAULT))
