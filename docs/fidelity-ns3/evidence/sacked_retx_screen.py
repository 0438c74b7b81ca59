"""Evidence for docs/fidelity.md: which `-per-ack-dupthresh` runs of the ns-3 evidence folder move
with ns-3's count of a SACKed retransmission (`sacked_retx_in_pipe`). cclab's side only, ten
seeds, with and without it, beside ns-3's means and ranges as docs/fidelity-ns3/evidence/matrix.csv
recorded them (ns-3's side does not depend on the field).

    PYTHONPATH=python python docs/fidelity-ns3/evidence/sacked_retx_screen.py [STEM or RUN ...]

A matrix scenario without such a run (24-cubic-four) is screened as it is, beside ns-3's values in
docs/fidelity-ns3/matrix.csv.
"""

import copy
import csv
import sys
import tomllib
from pathlib import Path

import cclab
from cclab.crosscheck.matrix import with_stack

ROOT = Path(__file__).resolve().parents[3]
STEMS = ["05-newreno-ten-red", "06-newreno-ten-ared", "07-sack-ten-red", "12-rtt-mix",
         "18-newreno-twenty-spread", "28-cubic-vs-newreno"]
METRICS = ("bottleneck: drops", "timeouts", "retransmitted packets")


def cclab_means(sc, keep):
    sc = copy.deepcopy(sc)
    for g in sc["flows"]:
        g["sacked_retx_in_pipe"] = keep
    sums = [0, 0, 0]
    for seed in range(1, 11):
        r = cclab.run(with_stack(sc, "linux"), seed=seed)
        for i, v in enumerate((r.queues.drops.iloc[0], r.flows.timeouts.sum(), r.flows.retransmits.sum())):
            sums[i] += int(v)
    return [s / 10 for s in sums]


def main(stems):
    # The evidence runs' ns-3 values, and the matrix's (its `linux` rows) for a matrix scenario
    # named by its stem (24-cubic-four).
    peer = {}
    for table in ("docs/fidelity-ns3/matrix.csv", "docs/fidelity-ns3/evidence/matrix.csv"):
        peer.update({(r["scenario"], r["metric"]): r for r in csv.DictReader(open(ROOT / table))
                     if r["stack"] == "linux"})
    print("scenario | metric | ns-3 (range) | cclab | cclab, sacked_retx_in_pipe")
    for stem in stems:
        # An evidence run named in full, a matrix scenario's `-per-ack-dupthresh` run, or else
        # the matrix scenario itself.
        evidence = ROOT / "scenarios/crosscheck/evidence/ns3"
        folder, name = next(((evidence, n) for n in (stem, f"{stem}-per-ack-dupthresh")
                             if (evidence / f"{n}.toml").exists()), (ROOT / "scenarios/crosscheck", stem))
        sc = tomllib.load(open(folder / f"{name}.toml", "rb"))
        without, kept = cclab_means(sc, False), cclab_means(sc, True)
        for i, m in enumerate(METRICS):
            p = peer[(name, m)]
            print(f"{name} | {m} | {float(p['ns3']):g} ({float(p['peer_min']):g}-{float(p['peer_max']):g}) | "
                  f"{without[i]:g} | {kept[i]:g}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or STEMS)
