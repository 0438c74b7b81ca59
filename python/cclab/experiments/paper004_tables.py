"""Paper 004: Zhang, Hasegawa, Murata, gHSTCP and gARED: Tables 1-6 (cases 1-31).

Section 3.1's set-up (Fig. 3): five flows S1 on 100 Mbit/s access links and five
flows S2 on 1 Gbit/s access links share a 2.5 Gbit/s bottleneck of 25, 50 or
100 ms, routers with 10,000-packet buffers, 1500-byte packets, greedy FTP.
The paper's tables give, per case and delay, a confidence interval, the
utilization (%) and a fairness index: Jain's index of x_i = M_i / C_i, C_i
the max-min fair share (100 Mbit/s for an S1 flow, held by its access link,
(2500 - 500)/5 = 400 Mbit/s for an S2 flow). The groups' throughputs did not
survive the paper's text; utilization and fairness are compared.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from . import register
from .base import Experiment, Report, Run, claim, compare
from .common import dumbbell, figure, flow

C_BPS = 2.5e9
SHARE = (100e6, (C_BPS - 5 * 100e6) / 5)  # max-min fair shares of an S1 and an S2 flow

# name -> (cc, recovery)
PROTO = {
    "Reno": ("reno", "reno"),
    "Reno+SACK": ("reno", "sack"),
    "HSTCP": ("highspeed", "reno"),
    "HSTCP+SACK": ("highspeed", "sack"),
    "gHSTCP": ("ghstcp", "reno"),
    "gHSTCP+SACK": ("ghstcp", "sack"),
}

# table -> (title, queue, params, cases: (case, S1, S2, {delay_ms: (utilization %, fairness)}))
H, G = "HSTCP", "gHSTCP"
_THREE = [("Reno", H), ("Reno", H + "+SACK"), ("Reno+SACK", H + "+SACK"),
          ("Reno", G), ("Reno", G + "+SACK"), ("Reno+SACK", G + "+SACK")]


def _cases(first: int, pairs: Sequence[Tuple[str, str]], published: Sequence[Sequence[float]]):
    out = []
    for i, ((s1, s2), row) in enumerate(zip(pairs, published)):
        out.append((first + i, s1, s2, {25: (row[0], row[1]), 50: (row[2], row[3]), 100: (row[4], row[5])}))
    return out


TABLES: Dict[int, Tuple[str, str, Dict[str, float], list]] = {
    1: ("Performance of HSTCP with DropTail (cases 1-4)", "droptail", {}, _cases(1, [
        ("Reno", "Reno"), ("Reno", H), ("Reno", H + "+SACK"), ("Reno+SACK", H + "+SACK")], [
        (87.361, 0.994, 75.634, 0.976, 83.989, 0.989), (70.925, 0.887, 64.362, 0.821, 60.923, 0.747),
        (97.489, 0.582, 97.397, 0.581, 95.603, 0.556), (97.618, 0.652, 97.431, 0.629, 95.668, 0.591)])),
    2: ("Performance of gHSTCP with DropTail (cases 5-7)", "droptail", {}, _cases(5, _THREE[3:], [
        (87.908, 0.997, 78.933, 0.925, 72.177, 0.849), (97.405, 0.893, 97.230, 0.741, 96.034, 0.612),
        (97.540, 0.986, 97.362, 0.897, 96.202, 0.724)])),
    3: ("Performance of HSTCP/gHSTCP with RED, max_p = 0.1 (cases 8-13)", "red", {"max_p": 0.1}, _cases(8, _THREE, [
        (66.891, 0.998, 57.937, 0.920, 61.054, 0.881), (93.889, 0.782, 90.303, 0.666, 88.831, 0.600),
        (93.920, 0.841, 90.356, 0.710, 38.943, 0.635), (81.549, 0.998, 69.398, 0.993, 64.702, 0.885),
        (95.065, 0.979, 91.388, 0.838, 89.124, 0.625), (95.062, 0.993, 91.595, 0.906, 89.240, 0.691)])),
    4: ("Performance of HSTCP/gHSTCP with RED, max_p = 0.001 (cases 14-19)", "red", {"max_p": 0.001},
        _cases(14, _THREE, [
            (97.193, 0.985, 94.621, 0.950, 87.515, 0.947), (97.483, 0.981, 96.377, 0.934, 93.250, 0.829),
            (97.481, 0.979, 96.463, 0.946, 93.356, 0.848), (97.435, 1.000, 96.615, 1.000, 92.151, 0.987),
            (97.455, 1.000, 97.145, 0.996, 94.022, 0.951), (97.403, 1.000, 97.062, 1.000, 93.896, 0.953)])),
    5: ("Performance of HSTCP/gHSTCP with ARED (cases 20-25)", "ared", {}, _cases(20, _THREE, [
        (91.465, 0.995, 81.059, 0.992, 70.070, 0.976), (95.813, 0.970, 92.558, 0.887, 89.026, 0.778),
        (95.690, 0.980, 92.707, 0.887, 88.473, 0.801), (96.766, 1.000, 91.555, 1.000, 80.035, 0.984),
        (96.965, 1.000, 95.294, 0.988, 91.502, 0.897), (97.041, 1.000, 94.892, 0.994, 91.522, 0.902)])),
    6: ("Performance of HSTCP/gHSTCP with gARED (cases 26-31)", "gared", {}, _cases(26, _THREE, [
        (96.761, 0.976, 90.103, 0.895, 79.353, 0.827), (97.543, 0.980, 97.406, 0.844, 95.702, 0.555),
        (97.508, 0.975, 97.425, 0.789, 96.357, 0.652), (97.277, 1.000, 95.227, 0.995, 94.362, 0.942),
        (97.511, 1.000, 97.328, 0.990, 96.307, 0.824), (97.310, 1.000, 97.443, 1.000, 96.528, 0.962)])),
}
# Tables 1 and 2 print the case numbers 8-13 for Table 4 too; the text calls them cases 14-19.

SETUP = [
    "Fig. 3's dumbbell: 5 S1 flows on 100 Mbit/s access links and 5 S2 flows on 1 Gbit/s access links, a "
    "2.5 Gbit/s bottleneck of 25/50/100 ms, 10,000-packet router buffer, 1500-byte packets, flows starting "
    "in the first second; 'Reno' is cclab's `reno` with Reno recovery, '+SACK' SACK recovery; HSTCP is "
    "`highspeed` (RFC 3649 table), gHSTCP `ghstcp`.",
    "Not in the paper, chosen: access links buffer 10,000 packets like the routers (the paper gives no "
    "access buffer; an unlimited one lets a Reno flow queue seconds of data in front of its own 100 Mbit/s "
    "link); no UDP background traffic (the paper gives none of its parameters); one run per point "
    "(the paper's confidence intervals are not reproduced); 60 s, measured over the second half.",
    "RED (Tables 3, 4) uses ARED's thresholds of section 4.2 (min_th = 2,500, max_th = 7,500 packets) and "
    "w_q = 1 - exp(-1/C); ARED and gARED min_th = 2,500 (max_th, w_q, target, bottom automatic, "
    "docs/queues/red.md).",
    "Quick form: rates and buffers divided by 10 (250 Mbit/s, 10 and 100 Mbit/s access links, 1,000 packets, "
    "min_th 250), 25 ms only, 40 s.",
]


def _scenario(s1: str, s2: str, d_ms: int, queue: str, qp: Dict[str, float], quick: bool) -> Dict[str, Any]:
    scale = 10 if quick else 1
    rate = C_BPS / scale
    buf = 10_000 // scale
    params = dict(qp)
    if queue != "droptail":
        params.setdefault("min_th", 2500 / scale)
        if queue == "red":
            params.setdefault("max_th", 7500 / scale)
            params.setdefault("q_weight", 1 - math.exp(-1 / (rate / 12000)))
    flows = []
    for proto, access in ((s1, 100e6 / scale), (s2, 1e9 / scale)):
        cc, rec = PROTO[proto]
        flows.append(flow(cc, recovery=rec, count=5, access_rate=f"{access:g}bps", access_buffer=f"{buf}pkts",
                          start_spread="1s"))
    dur = 40 if quick else 60
    return dumbbell(f"{rate:g}bps", f"{d_ms}ms", f"{buf}pkts", flows, f"{dur}s", warmup=f"{dur // 2}s",
                    queue=queue, queue_params=params or None)


def fairness(goodput_bps: Sequence[float], scale: int = 1) -> float:
    """The paper's index: Jain's index of M_i / C_i, C_i the max-min fair share."""
    g = np.asarray(goodput_bps, dtype=float)
    x = np.concatenate([g[:5] / (SHARE[0] / scale), g[5:] / (SHARE[1] / scale)])
    return float(x.sum() ** 2 / (len(x) * (x * x).sum()))


class _Table(Experiment):
    paper = "004"
    table = 0
    assumptions = SETUP

    @property
    def spec(self):
        return TABLES[self.table]

    def runs(self, quick: bool) -> List[Run]:
        _, queue, qp, cases = self.spec
        delays = (25,) if quick else (25, 50, 100)
        return [Run(f"case{c},d={d}", _scenario(s1, s2, d, queue, qp, quick), 1,
                    {"case": c, "s1": s1, "s2": s2, "delay_ms": d}) for c, s1, s2, _ in cases for d in delays]

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        g = res.flows.goodput_bps.to_numpy()
        s = res.summary()
        return {"cases": {"s1_mbps": g[:5].mean() / 1e6, "s2_mbps": g[5:].mean() / 1e6,
                          "utilization_pct": 100 * s["bottleneck_utilization"],
                          "goodput_util_pct": 100 * g.sum() / (res.links.rate_bps.iloc[0]),
                          "timeouts": int(res.flows.timeouts.sum()),
                          "drops": int(s["bottleneck_drops"]),
                          "mean_queue_pkts": s["bottleneck_mean_queue_pkts"],
                          "fairness": fairness(g, 10 if res.links.rate_bps.iloc[0] < 1e9 else 1)}}

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        title, _, _, cases = self.spec
        d = data["cases"].set_index(["case", "delay_ms"])
        checks, md = [], []
        md.append("| case | S1 | S2 | delay (ms) | S1 per flow (Mbit/s) | S2 per flow (Mbit/s) | utilization % "
                  "(paper) | utilization % (cclab) | fairness (paper) | fairness (cclab) |")
        md.append("|---" * 10 + "|")
        for c, s1, s2, pub in cases:
            for dl, (pu, pf) in pub.items():
                if (c, dl) not in d.index:
                    continue
                r = d.loc[(c, dl)]
                md.append(f"| {c} | {s1} | {s2} | {dl} | {r.s1_mbps:.1f} | {r.s2_mbps:.1f} | {pu:.1f} | "
                          f"{r.utilization_pct:.1f} | {pf:.3f} | {r.fairness:.3f} |")
                if not quick or dl == 25:
                    checks.append(compare(f"case {c} ({s1} / {s2}), {dl} ms: utilization %", pu,
                                          float(r.utilization_pct), 5.0, reason=self._reason(c, s2, "u", r)))
                    checks.append(compare(f"case {c} ({s1} / {s2}), {dl} ms: fairness", pf, float(r.fairness), 0.05,
                                          reason=self._reason(c, s2, "f", r)))
        checks += self.claims(d, quick)
        fig, axes = figure(1, 2, width=5.0, height=3.4, sharex=False)
        labels, xs = [], np.arange(len(cases))
        for ax, key, pi, lab in ((axes[0], "utilization_pct", 0, "utilization (%)"), (axes[1], "fairness", 1,
                                                                                      "fairness index")):
            for j, dl in enumerate(sorted(d.index.get_level_values(1).unique())):
                meas = [d.loc[(c, dl)][key] if (c, dl) in d.index else np.nan for c, *_ in cases]
                pub = [p[dl][pi] for *_, p in cases]
                ax.bar(xs + 0.27 * (j - 1), meas, 0.25, label=f"cclab {dl} ms", alpha=0.8)
                ax.plot(xs + 0.27 * (j - 1), pub, "k_", ms=12, mew=2, label="paper" if j == 0 else None)
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{c}\n{s2}" for c, s1, s2, _ in cases], fontsize=7)
            ax.set_ylabel(lab)
            ax.legend(fontsize=6)
            labels.append(lab)
        axes[1].set_ylim(0, 1.05)
        fig.suptitle(f"Table {self.table}: {title}", fontsize=9)
        return Report(figures={f"table{self.table}": fig}, checks=checks, markdown="\n".join(md))

    def _reason(self, case: int, s2: str, what: str, r: Any) -> str:
        if what == "u":
            return (f"cclab's flows fill the link differently (S1 {r.s1_mbps:.0f}, S2 {r.s2_mbps:.0f} Mbit/s per "
                    f"flow, {r.timeouts} timeouts); no UDP background, one short run (the paper's length is unknown)")
        return (f"fairness follows the S1/S2 split (S1 {r.s1_mbps:.0f} of 100, S2 {r.s2_mbps:.0f} of 400 Mbit/s "
                "per flow), which differs from the paper's as the utilization does")

    def claims(self, d: pd.DataFrame, quick: bool) -> list:
        raise NotImplementedError


def _u(d: pd.DataFrame, case: int, dl: int = 25) -> float:
    return float(d.loc[(case, dl)].utilization_pct)


def _f(d: pd.DataFrame, case: int, dl: int = 25) -> float:
    return float(d.loc[(case, dl)].fairness)


def _s1(d: pd.DataFrame, case: int, dl: int = 25) -> float:
    return float(d.loc[(case, dl)].s1_mbps)


@register
class Table1(_Table):
    name = "table1"
    table = 1
    title = TABLES[1][0]

    def claims(self, d, quick):
        return [
            claim("with SACK, HSTCP fills the link: utilization of cases 3 and 4 above case 2's (25 ms)",
                  min(_u(d, 3), _u(d, 4)) > _u(d, 2), f"{_u(d, 2):.1f} -> {_u(d, 3):.1f}, {_u(d, 4):.1f} %"),
            claim("HSTCP+SACK takes bandwidth from Reno: S1's throughput in case 3 far below case 1's",
                  _s1(d, 3) < 0.7 * _s1(d, 1), f"S1 per flow {_s1(d, 1):.1f} -> {_s1(d, 3):.1f} Mbit/s"),
        ]


@register
class Table2(_Table):
    name = "table2"
    table = 2
    title = TABLES[2][0]

    def runs(self, quick: bool) -> List[Run]:
        # Case 2 (HSTCP) beside cases 5-7, so the table can show what gHSTCP changes.
        base = super().runs(quick)
        delays = (25,) if quick else (25, 50, 100)
        return base + [Run(f"case2,d={dl}", _scenario("Reno", H, dl, "droptail", {}, quick), 1,
                           {"case": 2, "s1": "Reno", "s2": H, "delay_ms": dl}) for dl in delays]

    def claims(self, d, quick):
        return [
            claim("gHSTCP (case 5) gives the Reno flows more than HSTCP does (case 2), 25 ms",
                  _s1(d, 5) > _s1(d, 2), f"S1 per flow {_s1(d, 2):.1f} -> {_s1(d, 5):.1f} Mbit/s"),
            claim("gHSTCP (case 5) uses the link better than HSTCP (case 2), 25 ms", _u(d, 5) > _u(d, 2),
                  f"{_u(d, 2):.1f} -> {_u(d, 5):.1f} %"),
        ]


@register
class Table3(_Table):
    name = "table3"
    table = 3
    title = TABLES[3][0]

    def claims(self, d, quick):
        return [claim("with RED (max_p = 0.1), SACK raises utilization: case 9 above case 8 (25 ms)",
                      _u(d, 9) > _u(d, 8), f"{_u(d, 8):.1f} -> {_u(d, 9):.1f} %")]


@register
class Table4(_Table):
    name = "table4"
    table = 4
    title = TABLES[4][0]

    def runs(self, quick: bool) -> List[Run]:
        base = super().runs(quick)
        # Case 8 (max_p = 0.1) beside case 14 for the comparison the paper draws.
        return base + [Run("case8,d=25", _scenario("Reno", H, 25, "red", {"max_p": 0.1}, quick), 1,
                           {"case": 8, "s1": "Reno", "s2": H, "delay_ms": 25})]

    def claims(self, d, quick):
        return [claim("a correctly tuned RED (max_p = 0.001) gives HSTCP without SACK a fuller link than "
                      "max_p = 0.1 (case 14 vs case 8, 25 ms)", _u(d, 14) > _u(d, 8),
                      f"{_u(d, 8):.1f} -> {_u(d, 14):.1f} %")]


@register
class Table5(_Table):
    name = "table5"
    table = 5
    title = TABLES[5][0]

    def runs(self, quick: bool) -> List[Run]:
        base = super().runs(quick)
        # Case 8 (RED, max_p = 0.1) beside case 20 for the comparison the paper draws.
        return base + [Run("case8,d=25", _scenario("Reno", H, 25, "red", {"max_p": 0.1}, quick), 1,
                           {"case": 8, "s1": "Reno", "s2": H, "delay_ms": 25})]

    def claims(self, d, quick):
        return [claim("ARED improves on RED (max_p = 0.1): HSTCP without SACK uses the link better (case 20 vs "
                      "case 8, 25 ms)", _u(d, 20) > _u(d, 8) + 2, f"{_u(d, 8):.1f} -> {_u(d, 20):.1f} %")]


@register
class Table6(_Table):
    name = "table6"
    table = 6
    title = TABLES[6][0]

    def claims(self, d, quick):
        return [claim("with gARED, SACK flows fill the link (cases 27, 28, 30, 31 above 90%, 25 ms)",
                      min(_u(d, c) for c in (27, 28, 30, 31)) > 90,
                      ", ".join(f"case {c}: {_u(d, c):.1f}" for c in (27, 28, 30, 31)))]
