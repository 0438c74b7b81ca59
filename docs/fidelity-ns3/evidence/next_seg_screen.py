"""Which ns-3 evidence runs does ns-3.44's NextSeg rule (1.b) after a timeout move?

Runs every evidence scenario with RFC 6675's loss detection (`*dupthresh*.toml`) under the
`linux` profile with `resend_below_high_sack` false and true (docs/scenario.md), seeds 1-3,
and prints the means of total goodput, retransmissions, timeouts and drops of both, then
names the scenarios whose runs the rule changed. cclab only: ns-3 does the same in both.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/next_seg_screen.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import cclab
from cclab.crosscheck.matrix import with_stack

EVIDENCE = Path(__file__).resolve().parents[3] / "scenarios" / "crosscheck" / "evidence" / "ns3"
SEEDS = (1, 2, 3)


def means(sc: dict) -> tuple[float, ...]:
    """Total goodput (Mbit/s), retransmissions, timeouts and drops, means over SEEDS."""
    tot = [0.0] * 4
    for seed in SEEDS:
        f = cclab.run(sc, seed=seed).flows
        for i, v in enumerate((f.goodput_bps.sum() / 1e6, f.retransmits.sum(), f.timeouts.sum(), f.drops.sum())):
            tot[i] += float(v) / len(SEEDS)
    return tuple(tot)


def main() -> int:
    warnings.simplefilter("ignore")
    moved = []
    for path in sorted(EVIDENCE.glob("*dupthresh*.toml")):
        if path.stem.endswith("-next-seg"):
            continue
        base = with_stack(cclab.load_scenario(path), "linux")
        a, b = (means({**base, "flows": [{**g, "resend_below_high_sack": on} for g in base["flows"]]})
                for on in (False, True))
        print(f"{path.stem:70s} goodput {a[0]:7.2f} -> {b[0]:7.2f}  retransmitted {a[1]:8.0f} -> {b[1]:8.0f}  "
              f"timeouts {a[2]:6.1f} -> {b[2]:6.1f}  drops {a[3]:7.0f} -> {b[3]:7.0f}", flush=True)
        if a != b:
            moved.append(path.stem)
    print(f"moved by the rule: {', '.join(moved) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
