"""Paper 000: Jung, Kim, Yeom, Kang, "TCP-GT: A New Approach to Congestion Control
Based on Goodput and Throughput" (JCN 2010): the dynamics of section III-D and IV
(Fig. 4 to Fig. 8 and Table 1).

Setup of section IV: a dumbbell with a 500 Mbit/s drop-tail bottleneck whose buffer
is one bandwidth-delay product, 1000-byte packets and 40-byte ACKs, long-lived FTP
flows running TCP-GT with the paper's parameters (rtt_base = 50 ms, t = -0.05).
The paper names neither its durations nor the sampling of its plots; the choices
are listed in each experiment's ``assumptions``. Figs. 9-12 are in paper000_sweeps.py.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

import numpy as np
import pandas as pd

from . import register
from . import paper000_gt as G
from .base import Check, Experiment, Report, Run, claim, compare
from .common import dumbbell, figure, flow, jain, mean_ci, series

CC = "tcp-gt"
PKT = "1000B"
SAMPLE = "200ms"
SETUP = [
    "Dumbbell, drop-tail bottleneck buffer of one BDP (bottleneck rate x mean RTT of the flows / 1000 B), "
    "1000-byte data packets, 40-byte ACKs, one ACK per packet, TCP-GT defaults (rtt_base 50 ms, t = -0.05).",
    "Bottleneck one-way delay 18 ms plus 1 ms receiver access link; each flow's sender access delay makes up "
    "its RTT (so a 40-ms flow has 1 ms).",
    "One seed (seed 1): the scenarios are deterministic apart from start_spread (Fig. 8).",
    "Series sampled every 200 ms; per-flow throughput plotted as 1-s means of the goodput.",
]
#: Where seeds must differ: each data packet leaves after a random delay in [0, 10 us] (ns-2's overhead_),
#: below a packet's 16 us at 500 Mbit/s; the scenarios are otherwise deterministic.
OVERHEAD = "10us"
SEEDS_NOTE = "send overhead uniform in [0, 10 us] per packet so that seeds differ; an assumption, not the paper's"


def _gt(rtt: str, start: float = 0.0, **kw: Any) -> Dict[str, Any]:
    return flow(CC, rtt=rtt, packet_size=PKT, ack_size="40B", start=f"{start:g}s", **kw)


def _scenario(rate: str, flows: Sequence[Dict[str, Any]], duration: float) -> Dict[str, Any]:
    return dumbbell(rate, "18ms", "1bdp", flows, f"{duration:g}s", sample_interval=SAMPLE)


def _keep(res: Any, flows: int | None = None) -> Dict[str, Any]:
    fs = series(res.flow_series, ["time_s", "flow", "cwnd", "goodput_bps"])
    if flows is not None:
        fs = fs[fs.flow < flows].reset_index(drop=True)
    qs = series(res.queue_series, ["time_s", "len_pkts", "throughput_bps"])
    fl = res.flows[["flow", "rtt_s", "start_s", "goodput_bps", "drops", "timeouts"]] \
        if "rtt_s" in res.flows.columns else res.flows
    return {"flow_series": fs, "queue_series": qs, "flows": fl, "summary": res.summary()}


def _per_second(fs: pd.DataFrame) -> pd.DataFrame:
    """1-s means of each flow's goodput (Mbit/s), indexed by the second's end, one column per flow."""
    d = fs.assign(sec=np.ceil(fs.time_s - 1e-9).astype(int))
    d = d[d.sec > 0]
    return d.pivot_table(index="sec", columns="flow", values="goodput_bps", aggfunc="mean") / 1e6


def _goodputs(fs: pd.DataFrame, t0: float, t1: float) -> List[float]:
    m = (fs.time_s > t0) & (fs.time_s <= t1)
    return fs[m].groupby("flow").goodput_bps.mean().sort_index().tolist()


def _util(qs: pd.DataFrame, rate: float, t0: float, t1: float = 1e9) -> float:
    m = (qs.time_s > t0) & (qs.time_s <= t1)
    return float(qs[m].throughput_bps.mean() / rate)


def _three_panels(fs: pd.DataFrame, qs: pd.DataFrame, rate: float, title: str, labels: Dict[int, str],
                  extra: pd.Series | None = None) -> Any:
    """The paper's (a) throughput, (b) bottleneck utilization, (c) bottleneck queue."""
    fig, axes = figure(3, 1, height=2.1)
    per = _per_second(fs)
    for f, lab in labels.items():
        if f in per.columns:
            axes[0].plot(per.index, per[f], lw=0.9, label=lab)
    if extra is not None:
        axes[0].plot(extra.index, extra.values, lw=0.9, ls="--", c="grey", label="mean of the 100 added flows")
    axes[0].set_ylabel("throughput (Mbit/s)")
    axes[0].legend(fontsize=7, loc="upper right", ncol=2)
    axes[0].set_title(title, fontsize=9)
    q = qs.assign(sec=np.ceil(qs.time_s - 1e-9).astype(int))
    u = q[q.sec > 0].groupby("sec").throughput_bps.mean() / rate
    axes[1].plot(u.index, u.values, lw=0.9)
    axes[1].set_ylim(0, 1.05)
    axes[1].set_ylabel("utilization")
    axes[2].plot(qs.time_s, qs.len_pkts, lw=0.7)
    axes[2].set_ylabel("queue (pkts)")
    axes[2].set_xlabel("time (s)")
    return fig


def _drops(data: Dict[str, pd.DataFrame]) -> int:
    return int(data["summary"].bottleneck_drops.sum())


@register
class Fig4(Experiment):
    paper = "000"
    name = "fig4"
    title = "The behavior of TCP-GT: cwnd trajectories converging to fairness, 100 Mbit/s, 40 ms RTT"
    assumptions = SETUP + [
        "Two TCP-GT flows (the paper does not say how many): the first starts at 0 s, the second at 20 s; "
        "100 Mbit/s, 40 ms RTT, buffer one BDP (500 packets); 120 s (quick: 100 s).",
        "Fairness is Jain's index of the two goodputs over the last 20 s.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        d = 100 if quick else 120
        return G.variant_runs(lambda params: [
            Run("two-flows", _scenario("100Mbps", [_gt("40ms", 0), _gt("40ms", 20)], d), 1, {})])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        checks, variants = G.variants_report(data, lambda d: self.one(d).checks, explainers=(G.EPOCHS,))
        rep = self.one(G.subset(data, G.DEFAULT))
        return Report(figures=rep.figures, checks=checks, variants=variants)

    def one(self, data: Dict[str, pd.DataFrame]) -> Report:
        fs, qs = data["flow_series"], data["queue_series"]
        end = float(fs.time_s.max())
        fig, axes = figure(2, 1, height=2.6)
        for f in sorted(fs.flow.unique()):
            d = fs[fs.flow == f]
            axes[0].plot(d.time_s, d.cwnd, lw=0.9, label=f"flow {f + 1}")
        axes[0].axhline(500 / 2, ls=":", c="k", lw=0.8, label="fair share (BDP / 2)")
        axes[0].set_ylabel("cwnd (pkts)")
        axes[0].legend(fontsize=7)
        axes[0].set_title("Fig. 4: TCP-GT cwnd, 100 Mbit/s, 40 ms", fontsize=9)
        axes[1].plot(qs.time_s, qs.len_pkts, lw=0.7)
        axes[1].set_ylabel("queue (pkts)")
        axes[1].set_xlabel("time (s)")
        g = _goodputs(fs, end - 20, end)
        j = jain(g)
        # Quadratic growth while increasing: within each rise of a window (a run of growing 200-ms samples
        # after the first 5 s), the later steps are larger than the earlier ones.
        segs, acc = 0, 0
        for f in fs.flow.unique():
            w = fs[(fs.flow == f) & (fs.time_s > 5)].cwnd.to_numpy()
            dw = np.diff(w)
            a = 0
            while a < len(dw):
                b = a
                while b < len(dw) and dw[b] > 0:
                    b += 1
                if b - a >= 4:
                    h = (b - a) // 2
                    segs += 1
                    acc += int(dw[b - h:b].mean() > dw[a:a + h].mean())
                a = b + 1
        accel = segs > 0 and acc > 0.6 * segs
        checks = [
            claim("the two windows converge to fairness", j > 0.95,
                  f"Jain {j:.3f} over the last 20 s, goodputs {', '.join(f'{x / 1e6:.1f}' for x in g)} Mbit/s"),
            claim("the window grows faster and faster in an increasing phase (splitting: quadratic in s)", accel,
                  f"{acc} of {segs} rises (4+ growing 200-ms samples) grow faster in their second half"),
            G.no_drop("TCP-GT drops no packet (Fig. 4's two flows)", _drops(data), 1),
        ]
        return Report(figures={"fig4": fig}, checks=checks)


@register
class Fig5(Experiment):
    paper = "000"
    name = "fig5"
    title = "Two TCP-GT flows on 500 Mbit/s converge at the same speed at (a) 40 ms and (b) 80 ms RTT"
    assumptions = SETUP[:2] + SETUP[3:] + [
        "The second flow starts at 20 s as in the paper; 150 s (quick: 120 s).",
        "Convergence time: from the second flow's start to the first second at which the 5-s means of the "
        "two goodputs are within 10 % of each other (smaller / larger >= 0.9).",
        "The paper's '60 seconds' is read as a round number: +-5 s (half its last significant digit, the tens); "
        "'almost the same' for (b) as (b) - (a) = 0 to that precision.",
        f"Seeds 1-3 ({SEEDS_NOTE}); quick form: seeds 1-3 for the default variant, seed 1 for the others.",
        "Variants: TCP-GT's start (slow start or not) and a cap on eq. (15)'s p; ablation: rtt_min over 1000 "
        "epochs (paper000_gt.py).",
    ]
    RTTS = (40, 80)

    def runs(self, quick: bool) -> List[Run]:
        d = 120 if quick else 150

        def make(seeds: Sequence[int]) -> Any:
            return lambda params: [
                Run(f"rtt={r}ms,seed={k}", _scenario("500Mbps", [_gt(f"{r}ms", 0), _gt(f"{r}ms", 20)], d), k,
                    {"rtt_ms": r, "seed": k}) for r in self.RTTS for k in seeds]
        runs = G.variant_runs(make((1, 2, 3)), ablations=(), variants=(G.DEFAULT,))
        runs += G.variant_runs(make((1,) if quick else (1, 2, 3)),
                               variants=[v for v in G.VARIANTS if v != G.DEFAULT])
        return [Run(r.key, G.with_params(r.scenario, {}, OVERHEAD), r.seed, r.params) for r in runs]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    @staticmethod
    def convergence(fs: pd.DataFrame, start: float = 20.0) -> float:
        """Seconds from ``start`` to the first second at which the 5-s means of the two goodputs are
        within 10 % of each other (NaN if never)."""
        per = _per_second(fs).rolling(5, min_periods=5).mean()
        per = per[per.index >= start + 5].dropna()
        ok = (per.min(axis=1) / per.max(axis=1)) >= 0.9
        hit = ok.index[ok.to_numpy()]
        return float(hit.min() - start) if len(hit) else float("nan")

    def checks(self, data: Dict[str, pd.DataFrame]) -> List[Check]:
        fs, sm = data["flow_series"], data["summary"]
        conv: Dict[int, List[float]] = {r: [] for r in self.RTTS}
        jj: List[float] = []
        for (r, k), d in fs.groupby(["rtt_ms", "seed"]):
            conv[int(r)].append(self.convergence(d))
            end = float(d.time_s.max())
            jj.append(jain(_goodputs(d, end - 20, end)))
        (m40, h40), (m80, h80) = mean_ci(conv[40]), mean_ci(conv[80])
        n = len(conv[40])
        q5 = "Fig. 5(a)"
        out = [
            compare("(a) 40 ms: time to converge to fairness after the second flow starts (s)", 60.0, m40, 5,
                    spread=h40, quote="In 40 ms RTT condition (Fig. 5(a)), it takes 60 seconds to converge to "
                    "fairness", section="§IV-A, " + q5),
            compare("(b) - (a): the 80-ms pair converges as fast as the 40-ms pair (s)", 0.0, m80 - m40, 5,
                    spread=float(np.hypot(h40, h80)), quote="in Fig. 5(b) of 80 ms RTT, the convergence time is "
                    "almost the same", section="§IV-A, Fig. 5(b)"),
            claim("both pairs end fair (Jain > 0.98 over the last 20 s, every seed)", min(jj) > 0.98,
                  f"smallest {min(jj):.3f} over {len(jj)} runs", quote="TCP-GT converges to fairness at same speed "
                  "regardless of RTT", section="Fig. 5 caption"),
        ]
        for r, tag in zip(self.RTTS, "ab"):
            d = int(sm[sm.rtt_ms == r].bottleneck_drops.sum())
            out.append(G.no_drop(f"({tag}) {r} ms: TCP-GT drops no packet (Fig. 5 is one of 'our simulations')",
                                 d, n))
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        checks, variants = G.variants_report(data, self.checks, explainers=(G.EPOCHS,))
        d0 = G.subset(data, G.DEFAULT)
        fs = d0["flow_series"]
        fig, axes = figure(2, 1, height=2.6)
        for ax, r, tag in zip(axes, self.RTTS, "ab"):
            d = fs[(fs.rtt_ms == r) & (fs.seed == 1)]
            per = _per_second(d)
            for f in per.columns:
                ax.plot(per.index, per[f], lw=0.9, label=f"flow {f + 1}")
            c = self.convergence(d)
            if not np.isnan(c):
                ax.axvline(20 + c, ls=":", c="k", lw=0.8, label=f"converged (+{c:.0f} s)")
            ax.set_ylabel("throughput (Mbit/s)")
            ax.set_title(f"Fig. 5({tag}): two TCP-GT flows, 500 Mbit/s, {r} ms (seed 1)", fontsize=9)
            ax.legend(fontsize=7)
        axes[-1].set_xlabel("time (s)")
        sm = data["summary"].groupby(["variant", "rtt_ms"]).agg(drops=("bottleneck_drops", "sum"),
                                                                queue=("bottleneck_mean_queue_pkts", "mean"),
                                                                runs=("bottleneck_drops", "size"))
        md = "| variant | RTT (ms) | runs | drops | mean queue (pkts) |\n|---|---|---|---|---|\n" + "\n".join(
            f"| {v} | {r} | {int(x.runs)} | {int(x.drops)} | {x.queue:.0f} |" for (v, r), x in sm.iterrows())
        return Report(figures={"fig5": fig}, checks=checks, variants=variants, markdown=md)


@register
class Fig6(Experiment):
    paper = "000"
    name = "fig6"
    title = "Five TCP-GT flows starting 20 s apart on 500 Mbit/s, 80 ms: throughput, utilization, queue"
    assumptions = SETUP + [
        "Starts at 0, 20, 40, 60, 80 s as in the paper; 150 s (quick: 120 s).",
        "Utilization is measured once the first flow is up (after 15 s); fairness over the last 20 s.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        d = 120 if quick else 150
        return G.variant_runs(lambda params: [
            Run("five-flows", _scenario("500Mbps", [_gt("80ms", 20 * i) for i in range(5)], d), 1, {})])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        checks, variants = G.variants_report(data, lambda d: self.one(d).checks, explainers=(G.EPOCHS,))
        rep = self.one(G.subset(data, G.DEFAULT))
        return Report(figures=rep.figures, checks=checks, variants=variants)

    def one(self, data: Dict[str, pd.DataFrame]) -> Report:
        fs, qs = data["flow_series"], data["queue_series"]
        end = float(fs.time_s.max())
        fig = _three_panels(fs, qs, 500e6, "Fig. 6: five TCP-GT flows, 500 Mbit/s, 80 ms",
                            {f: f"flow {f + 1} (start {20 * f} s)" for f in range(5)})
        u = _util(qs, 500e6, 15)
        g = _goodputs(fs, end - 20, end)
        j = jain(g)
        qmax = float(qs[qs.time_s > 15].len_pkts.max())
        qmean = float(qs[qs.time_s > 15].len_pkts.mean())
        bdp = float(data["summary"].bdp_pkts.iloc[0])
        checks = [
            G.no_drop("TCP-GT drops no packet (five flows joining 20 s apart)", _drops(data), 1,
                      quote="In this simulation, we observed no packet drop and low persistent queue size.",
                      section="§IV-B, Fig. 6"),
            claim("high utilization once the first flow is up (> 0.9 after 15 s)", u > 0.9, f"{u:.3f}"),
            claim("the flows converge to fairness (Jain > 0.95 over the last 20 s)", j > 0.95,
                  f"Jain {j:.3f}; goodputs {', '.join(f'{x / 1e6:.0f}' for x in g)} Mbit/s"),
            claim("no queue overshoot: the queue stays below 20 % of the one-BDP buffer", qmax < 0.2 * bdp,
                  f"max {qmax:.0f} pkts, mean {qmean:.0f} pkts, buffer {bdp:.0f} pkts"),
        ]
        return Report(figures={"fig6": fig}, checks=checks)


@register
class Fig7(Experiment):
    paper = "000"
    name = "fig7"
    title = ("Heterogeneous RTTs: five TCP-GT flows of RTT 40-80 ms on 500 Mbit/s (Fig. 7), and Jain's index "
             "for RTT differences of 10-40 ms (Table 1)")
    assumptions = SETUP + [
        "As in Fig. 6 (the paper: 'all other parameters have the same values'): starts at 0, 20, 40, 60, 80 s, "
        "the flow starting at 20 i s has RTT 40 + i d ms; d = 10, 20, 30, 40 ms for Table 1, d = 10 ms for Fig. 7.",
        "Buffer one BDP at the flows' mean RTT (60, 80, 100, 120 ms for d = 10 ... 40).",
        "Jain's index over the goodputs of the last 50 s (the paper does not say over which time); "
        "runs of 200 s (quick: 150 s).",
    ]
    DS = (10, 20, 30, 40)

    PRINTED = {10: "0.98", 20: "0.92", 30: "0.88", 40: "0.86"}
    Q_TABLE = "Table 1. Jain's fairness index among five TCP-GT flows."
    Q_ORDER = ("unlike the traditional RTT unfairness that a flow with a shorter RTT consumes more bandwidth than a "
               "flow with a longer RTT, the opposite phenomenon happens in TCP-GT; a longer RTT flow consumes more "
               "bandwidth than a shorter RTT flow")

    def runs(self, quick: bool) -> List[Run]:
        dur = 150 if quick else 200
        return G.variant_runs(lambda params: [
            Run(f"d={d}ms", _scenario("500Mbps", [_gt(f"{40 + i * d}ms", 20 * i) for i in range(5)], dur), 1,
                {"d_ms": d}) for d in self.DS])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def checks(self, data: Dict[str, pd.DataFrame]) -> List[Check]:
        fs, qs = data["flow_series"], data["queue_series"]
        end = float(fs.time_s.max())
        gg = {d: _goodputs(fs[fs.d_ms == d], end - 50, end) for d in self.DS}
        out = [compare(f"Table 1: Jain's index, RTT difference {d} ms", self.PRINTED[d], jain(gg[d]),
                       quote=self.Q_TABLE, section="§IV-C, Table 1", headline=True) for d in self.DS]
        longer = [d for d in self.DS if gg[d][-1] > gg[d][0]]
        out.append(claim("Table 1: the longest-RTT flow gets more than the 40-ms flow, at every RTT difference",
                         len(longer) == len(self.DS),
                         "; ".join(f"d = {d}: {gg[d][0] / 1e6:.0f} vs {gg[d][-1] / 1e6:.0f} Mbit/s (40 ms vs "
                                   f"{40 + 4 * d} ms)" for d in self.DS),
                         quote=self.Q_ORDER, section="§IV-C", headline=True))
        q10 = qs[qs.d_ms == 10]
        u = _util(q10, 500e6, 15)
        qmax = float(q10[q10.time_s > 15].len_pkts.max())
        bdp10 = float(data["summary"][data["summary"].d_ms == 10].bdp_pkts.iloc[0])
        q7 = "Fig. 7(a) shows that TCP-GT converges to fairness between heterogeneous RTTs without affecting its " \
             "high utilization (Fig. 7(b)) or causing large instantaneous queue (Fig. 7(c))."
        out += [
            claim("Fig. 7: high utilization with heterogeneous RTTs (> 0.9 after 15 s, d = 10 ms)", u > 0.9,
                  f"{u:.3f}", quote=q7, section="§IV-C, Fig. 7(b)"),
            claim("Fig. 7(c): no large instantaneous queue: below 20 % of the one-BDP buffer after 15 s (d = 10 ms)",
                  qmax < 0.2 * bdp10, f"largest {qmax:.0f} pkts of {bdp10:.0f}", quote=q7,
                  section="§IV-C, Fig. 7(c)"),
            G.no_drop("TCP-GT drops no packet with heterogeneous RTTs (Fig. 7, Table 1)", _drops(data),
                      len(self.DS)),
        ]
        return out

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        checks, variants = G.variants_report(data, self.checks, explainers=(G.EPOCHS,))
        d0 = G.subset(data, G.DEFAULT)
        fs, qs = d0["flow_series"], d0["queue_series"]
        end = float(fs.time_s.max())
        fig = _three_panels(fs[fs.d_ms == 10], qs[qs.d_ms == 10], 500e6,
                            "Fig. 7: five TCP-GT flows, RTT 40, 50, 60, 70, 80 ms, 500 Mbit/s",
                            {f: f"{40 + 10 * f} ms (start {20 * f} s)" for f in range(5)})
        allfs = data["flow_series"]
        jj = {(v, d): jain(_goodputs(allfs[(allfs.variant == v) & (allfs.d_ms == d)], end - 50, end))
              for v in allfs.variant.unique() for d in self.DS}
        gg = {d: _goodputs(fs[fs.d_ms == d], end - 50, end) for d in self.DS}
        md = ["| difference in RTT (ms) | 10 | 20 | 30 | 40 |", "|---|---|---|---|---|",
              "| Jain's index (paper) | " + " | ".join(self.PRINTED[d] for d in self.DS) + " |"]
        md += [f"| Jain's index (cclab, {v}) | " + " | ".join(f"{jj[(v, d)]:.3f}" for d in self.DS) + " |"
               for v in allfs.variant.unique()]
        md += ["", "Goodputs over the last 50 s (Mbit/s), flows in order of RTT (default variant):", ""]
        md += [f"- d = {d} ms: " + ", ".join(f"{x / 1e6:.0f}" for x in gg[d]) for d in self.DS]
        fig2, (ax,) = figure(width=5.0, height=3.2)
        ax.plot(self.DS, [float(self.PRINTED[d]) for d in self.DS], "o--", mfc="none", label="paper")
        for v in allfs.variant.unique():
            ax.plot(self.DS, [jj[(v, d)] for d in self.DS], "s-", label=f"cclab, {v}")
        ax.set_xlabel("difference in RTT (ms)")
        ax.set_ylabel("Jain's index")
        ax.set_xticks(list(self.DS))
        ax.legend(fontsize=7)
        return Report(figures={"fig7": fig, "table1": fig2}, checks=checks, variants=variants,
                      markdown="\n".join(md))


@register
class Fig8(Experiment):
    paper = "000"
    name = "fig8"
    title = "Ten FTP flows on 500 Mbit/s, 40 ms; 100 more flows start at 50 s and stop at 100 s"
    assumptions = SETUP + [
        "The ten flows start uniformly in [0, 1] s as in the paper; the 100 added flows start at 50 s "
        "(the paper gives no spread: they start together) and their applications stop at 100 s; 150 s "
        "(the quick form too).",
        "The queue before, during and after the burst: its mean over 30-50 s, 70-100 s and 130-150 s.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        fl = [_gt("40ms", 0, count=10, start_spread="1s"), _gt("40ms", 50, count=100, stop="100s")]
        return G.variant_runs(lambda params: [Run("burst", _scenario("500Mbps", fl, 150), 1, {})])

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        out = _keep(res, flows=10)
        fs = res.flow_series
        added = fs[fs.flow >= 10].groupby("time_s", as_index=False).goodput_bps.mean()
        out["added_series"] = added
        return out

    Q_UP = "Fig. 8(c) shows that the bottleneck queue size increases when 100 new flows enter into the network."
    Q_TEN = "The number of total flows becomes 10 times larger, but the bottleneck queue size increases less than " \
            "10 times."
    Q_ADAPT = "Fig. 8(a) shows that TCP-GT adapts quickly to a sudden changes in traffic."

    def checks(self, data: Dict[str, pd.DataFrame]) -> List[Check]:
        fs, qs = data["flow_series"], data["queue_series"]

        def qmean(t0: float, t1: float) -> float:
            return float(qs[(qs.time_s > t0) & (qs.time_s <= t1)].len_pkts.mean())

        q_before, q_during, q_after = qmean(30, 50), qmean(70, 100), qmean(130, 150)
        ratio = q_during / max(q_before, 1.0)
        u_during, u_all = _util(qs, 500e6, 50, 100), _util(qs, 500e6, 5)
        j_before, j_after = jain(_goodputs(fs, 30, 50)), jain(_goodputs(fs, 130, 150))
        g_before, g_after = sum(_goodputs(fs, 30, 50)) / 1e6, sum(_goodputs(fs, 130, 150)) / 1e6
        qs_txt = f"mean queue {q_before:.0f} pkts in 30-50 s, {q_during:.0f} in 70-100 s, {q_after:.0f} in 130-150 s"
        return [
            claim("the mean queue grows when the 100 flows join (70-100 s above 30-50 s)", q_during > q_before,
                  qs_txt, quote=self.Q_UP, section="§IV-D, Fig. 8(c)"),
            claim("the mean queue grows by less than 10 times with 11 times the flows", ratio < 10,
                  f"during / before = {ratio:.3g}", quote=self.Q_TEN, section="§IV-D, Fig. 8(c)",
                  informative=ratio >= 1, why_uninformative=f"the queue does not grow at all (during / before = "
                  f"{ratio:.3g} < 1), so a bound on its growth says nothing"),
            claim("the link stays fully used through the changes (> 0.9 after 5 s, and during the burst)",
                  u_all > 0.9 and u_during > 0.9, f"{u_all:.3f} overall, {u_during:.3f} during 50-100 s",
                  quote="TCP-GT is robust against sudden increase or decrease in traffic demands",
                  section="Fig. 8 caption, Fig. 8(b)"),
            claim("the ten FTP flows take the link back after the 100 flows stop (> 90 % of their earlier total)",
                  g_after > 0.9 * g_before, f"{g_before:.0f} Mbit/s in 30-50 s, {g_after:.0f} Mbit/s in 130-150 s",
                  quote=self.Q_ADAPT, section="§IV-D, Fig. 8(a)"),
            claim("the ten FTP flows share fairly before and after the burst (Jain > 0.9)",
                  min(j_before, j_after) > 0.9, f"{j_before:.3f} before, {j_after:.3f} after",
                  quote=self.Q_ADAPT, section="§IV-D, Fig. 8(a)"),
            G.no_drop("TCP-GT drops no packet when 100 flows join and leave", _drops(data), 1),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        checks, variants = G.variants_report(data, self.checks, explainers=(G.EPOCHS,))
        d0 = G.subset(data, G.DEFAULT)
        fs, qs, ad = d0["flow_series"], d0["queue_series"], d0["added_series"]
        a = ad.assign(sec=np.ceil(ad.time_s - 1e-9).astype(int))
        extra = a[(a.sec > 50) & (a.sec <= 100)].groupby("sec").goodput_bps.mean() / 1e6
        fig = _three_panels(fs, qs, 500e6, "Fig. 8: 10 FTP flows; 100 more from 50 s to 100 s, 500 Mbit/s, 40 ms",
                            {f: f"flow {f + 1}" for f in range(10)}, extra=extra)
        return Report(figures={"fig8": fig}, checks=checks, variants=variants)
