"""Warnings for settings that are valid but silently give nonsense, read from the built
network (``Sim.network()``) before a run: ``cclab.run`` issues them as ``CclabWarning``
(Python's ``warnings``: shown once per message, filterable), ``cclab run`` and ``cclab check``
print them as ``warning: <field>: <message>`` lines.

- RED-family thresholds far below the BDP: ``max_th`` under a tenth of the bottleneck's BDP
  keeps the queue too short to absorb a window's halving (5/15 packets at 1 Gbit/s and 100 ms,
  a BDP of 8,333 packets, gives about a third of the link to a few flows).
- ``cc = "xcp"`` with no XCP router on the flow's path: its window then never changes.
- A ``sample_interval`` shorter than the shortest round trip: each sample's goodput is a
  fraction of a window's burst, and the series swings between 0 and several times the rate.
- BBR with NewReno or Reno recovery (no SACK): it can stay in a loop of spurious recoveries.
- A run too short for slow start: a flow needs about log2(BDP / initial window) round trips
  to fill the path; a run that ends first measures only the start-up.
"""

from __future__ import annotations

import math
from typing import Any, List, Mapping, Optional, Tuple

__all__ = ["CclabWarning", "advice"]


class CclabWarning(UserWarning):
    """A setting that runs but probably does not measure what was meant."""


#: RED's max_th below this fraction of the BDP draws a warning.
RED_BDP_FRACTION = 0.1
_RED_FAMILY = ("red", "ared", "gared")


def _rtt_s(net: Mapping[str, Any], flow: Mapping[str, Any]) -> float:
    """The flow's round-trip propagation time: the delays of its data and ACK paths."""
    links = net["links"]
    return sum(float(links[i]["delay_s"]) for i in list(flow["path_data"]) + list(flow["path_ack"]))


def advice(net: Mapping[str, Any], scenario: Mapping[str, Any], bdp_pkts: Optional[float]) -> List[Tuple[str, str]]:
    """``(field, message)`` for each setting that probably gives nonsense; ``net``: the built
    network (``json.loads(Sim.network())``), ``scenario``: the normalized scenario,
    ``bdp_pkts``: the bottleneck's BDP in packets (None on a graph)."""
    out: List[Tuple[str, str]] = []
    flows = list(net.get("flows", []))
    groups = list(dict.fromkeys(f["group"] for f in flows))
    if bdp_pkts and bdp_pkts > 0:
        for link in net["links"]:
            q = link.get("queue") or {}
            p = q.get("params", {})
            if q.get("kind") in _RED_FAMILY and not p.get("bytes") and p.get("max_th", 0) > 0 \
                    and p["max_th"] < RED_BDP_FRACTION * bdp_pkts and link.get("role") == "bottleneck":
                out.append((f"topology.bottleneck.queue_params.max_th",
                            f"{p['max_th']:g} packets is under a tenth of the BDP ({bdp_pkts:,.0f} packets): RED "
                            "will keep the queue too short to absorb a window's halving and the link will run "
                            "well below capacity with few flows; scale min_th / max_th with the BDP"))
    topo = scenario.get("topology", {})
    queues = [(topo.get("bottleneck") or {}).get("queue")] + [l.get("queue") for l in topo.get("links", [])]
    if "xcp" not in queues:
        for f in flows:
            if f.get("cc_built") == "xcp":
                out.append((f"flows[{groups.index(f['group'])}].cc",
                            "xcp with no XCP router (queue = \"xcp\") in the topology: the window never changes"))
                break
    for f in flows:
        if str(f.get("cc_built", "")).startswith("bbr") and f.get("recovery") in ("reno", "newreno"):
            out.append((f"flows[{groups.index(f['group'])}].recovery",
                        f"{f['recovery']} (no SACK) with {f['cc_built']}: BBR does not slow down after a fast "
                        "retransmit, so in the recovery's partial ACKs each resends a segment still in flight, their "
                        "duplicates bring duplicate ACKs and another fast retransmit, and the flow can stay in "
                        "recovery for good (docs/algorithms/bbr.md); Linux and ns-3 run BBR with SACK: "
                        "recovery = \"sack\""))
            break
    rtts = [_rtt_s(net, f) for f in flows]
    interval = scenario.get("sample_interval")
    if interval and rtts:
        from . import _core

        q = _core.quantity(str(interval))
        if q is not None and q[0] == "s" and 0 < q[1] < min(rtts):
            out.append(("sample_interval",
                        f"{interval} is shorter than the shortest round trip ({min(rtts) * 1e3:.3g} ms): each "
                        "sample's goodput sees part of a window's burst and swings far above and below the rate"))
    duration = scenario.get("duration")
    if bdp_pkts and bdp_pkts > 0 and duration and flows:
        from . import _core

        q = _core.quantity(str(duration))
        if q is not None and q[0] == "s":
            for f, rtt in zip(flows, rtts):
                rounds = math.log2(max(2.0, bdp_pkts / max(1.0, float(f.get("init_cwnd") or 1.0))))
                needs = float(f["start_s"]) + rtt * rounds
                if rtt > 0 and q[1] < needs:
                    out.append(("duration",
                                f"{duration} ends before flow {f['name']} can leave slow start (it starts at "
                                f"{float(f['start_s']):.3g} s and needs about {rounds:.0f} round trips of "
                                f"{rtt * 1e3:.3g} ms to fill a BDP of {bdp_pkts:,.0f} packets): the run measures "
                                "only the start-up"))
                    break
    return out
