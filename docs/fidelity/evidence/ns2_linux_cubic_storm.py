"""Evidence for docs/fidelity.md (CUBIC against ns-2.35's Agent/TCP/Linux): 24-cubic-four with
ns-2's own CUBIC constants (`variant = 1`: beta 0.8, ns-2's default 819/1024), seed 1, run in ns-2
with each flow's window, retransmitted packets and timeouts printed every half second. The first
flow's slow-start overshoot ends in a storm of retransmissions at the rate of its 1 Gbit/s access
link, many times its window, with no timeout, while the window falls by 0.8 at a time; the other
flows time out behind it. With beta 0.7 (717) the storm does not come.

    PYTHONPATH=python python docs/fidelity/evidence/ns2_linux_cubic_storm.py [beta [scenario]]

With a scenario of scenarios/crosscheck/ (`27-cubic-ten-red`) and beta `-` (the scenario's
own), it prints the same for that scenario, and cclab's totals (the `ns2` profile) beside ns-2's.
"""

import json
import subprocess
import sys
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns2

HERE = Path(__file__).resolve().parents[3]
name = sys.argv[2] if len(sys.argv) > 2 else "24-cubic-four"
sc = cclab.load_scenario(HERE / "scenarios" / "crosscheck" / f"{name}.toml")
beta = sys.argv[1] if len(sys.argv) > 1 else "0.8"
for g in sc["flows"]:
    g["stack"] = "ns2"
    if beta != "-":
        g["cc_params"] = {"variant": 1, "beta": float(beta)}
net = json.loads(_core.Sim(json.dumps(sc), 1).network())
tcl = ns2.script(net, 30.0, 10.0, 1)
n = len(net["flows"])
probe = ("proc probe {} { global ns tcp\n  set s \"[format %.1f [$ns now]]\"\n"
         f"  for {{set i 0}} {{$i < {n}}} {{incr i}} "
         "{ append s \" [format %.0f [$tcp($i) set cwnd_]] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_]\" }\n"
         "  puts stderr $s\n  $ns at [expr {[$ns now] + 0.5}] \"probe\" }\n$ns at 0.0 \"probe\"\n")
tcl = tcl.replace("$ns run", probe + "$ns run")
out = subprocess.run(["ns", "/dev/stdin"], input=tcl, capture_output=True, text=True, timeout=600)
rows = [line.split() for line in out.stderr.splitlines() if line[:1].isdigit()]
starts = [f"{f['start_s']:.2f} s" for f in net["flows"]]
print(f"{name}, beta {beta}: flows start at {', '.join(starts)}; per flow: window, retransmitted packets, timeouts")
if n <= 4:
    print("time_s " + " ".join(f"| w{i} rexmit{i} rto{i}" for i in range(n)))
    for r in rows:
        if float(r[0]) <= 8.0:
            print(r[0].rjust(6) + " " + " ".join("| " + " ".join(r[1 + 3 * i:4 + 3 * i]) for i in range(n)))
# Totals over the flows, ns-2 beside cclab's `ns2` profile (the same scenario, seed 1, run to each time).
marks = [t for t in (1.0, 2.0, 4.0, 10.0, 20.0) if t < float(str(sc["duration"]).rstrip("s"))]
print("time_s | ns-2 resent, timeouts | cclab resent, timeouts")
for r in rows:
    t = float(r[0])
    if t in marks:
        c = cclab.run({**sc, "duration": f"{t}s", "warmup": "0s"}, seed=1).flows
        print(f"{t:6.1f} | {sum(int(r[2 + 3 * i]) for i in range(n))}, {sum(int(r[3 + 3 * i]) for i in range(n))} | "
              f"{int(c.retransmits.sum())}, {int(c.timeouts.sum())}")
