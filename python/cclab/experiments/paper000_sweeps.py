"""Paper 000: Jung, Kim, Yeom, Kang, "TCP-GT: A New Approach to Congestion Control
Based on Goodput and Throughput" (J. Communications and Networks, 2010): Figs. 9-12,
TCP-GT against SACK, HighSpeed, FAST and CUBIC (Figs. 4-8 and Table 1 are in paper000.py).

Section IV's common set-up: a dumbbell with a drop-tail bottleneck queue of one
BDP, 1000-byte packets and 40-byte ACKs; 500 Mbit/s unless an experiment says
otherwise. TCP-GT is cclab's ``tcp-gt`` (docs/algorithms/tcp-gt.md).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

import pandas as pd

from . import register
from .base import Check, Experiment, Report, Run, claim, compare
from .common import dumbbell, figure, flow

SETUP = [
    "Dumbbell, drop-tail bottleneck buffer of one BDP (at the flows' mean RTT), 1000-byte packets, 40-byte ACKs "
    "(section IV); access links 10x the bottleneck; RTT set by the sender's access delay; one seed.",
]


def _net(rate: str, flows: Sequence[Dict[str, Any]], duration: float, **kw: Any) -> Dict[str, Any]:
    delay = kw.pop("delay", "1ms")
    return dumbbell(rate, delay, "1bdp", flows, f"{duration:g}s", sample_interval=kw.pop("sample", "100ms"), **kw)


# -- Figs. 9-12: against SACK, HighSpeed, FAST and CUBIC --------------------------------------

PROTOS = {"tcp-gt": ("tcp-gt", "sack"), "SACK": ("newreno", "sack"), "HSTCP": ("highspeed", "sack"),
          "FAST": ("fast", "sack"), "CUBIC": ("cubic", "sack")}
SWEEP_SETUP = SETUP + [
    "SACK is `newreno` with SACK recovery; HSTCP, FAST (alpha = 20 packets) and CUBIC use SACK recovery too. "
    "Flows start in the first second; measured over the second half of the run.",
]


def _sweep_flow(proto: str, n: int, rtt_ms: float) -> Dict[str, Any]:
    cc, rec = PROTOS[proto]
    return flow(cc, recovery=rec, count=n, rtt=f"{rtt_ms:g}ms", packet_size="1000B", ack_size="40B",
                start_spread="1s")


def _sweep_measure(res: Any) -> Dict[str, Any]:
    s = res.summary()
    return {"points": {"utilization": s["bottleneck_utilization"], "mean_queue_pkts": s["bottleneck_mean_queue_pkts"],
                       "drops": int(s["bottleneck_drops"]), "jain": s["jain_index"]}}


def _sweep_report(data: Dict[str, pd.DataFrame], x: str, xlabel: str, name: str, title: str, logx: bool,
                  gt_never_drops: bool = True) -> Report:
    d = data["points"]
    fig, axes = figure(1, 3, width=3.6, height=3.2, sharex=False)
    for proto in PROTOS:
        e = d[d.proto == proto].sort_values(x)
        style = dict(lw=2, marker="o") if proto == "tcp-gt" else dict(lw=1, marker=".")
        axes[0].plot(e[x], e.utilization, label=proto, **style)
        axes[1].plot(e[x], e.mean_queue_pkts, label=proto, **style)
        axes[2].plot(e[x], e.drops.clip(lower=0.5), label=proto, **style)
    for ax, y in zip(axes, ("(a) utilization", "(b) mean queue (pkts)", "(c) drops")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(y)
        if logx:
            ax.set_xscale("log")
    axes[2].set_yscale("log")
    axes[0].set_ylim(0, 1.05)
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    gt = d[d.proto == "tcp-gt"].set_index(x)
    others = d[d.proto != "tcp-gt"].groupby(x).mean_queue_pkts.min()
    ok_q = gt.mean_queue_pkts <= others + 1
    bad_q = [f"{i:g}" for i in gt.index[~ok_q.to_numpy()]]
    checks = [Check("TCP-GT's queue is the smallest of all protocols at every point",
                    ", ".join(f"{i:g}: {gt.mean_queue_pkts[i]:.0f} vs {others[i]:.0f}" for i in gt.index),
                    bool(ok_q.all()), published="smallest everywhere",
                    reason="" if ok_q.all() else f"not at {', '.join(bad_q)} ({xlabel}), where cclab's TCP-GT "
                    "builds a large queue: the oversized increase of eq. (15) at long RTTs (see the drops), "
                    "elsewhere the 10-epoch local minimum RTT of eq. (5) taking in a slowly growing queue "
                    "(docs/algorithms/tcp-gt.md)")]
    if gt_never_drops:
        bad_d = [f"{i:g}" for i in gt.index[(gt.drops > 0).to_numpy()]]
        checks.append(Check("TCP-GT drops no packet in any run", f"{int(gt.drops.sum())} drops in {len(gt)} runs",
                            not bad_d, published="never drops",
                            reason="" if not bad_d else f"cclab's TCP-GT drops at {', '.join(bad_d)} ({xlabel}): "
                            "eq. (15) gives p = f^3 s^2 / cwnd^2 per ACKed packet, which is large for small windows "
                            "(the first decision, at 2 packets, makes it ~3600 at 320 ms; ~10-packet windows at "
                            "50 Mbit/s) or large f (at 1000 ms one increase epoch adds ~2800 packets per flow), so "
                            "the increase overruns the buffer before the next epoch's measurement "
                            "(docs/algorithms/tcp-gt.md, 'Figs. 9-10')"))
    md = "| " + xlabel + " | " + " | ".join(f"{p} util / queue / drops" for p in PROTOS) + " |\n|" + "---|" * 6 + "\n"
    p = d.set_index([x, "proto"])
    md += "\n".join(f"| {i:g} | " + " | ".join(
        f"{p.loc[(i, q)].utilization:.3f} / {p.loc[(i, q)].mean_queue_pkts:.0f} / {int(p.loc[(i, q)].drops)}"
        for q in PROTOS) + " |" for i in sorted(d[x].unique()))
    return Report(figures={name: fig}, checks=checks, markdown=md)


def _sweep_runs(points: Sequence[Any], make, key: str) -> List[Run]:
    return [Run(f"{key}={p},{proto}", make(proto, p), 1, {key: p, "proto": proto}) for p in points for proto in PROTOS]


@register
class Fig9(Experiment):
    paper = "000"
    name = "fig9"
    title = "50 flows, capacity 50 Mbit/s to 2 Gbit/s, 80 ms: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + ["Capacities 50, 100, 200, 500, 1000, 2000 Mbit/s (quick: 50, 200, 500); 100 s "
                                 "(quick: 40 s)."]

    def runs(self, quick: bool) -> List[Run]:
        pts = (50, 200, 500) if quick else (50, 100, 200, 500, 1000, 2000)
        dur = 40 if quick else 100
        return _sweep_runs(pts, lambda proto, c: _net(f"{c}Mbps", [_sweep_flow(proto, 50, 80)], dur,
                                                      warmup=f"{dur // 2}s", sample=""), "capacity_mbps")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        rep = _sweep_report(data, "capacity_mbps", "capacity (Mbit/s)", "fig9", "Fig. 9: impact of capacity", True)
        d = data["points"]
        gt = d[d.proto == "tcp-gt"].set_index("capacity_mbps")
        rep.checks.append(compare("TCP-GT's lowest utilization over the capacities ('higher than 90%')", 0.95,
                                  float(gt.utilization.min()), 0.05,
                                  reason="at 50 Mbit/s the 50 flows have 10 packets of pipe each"))
        big = d[d.capacity_mbps >= 200].pivot_table(index="capacity_mbps", columns="proto", values="mean_queue_pkts")
        rep.checks.append(claim("from 200 Mbit/s up TCP-GT's queue is far below every other protocol's (under half)",
                                bool((big["tcp-gt"] < 0.5 * big.drop(columns="tcp-gt").min(axis=1)).all()),
                                ", ".join(f"{i:g}: {big.loc[i, 'tcp-gt']:.0f} vs "
                                          f"{big.loc[i].drop('tcp-gt').min():.0f}" for i in big.index)))
        return rep


@register
class Fig10(Experiment):
    paper = "000"
    name = "fig10"
    title = "50 flows on 500 Mbit/s, RTT 20 ms to 1000 ms: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + ["RTTs 20, 40, 80, 160, 320, 640, 1000 ms (quick: 20, 80, 320); 200 s (quick: 60 s)."]

    def runs(self, quick: bool) -> List[Run]:
        pts = (20, 80, 320) if quick else (20, 40, 80, 160, 320, 640, 1000)
        dur = 60 if quick else 200
        return _sweep_runs(pts, lambda proto, r: _net("500Mbps", [_sweep_flow(proto, 50, r)], dur,
                                                      warmup=f"{dur // 2}s", sample=""), "rtt_ms")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        rep = _sweep_report(data, "rtt_ms", "RTT (ms)", "fig10", "Fig. 10: impact of RTT", True)
        d = data["points"]
        p = d.pivot_table(index="rtt_ms", columns="proto", values="utilization")
        top = p.index.max()
        rep.checks.append(claim(f"at the longest RTT ({top:g} ms) TCP-GT's utilization exceeds the loss-based "
                                "protocols' (SACK, HSTCP, CUBIC)",
                                bool(p.loc[top, "tcp-gt"] > p.loc[top, ["SACK", "HSTCP", "CUBIC"]].max()),
                                ", ".join(f"{c} {p.loc[top, c]:.3f}" for c in p.columns)))
        best = bool(p.loc[top, "tcp-gt"] >= p.loc[top].max() - 0.01)
        rep.checks.append(Check(f"TCP-GT has the highest utilization at the longest RTT ({top:g} ms)",
                                ", ".join(f"{c} {p.loc[top, c]:.3f}" for c in p.columns), best,
                                published="higher than the others", reason="" if best else
                                "FAST, which keeps alpha packets queued per flow, fills the long pipe "
                                "faster than cclab's TCP-GT"))
        return rep


@register
class Fig11(Experiment):
    paper = "000"
    name = "fig11"
    title = "300 Mbit/s, 80 ms, 2 to 100 flows: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + ["2, 5, 10, 20, 50, 100 flows (quick: 2, 20, 100); 100 s (quick: 40 s)."]

    def runs(self, quick: bool) -> List[Run]:
        pts = (2, 20, 100) if quick else (2, 5, 10, 20, 50, 100)
        dur = 40 if quick else 100
        return _sweep_runs(pts, lambda proto, n: _net("300Mbps", [_sweep_flow(proto, n, 80)], dur,
                                                      warmup=f"{dur // 2}s", sample=""), "flows")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        rep = _sweep_report(data, "flows", "number of flows", "fig11", "Fig. 11: impact of the number of flows", True)
        gt = data["points"][data["points"].proto == "tcp-gt"]
        rep.checks.append(claim("TCP-GT never drops a packet, whatever the number of flows", int(gt.drops.sum()) == 0,
                                f"{int(gt.drops.sum())} drops in {len(gt)} runs"))
        return rep


@register
class Fig12(Experiment):
    paper = "000"
    name = "fig12"
    title = "50 flows and 50-1000 web sessions on 500 Mbit/s, 40 ms: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + [
        "Web sessions (ns-2 WebTraf, the paper's parameters): 10 users per session is read as 10 clients per "
        "session; inter-page 4 s (exponential), 10 objects per page, inter-object 0.01 s, object size Pareto mean "
        "3000 B shape 1.2; 40 servers, clients on 1 Gbit/s links; sessions 50, 200, 400, 600, 800, 1000 (quick: "
        "50, 1000); 100 s (quick: 40 s).",
    ]

    def runs(self, quick: bool) -> List[Run]:
        pts = (50, 1000) if quick else (50, 200, 400, 600, 800, 1000)
        dur = 40 if quick else 100

        def make(proto: str, n: int) -> Dict[str, Any]:
            sc = _net("500Mbps", [_sweep_flow(proto, 50, 40)], dur, warmup=f"{dur // 2}s", sample="")
            sc["web"] = {"sessions": n, "pages_per_session": dur // 4 + 5, "session_spread": "1s",
                         "inter_page": {"dist": "exponential", "mean": 4},
                         "objects_per_page": {"dist": "constant", "value": 10},
                         "inter_object": {"dist": "constant", "value": 0.01},
                         "object_size": {"dist": "pareto", "mean": 3000, "shape": 1.2},
                         "servers": 40, "clients": min(10 * n, 2000), "packet_size": "1000B"}
            return sc

        return _sweep_runs(pts, make, "sessions")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        rep = _sweep_report(data, "sessions", "web sessions", "fig12", "Fig. 12: with web-like traffic", False,
                            gt_never_drops=False)
        p = data["points"].pivot_table(index="sessions", columns="proto", values="drops")
        fewest = bool((p["tcp-gt"] <= p.drop(columns="tcp-gt").min(axis=1)).all())
        rep.checks.append(claim("TCP-GT always drops fewer packets than the other protocols", fewest,
                                ", ".join(f"{i}: {p.loc[i, 'tcp-gt']} vs {p.loc[i].drop('tcp-gt').min()}"
                                          for i in p.index)))
        return rep
