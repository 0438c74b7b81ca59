"""``cclab crosscheck``: the same scenario in cclab and in a peer simulator, side by side.

For each seed, the scenario is built and run in cclab; the network as built (links, queues,
flows with their resolved settings and start times, ``_core.Sim.network()``) is translated
into the peer's input, run there, and both give the same metrics, computed the same way:

- over [warmup, end]: each flow's goodput (delivered packets x packet size), the
  bottleneck's utilization and mean queue (packets waiting, not the one in service);
- over the whole run, start-up included: drops at the bottleneck queue, retransmitted
  packets, retransmission timeouts, and the packets a queue with ECN on marked where the
  peer counts marks (ns-3's queue discs).

A peer is a module with ``NAME``, ``SUFFIX``, ``CC_PARAMS``, ``available()``,
``script(net, duration, warmup, seed)``, ``run(script, timeout)``, ``delivered_bytes(start, end,
flow, warmup)`` and the names of its ``RETRANSMITS`` and ``TIMEOUTS`` counters; ``PEERS`` lists
them (ns2.py: ns-2.35; ns3.py: ns-3). What does not translate is refused with a
CrosscheckError naming the field.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any, Collection, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

from .. import _core
from ..result import Result
from ..run import run_built
from ..scenario import SEED_MAX, _to_json, as_scenario, resolve_seed
from . import ns2, ns3
from .errors import CrosscheckError
from .network import monitored as monitored_links

PEERS = {ns2.NAME: ns2, ns3.NAME: ns3}

__all__ = ["CrosscheckError", "Crosscheck", "crosscheck", "refusal", "PEERS"]


@dataclasses.dataclass
class Crosscheck:
    """Both simulators' metrics: ``runs`` has one row per (seed, simulator, metric)."""

    scenario: str
    peer: str
    seeds: List[int]
    runs: pd.DataFrame

    def table(self) -> pd.DataFrame:
        """Per metric: cclab's and the peer's mean over the seeds, their ranges, and the
        relative difference of the means ((cclab - peer) / peer)."""
        g = self.runs.groupby(["metric", "sim"], sort=False)["value"]
        mean, lo, hi = g.mean().unstack(), g.min().unstack(), g.max().unstack()
        order = list(dict.fromkeys(self.runs["metric"]))
        rows = []
        for m in order:
            a, b = mean.loc[m, "cclab"], mean.loc[m, self.peer]
            rows.append({"metric": m, "cclab": a, self.peer: b, "rel_diff": rel_diff(a, b),
                         "cclab_range": (lo.loc[m, "cclab"], hi.loc[m, "cclab"]),
                         f"{self.peer}_range": (lo.loc[m, self.peer], hi.loc[m, self.peer])})
        return pd.DataFrame(rows)

    def markdown(self) -> str:
        t = self.table()
        seeds = ", ".join(map(str, self.seeds))
        lines = [f"cclab against {self.peer} on {self.scenario}, seeds {seeds} (means; ranges over seeds)", "",
                 f"| metric | cclab | {self.peer} | difference |", "|---|---:|---:|---:|"]
        for r in t.itertuples(index=False):
            d = r.rel_diff
            diff = "n/a" if not math.isfinite(d) else f"{d * 100:+.1f} %"
            lines.append(f"| {r.metric} | {_fmt(r.cclab, r.cclab_range)} | "
                         f"{_fmt(getattr(r, self.peer), getattr(r, self.peer + '_range'))} | {diff} |")
        return "\n".join(lines) + "\n"


def rel_diff(cclab: float, peer: float) -> float:
    """(cclab - peer) / peer; 0 for two zeros, infinite against a zero."""
    return (cclab - peer) / peer if peer else (0.0 if cclab == peer else math.inf)


def _fmt(v: float, rng: tuple) -> str:
    s = f"{v:.4g}"
    if len(rng) == 2 and rng[0] != rng[1]:
        s += f" ({rng[0]:.4g}-{rng[1]:.4g})"
    return s


def _marked(net: Mapping[str, Any], monitored: Sequence[int],
            counted: Optional[Collection[int]] = None) -> List[int]:
    """The monitored links whose queue marks (``ecn`` on) and, given ``counted``, whose marks the
    peer counted (the links of its ``E`` record's ``marks``)."""
    return [i for i in monitored if (net["links"][i]["queue"] or {}).get("params", {}).get("ecn") == 1
            and (counted is None or i in counted)]


def _cclab_metrics(res: Result, net: Mapping[str, Any], monitored: Sequence[int],
                   duration: float, warmup: float, marked: Sequence[int] = ()) -> Dict[str, float]:
    fl, q, ln = res.flows, res.queues, res.links
    m: Dict[str, float] = {}
    # cclab's goodput_bps divides by the time the flow was active within [warmup, end] (from its
    # start, to its completion); the comparison divides every flow's bytes by the whole span.
    span = duration - warmup
    goodput = []
    for r in fl.itertuples(index=False):
        # completion_s is the transfer's duration from its start; NaN while unfinished.
        done = r.start_s + r.completion_s if r.completion_s == r.completion_s else duration
        active = max(0.0, min(done, duration) - max(r.start_s, warmup))
        goodput.append(r.goodput_bps * active / span)
    _common(m, goodput, [g for g in fl["group"]],
            float(fl["retransmits"].sum()), float(fl["timeouts"].sum()))
    for i in monitored:
        name = net["links"][i]["name"]
        m[f"{name}: utilization %"] = 100.0 * float(ln["utilization"].iloc[i])
        m[f"{name}: mean queue (pkts)"] = float(q["mean_len_pkts"].iloc[i])
        # Every drop at the link: ns-2's queue monitor also counts its error model's (SimpleLink
        # gives the error module the link's drop target).
        m[f"{name}: drops"] = float(q["drops"].iloc[i])
        if i in marked:
            m[f"{name}: marks"] = float(q["marks"].iloc[i])
    return m


def _peer_metrics(mod: Any, got: Mapping[str, Any], net: Mapping[str, Any], monitored: Sequence[int],
                  duration: float, warmup: float, marked: Sequence[int] = ()) -> Dict[str, float]:
    end = got["E"]
    start = got.get("W")
    span = duration - warmup
    goodput = []
    for i, f in enumerate(net["flows"]):
        e, s = end["flows"][i], (start["flows"][i] if start else None)
        goodput.append(mod.delivered_bytes(s, e, f, warmup) * 8.0 / span)
    m: Dict[str, float] = {}
    _common(m, goodput, [f["group"] for f in net["flows"]],
            sum(f[mod.RETRANSMITS] for f in end["flows"]), sum(f[mod.TIMEOUTS] for f in end["flows"]))
    for i in monitored:
        link = net["links"][i]
        drops, dep, integ = end["queues"][i]
        dep0, integ0 = (start["queues"][i][1], start["queues"][i][2]) if start else (0.0, 0.0)
        m[f"{link['name']}: utilization %"] = 100.0 * (dep - dep0) * 8.0 / (link["rate_bps"] * span)
        m[f"{link['name']}: mean queue (pkts)"] = (integ - integ0) / span
        m[f"{link['name']}: drops"] = drops
        if i in marked:
            m[f"{link['name']}: marks"] = end["marks"][i]
    return m


def _common(m: Dict[str, float], goodput: List[float], groups: List[str], rexmit: float, timeouts: float) -> None:
    m["goodput, all flows (Mbit/s)"] = sum(goodput) / 1e6
    for g in dict.fromkeys(groups):
        gp = [x for x, gg in zip(goodput, groups) if gg == g]
        m[f"goodput per flow, group {g} (Mbit/s)"] = sum(gp) / len(gp) / 1e6
    sq = sum(x * x for x in goodput)
    m["Jain index"] = sum(goodput) ** 2 / (len(goodput) * sq) if sq > 0 else 1.0
    m["retransmitted packets"] = rexmit
    m["timeouts"] = timeouts


def _refuse_untranslated_params(sc: Mapping[str, Any], mod: Any) -> None:
    """A group's ``cc_params`` reach the peer only for the algorithms whose parameters it maps
    (``mod.CC_PARAMS``); anywhere else the peer would silently run its own values."""
    for i, g in enumerate(sc.get("flows", [])):
        mapped = mod.CC_PARAMS.get(g.get("cc"), ())
        for name, value in (g.get("cc_params") or {}).items():
            if name not in mapped:
                which = ", ".join(mapped) if mapped else "none"
                raise CrosscheckError(f"flows[{i}].cc_params.{name}", value,
                                      f"{which} for {g.get('cc')} ({mod.NAME} runs its own values of the others)")


#: The link fields that make a link vary over time or per packet (docs/links.md): no peer translation has them.
VARYING_FIELDS = ("rate_schedule", "delay_schedule", "jitter", "loss_schedule", "gilbert_elliott", "mahimahi")


def _refuse_varying_links(sc: Mapping[str, Any], mod: Any) -> None:
    """A link whose rate, delay or loss changes over time would run as a fixed link in the peer."""
    topology = sc.get("topology") or {}
    links = [("topology.bottleneck", topology.get("bottleneck"))]
    links += [(f"topology.links[{i}]", link) for i, link in enumerate(topology.get("links") or [])]
    for where, link in links:
        for name in VARYING_FIELDS:
            if isinstance(link, Mapping) and link.get(name) is not None:
                raise CrosscheckError(f"{where}.{name}", "(set)",
                                      f"links of fixed rate, delay and loss ({mod.NAME}'s translation has no schedules or traces)")


def refusal(scenario: Union[Mapping[str, Any], str], peer: str) -> Optional[CrosscheckError]:
    """Why ``scenario`` does not translate for ``peer`` (its first seed's build), or None."""
    mod = PEERS[peer]
    sc = as_scenario(scenario)
    try:
        _refuse_untranslated_params(sc, mod)
        _refuse_varying_links(sc, mod)
        seed = resolve_seed(None, sc)
        sim = _core.Sim(_to_json(sc), seed)
        net = json.loads(sim.network())
        mod.script(net, sim.duration, float(net["warmup_s"]), seed)
    except CrosscheckError as e:
        return e
    return None


def crosscheck(scenario: Union[Mapping[str, Any], str], peer: str = "ns2", seeds: int = 1,
               seed: Optional[int] = None, timeout: float = 3600.0,
               keep: Union[str, "os.PathLike[str]", None] = None) -> Crosscheck:
    """Runs ``scenario`` in cclab and in ``peer`` with ``seeds`` seeds (from ``seed``, default
    the scenario's, else 1) and returns both sides' metrics. ``keep``: a folder to write each
    seed's peer script to (``<peer>-seed<N>`` with the peer's extension)."""
    if peer not in PEERS:
        raise CrosscheckError("--with", peer, " or ".join(PEERS))
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 1 <= seeds <= 100:
        raise CrosscheckError("--seeds", seeds, "a whole number from 1 to 100")
    mod = PEERS[peer]
    sc = as_scenario(scenario)
    first = resolve_seed(seed, sc)
    if first + seeds - 1 > SEED_MAX:
        raise CrosscheckError("--seeds", seeds, f"at most {SEED_MAX - first + 1} from seed {first}")
    _refuse_untranslated_params(sc, mod)
    _refuse_varying_links(sc, mod)
    if mod.available() is None:
        raise CrosscheckError("--with", peer, f"an installed {peer} (see docs/fidelity.md)")
    rows: List[Dict[str, Any]] = []
    used = [first + k for k in range(seeds)]
    for s in used:
        # Built once: the translation reads the build, then the same build runs.
        sim = _core.Sim(_to_json(sc), s)
        net = json.loads(sim.network())
        duration = sim.duration
        warmup = float(net["warmup_s"])
        tcl = mod.script(net, duration, warmup, s)  # refuses before anything runs
        monitored = monitored_links(net)
        if keep is not None:
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / f"{peer}-seed{s}{mod.SUFFIX}").write_text(tcl)
        res = run_built(sim, s)
        got = mod.run(tcl, timeout)
        marked = _marked(net, monitored, got["E"].get("marks", {}))
        for sim_name, m in (("cclab", _cclab_metrics(res, net, monitored, duration, warmup, marked)),
                            (peer, _peer_metrics(mod, got, net, monitored, duration, warmup, marked))):
            rows += [{"seed": s, "sim": sim_name, "metric": k, "value": v} for k, v in m.items()]
    return Crosscheck(str(sc.get("name") or "scenario"), peer, used, pd.DataFrame(rows))
