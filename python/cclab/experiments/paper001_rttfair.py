"""Paper 001, Figs. 6-8: intra-protocol RTT fairness of Reno, CR, CI, W+CR+Reno, W+CR+CR and
HRF (a 40 ms against a 120 ms flow, changing the buffer, the second RTT, the number of flows),
under both loss recoveries (``paper001_hrf.RECOVERIES``)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence

import pandas as pd

from . import register
from .base import Check, Experiment, Report, Run, claim
from .common import figure, mean_ci
from .paper001_hrf import LABEL, OVERHEAD, RECOVERIES, SETUP, SIX, _flow, _net, recovery_runs, recovery_variants

BUFFER_BDP40 = 333  # packets: the 40 ms flow's BDP; the 120 ms flow's is 1000


def _pair_runs(points: Sequence[Any], make: Callable[[str, Any], Dict[str, Any]], quick: bool, key: str) -> List[Run]:
    seeds = (1,) if quick else (1, 2, 3)
    out = [Run(f"{key}={p},{cc},seed={s}", make(cc, p), s, {key: p, "proto": cc, "seed": s})
           for p in points for cc in SIX for s in seeds]
    return recovery_runs(out)


def _diff_rows(res: Any) -> Dict[str, Any]:
    f = res.flows
    short = f[f.base_rtt_s <= 0.0405].goodput_bps.mean() / 1e6
    long_ = f[f.base_rtt_s > 0.0405].goodput_bps.mean() / 1e6
    return {"pair": {"thr1_mbps": short, "thr2_mbps": long_, "total_mbps": f.goodput_bps.sum() / 1e6}}


class Fairness:
    """Thr1 - Thr2 per point and protocol (mean over seeds) and each protocol's unfairness: the mean
    over points of |Thr1 - Thr2|, with its 95 % interval over seeds (computed per seed)."""

    def __init__(self, pair: pd.DataFrame, key: str, points: Any = None) -> None:
        d = pair.assign(diff=pair.thr1_mbps - pair.thr2_mbps)
        if points is not None:
            d = d[d[key].isin(points)]
        self.g = d.groupby([key, "proto"])["diff"].mean().unstack("proto")
        per_seed = d.assign(adiff=d["diff"].abs()).groupby(["proto", "seed"]).adiff.mean()
        self.mad = {cc: mean_ci(per_seed.loc[cc].to_numpy()) for cc in SIX}

    def ranked(self) -> List[str]:
        return sorted(SIX, key=lambda c: self.mad[c][0])

    def text(self, protos: Sequence[str] = SIX) -> str:
        return ", ".join(f"{LABEL[c]} {self.mad[c][0]:.1f}" + (f"±{self.mad[c][1]:.1f}" if self.mad[c][1] else "")
                         for c in sorted(protos, key=lambda c: self.mad[c][0]))


def best_two(fa: Fairness, what: str, quote: str, section: str, headline: bool = True) -> Check:
    """HRF and CR are the two most RTT-fair of the six (smallest mean |Thr1 - Thr2|). Informative
    only when the third is apart from both: outside the seeds' intervals."""
    r = fa.ranked()
    holds = set(r[:2]) == {"hrf", "cr"}
    third = fa.mad[r[2]]
    close = [c for c in ("hrf", "cr") if third[0] - third[1] <= fa.mad[c][0] + fa.mad[c][1]]
    return claim(what, holds, "mean |Thr1 - Thr2| (Mbit/s): " + fa.text(), quote=quote, section=section,
                 headline=headline, informative=not close,
                 why_uninformative=f"{LABEL[r[2]]}'s interval overlaps " + ", ".join(LABEL[c] for c in close)
                 + "'s: the ranking is not resolved by the seeds" if close else "")


def signs(fa: Fairness, protos: Sequence[str], positive: bool) -> tuple[bool, str]:
    g = fa.g[list(protos)]
    ok = bool(((g > 0) if positive else (g < 0)).all().all())
    return ok, "; ".join(f"{LABEL[c]} " + ", ".join(f"{v:.1f}" for v in g[c]) for c in protos)


def _plot(fa: Fairness, xlabel: str, logx: bool, title: str) -> Any:
    fig, (ax,) = figure(width=6.4, height=3.6)
    for cc in SIX:
        ax.plot(fa.g.index, fa.g[cc], "o-" if cc == "hrf" else ".-", lw=2 if cc == "hrf" else 1, label=LABEL[cc])
    ax.axhline(0, c="k", lw=0.6)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Thr1 - Thr2 (Mbit/s)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncol=3)
    return fig


def _table(data: Dict[str, pd.DataFrame], key: str, xlabel: str) -> str:
    md = []
    for rec in RECOVERIES:
        d = data["pair"][data["pair"].recovery == rec]
        g = Fairness(d, key).g
        md += [f"Mean Thr1 - Thr2 (Mbit/s; Thr1 the 40 ms flows' mean goodput), recovery {rec}:", "",
               "| " + xlabel + " | " + " | ".join(LABEL[c] for c in SIX) + " |", "|" + "---|" * 7]
        md += [f"| {i:g} | " + " | ".join(f"{g.loc[i, c]:.1f}" for c in SIX) + " |" for i in g.index]
        md.append("")
    return "\n".join(md)


def _report(data: Dict[str, pd.DataFrame], key: str, xlabel: str, name: str, logx: bool, title: str,
            checks_of: Callable[[Dict[str, pd.DataFrame]], List[Check]], causes: Dict[str, str]) -> Report:
    checks, variants = recovery_variants(data, checks_of, causes)
    d = data["pair"][data["pair"].recovery == RECOVERIES[0]]
    fig = _plot(Fairness(d, key), xlabel, logx, f"{title} (recovery {RECOVERIES[0]})")
    return Report(figures={name: fig}, checks=checks, variants=variants, markdown=_table(data, key, xlabel))


RUNS_NOTE = ("150 s measured after 50 s (quick: 60 s after 20 s); seeds 1-3 (quick: 1); both flows start at 0 s; "
             "every run under NewReno and under SACK recovery.")


@register
class Fig6(Experiment):
    paper = "001"
    name = "fig6"
    title = "Throughput difference of a 40 ms and a 120 ms flow against the buffer size, six protocols"
    assumptions = SETUP + [
        "Buffers 111, 333, 1000, 2000, 4000 packets (quick: 111, 333, 2000); " + RUNS_NOTE,
        "'Non-buffered state (Model I)': buffers below the 120 ms flow's BDP (111, 333); 'buffered state "
        "(Model II)': 1000 packets and more.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        pts = (111, 333, 2000) if quick else (111, 333, 1000, 2000, 4000)
        dur, warm = (80, 20) if quick else (200, 50)
        return _pair_runs(pts, lambda cc, b: _net([_flow(cc, 0.04, overhead=OVERHEAD),
                                                    _flow(cc, 0.12, overhead=OVERHEAD)], b, dur, warm), quick,
                          "buffer")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _diff_rows(res)

    @staticmethod
    def checks(data: Dict[str, pd.DataFrame]) -> List[Check]:
        d = data["pair"]
        fa = Fairness(d, "buffer")
        m1 = Fairness(d, "buffer", [b for b in fa.g.index if b < 1000])
        m2 = Fairness(d, "buffer", [b for b in fa.g.index if b >= 1000])
        ci_reno, ci_reno_s = signs(m1, ("ci", "newreno"), True)
        wcc, wcc_s = signs(m2, ("w+cr+cr",), False)
        wcr, wcr_s = signs(m2, ("w+cr+reno",), True)
        return [
            best_two(fa, "HRF and CR are the two most RTT-fair of the six over the buffer sizes",
                     "From Fig. 6, we can recognize that HRF and CR present the best RTT-fair result", "§5.2.1"),
            claim("non-buffered (111, 333 pkts): CR more RTT-fair than CI and Reno",
                  m1.mad["cr"][0] < min(m1.mad["ci"][0], m1.mad["newreno"][0]), m1.text(("cr", "ci", "newreno")),
                  quote="In the non-buffered state (Model I), CR is a more RTT-fair contributor than CI and Reno",
                  section="§5.2.1"),
            claim("non-buffered: with CI and Reno the 40 ms flow gets more at every buffer", ci_reno, ci_reno_s,
                  quote="In case of CI and Reno, the smaller RTT flow gets more resources than the longer RTT flow",
                  section="§5.2.1"),
            claim("buffered (1000 pkts and more): W+CR+CR favours the 120 ms flow and W+CR+Reno the 40 ms flow",
                  wcc and wcr, wcc_s + "; " + wcr_s,
                  quote="In the buffered state (Model II), W+CR+CR provides more resources for longer RTT flow but "
                  "W+CR+Reno does for smaller RTT flow", section="§5.2.1"),
            claim("buffered: HRF more RTT-fair than W+CR+Reno and W+CR+CR",
                  m2.mad["hrf"][0] < min(m2.mad["w+cr+reno"][0], m2.mad["w+cr+cr"][0]),
                  m2.text(("hrf", "w+cr+reno", "w+cr+cr")),
                  quote="The results prove that the CI behavior of HRF contributes to better RTT-fairness",
                  section="§5.2.1"),
            claim("W+CR+CR less RTT-fair than CR", fa.mad["w+cr+cr"][0] > fa.mad["cr"][0],
                  fa.text(("w+cr+cr", "cr")), quote="Using \"W\" instead of \"Reno\" in window decrement phase "
                  "cause different effects ... worse (compare CR with W+CR+CR)", section="§5.2.1"),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _report(data, "buffer", "buffer (pkts)", "fig6", True, "Fig. 6: 40 ms vs 120 ms, changing buffer",
                       self.checks, {})


@register
class Fig7(Experiment):
    paper = "001"
    name = "fig7"
    title = "Throughput difference of a 40 ms flow and a flow of 13.33-480 ms, six protocols (buffer 333)"
    assumptions = SETUP + [
        "Second flow's RTT 13.33, 40, 80, 120, 240, 480 ms (quick: 13.33, 120, 240); buffer 333 packets; "
        + RUNS_NOTE + " At 40 ms both flows have the same RTT.",
    ]

    def runs(self, quick: bool) -> List[Run]:
        pts = (13.33, 120, 240) if quick else (13.33, 40, 80, 120, 240, 480)
        dur, warm = (80, 20) if quick else (200, 50)
        return _pair_runs(pts, lambda cc, r: _net([_flow(cc, 0.04, overhead=OVERHEAD),
                                                    _flow(cc, r / 1e3, overhead=OVERHEAD)], BUFFER_BDP40, dur, warm),
                          quick, "rtt2_ms")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        f = res.flows
        return {"pair": {"thr1_mbps": f.goodput_bps.iloc[0] / 1e6, "thr2_mbps": f.goodput_bps.iloc[1] / 1e6,
                         "total_mbps": f.goodput_bps.sum() / 1e6}}

    @staticmethod
    def checks(data: Dict[str, pd.DataFrame]) -> List[Check]:
        d = data["pair"]
        fa = Fairness(d, "rtt2_ms")
        g = fa.g
        near, far = g.index[g.index >= 80].min(), g.index.max()
        grow = {c: (abs(g.loc[near, c]), abs(g.loc[far, c])) for c in ("ci", "newreno")}
        reno_far = g.loc[g.index >= 80, "newreno"]
        return [
            best_two(fa, "HRF and CR are the two most RTT-fair of the six over the second flow's RTTs",
                     "In Fig. 7, HRF and CR are almost RTT-fair regardless of RTT values", "§5.2.2"),
            claim(f"CI and Reno: |Thr1 - Thr2| larger at {far:g} ms than at {near:g} ms",
                  all(b > a for a, b in grow.values()),
                  ", ".join(f"{LABEL[c]} {a:.1f} -> {b:.1f}" for c, (a, b) in grow.items()),
                  quote="CI and Reno get RTT-unfair as a RTT difference between two flows becomes large",
                  section="§5.2.2"),
            claim("HRF more RTT-fair than W+CR+Reno and W+CR+CR",
                  fa.mad["hrf"][0] < min(fa.mad["w+cr+reno"][0], fa.mad["w+cr+cr"][0]),
                  fa.text(("hrf", "w+cr+reno", "w+cr+cr")),
                  quote="CI improves RTT-fair regardless of RTT values though CR and Reno negatively affect "
                  "RTT-fairness", section="§5.2.2"),
            claim("with Reno the 40 ms flow gets more than a flow of 80 ms or more, and less than the 13.33 ms flow",
                  bool((reno_far > 0).all() and g["newreno"].iloc[0] < 0),
                  ", ".join(f"{i:g} ms: {v:.1f}" for i, v in g["newreno"].items()),
                  quote="In Model I, by comparisons of three protocols (Reno, CI and CR), same trends as the previous "
                  "section are shown", section="§5.2.2"),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _report(data, "rtt2_ms", "RTT of flow 2 (ms)", "fig7", True, "Fig. 7: 40 ms vs 13.33-480 ms, buffer 333",
                       self.checks, {})


@register
class Fig8(Experiment):
    paper = "001"
    name = "fig8"
    title = "Throughput difference of 40 ms and 120 ms flows against the number of flows, six protocols"
    assumptions = SETUP + [
        "2, 4, 8, 16 flows (quick: 2, 8), half at 40 ms, half at 120 ms; Thr1 and Thr2 are the groups' mean "
        "goodputs per flow; buffer 333 packets; " + RUNS_NOTE,
    ]

    def runs(self, quick: bool) -> List[Run]:
        pts = (2, 8) if quick else (2, 4, 8, 16)
        dur, warm = (80, 20) if quick else (200, 50)
        return _pair_runs(pts, lambda cc, n: _net([_flow(cc, 0.04, overhead=OVERHEAD, count=n // 2),
                                                    _flow(cc, 0.12, overhead=OVERHEAD, count=n // 2)], BUFFER_BDP40,
                                                   dur, warm), quick, "flows")

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _diff_rows(res)

    @staticmethod
    def checks(data: Dict[str, pd.DataFrame]) -> List[Check]:
        fa = Fairness(data["pair"], "flows")
        g = fa.g
        lo, hi = g.index.min(), g.index.max()
        falls = {c: (g.loc[lo, c], g.loc[hi, c]) for c in SIX}
        mean = g.mean()
        return [
            best_two(fa, "HRF and CR are the two most RTT-fair of the six over the numbers of flows",
                     "Note that HRF and CR are RTT-fair as we expected in spite of changing the number of "
                     "competing flows", "§5.2.3"),
            claim(f"Thr1 - Thr2 lower with {hi} flows than with {lo} for every protocol",
                  all(b < a for a, b in falls.values()),
                  ", ".join(f"{LABEL[c]} {a:.1f} -> {b:.1f}" for c, (a, b) in falls.items()),
                  quote="larger RTT flows of all protocols tend to utilize more bandwidth as the number of flows "
                  "increase in the simulation case", section="§5.2.3"),
            claim("Reno, CI and W+CR+Reno favour the 40 ms flows, W+CR+CR the 120 ms flows (mean over the numbers)",
                  bool((mean[["newreno", "ci", "w+cr+reno"]] > 0).all() and mean["w+cr+cr"] < 0),
                  ", ".join(f"{LABEL[c]} {mean[c]:.1f}" for c in ("newreno", "ci", "w+cr+reno", "w+cr+cr")),
                  quote="Reno, CI and W+CR+Reno flows with smaller RTT dominantly utilize bandwidth, but W+CR+CR "
                  "behaves oppositely", section="§5.2.3"),
        ]

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        return _report(data, "flows", "number of flows", "fig8", False,
                       "Fig. 8: 40 ms and 120 ms flows, changing their number", self.checks, {})

