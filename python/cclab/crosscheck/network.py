"""What every peer and the comparison agree on about a built network (``Sim.network()``)."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Tuple

from .errors import CrosscheckError


def monitored(net: Mapping[str, Any]) -> List[int]:
    """The links whose queues are compared: a dumbbell's bottleneck, every link of a graph,
    and the dumbbell's reverse bottleneck only when some flow's data crosses it."""
    data = {i for f in net["flows"] for i in f["path_data"]}
    return [i for i, l in enumerate(net["links"])
            if l["role"] in ("bottleneck", "link") or (l["role"] == "reverse" and i in data)]


def check_tree(net: Mapping[str, Any]) -> None:
    """ns-2 and ns-3 route by hop count, cclab by delay: only a network without alternative
    paths (a tree of duplex links) routes alike in all of them."""
    pairs = {tuple(sorted((l["from"], l["to"]))) for l in net["links"]}
    if len(pairs) != net["nodes"] - 1:
        raise CrosscheckError("topology", f"{len(pairs)} node pairs joined among {net['nodes']} nodes",
                              "a network without alternative paths (a dumbbell, or a tree of links)")


def packet_queue(link: Mapping[str, Any]) -> Tuple[Mapping[str, Any], Optional[int], Mapping[str, Any]]:
    """A link's queue record, its buffer in packets (None: unlimited) and its parameters;
    refuses a queue that cannot be described or counts its buffer in bytes."""
    q = link["queue"]
    if q is None:
        raise CrosscheckError(f"link {link['name']}: queue", "(not describable)", "droptail, red or ared")
    if q["capacity_bytes"] is not None:
        raise CrosscheckError(f"link {link['name']}: buffer", f"{q['capacity_bytes']}B", "a buffer in packets")
    return q, q["capacity_pkts"], q["params"]
