"""Paper 002 (Kyushu-TCP), Figs. 6-8: one HSTCP or HSTCP+KTCP flow against 20 SACK flows,
under every setting of the two choices the paper leaves open (``paper002.VARIANTS``).

The set-up and the helpers are in ``paper002``. The default variant's runs are the earlier full
form's (10 seeds, d = 10, 50, 100, 200 ms, scenarios unchanged); the other variants run at the
short delays where the paper makes its KTCP claims (d = 10 and 50 ms) with fewer seeds.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from . import register
from .base import Experiment, Report, Run, Variant, claim
from .common import figure, mean_ci
from .paper002 import (
    DEFAULT_VARIANT,
    K9,
    SEEDS_QUICK,
    SETUP,
    VARIANT_WHY,
    SETTING_CAUSES,
    VARIANTS,
    variant_text,
    _ablate,
    _at,
    _dax,
    _ds,
    _full_form,
    _gain,
    _keep,
    _ktcp_idle,
    _line,
    _normalized_sack,
    _per_run,
    _select,
    _short,
    _stat,
    _sweep,
    _table,
)
from .verdicts import Check

#: The other variants: the short delays of the paper's KTCP claims, five seeds (quick: d = 10 ms).
D_VAR = (10, 50)
SEEDS_VAR = 5
ALPHAS = ["HSTCP+KTCP a=0.70", "HSTCP+KTCP a=0.80", K9, "HSTCP+KTCP a=0.95"]

Q_FIG8 = ("The higher normalized throughput in case of HSTCP+KTCP compared to original HSTCP implies that KTCP "
          "improves the throughput performance of SACK flows. When the parameter α is set to 0.80 or 0.90 in "
          "short d, the normalized throughput of SACK flows becomes high")
Q_EQUAL = ("In this case, the throughput performance of SACK flows is approximately equal to that of HSTCP+KTCP "
           "in short propagation delay time d")
Q_DIFF = ("In particular, when the parameter α is 0.90, the difference of throughput performance between HSTCP "
          "and SACK flows decreases compared to the result of the original HSTCP")
Q_RESTRAIN = ("in Figs. 6(b), 6(c), and 6(d), HSTCP+KTCP restrains its throughput, so that SACK can attain a "
              "better throughput than that in Fig. 6(a)")
Q_HS = ("the original HSTCP without KTCP achieves excellent throughput, whereas SACK attains poor throughput in "
        "a wide range of d (especially, approximately from 50 to 100 ms)")
Q_SMALL = ("if d is short such as 10 ms, HSTCP+KTCP with a small value of α attains poor throughput because "
           "congestion events frequently occur")
Q_LONG = ("if d is long such as 100 ms, HSTCP+KTCP with any values of α attains high throughput because "
          "congestion events rarely occur")
Q_LONG8 = ("in long d, the normalized throughput does not increase compared to case of the original HSTCP "
           "because SACK flows cannot work well in high bandwidth-delay product links")
Q_ALPHA = ("From Figs. 7 and 8, considering the throughput performance of both HSTCP and SACK flows, the "
           "appropriate value of the parameter α is 0.90 in this simulation environment")


def _setting(name: str, flip: str) -> str:
    """The setting of variant ``name`` that flipping ``flip`` removes."""
    j, t = VARIANTS[name]
    if flip == "jitter":
        return "jitter" if j else "no jitter"
    return "bounded" if t else "unbounded"


def _others(name: str, per: Mapping[str, Mapping[str, Check]], key: str) -> Dict[str, Tuple[str, Optional[Check]]]:
    """The ablations of check ``key`` of variant ``name``: the variants that differ in one setting."""
    return {_change(name, f): (_setting(name, f), per[_other(name, f)].get(key)) for f in ("jitter", "tc")}


class _Frames:
    """The per-run frame of one variant with what the checks read."""

    def __init__(self, data: Mapping[str, pd.DataFrame]):
        df = _per_run(data)
        df["norm_x"] = df.x / (df.x + df.sack)
        self.df = df
        self.ns = _normalized_sack(df)
        self.st_x, self.st_s = _stat(df, "x"), _stat(df, "sack")
        self.st_nx = _stat(df[df.config != "SACK"], "norm_x")
        self.st_ns = _stat(self.ns, "norm_sack")
        self.ds = sorted(df.d_ms.unique())
        self.configs = set(df.config)


def _idle_why(d: int) -> str:
    return (f"KTCP never entered its non-aggressive period at d = {d} ms (alpha = 0.70 to 0.95 give the same "
            "throughputs in every seed: the cap w2 = alpha w1 never bound), so this compares plain HSTCP with "
            "itself")


def _alpha_scores(fr: _Frames, short: Sequence[int]) -> Dict[str, tuple]:
    """Per alpha: mean and 95% half-width over the seeds of |Fig. 7 share - 0.5| + |Fig. 8
    normalized - 1|, averaged over the short delays (each run's distance from both fair points)."""
    ns = fr.ns[fr.ns.d_ms.isin(short)].copy()
    ns["dist"] = (ns.norm_x - 0.5).abs() + (ns.norm_sack - 1.0).abs()
    out = {}
    for c in ALPHAS:
        per_seed = ns[ns.config == c].groupby("seed").dist.mean().to_numpy()
        out[c] = mean_ci(per_seed)
    return out


def _checks(fr: _Frames, quick: bool) -> Dict[str, Check]:
    """Every check of Figs. 6-8 that the variant's runs can evaluate, by key."""
    short = _short(fr.ds, quick)
    where = "d = 10 ms" if quick else "d <= 50 ms"
    out: Dict[str, Check] = {}
    k, h = fr.ns[fr.ns.config == K9], fr.ns[fr.ns.config == "HSTCP"]
    gains = {d: _gain(k, h, "norm_sack", d) for d in short}
    nsk, nsh = _at(fr.st_ns, K9), _at(fr.st_ns, "HSTCP")
    out["sack_up"] = claim(
        f"KTCP (alpha = 0.90) raises the SACK flows' normalized throughput above plain HSTCP's at {where}, by "
        "more than the seeds' spread (Fig. 8)", all(g > ci for g, ci in gains.values()),
        "; ".join(f"{d} ms: {nsk[d]:.3f} vs {nsh[d]:.3f} (gain {g:+.3f} ± {ci:.3f})" for d, (g, ci) in gains.items()),
        quote=Q_FIG8, section="§5.1.1, Fig. 8", headline=True)
    xk, sk, xh, sh = _at(fr.st_x, K9), _at(fr.st_s, K9), _at(fr.st_x, "HSTCP"), _at(fr.st_s, "HSTCP")
    d0 = fr.ds[0]
    out["equal"] = claim(
        f"with alpha = 0.90 the 20 SACK flows and the HSTCP+KTCP flow get about the same (ratio 0.5-2) at "
        f"d = {d0} ms (Fig. 6(c))", 0.5 <= sk[d0] / xk[d0] <= 2,
        f"20 SACK {sk[d0]:.0f} vs HSTCP+KTCP {xk[d0]:.0f} Mbit/s (ratio {sk[d0] / xk[d0]:.2f})",
        quote=Q_EQUAL, section="§5.1.1, Fig. 6(c)", headline=True)
    out["diff"] = claim(
        f"with alpha = 0.90 the gap between the high-speed flow and the 20 SACK flows is smaller than with plain "
        f"HSTCP at d = {d0} ms (Fig. 6(a), (c))", abs(sk[d0] - xk[d0]) < abs(sh[d0] - xh[d0]),
        f"|SACK - KTCP| {abs(sk[d0] - xk[d0]):.0f} vs |SACK - HSTCP| {abs(sh[d0] - xh[d0]):.0f} Mbit/s",
        quote=Q_DIFF, section="§5.1.1, Fig. 6")
    xs = fr.df[fr.df.config != "SACK"]
    share = {d: _gain(xs[xs.config == "HSTCP"], xs[xs.config == K9], "norm_x", d) for d in short}
    nxk, nxh = _at(fr.st_nx, K9), _at(fr.st_nx, "HSTCP")
    out["restrain"] = claim(
        f"HSTCP+KTCP (alpha = 0.90) takes a smaller share than plain HSTCP at {where}, by more than the seeds' "
        "spread (Fig. 7)", all(g > ci for g, ci in share.values()),
        "; ".join(f"{d} ms: {nxk[d]:.3f} vs {nxh[d]:.3f}" for d in short), quote=Q_RESTRAIN,
        section="§5.1.1, Figs. 6(b)-(d), 7")
    if 50 in fr.ds and 100 in fr.ds:
        out["hs"] = claim("plain HSTCP takes more than the 20 SACK flows together at d = 50 and 100 ms (Fig. 6(a))",
                          all(xh[d] > sh[d] for d in (50, 100)),
                          ", ".join(f"{d} ms: {xh[d]:.0f} vs {sh[d]:.0f} Mbit/s" for d in (50, 100)),
                          quote=Q_HS, section="§5.1.1, Fig. 6(a)")
    if not set(ALPHAS) <= fr.configs:
        return out
    a = {c: _at(fr.st_nx, c) for c in ALPHAS}
    out["order10"] = claim(
        "at d = 10 ms a smaller alpha gives HSTCP+KTCP a smaller share (Fig. 7)",
        all(a[c0][10] <= a[c1][10] for c0, c1 in zip(ALPHAS, ALPHAS[1:])),
        ", ".join(f"{c[-4:]}: {v[10]:.3f}" for c, v in a.items()), quote=Q_SMALL, section="§5.1.1, Fig. 7")
    sc = _alpha_scores(fr, short)
    best = min(sc, key=lambda c: sc[c][0])
    near = [c for c in ALPHAS if c != K9 and abs(sc[c][0] - sc[K9][0]) <= np.hypot(sc[c][1], sc[K9][1])]
    out["alpha"] = claim(
        f"alpha = 0.90 puts HSTCP+KTCP nearest both fair points at {where}: the smallest mean of |Fig. 7 share - "
        "0.5| + |Fig. 8 normalized - 1| of alpha = 0.70-0.95", best == K9,
        ", ".join(f"{c[-4:]}: {m:.3f} ± {ci:.3f}" for c, (m, ci) in sc.items()), quote=Q_ALPHA,
        section="§5.1.1, Figs. 7-8", headline=True, informative=not near,
        why_uninformative=("within the seeds' spread of alpha = 0.90's distance: "
                           + ", ".join(f"{c[-4:]} {sc[c][0]:.3f}" for c in near)) if near else "")
    for d in (100, 200):
        if d not in fr.ds:
            continue
        idle = _ktcp_idle(fr.df, d, ALPHAS, ["x", "sack"])
        why = _idle_why(d) if idle else ""
        out[f"long{d}"] = claim(
            f"at d = {d} ms HSTCP+KTCP gets a high throughput whatever alpha (share within 0.1 of plain HSTCP's) "
            "(Fig. 7)", all(abs(v[d] - nxh[d]) <= 0.1 for v in a.values()),
            ", ".join(f"{c[-4:]}: {v[d]:.3f}" for c, v in a.items()) + f"; HSTCP {nxh[d]:.3f}",
            quote=Q_LONG, section="§5.1.1, Fig. 7", informative=not idle, why_uninformative=why)
        out[f"long8_{d}"] = claim(
            f"at d = {d} ms KTCP changes the SACK flows' normalized throughput little (within 0.1 of plain "
            "HSTCP's) (Fig. 8)", abs(nsk[d] - nsh[d]) <= 0.1, f"{nsk[d]:.3f} vs {nsh[d]:.3f}",
            quote=Q_LONG8, section="§5.1.1, Fig. 8", informative=not idle,
            why_uninformative=why + " (and the SACK flows beside it)" if idle else "")
    return out


def _other(name: str, flip: str) -> str:
    """The variant that differs from ``name`` in one setting ("jitter" or "tc")."""
    j, t = VARIANTS[name]
    want = (not j, t) if flip == "jitter" else (j, 0 if t else max(v[1] for v in VARIANTS.values()))
    return next(n for n, v in VARIANTS.items() if v == want)


def _change(name: str, flip: str) -> str:
    j, t = VARIANTS[_other(name, flip)]
    if flip == "jitter":
        return "the 0-12 us send jitter (overhead = 12us)" if j else "no send jitter (no overhead)"
    return f"T_c capped at {t} (ktcp_tc_max = {t})" if t else "T_c unbounded (no ktcp_tc_max)"


def variant_checks(per: Mapping[str, Dict[str, Check]]) -> Dict[str, List[Check]]:
    """Each variant's checks, a failing one explained by the variant that differs in one setting
    where that proves the cause (``SETTING_CAUSES``)."""
    return {name: [_ablate(c, _others(name, per, key), SETTING_CAUSES) for key, c in checks.items()]
            for name, checks in per.items()}


def variants_of(per: Mapping[str, Dict[str, Check]]) -> List[Variant]:
    """Every variant's checks (``variant_checks``) as the report's variants, the default named."""
    done = variant_checks(per)
    return [Variant(n, variant_text(n), done[n], default=n == DEFAULT_VARIANT,
                    why=VARIANT_WHY if n == DEFAULT_VARIANT else "") for n in VARIANTS]


def both_note(per: Mapping[str, Dict[str, Check]]) -> str:
    """Which variants give the Fig. 8 claim and the Fig. 6(c) claim together."""
    rows = [f"{n}: Fig. 8 {'holds' if c['sack_up'].holds else 'fails'}, Fig. 6(c) "
            f"{'holds' if c['equal'].holds else 'fails'}" for n, c in per.items()]
    both = [n for n, c in per.items() if c["sack_up"].holds and c["equal"].holds]
    head = ("The paper's two statements at short d, that KTCP raises the SACK flows' normalized throughput (Fig. 8) "
            "and that with alpha = 0.90 the SACK flows get about what HSTCP+KTCP gets (Fig. 6(c)), hold together "
            + (f"only in: {', '.join(both)}" if both else "in none of the variants"))
    return head + " (" + "; ".join(rows) + ")."


@register
class Fig6to8(Experiment):
    paper = "002"
    name = "fig6-8"
    title = ("One HSTCP or HSTCP+KTCP flow against 20 SACK flows over d: throughput (Fig. 6), normalized "
             "throughput of HSTCP+KTCP (Fig. 7) and of the SACK flows (Fig. 8)")
    assumptions = SETUP + [
        "alpha = 0.70, 0.80, 0.90, 0.95 (Fig. 6 (b)-(d) shows 0.80-0.95, Figs. 7-8 also 0.70; quick form: "
        "HSTCP and alpha = 0.90 only). The SACK baseline of Fig. 8 replaces the "
        "high-speed flow by a 21st SACK flow; normalized throughput divides each run's SACK total by the "
        "baseline's mean at that d.",
        "'alpha = 0.90 is appropriate' is evaluated by the paper's own criterion (§5.1.1: 'considering the "
        "throughput performance of both HSTCP and SACK flows', from Figs. 7 and 8), with each figure's fair "
        "point as the paper states it (Fig. 7: 'The value 0.5 means each type of flow had a fair share'; "
        "§4 for Fig. 8: 'The value of 1 means that high-speed transport protocols achieve good fairness'): the "
        "alpha with the smallest |share - 0.5| + |normalized - 1|, averaged over the short delays, is the "
        "appropriate one.",
        f"Variants (send jitter on or off, T_c unbounded or capped): the default's runs are the full form's; "
        f"the others run at d = {', '.join(map(str, D_VAR))} ms with {SEEDS_VAR} seeds (quick: d = 10 ms, "
        f"{SEEDS_QUICK} seeds), where the paper makes its KTCP claims; runs that a bound on T_c does not "
        "change (plain HSTCP, the SACK baseline) are shared with the unbounded variant of the same jitter.",
        _full_form(),
    ]

    def configs(self, quick: bool) -> List[str]:
        if quick:
            return ["HSTCP", K9, "SACK"]
        return ["HSTCP"] + ALPHAS + ["SACK"]

    def runs(self, quick: bool) -> List[Run]:
        ds, seeds, dur = _ds(quick)
        runs = _sweep(self.configs(quick), 1, 20, ds, seeds, dur)
        vds, vseeds = ((10,), SEEDS_QUICK) if quick else (D_VAR, SEEDS_VAR)
        for name, (jitter, tc_max) in VARIANTS.items():
            if name != DEFAULT_VARIANT:
                runs += _sweep(self.configs(quick), 1, 20, vds, vseeds, dur, jitter, tc_max)
        return runs

    def measure(self, run: Run, res: Any) -> Dict[str, Any]:
        return _keep(res)

    def _figures(self, fr: _Frames, quick: bool) -> Dict[str, Any]:
        hs_cfgs = [c for c in self.configs(quick) if c != "SACK"]
        figs = {}
        rows = 2 if len(hs_cfgs) > 2 else 1
        fig6, axes = figure(rows, 2, width=4.2, height=2.8, sharex=False)
        for ax, c, tag in zip(axes, [c for c in hs_cfgs if c != ALPHAS[0]], "abcd"):
            _line(ax, fr.st_x, c, c, "o-")
            _line(ax, fr.st_s, c, "20 SACK flows (total)", "s--")
            ax.set_title(f"({tag}) {c}", fontsize=9)
            ax.set_ylim(0, 1000)
            _dax(ax, "throughput (Mbit/s)")
            ax.legend(fontsize=7)
        fig6.suptitle("Fig. 6: throughput of one HSTCP(+KTCP) flow and of 20 SACK flows", fontsize=9)
        figs["fig6"] = fig6
        for key, st, fair, top, lab, title in (
                ("fig7", fr.st_nx, 0.5, 1.0, "normalized throughput of HSTCP(+KTCP)",
                 "Fig. 7: HSTCP(+KTCP) throughput / total throughput"),
                ("fig8", fr.st_ns, 1.0, 1.2, "normalized throughput of SACK flows",
                 "Fig. 8: 20 SACK flows against HSTCP(+KTCP) / against a 21st SACK flow")):
            fig, (ax,) = figure(width=6.4, height=3.6)
            for c in hs_cfgs:
                _line(ax, st, c)
            ax.axhline(fair, ls=":", c="k", lw=0.8)
            ax.set_ylim(0, top)
            _dax(ax, lab)
            ax.legend(fontsize=8)
            ax.set_title(title, fontsize=9)
            figs[key] = fig
        return figs

    def report(self, data: Dict[str, pd.DataFrame], quick: bool) -> Report:
        vds, vseeds = ((10,), SEEDS_QUICK) if quick else (D_VAR, SEEDS_VAR)
        frames: Dict[str, _Frames] = {}
        for name, (jitter, tc_max) in VARIANTS.items():
            if name == DEFAULT_VARIANT:
                frames[name] = _Frames(_select(data, jitter, tc_max))
            else:
                frames[name] = _Frames(_select(data, jitter, tc_max, vseeds, vds))
        per = {n: _checks(fr, quick) for n, fr in frames.items()}
        variants = variants_of(per)
        fr = frames[DEFAULT_VARIANT]
        md = _table({"HS flow (Mbit/s)": fr.st_x, "20 SACK (Mbit/s)": fr.st_s, "HS share (Fig. 7)": fr.st_nx,
                     "SACK normalized (Fig. 8)": fr.st_ns}, self.configs(quick))
        for n, f in frames.items():
            if n != DEFAULT_VARIANT:
                md += (f"\n\nVariant **{n}** ({vseeds} seeds):\n\n"
                       + _table({"HS flow (Mbit/s)": f.st_x, "20 SACK (Mbit/s)": f.st_s,
                                 "HS share (Fig. 7)": f.st_nx, "SACK normalized (Fig. 8)": f.st_ns},
                                self.configs(quick)))
        return Report(figures=self._figures(fr, quick), checks=next(v for v in variants if v.default).checks, markdown=md,
                      notes=[both_note(per)], variants=variants)

