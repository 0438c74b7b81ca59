"""Why ns-3's flows time out after the start-up of 04-newreno-ten-startup (with an ACK for every
segment and RFC 6675 loss detection on cclab's side) and cclab's do not (docs/fidelity.md,
"Timeouts after a start-up with many losses").

For flow 0 of seed 1 it prints, in segments: the recovery point (the highest segment sent when
the fast recovery began, plus one), the overshoot's last hole below it and how many delivered
segments lie between the two (for cclab, when each of them was first sent) (RFC 6675's `IsLost` needs DupThresh = 3 SACKed segments above a
hole), when that hole is first resent, and, for ns-3, the partial ACKs (the timer is restarted
at the first only), the RTT sample at the last one, and when the timer fires.

ns-3's side reruns the cross-check's program on the seed's description, shortened to 1.2 s, with
`NS_LOG="TcpSocketBase=level_debug|prefix_time|prefix_node"` (flow 0's sender is node 2); it
needs ns-3 and a compiler. cclab's side traces flow 0 in the same 1.2 s.

    PYTHONPATH=python python docs/fidelity-ns3/evidence/ns3_last_hole.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import cclab
from cclab import _core
from cclab.crosscheck import ns3
from cclab.crosscheck.matrix import with_stack

SCENARIO = (Path(__file__).resolve().parents[3] / "scenarios" / "crosscheck" / "evidence" / "ns3"
            / "04-newreno-ten-startup-ack-every-segment-dupthresh-handshake.toml")
SEED = 1


def ns3_side(sc: dict) -> None:
    sim = _core.Sim(json.dumps(sc), SEED)
    net = json.loads(sim.network())
    text = ns3.script(net, sim.duration, float(net["warmup_s"]), SEED)
    mss = int(re.search(r"tcp\.SegmentSize=(\d+)", text).group(1))
    env = {**os.environ, "NS_LOG": "TcpSocketBase=level_debug|prefix_time|prefix_node"}
    log = subprocess.run([str(ns3.binary())], input=text, capture_output=True, text=True, env=env).stderr
    seg = lambda byte: (int(byte) - 1) // mss  # noqa: E731  ns-3 numbers bytes from 1
    recover, partial, resent, rto, sack_at_last, rtt_at_last = None, [], {}, None, "", ""
    last_rtt = ""
    for line in log.splitlines():
        stamp = re.match(r"\+([0-9.]+)s", line)
        if "[node 2]" not in line or stamp is None:
            continue
        t = float(stamp.group(1))
        if recover is None and (m := re.search(r"at fast recovery seqnum (\d+)", line)):
            recover = seg(m.group(1))
        elif m := re.search(r"Last RTT sample updated to: \+([0-9.e+]+)ns", line):
            last_rtt = f"{float(m.group(1)) / 1e6:.0f} ms"
        elif m := re.search(r"ReceivedAck\(.*Ack=(\d+) .*TcpOptionSack\(blocks: \d+,(.*)\)\)", line):
            sack_at_last = m.group(2)
        elif rto is None and (m := re.search(r"Partial ACK of (\d+)", line)):
            partial.append((t, seg(m.group(1)), sack_at_last, last_rtt))
        elif m := re.search(r"SendDataPacket\(0x[0-9a-f]+, (\d+), \d+, 1\)", line):
            s = seg(m.group(1))
            if recover is not None and s < recover and rto is None:
                resent.setdefault(s, t)
        elif "ReTxTimeout Expired" in line and rto is None and recover is not None:
            rto = t
    t_last, hole, sack, rtt = partial[-1]
    blocks = [tuple(seg(b) for b in blk.strip("[]").split(",")) for blk in re.findall(r"\[\d+,\d+\]", sack)]
    above = sum(hi - lo for lo, hi in blocks if lo > hole and hi <= recover)
    print(f"ns-3: recovery point {recover}; {len(partial)} partial ACKs from {partial[0][0]:.3f} s "
          f"(the timer restarted there only) to {t_last:.4f} s; the last leaves hole {hole} with "
          f"{above} SACKed segments above it below the recovery point (SACK blocks in segments: "
          f"{blocks}); RTT sample then {rtt}; hole {hole} first resent at "
          f"{resent.get(hole, float('nan')):.4f} s; the timer fires at {rto:.3f} s")


def cclab_side(sc: dict) -> None:
    r = cclab.run(sc, seed=SEED, trace={"flows": [0]})
    p = r.packets
    sends = p[(p.kind == "data") & (p.event == "send") & p.link.isna()]
    resends = sends[sends.retx.astype(bool)]
    first = resends.time_s.min()
    recover = int(sends[sends.time_s < first].seq.max()) + 1
    holes = sorted(set(resends[resends.seq < recover].seq))
    hole = int(holes[-1])
    timeouts = int(r.flows.timeouts.iloc[0])
    first_sent = sends[~sends.retx.astype(bool)].groupby("seq").time_s.min()
    when = ", ".join(f"{s} at {first_sent[s]:.4f} s" for s in range(hole, recover))
    print(f"cclab: recovery point {recover}; last hole {hole} with {recover - 1 - hole} delivered "
          f"segments above it below the recovery point (first sent: {when}); hole {hole} first resent at "
          f"{resends[resends.seq == hole].time_s.min():.4f} s; {timeouts} timeouts by {sc['duration']}")


def main() -> int:
    warnings.simplefilter("ignore")
    sc = with_stack(cclab.load_scenario(SCENARIO), "linux")
    sc.update(duration="1.2s", warmup="0s")
    print(f"{SCENARIO.stem}, seed {SEED}, flow 0 (segments counted from 0)")
    ns3_side(sc)
    cclab_side(sc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
