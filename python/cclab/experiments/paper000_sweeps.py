"""Paper 000: Jung, Kim, Yeom, Kang, "TCP-GT: A New Approach to Congestion Control
Based on Goodput and Throughput" (J. Communications and Networks, 2010): Figs. 9-12,
TCP-GT against SACK, HighSpeed, FAST and CUBIC (Figs. 4-8 and Table 1 are in paper000.py).

Section IV's common set-up: a dumbbell with a drop-tail bottleneck queue of one
BDP, 1000-byte packets and 40-byte ACKs; 500 Mbit/s unless an experiment says
otherwise. TCP-GT is cclab's ``tcp-gt`` (docs/algorithms/tcp-gt.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from . import paper000_gt as G
from . import register
from .base import Check, Experiment, Report, Run, claim
from .common import dumbbell, figure, flow, mean_ci

SETUP = [
    "Dumbbell, drop-tail bottleneck buffer of one BDP (at the flows' mean RTT), 1000-byte packets, 40-byte ACKs "
    "(section IV); access links 10x the bottleneck; RTT set by the sender's access delay; seed 1 unless said.",
]


def _net(rate: str, flows: Sequence[Dict[str, Any]], duration: float, **kw: Any) -> Dict[str, Any]:
    delay = kw.pop("delay", "1ms")
    return dumbbell(rate, delay, "1bdp", flows, f"{duration:g}s", sample_interval=kw.pop("sample", "100ms"), **kw)


# -- Figs. 9-12: against SACK, HighSpeed, FAST and CUBIC --------------------------------------

PROTOS = {"tcp-gt": ("tcp-gt", "sack"), "SACK": ("newreno", "sack"), "HSTCP": ("highspeed", "sack"),
          "FAST": ("fast", "sack"), "CUBIC": ("cubic", "sack")}
#: Utilizations closer than this are ties (the precision of reading Fig. 10(a)).
TIE = 0.01
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


class _Sweep(Experiment):
    """Figs. 9-12: each TCP-GT variant's checks use its own TCP-GT runs and the other protocols'
    (run once, under the default)."""

    def shared_run(self, run: Run) -> bool:
        return run.params.get("proto") != "tcp-gt"


def _variant_points(d: pd.DataFrame, variant: str) -> pd.DataFrame:
    """Seed 1's points with TCP-GT under ``variant`` (the other protocols as they are)."""
    d = d[d.seed == 1]
    return pd.concat([d[(d.proto == "tcp-gt") & (d.variant == variant)],
                      d[(d.proto != "tcp-gt") & (d.variant == G.DEFAULT)]], ignore_index=True)


def _gt_points(pivot: pd.DataFrame) -> pd.DataFrame:
    """The rows of a protocol pivot where TCP-GT has a value (a run not computed leaves its point out)."""
    return pivot.reindex(columns=list(dict.fromkeys([*pivot.columns, "tcp-gt"]))).dropna(subset=["tcp-gt"])


def _queue_and_drops(d: pd.DataFrame, x: str, xlabel: str, never: Optional[Tuple[str, str, str]],
                     q_quote: Tuple[str, str] = ("TCP-GT's bottleneck queue size is significantly smaller than others",
                                                 "§IV-E.1, Fig. 9(b)")) -> List[Check]:
    """TCP-GT's queue the smallest at every point, and (``never``: what, quote, section) its no-drop claim."""
    gt = d[d.proto == "tcp-gt"].set_index(x)
    # at TCP-GT's points (a run not computed, not_computed.py, leaves its point out)
    others = d[d.proto != "tcp-gt"].groupby(x).mean_queue_pkts.min().reindex(gt.index)
    ok_q = gt.mean_queue_pkts <= others + 1
    checks = [claim("TCP-GT's mean queue is the smallest of all protocols at every point", bool(ok_q.all()),
                    ", ".join(f"{i:g}: {gt.mean_queue_pkts[i]:.0f} vs {others[i]:.0f}" for i in gt.index),
                    quote=q_quote[0], section=q_quote[1])]
    if never is not None:
        bad = [f"{i:g}" for i in gt.index[(gt.drops > 0).to_numpy()]]
        checks.append(G.no_drop(never[0], int(gt.drops.sum()), len(gt), quote=never[1], section=never[2])
                      if not bad else replace(G.no_drop(never[0], int(gt.drops.sum()), len(gt), quote=never[1],
                                                        section=never[2]),
                                              measured=f"{int(gt.drops.sum())} drops in {len(gt)} runs (at "
                                              f"{', '.join(bad)} {xlabel})"))
    return checks


def _sweep_figure(d: pd.DataFrame, x: str, xlabel: str, title: str, logx: bool) -> Any:
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
    return fig


def _sweep_table(data: pd.DataFrame, x: str, xlabel: str) -> str:
    d = data[data.seed == 1]
    cols = [(p, G.DEFAULT) for p in PROTOS] + [("tcp-gt", v) for v in G.VARIANTS if v != G.DEFAULT]
    md = "| " + xlabel + " | " + " | ".join(f"{p}{'' if v == G.DEFAULT else f' ({v})'} util / queue / drops"
                                           for p, v in cols) + " |\n|" + "---|" * (len(cols) + 1) + "\n"
    p = d.set_index([x, "proto", "variant"])
    md += "\n".join(f"| {i:g} | " + " | ".join(
        (f"{p.loc[(i, q, v)].utilization:.3f} / {p.loc[(i, q, v)].mean_queue_pkts:.0f} / "
         f"{int(p.loc[(i, q, v)].drops)}") if (i, q, v) in p.index else "—" for q, v in cols) + " |"
        for i in sorted(d[x].unique()))
    return md


def _sweep_report(data: Dict[str, pd.DataFrame], x: str, xlabel: str, name: str, title: str, logx: bool,
                  checks_of: Callable[[pd.DataFrame], List[Check]], suspects: Mapping[str, str]) -> Report:
    """The checks under every TCP-GT variant (``checks_of`` on seed 1's points plus, where there are
    more, every seed's); the default's failing checks with the variant that explains them."""
    d = data["points"]
    frames = {v: {"points": pd.concat([_variant_points(d, v), d[(d.seed != 1) & (
        ((d.proto == "tcp-gt") & (d.variant == v)) | ((d.proto != "tcp-gt") & (d.variant == G.DEFAULT)))]],
        ignore_index=True).assign(variant=v)} for v in G.VARIANTS}
    merged = {"points": pd.concat([f["points"] for f in frames.values()], ignore_index=True)}
    checks, variants = G.variants_report(merged, lambda t: checks_of(t["points"]), suspects, explainers=("p-cap",))
    fig = _sweep_figure(_variant_points(d, G.DEFAULT), x, xlabel, title, logx)
    return Report(figures={name: fig}, checks=checks, variants=variants, markdown=_sweep_table(d, x, xlabel))


def _sweep_runs(points: Sequence[Any], make, key: str, seeds_at: Optional[Any] = None,
                variants: bool = True) -> List[Run]:
    """Every protocol at every point (seed 1; the default TCP-GT), TCP-GT's variants at every point, and
    at the point ``seeds_at`` seeds 2 and 3 of all of them."""
    out = []
    for p in points:
        for seed in ((1, 2, 3) if p == seeds_at else (1,)):
            for proto in PROTOS:
                out.append(Run(f"{key}={p},{proto},seed={seed}", make(proto, p), seed,
                               {key: p, "proto": proto, "variant": G.DEFAULT, "seed": seed}))
            for v, (params, _) in G.VARIANTS.items():
                if v != G.DEFAULT and variants:
                    out.append(Run(f"{key}={p},tcp-gt,{v},seed={seed}", G.with_params(make("tcp-gt", p), params),
                                   seed, {key: p, "proto": "tcp-gt", "variant": v, "seed": seed}))
    return out


@register
class Fig9(_Sweep):
    paper = "000"
    name = "fig9"
    title = "50 flows, capacity 50 Mbit/s to 2 Gbit/s, 80 ms: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + ["Capacities 50, 100, 200, 500, 1000, 2000 Mbit/s (quick: 50, 200, 500); 100 s "
                                 "(quick: 40 s).",
                                 "Variants: TCP-GT's start (slow start or not) and a cap on eq. (15)'s p "
                                 "(paper000_gt.py), at every capacity."]

    def runs(self, quick: bool) -> List[Run]:
        pts = (50, 200, 500) if quick else (50, 100, 200, 500, 1000, 2000)
        dur = 40 if quick else 100
        return _sweep_runs(pts, lambda proto, c: _net(f"{c}Mbps", [_sweep_flow(proto, 50, 80)], dur,
                                                      warmup=f"{dur // 2}s", sample=""), "capacity_mbps")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    Q9 = "Furthermore, TCP-GT never drops any packets, whereas other TCP implementations drop thousands of packets."
    QU = "As shown in Fig. 9(a), we notice that the bottleneck utilization is higher than 90% in all participants."

    def checks(self, d: pd.DataFrame) -> List[Check]:
        d1 = d[d.seed == 1]
        gt = d1[d1.proto == "tcp-gt"].set_index("capacity_mbps")
        others = d1[d1.proto != "tcp-gt"]
        out = _queue_and_drops(d1, "capacity_mbps", "Mbit/s",
                               ("TCP-GT drops no packet at any capacity", self.Q9, "§IV-E.1, Fig. 9(c)"))
        out[-1] = replace(out[-1], headline=True)
        out.append(claim("TCP-GT's utilization is above 90 % at every capacity", bool((gt.utilization > 0.9).all()),
                         ", ".join(f"{i:g}: {u:.3f}" for i, u in gt.utilization.items()), quote=self.QU,
                         section="§IV-E.1, Fig. 9(a)", headline=True))
        low = others[others.utilization <= 0.9]
        out.append(claim("the other four protocols' utilization is above 90 % at every capacity", low.empty,
                         "all above" if low.empty else ", ".join(f"{r.proto} {r.capacity_mbps:g}: "
                                                                f"{r.utilization:.3f}" for r in low.itertuples()),
                         quote=self.QU, section="§IV-E.1, Fig. 9(a)"))
        big = d1[d1.capacity_mbps >= 200].pivot_table(index="capacity_mbps", columns="proto", values="mean_queue_pkts")
        out.append(claim("from 200 Mbit/s up TCP-GT's queue is far below every other protocol's (under half)",
                         bool((big["tcp-gt"] < 0.5 * big.drop(columns="tcp-gt").min(axis=1)).all()),
                         ", ".join(f"{i:g}: {big.loc[i, 'tcp-gt']:.0f} vs {big.loc[i].drop('tcp-gt').min():.0f}"
                                   for i in big.index),
                         quote="As capacity increases, bottleneck queue sizes of competitors increase "
                         "significantly. In contrast, TCP-GT's bottleneck queue size is significantly smaller than "
                         "others.", section="§IV-E.1, Fig. 9(b)"))
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _sweep_report(data, "capacity_mbps", "capacity (Mbit/s)", "fig9", "Fig. 9: impact of capacity", True,
                             self.checks, {})


@register
class Fig10(_Sweep):
    paper = "000"
    name = "fig10"
    title = "50 flows on 500 Mbit/s, RTT 20 ms to 1000 ms: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + [
        "RTTs 20, 40, 80, 160, 320, 640, 1000 ms (quick: 20, 80, 320); 200 s (quick: 60 s).",
        "Utilizations within 0.01 of each other are ties (the precision of reading Fig. 10(a)).",
        "At the longest RTT, seeds 1-3 of every protocol (the flows' starts, spread over 1 s, differ).",
        "Variants: TCP-GT's start (slow start or not) and a cap on eq. (15)'s p (paper000_gt.py), at every RTT."]

    def runs(self, quick: bool) -> List[Run]:
        pts = (20, 80, 320) if quick else (20, 40, 80, 160, 320, 640, 1000)
        dur = 60 if quick else 200
        return _sweep_runs(pts, lambda proto, r: _net("500Mbps", [_sweep_flow(proto, 50, r)], dur,
                                                      warmup=f"{dur // 2}s", sample=""), "rtt_ms", seeds_at=pts[-1])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    Q10 = "As in the previous experiments, TCP-GT's bottleneck queue size remains at a low level (Fig. 10(b)), and " \
          "it does not drop any packets (Fig. 10(c))."
    QH = "TCP-GT achieves a higher utilization than other TCP implementations regardless of the number of flows."

    def checks(self, d: pd.DataFrame) -> List[Check]:
        d1 = d[d.seed == 1]
        out = _queue_and_drops(d1, "rtt_ms", "ms", ("TCP-GT drops no packet at any RTT", self.Q10,
                                                     "§IV-E.2, Fig. 10(c)"),
                               q_quote=(self.Q10, "§IV-E.2, Fig. 10(b)"))
        out[-1] = replace(out[-1], headline=True)
        p = _gt_points(d1.pivot_table(index="rtt_ms", columns="proto", values="utilization"))
        dr = d1[d1.proto == "tcp-gt"].set_index("rtt_ms").drops
        best = [r for r in p.index if p.loc[r, "tcp-gt"] >= p.loc[r].drop("tcp-gt").max() - TIE and dr[r] == 0]
        out.append(claim("TCP-GT's utilization is the highest of the five protocols at every RTT, and with no drop "
                         "(as the paper's TCP-GT, Fig. 10(c))", len(best) == len(p.index),
                         "; ".join(f"{r:g} ms: {p.loc[r, 'tcp-gt']:.3f} vs {p.loc[r].drop('tcp-gt').max():.3f} "
                                   f"({p.loc[r].drop('tcp-gt').idxmax()}), {int(dr[r])} drops" for r in p.index),
                         quote=self.QH, section="§IV-E.2, Fig. 10(a)", headline=True))
        top = float(d.rtt_ms.max())
        t = d[d.rtt_ms == top]
        per = _gt_points(t.pivot_table(index="seed", columns="proto", values="utilization"))
        seeds = sorted(per.index)
        drops = t[t.proto == "tcp-gt"].set_index("seed").drops
        wins = [k for k in seeds if per.loc[k, "tcp-gt"] >= per.loc[k].drop("tcp-gt").max() - TIE and drops[k] == 0]
        m, h = mean_ci(per["tcp-gt"].tolist())
        out.append(claim(f"at the longest RTT ({top:g} ms) TCP-GT has the highest utilization with no drop, in every "
                         "seed", len(wins) == len(seeds),
                         f"TCP-GT {m:.3f} +-{h:.3f} over {len(seeds)} seeds, {int(drops.sum())} drops; best other "
                         + ", ".join(f"{c} {per[c].mean():.3f}" for c in per.columns if c != "tcp-gt"),
                         quote=self.QH, section="§IV-E.2, Fig. 10(a)"))
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _sweep_report(data, "rtt_ms", "RTT (ms)", "fig10", "Fig. 10: impact of RTT", True, self.checks, {})


@register
class Fig11(_Sweep):
    paper = "000"
    name = "fig11"
    title = "300 Mbit/s, 80 ms, 2 to 100 flows: utilization, queue, drops of five protocols"
    assumptions = SWEEP_SETUP + ["2, 5, 10, 20, 50, 100 flows (quick: 2, 20, 100); 100 s (quick: 40 s).",
                                 "Variants: TCP-GT's start (slow start or not) and a cap on eq. (15)'s p "
                                 "(paper000_gt.py), at every number of flows."]

    def runs(self, quick: bool) -> List[Run]:
        pts = (2, 20, 100) if quick else (2, 5, 10, 20, 50, 100)
        dur = 40 if quick else 100
        return _sweep_runs(pts, lambda proto, n: _net("300Mbps", [_sweep_flow(proto, n, 80)], dur,
                                                      warmup=f"{dur // 2}s", sample=""), "flows")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    Q11 = "In all simulations, TCP-GT never drops a packet"

    def checks(self, d: pd.DataFrame) -> List[Check]:
        d1 = d[d.seed == 1]
        out = _queue_and_drops(d1, "flows", "flows", ("TCP-GT drops no packet, whatever the number of flows",
                                                      self.Q11, "§IV-E.3, Fig. 11 caption"),
                               q_quote=("Fig. 11 shows that overall, TCP-GT exhibits high utilization (Fig. 11(a)), "
                                        "small queue size (Fig. 11(b))", "§IV-E.3, Fig. 11(b)"))
        out[-1] = replace(out[-1], headline=True)
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _sweep_report(data, "flows", "number of flows", "fig11", "Fig. 11: impact of the number of flows", True,
                             self.checks, {})


@register
class Fig12(_Sweep):
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

        return _sweep_runs(pts, make, "sessions", variants=False)

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _sweep_measure(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        d = data["points"]
        checks = _queue_and_drops(d, "sessions", "sessions", None,
                                  q_quote=("its queue size is at lowest level among all competitors",
                                           "§IV-E.4, Fig. 12(b)"))
        p = d.pivot_table(index="sessions", columns="proto", values="drops")
        fewest = bool((p["tcp-gt"] <= p.drop(columns="tcp-gt").min(axis=1)).all())
        checks.append(claim("TCP-GT always drops fewer packets than the other protocols", fewest,
                            ", ".join(f"{i}: {p.loc[i, 'tcp-gt']} vs {p.loc[i].drop('tcp-gt').min()}" for i in p.index),
                            quote="But, TCP-GT always drops fewer packets than other protocols do",
                            section="Fig. 12 caption"))
        return Report(figures={"fig12": _sweep_figure(d, "sessions", "web sessions", "Fig. 12: with web-like traffic",
                                                      False)}, checks=checks,
                      markdown=_sweep_table(d, "sessions", "web sessions"))
