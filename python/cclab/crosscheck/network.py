"""What every peer and the comparison agree on about a built network (``Sim.network()``)."""

from __future__ import annotations

from typing import Any, List, Mapping


def monitored(net: Mapping[str, Any]) -> List[int]:
    """The links whose queues are compared: a dumbbell's bottleneck, every link of a graph,
    and the dumbbell's reverse bottleneck only when some flow's data crosses it."""
    data = {i for f in net["flows"] for i in f["path_data"]}
    return [i for i, l in enumerate(net["links"])
            if l["role"] in ("bottleneck", "link") or (l["role"] == "reverse" and i in data)]
