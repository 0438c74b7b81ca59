"""Evidence for docs/fidelity.md (11-highspeed-vs-reno-overhead's start-up resends): a trace of
the bottleneck's queue, seed 1, the first 8 s, in ns-2 and in cclab's `ns2` profile. It prints,
for each simulator, the 100-ms spans in which a flow sent the most packets more than once
(packets into the queue, and the distinct segments they were). After a timeout a flow sends
each segment several times within a round trip (100 ms): Sack1's `send_much` outside
recovery resends every hole the duplicate ACKs showed at each delayed send's end
(docs/fidelity.md). The flows and times differ between the two (each run has its own losses).

    PYTHONPATH=python python docs/fidelity/evidence/ns2_sack1_hole_resends.py
"""

import collections
import json
import subprocess
import tempfile
import warnings
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns2

HERE = Path(__file__).resolve().parents[3]
SCENARIO = HERE / "scenarios" / "crosscheck" / "evidence" / "ns2" / "11-highspeed-vs-reno-overhead.toml"
SPAN, SEED = 8.0, 1

sc = cclab.load_scenario(SCENARIO)
sc.update(duration=f"{SPAN}s", warmup="0s")
for g in sc["flows"]:
    g["stack"] = "ns2"
net = json.loads(_core.Sim(json.dumps(sc), SEED).network())
with tempfile.TemporaryDirectory() as tmp:
    tr = Path(tmp) / "q.tr"
    tcl = ns2.script(net, SPAN, 0.0, SEED).replace(
        "$ns run", f"set tf [open {tr} w]\n$ns trace-queue $n(0) $n(1) $tf\n$ns at {SPAN - 1e-4} \"flush $tf\"\n$ns run")
    subprocess.run(["ns", "/dev/stdin"], input=tcl, capture_output=True, text=True, timeout=1800, check=True)
    rows = [line.split() for line in tr.read_text().splitlines()]
# A sender on node 2 + 2i is flow i (ns2.script's numbering); "+" is an arrival at the queue.
sent = {"ns-2": [(float(r[1]), (int(r[8].split(".")[0]) - 2) // 2, int(r[10])) for r in rows
                 if r[0] == "+" and r[4] == "tcp"]}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    pk = cclab.run(sc, seed=SEED, trace={"links": ["bottleneck"]}).packets
pk = pk[(pk.kind == "data") & pk.event.isin(["enqueue", "drop"])]
sent["cclab ns2"] = list(zip(pk.time_s, pk.flow, pk.seq))
print(f"{SCENARIO.stem}, seed {SEED}, first {SPAN:g} s: the 100-ms spans where a flow sent the most "
      "packets more than once")
print("| simulator | flow | from (s) | packets | distinct segments |\n|---|---:|---:|---:|---:|")
for k, v in sent.items():
    bins = collections.defaultdict(list)
    for t, f, s in v:
        bins[(f, int(t * 10))].append(s)
    top = sorted(bins.items(), key=lambda kv: len(kv[1]) - len(set(kv[1])), reverse=True)[:4]
    for (f, b), segs in sorted(top, key=lambda kv: kv[0][1]):
        print(f"| {k} | {f} | {b / 10:.1f} | {len(segs)} | {len(set(segs))} |")
