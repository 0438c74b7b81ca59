"""Which of a flow's retransmissions resend data the receiver already has, and when?

Runs 56-bbr-four-dupthresh (docs/fidelity.md, "Why cclab's timeouts resend delivered data")
under the `linux` profile with flow 0 traced, with `resend_below_high_sack` as given, and
prints: the flow's retransmissions; those of a segment delivered before the resend
(spurious); how many of these fall within a second after a timeout; how long before the resend
the receiver had the segment; and the sender's window and packets in flight just before the
timeout at which most spurious resends follow.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/rto_spurious_resends.py [SEED] [--next-seg]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

import cclab
from cclab.crosscheck.matrix import with_stack

SCENARIO = (Path(__file__).resolve().parents[3] / "scenarios" / "crosscheck" / "evidence" / "ns3"
            / "56-bbr-four-dupthresh.toml")


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    seed = int(args[0]) if args else 1
    below = "--next-seg" in argv
    warnings.simplefilter("ignore")
    sc = with_stack(cclab.load_scenario(SCENARIO), "linux")
    sc["flows"] = [{**g, "resend_below_high_sack": below} for g in sc["flows"]]
    r = cclab.run(sc, seed=seed, trace={"flows": [0]})
    p = r.packets
    data = p[p.kind == "data"]
    sends, delivered = data[data.event == "send"], data[data.event == "deliver"]
    first_delivery = delivered.groupby("seq").time_s.min()
    rtx = sends[sends.retx.astype(bool)].copy()
    rtx["delivered_at"] = rtx.seq.map(first_delivery)
    spurious = rtx[rtx.delivered_at < rtx.time_s]
    rto = np.sort(p[(p.event == "rto") & (p.flow == 0)].time_s.to_numpy())
    i = np.searchsorted(rto, spurious.time_s.to_numpy(), side="right") - 1
    since = np.where(i >= 0, spurious.time_s.to_numpy() - rto[np.maximum(i, 0)], np.inf)
    ahead = (spurious.time_s - spurious.delivered_at) * 1e3
    print(f"seed {seed}, resend_below_high_sack = {str(below).lower()}: flow 0 sent {len(sends)} packets, "
          f"{len(rtx)} retransmissions, {int(r.flows.drops[0])} drops, {len(rto)} timeouts")
    print(f"spurious (the receiver had the segment before the resend): {len(spurious)}; within 1 s after a "
          f"timeout: {int((since < 1).sum())}")
    if len(spurious):
        print(f"the receiver had it {ahead.min():.3f}-{ahead.max():.3f} ms before the resend "
              f"(median {ahead.median():.3f} ms)")
        # The timeout that most spurious resends follow, and the sender just before it.
        at = rto[np.bincount(i[i >= 0]).argmax()]
        s = r.sender[(r.sender.flow == 0) & (r.sender.time_s < at)].iloc[-1]
        print(f"most follow the timeout at {at:.3f} s; just before it cwnd {s.cwnd:.0f}, "
              f"in flight {s.in_flight:.0f}, snd_nxt - snd_una {s.snd_nxt - s.snd_una:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
