"""docs/algorithms/bbr.md, "Without SACK": one bbr flow (bbr3, newreno and cubic beside it) on
20 Mbit/s, 40 ms, one BDP of buffer, 30 s, with NewReno recovery (the `cclab` stack's default)
and with SACK. Prints the goodput of three spans, the flow's retransmissions and timeouts and the
bottleneck's drops; for bbr with NewReno over 10 s, its resends under both stacks with and
without delayed ACKs; then where the resends of the `cclab` stack's run fall: in each half
second, the data segments the sender sent, how many were sent before (resent) and how many the
bottleneck dropped.

    PYTHONPATH=python python docs/algorithms/img/bbr_without_sack.py
"""

from __future__ import annotations

import warnings

import cclab
from cclab.advice import CclabWarning

SPANS = ((0.1, 3.0), (3.0, 10.0), (10.0, 30.0))


def scenario(cc: str, recovery: str, duration: str = "30s") -> dict:
    return {"name": "bbr-without-sack", "duration": duration, "sample_interval": "100ms",
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "1bdp"}},
            "flows": [{"cc": cc, "rtt": "40ms", "recovery": recovery}]}


def main() -> None:
    warnings.simplefilter("ignore", CclabWarning)  # the run below is the warning's own case
    print("| recovery | cc | goodput 0.1-3 s | 3-10 s | 10-30 s (Mbit/s) | retransmitted | timeouts | drops |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for rec, ccs in (("newreno", ("bbr", "bbr3", "newreno", "cubic")), ("sack", ("bbr", "bbr3"))):
        for cc in ccs:
            r = cclab.run(scenario(cc, rec), seed=1)
            d = r.flow_series.set_index("time_s")["delivered_bytes"]
            good = [(d[d.index <= b].iloc[-1] - d[d.index <= a].iloc[-1]) * 8 / (b - a) / 1e6 for a, b in SPANS]
            f, q = r.flows.iloc[0], r.queues.iloc[0]
            print(f"| {rec} | {cc} | " + " | ".join(f"{g:.2f}" for g in good)
                  + f" | {int(f.retransmits)} | {int(f.timeouts)} | {int(q.drops)} |")
    print("\nbbr, newreno, 10 s: which ACKs keep the loop going (resent / dropped)")
    for stack, delayed in (("cclab", False), ("cclab", True), ("linux", True), ("linux", False)):
        sc = scenario("bbr", "newreno", "10s")
        sc["flows"][0].update(stack=stack, delayed_ack=delayed)
        r = cclab.run(sc, seed=1)
        print(f"stack {stack}, delayed_ack {str(delayed).lower()}: "
              f"{int(r.flows.iloc[0].retransmits)} / {int(r.queues.iloc[0].drops)}")
    r = cclab.run(scenario("bbr", "newreno", "10s"), seed=1, trace={"flows": [0], "links": ["bottleneck"]})
    p = r.packets
    sent = p[(p.event == "send") & (p.kind == "data")]
    sent = sent.assign(resent=sent.seq.duplicated(), half=(sent.time_s * 2).astype(int) / 2)
    drops = p[p.event == "drop"].assign(half=lambda x: (x.time_s * 2).astype(int) / 2).groupby("half").size()
    print("\nbbr, newreno, 10 s, per half second from t: sent, resent, dropped")
    for t, g in sent.groupby("half"):
        print(f"{t:4.1f} s  {len(g):4d}  {int(g.resent.sum()):4d}  {int(drops.get(t, 0)):3d}")


if __name__ == "__main__":
    main()
